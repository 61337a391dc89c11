"""ir_measures' Compat, SetAP, SetRelP and ERR against ir_measures itself, through the
providers it computes them with: Compat by its own `compat` provider (pure Python), SetAP (`set_map`) and SetRelP (`set_relative_P`) by its pytrec_eval
provider, ERR@k by its gdeval provider (gdeval.pl, run with perl; the only provider that has
ERR).  On 500 seeded random collections (graded, binary and negative judgments, score ties,
unjudged documents, queries only in the qrels or only in the run) every per-query value is
the provider's (through trecgain's own ir_measures provider, which gives the queries the run
lacks ir_measures' DEFAULT as ir_measures does, and through Evaluator): bit for bit for the compat and pytrec_eval providers (they return doubles), and for ERR
to the five decimals gdeval.pl prints (ours printed with `%.5f` and read back is the
provider's value exactly).  Compat's collections are read by both sides from the same files,
so that ties in the ideal ranking fall to qrels file order on both.  The aggregates: the
compat and pytrec_eval providers' to 1e-12 (each side
sums its queries in its own order), ERR's the mean of the per-query values as gdeval.pl
prints them (ir_measures averages the printed values), to 1e-12."""

from __future__ import annotations

import random
import shutil

import pytest

ir_measures = pytest.importorskip("ir_measures")

from trecgain import Evaluator, TrecgainError  # noqa: E402
from trecgain.ir_measures import TrecgainProvider  # noqa: E402

#: Every parameter ir_measures documents for SetAP (rel, judged_only) and SetRelP (rel,
#: judged_only, relative).
SET_MEASURES = ["SetAP", "SetAP(rel=2)", "SetAP(judged_only=True)", "SetAP(rel=2,judged_only=True)",
                "SetRelP", "SetRelP(rel=2)", "SetRelP(judged_only=True)", "SetRelP(rel=3,judged_only=True)",
                "SetP(relative=True)", "SetRelP(relative=False)"]


def collection(rng: random.Random, grades: tuple[int, ...], all_negative: bool = True) -> tuple[dict, dict]:
    """Random qrels and run as ir_measures takes them (dicts of dicts); `all_negative`: a
    query's judgments may all be negative (pytrec_eval crashes on such a query)."""
    docs = [f"d{i}" for i in range(14)] + ["10", "9", "100"]
    qrels, run = {}, {}
    for q in range(rng.randint(1, 6)):
        qid = str(q * 3)
        if rng.random() < 0.9:
            qrels[qid] = {d: rng.choice(grades) for d in rng.sample(docs, rng.randint(1, 10))}
            if not all_negative and max(qrels[qid].values()) < 0:
                qrels[qid][next(iter(qrels[qid]))] = 0
        if rng.random() < 0.85:
            kind = rng.choice(["tied", "distinct"])
            run[qid] = {d: float(rng.randint(0, 3)) if kind == "tied" else rng.uniform(-5, 5)
                        for d in rng.sample(docs, rng.randint(1, 12))}  # unjudged documents too
    qrels.setdefault("0", {"d0": 1})
    run.setdefault("0", {"d0": 1.0, "d5": 0.5})
    run["99"] = {"d1": 1.0}  # a query the qrels lack (gdeval.pl reads numeric ones only)
    return qrels, run


#: Every parameter ir_measures documents for Compat (p, normalize).
COMPAT = ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)", "Compat(p=1.0)",
          "Compat(p=0.0)", "Compat(normalize=True,p=0.99)", "Compat(p=0.95)"]


def write(folder, qrels: dict, run: dict) -> tuple[str, str]:
    """The collection as TREC files, judgments and run lines shuffled within the file."""
    qrels_path, run_path = folder / "qrels", folder / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, docs in run.items() for d, s in docs.items()))
    return str(qrels_path), str(run_path)


def test_compat_equals_the_compat_provider(tmp_path):
    provider = ir_measures.providers.registry["compat"]
    trecgain_provider = TrecgainProvider()
    rng = random.Random(31337)
    compared = 0
    for case in range(500):
        qrels, run = collection(rng, rng.choice([(0, 1), (-1, 0, 1, 2, 3), (0, 1, 2), (1,), (-2, 0, 4), (1, 2)]))
        qrels_path, run_path = write(tmp_path, qrels, run)
        names = rng.sample(COMPAT, 3)
        if "Compat" in names and "Compat(p=0.95)" in names:  # the same measure, printed alike
            names.remove("Compat")
        measures = [ir_measures.parse_measure(n) for n in names]
        their_qrels = list(ir_measures.read_trec_qrels(qrels_path))
        their_run = list(ir_measures.read_trec_run(run_path))
        theirs = by_query(provider.iter_calc(measures, their_qrels, their_run))
        their_mean = provider.calc_aggregate(measures, their_qrels, their_run)
        ours = by_query(trecgain_provider.iter_calc(measures, their_qrels, their_run))
        our_mean = trecgain_provider.calc_aggregate(measures, their_qrels, their_run)
        result = Evaluator(qrels_path, names).evaluate(run_path)  # from the files: the queries of both
        for name, measure in zip(names, measures):
            line = str(measure)  # the line is named as ir_measures prints the measure
            queries = {q for q, m in theirs if m == line}
            assert queries == {q for q, m in ours if m == line}, (case, name)
            assert {q for q in queries if q in run} == {q for q in result.per_query if line in result.per_query[q]}
            for q in queries:
                assert ours[q, line] == theirs[q, line], (case, name, q)
                assert q not in run or result.per_query[q][line] == theirs[q, line], (case, name, q)
                compared += 1
            assert our_mean[measure] == pytest.approx(their_mean[measure], rel=1e-12, abs=1e-12), (case, name)
    assert compared > 2500


def test_compat_by_hand():
    """Ranking a c d (c judged 0), ideal b a (b grade 2): at depth 1 nothing shared, at depth
    2 a, at depth 3 a; RBO = (0 + p/2 + p^2/3) / (1 + p + p^2); the ideal's own RBO is 1."""
    qrels = {"1": {"a": 1, "b": 2, "c": 0}}
    run = {"1": {"a": 2.0, "c": 2.0, "d": 0.5}}  # a and c tie: docno ascending puts a first
    result = Evaluator(qrels, ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"]).evaluate(run)
    p = 0.5
    assert result.per_query["1"]["Compat(p=0.5,normalize=False)"] == (0 + p * 1 / 2 + p * p * 1 / 3) / (1 + p + p * p)
    ideal = (1 + p * 2 / 2 + p * p * 2 / 3) / (1 + p + p * p)
    assert result.per_query["1"]["Compat(p=0.5)"] == result.per_query["1"]["Compat(p=0.5,normalize=False)"] / ideal


def by_query(metrics) -> dict:
    return {(m.query_id, str(m.measure)): m.value for m in metrics}


def distinct(names: list[str]) -> tuple[list[str], list]:
    """The names of distinct measures (SetRelP and SetP(relative=True) are one), parsed."""
    kept: dict[str, tuple[str, object]] = {}
    for name in names:
        measure = ir_measures.parse_measure(name)
        kept.setdefault(str(measure), (name, measure))
    return [n for n, _ in kept.values()], [m for _, m in kept.values()]


def compare(provider, names: list[str], qrels, run, evaluator_input=None, printed=None) -> int:
    """Per query and aggregate, the provider's values against trecgain's provider's (every
    query of the qrels, the DEFAULT where the run lacks one) and Evaluator's (the queries of
    both); `printed`: our values as the provider prints them."""
    names, measures = distinct(names)
    theirs = by_query(provider.iter_calc(measures, qrels, run))
    their_mean = provider.calc_aggregate(measures, qrels, run)
    ours_provider = TrecgainProvider()
    ours = by_query(ours_provider.iter_calc(measures, qrels, run))
    our_mean = ours_provider.calc_aggregate(measures, qrels, run)
    result = Evaluator(*(evaluator_input or (qrels,)), names).evaluate((evaluator_input or (None, run))[1])
    shown = printed or (lambda v: v)
    compared = 0
    in_run = {q for q, _, _ in ir_measures.util.RunConverter(run).as_namedtuple_iter()} if not isinstance(run, dict) \
        else set(run)
    for name, measure in zip(names, measures):
        line = str(measure)
        queries = {q for q, m in theirs if m == line}
        assert queries == {q for q, m in ours if m == line}, name
        assert {q for q in queries if q in in_run} == {q for q in result.per_query if name in result.per_query[q]}, name
        for q in queries:
            assert shown(ours[q, line]) == theirs[q, line], (name, q)
            assert q not in in_run or shown(result.per_query[q][name]) == theirs[q, line], (name, q)
            compared += 1
        mean = sum(shown(ours[q, line]) for q in queries) / len(queries)
        assert their_mean[measure] == pytest.approx(mean, rel=1e-12, abs=1e-12), name
        if printed is None:
            assert our_mean[measure] == pytest.approx(their_mean[measure], rel=1e-12, abs=1e-12), name
    return compared


def test_set_measures_equal_the_pytrec_eval_provider():
    provider = ir_measures.providers.registry["pytrec_eval"]
    rng = random.Random(20261202)
    compared = 0
    for case in range(500):
        qrels, run = collection(rng, rng.choice([(0, 1), (-1, 0, 1, 2, 3), (0, 1, 2), (1,), (-2, 0, 4)]), False)
        try:
            compared += compare(provider, rng.sample(SET_MEASURES, 4), qrels, run)
        except AssertionError as error:
            raise AssertionError(f"collection {case}: {error}") from error
    assert compared > 3000


def test_setrelp_is_set_relative_p():
    """SetRelP is trec_eval's set_relative_P: relevant retrieved over min(retrieved, R)."""
    qrels = {"1": {"a": 1, "b": 2, "c": 0, "d": 1}, "2": {"a": 1}}
    run = {"1": {"a": 3.0, "c": 2.0}, "2": {"b": 1.0, "c": 0.5, "a": 0.1}}
    result = Evaluator(qrels, ["SetRelP", "SetRelP(rel=2)", "set_relative_P"]).evaluate(run)
    assert result.per_query["1"]["SetRelP"] == 1 / 2  # 1 relevant of 2 retrieved, R = 3
    assert result.per_query["1"]["SetRelP(rel=2)"] == 0.0  # b (grade 2) not retrieved
    assert result.per_query["2"]["SetRelP"] == 1.0  # 1 relevant retrieved, R = 1
    assert result.aggregate["SetRelP"] == result.aggregate["set_relative_P"] == 0.75


@pytest.mark.parametrize("spec, message", [
    ("SetRelP@5", "takes no cutoff"),
    ("SetRelP(beta=2)", "unknown parameter 'beta'"),
    ("SetRelP(relative=1)", "relative must be True or False"),
    ("ERR", "needs a cutoff"),
    ("Compat(p=1.5)", "p must be a number from 0 to 1"),
    ("Compat(normalize=1)", "normalize must be True or False"),
    ("Compat@10", "takes no cutoff"),
    ("Compat(rel=2)", "unknown parameter 'rel'"),
])
def test_bad_names(spec, message):
    with pytest.raises(TrecgainError, match=message):
        Evaluator({"1": {"a": 1}}, [spec])


@pytest.mark.skipif(shutil.which("perl") is None, reason="the gdeval provider runs gdeval.pl with perl")
def test_err_equals_the_gdeval_provider():
    """ir_measures' ERR@k is gdeval.pl's (max grade 4; gdeval.pl refuses grades above it)."""
    provider = ir_measures.providers.registry["gdeval"]
    rng = random.Random(4242)
    compared = 0
    for case in range(500):
        qrels, run = collection(rng, rng.choice([(0, 1), (-1, 0, 1, 2, 3, 4), (0, 1, 2), (1,), (-2, 0, 4)]))
        names = [f"ERR@{rng.choice([1, 2, 3, 5, 10, 20])}"]  # one gdeval.pl run per cutoff: keep it to one
        try:
            compared += compare(provider, names, qrels, run, printed=lambda v: float(f"{v:.5f}"))
        except AssertionError as error:
            raise AssertionError(f"collection {case}: {error}") from error
    assert compared > 1000
