"""A sweep on Dask: many full-size runs evaluated by one process, by `-j N`, and by `--dask`
on a local cluster, with the outputs checked equal; then a model of how the time falls with
more workers, from what this machine measured.

The runs are generated (seeded): QUERIES queries of DOCS documents each (100K lines a run by
default), scores differing per run, qrels judging a third of each query's documents.  Timed:

* `trecgain -m map -m ndcg_cut.10 qrels run1 ... runN` (one process), and the same with `-j W`;
* `trecgain --dask local ...` (a LocalCluster started and closed by the command: its start-up
  counts) and `--dask tcp://...` against a LocalCluster started beforehand (W workers, one
  thread each), each the median of `--repeat` runs.

The model (a simulation, not a measurement of a larger cluster): with the cluster running, a
sweep of N runs on W workers takes T(W) = S + N * c + ceil(N / W) * t, where
* t is a run's task on a worker alone (the task stream's compute time, reading and measuring,
  tasks sent one at a time so that no other task shares this machine's cores);
* c is the client's and the scheduler's CPU time a run (submitting, scheduling, gathering,
  putting the values together; a LocalCluster's scheduler runs in the client's process),
  measured over a whole sweep with a task a run (with few workers, small runs share tasks
  and cost less): the part that more workers do not divide;
* S is the fixed cost of a command: its start-up, importing Dask, connecting, sending the
  qrels, printing (a one-run `--dask ADDRESS` command less its t and c).
It assumes the storage feeds W workers as fast as it feeds one (no network or disk limit),
equal tasks, and workers of this machine's speed each.

    python bench/dask_sweep.py                 # 200 runs of 100K lines, 2 workers
    python bench/dask_sweep.py --runs 50 --queries 200 --repeat 1
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def generate(folder: Path, runs: int, queries: int, docs: int) -> tuple[Path, list[Path]]:
    rng = random.Random(13)
    qrels = folder / "qrels.txt"
    with open(qrels, "wb") as f:
        for q in range(queries):
            for d in rng.sample(range(docs), docs // 3):
                f.write(b"q%05d 0 d%d %d\n" % (q, d, rng.choice((0, 0, 1, 1, 2, 3))))
    paths = []
    for r in range(runs):
        scores = list(range(docs))
        rng.shuffle(scores)
        body = b"\n".join(b"Q0 d%d %d %d.%02d sweep%d" % (d, i + 1, s, r % 100, r)
                          for i, (d, s) in enumerate(sorted(enumerate(scores), key=lambda x: -x[1])))
        path = folder / f"run{r:04d}.txt"
        with open(path, "wb") as f:
            for q in range(queries):
                qid = b"q%05d" % q
                f.write(qid + b" " + body.replace(b"\n", b"\n" + qid + b" ") + b"\n")
        paths.append(path)
    return qrels, paths


def timed(argv: list[str], repeat: int) -> tuple[float, bytes]:
    times, out = [], b""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            sys.exit(f"failed: {' '.join(argv[:6])} ...: {proc.stderr.decode()[-500:]}")
        out = proc.stdout
    return statistics.median(times), out


def _computes(stream: object) -> list[float]:
    """The compute seconds of each run's task in a task stream."""
    return [sum(s["stop"] - s["start"] for s in t["startstops"] if s["action"] == "compute")
            for t in stream.data if str(t["key"]).startswith("_evaluate_part")]  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate the runs here and keep them")
    args = parser.parse_args()

    import distributed

    from trecgain import Evaluator
    from trecgain.distributed import evaluate_on_dask

    folder = args.keep or Path(tempfile.mkdtemp(prefix="trecgain-sweep-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        qrels, runs = generate(folder, args.runs, args.queries, args.docs)
        print(f"generated {args.runs} runs of {args.queries * args.docs} lines "
              f"({sum(p.stat().st_size for p in runs) / 2**20:.0f} MiB) in {time.perf_counter() - start:.1f} s")
        command = [sys.executable, "-m", "trecgain", "-m", "map", "-m", "ndcg_cut.10"]
        files = [str(qrels), *map(str, runs)]
        one, want = timed([*command, *files], args.repeat)
        jobs, out = timed([*command, "-j", str(args.workers), *files], args.repeat)
        assert out == want, "-j differs"
        local, out = timed([*command, "--dask", "local", *files], args.repeat)
        assert out == want, "--dask local differs"
        cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", silence_logs=logging.CRITICAL)
        client = distributed.Client(cluster)
        try:
            address = cluster.scheduler_address
            running, out = timed([*command, "--dask", address, *files], args.repeat)
            assert out == want, "--dask ADDRESS differs"
            single, _ = timed([*command, "--dask", address, files[0], files[1]], args.repeat)
            ev = Evaluator(str(qrels), measures=["map", "ndcg_cut.10"])
            # t: tasks one at a time
            with distributed.get_task_stream(client) as stream:
                for run in runs[:20]:
                    evaluate_on_dask(ev, [str(run)], client, keep_values=False)
            t = statistics.median(_computes(stream))
            # c: the client's process over a whole sweep (tasks in parallel), a task a run (as
            # with many workers: small runs share a task only while each worker has many)
            import trecgain.distributed

            batch, trecgain.distributed.BATCH_BYTES = trecgain.distributed.BATCH_BYTES, 0
            cpu, wall = time.process_time(), time.perf_counter()
            results = evaluate_on_dask(ev, [str(r) for r in runs], client, keep_values=False)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            trecgain.distributed.BATCH_BYTES = batch
            assert b"".join(r.to_trec_bytes() for r in results) == want
        finally:
            client.close()
            cluster.close()
        n, w = args.runs, args.workers
        c = cpu / n
        s = max(0.0, single - c - t)
        print()
        print(f"| {n} runs x {args.queries * args.docs // 1000}K lines, `-m map -m ndcg_cut.10` | seconds |")
        print("|---|---:|")
        print(f"| one process | {one:.2f} |")
        print(f"| `-j {w}` | {jobs:.2f} |")
        print(f"| `--dask local` ({w} workers here; cluster start-up included) | {local:.2f} |")
        print(f"| `--dask tcp://...` (a running LocalCluster, {w} workers of 1 thread) | {running:.2f} |")
        print()
        print(f"model: t = {t * 1000:.1f} ms a run on a worker alone, c = {c * 1000:.2f} ms a run on the client "
              f"and scheduler, S = {s:.2f} s; predicted at {w} workers {s + n * c + math.ceil(n / w) * t:.2f} s, "
              f"measured {running:.2f} s (here the {w} workers and the client share {os.cpu_count()} cores)")
        print()
        counts = (1, 2, 4, 8, 16, 32, 64)
        model = [s + n * c + math.ceil(n / k) * t for k in counts]
        print("| workers | " + " | ".join(str(k) for k in counts) + " |")
        print("|---|" + "---:|" * len(counts))
        print("| seconds (model) | " + " | ".join(f"{m:.2f}" for m in model) + " |")
        print("| speed-up over 1 worker | " + " | ".join(f"{model[0] / m:.1f}x" for m in model) + " |")
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
