"""ndeval, the TREC Web track's diversity evaluation program (version 4.5, as pyndeval ships
its ndeval.c), re-implemented: its files read by its rules, its values computed by trecgain's
diversity kernels (core/src/measures/diversity.rs), its CSV printed byte for byte.

Its rules (docs/diversity.md has the measures'):

* Lines are split on whitespace; a qrels line needs 4 fields (`topic subtopic docno
  judgment`), a run line 6 (`topic Q0 docno rank score tag`); more are ignored, fewer (a
  blank line too) are a syntax error.  Topics, subtopics, judgments and ranks are natural
  numbers (ASCII digits, at most about a million); a run topic may carry a task prefix ending
  in `-` (`wt09-1` is 1).  A judgment above 1 is 1: every measure is binary per subtopic.
* A run is ranked by its rank column (two documents of one rank are an error); with
  -traditional by score descending, then docno descending.  -M N keeps the first N of each
  topic; then a document retrieved twice for a topic is an error.  The run id is the tag of
  the first line.
* A line per run topic in numeric order (a topic the qrels lack: all zeros), then `amean`:
  each column's sum over the number of run topics the qrels have (with -c: over the number of
  qrels topics).  Where the ideal NRBP is 0 (a topic whose judgments are all 0, or alpha 0 with
  beta 1) nNRBP is 0 / 0, printed as ndeval prints it (`-nan`), and so is the `amean` of that
  column.
* With -baseline RUN, every value is the risk-sensitive difference from the baseline's:
  run - baseline where that is not negative, else (1 + riskAlpha) times it; a topic one side
  lacks counts as 0 there, and without -c a topic only the baseline has is skipped.

trecgain departs where ndeval is undefined: a document judged twice for one subtopic of a
topic is an error (ndeval counts it twice and keeps either judgment), as is a score that is no
number (or NaN) under -traditional (ndeval then ranks by uninitialised memory, or unordered),
and a NUL byte (where ndeval's line would end)."""

from __future__ import annotations

import io
import math

from .errors import TrecgainError

#: ndeval's columns: (CSV name, trecgain's ir_measures spelling with {a} alpha, {b} beta).
COLUMNS = [
    *((f"ERR-IA@{k}", f"ERR_IA(alpha={{a}})@{k}") for k in (5, 10, 20)),
    *((f"nERR-IA@{k}", f"nERR_IA(alpha={{a}})@{k}") for k in (5, 10, 20)),
    *((f"alpha-DCG@{k}", f"alpha_DCG(alpha={{a}})@{k}") for k in (5, 10, 20)),
    *((f"alpha-nDCG@{k}", f"alpha_nDCG(alpha={{a}})@{k}") for k in (5, 10, 20)),
    ("NRBP", "NRBP(alpha={a},beta={b})"),
    ("nNRBP", "nNRBP(alpha={a},beta={b})"),
    ("MAP-IA", "AP_IA"),
    *((f"P-IA@{k}", f"P_IA@{k}") for k in (5, 10, 20)),
    *((f"strec@{k}", f"StRecall@{k}") for k in (5, 10, 20)),
]
#: ndeval's limit on a natural number's value before its last digit.
LARGE_ENOUGH = 100000
VERSION = "version 4.5 (Mon 29 Apr 2013 20:51:02 EDT)"


class Options:
    """ndeval's options: alpha, beta, -traditional, -M depth, -c, a baseline run and riskAlpha
    (with the text it was given as, which the run string shows)."""

    def __init__(self, alpha: float = 0.5, beta: float = 0.5, traditional: bool = False, depth: int = 0,
                 complete: bool = False, baseline: str | None = None, risk_alpha: float = 0.0,
                 risk_alpha_text: str = "0") -> None:
        self.alpha, self.beta, self.traditional, self.depth = alpha, beta, traditional, depth
        self.complete, self.baseline = complete, baseline
        self.risk_alpha, self.risk_alpha_text = risk_alpha, risk_alpha_text


def natural_number(text: bytes) -> int:
    """ndeval's naturalNumber: ASCII digits, or -1 (also when the value grows past its limit)."""
    if not text:
        return -1
    value = 0
    for c in text:
        if not 48 <= c <= 57:
            return -1
        if value > LARGE_ENOUGH:
            return -1
        value = 10 * value + c - 48
    return value


def run_topic(text: bytes) -> int:
    """ndeval's parseTopic: a number, or a number after a task prefix ending in `-`."""
    if text[:1].isdigit():
        return natural_number(text)
    dash = text.find(b"-")
    return -1 if dash < 0 else natural_number(text[dash + 1:])


def _lines(path: str) -> list[bytes]:
    """A file's lines, without their line ends (ndeval drops a newline and the CR before it)."""
    import sys  # not at import: only reading needs it

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as err:
        raise TrecgainError(f"{path}: cannot read: {err.strerror}") from None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, 1):
        if b"\0" in line:
            raise TrecgainError(f"{path}:{number}: a NUL byte (not a text file?)")
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def c_number(text: bytes) -> float | None:
    """What C's sscanf("%lf") reads from the start of `text` (`12x` is 12), or None for no
    number, and for NaN (no order to rank by)."""
    import re  # not at import: only -traditional needs it

    match = re.match(rb"[ \t]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?inf(?:inity)?)",
                     text, re.IGNORECASE)
    return None if match is None else float(match[1])


def read_qrels(path: str) -> list[tuple[int, int, bytes, int]]:
    """(topic, subtopic, docno, judgment 0 or 1) per line."""
    lines = _lines(path)
    if not lines:
        raise TrecgainError(f"{path}: qrel file is empty")
    out, seen = [], {}
    for number, line in enumerate(lines, 1):
        fields = line.split()
        topic, subtopic, judgment = (natural_number(fields[i]) if len(fields) >= 4 else -1 for i in (0, 1, 3))
        if min(topic, subtopic, judgment) < 0:
            raise TrecgainError(f"{path}:{number}: syntax error in qrel line: expected topic subtopic docno "
                                "judgment, natural numbers but the docno")
        key = (topic, subtopic, fields[2])
        if key in seen:
            raise TrecgainError(f"{path}:{number}: document '{fields[2].decode(errors='replace')}' is judged twice "
                                f"for subtopic {subtopic} of topic {topic} (first at line {seen[key]})")
        seen[key] = number
        out.append((topic, subtopic, fields[2], min(judgment, 1)))
    return out


class Run:
    """A run as ndeval reads it: its id, and per topic its docnos in rank order."""

    def __init__(self, runid: bytes, topics: dict[int, list[bytes]]) -> None:
        self.runid, self.topics = runid, topics


def read_run(path: str, options: Options) -> Run:
    """Ranked (by the rank column, or with -traditional by score and docno), cut at -M."""
    lines = _lines(path)
    if not lines:
        raise TrecgainError(f"{path}: run file is empty")
    rows: dict[int, list[tuple]] = {}
    runid = b""
    for number, line in enumerate(lines, 1):
        fields = line.split()
        topic = run_topic(fields[0]) if len(fields) >= 6 else -1
        rank = natural_number(fields[3]) if len(fields) >= 6 else -1
        if topic < 0 or rank < 0:
            raise TrecgainError(f"{path}:{number}: syntax error in run line: expected topic Q0 docno rank score "
                                "tag, the topic and rank natural numbers")
        if number == 1:
            runid = fields[5]
        score = c_number(fields[4]) if options.traditional else 0.0
        if score is None:
            raise TrecgainError(f"{path}:{number}: score '{fields[4].decode(errors='replace')[:64]}' is not a number "
                                "(-traditional ranks by score)")
        rows.setdefault(topic, []).append((rank, score, fields[2], number))
    topics = {}
    for topic, found in sorted(rows.items()):
        topics[topic] = _ranked(path, topic, found, options)
    return Run(runid, topics)


def _ranked(path: str, topic: int, rows: list[tuple], options: Options) -> list[bytes]:
    if options.traditional:  # ranks are then 1, 2, ... in this order
        rows.sort(key=lambda r: r[2], reverse=True)
        rows.sort(key=lambda r: r[1], reverse=True)
    else:
        rows.sort(key=lambda r: r[0])
        for a, b in zip(rows, rows[1:]):
            if a[0] == b[0]:
                raise TrecgainError(f"{path}:{b[3]}: duplicate rank ({b[0]}) for topic {topic} (also at line {a[3]})")
    if options.depth > 0:
        rows = rows[:options.depth]
    seen: dict[bytes, int] = {}
    for r in rows:
        if r[2] in seen:
            raise TrecgainError(f"{path}:{r[3]}: duplicate docno ({r[2].decode(errors='replace')}) for topic {topic} "
                                f"(also at line {seen[r[2]]})")
        seen[r[2]] = r[3]
    return [r[2] for r in rows]


def _format(value: float) -> bytes:
    return b"-nan" if math.isnan(value) else b"%.6f" % value


def _number(x: float) -> str:
    return repr(float(x))


def measure(qrels: list[tuple[int, int, bytes, int]], run: Run, options: Options) -> dict[int, list[float]]:
    """Per topic of both the run and the qrels, ndeval's 21 values (trecgain's kernels on the
    files as ndeval read them: subtopics in numeric order, the run ranked as ndeval ranks it)."""
    from .evaluate import Evaluator  # not at import: the evaluation's modules

    judged = {t for t, _, _, _ in qrels}
    common = [t for t in run.topics if t in judged]
    if not common:
        return {}
    lines = sorted(qrels, key=lambda q: (q[1], q[0], q[2]))  # first appearance: numeric subtopic order
    qrels_text = b"".join(b"%d %d %s %d\n" % (t, s, d, j) for t, s, d, j in lines)
    run_text = b"".join(b"%d Q0 %s %d %d r\n" % (t, d, i + 1, -i - 1)  # scores give ndeval's order
                        for t in common for i, d in enumerate(run.topics[t]))
    names = [spelled.format(a=_number(options.alpha), b=_number(options.beta)) for _, spelled in COLUMNS]
    evaluator = Evaluator(io.BytesIO(qrels_text), names, rel_format="subtopics")
    per_query = evaluator.evaluate(io.BytesIO(run_text)).per_query
    lines_named = [r.lines[0] for r in evaluator.requests]
    order = [lines_named.index(_printed(n)) for n in names]
    values = {}
    positive = {t for t, _, _, j in qrels if j > 0}
    flat = 1 - (1 - options.alpha) * options.beta == 0  # NRBP's factor: every NRBP is 0
    for t in common:
        row = per_query[str(t)]
        ordered = [float(row[lines_named[i]]) for i in order]
        if flat or t not in positive:  # the ideal NRBP is 0: ndeval's nNRBP is 0 / 0
            ordered[13] = -math.nan
        values[t] = ordered
    return values


def _printed(name: str) -> str:
    """The line a spelling prints as (ir_measures' str: defaults left out)."""
    from . import names  # not at import: the measure names' module

    return names.parse(name).text


def risk(run: float, base: float, alpha: float) -> float:
    """ndeval's RiskBased: the difference, its downside weighted by 1 + alpha."""
    return run - base if run >= base else (alpha + 1) * (run - base)


def evaluate(qrels_path: str, run_path: str, options: Options) -> bytes:
    """ndeval's CSV for a run (and a baseline)."""
    qrels = read_qrels(qrels_path)
    run = read_run(run_path, options)
    values = measure(qrels, run, options)
    actual = len(values)
    base_values: dict[int, list[float]] | None = None
    runstring = run.runid
    if options.baseline is not None:
        baseline = read_run(options.baseline, options)
        base_values = {t: measure_row for t, measure_row in measure(qrels, baseline, options).items()}
        base_topics = list(baseline.topics)
        runstring = b"%s (rel to. %s; rs=1+a; a=%s)" % (run.runid, baseline.runid,
                                                         options.risk_alpha_text.encode(errors="surrogateescape"))
    else:
        base_topics = []
    zero = [0.0] * len(COLUMNS)
    out = [b"runid,topic," + b",".join(name.encode() for name, _ in COLUMNS) + b"\n"]
    totals = [0.0] * len(COLUMNS)
    rows = _rows(list(run.topics), base_topics, options.complete)
    for topic, in_run, in_base in rows:
        mine = values.get(topic, zero) if in_run else zero
        theirs = (base_values or {}).get(topic, zero) if in_base else zero
        row = [risk(a, b, options.risk_alpha) for a, b in zip(mine, theirs)]
        totals = [t + v for t, v in zip(totals, row)]
        out.append(b"%s,%d," % (runstring, topic) + b",".join(_format(v) for v in row) + b"\n")
    if options.complete:
        actual = len({t for t, _, _, _ in qrels})
    if options.baseline is not None and len(rows) > actual:
        actual = len(rows)
    means = [t / actual if actual else (math.nan if t == 0 else math.copysign(math.inf, t)) for t in totals]
    means = [-math.nan if math.isnan(m) else m for m in means]
    out.append(b"%s,amean," % runstring + b",".join(_format(m) for m in means) + b"\n")
    return b"".join(out)


def _rows(run_topics: list[int], base_topics: list[int], complete: bool) -> list[tuple[int, bool, bool]]:
    """The topics ndeval prints, with whether the run and the baseline have each (its merge)."""
    rows, i, j = [], 0, 0
    while i < len(run_topics) or (j < len(base_topics) and complete):
        if i < len(run_topics) and j < len(base_topics):
            a, b = run_topics[i], base_topics[j]
            if a == b:
                rows.append((a, True, True))
                i, j = i + 1, j + 1
            elif a > b:
                j += 1
                if complete:
                    rows.append((b, False, True))
            else:
                rows.append((a, True, False))
                i += 1
        elif i < len(run_topics):
            rows.append((run_topics[i], True, False))
            i += 1
        else:
            rows.append((base_topics[j], False, True))
            j += 1
    return rows
