"""The recorded trec_eval transcripts: every case of every group (h, r, and f: all_trec and
official), in both modes."""

from __future__ import annotations

import pytest

from conftest import CASE_IDS, case_invocation, expected_stdout, first_reading, load_case, run_cli, run_process

MODES = ["10", "9"]

def check(outcome, expect: dict, case_id: str, mode: str = "") -> None:
    if expect.get("error"):
        assert outcome.rc != 0, f"{case_id}: expected an error, got exit 0"
        assert outcome.stdout == b"", f"{case_id}: an error must print nothing on stdout"
        lines = outcome.stderr.strip().splitlines()
        assert len(lines) == 1, f"{case_id}: expected one line on stderr, got {outcome.stderr!r}"
        assert "Traceback" not in outcome.stderr
    else:
        assert outcome.rc == expect["rc"], f"{case_id}: exit {outcome.rc}, stderr {outcome.stderr!r}"
        text = outcome.stdout.decode("utf-8", "surrogateescape")
        assert text == expected_stdout(case_id, mode, expect)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case(case_id: str, mode: str) -> None:
    args, stdin = case_invocation(case_id, mode)
    check(run_cli(args, stdin), load_case(case_id)["expect"][mode], case_id, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_prefetched(case_id: str, mode: str) -> None:
    """The program's reading started before click is imported (trecgain._entry) changes nothing."""
    args, stdin = case_invocation(case_id, mode)
    check(run_cli(args, stdin, prefetched=first_reading(args)), load_case(case_id)["expect"][mode], case_id, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", ["h-worked-linear", "h-stdin-run", "h-score-garbage", "h-bad-flag",
                                     "h-missing-file", "r0040"])
def test_case_as_process(case_id: str, mode: str) -> None:
    args, stdin = case_invocation(case_id, mode)
    check(run_process(args, stdin), load_case(case_id)["expect"][mode], case_id)
