"""The library entry point: read -> rank -> label -> measures -> average, as one call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from . import format as fmt
from .average import summarize
from .errors import TrecgainError
from .label import label
from .discounts import parse_discount
from .gains import parse_global_gains
from .measures import Context, compute, depth_needed, parse_requests
from .rank import rank
from .read import Qrels, Run, Source, read_qrels, read_run

COMPAT_MODES = ("10", "9")


@dataclass
class Line:
    """One output line family: a name, per-query values and the `all` value."""

    name: str
    kind: str  # float | count | tag
    per_query: bool
    values: np.ndarray
    summary: float | int | bytes


@dataclass
class Result:
    """What an evaluation produced, in trec_eval's order."""

    qid_bytes: list[bytes]
    printed: np.ndarray  # bool per query: has per-query lines (compat 9 -c omits queries the run lacks)
    lines: list[Line]
    runid: str
    warnings: list[str] = field(default_factory=list)  # for the caller to show (the library never prints)

    @property
    def qids(self) -> list[str]:
        return [_text(q) for q in self.qid_bytes]

    @property
    def per_query(self) -> dict[str, dict[str, float | int]]:
        """{qid: {line name: value}} for every evaluated query."""
        out: dict[str, dict[str, float | int]] = {}
        for q, qid in enumerate(self.qids):
            out[qid] = {ln.name: _py(ln.values[q], ln.kind) for ln in self.lines if ln.per_query}
        return out

    @property
    def aggregate(self) -> dict[str, float | int | str]:
        """{line name: value of the `all` line}."""
        return {ln.name: (_text(ln.summary) if ln.kind == "tag" else ln.summary) for ln in self.lines}  # type: ignore

    def to_dataframe(self):
        """Per-query values as a pandas DataFrame, one row per query, one column per line
        (pandas is optional: install it to use this)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_dataframe needs pandas: pip install pandas") from None
        names = [ln.name for ln in self.lines if ln.per_query]
        frame = pd.DataFrame({n: [row[n] for row in self.per_query.values()] for n in names}, index=self.qids)
        frame.index.name = "qid"
        return frame

    def to_trec(self, per_query: bool = False, summary: bool = True) -> str:
        """The exact text the command line prints (-q gives per_query, -n turns summary off)."""
        return self.to_trec_bytes(per_query, summary).decode("utf-8", "surrogateescape")

    def to_trec_bytes(self, per_query: bool = False, summary: bool = True) -> bytes:
        return fmt.to_trec_bytes(self, per_query, summary)


def _text(value: bytes) -> str:
    return bytes(value).decode("utf-8", "surrogateescape")


def _py(value: object, kind: str) -> float | int:
    return int(value) if kind == "count" else float(value)  # type: ignore[arg-type]


class Evaluator:
    """Evaluate runs against one set of qrels, with trec_eval's options.

    >>> ev = Evaluator("qrels.txt", measures=["ndcg_cut.10", "ndcg"])   # doctest: +SKIP
    >>> ev.evaluate("run.txt").aggregate["ndcg_cut_10"]                # doctest: +SKIP
    """

    def __init__(self, qrels: Source | Qrels, measures: Iterable[str] = ("gain",), relevance_level: int = 1,
                 judged_only: bool = False, complete: bool = False, max_docs: int | None = None,
                 compat: str = "10", global_gains: str | None = None, discount: str = "log:2",
                 exact_ideal: bool = False, fractional_grades: bool = False, err_max_grade: int = 4):
        compat = str(compat)
        if compat not in COMPAT_MODES:
            raise TrecgainError(f"compat must be one of {', '.join(COMPAT_MODES)}, not '{compat}'")
        if max_docs is not None and max_docs < 0:
            raise TrecgainError(f"max_docs must not be negative: {max_docs}")
        if isinstance(measures, str):
            measures = [measures]
        self.requests = parse_requests(list(measures), compat)
        self.qrels = qrels if isinstance(qrels, Qrels) else read_qrels(qrels, fractional=fractional_grades)
        self.relevance_level = int(relevance_level)
        self.judged_only = judged_only
        self.complete = complete
        self.max_docs = max_docs
        self.compat = compat
        self.global_gains = parse_global_gains(global_gains, compat) if global_gains else None
        self.discount = parse_discount(discount)
        self.exact_ideal = exact_ideal
        if not 0 <= err_max_grade <= 1023:
            raise TrecgainError(f"err_max_grade must be from 0 to 1023, not {err_max_grade}")
        self.err_max_grade = err_max_grade

    def _follows_10(self) -> bool:
        """Whether queries the run lacks follow trec_eval 10's rules: with -c it prints them with -q
        and evaluates them even when no query overlaps; 9.x does neither.  9.x has no dcg or
        ideal_dcg, so with those measures compat 9 means trec_eval 10 on float32 scores."""
        return self.compat == "10" or not all(r.measure.in_trec_eval_9 for r in self.requests)

    def evaluate(self, run: Source | Run) -> Result:
        """Evaluate one run (a path, '-', an open file, a Run, or {qid: {docno: score}})."""
        run = run if isinstance(run, Run) else read_run(run)
        depth = depth_needed(self.requests)
        batches = []
        warnings: list[str] = list(run.warnings)
        for ranking in rank(run, self.qrels, max_docs=self.max_docs, compat=self.compat, complete=self.complete,
                            empty_ok=self.complete and self._follows_10()):
            labeled = label(ranking, run, self.qrels, relevance_level=self.relevance_level,
                            judged_only=self.judged_only, depth=depth)
            ctx = Context(labeled, self.discount, self.global_gains, self.exact_ideal, self.err_max_grade)
            batches.append((labeled.qids, labeled.in_run, compute(self.requests, ctx)))
            warnings += [w for w in ctx.warnings if w not in warnings]
        qids = [q for b in batches for q in b[0]]
        in_run = np.concatenate([b[1] for b in batches])
        lines = []
        for i, request in enumerate(self.requests):
            m = request.measure
            for j, name in enumerate(request.lines):
                v = np.concatenate([b[2][i][1][j] for b in batches])
                if self.complete and m.complete_summary is not None:
                    summary = m.complete_summary(self.qrels)
                else:
                    summary = summarize(v, m.summary, len(qids), run.tag)
                lines.append(Line(name, m.value, m.per_query, v, summary))
        printed = in_run | self._follows_10()
        return Result(qids, printed, lines, _text(run.tag), warnings)
