"""`trecgain explain` and `trecgain.explain.explain`: one query's computation rank by rank.

The expectations come from the design notes' worked example (../shared/design-notes/
dcg-and-ndcg.txt, "A worked example" and "nDCG at each cutoff", rounded there to 3 decimals),
from the evaluation itself (explain's values must be its per-query values, bit for bit, on
every conformance case), and from rules written out here (trec_eval's tie rule, -M, -J).
"""

from __future__ import annotations

import json
import math
import struct

import pytest

from conftest import CASES, explain_table, load_case, run_cli
from trecgain import Evaluator, TrecgainError
from trecgain.cli import parsed
from trecgain.cli.console import integer_option
from trecgain.explain import SUPPORTED, explain
from trecgain.measures import BY_NAME, parse_requests
from trecgain.read import read_qrels, read_run

WORKED = CASES / "h-worked-linear"
W = [str(WORKED / "qrels.txt"), str(WORKED / "run.txt")]


def r3(x: float) -> str:
    return f"{x:.3f}"


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


# ---------------------------------------------------------------- (a) the worked example


def test_the_worked_example_reproduces_the_design_notes_tables():
    e = explain(*W, "ndcg_cut.6", "1")
    rows = e.sides[0].rows
    assert [r["docno"] for r in rows] == [b"d1", b"d2", b"d3", b"d4", b"d5", b"d6"]
    assert [r["relevance"] for r in rows] == [3, 2, 3, 0, 1, 2]
    # "Discount 1/log2(i+1)", and the discount column is its divisor
    assert [r3(1 / r["discount"]) for r in rows] == ["1.000", "0.631", "0.500", "0.431", "0.387", "0.356"]
    assert [r3(r["discounted_gain"]) for r in rows] == ["3.000", "1.262", "1.500", "0.000", "0.387", "0.712"]
    assert [r["ideal_grade"] for r in rows] == [3, 3, 2, 2, 1, 0]
    assert [r3(r["ideal_discounted_gain"]) for r in rows] == ["3.000", "1.893", "1.000", "0.861", "0.387", "0.000"]
    # "nDCG at each cutoff"
    assert [r3(r["dcg"]) for r in rows] == ["3.000", "4.262", "5.762", "5.762", "6.149", "6.861"]
    assert [r3(r["ideal_dcg"]) for r in rows] == ["3.000", "4.893", "5.893", "6.754", "7.141", "7.141"]
    assert [r3(r["value"]) for r in rows] == ["1.000", "0.871", "0.978", "0.853", "0.861", "0.961"]
    assert (r3(rows[-1]["dcg"]), r3(rows[-1]["ideal_dcg"]), r3(e.sides[0].values["ndcg_cut_6"])) == \
        ("6.861", "7.141", "0.961")
    assert len(e.sides) == 1 and e.sides[0].gains == "linear" and e.sides[0].discount == "log:2"
    assert e.missed == [] and e.ties == []


def test_the_worked_example_with_exponential_gains_side_by_side():
    e = explain(*W, "ndcg_cut.1,2,3,4,5,6", "1", global_gains="exp")
    default, given = e.sides
    assert (default.name, default.gains, given.name, given.gains) == ("default", "linear", "given", "exp")
    # exponential gain, discounted: 7, 1.893, 3.5, 0, 0.387, 1.069; the ideal 7, 4.417, 1.5, 1.292, 0.387, 0
    assert [r3(r["discounted_gain"]) for r in given.rows] == ["7.000", "1.893", "3.500", "0.000", "0.387", "1.069"]
    assert [r3(r["ideal_discounted_gain"]) for r in given.rows] == \
        ["7.000", "4.417", "1.500", "1.292", "0.387", "0.000"]
    last = given.rows[-1]
    assert (r3(last["dcg"]), r3(last["ideal_dcg"]), r3(last["value"])) == ("13.848", "14.595", "0.949")
    assert [r3(given.values[f"ndcg_cut_{k}"]) for k in range(1, 7)] == \
        ["1.000", "0.779", "0.959", "0.872", "0.876", "0.949"]
    assert [r3(default.values[f"ndcg_cut_{k}"]) for k in range(1, 7)] == \
        ["1.000", "0.871", "0.978", "0.853", "0.861", "0.961"]
    # the command shows both, each side its own columns
    out = run_cli(["explain", "-m", "ndcg_cut.6", "--global-gains", "exp", "--query", "1", *W])
    assert out.rc == 0, out.stderr
    text = out.stdout.decode()
    assert "trec_eval's default: gains linear" in text and "given: gains exp" in text
    six = [line for line in text.splitlines() if line.split()[:2] == ["6", "d6"]][0]
    assert "6.8611" in six and "7.1410" in six and "0.9608" in six
    assert "13.8483" in six and "14.5954" in six and "0.9488" in six


def test_the_worked_example_on_the_command_line():
    out = run_cli(["explain", "-m", "ndcg_cut.6", "--query", "1", *W])
    assert out.rc == 0 and out.stderr == ""
    text = out.stdout.decode()
    rows = explain_table(text)
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5", "6"]
    assert [r[1] for r in rows] == ["d1", "d2", "d3", "d4", "d5", "d6"]
    # rank docno score grade gain discount gain/disc DCG ideal ideal-g/d IDCG value
    assert rows[1] == ["2", "d2", "98.0", "2", "2", "1.5850", "1.2619", "4.2619", "3", "1.8928", "4.8928",
                       "0.8710"]
    assert rows[5][-5:] == ["6.8611", "0", "0.0000", "7.1410", "0.9608"]
    assert "ndcg_cut_6  0.9608 (" in text


def test_jarvelin_kekalainen_discounts_from_the_design_notes():
    e = explain(*W, "ndcg_cut.6", "1", discount="jk:2")
    given = e.sides[1]
    assert (r3(given.rows[-1]["dcg"]), r3(given.rows[-1]["ideal_dcg"])) == ("8.097", "8.693")
    assert [r["discount"] for r in given.rows[:2]] == [1.0, 1.0]  # no discount before rank b = 2
    assert r3(given.values["ndcg_cut_6"]) == "0.932"
    assert r3(explain(*W, "ndcg_cut.6", "1", discount="jk:10").sides[1].values["ndcg_cut_6"]) == "1.000"
    assert r3(explain(*W, "dcg", "1", discount="log:e").sides[1].values["dcg"]) == "9.899"


# ---------------------------------------------------------------- (b) the evaluation's values, bit for bit

CASE_IDS = sorted(p.name for p in CASES.iterdir() if p.is_dir())
#: (case, mode) where the case evaluates (an input error has nothing to explain).
EVALUATED = [(c, mode) for c in CASE_IDS for mode in ("10", "9") if not load_case(c)["expect"][mode].get("error")]
#: Explained on every case that asks for no supported measure.
FIXED = ["ndcg", "ndcg_cut.1,3,10,1000", "dcg", "ideal_dcg", "ndcg_p", "cg_cut.2,5", "dcg_cut.3,20", "nDCG@5",
         "ndcg.1=3,2=7", "DCG(dcg='exp-log2')@4", "nDCG(judged_only=True)@3", "nDCG(gains={0:0,1:1,2:3})@6"]
#: Given gains and discounts: explained side by side with trec_eval's default.
GIVEN = [dict(global_gains="exp", discount="jk:2"), dict(global_gains="binary", discount="log:2"),
         dict(discount="log:10")]


def _spelled(request) -> str:
    if request.label:
        return request.label
    return request.measure.name if request.text is None else f"{request.measure.name}.{request.text}"


#: The measures explain shows that read graded qrels (the conformance cases' format), named
#: plainly: not the C/W/L measures (max_rel has no default) nor runid (its line is the run's
#: tag, not a per-query number): tests/test_explain_cwl.py explains those on every case.
ELSEWHERE = ("UserModel", "RunTag")
GRADED = [m for m in SUPPORTED if BY_NAME[m].relevance in ("qrels", "any") and BY_NAME[m].explain not in ELSEWHERE]
#: Every measure explain shows, named plainly (its default parameters), and with parameters of
#: each kind: explained on every case beside the case's own.
EVERY = [*GRADED, "P.1,3,7,2000", "recall.2,9", "relative_P.1,4", "success.2,30", "unj.1,3", "judged.2,50",
         "map_cut.2,5,50", "RR@3", "iprec_at_recall.0.25,0.8", "11pt_avg.0.5,0.1,0.9", "Rprec_mult.0.5,1.5,3",
         "set_F.0.5", "utility.2,-1,1,0", "relstring.4", "rbp.p=0.5", "rbp_resid.p=0.7", "RBP(p=0.8)@5",
         "err_cut.1,3,20", "rbp.1=0.5,2=3", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)",
         "Accuracy@3", "Accuracy(rel=2)@10"]


def _case_measures(options: dict, compat: str) -> list[str]:
    found = []
    for m in options["measures"]:
        try:
            requests = parse_requests([m], compat)
        except TrecgainError:
            continue
        found += [_spelled(r) for r in requests if r.measure.name in SUPPORTED and r.measure.explain not in ELSEWHERE]
    return list(dict.fromkeys(found + FIXED + EVERY))


@pytest.mark.parametrize("case_id, mode", EVALUATED)
def test_explain_gives_the_evaluations_values(case_id: str, mode: str) -> None:
    _check_case(case_id, mode, "docno")


@pytest.mark.parametrize("case_id, mode", EVALUATED[::5])
def test_explain_gives_the_evaluations_values_with_averaged_ties(case_id: str, mode: str) -> None:
    _check_case(case_id, mode, "average")


def _check_case(case_id: str, mode: str, ties: str) -> None:
    """Every measure explain shows: each line's value, the kernel's and the one the explanation
    computes from its own rows and counts, is the evaluation's per-query value, bit for bit (and
    for the DCG family, the rows' value at each cutoff too)."""
    case = load_case(case_id)
    args = [a for a in case["args"] if a not in ("QRELS", "RUN")]
    options = parsed(args)
    level = integer_option(options["level"], "-l") if options["level"] is not None else 1
    kw = dict(relevance_level=level, judged_only=options["judged_only"],
              max_docs=integer_option(options["max_docs"], "-M", 0), compat=mode, ties=ties)
    qrels = read_qrels(str(CASES / case_id / "qrels.txt"))
    run = read_run(str(CASES / case_id / "run.txt"))
    measures = _case_measures(options, mode)
    if ties == "average":
        kw["max_docs"] = None  # --ties average refuses -M, and is defined for some measures only
        measures = [m for m in measures if parse_requests([m], mode)[0].measure.tie_average]
    checked = 0
    for batch in _batches(measures, mode):
        # with the case's -c, as recorded; explain has no -c: it explains the queries of the run
        try:
            result = Evaluator(qrels, measures=batch, complete=options["complete"], **kw).evaluate(run)
        except TrecgainError as err:  # under 9.x's rules, a measure new in 10.0 may leave no query
            assert "no query has both" in str(err), err
            continue
        in_run = dict(zip(result.qids, result.evaluation.in_run))
        columns = _columns(result)
        for measure in batch:
            kernel_lines = columns[parse_requests([measure], mode)[0].measure.name]
            for index, qid in enumerate(result.qids):
                if not in_run[qid]:
                    continue
                values = {line: [column[index] for column in slots] for line, slots in kernel_lines}
                e = explain(qrels, run, measure, qid, **kw)
                (side,) = e.sides
                assert list(side.values) == list(values), (measure, qid)
                for (line, value), k in zip(values.items(), e.cutoffs):
                    assert bits(side.values[line]) == bits(value[0]), (case_id, measure, qid, line)
                    own = [side.own[line]] if len(value) == 1 else side.own_slots
                    assert [bits(x) for x in own] == [bits(x) for x in value], (case_id, measure, qid, line, "own")
                    if e.dcg:
                        rows = side.rows
                        at = len(rows) if k is None else min(k, len(rows))
                        row_value = rows[at - 1]["value"] if at else 0.0
                        assert bits(row_value) == bits(value[0]), (case_id, measure, qid, line, "row", at)
                    checked += 1
    assert checked or not any(in_run.values())


def _batches(measures: list[str], mode: str) -> list[list[str]]:
    """The measures in batches with one request per kernel each (an evaluation merges the
    requests of one kernel)."""
    batches: list[list[str]] = []
    kernels: list[set[str]] = []
    for m in measures:
        name = parse_requests([m], mode)[0].measure.name
        for batch, names in zip(batches, kernels):
            if name not in names:
                batch.append(m)
                names.add(name)
                break
        else:
            batches.append([m])
            kernels.append({name})
    return batches


def _columns(result) -> dict[str, list[tuple[str, list[list[float]]]]]:
    """{kernel: [(line, the core's per-query values of each of its slots)]} of an evaluation."""
    out: dict = {}
    slot = 0
    for request in result.requests:
        for line, slots in zip(request.lines, request.slots()):
            out.setdefault(request.measure.name, []).append(
                (line, [result.evaluation.column(slot + i) for i in range(slots)]))
            slot += slots
    return out


@pytest.mark.parametrize("case_id, mode", EVALUATED[::7])
def test_both_sides_are_the_evaluations(case_id: str, mode: str) -> None:
    """With --global-gains or --discount: the given side is the evaluation with them, the
    default side the evaluation without (every seventh case)."""
    case = load_case(case_id)
    args = [a for a in case["args"] if a not in ("QRELS", "RUN")]
    options = parsed(args)
    level = integer_option(options["level"], "-l") if options["level"] is not None else 1
    kw = dict(relevance_level=level, judged_only=options["judged_only"],
              max_docs=integer_option(options["max_docs"], "-M", 0), compat=mode)
    qrels = read_qrels(str(CASES / case_id / "qrels.txt"))
    run = read_run(str(CASES / case_id / "run.txt"))
    for measure in ["ndcg_cut.2,5", "ndcg", "dcg", "ideal_dcg", "rbp.p=0.8"]:
        for given in GIVEN:
            try:
                sides = [Evaluator(qrels, measures=[measure], **kw).evaluate(run),
                         Evaluator(qrels, measures=[measure], **kw, **given).evaluate(run)]
            except TrecgainError:  # no query in both files; exponential gains of a huge grade
                continue
            for qid, values in sides[0].per_query.items():
                e = explain(qrels, run, measure, qid, **kw, **given)
                assert [s.name for s in e.sides] == ["default", "given"]
                assert len(e.sides[0].rows) == len(e.sides[1].rows)
                for side, result in zip(e.sides, sides):
                    for line, value in result.per_query[qid].items():
                        assert bits(side.values[line]) == bits(value), (measure, given, qid, line)
                        assert bits(side.own[line]) == bits(value), (measure, given, qid, line, "own")


# ---------------------------------------------------------------- ranking, ties, missed documents

QRELS = """\
q 0 a 2
q 0 b 1
q 0 c 0
q 0 d -1
q 0 e 3
q 0 f 1
q 0 g 0
"""
# scores: d 0.7; a and b tie at 0.5 (b ranks first: docno descending); zz and y equal only
# as float32; f past -M 5; e never retrieved
RUN = """\
q Q0 a 1 0.5 t
q Q0 b 2 0.5 t
q Q0 d 3 0.7 t
q Q0 zz 4 0.2 t
q Q0 f 5 0.1 t
q Q0 y 6 0.200000000001 t
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    return [str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]


def _docnos(e) -> list[bytes]:
    return [r["docno"] for r in e.sides[0].rows if r["docno"] is not None]


def test_ranking_ties_and_missed_documents(files):
    e = explain(*files, "ndcg", "q", max_docs=5)
    assert _docnos(e) == [b"d", b"b", b"a", b"y", b"zz"]
    grades = [r["grade"] for r in e.to_dict()["rows"]]
    assert grades == ["unjudged", 1, 2, "-", "-"]
    assert [(t["sort_score"], [d["docno"] for d in t["docs"]]) for t in e.ties] == [(0.5, [b"b", b"a"])]
    assert [(m["docno"], m["grade"], m["ranked_at"]) for m in e.missed] == [(b"e", 3.0, None), (b"f", 1.0, 6)]
    # compat 9: 0.2 and 0.200000000001 are one float32; the docno rule puts zz first
    e9 = explain(*files, "ndcg", "q", max_docs=5, compat="9")
    assert _docnos(e9) == [b"d", b"b", b"a", b"zz", b"y"]
    near = e9.ties[1]
    assert [(d["docno"], d["rank"], d["score"]) for d in near["docs"]] == \
        [(b"zz", 4, 0.2), (b"y", 5, 0.200000000001)]
    assert near["sort_score"] == struct.unpack("<f", struct.pack("<f", 0.2))[0]
    text = run_cli(["explain", "-m", "ndcg", "--compat", "9", "-M", "5", "--query", "q", *files]).stdout.decode()
    assert "as float32" in text and "zz (rank 4, score 0.2), y (rank 5, score 0.200000000001)" in text
    assert "the run ranks it 6, past -M 5" in text


def test_judged_only_closes_up_the_ranks(files):
    e = explain(*files, "ndcg_cut.3", "q", judged_only=True)
    assert _docnos(e) == [b"b", b"a", b"f"]  # d (judged negative), zz and y (not in the qrels) dropped
    assert len(e.sides[0].rows) == 3  # the largest cutoff
    tie = e.ties[0]["docs"]
    assert [(d["docno"], d["rank"], d["evaluated_rank"]) for d in tie] == [(b"b", 2, 1), (b"a", 3, 2)]


def test_rows_go_on_past_the_ranking_while_the_ideal_has_documents(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 2\n1 0 c 2\n1 0 d 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    e = explain(str(tmp_path / "q"), str(tmp_path / "r"), "ndcg", "1")
    rows = e.sides[0].rows
    assert [r["ideal_grade"] for r in rows] == [2, 2, 1]  # the grade-0 document adds nothing to the ideal
    assert rows[1]["docno"] is None and rows[1]["gain"] is None
    assert explain(str(tmp_path / "q"), str(tmp_path / "r"), "cg_cut.2", "1").sides[0].rows[-1]["rank"] == 2


def test_the_library_returns_data_and_prints_nothing(capsys, files):
    e = explain(*files, "nDCG@3", "q", global_gains="1=1,2=3")
    assert e.lines == ["nDCG@3"] and e.kernel == "ndcg_cut" and len(e.sides) == 2
    assert e.options["global_gains"] == "1=1,2=3"
    assert capsys.readouterr() == ("", "")
    # dicts in, as the Evaluator takes them
    d = explain({"q": {"a": 2, "b": 0}}, {"q": {"a": 1.0, "b": 2.0}}, "ndcg", "q")
    assert [r["docno"] for r in d.sides[0].rows] == [b"b", b"a"]


# ---------------------------------------------------------------- (c) errors


def _one_line_error(args: list[str], rc: int) -> str:
    out = run_cli(args)
    assert out.rc == rc, out
    assert out.stdout == b""
    assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
    return out.stderr


def test_an_unknown_query_names_it_and_the_file():
    message = _one_line_error(["explain", "-m", "ndcg", "--query", "no-such-query", *W], 1)
    assert "'no-such-query'" in message and "qrels.txt" in message


def test_a_query_of_the_qrels_the_run_lacks_names_the_run(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    message = _one_line_error(["explain", "-m", "ndcg", "--query", "2", str(tmp_path / "q"), str(tmp_path / "r")], 1)
    assert "'2'" in message and str(tmp_path / "r") in message


def test_an_unknown_measure_is_refused_naming_what_explain_shows():
    message = _one_line_error(["explain", "-m", "gain", "--query", "1", *W], 1)
    assert "'gain'" in message and "every measure" in message


def test_explain_shows_every_measure():
    """Every record has a shape (issue 22: runid, num_q and the C/W/L measures too), so nothing
    is refused for want of one (a record without, tests/test_measure_records.py)."""
    from trecgain.explain import REFUSALS, SUPPORTED_TEXT
    from trecgain.kernels import RECORDS
    assert all(r["explain"] for r in RECORDS) and REFUSALS == {}
    assert SUPPORTED_TEXT == "every measure (their ir_measures names too)"


@pytest.mark.parametrize("args", [
    ["-m", "ndcg", *W],  # no --query
    ["--query", "1", *W],  # no -m
    ["-m", "ndcg", "--query", "1", W[0]],  # one file
    ["-m", "ndcg", "--query", "1", "-c", *W],  # not an explain option
    ["-m", "ndcg", "--query", "1", "--format", "xml", *W],
    ["-m", "ndcg", "--query", "1", "--compat", "8", *W],
])
def test_usage_errors_exit_2(args):
    _one_line_error(["explain", *args], 2)


def test_missing_query_is_named():
    assert "--query" in _one_line_error(["explain", "-m", "ndcg", *W], 2)


@pytest.mark.parametrize("args", [
    ["-m", "ndcg", "--query", "1", "--discount", "log:1", *W],
    ["-m", "ndcg", "--query", "1", "--global-gains", "1=x", *W],
    ["-m", "ndcg", "--query", "1", "-l", "two", *W],
    ["-m", "ndcg", "--query", "1", W[0], "/no/such/run"],
])
def test_bad_values_exit_1(args):
    _one_line_error(["explain", *args], 1)


def test_library_errors_are_trecgain_errors():
    with pytest.raises(TrecgainError, match="prefs_simp.*-R prefs"):
        explain(*W, "prefs_simp", "1")
    with pytest.raises(TrecgainError, match="'7'"):
        explain(*W, "ndcg", "7")
    with pytest.raises(TrecgainError, match="query"):
        explain(*W, "ndcg", "two words")


def test_help():
    out = run_cli(["explain", "--help"])
    assert out.rc == 0 and out.stderr == ""
    text = out.stdout.decode()
    assert text.startswith("usage: trecgain explain") and "--query" in text and "cg_cut" in text


# ---------------------------------------------------------------- (d) JSON


def _f4(x):
    return None if x is None else f"{x:.4f}"


def _plain(x):
    if x is None:
        return None
    if isinstance(x, str):
        return x
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _gain(x):
    if x is None:
        return None
    return str(int(x)) if float(x).is_integer() else f"{x:.4f}".rstrip("0").rstrip(".")


@pytest.mark.parametrize("args", [
    ["-m", "ndcg_cut.6", "--query", "1", *W],
    ["-m", "nDCG@3", "--global-gains", "exp", "--discount", "jk:2", "--query", "1", *W],
    ["-m", "ndcg", "-M", "5", "--compat", "9", "--query", "q"],
    ["-m", "cg_cut.2,4", "-J", "--query", "q"],
    ["-m", "ndcg", "--global-gains", "1=0.3,2=4.25", "--discount", "log:e", "--query", "q"],
])
def test_json_parses_and_matches_the_text(args, files):
    if "--query" in args and args[-1] == "q":
        args = [*args, *files]
    text = run_cli(["explain", *args]).stdout.decode()
    out = run_cli(["explain", "--format", "json", *args])
    assert out.rc == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["query"] == args[args.index("--query") + 1]
    assert set(doc) >= {"rows", "sides", "missed", "ties", "options"}
    rows = explain_table(text)
    assert len(rows) == len(doc["rows"])
    for cells, row in zip(rows, doc["rows"]):
        expected = [str(row["rank"]), row["docno"], None if row["score"] is None else repr(row["score"]),
                    _plain(row["grade"])]
        for side in row["sides"]:
            expected += [_gain(side["gain"]), _f4(side["discount"]), _f4(side["discounted_gain"]),
                         _f4(side["dcg"]), _plain(side["ideal_grade"]), _f4(side["ideal_discounted_gain"]),
                         _f4(side["ideal_dcg"]), _f4(side["value"])]
        assert cells == [c for c in expected if c is not None]
    for side in doc["sides"]:
        for v in side["values"]:
            assert f"{v['value']:.4f} ({v['value']!r})" in text
    for m in doc["missed"]:
        assert any(line.split()[:2] == [m["docno"], _plain(m["grade"])] for line in text.splitlines())
    for t in doc["ties"]:
        assert f"score {t['score']!r}: " in text
    assert doc["options"]["compat"] == ("9" if "9" in args else "10")


def test_several_measures_give_several_tables_and_a_json_array():
    args = ["explain", "-m", "ndcg_cut.3", "-m", "dcg", "--query", "1", *W]
    text = run_cli(args).stdout.decode()
    assert text.count("rank  docno") == 2 and "ndcg_cut_3  " in text and "dcg  6.8611" in text
    docs = json.loads(run_cli([*args, "--format", "json"]).stdout)
    assert [d["measure"] for d in docs] == ["ndcg_cut.3", "dcg"]


def test_averaged_ties_show_each_tied_document_its_groups_mean_gain(files):
    e = explain(*files, "dcg", "q", ties="average")
    gains = {r["docno"]: r["gain"] for r in e.sides[0].rows if r["docno"] is not None}
    assert gains[b"a"] == gains[b"b"] == 1.5  # grades 2 and 1, tied at 0.5
    assert gains[b"d"] == 0  # judged negative: no gain
    out = run_cli(["explain", "-m", "dcg", "--ties", "average", "--query", "q", *files])
    assert out.rc == 0 and "each document given its group's mean gain (--ties average)" in out.stdout.decode()


# ---------------------------------------------------------------- (e) strict JSON, keywords


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _overflowing(tmp_path) -> list[str]:
    """A run whose top score, 1e39, is beyond float32's range: under --compat 9 (scores as
    float32) its sort score is infinite; two documents tie there."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 2\n1 0 c 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1e39 t\n1 Q0 b 2 2e39 t\n1 Q0 c 3 1 t\n")
    return [str(tmp_path / "q"), str(tmp_path / "r")]


def test_json_spells_an_infinite_score_null(tmp_path):
    files = _overflowing(tmp_path)
    out = run_cli(["explain", "--format", "json", "--compat", "9", "-m", "ndcg", "--query", "1", *files])
    assert out.rc == 0, out.stderr
    doc = json.loads(out.stdout, parse_constant=_no_constant)
    assert [r["score"] for r in doc["rows"][:2]] == [2e39, 1e39]  # the scores as written: finite
    assert [r["sort_score"] for r in doc["rows"][:2]] == [None, None]  # float32: infinite, no JSON spelling
    assert [t["score"] for t in doc["ties"]] == [None]
    assert math.isinf(explain(*files, "ndcg", "1", compat="9").sides[0].rows[0]["sort_score"])
    library = explain(*files, "ndcg", "1", compat="9").to_json()
    assert json.loads(library, parse_constant=_no_constant) == doc
    several = run_cli(["explain", "--format", "json", "--compat", "9", "-m", "ndcg", "-m", "dcg", "--query", "1",
                       *files])
    assert [d["rows"][0]["sort_score"] for d in json.loads(several.stdout, parse_constant=_no_constant)] == \
        [None, None]


@pytest.mark.parametrize("keywords, name", [({"complete": True}, "complete"), ({"num_docs": 10}, "num_docs"),
                                            ({"relevance": 2}, "relevance"), ({"k": 10, "cutoff": 5}, "cutoff")])
def test_an_unknown_keyword_is_a_trecgain_error(keywords, name):
    with pytest.raises(TrecgainError) as info:
        explain(*W, "ndcg", "1", **keywords)
    message = str(info.value)
    assert "\n" not in message and f"explain has no option '{name}'" in message
    assert "relevance_level" in message and "ties" in message  # what it takes


@pytest.mark.parametrize("keywords", [{"relevance_level": "1"}, {"judged_only": 1}, {"max_docs": 2.5},
                                      {"compat": 8}, {"global_gains": 5}, {"discount": None},
                                      {"exact_ideal": "no"}, {"fractional_grades": None}, {"ties": 3}])
def test_an_ill_typed_keyword_is_a_trecgain_error(keywords):
    with pytest.raises(TrecgainError) as info:
        explain(*W, "ndcg", "1", **keywords)
    assert "\n" not in str(info.value) and next(iter(keywords)) in str(info.value)


def test_keywords_names_the_options_explain_takes():
    import inspect

    from trecgain.explain import KEYWORDS

    parameters = list(inspect.signature(explain).parameters.values())
    assert tuple(p.name for p in parameters if p.default is not p.empty) == KEYWORDS
    assert parameters[-1].kind is inspect.Parameter.VAR_KEYWORD


# ---------------------------------------------------------------- the other measures, by hand

#: Grades 3 2 - 0 2 1 in rank order (dx not in the qrels; d6 and d5 tie at 5.0, d6 first by
#: docno descending); d3 (3) and d7 (1) not retrieved: R = 6 at -l 1, N = 1 (d4).
HAND_QRELS = "1 0 d1 3\n1 0 d2 2\n1 0 d3 3\n1 0 d4 0\n1 0 d5 1\n1 0 d6 2\n1 0 d7 1\n"
HAND_RUN = "1 Q0 d1 1 9 t\n1 Q0 d2 2 8 t\n1 Q0 dx 3 7 t\n1 Q0 d4 4 6 t\n1 Q0 d5 5 5 t\n1 Q0 d6 6 5 t\n"
E = 0.00001  # infAP's epsilon


def _by_hand() -> dict[str, float]:
    ap_sum = 1 / 1 + 2 / 2 + 3 / 5 + 4 / 6
    p, r = 4 / 6, 4 / 6
    err = [7 / 16, 3 / 16, 0, 0, 3 / 16, 1 / 16]
    reach, err_at = 1.0, []
    for i, x in enumerate(err):
        err_at.append((err_at[-1] if err_at else 0.0) + x * reach / (i + 1))
        reach *= 1 - x
    inf = (1 + (1 / 2 + (1 / 2) * (1 / 1) * ((1 + E) / (1 + 2 * E)))
           + (1 / 5 + (4 / 5) * (3 / 4) * ((2 + E) / (3 + 2 * E)))
           + (1 / 6 + (5 / 6) * (4 / 5) * ((3 + E) / (4 + 2 * E))))
    return {
        "map": ap_sum / 6, "map_cut_2": 2 / 6, "gm_map": math.log(ap_sum / 6),
        "yaap": math.log((1 + ap_sum) / (1 + 6 - ap_sum)),
        "P_2": 1.0, "P_5": 3 / 5, "P_10": 4 / 10, "recall_5": 3 / 6, "relative_P_5": 3 / 5, "success_1": 1.0,
        "unj_3": 1 / 3, "judged_3": 2 / 3, "recip_rank": 1.0, "Rprec": 4 / 6,
        "Rprec_mult_0.50": 2 / 3,  # r = (0.5 * 6 + 0.9) truncated = 3: d1, d2 of 3
        "bpref": (1 + 1 + 0 + 0) / 6,  # d6 and d5 have d4 above: 1 - min(1, 6) / min(6, 1)
        "infAP": inf / 6, "binG": (1 + 1 + 1 / math.log2(4) + 1 / math.log2(4)) / 6,
        "iprec_at_recall_0.00": 1.0, "iprec_at_recall_0.50": 4 / 6, "iprec_at_recall_0.80": 0.0,
        "set_P": p, "set_recall": r, "set_F": 2 * p * r / (p + r), "set_map": p * r, "set_relative_P": 4 / 6,
        "utility": 4 - 2, "num_ret": 6, "num_rel": 6, "num_rel_ret": 4, "num_nonrel_judged_ret": 1,
        # gains scaled by (gain - 0) / (3 - 0); weights 0.5^(rank-1)
        "rbp_p=0.5": 0.5 * (1 + (2 / 3) * 0.5 + (2 / 3) * 0.5 ** 4 + (1 / 3) * 0.5 ** 5),
        "rbp_resid_p=0.5": 0.5 ** 6 + 0.5 * 0.5 ** 2,  # dx unjudged at rank 3
        "err_cut_2": err_at[1], "err_cut_6": err_at[5],
        **_gain_measures_by_hand(),
    }


def _gain_measures_by_hand() -> dict[str, float]:
    """ndcg_rel, Rndcg and G with linear gains 3 2 0 0 2 1 in rank order; the ideal ranking's
    gains 3 3 2 2 1 1 (grade 0 ends its walk)."""
    gains, ideal = [3, 2, 0, 0, 2, 1], [3, 3, 2, 2, 1, 1]
    dcg = [sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k])) for k in range(1, 7)]
    idcg = [sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k])) for k in range(1, 7)]
    at_relevant = sum(dcg[k] / idcg[k] for k in (0, 1, 4, 5))  # the ranks with a positive gain
    ndcg_rel = (at_relevant + (6 - 4) * dcg[5] / idcg[5]) / 6
    rndcg = (dcg[1] / idcg[1] + dcg[3] / idcg[3] + dcg[5] / idcg[5]) / 3  # 3 -> 2, 2 -> 1, the end
    cost = [3, 6, 8, 10, 11, 12]  # the ideal gain at the rank (>= 1) added up
    so_far = [3, 5, 5, 5, 7, 8]
    g = sum(x / math.log2(2 + c - s) for x, c, s in zip(gains, cost, so_far) if x) / sum(ideal)
    return {"ndcg_rel": ndcg_rel, "Rndcg": rndcg, "G": g}


HAND_MEASURES = ["map", "map_cut.2", "gm_map", "yaap", "P.2,5,10", "recall.5", "relative_P.5", "success.1", "unj.3",
                 "judged.3", "recip_rank", "Rprec", "Rprec_mult.0.5", "bpref", "infAP", "binG",
                 "iprec_at_recall.0,0.5,0.8", "set_P", "set_recall", "set_F", "set_map", "set_relative_P",
                 "utility", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "rbp.p=0.5",
                 "rbp_resid.p=0.5", "err_cut.2,6", "ndcg_rel", "Rndcg", "G"]


@pytest.fixture
def hand(tmp_path):
    (tmp_path / "q.txt").write_text(HAND_QRELS)
    (tmp_path / "r.txt").write_text(HAND_RUN)
    return [str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]


@pytest.mark.parametrize("measure", HAND_MEASURES)
def test_each_family_by_hand(hand, measure):
    e = explain(*hand, measure, "1")
    expected = _by_hand()
    (side,) = e.sides
    for line in side.values:
        assert side.own[line] == pytest.approx(expected[line], abs=1e-12), line
        assert bits(side.own[line]) == bits(side.values[line]), line


def test_average_precision_rows_by_hand(hand):
    e = explain(*hand, "map", "1")
    rows = e.sides[0].rows
    assert [r["docno"] for r in rows] == [b"d1", b"d2", b"dx", b"d4", b"d6", b"d5"]
    assert [r["counted"] for r in rows] == [True, True, False, False, True, True]
    assert [r["term"] for r in rows] == [1.0, 1.0, None, None, pytest.approx(3 / 5), pytest.approx(4 / 6)]
    assert e.parts == [("R (judged with grade >= 1)", 6.0)]
    assert "/ R" in e.formula
    # the relevant documents it misses: d3 and d7, highest grade first
    assert [m["docno"] for m in e.missed] == [b"d3", b"d7"]


def test_a_tie_group_beyond_the_cutoff_is_not_listed(hand):
    assert explain(*hand, "P.2", "1").ties == []  # d6 and d5 tie at ranks 5 and 6
    assert [len(t["docs"]) for t in explain(*hand, "P.5", "1").ties] == [2]
    assert len(explain(*hand, "P.2", "1").sides[0].rows) == 2


def test_relevance_level_and_rbp_weights_by_hand(hand):
    e = explain(*hand, "recall.5", "1", relevance_level=3)  # R = 2 (d1, d3): d1 in the first 5
    assert e.sides[0].own["recall_5"] == 1 / 2
    rows = explain(*hand, "rbp.p=0.5", "1").sides[0].rows
    assert [r["weight"] for r in rows] == [1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125]
    assert [r["gain"] for r in rows] == [1.0, pytest.approx(2 / 3), 0.0, 0.0, pytest.approx(2 / 3),
                                         pytest.approx(1 / 3)]
    rows = explain(*hand, "err_cut.3", "1").sides[0].rows
    assert [r["gain"] for r in rows] == [7 / 16, 3 / 16, 0.0]
    assert [r["weight"] for r in rows] == [1.0, 9 / 16, (9 / 16) * (13 / 16)]


def test_relstring_and_the_text_of_a_non_dcg_measure(hand):
    e = explain(*hand, "relstring.4", "1")
    assert "".join(chr(int(x)) for x in e.sides[0].own_slots) == "32-0"
    out = run_cli(["explain", "-m", "map", "--query", "1", *hand])
    assert out.rc == 0 and out.stderr == ""
    text = out.stdout.decode()
    assert "formula: AP = (sum of the precision at each relevant retrieved document) / R" in text
    assert "R (judged with grade >= 1): 6" in text
    row5 = [line.split() for line in text.splitlines() if line.split()[:2] == ["5", "d6"]][0]
    assert row5[-3:] == ["0.6000", "2.6000", "0.4333"]
    assert f"map  {(1 + 1 + 3 / 5 + 4 / 6) / 6:.4f}" in text
    doc = json.loads(run_cli(["explain", "-m", "P.5", "--format", "json", "--query", "1", *hand]).stdout)
    assert doc["columns"] == ["counted", "count", "value"]
    assert doc["sides"][0]["values"] == [{"line": "P_5", "cutoff": 5, "value": 0.6, "explained": 0.6}]


# ---------------------------------------------------------------- Compat, by hand


def test_compat_by_hand_on_the_worked_example():
    """Ranking d1..d6 (grades 3 2 3 0 1 2); the ideal ranking, grade descending then score:
    d1 d3 d2 d6 d5. Documents both first-d lists share, worked out here: 1 1 3 3 4 5."""
    e = explain(*W, "Compat(p=0.8)", "1")
    (side,) = e.sides
    shared = [1, 1, 3, 3, 4, 5]
    weights = [0.8 ** i for i in range(6)]
    rbo = sum(w * s / d for w, s, d in zip(weights, shared, range(1, 7))) / sum(weights)
    best = sum(w * min(d, 5) / d for w, d in zip(weights, range(1, 7))) / sum(weights)
    assert side.own["Compat(p=0.8)"] == pytest.approx(rbo / best, abs=1e-12)
    assert bits(side.own["Compat(p=0.8)"]) == bits(side.values["Compat(p=0.8)"])
    rows = side.rows
    assert [r["count"] for r in rows] == shared
    assert [r["counted"] for r in rows] == [True, True, True, False, True, True]
    assert [r["ideal_detail"] for r in rows] == ["d1 (3)", "d3 (3)", "d2 (2)", "d6 (2)", "d5 (1)", None]
    assert [r["weight"] for r in rows] == pytest.approx(weights)
    assert rows[-1]["value"] == pytest.approx(rbo, abs=1e-12)
    assert e.docno_ascending and e.to_dict()["tie_order"] == "docno ascending"
    plain = explain(*W, "Compat(normalize=False)", "1").sides[0]
    p95 = [0.95 ** i for i in range(6)]
    assert plain.own["Compat(normalize=False)"] == pytest.approx(
        sum(w * s / d for w, s, d in zip(p95, shared, range(1, 7))) / sum(p95), abs=1e-12)


def test_compat_ranks_ties_by_docno_ascending_and_goes_on_to_the_ideals_depth(tmp_path):
    # b and a tie: Compat ranks a first (trec_eval would rank b first); the ideal (c, a, e)
    # is longer than the ranking (a, b): depths to 3, the third without a ranked document
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 e 1\n")
    (tmp_path / "r").write_text("1 Q0 b 1 1.0 t\n1 Q0 a 2 1.0 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    e = explain(*files, "Compat", "1")
    rows = e.sides[0].rows
    assert [r["docno"] for r in rows] == [b"a", b"b", None]
    assert [r["ideal_detail"] for r in rows] == ["c (2)", "a (1)", "e (1)"]
    assert [r["count"] for r in rows] == [0, 1, 1]
    assert [d["docno"] for d in e.ties[0]["docs"]] == [b"a", b"b"]
    text = run_cli(["explain", "-m", "Compat", "--query", "1", *files]).stdout.decode()
    assert "ordered by docno ascending as Compat ranks them" in text
    assert bits(e.sides[0].own["Compat"]) == bits(Evaluator(files[0], measures=["Compat"]).evaluate(
        files[1]).per_query["1"]["Compat"])


def test_accuracy_ranks_ties_in_the_run_order_by_hand(tmp_path):
    """a (0) and b (1) tie, a first in the run (trec_eval would put b first); c relevant, x not
    in the qrels (grade 0). Ranking a, b, c, x: R 2, N 2, S = 1 (a above b) + 1 (a above c)."""
    (tmp_path / "q").write_text("1 0 a 0\n1 0 b 1\n1 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 0.5 t\n1 Q0 x 4 0.2 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    e = explain(*files, "Accuracy", "1")
    (side,) = e.sides
    assert side.own["Accuracy"] == 1 - 2 / (2 * 2)
    assert bits(side.own["Accuracy"]) == bits(side.values["Accuracy"])
    assert [r["docno"] for r in side.rows] == [b"a", b"b", b"c", b"x"]
    assert [r["term"] for r in side.rows] == [None, 1.0, 1.0, None]
    assert [d["docno"] for d in e.ties[0]["docs"]] == [b"a", b"b"] and e.to_dict()["tie_order"] == "run order"
    text = run_cli(["explain", "-m", "Accuracy", "--query", "1", *files]).stdout.decode()
    assert "kept in the run's order as Accuracy ranks them" in text


# ---------------------------------------------------------------- the diversity measures

DIVERSITY = CASES.parent.parent / "diversity"
#: Every diversity measure explain shows, with parameters of each kind; the cutoff measures
#: also at every depth (their rows' value at rank k is the evaluation's @k).
DIVERSE = ["ERR_IA@{k}", "nERR_IA@{k}", "alpha_DCG@{k}", "alpha_nDCG@{k}", "alpha_nDCG(alpha=0.3)@{k}",
           "alpha_DCG(rel=2,alpha=0.7)@{k}", "nERR_IA(alpha=1.0)@{k}", "nERR_IA(judged_only=True)@{k}",
           "P_IA@{k}", "P_IA(rel=2)@{k}", "StRecall@{k}", "StRecall(rel=2)@{k}"]
WHOLE = ["NRBP", "nNRBP", "NRBP(alpha=0.2,beta=0.9)", "nNRBP(beta=0.8,rel=2)", "nNRBP(alpha=0.0,beta=1.0)",
         "AP_IA", "AP_IA(rel=3)", "AP_IA(judged_only=True,rel=2)"]


def _subtopic_collection(rng) -> tuple[str, str]:
    """Random subtopic qrels and run (as text): graded, binary and negative judgments, documents
    judged for several subtopics, unjudged documents, score ties, queries on one side only."""
    qrels, run = [], []
    subtopics = [f"s{s}" for s in rng.sample(range(1, 9), rng.randint(1, 5))]
    grades = rng.choice([(0, 1), (-1, 0, 1, 2, 3), (0, 1, 2), (1,)])
    queries = [str(q) for q in rng.sample(range(1, 9), rng.randint(1, 4))]
    for q in queries:
        docs = [f"d{d}" for d in rng.sample(range(30), rng.randint(1, 12))]
        for st in rng.sample(subtopics, rng.randint(1, len(subtopics))):
            qrels += [f"{q} {st} {d} {rng.choice(grades)}\n" for d in rng.sample(docs, rng.randint(1, len(docs)))]
    rng.shuffle(qrels)
    for q in queries + ["99"]:
        for d in rng.sample(range(30), rng.randint(1, 25)):
            score = float(rng.randint(0, 6)) if rng.random() < 0.5 else rng.random()
            run.append(f"{q} Q0 d{d} 0 {score!r} r\n")
    return "".join(qrels), "".join(run)


def _diversity_files(tmp_path) -> list[tuple[str, str]]:
    import random

    rng = random.Random(22)
    out = [(str(DIVERSITY / "qrels.txt"), str(DIVERSITY / "run.txt"))]
    for i in range(25):
        qrels, run = _subtopic_collection(rng)
        (tmp_path / f"q{i}").write_text(qrels)
        (tmp_path / f"r{i}").write_text(run)
        out.append((str(tmp_path / f"q{i}"), str(tmp_path / f"r{i}")))
    return out


@pytest.mark.parametrize("kw", [{}, {"max_docs": 4}, {"judged_only": True, "relevance_level": 2},
                                {"compat": "9", "relevance_level": 0}])
def test_diversity_explanations_are_the_evaluations_at_every_rank(tmp_path, kw):
    """Every diversity measure on the diversity test collection and 25 random ones: each line's
    value (the kernel's and the explanation's own) is the evaluation's, bit for bit; for the cutoff
    measures, the rows' value at every rank k (1..20) is the evaluation's @k."""
    checked = 0
    for qrels, run in _diversity_files(tmp_path):
        for measure in DIVERSE:
            names = [measure.format(k=k) for k in range(1, 21)]
            result = Evaluator(qrels, measures=names, rel_format="subtopics", **kw).evaluate(run)
            for qid, values in result.per_query.items():
                e = explain(qrels, run, names[-1], qid, rel_format="subtopics", **kw)
                (side,) = e.sides
                assert bits(side.values[names[-1]]) == bits(values[names[-1]]), (qrels, measure, qid)
                assert bits(side.own[names[-1]]) == bits(values[names[-1]]), (qrels, measure, qid, "own")
                assert len(side.rows) == 20
                for k, row in enumerate(side.rows, 1):
                    assert bits(row["value"]) == bits(values[names[k - 1]]), (qrels, measure, qid, k)
                    checked += 1
        result = Evaluator(qrels, measures=WHOLE, rel_format="subtopics", **kw).evaluate(run)
        for qid, values in result.per_query.items():
            for measure in WHOLE:
                (side,) = explain(qrels, run, measure, qid, rel_format="subtopics", **kw).sides
                assert bits(side.values[measure]) == bits(values[measure]), (qrels, measure, qid)
                assert bits(side.own[measure]) == bits(values[measure]), (qrels, measure, qid, "own")
                checked += 1
    assert checked > 10_000


def test_diversity_rows_by_hand(tmp_path):
    """a is relevant to subtopics 1 and 2, b to 1; the ranking b, a, c (c unjudged); alpha 0.5.
    Novelty gains 1 (b: 1 new), 0.5 + 1 (a: 1 seen once, 2 new), 0; ndeval's ideal: a (gain 2),
    then b (0.5). alpha-DCG@k from k = 2 is over the sum with both subtopics at every rank."""
    (tmp_path / "q").write_text("7 1 a 1\n7 2 a 1\n7 1 b 1\n7 2 b 0\n")
    (tmp_path / "r").write_text("7 Q0 b 1 3 t\n7 Q0 a 2 2 t\n7 Q0 c 3 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    e = explain(*files, "alpha_nDCG@3", "7", rel_format="subtopics")
    rows = e.sides[0].rows
    assert [r["docno"] for r in rows] == [b"b", b"a", b"c"]
    assert [r["detail"] for r in rows] == ["1:1", "1:2,2:1", ""]
    assert [r["gain"] for r in rows] == [1.0, 1.5, 0.0]
    assert [r["count"] for r in rows] == [1, 2, 2]  # subtopics covered
    assert [r["ideal_detail"] for r in rows] == ["a 1:1,2:1", "b 1:2", None]
    assert [r["ideal_gain"] for r in rows] == [2.0, 0.5, None]
    disc = [1.0, math.log(2) / math.log(3), math.log(2) / math.log(4)]
    run_sum = [1.0, 1.0 + 1.5 * disc[1], 1.0 + 1.5 * disc[1]]
    ideal_sum = [2.0, 2.0 + 0.5 * disc[1], 2.0 + 0.5 * disc[1]]
    bound = [2.0, 2.0 + 1.0 * disc[1], 2.0 + 1.0 * disc[1] + 0.5 * disc[2]]
    assert [r["sum"] for r in rows] == pytest.approx(run_sum)
    assert [r["bound"] for r in rows] == pytest.approx(bound)
    expected = [1.0 / 2.0] + [(run_sum[i] / bound[i]) / (ideal_sum[i] / bound[i]) for i in (1, 2)]
    assert [r["value"] for r in rows] == pytest.approx(expected)
    p = explain(*files, "P_IA@2", "7", rel_format="subtopics").sides[0]
    assert p.own["P_IA@2"] == pytest.approx(3 / (2 * 2))  # pairs (b,1), (a,1), (a,2)
    ap = explain(*files, "AP_IA", "7", rel_format="subtopics")
    # subtopic 1: b at 1, a at 2: (1/1 + 2/2) / 2; subtopic 2: a at 2: (1/2) / 1
    assert ap.sides[0].own["AP_IA"] == pytest.approx((1.0 + 0.5) / 2)
    assert [v for _, v in ap.parts[1:]] == pytest.approx([1.0, 0.5])
    out = run_cli(["explain", "-R", "subtopics", "-m", "alpha_nDCG@3", "--query", "7", *files])
    assert out.rc == 0 and out.stderr == ""
    text = out.stdout.decode()
    assert "subtopics:count" in text and "ndeval's greedy ideal" in text and "1:2,2:1" in text
    doc = json.loads(run_cli(["explain", "-R", "subtopics", "--format", "json", "-m", "NRBP", "--query", "7",
                              *files]).stdout)
    assert doc["options"]["rel_format"] == "subtopics" and doc["tie_order"] == "docno ascending"
    assert [r["sides"][0]["detail"] for r in doc["rows"]] == ["1:1", "1:2,2:1", ""]


def test_a_diversity_measure_needs_subtopics():
    message = _one_line_error(["explain", "-m", "alpha_nDCG@5", "--query", "1", *W], 1)
    assert "-R subtopics" in message
    message = _one_line_error(["explain", "-R", "subtopics", "-m", "map", "--query", "101",
                               str(DIVERSITY / "qrels.txt"), str(DIVERSITY / "run.txt")], 1)
    assert "'map'" in message and "-R qrels" in message


# ---------------------------------------------------------------- judgment groups and preferences

RELATIONS = CASES.parent / "relations"
#: The measures explained on each recorded case of a relevance format, beside the case's own.
RELATION_MEASURES = {
    "qrels_jg": ["map_avgjg", "P_avgjg", "P_avgjg.1,3,7", "Rprec_mult_avgjg", "Rprec_mult_avgjg.0.5,1.5"],
    "prefs": [m for m in SUPPORTED if BY_NAME[m].relevance == "prefs"],
}
RELATION_MEASURES["qrels_prefs"] = RELATION_MEASURES["prefs"]


def _relation_cases() -> list[tuple[str, str]]:
    """The judgment-group and preference cases the live conformance generator recorded, in
    each mode where the case evaluates."""
    out = []
    for c in sorted(RELATIONS.iterdir()):
        case = json.loads((c / "case.json").read_text()) if c.is_dir() else None
        if case and case["rel_format"] in RELATION_MEASURES:
            out += [(c.name, m) for m in ("10", "9") if not case["expect"].get(m, {}).get("error")]
    return out


@pytest.mark.parametrize("case_id, mode", _relation_cases())
def test_relation_explanations_are_the_evaluations(case_id: str, mode: str) -> None:
    """Each judgment-group and preference line's value, the kernel's and the one the
    explanation computes from each group's walkthrough or counts, is the evaluation's per-query
    value, bit for bit (a NaN the same NaN)."""
    case = json.loads((RELATIONS / case_id / "case.json").read_text())
    options = parsed([a for a in case["args"] if a not in ("QRELS", "RUN")])
    level = integer_option(options["level"], "-l") if options["level"] is not None else 1
    rel_format = case["rel_format"]
    kw = dict(relevance_level=level, judged_only=options["judged_only"],
              max_docs=integer_option(options["max_docs"], "-M", 0), compat=mode, rel_format=rel_format)
    qrels, run = str(RELATIONS / case_id / "qrels.txt"), str(RELATIONS / case_id / "run.txt")
    checked = 0
    for measure in RELATION_MEASURES[rel_format]:
        try:
            result = Evaluator(qrels, measures=[measure], **kw).evaluate(run)
        except TrecgainError as err:
            assert "no query has both" in str(err), err
            continue
        for qid, values in result.per_query.items():
            e = explain(qrels, run, measure, qid, **kw)
            (side,) = e.sides
            assert list(side.values) == list(values)
            for line, value in values.items():
                assert bits(side.values[line]) == bits(value), (case_id, measure, qid, line)
                assert bits(side.own[line]) == bits(value), (case_id, measure, qid, line, "own")
                checked += 1
    assert checked


def test_preferences_by_hand(tmp_path):
    """One group prefers a (level 2) to b (1) to c (0): a > b, a > c, b > c. The ranking b, a
    (c not retrieved): a > b broken; a > c and b > c fulfilled (only the preferred one retrieved)."""
    (tmp_path / "q").write_text("1 g 1 a 2\n1 g 1 b 1\n1 g 1 c 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 x 3 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    expected = {"prefs_num_prefs_poss": 3, "prefs_num_prefs_ful": 2, "prefs_num_prefs_ful_ret": 0,
                "prefs_simp": 2 / 3, "prefs_simp_ret": 0.0, "prefs_simp_imp": 2 / 3, "prefs_avgjg": 2 / 3}
    for measure, value in expected.items():
        e = explain(*files, measure, "1", rel_format="prefs")
        assert e.sides[0].own[measure] == pytest.approx(value), measure
    e = explain(*files, "prefs_simp", "1", rel_format="prefs")
    assert ("group 1: fulfilled", 2.0) in e.parts and ("group 1: possible", 3.0) in e.parts
    assert [(r["docno"], r["counted"], r["count"]) for r in e.sides[0].rows] == \
        [(b"b", True, 1), (b"a", True, 2), (b"x", False, 2)]
    out = run_cli(["explain", "-R", "prefs", "-m", "prefs_pair", "--query", "1", *files])
    assert out.rc == 0 and "share of those groups the ranking agrees with" in out.stdout.decode()


def test_judgment_groups_by_hand(tmp_path):
    """Groups A (a relevant, b not) and B (b relevant); ranking b, a, c: AP 1/2 in A, 1 in B."""
    (tmp_path / "q").write_text("1 A a 1\n1 A b 0\n1 B b 2\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 c 3 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    e = explain(*files, "map_avgjg", "1", rel_format="qrels_jg")
    assert e.sides[0].own["map_avgjg"] == pytest.approx((0.5 + 1.0) / 2)
    assert e.parts == [("judgment groups", 2.0), ("group A", 0.5), ("group B", 1.0)]
    assert [r["detail"] for r in e.sides[0].rows] == ["A:0,B:2", "A:1,B:-", "A:-,B:-"]
    out = run_cli(["explain", "-R", "qrels_jg", "-m", "P_avgjg.1", "--query", "1", *files])
    assert out.rc == 0 and "group A at 1: 0" in out.stdout.decode() and "group B at 1: 1" in out.stdout.decode()


def test_the_readme_examples_are_real_output(monkeypatch):
    """Each `$ trecgain explain ...` block of the README's explain section (a command without a
    pipe, its output not abbreviated with '...') prints what the README shows."""
    import shlex

    from conftest import ROOT

    monkeypatch.chdir(ROOT)
    text = (ROOT / "README.md").read_text()
    section = text.split("## Explaining a number: trecgain explain", 1)[1].split("\n## ", 1)[0]
    blocks = [b for b in section.split("```")[1::2] if b.lstrip("\n").startswith("$ trecgain explain")]
    checked = []
    for block in blocks:
        command, _, shown = block.strip("\n").partition("\n")
        if "|" in command or "..." in shown.splitlines():
            continue
        out = run_cli(shlex.split(command)[2:])
        assert out.rc == 0, out.stderr
        assert out.stdout.decode().rstrip("\n") == shown.rstrip("\n"), command
        checked.append(command)
    assert any("Compat" in c for c in checked) and any("-R subtopics" in c for c in checked)
    assert any("INST" in c for c in checked)
