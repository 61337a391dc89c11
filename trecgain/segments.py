"""Array helpers over CSR segments (one segment per query) that keep trec_eval's rounding.

trec_eval adds up each query's terms one by one in rank order.  numpy's `sum` and
`add.reduceat` add pairwise, and a global cumsum minus a segment's start value rounds
differently, so sums here are sequential cumsums along the rows of a padded matrix.
"""

from __future__ import annotations

import math
from typing import Iterator

import numpy as np


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """The segment of each element."""
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def positions(offsets: np.ndarray) -> np.ndarray:
    """0-based position of each element within its segment."""
    lengths = np.diff(offsets)
    return np.arange(offsets[-1]) - np.repeat(offsets[:-1], lengths)


def buckets(offsets: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Group segments of similar length (within 2x) for padded-matrix work.

    Yields (elements, row, column): element indices of the group's segments, and where each
    element sits in a (segments x longest) matrix."""
    lengths = np.diff(offsets)
    if offsets[-1] == 0:
        return
    bucket = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    pos = positions(offsets)
    kinds = np.unique(bucket[lengths > 0])
    element_bucket = np.repeat(bucket, lengths) if len(kinds) > 1 else None
    for b in kinds:
        segs = np.flatnonzero((bucket == b) & (lengths > 0))
        elements = np.arange(offsets[-1]) if element_bucket is None else np.flatnonzero(element_bucket == b)
        row = np.repeat(np.arange(len(segs)), lengths[segs])
        yield elements, row, pos[elements]


class Layout:
    """Where a CSR array's elements sit in padded (segments x length) matrices.

    Built once per set of offsets and reused by every sum over them.  When all segments
    have the same length (the usual run) the matrix is a reshape and nothing moves."""

    def __init__(self, offsets: np.ndarray):
        self.offsets = offsets
        lengths = np.diff(offsets)
        self.size = int(offsets[-1])
        self.width = int(lengths[0]) if len(lengths) and self.size and (lengths == lengths[0]).all() else 0
        self.groups = [] if self.width else list(buckets(offsets))

    def cumsum(self, values: np.ndarray) -> np.ndarray:
        """Inclusive prefix sums within each segment, added strictly left to right."""
        return self.accumulate(np.add, values)

    def cumprod(self, values: np.ndarray) -> np.ndarray:
        """Inclusive prefix products within each segment, multiplied strictly left to right."""
        return self.accumulate(np.multiply, values)

    def accumulate(self, op: np.ufunc, values: np.ndarray) -> np.ndarray:
        """op.accumulate within each segment (sequential along each padded row)."""
        if self.width:
            return op.accumulate(values.reshape(-1, self.width), axis=1, dtype=np.float64).ravel()
        out = np.empty(self.size, dtype=np.float64)
        for elements, row, column in self.groups:
            # padding with op's identity after a segment's end changes nothing
            matrix = np.full((int(row[-1]) + 1, int(column.max()) + 1), op.identity, dtype=np.float64)
            matrix[row, column] = values[elements]
            op.accumulate(matrix, axis=1, out=matrix)
            out[elements] = matrix[row, column]
        return out


def cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive prefix sums within each segment, added strictly left to right."""
    return Layout(offsets).cumsum(values)


def last(prefix: np.ndarray, offsets: np.ndarray, empty: float = 0.0) -> np.ndarray:
    """The last prefix value of each segment (`empty` for an empty segment)."""
    ends = offsets[1:] - 1
    has = offsets[1:] > offsets[:-1]
    out = np.full(len(offsets) - 1, empty, dtype=np.float64)
    out[has] = prefix[ends[has]]
    return out


def take(prefix: np.ndarray, offsets: np.ndarray, segment: np.ndarray, index: np.ndarray,
         empty: float = 0.0) -> np.ndarray:
    """prefix[index] within the given segments, clipped to each segment's end; `empty` before its start."""
    lengths = np.diff(offsets)[segment]
    clipped = np.minimum(index, lengths - 1)
    out = np.full(len(segment), empty, dtype=np.float64)
    ok = clipped >= 0
    out[ok] = prefix[offsets[:-1][segment[ok]] + clipped[ok]]
    return out


def c_log2(x: np.ndarray) -> np.ndarray:
    """math.log2 elementwise (numpy's log2 differs in the last bit), with IEEE results at <= 0."""
    out = np.empty(len(x), dtype=np.float64)
    for i, v in enumerate(x.tolist()):
        out[i] = math.log2(v) if v > 0 else (-math.inf if v == 0 else math.nan)
    return out
