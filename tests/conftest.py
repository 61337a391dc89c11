"""Shared helpers: run the real CLI entry point in-process or as a subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from trecgain.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "testdata" / "conformance" / "cases"


@dataclass
class Outcome:
    rc: int
    stdout: bytes
    stderr: str


def run_cli(args: list[str], stdin: bytes = b"") -> Outcome:
    """Call trecgain's main() in-process, with its standard streams captured."""
    streams = [io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", write_through=True)
               for data in (stdin, b"", b"")]
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        rc = main(list(args))
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    out, err = (s.buffer.getvalue() for s in streams[1:])
    return Outcome(rc, out, err.decode("utf-8", "replace"))


def run_process(args: list[str], stdin: bytes = b"") -> Outcome:
    """Run `python -m trecgain` as a real process."""
    proc = subprocess.run([sys.executable, "-m", "trecgain", *args], input=stdin, capture_output=True,
                          cwd=ROOT)
    return Outcome(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))


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
