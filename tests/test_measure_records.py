"""The measure records: the core's table (core/src/measures/mod.rs, `KERNELS`, read through
`_core.kernels()`) is the only description of a measure; the Python registry, help,
completion, compare's, explain's and the tie rule's lists are derived from it.  A contract
test compares each record with what its kernel writes; a source check finds no hand-kept list
of measure names left in the package; a measure registered by a test is evaluated, printed,
described, completed and compared like any other."""

from __future__ import annotations

import ast
import math
import re

import pytest

from conftest import ROOT, run_cli
from trecgain import Evaluator, _core, comparison, explain, measures, names
from trecgain.cli import declare
from trecgain.measures import BY_NAME, REGISTRY

EXAMPLE = [str(ROOT / "testdata/example/qrels.txt"), str(ROOT / "testdata/example/run.txt")]
RECORDS = _core.kernels()
RECORDS_BY_NAME = {r["name"]: r for r in RECORDS}
FACTS = ("naming", "value", "summary", "per_query", "in_trec_eval_9", "in_trec_eval", "tie_average", "gains",
         "discounted", "rank_order", "lower_is_better", "explain", "relevance")


def _recorded_inputs(rel_format: str) -> list[str]:
    """-R, and the files of the first recorded case of a format that trec_eval evaluated."""
    import json

    for case in sorted((ROOT / "testdata/conformance/relations").iterdir()):
        meta = json.loads((case / "case.json").read_text())
        if meta["rel_format"] == rel_format and "rc" in meta["expect"].get("10", {}):
            return ["-R", rel_format, str(case / "qrels.txt"), str(case / "run.txt")]
    raise AssertionError(f"no recorded {rel_format} case")


#: The inputs of a measure of each relevance format (`relevance` of its record).
INPUTS = {"qrels": EXAMPLE, "any": EXAMPLE, "qrels_jg": _recorded_inputs("qrels_jg"),
          "prefs": _recorded_inputs("prefs"),
          "subtopics": ["-R", "subtopics", str(ROOT / "testdata/diversity/qrels.txt"),
                        str(ROOT / "testdata/diversity/run.txt")]}


def test_every_record_is_a_measure_and_every_measure_a_record():
    assert [r["name"] for r in RECORDS] == [m.name for m in REGISTRY]
    assert len({r["name"] for r in RECORDS}) == len(RECORDS)
    for r in RECORDS:
        m = BY_NAME[r["name"]]
        assert {k: getattr(m, k) for k in FACTS} == {k: r[k] for k in FACTS}, r["name"]
        assert m.default.cutoffs == tuple(r["default_cutoffs"]) and m.default.numbers == tuple(r["default_numbers"])
        assert m.parse is not measures.PARSERS["none"] or r["params"] == "none"
        assert r["help"].strip() and m.help.startswith(r["help"]), r["name"]
        assert m.ir_measures == tuple(r["ir_measures"])


def test_records_are_consistent():
    for r in RECORDS:
        name = r["name"]
        assert (r["naming"] == "cutoffs") == (r["params"] == "cutoffs") == bool(r["default_cutoffs"]), name
        assert (r["naming"] == "points") == (r["params"] == "points"), name
        if r["params"] in ("points", "numbers", "coefficients", "length", "persistence"):
            assert r["default_numbers"], name  # a request without numbers gets the record's
        assert (r["value"] == "chars") == (r["params"] == "length"), name
        if r["explain"] in ("Ndcg", "NdcgCut", "Dcg", "Ideal", "Cg"):  # the DCG family's rows
            assert r["tie_average"] and r["value"] == "float", name
        assert (r["explain"] is None) == bool(r["unexplained"]), name
        assert not r["ir_params"] or r["ir_measures"], name
        for spelling in r["ir_measures"]:
            ir, at, _ = spelling.partition("@")
            assert names.MEASURES[ir][0 if at else 1] == name or names.WITH_REL.get(ir) == name


@pytest.mark.parametrize("name", [r["name"] for r in RECORDS])
def test_kernel_writes_the_records_lines(name):
    """A sample request of each measure, plain and with parameters: the core writes as many
    values per query as the record's lines have slots, and prints the lines it names."""
    m = BY_NAME[name]
    samples = {"cutoffs": ".2,7", "points": ".0.25,0.5", "numbers": ".0.5", "coefficients": ".2,-1,0,0",
               "length": ".4", "gains": ".1=2", "persistence": ".p=0.5"}
    inputs = INPUTS[RECORDS_BY_NAME[name]["relevance"]]
    *format_args, qrels, run = inputs
    specs = (name, name + samples.get(RECORDS_BY_NAME[name]["params"], ""))
    if RECORDS_BY_NAME[name]["params"] == "named":  # named in ir_measures' spelling only
        plain = m.ir_measures[0].replace("@k", "@5")
        named = RECORDS_BY_NAME[name]["named"]
        most = {p["name"]: False if p["kind"] == "flag" else p["range"][1] if math.isfinite(p["range"][1])
                else p["default"] for p in named}
        most |= {p["name"]: int(most[p["name"]]) for p in named if p["kind"] == "whole"}
        required = ",".join(f"{p['name']}={most[p['name']]}" for p in named if math.isnan(p["default"]))
        given = ",".join(f"{k}={v}" for k, v in most.items())
        specs = tuple(s.replace("@", f"({g})@", 1) if "@" in s else f"{s}({g})" if g else s
                      for s, g in ((plain, required), (plain, given)))
    for spec in specs:
        result = Evaluator(qrels, measures=[spec], rel_format=format_args[-1] if format_args else "qrels").evaluate(run)
        (request,) = result.requests
        assert result.evaluation.width == sum(request.slots()), spec
        printed = run_cli(["-q", "-m", spec, *inputs]).stdout.decode().splitlines()
        assert {line.split("\t")[0].strip() for line in printed} == set(request.lines), spec
        assert any(line.split("\t")[1] == "all" for line in printed) == (m.summary != "none"), spec
        assert any(line.split("\t")[1] != "all" for line in printed) == m.per_query, spec


@pytest.mark.parametrize("name, text", [
    ("utility", "1,-1,0,0"), ("set_F", "1"), ("relstring", "10"), ("11pt_avg", "0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1"),
    ("rbp", "p=0.9"), ("rbp_resid", "p=0.9")])
def test_the_kernels_defaults_are_the_records(name, text):
    """A request without numbers computes what one with the record's default numbers does
    (the kernel reads the record's defaults; the Python side sends none)."""
    assert ",".join(str(float(x)).removesuffix(".0") for x in BY_NAME[name].default.numbers).replace(
        "0.9", "p=0.9" if name.startswith("rbp") else "0.9") == text
    plain = run_cli(["-q", "-m", name, *EXAMPLE]).stdout.decode().splitlines()
    given = run_cli(["-q", "-m", f"{name}.{text}", *EXAMPLE]).stdout.decode().splitlines()
    assert plain and [line.split("\t")[1:] for line in plain] == [line.split("\t")[1:] for line in given]


def _measure_name_lists(path):
    """(line, names) of each literal collection, or comma-separated string, naming two or
    more registry measures; docstrings aside."""
    known = {r["name"] for r in RECORDS}
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [*node.keys, *node.values]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words = re.split(r"(?:,| and | or )\s*", node.value)  # "a, b and c": a list written out
            hits = [w.split()[-1].strip("()") for w in words if w.split() and w.split()[-1].strip("()") in known]
            if len(hits) >= 3:
                found.append((node.lineno, hits))
            continue
        else:
            continue
        hits = [i.value for i in items if isinstance(i, ast.Constant) and i.value in known]
        if len(hits) >= 2:
            found.append((node.lineno, hits))
    return found


#: The tables allowed to name measures: trec_eval's nickname table (measures.py; sets of
#: names by definition), the aliases users type for ir_measures names (names.py: spellings of
#: users, not a list of measures), explain's cell names (its columns dcg and ideal_dcg),
#: pytrec_eval's nickname table (pytrec_eval.py: trec_eval 9's, with the prefs and multi-judge
#: nicknames trecgain refuses), and the other tools' tables of what each computes
#: (conventions.py: `--as TOOL`'s measures are the tool's, which a new trecgain measure does not join).
ALLOWED = {"measures.py": {"_COUNTS", "_OFFICIAL", "_ALL_TREC_9", "_ALL_PREFS", "NICKNAMES"}, "names.py": {"ALIASES"},
           "explain.py": {"_CELLS"}, "pytrec_eval.py": {"supported_nicknames"},
           "conventions.py": {"CONVENTIONS", "_BEIR_MEASURES", "_BEIR_LACKS", "_TRECTOOLS", "_GDEVAL", "_GDEVAL_LACKS",
                              "_TORCHMETRICS", "_TORCHMETRICS_LACKS"}}


def _allowed(path, line):
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno <= line <= node.end_lineno:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id if isinstance(t, ast.Name) else getattr(t.value, "id", "") for t in targets}
            return bool(names & ALLOWED.get(path.name, set()))
    return False


def test_no_hand_kept_list_of_measure_names():
    found = [(path.name, line, hits) for path in sorted((ROOT / "trecgain").glob("*.py"))
             for line, hits in _measure_name_lists(path) if not _allowed(path, line)]
    assert found == []


def test_the_check_finds_a_list():
    """The source check above sees a hand-kept list (so its passing means something)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.py"
        path.write_text('GAINS = frozenset({"dcg", "ndcg"})\nHELP = "for dcg, ndcg and ndcg_cut"\n')
        assert sorted(line for line, _ in _measure_name_lists(path)) == [1, 2]


@pytest.fixture
def registered():
    """A test-only measure: nDCG at cutoffs under its own name and record (its own help,
    lower is better, no explain), computed by the core's ndcg_cut kernel."""
    record = {**next(r for r in RECORDS if r["name"] == "ndcg_cut"), "name": "test_ndcg_at", "kernel": "ndcg_cut",
              "help": "A test-only measure: nDCG at cutoffs, by ndcg_cut's kernel.", "lower_is_better": True,
              "explain": None, "ir_measures": [], "default_cutoffs": [3, 7]}
    yield measures.register(record)
    measures.unregister("test_ndcg_at")
    assert "test_ndcg_at" not in BY_NAME


def test_a_registered_measure_works_end_to_end(registered):
    out = run_cli(["-q", "-m", "test_ndcg_at", "-m", "ndcg_cut.3,7", *EXAMPLE]).stdout.decode().splitlines()
    ours = [line.split("\t") for line in out if line.startswith("test_ndcg_at")]
    theirs = [line.split("\t") for line in out if line.startswith("ndcg_cut")]
    assert [line[0].strip() for line in ours[:2]] == ["test_ndcg_at_3", "test_ndcg_at_7"]
    assert [line[1:] for line in ours] == [line[1:] for line in theirs] and len(ours) > 2
    described = run_cli(["-h", "-m", "test_ndcg_at"]).stdout.decode()
    assert "A test-only measure" in described and "Default parameters: 3,7" in described
    assert "test_ndcg_at" in run_cli(["-h"]).stdout.decode()
    assert "test_ndcg_at" in declare.measure_names()
    assert comparison.lower_is_better("test_ndcg_at") and not comparison.lower_is_better("ndcg_cut")
    result = comparison.compare(EXAMPLE[0], [EXAMPLE[1], EXAMPLE[1]], measures=["test_ndcg_at.5"],
                                permutations=50, bootstrap=50)
    assert "test_ndcg_at_5" in result.to_text() if hasattr(result, "to_text") else str(result)
    assert run_cli(["explain", "-m", "test_ndcg_at", "--query", "q1", *EXAMPLE]).rc != 0
    assert "test_ndcg_at" not in explain.SUPPORTED
