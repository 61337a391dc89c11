"""--ties: trec_eval's rule (docno), the rank column (rank), and expected values over every
ordering of a tie (average), checked against scikit-learn's tie-aware ndcg_score / dcg_score
and against brute force over the orderings; and the notes the command prints on stderr."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import dcg_score, ndcg_score

from conftest import ROOT, run_cli
from trecgain import Evaluator, TrecgainError

EXAMPLE = ROOT / "testdata" / "example"


def _files(tmp_path, queries: dict[str, list[tuple[str, int, float]]], ranks: dict | None = None):
    """qrels and run files for {qid: [(docno, grade, score), ...]} (every document judged)."""
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in queries.items() for d, g, _ in docs))
    lines = []
    for q, docs in queries.items():
        for i, (d, _, s) in enumerate(docs):
            rank = ranks[q][i] if ranks else i + 1
            lines.append(f"{q} Q0 {d} {rank} {s!r} r\n")
    run.write_text("".join(lines))
    return str(qrels), str(run)


def _tied_queries(seed: int, count: int = 20) -> dict[str, list[tuple[str, int, float]]]:
    rng = random.Random(seed)
    queries = {}
    for q in range(count):
        n = rng.randint(2, 30)
        scores = [rng.choice([0.5, 1.0, 1.5, 2.0, 3.0]) for _ in range(n)]  # few values: many ties
        grades = [rng.choice([0, 0, 1, 2, 3]) for _ in range(n)]
        if not any(grades):
            grades[0] = 1
        queries[f"q{q}"] = [(f"d{q}_{i}", g, s) for i, (g, s) in enumerate(zip(grades, scores))]
    return queries


def _sklearn(queries, measure, k, gain=lambda g: g):
    out = {}
    for q, docs in queries.items():
        y_true = np.asarray([[gain(g) for _, g, _ in docs]], dtype=float)
        y_score = np.asarray([[s for _, _, s in docs]])
        out[q] = float(measure(y_true, y_score, k=k, ignore_ties=False))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("k", [None, 1, 3, 5, 10, 100])
def test_average_ties_match_scikit_learn(tmp_path, seed, k):
    queries = _tied_queries(seed)
    qrels, run = _files(tmp_path, queries)
    cut = f".{k}" if k else ""
    measures = [f"ndcg_cut{cut}" if k else "ndcg", f"dcg_cut{cut}" if k else "dcg"]
    result = Evaluator(qrels, measures=measures, ties="average").evaluate(run)
    ndcg_name, dcg_name = (f"ndcg_cut_{k}", f"dcg_cut_{k}") if k else ("ndcg", "dcg")
    want_ndcg, want_dcg = _sklearn(queries, ndcg_score, k), _sklearn(queries, dcg_score, k)
    for q in queries:
        assert result.per_query[q][ndcg_name] == pytest.approx(want_ndcg[q], rel=1e-12, abs=1e-15), q
        assert result.per_query[q][dcg_name] == pytest.approx(want_dcg[q], rel=1e-12, abs=1e-15), q
    # and the tie rule matters on this data: trec_eval's own order gives other numbers
    plain = Evaluator(qrels, measures=measures).evaluate(run)
    assert any(abs(plain.per_query[q][ndcg_name] - want_ndcg[q]) > 1e-9 for q in queries)


def test_average_ties_exponential_gains_match_scikit_learn(tmp_path):
    queries = _tied_queries(7)
    qrels, run = _files(tmp_path, queries)
    result = Evaluator(qrels, measures=["ndcg_p", "ndcg_cut.5"], ties="average", global_gains="exp").evaluate(run)
    want = _sklearn(queries, ndcg_score, None, lambda g: 2**g - 1)
    want5 = _sklearn(queries, ndcg_score, 5, lambda g: 2**g - 1)
    for q in queries:
        assert result.per_query[q]["ndcg_p"] == pytest.approx(want[q], rel=1e-12, abs=1e-15)
        assert result.per_query[q]["ndcg_cut_5"] == pytest.approx(want5[q], rel=1e-12, abs=1e-15)


def _brute_force(docs, k, discounted=True):
    """Mean over every ordering of each tie group of the (D)CG of the first k documents."""
    by_score: dict[float, list[int]] = {}
    for _, g, s in docs:
        by_score.setdefault(s, []).append(g)
    groups = [by_score[s] for s in sorted(by_score, reverse=True)]
    total, count = 0.0, 0
    for orders in itertools.product(*(list(itertools.permutations(g)) for g in groups)):
        ranking = [g for order in orders for g in order][:k]
        total += sum(g / (math.log2(i + 2) if discounted else 1) for i, g in enumerate(ranking))
        count += 1
    return total / count


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1.0, 2.0, 3.0])), min_size=1, max_size=7),
       st.integers(1, 8))
@settings(max_examples=60, deadline=None)
def test_average_ties_are_the_expected_value_over_orderings(tmp_path_factory, rows, k):
    docs = [(f"d{i}", g, s) for i, (g, s) in enumerate(rows)]
    qrels, run = _files(tmp_path_factory.mktemp("ties"), {"q": docs})
    got = Evaluator(qrels, measures=[f"dcg_cut.{k}", f"cg_cut.{k}"], ties="average").evaluate(run).per_query["q"]
    assert got[f"dcg_cut_{k}"] == pytest.approx(_brute_force(docs, k), rel=1e-12, abs=1e-15)
    assert got[f"cg_cut_{k}"] == pytest.approx(_brute_force(docs, k, discounted=False), rel=1e-12, abs=1e-15)


def test_average_ties_without_ties_are_trec_evals_numbers(tmp_path):
    rng = random.Random(5)
    queries = {f"q{q}": [(f"d{i}", rng.randint(0, 3), rng.random()) for i in range(20)] for q in range(10)}
    qrels, run = _files(tmp_path, queries)
    measures = ["ndcg", "ndcg_cut.5,10", "dcg", "ndcg_p", "cg_cut.5"]
    assert (Evaluator(qrels, measures=measures, ties="average").evaluate(run).to_trec(True)
            == Evaluator(qrels, measures=measures).evaluate(run).to_trec(True))


def test_average_ties_in_compat_9_tie_what_float32_ties(tmp_path):
    # 1.0 and 1.00000001 are one float32: tied in compat 9, not in compat 10
    docs = [("a", 0, 1.0), ("b", 3, 1.00000001), ("c", 1, 0.5)]
    qrels, run = _files(tmp_path, {"q": docs})
    nine = Evaluator(qrels, measures=["dcg"], ties="average", compat="9").evaluate(run).per_query["q"]["dcg"]
    ten = Evaluator(qrels, measures=["dcg"], ties="average").evaluate(run).per_query["q"]["dcg"]
    assert ten == pytest.approx(3 + 0 / math.log2(3) + 1 / 2)
    assert nine == pytest.approx(1.5 + 1.5 / math.log2(3) + 1 / 2)


def test_average_ties_with_judged_only_average_over_judged_documents(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q 0 a 3\nq 0 b 0\nq 0 c 1\n")
    run.write_text("q Q0 a 1 1 r\nq Q0 x 2 1 r\nq Q0 b 3 1 r\nq Q0 c 4 0.5 r\n")  # x is unjudged
    got = Evaluator(str(qrels), measures=["dcg"], ties="average", judged_only=True).evaluate(str(run))
    assert got.per_query["q"]["dcg"] == pytest.approx(1.5 + 1.5 / math.log2(3) + 1 / 2)


def test_rank_ties_order_by_the_rank_column(tmp_path):
    rng = random.Random(11)
    queries, ranks = {}, {}
    for q in range(8):
        docs = [(f"d{i}", rng.randint(0, 3), 1.0) for i in range(15)]  # every score the same
        queries[f"q{q}"] = docs
        ranks[f"q{q}"] = rng.sample(range(1, 16), 15)
    qrels, run = _files(tmp_path, queries, ranks)
    # the same rankings with -rank as the score, ranked by trec_eval's rule
    by_score = tmp_path / "by_score.txt"
    by_score.write_text("".join(f"{q} Q0 {d} 0 {-ranks[q][i]} r\n" for q, docs in queries.items()
                                for i, (d, _, _) in enumerate(docs)))
    measures = ["all_trec", "ndcg_cut.5,10"]
    got = Evaluator(qrels, measures=measures, ties="rank").evaluate(run).to_trec(True)
    assert got == Evaluator(qrels, measures=measures).evaluate(str(by_score)).to_trec(True)
    assert got != Evaluator(qrels, measures=measures).evaluate(run).to_trec(True)


def test_rank_ties_break_equal_ranks_by_docno_descending(tmp_path):
    qrels, run = _files(tmp_path, {"q": [("a", 1, 5.0), ("b", 0, 9.0), ("c", 0, 1.0)]}, {"q": [1, 1, 2]})
    got = Evaluator(qrels, measures=["relstring.3"], ties="rank").evaluate(run).per_query["q"]["relstring_3"]
    assert got == "010"  # b before a (docno descending), then c


def test_rank_ties_need_a_rank_column(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q 0 a 1\n")
    run.write_text("q Q0 a first 1 r\n")
    assert Evaluator(str(qrels), measures=["map"]).evaluate(str(run)).aggregate["map"] == 1.0  # ignored
    with pytest.raises(TrecgainError, match=r"run.txt:1: rank 'first' is not a number"):
        Evaluator(str(qrels), measures=["map"], ties="rank").evaluate(str(run))
    with pytest.raises(TrecgainError, match="dict has no rank column"):
        Evaluator(str(qrels), measures=["map"], ties="rank").evaluate({"q": {"a": 1.0}})


@pytest.mark.parametrize("rank, problem", [("9007199254740993", "is out of range"), ("2.5", "is not a whole number"),
                                           ("1e3", "is not a whole number")])
def test_rank_ties_refuse_ranks_that_are_not_exact(tmp_path, rank, problem):
    """Ranks compare exactly: 2^53 + 1 would read as 2^53 and tie with it (the docno rule then
    ordering them backwards), so a rank past 2^53 or with a fraction is refused."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q 0 a 1\nq 0 b 0\n")
    run.write_text(f"q Q0 a 9007199254740992 1 r\nq Q0 b {rank} 1 r\n")
    out = run_cli(["--ties", "rank", "-m", "relstring.2", str(qrels), str(run)])
    assert out.rc != 0 and out.stdout == b""
    assert out.stderr.count("\n") == 1 and f"run.txt:2: rank '{rank}' {problem}" in out.stderr


def test_rank_ties_order_large_ranks_exactly(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q 0 a 1\nq 0 b 0\n")
    run.write_text("q Q0 a 9007199254740992 1 r\nq Q0 b 9007199254740991 1 r\n")
    got = Evaluator(str(qrels), measures=["relstring.2"], ties="rank").evaluate(str(run)).per_query["q"]
    assert got["relstring_2"] == "01"  # b's rank is the smaller, whatever the docnos say


@pytest.mark.parametrize("args, message", [
    (["--ties", "average", "-m", "map"], "not for map"),
    (["--ties", "average"], "not for map"),  # the default measures are official's
    (["--ties", "average", "-m", "ndcg", "-M", "10"], "does not combine with -M"),
    (["--ties", "average", "-m", "err_cut.10"], "not for err_cut"),
    (["--ties", "average", "-m", "RR@10"], "not for recip_rank"),
])
def test_average_ties_refuse_other_measures(args, message):
    out = run_cli([*args, str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")])
    assert out.rc == 1 and out.stdout == b""
    assert out.stderr.count("\n") == 1 and message in out.stderr


def test_bad_tie_rule_is_a_usage_error():
    out = run_cli(["--ties", "random", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")])
    assert out.rc == 2 and out.stdout == b"" and "--ties takes docno, rank or average" in out.stderr
    with pytest.raises(TrecgainError, match="ties must be one of"):
        Evaluator(str(EXAMPLE / "qrels.txt"), ties="random")


def test_docno_is_the_default_and_trec_evals_rule():
    args = ["-q", "-m", "all_trec", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")]
    assert run_cli(["--ties", "docno", *args]).stdout == run_cli(args).stdout


# ---------------------------------------------------------------- notes on stderr


def _notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("trecgain: note: ")]


def test_a_note_says_when_ties_decided_a_printed_value(tmp_path):
    # a and b tie; trec_eval puts b (docno descending) first: its grade decides P_1
    qrels, run = _files(tmp_path, {"q": [("a", 1, 1.0), ("b", 0, 1.0), ("c", 0, 0.5)]})
    out = run_cli(["-m", "P.1", qrels, run])
    assert out.stdout == b"P_1                   \tall\t0.0000\n"
    [note] = _notes(out.stderr)
    assert "ties between documents of different grades decided 1 printed value" in note and "--ties" in note
    # no note where the tie does not reach a printed value, or under another rule
    assert _notes(run_cli(["-m", "P.3", qrels, run]).stderr) == []
    average = _notes(run_cli(["--ties", "average", "-m", "ndcg", qrels, run]).stderr)
    assert [n for n in average if "ties between" in n] == []  # (its note: ndcg is not trec_eval's)
    # per-query lines count too
    assert "decided 2 printed values" in _notes(run_cli(["-q", "-m", "P.1", qrels, run]).stderr)[0]


def test_a_note_says_when_queries_were_skipped(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1\nq2 0 a 1\nq3 0 a 1\n")
    run.write_text("q1 Q0 a 1 0.5 r\nq9 Q0 a 1 0.5 r\nq8 Q0 a 1 0.5 r\n")
    out = run_cli(["-m", "map", str(qrels), str(run)])
    assert out.stdout == b"map                   \tall\t1.0000\n"
    [note] = _notes(out.stderr)
    assert "skipped 2 qrels queries" in note and "2 queries of" in note and "-c" in note
    [note] = _notes(run_cli(["-c", "-m", "map", str(qrels), str(run)]).stderr)
    assert "skipped 2 queries of" in note and "qrels queries" not in note
    example = run_cli(["-m", "map", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")])
    assert [n for n in _notes(example.stderr) if "skipped" in n] == []


def test_a_note_says_when_a_measure_named_twice_keeps_its_first_parameters():
    args = [str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")]
    out = run_cli(["-m", "ndcg_cut.5", "-m", "ndcg_cut.10", *args])
    assert out.stdout.decode().split()[0] == "ndcg_cut_5" and out.stdout.count(b"\n") == 1
    [note] = [n for n in _notes(out.stderr) if "ignored" in n]  # (the example's ties get a note too)
    assert "-m ndcg_cut.10 is ignored" in note and "ndcg_cut.5,10" in note
    for same in (["-m", "ndcg_cut.5", "-m", "ndcg_cut.5"], ["-m", "all_trec", "-m", "ndcg_cut.5"]):
        assert [n for n in _notes(run_cli([*same, *args]).stderr) if "ignored" in n] == []


def test_a_note_says_when_the_scores_are_the_ranks(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q 0 a 1\nq 0 b 0\nq 0 c 0\n")
    run.write_text("q Q0 a 1 1 r\nq Q0 b 2 2 r\nq Q0 c 3 3 r\n")
    out = run_cli(["-m", "P.1", str(qrels), str(run)])
    assert out.stdout == b"P_1                   \tall\t0.0000\n"  # upside down, as trec_eval reads it
    [note] = _notes(out.stderr)
    assert "scores of" in note and "are its ranks" in note and "--ties rank" in note
    out = run_cli(["--ties", "rank", "-m", "P.1", str(qrels), str(run)])
    assert out.stdout == b"P_1                   \tall\t1.0000\n" and _notes(out.stderr) == []


def _reversed_text(ev: Evaluator, run: str, per_query: bool) -> bytes:
    """The trec text with tied documents ordered docno ascending (the core's internal rule)."""
    from trecgain import _core
    from trecgain.evaluate import Result

    other = _core.evaluate(ev.qrels, ev.read_run(run), [r.to_core() for r in ev.requests], ev.options.replace(ties="reversed"), True)
    return Result(other, ev.requests, ev._follows_10(), [], True).to_trec_bytes(per_query)


@pytest.mark.parametrize("seed", range(12))
def test_ties_decided_counts_the_lines_the_other_order_changes(tmp_path, seed):
    rng = random.Random(seed)
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    judged, lines = [], []
    for q in range(rng.randint(1, 6)):
        for d in range(rng.randint(1, 12)):
            if rng.random() < 0.7:
                judged.append(f"q{q} 0 d{d} {rng.choice([-1, 0, 1, 2, 3])}\n")
            if rng.random() < 0.8:
                lines.append(f"q{q} Q0 d{d} 0 {rng.choice([1.0, 2.0, 2.0000000001, 3.0])} r\n")
    judged.append("q0 0 anchor 1\n")
    lines.append("q0 Q0 anchor 0 0.5 r\n")
    qrels.write_text("".join(judged))
    run.write_text("".join(lines))
    options = [{}, {"max_docs": 3}, {"judged_only": True}, {"complete": True}, {"compat": "9"}][seed % 5]
    ev = Evaluator(str(qrels), measures=["all_trec", "ndcg_cut.1,3"], **options)
    for per_query in (False, True):
        result = ev.evaluate(str(run), check_ties=True)
        mine = result.to_trec_bytes(per_query).split(b"\n")
        other = _reversed_text(ev, str(run), per_query).split(b"\n")
        assert len(mine) == len(other)
        assert result.ties_decided(per_query) == sum(a != b for a, b in zip(mine, other)), options
    assert ev.evaluate(str(run)).ties_decided(True) == 0  # not checked
