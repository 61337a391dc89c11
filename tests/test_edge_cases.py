"""Edge cases of the command line: its arithmetic, input edge cases, long lines and streams,
each a result equal to trec_eval's or one clean line.
(The Python API's probes are in test_api_robustness.py, gdeval's in test_gdeval_robustness.py,
-j in test_jobs.py, out of memory in test_resources.py.)"""

from __future__ import annotations

import bz2
import gzip
import lzma
import subprocess

import pytest

from conftest import ROOT
from test_robustness import assert_clean_error, cli, process_env, trecgain_argv, write_pair

QRELS = b"1 0 a 1\n1 0 b 2\n1 0 c 3\n"
RUN = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n"


# ---------------------------------------------------------------- arithmetic


@pytest.mark.parametrize("args, fragment", [
    (["-m", "ndcg.1=1e308,2=1e308"], "gains are at most 1e300"),
    (["--global-gains", "1=1e308,2=1e308", "-m", "ndcg"], "gains are at most 1e300"),
    (["-m", "nDCG(gains={1: 1e308, 2: 1e308})@10"], "gains are at most 1e300"),
    (["-m", "nDCG(gains={1: " + "9" * 401 + "})@10"], "is not a finite number"),
    (["-m", "ndcg.3=3000000000"], "2^31 or more apart"),
    (["-m", "G.3=-3000000000"], "2^31 or more apart"),
])
def test_gains_that_overflow_or_break_the_comparator_are_refused(tmp_path, args, fragment):
    q, r = write_pair(tmp_path, QRELS, RUN)
    assert_clean_error(cli([*args, q, r]), fragment)


@pytest.mark.parametrize("measure", ["ndcg_p", "G", "cg_cut.2", "ndcg"])
def test_exponential_grade_1023_three_times_is_refused(tmp_path, measure):
    """Sums of 2^1023 - 1 overflow (ndcg_p 0.0000, G -nan, cg_cut inf before): refused; 996 is the top."""
    q, r = write_pair(tmp_path, b"1 0 a 1023\n1 0 b 1023\n1 0 c 1023\n", RUN)
    assert_clean_error(cli(["--global-gains", "exp", "-m", measure, q, r]), "above grade 996")
    out = cli(["--global-gains", "exp", "-m", measure, q, r])
    assert out.stderr.startswith(f"trecgain: {q}:1: grade 1023 ") and "document 'a' of query '1'" in out.stderr
    q, r = write_pair(tmp_path / "ok", b"1 0 a 996\n1 0 b 996\n1 0 c 996\n", RUN)
    out = cli(["--global-gains", "exp", "-m", measure, q, r])
    assert out.rc == 0 and b"nan" not in out.stdout and b"inf" not in out.stdout, out.stdout


def test_a_fractional_grade_of_1_5e308_is_refused(tmp_path):
    q, r = write_pair(tmp_path, b"1 0 a 1.5e308\n1 0 b 1\n", RUN)
    assert_clean_error(cli(["--fractional-grades", "-m", "ndcg", q, r]), "too large to be a gain")
    assert cli(["--fractional-grades", "-m", "ndcg", q, r]).stderr.startswith(f"trecgain: {q}:1: grade ")


def test_a_too_large_grade_names_its_row_or_document_in_memory():
    """The gain rule refuses the grade while measuring; the error still names where it was given
    (the fuzz finding of a 1e307 grade in tuples form)."""
    import trecgain
    rows = [("1", "a", 1e307), ("1", "b", 1.0)]
    shapes = {"rows": (rows, "qrels list", 1), "dict": ({"1": {"a": 1e307, "b": 1.0}}, "qrels", None)}
    for qrels, source, line in shapes.values():
        with pytest.raises(trecgain.TrecgainError, match="too large to be a gain") as caught:
            trecgain.Evaluator(qrels, measures=["ndcg"], fractional_grades=True).evaluate([("1", "a", 1.0)])
        assert (caught.value.source, caught.value.line) == (source, line), str(caught.value)
        assert "document 'a' of query '1'" in str(caught.value)


def test_the_comparator_limit_is_lifted_by_exact_ideal(tmp_path):
    q, r = write_pair(tmp_path, QRELS, RUN)
    out = cli(["--exact-ideal", "-m", "ndcg.3=3000000000", q, r])
    value = float(out.stdout.split(b"\t")[-1])
    ideal = 3e9 + 2 / 1.584962500721156 + 1 / 2
    dcg = 1 + 2 / 1.584962500721156 + 3e9 / 2
    assert out.rc == 0 and abs(value - dcg / ideal) < 1e-4


# ---------------------------------------------------------------- input edge cases


def test_a_byte_order_mark_is_skipped(tmp_path):
    plain = cli(["-m", "ndcg", *write_pair(tmp_path / "plain", QRELS, RUN)])
    marked = cli(["-m", "ndcg", *write_pair(tmp_path / "bom", b"\xef\xbb\xbf" + QRELS, b"\xef\xbb\xbf" + RUN)])
    assert plain.rc == marked.rc == 0 and plain.stdout == marked.stdout


@pytest.mark.parametrize("compress, name", [(bz2.compress, "bzip2"), (lzma.compress, "xz"),
                                            (lambda b: b"\x28\xb5\x2f\xfd" + b, "zstd"),
                                            (lambda b: b"PK\x03\x04" + b, "zip")])
def test_other_compressed_files_are_named(tmp_path, compress, name):
    q, r = write_pair(tmp_path, QRELS, compress(RUN))
    assert_clean_error(cli(["-m", "ndcg", q, r]), f"{r}: the file is {name}-compressed")
    q, r = write_pair(tmp_path / "q", compress(QRELS), RUN)
    assert_clean_error(cli(["-m", "ndcg", q, r]), f"{q}: the file is {name}-compressed")


def test_gzip_still_reads(tmp_path):
    plain = cli(["-m", "ndcg", *write_pair(tmp_path / "plain", QRELS, RUN)])
    packed = cli(["-m", "ndcg", *write_pair(tmp_path / "gz", gzip.compress(QRELS), gzip.compress(RUN))])
    assert plain.stdout == packed.stdout


def test_a_long_run_tag_is_refused_at_its_line(tmp_path):
    q, r = write_pair(tmp_path, QRELS, RUN + b"1 Q0 d 4 0 " + b"T" * 5000 + b"\n")
    assert_clean_error(cli(["-m", "runid", q, r]), f"{r}:4:", "run tag of 5000 bytes")


def test_duplicates_as_the_readme_says(tmp_path):
    """Within the evaluated ranks: an error; for a query the qrels lack, or beyond -M: accepted,
    as trec_eval does (corpus case r0213)."""
    q, r = write_pair(tmp_path, QRELS, RUN + b"1 Q0 a 4 0 t\n")
    assert_clean_error(cli(["-m", "ndcg", q, r]), f"{r}:4:", "retrieved twice")
    assert cli(["-M", "3", "-m", "ndcg", q, r]).rc == 0
    q, r = write_pair(tmp_path / "other", QRELS, RUN + b"2 Q0 z 1 1 t\n2 Q0 z 2 0 t\n")
    assert cli(["-m", "ndcg", q, r]).rc == 0


@pytest.mark.parametrize("size", [2 << 20, 3 << 20, 7 << 20])
@pytest.mark.parametrize("where", ["run-tag", "run-extra", "qrels-iter"])
def test_lines_over_a_mebibyte_followed_by_a_newline(tmp_path, size, where):
    """The 1 MiB line limit holds however the line ends up in the read buffer."""
    field = b"x" * size
    if where == "run-tag":
        qrels, run = QRELS, RUN + b"1 Q0 d 4 0 " + field + b"\n1 Q0 e 5 0 t\n"
    elif where == "run-extra":
        qrels, run = QRELS, RUN + b"1 Q0 d 4 0 t " + field + b"\n1 Q0 e 5 0 t\n"
    else:
        qrels, run = QRELS + b"1 " + field + b" d 1\n1 0 e 1\n", RUN
    q, r = write_pair(tmp_path, qrels, run)
    where_file = q if where == "qrels-iter" else r
    assert_clean_error(cli(["-m", "ndcg", q, r]), f"{where_file}:4:", "line longer than 1048576 bytes")


# ---------------------------------------------------------------- streams


LONE_CR_RUN = b"1 Q0 a 1 3 t\r1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n"  # a warning is due


@pytest.mark.parametrize("stderr", ["closed", "full"])
def test_results_do_not_depend_on_stderr(tmp_path, stderr):
    q, r = write_pair(tmp_path, QRELS, LONE_CR_RUN)
    argv = trecgain_argv("-m", "ndcg", q, r)
    want = subprocess.run(argv, capture_output=True, cwd=ROOT, env=process_env())
    assert want.returncode == 0 and b"warning" in want.stderr
    if stderr == "closed":
        got = subprocess.run(argv, stdout=subprocess.PIPE, cwd=ROOT, env=process_env(),
                             preexec_fn=lambda: __import__("os").close(2))
    else:
        with open("/dev/full", "wb") as full:
            got = subprocess.run(argv, stdout=subprocess.PIPE, stderr=full, cwd=ROOT, env=process_env())
    assert got.returncode == 0 and got.stdout == want.stdout


def test_control_characters_in_a_warning_are_escaped(tmp_path):
    folder = tmp_path / "x"
    folder.mkdir()
    q = folder / "qrels.txt"
    q.write_bytes(QRELS)
    r = folder / "run\nwith\x1b[31mescape"
    r.write_bytes(LONE_CR_RUN)
    out = cli(["-m", "ndcg", str(q), str(r)])
    assert out.rc == 0
    lines = out.stderr.split("\n")[:-1]
    assert len(lines) == 1 and lines[0].startswith("trecgain: warning: ")
    assert "run\\nwith\\x1b[31mescape" in lines[0] and "\x1b" not in out.stderr


def test_rbp_scales_grades_past_2_to_the_53():
    """Fractional grades past 2^53 name no level: rbp scales by the judged grades' gains (the
    largest maps to 1), without building a table of levels."""
    from trecgain import Evaluator

    result = Evaluator({"q": {"a": 1e20, "b": 1}}, ["rbp"], fractional_grades=True).evaluate({"q": {"a": 1.0, "b": 2.0}})
    assert abs(result.aggregate["rbp"] - 0.1 * 0.9) < 1e-15  # b (gain 0 once scaled) first, a (gain 1) second
