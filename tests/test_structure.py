"""The package's import structure (issue 18): imports go one way, and private names stay home.

Every module of `trecgain` is parsed with `ast` (nothing is imported).  The rules:

- no import cycle between trecgain modules; an import counts wherever it is written (module
  level or inside a function) except under `if TYPE_CHECKING:`, which is never executed;
- no `from .module import _name` of another trecgain module's private name, and no
  `module._name` through a trecgain module object;
- no `x._name` on anything but `self`/`cls` where `_name` is defined only in other trecgain
  modules (functions, classes, methods, `self._name = ...` attributes, module-level names):
  a private name is read only in the module that defines it.

`trecgain._core` (the extension) is the package's own API: importing it is allowed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "trecgain"
CORE = Path(__file__).resolve().parent.parent / "core" / "src"


def _modules() -> dict[str, ast.Module]:
    """Module name (`trecgain.cli`) -> its parsed source."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return found


MODULES = _modules()
PUBLIC_PRIVATE = {"trecgain._core", "trecgain._entry"}  # private in spelling only


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _walk(tree: ast.AST, typing_only: bool = False):
    """Every node with whether it sits under `if TYPE_CHECKING:`."""
    for child in ast.iter_child_nodes(tree):
        inner = typing_only or (isinstance(child, ast.If) and _is_type_checking(child))
        if isinstance(child, ast.If) and _is_type_checking(child):
            for node in child.body:
                yield node, True
                yield from _walk(node, True)
            for node in child.orelse:
                yield node, typing_only
                yield from _walk(node, typing_only)
            continue
        yield child, inner
        yield from _walk(child, inner)


def _package_of(module: str) -> str:
    path = PACKAGE.parent / Path(*module.split("."))
    return module if (path / "__init__.py").exists() else module.rpartition(".")[0]


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = _package_of(module).split(".")
    if node.level > 1:
        base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, tree: ast.Module):
    """(imported module, names imported from it or None, line, typing only) of each import."""
    for node, typing_only in _walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("trecgain"):
                    yield alias.name, None, node.lineno, typing_only
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            if not target.startswith("trecgain"):
                continue
            names = []
            for alias in node.names:
                # `from . import cli` imports the module trecgain.cli
                full = f"{target}.{alias.name}"
                if full in MODULES or full in PUBLIC_PRIVATE:
                    yield full, None, node.lineno, typing_only
                else:
                    names.append(alias.name)
            if names:
                yield target, names, node.lineno, typing_only


def _graph() -> dict[str, dict[str, int]]:
    """Module -> {module it imports at run time: line of the first such import}."""
    graph: dict[str, dict[str, int]] = {name: {} for name in MODULES}
    for module, tree in MODULES.items():
        for target, _names, line, typing_only in _imports(module, tree):
            if typing_only or target == module or target not in MODULES:
                continue
            graph[module].setdefault(target, line)
    return graph


def _cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One cycle of the graph as its modules in order, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle():
    graph = _graph()
    cycles = []
    while cycle := _cycle(graph):
        steps = [f"{a} imports {b} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:])]
        cycles.append("; ".join(steps))
        del graph[cycle[-2]][cycle[-1]]  # to report the next one
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_imported_from_another_module():
    found = []
    for module, tree in MODULES.items():
        for target, names, line, _typing in _imports(module, tree):
            if target == module:
                continue
            if names is None:
                if _private(target.rpartition(".")[2]) and target not in PUBLIC_PRIVATE:
                    found.append(f"{module}:{line} imports private module {target}")
                continue
            for name in names:
                if _private(name):
                    found.append(f"{module}:{line} imports {target}.{name}")
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def _module_aliases(module: str, tree: ast.Module) -> set[str]:
    """The local names under which `module` binds other trecgain modules."""
    names = set()
    for node, _typing in _walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            for alias in node.names:
                if f"{target}.{alias.name}" in MODULES:
                    names.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("trecgain"):
                    names.add(alias.asname or alias.name.partition(".")[0])
    return names


def _defined_privates(tree: ast.Module) -> set[str]:
    """Private names a module defines: functions, classes, methods, module names, self._x."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.partition(".")[0])
    return {name for name in names if _private(name)}


def test_no_private_attribute_of_another_module():
    defined = {module: _defined_privates(tree) for module, tree in MODULES.items()}
    anywhere = set().union(*defined.values())
    found = []
    for module, tree in MODULES.items():
        aliases = _module_aliases(module, tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)):
                continue
            owner = node.value.id if isinstance(node.value, ast.Name) else None
            if owner in aliases:
                found.append(f"{module}:{node.lineno} reads {owner}.{node.attr} of another module")
            elif owner in ("self", "cls"):
                continue
            elif node.attr in anywhere and node.attr not in defined[module]:
                where = sorted(m for m, names in defined.items() if node.attr in names)
                found.append(
                    f"{module}:{node.lineno} reads .{node.attr}, private to {', '.join(where)}"
                )
    assert not found, "private names read across modules:\n" + "\n".join(found)


def test_rust_evaluate_and_output_do_not_import_each_other():
    """core/src: evaluate.rs uses output.rs or the reverse, never both (a leaf printf.rs spells numbers)."""

    def uses(path: Path, module: str) -> bool:
        text = re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8"))
        return re.search(rf"\b(crate|super)::{module}\b", text) is not None

    evaluate = CORE / "evaluate.rs"
    if not evaluate.exists():
        evaluate = CORE / "evaluate" / "mod.rs"
    output = CORE / "output.rs"
    both = uses(evaluate, "output") and uses(output, "evaluate")
    assert not both, "core/src/evaluate.rs and core/src/output.rs import each other"
    printf = CORE / "printf.rs"
    assert printf.exists(), "trec_eval's number spelling lives in the leaf core/src/printf.rs"
    text = re.sub(r"//[^\n]*", "", printf.read_text(encoding="utf-8"))
    assert "crate::" not in text, "core/src/printf.rs is a leaf: it uses no other module of the crate"


def test_function_level_imports_say_why():
    """An import inside a function is there for start-up or an optional dependency, and says so."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for function in ast.walk(ast.parse(source)):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    if not any("#" in line for line in lines[node.lineno - 1 : node.end_lineno]):
                        found.append(f"{path.name}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not found, "function-level imports without a comment saying why:\n" + "\n".join(sorted(set(found)))
