"""--compat 9 keeps each measure under its own version's rules: a measure trec_eval 9.x lacks
(dcg, ideal_dcg, rbp, rbp_resid, unj) is trec_eval 10.0 on float32 scores, and naming it beside
9.x's measures changes none of their lines (recall points, the queries -c brings in)."""

from __future__ import annotations

import random

import pytest

from trecgain import Evaluator

NEW_IN_10 = ["rbp", "rbp_resid", "unj", "dcg", "ideal_dcg"]
NINE = ["official", "all_trec", "iprec_at_recall", "11pt_avg", "map", "ndcg_cut.10", "gm_map", "utility.1,-1,-1,0",
        "num_rel", "Rprec_mult", "set_F", "bpref"]


def _collection(seed: int) -> tuple[dict, dict]:
    """Graded qrels of 8 queries; a run missing some of them, with ties and unjudged documents."""
    rng = random.Random(seed)
    qrels = {f"q{q}": {f"d{d}": rng.choice([0, 0, 1, 2, 3, -1]) for d in rng.sample(range(30), rng.randint(1, 15))}
             for q in range(8)}
    run = {f"q{q}": {f"d{d}": float(rng.randint(0, 12)) for d in rng.sample(range(30), rng.randint(1, 20))}
           for q in range(8) if rng.random() < 0.7}
    run.setdefault("q0", {"d1": 1.0})
    return qrels, run


def _lines(qrels: dict, run: dict, measures: list[str], **options: object) -> set[str]:
    """The lines of `trecgain --compat 9 -q`."""
    result = Evaluator(qrels, measures=measures, compat="9", **options).evaluate(run)
    lines = result.to_trec(per_query=True).splitlines()
    assert len(lines) == len(set(lines)), "a line printed twice"
    return set(lines)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("options", [{}, {"complete": True}, {"complete": True, "judged_only": True},
                                     {"complete": True, "max_docs": 3}, {"relevance_level": 2}])
def test_a_measure_new_in_10_changes_no_other_line(seed: int, options: dict) -> None:
    qrels, run = _collection(seed)
    rng = random.Random(seed)
    nine = rng.sample(NINE, 2)
    ten = rng.sample(NEW_IN_10, 2)
    together = _lines(qrels, run, nine + ten, **options)
    apart = _lines(qrels, run, nine, **options) | _lines(qrels, run, ten, **options)
    assert together == apart


def test_recall_points_keep_9s_rule_beside_rbp() -> None:
    """9.x puts recall point p at rank (long)(p R + 0.9), 10.0 rounds p R: with R = 4 the point
    0.3 needs 2 relevant documents in 9.x (1.2 + 0.9) and 1 in 10.0.  The relevant documents are
    at ranks 1 and 10, so 9.x's iprec_at_recall_0.30 is 2/10 and 10.0's is 1/1; naming rbp
    beside it keeps 9.x's."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    run = {"q": {"a": 20.0, **{f"x{i}": 10.0 - i for i in range(8)}, "b": 1.0}}
    alone = Evaluator(qrels, measures=["iprec_at_recall.0.3"], compat="9").evaluate(run)
    beside = Evaluator(qrels, measures=["iprec_at_recall.0.3", "rbp"], compat="9").evaluate(run)
    ten = Evaluator(qrels, measures=["iprec_at_recall.0.3"], compat="10").evaluate(run)
    assert alone.aggregate["iprec_at_recall_0.30"] == 2 / 10
    assert ten.aggregate["iprec_at_recall_0.30"] == 1.0
    assert beside.aggregate["iprec_at_recall_0.30"] == alone.aggregate["iprec_at_recall_0.30"]
