"""trec_eval's option spellings, help and version, and the library/CLI agreement."""

from __future__ import annotations

import io

import pytest

from conftest import ROOT, run_cli, run_process
from trecgain import Evaluator, TrecgainError
from trecgain.measures import REGISTRY

EXAMPLE = [str(ROOT / "testdata/example/qrels.txt"), str(ROOT / "testdata/example/run.txt")]


@pytest.mark.parametrize("spelled, plain", [
    (["-l2", "-mndcg", "-M3"], ["-l", "2", "-m", "ndcg", "-M", "3"]),
    (["--level_for_rel=2", "--measure=ndcg", "--Max_retrieved_per_topic=3"], ["-l", "2", "-m", "ndcg", "-M", "3"]),
    (["-qc", "-mndcg_cut.5"], ["-q", "-c", "-m", "ndcg_cut.5"]),
    (["--query_eval_wanted", "--complete_rel_info_wanted", "--nosummary", "-mG"], ["-q", "-c", "-n", "-m", "G"]),
    (["--Judged_docs_only", "-mbinG", "--Number_docs_in_coll", "1000"], ["-J", "-m", "binG"]),
    (["-R", "qrels", "-T", "trec_results", "--Output_old_results_format", "-mndcg"], ["-m", "ndcg"]),
])
def test_option_spellings(spelled, plain):
    a, b = run_cli([*spelled, *EXAMPLE]), run_cli([*plain, *EXAMPLE])
    assert a.rc == 0 and a.stdout == b.stdout and a.stdout


def test_options_after_files():
    assert run_cli([*EXAMPLE, "-q", "-m", "ndcg"]).stdout == run_cli(["-q", "-m", "ndcg", *EXAMPLE]).stdout


@pytest.mark.parametrize("spelled, plain", [
    (["--meas=ndcg", "--level=2"], ["-m", "ndcg", "-l", "2"]),  # unique prefixes, as getopt_long takes them
    (["-qmndcg_cut.5"], ["-q", "-m", "ndcg_cut.5"]),  # a value ends a bundle of flags
    (["--compat", "9", "--compat=10", "-mndcg"], ["-m", "ndcg"]),  # the last value wins
    (["-m", "ndcg", "-m", "G"], ["-mndcg", "-mG"]),
])
def test_more_option_spellings(spelled, plain):
    a, b = run_cli([*spelled, *EXAMPLE]), run_cli([*plain, *EXAMPLE])
    assert a.rc == 0 and a.stdout == b.stdout and a.stdout


def test_double_dash_ends_the_options(tmp_path):
    run = tmp_path / "-run"
    run.write_bytes(open(EXAMPLE[1], "rb").read())
    out = run_cli(["-m", "ndcg", "--", EXAMPLE[0], str(run)])
    assert out.rc == 0 and out.stdout == run_cli(["-m", "ndcg", *EXAMPLE]).stdout


@pytest.mark.parametrize("args, message", [
    (["-x", *EXAMPLE], "unknown option '-x'"),
    (["--nonsense", *EXAMPLE], "unknown option '--nonsense'"),
    (["--c", *EXAMPLE], "option '--c' is ambiguous: --complete_rel_info_wanted, --compat"),
    ([*EXAMPLE, "-m"], "option '-m' needs a value"),
    ([*EXAMPLE, "--measure"], "option '--measure' needs a value"),
    (["--query_eval_wanted=yes", *EXAMPLE], "option '--query_eval_wanted' takes no value"),
    (["--compat", "8", *EXAMPLE], "option --compat takes 10 or 9, not '8'"),
    ([EXAMPLE[0]], "expected a qrels file and a run file, got 1 file name(s)"),
])
def test_usage_errors(args, message):
    out = run_cli(args)
    assert out.rc == 2 and out.stdout == b""
    assert out.stderr.startswith(f"trecgain: {message} (") and out.stderr.count("\n") == 1


def test_help_lists_every_measure():
    out = run_cli(["-h"])
    assert out.rc == 0
    text = out.stdout.decode()
    for m in REGISTRY:  # a measure with named parameters as ir_measures names it (ERR_IA@k)
        assert f"  {m.ir_measures[0] if m.naming == 'named' else m.name} " in text
    assert "--compat" in text


def test_version():
    out = run_cli(["-v"])
    assert out.rc == 0 and b"trecgain" in out.stdout


def test_default_measures_are_trec_evals_official_set():
    """Without -m trec_eval prints its `official` set; so does trecgain (before it computed
    the other measures, its default was the gain set)."""
    default, official = run_cli(EXAMPLE), run_cli(["-m", "official", *EXAMPLE])
    assert default.stdout == official.stdout
    names = [line.split("\t")[0].strip() for line in default.stdout.decode().splitlines()]
    assert names[:7] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map"]
    assert names[-1] == "P_1000" and "iprec_at_recall_1.00" in names


def test_api_matches_cli_text():
    ev = Evaluator(EXAMPLE[0], measures=["ndcg_cut.5,10", "ndcg", "num_ret", "runid"])
    res = ev.evaluate(EXAMPLE[1])
    cli = run_cli(["-q", "-m", "ndcg_cut.5,10", "-m", "ndcg", "-m", "num_ret", "-m", "runid", *EXAMPLE])
    assert res.to_trec(per_query=True).encode() == cli.stdout
    assert res.aggregate["runid"] == "bm25"
    assert set(res.per_query) == {"301", "302", "303"}
    assert isinstance(res.per_query["301"]["num_ret"], int)
    assert f"{res.aggregate['ndcg_cut_10']:6.4f}".encode() in cli.stdout


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"judged_only": True, "max_docs": 3}])
def test_summaries_only_results_write_the_same_text(options):
    """keep_values=False (what the command line uses) measures the per-query lines again as it
    writes them: the same bytes and the same `all` values as a result that kept its values."""
    ev = Evaluator(EXAMPLE[0], measures=["gain", "ndcg_p", "err_cut.1,5"], **options)
    kept, streamed = ev.evaluate(EXAMPLE[1]), ev.evaluate(EXAMPLE[1], keep_values=False)
    assert streamed.aggregate == kept.aggregate
    for per_query in (False, True):
        assert streamed.to_trec(per_query=per_query) == kept.to_trec(per_query=per_query)
    assert kept.to_trec(per_query=True).count("\n") > 3 * len(kept.aggregate)
    with pytest.raises(ValueError, match="keep_values=True"):
        streamed.per_query  # noqa: B018


def test_api_accepts_open_files_and_dicts():
    with open(EXAMPLE[0], "rb") as q, open(EXAMPLE[1]) as r:
        from_files = Evaluator(q, measures=["ndcg"]).evaluate(r).per_query
    qrels = {}
    for line in open(EXAMPLE[0]):
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    run = {}
    for line in open(EXAMPLE[1]):
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    from_dicts = Evaluator(qrels, measures=["ndcg"]).evaluate(run).per_query
    assert from_files == from_dicts
    assert Evaluator(io.StringIO(open(EXAMPLE[0]).read()), measures=["ndcg"]).evaluate(run).per_query == from_dicts


def test_api_errors_are_trecgain_errors():
    with pytest.raises(TrecgainError, match="unknown measure"):
        Evaluator(EXAMPLE[0], measures=["nope"])
    with pytest.raises(TrecgainError, match="compat"):
        Evaluator(EXAMPLE[0], compat="8")
    with pytest.raises(TrecgainError, match="not an integer"):
        Evaluator({"1": {"a": 1.5}})


def test_real_process_example_and_broken_pipe():
    out = run_process(["-q", *EXAMPLE])
    assert out.rc == 0 and out.stdout.count(b"\n") > 20
    import subprocess
    import sys
    proc = subprocess.run(f"{sys.executable} -m trecgain -q {EXAMPLE[0]} {EXAMPLE[1]} | head -1",
                          shell=True, capture_output=True, cwd=ROOT)
    assert proc.stdout.count(b"\n") == 1
    assert b"Traceback" not in proc.stderr


def test_several_runs_print_in_turn_and_jobs_agree(tmp_path):
    other = tmp_path / "other.txt"
    other.write_bytes(b"".join(line.replace(b"bm25", b"other") for line in open(EXAMPLE[1], "rb")
                               if not line.startswith(b"302")))
    single = [run_cli(["-q", "-m", "ndcg", "-m", "runid", EXAMPLE[0], r]).stdout for r in (EXAMPLE[1], str(other))]
    many = run_cli(["-q", "-m", "ndcg", "-m", "runid", EXAMPLE[0], EXAMPLE[1], str(other), EXAMPLE[1]])
    assert many.rc == 0 and many.stdout == single[0] + single[1] + single[0]
    parallel = run_process(["-j", "2", "-q", "-m", "ndcg", "-m", "runid", EXAMPLE[0], EXAMPLE[1], str(other),
                            EXAMPLE[1]])
    assert parallel.rc == 0 and parallel.stdout == many.stdout


def test_one_bad_run_among_several_prints_nothing(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"301 Q0 x 1 high t\n")
    for jobs in ("1", "2"):
        out = run_process(["-j", jobs, "-m", "ndcg", EXAMPLE[0], EXAMPLE[1], str(bad)])
        assert out.rc != 0 and out.stdout == b""
        assert out.stderr.strip().splitlines() == [f"trecgain: {bad}:1: score 'high' is not a number"]


def test_to_dataframe_when_pandas_is_installed():
    import pandas as pd  # a test dependency: trecgain itself runs without it
    res = Evaluator(EXAMPLE[0], measures=["ndcg", "num_ret"]).evaluate(EXAMPLE[1])
    frame = res.to_dataframe()
    assert list(frame.columns) == ["num_ret", "ndcg"] and list(frame.index) == ["301", "302", "303"]
    assert frame.loc["302", "ndcg"] == res.per_query["302"]["ndcg"]
    assert isinstance(frame, pd.DataFrame)


def test_gdeval_subcommand_and_err_measure():
    out = run_cli(["gdeval", *EXAMPLE, "10"])
    assert out.rc == 0
    lines = out.stdout.decode().splitlines()
    assert lines[0] == "runid,topic,ndcg@10,err@10" and lines[-1].startswith("bm25,amean,")
    err_mean = float(lines[-1].split(",")[3])
    agg = run_cli(["-m", "err_cut.10", "-m", "ERR@10", *EXAMPLE]).stdout.decode().splitlines()
    assert [line.split("\t")[0].strip() for line in agg] == ["err_cut_10", "ERR@10"]
    assert all(abs(float(line.split("\t")[2]) - err_mean) < 1e-4 for line in agg)
    assert run_cli(["gdeval", *EXAMPLE, "ten"]).rc == 2


@pytest.mark.parametrize("measure, words", [
    ("map", ["map", "average precision"]), ("P@10", ["trecgain's P", "Default parameters: 5,10"]),
    ("official", ["runid", "iprec_at_recall", "P"]), ("relstring", ["per query only"]),
    ("rbp", ["New in trec_eval 10.0"]), ("err_cut", ["Not in trec_eval"])])
def test_help_explains_one_measure(measure, words):
    out = run_cli(["-h", "-m", measure])
    assert out.rc == 0 and out.stderr == ""
    for word in words:
        assert word in out.stdout.decode()


@pytest.mark.parametrize("measure, suggestion", [
    ("Recall@1000", "did you mean R@1000?"), ("mAP", "did you mean map"), ("MRR@10", "did you mean RR@10?"),
    ("nDGC@10", "did you mean nDCG@10?"), ("ndgc", "did you mean ndcg")])
def test_unknown_names_suggest_the_close_ones(measure, suggestion):
    out = run_cli(["-m", measure, *EXAMPLE])
    assert out.rc == 1 and out.stdout == b"" and suggestion in out.stderr
    assert "ERR" not in out.stderr or measure.lower().startswith("err")


def test_r_at_1000_is_recall_not_err():
    out = run_cli(["-m", "R@1000", "-m", "recall.1000", *EXAMPLE])
    lines = out.stdout.decode().splitlines()
    assert out.rc == 0 and [line.split("\t")[0].strip() for line in lines] == ["R@1000", "recall_1000"]
    assert lines[0].split("\t")[2] == lines[1].split("\t")[2]


# ---------------------------------------------------------------- trec_eval's spellings, read by click


@pytest.mark.parametrize("spelled, long_form", [
    (["-mndcg"], ["--measure", "ndcg"]),
    (["-l2", "-mndcg"], ["--level_for_rel", "2", "--measure", "ndcg"]),
    (["-M100", "-mP.5"], ["--Max_retrieved_per_topic", "100", "--measure", "P.5"]),
    (["-qc", "-mndcg"], ["--query_eval_wanted", "--complete_rel_info_wanted", "--measure", "ndcg"]),
    (["--measure=ndcg"], ["--measure", "ndcg"]),
    (["--Max_retrieved_per_topic", "2", "-mP.5"], ["--Max_retrieved_per_topic=2", "--measure=P.5"]),
    (["-m", "ndcg", "-m", "map", "-m", "P.5"], ["--measure", "ndcg", "--measure", "map", "--measure", "P.5"]),
])
def test_trec_eval_spellings_equal_the_long_form(spelled, long_form):
    a, b = run_cli([*spelled, *EXAMPLE]), run_cli([*long_form, *EXAMPLE])
    assert a.rc == b.rc == 0 and a.stdout == b.stdout and a.stdout and a.stderr == b.stderr


def test_options_after_the_file_names_equal_the_long_form():
    a = run_cli([*EXAMPLE, "-qc", "-l2", "-mndcg_cut.5"])
    b = run_cli(["--query_eval_wanted", "--complete_rel_info_wanted", "--level_for_rel", "2", "--measure",
                 "ndcg_cut.5", *EXAMPLE])
    assert a.rc == b.rc == 0 and a.stdout == b.stdout and a.stdout


def test_help_of_a_measure_equals_the_long_form():
    a, b = run_cli(["-h", "-m", "ndcg_cut"]), run_cli(["--help", "--measure", "ndcg_cut"])
    assert a.rc == b.rc == 0 and a.stdout == b.stdout and b"ndcg_cut" in a.stdout
    assert a.stdout != run_cli(["-h"]).stdout  # the measure's description, not the command's help


def test_click_parses_every_command():
    import click

    from trecgain import cli

    assert isinstance(cli.PROGRAM, click.Group)
    for name in cli.SUBCOMMANDS:
        command = cli.PROGRAM.get_command(None, name)
        assert isinstance(command, click.Command) and command.params
        assert cli.parsed(["--help"], name)["show_help"] is True
    assert cli.parsed(["-qmndcg", "a", "b"])["measures"] == ("ndcg",)


@pytest.mark.parametrize("args, status", [
    ([], 2), (["-x", *EXAMPLE], 2), (["--compat", "8", *EXAMPLE], 2), (["compare", "--nonsense"], 2),
    (["explain", "-q"], 2), (["gdeval", "a"], 2), (["completion", "tcsh"], 2),
    (["-m", "nonsense", *EXAMPLE], 1), (["no-such-qrels", "no-such-run"], 1), (EXAMPLE, 0), (["-h"], 0),
    (["--fail-under", "ndcg=1.1", "-m", "ndcg", *EXAMPLE], 3),
])
def test_exit_statuses(args, status):
    out = run_cli(args)
    assert out.rc == status
    assert (out.stderr.count("\n") == 1 and out.stdout == b"") if status in (1, 2) else out.stdout
