"""`trecgain gdeval` and trecgain.gdeval.evaluate on adversarial input.

Every outcome is either gdeval.pl's output, byte for byte, or one clean error (a
TrecgainError naming the file and line; on the command line: non-zero status, nothing on
stdout, one stderr line `trecgain: ...`).  In particular:

- numbers of any length (a 5,000-digit grade, topic, score or K) are what Perl makes of
  them (a double, inf beyond 1.8e308), or refused by gdeval.py's documented rules (a topic
  beyond 2**64 - 1), never Python's integer-digit limit (sys.set_int_max_str_digits);
- the files are streamed line by line, with the main reader's limits: a NUL byte, or a line
  over 1 MiB, is an error at its line; /dev/zero and gzip bombs are refused under a 512 MiB
  address-space cap, promptly;
- empty files, comments, CRLF, invalid UTF-8, duplicates, missing fields, bad K values.
"""

from __future__ import annotations

import gc
import gzip
import io
import random
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from test_gdeval import Oracle, _files, assert_same_as_perl, oracle  # noqa: F401 - oracle is a fixture
from test_robustness import assert_clean_error, assert_process_clean_error, cli, fuzz_settings, measured
from trecgain import TrecgainError
from trecgain.gdeval import evaluate, perl_number

QRELS = b"1 0 a 1\n1 0 b 2\n2 0 a 3\n"
RUN = b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r\n2 Q0 a 1 1 r\n"
NINES = b"9" * 5000  # beyond Python's 4300-digit int() limit, and inf to Perl
ZEROS = b"0" * 5000
MIB = 1 << 20
MAX_LINE_BYTES = MIB  # the main reader's limit (core/src/read/mod.rs)


def perl_gdeval(oracle: Oracle, qrels: Path, run: Path, k: str) -> subprocess.CompletedProcess:
    """The original gdeval.pl 1.2 (with its amean line), K given as text."""
    return subprocess.run([oracle.perl, str(oracle.script()), str(qrels), str(run), k], capture_output=True)


def ours(qrels: bytes, run: bytes, k: int = 10) -> bytes:
    return evaluate(io.BytesIO(qrels), io.BytesIO(run), k).to_bytes()


def refused(qrels: bytes, run: bytes, k: int = 10) -> TrecgainError:
    with pytest.raises(TrecgainError) as caught:
        evaluate(io.BytesIO(qrels), io.BytesIO(run), k)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300, str(caught.value)[:500]
    return caught.value


# ---------------------------------------------------------------- numbers of any length


HUGE_CASES = [  # (qrels, run): gdeval.pl's output or its error at the same line
    (b"1 0 a " + NINES + b"\n", RUN),  # a grade of inf: above 4, a format error
    (b"1 0 a 1\n1 0 b -" + NINES + b"\n", RUN),  # -inf: accepted and not positive, so ignored
    (b"1 0 a " + ZEROS + b"3\n", RUN),  # grade 3
    (b"1 0 a -" + ZEROS + b"\n1 0 b 1\n", RUN),  # grade -0
    (b"1 0 a " + ZEROS + b"5\n", RUN),  # grade 5: above 4
    (ZEROS + b"1 0 a 1\n", RUN),  # topic 1, spelled otherwise than the run's: not matched
    (ZEROS + b"1 0 a 1\n", ZEROS + b"1 Q0 a 1 1 r\n"),  # topic 1, spelled alike
    (b"wt-" + ZEROS + b"2 0 a 1\n", b"2 Q0 a 1 1 r\n"),
    (b"1 " + ZEROS + b" a 1\n", RUN),  # the second field is 0
    (b"1 " + NINES + b" a 1\n", RUN),  # inf is not 0
    (b"1 -" + NINES + b" a 1\n", RUN),
    (b"1 " + NINES + b".5 a 1\n", RUN),
    (QRELS, b"1 Q0 a 1 1 r\n1 Q0 b 1 " + NINES + b" r\n"),  # score inf ranks first
    (QRELS, b"1 Q0 b 1 1 r\n1 Q0 a 1 -" + NINES + b" r\n"),  # -inf last
    (QRELS, b"1 Q0 a 1 1 r\n1 Q0 b 1 " + ZEROS + b"5 r\n"),  # 5
    (QRELS, b"1 Q0 a 1 2 r\n1 Q0 b 1 " + ZEROS + b"2 r\n"),  # 2: a tie, broken by docno
    (QRELS, b"1 Q0 a 1 1 r\n1 Q0 b 1 -" + ZEROS + b"2 r\n"),
    (QRELS, b"1 Q0 a 1 1 r\n1 Q0 b 1 +" + NINES + b" r\n"),
    (QRELS, b"1 Q0 a 1 1 r\n1 Q0 b 1 " + NINES + b"." + NINES + b" r\n"),
    (QRELS, b"1 Q0 a 1 1 r\n1 Q0 b 1 0." + ZEROS + b"1 r\n"),
    (QRELS, b"1 Q0 a 1 1e" + NINES + b" r\n1 Q0 b 1 1e-" + NINES + b" r\n"),
    (QRELS, b"1 Q0 a 1 " + b"1" * 25 + b" r\n1 Q0 b 1 " + b"1" * 24 + b"2 r\n"),  # two doubles beyond 2**64
    (QRELS, b"1 Q0 a " + NINES + b" 1 r\n"),  # a rank of any length is only checked for digits
]


@pytest.mark.parametrize("qrels, run", HUGE_CASES, ids=range(len(HUGE_CASES)))
def test_huge_numbers_as_gdeval_pl_reads_them(oracle: Oracle, tmp_path: Path, qrels: bytes, run: bytes) -> None:
    assert_same_as_perl(oracle, *_files(tmp_path, qrels, run), 10)


def test_huge_numbers_without_perl() -> None:
    assert "grade 99999999" in refused(b"1 0 a " + NINES + b"\n", RUN).message
    assert "above gdeval.pl's maximum" in refused(b"1 0 a " + NINES + b"\n", RUN).message
    assert refused(b"1 0 a " + ZEROS + b"5\n", RUN).message.startswith("grade 5 is above")
    assert ours(b"1 0 a -" + NINES + b"\n", RUN) == b"runid,topic,ndcg@10,err@10\nr,amean,0.00000,0.0000\n"
    assert ours(b"1 0 a " + ZEROS + b"3\n", RUN) == ours(b"1 0 a 3\n", RUN)
    assert refused(b"1 " + NINES + b" a 1\n", RUN).line == 1
    # a score of inf ranks above 5, -inf below -5; a long 0...05 is 5
    assert ours(QRELS, b"1 Q0 a 1 5 r\n1 Q0 b 1 " + NINES + b" r\n") == ours(QRELS, b"1 Q0 b 1 2 r\n1 Q0 a 1 1 r\n")
    assert ours(QRELS, b"1 Q0 b 1 -5 r\n1 Q0 a 1 -" + NINES + b" r\n") == ours(QRELS, b"1 Q0 b 1 2 r\n1 Q0 a 1 1 r\n")
    assert ours(QRELS, b"1 Q0 a 1 4 r\n1 Q0 b 1 " + ZEROS + b"5 r\n") == ours(QRELS, b"1 Q0 b 1 2 r\n1 Q0 a 1 1 r\n")
    assert perl_number(NINES) == float("inf") and perl_number(b"-" + NINES) == float("-inf")
    assert perl_number(ZEROS + b"7") == 7 and isinstance(perl_number(ZEROS + b"7"), int)
    assert perl_number(b"-" + ZEROS + b"18446744073709551615") == -18446744073709551615.0
    assert perl_number(b"1" * 25) == 1111111111111111111111111.0


@pytest.mark.parametrize("where", ["qrels", "run"])
@pytest.mark.parametrize("spelling", [NINES, b"wt-" + NINES, b"18446744073709551616", b"0" * 30 + b"1" * 21])
def test_topics_beyond_2_64_are_refused_at_their_line(where: str, spelling: bytes) -> None:
    """gdeval.py's rule: Perl compares such topics inexactly.  The message stays short."""
    qrels = QRELS + spelling + b" 0 a 1\n" if where == "qrels" else QRELS
    run = RUN + spelling + b" Q0 a 1 1 r\n" if where == "run" else RUN
    error = refused(qrels, run)
    assert (error.line, "beyond 2**64 - 1" in error.message) == (4, True), str(error)


def test_topics_up_to_2_64_with_leading_zeros() -> None:
    spelled = ZEROS + b"18446744073709551615"
    result = evaluate(io.BytesIO(spelled + b" 0 a 1\n"), io.BytesIO(spelled + b" Q0 a 1 1 r\n"), 5)
    assert result.topics == [spelled] and result.ndcg == [1.0]


def test_perl_number_on_long_text_matches_perl(oracle: Oracle) -> None:
    corpus = [NINES, b"-" + NINES, b"+" + NINES, ZEROS, b"-" + ZEROS, ZEROS + b"1", b"-" + ZEROS + b"42",
              ZEROS + b"18446744073709551615", ZEROS + b"18446744073709551616", b"-" + ZEROS + b"9223372036854775808",
              b"-" + ZEROS + b"9223372036854775809", b"1" * 309, b"1" * 308, b"17976931348623157" + b"0" * 292,
              b"17976931348623159" + b"0" * 292, NINES + b".5", b"0." + ZEROS + b"1", b"." + NINES, b"1e" + NINES,
              b"1e-" + NINES, ZEROS + b"1e" + ZEROS + b"5", NINES + b"x", b"12" + b"3" * 4400 + b"abc"]
    script = 'no warnings; while (<STDIN>) { chomp; printf("%.17g\\n", $_ + 0) }'
    out = subprocess.run([oracle.perl, "-e", script], input=b"\n".join(corpus) + b"\n", capture_output=True,
                         check=True).stdout.split()
    assert len(out) == len(corpus)
    for text, perl_text in zip(corpus, out):
        assert float(perl_number(text)) == float(perl_text), text[:40]


# ---------------------------------------------------------------- K


def test_k_of_any_size_in_the_library() -> None:
    huge = 10**5000
    text = ours(QRELS, RUN, huge)
    header, body = text.split(b"\n", 1)
    assert header == b"runid,topic,ndcg@1" + b"0" * 5000 + b",err@1" + b"0" * 5000
    assert body == ours(QRELS, RUN, 1000).split(b"\n", 1)[1]


@pytest.mark.parametrize("k", ["9" * 5000, "1" + "0" * 100, "123456789" * 100, "18446744073709551617", "3"])
def test_k_of_any_size_on_the_command_line_as_gdeval_pl(oracle: Oracle, tmp_path: Path, k: str) -> None:
    files = _files(tmp_path, QRELS, RUN)
    out = cli(["gdeval", *map(str, files), k])
    perl = perl_gdeval(oracle, *files, k)
    assert perl.returncode == 0, perl.stderr.decode()
    assert (out.rc, out.stdout, out.stderr) == (0, perl.stdout, "")


def test_k_of_any_size_on_the_command_line(tmp_path: Path) -> None:
    files = list(map(str, _files(tmp_path, QRELS, RUN)))
    out = cli(["gdeval", *files, "9" * 100_000])
    assert out.rc == 0 and out.stderr == ""
    assert out.stdout.split(b"\n", 1) == [b"runid,topic,ndcg@%s,err@%s" % (b"9" * 100_000, b"9" * 100_000),
                                          cli(["gdeval", *files, "100"]).stdout.split(b"\n", 1)[1]]


@pytest.mark.parametrize("k", ["0", "-1", "2.5", "abc", "010", "", " 1", "1 ", "1e3", "+1", "0x10",
                               "\u0661", "inf", "nan", "00"])
def test_bad_k_is_one_usage_line(tmp_path: Path, k: str) -> None:
    """gdeval.pl reads these as numbers (0, -1 and 'abc' divide by zero; 2.5 evaluates 2 or 3 ranks);
    trecgain asks for a positive whole number."""
    out = cli(["gdeval", *map(str, _files(tmp_path, QRELS, RUN)), k])
    assert out.rc == 2
    assert_clean_error(out, "usage: trecgain gdeval QRELS RUN K")


@pytest.mark.parametrize("args", [[], ["q"], ["q", "r"], ["q", "r", "1", "2"]])
def test_wrong_argument_count(args: list[str]) -> None:
    assert_clean_error(cli(["gdeval", *args]), "usage")


# ---------------------------------------------------------------- streaming, line limits, NUL


def _padded(line: bytes, length: int) -> bytes:
    """`line` padded with spaces to `length` bytes (gdeval.pl ignores trailing whitespace)."""
    return line + b" " * (length - len(line))


@pytest.mark.parametrize("where", ["qrels", "run"])
@pytest.mark.parametrize("final", [b"\n", b""])
def test_line_of_one_mib_is_read_one_byte_more_is_refused(where: str, final: bytes) -> None:
    def files(length: int, end: bytes = b"") -> tuple[bytes, bytes]:
        if where == "qrels":
            return b"1 0 a 1\n" + _padded(b"1 0 b 2", length) + end + final, RUN
        return QRELS, b"1 Q0 a 1 1 r\n" + _padded(b"1 Q0 b 2 0.5 r", length) + end + final

    assert ours(*files(MAX_LINE_BYTES)) == ours(*files(0))
    error = refused(*files(MAX_LINE_BYTES + 1))
    assert (error.line, error.message) == (2, "line longer than 1048576 bytes")
    # a CR is a byte of its line, as in the main reader
    assert ours(*files(MAX_LINE_BYTES - 1, b"\r")) == ours(*files(0))
    error = refused(*files(MAX_LINE_BYTES, b"\r"))
    assert (error.line, error.message) == (2, "line longer than 1048576 bytes")


def test_line_limit_is_the_main_readers(tmp_path: Path) -> None:
    """The same limit and message as `trecgain -m ...` (core/src/read)."""
    q, r = _files(tmp_path, QRELS, b"1 Q0 a 1 1 r\n" + b"x" * (MAX_LINE_BYTES + 1) + b"\n")
    main = cli(["-m", "P.5", str(q), str(r)])
    ours_ = cli(["gdeval", str(q), str(r), "5"])
    assert assert_clean_error(main, f"{r}:2: line longer than 1048576 bytes")
    assert assert_clean_error(ours_) == f"trecgain: {r}:2: line longer than 1048576 bytes"


@pytest.mark.parametrize("qrels, run, bad, line", [
    (b"1 0 a\x00 1\n", RUN, "qrels", 1),
    (QRELS + b"1 0 \x00\n", RUN, "qrels", 4),  # before the field count
    (b"#\x00 comment\n", RUN, "qrels", 1),  # before the topic check
    (QRELS, RUN + b"1 Q0 b 1 1 r\x00\n", "run", 4),
    (QRELS, RUN + b"\x00", "run", 4),  # no final newline
    (QRELS, b"\x00\n" + RUN, "run", 1),
    (QRELS + b"1 0 " + b"x" * (MAX_LINE_BYTES - 4) + b"\x00\n", RUN, "qrels", 4),  # NUL at byte MAX + 1: NUL
])
def test_nul_byte_is_an_error_at_its_line(tmp_path: Path, qrels: bytes, run: bytes, bad: str, line: int) -> None:
    error = refused(qrels, run)
    assert (error.line, error.message) == (line, "NUL byte in line")
    files = _files(tmp_path, qrels, run)
    assert assert_clean_error(cli(["gdeval", *map(str, files), "10"])) == (
        f"trecgain: {tmp_path / bad}:{line}: NUL byte in line")


def test_nul_beyond_the_first_mib_of_a_long_line_is_a_long_line() -> None:
    error = refused(QRELS + b"1 0 " + b"x" * MAX_LINE_BYTES + b"y\x00\n", RUN)
    assert (error.line, error.message) == (4, "line longer than 1048576 bytes")


def test_earlier_faults_come_first() -> None:
    assert refused(QRELS, b"x Q0 a 1 1 r\n\x00\n").line == 1
    assert refused(QRELS, b"1 Q0 a 1 1 r\n" + b"y" * (2 * MIB) + b"\n\x00\n").line == 2
    assert refused(b"1 0 a 9\n\x00", RUN).message.startswith("grade 9")


def test_open_files_stream_and_close(tmp_path: Path) -> None:
    """A caller's file object is read only as far as needed and left open (even one without peek(),
    which the reader wraps), after an error too."""
    qrels_path, run_path = _files(tmp_path, QRELS, RUN)
    stream = io.BytesIO(b"1 Q0 a 1 1 r\n\x00\n" + b"1 Q0 b 1 1 r\n" * 100_000)
    with pytest.raises(TrecgainError):
        evaluate(qrels_path, stream, 10)
    gc.collect()
    assert not stream.closed and stream.tell() < 100_000
    for data in (RUN, gzip.compress(RUN)):  # a stream without peek(), plain and gzip: left open
        stream = io.BytesIO(data)
        assert evaluate(qrels_path, stream, 10).topics == [b"1", b"2"]
        gc.collect()
        assert not stream.closed
    with open(run_path, "rb") as run:
        assert evaluate(qrels_path, run, 10).topics == [b"1", b"2"]
        assert not run.closed


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "trailing", "empty-member", "header-only"])
def test_damaged_gzip_is_a_clean_error(tmp_path: Path, damage: str) -> None:
    packed = gzip.compress(RUN * 200)
    data = {"truncated": packed[:-20], "corrupt": packed[:10] + b"\xff" * 40 + packed[50:],
            "trailing": packed + b"garbage", "empty-member": packed + gzip.compress(b""),
            "header-only": packed[:10]}[damage]
    files = _files(tmp_path, QRELS, data)
    out = cli(["gdeval", *map(str, files), "10"])
    if damage == "empty-member":  # a valid gzip
        assert out.rc == 0 and out.stdout == ours(QRELS, RUN * 200)
        return
    assert_clean_error(out, f"{files[1]}", "cannot read")


# The subprocess tests: a real `trecgain gdeval` under a 512 MiB address-space cap.

LIMIT_MIB = 512


def _bomb(path: Path, head: bytes, body: bytes, size: int) -> int:
    """Write a small gzip file that expands to `head`, then `body` repeated to about `size` bytes
    (one compressed 16 MiB chunk written again and again: concatenated gzip members); return how
    many times `body` is repeated."""
    repeat = max(1, (16 * MIB) // len(body))
    member = gzip.compress(body * repeat, compresslevel=9)
    members = max(1, size // (len(body) * repeat))
    with open(path, "wb") as out:
        out.write(gzip.compress(head))
        for _ in range(members):
            out.write(member)
    assert path.stat().st_size < 20 * MIB
    return members * repeat


def _capped(tmp_path: Path, qrels: Path | str, run: Path | str) -> dict:
    try:
        result = measured(tmp_path, ["gdeval", qrels, run, "10"], limit_mib=LIMIT_MIB, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("trecgain gdeval kept reading for 60 s")
    assert "Traceback" not in result["stderr"] and "MemoryError" not in result["stderr"], result["stderr"][-2000:]
    return result


@pytest.mark.parametrize("where", ["qrels", "run"])
def test_dev_zero(tmp_path: Path, where: str) -> None:
    qrels, run = _files(tmp_path, QRELS, RUN)
    result = _capped(tmp_path, "/dev/zero" if where == "qrels" else qrels, "/dev/zero" if where == "run" else run)
    assert_process_clean_error(result, "/dev/zero:1: NUL byte in line")
    assert result["seconds"] < 10 and result["maxrss_mib"] < 200, result


@pytest.mark.parametrize("where", ["qrels", "run"])
@pytest.mark.parametrize("body", [b"1", b" ", b"\r"], ids=["digits", "spaces", "CRs"])
def test_gzip_bomb_of_one_endless_line(tmp_path: Path, where: str, body: bytes) -> None:
    """1 GiB of one line (2 MB packed), after a valid line: refused at line 2 without reading it whole."""
    qrels, run = _files(tmp_path, QRELS, RUN)
    head = b"1 0 a 1\n" if where == "qrels" else b"1 Q0 a 1 1 r\n"
    bomb = tmp_path / "bomb.gz"
    _bomb(bomb, head, body, 1 << 30)
    result = _capped(tmp_path, bomb if where == "qrels" else qrels, bomb if where == "run" else run)
    assert_process_clean_error(result, f"{bomb}:2: line longer than 1048576 bytes")
    assert result["seconds"] < 10 and result["maxrss_mib"] < 200, result


@pytest.mark.parametrize("where", ["qrels", "run"])
def test_gzip_bomb_of_many_lines_then_a_fault(tmp_path: Path, where: str) -> None:
    """800 MiB of 1 KB lines that gdeval keeps nothing of (grade 0; a topic without judgments), then a
    NUL: the lines are read one at a time, the error names the last line, memory stays small."""
    qrels, run = _files(tmp_path, QRELS, RUN)
    pad = b"d" * 1000
    line = b"1 0 %s 0\n" % pad if where == "qrels" else b"7 Q0 %s 1 1 r\n" % pad
    bomb = tmp_path / "bomb.gz"
    lines = _bomb(bomb, b"", line, 800 * MIB) + 1
    with open(bomb, "ab") as out:
        out.write(gzip.compress(b"1 Q0 a\x00 1\n"))
    result = _capped(tmp_path, bomb if where == "qrels" else qrels, bomb if where == "run" else run)
    assert_process_clean_error(result, f"{bomb}:{lines}: NUL byte in line")
    assert result["maxrss_mib"] < 200, result


@pytest.mark.parametrize("k", ["10", "1000"])
def test_run_memory_is_proportional_to_its_judged_lines(tmp_path: Path, k: str) -> None:
    """A 70 MB run of 1,000 topics, 100 of them judged: the lines of the other 900 are checked and
    dropped, and of a judged topic's lines only the first k are kept (the old reader kept the
    file, its lines and their fields: several times its size)."""
    qrels = b"".join(b"%d 0 d%d %d\n" % (t, d, d // 10 % 5) for t in range(1, 101) for d in range(0, 1000, 10))
    pad = b" " * 40
    run = b"".join(b"%d Q0 d%d %d %d.%04d run-with-a-name%s\n" % (t, d, d, d, t, pad)
                   for t in range(1, 1001) for d in range(1000))  # topics 101..1000 are not judged
    qrels_path, run_path = _files(tmp_path, qrels, run)
    result = measured(tmp_path, ["gdeval", qrels_path, run_path, k], limit_mib=LIMIT_MIB, timeout=120)
    assert result["status"] == 0, result["stderr"][-2000:]
    assert result["stdout"] == evaluate(qrels_path, run_path, int(k)).to_bytes()
    assert result["stdout"].count(b"\n") == 102
    assert result["maxrss_mib"] < 150, result


# ---------------------------------------------------------------- other adversarial input


OTHER_CASES = [
    (b"", b""),  # empty files: the header and the original's zero line
    (b"", RUN),
    (QRELS, b""),
    (QRELS.replace(b"\n", b"\r\n"), RUN.replace(b"\n", b"\r\n")),  # CRLF
    (QRELS.rstrip(b"\n"), RUN.rstrip(b"\n")),  # no final newline
    (QRELS + QRELS, RUN + RUN),  # every line twice
    (QRELS + b"1 0 a 1\n", RUN + b"1 Q0 a 1 1 r\n"),
    (b"1 0 \xff\xfe 1\n1 0 a\x80 2\n", b"1 Q0 \xff\xfe 1 1 r\xc3\n1 Q0 a\x80 1 2 r\xc3\n"),  # invalid UTF-8
    (b"\xff-1 0 a 1\n", b"\xe9-1 Q0 a 1 1 \xff\n"),  # invalid UTF-8 topic prefixes
    (b"# comment\n" + QRELS, RUN),
    (QRELS, b"# comment\n" + RUN),
    (QRELS, RUN + b"\n"),  # a blank line
    (QRELS, RUN + b"\r\n"),
    (QRELS + b" \n", RUN),
    (b"1\n", RUN), (b"1 0\n", RUN), (b"1 0 a\n", RUN),  # missing fields
    (QRELS, b"1\n"), (QRELS, b"1 Q0\n"), (QRELS, b"1 Q0 a\n"), (QRELS, b"1 Q0 a 1\n"), (QRELS, b"1 Q0 a 1 1\n"),
    (QRELS, b"1 Q0 a 1 1 r extra fields\n"),
    (b"1 0 a 1 extra\n", RUN),
    (b"-1 0 a 1\n", RUN), (b"1- 0 a 1\n", RUN), (b"- 0 a 1\n", RUN),
    (b"1\x0b0\x0ca\t1\n", b"1\x0bQ0\x0ca\t1\x0b1\x0cr\n"),  # vertical tab and form feed separate fields
    (b"1 0 a 1\r1 0 b 1\n", RUN),  # a lone CR is deleted: '11' is one grade
    (QRELS, b"1 Q0 a 1 1 r\r2 Q0 a 1 1 r\n"),
]


@pytest.mark.parametrize("qrels, run", OTHER_CASES, ids=range(len(OTHER_CASES)))
def test_other_input_as_gdeval_pl(oracle: Oracle, tmp_path: Path, qrels: bytes, run: bytes) -> None:
    assert_same_as_perl(oracle, *_files(tmp_path, qrels, run), 10)
    _same_on_the_command_line(oracle, tmp_path, "10")


def _same_on_the_command_line(oracle: Oracle, tmp_path: Path, k: str) -> None:
    """`trecgain gdeval`: gdeval.pl's stdout when it succeeds and trecgain does; else one clean line."""
    files = (tmp_path / "qrels", tmp_path / "run")
    out = cli(["gdeval", *map(str, files), k])
    if out.rc == 0:
        perl = perl_gdeval(oracle, *files, k)
        assert (perl.returncode, out.stdout, out.stderr) == (0, perl.stdout, "")
    else:
        assert out.rc == 1
        assert_clean_error(out, f"{tmp_path}")


@pytest.mark.parametrize("qrels, run, fragment", [
    ("missing", "run", "missing: cannot read"),
    ("dir", "run", "dir: cannot read"),
    ("qrels", "dir", "dir: cannot read"),
    ("-", "-", "standard input ('-') can be read as qrels or as run, not both"),
])
def test_unreadable_files(tmp_path: Path, qrels: str, run: str, fragment: str) -> None:
    _files(tmp_path, QRELS, RUN)
    (tmp_path / "dir").mkdir()
    paths = [name if name == "-" else str(tmp_path / name) for name in (qrels, run)]
    assert_clean_error(cli(["gdeval", *paths, "10"]), fragment)


def test_standard_input(tmp_path: Path) -> None:
    qrels, _ = _files(tmp_path, QRELS, RUN)
    assert cli(["gdeval", str(qrels), "-", "10"], stdin=gzip.compress(RUN)).stdout == ours(QRELS, RUN)
    assert_clean_error(cli(["gdeval", str(qrels), "-", "10"], stdin=b"\x00"), "(standard input):1: NUL byte in line")


def test_long_fields_are_shortened_in_messages() -> None:
    """A field of 900 KB is not echoed whole: the message stays one short line."""
    long = 900_000
    for qrels, run in [(b"x" * long + b" 0 a 1\n", RUN), (b"1 1" + b"x" * long + b" a 1\n", RUN),
                       (b"1 0 a " + b"7" * long + b"\n", RUN), (b"1 0 a 1." + b"5" * long + b"\n", RUN),
                       (b"9" * long + b" 0 a 1\n", RUN), (QRELS, b"1 Q0 a 1 nan" + b"x" * long + b" r\n"),
                       (QRELS, RUN + b"1 Q0 a 1 1 %" + b"s" * long)]:
        assert "... (9000" in refused(qrels, run).message  # refused() checks that it is short


# Arbitrary bytes against gdeval.pl: trecgain's output is gdeval.pl's, or a clean error.

TOKENS = [b"1", b"2", b"0", b"Q0", b"a", b"b", b"3", b"4", b"5", b"-1", b"1.5", b"x", b"nan", b"inf", b"wt-1",
          b"01", b"%", b"\xff", b"\x00", NINES, ZEROS, b"#", b"-", b"1e400"]
SEPARATORS = [b" ", b" ", b" ", b"\t", b"\n", b"\n", b"\r\n", b"\r", b"\x0b"]
near_gdeval = st.lists(st.sampled_from(TOKENS + SEPARATORS), max_size=30).map(b"".join)
QRELS_LINES = st.lists(st.tuples(st.sampled_from([b"1", b"2", b"01"]), st.sampled_from([b"a", b"b", b"c"]),
                                 st.sampled_from([b"0", b"1", b"2", b"4", b"-1"])), max_size=6).map(
    lambda rows: b"".join(b"%s 0 %s %s\n" % row for row in rows))
RUN_LINES = st.lists(st.tuples(st.sampled_from([b"1", b"2", b"01"]), st.sampled_from([b"a", b"b", b"c"]),
                               st.sampled_from([b"1", b"2", b"0.5", NINES, b"-" + NINES])), max_size=8).map(
    lambda rows: b"".join(b"%s Q0 %s 1 %s r\n" % row for row in rows))
DEVIATIONS = ("NUL byte", "beyond 2**64 - 1", "NaN", "'%'", "divides by zero", "2**53")


@fuzz_settings(150)
@given(qrels=st.one_of(QRELS_LINES, near_gdeval), run=st.one_of(RUN_LINES, near_gdeval),
       k=st.sampled_from(["1", "3", "10", "9" * 400]))
def test_fuzz_against_gdeval_pl(oracle: Oracle, tmp_path: Path, qrels: bytes, run: bytes, k: str) -> None:
    files = _files(tmp_path, qrels, run)
    out = cli(["gdeval", *map(str, files), k])
    perl = perl_gdeval(oracle, *files, k)
    if out.rc == 0:
        assert (perl.returncode, out.stdout, out.stderr) == (0, perl.stdout, ""), perl.stderr.decode()
        return
    line = assert_clean_error(out)
    if any(reason in line for reason in DEVIATIONS):
        return
    assert perl.returncode != 0, (line, perl.stdout)
    where = re.search(rb'format error on line (\d+) of "(.*)"', perl.stderr)
    if where:
        assert line.startswith(f"trecgain: {where[2].decode()}:{int(where[1])}: "), (line, perl.stderr)
    else:
        assert b"Illegal division by zero" in perl.stderr, perl.stderr


def test_deep_rankings_with_ties_as_gdeval_pl(oracle: Oracle, tmp_path: Path) -> None:
    """Topics of 700 rows, many tied scores and repeated docnos, some lines spelled '07': gdeval
    keeps only each topic's first k rows (ranking and cutting as it reads), with gdeval.pl's ties."""
    rng = random.Random(42)
    qrels, run = [], []
    for topic in (3, 7, 12):
        docs = [f"d{j}" for j in range(60)]
        for doc in rng.sample(docs, 40):
            qrels.append(f"{topic} 0 {doc} {rng.choice([0, 1, 2, 3, 4, -1])}")
        for i in range(700):
            spelled = f"wt-{topic}" if rng.random() < 0.1 else str(topic)
            score = rng.choice(["1", "2", "0.5", "1.0", "3", "-1", "2e0", str(700 - i)])
            run.append(f"{spelled} Q0 {rng.choice(docs)} {i} {score} deep")
    rng.shuffle(run)
    files = _files(tmp_path, "\n".join(qrels).encode() + b"\n", "\n".join(run).encode() + b"\n")
    for k in (1, 2, 5, 10, 20, 100, 300, 1000):
        assert_same_as_perl(oracle, *files, k)


class _OnlyRead:
    """A file object with nothing but read(n), which the main reader accepts."""

    def __init__(self, data: bytes | str | Exception | int, name: str | None = None) -> None:
        self.data = data
        if name:
            self.name = name

    def read(self, n: int = -1) -> object:
        if isinstance(self.data, Exception):
            raise self.data
        data = self.data
        self.data = data[:0] if isinstance(data, (bytes, str)) else data
        return data  # all at once, whatever n asks for


def test_objects_with_only_read() -> None:
    assert evaluate(_OnlyRead(QRELS), _OnlyRead(RUN), 10).to_bytes() == ours(QRELS, RUN)
    assert evaluate(_OnlyRead(QRELS), _OnlyRead(gzip.compress(RUN)), 10).to_bytes() == ours(QRELS, RUN)
    assert evaluate(_OnlyRead(QRELS.decode()), _OnlyRead(RUN.decode()), 10).to_bytes() == ours(QRELS, RUN)
    for bad, fragment in [(ValueError("I/O operation on closed file."), "closed file"), (5, "returned int"),
                          (RUN + b"\x00", ":4: NUL byte in line")]:
        with pytest.raises(TrecgainError) as caught:
            evaluate(_OnlyRead(QRELS), _OnlyRead(bad, "named"), 10)
        assert str(caught.value).startswith("named") and fragment in str(caught.value), str(caught.value)
