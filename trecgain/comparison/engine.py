"""`trecgain.compare`: is run B better than run A, by how much, and where.

Every number comes from `Evaluator`: a run's mean is exactly the `all` value the main command
prints, and the paired statistics read the same evaluation's per-query values (trecgain.stats
computes them).  The library never prints: notes are in `Comparison.notes`.

(This module is `comparison`, not `compare`: `trecgain.compare` is the function, which a
submodule of that name would replace once imported.)
"""

from __future__ import annotations

import math

from .. import check
from ..conventions import described
from ..errors import TrecgainError
from ..evaluate import Evaluator
from ..measures import BY_NAME, parse_requests
from ..options import EvaluationOptions, gain_spec
from . import significance
from .model import Comparison, MeasureResult, Pair, Reversal, RunInfo, lower_is_better
from .significance import Trial

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence

#: What `compare` measures when no measures are given: a paper's usual three.
DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10")
#: The default seed of every resampling (printed with the results; the same seed, the same output).
DEFAULT_SEED = 42


_SCHEME_NAMES = ("linear", "exp", "binary")
_SUMMARIES = {"geometric_mean": "a geometric mean, printed only in the summary",
              "sum": "a sum over queries", "sum_judged_relevant": "a sum over queries", "count": "a count",
              "tag": "the run's tag", "none": "printed per query only",
              "mean_of_defined": "a mean over the queries that have a value (a query may have none: no pair to test)"}
_EVALUATOR_OPTIONS = ("relevance_level", "judged_only", "complete", "max_docs", "compat", "global_gains",
                      "discount", "exact_ideal", "fractional_grades", "err_max_grade", "num_docs", "ties",
                      "convention")


def compare(qrels: Any, runs: Sequence[Any], measures: Iterable[str] | str = DEFAULT_MEASURES, baseline: int = 0,
            all_pairs: bool = False, permutations: int = 10000, bootstrap: int = 10000, seed: int = DEFAULT_SEED,
            correction: str = "holm", alpha: float = 0.05, wilcoxon: bool = False, test: str | None = None,
            confidence: float = 0.95, top: int = 5, names: Sequence[str] | None = None,
            **evaluator_options: Any) -> Comparison:
    """Compare runs on the queries they share (with complete=True: every qrels query).

    Per measure and pair of runs (each run against `runs[baseline]`, or with all_pairs=True
    every pair): the difference of the means with a t interval and a paired bootstrap
    percentile interval (`bootstrap` resamples; 0: none), the effect size, wins / ties /
    losses, a two-sided paired t-test, a paired randomization (sign-flip) test with
    `permutations` flips (p = (b + 1) / (N + 1)), on request the Wilcoxon signed-rank test,
    and with all_pairs (or test="tukey") the randomized Tukey HSD.  p-values are adjusted per
    measure over its comparisons (`correction`: holm, bonferroni, benjamini-hochberg, none);
    a pair is significant when the adjusted p of `test` (default: randomization, with all_pairs
    tukey, which needs no further correction) is below `alpha`.  Resampling is seeded (`seed`;
    trecgain.stats documents the procedure): the same seed gives the same numbers.

    `evaluator_options` are Evaluator's (complete, relevance_level, max_docs, judged_only,
    compat, global_gains, discount, ties, convention, ...); global_gains may name several schemes
    ("linear,exp" or a list), each gain measure then compared under each, and the runs and
    queries whose order the schemes reverse listed in `reversals`.
    """
    from . import stats  # not at import: only this path needs it

    stats.need_scipy()
    check.keywords(evaluator_options, _EVALUATOR_OPTIONS, "compare", "Evaluator's options")
    if isinstance(runs, (str, bytes, dict)) or not hasattr(runs, "__iter__"):
        raise TrecgainError(f"runs must be a list of at least two runs, not {check.show(runs)}")
    runs = list(runs)
    if len(runs) < 2:
        raise TrecgainError(f"compare needs at least two runs, not {len(runs)}")
    measures = check.measures(list(DEFAULT_MEASURES) if measures is None else measures)
    baseline = check.whole(baseline, "baseline", 0, len(runs) - 1)
    all_pairs = check.flag(all_pairs, "all_pairs")
    permutations = check.whole(permutations, "permutations", 0, 10**9)
    bootstrap = check.whole(bootstrap, "bootstrap", 0, 10**9)
    seed = check.whole(seed, "seed", 0, 2**63 - 1)
    if correction not in stats.CORRECTIONS:
        raise TrecgainError(f"correction must be one of {', '.join(stats.CORRECTIONS)}, not {check.show(correction)}")
    alpha = _fraction(alpha, "alpha")
    confidence = _fraction(confidence, "confidence")
    wilcoxon = check.flag(wilcoxon, "wilcoxon")
    top = check.whole(top, "top", 0, 10**6)
    if test is None:
        test = "tukey" if all_pairs else "randomization"
    if test not in significance.TESTS:
        raise TrecgainError(f"test must be one of {', '.join(significance.TESTS)}, not {check.show(test)}")
    if significance.TESTS[test].permuted and permutations == 0:
        raise TrecgainError(f"the {test} test needs permutations: give permutations of at least 1")
    wilcoxon = wilcoxon or test == "wilcoxon"
    if names is not None:
        names = [check.text(n, "names", "'bm25'") for n in names]
        if len(names) != len(runs):
            raise TrecgainError(f"names: {len(names)} names for {len(runs)} runs")
    _check_measures(measures)
    schemes = _schemes(evaluator_options.pop("global_gains", None))
    return _Comparer(qrels, runs, measures, baseline, all_pairs, permutations, bootstrap, seed, correction, alpha,
                     wilcoxon, test, confidence, top, names, schemes, evaluator_options).run()


def _fraction(value: object, name: str) -> float:
    number = check.real(value)
    if number is None or not 0.0 < number < 1.0:
        raise TrecgainError(f"{name} must be a number between 0 and 1, such as 0.05, not {check.show(value)}")
    return number


def _check_measures(specs: list[str]) -> None:
    """A measure named directly must be a mean over queries (nicknames' other lines are left out)."""
    for spec in specs:
        base = spec.partition(".")[0]
        m = BY_NAME.get(base)
        if m is not None and (m.summary != "mean" or not m.per_query or m.value != "float"):
            raise TrecgainError(f"measure '{spec}': compare needs a mean over queries, and {base}'s 'all' line is "
                                f"{_SUMMARIES.get(m.summary, 'not a mean')} (try map, P.10, ndcg_cut.10, recip_rank)")


def _schemes(value: object) -> list:
    """global_gains: None, one scheme, "linear,exp" (named schemes split at commas; a level=gain
    list is one scheme), or a list of schemes."""
    if value is None:
        return [None]
    if isinstance(value, str):
        items = value.split(",")
        if len(items) > 1 and all(i in _SCHEME_NAMES for i in items):
            values = items
        else:
            values = [value]
    elif isinstance(value, (list, tuple)) and value:
        values = []
        for v in value:
            values.extend(_schemes(check.text(v, "global_gains", "'exp', 'linear' or '1=1,2=3'")))
    else:
        raise TrecgainError(f"global_gains must be a gain scheme ('exp'), several ('linear,exp') or a list of them, "
                            f"not {check.show(value)}")
    if len(set(values)) != len(values):
        raise TrecgainError(f"global_gains names a scheme twice: {', '.join(values)}")
    return values


class _Comparer:
    def __init__(self, qrels, runs, measures, baseline, all_pairs, permutations, bootstrap, seed, correction, alpha,
                 wilcoxon, test, confidence, top, names, schemes, options):
        self.qrels, self.runs, self.measures, self.baseline, self.all_pairs = qrels, runs, measures, baseline, all_pairs
        self.permutations, self.bootstrap, self.seed, self.correction = permutations, bootstrap, seed, correction
        self.alpha, self.wilcoxon, self.test, self.confidence, self.top = alpha, wilcoxon, test, confidence, top
        self.names, self.schemes, self.options = names, schemes, options
        self.skipped: list[str] = []  # measure lines that are no mean over queries

    def run(self) -> Comparison:
        evaluators = []
        qrels = self.qrels
        # checked once, as the first scheme's Evaluator checked them; each other scheme replaces the gains
        measures = self.measures
        options = EvaluationOptions.checked(global_gains=self.schemes[0], **self.options, requests=lambda compat:
                                            parse_requests(check.measures(measures), compat, []))
        self.evaluation_options = options
        for i, scheme in enumerate(self.schemes):
            value = options if i == 0 else options.replace(global_gains=gain_spec(scheme, options.compat))
            ev = Evaluator.from_options(qrels, self.measures, value)
            qrels = ev.qrels  # read once
            evaluators.append(ev)
        first = evaluators[0]
        notes: list[str] = list(first.notes)
        warnings: list[str] = []
        core_runs = [first.read_run(r) for r in self.runs]
        results = [[ev.evaluate(run) for ev in evaluators] for run in core_runs]  # [run][scheme]
        for per_scheme in results:
            for res in per_scheme:
                warnings.extend(res.warnings)
                notes.extend(n for n in res.notes if n not in first.notes)
        lines = self._lines(first, results[0][0])
        qids, infos = self._queries(core_runs, results, notes)
        measures = []
        for line, measure, dependent in lines:
            for s, scheme in enumerate(self.schemes if dependent else self.schemes[:1]):
                measures.append(self._measure(line, measure, scheme if dependent and len(self.schemes) > 1 else None,
                                              [per_scheme[s] for per_scheme in results], qids, notes))
        reversals = self._reversals(measures, qids) if len(self.schemes) > 1 else []
        cutoffs = [k for r in first.requests if r.measure.name == "ndcg_cut" for k in r.params.cutoffs]
        settings = {"baseline": None if self.all_pairs else infos[self.baseline].label, "all_pairs": self.all_pairs,
                    "test": self.test, "correction": self.correction, "alpha": self.alpha,
                    "confidence": self.confidence, "permutations": self.permutations, "bootstrap": self.bootstrap,
                    "seed": self.seed, "wilcoxon": self.wilcoxon, "top": self.top, "queries": len(qids),
                    "complete": bool(first.complete), "compat": first.compat,
                    "convention": described(first.options.replace(global_gains=None)),  # gains: their own field
                    "global_gains": None if self.schemes == [None] else list(self.schemes)}
        context = {"qrels": first.qrels, "runs": core_runs, "schemes": self.schemes, "options": first.options,
                   "depth": max(cutoffs) if cutoffs else 20}
        return Comparison(infos, qids, measures, reversals, settings, list(dict.fromkeys(notes)),
                          list(dict.fromkeys(warnings)), context)

    def _lines(self, evaluator, result) -> list[tuple[str, str, bool]]:
        """The measure lines compared: (line name, registry measure, whether the gain scheme
        changes it), those that are no mean over queries left out (and said)."""
        owner = {}
        for r in evaluator.requests:
            for line in r.lines:
                owner[line] = (r.measure.name, r.measure.gains and r.gains is None)
        out, skipped = [], []
        for f in result.line_formats():
            if f.rule == "mean" and f.per_query and f.kind == "float":
                out.append((f.name, *owner[f.name]))
            else:
                skipped.append(f.name)
        self.skipped = skipped
        if not out:
            raise TrecgainError("none of the measures is a mean over queries: compare needs one such as map or "
                                "ndcg_cut.10")
        return out

    def _queries(self, core_runs, results, notes: list[str]) -> tuple[list[str], list[RunInfo]]:
        """The common queries (qrels order) and each run's RunInfo; a note on runs that lack queries."""
        first_results = [per_scheme[0] for per_scheme in results]
        complete = self.evaluation_options.complete
        if complete:
            qids = first_results[0].qids
            lacks = [sum(1 for present in r.evaluation.in_run if not present) for r in first_results]
            has = [len(qids) - k for k in lacks]
        else:
            sets = [set(r.qids) for r in first_results]
            common = set.intersection(*sets)
            qids = [q for q in first_results[0].qids if q in common]
            lacks = [r.evaluation.skipped_queries[0] for r in first_results]
            has = [len(r.qids) for r in first_results]
        if not qids:
            raise TrecgainError("the runs have no qrels query in common: nothing to compare (-c, complete=True, "
                                "counts every qrels query)")
        names = self._names(core_runs, first_results)
        infos = [RunInfo(_label(i), names[i], core_runs[i].source, lacks[i], has[i]) for i in range(len(core_runs))]
        if any(lacks):
            which = ", ".join(f"{info.name} lacks {info.lacks}" for info in infos if info.lacks)
            if complete:
                notes.append(f"with -c every one of the {len(qids)} qrels queries counts, a query a run lacks scoring "
                             f"as trecgain scores it (0): {which}")
            else:
                uneven = len(set(has)) > 1
                common = "the qrels query" if len(qids) == 1 else f"the {len(qids)} qrels queries"
                notes.append(f"the paired statistics use {common} every run has ({which}"
                             f"{'; each mean is over its own run' + chr(39) + 's queries, as trecgain prints it' if uneven else ''}"
                             "; -c counts every qrels query, a missing one scoring 0)")
        if self.skipped:
            notes.append(f"compare leaves out {', '.join(self.skipped)}: no mean over queries")
        return qids, infos

    def _names(self, core_runs, results) -> list[str]:
        if self.names is not None:
            return list(self.names)
        tags = [r.runid for r in results]
        if len(set(tags)) == len(tags):
            return tags
        sources = [str(run.source) for run in core_runs]
        if len(set(sources)) == len(sources):
            return sources
        return [f"{tag}#{i + 1}" for i, tag in enumerate(tags)]

    def _pairs(self, m: int) -> list[tuple[int, int]]:
        if self.all_pairs:
            return [(i, j) for i in range(m) for j in range(i + 1, m)]
        return [(self.baseline, j) for j in range(m) if j != self.baseline]

    def _measure(self, line: str, measure: str, scheme, results, qids: list[str], notes: list[str]) -> MeasureResult:
        """One line's comparisons; queries where a value or a difference is not a finite number
        are left out of its statistics (and said in `notes`)."""
        np = _numpy()
        x = self._values(line, results, qids)  # queries x runs
        means = [float(res.aggregate[line]) for res in results]
        pairs = self._pairs(len(results))
        key = line if scheme is None else f"{line} ({scheme})"
        with np.errstate(all="ignore"):  # nan and overflow are looked for below, not warned about
            diffs = [x[:, j] - x[:, i] for i, j in pairs]
            finite = np.isfinite(x).all(axis=1)
            for d in diffs:
                finite &= np.isfinite(d)
        kept = [q for q, ok in zip(qids, finite) if ok]
        left_out = [q for q, ok in zip(qids, finite) if not ok]
        if left_out:
            notes.append(_left_out_note(key, left_out, len(qids)))
        out = self._pairs_of(x[finite], [d[finite] for d in diffs], pairs, kept)
        self._decide(out, measure)
        overflowed = [f"{_pair_label(p)} ({', '.join(what)})" for p in out
                      for what in [_overflowed(p, self.bootstrap > 0)] if what]
        if overflowed:
            notes.append(f"{key}: past floating point's range, not computed: {'; '.join(overflowed)}")
        from . import stats  # not at import: only this path needs it

        common = [stats.mean_difference(x[finite][:, k]) for k in range(len(results))]
        return MeasureResult(key, line, measure, scheme, means, common, x.tolist(), out, left_out)

    @staticmethod
    def _values(line: str, results, qids: list[str]):
        """The per-query values of `line`, queries x runs, over `qids`."""
        np = _numpy()
        columns = []
        for res in results:
            slot = next(f.slot for f in res.line_formats() if f.name == line)
            column = res.evaluation.column(slot)
            if not res.absent_queries:  # 9.x: a query the run lacks has no per-query value; it averages as 0
                column = [v if present else 0.0 for v, present in zip(column, res.evaluation.in_run)]
            index = {q: k for k, q in enumerate(res.qids)}
            columns.append([float(column[index[q]]) for q in qids])
        return np.array(columns, dtype=float).T.reshape(len(qids), len(results))

    def _pairs_of(self, x, diffs, pairs: list[tuple[int, int]], qids: list[str]) -> list[Pair]:
        """The comparisons over the queries kept (finite values and differences only)."""
        from . import stats  # not at import: only this path needs it

        trial = Trial(x, diffs, pairs, self.permutations, self.seed, self.all_pairs, self.wilcoxon, self.test,
                      self.confidence, {})
        p_values = significance.chosen(trial)
        se = trial.extra.get("se_randomization", [float("nan")] * len(pairs))
        boot = stats.bootstrap(diffs, self.bootstrap, self.seed, self.confidence)
        out = []
        for k, (i, j) in enumerate(pairs):
            d = diffs[k]
            t, lo, hi = trial.extra["paired_t"][k]  # the t-test's (always computed)
            p = {name: values[k] for name, values in p_values.items()}
            wins, ties, losses = stats.wins_ties_losses(d)
            moved = [q for q in range(len(qids)) if abs(d[q]) > 1e-12]
            order = sorted(moved, key=lambda q: -abs(d[q]))[:self.top]
            largest = [(qids[q], float(x[q, i]), float(x[q, j]), float(d[q])) for q in order]
            out.append(Pair(i, j, len(qids), stats.mean_difference(d), (lo, hi), boot[k], stats.effect_size(d), wins,
                            ties, losses, t, p, se[k], {}, None, largest))
        return out

    def _decide(self, out: list[Pair], measure: str) -> None:
        """Adjusted p-values across the comparisons, and the winners: only a comparison with a
        finite difference and a p-value has one."""
        from . import stats  # not at import: only this path needs it

        for name in out[0].p if out else ():
            values = [pair.p[name] for pair in out]
            adjusted = stats.adjust(values, self.correction) if significance.TESTS[name].adjusted else values
            for pair, value in zip(out, adjusted):
                pair.adjusted[name] = value
        lower = lower_is_better(measure)
        for pair in out:
            chosen = pair.adjusted[self.test]
            if math.isfinite(pair.diff) and not math.isnan(chosen) and chosen < self.alpha and pair.diff != 0.0:
                pair.winner = pair.a if (pair.diff > 0) == lower else pair.b

    def _reversals(self, measures: list[MeasureResult], qids: list[str]) -> list[Reversal]:
        """Run pairs and queries whose order two gain schemes reverse, per gain-dependent line."""
        by_line: dict = {}
        for m in measures:
            if m.scheme is not None:
                by_line.setdefault(m.line, []).append(m)
        out = []
        for line, variants in by_line.items():
            for s in range(len(variants)):
                for t in range(s + 1, len(variants)):
                    first, second = variants[s], variants[t]
                    runs = len(first.means)
                    for i in range(runs):
                        for j in range(i + 1, runs):
                            out.extend(_reversal(line, first, second, i, j, qids))
        return out


def _reversal(line, first, second, i, j, qids) -> list[Reversal]:
    d1 = [row[j] - row[i] for row in first.values]
    d2 = [row[j] - row[i] for row in second.values]
    queries = [(q, a, b) for q, a, b in zip(qids, d1, d2) if (a > 1e-12 and b < -1e-12) or (a < -1e-12 and b > 1e-12)]
    m1 = (first.means[i], first.means[j])
    m2 = (second.means[i], second.means[j])
    reversed_means = (m1[1] - m1[0]) * (m2[1] - m2[0]) < 0
    if not reversed_means and not queries:
        return []
    return [Reversal(line, (first.scheme, second.scheme), i, j, (m1, m2), reversed_means, queries)]


def _left_out_note(key: str, left_out: list[str], total: int) -> str:
    """The note on the queries a line's statistics leave out."""
    shown = ", ".join(left_out[:10]) + (f", ... ({len(left_out) - 10} more)" if len(left_out) > 10 else "")
    if len(left_out) == total:
        return (f"{key}: no paired statistic, marker or ranking: on {len(left_out)} of the {total} queries ({shown}) "
                f"a run's value or a difference is not a finite number (nan)")
    return (f"{key}: the paired statistics leave out {len(left_out)} of the {total} queries ({shown}), where a "
            f"run's value or a difference is not a finite number (nan)")


def _pair_label(pair: Pair) -> str:
    return f"{_label(pair.b)} - {_label(pair.a)}"


def _overflowed(pair: Pair, resampled: bool) -> list[str]:
    """The statistics of a comparison that could not be computed although it has queries
    enough (their value is past floating point's range)."""
    out = []
    if pair.n >= 1 and math.isnan(pair.diff):
        out.append("the mean difference")
    if pair.n >= 2 and any(math.isnan(v) for v in pair.ci_t):
        out.append("the t interval")
    if resampled and pair.n >= 1 and any(math.isnan(v) for v in pair.ci_bootstrap):
        out.append("the bootstrap interval")
    return out


def _label(i: int) -> str:
    """a, b, ..., z, aa, ab, ... (ranx's letters)."""
    letters = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        letters = chr(97 + r) + letters
    return letters


def _numpy():
    import numpy as np  # optional dependency: imported only when used

    return np
