"""--fail-under NAME=VALUE: a threshold on a run's `all` value of a printed line, NAME as
printed (ndcg_cut_10) or an ir_measures name of the same line (nDCG@10).  Strictly below
misses; NaN always misses."""

from __future__ import annotations

import math

from .errors import TrecgainError
from .measures import BY_NAME, named_twice, one_list, parse_requests, request_for_line, suggestions, trec_line_name
from .names import is_ir_measures_name
from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Sequence

    from .measures import Request


class Threshold(Record):
    """One threshold: the name as given, the `all` line it names, its value as given and as a number."""

    __slots__ = ("given", "line", "text", "value")


def parse(spec: str) -> tuple[str, str, float]:
    """NAME=VALUE split at the last '=' (a gain string has its own: ndcg_1=2,2=5=0.4)."""
    name, eq, text = spec.rpartition("=")
    if not eq or not name:
        raise TrecgainError(f"option --fail-under takes NAME=VALUE (e.g. ndcg_cut_10=0.35), not '{spec}'")
    try:
        number = float(text) if text.isascii() and "_" not in text and text.strip() == text else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise TrecgainError(f"option --fail-under {spec}: '{text}' is not a finite number")
    return name, text, number


def thresholds(specs: list[str], requests: Sequence[Request], given: Sequence[str] = ()) -> list[Threshold]:
    """Each NAME=VALUE matched to an `all` line of the requests (measures.parse_requests of
    the `-m` arguments `given`)."""
    lines = {name: r.measure.value for r in requests for name in r.lines if r.measure.summary != "none"}
    out = []
    for spec in specs:
        name, text, number = parse(spec)
        line = printed_line(name, lines, requests, given)
        if lines[line] == "tag":
            raise TrecgainError(f"--fail-under {spec}: {line} is the run tag, not a number")
        out.append(Threshold(name, line, text, number))
    return out


def printed_line(name: str, lines: Sequence[str] | dict[str, str], requests: Sequence[Request] = (),
                 given: Sequence[str] = ()) -> str:
    """The line of `lines` that `name` names: itself, or the same trec_eval line under its
    other name (nDCG@10 for ndcg_cut_10, and the other way round)."""
    line = _same_line(name, lines)
    if line is None:
        raise TrecgainError(f"--fail-under {name}: no 'all' line of that name is printed; "
                            f"{which_measure(name, requests, given)}")
    return line


def _same_line(name: str, lines: Sequence[str] | dict[str, str]) -> str | None:
    if name in lines:
        return name
    wanted = trec_line_name(name)
    return next((line for line in lines if wanted == trec_line_name(line)), None)


def which_measure(name: str, requests: Sequence[Request] = (), given: Sequence[str] = ()) -> str:
    """Which -m prints an `all` line `name`, said for an error: with `requests` and the `-m`
    arguments `given`, a second parameter list for a measure already named (ignored, as by
    trec_eval) is not the answer: the one list is."""
    meant = _printed_name(name)
    if meant is not None:
        printed = [line for r in requests for line in r.lines]
        where = "" if _same_line(meant, printed) else f"; {which_measure(meant, requests, given)}"
        return f"did you mean {meant}? (--fail-under names a printed line, or its ir_measures name){where}"
    candidate = request_for_line(name)
    if candidate is None:
        return "no measure prints a line of that name (trecgain -h lists them)"
    measure = parse_requests([candidate])[0].measure
    if measure.summary == "none":
        return f"{measure.name} has no 'all' line"
    first = next((r for r in requests if r.measure is measure and r.text is not None and not r.label), None)
    if first is None or "." not in candidate:
        return f"-m {candidate} would print it"
    return _named_before(name, candidate, first, given)


def _named_before(name: str, candidate: str, first: Request, given: Sequence[str]) -> str:
    """`-m candidate` would print line `name`, but its measure is named already with other
    parameters (`first`, a Request): the second list is ignored, as trec_eval ignores it."""
    measure, then = first.measure.name, candidate.partition(".")[2]
    for spec in given:
        if spec.partition(".")[0] == measure and "." in spec:
            try:
                ignored = any(name in r.lines for r in parse_requests([spec]))
            except TrecgainError:
                continue
            if ignored:
                return named_twice(spec, measure, first.text, spec.partition(".")[2])
    merged = one_list(measure, first.text, then)
    rule = "a measure named twice keeps its first parameters, as trec_eval does"
    if merged is None:
        return f"-m {candidate} in place of -m {measure}.{first.text} would print it ({rule})"
    return f"-m {merged} would print it (-m {candidate} besides -m {measure}.{first.text} would be ignored: {rule})"


def _printed_name(name: str) -> str | None:
    """The printed line `name` most likely means when it is no line's name: the line of a
    request spelling (`ndcg_cut.10` -> ndcg_cut_10), of the name in its own case or an alias
    (`MAP` -> map), or the ir_measures spelling (`MRR@10` -> RR@10)."""
    try:
        lines = [line for r in parse_requests([name]) for line in r.lines]
    except TrecgainError:
        close = suggestions(name)
        if len(close) != 1:
            return None
        if is_ir_measures_name(close[0]) and close[0] not in BY_NAME:
            return close[0]
        try:
            lines = [line for r in parse_requests(close) for line in r.lines]
        except TrecgainError:
            return None
    return lines[0] if len(lines) == 1 and lines[0] != name else None


def misses(thresholds: list[Threshold], aggregate: dict[str, float | int | str]) -> list[str]:
    """`NAME = VALUE is below --fail-under THRESHOLD` for each threshold a run's `all` values miss."""
    out = []
    for t in thresholds:
        value = aggregate[t.line]
        if value != value or value < t.value:  # type: ignore[operator]
            out.append(f"{t.given} = {value!r} is below --fail-under {t.text}")
    return out
