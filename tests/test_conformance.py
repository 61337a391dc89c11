"""The recorded trec_eval transcripts: every case of groups h and r, in both modes."""

from __future__ import annotations

import pytest

from conftest import CASES, case_invocation, load_case, run_cli, run_process

CASE_IDS = sorted(p.name for p in CASES.iterdir() if p.is_dir())
GAIN_CASES = [c for c in CASE_IDS if not c.startswith("f")]
FULL_CASES = [c for c in CASE_IDS if c.startswith("f")]
MODES = ["10", "9"]


def check(outcome, expect: dict, case_id: str) -> None:
    if expect.get("error"):
        assert outcome.rc != 0, f"{case_id}: expected an error, got exit 0"
        assert outcome.stdout == b"", f"{case_id}: an error must print nothing on stdout"
        lines = outcome.stderr.strip().splitlines()
        assert len(lines) == 1, f"{case_id}: expected one line on stderr, got {outcome.stderr!r}"
        assert "Traceback" not in outcome.stderr
    else:
        assert outcome.rc == expect["rc"], f"{case_id}: exit {outcome.rc}, stderr {outcome.stderr!r}"
        assert outcome.stdout.decode("utf-8", "surrogateescape") == expect["stdout"]


# Cases whose recorded expectation is trec_eval's refusal of a name that trecgain's own
# specification defines (design-notes/README.md: "trecgain defines ndcg_p as these notes
# say"; the gain-formulas issue: `nDCG@10` and the other names ir_measures users type).
# These are reported in the closing note; the test checks the specified behaviour instead:
# the name is accepted and equals the trec_eval measure it stands for.
SUPERSEDED = {
    "h-unknown-measure": (["-m", "ndcg_p"], ["--global-gains", "exp", "-m", "ndcg"], "ndcg_p", "ndcg"),
    "h-unknown-measure2": (["-m", "nDCG@10"], ["-m", "ndcg_cut.10"], "nDCG@10", "ndcg_cut_10"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", GAIN_CASES)
def test_case(case_id: str, mode: str) -> None:
    args, stdin = case_invocation(case_id, mode)
    if case_id in SUPERSEDED:
        check_superseded(case_id, args, stdin)
        return
    check(run_cli(args, stdin), load_case(case_id)["expect"][mode], case_id)


def check_superseded(case_id: str, args: list[str], stdin: bytes) -> None:
    asked, same_as, name, reference_name = SUPERSEDED[case_id]
    files = args[-2:]
    assert args[-2 - len(asked):-2] == asked, "the case's arguments changed: review SUPERSEDED"
    got, reference = run_cli(args, stdin), run_cli([*args[:-2 - len(asked)], *same_as, *files], stdin)
    assert got.rc == 0 and reference.rc == 0, (got.stderr, reference.stderr)
    value = got.stdout.decode().split("\t")
    assert value[0].strip() == name
    assert reference.stdout.decode().split("\t")[0].strip() == reference_name
    assert value[1:] == reference.stdout.decode().split("\t")[1:]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", ["h-worked-linear", "h-stdin-run", "h-score-garbage", "h-bad-flag",
                                     "h-missing-file", "r0040"])
def test_case_as_process(case_id: str, mode: str) -> None:
    args, stdin = case_invocation(case_id, mode)
    check(run_process(args, stdin), load_case(case_id)["expect"][mode], case_id)


@pytest.mark.parametrize("case_id", FULL_CASES)
def test_full_measure_sets_are_refused_clearly(case_id: str) -> None:
    """Group f asks for all_trec/official (map, P, bpref, ...), outside trecgain's gain measures:
    those transcripts cannot be reproduced, so the test checks the clean refusal instead."""
    args, stdin = case_invocation(case_id, "10")
    outcome = run_cli(args, stdin)
    assert outcome.rc != 0 and outcome.stdout == b""
    assert "does not compute" in outcome.stderr


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", [c for c in GAIN_CASES if c.startswith("r")][::4])
def test_case_in_tiny_batches(case_id: str, mode: str, monkeypatch) -> None:
    """Queries are ranked and measured a batch at a time; batches of a query or two must
    print the same bytes."""
    import trecgain.rank

    monkeypatch.setattr(trecgain.rank, "BATCH_ROWS", 3)
    args, stdin = case_invocation(case_id, mode)
    check(run_cli(args, stdin), load_case(case_id)["expect"][mode], case_id)
