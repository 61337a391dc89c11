"""gdeval.pl, the TREC Web track's nDCG@k and ERR@k script, re-implemented exactly.

The reference is the copy in the ir_measures package (`ir_measures/bin/gdeval.pl`,
version 1.2a: gdeval 1.2 of the TREC 2010 Web track with K on the command line and the
`amean` line removed).  `evaluate(...).to_bytes()` is what that copy prints, followed
by the `runid,amean,...` line of the original 1.2 script.  Its rules:

* Files are read line by line; every CR is deleted (even inside a token), then the line
  is split on ASCII whitespace.  Blank and `#` lines are not skipped: they are format
  errors.  Fields after the fourth (qrels) or sixth (run) are ignored.
* A topic is the first field with everything up to its last `-` removed (`wt10-51` is
  51); it must then be digits.  Topics are grouped and ordered as numbers, but looked
  up as text, so `7` and `07` are one topic for ordering and two for matching.
* qrels: the second field must be 0 as a Perl number (`0`, `Q0`, `x` and a missing one
  pass); the grade must match `-?[0-9]+` and be at most 4.  Only grades > 0 are kept; a
  topic with none is not evaluated.  A document judged twice counts twice in the ideal
  ranking and keeps the lowest of its positive grades.
* run: the second field must be `Q0`, the rank digits, the tag present and not `0`.
  Scores are not checked: Perl reads `abc` as 0 and `12x` as 12.  Each topic is ranked
  by score descending, then docno descending (byte order), ties kept in file order.  A
  document retrieved twice counts twice (nDCG can pass 1).  The run id is the tag of the
  last line, `?????` for an empty run.
* Evaluated: the run's topics that have a positive grade, in numeric order.  gain =
  2^grade - 1; DCG@k adds gain / ln(rank + 1) (natural log; the base cancels in nDCG, not
  in rounding); nDCG@k = DCG@k / ideal DCG@k; ERR@k adds r * decay / rank with r =
  gain / 2^4, then decay *= 1 - r.  Values print as `%.5f`; `amean` is the mean of the
  printed values, and with no topic evaluated the line is `RUNID,amean,0.00000,0.0000`
  (sic: four decimals for ERR).

Numbers are what Perl makes of their text, whatever its length: an integer that fits in
64 bits (leading zeros aside) is exact, a longer one is the nearest double (inf beyond
1.8e308), so a 5,000-digit grade is above 4 (a format error, as in gdeval.pl), a
5,000-digit negative grade is ignored, and a 5,000-digit score is inf.  K may be any
positive whole number; past the longest ranking it changes nothing but the header, which
prints it in full, as gdeval.pl does.

Where gdeval.pl would print nonsense or crash, trecgain raises TrecgainError instead: a
NaN score (Perl's sort order is then undefined), an integer score beyond 2**53 in a
run with fractional scores, or a topic beyond 2**64 - 1, however long (Perl then
compares inexactly), a run tag containing `%` (gdeval.pl uses it as a printf format),
and a run topic spelled differently from the spelling its qrels group is stored under
(Perl dies with "Illegal division by zero" halfway through its output).

The files are streamed, a line at a time, with the main reader's limits (gdeval.pl has
none): a NUL byte, or a line longer than 1 MiB (its CRs included, its newline not), is an
error at its line, so /dev/zero or a gzip bomb is refused promptly, in bounded memory.
What is kept is every positive judgment and, of each judged topic's run lines, the
first k (a topic's lines are ranked and cut to k as they come).
Fields echoed in messages are cut to their first 64 bytes.
"""

from __future__ import annotations

import io
import math
import os
import re
import sys
import zlib
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter

from .errors import TrecgainError
from .read import open_source

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from .read import Source

MAX_GRADE = 4  # gdeval.pl's $MAX_JUDGMENT
GRADE_LIMIT = 1023  # 2.0 ** grade stays finite
MAX_LINE_BYTES = 1 << 20  # the main reader's limit (core/src/read/mod.rs), and its messages

_GRADE = re.compile(rb"-?[0-9]+")
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INF_NAN = re.compile(rb"[+-]?(?:(inf)|nan|qnan|snan|1\.#(?:(inf)|ind|qnan|snan|nan))", re.IGNORECASE)
_IV_MIN, _UV_MAX = -(2**63), 2**64 - 1
_EXACT_DOUBLE = 2**53
_UV_DIGITS = 20  # len(str(2**64 - 1))
_SHOWN = 64  # bytes of a field echoed in a message


def perl_number(text: bytes) -> int | float:
    """The value Perl gives a string in numeric context: an int for integer text that fits in
    64 bits (Perl compares those exactly), else the double of its numeric prefix, 0 if none."""
    number = _DECIMAL.match(text)
    if number is not None and number.end() == len(text):  # all of it: no 'inf' or '1.#INF'
        unsigned = text[1:] if text[0] in b"+-" else text
        if unsigned.isdigit():  # an integer
            magnitude = _magnitude(unsigned)
            negative = text[0] == 45  # '-'
            if magnitude is not None and (not negative or magnitude <= -_IV_MIN):
                return -magnitude if negative else magnitude
        return float(text)  # correctly rounded, as Perl's; inf beyond the largest double
    special = _INF_NAN.match(text)
    if special:
        if not (special.group(1) or special.group(2)):
            return math.nan
        return -math.inf if text.startswith(b"-") else math.inf
    number = _DECIMAL.match(text)
    return float(number.group()) if number else 0.0


@dataclass
class GdevalResult:
    """gdeval.pl's per-topic nDCG@k and ERR@k for one run, in its output order."""

    runid: bytes
    k: int
    topics: list[bytes] = field(default_factory=list)
    ndcg: list[float] = field(default_factory=list)
    err: list[float] = field(default_factory=list)

    def to_bytes(self, amean: bool = True) -> bytes:
        """The exact text: header, one line per topic, and (with `amean`) the mean line."""
        k = _decimal(self.k)
        out = [b"runid,topic,ndcg@%s,err@%s\n" % (k, k)]
        for topic, ndcg, err in zip(self.topics, self.ndcg, self.err):
            out.append(b"%s,%s,%s,%s\n" % (self.runid, topic, _fixed(ndcg), _fixed(err)))
        if amean:
            out.append(self._amean_line())
        return b"".join(out)

    def to_text(self, amean: bool = True) -> str:
        return self.to_bytes(amean).decode("utf-8", "surrogateescape")

    def mean(self) -> tuple[float, float]:
        """The `amean` nDCG@k and ERR@k: sums in output order over the topic count (0, 0 for none)."""
        ndcg_total, err_total = 0.0, 0.0
        for ndcg, err in zip(self.ndcg, self.err):
            ndcg_total += ndcg
            err_total += err
        n = max(len(self.topics), 1)
        return ndcg_total / n, err_total / n

    def _amean_line(self) -> bytes:
        if not self.topics:
            return self.runid + b",amean,0.00000,0.0000\n"  # the original script's own digits
        ndcg, err = self.mean()
        return b"%s,amean,%s,%s\n" % (self.runid, _fixed(ndcg), _fixed(err))


def gdeval(qrels_source: Source, run_source: Source, k: int, max_grade: int = MAX_GRADE) -> str:
    """Exactly what gdeval.pl prints for these files, followed by the original's `amean` line."""
    return evaluate(qrels_source, run_source, k, max_grade).to_text()


def whole_number(text: str) -> int:
    """The value of a string of ASCII digits of any length (int() refuses more than 4300,
    sys.set_int_max_str_digits), for K on the command line."""
    if not (text.isascii() and text.isdigit()):
        raise TrecgainError(f"K must be a positive whole number, not '{text[:_SHOWN]}'")
    value = 0
    for start in range(0, len(text), 4000):
        chunk = text[start:start + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def evaluate(qrels_source: Source, run_source: Source, k: int, max_grade: int = MAX_GRADE) -> GdevalResult:
    """Read, check, rank and score as gdeval.pl does; errors name the file and line."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise TrecgainError(f"k must be a positive whole number, not {_short_repr(k)}")
    if isinstance(max_grade, bool) or not isinstance(max_grade, int) or not 0 <= max_grade <= GRADE_LIMIT:
        raise TrecgainError(f"max_grade must be a whole number from 0 to {GRADE_LIMIT}, not {max_grade!r}")
    if _is_stdin(qrels_source) and _is_stdin(run_source):
        raise TrecgainError("standard input ('-') can be read as qrels or as run, not both")
    judged, seen = _read_qrels(qrels_source, max_grade)
    ideal, grades, spelling = _judge(judged, k)
    run_name, runs, runid, last_line = _read_run(run_source, spelling, k)
    result = GdevalResult(runid, k)
    for number in sorted(runs):  # topics ascending
        rows = runs[number]
        _rank(rows)
        topic = rows[0][0]  # the group's first spelling decides, as $topicCurrent does
        if topic not in seen:
            continue
        if topic not in ideal:
            raise TrecgainError(
                f"topic '{_str(topic)}' is judged, but the judgments of topic {number} are stored under "
                f"'{_str(spelling[number])}': gdeval.pl divides by zero here (write each topic one way)",
                run_name, rows[0][3])
        gains = [grades.get((text, docno), 0) for text, docno, _, _ in rows[:k]]  # only the first k count
        result.topics.append(topic)
        result.ndcg.append(dcg(gains, k) / ideal[topic])
        result.err.append(err(gains, k, max_grade))
    if result.topics and b"%" in runid:
        raise TrecgainError(f"run tag '{_str(runid)}' contains '%', which gdeval.pl's printf reads as a format",
                            run_name, last_line)
    return result


def dcg(gains: list[int], k: int) -> float:
    """Sum of (2^g - 1) / ln(i + 2) over the first k gains, left to right."""
    score = 0.0
    for i, g in enumerate(gains[:k]):
        score += (2.0**g - 1.0) / math.log(i + 2)
    return score


def err(gains: list[int], k: int, max_grade: int = MAX_GRADE) -> float:
    """Expected reciprocal rank at k: r = (2^g - 1) / 2^max_grade, stopping at each rank with probability r."""
    scale = 2.0**max_grade
    score, decay = 0.0, 1.0
    for i, g in enumerate(gains[:k]):
        r = (2.0**g - 1.0) / scale
        score += r * decay / (i + 1)
        decay *= 1.0 - r
    return score


# ---------------------------------------------------------------- reading


def _read_qrels(source: Source, max_grade: int) -> tuple[list[tuple], set[bytes]]:
    """Positive judgments as (topic, spelling, docno, grade), and the spellings that have one."""
    judged = []
    seen = set()
    topics: dict[bytes, tuple[bytes, int]] = {}
    with _Lines(source) as lines:
        name = lines.name
        for number, line in lines:
            fields = line.replace(b"\r", b"").split(None, 4)
            if not fields:
                _fail("blank line (gdeval.pl accepts no blank or comment lines)", name, number)
            spelling, topic = topics.get(fields[0]) or _topic(fields[0], name, number, topics)
            if len(fields) > 1 and not perl_number(fields[1]) == 0:
                _fail(f"second field '{_str(fields[1])}' is not 0", name, number)
            if len(fields) < 4:
                _fail(f"{len(fields)} fields, expected 4 (topic 0 docno grade)", name, number)
            text = fields[3]
            if not _GRADE.fullmatch(text):
                _fail(f"grade '{_str(text)}' is not an integer", name, number)
            if text[0] == 45:  # '-': not positive, whatever its size (Perl: -inf <= 4)
                continue
            grade = _magnitude(text)
            if grade is None or grade > max_grade:
                shown = _str(text) if grade is None else grade
                _fail(f"grade {shown} is above gdeval.pl's maximum, {max_grade}", name, number)
            if grade > 0:
                judged.append((topic, spelling, fields[2], grade))
                seen.add(spelling)
    return judged, seen


def _read_run(source: Source, judged: dict[int, bytes], k: int) -> tuple[str, dict[int, list[tuple]], bytes, int]:
    """Run rows as {topic: [(spelling, docno, score, line), ...]}, the run id, the last line.
    Only what can count is kept: rows of a topic number without judgments are checked, then
    dropped (gdeval.pl prints nothing for them), and of a topic's rows only its first k in
    gdeval.pl's order (once a topic has more than 2k + 100, it is ranked and cut to k)."""
    rows: dict[int, list[tuple]] = {}
    trim_at = 2 * k + 100
    runid = b"?????"
    big_integer, has_double = 0, False  # line of the first integer score beyond 2**53
    topics: dict[bytes, tuple[bytes, int]] = {}
    with _Lines(source) as lines:
        name = lines.name
        for number, line in lines:
            fields = line.replace(b"\r", b"").split(None, 6)
            if not fields:
                _fail("blank line (gdeval.pl accepts no blank or comment lines)", name, number)
            spelling, topic = topics.get(fields[0]) or _topic(fields[0], name, number, topics)
            if len(fields) < 2 or fields[1] != b"Q0":
                _fail("second field must be 'Q0'", name, number)
            if len(fields) < 4 or not fields[3].isdigit():  # ASCII digits, as [0-9]+
                _fail("rank (fourth field) must be digits", name, number)
            if len(fields) < 6 or fields[5] == b"0":
                _fail("run tag (sixth field) missing or '0' (false to Perl)", name, number)
            score = perl_number(fields[4])
            if score != score:
                _fail(f"score '{_str(fields[4])}' is NaN, which gdeval.pl cannot rank", name, number)
            if isinstance(score, float):
                has_double = True
            elif abs(score) > _EXACT_DOUBLE and not big_integer:
                big_integer = number
            if topic in judged:
                group = rows.get(topic)
                if group is None:
                    group = rows[topic] = []
                group.append((spelling, fields[2], score, number))
                if len(group) > trim_at:
                    _rank(group)
                    del group[k:]
            runid = fields[5]
        last_line = lines.count
    if big_integer and has_double:
        _fail("integer score beyond 2**53 in a run with non-integer scores: gdeval.pl compares "
              "those inexactly", name, big_integer)
    return name, rows, runid, last_line


def _rank(rows: list[tuple]) -> None:
    """Sort a topic's (spelling, docno, score, line) rows as gdeval.pl does: score descending,
    then docno descending (byte order), equal rows in file order.  A list cut to its first k
    and then extended still sorts right: every row it lost ranks below the k it kept."""
    rows.sort(key=itemgetter(1), reverse=True)
    rows.sort(key=itemgetter(2), reverse=True)


def _topic(field: bytes, name: str, number: int, known: dict[bytes, tuple[bytes, int]]) -> tuple[bytes, int]:
    """The topic's spelling (after its last '-') and its number, remembered in `known` (a file
    has a few topics on many lines; a file of distinct ones is not remembered whole)."""
    spelling = field.rpartition(b"-")[2]
    if not spelling.isdigit():  # ASCII digits, as [0-9]+
        _fail(f"topic '{_str(field)}' is not a number (digits, optionally after 'prefix-')", name, number)
    topic = _magnitude(spelling)
    if topic is None:
        _fail(f"topic {_str(spelling)} is beyond 2**64 - 1, where gdeval.pl compares topics inexactly", name, number)
    if len(known) < 100_000:
        known[field] = spelling, topic
    return spelling, topic


def _magnitude(digits: bytes) -> int | None:
    """The value of a string of digits if it is at most 2**64 - 1, else None.  Leading zeros
    do not count, so int() never meets more than 20 digits."""
    significant = digits.lstrip(b"0")
    if len(significant) > _UV_DIGITS:
        return None
    value = int(significant or b"0")
    return value if value <= _UV_MAX else None


class _Lines:
    """A file's lines as Perl's <FH> reads them, numbered from 1, read one at a time (with their
    newline, which splitting drops): a NUL byte, or more than MAX_LINE_BYTES before the newline,
    is an error at that line, and no more than MAX_LINE_BYTES + 1 bytes of a line are ever held,
    as in the main reader."""

    def __init__(self, source: Source) -> None:
        if isinstance(source, dict):
            raise TrecgainError("gdeval reads files (a path, '-' or an open file), not a dict")
        if (not isinstance(source, (str, os.PathLike, io.TextIOBase)) and not hasattr(source, "peek")
                and callable(getattr(source, "read", None)) and getattr(source, "closed", False) is not True):
            source = io.BufferedReader(_Reader(source))  # what open_source would do, if read() were enough for it
        self.name, self._stream, self._owned = open_source(source)
        self._source = source
        self.count = 0

    def __enter__(self) -> _Lines:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._owned:
            inner = getattr(self._stream, "fileobj", None)  # a GzipFile does not close its file
            self._stream.close()
            if inner is not None:
                inner.close()
        else:
            _release(self._stream, self._source)

    def __iter__(self):  # -> Iterator[tuple[int, bytes]]
        readline = self._stream.readline
        limit = MAX_LINE_BYTES + 1
        number = 0
        try:
            while True:
                try:
                    line = readline(limit)
                except (OSError, EOFError, zlib.error) as error:
                    raise TrecgainError(f"cannot read: {error}", self.name) from None
                if not line:
                    return
                number += 1
                if b"\0" in line:  # among the line's first MAX_LINE_BYTES + 1 bytes
                    _fail("NUL byte in line", self.name, number)
                if len(line) == limit and line[-1] != 10:  # no newline in MAX_LINE_BYTES + 1 bytes
                    _fail(f"line longer than {MAX_LINE_BYTES} bytes", self.name, number)
                yield number, line
        finally:
            self.count = number


class _Reader(io.RawIOBase):
    """Any object with read(n), as a raw stream (the main reader needs no more), never closed:
    its errors are OSErrors, so reading it fails with one clean message."""

    def __init__(self, source: object) -> None:
        self._source = source
        self._pending = b""
        name = getattr(source, "name", None)
        if isinstance(name, str):
            self.name = name

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data, self._pending = self._pending, b""
        if not data:
            try:
                data = self._source.read(len(buffer))  # type: ignore[attr-defined]
            except Exception as error:  # noqa: BLE001 - whatever a foreign read() raises
                raise OSError(str(error) or type(error).__name__) from None
            if isinstance(data, str):
                data = data.encode("utf-8", "surrogateescape")
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise OSError(f"read() returned {type(data).__name__}, not bytes")
        data, self._pending = data[:len(buffer)], data[len(buffer):]
        buffer[:len(data)] = data
        return len(data)


def _release(stream: object, source: Source) -> None:
    """Let go of a caller's file object (or standard input) without closing it: open_source wraps one
    that lacks peek() in an io.BufferedReader, which would close it when collected; detach it."""
    if isinstance(source, (str, os.PathLike)):  # '-' (a path is owned, and closed)
        given = getattr(sys.stdin, "buffer", sys.stdin)
    else:
        given = getattr(source, "buffer", source) if isinstance(source, io.TextIOBase) else source
    for wrapper in (stream, getattr(stream, "fileobj", None)):  # the stream, or a GzipFile's source
        if type(wrapper) is io.BufferedReader and wrapper is not given and not wrapper.closed:
            try:
                wrapper.detach()
            except (OSError, ValueError):
                pass


# ---------------------------------------------------------------- scoring


def _judge(judged: list[tuple], k: int) -> tuple[dict[bytes, float], dict[tuple[bytes, bytes], int], dict[int, bytes]]:
    """Ideal DCG@k per topic (under its group's first spelling), each judged document's grade,
    and the spelling each topic number is stored under."""
    judged.sort(key=itemgetter(3), reverse=True)
    judged.sort(key=itemgetter(0))  # topic ascending, grade descending, equal rows in file order
    ideal: dict[bytes, float] = {}
    grades: dict[tuple[bytes, bytes], int] = {}
    spelling: dict[int, bytes] = {}
    for topic, group in groupby(judged, key=itemgetter(0)):
        rows = list(group)
        for _, text, docno, grade in rows:
            grades[text, docno] = grade  # a document judged twice keeps its last (lowest) grade
        spelling[topic] = rows[0][1]
        ideal[rows[0][1]] = dcg([row[3] for row in rows], k)
    return ideal, grades, spelling


def _fixed(value: float) -> bytes:
    """Perl's printf('%.5f'): C's rounding, and Inf / -Inf / NaN spelled as Perl spells them."""
    if math.isnan(value):
        return b"NaN"
    if math.isinf(value):
        return b"Inf" if value > 0 else b"-Inf"
    return b"%.5f" % value


def _is_stdin(source: Source) -> bool:
    return isinstance(source, str) and source == "-"


def _fail(message: str, name: str, number: int) -> None:
    raise TrecgainError(message, name, number)


def _str(value: bytes) -> str:
    """A field for a message: its first 64 bytes, and its length if it is longer."""
    if len(value) > _SHOWN:
        return value[:_SHOWN].decode("utf-8", "backslashreplace") + f"... ({len(value)} bytes)"
    return value.decode("utf-8", "backslashreplace")


def _short_repr(value: object) -> str:
    """repr() for a message, for an int of any size (repr() refuses more than 4300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _str(_decimal(value))
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _decimal(value: int) -> bytes:
    """b"%d" % value, for an int of any size (%d refuses more than 4300 digits)."""
    if -10**4000 < value < 10**4000:
        return b"%d" % value
    sign, value = (b"-", -value) if value < 0 else (b"", value)
    chunks = []
    while value >= 10**4000:
        value, low = divmod(value, 10**4000)
        chunks.append(b"%04000d" % low)
    return sign + b"%d" % value + b"".join(reversed(chunks))
