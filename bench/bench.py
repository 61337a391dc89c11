"""Benchmark trecgain against trec_eval and pytrec_eval, whole process each.

Each tool evaluates the same generated qrels/run pair (see gen.py) as a
separate process.  Wall time and peak RSS (``ru_maxrss`` from ``os.wait4``)
are recorded; runs are interleaved round robin so machine noise hits every
tool alike.  The report is a markdown table (printed and written to
``--out``) that also checks that all tools printed the same ``all`` value.

Examples::

    python bench/bench.py
    python bench/bench.py --queries 500 --trec-eval /path/to/trec_eval
    python bench/bench.py --whitespace --tools trec_eval,trecgain
    python bench/bench.py --extra-args=-q --trec-eval-args=-q
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from gen import DataSpec, add_data_arguments, ensure_data, spec_from_args

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent

# trec_eval 9.0.4 as shipped in pyserini's sdist, inside the anserini fat jar.
PYSERINI_VERSION = "1.6.0"
JAR_NAME = "anserini-1.7.1-fatjar.jar"
JAR_BINARY_MEMBER = "trec_eval/trec_eval-linux-amd64"
TREC_EVAL_FILE = "trec_eval-9.0.4-linux-amd64"
TREC_EVAL_SHA256 = "a282ee9c22966f306c4bcbbfda9142ff22f371012a2994782194e6afdadbe6e4"

ALL_TOOLS = ("trec_eval", "trecgain", "pytrec_eval")

# Runs in a fresh interpreter: parse both files itself, print the means in
# trec_eval's "all" format.  argv: qrels run measure
PYTREC_EVAL_SNIPPET = """\
import sys
import pytrec_eval
qrels_path, run_path, measure = sys.argv[1:4]
with open(qrels_path) as f:
    qrel = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
results = pytrec_eval.RelevanceEvaluator(qrel, {measure}).evaluate(run)
names = sorted({name for per_query in results.values() for name in per_query})
for name in names:
    values = [per_query[name] for per_query in results.values()]
    print("%-22s\\tall\\t%6.4f" % (name, sum(values) / len(values)))
"""

# Runs each measured tool: fork + exec + os.wait4 from a minimal interpreter,
# so the tool's ru_maxrss is not inflated by this script (see run_once).
# argv: result_file tool_argv...; writes "seconds maxrss_kib exit_code".
LAUNCHER = """\
import os, sys, time
result_path, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, ("cannot run %s: %s\\n" % (argv[0], exc)).encode())
    os._exit(127)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(result_path, "w") as f:
    f.write("%r %d %d\\n" % (seconds, usage.ru_maxrss, os.waitstatus_to_exitcode(status)))
"""

ALL_LINE = re.compile(r"^(\S+)\s+all\s+(\S+)\s*$")


@dataclass
class Tool:
    """A benchmarked command line."""

    name: str
    argv: list[str]
    display: str = ""  # how to show the command in the report (default: argv)

    def shown(self) -> str:
        """Command for the report, paths under the project root made relative."""
        text = self.display or shlex.join(self.argv)
        return text.replace(str(PROJECT_ROOT) + os.sep, "")


@dataclass
class Sample:
    """One timed process run."""

    seconds: float
    maxrss_kib: int


@dataclass
class ToolResult:
    """Everything measured for one tool."""

    tool: Tool
    samples: list[Sample] = field(default_factory=list)
    values: dict[str, str] | None = None   # measure name -> printed "all" value
    error: str | None = None               # set when the tool was skipped
    unstable: bool = False                 # printed values differed between runs

    @property
    def ok(self) -> bool:
        """True if the tool ran successfully."""
        return self.error is None

    def median_seconds(self) -> float:
        """Median wall time in seconds."""
        return statistics.median(s.seconds for s in self.samples)


# --------------------------------------------------------------------------
# trec_eval binary


def download_pyserini_sdist(cache_dir: Path) -> Path:
    """Fetch the pyserini sdist into ``cache_dir`` with pip; return its path."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps",
           "--no-binary", "pyserini", f"pyserini=={PYSERINI_VERSION}", "-d", str(cache_dir)]
    print("+ " + shlex.join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    return cache_dir / f"pyserini-{PYSERINI_VERSION}.tar.gz"


def extract_trec_eval(sdist: Path, target: Path) -> None:
    """Copy trec_eval out of the jar inside the pyserini sdist to ``target``."""
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        jar_path = Path(tmp) / JAR_NAME
        with tarfile.open(sdist, "r:gz") as tar:
            member = next((m for m in tar if m.name.endswith("/jars/" + JAR_NAME)), None)
            if member is None:
                raise RuntimeError(f"{JAR_NAME} not found in {sdist}")
            with tar.extractfile(member) as src, open(jar_path, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        with zipfile.ZipFile(jar_path) as jar:
            binary = jar.read(JAR_BINARY_MEMBER)
    digest = hashlib.sha256(binary).hexdigest()
    if digest != TREC_EVAL_SHA256:
        raise RuntimeError(f"unexpected sha256 {digest} for {JAR_BINARY_MEMBER} in {sdist}")
    tmp_target = target.with_suffix(".tmp")
    tmp_target.write_bytes(binary)
    tmp_target.chmod(0o755)
    os.replace(tmp_target, target)


def ensure_trec_eval(cache_dir: Path) -> Path:
    """Path of the cached trec_eval binary, downloading/extracting it if needed.

    An sdist already present in ``cache_dir`` is used as is (and kept); one
    downloaded here is deleted after extraction.
    """
    target = cache_dir / TREC_EVAL_FILE
    if target.exists():
        return target
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise RuntimeError("the bundled trec_eval is linux-amd64 only; pass --trec-eval PATH")
    cache_dir.mkdir(parents=True, exist_ok=True)
    sdist = cache_dir / f"pyserini-{PYSERINI_VERSION}.tar.gz"
    downloaded = not sdist.exists()
    if downloaded:
        sdist = download_pyserini_sdist(cache_dir)
    print(f"extracting trec_eval from {sdist}", file=sys.stderr)
    extract_trec_eval(sdist, target)
    if downloaded:
        sdist.unlink()
    return target


# --------------------------------------------------------------------------
# running and measuring


def run_once(argv: list[str], stdout_path: Path, stderr_path: Path) -> tuple[Sample, int]:
    """Run ``argv`` from the project root; return its sample and exit code.

    The tool is started through LAUNCHER (a bare ``python -I -S``), which
    forks it, times it and reads ``ru_maxrss`` with ``os.wait4``.  Doing the
    ``os.wait4`` directly on a ``subprocess.Popen`` child of this script
    would be wrong: Popen uses vfork, and at exec Linux seeds the child's
    ``ru_maxrss`` with the *parent's* peak RSS (numpy + data generation here),
    so even ``/bin/true`` would "use" hundreds of MiB.
    """
    result_path = stdout_path.with_name("launcher-result")
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, str(result_path), *argv],
                       cwd=PROJECT_ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                       check=True)
    seconds, maxrss_kib, code = result_path.read_text().split()
    return Sample(float(seconds), int(maxrss_kib)), int(code)


def launcher_floor_mib() -> float | None:
    """Peak RSS reported for ``true``: the floor the launcher adds to every tool."""
    true = shutil.which("true")
    if true is None:
        return None
    with tempfile.TemporaryDirectory(prefix="trecgain-bench-") as tmp:
        sample, _ = run_once([true], Path(tmp) / "stdout", Path(tmp) / "stderr")
    return sample.maxrss_kib / 1024


def parse_all_values(text: str) -> dict[str, str]:
    """The ``measure  all  value`` lines of trec_eval-style output."""
    values = {}
    for line in text.splitlines():
        match = ALL_LINE.match(line)
        if match:
            try:
                float(match.group(2))
            except ValueError:  # e.g. "runid all tag"
                continue
            values[match.group(1)] = match.group(2)
    return values


def failure_reason(code: int, stderr_path: Path, values: dict[str, str]) -> str | None:
    """Why a run counts as failed, or None if it succeeded."""
    if code == 0 and values:
        return None
    lines = [l.strip() for l in stderr_path.read_text(errors="replace").splitlines() if l.strip()]
    detail = lines[-1][:160] if lines else "no output"
    return f"exit code {code}: {detail}" if code else f"no 'all' line printed ({detail})"


def measure_tools(tools: list[Tool], runs: int, warmup: int) -> list[ToolResult]:
    """Time all tools, interleaved round robin; failing tools are dropped."""
    results = [ToolResult(tool) for tool in tools]
    with tempfile.TemporaryDirectory(prefix="trecgain-bench-") as tmp:
        stdout_path, stderr_path = Path(tmp) / "stdout", Path(tmp) / "stderr"
        for round_no in range(warmup + runs):
            timed = round_no >= warmup
            label = f"run {round_no - warmup + 1}/{runs}" if timed else f"warm-up {round_no + 1}"
            # rotate the starting tool so no tool always runs first
            order = results[round_no % len(results):] + results[:round_no % len(results)]
            for result in order:
                if not result.ok:
                    continue
                sample, code = run_once(result.tool.argv, stdout_path, stderr_path)
                values = parse_all_values(stdout_path.read_text(errors="replace"))
                result.error = failure_reason(code, stderr_path, values)
                if not result.ok:
                    print(f"[{label}] {result.tool.name}: FAILED, {result.error}", file=sys.stderr)
                    continue
                if result.values is None:
                    result.values = values
                elif values != result.values:
                    result.unstable = True
                if timed:
                    result.samples.append(sample)
                print(f"[{label}] {result.tool.name:<12} {sample.seconds:8.3f} s "
                      f"{sample.maxrss_kib / 1024:8.1f} MiB", file=sys.stderr)
    return results


# --------------------------------------------------------------------------
# report


def same_values(a: dict[str, str], b: dict[str, str]) -> bool:
    """True if the measures both outputs printed have equal numbers (trec_eval 9 has no dcg)."""
    common = a.keys() & b.keys()
    return bool(common) and all(float(a[k]) == float(b[k]) for k in common)


def cell(text: str) -> str:
    """Text made safe for a markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def show_values(values: dict[str, str]) -> str:
    """Printed value(s) for the table."""
    if len(values) == 1:
        return next(iter(values.values()))
    return ", ".join(f"{name}={value}" for name, value in values.items())


def machine_description() -> str:
    """nproc, CPU model, OS and Python version."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"nproc={os.cpu_count()}, {cpu}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def package_version(name: str) -> str:
    """Installed distribution version, or '?'."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def table_row(r: ToolResult, baseline: ToolResult | None, reference: ToolResult | None) -> str:
    """One markdown table row for a tool."""
    if not r.ok or not r.samples or reference is None:
        reason = cell(r.error or "no runs")
        return f"| {r.tool.name} | - | - | - | - | failed, not timed: {reason} | - |"
    secs = [s.seconds for s in r.samples]
    rss = statistics.median(s.maxrss_kib for s in r.samples) / 1024
    speed = f"{baseline.median_seconds() / r.median_seconds():.2f}x" if baseline else "n/a"
    same = "yes" if same_values(r.values, reference.values) else "**no**"
    if r.unstable:
        same += " (varied between runs)"
    return (f"| {r.tool.name} | {r.median_seconds():.3f} | {min(secs):.3f}-{max(secs):.3f} "
            f"| {rss:.1f} | {speed} | {cell(show_values(r.values))} | {same} |")


def render_report(results: list[ToolResult], spec: DataSpec, measure: str, runs: int,
                  warmup: int, data_note: str, floor_mib: float | None) -> str:
    """Markdown report: header, results table, agreement line and commands."""
    ok = [r for r in results if r.ok and r.samples]
    baseline = next((r for r in ok if r.tool.name == "trec_eval"), None)
    # the number to agree with: trec_eval's, else pytrec_eval's (same C code)
    reference = baseline or next((r for r in ok if r.tool.name == "pytrec_eval"),
                                 ok[0] if ok else None)
    separators = "random spaces/tabs" if spec.whitespace else "single spaces"
    now = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    lines = [
        f"# trecgain benchmark: `-m {measure}`",
        "",
        f"- Data: {spec.queries} queries x {spec.docs} docs = {spec.queries * spec.docs:,} "
        f"run lines, {spec.queries * spec.judged:,} qrels lines, {separators}, "
        f"seed {spec.seed} ({data_note})",
        f"- Machine: {machine_description()}",
        f"- Date: {now}",
        f"- Method: whole process per run, {runs} timed runs per tool (+{warmup} warm-up), "
        "interleaved round robin; wall time and peak RSS (ru_maxrss from os.wait4) of the "
        "tool process, forked by a minimal launcher"
        + (f" (RSS floor: `true` shows {floor_mib:.1f} MiB)" if floor_mib is not None else "")
        + f"; pytrec_eval = pytrec-eval-terrier {package_version('pytrec-eval-terrier')}",
        "",
        "| tool | median s | min-max s | peak MiB (median) | speed vs trec_eval "
        "| printed value | same number |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    lines += [table_row(r, baseline, reference) for r in results]
    lines.append("")
    if len(ok) > 1:
        agree = all(same_values(r.values, reference.values) and not r.unstable for r in ok)
        lines.append(f"All tools that ran printed the same number: "
                     f"**{'yes' if agree else 'NO'}** (reference: {reference.tool.name}).")
    lines.append("speed vs trec_eval = median trec_eval seconds / median tool seconds "
                 "(above 1x = faster than trec_eval).")
    lines += ["", "Commands (run from the project root):", "", "```"]
    lines += [r.tool.shown() for r in results]
    lines += ["```", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------


def build_tools(names: list[str], args: argparse.Namespace,
                qrels: Path, run: Path) -> list[Tool]:
    """Command lines of the selected tools."""
    files = [str(qrels), str(run)]
    tools = []
    for name in names:
        display = ""
        if name == "trec_eval":
            if args.trec_eval:
                binary = args.trec_eval.resolve()
            else:
                binary = ensure_trec_eval(args.cache_dir)
            argv = [str(binary), *shlex.split(args.trec_eval_args), "-m", args.measure, *files]
        elif name == "trecgain":
            argv = [*shlex.split(args.trecgain_cmd), *shlex.split(args.extra_args),
                    "-m", args.measure, *files]
        else:
            argv = [sys.executable, "-c", PYTREC_EVAL_SNIPPET, *files, args.measure]
            display = shlex.join([sys.executable, "-c", "<PYTREC_EVAL_SNIPPET in bench/bench.py>",
                                  *files, args.measure])
        tools.append(Tool(name, argv, display))
    return tools


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command line options."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options whose value starts with '-' need '=', e.g. --extra-args=-q")
    add_data_arguments(parser)
    parser.add_argument("--cache-dir", type=Path, default=BENCH_DIR / "cache",
                        help="where the trec_eval binary is cached (default bench/cache)")
    parser.add_argument("--trec-eval", type=Path, metavar="PATH",
                        help="use this trec_eval binary instead of the cached/downloaded one")
    parser.add_argument("--trecgain-cmd", default=shlex.join([sys.executable, "-m", "trecgain"]),
                        help="command that runs trecgain (default: %(default)s)")
    parser.add_argument("--extra-args", default="", help="extra trecgain arguments, e.g. '-q'")
    parser.add_argument("--trec-eval-args", default="", help="extra trec_eval arguments")
    parser.add_argument("--measure", default="ndcg_cut.10", help="measure (default %(default)s)")
    parser.add_argument("--tools", default=",".join(ALL_TOOLS),
                        help="comma-separated subset of %(default)s")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per tool (default 5)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed runs per tool first; they also check the tool works "
                             "(default 1)")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results.md",
                        help="markdown report file (default bench/results.md)")
    args = parser.parse_args(argv)
    names = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = sorted(set(names) - set(ALL_TOOLS))
    if unknown or not names:
        parser.error(f"--tools: unknown {unknown}; choose from {','.join(ALL_TOOLS)}")
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be >= 1 and --warmup >= 0")
    args.tools = list(dict.fromkeys(names))
    return args


def main(argv: list[str] | None = None) -> int:
    """Generate data, time the tools, print and save the report."""
    args = parse_args(argv)
    spec = spec_from_args(args)
    qrels, run, gen_seconds = ensure_data(spec, args.data_dir.resolve())
    data_note = "cached" if gen_seconds is None else f"generated in {gen_seconds:.1f} s"
    print(f"data: {qrels.name}, {run.name} ({data_note})", file=sys.stderr)
    tools = build_tools(args.tools, args, qrels, run)
    results = measure_tools(tools, args.runs, args.warmup)
    report = render_report(results, spec, args.measure, args.runs, args.warmup, data_note,
                           launcher_floor_mib())
    print(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0 if any(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
