"""`trecgain differ`: one measure every way the tools compute it, grouped where the numbers
agree, with the causes of each difference.  The expectations come from the design notes' worked
example (three decimals, as printed there) and from small collections worked by hand."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from trecgain.differ import differ
from trecgain.errors import TrecgainError

WORKED = [3, 2, 3, 0, 1, 2]  # ../shared/design-notes/dcg-and-ndcg.txt: all six judged


def one_query(grades: list[int], extra: dict | None = None):
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)} | (extra or {})}
    run = {"q": {f"d{i}": float(100 - i) for i in range(len(grades))}}
    return qrels, run


def group_of(found, way: str):
    return next(g for g in found.groups if way in g.ways)


def test_the_design_notes_table_of_gains_and_discounts():
    found = differ(*one_query(WORKED), "ndcg_cut.6")
    reference = found.groups[0]
    assert reference.is_reference and round(reference.mean, 3) == 0.961
    # the base of the logarithm cancels in the ratio: ln and log10 agree with log2
    assert {"discount=log:e", "discount=log:10"} <= set(reference.ways)
    assert round(group_of(found, "gains=exp").mean, 3) == 0.949
    assert {"gains=exp discount=log:e", "gains=exp discount=log:10"} <= set(group_of(found, "gains=exp").ways)
    assert round(group_of(found, "discount=jk:2").mean, 3) == 0.932
    assert round(group_of(found, "gains=exp discount=jk:2").mean, 3) == 0.898
    # each difference is named by its cause
    assert group_of(found, "gains=exp").causes == {"gains": True}
    assert group_of(found, "discount=jk:2").causes == {"discount": True}
    assert group_of(found, "gains=exp discount=jk:2").causes == {"gains": True, "discount": True}


def test_an_ideal_from_the_ranking_is_named_as_the_cause():
    # d0 (grade 2) retrieved alone; x (grade 1) judged, not retrieved.  trec_eval's ideal has both:
    # 2 / (2 + 1/log2(3)); scikit-learn's ideal is the ranking's own grades: 1.0
    found = differ(*one_query([2], {"x": 1}), "ndcg_cut.10")
    assert found.groups[0].mean == pytest.approx(2 / (2 + 1 / 1.584962500721156))
    sklearn = group_of(found, "sklearn")
    assert sklearn.mean == 1.0 and not sklearn.is_reference
    assert sklearn.causes["ideal from"] is True
    assert sklearn.causes["tie order"] is False  # no ties here
    assert sklearn.queries == [("q", found.groups[0].mean, 1.0)]


def test_rounding_and_missing_queries_are_causes():
    # two queries; the run lacks q2 (relevant documents): averaged over both as ir_measures does
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    run = {"q1": {"b": 2.0, "a": 1.0}}
    found = differ(qrels, run, "recip_rank")
    assert found.groups[0].mean == 0.5
    irm = group_of(found, "ir_measures")
    # the query set is the one cause here: no ties, no document named as its query, 0.25 rounds to itself
    assert irm.mean == 0.25 and irm.causes["queries averaged"] is True
    assert not any(alone for choice, alone in irm.causes.items() if choice != "queries averaged"), irm.causes
    assert ("q2", None, 0.0) in irm.queries
    assert "ranx" in found.skipped  # ranx needs the same queries on both sides
    assert "sklearn" in found.skipped


def test_the_query_option_and_formats():
    found = differ(*one_query(WORKED), "ndcg_cut.6", query="q")
    assert round(found.query["trec_eval"], 3) == 0.961 and round(found.query["gains=exp discount=jk:2"], 3) == 0.898
    doc = json.loads(found.to_json())
    assert doc["groups"][0]["reference"] is True and doc["query"]["query"] == "q"
    assert "| mean | ways |" in found.to_markdown()
    assert "gains: linear -> exp (changes it alone)" in found.to_text()


@pytest.mark.parametrize("measure, message", [
    ("ndcg_cut", "differ compares one number"),
    ("runid", "differ compares values"),
    ("nosuch", "unknown measure"),
])
def test_measures_it_refuses(measure, message):
    with pytest.raises(TrecgainError, match=message):
        differ(*one_query(WORKED), measure)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "trecgain", "differ", *args], capture_output=True, text=True)


def test_command_line(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q 0 d{i} {g}\n" for i, g in enumerate(WORKED)))
    run.write_text("".join(f"q Q0 d{i} {i + 1} {100 - i} r\n" for i in range(len(WORKED))))
    done = run_cli("-m", "ndcg_cut.6", "--format", "json", str(qrels), str(run))
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert round(doc["groups"][0]["mean"], 3) == 0.961
    assert "msmarco" in doc["skipped"]
    done = run_cli("-m", "ndcg_cut.6", "--query", "q", str(qrels), str(run))
    assert done.returncode == 0 and "query q:" in done.stdout
    for args, status in [((str(qrels), str(run)), 2), (("-m", "ndcg_cut.6", str(qrels)), 2),
                         (("-m", "ndcg_cut.6", "--format", "csv", str(qrels), str(run)), 2),
                         (("-m", "ndcg_cut", str(qrels), str(run)), 1),
                         (("-m", "ndcg_cut.6", str(run), str(qrels)), 1)]:
        done = run_cli(*args)
        assert done.returncode == status and done.stdout == "" and len(done.stderr.splitlines()) == 1, (args, done)


def test_robust03_runs():
    found = differ("testdata/compare/robust03/qrels.txt.gz", "testdata/compare/robust03/aplrob03a.txt.gz",
                   "ndcg_cut.10")
    assert found.groups[0].is_reference
    assert set(found.groups[0].ways) >= {"trec_eval", "pytrec_eval"}
    for group in found.groups[1:]:  # every group that differs names choices it departs in
        assert group.causes, group
