"""Shared helpers: run the real CLI entry point in-process or as a subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from trecgain import _core, _entry
from trecgain.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "testdata" / "conformance" / "cases"


@dataclass
class Outcome:
    rc: int
    stdout: bytes
    stderr: str


def first_reading(args: list[str]) -> object | None:
    """The reading the `trecgain` program starts for these arguments before click is imported
    (trecgain._entry), if any: for run_cli's `prefetched`."""
    return _entry._prefetch(list(args), _core)


def run_cli(args: list[str], stdin: bytes = b"", prefetched: object | None = None) -> Outcome:
    """Call trecgain's main() in-process, with its standard streams captured; `prefetched`: a
    reading of the files started before the call, as the program hands it over (first_reading)."""
    streams = [io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", write_through=True)
               for data in (stdin, b"", b"")]
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        rc = main(list(args), prefetched=prefetched)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    out, err = (s.buffer.getvalue() for s in streams[1:])
    return Outcome(rc, out, err.decode("utf-8", "replace"))


def run_process(args: list[str], stdin: bytes = b"") -> Outcome:
    """Run `python -m trecgain` as a real process."""
    proc = subprocess.run([sys.executable, "-m", "trecgain", *args], input=stdin, capture_output=True,
                          cwd=ROOT)
    return Outcome(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))


CASE_IDS = sorted(p.name for p in CASES.iterdir() if p.is_dir())

#: Cases whose compat-9 expectation was recorded as trec_eval 10 on float32 scores because they
#: name a measure 9.x lacks (dcg, ideal_dcg: corpus README, rule 3), with -c -q and a qrels query
#: the run lacks.  trecgain keeps every measure 9.x has under 9.x's rules beside such a measure
#: (issue 23: naming one measure never changes another's lines), and 9.x prints no line for a
#: query the run lacks: those recorded lines are the departure (README, "Where trecgain
#: departs"); every other line is checked byte for byte.
ABSENT_QUERY_LINES_OF_9 = {"r0036", "r0107", "r0111", "r0121", "r0130", "r0153", "r0182", "r0183", "r0208",
                           "r0292", "r0366", "r0380", "r0385"}


def _measure_9x_has(line_name: str) -> bool:
    """Whether a line is of a measure 9.x has: not dcg, ideal_dcg, rbp, rbp_resid or unj (each
    alone or with its parameters: dcg_1=2, rbp_p=0.8, unj_5), dcg_cut being trecgain's own."""
    new_in_10 = line_name in ("dcg", "ideal_dcg", "rbp", "rbp_resid") or (
        line_name.startswith(("dcg_", "ideal_dcg_", "rbp_", "unj_")) and not line_name.startswith("dcg_cut_"))
    return not new_in_10


def _without_absent_lines_of_9(case_id: str, text: str) -> tuple[str, int]:
    """The expected text without the per-query lines of queries the run lacks for measures 9.x
    has, and how many lines that removes."""
    run_qids = {line.split()[0] for line in (CASES / case_id / "run.txt").read_text().splitlines()
                if line.strip() and not line.startswith("#")}
    kept, dropped = [], 0
    for line in text.splitlines(keepends=True):
        name, qid = line.split("\t")[0].rstrip(), line.split("\t")[1]
        if qid != "all" and qid not in run_qids and _measure_9x_has(name):
            dropped += 1
        else:
            kept.append(line)
    return "".join(kept), dropped


def expected_stdout(case_id: str, mode: str, expect: dict) -> str:
    """What trecgain must print for a case: the recorded text, less the documented departure."""
    if mode == "9" and case_id in ABSENT_QUERY_LINES_OF_9:
        want, dropped = _without_absent_lines_of_9(case_id, expect["stdout"])
        assert dropped, f"{case_id}: listed as a departure, but no line departs"
        return want
    return expect["stdout"]


def load_case(case_id: str) -> dict:
    return json.loads((CASES / case_id / "case.json").read_text())


def case_invocation(case_id: str, mode: str) -> tuple[list[str], bytes]:
    """The case's command line with real paths, and what to feed on stdin."""
    case = load_case(case_id)
    folder = CASES / case_id
    stdin = b""
    args = []
    for a in case["args"]:
        if a == "QRELS":
            args.append(str(folder / "qrels.txt"))
        elif a == "RUN":
            if case.get("stdin") == "RUN":
                args.append("-")
                stdin = (folder / "run.txt").read_bytes()
            else:
                args.append(str(folder / "run.txt"))
        else:
            args.append(a)
    if mode == "9":
        args = ["--compat", "9", *args]
    return args, stdin


def explain_table(text: str) -> list[list[str]]:
    """`trecgain explain`'s table: its rows, cells split at whitespace (bars dropped)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "docno"])
    rows = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        rows.append([c for c in line.split() if c != "|"])
    return rows
