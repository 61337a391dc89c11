"""How trecgain and trec_eval scale with the run size: time and peak memory.

For each size (queries x 1000 docs, 100 judged docs per query, see gen.py)
the data are generated (cached in bench/data), then ``trecgain -m
ndcg_cut.10`` and trec_eval with the same flags are run as whole processes,
interleaved round robin, through bench.py's launcher (wall time and peak RSS
from ``os.wait4``).  A tiny baseline data set (1 query) measures the fixed
start-up cost of each tool.

Output: a markdown table (``--out-md``, also printed) whose header says
whether time and memory grow linearly, and a two-panel log-log PNG
(``--out-png``, needs matplotlib).  Linearity is judged two ways, for each
tool and for seconds and peak MiB alike:

* a fit ``y = a + b * lines`` (least squares on the relative residuals, so
  the small sizes weigh as much as the big ones), reporting a, b and the
  worst relative residual;
* the marginal cost per line beyond the fixed start-up cost,
  ``(y - startup) / lines``, at the largest size divided by the same at the
  smallest size (1.0 = exactly linear, above 1 = superlinear).

Examples (from the project root)::

    python bench/scaling.py --trec-eval /path/to/trec_eval
    python bench/scaling.py --sizes 50,200,1000 --runs 1
"""

from __future__ import annotations

import argparse
import datetime
import shlex
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

from bench import (BENCH_DIR, PROJECT_ROOT, ToolResult, build_tools, ensure_trec_eval,
                   launcher_floor_mib, machine_description, measure_tools, same_values)
from gen import DEFAULT_DATA_DIR, DataSpec, ensure_data

DEFAULT_SIZES = "50,200,1000,5000,20000"
TOOLS = ("trecgain", "trec_eval")
#: Linearity verdict: worst relative residual of the linear fit allowed ...
MAX_RESIDUAL = 0.10
#: ... and the allowed range of the largest/smallest marginal per-line cost ratio.
RATIO_RANGE = (2 / 3, 3 / 2)
#: The smallest size in that ratio is the smallest one whose cost is at least this
#: much above the start-up cost (below it the marginal cost is mostly noise).
MIN_ABOVE_STARTUP = 0.25
#: The cheap start-up baseline gets at least this many timed runs and one warm-up.
BASELINE_MIN_RUNS = 5


@dataclass
class Point:
    """Both tools measured on one data set."""

    spec: DataSpec
    data_note: str
    results: dict[str, ToolResult]
    baseline: bool = False

    @property
    def lines(self) -> int:
        """Run lines."""
        return self.spec.queries * self.spec.docs

    def ok(self, name: str) -> bool:
        """True if the tool ran at this size."""
        r = self.results.get(name)
        return r is not None and r.ok and bool(r.samples)

    def seconds(self, name: str) -> float:
        """Median wall seconds of a tool."""
        return self.results[name].median_seconds()

    def mib(self, name: str) -> float:
        """Median peak RSS of a tool, MiB."""
        return statistics.median(s.maxrss_kib for s in self.results[name].samples) / 1024

    def same(self) -> bool | None:
        """Did both tools print the same ``all`` values (None if one failed)?"""
        if not all(self.ok(name) for name in TOOLS):
            return None
        a, b = (self.results[name] for name in TOOLS)
        return same_values(a.values, b.values) and not a.unstable and not b.unstable


@dataclass
class Linearity:
    """Linear fit and marginal-cost check of one quantity of one tool."""

    a: float                # fitted fixed cost
    b: float                # fitted cost per line
    worst_residual: float   # max |fit - y| / y over the fitted sizes
    startup: float          # fixed cost subtracted for the marginal ratio
    startup_source: str     # "measured" (baseline data set) or "fit"
    ratio: float | None     # marginal per-line cost, largest / smallest size
    ratio_lines: int | None  # the "smallest size" used for ratio, in lines
    top_slope: float | None  # log-log slope of (y - startup) over the two largest sizes

    def verdict(self) -> str:
        """'yes', or why not."""
        if self.ratio is None:
            return "n/a (need 2 sizes clearly above the start-up cost)"
        low, high = RATIO_RANGE
        if self.ratio > high:
            return f"**no, superlinear** (per-line cost x{self.ratio:.2f})"
        if self.ratio < low:
            return f"sublinear (per-line cost x{self.ratio:.2f}; grows less than linearly)"
        if self.worst_residual > MAX_RESIDUAL:
            return f"roughly (fit residual up to {self.worst_residual:.0%})"
        return "**yes**"


def fit_linear(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Fit y = a + b*x minimising relative residuals; (a, b, worst |rel. residual|)."""
    if len(x) == 1:
        return 0.0, float(y[0] / x[0]), 0.0
    design = np.column_stack([1 / y, x / y])
    (a, b), *_ = np.linalg.lstsq(design, np.ones_like(y), rcond=None)
    residual = np.abs(a + b * x - y) / y
    return float(a), float(b), float(residual.max())


def linearity(points: list[Point], name: str, quantity: str) -> Linearity | None:
    """Fit one tool's ``seconds`` or ``mib`` over the non-baseline sizes."""
    main = [p for p in points if not p.baseline and p.ok(name)]
    if not main:
        return None
    get = getattr(Point, quantity)
    x = np.array([p.lines for p in main], dtype=float)
    y = np.array([get(p, name) for p in main])
    a, b, worst = fit_linear(x, y)
    base = next((p for p in points if p.baseline and p.ok(name)), None)
    startup, source = (get(base, name), "measured") if base else (a, "fit")
    ratio = ratio_lines = top_slope = None
    clear = np.flatnonzero(y[:-1] - startup >= MIN_ABOVE_STARTUP * abs(startup))
    if len(clear):
        i = clear[0]
        ratio = ((y[-1] - startup) / x[-1]) / ((y[i] - startup) / x[i])
        ratio_lines = int(x[i])
    if len(main) >= 2:
        above = y[-2:] - startup
        if (above > 0).all():
            top_slope = float(np.log(above[1] / above[0]) / np.log(x[-1] / x[-2]))
    return Linearity(a, b, worst, startup, source, ratio, ratio_lines, top_slope)


# --------------------------------------------------------------------------
# report


def fmt(value: float | None, spec: str) -> str:
    """Format a number, '-' for None."""
    return "-" if value is None else format(value, spec)


def table_row(p: Point, tg_fit: Linearity | None) -> str:
    """One markdown row."""
    cells = ["startup: " if p.baseline else ""]
    cells[0] += f"{p.lines:,}"
    tg = p.ok("trecgain")
    te = p.ok("trec_eval")
    cells.append(f"{p.seconds('trecgain'):.3f}" if tg else "failed")
    cells.append(f"{p.seconds('trec_eval'):.3f}" if te else "failed")
    cells.append(f"{p.seconds('trec_eval') / p.seconds('trecgain'):.2f}x" if tg and te else "-")
    cells.append(f"{p.mib('trecgain'):.1f}" if tg else "-")
    cells.append(f"{p.mib('trec_eval'):.1f}" if te else "-")
    if tg and tg_fit is not None and not p.baseline:
        cells.append(f"{(p.mib('trecgain') - tg_fit.startup) / (p.lines / 1e6):.1f}")
    else:
        cells.append("-")
    same = p.same()
    if same is None:
        errors = [f"{n}: {p.results[n].error}" for n in TOOLS
                  if n in p.results and p.results[n].error]
        cells.append("- (" + "; ".join(errors).replace("|", "\\|") + ")" if errors else "-")
    else:
        value = next(iter(p.results["trec_eval"].values.values()))
        cells.append(f"yes ({value})" if same else f"**no** ({p.results['trecgain'].values} "
                     f"vs {p.results['trec_eval'].values})")
    return "| " + " | ".join(cells) + " |"


def linearity_lines(points: list[Point]) -> list[str]:
    """Header bullet points stating whether time and memory are linear."""
    lines = []
    for name in TOOLS:
        for quantity, unit, label in (("seconds", "s", "time"), ("mib", "MiB", "memory")):
            fit = linearity(points, name, quantity)
            if fit is None:
                lines.append(f"- {name} {label}: no data")
                continue
            lines.append(
                f"- {name} {label} linear: {fit.verdict()}. "
                f"Fit {unit} = a + b*lines: a = {fit.a:.3g} {unit}, "
                f"b = {fit.b * 1e6:.3g} {unit} per million lines, "
                f"worst relative residual {fit.worst_residual:.1%}; "
                f"marginal {unit}/line beyond start-up ({fit.startup_source} "
                f"{fit.startup:.3g} {unit}), largest size / "
                f"{fmt(fit.ratio_lines, ',')} lines: {fmt(fit.ratio, '.2f')}; "
                f"log-log slope of ({unit} - start-up) over the two largest sizes: "
                f"{fmt(fit.top_slope, '.2f')} (1 = linear)")
    return lines


def render(points: list[Point], args: argparse.Namespace, commands: list[str],
           floor_mib: float | None) -> str:
    """The markdown report."""
    now = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    notes = "; ".join(f"{p.lines:,} lines {p.data_note}" for p in points)
    tg_fit = linearity(points, "trecgain", "mib")
    low, high = RATIO_RANGE
    lines = [
        f"# trecgain scaling: `-m {args.measure}` vs trec_eval",
        "",
        f"- Data: gen.py, queries x {DataSpec().docs} docs per query, {DataSpec().judged} "
        f"judged docs per query, seed {DataSpec().seed} ({notes})",
        f"- Machine: {machine_description()}",
        f"- Date: {now}",
        f"- Method: whole process per run, median of {args.runs} timed run(s) per tool "
        f"(+{args.warmup} warm-up), interleaved round robin, data files read once beforehand "
        "so both tools find them in the page cache; wall time and peak RSS (ru_maxrss from "
        "os.wait4) via bench.py's launcher"
        + (f" (RSS floor: `true` shows {floor_mib:.1f} MiB)" if floor_mib is not None else "")
        + (f". The startup row ({points[0].spec.queries} query data set) measures each "
           f"tool's fixed cost (median of at least {BASELINE_MIN_RUNS} runs after a warm-up)."
           if points[0].baseline else "."),
        "",
        "Linearity (fit by least squares on relative residuals over the non-startup sizes; "
        f"verdict yes = marginal per-line cost ratio within {low:.2f}-{high:.2f} and worst "
        f"residual <= {MAX_RESIDUAL:.0%}; the ratio compares the largest size with the "
        f"smallest one whose cost is at least {MIN_ABOVE_STARTUP:.0%} above the start-up "
        "cost):",
        "",
        *linearity_lines(points),
        "",
        "| run lines | trecgain s | trec_eval s | ratio (trec_eval s / trecgain s) "
        "| trecgain MiB | trec_eval MiB | trecgain MiB per M lines (above startup) "
        "| same number |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
        *[table_row(p, tg_fit) for p in points],
        "",
        "Commands (largest size; run from the project root):",
        "",
        "```",
        *commands,
        "```",
        "",
    ]
    return "\n".join(lines)


def plot(points: list[Point], args: argparse.Namespace, path: Path) -> bool:
    """Two log-log panels (seconds, peak MiB vs run lines); False if no matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError:
        print("matplotlib is not installed, so no plot was written; "
              "install it with: pip install matplotlib", file=sys.stderr)
        return False
    colours = {"trecgain": "tab:blue", "trec_eval": "tab:orange"}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    for ax, (quantity, ylabel) in zip(axes, (("seconds", "wall seconds (median)"),
                                             ("mib", "peak RSS, MiB (median)"))):
        for name in TOOLS:
            pts = [p for p in points if p.ok(name)]
            if not pts:
                continue
            get = getattr(Point, quantity)
            x = np.array([p.lines for p in pts], dtype=float)
            y = np.array([get(p, name) for p in pts])
            base = np.array([p.baseline for p in pts])
            ax.plot(x[~base], y[~base], "o", color=colours[name], label=name)
            ax.plot(x[base], y[base], "o", mfc="none", color=colours[name])
            if quantity == "seconds":
                lo = [min(s.seconds for s in p.results[name].samples) for p in pts]
                hi = [max(s.seconds for s in p.results[name].samples) for p in pts]
                ax.vlines(x, lo, hi, color=colours[name], alpha=0.5)
            fit = linearity(points, name, quantity)
            if fit is None:
                continue
            grid = np.geomspace(x[~base].min(), x[~base].max(), 200)
            line = fit.a + fit.b * grid
            keep = line > 0
            ax.plot(grid[keep], line[keep], "--", color=colours[name], lw=1)
            if fit.b > 0:
                ax.plot(grid, fit.b * grid, ":", color=colours[name], lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("run lines")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    handles, _ = axes[0].get_legend_handles_labels()
    handles += [Line2D([], [], ls="--", color="grey", label="fit a + b·lines"),
                Line2D([], [], ls=":", color="grey", label="b·lines (slope 1)"),
                Line2D([], [], ls="", marker="o", mfc="none", color="grey",
                       label="startup baseline")]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9,
               frameon=False)
    axes[0].set_title("time")
    axes[1].set_title("peak memory")
    fig.suptitle(f"-m {args.measure}: trecgain vs trec_eval, median of {args.runs} run(s) "
                 "(bars: min-max)", fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------


def warm_page_cache(*paths: Path) -> None:
    """Read files once so the first timed tool does not pay for the disk."""
    for path in paths:
        with open(path, "rb", buffering=0) as f:
            while f.read(8 << 20):
                pass


def parse_sizes(text: str) -> list[int]:
    """'50,200' -> [50, 200], sorted, deduplicated."""
    try:
        sizes = sorted({int(t) for t in text.split(",") if t.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of integers: {text!r}") from None
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError("sizes must be positive query counts")
    return sizes


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command line options (the tool options have bench.py's names and meaning)."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options whose value starts with '-' need '=', e.g. --extra-args=-q")
    parser.add_argument("--sizes", type=parse_sizes, default=parse_sizes(DEFAULT_SIZES),
                        help="comma list of query counts, 1000 run lines each "
                             f"(default {DEFAULT_SIZES})")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per tool and size "
                        "(default 3)")
    parser.add_argument("--warmup", type=int, default=0,
                        help="untimed runs per tool and size first (default 0)")
    parser.add_argument("--baseline-queries", type=int, default=1,
                        help="size of the start-up baseline data set in queries; 0 = none, "
                             "then the fitted intercept is the start-up cost (default 1)")
    parser.add_argument("--trec-eval", type=Path, metavar="PATH",
                        help="trec_eval binary (default: bench.py's cached/downloaded one)")
    parser.add_argument("--cache-dir", type=Path, default=BENCH_DIR / "cache",
                        help="where bench.py caches trec_eval (default bench/cache)")
    parser.add_argument("--trecgain-cmd", default=shlex.join([sys.executable, "-m", "trecgain"]),
                        help="command that runs trecgain (default: %(default)s)")
    parser.add_argument("--extra-args", default="", help="extra trecgain arguments")
    parser.add_argument("--trec-eval-args", default="", help="extra trec_eval arguments")
    parser.add_argument("--measure", default="ndcg_cut.10", help="measure (default %(default)s)")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR,
                        help="cache directory for generated files (default bench/data)")
    parser.add_argument("--out-md", type=Path, default=BENCH_DIR / "scaling.md",
                        help="markdown table (default bench/scaling.md)")
    parser.add_argument("--out-png", type=Path, default=PROJECT_ROOT / "docs" / "scaling.png",
                        help="plot (default docs/scaling.png in the project root)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.warmup < 0 or args.baseline_queries < 0:
        parser.error("--runs must be >= 1, --warmup and --baseline-queries >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """Generate, time, report; the markdown is rewritten after every size."""
    args = parse_args(argv)
    if args.trec_eval is None:
        args.trec_eval = ensure_trec_eval(args.cache_dir)
    if not args.trec_eval.exists():
        print(f"trec_eval not found: {args.trec_eval}", file=sys.stderr)
        return 2
    floor_mib = launcher_floor_mib()
    sizes = [(q, False) for q in args.sizes]
    if args.baseline_queries and args.baseline_queries < args.sizes[0]:
        sizes.insert(0, (args.baseline_queries, True))
    points: list[Point] = []
    commands: list[str] = []
    report = ""
    for queries, is_baseline in sizes:
        spec = DataSpec(queries=queries)
        print(f"== {queries} queries, {spec.queries * spec.docs:,} run lines"
              + (" (startup baseline)" if is_baseline else ""), file=sys.stderr)
        qrels, run, gen_seconds = ensure_data(spec, args.data_dir.resolve())
        note = "cached" if gen_seconds is None else f"generated in {gen_seconds:.1f} s"
        print(f"data: {run.name} ({note})", file=sys.stderr)
        warm_page_cache(qrels, run)
        tools = build_tools(list(TOOLS), args, qrels, run)
        commands = [tool.shown() for tool in tools]
        if is_baseline:
            results = measure_tools(tools, max(args.runs, BASELINE_MIN_RUNS),
                                    max(args.warmup, 1))
        else:
            results = measure_tools(tools, args.runs, args.warmup)
        points.append(Point(spec, note, {r.tool.name: r for r in results}, is_baseline))
        report = render(points, args, commands, floor_mib)
        args.out_md.parent.mkdir(parents=True, exist_ok=True)
        args.out_md.write_text(report)
    print(report)
    print(f"wrote {args.out_md}", file=sys.stderr)
    if plot(points, args, args.out_png):
        print(f"wrote {args.out_png}", file=sys.stderr)
    return 0 if all(p.same() for p in points) else 1


if __name__ == "__main__":
    sys.exit(main())
