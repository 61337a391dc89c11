"""Measure names (issue 23): what `-m` and `--fail-under` accept, the one exact spelling an
error suggests, and the note when an option changes what a line with trec_eval's name means."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli
from trecgain import Evaluator

QRELS = str(ROOT / "testdata/example/qrels.txt")
RUN = str(ROOT / "testdata/example/run.txt")
EXAMPLE = [QRELS, RUN]


def _one_line_error(out, status: int) -> str:
    """The single stderr line of a failed command, which printed nothing."""
    assert out.rc == status and out.stdout == b"", (out.rc, out.stdout)
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("trecgain: "), out.stderr
    assert "Traceback" not in out.stderr
    return out.stderr.strip()


def _line_names(stdout: bytes) -> list[str]:
    return [line.split("\t")[0].strip() for line in stdout.decode().splitlines()]


def _notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("trecgain: note: ")]


# ---------------------------------------------------------------- a measure named twice


def test_fail_under_says_the_second_list_was_ignored_and_gives_the_one_list():
    out = run_cli(["-m", "P.5", "-m", "P.10", "--fail-under", "P_10=0.1", *EXAMPLE])
    line = _one_line_error(out, 2)
    assert "-m P.10 would print it" not in line
    assert "-m P.10 is ignored" in line and "named twice keeps its first parameters" in line
    assert "-m P.5,10" in line
    # and the list suggested does print the line the threshold names
    fixed = run_cli(["-Q", "-m", "P.5,10", "--fail-under", "P_10=0.1", *EXAMPLE])
    assert fixed.rc == 0 and _line_names(fixed.stdout) == ["P_5", "P_10"]


def test_fail_under_a_cutoff_the_list_lacks_suggests_the_longer_list():
    """-m P.10 added to -m P.5 would be ignored: the suggestion is the one list."""
    line = _one_line_error(run_cli(["-m", "P.5", "--fail-under", "P_10=0.1", *EXAMPLE]), 2)
    assert "-m P.10 would print it" not in line and "-m P.5,10" in line
    line = _one_line_error(run_cli(["-m", "official", "-m", "P.5", "--fail-under", "P_10=0.1", *EXAMPLE]), 2)
    assert "-m P.5,10" in line


def test_fail_under_a_line_no_measure_asks_for_still_names_the_request():
    line = _one_line_error(run_cli(["-m", "map", "--fail-under", "P_10=0.3", *EXAMPLE]), 2)
    assert "-m P.10 would print it" in line


# ---------------------------------------------------------------- -m: one exact suggestion


@pytest.mark.parametrize("given, meant", [
    # a printed line name: the request that prints it
    ("ndcg_cut_10", "ndcg_cut.10"), ("P_10", "P.10"), ("recall_1000", "recall.1000"),
    ("iprec_at_recall_0.10", "iprec_at_recall.0.10"), ("map_cut_100", "map_cut.100"),
    ("Rprec_mult_0.20", "Rprec_mult.0.20"), ("success_5", "success.5"), ("ndcg_1=2", "ndcg.1=2"),
    ("ndcg_10", "ndcg_cut.10"),
    # common aliases and other cases: the exact spelling
    ("mrr", "recip_rank"), ("MRR", "recip_rank"), ("MRR@10", "RR@10"), ("mrr@10", "RR@10"),
    ("MAP", "map"), ("Map", "map"), ("MAP@100", "AP@100"), ("map@100", "AP@100"), ("ap@10", "AP@10"),
    ("NDCG@10", "nDCG@10"), ("NDCG", "ndcg"), ("ndcg_cut@10", "nDCG@10"), ("p@10", "P@10"),
    ("p.10", "P.10"), ("precision@10", "P@10"), ("Recall@1000", "R@1000"), ("recall@100", "R@100"),
    ("rprec", "Rprec"), ("infap", "infAP"), ("NumQ", None), ("numq", "NumQ"), ("num_Q", "num_q"),
])
def test_a_near_miss_gets_one_exact_suggestion_that_works(given, meant):
    if meant is None:  # accepted as it is
        assert run_cli(["-Q", "-m", given, *EXAMPLE]).rc == 0
        return
    line = _one_line_error(run_cli(["-m", given, *EXAMPLE]), 1)
    assert line.endswith(f"; did you mean {meant}?"), line
    assert " or " not in line.rpartition("did you mean")[2]
    works = run_cli(["-Q", "-m", meant, *EXAMPLE])
    assert works.rc == 0 and works.stdout
    if "_" in given and "@" not in given and given not in ("num_Q", "ndcg_10"):  # a printed line's name
        assert _line_names(works.stdout) == [given]


@pytest.mark.parametrize("given", ["ndgc", "nDGC@10", "bpref@10", "zzz"])
def test_typos_still_list_close_names_or_the_help(given):
    line = _one_line_error(run_cli(["-m", given, *EXAMPLE]), 1)
    assert "did you mean" in line or "trecgain -h" in line or "takes no cutoff" in line


@pytest.mark.parametrize("given", ["Rprec@5", "Bpref@10", "NumQ(cutoff=3)"])
def test_a_cutoff_on_a_measure_without_one_says_so(given):
    """It said "needs a cutoff, e.g. Rprec@10" for Rprec@5."""
    line = _one_line_error(run_cli(["-m", given, *EXAMPLE]), 1)
    assert "takes no cutoff" in line and "needs a cutoff" not in line


def test_help_of_one_measure_suggests_the_same_way():
    out = run_cli(["-h", "-m", "ndcg_cut_10"])
    assert out.rc == 1 and out.stderr.strip().endswith("did you mean ndcg_cut.10?")


# ---------------------------------------------------------------- --fail-under names a printed line


@pytest.mark.parametrize("measure, name", [
    ("ndcg_cut.10", "ndcg_cut_10"), ("ndcg_cut.10", "nDCG@10"), ("nDCG@10", "ndcg_cut_10"),
    ("nDCG@10", "nDCG@10"), ("map", "AP"), ("P.10", "P@10"), ("ndcg.1=2", "ndcg_1=2"),
])
def test_fail_under_takes_printed_names_and_ir_measures_names(measure, name):
    out = run_cli(["-Q", "-m", measure, "--fail-under", f"{name}=0", *EXAMPLE])
    assert out.rc == 0 and out.stderr == ""


@pytest.mark.parametrize("measure, name, meant", [
    ("ndcg_cut.10", "ndcg_cut.10", "ndcg_cut_10"),  # the request's spelling: the line it prints
    ("P.10", "P.10", "P_10"),
    ("map", "MAP", "map"),
    ("recip_rank", "mrr", "recip_rank"),
])
def test_fail_under_suggests_the_printed_name(measure, name, meant):
    line = _one_line_error(run_cli(["-m", measure, "--fail-under", f"{name}=0.1", *EXAMPLE]), 2)
    assert f"did you mean {meant}?" in line and "--fail-under names a printed line" in line
    assert run_cli(["-Q", "-m", measure, "--fail-under", f"{meant}=0", *EXAMPLE]).rc == 0


def test_fail_under_help_says_what_name_it_takes():
    help_text = run_cli(["-h"]).stdout.decode()
    start = help_text.index("--fail-under")
    text = help_text[start:help_text.index("-Q, --quiet")]
    assert "printed" in text and "ir_measures" in text


# ---------------------------------------------------------------- options that change a trec_eval line


NOTED = [
    (["--global-gains", "exp"], "--global-gains exp", "gains"),
    (["--global-gains", "1=2,2=5"], "--global-gains 1=2,2=5", "gains"),
    (["--discount", "log:e"], "--discount log:e", "discount"),
    (["--discount", "jk:2"], "--discount jk:2", "discount"),
    (["--exact-ideal"], "--exact-ideal", "ideal ranking"),
    (["--ties", "average"], "--ties average", "order of tied documents"),
]


@pytest.mark.parametrize("args, option, what", NOTED)
def test_an_option_that_changes_a_trec_eval_line_says_so(args, option, what):
    out = run_cli([*args, "-m", "ndcg_cut.10", *EXAMPLE])
    assert out.rc == 0 and _line_names(out.stdout) == ["ndcg_cut_10"]
    [note] = [n for n in _notes(out.stderr) if option in n]
    assert note == (f"trecgain: note: ndcg_cut_10 is computed with {option}, not trec_eval's {what}: "
                    "do not report it as trec_eval's ndcg_cut_10")
    assert run_cli(["-Q", *args, "-m", "ndcg_cut.10", *EXAMPLE]).stderr == ""


def test_the_note_names_every_line_it_concerns_once_and_comes_after_the_results():
    args = ["-j", "2", "--global-gains", "exp", "-m", "ndcg_cut.5,10", "-m", "map", "-m", "ndcg", QRELS, RUN, RUN]
    proc = subprocess.run([sys.executable, "-m", "trecgain", *args], capture_output=False, cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines = proc.stdout.decode().splitlines()
    notes = [i for i, line in enumerate(lines) if "--global-gains exp" in line]
    assert proc.returncode == 0 and len(notes) == 1  # once, not once a run
    assert notes[0] > max(i for i, line in enumerate(lines) if "\tall\t" in line)
    assert lines[notes[0]].startswith("trecgain: note: ndcg, ndcg_cut_5 and ndcg_cut_10 are computed with "
                                      "--global-gains exp, not trec_eval's gains: do not report them as")
    assert "map" not in lines[notes[0]].split(" are computed")[0]


def test_the_values_noted_do_differ_from_trec_eval():
    """The note is not noise: on the example each option changes ndcg_cut_10 or could."""
    plain = run_cli(["-Q", "-m", "ndcg_cut.10", *EXAMPLE]).stdout
    for args in (["--global-gains", "exp"], ["--discount", "jk:2"], ["--ties", "average"]):
        assert run_cli(["-Q", *args, "-m", "ndcg_cut.10", *EXAMPLE]).stdout != plain, args


@pytest.mark.parametrize("args", [
    ["--ties", "rank", "-m", "ndcg_cut.10"],  # the ranking input, not the measure
    ["--ties", "docno", "-m", "ndcg_cut.10"],
    ["--global-gains", "linear", "-m", "ndcg_cut.10"],  # trec_eval's own gains
    ["--discount", "log:2", "-m", "ndcg_cut.10"],
    ["--discount", "log", "-m", "ndcg"],
    ["-m", "ndcg.1=2"],  # trec_eval's gain string, named in the line
    ["--global-gains", "exp", "-m", "ndcg.1=2"],  # its own gain string wins
    ["--global-gains", "exp", "-m", "map", "-m", "P.10"],  # no gains in them
    ["--global-gains", "exp", "-m", "ndcg_p", "-m", "cg_cut.5"],  # trecgain's own names
    ["--discount", "log:e", "-m", "G", "-m", "binG"],  # their own formulas
    ["--ties", "average", "-m", "ideal_dcg", "-m", "num_ret"],  # no ordering changes them
])
def test_no_note_where_the_line_is_trec_eval_s(args):
    out = run_cli([*args, *EXAMPLE])
    assert out.rc == 0 and [n for n in _notes(out.stderr) if "computed with" in n] == []


def test_an_ir_measures_name_of_a_trec_eval_line_gets_the_note_too():
    out = run_cli(["--global-gains", "exp", "-m", "nDCG@10", *EXAMPLE])
    [note] = [n for n in _notes(out.stderr) if "computed with" in n]
    assert note.startswith("trecgain: note: nDCG@10 is computed with --global-gains exp")
    own = run_cli(["--global-gains", "exp", "-m", "nDCG(gains={0: 0, 1: 1, 2: 3})@10", *EXAMPLE])
    assert [n for n in _notes(own.stderr) if "computed with" in n] == []


def test_several_options_one_note_each():
    out = run_cli(["--global-gains", "exp", "--discount", "log:e", "-m", "ndcg", *EXAMPLE])
    noted = [n for n in _notes(out.stderr) if "computed with" in n]
    assert len(noted) == 2 and "--global-gains exp" in noted[0] and "--discount log:e" in noted[1]


def test_the_library_result_carries_the_same_note():
    evaluator = Evaluator(QRELS, measures=["ndcg_cut.10"], global_gains="exp", discount="jk:2")
    result = evaluator.evaluate(RUN)
    cli = _notes(run_cli(["--global-gains", "exp", "--discount", "jk:2", "-m", "ndcg_cut.10", *EXAMPLE]).stderr)
    expected = [n for n in cli if "computed with" in n]
    assert len(expected) == 2
    assert [f"trecgain: note: {n}" for n in result.notes if "computed with" in n] == expected
    assert [n for n in evaluator.notes if "computed with" in n] == [n for n in result.notes if "computed with" in n]
    plain = Evaluator(QRELS, measures=["ndcg_cut.10"]).evaluate(RUN)
    assert [n for n in plain.notes if "computed with" in n] == []


def test_json_names_the_options_in_effect():
    out = run_cli(["-Q", "--format", "json", "--global-gains", "exp", "--discount", "jk:2", "--exact-ideal",
                   "--ties", "average", "-m", "ndcg_cut.10", *EXAMPLE])
    options = json.loads(out.stdout)["options"]
    assert out.rc == 0 and options["global_gains"] == "exp" and options["discount"] == "jk:2"
    assert options["exact_ideal"] is True and options["ties"] == "average"
