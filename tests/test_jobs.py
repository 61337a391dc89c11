"""`-j N`: forked workers never outlive the command, however it ends, and a worker's death is one
line, not a traceback; standard input as one of the runs is read by the command itself.

Each test starts `trecgain -j 2` on runs that are FIFOs nobody writes to, so the workers block
reading them; the test then ends the command (or a worker) and checks what is left."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT
from test_robustness import QRELS, RUN, process_env, trecgain_argv, write_pair


def children(pid: int) -> list[int]:
    """The pids whose parent is `pid` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    """Running and not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def blocked_command(tmp_path: Path) -> tuple[subprocess.Popen, list[int]]:
    """trecgain -j 2 with its two workers blocked on FIFOs: the process and the workers' pids."""
    q, _ = write_pair(tmp_path, QRELS, RUN)
    fifos = [tmp_path / "fifo1", tmp_path / "fifo2"]
    for f in fifos:
        os.mkfifo(f)
    proc = subprocess.Popen(trecgain_argv("-j", "2", "-m", "ndcg", q, *fifos), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=process_env(), start_new_session=True)
    end = time.monotonic() + 60  # a busy machine starts processes slowly
    workers: list[int] = []
    while time.monotonic() < end:
        # the pool's workers, blocked opening the FIFOs (the pool may have a helper process too)
        workers = [c for c in children(proc.pid) if any(w in _wchan(c) for w in ("fifo", "partner"))]
        if len(workers) == 2:
            break
        time.sleep(0.05)
    assert len(workers) == 2, f"workers not blocked: {children(proc.pid)}"
    return proc, workers


def _wchan(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return ""


def assert_gone(pids: list[int], limit: float = 30.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end and any(alive(p) for p in pids):
        time.sleep(0.05)
    assert not any(alive(p) for p in pids), f"workers left running: {[p for p in pids if alive(p)]}"


def cleanup(proc: subprocess.Popen, workers: list[int]) -> None:
    for pid in [proc.pid, *workers]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=60)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT, signal.SIGHUP])
def test_workers_die_with_the_command(tmp_path, sig):
    """The signal goes to the command alone, not its process group: no worker is left."""
    proc, workers = blocked_command(tmp_path)
    try:
        os.kill(proc.pid, sig)
        proc.wait(timeout=60)
        assert_gone(workers)
        err = proc.stderr.read().decode("utf-8", "replace")
        assert "Traceback" not in err and err.count("\n") <= 1, err
        assert proc.stdout.read() == b""
        if sig == signal.SIGINT:
            assert proc.returncode == 130 and err == "trecgain: interrupted\n"
    finally:
        cleanup(proc, workers)


def test_a_killed_worker_is_one_line(tmp_path):
    proc, workers = blocked_command(tmp_path)
    try:
        os.kill(workers[0], signal.SIGKILL)
        try:  # the other worker is still blocked: the command must not wait for it forever
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("the command hangs after a worker was killed")
        err = proc.stderr.read().decode("utf-8", "replace")
        assert proc.returncode == 1, (proc.returncode, err)
        assert err.startswith("trecgain: a worker process ended") and err.count("\n") == 1, err
        assert proc.stdout.read() == b""
        assert_gone(workers)
    finally:
        cleanup(proc, workers)


def test_standard_input_among_several_runs(tmp_path):
    q, r = write_pair(tmp_path, QRELS, RUN)
    want = subprocess.run(trecgain_argv("-m", "ndcg", "-m", "map", q, r, r), capture_output=True, cwd=ROOT,
                          env=process_env())
    got = subprocess.run(trecgain_argv("-j", "2", "-m", "ndcg", "-m", "map", q, "-", r), input=RUN,
                         capture_output=True, cwd=ROOT, env=process_env())
    assert want.returncode == got.returncode == 0, got.stderr
    assert got.stdout == want.stdout and got.stderr == want.stderr  # two runs: the note on labelling them
    assert all(line.startswith(b"trecgain: note: ") for line in got.stderr.splitlines())
