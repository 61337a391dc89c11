"""--as torchmetrics (and -pos, -skip, -error): torchmetrics' retrieval rules, as
docs/conventions.md writes them down from its source.

torch does not install here (its PyPI wheel brings CUDA packages, gigabytes), so torchmetrics is
not run: the checks are hand-worked cases, each with its arithmetic, and an implementation of the
rules written here from docs/conventions.md (not from torchmetrics' code) compared with
`--as torchmetrics` on 300 random collections, per query and mean.  Ties between documents of
different relevance are left unspecified by torchmetrics (torch.topk, an unstable argsort); this
implementation orders them as trecgain does (docno descending), so they are compared too.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from trecgain import Evaluator, TrecgainError

COLLECTIONS = 300
QIDS = ["1", "2", "10", "q1", "Q1"]
DOCS = ["d1", "d01", "D1", "d10", "1", "x", "y", "z", "d2", "d3"]
ACTIONS = {"neg": "torchmetrics", "pos": "torchmetrics-pos", "skip": "torchmetrics-skip",
           "error": "torchmetrics-error"}
K = 3
BINARY = {"map": None, f"map_cut.{K}": K, "recip_rank": None, f"RR@{K}": K, f"P.{K}": K, f"recall.{K}": K}
LINES = {"map": "map", f"map_cut.{K}": f"map_cut_{K}", "recip_rank": "recip_rank", f"RR@{K}": f"RR@{K}",
         f"P.{K}": f"P_{K}", f"recall.{K}": f"recall_{K}"}


# ------------------------------------------------------------------ the rules, from docs/conventions.md


def f32(score: float) -> float:
    """preds.float(): the score as float32."""
    return float(np.float32(score))


def ordered(pairs: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """(docno, score, target) by float32 score descending; ties (unspecified in torchmetrics)
    by docno descending in byte order, trecgain's choice."""
    by_docno = sorted(pairs, key=lambda p: p[0].encode(), reverse=True)
    return sorted(by_docno, key=lambda p: -f32(p[1]))


def ndcg(pairs: list[tuple[str, float, float]], k: int | None) -> float:
    """Gains = targets, discount 1/log2(i + 2) set to 0 from position k, tied scores averaged
    (each group's mean target times its positions' discounts), over the targets sorted."""
    n = len(pairs)
    k = n if k is None else k
    discount = [1 / math.log2(i + 2) if i < k else 0.0 for i in range(n)]
    ranking = ordered(pairs)
    dcg, start = 0.0, 0
    while start < n:
        end = start
        while end < n and f32(ranking[end][1]) == f32(ranking[start][1]):
            end += 1
        mean = sum(t for _, _, t in ranking[start:end]) / (end - start)
        dcg += mean * sum(discount[start:end])
        start = end
    ideal = sum(t * d for t, d in zip(sorted((t for _, _, t in pairs), reverse=True), discount))
    return 0.0 if ideal == 0 else dcg / ideal


def found(pairs: list[tuple[str, float, float]], k: int | None) -> list[int]:
    """1-based positions, within topk(min(k, n)), of the relevant pairs whose score is positive."""
    top = ordered(pairs)[:len(pairs) if k is None else k]
    return [i + 1 for i, (_, s, t) in enumerate(top) if t > 0 and f32(s) > 0]


def average_precision(pairs, k):
    positions = found(pairs, k)
    return sum((i + 1) / p for i, p in enumerate(positions)) / len(positions) if positions else 0.0


def reciprocal_rank(pairs, k):
    positions = found(pairs, k)
    return 1 / positions[0] if positions else 0.0


def precision(pairs, k):
    return len(found(pairs, k)) / k if any(t for _, _, t in pairs) else 0.0


def recall(pairs, k):
    relevant = sum(t for _, _, t in pairs)  # before the non-positive rule
    return len(found(pairs, k)) / relevant if relevant else 0.0


FUNCTIONS = {"map": average_precision, f"map_cut.{K}": average_precision, "recip_rank": reciprocal_rank,
             f"RR@{K}": reciprocal_rank, f"P.{K}": precision, f"recall.{K}": recall}


def group(qrels: dict, run: dict, q: str, binary_level: int | None) -> list[tuple[str, float, float]]:
    """One query's pairs (docno, score, target): the grade (0 unjudged or negative) for nDCG,
    else 1 when the grade is at least the level."""
    grades = qrels.get(q, {})
    if binary_level is None:
        return [(d, s, float(max(grades.get(d, 0), 0))) for d, s in run[q].items()]
    return [(d, s, 1.0 if grades.get(d, 0) >= binary_level else 0.0) for d, s in run[q].items()]


def expected(qrels: dict, run: dict, measure: str, action: str, level: int) -> tuple[dict, float] | None:
    """({qid: value}, mean) as torchmetrics' module metric computes them (RetrievalMetric.compute
    with empty_target_action=action, aggregation mean); None when it raises."""
    values = {}
    for q in run:
        pairs = group(qrels, run, q, None if measure.startswith("ndcg") else level)
        if not sum(t for _, _, t in pairs):  # empty target
            if action == "error":
                return None
            if action != "skip":
                values[q] = 1.0 if action == "pos" else 0.0
            continue
        if measure.startswith("ndcg"):
            values[q] = ndcg(pairs, None if measure == "ndcg" else K)
        else:
            values[q] = FUNCTIONS[measure](pairs, BINARY[measure])
    mean = sum(values.values()) / len(values) if values else 0.0
    return values, mean


def collection(rng: np.random.Generator, graded: bool, ties: bool) -> tuple[dict, dict]:
    """Random qrels and run: negative and zero scores, float32 ties, queries with nothing relevant,
    queries missing from either side, negative grades."""
    qids = [str(q) for q in rng.choice(QIDS, size=rng.integers(1, len(QIDS) + 1), replace=False)]
    qrels, run = {}, {}
    for q in [q for q in qids if rng.random() < 0.8] or qids[:1]:
        docs = rng.choice(DOCS, size=rng.integers(1, 8), replace=False)
        grades = {str(d): int(rng.integers(-1, (3 if graded else 1) + 1)) for d in docs}
        if rng.random() < 0.2:
            grades = {d: min(g, 0) for d, g in grades.items()}
        qrels[q] = grades
    for q in [q for q in qids if rng.random() < 0.8] or qids[-1:]:
        docs = rng.choice(DOCS, size=rng.integers(1, 9), replace=False)
        if ties:  # equal scores, and scores equal only in float32
            values = rng.choice([-1.0, 0.0, 0.5, 1.0, 1.0 + 1e-9, 2.0], size=len(docs))
        else:
            values = rng.permutation(len(docs)) + rng.random() - 2.0
        run[q] = {str(d): float(v) for d, v in zip(docs, values)}
    return qrels, run


def close(ours: float, theirs: float) -> bool:
    return math.isclose(ours, theirs, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize("action", list(ACTIONS))
def test_rules_on_random_collections(action: str) -> None:
    """--as torchmetrics[-ACTION] against the rules written out above: every run query, per query
    and mean, nDCG (its own run) and the binary measures, at relevance levels 1 and 2."""
    rng = np.random.default_rng(22 + len(action))
    tool = ACTIONS[action]
    compared = 0
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, graded=bool(i & 1), ties=bool(i & 2))
        level = 2 if i & 4 else 1
        if not set(qrels) & set(run):
            continue
        for measures in (["ndcg"], [f"ndcg_cut.{K}"], list(BINARY)):
            want = {m: expected(qrels, run, m, action, level) for m in measures}
            try:
                result = Evaluator(qrels, measures, convention=tool, relevance_level=level).evaluate(run)
            except TrecgainError as error:
                assert any(w is None for w in want.values()), (error, qrels, run)
                continue
            assert all(w is not None for w in want.values()), (measures, qrels, run)
            ours, mean = result.per_query, result.aggregate
            for m, (values, their_mean) in want.items():
                line = f"{LINES.get(m, m.replace('.', '_'))}~{tool}"
                evaluated = {q: v[line] for q, v in ours.items()}
                for q, value in values.items():  # a run query the qrels lack: in the mean, no line
                    assert close(evaluated.get(q, 1.0 if action == "pos" else 0.0), value), (m, q, qrels, run)
                assert set(evaluated) <= set(values), (m, qrels, run)
                assert close(mean[line], their_mean), (m, mean[line], their_mean, qrels, run)
                compared += 1
    assert compared > 300


# ------------------------------------------------------------------ hand-worked cases

QRELS = {"1": {"a": 1, "b": 1, "c": 0, "e": 1}}


def values(measures: list[str], run: dict, tool: str = "torchmetrics", qrels: dict = QRELS, **options) -> dict:
    return Evaluator(qrels, measures, convention=tool, **options).evaluate(run).per_query


def test_ap_divides_by_the_relevant_found() -> None:
    """Ranking c (0), a (1), d (unjudged), b (1); e is relevant but not retrieved.
    torchmetrics' AP: found at positions 2 and 4: (1/2 + 2/4) / 2 = 0.5 (trec_eval: / 3 judged
    relevant = 1/3).  AP@2: found a at 2: (1/2) / 1 = 0.5 (trec_eval's map_cut.2: (1/2) / 3)."""
    run = {"1": {"c": 4.0, "a": 3.0, "d": 2.0, "b": 1.0}}
    got = values(["map", "map_cut.2"], run)["1"]
    assert got == {"map~torchmetrics": 0.5, "map_cut_2~torchmetrics": 0.5}
    trec = Evaluator(QRELS, ["map", "map_cut.2"]).evaluate(run).per_query["1"]
    assert trec == {"map": (1 / 2 + 2 / 4) / 3, "map_cut_2": (1 / 2) / 3}


def test_non_positive_scores_are_not_relevant() -> None:
    """a 0.5, b -0.1, c 0.0 (a, b relevant): b's score is not positive, so it is not relevant to
    AP, RR, P and recall.  Ranking a, c, b.  AP = 1/1 (only a found) = 1; P@3 = 1/3; recall@3 =
    1 found / 2 relevant passed (b counts in the divisor) = 0.5; RR = 1.  nDCG keeps b's gain:
    DCG@3 = 1 + 0 + 1/log2(4) = 1.5, ideal = 1 + 1/log2(3); 1.5 / 1.6309... """
    qrels = {"1": {"a": 1, "b": 1}}
    run = {"1": {"a": 0.5, "b": -0.1, "c": 0.0}}
    got = values(["map", "P.3", "recall.3", "recip_rank"], run, qrels=qrels)["1"]
    assert got == {"map~torchmetrics": 1.0, "P_3~torchmetrics": 1 / 3, "recall_3~torchmetrics": 0.5,
                   "recip_rank~torchmetrics": 1.0}
    (ndcg_value,) = values(["ndcg_cut.3"], run, qrels=qrels)["1"].values()
    assert ndcg_value == pytest.approx(1.5 / (1 + 1 / math.log2(3)), abs=1e-15)


def test_relevant_only_at_non_positive_scores_is_measured_not_empty() -> None:
    """Query 1's only relevant document has score -1: the target is not empty (its sum is taken
    before the non-positive rule), so even torchmetrics-pos measures it: AP = 0, not 1."""
    got = values(["map"], {"1": {"a": -1.0, "x": 1.0}}, tool="torchmetrics-pos", qrels={"1": {"a": 1}})
    assert got == {"1": {"map~torchmetrics-pos": 0.0}}


def test_ndcg_averages_ties_over_the_retrieved_documents() -> None:
    """a (grade 2) and b (grade 0) tie at 1.0, c (grade 1) is below; d (grade 3) is not retrieved,
    so it is not in the ideal.  Tie group a, b: mean gain 1, positions 1 and 2: 1 * (1 + 1/log2 3);
    c at 3: 1/log2 4 = 0.5.  Ideal: 2 + 1/log2 3 (+ 0).  nDCG = (1.5 + 1/log2 3) / (2 + 1/log2 3)."""
    qrels = {"1": {"a": 2, "b": 0, "c": 1, "d": 3}}
    run = {"1": {"a": 1.0, "b": 1.0, "c": 0.5}}
    (got,) = values(["ndcg"], run, qrels=qrels)["1"].values()
    assert got == pytest.approx((1.5 + 1 / math.log2(3)) / (2 + 1 / math.log2(3)), abs=1e-15)


def test_scores_are_float32() -> None:
    """1.0 and 1.0 + 1e-9 are one float32: they tie, and the docno decides (b before a,
    descending): RR of a = 1/2 (with doubles, a ranks first: 1)."""
    qrels, run = {"1": {"a": 1}}, {"1": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert values(["recip_rank"], run, qrels=qrels) == {"1": {"recip_rank~torchmetrics": 0.5}}
    assert Evaluator(qrels, ["recip_rank"]).evaluate(run).per_query == {"1": {"recip_rank": 1.0}}


def test_empty_target_actions() -> None:
    """Query 1: a relevant at rank 2 (RR 1/2); query 2: nothing relevant retrieved (x is 0, the
    relevant y not retrieved); query 3: not in the qrels (its targets are all 0).
    neg: 1/2, 0, 0 -> mean 1/6; pos: 1/2, 1, 1 -> 5/6; skip: query 1 alone -> 1/2; error: raises."""
    qrels = {"1": {"a": 1}, "2": {"x": 0, "y": 1}}
    run = {"1": {"a": 1.0, "b": 2.0}, "2": {"x": 1.0}, "3": {"z": 1.0}}
    means = {tool: Evaluator(qrels, ["recip_rank"], convention=tool).evaluate(run).aggregate[f"recip_rank~{tool}"]
             for tool in ("torchmetrics", "torchmetrics-pos", "torchmetrics-skip")}
    assert means == {"torchmetrics": pytest.approx(1 / 6, abs=1e-16), "torchmetrics-pos": pytest.approx(5 / 6, abs=1e-16),
                     "torchmetrics-skip": 0.5}
    assert values(["recip_rank"], run, "torchmetrics-skip", qrels) == {"1": {"recip_rank~torchmetrics-skip": 0.5}}
    assert values(["recip_rank"], run, "torchmetrics-pos", qrels)["2"] == {"recip_rank~torchmetrics-pos": 1.0}
    with pytest.raises(TrecgainError, match="empty_target_action"):
        Evaluator(qrels, ["recip_rank"], convention="torchmetrics-error").evaluate({"2": {"x": 1.0}})
    with pytest.raises(TrecgainError, match="qrels lack"):
        Evaluator(qrels, ["recip_rank"], convention="torchmetrics-error").evaluate({"1": {"a": 1.0}, "3": {"z": 1.0}})


def test_precision_pads_to_k_and_recall_counts_the_retrieved() -> None:
    """Two documents retrieved, a relevant: P@5 = 1/5 (divided by k, not by 2); recall@5 = 1/1
    (the relevant e, not retrieved, does not count: trec_eval says 1/2)."""
    qrels, run = {"1": {"a": 1, "e": 1}}, {"1": {"a": 1.0, "b": 0.5}}
    assert values(["P.5", "recall.5"], run, qrels=qrels)["1"] == {"P_5~torchmetrics": 0.2,
                                                                  "recall_5~torchmetrics": 1.0}


def test_measures_refused_and_ndcg_alone() -> None:
    """torchmetrics has nDCG, AP, RR, P and recall; nDCG follows other rules (ties averaged,
    every score's gain), so it is evaluated alone."""
    with pytest.raises(TrecgainError, match="no measure 'bpref'"):
        Evaluator(QRELS, ["bpref"], convention="torchmetrics")
    with pytest.raises(TrecgainError, match="run of its own"):
        Evaluator(QRELS, ["ndcg_cut.10", "map"], convention="torchmetrics")
    with pytest.raises(TrecgainError, match="ties"):
        Evaluator(QRELS, ["map"], convention="torchmetrics", ties="average")


@pytest.mark.parametrize("tool, measure", [("gdeval", "ndcg_cut.10"), ("torchmetrics", "map"),
                                           ("torchmetrics-pos", "ndcg_cut.10"), ("torchmetrics-skip", "P.5")])
def test_cli_marks_every_format(tool: str, measure: str, tmp_path) -> None:
    """Every line printed under --as TOOL says so: NAME~TOOL in the trec text, the convention in JSON."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n")
    command = [sys.executable, "-m", "trecgain", "--as", tool, "-m", measure, "-q", str(qrels), str(run)]
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    line = measure.replace(".", "_")
    names = [row.split("\t")[0].rstrip() for row in text.splitlines()]
    assert names and all(name == f"{line}~{tool}" for name in names)
    document = json.loads(subprocess.run([*command, "--format", "json"], capture_output=True, text=True,
                                         check=True).stdout)
    assert document["convention"] == tool and document["runs"][0]["convention"] == tool
    assert list(document["runs"][0]["aggregate"]) == [f"{line}~{tool}"]
