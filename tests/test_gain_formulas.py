"""The design notes' numbers for gain schemes and discounts, through the public API."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_design_notes import WORKED, ranked_from_judged
from trecgain import Evaluator


def one_query(grades: list[int]):
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    run = {"q": {f"d{i}": float(100 - i) for i in range(len(grades))}}
    return qrels, run


def aggregate(grades, measures, **options):
    qrels, run = one_query(grades)
    return Evaluator(qrels, measures=measures, **options).evaluate(run).aggregate


@pytest.mark.parametrize("k, exponential", [(1, 1.000), (2, 0.779), (3, 0.959), (4, 0.872), (5, 0.876),
                                            (6, 0.949)])
def test_worked_example_exponential_at_each_cutoff(k, exponential):
    assert round(aggregate(WORKED, [f"ndcg_cut.{k}"], global_gains="exp")[f"ndcg_cut_{k}"], 3) == exponential


@pytest.mark.parametrize("discount, dcg6, idcg6, linear, exponential", [
    ("log:2", 6.861, 7.141, 0.961, 0.949),
    ("log:e", 9.899, 10.302, 0.961, 0.949),
    ("log:10", 22.792, 23.722, 0.961, 0.949),
    ("jk:2", 8.097, 8.693, 0.932, 0.898),
    ("jk:10", 11.000, 11.000, 1.000, 1.000),
])
def test_logarithm_table(discount, dcg6, idcg6, linear, exponential):
    lin = aggregate(WORKED, ["dcg", "ideal_dcg", "ndcg_cut.6"], discount=discount)
    exp = aggregate(WORKED, ["ndcg_cut.6"], discount=discount, global_gains="exp")
    assert round(lin["dcg"], 3) == dcg6 and round(lin["ideal_dcg"], 3) == idcg6
    assert round(lin["ndcg_cut_6"], 3) == linear and round(exp["ndcg_cut_6"], 3) == exponential


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12), st.sampled_from(["log:e", "log:10", "log:3.5"]),
       st.sampled_from([None, "exp"]))
def test_the_base_cancels_in_ndcg(grades, discount, gains):
    """1/log_b(i+1) is 1/log2(i+1) times a constant, so nDCG does not depend on b."""
    base = aggregate(grades, ["ndcg", "ndcg_cut.3"], global_gains=gains)
    other = aggregate(grades, ["ndcg", "ndcg_cut.3"], discount=discount, global_gains=gains)
    for name in base:
        assert math.isclose(base[name], other[name], rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize("grades, linear3, exp3, linear6, exp6", [
    ([3, 0, 0, 2, 2, 1], 0.509, 0.542, 0.699, 0.672),  # X
    ([2, 2, 1, 3, 0, 0], 0.638, 0.418, 0.708, 0.576),  # Y
])
def test_reversal_pairs_with_both_gains(grades, linear3, exp3, linear6, exp6):
    qrels, run = ranked_from_judged(WORKED, grades)
    lin = Evaluator(qrels, measures=["ndcg_cut.3,6"]).evaluate(run).aggregate
    exp = Evaluator(qrels, measures=["ndcg_cut.3,6"], global_gains="exp").evaluate(run).aggregate
    assert [round(lin["ndcg_cut_3"], 3), round(exp["ndcg_cut_3"], 3)] == [linear3, exp3]
    assert [round(lin["ndcg_cut_6"], 3), round(exp["ndcg_cut_6"], 3)] == [linear6, exp6]


def test_count_of_gain_formula_reversals():
    """Every distinguishable ordering of the six judged documents, one query each."""
    orderings = sorted(set(itertools.permutations(WORKED)))
    qrels, run = {}, {}
    for n, order in enumerate(orderings):
        qid = f"o{n}"
        docs = {g: [f"g{g}_{i}" for i in range(WORKED.count(g))] for g in set(WORKED)}
        qrels[qid] = {d: g for g, names in docs.items() for d in names}
        used = {g: iter(names) for g, names in docs.items()}
        run[qid] = {next(used[g]): float(10 - rank) for rank, g in enumerate(order)}
    lin = Evaluator(qrels, measures=["ndcg_cut.6"]).evaluate(run).per_query
    exp = Evaluator(qrels, measures=["ndcg_cut.6"], global_gains="exp").evaluate(run).per_query
    pairs = list(itertools.combinations(lin, 2))
    reversed_pairs = sum(1 for a, b in pairs
                         if (lin[a]["ndcg_cut_6"] - lin[b]["ndcg_cut_6"]) * (exp[a]["ndcg_cut_6"] - exp[b]["ndcg_cut_6"]) < 0)
    assert (len(orderings), len(pairs), reversed_pairs) == (180, 16110, 1002)


def test_named_schemes_match_gain_strings():
    grades = [3, 2, 3, 0, 1, 2]
    assert aggregate(grades, ["ndcg"], global_gains="exp")["ndcg"] == \
        aggregate(grades, ["ndcg.1=1,2=3,3=7"])["ndcg_1=1,2=3,3=7"]
    binary = aggregate(grades, ["ndcg_cut.6"], global_gains="binary", relevance_level=2)["ndcg_cut_6"]
    assert binary == aggregate([1 if g >= 2 else 0 for g in grades], ["ndcg_cut.6"])["ndcg_cut_6"]
    assert aggregate(grades, ["cg_cut.3"])["cg_cut_3"] == 8.0
    assert aggregate(grades, ["cg_cut.3"], global_gains="exp")["cg_cut_3"] == 17.0


def test_a_measure_gain_string_wins_over_global_gains():
    both = aggregate(WORKED, ["ndcg.1=1,2=3,3=7", "ndcg_rel"], global_gains="linear")
    assert both["ndcg_1=1,2=3,3=7"] == aggregate(WORKED, ["ndcg"], global_gains="exp")["ndcg"]


def test_ir_measures_names_print_as_written():
    agg = aggregate(WORKED, ["nDCG@6", "nDCG(dcg='exp-log2')@6", "ndcg@3", "nDCG(gains={1: 1, 2: 3, 3: 7})@6"])
    assert list(agg) == ["nDCG@6", "nDCG(dcg='exp-log2')@6", "ndcg@3", "nDCG(gains={1: 1, 2: 3, 3: 7})@6"]
    assert round(agg["nDCG@6"], 3) == 0.961 and round(agg["nDCG(dcg='exp-log2')@6"], 3) == 0.949
    assert agg["nDCG(gains={1: 1, 2: 3, 3: 7})@6"] == agg["nDCG(dcg='exp-log2')@6"]


def test_exact_ideal_and_its_warning():
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "d": 3, "e": 1}}
    run = {"1": {"a": 5.0, "e": 4.0, "b": 3.0}}
    quirky = Evaluator(qrels, measures=["ndcg.1=0.5"]).evaluate(run)
    exact = Evaluator(qrels, measures=["ndcg.1=0.5"], exact_ideal=True).evaluate(run)
    assert f"{quirky.aggregate['ndcg_1=0.5']:.4f}" == "0.1913"  # the corpus case h-fractional-gain-quirk
    assert "--exact-ideal" in quirky.warnings[0] and exact.warnings == []
    # by value the ideal is 3, 2, 0.5, 0.5: DCG 0.5 + 0.5/log2(3) over that ideal
    ideal = 3 + 2 / math.log2(3) + 0.5 / 2 + 0.5 / math.log2(5)
    assert math.isclose(exact.aggregate["ndcg_1=0.5"], (0.5 + 0.5 / math.log2(3)) / ideal, rel_tol=1e-12)


def test_fractional_grades_are_refused_unless_asked_for(tmp_path):
    from trecgain import TrecgainError

    qrels = {"1": {"a": 2.5, "b": 1, "c": 0.5, "d": 0}}
    run = {"1": {"c": 3.0, "a": 2.0, "d": 1.0}}
    with pytest.raises(TrecgainError, match="fractional"):
        Evaluator(qrels, measures=["ndcg"])
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 2.5\n1 0 b 1\n1 0 c 0.5\n1 0 d 0\n")
    with pytest.raises(TrecgainError, match=r"q.txt:1: .*--fractional-grades"):
        Evaluator(str(q), measures=["ndcg"])
    for source in (qrels, str(q)):
        linear = Evaluator(source, measures=["ndcg", "num_rel"], fractional_grades=True).evaluate(run).aggregate
        exp = Evaluator(source, measures=["ndcg"], fractional_grades=True, global_gains="exp").evaluate(run).aggregate
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate([0.5, 2.5, 0]))
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate([2.5, 1, 0.5]))
        assert math.isclose(linear["ndcg"], dcg / ideal, rel_tol=1e-12) and linear["num_rel"] == 2
        gains = [2 ** 0.5 - 1, 2 ** 2.5 - 1, 0]
        ideal = [2 ** 2.5 - 1, 1, 2 ** 0.5 - 1]
        expected = sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / \
            sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        assert math.isclose(exp["ndcg"], expected, rel_tol=1e-12)
