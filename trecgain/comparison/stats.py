"""The statistics of `trecgain compare`: paired tests, intervals, effect sizes, corrections for
multiple comparisons and the randomized Tukey HSD, on per-query values.

The t and normal-approximation distributions come from scipy (`scipy.stats.t`,
`scipy.stats.wilcoxon`); nothing here writes one by hand.  The resampling is numpy's, from
seeded generators, and is documented exactly so that anyone can repeat it (the tests do):

- sign flips (randomization test): `rng = np.random.default_rng([seed, 0])`, then for each of
  the N permutations one row `rng.random(n) < 0.5`, query q's difference negated where True
  (rows drawn in blocks: `rng.random((rows, n))` is the same stream, row after row);
- bootstrap: `rng = np.random.default_rng([seed, 1])`, each resample `floor(rng.random(n) * n)`
  (capped at n - 1) as query indexes drawn with replacement, its statistic the mean of those
  queries' differences; the interval the `np.quantile` (linear method) of the B means at
  (1 - confidence) / 2 and (1 + confidence) / 2;
- randomized Tukey HSD: `rng = np.random.default_rng([seed, 2])`, each permutation
  `rng.random((n, m)).argsort(axis=1)` reorders query q's m values across the m runs.

Every comparison of one call reads the same streams (common random numbers): a comparison's
numbers do not depend on which other runs or measures are compared, and the same seed gives
the same output.  Counting "as extreme as observed" allows for rounding (`_TOLERANCE` of the
largest magnitude), as scipy's permutation_test does, so that a rearrangement equal to the
observed one is never missed for a last-bit difference in the order of a sum.

Large values (past 2^400, as --global-gains 1=1e300 gives) are first divided by a power of two
(exact: the same numbers, only their exponents change), so that squares and sums never
overflow; a result that is past floating point's range once scaled back (an interval's bound
beyond 1.8e308) is nan, not computable, never an infinity.  numpy's floating point warnings
are kept off standard error (numpy.errstate).
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

SIGN_FLIPS, BOOTSTRAP, TUKEY = 0, 1, 2  # the generator streams: default_rng([seed, stream])
CORRECTIONS = ("holm", "bonferroni", "benjamini-hochberg", "none")
_TOLERANCE = 1e-9
_BLOCK = 1 << 21  # random numbers drawn per block (memory: 16 MiB of doubles, a few times over)
_NEEDS = "trecgain compare needs numpy and scipy: pip install 'trecgain[stats]'"


def need_scipy() -> None:
    """numpy and scipy, or one ImportError line saying how to install them."""
    try:
        import numpy  # noqa: F401
        import scipy.stats  # noqa: F401
    except ImportError:
        raise ImportError(_NEEDS) from None


def _np():
    need_scipy()
    import numpy as np  # optional dependency: imported only when used

    return np


_LARGE = 2.0 ** 400  # past this, sums of the squares of the values could overflow


def _exponent(values) -> int:
    """The power of two the values are divided by before their squares or sums are taken:
    0 unless their largest magnitude is past _LARGE (the division is then exact)."""
    np = _np()
    if values.size == 0:
        return 0
    largest = float(np.abs(values).max())
    if not largest > _LARGE or math.isinf(largest):
        return 0
    return math.frexp(largest)[1]


def _scaled(values, exponent: int):
    """values / 2**exponent (exact)."""
    np = _np()
    return values if exponent == 0 else np.ldexp(values, -exponent)


def _unscaled(value: float, exponent: int) -> float:
    """value * 2**exponent; nan (not computable) when that is past floating point's range."""
    if exponent == 0 or value == 0.0 or not math.isfinite(value):
        return value
    mantissa, e = math.frexp(value)
    if e + exponent > 1024:
        return math.nan
    return math.ldexp(mantissa, e + exponent)


def mean_difference(d: Sequence[float]) -> float:
    """The mean of the differences d, without overflow in their sum (nan without values)."""
    np = _np()
    d = np.asarray(d, dtype=float)
    if len(d) == 0:
        return math.nan
    e = _exponent(d)
    with np.errstate(all="ignore"):
        return _unscaled(float(_scaled(d, e).mean()), e)


def paired_t(d: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float, float]:
    """Two-sided paired t-test of mean(d) = 0 and the t-based interval of the mean difference:
    (t, p, low, high).  n < 2: all nan.  Every difference 0: t 0, p 1, interval [0, 0]; the
    same nonzero difference on every query: t = +-inf, p 0, interval [d, d] (scipy's limits).
    An interval with a bound past floating point's range is (nan, nan): not computable."""
    np = _np()
    from scipy import stats  # optional dependency: imported only when used

    d = np.asarray(d, dtype=float)
    n = len(d)
    if n < 2:
        return (math.nan,) * 4
    e = _exponent(d)
    with np.errstate(all="ignore"):
        mean, sd = _moments(_scaled(d, e))
    if sd == 0.0:
        if mean == 0.0:
            return 0.0, 1.0, 0.0, 0.0
        value = _unscaled(mean, e)
        return math.copysign(math.inf, mean), 0.0, value, value
    se = sd / math.sqrt(n)
    t = mean / se
    p = float(2.0 * stats.t.sf(abs(t), n - 1))
    q = float(stats.t.ppf((1.0 + confidence) / 2.0, n - 1))
    low, high = _unscaled(mean - q * se, e), _unscaled(mean + q * se, e)
    if not (math.isfinite(low) and math.isfinite(high)):
        low = high = math.nan  # past floating point's range: not computable
    return t, min(p, 1.0), low, high


def _moments(d) -> tuple[float, float]:
    """The mean and the standard deviation (n - 1) of values whose squares do not overflow."""
    return float(d.mean()), float(d.std(ddof=1))


def effect_size(d: Sequence[float]) -> float:
    """The mean difference over the standard deviation of the differences (n - 1 in the
    denominator; Cohen's d for paired samples, d_z).  nan for n < 2 or no difference at all."""
    np = _np()
    d = np.asarray(d, dtype=float)
    if len(d) < 2:
        return math.nan
    with np.errstate(all="ignore"):
        mean, sd = _moments(_scaled(d, _exponent(d)))
    if sd == 0.0:
        return math.nan if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / sd


def wins_ties_losses(d: Sequence[float]) -> tuple[int, int, int]:
    """Queries where the difference is positive, zero (within 1e-12) and negative."""
    wins = sum(1 for x in d if x > 1e-12)
    losses = sum(1 for x in d if x < -1e-12)
    return wins, len(d) - wins - losses, losses


def wilcoxon(d: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p (scipy.stats.wilcoxon, zero differences dropped as
    Wilcoxon did); 1 when every difference is 0, nan without queries."""
    np = _np()
    from scipy import stats  # optional dependency: imported only when used

    d = np.asarray(d, dtype=float)
    if len(d) == 0:
        return math.nan
    if not np.any(d != 0.0):
        return 1.0
    with np.errstate(all="ignore"):
        d = _scaled(d, _exponent(d))  # ranks only: the scale changes nothing
        return float(stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)


def _blocks(total: int, width: int):
    """Row counts of the blocks that draw `total` rows of `width` random numbers."""
    rows = max(1, _BLOCK // max(1, width))
    done = 0
    while done < total:
        take = min(rows, total - done)
        yield take
        done += take


def randomization(diffs: Sequence[Sequence[float]], permutations: int,
                  seed: int) -> list[tuple[float, float]]:
    """Two-sided paired randomization (sign-flip) test of each difference vector (all of one
    length n), the same N sign flips for each: (p, its Monte-Carlo standard error), p = (b + 1)
    / (N + 1) where b counts the flips whose |sum| is at least the observed |sum| (Phipson and
    Smyth 2010: never 0), the standard error sqrt(p (1 - p) / N)."""
    np = _np()
    vectors = [np.asarray(d, dtype=float) for d in diffs]
    vectors = [_scaled(v, _exponent(v)) for v in vectors]  # sign flips do not see the scale
    if not vectors:
        return []
    n = len(vectors[0])
    if n == 0 or permutations < 1:
        return [(math.nan, math.nan)] * len(vectors)
    with np.errstate(all="ignore"):
        return _sign_flips(vectors, n, permutations, seed)


def _sign_flips(vectors, n: int, permutations: int, seed: int) -> list[tuple[float, float]]:
    np = _np()
    observed = [abs(float(v.sum())) for v in vectors]
    tolerance = [_TOLERANCE * float(np.abs(v).max()) for v in vectors]
    counts = [0] * len(vectors)
    rng = np.random.default_rng([seed, SIGN_FLIPS])
    for rows in _blocks(permutations, n):
        flips = rng.random((rows, n)) < 0.5
        for k, v in enumerate(vectors):
            sums = np.abs(np.where(flips, -v, v).sum(axis=1))
            counts[k] += int(np.count_nonzero(sums >= observed[k] - tolerance[k]))
    out = []
    for b in counts:
        p = (b + 1) / (permutations + 1)
        out.append((p, math.sqrt(p * (1.0 - p) / permutations)))
    return out


def bootstrap(diffs: Sequence[Sequence[float]], samples: int, seed: int,
              confidence: float = 0.95) -> list[tuple[float, float]]:
    """Paired bootstrap percentile interval of each difference vector's mean (all of one length
    n), the same B resamples of the queries for each (see the module's procedure)."""
    np = _np()
    vectors = [np.asarray(d, dtype=float) for d in diffs]
    if not vectors:
        return []
    n = len(vectors[0])
    if n == 0 or samples < 1:
        return [(math.nan, math.nan)] * len(vectors)
    exponents = [_exponent(v) for v in vectors]
    vectors = [_scaled(v, e) for v, e in zip(vectors, exponents)]
    with np.errstate(all="ignore"):
        intervals = _resampled_means(vectors, n, samples, seed, confidence)
    return [(_unscaled(low, e), _unscaled(high, e)) for (low, high), e in zip(intervals, exponents)]


def _resampled_means(vectors, n: int, samples: int, seed: int, confidence: float) -> list[tuple[float, float]]:
    np = _np()
    means = [np.empty(samples) for _ in vectors]
    rng = np.random.default_rng([seed, BOOTSTRAP])
    done = 0
    for rows in _blocks(samples, n):
        picks = np.minimum((rng.random((rows, n)) * n).astype(np.intp), n - 1)
        for k, v in enumerate(vectors):
            means[k][done:done + rows] = v[picks].mean(axis=1)
        done += rows
    levels = [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]
    return [tuple(float(x) for x in np.quantile(m, levels)) for m in means]  # type: ignore[misc]


def tukey_hsd(values, permutations: int, seed: int):
    """Randomized Tukey HSD (Carterette 2012; Sakai 2014) over an n x m matrix (queries x runs):
    each permutation reorders every query's m values across the runs and records the range
    (largest minus smallest) of the m run means; p of runs i, j = (count(range >= |mean_i -
    mean_j|) + 1) / (N + 1).  An m x m matrix (nan on the diagonal, and without queries)."""
    np = _np()
    x = np.asarray(values, dtype=float)
    n, m = x.shape
    out = np.full((m, m), math.nan)
    if n == 0 or m < 2 or permutations < 1:
        return out
    x = _scaled(x, _exponent(x))  # the ranges' order does not see the scale
    with np.errstate(all="ignore"):
        return _tukey(x, n, m, permutations, seed, out)


def _tukey(x, n: int, m: int, permutations: int, seed: int, out):
    np = _np()
    means = x.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    tolerance = _TOLERANCE * float(np.abs(x).max())
    ranges = np.empty(permutations)
    rng = np.random.default_rng([seed, TUKEY])
    done = 0
    for rows in _blocks(permutations, n * m):
        order = rng.random((rows, n, m)).argsort(axis=2)
        shuffled = np.take_along_axis(np.broadcast_to(x, (rows, n, m)), order, axis=2)
        run_means = shuffled.mean(axis=1)
        ranges[done:done + rows] = run_means.max(axis=1) - run_means.min(axis=1)
        done += rows
    ranges.sort()
    for i in range(m):
        for j in range(m):
            if i != j:
                at_least = permutations - int(np.searchsorted(ranges, observed[i, j] - tolerance, side="left"))
                out[i, j] = (at_least + 1) / (permutations + 1)
    return out


def adjust(pvalues: Sequence[float], method: str) -> list[float]:
    """p-values adjusted for multiple comparisons: holm (step-down, family-wise), bonferroni,
    benjamini-hochberg (step-up, false discovery rate) or none; nan values are left out of the
    family and stay nan."""
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {method!r}")
    known = [(p, i) for i, p in enumerate(pvalues) if not math.isnan(p)]
    out = [math.nan] * len(pvalues)
    m = len(known)
    if method == "none":
        for p, i in known:
            out[i] = p
        return out
    if method == "bonferroni":
        for p, i in known:
            out[i] = min(1.0, m * p)
        return out
    ordered = sorted(known)  # ties keep their input order
    if method == "holm":
        running = 0.0
        for k, (p, i) in enumerate(ordered):
            running = max(running, min(1.0, (m - k) * p))
            out[i] = running
        return out
    running = 1.0  # benjamini-hochberg, from the largest p down
    for k in range(m - 1, -1, -1):
        p, i = ordered[k]
        running = min(running, m * p / (k + 1))
        out[i] = min(1.0, running)
    return out
