"""Fuzz `trecgain compare`'s command line: trecgain.cli.main(["compare", *argv]) -- the entry
point the command uses -- with arbitrary argument lists (every option of trecgain.cli.compare
and its checks, the formats, --plot and its target, -h), comparing small fixed files in a
private temporary directory.

Input: the argument list after `compare`, NUL-separated as in /proc/PID/cmdline, each
argument decoded as Python decodes argv (UTF-8, surrogate escapes).  The working directory
is a fresh temporary directory holding
  Q   qrels (grades -1..3; Rndcg.1=0 is 0/0, nan, on its queries)
  R, S, T  runs (S lacks a query; T has R's tag)     G   a gzipped run
  D   a run tagged $\\foo$ (which matplotlib would read as mathematics)
  F   qrels with fractional grades    E   an empty file    X   a run with a bad line
  P   an existing figure (a PNG)
and standard input holds a run, so `-` works.  File names containing '/' are skipped (no
file outside the directory is ever read or written); other names simply do not exist.
--permutations and --bootstrap above 2000 are skipped (the same code, only slower), and
every argv starts with `--permutations 200 --bootstrap 200` (the input's own values, later,
win) instead of the defaults of 10000.

Property: main() returns an int and never raises; when the status is not 0, stdout is
empty and stderr exactly one line; when it is 0, stdout is not empty and every stderr line
is a `trecgain: warning: ` or `trecgain: note: ` line (a numpy RuntimeWarning is a finding);
and no input file (Q R S T D G F E X) is ever changed (the files are checked, and restored,
after every input).

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_compare.py -max_total_time=600 -timeout=20 \
        -rss_limit_mb=2048 -max_len=4096 -dict=fuzz/atheris/compare.dict \
        -artifact_prefix=fuzz/atheris/corpus/_artifacts/ fuzz/atheris/corpus/compare
    (seeds: fuzz/atheris/seeds.py)
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_compare.py FILE
"""

import gzip
import io
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    import trecgain.cli
    import trecgain.cli.compare
    import trecgain.comparison.plot
    import trecgain.comparison.render
    import trecgain.comparison
    import trecgain.evaluate
    import trecgain.output
    import trecgain.comparison.stats  # noqa: F401
    from trecgain.cli import main, parsed

import matplotlib.figure  # noqa: E402,F401  (imported once, not per input)
import scipy.stats  # noqa: E402,F401

NAME = "compare"
SANDBOX = tempfile.mkdtemp(prefix="trecgain-fuzz-compare-")
INPUTS = {
    "Q": _common.QRELS_TEXT,
    "R": _common.RUN_TEXT,
    "S": b"1 Q0 d4 1 9 other\n1 Q0 d2 2 8 other\n3 Q0 f1 1 1 other\n",
    "T": b"1 Q0 d2 1 9 tag\n1 Q0 d1 2 8 tag\n2 Q0 e1 1 5 tag\n3 Q0 f1 1 1 tag\n",
    "D": b"1 Q0 d4 1 9 $\\foo$\n2 Q0 e1 1 5 $\\foo$\n3 Q0 f1 1 1 $\\foo$\n",  # matplotlib's mathematics
    "G": gzip.compress(_common.RUN_TEXT, mtime=0),
    "F": b"1 0 d1 2.5\n1 0 d2 0.5\n1 0 d3 0\n2 0 e1 1\n",
    "E": b"",
    "X": b"1 Q0 d1 1 3 tag\n1 Q0 d2\n",
}
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4"
       b"\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
SLOW = 2000  # --permutations / --bootstrap above this are skipped
FAST = ["--permutations", "200", "--bootstrap", "200"]  # put first: the input's own values come later and win


def _restore() -> None:
    """Every input file as it should be; the figures a previous input drew removed."""
    for name in os.listdir(SANDBOX):
        if name not in INPUTS:
            os.unlink(os.path.join(SANDBOX, name))
    for name, content in {**INPUTS, "P": PNG}.items():
        path = os.path.join(SANDBOX, name)
        try:
            with open(path, "rb") as f:
                if f.read() == content:
                    continue
        except OSError:
            pass
        with open(path, "wb") as f:
            f.write(content)


def _changed() -> list[str]:
    """The input files whose bytes are no longer what they were."""
    out = []
    for name, content in INPUTS.items():
        try:
            with open(os.path.join(SANDBOX, name), "rb") as f:
                same = f.read() == content
        except OSError:
            same = False
        if not same:
            out.append(name)
    return out


def _wanted(argv: list[str]) -> bool:
    """Whether the input stays inside the sandbox and is not merely slow."""
    try:
        options = parsed(argv, "compare")
        files = options["files"]
    except Exception:  # main() reports it; nothing is opened
        return True  # main() reports it; nothing is opened
    if any("/" in f for f in files) or "/" in (options.get("plot") or ""):
        return False
    for key in ("permutations", "bootstrap"):
        digits = (options.get(key) or "").strip().lstrip("+").lstrip("0")
        if digits.isascii() and digits.isdigit() and (len(digits) > 6 or int(digits) > SLOW):
            return False
    return True


def _one(data: bytes) -> None:
    argv = [_common.text(a) for a in data.split(b"\0")] if data else []
    if not _wanted(argv):
        return
    _restore()
    streams = [io.TextIOWrapper(io.BytesIO(b), encoding="utf-8", errors=e, write_through=True)
               for b, e in ((_common.RUN_TEXT, "surrogateescape"), (b"", "surrogateescape"),
                            (b"", "backslashreplace"))]  # stderr's handler, as Python sets it
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # as in a fresh process: every warning is printed
            status = main(["compare", *FAST, *argv])
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:
        sys.stdin, sys.stdout, sys.stderr = saved
        _common.record(NAME, data, err)
        return
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    out, err = streams[1].buffer.getvalue(), streams[2].buffer.getvalue()
    problem = None
    changed = _changed()
    if changed:
        problem = f"input changed: {', '.join(changed)} (status {status})"
    elif not isinstance(status, int) or isinstance(status, bool):
        problem = f"status not an int: {status!r}"
    elif status != 0 and out:
        problem = f"stdout not empty with status {status}: {out[:200]!r}"
    elif status != 0 and (err.count(b"\n") != 1 or not err.endswith(b"\n")):
        problem = f"stderr not one line with status {status}: {err[:300]!r}"
    elif status == 0 and not out:
        problem = "stdout empty with status 0"
    elif status == 0 and any(not line.startswith((b"trecgain: warning: ", b"trecgain: note: "))
                             for line in err.splitlines()):
        problem = f"stderr on success is not warnings or notes: {err[:300]!r}"
    if problem:
        kind = problem.split(":")[0]
        _common.record(NAME, data, _common.Finding(f"{kind}: {problem} (argv {argv!r})"))


def TestOneInput(data: bytes) -> None:
    _one(data)
    for variant in _common.widened(data):
        _one(variant)


if __name__ == "__main__":
    atheris.Setup(_common.absolute_argv(sys.argv), TestOneInput)
    os.chdir(SANDBOX)
    _restore()
    atheris.Fuzz()
