"""trecgain.pytrec_eval against pytrec_eval itself (pytrec-eval-terrier, trec_eval 9's C code).

A seeded random differential test draws small collections (ties, scores tied only as float32
(trec_eval 9 rounds scores to float), negative grades, empty
rankings, queries only in the qrels or only in the run, numeric and odd docnos) and measure
lists (every measure pytrec_eval supports, its nicknames, `meas.p` and `meas_p` spellings,
measures named twice), with relevance_level and judged_docs_only_flag varied, and requires
the same queries, the same keys in the same order, the same types and bit-identical values
(NaN where pytrec_eval has NaN), on a first and a second `evaluate` of one evaluator.  The
other tests cover what pytrec_eval's own suite (tests/pytrec_eval_tests.py) checks, with
their own cases, each compared with pytrec_eval or computed by hand.

What is not drawn, and why: a query of the run whose judgments are all negative (trec_eval 9
reads a NULL or stale buffer there: pytrec_eval answers zeros or crashes; see
test_differential.py), the query id "no_query" (pytrec_eval's cache key), and parameter
lists that trec_eval calls duplicates (`iprec_at_recall.0.5` with `.0.50`: pytrec_eval aborts),
and an empty ranking ({}) where bpref is asked for with another measure: pytrec-eval-terrier
0.5.11 then crashes (SIGSEGV) when the query has a nonrelevant judgment, e.g.
    RelevanceEvaluator({'0': {'a': 1, 'b': 0}}, {'bpref', 'map'}).evaluate({'0': {}})
(test_bpref_of_an_empty_ranking pins trecgain's answer, by hand).

What is not compared: runid's per-query value.  trec_eval 9's runid has no value slot (its
eval_index stays -1), and pytrec_eval reads the double before its value buffer: 0.0 in a fresh
process, the bits of a heap pointer (4.66e-310) after other allocations.  trecgain gives 0.0.
"""

from __future__ import annotations

import io
import math
import random
import struct

import pytest
import pytrec_eval

import trecgain.pytrec_eval as dropin
from trecgain import TrecgainError

#: Measure arguments drawn from: every measure pytrec_eval supports, bare, with parameters in
#: both spellings, and its nicknames.
POOL = sorted(pytrec_eval.supported_measures) + [
    "official", "set", "all_trec", "P.3,7", "P_2", "recall_5", "recall.2,10", "ndcg_cut.3", "ndcg_cut_5,10",
    "map_cut.1,4", "relative_P.2", "success.2,3", "success_1", "iprec_at_recall.0.25,0.5", "Rprec_mult.0.5,1.5",
    "set_F.0.5", "11pt_avg.0.25,0.5,0.75", "relstring.5", "map.5", "P_3x"]


def collection(rng: random.Random) -> tuple[dict, dict]:
    """Up to 6 queries; grades -2..3; scores from a small range (ties) or floats; some empty rankings."""
    docs = [f"d{i}" for i in range(12)] + ["10", "9", "100", "é", "Z"]
    qrels, run = {}, {}
    for q in range(rng.randint(1, 6)):
        qid = str(rng.choice([q, q + 10, q * 7]))
        judged = rng.sample(docs, rng.randint(0, 9))
        grades = {d: rng.randint(-2, 3) for d in judged}
        in_run = rng.random() < 0.85
        if in_run and grades and max(grades.values()) < 0:
            grades[judged[0]] = rng.randint(0, 2)
        if rng.random() < 0.9:
            qrels[qid] = grades
        if in_run:
            retrieved = rng.sample(docs, rng.randint(0, 10))
            kind = rng.choice(["tied", "float32 ties", "distinct"])  # 1 + k/1e9: apart as doubles only
            run[qid] = {d: float(rng.randint(0, 3)) if kind == "tied" else 1 + rng.randint(0, 3) / 1e9
                        if kind == "float32 ties" else rng.uniform(-5, 5) for d in retrieved}
    if rng.random() < 0.2:
        run["only-in-run"] = {"d1": 1.0}
    return qrels, run


#: What asks for bpref: with an empty ranking of a query with a nonrelevant judgment, pytrec_eval
#: then reads freed or unset memory (a segmentation fault, or not, from run to run).
BPREF = {"bpref", "gm_bpref", "official", "all_trec"}


def identical(mine: dict, ref: dict) -> None:
    """Same queries and keys in the same order, float values bit for bit (NaN with NaN); runid's
    value is trecgain's 0.0, pytrec_eval's is undefined (see the module notes)."""
    assert list(mine) == list(ref)
    for qid in ref:
        assert list(mine[qid]) == list(ref[qid]), qid
        for key, want in ref[qid].items():
            got = mine[qid][key]
            assert type(got) is float, (qid, key, got)
            if key == "runid":
                assert got == 0.0
                continue
            same = struct.pack("<d", got) == struct.pack("<d", want) or (math.isnan(got) and math.isnan(want))
            assert same, (qid, key, got, want)


def test_random_collections_identical_to_pytrec_eval():
    rng = random.Random(19)
    compared = 0
    for _ in range(400):
        qrels, run = collection(rng)
        measures = set(rng.sample(POOL, rng.randint(1, 6)))
        if measures & BPREF:  # pytrec_eval's memory fault (see the module notes)
            run = {qid: docs or {"d1": 1.0} for qid, docs in run.items()}
        level = rng.randint(1, 3)
        judged_only = rng.random() < 0.3
        ref = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                             judged_docs_only_flag=judged_only)
        mine = dropin.RelevanceEvaluator(qrels, measures, relevance_level=level, judged_docs_only_flag=judged_only)
        expected = ref.evaluate(run)
        identical(mine.evaluate(run), expected)
        identical(mine.evaluate(run), ref.evaluate(run))  # a second call, on both sides
        compared += sum(len(v) for v in expected.values())
    assert compared > 10_000


def test_supported_measures_and_nicknames_are_pytrec_evals():
    assert dropin.supported_measures == pytrec_eval.supported_measures
    assert dropin.supported_nicknames == pytrec_eval.supported_nicknames


QREL = {"a": {"x": 0, "y": 1, "z": 0}, "b": {"y": 1, "z": 1}}


def test_ndcg_by_hand():
    """One relevant document at rank 1, 2, 3: nDCG 1, 1/log2(3), 1/log2(4) = 0.5."""
    ev = dropin.RelevanceEvaluator(QREL, {"map", "ndcg"})
    for scores, want in [((1.0, 2.0, 1.5), 1.0), ((4.0, 2.0, 1.5), 1 / math.log2(3)), ((1.0, 0.0, 1.5), 0.5)]:
        result = ev.evaluate({"a": dict(zip("xyz", scores)), "b": {}})
        assert result["a"]["ndcg"] == pytest.approx(want, rel=1e-15)
        assert result["b"] == {"map": 0.0, "ndcg": 0.0}  # an empty ranking is evaluated


def test_judged_docs_only_flag_by_hand():
    """Query b: z (relevant), unjudged x, y (relevant); judged only, the ranking is z y."""
    run = {"b": {"x": 1.0, "y": 0.0, "z": 1.5}, "c": {"x": 1.0}}
    plain = dropin.RelevanceEvaluator(QREL, {"ndcg"}).evaluate(run)
    judged = dropin.RelevanceEvaluator(QREL, {"ndcg"}, judged_docs_only_flag=True).evaluate(run)
    ideal = 1 + 1 / math.log2(3)
    assert plain == {"b": {"ndcg": pytest.approx((1 + 1 / math.log2(4)) / ideal, rel=1e-15)}}
    assert judged == {"b": {"ndcg": 1.0}}  # and c, which the qrels lack, is left out


@pytest.mark.parametrize("measures", [{"all_trec"}, {"set"}, {"official"}, {"official", "set", "ndcg"},
                                      ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000", "P"]])
def test_nicknames_and_parameters_give_pytrec_evals_keys(measures):
    run = {"a": {"x": 1.0, "y": 0.5}, "b": {}}
    identical(dropin.RelevanceEvaluator(QREL, measures).evaluate(run),
              pytrec_eval.RelevanceEvaluator(QREL, measures).evaluate(run))  # b's iprec_at_recall_0.00: NaN


def test_parameters_merge_and_name_lines():
    ev = dropin.RelevanceEvaluator(QREL, ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "P"])
    keys = list(ev.evaluate({"a": {"y": 1.0}})["a"])
    assert keys == ["P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000",
                    "ndcg_cut_1", "ndcg_cut_4", "ndcg_cut_20"]  # bare ndcg_cut adds no defaults


@pytest.mark.parametrize("qrels, measures, run", [
    (QREL, {"map", "ndcg"}, {}), (QREL, set(), {"a": {"x": 1.0}, "b": {}}), ({}, {"map", "ndcg"}, {"a": {"x": 1.0}}),
    ({}, {"map"}, {}), (QREL, set(), {}), ({}, set(), {"a": {"x": 1.0}}), ({}, {}, {}),
    ({"a": {}, "b": {"y": 1}}, {"map"}, {"a": {"x": 1.0}, "b": {"y": 1.0}}), (QREL, {"map"}, {"zz": {"x": 1.0}})])
def test_empty_inputs_as_pytrec_eval(qrels, measures, run):
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert dropin.RelevanceEvaluator(qrels, measures).evaluate(run) == expected


def test_evaluate_twice_and_interleaved_evaluators():
    """pytrec_eval #22/#38: a second evaluate lost cutoffs; trecgain's evaluators share nothing."""
    run = {"a": {"x": 0.8, "y": 0.7, "z": 0.3}, "b": {"z": 0.8, "y": 0.7, "q": 8.0}}
    first = dropin.RelevanceEvaluator(QREL, {"map", "ndcg_cut.10,100,2"})
    other = dropin.RelevanceEvaluator(QREL, {"ndcg_cut.1", "P.3"})
    once = first.evaluate(run)
    assert sorted(once["a"]) == ["map", "ndcg_cut_10", "ndcg_cut_100", "ndcg_cut_2"]
    other.evaluate(run)
    assert first.evaluate(run) == once
    assert once == pytrec_eval.RelevanceEvaluator(QREL, {"map", "ndcg_cut.10,100,2"}).evaluate(run)


@pytest.mark.parametrize("measures", [{"nope"}, {"P.x"}, "map", {"prefs"}, {"qrels_jg"}, {"map_avgjg"}])
def test_unknown_measures_raise_value_error(measures):
    with pytest.raises(ValueError):
        pytrec_eval.RelevanceEvaluator(QREL, measures)
    with pytest.raises(ValueError):
        dropin.RelevanceEvaluator(QREL, measures)


@pytest.mark.parametrize("qrels, level", [(QREL, 0), (QREL, 1.5), ({1: {"x": 1}}, 1), ({"a": {"x": 1.5}}, 1),
                                          ({"a": [1]}, 1), ([("a", "x", 1)], 1)])
def test_bad_arguments_raise_type_error(qrels, level):
    with pytest.raises((TypeError, AttributeError)):
        pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=level)
    with pytest.raises(TypeError):
        dropin.RelevanceEvaluator(qrels, {"map"}, relevance_level=level)


@pytest.mark.parametrize("run", [{1: {"x": 1.0}}, {"a": {"x": "1"}}, {"a": [("x", 1.0)]}, [("a", "x", 1.0)]])
def test_bad_runs_raise_type_error(run):
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator(QREL, {"map"}).evaluate(run)
    with pytest.raises(TypeError):
        dropin.RelevanceEvaluator(QREL, {"map"}).evaluate(run)


@pytest.mark.parametrize("run", [{"a": {"x": math.nan}}, {"a": {"x y": 1.0}}, {"a": {"": 1.0}}])
def test_what_pytrec_eval_accepts_and_trecgain_refuses(run):
    """NaN scores and ids with whitespace: pytrec_eval answers; trecgain names the entry."""
    pytrec_eval.RelevanceEvaluator(QREL, {"map"}).evaluate(run)
    with pytest.raises(TrecgainError) as caught:
        dropin.RelevanceEvaluator(QREL, {"map"}).evaluate(run)
    assert isinstance(caught.value, TypeError) and str(caught.value).startswith("run: ")


RUN_TEXT = "a Q0 x 1 2.5 t\na Q0 y 2 1.0 t\nb Q0 z 1 -0.5 t\n"
QREL_TEXT = "a 0 x 0\na 0 y 1\nb 0 z 2\n"


def test_parse_run_and_qrel_as_pytrec_eval():
    assert dropin.parse_run(io.StringIO(RUN_TEXT)) == pytrec_eval.parse_run(io.StringIO(RUN_TEXT))
    assert dropin.parse_qrel(io.StringIO(QREL_TEXT)) == pytrec_eval.parse_qrel(io.StringIO(QREL_TEXT))
    assert dropin.parse_run(io.StringIO(RUN_TEXT)) == {"a": {"x": 2.5, "y": 1.0}, "b": {"z": -0.5}}
    with pytest.raises(AssertionError):
        dropin.parse_qrel(io.StringIO("a 0 x 1\na 0 x 2\n"))
    with pytest.raises(ValueError):
        dropin.parse_run(io.StringIO("a Q0 x 1 2.5\n"))


@pytest.mark.parametrize("measure", ["map", "num_ret", "gm_map", "P_5"])
def test_compute_aggregated_measure_as_pytrec_eval(measure):
    values = [0.1, 0.7, -2.5, 0.3333333333333333, 1e-5, 0.2] * 7
    assert dropin.compute_aggregated_measure(measure, values) == pytrec_eval.compute_aggregated_measure(measure,
                                                                                                          values)


def test_trec_eval_files_through_the_dropin():
    """parse_run/parse_qrel then evaluate, summed with compute_aggregated_measure: trecgain's own
    `all` lines under compat 9 (trec_eval's order of addition aside, to 1e-12)."""
    from trecgain import Evaluator

    with open("testdata/example/qrels.txt") as f:
        qrel = dropin.parse_qrel(f)
    with open("testdata/example/run.txt") as f:
        run = dropin.parse_run(f)
    per_query = dropin.RelevanceEvaluator(qrel, {"official"}).evaluate(run)
    summary = Evaluator("testdata/example/qrels.txt", ["official"], compat="9").evaluate(
        "testdata/example/run.txt").aggregate
    for name, want in summary.items():
        if name != "runid":
            got = dropin.compute_aggregated_measure(name, [v[name] for v in per_query.values()])
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), name


def test_bpref_of_an_empty_ranking():
    """Nothing retrieved: bpref 0, gm_bpref's per-query log of the floor 1e-5 (trec_eval's rule)."""
    result = dropin.RelevanceEvaluator({"0": {"a": 1, "b": 0}}, {"bpref", "gm_bpref", "map"}).evaluate({"0": {}})
    assert result == {"0": {"map": 0.0, "bpref": 0.0, "gm_bpref": math.log(1e-5)}}
