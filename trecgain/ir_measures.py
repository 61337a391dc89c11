"""trecgain as an ir_measures provider: `trecgain.ir_measures.use()` puts it first in
ir_measures' default pipeline, so `ir_measures.calc_aggregate`, `iter_calc`, `evaluator` (and
PyTerrier's `Experiment`, which calls them) compute every measure trecgain has with trecgain;
the measures it lacks still go to ir_measures' other providers. The diversity measures read the
qrels' iteration as the subtopic, as ir_measures' pyndeval provider does.

Values are trecgain's under compat "9" by default: the trec_eval 9 numerics that ir_measures'
own pytrec_eval provider computes, so switching changes no number (compat="10" for trec_eval
10.0's).  Per query, trecgain reports the queries of the run the qrels judge; ir_measures'
Evaluator then gives each qrels query the run lacks the measure's DEFAULT and aggregates as it
always does (each measure's aggregator, over the qrels' queries).

Importing this module imports ir_measures (an optional dependency: pip install ir_measures).
"""

from __future__ import annotations

import ir_measures
from ir_measures import providers

from . import measures as registry
from .errors import TrecgainError
from .evaluate import Evaluator
from .pytrec_eval import query_rows

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Iterable, Iterator


class TrecgainProvider(providers.Provider):
    """ir_measures' Provider for every ir_measures measure trecgain computes (its names.py)."""

    NAME = "trecgain"
    SUPPORTED_MEASURES: list = []  # decided by supports(): what trecgain parses

    def __init__(self, compat: str = "9"):
        super().__init__()
        if compat not in ("9", "10"):
            raise TrecgainError(f"compat must be '9' or '10', not {compat!r}")
        self.compat = compat

    def supports(self, measure: ir_measures.Measure) -> bool:
        """Whether trecgain computes `measure` from ir_measures' qrels: its name parses as a
        trecgain request of a measure on plain qrels, or of a diversity measure (read from the
        qrels' `iteration` as the subtopic, as ir_measures' pyndeval provider reads it)."""
        try:
            requests = registry.parse_requests([str(measure)], self.compat)
        except TrecgainError:
            return False
        return all(r.measure.relevance in ("qrels", "any", "subtopics") for r in requests)

    def _evaluator(self, measures: Iterable[ir_measures.Measure], qrels: object) -> providers.Evaluator:
        measures = list(measures)
        diversity = [m for m in measures if _is_diversity(m, self.compat)]
        plain = [m for m in measures if m not in diversity]
        parts = []
        if plain:
            plain_qrels, qids = _with_query_ids(qrels)
            parts.append(TrecgainEvaluator(plain, qids, Evaluator(plain_qrels, [str(m) for m in plain],
                                                                  compat=self.compat)))
            qrels = plain_qrels  # an iterator of rows is read once, into a list
        if diversity:
            rows = _subtopic_rows(qrels)
            evaluator = Evaluator(rows, [str(m) for m in diversity], compat=self.compat, rel_format="subtopics")
            parts.append(TrecgainEvaluator(diversity, {row[0] for row in rows}, evaluator))
        return parts[0] if len(parts) == 1 else JoinedEvaluator(measures, parts)

    def install_instructions(self) -> str:
        return "pip install trecgain"


class TrecgainEvaluator(providers.Evaluator):
    """One set of qrels and measures, evaluated by trecgain for each run given."""

    def __init__(self, measures: list, qrel_qids: set[str], evaluator: Evaluator):
        super().__init__(measures, qrel_qids)
        self.trecgain = evaluator
        by_name = {str(m): m for m in measures}
        self.lines = [(by_name[line], slot, True) for line, slot, _ in _named_lines(evaluator)]
        #: The measures whose queries may have no value (Accuracy): ir_measures' own provider
        #: leaves such a query out, and gives a qrels query the run lacks no DEFAULT either.
        self.optional = {by_name[line] for r in evaluator.requests if r.measure.summary == "mean_of_defined"
                         for line in r.lines}

    def iter_calc(self, run: object) -> Iterator[ir_measures.Metric]:
        """Each query's metrics, then the DEFAULT of each measure for each qrels query it has no
        metric for (as every ir_measures Evaluator gives it), but for the measures in `optional`."""
        missing = {(m, q) for m in self.measures if m not in self.optional for q in self.qrel_qids}
        for metric in self._iter_calc(run):
            missing.discard((metric.measure, metric.query_id))
            yield metric
        for measure, qid in sorted(missing, key=lambda pair: (str(pair[0]), pair[1])):
            yield ir_measures.Metric(query_id=qid, measure=measure, value=measure.DEFAULT)

    def _iter_calc(self, run: object) -> Iterator[ir_measures.Metric]:
        if _is_iterator(run):  # read once by trecgain, and again if it shares no query (ir_measures reads it whole too)
            run = list(run)  # type: ignore[call-overload]
        try:
            evaluation = self.trecgain.evaluate(run).evaluation
        except TrecgainError:
            if _shares_no_query(run, self.qrel_qids):  # ir_measures: every value is the DEFAULT
                return
            raise
        for qid, values in query_rows(evaluation, self.lines).items():
            for measure, value in values.items():
                if value == value or measure not in self.optional:  # NaN: the query has no value
                    yield ir_measures.Metric(query_id=qid, measure=measure, value=value)


class JoinedEvaluator(providers.Evaluator):
    """Plain and diversity measures together: each part's metrics (with its defaults), in turn."""

    def __init__(self, measures: list, parts: list[TrecgainEvaluator]):
        super().__init__(measures, set().union(*(p.qrel_qids for p in parts)))
        self.parts = parts

    def iter_calc(self, run: object) -> Iterator[ir_measures.Metric]:
        if _is_iterator(run):
            run = list(run)  # type: ignore[call-overload]
        for part in self.parts:
            yield from part.iter_calc(run)

    def _iter_calc(self, run: object) -> Iterator[ir_measures.Metric]:
        return self.iter_calc(run)


def _is_diversity(measure: ir_measures.Measure, compat: str) -> bool:
    """Whether a measure reads subtopic judgments (ndeval's)."""
    return any(r.measure.relevance == "subtopics" for r in registry.parse_requests([str(measure)], compat))


def _subtopic_rows(qrels: object) -> list[tuple[str, str, str, int]]:
    """ir_measures' qrels as subtopic judgments: (query_id, iteration, doc_id, relevance), the
    subtopic '0' where the qrels have no iteration (as ir_measures' pyndeval provider reads them)."""
    rows = ir_measures.util.QrelsConverter(qrels).as_namedtuple_iter()
    return [(q.query_id, getattr(q, "iteration", "0"), q.doc_id, q.relevance) for q in rows]


def _named_lines(evaluator: Evaluator) -> list[tuple[str, int, bool]]:
    """Each request's line (its ir_measures name) with its first value slot."""
    out, slot = [], 0
    for r in evaluator.requests:
        for line, slots in zip(r.lines, r.slots()):
            out.append((line, slot, True))
            slot += slots
    return out


def _with_query_ids(qrels: object) -> tuple[object, set[str]]:
    """The qrels (an iterable of rows read into a list, to be read twice) and their query ids."""
    if isinstance(qrels, dict):
        return qrels, {str(q) for q in qrels}
    columns = getattr(qrels, "columns", None)
    if columns is not None:
        column = "query_id" if "query_id" in columns else "qid"
        return qrels, {str(q) for q in qrels[column]}  # type: ignore[index]
    if isinstance(qrels, (str, bytes)) or not hasattr(qrels, "__iter__"):
        return qrels, set()  # a path or a file: trecgain reads it (and ir_measures gives no defaults)
    rows = list(qrels)  # type: ignore[call-overload]
    return rows, {str(row[0]) for row in rows}


def _is_iterator(run: object) -> bool:
    """A run of rows that can be read only once (a generator, ir_measures.read_trec_run's)."""
    return not isinstance(run, (dict, list, tuple)) and getattr(run, "columns", None) is None \
        and hasattr(run, "__next__")


def _shares_no_query(run: object, qids: set[str]) -> bool:
    """Whether a run (dict, DataFrame or list of rows) is empty or has no query of `qids`."""
    if isinstance(run, dict):
        return not any(str(q) in qids for q in run)
    columns = getattr(run, "columns", None)
    if columns is not None:
        column = "query_id" if "query_id" in columns else "qid"
        return not any(str(q) in qids for q in run[column])  # type: ignore[index]
    if isinstance(run, (list, tuple)):
        return not any(str(row[0]) in qids for row in run)
    return False


def register(first: bool = True, compat: str = "9") -> TrecgainProvider:
    """Register trecgain as ir_measures' provider `trecgain` and put it in ir_measures' default
    pipeline (`ir_measures.calc_aggregate`, `iter_calc`, `evaluator`, PyTerrier): first (before
    pytrec_eval), or last with first=False.  Calling it again replaces the earlier one."""
    provider = TrecgainProvider(compat)
    providers.register(provider)
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [p for p in pipeline if not isinstance(p, TrecgainProvider)]
    pipeline.insert(0 if first else len(pipeline), provider)
    return provider


def use(compat: str = "9") -> TrecgainProvider:
    """Make ir_measures (and PyTerrier) compute with trecgain: `register(first=True)`."""
    return register(True, compat)


def unregister() -> None:
    """Take trecgain out of ir_measures' default pipeline and registry again."""
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [p for p in pipeline if not isinstance(p, TrecgainProvider)]
    providers.registry.pop(TrecgainProvider.NAME, None)
