"""Bad input to the Python API: every probe raises `TrecgainError` with one line naming the
problem (or the documented ValueError / ImportError), never a raw AttributeError, TypeError,
ValueError, OverflowError, IndexError or UnicodeEncodeError, never a silently wrong number.
The good cases (numpy scalars, int and bytes ids, surrogate-escaped ids, the spellings of
options) give exactly what the same collection written as files gives.

The rules (trecgain/check.py): a flag is True or False; a bool is not a number; a string is
never read as a number; a whole number is an int (numpy integers too), not 2.0; an int that
becomes a double must be exact; grades are at most 2**53 in magnitude, as in qrels files; ids
are str, bytes or int, at most 1024 bytes, str encoded as UTF-8 with surrogateescape.
"""

from __future__ import annotations

import decimal
import fractions
import io
import math
import os
import pathlib
import re
import subprocess
import sys
import types

import numpy as np
import pytest

from conftest import ROOT, run_cli
from trecgain import Evaluator, TrecgainError

QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d1": 1, "d4": 3}}
RUN = {"q1": {"d1": 1.0, "d2": 2.0, "d3": 0.5}, "q2": {"d4": 1.5, "d1": 0.2}}
MEASURES = ["ndcg", "P.2", "map", "num_ret", "num_rel"]
RAW = re.compile(r"\b(Attribute|Type|Value|Overflow|Index|Key|UnicodeEncode|UnicodeDecode)Error\b")


def refused(call, fragment: str) -> str:
    """`call()` raises TrecgainError, one line, containing `fragment`, naming no raw exception."""
    with pytest.raises(TrecgainError) as info:
        call()
    message = str(info.value)
    assert fragment in message, message
    assert "\n" not in message and "\r" not in message, message
    assert not RAW.search(message), message
    return message


# ---------------------------------------------------------------- grades (qrels dicts)


def _grade_qrels(grade):
    return {"q1": {"d1": grade, "d2": 1}}


@pytest.mark.parametrize("qrels, fractional, fragment", [
    ({"q": [1, 2]}, False, "query 'q': its documents must be a dict {docno: grade}, not [1, 2]"),
    ({"q": "x"}, False, "its documents must be a dict"),
    ({"q": None}, False, "its documents must be a dict"),
    (_grade_qrels(None), False, "grade None of document 'd1' of query 'q1' is not a number"),
    (_grade_qrels("abc"), False, "grade 'abc' of document 'd1' of query 'q1' is not a number (strings are not"),
    (_grade_qrels(" 2 "), False, "grade ' 2 ' of document 'd1' of query 'q1' is not a number"),
    (_grade_qrels("2"), True, "grade '2' of document 'd1' of query 'q1' is not a number"),
    (_grade_qrels(b"2"), False, "is not a number"),
    (_grade_qrels(10**400), False, "(401 digits) of document 'd1' of query 'q1' is out of range"),
    (_grade_qrels(10**400), True, "is out of range"),
    (_grade_qrels(1j), False, "grade 1j of document 'd1' of query 'q1' is not a number"),
    (_grade_qrels(True), False, "grade True of document 'd1' of query 'q1' is not a number"),
    (_grade_qrels(True), True, "grade True of document 'd1' of query 'q1' is not a number"),
    (_grade_qrels(np.bool_(True)), False, "is not a number"),
    (_grade_qrels(math.nan), False, "grade nan of document 'd1' of query 'q1' is not a finite number"),
    (_grade_qrels(math.nan), True, "is not a finite number"),
    (_grade_qrels(-math.inf), True, "grade -inf of document 'd1' of query 'q1' is not a finite number"),
    (_grade_qrels(2.5), False, "grade 2.5 of document 'd1' of query 'q1' is not an integer (fractional_grades=True"),
    (_grade_qrels(2.0), False, "is not an integer (fractional_grades=True accepts it)"),  # as '2.0' in a file
    (_grade_qrels(np.float32(2.0)), False, "is not an integer (fractional_grades=True accepts it)"),
    # grades are doubles in the core: the qrels reader's limit, 2**53, for ints and floats alike
    (_grade_qrels(10**30), False, "grade 1000000000000000000000000000000 of document 'd1' of query 'q1' is out of"),
    (_grade_qrels(10**30), True, "is out of range (integer grades are at most 2**53"),
    (_grade_qrels(2**63 - 1), False, "grade 9223372036854775807 of document 'd1' of query 'q1' is out of range"),
    (_grade_qrels(2**63 - 1), True, "is out of range"),
    (_grade_qrels(2**53 + 1), False, "grade 9007199254740993 of document 'd1' of query 'q1' is out of range"),
    (_grade_qrels(-2**53 - 1), False, "is out of range"),
    (_grade_qrels(np.int64(2**62)), False, "is out of range"),
    (_grade_qrels(np.uint64(2**64 - 1)), False, "is out of range"),
    ({"q": {}}, False, "no judgments in the qrels"),
])
def test_bad_grades(qrels, fractional, fragment):
    message = refused(lambda: Evaluator(qrels, measures=["ndcg"], fractional_grades=fractional), fragment)
    assert message.startswith("qrels: ")


# ---------------------------------------------------------------- scores (run dicts)


def _score_run(score):
    return {"q1": {"d1": score, "d2": 1.0}}


@pytest.mark.parametrize("run, fragment", [
    ({"q1": [1, 2]}, "query 'q1': its documents must be a dict {docno: score}, not [1, 2]"),
    ({"q1": "x"}, "its documents must be a dict {docno: score}, not 'x'"),
    ({"q1": None}, "its documents must be a dict {docno: score}, not None"),
    ({"q1": 1.5}, "its documents must be a dict"),
    ({"q1": np.array([[1.0, 2.0], [3.0, 4.0]])}, "its documents must be a dict {docno: score}, not <ndarray>"),
    (_score_run(np.array([[1.0], [2.0]])), "score <ndarray> of document 'd1' of query 'q1' is not a number"),
    (_score_run(None), "score None of document 'd1' of query 'q1' is not a number"),
    (_score_run("abc"), "score 'abc' of document 'd1' of query 'q1' is not a number (strings are not read as"),
    (_score_run(" 2 "), "score ' 2 ' of document 'd1' of query 'q1' is not a number"),  # not parsed as 2
    (_score_run("2"), "score '2' of document 'd1' of query 'q1' is not a number"),
    (_score_run(b"2"), "is not a number"),
    (_score_run(10**400), "(401 digits) of document 'd1' of query 'q1' is not exactly a double"),
    (_score_run(2**60 + 1), "score 1152921504606846977 of document 'd1' of query 'q1' is not exactly a double"),
    (_score_run(np.uint64(2**64 - 1)), "is not exactly a double"),
    (_score_run(1j), "score 1j of document 'd1' of query 'q1' is not a number"),
    (_score_run(True), "score True of document 'd1' of query 'q1' is not a number"),  # a bool is not a score
    (_score_run(False), "score False of document 'd1' of query 'q1' is not a number"),
    (_score_run(np.bool_(False)), "is not a number"),
    (_score_run(math.nan), "score nan of document 'd1' of query 'q1' is not a finite number"),
    (_score_run(math.inf), "score inf of document 'd1' of query 'q1' is not a finite number"),
    (_score_run(-math.inf), "is not a finite number"),
    (_score_run(np.float64("nan")), "is not a finite number"),
    (_score_run(np.float32("inf")), "is not a finite number"),
    (_score_run(decimal.Decimal("1e400")), "is not a finite number"),  # overflows to inf as a double
    (_score_run(decimal.Decimal("sNaN")), "is not a number"),
    (_score_run([1.0]), "score [1.0] of document 'd1' of query 'q1' is not a number"),
    ({}, "no results in the run"),
])
def test_bad_scores(run, fragment):
    message = refused(lambda: Evaluator(QRELS, measures=["ndcg"]).evaluate(run), fragment)
    assert message.startswith("run: ")


# ---------------------------------------------------------------- ids


@pytest.mark.parametrize("key, fragment", [
    (None, "query id None is not a string (ids are str, bytes or int)"),
    (1.5, "query id 1.5 is not a string"),
    (301.0, "query id 301.0 is not a string"),  # a float qid (pandas) is not silently '301.0'
    (True, "query id True is not a string"),
    ((1, 2), "query id (1, 2) is not a string"),
    ("", "query id '' is empty"),
    (b"", "query id b'' is empty"),
    ("a b", "query id 'a b' contains whitespace or a NUL byte"),
    ("a\tb", "contains whitespace"),
    ("a\0b", "contains whitespace or a NUL byte"),
    ("\ud800", "query id '\\ud800' has a lone surrogate that stands for no byte"),
    ("q\udc41", "has a lone surrogate"),  # below surrogateescape's range
    ("q" * 1025, "is 1025 bytes: ids are at most 1024 bytes, as in files"),
    ("\u00e9" * 513, "is 1026 bytes"),  # bytes, not characters
])
@pytest.mark.parametrize("where", ["qrels qid", "qrels docno", "run qid", "run docno"])
def test_bad_ids(key, fragment, where):
    if where.endswith("docno"):
        fragment = fragment.replace("query id", "document id")
    source, part = where.split()
    if source == "qrels":
        qrels = {key: {"d1": 1}} if part == "qid" else {"q1": {key: 1}}
        refused(lambda: Evaluator(qrels, measures=["ndcg"]), fragment)
    else:
        run = {key: {"d1": 1.0}} if part == "qid" else {"q1": {key: 1.0}}
        refused(lambda: Evaluator(QRELS, measures=["ndcg"]).evaluate(run), fragment)


@pytest.mark.parametrize("qrels, run, fragment", [
    ({"1": {"a": 1}, 1: {"b": 2}}, None, "qrels: query ids '1' and 1 name the same query"),
    ({b"q1": {"a": 1}, "q1": {"b": 2}}, None, "query ids b'q1' and 'q1' name the same query"),
    ({"\udcff": {"a": 1}, b"\xff": {"b": 2}}, None, "name the same query"),
    (None, {"q1": {"d1": 1.0}, b"q1": {"d2": 2.0}}, "run: query ids 'q1' and b'q1' name the same query"),
    ({"q": {"d": 1, b"d": 2}}, None, "document 'd' judged twice for query 'q'"),
    (None, {"q1": {"d1": 1.0, b"d1": 2.0}}, "document 'd1' retrieved twice for query 'q1'"),
])
def test_ids_that_collide(qrels, run, fragment):
    if run is None:
        refused(lambda: Evaluator(qrels, measures=["ndcg"]), fragment)
    else:
        refused(lambda: Evaluator(QRELS, measures=["ndcg"]).evaluate(run), fragment)


# ---------------------------------------------------------------- sources


def _closed(mode: str, tmp_path):
    path = tmp_path / "closed.txt"
    path.write_text("q1 0 d1 1\n")
    f = open(path, mode)
    f.close()
    return f


class _ReadsText:
    name = "reads-text"

    def read(self, n):
        return "q1 0 d1 1\n"


@pytest.mark.parametrize("make, fragment", [
    # lists and generators of tuples are sources now: tests/test_frames.py
    (lambda tmp: np.array([["q1", "d1", "1"]]), "ndarray is not a source: expected a path"),
    (lambda tmp: None, "None is not a source"),
    (lambda tmp: b"qrels.txt", "bytes are not a source: expected a path"),
    (lambda tmp: bytearray(b"q1 0 d1 1\n"), "bytes are not a source"),
    (lambda tmp: 3, "an int is not a source"),
    (lambda tmp: 1.5, "a float is not a source"),
    (lambda tmp: object(), "an object is not a source: expected a path, '-', an open file, a {qid: {do"),
    (lambda tmp: _closed("r", tmp), "closed.txt: cannot read: the file is closed"),
    (lambda tmp: _closed("rb", tmp), "closed.txt: cannot read: the file is closed"),
    (lambda tmp: open(tmp / "w.txt", "w"), "w.txt: cannot read: the file is not open for reading"),
    (lambda tmp: open(tmp / "w.bin", "wb"), "w.bin: cannot read: the file is not open for reading"),
    (lambda tmp: str(tmp), "cannot read: Is a directory"),
    (lambda tmp: tmp, "cannot read: Is a directory"),
    (lambda tmp: str(tmp / "missing.txt"), "missing.txt: cannot read: No such file or directory"),
    (lambda tmp: "", "the path is empty"),
    (lambda tmp: "a\0b", "a\\x00b: cannot read: the path contains a NUL character"),
    (lambda tmp: str(tmp / "x\ud800"), "cannot read: the path has a lone surrogate that stands for no byte"),
    (lambda tmp: str(tmp / "no\udcffne"), "no\\xffne: cannot read: No such file or directory"),
    (lambda tmp: io.StringIO("q1 0 \ud800 1\n"), "<stream>: cannot read: character '\\ud800' at offset 5 is a lo"),
    (lambda tmp: _ReadsText(), "reads-text: cannot read: the file object did not return bytes"),
])
@pytest.mark.parametrize("role", ["qrels", "run"])
def test_bad_sources(make, fragment, role, tmp_path):
    source = make(tmp_path)
    if role == "qrels":
        refused(lambda: Evaluator(source, measures=["ndcg"]), fragment.replace("{qid: {do", "{qid: {docno: grade}}"))
    else:
        ev = Evaluator(QRELS, measures=["ndcg"])
        refused(lambda: ev.evaluate(source), fragment.replace("{qid: {do", "{qid: {docno: score}}"))
    if hasattr(source, "close"):
        source.close()


def test_the_wrong_core_object():
    ev = Evaluator(QRELS, measures=["ndcg"])
    refused(lambda: ev.evaluate(ev.qrels), "run: a Qrels is not a source")
    from trecgain.read import read_run

    run = read_run(RUN)  # a core Run is a run, not qrels
    assert ev.evaluate(run).to_trec() == ev.evaluate(RUN).to_trec()
    refused(lambda: Evaluator(run, measures=["ndcg"]), "qrels: a Run is not a source")


# ---------------------------------------------------------------- options


@pytest.mark.parametrize("options, fragment", [
    (dict(max_docs=1.5), "max_docs (-M) must be a whole number, not 1.5"),
    (dict(max_docs=10.0), "max_docs (-M) must be a whole number, not 10.0"),
    (dict(max_docs=True), "max_docs (-M) must be a whole number, not True"),
    (dict(max_docs="3"), "max_docs (-M) must be a whole number, not '3'"),
    (dict(max_docs=-1), "max_docs (-M) must be at least 0, not -1"),
    (dict(complete="False"), "complete (-c) must be True or False, not 'False'"),
    (dict(complete=None), "complete (-c) must be True or False, not None"),
    (dict(judged_only=1), "judged_only (-J) must be True or False, not 1"),
    (dict(judged_only=0), "judged_only (-J) must be True or False, not 0"),
    (dict(exact_ideal="yes"), "exact_ideal must be True or False, not 'yes'"),
    (dict(fractional_grades="yes"), "fractional_grades must be True or False, not 'yes'"),
    (dict(err_max_grade=4.5), "err_max_grade must be a whole number, not 4.5"),
    (dict(err_max_grade=True), "err_max_grade must be a whole number, not True"),
    (dict(err_max_grade="4"), "err_max_grade must be a whole number, not '4'"),
    (dict(err_max_grade=1024), "err_max_grade must be from 0 to 1023, not 1024"),
    (dict(err_max_grade=-1), "err_max_grade must be from 0 to 1023, not -1"),
    (dict(relevance_level="2"), "relevance_level (-l) must be a whole number, not '2'"),
    (dict(relevance_level=2.5), "relevance_level (-l) must be a whole number, not 2.5"),
    (dict(relevance_level=2.0), "relevance_level (-l) must be a whole number, not 2.0"),
    (dict(relevance_level=True), "relevance_level (-l) must be a whole number, not True"),
    (dict(relevance_level=math.nan), "relevance_level (-l) must be a whole number, not nan"),
    (dict(relevance_level=None), "relevance_level (-l) must be a whole number, not None"),
    (dict(compat=9.0), "compat must be one of 10, 9, not 9.0"),
    (dict(compat="9.0"), "compat must be one of 10, 9, not '9.0'"),
    (dict(compat=True), "compat must be one of 10, 9, not True"),
    (dict(compat=None), "compat must be one of 10, 9, not None"),
    (dict(compat=8), "compat must be one of 10, 9, not 8"),
    (dict(num_docs=-1), "num_docs (-N) must be from 0 to 9007199254740992, not -1"),
    (dict(num_docs=1.5), "num_docs (-N) must be a whole number, not 1.5"),
    (dict(num_docs="5"), "num_docs (-N) must be a whole number, not '5'"),
    (dict(num_docs=None), "num_docs (-N) must be a whole number, not None"),
    (dict(num_docs=2**60), "num_docs (-N) must be from 0 to 9007199254740992, not 1152921504606846976"),
    (dict(global_gains=5), "global_gains must be a string such as 'exp', 'linear', 'binary' or '1=1,2=3', not 5"),
    (dict(global_gains=""), "global_gains must be a string such as"),
    (dict(global_gains=["exp"]), "global_gains must be a string such as"),
    (dict(discount=None), "discount must be a string such as 'log:2', 'log:e' or 'jk:2', not None"),
    (dict(discount=2), "discount must be a string such as 'log:2', 'log:e' or 'jk:2', not 2"),
    (dict(discount=""), "discount must be a string such as"),
    (dict(measures=[10]), "measures: 10 is not a measure name (a string such as 'ndcg_cut.10')"),
    (dict(measures=[None]), "measures: None is not a measure name"),
    (dict(measures=[b"ndcg"]), "measures: b'ndcg' is not a measure name"),
    (dict(measures=["ndcg", ""]), "measures: '' is not a measure name"),
    (dict(measures=[]), "no measures: give at least one, e.g. measures=['official']"),
    (dict(measures=()), "no measures"),
    (dict(measures=None), "measures must be a measure name or a list of them, not None"),
    (dict(measures=10), "measures must be a measure name or a list of them, not 10"),
    (dict(measures=b"ndcg"), "measures must be a measure name or a list of them, not b'ndcg'"),
])
def test_bad_options(options, fragment):
    options = {"measures": ["ndcg"], **options}
    refused(lambda: Evaluator(QRELS, **options), fragment)


@pytest.mark.parametrize("call, fragment", [
    (lambda ev, res: ev.evaluate(RUN, keep_values="no"), "keep_values must be True or False, not 'no'"),
    (lambda ev, res: ev.evaluate(RUN, keep_values=0), "keep_values must be True or False, not 0"),
    (lambda ev, res: res.to_trec(per_query="yes"), "per_query must be True or False, not 'yes'"),
    (lambda ev, res: res.to_trec(summary=None), "summary must be True or False, not None"),
    (lambda ev, res: res.to_trec_bytes(per_query=1), "per_query must be True or False, not 1"),
    (lambda ev, res: res.write_trec(None), "write_trec needs a function taking bytes"),
    (lambda ev, res: res.write_trec(io.BytesIO()), "write_trec needs a function taking bytes"),
])
def test_bad_method_arguments(call, fragment):
    ev = Evaluator(QRELS, measures=["ndcg"])
    refused(lambda: call(ev, ev.evaluate(RUN)), fragment)


@pytest.mark.parametrize("what", ["per_query", "lines", "to_dataframe"])
def test_without_kept_values_a_clear_value_error(what):
    """Documented: per_query (and what needs it) raises ValueError after keep_values=False."""
    res = Evaluator(QRELS, measures=MEASURES).evaluate(RUN, keep_values=False)
    with pytest.raises(ValueError) as info:
        value = getattr(res, what)
        value() if callable(value) else None
    message = str(info.value)
    assert f"Result.{what} needs the per-query values" in message and "keep_values=True" in message
    assert "\n" not in message
    full = Evaluator(QRELS, measures=MEASURES).evaluate(RUN)
    assert res.aggregate == full.aggregate and res.to_trec(per_query=True) == full.to_trec(per_query=True)
    assert res.qids == full.qids


def test_to_dataframe_without_pandas(monkeypatch):
    """Documented: ImportError, naming what to install."""
    monkeypatch.setitem(sys.modules, "pandas", None)
    res = Evaluator(QRELS, measures=["ndcg"]).evaluate(RUN)
    with pytest.raises(ImportError, match="to_dataframe needs pandas: pip install pandas"):
        res.to_dataframe()


def test_a_callback_that_fails_raises_its_own_error():
    """write_trec hands the text to the caller's function: its exception is the caller's."""
    res = Evaluator(QRELS, measures=["ndcg"]).evaluate(RUN)

    def write(chunk: bytes) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        res.write_trec(write)


# ---------------------------------------------------------------- good cases: the same as files


def _write_qrels(path: pathlib.Path, qrels: dict) -> str:
    lines = [f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()]
    path.write_text("".join(lines))
    return str(path)


def _write_run(path: pathlib.Path, run: dict) -> str:
    lines = [f"{q} Q0 {d} 1 {s!r} unknown\n" for q, docs in run.items() for d, s in docs.items()]
    path.write_text("".join(lines))
    return str(path)


def _as_files(tmp_path, qrels, run, measures=MEASURES, **options) -> str:
    q = _write_qrels(tmp_path / "qrels.txt", qrels)
    r = _write_run(tmp_path / "run.txt", run)
    return Evaluator(q, measures=measures, **options).evaluate(r).to_trec(per_query=True)


def _np_run(kind):
    return {q: {d: kind(s) for d, s in docs.items()} for q, docs in RUN.items()}


@pytest.mark.parametrize("label, qrels, run", [
    ("numpy int64 grades", {q: {d: np.int64(g) for d, g in docs.items()} for q, docs in QRELS.items()}, RUN),
    ("numpy int8 and uint16 grades", {"q1": {"d1": np.int8(2), "d2": np.uint16(1), "d3": np.int32(0)},
                                      "q2": {"d1": np.uint8(1), "d4": np.int16(3)}}, RUN),
    ("numpy float32 scores", QRELS, _np_run(np.float32)),
    ("numpy float64 scores", QRELS, _np_run(np.float64)),
    ("numpy int64 scores", QRELS, {"q1": {"d1": np.int64(1), "d2": np.int64(2), "d3": np.int64(0)},
                                   "q2": {"d4": np.int64(3), "d1": np.int64(1)}}),
    ("int scores", QRELS, {"q1": {"d1": 1, "d2": 2, "d3": 0}, "q2": {"d4": 3, "d1": 2**53}}),
    ("Decimal and Fraction scores", QRELS, {"q1": {"d1": decimal.Decimal("1.5"), "d2": fractions.Fraction(1, 3),
                                                   "d3": 0.5}, "q2": {"d4": 1.5, "d1": 0.2}}),
    ("negative zero score", QRELS, {"q1": {"d1": -0.0, "d2": 2.0, "d3": 0.5}, "q2": {"d4": 1.5, "d1": 0.2}}),
    ("mapping proxies", types.MappingProxyType({q: types.MappingProxyType(d) for q, d in QRELS.items()}),
     types.MappingProxyType({q: types.MappingProxyType(d) for q, d in RUN.items()})),
])
def test_good_values_as_files(label, qrels, run, tmp_path):
    plain_q = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    plain_r = {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()}
    got = Evaluator(qrels, measures=MEASURES).evaluate(run).to_trec(per_query=True)
    assert got == _as_files(tmp_path, plain_q, plain_r)


def test_int_and_bytes_ids_are_their_text(tmp_path):
    """An int id is str(int); a bytes id is its bytes; numpy ints and str subclasses likewise."""
    qrels = {301: {1: 2, b"d2": 1}, np.int64(302): {np.str_("d3"): 1, 4: 0}}
    run = {"301": {"1": 1.0, "d2": 2.0}, b"302": {3: 1.0, "d3": 0.5}}
    files_q = {"301": {"1": 2, "d2": 1}, "302": {"d3": 1, "4": 0}}
    files_r = {"301": {"1": 1.0, "d2": 2.0}, "302": {"3": 1.0, "d3": 0.5}}
    result = Evaluator(qrels, measures=MEASURES).evaluate(run)
    assert result.to_trec(per_query=True) == _as_files(tmp_path, files_q, files_r)
    assert result.qids == ["301", "302"]


def test_surrogate_escaped_ids_round_trip(tmp_path):
    """'\\udcff' is the byte 0xff (surrogateescape), the same id as b'\\xff' and as 0xff in a file;
    qids come back as the same str."""
    qrels = {"q\udcff": {"d\udc80": 2, "d2": 1}}
    run = {b"q\xff": {b"d\x80": 1.0, "d2": 2.0}}
    result = Evaluator(qrels, measures=MEASURES).evaluate(run)
    assert result.qids == ["q\udcff"]
    assert list(result.per_query) == ["q\udcff"]
    (tmp_path / "qrels.txt").write_bytes(b"q\xff 0 d\x80 2\nq\xff 0 d2 1\n")
    (tmp_path / "run.txt").write_bytes(b"q\xff Q0 d\x80 1 1.0 unknown\nq\xff Q0 d2 2 2.0 unknown\n")
    from_files = Evaluator(str(tmp_path / "qrels.txt"), measures=MEASURES).evaluate(str(tmp_path / "run.txt"))
    assert result.to_trec_bytes(per_query=True) == from_files.to_trec_bytes(per_query=True)
    assert b"\tq\xff\t" in result.to_trec_bytes(per_query=True)


@pytest.mark.parametrize("grade", [2**53, -2**53, 2**53 - 1, 2**31, 10**15, 1000])
@pytest.mark.parametrize("fractional", [False, True])
@pytest.mark.parametrize("exact_ideal", [False, True])
def test_largest_grades_as_files(grade, fractional, exact_ideal, tmp_path):
    """Grades up to 2**53, the qrels reader's limit, give what the file gives, and when a value
    the right one (a grade of 2**53 once fell out of its own gain table: nDCG 0)."""
    qrels = {"q1": {"d1": grade, "d2": 1}}
    run = {"q1": {"d1": 1.0, "d2": 1.0}}  # a tie: d2 first (docnos in descending order)
    measures = ["ndcg", "ndcg_cut.2", "G", "dcg", "num_rel"]
    options = dict(fractional_grades=fractional, exact_ideal=exact_ideal)
    q = _write_qrels(tmp_path / "qrels.txt", qrels)
    r = _write_run(tmp_path / "run.txt", run)
    from_dict = _outcome(qrels, run, measures, **options)
    assert from_dict == _outcome(q, r, measures, **options)
    if exact_ideal:
        assert isinstance(from_dict, str), from_dict  # sorted by value: always defined
    if isinstance(from_dict, tuple):
        return  # refused, the same way as the file (trec_eval's int comparison of gains)
    ndcg = Evaluator(qrels, measures=measures, **options).evaluate(run).aggregate["ndcg"]
    if grade > 0:
        want = (1 + grade / math.log2(3)) / (grade + 1 / math.log2(3))
        assert ndcg == pytest.approx(want, rel=1e-12)
    else:
        assert ndcg == 1.0  # d2 (grade 1) ranked first is ideal
    flags = ["--fractional-grades"] * fractional + ["--exact-ideal"] * exact_ideal
    out = run_cli(["-m", "ndcg", *flags, q, r])
    assert out.rc == 0 and out.stdout.decode().split()[-1] == f"{ndcg:.4f}"


@pytest.mark.parametrize("grade", [2**53 + 1, 10**30, 2**63 - 1])
def test_grades_beyond_2_53_are_refused_by_file_and_dict_alike(grade, tmp_path):
    q = _write_qrels(tmp_path / "qrels.txt", {"q1": {"d1": grade}})
    with pytest.raises(TrecgainError, match="out of range"):
        Evaluator(q, measures=["ndcg"])
    refused(lambda: Evaluator({"q1": {"d1": grade}}, measures=["ndcg"]), "out of range")


def _outcome(qrels, run, measures, **options):
    try:
        return Evaluator(qrels, measures=measures, **options).evaluate(run).to_trec(per_query=True)
    except TrecgainError as err:
        return ("refused", err.message)


@pytest.mark.parametrize("grade", [1e30, 2.0**60, -1e30, 1e301, 1.5e300])
def test_fractional_grades_of_any_size_as_files(grade, tmp_path):
    """With fractional grades a float of any finite size is read as a file's decimal is: the
    dict gives what the file gives, a value or the same refusal."""
    qrels = {"q1": {"d1": grade, "d2": 1}}
    run = {"q1": {"d1": 1.0, "d2": 1.0}}
    measures = ["ndcg", "dcg", "num_rel"]
    q = _write_qrels(tmp_path / "qrels.txt", qrels)
    r = _write_run(tmp_path / "run.txt", run)
    from_dict = _outcome(qrels, run, measures, fractional_grades=True)
    assert from_dict == _outcome(q, r, measures, fractional_grades=True)
    assert "nan" not in str(from_dict) and "inf" not in str(from_dict)


@pytest.mark.parametrize("options, same_as", [
    (dict(compat=9), dict(compat="9")),
    (dict(compat=10), dict(compat="10")),
    (dict(compat=np.int64(9)), dict(compat="9")),
    (dict(max_docs=np.int64(1)), dict(max_docs=1)),
    (dict(max_docs=2**70), dict(max_docs=None)),  # more than any ranking: every document
    (dict(max_docs=0), dict(max_docs=0)),
    (dict(relevance_level=np.int32(2)), dict(relevance_level=2)),
    (dict(relevance_level=10**400), dict(relevance_level=4)),  # beyond every grade: nothing relevant
    (dict(relevance_level=2**53 + 1), dict(relevance_level=4)),
    (dict(relevance_level=-10**400), dict(relevance_level=-5)),  # below every grade: all relevant
    (dict(judged_only=np.bool_(True)), dict(judged_only=True)),
    (dict(complete=np.True_), dict(complete=True)),
    (dict(num_docs=np.int64(100)), dict(num_docs=100)),
    (dict(num_docs=2**53), dict(num_docs=2**53)),
    (dict(err_max_grade=np.uint8(3)), dict(err_max_grade=3)),
    (dict(measures="ndcg"), dict(measures=["ndcg"])),  # one name
    (dict(measures=("ndcg", "P.2")), dict(measures=["ndcg", "P.2"])),
    (dict(measures=(m for m in ["ndcg", "P.2"])), dict(measures=["ndcg", "P.2"])),
    (dict(measures={"ndcg"}), dict(measures=["ndcg"])),
])
def test_accepted_spellings_of_options(options, same_as):
    base = {"measures": MEASURES + ["utility.1,-1,0,1", "err_cut.2"]}
    a = Evaluator(QRELS, **{**base, **options}).evaluate(RUN).to_trec(per_query=True)
    b = Evaluator(QRELS, **{**base, **same_as}).evaluate(RUN).to_trec(per_query=True)
    assert a == b


def test_relevance_level_2_53_is_exact():
    """Levels within the grades' range are exact doubles: 2**53 + 1 would round to 2**53."""
    qrels = {"q": {"a": 2**53, "b": 1}}
    run = {"q": {"a": 1.0}}
    count = lambda level: Evaluator(qrels, measures=["num_rel"], relevance_level=level).evaluate(run).aggregate
    assert count(2**53)["num_rel"] == 1
    assert count(2**53 + 1)["num_rel"] == 0
    assert count(-10**400)["num_rel"] == 2


@pytest.mark.parametrize("make", [
    lambda p: p,
    lambda p: str(p),
    lambda p: os.fsencode(str(p)).decode("utf-8", "surrogateescape"),
    lambda p: open(p, "rb"),
    lambda p: open(p, "r"),
    lambda p: io.BytesIO(p.read_bytes()),
    lambda p: io.StringIO(p.read_text()),
])
def test_good_sources(make, tmp_path):
    q = pathlib.Path(_write_qrels(tmp_path / "q\u00e9.txt", QRELS))
    r = pathlib.Path(_write_run(tmp_path / "run.txt", RUN))
    want = Evaluator(QRELS, measures=MEASURES).evaluate(RUN).to_trec(per_query=True)
    qs, rs = make(q), make(r)
    assert Evaluator(qs, measures=MEASURES).evaluate(rs).to_trec(per_query=True) == want
    for s in (qs, rs):
        if hasattr(s, "close"):
            s.close()


def test_a_path_that_is_not_utf8_is_read_and_named(tmp_path):
    path = os.path.join(os.fsencode(tmp_path), b"q\xff.txt")
    with open(path, "wb") as f:
        f.write(b"q1 0 d1 1\nq1 0 d1 2\n")
    name = os.fsdecode(path)  # '...q\udcff.txt'
    message = refused(lambda: Evaluator(name, measures=["ndcg"]), "judged twice")
    assert "q\\xff.txt" in message  # the byte shown as an escape: one printable line


# ---------------------------------------------------------------- the command line sees the same rules


@pytest.mark.parametrize("args, fragment", [
    (["-N", str(2**60)], "num_docs (-N) must be from 0 to 9007199254740992"),
])
def test_cli_options_beyond_range(args, fragment):
    qrels, run = ROOT / "testdata/example/qrels.txt", ROOT / "testdata/example/run.txt"
    out = run_cli([*args, "-m", "utility", str(qrels), str(run)])
    assert out.rc != 0 and out.stdout == b"" and fragment in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("args, same_as", [
    (["-l", str(10**400)], ["-l", str(2**60)]),  # once an OverflowError
    (["-M", str(10**30)], []),  # once an OverflowError
])
def test_cli_huge_values_mean_what_they_say(args, same_as):
    qrels, run = ROOT / "testdata/example/qrels.txt", ROOT / "testdata/example/run.txt"
    a = run_cli([*args, "-m", "ndcg", "-m", "num_rel", str(qrels), str(run)])
    b = run_cli([*same_as, "-m", "ndcg", "-m", "num_rel", str(qrels), str(run)])
    assert a.rc == 0 and a.stdout == b.stdout and "error" not in a.stderr and a.stderr == b.stderr


# ---------------------------------------------------------------- start-up stays light


def test_the_checks_cost_the_command_line_nothing():
    """trecgain's own modules import none of these heavy modules: the command line has only what
    click (its parser, issue 18) brings with it."""
    heavy = "('typing', 'dataclasses', 're', 'collections', 'inspect', 'numbers', 'numpy', 'decimal', 'fractions')"
    code = "import sys, {}; print(' '.join(m for m in " + heavy + " if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code.format("click")], capture_output=True, text=True, check=True)
    clicks = set(out.stdout.split())
    out = subprocess.run([sys.executable, "-c", code.format("click, trecgain.cli, trecgain.evaluate, trecgain.check")],
                         capture_output=True, text=True, check=True)
    assert set(out.stdout.split()) - clicks == set()
    assert "dataclasses" not in clicks | set(out.stdout.split())
