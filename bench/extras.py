"""Three more measurements for the speed goals: start-up, whitespace, several runs with -j.

- startup: a whole `trecgain` process on the tiny bundled example against
  `python -c "import numpy"` (the floor for anything built on numpy).
- whitespace: the 5,000 x 1,000 benchmark written with random runs of spaces and tabs
  against the same data with single spaces.
- jobs: eight run files (1,000 queries x 1,000 documents each, one qrels) in one call,
  with -j 1 and -j 2, and eight separate trec_eval processes in a shell loop.

Each comparison is timed with bench.py's launcher (whole processes, interleaved, medians).

    python bench/extras.py [--runs 5] [--trec-eval PATH] [--out bench/extras.md]
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from bench import BENCH_DIR, PROJECT_ROOT, Tool, ensure_trec_eval, machine_description, measure_tools
from gen import DataSpec, ensure_data

EXAMPLE = [str(PROJECT_ROOT / "testdata/example/qrels.txt"), str(PROJECT_ROOT / "testdata/example/run.txt")]


def table(title: str, results, baseline: str) -> list[str]:
    """A markdown table of medians, with each tool's time relative to `baseline`."""
    base = next(r for r in results if r.tool.name == baseline).median_seconds()
    lines = [f"### {title}", "", "| command | median s | min-max s | peak MiB | relative to " + baseline + " |",
             "|---|---:|---:|---:|---:|"]
    for r in results:
        secs = [s.seconds for s in r.samples]
        mib = sorted(s.maxrss_kib / 1024 for s in r.samples)[len(secs) // 2]
        lines.append(f"| `{r.tool.shown()}` | {r.median_seconds():.3f} | {min(secs):.3f}-{max(secs):.3f} | "
                     f"{mib:.1f} | {r.median_seconds() / base:.2f}x |")
    return lines + [""]


def startup(runs: int, trecgain: list[str]) -> list[str]:
    # the launcher wants an `all` line from every tool
    tools = [Tool("numpy import", [sys.executable, "-c", "import numpy; print('numpy all 1')"],
                  display="python -c 'import numpy'"),
             Tool("trecgain example", [*trecgain, "-m", "ndcg_cut.10", *EXAMPLE])]
    return table("Start-up (goal: trecgain within 2x of importing numpy)", measure_tools(tools, runs, 2),
                 "numpy import")


def whitespace(runs: int, trecgain: list[str]) -> list[str]:
    plain_q, plain_r, _ = ensure_data(DataSpec(), BENCH_DIR / "data")
    messy_q, messy_r, _ = ensure_data(DataSpec(whitespace=True), BENCH_DIR / "data")
    tools = [Tool("single spaces", [*trecgain, "-m", "ndcg_cut.10", str(plain_q), str(plain_r)]),
             Tool("spaces and tabs", [*trecgain, "-m", "ndcg_cut.10", str(messy_q), str(messy_r)])]
    return table("Arbitrary whitespace, 5M lines (goal: at most 1.5x single spaces)",
                 measure_tools(tools, runs, 1), "single spaces")


def jobs(runs: int, trecgain: list[str], trec_eval: Path) -> list[str]:
    qrels, first, _ = ensure_data(DataSpec(queries=1000), BENCH_DIR / "data")
    run_files = [str(first)] + [str(ensure_data(DataSpec(queries=1000, seed=s), BENCH_DIR / "data")[1])
                                for s in range(1, 8)]
    loop = "; ".join(f"{shlex.quote(str(trec_eval))} -m ndcg_cut.10 {shlex.quote(str(qrels))} {shlex.quote(r)}"
                     for r in run_files)
    tools = [Tool("-j 1", [*trecgain, "-j", "1", "-m", "ndcg_cut.10", str(qrels), *run_files]),
             Tool("-j 2", [*trecgain, "-j", "2", "-m", "ndcg_cut.10", str(qrels), *run_files]),
             Tool("trec_eval x 8", ["/bin/sh", "-c", loop], display="8 x trec_eval -m ndcg_cut.10 (shell loop)")]
    return table("Eight runs of 1M lines, one qrels, on 2 cores", measure_tools(tools, runs, 1), "-j 1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--trec-eval", type=Path, help="trec_eval binary (default: pyserini's, downloaded)")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "extras.md")
    parser.add_argument("--only", choices=["startup", "whitespace", "jobs"])
    args = parser.parse_args(argv)
    trecgain = [sys.executable, "-m", "trecgain"]
    lines = ["# trecgain: start-up, whitespace, several runs", "", f"- Machine: {machine_description()}", ""]
    if args.only in (None, "startup"):
        lines += startup(args.runs * 2, trecgain)
    if args.only in (None, "whitespace"):
        lines += whitespace(args.runs, trecgain)
    if args.only in (None, "jobs"):
        lines += jobs(args.runs, trecgain, args.trec_eval or ensure_trec_eval(BENCH_DIR / "cache"))
    text = "\n".join(lines)
    print(text)
    args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
