"""Differential tests: trecgain with compat="9" against pytrec_eval, the trec_eval 9.x C code.

pytrec_eval (package pytrec-eval-terrier) links trec_eval 9's measure code; its run scores
go into trec_eval's `float sim`, so they are rounded to float32 exactly as trecgain's
compat "9" does.  Hypothesis generates small collections that stress the semantics (query
ids whose string order is not their numeric order, queries in only one of qrels and run,
graded / binary / all-zero / negative / large grades, ties, float32 near-ties and halfway
cases, negative scores, numeric and non-ASCII docnos, -l and -J) and every per-query value
must agree to a relative 1e-12 (NaN only with NaN), as must the `all` values (pytrec_eval
has no averaging of its own, so those are the mean, or the sum for num_*, of its
per-query values).

How pytrec_eval is driven: its wrapper rewrites "ndcg_cut.5,10" as "ndcg_cut.10,5" (the
parameters sorted as strings; trec_eval sorts the cutoffs as numbers) and reports the lines
"ndcg_cut_5" and "ndcg_cut_10", trec_eval's names, as trecgain does; counts come back as
floats.  It evaluates only the queries that are in both qrels and run (no -c): a query only
in the qrels or only in the run is silently left out, and with no shared query the answer
is {} where trecgain raises TrecgainError.

What pytrec_eval cannot check, and how that was established (pytrec-eval-terrier 0.5.11,
glibc 2.36; the trec_eval 9.0.8 and 10.0 binaries were built from the upstream sources
for the checks marked "trec_eval"):

* relevance_level 0: `RelevanceEvaluator(..., relevance_level=0)` raises
  TypeError("Argument relevance_level should be positive."), so -l is drawn from 1..3
  (`test_pytrec_eval_refuses_relevance_level_0` notices if that ever changes).
* -M, -c: pytrec_eval has neither, so max_docs and complete keep their defaults.
* Gain strings through the public wrapper crash the interpreter:
      python3 -c "import pytrec_eval; ev = pytrec_eval.RelevanceEvaluator(
          {'1': {'a': 1}}, {'ndcg.1=2'}); ev.evaluate({'1': {'a': 1.0}})"
  prints "trec_eval: malformed pair parameters in '1'" and dies (SIGABRT, exit 134, from
  the assertion `eval_index >= 0` in pytrec_eval.cpp; a segfault, exit 139, in another
  run): the wrapper's measure regex keeps only "ndcg.1".  The C extension
  `pytrec_eval_ext.RelevanceEvaluator` takes the string unchanged and answers correctly,
  but only for the first `evaluate` call of an evaluator: trec_eval's pair parser writes
  NULs into the parameter string and pytrec_eval's comma-restoring workaround (its issue
  38) turns them into commas, so a second call reads "1,2" and crashes.  `test_gain_strings`
  therefore builds a fresh extension evaluator for every example and calls it once.  The
  extension reports the value under the bare measure name ("ndcg"), trecgain under
  trec_eval's line name ("ndcg_1=2").
* A measure named twice: pytrec_eval merges the parameter lists (ndcg_cut.5,10 and
  ndcg_cut.1,3 give four cutoffs); trec_eval and trecgain keep the first list.  Each
  example therefore names ndcg_cut once.
* A query whose judgments are all negative and that the run has: trec_eval fails on it
  (exit 4, "Can't calculate measure", when it is the first query evaluated: its rel_levels
  buffer is NULL; otherwise it reads the previous query's stale buffer and segfaults), and
  pytrec_eval returns all zeros (num_ret too) or segfaults the same way.  Such queries are
  generated only where the run lacks them; `test_all_negative_judgments` pins trecgain's
  answer.
* A run query with an empty ranking ({qid: {}}): both evaluate it (num_ret 0, num_rel
  counted, every measure 0); a run file cannot express it.
* The query id "no_query": after each evaluate, pytrec_eval's cleanup sets trec_eval's
  cache key (the last query evaluated) to "no_query", so a query of that name would be
  answered from freed cached data.  It is never generated.
* The gain table is sorted with the C library's qsort and a comparator that truncates the
  difference of two gains to int; trecgain reproduces glibc's merge sort, so the gain-string
  test runs only on glibc.
"""

from __future__ import annotations

import math
import platform
import warnings

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytrec_eval_ext import RelevanceEvaluator as RawRelevanceEvaluator

from trecgain import Evaluator, TrecgainError

REL_TOL = 1e-12

BASE_MEASURES = ["ndcg", "G", "binG", "Rndcg", "ndcg_rel", "num_ret", "num_rel", "num_rel_ret"]
CUTOFF_SPECS = ["ndcg_cut", "ndcg_cut.5,10", "ndcg_cut.1,3,20", "ndcg_cut.2", "ndcg_cut.10,5",
                "ndcg_cut.1,2,3,4,5,6,7,8,9,10,30"]
GAIN_MEASURES = ["ndcg", "G", "ndcg_rel", "Rndcg"]

SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])



# ---------------------------------------------------------------- the two evaluators


def run_trecgain(qrels, run, measures, relevance_level=1, judged_only=False, compat="9", max_docs=None):
    """trecgain's per-query and `all` values (the summary-only lines, gm_map and gm_bpref, per
    query as the logs trec_eval keeps, as pytrec_eval reports them)."""
    res = Evaluator(qrels, measures, relevance_level=relevance_level, judged_only=judged_only,
                    compat=compat, max_docs=max_docs).evaluate(run)
    per_query = res.per_query
    for line in res.lines:
        if line.name.startswith("gm_"):
            for qid, value in zip(res.qids, line.values):
                per_query[qid][line.name] = math.log(value)
    return per_query, res.aggregate


def run_pytrec_eval(qrels, run, measures, relevance_level=1, judged_only=False):
    """pytrec_eval's per-query values (through its public wrapper)."""
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=relevance_level,
                                        judged_docs_only_flag=judged_only)
    return ev.evaluate(run)


def run_pytrec_eval_raw(qrels, run, measures, relevance_level=1, judged_only=False):
    """pytrec_eval's C extension, which takes gain strings unchanged: one evaluate per evaluator."""
    judged = {qid: docs for qid, docs in qrels.items() if docs}  # as the wrapper does (its issue 57)
    ev = RawRelevanceEvaluator(judged, set(measures), relevance_level, int(judged_only))
    return ev.evaluate(run)


def same_value(got, want) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return math.isclose(got, want, rel_tol=REL_TOL, abs_tol=0.0)


def mean_or_sum(name: str, per_query: dict[str, float]) -> float:
    """trec_eval's `all` value: the per-query values added in its query order (byte order of
    the ids), divided by the number of queries except for the num_* sums."""
    total = 0.0
    for qid in sorted(per_query, key=lambda q: q.encode("utf-8")):
        total += per_query[qid]
    if name.startswith("gm_"):
        return math.exp(total / len(per_query))  # the per-query values are logs
    return total if name.startswith("num_") else total / len(per_query)


def assert_same(expected, actual, aggregate=None, names=None) -> None:
    """Same queries, same line names, every value equal to REL_TOL; `names` maps pytrec_eval's
    names to trecgain's where they differ."""
    names = names or {}
    assert sorted(actual) == sorted(expected), "evaluated queries differ"
    for qid, values in expected.items():
        mine = actual[qid]
        assert sorted(mine) == sorted(names.get(n, n) for n in values), f"line names of query {qid!r}"
        for name, want in values.items():
            got = mine[names.get(name, name)]
            assert same_value(float(got), want), (
                f"query {qid!r}, {names.get(name, name)}: trecgain {got!r}, pytrec_eval {want!r}")
    if aggregate is not None:
        for name in next(iter(expected.values())):
            want = mean_or_sum(name, {q: expected[q][name] for q in expected})
            got = aggregate[names.get(name, name)]
            assert same_value(float(got), want), (
                f"all {names.get(name, name)}: trecgain {got!r}, expected {want!r}")


# ---------------------------------------------------------------- strategies


def query_ids():
    """Numeric ids ("9" sorts after "10"), fixed odd shapes, and short free-form ids."""
    return st.one_of(
        st.integers(0, 400).map(str),
        st.sampled_from(["099", "301", "q1", "Q1", "topic-7", "a", "b_2", "é"]),
        st.text(alphabet="abzAZ019_-.", min_size=1, max_size=6),
    ).filter(lambda qid: qid != "no_query")


# Docnos: numeric strings ("9" > "10" > "100" > "1" in strcmp), leading zeros, prefixes of
# each other, case, punctuation and non-ASCII bytes (UTF-8, compared as unsigned bytes).
DOCNOS = ([str(i) for i in range(41)] + ["00", "01", "02", "007", "100", "1000", "9a", "10.5", "-1"]
          + ["a", "aa", "ab", "b", "B", "Z", "_", "a-b", "a_b", "A.1", "doc-é", "é", "ß", "Ω"]
          + [f"LA010189-{i:04d}" for i in range(1, 8)])


GRADES = {
    "graded": st.integers(0, 4),
    "binary": st.integers(0, 1),
    "all_zero": st.just(0),
    "with_negatives": st.integers(-2, 3),  # -1, -2: in the pool but not judged
    "large": st.sampled_from([0, 1, 2, 7, 12]),
    "all_negative": st.integers(-2, -1),  # only for queries the run lacks (see the module notes)
}


def float32_neighbours(x: float) -> list[float]:
    """Doubles near x that stress the rounding to float32: equal after rounding but not before,
    the next float32 up, and the double halfway between two float32s (rounds to even)."""
    with np.errstate(over="ignore"):
        low = np.float32(x)
    if not np.isfinite(low):
        return []
    high = np.nextafter(low, np.float32(np.inf))
    out = [float(np.nextafter(x, np.inf)), x * (1 + 1e-9), float(high)]
    if np.isfinite(high):
        out.append((float(low) + float(high)) / 2)
    return [v for v in out if math.isfinite(v)]


@st.composite
def scores(draw, n: int) -> list[float]:
    """n scores around one base value: exact ties, float32 near-ties, negatives, anything."""
    base = draw(st.one_of(
        st.sampled_from([0.0, 1.0, 0.1, -2.5, 16777216.0, 123456.789, 1e7, 3.4e38, 1e39]),
        st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False),
    ))
    candidates = [base, -base, *float32_neighbours(base), 0.0, -0.0, 5e-324, 1.0, 2.0, -1.0]
    return draw(st.lists(
        st.one_of(st.sampled_from(candidates),
                  st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32),
                  st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)),
        min_size=n, max_size=n))


@st.composite
def query(draw, where: str):
    """One query's judgments and ranking over a shared pool of docnos (so that retrieved
    documents are judged, unjudged, or judged negative); either may be absent (None), and
    the ranking may be empty."""
    size = draw(st.integers(1, 40))
    pool = draw(st.permutations(DOCNOS))[:size]
    judgments = None
    if where in ("both", "qrels"):
        kinds = [k for k in GRADES if k != "all_negative" or where == "qrels"]
        grades = GRADES[draw(st.sampled_from(kinds))]
        count = draw(st.integers(1, size))
        judged = draw(st.permutations(pool))[:count]
        judgments = {d: draw(grades) for d in judged}
        if where == "both" and max(judgments.values()) < 0:
            judgments[judged[0]] = 0
    ranking = None
    if where in ("both", "run"):
        length = draw(st.integers(1, min(30, size)))
        if draw(st.integers(0, 9)) == 9:  # now and then an empty ranking: {qid: {}}
            length = 0
        retrieved = draw(st.permutations(pool))[:length]
        ranking = dict(zip(retrieved, draw(scores(length))))
    return judgments, ranking


@st.composite
def collections(draw):
    """1 to 6 queries, each in both qrels and run (most often), in the qrels only or in the run only."""
    qids = draw(st.lists(query_ids(), min_size=1, max_size=6, unique=True))
    qrels, run = {}, {}
    for qid in qids:
        where = draw(st.sampled_from(["both", "both", "both", "both", "qrels", "run"]))
        judgments, ranking = draw(query(where))
        if judgments is not None:
            qrels[qid] = judgments
        if ranking is not None:
            run[qid] = ranking
    return qrels, run


def gain_strings():
    """`level=gain,...`: whole, fractional (closer than 1: trec_eval's comparator calls them
    equal), zero and negative gains, levels absent from the qrels, names 9.x reads with atol."""
    level = st.one_of(st.integers(-1, 13).map(str), st.sampled_from(["x", "+2", "1a", "02"]))
    gain = st.sampled_from(["-2", "-1", "0", "0.25", "0.5", "1", "1.5", "2", "2.7", "3", "3.2",
                            "3.9", "7", "10", "100"])
    pairs = st.lists(st.tuples(level, gain), min_size=1, max_size=5)
    return pairs.map(lambda ps: ",".join(f"{lv}={g}" for lv, g in ps))


def shares_a_query(qrels, run) -> bool:
    return any(qid in qrels and qrels[qid] for qid in run)


# ---------------------------------------------------------------- property tests


@settings(max_examples=400, **SETTINGS)
@given(collections(), st.sampled_from(CUTOFF_SPECS), st.sampled_from([1, 2, 3]), st.booleans())
def test_matches_pytrec_eval(collection, cutoffs, relevance_level, judged_only):
    qrels, run = collection
    measures = BASE_MEASURES + [cutoffs]
    expected = run_pytrec_eval(qrels, run, measures, relevance_level, judged_only)
    if not shares_a_query(qrels, run):
        assert expected == {}
        with pytest.raises(TrecgainError):
            run_trecgain(qrels, run, measures, relevance_level, judged_only)
        return
    per_query, aggregate = run_trecgain(qrels, run, measures, relevance_level, judged_only)
    assert_same(expected, per_query, aggregate)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="gain tables follow glibc's qsort")
@settings(max_examples=200, **SETTINGS)
@given(collections(), st.lists(st.tuples(st.sampled_from(GAIN_MEASURES), gain_strings()), min_size=1,
                               max_size=4, unique_by=lambda t: t[0]),
       st.sampled_from([1, 2, 3]), st.booleans())
def test_gain_strings(collection, gain_specs, relevance_level, judged_only):
    qrels, run = collection
    measures = [f"{m}.{text}" for m, text in gain_specs]
    names = {m: f"{m}_{text}" for m, text in gain_specs}
    if not shares_a_query(qrels, run):
        with pytest.raises(TrecgainError):
            run_trecgain(qrels, run, measures, relevance_level, judged_only)
        return
    expected = run_pytrec_eval_raw(qrels, run, measures, relevance_level, judged_only)
    per_query, aggregate = run_trecgain(qrels, run, measures, relevance_level, judged_only)
    assert_same(expected, per_query, aggregate, names)


#: Every other measure pytrec_eval has (relstring, runid and num_q carry no per-query number
#: there), with parameters of each kind; set_F's line is "set_F" in pytrec_eval.
OTHER_MEASURES = ["map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "recall", "infAP",
                  "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "map_cut", "relative_P", "success", "set_P",
                  "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]
PARAMETERISED = [["P.3,7", "recall.2,10", "map_cut.1,4", "relative_P.2,3", "success.2,3"],
                 ["iprec_at_recall.0.25,0.5,0.9", "Rprec_mult.0.5,1.5,3"], ["set_F.0.5"],
                 ["11pt_avg.0.25,0.5,0.75"]]  # ascending: the wrapper sorts them (as strings)


def top(run, max_docs):
    """Each ranking's first max_docs documents in trec_eval 9's order (float32 score, then
    docno, both descending): pytrec_eval has no -M, so the test cuts its input instead."""
    if max_docs is None:
        return run
    def order(item: tuple[str, float]) -> tuple:
        with np.errstate(over="ignore"):  # beyond float32's range: inf, as (float) gives
            return (np.float32(item[1]), item[0].encode("utf-8"))

    return {q: dict(sorted(docs.items(), key=order, reverse=True)[:max_docs]) for q, docs in run.items()}


@settings(max_examples=250, **SETTINGS)
@given(collections(), st.sampled_from(PARAMETERISED), st.sampled_from([1, 2, 3]), st.booleans(),
       st.sampled_from([None, None, 1, 3, 10]))
def test_every_measure_matches_pytrec_eval(collection, parameterised, relevance_level, judged_only, max_docs):
    """Per query and in the summary, every trec_eval 9 measure, with -l, -J and -M varied."""
    qrels, run = collection
    measures = OTHER_MEASURES + parameterised
    if not shares_a_query(qrels, run):
        with pytest.raises(TrecgainError):
            run_trecgain(qrels, run, measures, relevance_level, judged_only, max_docs=max_docs)
        return
    expected = run_pytrec_eval(qrels, top(run, max_docs), OTHER_MEASURES, relevance_level, judged_only)
    per_query, aggregate = run_trecgain(qrels, run, OTHER_MEASURES, relevance_level, judged_only,
                                        max_docs=max_docs)
    assert_same(expected, per_query, aggregate)
    expected = run_pytrec_eval(qrels, top(run, max_docs), parameterised, relevance_level, judged_only)
    per_query, aggregate = run_trecgain(qrels, run, parameterised, relevance_level, judged_only,
                                        max_docs=max_docs)
    assert_same(expected, per_query, aggregate, {"set_F": "set_F_0.5", "11pt_avg": "11pt_avg_0.25,0.5,0.75"})


def test_utility_with_coefficients_matches_pytrec_eval():
    """The wrapper garbles utility's four coefficients; its C extension takes them whole."""
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"a": 1, "d": 1}}
    run = {"1": {"a": 1.0, "b": 2.0, "z": 3.0}, "2": {"b": 1.0, "a": 0.5}}
    expected = run_pytrec_eval_raw(qrels, run, ["utility.1,-2,0.5,0"])
    per_query, aggregate = run_trecgain(qrels, run, ["utility.1,-2,0.5,0"])
    assert_same(expected, per_query, aggregate, {"utility": "utility_1,-2,0.5,0"})


# ---------------------------------------------------------------- fixed examples

ALL = BASE_MEASURES + ["ndcg_cut.1,2,3"]


def test_numeric_docnos_tie_by_string_descending():
    """Equal scores rank by docno descending in strcmp order: "9", "100", "10"."""
    qrels = {"1": {"9": 1, "10": 2, "100": 0}}
    run = {"1": {"10": 1.0, "100": 1.0, "9": 1.0}}
    per_query, aggregate = run_trecgain(qrels, run, ALL)
    assert_same(run_pytrec_eval(qrels, run, ALL), per_query, aggregate)
    assert per_query["1"]["ndcg_cut_1"] == 0.5  # "9" (grade 1) first; the ideal starts with grade 2


def test_float32_near_tie_breaks_by_docno():
    """Two doubles that round to the same float32 tie in trec_eval 9 and rank by docno."""
    x = 123456.789
    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": float(np.nextafter(x, np.inf)), "b": x}}
    per_query, aggregate = run_trecgain(qrels, run, ALL)
    assert_same(run_pytrec_eval(qrels, run, ALL), per_query, aggregate)
    assert per_query["1"]["ndcg_cut_1"] == 0.0  # "b" first, as a float32 tie
    assert run_trecgain(qrels, run, ALL, compat="10")[0]["1"]["ndcg_cut_1"] == 1.0  # doubles: "a" first


def test_float32_halfway_rounds_to_even():
    """1 + 2**-24 lies halfway between the float32s 1 and 1 + 2**-23 and rounds to 1 (even);
    the next double up rounds to 1 + 2**-23."""
    halfway = 1.0 + 2.0 ** -24
    qrels = {"1": {"x": 0, "y": 1, "z": 2}}
    run = {"1": {"x": halfway, "y": 1.0, "z": float(np.nextafter(halfway, np.inf))}}
    per_query, aggregate = run_trecgain(qrels, run, ALL)
    assert_same(run_pytrec_eval(qrels, run, ALL), per_query, aggregate)
    assert per_query["1"]["ndcg"] == 1.0  # z, then the tie x/y by docno: y, x


def test_scores_beyond_float32_range():
    """1e39 and 1e40 both become inf in float32 and tie; -1e40 becomes -inf; no numpy warning."""
    qrels = {"1": {"a": 2, "b": 1, "c": 0, "d": 1}}
    run = {"1": {"a": 1e39, "b": 1e40, "c": -1e40, "d": 3.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        per_query, aggregate = run_trecgain(qrels, run, ALL)
    assert_same(run_pytrec_eval(qrels, run, ALL), per_query, aggregate)
    assert per_query["1"]["ndcg_cut_1"] == 0.5  # "b" before "a" by docno


def test_query_ids_in_both_orders():
    """Queries only in the qrels or only in the run are not evaluated; "9" and "10" both are."""
    qrels = {"9": {"a": 1}, "10": {"a": 2, "b": 1}, "301": {"c": 1}}
    run = {"10": {"b": 2.0, "a": 1.0}, "9": {"a": -1.5, "x": -0.5}, "77": {"a": 1.0}}
    per_query, aggregate = run_trecgain(qrels, run, ALL)
    assert sorted(per_query) == ["10", "9"]
    assert_same(run_pytrec_eval(qrels, run, ALL), per_query, aggregate)


def test_no_shared_query_is_an_error():
    qrels = {"1": {"a": 1}}
    run = {"2": {"a": 1.0}}
    assert run_pytrec_eval(qrels, run, ALL) == {}
    with pytest.raises(TrecgainError):
        run_trecgain(qrels, run, ALL)


def test_query_with_empty_ranking():
    """A run query given as {} is evaluated with nothing retrieved (every measure 0, num_rel
    counted), as pytrec_eval does; a run file cannot express it."""
    qrels = {"1": {"a": 1}, "2": {"b": 1, "c": 2}}
    run = {"1": {"a": 1.0}, "2": {}}
    raw = pytrec_eval.RelevanceEvaluator(qrels, set(ALL)).evaluate(run)
    assert raw["2"]["num_ret"] == 0 and raw["2"]["num_rel"] == 2 and raw["2"]["ndcg"] == 0
    per_query, _ = run_trecgain(qrels, run, ALL)
    assert sorted(per_query) == ["1", "2"]
    assert all(same_value(per_query["2"][k], raw["2"][k]) for k in raw["2"])


def test_all_negative_judgments():
    """trec_eval crashes on a query of the run whose judgments are all negative (see the module
    notes), so there is no reference: trecgain evaluates it as a query with nothing judged."""
    qrels = {"1": {"a": 1}, "2": {"x": -1, "y": -2}}
    run = {"1": {"a": 1.0}, "2": {"x": 1.0, "z": 0.5}}
    per_query, _ = run_trecgain(qrels, run, ALL)
    assert per_query["2"] == {"num_ret": 2, "num_rel": 0, "num_rel_ret": 0, "binG": 0.0, "G": 0.0,
                              "ndcg": 0.0, "ndcg_rel": 0.0, "Rndcg": 0.0, "ndcg_cut_1": 0.0,
                              "ndcg_cut_2": 0.0, "ndcg_cut_3": 0.0}


def test_pytrec_eval_refuses_relevance_level_0():
    """Why the property test draws -l from 1..3: extend it if this ever fails."""
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator({"1": {"a": 1}}, {"ndcg"}, relevance_level=0)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="gain tables follow glibc's qsort")
@pytest.mark.parametrize("measure", [
    "ndcg.1=3.5,2=9.0,4=7.0",  # trec_eval's help example
    "G.1=3.5,2=9.0,4=7.0",
    "ndcg.1=2.5,2=2",  # gains closer than 1 compare equal in trec_eval's comparator
    "ndcg_rel.0=1,3=-1",  # a gain for level 0, a negative gain
    "Rndcg.2=0.5,1=1.2",
])
def test_gain_string_examples(measure):
    qrels = {"1": {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4, "f": 2}, "2": {"a": 1, "b": 0}}
    run = {"1": {"a": 5.0, "b": 4.0, "x": 3.5, "c": 3.0, "d": 3.0, "e": 1.0}, "2": {"b": 1.0, "a": 0.5}}
    base, _, text = measure.partition(".")
    per_query, aggregate = run_trecgain(qrels, run, [measure])
    assert_same(run_pytrec_eval_raw(qrels, run, [measure]), per_query, aggregate, {base: f"{base}_{text}"})


def test_gain_string_nan():
    """Level 1 with gain 0 leaves no ideal gain: Rndcg is 0/0, NaN in both (trec_eval prints -nan)."""
    qrels = {"1": {"d0": 1}}
    run = {"1": {"d0": 0.0}}
    expected = run_pytrec_eval_raw(qrels, run, ["Rndcg.1=0"])
    assert math.isnan(expected["1"]["Rndcg"])
    per_query, aggregate = run_trecgain(qrels, run, ["Rndcg.1=0"])
    assert_same(expected, per_query, aggregate, {"Rndcg": "Rndcg_1=0"})
