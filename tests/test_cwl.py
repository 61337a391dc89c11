"""trecgain.cwl and `trecgain cwl` against cwl_eval (PyPI cwl-eval, in the test extra).

The oracle is cwl_eval itself, run as its module (`python -m cwl.cwl_eval`'s parse_args and
main) in one subprocess for a whole batch of random collections: for each, its standard
output and, through a wrapper around its metrics' report(), the unrounded values it prints.
Every per-topic value must equal cwl_eval's to 1e-12 (numpy's dot product runs in the BLAS's
order, trecgain's left to right, so the last bits may differ: see docs/cwl.md), and
`trecgain cwl`'s output must equal cwl_eval's byte for byte; where cwl_eval dies with a
traceback, `trecgain cwl` must fail with one line on stderr and nothing on stdout.
"""

from __future__ import annotations

import importlib.util
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from trecgain import TrecgainError, cwl

COLLECTIONS = 520

# Runs cwl_eval's own parse_args and main on each job's command line, in this one process.
DRIVER = r"""
import contextlib, io, json, logging, sys
package, jobs, results = sys.argv[1:4]
sys.path.insert(0, package)  # cwl_eval imports its metrics as ruler.measures.*
from cwl import cwl_eval
import cwl.ruler.measures.cwl_metrics as a
import ruler.measures.cwl_metrics as b
values = []
def report(self, original):
    values.append([self.ranking.topic_id, self.name()] + [float(v) for v in (
        self.expected_utility, self.expected_total_utility, self.expected_cost,
        self.expected_total_cost, self.expected_items)] + ([float(v) for v in (
        self.residual_expected_utility, self.residual_expected_total_utility,
        self.residual_expected_cost, self.residual_expected_total_cost,
        self.residual_expected_items)] if self.residuals else []))
    original(self)
for module in (a, b):
    module.CWLMetric.report = (lambda original: lambda self: report(self, original))(module.CWLMetric.report)
out = []
for argv in json.load(open(jobs)):
    values.clear()
    sys.argv = ["cwl_eval"] + argv
    text, error = io.StringIO(), None
    try:
        with contextlib.redirect_stdout(text):
            args = cwl_eval.parse_args()
            cwl_eval.main(args.result_file, args.gain_file, args.cost_file, args.metrics_file, args.bib_file,
                          args.colnames, args.residuals, args.max_gain, args.min_gain, args.max_cost,
                          args.min_cost, args.max_depth)
    except BaseException as err:
        error = type(err).__name__
    for handler in list(logging.getLogger("cwl").handlers):  # main adds one per call
        logging.getLogger("cwl").removeHandler(handler)
        handler.close()
    out.append({"stdout": text.getvalue(), "error": error, "values": list(values)})
json.dump(out, open(results, "w"))
"""

UNIT_METRICS = ["INSTCWLMetric({T})", "NERReq8CWLMetric({k})", "NERReq9CWLMetric({k})",
                "NERReq10CWLMetric({phi})", "NERReq11CWLMetric({T})"]
ANY_METRICS = ["CWLMetric()", "PrecisionCWLMetric({k})", "PrecisionCWLMetric()", "RBPCWLMetric({phi})",
               "RRCWLMetric()", "APCWLMetric()", "TrAPCWLMetric()", "NDCGCWLMetric({k})", "INSQCWLMetric({T})",
               "TBGCWLMetric({h})", "BPMCWLMetric({T},{k})", "BPMDCWLMetric({T},{k},{phi},{h},{phi})",
               "BPMDCWLMetric()", "UMeasureCWLMetric({h})", "IFTGoalCWLMetric({T},{phi},{R})",
               "IFTRateCWLMetric({phi},{phi},{R})", "IFTGoalRateCWLMetric({T},{phi},{R},{phi},{phi},{R})",
               "NPVCWLMetric({phi})", "SETCWLMetric({phi},{k})", "SETCWLMetric()", "INSTCWLMetric()"]


def _metric_line(rng: random.Random, unit_gains: bool) -> str:
    template = rng.choice(ANY_METRICS + (UNIT_METRICS if unit_gains else []))
    return template.format(k=rng.choice(["1", "2", "3", "5", "10", "2.5"] if "Precision" not in template
                                        else ["1", "2", "3", "5", "10"]),
                           T=rng.choice(["1", "1.0", "2.0", "0.5", "3"]), phi=rng.choice(["0.2", "0.5", "0.8", "0.95"]),
                           h=rng.choice(["1", "2", "5.5", "10", "224"]), R=rng.choice(["0.5", "1", "2.0", "10"]))


def _collection(rng: random.Random, folder: Path) -> list[str]:
    """Files for one random collection in `folder`; the cwl_eval command line over them."""
    mode = rng.choice(["binary", "graded", "fine", "negative"])
    grades = {"binary": [0, 1], "graded": [0, 0.25, 0.5, 0.75, 1], "negative": [-1, -0.5, 0, 0.5, 1]}.get(mode)
    topics = rng.sample(["1", "2", "3", "10", "q7", "401"], rng.randint(1, 4))
    docs = [f"d{i}" for i in range(rng.randint(2, 25))]
    qrels = []
    for topic in topics:
        if rng.random() < 0.15:
            continue  # a run topic the gain file lacks
        for doc in rng.sample(docs, rng.randint(1, len(docs))):
            gain = rng.choice(grades) if grades else round(rng.random(), rng.choice([1, 3, 6]))
            qrels.append(f"{topic} 0 {doc} {gain}")
    qrels.extend(f"999 0 {d} 1" for d in docs[:2])  # a gain-file topic the run lacks
    rng.shuffle(qrels)
    types = ["Q0", "D", "S", "X"]
    run = []
    order = topics + ([rng.choice(topics)] if rng.random() < 0.1 else [])  # a topic coming back later
    for topic in order:
        picked = [rng.choice(docs) if rng.random() < 0.1 else d for d in rng.sample(docs, rng.randint(1, len(docs)))]
        picked += [f"u{i}" for i in range(rng.randint(0, 3))]  # unjudged
        rng.shuffle(picked)
        for rank, doc in enumerate(picked, 1):
            run.append(f"{topic} {rng.choice(types)} {doc} {rank} {rng.choice([1.0, 2.0, 2.5])} run")
    (folder / "gains").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    argv = [str(folder / "gains"), str(folder / "run")]
    deep = rng.random() < 0.03
    if not deep:
        argv += ["--max_depth", str(rng.randint(1, 40))]
    if not deep or rng.random() < 0.5:
        lines = [_metric_line(rng, mode != "negative") for _ in range(rng.randint(1, 8))]
        (folder / "metrics").write_text("\n".join(lines) + "\n")
        argv += ["-m", str(folder / "metrics")]
    if rng.random() < 0.6:
        costs = [f"{t} {rng.choice([0.5, 1, 2, 3.25])}" for t in types if rng.random() < 0.7]
        (folder / "costs").write_text("".join(c + "\n" for c in costs))
        argv += ["-c", str(folder / "costs")]
    if mode == "negative":
        argv += ["--min_gain", "-1"]
    for flag in ("-n", "-r"):
        if rng.random() < 0.5:
            argv.append(flag)
    if rng.random() < 0.2:
        argv += ["--max_gain", rng.choice(["1.5", "2"])]
    if rng.random() < 0.2:
        argv += ["--max_cost", rng.choice(["2", "0.5"]), "--min_cost", rng.choice(["0.25", "1"])]
    return argv


def _oracle(argvs: list[list[str]], folder: Path) -> list[dict]:
    spec = importlib.util.find_spec("cwl.cwl_eval")
    assert spec is not None and spec.origin, "cwl-eval (the test extra) is not installed"
    package = str(Path(spec.origin).parent)
    (folder / "jobs.json").write_text(json.dumps(argvs))
    subprocess.run([sys.executable, "-c", DRIVER, package, str(folder / "jobs.json"), str(folder / "out.json")],
                   cwd=folder, check=True, capture_output=True)
    return json.loads((folder / "out.json").read_text())


def _library(argv: list[str]) -> cwl.CwlResult:
    """trecgain.cwl.evaluate on a cwl_eval command line (the generator's options only)."""
    files, options = argv[:2], [a for a in argv[2:] if a not in ("-n", "-r")]
    named = dict(zip(options[::2], options[1::2]))
    return cwl.evaluate(files[0], files[1], cost_file=named.get("-c"), metrics_file=named.get("-m"),
                        colnames="-n" in argv, residuals="-r" in argv,
                        max_gain=float(named.get("--max_gain", 1.0)), min_gain=float(named.get("--min_gain", 0.0)),
                        max_cost=float(named.get("--max_cost", 1.0)), min_cost=float(named.get("--min_cost", 1.0)),
                        max_depth=int(named.get("--max_depth", 1000)))


def _close(ours: float, theirs: float) -> bool:
    if math.isnan(theirs) or math.isinf(theirs):
        return ours == theirs or (math.isnan(ours) and math.isnan(theirs))
    return abs(ours - theirs) <= 1e-12 * max(1.0, abs(theirs))


def test_against_cwl_eval(tmp_path: Path) -> None:
    rng = random.Random(20261202)
    argvs = []
    for i in range(COLLECTIONS):
        folder = tmp_path / f"c{i}"
        folder.mkdir()
        argvs.append(_collection(rng, folder))
    references = _oracle(argvs, tmp_path)
    failed = measured = exact = 0
    for argv, ref in zip(argvs, references):
        outcome = run_cli(["cwl", *argv])
        if ref["error"] is not None:
            failed += 1
            assert outcome.rc == 1 and outcome.stdout == b"", (argv, ref["error"], outcome)
            assert outcome.stderr.count("\n") == 1 and "Traceback" not in outcome.stderr, outcome.stderr
            with pytest.raises(TrecgainError):
                _library(argv)
            continue
        assert outcome.rc == 0, (argv, outcome.stderr)
        assert outcome.stdout == ref["stdout"].encode(), argv
        rows = _library(argv).rows
        assert len(rows) == len(ref["values"]), argv
        for row, theirs in zip(rows, ref["values"]):
            assert list(row[:2]) == theirs[:2], argv
            for a, b in zip(row[2:], theirs[2:]):
                assert _close(a, b), (argv, row, theirs)
                measured += 1
                exact += a == b or (math.isnan(a) and math.isnan(b))
    print(f"cwl_eval: {COLLECTIONS - failed} collections measured, {failed} failed; {exact} of {measured} values bit-identical")
    # the generator must exercise both paths, and most values are bit-identical
    assert 0 < failed < COLLECTIONS // 3 and measured > 10 * COLLECTIONS, (failed, measured)
    assert exact > 0.9 * measured, (exact, measured)
