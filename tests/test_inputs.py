"""Bad input never produces a number: exit non-zero, one stderr line naming file and line, no stdout."""

from __future__ import annotations

import gzip

import pytest

from conftest import run_cli

QRELS = b"1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 a 1\n"
RUN = b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n1 Q0 c 3 1.0 tag\n2 Q0 a 1 1.5 tag\n"


def write(tmp_path, qrels: bytes = QRELS, run: bytes = RUN):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_bytes(qrels)
    r.write_bytes(run)
    return str(q), str(r)


def assert_clean_error(outcome, *fragments: str) -> None:
    assert outcome.rc != 0
    assert outcome.stdout == b""
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1, outcome.stderr
    assert "Traceback" not in outcome.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


QRELS_ERRORS = [
    (b"1 0 a 2\n1 0 b\n", "qrels.txt:2:", "3 fields"),
    (b"1 0 a 2\n1 0 b 1 extra\n", "qrels.txt:2:", "5 fields"),
    (b"1 0 a 2\n\n1 0 b 1\n", "qrels.txt:2:", "blank line"),
    (b"1 0 a 2\n1 0 b yes\n", "qrels.txt:2:", "grade 'yes'"),
    (b"1 0 a 2.5\n", "qrels.txt:1:", "grade '2.5'"),
    (b"1 0 a 2\n1 0 b -\n", "qrels.txt:2:", "grade '-'"),
    (b"1 0 a 2\n1 0 a 1\n", "qrels.txt:2:", "judged twice"),
    (b"1 0 a 2\n1 0 b\x00 1\n", "qrels.txt:2:", "NUL"),
    (b"", "qrels.txt", "no judgments"),
    (b"1 0 a 99999999999999999999\n", "qrels.txt:1:", "out of range"),
]


@pytest.mark.parametrize("qrels, where, what", QRELS_ERRORS)
def test_bad_qrels(tmp_path, qrels, where, what):
    q, r = write(tmp_path, qrels=qrels)
    assert_clean_error(run_cli(["-m", "ndcg", q, r]), where, what)


RUN_ERRORS = [
    (b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0\n", "run.txt:2:", "5 fields"),
    (b"1 Q0 a 1 high tag\n", "run.txt:1:", "score 'high'"),
    (b"1 Q0 a 1 inf tag\n", "run.txt:1:", "score 'inf'"),
    (b"1 Q0 a 1 nan tag\n", "run.txt:1:", "score 'nan'"),
    (b"1 Q0 a 1 0x1p3 tag\n", "run.txt:1:", "score '0x1p3'"),
    (b"1 Q0 a 1 1_0 tag\n", "run.txt:1:", "score '1_0'"),
    (b"1 Q0 a 1 1e tag\n", "run.txt:1:", "score '1e'"),
    (b"1 Q0 a 1 3 tag\n1 Q0 b 1 2 tag\n1 Q0 a 1 1 tag\n", "run.txt:3:", "retrieved twice"),
    (b"", "run.txt", "no results"),
    (b"\n\n# only a comment\n", "run.txt", "no results"),
    (b"9 Q0 a 1 3 tag\n", "run.txt", "no query has both"),
]


@pytest.mark.parametrize("run, where, what", RUN_ERRORS)
def test_bad_run(tmp_path, run, where, what):
    q, r = write(tmp_path, run=run)
    assert_clean_error(run_cli(["-m", "ndcg", q, r]), where, what)


def test_missing_files(tmp_path):
    q, r = write(tmp_path)
    assert_clean_error(run_cli(["-m", "ndcg", q, str(tmp_path / "nope")]), "nope", "cannot read")
    assert_clean_error(run_cli(["-m", "ndcg", str(tmp_path / "nope"), r]), "nope", "cannot read")


@pytest.mark.parametrize("args, what", [
    (["-m", "map_avgjg"], "needs -R qrels_jg, not -R qrels"),
    (["-m", "qrels_jg"], "needs -R qrels_jg, not -R qrels"),
    (["-m", "all_prefs"], "needs -R prefs or -R qrels_prefs, not -R qrels"),
    (["-R", "qrels_jg", "-m", "map"], "measure 'map' needs -R qrels, not -R qrels_jg"),
    (["-R", "jg"], "option -R: the formats are qrels, qrels_jg, prefs, qrels_prefs and subtopics, not 'jg'"),
    (["-m", "utility.1,2"], "four coefficients"),
    (["-m", "relstring.5000"], "relstring shows from 0 to 1000"),
    (["-m", "iprec_at_recall.0.5,0.5"], "duplicate values"),
    (["-m", "set_F.x"], "'x' in 'x' is not a number"),
    (["-m", "R@ten"], "expected Name"),
    (["-m", "nDGC@10"], "did you mean nDCG"),
    (["-m", "nDCG(cutoff=3)@10"], "give the cutoff once"),
    (["-m", "nDCG(rel=3)@10"], "unknown parameter 'rel'"),
    (["-m", "nDCG(dcg=open('x'))@10"], "not a literal"),
    (["-m", "nDCG(dcg='exp')@10"], "dcg must be"),
    (["--global-gains", "1=x"], "gain 'x'"),
    (["--global-gains", "cubic"], "malformed gain"),
    (["--discount", "log:1"], "base"),
    (["--discount", "sqrt"], "expected log:B or jk:B"),
    (["-m", "ndgc"], "did you mean ndcg"),
    (["-m", "ndcg_cut.0,2"], "positive"),
    (["-m", "ndcg_cut.5,5"], "duplicate cutoffs"),
    (["-m", "ndcg_cut.x"], "not a whole number"),
    (["-m", "ndcg_cut."], "not a whole number"),
    (["-m", "ndcg.1=2,,3"], "malformed gain"),
    (["-m", "ndcg.1"], "malformed gain"),
    (["-m", "ndcg.1=abc"], "gain 'abc'"),
    (["-m", "ndcg.1=inf"], "gain 'inf'"),
    (["-m", "binG.3"], "takes no parameters"),
    (["-l", "x"], "-l"),
    (["-M", "-1"], "-M"),
    (["-M", "ten"], "-M"),
    (["-N", "many"], "-N"),
    (["-R", "qrels_jg"], "-R"),
    (["-T", "trec_results_plus"], "-T"),
    (["-D", "1"], "-D"),
    (["-Z", "zfile"], "zfile: cannot read"),
    (["-x"], "-x"),
    (["--compat", "8"], "compat"),
])
def test_bad_options(tmp_path, args, what):
    q, r = write(tmp_path)
    assert_clean_error(run_cli([*args, q, r]), what)


def test_wrong_number_of_files(tmp_path):
    q, _ = write(tmp_path)
    assert_clean_error(run_cli(["-m", "ndcg", q]), "expected a qrels file and a run file")


def test_whitespace_crlf_comments_and_no_final_newline(tmp_path):
    plain = write(tmp_path)
    expected = run_cli(["-q", "-m", "gain", *plain]).stdout
    messy_qrels = b"# judged by hand\r\n1\t0  a\t2\r\n1 0 b 0\r\n#\n1 0 c 1\r\n2 0\ta 1"
    messy_run = b"\n1 Q0 a 1 3.0 tag\r\n  1\tQ0 b 2 2.0 tag extra fields\n\n# c\n1 Q0 c 3 1.0 tag\n2 Q0 a 1 1.5 tag"
    (tmp_path / "m").mkdir()
    messy = write(tmp_path / "m", messy_qrels, messy_run)
    out = run_cli(["-q", "-m", "gain", *messy])
    assert out.rc == 0, out.stderr
    assert out.stdout == expected


def test_gzip_and_stdin(tmp_path):
    q, r = write(tmp_path)
    expected = run_cli(["-m", "ndcg", "-m", "runid", q, r]).stdout
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(RUN))
    assert run_cli(["-m", "ndcg", "-m", "runid", q, str(gz)]).stdout == expected
    assert run_cli(["-m", "ndcg", "-m", "runid", q, "-"], stdin=RUN).stdout == expected
    assert run_cli(["-m", "ndcg", "-m", "runid", q, "-"], stdin=gzip.compress(RUN)).stdout == expected


def test_hash_inside_docno_is_data(tmp_path):
    q, r = write(tmp_path, qrels=b"1 0 doc#1 1\n", run=b"1 Q0 doc#1 1 2.0 t\n")
    assert run_cli(["-m", "ndcg", q, r]).stdout == b"ndcg                  \tall\t1.0000\n"


def test_runs_of_spaces_and_tabs_without_comments(tmp_path):
    """The layout of most hand-edited files: every line complete, any whitespace between fields."""
    plain = write(tmp_path)
    expected = run_cli(["-q", "-m", "gain", *plain]).stdout
    (tmp_path / "w").mkdir()
    spaced = write(tmp_path / "w", b"1\t0  a\t\t2\n 1 0 b 0 \n1 0 c 1\r\n2\t0\ta\t1\n",
                   b"1\tQ0  a 1 3.0\ttag\n  1 Q0 b 2 2.0 tag\t\n1 Q0 c 3 1.0 tag\r\n2 Q0 a 1 1.5 tag\n")
    out = run_cli(["-q", "-m", "gain", *spaced])
    assert out.rc == 0 and out.stdout == expected


def test_control_byte_belongs_to_the_docno(tmp_path):
    """C's isspace does not count \\x01 as a separator: it is part of the docno."""
    q, r = write(tmp_path, qrels=b"1 0 a\x01b 1\n", run=b"1 Q0 a\x01b 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    assert run_cli(["-q", "-m", "num_rel_ret", q, r]).stdout == b"num_rel_ret           \t1\t1\nnum_rel_ret           \tall\t1\n"
