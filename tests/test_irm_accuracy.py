"""ir_measures' Accuracy against ir_measures' own `accuracy` provider (pure Python, part of
ir_measures), on 500 seeded random collections: graded, binary and negative judgments, score
ties (which the provider leaves in the run's own order), documents the qrels lack, queries
only in the qrels or only in the run, every parameter ir_measures documents (rel, cutoff).
Every per-query value is the provider's bit for bit and the queries that have one are the
provider's, through trecgain's ir_measures provider (rows and dicts, compat 9 and 10) and
through Evaluator (from the TREC files); the means to 1e-12.  Where the provider fails
(ZeroDivisionError: relevant documents but no nonrelevant one in the cut ranking) trecgain's
documented value is 1: each query is also given to the provider alone, to tell which."""

from __future__ import annotations

import math
import random

import pytest

ir_measures = pytest.importorskip("ir_measures")

from trecgain import Evaluator, TrecgainError  # noqa: E402
from trecgain.ir_measures import TrecgainProvider  # noqa: E402

#: Every parameter ir_measures documents for Accuracy: rel (default 1) and the cutoff.
NAMES = ["Accuracy", "Accuracy(rel=2)", "Accuracy(rel=0)", "Accuracy(rel=3)", "Accuracy@1", "Accuracy@3",
         "Accuracy@5", "Accuracy(rel=2)@4", "Accuracy(rel=0)@2", "Accuracy(cutoff=6)", "Accuracy(rel=1)@10"]
FAILS = "ZeroDivisionError"


def collection(rng: random.Random, grades: tuple[int, ...]) -> tuple[dict, list]:
    """Random qrels ({qid: {docno: grade}}) and run lines ([(qid, docno, score)], shuffled)."""
    docs = [f"d{i}" for i in range(12)]
    qrels, lines = {}, []
    for q in range(rng.randint(1, 6)):
        qid = f"q{q}"
        if rng.random() < 0.85:
            qrels[qid] = {d: rng.choice(grades) for d in rng.sample(docs, rng.randint(1, 9))}
        if rng.random() < 0.85:  # unjudged documents too
            tied = rng.random() < 0.5
            for d in rng.sample(docs, rng.randint(1, 11)):
                lines.append((qid, d, float(rng.randint(0, 3)) if tied else rng.uniform(-5, 5)))
    if not qrels.keys() & {q for q, _, _ in lines}:  # a query of both (else trecgain refuses the run)
        qrels.setdefault("q_both", {"d0": 1})
        lines.append(("q_both", "d0", 0.5))
    lines.append(("only_in_run", "d1", 1.0))
    rng.shuffle(lines)
    return qrels, lines


def provider_values(measure, qrels: dict, rows: list) -> dict[str, float | str]:
    """Per query of the run, the accuracy provider's value, FAILS where it divides by zero
    (each query given to it alone); a query it gives no value is absent."""
    provider = ir_measures.accuracy
    out: dict[str, float | str] = {}
    for qid in dict.fromkeys(r.query_id for r in rows):
        try:
            for metric in provider.iter_calc([measure], qrels, [r for r in rows if r.query_id == qid]):
                out[metric.query_id] = metric.value
        except ZeroDivisionError:
            out[qid] = FAILS
    return out


def expected(theirs: dict[str, float | str]) -> dict[str, float]:
    """The provider's values, with trecgain's documented 1 where the provider fails."""
    return {q: 1.0 if v == FAILS else v for q, v in theirs.items()}


def write(folder, qrels: dict, lines: list) -> tuple[str, str]:
    qrels_path, run_path = folder / "qrels", folder / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, d, s in lines))
    return str(qrels_path), str(run_path)


def distinct(names: list[str]) -> list:
    """The measures the names parse to, each once (Accuracy(rel=1)@10 prints as Accuracy@10)."""
    return list({str(m): m for m in map(ir_measures.parse_measure, names)}.values())


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-12)


def test_accuracy_equals_the_accuracy_provider(tmp_path):
    rng = random.Random(2024)
    compared = failing = 0
    for case in range(500):
        qrels, lines = collection(rng, rng.choice([(0, 1), (-1, 0, 1, 2, 3), (0, 1, 2), (1,), (-2, 0, 4), (1, 2)]))
        qrels_path, run_path = write(tmp_path, qrels, lines)
        measures = distinct(rng.sample(NAMES, 3))
        names = [str(m) for m in measures]
        their_qrels = list(ir_measures.read_trec_qrels(qrels_path))
        rows = list(ir_measures.read_trec_run(run_path))
        as_dict: dict = {}
        for r in rows:
            as_dict.setdefault(r.query_id, {})[r.doc_id] = r.score
        ours_rows = TrecgainProvider(rng.choice(["9", "10"]))
        ours_dict = TrecgainProvider("10")
        by_rows = by_query(ours_rows.iter_calc(measures, their_qrels, rows))
        by_dict = by_query(ours_dict.iter_calc(measures, qrels, as_dict))
        rows_mean = ours_rows.calc_aggregate(measures, their_qrels, rows)
        result = Evaluator(qrels_path, names).evaluate(run_path)
        for measure in measures:
            line = str(measure)
            theirs = provider_values(measure, qrels, rows)
            want = expected(theirs)
            failing += list(theirs.values()).count(FAILS)
            for got in (by_rows, by_dict):
                assert {q: v for (q, m), v in got.items() if m == line} == want, (case, line)
            assert {q: v[line] for q, v in result.per_query.items() if line in v} == want, (case, line)
            assert close(rows_mean[measure], mean(want.values())), (case, line)
            assert close(result.aggregate[line], mean(want.values())), (case, line)
            if FAILS not in theirs.values():  # the provider's own mean, over the whole collection
                their_mean = ir_measures.accuracy.calc_aggregate([measure], their_qrels, rows)[measure]
                assert close(rows_mean[measure], their_mean), (case, line)
            compared += len(want)
    assert compared > 2000 and failing > 500


def by_query(metrics) -> dict:
    return {(m.query_id, str(m.measure)): m.value for m in metrics}


QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d 3\n2 0 x 1\n3 0 y 1\n"
RUN = ("1 Q0 e 1 0.9 r\n1 Q0 b 2 0.8 r\n1 Q0 c 3 0.8 r\n1 Q0 a 4 0.5 r\n1 Q0 f 5 0.4 r\n1 Q0 d 6 0.1 r\n"
       "2 Q0 x 1 0.7 r\n2 Q0 z 2 0.5 r\n")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def test_accuracy_by_hand(files):
    """Query 1 ranks e (unjudged), then b (0) and c (1) tied in the run's order, a (2), f
    (unjudged), d (3).  At rel 1 the relevant c, a, d have 2, 2 and 3 nonrelevant documents
    above them, 3 nonrelevant in all: 1 - 7 / (3 * 3) (trec_eval's docno order would put c
    before b: 1 - 6/9).  At rel 2, a and d have 3 and 4 above, 4 in all: 1 - 7 / (4 * 2).
    Cut at 3 (e, b, c): 1 - 2 / (2 * 1); at 2, no relevant document: no value.  Query 2: x (1)
    above z: 1 - 0; at rel 2 no value.  Query 3 is not in the run: no value, no line, not in
    the mean; -c changes none of it."""
    names = ["Accuracy", "Accuracy(rel=2)", "Accuracy@3", "Accuracy@2"]
    result = Evaluator(files[0], names).evaluate(files[1])
    assert result.per_query == {"1": {"Accuracy": 1 - 7 / 9, "Accuracy(rel=2)": 1 - 7 / 8, "Accuracy@3": 0.0},
                                "2": {"Accuracy": 1.0, "Accuracy@3": 1.0, "Accuracy@2": 1.0}}
    assert result.aggregate == {"Accuracy": (1 - 7 / 9 + 1.0) / 2, "Accuracy(rel=2)": 1 - 7 / 8,
                                "Accuracy@3": 0.5, "Accuracy@2": 1.0}
    text = result.to_trec(per_query=True)
    assert [line.split("\t")[:2] for line in text.splitlines()] == [
        ["Accuracy              ", "1"], ["Accuracy(rel=2)       ", "1"], ["Accuracy@3            ", "1"],
        ["Accuracy              ", "2"], ["Accuracy@3            ", "2"], ["Accuracy@2            ", "2"],
        ["Accuracy              ", "all"], ["Accuracy(rel=2)       ", "all"], ["Accuracy@3            ", "all"],
        ["Accuracy@2            ", "all"]]
    complete = Evaluator(files[0], names, complete=True).evaluate(files[1])
    assert complete.per_query == {**result.per_query, "3": {}} and complete.aggregate == result.aggregate
    assert complete.to_trec(per_query=True) == text


def test_accuracy_ties_keep_the_run_order(tmp_path):
    """a (nonrelevant) and b (relevant) tie: the run's order decides, whatever --ties says
    (trec_eval's docno descending would put b first; the rank column, b first in both files)."""
    qrels = {"1": {"a": 0, "b": 1}}
    first, second = {"1": {"a": 1.0, "b": 1.0}}, {"1": {"b": 1.0, "a": 1.0}}
    assert Evaluator(qrels, ["Accuracy"]).evaluate(first).per_query["1"]["Accuracy"] == 0.0
    assert Evaluator(qrels, ["Accuracy"]).evaluate(second).per_query["1"]["Accuracy"] == 1.0
    (tmp_path / "a_first").write_text("1 Q0 a 2 1.0 r\n1 Q0 b 1 1.0 r\n")
    (tmp_path / "b_first").write_text("1 Q0 b 1 1.0 r\n1 Q0 a 2 1.0 r\n")
    for ties in ("docno", "rank"):
        evaluator = Evaluator(qrels, ["Accuracy"], ties=ties)
        assert evaluator.evaluate(str(tmp_path / "a_first")).per_query["1"]["Accuracy"] == 0.0
        assert evaluator.evaluate(str(tmp_path / "b_first")).per_query["1"]["Accuracy"] == 1.0


def test_accuracy_without_any_value(files):
    """No query with a relevant document: no per-query value, the mean NaN (ir_measures'
    mean of nothing), printed as C prints it; JSON null."""
    result = Evaluator(files[0], ["Accuracy(rel=5)"]).evaluate(files[1])
    assert result.per_query == {"1": {}, "2": {}}
    assert math.isnan(result.aggregate["Accuracy(rel=5)"])
    assert result.to_trec(per_query=True) == "Accuracy(rel=5)       \tall\t   nan\n"
    assert '"Accuracy(rel=5)": null' in result.to_json()


def test_accuracy_refuses_a_level_below_zero(files):
    with pytest.raises(TrecgainError, match="Accuracy: the relevance level must be 0 or more"):
        Evaluator(files[0], ["Accuracy"], relevance_level=-1).evaluate(files[1])


def test_accuracy_refuses_rel_below_zero_when_named(files):
    """`Accuracy(rel=-1)` is refused as the name is read, so ir_measures' provider chain skips
    trecgain for it (supports() is False) instead of trecgain failing at evaluation."""
    with pytest.raises(TrecgainError, match=r"'Accuracy\(rel=-1\)': rel must be 0 or more"):
        Evaluator(files[0], ["Accuracy(rel=-1)"])
    from ir_measures import Accuracy

    from trecgain.ir_measures import TrecgainProvider

    provider = TrecgainProvider()
    assert not provider.supports(Accuracy(rel=-1))
    assert provider.supports(Accuracy(rel=0)) and provider.supports(Accuracy(rel=2) @ 5)
