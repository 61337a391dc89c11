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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


GOOD_GAINS = "1 0 a 1\n1 0 b 0.5\n"
GOOD_RUN = "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n"
# (files, extra arguments, the file and line the message must name): cwl_eval fails on each.
BAD_INPUTS = [
    ({"gains": "1 0 a 1\n1 0 b\n"}, [], "gains:2:"),
    ({"gains": "1 0 a x\n"}, [], "gains:1:"),
    ({"gains": "1 0 a 1\n1 0 b 2\n"}, [], "gains:2:"),
    ({"gains": "1 0 a -0.5\n"}, [], "gains:1:"),
    ({"gains": "\n1 0 a 1\n"}, [], "gains:1:"),
    ({"run": "1 Q0 a 1 2 r\n1 Q0 b 2 1\n"}, [], "run:2:"),
    ({"run": "1 Q0 a 1 2 r extra\n"}, [], "run:1:"),
    ({"run": ""}, [], "run:"),
    ({"costs": "Q0\n"}, ["-c", "costs"], "costs:1:"),
    ({"costs": "Q0 1\nD cheap\n"}, ["-c", "costs"], "costs:2:"),
    ({"metrics": "NoSuchCWLMetric(1)\n"}, ["-m", "metrics"], "metrics:1:"),
    ({"metrics": "RRCWLMetric()\nPrecisionCWLMetric(ten)\n"}, ["-m", "metrics"], "metrics:2:"),
    ({"metrics": "RRCWLMetric()\n\n"}, ["-m", "metrics"], "metrics:2:"),
    ({"metrics": "RRCWLMetric\n"}, ["-m", "metrics"], "metrics:1:"),
    ({"metrics": "IFTGoalCWLMetric(1.0,2.0)\n"}, ["-m", "metrics"], "metrics:1:"),
    ({"metrics": "RRCWLMetric(1)\n"}, ["-m", "metrics"], "metrics:1:"),
    ({"metrics": "APCWLMetric()\nTBGCWLMetric(0)\n"}, ["-m", "metrics"], "metrics:2:"),
    ({"metrics": "UMeasureCWLMetric(0.0)\n"}, ["-m", "metrics"], "metrics:1:"),
    ({"metrics": "PrecisionCWLMetric(0)\n"}, ["-m", "metrics"], "metrics:1:"),
    ({"metrics": "PrecisionCWLMetric(12)\n"}, ["-m", "metrics", "--max_depth", "10"], "metrics:1:"),
    ({"metrics": "SETCWLMetric(0.0,5)\n"}, ["-m", "metrics"], "SET-k@5-b@0.0 on topic 1"),
    ({"metrics": "IFTGoalCWLMetric(1000.0,1.0,10.0)\n"}, ["-m", "metrics"], "math range error"),
    ({}, ["--max_depth", "0"], "--max_depth"),
]
# trecgain's own bound (cwl_eval would try to allocate vectors of 10^23 doubles): a clean error too
BEYOND_BOUNDS = [["--max_depth", "99999999999999999999999"], ["--max_depth", "1000000001"]]


def test_bad_input_is_one_line_where_cwl_eval_fails(tmp_path: Path) -> None:
    argvs = []
    for i, (files, extra, _) in enumerate(BAD_INPUTS):
        folder = tmp_path / f"b{i}"
        folder.mkdir()
        contents = {"gains": GOOD_GAINS, "run": GOOD_RUN, **files}
        for name, text in contents.items():
            (folder / name).write_text(text)
        argvs.append([str(folder / "gains"), str(folder / "run"),
                      *[str(folder / a) if a in contents else a for a in extra]])
    (tmp_path / "b0" / "latin1").write_bytes("1 Q0 caf\xe9 1 2 r\n".encode("latin-1"))
    argvs.append([argvs[0][0].replace("b0", "b5"), str(tmp_path / "b0" / "latin1")])
    wanted = [where for _, _, where in BAD_INPUTS] + ["latin1:1:"]
    for argv, ref, where in zip(argvs, _oracle(argvs, tmp_path), wanted):
        assert ref["error"] is not None, argv  # cwl_eval fails too
        outcome = run_cli(["cwl", *argv])
        assert outcome.rc == 1 and outcome.stdout == b"", (argv, outcome)
        assert outcome.stderr.count("\n") == 1 and where in outcome.stderr, (where, outcome.stderr)


def test_depth_beyond_bounds_is_one_line(tmp_path: Path) -> None:
    paths = _write(tmp_path, {"gains": GOOD_GAINS, "run": GOOD_RUN})
    for extra in BEYOND_BOUNDS:
        outcome = run_cli(["cwl", paths["gains"], paths["run"], *extra])
        assert outcome.rc == 1 and outcome.stdout == b"" and outcome.stderr.count("\n") == 1, outcome
        assert "--max_depth must be from 1 to 1000000000" in outcome.stderr


def test_usage_errors() -> None:
    for args in (["cwl"], ["cwl", "a"], ["cwl", "a", "b", "--max_depth", "x"], ["cwl", "a", "b", "--max_gain", "y"],
                 ["cwl", "a", "b", "--no-such-option"]):
        outcome = run_cli(args)
        assert outcome.rc == 2 and outcome.stdout == b"" and outcome.stderr.count("\n") == 1, (args, outcome)
    assert run_cli(["cwl", "-h"]).stdout.startswith(b"usage: trecgain cwl")


def test_table_matches_cwl_eval_classes() -> None:
    """Every metric class cwl_eval can instantiate is in the core's table, with its parameters,
    defaults and printed name (read from cwl_eval's classes, not from trecgain)."""
    import importlib
    import inspect

    import cwl.ruler.measures.cwl_metrics as base  # cwl_eval's package

    theirs = {}
    for path in Path(base.__file__).parent.glob("*.py"):  # as cwl_eval finds them: every module there
        if not path.name.startswith("__init__"):
            module = importlib.import_module(f"cwl.ruler.measures.{path.stem}")
            theirs.update({name: cls for name, cls in vars(module).items()
                           if inspect.isclass(cls) and issubclass(cls, base.CWLMetric)})
    ours = {record[0]: record for record in cwl.records()}
    assert set(theirs) == set(ours)
    for name, cls in theirs.items():
        params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
        _, spelled, _ = ours[name]
        assert [p.name for p in params] == [n for n, _ in spelled], name
        for p, (_, default) in zip(params, spelled):
            wanted = None if p.default is inspect.Parameter.empty else repr(p.default)
            assert wanted == default, (name, p.name)
        given = [3 if p.default is inspect.Parameter.empty else p.default for p in params]
        for values in (given, [2.5 if isinstance(v, float) else 7 for v in given]):
            instance = cls(*values)
            spec = f"{name}({','.join(str(v) for v in values)})"
            assert cwl.metric(spec).name == instance.name(), spec


def test_readme_shows_real_output() -> None:
    """The README's C/W/L section: each `$ trecgain cwl` block is what the command prints (the
    first block its beginning, the second its end, around the `...`)."""
    root = Path(__file__).resolve().parent.parent
    section = (root / "README.md").read_text().split("## C/W/L measures: trecgain cwl", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("\n$ trecgain cwl ")[1:]]
    assert len(blocks) == 2
    for block, at_start in zip(blocks, (True, False)):
        command, shown = block.split("\n", 1)
        text = "\n".join(line for line in shown.splitlines()
                         if line != "..." and not line.startswith("$ ") and "CWLMetric" not in line) + "\n"
        outcome = run_cli(["cwl", *[str(root / a) if a.startswith("testdata") else a for a in command.split()]])
        assert outcome.rc == 0
        # a residual of 0 in exact arithmetic prints as -0.0000 or 0.0000 by the processor's
        # BLAS kernel (the README says so; test_against_cwl_eval holds the sign to cwl_eval's here)
        printed = outcome.stdout.decode().replace("\t-0.0000", "\t0.0000")
        text = text.replace("\t-0.0000", "\t0.0000")
        assert printed.startswith(text) if at_start else printed.endswith(text), command


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["PrecisionCWLMetric", "RBPCWLMetric", "RRCWLMetric", "INSTCWLMetric", "SETCWLMetric",
                             "BPMDCWLMetric", "IFTGoalCWLMetric", "NERReq8CWLMetric", "CWLMetric", "NoSuch"]),
       params=st.text(alphabet="0123456789.,- )(", max_size=14), tail=st.sampled_from([")", "", "))", " )"]))
def test_metrics_file_lines_read_as_cwl_eval_reads_them(name: str, params: str, tail: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A metrics-file line: trecgain reads a metric, with cwl_eval's name for it, exactly when
    cwl_eval's CWLRuler instantiates one (its own parser, run here)."""
    import cwl.ruler.cwl_ruler as ruler

    monkeypatch.syspath_prepend(str(Path(ruler.__file__).parent.parent))  # it imports ruler.measures.*
    line = f"{name}({params}{tail}"
    (tmp_path / "m").write_text(line + "\n")
    try:
        theirs = ruler.CWLRuler(str(tmp_path / "m")).metrics[0].name()
    except Exception:
        theirs = None
    try:
        ours = cwl.metric(line).name
    except ValueError:
        ours = None
    assert ours == theirs, line


def _write(folder: Path, files: dict[str, str | bytes]) -> dict[str, str]:
    paths = {}
    for name, text in files.items():
        path = folder / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        paths[name] = str(path)
    return paths


# Files cwl_eval reads without failing, written as Python's text reading allows: CR and CRLF line
# ends, Unicode whitespace between fields, float() spellings; each must print what cwl_eval prints.
ODD_BUT_READABLE = [
    {"gains": "1 0 a 1\r1 0 b 0.5\r\n1 0 c .25\n2 0 a 5e-1", "run": "1 Q0 a 1 2 r\r1 Q0 b 2 1 r\r\n1 Q0 c 3 1 r\n2 Q0 a 1 1 r"},
    {"gains": "1\u00a00\u3000a\u20001\n1\x1c0\x1db\x1e0_5e-1\n1 0 c \u0660.\u0665\n", "run": "1\u2003Q0\u00a0a 1 2 r\n1 Q0 c\x1f2 1 r\n"},
    {"gains": "1 0 a 1\n1 0 b nan\n1 0 c 1\n1 0 c 0.125\n", "run": "1 Q0 b 1 2 r\n1 Q0 c 2 1 r\n1 Q0 a 3 1 r\n"},
    {"gains": "\ufeff1 0 a 1\n1 0 b 1\n", "run": "\ufeff1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n"},  # a BOM is part of the topic
]


def test_odd_but_readable_files_read_as_cwl_eval_reads_them(tmp_path: Path) -> None:
    argvs = []
    for i, files in enumerate(ODD_BUT_READABLE):
        folder = tmp_path / f"o{i}"
        folder.mkdir()
        paths = _write(folder, {**files, "costs": "Q0\u00a02.5\r\n"})
        argvs.append([paths["gains"], paths["run"], "-c", paths["costs"], "-n", "-r", "--max_depth", "12"])
    for argv, ref in zip(argvs, _oracle(argvs, tmp_path)):
        assert ref["error"] is None, (argv, ref["error"])
        outcome = run_cli(["cwl", *argv])
        assert outcome.rc == 0 and outcome.stdout == ref["stdout"].encode(), (argv, outcome)


# Bad files beyond BAD_INPUTS, each with the file and line the message must name (cwl_eval fails on each).
MORE_BAD_INPUTS = [
    ({"gains": b"1 0 a 1\n1 0 b 0.5\n1 0 caf\xe9 1\n"}, "gains:3: not UTF-8 text"),
    ({"gains": b"1 0 a 1\r1 0 b\r1 0 c 1\n"}, "gains:2: needs 4 fields"),
    ({"gains": b"1 0 a 1__0\n"}, "gains:1: gain '1__0' is not a number"),
    ({"gains": b"1 0 a 1\n1 0 a 3\n1 0 b 0\n"}, "gains:2: gain 3.0 is above --max_gain 1.0"),
    ({"run": b"1 Q0 a 1 2 r\r\n1 Q0 b 2 1 r x\r\n"}, "run:2: needs 6 fields"),
    ({"run": b"1 Q0 a 1 2 r\n1\xa0Q0 b 2 1 r\n"}, "run:2: not UTF-8 text"),
    ({"costs": b"Q0 1\nD 1e\n"}, "costs:2: cost '1e' is not a number"),
]


def test_more_bad_input_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    argvs = []
    for i, (files, _) in enumerate(MORE_BAD_INPUTS):
        folder = tmp_path / f"m{i}"
        folder.mkdir()
        paths = _write(folder, {"gains": GOOD_GAINS, "run": GOOD_RUN, "costs": "Q0 1\n", **files})
        argvs.append([paths["gains"], paths["run"], "-c", paths["costs"]])
    for argv, ref, (_, where) in zip(argvs, _oracle(argvs, tmp_path), MORE_BAD_INPUTS):
        assert ref["error"] is not None, argv
        outcome = run_cli(["cwl", *argv])
        assert outcome.rc == 1 and outcome.stdout == b"", (argv, outcome)
        assert outcome.stderr.count("\n") == 1 and where in outcome.stderr, (where, outcome.stderr)
    missing = run_cli(["cwl", str(tmp_path / "none"), argvs[0][1]])
    assert missing.rc == 1 and missing.stdout == b"" and "none: cannot read: No such file" in missing.stderr


ALL_CLASSES = """CWLMetric()
PrecisionCWLMetric(3)
RBPCWLMetric(0.5)
RRCWLMetric()
APCWLMetric()
TrAPCWLMetric()
NDCGCWLMetric(5)
INSTCWLMetric(2.0)
INSQCWLMetric(1.0)
TBGCWLMetric(10)
BPMCWLMetric(1.0,5)
BPMDCWLMetric()
UMeasureCWLMetric(50)
IFTGoalCWLMetric(2.0,0.9,10)
IFTRateCWLMetric(0.2,0.9,10)
IFTGoalRateCWLMetric(2.0,0.9,10,0.2,0.9,10)
NERReq8CWLMetric(5)
NERReq9CWLMetric(5)
NERReq10CWLMetric(0.9)
NERReq11CWLMetric(1.0)
NPVCWLMetric(0.1)
SETCWLMetric(0.5,5)
PrecisionCWLMetric(5)
"""


def test_bib_file_is_cwl_evals(tmp_path: Path) -> None:
    """`-b`: the BibTeX file cwl_eval writes for the same metrics, byte for byte (its own entry, each
    metric class's once, in order of first use; the base class's empty one too)."""
    metric_sets = {"defaults": None, "all": ALL_CLASSES, "reversed": "".join(reversed(ALL_CLASSES.splitlines(True))),
                   "some": "NPVCWLMetric(0.2)\nRRCWLMetric()\nIFTRateCWLMetric(0.2,0.9,10)\nRRCWLMetric()\n"}
    argvs, ours = [], []
    for name, metrics in metric_sets.items():
        folder = tmp_path / name
        folder.mkdir()
        paths = _write(folder, {"gains": GOOD_GAINS, "run": GOOD_RUN, **({"metrics": metrics} if metrics else {})})
        extra = ["-m", paths["metrics"]] if metrics else []
        argvs.append([paths["gains"], paths["run"], *extra, "-b", str(folder / "theirs.bib")])
        ours.append([paths["gains"], paths["run"], *extra, "-b", str(folder / "ours.bib")])
    for argv, mine, ref in zip(argvs, ours, _oracle(argvs, tmp_path)):
        assert ref["error"] is None, ref
        outcome = run_cli(["cwl", *mine])
        assert outcome.rc == 0 and outcome.stdout == ref["stdout"].encode()
        assert Path(mine[-1]).read_bytes() == Path(argv[-1]).read_bytes(), argv
    unwritable = run_cli(["cwl", *ours[0][:-1], str(tmp_path / "no" / "such" / "dir.bib")])
    assert unwritable.rc == 1 and unwritable.stdout == b"" and unwritable.stderr.count("\n") == 1
    assert "dir.bib: cannot write" in unwritable.stderr
