"""pytrec_eval's API on trecgain: `import trecgain.pytrec_eval as pytrec_eval` and code written
for pytrec_eval (pytrec-eval-terrier) runs unchanged, with the same keys, types and values.

pytrec_eval links trec_eval 9's measure code, so every value here is trecgain's compat "9"
(scores rounded to float32, trec_eval 9's rules).  What pytrec_eval returns is kept as it is:
one float per line (counts too), the bare measure name for measures with one line (`set_F`,
`11pt_avg`, `utility`), each line's name for those with a line per cutoff or point (`P_5`,
`iprec_at_recall_0.10`), `relstring` and `runid` as 0.0 (pytrec_eval's runid reads outside its
buffer: 0.0 or a pointer's bits), `gm_map` and
`gm_bpref` as the logs trec_eval keeps per query, only the queries of the run that the qrels
judge (queries whose judgments are `{}` are dropped, as pytrec-eval-terrier drops them), in
the run's order.  Measures named twice or as `meas_p1,p2` / `meas.p1,p2` are merged as
pytrec_eval merges them.  Where pytrec_eval is wrong trecgain is not: every `evaluate` is
independent of the ones before (pytrec_eval #22, #38; a gain string read twice), and bad
input raises `InputError` (a TrecgainError and the TypeError pytrec_eval raises) naming the
entry, where pytrec_eval accepts NaN scores and ids with spaces.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Mapping

from . import measures as registry
from .errors import TrecgainError
from .evaluate import Evaluator

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Iterable

__all__ = ["InputError", "RelevanceEvaluator", "compute_aggregated_measure", "parse_qrel", "parse_run",
           "supported_measures", "supported_nicknames"]

#: trec_eval 9's measures, as pytrec_eval lists them (its `all_trec`).
supported_measures: set[str] = set(registry.NICKNAMES["9"]["all_trec"])
#: trec_eval 9's nicknames; the last three name measures of preference files and multi-judge
#: qrels, which pytrec_eval lists but refuses with ValueError when asked for (and so does this).
supported_nicknames: dict[str, set[str]] = {
    "official": set(registry.NICKNAMES["9"]["official"]),
    "set": set(registry.NICKNAMES["9"]["set"]),
    "all_trec": set(registry.NICKNAMES["9"]["all_trec"]),
    "all_prefs": {"num_q", "runid", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                  "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp"},
    "prefs": {"num_q", "runid", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"},
    "qrels_jg": {"num_q", "runid", "map_avgjg", "Rprec_mult_avgjg", "P_avgjg"},
}

#: The parameters pytrec_eval reads after `meas.` or `meas_`: unsigned decimals, comma-separated
#: (it matches a prefix: `P_5x` is P.5).
_PARAMETERS = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*")


class InputError(TrecgainError, TypeError):
    """Bad qrels or run: trecgain's message naming the entry, and the TypeError pytrec_eval raises."""


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """`qid Q0 docno rank score tag` lines to {qid: {docno: score}} (a defaultdict, as pytrec_eval's)."""
    run: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        qid, _, docno, _, score, _ = line.strip().split()
        _new(run[qid], docno, line)
        run[qid][docno] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """`qid 0 docno grade` lines to {qid: {docno: grade}} (a defaultdict, as pytrec_eval's)."""
    qrel: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        qid, _, docno, grade = line.strip().split()
        _new(qrel[qid], docno, line)
        qrel[qid][docno] = int(grade)
    return qrel


def _new(docs: dict, docno: str, line: str) -> None:
    """pytrec_eval asserts a document is named once per query (AssertionError, even under -O here)."""
    if docno in docs:
        raise AssertionError(f"document {docno!r} is named twice for one query: {line.strip()!r}")


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """pytrec_eval's summary of per-query values: the sum for num_*, exp(mean) for gm_* (whose
    values are logs), else the mean, computed with numpy as pytrec_eval computes them."""
    try:
        import numpy as np  # optional dependency, as in pytrec_eval: its sums are numpy's pairwise sums
    except ImportError:
        raise ImportError("compute_aggregated_measure needs numpy (as pytrec_eval's does): pip install numpy") \
            from None
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def expand_nicknames(measures: Iterable[str]) -> set[str]:
    """The measures named, nicknames replaced by their measures (pytrec_eval's order-free set)."""
    out: set[str] = set()
    for measure in measures:
        out.update(supported_nicknames.get(measure, {measure}) if isinstance(measure, str) else {measure})
    return out


def combine_measures(measures: Iterable[str]) -> set[str]:
    """`meas`, `meas.p1,p2` and `meas_p1,p2` merged per measure into `meas` or `meas.P` (the union
    of the parameters, sorted as strings, as pytrec_eval passes them to trec_eval); ValueError
    for a name that is no measure."""
    parameters: dict[str, set[str]] = {}
    for measure in measures:
        if not isinstance(measure, str):
            raise TypeError(f"expected string or bytes-like object, got {type(measure).__name__!r}")
        if measure in supported_measures or measure in supported_nicknames:
            parameters.setdefault(measure, set())
            continue
        base, values = _split(measure)
        parameters.setdefault(base, set()).update(values)
    return {base if not values else f"{base}.{','.join(sorted(values))}" for base, values in parameters.items()}


def _split(measure: str) -> tuple[str, list[str]]:
    """`P_5,10` -> ("P", ["5", "10"]): a measure's name, `.` or `_`, and a parameter list."""
    for base in supported_measures:
        if measure.startswith(base) and measure[len(base):len(base) + 1] in (".", "_"):
            found = _PARAMETERS.match(measure, len(base) + 1)
            if found:
                return base, found.group(0).split(",")
    raise ValueError(f"unsupported measure {measure}")


def _requests(combined: set[str]) -> list[str]:
    """trecgain's measure arguments for pytrec_eval's: parameters of a measure that takes none are
    dropped, as trec_eval ignores them (`map.5` is map); prefs and multi-judge measures refused."""
    out = []
    for spec in sorted(combined):
        base, _, text = spec.partition(".")
        if base not in supported_measures:
            raise ValueError(f"unsupported measure {spec}")
        takes_none = registry.BY_NAME[base].parse is registry.PARSERS["none"]
        out.append(base if takes_none or not text else spec)
    return out


class RelevanceEvaluator:
    """pytrec_eval's RelevanceEvaluator: qrels and measures once, then `evaluate(run)` per run."""

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False):
        requests = _requests(combine_measures(expand_nicknames(measures)))
        level = _whole(relevance_level)
        judged_only = bool(_whole(judged_docs_only_flag))
        if level < 1:
            raise TypeError("Argument relevance_level should be positive.")
        if not isinstance(query_relevance, Mapping):
            raise TypeError("Argument query_relevance should be of type dictionary.")
        judged = {qid: docs for qid, docs in _queries(query_relevance, "qrels").items() if len(docs) > 0}
        for spec in requests:  # each alone, so that the error names it
            try:
                registry.parse_requests([spec], "9")
            except TrecgainError as err:
                raise ValueError(f"unsupported measure {spec}: {err.message}") from None
        self._qids = set(judged)
        self._lines: list[tuple[str, int, bool]] = []
        self._evaluator = None
        if requests and judged:
            try:
                self._evaluator = Evaluator(judged, requests, relevance_level=level, judged_only=judged_only,
                                            compat="9")
            except TrecgainError as err:
                raise InputError(err.message, err.source, err.line) from None
            self._lines = line_keys(self._evaluator.requests)

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """{qid: {measure: value}} for each query of `scores` the qrels judge, in the run's order."""
        if not scores:
            return {}
        if not isinstance(scores, Mapping):
            raise TypeError("Argument object scores should be of type dictionary.")
        shared = [qid for qid in _queries(scores, "run") if qid in self._qids]
        if not shared:
            return {}
        if self._evaluator is None:
            return {qid: {} for qid in shared}
        try:
            evaluation = self._evaluator.evaluate(scores).evaluation
        except TrecgainError as err:
            raise InputError(err.message, err.source, err.line) from None
        rows = query_rows(evaluation, self._lines)
        return {qid: rows[qid] for qid in shared}


def query_rows(evaluation: object, lines: list[tuple[object, int, bool]]) -> dict[str, dict]:
    """{qid: {key: value}} of the core's evaluation, for each evaluated query, from each line's
    (key, first value slot, whether its value is reported: else 0.0) in `lines`: the value slots
    as trec_eval keeps them (counts as floats, gm_* as logs), as pytrec_eval reports them."""
    rows: dict[str, dict] = {}
    width = evaluation.width  # type: ignore[attr-defined]

    def block(qids: list[bytes], in_run: list[bool], values: list[float]) -> None:
        for i, qid in enumerate(qids):
            base = i * width
            rows[bytes(qid).decode("utf-8", "surrogateescape")] = {
                key: values[base + slot] if measured else 0.0 for key, slot, measured in lines}

    evaluation.for_each_block(block)  # type: ignore[attr-defined]
    return rows


def line_keys(requests: list[registry.Request]) -> list[tuple[str, int, bool]]:
    """Per output line, in trec_eval's order: pytrec_eval's key (the line's name for a measure
    with a line per cutoff or point, else the measure's), its first value slot, and whether
    pytrec_eval reports its value (runid and relstring: 0.0)."""
    out, slot = [], 0
    for r in requests:
        per_parameter = r.measure.naming in ("cutoffs", "points")
        for line, slots in zip(r.lines, r.slots()):
            out.append((line if per_parameter else r.measure.name, slot, r.measure.value not in ("tag", "chars")))
            slot += slots
    return out


def _queries(source: Mapping, what: str) -> Mapping:
    """`source` itself, its query ids checked to be strings and its values dicts, as pytrec_eval checks them."""
    for qid, docs in source.items():
        if not isinstance(qid, str):
            raise InputError(f"query id {qid!r} is not a string (pytrec_eval: Expected string as key.)", what)
        if not isinstance(docs, Mapping):
            raise InputError(f"query {qid!r}: expected a dict {{docno: value}}, not {type(docs).__name__} "
                             "(pytrec_eval: Expected dictionary as value.)", what)
    return source


def _whole(value: object) -> int:
    """An int argument, as pytrec_eval's C code takes it (bools are ints; floats are refused)."""
    if not isinstance(value, int):
        raise TypeError("Expected object_relevance_per_qid dictionary and measures set.")
    return value
