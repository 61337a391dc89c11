"""`--dask ADDRESS|local` and trecgain.distributed: on a LocalCluster of two worker processes,
every output is the bytes the command prints without --dask (computed here, in the same
test), for many runs, runs read in parts, runs shuffled by qid, errors, a run larger than a
worker's memory, and workers killed mid-job."""

from __future__ import annotations

import gzip
import json
import logging
import os
import pty
import random
import subprocess
import sys
import time
from pathlib import Path

import dask  # the test extra installs dask[distributed]: these tests always run
import distributed
import pytest

from conftest import ROOT, run_cli

EXAMPLE = [str(ROOT / "testdata" / "example" / "qrels.txt"), str(ROOT / "testdata" / "example" / "run.txt")]
#: Each worker's memory limit: the run of test_run_larger_than_a_workers_memory needs more
#: than this in one process.
MEMORY_LIMIT = 200 * 2**20
GAIN_MEASURES = ["-m", "gain", "-m", "ndcg_p", "-m", "cg_cut.5,10", "-m", "dcg_cut.5,10", "-m", "err_cut.5,10",
                 "-m", "nDCG@10", "-m", "ndcg.1=1,2=3,3=7", "-m", "rbp"]


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes of one thread; a task is tried on a second worker when its first
    dies, and given up after that (allowed-failures 1)."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                         memory_limit=MEMORY_LIMIT, dashboard_address=":0",
                                         silence_logs=logging.CRITICAL)
    client = distributed.Client(local, set_as_default=False)
    try:
        yield local.scheduler_address, client
    finally:
        client.close()
        local.close()


def same(args: list[str], address: str, stdin: bytes = b"") -> tuple:
    """Run the command without and with --dask: both outcomes must be the same bytes."""
    here = run_cli(args, stdin)
    there = run_cli(["--dask", address, *args], stdin)
    assert (there.rc, there.stderr) == (here.rc, here.stderr)
    assert there.stdout == here.stdout
    return here, there


def tasks(client, action) -> list[str]:
    """The names of the tasks the cluster ran during `action()`."""
    with distributed.get_task_stream(client) as stream:
        action()
    return [t["key"] if isinstance(t["key"], str) else str(t["key"]) for t in stream.data]


# --- test collections --------------------------------------------------------------------------


def write_qrels(path: Path, queries: int, seed: int, docs: int = 60) -> Path:
    rng = random.Random(seed)
    lines = []
    for q in range(queries):
        for d in rng.sample(range(docs), docs // 3):
            lines.append(f"{q:03d} 0 D{d:04d} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}\n")
    path.write_text("".join(lines))
    return path


def run_lines(queries: list[str], seed: int, docs: int = 60, tag: str = "run") -> list[str]:
    """Run lines, grouped by query: scores with ties (and ranks that are not the scores)."""
    rng = random.Random(seed)
    lines = []
    for qid in queries:
        chosen = rng.sample(range(docs), rng.randint(1, docs // 2))
        for rank, d in enumerate(chosen, 1):
            lines.append(f"{qid} Q0 D{d:04d} {rank} {rng.randint(0, 20) / 4} {tag}\n")
    return lines


def runs_of(tmp_path: Path, count: int, queries: int) -> list[str]:
    """`count` runs: each lacks some qrels queries and has some the qrels lack."""
    paths = []
    for i in range(count):
        rng = random.Random(100 + i)
        qids = [f"{q:03d}" for q in range(queries) if rng.random() < 0.8] + [f"x{i}"]
        rng.shuffle(qids)  # queries grouped, not sorted
        path = tmp_path / f"run{i:02d}.txt"
        path.write_text("".join(run_lines(qids, i, tag=f"r{i}")))
        paths.append(str(path))
    return paths


# --- the outputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("compat", ["10", "9"])
def test_twenty_runs_with_every_gain_measure(cluster, tmp_path, compat):
    address, client = cluster
    qrels = write_qrels(tmp_path / "qrels.txt", 30, 1)
    runs = runs_of(tmp_path, 20, 30)
    args = ["--compat", compat, "-q", "-c", *GAIN_MEASURES, str(qrels), *runs]
    names = tasks(client, lambda: same(args, address))
    assert sum(n.startswith("evaluate_batch") for n in names) == 10  # two runs a task
    here = run_cli(args)
    assert here.rc == 0 and here.stdout.count(b"\tall\t") > 20 * 10
    # and the library: the same Results
    from trecgain import Evaluator
    from trecgain.distributed import evaluate_on_dask

    ev = Evaluator(str(qrels), measures=["gain", "ndcg_cut.5"], compat=compat, complete=True)
    results = evaluate_on_dask(ev, runs[:3], client)
    for run, result in zip(runs[:3], results):
        local = ev.evaluate(run)
        assert result.aggregate == local.aggregate and result.per_query == local.per_query
        assert result.to_trec_bytes(True) == local.to_trec_bytes(True) and result.notes == local.notes
        assert result.source == run


@pytest.mark.parametrize("form", ["json", "jsonl", "csv", "markdown"])
def test_formats(cluster, tmp_path, form):
    address, _ = cluster
    qrels = write_qrels(tmp_path / "qrels.txt", 12, 2)
    runs = runs_of(tmp_path, 3, 12)
    per_query = [] if form == "markdown" else ["-q"]
    here, _ = same(["--format", form, *per_query, "-c", "-m", "official", "-m", "ndcg_cut.10", str(qrels),
                    *runs], address)
    if form == "json":
        assert [r["file"] for r in json.loads(here.stdout)["runs"]] == runs


def test_options_and_notes(cluster):
    """Notes on standard error (the example's ties decide a value), -n, -J, -M, -l, --ties, -o."""
    address, _ = cluster
    for options in (["-q", "-m", "ndcg_cut.10"], ["-n", "-q", "-m", "map"], ["-J", "-M", "2", "-l", "2", "-q"],
                    ["--ties", "average", "-q", "-m", "ndcg"], ["--ties", "rank", "-m", "map"],
                    ["--fail-under", "ndcg_cut_10=0.9", "-m", "ndcg_cut.10"]):
        here, _ = same([*options, *EXAMPLE], address)
        assert here.stdout or options[0] == "-n"
    assert "ties between documents" in run_cli(["-m", "ndcg_cut.10", *EXAMPLE]).stderr


def test_standard_input_and_gzip(cluster, tmp_path):
    address, _ = cluster
    data = Path(EXAMPLE[1]).read_bytes()
    (tmp_path / "run.gz").write_bytes(gzip.compress(data))
    same(["-q", "-m", "map", EXAMPLE[0], "-"], address, data)
    same(["-q", "-m", "map", EXAMPLE[0], str(tmp_path / "run.gz"), EXAMPLE[1]], address)


def grouped_run(tmp_path: Path, queries: int = 200) -> tuple[Path, Path, list[str]]:
    qrels = write_qrels(tmp_path / "qrels.txt", queries, 3)
    lines = run_lines([f"{q:03d}" for q in range(queries) if q % 7] + ["zz1", "zz2"], 4)
    lines.insert(500, "# a comment line\n")
    lines.insert(1500, "\n")
    return qrels, tmp_path / "run.txt", lines


@pytest.mark.parametrize("compat", ["10", "9"])
def test_one_run_in_parts(cluster, tmp_path, monkeypatch, compat):
    """A run ~20 times the partition size: read in parts at query boundaries, no shuffle."""
    address, client = cluster
    qrels, run, lines = grouped_run(tmp_path)
    run.write_text("".join(lines))
    monkeypatch.setenv("TRECGAIN_DASK_PARTITION_BYTES", str(run.stat().st_size // 20))
    args = ["--compat", compat, "-q", "-c", "-m", "all_trec", "-m", "gain", str(qrels), str(run)]
    names = tasks(client, lambda: same(args, address))
    assert sum(n.startswith("evaluate_part") for n in names) >= 15
    assert not any(n.startswith("shuffle") for n in names)
    same(["--format", "json", "-q", "-m", "map", "-m", "gm_map", "-m", "relstring", str(qrels), str(run)], address)


@pytest.mark.parametrize("tool, measures", [("gdeval", ["ndcg_cut.10", "err_cut.5"]),
                                             ("torchmetrics-skip", ["map_cut.5", "recip_rank"]),
                                             ("torchmetrics-pos", ["ndcg_cut.10"])])
def test_conventions_that_leave_queries_out(cluster, tmp_path, monkeypatch, tool, measures):
    """--as gdeval and torchmetrics-skip leave out the queries with nothing relevant (judged, or
    retrieved), torchmetrics-pos scores them 1: in parts, the same bytes and notes."""
    address, _ = cluster
    qrels, run, lines = grouped_run(tmp_path)
    run.write_text("".join(lines))
    monkeypatch.setenv("TRECGAIN_DASK_PARTITION_BYTES", str(run.stat().st_size // 20))
    wanted = [arg for m in measures for arg in ("-m", m)]
    here, _ = same(["--as", tool, "-q", *wanted, str(qrels), str(run)], address)
    assert here.rc == 0 and f"~{tool}".encode() in here.stdout
    assert ("with nothing relevant" in here.stderr) == (tool == "torchmetrics-skip"), here.stderr


def test_part_boundaries(tmp_path):
    """Where a part may start, from every byte of a file: the first line after the one holding
    the byte before whose qid differs from the first run line's there, with the newlines up to
    it (what the part's first line number is made of). Worked out here line by line."""
    from trecgain.distributed.tasks import scan_part as _scan

    text = (b"1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n# comment\n\n1 Q0 c 3 1 t\r\n2 Q0 a 1 1 t\n"
            b"  2 Q0 b 2 1 t\n3 Q0 a 1 1 t\n#\n3 Q0 b 1 1 t\n4 Q0 a 1 1 t")
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == 10]
    lines = [(a, text[a:b]) for a, b in zip(starts, starts[1:] + [len(text)])]
    for start in range(1, len(text)):
        after = [(a, line) for a, line in lines if a >= start]  # lines after the one holding start - 1
        first, want = None, len(text)
        for a, line in after:
            fields = line.split() if not line.startswith(b"#") else []
            if fields and first is None:
                first = fields[0]
            elif fields and fields[0] != first:
                want = a
                break
        newlines, boundary, to_boundary = _scan(str(path), "path", start, len(text))
        assert (newlines, boundary, to_boundary) == (text[start:].count(b"\n"), want,
                                                     text[start:want].count(b"\n")), start


def test_a_run_not_grouped_by_query_is_shuffled(cluster, tmp_path, monkeypatch):
    address, client = cluster
    qrels, run, lines = grouped_run(tmp_path)
    random.Random(5).shuffle(lines)
    run.write_text("".join(lines))
    monkeypatch.setenv("TRECGAIN_DASK_PARTITION_BYTES", str(run.stat().st_size // 8))
    names = tasks(client, lambda: same(["-q", "-c", "-m", "all_trec", str(qrels), str(run)], address))
    assert sum(n.startswith("shuffle_reduce") for n in names) >= 8
    same(["--compat", "9", "-q", "-m", "ndcg_cut.5,10", "-m", "map", str(qrels), str(run)], address)


#: The C/W/L measures (ir_measures' names): ties in the run's order, which parts and shuffles keep.
CWL_MEASURES = ["-m", "INST(T=2.0,max_rel=3)", "-m", "NERR8(max_rel=3)@10", "-m", "SDCG(min_rel=1,max_rel=3)@5",
                "-m", "RBP(rel=1)"]


@pytest.mark.parametrize("grouped", [True, False])
def test_cwl_measures_in_parts_and_shuffled(cluster, tmp_path, monkeypatch, grouped):
    """The ranking of the C/W/L measures keeps tied documents in the run's order: read in parts,
    or shuffled by query, the run gives the command's own bytes (its scores are full of ties)."""
    address, _ = cluster
    qrels, run, lines = grouped_run(tmp_path)
    if not grouped:
        random.Random(6).shuffle(lines)
    run.write_text("".join(lines))
    monkeypatch.setenv("TRECGAIN_DASK_PARTITION_BYTES", str(run.stat().st_size // 8))
    here, _ = same(["-q", "-c", *CWL_MEASURES, str(qrels), str(run)], address)
    assert here.rc == 0 and here.stdout.count(b"\tall\t") == 4


def test_parts_keep_the_readers_rules(cluster, tmp_path, monkeypatch):
    """Read in parts, a run keeps the reader's rules: a byte-order mark and CRLF, a lone CR far
    into the file (its warning names the file's line), no final newline, parts of one line,
    scores that are ranks (a note), a --ties rank run."""
    address, _ = cluster
    qrels = write_qrels(tmp_path / "qrels.txt", 40, 10)
    lines = [line.replace("\n", "\r\n") for line in run_lines([f"{q:03d}" for q in range(40)], 11)]
    late = len(lines) * 4 // 5
    lines[late] = lines[late].replace(" Q0 ", " Q0\r", 1)
    run = tmp_path / "run.txt"
    run.write_bytes(b"\xef\xbb\xbf" + "".join(lines).rstrip("\r\n").encode())
    ranks = tmp_path / "ranks.txt"  # one line a query, the score its rank
    ranks.write_text("".join(f"{q:03d} Q0 D{q:04d} 1 1 r\n" for q in range(40)))
    monkeypatch.setenv("TRECGAIN_DASK_PARTITION_BYTES", "200")
    here, _ = same(["-q", "-c", "-m", "all_trec", str(qrels), str(run), str(ranks)], address)
    assert f"{run}:{late + 1}: a carriage return" in here.stderr and "are its ranks" in here.stderr
    same(["--ties", "rank", "-q", "-m", "map", "-m", "P.5", str(qrels), str(run)], address)


def test_qrels_travel_exactly(cluster, tmp_path):
    """Fractional grades and every gain table reach the workers as they are read here; a
    warning of the gain tables is the same line."""
    address, _ = cluster
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2.5\n1 0 b 0.1\n1 0 c 0.0000001\n2 0 a 3.25\n2 0 d 1e2\n2 0 e -1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n1 Q0 b 3 1 t\n2 Q0 d 1 1 t\n2 Q0 e 2 1 t\n2 Q0 a 3 0.5 t\n")
    same(["--fractional-grades", "-q", "-m", "ndcg", "-m", "ndcg_cut.2", "-m", "map", str(qrels), str(run)],
         address)
    here, _ = same(["-q", "-m", "ndcg.1=0.5", *EXAMPLE], address)
    assert "differ by less than 1" in here.stderr


def test_ties_note_follows_the_write_cache(cluster, tmp_path, monkeypatch):
    """With -q, ties count per-query values only where one process kept them: not for a run of
    two tied documents a query measured by five lines (more values than run lines)."""
    address, _ = cluster
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 a 1\n{q} 0 b 0\n" for q in range(300)))
    run.write_text("".join(f"{q} Q0 a 1 1 t\n{q} Q0 b 2 1 t\n" for q in range(300)))
    monkeypatch.setenv("TRECGAIN_DASK_PARTITION_BYTES", "1000")
    for measures in (["-m", "P.1", "-m", "map", "-m", "ndcg", "-m", "recip_rank", "-m", "ndcg_cut.1"],
                     ["-m", "P.1"]):
        here, _ = same(["-q", *measures, str(qrels), str(run)], address)
        assert "ties between documents" in here.stderr


FAULTS = ("bad score", "two bad lines", "duplicate document", "later line, earlier query", "NUL byte",
          "no common query", "comments only")


def _score(line: str, score: str) -> str:
    fields = line.split()
    fields[4] = score
    return " ".join(fields) + "\n"


def faults(lines: list[str], case: str) -> list[str]:
    """A run with faults far into the file: each error must name the same file and line."""
    late = next(i for i in range(len(lines) * 3 // 4, len(lines)) if lines[i].split() and lines[i][0] != "#")
    third = len(lines) // 3
    if case == "bad score":
        return lines[:late] + [_score(lines[late], "high")] + lines[late + 1:]
    if case == "two bad lines":
        return lines[:third] + ["too few fields\n"] + lines[third:late] + ["1\n"] + lines[late:]
    if case == "duplicate document":
        return lines[:late] + [lines[late]] + lines[late:]
    if case == "later line, earlier query":
        # queries in descending order, a document twice in 180 (early) and in 010 (late):
        # the error is 010's, the first query in qrels order
        groups: dict[str, list[str]] = {}
        for line in lines:
            if line.split() and line[0] != "#":
                groups.setdefault(line.split()[0], []).append(line)
        out = []
        for qid in sorted(groups, reverse=True):
            out.extend(groups[qid] + groups[qid][:1] if qid in ("010", "180") else groups[qid])
        return out
    if case == "NUL byte":
        return lines[:late] + [f"{lines[late].split()[0]} Q0 a\0b 1 1 run\n"] + lines[late:]
    if case == "no common query":
        return ["nope" + line if line.split() and line[0] != "#" else line for line in lines]
    assert case == "comments only"
    return ["# nothing\n"] * 3000


@pytest.mark.parametrize("case", FAULTS)
def test_errors_name_the_file_and_line(cluster, tmp_path, monkeypatch, case):
    address, _ = cluster
    qrels, run, lines = grouped_run(tmp_path)
    run.write_text("".join(faults(lines, case)))
    monkeypatch.setenv("TRECGAIN_DASK_PARTITION_BYTES", str(run.stat().st_size // 10))
    here, _ = same(["-q", "-m", "map", str(qrels), str(run)], address)
    assert here.rc == 1 and here.stderr.count("\n") == 1 and here.stderr.startswith(f"trecgain: {run}:")
    shuffled = faults(lines, case)
    random.Random(6).shuffle(shuffled)  # the same faults, read after a shuffle
    run.write_text("".join(shuffled))
    here, _ = same(["-q", "-m", "map", str(qrels), str(run)], address)
    assert here.rc == 1


def test_errors_of_queries_only_c_brings_in(cluster, tmp_path, monkeypatch):
    """A query the run lacks fails before a query of the run, in qrels order (-c)."""
    address, _ = cluster
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("a 0 d1 2000\nb 0 d1 1\nc 0 d2 5000\n")
    run = tmp_path / "run.txt"
    run.write_text("".join(f"b Q0 d{i} {i} {i} t\n" for i in range(300)) + "c Q0 d2 1 1 t\n")
    monkeypatch.setenv("TRECGAIN_DASK_PARTITION_BYTES", "1000")
    for complete in ([], ["-c"]):
        here, _ = same([*complete, "--global-gains", "exp", "-m", "ndcg", str(qrels), str(run)], address)
        assert here.rc == 1 and ("2000" in here.stderr) == bool(complete)


def test_missing_runs(cluster, tmp_path):
    address, _ = cluster
    same(["-m", "map", EXAMPLE[0], str(tmp_path / "nope.txt")], address)
    same(["-m", "map", EXAMPLE[0], EXAMPLE[1], str(tmp_path)], address)


def test_run_larger_than_a_workers_memory(cluster, tmp_path):
    """A run one process needs more than a worker's memory limit for: read in parts, it
    completes on workers of that limit, with the same bytes."""
    address, client = cluster
    queries, docs = 4500, 2000
    body = b"\n".join(b"Q0 d%d %d %d.25 big" % (j, j + 1, (j * 7919) % docs) for j in range(docs))
    run, qrels = tmp_path / "big.txt", tmp_path / "big-qrels.txt"
    with open(run, "wb") as f:
        for q in range(queries):
            qid = b"q%05d" % q
            f.write(qid + b" " + body.replace(b"\n", b"\n" + qid + b" ") + b"\n")
    with open(qrels, "wb") as f:
        f.write(b"".join(b"q%05d 0 d%d %d\n" % (q, d, (q + d) % 4) for q in range(0, queries, 2)
                         for d in range(0, docs, 13)))
    args = ["-c", "-m", "map", "-m", "ndcg_cut.10", "-m", "num_rel_ret", str(qrels), str(run)]
    with open(tmp_path / "stderr", "wb") as errors:
        proc = subprocess.Popen([sys.executable, "-m", "trecgain", *args], stdout=subprocess.PIPE, stderr=errors,
                                cwd=ROOT)
        local = proc.stdout.read()  # type: ignore[union-attr]
        _, status, usage = os.wait4(proc.pid, 0)
    assert status == 0 and usage.ru_maxrss * 1024 > MEMORY_LIMIT, usage.ru_maxrss
    workers = set(client.scheduler_info()["workers"])
    there = run_cli(["--dask", address, *args])
    assert (there.rc, there.stderr, there.stdout) == (0, (tmp_path / "stderr").read_text(), local)
    assert set(client.scheduler_info()["workers"]) == workers  # no worker died on the way


# --- where runs are --------------------------------------------------------------------------


def test_globs_and_urls(cluster, tmp_path):
    address, _ = cluster
    qrels = write_qrels(tmp_path / "qrels.txt", 12, 7)
    runs = runs_of(tmp_path, 4, 12)
    here = run_cli(["--format", "csv", "-m", "map", str(qrels), *runs])
    there = run_cli(["--dask", address, "--format", "csv", "-m", "map", str(qrels), str(tmp_path / "run*.txt")])
    assert (there.rc, there.stdout) == (0, here.stdout)
    urls = [Path(r).as_uri() for r in runs[:2]]
    local = run_cli(["-q", "-m", "map", str(qrels), *runs[:2]])
    for args in (urls, [Path(tmp_path).as_uri() + "/run0[01].txt"]):
        there = run_cli(["--dask", address, "-q", "-m", "map", str(qrels), *args])
        assert (there.rc, there.stdout) == (0, local.stdout), there.stderr
    nothing = run_cli(["--dask", address, "-m", "map", str(qrels), str(tmp_path / "*.nope")])
    assert (nothing.rc, nothing.stdout) == (1, b"")
    assert nothing.stderr == f"trecgain: {tmp_path / '*.nope'}: no run file matches this pattern\n"
    missing = run_cli(["--dask", address, "-m", "map", str(qrels), (tmp_path / "nope.txt").as_uri()])
    assert missing.rc == 1 and missing.stderr.count("\n") == 1 and "nope.txt" in missing.stderr
    packed = tmp_path / "run.gz"  # gzip through fsspec: recognised by its content, as a file is
    packed.write_bytes(gzip.compress(Path(runs[0]).read_bytes()))
    there = run_cli(["--dask", address, "-q", "-m", "map", str(qrels), packed.as_uri(), runs[1]])
    assert (there.rc, there.stdout) == (0, local.stdout)


def test_urls_without_fsspec(cluster, monkeypatch, tmp_path):
    address, _ = cluster
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec raises ImportError
    out = run_cli(["--dask", address, "-m", "map", EXAMPLE[0], Path(EXAMPLE[1]).as_uri()])
    assert (out.rc, out.stdout) == (1, b"")
    assert out.stderr == (f"trecgain: {Path(EXAMPLE[1]).as_uri()}: reading a run from a URL needs fsspec (and the "
                          "filesystem's package, such as s3fs): pip install fsspec\n")


def test_output_is_never_a_run_given_as_a_url_or_glob(cluster, tmp_path, monkeypatch):
    """-o naming a run given as a file:// URL, a URL's glob or a glob is refused as it is
    without --dask (a run whose first rank is a word, which trec_eval ignores, does not
    look like a run: only the same-file check stops it)."""
    address, _ = cluster
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run.txt"
    data = Path(EXAMPLE[1]).read_bytes().replace(b" 1 ", b" one ", 1)
    run.write_bytes(data)
    plain = run_cli(["-o", "run.txt", "-m", "map", EXAMPLE[0], "run.txt"])
    assert (plain.rc, plain.stdout) == (1, b"") and plain.stderr.startswith("trecgain: -o run.txt is the input file")
    for given in (run.as_uri(), run.as_uri()[:-1] + "[t]", "local://" + str(run), str(tmp_path / "run.tx?")):
        there = run_cli(["--dask", address, "-o", "run.txt", "-m", "map", EXAMPLE[0], given])
        assert (there.rc, there.stdout) == (1, b""), given
        assert there.stderr.count("\n") == 1 and there.stderr.startswith("trecgain: -o run.txt is the input file")
        assert run.read_bytes() == data, given
    there = run_cli(["--dask", address, "-o", "results.txt", "-m", "map", EXAMPLE[0], run.as_uri()])
    assert there.rc == 0 and (tmp_path / "results.txt").read_bytes() == run_cli(["-m", "map", *EXAMPLE]).stdout


def test_a_missing_url_is_no_such_file(cluster):
    """A URL that names nothing: the URL as given, and what a missing file says."""
    address, _ = cluster
    for url in ("memory://nope.txt", "memory://dir/nope.txt.gz"):
        out = run_cli(["--dask", address, "-m", "map", EXAMPLE[0], url])
        assert (out.rc, out.stdout) == (1, b"")
        assert out.stderr == f"trecgain: {url}: cannot read: No such file or directory\n"


# --- the command around it ---------------------------------------------------------------------


def test_usage(cluster):
    address, _ = cluster
    both = run_cli(["--dask", address, "-j", "2", "-m", "map", *EXAMPLE])
    assert both.rc == 2 and "-j and --dask" in both.stderr
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):  # nothing listens on port 1
        bad = run_cli(["--dask", "tcp://127.0.0.1:1", "-m", "map", *EXAMPLE])
    assert (bad.rc, bad.stdout) == (1, b"") and bad.stderr.count("\n") == 1
    assert bad.stderr.startswith("trecgain: --dask: cannot reach a Dask scheduler at tcp://127.0.0.1:1")


UNPARSEABLE = ("localhost", "tcp://localhost", "foo://x:1", "tcp://[::1:1")


def test_addresses_dask_cannot_parse():
    """One line, and a prompt exit: no half-made Client left to time out (60 s) at exit."""
    start = time.monotonic()
    procs = {address: subprocess.Popen([sys.executable, "-m", "trecgain", "--dask", address, "-m", "map", *EXAMPLE],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
             for address in UNPARSEABLE}
    try:
        for address, proc in procs.items():
            out, err = proc.communicate(timeout=max(1.0, 20 - (time.monotonic() - start)))
            assert (proc.returncode, out) == (1, b""), address
            assert err.count(b"\n") == 1 and b"Traceback" not in err, err
            assert err.startswith(f"trecgain: --dask: cannot reach a Dask scheduler at {address}: ".encode()), err
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert time.monotonic() - start < 20


def test_the_librarys_errors_name_the_call():
    """From Python, the messages name evaluate_on_dask and the argument, never the command's
    --dask; bools are not numbers; nothing but TrecgainError."""
    from trecgain import Evaluator, TrecgainError
    from trecgain.distributed import evaluate_on_dask

    ev = Evaluator(EXAMPLE[0], measures=["map"])
    calls = {"runs": [(5,), (None,), ([None],), ([{}],), ({"301": {"d": 1.0}},), ([EXAMPLE[1], 3],)],
             "partition_bytes": [([EXAMPLE[1]], "local", {"partition_bytes": v}) for v in ("x", True, 0, 1.5)],
             "keep_values": [([EXAMPLE[1]], "local", {"keep_values": v}) for v in (1, None, "yes")],
             "progress": [([EXAMPLE[1]], "local", {"progress": 0})],
             "client": [([EXAMPLE[1]], v) for v in (5, None, "", ["local"])]}
    for argument, cases in calls.items():
        for case in cases:
            keywords = case[2] if len(case) > 2 else {}
            with pytest.raises(TrecgainError) as caught:
                evaluate_on_dask(ev, *case[:2], **keywords)
            message = str(caught.value)
            assert message.startswith("evaluate_on_dask: ") and argument in message, (case, message)
            assert "\n" not in message and "--dask" not in message, message
    for address in UNPARSEABLE[:2]:
        start = time.monotonic()
        with pytest.raises(TrecgainError) as caught:
            evaluate_on_dask(ev, EXAMPLE[1], address)
        assert str(caught.value).startswith(f"evaluate_on_dask: cannot reach a Dask scheduler at {address}: ")
        assert time.monotonic() - start < 10


def python_example() -> tuple[str, bytes]:
    """The README's Python example of the Dask section, and the output it shows."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Running at scale: Dask"):]
    section = section[:section.index("\n## ", 5)]
    code = section[section.index("```python\n") + len("```python\n"):]
    code, rest = code.split("```\n", 1)
    shown = rest[rest.index("```\n$ python ") + 4:]
    shown = shown[:shown.index("```\n")]
    return code, "".join(shown.splitlines(keepends=True)[1:]).encode()


def test_readme_python_example_runs_as_written(tmp_path, monkeypatch, capsys):
    """Pasted into a script (spawned worker processes import it again), the example runs and
    prints what the README shows: what the same script prints with each run evaluated here."""
    import trecgain.distributed

    code, shown = python_example()
    script = tmp_path / "example.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, cwd=ROOT, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr.decode()
    assert proc.stdout == shown and shown

    def here(ev, runs, client="local", **options):
        return [ev.evaluate(name) for name in trecgain.distributed.expand_runs(runs)]

    monkeypatch.setattr(trecgain.distributed, "evaluate_on_dask", here)
    monkeypatch.chdir(ROOT)
    exec(compile(code, str(script), "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out.encode() == shown


def interruptible() -> subprocess.Popen:
    """`trecgain --dask local` waiting for its run on standard input once its cluster is up."""
    import psutil

    proc = subprocess.Popen([sys.executable, "-m", "trecgain", "--dask", "local", "-m", "map", EXAMPLE[0], "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            start_new_session=True)
    awaiting_standard_input(proc)
    assert workers_of(psutil.Process(proc.pid)), "no worker process started"
    return proc


def awaiting_standard_input(proc: subprocess.Popen, seconds: float = 60) -> None:
    """Until the command reads its run from standard input: its cluster is up (Linux's /proc
    says where its main thread waits)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            waits = Path(f"/proc/{proc.pid}/wchan").read_text()
            call = Path(f"/proc/{proc.pid}/syscall").read_text().split()
        except OSError:
            break
        if "pipe" in waits or call[:2] in (["0", "0x0"], ["63", "0x0"]):  # read(0, ...): x86-64, arm64
            return
        time.sleep(0.05)
    raise AssertionError(f"the command never read standard input (status {proc.poll()})")


def workers_of(process) -> list:
    """A process's Dask worker processes (its spawned children, not the resource tracker)."""
    import psutil

    out = []
    for child in process.children(recursive=True):
        try:
            line = " ".join(child.cmdline())
        except psutil.Error:
            continue
        if "resource_tracker" not in line:
            out.append(child)
    return out


@pytest.mark.parametrize("how", ["SIGINT", "SIGINT to the group", "SIGTERM"])
def test_interrupted_local_cluster(how):
    """Ctrl-C: `trecgain: interrupted` alone, status 130; SIGTERM ends it as it ends any program,
    nothing said; no multiprocessing warnings after, no worker left behind."""
    import signal

    import psutil

    proc = interruptible()
    time.sleep(0.5)
    workers = workers_of(psutil.Process(proc.pid))
    if how == "SIGINT to the group":  # a terminal's Ctrl-C reaches every process of the command
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, getattr(signal, how))
    try:
        out, err = proc.communicate(timeout=30)  # standard error's end: the last process holding it gone
    finally:
        if proc.poll() is None:
            proc.kill()
    if how == "SIGTERM":
        assert (proc.returncode, out, err) == (-signal.SIGTERM, b"", b"")
    else:
        assert (proc.returncode, out, err) == (130, b"", b"trecgain: interrupted\n")
    time.sleep(1)
    assert not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]


def test_without_dask_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    out = run_cli(["--dask", "local", "-m", "map", *EXAMPLE])
    assert (out.rc, out.stdout) == (1, b"")
    assert out.stderr.count("\n") == 1 and "pip install trecgain[dask]" in out.stderr


def test_dask_is_not_imported_otherwise():
    code = ("import sys; from trecgain.cli import main; main(['-m', 'map', *sys.argv[1:]]); "
            "assert not {'dask', 'distributed'} & set(sys.modules), sorted(sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code, *EXAMPLE], capture_output=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


def test_progress_bar_only_on_a_terminal(cluster, tmp_path):
    address, _ = cluster
    qrels = write_qrels(tmp_path / "qrels.txt", 10, 8)
    runs = [tmp_path / f"run{i}.txt" for i in range(3)]
    for i, run in enumerate(runs):  # every query, ordered by the rank column: no note to print
        run.write_text("".join(run_lines([f"{q:03d}" for q in range(10)], i)))
    args = [sys.executable, "-m", "trecgain", "--dask", address, "--ties", "rank", "-m", "runid", "-m", "map",
            str(qrels), *runs]  # runid labels the runs: no note on unlabelled ones either
    plain = subprocess.run(args, capture_output=True, cwd=ROOT)
    assert plain.returncode == 0 and plain.stdout and plain.stderr == b""
    controller, terminal = pty.openpty()
    try:
        shown = subprocess.run(args, stdout=subprocess.PIPE, stderr=terminal, cwd=ROOT)
        os.close(terminal)
        terminal = -1
        text = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            text += chunk
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)
    assert shown.returncode == 0 and shown.stdout == plain.stdout
    assert b"3/3 tasks" in text, text


def test_local_cluster():
    """--dask local: a LocalCluster of this machine's size, started and closed by the command."""
    args = ["-q", "-m", "ndcg_cut.10", *EXAMPLE]
    local = subprocess.run([sys.executable, "-m", "trecgain", *args], capture_output=True, cwd=ROOT)
    start = time.monotonic()
    there = subprocess.run([sys.executable, "-m", "trecgain", "--dask", "local", *args], capture_output=True,
                           cwd=ROOT, timeout=120)
    assert (there.returncode, there.stdout, there.stderr) == (0, local.stdout, local.stderr)
    assert time.monotonic() - start < 60


# --- workers that die (last: they restart the cluster's workers) -------------------------------


class ExitOnce(distributed.WorkerPlugin):
    """Ends its worker process when a run's task starts: once (a marker file says it did), or
    every time."""

    def __init__(self, marker: str, always: bool = False):
        self.marker, self.always = marker, always

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith("evaluate_"):
            try:  # made by one worker only: of two workers starting at once, one dies
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                if not self.always:
                    return
            os._exit(1)


@pytest.mark.parametrize("always", [False, True], ids=["retried", "given-up"])
def test_a_worker_killed_mid_job(cluster, tmp_path, always):
    address, client = cluster
    qrels = write_qrels(tmp_path / "qrels.txt", 10, 9)
    runs = runs_of(tmp_path, 4, 10)
    marker = tmp_path / "killed"
    client.register_plugin(ExitOnce(str(marker), always), name="exit-once")
    try:
        local = run_cli(["-q", "-m", "gain", str(qrels), *runs])
        there = run_cli(["--dask", address, "-q", "-m", "gain", str(qrels), *runs])
    finally:
        client.unregister_worker_plugin("exit-once")
        client.wait_for_workers(2, timeout=60)
    assert marker.exists()
    if not always:
        assert (there.rc, there.stdout, there.stderr) == (0, local.stdout, local.stderr)
        return
    assert (there.rc, there.stdout) == (1, b"")
    assert there.stderr.count("\n") == 1 and "Traceback" not in there.stderr
    assert there.stderr.startswith(f"trecgain: {runs[0]}: a Dask worker died while evaluating it")


def test_a_cluster_without_workers_is_given_up():
    """Workers that never come (a cluster of none): Dask's no-workers-timeout, then one error."""
    from trecgain import Evaluator, TrecgainError
    from trecgain.distributed import evaluate_on_dask

    empty = distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0",
                                     silence_logs=logging.CRITICAL)
    ev = Evaluator(EXAMPLE[0], measures=["map"])
    try:
        with dask.config.set({"distributed.scheduler.no-workers-timeout": "1s"}):
            caught = within(10, lambda: evaluate_on_dask(ev, EXAMPLE[1], empty.scheduler_address))
            out = within(10, lambda: run_cli(["--dask", empty.scheduler_address, "-m", "map", *EXAMPLE]))
    finally:
        empty.close()
    assert isinstance(caught, TrecgainError)
    assert str(caught) == f"{EXAMPLE[1]}: the Dask cluster has had no workers for 1 s: giving up"
    assert (out.rc, out.stdout, out.stderr) == (1, b"", f"trecgain: {caught}\n")


def within(seconds: float, action):
    """What action() returns or raises, on a thread that must be done within `seconds` (a wait
    without end fails the test instead of hanging it)."""
    import threading

    outcome: list = []

    def run() -> None:
        try:
            outcome.append(action())
        except BaseException as err:  # the outcome under test
            outcome.append(err)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"still waiting after {seconds} s"
    return outcome[0]


def test_local_cluster_whose_workers_are_killed_until_none_is_left():
    """--dask local, its worker processes killed again and again (while it reads its run from
    standard input) until the nannies give up restarting them: one line, status 1, promptly
    (Dask's no-workers-timeout, 2 s here; allowed-failures high: only that bound applies)."""
    import psutil

    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__NO_WORKERS_TIMEOUT": "2s",
           "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1000"}
    proc = subprocess.Popen([sys.executable, "-m", "trecgain", "--dask", "local", "-m", "map", EXAMPLE[0], "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    try:
        main = psutil.Process(proc.pid)
        awaiting_standard_input(proc)  # the cluster up
        deadline = time.monotonic() + 60
        kills, calm = 0, time.monotonic()
        while time.monotonic() - calm < 3 and time.monotonic() < deadline:  # until none has come back for 3 s
            for worker in workers_of(main):
                try:
                    worker.kill()
                    kills += 1
                    calm = time.monotonic()
                except psutil.Error:
                    pass
            time.sleep(0.05)
        assert kills >= 2 and not workers_of(main)
        start = time.monotonic()
        out, err = proc.communicate(Path(EXAMPLE[1]).read_bytes(), timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert time.monotonic() - start < 20
    assert (proc.returncode, out) == (1, b"")
    assert err == b"trecgain: (standard input): the Dask cluster has had no workers for 2 s: giving up\n", err


# ---------------------------------------------------------------- trec_eval's other relevance formats


@pytest.mark.parametrize("case_id", ["j0000", "j0001", "p0000", "p0001", "qp0000", "qp0001", "z0000", "z0001"])
def test_relevance_formats_and_zscores_on_dask(cluster, case_id):
    """-R qrels_jg, prefs and qrels_prefs, and -Z, on the cluster: the same bytes as without
    --dask, and the recorded trec_eval output (testdata/conformance/relations), in both modes,
    also with -q."""
    from test_relations import invocation, load

    address, _ = cluster
    for mode in ("10", "9"):
        expect = load(case_id)["expect"].get(mode)
        if expect is None or expect.get("error") or "-" in invocation(case_id, mode)[0]:
            continue
        args, stdin = invocation(case_id, mode)
        _, there = same(args, address, stdin)
        assert there.stdout.decode("utf-8", "surrogateescape") == expect["stdout"], (case_id, mode)
        same(["-q", *args], address, stdin)


def test_subtopic_qrels_on_dask(cluster):
    """-R subtopics on the cluster: the same bytes as without --dask, per query too."""
    address, _ = cluster
    args = ["-R", "subtopics", "-m", "ERR_IA@20", "-m", "alpha_nDCG(alpha=0.3)@10", "-m", "NRBP",
            str(ROOT / "testdata/diversity/qrels.txt"), str(ROOT / "testdata/diversity/run.txt")]
    _, there = same(args, address)
    assert there.stdout.decode().split()[:3] == ["ERR_IA@20", "all", "0.5088"]
    same(["-q", *args], address)


def test_conventions_are_the_same_under_dask(cluster, tmp_path):
    """--as TOOL through Dask: the same bytes as here (marked lines, a mean over the run's queries,
    rounded means), and a query set the tool refuses is refused there too."""
    address, _ = cluster
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 a 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n3 Q0 a 1 1 t\n")
    for tool, measure in (("trectools", "map"), ("beir", "ndcg_cut.10"), ("sklearn", "ndcg_cut.10")):
        same(["--as", tool, "-q", "-m", measure, str(qrels), str(run)], address)
    here, _ = same(["--as", "ranx", "-m", "map", str(qrels), str(run)], address)
    assert here.rc == 1 and "same queries" in here.stderr
