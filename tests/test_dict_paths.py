"""Every in-memory path against the text files: random collections given as pytrec_eval dicts,
pandas and polars DataFrames, lists of tuples and ir_measures namedtuples must evaluate
byte-identically (`to_trec(per_query=True)`) to the same data written as TREC files, in both
compat modes.  The files are written here (scores as repr(float), which Python reads back as
the same double), never by trecgain.  Also: the dict walk's refusals (tests/test_api_robustness.py
has the long list of cases; here the ones the core's walk reads natively or hands back), and a
mapping that is not a dict.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from types import MappingProxyType

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import Qrel, ScoredDoc

from trecgain import Evaluator, TrecgainError

MEASURES = ["ndcg_cut.10", "recall.1000", "recip_rank", "map", "P.5", "num_ret", "num_rel_ret", "bpref"]
SETTINGS = dict(deadline=None, derandomize=True, database=None, max_examples=40,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_IDS = st.sampled_from(["1", "2", "10", "d", "D", "\u00e9", "x-1", "07", "a.b", "\udcff"])
_SCORES = st.one_of(st.sampled_from([0.0, -0.0, 1.0, 1.5, 2.0, -3.25, 0.1, 1e-300, 1e300, 5e-324]),
                    st.floats(allow_nan=False, allow_infinity=False, width=64),
                    st.floats(allow_nan=False, allow_infinity=False, width=32))


@st.composite
def collections(draw) -> tuple[dict, dict]:
    """A qrels dict and a run dict over a few queries, with ties, negative grades, queries
    in one and not the other (rows cannot say that a query retrieved nothing: dicts with `{}`
    queries are tested in tests/test_api_robustness.py)."""
    qids = draw(st.lists(st.sampled_from(["q1", "q2", "301", "q\u00e9", "Q"]), min_size=1, max_size=4, unique=True))
    qrels = {}
    run = {}
    for qid in qids:
        if draw(st.booleans()) or not qrels:
            docs = draw(st.dictionaries(_IDS, st.integers(-2, 4), min_size=1, max_size=6))
            qrels[qid] = docs
        if qid == qids[0] or draw(st.integers(0, 4)):  # the first query is in both
            run[qid] = draw(st.dictionaries(_IDS, _SCORES, min_size=1, max_size=8))
    return qrels, run


def _files(tmp_path, qrels: dict, run: dict) -> tuple[str, str]:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_bytes(b"".join(f"{qid} 0 {d} {g}\n".encode("utf-8", "surrogateescape")
                           for qid, docs in qrels.items() for d, g in docs.items()))
    r.write_bytes(b"".join(f"{qid} Q0 {d} {i} {s!r} unknown\n".encode("utf-8", "surrogateescape")
                           for qid, docs in run.items() for i, (d, s) in enumerate(docs.items(), 1)))
    return str(q), str(r)


def _rows(data: dict) -> list[tuple]:
    return [(qid, d, v) for qid, docs in data.items() for d, v in docs.items()]


def _frame(rows: list[tuple], value: str, library) -> object:
    columns = {"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], value: [r[2] for r in rows]}
    if library is pl:
        return pl.DataFrame(columns, schema={"query_id": pl.String, "doc_id": pl.String,
                                             value: pl.Int64 if value == "relevance" else pl.Float64})
    return pd.DataFrame(columns)


def _forms(qrels: dict, run: dict) -> dict:
    """Makers of (qrels, run) in every in-memory form."""
    q, r = _rows(qrels), _rows(run)
    forms = {
        "dict": lambda: (qrels, run),
        "OrderedDict": lambda: (OrderedDict(qrels), OrderedDict((k, OrderedDict(v)) for k, v in run.items())),
        "mapping proxy": lambda: (MappingProxyType(qrels), MappingProxyType(run)),
        "pandas": lambda: (_frame(q, "relevance", pd), _frame(r, "score", pd)),
        "polars": lambda: (_frame(q, "relevance", pl), _frame(r, "score", pl)),
        "tuples": lambda: (list(q), list(r)),
        "namedtuples": lambda: ([Qrel(*row, "0") for row in q], [ScoredDoc(*row) for row in r]),
    }
    if any("\udcff" in row[0] + row[1] for row in q + r):
        del forms["polars"]  # polars' strings are UTF-8: it refuses a surrogate-escaped byte
    return forms


@pytest.mark.parametrize("compat", ["10", "9"])
@settings(**SETTINGS)
@given(data=collections())
def test_every_path_evaluates_as_the_files(compat, data, tmp_path_factory):
    qrels, run = data
    qrels_file, run_file = _files(tmp_path_factory.mktemp("files"), qrels, run)
    expected = Evaluator(qrels_file, MEASURES, compat=compat).evaluate(run_file).to_trec(per_query=True)
    for name, make in _forms(qrels, run).items():
        q, r = make()
        got = Evaluator(q, MEASURES, compat=compat).evaluate(r).to_trec(per_query=True)
        assert got == expected, name


@settings(**SETTINGS)
@given(data=collections())
def test_dict_and_files_agree_on_every_value_with_compat_9_cast(data, tmp_path_factory):
    """compat 9 casts each score to a float (f32): a Python float given in a dict must be cast
    the same as its text in a file (ties appear where f32 merges two doubles)."""
    qrels, run = data
    qrels_file, run_file = _files(tmp_path_factory.mktemp("files"), qrels, run)
    for compat in ("9", "10"):
        from_files = Evaluator(qrels_file, ["all_trec"], compat=compat).evaluate(run_file)
        from_dicts = Evaluator(qrels, ["all_trec"], compat=compat).evaluate(run)
        assert from_dicts.to_trec(per_query=True) == from_files.to_trec(per_query=True)


def test_compat_9_casts_dict_scores_to_f32():
    """1.0 and 1.0 + 2**-40 are different doubles but the same f32: compat 9 ties them, and
    the tie is broken by docno descending (d2 first), as trec_eval 9.x does."""
    qrels = {"q": {"d1": 1}}
    run = {"q": {"d1": 1.0 + 2**-40, "d2": 1.0}}
    assert Evaluator(qrels, ["recip_rank"], compat="10").evaluate(run).aggregate["recip_rank"] == 1.0
    assert Evaluator(qrels, ["recip_rank"], compat="9").evaluate(run).aggregate["recip_rank"] == 0.5


class _Str(str):
    pass


class _Float(float):
    pass


@pytest.mark.parametrize("docno, score, expect", [
    (_Str("d1"), 1.0, "d1"),            # a str subclass: read as its text
    (np.str_("d1"), np.float64(1.0), "d1"),
    (b"d1", _Float(1.0), "d1"),
    (1, 1, "1"),                        # an int id is its text, an int score exact
    (np.int64(1), np.int32(3), "1"),
    (-5, 2**53, "-5"),
    (10**30, 2.0**70, "1000000000000000000000000000000"),  # beyond i64: handed to the rules
])
def test_ids_and_values_the_walk_hands_back(docno, score, expect):
    result = Evaluator({"q": {expect: 1}}, ["num_rel_ret"]).evaluate({"q": {docno: score}})
    assert result.aggregate["num_rel_ret"] == 1


@pytest.mark.parametrize("qrels, run, fragment", [
    ({"q": {"d": 1}}, {"q": {"d": math.nan}}, "run: score nan of document 'd' of query 'q' is not a finite number"),
    ({"q": {"d": 1}}, {"q": {"d": _Float("inf")}}, "score inf of document 'd' of query 'q' is not a finite number"),
    ({"q": {"d": 1}}, {"q": {"d": 2**53 + 1}}, "score 9007199254740993 of document 'd' of query 'q' is not exactly"),
    ({"q": {"d": 1}}, {"q": {_Str("a b"): 1.0}}, "run: document id 'a b' contains whitespace or a NUL byte"),
    ({"q": {"d": 1}}, {"q": {"d": 1.0}, "r": {"e": None}}, "score None of document 'e' of query 'r' is not a number"),
    # every query is checked before any entry, as the Python walk did
    ({"q": {"d": 1}}, {"q": {"d": None}, "": {}}, "run: query id '' is empty"),
    ({"q": {"d": 1}}, {"q": {"d": None}, "r": 1}, "query 'r': its documents must be a dict {docno: score}, not 1"),
    ({"q": {"d": 1}}, {7: {"d": None}, "7": {}}, "run: query ids 7 and '7' name the same query"),
    ({"q": {"d": 1.5}}, None, "qrels: grade 1.5 of document 'd' of query 'q' is not an integer"),
    ({"q": {"d": True}}, None, "qrels: grade True of document 'd' of query 'q' is not a number"),
    ({"q": {"d": 2**53 + 1}}, None, "qrels: grade 9007199254740993 of document 'd' of query 'q' is out of range"),
    ({"q": {"d": 1, b"d": 2}}, None, "qrels: document 'd' judged twice for query 'q'"),
    ({"q": OrderedDict(d=1.0)}, None, "qrels: grade 1.0 of document 'd' of query 'q' is not an integer"),
    ({"q": {"d": 1}}, {"q": OrderedDict([("d", 1.0), ("e", "x")])}, "score 'x' of document 'e' of query 'q'"),
])
def test_dict_refusals(qrels, run, fragment):
    with pytest.raises(TrecgainError) as info:
        evaluator = Evaluator(qrels, ["map"])
        evaluator.evaluate(run)
    assert fragment in str(info.value), str(info.value)
    assert "\n" not in str(info.value)


def test_a_dict_run_keeps_no_python_object_per_entry():
    """The run read from a dict holds its ids and scores in the core: dropping the dict frees
    every Python object (no cached bytes or floats per entry)."""
    import gc
    import sys

    run = {f"q{q}": {f"d{d}": float(d) for d in range(200)} for q in range(50)}
    gc.collect()
    before = sys.getallocatedblocks()
    evaluator = Evaluator({"q1": {"d1": 1}}, ["map"])
    core_run = evaluator.read_run(run)
    gc.collect()
    assert sys.getallocatedblocks() - before < 500  # 10,000 entries: far fewer blocks than entries
    assert len(core_run) == 10_000


@pytest.mark.parametrize("make", [
    lambda big: (Evaluator({big: {"d": 1}}, ["map"]), None),
    lambda big: Evaluator({"q": {"d": 1}}, ["map"]).evaluate({"q": {big: 1.0}}),
    lambda big: Evaluator([("q", big, 1)], ["map"]),
    lambda big: Evaluator({"q": {"d": 1}}, ["map"]).evaluate(pd.DataFrame({"query_id": ["q"], "doc_id": [big],
                                                                             "score": [1.0]})),
])
def test_an_int_id_past_str_limit_is_refused(make):
    """Found by fuzz/atheris/fuzz_dicts.py: an int id of more than 4300 digits made str() raise
    ValueError (Python's limit on int to text); it is an id of more than 1024 bytes."""
    with pytest.raises(TrecgainError, match="is more than 1024 digits: ids are at most 1024 bytes"):
        make(10**5000)


@pytest.mark.parametrize("rows, fragment", [
    # a row's shape is checked for every row before any id or value, as the rows are taken
    ((r for r in [("", "d1", 1.0), ("q1", "d2")]), "run generator:2: row ('q1', 'd2') has 2 fields"),
    ([("q1", "d1", math.nan), ("q1", "d2", 1.0), ["q1", "d3", 1.0]], "run list:3: row ['q1', 'd3', 1.0] is a list, not"),
    ([("q1", "d1", 1.0), ("q1", "d1", 1.0), ("q1", "d2")], "run list:3: row ('q1', 'd2') has 2 fields"),
    ([("q1", 7, 1.0), ScoredDoc("q1", "d2", 1.0), Qrel("q1", "d3", 1, "0")], "run list:3: row Qrel("),
    # within a row: qid, then docno, then value
    ([("q1", "d1", 1.0), ("a b", "", math.nan)], "run list:2: query id 'a b' contains whitespace"),
    ([("q1", "d1", 1.0), ("q1", "", math.nan)], "run list:2: document id '' is empty"),
    ([("q1", "d1", 1.0), ("q1", "d2", math.nan)], "run list:2: score nan of document 'd2' of query 'q1' is not a"),
    ([("q1", np.int64(7), None)], "run list:1: score None of document '7' of query 'q1' is not a number"),
    ([("q1", "d1", 1.0), ("q1", b"d1", 2.0)], "run list:2: document 'd1' retrieved twice for query 'q1' (first at row 1)"),
])
def test_tuple_refusals(rows, fragment):
    with pytest.raises(TrecgainError) as info:
        Evaluator({"q1": {"d1": 1}}, ["map"]).evaluate(rows)
    assert fragment in str(info.value), str(info.value)


def test_tuple_values_the_core_hands_back():
    """Values other than a float or an int within 2**53 go to trecgain.check's rules: numpy's
    floats and Decimal as doubles, a fractional grade only with fractional_grades."""
    import decimal

    rows = [("q1", "d1", np.float32(0.5)), ("q1", "d2", decimal.Decimal("0.25")), ("q1", 3, 2**60)]
    assert Evaluator([("q1", "3", 1)], ["recip_rank"]).evaluate(rows).aggregate["recip_rank"] == 1.0
    with pytest.raises(TrecgainError, match=r"qrels list:1: grade 1.5 of document 'd1' of query 'q1' is not an int"):
        Evaluator([("q1", "d1", 1.5)], ["map"])
    assert len(Evaluator([("q1", "d1", 1.5)], ["map"], fractional_grades=True).qrels) == 1


def test_tuple_qids_in_any_mix_evaluate_as_the_dict():
    """A qid object shared by many rows is read once, and each row's qid still counts: rows
    sharing one str, equal strs, bytes, an int read by the rules, queries met again after
    another, each evaluate as the same run given as a dict."""
    q1, q2 = "q1", "".join(["q", "2"])
    rows = [(q1, "d1", 3.0), (q1, "d2", 2.0), ("".join(["q", "1"]), "d3", 1.0), (b"q1", "d4", 0.5),
            (q2, "d1", 2.0), (q1, "d5", 0.25), (q2, "d2", 1.0), (3, "d1", 1.0), (3, "d2", 2.0), ("3", "d3", 0.5),
            (q2, "d3", 0.5), (q2, b"d4", 0.25)]
    as_dict: dict = {}
    for q, d, s in rows:
        q = q.decode() if isinstance(q, bytes) else str(q)
        as_dict.setdefault(q, {})[d.decode() if isinstance(d, bytes) else d] = s
    qrels = {"q1": {"d2": 1, "d4": 2}, "q2": {"d3": 1, "d1": 1}, "3": {"d3": 1}}
    evaluator = Evaluator(qrels, MEASURES)
    by_rows = evaluator.evaluate(rows).to_trec(per_query=True)
    assert by_rows == evaluator.evaluate(as_dict).to_trec(per_query=True)
    assert "num_ret               \tq1\t5" in by_rows  # five rows of q1, one of them bytes
