"""Rank discounts for the DCG family, parsed for the core: trec_eval's log2(rank + 1), other
bases, and Jarvelin and Kekalainen's original (no discount before rank b, then log_b(rank)).
The divisors themselves are computed in the core (core/src/options.rs, `Discount`)."""

from __future__ import annotations

import math
from .errors import TrecgainError
from .record import Record

_NAMED_BASES = ("2", "e", "10")


class Discount(Record):
    """`log:B` (1/log_B(rank + 1)) or `jk:B` (1 before rank B, then 1/log_B(rank))."""

    __slots__ = ("kind", "base")  # "log" | "jk"; "2", "e", "10" or a number

    @property
    def text(self) -> str:
        return f"{self.kind}:{self.base}"


TREC_EVAL = Discount("log", "2")


def parse_discount(text: str) -> Discount:
    """`log:2` (default), `log:e`, `log:10`, any `log:B` with B > 1, and `jk:B`."""
    kind, _, base = text.partition(":")
    base = base or "2"
    if kind not in ("log", "jk"):
        raise TrecgainError(f"discount '{text}': expected log:B or jk:B (for example log:2, log:e, jk:2)")
    if base not in _NAMED_BASES:
        try:  # as the core reads it: ASCII, no spaces or underscores
            value = float(base) if base.isascii() and base.strip() == base and "_" not in base else math.nan
        except ValueError:
            value = math.nan
        if not (value > 1 and math.isfinite(value)):
            raise TrecgainError(f"discount '{text}': the base must be e or a number above 1")
    return Discount(kind, base)
