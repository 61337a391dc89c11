"""cwl_eval's C/W/L measures (PyPI cwl-eval 1.0.12: Azzopardi, Moffat, Thomas, Zuccon),
re-implemented exactly; `evaluate(...).to_text()` is what `cwl_eval` prints.

The files are read as cwl_eval reads them (text lines, split on whitespace); the kernels are
the core's (trecgain_core::cwl, with the table of metric classes); this module reads, names
and formats.  Its rules, in short (docs/cwl.md has them all):

* gain file: `topic unused docno gain`, fields after the fourth ignored; a docno judged
  twice keeps the last gain; every gain must lie in [--min_gain, --max_gain].
* result file: exactly six fields; topics are taken in file order, each run of consecutive
  lines of one topic a ranking (a topic that comes back later is measured again), documents
  in file order (rank and score are not read), cut or padded to --max_depth.
* cost file: `element_type cost`, looked up by the result file's second field; unjudged
  documents and element types without a cost take the worst case (gain 0, --max_cost), and,
  for the residuals, the best (--max_gain, --min_cost).
* metrics file: one `ClassName(p1,p2,...)` a line, a parameter with a `.` a float, else an
  int; without one, cwl_eval's 16 default metrics.

Where cwl_eval crashes with a traceback (a line with too few fields, a bad number, an empty
result file, an unknown class, a metric whose assumptions the gains break), trecgain raises
TrecgainError naming the file and line, or the topic and metric; nothing is printed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import TrecgainError

#: cwl_eval's metrics when no metrics file is given, in its order.
DEFAULT_METRICS = (
    "PrecisionCWLMetric(1)", "PrecisionCWLMetric(2)", "PrecisionCWLMetric(3)", "PrecisionCWLMetric(4)",
    "PrecisionCWLMetric(5)", "PrecisionCWLMetric(10)", "RBPCWLMetric(0.2)", "RBPCWLMetric(0.4)",
    "RBPCWLMetric(0.8)", "NDCGCWLMetric(5)", "NDCGCWLMetric(10)", "RRCWLMetric()", "APCWLMetric()",
    "INSTCWLMetric(1.0)", "INSTCWLMetric(2.0)", "INSTCWLMetric(3.0)",
)
HEADER = "Topic\tMetric\tEU\tETU\tEC\tETC\tED"
RESIDUAL_HEADER = HEADER + "\tResEU\tResETU\tResEC\tResETC\tResED"
_CUT = 64  # fields echoed in messages are cut to this many characters


@dataclass(frozen=True)
class CwlMetric:
    """One metric to measure: its record (index into the core's table), parameters, name."""

    record: int
    values: tuple[float, ...]
    name: str
    line: int | None = None  # its line in the metrics file


@dataclass(frozen=True)
class CwlResult:
    """Per topic block and metric: (topic, metric name, EU, ETU, EC, ETC, ED[, 5 residuals])."""

    rows: list[tuple]
    residuals: bool
    colnames: bool

    def to_text(self) -> str:
        """cwl_eval's output: the optional header, then a tab-separated line per row, 4 decimals."""
        width = 10 if self.residuals else 5
        line = "{0}\t{1}" + "".join(f"\t{{{i}:.4f}}" for i in range(2, 2 + width)) + "\n"
        head = (RESIDUAL_HEADER if self.residuals else HEADER) + "\n" if self.colnames else ""
        return head + "".join(line.format(*row) for row in self.rows)


def records() -> list[tuple]:
    """The core's metric classes: (class name, [(parameter, default)], name template)."""
    from . import _core  # not at start-up: only C/W/L needs the core's table

    return _core.cwl_records()


def _cut(text: str) -> str:
    return text if len(text) <= _CUT else text[:_CUT] + "..."


def _lines(path: str):
    """(line number, line) of a text file as cwl_eval reads it (UTF-8, universal newlines)."""
    number = 0
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                yield number, line
    except UnicodeDecodeError:
        raise TrecgainError("not UTF-8 text", path, number + 1) from None
    except OSError as err:
        raise TrecgainError(f"cannot read: {err.strerror or err}", path) from None


def _number(text: str, what: str, path: str, line: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise TrecgainError(f"{what} {_cut(text)!r} is not a number", path, line) from None


def read_gains(path: str, min_gain: float = 0.0, max_gain: float = 1.0) -> dict[str, dict[str, float]]:
    """The gain file: topic -> docno -> gain (the last line of a pair wins), checked against the range."""
    gains: dict[str, dict[str, float]] = {}
    where: dict[tuple[str, str], int] = {}
    for number, line in _lines(path):
        parts = line.split()
        if len(parts) < 4:
            raise TrecgainError("needs 4 fields: topic unused docno gain", path, number)
        gains.setdefault(parts[0], {})[parts[2]] = _number(parts[3], "gain", path, number)
        where[parts[0], parts[2]] = number
    for topic, docs in gains.items():
        for doc, gain in docs.items():
            if gain > max_gain or gain < min_gain:
                bound = f"above --max_gain {max_gain}" if gain > max_gain else f"below --min_gain {min_gain}"
                raise TrecgainError(f"gain {gain} is {bound}", path, where[topic, doc])
    return gains


def read_costs(path: str) -> dict[str, float]:
    """The cost file: element type -> cost (the last line of a type wins)."""
    costs: dict[str, float] = {}
    for number, line in _lines(path):
        parts = line.split()
        if len(parts) != 2:
            raise TrecgainError("needs 2 fields: element_type cost", path, number)
        costs[parts[0]] = _number(parts[1], "cost", path, number)
    return costs


def _argument(text: str) -> int | float:
    """A metrics-file parameter as cwl_eval casts it: with a `.`, a float, else an int."""
    return float(text) if "." in text else int(text)


def metric(spec: str, table: list[tuple] | None = None, line: int | None = None) -> CwlMetric:
    """`ClassName(p1,p2,...)` (a metrics-file line) as a metric; ValueError says what is wrong."""
    table = records() if table is None else table
    split = spec.strip().split("(")
    if len(split) < 2:
        raise ValueError("expected ClassName(parameters)")
    split[-1] = split[-1][:-1]
    try:
        given = [_argument(p) for p in split[1].split(",") if p != ""]
    except ValueError:
        raise ValueError(f"a parameter of {_cut(split[1])!r} is not a number") from None
    found = [i for i, record in enumerate(table) if record[0] == split[0]]
    if not found:
        raise ValueError(f"no C/W/L metric class {_cut(split[0])!r}")
    index = found[0]
    class_name, parameters, template = table[index]
    if len(given) > len(parameters):
        raise ValueError(f"{class_name} takes {len(parameters)} parameters, {len(given)} given")
    missing = [name for name, default in parameters[len(given):] if default is None]
    if missing:
        raise ValueError(f"{class_name} needs {', '.join(missing)}")
    values = given + [_argument(default) for _, default in parameters[len(given):]]
    try:
        floats = tuple(float(v) for v in values)
    except OverflowError:
        raise ValueError("a parameter is too large") from None
    return CwlMetric(index, floats, template.format(*values), line)


def read_metrics(path: str | None) -> list[CwlMetric]:
    """The metrics file's metrics in order, or cwl_eval's defaults when there is no file."""
    table = records()
    if path is None:
        return [metric(spec, table) for spec in DEFAULT_METRICS]
    out = []
    for number, line in _lines(path):
        try:
            out.append(metric(line, table, number))
        except ValueError as err:
            raise TrecgainError(str(err), path, number) from None
    return out


def read_result(path: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """The result file's rankings: (topic, [(docno, element type)]) per run of consecutive lines."""
    blocks: list[tuple[str, list[tuple[str, str]]]] = []
    for number, line in _lines(path):
        parts = line.split()
        if len(parts) != 6:
            raise TrecgainError("needs 6 fields: topic element_type docno rank score run_id", path, number)
        if not blocks or blocks[-1][0] != parts[0]:
            blocks.append((parts[0], []))
        blocks[-1][1].append((parts[2], parts[1]))
    if not blocks:
        raise TrecgainError("no results (cwl_eval fails on an empty result file)", path)
    return blocks


def evaluate(gain_file: str, result_file: str, cost_file: str | None = None, metrics_file: str | None = None,
             colnames: bool = False, residuals: bool = False, max_gain: float = 1.0, min_gain: float = 0.0,
             max_cost: float = 1.0, min_cost: float = 1.0, max_depth: int = 1000) -> CwlResult:
    """cwl_eval's measurement of a result file (its arguments, its defaults)."""
    if max_depth < 1:
        raise TrecgainError(f"--max_depth must be at least 1, not {max_depth}")
    gains = read_gains(gain_file, min_gain, max_gain)
    costs = read_costs(cost_file) if cost_file is not None else {}
    metrics = read_metrics(metrics_file)
    blocks = read_result(result_file)
    flat_gains, flat_costs, ends, judged = [], [], [], []
    nan = math.nan
    for topic, docs in blocks:
        judgments = gains.get(topic, {})
        kept = docs[:max_depth]
        flat_gains.extend(judgments.get(doc, nan) for doc, _ in kept)
        flat_costs.extend(costs.get(kind, nan) for _, kind in kept)
        ends.append(len(flat_gains))
        judged.append(float(sum(1 for g in judgments.values() if g > 0.0)))
    return _measured(blocks, metrics, metrics_file, (flat_gains, flat_costs, ends, judged),
                     (max_depth, max_gain, max_cost, min_cost), residuals, colnames)


def _measured(blocks: list, metrics: list[CwlMetric], metrics_file: str | None, vectors: tuple, bounds: tuple,
              residuals: bool, colnames: bool) -> CwlResult:
    from . import _core  # not at start-up: only C/W/L needs the kernels

    specs = [(m.record, list(m.values), m.name) for m in metrics]
    values, problem = _core.cwl_measure(specs, *vectors, bounds, residuals)
    if problem is not None:
        topic, index, message = problem
        if topic is None:  # the metric's parameters
            raise TrecgainError(message, metrics_file, metrics[index].line)
        raise TrecgainError(f"C/W/L metric {metrics[index].name.strip()} on topic {_cut(blocks[topic][0])}: "
                            f"{message} (cwl_eval stops there with a traceback)")
    width = 10 if residuals else 5
    rows, at = [], 0
    for topic, _ in blocks:
        for m in metrics:
            rows.append((topic, m.name, *values[at:at + width]))
            at += width
    return CwlResult(rows, residuals, colnames)
