"""--format, --fail-under, -o, -Q, subcommand help and shell completion.

Expected values come from elsewhere than the code under test: the trec text (which the
conformance corpus holds to trec_eval) parsed line by line, Result.aggregate, or by hand."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli, run_process
from trecgain import Evaluator, TrecgainError
from trecgain.cli import SUBCOMMANDS

QRELS = str(ROOT / "testdata/example/qrels.txt")
RUN = str(ROOT / "testdata/example/run.txt")
EXAMPLE = [QRELS, RUN]
MEASURES = ["-m", "official", "-m", "ndcg_cut.5,10", "-m", "relstring", "-m", "nDCG@20"]
FORMATS = ["trec", "json", "jsonl", "csv", "tsv", "markdown"]
#: The lone CR of this run is whitespace, with one warning line (README, "Bad input").
CR_RUN = b"301 Q0 FT911-3032 1 3 t\r301 Q0 LA051790-0138 2 2 t\n"


def trec_lines(text: bytes) -> list[tuple[str, str, str]]:
    """(name, qid, printed value) of each line of trec_eval's text."""
    out = []
    for line in text.decode().splitlines():
        name, qid, value = line.split("\t")
        out.append((name.rstrip(), qid, value))
    return out


def same_value(printed: str, value: object) -> bool:
    """A full-precision value against trec_eval's printed one (%6.4f, %ld, the tag, 'chars')."""
    if value is None:  # NaN and the infinities
        return printed.strip() in ("-nan", "nan", "inf", "-inf")
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return printed == str(value)
    if isinstance(value, float):
        return printed.strip() == f"{value:6.4f}".strip()
    return printed in (value, f"'{value}'")


def same_text(printed: str, field: str) -> bool:
    """A CSV field against trec_eval's printed value: a float field (printed with 4 decimals)
    at full precision, a count or tag as printed, relstring without its quotes."""
    if printed.startswith("'"):
        return field == printed[1:-1]
    if "." in printed:
        return f"{float(field):.4f}" == printed.strip()
    return field == printed


@pytest.fixture
def other_run(tmp_path: Path) -> str:
    """A second run: another tag, and query 302 missing."""
    path = tmp_path / "other.txt"
    path.write_bytes(b"".join(line.replace(b"bm25", b"other") for line in open(RUN, "rb")
                              if not line.startswith(b"302")))
    return str(path)


# ---------------------------------------------------------------- JSON


def test_json_values_are_the_trec_values_at_full_precision():
    text = run_cli(["-q", *MEASURES, *EXAMPLE])
    out = run_cli(["--format", "json", "-q", *MEASURES, *EXAMPLE])
    assert out.rc == 0 and out.stderr == text.stderr  # the same notes (the example's ties)
    doc = json.loads(out.stdout)
    assert doc["compat"] == "10" and isinstance(doc["trecgain"], str) and doc["qrels"] == QRELS
    (run,) = doc["runs"]
    assert run["file"] == RUN and run["runid"] == "bm25"
    flat = [(name, "all", v) for name, v in run["aggregate"].items()]
    flat = [(name, qid, v) for qid, values in run["per_query"].items() for name, v in values.items()] + flat
    expected = trec_lines(text.stdout)
    assert [(n, q) for n, q, _ in flat] == [(n, q) for n, q, _ in expected]  # the trec text's order
    for (name, qid, value), (_, _, printed) in zip(flat, expected):
        assert same_value(printed, value), (name, qid, value, printed)
    aggregate = Evaluator(QRELS, measures=["official", "ndcg_cut.5,10", "relstring", "nDCG@20"]).evaluate(RUN).aggregate
    assert run["aggregate"] == aggregate  # exactly, not rounded
    assert isinstance(run["aggregate"]["num_ret"], int) and run["aggregate"]["num_ret"] == 14
    assert run["aggregate"]["map"] != round(run["aggregate"]["map"], 4)  # full precision, not 4 decimals
    assert run["per_query"]["301"]["relstring"] == "323012"


def test_json_options_say_what_was_in_effect():
    doc = json.loads(run_cli(["--format", "json", "-c", "-l", "2", "-M", "5", "--compat", "9", "-J",
                              "--discount", "log:e", "-m", "ndcg", *EXAMPLE]).stdout)
    assert doc["compat"] == "9"
    options = doc["options"]
    assert options["measures"] == ["ndcg"] and options["complete"] is True and options["judged_only"] is True
    assert options["relevance_level"] == 2 and options["max_docs"] == 5 and options["discount"] == "log:e"
    assert options["per_query"] is False and options["nosummary"] is False and options["global_gains"] is None
    for key in ("num_docs", "exact_ideal", "fractional_grades", "err_max_grade"):
        assert key in options
    assert json.loads(run_cli(["--format", "json", *EXAMPLE]).stdout)["options"]["measures"] == ["official"]


def test_json_nosummary_has_no_aggregate_key():
    doc = json.loads(run_cli(["--format", "json", "-n", "-q", "-m", "map", *EXAMPLE]).stdout)
    (run,) = doc["runs"]
    assert "aggregate" not in run and set(run["per_query"]) == {"301", "302", "303"}
    assert "per_query" not in json.loads(run_cli(["--format", "json", "-m", "map", *EXAMPLE]).stdout)["runs"][0]


def _strict(text: bytes) -> object:
    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_nan_is_null_in_json_and_empty_in_csv(tmp_path: Path):
    """Rndcg with -l 0 on a query judged all 0 is 0/0 (trec_eval prints -nan)."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_bytes(b"1 0 a 0\n1 0 b 0\n2 0 c 1\n")
    run.write_bytes(b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n")
    args = ["-q", "-l", "0", "-m", "Rndcg", str(qrels), str(run)]
    assert b"-nan" in run_cli(args).stdout
    doc = _strict(run_cli(["--format", "json", *args]).stdout)
    assert doc["runs"][0]["aggregate"] == {"Rndcg": None}
    assert doc["runs"][0]["per_query"] == {"1": {"Rndcg": None}, "2": {"Rndcg": 1.0}}
    rows = [_strict(line) for line in run_cli(["--format", "jsonl", *args]).stdout.splitlines()]
    assert [r["value"] for r in rows] == [None, 1.0, None]
    table = list(csv.reader(io.StringIO(run_cli(["--format", "csv", *args]).stdout.decode())))
    assert [r[3] for r in table[1:]] == ["", "1.0", ""]
    assert "| -nan |" in run_cli(["--format", "markdown", *args[1:]]).stdout.decode()


@pytest.mark.parametrize("compat, absent_shown", [("10", True), ("9", False)])
def test_complete_queries_the_run_lacks_as_the_trec_text_has_them(other_run, compat, absent_shown):
    args = ["-c", "-q", "--compat", compat, "-m", "ndcg", "-m", "num_ret", QRELS, other_run]
    text = trec_lines(run_cli(args).stdout)
    doc = json.loads(run_cli(["--format", "json", *args]).stdout)
    per_query = doc["runs"][0]["per_query"]
    assert list(per_query) == list(dict.fromkeys(q for _, q, _ in text if q != "all"))
    assert ("302" in per_query) is absent_shown
    if absent_shown:
        assert per_query["302"] == {"num_ret": 0, "ndcg": 0.0}


def test_result_to_json_is_the_commands_run_object():
    res = Evaluator(QRELS, measures=["map", "ndcg", "runid"]).evaluate(RUN)
    doc = json.loads(run_cli(["--format", "json", "-q", "-m", "map", "-m", "ndcg", "-m", "runid", *EXAMPLE]).stdout)
    assert json.loads(res.to_json(per_query=True)) == doc["runs"][0]
    plain = json.loads(res.to_json())
    assert plain == {"file": RUN, "runid": "bm25", "aggregate": res.aggregate}
    assert "aggregate" not in json.loads(res.to_json(summary=False))
    with pytest.raises(TrecgainError, match="per_query must be True or False"):
        res.to_json(per_query="yes")


# ---------------------------------------------------------------- rows


@pytest.mark.parametrize("form, delimiter", [("csv", ","), ("tsv", "\t")])
def test_csv_and_tsv_rows_are_the_trec_lines(other_run, form, delimiter):
    args = ["-q", *MEASURES, QRELS, RUN, other_run]
    text = trec_lines(run_cli(args).stdout)
    out = run_cli(["--format", form, *args])
    assert out.rc == 0
    table = list(csv.reader(io.StringIO(out.stdout.decode()), delimiter=delimiter))
    assert table[0] == ["run", "query", "measure", "value", "summary"]
    assert len(table) - 1 == len(text)
    runs = [r[0] for r in table[1:]]
    assert runs == sorted(runs, key=[RUN, other_run].index) and set(runs) == {RUN, other_run}
    for (run, query, measure, value, summary), (name, qid, printed) in zip(table[1:], text):
        assert (measure, query, summary) == (name, qid, "true" if qid == "all" else "false")
        assert same_text(printed, value), (measure, query, value, printed)


def test_csv_quotes_what_needs_quoting(tmp_path: Path):
    run = tmp_path / "a,b.txt"
    shutil.copy(RUN, run)
    out = run_cli(["--format", "csv", "-m", "map", QRELS, str(run)]).stdout.decode()
    assert list(csv.reader(io.StringIO(out)))[1][0] == str(run)
    assert f'"{run}"' in out


def test_jsonl_rows_are_the_csv_rows():
    args = ["-q", *MEASURES, *EXAMPLE]
    rows = [json.loads(line) for line in run_cli(["--format", "jsonl", *args]).stdout.splitlines()]
    table = list(csv.DictReader(io.StringIO(run_cli(["--format", "csv", *args]).stdout.decode())))
    assert [list(r) for r in rows] == [["run", "query", "measure", "value", "summary"]] * len(rows)
    assert [{k: json.dumps(v) if isinstance(v, bool) else str(v) for k, v in r.items()} for r in rows] == table
    assert rows[-1]["query"] == "all"


def test_long_dataframe_is_the_rows_and_wide_keeps_its_default():
    res = Evaluator(QRELS, measures=["map", "ndcg", "runid"]).evaluate(RUN)
    long = res.to_dataframe(form="long", summary=True)
    assert list(long.columns) == ["run", "query", "measure", "value", "summary"]
    rows = [json.loads(line) for line in
            run_cli(["--format", "jsonl", "-q", "-m", "map", "-m", "ndcg", "-m", "runid", *EXAMPLE]).stdout.splitlines()]
    assert long.to_dict("records") == rows
    assert "all" not in set(res.to_dataframe(form="long")["query"])
    wide = res.to_dataframe()
    assert list(wide.index) == ["301", "302", "303"] and list(wide.columns) == ["map", "ndcg"]
    assert res.to_dataframe(summary=True).loc["all", "map"] == res.aggregate["map"]
    with pytest.raises(TrecgainError, match="form must be one of"):
        res.to_dataframe(form="tall")


@pytest.fixture
def all_query(tmp_path: Path) -> list[str]:
    """Qrels and a run with a query named `all`, beside query 1 (printed before it)."""
    (tmp_path / "qrels").write_bytes(b"all 0 a 1\nall 0 b 0\nall 0 c 2\n1 0 a 2\n1 0 b 1\n")
    (tmp_path / "run").write_bytes(b"all Q0 a 1 2 t\nall Q0 b 2 1 t\n1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n")
    return [str(tmp_path / "qrels"), str(tmp_path / "run")]


_FLAG = {True: True, False: False, "true": True, "false": False}  # JSON's and CSV's spellings, nothing else


def _table_rows(form: str, stdout: bytes) -> list[dict]:
    if form == "jsonl":
        return [json.loads(line) for line in stdout.splitlines()]
    return list(csv.DictReader(io.StringIO(stdout.decode()), delimiter="," if form == "csv" else "\t"))


@pytest.mark.parametrize("form", ["csv", "tsv", "jsonl"])
def test_rows_say_whether_they_are_the_summary(all_query, form):
    """A query named `all` has the summary's query field: the summary field tells them apart.
    The expectation: the trec text's `all` lines alone (no -q), and its per-query lines
    alone (-q -n)."""
    args = ["-Q", "-m", "map", "-m", "P.5", "-m", "runid", *all_query]
    summary = [(name, qid) for name, qid, _ in trec_lines(run_cli(args).stdout)]
    per_query = [(name, qid) for name, qid, _ in trec_lines(run_cli(["-q", "-n", *args]).stdout)]
    assert ("map", "all") in summary and ("map", "all") in per_query  # the same two fields
    rows = _table_rows(form, run_cli(["--format", form, "-q", *args]).stdout)
    assert [(r["measure"], r["query"]) for r in rows if _FLAG[r["summary"]]] == summary
    assert [(r["measure"], r["query"]) for r in rows if not _FLAG[r["summary"]]] == per_query
    rows = _table_rows(form, run_cli(["--format", form, "-q", "-n", *args]).stdout)
    assert [(r["measure"], r["query"]) for r in rows] == per_query and not any(_FLAG[r["summary"]] for r in rows)


def test_long_dataframe_says_which_rows_are_the_summary(all_query):
    long = Evaluator(all_query[0], measures=["map", "P.5"]).evaluate(all_query[1]).to_dataframe(form="long",
                                                                                                 summary=True)
    args = ["-Q", "-m", "map", "-m", "P.5", *all_query]
    summary = [(name, qid) for name, qid, _ in trec_lines(run_cli(args).stdout)]
    per_query = [(name, qid) for name, qid, _ in trec_lines(run_cli(["-q", "-n", *args]).stdout)]
    assert long["summary"].dtype == bool
    assert list(zip(long[long["summary"]]["measure"], long[long["summary"]]["query"])) == summary
    assert list(zip(long[~long["summary"]]["measure"], long[~long["summary"]]["query"])) == per_query


# ---------------------------------------------------------------- markdown


def test_markdown_is_one_table_of_the_runs(other_run):
    out = run_cli(["--format", "markdown", "-m", "map", "-m", "ndcg_cut.10", "-m", "runid", QRELS, RUN, other_run])
    lines = out.stdout.decode().splitlines()
    assert lines[0] == "| run | runid | map | ndcg_cut_10 |" and lines[1].startswith("|---|")
    assert len(lines) == 4
    for line, run in zip(lines[2:], (RUN, other_run)):
        text = dict((n, v) for n, _, v in trec_lines(run_cli(["-m", "map", "-m", "ndcg_cut.10", "-m", "runid",
                                                                QRELS, run]).stdout))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells == [run, text["runid"], text["map"].strip(), text["ndcg_cut_10"].strip()]


@pytest.mark.parametrize("flag", ["-q", "-n"])
def test_markdown_refuses_per_query_and_nosummary(flag):
    out = run_cli(["--format", "markdown", flag, *EXAMPLE])
    assert out.rc == 2 and out.stdout == b"" and out.stderr.count("\n") == 1 and "markdown" in out.stderr


def test_unknown_format_is_a_usage_error():
    out = run_cli(["--format", "xml", *EXAMPLE])
    assert out.rc == 2 and out.stdout == b"" and "--format takes trec, json" in out.stderr


# ---------------------------------------------------------------- -j


@pytest.mark.parametrize("form", FORMATS)
def test_jobs_give_the_same_output_in_every_format(other_run, form):
    args = ["--format", form, *(["-q"] if form != "markdown" else []), *MEASURES, QRELS, RUN, other_run, RUN]
    one = run_cli(["-j", "1", *args])
    two = run_process(["-j", "2", *args])
    assert one.rc == 0 and two.rc == 0 and one.stdout and two.stdout == one.stdout


def test_jobs_keep_full_precision(other_run):
    """With -j and a format other than trec the workers' text holds the values at full precision."""
    out = run_process(["-j", "2", "--format", "json", "-m", "map", QRELS, RUN, other_run])
    doc = json.loads(out.stdout)
    for run in doc["runs"]:
        assert run["aggregate"]["map"] == Evaluator(QRELS, measures=["map"]).evaluate(run["file"]).aggregate["map"]


# ---------------------------------------------------------------- --fail-under


def _map() -> float:
    return Evaluator(QRELS, measures=["map"]).evaluate(RUN).aggregate["map"]


def test_fail_under_prints_everything_then_exits_3(other_run):
    plain = run_cli(["-m", "map", "-m", "ndcg_cut.10", QRELS, RUN, other_run])
    out = run_cli(["--fail-under", "ndcg_cut_10=0.99", "--fail-under", "map=0.1", "-m", "map", "-m", "ndcg_cut.10",
                   QRELS, RUN, other_run])
    assert out.rc == 3 and out.stdout == plain.stdout
    values = {run: dict((n, v) for n, _, v in trec_lines(run_cli(["-m", "ndcg_cut.10", QRELS, run]).stdout))
              for run in (RUN, other_run)}
    lines = [line for line in out.stderr.splitlines() if not line.startswith("trecgain: note: ")]
    assert len(lines) == 2
    for line, run in zip(lines, (RUN, other_run)):
        prefix = f"trecgain: {run}: ndcg_cut_10 = "
        assert line.startswith(prefix) and line.endswith(" is below --fail-under 0.99")
        value = float(line[len(prefix):].split(" ")[0])
        assert f"{value:.4f}" == values[run]["ndcg_cut_10"]


def test_fail_under_is_strictly_below():
    value = _map()
    assert run_cli(["--fail-under", f"map={value!r}", "-m", "map", *EXAMPLE]).rc == 0
    above = math.nextafter(value, 1.0)
    out = run_cli(["--fail-under", f"map={above!r}", "-m", "map", *EXAMPLE])
    assert out.rc == 3 and f"map = {value!r} is below --fail-under {above!r}" in out.stderr


def test_fail_under_nan_counts_as_below(tmp_path: Path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_bytes(b"1 0 a 0\n")
    run.write_bytes(b"1 Q0 a 1 2 t\n")
    out = run_cli(["-l", "0", "-m", "Rndcg", "--fail-under", "Rndcg=-1000", str(qrels), str(run)])
    assert out.rc == 3 and "Rndcg = nan is below --fail-under -1000" in out.stderr


@pytest.mark.parametrize("measure, name", [("nDCG@10", "ndcg_cut_10"), ("ndcg_cut.10", "nDCG@10"),
                                           ("nDCG@10", "nDCG@10"), ("map", "AP"), ("P.10", "P@10")])
def test_fail_under_takes_printed_and_ir_measures_names(measure, name):
    out = run_cli(["-m", measure, "--fail-under", f"{name}=0.999", *EXAMPLE])
    assert out.rc == 3 and out.stdout == run_cli(["-m", measure, *EXAMPLE]).stdout
    assert f": {name} = " in out.stderr
    assert run_cli(["-m", measure, "--fail-under", f"{name}=0.01", *EXAMPLE]).rc == 0


def test_fail_under_a_gain_string_line():
    out = run_cli(["-m", "ndcg.1=1,2=3", "--fail-under", "ndcg_1=1,2=3=0.999", *EXAMPLE])
    assert out.rc == 3 and "ndcg_1=1,2=3 = " in out.stderr


@pytest.mark.parametrize("spec, measures, words", [
    ("ndcg_cut_10=0.3", ["-m", "map"], ["ndcg_cut_10", "-m ndcg_cut.10 would print it"]),
    ("P_25=0.3", [], ["P_25", "-m P.25 would print it"]),
    ("nDCG@10=0.3", ["-m", "map"], ["nDCG@10", "-m nDCG@10 would print it"]),
    ("iprec_at_recall_0.50=0.3", ["-m", "map"], ["-m iprec_at_recall.0.50 would print it"]),
    ("relstring=0.3", ["-m", "relstring"], ["relstring has no 'all' line"]),
    ("runid=0.3", ["-m", "runid"], ["run tag, not a number"]),
    ("nonsense=0.3", ["-m", "map"], ["nonsense", "no measure prints"]),
    ("map=high", ["-m", "map"], ["'high' is not a finite number"]),
    ("map=nan", ["-m", "map"], ["not a finite number"]),
    ("map", ["-m", "map"], ["NAME=VALUE"]),
])
def test_fail_under_usage_errors_come_before_anything_is_read(tmp_path, spec, measures, words):
    missing = str(tmp_path / "no-such-qrels")  # not read: the usage error comes first
    out = run_cli(["--fail-under", spec, *measures, missing, RUN])
    assert out.rc == 2 and out.stdout == b"" and out.stderr.count("\n") == 1
    for word in words:
        assert word in out.stderr


def test_fail_under_with_nosummary_is_a_usage_error():
    out = run_cli(["-n", "--fail-under", "map=0.1", *EXAMPLE])
    assert out.rc == 2 and out.stdout == b"" and "-n" in out.stderr


def test_fail_under_with_jobs_and_formats(other_run):
    out = run_process(["-j", "2", "--format", "csv", "--fail-under", "map=0.99", "-m", "map", QRELS, RUN, other_run])
    assert out.rc == 3 and out.stdout == run_cli(["--format", "csv", "-m", "map", QRELS, RUN, other_run]).stdout
    assert len([line for line in out.stderr.splitlines() if "below --fail-under" in line]) == 2


# ---------------------------------------------------------------- -o


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("form", FORMATS)
def test_output_file_holds_what_stdout_would(tmp_path, form):
    target = tmp_path / "results"
    args = ["-Q", "--format", form, "-m", "map", "-m", "ndcg", *EXAMPLE]
    out = run_cli(["-o", str(target), *args])
    assert out.rc == 0 and out.stdout == b"" and out.stderr == ""
    assert target.read_bytes() == run_cli(args).stdout
    assert _leftovers(tmp_path) == []
    assert run_cli(["--output", "-", *args]).stdout == target.read_bytes()  # -o -: standard output


def test_output_replaces_an_old_file_keeping_its_permissions(tmp_path):
    target = tmp_path / "results.txt"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    assert run_cli(["-o", str(target), "-m", "map", *EXAMPLE]).rc == 0
    assert target.read_bytes() == run_cli(["-m", "map", *EXAMPLE]).stdout
    assert target.stat().st_mode & 0o777 == 0o640


def test_output_untouched_when_a_run_is_bad(tmp_path):
    target, bad = tmp_path / "results.txt", tmp_path / "bad.txt"
    target.write_bytes(b"old\n")
    bad.write_bytes(b"301 Q0 x 1 high t\n")
    out = run_cli(["-o", str(target), "-m", "map", QRELS, RUN, str(bad)])
    assert out.rc == 1 and "high" in out.stderr and out.stdout == b""
    assert target.read_bytes() == b"old\n" and _leftovers(tmp_path) == []


@pytest.mark.parametrize("failure, status", [(TrecgainError("disk on fire"), 1), (KeyboardInterrupt(), 130)])
def test_output_failing_mid_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, failure, status):
    from trecgain.evaluate import Result

    target = tmp_path / "results.txt"
    target.write_bytes(b"old\n")
    real = Result.write_trec

    def half_then_fail(self, write, per_query=False, summary=True):
        real(self, write, per_query, summary)  # the first run's text is written ...
        raise failure  # ... and then the job fails

    monkeypatch.setattr(Result, "write_trec", half_then_fail)
    out = run_cli(["-o", str(target), "-q", "-m", "map", *EXAMPLE])
    assert out.rc == status and out.stdout == b"" and out.stderr.count("\n") == 1
    assert target.read_bytes() == b"old\n" and _leftovers(tmp_path) == []


def test_output_full_disk_is_one_error():
    out = run_cli(["-o", "/dev/full", "-m", "map", *EXAMPLE])
    assert out.rc == 1 and out.stdout == b"" and "No space left on device" in out.stderr


@pytest.mark.parametrize("which", [0, 1, 2])
def test_output_refuses_an_input_file(tmp_path, which):
    files = [tmp_path / "qrels", tmp_path / "run1", tmp_path / "run2"]
    for f, source in zip(files, (QRELS, RUN, RUN)):
        shutil.copy(source, f)
    before = [f.read_bytes() for f in files]
    out = run_cli(["-o", str(files[which]), "-m", "map", *map(str, files)])
    assert out.rc == 1 and out.stdout == b"" and "refusing to overwrite" in out.stderr
    assert [f.read_bytes() for f in files] == before and _leftovers(tmp_path) == []
    via_link = tmp_path / "link"
    via_link.symlink_to(files[which])
    assert run_cli(["-o", str(via_link), "-m", "map", *map(str, files)]).rc == 1  # the same file, named otherwise


def test_output_refuses_trec_evals_spelling_of_its_old_flag(tmp_path):
    """`trec_eval -o qrels run1 run2`: -o takes the qrels; the qrels would be overwritten."""
    qrels = tmp_path / "qrels"
    shutil.copy(QRELS, qrels)
    out = run_cli(["-o", str(qrels), RUN, RUN])
    assert out.rc == 1 and "looks like a qrels or run file" in out.stderr
    assert qrels.read_bytes() == Path(QRELS).read_bytes()
    assert run_cli(["--Output_old_results_format", "-m", "map", *EXAMPLE]).stdout == run_cli(["-m", "map",
                                                                                                *EXAMPLE]).stdout


def test_output_with_fail_under_writes_then_exits_3(tmp_path):
    target = tmp_path / "r.json"
    out = run_cli(["-o", str(target), "--format", "json", "--fail-under", "map=0.99", "-m", "map", *EXAMPLE])
    assert out.rc == 3 and json.loads(target.read_bytes())["runs"][0]["aggregate"]["map"] == _map()


def test_output_into_a_missing_directory_is_an_error(tmp_path):
    out = run_cli(["-o", str(tmp_path / "no" / "file"), "-m", "map", *EXAMPLE])
    assert out.rc == 1 and out.stdout == b"" and "no such directory" in out.stderr


def test_output_in_a_real_process(tmp_path):
    target = tmp_path / "out.csv"
    out = run_process(["-o", str(target), "--format", "csv", "-m", "map", *EXAMPLE])
    assert out.rc == 0 and out.stdout == b"" and target.read_text().startswith("run,query,measure,value,summary\n")
    assert _leftovers(tmp_path) == []


# ---------------------------------------------------------------- -Q


def test_quiet_silences_warnings_not_errors_nor_misses(tmp_path):
    run = tmp_path / "cr.txt"
    run.write_bytes(CR_RUN)
    loud = run_cli(["-m", "map", QRELS, str(run)])
    assert loud.rc == 0 and loud.stderr.startswith("trecgain: warning: ")
    quiet = run_cli(["-Q", "-m", "map", QRELS, str(run)])
    assert quiet.rc == 0 and quiet.stderr == "" and quiet.stdout == loud.stdout
    assert run_cli(["--quiet", "-m", "map", QRELS, str(run)]).stderr == ""
    error = run_cli(["-Q", "-m", "nonsense", QRELS, str(run)])
    assert error.rc == 1 and "unknown measure" in error.stderr
    miss = run_cli(["-Q", "--fail-under", "map=0.99", "-m", "map", QRELS, str(run)])
    assert miss.rc == 3 and miss.stderr.count("\n") == 1 and "below --fail-under" in miss.stderr
    # notes too: the example's ties decide a value
    assert "trecgain: note: ties between" in run_cli(["-m", "map", *EXAMPLE]).stderr
    assert run_cli(["-Q", "-m", "map", *EXAMPLE]).stderr == ""


_UNLABELLED = "-m runid"


def _unlabelled_notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if _UNLABELLED in line]


@pytest.mark.parametrize("jobs", [[], ["-j", "2"]])
def test_several_runs_in_trec_text_get_one_note_on_labelling_them(other_run, tmp_path, jobs):
    """trec_eval prints the runs' blocks one after another, unlabelled: stdout stays exactly
    that (each run's text alone, joined), and one note after the results says how to label them."""
    args = [*jobs, "-m", "map", "-m", "P.5", QRELS, RUN, other_run, RUN]
    run = run_process if jobs else run_cli
    out = run(args)
    assert out.rc == 0
    assert out.stdout == b"".join(run_cli(["-Q", "-m", "map", "-m", "P.5", QRELS, r]).stdout
                                  for r in (RUN, other_run, RUN))
    notes = _unlabelled_notes(out.stderr)
    assert len(notes) == 1 and notes[0].startswith("trecgain: note: ") and "--format markdown" in notes[0]
    assert "3 runs" in notes[0] and out.stderr.splitlines()[-1] == notes[0]  # after the other notes
    written = run_cli(["-o", str(tmp_path / "out.txt"), *args[len(jobs):]])
    assert _unlabelled_notes(written.stderr) == notes  # the file's blocks are as unlabelled


@pytest.mark.parametrize("args", [
    ["-m", "map", QRELS, RUN],  # one run
    ["-Q", "-m", "map", QRELS, RUN, RUN],  # quiet
    ["-m", "map", "-m", "runid", QRELS, RUN, RUN],  # labelled by their runid lines
    ["-m", "all_trec", QRELS, RUN, RUN],  # runid among a nickname's measures
    ["--format", "csv", "-m", "map", QRELS, RUN, RUN],  # a format that names the runs
    ["--format", "markdown", "-m", "map", QRELS, RUN, RUN],
])
def test_no_labelling_note_when_the_runs_are_labelled_or_alone(args):
    out = run_cli(args)
    assert out.rc == 0 and out.stdout and _unlabelled_notes(out.stderr) == []


def test_quiet_with_jobs(tmp_path):
    run = tmp_path / "cr.txt"
    run.write_bytes(CR_RUN)
    assert run_process(["-j", "2", "-m", "map", QRELS, str(run), RUN]).stderr.startswith("trecgain: warning: ")
    assert run_process(["-Q", "-j", "2", "-m", "map", QRELS, str(run), RUN]).stderr == ""


# ---------------------------------------------------------------- help


def test_help_lists_the_subcommands_and_new_options():
    text = run_cli(["--help"]).stdout.decode()
    for name, (_, help) in SUBCOMMANDS.items():
        assert f"trecgain {name}" in text and help in text
    for option in ("--format FORMAT", "-o, --output FILE", "--fail-under NAME=VALUE", "-Q, --quiet",
                   "--Output_old_results_format"):
        assert option in text


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_subcommand_answers_help(name, flag):
    out = run_cli([name, flag])
    assert out.rc == 0 and out.stderr == "" and out.stdout.decode().startswith(f"usage: trecgain {name}")


def test_gdeval_still_refuses_bad_arguments():
    out = run_cli(["gdeval", QRELS])
    assert out.rc == 2 and out.stdout == b"" and "usage: trecgain gdeval QRELS RUN K" in out.stderr


# ---------------------------------------------------------------- completion


def _script(shell: str) -> str:
    out = run_cli(["completion", shell])
    assert out.rc == 0 and out.stderr == ""
    return out.stdout.decode()


#: The program's folder first on PATH: a completion script runs `trecgain` to ask what to offer.
_ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
_ENV.pop("_TRECGAIN_COMPLETE", None)


def _bash_reply(*words: str, line: str | None = None) -> list[str]:
    """What bash offers with the script loaded, for the words (or the line) before the cursor,
    set as bash sets them (COMP_LINE, COMP_POINT, COMP_WORDS, COMP_CWORD) and the function that
    `complete -p trecgain` names called as bash calls it."""
    line = " ".join(words) if line is None else line
    setup = (f"COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}; "
             f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={max(len(words) - 1, 0)}")
    code = (f'source <(cat); {setup}; function=$(complete -p trecgain | sed -n "s/.*-F \\([^ ]*\\) .*/\\1/p"); '
            '"$function" trecgain; printf "%s\\n" "${COMPREPLY[@]}"')
    proc = subprocess.run(["bash", "-c", code], input=_script("bash"), capture_output=True, text=True, cwd=ROOT,
                          env=_ENV)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return [w for w in proc.stdout.split("\n") if w]


def test_bash_completes_measures_after_m():
    offered = _bash_reply("trecgain", "-m", "nd")
    assert "ndcg_cut" in offered and "ndcg" in offered and all(w.startswith("nd") for w in offered)
    assert "ndcg_cut" in _bash_reply("trecgain", "--measure", "ndcg_c")
    assert "nDCG@10" in _bash_reply("trecgain", "-m", "nDCG")
    assert "official" in _bash_reply("trecgain", "-q", "-m", "")


def test_bash_completes_what_each_position_takes():
    assert _bash_reply("trecgain", "--format", "") == ["trec", "json", "jsonl", "csv", "tsv", "markdown"]
    assert _bash_reply("trecgain", "--compat", "") == ["10", "9"]
    assert "--fail-under" in _bash_reply("trecgain", "--fa") and "--format" in _bash_reply("trecgain", "--fo")
    assert "-Q" in _bash_reply("trecgain", "-")
    assert _bash_reply("trecgain", "compl") == ["completion"]
    assert _bash_reply("trecgain", "completion", "") == ["bash", "zsh", "fish"]
    assert _bash_reply("trecgain", "-q", "testdata/exam") == ["testdata/example"]  # file names elsewhere
    assert _bash_reply("trecgain", "-l", "") == []  # a number


def test_bash_completes_subcommands_options():
    assert "--all-pairs" in _bash_reply("trecgain", "compare", "--al")
    assert _bash_reply("trecgain", "compare", "--correction", "b") == ["bonferroni", "benjamini-hochberg"]
    assert "--query" in _bash_reply("trecgain", "explain", "--qu")
    assert "ndcg_cut" in _bash_reply("trecgain", "explain", "-m", "ndcg_c")


def test_bash_completion_as_readline_splits_words():
    """bash breaks words at '=', '@' and ':' (COMP_WORDBREAKS): only the text after is replaced."""
    assert "10" in _bash_reply(line="trecgain -m nDCG@1")
    assert "ndcg_cut" in _bash_reply(line="trecgain --measure=ndcg_c")
    assert _bash_reply(line="trecgain --format=cs") == ["csv"]


def _typed(measure) -> str:
    """How a measure is typed after -m: its name, or a measure with named parameters as
    ir_measures names it (at cutoff 20)."""
    return measure.ir_measures[0].replace("@k", "@20") if measure.naming == "named" else measure.name


def test_completion_names_come_from_the_registry():
    from trecgain.measures import NICKNAMES, REGISTRY

    offered = set(_bash_reply("trecgain", "-m", ""))
    for m in REGISTRY:
        assert _typed(m) in offered
    assert set(NICKNAMES["10"]) <= offered and {"nDCG@10", "AP", "RR@10", "P@10"} <= offered


def _offered(shell: str, words: list[str], incomplete: str) -> list[str]:
    """What the program answers a zsh or fish script's request, with the variables the script
    sets (click's protocol: zsh gets type, value, help triples; fish value[TAB help] after the type)."""
    if shell == "zsh":
        env = {"COMP_WORDS": " ".join([*words, incomplete]), "COMP_CWORD": str(len(words))}
    else:
        env = {"COMP_WORDS": " ".join([*words, incomplete]), "COMP_CWORD": incomplete}
    proc = subprocess.run(["trecgain"], env={**_ENV, **env, "_TRECGAIN_COMPLETE": f"{shell}_complete"},
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    if shell == "zsh":
        return [value for kind, value in zip(lines[::3], lines[1::3]) if kind == "plain"] + \
               [kind.upper() + "S" for kind in lines[::3] if kind == "file"]
    return [line.split(",", 1)[1].split("\t")[0] if line.startswith("plain,") else "FILES" for line in lines]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts(shell, tmp_path):
    from trecgain.measures import REGISTRY

    text = _script(shell)
    assert "_TRECGAIN_COMPLETE" in text and f"{shell}_complete" in text  # click's script
    offered = _offered(shell, ["trecgain", "-m"], "")
    for word in [_typed(m) for m in REGISTRY] + ["nDCG@10", "official"]:
        assert word in offered
    assert "markdown" in _offered(shell, ["trecgain", "--format"], "")
    assert "--fail-under" in _offered(shell, ["trecgain"], "--f")
    assert _offered(shell, ["trecgain"], "compl") == ["completion", "FILES"]
    assert _offered(shell, ["trecgain", "-q"], "x") == ["FILES"]
    if shutil.which(shell) is None:
        return  # not installed here: the program's answers are all there is to check
    script = tmp_path / f"trecgain.{shell}"
    script.write_text(text)
    proc = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    if shell == "fish":  # fish completes a command line on request: check what it offers
        for line, expected in (("trecgain -m ndcg_c", "ndcg_cut"), ("trecgain --format ", "markdown"),
                               ("trecgain --compat ", "9"), ("trecgain completion ", "zsh")):
            proc = subprocess.run(["fish", "-c", f"source {script}; complete -C {line!r}"], capture_output=True,
                                  text=True, env=_ENV)
            assert expected in [w.split("\t")[0] for w in proc.stdout.splitlines()], (line, proc.stdout)


def test_zsh_script_offers_measures_under_stubbed_completion(tmp_path):
    """The zsh function run with its completion builtins stubbed (zsh -f, no compinit)."""
    if shutil.which("zsh") is None:
        assert "compadd" in _script("zsh")
        return
    script = tmp_path / "trecgain.zsh"
    script.write_text(_script("zsh"))
    harness = (
        "compdef() { : }; _path_files() { print -- FILES }; _files() { print -- FILES }; "
        "compadd() { while [[ $1 == -* ]]; do if [[ $1 == -a ]]; then print -l -- \"${(@P)2}\"; return; fi; "
        "[[ $1 == -V ]] && shift; shift; done; print -l -- \"$@\" }; "
        "_describe() { local -a a; a=(\"${(@P)3}\"); print -l -- \"${a[@]%%:*}\" }; "
        f"source {script}; words=(\"$@\"); CURRENT=$#; PREFIX=${{words[CURRENT]}}; _trecgain_completion")

    def offered(*words: str) -> list[str]:
        proc = subprocess.run(["zsh", "-f", "-c", harness, "zsh", *words], capture_output=True, text=True,
                              env=_ENV)
        assert proc.returncode in (0, 1) and proc.stderr == "", proc.stderr
        return proc.stdout.split()

    assert "ndcg_cut" in offered("trecgain", "-m", "nd")
    assert offered("trecgain", "--compat", "") == ["10", "9"]
    assert "csv" in offered("trecgain", "--format=c")
    assert offered("trecgain", "completion", "") == ["bash", "zsh", "fish"]
    assert "--fail-under" in offered("trecgain", "--f")
    assert offered("trecgain", "-q", "x") == ["FILES"]


def test_completion_usage_errors():
    for args in (["completion"], ["completion", "tcsh"], ["completion", "bash", "zsh"]):
        out = run_cli(args)
        assert out.rc == 2 and out.stdout == b"" and "bash|zsh|fish" in out.stderr


_SIGNALLED_WRITE = r"""
import os, signal, sys
from trecgain import _core, cli
from trecgain.cli import console
from trecgain.evaluate import Result

_core.exit_on_interrupt(True)  # as the trecgain program does (trecgain._entry)
console.CORE_HANDLES_INTERRUPT = True
real = Result.write_trec

def signalled(self, write, per_query=False, summary=True):
    real(self, write, per_query, summary)  # part of the results are in the temporary file
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    real(self, write, per_query, summary)

Result.write_trec = signalled
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.mark.parametrize("signal_name, status", [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_output_signalled_mid_write_leaves_the_old_file_and_no_temporary(tmp_path, signal_name, status):
    """In a real process, with the core's Ctrl-C handler (which ends the process at once)
    installed: a signal while the file is written removes the temporary file."""
    import sys

    target = tmp_path / "results.txt"
    target.write_bytes(b"old\n")
    proc = subprocess.run([sys.executable, "-c", _SIGNALLED_WRITE, signal_name, "-o", str(target), "-m", "map",
                           *EXAMPLE], capture_output=True, cwd=ROOT)
    assert proc.returncode == status and proc.stdout == b"", proc.stderr
    assert b"Traceback" not in proc.stderr
    assert target.read_bytes() == b"old\n" and _leftovers(tmp_path) == []


def _readme_examples() -> list[tuple[str, str]]:
    """(command, output) of each `$ ` line in the README's section on formats, its output the
    lines up to the next command; blocks abridged with '...' are left out."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Output formats, thresholds and exit statuses", 1)[1].split("\n## ", 1)[0]
    out = []
    for block in section.split("```")[1::2]:
        if "\n..." in block or "    ..." in block:
            continue
        command, lines = None, []
        for line in block.strip("\n").split("\n"):
            if line.startswith("$ "):
                if command is not None:
                    out.append((command, "\n".join(lines)))
                command, lines = line[2:], []
            else:
                lines.append(line)
        if command is not None:
            out.append((command, "\n".join(lines)))
    return out


def test_readme_examples_print_what_the_readme_says(tmp_path):
    """The section's examples run in order (each may use the files the ones before made)."""
    import sys

    examples = _readme_examples()
    assert len(examples) >= 10
    (tmp_path / "testdata").symlink_to(ROOT / "testdata")
    prelude = f'trecgain() {{ PYTHONPATH={ROOT} {sys.executable} -m trecgain "$@"; }}\n'
    for command, expected in examples:  # standard error interleaved as a terminal shows it
        proc = subprocess.run(["bash", "-c", prelude + "{ " + command + "; } 2>&1"], cwd=tmp_path,
                              capture_output=True, text=True)
        assert proc.stdout.rstrip("\n") == expected, (command, proc.stdout)


# ---------------------------------------------------------------- streaming


@pytest.mark.parametrize("args", [["-q"], [], ["-q", "-n"], ["-q", "-m", "Rndcg.1=0", "-c"]])
def test_json_is_streamed_in_json_dumps_layout(other_run, args):
    """The document, written a run and a query at a time, is exactly what json.dumps(indent=2)
    makes of it (the layout --format json had when it was made whole); each JSON line is what
    json.dumps makes of it."""
    for runs in ([RUN], [RUN, other_run]):
        out = run_cli(["--format", "json", *MEASURES, *args, QRELS, *runs])
        assert out.rc == 0
        text = out.stdout.decode()
        assert text == json.dumps(json.loads(text), indent=2) + "\n"
        lines = run_cli(["--format", "jsonl", *MEASURES, *args, QRELS, *runs]).stdout.decode().splitlines()
        assert lines and all(line == json.dumps(json.loads(line)) for line in lines)


def _many_queries(tmp_path: Path, n: int) -> tuple[str, str]:
    """qrels and a run of n queries (some the run lacks), crossing the core's blocks of queries."""
    qrels, run = tmp_path / "many.qrels", tmp_path / "many.run"
    qrels.write_text("".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(n) for d in range(3)))
    run.write_text("".join(f"q{q} Q0 d{d} {d} {10 - d} t\n" for q in range(n) if q % 7 for d in range(4)))
    return str(qrels), str(run)


@pytest.mark.parametrize("compat, measures", [("10", ["official"]), ("9", ["official", "rbp"])])
def test_streamed_query_values_are_the_kept_ones(tmp_path, compat, measures):
    """Result.each_query_values measures again block by block what keep_values=True keeps."""
    qrels, run = _many_queries(tmp_path, 9000)
    evaluator = Evaluator(qrels, measures=measures, compat=compat, complete=True)
    kept = evaluator.evaluate(run).query_values()
    streamed: list = []
    evaluator.evaluate(run, keep_values=False).each_query_values(lambda q, v: streamed.append((q, v)))
    assert len(kept) > 8192 and streamed == kept


@pytest.mark.parametrize("form", ["json", "jsonl", "csv", "tsv"])
def test_formats_with_many_queries_are_the_trec_lines(tmp_path, form):
    """Thousands of queries (several of the core's blocks) in every format, as the trec text."""
    qrels, run = _many_queries(tmp_path, 9000)
    args = ["-q", "-c", "-m", "P.5", "-m", "map", qrels, run]
    trec = trec_lines(run_cli(args).stdout)
    out = run_cli(["--format", form, *args]).stdout.decode()
    if form == "json":
        doc = json.loads(out)["runs"][0]
        got = [(m, q, v) for q, values in doc["per_query"].items() for m, v in values.items()]
        got += [(m, "all", v) for m, v in doc["aggregate"].items()]
    else:
        rows = [json.loads(line) for line in out.splitlines()] if form == "jsonl" else \
            list(csv.DictReader(io.StringIO(out), delimiter="\t" if form == "tsv" else ","))
        got = [(r["measure"], r["query"], r["value"]) for r in rows]
    assert [(m, q) for m, q, _ in got] == [(m, q) for m, q, _ in trec]
    assert all(same_value(p, v) if form in ("json", "jsonl") else same_text(p, v)
               for (_, _, v), (_, _, p) in zip(got, trec))


# ---------------------------------------------------------------- the registry of formats


def test_a_format_registered_is_used_end_to_end(tmp_path):
    """Adding a format is one module and one record: a test-only format, registered, is offered by
    --format (help and completion too), writes every run through the command, -j included, and is
    gone once unregistered."""
    from trecgain import formats
    from trecgain.formats import Format

    def write_run(values, out):
        for run, query, name, value, summary in formats.rows(values):
            out.write(f"{query}|{name}|{value}\n")

    formats.register(Format("pipes", "query|measure|value lines", write_run,
                            begin=lambda header, count, out: out.write(f"# {count} runs\n")))
    try:
        out = run_cli(["--format", "pipes", "-q", "-m", "map", QRELS, RUN, RUN])
        assert out.rc == 0, out.stderr
        expected = Evaluator(QRELS, measures=["map"]).evaluate(RUN)
        lines = out.stdout.decode().splitlines()
        assert lines[0] == "# 2 runs" and len(lines) == 1 + 2 * (len(expected.per_query) + len(expected.aggregate))
        for qid, values in expected.per_query.items():
            assert f"{qid}|map|{values['map']!r}" in lines
        assert f"all|map|{expected.aggregate['map']!r}" in lines
        assert run_cli(["-j", "2", "--format", "pipes", "-q", "-m", "map", QRELS, RUN, RUN]).stdout == out.stdout
        assert "pipes (query|measure|value lines)" in " ".join(run_cli(["-h"]).stdout.decode().split())
        from click.shell_completion import ShellComplete

        from trecgain.cli import PROGRAM

        offered = ShellComplete(PROGRAM, {}, "trecgain", "_TRECGAIN_COMPLETE").get_completions(["--format"], "")
        assert [item.value for item in offered] == [*formats.FORMATS]
    finally:
        formats.unregister("pipes")
    out = run_cli(["--format", "pipes", QRELS, RUN])
    assert out.rc == 2 and "option --format takes" in out.stderr
    with pytest.raises(ValueError):
        formats.unregister("trec")
    assert list(formats.FORMATS) == ["trec", "json", "jsonl", "csv", "tsv", "markdown"]


@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("summary", [False, True])
def test_result_to_json_is_laid_out_as_json_dumps(per_query, summary):
    """Result.to_json and --format json's runs come from one writer (at depth 0 and 2): its text
    is json.dumps(indent=2)'s of the same object, NaN as null."""
    result = Evaluator(QRELS, measures=["map", "Rndcg.1=0", "runid"]).evaluate(RUN)
    text = result.to_json(per_query=per_query, summary=summary)
    document = json.loads(text)
    assert text == json.dumps(document, indent=2)
    assert ("per_query" in document) == per_query and ("aggregate" in document) == summary
    if per_query:
        assert set(document["per_query"]) == set(result.per_query)
        for qid, values in result.per_query.items():
            assert document["per_query"][qid] == {k: (None if v != v else v) for k, v in values.items()}
