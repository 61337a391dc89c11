"""`trecgain cwl` against cwl_eval (PyPI cwl-eval's `cwl-eval` script) on a 100K-line run.

The data: bench/gen.py's 100 queries x 1,000 documents (100,000 run lines), its grades 0-3
turned into gains grade / 3 (cwl_eval wants gains in [0, 1]); cwl_eval's 16 default metrics,
and with --residuals.  Whole processes, interleaved, medians; every run's exit status is
checked and both tools' outputs must be byte-identical.  Goal: trecgain at least 10x faster.

    python bench/cwl.py [--runs 2] [--out bench/cwl.md]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import BENCH_DIR, machine_description
from gen import DataSpec, ensure_data


def gain_file(qrels: Path) -> Path:
    """The qrels with each grade g as the gain g / 3."""
    out = qrels.with_name("cwl_gains_" + qrels.name)
    if not out.exists():
        lines = []
        for line in qrels.read_text().splitlines():
            topic, unused, doc, grade = line.split()
            lines.append(f"{topic} {unused} {doc} {int(grade) / 3!r}\n")
        out.write_text("".join(lines))
    return out


def timed(argv: list[str], cwd: Path) -> tuple[float, bytes]:
    """One whole process: wall seconds and its output (a failure stops the benchmark)."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{argv[0]} failed ({done.returncode}): {done.stderr.decode(errors='replace')[-300:]}")
    return seconds, done.stdout


def compare(title: str, tools: dict[str, list[str]], runs: int, cwd: Path) -> list[str]:
    samples: dict[str, list[float]] = {name: [] for name in tools}
    outputs: dict[str, bytes] = {}
    names = list(tools)
    for round_no in range(runs):
        for name in names[round_no % 2:] + names[:round_no % 2]:  # alternate who goes first
            seconds, out = timed(tools[name], cwd)
            samples[name].append(seconds)
            outputs.setdefault(name, out)
            print(f"[{title} {round_no + 1}/{runs}] {name}: {seconds:.2f} s", file=sys.stderr)
    same = len(set(outputs.values())) == 1
    base = statistics.median(samples["cwl_eval"])
    rows = [f"### {title}", "", f"Outputs byte-identical: {'yes' if same else 'NO'}", "",
            "| command | median s | runs | relative to cwl_eval |", "|---|---:|---:|---:|"]
    for name, secs in samples.items():
        med = statistics.median(secs)
        rows.append(f"| {name} | {med:.3f} | {len(secs)} | {med / base:.3f}x |")
    return rows + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "cwl.md")
    args = parser.parse_args()
    qrels, run, _ = ensure_data(DataSpec(queries=100), BENCH_DIR / "data")
    gains = gain_file(qrels)
    script = shutil.which("cwl-eval", path=str(Path(sys.executable).parent))
    trecgain = shutil.which("trecgain", path=str(Path(sys.executable).parent))
    if script is None or trecgain is None:
        sys.exit("cwl-eval and trecgain must be installed in this Python's environment (make; the test extra)")
    lines = ["# trecgain cwl vs cwl_eval", "", machine_description(), "",
             f"Data: {run.name} (100,000 lines), gains {gains.name}.", ""]
    with tempfile.TemporaryDirectory(prefix="trecgain-bench-cwl-") as tmp:  # cwl_eval writes cwl.log here
        for title, extra in (("default metrics", []), ("default metrics, --residuals", ["-r"])):
            tools = {"cwl_eval": [sys.executable, script, str(gains), str(run), *extra],
                     "trecgain cwl": [trecgain, "cwl", str(gains), str(run), *extra]}
            lines += compare(title, tools, args.runs, Path(tmp))
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
