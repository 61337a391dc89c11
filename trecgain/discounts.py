"""Rank discounts for the DCG family: trec_eval's log2(rank + 1), other bases, and
Jarvelin and Kekalainen's original (no discount before rank b, then log_b(rank)).

Each discount is a table of divisors by 0-based position; DCG divides each gain by it, as
trec_eval does (a division, never a multiplication by a reciprocal)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .errors import TrecgainError

_LOGS = {"2": math.log2, "e": math.log, "10": math.log10}


@dataclass(frozen=True)
class Discount:
    """`log:B` (1/log_B(rank + 1)) or `jk:B` (1 before rank B, then 1/log_B(rank))."""

    kind: str  # "log" | "jk"
    base: str  # "2", "e", "10" or a number

    @property
    def text(self) -> str:
        return f"{self.kind}:{self.base}"

    def divisors(self, n: int) -> np.ndarray:
        """Divisor of the gain at positions 0..n-1 (rank = position + 1)."""
        size = 1 << max(4, (max(n, 1) - 1).bit_length())
        return _table(self.kind, self.base, size)[:n] if n else np.zeros(0)


TREC_EVAL = Discount("log", "2")


def parse_discount(text: str) -> Discount:
    """`log:2` (default), `log:e`, `log:10`, any `log:B` with B > 1, and `jk:B`."""
    kind, _, base = text.partition(":")
    base = base or "2"
    if kind not in ("log", "jk"):
        raise TrecgainError(f"discount '{text}': expected log:B or jk:B (for example log:2, log:e, jk:2)")
    if base not in _LOGS:
        try:
            value = float(base)
        except ValueError:
            value = math.nan
        if not (value > 1 and math.isfinite(value)):
            raise TrecgainError(f"discount '{text}': the base must be e or a number above 1")
    return Discount(kind, base)


@lru_cache(maxsize=16)
def _table(kind: str, base: str, size: int) -> np.ndarray:
    log = _LOGS.get(base) or (lambda x, b=float(base): math.log(x) / math.log(b))
    b = math.e if base == "e" else float(base)
    if kind == "log":
        return np.array([log(i + 2) for i in range(size)], dtype=np.float64)
    return np.array([1.0 if i + 1 < b else log(i + 1) for i in range(size)], dtype=np.float64)
