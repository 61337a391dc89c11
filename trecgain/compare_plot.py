"""`trecgain compare --plot`: the figure (matplotlib, an optional extra: trecgain[plot]).

Top: per-query differences against the baseline, sorted, one panel per compared run (the
classic "topic difference" bar chart).  Below, when a gain measure is compared: nDCG@k for
k = 1..K per run, one line style per gain scheme (the design notes' cutoff figure)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .comparison import Comparison

_NEEDS = "trecgain compare --plot needs matplotlib: pip install 'trecgain[plot]'"
_MAX_PANELS = 6  # difference panels drawn at most (the first comparisons)
_STYLES = ("-", "--", ":", "-.")


def need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(_NEEDS) from None


def plot(c: Comparison, path: str, depth: int | None = None, measure: str | None = None) -> None:
    need_matplotlib()
    from .errors import TrecgainError

    from matplotlib.figure import Figure  # no pyplot: no backend, no display, the user's choice untouched

    if measure is None:
        chosen = c.measures[0]
    else:
        matches = [m for m in c.measures if m.key == measure or m.line == measure]
        if not matches:
            raise TrecgainError(f"--plot-measure: no line '{measure}' is compared ({', '.join(m.key for m in c.measures)})")
        chosen = matches[0]
    baseline = c.settings["baseline"]
    base = next((i for i, r in enumerate(c.runs) if r.label == baseline), 0)
    pairs = [p for p in chosen.pairs if p.a == base or p.b == base][:_MAX_PANELS]
    curve = c.has_gain_measures
    rows = len(pairs) + (1 if curve else 0)
    figure = Figure(figsize=(8.0, 2.6 * len(pairs) + (3.2 if curve else 0.0)), layout="constrained")
    heights = [2.6] * len(pairs) + ([3.2] if curve else [])
    axes = figure.subplots(rows, 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, pair in zip(axes, pairs):
        _differences(ax, c, chosen, pair, base)
    if curve:
        _cutoffs(axes[-1], c, depth or c.default_depth())
    try:
        figure.savefig(path, dpi=100)
    except OSError as err:
        raise TrecgainError(f"cannot write the plot: {err.strerror or err}", path) from None


def _differences(ax, c: Comparison, m, pair, base: int) -> None:
    other = pair.b if pair.a == base else pair.a
    sign = 1.0 if pair.a == base else -1.0  # always the other run minus the baseline
    diffs = sorted(((sign * (row[pair.b] - row[pair.a]), q) for q, row in zip(c.qids, m.values)), reverse=True)
    values = [d for d, _ in diffs]
    colours = ["#2b7bba" if d > 1e-12 else "#d1495b" if d < -1e-12 else "#999999" for d in values]
    ax.bar(range(len(values)), values, width=1.0 if len(values) > 60 else 0.8, color=colours, linewidth=0)
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.axhline(sign * pair.diff, color="#444444", linewidth=0.8, linestyle="--")
    wins, losses = (pair.wins, pair.losses) if sign > 0 else (pair.losses, pair.wins)
    test, correction = c.settings["test"], c.settings["correction"]
    adjusted = "" if test == "tukey" or correction == "none" else f" {correction}"
    from .compare_render import _p

    mark = (f"{'significant' if pair.significant else 'not significant'} ({test}{adjusted} p "
            f"{_p(pair.adjusted[test], c.settings['alpha'])})")
    ax.set_title(f"{m.key}: {c.runs[other].label} {c.runs[other].name} minus {c.runs[base].label} "
                 f"{c.runs[base].name}, mean {sign * pair.diff:+.4f}\n{mark}; better on {wins}, worse on "
                 f"{losses} of {pair.n} {'query' if pair.n == 1 else 'queries'}", fontsize=8.5, loc="left")
    ax.set_ylabel("difference\n(dashed: mean)", fontsize=8)
    ax.set_xlim(-0.7, len(values) - 0.3)
    if len(values) <= 40:
        ax.set_xticks(range(len(values)), [q for _, q in diffs], rotation=90, fontsize=7)
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"{len(values)} queries, sorted by difference", fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(axis="y", linewidth=0.3, alpha=0.6)


def _cutoffs(ax, c: Comparison, depth: int) -> None:
    curves = c.cutoff_curve(depth)
    ks = list(range(1, depth + 1))
    colours = [f"C{i % 10}" for i in range(len(c.runs))]
    for s, (scheme, runs) in enumerate(curves.items()):
        for i, values in enumerate(runs):
            label = f"{c.runs[i].label} {c.runs[i].name}" + (f" ({scheme} gains)" if scheme is not None else "")
            ax.plot(ks, values, linestyle=_STYLES[s % len(_STYLES)], marker="o", markersize=3, color=colours[i],
                    label=label, linewidth=1.2)
    ax.set_xlabel("cutoff k", fontsize=8)
    ax.set_ylabel("nDCG@k", fontsize=8)
    ax.set_title("nDCG@k per run" + ("" if c.settings["global_gains"] is None else
                                      f", gains {', '.join(c.settings['global_gains'])}"), fontsize=8.5, loc="left")
    ax.set_xticks(ks if depth <= 20 else [k for k in ks if k == 1 or k % 5 == 0])
    ax.tick_params(labelsize=7)
    ax.grid(linewidth=0.3, alpha=0.6)
    ax.legend(fontsize=7, ncols=2 if len(c.runs) * len(curves) > 4 else 1)
