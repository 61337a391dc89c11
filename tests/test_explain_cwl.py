"""`trecgain explain` for the C/W/L measures under ir_measures' names (INST, INSQ, BPM@k, SDCG@k,
NERR8@k, NERR9@k, NERR10, NERR11, RBP(rel=...)) and for runid and num_q (issue 22).

Expectations: the evaluation's per-query values (explain's value, and the value it computes from
its own rows, must be the evaluation's bit for bit) on every conformance case and on random
collections, where both must also be ir_measures' cwl_eval provider's (the reference) bit for
bit; the provider's ranking rule (score descending, equal scores in the run's order: a stable
sort) written out here; and C/W/L arithmetic worked by hand below (W(1) = 1 / (1 + C(1) +
C(1)C(2) + ...), W(i) = W(1) C(1)...C(i-1), EU = sum of W(i) gain(i) to the depth, 1000).
runid is trec_eval's: the tag of the run's last line read; num_q counts the queries evaluated.
"""

from __future__ import annotations

import json
import logging
import math
import random
import struct

import pytest

from conftest import CASES, explain_table, load_case, run_cli
from trecgain import Evaluator, TrecgainError
from trecgain.cli import parsed
from trecgain.cli.console import integer_option
from trecgain.explain import explain
from trecgain.read import read_qrels, read_run

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")

from test_cwl_main import by_query, collection, spec  # noqa: E402

logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)  # its notes on min_rel/max_rel


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


#: Each of the nine, with several parameter settings (gains scaled, clipped, min_rel below 0,
#: cutoffs 1 to past the depth).
SETTINGS = ["INST(max_rel=3)", "INST(T=2.5,min_rel=1,max_rel=2)", "INSQ(T=0.5,max_rel=4)", "INSQ(max_rel=1)",
            "BPM(T=1,max_rel=2)@5", "BPM(T=3,max_rel=4)@1000", "SDCG(max_rel=3)@10", "SDCG(min_rel=-1,max_rel=1)@3",
            "NERR8(max_rel=2)@5", "NERR8(max_rel=4)@1", "NERR9(max_rel=3)@10", "NERR9(max_rel=1)@2",
            "NERR10(max_rel=3)", "NERR10(p=0.5,max_rel=1)", "NERR11(max_rel=2)", "NERR11(T=3,min_rel=1,max_rel=4)",
            "RBP(rel=1)", "RBP(p=0.5,rel=2)", "RBP(p=0.99,rel=0)"]

CASE_IDS = sorted(p.name for p in CASES.iterdir() if p.is_dir())
#: (case, mode) where the case evaluates: mode 10 on every case, 9 (float32 ties for trec_eval's
#: measures, not for these) on every third.
EVALUATED = [(c, mode) for i, c in enumerate(CASE_IDS) for mode in ("10", "9")
             if (mode == "10" or i % 3 == 0) and not load_case(c)["expect"][mode].get("error")]


def _check(e, values: dict[str, float]) -> float:
    """The explanation's value and its own are the evaluation's (`values`: the query's, by line
    name), bit for bit; so is its last row's expected utility when the rows reach the ranking's
    end (the depth, 1000, at most). Returns the value."""
    (side,) = e.sides
    (line,) = side.values  # named as ir_measures names the measure (defaults left out)
    value = values[line]
    assert bits(side.values[line]) == bits(value) == bits(side.own[line]), (e.measure, e.query)
    if side.rows and len(side.rows) == min(e.counts["ranked"], 1000):
        assert bits(side.rows[-1]["value"]) == bits(value), (e.measure, e.query, "last row")
    return value


@pytest.mark.parametrize("case_id, mode", EVALUATED)
def test_explanations_are_the_evaluations_on_the_conformance_cases(case_id: str, mode: str) -> None:
    case = load_case(case_id)
    options = parsed([a for a in case["args"] if a not in ("QRELS", "RUN")])
    level = integer_option(options["level"], "-l") if options["level"] is not None else 1
    kw = dict(relevance_level=level, judged_only=options["judged_only"],
              max_docs=integer_option(options["max_docs"], "-M", 0), compat=mode)
    qrels = read_qrels(str(CASES / case_id / "qrels.txt"))
    run = read_run(str(CASES / case_id / "run.txt"))
    try:
        result = Evaluator(qrels, measures=[*SETTINGS, "runid", "num_q"], **kw).evaluate(run)
    except TrecgainError as err:  # under 9.x's rules no query may be left
        assert "no query has both" in str(err), err
        return
    for qid, values in result.per_query.items():
        for measure in SETTINGS:
            _check(explain(qrels, run, measure, qid, **kw), values)
        tag = explain(qrels, run, "runid", qid, **kw).sides[0]
        assert tag.values == tag.own == {"runid": result.aggregate["runid"]}
        count = explain(qrels, run, "num_q", qid, **kw)
        assert count.sides[0].values == count.sides[0].own == {"num_q": 1.0}
        evaluated = dict(count.parts)["queries evaluated: the qrels queries the run has (the summary line)"]
        assert evaluated == result.aggregate["num_q"]


def _ranking(docs: dict[str, float]) -> list[str]:
    """The provider's ranking: score descending, equal scores in the order given (a stable sort)."""
    return [d for d, _ in sorted(docs.items(), key=lambda item: -item[1])]


def test_explanations_are_the_evaluations_and_the_providers_on_random_collections():
    """Ties of scores, graded, binary and negative judgments, unjudged documents, queries with
    nothing relevant, rankings deeper than cwl_eval's 1000 ranks: each explained query's value
    (and the one from its rows) is the evaluation's and ir_measures' provider's, bit for bit, its
    rows are the provider's ranking, and its columns follow the framework's identities."""
    provider = ir_measures.providers.registry["cwl_eval"]
    rng = random.Random(2212)
    explained = 0
    for case in range(150):
        grades = rng.choice([(0, 1), (-1, 0, 1, 2, 3), (0, 1, 2), (0,), (-2, 0, 4), (0, 1, 2, 3, 4)])
        qrels, run = collection(rng, grades)
        measures = list({str(m): m for m in (spec(rng) for _ in range(3))}.values())
        names = [str(m) for m in measures]
        theirs = by_query(provider.iter_calc(measures, qrels, run))
        result = Evaluator(qrels, names).evaluate(run)
        for qid, values in result.per_query.items():
            for name in names:
                e = explain(qrels, run, name, qid)
                assert bits(_check(e, values)) == bits(theirs[qid, name]), (case, name, qid)
                rows = e.sides[0].rows
                assert [r["docno"].decode() for r in rows] == _ranking(run[qid])[:1000], (case, name, qid)
                _identities(rows, e.sides[0].values[name])
                explained += 1
    assert explained > 1000


def _identities(rows: list[dict], value: float) -> None:
    """W(i + 1) = W(i) C(i); the expected utility to rank i adds W(i) gain(i); a gain is in [0, 1]."""
    total = 0.0
    for here, after in zip(rows, rows[1:]):
        assert after["weight"] == pytest.approx(here["weight"] * here["continuation"], rel=1e-12, abs=1e-300)
    for r in rows:
        assert 0.0 <= r["gain"] <= 1.0
        total += r["weight"] * r["gain"]
        assert r["value"] == pytest.approx(total, rel=1e-12, abs=1e-15)
    assert value == pytest.approx(total, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------- by hand

#: grades in the run's order: a 1, b 2 (tied with a, listed after it), c 0, x not judged, y 1;
#: d (grade 2) is not retrieved.
HAND_QRELS = "1 0 a 1\n1 0 b 2\n1 0 c 0\n1 0 d 2\n1 0 y 1\n2 0 z 1\n"
HAND_RUN = "1 Q0 a 1 5 first\n1 Q0 b 2 5 first\n1 Q0 c 3 4 first\n1 Q0 x 4 3 first\n1 Q0 y 5 2 first\n# a comment\n" \
           "2 Q0 z 1 1 last\n\n"


@pytest.fixture
def hand(tmp_path):
    (tmp_path / "q.txt").write_text(HAND_QRELS)
    (tmp_path / "r.txt").write_text(HAND_RUN)
    return [str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]


#: The gains of the five ranked documents (max_rel=2: grade / 2; RBP(rel=1): 1 from grade 1 on).
GAINS = [0.5, 1.0, 0.0, 0.0, 0.5]


def _by_hand() -> dict[str, tuple[list[float], list[float]]]:
    """{measure: (C(i), W(i)) on the five ranked documents}: W(1) = 1 / (1 + C(1) + C(1)C(2) + ...)
    to the depth (1000), W(i) = W(1) C(1)...C(i-1)."""
    out = {}
    # BPM(T=1,max_rel=2)@10: the gain so far (0.5, 1.5) reaches T = 1 at rank 2: C = 1, 0, 0...
    out["BPM(T=1,max_rel=2)@10"] = ([1, 0, 0, 0, 0], [0.5, 0.5, 0, 0, 0])
    # SDCG(max_rel=2)@3: C(i) = log2(i + 1) / log2(i + 2) for i < 3: products 1, 1/log2 3, 1/2
    s = 1 + 1 / math.log2(3) + 1 / 2
    out["SDCG(max_rel=2)@3"] = ([1 / math.log2(3), math.log2(3) / 2, 0, 0, 0],
                                [1 / s, 1 / math.log2(3) / s, 0.5 / s, 0, 0])
    # NERR8(max_rel=2)@3: C(i) = 1 - gain for i < k - 1 = 2: 0.5, 0
    out["NERR8(max_rel=2)@3"] = ([0.5, 0, 0, 0, 0], [2 / 3, 1 / 3, 0, 0, 0])
    # NERR9(max_rel=2)@3: C(1) = (1/2)(1 - 0.5) = 1/4, C(2) = (2/3)(1 - 1) = 0
    out["NERR9(max_rel=2)@3"] = ([0.25, 0, 0, 0, 0], [0.8, 0.2, 0, 0, 0])
    # NERR10(p=0.5,max_rel=2): C(i) = p (1 - gain)
    out["NERR10(p=0.5,max_rel=2)"] = ([0.25, 0, 0.5, 0.5, 0.25], [0.8, 0.2, 0, 0, 0])
    # NERR11(T=1,max_rel=2): C(i) = ((i + 1) / (i + 2))^2 (1 - gain)
    out["NERR11(T=1,max_rel=2)"] = ([2 / 9, 0, (4 / 5) ** 2, (5 / 6) ** 2, (6 / 7) ** 2 / 2],
                                    [9 / 11, 2 / 11, 0, 0, 0])
    # INST(T=0.25,max_rel=2): gain so far 0.5 1.5 1.5 1.5 2, T_i = 0.25 - that:
    # C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2 = (0/1)^2, (0/1)^2, (1/2)^2, (2/3)^2, (2.5/3.5)^2
    out["INST(T=0.25,max_rel=2)"] = ([0, 0, 1 / 4, 4 / 9, (5 / 7) ** 2], [1, 0, 0, 0, 0])
    # INSQ(T=1,max_rel=2): C(i) = ((i + 1) / (i + 2))^2, so C(1)...C(i-1) = 4 / (i + 1)^2 (telescoping)
    products = [4 / (i + 1) ** 2 for i in range(1, 1001)]
    out["INSQ(T=1,max_rel=2)"] = ([((i + 1) / (i + 2)) ** 2 for i in range(1, 6)],
                                  [p / sum(products) for p in products[:5]])
    # RBP(p=0.5,rel=1): C = p; W(i) = 0.5^(i-1) / (2 - 2^-999)
    out["RBP(p=0.5,rel=1)"] = ([0.5] * 5, [0.5 ** i / (2 - 2.0 ** -999) for i in range(5)])
    return out


@pytest.mark.parametrize("measure", list(_by_hand()))
def test_each_user_model_by_hand(hand, measure):
    continuation, weights = _by_hand()[measure]
    gains = [1.0, 1.0, 0.0, 0.0, 1.0] if measure.startswith("RBP") else GAINS
    e = explain(*hand, measure, "1")
    rows = e.sides[0].rows
    assert [r["docno"] for r in rows] == [b"a", b"b", b"c", b"x", b"y"]  # a before b: the run's order
    assert [r["relevance"] for r in rows] == [1, 2, 0, -1, 1]
    assert [r["gain"] for r in rows] == gains
    assert [r["continuation"] for r in rows] == pytest.approx(continuation, rel=1e-15, abs=1e-15)
    assert [r["weight"] for r in rows] == pytest.approx(weights, rel=1e-12, abs=1e-15)
    # ranks past the fifth have gain 0: EU is the sum over the five
    value = sum(w * g for w, g in zip(weights, gains))
    (line,) = e.sides[0].values  # named as ir_measures names it (T=1 is the default: left out)
    assert e.sides[0].own[line] == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert bits(e.sides[0].own[line]) == bits(e.sides[0].values[line]) == bits(rows[-1]["value"])


def test_inst_rows_by_hand(hand):
    """INST(T=2,max_rel=2): gains 0.5 1 0 0 0.5, so far 0.5 1.5 1.5 1.5 2; T_i = T - so far;
    C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2."""
    e = explain(*hand, "INST(T=2,max_rel=2)", "1")
    rows = e.sides[0].rows
    so_far = [0.5, 1.5, 1.5, 1.5, 2.0]
    assert [r["sum"] for r in rows] == so_far
    expected = [((i + 2 + (2 - g) - 1) / (i + 2 + (2 - g))) ** 2 for i, g in zip(range(1, 6), so_far)]
    assert [r["continuation"] for r in rows] == pytest.approx(expected, rel=1e-15)
    assert e.columns == [("gain", "gain"), ("sum", "gain so far"), ("continuation", "C(i)"), ("weight", "W(i)"),
                         ("value", "EU to rank")]
    assert dict(e.parts)["T (the total gain wanted)"] == 2 and dict(e.parts)["max_rel (the grade of gain 1)"] == 2
    assert "T_i = T - (gain so far)" in e.formula and "run's order" in e.formula
    assert e.run_order and [d["docno"] for d in e.ties[0]["docs"]] == [b"a", b"b"]
    assert [(m["docno"], m["gain"]) for m in e.missed] == [(b"d", 1.0)]  # d: gain 1, not retrieved


def test_max_docs_and_judged_only(hand):
    """-M 2 keeps the provider's first two (a, b: gains 0.5, 1); -J does not drop x (the provider
    ranks every retrieved document; an unjudged one has gain 0)."""
    cut = explain(*hand, "NERR8(max_rel=2)@3", "1", max_docs=2)
    assert [r["docno"] for r in cut.sides[0].rows] == [b"a", b"b"]
    assert cut.sides[0].own["NERR8(max_rel=2)@3"] == pytest.approx(2 / 3 * 0.5 + 1 / 3 * 1, rel=1e-15)
    judged = explain(*hand, "RBP(p=0.5,rel=1)", "1", judged_only=True)
    assert [r["docno"] for r in judged.sides[0].rows] == [b"a", b"b", b"c", b"x", b"y"]
    assert judged.counts["ranked"] == 5


def test_runid_and_num_q_by_hand(hand):
    """runid: the sixth field of the run's last line read (line 7: comments and blank lines are not
    read as results); num_q: query 1 counts 1, the run's two queries the qrels judge are evaluated."""
    tag = explain(*hand, "runid", "1")
    assert tag.sides[0].values == tag.sides[0].own == {"runid": "last"}
    assert tag.parts == [("the run's last line read", 7.0)] and "'last'" in tag.formula
    assert tag.sides[0].rows == [] and tag.missed == [] and tag.ties == []
    count = explain(*hand, "num_q", "1")
    assert count.sides[0].values == {"num_q": 1.0}
    assert [v for _, v in count.parts] == [1.0, 2.0, 0.0, 0.0]
    assert Evaluator(hand[0], ["runid", "num_q"]).evaluate(hand[1]).aggregate == {"runid": "last", "num_q": 2}


def test_num_q_counts_what_the_summary_counts(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 a 1\n3 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n9 Q0 a 1 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    parts = dict(explain(*files, "num_q", "2").parts)
    assert list(parts.values()) == [1.0, 2.0, 1.0, 1.0]  # 1 and 2 evaluated; 3 not in the run; 9 not judged
    assert Evaluator(files[0], ["num_q"]).evaluate(files[1]).aggregate["num_q"] == 2


# ---------------------------------------------------------------- the command line, text and JSON


def test_the_command_line_text(hand):
    out = run_cli(["explain", "-m", "INST(T=2,max_rel=2)", "--query", "1", *hand])
    assert out.rc == 0 and out.stderr == ""
    text = out.stdout.decode()
    e = explain(*hand, "INST(T=2,max_rel=2)", "1")
    rows = explain_table(text)
    assert [r[1] for r in rows] == ["a", "b", "c", "x", "y"]
    assert rows[3][3] == "-" and rows[1][4] == "1" and rows[0][4] == "0.5"  # grade, gain
    for cells, row in zip(rows, e.sides[0].rows):
        assert cells[-4:] == [f"{row['sum']:.4f}", f"{row['continuation']:.4f}", f"{row['weight']:.4f}",
                              f"{row['value']:.4f}"]
    value = e.sides[0].values["INST(T=2,max_rel=2)"]
    assert f"INST(T=2,max_rel=2)  {value:.4f} ({value!r})" in text
    assert "judged documents the ranking misses (a positive gain under INST's rule): 1" in text
    assert "kept in the run's order as INST ranks them" in text and "a (rank 1), b (rank 2)" in text


def test_the_command_line_json(hand):
    args = ["explain", "--format", "json", "-m", "SDCG(max_rel=2)@3", "-m", "runid", "-m", "num_q", "--query", "1",
            *hand]
    out = run_cli(args)
    assert out.rc == 0 and out.stderr == ""
    sdcg, runid, num_q = json.loads(out.stdout)
    assert sdcg["columns"] == ["gain", "continuation", "weight", "value"] and sdcg["tie_order"] == "run order"
    e = explain(*hand, "SDCG(max_rel=2)@3", "1")
    assert [r["sides"][0] for r in sdcg["rows"]] == [{k: row[k] for k in sdcg["columns"]} for row in e.sides[0].rows]
    (value,) = sdcg["sides"][0]["values"]
    assert value["value"] == value["explained"] == e.sides[0].values["SDCG(max_rel=2)@3"]
    assert runid["sides"][0]["values"] == [{"line": "runid", "cutoff": None, "value": "last", "explained": "last"}]
    assert runid["rows"] == [] and num_q["sides"][0]["values"][0]["value"] == 1.0
    text = run_cli(args[:1] + args[3:]).stdout.decode()
    assert "runid  last\n" in text and "num_q  1.0000 (1.0)" in text and "tied scores" not in text.split("runid")[1]


def test_a_cwl_measure_without_max_rel_is_one_line_on_stderr(hand):
    out = run_cli(["explain", "-m", "INST", "--query", "1", *hand])
    assert out.rc == 1 and out.stdout == b""
    assert out.stderr.count("\n") == 1 and "needs max_rel" in out.stderr and "Traceback" not in out.stderr
    with pytest.raises(TrecgainError, match="min_rel .* must be less than max_rel"):
        explain(*hand, "SDCG(max_rel=1,min_rel=1)@5", "1")


def test_compat_9_leaves_the_doubles_and_an_empty_ranking_is_0():
    """Under --compat 9 trec_eval's measures tie 0.2 and 0.2 + 1e-12 (one float32); the C/W/L
    measures rank the doubles, so only a and c (0.2 both) tie, in the run's order. A query given
    with nothing retrieved has no rows and EU 0 (every gain 0)."""
    qrels = {"1": {"a": 1, "b": 2}}
    run = {"1": {"a": 0.2, "b": 0.2 + 1e-12, "c": 0.2}}
    e = explain(qrels, run, "RBP(rel=1)", "1", compat="9")
    assert [r["docno"] for r in e.sides[0].rows] == [b"b", b"a", b"c"]
    assert [[d["docno"] for d in t["docs"]] for t in e.ties] == [[b"a", b"c"]]
    assert [[d["docno"] for d in t["docs"]] for t in explain(qrels, run, "ndcg", "1", compat="9").ties] == \
        [[b"c", b"b", b"a"]]
    empty = explain(qrels, {"1": {}}, "INST(max_rel=2)", "1")
    assert empty.sides[0].rows == [] and empty.sides[0].values == {"INST(max_rel=2)": 0.0}
    assert [m["docno"] for m in empty.missed] == [b"b", b"a"]
