"""trecgain.stats, the statistics of `trecgain compare`: against scipy, exact enumeration and
references written here with plain loops from the documented procedures.

No expected value is copied from trecgain's own output: each comes from scipy, from a loop in
this file, from a hand computation, or from the design notes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as sps

from trecgain import stats


def fixed_pair(n: int, seed: int = 7, shift: float = 0.03) -> tuple[np.ndarray, np.ndarray]:
    """Two runs' per-query values in [0, 1], the second a little better, some queries tied."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.0, 1.0, n).round(4)
    b = np.clip(a + rng.normal(shift, 0.12, n), 0.0, 1.0).round(4)
    b[::7] = a[::7]  # ties
    return a, b


# ---------------------------------------------------------------- the t-test


@pytest.mark.parametrize("n, seed", [(5, 1), (25, 2), (100, 3)])
def test_t_test_and_interval_against_scipy(n, seed):
    a, b = fixed_pair(n, seed)
    t, p, low, high = stats.paired_t(b - a, 0.95)
    ref = sps.ttest_rel(b, a)
    assert t == pytest.approx(ref.statistic, rel=1e-12)
    assert p == pytest.approx(ref.pvalue, rel=1e-10)
    d = b - a
    half = sps.t.ppf(0.975, n - 1) * d.std(ddof=1) / math.sqrt(n)
    assert (low, high) == pytest.approx((d.mean() - half, d.mean() + half), rel=1e-12)
    ci = ref.confidence_interval(0.95)  # scipy's own interval, where it has one
    assert (low, high) == pytest.approx((ci.low, ci.high), rel=1e-10)
    _, _, low99, high99 = stats.paired_t(d, 0.99)
    assert low99 < low and high99 > high


def test_t_test_limits():
    assert all(math.isnan(x) for x in stats.paired_t([0.5]))
    assert stats.paired_t([0.0, 0.0, 0.0]) == (0.0, 1.0, 0.0, 0.0)
    t, p, low, high = stats.paired_t([0.25, 0.25, 0.25])
    assert t == math.inf and p == 0.0 and low == high == 0.25


def test_effect_size_and_wins():
    d = np.array([0.2, -0.1, 0.0, 0.3, 0.05])
    assert stats.effect_size(d) == pytest.approx(d.mean() / np.std(d, ddof=1), rel=1e-14)
    assert stats.wins_ties_losses(d) == (3, 1, 1)
    assert math.isnan(stats.effect_size([0.0, 0.0]))


def test_wilcoxon_against_scipy():
    a, b = fixed_pair(40, 11)
    assert stats.wilcoxon(b - a) == pytest.approx(sps.wilcoxon(b, a).pvalue, rel=1e-12)
    assert stats.wilcoxon([0.0, 0.0]) == 1.0


# ---------------------------------------------------------------- the randomization test


def exact_sign_flip_p(d: np.ndarray) -> float:
    """Every one of the 2^n sign vectors, counted by hand."""
    observed = abs(d.sum())
    tolerance = 1e-9 * np.abs(d).max()
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(d)):
        if abs(float(np.dot(signs, d))) >= observed - tolerance:
            hits += 1
    return hits / 2 ** len(d)


@pytest.mark.parametrize("n, seed, shift", [(4, 1, 0.1), (8, 2, 0.05), (10, 3, 0.08), (12, 4, 0.06), (12, 5, 0.0)])
def test_randomization_against_exact_enumeration(n, seed, shift):
    a, b = fixed_pair(n, seed, shift)
    d = b - a
    exact = exact_sign_flip_p(d)
    permutations = 40000
    [(p, se)] = stats.randomization([d], permutations, seed=123)
    # p = (b + 1) / (N + 1) estimates the exact p within a few Monte-Carlo standard errors
    assert abs(p - exact) <= 4 * math.sqrt(exact * (1 - exact) / permutations) + 1 / (permutations + 1)
    assert se == pytest.approx(math.sqrt(p * (1 - p) / permutations))


def test_randomization_p_is_never_zero():
    d = np.linspace(0.1, 0.5, 12)  # every query better: exactly 2 of the 4096 flips are as extreme
    assert exact_sign_flip_p(d) == 2 / 4096
    [(p, _)] = stats.randomization([d], 1000, seed=5)
    assert p >= 1 / 1001


@pytest.mark.parametrize("n, seed", [(30, 21), (60, 22)])
def test_randomization_against_scipy_permutation_test(n, seed):
    a, b = fixed_pair(n, seed, 0.02)
    resamples = 40000
    ref = sps.permutation_test((b, a), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
                               n_resamples=resamples, alternative="two-sided", random_state=seed)
    [(p, se)] = stats.randomization([b - a], resamples, seed=seed)
    assert 0.005 < ref.pvalue < 0.9  # a p-value worth comparing
    se_ref = math.sqrt(ref.pvalue * (1 - ref.pvalue) / resamples)
    assert abs(p - ref.pvalue) <= 4 * math.hypot(se, se_ref) + 2 / resamples


def test_randomization_is_documented_procedure():
    """The sign flips are rng.random(n) < 0.5, row after row, from default_rng([seed, 0])."""
    a, b = fixed_pair(9, 4)
    d = b - a
    rng = np.random.default_rng([77, 0])
    hits = sum(abs(np.where(rng.random(9) < 0.5, -d, d).sum()) >= abs(d.sum()) - 1e-9 * np.abs(d).max()
               for _ in range(3000))
    [(p, _)] = stats.randomization([d], 3000, seed=77)
    assert p == (hits + 1) / 3001


# ---------------------------------------------------------------- the bootstrap


def reference_bootstrap(d: np.ndarray, samples: int, seed: int, confidence: float) -> tuple[float, float]:
    """trecgain.stats's documented procedure, one resample at a time."""
    rng = np.random.default_rng([seed, 1])
    n = len(d)
    means = []
    for _ in range(samples):
        picks = np.minimum(np.floor(rng.random(n) * n).astype(int), n - 1)
        means.append(sum(d[k] for k in picks) / n)
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


@pytest.mark.parametrize("n, samples", [(12, 3000), (300, 10000)])  # 300 x 10000: drawn in two blocks
def test_bootstrap_against_seeded_reference(n, samples):
    a, b = fixed_pair(n, 31)
    c = np.clip(a - 0.02, 0, 1)
    got = stats.bootstrap([b - a, c - a], samples, seed=2024, confidence=0.95)
    for vector, interval in zip((b - a, c - a), got):  # each its own reference: common resamples
        assert interval == pytest.approx(reference_bootstrap(vector, samples, 2024, 0.95), abs=1e-12)


def test_bootstrap_interval_covers_the_mean():
    a, b = fixed_pair(50, 8)
    [(low, high)] = stats.bootstrap([b - a], 5000, seed=1, confidence=0.9)
    assert low < (b - a).mean() < high


# ---------------------------------------------------------------- corrections


PVALUES = [0.01, 0.04, 0.03, 0.005, 0.2]


def test_holm_by_hand():
    # sorted 0.005 0.01 0.03 0.04 0.2 times 5 4 3 2 1: 0.025 0.04 0.09 0.08 0.2, then running maxima
    assert stats.adjust(PVALUES, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.2])
    assert stats.adjust([0.6, 0.7], "holm") == pytest.approx([1.0, 1.0])


def test_benjamini_hochberg_by_hand():
    # sorted p times 5/k: 0.025 0.025 0.05 0.05 0.2, then running minima from the largest
    assert stats.adjust(PVALUES, "benjamini-hochberg") == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.2])
    assert stats.adjust([0.6, 0.7], "benjamini-hochberg") == pytest.approx([0.7, 0.7])


def test_bonferroni_none_and_nan_by_hand():
    assert stats.adjust(PVALUES, "bonferroni") == pytest.approx([0.05, 0.2, 0.15, 0.025, 1.0])
    assert stats.adjust(PVALUES, "none") == PVALUES
    out = stats.adjust([0.02, math.nan, 0.04], "holm")  # nan is not part of the family
    assert out[0] == pytest.approx(0.04) and math.isnan(out[1]) and out[2] == pytest.approx(0.04)


# ---------------------------------------------------------------- randomized Tukey HSD


def reference_tukey(x: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    """Plain loops: each permutation reorders each query's values across the runs (the order of
    rng.random(m)), and the range of the run means is recorded."""
    n, m = x.shape
    rng = np.random.default_rng([seed, 2])
    ranges = []
    for _ in range(permutations):
        sums = [0.0] * m
        for q in range(n):
            order = np.argsort(rng.random(m))
            for run in range(m):
                sums[run] += x[q, order[run]]
        means = [s / n for s in sums]
        ranges.append(max(means) - min(means))
    tolerance = 1e-9 * np.abs(x).max()
    out = np.full((m, m), math.nan)
    col = x.mean(axis=0)
    for i in range(m):
        for j in range(m):
            if i != j:
                hits = sum(1 for r in ranges if r >= abs(col[i] - col[j]) - tolerance)
                out[i, j] = (hits + 1) / (permutations + 1)
    return out


def test_tukey_hsd_against_loops():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (20, 4)).round(3)
    x[:, 3] += 0.5
    got = stats.tukey_hsd(x, 1500, seed=9)
    ref = reference_tukey(x, 1500, seed=9)
    assert np.allclose(got, ref, equal_nan=True, rtol=0, atol=1e-15)
    assert got[0, 3] == got[3, 0] and got[0, 3] < 0.05  # the shifted run differs


def test_tukey_with_two_runs_is_the_randomization_test():
    a, b = fixed_pair(20, 17, 0.05)
    tukey = stats.tukey_hsd(np.column_stack([a, b]), 20000, seed=1)[0, 1]
    [(p, se)] = stats.randomization([b - a], 20000, seed=2)
    assert abs(tukey - p) <= 4 * math.sqrt(2) * se + 1e-4


def test_tukey_hsd_is_more_conservative_than_one_pair():
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 1, (30, 5))
    x[:, 1] += 0.08
    tukey = stats.tukey_hsd(x, 5000, seed=3)[0, 1]
    [(p, _)] = stats.randomization([x[:, 1] - x[:, 0]], 5000, seed=3)
    assert tukey > p
