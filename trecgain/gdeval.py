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

Where gdeval.pl would print nonsense or crash, trecgain raises TrecgainError instead: a
NaN score (Perl's sort order is then undefined), an integer score beyond 2**53 in a
run with fractional scores, or a topic beyond 2**64 - 1 (Perl then compares inexactly),
a run tag containing `%` (gdeval.pl uses it as a printf format), and a run topic
spelled differently from the spelling its qrels group is stored under (Perl dies with
"Illegal division by zero" halfway through its output).
"""

from __future__ import annotations

import gzip
import math
import re
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter

from .errors import TrecgainError
from .read import _open

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from .read import Source

MAX_GRADE = 4  # gdeval.pl's $MAX_JUDGMENT
GRADE_LIMIT = 1023  # 2.0 ** grade stays finite

_DIGITS = re.compile(rb"[0-9]+")
_GRADE = re.compile(rb"-?[0-9]+")
_INTEGER = re.compile(rb"[+-]?[0-9]+")
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INF_NAN = re.compile(rb"[+-]?(?:(inf)|nan|qnan|snan|1\.#(?:(inf)|ind|qnan|snan|nan))", re.IGNORECASE)
_IV_MIN, _UV_MAX = -(2**63), 2**64 - 1
_EXACT_DOUBLE = 2**53


def perl_number(text: bytes) -> int | float:
    """The value Perl gives a string in numeric context: an int for integer text that fits in
    64 bits (Perl compares those exactly), else the double of its numeric prefix, 0 if none."""
    if _INTEGER.fullmatch(text):
        value = int(text)
        return value if _IV_MIN <= value <= _UV_MAX else float(value)
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
        out = [b"runid,topic,ndcg@%d,err@%d\n" % (self.k, self.k)]
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


def evaluate(qrels_source: Source, run_source: Source, k: int, max_grade: int = MAX_GRADE) -> GdevalResult:
    """Read, check, rank and score as gdeval.pl does; errors name the file and line."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise TrecgainError(f"k must be a positive whole number, not {k!r}")
    if isinstance(max_grade, bool) or not isinstance(max_grade, int) or not 0 <= max_grade <= GRADE_LIMIT:
        raise TrecgainError(f"max_grade must be a whole number from 0 to {GRADE_LIMIT}, not {max_grade!r}")
    if _is_stdin(qrels_source) and _is_stdin(run_source):
        raise TrecgainError("standard input ('-') can be read as qrels or as run, not both")
    judged, seen = _read_qrels(qrels_source, max_grade)
    run_name, runs, runid, last_line = _read_run(run_source)
    ideal, grades, spelling = _judge(judged, k)
    result = GdevalResult(runid, k)
    for number, group in groupby(runs, key=itemgetter(0)):
        rows = list(group)
        topic = rows[0][1]  # the group's first spelling decides, as $topicCurrent does
        if topic not in seen:
            continue
        if topic not in ideal:
            raise TrecgainError(
                f"topic '{_str(topic)}' is judged, but the judgments of topic {number} are stored under "
                f"'{_str(spelling[number])}': gdeval.pl divides by zero here (write each topic one way)",
                run_name, rows[0][4])
        gains = [grades.get((text, docno), 0) for _, text, docno, _, _ in rows]
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
    name, lines = _lines(source)
    judged = []
    seen = set()
    for number, line in enumerate(lines, 1):
        fields = line.replace(b"\r", b"").split()
        spelling, topic = _topic(fields, name, number)
        if len(fields) > 1 and not perl_number(fields[1]) == 0:
            _fail(f"second field '{_str(fields[1])}' is not 0", name, number)
        if len(fields) < 4:
            _fail(f"{len(fields)} fields, expected 4 (topic 0 docno grade)", name, number)
        if not _GRADE.fullmatch(fields[3]):
            _fail(f"grade '{_str(fields[3])}' is not an integer", name, number)
        grade = int(fields[3])
        if grade > max_grade:
            _fail(f"grade {grade} is above gdeval.pl's maximum, {max_grade}", name, number)
        if grade > 0:
            judged.append((topic, spelling, fields[2], grade))
            seen.add(spelling)
    return judged, seen


def _read_run(source: Source) -> tuple[str, list[tuple], bytes, int]:
    """Run rows as (topic, spelling, docno, score, line) in gdeval.pl's order, the run id, the last line."""
    name, lines = _lines(source)
    rows = []
    runid = b"?????"
    big_integer, has_double = 0, False  # line of the first integer score beyond 2**53
    for number, line in enumerate(lines, 1):
        fields = line.replace(b"\r", b"").split()
        spelling, topic = _topic(fields, name, number)
        if len(fields) < 2 or fields[1] != b"Q0":
            _fail("second field must be 'Q0'", name, number)
        if len(fields) < 4 or not _DIGITS.fullmatch(fields[3]):
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
        rows.append((topic, spelling, fields[2], score, number))
        runid = fields[5]
    if big_integer and has_double:
        _fail("integer score beyond 2**53 in a run with non-integer scores: gdeval.pl compares "
              "those inexactly", name, big_integer)
    # topic ascending, score descending, docno descending; equal rows keep file order
    rows.sort(key=itemgetter(2), reverse=True)
    rows.sort(key=itemgetter(3), reverse=True)
    rows.sort(key=itemgetter(0))
    return name, rows, runid, len(lines)


def _topic(fields: list[bytes], name: str, number: int) -> tuple[bytes, int]:
    """The topic's spelling (after its last '-') and its number."""
    if not fields:
        _fail("blank line (gdeval.pl accepts no blank or comment lines)", name, number)
    spelling = fields[0].rpartition(b"-")[2]
    if not _DIGITS.fullmatch(spelling):
        _fail(f"topic '{_str(fields[0])}' is not a number (digits, optionally after 'prefix-')", name, number)
    topic = int(spelling)
    if topic > _UV_MAX:
        _fail(f"topic {topic} is beyond 2**64 - 1, where gdeval.pl compares topics inexactly", name, number)
    return spelling, topic


def _lines(source: Source) -> tuple[str, list[bytes]]:
    """Every line of a file as Perl's <FH> reads it, without the newline."""
    if isinstance(source, dict):
        raise TrecgainError("gdeval reads files (a path, '-' or an open file), not a dict")
    name, stream, owned = _open(source)
    try:
        data = stream.read()
    except (OSError, EOFError, gzip.BadGzipFile) as error:
        raise TrecgainError(f"cannot read: {error}", name) from None
    finally:
        if owned:
            stream.close()
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the piece after the last newline is a line only if it has text
    return name, lines


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
    return value.decode("utf-8", "backslashreplace")
