"""The comparison's data: the runs compared (`RunInfo`), each measure line's results
(`MeasureResult`) and paired comparisons (`Pair`), the gain schemes' reversals (`Reversal`),
and `Comparison`, which holds them and renders or plots them (trecgain.comparison.render, .plot)."""

from __future__ import annotations

import math

from ..measures import BY_NAME
from ..record import Record
from .. import check
from ..errors import TrecgainError
from ..evaluate import Evaluator
from ..options import gain_spec
from . import plot as plotting
from . import render as rendering

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..options import EvaluationOptions


def lower_is_better(measure: str) -> bool:
    """A lower value of the registry measure is the better one (its record says; bold and
    markers follow)."""
    m = BY_NAME.get(measure)
    return bool(m and m.lower_is_better)


def _goes_with_curve(measure: str) -> bool:
    """The nDCG@k figure goes with the measure: its gains or its discount are the figure's."""
    m = BY_NAME.get(measure)
    return bool(m and (m.gains or m.discounted))


class RunInfo(Record):
    """One compared run: its letter (a, b, ...), the name shown (its tag, or its source when
    tags clash), where it came from, and how many qrels queries it lacks / has."""

    __slots__ = ("label", "name", "source", "lacks", "queries")


class Pair(Record):
    """One paired comparison of runs `a` and `b` (indexes into Comparison.runs) on one measure:
    differences are b - a over the `n` common queries the measure's statistics keep (those
    whose values and differences are finite numbers: MeasureResult.left_out).  `p` and `adjusted`: {test: p-value} (nan
    where undefined); `winner`: the index of the run significantly better (by the chosen test's
    adjusted p at alpha), else None; `largest`: the queries with the largest |difference|, as
    (qid, value of a, value of b, difference)."""

    __slots__ = ("a", "b", "n", "diff", "ci_t", "ci_bootstrap", "effect", "wins", "ties", "losses", "t", "p",
                 "se_randomization", "adjusted", "winner", "largest")

    @property
    def significant(self) -> bool:
        return self.winner is not None


class MeasureResult(Record):
    """One measure line (under one gain scheme when several are compared): `key` is how it is
    shown (`ndcg_cut_10`, or `ndcg_cut_10 (exp)`), `means` the main command's `all` value per
    run, `common_means` the means over the queries the paired statistics use, `values` the
    per-query values (a list per query, one value per run, over every common query), `pairs`
    the comparisons, `left_out` the common queries the statistics leave out because a run's
    value there, or a difference of two, is not a finite number (Rndcg's 0/0 is nan)."""

    __slots__ = ("key", "line", "measure", "scheme", "means", "common_means", "values", "pairs", "left_out")
    DEFAULTS = {"left_out": []}

    @property
    def lower_is_better(self) -> bool:
        return lower_is_better(self.measure)

    @property
    def best(self) -> int | None:
        """The index of the run with the best mean (the first of equals); None when a mean is
        not a finite number (nan: no run is ranked)."""
        if not all(math.isfinite(v) for v in self.means):
            return None
        pick = min if self.lower_is_better else max
        target = pick(self.means)
        return self.means.index(target)

    @property
    def tested(self) -> bool:
        """Whether any comparison of this line has a p-value (not when no query is left)."""
        return any(not math.isnan(v) for pair in self.pairs for v in pair.p.values())

    def beats(self, run: int) -> list[int]:
        """The runs `run` is significantly better than."""
        return sorted((p.b if p.winner == p.a else p.a) for p in self.pairs if p.winner == run)


class Reversal(Record):
    """Runs a and b on one measure line under two gain schemes: `means` the two runs' means
    under each scheme ((a, b), (a, b)), `reversed` whether the schemes order the means
    oppositely, `queries` those whose order they reverse, as (qid, b - a under the first
    scheme, b - a under the second)."""

    __slots__ = ("line", "schemes", "a", "b", "means", "reversed", "queries")


class Comparison:
    """What `compare` found.  `runs` (RunInfo), `qids` (the common queries), `measures`
    (MeasureResult, each with its `pairs`), `reversals` (with several gain schemes),
    `settings` (seed, permutations, ...), `notes` and `warnings` for the caller to show."""

    def __init__(self, runs: list[RunInfo], qids: list[str], measures: list[MeasureResult],
                 reversals: list[Reversal], settings: dict, notes: list[str], warnings: list[str],
                 context: dict):
        self.runs = runs
        self.qids = qids
        self.measures = measures
        self.reversals = reversals
        self.settings = settings
        self.notes = notes
        self.warnings = warnings
        self._context = context

    @property
    def options(self) -> EvaluationOptions:
        """The one options value the runs were evaluated with (that of the first gain scheme; each
        other scheme's differs in global_gains only)."""
        return self._context["options"]

    def __repr__(self) -> str:
        return (f"<Comparison of {len(self.runs)} runs on {len(self.qids)} queries, "
                f"{len(self.measures)} measures>")

    def measure(self, key: str) -> MeasureResult:
        """The line shown as `key` (`ndcg_cut_10`, `ndcg_cut_10 (exp)`), or named `key` when
        only one line has that name."""
        for m in self.measures:
            if m.key == key:
                return m
        named = [m for m in self.measures if m.line == key]
        if len(named) == 1:
            return named[0]
        raise TrecgainError(f"no measure {check.show(key)} in this comparison: it has "
                            f"{', '.join(m.key for m in self.measures)}")

    def rows(self) -> list[dict]:
        """One flat record per (measure, comparison): what to_csv and to_dataframe hold."""
        return rendering.rows(self)

    def to_dataframe(self):
        """The comparisons as a pandas DataFrame, one row per (measure, pair of runs)."""
        try:
            import pandas as pd  # optional dependency: imported only when used
        except ImportError:
            raise ImportError("to_dataframe needs pandas: pip install pandas") from None
        return pd.DataFrame(self.rows())

    def to_dict(self) -> dict:
        return rendering.to_dict(self)

    def to_json(self) -> str:
        return rendering.to_json(self)

    def to_csv(self) -> str:
        return rendering.to_csv(self)

    def to_text(self) -> str:
        return rendering.to_text(self)

    def to_markdown(self) -> str:
        return rendering.to_markdown(self)

    def to_latex(self) -> str:
        return rendering.to_latex(self)

    def render(self, format: str = "text") -> str:
        """The results as text, json, csv, markdown or latex."""
        formats = rendering.FORMATS
        if format not in formats:
            raise TrecgainError(f"format must be one of {', '.join(formats)}, not {check.show(format)}")
        return formats[format](self)

    def cutoff_curve(self, depth: int) -> dict:
        """nDCG@k for k = 1..depth per run, as the main command computes ndcg_cut.1,...,depth with
        this comparison's options: {scheme (None: no --global-gains): [[value at k] per run]}."""
        depth = check.whole(depth, "depth", 1, 1000)
        context = self._context
        measure = "ndcg_cut." + ",".join(str(k) for k in range(1, depth + 1))
        out: dict = {}
        options = context["options"]
        for scheme in context["schemes"]:
            ev = Evaluator.from_options(context["qrels"], [measure],
                                        options.replace(global_gains=gain_spec(scheme, options.compat)))
            curves = []
            for run in context["runs"]:
                agg = ev.evaluate(run, keep_values=False).aggregate
                curves.append([float(agg[f"ndcg_cut_{k}"]) for k in range(1, depth + 1)])
            out[scheme] = curves
        return out

    def default_depth(self) -> int:
        """The nDCG@k figure's K: the largest ndcg_cut cutoff compared, else 20."""
        return self._context["depth"]

    @property
    def has_gain_measures(self) -> bool:
        return any(_goes_with_curve(m.measure) for m in self.measures)

    @property
    def inputs(self) -> list[str]:
        """The files compared (the qrels and the runs read from files): what plot() never overwrites."""
        sources = [getattr(self._context["qrels"], "source", None)] + [r.source for r in self.runs]
        return [s for s in sources if isinstance(s, str) and s not in ("", "-")]

    def figure(self, depth: int | None = None, measure: str | None = None):
        """The figure as a matplotlib Figure (needs matplotlib: pip install 'trecgain[plot]'):
        one row per measure line (or only `measure`'s), each comparison's per-query differences
        sorted, on one y-scale, with its mean and confidence interval; with gain measures
        nDCG@k for k = 1..depth per run below."""
        return plotting.figure(self, depth, measure)

    def plot(self, path: str, depth: int | None = None, measure: str | None = None) -> None:
        """Draw the figure into `path` (a new file or a figure; never one of the inputs),
        whose suffix (.png, .svg, .pdf) chooses the format; written atomically."""
        plotting.plot(self, path, depth, measure)


