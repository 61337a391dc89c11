"""Fuzz the command line: trecgain.cli.main(argv) with arbitrary argument lists (trec_eval's
option parser: bundles, attached values, long-name prefixes, `--`; every option's checks;
`-h -m NAME`; `trecgain gdeval`), evaluating small fixed files in a private temporary
directory so each input runs in about a millisecond.

Input: the argument list, NUL-separated as in /proc/PID/cmdline (an argument can hold any
byte but NUL, as a real argv can); each argument decoded as Python decodes argv (UTF-8,
surrogate escapes).  The working directory is a fresh temporary directory holding
  Q   qrels (grades -1..3)        R, S   runs           G   a gzipped run
  F   qrels with fractional grades C   run with CRLF, a lone CR and a comment
  E   an empty file               X    a run with a bad line
and standard input holds a run, so `-` works.  File names containing '/' are skipped (no
file outside the directory is ever read); other names not listed simply do not exist.

Property: main() returns an int and never raises; when the status is not 0, stdout is
empty and stderr is exactly one line (one b"\\n", at the end); when it is 0, every stderr
line is a `trecgain: warning: ` line.

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_cli.py -max_total_time=600 -timeout=10 \
        -rss_limit_mb=2048 -max_len=8192 -dict=fuzz/atheris/cli.dict -artifact_prefix=fuzz/atheris/corpus/_artifacts/ \
        fuzz/atheris/corpus/cli   (seeds: fuzz/atheris/seeds.py)
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_cli.py FILE
"""

import gzip
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    import trecgain.cli
    import trecgain.evaluate  # noqa: F401
    import trecgain.gdeval  # noqa: F401
    from trecgain.cli import main, parsed

NAME = "cli"
SANDBOX = tempfile.mkdtemp(prefix="trecgain-fuzz-cli-")
FILES = {
    "Q": _common.QRELS_TEXT,
    "R": _common.RUN_TEXT,
    "S": b"1 Q0 d4 1 9 other\n1 Q0 d2 2 8 other\n3 Q0 f1 1 1 other\n",
    "G": gzip.compress(_common.RUN_TEXT, mtime=0),
    "F": b"1 0 d1 2.5\n1 0 d2 0.5\n1 0 d3 0\n2 0 e1 1\n",
    "C": b"# comment\r\n1 Q0 d1 1 3 tag\r\n1 Q0 d2 2 2 tag\r1 Q0 d4 3 1 tag\r\n",
    "E": b"",
    "X": b"1 Q0 d1 1 3 tag\n1 Q0 d2\n",
}
for _name, _content in FILES.items():
    with open(os.path.join(SANDBOX, _name), "wb") as _f:
        _f.write(_content)


def _files(argv: list[str]) -> list[str] | None:
    """The file names main() would open (None: the command line does not parse)."""
    if argv[:1] == ["gdeval"]:
        return argv[1:3]
    try:
        options = parsed(argv)
        files = options["files"]
    except Exception:  # main() reports it; nothing is opened
        return None  # main() reports it; nothing is opened
    if options.get("jobs") is not None and len(files) > 4:
        return ["/"]  # at most 3 runs in worker processes: forks are slow
    return list(files)


def _one(data: bytes) -> None:
    argv = [_common.text(a) for a in data.split(b"\0")] if data else []
    files = _files(argv)
    if files is not None and any("/" in f for f in files):
        return
    streams = [io.TextIOWrapper(io.BytesIO(b), encoding="utf-8", errors=e, write_through=True)
               for b, e in ((_common.RUN_TEXT, "surrogateescape"), (b"", "surrogateescape"),
                            (b"", "backslashreplace"))]  # stderr's handler, as Python sets it
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        status = main(argv)
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
    if not isinstance(status, int) or isinstance(status, bool):
        problem = f"status not an int: {status!r}"
    elif status != 0 and out:
        problem = f"stdout not empty with status {status}: {out[:200]!r}"
    elif status != 0 and (err.count(b"\n") != 1 or not err.endswith(b"\n")):
        problem = f"stderr not one line with status {status}: {err[:300]!r}"
    elif status == 0 and any(not line.startswith(b"trecgain: warning: ") for line in err.splitlines()):
        problem = f"stderr on success is not warnings: {err[:300]!r}"
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
    atheris.Fuzz()
