"""Fuzz the in-memory input formats: qrels and runs given as dicts, as iterables of tuples
(plain, or ir_measures' Qrel / ScoredDoc namedtuples) and as pandas DataFrames (and polars
DataFrames when polars is installed), each read by trecgain's row and frame readers
(trecgain/rows.py, trecgain/read.py, the core's from_rows) and evaluated.

Input: a small program of bytes turned into a table of (qid, docno, value) rows whose cells
take every Python shape the readers meet: str (any text, surrogates included), bytes, int
(small, negative, past 2^63), float (nan, inf, -0.0, huge), bool, None, and a stray extra
column.  Byte 0 picks the container; the same table is read as qrels and as a run.
Property: only TrecgainError escapes, and a table that reads evaluates to the same text as
the same rows given as plain tuples (when the container is not the plain tuples already; a
frame's whole float grades as ints, as the README says a float grade column is read).

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_inputs.py -max_total_time=600 -timeout=10 \
        -rss_limit_mb=2048 -max_len=2048 -artifact_prefix=fuzz/atheris/corpus/_artifacts/ \
        fuzz/atheris/corpus/inputs
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_inputs.py FILE
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    import trecgain
    from trecgain.errors import TrecgainError

import pandas as pd  # noqa: E402

try:
    import polars as pl  # noqa: E402
except ImportError:
    pl = None

NAME = "inputs"
CONTAINERS = ("tuples", "dict", "pandas", "polars", "namedtuples")


def _cell(fdp: "atheris.FuzzedDataProvider") -> object:
    """One cell of any shape the readers meet."""
    kind = fdp.ConsumeIntInRange(0, 11)
    if kind <= 3:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 6))
    if kind == 4:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 4))
    if kind <= 6:
        return fdp.ConsumeIntInRange(-3, 5)
    if kind == 7:
        return fdp.ConsumeInt(9)  # past 2^63 either way
    if kind == 8:
        return fdp.PickValueInList([math.nan, math.inf, -math.inf, -0.0, 1e308, 0.5, 2.0, 1e-320])
    if kind == 9:
        return fdp.ConsumeBool()
    if kind == 10:
        return None
    return fdp.ConsumeRegularFloat()


def _table(fdp: "atheris.FuzzedDataProvider") -> list[tuple]:
    rows = []
    for _ in range(fdp.ConsumeIntInRange(0, 8)):
        width = fdp.PickValueInList([3, 3, 3, 3, 2, 4])
        rows.append(tuple(_cell(fdp) for _ in range(width)))
    return rows


def _container(kind: str, rows: list[tuple], what: str) -> object:
    if kind == "tuples":
        return rows
    if kind == "namedtuples":
        import ir_measures

        make = ir_measures.Qrel if what == "qrels" else ir_measures.ScoredDoc
        return [make(*r) for r in rows if len(r) == 3]
    if kind == "dict":
        out: dict = {}
        for r in rows:
            if len(r) == 3:
                out.setdefault(r[0], {})[r[1]] = r[2]
            else:
                out[r[0]] = r[1:] if r else None  # a malformed inner value
        return out
    names = ["query_id", "doc_id", "relevance" if what == "qrels" else "score"]
    rows3 = [r for r in rows if len(r) == 3]
    if kind == "pandas":
        return pd.DataFrame(rows3, columns=names)
    return pl.DataFrame(rows3, schema=names, orient="row") if pl is not None else rows3


def _evaluate(qrels: object, run: object) -> str:
    return trecgain.Evaluator(qrels, measures=["official", "ndcg_cut.3"]).evaluate(run).to_trec(per_query=True)


def _one(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    kind = CONTAINERS[fdp.ConsumeIntInRange(0, len(CONTAINERS) - 1)]
    rows = _table(fdp)
    try:
        qrels, run = _container(kind, rows, "qrels"), _container(kind, rows, "run")
    except Exception:  # pandas or polars refused to build the frame: nothing of ours to test
        return
    text = _common.checked(NAME, data, _evaluate, qrels, run)
    if text is None or kind in ("tuples", "dict"):
        return
    rows3 = [r for r in rows if len(r) == 3]
    qrels_rows = run_rows = rows3
    if kind == "polars":
        # polars converts as it builds (a bool among ints becomes 1): the rows it holds
        qrels_rows, run_rows = qrels.rows(), run.rows()
    # a frame's float grade column holding a whole number counts as that number (README)
    whole = [(q, d, int(g) if type(g) is float and g.is_integer() else g) for q, d, g in qrels_rows]
    try:
        plain = _evaluate(whole, run_rows)
    except TrecgainError:
        plain = None
    if plain != text:
        _common.record(NAME, data, _common.Finding(f"{kind} differs from the same rows as tuples"))


def TestOneInput(data: bytes) -> None:
    _one(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
