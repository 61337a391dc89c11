"""Robustness: trecgain in shell pipelines and CI jobs.

Never a plausible number for broken input, never a traceback, never out of memory on a file
that is merely large or strange:

- fuzzing the qrels and run readers and the measure-string parser (in-process, fast): every
  outcome is either a clean error (non-zero status, one stderr line `trecgain: FILE:LINE: ...`,
  nothing on stdout) or exactly what the cleaned input gives;
- resource bounds on generated files, measured on real processes (peak RSS from os.wait4,
  address space capped with RLIMIT_AS);
- pipes and signals: `| head -1`, Ctrl-C, a full disk, a closed stdout;
- order independence and determinism across processes;
- identifiers are bytes compared as strcmp compares them, and written back unchanged.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import ROOT, Outcome, run_cli

QRELS = b"1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 a 1\n"
RUN = b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n1 Q0 c 3 1.0 tag\n2 Q0 a 1 1.5 tag\n"
WHITESPACE = b" \t\n\v\f\r"  # C's isspace
GZIP_MAGIC = b"\x1f\x8b"


def fuzz_settings(examples: int, shrink: bool = True) -> settings:
    """Deterministic hypothesis settings; files are rewritten in tmp_path for every example.

    Without `shrink` a failure is reported as first found (keeps a failing run short)."""
    phases = tuple(Phase) if shrink else (Phase.explicit, Phase.reuse, Phase.generate)
    return settings(derandomize=True, database=None, deadline=None, max_examples=examples, phases=phases,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.data_too_large, HealthCheck.filter_too_much])


# ---------------------------------------------------------------- helpers


def cli(args: list[str], stdin: bytes = b"") -> Outcome:
    """run_cli, turning an exception that escapes trecgain's main() into a test failure that says so."""
    try:
        return run_cli([str(a) for a in args], stdin)
    except (Exception, SystemExit) as err:  # noqa: BLE001 - that is the point
        raise AssertionError(f"an exception escaped trecgain's main(): {type(err).__name__}: {err}") from err


def write_pair(folder: Path, qrels: bytes, run: bytes) -> tuple[str, str]:
    """qrels.txt and run.txt in `folder` (created), as absolute path strings."""
    folder.mkdir(parents=True, exist_ok=True)
    q, r = folder / "qrels.txt", folder / "run.txt"
    q.write_bytes(qrels)
    r.write_bytes(run)
    return str(q), str(r)


def stderr_lines(out: Outcome) -> list[str]:
    """stderr split on '\\n' only (a docno may hold U+2028, which str.splitlines would split)."""
    assert out.stderr.endswith("\n") or out.stderr == "", repr(out.stderr[-200:])
    return out.stderr.split("\n")[:-1]


def assert_clean_error(out: Outcome, *fragments: str) -> str:
    """Non-zero status, nothing on stdout, exactly one stderr line `trecgain: ...` holding every fragment."""
    assert out.rc != 0, f"expected an error, got status 0 and {out.stdout[:300]!r}"
    assert out.stdout == b"", f"an error printed results: {out.stdout[:300]!r}"
    assert "Traceback" not in out.stderr, out.stderr[-2000:]
    lines = stderr_lines(out)
    assert len(lines) == 1, f"expected one stderr line, got {len(lines)}: {out.stderr[:500]!r}"
    assert lines[0].startswith("trecgain: "), lines[0][:300]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0][:500])
    return lines[0]


def assert_sane(out: Outcome) -> None:
    """Either results (status 0, something on stdout, only warnings and notes on stderr) or a clean error."""
    assert "Traceback" not in out.stderr, out.stderr[-2000:]
    if out.rc == 0:
        assert out.stdout, "status 0 but nothing printed"
        for line in stderr_lines(out):
            assert line.startswith(("trecgain: warning: ", "trecgain: note: ")), line[:300]
    else:
        assert_clean_error(out)


_VALUE = re.compile(rb"^(-?\d+\.\d{4}|-?\d+| *-?nan| *-?inf|'[^']*')$")  # relstring: its characters quoted


def assert_well_formed(stdout: bytes, qids: set[bytes], tag: bytes = b"tag") -> None:
    """Every output line is `name<TAB>qid-or-all<TAB>value` with a known qid and a number (or the tag)."""
    assert stdout.endswith(b"\n"), stdout[-200:]
    for line in stdout.split(b"\n")[:-1]:
        parts = line.rsplit(b"\t", 2)
        assert len(parts) == 3 and parts[0].strip(), f"malformed output line {line[:300]!r}"
        assert parts[1] in qids | {b"all"}, f"output line {line[:300]!r}: '{parts[1][:100]!r}' is no query"
        assert _VALUE.match(parts[2]) or parts[2] == tag, f"output line {line[:300]!r}: bad value"


def canonical(data: bytes) -> bytes:
    """The cleaned form of a file, line for line: fields single-spaced, comment lines as they are.

    Line numbers are kept (a blank line stays blank), so evaluating the cleaned file must give the
    same results, or the same error at the same line, as the original."""
    out = []
    for line in data.split(b"\n"):
        if line.startswith(b"#"):
            out.append(line)
            continue
        text = b" ".join(line.split())  # bytes.split() splits on exactly C's isspace set
        if text.startswith(b"#"):
            text = b" " + text  # a data line stays a data line
        out.append(text or line[:1])  # a blank last line without a newline stays a line
    return b"\n".join(out)


def same_outcome(a: Outcome, a_dir: Path, b: Outcome, b_dir: Path) -> None:
    """Two evaluations of equivalent files in two folders: same status, stdout and stderr (but
    its notes: whether ties decided a value, for one, depends on how the files are written)."""
    a_err = _without_notes(a.stderr.replace(str(a_dir), "DIR"))
    b_err = _without_notes(b.stderr.replace(str(b_dir), "DIR"))
    assert (a.rc, a_err) == (b.rc, b_err), ((a.rc, a_err[:500]), (b.rc, b_err[:500]))
    assert a.stdout == b.stdout


def _without_notes(stderr: str) -> str:
    return "".join(line for line in stderr.splitlines(keepends=True) if not line.startswith("trecgain: note: "))


def process_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def trecgain_argv(*args: object) -> list[str]:
    return [sys.executable, "-m", "trecgain", *map(str, args)]


# A small process that runs trecgain under an address-space cap and reports its peak RSS.  It is
# needed because Linux carries a process's peak RSS across exec: a trecgain spawned straight from
# the (large) pytest process would report pytest's size.
_MEASURE = r"""
import json, os, resource, subprocess, sys, time
spec = json.loads(sys.argv[1])
if spec["limit"]:
    resource.setrlimit(resource.RLIMIT_AS, (spec["limit"], spec["limit"]))
start = time.monotonic()
with open(spec["stdout"], "wb") as out:
    proc = subprocess.Popen(spec["argv"], stdout=out, stderr=subprocess.PIPE, cwd=spec["cwd"])
    try:
        err = proc.stderr.read()
    finally:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
print(json.dumps({"status": proc.returncode, "maxrss_mib": usage.ru_maxrss / 1024,
                  "seconds": time.monotonic() - start, "stderr": err.decode("utf-8", "replace")}))
"""


def measured(tmp_path: Path, args: list[object], limit_mib: int | None = None, timeout: float = 120) -> dict:
    """Run trecgain as a process (optionally under RLIMIT_AS): status, peak RSS, seconds, stderr, stdout."""
    out_file = tmp_path / f"stdout-{time.monotonic_ns()}"
    spec = {"argv": trecgain_argv(*args), "cwd": str(ROOT), "stdout": str(out_file),
            "limit": (limit_mib << 20) if limit_mib else 0}
    done = subprocess.run([sys.executable, "-c", _MEASURE, json.dumps(spec)], capture_output=True,
                          env=process_env(), timeout=timeout)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    result = json.loads(done.stdout)
    result["stdout"] = out_file.read_bytes()
    out_file.unlink()
    return result


def assert_process_clean_error(result: dict, *fragments: str) -> None:
    assert_clean_error(Outcome(result["status"], result["stdout"], result["stderr"]), *fragments)


# ---------------------------------------------------------------- generated collections

QIDS = [b"1", b"2", b"10", b"9", b"01", b"q\xc3\xa9", b"\xe4\xb8\xad", b"q\xff", b"\x80"]
DOCNOS = [b"d1", b"d2", b"d10", b"D1", b"doc-\xc3\xa9", b"\xe4\xb8\xad\xe6\x96\x87", b"a#b", b"\xff\xfe", b"d\x80",
          b"z", b"0"]
SCORES = [b"1", b"1.0", b"0.5", b"-2", b"3e-1", b"1e2", b"0", b"-0.25", b"7"]
GRADES = [-1, 0, 0, 1, 2, 3]


@st.composite
def collections(draw, max_queries: int = 4) -> tuple[list[bytes], list[bytes]]:
    """A valid (qrels lines, run lines) pair: several queries, ties within and across queries,
    numeric and non-ASCII ids (valid and invalid UTF-8), maybe a run query the qrels lack."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=max_queries, unique=True))
    qrels, run = [], []
    for i, qid in enumerate(qids):
        for docno in draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=6, unique=True)):
            qrels.append(b"%s 0 %s %d" % (qid, docno, draw(st.sampled_from(GRADES))))
        retrieved = draw(st.lists(st.sampled_from(DOCNOS), min_size=0 if i else 1, max_size=8, unique=True))
        for rank, docno in enumerate(retrieved, 1):
            run.append(b"%s Q0 %s %d %s tag" % (qid, docno, rank, draw(st.sampled_from(SCORES))))
    if draw(st.booleans()):
        run += [b"stray Q0 %s 1 1 tag" % d for d in draw(st.lists(st.sampled_from(DOCNOS), max_size=2, unique=True))]
    return qrels, run


def joined(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


# ---------------------------------------------------------------- 1a. arbitrary bytes


FUZZ_TOKENS = [b"1", b"2", b"a", b"b", b"c", b"Q0", b"0", b"3", b"-1", b"2.5", b"1e3", b"inf", b"nan", b"0x1p3",
               b"1e999", b"-", b"+", b"#", b"\x00", b"\xff", b"\xc3\xa9", b"tag", b"9" * 30, b"x" * 3000,
               b"\x1f\x8b", b"\x01"]
FUZZ_SEPARATORS = [b" ", b"\t", b"\n", b"\r\n", b"\r", b"\v", b"\f", b"  ", b"\n\n", b"\n#"]
near_files = st.lists(st.sampled_from(FUZZ_TOKENS + FUZZ_SEPARATORS), max_size=40).map(b"".join)
spliced_files = st.tuples(st.sampled_from([QRELS, RUN]), st.integers(0, 80), st.binary(max_size=8),
                          st.integers(0, 8)).map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1] + t[3]:])
any_file = st.one_of(st.binary(max_size=200), near_files, spliced_files)


def check_against_cleaned(tmp_path: Path, qrels: bytes, run: bytes, args: list[str]) -> None:
    """The property of the fuzz tests: a clean outcome, identical to that of the cleaned files."""
    raw_dir, clean_dir = tmp_path / "raw", tmp_path / "clean"
    out = cli([*args, *write_pair(raw_dir, qrels, run)])
    assert_sane(out)
    if out.rc != 0:
        assert "qrels.txt" in out.stderr or "run.txt" in out.stderr, f"error names no file: {out.stderr!r}"
    clean_qrels, clean_run = canonical(qrels), canonical(run)
    if any(data.startswith(GZIP_MAGIC) for data in (qrels, run, clean_qrels, clean_run)):
        return  # read as gzip: nothing to clean
    clean = cli([*args, *write_pair(clean_dir, clean_qrels, clean_run)])
    same_outcome(out, raw_dir, clean, clean_dir)


@fuzz_settings(200)
@given(run=any_file)
def test_fuzz_run_bytes(tmp_path, run):
    """Arbitrary run bytes against valid qrels."""
    check_against_cleaned(tmp_path, QRELS, run, ["-q", "-m", "gain"])


@fuzz_settings(200)
@given(qrels=any_file)
def test_fuzz_qrels_bytes(tmp_path, qrels):
    """Arbitrary qrels bytes against a valid run."""
    check_against_cleaned(tmp_path, qrels, RUN, ["-q", "-m", "gain"])


@fuzz_settings(200)
@given(qrels=any_file, run=any_file, compat=st.sampled_from(["10", "9"]))
def test_fuzz_both_files(tmp_path, qrels, run, compat):
    check_against_cleaned(tmp_path, qrels, run, ["--compat", compat, "-q", "-m", "gain"])


@fuzz_settings(100)
@given(run=any_file)
def test_fuzz_run_on_stdin(run):
    """The same reader behind '-' (standard input)."""
    out = cli(["-q", "-m", "gain", str(ROOT / "testdata" / "example" / "qrels.txt"), "-"], stdin=run)
    assert_sane(out)


@fuzz_settings(150)
@given(position=st.integers(0, 400), bit=st.integers(0, 7), truncate=st.booleans())
def test_fuzz_corrupt_gzip(tmp_path, position, bit, truncate):
    """A damaged .gz run: a clean 'cannot read' error (or, if the damage is harmless, results)."""
    data = bytearray(gzip.compress(RUN * 20, mtime=0))
    position %= len(data)
    if truncate:
        del data[position:]
    else:
        data[position] ^= 1 << bit
    q, r = write_pair(tmp_path, QRELS, b"")
    Path(r).write_bytes(bytes(data))
    assert_sane(cli(["-m", "ndcg", q, r]))


def test_corrupt_deflate_stream_is_a_clean_error(tmp_path):
    """Minimal case: the first deflate block header says block type 3 (invalid).

    zlib raises zlib.error, which is not an OSError."""
    data = gzip.compress(b"1 Q0 a 1 1 tag\n", mtime=0)
    q, r = write_pair(tmp_path, QRELS, data[:10] + b"\x07" + data[11:])
    assert_clean_error(cli(["-m", "ndcg", q, r]), "run.txt")


# ---------------------------------------------------------------- 1b. mutations of valid collections


class Expect:
    """What a mutated collection must give: the same as `clean` files, or an error at a line."""

    def __init__(self, qrels: bytes, run: bytes, *, same_as: tuple[bytes, bytes] | None = None,
                 error: tuple[str, int, str] | None = None, stdout_map: tuple[bytes, bytes] | None = None,
                 or_error: tuple[str, int] | None = None):
        self.qrels, self.run, self.same_as, self.error, self.stdout_map = qrels, run, same_as, error, stdout_map
        self.or_error = or_error  # a documented size limit may refuse the file instead, at this line


def _pick(draw, lines: list[bytes]) -> int:
    return draw(st.integers(0, len(lines) - 1))


def _replace_field(line: bytes, index: int, token: bytes) -> bytes:
    fields = line.split(b" ")
    fields[index] = token
    return b" ".join(fields)


def m_truncate(draw, qrels, run, which):
    """Cut a line inside one of its fields, dropping at least the last field."""
    lines = list(qrels if which == "qrels" else run)
    i = _pick(draw, lines)
    fields = lines[i].split(b" ")
    keep = draw(st.integers(1, len(fields) - 1))
    last = fields[keep - 1]
    lines[i] = b" ".join(fields[: keep - 1] + [last[: draw(st.integers(1, len(last)))]])
    files = (joined(lines), joined(run)) if which == "qrels" else (joined(qrels), joined(lines))
    return Expect(*files, error=(f"{which}.txt", i + 1, "field"))


def m_nul(draw, qrels, run, which):
    lines = list(qrels if which == "qrels" else run)
    i = _pick(draw, lines)
    at = draw(st.integers(0, len(lines[i])))
    lines[i] = lines[i][:at] + b"\x00" + lines[i][at:]
    files = (joined(lines), joined(run)) if which == "qrels" else (joined(qrels), joined(lines))
    return Expect(*files, error=(f"{which}.txt", i + 1, "NUL"))


def m_extra_qrels_field(draw, qrels, run):
    lines = list(qrels)
    i = _pick(draw, lines)
    lines[i] += b" " + draw(st.sampled_from([b"x", b"1", b"0"]))
    return Expect(joined(lines), joined(run), error=("qrels.txt", i + 1, "5 fields"))


def m_missing_field(draw, qrels, run, which):
    lines = list(qrels if which == "qrels" else run)
    i = _pick(draw, lines)
    fields = lines[i].split(b" ")
    del fields[draw(st.integers(0, len(fields) - 1))]
    lines[i] = b" ".join(fields)
    files = (joined(lines), joined(run)) if which == "qrels" else (joined(qrels), joined(lines))
    return Expect(*files, error=(f"{which}.txt", i + 1, f"{len(fields)} fields"))


def m_blank_qrels_line(draw, qrels, run):
    lines = list(qrels)
    i = draw(st.integers(0, len(lines)))
    lines.insert(i, draw(st.sampled_from([b"", b" ", b"\t\r", b"\f"])))
    return Expect(joined(lines), joined(run), error=("qrels.txt", i + 1, "blank line"))


def m_lone_cr_qrels(draw, qrels, run):
    """A lone CR is whitespace, not a line end (C's isspace): two qrels lines become one of 8 fields."""
    if len(qrels) < 2:
        return m_blank_qrels_line(draw, qrels, run)
    i = draw(st.integers(0, len(qrels) - 2))
    data = joined(qrels[:i]) + qrels[i] + b"\r" + joined(qrels[i + 1:])
    return Expect(data, joined(run), error=("qrels.txt", i + 1, "8 fields"))


def m_duplicate(draw, qrels, run, which):
    """A line repeated later: judged twice / retrieved twice, reported at the later line."""
    lines = list(qrels if which == "qrels" else [r for r in run if not r.startswith(b"stray ")])
    i = _pick(draw, lines)
    j = draw(st.integers(i + 1, len(lines)))
    lines.insert(j, lines[i])
    if which == "qrels":
        return Expect(joined(lines), joined(run), error=("qrels.txt", j + 1, "judged twice"))
    return Expect(joined(qrels), joined(lines), error=("run.txt", j + 1, "retrieved twice"))


def m_bad_score(draw, qrels, run, token):
    lines = list(run)
    i = _pick(draw, lines)
    lines[i] = _replace_field(lines[i], 4, token)
    return Expect(joined(qrels), joined(lines), error=("run.txt", i + 1, "score"))


def m_bad_grade(draw, qrels, run, token):
    lines = list(qrels)
    i = _pick(draw, lines)
    lines[i] = _replace_field(lines[i], 3, token)
    return Expect(joined(lines), joined(run), error=("qrels.txt", i + 1, "grade"))


def _line_ends(draw, lines: list[bytes], ends: list[bytes]) -> bytes:
    return b"".join(line + draw(st.sampled_from(ends)) for line in lines)


def m_crlf(draw, qrels, run):
    """CRLF and LF mixed line by line, in either file."""
    return Expect(_line_ends(draw, qrels, [b"\n", b"\r\n"]), _line_ends(draw, run, [b"\n", b"\r\n"]),
                  same_as=(joined(qrels), joined(run)))


def m_lone_cr_run(draw, qrels, run):
    """A lone CR in a run joins two lines into one with extra fields, as in trec_eval: the same as a space."""
    if len(run) < 2:
        return m_crlf(draw, qrels, run)
    i = draw(st.integers(0, len(run) - 2))
    head, tail = joined(run[:i]) + run[i], joined(run[i + 1:])
    return Expect(joined(qrels), head + b"\r" + tail, same_as=(joined(qrels), head + b" " + tail))


def m_extra_run_fields(draw, qrels, run):
    lines = [line + b"".join(b" " + t for t in draw(st.lists(st.sampled_from([b"x", b"7", b"\xff", b"#c"]),
                                                                max_size=3))) for line in run]
    return Expect(joined(qrels), joined(lines), same_as=(joined(qrels), joined(run)))


COMMENTS = [b"#", b"# judged by hand \xff\xfe 1 2 3 4 5 6", b"#\t1 Q0 d1 1 1 tag", b"#1 0 d1 1"]


def _insert_lines(draw, lines: list[bytes], candidates: list[bytes]) -> list[bytes]:
    lines = list(lines)
    for _ in range(draw(st.integers(1, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(candidates)))
    return lines


def m_comments(draw, qrels, run):
    return Expect(joined(_insert_lines(draw, qrels, COMMENTS)), joined(_insert_lines(draw, run, COMMENTS)),
                  same_as=(joined(qrels), joined(run)))


def m_blank_run_lines(draw, qrels, run):
    return Expect(joined(qrels), joined(_insert_lines(draw, run, [b"", b" ", b"\t\r", b"\v\f"])),
                  same_as=(joined(qrels), joined(run)))


def _spaced(draw, line: bytes) -> bytes:
    gaps = [b" ", b"\t", b"  ", b" \t ", b"\v", b"\f", b"\r", b"\t\t"]
    out = draw(st.sampled_from([b"", b" ", b"\t"]))
    for k, field in enumerate(line.split(b" ")):
        out += (draw(st.sampled_from(gaps)) if k else b"") + field
    return out + draw(st.sampled_from([b"", b" ", b"\t", b"\r"]))


def m_whitespace(draw, qrels, run):
    return Expect(joined([_spaced(draw, x) for x in qrels]), joined([_spaced(draw, x) for x in run]),
                  same_as=(joined(qrels), joined(run)))


def m_no_final_newline(draw, qrels, run):
    q, r = joined(qrels), joined(run)
    cut_q, cut_r = draw(st.sampled_from([(True, False), (False, True), (True, True)]))
    return Expect(q[:-1] if cut_q else q, r[:-1] if cut_r else r, same_as=(q, r))


def m_gzip(draw, qrels, run):
    q, r = joined(qrels), joined(run)
    zip_q, zip_r = draw(st.sampled_from([(True, False), (False, True), (True, True)]))
    return Expect(gzip.compress(q, mtime=0) if zip_q else q, gzip.compress(r, mtime=0) if zip_r else r,
                  same_as=(q, r))


def m_invalid_utf8_docnos(draw, qrels, run):
    """Every docno of one query prefixed, in both files, with bytes that are not UTF-8 (order kept)."""
    qid = draw(st.sampled_from(sorted({x.split(b" ")[0] for x in qrels})))
    prefix = draw(st.sampled_from([b"\xc3\x28", b"\xff", b"\x80\x80", b"\xed\xa0\x80"]))

    def change(lines):
        return [_replace_field(x, 2, prefix + x.split(b" ")[2]) if x.split(b" ")[0] == qid else x for x in lines]
    return Expect(joined(change(qrels)), joined(change(run)), same_as=(joined(qrels), joined(run)))


BIG = 100_000


def m_long_extra_field(draw, qrels, run):
    lines = list(run)
    i = _pick(draw, lines)
    lines[i] += b" " + b"x" * BIG
    return Expect(joined(qrels), joined(lines), same_as=(joined(qrels), joined(run)))


def m_long_tag(draw, qrels, run):
    """A 100 KB tag: refused at its line (a tag is printed as the runid, and held to the
    identifiers' 1024 bytes)."""
    lines = list(run)
    i = draw(st.integers(0, len(lines) - 1))
    lines[i] = _replace_field(lines[i], 5, b"t" * BIG)
    return Expect(joined(qrels), joined(lines), error=("run.txt", i + 1, "run tag of"))


def m_long_docno(draw, qrels, run):
    """A 100 KB docno; it sorts against every other docno as a short run of the same byte does.
    A documented limit on identifier length may refuse it instead, at its line."""
    i = _pick(draw, run)
    short = b"z" * (max(map(len, DOCNOS)) + 1)
    long_lines, short_lines = list(run), list(run)
    long_lines[i] = _replace_field(run[i], 2, b"z" * BIG)
    short_lines[i] = _replace_field(run[i], 2, short)
    return Expect(joined(qrels), joined(long_lines), same_as=(joined(qrels), joined(short_lines)),
                  or_error=("run.txt", i + 1))


def m_long_qid(draw, qrels, run):
    """A 100 KB qid in both files: printed back whole, ordered as its short equivalent (or refused
    at its first qrels line by a documented limit on identifier length)."""
    qid = draw(st.sampled_from(sorted({x.split(b" ")[0] for x in qrels})))
    short = b"\xff" * (max(map(len, QIDS)) + 1)

    def change(lines, new):
        return [_replace_field(x, 0, new) if x.split(b" ")[0] == qid else x for x in lines]
    first = [x.split(b" ")[0] for x in qrels].index(qid)  # the qrels are read first
    return Expect(joined(change(qrels, b"\xff" * BIG)), joined(change(run, b"\xff" * BIG)),
                  same_as=(joined(change(qrels, short)), joined(change(run, short))),
                  stdout_map=(b"\t" + short + b"\t", b"\t" + b"\xff" * BIG + b"\t"),
                  or_error=("qrels.txt", first + 1))


BAD_SCORES = [b"inf", b"-inf", b"Infinity", b"nan", b"NaN", b"0x1p3", b"0x10", b"1e999", b"-1e999", b"9" * 400,
              b"1,5", b"1_0", b"--1", b"+-1", b".", b"1e", b"1e+", b"1.2.3", b"e5", b"\xd9\xa3", b"1\x01"]
BAD_GRADES = [b"2.5", b"-", b"+", b"1e3", b"0x1", b"inf", b"nan", b"\xd9\xa3", b"99999999999999999999",
              b"1" * BIG, b"two"]

MUTATIONS = {
    "truncate-qrels-line": lambda d, q, r: m_truncate(d, q, r, "qrels"),
    "truncate-run-line": lambda d, q, r: m_truncate(d, q, r, "run"),
    "nul-in-qrels": lambda d, q, r: m_nul(d, q, r, "qrels"),
    "nul-in-run": lambda d, q, r: m_nul(d, q, r, "run"),
    "extra-qrels-field": m_extra_qrels_field,
    "missing-qrels-field": lambda d, q, r: m_missing_field(d, q, r, "qrels"),
    "missing-run-field": lambda d, q, r: m_missing_field(d, q, r, "run"),
    "blank-qrels-line": m_blank_qrels_line,
    "lone-cr-in-qrels": m_lone_cr_qrels,
    "judged-twice": lambda d, q, r: m_duplicate(d, q, r, "qrels"),
    "retrieved-twice": lambda d, q, r: m_duplicate(d, q, r, "run"),
    **{f"score-{t[:12]!r}": (lambda t: lambda d, q, r: m_bad_score(d, q, r, t))(t) for t in BAD_SCORES},
    **{f"grade-{t[:12]!r}": (lambda t: lambda d, q, r: m_bad_grade(d, q, r, t))(t) for t in BAD_GRADES},
    # benign: the output must be that of the clean files
    "crlf-mixed": m_crlf,
    "lone-cr-in-run": m_lone_cr_run,
    "extra-run-fields": m_extra_run_fields,
    "comment-lines": m_comments,
    "blank-run-lines": m_blank_run_lines,
    "whitespace": m_whitespace,
    "no-final-newline": m_no_final_newline,
    "gzip": m_gzip,
    "invalid-utf8-docnos": m_invalid_utf8_docnos,
    "100KB-extra-field": m_long_extra_field,
    "100KB-tag": m_long_tag,
    "100KB-docno": m_long_docno,
    "100KB-qid": m_long_qid,
}


@pytest.mark.parametrize("kind", list(MUTATIONS))
@fuzz_settings(10, shrink=False)
@given(collection=collections(), data=st.data())
def test_mutation(tmp_path, kind, collection, data):
    """One corruption of a valid collection: an error at exactly the corrupted file and line, or,
    for a harmless change, byte-identical results to the clean files (100 KB identifiers: either)."""
    qrels, run = collection
    expect = MUTATIONS[kind](data.draw, qrels, run)
    mutated_dir = tmp_path / "mutated"
    q, r = write_pair(mutated_dir, expect.qrels, expect.run)
    out = cli(["-q", "-m", "gain", q, r])
    if expect.error:
        name, line, what = expect.error
        assert_clean_error(out, f"{mutated_dir / name}:{line}:", what)
        return
    if expect.or_error and out.rc != 0:
        name, line = expect.or_error
        assert_clean_error(out, f"{mutated_dir / name}:{line}:")
        return
    clean_dir = tmp_path / "clean"
    clean = cli(["-q", "-m", "gain", *write_pair(clean_dir, *expect.same_as)])
    out = without_lone_cr_warning(out, expect.run)
    assert_sane(out)
    if expect.stdout_map:
        clean = Outcome(clean.rc, clean.stdout.replace(*expect.stdout_map), clean.stderr)
    same_outcome(out, mutated_dir, clean, clean_dir)


def without_lone_cr_warning(out: Outcome, run: bytes) -> Outcome:
    """A run with a CR that does not end a line gets one warning line (and only such a run)."""
    text = gzip.decompress(run) if run[:2] == b"\x1f\x8b" else run
    warning = [line for line in out.stderr.splitlines(keepends=True) if "carriage return" in line]
    if re.search(rb"\r(?!\n)", text):
        assert len(warning) == 1 and warning[0].startswith("trecgain: warning: "), out.stderr
    else:
        assert not warning, out.stderr
    return Outcome(out.rc, out.stdout, "".join(line for line in out.stderr.splitlines(keepends=True)
                                               if line not in warning))


def test_query_whose_judgments_are_all_negative(tmp_path):
    """Minimal case the mutation tests reach: the only evaluated query has only negative judgments.
    The README: 'evaluated as a query with nothing judged (every gain measure 0)'."""
    q, r = write_pair(tmp_path, b"1 0 d1 -1\n", b"1 Q0 d1 1 1 tag\n")
    out = cli(["-q", "-m", "gain", q, r])
    assert out.rc == 0, out.stderr
    for line in out.stdout.split(b"\n")[:-1]:
        name, _, value = line.split(b"\t")
        assert value in (b"0.0000", b"0", b"1", b"tag"), line


# ---------------------------------------------------------------- 1c. the measure-string parser


MEASURE_TEXTS = [
    "nDCG(", "nDCG(x=", "nDCG(gains={1:'a'})@3", "nDCG@-1", "nDCG@0", "nDCG@", "@10", "nDCG@10@10", "nDCG)(",
    "nDCG@99999999999999999999", "ndcg_cut.99999999999999999999", "ndcg_cut.5,99999999999999999999",
    "nDCG(gains={[1]:2})@3", "nDCG(gains={1:1e999})@3", "nDCG(gains={1:-1e999})",
    "nDCG(gains={1:1e308,2:-1e308,3:0.5})@3", "ndcg.1=1e308,2=-1e308,3=0.5", "nDCG(gains={99999999999999999999:1})@3",
    "nDCG(dcg='exp-log2',dcg='log2')", "nDCG(**{})", "nDCG(*[1])", "nDCG(gains=__import__('os'))",
    "nDCG(judged_only=None)", "nDCG(" + "(" * 100 + ")" * 100 + ")", "nDCG(gains=" + "[" * 1000 + "]" * 1000 + ")",
    "nDCG(gains=" + "-" * 100_000 + "1)", "nDCG(gains=" + "+" * 10_000 + "1)", "nDCG(dcg=" + "'a'+" * 10_000 + "'b')",
    "nDCG(gains={" + ",".join(f"{i}:{i}" for i in range(3000)) + "})@3",
    "ndcg_cut." + ",".join(str(i) for i in range(1, 2001)), "ndcg." + "1=2," * 3000 + "1=2", "x" * 100_000,
    "nDCG@10\n", "ndcg\n", "ndcg.1=2\n", "ndcg_cut.3\n", "nDCG(gains={1:2,\n2:3})@3", "ndcg.1=\u0663",
    "ERR@10", "err@5", "ERR(judged_only=True)@3", "", " ", ".", "ndcg.", "ndcg..", "gain.1=2", "ndcg_cut.1e3",
    "ndcg_cut.-0", "\x00", "ndcg\x00", "nDCG(gains={1:2})@3\x00",
]


def _measure_files(tmp_path: Path) -> tuple[str, str]:
    return write_pair(tmp_path / "m", QRELS, RUN)


def check_measure_text(files: tuple[str, str], text: str, *extra: str) -> None:
    """Any -m text: a clean one-line error, or well-formed output."""
    out = cli(["-q", *extra, "-m", text, *files])
    assert_sane(out)
    if out.rc == 0:
        assert_well_formed(out.stdout, {b"1", b"2"})


@pytest.mark.parametrize("text", MEASURE_TEXTS, ids=lambda t: repr(t[:40]) + (f"..{len(t)}" if len(t) > 40 else ""))
def test_measure_text(tmp_path, text):
    check_measure_text(_measure_files(tmp_path), text)


@pytest.mark.parametrize("spec", ["1=1e308,2=-1e308,3=0.5", "1=" + "9" * 400, "\u0663=2"])
def test_global_gains_text(tmp_path, spec):
    out = cli(["-q", "--global-gains", spec, "-m", "ndcg", *_measure_files(tmp_path)])
    assert_sane(out)


def test_gain_values_are_ascii_numbers(tmp_path):
    """'\u0663' (ARABIC-INDIC DIGIT THREE) is not a number to trec_eval's atof (it reads 0); trecgain
    refuses non-ASCII digits in -l and cutoffs, and must refuse them in gain values too."""
    assert_clean_error(cli(["-m", "ndcg.1=\u0663", *_measure_files(tmp_path)]), "\u0663")


MEASURE_PARTS = ["nDCG", "ndcg", "ERR", "ndcg_cut", "G", "dcg", "ideal_dcg", "Rndcg", "ndcg_rel", "binG", "cg_cut",
                 "ndcg_p", "gain", "runid", "num_q", ".", "@", "(", ")", "=", ",", ":", "{", "}", "[", "]", "'", '"',
                 "*", "**", "-", "+", " ", "0", "1", "2", "-1", "2.5", "1e3", "1e308", "1e999",
                 "99999999999999999999", "0.5", "True", "None", "x", "gains", "dcg", "judged_only", "'log2'",
                 "'exp-log2'", "'a'", "\u0663", "lambda", "[1]"]


_LITERALS = ["0", "1", "2", "-1", "3", "2.5", "0.5", "1e308", "-1e308", "1e999", "-1e999", "99999999999999999999",
             "10**3", "True", "None", "'log2'", "'exp-log2'", "'a'", "[1]", "{}", "()", "b'x'", "1j", "..."]
_literal = st.deferred(lambda: st.one_of(
    st.sampled_from(_LITERALS),
    st.lists(st.tuples(_literal, _literal), max_size=3).map(lambda kv: "{" + ",".join(f"{k}:{v}" for k, v in kv) + "}"),
    st.lists(_literal, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]")))
_ir_measures = st.builds(
    lambda name, params, cutoff: name + params + cutoff,
    st.sampled_from(["nDCG", "ndcg", "ERR", "err", "NDCG", "P"]),
    st.one_of(st.just(""), st.lists(st.tuples(st.sampled_from(["gains", "dcg", "judged_only", "cutoff", "**"]),
                                              _literal), max_size=3).map(
        lambda kv: "(" + ",".join(k + v if k == "**" else f"{k}={v}" for k, v in kv) + ")")),
    st.one_of(st.just(""), st.sampled_from(["0", "1", "3", "-1", "00", "99999999999999999999", "1.5", ""]).map(
        lambda c: "@" + c)))
_numbers = st.sampled_from(["0", "1", "2", "-1", "2.5", "0.5", "1e308", "-1e308", "1e999", "nan", "99999999999999999999",
                            "9223372036854775808", "", "+3", "1_0", "x"])
_trec_eval = st.builds(
    lambda name, params: name + params,
    st.sampled_from(["ndcg", "ndcg_cut", "dcg", "ideal_dcg", "G", "Rndcg", "ndcg_rel", "binG", "cg_cut", "gain",
                     "err_cut", "ndcg_p"]),
    st.one_of(st.just(""),
              st.lists(_numbers, min_size=1, max_size=4).map(lambda xs: "." + ",".join(xs)),
              st.lists(st.tuples(_numbers, _numbers), min_size=1, max_size=4).map(
                  lambda kv: "." + ",".join(f"{k}={v}" for k, v in kv))))
_parts = st.lists(st.sampled_from(MEASURE_PARTS), max_size=14).map("".join)


@fuzz_settings(400)
@given(text=st.one_of(_ir_measures, _trec_eval, _parts),
       extra=st.sampled_from([(), ("--compat", "9"), ("--exact-ideal",)]))
def test_fuzz_measure_grammar(tmp_path, text, extra):
    """Measure strings shaped like the two syntaxes (ir_measures names, trec_eval's NAME.PARAMS),
    or built from their vocabulary; no line breaks."""
    check_measure_text(_measure_files(tmp_path), text, *extra)


@fuzz_settings(200)
@given(text=st.text(max_size=30))
def test_fuzz_measure_text(tmp_path, text):
    """Any text at all, line breaks and control characters included."""
    check_measure_text(_measure_files(tmp_path), text)


# ---------------------------------------------------------------- 2. resource bounds (real processes)


HUGE_QRELS = (b"1 0 a 2000000000\n1 0 b -2000000000\n1 0 c 1\n2 0 a 999999999999999\n2 0 b 2\n"
              b"3 0 x -2000000000\n3 0 y 2000000000\n")
HUGE_RUN = b"1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n1 Q0 c 3 3 t\n2 Q0 b 1 1 t\n2 Q0 a 2 0.5 t\n3 Q0 x 1 1 t\n3 Q0 z 2 2 t\n"


# With a gain string, levels 2^31 or more apart make trec_eval's comparison of gains undefined:
# refused cleanly (the default table, gain = level, needs no comparison and is computed).
@pytest.mark.parametrize("args, must_succeed", [
    (["-m", "gain"], True),
    (["-m", "ndcg.1=2", "-m", "G.1=2", "-m", "Rndcg.1=2", "-m", "ndcg_rel.1=2", "-m", "dcg.1=2",
      "-m", "ideal_dcg.2000000000=1"], False),
    (["-m", "nDCG(gains={0:0,1:1,2:3})@10"], False),
    (["--exact-ideal", "-m", "ndcg.1=2", "-m", "G.1=2", "-m", "nDCG(gains={0:0,1:1,2:3})@10"], True),
    (["--exact-ideal", "-m", "ndcg.1=0.5"], True),
    (["-m", "ndcg.1=0.5"], False),
], ids=["gain", "gain-strings", "ir_measures-gains", "exact", "fractional-exact", "fractional"])
def test_huge_grades_do_not_allocate_per_level(tmp_path, args, must_succeed):
    """Grades of +-2,000,000,000 (trec_eval allocates a table entry per level) under a 1 GiB cap."""
    q, r = write_pair(tmp_path, HUGE_QRELS, HUGE_RUN)
    result = measured(tmp_path, ["-q", *args, q, r], limit_mib=1024)
    assert result["seconds"] < 20, result
    assert result["maxrss_mib"] < 300, result
    if must_succeed or result["status"] == 0:
        assert result["status"] == 0, result["stderr"]
        assert b"nan" not in result["stdout"] and b"inf" not in result["stdout"], result["stdout"]
        assert "Traceback" not in result["stderr"]
    else:
        assert_process_clean_error(result)


@pytest.mark.parametrize("args", [["-m", "ndcg_p"], ["--global-gains", "exp", "-m", "ndcg"]])
def test_exponential_gain_of_a_huge_grade(tmp_path, args):
    """2^2000 - 1 is inf as a double: nDCG = inf / inf would print '-nan'.  Either refuse the grade
    with a clean error or print finite values, never nan."""
    q, r = write_pair(tmp_path, b"1 0 a 2000\n1 0 b 1\n2 0 a 1\n", b"1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n2 Q0 a 1 1 t\n")
    out = cli(["-q", *args, q, r])
    assert_sane(out)
    if out.rc == 0:
        assert b"nan" not in out.stdout and b"inf" not in out.stdout, out.stdout


def _long_token_files(tmp_path: Path, where: str, token: bytes) -> tuple[str, str]:
    lines = 50_000
    qrels = b"".join(b"%d 0 d%d %d\n" % (i % 100, i, i % 3) for i in range(0, lines, 2))
    run = b"".join(b"%d Q0 d%d 1 %d tag\n" % (i % 100, i, i % 1000) for i in range(lines))
    if where == "run":
        run += b"1 Q0 " + token + b" 1 0.5 tag\n"
    else:
        qrels += b"1 0 " + token + b" 1\n"
    return write_pair(tmp_path / f"{where}-{len(token)}", qrels, run)


@pytest.mark.parametrize("where", ["run", "qrels"])
def test_one_100KB_docno_in_a_large_file(tmp_path, where):
    """One 100 KB docno among 50,000 lines must not cost 50,000 x 100 KB: under a 1 GiB cap either
    the same results as with a short equivalent docno, or a clean error at its line."""
    q, r = _long_token_files(tmp_path, where, b"z" * BIG)
    result = measured(tmp_path, ["-q", "-m", "gain", q, r], limit_mib=1024)
    assert "Traceback" not in result["stderr"], result["stderr"][-1500:]
    if result["status"] != 0:
        assert_process_clean_error(result, ":")
        return
    expected = cli(["-q", "-m", "gain", *_long_token_files(tmp_path, where, b"z" * 12)])
    assert result["stdout"] == expected.stdout


def test_endless_stream_without_line_end(tmp_path):
    """/dev/zero as the run: the first byte is a NUL, so a clean error at line 1, promptly, not an
    ever-growing buffer waiting for a newline (capped at 512 MiB, 20 s)."""
    q, _ = write_pair(tmp_path, QRELS, RUN)
    try:
        result = measured(tmp_path, ["-m", "ndcg", q, "/dev/zero"], limit_mib=512, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("trecgain kept reading /dev/zero for 20 s")
    assert_process_clean_error(result, "/dev/zero:1:")
    assert result["seconds"] < 10, result


def test_gzip_run_is_streamed(tmp_path):
    """A 200 MB run (200,000 lines with a long extra field) read through gzip: peak memory like the
    plain file's, far below baseline + the uncompressed size."""
    qrels = b"".join(b"q%d 0 d%d %d\n" % (q, d, (q + d) % 4) for q in range(2000) for d in range(0, 100, 5))
    q_path, _ = write_pair(tmp_path, qrels, b"q1 Q0 d1 1 1 run1\n")
    plain, packed = tmp_path / "big.txt", tmp_path / "big.gz"
    pad = b"x" * 1000
    with open(plain, "wb") as out, gzip.open(packed, "wb", compresslevel=1) as zout:
        for q in range(2000):
            block = b"".join(b"q%d Q0 d%d %d %d.%d run1 %s\n" % (q, d, d, d, q % 97, pad) for d in range(100))
            out.write(block)
            zout.write(block)
    size_mib = plain.stat().st_size / 2**20
    baseline = measured(tmp_path, ["-m", "ndcg", q_path, tmp_path / "run.txt"])
    flat = measured(tmp_path, ["-m", "ndcg", q_path, plain])
    zipped = measured(tmp_path, ["-m", "ndcg", q_path, packed])
    assert flat["status"] == zipped["status"] == 0, (flat["stderr"], zipped["stderr"])
    assert zipped["stdout"] == flat["stdout"]
    report = {k: round(v["maxrss_mib"], 1) for k, v in (("baseline", baseline), ("plain", flat), ("gzip", zipped))}
    assert zipped["maxrss_mib"] <= 1.3 * flat["maxrss_mib"], report
    assert zipped["maxrss_mib"] - baseline["maxrss_mib"] < size_mib / 2, (report, size_mib)


# ---------------------------------------------------------------- 3. pipes and signals (real processes)


@pytest.fixture(scope="module")
def big_pair(tmp_path_factory) -> tuple[str, str]:
    """2,000 queries x 50 documents: `-q -m gain` prints about 1.3 MB, far more than a pipe holds."""
    folder = tmp_path_factory.mktemp("big")
    qrels = b"".join(b"q%d 0 d%d %d\n" % (q, d, (q * 7 + d) % 4) for q in range(2000) for d in range(0, 50, 5))
    run = b"".join(b"q%d Q0 d%d %d 0.%04d tag\n" % (q, d, d, (q * 7919 + d * 104729) % 10000)
                   for q in range(2000) for d in range(50))
    return write_pair(folder, qrels, run)


def test_head_closes_the_pipe(tmp_path, big_pair):
    """`trecgain -q ... | head -1`: trecgain exits 0 and says nothing."""
    err_file, status_file = tmp_path / "err", tmp_path / "status"
    script = '{ "$0" -m trecgain -q -m gain "$1" "$2" 2>"$3"; echo $? >"$4"; } | head -1'
    done = subprocess.run(["sh", "-c", script, sys.executable, *big_pair, err_file, status_file],
                          capture_output=True, cwd=ROOT, env=process_env(), timeout=60)
    first = cli(["-q", "-m", "gain", *big_pair]).stdout.split(b"\n")[0] + b"\n"
    assert done.stdout == first
    assert err_file.read_bytes() == b"", err_file.read_bytes()[-2000:]
    assert status_file.read_text().strip() == "0"


def _wchans(pid: int) -> list[str]:
    """What the process and its children are blocked in (kernel wait channel names)."""
    pids = [pid]
    try:
        pids += [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        pass
    names = []
    for p in pids:
        try:
            names.append(Path(f"/proc/{p}/wchan").read_text())
        except OSError:
            pass
    return names


def wait_until_blocked(proc: subprocess.Popen, words: tuple[str, ...], limit: float = 5.0) -> None:
    """Wait (at most `limit` s) until the process or a child sleeps in a wait channel naming one of `words`."""
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        if any(w in name for name in _wchans(proc.pid) for w in words):
            return
        time.sleep(0.02)


def assert_interrupted(proc: subprocess.Popen) -> None:
    """Status 130, one stderr line, nothing on stdout (waits first: stdin may still be in use)."""
    proc.wait(timeout=20)
    out, err = proc.stdout.read(), proc.stderr.read()
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text, text[-2000:]
    assert proc.returncode == 130, (proc.returncode, text)
    assert out == b""
    assert text.count("\n") == 1 and text.startswith("trecgain: ") and text.endswith("\n"), text


def test_ctrl_c_while_waiting_for_stdin(tmp_path):
    q, _ = write_pair(tmp_path, QRELS, RUN)
    proc = subprocess.Popen(trecgain_argv("-m", "ndcg", q, "-"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=process_env())
    try:
        proc.stdin.write(b"1 Q0 a 1 3.0 tag\n")
        proc.stdin.flush()
        wait_until_blocked(proc, ("pipe_read",))
        proc.send_signal(signal.SIGINT)
        proc.stdin.close()
        assert_interrupted(proc)
    finally:
        proc.kill()


def test_ctrl_c_while_reading_a_stream(tmp_path):
    """SIGINT while chunks are being split on the worker threads."""
    q, _ = write_pair(tmp_path, QRELS, RUN)
    block = b"".join(b"q%d Q0 d%d %d 0.%04d tag\n" % (i, d, d, (i * 7 + d) % 10000)
                     for i in range(1000) for d in range(50))
    proc = subprocess.Popen(trecgain_argv("-m", "ndcg", q, "-"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=process_env())
    written = [0]

    def feed() -> None:
        try:
            for _ in range(200):
                proc.stdin.write(block)
                written[0] += 1
        except (BrokenPipeError, OSError, ValueError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        end = time.monotonic() + 20
        while written[0] < 4 and time.monotonic() < end and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        assert_interrupted(proc)
    finally:
        proc.kill()
        feeder.join(5)


def test_ctrl_c_with_worker_processes(tmp_path):
    """-j 2 with two runs that never arrive (FIFOs): Ctrl-C reaches the whole process group."""
    q, _ = write_pair(tmp_path, QRELS, RUN)
    fifos = [tmp_path / "fifo1", tmp_path / "fifo2"]
    for f in fifos:
        os.mkfifo(f)
    proc = subprocess.Popen(trecgain_argv("-j", "2", "-m", "ndcg", q, *fifos), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=process_env(), start_new_session=True)
    try:
        wait_until_blocked(proc, ("fifo", "partner"))
        os.killpg(proc.pid, signal.SIGINT)
        assert_interrupted(proc)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("delay", [0.05, 0.1, 0.15, 0.2, 0.3, 0.45])
def test_ctrl_c_during_start_up(tmp_path, delay):
    """Ctrl-C right after starting (imports in progress): no traceback once trecgain's own code runs.

    Before that, Python is still starting (site, runpy) and nothing trecgain does can help: a signal
    then kills the process silently (status -2) or makes Python itself complain; both are accepted."""
    q, _ = write_pair(tmp_path, QRELS, RUN)
    proc = subprocess.Popen(trecgain_argv("-m", "ndcg", q, "-"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=process_env())
    try:
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    text = err.decode("utf-8", "replace")
    if "Traceback" in text or "Fatal Python error" in text:
        package = str(ROOT / "trecgain") + os.sep  # a frame in trecgain's files: it was running
        assert package not in text, f"after {delay} s: {text[-1500:]}"
        return
    assert proc.returncode in (130, -signal.SIGINT), (proc.returncode, text)
    assert text.count("\n") <= 1 and out == b"", text


def test_closed_stdin_for_a_run_on_stdin(tmp_path):
    q, _ = write_pair(tmp_path, QRELS, RUN)
    done = subprocess.run(["sh", "-c", 'exec "$0" -m trecgain -m ndcg "$1" - <&-', sys.executable, q],
                          capture_output=True, cwd=ROOT, env=process_env(), timeout=60)
    assert_clean_error(Outcome(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")))


needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")


@needs_dev_full
@pytest.mark.parametrize("args", [["-q", "-m", "gain"], ["-m", "ndcg"], ["-v"], ["-h"]],
                         ids=["large", "small", "version", "help"])
def test_full_disk(big_pair, args):
    """stdout on a full device: non-zero, one clear line, no traceback."""
    files = list(big_pair) if args[0] not in ("-v", "-h") else []
    with open("/dev/full", "wb") as full:
        done = subprocess.run(trecgain_argv(*args, *files), stdout=full, stderr=subprocess.PIPE, cwd=ROOT,
                              env=process_env(), timeout=60)
    line = assert_clean_error(Outcome(done.returncode, b"", done.stderr.decode("utf-8", "replace")))
    assert "space" in line.lower(), line


@pytest.mark.parametrize("args", [["-q", "-m", "gain"], ["-m", "ndcg"], ["-v"], ["-h"]],
                         ids=["large", "small", "version", "help"])
def test_closed_stdout(big_pair, args):
    """`trecgain ... >&-`: nowhere to write the results is an error, not a silent success."""
    files = list(big_pair) if args[0] not in ("-v", "-h") else []
    done = subprocess.run(["sh", "-c", 'exec "$0" -m trecgain "$@" >&-', sys.executable, *args, *files],
                          capture_output=True, cwd=ROOT, env=process_env(), timeout=60)
    line = assert_clean_error(Outcome(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")))
    assert "output" in line.lower() or "stdout" in line.lower(), line


# ---------------------------------------------------------------- 4. order independence, determinism


@fuzz_settings(100)
@given(collection=collections(max_queries=6), data=st.data(),
       args=st.sampled_from([["-q"], ["-q", "--compat", "9"], ["-q", "-c"], ["-q", "-J"], ["-q", "-M", "2"]]))
def test_line_order_does_not_matter(tmp_path, collection, data, args):
    """Shuffling the lines of either file never changes a byte of the output."""
    qrels, run = collection
    expected = cli([*args, "-m", "gain", *write_pair(tmp_path / "a", joined(qrels), joined(run))])
    shuffled_qrels = joined(data.draw(st.permutations(qrels)))
    shuffled_run = joined(data.draw(st.permutations(run)))
    shuffled = cli([*args, "-m", "gain", *write_pair(tmp_path / "b", shuffled_qrels, shuffled_run)])
    same_outcome(expected, tmp_path / "a", shuffled, tmp_path / "b")


def test_same_output_whatever_the_hash_seed(tmp_path):
    """Two processes with different PYTHONHASHSEED: identical bytes (no dict/set order leaks)."""
    qids = [b"q\xc3\xa9", b"\xe4\xb8\xad", b"10", b"9", b"\xff", b"a"]
    docnos = [b"d%d" % i for i in range(30)] + [b"\xe6\x96\x87", b"\x80", b"D"]
    qrels = b"".join(b"%s 0 %s %d\n" % (q, d, (i * 3 + j) % 4) for i, q in enumerate(qids)
                     for j, d in enumerate(docnos) if (i + j) % 3)
    run = b"".join(b"%s Q0 %s 1 %d tag\n" % (q, d, (i + j) % 5) for i, q in enumerate(reversed(qids))
                   for j, d in enumerate(docnos))
    files = write_pair(tmp_path, qrels, run)
    outputs = []
    for seed in ("1", "2", "4242"):
        done = subprocess.run(trecgain_argv("-q", "-m", "gain", "-m", "ndcg_p", *files), capture_output=True, cwd=ROOT,
                              env=process_env(PYTHONHASHSEED=seed), timeout=60)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0] == cli(["-q", "-m", "gain", "-m", "ndcg_p", *files]).stdout


# ---------------------------------------------------------------- 5. identifiers are bytes


def _identifier(min_size: int = 1) -> st.SearchStrategy[bytes]:
    """Bytes that can be one field: no C whitespace, no NUL; anything else, UTF-8 or not."""
    allowed = [b for b in range(1, 256) if b not in WHITESPACE]
    return st.lists(st.sampled_from(allowed), min_size=min_size, max_size=5).map(bytes)


@fuzz_settings(100)
@given(docnos=st.lists(_identifier(), min_size=2, max_size=8, unique=True), data=st.data(),
       compat=st.sampled_from(["10", "9"]))
def test_ties_are_broken_by_unsigned_byte_order(tmp_path, docnos, data, compat):
    """Equal scores: docnos in descending strcmp order (bytes >= 0x80 above ASCII), the same as
    giving them decreasing scores in that order."""
    grades = data.draw(st.permutations(range(len(docnos))))
    qrels = b"".join(b"1 0 %s %d\n" % (d, g) for d, g in zip(docnos, grades))
    tied = b"".join(b"1 Q0 %s 1 1.5 tag\n" % d for d in docnos)
    ranked = b"".join(b"1 Q0 %s 1 %d tag\n" % (d, 100 - i) for i, d in enumerate(sorted(docnos, reverse=True)))
    args = ["--compat", compat, "-q", "-m", "gain"]
    a = cli([*args, *write_pair(tmp_path / "tied", qrels, tied)])
    b = cli([*args, *write_pair(tmp_path / "ranked", qrels, ranked)])
    assert a.rc == 0, a.stderr
    same_outcome(a, tmp_path / "tied", b, tmp_path / "ranked")


@fuzz_settings(100)
@given(qids=st.lists(_identifier().filter(lambda q: not q.startswith(b"#") and q != b"all"),
                     min_size=1, max_size=8, unique=True), data=st.data())
def test_queries_print_in_byte_order_and_unchanged(tmp_path, qids, data):
    """-q lines come in unsigned byte order of the qids, each qid written back byte for byte."""
    order = data.draw(st.permutations(qids))
    qrels = b"".join(b"%s 0 doc 1\n" % q for q in order)
    run = b"".join(b"%s Q0 doc 1 1 tag\n" % q for q in data.draw(st.permutations(qids)))
    out = cli(["-q", "-m", "num_ret", *write_pair(tmp_path, qrels, run)])
    assert out.rc == 0, out.stderr
    lines = out.stdout.split(b"\n")[:-1]
    name = b"%-22s" % b"num_ret"
    assert lines[-1] == name + b"\tall\t%d" % len(qids)
    assert lines[:-1] == [name + b"\t%s\t1" % q for q in sorted(qids)]


def test_non_utf8_identifiers_in_an_error_message(tmp_path):
    """A message about a docno that is not UTF-8 is still one line naming the file and line."""
    q, r = write_pair(tmp_path, b"\xff 0 a\xfe\x80 2\n\xff 0 a\xfe\x80 1\n", RUN)
    assert_clean_error(cli(["-m", "ndcg", q, r]), f"{q}:2:", "judged twice")


# ---------------------------------------------------------------- QRELS and RUN given the wrong way round

SWAPPED_USAGE = "(usage: trecgain [options] QRELS RUN...)"


def swapped_message(first: str, second: str, usage: str = SWAPPED_USAGE) -> str:
    return (f"trecgain: QRELS and RUN look swapped: '{first}' looks like a run and '{second}' like qrels "
            f"{usage}\n")


@pytest.mark.parametrize("args", [[], ["-q"], ["-m", "map", "-c"], ["--format", "json"], ["-j", "2"]])
def test_qrels_and_run_swapped_are_named(tmp_path, args):
    q, r = write_pair(tmp_path, QRELS, RUN)
    out = cli([*args, r, q])
    assert out.rc == 1 and out.stdout == b""
    assert out.stderr == swapped_message(r, q)


def test_qrels_and_runs_swapped_with_several_runs_and_gzip(tmp_path):
    q, r = write_pair(tmp_path, QRELS, RUN)
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(RUN))
    out = cli([str(gz), q, r])
    assert out.rc == 1 and out.stdout == b"" and out.stderr == swapped_message(str(gz), q)


@pytest.mark.parametrize("first, second, fragment", [
    (RUN, RUN, "malformed qrels line"),  # two runs: nothing is swapped
    (QRELS, QRELS, "malformed run line"),  # two qrels
    (QRELS, RUN + b"1 Q0 x 4 high tag\n", "high"),  # the right order, a bad run line
    (RUN, b"1 0 a\n", "malformed qrels line"),  # the second is no qrels
])
def test_a_read_error_that_is_no_swap_keeps_its_message(tmp_path, first, second, fragment):
    a, b = write_pair(tmp_path, first, second)
    out = cli(["-m", "map", a, b])
    assert "look swapped" not in out.stderr
    assert_clean_error(out, fragment)


def test_a_swap_is_told_by_the_first_lines_whatever_follows(tmp_path):
    q, r = write_pair(tmp_path, QRELS + b"1 0 d\n", RUN + b"1 Q0 d 4 x\n")
    assert cli(["-m", "map", r, q]).stderr == swapped_message(r, q)


def test_swapped_with_standard_input_is_not_sniffed(tmp_path):
    q, r = write_pair(tmp_path, QRELS, RUN)
    out = cli([r, "-"], stdin=QRELS)
    assert "look swapped" not in out.stderr
    assert_clean_error(out, "malformed qrels line")


def test_explain_names_swapped_files_too(tmp_path):
    q, r = write_pair(tmp_path, QRELS, RUN)
    out = cli(["explain", "-m", "ndcg", "--query", "1", r, q])
    assert out.rc == 1 and out.stdout == b""
    assert out.stderr == swapped_message(r, q, "(usage: trecgain explain -m MEASURE --query QID [options] QRELS RUN)")


def test_a_swap_is_told_by_the_files_first_lines(tmp_path):
    from trecgain.output import input_kind

    files = {"qrels": b"# judged\n\n301 0 doc-1 2\n", "run": b"301 Q0 doc-1 1 -2.5e3 tag extra\n",
             "neither": b"301 Q0 doc-1\n", "empty": b"", "grades": b"301 0 doc 2.5\n",
             "words": b"a b c d\n", "ranks": b"301 Q0 doc x 2.0 tag\n"}
    kinds = {}
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
        kinds[name] = input_kind(str(tmp_path / name))
    assert kinds == {"qrels": "qrels", "run": "run", "neither": None, "empty": None, "grades": "qrels",
                     "words": None, "ranks": None}
    assert input_kind(str(tmp_path / "missing")) is None and input_kind(str(tmp_path)) is None


def test_o_refuses_what_looks_like_input_as_before_a_gzip_not_looked_into(tmp_path):
    """-o's guard (looks_like_input) reads a file as it is: a gzipped run is stopped only by the
    same-file check, as before the swap check learnt to look into gzip."""
    from trecgain.output import input_kind, looks_like_input

    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(RUN))
    assert input_kind(str(packed)) == "run" and not looks_like_input(str(packed))
    assert input_kind(str(packed), gzip=False) is None
