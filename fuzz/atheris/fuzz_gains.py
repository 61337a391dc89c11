"""Fuzz gain strings: trecgain.gains.parse_gain_spec (`-m ndcg.1=2,3=7`, compat 10 and 9)
and parse_global_gains (`--global-gains exp` / `1=1,2=3`).

Input: UTF-8 text (surrogate escapes for undecodable bytes), one gain string.  Checked:
both parsers in both modes, GainSpec.to_core(), and when parsing succeeds an evaluation of
a fixed collection with `--global-gains TEXT` and with `-m ndcg.TEXT -m G.TEXT -m rbp.TEXT`
(the core's gain tables and ideal ranking), also with --exact-ideal.  Only TrecgainError
may escape.

Run (from the project root):
    .venv/bin/python fuzz/atheris/fuzz_gains.py -max_total_time=600 -timeout=10 \
        -rss_limit_mb=2048 -max_len=8192 -dict=fuzz/atheris/gains.dict -artifact_prefix=fuzz/atheris/corpus/_artifacts/ \
        fuzz/atheris/corpus/gains   (seeds: fuzz/atheris/seeds.py)
Replay one input:  TRECGAIN_FUZZ_STRICT=1 .venv/bin/python fuzz/atheris/fuzz_gains.py FILE
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atheris  # noqa: E402

import _common  # noqa: E402

with atheris.instrument_imports(include=["trecgain"]):
    import trecgain.evaluate  # noqa: F401
    from trecgain.evaluate import Evaluator
    from trecgain.gains import parse_gain_spec, parse_global_gains

QRELS, RUN = _common.fixed_collection()
NAME = "gains"


def _spec(fn, s, compat):
    return fn(s, compat).to_core()


def _global(s, compat, exact):
    ev = Evaluator(QRELS, measures=["ndcg", "ndcg_cut.3", "dcg", "Rndcg", "ndcg_rel", "G", "cg_cut.2"],
                   compat=compat, global_gains=s, exact_ideal=exact)
    ev.evaluate(RUN).to_trec(per_query=True)


def _own(s, compat):
    measures = [f"ndcg.{s}", f"G.{s}", f"Rndcg.{s}"] + ([f"rbp.{s}"] if compat == "10" else [])
    Evaluator(QRELS, measures=measures, compat=compat).evaluate(RUN).to_trec(per_query=True)


def _one(data: bytes) -> None:
    s = _common.text(data)
    for compat in ("10", "9"):
        own = _common.checked(NAME, data, _spec, parse_gain_spec, s, compat)
        glob = _common.checked(NAME, data, _spec, parse_global_gains, s, compat)
        if glob is not None:
            _common.checked(NAME, data, _global, s, compat, compat == "9")
        if own is not None and s.isprintable():
            _common.checked(NAME, data, _own, s, compat)



def TestOneInput(data: bytes) -> None:
    _one(data)
    for variant in _common.widened(data):
        _one(variant)


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
