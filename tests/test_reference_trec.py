"""tests/reference_trec.py, the naive oracle of trec_eval's whole measure set, against the
recorded trec_eval transcripts of the conformance corpus (group f: `-m all_trec` and
`-m official`, both modes, byte for byte) and against pytrec_eval (trec_eval 9's C code)
query by query on hypothesis-generated collections.

The files are read here with a deliberately naive parser that follows the corpus README and
trecgain's README: fields separated by any run of white space (so CRLF ends and tabs need
nothing special), comment lines (`#` in column 0) skipped in both files, blank lines skipped
in runs and refused in qrels, exactly 4 qrels fields and at least 6 run fields (the tag is
the 6th field of the last run line), integer grades, finite decimal scores, no document
judged or retrieved twice, no NUL byte, no empty file.  Any refusal is reference.Refused.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference_trec
from conftest import expected_stdout
from reference import Refused

CASES = Path(__file__).resolve().parent.parent / "testdata" / "conformance" / "cases"
FULL_CASES = sorted(p.name for p in CASES.iterdir() if p.is_dir() and p.name.startswith("f"))
GRADE = re.compile(rb"[+-]?[0-9]+")
SCORE = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


# ---------------------------------------------------------------- a naive parser


def content_lines(data: bytes, what: str):
    """(line number, fields) of each line that is not a comment; blank lines give no fields."""
    if not data:
        raise Refused(f"empty {what} file")
    if b"\0" in data:
        raise Refused(f"NUL byte in the {what} file")
    pieces = data.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()
    for number, line in enumerate(pieces, 1):
        if not line.startswith(b"#"):
            yield number, line.split()


def text(field: bytes) -> str:
    return field.decode("utf-8", "surrogateescape")


def read_qrels(data: bytes) -> dict:
    """`qid iter docno grade` lines to {qid: {docno: grade}}."""
    qrels: dict = {}
    for number, fields in content_lines(data, "qrels"):
        if len(fields) != 4:
            raise Refused(f"qrels line {number}: {len(fields)} fields, not 4")
        qid, _, docno, grade = fields
        if GRADE.fullmatch(grade) is None:
            raise Refused(f"qrels line {number}: grade {grade!r} is not an integer")
        docs = qrels.setdefault(text(qid), {})
        if text(docno) in docs:
            raise Refused(f"qrels line {number}: {docno!r} judged twice")
        docs[text(docno)] = int(grade)
    if not qrels:
        raise Refused("no judgments")
    return qrels


def read_run(data: bytes) -> tuple[dict, str]:
    """`qid iter docno rank score tag ...` lines to ({qid: {docno: score}}, the last tag)."""
    run: dict = {}
    tag = None
    for number, fields in content_lines(data, "run"):
        if not fields:
            continue
        if len(fields) < 6:
            raise Refused(f"run line {number}: {len(fields)} fields, not 6")
        qid, _, docno, _, score = fields[:5]
        if SCORE.fullmatch(score) is None or not math.isfinite(float(score)):
            raise Refused(f"run line {number}: score {score!r} is not a finite number")
        docs = run.setdefault(text(qid), {})
        if text(docno) in docs:
            raise Refused(f"run line {number}: {docno!r} retrieved twice")
        docs[text(docno)] = float(score)
        tag = text(fields[5])
    if tag is None:
        raise Refused("no results")
    return run, tag


def parse_args(args: list[str]) -> tuple[list[str], dict, bool, bool]:
    """trec_eval's command line as the corpus writes it: measures, options, -q, summary (-n)."""
    measures: list[str] = []
    options: dict = {}
    per_query, summary = False, True
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-q", "-c", "-n", "-J"):
            per_query |= arg == "-q"
            summary &= arg != "-n"
            options.update({"-c": {"complete": True}, "-J": {"judged_only": True}}.get(arg, {}))
        elif arg[:2] in ("-m", "-l", "-M"):
            value = arg[2:] or args[i + 1]
            i += arg in ("-m", "-l", "-M")
            if arg[:2] == "-m":
                measures.append(value)
            elif arg[:2] == "-l":
                options["relevance_level"] = int(value)
            else:
                options["max_docs"] = int(value)
        elif arg not in ("QRELS", "RUN", "-"):
            raise ValueError(f"unexpected argument {arg}")
        i += 1
    return measures or ["official"], options, per_query, summary


def oracle_output(case_id: str, mode: str) -> str:
    """The oracle's answer to a corpus case (raises Refused where it refuses)."""
    case = json.loads((CASES / case_id / "case.json").read_text())
    measures, options, per_query, summary = parse_args(case["args"])
    qrels = read_qrels((CASES / case_id / "qrels.txt").read_bytes())
    run, tag = read_run((CASES / case_id / "run.txt").read_bytes())
    return reference_trec.trec_eval_output(qrels, run, tag, measures, per_query=per_query, summary=summary,
                                           compat=mode, **options)


# ---------------------------------------------------------------- the corpus


@pytest.mark.parametrize("mode", ["10", "9"])
@pytest.mark.parametrize("case_id", FULL_CASES)
def test_oracle_reproduces_trec_eval(case_id: str, mode: str) -> None:
    """Every f case, byte for byte; an error case must be refused by the parser or the oracle."""
    expect = json.loads((CASES / case_id / "case.json").read_text())["expect"][mode]
    if expect.get("error"):
        with pytest.raises(Refused):
            oracle_output(case_id, mode)
    else:
        assert expect["rc"] == 0
        assert oracle_output(case_id, mode) == expected_stdout(case_id, mode, expect)


ALL_TREC_ORDER = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                  "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
                  "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
                  "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
                  "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"]


@pytest.mark.parametrize("mode", ["10", "9"])
def test_nicknames(mode: str) -> None:
    """`all_trec`, `official` and `set` mark trec_eval's measures, computed and printed in
    trec_eval's measure order (te_trec_measures), not in the nickname's; 9.x's all_trec has
    no rbp, rbp_resid or unj."""
    def marked(spec: str) -> list[str]:
        return [r.measure for r in reference_trec.parse_measures([spec], mode)]
    assert marked("all_trec") == [m for m in ALL_TREC_ORDER if mode == "10" or m not in ("rbp", "rbp_resid", "unj")]
    assert marked("official") == ALL_TREC_ORDER[:12]
    assert marked("set") == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
                             "set_relative_P", "set_recall", "set_map", "set_F"]
    assert marked("unj") == ["unj"]  # asked for by name, compat 9 follows 10.0 for it
    # 9.x lacks dcg: computed as 10.0 does, beside the version's own all_trec (9.x's has no rbp)
    with_dcg = [m for m in ALL_TREC_ORDER[:21] + ["dcg"] + ALL_TREC_ORDER[21:]
                if mode == "10" or m not in ("rbp", "rbp_resid", "unj")]
    assert marked_all(["all_trec", "dcg"], mode) == with_dcg


def marked_all(specs: list[str], mode: str) -> list[str]:
    return [r.measure for r in reference_trec.parse_measures(specs, mode)]


def test_recall_points_round_differently():
    """7 relevant documents, one found at rank 1: recall level 0.2 is lround(1.4) = 1 document
    in 10.0 (reached: precision 1) but (long) (1.4 + 0.9) = 2 in 9.x (not reached: 0)."""
    qrels = {"q": {f"d{i}": 1 for i in range(7)}}
    run = {"q": {"d0": 3.0, "x": 2.0}}
    ten = reference_trec.evaluate_trec(qrels, run, "t", ["iprec_at_recall"], compat="10")
    nine = reference_trec.evaluate_trec(qrels, run, "t", ["iprec_at_recall"], compat="9")
    assert ten.aggregate["iprec_at_recall_0.20"] == 1.0 and nine.aggregate["iprec_at_recall_0.20"] == 0.0
    assert ten.aggregate["iprec_at_recall_0.10"] == nine.aggregate["iprec_at_recall_0.10"] == 1.0


def test_complete_stand_in_ranking():
    """-c: 10.0 evaluates a query the run lacks on one unjudged stand-in document (so with -J
    its ranking is empty and iprec_at_recall_0.00 is 0/0), prints its lines with -q, and zeroes
    num_ret and utility; 9.x skips it but divides by it (gm_map adds log 0.00001)."""
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}}
    ten = reference_trec.evaluate_trec(qrels, run, "t", ["all_trec"], complete=True, compat="10")
    nine = reference_trec.evaluate_trec(qrels, run, "t", ["all_trec"], complete=True, compat="9")
    assert list(ten.per_query) == [b"1", b"2"] and list(nine.per_query) == [b"1"]
    assert ten.per_query[b"2"]["num_ret"] == 0 and ten.per_query[b"2"]["utility"] == 0.0
    assert ten.per_query[b"2"]["relstring"] == "" and ten.per_query[b"2"]["rbp_resid"] == 0.0
    for outcome in (ten, nine):
        assert outcome.aggregate["map"] == 0.5 and outcome.aggregate["num_q"] == 2
        assert math.isclose(outcome.aggregate["gm_map"], math.sqrt(reference_trec.MIN_GEO_MEAN), rel_tol=1e-12)
    judged = reference_trec.evaluate_trec(qrels, run, "t", ["iprec_at_recall"], complete=True, judged_only=True)
    assert math.isnan(judged.per_query[b"2"]["iprec_at_recall_0.00"])


def test_rbp_min_and_max_are_the_tables():
    """rbp rescales by the gain table's own minimum and maximum, whatever measures come before
    it: grades 0 and 3 give the grade-3 gain 3/3 alone and under all_trec (corpus f0012)."""
    qrels = {"q": {**{f"r{i}": 3 for i in range(8)}, "n": 0}}
    run = {"q": {f"r{i}": 10.0 - i for i in range(8)}}
    total = 0.0
    weight = 1.0
    for _ in range(8):
        total += 1.0 * weight
        weight = weight * 0.9
    alone = reference_trec.evaluate_trec(qrels, run, "t", ["rbp"]).aggregate["rbp"]
    after = reference_trec.evaluate_trec(qrels, run, "t", ["all_trec"]).aggregate["rbp"]
    assert alone == (1.0 - 0.9) * total
    assert after == alone


@pytest.mark.parametrize("spec, lines", [
    ("P.10,5", ["P_5", "P_10"]), ("iprec_at_recall.0.5,.25", ["iprec_at_recall_0.25", "iprec_at_recall_0.50"]),
    ("utility.2,-1,0,0", ["utility_2,-1,0,0"]), ("set_F.0.5", ["set_F_0.5"]),
    ("11pt_avg.0.2,0.8", ["11pt_avg_0.2,0.8"]),
    ("rbp.p=0.8", ["rbp_p=0.8"]), ("unj.3", ["unj_3"]), ("Rprec_mult.1", ["Rprec_mult_1.00"]),
    ("ndcg.1=2", ["ndcg_1=2"]), ("map.5", ["map"]),
])
def test_parameter_line_names(spec: str, lines: list[str]) -> None:
    got = reference_trec.evaluate_trec({"q": {"a": 1}}, {"q": {"a": 1.0}}, "t", [spec])
    assert list(got.aggregate) == lines


@pytest.mark.parametrize("specs", [["P.0"], ["P.3,3"], ["iprec_at_recall.0.5,0.5"], ["utility.1,2,3"], ["map."],
                                   ["rbp.p"], ["rbp.p=1=2"], ["nosuch"], ["prefs_simp"], ["qrels_jg"]])
def test_refused_measures(specs: list[str]) -> None:
    with pytest.raises(Refused):
        reference_trec.trec_eval_output({"q": {"a": 1}}, {"q": {"a": 1.0}}, "t", specs)


def test_first_parameters_win():
    got = reference_trec.evaluate_trec({"q": {"a": 1}}, {"q": {"a": 1.0}}, "t", ["all_trec", "P.3", "P.7"])
    assert [line for line in got.aggregate if line.startswith("P_")] == ["P_3"]


@pytest.mark.parametrize("qrels, run", [
    (b"", b"1 Q0 a 1 1.0 t\n"), (b"1 0 a 1\n\n", b"1 Q0 a 1 1.0 t\n"), (b"1 0 a\n", b"1 Q0 a 1 1.0 t\n"),
    (b"1 0 a 1 x\n", b"1 Q0 a 1 1.0 t\n"), (b"1 0 a 2.5\n", b"1 Q0 a 1 1.0 t\n"),
    (b"1 0 a 1\n1 0 a 0\n", b"1 Q0 a 1 1 t\n"),
    (b"1 0 a 1\n", b"1 Q0 a 1 high t\n"), (b"1 0 a 1\n", b"1 Q0 a 1 inf t\n"), (b"1 0 a 1\n", b"1 Q0 a 1 1e999 t\n"),
    (b"1 0 a 1\n", b"1 Q0 a 1 1.0\n"), (b"1 0 a 1\n", b"1 Q0 a 1 1 t\n1 Q0 a 2 0 t\n"), (b"1 0 a 1\n", b""),
    (b"1 0 a\x001\n", b"1 Q0 a 1 1 t\n"), (b"# only a comment\n", b"1 Q0 a 1 1 t\n"),
])
def test_parser_refuses(qrels: bytes, run: bytes) -> None:
    with pytest.raises(Refused):
        read_qrels(qrels)
        read_run(run)


def test_parser_accepts_the_corpus_shapes():
    qrels = read_qrels(b"# c\r\n1\t0  a \t 1\r\n1 Q0 b -1\r\n#x\n# y\n2 0 c 0")
    run, tag = read_run(b"# c\n\n1 Q0 a 1 2.5 t1 extra\r\n  \n1\tQ0\tb\t2\t-1e2\tt2")
    assert qrels == {"1": {"a": 1, "b": -1}, "2": {"c": 0}}
    assert run == {"1": {"a": 2.5, "b": -100.0}} and tag == "t2"


# ---------------------------------------------------------------- pytrec_eval


PYTREC_SETTINGS = dict(deadline=None, derandomize=True, database=None,
                       suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Each measure family once (pytrec_eval merges repeated parameter lists), with default or
# other parameters; utility only with its defaults (pytrec_eval's wrapper mangles a
# negative coefficient), no gain strings (its wrapper crashes on them), no relstring
# (returned as 0.0) and no runid.
PYTREC_FAMILIES = [
    ["map"], ["gm_map"], ["Rprec"], ["bpref"], ["recip_rank"], ["infAP"], ["gm_bpref"], ["utility"],
    ["set_P"], ["set_relative_P"], ["set_recall"], ["set_map"], ["num_nonrel_judged_ret"], ["num_q"],
    ["num_ret"], ["num_rel"], ["num_rel_ret"], ["binG"], ["G"], ["ndcg"], ["ndcg_rel"], ["Rndcg"],
    ["iprec_at_recall", "iprec_at_recall.0.25,0.5,0.05", "iprec_at_recall.0.3,0.7,1.5"],
    ["P", "P.1,3", "P.2,1000"], ["recall", "recall.2,50"], ["Rprec_mult", "Rprec_mult.0.5,3", "Rprec_mult.0.1,0.35"],
    ["11pt_avg", "11pt_avg.0.2,0.5,0.8", "11pt_avg.0.5"], ["map_cut", "map_cut.3,1"],
    ["relative_P", "relative_P.4,1"], ["success", "success.2,7"], ["set_F", "set_F.0.5", "set_F.2"],
    ["ndcg_cut", "ndcg_cut.3,1"],
]
PARAMETER_NAMED = ("11pt_avg", "set_F", "utility")  # pytrec_eval reports these under the bare name

QIDS = st.one_of(st.integers(0, 300).map(str), st.sampled_from(["099", "q1", "Q1", "a-7", "é"]))
DOCNOS = [str(i) for i in range(30)] + ["00", "007", "9a", "a", "aa", "B", "é", "LA0101-0001", "LA0101-0002"]
GRADE_SETS = [st.integers(0, 1), st.integers(0, 4), st.just(0), st.integers(-2, 3), st.sampled_from([0, 1, 2, 7, 12])]
SCORES = st.one_of(st.sampled_from([0.0, 1.0, 2.0, -1.0, 0.5, 123456.789, 123456.79, 16777217.0, 16777216.0]),
                   st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False, width=32),
                   st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False))


@st.composite
def collections(draw) -> tuple[dict, dict]:
    """1 to 5 queries, in both files (mostly) or in one; a query the run has is never judged
    only negatively (trec_eval fails on it) and never has an empty ranking (which a run file
    cannot express, and on which pytrec_eval can segfault, e.g. when such a query is the first
    one evaluated after an evaluator's set-up)."""
    qrels: dict = {}
    run: dict = {}
    for qid in draw(st.lists(QIDS, min_size=1, max_size=5, unique=True)):
        where = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        pool = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=25, unique=True))
        if where != "run":
            judged = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
            grades = [draw(draw(st.sampled_from(GRADE_SETS))) for _ in judged]
            if where == "both" and all(g < 0 for g in grades):
                grades[0] = 0
            qrels[qid] = dict(zip(judged, grades))
        if where != "qrels":
            retrieved = draw(st.lists(st.sampled_from(pool + ["x1", "x2", "x3"]), min_size=1, max_size=28,
                                      unique=True))
            run[qid] = {docno: draw(SCORES) for docno in retrieved}
    return qrels, run


def pytrec_name(line: str) -> str:
    for measure in PARAMETER_NAMED:
        if line.startswith(measure + "_"):
            return measure
    return line


@settings(max_examples=300, **PYTREC_SETTINGS)
@given(collections(), st.lists(st.integers(0, len(PYTREC_FAMILIES) - 1), min_size=1, max_size=8, unique=True),
       st.data(), st.integers(1, 3), st.booleans())
def test_against_pytrec_eval(collection, families, data, relevance_level, judged_only):
    """Every per-query value of the oracle in compat 9 (gm_* as their logs) equals pytrec_eval's
    exactly (NaN only with NaN), on the queries both files have.  pytrec_eval has no -c, -M or
    -l 0, so they keep their defaults."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = collection
    specs = [data.draw(st.sampled_from(PYTREC_FAMILIES[i])) for i in families]
    try:
        mine = reference_trec.evaluate_trec(qrels, run, "t", specs, relevance_level=relevance_level,
                                            judged_only=judged_only, compat="9")
    except Refused:
        assert not any(q in run for q in qrels if qrels[q])  # refused only when no query is in both
        return
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(specs), relevance_level=relevance_level,
                                               judged_docs_only_flag=judged_only)
    theirs = evaluator.evaluate(run)
    assert sorted(theirs) == sorted(q.decode("utf-8") for q in mine.per_query)
    for qid, values in mine.per_query.items():
        other = theirs[qid.decode("utf-8")]
        assert sorted(other) == sorted(pytrec_name(line) for line in values), qid
        for line, value in values.items():
            want = other[pytrec_name(line)]
            if math.isnan(want):
                assert math.isnan(value), (qid, line, value)
            else:
                assert value == want, (qid, line, value, want)
