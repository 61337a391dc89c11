"""Order each query's results as trec_eval does (stage 2 of read -> rank -> label -> measures).

Per query: score descending, ties by docno descending in byte order (strcmp), then the
first `max_docs`.  With compat "9" scores are rounded to float32 first, so scores equal
in float32 tie.  A document retrieved twice within the kept ranks is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import TrecgainError
from .read import Qrels, Run
from .segments import buckets


@dataclass
class Ranking:
    """All evaluated queries' rankings as one CSR array of run rows."""

    qids: np.ndarray  # S: evaluated queries, in qrels (byte) order
    qrels_index: np.ndarray  # int64: each evaluated query's index in Qrels.qids
    in_run: np.ndarray  # bool: False for a query only -c brought in
    offsets: np.ndarray  # int64, len(qids) + 1
    rows: np.ndarray  # int64: run row of each ranked document, in rank order


def rank(run: Run, qrels: Qrels, *, max_docs: int | None = None, compat: str = "10",
         complete: bool = False, empty_ok: bool = False) -> Ranking:
    """Rank every query of the run that the qrels judge (all qrels queries with `complete`).

    No query in both files is an error unless `empty_ok` (trec_eval 10 with -c).
    """
    query = _qrels_index(run.qids, qrels.qids)
    scores = run.scores.astype(np.float32).astype(np.float64) if compat == "9" else run.scores
    order = _sort(np.flatnonzero(query >= 0), query, scores, run.docnos)
    counts = np.bincount(query[order], minlength=len(qrels.qids))
    if not counts.any() and not empty_ok:
        raise TrecgainError("no query has both results and judgments", run.source)
    evaluated = np.flatnonzero((counts > 0) | complete)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    rows, kept = _truncate(order, offsets, counts, max_docs)
    kept_offsets = np.concatenate(([0], np.cumsum(kept[evaluated]))).astype(np.int64)
    _check_duplicates(run, kept_offsets, rows)
    return Ranking(qrels.qids[evaluated], evaluated, counts[evaluated] > 0, kept_offsets, rows)


def _qrels_index(run_qids: np.ndarray, qrels_qids: np.ndarray) -> np.ndarray:
    """Index in qrels_qids of each run line's query, -1 where the qrels lack it."""
    heads = np.flatnonzero(np.concatenate(([True], run_qids[1:] != run_qids[:-1])))
    head_qids = run_qids[heads]
    pos = np.searchsorted(qrels_qids, head_qids)
    found = qrels_qids[np.minimum(pos, len(qrels_qids) - 1)] == head_qids
    per_segment = np.where(found, pos, -1)
    return np.repeat(per_segment, np.diff(np.append(heads, len(run_qids))))


def _sort(rows: np.ndarray, query: np.ndarray, scores: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """Rows ordered by (query, score descending, docno descending)."""
    q, s = query[rows], scores[rows]
    heads = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1]))) if len(q) else np.zeros(0, np.int64)
    contiguous = len(np.unique(q[heads])) == len(heads)
    descending = ((q[1:] != q[:-1]) | (s[1:] <= s[:-1])).all()
    if contiguous and descending:  # the usual run: only the queries need reordering
        perm = _order_segments(heads, len(q), np.argsort(q[heads], kind="stable"))
    else:
        perm = np.lexsort((-s, q))
    rows, q, s = rows[perm], q[perm], s[perm]
    tie = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    if tie.any():
        rows = _break_ties(rows, tie, docnos)
    return rows


def _order_segments(heads: np.ndarray, n: int, order: np.ndarray) -> np.ndarray:
    """The permutation that lays contiguous segments out in the given order."""
    lengths = np.diff(np.append(heads, n))[order]
    starts = heads[order]
    out_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.repeat(starts - out_starts, lengths) + np.arange(n)


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


def _truncate(order: np.ndarray, offsets: np.ndarray, counts: np.ndarray,
              max_docs: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Keep the first max_docs rows of each query; return the rows and per-query counts."""
    if max_docs is None or counts.max(initial=0) <= max_docs:
        return order, counts
    position = np.arange(len(order)) - np.repeat(offsets[:-1], counts)
    return order[position < max_docs], np.minimum(counts, max_docs)


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


def hash_ids(ids: np.ndarray, width: int | None = None) -> np.ndarray:
    """A 64-bit hash of each byte string; equal strings (at equal `width`) hash equal."""
    width = width or ids.dtype.itemsize
    words = -(-width // 8)
    matrix = np.zeros((len(ids), words * 8), dtype=np.uint8)
    matrix[:, : ids.dtype.itemsize] = ids.view(np.uint8).reshape(len(ids), ids.dtype.itemsize)
    as_words = matrix.view(np.uint64)
    h = np.full(len(ids), 0x9E3779B97F4A7C15, dtype=np.uint64)
    for j in range(words):  # splitmix64's finaliser over each 8-byte word
        h ^= as_words[:, j]
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return h


def _text(value: bytes) -> str:
    return bytes(value).decode("utf-8", "backslashreplace")
