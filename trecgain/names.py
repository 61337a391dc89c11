"""ir_measures-style measure names (`nDCG@10`, `nDCG(dcg='exp-log2')@10`, `ndcg@10`), parsed
as data: the parameter list is read with Python's parser and only literals are accepted,
never evaluated as code.  What a name means in the registry (its trec_eval line:
trecgain.measures.trec_line_name) is trecgain.measures': it imports this module, never the reverse."""

from __future__ import annotations

import math

from .errors import TrecgainError
from .gains import GainPair, GainSpec
from .kernels import RECORDS
from .record import Record

_FORM = r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[0-9][0-9.]*))?$"



def _ir_table() -> dict[str, tuple[str | None, str | None, set[str]]]:
    """ir_measures name -> (trecgain measure with a cutoff, without one, parameters accepted),
    from the core's records (each record's `ir_measures` spellings; `nDCG@k`: with a cutoff;
    a named-parameter record's `named` parameters)."""
    table: dict[str, list] = {}
    for record in RECORDS:
        for spelling in record["ir_measures"]:
            name, at, _ = spelling.partition("@")
            entry = table.setdefault(name, [None, None, set()])
            entry[0 if at else 1] = entry[0 if at else 1] or record["name"]  # the first keeps it (WITH_REL)
            entry[2] |= set(record["ir_params"]) | {p["name"] for p in record["named"]}
    return {name: (with_cutoff, without, params) for name, (with_cutoff, without, params) in table.items()}


#: ir_measures name -> (trecgain measure with a cutoff, without one, parameters accepted).
MEASURES: dict[str, tuple[str | None, str | None, set[str]]] = _ir_table()
#: The records of the measures with named parameters (`ParamKind::Named`), by trecgain name.
NAMED = {record["name"]: record for record in RECORDS if record["params"] == "named"}
#: Names users reach for, with the ir_measures name they mean.
ALIASES = {"map": "AP", "mrr": "RR", "recall": "R", "precision": "P", "ndcg_cut": "nDCG", "success": "Success",
           "judged": "Judged", "bpref": "Bpref", "iprec": "IPrec", "rbp": "RBP", "dcg_cut": "DCG",
           "recip_rank": "RR", "map_cut": "AP", "err_cut": "ERR", "iprec_at_recall": "IPrec"}
#: ir_measures names that name another record when given rel= (and no cutoff): a named record
#: whose parameters include rel, its spelling kept by an earlier record (ir_measures computes
#: RBP(rel=...) with cwl_eval, RBP(p=...) with none: that is trecgain's rbp).
WITH_REL = {spelling: r["name"] for r in NAMED.values() for spelling in r["ir_measures"]
            if any(p["name"] == "rel" for p in r["named"]) and MEASURES[spelling][1] != r["name"]}
#: The measures whose relevance level must be 0 or more (their records' level_from_zero).
LEVEL_FROM_ZERO = {r["name"] for r in RECORDS if r["level_from_zero"]}
MEASURES["ndcg"] = MEASURES["nDCG"]
MEASURES["err"] = MEASURES["ERR"]


class IrMeasure(Record):
    """One parsed name: the trecgain measure, its cutoff (or None), numbers (a recall point,
    beta, p), and per-measure options: its own GainSpec or None, judged_only, and its
    relevance level `rel` (or None)."""

    __slots__ = ("text", "measure", "cutoff", "numbers", "gains", "judged_only", "rel")


def close_matches(name: str, known: list[str], n: int = 3) -> list[str]:
    """Known names like `name`, case aside (`mAP` finds map, `Recall` recall), best first."""
    import difflib  # not at import: only this path needs it

    by_lower: dict[str, str] = {}
    for k in known:
        by_lower.setdefault(k.lower(), k)
    found = difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=0.6)
    return [by_lower[f] for f in found]


def canonical() -> list[str]:
    """The ir_measures names as ir_measures spells them (not the lower-case `ndcg`, `err`)."""
    return [k for k in MEASURES if k not in ("ndcg", "err")]


def suggestions(text: str) -> list[str]:
    """What an unknown ir_measures-style name most likely meant, spelled in full when that
    parses: the name in its own case (`NDCG@10` -> nDCG@10), an alias (`MRR@10` -> RR@10,
    `map@100` -> AP@100); else close names (up to three)."""
    import re  # not at import: only this path needs it

    match = re.fullmatch(_FORM, text)
    if not match:
        return []
    name = match["name"]
    known = canonical()
    same = [k for k in known if k.lower() == name.lower()]
    if not same and name.lower() in ALIASES:
        same = [ALIASES[name.lower()]]
    close = same if len(same) == 1 else close_matches(name, known)
    return [_spelled(k + text[len(name):], k) for k in close]


def _spelled(text: str, name: str) -> str:
    """`text` when it parses, else the bare `name` (Bpref@10: Bpref takes no cutoff)."""
    try:
        parse(text)
    except TrecgainError:
        return name
    return text


def did_you_mean(close: list[str], otherwise: str) -> str:
    """`; did you mean A or B?` for an error message, or `otherwise` when nothing is close."""
    return f"; did you mean {' or '.join(close)}?" if close else otherwise


def is_ir_measures_name(text: str) -> bool:
    """`nDCG@10`, `AP(rel=2)`, `NumQ`: a name with a cutoff or parameters, or an ir_measures name."""
    return "@" in text or "(" in text or text in MEASURES


def parse(text: str) -> IrMeasure:
    """Parse `Name(param=literal, ...)@cutoff`; unknown names or parameters list close matches."""
    import re  # here, not at start-up: the command line seldom needs it

    match = re.fullmatch(_FORM, text)
    if not match:
        raise TrecgainError(f"measure '{text}': expected Name(param=value, ...)@cutoff, e.g. nDCG@10")
    name, at = match["name"], match["cutoff"]
    if name not in MEASURES:
        otherwise = f"; known: {', '.join(canonical())}"
        raise TrecgainError(f"unknown measure '{name}' in '{text}'{did_you_mean(suggestions(text), otherwise)}")
    with_cutoff, without, allowed = MEASURES[name]
    params = _literals(match["params"] or "", text)
    for key in params:
        if key not in allowed | {"cutoff"}:
            import difflib  # not at import: only this path needs it

            close = difflib.get_close_matches(key, sorted(allowed), n=2, cutoff=0.4)
            hint = f"did you mean {' or '.join(close)}?" if close else f"known: {', '.join(sorted(allowed)) or 'none'}"
            raise TrecgainError(f"unknown parameter '{key}' in '{text}'; {hint}")
    if at is not None and "cutoff" in params:
        raise TrecgainError(f"measure '{text}': give the cutoff once, as @k or cutoff=k")
    cutoff = params.get("cutoff", at)
    if name == "IPrec":  # IPrec@0.5: the number is a recall point
        return _iprec(text, params.get("recall", cutoff), params)
    if cutoff is not None and with_cutoff is None:
        raise TrecgainError(f"measure '{text}' takes no cutoff: {name}")
    measure = with_cutoff if cutoff is not None else without
    if measure is None:
        raise TrecgainError(f"measure '{text}' needs a cutoff, e.g. {name}@10")
    if cutoff is not None:
        cutoff = _cutoff(cutoff, text)
    if name in WITH_REL and "rel" in params and cutoff is None:
        measure = WITH_REL[name]
    if measure in NAMED:
        return _named(text, NAMED[measure], cutoff, params)
    numbers: tuple[float, ...] = ()
    if name == "SetP" and _flag(params.get("relative", False), "relative", text):
        measure = "set_relative_P"
    if name == "SetRelP" and not _flag(params.get("relative", True), "relative", text):
        measure = "set_P"  # ir_measures' SetRelP is SetP(relative=True)
    if name == "SetF":
        numbers = (_number(params.get("beta", 1.0), "beta", text),)
    if name == "RBP":
        numbers = (_number(params.get("p", 0.8), "p", text),)
    if name == "NumRet" and "rel" in params:
        measure = "num_rel_ret"  # ir_measures: the retrieved documents with grade >= rel
    rel = _rel(params, text, measure)
    gains = _gains(params, text)
    if name == "RBP" and rel is not None:
        gains = GainSpec("binary", (), "binary")  # ir_measures' RBP: relevant (grade >= rel) has gain 1
    return IrMeasure(text, measure, cutoff, numbers, gains,
                     _flag(params.get("judged_only", False), "judged_only", text), rel)


def _named(text: str, record: dict, cutoff: int | None, params: dict[str, object]) -> IrMeasure:
    """A measure whose parameters its record declares: every one's value, in the declared order
    (the record's default where `text` gives none), and the line named as ir_measures prints it."""
    limit = record["max_cutoff"]
    if cutoff is not None and limit and cutoff > limit:
        raise TrecgainError(f"measure '{text}': the cutoff must be at most {limit} "
                            f"(the reference computes to rank {limit})")
    numbers = []
    for p in record["named"]:
        if p["name"] not in params and math.isnan(p["default"]):  # required, as ir_measures requires it
            raise TrecgainError(f"measure '{text}' needs {p['name']}, as ir_measures requires it "
                                f"(e.g. {record['ir_measures'][0].partition('@')[0]}({p['name']}=3))")
        given = params.get(p["name"], p["default"])
        if p["kind"] == "flag":  # True or False, sent as 1 or 0
            given = float(_flag(given, p["name"], text)) if p["name"] in params else given
        value = _number(given, p["name"], text)
        low, high = p["range"]
        if not low <= value <= high or (p["kind"] == "whole" and not value.is_integer()):
            kind = "a whole number" if p["kind"] == "whole" else "a number"
            raise TrecgainError(f"measure '{text}': {p['name']} must be {kind} from {_plain(low)} to {_plain(high)}")
        numbers.append(value)
    rel = _rel(params, text, record["name"])
    judged_only = _flag(params.get("judged_only", False), "judged_only", text)
    return IrMeasure(printed(record, cutoff, params), record["name"], cutoff, tuple(numbers), None, judged_only, rel)


def printed(record: dict, cutoff: int | None, params: dict[str, object]) -> str:
    """The measure as ir_measures prints it (str(measure)): its name, the parameters given other
    than their defaults in the order given, the cutoff."""
    defaults = {"rel": 1, "judged_only": False} | {p["name"]: p["default"] for p in record["named"]}
    shown = ",".join(f"{k}={v!r}" for k, v in params.items() if k != "cutoff" and v != defaults.get(k))
    name = record["ir_measures"][0].partition("@")[0]
    return name + (f"({shown})" if shown else "") + ("" if cutoff is None else f"@{cutoff}")


def _rel(params: dict[str, object], text: str, measure: str) -> int | None:
    """The `rel` given, or None: a whole number, 0 or more where the measure's record says so."""
    rel = params.get("rel")
    if rel is None:
        return None
    if isinstance(rel, bool) or not isinstance(rel, int) or abs(rel) >= 2**53:
        raise TrecgainError(f"measure '{text}': rel must be a whole number")
    if rel < 0 and measure in LEVEL_FROM_ZERO:
        raise TrecgainError(f"measure '{text}': rel must be 0 or more (trecgain reads documents "
                            "judged below 0 as unjudged, not by their grade)")
    return rel


def _plain(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _iprec(text: str, recall: object, params: dict[str, object]) -> IrMeasure:
    if recall is None:
        raise TrecgainError(f"measure '{text}' needs a recall point, e.g. IPrec@0.5")
    try:
        point = float(recall) if not isinstance(recall, bool) else math.nan  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        point = math.nan
    if not 0 <= point <= 1:
        raise TrecgainError(f"measure '{text}': the recall point must be from 0 to 1")
    rel = _rel(params, text, "iprec_at_recall")
    return IrMeasure(text, "iprec_at_recall", None, (point,), None,
                     _flag(params.get("judged_only", False), "judged_only", text), rel)


def _cutoff(value: object, text: str) -> int:
    if isinstance(value, str):  # from @k: ASCII digits only ('²' is a digit to str.isdigit)
        value = int(value) if value.isascii() and value.isdigit() and len(value) <= 30 else value
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**31:
        raise TrecgainError(f"measure '{text}': the cutoff must be a whole number from 1 to {2**31 - 1}")
    return value


def _number(value: object, name: str, text: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TrecgainError(f"measure '{text}': {name} must be a number")
    try:
        number = float(value)
    except OverflowError:  # an int beyond the doubles
        number = math.inf
    if not math.isfinite(number):
        raise TrecgainError(f"measure '{text}': {name} must be a finite number")
    return number


def _literals(source: str, text: str) -> dict[str, object]:
    """`a=1, b='x', c={0: 1}` -> dict, accepting literals only."""
    if not source.strip():
        return {}
    import ast  # only for names with a parameter list
    import warnings  # not at import: only this path needs it

    if len(source) > 10_000:
        raise TrecgainError(f"measure '{text[:40]}...': the parameter list is too long")
    try:
        with warnings.catch_warnings():  # Python's SyntaxWarning ("invalid decimal literal"): not ours to print
            warnings.simplefilter("ignore")
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


def _gain(value: int | float, text: str) -> float:
    """A gain as a double, within the core's bounds (a 400-digit integer is too large, not an error
    of Python's)."""
    from .gains import check_gain  # not at import: only this path needs it

    try:
        gain = float(value)
    except OverflowError:
        gain = math.inf
    if not math.isfinite(gain):
        raise TrecgainError(f"measure '{text}': gain {str(value)[:20]}... is not a finite number"
                            if len(str(value)) > 20 else f"measure '{text}': gain {value} is not a finite number")
    return check_gain(gain, f"measure '{text}': gain {value}")


def _gains(params: dict[str, object], text: str) -> GainSpec | None:
    dcg = params.get("dcg", "log2")
    if dcg not in ("log2", "exp-log2"):
        raise TrecgainError(f"measure '{text}': dcg must be 'log2' or 'exp-log2', not {dcg!r}")
    gains = params.get("gains")
    if gains is not None:
        if not isinstance(gains, dict) or not all(
                isinstance(k, int) and not isinstance(k, bool) and isinstance(v, (int, float))
                and not isinstance(v, bool) and abs(k) < 2**63 for k, v in gains.items()):
            raise TrecgainError(f"measure '{text}': gains must map grades to numbers, e.g. {{0: 0, 1: 1, 2: 3}}")
        pairs = tuple(GainPair(int(k), _gain(v, text)) for k, v in gains.items())
        return GainSpec(",".join(f"{k}={v}" for k, v in gains.items()), pairs, "exp" if dcg == "exp-log2" else "linear")
    return GainSpec("exp", (), "exp") if dcg == "exp-log2" else None


def _flag(value: object, name: str, text: str) -> bool:
    if not isinstance(value, bool):
        raise TrecgainError(f"measure '{text}': {name} must be True or False")
    return value
