"""Fuzz `trecgain explain`'s command line: trecgain.cli.main(["explain", *argv]) -- the entry
point the command uses -- with arbitrary argument lists (every option of trecgain.cli.explain and
its checks: -m and --query, -l, -J, -M, --compat, --global-gains, --discount, --exact-ideal,
--fractional-grades, --ties, --format, -h), explaining small fixed files in a private
temporary directory.

Input: the argument list after `explain`, NUL-separated as in /proc/PID/cmdline, each
argument decoded as Python decodes argv (UTF-8, surrogate escapes).  The working directory
is a fresh temporary directory holding
  Q   qrels (grades -1..3)     R   a run (ties at 2.5)     G   R gzipped
  T   a run with ties of different grades and scores that tie only as float32
  N   a run whose scores overflow float32 (1e39: infinite under --compat 9)
  F   qrels with fractional grades    E   an empty file    X   a run with a bad line
and standard input holds a run, so `-` works.  File names containing '/' are skipped (no
file outside the directory is ever read); other names simply do not exist.

Property: main() returns an int and never raises; when the status is not 0, stdout is
empty and stderr exactly one line; when it is 0, stdout is not empty, every stderr line is
a `trecgain: warning: ` line, and with --format json stdout is strict JSON (no NaN,
Infinity).  No input file is ever changed.

Seeds and the dictionary: `.venv/bin/python fuzz/atheris/fuzz_explain.py --seeds` writes
fuzz/atheris/corpus/explain/ and fuzz/atheris/explain.dict.

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_explain.py -max_total_time=600 -timeout=10 \
        -rss_limit_mb=2048 -max_len=4096 -dict=fuzz/atheris/explain.dict \
        -artifact_prefix=fuzz/atheris/corpus/_artifacts/ fuzz/atheris/corpus/explain
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_explain.py FILE
"""

import gzip
import hashlib
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    import trecgain.cli
    import trecgain.evaluate
    import trecgain.explain
    import trecgain.formats
    import trecgain.output  # noqa: F401  (the swapped-files check)
    from trecgain.cli import main, option_names, parsed

NAME = "explain"
SANDBOX = tempfile.mkdtemp(prefix="trecgain-fuzz-explain-")
INPUTS = {
    "Q": _common.QRELS_TEXT,
    "R": _common.RUN_TEXT,
    "G": gzip.compress(_common.RUN_TEXT, mtime=0),
    "T": (b"1 Q0 d2 1 0.5 t\n1 Q0 d1 2 0.5 t\n1 Q0 d4 3 0.5 t\n1 Q0 d3 4 0.1 t\n"
          b"1 Q0 d9 5 0.10000001 t\n2 Q0 e1 1 1 t\n2 Q0 e2 2 1 t\n"),
    "N": b"1 Q0 d1 1 1e39 t\n1 Q0 d2 2 2e39 t\n1 Q0 d4 3 1 t\n2 Q0 e1 1 -1e39 t\n",
    "F": b"1 0 d1 2.5\n1 0 d2 0.5\n1 0 d3 0\n2 0 e1 1\n",
    "E": b"",
    "X": b"1 Q0 d1 1 3 tag\n1 Q0 d2\n",
}
SEEDS = [
    ["-m", "ndcg", "--query", "1", "Q", "R"], ["-m", "ndcg_cut.1,3,10", "--query", "1", "Q", "T"],
    ["-m", "nDCG@3", "-m", "DCG", "--query", "2", "--format", "json", "Q", "R"],
    ["-m", "ndcg", "--query", "1", "--compat", "9", "--format", "json", "Q", "N"],
    ["-m", "dcg_cut.2", "--query", "1", "--compat", "9", "Q", "T"],
    ["-m", "ndcg", "--query", "1", "--global-gains", "exp", "--discount", "jk:3", "Q", "R"],
    ["-m", "ndcg.1=1e300,2=-1e300", "--query", "1", "--exact-ideal", "Q", "R"],
    ["-m", "ndcg_p", "--query", "1", "--ties", "average", "Q", "T"],
    ["-m", "cg_cut.2", "--query", "1", "--ties", "rank", "-J", "-M", "2", "Q", "T"],
    ["-m", "ideal_dcg", "--query", "2", "-l", "2", "--fractional-grades", "F", "R"],
    ["-m", "ndcg", "--query", "3", "Q", "R"], ["-m", "ndcg", "--query", "4", "Q", "G"],
    ["-m", "ndcg", "--query", "1", "Q", "-"], ["-m", "ndcg", "--query", "1", "Q", "X"],
    ["-m", "ndcg", "--query", "1", "E", "R"], ["-m", "map", "--query", "1", "Q", "R"],
    ["-m", "ndcg", "--query", "1", "--discount", "log:e", "--global-gains", "1=0.5,2=3", "Q", "N"],
    ["--help"], [], ["-m", "ndcg", "Q", "R"],
]
TOKENS = (["\0", "-", "--", "=", "Q", "R", "G", "T", "N", "F", "E", "X", "1", "2", "3", "4", "9", "10", "text", "json",
           "docno", "rank", "average", "linear", "exp", "binary", "log:2", "log:e", "log:10", "jk:2", "1=1,2=3",
           "ndcg", "ndcg_cut", "dcg", "dcg_cut", "ideal_dcg", "ndcg_p", "cg_cut", "nDCG@", "DCG@", ".", ",", "1e39",
           "-1", "0"]
          + option_names("explain"))


def _restore() -> None:
    """Every input file as it should be, and nothing else in the directory."""
    for name in os.listdir(SANDBOX):
        if name not in INPUTS:
            os.unlink(os.path.join(SANDBOX, name))
    for name, content in INPUTS.items():
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


def _options(argv: list[str]) -> dict | None:
    """explain's options, or None: the input would read outside the sandbox (or does not
    parse: main() reports that, and opens nothing)."""
    try:
        options = parsed(argv, "explain")
        files = options["files"]
    except Exception:  # main() reports it; nothing is opened
        return {}
    return None if any("/" in f for f in files) else options


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _json_problem(out: bytes) -> str | None:
    """Why --format json's output is not strict JSON, or None."""
    try:
        json.loads(out, parse_constant=_no_constant)
    except ValueError as err:
        return f"not strict JSON: {err}"
    return None


def _one(data: bytes) -> None:
    argv = [_common.text(a) for a in data.split(b"\0")] if data else []
    options = _options(argv)
    if options is None:
        return
    streams = [io.TextIOWrapper(io.BytesIO(b), encoding="utf-8", errors=e, write_through=True)
               for b, e in ((_common.RUN_TEXT, "surrogateescape"), (b"", "surrogateescape"),
                            (b"", "backslashreplace"))]  # stderr's handler, as Python sets it
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        status = main(["explain", *argv])
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
        _restore()
    elif not isinstance(status, int) or isinstance(status, bool):
        problem = f"status not an int: {status!r}"
    elif status != 0 and out:
        problem = f"stdout not empty with status {status}: {out[:200]!r}"
    elif status != 0 and (err.count(b"\n") != 1 or not err.endswith(b"\n")):
        problem = f"stderr not one line with status {status}: {err[:300]!r}"
    elif status == 0 and not out:
        problem = "stdout empty with status 0"
    elif status == 0 and any(not line.startswith(b"trecgain: warning: ") for line in err.splitlines()):
        problem = f"stderr on success is not warnings: {err[:300]!r}"
    elif status == 0 and options.get("format") == "json" and not options.get("show_help"):
        problem = _json_problem(out)
    if problem:
        kind = problem.split(":")[0]
        _common.record(NAME, data, _common.Finding(f"{kind}: {problem} (argv {argv!r})"))


def TestOneInput(data: bytes) -> None:
    _one(data)
    for variant in _common.widened(data):
        _one(variant)


def write_seeds() -> None:
    """The seed corpus (fuzz/atheris/corpus/explain/) and the dictionary (explain.dict)."""
    folder = os.path.join(_common.HERE, "corpus", NAME)
    os.makedirs(folder, exist_ok=True)
    for argv in SEEDS:
        seed = b"\0".join(a.encode() for a in argv)
        with open(os.path.join(folder, "seed-" + hashlib.sha1(seed).hexdigest()[:16]), "wb") as f:
            f.write(seed)
    with open(os.path.join(_common.HERE, f"{NAME}.dict"), "w") as f:
        f.write(f"# libFuzzer dictionary for fuzz_{NAME}.py (written by fuzz_{NAME}.py --seeds)\n")
        for token in dict.fromkeys(TOKENS):
            f.write('"' + "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else f"\\x{ord(c):02x}"
                                  for c in token) + '"\n')
    print(f"{NAME}: {len(SEEDS)} seeds in {folder}, dictionary {NAME}.dict")


if __name__ == "__main__":
    if sys.argv[1:] == ["--seeds"]:
        write_seeds()
        sys.exit(0)
    atheris.Setup(_common.absolute_argv(sys.argv), TestOneInput)
    os.chdir(SANDBOX)
    _restore()
    atheris.Fuzz()
