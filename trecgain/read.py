"""Where qrels and runs come from (stage 1, the Python side): paths, `-`, open files and
pytrec_eval-style dicts, handed to the core's reader (`trecgain._core`), which streams and
checks them.  Dicts are walked by the core too, which hands what it does not read natively
back to the rules for ids, grades and scores (trecgain.check); DataFrames and iterables of tuples in trecgain.rows;
anything else is refused with a message."""

from __future__ import annotations

import io
import os
import sys
from . import _core, check, rows
from .check import show
from .errors import TrecgainError

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import IO, Iterable, Union

    Source = Union[str, "os.PathLike[str]", IO[bytes], IO[str], dict, Iterable[tuple]]  # or a DataFrame


def describe(source: Source) -> str:
    """The name used for a source in messages."""
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        text = os.fsdecode(text) if isinstance(text, bytes) else text
        return "(standard input)" if text == "-" else _printable(text)
    name = getattr(source, "name", None)
    return _printable(name) if isinstance(name, str) and name else "<stream>"


def _printable(name: str) -> str:
    """A file name as messages show it: bytes that are not UTF-8 (surrogateescape's
    '\\udcff') as '\\xff', control characters as escapes, so a message is one line of text."""
    if name.isprintable():
        return name
    try:
        text = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte: shown as \\ud800
        text = name.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def read_qrels(source: Source, fractional: bool = False, rel_format: str = "qrels") -> _core.Qrels:
    """Read a qrels file (`qid iter docno grade`), a pytrec_eval-style dict, a DataFrame or rows (see rows.py);
    with rel_format "qrels_jg", "prefs" or "qrels_prefs" (trec_eval's -R), a file of that format; with
    "subtopics", a file or rows of (qid, subtopic, docno, grade)."""
    if rel_format == "subtopics" and rows.is_rows(source) and not _is_mapping(source):
        return rows.subtopic_qrels_from_rows(source)
    if rel_format != "qrels":
        return _core.Qrels.read(_raw(source, rel_format), describe(source), fractional, rel_format)
    if _is_mapping(source):
        return _qrels_from_dict(source, fractional)
    if rows.is_frame(source):
        return rows.qrels_from_frame(source, fractional)
    if rows.is_rows(source):
        return rows.qrels_from_rows(source, fractional)
    return _core.Qrels.read(_raw(source, "qrels"), describe(source), fractional)


def read_zscores(source: Source) -> tuple[tuple[bytes, bytes, float, float], ...]:
    """Read a -Z file, `qid measure mean stddev` per line (trec_eval's get_zscores.c; comment
    lines allowed), or take {qid: {line name: (mean, stddev)}}: the rows, in file order."""
    if _is_mapping(source):
        return tuple((_zscore_key(q), _zscore_key(m), *_zscore_pair(v, q, m))  # type: ignore[misc]
                     for q, lines in source.items() for m, v in lines.items())  # type: ignore[union-attr]
    name, stream, owned = open_source(source)
    out = []
    try:
        for number, raw in enumerate(stream, 1):
            if raw.startswith(b"#"):
                continue
            fields = raw.split()
            if len(fields) != 4:
                found = "blank line" if not fields else f"{len(fields)} field{'s' if len(fields) > 1 else ''}"
                raise TrecgainError(f"malformed zscores line: {found}, expected exactly 4 (qid measure mean "
                                    "stddev)", name, number)
            values = []
            for text in fields[2:]:
                try:  # atof's numbers: decimals, exponents, inf and nan (in 9.x's own test file)
                    values.append(float(text) if b"_" not in text else float("x"))
                except ValueError:
                    raise TrecgainError(f"{show(text.decode('utf-8', 'replace'))} is not a number", name,
                                        number) from None
            out.append((fields[0], fields[1], values[0], values[1]))
    except OSError as err:
        raise TrecgainError(f"cannot read: {err.strerror or err}", name) from None
    finally:
        if owned:
            stream.close()
    if not out:
        raise TrecgainError("no lines in the zscores file", name)
    return tuple(out)


def _zscore_key(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str) and value and not any(c.isspace() for c in value):
        return value.encode("utf-8", "surrogateescape")
    raise TrecgainError(f"zscores: {show(value)} is not a qid or line name")


def _zscore_pair(value: object, qid: object, measure: object) -> tuple[float, float]:
    pair = tuple(value) if isinstance(value, (tuple, list)) else ()
    numbers = [check.real(x) if check.integer(x) is None else float(check.integer(x)) for x in pair]  # type: ignore[arg-type]
    if len(numbers) != 2 or any(x is None for x in numbers):
        raise TrecgainError(f"zscores[{show(qid)}][{show(measure)}] must be (mean, stddev), not {show(value)}")
    return numbers[0], numbers[1]  # type: ignore[return-value]


def read_run(source: Source, ranks: bool = False) -> _core.Run:
    """Read a run file (`qid iter docno rank score tag ...`), a pytrec_eval dict, a DataFrame or rows
    (rows.py); with `ranks`, the rank column too (for ties="rank": only a run file has one)."""
    if _is_mapping(source):
        if ranks:
            raise TrecgainError("a {qid: {docno: score}} dict has no rank column: ties='rank' needs a run file",
                                "run")
        return _run_from_dict(source)
    if ranks and (rows.is_frame(source) or rows.is_rows(source)):
        raise TrecgainError("only a run file has a rank column: ties='rank' needs one", "run")
    if rows.is_frame(source):
        return rows.run_from_frame(source)
    if rows.is_rows(source):
        return rows.run_from_rows(source)
    return _core.Run.read(_raw(source, "run"), describe(source), bool(ranks))


def _is_mapping(value: object) -> bool:
    if isinstance(value, dict):
        return True
    if not hasattr(value, "keys"):
        return False
    from collections.abc import Mapping  # not at start-up: dicts are the usual case

    return isinstance(value, Mapping)


def _raw(source: Source, what: str = "input") -> object:
    """What the core reads: a path as text, or a binary file object (standard input for '-').
    Anything else is refused here, with a message saying what a source may be."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not path:
            raise TrecgainError("the path is empty", what)
        if path != "-":
            if "\0" in path:
                raise TrecgainError("cannot read: the path contains a NUL character", describe(source))
            try:
                path.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                raise TrecgainError("cannot read: the path has a lone surrogate that stands for no byte",
                                    describe(source)) from None
            return path
        if sys.stdin is None:
            raise TrecgainError("cannot read: standard input is closed", "(standard input)")
        name, source = "(standard input)", getattr(sys.stdin, "buffer", sys.stdin)
    else:
        name = describe(source)
    if isinstance(source, (_core.Qrels, _core.Run)) or not callable(getattr(source, "read", None)):
        raise TrecgainError(_not_a_source(source, what), what)
    if getattr(source, "closed", False) is True:
        raise TrecgainError("cannot read: the file is closed", name)
    readable = getattr(source, "readable", None)
    try:
        readable = readable() if callable(readable) else True
    except Exception:  # a closed or broken stream: its read says why
        readable = True
    if readable is False:
        raise TrecgainError("cannot read: the file is not open for reading", name)
    return _binary(source, name)


def _not_a_source(source: object, what: str) -> str:
    values = "grade" if what == "qrels" else "score"
    expected = (f"a path, '-', an open file, a {{qid: {{docno: {values}}}}} dict, a DataFrame or "
                f"(qid, docno, {values}) tuples")
    if isinstance(source, (bytes, bytearray)):
        return f"bytes are not a source: expected {expected} (contents: io.BytesIO(data); a path: os.fsdecode(path))"
    return f"{check.a(source)} is not a source: expected {expected}"


def open_source(source: Source) -> tuple[str, IO[bytes], bool]:
    """Open a path, '-' or a file object as a binary stream, gzip detected by content (for
    gdeval, which reads its files itself): its name for messages, the stream, and whether the
    caller owns the stream (opened here: close it)."""
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
        import gzip  # not at import: only this path needs it

        stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
    return name, stream, owned


def _binary(stream: IO, name: str = "<stream>") -> IO[bytes]:
    """A binary view of a file object that may be text (`name`: for messages)."""
    if isinstance(stream, io.TextIOBase):
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            return buffer
        try:
            data = stream.read()
        except (OSError, ValueError) as err:
            raise TrecgainError(f"cannot read: {getattr(err, 'strerror', None) or err}", name) from None
        try:
            return io.BytesIO(data.encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError as err:
            raise TrecgainError(f"cannot read: character {show(data[err.start])} at offset {err.start} is a lone "
                                "surrogate that stands for no byte", name) from None
    return stream  # type: ignore[return-value]


class _DictRules:
    """trecgain.check's rules for what the core does not read natively as it walks a dict
    (`_core.Qrels.from_dict`, `_core.Run.from_dict`): an id other than a str, bytes or int, a
    value other than a float score or an int grade, and every fault; each raises
    TrecgainError for a refused value."""

    key = staticmethod(check.key)

    @staticmethod
    def documents(q: object, docs: object, what: str) -> None:
        """Refuse a query's documents that are not a mapping."""
        if not _is_mapping(docs):
            raise TrecgainError(f"query {show(q)}: its documents must be a dict {{docno: {_VALUES[what]}}}, not "
                                f"{show(docs)}", what)

    @staticmethod
    def same_query(first: object, second: object, what: str) -> None:
        """Refuse two query ids that name the same query."""
        raise TrecgainError(f"query ids {show(first)} and {show(second)} name the same query", what)

    @staticmethod
    def score(value: object, docno: object, q: object) -> float:
        """A run's score."""
        return check.score(value, _where(docno, q), "run")

    @staticmethod
    def grade(value: object, docno: object, q: object, fractional: bool) -> float:
        """A qrels' grade."""
        return check.grade(value, fractional, _where(docno, q), "qrels")


_VALUES = {"qrels": "grade", "run": "score"}


def _where(docno: object, q: object) -> str:
    return f"document {show(docno)} of query {show(q)}"


def _qrels_from_dict(qrels: dict, fractional: bool = False) -> _core.Qrels:
    """pytrec_eval shape: {qid: {docno: grade}}, walked by the core; the rules of grades and
    ids: trecgain.check."""
    return _core.Qrels.from_dict("qrels", qrels, fractional, _DictRules)


def _run_from_dict(run: dict) -> _core.Run:
    """pytrec_eval shape: {qid: {docno: score}}, walked by the core; a query given as {} is
    evaluated with nothing retrieved, as pytrec_eval does."""
    return _core.Run.from_dict("run", run, _DictRules)
