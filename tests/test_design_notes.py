"""The worked examples of ../shared/design-notes whose measures trec_eval has, through the API.

Each number is the one printed in the notes (three decimals); trecgain computes it from
the grades the notes give, never from a stored result.
"""

from __future__ import annotations

import pytest

from trecgain import Evaluator

EXP = "1=1,2=3,3=7"  # 2^grade - 1 for grades 0..3, as a trec_eval gain string


def collection(grades: list[int], judged_extra: list[int] | None = None):
    """One query: the ranking's grades in order (rank 1 first), plus judged documents not retrieved."""
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    for j, g in enumerate(judged_extra or []):
        qrels["q"][f"x{j}"] = g
    run = {"q": {f"d{i}": float(100 - i) for i in range(len(grades))}}
    return qrels, run


def values(grades, measures, judged_extra=None):
    qrels, run = collection(grades, judged_extra)
    return Evaluator(qrels, measures=measures).evaluate(run).aggregate


WORKED = [3, 2, 3, 0, 1, 2]


@pytest.mark.parametrize("k, dcg, idcg, ndcg_linear", [
    (1, 3.000, 3.000, 1.000), (2, 4.262, 4.893, 0.871), (3, 5.762, 5.893, 0.978),
    (4, 5.762, 6.754, 0.853), (5, 6.149, 7.141, 0.861), (6, 6.861, 7.141, 0.961)])
def test_worked_example_at_each_cutoff(k, dcg, idcg, ndcg_linear):
    agg = values(WORKED, [f"ndcg_cut.{k}"])
    assert round(agg[f"ndcg_cut_{k}"], 3) == ndcg_linear
    # DCG@k and IDCG@k are DCG of the first k ranks / first k ideal ranks
    top = values(WORKED[:k], ["dcg"], judged_extra=WORKED[k:])
    assert round(top["dcg"], 3) == dcg
    ideal = sorted(WORKED, reverse=True)
    assert round(values(ideal[:k], ["dcg"])["dcg"], 3) == idcg


def test_worked_example_whole_ranking_both_gains():
    agg = values(WORKED, ["dcg", "ideal_dcg", "ndcg"])
    assert (round(agg["dcg"], 3), round(agg["ideal_dcg"], 3), round(agg["ndcg"], 3)) == (6.861, 7.141, 0.961)
    # one measure named twice keeps its first parameters (trec_eval's rule), so exp gains separately
    agg = values(WORKED, [f"dcg.{EXP}", f"ideal_dcg.{EXP}", f"ndcg.{EXP}"])
    assert round(agg[f"dcg_{EXP}"], 3) == 13.848
    assert round(agg[f"ideal_dcg_{EXP}"], 3) == 14.595
    assert round(agg[f"ndcg_{EXP}"], 3) == 0.949


def test_five_document_example_exponential():
    agg = values([3, 2, 0, 1, 2], [f"dcg.{EXP}", f"ideal_dcg.{EXP}", f"ndcg.{EXP}"])
    assert round(agg[f"dcg_{EXP}"], 3) == 10.484
    assert round(agg[f"ideal_dcg_{EXP}"], 3) == 10.823
    assert round(agg[f"ndcg_{EXP}"], 3) == 0.969


def test_ideal_is_built_from_all_judged_documents():
    # judged 3, 3, 2, 1, 0, 0; the system retrieves the documents graded 1 and 0
    agg = values([1, 0], ["ndcg_cut.2"], judged_extra=[3, 3, 2, 0])
    assert round(agg["ndcg_cut_2"], 3) == 0.204


def ranked_from_judged(judged: list[int], ranking: list[int]):
    """Qrels of the judged grades; a run that retrieves, for each grade of `ranking`, an unused
    judged document of that grade, or an unjudged document (gain 0) when none is left."""
    qrels = {"q": {f"j{i}": g for i, g in enumerate(judged)}}
    unused = list(qrels["q"].items())
    run = {}
    for rank, grade in enumerate(ranking):
        match = next((d for d, g in unused if g == grade), None)
        if match is None:
            doc = f"unjudged{rank}"
        else:
            doc = match
            unused = [(d, g) for d, g in unused if d != match]
        run[doc] = float(100 - rank)
    return qrels, {"q": run}


@pytest.mark.parametrize("grades, at3, at6_linear, at6_exp", [
    ([3, 0, 0, 2, 2, 1], 0.509, 0.699, 0.672),  # X
    ([2, 2, 1, 3, 0, 0], 0.638, 0.708, 0.576),  # Y
])
def test_gain_formula_reversal_pairs(grades, at3, at6_linear, at6_exp):
    """The notes' X and Y are not orderings of the worked example's six documents (X has one 3
    and two 0s), but their numbers use that example's ideal ranking: X and Y here retrieve judged
    documents of those six, and an unjudged one where a second 0 is needed."""
    qrels, run = ranked_from_judged(WORKED, grades)
    agg = Evaluator(qrels, measures=["ndcg_cut.3,6", f"ndcg.{EXP}"]).evaluate(run).aggregate
    assert round(agg["ndcg_cut_3"], 3) == at3
    assert round(agg["ndcg_cut_6"], 3) == at6_linear
    assert round(agg[f"ndcg_{EXP}"], 3) == at6_exp


@pytest.mark.parametrize("grades, linear, exponential", [
    ([1, 1, 1, 3, 0, 0], 0.750, 0.601),  # U
    ([3, 0, 1, 1, 1, 0], 0.946, 0.971),  # V
])
def test_graded_versus_binary_pairs(grades, linear, exponential):
    agg = values(grades, ["ndcg_cut.6", f"ndcg.{EXP}"])
    assert round(agg["ndcg_cut_6"], 3) == linear
    assert round(agg[f"ndcg_{EXP}"], 3) == exponential


def test_query_with_nothing_relevant_scores_zero():
    agg = values([0, 0, 0], ["ndcg", "ndcg_cut.3"])
    assert agg["ndcg"] == 0.0 and agg["ndcg_cut_3"] == 0.0


@pytest.mark.parametrize("grades, ap", [
    ([1, 1, 1, 3, 0, 0], 1.000),  # U: all four relevant first
    ([3, 0, 1, 1, 1, 0], 0.804),  # V: the answer first, a nonrelevant document at rank 2
])
def test_average_precision_of_u_and_v(grades, ap):
    """dcg-and-ndcg.txt: AP with grades above 0 relevant prefers U; nDCG prefers V."""
    for measures, name in ((["map"], "map"), (["AP"], "AP")):
        assert round(values(grades, measures)[name], 3) == ap


def test_reciprocal_rank_when_the_first_relevant_document_is_at_rank_4():
    """ranking-metrics.txt: 1/4 = 0.25, by trec_eval's recip_rank and ir_measures' RR."""
    agg = values([0, 0, 0, 2, 1], ["recip_rank", "RR", "RR@3", "RR@4"])
    assert agg["recip_rank"] == agg["RR"] == agg["RR@4"] == 0.25
    assert agg["RR@3"] == 0.0


def test_recall_at_k_is_the_share_of_relevant_in_the_top_k():
    """ranking-metrics.txt: recall at k; two of the three relevant documents are in the top 3."""
    agg = values([1, 0, 2, 0, 0, 1], ["recall.3", "R@3", "P.3", "P@3"])
    assert agg["recall_3"] == agg["R@3"] == 2 / 3
    assert agg["P_3"] == agg["P@3"] == 2 / 3


def test_patience_discount_is_rank_biased_precision():
    """dcg-and-ndcg.txt's patience model (continue with probability 0.8): RBP with p = 0.8 on
    binary gains is (1 - p) times the sum of p^(i-1) over the relevant ranks."""
    grades = [1, 0, 1, 1, 0, 0]
    expected = (1 - 0.8) * (0.8**0 + 0.8**2 + 0.8**3)
    agg = values(grades, ["rbp.p=0.8", "RBP(p=0.8, rel=1)"])
    assert agg["rbp_p=0.8"] == pytest.approx(expected, rel=1e-15)
    # ir_measures' RBP with rel is its cwl_eval provider's, printed as ir_measures prints it (p at its
    # default left out); cwl_eval's weights are normalised to rank 1000 (1 - 0.8^1000 is 1 in doubles)
    assert agg["RBP(rel=1)"] == pytest.approx(expected, rel=1e-15)
