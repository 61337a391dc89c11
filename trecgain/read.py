"""Read TREC qrels and run files into columns (stage 1 of read -> rank -> label -> measures).

Files are streamed in chunks of whole lines and split on any run of whitespace with
numpy, so a 5M-line run never becomes 30M Python objects.  Every rule of the
reference reader is kept (see TREC_EVAL_SEMANTICS.md), except that a score or grade
that is not a number is an error naming the file and line, not a silent 0.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import zlib
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Callable, Iterator, Union

import numpy as np

from .errors import TrecgainError

Source = Union[str, "os.PathLike[str]", IO[bytes], IO[str], dict]

CHUNK_BYTES = 1 << 22
MAX_LINE_BYTES = 1 << 20  # a longer line is not a qrels or run line: refuse it, do not buffer it
MAX_ID_BYTES = 1024  # longest qid or docno (one longer one would widen every row's column)
_NEWLINE = 10
_HASH = ord("#")

# Whitespace as C's isspace sees it: space, \t, \n, \v, \f, \r.
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True
# Characters a decimal score may contain (NUL is the padding of numpy byte strings).
_SCORE_CHARS = np.zeros(256, dtype=bool)
_SCORE_CHARS[[0, *b"0123456789+-.eE"]] = True
_DIGITS = np.zeros(256, dtype=bool)
_DIGITS[[0, *b"0123456789"]] = True


@dataclass
class Qrels:
    """Judgments grouped by query (queries in byte order), with a hash index for joins."""

    source: str
    qids: np.ndarray  # S: distinct query ids, byte order
    offsets: np.ndarray  # int64, len(qids) + 1
    docnos: np.ndarray  # S: per judgment
    grades: np.ndarray  # int64: per judgment
    keys: np.ndarray  # uint64: doc_key(query, docno) of each judgment, sorted
    key_rows: np.ndarray  # int64: the judgment behind each sorted key


@dataclass
class Run:
    """Run lines in file order (blank and comment lines dropped)."""

    source: str
    qids: np.ndarray  # S: per line
    docnos: np.ndarray  # S: per line
    scores: np.ndarray  # float64: per line
    lines: np.ndarray  # int32/int64: 1-based line number in the file, per line
    tag: bytes  # run tag of the last line read
    empty_qids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype="S1"))  # {qid: {}} in a dict
    warnings: list[str] = field(default_factory=list)


class _Column:
    """A column filled chunk by chunk into one array that grows in place (no final join)."""

    def __init__(self) -> None:
        self.data: np.ndarray | None = None
        self.size = 0

    def append(self, part: np.ndarray, expected_rows: int) -> None:
        need = self.size + len(part)
        width = part.dtype.itemsize if part.dtype.kind == "S" else 0
        if self.data is None or need > len(self.data) or width > self._width():
            capacity = max(need, expected_rows, int(1.25 * len(self.data)) if self.data is not None else 0)
            self._grow(capacity, part.dtype, width)
        if width:
            self.data[self.size: need, :width] = part.view(np.uint8).reshape(len(part), width)
        else:
            self.data[self.size: need] = part
        self.size = need

    def _width(self) -> int:
        return self.data.shape[1] if self.data is not None and self.data.ndim == 2 else 0

    def _grow(self, capacity: int, dtype: np.dtype, width: int) -> None:
        if width:
            new = np.zeros((capacity, max(width, self._width())), dtype=np.uint8)
        else:
            new = np.empty(capacity, dtype=dtype)
        if self.data is not None:
            if width:
                new[: self.size, : self._width()] = self.data[: self.size]
            else:
                new[: self.size] = self.data[: self.size]
        self.data = new

    def array(self) -> np.ndarray:
        """The filled part (byte strings as a numpy 'S' array)."""
        if self.data is None:
            return np.zeros(0, dtype="S1")
        data = self.data[: self.size]
        if data.ndim == 2:
            return np.ascontiguousarray(data).view(f"S{data.shape[1]}").ravel()
        return data


@dataclass
class _Columns:
    """Converted fields of the data lines of one file, gathered chunk by chunk."""

    fields: list[_Column]
    lines: _Column
    last_tokens: list[bytes]
    lone_cr_line: int = 0  # first line holding a CR that does not end it (0: none)


def read_qrels(source: Source, fractional: bool = False) -> Qrels:
    """Read a qrels file (`qid iter docno grade`), or a pytrec_eval-style dict.

    Grades are integers, or with `fractional` any decimal number (2.5, as graders' averages
    or LLM judges give)."""
    if isinstance(source, dict):
        return _qrels_from_dict(source, fractional)
    grades = _parse_fractional_grades if fractional else _parse_grades
    name, cols = _read_columns(source, {0: _as_text, 2: _as_text, 3: grades}, exact=4, kind="qrels")
    qids, docnos, grades = (c.array() for c in cols.fields)
    if len(qids) == 0:
        raise TrecgainError("no judgments in the qrels file", name)
    return _make_qrels(name, qids, docnos, grades, cols.lines.array())


def read_run(source: Source) -> Run:
    """Read a run file (`qid iter docno rank score tag ...`), or a pytrec_eval-style dict."""
    if isinstance(source, dict):
        return _run_from_dict(source)
    name, cols = _read_columns(source, {0: _as_text, 2: _as_text, 4: _parse_scores}, exact=None, kind="run")
    qids, docnos, scores = (c.array() for c in cols.fields)
    if len(qids) == 0:
        raise TrecgainError("no results in the run file", name)
    warnings = []
    if cols.lone_cr_line:
        warnings.append(f"{name}:{cols.lone_cr_line}: a carriage return that does not end a line is "
                        "whitespace (as in trec_eval): lines separated by CR alone run together")
    return Run(name, qids, docnos, scores, cols.lines.array(), cols.last_tokens[-1], warnings=warnings)


# ---------------------------------------------------------------- sources


def describe(source: Source) -> str:
    """The name used for a source in messages."""
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        return "(standard input)" if text == "-" else text
    return getattr(source, "name", None) or "<stream>"


def _open(source: Source) -> tuple[str, IO[bytes], bool]:
    """Open a path, '-' or a file object as a binary stream; gzip is detected by content."""
    name = describe(source)
    if isinstance(source, (str, os.PathLike)):
        if os.fspath(source) == "-":
            import sys

            if sys.stdin is None:
                raise TrecgainError("cannot read: standard input is closed", name)
            stream, owned = sys.stdin.buffer, False
        else:
            try:
                stream, owned = open(source, "rb"), True
            except OSError as err:
                raise TrecgainError(f"cannot read: {err.strerror or err}", name) from None
    else:
        stream, owned = _binary(source), False
    if not hasattr(stream, "peek"):
        stream = io.BufferedReader(stream)  # type: ignore[arg-type]
    try:
        magic = stream.peek(2)[:2]
    except OSError as err:
        raise TrecgainError(f"cannot read: {err.strerror or err}", name) from None
    if magic == b"\x1f\x8b":
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


def _chunks(stream: IO[bytes], name: str) -> Iterator[bytes]:
    """Blocks of whole lines (the last one may lack its newline)."""
    rest = b""
    lines_before = 0
    while True:
        try:
            block = stream.read(CHUNK_BYTES)
        except (OSError, EOFError, zlib.error) as err:  # BadGzipFile is an OSError
            raise TrecgainError(f"cannot read: {err}", name) from None
        if not block:
            break
        data = rest + block if rest else block
        cut = data.rfind(b"\n")
        if cut < 0:
            if len(data) > MAX_LINE_BYTES:
                problem = "NUL byte in line" if b"\0" in data else f"line longer than {MAX_LINE_BYTES} bytes"
                raise TrecgainError(problem, name, lines_before + 1)
            rest = data
            continue
        lines_before += data.count(b"\n", 0, cut + 1)
        yield data[: cut + 1]
        rest = data[cut + 1 :]
    if rest:
        yield rest


# ---------------------------------------------------------------- splitting


Converter = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str], np.ndarray]


THREADS = 2  # numpy releases the GIL inside its loops: two chunks are split at once


def _read_columns(source: Source, fields: dict[int, Converter], exact: int | None,
                  kind: str) -> tuple[str, _Columns]:
    """Split every data line of a file and convert the wanted fields, chunk by chunk."""
    name, stream, owned = _open(source)
    cols = _Columns([_Column() for _ in fields], _Column(), [])
    pending: deque[Future] = deque()
    size = _size(stream)
    expected = 0

    def collect(future: Future) -> None:
        nonlocal expected
        converted, lines, tag = future.result()  # re-raises the chunk's error, in file order
        if not expected and len(lines):  # lines in the file, guessed from the first chunk
            expected = int(size / CHUNK_BYTES * len(lines) * 1.02) + 1024 if size else 16 * len(lines)
        for out, column in zip(cols.fields, converted):
            out.append(column, expected)
        cols.lines.append(lines, expected)
        if tag is not None:
            cols.last_tokens.append(tag)

    first_line = 1
    try:
        with ThreadPoolExecutor(THREADS) as pool:
            for chunk in _chunks(stream, name):
                if not chunk.endswith(b"\n"):
                    chunk += b"\n"
                pending.append(pool.submit(_split_chunk, chunk, first_line, fields, exact, kind, name))
                if not cols.lone_cr_line and chunk.count(b"\r") != chunk.count(b"\r\n"):
                    cr = re.search(rb"\r(?!\n)", chunk)
                    cols.lone_cr_line = first_line + chunk.count(b"\n", 0, cr.start())
                first_line += chunk.count(b"\n")
                if len(pending) > THREADS:
                    collect(pending.popleft())
            while pending:
                collect(pending.popleft())
    finally:
        for future in pending:
            future.cancel()
        if owned:
            stream.close()
    return name, cols


def _size(stream: IO[bytes]) -> int:
    """Bytes in a plain file (0 for pipes and compressed input)."""
    if isinstance(stream, gzip.GzipFile):
        return 0
    try:
        return os.fstat(stream.fileno()).st_size
    except (OSError, AttributeError, io.UnsupportedOperation):
        return 0


def _split_chunk(chunk: bytes, first_line: int, fields: dict[int, Converter], exact: int | None, kind: str,
                 name: str) -> tuple[list[np.ndarray], np.ndarray, bytes | None]:
    """One block of whole lines: its converted fields, line numbers, and last run tag."""
    buf = np.frombuffer(chunk, dtype=np.uint8)
    starts, ends, lines, _ = _split_regular(chunk, buf, exact or 6) or _split_uniform(chunk, buf, exact or 6) or _split_any(buf, exact, kind, name, first_line)
    lines = (lines + first_line).astype(np.int32 if first_line + len(buf) < 2**31 else np.int64)
    padded = np.concatenate((buf, np.zeros(16, dtype=np.uint8)))
    converted = [convert(padded, starts[field], ends[field], lines, name) for field, convert in fields.items()]
    tag = chunk[starts[5][-1]: ends[5][-1]] if exact is None and len(lines) else None
    return converted, lines, tag


Split = tuple[list[np.ndarray], list[np.ndarray], np.ndarray, int]


def _split_regular(chunk: bytes, buf: np.ndarray, width: int) -> Split | None:
    """The common layout, fast: every line `width` fields apart by single spaces, no comments.

    Returns None when the block is laid out any other way."""
    separators = np.flatnonzero(buf <= 32)
    if len(separators) % width or not len(separators):
        return None
    kinds = buf[separators].reshape(-1, width)
    # a newline ends every `width` fields, spaces between them, nothing else below 33
    if not ((kinds[:, -1] == _NEWLINE).all() and (kinds[:, :-1] == 32).all()):
        return None
    if separators[0] == 0 or not (np.diff(separators) > 1).all():  # no empty field
        return None
    grid = separators.reshape(-1, width)
    line_starts = np.concatenate(([0], grid[:-1, -1] + 1))
    if (buf[line_starts] == _HASH).any():
        return None
    starts = [line_starts] + [grid[:, j - 1] + 1 for j in range(1, width)]
    n = len(grid)
    return starts, [grid[:, j] for j in range(width)], np.arange(n, dtype=np.int64), n


def _split_uniform(chunk: bytes, buf: np.ndarray, width: int) -> Split | None:
    """Any whitespace, but every line holds exactly `width` fields and none is a comment.

    Finds tokens from the edges of the non-blank bytes; returns None for anything else."""
    # bytes below 33 must all be whitespace (other control bytes belong to tokens in C)
    if ((buf < 9) | ((buf > 13) & (buf < 32))).any():
        return None
    solid = np.concatenate(([False], buf > 32))
    starts = np.flatnonzero(solid[1:] > solid[:-1])
    ends = np.flatnonzero(solid[1:] < solid[:-1])
    newlines = np.flatnonzero(buf == _NEWLINE)
    n = len(newlines)
    if len(starts) != n * width or len(ends) != n * width or not n:
        return None
    grid_starts, grid_ends = starts.reshape(n, width), ends.reshape(n, width)
    # newline k lies after line k's last field and before line k + 1's first
    if not ((newlines >= grid_ends[:, -1]).all() and (newlines[:-1] < grid_starts[1:, 0]).all()):
        return None
    line_starts = np.concatenate(([0], newlines[:-1] + 1))
    if (buf[line_starts] == _HASH).any():
        return None
    return ([grid_starts[:, j] for j in range(width)], [grid_ends[:, j] for j in range(width)],
            np.arange(n, dtype=np.int64), n)


def _split_any(buf: np.ndarray, exact: int | None, kind: str, name: str, first_line: int) -> Split:
    """Any whitespace, blank and comment lines: the reference reader's rules, checked.

    Works on the positions of whitespace bytes, not on every byte: a token is a gap of at
    least one byte between two of them."""
    low = np.flatnonzero(buf <= 32)
    if (buf[low] == 0).any():
        nul = int(low[buf[low] == 0][0])
        raise TrecgainError("NUL byte in line", name, first_line + int((buf[:nul] == _NEWLINE).sum()))
    seps = low[_SPACE[buf[low]]]  # other control bytes belong to tokens, as in C's isspace
    is_newline = buf[seps] == _NEWLINE
    n_lines = int(is_newline.sum())
    line_starts = np.concatenate(([0], seps[is_newline][:-1] + 1))
    bounds = np.concatenate(([-1], seps))
    gap_starts = bounds[:-1] + 1
    gap_ends = bounds[1:]
    gap_line = np.cumsum(np.concatenate(([False], is_newline[:-1])), dtype=np.int64)
    token = gap_ends > gap_starts
    starts, ends, token_line = gap_starts[token], gap_ends[token], gap_line[token]
    comment = buf[line_starts] == _HASH
    keep = ~comment[token_line]
    starts, ends, token_line = starts[keep], ends[keep], token_line[keep]
    counts = np.bincount(token_line, minlength=n_lines)
    _check_field_counts(counts, comment, exact, kind, name, first_line)
    data_lines = np.flatnonzero(counts > 0)
    first_token = (np.cumsum(counts) - counts)[data_lines]
    width = exact or 6
    return ([starts[first_token + j] for j in range(width)], [ends[first_token + j] for j in range(width)],
            data_lines.astype(np.int64), n_lines)


def _check_field_counts(counts: np.ndarray, comment: np.ndarray, exact: int | None, kind: str,
                        name: str, first_line: int) -> None:
    """Qrels lines have exactly `exact` fields (blank lines too are errors); run lines six or more."""
    if exact is not None:
        bad = np.flatnonzero((counts != exact) & ~comment)
    else:
        bad = np.flatnonzero((counts > 0) & (counts < 6))
    if len(bad):
        i = int(bad[0])
        found = int(counts[i])
        want = f"exactly {exact}" if exact is not None else "at least 6"
        what = "blank line" if found == 0 else f"{found} field{'s' if found != 1 else ''}"
        form = "qid iter docno grade" if kind == "qrels" else "qid iter docno rank score tag"
        raise TrecgainError(f"malformed {kind} line: {what}, expected {want} ({form})", name, first_line + i)


def _as_text(padded: np.ndarray, starts: np.ndarray, ends: np.ndarray, lines: np.ndarray, name: str) -> np.ndarray:
    """Byte strings buf[start:end] as a numpy 'S' array, without a Python object per string."""
    if len(starts) == 0:
        return np.zeros(0, dtype="S1")
    lengths = ends - starts
    width = int(lengths.max())
    if width > MAX_ID_BYTES:
        i = int(np.argmax(lengths))
        raise TrecgainError(f"field of {width} bytes: identifiers are at most {MAX_ID_BYTES} bytes", name,
                            int(lines[i]))
    if len(padded) < int(starts.max()) + width:
        padded = np.concatenate((padded, np.zeros(width, dtype=np.uint8)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)
    matrix = windows[starts]
    matrix[np.arange(width) >= lengths[:, None]] = 0
    return matrix.view(f"S{width}").ravel()


# ---------------------------------------------------------------- numbers


def _bytes_matrix(text: np.ndarray) -> np.ndarray:
    return text.view(np.uint8).reshape(len(text), text.dtype.itemsize)


_POW10 = 10.0 ** np.arange(23)


def _parse_scores(padded: np.ndarray, starts: np.ndarray, ends: np.ndarray, lines: np.ndarray,
                  name: str, what: str = "score") -> np.ndarray:
    """Decimal scores (`12.5`, `-3`, `1e-05`); anything else names its line.

    Plain decimals of up to 15 digits are exact as integer / 10**k (one correctly rounded
    division, the same double as strtod); others go through Python's float parser."""
    text = _as_text(padded, starts, ends, lines, name)
    matrix = _bytes_matrix(text)
    if not _SCORE_CHARS[matrix].all():
        bad = ~_SCORE_CHARS[matrix].all(axis=1)
        _bad_number(text, lines, name, int(np.flatnonzero(bad)[0]), what)
    values, fast = _plain_decimals(matrix)
    slow = np.flatnonzero(~fast)
    if len(slow):
        try:
            values[slow] = text[slow].astype(np.float64)
        except ValueError:
            for i in slow:
                try:
                    float(text[i])
                except ValueError:
                    _bad_number(text, lines, name, int(i), what)
            raise
        infinite = slow[~np.isfinite(values[slow])]
        if len(infinite):
            i = int(infinite[0])
            raise TrecgainError(f"{what} '{_text(text[i])}' is out of range", name, int(lines[i]))
    return values


def _plain_decimals(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of `[-+]digits[.digits]` rows, and which rows had that form (<= 15 digits)."""
    n = len(matrix)
    mantissa = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.int64)
    decimals = np.zeros(n, dtype=np.int64)
    dots = np.zeros(n, dtype=np.int64)
    first = matrix[:, 0] if matrix.shape[1] else np.zeros(n, np.uint8)
    signed = (first == ord("-")) | (first == ord("+"))
    other = np.zeros(n, dtype=bool)
    for j in range(matrix.shape[1]):
        c = matrix[:, j]
        is_digit = (c >= 48) & (c <= 57)
        mantissa = np.where(is_digit, mantissa * 10 + (c.astype(np.int64) - 48), mantissa)
        digits += is_digit
        decimals += is_digit & (dots > 0)
        dots += c == 46
        if j:
            other |= (c != 0) & ~is_digit & (c != 46)
    fast = ~other & (dots <= 1) & (digits > 0) & (digits <= 15)
    values = mantissa / _POW10[np.minimum(decimals, 22)]
    return np.where(first == ord("-"), -values, values), fast & (signed | ((first >= 48) & (first <= 57)) | (first == 46))


def _parse_grades(padded: np.ndarray, starts: np.ndarray, ends: np.ndarray, lines: np.ndarray,
                  name: str) -> np.ndarray:
    """Integer grades, optionally signed; anything else (`2.5`, `yes`) names its line."""
    text = _as_text(padded, starts, ends, lines, name)
    matrix = _bytes_matrix(text)
    first = matrix[:, 0]
    signed = (first == ord("-")) | (first == ord("+"))
    digits = (matrix != 0).sum(axis=1) - signed
    ok = (_DIGITS[first] | signed) & _DIGITS[matrix[:, 1:]].all(axis=1) & (digits > 0)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        if _looks_fractional(text[i]):
            raise TrecgainError(f"grade '{_text(text[i])}' is not an integer (use --fractional-grades, "
                                "or fractional_grades=True, for fractional grades)", name, int(lines[i]))
        _bad_number(text, lines, name, i, "grade", "an integer")
    if (digits > 15).any():
        i = int(np.flatnonzero(digits > 15)[0])
        raise TrecgainError(f"grade {_text(text[i])} is out of range", name, int(lines[i]))
    return text.astype(np.int64)


def _looks_fractional(token: bytes) -> bool:
    try:
        return math.isfinite(float(token)) and b"_" not in token
    except ValueError:
        return False


def _parse_fractional_grades(padded: np.ndarray, starts: np.ndarray, ends: np.ndarray, lines: np.ndarray,
                             name: str) -> np.ndarray:
    """Decimal grades, read exactly like scores."""
    return _parse_scores(padded, starts, ends, lines, name, what="grade")


def _bad_number(text: np.ndarray, lines: np.ndarray, name: str, i: int, what: str, want: str = "a number") -> None:
    token = text[i].decode("utf-8", "backslashreplace")
    raise TrecgainError(f"{what} '{token}' is not {want}", name, int(lines[i]))


# ---------------------------------------------------------------- assembling


def _make_qrels(name: str, qids: np.ndarray, docnos: np.ndarray, grades: np.ndarray, lines: np.ndarray) -> Qrels:
    """Group judgments by query, index them by (query, docno) hash, reject a document judged twice."""
    if not (qids[1:] >= qids[:-1]).all():
        order = np.argsort(qids, kind="stable")
        qids, docnos, grades, lines = qids[order], docnos[order], grades[order], lines[order]
    heads = np.flatnonzero(np.concatenate(([True], qids[1:] != qids[:-1])))
    offsets = np.append(heads, len(qids)).astype(np.int64)
    query = np.repeat(np.arange(len(heads)), np.diff(offsets))
    keys = doc_keys(query, docnos)
    key_rows = np.argsort(keys, kind="stable")
    keys = keys[key_rows]
    for i in np.flatnonzero(keys[1:] == keys[:-1]):
        a, b = key_rows[i], key_rows[i + 1]
        if query[a] == query[b] and docnos[a] == docnos[b]:
            first, second = sorted((int(lines[a]), int(lines[b])))
            raise TrecgainError(f"document '{_text(docnos[a])}' judged twice for query '{_text(qids[a])}' "
                                f"(first at line {first})", name, second)
    return Qrels(name, qids[heads], offsets, docnos, grades, keys, key_rows)


def hash_ids(ids: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each byte string, whatever the array's width (no string holds a NUL)."""
    width = ids.dtype.itemsize
    words = -(-width // 8)
    matrix = np.zeros((len(ids), words * 8), dtype=np.uint8)
    matrix[:, :width] = ids.view(np.uint8).reshape(len(ids), width)
    as_words = matrix.view(np.uint64)
    h = np.full(len(ids), 0x9E3779B97F4A7C15, dtype=np.uint64)
    for j in range(words):  # splitmix64's finaliser over each 8-byte word; all-NUL words are padding
        w = as_words[:, j]
        mixed = h ^ w
        mixed ^= mixed >> np.uint64(30)
        mixed *= np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(27)
        mixed *= np.uint64(0x94D049BB133111EB)
        mixed ^= mixed >> np.uint64(31)
        h = mixed if j == 0 else np.where(w != 0, mixed, h)
    return h


def doc_keys(query: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """One 64-bit key per (query index, docno) pair: the query in the top 24 bits, so one
    query's keys sit together (a binary search for them stays in cache), a docno hash below."""
    return (query.astype(np.uint64) << np.uint64(40)) | (hash_ids(docnos) >> np.uint64(24))


def _text(value: bytes) -> str:
    return bytes(value).decode("utf-8", "backslashreplace")


def _qrels_from_dict(qrels: dict, fractional: bool = False) -> Qrels:
    """pytrec_eval shape: {qid: {docno: grade}}."""
    rows = [(_key(q), _key(d), g) for q, docs in qrels.items() for d, g in docs.items()]
    if not rows:
        raise TrecgainError("no judgments in the qrels", "qrels")
    for q, d, g in rows:
        number = isinstance(g, (int, np.integer)) or fractional and isinstance(g, (float, np.floating))
        if isinstance(g, bool) or not number or (fractional and not math.isfinite(g)):
            hint = "" if fractional or not isinstance(g, float) else " (fractional_grades=True accepts it)"
            raise TrecgainError(f"grade {g!r} of document '{_text(d)}' is not an integer{hint}", "qrels")
    qids = np.array([r[0] for r in rows], dtype="S")
    docnos = np.array([r[1] for r in rows], dtype="S")
    grades = np.array([r[2] for r in rows], dtype=np.float64 if fractional else np.int64)
    return _make_qrels("qrels", qids, docnos, grades, np.arange(1, len(rows) + 1))


def _run_from_dict(run: dict) -> Run:
    """pytrec_eval shape: {qid: {docno: score}}."""
    rows = [(_key(q), _key(d), s) for q, docs in run.items() for d, s in docs.items()]
    empty = [_key(q) for q, docs in run.items() if not docs]  # evaluated with nothing retrieved, as pytrec_eval does
    if not rows and not empty:
        raise TrecgainError("no results in the run", "run")
    scores = np.array([float(r[2]) for r in rows], dtype=np.float64)
    if not np.isfinite(scores).all():
        raise TrecgainError("a score is not a finite number", "run")
    qids = np.array([r[0] for r in rows] or [b""], dtype="S")[: len(rows)]
    docnos = np.array([r[1] for r in rows] or [b""], dtype="S")[: len(rows)]
    return Run("run", qids, docnos, scores, np.arange(1, len(rows) + 1), b"unknown",
               np.array(empty or [b""], dtype="S")[: len(empty)])


def _key(value: object) -> bytes:
    """A query or document id as bytes; str is encoded as UTF-8 (surrogates pass through)."""
    if isinstance(value, bytes):
        key = value
    else:
        key = str(value).encode("utf-8", "surrogateescape")
    if not key or any(c in key for c in b" \t\n\r\v\f\0"):
        raise TrecgainError(f"identifier {value!r} is empty or contains whitespace")
    return key
