"""Shared by the atheris harnesses: the property (only TrecgainError may escape), finding
collection, and the small fixed collection the end-to-end checks evaluate.

Findings mode (default): an exception other than TrecgainError is recorded under
fuzz/atheris/corpus/_findings/<harness>/ (git-ignored with the corpora) -- one file per signature (exception type + the innermost
trecgain frame), keeping the shortest input seen -- and fuzzing goes on, so one run reports
every distinct bug rather than stopping at the first.  With TRECGAIN_FUZZ_STRICT=1 the
exception propagates instead and libFuzzer stops with a crash-<sha1> file, as usual (use
this to replay a reproducer: `python fuzz/atheris/fuzz_X.py crash-file`).
"""

from __future__ import annotations

import hashlib
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STRICT = os.environ.get("TRECGAIN_FUZZ_STRICT") == "1"
FINDINGS = os.environ.get("TRECGAIN_FUZZ_FINDINGS", os.path.join(HERE, "corpus", "_findings"))

if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# Deep nesting in ir_measures parameter lists must hit Python's own limit, not the C stack.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))

QRELS_TEXT = (b"1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n1 0 d4 3\n1 0 d9 -1\n"
              b"2 0 e1 1\n2 0 e2 0\n3 0 f1 0\n")
RUN_TEXT = (b"1 Q0 d1 1 3.5 tag\n1 Q0 d3 2 3.0 tag\n1 Q0 d5 3 2.5 tag\n1 Q0 d4 4 2.5 tag\n"
            b"1 Q0 d9 5 1 tag\n2 Q0 e2 1 9 tag\n2 Q0 e1 2 8 tag\n4 Q0 x 1 1 tag\n")


class Finding(Exception):
    """A property violation that is not itself an exception (e.g. the CLI's stderr shape)."""


def _signature(err: BaseException) -> str:
    frames = traceback.extract_tb(err.__traceback__)
    where = "unknown"
    for frame in frames:
        if os.sep + "trecgain" + os.sep in frame.filename:
            where = f"{os.path.basename(frame.filename)}-{frame.lineno}"
    if isinstance(err, Finding):
        return f"Finding-{str(err).split(':', 1)[0].replace(' ', '_')[:60]}"
    # The message's first two words (letters only) tell apart errors the core raises from one call.
    words = ["".join(c for c in w if c.isalpha()) for w in str(err).split()[:2]]
    return f"{type(err).__name__}-{where}-{'_'.join(w for w in words if w)[:30]}"


def record(harness: str, data: bytes, err: BaseException) -> None:
    """Keep the shortest input per signature, with its traceback; or re-raise (strict)."""
    if STRICT:
        raise err
    sig = _signature(err)
    folder = os.path.join(FINDINGS, harness)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, sig + ".input")
    try:
        old = os.path.getsize(path)
    except OSError:
        old = None
    if old is not None and old <= len(data):
        return
    with open(path, "wb") as f:
        f.write(data)
    with open(os.path.join(folder, sig + ".txt"), "w", encoding="utf-8", errors="backslashreplace") as f:
        f.write(f"input ({len(data)} bytes, sha1 {hashlib.sha1(data).hexdigest()}): {data[:2000]!r}\n\n")
        f.write("".join(traceback.format_exception(type(err), err, err.__traceback__)))
    if old is None:
        sys.stderr.write(f"\n=== NEW FINDING {harness}/{sig}: {type(err).__name__}: {str(err)[:200]!r}\n")
        sys.stderr.flush()


def checked(harness: str, data: bytes, fn, *args, **kwargs):
    """Call fn; TrecgainError is fine (returns None), anything else is a finding."""
    from trecgain.errors import TrecgainError

    try:
        return fn(*args, **kwargs)
    except TrecgainError:
        return None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # pyo3's PanicException is a BaseException
        record(harness, data, err)
        return None


WIDE = os.environ.get("TRECGAIN_FUZZ_WIDE", "1") == "1"
#: Widths past float's range (10**309) and past int()'s default 4300-digit limit.
WIDTHS = (310, 4301)


def widened(data: bytes, skip: int = 0) -> list[bytes]:
    """Big-number variants of an input: its first and its last run of ASCII digits (after
    `skip` bytes) repeated out to each of WIDTHS digits.  libFuzzer's mutations seldom grow a
    number past a few dozen digits (nothing in the coverage rewards it), yet int(), float()
    and the core's integer conversions fail exactly there.  TRECGAIN_FUZZ_WIDE=0 turns this off."""
    import re

    if not WIDE:
        return []
    runs = list(re.finditer(rb"[0-9]+", data[skip:]))
    if not runs:
        return []
    out = []
    for run in dict.fromkeys((runs[0].span(), runs[-1].span())):
        start, end = run[0] + skip, run[1] + skip
        digits = data[start:end]
        for width in WIDTHS:
            out.append(data[:start] + (digits * (width // len(digits) + 1))[:width] + data[end:])
    return out


def absolute_argv(argv: list[str]) -> list[str]:
    """libFuzzer's path arguments made absolute, for a harness that changes directory."""
    out = []
    for arg in argv:
        if arg.startswith("-") and "=" in arg and arg.split("=", 1)[0] in ("-dict", "-artifact_prefix",
                                                                           "-exact_artifact_path"):
            key, value = arg.split("=", 1)
            arg = f"{key}={os.path.abspath(value)}" + ("/" if value.endswith("/") else "")
        elif not arg.startswith("-") and os.path.exists(arg):
            arg = os.path.abspath(arg)
        out.append(arg)
    return out


def text(data: bytes) -> str:
    """Bytes as the OS hands them to Python (argv, file names): UTF-8, undecodable bytes as
    surrogate escapes."""
    return data.decode("utf-8", "surrogateescape")


def fixed_collection():
    """The small qrels and run (core objects, read once) the end-to-end checks evaluate."""
    import io

    from trecgain.read import read_qrels, read_run

    return read_qrels(io.BytesIO(QRELS_TEXT)), read_run(io.BytesIO(RUN_TEXT))
