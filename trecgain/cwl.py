"""cwl_eval's C/W/L measures (PyPI cwl-eval 1.0.12: Azzopardi, Moffat, Thomas, Zuccon),
re-implemented exactly; `evaluate(...).to_text()` is what `cwl_eval` prints.

The core reads the gain, cost and result files as cwl_eval reads them (trecgain_core::read::cwl),
measures with its kernels (trecgain_core::cwl, with the table of metric classes) and prints the
lines; this module reads the metrics file, names the metrics and hands out the values.  The
rules, in short (docs/cwl.md has them all):

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
* all files: UTF-8 text, lines ending in \n, \r\n or \r, fields split on Python's whitespace,
  numbers as Python's float() reads them.

Where cwl_eval crashes with a traceback (a line with too few fields, a bad number, an empty
result file, an unknown class, a metric whose assumptions the gains break), trecgain raises
TrecgainError naming the file and line, or the topic and metric; nothing is printed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import TrecgainError

#: cwl_eval's metrics when no metrics file is given, in its order.
DEFAULT_METRICS = (
    "PrecisionCWLMetric(1)", "PrecisionCWLMetric(2)", "PrecisionCWLMetric(3)", "PrecisionCWLMetric(4)",
    "PrecisionCWLMetric(5)", "PrecisionCWLMetric(10)", "RBPCWLMetric(0.2)", "RBPCWLMetric(0.4)",
    "RBPCWLMetric(0.8)", "NDCGCWLMetric(5)", "NDCGCWLMetric(10)", "RRCWLMetric()", "APCWLMetric()",
    "INSTCWLMetric(1.0)", "INSTCWLMetric(2.0)", "INSTCWLMetric(3.0)",
)
#: The deepest ranking measured: every metric holds a few vectors of this many doubles per topic.
MAX_DEPTH = 10**9
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


class CwlResult:
    """Every metric on every ranking of a result file, as cwl_eval measures and prints them."""

    def __init__(self, measured: object, metrics: list[CwlMetric], residuals: bool, colnames: bool) -> None:
        self._measured = measured
        self.metrics = metrics
        self.residuals = residuals
        self.colnames = colnames

    @property
    def rows(self) -> list[tuple]:
        """Per ranking and metric: (topic, metric name, EU, ETU, EC, ETC, ED[, 5 residuals])."""
        width = 10 if self.residuals else 5
        values = self._measured.values()
        rows, at = [], 0
        for topic in self._measured.topics():
            for m in self.metrics:
                rows.append((topic, m.name, *values[at:at + width]))
                at += width
        return rows

    def to_text(self) -> str:
        """cwl_eval's output: the optional header, then a tab-separated line per row, 4 decimals."""
        return self.to_bytes().decode()

    def to_bytes(self) -> bytes:
        """`to_text()` as UTF-8 bytes (what `trecgain cwl` writes)."""
        return self._measured.text(self.colnames)

    def bibtex(self) -> str:
        """The BibTeX file cwl_eval's `-b` writes for these metrics."""
        return bibtex(self.metrics)


def bibtex(metrics: list[CwlMetric]) -> str:
    """cwl_eval's BibTeX file (`-b`) for a list of metrics: its own entry, then each metric's once."""
    from . import _core  # not at start-up: only C/W/L needs the core's table

    return _core.cwl_bibtex([m.record for m in metrics])


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


def evaluate(gain_file: str, result_file: str, cost_file: str | None = None, metrics_file: str | None = None,
             colnames: bool = False, residuals: bool = False, max_gain: float = 1.0, min_gain: float = 0.0,
             max_cost: float = 1.0, min_cost: float = 1.0, max_depth: int = 1000) -> CwlResult:
    """cwl_eval's measurement of a result file (its arguments, its defaults)."""
    from . import _core  # not at start-up: only C/W/L needs the core

    if not 1 <= max_depth <= MAX_DEPTH:
        raise TrecgainError(f"--max_depth must be from 1 to {MAX_DEPTH}, not {max_depth}")
    # the gain and cost files' errors first, then the metrics file's, then the result file's
    inputs = _core.cwl_read(gain_file, cost_file, result_file, float(min_gain), float(max_gain), max_depth)
    metrics = read_metrics(metrics_file)
    specs = [(m.record, list(m.values), m.name) for m in metrics]
    bounds = (max_depth, float(max_gain), float(max_cost), float(min_cost))
    measured, problem = _core.cwl_evaluate(inputs, specs, bounds, residuals)
    if problem is not None:
        topic, index, message = problem
        if topic is None:  # the metric's parameters
            raise TrecgainError(message, metrics_file, metrics[index].line)
        raise TrecgainError(f"C/W/L metric {metrics[index].name.strip()} on topic {_cut(topic)}: "
                            f"{message} (cwl_eval stops there with a traceback)")
    return CwlResult(measured, metrics, residuals, colnames)
