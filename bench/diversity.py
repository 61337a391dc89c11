"""The diversity measures (issue 21): trecgain against pyndeval (the PyPI wrapper of ndeval.c) on
a 100K-line run, interleaved, two ways: whole processes (`trecgain -R subtopics` on the files;
pyndeval's process reading them into rows in Python), and in process (each tool's evaluation
call on the same rows in memory, timed alone in a fresh process, each tool's modules imported
before the timer starts: pyndeval's
`RelevanceEvaluator(qrels).evaluate(run)`, trecgain's `Evaluator(qrels, ..., rel_format="subtopics")
.evaluate(run)`).

A generated collection (fixed seed): 100 queries x 1,000 documents, each query 5 subtopics with
about 60 judged documents each (binary grades, many of them retrieved).  Both tools compute the
nine measures of ndeval at their defaults (alpha 0.5, beta 0.5, cutoff 20): trecgain as one
command line, pyndeval reading the same files into its rows in Python and calling
RelevanceEvaluator.  Each round runs every case once; the table gives medians and the ratio of
trecgain's median to pyndeval's; every exit status is checked and the two tools' means compared (to the 4 decimals trecgain prints).

    python bench/diversity.py [--rounds 5] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
OURS = ["ERR_IA@20", "nERR_IA@20", "alpha_DCG@20", "alpha_nDCG@20", "NRBP", "nNRBP", "AP_IA", "P_IA@20",
        "StRecall@20"]
THEIRS = ["ERR-IA@20", "nERR-IA@20", "alpha-DCG@20", "alpha-nDCG@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@20",
          "strec@20"]
PYNDEVAL = r"""
import json, sys, pyndeval
qrels = []
with open(sys.argv[1]) as f:
    for line in f:
        q, s, d, g = line.split()
        qrels.append((q, s, d, int(g)))
run = []
with open(sys.argv[2]) as f:
    for line in f:
        q, _, d, _, score, _ = line.split()
        run.append((q, d, float(score)))
names = sys.argv[3].split(",")
if sys.argv[4] == "whole":
    values = pyndeval.RelevanceEvaluator(qrels, names).evaluate(run)
    print(json.dumps({n: sum(v[n] for v in values.values()) / len(values) for n in names}))
    raise SystemExit
import time
if sys.argv[4] == "trecgain":
    from trecgain import Evaluator  # its modules loaded before the timer, as pyndeval's are
    start = time.perf_counter()
    result = Evaluator(qrels, names, rel_format="subtopics").evaluate(run)
    seconds = time.perf_counter() - start
    means = dict(result.aggregate)
else:
    start = time.perf_counter()
    values = pyndeval.RelevanceEvaluator(qrels, names).evaluate(run)
    seconds = time.perf_counter() - start
    means = {n: sum(v[n] for v in values.values()) / len(values) for n in names}
print(json.dumps({"seconds": seconds, "means": means}))
"""


def collection(queries: int = 100, docs: int = 1000, seed: int = 21) -> tuple[Path, Path]:
    """The generated subtopic qrels and run (cached in bench/data)."""
    qrels_path, run_path = DATA / f"div_{queries}x{docs}.qrels", DATA / f"div_{queries}x{docs}.run"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(1, queries + 1):
        pool = [f"D{q:03d}-{d:05d}" for d in range(docs + 200)]
        for s in range(1, 6):
            for d in rng.sample(pool[: docs + 100], 60):
                qrels.append(f"{q} {s} {d} {int(rng.random() < 0.4)}\n")
        for rank, d in enumerate(rng.sample(pool, docs), 1):
            run.append(f"{q} Q0 {d} {rank} {round(rng.gauss(10, 2), 4)} div\n")
    qrels_path.write_text("".join(qrels))
    run_path.write_text("".join(run))
    return qrels_path, run_path


def timed(command: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({done.returncode}): {done.stderr.strip()[:300]}")
    return seconds, done.stdout


def in_process(tool: str, qrels: Path, run: Path) -> tuple[float, dict[str, float]]:
    """One tool's evaluation call on the rows, timed in a fresh process (which reads the files into
    rows first, untimed)."""
    names = OURS if tool == "trecgain" else THEIRS
    done = subprocess.run([sys.executable, "-c", PYNDEVAL, str(qrels), str(run), ",".join(names), tool],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{tool} in process failed ({done.returncode}): {done.stderr.strip()[:300]}")
    out = json.loads(done.stdout)
    return out["seconds"], out["means"]


def row(name: str, times: list[float], ratio: str, same: str, goal: str) -> str:
    return (f"| {name} | {statistics.median(times):.3f} | {min(times):.3f}-{max(times):.3f} | {ratio} | {same} | "
            f"{goal} |\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trecgain", default=str(ROOT / ".venv" / "bin" / "trecgain"))
    parser.add_argument("--out")
    args = parser.parse_args()
    qrels, run = collection()
    ours = [args.trecgain, "-R", "subtopics", *[x for m in OURS for x in ("-m", m)], str(qrels), str(run)]
    theirs = [sys.executable, "-c", PYNDEVAL, str(qrels), str(run), ",".join(THEIRS), "whole"]
    times: dict[str, list[float]] = {"trecgain": [], "pyndeval": [], "trecgain call": [], "pyndeval call": []}
    outputs: dict[str, str] = {}
    means: dict[str, dict[str, float]] = {}
    for r in range(args.rounds):
        for name, command in (("trecgain", ours), ("pyndeval", theirs))[:: 1 if r % 2 == 0 else -1]:
            seconds, outputs[name] = timed(command)
            times[name].append(seconds)
            print(f"round {r + 1} {name}: {seconds:.3f} s", file=sys.stderr)
        for tool in ("trecgain", "pyndeval")[:: 1 if r % 2 == 0 else -1]:
            seconds, means[tool] = in_process(tool, qrels, run)
            times[f"{tool} call"].append(seconds)
            print(f"round {r + 1} {tool} call: {seconds:.3f} s", file=sys.stderr)
    ours_means = {line.split()[0]: float(line.split()[2]) for line in outputs["trecgain"].splitlines()}
    theirs_means = json.loads(outputs["pyndeval"])
    same = all(ours_means[o] == round(theirs_means[t], 4) for o, t in zip(OURS, THEIRS))  # trec text: 4 decimals
    same_call = all(abs(means["trecgain"][o] - means["pyndeval"][t]) <= 1e-12 for o, t in zip(OURS, THEIRS))
    med = {k: statistics.median(v) for k, v in times.items()}
    goal = "at least 10x faster (<= 0.1x)"
    report = (f"100 queries x 1,000 documents (100,000 run lines), 5 subtopics x 60 judgments a query; "
              f"the nine ndeval measures; medians of {args.rounds} interleaved rounds\n\n"
              "| tool | median s | min-max | ratio | means equal | goal |\n|---|---:|---:|---:|---|---|\n"
              + row("trecgain, whole process", times["trecgain"], f"{med['trecgain'] / med['pyndeval']:.3f}x",
                    "yes (4 decimals)" if same else "NO", goal)
              + row("pyndeval, whole process", times["pyndeval"], "", "", "")
              + row("trecgain, the call on rows in memory", times["trecgain call"],
                    f"{med['trecgain call'] / med['pyndeval call']:.3f}x", "yes (1e-12)" if same_call else "NO", goal)
              + row("pyndeval, the call on rows in memory", times["pyndeval call"], "", "", ""))
    print(report)
    if args.out:
        Path(args.out).write_text(f"# bench/diversity.py\n\n`{' '.join(sys.argv)}`\n\n{report}")
    if not (same and same_call):
        raise SystemExit("the tools' means differ")


if __name__ == "__main__":
    main()
