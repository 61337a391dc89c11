"""-o FILE beyond the plain case: symbolic links, two writers at once, signals while writing,
and a target the caller may not write.

The expected bytes are always those the same command prints on standard output (which the
conformance corpus holds to trec_eval); what is checked here is where they land and that
nothing else does."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

QRELS = str(ROOT / "testdata/example/qrels.txt")
RUN = str(ROOT / "testdata/example/run.txt")
EXAMPLE = [QRELS, RUN]
MAP = ["-Q", "-m", "map", *EXAMPLE]


def _leftovers(folder: Path) -> list[str]:
    """Temporary files trecgain may have left (they start with a dot)."""
    return sorted(p.name for p in folder.rglob(".*"))


def _expected(args: list[str]) -> bytes:
    out = run_cli(args)
    assert out.rc == 0 and out.stdout
    return out.stdout


# ---------------------------------------------------------------- symbolic links


def test_output_through_a_link_writes_the_linked_file_and_keeps_the_link(tmp_path):
    week = tmp_path / "week.txt"
    week.write_bytes(b"last week\n")
    week.chmod(0o640)
    latest = tmp_path / "latest.txt"
    latest.symlink_to("week.txt")
    out = run_cli(["-o", str(latest), *MAP])
    assert out.rc == 0 and out.stdout == b"" and out.stderr == ""
    assert latest.is_symlink() and os.readlink(latest) == "week.txt"
    assert week.read_bytes() == _expected(MAP)
    assert week.stat().st_mode & 0o777 == 0o640
    assert _leftovers(tmp_path) == []


def test_output_through_a_chain_of_links_into_another_directory(tmp_path, monkeypatch):
    """The temporary file is made beside the final target (a rename cannot cross
    filesystems, and the link's own directory may be elsewhere)."""
    final_dir, link_dir = tmp_path / "results", tmp_path / "links"
    final_dir.mkdir()
    link_dir.mkdir()
    final = final_dir / "final.txt"
    final.write_bytes(b"old\n")
    (link_dir / "one").symlink_to("../results/final.txt")
    (link_dir / "two").symlink_to("one")
    seen: list[str] = []
    real_replace = os.replace

    def replace(source, target):
        seen.append(os.path.dirname(os.fspath(source)))
        return real_replace(source, target)

    import trecgain.output

    monkeypatch.setattr(trecgain.output.os, "replace", replace)
    out = run_cli(["-o", str(link_dir / "two"), *MAP])
    assert out.rc == 0, out.stderr
    assert final.read_bytes() == _expected(MAP)
    assert os.readlink(link_dir / "two") == "one" and os.readlink(link_dir / "one") == "../results/final.txt"
    assert [os.path.realpath(d) for d in seen] == [str(final_dir.resolve())]
    assert _leftovers(tmp_path) == []


def test_output_through_a_dangling_link_creates_its_target(tmp_path):
    """As `> link` does: the file the link names is created, the link stays."""
    link = tmp_path / "latest.txt"
    link.symlink_to("new.txt")
    assert run_cli(["-o", str(link), *MAP]).rc == 0
    assert link.is_symlink() and (tmp_path / "new.txt").read_bytes() == _expected(MAP)
    assert _leftovers(tmp_path) == []


def test_output_through_a_link_into_a_missing_directory_is_an_error(tmp_path):
    link = tmp_path / "latest.txt"
    link.symlink_to("gone/new.txt")
    out = run_cli(["-o", str(link), *MAP])
    assert out.rc == 1 and out.stdout == b"" and out.stderr.count("\n") == 1
    assert "no such directory" in out.stderr and str(link) in out.stderr
    assert link.is_symlink() and not (tmp_path / "gone").exists()


def test_output_through_a_link_loop_is_an_error(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    out = run_cli(["-o", str(tmp_path / "a"), *MAP])
    assert out.rc == 1 and out.stdout == b"" and out.stderr.count("\n") == 1
    assert "symbolic links" in out.stderr
    assert os.readlink(tmp_path / "a") == "b" and os.readlink(tmp_path / "b") == "a"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_output_through_a_link_to_an_input_or_a_run_like_file_is_refused(tmp_path, which):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    shutil.copy(QRELS, qrels)
    shutil.copy(RUN, run)
    other = tmp_path / "other.txt"
    shutil.copy(RUN, other)  # not an input, but looks like a run
    for target in ({"qrels": qrels, "run": run}[which], other):
        link = tmp_path / "link"
        if link.is_symlink():
            link.unlink()
        link.symlink_to(target.name)
        before = target.read_bytes()
        out = run_cli(["-o", str(link), "-m", "map", str(qrels), str(run)])
        assert out.rc == 1 and out.stdout == b"" and "refusing to overwrite" in out.stderr
        assert target.read_bytes() == before and link.is_symlink()


def test_output_to_dev_stdout_whether_a_pipe_or_a_file(tmp_path):
    """/dev/stdout is a link to /proc/self/fd/1: to a pipe (written in place, as a file that is
    not a regular one), or to a regular file (replaced atomically: the link is followed)."""
    expected = _expected(MAP)
    argv = [sys.executable, "-m", "trecgain", "-o", "/dev/stdout", *MAP]
    piped = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=60)
    assert piped.returncode == 0 and piped.stdout == expected and piped.stderr == b""
    out = tmp_path / "out.txt"
    with open(out, "wb") as f:
        redirected = subprocess.run(argv, cwd=ROOT, stdout=f, stderr=subprocess.PIPE, timeout=60)
    assert redirected.returncode == 0 and redirected.stderr == b""
    assert out.read_bytes() == expected and _leftovers(tmp_path) == []


# ---------------------------------------------------------------- a target the caller may not write


def test_a_target_the_caller_may_not_write_is_refused(tmp_path, monkeypatch):
    """os.access says no (root's os.access says yes to nearly anything: the real case is
    below, as an unprivileged user)."""
    import trecgain.output

    target = tmp_path / "final.txt"
    target.write_bytes(b"old\n")
    real_access = os.access
    asked: list[str] = []

    def access(path, mode, **kwargs):
        if os.fspath(path) == str(target) and mode & os.W_OK:
            asked.append(os.fspath(path))
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr(trecgain.output.os, "access", access)
    out = run_cli(["-o", str(target), *MAP])
    assert out.rc == 1 and out.stdout == b""
    assert out.stderr == f"trecgain: -o {target}: permission denied\n"
    assert asked and target.read_bytes() == b"old\n" and _leftovers(tmp_path) == []


def test_a_link_to_a_target_the_caller_may_not_write_is_refused(tmp_path, monkeypatch):
    import trecgain.output

    target = tmp_path / "final.txt"
    target.write_bytes(b"old\n")
    link = tmp_path / "latest.txt"
    link.symlink_to("final.txt")
    real_access = os.access
    monkeypatch.setattr(trecgain.output.os, "access",
                        lambda path, mode, **kw: False if os.path.realpath(path) == str(target.resolve())
                        and mode & os.W_OK else real_access(path, mode, **kw))
    out = run_cli(["-o", str(link), *MAP])
    assert out.rc == 1 and out.stderr == f"trecgain: -o {link}: permission denied\n"
    assert target.read_bytes() == b"old\n" and link.is_symlink()


def _as_unprivileged():
    """preexec_fn: become `nobody` (when running as root)."""
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


#: Runs the command as `nobody` when started as root: the interpreter may live where nobody
#: can read it (a pyenv under /root), so the same command first runs as root, writing into a
#: scratch file, to import every module it needs; then the process gives up root for good
#: (real and effective ids: os.access asks with the real ones) and runs it on the target.
_AS_NOBODY = r"""
import os, sys
from trecgain import cli

target, scratch, args = sys.argv[1], sys.argv[2], sys.argv[3:]
if os.geteuid() == 0:
    assert cli.main(["-o", scratch, *args]) == 0
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    assert os.getuid() == os.geteuid() == 65534
sys.exit(cli.main(["-o", target, *args]))
"""


def test_a_read_only_target_as_an_unprivileged_user(tmp_path):
    """`-o rw/final.txt` where final.txt is read-only and another user's, in a world-writable
    folder: `> rw/final.txt` fails there, and so must -o (a rename would succeed)."""
    root = os.geteuid() == 0
    folder = Path(tempfile.mkdtemp(prefix="trecgain-ro-"))  # not pytest's tmp_path: nobody cannot enter it
    try:
        folder.chmod(0o755)
        rw = folder / "rw"
        rw.mkdir()
        rw.chmod(0o777)  # world-writable, no sticky bit: anyone may rename onto final.txt
        final = rw / "final.txt"
        final.write_bytes(b"old\n")
        final.chmod(0o444)  # as root: owned by root; otherwise our own, read-only
        shell = subprocess.run(["sh", "-c", f"echo new > {final}"], preexec_fn=_as_unprivileged if root else None,
                               capture_output=True)
        assert shell.returncode != 0 and final.read_bytes() == b"old\n"  # what `>` does
        proc = subprocess.run([sys.executable, "-c", _AS_NOBODY, str(final), str(tmp_path / "scratch"), *MAP],
                              cwd=ROOT, capture_output=True, timeout=60)
        assert proc.returncode == 1 and proc.stdout == b"", proc.stderr
        assert proc.stderr == f"trecgain: -o {final}: permission denied\n".encode()
        assert final.read_bytes() == b"old\n" and final.stat().st_uid == os.geteuid()
        assert sorted(p.name for p in rw.iterdir()) == ["final.txt"]
    finally:
        shutil.rmtree(folder)


# ---------------------------------------------------------------- two writers, and signals


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> dict:
    """A generated collection whose -q output takes a while to write (the trec text measures
    each query's lines as it writes them), and the two outputs the writers make."""
    folder = tmp_path_factory.mktemp("big")
    rng = random.Random(7)
    qrels, run = folder / "qrels", folder / "run"
    with open(qrels, "w") as q, open(run, "w") as r:
        for i in range(3000):
            q.writelines(f"{i} 0 d{d} {rng.randint(0, 3)}\n" for d in range(30))
            r.writelines(f"{i} Q0 d{d} {d + 1} {100 - d} t\n" for d in range(100))
    commands = {"a": ["-Q", "-q", "-m", "all_trec", str(qrels), str(run)],
                "b": ["-Q", "-q", "-m", "official", "-m", "ndcg_cut.5,10,20", str(qrels), str(run)]}
    outputs = {name: _expected(args) for name, args in commands.items()}
    assert outputs["a"] != outputs["b"] and min(map(len, outputs.values())) > 2_000_000
    return {"commands": commands, "outputs": outputs}


def _start(args: list[str], target: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "trecgain", "-o", str(target), *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _watch(procs: list[subprocess.Popen], folder: Path, signals: dict[int, tuple[float | None, float, int]],
           limit: float = 60.0) -> int:
    """Wait for the processes, sending process i the signal of signals[i] = (at, after, sig):
    `at` seconds from now, or (`at` None) `after` seconds once its temporary file is seen;
    the most temporary files seen at once."""
    start, most = time.monotonic(), 0
    pending = dict(signals)
    while any(p.poll() is None for p in procs):
        now = time.monotonic() - start
        assert now < limit, "the writers did not finish in time"
        temporaries = [p.name for p in folder.iterdir() if p.name.startswith(".")]
        most = max(most, len(temporaries))
        for index, (at, after, sig) in list(pending.items()):
            if at is None and any(f".{procs[index].pid}." in name for name in temporaries):
                pending[index] = (now + after, 0.0, sig)  # its write is under way
            elif at is not None and now >= at:
                if procs[index].poll() is None:
                    procs[index].send_signal(sig)
                del pending[index]
        time.sleep(0.002)
    return most


def test_two_writers_of_one_file_leave_one_whole_output(tmp_path, big):
    """Two processes write the same -o file at once: the file is exactly one of the two
    outputs (the last to finish), never a mix, and no temporary file stays."""
    target = tmp_path / "results.txt"
    overlapped = 0
    for round in range(4):
        order = ["a", "b"] if round % 2 == 0 else ["b", "a"]
        procs = [_start(big["commands"][name], target) for name in order]
        overlapped = max(overlapped, _watch(procs, tmp_path, {}))
        for p in procs:
            assert p.returncode == 0 and p.stdout.read() == b"" and p.stderr.read() == b""
        assert target.read_bytes() in big["outputs"].values()
        assert _leftovers(tmp_path) == []
    assert overlapped == 2  # the two writes were under way at the same time (else nothing was tested)


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_writer_signalled_while_another_writes(tmp_path, big, sig, status):
    """One writer is signalled while it writes (once its temporary file is there), or at any
    moment of its run, while the other writes too: the file is always one whole output and
    no temporary file stays."""
    target = tmp_path / "results.txt"
    target.write_bytes(b"old\n")
    rng = random.Random(sig)
    mid_write = []
    for round in range(6):
        procs = [_start(big["commands"]["a"], target), _start(big["commands"]["b"], target)]
        victim, writing = round % 2, round < 4
        when = (None, rng.uniform(0, 0.03)) if writing else (rng.uniform(0.02, 0.6), 0.0)
        _watch(procs, tmp_path, {victim: (*when, sig)})
        killed, other = procs[victim], procs[1 - victim]
        assert other.returncode == 0 and other.stderr.read() == b""
        err = killed.stderr.read()
        assert killed.stdout.read() == b""
        if b"Traceback" in err or b"Could not import runpy" in err:  # Python itself was still starting
            assert not writing and str(ROOT / "trecgain").encode() + b"/" not in err, err
        else:
            assert killed.returncode in (0, status, -sig) and err.count(b"\n") <= 1, err
        if writing:
            mid_write.append(killed.returncode)
        assert target.read_bytes() in big["outputs"].values()
        assert _leftovers(tmp_path) == []
    assert status in mid_write  # a signal did arrive while a file was being written


_SIGNAL_AT = r"""
import os, signal, sys
from trecgain import _core, cli, output
from trecgain.cli import console

_core.exit_on_interrupt(True)  # as the trecgain program does (trecgain._entry)
console.CORE_HANDLES_INTERRUPT = True
where, sig = sys.argv[1], getattr(signal, sys.argv[2])
real = getattr(os, where)

def signalled(*args, **kwargs):  # the signal arrives just after the call
    try:
        return real(*args, **kwargs)
    finally:
        os.kill(os.getpid(), sig)

setattr(output.os, where, signalled)
sys.exit(cli.main(sys.argv[3:]))
"""


@pytest.mark.parametrize("sig, status", [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
@pytest.mark.parametrize("where, replaced", [("fdopen", False), ("replace", True)])
def test_a_signal_between_the_steps_of_a_write(tmp_path, where, replaced, sig, status):
    """A signal right after the temporary file is created (before the writer knows its name)
    or right after the rename: no temporary file stays, and the file is the old one or the
    whole new one."""
    target = tmp_path / "results.txt"
    target.write_bytes(b"old\n")
    proc = subprocess.run([sys.executable, "-c", _SIGNAL_AT, where, sig, "-o", str(target), *MAP],
                          capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == status and proc.stdout == b"", proc.stderr
    assert b"Traceback" not in proc.stderr and proc.stderr.count(b"\n") <= 1
    assert target.read_bytes() == (_expected(MAP) if replaced else b"old\n")
    assert _leftovers(tmp_path) == []
