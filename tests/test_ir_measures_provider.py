"""trecgain as an ir_measures provider, and ir_measures' Measure objects in trecgain's API.

On seeded random collections (ties, scores apart as doubles but tied as float32, negative
grades, queries only in the qrels or only in the run; empty rankings in a test of their own,
without Bpref, on which pytrec_eval crashes) every measure ir_measures' own pytrec_eval provider supports is
computed by that provider and by trecgain's: the per-query values (the DEFAULT of queries
the run lacks included) are bit for bit the same, and the aggregates equal to 1e-12 (each
side sums its queries in its own order).  NumRet with and without rel are asked for
separately: the pytrec_eval provider mixes the two up when asked for both at once."""

from __future__ import annotations

import math
import random

import ir_measures
import pandas as pd
import polars as pl
import pytest
from ir_measures import (AP, RR, Accuracy, Bpref, Compat, IPrec, Judged, NumQ, NumRel, NumRet, P, R, Rprec, SetAP, SetF, SetP, SetR,
                         Success, alpha_nDCG, infAP, nDCG)

import trecgain.ir_measures as provider_module
from trecgain import Evaluator, TrecgainError

#: Measures of every family the pytrec_eval provider supports, with each kind of parameter.
MEASURES = [P@1, P@5, P(rel=2)@3, P(judged_only=True)@5, RR, RR(rel=2), RR(judged_only=True), Rprec, Rprec(rel=2),
            AP, AP@3, AP(rel=2), AP(judged_only=True), nDCG, nDCG@3, nDCG@10, nDCG(gains={0: 0, 1: 1, 2: 5})@5,
            nDCG(judged_only=True)@5, R@2, R@1000, R(judged_only=True)@5, Bpref, Bpref(rel=2), NumQ, NumRel,
            SetAP, SetAP(rel=2), SetF, SetP, SetP(relative=True), SetP(rel=2), SetR, SetR(rel=2), Success@1,
            Success(rel=2)@5, IPrec@0.0, IPrec@0.5, IPrec@1.0, infAP, infAP(rel=2)]
ALONE = [[NumRet], [NumRet(rel=2)], [SetF(beta=0.5)]]


def collection(rng: random.Random) -> tuple[dict, dict]:
    docs = [f"d{i}" for i in range(12)] + ["10", "9", "100"]
    qrels, run = {}, {}
    for q in range(rng.randint(1, 6)):
        qid = str(q * 3)
        judged = rng.sample(docs, rng.randint(1, 9))
        grades = {d: rng.randint(-1, 3) for d in judged}
        if max(grades.values()) < 0:
            grades[judged[0]] = rng.randint(0, 2)
        if rng.random() < 0.9:
            qrels[qid] = grades
        if rng.random() < 0.85:
            kind = rng.choice(["tied", "float32 ties", "distinct"])  # 1 + k/1e9: apart as doubles only
            run[qid] = {d: float(rng.randint(0, 3)) if kind == "tied" else 1 + rng.randint(0, 3) / 1e9
                        if kind == "float32 ties" else rng.uniform(-5, 5) for d in rng.sample(docs, rng.randint(1, 10))}
    run.setdefault("extra", {"d1": 1.0})
    qrels.setdefault("0", {"d0": 1})
    return qrels, run


def per_query(provider, measures, qrels, run) -> dict:
    return {(m.query_id, str(m.measure)): m.value for m in provider.iter_calc(measures, qrels, run)}


def test_values_equal_the_pytrec_eval_providers():
    rng = random.Random(1919)
    ours = provider_module.TrecgainProvider()
    compared = 0
    for _ in range(120):
        qrels, run = collection(rng)
        for measures in [MEASURES, *ALONE]:
            expected = per_query(ir_measures.pytrec_eval, measures, qrels, run)
            got = per_query(ours, measures, qrels, run)
            assert got.keys() == expected.keys()
            for key, want in expected.items():
                assert float(got[key]) == float(want) or (math.isnan(got[key]) and math.isnan(want)), (key, got[key], want)
            compared += len(expected)
            aggregate = ours.calc_aggregate(measures, qrels, run)
            for m, want in ir_measures.pytrec_eval.calc_aggregate(measures, qrels, run).items():
                assert aggregate[m] == pytest.approx(want, rel=1e-12, abs=1e-15, nan_ok=True), m
    assert compared > 12_000


def test_empty_rankings_as_the_pytrec_eval_provider():
    """A query given as {}: evaluated with nothing retrieved (without Bpref, on which pytrec_eval
    then crashes: see test_pytrec_eval_dropin.py)."""
    ours = provider_module.TrecgainProvider()
    qrels = {"1": {"a": 2, "b": 0}, "2": {"a": 1}, "3": {"c": 1}}
    run = {"1": {}, "2": {"a": 1.0}, "3": {}}
    measures = [m for m in MEASURES if m.NAME != "Bpref"] + [NumRet]
    expected = per_query(ir_measures.pytrec_eval, measures, qrels, run)
    got = per_query(ours, measures, qrels, run)
    assert got.keys() == expected.keys()
    assert all(got[k] == expected[k] or (math.isnan(got[k]) and math.isnan(expected[k])) for k in expected)


def test_supports_what_trecgain_parses():
    ours = provider_module.TrecgainProvider()
    assert all(ours.supports(m) for m in MEASURES + [m for group in ALONE for m in group])
    assert ours.supports(Judged@10) and ours.supports(ir_measures.ERR@20) and ours.supports(RR@10)
    assert ours.supports(Compat(p=0.8)) and ours.supports(Accuracy(rel=2))
    assert ours.supports(alpha_nDCG@5)  # from the qrels' iteration as the subtopic, as the pyndeval provider reads it


QRELS = {"1": {"a": 2, "b": 0, "c": 1}, "2": {"a": 1, "d": 1}, "3": {"x": 1}}
RUN = {"1": {"a": 0.5, "b": 2.0, "c": 1.0}, "2": {"b": 1.0, "d": 0.2}, "4": {"a": 1.0}}


@pytest.fixture
def in_pipeline():
    provider = provider_module.use()
    yield provider
    provider_module.unregister()


def test_use_puts_trecgain_first_in_the_default_pipeline(in_pipeline):
    assert ir_measures.DefaultPipeline.providers[0] is in_pipeline
    assert ir_measures.providers.registry["trecgain"] is in_pipeline
    evaluator = ir_measures.evaluator([nDCG@10, AP], QRELS)
    assert isinstance(evaluator, provider_module.TrecgainEvaluator)
    assert ir_measures.calc_aggregate([nDCG@10, AP, P@2], QRELS, RUN) == \
        ir_measures.pytrec_eval.calc_aggregate([nDCG@10, AP, P@2], QRELS, RUN)
    assert evaluator.calc_aggregate(RUN) == evaluator.calc_aggregate(RUN)  # no state between runs
    provider_module.use()  # twice: still one trecgain in the pipeline
    assert sum(isinstance(p, provider_module.TrecgainProvider) for p in ir_measures.DefaultPipeline.providers) == 1


def test_measures_trecgain_lacks_go_to_the_other_providers(in_pipeline):
    values = ir_measures.calc_aggregate([nDCG@10, alpha_nDCG@5], QRELS, RUN)
    assert values[nDCG@10] == ir_measures.pytrec_eval.calc_aggregate([nDCG@10], QRELS, RUN)[nDCG@10]
    assert values[alpha_nDCG@5] == ir_measures.pyndeval.calc_aggregate([alpha_nDCG@5], QRELS, RUN)[alpha_nDCG@5]


def test_unregister_restores_the_pipeline():
    before = list(ir_measures.DefaultPipeline.providers)
    provider_module.register(first=False)
    assert ir_measures.DefaultPipeline.providers[-1].NAME == "trecgain"
    provider_module.unregister()
    assert ir_measures.DefaultPipeline.providers == before and "trecgain" not in ir_measures.providers.registry


def test_empty_run_and_no_shared_query_give_the_defaults():
    ours = provider_module.TrecgainProvider()
    for run in ({}, {"9": {"a": 1.0}}):
        assert ours.calc_aggregate([nDCG@10, P@5], QRELS, run) == \
            ir_measures.pytrec_eval.calc_aggregate([nDCG@10, P@5], QRELS, run)


def test_generators_through_the_provider():
    """ir_measures.read_trec_run gives a generator of ScoredDoc: read once, empty or not."""
    ours = provider_module.TrecgainProvider()
    scored = [ir_measures.ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    for run in (scored, [], [ir_measures.ScoredDoc("9", "a", 1.0)]):
        assert ours.calc_aggregate([nDCG@10, AP], QRELS, iter(run)) == \
            ir_measures.pytrec_eval.calc_aggregate([nDCG@10, AP], QRELS, list(run))


def test_values_equal_the_other_providers():
    """RR@k (ir_measures' msmarco provider) and Judged@k (its judged provider), on distinct scores
    and non-empty rankings: ir_measures' Judged orders tied documents by docno ascending where
    trec_eval's order is descending, and divides by zero on an empty ranking."""
    rng = random.Random(7)
    ours = provider_module.TrecgainProvider()
    compared = 0
    for _ in range(100):
        qrels, run = {}, {}
        for q in range(rng.randint(1, 5)):
            docs = [f"d{i}" for i in range(12)]
            qrels[str(q)] = {d: rng.randint(0, 3) for d in rng.sample(docs, rng.randint(1, 9))}
            if rng.random() < 0.85:
                retrieved = rng.sample(docs, rng.randint(1, 10))
                run[str(q)] = {d: s / 7 for d, s in zip(retrieved, rng.sample(range(1000), len(retrieved)))}
        run.setdefault("x", {"d1": 1.0})
        for measures in ([RR@1, RR@5], [RR(rel=2)@5], [Judged@1, Judged@5]):
            expected = per_query(ir_measures.DefaultPipeline, measures, qrels, run)
            assert per_query(ours, measures, qrels, run) == pytest.approx(expected, rel=1e-12, abs=1e-15)
            compared += len(expected)
    assert compared > 1000


def test_frames_and_namedtuples_through_the_provider():
    ours = provider_module.TrecgainProvider()
    rows = [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    scored = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    want = ir_measures.pytrec_eval.calc_aggregate([nDCG@10, AP], QRELS, RUN)
    frames = [(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]),
               pd.DataFrame(scored, columns=["query_id", "doc_id", "score"])),
              (pl.DataFrame(rows, schema=["query_id", "doc_id", "relevance"], orient="row"),
               pl.DataFrame(scored, schema=["query_id", "doc_id", "score"], orient="row")),
              ([ir_measures.Qrel(*r) for r in rows], [ir_measures.ScoredDoc(*s) for s in scored])]
    for qrels, run in frames:
        assert ours.calc_aggregate([nDCG@10, AP], qrels, run) == want


def test_measure_objects_in_the_evaluator():
    """A Measure is its name: the lines are named as ir_measures names them, values as the strings'."""
    objects = [nDCG@10, AP(rel=2), RR@10, P@5, R@1000, Judged@10, Bpref, infAP, ir_measures.ERR@20, SetP, NumRet]
    by_object = Evaluator(QRELS, objects, compat="9").evaluate(RUN)
    by_name = Evaluator(QRELS, [str(m) for m in objects], compat="9").evaluate(RUN)
    assert list(by_object.aggregate) == list(by_name.aggregate)
    assert set(by_object.aggregate) == {str(m) for m in objects}
    assert by_object.aggregate == by_name.aggregate and by_object.per_query == by_name.per_query
    assert Evaluator(QRELS, nDCG@10).evaluate(RUN).aggregate == Evaluator(QRELS, "nDCG@10").evaluate(RUN).aggregate
    frame = pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    assert Evaluator(QRELS, [nDCG@10]).evaluate(frame).aggregate == Evaluator(QRELS, ["nDCG@10"]).evaluate(
        {"1": {"a": 1.0, "b": 2.0}}).aggregate


def test_measure_objects_trecgain_cannot_compute_on_these_qrels_are_refused():
    with pytest.raises(TrecgainError, match="alpha-nDCG"):
        Evaluator(QRELS, [alpha_nDCG@5])


def test_measure_objects_in_compare():
    runs = [{"1": {"a": 1.0, "b": 2.0, "c": 0.5}, "2": {"a": 1.0}}, {"1": {"a": 3.0, "b": 2.0}, "2": {"d": 1.0}}]
    import trecgain

    by_object = trecgain.compare(QRELS, runs, measures=[nDCG@10, AP], permutations=50)
    assert str(by_object) == str(trecgain.compare(QRELS, runs, measures=["nDCG@10", "AP"], permutations=50))
