"""Fuzz the Rust conversion of in-memory inputs: pytrec_eval-style dicts walked by the core
(src/dicts.rs) and rows read by the core (src/rows.rs) from pandas and polars DataFrames and
lists of tuples, with every shape a key, a value and a container can take.

Input: a small program of bytes (atheris' FuzzedDataProvider) making up to 4 queries of up to
5 entries; each id and value is drawn from many Python shapes (str with whitespace, NUL or
surrogates, str subclasses, numpy's str_, bytes, ints small, negative, past 2^63 and past
int()'s 4300 digits, numpy ints, bools, None, floats nan / inf / -0.0 / subnormal, numpy
floats, Decimal, Fraction, complex, text), and each container from dict, OrderedDict, a dict
subclass, a read-only mapping, a Mapping that is not a dict, a list, None.

Properties:
- Only TrecgainError escapes, its message one line.
- Dicts: the result is what a reference reader written here in Python gives, by
  trecgain.check's rules in the order the README and trecgain/read.py state (every query's id
  and documents first, then two ids naming one query, then each entry: docno, then value):
  the same error message, or the same evaluation as the data written as TREC files (scores
  as repr(float)), in both compat modes.
- Frames and tuples (the dicts' entries as rows, as they come and as str ids; polars str
  ids also in one chunk a row and categorical, pandas str ids also categorical): only
  TrecgainError escapes, one line naming its source; the polars str forms (read through
  Arrow, src/arrow.rs) have one outcome.

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_dicts.py -max_total_time=600 -timeout=20 \\
        -rss_limit_mb=2048 -max_len=1024 -artifact_prefix=fuzz/atheris/corpus/_artifacts/ \\
        fuzz/atheris/corpus/dicts
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_dicts.py FILE
"""

import decimal
import fractions
import math
import os
import sys
import tempfile
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    import trecgain
    from trecgain import check
    from trecgain.check import show
    from trecgain.errors import TrecgainError

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import polars as pl  # noqa: E402

NAME = "dicts"
MEASURES = ["map", "ndcg_cut.3", "recip_rank", "num_ret", "num_rel_ret"]
TMP = tempfile.mkdtemp(prefix="trecgain-fuzz-dicts-")


class Text(str):
    """A str subclass."""


class Number(float):
    """A float subclass."""


class Table(Mapping):
    """A Mapping that is not a dict."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


class Sub(dict):
    """A dict subclass."""


def _id(fdp):
    kind = fdp.ConsumeIntInRange(0, 15)
    if kind <= 5:
        return fdp.PickValueInList(["1", "2", "d1", "d2", "q", "10", "01", "\u00e9"])
    if kind == 6:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 5))  # whitespace, NUL, surrogates
    if kind == 7:
        return fdp.PickValueInList([Text("d1"), np.str_("d2"), "\udcff", "d\udc80", "a b", "", "x" * 1025])
    if kind == 8:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 3))
    if kind == 9:
        return fdp.ConsumeIntInRange(-3, 12)
    if kind == 10:
        return fdp.PickValueInList([2**63, -2**63 - 1, 10**30, 10**1100, 10**5000, np.int64(2), np.uint64(2**64 - 1)])
    if kind == 11:
        return fdp.PickValueInList([True, None, 1.5, 2.0, (1, 2), frozenset()])
    return fdp.PickValueInList(["d1", "d2", "d3", 1, b"d1"])


def _value(fdp):
    kind = fdp.ConsumeIntInRange(0, 15)
    if kind <= 3:
        return fdp.ConsumeIntInRange(-2, 3)
    if kind <= 6:
        return fdp.PickValueInList([0.5, 1.0, 2.0, -0.0, 1e-320, 1e300, 3.25, 1.0 + 2**-40])
    if kind == 7:
        return fdp.ConsumeRegularFloat()
    if kind == 8:
        return fdp.PickValueInList([math.nan, math.inf, -math.inf, Number(1.5), Number("nan")])
    if kind == 9:
        return fdp.PickValueInList([np.float64(1.5), np.float32(2.0), np.float16(0.5), np.int64(3), np.uint64(2**64 - 1),
                                    np.bool_(True), np.float64("nan")])
    if kind == 10:
        return fdp.PickValueInList([2**53, 2**53 + 1, 2**60, -2**63, 10**30, 10**400, 10**5000])
    if kind == 11:
        return fdp.PickValueInList([decimal.Decimal("1.5"), decimal.Decimal("NaN"), decimal.Decimal("sNaN"),
                                    decimal.Decimal("1e400"), fractions.Fraction(1, 3), 1j])
    if kind == 12:
        return fdp.PickValueInList([True, False, None, "2", b"1", [1.0]])
    return fdp.ConsumeIntInRange(0, 2)


def _container(fdp, items, top=False):
    kind = fdp.ConsumeIntInRange(0, 8 if top else 9)
    if kind <= 4:
        return dict(items)
    return [OrderedDict, Sub, lambda i: MappingProxyType(dict(i)), Table, list][kind - 5](items)


def _collection(fdp):
    queries = []
    for _ in range(fdp.ConsumeIntInRange(0, 4)):
        qid = _id(fdp)
        shape = fdp.ConsumeIntInRange(0, 15)
        if shape == 15:
            docs = fdp.PickValueInList([None, "x", 1.5, [1, 2]])
        else:
            entries = [(_id(fdp), _value(fdp)) for _ in range(fdp.ConsumeIntInRange(0, 5))]
            try:
                docs = _container(fdp, entries)
            except TypeError:  # an unhashable key
                continue
        queries.append((qid, docs))
    try:
        return _container(fdp, queries, top=True)
    except TypeError:
        return dict()


# ---------------------------------------------------------------- the reference rules


def _is_mapping(value):
    return isinstance(value, Mapping)


def reference(data, what, fractional=False):
    """(qid bytes, docno bytes, value) of a dict by trecgain.check's rules, and the qids given
    with `{}`; or raises TrecgainError."""
    values = "grade" if what == "qrels" else "score"
    queries = []
    for q, docs in data.items():
        qid = check.key(q, "query id", what)
        if not _is_mapping(docs):
            raise TrecgainError(f"query {show(q)}: its documents must be a dict {{docno: {values}}}, not "
                                f"{show(docs)}", what)
        queries.append((qid, q, docs))
    seen = {}
    for qid, q, _ in queries:
        if qid in seen:
            raise TrecgainError(f"query ids {show(seen[qid])} and {show(q)} name the same query", what)
        seen[qid] = q
    rows, empty = [], []
    for qid, q, docs in queries:
        if not docs:
            empty.append(qid)
        for d, v in docs.items():
            docno = check.key(d, "document id", what)
            where = f"document {show(d)} of query {show(q)}"
            value = check.grade(v, fractional, where, what) if what == "qrels" else check.score(v, where, what)
            rows.append((qid, docno, value))
    if what == "qrels" and not rows:
        raise TrecgainError("no judgments in the qrels", "qrels")
    if what == "run" and not rows and not empty:
        raise TrecgainError("no results in the run", "run")
    return rows, empty


def _files(qrels_rows, run_rows, fractional):
    q, r = os.path.join(TMP, "qrels"), os.path.join(TMP, "run")
    with open(q, "wb") as f:
        for qid, d, g in qrels_rows:
            f.write(qid + b" 0 " + d + b" " + (repr(g) if fractional else str(int(g))).encode() + b"\n")
    with open(r, "wb") as f:
        for i, (qid, d, s) in enumerate(run_rows, 1):
            f.write(qid + b" Q0 " + d + b" " + str(i).encode() + b" " + repr(s).encode() + b" unknown\n")
    return q, r


def _outcome(make, *args, **kwargs):
    """('ok', value) or ('error', message); anything but TrecgainError propagates."""
    try:
        return "ok", make(*args, **kwargs)
    except TrecgainError as err:
        message = str(err)
        if "\n" in message or "\r" in message:
            raise _common.Finding(f"message of several lines: {message!r}") from None
        return "error", message


def _evaluate(qrels, run, compat, fractional):
    return trecgain.Evaluator(qrels, MEASURES, compat=compat,
                              fractional_grades=fractional).evaluate(run).to_trec(per_query=True)


def _check_dicts(qrels, run, fractional):
    expected_q = _outcome(reference, qrels, "qrels", fractional)
    got_q = _outcome(trecgain.Evaluator, qrels, MEASURES, fractional_grades=fractional)
    if expected_q[0] == "error" or got_q[0] == "error":
        if expected_q != got_q and not (got_q[0] == "error" and "judged twice" in got_q[1]):
            raise _common.Finding(f"qrels dict: expected {expected_q[1]!r}, got {got_q[1]!r}")
        return
    expected_r = _outcome(reference, run, "run")
    got_r = _outcome(got_q[1].read_run, run)
    if expected_r[0] == "error" or got_r[0] == "error":
        if expected_r != got_r:
            raise _common.Finding(f"run dict: expected {expected_r[1]!r}, got {got_r[1]!r}")
        return
    run_rows, empty = expected_r[1]
    if empty:
        return  # `{}` queries have no file form
    files = _files(expected_q[1][0], run_rows, fractional)
    for compat in ("10", "9"):
        from_files = _outcome(_evaluate, *files, compat, fractional)
        from_dicts = _outcome(_evaluate, qrels, run, compat, fractional)
        if from_files[0] == "error" and from_dicts[0] == "error":
            continue  # e.g. a docno twice: a file names lines, a dict does not
        if from_files[1] != from_dicts[1]:
            raise _common.Finding(f"dicts evaluate differently from files (compat {compat})")


# ---------------------------------------------------------------- frames and tuples


def _rows(data):
    if not isinstance(data, Mapping):
        return []
    out = []
    for q, docs in data.items():
        if isinstance(docs, Mapping):
            out.extend((q, d, v) for d, v in docs.items())
    return out


def _forms(rows, what):
    value = "relevance" if what == "qrels" else "score"
    columns = ["query_id", "doc_id", value]
    yield "tuples", list(rows)
    yield "pandas", pd.DataFrame(rows, columns=columns) if rows else pd.DataFrame(columns=columns)
    frame = _built(lambda: pl.DataFrame(rows, schema=columns, orient="row"))
    if frame is not None:
        yield "polars", frame
    typed = _built(lambda: [(str(q), str(d), v) for q, d, v in rows])
    for kind, make in (("pandas str", lambda: pd.DataFrame(typed, columns=columns)),
                       ("polars str", lambda: pl.DataFrame(typed, schema=columns, orient="row")),
                       ("polars str chunks", lambda: _chunked(typed, columns)),
                       ("polars str categorical", lambda: pl.DataFrame(typed, schema=columns, orient="row")
                        .with_columns(pl.col(columns[0]).cast(pl.Categorical))),
                       ("pandas str categorical", lambda: pd.DataFrame(typed, columns=columns)
                        .astype({columns[0]: "category", columns[1]: "category"}))):
        frame = _built(make) if typed is not None else None
        if frame is not None:
            yield kind, frame


def _chunked(rows, columns):
    """The rows as a polars frame of one chunk a row (its string columns Arrow arrays in chunks):
    the one frame of them cut into rows, so that every column keeps the one frame's values."""
    frame = pl.DataFrame(rows, schema=columns, orient="row")
    return pl.concat([frame.slice(i, 1) for i in range(len(frame))], rechunk=False)


def _built(make):
    """What `make` builds, or None where pandas or polars refuse the rows (polars may even
    panic: its PanicException is a BaseException): nothing of trecgain's to test."""
    try:
        return make()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:
        return None


def _check_rows(qrels, run, fractional):
    q_rows, r_rows = _rows(qrels), _rows(run)
    polars_str = {}
    runs = dict(_forms(r_rows, "run"))
    for kind, q in _forms(q_rows, "qrels"):  # a form either side may not build: paired by kind
        if kind not in runs:
            continue
        r = runs[kind]
        got = _outcome(_evaluate, q, r, "10", fractional)
        if got[0] == "error" and not got[1].startswith(("qrels ", "run ")):
            raise _common.Finding(f"{kind}: a refusal names no source: {got[1]!r}")
        if kind.startswith("polars str"):
            polars_str[kind] = got
    # one polars frame of str ids, in one chunk, in chunks, its qids categorical: one outcome
    if len(set(map(repr, polars_str.values()))) > 1:
        raise _common.Finding(f"polars str forms differ: {polars_str!r}")


def _one(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    fractional = fdp.ConsumeBool()
    qrels, run = _collection(fdp), _collection(fdp)
    _check_dicts(qrels, run, fractional)
    _check_rows(qrels, run, fractional)


def TestOneInput(data: bytes) -> None:
    _common.checked(NAME, data, _one, data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
