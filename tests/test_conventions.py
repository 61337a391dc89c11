"""`--as TOOL` (issue 22) against the tools themselves: on random collections (ties, queries with
nothing relevant, queries missing on either side, graded and binary judgments, negative grades,
ids that look alike: "1", "01", "d1", "D1", a document named as its query), trecgain's values
under a tool's convention equal the tool's own, per query and aggregated.

Tools run here: pytrec_eval (pytrec-eval-terrier), ir_measures, ranx, scikit-learn, trectools.  BEIR and
MTEB are not installed (they pull in torch): their conventions are pytrec_eval's plus the steps
their evaluation code takes around it (docs/conventions.md: BEIR removes each document whose id
is its query's from the run, both round the mean to 5 decimals), and those steps are taken here
on the inputs given to pytrec_eval.  The MS MARCO script is checked on hand-computed cases."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import pytrec_eval

from trecgain import Evaluator, TrecgainError

COLLECTIONS = 300
QIDS = ["1", "2", "10", "01", "q1", "Q1"]
DOCS = ["d1", "d01", "D1", "d10", "1", "01", "q1", "x", "y", "z", "d2", "d3"]


def collection(rng: np.random.Generator, graded: bool, negative: bool, ties: bool, same_queries: bool = False,
               two_docs: bool = False) -> tuple[dict, dict]:
    """Random qrels {qid: {docno: grade}} and run {qid: {docno: score}}."""
    qids = [str(q) for q in rng.choice(QIDS, size=rng.integers(1, len(QIDS) + 1), replace=False)]
    qrels_qids = qids if same_queries else [q for q in qids if rng.random() < 0.8] or qids[:1]
    run_qids = qids if same_queries else [q for q in qids if rng.random() < 0.8] or qids[-1:]
    qrels, run = {}, {}
    top = 3 if graded else 1
    for q in qrels_qids:
        docs = rng.choice(DOCS, size=rng.integers(1, 8), replace=False)
        grades = {str(d): int(rng.integers(-1 if negative else 0, top + 1)) for d in docs}
        if rng.random() < 0.15:  # nothing relevant
            grades = {d: 0 for d in grades}
        if all(g < 0 for g in grades.values()):  # trec_eval and pytrec_eval fail on such a query
            grades[next(iter(grades))] = 0
        qrels[q] = grades
    for q in run_qids:
        docs = rng.choice(DOCS, size=rng.integers(2 if two_docs else 1, 10), replace=False)
        if ties:
            scores = {str(d): float(rng.integers(0, 4)) for d in docs}
        else:
            values = rng.permutation(len(docs)) + rng.random()
            scores = {str(d): float(v) for d, v in zip(docs, values)}
        run[q] = scores
    return qrels, run


def close(ours: float, theirs: float, rel: float = 1e-12) -> bool:
    return math.isclose(ours, theirs, rel_tol=rel, abs_tol=1e-15)


def kinds(i: int) -> dict:
    """Each collection's kind, so that every combination occurs."""
    return {"graded": bool(i & 1), "negative": bool(i & 2), "ties": bool(i & 4)}


# ------------------------------------------------------------------ pytrec_eval, BEIR, MTEB

PYTREC = ["ndcg_cut.5,10", "map", "map_cut.10", "P.5,10", "recall.10", "recip_rank", "ndcg"]
PYTREC_LINES = ["ndcg_cut_5", "ndcg_cut_10", "map", "map_cut_10", "P_5", "P_10", "recall_10", "recip_rank", "ndcg"]


def test_pytrec_eval() -> None:
    """--as pytrec_eval: pytrec_eval's per-query values, and their mean over the queries it returns."""
    rng = np.random.default_rng(22)
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, **kinds(i))
        theirs = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC)).evaluate(run)
        if not theirs:
            with pytest.raises(TrecgainError):
                Evaluator(qrels, PYTREC, convention="pytrec_eval").evaluate(run)
            continue
        result = Evaluator(qrels, PYTREC, convention="pytrec_eval").evaluate(run)
        ours = result.per_query
        assert set(ours) == set(theirs), (qrels, run)
        for line in PYTREC_LINES:
            for q in theirs:
                assert close(ours[q][f"{line}~pytrec_eval"], theirs[q][line]), (line, q, qrels, run)
            mean = sum(theirs[q][line] for q in result.qids) / len(theirs)
            assert close(result.aggregate[f"{line}~pytrec_eval"], mean), (line, qrels, run)


BEIR = ["ndcg_cut.1,3,5,10", "map_cut.1,3,5,10", "recall.1,3,5,10", "P.1,3,5,10"]


@pytest.mark.parametrize("tool", ["beir", "mteb"])
def test_beir_and_mteb(tool: str) -> None:
    """--as beir / mteb: pytrec_eval's values (BEIR after removing each document named as its
    query), each mean over the queries pytrec_eval returns, rounded to 5 decimals."""
    rng = np.random.default_rng(2022)
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, **kinds(i))
        given = {q: {d: s for d, s in docs.items() if not (tool == "beir" and d == q)} for q, docs in run.items()}
        # BEIR pops the document from the query's dict: a query left empty stays, and pytrec_eval
        # evaluates it (every value 0)
        theirs = pytrec_eval.RelevanceEvaluator(qrels, set(BEIR)).evaluate(given)
        if not theirs:
            continue
        result = Evaluator(qrels, BEIR, convention=tool).evaluate(run)
        ours = result.per_query
        for line in [f"{m}_{k}" for m in ("ndcg_cut", "map_cut", "recall", "P") for k in (1, 3, 5, 10)]:
            for q in theirs:
                assert close(ours[q][f"{line}~{tool}"], theirs[q][line]), (tool, line, q, qrels, run)
            mean = round(sum(theirs[q][line] for q in result.qids if q in theirs) / len(theirs), 5)
            assert result.aggregate[f"{line}~{tool}"] == mean, (tool, line, qrels, run)


def test_beir_removes_the_query_document() -> None:
    """Hand-computed: run q1: [q1 (3.0), d1 (1.0)], d1 and q1 relevant: BEIR drops q1, so d1 is at
    rank 1 and nDCG@10 = 1/(1 + 1/log2 3); trec_eval keeps q1 at rank 1: nDCG@10 = 1."""
    qrels = {"q1": {"d1": 1, "q1": 1}}
    run = {"q1": {"q1": 3.0, "d1": 1.0}}
    assert Evaluator(qrels, ["ndcg_cut.10"]).evaluate(run).aggregate["ndcg_cut_10"] == 1.0
    beir = Evaluator(qrels, ["ndcg_cut.10"], convention="beir").evaluate(run).aggregate["ndcg_cut_10~beir"]
    assert beir == round(1 / (1 + 1 / math.log2(3)), 5)


def beir_mrr(qrels: dict, run: dict, k: int) -> float:
    """BEIR's MRR@k as beir/retrieval/custom_metrics.py `mrr` computes it (read, not copied): per
    run query, a stable sort by score alone, 1/rank of the first document with grade > 0 within
    k; the sum over len(qrels), rounded to 5 decimals."""
    total = 0.0
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda item: item[1], reverse=True)[:k]
        relevant = {d for d, g in qrels[q].items() if g > 0}
        total += next((1.0 / (r + 1) for r, (d, _) in enumerate(ranked) if d in relevant), 0.0)
    return round(total / len(qrels), 5)


def mteb_mrr(qrels: dict, run: dict, k: int) -> float:
    """MTEB's MRR@k as mteb/_evaluators/retrieval_metrics.py `mrr` computes it (read, not
    copied): per run query, sorted by (score, doc id) in reverse, 1/rank of the first document
    with grade > 0 within k; the mean over the run's queries, not rounded."""
    values = []
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)[:k]
        relevant = {d for d, g in qrels[q].items() if g > 0}
        values.append(next((1.0 / (r + 1) for r, (d, _) in enumerate(ranked) if d in relevant), 0.0))
    return sum(values) / len(values)


@pytest.mark.parametrize("tool", ["beir", "mteb"])
def test_beir_and_mteb_mrr(tool: str) -> None:
    """--as beir / mteb -m RR@k: their own MRR code's rules (a run query the qrels lack: an error,
    as their KeyError)."""
    rng = np.random.default_rng(5092)
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, **kinds(i))
        k = int(rng.integers(1, 6))
        evaluator = Evaluator(qrels, [f"RR@{k}"], convention=tool)
        if set(run) - set(qrels) or not set(run) & set(qrels):
            with pytest.raises(TrecgainError):
                evaluator.evaluate(run)
            continue
        given = {q: {d: s for d, s in docs.items() if not (tool == "beir" and d == q)} for q, docs in run.items()}
        expected = beir_mrr(qrels, given, k) if tool == "beir" else mteb_mrr(qrels, given, k)
        assert close(evaluator.evaluate(run).aggregate[f"RR@{k}~{tool}"], expected), (k, qrels, run)


def test_beir_mrr_keeps_input_order_on_ties() -> None:
    """Hand-computed: tied scores keep the run's order (BEIR #187 / MTEB #5092's constant scorer)."""
    qrels = {"q": {"a": 1}}
    run = {"q": {"c": 1.0, "b": 1.0, "a": 1.0}}
    assert Evaluator(qrels, ["RR@10"], convention="beir").evaluate(run).aggregate["RR@10~beir"] == round(1 / 3, 5)
    assert Evaluator(qrels, ["RR@10"], convention="mteb").evaluate(run).aggregate["RR@10~mteb"] == 1 / 3
    flipped = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    assert Evaluator(qrels, ["RR@10"], convention="beir").evaluate(flipped).aggregate["RR@10~beir"] == 1.0


# ------------------------------------------------------------------ trectools

TT_QIDS = ["qa", "qb", "qc", "Q1", "q1x"]
TT_DOCS = ["da", "db", "dc", "Da", "daa", "x", "y", "z", "w"]


def test_trectools(tmp_path) -> None:
    """--as trectools: trectools' TrecEval on the same files (its nDCG ranks ties by docid
    ascending, the others descending; each mean over the run's queries).  Ids are not numbers:
    trectools reads them through pandas, which would turn "01" into 1."""
    from trectools import TrecEval, TrecQrel, TrecRun

    rng = np.random.default_rng(36)
    measures = {"ndcg_cut.5": ("get_ndcg", 5), "map": ("get_map", 1000), "recip_rank": ("get_reciprocal_rank", 1000),
                "P.5": ("get_precision", 5), "recall.5": ("get_recall", 5)}
    qrels_file, run_file = tmp_path / "qrels", tmp_path / "run"
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, **kinds(i))
        rename_q = dict(zip(QIDS, TT_QIDS + ["qd"]))
        rename_d = dict(zip(DOCS, TT_DOCS + ["v", "u", "t"]))
        qrels = {rename_q[q]: {rename_d[d]: g for d, g in docs.items()} for q, docs in qrels.items()}
        run = {rename_q[q]: {rename_d[d]: s for d, s in docs.items()} for q, docs in run.items()}
        qrels_file.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
        run_file.write_text("".join(f"{q} Q0 {d} {r + 1} {s!r} tag\n" for q, docs in run.items()
                                    for r, (d, s) in enumerate(docs.items())))
        if not set(qrels) & set(run):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            te = TrecEval(TrecRun(str(run_file)), TrecQrel(str(qrels_file)))
            for measure, (method, depth) in measures.items():
                theirs = float(getattr(te, method)(depth=depth))
                per_query = getattr(te, method)(depth=depth, per_query=True)
                result = Evaluator(str(qrels_file), [measure], convention="trectools").evaluate(str(run_file))
                line = f"{result.line_formats()[0].name}"
                assert close(result.aggregate[line], theirs), (measure, qrels, run)
                ours = result.per_query
                for q, value in zip(per_query.index, per_query.iloc[:, 0]):
                    if str(q) not in run:  # a qrels query the run lacks: listed by some, 0, not in the mean
                        assert value == 0 or math.isnan(value), (measure, q, qrels, run)
                    elif not math.isnan(value):  # a run query the qrels lack: 0, counted in the mean
                        assert close(ours.get(str(q), {}).get(line, 0.0), float(value)), (measure, q, qrels, run)


# ------------------------------------------------------------------ ir_measures

IR = ["nDCG@10", "nDCG@5", "AP", "AP@10", "P@5", "R@10", "RR", "nDCG"]


def test_ir_measures() -> None:
    """--as ir_measures: every qrels query, one the run lacks scoring 0, and the mean over them."""
    import ir_measures

    measures = [ir_measures.parse_measure(m) for m in IR]
    rng = np.random.default_rng(7)
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, **kinds(i))
        if not set(qrels) & set(run):
            continue
        theirs: dict = {}
        for m in ir_measures.iter_calc(measures, qrels, run):
            theirs.setdefault(m.query_id, {})[str(m.measure)] = m.value
        aggregate = ir_measures.calc_aggregate(measures, qrels, run)
        result = Evaluator(qrels, IR, convention="ir_measures").evaluate(run)
        ours = result.per_query
        for m in IR:
            for q in qrels:
                assert close(ours.get(q, {}).get(f"{m}~ir_measures", 0.0), theirs[q][m]), (m, q, qrels, run)
            assert close(result.aggregate[f"{m}~ir_measures"], aggregate[ir_measures.parse_measure(m)]), (m, qrels,
                                                                                                          run)


def test_ir_measures_rr_at_k() -> None:
    """ir_measures' RR@k comes from its msmarco provider (doc id ascending on ties, float64
    scores, every qrels query): --as ir_measures -m RR@k follows those rules."""
    import ir_measures

    rng = np.random.default_rng(77)
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, **kinds(i))
        if not set(qrels) & set(run):
            continue
        k = int(rng.integers(1, 6))
        measure = ir_measures.parse_measure(f"RR@{k}")
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        result = Evaluator(qrels, [f"RR@{k}"], convention="ir_measures").evaluate(run)
        ours = result.per_query
        for q in qrels:
            assert close(ours.get(q, {}).get(f"RR@{k}~ir_measures", 0.0), theirs[q]), (q, qrels, run)
        assert close(result.aggregate[f"RR@{k}~ir_measures"],
                     ir_measures.calc_aggregate([measure], qrels, run)[measure])


def test_rr_at_k_with_other_measures_refused() -> None:
    """One evaluation follows one set of rules: a tool's measure computed by other rules is
    evaluated on its own."""
    with pytest.raises(TrecgainError, match="in a run of its own"):
        Evaluator({"1": {"a": 1}}, ["RR@10", "nDCG@10"], convention="ir_measures")
    with pytest.raises(TrecgainError, match="in a run of its own"):
        Evaluator({"1": {"a": 1}}, ["RR@10", "ndcg_cut.10"], convention="beir")


# ------------------------------------------------------------------ ranx

RANX_MEASURES = ["ndcg_cut.5,10", "ndcg", "map_cut.10", "map", "recip_rank", "P.5", "recall.10"]
#: trecgain's line: ranx's metric.
RANX = {"ndcg_cut_10": "ndcg@10", "ndcg_cut_5": "ndcg@5", "ndcg": "ndcg", "map_cut_10": "map@10", "map": "map",
        "recip_rank": "mrr", "P_5": "precision@5", "recall_10": "recall@10"}


@pytest.mark.parametrize("level", [1, 2])
def test_ranx(level: int) -> None:
    """--as ranx: ranx's values (its relevance level also drops judgments from nDCG).  Scores are
    distinct: ranx orders tied documents with an unstable sort (docs/conventions.md).  ranx runs
    with numba's JIT off (NUMBA_DISABLE_JIT: the same Python code, interpreted), which keeps the
    test to seconds; compiled, the first call takes minutes on a small machine."""
    if "numba" not in sys.modules:  # ranx's own code, interpreted: numba would compile it for minutes first
        os.environ["NUMBA_DISABLE_JIT"] = "1"
    import ranx
    rng = np.random.default_rng(level)
    names = {trec: f"{name}-l{level}" if level != 1 else name for trec, name in RANX.items()}
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, same_queries=True, **{**kinds(i), "ties": False})
        qrels = {q: docs for q, docs in qrels.items() if any(g >= level for g in docs.values())}
        run = {q: run[q] for q in qrels}
        if not qrels:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(names.values()), return_mean=False)
        result = Evaluator(qrels, RANX_MEASURES, relevance_level=level, convention="ranx").evaluate(run)
        ours = result.per_query
        order = sorted(qrels)  # ranx's queries in sorted order
        for trec, name in names.items():
            line = trec + "~ranx"
            for j, q in enumerate(order):
                assert close(ours[q][line], float(theirs[name][j]), 1e-9), (line, q, qrels, run)
            assert close(result.aggregate[line], float(np.mean(theirs[name])), 1e-9), (line, qrels, run)


def test_ranx_needs_the_same_queries() -> None:
    with pytest.raises(TrecgainError, match="same queries"):
        Evaluator({"1": {"a": 1}, "2": {"a": 1}}, ["map"], convention="ranx").evaluate({"1": {"a": 1.0}})


# ------------------------------------------------------------------ scikit-learn


@pytest.mark.parametrize("k", [None, 1, 3, 5])
def test_sklearn(k: int | None) -> None:
    """--as sklearn: ndcg_score of each query's row (its retrieved documents' grades, 0 when
    unjudged, against their scores; ties averaged)."""
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(100 + (k or 0))
    measure, line = ("ndcg", "ndcg~sklearn") if k is None else (f"ndcg_cut.{k}", f"ndcg_cut_{k}~sklearn")
    for i in range(COLLECTIONS):
        qrels, run = collection(rng, two_docs=True, **{**kinds(i), "negative": False})
        if not set(run) & set(qrels):
            continue
        result = Evaluator(qrels, [measure], convention="sklearn").evaluate(run)
        ours = result.per_query
        values = []
        for q in run:  # each run query a row; one the qrels lack is all zeros, scoring 0
            docs = list(run[q])
            y_true = np.array([[max(qrels.get(q, {}).get(d, 0), 0) for d in docs]])
            y_score = np.array([[run[q][d] for d in docs]])
            value = ndcg_score(y_true, y_score, k=k)
            values.append(value)
            assert close(ours.get(q, {}).get(line, 0.0), value, 1e-12), (q, qrels, run)
        assert close(result.aggregate[line], float(np.mean(values)), 1e-12)


def test_sklearn_lacks_map() -> None:
    with pytest.raises(TrecgainError, match="classification AP"):
        Evaluator({"1": {"a": 1}}, ["map"], convention="sklearn")


# ------------------------------------------------------------------ MS MARCO (hand-computed)


def test_msmarco_mrr10(tmp_path) -> None:
    """The MS MARCO script's MRR@10, computed by hand: ranks from the rank column (scores
    ignored), every listed passage relevant (grade 0 too), cut at rank 10, averaged over the
    reference's queries (one the run lacks counts 0)."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 7 0\n1 0 8 1\n2 0 5 1\n3 0 9 1\n")
    run = tmp_path / "run"
    # query 1: passage 7 (grade 0, still relevant) at rank 2 though its score is lowest;
    # query 2: passage 5 at rank 11 (beyond the cutoff); query 3 is missing from the run
    lines = ["1 Q0 3 1 0.9 r", "1 Q0 7 2 0.1 r", "1 Q0 8 3 0.5 r"]
    lines += [f"2 Q0 {100 + r} {r} {1 - r / 100} r" for r in range(1, 11)] + ["2 Q0 5 11 0.001 r"]
    run.write_text("\n".join(lines) + "\n")
    result = Evaluator(str(qrels), ["recip_rank"], convention="msmarco").evaluate(str(run))
    assert result.per_query["1"]["recip_rank~msmarco"] == 0.5
    assert result.per_query["2"]["recip_rank~msmarco"] == 0.0
    assert result.aggregate["recip_rank~msmarco"] == 0.5 / 3


def test_msmarco_has_mrr_only() -> None:
    with pytest.raises(TrecgainError, match="MRR@10 only"):
        Evaluator({"1": {"a": 1}}, ["ndcg_cut.10"], convention="msmarco")


# ------------------------------------------------------------------ options and marking


def test_unknown_tool() -> None:
    with pytest.raises(TrecgainError, match="must be one of"):
        Evaluator({"1": {"a": 1}}, ["map"], convention="nosuchtool")


def test_fixed_options_refused() -> None:
    """An option the convention sets, given too: an error, not a silent override."""
    with pytest.raises(TrecgainError, match="ties"):
        Evaluator({"1": {"a": 1}}, ["ndcg_cut.10"], convention="pytrec_eval", ties="average")
    with pytest.raises(TrecgainError, match="relevance level"):
        Evaluator({"1": {"a": 1}}, ["ndcg_cut.10"], convention="beir", relevance_level=2)


def test_trec_eval_conventions_are_unmarked() -> None:
    """--as trec_eval is the default; trec_eval9 is --compat 9: both keep trec_eval's names."""
    qrels, run = {"1": {"a": 1, "b": 2}}, {"1": {"a": 1.0000000001, "b": 1.0}}
    default = Evaluator(qrels, ["ndcg_cut.10"]).evaluate(run).aggregate
    assert Evaluator(qrels, ["ndcg_cut.10"], convention="trec_eval").evaluate(run).aggregate == default
    nine = Evaluator(qrels, ["ndcg_cut.10"], compat="9").evaluate(run).aggregate
    assert Evaluator(qrels, ["ndcg_cut.10"], convention="trec_eval9").evaluate(run).aggregate == nine
    assert nine != default  # float32 scores tie, and the docno decides


@pytest.mark.parametrize("tool", ["pytrec_eval", "beir", "mteb", "ir_measures", "ranx", "sklearn"])
def test_cli_marks_every_format(tool: str, tmp_path) -> None:
    """Every line printed under --as TOOL says so: NAME~TOOL in the trec text, and a convention
    field (and the marked names) in JSON."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n")
    command = [sys.executable, "-m", "trecgain", "--as", tool, "-m", "ndcg_cut.10", "-q", str(qrels), str(run)]
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    names = [line.split("\t")[0].rstrip() for line in text.splitlines()]
    assert names and all(name == f"ndcg_cut_10~{tool}" for name in names)
    import json

    document = json.loads(subprocess.run([*command, "--format", "json"], capture_output=True, text=True,
                                         check=True).stdout)
    assert document["convention"] == tool
    assert document["runs"][0]["convention"] == tool
    assert list(document["runs"][0]["aggregate"]) == [f"ndcg_cut_10~{tool}"]


@pytest.mark.parametrize("option, named", [
    (["--global-gains", "exp"], "gains=exp"), (["--discount", "log:e"], "discount=log:e"),
    (["--ties", "average"], "ties=average"), (["--ties", "rank"], "ties=rank"),
    (["--fractional-grades"], "fractional_grades"), (["--exact-ideal"], "exact_ideal")])
def test_options_that_change_trec_eval_names_say_so(option: list[str], named: str, tmp_path) -> None:
    """An option that changes what a trec_eval name means: a note naming the line on stderr (the
    trec text; not --ties rank, which changes the ranking read), and in JSON the run's
    convention field names the option."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 2\n1 0 b 1\n1 0 c 3\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 2 0.5 r\n1 Q0 b 1 0.5 r\n1 Q0 c 3 0.1 r\n")
    command = [sys.executable, "-m", "trecgain", *option, "-m", "ndcg_cut.10", str(qrels), str(run)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert ("ndcg_cut_10 is computed with " + option[0] in done.stderr) == (option != ["--ties", "rank"])
    import json

    document = json.loads(subprocess.run([*command, "--format", "json"], capture_output=True, text=True,
                                         check=True).stdout)
    assert document["runs"][0]["convention"] == f"trec_eval with {named}"
    plain = json.loads(subprocess.run([sys.executable, "-m", "trecgain", "-m", "ndcg_cut.10", "--format", "json",
                                       str(qrels), str(run)], capture_output=True, text=True, check=True).stdout)
    assert "convention" not in plain["runs"][0]


@pytest.mark.parametrize("option, named", [
    (["--as", "beir"], "beir"), (["--ties", "average"], "trec_eval with ties=average"),
    (["--discount", "log:e"], "trec_eval with discount=log:e"), (["--exact-ideal"], "trec_eval with exact_ideal"),
    (["--fractional-grades"], "trec_eval with fractional_grades"), (["--ties", "rank"], "trec_eval with ties=rank")])
def test_compare_tables_say_which_convention(option: list[str], named: str, tmp_path) -> None:
    """compare's text and JSON name the convention (--global-gains has its own `gains` field)."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 a 1\n")
    runs = []
    for name, lines in (("r1", "1 Q0 a 2 0.5 r1\n1 Q0 b 1 0.5 r1\n2 Q0 a 1 1 r1\n"),
                        ("r2", "1 Q0 b 1 0.9 r2\n1 Q0 a 2 0.1 r2\n2 Q0 b 1 1 r2\n")):
        (tmp_path / name).write_text(lines)
        runs.append(str(tmp_path / name))
    command = [sys.executable, "-m", "trecgain", "compare", *option, "-m", "ndcg_cut.10", "--permutations", "10",
               "--bootstrap", "10", str(qrels), *runs]
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    assert f"computed as {named}" in text.splitlines()[1]
    import json

    document = json.loads(subprocess.run([*command, "--format", "json"], capture_output=True, text=True,
                                         check=True).stdout)
    assert document["settings"]["convention"] == named
