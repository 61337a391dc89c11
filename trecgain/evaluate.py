"""The library entry point: options and measure requests in, the core's evaluation out.

`Evaluator` parses and checks everything a user can get wrong before any file is read
past the qrels; `trecgain._core.evaluate` runs read -> rank -> label -> measures ->
summary; `Result` is a view of what it returned (no numpy needed)."""

from __future__ import annotations

from . import _core
from .discounts import parse_discount
from .errors import TrecgainError
from .gains import parse_global_gains
from .measures import Request, parse_requests
from .read import read_qrels, read_run
from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any, Iterable

    from .read import Source

COMPAT_MODES = ("10", "9")
MAX_EXP_GRADE = 1023


class Line(Record):
    """One output line family: a name, its kind (float | count | tag), whether it is printed
    per query, the per-query values and the `all` value."""

    __slots__ = ("name", "kind", "per_query", "values", "summary")


class Result(Record):
    """What an evaluation produced, in trec_eval's order: the core's Evaluation, the requests,
    whether queries the run lacks get per-query lines (trec_eval 10 with -c), and warnings for
    the caller to show (the library never prints)."""

    __slots__ = ("evaluation", "requests", "absent_queries", "warnings")
    DEFAULTS = {"warnings": []}

    @property
    def qid_bytes(self) -> list[bytes]:
        return self.evaluation.qids

    @property
    def qids(self) -> list[str]:
        return [_text(q) for q in self.qid_bytes]

    @property
    def runid(self) -> str:
        return _text(self.evaluation.tag)

    def _formats(self) -> list[tuple[str, str, bool, str, int, int]]:
        """Per output line: name, kind, per_query, summary rule, first value slot, slots."""
        out, slot = [], 0
        for r in self.requests:
            for name, slots in zip(r.lines, r.slots()):
                out.append((name, r.measure.value, r.measure.per_query, r.measure.summary, slot, slots))
                slot += slots
        return out

    @property
    def lines(self) -> list[Line]:
        """Every output line with its per-query values and summary (None: no `all` line)."""
        out = []
        summaries = self.evaluation.summaries
        for name, kind, per_query, rule, slot, slots in self._formats():
            columns = [self.evaluation.column(slot + i) for i in range(slots)]
            values = [_value(list(row), kind, rule) for row in zip(*columns)] if columns else []
            out.append(Line(name, kind, per_query, values, self._summary(summaries, kind, rule, slot)))
        return out

    def _summary(self, summaries: list[float], kind: str, rule: str, slot: int) -> object:
        if rule == "none":
            return None
        return self.runid if kind == "tag" else _py(summaries[slot], kind)

    @property
    def per_query(self) -> dict[str, dict[str, float | int | str]]:
        """{qid: {line name: value}} for every evaluated query (lines printed per query)."""
        formats = [f for f in self._formats() if f[2]]
        out: dict[str, dict[str, float | int | str]] = {}
        for q, qid in enumerate(self.qids):
            row = self.evaluation.row(q)
            out[qid] = {name: _value(row[slot:slot + slots], kind, rule)
                        for name, kind, _, rule, slot, slots in formats}
        return out

    @property
    def aggregate(self) -> dict[str, float | int | str]:
        """{line name: value of the `all` line}."""
        summaries = self.evaluation.summaries
        return {name: self._summary(summaries, kind, rule, slot)
                for name, kind, _, rule, slot, _ in self._formats() if rule != "none"}

    def to_dataframe(self):
        """Per-query values as a pandas DataFrame, one row per query, one column per line
        (pandas is optional: install it to use this)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_dataframe needs pandas: pip install pandas") from None
        per_query = self.per_query
        names = [f[0] for f in self._formats() if f[2]]
        frame = pd.DataFrame({n: [row[n] for row in per_query.values()] for n in names}, index=self.qids)
        frame.index.name = "qid"
        return frame

    def write_trec(self, write, per_query: bool = False, summary: bool = True) -> None:
        """Hand the exact text the command line prints to `write(bytes)`, a megabyte at a time."""
        lines = [(name.encode(), kind, shown, rule != "none", slots)
                 for name, kind, shown, rule, _, slots in self._formats()]
        self.evaluation.write_trec(lines, per_query, summary, self.absent_queries, write)

    def to_trec_bytes(self, per_query: bool = False, summary: bool = True) -> bytes:
        chunks: list[bytes] = []
        self.write_trec(chunks.append, per_query, summary)
        return b"".join(chunks)

    def to_trec(self, per_query: bool = False, summary: bool = True) -> str:
        """The exact text the command line prints (-q gives per_query, -n turns summary off)."""
        return self.to_trec_bytes(per_query, summary).decode("utf-8", "surrogateescape")


def _text(value: bytes) -> str:
    return bytes(value).decode("utf-8", "surrogateescape")


def _py(value: float, kind: str) -> float | int:
    return int(value) if kind == "count" else float(value)


def _value(slots: list[float], kind: str, rule: str) -> float | int | str:
    """One query's value of a line from its slots: relstring's characters as text; the
    geometric means' per-query logs as the floored value itself."""
    if kind == "chars":
        return "".join(chr(int(c)) for c in slots if c)
    if rule == "geometric_mean":
        import math

        return math.exp(slots[0])
    return _py(slots[0], kind)


class Evaluator:
    """Evaluate runs against one set of qrels, with trec_eval's options.

    >>> ev = Evaluator("qrels.txt", measures=["ndcg_cut.10", "ndcg"])   # doctest: +SKIP
    >>> ev.evaluate("run.txt").aggregate["ndcg_cut_10"]                # doctest: +SKIP
    """

    def __init__(self, qrels: Source | Any, measures: Iterable[str] = ("official",), relevance_level: int = 1,
                 judged_only: bool = False, complete: bool = False, max_docs: int | None = None,
                 compat: str = "10", global_gains: str | None = None, discount: str = "log:2",
                 exact_ideal: bool = False, fractional_grades: bool = False, err_max_grade: int = 4,
                 num_docs: int = 0):
        compat = str(compat)
        if compat not in COMPAT_MODES:
            raise TrecgainError(f"compat must be one of {', '.join(COMPAT_MODES)}, not '{compat}'")
        if max_docs is not None and max_docs < 0:
            raise TrecgainError(f"max_docs must not be negative: {max_docs}")
        if not 0 <= err_max_grade <= MAX_EXP_GRADE:
            raise TrecgainError(f"err_max_grade must be from 0 to {MAX_EXP_GRADE}, not {err_max_grade}")
        if isinstance(measures, str):
            measures = [measures]
        self.requests = parse_requests(list(measures), compat)
        self.compat = compat
        self.global_gains = parse_global_gains(global_gains, compat) if global_gains else None
        self.discount = parse_discount(discount)
        self.qrels = qrels if isinstance(qrels, _core.Qrels) else read_qrels(qrels, fractional=fractional_grades)
        self.relevance_level = int(relevance_level)
        self.judged_only = judged_only
        self.complete = complete
        self.max_docs = max_docs
        self.exact_ideal = exact_ideal
        self.err_max_grade = err_max_grade
        self.num_docs = int(num_docs)  # -N: the collection size (utility)

    def _follows_10(self) -> bool:
        """Whether trec_eval 10's measure rules apply: queries the run lacks (with -c, 10 prints
        them with -q and evaluates them even when no query overlaps; 9.x does neither) and recall
        points.  9.x has no dcg, ideal_dcg, rbp, rbp_resid or unj, so with those measures compat
        9 means trec_eval 10 on float32 scores."""
        return self.compat == "10" or not all(r.measure.in_trec_eval_9 for r in self.requests)

    def _options(self) -> tuple:
        """The options tuple trecgain._core reads."""
        return (float(self.relevance_level), bool(self.judged_only), self.max_docs, bool(self.complete),
                bool(self.complete and self._follows_10()), self.compat, "10" if self._follows_10() else "9",
                self.discount.to_core(),
                self.global_gains.to_core() if self.global_gains else None, bool(self.exact_ideal),
                int(self.err_max_grade), self.num_docs)

    def evaluate(self, run: Source | Any, keep_values: bool = True) -> Result:
        """Evaluate one run (a path, '-', an open file, a core Run, or {qid: {docno: score}}).

        With keep_values=False only the `all` values are kept: `aggregate` and `to_trec` work
        (per-query lines are measured again as they are written), `per_query` does not; memory
        then stays at one block of queries however many queries there are."""
        run = run if isinstance(run, _core.Run) else read_run(run)
        evaluation = _core.evaluate(self.qrels, run, [r.to_core() for r in self.requests], self._options(),
                                    keep_values)
        return Result(evaluation, self.requests, self._follows_10(), list(evaluation.warnings))
