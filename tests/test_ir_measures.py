"""ir_measures' names mean in trecgain what they mean in ir_measures: per query, on
hypothesis-generated collections, every name and parameter trecgain accepts is checked against
ir_measures itself (which computes them with pytrec_eval, trec_eval 9's code, so trecgain runs
with compat "9"; Judged@k with its own code).

Scores are distinct within a query: ir_measures' Judged breaks ties by docno ascending, where
trec_eval's order is docno descending."""

from __future__ import annotations

import math

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecgain import Evaluator

NAMES = ["AP", "AP@2", "AP@10", "P@1", "P@5", "R@3", "R@1000", "RR", "RR@1", "RR@3", "Rprec", "Bpref", "infAP",
         "Success@1", "Success@5", "IPrec@0.0", "IPrec@0.5", "IPrec@1.0", "NumRet", "NumRel", "NumRelRet", "NumQ",
         "Judged@1", "Judged@5", "SetP", "SetR", "SetF", "SetF(beta=0.5)", "SetP(relative=True)", "AP(rel=2)",
         "P(rel=2)@3", "R(rel=2)@5", "RR(rel=2)", "Rprec(rel=2)", "NumRet(rel=2)",
         "Success(rel=2)@3", "SetR(rel=2)", "nDCG@5", "nDCG", "AP(judged_only=True)", "P(judged_only=True)@3"]


@st.composite
def collections(draw):
    """1-4 queries over docnos d0..d14: grades -1..3 for some, distinct scores, some judged
    documents not retrieved and some retrieved documents not judged."""
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(15)]
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=12, unique=True))
        qrels[qid] = {d: draw(st.integers(-1, 3)) for d in judged}
        if max(qrels[qid].values()) < 0:
            qrels[qid][judged[0]] = 0
        retrieved = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=12, unique=True))
        scores = draw(st.lists(st.integers(0, 10**6), min_size=len(retrieved), max_size=len(retrieved),
                               unique=True))
        run[qid] = {d: s / 1000 for d, s in zip(retrieved, scores)}
    return qrels, run


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_names_agree_with_ir_measures(collection):
    qrels, run = collection
    expected = {}
    measures = [ir_measures.parse_measure(n) for n in NAMES]
    # NumRet and NumRet(rel=k) asked for together come back mixed up (pytrec_eval's num_ret
    # and num_rel_ret, matched in set order): each of those is asked for alone
    alone = [m for m in measures if str(m).startswith("NumRet")]
    for group in [[m for m in measures if m not in alone]] + [[m] for m in alone]:
        for metric in ir_measures.iter_calc(group, qrels, run):
            expected[(metric.query_id, str(metric.measure))] = metric.value
    by_str = {str(m): n for m, n in zip(measures, NAMES)}  # ir_measures prints NumRelRet as NumRet(rel=1)
    result = Evaluator(qrels, measures=NAMES, compat="9").evaluate(run)
    mine = result.per_query
    checked = 0
    for (qid, shown), want in expected.items():
        if by_str[shown] == "NumQ":  # trec_eval's num_q: only a summary line, the count of queries
            assert result.aggregate["NumQ"] == len(mine)
            checked += 1
            continue
        got = mine[qid][by_str[shown]]
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15), (qid, by_str[shown], got, want)
        checked += 1
    assert checked >= len(NAMES) * len(qrels) - len(qrels)  # every name, every shared query


@pytest.mark.parametrize("name, trec_eval", [
    ("AP@10", "map_cut.10"), ("P@5", "P.5"), ("R@1000", "recall.1000"), ("Success@5", "success.5"),
    ("IPrec@0.5", "iprec_at_recall.0.5"), ("NumRet", "num_ret"), ("SetF(beta=0.5)", "set_F.0.5"),
    ("RBP(p=0.8)", "rbp.p=0.8"), ("DCG@3", "dcg_cut.3"), ("RR@10", "recip_rank")])
def test_names_are_the_trec_eval_measures(name, trec_eval):
    """Each name is the trec_eval measure it stands for (RR@10 on a ranking shorter than 10)."""
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "d": 3}}
    run = {"q": {"b": 4.0, "a": 3.0, "x": 2.0, "c": 1.0}}
    a = Evaluator(qrels, measures=[name]).evaluate(run).aggregate
    b = Evaluator(qrels, measures=[trec_eval]).evaluate(run).aggregate
    assert list(a.values())[-1] == list(b.values())[-1]
