"""DataFrames (pandas and polars), namedtuples and tuples as qrels and runs (trecgain/rows.py).

Every good case is checked against the same data written as TREC files and evaluated from
the files: `to_trec(per_query=True)` must be byte-identical, in both compat modes, for a few
measures and for all_trec.  The rows are parsed from the data sets' files here, by this test
(comment lines and blank run lines skipped, fields split at whitespace, grades by int(),
scores by float()), never taken from trecgain.  A frame, like a dict, has no run tag: its
runid is `unknown`, so the files the frames are compared with are written with that tag, and
the original files' output is compared with its runid line's value changed to `unknown`.

Bad input: each refusal is one line naming the source, the row (counted from 1, as the lines
of the same data in a file) and the problem, checked in full.

Bulk reading: a frame's integer id column reaches the core as the numpy array it is (the core
writes the decimal text), so reading it takes no Python object per row; the peak memory a read
adds is measured in a subprocess (test_integer_ids_are_read_in_bulk).
"""

from __future__ import annotations

import ctypes
import math
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import Qrel, ScoredDoc

from conftest import CASES, ROOT
from trecgain import Evaluator, TrecgainError

EXAMPLE = ROOT / "testdata" / "example"
DATASETS = [EXAMPLE] + [CASES / name for name in (
    "h-comments", "h-crlf", "h-float32-near-tie", "h-score-sci", "h-score-negative", "h-run-blank-lines",
    "h-run-extra-fields", "h-qid-string-order", "h-tie-numeric-docnos", "h-tie-docno-desc", "h-big-grades",
    "h-nothing-relevant", "h-worked-linear", "h-deep", "f0040", "r0117", "r0266")]
MEASURE_SETS = [["ndcg_cut.10", "map", "P.5"], ["all_trec"]]
COMPATS = ["10", "9"]
SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------- the data, parsed here


def _text(field: bytes) -> str:
    return field.decode("utf-8", "surrogateescape")


def parse_qrels(path: Path) -> list[tuple[str, str, int]]:
    """(qid, docno, grade) of each judgment line of a qrels file."""
    rows = []
    for line in path.read_bytes().split(b"\n"):
        if line.startswith(b"#") or not line.split():
            continue
        qid, _, docno, grade = line.split()
        rows.append((_text(qid), _text(docno), int(grade)))
    return rows


def parse_run(path: Path) -> tuple[list[tuple[str, str, float]], str]:
    """(qid, docno, score) of each result line of a run file, and the last line's tag."""
    rows, tag = [], ""
    for line in path.read_bytes().split(b"\n"):
        fields = line.split()
        if line.startswith(b"#") or not fields:
            continue
        rows.append((_text(fields[0]), _text(fields[2]), float(fields[4])))
        tag = _text(fields[5])
    return rows, tag


def write_files(directory: Path, qrels: list[tuple], run: list[tuple]) -> tuple[str, str]:
    """The rows as a qrels file and a run file tagged `unknown` (a frame's runid)."""
    q, r = directory / "qrels.txt", directory / "run.txt"
    q.write_bytes(b"".join(f"{qid} 0 {docno} {grade}\n".encode("utf-8", "surrogateescape")
                           for qid, docno, grade in qrels))
    r.write_bytes(b"".join(f"{qid} Q0 {docno} {i} {score!r} unknown\n".encode("utf-8", "surrogateescape")
                           for i, (qid, docno, score) in enumerate(run, 1)))
    return str(q), str(r)


def as_trec(qrels, run, measures, compat, **options) -> str:
    return Evaluator(qrels, measures=measures, compat=compat, **options).evaluate(run).to_trec(per_query=True)


def columns(rows: list[tuple]) -> tuple[list, list, list]:
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


# ---------------------------------------------------------------- the forms users have


def qrels_forms(rows: list[tuple]) -> dict:
    """Makers of the qrels in each accepted form (a generator can be read once only)."""
    q, d, g = columns(rows)
    return {
        "ir_measures frame": lambda: pd.DataFrame({"query_id": q, "doc_id": d, "relevance": g, "iteration": "0"}),
        "PyTerrier frame": lambda: pd.DataFrame({"qid": q, "docno": d, "label": g}),
        "Qrel list": lambda: [Qrel(*row) for row in rows],
        "tuple generator": lambda: (row for row in rows),
        "polars ir_measures frame": lambda: pl.DataFrame({"query_id": q, "doc_id": d, "relevance": g,
                                                          "iteration": "0"}),
        "polars PyTerrier frame": lambda: pl.DataFrame({"qid": q, "docno": d, "label": g}),
    }


def run_forms(rows: list[tuple]) -> dict:
    """Makers of the run in each accepted form, paired with qrels_forms by position."""
    q, d, s = columns(rows)
    return {
        "ir_measures frame": lambda: pd.DataFrame({"query_id": q, "doc_id": d, "score": s}),
        "PyTerrier frame": lambda: pd.DataFrame({"qid": q, "docid": range(len(rows)), "docno": d, "score": s,
                                                 "rank": range(len(rows)), "query": "some words"}),
        "ScoredDoc generator": lambda: (ScoredDoc(*row) for row in rows),
        "tuple list": lambda: list(rows),
        "polars PyTerrier frame": lambda: pl.DataFrame({"qid": q, "docid": range(len(rows)), "docno": d, "score": s,
                                                        "rank": range(len(rows)), "query": "some words"}),
        "polars ir_measures frame": lambda: pl.DataFrame({"query_id": q, "doc_id": d, "score": s}),
    }


FORMS = list(zip(qrels_forms([]), run_forms([])))


def _runid_unknown(text: str, tag: str) -> str:
    return text.replace(f"runid                 \tall\t{tag}\n", "runid                 \tall\tunknown\n")


@pytest.mark.parametrize("dataset", DATASETS, ids=lambda p: p.name)
@pytest.mark.parametrize("compat", COMPATS)
@pytest.mark.parametrize("measures", MEASURE_SETS, ids=lambda m: m[0])
def test_every_form_evaluates_as_the_files(dataset, compat, measures, tmp_path):
    qrels = parse_qrels(dataset / "qrels.txt")
    run, tag = parse_run(dataset / "run.txt")
    written = as_trec(*write_files(tmp_path, qrels, run), measures, compat)
    original = as_trec(str(dataset / "qrels.txt"), str(dataset / "run.txt"), measures, compat)
    assert _runid_unknown(original, tag) == written  # the files written here are the same data
    for (qrels_form, make_qrels), (run_form, make_run) in zip(qrels_forms(qrels).items(), run_forms(run).items()):
        assert as_trec(make_qrels(), make_run(), measures, compat) == written, (qrels_form, run_form)


def test_ir_measures_readers_are_sources():
    """ir_measures' own file readers give generators of Qrel and ScoredDoc."""
    import ir_measures

    qrels, run = str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")
    got = as_trec(ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run), ["all_trec"], "10")
    assert got == _runid_unknown(as_trec(qrels, run, ["all_trec"], "10"), "bm25")


def test_against_pytrec_eval():
    """pytrec_eval (trec_eval 9's code) on dicts agrees with compat 9 on frames."""
    import pytrec_eval

    qrels, (run, _) = parse_qrels(EXAMPLE / "qrels.txt"), parse_run(EXAMPLE / "run.txt")
    qrels_dict: dict = {}
    for q, d, g in qrels:
        qrels_dict.setdefault(q, {})[d] = g
    run_dict: dict = {}
    for q, d, s in run:
        run_dict.setdefault(q, {})[d] = s
    theirs = pytrec_eval.RelevanceEvaluator(qrels_dict, {"map", "ndcg_cut.10", "P.5"}).evaluate(run_dict)
    ours = Evaluator(qrels_forms(qrels)["PyTerrier frame"](), measures=["map", "ndcg_cut.10", "P.5"],
                     compat="9").evaluate(run_forms(run)["PyTerrier frame"]()).per_query
    assert set(ours) == set(theirs)
    for qid, values in theirs.items():
        for name in ("map", "ndcg_cut_10", "P_5"):
            assert math.isclose(ours[qid][name], values[name], rel_tol=1e-12, abs_tol=1e-15), (qid, name)


# ---------------------------------------------------------------- generated collections

IDS = st.text(alphabet="aZ09_.\u00e9-", min_size=1, max_size=3)
SCORES = st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5, allow_nan=False, width=32).map(float),
                   st.floats(-1e6, 1e6, allow_nan=False))


@st.composite
def collections(draw):
    """Qrels and run rows in a random order, with str or int qids (int qids are their text)."""
    qids = draw(st.lists(st.integers(0, 300) if draw(st.booleans()) else IDS, min_size=1, max_size=4, unique=True))
    qrels, run = [], []
    for i, q in enumerate(qids):
        for d in draw(st.lists(IDS, min_size=1 if i == 0 else 0, max_size=6, unique=True)):
            qrels.append((q, d, draw(st.integers(-1, 4))))
        if i == 0 or draw(st.booleans()):  # the first query in both, so that one overlaps
            for d in draw(st.lists(IDS, min_size=1, max_size=8, unique=True)):
                run.append((q, d, draw(SCORES)))
    return draw(st.permutations(qrels)), draw(st.permutations(run))


@settings(max_examples=60, **SETTINGS)
@given(collections(), st.sampled_from(FORMS), st.sampled_from(COMPATS), st.booleans())
def test_generated_collections(collection, forms, compat, float_grades):
    qrels, run = collection
    make_qrels, make_run = qrels_forms(qrels)[forms[0]], run_forms(run)[forms[1]]
    given_qrels = make_qrels()
    if float_grades and isinstance(given_qrels, pd.DataFrame):  # whole floats: grades, in a frame
        grade = "relevance" if "relevance" in given_qrels else "label"
        given_qrels[grade] = given_qrels[grade].astype(np.float64)
    if float_grades and isinstance(given_qrels, pl.DataFrame):
        grade = "relevance" if "relevance" in given_qrels.columns else "label"
        given_qrels = given_qrels.with_columns(pl.col(grade).cast(pl.Float64))
    with tempfile.TemporaryDirectory() as directory:
        files = write_files(Path(directory), qrels, run)
        assert as_trec(given_qrels, make_run(), ["all_trec"], compat) == as_trec(*files, ["all_trec"], compat)


# ---------------------------------------------------------------- integer ids, read in bulk

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@st.composite
def integer_collections(draw):
    """Qrels and run rows whose ids are whole numbers of one numpy dtype (its extremes drawn often)."""
    dtype = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    ids = st.integers(int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    qids = draw(st.lists(ids, min_size=1, max_size=3, unique=True))
    qrels, run = [], []
    for i, q in enumerate(qids):
        for d in draw(st.lists(ids, min_size=1 if i == 0 else 0, max_size=5, unique=True)):
            qrels.append((q, d, draw(st.integers(0, 3))))
        for d in draw(st.lists(ids, min_size=1, max_size=6, unique=True)):
            run.append((q, d, draw(SCORES)))
    return dtype, draw(st.permutations(qrels)), draw(st.permutations(run))


def integer_frame(library: str, names: tuple[str, str, str], rows: list[tuple], dtype: np.dtype):
    """A pandas or polars frame whose id columns are numpy arrays of `dtype`."""
    q, d, v = columns(rows)
    data = {names[0]: np.array(q, dtype=dtype), names[1]: np.array(d, dtype=dtype), names[2]: v}
    return pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)


@settings(max_examples=60, **SETTINGS)
@given(integer_collections(), st.sampled_from(["pandas", "polars"]), st.sampled_from(COMPATS))
def test_generated_integer_ids_are_their_decimal_text(collection, library, compat):
    """An integer id column of any width, signed or not, reads as the same data written as files
    with each id's decimal text (`str(int)`: -5, 18446744073709551615)."""
    dtype, qrels, run = collection
    given_qrels = integer_frame(library, ("query_id", "doc_id", "relevance"), qrels, dtype)
    given_run = integer_frame(library, ("qid", "docno", "score"), run, dtype)
    with tempfile.TemporaryDirectory() as directory:
        files = write_files(Path(directory), qrels, run)
        assert as_trec(given_qrels, given_run, ["all_trec"], compat) == as_trec(*files, ["all_trec"], compat)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_integer_id_extremes(library, tmp_path):
    """The widest ids of int64 and uint64, 0 and negatives, and a column that is a strided view."""
    low, high, top = -(2**63), 2**63 - 1, 2**64 - 1
    qrels = [(low, high, 1), (low, 0, 0), (-1, -10, 2), (7, 10**18, 1)]
    run = [(low, high, 0.5), (low, -1, 0.75), (-1, -10, 0.25), (7, 10**18, 1.0), (7, 3, 2.0)]
    expected = _files_trec(tmp_path, qrels, run)
    frames = [integer_frame(library, ("qid", "docno", "label"), qrels, np.dtype("int64")),
              integer_frame(library, ("qid", "docno", "score"), run, np.dtype("int64"))]
    assert as_trec(*frames, MEASURES, "10") == expected
    unsigned_qrels = [(top, top, 1), (0, 2**63, 0), (5, top - 1, 2)]
    unsigned_run = [(top, top, 1.5), (0, 2**63, 0.5), (5, 1, 0.25)]
    frames = [integer_frame(library, ("qid", "docno", "label"), unsigned_qrels, np.dtype("uint64")),
              integer_frame(library, ("qid", "docno", "score"), unsigned_run, np.dtype("uint64"))]
    assert as_trec(*frames, MEASURES, "10") == _files_trec(tmp_path, unsigned_qrels, unsigned_run)
    if library == "pandas":  # ids in one two-dimensional block, each column a strided view of it
        block = pd.DataFrame(np.array([row[:2] for row in run], dtype=np.int64), columns=["qid", "docno"],
                             copy=False)
        block["score"] = [row[2] for row in run]
        assert not block["qid"].to_numpy().flags["C_CONTIGUOUS"]
        assert as_trec(qrels, block, MEASURES, "10") == expected
        nullable = pd.DataFrame({"qid": pd.array([r[0] for r in run], dtype="Int64"),
                                 "docno": pd.array([r[1] for r in run], dtype="Int64"), "score": [r[2] for r in run]})
        assert as_trec(qrels, nullable, MEASURES, "10") == expected


PEAK_PROBE = r"""
import re, resource, sys
import numpy as np
from trecgain.read import read_qrels, read_run

library, what, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
value = "label" if what == "qrels" else "score"
read = read_qrels if what == "qrels" else read_run


def frame(n):
    data = {"qid": np.arange(n, dtype=np.int64) // 100 + 301, "docno": np.arange(n, dtype=np.int64) * 7 + 10**9,
            value: np.ones(n)}
    if library == "pandas":
        import pandas
        return pandas.DataFrame(data)
    import polars
    return polars.DataFrame(data)


def kib(field):
    return int(re.search(field + r":\s+(\d+) kB", open("/proc/self/status").read()).group(1))


read(frame(10))  # what is imported on first use is imported before measuring
big = frame(rows)
try:
    open("/proc/self/clear_refs", "w").write("5")  # Linux: the peak is reset to the present
    before = kib("VmRSS")
except OSError:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
read(big)
after = kib("VmHWM") if sys.platform == "linux" else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024 / rows)
"""


@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("what", ["qrels", "run"])
def test_integer_ids_are_read_in_bulk(library, what):
    """Reading a frame of 500,000 rows with int64 ids adds at most 120 bytes a row to the
    process's peak memory (the core's own qrels or run takes 30 to 80); a Python str made for
    each id, as before, took over 200 (2.2 GB at the peak for a run of 10 million rows)."""
    out = subprocess.run([sys.executable, "-c", PEAK_PROBE, library, what, "500000"], capture_output=True,
                         text=True, check=True)
    assert float(out.stdout) < 120


# ---------------------------------------------------------------- what the columns may hold

QRELS = [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", 1)]
RUN = [("q1", "d1", 1.5), ("q1", "d2", 2.5), ("q2", "d3", 0.5), ("q2", "d4", 0.25)]
MEASURES = ["ndcg", "map", "num_ret", "num_rel"]


def _files_trec(tmp_path, qrels=QRELS, run=RUN, **options) -> str:
    return as_trec(*write_files(tmp_path, qrels, run), MEASURES, "10", **options)


def test_int_ids_are_their_text(tmp_path):
    frame = pd.DataFrame({"qid": [301, 301, 302], "docno": [7, 8, 9], "label": [2, 0, 1]})
    run = pd.DataFrame({"qid": np.array([301, 302], dtype=np.uint16), "docno": ["7", "9"], "score": [1.0, 2.0]})
    expected = _files_trec(tmp_path, [("301", "7", 2), ("301", "8", 0), ("302", "9", 1)],
                           [("301", "7", 1.0), ("302", "9", 2.0)])
    assert as_trec(frame, run, MEASURES, "10") == expected
    assert as_trec([(301, 7, 2), (301, 8, 0), (302, "9", 1)], [("301", 7, 1.0), (302, b"9", 2)], MEASURES,
                   "10") == expected


def test_bytes_and_surrogate_escaped_ids_are_the_bytes_of_a_file(tmp_path):
    """'\\udcff' stands for the byte 0xff (surrogateescape), as in dicts; bytes ids are their bytes."""
    frame = pd.DataFrame({"qid": ["q\udcff", "q\udcff"], "docno": ["d\udc80", "d2"], "label": [2, 1]})
    run = [(b"q\xff", b"d\x80", 1.0), ("q\udcff", "d2", 2.0)]
    (tmp_path / "qrels.txt").write_bytes(b"q\xff 0 d\x80 2\nq\xff 0 d2 1\n")
    (tmp_path / "run.txt").write_bytes(b"q\xff Q0 d\x80 1 1.0 unknown\nq\xff Q0 d2 2 2.0 unknown\n")
    got = Evaluator(frame, measures=MEASURES).evaluate(run)
    files = Evaluator(str(tmp_path / "qrels.txt"), measures=MEASURES).evaluate(str(tmp_path / "run.txt"))
    assert got.to_trec_bytes(per_query=True) == files.to_trec_bytes(per_query=True)
    assert got.qids == ["q\udcff"]


def test_value_dtypes_of_frames(tmp_path):
    """int8..uint64 and float32 columns, object columns of Python and numpy numbers, pandas'
    nullable Int64 without a missing value, and whole floats as grades are read exactly."""
    expected = _files_trec(tmp_path)
    q, d, g = columns(QRELS)
    rq, rd, s = columns(RUN)
    for grades in (np.array(g, dtype=np.int8), np.array(g, dtype=np.uint64), np.array(g, dtype=np.float64),
                   np.array(g, dtype=np.float32), pd.array(g, dtype="Int64"), np.array(g, dtype=object),
                   np.array([np.int16(2), 0.0, 1], dtype=object)):
        for scores in (np.array(s, dtype=np.float32), np.array(s, dtype=object), pd.array(s, dtype="Float64")):
            got = as_trec(pd.DataFrame({"qid": q, "docno": d, "label": grades}),
                          pd.DataFrame({"qid": rq, "docno": rd, "score": scores}), MEASURES, "10")
            assert got == expected, (grades.dtype, scores.dtype)
    int_scores = pd.DataFrame({"qid": rq, "docno": rd, "score": [1, 2**53, 2**60, -(2**62)]})
    assert as_trec(QRELS, int_scores, MEASURES, "10") == _files_trec(
        tmp_path, run=list(zip(rq, rd, [1.0, 2.0**53, 2.0**60, -(2.0**62)])))


def test_fractional_grades(tmp_path):
    qrels = [("q1", "d1", 0.5), ("q1", "d2", 2.25), ("q2", "d3", 1)]
    expected = _files_trec(tmp_path, qrels, fractional_grades=True)
    frame = pd.DataFrame(dict(zip(("query_id", "doc_id", "relevance"), columns(qrels))))
    assert as_trec(frame, RUN, MEASURES, "10", fractional_grades=True) == expected
    assert as_trec(qrels, RUN, MEASURES, "10", fractional_grades=True) == expected


def test_a_frame_keeps_its_own_index_and_order(tmp_path):
    """The index plays no part; rows are counted by position."""
    frame = pd.DataFrame(dict(zip(("qid", "docno", "score"), columns(RUN))), index=[10, 3, 3, -1])
    assert as_trec(QRELS, frame, MEASURES, "10") == _files_trec(tmp_path)
    frame.loc[3, "score"] = math.nan  # rows 2 and 3 share the label 3
    with pytest.raises(TrecgainError, match=r"^run DataFrame:2: score nan of document 'd2' of query 'q1' is not"):
        Evaluator(QRELS).evaluate(frame)


def test_a_generator_is_read_once():
    pulled = []

    def rows():
        for row in RUN:
            pulled.append(row)
            yield row

    source = rows()
    result = Evaluator(QRELS, measures=["num_ret"]).evaluate(source)
    assert result.aggregate["num_ret"] == 4 and pulled == RUN
    refused(lambda: Evaluator(QRELS).evaluate(source), "run generator: no results in the run")


def test_no_row_is_visited_by_pandas(monkeypatch):
    """Frames are read by column (the speed of millions of rows), never row by row."""
    def forbidden(*args, **kwargs):
        raise AssertionError("a frame was read row by row")

    for name in ("iterrows", "itertuples", "apply", "__iter__"):
        monkeypatch.setattr(pd.DataFrame, name, forbidden)
    frame = pd.DataFrame(dict(zip(("qid", "docno", "score"), columns(RUN))))
    qrels = pd.DataFrame(dict(zip(("qid", "docno", "label"), columns(QRELS))))
    assert Evaluator(qrels, measures=["num_ret"]).evaluate(frame).aggregate["num_ret"] == 4


def test_importing_trecgain_imports_neither_pandas_nor_numpy():
    code = ("import sys, trecgain.evaluate, trecgain.rows; "
            "print('pandas' in sys.modules, 'numpy' in sys.modules, 'polars' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


def test_pandas_frames_and_files_need_no_polars():
    """Without polars (its import made to fail), pandas frames and files read as before, and
    reading them never imports polars."""
    code = f"""if True:
        import sys
        sys.modules["polars"] = None  # import polars now raises ImportError
        import pandas as pd
        from trecgain import Evaluator
        qrels = pd.DataFrame({{"qid": [1, 1], "docno": ["d1", "d2"], "label": [1, 0]}})
        run = pd.DataFrame({{"qid": [1, 1], "docno": ["d2", "d1"], "score": [2.0, 1.0]}})
        print(Evaluator(qrels, measures=["num_rel_ret"]).evaluate(run).aggregate["num_rel_ret"])
        files = Evaluator({str(EXAMPLE / "qrels.txt")!r}, measures=["num_rel_ret"])
        print(files.evaluate({str(EXAMPLE / "run.txt")!r}).aggregate["num_rel_ret"] > 0, sys.modules["polars"])
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "True", "None"]


# ---------------------------------------------------------------- polars


def test_polars_ids_of_every_kind(tmp_path):
    """String ids (any UTF-8), Binary ids (any bytes, as a file's), Categorical and Int32 ids."""
    qrels = [("q\u00e9", "d\u65e5\u672c", 2), ("q\u00e9", "d\U0001f600", 0), ("q2", "d3", 1)]
    run = [("q\u00e9", "d\u65e5\u672c", 1.5), ("q\u00e9", "d\U0001f600", 2.5), ("q2", "d3", 0.5)]
    q, d, g = columns(qrels)
    rq, rd, s = columns(run)
    expected = _files_trec(tmp_path, qrels, run)
    assert as_trec(pl.DataFrame({"qid": q, "docno": d, "label": g}),
                   pl.DataFrame({"qid": rq, "docno": rd, "score": s}), MEASURES, "10") == expected
    categorical = pl.DataFrame({"qid": pl.Series(rq, dtype=pl.Categorical), "docno": rd, "score": s})
    assert as_trec(pl.DataFrame({"qid": q, "docno": d, "label": g}), categorical, MEASURES, "10") == expected
    (tmp_path / "qrels.txt").write_bytes(b"q\xff 0 d\x80 2\nq\xff 0 d2 1\n")
    (tmp_path / "run.txt").write_bytes(b"q\xff Q0 d\x80 1 1.0 unknown\nq\xff Q0 d2 2 2.0 unknown\n")
    binary = pl.DataFrame({"qid": [b"q\xff", b"q\xff"], "docno": [b"d\x80", b"d2"], "label": [2, 1]})
    binary_run = pl.DataFrame({"qid": [b"q\xff", b"q\xff"], "docno": [b"d\x80", b"d2"], "score": [1.0, 2.0]})
    assert binary["qid"].dtype == pl.Binary
    assert as_trec(binary, binary_run, MEASURES, "10") == as_trec(str(tmp_path / "qrels.txt"),
                                                                  str(tmp_path / "run.txt"), MEASURES, "10")
    small = pl.DataFrame({"qid": pl.Series([301, 301, 302], dtype=pl.Int32), "docno": [7, 8, 9], "label": [2, 0, 1]})
    small_run = pl.DataFrame({"qid": pl.Series([301, 302], dtype=pl.UInt16), "docno": ["7", "9"], "score": [1.0, 2.0]})
    assert as_trec(small, small_run, MEASURES, "10") == _files_trec(
        tmp_path, [("301", "7", 2), ("301", "8", 0), ("302", "9", 1)], [("301", "7", 1.0), ("302", "9", 2.0)])


def test_polars_value_dtypes(tmp_path):
    """Grades of any integer width and whole floats, scores of float32, ints and int128."""
    expected = _files_trec(tmp_path)
    q, d, g = columns(QRELS)
    rq, rd, s = columns(RUN)
    for grades in (pl.Series(g, dtype=pl.Int8), pl.Series(g, dtype=pl.UInt64), pl.Series(g, dtype=pl.Float64),
                   pl.Series(g, dtype=pl.Float32), pl.Series(g, dtype=pl.Int128)):
        for scores in (pl.Series(s, dtype=pl.Float32), pl.Series(s, dtype=pl.Float64)):
            got = as_trec(pl.DataFrame({"qid": q, "docno": d, "label": grades}),
                          pl.DataFrame({"qid": rq, "docno": rd, "score": scores}), MEASURES, "10")
            assert got == expected, (grades.dtype, scores.dtype)
    int_scores = pl.DataFrame({"qid": rq, "docno": rd, "score": [1, 2**53, 2**60, -(2**62)]})
    assert as_trec(QRELS, int_scores, MEASURES, "10") == _files_trec(
        tmp_path, run=list(zip(rq, rd, [1.0, 2.0**53, 2.0**60, -(2.0**62)])))


def test_a_polars_frame_is_read_by_column(monkeypatch):
    """Never row by row, and string ids never one Python str per row (to_list)."""
    def forbidden(*args, **kwargs):
        raise AssertionError("a polars frame was read row by row")

    for name in ("iter_rows", "rows", "row", "to_dicts", "__iter__"):
        monkeypatch.setattr(pl.DataFrame, name, forbidden)
    monkeypatch.setattr(pl.Series, "to_list", forbidden)
    frame = pl.DataFrame(dict(zip(("qid", "docno", "score"), columns(RUN))))
    qrels = pl.DataFrame(dict(zip(("qid", "docno", "label"), columns(QRELS))))
    assert Evaluator(qrels, measures=["num_ret"]).evaluate(frame).aggregate["num_ret"] == 4


# ---------------------------------------------------------------- refusals


def refused(call, expected: str) -> str:
    """`call()` raises TrecgainError whose message is `expected` (one line)."""
    with pytest.raises(TrecgainError) as info:
        call()
    assert str(info.value) == expected
    return str(info.value)


def _qrels_frame(**changes) -> pd.DataFrame:
    frame = pd.DataFrame(dict(zip(("query_id", "doc_id", "relevance"), columns(QRELS))))
    return frame.assign(**changes)


def _run_frame(**changes) -> pd.DataFrame:
    frame = pd.DataFrame(dict(zip(("qid", "docno", "score"), columns(RUN))))
    return frame.assign(**changes)


QRELS_EXPECTED = ("expected 'query_id', 'doc_id', 'relevance' (ir_measures) or 'qid', 'docno', 'label' "
                  "(PyTerrier)")
RUN_EXPECTED = "expected 'query_id', 'doc_id', 'score' (ir_measures) or 'qid', 'docno', 'score' (PyTerrier)"
QRELS_SHAPES = "(qid, docno, grade) tuples or ir_measures' Qrel(query_id, doc_id, relevance, iteration)"
RUN_SHAPES = "(qid, docno, score) tuples or ir_measures' ScoredDoc(query_id, doc_id, score)"


@pytest.mark.parametrize("qrels, expected", [
    (_qrels_frame().drop(columns="relevance"), f"qrels DataFrame: has columns 'query_id', 'doc_id': {QRELS_EXPECTED}"),
    (_run_frame(), f"qrels DataFrame: has columns 'qid', 'docno', 'score': {QRELS_EXPECTED}"),
    (pd.DataFrame(columns=list("abcdefghijklmn")), "qrels DataFrame: has columns 'a', 'b', 'c', 'd', 'e', 'f', "
     f"'g', 'h', 'i', 'j', 'k', 'l', ... (14 columns): {QRELS_EXPECTED}"),
    (_qrels_frame(qid="q", docno="d", label=1), f"qrels DataFrame: has both {QRELS_EXPECTED[9:]}: keep one set of "
     "columns"),
    (pd.concat([_qrels_frame(), _qrels_frame()[["doc_id"]]], axis=1), "qrels DataFrame: has 2 columns named 'doc_id'"),
    (_qrels_frame(relevance=[2, math.nan, 1]),
     "qrels DataFrame:2: grade nan of document 'd2' of query 'q1' is not a finite number"),
    (_qrels_frame(relevance=pd.array([2, None, 1], dtype="Int64")),
     "qrels DataFrame:2: grade nan of document 'd2' of query 'q1' is not a finite number"),
    (_qrels_frame(relevance=[2, 0.5, 1]), "qrels DataFrame:2: grade 0.5 of document 'd2' of query 'q1' is not an "
     "integer (fractional_grades=True accepts it)"),
    (_qrels_frame(relevance=[2, 0, 2**53 + 1]), "qrels DataFrame:3: grade 9007199254740993 of document 'd3' of query "
     "'q2' is out of range (integer grades are at most 2**53 = 9007199254740992 in magnitude, as in qrels files)"),
    (_qrels_frame(relevance=[1e300, 0, 1]), "qrels DataFrame:1: grade 1e+300 of document 'd1' of query 'q1' is out "
     "of range (integer grades are at most 2**53 = 9007199254740992 in magnitude, as in qrels files)"),
    (_qrels_frame(relevance=["2", "0", "1"]), "qrels DataFrame:1: grade '2' of document 'd1' of query 'q1' is not a "
     "number (strings are not read as numbers)"),
    (_qrels_frame(relevance=[True, False, True]),
     "qrels DataFrame:1: grade True of document 'd1' of query 'q1' is not a number"),
    (_qrels_frame(doc_id=["d1", "d 2", None]),
     "qrels DataFrame:2: document id 'd 2' contains whitespace or a NUL byte"),
    (_qrels_frame(doc_id=["d1", "d2", None]),
     "qrels DataFrame:3: document id nan is not a string (ids are str, bytes or int)"),  # pandas' str dtype: NaN
    (_qrels_frame(query_id=[1.0, 1.0, 2.0]), "qrels DataFrame:1: query id 1.0 is not a string (ids are str, bytes or "
     "int)"),
    (_qrels_frame(query_id=pd.array([1, 1, None], dtype="Int64")),
     "qrels DataFrame:3: query id None is not a string (ids are str, bytes or int)"),
    (_qrels_frame(doc_id=pd.array([7, None, 8], dtype="UInt64")),
     "qrels DataFrame:2: document id None is not a string (ids are str, bytes or int)"),
    (_qrels_frame(query_id=["q1", "q1", "\ud800"]),
     "qrels DataFrame:3: query id '\\ud800' has a lone surrogate that stands for no byte (only '\\udc80' to "
     "'\\udcff' do, as surrogateescape writes them)"),
    (_qrels_frame(doc_id=["d1", "d2", "d1"], query_id="q1"),
     "qrels DataFrame:3: document 'd1' judged twice for query 'q1' (first at row 1)"),
    (_qrels_frame().iloc[:0], "qrels DataFrame: no judgments in the qrels"),
    (pd.DataFrame(), "qrels DataFrame: no judgments in the qrels"),
    ([], "qrels list: no judgments in the qrels"),
    ([("q1", "d1", 1), ("q1", "d2")], f"qrels list:2: row ('q1', 'd2') has 2 fields: expected {QRELS_SHAPES}"),
    ([("q1", "0", "d1", 1)], f"qrels list:1: row ('q1', '0', 'd1', 1) has 4 fields: expected {QRELS_SHAPES}"),
    ([["q1", "d1", 1]], f"qrels list:1: row ['q1', 'd1', 1] is a list, not a tuple: expected {QRELS_SHAPES}"),
    ((r for r in [("q1", "d1", 1), ScoredDoc("q1", "d2", 1.0)]), "qrels generator:2: row ScoredDoc(query_id='q1', "
     f"doc_id='d2',... is a ScoredDoc, a run row: expected {QRELS_SHAPES}"),
    ([Qrel("q1", "d1", 1.5)], "qrels list:1: grade 1.5 of document 'd1' of query 'q1' is not an integer "
     "(fractional_grades=True accepts it)"),
    ([("q1", "d1", 2.0)], "qrels list:1: grade 2.0 of document 'd1' of query 'q1' is not an integer "
     "(fractional_grades=True accepts it)"),  # in tuples, as in dicts and files, 2.0 is fractional
    ([("q1", "d1", 1), ("q1", "d1", 2)], "qrels list:2: document 'd1' judged twice for query 'q1' (first at row 1)"),
    # the earliest row's fault, whatever its column
    ([("q1", "d1", "x"), ("q1", "d 2", 1)], "qrels list:1: grade 'x' of document 'd1' of query 'q1' is not a number "
     "(strings are not read as numbers)"),
    ([("q1", "d1", 1), ("q1", "d2", None), (None, "d3", 1)],
     "qrels list:2: grade None of document 'd2' of query 'q1' is not a number"),
])
def test_bad_qrels(qrels, expected):
    refused(lambda: Evaluator(qrels), expected)


@pytest.mark.parametrize("run, expected", [
    (_run_frame().drop(columns="docno"), f"run DataFrame: has columns 'qid', 'score': {RUN_EXPECTED}"),
    (_run_frame().rename(columns={"score": "Score"}), f"run DataFrame: has columns 'qid', 'docno', 'Score': "
     f"{RUN_EXPECTED}"),
    (_run_frame(score=[1.0, 2.0, math.nan, 1.0]),
     "run DataFrame:3: score nan of document 'd3' of query 'q2' is not a finite number"),
    (_run_frame(score=[1.0, 2.0, 3.0, -math.inf]),
     "run DataFrame:4: score -inf of document 'd4' of query 'q2' is not a finite number"),
    (_run_frame(score=["1.5", "2", "1", "0"]), "run DataFrame:1: score '1.5' of document 'd1' of query 'q1' is not a "
     "number (strings are not read as numbers)"),
    (_run_frame(score=[1, 2, 3, 2**60 + 1]), "run DataFrame:4: score 1152921504606846977 of document 'd4' of query "
     "'q2' is not exactly a double (pass a float to have it rounded)"),
    (_run_frame(score=[True, False, True, False]),
     "run DataFrame:1: score True of document 'd1' of query 'q1' is not a number"),
    (_run_frame(score=pd.to_datetime(["2024-01-01"] * 4)), "run DataFrame:1: score 2024-01-01T00:00:00.000000 of "
     "document 'd1' of query 'q1' is a datetime64[us], not a number"),
    (_run_frame(docno=["d1", "d1", "d3", "d4"]),
     "run DataFrame:2: document 'd1' retrieved twice for query 'q1' (first at row 1)"),
    (_run_frame().iloc[:0], "run DataFrame: no results in the run"),
    ([("q1", "d1", 1.0), ("q1", "d2")], f"run list:2: row ('q1', 'd2') has 2 fields: expected {RUN_SHAPES}"),
    ([("q1", "Q0", "d1", 1, 1.0, "tag")], "run list:1: row ('q1', 'Q0', 'd1', 1, 1.0, 'tag') has 6 fields: "
     f"expected {RUN_SHAPES}"),
    ([("q1", "d1", "high")], "run list:1: score 'high' of document 'd1' of query 'q1' is not a number (strings are "
     "not read as numbers)"),
    ([("q1", "d1", 1.0), ("q1", "d2", math.nan)],
     "run list:2: score nan of document 'd2' of query 'q1' is not a finite number"),
    ([Qrel("q1", "d1", 1)], f"run list:1: row Qrel(query_id='q1', doc_id='d1', rele... is a Qrel, a qrels row: "
     f"expected {RUN_SHAPES}"),
    ((r for r in [("q1", "d1", 1.0), "q1 Q0 d2 1 2.0 tag"]), "run generator:2: row 'q1 Q0 d2 1 2.0 tag' is a str, "
     f"not a tuple: expected {RUN_SHAPES}"),
    ([], "run list: no results in the run"),
    ([("q1", "", 1.0)], "run list:1: document id '' is empty"),
    ([("q1", "d1", 1.0), ("q1", "d2", 2.0), ("q1", "d1", 0.5)],
     "run list:3: document 'd1' retrieved twice for query 'q1' (first at row 1)"),
])
def test_bad_runs(run, expected):
    refused(lambda: Evaluator(QRELS).evaluate(run), expected)


SAME_REFUSALS = [  # (qrels or run, its columns, the message of a pandas frame and a polars frame alike)
    ("qrels", {"query_id": ["q1", "q1"], "doc_id": ["d1", "d 2"], "relevance": [2, 0]},
     "qrels DataFrame:2: document id 'd 2' contains whitespace or a NUL byte"),
    ("qrels", {"query_id": ["q1", "q\x0b"], "doc_id": ["d1", "d2"], "relevance": [2, 0]},
     "qrels DataFrame:2: query id 'q\\x0b' contains whitespace or a NUL byte"),
    ("run", {"qid": ["q1", "q1"], "docno": ["d1", "d\x00"], "score": [1.0, 2.0]},
     "run DataFrame:2: document id 'd\\x00' contains whitespace or a NUL byte"),
    ("run", {"qid": ["q1", ""], "docno": ["d1", "d2"], "score": [1.0, 2.0]}, "run DataFrame:2: query id '' is empty"),
    ("run", {"qid": ["q1", "q1"], "docno": ["d1", "\u00e9" * 513], "score": [1.0, 2.0]},
     f"run DataFrame:2: document id '{chr(233) * 36}... is 1026 bytes: ids are at most 1024 bytes, as in files"),
    ("run", {"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, math.nan]},
     "run DataFrame:2: score nan of document 'd2' of query 'q1' is not a finite number"),
    ("run", {"qid": [5, 5], "docno": [-7, 8], "score": [math.inf, 1.0]},
     "run DataFrame:1: score inf of document '-7' of query '5' is not a finite number"),
    ("run", {"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": ["1.5", "2"]},
     "run DataFrame:1: score '1.5' of document 'd1' of query 'q1' is not a number (strings are not read as numbers)"),
    ("run", {"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [True, False]},
     "run DataFrame:1: score True of document 'd1' of query 'q1' is not a number"),
    ("run", {"qid": ["q1", "q1", "q1"], "docno": ["d1", "d2", "d1"], "score": [1.0, 2.0, 3.0]},
     "run DataFrame:3: document 'd1' retrieved twice for query 'q1' (first at row 1)"),
    ("qrels", {"qid": [1, 1, 1], "docno": [4, 5, 4], "label": [1, 0, 2]},
     "qrels DataFrame:3: document '4' judged twice for query '1' (first at row 1)"),
    ("qrels", {"qid": [2**64 - 1] * 2, "docno": ["d1", "d2"], "label": [2.0, 0.5]},
     "qrels DataFrame:2: grade 0.5 of document 'd2' of query '18446744073709551615' is not an integer "
     "(fractional_grades=True accepts it)"),
    ("qrels", {"qid": [-3, -3], "docno": [1, 2], "label": [2, 2**53 + 1]},
     "qrels DataFrame:2: grade 9007199254740993 of document '2' of query '-3' is out of range (integer grades are "
     "at most 2**53 = 9007199254740992 in magnitude, as in qrels files)"),
    ("qrels", {"qid": ["q1", "q1"], "docno": ["d1", "d1"], "label": [1, 2]},
     "qrels DataFrame:2: document 'd1' judged twice for query 'q1' (first at row 1)"),
    ("qrels", {"query_id": ["q1"], "doc_id": ["d1"]}, f"qrels DataFrame: has columns 'query_id', 'doc_id': "
     f"{QRELS_EXPECTED}"),
    ("qrels", {"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1], "qid": ["q"], "docno": ["d"], "label": [1]},
     f"qrels DataFrame: has both {QRELS_EXPECTED[9:]}: keep one set of columns"),
    ("run", {"qid": [], "docno": [], "score": []}, "run DataFrame: no results in the run"),
    ("run", {}, "run DataFrame: no results in the run"),
]


@pytest.mark.parametrize("what, data, expected", SAME_REFUSALS)
@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_pandas_and_polars_frames_are_refused_alike(library, what, data, expected):
    frame = pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)
    refused(lambda: Evaluator(frame) if what == "qrels" else Evaluator(QRELS).evaluate(frame), expected)


@pytest.mark.parametrize("qrels, expected", [
    (pl.DataFrame({"qid": ["q1", None], "docno": ["d1", "d2"], "label": [2, 0]}),
     "qrels DataFrame:2: query id None is not a string (ids are str, bytes or int)"),
    (pl.DataFrame({"qid": ["q1", "q1"], "docno": pl.Series([7, None], dtype=pl.Int64), "label": [2, 0]}),
     "qrels DataFrame:2: document id None is not a string (ids are str, bytes or int)"),
    (pl.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "label": [None, 0]}),
     "qrels DataFrame:1: grade None of document 'd1' of query 'q1' is not a number"),
    (pl.DataFrame({"qid": [1.0, 1.0], "docno": ["d1", "d2"], "label": [2, 0]}),
     "qrels DataFrame:1: query id 1.0 is not a string (ids are str, bytes or int)"),
    (pl.DataFrame({"qid": [["q1"], ["q1"]], "docno": ["d1", "d2"], "label": [2, 0]}),
     "qrels DataFrame:1: query id ['q1'] is not a string (ids are str, bytes or int)"),
    (pl.DataFrame({"qid": ["q1"], "docno": ["d1"], "label": [2]}).lazy(),
     "qrels LazyFrame: a polars LazyFrame is a query, not yet its rows: pass frame.collect()"),
    (pl.DataFrame(), "qrels DataFrame: no judgments in the qrels"),
    (pl.Series(["q1 0 d1 1"]), "qrels: a Series is not a source: expected a path, '-', an open file, a "
     "{qid: {docno: grade}} dict, a DataFrame or (qid, docno, grade) tuples"),
])
def test_bad_polars_qrels(qrels, expected):
    refused(lambda: Evaluator(qrels), expected)


@pytest.mark.parametrize("run, expected", [
    (pl.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, None]}),
     "run DataFrame:2: score None of document 'd2' of query 'q1' is not a number"),
    (pl.DataFrame({"qid": ["q1", "q1"], "docno": [None, "d2"], "score": [1.0, 2.0]}),
     "run DataFrame:1: document id None is not a string (ids are str, bytes or int)"),
    (pl.DataFrame({"qid": ["q1"], "docno": ["d1"], "score": pl.Series(["2024-01-01"]).str.to_date()}),
     "run DataFrame:1: score datetime.date(2024, 1, 1) of document 'd1' of query 'q1' is not a number"),
    (pl.DataFrame({"qid": ["q1"], "docno": ["d1"], "score": [1.0]}).lazy(),
     "run LazyFrame: a polars LazyFrame is a query, not yet its rows: pass frame.collect()"),
])
def test_bad_polars_runs(run, expected):
    refused(lambda: Evaluator(QRELS).evaluate(run), expected)


def test_a_polars_frame_has_no_rank_column():
    frame = pl.DataFrame(dict(zip(("qid", "docno", "score"), columns(RUN))))
    refused(lambda: Evaluator(QRELS, ties="rank").evaluate(frame),
            "run: only a run file has a rank column: ties='rank' needs one")


def test_rows_are_numbered_as_the_lines_of_the_same_file(tmp_path):
    """A duplicate is reported where a file's is: at the same row as the line, in the ranking."""
    qrels = [("1", "a", 1), ("1", "b", 0), ("1", "a", 2)]
    run = [("1", "a", 2.0), ("1", "b", 1.0), ("1", "a", 0.5)]
    bad_qrels, _ = write_files(tmp_path, qrels, run)
    from_file = refused(lambda: Evaluator(bad_qrels), f"{bad_qrels}:3: document 'a' judged twice for query '1' "
                        "(first at line 1)")
    frame = pd.DataFrame(dict(zip(("qid", "docno", "label"), columns(qrels))))
    from_frame = refused(lambda: Evaluator(frame), "qrels DataFrame:3: document 'a' judged twice for query '1' "
                         "(first at row 1)")
    assert from_frame.split(":", 1)[1] == from_file.split(":", 1)[1].replace("line", "row")
    good_qrels, bad_run = write_files(tmp_path, qrels[:2], run)
    refused(lambda: Evaluator(good_qrels).evaluate(bad_run), f"{bad_run}:3: document 'a' retrieved twice for "
            "query '1' (first at line 1)")
    refused(lambda: Evaluator(good_qrels).evaluate(run), "run list:3: document 'a' retrieved twice for query '1' "
            "(first at row 1)")
    # as in a file, a document twice beyond -M, or in a query the qrels lack, is not looked at
    assert as_trec(good_qrels, run, ["num_ret"], "10", max_docs=2) == as_trec(good_qrels, bad_run, ["num_ret"], "10",
                                                                              max_docs=2)
    other = [("2", "x", 1.0), ("2", "x", 2.0), ("1", "a", 1.0)]
    _, other_run = write_files(tmp_path / "..", qrels[:2], other)
    assert as_trec(good_qrels, other, ["num_ret"], "10") == as_trec(good_qrels, other_run, ["num_ret"], "10")


# ---------------------------------------------------------------- Arrow string columns, read in place


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
                        ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64), ("children", ctypes.c_void_p),
                        ("dictionary", ctypes.c_void_p), ("release", ctypes.c_void_p),
                        ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    _fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64), ("buffers", ctypes.c_void_p),
                ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p), ("release", ctypes.c_void_p),
                ("private_data", ctypes.c_void_p)]


RELEASE = {name: ctypes.CFUNCTYPE(None, ctypes.c_void_p) for name in ("schema", "array", "stream")}
GET_SCHEMA = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ArrowSchema))
GET_NEXT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ArrowArray))
LAST_ERROR = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)


class ArrowStream(ctypes.Structure):
    _fields_ = [("get_schema", GET_SCHEMA), ("get_next", GET_NEXT), ("get_last_error", LAST_ERROR),
                ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p)]


class StringStream:
    """An Arrow C stream of utf8 ("u") or large utf8 ("U") chunks, made here with ctypes (an
    independent producer, written from the Arrow C data interface's spec), as a capsule; each
    chunk is (strings, offset): its rows are strings[offset:].  Counts the releases it sees."""

    def __init__(self, chunks: list[tuple[list[bytes], int]], fmt: bytes = b"u") -> None:
        width = ctypes.c_int32 if fmt == b"u" else ctypes.c_int64
        self.fmt, self.released, self.keep = fmt, [], []
        self.arrays = []
        for strings, offset in chunks:
            ends = [0]
            for s in strings:
                ends.append(ends[-1] + len(s))
            offsets = (width * len(ends))(*ends)
            data = ctypes.create_string_buffer(b"".join(strings) or b"\0")
            buffers = (ctypes.c_void_p * 3)(None, ctypes.addressof(offsets), ctypes.addressof(data))
            self.keep += [offsets, data, buffers]
            self.arrays.append((len(strings) - offset, offset, buffers))
        self.callbacks = (GET_SCHEMA(self.get_schema), GET_NEXT(self.get_next), LAST_ERROR(lambda s: None),
                          RELEASE["stream"](lambda s: self.release("stream", s, ArrowStream)),
                          RELEASE["schema"](lambda s: self.release("schema", s, ArrowSchema)),
                          RELEASE["array"](lambda s: self.release("array", s, ArrowArray)))
        self.stream = ArrowStream(*self.callbacks[:3], ctypes.cast(self.callbacks[3], ctypes.c_void_p), None)
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        self.capsule = new(ctypes.addressof(self.stream), b"arrow_array_stream", None)

    def release(self, what: str, address: int, kind: type) -> None:
        self.released.append(what)
        kind.from_address(address).release = None

    def get_schema(self, stream: int, out: Any) -> int:
        out.contents.format = self.fmt
        out.contents.release = ctypes.cast(self.callbacks[4], ctypes.c_void_p)
        return 0

    def get_next(self, stream: int, out: Any) -> int:
        if not self.arrays:
            out.contents.release = None  # the stream's end
            return 0
        length, offset, buffers = self.arrays.pop(0)
        out.contents.length, out.contents.null_count, out.contents.offset = length, 0, offset
        out.contents.n_buffers, out.contents.n_children = 3, 0
        out.contents.buffers = ctypes.addressof(buffers)
        out.contents.release = ctypes.cast(self.callbacks[5], ctypes.c_void_p)
        return 0


def _core_run(qids, docnos, scores) -> object:
    from trecgain import _core
    from trecgain.rows import _id_rule

    return _core.Run.from_rows("run DataFrame", qids, docnos, np.asarray(scores, dtype=np.float64),
                               _id_rule("run DataFrame"), None)


@pytest.mark.parametrize("fmt", [b"u", b"U"])
def test_utf8_and_large_utf8_streams_in_chunks(fmt, tmp_path):
    """Utf8 and large utf8 Arrow columns, in chunks that start at an offset, read as the same ids
    from a file (via the core's from_rows; polars exports string views, read by the polars tests)."""
    qids = StringStream([([b"skip", b"q1", b"q1"], 1), ([b"q\xc3\xa9", b"q\xc3\xa9"], 0)], fmt)
    docnos = StringStream([([b"d1", b"d" * 40], 0), ([b"x", b"x", b"d3", b"d\xe6\x97\xa5"], 2)], fmt)
    run = _core_run(qids.capsule, docnos.capsule, [1.0, 2.0, 3.0, 4.0])
    assert sorted(qids.released) == sorted(docnos.released) == ["array", "array", "schema", "stream"]
    got = Evaluator(QRELS).evaluate(run).to_trec(per_query=True)
    rows = [("q1", "d1", 1.0), ("q1", "d" * 40, 2.0), ("q\u00e9", "d3", 3.0), ("q\u00e9", "d\u65e5", 4.0)]
    assert got == Evaluator(QRELS).evaluate(write_files(tmp_path, QRELS, rows)[1]).to_trec(per_query=True)


def test_a_bad_id_of_an_arrow_stream_names_its_row():
    """An empty id and one with a blank, in the second chunk: trecgain.check's message, the row's number."""
    docnos = StringStream([([b"d1"], 0), ([b"d2", b""], 0)])
    refused(lambda: _core_run(StringStream([([b"q1", b"q1", b"q1"], 0)]).capsule, docnos.capsule, [1.0, 2.0, 3.0]),
            "run DataFrame:3: document id '' is empty")
    blank = StringStream([([b"q1", b"q 1"], 0)])
    refused(lambda: _core_run(blank.capsule, StringStream([([b"d1", b"d2"], 0)]).capsule, [1.0, 2.0]),
            "run DataFrame:2: query id 'q 1' contains whitespace or a NUL byte")


def test_an_arrow_stream_is_consumed_once_and_only_of_strings():
    stream = StringStream([([b"q1"], 0)])
    docnos = pl.Series(["d1"])
    _core_run(stream.capsule, docnos.__arrow_c_stream__(), [1.0])
    with pytest.raises(ValueError, match="already consumed"):
        _core_run(stream.capsule, docnos.__arrow_c_stream__(), [1.0])
    with pytest.raises(TypeError, match="not format 'l'"):
        _core_run(pl.Series([1]).__arrow_c_stream__(), docnos.__arrow_c_stream__(), [1.0])


def test_polars_string_views_in_chunks_and_categoricals(tmp_path):
    """Polars String columns (string views: ids of at most 12 bytes inline, longer ones in
    buffers) in several chunks, and Categorical and Enum columns, as the same rows' files."""
    long = "document-" + "\u00e9" * 20
    rows = [("q1", "d1", 1.0), ("q1", long, 2.0), ("q1", long + "2", 0.5), ("q\u00e9", "d3", 3.0),
            ("q\u00e9", "d" * 12, 2.5), ("q\u00e9", "d" * 13, 1.5)]
    expected = Evaluator(QRELS).evaluate(write_files(tmp_path, QRELS, rows)[1]).to_trec(per_query=True)
    q, d, s = columns(rows)
    parts = [pl.DataFrame({"qid": q[i:i + 2], "docno": d[i:i + 2], "score": s[i:i + 2]}) for i in (0, 2, 4)]
    chunked = pl.concat(parts, rechunk=False)
    assert chunked["docno"].n_chunks() == 3
    for frame in (chunked, chunked.with_columns(pl.col("qid").cast(pl.Categorical)),
                  chunked.with_columns(pl.col("docno").cast(pl.Enum(sorted(set(d)))))):
        assert Evaluator(QRELS).evaluate(frame).to_trec(per_query=True) == expected, frame.dtypes


@pytest.mark.parametrize("column, value, expected", [
    ("docno", "", "run DataFrame:3: document id '' is empty"),
    ("qid", "q\t1", "run DataFrame:3: query id 'q\\t1' contains whitespace or a NUL byte"),
    ("docno", None, "run DataFrame:3: document id None is not a string (ids are str, bytes or int)"),
])
def test_bad_ids_of_polars_string_views_name_the_row(column, value, expected):
    data = {"qid": ["q1"] * 4, "docno": ["d1", "d2", "d3", "d4"], "score": [1.0, 2.0, 3.0, 4.0]}
    data[column][2] = value
    refused(lambda: Evaluator(QRELS).evaluate(pl.DataFrame(data)), expected)
    categorical = pl.DataFrame(data).with_columns(pl.col(column).cast(pl.Categorical))
    refused(lambda: Evaluator(QRELS).evaluate(categorical), expected)


def test_pandas_object_columns_are_read_in_place(tmp_path):
    """Object (str), string and categorical id columns, contiguous or a view with a step: the
    core reads numpy's array of objects (no list of the column is made) as the same files."""
    from trecgain.rows import _frame_columns

    rows = [("q1", "d1", 1.0), ("skip", "x", 9.0), ("q1", "d2", 2.0), ("skip", "y", 9.0), ("q\u00e9", "d3", 3.0),
            ("skip", "z", 9.0)]
    expected = Evaluator(QRELS).evaluate(write_files(tmp_path, QRELS, rows[::2])[1]).to_trec(per_query=True)
    q, d, s = columns(rows)
    whole = pd.DataFrame({"qid": np.array(q, dtype=object), "docno": np.array(d, dtype=object), "score": s})
    for frame in (whole.iloc[::2], whole.iloc[::2].astype({"qid": "category", "docno": "category"}),
                  whole.iloc[::2].astype({"qid": "string", "docno": "string"}), whole.iloc[::2].copy()):
        assert Evaluator(QRELS).evaluate(frame).to_trec(per_query=True) == expected, frame.dtypes
        ids = _frame_columns(frame, "run", "run DataFrame")[:2]
        assert all(isinstance(i, np.ndarray) and i.dtype == object and i.flags.c_contiguous for i in ids)


@pytest.mark.parametrize("missing", [None, math.nan, pd.NA])
def test_nulls_of_pandas_object_columns_name_the_row(missing):
    frame = pd.DataFrame({"qid": np.array(["q1", "q1", "q1"], dtype=object),
                          "docno": np.array(["d1", missing, "d3"], dtype=object), "score": [1.0, 2.0, 3.0]})
    held = frame["docno"].to_numpy()[1]  # pandas may store the missing value as another (NaN for str)
    refused(lambda: Evaluator(QRELS).evaluate(frame),
            f"run DataFrame:2: document id {held!r} is not a string (ids are str, bytes or int)")
