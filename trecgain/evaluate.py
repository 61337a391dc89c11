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

    def _formats(self) -> list[tuple[str, str, bool]]:
        return [(name, r.measure.value, r.measure.per_query) for r in self.requests for name in r.lines]

    @property
    def lines(self) -> list[Line]:
        """Every output line with its per-query values and summary."""
        out = []
        summaries = self.evaluation.summaries
        for i, (name, kind, per_query) in enumerate(self._formats()):
            values = [_py(v, kind) for v in self.evaluation.column(i)]
            summary = self.evaluation.tag if kind == "tag" else _py(summaries[i], kind)
            out.append(Line(name, kind, per_query, values, summary))
        return out

    @property
    def per_query(self) -> dict[str, dict[str, float | int]]:
        """{qid: {line name: value}} for every evaluated query."""
        formats = self._formats()
        out: dict[str, dict[str, float | int]] = {}
        for q, qid in enumerate(self.qids):
            row = self.evaluation.row(q)
            out[qid] = {name: _py(row[i], kind) for i, (name, kind, per_query) in enumerate(formats) if per_query}
        return out

    @property
    def aggregate(self) -> dict[str, float | int | str]:
        """{line name: value of the `all` line}."""
        summaries = self.evaluation.summaries
        return {name: (self.runid if kind == "tag" else _py(summaries[i], kind))
                for i, (name, kind, _) in enumerate(self._formats())}

    def to_dataframe(self):
        """Per-query values as a pandas DataFrame, one row per query, one column per line
        (pandas is optional: install it to use this)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_dataframe needs pandas: pip install pandas") from None
        per_query = self.per_query
        names = [name for name, _, shown in self._formats() if shown]
        frame = pd.DataFrame({n: [row[n] for row in per_query.values()] for n in names}, index=self.qids)
        frame.index.name = "qid"
        return frame

    def write_trec(self, write, per_query: bool = False, summary: bool = True) -> None:
        """Hand the exact text the command line prints to `write(bytes)`, a megabyte at a time."""
        lines = [(name.encode(), kind, shown) for name, kind, shown in self._formats()]
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


class Evaluator:
    """Evaluate runs against one set of qrels, with trec_eval's options.

    >>> ev = Evaluator("qrels.txt", measures=["ndcg_cut.10", "ndcg"])   # doctest: +SKIP
    >>> ev.evaluate("run.txt").aggregate["ndcg_cut_10"]                # doctest: +SKIP
    """

    def __init__(self, qrels: Source | Any, measures: Iterable[str] = ("gain",), relevance_level: int = 1,
                 judged_only: bool = False, complete: bool = False, max_docs: int | None = None,
                 compat: str = "10", global_gains: str | None = None, discount: str = "log:2",
                 exact_ideal: bool = False, fractional_grades: bool = False, err_max_grade: int = 4):
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

    def _follows_10(self) -> bool:
        """Whether queries the run lacks follow trec_eval 10's rules: with -c it prints them with -q
        and evaluates them even when no query overlaps; 9.x does neither.  9.x has no dcg or
        ideal_dcg, so with those measures compat 9 means trec_eval 10 on float32 scores."""
        return self.compat == "10" or not all(r.measure.in_trec_eval_9 for r in self.requests)

    def _options(self) -> tuple:
        """The options tuple trecgain._core reads."""
        return (float(self.relevance_level), bool(self.judged_only), self.max_docs, bool(self.complete),
                bool(self.complete and self._follows_10()), self.compat, self.discount.to_core(),
                self.global_gains.to_core() if self.global_gains else None, bool(self.exact_ideal),
                int(self.err_max_grade))

    def evaluate(self, run: Source | Any, keep_values: bool = True) -> Result:
        """Evaluate one run (a path, '-', an open file, a core Run, or {qid: {docno: score}}).

        With keep_values=False only the `all` values are kept: `aggregate` and `to_trec` work
        (per-query lines are measured again as they are written), `per_query` does not; memory
        then stays at one block of queries however many queries there are."""
        run = run if isinstance(run, _core.Run) else read_run(run)
        evaluation = _core.evaluate(self.qrels, run, [r.to_core() for r in self.requests], self._options(),
                                    keep_values)
        return Result(evaluation, self.requests, self._follows_10(), list(evaluation.warnings))
