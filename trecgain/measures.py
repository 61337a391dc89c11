"""The measure registry: one record per measure, in trec_eval's output order, and the
parsing of measure arguments (`ndcg_cut.10`, `ndcg.1=2`, `gain`, `nDCG@10`) into requests.

A record says what the user sees: the name, its parameters and their defaults, how its
lines are named and summarised, its help.  The computation is the core's kernel of the
same name (core/src/measures/, listed in `KERNELS`): adding a measure means one kernel
there and one record here.
"""

from __future__ import annotations

from . import names as names_module
from .errors import TrecgainError
from .gains import GainSpec, parse_gain_spec
from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any


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


class Measure(Record):
    """One registry record: name, help, how parameters are parsed (`parse(text, compat)`) and
    their `default`, how its lines are named and summed:

    - naming: plain | params (name_PARAMS) | cutoffs (name_K per cutoff)
    - value: float | count | tag
    - summary: mean | sum | sum_judged_relevant (sum; -c: qrels grades > 0) | count | tag
    - per_query: printed per query with -q
    - in_trec_eval_9: False for dcg and ideal_dcg, new in trec_eval 10
    - in_trec_eval: False for trecgain's own measures, outside the `gain` nickname
    """

    __slots__ = ("name", "help", "parse", "default", "naming", "value", "summary", "per_query",
                 "in_trec_eval_9", "in_trec_eval")
    DEFAULTS = {"parse": _no_params, "default": None, "naming": "plain", "value": "float", "summary": "mean",
                "per_query": True, "in_trec_eval_9": True, "in_trec_eval": True}

    def line_names(self, params: Any, text: str | None) -> list[str]:
        if self.naming == "cutoffs":
            return [f"{self.name}_{k}" for k in params]
        if self.naming == "params" and text is not None:
            return [f"{self.name}_{text}"]
        return [self.name]


_GAINS_HELP = "Gains per level can be given as 'level=gain,...' (default: gain = grade)."

REGISTRY: tuple[Measure, ...] = (
    Measure("runid", "Run id: the tag of the last run line read.", value="tag", summary="tag",
            per_query=False),
    Measure("num_q", "Number of queries evaluated.", value="count", summary="count", per_query=False),
    Measure("num_ret", "Number of documents retrieved (after -M and -J); the summary is the sum.",
            value="count", summary="sum"),
    Measure("num_rel", "Number of judged documents with grade >= -l; the summary is the sum "
            "(with -c: every judgment with grade > 0, as trec_eval counts).", value="count",
            summary="sum_judged_relevant"),
    Measure("num_rel_ret", "Number of retrieved documents with grade >= -l; the summary is the sum.",
            value="count", summary="sum"),
    Measure("binG", "Binary G: 1/log2(2 + nonrelevant before it) averaged over the relevant documents."),
    Measure("G", "Normalised gain with a cost model (trec_eval's experimental G). " + _GAINS_HELP,
            parse_gain_spec, naming="params"),
    Measure("dcg", "Discounted cumulative gain over the whole ranking. " + _GAINS_HELP,
            parse_gain_spec, naming="params", in_trec_eval_9=False),
    Measure("ideal_dcg", "DCG of the ideal ranking of all judged documents. " + _GAINS_HELP,
            parse_gain_spec, naming="params", in_trec_eval_9=False),
    Measure("ndcg", "Normalised DCG over the whole ranking (Jarvelin and Kekalainen). " + _GAINS_HELP,
            parse_gain_spec, naming="params"),
    Measure("ndcg_rel", "nDCG averaged over the relevant documents. " + _GAINS_HELP,
            parse_gain_spec, naming="params"),
    Measure("Rndcg", "nDCG averaged where the ideal gain changes level. " + _GAINS_HELP,
            parse_gain_spec, naming="params"),
    Measure("ndcg_cut", "nDCG at cutoffs, grades as gains: -m ndcg_cut.5,10 "
            "(default 5,10,15,20,30,100,200,500,1000).", parse_cutoffs,
            default=(5, 10, 15, 20, 30, 100, 200, 500, 1000), naming="cutoffs"),
    Measure("err_cut", "Expected reciprocal rank at cutoffs as gdeval.pl computes it, r = (2^grade - 1) / 2^max "
            "(max grade 4, --err-max-grade): -m err_cut.10,20 (not in trec_eval).", parse_cutoffs,
            default=(5, 10, 20), naming="cutoffs", in_trec_eval=False),
    Measure("ndcg_p", "nDCG over the whole ranking with exponential gains 2^grade - 1 (not in trec_eval).",
            in_trec_eval=False),
    Measure("cg_cut", "Cumulative gain at cutoffs, undiscounted: -m cg_cut.5,10 (not in trec_eval; "
            "gains from --global-gains).", parse_cutoffs, default=(5, 10, 15, 20, 30, 100, 200, 500, 1000),
            naming="cutoffs", in_trec_eval=False),
)

BY_NAME = {m.name: m for m in REGISTRY}
NICKNAMES = {"gain": tuple(m.name for m in REGISTRY if m.in_trec_eval)}
TREC_EVAL_SETS = ("all_trec", "official", "all_qrels", "qrels_jg", "all_prefs", "set", "trec_results")
OTHER_TREC_EVAL = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
                   "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "map_cut", "relative_P", "success",
                   "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp",
                   "rbp_resid", "unj", "yaap", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"}


class Request(Record):
    """One measure to compute, with its parsed parameters and the text they came from (None:
    the defaults), its line names, and from ir_measures names: its own gains (a GainSpec),
    whether it alone drops unjudged documents, and the line name the user wrote."""

    __slots__ = ("measure", "params", "text", "lines", "gains", "judged_only", "label")
    DEFAULTS = {"text": None, "lines": [], "gains": None, "judged_only": False, "label": None}

    def to_core(self) -> tuple:
        """The tuple trecgain._core reads: kernel, cutoffs, gains, judged_only, summary."""
        cutoffs = list(self.params) if self.measure.naming == "cutoffs" else []
        gains = self.gains if self.gains is not None else (self.params if isinstance(self.params, GainSpec) else None)
        return (self.measure.name, cutoffs, gains.to_core() if gains else None, self.judged_only, self.measure.summary)


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
