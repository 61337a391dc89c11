"""Qrels and runs as rows (stage 1, the Python side, beside read.py's files and dicts): a pandas
or polars DataFrame with ir_measures' or PyTerrier's columns, or an iterable of ir_measures'
Qrel / ScoredDoc namedtuples or plain (qid, docno, value) tuples.  Each becomes three columns
-- ids as a list of str or bytes, a frame's integer column as an int64 / uint64 array whose
decimal text the core writes itself, a pandas object column as numpy's array of objects, a
polars string column as its Arrow C stream (these read in place: no Python object per row);
values as doubles -- checked by
trecgain.check's rules (ids by the core first, in one pass; a refused value's message is
check's) and handed to the core's `from_rows`.

Rows count from 1, as the lines of the same data written as a file, and messages read
`SOURCE:ROW: problem` (`run DataFrame:3: score nan of document 'd1' of query 'q1' is not a
finite number`); of several faults, the earliest row's is reported.  As in dicts, an int id is
its text and a float id is refused; unlike in dicts, a DataFrame's float grade holding a
whole number (2.0) is a whole grade, since pandas turns a column of ints into floats as soon
as it has held a NaN.  A polars frame's null is None (refused as a dict's None is); a polars
LazyFrame is refused (it is a query: `.collect()` it).  Nothing here imports pandas, polars or
numpy at start-up: a frame brings them.
"""

from __future__ import annotations

import math

from . import _core, check
from .check import show
from .errors import TrecgainError

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from array import array
    from typing import Any, Callable, Iterable, NoReturn

#: A frame's columns, by who names them that way (the first set a frame has all of is used).
COLUMNS = {
    "qrels": (("ir_measures", ("query_id", "doc_id", "relevance")), ("PyTerrier", ("qid", "docno", "label"))),
    "run": (("ir_measures", ("query_id", "doc_id", "score")), ("PyTerrier", ("qid", "docno", "score"))),
}
#: The rows an iterable may hold.
SHAPES = {
    "qrels": "(qid, docno, grade) tuples or ir_measures' Qrel(query_id, doc_id, relevance, iteration)",
    "run": "(qid, docno, score) tuples or ir_measures' ScoredDoc(query_id, doc_id, score)",
}
QREL_FIELDS = ("query_id", "doc_id", "relevance", "iteration")
SUBTOPIC_SHAPE = ("(qid, subtopic, docno, grade) tuples, pyndeval's SubtopicQrel or ir_measures' Qrel (its iteration "
                  "the subtopic)")
#: A namedtuple whose third field is named so holds the other kind of row.
OTHER_KIND = {"qrels": ("score",), "run": ("relevance", "label")}
EMPTY = {"qrels": "no judgments in the qrels", "run": "no results in the run"}
VALUE = {"qrels": "grade", "run": "score"}


def is_frame(value: object) -> bool:
    """Whether a source is a pandas DataFrame or a polars DataFrame or LazyFrame (duck-typed:
    neither is imported)."""
    if _is_polars(value):
        return type(value).__name__ in ("DataFrame", "LazyFrame")
    return type(value).__module__.startswith("pandas") and hasattr(value, "columns") and hasattr(value, "iloc")


def _is_polars(value: object) -> bool:
    return type(value).__module__.startswith("polars")


def is_rows(value: object) -> bool:
    """Whether a source is an iterable of rows: not text, bytes, a path, a file, a core object,
    nor another pandas, polars or numpy object (a Series, an array), which are refused as sources."""
    if isinstance(value, (str, bytes, bytearray, memoryview, _core.Qrels, _core.Run)) or hasattr(value, "__fspath__"):
        return False
    if callable(getattr(value, "read", None)) or type(value).__module__.startswith(("pandas", "polars", "numpy")):
        return False
    return hasattr(value, "__iter__")


def qrels_from_frame(frame: Any, fractional: bool = False) -> _core.Qrels:
    """A qrels DataFrame, pandas or polars (query_id, doc_id, relevance or qid, docno, label),
    as core Qrels."""
    source = "qrels DataFrame"
    qids, docnos, values = _frame_columns(frame, "qrels", source)
    return _read(qids, docnos, values, "qrels", source, fractional, True)


def run_from_frame(frame: Any) -> _core.Run:
    """A run DataFrame, pandas or polars (query_id, doc_id, score or qid, docno, score), as a
    core Run."""
    source = "run DataFrame"
    qids, docnos, values = _frame_columns(frame, "run", source)
    return _read(qids, docnos, values, "run", source)


def qrels_from_rows(rows: Iterable, fractional: bool = False) -> _core.Qrels:
    """An iterable of (qid, docno, grade) tuples or ir_measures' Qrel as core Qrels."""
    source = f"qrels {type(rows).__name__}"
    return _core.Qrels.from_tuples(source, rows, fractional, TupleRules("qrels", source, fractional))


def subtopic_qrels_from_rows(rows: Iterable) -> _core.Qrels:
    """Subtopic judgments (`-R subtopics`) as core Qrels: an iterable of (qid, subtopic, docno,
    grade) tuples, pyndeval's SubtopicQrel, or ir_measures' Qrel (its iteration the subtopic, as
    ir_measures' pyndeval provider reads it)."""
    source = f"qrels {type(rows).__name__}"
    return _core.Qrels.subtopics_from_tuples(source, rows, SubtopicRules("qrels", source))


def run_from_rows(rows: Iterable) -> _core.Run:
    """An iterable of (qid, docno, score) tuples or ir_measures' ScoredDoc as a core Run."""
    source = f"run {type(rows).__name__}"
    return _core.Run.from_tuples(source, rows, TupleRules("run", source))


# ---------------------------------------------------------------- frames


def _frame_columns(frame: Any, what: str, source: str) -> tuple[Any, Any, Any]:
    """The id columns of a frame as `_id_column` makes them and its value column as a numpy
    array (a list for a polars column that is not numbers or holds a null)."""
    if _is_polars(frame):
        return _polars_columns(frame, what, source)
    qid, docno, value = _pick(frame, what, source)
    return _pandas_ids(frame[qid]), _pandas_ids(frame[docno]), frame[value].to_numpy()


def _pandas_ids(series: Any) -> Any:
    """A pandas id column as `_id_column` makes a numpy array's; a nullable integer column
    holding NA as a list of ints and None (not the floats to_numpy would make of it)."""
    if series.dtype.kind in "iu" and series.hasnans:
        return series.to_numpy(dtype=object, na_value=None).tolist()
    return _id_column(series.to_numpy())


def _polars_columns(frame: Any, what: str, source: str) -> tuple[Any, Any, Any]:
    """A polars DataFrame's columns as `_frame_columns` gives them: numbers through numpy
    (zero-copy where polars can), strings (and categoricals as strings) through Arrow
    (ArrowIds), anything else and any column holding a null as lists of Python objects (a
    null is None), for trecgain.check's rules."""
    if type(frame).__name__ == "LazyFrame":
        raise TrecgainError("a polars LazyFrame is a query, not yet its rows: pass frame.collect()",
                            f"{what} LazyFrame")
    qid, docno, value = _pick(frame, what, source)
    values = frame[value]
    return (_polars_ids(frame[qid]), _polars_ids(frame[docno]),
            values.to_numpy() if _in_numpy(values) else values.to_list())


def _in_numpy(series: Any) -> bool:
    """Whether numpy holds a polars column as it is: no null, ints of at most 64 bits or floats."""
    import polars as pl  # the frame's: polars is loaded

    numbers = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64, pl.Float32,
               pl.Float64)
    return not series.null_count() and series.dtype in numbers


def _polars_ids(series: Any) -> Any:
    """A polars id column as `_id_column` makes a numpy array's, or ArrowIds if it holds
    strings (String, Categorical, Enum)."""
    import polars as pl  # the frame's: polars is loaded

    if not len(series) or series.null_count():
        return series.to_list()
    if series.dtype.is_integer() and _in_numpy(series):
        return _id_column(series.to_numpy())
    if series.dtype in (pl.Categorical, pl.Enum):
        series = series.cast(pl.String)
    return ArrowIds(series) if series.dtype == pl.String else series.to_list()


class ArrowIds:
    """A string column (polars', no nulls) as the core takes it without a Python str per row:
    its Arrow C stream (`__arrow_c_stream__`), read in place by the core (src/arrow.rs)."""

    __slots__ = ("series",)

    def __init__(self, series: Any) -> None:
        self.series = series

    def __getitem__(self, row: int) -> str:
        return self.series[row]

    def stream(self) -> object:
        """A new Arrow C stream capsule of the column (the core consumes one)."""
        return self.series.__arrow_c_stream__()


def _pick(frame: Any, what: str, source: str) -> tuple[str, str, str]:
    """The names of a frame's id and value columns: the one set of COLUMNS it has."""
    names = list(frame.columns)
    sets = COLUMNS[what]
    found = [cols for _, cols in sets if all(c in names for c in cols)]
    expected = " or ".join(f"{', '.join(map(repr, cols))} ({who})" for who, cols in sets)
    if len(found) > 1:
        raise TrecgainError(f"has both {expected}: keep one set of columns", source)
    if not found:
        if not names and len(frame) == 0:
            raise TrecgainError(EMPTY[what], source)  # as an empty file
        shown = ", ".join(show(n) for n in names[:12]) + (f", ... ({len(names)} columns)" if len(names) > 12 else "")
        raise TrecgainError(f"has columns {shown or 'none'}: expected {expected}", source)
    for name in found[0]:
        if names.count(name) > 1:
            raise TrecgainError(f"has {names.count(name)} columns named {show(name)}", source)
    return found[0]


def _id_column(values: Any) -> Any:
    """A numpy array of ids as the core takes them: whole numbers as a contiguous int64 or
    uint64 array (the core writes their decimal text, as str(int) does), objects (a pandas
    column of str) as a contiguous array of objects (the core reads it in place), anything
    else as a list (datetimes as numpy's scalars, not the ints tolist would make of them)."""
    kind = values.dtype.kind
    if kind in "iuO" and len(values):
        import numpy as np  # a frame's: numpy is loaded with it

        if kind == "O":
            return np.ascontiguousarray(values)
        return np.ascontiguousarray(values, dtype=np.uint64 if values.dtype == np.uint64 else np.int64)
    return list(values) if kind in "mM" else values.tolist()


# ---------------------------------------------------------------- iterables of rows


class TupleRules:
    """trecgain.check's rules for what the core does not read natively in an iterable of rows
    (`_core.Qrels.from_tuples`, `_core.Run.from_tuples`): a row's width by its type, and ids
    and values other than the usual kinds; each raises TrecgainError naming the row."""

    __slots__ = ("what", "source", "fractional", "id")

    def __init__(self, what: str, source: str, fractional: bool = False) -> None:
        self.what, self.source, self.fractional = what, source, fractional
        self.id = _id_rule(source)

    def width(self, row: object, index: int) -> int:
        """The fields a row of this type must have (its fault raised if it cannot be one)."""
        return _width(row, self.what, self.source, index)

    def wrong_width(self, row: Any, index: int) -> NoReturn:
        """Refuse a row of another width than its type's."""
        fields = f"{len(row)} field{'' if len(row) == 1 else 's'}"
        raise TrecgainError(f"row {show(row)} has {fields}: expected {SHAPES[self.what]}", self.source, index + 1)

    def value(self, value: object, qid: object, docno: object, index: int) -> float:
        """A grade or a score by trecgain.check's rules, or the fault naming the row."""
        where = f"document {show(_text(docno))} of query {show(_text(qid))}"
        try:
            if self.what == "qrels":
                return check.grade(value, self.fractional, where, self.source)
            return check.score(value, where, self.source)
        except TrecgainError as err:
            raise TrecgainError(err.message, self.source, index + 1) from None


class SubtopicRules(TupleRules):
    """TupleRules for rows of subtopic judgments: where each field sits, by the row's type."""

    __slots__ = ()

    def __init__(self, what: str, source: str) -> None:
        super().__init__(what, source)
        self.id = _id_rule(source)

    def layout(self, row: object, index: int) -> tuple[int, int, int, int, int]:
        """The row's width and where its qid, subtopic, docno and grade sit (its fault raised if
        it cannot be a subtopic judgment)."""
        if not isinstance(row, tuple):
            raise TrecgainError(f"row {show(row)} is {check.a(row)}, not a tuple: expected {SUBTOPIC_SHAPE}",
                                self.source, index + 1)
        if tuple(getattr(type(row), "_fields", ())) == QREL_FIELDS:
            return 4, 0, 3, 1, 2
        return 4, 0, 1, 2, 3

    def wrong_width(self, row: Any, index: int) -> NoReturn:
        """Refuse a row of another width than four."""
        fields = f"{len(row)} field{'' if len(row) == 1 else 's'}"
        raise TrecgainError(f"row {show(row)} has {fields}: expected {SUBTOPIC_SHAPE}", self.source, index + 1)


def _width(row: object, what: str, source: str, i: int) -> int:
    """The fields a row of this type must have: 4 for ir_measures' Qrel, 3 for other tuples."""
    if not isinstance(row, tuple):
        raise TrecgainError(f"row {show(row)} is {check.a(row)}, not a tuple: expected {SHAPES[what]}", source, i + 1)
    fields = tuple(getattr(type(row), "_fields", ()))
    if what == "qrels" and fields == QREL_FIELDS:
        return 4
    if fields[2:3] and fields[2] in OTHER_KIND[what] or (what == "run" and fields == QREL_FIELDS):
        other = "run" if what == "qrels" else "qrels"
        raise TrecgainError(f"row {show(row)} is {check.a(row)}, a {other} row: expected {SHAPES[what]}",
                            source, i + 1)
    return 3


# ---------------------------------------------------------------- checks


def _read(qids: Any, docnos: Any, values: Any, what: str, source: str, fractional: bool = False,
          whole_floats: bool = False) -> Any:
    """The rows read by the core (src/rows.rs), or the earliest row's fault raised (within a
    row: qid, docno, value, as a file line's fields).  The values are checked here first, at
    once; the core reads the rows before the first bad one, and their ids as it goes, handing
    any it does not read natively (a bad one too) to `_id_rule`."""
    if what == "qrels":
        numbers, bad_value = _grades(values, fractional, whole_floats)
    else:
        numbers, bad_value = _scores(values)
    stop = bad_value
    columns = (source, _for_core(qids), _for_core(docnos), numbers)
    rule = _id_rule(source)
    if what == "qrels":
        read = _core.Qrels.from_rows(*columns, fractional, rule, stop)
    else:
        read = _core.Run.from_rows(*columns, rule, stop)
    if read is None:
        _refuse(stop, _faulty_field(stop, qids, docnos), qids, docnos, values, what, source, fractional,
                whole_floats)
    return read


FIELDS = ("query id", "document id", "subtopic id")


def _id_rule(source: str) -> Callable[[object, int, int], bytes]:
    """The core's rule for a list's id it does not read natively (field 0: qid, 1: docno):
    its bytes by trecgain.check's rules, an int as its text, or the fault naming the row."""
    def rule(value: object, field: int, row: int) -> bytes:
        try:
            return check.key(_text(value), FIELDS[field], source)
        except TrecgainError as err:
            raise TrecgainError(err.message, source, row + 1) from None

    return rule


def _faulty_field(row: int, qids: Any, docnos: Any) -> int:
    """The first field of a row found faulty (the value's, 2, unless an id is)."""
    for field, ids in enumerate((qids, docnos)):
        if isinstance(ids, (list, ArrowIds)) or _kind(ids) == "O":
            try:
                check.key(_id_at(ids, row), FIELDS[field], "")
            except TrecgainError:
                return field
    return 2


def _for_core(ids: Any) -> Any:
    """An id column as the core's from_rows takes it (ArrowIds as its Arrow C stream)."""
    return ids.stream() if isinstance(ids, ArrowIds) else ids


def _text(value: object) -> object:
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, bytearray):
        return bytes(value)
    number = check.integer(value)
    return value if number is None or number.bit_length() > check.ID_BITS else str(number)


def _first(bad: Any) -> int | None:
    """The first True of a numpy bool array, or None."""
    if not bad.size:
        return None
    i = int(bad.argmax())
    return i if bad[i] else None


def _grades(values: Any, fractional: bool, whole_floats: bool) -> tuple[Any, int | None]:
    """Grades as doubles, and the row of the first refused one (None: all good)."""
    kind = _kind(values)
    if kind is None:
        return _grade_list(values, fractional, whole_floats)
    if kind in "mM":  # datetimes: numbers to numpy (tolist makes ints of them), not grades
        return [], 0 if len(values) else None
    if kind not in "iuf":
        return _grade_list(values.tolist(), fractional, whole_floats)
    import numpy as np  # a frame's: numpy is loaded with pandas

    top = check.MAX_EXACT
    numbers = values.astype(np.float64, copy=False)
    if kind == "f":
        bad = ~np.isfinite(numbers)
        if not fractional:
            bad |= (np.trunc(numbers) != numbers) | (np.abs(numbers) > top)
    else:
        bad = values > top
        if kind == "i":
            bad |= values < -top
    return numbers, _first(bad)


def _grade_list(values: list, fractional: bool, whole_floats: bool) -> tuple[array, int | None]:
    """Python grades as doubles (the dict reader's rules), and the row of the first refused one."""
    from array import array  # not at start-up: it imports collections

    out = array("d")
    append = out.append
    top = check.MAX_EXACT
    isfinite = math.isfinite
    for i, g in enumerate(values):
        t = type(g)
        if t is int and -top <= g <= top:
            append(g)
        elif t is float and isfinite(g) and (fractional or whole_floats and g.is_integer() and -top <= g <= top):
            append(g)
        else:
            try:
                append(check.grade(g, fractional, "", "", whole_floats))
            except TrecgainError:
                return out, i
    return out, None


def _scores(values: Any) -> tuple[Any, int | None]:
    """Scores as doubles, and the row of the first refused one (None: all good)."""
    kind = _kind(values)
    if kind is None:
        return _score_list(values)
    if kind in "mM":  # datetimes: numbers to numpy (tolist makes ints of them), not scores
        return [], 0 if len(values) else None
    if kind not in "iuf":
        return _score_list(values.tolist())
    import numpy as np  # a frame's: numpy is loaded with pandas

    numbers = values.astype(np.float64, copy=False)
    if kind == "f":
        return numbers, _first(~np.isfinite(numbers))
    top = check.MAX_EXACT
    big = values > top
    if kind == "i":
        big |= values < -top
    for i in np.flatnonzero(big).tolist():  # beyond 2**53, not every integer is a double
        if float(int(values[i])) != int(values[i]):
            return numbers, i
    return numbers, None


def _score_list(values: list) -> tuple[array, int | None]:
    """Python scores as doubles (the dict reader's rules), and the row of the first refused one."""
    from array import array  # not at start-up: it imports collections

    out = array("d")
    append = out.append
    isfinite = math.isfinite
    for i, s in enumerate(values):
        if type(s) is float and isfinite(s):
            append(s)
        else:
            try:
                append(check.score(s, "", ""))
            except TrecgainError:
                return out, i
    return out, None


def _kind(values: Any) -> str | None:
    """A numpy array's kind of values ('i', 'f', 'O', ...), None for a list."""
    dtype = getattr(values, "dtype", None)
    return None if dtype is None else dtype.kind


def _refuse(row: int, field: int, qids: Any, docnos: Any, values: Any, what: str, source: str,
            fractional: bool, whole_floats: bool) -> NoReturn:
    """Raise the fault of one field of one row with trecgain.check's message, naming the row."""
    where = f"document {show(_id_at(docnos, row))} of query {show(_id_at(qids, row))}"
    value = values[row]
    if _kind(values) in tuple("iufbc"):
        value = value.item()  # shown as Python shows it: nan, not np.float64(nan)
    if field < 2:
        problem = _problem(check.key, _id_at((qids, docnos)[field], row), FIELDS[field], source)
    elif _kind(values) in ("m", "M"):
        problem = f"{VALUE[what]} {value} of {where} is a {values.dtype}, not a number"
    elif what == "qrels":
        problem = _problem(check.grade, value, fractional, where, source, whole_floats)
    else:
        problem = _problem(check.score, value, where, source)
    raise TrecgainError(problem, source, row + 1)


def _id_at(ids: Any, row: int) -> object:
    """The id of a row as the rules see it (a list's whole number as its text), or as its text
    (a numpy array's whole number)."""
    if isinstance(ids, list) or _kind(ids) == "O":
        return _text(ids[row])
    return ids[row] if isinstance(ids, ArrowIds) else str(ids[row])


def _problem(check_value: Callable[..., object], *args: object) -> str:
    """The message a check of trecgain.check refuses its arguments with."""
    try:
        check_value(*args)
    except TrecgainError as err:
        return err.message
    return f"{show(args[0])} was refused, yet its check passes (a trecgain bug)"
