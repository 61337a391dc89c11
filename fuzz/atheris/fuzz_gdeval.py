"""Fuzz gdeval's reader and scorer: trecgain.gdeval.evaluate(qrels, run, k, max_grade) on
fuzzed file contents, passed as io.BytesIO (gdeval reads open binary files; gzip is
detected by content, so compressed inputs are covered too).

Input: byte 0 picks k (1 + b0 % 32) and max_grade (b0 >> 5: 4, 0, 1, 2, 3, 5, 10, 1023);
the rest is the qrels, then the separator line `=====\n`, then the run (no separator: the
whole rest is both qrels and run).  Checked: evaluate(), to_bytes(), to_text(), mean(),
gdeval() and the same through an io.TextIOWrapper (text streams).  Only TrecgainError may
escape.

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_gdeval.py -max_total_time=600 -timeout=10 \
        -rss_limit_mb=2048 -max_len=8192 -dict=fuzz/atheris/gdeval.dict -artifact_prefix=fuzz/atheris/corpus/_artifacts/ \
        fuzz/atheris/corpus/gdeval   (seeds: fuzz/atheris/seeds.py)
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_gdeval.py FILE
"""

import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    from trecgain import gdeval

NAME = "gdeval"
MAX_GRADES = (4, 0, 1, 2, 3, 5, 10, 1023)
SEPARATOR = b"=====\n"


def split(data: bytes) -> tuple[int, int, bytes, bytes]:
    if not data:
        return 10, 4, b"", b""
    k, max_grade, rest = 1 + data[0] % 32, MAX_GRADES[data[0] >> 5], data[1:]
    qrels, sep, run = rest.partition(SEPARATOR)
    return k, max_grade, qrels, run if sep else qrels


def _evaluate(qrels: bytes, run: bytes, k: int, max_grade: int) -> None:
    result = gdeval.evaluate(io.BytesIO(qrels), io.BytesIO(run), k, max_grade)
    result.to_bytes()
    result.to_text()
    result.mean()


def _text_streams(qrels: bytes, run: bytes, k: int, max_grade: int) -> None:
    streams = [io.TextIOWrapper(io.BytesIO(b), encoding="utf-8", errors="surrogateescape") for b in (qrels, run)]
    gdeval.gdeval(streams[0], streams[1], k, max_grade)


def _one(data: bytes) -> None:
    k, max_grade, qrels, run = split(data)
    _common.checked(NAME, data, _evaluate, qrels, run, k, max_grade)
    _common.checked(NAME, data, _text_streams, qrels, run, k, max_grade)



def TestOneInput(data: bytes) -> None:
    _one(data)
    for variant in _common.widened(data, 1):
        _one(variant)


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
