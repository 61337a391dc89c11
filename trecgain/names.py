"""ir_measures-style measure names (`nDCG@10`, `nDCG(dcg='exp-log2')@10`, `ndcg@10`), parsed
as data: the parameter list is read with Python's parser and only literals are accepted,
never evaluated as code."""

from __future__ import annotations

import math
from .errors import TrecgainError
from .gains import GainPair, GainSpec
from .record import Record

_FORM = r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[0-9]+))?$"

# ir_measures name -> (trecgain measure with a cutoff, trecgain measure without one)
MEASURES = {"nDCG": ("ndcg_cut", "ndcg"), "ndcg": ("ndcg_cut", "ndcg"), "ERR": ("err_cut", None),
            "err": ("err_cut", None)}
PARAMETERS = {"nDCG": {"dcg", "gains", "judged_only"}, "ERR": {"judged_only"}}


class IrMeasure(Record):
    """One parsed name: the trecgain measure, its cutoff (or None), and per-measure options
    (its own GainSpec or None, judged_only)."""

    __slots__ = ("text", "measure", "cutoff", "gains", "judged_only")


def looks_like_ir_measures(text: str) -> bool:
    return "@" in text or "(" in text


def parse(text: str) -> IrMeasure:
    """Parse `Name(param=literal, ...)@cutoff`; unknown names or parameters list close matches."""
    import re  # here, not at start-up: the command line seldom needs it

    match = re.fullmatch(_FORM, text)
    if not match:
        raise TrecgainError(f"measure '{text}': expected Name(param=value, ...)@cutoff, e.g. nDCG@10")
    name, cutoff = match["name"], match["cutoff"]
    if name not in MEASURES:
        import difflib

        close = difflib.get_close_matches(name, list(MEASURES), n=3, cutoff=0.4)
        hint = f"; did you mean {' or '.join(close)}?" if close else f"; known: {', '.join(MEASURES)}"
        raise TrecgainError(f"unknown measure '{name}' in '{text}'{hint}")
    with_cutoff, without = MEASURES[name]
    measure = with_cutoff if cutoff else without
    if measure is None:
        raise TrecgainError(f"measure '{text}' needs a cutoff, e.g. {name}@10")
    if cutoff is not None and not 0 < int(cutoff) < 2**31:
        raise TrecgainError(f"measure '{text}': the cutoff must be from 1 to {2**31 - 1}")
    params = _literals(match["params"] or "", text)
    allowed = PARAMETERS["nDCG" if name.lower() == "ndcg" else "ERR"]
    for key in params:
        if key not in allowed:
            import difflib

            close = difflib.get_close_matches(key, sorted(allowed), n=2, cutoff=0.4)
            hint = f"did you mean {' or '.join(close)}?" if close else f"known: {', '.join(sorted(allowed))}"
            raise TrecgainError(f"unknown parameter '{key}' in '{text}'; {hint}")
    return IrMeasure(text, measure, int(cutoff) if cutoff else None, _gains(params, text),
                     _flag(params.get("judged_only", False), "judged_only", text))


def _literals(source: str, text: str) -> dict[str, object]:
    """`a=1, b='x', c={0: 1}` -> dict, accepting literals only."""
    if not source.strip():
        return {}
    import ast  # only for names with a parameter list

    if len(source) > 10_000:
        raise TrecgainError(f"measure '{text[:40]}...': the parameter list is too long")
    try:
        call = ast.parse(f"f({source})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise TrecgainError(f"measure '{text}': cannot read the parameters '{source}'") from None
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise TrecgainError(f"measure '{text}': parameters must be given as name=value")
    out = {}
    for keyword in call.keywords:
        try:
            out[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise TrecgainError(f"measure '{text}': parameter '{keyword.arg}' is not a literal value") from None
    return out


def _gains(params: dict[str, object], text: str) -> GainSpec | None:
    dcg = params.get("dcg", "log2")
    if dcg not in ("log2", "exp-log2"):
        raise TrecgainError(f"measure '{text}': dcg must be 'log2' or 'exp-log2', not {dcg!r}")
    gains = params.get("gains")
    if gains is not None:
        if not isinstance(gains, dict) or not all(
                isinstance(k, int) and not isinstance(k, bool) and isinstance(v, (int, float))
                and not isinstance(v, bool) and math.isfinite(v) and abs(k) < 2**63 for k, v in gains.items()):
            raise TrecgainError(f"measure '{text}': gains must map grades to numbers, e.g. {{0: 0, 1: 1, 2: 3}}")
        pairs = tuple(GainPair(int(k), float(v)) for k, v in gains.items())
        return GainSpec(",".join(f"{k}={v}" for k, v in gains.items()), pairs, "exp" if dcg == "exp-log2" else "linear")
    return GainSpec("exp", (), "exp") if dcg == "exp-log2" else None


def _flag(value: object, name: str, text: str) -> bool:
    if not isinstance(value, bool):
        raise TrecgainError(f"measure '{text}': {name} must be True or False")
    return value
