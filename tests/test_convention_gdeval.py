"""--as gdeval against gdeval.pl itself (run with perl), on 300 random collections.

The script is the copy ir_measures ships (`ir_measures/bin/gdeval.pl`, version 1.2a).  The test
runs it twice: as shipped (each topic's `%.5f` line), and patched back to the original 1.2's
`amean` line (the mean it prints, `%.5f`) with each topic printed `%.17g`, so that the per-topic
values are compared as doubles, bit for bit, and the mean to its printed digits.  The
collections have ties, topics with nothing relevant (gdeval.pl prints no line for them and leaves
them out of the mean), topics missing from either side, graded and binary judgments and negative
grades.  Skips when perl or ir_measures is missing.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from trecgain import Evaluator, TrecgainError

COLLECTIONS = 300
TOPICS = ["1", "2", "3", "10", "25", "101"]
DOCS = ["d1", "d01", "D1", "d10", "1", "01", "x", "y", "z", "d2", "d3", "clueweb-0"]

# gdeval.pl 1.2a comments the totals out and drops the amean line of gdeval.pl 1.2 (TREC 2010
# Web track); these restore it, as tests/test_gdeval.py does.
TOTALS_OFF = "    # $ndcgTotal += $ndcg;\n    # $errTotal += $err;\n"
TOTALS_ON = "    $ndcgTotal += $ndcg;\n    $errTotal += $err;\n"
AMEAN = """if ($topics > 0) { printf "$runid,amean,%.5f,%.5f\\n", $ndcgTotal/$topics, $errTotal/$topics; }
else { print "$runid,amean,0.00000,0.0000\\n"; }

exit 0;
"""
TOPIC_LINE = "$topicCurrent,%.5f,%.5f\\n\",$ndcg,$err"


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    """(perl, the shipped script, the script with its amean line and %.17g topic values)."""
    perl = shutil.which("perl")
    spec = importlib.util.find_spec("ir_measures")
    if perl is None or spec is None or not spec.submodule_search_locations:
        pytest.skip("gdeval.pl needs perl and the ir_measures package (its copy of the script)")
    shipped = Path(list(spec.submodule_search_locations)[0]) / "bin" / "gdeval.pl"
    text = shipped.read_text()
    assert TOTALS_OFF in text and "\nexit 0;\n" in text and TOPIC_LINE in text, "not the gdeval.pl 1.2a known here"
    text = text.replace(TOTALS_OFF, TOTALS_ON).replace("\nexit 0;\n", "\n" + AMEAN, 1)
    patched = tmp_path_factory.mktemp("gdeval") / "gdeval-amean.pl"
    patched.write_text(text.replace(TOPIC_LINE, TOPIC_LINE.replace("%.5f", "%.17g")))
    return perl, shipped, patched


def collection(rng: np.random.Generator, graded: bool, ties: bool) -> tuple[str, str]:
    """Random qrels and run files' text (topics are numbers, as gdeval.pl requires)."""
    topics = [str(t) for t in rng.choice(TOPICS, size=rng.integers(1, len(TOPICS) + 1), replace=False)]
    qrels, run = [], []
    for t in [t for t in topics if rng.random() < 0.8] or topics[:1]:
        docs = rng.choice(DOCS, size=rng.integers(1, 8), replace=False)
        nothing = rng.random() < 0.2  # nothing relevant: no line from gdeval.pl, not in its mean
        for d in docs:
            grade = int(rng.integers(-1, (4 if graded else 1) + 1))
            qrels.append(f"{t} 0 {d} {min(grade, 0) if nothing else grade}\n")
    for t in [t for t in topics if rng.random() < 0.8] or topics[-1:]:
        docs = rng.choice(DOCS, size=rng.integers(1, 11), replace=False)
        for rank, d in enumerate(docs, 1):
            score = float(rng.integers(0, 4) if ties else rng.integers(-20, 40) / 4)  # exact in binary
            run.append(f"{t} Q0 {d} {rank} {score!r} run-{rank % 2}\n")
    return "".join(qrels), "".join(run)


def test_gdeval_per_topic_and_mean(scripts: tuple[str, Path, Path], tmp_path: Path) -> None:
    """Per topic: --as gdeval's nDCG@k and ERR@k are gdeval.pl's doubles and print as its %.5f;
    the mean is its amean line's digits; the topics are the ones it prints."""
    perl, shipped, patched = scripts
    rng = np.random.default_rng(22)
    qrels_file, run_file = tmp_path / "qrels", tmp_path / "run"
    compared = 0
    for i in range(COLLECTIONS):
        k = int(rng.choice([1, 3, 5, 10, 20]))
        qrels, run = collection(rng, graded=bool(i & 1), ties=bool(i & 2))
        qrels_file.write_text(qrels)
        run_file.write_text(run)
        lines = subprocess.run([perl, str(patched), str(qrels_file), str(run_file), str(k)], capture_output=True,
                               text=True, check=True).stdout.splitlines()
        text = subprocess.run([perl, str(shipped), str(qrels_file), str(run_file), str(k)], capture_output=True,
                              text=True, check=True).stdout.splitlines()
        *topics, amean = [line.split(",") for line in lines[1:]]
        try:
            result = Evaluator(str(qrels_file), [f"ndcg_cut.{k}", f"err_cut.{k}"], convention="gdeval").evaluate(
                str(run_file))
        except TrecgainError as error:  # no topic in both files: gdeval.pl prints no topic either
            assert "no query has both results and judgments" in str(error) and not topics
            continue
        ndcg, err = f"ndcg_cut_{k}~gdeval", f"err_cut_{k}~gdeval"
        ours = result.per_query
        assert sorted(ours, key=int) == [t for _, t, _, _ in topics], (qrels, run)
        for (_, topic, their_ndcg, their_err), shown in zip(topics, text[1:]):
            assert ours[topic][ndcg] == float(their_ndcg) and ours[topic][err] == float(their_err), (topic, qrels, run)
            assert shown.split(",")[2:] == [f"{ours[topic][ndcg]:.5f}", f"{ours[topic][err]:.5f}"]
        mean = result.aggregate
        assert amean[2] == f"{mean[ndcg]:.5f}", (qrels, run)
        assert amean[3] == (f"{mean[err]:.5f}" if topics else "0.0000"), (qrels, run)
        compared += len(topics)
    assert compared > 300  # the collections did evaluate topics


def test_gdeval_skips_topics_with_nothing_relevant() -> None:
    """Hand-worked: topic 2 has only a grade 0 and a negative grade, so gdeval.pl leaves it out.
    Topic 1 ranks a (grade 2) then b (unjudged): DCG@2 = (2^2 - 1)/ln 2 = 3/ln 2, the ideal the
    same, so nDCG@2 = 1; ERR@2 = r/1 with r = 3/16 = 0.1875.  The mean is over topic 1 alone."""
    qrels = {"1": {"a": 2}, "2": {"x": 0, "y": -1}}
    run = {"1": {"a": 2.0, "b": 1.0}, "2": {"x": 1.0}}
    result = Evaluator(qrels, ["ndcg_cut.2", "err_cut.2"], convention="gdeval").evaluate(run)
    assert result.per_query == {"1": {"ndcg_cut_2~gdeval": 1.0, "err_cut_2~gdeval": 0.1875}}
    assert result.aggregate == {"ndcg_cut_2~gdeval": 1.0, "err_cut_2~gdeval": 0.1875}


def test_gdeval_gains_and_discount_by_hand() -> None:
    """Hand-worked: b (grade 1) above a (grade 3).  DCG@2 = 1/ln 2 + 7/ln 3; the ideal
    7/ln 2 + 1/ln 3; the ratio is not trec_eval's (1/log2 2 + 3/log2 3) / (3 + 1/log2 3) with
    linear gains.  The mean is rounded to 5 decimals, as gdeval.pl prints it."""
    import math

    result = Evaluator({"7": {"a": 3, "b": 1}}, ["ndcg_cut.2"], convention="gdeval").evaluate(
        {"7": {"b": 2.0, "a": 1.0}})
    expected = (1 / math.log(2) + 7 / math.log(3)) / (7 / math.log(2) + 1 / math.log(3))
    assert result.per_query["7"]["ndcg_cut_2~gdeval"] == expected
    assert result.aggregate["ndcg_cut_2~gdeval"] == round(expected, 5)
    linear = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert Evaluator({"7": {"a": 3, "b": 1}}, ["ndcg_cut.2"]).evaluate(
        {"7": {"b": 2.0, "a": 1.0}}).per_query["7"]["ndcg_cut_2"] == pytest.approx(linear, abs=1e-15)


def test_gdeval_measures_and_fixed_options() -> None:
    """gdeval.pl has nDCG@k and ERR@k only, and fixes the level, gains and ERR's maximum grade."""
    with pytest.raises(TrecgainError, match="nDCG@k and ERR@k only"):
        Evaluator({"1": {"a": 1}}, ["map"], convention="gdeval")
    with pytest.raises(TrecgainError, match="relevance level"):
        Evaluator({"1": {"a": 1}}, ["ndcg_cut.10"], convention="gdeval", relevance_level=2)
    with pytest.raises(TrecgainError, match="err_max_grade"):
        Evaluator({"1": {"a": 1}}, ["err_cut.10"], convention="gdeval", err_max_grade=5)
    with pytest.raises(TrecgainError, match="global_gains"):
        Evaluator({"1": {"a": 1}}, ["ndcg_cut.10"], convention="gdeval", global_gains="linear")
