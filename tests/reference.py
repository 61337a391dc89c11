"""A naive, slow, per-query reference of every trecgain measure and option: the oracle that
guards the engine (tests/test_reference.py compares the two).

Nothing here is shared with trecgain, and nothing is vectorised: each query is ranked,
labeled and measured on its own with plain loops that follow trec_eval's C code
(form_res_rels.c, gain_init.c, m_ndcg.c, m_ndcg_cut.c, m_ndcg_rel.c, m_Rndcg.c, m_G.c,
m_binG.c, trec_eval.c, meas_avg.c, m_num_rel.c) and, for trecgain's own measures and
options, its README.  Floating point operations keep trec_eval's order: terms are added
one by one in rank order, each gain is divided by its discount (never multiplied by a
reciprocal), log2 is the C library's (math.log2), and a mean is the per-query values
added in query order, then divided by the number of queries.  Where C gives inf or nan
(x / 0, log2 of 0 or less) so does this module, where Python would raise.

Input is already parsed: qrels {qid: {docno: grade}}, run {qid: {docno: score}} and the run
tag.  `evaluate` returns an Outcome with {qid: {line name: value}} and the `all` values,
named as trecgain names its output lines.
"""

from __future__ import annotations

import ast
import math
import re
import struct
from dataclasses import dataclass, field
from typing import Callable, Iterable

Grade = float  # an int, or with fractional grades any float
Qrels = dict[str, dict[str, Grade]]
Run = dict[str, dict[str, float]]
Value = float | int

NOT_IN_QRELS = -1  # relevance value of a ranked document the qrels do not list
UNJUDGED = -2  # relevance value of a ranked document listed with a negative grade
DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
ERR_DEFAULT_CUTOFFS = (5, 10, 20)
INT_MIN = -(2**31)


class Refused(Exception):
    """Input or options the reference refuses (trecgain raises TrecgainError for them)."""


# ---------------------------------------------------------------- C arithmetic


def c_div(a: float, b: float) -> float:
    """a / b as IEEE doubles divide: x / 0 is an infinity with the sign of x (and of 0), 0 / 0 is nan."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def c_log2(x: float) -> float:
    """The C library's log2: -inf at 0, nan below."""
    if x > 0:
        return math.log2(x)
    return -math.inf if x == 0 else math.nan


def to_float32(score: float) -> float:
    """The score stored in a C float (round to nearest even); beyond float32's range, +-inf."""
    try:
        return struct.unpack("f", struct.pack("f", score))[0]
    except OverflowError:
        return math.copysign(math.inf, score)


def c_int_difference(a: float, b: float) -> int:
    """trec_eval's gain comparator: (int) (a - b), truncating toward zero; a difference outside
    int's range (or nan) converts to INT_MIN on x86 (cvttsd2si)."""
    diff = a - b
    if -(2**31) < diff < 2**31:
        return int(diff)
    return INT_MIN


def atol(text: str) -> int:
    """C's atol: leading white space, an optional sign, digits up to the first non-digit; 0 if none."""
    match = re.match(r"[ \t\n\v\f\r]*([+-]?)([0-9]*)", text)
    assert match is not None
    digits = match.group(2)
    if not digits:
        return 0
    return -int(digits) if match.group(1) == "-" else int(digits)


def valid_int(text: str) -> bool:
    """trec_eval 10's valid_int: an optional sign and at least one digit, nothing else."""
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None


# ---------------------------------------------------------------- options


@dataclass(frozen=True)
class GainSpec:
    """Gains per relevance level: `level=gain` pairs in the order given (level None: a name that
    trec_eval 10 ignores), over a scheme for the levels not named (linear: gain = level)."""

    pairs: tuple[tuple[int | None, float], ...] = ()
    scheme: str = "linear"  # linear | exp | binary


@dataclass(frozen=True)
class Discount:
    """`log:B`: divide the gain at rank r by log_B(r + 1); `jk:B`: by 1 before rank B, then log_B(r)."""

    kind: str = "log"
    base: str = "2"

    def log(self, x: float) -> float:
        """log_B(x), with the C library's log2, log and log10 for bases 2, e and 10."""
        if self.base == "2":
            return math.log2(x)
        if self.base == "e":
            return math.log(x)
        if self.base == "10":
            return math.log10(x)
        return math.log(x) / math.log(float(self.base))

    def divisor(self, position: int) -> float:
        """What the gain at a 0-based position (rank = position + 1) is divided by."""
        rank = position + 1
        if self.kind == "log":
            return self.log(rank + 1)
        threshold = math.e if self.base == "e" else float(self.base)
        return 1.0 if rank < threshold else self.log(rank)


TREC_EVAL_DISCOUNT = Discount()


@dataclass(frozen=True)
class Options:
    """trec_eval's options (-l, -J, -c, -M, compat) and trecgain's own."""

    relevance_level: int = 1
    judged_only: bool = False
    complete: bool = False
    max_docs: int | None = None
    compat: str = "10"
    global_gains: GainSpec | None = None
    discount: Discount = TREC_EVAL_DISCOUNT
    exact_ideal: bool = False
    fractional_grades: bool = False
    err_max_grade: int = 4


def parse_gain_string(text: str, compat: str) -> GainSpec:
    """`level=gain,level=gain,...`; a level name that is not an integer is ignored in compat 10
    and read with atol (`x` is 0, `1a` is 1) in compat 9."""
    pairs = []
    for item in text.split(","):
        name, equals, value = item.partition("=")
        if not equals:
            raise Refused(f"malformed gain parameters '{text}'")
        if valid_int(name):
            level: int | None = int(name)
        else:
            level = atol(name) if compat == "9" else None
        pairs.append((level, float(value)))
    return GainSpec(tuple(pairs))


def parse_global_gains(text: str, compat: str) -> GainSpec:
    """--global-gains: `linear`, `exp`, `binary`, or a level=gain list over linear gains."""
    if text in ("linear", "exp", "binary"):
        return GainSpec((), text)
    return parse_gain_string(text, compat)


def parse_discount(text: str) -> Discount:
    """`log:B` or `jk:B` (B is 2 when left out)."""
    kind, _, base = text.partition(":")
    if kind not in ("log", "jk"):
        raise Refused(f"unknown discount '{text}'")
    return Discount(kind, base or "2")


def scheme_gain(scheme: str, level: Grade, relevance_level: int) -> float:
    """The gain a scheme gives a level: linear = level, exp = 2^level - 1, binary = level >= -l."""
    if scheme == "exp":
        return math.pow(2.0, level) - 1.0
    if scheme == "binary":
        return 1.0 if level >= relevance_level else 0.0
    return float(level)


# ---------------------------------------------------------------- ranking and labels


def key(identifier: str) -> bytes:
    """An identifier as the bytes trec_eval compares (UTF-8)."""
    return identifier.encode("utf-8", "surrogateescape")


def rank(scores: dict[str, float], compat: str, max_docs: int | None) -> list[bytes]:
    """Docnos by score descending, ties by docno descending in unsigned byte order (strcmp);
    compat 9 rounds each score to a float32 first; then the first max_docs are kept."""
    def stored(score: float) -> float:
        return to_float32(score) if compat == "9" else float(score)

    ordered = sorted(((stored(score), key(docno)) for docno, score in scores.items()), reverse=True)
    ranking = [docno for _, docno in ordered]
    return ranking if max_docs is None else ranking[:max_docs]


def relevance_values(ranking: list[bytes], judgments: dict[bytes, Grade]) -> list[Grade]:
    """Each ranked document's grade, NOT_IN_QRELS when the qrels do not list it, UNJUDGED when
    they list it with a negative grade."""
    values: list[Grade] = []
    for docno in ranking:
        if docno not in judgments:
            values.append(NOT_IN_QRELS)
        elif judgments[docno] < 0:
            values.append(UNJUDGED)
        else:
            values.append(judgments[docno])
    return values


@dataclass
class Query:
    """One evaluated query: the relevance value of each ranked document in rank order, and the
    grades >= 0 of all its judged documents (retrieved or not)."""

    qid: str
    values: list[Grade]
    judged: list[Grade]
    relevance_level: int
    in_run: bool = True
    stand_in: bool = False  # ranked as trec_eval 10 ranks a query only -c brings in

    def only_judged(self) -> "Query":
        """-J: the ranking without the documents that are not judged (value < 0), ranks closed up."""
        return Query(self.qid, [v for v in self.values if v >= 0], self.judged, self.relevance_level, self.in_run,
                     self.stand_in)

    @property
    def num_rel(self) -> int:
        return sum(1 for grade in self.judged if grade >= self.relevance_level)


# ---------------------------------------------------------------- gain tables


@dataclass
class Level:
    """One entry of trec_eval's gain table (REL_GAIN): a level, its gain, its judged documents."""

    level: Grade
    gain: float
    count: int


def glibc_msort(items: list[Level], compare: Callable[[Level, Level], int]) -> list[Level]:
    """glibc's qsort for small arrays (msort_with_tmp): split at n/2, sort both halves, merge
    taking from the left half while compare(left, right) <= 0."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = glibc_msort(items[:half], compare), glibc_msort(items[half:], compare)
    merged = []
    while left and right:
        if compare(left[0], right[0]) <= 0:
            merged.append(left.pop(0))
        else:
            merged.append(right.pop(0))
    return merged + left + right


def trec_eval_compare(a: Level, b: Level) -> int:
    """comp_rel_gain: the difference of the gains converted to int."""
    return c_int_difference(a.gain, b.gain)


def sort_table(table: list[Level], exact: bool) -> list[Level]:
    """Ascending gain: trec_eval's qsort, or with --exact-ideal a stable sort by true value."""
    if exact:
        return sorted(table, key=lambda entry: entry.gain)
    return glibc_msort(table, trec_eval_compare)


def level_counts(judged: list[Grade]) -> dict[Grade, int]:
    counts: dict[Grade, int] = {}
    for grade in judged:
        counts[grade] = counts.get(grade, 0) + 1
    return counts


def gain_table(judged: list[Grade], spec: GainSpec, relevance_level: int, exact: bool) -> list[Level]:
    """trec_eval's setup_gains: first the named pairs in the order given (each level's documents
    counted at its first pair), then every level 0 .. highest judged grade not named, with its
    scheme gain; sorted by gain."""
    counts = level_counts(judged)
    num_levels = int(max(judged)) + 1 if judged else 0
    table = [Level(level, gain, 0) for level, gain in spec.pairs if level is not None]
    for level in range(num_levels):
        named = next((entry for entry in table if entry.level == level), None)
        if named is not None:
            named.count = counts.get(level, 0)
        else:
            table.append(Level(level, scheme_gain(spec.scheme, level, relevance_level), counts.get(level, 0)))
    return sort_table(table, exact)


def fractional_table(judged: list[Grade], spec: GainSpec, relevance_level: int) -> list[Level]:
    """--fractional-grades: one entry per judged grade, gain from the scheme, sorted by gain;
    gain strings name integer levels and are refused."""
    if spec.pairs:
        raise Refused("gain strings name levels, which fractional grades do not have")
    counts = level_counts(judged)
    table = [Level(grade, scheme_gain(spec.scheme, grade, relevance_level), n) for grade, n in sorted(counts.items())]
    return sort_table(table, exact=True)


def get_gain(table: list[Level], value: Grade) -> float:
    """trec_eval's get_gain: the gain of the first entry (in sorted order) for this level, else 0."""
    for entry in table:
        if entry.level == value:
            return entry.gain
    return 0.0


@dataclass
class Ideal:
    """trec_eval's ideal ranking: `gate` is the gain of the table's top entry (no ideal ranking
    at all unless it is positive), `gains` the positive gains in ideal order, `stop` the gain
    of the step that ended the walk (0.0 when the table ran out)."""

    gate: float
    gains: list[float]
    stop: float


def ideal_walk(table: list[Level]) -> Ideal:
    """Walk the sorted table from the top, one ideal rank at a time: take the current entry's
    documents, skipping entries whose documents are used up (or that have none), until the
    entry reached has a gain <= 0 or the table runs out."""
    current = len(table) - 1
    gate = table[current].gain if current >= 0 else 0.0
    gain = gate
    taken = 0
    gains: list[float] = []
    while gain > 0:
        taken += 1
        while current >= 0 and taken > table[current].count:
            taken = 1
            current -= 1
            gain = table[current].gain if current >= 0 else 0.0
        if gain > 0:
            gains.append(gain)
    return Ideal(gate, gains, gain)


@dataclass
class Gains:
    """What the gain measures see of one query under one gain table."""

    ranked: list[float]  # the gain of each ranked document, rank order
    ideal: Ideal


def query_gains(query: Query, spec: GainSpec, options: Options) -> Gains:
    """The gain table of one query (trec_eval's, or the fractional one), applied to its ranking."""
    if options.fractional_grades:
        table = fractional_table(query.judged, spec, query.relevance_level)
    else:
        table = gain_table(query.judged, spec, query.relevance_level, options.exact_ideal)
    return Gains([get_gain(table, value) for value in query.values], ideal_walk(table))


# ---------------------------------------------------------------- measures


def num_ret(query: Query) -> int:
    """Documents ranked (after -M and -J)."""
    return len(query.values)


def num_rel(query: Query) -> int:
    """Judged documents (grade >= 0) with grade >= -l, retrieved or not."""
    return query.num_rel


def num_rel_ret(query: Query) -> int:
    """Ranked judged documents with grade >= -l."""
    return sum(1 for v in query.values if v >= 0 and v >= query.relevance_level)


def bin_g(query: Query) -> float:
    """binG: each ranked document with value >= -l adds 1 / log2(3 + i - relevant so far,
    itself included), i its 0-based position; the sum is divided by num_rel; 0 if none ranked."""
    found = 0
    total = 0.0
    for i, value in enumerate(query.values):
        if value >= query.relevance_level:
            found += 1
            total += 1.0 / math.log2(3 + i - found)
    return c_div(total, float(query.num_rel)) if found else 0.0


def dcg(gains: Gains, discount: Discount) -> float:
    """Each ranked document's nonzero gain divided by its discount, added in rank order."""
    total = 0.0
    for i, gain in enumerate(gains.ranked):
        if gain != 0:
            total += gain / discount.divisor(i)
    return total


def ideal_dcg(gains: Gains, discount: Discount) -> float:
    """DCG of the ideal ranking (the positive gains of the ideal walk)."""
    total = 0.0
    for i, gain in enumerate(gains.ideal.gains):
        total += gain / discount.divisor(i)
    return total


def ndcg(gains: Gains, discount: Discount) -> float:
    """DCG / ideal DCG over the whole rankings; 0 unless the ideal DCG is positive."""
    ideal = ideal_dcg(gains, discount)
    return dcg(gains, discount) / ideal if ideal > 0 else 0.0


def ndcg_rel(gains: Gains, discount: Discount) -> float:
    """At each ranked document with positive gain add DCG / ideal DCG so far (the ideal stops
    growing where it ends); each ideal position not matched by such a document adds the final
    DCG / final ideal DCG; divide by the number of ideal positions; 0 unless the sum is positive."""
    ideal = gains.ideal.gains
    total = 0.0
    found = 0
    actual = best = 0.0
    for i, gain in enumerate(gains.ranked):
        if gain != 0:
            actual += gain / discount.divisor(i)
        if i < len(ideal):
            best += ideal[i] / discount.divisor(i)
        if gain > 0:
            total += c_div(actual, best)
            found += 1
    for i in range(len(gains.ranked), len(ideal)):
        best += ideal[i] / discount.divisor(i)
    total += c_div(float(len(ideal) - found) * actual, best)
    return c_div(total, float(len(ideal))) if total > 0 else 0.0


def rndcg(query: Query, gains: Gains, discount: Discount) -> float:
    """nDCG averaged over the points where the ideal gain changes (the DCG and ideal DCG before
    that rank, when the ideal DCG is positive), plus one point at the end of a ranking that
    outlasts the ideal walk by more than one rank; 0 when num_rel is 0, 0/0 (nan) when no
    point counts.  trec_eval's m_Rndcg.c loop by loop."""
    if query.num_rel == 0:
        return 0.0
    ideal, ranked = gains.ideal, gains.ranked
    steps = ideal.gains + [ideal.stop]  # the ideal gain at each rank the walk reaches
    total = 0.0
    points = 0
    actual = best = 0.0
    current = previous = ideal.gate
    i = 0
    while i < len(ranked) and current > 0:
        current = steps[i]
        if current != previous:
            if best > 0:
                total += actual / best
                points += 1
            previous = current
        if ranked[i] != 0:
            actual += ranked[i] / discount.divisor(i)
        if current > 0:
            best += current / discount.divisor(i)
        i += 1
    if i < len(ranked):
        for j in range(i, len(ranked)):
            if ranked[j] != 0:
                actual += ranked[j] / discount.divisor(j)
        if best > 0:
            total += actual / best
            points += 1
    while current > 0:
        current = steps[i]
        if current != previous:
            if best > 0:
                total += actual / best
                points += 1
            previous = current
        if current > 0:
            best += current / discount.divisor(i)
        i += 1
    return c_div(total, float(points))


def g_measure(gains: Gains) -> float:
    """trec_eval's G: at rank i add gain / log2(2 + sum_cost - sum_results), sum_results the
    gains ranked so far (this one included), sum_cost adding the ideal gain at i if it is >= 1,
    else 1; divided by the total ideal gain, 0 unless that is positive."""
    ideal = gains.ideal.gains
    results_g = sum_results = sum_cost = 0.0
    for i, gain in enumerate(gains.ranked):
        sum_results += gain
        ideal_gain = ideal[i] if i < len(ideal) else 0.0
        sum_cost += ideal_gain if ideal_gain >= 1.0 else 1.0
        if gain != 0:
            results_g += c_div(gain, c_log2((2 + sum_cost) - sum_results))
    sum_ideal = 0.0
    for gain in ideal:
        sum_ideal += gain
    return c_div(results_g, sum_ideal) if sum_ideal > 0 else 0.0


def dcg_at(gains: list[Grade], k: int, discount: Discount) -> float:
    """Discounted nonzero gains of the first k ranks, in rank order."""
    total = 0.0
    for i, gain in enumerate(gains[:k]):
        if gain != 0:
            total += gain / discount.divisor(i)
    return total


def ndcg_cut_trec_eval(query: Query, cutoffs: tuple[int, ...], discount: Discount) -> list[float]:
    """trec_eval's ndcg_cut: the positive grades are the gains (gain strings do not apply);
    DCG@k over the first k ranks, ideal DCG@k over the first k of all judged positive grades
    sorted descending; DCG@k itself when the ideal is 0."""
    grades = [v if v > 0 else 0 for v in query.values]
    ideal = sorted((g for g in query.judged if g > 0), reverse=True)
    values = []
    for k in cutoffs:
        actual, best = dcg_at(grades, k, discount), dcg_at(ideal, k, discount)
        values.append(actual / best if best > 0 else actual)
    return values


def ndcg_cut_gains(gains: Gains, cutoffs: tuple[int, ...], discount: Discount) -> list[float]:
    """ndcg_cut with a gain table (--global-gains, --exact-ideal, fractional grades, ir_measures
    gains): DCG@k / ideal DCG@k, 0 unless the ideal is positive."""
    values = []
    for k in cutoffs:
        actual, best = dcg_at(gains.ranked, k, discount), dcg_at(gains.ideal.gains, k, discount)
        values.append(actual / best if best > 0 else 0.0)
    return values


def cg_cut(gains: Gains, cutoffs: tuple[int, ...]) -> list[float]:
    """Cumulative gain at k: the gains of the first k ranks added up, undiscounted."""
    values = []
    for k in cutoffs:
        total = 0.0
        for gain in gains.ranked[:k]:
            total += gain
        values.append(total)
    return values


def err_cut(query: Query, cutoffs: tuple[int, ...], max_grade: int) -> list[float]:
    """gdeval's ERR@k: r = (2^g - 1) / 2^max_grade with g the grade clipped to [0, max_grade]
    (unjudged: 0); score += r * decay / rank, then decay *= 1 - r, over the first k ranks."""
    values = []
    for k in cutoffs:
        score, decay = 0.0, 1.0
        for i, value in enumerate(query.values[:k]):
            grade = min(max(value, 0), max_grade)
            r = (math.pow(2.0, grade) - 1.0) / math.pow(2.0, max_grade)
            score += r * decay / (i + 1)
            decay *= 1.0 - r
        values.append(score)
    return values


# ---------------------------------------------------------------- measure names


@dataclass
class Request:
    """One measure asked for: its registry name, parameters, output line names, and the
    per-measure options of ir_measures names."""

    measure: str
    params: GainSpec | tuple[int, ...] | None
    lines: list[str]
    text: str | None = None  # the parameter text (first given wins)
    gains: GainSpec | None = None
    judged_only: bool = False


REGISTRY = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "binG", "G", "dcg", "ideal_dcg", "ndcg",
            "ndcg_rel", "Rndcg", "ndcg_cut", "err_cut", "ndcg_p", "cg_cut")
TREC_EVAL_MEASURES = REGISTRY[:13]  # the `gain` nickname
GAIN_STRING_MEASURES = ("G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg")
CUTOFF_MEASURES = {"ndcg_cut": DEFAULT_CUTOFFS, "err_cut": ERR_DEFAULT_CUTOFFS, "cg_cut": DEFAULT_CUTOFFS}
IR_MEASURES = re.compile(r"(?P<name>nDCG|ndcg|ERR|err)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[0-9]+))?")


def parse_cutoffs(text: str) -> tuple[int, ...]:
    """Comma-separated cutoffs read with atol (`2.5` is 2), sorted; positive and distinct."""
    cutoffs = sorted(atol(item) for item in text.split(","))
    if cutoffs[0] <= 0 or len(set(cutoffs)) != len(cutoffs):
        raise Refused(f"bad cutoffs '{text}'")
    return tuple(cutoffs)


def line_names(measure: str, params: object, text: str | None) -> list[str]:
    """`ndcg_cut_10` per cutoff, `ndcg_1=2` with a gain string (its text as given), else the name."""
    if measure in CUTOFF_MEASURES:
        return [f"{measure}_{k}" for k in params]  # type: ignore[union-attr]
    return [f"{measure}_{text}"] if text is not None else [measure]


def ir_parameters(text: str) -> dict[str, object]:
    """`name=literal, ...` to a dict (literals only)."""
    call = ast.parse(f"f({text})", mode="eval").body
    assert isinstance(call, ast.Call)
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg is not None}


def parse_ir_measure(spec: str) -> Request:
    """`nDCG@k`, `nDCG`, `ERR@k` with parameters dcg='log2'|'exp-log2', gains={grade: gain},
    judged_only=True|False; the line is named as written."""
    match = IR_MEASURES.fullmatch(spec)
    if match is None:
        raise Refused(f"unknown measure '{spec}'")
    cutoff = match["cutoff"]
    if match["name"].lower() == "err":
        if cutoff is None:
            raise Refused(f"'{spec}' needs a cutoff")
        measure, params = "err_cut", (int(cutoff),)
    else:
        measure, params = ("ndcg_cut", (int(cutoff),)) if cutoff else ("ndcg", None)
    values = ir_parameters(match["params"] or "")
    scheme = "exp" if values.get("dcg") == "exp-log2" else "linear"
    gains = None
    if "gains" in values:
        gains = GainSpec(tuple((int(k), float(v)) for k, v in values["gains"].items()), scheme)
    elif scheme == "exp":
        gains = GainSpec((), "exp")
    return Request(measure, params, [spec], None, gains, bool(values.get("judged_only", False)))


def parse_measures(specs: Iterable[str], compat: str) -> list[Request]:
    """-m arguments to requests in registry order; a measure named twice keeps the first
    parameters given (a later parameter list replaces the defaults of an earlier bare name)."""
    chosen: dict[str, Request] = {}
    for spec in specs:
        if "@" in spec or "(" in spec or spec in ("nDCG", "ERR", "err"):
            chosen.setdefault(spec, parse_ir_measure(spec))
            continue
        name, dot, text = spec.partition(".")
        names = TREC_EVAL_MEASURES if name == "gain" else (name,)
        for measure in names:
            if measure not in REGISTRY:
                raise Refused(f"unknown measure '{measure}'")
            if not dot:
                chosen.setdefault(measure, Request(measure, CUTOFF_MEASURES.get(measure), []))
                continue
            if measure in chosen and chosen[measure].text is not None:
                continue
            if measure in CUTOFF_MEASURES:
                params: GainSpec | tuple[int, ...] = parse_cutoffs(text)
            elif measure in GAIN_STRING_MEASURES:
                params = parse_gain_string(text, compat)
            else:
                raise Refused(f"'{measure}' takes no parameters")
            chosen[measure] = Request(measure, params, [], text)
    ordered = sorted(chosen.values(), key=lambda r: REGISTRY.index(r.measure))
    for request in ordered:
        request.lines = request.lines or line_names(request.measure, request.params, request.text)
    return ordered


# ---------------------------------------------------------------- one query


def gain_spec(request: Request, options: Options) -> GainSpec | None:
    """The gains a measure uses: its own gain string, else its ir_measures gains, else
    --global-gains; None when none applies (trec_eval's gain = grade)."""
    own = request.params if isinstance(request.params, GainSpec) else None
    return own or request.gains or options.global_gains


def cutoff_values(query: Query, request: Request, options: Options) -> list[float]:
    """ndcg_cut, cg_cut and err_cut: one value per cutoff."""
    cutoffs: tuple[int, ...] = request.params  # type: ignore[assignment]
    if request.measure == "err_cut":
        return err_cut(query, cutoffs, options.err_max_grade)
    spec = gain_spec(request, options)
    trec_eval_gains = spec is None and not options.exact_ideal and not options.fractional_grades
    if request.measure == "ndcg_cut" and trec_eval_gains:
        return ndcg_cut_trec_eval(query, cutoffs, options.discount)
    gains = query_gains(query, spec or GainSpec(), options)
    if request.measure == "cg_cut":
        return cg_cut(gains, cutoffs)
    return ndcg_cut_gains(gains, cutoffs, options.discount)


def gain_value(query: Query, request: Request, options: Options) -> float:
    """G, dcg, ideal_dcg, ndcg, ndcg_rel, Rndcg and ndcg_p (always exponential gains)."""
    spec = GainSpec((), "exp") if request.measure == "ndcg_p" else gain_spec(request, options)
    gains = query_gains(query, spec or GainSpec(), options)
    d = options.discount
    if request.measure == "G":
        return g_measure(gains)
    if request.measure == "dcg":
        return dcg(gains, d)
    if request.measure == "ideal_dcg":
        return ideal_dcg(gains, d)
    if request.measure in ("ndcg", "ndcg_p"):
        return ndcg(gains, d)
    if request.measure == "ndcg_rel":
        return ndcg_rel(gains, d)
    assert request.measure == "Rndcg", request.measure
    return rndcg(query, gains, d)


COUNTS: dict[str, Callable[[Query], Value]] = {"num_ret": num_ret, "num_rel": num_rel, "num_rel_ret": num_rel_ret,
                                               "binG": bin_g}


def measure_query(query: Query, request: Request, options: Options) -> list[Value]:
    """The values of one request's lines for one query (-J, or judged_only=, first)."""
    if request.judged_only or options.judged_only:
        query = query.only_judged()
    if request.measure == "num_ret" and query.stand_in:
        return [0]  # trec_eval 10 resets it after measuring the stand-in
    if request.measure in COUNTS:
        return [COUNTS[request.measure](query)]
    if request.measure in CUTOFF_MEASURES:
        return cutoff_values(query, request, options)  # type: ignore[return-value]
    return [gain_value(query, request, options)]


# ---------------------------------------------------------------- all queries


@dataclass
class Outcome:
    """Per-query values {qid: {line: value}} (queries in qrels byte order, lines in registry
    order), the `all` values, and which lines each query prints with -q (with -c, 9.x prints
    none for a query the run lacks)."""

    per_query: dict[str, dict[str, Value]]
    aggregate: dict[str, Value | str]
    lines: list[str]
    printed: dict[str, list[str]] = field(default_factory=dict)


STAND_IN = "ceci_nest_pas_un_docno"


def follows_10(options: Options, request: Request) -> bool:
    """Whether -c follows trec_eval 10 for a measure: compat 10, or dcg / ideal_dcg, which 9.x
    lacks (10.0 on float32 scores).  Every other measure keeps 9.x's rules in compat 9, whatever
    is measured beside it: a query only -c brings in is not evaluated, adds nothing, prints no line."""
    return options.compat == "10" or request.measure in ("dcg", "ideal_dcg")


def evaluated_queries(judgments: dict[bytes, dict[bytes, Grade]], rankings: dict[bytes, dict[str, float]],
                      options: Options, requests: list[Request]) -> list[bytes]:
    """The qrels queries the run has, in byte order; with -c every qrels query.  No query in
    both files is an error, except with -c where trec_eval 10 is followed."""
    shared = sorted(q for q in judgments if q in rankings)
    if not shared and not (options.complete and any(follows_10(options, r) for r in requests)):
        raise Refused("no query has both results and judgments")
    return sorted(judgments) if options.complete else shared


def mean(values: list[Value]) -> float:
    """Added in query order, then divided by the number of queries."""
    total = 0.0
    for value in values:
        total += value
    return total / len(values) if values else 0.0


def summarize(request: Request, column: list[Value], judgments: dict[bytes, dict[bytes, Grade]],
              options: Options) -> Value:
    """The `all` value: sums for num_ret, num_rel and num_rel_ret (with -c, num_rel counts every
    judgment of the qrels with grade > 0, as trec_eval does), otherwise the mean."""
    if request.measure == "num_rel" and options.complete:
        return sum(1 for docs in judgments.values() for grade in docs.values() if grade > 0)
    if request.measure in ("num_ret", "num_rel", "num_rel_ret"):
        return sum(column)  # type: ignore[arg-type]
    return mean(column)


def check_grades(qrels: Qrels, fractional: bool) -> None:
    for docs in qrels.values():
        for grade in docs.values():
            if isinstance(grade, bool) or not isinstance(grade, (int, float)):
                raise Refused(f"grade {grade!r} is not a number")
            if not fractional and not isinstance(grade, int):
                raise Refused(f"grade {grade!r} is not an integer")


def make_options(relevance_level: int = 1, judged_only: bool = False, complete: bool = False,
                 max_docs: int | None = None, compat: str = "10", global_gains: str | None = None,
                 discount: str = "log:2", exact_ideal: bool = False, fractional_grades: bool = False,
                 err_max_grade: int = 4) -> Options:
    """Options from trecgain's Evaluator keywords."""
    return Options(relevance_level, judged_only, complete, max_docs, str(compat),
                   parse_global_gains(global_gains, str(compat)) if global_gains else None,
                   parse_discount(discount), exact_ideal, fractional_grades, err_max_grade)


def evaluate(qrels: Qrels, run: Run, measures: Iterable[str] = ("gain",), tag: str = "unknown",
             **keywords: object) -> Outcome:
    """Evaluate a run as trecgain's Evaluator(qrels, measures, **keywords).evaluate(run) does."""
    options = make_options(**keywords)  # type: ignore[arg-type]
    requests = parse_measures([measures] if isinstance(measures, str) else measures, options.compat)
    check_grades(qrels, options.fractional_grades)
    judgments = {key(q): {key(d): g for d, g in docs.items()} for q, docs in qrels.items() if docs}
    if not judgments:
        raise Refused("no judgments")
    rankings = {key(q): docs for q, docs in run.items()}
    if not rankings:
        raise Refused("no results")
    qids = evaluated_queries(judgments, rankings, options, requests)
    def query(qid: bytes, stand_in: bool) -> Query:
        # trec_eval 10 measures a query only -c brings in on one document of score 1.0, looked up
        # in the qrels like any other
        ranking = rank({STAND_IN: 1.0} if stand_in else rankings.get(qid, {}), options.compat, options.max_docs)
        judged = [g for g in judgments[qid].values() if g >= 0]
        return Query(qid.decode("utf-8", "surrogateescape"), relevance_values(ranking, judgments[qid]),
                     judged, options.relevance_level, qid in rankings, stand_in)

    # per query, as measures under 10.0's rules and under 9.x's see it
    queries = [(query(qid, qid not in rankings), query(qid, False)) for qid in qids]
    columns: dict[str, list[Value]] = {}
    nine_lines: set[str] = set()
    for request in requests:
        if request.measure in ("runid", "num_q"):
            continue
        ten = follows_10(options, request)
        per_request = [measure_query(q[0] if ten else q[1], request, options) for q in queries]
        for j, line in enumerate(request.lines):
            columns[line] = [values[j] for values in per_request]
            if not ten:
                nine_lines.add(line)
    per_query = {q[1].qid: {line: column[i] for line, column in columns.items()} for i, q in enumerate(queries)}

    def nothing(value: Value) -> Value:
        return value if isinstance(value, str) else type(value)(0)

    # 9.x never evaluates a query only -c brings in: it adds nothing to the sums, whatever its
    # empty ranking would score (Rndcg's 0/0, for one), and counts in the divisor
    absent = [not q[1].in_run for q in queries]
    columns = {line: [nothing(v) if out and line in nine_lines else v for v, out in zip(column, absent)]
               for line, column in columns.items()}
    aggregate: dict[str, Value | str] = {}
    for request in requests:
        for line in request.lines:
            if request.measure == "runid":
                aggregate[line] = tag
            elif request.measure == "num_q":
                aggregate[line] = len(queries)
            else:
                aggregate[line] = summarize(request, columns[line], judgments, options)
    lines = [line for request in requests for line in request.lines]
    printed = {q[1].qid: [line for line in lines if q[1].in_run or line not in nine_lines] for q in queries}
    return Outcome(per_query, aggregate, lines, printed)
