"""The statistical tests of paired comparisons, as a registry: `TESTS` maps a test's name
(`test=`, `--test`) to its `Significance` record, in the order the output shows them.  A test
is one function and one record; `register` adds one (a test's, an experiment's)."""

from __future__ import annotations

from ..record import Record


class Trial(Record):
    """What a test sees of one measure line: `values` (queries x runs, numpy), `diffs` (b - a
    per pair, over the same queries), `pairs` [(a, b)], the resampling settings, the level of
    the intervals, and `extra`, where a test leaves what else the output shows (the t-test's
    statistic and interval, the randomization test's standard error)."""

    __slots__ = ("values", "diffs", "pairs", "permutations", "seed", "all_pairs", "wilcoxon", "test", "confidence",
                 "extra")


class Significance(Record):
    """A test: its `name`, `title` (the output's sentence), `short` (a table column's label),
    `p_values(trial)`, one p-value per pair (nan where undefined), `wanted(trial)`: whether the
    comparison computes it, `adjusted`: whether the correction for multiple comparisons
    applies to it (Tukey's HSD controls them itself), `permuted`: whether it needs
    permutations (at least 1)."""

    __slots__ = ("name", "title", "short", "p_values", "wanted", "adjusted", "permuted")
    DEFAULTS = {"adjusted": True, "permuted": False}


def _t(trial: Trial) -> list[float]:
    from . import stats  # not at import: numpy and scipy only when comparing

    tests = [stats.paired_t(d, trial.confidence) for d in trial.diffs]
    trial.extra["paired_t"] = [(t, low, high) for t, _, low, high in tests]
    return [p for _, p, _, _ in tests]


def _randomization(trial: Trial) -> list[float]:
    from . import stats  # not at import: numpy and scipy only when comparing

    tests = stats.randomization(trial.diffs, trial.permutations, trial.seed)
    trial.extra["se_randomization"] = [se for _, se in tests]
    return [p for p, _ in tests]


def _wilcoxon(trial: Trial) -> list[float]:
    from . import stats  # not at import: numpy and scipy only when comparing

    return [stats.wilcoxon(d) for d in trial.diffs]


def _tukey(trial: Trial) -> list[float]:
    from . import stats  # not at import: numpy and scipy only when comparing

    hsd = stats.tukey_hsd(trial.values, trial.permutations, trial.seed)
    return [float(hsd[i, j]) for i, j in trial.pairs]


def _always(trial: Trial) -> bool:
    return True


TESTS: dict[str, Significance] = {s.name: s for s in (
    Significance("t", "paired t-test", "t", _t, _always),
    Significance("randomization", "paired randomization test", "rand", _randomization, _always, permuted=True),
    Significance("wilcoxon", "Wilcoxon signed-rank test", "wilcoxon", _wilcoxon,
                 lambda trial: trial.wilcoxon or trial.test == "wilcoxon"),
    Significance("tukey", "randomized Tukey HSD", "tukey", _tukey,
                 lambda trial: trial.all_pairs or trial.test == "tukey", adjusted=False, permuted=True),
)}
_OWN = dict(TESTS)


def register(test: Significance) -> None:
    """Add a test (a name not taken): `test=NAME` and `--test NAME` choose it for the markers."""
    if test.name in TESTS:
        raise ValueError(f"a test named {test.name!r} exists")
    TESTS[test.name] = test


def unregister(name: str) -> None:
    """Remove a test `register` added (trecgain's own stay)."""
    if name in _OWN:
        raise ValueError(f"{name!r} is one of trecgain's own tests")
    TESTS.pop(name, None)


def chosen(trial: Trial) -> dict[str, list[float]]:
    """The p-values of every test the trial wants, by name, in the registry's order."""
    return {name: test.p_values(trial) for name, test in TESTS.items() if test.wanted(trial)}
