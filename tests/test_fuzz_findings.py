"""Findings of the atheris fuzzers (fuzz/atheris/), kept as regression tests: each failed
(as a strict xfail) until its fix landed. `finding(reason)` now only names what each found;
a new finding is added with `pytest.mark.xfail(strict=True)` until it is fixed.

The property the fuzzers check: the parsers and the library raise only TrecgainError on bad
input; the command line's main() returns a status and never raises, and when the status is
not 0 its stdout is empty and its stderr exactly one line.
"""

from __future__ import annotations

import io
import sys

import pytest

from conftest import ROOT
from trecgain import TrecgainError
from trecgain.cli import main
from trecgain.evaluate import Evaluator
from trecgain.gains import parse_global_gains
from trecgain.measures import parse_requests

Q = str(ROOT / "testdata" / "example" / "qrels.txt")
R = str(ROOT / "testdata" / "example" / "run.txt")
QRELS = {"1": {"d1": 2, "d2": 1, "d3": 0}, "2": {"e1": 1}}
RUN = {"1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}, "2": {"e1": 1.0}}
BIG = "1" * 400  # an int past float's range: float() raises OverflowError
HUGE = "1" * 4301  # past int()'s default limit of 4300 digits: int() raises ValueError


def finding(reason: str):
    """The finding a test pins (fixed: no marker left)."""
    return lambda test: test


def only_trecgain_error(call, *args, **kwargs) -> None:
    """call() returns, or raises TrecgainError; any other exception fails the test."""
    try:
        call(*args, **kwargs)
    except TrecgainError:
        pass
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # pyo3's PanicException is a BaseException
        pytest.fail(f"{type(err).__module__}.{type(err).__name__}: {str(err)[:200]}")


def clean_cli(args: list[str]) -> None:
    """main(args) returns an int and never raises; a failure is one stderr line, no stdout."""
    streams = [io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors, write_through=True)
               for data, errors in ((b"", "surrogateescape"), (b"", "surrogateescape"), (b"", "backslashreplace"))]
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        status = main(list(args))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:
        sys.stdin, sys.stdout, sys.stderr = saved
        pytest.fail(f"main() raised {type(err).__module__}.{type(err).__name__}: {str(err)[:200]}")
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    out, err = (s.buffer.getvalue() for s in streams[1:])
    assert isinstance(status, int)
    if status != 0:
        assert out == b""
        assert err.count(b"\n") == 1 and err.endswith(b"\n"), err


# ---------------------------------------------------------------- measure strings


@finding("a cutoff of more than 4300 digits: int() raises ValueError (measures.parse_cutoffs)")
@pytest.mark.parametrize("compat", ["10", "9"])
def test_cutoff_of_4301_digits(compat):
    only_trecgain_error(parse_requests, ["ndcg_cut." + HUGE], compat)


@finding("an ir_measures cutoff of more than 4300 digits: int() raises ValueError (names._cutoff)")
def test_ir_measures_cutoff_of_4301_digits():
    only_trecgain_error(parse_requests, ["nDCG@" + HUGE])


@finding("cutoff='\\u00b2' (str.isdigit() is true for superscript digits): int() raises ValueError "
         "(names._cutoff)")
def test_ir_measures_cutoff_superscript_digit():
    only_trecgain_error(parse_requests, ["nDCG(cutoff='\u00b2')"])


@finding("a gain level of more than 4300 digits: int() raises ValueError (gains._level)")
@pytest.mark.parametrize("compat", ["10", "9"])
def test_gain_level_of_4301_digits(compat):
    only_trecgain_error(parse_requests, [f"ndcg.{HUGE}=1"], compat)


@finding("compat 9 reads a gain level with atol: more than 4300 digits after a space raise ValueError "
         "(gains.atol)")
def test_gain_level_atol_of_4301_digits():
    only_trecgain_error(parse_requests, [f"ndcg. {HUGE}=1"], "9")


@finding("ir_measures numbers beyond float's range: math.isfinite()/float() raise OverflowError "
         "(names._number, names._iprec)")
@pytest.mark.parametrize("spec", [f"RBP(p={BIG})", f"SetF(beta={BIG})", f"IPrec(recall={BIG})"])
def test_ir_measures_number_beyond_float(spec):
    only_trecgain_error(parse_requests, [spec])


@finding("IPrec(rel=<400 digits>)@0.5 parses (no size check on rel, unlike the other names); "
         "Request.to_core() raises OverflowError (float(rel)) when evaluated")
def test_iprec_rel_beyond_float():
    only_trecgain_error(lambda: Evaluator(QRELS, measures=[f"IPrec(rel={BIG})@0.5"]).evaluate(RUN))


@finding("relstring.0 with per-query output: the core panics in write_trec (index out of bounds: the "
         "len is 0 but the index is 0); trecgain -q -m relstring.0 prints a traceback")
def test_relstring_0_per_query():
    only_trecgain_error(lambda: Evaluator(QRELS, measures=["relstring.0"]).evaluate(RUN).to_trec(per_query=True))


@finding("relstring.0 with -q on the command line: PanicException escapes main()")
def test_relstring_0_per_query_cli():
    clean_cli(["-q", "-m", "relstring.0", Q, R])


@finding("an ir_measures parameter list that Python's parser warns about ('1if': invalid decimal "
         "literal): ast.parse issues a SyntaxWarning, which Python prints on stderr (the library "
         "never prints; the command line then writes two lines)")
def test_ir_measures_parameters_syntax_warning():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        only_trecgain_error(parse_requests, ["nDCG(p=1if)"])
    assert [str(w.message) for w in caught] == []


@finding("trecgain -m 'nDCG(p=1if)' Q R: stderr is two lines (Python's SyntaxWarning, then the error)")
def test_ir_measures_parameters_syntax_warning_cli():
    from conftest import run_process

    outcome = run_process(["-m", "nDCG(p=1if)", Q, R])
    assert outcome.rc == 1 and outcome.stdout == b""
    assert outcome.stderr.count("\n") == 1, outcome.stderr


# ---------------------------------------------------------------- gain strings and discounts


@finding("a gain string with a non-UTF-8 byte (a surrogate escape, as argv gives it) parses, then the "
         "core cannot encode its text: UnicodeEncodeError (GainSpec.to_core)")
@pytest.mark.parametrize("how", ["global", "cli"])
def test_global_gains_not_utf8(how):
    text = b"\xc9=1".decode("utf-8", "surrogateescape")
    if how == "global":
        parse_global_gains(text)  # accepted: level names that are not integers are ignored in compat 10
        only_trecgain_error(lambda: Evaluator(QRELS, measures=["ndcg"], global_gains=text).evaluate(RUN))
    else:
        clean_cli(["--global-gains", text, "-m", "ndcg", Q, R])


@finding("parse_discount reads the base with float(), which takes spaces, '_' and non-ASCII digits; "
         "the core refuses those bases with a raw ValueError ('bad base  2')")
@pytest.mark.parametrize("discount", ["log: 2", "log:2 ", "log:\u00a02", "log:2\n", "log:1_0", "jk:\u0663"])
def test_discount_base_float_accepts_core_refuses(discount):
    only_trecgain_error(lambda: Evaluator(QRELS, measures=["ndcg"], discount=discount).evaluate(RUN))


@finding("--discount 'log: 2' on the command line: ValueError escapes main()")
def test_discount_base_with_spaces_cli():
    clean_cli(["--discount", "log: 2", "-m", "ndcg", Q, R])


# ---------------------------------------------------------------- the command line


@finding("option values of more than 4300 digits: int() raises ValueError (console.integer_option)")
@pytest.mark.parametrize("option", ["-l", "-M", "-N", "-j", "--err-max-grade"])
def test_cli_option_of_4301_digits(option):
    clean_cli([option, HUGE, "-m", "map", Q, R])


@finding("a cutoff or option value of 4301 characters with leading zeros still reached int()")
@pytest.mark.parametrize("spec", ["P." + "0" * 4300 + "5", "ndcg_cut." + "0" * 4301])
def test_cutoffs_with_4300_leading_zeros(spec):
    only_trecgain_error(parse_requests, [spec])


@finding("an option value of 4301 characters with leading zeros still reached int()")
@pytest.mark.parametrize("option", ["-l", "-M", "-N", "-j", "--err-max-grade"])
def test_options_with_4300_leading_zeros(option):
    out = io.StringIO()
    saved = sys.stdout, sys.stderr
    try:
        sys.stdout = io.TextIOWrapper(io.BytesIO(), write_through=True)
        sys.stderr = out
        status = main([option, "0" * 4300 + "2", "-m", "map", Q, R])
    finally:
        sys.stdout, sys.stderr = saved
    assert isinstance(status, int) and "Traceback" not in out.getvalue()
