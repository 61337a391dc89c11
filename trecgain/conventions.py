"""Other tools' conventions (`--as TOOL`, issue 22): a record per tool of the choices that make
its numbers differ from trec_eval's (docs/conventions.md names them), as data.  Each choice is
applied through the options the core already has (compat 9's float32 scores, the tie rules,
-c, -l, -M, gains and discounts) or the three the core has for conventions (drop_self, ideal,
level_gains, read from EvaluationOptions by field name); rounding is applied to the values a
Result gives.  No tool's code is here: the rules were read from each tool's source (see
docs/conventions.md for the files and commits)."""

from __future__ import annotations

from .errors import TrecgainError
from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from .measures import Request


class Convention(Record):
    """One tool's rules, each a named choice of docs/conventions.md:

    name; score (score precision: "f64" or "f32", trec_eval 9's float32 scores); ties (the
    core's tie rule: docno = docno descending, reversed = docno ascending, average, rank = the
    run's rank column); level (relevance level: None = the caller's -l, else fixed); level_gains
    (judgments below the level are dropped, so a gain measure ignores them too); ideal (judged:
    every judged document; ranking: the ranked documents' own grades); queries (the query set of
    the mean: both = queries in the run and the qrels; qrels = every qrels query, one the run
    lacks scoring 0; equal = the two sets must be equal); drop_self (a document whose id is the
    query's is removed); max_docs (a fixed cutoff of every ranking, None: none); gains and
    discount (the gain scheme and discount of the DCG family); rounding (decimals the tool rounds
    its means to, None: not rounded); measures (the trecgain measures the tool computes, None:
    all of trec_eval's); lacks (why a measure is missing, for the error); judged_runs (a run
    query the qrels lack is an error: the tool raises KeyError); variants ({measure kind:
    the convention of a measure the tool computes by other rules}, see `variant_for`).

    queries may also be "run": every run query counts, one the qrels lack scoring 0 (trectools;
    1 when no_relevant is "one").  no_relevant: what a query with nothing relevant (no document
    at the level among those the ideal is built from) gets: "zero" (its measures' values, 0),
    "one", "skip" (left out: no values, not in the mean) or "error"; positive_scores: a document
    whose score is not positive is not relevant (its gain is kept); ap_divisor: what AP is
    divided by, "relevant" (every relevant document) or "found" (those ranked within the cutoff)."""

    __slots__ = ("name", "score", "ties", "level", "level_gains", "ideal", "queries", "drop_self", "max_docs",
                 "gains", "discount", "rounding", "measures", "lacks", "judged_runs", "variants", "no_relevant",
                 "positive_scores", "ap_divisor")
    DEFAULTS = {"score": "f64", "ties": "docno", "level": None, "level_gains": False, "ideal": "judged",
                "queries": "both", "drop_self": False, "max_docs": None, "gains": None, "discount": "log:2",
                "rounding": None, "measures": None, "lacks": "", "judged_runs": False, "variants": (),
                "no_relevant": "zero", "positive_scores": False, "ap_divisor": "relevant"}

    @property
    def compat(self) -> str:
        """The trec_eval version whose numerics give the tool's score precision."""
        return "9" if self.score == "f32" else "10"

    @property
    def is_trec_eval(self) -> bool:
        """Whether lines computed under it are trec_eval's own (unmarked)."""
        return self.name in ("trec_eval", "trec_eval9")


_PYTREC_MEASURES = None  # every trec_eval 9 measure
_BEIR_MEASURES = ("ndcg_cut", "map_cut", "recall", "P")
_BEIR_LACKS = ("BEIR and MTEB compute nDCG@k, MAP@k, Recall@k and P@k through pytrec_eval (ndcg_cut, map_cut, "
               "recall, P), and MRR@k (RR@k, recip_rank) by their own code")
_RR = ("recip_rank",)
#: BEIR's MRR@k (custom_metrics.mrr): a stable sort by score, grade > 0, over every qrels query, a
#: run query the qrels lack a KeyError; the document named as its query is gone when evaluate ran
#: first on the same dict (BEIR's usual order), rounded to 5 decimals.
_BEIR_MRR = Convention("beir", ties="input", level=1, queries="qrels", drop_self=True, rounding=5, measures=_RR,
                       judged_runs=True, lacks="BEIR's MRR@k")
#: MTEB's MRR@k (retrieval_metrics.mrr): score, then doc id descending, on float64 scores, grade
#: > 0, over the run's queries (each must have qrels), not rounded.
_MTEB_MRR = Convention("mteb", level=1, measures=_RR, judged_runs=True, lacks="MTEB's MRR@k")
#: ir_measures' RR@k (its msmarco provider): score, then doc id ascending, float64 scores, every
#: qrels query.
_IR_RR = Convention("ir_measures", ties="reversed", queries="qrels", measures=_RR, lacks="ir_measures' RR@k")
_TRECTOOLS = ("ndcg_cut", "map", "map_cut", "recip_rank", "P", "recall")
#: trectools' get_ndcg never re-sorts: the run's load order, score descending then docid ascending.
_TRECTOOLS_NDCG = Convention("trectools", ties="reversed", level=1, queries="run", measures=("ndcg_cut",),
                             lacks="trectools' get_ndcg")

_GDEVAL = ("ndcg_cut", "err_cut")
_GDEVAL_LACKS = "gdeval.pl computes nDCG@k and ERR@k only: -m ndcg_cut.k, err_cut.k"
_TORCHMETRICS = ("ndcg_cut", "ndcg", "map", "map_cut", "recip_rank", "P", "recall")
_TORCHMETRICS_LACKS = ("torchmetrics' retrieval_normalized_dcg, retrieval_average_precision, retrieval_reciprocal_rank, "
                       "retrieval_precision and retrieval_recall are implemented (ndcg_cut, ndcg, map, map_cut, "
                       "recip_rank, P, recall)")
#: torchmetrics' empty_target_action: (its name, the rule for a query with nothing relevant
#: among its retrieved documents, the query set, whether a run query the qrels lack is an error).
#: A run query the qrels lack is such a query too: 0 (neg) or 1 (pos) in the mean, else left out
#: (skip) or an error.
_EMPTY_TARGET_ACTIONS = (("neg", "zero", "run", False), ("pos", "one", "run", False), ("skip", "skip", "both", False),
                         ("error", "error", "both", True))


def _torchmetrics(action: str, no_relevant: str, queries: str, judged_runs: bool) -> Convention:
    """torchmetrics' retrieval metrics with one empty_target_action (docs/conventions.md): float32
    scores, only the ranked documents (the ideal, recall's and AP's divisors), a document with a
    non-positive score never relevant (AP, RR, P, recall), AP over the relevant found within k;
    its nDCG averages tied documents and keeps every score's gain (a variant: a run of its own)."""
    name = "torchmetrics" if action == "neg" else f"torchmetrics-{action}"
    rules = {"score": "f32", "ideal": "ranking", "queries": queries, "judged_runs": judged_runs,
             "no_relevant": no_relevant, "measures": _TORCHMETRICS, "lacks": _TORCHMETRICS_LACKS}
    ndcg = Convention(name, ties="average", level=1, **rules)
    return Convention(name, positive_scores=True, ap_divisor="found", variants=(("ndcg_cut", ndcg), ("ndcg", ndcg)),
                      **rules)


#: The tools, in the order of their users.  What each rule is and where it was read:
#: docs/conventions.md.
CONVENTIONS: dict[str, Convention] = {c.name: c for c in (
    Convention("trec_eval"),
    Convention("trec_eval9", score="f32"),
    Convention("pytrec_eval", score="f32", measures=_PYTREC_MEASURES),
    Convention("beir", score="f32", level=1, drop_self=True, rounding=5, measures=_BEIR_MEASURES,
               lacks=_BEIR_LACKS, variants=(("recip_rank", _BEIR_MRR), ("recip_rank@k", _BEIR_MRR))),
    Convention("mteb", score="f32", level=1, rounding=5, measures=_BEIR_MEASURES, lacks=_BEIR_LACKS,
               variants=(("recip_rank", _MTEB_MRR), ("recip_rank@k", _MTEB_MRR))),
    Convention("ir_measures", score="f32", queries="qrels", variants=(("recip_rank@k", _IR_RR),)),
    Convention("ranx", level_gains=True, queries="equal",
               measures=("ndcg_cut", "ndcg", "map_cut", "map", "recip_rank", "P", "recall"),
               lacks="ranx's ndcg@k, ndcg, map@k, map, mrr, precision@k and recall@k are implemented"),
    Convention("sklearn", level=1, ties="average", ideal="ranking", queries="run", measures=("ndcg_cut", "ndcg"),
               lacks="scikit-learn ranks with ndcg_score and dcg_score only (its average_precision_score is "
                     "the classification AP)"),
    Convention("msmarco", ties="rank", level=0, queries="qrels", max_docs=10, measures=("recip_rank",),
               lacks="the MS MARCO script computes MRR@10 only: -m recip_rank (cut at rank 10)"),
    Convention("trectools", level=1, queries="run", measures=_TRECTOOLS,
               lacks="trectools' get_ndcg, get_map, get_reciprocal_rank, get_precision and get_recall are "
                     "implemented", variants=(("ndcg_cut", _TRECTOOLS_NDCG),)),
    Convention("gdeval", gains="exp", discount="log:e", level=1, no_relevant="skip", rounding=5, measures=_GDEVAL,
               lacks=_GDEVAL_LACKS),
    *(_torchmetrics(*action) for action in _EMPTY_TARGET_ACTIONS),
)}


def measure_kind(request: Request) -> str:
    """What a convention's variants are keyed by: the kernel, `@k` added for a cutoff RR."""
    kernel = request.measure.kernel or request.measure.name
    return f"{kernel}@k" if kernel == "recip_rank" and request.params.cutoffs else kernel


def variant_for(convention: Convention, requests: list[Request]) -> Convention:
    """The convention of these measures: a tool that computes some measures by other rules
    (BEIR's MRR@k, ir_measures' RR@k, trectools' nDCG) has them in `variants`; one evaluation
    follows one set of rules, so such measures are evaluated alone (else a TrecgainError)."""
    variants = dict(convention.variants)
    if not variants or not requests:
        return convention
    kinds = {measure_kind(r) for r in requests}
    chosen = {variants.get(kind, convention) for kind in kinds}
    if len(chosen) > 1:
        apart = sorted({r.lines[0] if r.lines else r.measure.name for r in requests if measure_kind(r) in variants})
        raise TrecgainError(f"--as {convention.name}: the tool computes {', '.join(apart)} by other rules than its "
                            f"other measures (docs/conventions.md): evaluate {'it' if len(apart) == 1 else 'them'} "
                            "in a run of its own")
    return chosen.pop()


def convention_named(value: object) -> Convention:
    """The convention of `--as TOOL` (a TrecgainError for an unknown tool)."""
    if isinstance(value, Convention):
        return value
    found = CONVENTIONS.get(value) if isinstance(value, str) else None
    if found is None:
        shown = repr(value) if not isinstance(value, str) else f"'{value[:40]}'"
        raise TrecgainError(f"convention (--as) must be one of {', '.join(CONVENTIONS)}, not {shown}")
    return found


TREC_EVAL = CONVENTIONS["trec_eval"]


def check_measures(convention: Convention, requests: list[Request]) -> None:
    """A measure the tool lacks under its convention: a TrecgainError saying which it has."""
    for r in requests:
        kernel = r.measure.kernel or r.measure.name
        if convention.measures is not None and kernel not in convention.measures:
            raise TrecgainError(f"--as {convention.name}: the tool has no measure '{r.measure.name}' "
                                f"({convention.lacks})")
        if convention.measures is None and not convention.is_trec_eval and not r.measure.in_trec_eval_9:
            raise TrecgainError(f"--as {convention.name}: the tool has no measure '{r.measure.name}' (it "
                                "computes trec_eval 9's measures)")


#: The options a convention fixes, with their defaults: giving another value with --as is an error.
FIXED = {"compat": "10", "ties": "docno", "complete": False, "max_docs": None, "global_gains": None,
         "discount": "log:2", "exact_ideal": False, "fractional_grades": False, "err_max_grade": 4}


def check_fixed(convention: Convention, given: dict[str, object], relevance_level: object) -> None:
    """--as TOOL with an option the tool's convention sets (--compat, --ties, -c, -M, gains,
    discounts, -l where the tool fixes it): a TrecgainError naming it."""
    if convention is TREC_EVAL:
        return
    for name, default in FIXED.items():
        if given.get(name, default) != default and not (name == "compat" and convention.name == "trec_eval9"
                                                        and given[name] == "9"):
            raise TrecgainError(f"--as {convention.name} sets {name} itself: leave {name} out")
    if convention.level is not None and relevance_level != 1:
        raise TrecgainError(f"--as {convention.name} fixes the relevance level at {convention.level}: leave -l out")


def rounded(value: float, convention: Convention) -> float:
    """A mean as the tool returns it (BEIR and MTEB round to 5 decimals)."""
    return value if convention.rounding is None else round(value, convention.rounding)


def line_name(name: str, convention: Convention) -> str:
    """The name of a line computed under a convention: trec_eval's own, or marked `name~TOOL`."""
    return name if convention.is_trec_eval else f"{name}~{convention.name}"


def described(options: object) -> str | None:
    """What made an evaluation's values, when not trec_eval's own rules (JSON's `convention`
    field): the tool of --as, or trec_eval with the options that change what its names mean
    (--global-gains, --discount, --ties, --fractional-grades, --exact-ideal); None for trec_eval's."""
    convention = options.convention  # type: ignore[attr-defined]
    if not convention.is_trec_eval:
        return convention.name
    changed = []
    gains = options.global_gains  # type: ignore[attr-defined]
    if gains is not None and (gains.scheme != "linear" or gains.pairs):
        changed.append(f"gains={gains.text}")
    if options.discount.text != "log:2":  # type: ignore[attr-defined]
        changed.append(f"discount={options.discount.text}")  # type: ignore[attr-defined]
    if options.ties in ("average", "rank"):  # type: ignore[attr-defined]
        changed.append(f"ties={options.ties}")  # type: ignore[attr-defined]
    if options.fractional_grades:  # type: ignore[attr-defined]
        changed.append("fractional_grades")
    if options.exact_ideal:  # type: ignore[attr-defined]
        changed.append("exact_ideal")
    return f"trec_eval with {', '.join(changed)}" if changed else None
