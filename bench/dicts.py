"""Evaluating Python dicts and DataFrames: trecgain against pytrec_eval and ranx, interleaved.

An MS MARCO dev-sized run (6,980 queries x 1,000 documents, docnos and qids numeric strings,
scores rounded to 3 decimals so that some tie) with ~1.3 judgments a query, made from a fixed
seed, and 4 measures (ndcg_cut.10, recall.1000, recip_rank, map).  Each case runs in a fresh
process, which builds its input, then times the whole call (conversion included) and reports
its wall seconds, its CPU seconds (all threads: the machine is shared, and CPU time is what
load disturbs least) and the process's peak resident memory (ru_maxrss: input included, so
every case holds the same data as its input needs):

- `trecgain dict`: `trecgain.Evaluator(qrels, measures).evaluate(run)` on the dicts;
- `pytrec_eval dict`: `pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)`;
- `trecgain pandas` / `trecgain polars`: the run and qrels as DataFrames (query_id, doc_id,
  score / relevance; string ids) through `Evaluator`;
- `ranx`: `ranx.evaluate(Qrels(qrels), Run(run), ...)`, its JIT warmed first by the same
  call on the first 50 queries;
- `trecgain Evaluator 128K` / `pytrec_eval Evaluator 128K`: building the evaluator only,
  from a qrels dict of 128,000 judgments (1,000 queries x 128).

Rounds run every case once each, in order, `--rounds` times; the table gives medians, and
each ratio is against pytrec_eval's median (the dict's for the frames).  Every case's exit
status is checked.  Needs the test tools (pytrec-eval-terrier, pandas, polars) and ranx:
`make bench-dicts` installs ranx and runs it (BENCH_ARGS for the options below).

    python bench/dicts.py [--rounds 5] [--queries 6980] [--docs 1000] [--cases a,b,...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

MEASURES = ["ndcg_cut.10", "recall.1000", "recip_rank", "map"]
RANX_MEASURES = ["ndcg@10", "recall@1000", "mrr", "map"]

DATA = r"""
import numpy as np

def collection(queries, docs, seed=19):
    # qids, docnos and scores of the run; the qrels: ~1.3 judgments a query, most retrieved
    rng = np.random.default_rng(seed)
    qids = [str(1000000 + 7 * q) for q in range(queries)]
    base = rng.integers(0, 8841823, size=queries)
    steps = rng.integers(1, 8000, size=queries) * 2 + 1
    docnos = (base[:, None] + steps[:, None] * np.arange(docs)[None, :]) % 8841823
    scores = np.round(rng.normal(10.0, 2.0, size=(queries, docs)), 3)
    judged = rng.random(queries) < 0.3
    qrels = {}
    for q, qid in enumerate(qids):
        picks = [int(rng.integers(0, docs)) if rng.random() < 0.7 else -1 for _ in range(1 + int(judged[q]))]
        qrels[qid] = {(str(docnos[q, p]) if p >= 0 else str(8841823 + q)): 1 for p in picks}
    return qids, docnos, scores, qrels

def run_dict(qids, docnos, scores):
    return {qid: dict(zip(map(str, d.tolist()), s.tolist())) for qid, d, s in zip(qids, docnos, scores)}

def big_qrels(queries=1000, judged=128, seed=20):
    rng = np.random.default_rng(seed)
    return {str(q): {str(d): int(g) for d, g in zip(rng.choice(8841823, judged, replace=False).tolist(),
                                                  rng.integers(0, 4, judged).tolist())}
            for q in range(queries)}
"""

PROBE = DATA + r"""
import gc, json, resource, sys, time

case, queries, docs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
measures = json.loads(sys.argv[4])
ranx_measures = json.loads(sys.argv[5])
if "128K" in case:
    qrels = big_qrels()
else:
    qids, docnos, scores, qrels = collection(queries, docs)
    if "pandas" in case or "polars" in case:
        columns = {"query_id": np.repeat(np.array(qids, dtype=object), docs),
                   "doc_id": docnos.ravel().astype(str).astype(object), "score": scores.ravel()}
        judgments = [(q, d, g) for q, ds in qrels.items() for d, g in ds.items()]
        if "polars" in case:
            import polars
            frame = polars.DataFrame({k: v.tolist() if v.dtype == object else v for k, v in columns.items()})
            qrels = polars.DataFrame(judgments, schema=["query_id", "doc_id", "relevance"], orient="row")
        else:
            import pandas
            frame = pandas.DataFrame(columns)
            qrels = pandas.DataFrame(judgments, columns=["query_id", "doc_id", "relevance"])
        del columns
        run = frame
        del frame
    else:
        run = run_dict(qids, docnos, scores)
    del qids, docnos, scores
if case.startswith("ranx"):
    import ranx
    # numba compiles on first use: warm it on the first 50 queries of the same data, whole call
    some = list(run)[:50]
    ranx.evaluate(ranx.Qrels({q: qrels[q] for q in some}), ranx.Run({q: run[q] for q in some}), ranx_measures)
elif case.startswith("pytrec_eval"):
    import pytrec_eval
elif case.startswith("ir_measures") or case == "trecgain ir_measures provider":
    import ir_measures
    ir_names = [ir_measures.parse_measure(m) for m in ("nDCG@10", "R@1000", "RR", "AP")]
    if case == "trecgain ir_measures provider":
        import trecgain.ir_measures
        trecgain.ir_measures.use()  # first in ir_measures' default pipeline
elif case == "trecgain.pytrec_eval dict":
    import trecgain.pytrec_eval as dropin
else:
    import trecgain
    Evaluator = trecgain.Evaluator  # the package's modules load on first use: not part of the call
gc.collect()
cpu, wall = time.process_time(), time.perf_counter()
if case == "trecgain Evaluator 128K":
    Evaluator(qrels, measures)
elif case == "pytrec_eval Evaluator 128K":
    pytrec_eval.RelevanceEvaluator(qrels, set(measures))
elif case == "trecgain.pytrec_eval dict":
    result = dropin.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    check = sum(v["map"] for v in result.values()) / len(result)
elif case.startswith("ir_measures") or case == "trecgain ir_measures provider":
    result = ir_measures.calc_aggregate(ir_names, qrels, run)
    check = result[ir_names[3]]
elif case.startswith("trecgain"):
    result = Evaluator(qrels, measures).evaluate(run)
    check = result.aggregate["map"]
elif case.startswith("pytrec_eval"):
    result = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    check = sum(v["map"] for v in result.values()) / len(result)
elif case.startswith("ranx"):
    check = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ranx_measures)["map"]
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"wall": wall, "cpu": cpu, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "check": None if "128K" in case else round(float(check), 6)}))
"""

CASES = ["trecgain dict", "pytrec_eval dict", "trecgain.pytrec_eval dict", "trecgain pandas", "trecgain polars",
         "ir_measures default", "trecgain ir_measures provider", "ranx dict", "trecgain Evaluator 128K",
         "pytrec_eval Evaluator 128K"]
#: Each case's ratio is against this case's median.
REFERENCE = {"trecgain Evaluator 128K": "pytrec_eval Evaluator 128K", "pytrec_eval Evaluator 128K": None,
             "pytrec_eval dict": None, "trecgain ir_measures provider": "ir_measures default"}
GOALS = {"trecgain dict": "<= 0.25x wall, peak <= pytrec_eval's", "trecgain.pytrec_eval dict": "<= 0.25x",
         "trecgain ir_measures provider": "<= 0.5x ir_measures default", "trecgain pandas": "<= 0.25x",
         "trecgain polars": "<= 0.25x", "ranx dict": "slower than trecgain dict",
         "trecgain Evaluator 128K": "<= 1.0x"}


def run_case(case: str, args: argparse.Namespace) -> dict:
    """One case in a fresh process; its exit status is checked."""
    out = subprocess.run([sys.executable, "-c", PROBE, case, str(args.queries), str(args.docs),
                          json.dumps(MEASURES), json.dumps(RANX_MEASURES)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{case}: exit status {out.returncode}\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--queries", type=int, default=6980)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    cases = args.cases.split(",")
    times: dict[str, list[float]] = {c: [] for c in cases}
    cpus: dict[str, list[float]] = {c: [] for c in cases}
    peaks: dict[str, list[float]] = {c: [] for c in cases}
    checks: dict[str, set] = {c: set() for c in cases}
    for r in range(args.rounds):
        for case in cases:
            got = run_case(case, args)
            times[case].append(got["wall"])
            cpus[case].append(got["cpu"])
            peaks[case].append(got["peak_mib"])
            checks[case].add(got["check"])
            print(f"round {r + 1} {case}: {got['wall']:.3f} s, CPU {got['cpu']:.3f} s, {got['peak_mib']:.0f} MiB, "
                  f"map {got['check']}",
                  file=sys.stderr)
    median = {c: statistics.median(times[c]) for c in cases}
    cpu = {c: statistics.median(cpus[c]) for c in cases}
    print(f"{args.queries:,} queries x {args.docs:,} documents, measures {', '.join(MEASURES)}; "
          f"medians of {args.rounds} interleaved rounds\n")
    print("| case | wall s (median) | min-max | vs pytrec_eval | CPU s (median) | CPU vs pytrec_eval | "
          "peak MiB (median) | goal | map |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for c in cases:
        ref = REFERENCE.get(c, "pytrec_eval dict")
        ratio = f"{median[c] / median[ref]:.2f}x" if ref in median else ""
        cpu_ratio = f"{cpu[c] / cpu[ref]:.2f}x" if ref in cpu else ""
        print(f"| {c} | {median[c]:.3f} | {min(times[c]):.3f}-{max(times[c]):.3f} | {ratio} | {cpu[c]:.3f} | "
              f"{cpu_ratio} | {statistics.median(peaks[c]):.0f} | {GOALS.get(c, '')} | "
              f"{', '.join(str(x) for x in sorted(checks[c], key=str))} |")


if __name__ == "__main__":
    main()
