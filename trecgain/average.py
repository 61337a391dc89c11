"""Summaries over queries (stage 5): means added in query order, sums, counts, the run tag."""

from __future__ import annotations

import numpy as np


def summarize(values: np.ndarray, summary: str, num_queries: int, tag: bytes) -> float | int | bytes:
    """The `all` value of one output line."""
    if summary == "tag":
        return tag
    if summary == "count":
        return num_queries
    if summary == "sum":
        return int(values.sum())
    return mean(values, num_queries)


def mean(values: np.ndarray, num_queries: int) -> float:
    """Sum in query order, then divide, as trec_eval accumulates (numpy's sum is pairwise)."""
    if num_queries == 0:
        return 0.0
    total = float(np.cumsum(values)[-1]) if len(values) else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.float64(total) / np.float64(num_queries))
