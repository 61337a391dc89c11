"""Join rankings with the qrels (stage 3 of read -> rank -> label -> measures).

Each ranked document gets a relevance value: its grade when judged, NOT_IN_QRELS (-1)
when the qrels do not list it, UNJUDGED (-2) when listed with a negative grade.  With
`judged_only` (-J) every negative value is dropped and the rest close up their ranks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .rank import Ranking
from .read import Qrels, Run, doc_keys
from .segments import positions, segment_ids

NOT_IN_QRELS = -1
UNJUDGED = -2


@dataclass
class Labeled:
    """What every measure reads: per query, ranked relevance values and the judged grades."""

    qids: np.ndarray  # S: evaluated queries, in order
    in_run: np.ndarray  # bool per query
    offsets: np.ndarray  # int64 CSR over `values`
    values: np.ndarray  # int64: relevance value per ranked document, rank order
    judged_offsets: np.ndarray  # int64 CSR over `judged`
    judged: np.ndarray  # int64: grades >= 0 of each query's judged documents, descending
    relevance_level: int
    num_ret: np.ndarray  # int64 per query: documents ranked (the values may stop at a depth)

    @property
    def num_queries(self) -> int:
        return len(self.qids)


def label(ranking: Ranking, run: Run, qrels: Qrels, *, relevance_level: int = 1,
          judged_only: bool = False, depth: int | None = None) -> Labeled:
    """Attach relevance values to a ranking and collect each query's judged grades.

    With `depth`, only the first `depth` ranks are labeled (enough for cutoff measures)."""
    num_ret = np.diff(ranking.offsets)
    rows, offsets = ranking.rows, ranking.offsets
    if depth is not None and not judged_only and num_ret.max(initial=0) > depth:
        keep = positions(offsets) < depth
        rows = rows[keep]
        offsets = np.concatenate(([0], np.cumsum(np.minimum(num_ret, depth)))).astype(np.int64)
    query = np.repeat(ranking.qrels_index, np.diff(offsets))
    values = _lookup(query, run.docnos[rows], qrels)
    judged_offsets, judged = _judged_grades(ranking.qrels_index, qrels)
    labeled = Labeled(ranking.qids, ranking.in_run, offsets, values, judged_offsets, judged, relevance_level,
                      num_ret.astype(np.int64))
    return only_judged(labeled) if judged_only else labeled


def only_judged(labeled: Labeled) -> Labeled:
    """The same rankings without the documents the qrels do not judge, ranks closed up (-J)."""
    keep = labeled.values >= 0
    counts = np.bincount(segment_ids(labeled.offsets)[keep], minlength=labeled.num_queries)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return replace(labeled, offsets=offsets, values=labeled.values[keep], num_ret=counts.astype(np.int64))


def _lookup(query: np.ndarray, docnos: np.ndarray, qrels: Qrels) -> np.ndarray:
    """Relevance value of each (query, docno): grade, NOT_IN_QRELS or UNJUDGED."""
    values = np.full(len(docnos), NOT_IN_QRELS, dtype=qrels.grades.dtype)
    if len(docnos) == 0:
        return values
    key = doc_keys(query, docnos)
    pos = np.minimum(np.searchsorted(qrels.keys, key), len(qrels.keys) - 1)
    found = qrels.keys[pos] == key
    candidate = qrels.key_rows[pos[found]]
    candidate_query = np.searchsorted(qrels.offsets, candidate, side="right") - 1
    same = (qrels.docnos[candidate] == docnos[found]) & (candidate_query == query[found])
    rows = np.flatnonzero(found)
    grades = qrels.grades[candidate[same]]
    values[rows[same]] = np.where(grades >= 0, grades, UNJUDGED)
    for i in rows[~same]:  # a hash collision: settle that row exactly
        values[i] = _exact(qrels, int(query[i]), docnos[i])
    return values


def _exact(qrels: Qrels, q: int, docno: bytes) -> float:
    lo, hi = qrels.offsets[q], qrels.offsets[q + 1]
    for i in range(lo, hi):
        if qrels.docnos[i] == docno:
            grade = qrels.grades[i]
            return grade if grade >= 0 else UNJUDGED
    return NOT_IN_QRELS


def _judged_grades(qrels_index: np.ndarray, qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """For each evaluated query, the grades >= 0 of its judged documents, highest first."""
    starts, ends = qrels.offsets[qrels_index], qrels.offsets[qrels_index + 1]
    lengths = ends - starts
    rows = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths) + np.arange(lengths.sum())
    query = np.repeat(np.arange(len(qrels_index)), lengths)
    grades = qrels.grades[rows]
    keep = grades >= 0
    query, grades = query[keep], grades[keep]
    order = np.lexsort((-grades, query))
    counts = np.bincount(query, minlength=len(qrels_index))
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64), grades[order]
