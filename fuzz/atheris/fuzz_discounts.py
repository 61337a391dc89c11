"""Fuzz discount strings: trecgain.discounts.parse_discount (`--discount log:2`, `jk:10`).

Input: UTF-8 text (surrogate escapes for undecodable bytes), one discount string.  Checked:
parse_discount, Discount.text / to_core(), and when parsing succeeds an evaluation of a
fixed collection with that discount (dcg, ideal_dcg, ndcg, ndcg_cut, ndcg_rel, Rndcg,
ndcg_p: the core computes the divisors).  Only TrecgainError may escape.

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_discounts.py -max_total_time=600 -timeout=10 \
        -rss_limit_mb=2048 -max_len=8192 -dict=fuzz/atheris/discounts.dict -artifact_prefix=fuzz/atheris/corpus/_artifacts/ \
        fuzz/atheris/corpus/discounts   (seeds: fuzz/atheris/seeds.py)
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_discounts.py FILE
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    import trecgain.evaluate  # noqa: F401
    from trecgain.discounts import parse_discount
    from trecgain.evaluate import Evaluator

QRELS, RUN = _common.fixed_collection()
NAME = "discounts"
MEASURES = ["dcg", "ideal_dcg", "ndcg", "ndcg_cut.1,3", "ndcg_rel", "Rndcg", "ndcg_p", "nDCG@2"]


def _parse(s):
    d = parse_discount(s)
    return d.text, d.kind, d.base


def _evaluate(s):
    Evaluator(QRELS, measures=MEASURES, discount=s).evaluate(RUN).to_trec(per_query=True)


def _one(data: bytes) -> None:
    s = _common.text(data)
    if _common.checked(NAME, data, _parse, s) is not None:
        _common.checked(NAME, data, _evaluate, s)



def TestOneInput(data: bytes) -> None:
    _one(data)
    for variant in _common.widened(data):
        _one(variant)


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
