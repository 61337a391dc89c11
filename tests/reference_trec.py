"""A naive, slow, per-query reference of trec_eval's whole `all_trec` measure set, printing
exactly what trec_eval prints (10.0 by default, 9.x with compat "9"): the oracle for a
complete drop-in replacement (tests/test_reference_trec.py checks it against the recorded
transcripts of the conformance corpus, group f, byte for byte in both modes, and against
pytrec_eval query by query).

The measures written here are the ones tests/reference.py does not have: map, gm_map, Rprec,
bpref, recip_rank, iprec_at_recall, P, relstring, recall, infAP, gm_bpref, Rprec_mult,
utility, 11pt_avg, map_cut, relative_P, success, set_P, set_relative_P, set_recall,
set_map, set_F, num_nonrel_judged_ret and (10.0 only) rbp, rbp_resid and unj.  The gain
measures (binG, G, dcg, ideal_dcg, ndcg, ndcg_rel, Rndcg, ndcg_cut) and the ranking, the
relevance labels and the float32 rounding of compat 9 come from tests/reference.py, whose
functions are called, never changed.  Nothing here imports trecgain.

Each measure is a plain loop over one query's relevance values in rank order, written from
the descriptions in trec_eval's m_*.c (not copied from them) but keeping their floating
point operations in the same order: terms added in rank order, every ratio a division of
two doubles (never a multiplication by a reciprocal), a mean is the per-query values added
in query order and then divided by the number of queries, a geometric mean is the exp of
the mean of the per-query logs.

What the two versions do differently, and what trecgain does differently from both:

* iprec_at_recall and 11pt_avg turn a recall level p into a number of relevant documents:
  10.0 with lround(p * R) (halves away from zero), 9.x with (long) (p * R + 0.9).
* 10.0's all_trec adds unj, rbp and rbp_resid (9.x has none of them).  When one of them, or
  dcg or ideal_dcg, is named, compat 9 is trec_eval 10.0 on float32-rounded scores (its
  nicknames, recall rounding and -c included), the rule tests/reference.py follows for dcg.
* -c: 10.0 evaluates a qrels query the run lacks on a stand-in ranking of one document,
  "ceci_nest_pas_un_docno" with score 1.0 (looked up in the qrels like any other), then
  sets num_ret, utility, relstring (the lines of exactly those names), every line whose name
  starts with "unj", and rbp_resid to zero or empty; with -q it prints the query's lines.
  9.x evaluates only the queries the run has and divides the sums by the number of qrels
  queries (a geometric mean adds log(0.00001) for each query it did not evaluate).  Either
  way num_q is the number of qrels queries and the `all` num_rel counts every judgment of
  the qrels with grade > 0, whatever -l is.
* Without -c, a qrels query the run lacks is skipped (trecgain's rule; 10.0 itself exits 4),
  and no query in both files is an error; with -c that is an error in 9.x only.
* A query whose judgments are all negative is evaluated as one with nothing judged.
* rbp's gains are the grades (or the integer-named pairs of its parameters, whatever -l is),
  rescaled to (g - min) / (max - min) when min < 0 or max > 1, min and max running over the
  gain table.  trec_eval 10.0 never initialises min and max (m_rbp.c), so a build prints
  whatever its registers held; trec_eval's own test transcripts, and a 10.0 built with both
  initialised (the build that recorded the corpus's all_trec cases), take the table's real
  minimum and maximum, as this module does.

Smaller rules, all from trec_eval's code: a measure's parameters come from the first -m
naming it with parameters, whatever the order (`-m all_trec -m P.5` prints P_5 only), and a
measure that takes none ignores them (`map.5` prints map); cutoff lists are read with atol
(sorted; a cutoff below 1 or a duplicate is refused), recall levels and R multiples with atof
(sorted, duplicates refused) and named `%3.2f` (iprec_at_recall_0.25), utility, 11pt_avg,
relstring and set_F keep their list in the order given under the name `measure_<text>`
(11pt_avg_0.8,0.2: its levels unsorted, which changes which precision each gets), rbp and
rbp_resid take `name=value` pairs (`rbp_p=0.8`; a pair with an integer name sets that
grade's gain).  gm_map, gm_bpref, runid and num_q print no per-query lines, relstring no
`all` line.  Counts print as %ld and their `all` is the sum; every other `all` is the mean.
iprec_at_recall (the level 0 at least) and 11pt_avg are 0/0, printed `-nan`, for a query
with nothing ranked (-J, -M 0, or 10.0's -c stand-in under -J).

Where trec_eval itself crashes or fails, the module answers as trecgain's README says
(or, where it says nothing, with the value the code would compute without the fault): a
query of the run judged only negatively, relstring with parameters under -c (10.0 frees a
string it did not allocate), -c with -M 0 (10.0 segfaults).  -D, -Z, -R and -T are not
modelled; -N (num_docs) only enters utility.

Input is already parsed: qrels {qid: {docno: grade}}, run {qid: {docno: score}}, the run tag.
`trec_eval_output` returns the text trec_eval prints; `evaluate_trec` returns the values.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import reference
from reference import NOT_IN_QRELS, UNJUDGED, Refused

MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001
BOGUS_DOCNO = "ceci_nest_pas_un_docno"  # 10.0's stand-in ranking for a query the run lacks (-c)
LONG_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


# ---------------------------------------------------------------- the measures trec_eval has


@dataclass(frozen=True)
class Kind:
    """How a measure takes parameters, names its lines, prints and averages.

    params: none | long_cutoffs | double_cutoffs | doubles | pairs | gain (tests/reference.py's)
    value: long (printed %ld) | double (%6.4f) | string (relstring)
    average: sum | mean | geometric | none | runid | num_q | num_rel
    """

    params: str
    default: tuple = ()
    value: str = "double"
    average: str = "mean"
    per_query: bool = True


LONG = Kind("none", value="long", average="sum")
DOUBLE = Kind("none")
GEOMETRIC = Kind("none", average="geometric", per_query=False)
GAIN = Kind("gain")

# trec_eval 10.0's te_trec_measures, in its order, without the measures that need other input
# formats (prefs_*, *_avgjg, yaap): measures are computed and printed in this order.
MEASURES: dict[str, Kind] = {
    "runid": Kind("none", value="string", average="runid", per_query=False),
    "num_q": Kind("none", value="long", average="num_q", per_query=False),
    "num_ret": LONG,
    "num_rel": Kind("none", value="long", average="num_rel"),
    "num_rel_ret": LONG,
    "map": DOUBLE,
    "gm_map": GEOMETRIC,
    "Rprec": DOUBLE,
    "bpref": DOUBLE,
    "recip_rank": DOUBLE,
    "iprec_at_recall": Kind("double_cutoffs", RECALL_LEVELS),
    "P": Kind("long_cutoffs", LONG_CUTOFFS),
    "relstring": Kind("doubles", (10.0,), value="string", average="none"),
    "recall": Kind("long_cutoffs", LONG_CUTOFFS),
    "infAP": DOUBLE,
    "gm_bpref": GEOMETRIC,
    "Rprec_mult": Kind("double_cutoffs", R_MULTIPLES),
    "utility": Kind("doubles", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": Kind("doubles", RECALL_LEVELS),
    "binG": GAIN,
    "G": GAIN,
    "dcg": GAIN,
    "ideal_dcg": GAIN,
    "ndcg": GAIN,
    "ndcg_rel": GAIN,
    "Rndcg": GAIN,
    "ndcg_cut": GAIN,
    "map_cut": Kind("long_cutoffs", LONG_CUTOFFS),
    "relative_P": Kind("long_cutoffs", LONG_CUTOFFS),
    "success": Kind("long_cutoffs", (1, 5, 10)),
    "set_P": DOUBLE,
    "set_relative_P": DOUBLE,
    "set_recall": DOUBLE,
    "set_map": DOUBLE,
    "set_F": Kind("doubles", (1.0,)),
    "num_nonrel_judged_ret": LONG,
    "rbp": Kind("pairs"),
    "rbp_resid": Kind("pairs"),
    "unj": Kind("long_cutoffs", (5, 10, 20)),
}
ONLY_IN_10 = ("dcg", "ideal_dcg", "rbp", "rbp_resid", "unj")

OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P")
ALL_TREC_10 = OFFICIAL + ("relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                          "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
                          "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                          "set_F", "num_nonrel_judged_ret")
ALL_TREC_9 = tuple(name for name in ALL_TREC_10 if name not in ONLY_IN_10)
SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
       "set_relative_P", "set_map", "set_F")
NICKNAMES = {"10": {"official": OFFICIAL, "all_trec": ALL_TREC_10, "set": SET},
             "9": {"official": OFFICIAL, "all_trec": ALL_TREC_9, "set": SET}}
OTHER_FORMATS = ("all_prefs", "prefs", "qrels_jg")  # nicknames of measures that need prefs / qrels_jg input


# ---------------------------------------------------------------- C's number parsing


def atof(text: str) -> float:
    """C's atof on the decimal forms: the longest prefix that is a number, 0.0 if none."""
    match = re.match(r"[ \t\n\v\f\r]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", text)
    if match is None:
        special = re.match(r"[ \t\n\v\f\r]*([+-]?)(inf(?:inity)?|nan)", text, re.IGNORECASE)
        if special is None:
            return 0.0
        value = math.inf if special.group(2).lower().startswith("inf") else math.nan
        return -value if special.group(1) == "-" else value
    return float(match.group(1))


def lround(x: float) -> int:
    """C's lround: to the nearest integer, halves away from zero (on the exact binary value)."""
    if x < 0:
        return -lround(-x)
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole


def c_long(x: float) -> int:
    """A C cast of a double to long: truncation toward zero."""
    return int(x)


# ---------------------------------------------------------------- measure requests


@dataclass
class Request:
    """One measure to compute: its name, its parameters (parsed), its output line names, and
    for a gain measure the tests/reference.py request that computes it."""

    measure: str
    params: tuple
    lines: list[str]
    gain: reference.Request | None = None


def parse_long_cutoffs(text: str) -> tuple[int, ...]:
    """`5,10,...`: each read with atol, sorted; all positive and distinct, or refused."""
    cutoffs = sorted(reference.atol(item) for item in text.split(","))
    if cutoffs[0] <= 0:
        raise Refused(f"non-positive cutoff in '{text}'")
    for before, after in zip(cutoffs, cutoffs[1:]):
        if before == after:
            raise Refused(f"duplicate cutoffs in '{text}'")
    return tuple(cutoffs)


def parse_double_cutoffs(text: str) -> tuple[float, ...]:
    """`0.2,0.5,...`: each read with atof, sorted; distinct, or refused."""
    cutoffs = sorted(atof(item) for item in text.split(","))
    for before, after in zip(cutoffs, cutoffs[1:]):
        if before == after:
            raise Refused(f"duplicate cutoffs in '{text}'")
    return tuple(cutoffs)


def parse_pairs(text: str) -> tuple[tuple[str, float], ...]:
    """`name=value,...`: every comma-separated item holds exactly one '=', or refused."""
    pairs = []
    for item in text.split(","):
        if item.count("=") != 1:
            raise Refused(f"malformed pair parameters in '{text}'")
        name, _, value = item.partition("=")
        pairs.append((name, atof(value)))
    return tuple(pairs)


def double_line_name(measure: str, value: float) -> str:
    """trec_eval's `%s_%3.2f` into a buffer of len(measure) + 10 bytes (longer names are cut)."""
    return ("%s_%3.2f" % (measure, value))[:len(measure) + 9]


def make_request(measure: str, text: str | None, compat: str) -> Request:
    """The request for one measure, with its parameter text (None: the defaults)."""
    kind = MEASURES[measure]
    if kind.params == "gain":
        spec = measure if text is None or measure == "binG" else f"{measure}.{text}"  # binG ignores parameters
        if text is not None and measure not in ("binG", "ndcg_cut"):
            parse_pairs(text)  # trec_eval's check of `name=value,...`
        try:
            gain = reference.parse_measures([spec], compat)[0]
        except ValueError as error:  # a gain that is not a number: trec_eval reads it as 0, trecgain refuses
            raise Refused(f"bad gain parameters '{text}': {error}") from None
        return Request(measure, (), gain.lines, gain)
    if kind.params == "none" or (text is None and kind.params != "pairs"):
        params = kind.default
        if kind.params == "long_cutoffs":
            lines = [f"{measure}_{k}" for k in params]
        elif kind.params == "double_cutoffs":
            lines = [double_line_name(measure, p) for p in params]
        else:
            lines = [measure]
        return Request(measure, params, lines)
    if kind.params == "long_cutoffs":
        params = parse_long_cutoffs(text)  # type: ignore[arg-type]
        return Request(measure, params, [f"{measure}_{k}" for k in params])
    if kind.params == "double_cutoffs":
        params = parse_double_cutoffs(text)  # type: ignore[arg-type]
        return Request(measure, params, [double_line_name(measure, p) for p in params])
    if kind.params == "doubles":
        params = tuple(atof(item) for item in text.split(","))  # type: ignore[union-attr]
        if measure == "utility" and len(params) != 4:
            raise Refused(f"utility needs 4 coefficients, not '{text}'")
        return Request(measure, params, [f"{measure}_{text}"])
    assert kind.params == "pairs"
    if text is None:
        return Request(measure, (), [measure])
    return Request(measure, parse_pairs(text), [f"{measure}_{text}"])


def parse_measures(specs: Iterable[str], compat: str) -> list[Request]:
    """-m arguments to requests in trec_eval's measure order.  `name.params` gives a measure
    its parameters (the first given for a name wins, whatever order the -m come in); a
    nickname marks its version's measures (9.x's all_trec in compat 9, whatever else is named);
    an empty parameter list or an unknown name is refused."""
    specs = list(specs)
    nicknames = NICKNAMES[compat]
    marked: set[str] = set()
    texts: dict[str, str] = {}
    for spec in specs:
        name, dot, text = spec.partition(".")
        if dot:
            if not text:
                raise Refused(f"improper measure in parameter '{name}'")
            texts.setdefault(name, text)
        if name in nicknames:
            marked.update(nicknames[name])
        elif name in MEASURES:
            marked.add(name)
        elif name in OTHER_FORMATS or name.startswith("prefs_") or name.endswith("_avgjg") or name == "yaap":
            raise Refused(f"measure '{name}' needs prefs or qrels_jg input")
        else:
            raise Refused(f"unknown measure '{name}'")
    requests = [make_request(m, texts.get(m), compat) for m in MEASURES if m in marked]
    return requests


# ---------------------------------------------------------------- one query


@dataclass
class Ranked:
    """One query as the measures see it: the relevance value of each ranked document in rank
    order after -M and -J (a grade >= 0, NOT_IN_QRELS or UNJUDGED), the grades >= 0 of all
    its judged documents, -l, and whether the ranking is 10.0's stand-in for a query the run
    lacks."""

    qid: bytes
    values: list[int]
    judged: list[int]
    relevance_level: int
    bogus: bool = False

    def relevant(self, value: int) -> bool:
        return value >= self.relevance_level

    @property
    def num_ret(self) -> int:
        return len(self.values)

    @property
    def num_rel(self) -> int:
        return sum(1 for grade in self.judged if grade >= self.relevance_level)

    @property
    def num_rel_ret(self) -> int:
        return sum(1 for v in self.values if v >= 0 and v >= self.relevance_level)

    def rels_in_top(self, k: int) -> int:
        """Relevant documents among the first k ranks (fewer if fewer are ranked)."""
        return sum(1 for v in self.values[:k] if self.relevant(v))

    def relevant_ranks(self) -> list[int]:
        """The 1-based ranks of the relevant documents."""
        return [i + 1 for i, v in enumerate(self.values) if self.relevant(v)]


def average_precision(q: Ranked, depth: int | None = None) -> float:
    """Precision at each relevant rank (within depth), added in rank order, over num_rel; 0 if
    none is ranked."""
    total = 0.0
    found = 0
    for i, value in enumerate(q.values[:depth] if depth is not None else q.values):
        if q.relevant(value):
            found += 1
            total += found / (i + 1)
    if found == 0:
        return 0.0
    return reference.c_div(total, float(q.num_rel))  # num_rel 0 only with -l < 0: x/0 is inf, as in C


def log_floor(x: float) -> float:
    """A geometric mean's per-query term: log of the value, at least log(MIN_GEO_MEAN)."""
    return math.log(x if x > MIN_GEO_MEAN else MIN_GEO_MEAN)


def r_precision(q: Ranked) -> float:
    depth = min(q.num_ret, q.num_rel)
    if depth == 0:
        return 0.0
    return q.rels_in_top(depth) / q.num_rel


def nonrel_judged(q: Ranked) -> int:
    """Judged documents (retrieved or not) below -l."""
    return sum(1 for grade in q.judged if grade < q.relevance_level)


def bpref(q: Ranked) -> float:
    """At each judged relevant document ranked: 1 - min(judged nonrelevant above, R) /
    min(judged nonrelevant, R), or 1 with none above; the sum over R (num_rel)."""
    total = 0.0
    nonrel_above = 0
    for value in q.values:
        if value < 0:  # not in the pool, or in the pool but not judged: skipped
            continue
        if value < q.relevance_level:
            nonrel_above += 1
            continue
        if nonrel_above == 0:
            total += 1.0
        else:
            total += 1.0 - min(nonrel_above, q.num_rel) / min(nonrel_judged(q), q.num_rel)
    if q.num_rel:
        total /= q.num_rel
    return total


def reciprocal_rank(q: Ranked) -> float:
    ranks = q.relevant_ranks()
    return 1.0 / ranks[0] if ranks else 0.0


def recall_points(q: Ranked, levels: Sequence[float], compat: str) -> list[int]:
    """Recall levels as numbers of relevant documents: lround(p * R) in 10.0, (long) (p * R +
    0.9) in 9.x."""
    if compat == "9":
        return [c_long(p * q.num_rel + 0.9) for p in levels]
    return [lround(p * q.num_rel) for p in levels]


def interpolated_precisions(q: Ranked, levels: Sequence[float], compat: str) -> list[float]:
    """Interpolated precision at each recall level, reached after n relevant documents.

    Walk up from the bottom of the ranking keeping `best`, the highest precision seen so far
    (it starts at num_rel_ret / num_ret: 0/0, nan, with nothing ranked), where the precision at
    rank i is `left` / i and `left` starts at num_rel_ret and drops by one at each relevant
    document (after that document is looked at; so with -l >= 0 it is the number of relevant
    documents in ranks 1..i); the walk ends when `left` reaches 0.  The levels are served
    from the last to the first: first those at the end that need more than num_rel_ret
    documents get 0; then, at each relevant document passed, the next levels whose n equals
    `left` get `best`; when the walk ends, the levels not yet served get the final `best`.
    (With the levels in increasing order, as iprec_at_recall sorts them, each level with
    1 <= n <= num_rel_ret gets the best precision at or below the n-th relevant document;
    11pt_avg keeps its levels in the order given.)"""
    needed = recall_points(q, levels, compat)
    values = [0.0 for _ in needed]
    k = len(needed) - 1
    while k >= 0 and needed[k] > q.num_rel_ret:
        k -= 1
    best = reference.c_div(float(q.num_rel_ret), float(q.num_ret))
    left = q.num_rel_ret
    rank = q.num_ret
    while rank > 0 and left > 0:
        precision = left / rank
        if best < precision:
            best = precision
        if q.relevant(q.values[rank - 1]):
            while k >= 0 and needed[k] == left:
                values[k] = best
                k -= 1
            left -= 1
        rank -= 1
    while k >= 0:
        values[k] = best
        k -= 1
    return values


def eleven_point_average(q: Ranked, levels: Sequence[float], compat: str) -> float:
    """The interpolated precisions at the levels (in the order given), added from the last
    level to the first, over the number of levels."""
    total = 0.0
    for value in reversed(interpolated_precisions(q, levels, compat)):
        total += value
    return total / len(levels)


def precision_at(q: Ranked, cutoffs: Sequence[int]) -> list[float]:
    """Relevant in the first k ranks over k (missing ranks count as nonrelevant)."""
    return [q.rels_in_top(k) / k for k in cutoffs]


def recall_at(q: Ranked, cutoffs: Sequence[int]) -> list[float]:
    if q.num_rel == 0:
        return [0.0 for _ in cutoffs]
    return [q.rels_in_top(k) / q.num_rel for k in cutoffs]


def relstring(q: Ranked, length: float) -> str:
    """One character per ranked document of the first `length`: its grade 0-9, '>' above 9,
    '-' not in the pool, '.' in the pool but unjudged."""
    chars = []
    for value in q.values[:max(c_long(length), 0)]:
        if value > 9:
            chars.append(">")
        elif value >= 0:
            chars.append(str(value))
        elif value == NOT_IN_QRELS:
            chars.append("-")
        elif value == UNJUDGED:
            chars.append(".")
        else:
            chars.append("<")
    return "".join(chars)


def inferred_ap(q: Ranked) -> float:
    """infAP (Yilmaz and Aslam): at the judged relevant document at 0-based position j > 0 add
    1/(j+1) + (j/(j+1)) * ((judged or pooled above) / j) * ((rel above + eps) / (judged above
    + 2 eps)); at position 0 add 1; the sum over num_rel.  Documents not in the pool are
    skipped (but keep their positions)."""
    total = 0.0
    rel_above = nonrel_above = pooled_above = 0
    for j, value in enumerate(q.values):
        if value == NOT_IN_QRELS:
            continue
        if value == UNJUDGED:
            pooled_above += 1
            continue
        if value < q.relevance_level:
            nonrel_above += 1
            continue
        if j == 0:
            total += 1.0
        else:
            fj = float(j)
            pooled_share = (rel_above + nonrel_above + pooled_above) / fj
            rel_share = (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * pooled_share * rel_share
        rel_above += 1
    if q.num_rel:
        total /= q.num_rel
    return total


def precision_at_r_multiples(q: Ranked, multiples: Sequence[float]) -> list[float]:
    """Precision at rank (long) (m * R + 0.9) for each multiple m of R = num_rel: beyond the
    ranking num_rel_ret / rank; otherwise `left` / rank, walking up from the bottom as for
    interpolated_precisions (`left` is the number of relevant documents in ranks 1..rank with
    -l >= 0), for the ranks the walk reaches (down to the document at which `left` drops to 0),
    and 0 above them."""
    depths = [c_long(m * q.num_rel + 0.9) for m in multiples]
    values = [q.num_rel_ret / depth if depth > q.num_ret else 0.0 for depth in depths]
    left = q.num_rel_ret
    rank = q.num_ret
    while rank > 0 and left > 0:
        for k, depth in enumerate(depths):
            if depth == rank:
                values[k] = left / rank
        if q.relevant(q.values[rank - 1]):
            left -= 1
        rank -= 1
    return values


def utility(q: Ranked, coefficients: Sequence[float], num_docs: int) -> float:
    """p1 * rel_ret + p2 * nonrel_ret + p3 * rel_not_ret + p4 * nonrel_not_ret (the collection
    size from -N)."""
    a, ret, rel = q.num_rel_ret, q.num_ret, q.num_rel
    p1, p2, p3, p4 = coefficients
    return p1 * a + p2 * (ret - a) + p3 * (rel - a) + p4 * (num_docs + a - ret - rel)


def map_at(q: Ranked, cutoffs: Sequence[int]) -> list[float]:
    if q.num_rel == 0:
        return [0.0 for _ in cutoffs]
    return [average_precision(q, k) for k in cutoffs]


def relative_precision_at(q: Ranked, cutoffs: Sequence[int]) -> list[float]:
    """Relevant in the first k ranks over min(k, num_rel)."""
    if q.num_rel == 0:
        return [0.0 for _ in cutoffs]
    return [q.rels_in_top(k) / min(k, q.num_rel) for k in cutoffs]


def success_at(q: Ranked, cutoffs: Sequence[int]) -> list[float]:
    return [1.0 if q.rels_in_top(k) else 0.0 for k in cutoffs]


def unjudged_at(q: Ranked, cutoffs: Sequence[int]) -> list[float]:
    """Documents not judged (not in the pool, or pooled unjudged) in the first k ranks, over k."""
    return [sum(1 for v in q.values[:k] if v < 0) / k for k in cutoffs]


def set_precision(q: Ranked) -> float:
    return q.num_rel_ret / q.num_ret if q.num_ret else 0.0


def set_relative_precision(q: Ranked) -> float:
    if q.num_ret and q.num_rel:
        return q.num_rel_ret / min(q.num_ret, q.num_rel)
    return 0.0


def set_recall(q: Ranked) -> float:
    return q.num_rel_ret / q.num_rel if q.num_rel else 0.0


def set_map(q: Ranked) -> float:
    """num_rel_ret squared over (num_ret * num_rel), in doubles."""
    if q.num_ret and q.num_rel:
        a = float(q.num_rel_ret)
        return (a * a) / (float(q.num_ret) * float(q.num_rel))
    return 0.0


def set_f(q: Ranked, beta: float) -> float:
    """(beta + 1) P R / (beta P + R) over the retrieved set; 0 with nothing relevant retrieved."""
    if q.num_rel_ret == 0:
        return 0.0
    p = q.num_rel_ret / q.num_ret
    r = q.num_rel_ret / q.num_rel
    return reference.c_div((beta + 1.0) * p * r, beta * p + r)


def num_nonrel_judged_ret(q: Ranked) -> int:
    return sum(1 for v in q.values if v >= 0 and not q.relevant(v))


def persistence(pairs: Sequence[tuple[str, float]]) -> float:
    """rbp's p: the last pair named `p`, else 0.9."""
    p = 0.9
    for name, value in pairs:
        if name == "p":
            p = value
    return p


def rank_biased_precision(q: Ranked, pairs: Sequence[tuple[str, float]]) -> float:
    """(1 - p) * sum of gain(rank i) * p^(i-1), p^(i-1) kept as a running product; gains as
    trec_eval's gain table gives them (grade, or an integer-named pair), rescaled by the
    table's minimum and maximum when min < 0 or max > 1."""
    p = persistence(pairs)
    spec = reference.GainSpec(tuple((int(name), value) for name, value in pairs if reference.valid_int(name)))
    table = reference.gain_table(q.judged, spec, q.relevance_level, exact=False)
    low, high = math.inf, -math.inf
    for entry in table:
        if entry.gain < low:
            low = entry.gain
        if entry.gain > high:
            high = entry.gain
    if low < 0 or high > 1:
        for entry in table:
            entry.gain = reference.c_div(entry.gain - low, high - low)
    total = 0.0
    weight = 1.0
    for value in q.values:
        gain = reference.get_gain(table, value)
        if gain != 0:
            total += gain * weight
        weight = weight * p
    return (1.0 - p) * total


def rbp_residual(q: Ranked, pairs: Sequence[tuple[str, float]]) -> float:
    """The rbp weight of the unjudged ranked documents plus the weight beyond the ranking:
    p^num_ret + (1 - p) * sum of p^(i-1) over unjudged ranks i; 0 when every ranked document
    is judged."""
    p = persistence(pairs)
    total = 0.0
    weight = 1.0
    unjudged = 0
    for value in q.values:
        if value < 0:
            unjudged += 1
            total += weight
        weight = weight * p
    return weight + (1 - p) * total if unjudged else 0.0


def measure_query(q: Ranked, request: Request, compat: str, num_docs: int) -> list[float | int | str]:
    """The values of one request's lines for one query (runid and num_q: placeholders)."""
    m, params = request.measure, request.params
    if request.gain is not None:
        query = reference.Query(q.qid.decode("utf-8", "surrogateescape"), list(q.values), list(q.judged),
                                q.relevance_level)
        options = reference.Options(relevance_level=q.relevance_level, compat=compat)
        return reference.measure_query(query, request.gain, options)
    if m == "runid":
        return [0]
    if m == "num_q":
        return [1]
    counts = {"num_ret": q.num_ret, "num_rel": q.num_rel, "num_rel_ret": q.num_rel_ret,
              "num_nonrel_judged_ret": num_nonrel_judged_ret(q)}
    if m in counts:
        return [counts[m]]
    plain = {"map": average_precision, "Rprec": r_precision, "bpref": bpref, "recip_rank": reciprocal_rank,
             "infAP": inferred_ap, "set_P": set_precision, "set_relative_P": set_relative_precision,
             "set_recall": set_recall, "set_map": set_map}
    if m in plain:
        return [plain[m](q)]
    if m == "gm_map":
        return [log_floor(average_precision(q))]
    if m == "gm_bpref":
        return [log_floor(bpref(q))]
    if m == "relstring":
        return [relstring(q, params[0])]
    if m == "utility":
        return [utility(q, params, num_docs)]
    if m == "11pt_avg":
        return [eleven_point_average(q, params, compat)]
    if m == "set_F":
        return [set_f(q, params[0])]
    if m == "rbp":
        return [rank_biased_precision(q, params)]
    if m == "rbp_resid":
        return [rbp_residual(q, params)]
    if m == "iprec_at_recall":
        return interpolated_precisions(q, params, compat)  # type: ignore[return-value]
    if m == "Rprec_mult":
        return precision_at_r_multiples(q, params)  # type: ignore[return-value]
    at_cutoffs = {"P": precision_at, "recall": recall_at, "map_cut": map_at, "relative_P": relative_precision_at,
                  "success": success_at, "unj": unjudged_at}
    return at_cutoffs[m](q, params)  # type: ignore[return-value]


def clean_up_stand_in(values: dict[str, float | int | str]) -> None:
    """10.0's clean-up after evaluating the stand-in ranking of a query the run lacks: the lines
    named exactly num_ret, utility, relstring, rbp_resid, and every line starting with unj."""
    for line in values:
        if line in ("num_ret", "utility", "rbp_resid") or line.startswith("unj"):
            values[line] = 0 if line == "num_ret" else 0.0
        elif line == "relstring":
            values[line] = ""


# ---------------------------------------------------------------- all queries


@dataclass
class TrecOutcome:
    """What trec_eval computes: per-query values {qid: {line: value}} for the queries it
    evaluated (in its order; gm_* lines hold the logs), which per-query lines it prints, the
    `all` values in print order, and each line's value kind (long, double, string)."""

    per_query: dict[bytes, dict[str, float | int | str]]
    printed: list[str]
    aggregate: dict[str, float | int | str]
    kinds: dict[str, str]
    lines: list[str] = field(default_factory=list)


def follows_10(compat: str, request: Request) -> bool:
    """Whether trec_eval 10.0's rules for the queries -c brings in apply to a measure: compat 10,
    or a measure 9.x lacks (10.0 on float32 scores).  Every other measure keeps 9.x's rules in
    compat 9, whatever is measured beside it: such a query is not evaluated, adds nothing to its
    sums and prints no line of it."""
    return compat == "10" or request.measure in ONLY_IN_10


def evaluate_trec(qrels: reference.Qrels, run: reference.Run, tag: str = "unknown",
                  measures: Sequence[str] = ("official",), *, relevance_level: int = 1,
                  complete: bool = False, max_docs: int | None = None, judged_only: bool = False,
                  compat: str = "10", num_docs: int = 0) -> TrecOutcome:
    """trec_eval's values for a run: -l relevance_level, -c complete, -M max_docs, -J
    judged_only, -N num_docs, 10.0 or 9.x semantics (compat "10" / "9")."""
    compat = str(compat)
    if compat not in ("9", "10"):
        raise Refused(f"unknown compat '{compat}'")
    if max_docs is not None and max_docs < 0:
        raise Refused("-M must not be negative")
    requests = parse_measures([measures] if isinstance(measures, str) else measures, compat)
    reference.check_grades(qrels, fractional=False)
    judgments = {reference.key(q): {reference.key(d): g for d, g in docs.items()} for q, docs in qrels.items() if docs}
    rankings = {reference.key(q): docs for q, docs in run.items()}
    if not judgments:
        raise Refused("no judgments")
    if not rankings:
        raise Refused("no results")
    shared = sorted(q for q in judgments if q in rankings)
    if complete and any(follows_10(compat, r) for r in requests):
        evaluated = sorted(judgments)
    elif shared:
        evaluated = shared
    else:
        raise Refused("no query has both results and judgments")

    per_query: dict[bytes, dict[str, float | int | str]] = {}
    for qid in evaluated:
        scores = rankings.get(qid, {BOGUS_DOCNO: 1.0})
        ranking = reference.rank(scores, compat, max_docs)
        values = reference.relevance_values(ranking, judgments[qid])
        if judged_only:
            values = [v for v in values if v >= 0]
        judged = [g for g in judgments[qid].values() if g >= 0]
        q = Ranked(qid, values, judged, relevance_level, bogus=qid not in rankings)
        line_values: dict[str, float | int | str] = {}
        for request in requests:
            if q.bogus and not follows_10(compat, request):
                continue
            for line, value in zip(request.lines, measure_query(q, request, compat, num_docs)):
                line_values[line] = value
        if q.bogus:
            clean_up_stand_in(line_values)
        per_query[qid] = line_values

    kinds: dict[str, str] = {}
    printed: list[str] = []
    aggregate: dict[str, float | int | str] = {}
    num_queries = len(judgments) if complete else len(evaluated)
    for request in requests:
        kind = MEASURES[request.measure]
        for line in request.lines:
            kinds[line] = kind.value
            if kind.per_query:
                printed.append(line)
            column = [per_query[qid][line] for qid in evaluated if line in per_query[qid]]
            if kind.average == "runid":
                aggregate[line] = tag
            elif kind.average == "num_q":
                aggregate[line] = num_queries
            elif kind.average == "num_rel" and complete:
                aggregate[line] = sum(1 for docs in judgments.values() for g in docs.values() if g > 0)
            elif kind.average in ("sum", "num_rel"):
                aggregate[line] = sum(column)  # type: ignore[arg-type]
            elif kind.average == "geometric":
                total = 0.0
                for value in column:
                    total += value  # type: ignore[operator]
                if complete:
                    total += (num_queries - len(column)) * math.log(MIN_GEO_MEAN)
                aggregate[line] = math.exp(total / num_queries)
            elif kind.average == "mean":
                total = 0.0
                for value in column:
                    total += value  # type: ignore[operator]
                aggregate[line] = total / num_queries
    lines = [line for request in requests for line in request.lines]
    return TrecOutcome(per_query, printed, aggregate, kinds, lines)


# ---------------------------------------------------------------- printing


def number(value: float | int | str, kind: str) -> str:
    """%ld for counts, %6.4f for values (glibc prints the x86 default nan as -nan), strings as
    they are."""
    if kind == "string":
        return str(value)
    if kind == "long":
        return "%d" % int(value)
    if math.isnan(value):  # type: ignore[arg-type]
        return "  -nan"
    return "%6.4f" % value


def format_trec(outcome: TrecOutcome, per_query: bool = False, summary: bool = True) -> str:
    """The text trec_eval prints: with -q each evaluated query's lines (queries in order, lines
    in measure order; relstring quoted), then unless -n the `all` lines."""
    out = []
    if per_query:
        for qid, values in outcome.per_query.items():
            name = qid.decode("utf-8", "surrogateescape")
            for line in outcome.printed:
                if line not in values:  # a query the run lacks, of a measure under 9.x's rules
                    continue
                if outcome.kinds[line] == "string":
                    out.append("%-22s\t%s\t'%s'\n" % (line, name, values[line]))
                else:
                    out.append("%-22s\t%s\t%s\n" % (line, name, number(values[line], outcome.kinds[line])))
    if summary:
        for line, value in outcome.aggregate.items():
            out.append("%-22s\tall\t%s\n" % (line, number(value, outcome.kinds[line])))
    return "".join(out)


def trec_eval_output(qrels: reference.Qrels, run: reference.Run, tag: str = "unknown",
                     measures: Sequence[str] = ("official",), *, relevance_level: int = 1,
                     complete: bool = False, max_docs: int | None = None, judged_only: bool = False,
                     per_query: bool = False, summary: bool = True, compat: str = "10",
                     num_docs: int = 0) -> str:
    """Exactly what `trec_eval [-q] [-n] [-c] [-J] [-l N] [-M N] [-N N] -m ... QRELS RUN` prints
    (compat "10": trec_eval 10.0; "9": 9.x), as text (bytes that are not UTF-8 as surrogate
    escapes).  Raises Refused where trec_eval (or trecgain) gives an error."""
    outcome = evaluate_trec(qrels, run, tag, measures, relevance_level=relevance_level, complete=complete,
                            max_docs=max_docs, judged_only=judged_only, compat=compat, num_docs=num_docs)
    return format_trec(outcome, per_query, summary)
