"""Order each query's results as trec_eval does (stage 2 of read -> rank -> label -> measures).

Per query: score descending, ties by docno descending in byte order (strcmp), then the
first `max_docs`.  With compat "9" scores are rounded to float32 first, so scores equal
in float32 tie.  A document retrieved twice within the kept ranks is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .errors import TrecgainError
from .read import Qrels, Run, _text, hash_ids
from .segments import buckets


BATCH_ROWS = 1 << 20


@dataclass
class Ranking:
    """Some evaluated queries' rankings as one CSR array of run rows."""

    qids: np.ndarray  # S: evaluated queries, in qrels (byte) order
    qrels_index: np.ndarray  # int64: each evaluated query's index in Qrels.qids
    in_run: np.ndarray  # bool: False for a query only -c brought in
    offsets: np.ndarray  # int64, len(qids) + 1
    rows: np.ndarray  # int64: run row of each ranked document, in rank order


def rank(run: Run, qrels: Qrels, *, max_docs: int | None = None, compat: str = "10",
         complete: bool = False, empty_ok: bool = False, batch_rows: int | None = None) -> Iterator[Ranking]:
    """Rank every query of the run that the qrels judge (all qrels queries with `complete`),
    a batch of queries at a time, in qrels order, so no array spans the whole run twice.

    No query in both files is an error unless `empty_ok` (trec_eval 10 with -c).
    """
    query = _qrels_index(run.qids, qrels.qids)
    with np.errstate(over="ignore"):  # beyond float32's range is inf, as in trec_eval 9's float
        scores = run.scores.astype(np.float32) if compat == "9" else run.scores
    source, start, count = _group_by_query(query, len(qrels.qids))
    in_run = (count > 0) | _listed(run.empty_qids, qrels.qids)
    if not in_run.any() and not empty_ok:
        raise TrecgainError("no query has both results and judgments", run.source)
    evaluated = np.flatnonzero(in_run | complete)
    for batch in _batches(count[evaluated], batch_rows or BATCH_ROWS):
        queries = evaluated[batch]
        lengths = count[queries]
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        rows = source[_ranges(start[queries], lengths)]
        rows = _sort(rows, offsets, scores, run.docnos)
        rows, offsets = _truncate(rows, offsets, max_docs)
        _check_duplicates(run, offsets, rows)
        yield Ranking(qrels.qids[queries], queries, in_run[queries], offsets, rows)


def _listed(qids: np.ndarray, qrels_qids: np.ndarray) -> np.ndarray:
    """For each qrels query, whether it is among `qids`."""
    return np.isin(qrels_qids, qids) if len(qids) else np.zeros(len(qrels_qids), dtype=bool)


def _qrels_index(run_qids: np.ndarray, qrels_qids: np.ndarray) -> np.ndarray:
    """Index in qrels_qids of each run line's query, -1 where the qrels lack it."""
    if len(run_qids) == 0:
        return np.zeros(0, dtype=np.int32)
    heads = np.flatnonzero(np.concatenate(([True], run_qids[1:] != run_qids[:-1])))
    head_qids = run_qids[heads]
    pos = np.searchsorted(qrels_qids, head_qids)
    found = qrels_qids[np.minimum(pos, len(qrels_qids) - 1)] == head_qids
    per_segment = np.where(found, pos, -1).astype(np.int32)
    return np.repeat(per_segment, np.diff(np.append(heads, len(run_qids))))


def _group_by_query(query: np.ndarray, num_queries: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows grouped by query: (source, start, count) such that query q's rows are
    source[start[q] : start[q] + count[q]], in file order.  A run whose queries are each
    written in one piece (nearly all) needs no sort: source is then the identity."""
    heads = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))[: len(query)]
    head_query = query[heads]
    lengths = np.diff(np.append(heads, len(query)))
    known = head_query >= 0
    count = np.bincount(head_query[known], weights=lengths[known], minlength=num_queries).astype(np.int64)
    if len(np.unique(head_query[known])) == known.sum():
        start = np.zeros(num_queries, dtype=np.int64)
        start[head_query[known]] = heads[known]
        return np.arange(len(query), dtype=np.int64), start, count
    source = np.argsort(np.where(query >= 0, query, num_queries), kind="stable")
    start = np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64)
    return source, start, count


def _batches(lengths: np.ndarray, batch_rows: int) -> Iterator[slice]:
    """Consecutive slices of queries holding about batch_rows rows each."""
    ends = np.cumsum(lengths)
    first = 0
    while first < len(lengths):
        base = ends[first - 1] if first else 0
        last = int(np.searchsorted(ends, base + batch_rows, side="right"))
        last = max(last, first + 1)
        yield slice(first, last)
        first = last


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated arange(start, start + length) for each pair."""
    total = int(lengths.sum())
    out_starts = np.cumsum(lengths) - lengths
    return np.repeat(starts - out_starts, lengths) + np.arange(total, dtype=np.int64)


def _sort(rows: np.ndarray, offsets: np.ndarray, scores: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """Each query's rows ordered by score descending, then docno descending."""
    s = scores[rows]
    boundary = np.zeros(len(rows) + 1, dtype=bool)
    boundary[offsets[1:-1]] = True  # a query starts here
    boundary = boundary[: len(rows)]
    if not (boundary[1:] | (s[1:] <= s[:-1])).all():
        q = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        perm = np.lexsort((-s, q))
        rows, s = rows[perm], s[perm]
    tie = ~boundary[1:] & (s[1:] == s[:-1])
    if tie.any():
        rows = _break_ties(rows, tie, docnos)
    return rows


def _break_ties(rows: np.ndarray, tie: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """Within each run of equal (query, score), order rows by docno descending."""
    in_group = np.concatenate((tie, [False])) | np.concatenate(([False], tie))
    positions = np.flatnonzero(in_group)
    starts = np.concatenate(([True], ~tie))[positions]
    group = np.cumsum(starts)
    members = rows[positions]
    # lexsort is ascending; sort groups descending and docnos ascending, then reverse all.
    perm = np.lexsort((docnos[members], -group))[::-1]
    rows = rows.copy()
    rows[positions] = members[perm]
    return rows


def _truncate(rows: np.ndarray, offsets: np.ndarray, max_docs: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Keep the first max_docs rows of each query."""
    lengths = np.diff(offsets)
    if max_docs is None or lengths.max(initial=0) <= max_docs:
        return rows, offsets
    position = np.arange(len(rows)) - np.repeat(offsets[:-1], lengths)
    kept = np.minimum(lengths, max_docs)
    return rows[position < max_docs], np.concatenate(([0], np.cumsum(kept))).astype(np.int64)


def _check_duplicates(run: Run, offsets: np.ndarray, rows: np.ndarray) -> None:
    """A document may appear once in a query's kept ranking (sorted hashes, one row per query)."""
    if len(rows) < 2:
        return
    h = (hash_ids(run.docnos[rows]) >> np.uint64(33)).astype(np.uint32)  # odd values are padding
    h <<= np.uint32(1)
    for elements, row, column in buckets(offsets):
        matrix = np.full((int(row[-1]) + 1, int(column.max()) + 1), np.uint32(1), dtype=np.uint32)
        matrix[row, column] = h[elements]
        matrix.sort(axis=1)
        suspect = ((matrix[:, 1:] == matrix[:, :-1]) & (matrix[:, 1:] != 1)).any(axis=1)
        if suspect.any():
            _report_duplicate(run, rows[elements[suspect[row]]], row[suspect[row]])


def _report_duplicate(run: Run, rows: np.ndarray, segment: np.ndarray) -> None:
    """Look closely at the queries whose hashes collide; raise on a real duplicate."""
    seen: dict[tuple[int, bytes], int] = {}
    for i in range(len(rows)):
        key = (int(segment[i]), bytes(run.docnos[rows[i]]))
        if key in seen:
            a, b = seen[key], rows[i]
            first, second = sorted((int(run.lines[a]), int(run.lines[b])))
            raise TrecgainError(
                f"document '{_text(run.docnos[a])}' retrieved twice for query '{_text(run.qids[a])}' "
                f"(first at line {first})", run.source, second)
        seen[key] = rows[i]
