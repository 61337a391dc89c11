"""trecgain.options.EvaluationOptions (issue 18): one frozen, checked value of an evaluation's
options, read by the core by field name, enums refused rather than defaulted."""

from __future__ import annotations

import os
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


# The one value, passed along (issue 18): what -j workers, Dask, compare and explain use is the
# Evaluator.options of the same command.

R03 = EXAMPLE.parent / "compare" / "robust03"
GIVEN = dict(compat="10", relevance_level=2, judged_only=True, global_gains="exp", discount="log:e",
             exact_ideal=True, err_max_grade=3, num_docs=500, ties="rank")
FLAGS = ["-l", "2", "-J", "--global-gains", "exp", "--discount", "log:e", "--exact-ideal", "--err-max-grade", "3",
         "-N", "500", "--ties", "rank"]
MEASURES = ["ndcg_cut.10", "P.5"]


def test_the_commands_jobs_use_the_evaluators_one_value(tmp_path, monkeypatch):
    """-j 2: each forked worker evaluates with the value the command's Evaluator holds."""
    from conftest import run_cli

    seen = tmp_path / "seen"
    evaluate = Evaluator.evaluate

    def recording(self, *args, **kwargs):
        with open(seen, "ab") as out:  # appended by each worker process
            pickle.dump((os.getpid(), self.options), out)
        return evaluate(self, *args, **kwargs)

    monkeypatch.setattr(Evaluator, "evaluate", recording)
    out = run_cli(["-j", "2", *[a for m in MEASURES for a in ("-m", m)], *FLAGS, QRELS, RUN, RUN])
    assert out.rc == 0, out.stderr
    recorded = []
    with open(seen, "rb") as source:
        while True:
            try:
                recorded.append(pickle.load(source))
            except EOFError:
                break
    assert len(recorded) == 2 and all(pid != os.getpid() for pid, _ in recorded)
    expected = Evaluator(QRELS, measures=MEASURES, **GIVEN).options
    assert [options for _, options in recorded] == [expected, expected]


def test_dask_is_given_the_commands_one_value(monkeypatch):
    """--dask: distributed.command_outcomes gets the checked value (its parts ship its for_part())."""
    from conftest import run_cli

    from trecgain import distributed

    given = []

    class Stop(Exception):
        pass

    def capturing(address, files, measures, options, *rest):
        given.append((measures, options, Evaluator.from_options(files[0], measures, options).options))
        raise Stop

    monkeypatch.setattr(distributed, "command_outcomes", capturing)
    with pytest.raises(Stop):
        run_cli(["--dask", "local", *[a for m in MEASURES for a in ("-m", m)], *FLAGS, QRELS, RUN])
    (measures, options, built), = given
    expected = Evaluator(QRELS, measures=MEASURES, **GIVEN).options
    assert measures == MEASURES and built == expected
    assert options.replace(empty_ok=expected.empty_ok) == expected


def test_compare_evaluates_with_one_value():
    from trecgain import compare

    runs = [str(R03 / f"{name}.txt.gz") for name in ("uwmtCR0", "aplrob03a")]
    qrels = str(R03 / "qrels.txt.gz")
    given = {k: v for k, v in GIVEN.items() if k != "ties"}
    c = compare(qrels, runs, measures=MEASURES, permutations=10, bootstrap=0, **given)
    assert c.options == Evaluator(qrels, measures=MEASURES, **given).options
    two = compare(qrels, runs, measures=MEASURES, permutations=10, bootstrap=0, **{**given, "global_gains": "linear,exp"})
    assert two.options == Evaluator(qrels, measures=MEASURES, **{**given, "global_gains": "linear"}).options
    assert len(two.cutoff_curve(3)) == 2


def test_compare_checks_ties_average_per_measure():
    from trecgain import compare

    runs = [str(R03 / f"{name}.txt.gz") for name in ("uwmtCR0", "aplrob03a")]
    with pytest.raises(TrecgainError, match="--ties average"):
        compare(str(R03 / "qrels.txt.gz"), runs, measures=["map"], permutations=10, bootstrap=0, ties="average")


def test_explain_passes_its_one_value(monkeypatch, capsys):
    from trecgain.cli import explain, main

    seen = []
    explain_options = explain.explain_options

    def recording(qrels, run, measure, query, options):
        seen.append((measure, options))
        return explain_options(qrels, run, measure, query, options)

    monkeypatch.setattr(explain, "explain_options", recording)
    args = ["-m", "ndcg_cut.10", "-m", "ndcg", "--query", "301", "-l", "2", "-J", "--global-gains", "exp",
            "--discount", "log:e", QRELS, RUN]
    assert main(["explain", *args]) == 0, capsys.readouterr().err
    given = dict(relevance_level=2, judged_only=True, global_gains="exp", discount="log:e")
    assert [m for m, _ in seen] == ["ndcg_cut.10", "ndcg"]
    for measure, options in seen:
        assert Evaluator.from_options(QRELS, [measure], options).options == \
            Evaluator(QRELS, measures=[measure], **given).options
