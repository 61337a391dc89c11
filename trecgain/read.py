"""Where qrels and runs come from (stage 1, the Python side): paths, `-`, open files and
pytrec_eval-style dicts, handed to the core's reader (`trecgain._core`), which streams and
checks them.  Dicts are checked here, since their values are Python objects."""

from __future__ import annotations

import io
import math
import os
import sys
from . import _core
from .errors import TrecgainError

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import IO, Union

    Source = Union[str, "os.PathLike[str]", IO[bytes], IO[str], dict]


def describe(source: Source) -> str:
    """The name used for a source in messages."""
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        return "(standard input)" if text == "-" else text
    return getattr(source, "name", None) or "<stream>"


def read_qrels(source: Source, fractional: bool = False) -> _core.Qrels:
    """Read a qrels file (`qid iter docno grade`), or a pytrec_eval-style dict."""
    if isinstance(source, dict):
        return _qrels_from_dict(source, fractional)
    return _core.Qrels.read(_raw(source), describe(source), fractional)


def read_run(source: Source) -> _core.Run:
    """Read a run file (`qid iter docno rank score tag ...`), or a pytrec_eval-style dict."""
    if isinstance(source, dict):
        return _run_from_dict(source)
    return _core.Run.read(_raw(source), describe(source))


def _raw(source: Source) -> object:
    """What the core reads: a path as text, or a binary file object (standard input for '-')."""
    if isinstance(source, (str, os.PathLike)):
        if os.fspath(source) != "-":
            return os.fspath(source)
        if sys.stdin is None:
            raise TrecgainError("cannot read: standard input is closed", "(standard input)")
        return sys.stdin.buffer
    return _binary(source)


def _open(source: Source) -> tuple[str, IO[bytes], bool]:
    """Open a path, '-' or a file object as a binary stream, gzip detected by content
    (for gdeval, which reads its files itself)."""
    name = describe(source)
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        try:
            stream, owned = open(source, "rb"), True
        except OSError as err:
            raise TrecgainError(f"cannot read: {err.strerror or err}", name) from None
    else:
        stream, owned = _raw(source), False  # type: ignore[assignment]
    if not hasattr(stream, "peek"):
        stream = io.BufferedReader(stream)  # type: ignore[arg-type]
    try:
        magic = stream.peek(2)[:2]
    except OSError as err:
        raise TrecgainError(f"cannot read: {err.strerror or err}", name) from None
    if magic == b"\x1f\x8b":
        import gzip

        stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
    return name, stream, owned


def _binary(stream: IO) -> IO[bytes]:
    """A binary view of a file object that may be text."""
    if isinstance(stream, io.TextIOBase):
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            return buffer
        return io.BytesIO(stream.read().encode("utf-8", "surrogateescape"))
    return stream  # type: ignore[return-value]


def _qrels_from_dict(qrels: dict, fractional: bool = False) -> _core.Qrels:
    """pytrec_eval shape: {qid: {docno: grade}}."""
    rows = [(_key(q), _key(d), g) for q, docs in qrels.items() for d, g in docs.items()]
    if not rows:
        raise TrecgainError("no judgments in the qrels", "qrels")
    for q, d, g in rows:
        number = _is_integer(g) or fractional and isinstance(g, float)
        if isinstance(g, bool) or not number or (fractional and not math.isfinite(g)):
            hint = "" if fractional or not isinstance(g, float) else " (fractional_grades=True accepts it)"
            raise TrecgainError(f"grade {g!r} of document '{_text(d)}' is not an integer{hint}", "qrels")
    return _core.Qrels.from_judgments("qrels", [(q, d, float(g)) for q, d, g in rows], fractional)


def _is_integer(value: object) -> bool:
    return isinstance(value, int) or type(value).__name__.startswith(("int", "uint"))  # numpy integers too


def _run_from_dict(run: dict) -> _core.Run:
    """pytrec_eval shape: {qid: {docno: score}}."""
    rows = [(_key(q), _key(d), s) for q, docs in run.items() for d, s in docs.items()]
    empty = [_key(q) for q, docs in run.items() if not docs]  # evaluated with nothing retrieved, as pytrec_eval does
    if not rows and not empty:
        raise TrecgainError("no results in the run", "run")
    scores = [float(s) for _, _, s in rows]
    if not all(math.isfinite(s) for s in scores):
        raise TrecgainError("a score is not a finite number", "run")
    return _core.Run.from_lines("run", [(q, d, s) for (q, d, _), s in zip(rows, scores)], empty)


def _key(value: object) -> bytes:
    """A query or document id as bytes; str is encoded as UTF-8 (surrogates pass through)."""
    if isinstance(value, bytes):
        key = value
    else:
        key = str(value).encode("utf-8", "surrogateescape")
    if not key or any(c in key for c in b" \t\n\r\v\f\0"):
        raise TrecgainError(f"identifier {value!r} is empty or contains whitespace")
    return key


def _text(value: bytes) -> str:
    return bytes(value).decode("utf-8", "backslashreplace")
