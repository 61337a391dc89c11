"""Fuzz measure arguments: trecgain.measures.parse_requests (trec_eval names, parameter
lists, nicknames, ir_measures names through trecgain.names), in compat 10 and 9.

Input: UTF-8 text (undecodable bytes become surrogate escapes, as in argv), split on the
first two newlines into one to three measure strings.  Each input is checked as:
parse_requests(specs, "10") and (specs, "9"); each request's line names, slots and
to_core(); describe() (`trecgain -h -m NAME`) of each string; and, when parsing succeeds,
an evaluation of a fixed 3-query collection with those measures (Evaluator -> core ->
to_trec with -q).  Only TrecgainError may escape.

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_measures.py -max_total_time=600 -timeout=10 \
        -rss_limit_mb=2048 -max_len=8192 -dict=fuzz/atheris/measures.dict -artifact_prefix=fuzz/atheris/corpus/_artifacts/ \
        fuzz/atheris/corpus/measures   (seeds: fuzz/atheris/seeds.py)
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_measures.py FILE
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    import trecgain.evaluate  # noqa: F401
    from trecgain.evaluate import Evaluator
    from trecgain.measures import describe, parse_requests

QRELS, RUN = _common.fixed_collection()
NAME = "measures"


def _parse(specs, compat):
    requests = parse_requests(specs, compat)
    for r in requests:
        r.slots()
        r.to_core()
    return requests


def _evaluate(specs, compat):
    result = Evaluator(QRELS, measures=specs, compat=compat).evaluate(RUN)
    result.to_trec(per_query=True)
    result.aggregate  # noqa: B018
    return result


def _one(data: bytes) -> None:
    specs = _common.text(data).split("\n", 2)
    for compat in ("10", "9"):
        parsed = _common.checked(NAME, data, _parse, specs, compat)
        if parsed is not None and sum(len(r.lines) for r in parsed) < 5000:
            _common.checked(NAME, data, _evaluate, specs, compat)
    for spec in specs:
        _common.checked(NAME, data, describe, spec)



def TestOneInput(data: bytes) -> None:
    _one(data)
    for variant in _common.widened(data):
        _one(variant)


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
