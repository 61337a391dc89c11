"""trec_eval's other relevance formats (-R qrels_jg, prefs, qrels_prefs), -Z and -D 0.QID: the
cases the live conformance generator recorded from trec_eval 10.0 and 9.0.8
(testdata/conformance/relations), through the command line and the Python API, and the errors
of these formats' readers."""

from __future__ import annotations

import gzip
import json

import pytest

from conftest import ROOT, run_cli
from trecgain import Evaluator, TrecgainError

RELATIONS = ROOT / "testdata" / "conformance" / "relations"
CASE_IDS = sorted(p.name for p in RELATIONS.iterdir() if p.is_dir())
MODES = ["10", "9"]


def load(case_id: str) -> dict:
    return json.loads((RELATIONS / case_id / "case.json").read_text())


def invocation(case_id: str, mode: str) -> tuple[list[str], bytes]:
    case, folder = load(case_id), RELATIONS / case_id
    stdin = b""
    args = []
    for a in case["args"]:
        if a == "QRELS":
            args.append(str(folder / "qrels.txt"))
        elif a == "RUN" and case.get("stdin") == "RUN":
            args.append("-")
            stdin = (folder / "run.txt").read_bytes()
        elif a == "RUN":
            args.append(str(folder / "run.txt"))
        else:
            args.append(a.replace("ZSCORES", str(folder / "zscores.txt")))
    return (["--compat", "9", *args] if mode == "9" else args), stdin


def test_every_format_is_recorded_in_both_modes():
    formats = {load(c)["rel_format"] for c in CASE_IDS}
    assert formats == {"qrels_jg", "prefs", "qrels_prefs", "zscores"}
    for rel_format in formats:
        modes = {m for c in CASE_IDS if load(c)["rel_format"] == rel_format for m in load(c)["expect"]}
        assert modes == set(MODES), rel_format
    assert any("error" in load(c)["expect"].get("10", {}) for c in CASE_IDS)  # refusals are recorded too


@pytest.mark.parametrize("case_id, mode", [(c, m) for c in CASE_IDS for m in MODES if m in load(c)["expect"]])
def test_recorded_case(case_id: str, mode: str) -> None:
    args, stdin = invocation(case_id, mode)
    outcome = run_cli(args, stdin)
    expect = load(case_id)["expect"][mode]
    if expect.get("error"):
        assert outcome.rc != 0 and outcome.stdout == b""
        lines = outcome.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in outcome.stderr, outcome.stderr
    else:
        assert outcome.rc == 0, outcome.stderr
        assert outcome.stdout.decode("utf-8", "surrogateescape") == expect["stdout"]


def _api_arguments(args: list[str]) -> tuple[dict, bool, bool]:
    """The Evaluator's keywords, per_query and summary of a recorded command line (the
    spellings the generator writes)."""
    kw: dict = {"measures": []}
    per_query, summary = False, True
    tokens = iter(args)
    for tok in tokens:
        name, eq, value = tok.partition("=")
        if tok in ("-q", "--query_eval_wanted"):
            per_query = True
        elif tok in ("-n", "--nosummary"):
            summary = False
        elif tok in ("-c", "--complete_rel_info_wanted"):
            kw["complete"] = True
        elif tok in ("-J", "--Judged_docs_only"):
            kw["judged_only"] = True
        elif name in ("--measure", "-m") or tok.startswith("-m"):
            kw["measures"].append(value if eq else (next(tokens) if tok in ("-m", "--measure") else tok[2:]))
        elif name in ("--level_for_rel", "-l") or tok.startswith("-l"):
            kw["relevance_level"] = int(value if eq else (next(tokens) if tok in ("-l", "--level_for_rel")
                                                          else tok[2:]))
        elif name in ("--Max_retrieved_per_topic", "-M") or tok.startswith("-M"):
            kw["max_docs"] = int(value if eq else (next(tokens) if tok == "-M" else tok[2:]))
        elif name in ("--Rel_info_format", "-R") or tok.startswith("-R"):
            kw["rel_format"] = value if eq else (next(tokens) if tok == "-R" else tok[2:])
        elif name in ("--Zscore", "-Z") or tok.startswith("-Z"):
            kw["zscores"] = value if eq else (next(tokens) if tok == "-Z" else tok[2:])
        elif name in ("--Debug_level", "-D") or tok.startswith("-D"):
            level = value if eq else (next(tokens) if tok == "-D" else tok[2:])
            if "." in level:
                kw["only_query"] = level.partition(".")[2]
        else:
            raise AssertionError(f"unexpected argument {tok}")
    return kw, per_query, summary


@pytest.mark.parametrize("case_id", [c for c in CASE_IDS if "rc" in load(c)["expect"].get("10", {})][::3])
def test_recorded_case_through_the_api(case_id: str) -> None:
    case = load(case_id)
    folder = RELATIONS / case_id
    kw, per_query, summary = _api_arguments([a.replace("ZSCORES", str(folder / "zscores.txt"))
                                             for a in case["args"] if a not in ("QRELS", "RUN")])
    result = Evaluator(str(folder / "qrels.txt"), **kw).evaluate(str(folder / "run.txt"))
    assert result.to_trec(per_query=per_query, summary=summary) == case["expect"]["10"]["stdout"]


QUICK_PREFS = "q1 u1 s1 a 2\nq1 u1 s1 b 1\nq1 u1 s1 c 0\n# a comment\nq1 u2 s1 c 3\nq1 u2 s1 a 1\n"
QUICK_RUN = "q1 Q0 a 1 3 r\nq1 Q0 c 2 2 r\nq1 Q0 b 3 1 r\n"


def test_hand_computed_preferences(tmp_path):
    """u1 prefers a > b > c (3 pairs, all kept by the ranking a c b but b > c); u2 c > a
    (reversed by it): 2 of 4 fulfilled; per group 2/3 and 0/1."""
    (tmp_path / "p").write_text(QUICK_PREFS)
    (tmp_path / "r").write_text(QUICK_RUN)
    result = Evaluator(str(tmp_path / "p"), ["prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_simp",
                                             "prefs_avgjg", "prefs_pair"], rel_format="prefs").evaluate(
        str(tmp_path / "r"))
    values = result.aggregate
    assert values["prefs_num_prefs_poss"] == 4 and values["prefs_num_prefs_ful"] == 2
    assert values["prefs_simp"] == 0.5
    assert values["prefs_avgjg"] == (2 / 3 + 0) / 2
    # pairs a-b (1 of 1 group agrees), a-c (u1 agrees, u2 not: 1/2), b-c (0 of 1)
    assert values["prefs_pair"] == (1 + 0.5 + 0) / 3


def test_hand_computed_judgment_groups(tmp_path):
    """map_avgjg: AP per group, averaged; P_avgjg likewise."""
    (tmp_path / "q").write_text("q1 u1 a 1\nq1 u1 b 0\nq1 u2 b 1\nq1 u2 c 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n")
    result = Evaluator(str(tmp_path / "q"), ["map_avgjg", "P_avgjg.2"], rel_format="qrels_jg").evaluate(
        str(tmp_path / "r"))
    # u1: a relevant at rank 1: AP 1; u2: b at 2 (1/2), c at 3 (2/3): AP (1/2 + 2/3) / 2
    assert result.aggregate["map_avgjg"] == (1 + (0.5 + 2 / 3) / 2) / 2
    assert result.aggregate["P_avgjg_2"] == (0.5 + 0.5) / 2


@pytest.mark.parametrize("rel_format, text, message", [
    ("prefs", "q1 u1 s1 a\n", "exactly 5"),
    ("prefs", "q1 u1 s1 a high\n", "'high' is not a number"),
    ("qrels_jg", "q1 u1 a 1\nq1 u1 a 0\n", "judged twice for query 'q1' (judgment group 'u1')"),
    ("qrels_prefs", "q1 0 a 1 extra\n", "exactly 4"),
    ("qrels_jg", "q1 u1 a 1.5\n", "not an integer"),
])
def test_reader_errors_name_file_and_line(tmp_path, rel_format, text, message):
    qrels = tmp_path / "judgments"
    qrels.write_text(text)
    (tmp_path / "r").write_text(QUICK_RUN)
    measure = "qrels_jg" if rel_format == "qrels_jg" else "all_prefs"
    outcome = run_cli(["-R", rel_format, "-m", measure, str(qrels), str(tmp_path / "r")])
    assert outcome.rc != 0 and outcome.stdout == b""
    assert str(qrels) in outcome.stderr and message in outcome.stderr and len(outcome.stderr.splitlines()) == 1


@pytest.mark.parametrize("text, message", [
    ("q1 u1 s1 a 2\nq1 u1 s1 a 1\n", "two levels in one judgment subgroup"),
    ("q1 u1 s1 a 2\nq1 u1 s1 b 1\nq1 u1 s2 a 0\nq1 u1 s2 b 1\n", "has both level 0 and a level > 0"),
    ("q1 u1 s1 a 2\nq1 u1 s1 b 1\nq1 u1 s2 b 2\nq1 u1 s2 a 1\n", "inconsistent preferences"),
])
def test_inconsistent_preferences_are_refused(tmp_path, text, message):
    (tmp_path / "p").write_text(text)
    (tmp_path / "r").write_text(QUICK_RUN)
    outcome = run_cli(["-R", "prefs", "-m", "prefs_simp", str(tmp_path / "p"), str(tmp_path / "r")])
    assert outcome.rc != 0 and outcome.stdout == b"" and message in outcome.stderr
    with pytest.raises(TrecgainError, match=message):
        Evaluator(str(tmp_path / "p"), ["prefs_simp"], rel_format="prefs").evaluate(str(tmp_path / "r"))


def test_gzip_stdin_and_crlf(tmp_path):
    plain = tmp_path / "p"
    plain.write_text(QUICK_PREFS)
    (tmp_path / "p.gz").write_bytes(gzip.compress(QUICK_PREFS.replace("\n", "\r\n").encode()))
    (tmp_path / "r").write_text(QUICK_RUN)
    want = run_cli(["-q", "-R", "prefs", "-m", "all_prefs", str(plain), str(tmp_path / "r")])
    assert want.rc == 0 and b"prefs_simp" in want.stdout
    zipped = run_cli(["-q", "-R", "prefs", "-m", "all_prefs", str(tmp_path / "p.gz"), str(tmp_path / "r")])
    piped = run_cli(["-q", "-R", "prefs", "-m", "all_prefs", "-", str(tmp_path / "r")], QUICK_PREFS.encode())
    assert zipped.stdout == want.stdout == piped.stdout


@pytest.mark.parametrize("rel_format, measures, message", [
    ("prefs", ["map"], "measure 'map' needs -R qrels, not -R prefs"),
    ("qrels", ["prefs_simp"], "needs -R prefs or -R qrels_prefs"),
    ("qrels_prefs", ["map_avgjg"], "needs -R qrels_jg"),
    ("qrels_jg", ["official"], "needs -R qrels"),
    ("prefs_jg", ["map"], "rel_format (-R) must be one of"),
])
def test_a_measure_reads_its_format_only(tmp_path, rel_format, measures, message):
    (tmp_path / "p").write_text(QUICK_PREFS)
    with pytest.raises(TrecgainError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Evaluator(str(tmp_path / "p"), measures, rel_format=rel_format)


def test_runid_and_num_q_read_any_format(tmp_path):
    (tmp_path / "p").write_text(QUICK_PREFS)
    (tmp_path / "r").write_text(QUICK_RUN)
    result = Evaluator(str(tmp_path / "p"), ["runid", "num_q"], rel_format="prefs").evaluate(str(tmp_path / "r"))
    assert result.aggregate == {"runid": "r", "num_q": 1}


EXAMPLE = [str(ROOT / "testdata/example/qrels.txt"), str(ROOT / "testdata/example/run.txt")]


def test_zscores_from_a_mapping_and_what_is_missing():
    plain = Evaluator(EXAMPLE[0], ["map", "P.5", "num_ret"]).evaluate(EXAMPLE[1])
    qids = plain.qids
    table = {qids[0]: {"map": (0.25, 0.5), "P_5": (0.2, 0.0), "num_ret": (10, 2)}}
    result = Evaluator(EXAMPLE[0], ["map", "P.5", "num_ret"], zscores=table).evaluate(EXAMPLE[1])
    first = result.per_query[qids[0]]
    assert first["map"] == (plain.per_query[qids[0]]["map"] - 0.25) / 0.5
    want_p5 = 0.0 if plain.per_query[qids[0]]["P_5"] == 0.2 else -1000000.0  # deviation 0
    assert first["P_5"] == want_p5
    for qid in qids[1:]:  # queries the table lacks
        assert set(result.per_query[qid].values()) == {-1000000.0}
    text = result.to_trec(per_query=True)
    assert text.startswith("Znum_ret               \t") and "\tall\t" in text
    assert all(line.startswith("Z") for line in text.splitlines())


def test_zscores_file_errors(tmp_path):
    bad = tmp_path / "z"
    bad.write_text("q1 map 0.5\n")
    with pytest.raises(TrecgainError, match=r"z:1: malformed zscores line: 3 fields"):
        Evaluator(EXAMPLE[0], ["map"], zscores=str(bad))
    bad.write_text("# fine\nq1 map 0.5 high\n")
    with pytest.raises(TrecgainError, match=r"z:2: 'high' is not a number"):
        Evaluator(EXAMPLE[0], ["map"], zscores=str(bad))


def test_only_query_evaluates_one_query():
    plain = Evaluator(EXAMPLE[0], ["map", "num_q"]).evaluate(EXAMPLE[1])
    qid = plain.qids[1]
    one = Evaluator(EXAMPLE[0], ["map", "num_q"], only_query=qid).evaluate(EXAMPLE[1])
    assert one.qids == [qid] and one.aggregate["num_q"] == 1
    assert one.aggregate["map"] == plain.per_query[qid]["map"]
    with pytest.raises(TrecgainError, match="no such query"):
        Evaluator(EXAMPLE[0], ["map"], only_query="nosuch", complete=True).evaluate(EXAMPLE[1])


@pytest.mark.parametrize("debug, ok", [("0", True), ("00", True), ("0.x", True), ("1", False), ("3.q", False),
                                       ("0.", False)])
def test_debug_levels(debug, ok):
    outcome = run_cli(["-D", debug, "-m", "map", *EXAMPLE])
    if ok and debug != "0.x":
        assert outcome.rc == 0
    elif ok:  # 0.x: a query the files lack
        assert outcome.rc != 0 and outcome.stdout == b"" and "no query" in outcome.stderr
    else:
        assert outcome.rc != 0 and outcome.stdout == b"" and "trecgain explain" in outcome.stderr


def test_jobs_and_formats_read_the_other_formats(tmp_path):
    """-j workers and --format json get the same -R, -Z and -D as one process."""
    (tmp_path / "p").write_text(QUICK_PREFS)
    (tmp_path / "r1").write_text(QUICK_RUN)
    (tmp_path / "r2").write_text(QUICK_RUN.replace(" r\n", " s\n").replace("q1 Q0 c 2 2", "q1 Q0 c 2 4"))
    args = ["-q", "-R", "prefs", "-m", "all_prefs", str(tmp_path / "p")]
    one = [run_cli([*args, str(tmp_path / name)]).stdout for name in ("r1", "r2")]
    both = run_cli(["-j", "2", *args, str(tmp_path / "r1"), str(tmp_path / "r2")])
    assert both.rc == 0 and all(chunk in both.stdout for chunk in one) and one[0] != one[1]
    as_json = json.loads(run_cli(["--format", "json", *args, str(tmp_path / "r1")]).stdout)
    assert as_json["runs"][0]["aggregate"]["prefs_simp"] == 0.5
