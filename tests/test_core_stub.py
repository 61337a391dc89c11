"""trecgain/_core.pyi against the extension it describes (issue 18).

The stub is parsed with `ast` and compared both ways with the built `trecgain._core`: every
public name of the extension (module functions, classes, their methods and attributes; dunders
aside) is in the stub, and every public name of the stub is in the extension, as the same kind
of thing (a getter is a property, a static method a staticmethod, a method a method); a
function's parameter names, and which have defaults and what they are, are the extension's
`__text_signature__`; the stub's `__all__` is the extension's.  Names with a leading underscore
are the stub's own (aliases, TypedDicts), as are the names it imports.

mypy's stubtest agrees (`python -m mypy.stubtest trecgain._core`, with mypy installed; it is not
a test dependency) and `mypy trecgain/_core.pyi` is clean.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from trecgain import _core

STUB_PATH = Path(__file__).resolve().parent.parent / "trecgain" / "_core.pyi"
STUB = ast.parse(STUB_PATH.read_text(encoding="utf-8"), filename=str(STUB_PATH))


def _public(name: str) -> bool:
    return not name.startswith("_")


def _stub_functions(body: list[ast.stmt]) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in body if isinstance(n, ast.FunctionDef) and _public(n.name)}


def _stub_classes() -> dict[str, ast.ClassDef]:
    return {n.name: n for n in STUB.body if isinstance(n, ast.ClassDef) and _public(n.name)}


def _decorators(node: ast.FunctionDef) -> set[str]:
    return {d.id for d in node.decorator_list if isinstance(d, ast.Name)}


def _stub_kind(node: ast.FunctionDef) -> str:
    decorators = _decorators(node)
    if "property" in decorators:
        return "getter"
    if "staticmethod" in decorators:
        return "staticmethod"
    return "method"


def _core_kind(cls: type, name: str) -> str:
    raw = inspect.getattr_static(cls, name)
    if inspect.isgetsetdescriptor(raw) or isinstance(raw, property):
        return "getter"
    if isinstance(raw, staticmethod):
        return "staticmethod"
    if callable(raw):
        return "method"
    return "attribute"


def _core_functions() -> dict[str, object]:
    return {n: getattr(_core, n) for n in dir(_core)
            if _public(n) and not isinstance(getattr(_core, n), type)}


def _core_classes() -> dict[str, type]:
    return {n: getattr(_core, n) for n in dir(_core) if _public(n) and isinstance(getattr(_core, n), type)}


def _core_members(cls: type) -> set[str]:
    return {n for n in vars(cls) if _public(n)}


def _stub_parameters(node: ast.FunctionDef) -> list[tuple[str, str | None]]:
    """(name, default as source text or None) of each parameter (a method's self too, as the
    extension's `$self`)."""
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + [ast.unparse(d) for d in args.defaults]
    params = list(zip([a.arg for a in positional], defaults))
    params += [(a.arg, None if d is None else ast.unparse(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.vararg:
        params.append(("*" + args.vararg.arg, None))
    if args.kwarg:
        params.append(("**" + args.kwarg.arg, None))
    return params


def _core_parameters(function: object) -> list[tuple[str, str | None]] | None:
    """The same from the extension's __text_signature__, or None where it gives none."""
    if getattr(function, "__text_signature__", None) is None:
        return None
    params = []
    for p in inspect.signature(function).parameters.values():
        name = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        params.append((name, None if p.default is p.empty else repr(p.default)))
    return params


def test_the_stub_is_packaged_beside_py_typed():
    assert STUB_PATH.exists()
    assert (STUB_PATH.parent / "py.typed").exists(), "trecgain/py.typed marks the package as typed (PEP 561)"


def test_every_module_name_is_in_the_stub_and_the_reverse():
    stub = set(_stub_functions(STUB.body)) | set(_stub_classes())
    core = set(_core_functions()) | set(_core_classes())
    assert not core - stub, f"in trecgain._core but not in _core.pyi: {sorted(core - stub)}"
    assert not stub - core, f"in _core.pyi but not in trecgain._core: {sorted(stub - core)}"


def test_all_lists_the_extensions_names():
    """The extension's __all__ (PyO3's, in the order src/lib.rs adds them), spelled in the stub."""
    (listed,) = [n.value for n in STUB.body
                 if isinstance(n, ast.Assign) and [ast.unparse(t) for t in n.targets] == ["__all__"]]
    assert ast.literal_eval(listed) == _core.__all__


def test_classes_are_classes_and_functions_functions():
    assert set(_stub_classes()) == set(_core_classes())
    assert set(_stub_functions(STUB.body)) == set(_core_functions())


@pytest.mark.parametrize("name", sorted(_core_classes()))
def test_class_members_match(name):
    cls = _core_classes()[name]
    stub_class = _stub_classes()[name]
    stub = {n: _stub_kind(node) for n, node in _stub_functions(stub_class.body).items()}
    for node in stub_class.body:  # plain annotated attributes
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _public(node.target.id):
            stub[node.target.id] = "attribute"
    core = {n: _core_kind(cls, n) for n in _core_members(cls)}
    assert not core.keys() - stub.keys(), f"{name}: not in the stub: {sorted(core.keys() - stub.keys())}"
    assert not stub.keys() - core.keys(), f"{name}: not in the extension: {sorted(stub.keys() - core.keys())}"
    differ = {n: (stub[n], core[n]) for n in core if stub[n] != core[n]}
    assert not differ, f"{name}: (stub, extension) kinds differ: {differ}"


def _signatures():
    for name, node in sorted(_stub_functions(STUB.body).items()):
        if hasattr(_core, name):  # a name only the stub has fails test_every_module_name_...
            yield name, node, getattr(_core, name)
    for cls_name, cls_node in sorted(_stub_classes().items()):
        cls = getattr(_core, cls_name)
        for name, node in sorted(_stub_functions(cls_node.body).items()):
            if _stub_kind(node) == "getter" or not hasattr(cls, name):
                continue
            yield f"{cls_name}.{name}", node, getattr(cls, name)


@pytest.mark.parametrize("name, node, function", list(_signatures()), ids=[s[0] for s in _signatures()])
def test_parameters_match_the_text_signature(name, node, function):
    core = _core_parameters(function)
    if core is None:
        pytest.skip(f"{name}: the extension gives no __text_signature__")
    assert _stub_parameters(node) == core, name


def test_every_signature_was_compared():
    """PyO3 gives every function and method a text signature: none is skipped silently."""
    missing = [name for name, _node, function in _signatures() if _core_parameters(function) is None]
    assert not missing, f"no __text_signature__ for {missing}"
