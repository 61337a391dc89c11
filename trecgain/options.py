"""`EvaluationOptions`: every run-wide option of an evaluation as one frozen, checked value
(issue 18).  It is checked once, by `EvaluationOptions.checked`, with trecgain.check's rules and
messages; the command line, -j workers, Dask, compare and explain all pass this one value, and
trecgain._core reads it by field name into the core's `Options` (core/src/options.rs), refusing
an unknown compat, tie rule or discount rather than defaulting.

A Record, not a dataclass: dataclasses cost the command line's start-up (see trecgain.record)."""

from __future__ import annotations

import sys

from . import check
from .discounts import parse_discount
from .conventions import TREC_EVAL, check_fixed, check_measures, convention_named, variant_for
from .errors import TrecgainError
from .gains import parse_global_gains
from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Callable

    from .discounts import Discount
    from .gains import GainSpec
    from .measures import Request

COMPAT_MODES = ("10", "9")
#: `rel_format=` (trec_eval's -R): the relevance file's format.
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs", "subtopics")
#: `ties=`: trec_eval's rule (score, then docno descending), the run's rank column, or each tied
#: document given its group's mean gain (expected values over every ordering of the tie).
TIE_RULES = ("docno", "rank", "average")
#: The core's tie rules: TIE_RULES, "reversed" (score descending, then docno ascending), which
#: trecgain itself asks for, to tell whether ties decided a value (check_ties, Dask), and "input"
#: (score descending, then the run's order): both also other tools' rules (trecgain.conventions).
CORE_TIE_RULES = (*TIE_RULES, "reversed", "input")
MAX_EXP_GRADE = 1023
GAINS_EXAMPLES = "'exp', 'linear', 'binary' or '1=1,2=3'"


class EvaluationOptions(Record):
    """The run-wide options of an evaluation, checked (build it with `checked`):

    compat ("10" | "9"), relevance_level (-l, an int), judged_only (-J), complete (-c),
    max_docs (-M, an int or None), global_gains (a trecgain.gains.GainSpec or None), discount
    (a trecgain.discounts.Discount), exact_ideal, fractional_grades, err_max_grade, num_docs (-N),
    ties (one of CORE_TIE_RULES), empty_ok: with complete, evaluate even when no query is in
    both files (trec_eval 10's rule; the Evaluator sets it from its measures), rel_format
    (-R: one of REL_FORMATS), zscores (-Z: None, or the (qid, line name, mean, stddev) rows of
    trecgain.read.read_zscores), only_query (-D 0.QID: None, or the qid as bytes) and
    convention (--as: a trecgain.conventions.Convention, whose rules have set the fields above;
    the core reads its drop_self, ideal, level_gains, no_relevant, positive_scores and ap_divisor
    through this value's properties).

    Frozen: `replace(**changes)` makes another value."""

    __slots__ = ("compat", "relevance_level", "judged_only", "complete", "max_docs", "global_gains", "discount",
                 "exact_ideal", "fractional_grades", "err_max_grade", "num_docs", "ties", "empty_ok", "rel_format",
                 "zscores", "only_query", "convention")
    DEFAULTS = {"convention": TREC_EVAL}

    drop_self = property(lambda self: self.convention.drop_self)
    ideal = property(lambda self: self.convention.ideal)
    level_gains = property(lambda self: self.convention.level_gains)
    no_relevant = property(lambda self: self.convention.no_relevant)
    positive_scores = property(lambda self: self.convention.positive_scores)
    ap_divisor = property(lambda self: self.convention.ap_divisor)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"EvaluationOptions is frozen: use replace({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("EvaluationOptions is frozen")

    def __reduce__(self) -> tuple:  # pickled for -j workers and Dask: by value, not by __setattr__
        return (type(self), self._values())

    def replace(self, **changes: object) -> EvaluationOptions:
        """This value with some fields changed (not checked again: trecgain's own changes only)."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return type(self)(**values)

    def for_part(self) -> EvaluationOptions:
        """The options of a part of a run measured on its own (trecgain.distributed): -c off (the
        assembly of the parts applies it), and a part without the qrels' queries not an error."""
        return self.replace(complete=False, empty_ok=True)

    @classmethod
    def checked(cls, compat: object = "10", relevance_level: object = 1, judged_only: object = False,
                complete: object = False, max_docs: object = None, global_gains: object = None,
                discount: object = "log:2", exact_ideal: object = False, fractional_grades: object = False,
                err_max_grade: object = 4, num_docs: object = 0, ties: object = "docno",
                requests: Callable[[str], list[Request]] | None = None,
                rel_format: object = "qrels", zscores: object = None,
                only_query: object = None, convention: object = "trec_eval") -> EvaluationOptions:
        """The options from the Evaluator's keyword values, each checked in turn (a TrecgainError
        naming the first bad one).  `requests(compat)`: the measure requests, parsed once compat
        is known (a bad measure is reported before the other options), for the tie rule's check
        ("average" is defined for some measures only).  convention (--as TOOL) sets the options
        its tool fixes; giving one of them too is an error."""
        tool = convention_named(convention)
        check_fixed(tool, {"compat": compat, "ties": ties, "complete": complete, "max_docs": max_docs,
                           "global_gains": global_gains, "discount": discount, "exact_ideal": exact_ideal,
                           "fractional_grades": fractional_grades, "err_max_grade": err_max_grade}, relevance_level)
        if tool.variants and requests is not None:  # the measures may follow other rules of the tool
            tool = variant_for(tool, requests(tool.compat))
        if tool is not TREC_EVAL:
            compat, ties, complete, max_docs = tool.compat, tool.ties, tool.queries == "qrels", tool.max_docs
            global_gains, discount = tool.gains, tool.discount
            relevance_level = relevance_level if tool.level is None else tool.level
        compat = compat_mode(compat)
        parsed = requests(compat) if requests is not None else []
        check_measures(tool, parsed)
        relevance_level = _level(relevance_level)
        judged_only = check.flag(judged_only, "judged_only (-J)")
        complete = check.flag(complete, "complete (-c)")
        if max_docs is not None:  # more than any ranking is every document: clamped, not refused
            max_docs = min(check.whole(max_docs, "max_docs (-M)", 0), sys.maxsize)
        if global_gains is not None:
            global_gains = check.text(global_gains, "global_gains", GAINS_EXAMPLES)
        discount = check.text(discount, "discount", "'log:2', 'log:e' or 'jk:2'")
        exact_ideal = check.flag(exact_ideal, "exact_ideal")
        fractional_grades = check.flag(fractional_grades, "fractional_grades")
        err_max_grade = check.whole(err_max_grade, "err_max_grade", 0, MAX_EXP_GRADE)
        num_docs = check.whole(num_docs, "num_docs (-N)", 0, check.MAX_EXACT)
        ties = checked_ties(ties, parsed, max_docs) if ties in TIE_RULES or tool is TREC_EVAL else ties  # a tool's
        gains = parse_global_gains(global_gains, compat) if global_gains is not None else None
        rel_format = checked_rel_format(rel_format, parsed)
        if zscores is not None:
            from .read import read_zscores  # not at import: only -Z needs it

            zscores = read_zscores(zscores)  # type: ignore[arg-type]
        if only_query is not None:
            only_query = _qid(only_query)
        return cls(compat, relevance_level, judged_only, complete, max_docs, gains, parse_discount(discount),
                   exact_ideal, fractional_grades, err_max_grade, num_docs, ties, False, rel_format, zscores,
                   only_query, tool)


def _qid(value: object) -> bytes:
    """only_query= (-D 0.QID): a qid, as str or bytes, without whitespace."""
    qid = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value
    if not isinstance(qid, bytes) or not qid or any(c in b" \t\r\n\x0b\x0c\0" for c in qid):
        raise TrecgainError(f"only_query must be a query id, not {check.show(value)}")
    return qid


def checked_rel_format(value: object, requests: list[Request]) -> str:
    """rel_format= (-R): one of REL_FORMATS, and every measure one that reads that format (trec_eval
    fails on any other: map needs qrels, prefs_simp preferences, map_avgjg judgment groups)."""
    if value not in REL_FORMATS:
        raise TrecgainError(f"rel_format (-R) must be one of {', '.join(REL_FORMATS)}, not {check.show(value)}")
    for r in requests:
        needs = r.measure.relevance
        if needs != "any" and needs != value and not (needs == "prefs" and value == "qrels_prefs"):
            wanted = "prefs or -R qrels_prefs" if needs == "prefs" else needs
            raise TrecgainError(f"measure '{r.measure.name}' needs -R {wanted}, not -R {value}")
    return value  # type: ignore[return-value]


def checked_ties(value: object, requests: list[Request], max_docs: int | None) -> str:
    """ties=: one of TIE_RULES; "average" only for the measures it is defined for, without -M
    (checked again by Evaluator.from_options, for the measures of each Evaluator built from one value)."""
    if value not in TIE_RULES:
        raise TrecgainError(f"ties must be one of {', '.join(TIE_RULES)}, not {check.show(value)}")
    if value == "average":
        refused = [r.measure.name for r in requests if not r.measure.tie_average]
        if refused:
            from .measures import REGISTRY  # not at import: only this message needs it

            supported = ", ".join(m.name for m in REGISTRY if m.tie_average)
            raise TrecgainError(f"--ties average (expected values over every ordering of tied documents) is "
                                f"defined for {supported}; not for {', '.join(dict.fromkeys(refused))}")
        if max_docs is not None:
            raise TrecgainError("--ties average does not combine with -M (a cut through a tie group): use a "
                                "cutoff measure, e.g. ndcg_cut.10")
    return value  # type: ignore[return-value]


def compat_mode(value: object) -> str:
    """compat="10" or "9", or the ints 10 and 9: the mode's string (else a TrecgainError)."""
    number = check.integer(value)
    text = str(number) if number is not None else value
    if text not in COMPAT_MODES:
        raise TrecgainError(f"compat must be one of {', '.join(COMPAT_MODES)}, not {check.show(value)}")
    return text  # type: ignore[return-value]


def _level(value: object) -> int:
    """relevance_level (-l): a whole number.  Grades are at most 2**53 in magnitude, so a level
    beyond that is every grade's or none's: it becomes 2**54 (exact as a double), not an
    inexact or infinite one."""
    level = check.whole(value, "relevance_level (-l)")
    if abs(level) > check.MAX_EXACT:
        level = 2 * check.MAX_EXACT if level > 0 else -2 * check.MAX_EXACT
    return level


def gain_spec(value: object, compat: str) -> GainSpec | None:
    """global_gains=: None, or a scheme's text checked and parsed as EvaluationOptions.checked does
    (compare's schemes: `options.replace(global_gains=gain_spec(scheme, options.compat))`)."""
    if value is None:
        return None
    return parse_global_gains(check.text(value, "global_gains", GAINS_EXAMPLES), compat)
