"""The C/W/L measures of the main command (INST, INSQ, BPM@k, SDCG@k, NERR8@k, NERR9@k, NERR10,
NERR11 and RBP(rel=...), under ir_measures' names) against ir_measures' own cwl_eval provider, which runs
cwl_eval (PyPI cwl-eval) on the gains it makes from the qrels.  On 500 seeded random
collections (graded, binary and negative judgments, score ties, unjudged documents, rankings
longer than cwl_eval's depth of 1000, queries only in the qrels or only in the run), every
per-query value, through trecgain's ir_measures provider and through Evaluator, is the
provider's bit for bit (both compute in doubles in numpy's order), and the aggregates are
the provider's to 1e-12 (each side adds its queries in its own order).  Then the command
line on one collection: -q, -j 2, --format json, --fail-under, compare and -h -m INST (Dask:
tests/test_dask.py)."""

from __future__ import annotations

import json
import logging
import random

import pytest

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")

from conftest import run_process  # noqa: E402
from trecgain import Evaluator, TrecgainError  # noqa: E402
from trecgain.ir_measures import TrecgainProvider  # noqa: E402

logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)  # its notes on min_rel/max_rel

DOCS = [f"d{i}" for i in range(14)] + ["10", "9", "100"]


def collection(rng: random.Random, grades: tuple[int, ...]) -> tuple[dict, dict]:
    """Random qrels and run as ir_measures takes them (dicts of dicts: ties keep dict order)."""
    qrels, run = {}, {}
    for q in range(rng.randint(1, 6)):
        qid = str(q * 3)
        if rng.random() < 0.9:
            qrels[qid] = {d: rng.choice(grades) for d in rng.sample(DOCS, rng.randint(1, 10))}
        if rng.random() < 0.85:
            kind = rng.choice(["tied", "distinct", "equal"])
            docs = rng.sample(DOCS, rng.randint(1, len(DOCS)))
            run[qid] = {d: {"tied": float(rng.randint(0, 3)), "equal": 1.0, "distinct": rng.uniform(-5, 5)}[kind]
                        for d in docs}  # unjudged documents too
    qrels.setdefault("0", {"d0": 1})
    run.setdefault("0", {"d0": 1.0, "d5": 0.5})
    run["99"] = {"d1": 1.0}  # a query the qrels lack
    if rng.random() < 0.02:  # a ranking deeper than cwl_eval's 1000 ranks
        many = [f"x{i}" for i in range(1100)]
        qrels["0"] = {d: rng.choice(grades) for d in rng.sample(many, 300)}
        run["0"] = {d: rng.choice([1.0, 2.0, rng.random()]) for d in many}
    return qrels, run


def spec(rng: random.Random):
    """A C/W/L measure of ir_measures with random parameters, given in a random order (T as a
    float: ir_measures refuses T=3; built, not parsed: its parser refuses min_rel=-1)."""
    name = rng.choice(["INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "RBP"])
    if name == "RBP":  # the provider's RBP needs rel: binary gains
        params = [("rel", rng.choice([-1, 0, 1, 2, 3]))] + [("p", rng.choice([0.5, 0.8, 0.95, 0.99]))] * (rng.random() < 0.7)
        rng.shuffle(params)
        return ir_measures.RBP(**dict(params))
    params = [("max_rel", rng.choice([1, 2, 3, 4]))]
    if rng.random() < 0.4:
        high = params[0][1]
        params.append(("min_rel", rng.choice([-1, 0, high - 1]) if high > 1 else rng.choice([-1, 0])))
    if name in ("INST", "INSQ", "BPM", "NERR11") and rng.random() < 0.7:
        params.append(("T", rng.choice([0.5, 1.0, 2.0, 3.0, 10.0, 1000.0])))
    if name == "NERR10" and rng.random() < 0.7:
        params.append(("p", rng.choice([0.5, 0.8, 0.9, 0.99])))
    if name in ("BPM", "SDCG", "NERR8", "NERR9"):
        params.append(("cutoff", rng.choice([1, 2, 3, 5, 10, 20, 100, 1000, 1500])))
    rng.shuffle(params)
    return getattr(ir_measures, name)(**dict(params))


def by_query(metrics) -> dict:
    return {(m.query_id, str(m.measure)): m.value for m in metrics}


def test_cwl_measures_equal_the_cwl_eval_provider():
    provider = ir_measures.providers.registry["cwl_eval"]
    ours_provider = TrecgainProvider()
    rng = random.Random(20261202)
    compared = 0
    for case in range(500):
        qrels, run = collection(rng, rng.choice([(0, 1), (-1, 0, 1, 2, 3), (0, 1, 2), (1,), (-2, 0, 4), (0, 1, 2, 3, 4)]))
        measures = list({str(m): m for m in (spec(rng) for _ in range(4))}.values())
        names = [str(m) for m in measures]
        theirs = by_query(provider.iter_calc(measures, qrels, run))
        their_mean = provider.calc_aggregate(measures, qrels, run)
        ours = by_query(ours_provider.iter_calc(measures, qrels, run))
        our_mean = ours_provider.calc_aggregate(measures, qrels, run)
        result = Evaluator(qrels, names).evaluate(run)
        for name, measure in zip(names, measures):
            queries = {q for q, m in theirs if m == name}
            assert queries == {q for q, m in ours if m == name} == set(qrels), (case, name)
            assert {q for q in queries if q in run} == {q for q in result.per_query if name in result.per_query[q]}
            for q in queries:
                assert ours[q, name] == theirs[q, name], (case, name, q)
                assert q not in run or result.per_query[q][name] == theirs[q, name], (case, name, q)
                compared += 1
            assert our_mean[measure] == pytest.approx(their_mean[measure], rel=1e-12, abs=1e-12), (case, name)
    assert compared > 5000


def test_other_tie_rules_and_max_docs_leave_the_run_order(tmp_path):
    """--ties (docno or rank; average is refused for them), --compat 9 (f32 ties) do not change these measures' ranking, and -M
    keeps the first M documents of it: the provider's value on each query's first M documents
    in its own order (score descending, ties in the run's order)."""
    provider = ir_measures.providers.registry["cwl_eval"]
    rng = random.Random(99)
    for case in range(60):
        qrels, run = collection(rng, (-1, 0, 1, 2, 3))
        measures = [spec(rng) for _ in range(2)]
        names = list(dict.fromkeys(str(m) for m in measures))
        m = rng.choice([None, 1, 3, 8])
        kept = {q: dict(sorted(docs.items(), key=lambda item: -item[1])[:m]) for q, docs in run.items()}
        theirs = by_query(provider.iter_calc(measures, qrels, kept))
        run_path = tmp_path / "run"  # in dict order, with ranks for --ties rank (shuffled: not the score's)
        run_path.write_text("".join(f"{q} Q0 {d} {rng.randint(1, 9)} {s!r} r\n" for q, docs in run.items()
                                    for d, s in docs.items()))
        for ties in ("docno", "rank"):
            for compat in ("10", "9"):
                result = Evaluator(qrels, names, max_docs=m, ties=ties, compat=compat).evaluate(str(run_path))
                for q, values in result.per_query.items():
                    for name in names:
                        assert values[name] == theirs[q, name], (case, ties, compat, m, name, q)


def test_the_ranking_keeps_the_runs_order_for_ties():
    """Scores 2, 2, 1: the provider's stable sort keeps a before c as the run gives them (trec_eval
    would put c first); P-like SDCG@1 sees only the first document."""
    qrels = {"1": {"a": 1, "c": 0}}
    for order, expected in ((["a", "c", "b"], 1.0), (["c", "a", "b"], 0.0)):
        run = {"1": {d: {"a": 2.0, "c": 2.0, "b": 1.0}[d] for d in order}}
        assert Evaluator(qrels, ["SDCG(max_rel=1)@1"]).evaluate(run).per_query["1"]["SDCG(max_rel=1)@1"] == expected


def test_gains_by_hand():
    """NERR8@1: C(i) = 1 - g(i) only for i < k - 1 = 0, so C = 0 everywhere, W(1) = 1 and EU is the
    first document's gain: grade 2 of max_rel 4 is 2 / 4; with min_rel -1, (2 + 1) / (4 + 1)."""
    qrels = {"1": {"a": 2, "b": -3}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    result = Evaluator(qrels, ["NERR8(max_rel=4)@1", "NERR8(min_rel=-1,max_rel=4)@1"]).evaluate(run)
    assert result.per_query["1"]["NERR8(max_rel=4)@1"] == 0.5
    assert result.per_query["1"]["NERR8(min_rel=-1,max_rel=4)@1"] == 3 / 5


@pytest.mark.parametrize("name, message", [
    ("INST", "needs max_rel, as ir_measures requires it"),
    ("INST(T=3.0)", "needs max_rel"),
    ("BPM(max_rel=1)", "needs a cutoff"),
    ("INST(max_rel=1)@10", "takes no cutoff"),
    ("NERR10(p=1.5,max_rel=1)", "p must be a number from 0 to 1"),
    ("INSQ(max_rel=1.5)", "max_rel must be a whole number"),
    ("INST(rel=1,max_rel=1)", "unknown parameter 'rel'"),
    ("RBP(p=0.8,rel=1.5)", "rel must be a whole number"),
    ("SDCG(max_rel=1,min_rel=1)@5", "min_rel .* must be less than max_rel"),
])
def test_bad_names(name, message):
    with pytest.raises(TrecgainError, match=message):
        Evaluator({"1": {"a": 1}}, [name]).evaluate({"1": {"a": 1.0}})


def test_command_line(tmp_path):
    """-q prints each query and the mean, -j 2 the same bytes, --format json the same values,
    --fail-under exits 3, compare's means are the 'all' lines', -h -m INST lists the
    parameters; the values are the provider's."""
    rng = random.Random(7)
    qrels, run = collection(rng, (-1, 0, 1, 2, 3))
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, docs in run.items() for d, s in docs.items()))
    names = ["INST(T=3.0,max_rel=3)", "BPM(T=2.0,max_rel=3)@20", "NERR8(max_rel=3)@10", "SDCG(max_rel=3)@10"]
    args = [a for n in names for a in ("-m", n)] + [str(qrels_path), str(run_path)]
    plain = run_process(["-q", *args])
    assert plain.rc == 0, plain.stderr
    parallel = run_process(["-j", "2", "-q", *args, str(run_path)])
    assert parallel.rc == 0 and parallel.stdout == plain.stdout * 2
    theirs = by_query(ir_measures.providers.registry["cwl_eval"].iter_calc(
        [ir_measures.parse_measure(n) for n in names], list(ir_measures.read_trec_qrels(str(qrels_path))),
        list(ir_measures.read_trec_run(str(run_path)))))
    lines = [line.split("\t") for line in plain.stdout.decode().splitlines()]
    for name, qid, value in lines:
        if qid != "all":
            assert value == f"{theirs[qid, name.strip()]:.4f}", (name, qid)
    as_json = run_process(["--format", "json", "-q", *args])
    assert as_json.rc == 0, as_json.stderr
    found = json.loads(as_json.stdout)["runs"][0]
    assert found["per_query"] == {q: {n: theirs[q, n] for n in names} for q in qrels if q in run}
    for name in names:
        values = [theirs[q, name] for q in qrels if q in run]
        assert found["aggregate"][name] == pytest.approx(sum(values) / len(values), rel=1e-12, abs=1e-12)
    missed = run_process(["--fail-under", f"{names[0]}=1.1", *args])
    assert missed.rc == 3 and f"{names[0]} = " in missed.stderr and "below --fail-under 1.1" in missed.stderr
    compared = run_process(["compare", "--format", "json", *args, str(run_path)])
    assert compared.rc == 0, compared.stderr
    for measure in json.loads(compared.stdout)["measures"]:  # the same run twice: each mean is the 'all' line's
        assert measure["means"] == {"a": found["aggregate"][measure["line"]], "b": found["aggregate"][measure["line"]]}
    helped = run_process(["-h", "-m", "INST"])
    assert helped.rc == 0 and b"max_rel" in helped.stdout and b"required" in helped.stdout
