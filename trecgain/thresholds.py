"""--fail-under NAME=VALUE: a threshold on a run's `all` value of a printed line, NAME as
printed (ndcg_cut_10) or an ir_measures name of the same line (nDCG@10).  Strictly below
misses; NaN always misses."""

from __future__ import annotations

import math

from .errors import TrecgainError
from .record import Record


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


def thresholds(specs: list[str], requests: list) -> list[Threshold]:
    """Each NAME=VALUE matched to an `all` line of the requests (measures.parse_requests)."""
    lines = {name: r.measure.value for r in requests for name in r.lines if r.measure.summary != "none"}
    out = []
    for spec in specs:
        name, text, number = parse(spec)
        line = printed_line(name, lines)
        if lines[line] == "tag":
            raise TrecgainError(f"--fail-under {spec}: {line} is the run tag, not a number")
        out.append(Threshold(name, line, text, number))
    return out


def printed_line(name: str, lines: dict[str, str] | list[str]) -> str:
    """The line of `lines` that `name` names: itself, or the same trec_eval line under its
    other name (nDCG@10 for ndcg_cut_10, and the other way round)."""
    if name in lines:
        return name
    from .names import trec_line_name

    wanted = trec_line_name(name)
    for line in lines:
        if wanted == trec_line_name(line):
            return line
    raise TrecgainError(f"--fail-under {name}: no 'all' line of that name is printed; {which_measure(name)}")


def which_measure(name: str) -> str:
    """Which -m prints an `all` line `name`, said for an error."""
    from .measures import BY_NAME, REGISTRY, parse_requests
    from .names import is_ir_measures_name

    candidates = [name] if is_ir_measures_name(name) and name not in BY_NAME else []
    for m in sorted(REGISTRY, key=lambda m: -len(m.name)):
        if name == m.name:
            candidates.append(name)
        elif name.startswith(m.name + "_"):
            candidates.append(f"{m.name}.{name[len(m.name) + 1:]}")
    for candidate in candidates:
        try:
            requests = parse_requests([candidate])
        except TrecgainError:
            continue
        if any(name in r.lines for r in requests):
            if requests[0].measure.summary == "none":
                return f"{requests[0].measure.name} has no 'all' line"
            return f"-m {candidate} would print it"
    return "no measure prints a line of that name (trecgain -h lists them)"


def misses(thresholds: list[Threshold], aggregate: dict[str, float | int | str]) -> list[str]:
    """`NAME = VALUE is below --fail-under THRESHOLD` for each threshold a run's `all` values miss."""
    out = []
    for t in thresholds:
        value = aggregate[t.line]
        if value != value or value < t.value:  # type: ignore[operator]
            out.append(f"{t.given} = {value!r} is below --fail-under {t.text}")
    return out
