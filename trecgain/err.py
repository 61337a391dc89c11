"""ERR@k, expected reciprocal rank (Chapelle et al. 2009), as gdeval.pl computes it.

A user reading down a ranking stops at each document with probability
r = (2^grade - 1) / 2^max_grade, and ERR@k = sum over ranks i <= k of
r_i / i * prod_{j < i} (1 - r_j).  The kernel follows gdeval.pl's operations exactly:
`score += r * decay / i` then `decay *= 1 - r`, left to right in rank order, so its
values are the same doubles as gdeval.pl's `err@k` column.

Relevance values: a document the qrels do not list (-1), a negative judgment (-2) and
grade 0 all give r = 0, as in gdeval.pl.  Grades above `max_grade`, which gdeval.pl
refuses as a format error, count as `max_grade`: r stays below 1 and ERR@k within [0, 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import segments as seg
from .errors import TrecgainError

if TYPE_CHECKING:
    from .measures import Context

MAX_GRADE = 4  # gdeval.pl's $MAX_JUDGMENT
GRADE_LIMIT = 1023  # 2.0 ** grade stays finite


def err_cut(ctx: Context, cutoffs: tuple[int, ...], max_grade: int = MAX_GRADE) -> list[np.ndarray]:
    """ERR at each cutoff, one array of per-query values per cutoff (0 for an empty ranking)."""
    if not 0 <= max_grade <= GRADE_LIMIT:
        raise TrecgainError(f"ERR's max_grade must be from 0 to {GRADE_LIMIT}, not {max_grade}")
    prefix = ctx.layout.cumsum(err_terms(ctx, max_grade))
    nq = ctx.labeled.num_queries
    queries = np.arange(nq)
    return [seg.take(prefix, ctx.offsets, queries, np.full(nq, k - 1)) for k in cutoffs]


def err_terms(ctx: Context, max_grade: int = MAX_GRADE) -> np.ndarray:
    """Each ranked document's term r * decay / rank, decay being the product of 1 - r above it."""
    grades = np.clip(ctx.labeled.values, 0, max_grade).astype(np.int32)
    r = (np.ldexp(1.0, grades) - 1.0) / np.ldexp(1.0, max_grade)
    survive = ctx.layout.cumprod(1.0 - r)  # prod of 1 - r down to and including each rank
    decay = np.ones(len(r))
    below_top = np.flatnonzero(ctx.position > 0)
    decay[below_top] = survive[below_top - 1]
    return r * decay / (ctx.position + 1)
