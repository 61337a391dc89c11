"""The diversity measures (ndeval's, on -R subtopics) against pyndeval, the PyPI wrapper of
ndeval.c: random collections (graded, binary and negative judgments, documents judged for
several subtopics, unjudged documents, score ties, queries missing on either side), every
per-query and mean value equal to pyndeval's; ir_measures' own spellings and printing; the
subtopics reader's errors."""

from __future__ import annotations

import math
import random

import pytest

pyndeval = pytest.importorskip("pyndeval")

from conftest import run_cli  # noqa: E402
from trecgain import Evaluator, TrecgainError  # noqa: E402

#: (trecgain name, pyndeval name, pyndeval's alpha and beta, relevance level)
MEASURES = [
    ("ERR_IA@{k}", "ERR-IA@{k}", 0.5, 0.5, 1),
    ("nERR_IA@{k}", "nERR-IA@{k}", 0.5, 0.5, 1),
    ("alpha_DCG@{k}", "alpha-DCG@{k}", 0.5, 0.5, 1),
    ("alpha_nDCG@{k}", "alpha-nDCG@{k}", 0.5, 0.5, 1),
    ("alpha_nDCG(alpha=0.3)@{k}", "alpha-nDCG@{k}", 0.3, 0.5, 1),
    ("alpha_DCG(rel=2,alpha=0.7)@{k}", "alpha-DCG@{k}", 0.7, 0.5, 2),
    ("ERR_IA(rel=2)@{k}", "ERR-IA@{k}", 0.5, 0.5, 2),
    ("nERR_IA(alpha=0.25)@{k}", "nERR-IA@{k}", 0.25, 0.5, 1),
    ("NRBP", "NRBP", 0.5, 0.5, 1),
    ("nNRBP", "nNRBP", 0.5, 0.5, 1),
    ("NRBP(alpha=0.2,beta=0.9)", "NRBP", 0.2, 0.9, 1),
    ("nNRBP(beta=0.8,rel=2)", "nNRBP", 0.5, 0.8, 2),
    ("nNRBP(alpha=0.0,beta=1.0)", "nNRBP", 0.0, 1.0, 1),  # NRBP's factor 0: every ideal NRBP is 0
    ("alpha_nDCG(alpha=1.0)@{k}", "alpha-nDCG@{k}", 1.0, 0.5, 1),
    ("nERR_IA(judged_only=True)@{k}", "nERR-IA@{k}", 0.5, 0.5, 1),  # pyndeval on the run without unjudged
    ("AP_IA(judged_only=True,rel=2)", "MAP-IA", 0.5, 0.5, 2),
    ("P_IA(judged_only=True)@{k}", "P-IA@{k}", 0.5, 0.5, 1),
    ("AP_IA", "MAP-IA", 0.5, 0.5, 1),
    ("AP_IA(rel=3)", "MAP-IA", 0.5, 0.5, 3),
    ("P_IA@{k}", "P-IA@{k}", 0.5, 0.5, 1),
    ("P_IA(rel=2)@{k}", "P-IA@{k}", 0.5, 0.5, 2),
    ("StRecall@{k}", "strec@{k}", 0.5, 0.5, 1),
    ("StRecall(rel=2)@{k}", "strec@{k}", 0.5, 0.5, 2),
]


def collection(rng: random.Random) -> tuple[list[tuple[str, str, str, int]], list[tuple[str, str, float]]]:
    """Random subtopic qrels and run."""
    qrels, run = [], []
    subtopics = [str(s) for s in rng.sample(range(1, 9), rng.randint(1, 5))]
    queries = [str(q) for q in rng.sample(range(1, 12), rng.randint(1, 5))]
    grades = rng.choice([(0, 1), (-1, 0, 1, 2, 3), (0, 1, 2), (1,)])
    for q in queries:
        docs = [f"d{d}" for d in rng.sample(range(30), rng.randint(1, 12))]
        for st in rng.sample(subtopics, rng.randint(1, len(subtopics))):
            for d in rng.sample(docs, rng.randint(1, len(docs))):  # a document judged for several subtopics
                qrels.append((q, st, d, rng.choice(grades)))
    rng.shuffle(qrels)
    in_run = [q for q in queries[1:] if rng.random() < 0.8] + [str(q) for q in range(12, 12 + rng.randint(0, 2))]
    in_run.insert(rng.randint(0, len(in_run)), queries[0])  # one query in both (trec_eval refuses none)
    for q in in_run:
        for d in rng.sample(range(30), rng.randint(1, 25)):  # unjudged documents too
            run.append((q, f"d{d}", float(rng.randint(0, 6)) if rng.random() < 0.5 else rng.random()))
    return qrels, run


def write(tmp_path, qrels, run) -> tuple[str, str]:
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {score!r} r\n" for q, d, score in run))
    return str(qrels_path), str(run_path)


def reference(qrels, run, name: str, alpha: float, beta: float, rel: int) -> dict[str, float]:
    """pyndeval's values of one measure (it ranks by score descending, then docno ascending)."""
    evaluator = pyndeval.RelevanceEvaluator(qrels, [name], relevance_level=rel, alpha=alpha, beta=beta)
    return {q: values[name] for q, values in evaluator.evaluate(run).items()}


def test_the_differential_on_500_collections(tmp_path):
    rng = random.Random(20261202)
    compared = 0
    for case in range(500):
        qrels, run = collection(rng)
        qrels_path, run_path = write(tmp_path, qrels, run)
        k = rng.choice([1, 2, 3, 5, 10, 20])
        chosen = rng.sample(MEASURES, 6)
        names = [m[0].format(k=k) for m in chosen]
        result = Evaluator(qrels_path, names, rel_format="subtopics").evaluate(run_path)
        ours = result.per_query
        aggregate = result.aggregate
        judged = {(q, d) for q, _, d, _ in qrels}
        for (name, theirs_name, alpha, beta, rel), line in zip(chosen, names):
            rows = [r for r in run if (r[0], r[1]) in judged] if "judged_only=True" in name else run
            theirs = reference(qrels, rows, theirs_name.format(k=k), alpha, beta, rel)
            assert set(theirs) <= set(ours), (case, line)
            for q in set(ours) - set(theirs):  # judged_only left pyndeval no document: every value 0
                assert rows is not run and ours[q][line] == 0.0, (case, line, q)
                theirs[q] = 0.0
            assert set(theirs) == set(ours), (case, line)
            for q, value in theirs.items():
                if math.isnan(value):  # nNRBP where the ideal NRBP is 0: ndeval's 0 / 0
                    assert theirs_name == "nNRBP" and ours[q][line] == 0.0, (case, line, q)
                    value = 0.0
                assert ours[q][line] == pytest.approx(value, abs=1e-12, rel=1e-12), (case, line, q)
                compared += 1
            mean = sum(0.0 if math.isnan(v) else v for v in theirs.values()) / len(theirs)
            assert aggregate[line] == pytest.approx(mean, abs=1e-12, rel=1e-12), (case, line)
    assert compared > 5000


def test_ir_measures_objects(tmp_path):
    """ir_measures' Measure objects are accepted (through their str()), and lines are named as
    ir_measures prints them; the values are pyndeval's."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [("5", "1", "a", 1), ("5", "1", "b", 2), ("5", "2", "b", 1), ("5", "2", "c", 0), ("5", "3", "d", 2)]
    run = [("5", "c", 0.9), ("5", "b", 0.8), ("5", "x", 0.7), ("5", "d", 0.6), ("5", "a", 0.5)]
    qrels_path, run_path = write(tmp_path, qrels, run)
    measures = [ir_measures.ERR_IA @ 20, ir_measures.alpha_nDCG(alpha=0.3) @ 10, ir_measures.NRBP(beta=0.5),
                ir_measures.AP_IA(rel=2), ir_measures.MAP_IA]
    result = Evaluator(qrels_path, [str(m) for m in measures], rel_format="subtopics").evaluate(run_path)
    assert list(result.aggregate) == ["ERR_IA@20", "alpha_nDCG(alpha=0.3)@10", "NRBP", "AP_IA(rel=2)", "AP_IA"]
    assert result.aggregate["ERR_IA@20"] == pytest.approx(reference(qrels, run, "ERR-IA@20", 0.5, 0.5, 1)["5"])
    assert result.aggregate["alpha_nDCG(alpha=0.3)@10"] == pytest.approx(
        reference(qrels, run, "alpha-nDCG@10", 0.3, 0.5, 1)["5"])
    assert result.aggregate["AP_IA(rel=2)"] == pytest.approx(reference(qrels, run, "MAP-IA", 0.5, 0.5, 2)["5"])


def test_command_line(tmp_path):
    qrels_path, run_path = write(tmp_path, [("7", "1", "a", 1), ("7", "2", "b", 1), ("7", "2", "a", 0)],
                                 [("7", "a", 2.0), ("7", "b", 1.0)])
    out = run_cli(["-R", "subtopics", "-m", "StRecall@1", "-m", "P_IA@2", qrels_path, run_path])
    assert out.rc == 0, out.stderr
    assert out.stdout.decode().split() == ["P_IA@2", "all", "0.5000", "StRecall@1", "all", "0.5000"]


@pytest.mark.parametrize("spec, message", [
    ("ERR_IA@21", "at most 20"),
    ("alpha_nDCG(alpha=2)@5", "alpha must be a number from 0 to 1"),
    ("ERR_IA", "needs a cutoff"),
    ("NRBP@5", "takes no cutoff"),
    ("P_IA(beta=0.5)@5", "unknown parameter 'beta'"),
    ("ERR-IA", "name it as ir_measures does"),
])
def test_bad_measure_names(tmp_path, spec, message):
    qrels_path, run_path = write(tmp_path, [("1", "1", "a", 1)], [("1", "a", 1.0)])
    with pytest.raises(TrecgainError, match=message):
        Evaluator(qrels_path, [spec], rel_format="subtopics")


@pytest.mark.parametrize("text, message", [
    ("1 1 a 1\n1 1 a 0\n", "qrels:2: document 'a' is judged twice for subtopic '1' of query '1'"),
    # the file's first such line, though its query's judgments are indexed after another's
    ("2 1 a 1\n1 1 b 1\n1 1 b 1\n2 1 a 1\n", "qrels:3: document 'b' is judged twice for subtopic '1' of query '1' "
     "(first at line 2)"),
    ("1 1 a\n", "qrels:1: malformed subtopics line: 3 fields"),
    ("1 1 a x\n", "qrels:1: "),
])
def test_bad_subtopic_qrels(tmp_path, text, message):
    (tmp_path / "qrels").write_text(text)
    (tmp_path / "run").write_text("1 Q0 a 1 1 r\n")
    out = run_cli(["-R", "subtopics", "-m", "P_IA@5", str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert out.rc != 0 and out.stdout == b""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{tmp_path}/{message}" in lines[0], out.stderr


def test_a_diversity_measure_needs_subtopic_qrels(tmp_path):
    qrels_path, run_path = write(tmp_path, [("1", "1", "a", 1)], [("1", "a", 1.0)])
    with pytest.raises(TrecgainError, match="subtopics"):
        Evaluator(qrels_path, ["ERR_IA@5"]).evaluate(run_path)


NDEVAL_COLUMNS = [*(f"{m}@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)),
                  "NRBP", "nNRBP", "MAP-IA", *(f"{m}@{k}" for m in ("P-IA", "strec") for k in (5, 10, 20))]


def ndeval_csv(qrels, run, runid: str, alpha: float, complete: bool, baseline=None, risk_alpha: float = 0.0,
               risk_text: str = "0") -> bytes:
    """ndeval's CSV from pyndeval's values (ndeval.c's own layout: a line per run topic in
    numeric order, zeros for one the qrels lack, the means over the topics both have, or with
    -c over the qrels topics; with a baseline, ndeval's risk-sensitive differences)."""
    def values(rows):
        got = pyndeval.ndeval(qrels, rows, NDEVAL_COLUMNS, alpha=alpha)
        return {int(q): [got[q][c] for c in NDEVAL_COLUMNS] for q in got}

    def fmt(x: float) -> str:
        return "-nan" if math.isnan(x) else "%.6f" % x

    mine, topics = values(run), sorted({int(q) for q, _, _ in run})
    theirs, base_topics = (values(baseline), sorted({int(q) for q, _, _ in baseline})) if baseline else ({}, [])
    label = f"{runid} (rel to. base; rs=1+a; a={risk_text})" if baseline else runid
    zero = [0.0] * len(NDEVAL_COLUMNS)
    shown = sorted(set(topics) | (set(base_topics) if complete else set()))  # -c: the baseline's topics too
    lines = ["runid,topic," + ",".join(NDEVAL_COLUMNS)]
    totals = [0.0] * len(NDEVAL_COLUMNS)
    for t in shown:
        row = []
        for a, b in zip(mine.get(t, zero) if t in topics else zero, theirs.get(t, zero) if t in base_topics else zero):
            row.append(a - b if a >= b else (risk_alpha + 1) * (a - b))
        totals = [x + y for x, y in zip(totals, row)]
        lines.append(f"{label},{t}," + ",".join(fmt(x) for x in row))
    count = len({int(q) for q, _, _, _ in qrels}) if complete else len(mine)
    if baseline and len(shown) > count:
        count = len(shown)
    lines.append(f"{label},amean," + ",".join(fmt(x / count) for x in totals))
    return ("\n".join(lines) + "\n").encode()


def test_trecgain_ndeval_prints_ndevals_csv(tmp_path):
    """`trecgain ndeval` against ndeval's layout filled with pyndeval's values, on 100 random
    collections (the run's rank column in pyndeval's order), with -alpha, -c and a baseline."""
    rng = random.Random(77)
    for case in range(100):
        qrels, run = collection(rng)
        qrels = [(q, s, d, max(g, 0)) for q, s, d, g in qrels]  # ndeval's judgments are natural numbers
        _, baseline = collection(rng)
        runs = {"run": run, "base": baseline}
        for name, rows in runs.items():
            rows.sort(key=lambda r: (int(r[0]), -r[2], r[1]))  # pyndeval's order
            rank = {}
            (tmp_path / name).write_text("".join(f"{q} Q0 {d} {rank.setdefault(q, []).append(0) or len(rank[q])} "
                                                 f"{s!r} {name}\n" for q, d, s in rows))
        (tmp_path / "qrels").write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels))
        alpha = rng.choice([0.5, 0.5, 0.3, 1.0])
        complete = rng.random() < 0.3
        with_baseline = rng.random() < 0.3
        args = ["ndeval", "-alpha", repr(alpha), *(["-c"] if complete else [])]
        if with_baseline:
            args += ["-baseline", str(tmp_path / "base"), "-riskAlpha", "1.5"]
        out = run_cli([*args, str(tmp_path / "qrels"), str(tmp_path / "run")])
        assert out.rc == 0, out.stderr
        expected = ndeval_csv(qrels, run, "run", alpha, complete, baseline if with_baseline else None,
                              1.5, "1.5")
        assert out.stdout == expected, (case, args)


def test_the_ir_measures_provider_claims_the_diversity_measures():
    """trecgain's ir_measures provider claims the measures that read subtopic qrels (the qrels'
    iteration is the subtopic, as for ir_measures' pyndeval provider) beside the plain ones."""
    ir_measures = pytest.importorskip("ir_measures")
    from trecgain.ir_measures import TrecgainProvider

    provider = TrecgainProvider()
    assert provider.supports(ir_measures.ERR_IA @ 20) and provider.supports(ir_measures.NRBP)
    assert provider.supports(ir_measures.nDCG @ 10)


RUN_SYNTAX = "syntax error in run line: expected topic Q0 docno rank score tag, the topic and rank natural numbers"
QRELS_SYNTAX = "syntax error in qrel line: expected topic subtopic docno judgment, natural numbers but the docno"


@pytest.mark.parametrize("qrels, run, message", [
    ("1 1 a 1\n", "1 Q0 a 1 1 r\n1 Q0 b 1 2 r\n", "run:2: duplicate rank (1) for topic 1 (also at line 1)"),
    ("1 1 a 1\n", "1 Q0 a 1 1 r\n1 Q0 a 2 2 r\n", "run:2: duplicate docno (a) for topic 1 (also at line 1)"),
    ("1 1 a 1\n", "1 Q0 a x 1 r\n", f"run:1: {RUN_SYNTAX}"),
    ("1 1 a 1\n", "t Q0 a 1 1 r\n", f"run:1: {RUN_SYNTAX}"),
    ("1 1 a -1\n", "1 Q0 a 1 1 r\n", f"qrels:1: {QRELS_SYNTAX}"),
    ("1 1 a\n", "1 Q0 a 1 1 r\n", f"qrels:1: {QRELS_SYNTAX}"),
    ("", "1 Q0 a 1 1 r\n", "qrels: qrel file is empty"),
    ("1 1 a 1\n1 1 a 0\n", "1 Q0 a 1 1 r\n",
     "qrels:2: document 'a' is judged twice for subtopic 1 of topic 1 (first at line 1)"),
])
def test_trecgain_ndeval_refuses_bad_input(tmp_path, qrels, run, message):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    out = run_cli(["ndeval", str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert out.rc == 1 and out.stdout == b""
    assert out.stderr.strip().splitlines() == [f"trecgain: {tmp_path}/{message}"]


def test_trecgain_ndeval_options(tmp_path):
    (tmp_path / "qrels").write_text("3 1 a 1\n3 2 b 1\n")
    (tmp_path / "run").write_text("wt09-3 Q0 b 2 9 tag\nwt09-3 Q0 a 1 1 tag\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert run_cli(["ndeval", "-version"]).stdout == b"ndeval: version 4.5 (Mon 29 Apr 2013 20:51:02 EDT)\n"
    by_rank = run_cli(["ndeval", *files]).stdout.decode().splitlines()
    by_score = run_cli(["ndeval", "-traditional", *files]).stdout.decode().splitlines()
    cut = run_cli(["ndeval", "-M", "1", *files]).stdout.decode().splitlines()
    # two subtopics, a document each: ERR-IA@5 = (1 + 1/2) over the ideal ideal, 2 (1/2)^(i-1) / i
    ideal = sum(2 * 0.5 ** i / (i + 1) for i in range(5))
    assert by_rank[1].split(",")[2] == by_score[1].split(",")[2] == "%.6f" % (1.5 / ideal)
    assert cut[1].split(",")[:3] == ["tag", "3", "%.6f" % (1 / ideal)]
    assert by_rank[1].split(",")[-3] == "1.000000" and cut[1].split(",")[-3] == "0.500000"  # strec@5
    for bad in (["-alpha", "2"], ["-M", "0"], ["-x"]):
        out = run_cli(["ndeval", *bad, *files])
        assert out.rc == 2 and out.stdout == b"" and len(out.stderr.splitlines()) == 1, out.stderr


@pytest.mark.parametrize("seed", range(3))
def test_trecgain_ndeval_on_damaged_files(tmp_path, seed):
    """Random damage to good files (bytes replaced, lines cut, fields dropped): every outcome
    is the CSV or one line on standard error naming the file, never a traceback."""
    rng = random.Random(seed)
    qrels, run = collection(rng)
    good_qrels = "".join(f"{q} {s} {d} {max(g, 0)}\n" for q, s, d, g in qrels).encode()
    good_run = "".join(f"{q} Q0 {d} {i} {score!r} r\n" for i, (q, d, score) in enumerate(run, 1)).encode()
    for _ in range(40):
        damaged = []
        for data in (good_qrels, good_run):
            data = bytearray(data)
            for _ in range(rng.randint(0, 3)):
                data[rng.randrange(len(data))] = rng.choice(b" \t\r\n\0x-9.Q")
            damaged.append(bytes(data))
        (tmp_path / "qrels").write_bytes(damaged[0])
        (tmp_path / "run").write_bytes(damaged[1])
        options = rng.choice([[], ["-traditional"], ["-c", "-M", "3"]])
        out = run_cli(["ndeval", *options, str(tmp_path / "qrels"), str(tmp_path / "run")])
        if out.rc == 0:
            assert out.stdout.startswith(b"runid,topic,") and out.stderr == ""
        else:
            assert out.rc == 1 and out.stdout == b"" and "Traceback" not in out.stderr
            assert len(out.stderr.splitlines()) == 1 and str(tmp_path) in out.stderr, out.stderr


def test_subtopic_qrels_given_as_rows_read_as_the_file(tmp_path):
    """Rows in memory (plain tuples, pyndeval's SubtopicQrel, ir_measures' Qrel whose iteration
    is the subtopic) give the file's values to the bit, and pyndeval's on the same rows."""
    ir_measures = pytest.importorskip("ir_measures")
    rng = random.Random(7)
    names = ["ERR_IA@5", "nERR_IA@10", "alpha_nDCG@20", "NRBP", "nNRBP", "AP_IA", "P_IA@5", "StRecall@10"]
    for case in range(100):
        qrels, run = collection(rng)
        qrels_path, run_path = write(tmp_path, qrels, run)
        from_file = Evaluator(qrels_path, names, rel_format="subtopics").evaluate(run_path).per_query
        shapes = [qrels, [pyndeval.SubtopicQrel(*row) for row in qrels],
                  [ir_measures.Qrel(q, d, g, s) for q, s, d, g in qrels]]
        for rows in shapes:
            assert Evaluator(rows, names, rel_format="subtopics").evaluate(run).per_query == from_file, case
        theirs = reference(qrels, run, "alpha-nDCG@20", 0.5, 0.5, 1)
        for q, value in theirs.items():
            assert from_file[q]["alpha_nDCG@20"] == pytest.approx(value, abs=1e-12, rel=1e-12), (case, q)


@pytest.mark.parametrize("rows, message", [
    ([("1", "1", "a", 1), ("1", "1", "a")], r"qrels list:2: row .* has 3 fields: expected \(qid, subtopic"),
    ([("1", "s 1", "a", 1)], "qrels list:1: subtopic id 's 1'"),
    ([("1", "1", "a", 1.5)], "qrels list:1: "),
    ([("1", "1", "a", 1), ("1", "1", "a", 0)], "qrels list:2: document 'a' is judged twice for subtopic '1'"),
    ([], "qrels list: no subtopic judgments in the rows"),
])
def test_bad_subtopic_rows(rows, message):
    with pytest.raises(TrecgainError, match=message):
        Evaluator(rows, ["P_IA@5"], rel_format="subtopics")


def test_the_ir_measures_provider_computes_the_diversity_measures():
    """trecgain's ir_measures provider takes the diversity measures too, reading the qrels'
    iteration as the subtopic: per query the values of ir_measures' pyndeval provider, each
    measure asked alone (asked together, that provider reads the run once and gives every group of
    measures after the first 0: test_ir_measures_pyndeval_provider_reads_the_run_once)."""
    ir_measures = pytest.importorskip("ir_measures")
    import trecgain.ir_measures as provider_module

    theirs_provider = ir_measures.providers.registry["pyndeval"]
    measures = [ir_measures.alpha_nDCG @ 10, ir_measures.ERR_IA @ 5, ir_measures.nNRBP, ir_measures.AP_IA,
                ir_measures.nERR_IA @ 20, ir_measures.StRecall @ 10, ir_measures.P_IA(rel=2) @ 5,
                ir_measures.NRBP(alpha=0.3, beta=0.8), ir_measures.alpha_DCG(alpha=0.7) @ 3]
    ours_provider = provider_module.TrecgainProvider()
    compared = 0
    for case in range(100):
        rng = random.Random(case)
        qrels_rows, run_rows = collection(rng)
        qrels = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in qrels_rows]
        run = {}
        for q, d, score in run_rows:
            run.setdefault(q, {})[d] = score
        chosen = rng.sample(measures, 4)
        ours = {(str(m.measure), m.query_id): m.value for m in ours_provider.iter_calc(chosen, qrels, run)}
        theirs = {(str(m.measure), m.query_id): m.value for measure in chosen
                  for m in theirs_provider.iter_calc([measure], qrels, run)}
        assert set(ours) == set(theirs), case
        for key, value in theirs.items():
            value = 0.0 if math.isnan(value) else value  # nNRBP's 0 / 0 (see the differential above)
            assert ours[key] == pytest.approx(value, abs=1e-12, rel=1e-12), (case, key)
            compared += 1
    assert compared > 1000


def test_ir_measures_pyndeval_provider_reads_the_run_once():
    """The reference's fault the provider test above avoids: measures of different parameters in one
    call give the second group 0 for every query (its run is a generator, read by the first)."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [ir_measures.Qrel("1", "a", 1, "1"), ir_measures.Qrel("1", "b", 1, "2")]
    run = {"1": {"a": 2.0, "b": 1.0}}
    first, second = ir_measures.NRBP(alpha=0.3, beta=0.8), ir_measures.alpha_nDCG @ 10
    provider = ir_measures.providers.registry["pyndeval"]
    alone = provider.calc_aggregate([second], qrels, run)[second]
    together = provider.calc_aggregate([first, second], qrels, run)[second]
    assert alone == pytest.approx(1.0) and together == 0.0
    import trecgain.ir_measures as provider_module

    assert provider_module.TrecgainProvider().calc_aggregate([first, second], qrels, run)[second] == pytest.approx(1.0)
