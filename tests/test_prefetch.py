"""The program's first reading (trecgain._entry, src/prefetch.rs): the last two arguments read as
qrels and run while click is imported, taken by the evaluation only when its options read those
files that way.  It may change when the files are read, never what is printed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import ROOT, first_reading, run_cli, run_process
from trecgain import _core, _entry

EXAMPLE = ROOT / "testdata" / "example"
QRELS, RUN = str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")


def test_take_hands_over_the_readings_once() -> None:
    ahead = _core.prefetch(QRELS, RUN)
    qrels, run = ahead.take(QRELS, RUN, True, True)
    assert isinstance(qrels, _core.Qrels) and isinstance(run, _core.Run)
    assert len(run) == sum(1 for line in Path(RUN).read_text().splitlines() if line.strip())
    assert run.qids == _core.Run.read(RUN, RUN, False).qids
    assert ahead.take(QRELS, RUN, True, True) == (None, None)


@pytest.mark.parametrize("paths, wanted, expected", [
    ((QRELS, RUN), (False, True), (False, True)),   # -R or fractional grades: the qrels are read again
    ((QRELS, RUN), (True, False), (True, False)),   # the rank column: the run is read again
    ((RUN, RUN), (True, True), (False, True)),      # another qrels file
    ((QRELS, QRELS), (True, True), (True, False)),  # another run file
])
def test_take_hands_over_only_what_matches(paths, wanted, expected) -> None:
    qrels, run = _core.prefetch(QRELS, RUN).take(*paths, *wanted)
    assert (qrels is not None, run is not None) == expected


def test_a_reading_that_fails_is_left_to_the_command() -> None:
    qrels, run = _core.prefetch(RUN, RUN).take(RUN, RUN, True, True)
    assert qrels is None and isinstance(run, _core.Run)  # a run is no qrels file; the run is read all the same
    assert _core.prefetch(QRELS, QRELS).take(QRELS, QRELS, True, True)[1] is None  # nor a run


@pytest.mark.parametrize("args", [
    ["-m", "ndcg", QRELS, RUN], [QRELS, RUN], ["-c", "-q", "-mndcg_cut.10", QRELS, RUN]])
def test_the_program_prefetches_the_usual_command_lines(args) -> None:
    assert _entry._prefetch(args, _core) is not None


def test_the_program_does_not_guess_where_it_could_cost(tmp_path: Path, monkeypatch) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for args in ([QRELS], ["explain", QRELS, RUN], [QRELS, "-"], ["-m", "ndcg", QRELS, str(fifo)],
                 [QRELS, RUN, "-m", "ndcg"], [QRELS, str(tmp_path)], [QRELS, str(tmp_path / "missing")],
                 ["-j", "2", QRELS, RUN, RUN],
                 ["-m", "ndcg", QRELS, "run\udcff.txt"]):
        assert _entry._prefetch(args, _core) is None, args
    monkeypatch.setattr(_entry, "PREFETCH_BYTES", os.path.getsize(QRELS) + os.path.getsize(RUN) - 1)
    assert _entry._prefetch([QRELS, RUN], _core) is None


@pytest.mark.parametrize("extra, expected", [
    ([], {"num_ret": "2", "num_rel": "1", "P_1": "1.0000"}),                      # both taken
    (["--fractional-grades"], {"num_ret": "2", "num_rel": "2", "P_1": "0.0000"}),  # qrels read again
    (["--ties", "rank"], {"num_ret": "3", "num_rel": "1", "P_1": "0.0000"})])      # run read again
def test_the_evaluation_takes_the_reading_its_options_make(tmp_path: Path, extra: list[str], expected: dict) -> None:
    """Both files changed after the prefetch read them: the evaluation prints what the prefetch
    read of each file its options read that way (the reading is taken), and what the file now
    says of the other (read again).  num_ret tells which run was used (2 lines, then 3), num_rel
    which qrels (1 relevant, then 2), and P_1 that the judgments worked out with the first qrels
    are not used with the second (d1 first in the first run: relevant in the first qrels only)."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n")
    args = [*extra, "-m", "num_ret", "-m", "num_rel", "-m", "P.1", str(qrels), str(run)]
    ahead = _entry._prefetch(args, _core)
    ahead.wait()
    qrels.write_text("1 0 d1 0\n1 0 d2 1\n1 0 d3 1\n")
    run.write_text("1 Q0 d2 1 3.0 t\n1 Q0 d1 2 2.0 t\n1 Q0 d3 3 1.0 t\n")
    outcome = run_cli(args, prefetched=ahead)
    assert outcome.rc == 0, outcome.stderr
    lines = (line.split("\t") for line in outcome.stdout.decode().splitlines())
    assert {name.strip(): value for name, _, value in lines} == expected
    assert ahead.take(str(qrels), str(run), True, True) == (None, None)  # handed over (or dropped) once


def test_a_document_retrieved_twice_is_refused_as_ever(tmp_path: Path) -> None:
    """The prefetch looks for a docno twice in one query (the evaluation then skips its check
    when there is none): where there is one, the evaluation's own message, line numbers and all."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 d1 1\n2 0 d1 1\n")
    run.write_text("1 Q0 d1 1 2.0 t\n2 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n1 Q0 d1 3 0.5 t\n")
    args = ["-m", "P.5", str(qrels), str(run)]
    with_prefetch = run_cli(args, prefetched=first_reading(args))
    assert with_prefetch == run_cli(args) and with_prefetch.rc == 1
    assert "document 'd1' retrieved twice for query '1' (first at line 1)" in with_prefetch.stderr
    run.write_text("1 Q0 d1 1 2.0 t\n2 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n")  # d1 in two queries: fine
    assert run_cli(args, prefetched=first_reading(args)) == run_cli(args) and run_cli(args).rc == 0


@pytest.mark.parametrize("name", ["qrels", "run"])
def test_a_bad_file_says_the_same_with_the_prefetch(tmp_path: Path, name: str) -> None:
    files = {"qrels": tmp_path / "qrels.txt", "run": tmp_path / "run.txt"}
    files["qrels"].write_text("1 0 d1 1\n" if name == "run" else "1 0 d1 x\n")
    files["run"].write_text("1 Q0 d1 1 2.0 t\n" if name == "qrels" else "1 Q0 d1 1 two t\n")
    args = ["-m", "P.1", str(files["qrels"]), str(files["run"])]
    with_prefetch, without = run_cli(args, prefetched=first_reading(args)), run_cli(args)
    assert with_prefetch == without and without.rc == 1 and str(files[name]) in without.stderr
    swapped = [*args[:2], args[3], args[2]]  # the files the wrong way round: the same message as ever
    assert run_cli(swapped, prefetched=first_reading(swapped)) == run_cli(swapped)


def test_another_format_is_read_again(tmp_path: Path) -> None:
    """-R qrels_jg: four columns like qrels, read as judgment groups (the prefetch's plain reading
    refuses a document judged twice; the run is taken)."""
    qrels, run = tmp_path / "jg.txt", tmp_path / "run.txt"
    qrels.write_text("1 a d1 1\n1 b d1 0\n1 a d2 0\n1 b d3 1\n")
    run.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n1 Q0 d3 3 0.5 t\n")
    args = ["-R", "qrels_jg", "-m", "qrels_jg", str(qrels), str(run)]
    with_prefetch = run_cli(args, prefetched=first_reading(args))
    assert with_prefetch == run_cli(args) and with_prefetch.rc == 0 and with_prefetch.stdout


def test_the_program_prefetches_and_prints_the_same(tmp_path: Path) -> None:
    """The real program (python -m trecgain) with its prefetch, as the conformance suite checks it
    in process: the example's output, and several runs (a guess the program does not take)."""
    args = ["-c", "-q", "-m", "all_trec", QRELS, RUN]
    assert run_process(args) == run_cli(args)
    assert run_process(["-m", "ndcg", QRELS, RUN, RUN]) == run_cli(["-m", "ndcg", QRELS, RUN, RUN])

