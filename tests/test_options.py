"""trecgain.options.EvaluationOptions (issue 18): one frozen, checked value of an evaluation's
options, read by the core by field name, enums refused rather than defaulted."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from trecgain import _core
from trecgain.evaluate import Evaluator
from trecgain.errors import TrecgainError
from trecgain.options import EvaluationOptions

EXAMPLE = Path(__file__).resolve().parent.parent / "testdata" / "example"
QRELS, RUN = str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")


def _evaluator(**options) -> Evaluator:
    return Evaluator(QRELS, measures=["ndcg_cut.10", "P.5"], **options)


def test_the_options_value_is_frozen():
    options = _evaluator().options
    with pytest.raises(AttributeError):
        options.ties = "rank"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del options.compat
    assert options.ties == "docno"
    changed = options.replace(ties="rank")
    assert changed.ties == "rank" and options.ties == "docno" and changed != options


def test_the_options_value_is_equal_hashable_and_pickled_by_value():
    a, b = _evaluator(compat=9, global_gains="exp", discount="log:e").options, \
        _evaluator(compat="9", global_gains="exp", discount="log:e").options
    assert a == b and hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a  # as -j workers and Dask receive it


def test_checked_is_the_evaluators_one_check():
    with pytest.raises(TrecgainError, match="relevance_level"):
        EvaluationOptions.checked(relevance_level="2")
    with pytest.raises(TrecgainError, match="compat must be one of 10, 9"):
        EvaluationOptions.checked(compat="11")
    assert EvaluationOptions.checked(compat=9, err_max_grade=3) == \
        _evaluator(compat=9, err_max_grade=3).options.replace(empty_ok=False)


def test_the_evaluators_fields_are_its_options():
    ev = _evaluator(relevance_level=2, max_docs=5, ties="rank", complete=True)
    assert (ev.relevance_level, ev.max_docs, ev.ties, ev.complete) == (2, 5, "rank", True)
    assert ev.options.empty_ok  # compat 10 with -c: a run without the qrels' queries is evaluated


@pytest.mark.parametrize("field, value, named", [("compat", "11", "'11'"), ("ties", "random", "'random'"),
                                                  ("ties", "Docno", "'Docno'")])
def test_an_unknown_enum_reaching_the_core_is_an_error(field, value, named):
    ev = _evaluator()
    run = ev.read_run(RUN)
    bad = ev.options.replace(**{field: value})
    with pytest.raises(ValueError, match=named):
        _core.evaluate(ev.qrels, run, [r.to_core() for r in ev.requests], bad, True)


def test_an_unknown_discount_reaching_the_core_is_an_error():
    from trecgain.discounts import Discount

    ev = _evaluator()
    run = ev.read_run(RUN)
    for discount, named in ((Discount("cos", "2"), "'cos'"), (Discount("log", "two"), "'two'")):
        with pytest.raises(ValueError, match=named):
            _core.evaluate(ev.qrels, run, [r.to_core() for r in ev.requests], ev.options.replace(discount=discount),
                           True)


def test_a_missing_field_is_an_error_naming_it():
    ev = _evaluator()
    with pytest.raises(AttributeError, match="compat"):
        _core.evaluate(ev.qrels, ev.read_run(RUN), [r.to_core() for r in ev.requests], object(), True)


def test_reversed_is_a_tie_rule_the_core_takes_by_name():
    ev = _evaluator()
    run = ev.read_run(RUN)
    requests = [r.to_core() for r in ev.requests]
    reversed_ties = _core.evaluate(ev.qrels, run, requests, ev.options.replace(ties="reversed"), True)
    assert len(reversed_ties.summaries) == len(_core.evaluate(ev.qrels, run, requests, ev.options, True).summaries)
