"""The measures: one kernel per family over all queries at once, and the registry table.

Each kernel takes the shared `Context` (the labeled rankings plus arrays several
measures reuse) and its parsed parameters, and returns one array of per-query values
per output line.  The floating point operations follow trec_eval's order: terms are
added in rank order, divided by log2 from the C library, never multiplied by a
reciprocal.  The registry order is trec_eval's output order.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from . import names as names_module
from . import segments as seg
from .discounts import TREC_EVAL, Discount
from .err import err_cut
from .errors import TrecgainError
from .gains import GainSpec, Gains, compute_gains, parse_gain_spec
from .label import Labeled, only_judged


class Context:
    """Arrays shared by the measures of one evaluation, computed on first use."""

    def __init__(self, labeled: Labeled, discount: Discount = TREC_EVAL, global_gains: GainSpec | None = None,
                 exact_ideal: bool = False, err_max_grade: int = 4):
        self.labeled = labeled
        self.err_max_grade = err_max_grade
        self.discount = discount
        self.global_gains = global_gains
        self.exact_ideal = exact_ideal
        self.warnings: list[str] = []
        self.offsets = labeled.offsets
        self.query = seg.segment_ids(labeled.offsets)
        self.position = seg.positions(labeled.offsets)
        self.lengths = np.diff(labeled.offsets)
        self.layout = seg.Layout(labeled.offsets)
        self._memo: dict[Any, Any] = {}

    def _once(self, key: Any, make: Callable[[], Any]) -> Any:
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def variant(self, gains: GainSpec | None, judged_only: bool) -> "Context":
        """The context a measure with its own gains or its own -J sees (shared when it has neither)."""
        if gains is None and not judged_only:
            return self

        def make() -> Context:
            labeled = only_judged(self.labeled) if judged_only else self.labeled
            other = Context(labeled, self.discount, gains or self.global_gains, self.exact_ideal, self.err_max_grade)
            other.warnings = self.warnings
            return other
        return self._once(("variant", gains, judged_only), make)

    def resolve(self, spec: GainSpec | None) -> GainSpec | None:
        """A measure's own gains, else the global ones; --exact-ideal applies to either."""
        spec = spec or self.global_gains
        if self.exact_ideal:
            spec = replace(spec or GainSpec("", ()), exact_ideal=True)
        return spec

    def gains(self, spec: GainSpec | None) -> Gains:
        def make() -> Gains:
            g = compute_gains(self.labeled, spec)
            self.warnings += [w for w in g.warnings if w not in self.warnings]
            return g
        return self._once(("gains", spec), make)

    def ideal_layout(self, spec: GainSpec | None) -> seg.Layout:
        return self._once(("ideal layout", spec), lambda: seg.Layout(self.gains(spec).ideal_offsets))

    def dcg_prefix(self, spec: GainSpec | None) -> np.ndarray:
        """Discounted gain summed down each ranking, in rank order."""
        def make() -> np.ndarray:
            divisors = self.discount.divisors(int(self.position.max(initial=0)) + 1)
            return self.layout.cumsum(self.gains(spec).ranked / divisors[self.position])
        return self._once(("dcg", spec), make)

    def ideal_prefix(self, spec: GainSpec | None) -> np.ndarray:
        """Discounted gain summed down each ideal ranking."""
        def make() -> np.ndarray:
            g = self.gains(spec)
            pos = seg.positions(g.ideal_offsets)
            divisors = self.discount.divisors(int(pos.max(initial=0)) + 1)
            return self.ideal_layout(spec).cumsum(g.ideal / divisors[pos])
        return self._once(("idcg", spec), make)

    def num_rel(self) -> np.ndarray:
        """Judged documents with grade >= the relevance level, per query."""
        lab = self.labeled
        hits = (lab.judged >= lab.relevance_level).astype(np.int64)
        return np.bincount(seg.segment_ids(lab.judged_offsets), weights=hits,
                           minlength=lab.num_queries).astype(np.int64)


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(a, b)


def _per_query_count(ctx: Context, mask: np.ndarray) -> np.ndarray:
    return np.bincount(ctx.query[mask], minlength=ctx.labeled.num_queries).astype(np.int64)


# ---------------------------------------------------------------- kernels


def dcg(ctx: Context, spec: GainSpec | None) -> list[np.ndarray]:
    spec = ctx.resolve(spec)
    return [seg.last(ctx.dcg_prefix(spec), ctx.offsets)]


def ideal_dcg(ctx: Context, spec: GainSpec | None) -> list[np.ndarray]:
    spec = ctx.resolve(spec)
    return [seg.last(ctx.ideal_prefix(spec), ctx.gains(spec).ideal_offsets)]


def ndcg(ctx: Context, spec: GainSpec | None) -> list[np.ndarray]:
    actual, ideal = dcg(ctx, spec)[0], ideal_dcg(ctx, spec)[0]
    return [np.where(ideal > 0, _divide(actual, ideal), 0.0)]


EXPONENTIAL = GainSpec("exp", (), "exp")


def ndcg_p(ctx: Context, _: Any = None) -> list[np.ndarray]:
    """nDCG over the whole ranking with exponential gains 2^grade - 1 (the design notes' ndcg_p)."""
    return ndcg(ctx, EXPONENTIAL)


def ndcg_cut(ctx: Context, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """nDCG at each cutoff; the grades are the gains (trec_eval ignores gain strings here) unless
    global gains are given."""
    spec = ctx.resolve(None)
    queries = np.arange(ctx.labeled.num_queries)
    actual, ideal = ctx.dcg_prefix(spec), ctx.ideal_prefix(spec)
    ideal_offsets = ctx.gains(spec).ideal_offsets
    out = []
    for k in cutoffs:
        index = np.full(len(queries), k - 1)
        at_k = seg.take(actual, ctx.offsets, queries, index)
        ideal_k = seg.take(ideal, ideal_offsets, queries, index)
        otherwise = at_k if spec is None else 0.0  # trec_eval keeps DCG where the ideal is 0 (it is 0 too)
        out.append(np.where(ideal_k > 0, _divide(at_k, ideal_k), otherwise))
    return out


def cg_cut(ctx: Context, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """Cumulative gain at each cutoff: gains of the first k documents, undiscounted."""
    spec = ctx.resolve(None)
    total = ctx._once(("cg", spec), lambda: ctx.layout.cumsum(ctx.gains(spec).ranked))
    queries = np.arange(ctx.labeled.num_queries)
    return [seg.take(total, ctx.offsets, queries, np.full(len(queries), k - 1)) for k in cutoffs]


def ndcg_rel(ctx: Context, spec: GainSpec | None) -> list[np.ndarray]:
    """nDCG averaged over the relevant documents (positive ideal gain)."""
    spec = ctx.resolve(spec)
    g = ctx.gains(spec)
    actual, ideal = ctx.dcg_prefix(spec), ctx.ideal_prefix(spec)
    num_ideal = np.diff(g.ideal_offsets)
    ideal_here = seg.take(ideal, g.ideal_offsets, ctx.query, np.minimum(ctx.position, num_ideal[ctx.query] - 1))
    positive = g.ranked > 0
    terms = np.where(positive, _divide(actual, ideal_here), 0.0)
    total = seg.last(ctx.layout.cumsum(terms), ctx.offsets)
    missed = (num_ideal - _per_query_count(ctx, positive)).astype(np.float64)
    final_actual = seg.last(actual, ctx.offsets)
    final_ideal = seg.last(ideal, g.ideal_offsets)
    total = total + _divide(missed * final_actual, final_ideal)
    return [np.where(total > 0, _divide(total, num_ideal.astype(np.float64)), 0.0)]


def rndcg(ctx: Context, spec: GainSpec | None) -> list[np.ndarray]:
    """nDCG averaged at each point where the ideal gain changes, plus the end of a longer ranking."""
    spec = ctx.resolve(spec)
    g = ctx.gains(spec)
    nq = ctx.labeled.num_queries
    actual, ideal = ctx.dcg_prefix(spec), ctx.ideal_prefix(spec)
    num_ideal = np.diff(g.ideal_offsets)
    final_ideal = seg.last(ideal, g.ideal_offsets)
    # inside the ideal ranking: step s where the gain differs from step s - 1
    iq, ipos = seg.segment_ids(g.ideal_offsets), seg.positions(g.ideal_offsets)
    change = np.flatnonzero(ipos > 0)
    change = change[g.ideal[change] != g.ideal[change - 1]]
    inside_q, inside_s = iq[change], ipos[change]
    inside_ideal = ideal[change - 1]
    # the step where the walk ends, if its gain differs from the last ideal gain
    last_gain = seg.last(g.ideal, g.ideal_offsets)
    ends = np.flatnonzero((num_ideal > 0) & (g.stop != last_gain))
    # one more point after a ranking longer than the walk
    longer = np.flatnonzero((g.gate > 0) & (ctx.lengths > num_ideal + 1) & (final_ideal > 0))
    point_q = np.concatenate((inside_q, ends, longer))
    point_step = np.concatenate((inside_s, num_ideal[ends], ctx.lengths[longer]))
    point_ideal = np.concatenate((inside_ideal, final_ideal[ends], final_ideal[longer]))
    order = np.lexsort((point_step, point_q))
    point_q, point_step, point_ideal = point_q[order], point_step[order], point_ideal[order]
    dcg_then = seg.take(actual, ctx.offsets, point_q, np.minimum(point_step, ctx.lengths[point_q]) - 1)
    values = _divide(dcg_then, point_ideal)
    counts = np.bincount(point_q, minlength=nq)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    total = seg.last(seg.cumsum(values, offsets), offsets)
    result = _divide(total, counts.astype(np.float64))
    return [np.where(ctx.num_rel() == 0, 0.0, result)]


def gain_g(ctx: Context, spec: GainSpec | None) -> list[np.ndarray]:
    """trec_eval's experimental normalised gain G."""
    spec = ctx.resolve(spec)
    g = ctx.gains(spec)
    num_ideal = np.diff(g.ideal_offsets)
    inside = ctx.position < num_ideal[ctx.query]
    ideal_here = np.zeros(len(ctx.position))
    ideal_here[inside] = g.ideal[g.ideal_offsets[:-1][ctx.query[inside]] + ctx.position[inside]]
    cost = np.where(inside & (ideal_here >= 1.0), ideal_here, 1.0)
    sum_results = ctx.layout.cumsum(g.ranked)
    sum_cost = ctx.layout.cumsum(cost)
    nonzero = np.flatnonzero(g.ranked != 0)
    terms = np.zeros(len(g.ranked))
    terms[nonzero] = _divide(g.ranked[nonzero], seg.c_log2((2 + sum_cost[nonzero]) - sum_results[nonzero]))
    results_g = seg.last(ctx.layout.cumsum(terms), ctx.offsets)
    sum_ideal = seg.last(ctx.ideal_layout(spec).cumsum(g.ideal), g.ideal_offsets)
    return [np.where(sum_ideal > 0, _divide(results_g, sum_ideal), 0.0)]


def bin_g(ctx: Context, _: Any = None) -> list[np.ndarray]:
    """trec_eval's binary G: 1 / log2(2 + nonrelevant before) averaged over relevant documents."""
    relevant = ctx.labeled.values >= ctx.labeled.relevance_level
    so_far = np.cumsum(relevant)
    so_far = so_far - np.repeat(np.concatenate(([0], so_far))[ctx.offsets[:-1]], ctx.lengths)
    k = 3 + ctx.position - so_far
    log2 = TREC_EVAL.divisors(int(k.max(initial=2)) - 1)  # log2(2), log2(3), ...: log2 of k is at k - 2
    terms = np.where(relevant, _divide(1.0, log2[np.maximum(k, 2) - 2]), 0.0)
    total = seg.last(ctx.layout.cumsum(terms), ctx.offsets)
    found = _per_query_count(ctx, relevant)
    return [np.where(found > 0, _divide(total, ctx.num_rel().astype(np.float64)), 0.0)]


def num_ret(ctx: Context, _: Any = None) -> list[np.ndarray]:
    return [ctx.labeled.num_ret]


def num_rel(ctx: Context, _: Any = None) -> list[np.ndarray]:
    return [ctx.num_rel()]


def num_rel_ret(ctx: Context, _: Any = None) -> list[np.ndarray]:
    values = ctx.labeled.values
    return [_per_query_count(ctx, (values >= 0) & (values >= ctx.labeled.relevance_level))]


def num_q(ctx: Context, _: Any = None) -> list[np.ndarray]:
    return [np.ones(ctx.labeled.num_queries, dtype=np.int64)]


def runid(ctx: Context, _: Any = None) -> list[np.ndarray]:
    return [np.zeros(ctx.labeled.num_queries)]


# ---------------------------------------------------------------- parameters


MAX_CUTOFF = 2**31 - 1


def parse_cutoffs(text: str, compat: str) -> tuple[int, ...]:
    """Comma-separated positive cutoffs; `2.5` is 2 as with trec_eval's atol; sorted, no duplicates."""
    values = []
    for item in text.split(","):
        head, dot, tail = item.partition(".")
        body = head[1:] if head[:1] in "+-" else head
        if not (body.isdigit() and body.isascii() and (not dot or tail.isdigit() or tail == "")):
            raise TrecgainError(f"cutoff '{item}' in '{text}' is not a whole number")
        values.append(int(head))
    values.sort()
    if values[-1] > MAX_CUTOFF:
        raise TrecgainError(f"cutoff {values[-1]} in '{text}' is too large (at most {MAX_CUTOFF})")
    if values[0] <= 0:
        raise TrecgainError(f"cutoffs must be positive: '{text}'")
    if len(set(values)) != len(values):
        raise TrecgainError(f"duplicate cutoffs in '{text}'")
    return tuple(values)


def _no_params(text: str, compat: str) -> None:
    raise TrecgainError("takes no parameters")


# ---------------------------------------------------------------- registry


@dataclass(frozen=True)
class Measure:
    """One registry record: name, parameters, computation, and how its lines are named and summed."""

    name: str
    help: str
    compute: Callable[[Context, Any], list[np.ndarray]]
    parse: Callable[[str, str], Any] = _no_params
    default: Any = None
    naming: str = "plain"  # plain | params (name_PARAMS) | cutoffs (name_K per cutoff)
    value: str = "float"  # float | count | tag
    summary: str = "mean"  # mean | sum | count | tag
    per_query: bool = True
    in_trec_eval_9: bool = True  # dcg and ideal_dcg are new in trec_eval 10
    in_trec_eval: bool = True  # False: trecgain's own measure, outside the `gain` nickname
    complete_summary: Callable[[Any], int] | None = None  # the `all` value with -c, from the whole qrels
    depth: Callable[[Any], int | None] = lambda params: None  # ranks it reads (None: all)

    def line_names(self, params: Any, text: str | None) -> list[str]:
        if self.naming == "cutoffs":
            return [f"{self.name}_{k}" for k in params]
        if self.naming == "params" and text is not None:
            return [f"{self.name}_{text}"]
        return [self.name]


def _nothing_ranked(params: Any) -> int:
    return 0


_GAINS_HELP = "Gains per level can be given as 'level=gain,...' (default: gain = grade)."

REGISTRY: tuple[Measure, ...] = (
    Measure("runid", "Run id: the tag of the last run line read.", runid, value="tag", summary="tag",
            per_query=False, depth=_nothing_ranked),
    Measure("num_q", "Number of queries evaluated.", num_q, value="count", summary="count", per_query=False,
            depth=_nothing_ranked),
    Measure("num_ret", "Number of documents retrieved (after -M and -J); the summary is the sum.", num_ret,
            value="count", summary="sum", depth=_nothing_ranked),
    Measure("num_rel", "Number of judged documents with grade >= -l; the summary is the sum "
            "(with -c: every judgment with grade > 0, as trec_eval counts).", num_rel, value="count",
            summary="sum", complete_summary=lambda qrels: int((qrels.grades > 0).sum()), depth=_nothing_ranked),
    Measure("num_rel_ret", "Number of retrieved documents with grade >= -l; the summary is the sum.",
            num_rel_ret, value="count", summary="sum"),
    Measure("binG", "Binary G: 1/log2(2 + nonrelevant before it) averaged over the relevant documents.", bin_g),
    Measure("G", "Normalised gain with a cost model (trec_eval's experimental G). " + _GAINS_HELP, gain_g,
            parse_gain_spec, naming="params"),
    Measure("dcg", "Discounted cumulative gain over the whole ranking. " + _GAINS_HELP, dcg,
            parse_gain_spec, naming="params", in_trec_eval_9=False),
    Measure("ideal_dcg", "DCG of the ideal ranking of all judged documents. " + _GAINS_HELP, ideal_dcg,
            parse_gain_spec, naming="params", in_trec_eval_9=False, depth=_nothing_ranked),
    Measure("ndcg", "Normalised DCG over the whole ranking (Jarvelin and Kekalainen). " + _GAINS_HELP, ndcg,
            parse_gain_spec, naming="params"),
    Measure("ndcg_rel", "nDCG averaged over the relevant documents. " + _GAINS_HELP, ndcg_rel,
            parse_gain_spec, naming="params"),
    Measure("Rndcg", "nDCG averaged where the ideal gain changes level. " + _GAINS_HELP, rndcg,
            parse_gain_spec, naming="params"),
    Measure("ndcg_cut", "nDCG at cutoffs, grades as gains: -m ndcg_cut.5,10 "
            "(default 5,10,15,20,30,100,200,500,1000).", ndcg_cut, parse_cutoffs,
            default=(5, 10, 15, 20, 30, 100, 200, 500, 1000), naming="cutoffs", depth=max),
    Measure("err_cut", "Expected reciprocal rank at cutoffs as gdeval.pl computes it, r = (2^grade - 1) / 2^max "
            "(max grade 4, --err-max-grade): -m err_cut.10,20 (not in trec_eval).", lambda ctx, cutoffs:
            err_cut(ctx, cutoffs, ctx.err_max_grade), parse_cutoffs, default=(5, 10, 20), naming="cutoffs",
            depth=max, in_trec_eval=False),
    Measure("ndcg_p", "nDCG over the whole ranking with exponential gains 2^grade - 1 (not in trec_eval).",
            ndcg_p, in_trec_eval=False),
    Measure("cg_cut", "Cumulative gain at cutoffs, undiscounted: -m cg_cut.5,10 (not in trec_eval; "
            "gains from --global-gains).", cg_cut, parse_cutoffs, default=(5, 10, 15, 20, 30, 100, 200, 500, 1000),
            naming="cutoffs", depth=max, in_trec_eval=False),
)

BY_NAME = {m.name: m for m in REGISTRY}
NICKNAMES = {"gain": tuple(m.name for m in REGISTRY if m.in_trec_eval)}
TREC_EVAL_SETS = ("all_trec", "official", "all_qrels", "qrels_jg", "all_prefs", "set", "trec_results")
OTHER_TREC_EVAL = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
                   "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "map_cut", "relative_P", "success",
                   "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp",
                   "rbp_resid", "unj", "yaap", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"}


@dataclass
class Request:
    """One measure to compute, with its parsed parameters and the text they came from."""

    measure: Measure
    params: Any
    text: str | None = None
    lines: list[str] = field(default_factory=list)
    gains: GainSpec | None = None  # this measure's own gains (ir_measures names)
    judged_only: bool = False  # this measure alone drops unjudged documents (ir_measures names)
    label: str | None = None  # the line name the user wrote (ir_measures names)


def parse_requests(specs: list[str] | tuple[str, ...], compat: str = "10") -> list[Request]:
    """Measure arguments (`ndcg_cut.10`, `ndcg.1=2`, `gain`) to requests in registry order.

    A measure named twice keeps the first parameter list given, as trec_eval does.
    """
    chosen: dict[str, Request] = {}
    for spec in specs:
        if not spec or not spec.isprintable():
            raise TrecgainError(f"measure {spec!r}: a measure name has no line breaks, tabs or control characters")
        if names_module.looks_like_ir_measures(spec) or spec in names_module.MEASURES and spec not in BY_NAME:
            chosen.setdefault(spec, _ir_request(names_module.parse(spec), compat))
            continue
        name, dot, text = spec.partition(".")
        names = NICKNAMES.get(name)
        if names is None:
            if name not in BY_NAME:
                raise TrecgainError(_unknown(name))
            names = (name,)
        for n in names:
            measure = BY_NAME[n]
            if dot:
                try:
                    params = measure.parse(text, compat)
                except TrecgainError as err:
                    raise TrecgainError(f"measure '{spec}': {err.message}") from None
                if n not in chosen or chosen[n].text is None:
                    chosen[n] = Request(measure, params, text)
            elif n not in chosen:
                chosen[n] = Request(measure, measure.default, None)
    rank = {m.name: i for i, m in enumerate(REGISTRY)}
    ordered = sorted(chosen.values(), key=lambda r: rank[r.measure.name])  # stable: -m order within a measure
    for r in ordered:
        r.lines = [r.label] if r.label else r.measure.line_names(r.params, r.text)
    return ordered


def _ir_request(parsed: "names_module.IrMeasure", compat: str) -> Request:
    measure = BY_NAME[parsed.measure]
    params = (parsed.cutoff,) if parsed.cutoff else None
    return Request(measure, params, None, gains=parsed.gains, judged_only=parsed.judged_only, label=parsed.text)


def _unknown(name: str) -> str:
    if name in TREC_EVAL_SETS:
        return (f"measure set '{name}' includes trec_eval measures trecgain does not compute "
                f"(map, P, recall, ...); trecgain computes: {', '.join(BY_NAME)} (or 'gain' for all)")
    if name in OTHER_TREC_EVAL:
        return (f"'{name}' is not a gain measure: trecgain computes {', '.join(BY_NAME)} "
                f"(use trec_eval for {name})")
    import difflib

    close = difflib.get_close_matches(name, list(BY_NAME) + list(NICKNAMES), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(close)}?" if close else f"; known: {', '.join(BY_NAME)}"
    return f"unknown measure '{name}'{hint}"


def depth_needed(requests: list[Request]) -> int | None:
    """How many ranks of each ranking the requests read (None: all of them)."""
    depths = [None if r.judged_only else r.measure.depth(r.params) for r in requests]
    return None if any(d is None for d in depths) else max(depths, default=0)


def compute(requests: list[Request], ctx: Context) -> list[tuple[Request, list[np.ndarray]]]:
    """Per-query values of every requested line."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # IEEE results, as in C
        return [(r, r.measure.compute(ctx.variant(r.gains, r.judged_only), r.params)) for r in requests]
