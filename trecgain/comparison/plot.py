"""`trecgain compare --plot`: the figure (matplotlib, an optional extra: trecgain[plot]).

One row per measure line compared: each comparison against the baseline (with --all-pairs,
the first run) as a block of bars, the per-query differences sorted, with the mean
difference and its confidence interval (t) drawn across the block; every row on one y-scale,
so that the same gap looks the same size in each.  Below, when a gain measure is compared:
nDCG@k for k = 1..K per run, one line style per gain scheme, on an axis that starts at 0.

The figure is written atomically (trecgain.output.write: a temporary file beside the
target, renamed onto it), never onto an input file nor onto what looks like a qrels or run
file."""

from __future__ import annotations

import math
import os

from .. import check, output
from ..check import show
from .render import p_text
from .significance import TESTS
from ..errors import TrecgainError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .model import Comparison, MeasureResult, Pair

_NEEDS = "trecgain compare --plot needs matplotlib: pip install 'trecgain[plot]'"
SUFFIXES = (".png", ".svg", ".pdf")
_MAX_BLOCKS = 6  # comparisons drawn per row at most (the first ones)
_STYLES = ("-", "--", ":", "-.")
_ROW_HEIGHT, _CURVE_HEIGHT = 2.9, 3.2


def need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(_NEEDS) from None


def check_target(path: object, inputs: list[str] | tuple[str, ...], option: str = "plot") -> str:
    """The figure's file name, as a str, once it is known not to be a directory, to end in
    .png, .svg or .pdf, to be in a directory that exists, and not to be one of `inputs` (the
    same file by any name: os.path.samefile) nor an existing file that looks like a qrels or
    run file (trecgain.output.looks_like_input).  `option` names the caller in the message."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or not path or "\0" in path:
        raise TrecgainError(f"{option} needs a file name ending in .png, .svg or .pdf, not {show(path)}")
    if path.endswith(tuple(s for s in (os.sep, os.altsep) if s)) or os.path.isdir(path):
        raise TrecgainError(f"{option} {path}: is a directory, not a file name ending in .png, .svg or .pdf")
    if not path.lower().endswith(SUFFIXES):
        raise TrecgainError(f"{option} needs a file name ending in .png, .svg or .pdf, not '{path}'")
    output.check_target(path, inputs, option)
    return path


def plot(c: Comparison, path: object, depth: int | None = None, measure: str | None = None) -> None:
    """Draw c's figure into `path` (checked by check_target against c's input files),
    atomically: a failure leaves the target as it was and no temporary file."""
    import io  # not at import: only this path needs it

    target = check_target(path, c.inputs)
    drawn = figure(c, depth, measure)
    buffer = io.BytesIO()
    try:
        drawn.savefig(buffer, format=target.lower().rsplit(".", 1)[1], dpi=100)
    except OSError as err:
        raise TrecgainError(f"cannot write the plot: {err.strerror or err}", target) from None
    output.write(target, lambda put: put(buffer.getvalue()))


def figure(c: Comparison, depth: int | None = None, measure: str | None = None):
    """The matplotlib Figure: a row of per-query differences per measure line (or only
    `measure`'s, by its key or name), one y-scale for them all; the nDCG@k panel below with
    gain measures.  Axes labels: "differences KEY" and "cutoffs"."""
    need_matplotlib()
    from matplotlib.figure import Figure  # no pyplot: no backend, no display, the user's choice untouched

    chosen = _chosen(c, measure)
    depth = c.default_depth() if depth is None else check.whole(depth, "depth", 1, 1000)
    curve = c.has_gain_measures
    heights = [_ROW_HEIGHT] * len(chosen) + ([_CURVE_HEIGHT] if curve else [])
    drawn = Figure(figsize=(9.0, sum(heights) + 0.3), layout="constrained")
    axes = drawn.subplots(len(heights), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    base = _baseline(c)
    extents = [_differences(ax, c, m, base) for ax, m in zip(axes, chosen)]
    _share_scale(axes[:len(chosen)], extents)
    if curve:
        _cutoffs(axes[-1], c, depth)
    return drawn


def _chosen(c: Comparison, measure: str | None) -> list[MeasureResult]:
    if measure is None:
        return list(c.measures)
    matches = [m for m in c.measures if isinstance(measure, str) and measure in (m.key, m.line)]
    if not matches:
        raise TrecgainError(f"--plot-measure: no line {show(measure)} is compared "
                            f"({', '.join(m.key for m in c.measures)})")
    return matches


def _baseline(c: Comparison) -> int:
    label = c.settings["baseline"]
    return next((i for i, r in enumerate(c.runs) if r.label == label), 0)


def _share_scale(axes, extents: list[tuple[float, float]]) -> None:
    """One y-scale for every difference row: the largest extent of the bars and intervals, 0 in it."""
    low = min([0.0] + [e[0] for e in extents])
    high = max([0.0] + [e[1] for e in extents])
    span = high - low
    margin = 0.06 * span if span > 0 and math.isfinite(span) else 0.5
    limits = (low - margin, high + margin) if math.isfinite(low - margin) and math.isfinite(high + margin) else None
    for ax in axes:
        if ax is not axes[0]:
            ax.sharey(axes[0])
    if limits is not None and len(axes):
        axes[0].set_ylim(*limits)


def _differences(ax, c: Comparison, m: MeasureResult, base: int) -> tuple[float, float]:
    """m's comparisons against the baseline, block after block; returns the y extent drawn."""
    pairs = [p for p in m.pairs if base in (p.a, p.b)][:_MAX_BLOCKS]
    left_out = set(m.left_out)
    rows = [(q, row) for q, row in zip(c.qids, m.values) if q not in left_out]
    ax.set_label(f"differences {m.key}")
    start, centres, names, extent = 0.0, [], [], [0.0, 0.0]
    for pair in pairs:
        sign = 1.0 if pair.a == base else -1.0  # always the other run minus the baseline
        values = sorted((sign * (row[pair.b] - row[pair.a]) for _, row in rows), reverse=True)
        width = max(len(values), 1)
        _bars(ax, start, values)
        _interval(ax, c, pair, sign, start, width, extent)
        extent[0] = min([extent[0]] + values)
        extent[1] = max([extent[1]] + values)
        centres.append(start + (width - 1) / 2.0)
        names.append(_block_name(c, pair, sign, base))
        start += width + max(2.0, 0.06 * width)
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.set_xlim(-1.0, max(start - 1.0, 1.0))
    ax.set_xticks(centres, names, fontsize=7)
    ax.tick_params(axis="x", length=0)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_ylabel("difference", fontsize=8)
    ax.grid(axis="y", linewidth=0.3, alpha=0.6)
    confidence = c.settings["confidence"] * 100
    title = (f"{_plain(m.key)}{'  (lower is better)' if m.lower_is_better else ''}: per-query differences, "
             f"sorted; line: mean, band: {confidence:g}% CI (t)")
    if m.left_out:
        title += f"; {len(m.left_out)} of {len(c.qids)} queries left out (not a finite number)"
    ax.set_title(title, fontsize=8.5, loc="left")
    return extent[0], extent[1]


def _bars(ax, start: float, values: list[float]) -> None:
    colours = ["#2b7bba" if d > 1e-12 else "#d1495b" if d < -1e-12 else "#999999" for d in values]
    ax.bar([start + k for k in range(len(values))], values, width=1.0 if len(values) > 60 else 0.8,
           color=colours, linewidth=0)


def _interval(ax, c: Comparison, pair: Pair, sign: float, start: float, width: int, extent: list[float]) -> None:
    """The mean difference across the block, and its t interval as a band (when it has one)."""
    other, base = (pair.b, pair.a) if sign > 0 else (pair.a, pair.b)
    name = f"{c.runs[other].label} - {c.runs[base].label}"
    xs = [start - 0.5, start + width - 0.5]
    low, high = sorted((sign * pair.ci_t[0], sign * pair.ci_t[1]))
    if math.isfinite(low) and math.isfinite(high):
        ax.fill_between(xs, [low, low], [high, high], color="#f2a900", alpha=0.45, linewidth=0, zorder=3,
                        gid=f"ci {name}")
        extent[0], extent[1] = min(extent[0], low), max(extent[1], high)
    if math.isfinite(pair.diff):
        ax.plot(xs, [sign * pair.diff] * 2, color="#222222", linewidth=1.2, zorder=4, gid=f"mean {name}")


def _block_name(c: Comparison, pair: Pair, sign: float, base: int) -> str:
    """A block's label: which runs, the mean, whether significant, wins and losses."""
    other = pair.b if sign > 0 else pair.a
    wins, losses = (pair.wins, pair.losses) if sign > 0 else (pair.losses, pair.wins)
    test, correction = c.settings["test"], c.settings["correction"]
    adjusted = "" if not TESTS[test].adjusted or correction == "none" else f" {correction}"
    p = pair.adjusted[test]
    verdict = "no test" if math.isnan(p) else (f"{'significant' if pair.significant else 'not significant'} "
                                               f"({test}{adjusted} p {p_text(p, c.settings['alpha'])})")
    mean = "-" if math.isnan(pair.diff) else f"{sign * pair.diff:+.4f}"
    return (f"{c.runs[other].label} {_plain(c.runs[other].name)} minus {c.runs[base].label} "
            f"{_plain(c.runs[base].name)}\n"
            f"mean {mean}, {verdict}\nbetter on {wins}, worse on {losses} of {pair.n}")


def _plain(text: str) -> str:
    """A name drawn as it is: matplotlib reads $...$ as mathematics (and fails on $\\foo$)."""
    return text.replace("$", "\\$")


def _cutoffs(ax, c: Comparison, depth: int) -> None:
    curves = c.cutoff_curve(depth)
    ks = list(range(1, depth + 1))
    colours = [f"C{i % 10}" for i in range(len(c.runs))]
    finite = [0.0, 1.0]
    for s, (scheme, runs) in enumerate(curves.items()):
        for i, values in enumerate(runs):
            label = f"{c.runs[i].label} {_plain(c.runs[i].name)}" + (f" ({_plain(scheme)} gains)" if scheme else "")
            ax.plot(ks, values, linestyle=_STYLES[s % len(_STYLES)], marker="o", markersize=3, color=colours[i],
                    label=label, linewidth=1.2)
            finite += [v for v in values if math.isfinite(v)]
    ax.set_label("cutoffs")
    low, high = min(finite), max(finite)
    ax.set_ylim(low, high + 0.03 * (high - low))  # from 0 (and to 1) at least: no truncated axis
    ax.set_xlabel("cutoff k", fontsize=8)
    ax.set_ylabel("nDCG@k", fontsize=8)
    ax.set_title("nDCG@k per run (axis from 0)" + ("" if c.settings["global_gains"] is None else
                                                   f", gains {_plain(', '.join(c.settings['global_gains']))}"),
                 fontsize=8.5, loc="left")
    ax.set_xticks(ks if depth <= 20 else [k for k in ks if k == 1 or k % 5 == 0])
    ax.tick_params(labelsize=7)
    ax.grid(linewidth=0.3, alpha=0.6)
    ax.legend(fontsize=7, ncols=2 if len(c.runs) * len(curves) > 4 else 1)
