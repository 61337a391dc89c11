"""Gain tables and ideal rankings, exactly as trec_eval builds them.

A gain string `1=3.5,2=9` gives gains per relevance level; levels not named keep their
level as gain.  trec_eval sorts the table with glibc's merge sort and a comparator that
truncates the difference of two gains to int, so gains closer than 1 compare equal; the
ideal ranking walks the sorted table from the top.  With whole-number gains that
comparator is a proper order and the table never needs to be built level by level, so a
grade of 2,000,000,000 costs nothing.  Fractional gains take the exact merge sort.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .errors import TrecgainError
from .label import Labeled
from .segments import segment_ids

MAX_LEVELS_FRACTIONAL = 100_000


@dataclass(frozen=True)
class GainPair:
    level: int | None  # None: a name that is not an integer (ignored in compat 10)
    gain: float


@dataclass(frozen=True)
class GainSpec:
    """Gains per relevance level: `level=gain,...` pairs over a scheme for levels not named.

    Schemes: linear (gain = grade, trec_eval's), exp (2^grade - 1), binary (1 if grade >= -l)."""

    text: str
    pairs: tuple[GainPair, ...]
    scheme: str = "linear"
    exact_ideal: bool = False  # sort the table by true gain, not trec_eval's truncated comparison


SCHEMES = ("linear", "exp", "binary")
MAX_EXP_GRADE = 1023


def parse_global_gains(text: str, compat: str = "10") -> GainSpec:
    """--global-gains: a scheme name (linear, exp, binary) or a level=gain list."""
    if text in SCHEMES:
        return GainSpec(text, (), text)
    return parse_gain_spec(text, compat)


def scheme_gain(scheme: str, levels: np.ndarray, relevance_level: int) -> np.ndarray:
    """The gain a scheme gives each level (levels >= 0)."""
    levels = np.asarray(levels)
    if scheme == "exp":
        if len(levels) and levels.max() > MAX_EXP_GRADE:
            raise TrecgainError(f"grade {levels.max():g} is too large for exponential gains: 2^grade - 1 "
                                f"is infinite above grade {MAX_EXP_GRADE}")
        return np.exp2(levels.astype(np.float64)) - 1.0
    if scheme == "binary":
        return (levels >= relevance_level).astype(np.float64)
    return levels.astype(np.float64)


@dataclass
class Gains:
    """Per query, the gains a measure sees."""

    ranked: np.ndarray  # float64: gain of each ranked document
    ideal_offsets: np.ndarray  # int64 CSR over `ideal`
    ideal: np.ndarray  # float64: the positive gains of the ideal ranking, in order
    gate: np.ndarray  # float64 per query: gain of the table's top entry (no ideal if <= 0)
    stop: np.ndarray  # float64 per query: the gain the ideal walk ends on (<= 0)
    warnings: tuple[str, ...] = ()


def parse_gain_spec(text: str, compat: str) -> GainSpec:
    """`level=gain` pairs separated by commas; trec_eval's alternation rules, numbers checked."""
    last = ","
    for ch in text:
        if ch in ",=":
            if ch == last:
                last = ","
                break
            last = ch
    if last != "=":
        raise TrecgainError(f"malformed gain parameters '{text}': expected level=gain,level=gain,...")
    pairs = []
    for item in text.split(","):
        name, _, value = item.partition("=")
        pairs.append(GainPair(_level(name, compat), _gain_value(value, text)))
    return GainSpec(text, tuple(pairs))


def _level(name: str, compat: str) -> int | None:
    """trec_eval 10 ignores a name that is not an integer; 9.x reads it with atol."""
    body = name[1:] if name[:1] in "+-" else name
    if body.isdigit() and body.isascii():
        return int(name)
    return atol(name) if compat == "9" else None


def atol(text: str) -> int:
    """C's atol: leading spaces, a sign, digits; anything else ends the number (empty is 0)."""
    s = text.lstrip(" \t\n\v\f\r")
    sign = -1 if s[:1] == "-" else 1
    s = s[1:] if s[:1] in "+-" else s
    digits = ""
    for ch in s:
        if not ("0" <= ch <= "9"):
            break
        digits += ch
    return sign * int(digits) if digits else 0


def _gain_value(value: str, text: str) -> float:
    try:
        gain = float(value)
    except ValueError:
        gain = math.nan
    if not math.isfinite(gain) or "_" in value or not value.isascii():
        raise TrecgainError(f"gain '{value}' in '{text}' is not a number")
    return gain


# ---------------------------------------------------------------- one table


@dataclass
class _Table:
    """The sorted gain table for one number of relevance levels."""

    gate: float  # gain of the top entry (0.0 for an empty table)
    level_gain: dict[int, float]  # gain of each listed level (first entry in sorted order)
    holder: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]  # level -> (sort key, gain)
    warning: str | None = None  # set when trec_eval's sort leaves the ideal ranking out of order


def _table(spec: GainSpec, num_levels: int, relevance_level: int) -> _Table:
    listed = [(p.level, p.gain) for p in spec.pairs if p.level is not None]
    if spec.exact_ideal or all(float(g).is_integer() for _, g in listed):
        return _ordered_table(listed, num_levels, lambda v: scheme_gain(spec.scheme, v, relevance_level))
    if num_levels > MAX_LEVELS_FRACTIONAL:
        raise TrecgainError(
            f"fractional gains '{spec.text}' with grades up to {num_levels - 1}: trecgain builds such "
            f"tables only up to grade {MAX_LEVELS_FRACTIONAL - 1}")
    return _merge_sorted_table(listed, num_levels)


def _ordered_table(listed: list[tuple[int, float]], num_levels: int,
                   default: Callable[[np.ndarray], np.ndarray]) -> _Table:
    """A consistent order (whole-number gains, or --exact-ideal): a stable sort by gain, which is
    what glibc's merge sort gives; no entry per level needed.  `default` gives unnamed levels'
    gains and never decreases with the level."""
    first_listed: dict[int, int] = {}
    for i, (level, _) in enumerate(listed):
        first_listed.setdefault(level, i)
    level_gain: dict[int, float] = {}
    for i, (level, gain) in sorted(enumerate(listed), key=lambda e: (e[1][1], e[0])):
        level_gain.setdefault(level, gain)
    unlisted_top = num_levels - 1
    while unlisted_top in first_listed and unlisted_top >= 0:
        unlisted_top -= 1
    tops = [g for _, g in listed] + ([float(default(np.array([unlisted_top]))[0])] if unlisted_top >= 0 else [])

    def holder(levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        gains = default(levels)
        order = len(listed) + levels.astype(np.float64)
        for level, i in first_listed.items():
            hit = levels == level
            gains[hit] = listed[i][1]
            order[hit] = i
        return _rank_pairs(gains, order), gains

    return _Table(max(tops, default=0.0), level_gain, holder)


def _rank_pairs(gains: np.ndarray, order: np.ndarray) -> np.ndarray:
    """One float key that sorts like (gain, position in the unsorted table)."""
    combined = np.lexsort((order, gains))
    key = np.empty(len(gains), dtype=np.float64)
    key[combined] = np.arange(len(gains), dtype=np.float64)
    return key


def _merge_sorted_table(listed: list[tuple[int, float]], num_levels: int) -> _Table:
    """Fractional gains: build the whole table and sort it as glibc's qsort (merge sort) does."""
    named = {level for level, _ in listed}
    entries = [(level, gain, i) for i, (level, gain) in enumerate(listed)]
    entries += [(i, float(i), len(listed) + i) for i in range(num_levels) if i not in named]
    ordered = _glibc_msort(entries)
    position = {e[2]: p for p, e in enumerate(ordered)}
    level_gain: dict[int, float] = {}
    for level, gain, _ in ordered:
        level_gain.setdefault(level, gain)
    holders: dict[int, tuple[int, float]] = {}
    for level, gain, i in entries:  # the first entry of a level in table order holds its documents
        holders.setdefault(level, (position[i], gain))

    def holder(levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        found = [holders[int(v)] for v in levels]
        return (np.array([f[0] for f in found], dtype=np.float64),
                np.array([f[1] for f in found], dtype=np.float64))

    warning = None
    if [e[1] for e in ordered] != sorted(e[1] for e in entries):
        warning = (f"gains '{_pairs_text(listed)}' differ by less than 1, which trec_eval's sort treats as "
                   "equal: its ideal ranking is not ideal (use --exact-ideal to sort gains by value)")
    return _Table(ordered[-1][1] if ordered else 0.0, level_gain, holder, warning)


def _pairs_text(listed: list[tuple[int, float]]) -> str:
    return ",".join(f"{level}={gain:g}" for level, gain in listed)


def _glibc_msort(items: list) -> list:
    """glibc's msort: split at n/2, merge taking the left item while compare(left, right) <= 0."""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    left, right = _glibc_msort(items[:n1]), _glibc_msort(items[n1:])
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if _compare(left[i][1], right[j][1]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


INT_MIN = -(2**31)


def _compare(a: float, b: float) -> int:
    """trec_eval's comparator: the difference of two gains converted to int (toward zero).

    A difference outside int's range converts, on x86 (cvttsd2si), to INT_MIN."""
    diff = a - b
    if not (-2**31 < diff < 2**31):
        return INT_MIN
    return int(diff)


# ---------------------------------------------------------------- all queries


def compute_gains(labeled: Labeled, spec: GainSpec | None) -> Gains:
    """Gains of ranked documents and the ideal ranking of every query."""
    spec = spec or GainSpec("", ())
    if labeled.judged.dtype.kind == "f":
        return _fractional_gains(labeled, spec)
    nq = labeled.num_queries
    judged_query = segment_ids(labeled.judged_offsets)
    counts = np.diff(labeled.judged_offsets)
    starts = labeled.judged_offsets[:-1]
    num_levels = np.zeros(nq, dtype=np.int64)  # 1 + the highest judged grade (0 with none judged)
    num_levels[counts > 0] = labeled.judged[starts[counts > 0]] + 1
    doc_query = segment_ids(labeled.offsets)
    values = labeled.values
    doc_levels = num_levels[doc_query]
    inside = (values >= 0) & (values < doc_levels)
    ranked = np.where(inside, scheme_gain(spec.scheme, np.where(inside, values, 0), labeled.relevance_level), 0.0)

    # one row per (query, level with documents)
    new_row = np.concatenate(([True], (judged_query[1:] != judged_query[:-1])
                              | (labeled.judged[1:] != labeled.judged[:-1]))) if len(judged_query) else np.zeros(0, bool)
    heads = np.flatnonzero(new_row)
    row_query = judged_query[heads]
    row_level = labeled.judged[heads]
    row_count = np.diff(np.append(heads, len(judged_query)))
    row_key = np.zeros(len(heads), dtype=np.float64)
    row_gain = np.zeros(len(heads), dtype=np.float64)
    gate = np.zeros(nq, dtype=np.float64)

    listed_levels = sorted({p.level for p in spec.pairs if p.level is not None})
    warnings: list[str] = []
    for n in np.unique(num_levels):
        table = _table(spec, int(n), labeled.relevance_level)
        if table.warning and table.warning not in warnings:
            warnings.append(table.warning)
        queries = num_levels == n
        gate[queries] = table.gate
        rows = queries[row_query]
        if rows.any():
            row_key[rows], row_gain[rows] = table.holder(row_level[rows])
        docs = queries[doc_query]
        for level in listed_levels:
            hit = docs & (values == level)
            ranked[hit] = table.level_gain[level]

    order = np.lexsort((-row_key, row_query))
    row_query, row_gain, row_count = row_query[order], row_gain[order], row_count[order]
    ideal_offsets, ideal, stop = _walk(nq, row_query, row_gain, row_count, gate)
    return Gains(ranked, ideal_offsets, ideal, gate, stop, tuple(warnings))


def _fractional_gains(labeled: Labeled, spec: GainSpec) -> Gains:
    """--fractional-grades: the grade is the gain (linear), its exponent (exp), or compared with -l
    (binary); the ideal ranking sorts the judged documents by gain."""
    if spec.pairs:
        raise TrecgainError(f"gains '{spec.text}' name levels, which fractional grades do not have; "
                            "use --global-gains linear, exp or binary")
    level = labeled.relevance_level
    values = labeled.values
    ranked = np.where(values >= 0, scheme_gain(spec.scheme, np.maximum(values, 0), level), 0.0)
    judged = scheme_gain(spec.scheme, labeled.judged, level)  # grades descending: gains too
    query = segment_ids(labeled.judged_offsets)
    positive = judged > 0
    counts = np.bincount(query[positive], minlength=labeled.num_queries)
    gate = np.zeros(labeled.num_queries)
    has = np.diff(labeled.judged_offsets) > 0
    gate[has] = judged[labeled.judged_offsets[:-1][has]]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return Gains(ranked, offsets, judged[positive], gate, np.zeros(labeled.num_queries))


def _walk(nq: int, row_query: np.ndarray, row_gain: np.ndarray, row_count: np.ndarray,
          gate: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Take each level's documents from the top until a level whose gain is <= 0."""
    open_gate = gate[row_query] > 0
    non_positive = row_gain <= 0
    first_bad = np.full(nq, np.iinfo(np.int64).max)
    idx = np.arange(len(row_query))
    np.minimum.at(first_bad, row_query[non_positive], idx[non_positive])
    stop = np.zeros(nq, dtype=np.float64)
    has_bad = first_bad < len(row_query)
    stop[has_bad] = row_gain[first_bad[has_bad]]
    keep = open_gate & (idx < first_bad[row_query])
    per_query = np.bincount(row_query[keep], weights=row_count[keep], minlength=nq).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(per_query))).astype(np.int64)
    return offsets, np.repeat(row_gain[keep], row_count[keep]), stop
