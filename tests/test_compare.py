"""`trecgain compare` and trecgain.compare: the statistics against scipy, exact enumeration and
references written here with plain loops from the documented procedures; the means against
the main command; the query set, the formats, the errors, the design notes' X / Y reversal
and nDCG@k figure, and the plot.

No expected value is copied from trecgain's own output: each comes from scipy, from a loop in
this file, from a hand computation, or from the design notes."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import sys

import numpy as np
import pytest
from scipy import stats as sps

import trecgain
from trecgain import Evaluator, TrecgainError
from trecgain.comparison import stats
from trecgain.comparison import DEFAULT_SEED

from conftest import ROOT, run_cli

R03 = ROOT / "testdata" / "compare" / "robust03"
QRELS = str(R03 / "qrels.txt.gz")
RUNS = [str(R03 / f"{name}.txt.gz") for name in ("uwmtCR0", "aplrob03a", "pircRBa1")]
NOTES = ROOT / "testdata" / "compare" / "design-notes"
EXAMPLE = ROOT / "testdata" / "example"


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


# ---------------------------------------------------------------- the library on real runs


@pytest.fixture(scope="module")
def r03():
    return trecgain.compare(QRELS, RUNS, measures=["map", "P.10", "ndcg_cut.10"], permutations=4000, bootstrap=4000,
                            wilcoxon=True)


def per_query(run: str, measure: str, **options) -> dict:
    values = Evaluator(QRELS, measures=[measure], **options).evaluate(run).per_query
    return values


def test_means_are_the_main_commands_all_values(r03):
    specs = {"map": "map", "P_10": "P.10", "ndcg_cut_10": "ndcg_cut.10"}
    for m in r03.measures:
        for run, mean in zip(RUNS, m.means):  # full precision: Result.aggregate
            assert mean == Evaluator(QRELS, measures=[specs[m.line]]).evaluate(run).aggregate[m.line]
    text = run_cli(["compare", "--permutations", "200", "--bootstrap", "200", QRELS, *RUNS])
    assert text.rc == 0
    table = [line.split() for line in text.stdout.decode().split("letters:")[0].splitlines()[3:]]
    assert [row[:2] for row in table[1:]] == [["a", "uwmtCR0"], ["b", "aplrob03a"], ["c", "pircRBa1"]]
    for row, run in zip(table[1:], RUNS):
        for spec in specs.values():  # 4 decimals: the main command's text, as printed
            main = run_cli(["-m", spec, QRELS, run]).stdout.decode()
            value = main.split()[-1]  # "map  all  0.2418"
            column = table[0].index(main.split()[0]) + 1  # the header has no label column
            means = [cell for cell in row[2:] if "." in cell]
            assert means[column - 2] == value


def test_paired_statistics_use_the_per_query_values(r03):
    line = "map"
    base, other = per_query(RUNS[0], "map"), per_query(RUNS[2], "map")
    qids = sorted(base)
    a = np.array([base[q][line] for q in qids])
    b = np.array([other[q][line] for q in qids])
    pair = next(p for p in r03.measure(line).pairs if (p.a, p.b) == (0, 2))
    assert pair.n == 100 and pair.diff == pytest.approx((b - a).mean(), abs=1e-15)
    ref = sps.ttest_rel(b, a)
    assert pair.t == pytest.approx(ref.statistic, rel=1e-10) and pair.p["t"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert pair.p["wilcoxon"] == pytest.approx(sps.wilcoxon(b, a).pvalue, rel=1e-12)
    assert (pair.wins, pair.ties, pair.losses) == (int((b > a).sum()), int((b == a).sum()), int((b < a).sum()))
    assert pair.effect == pytest.approx((b - a).mean() / (b - a).std(ddof=1), rel=1e-10)
    assert pair.ci_bootstrap == pytest.approx(reference_bootstrap(b - a, 4000, DEFAULT_SEED, 0.95), abs=1e-12)
    largest = sorted(qids, key=lambda q: -abs(other[q][line] - base[q][line]))[:5]
    assert [q for q, *_ in pair.largest] == largest


def test_holm_across_a_measures_comparisons(r03):
    for m in r03.measures:
        raw = [p.p["randomization"] for p in m.pairs]
        assert [p.adjusted["randomization"] for p in m.pairs] == pytest.approx(stats.adjust(raw, "holm"))
        for p in m.pairs:
            assert p.significant == (p.adjusted["randomization"] < 0.05)


def test_to_dataframe(r03):
    frame = r03.to_dataframe()
    assert len(frame) == 3 * 2
    assert {"measure", "run_a", "run_b", "diff", "ci_t_low", "p_t", "p_randomization", "p_randomization_adjusted",
            "significant"} <= set(frame.columns)
    assert list(frame["run_a"].unique()) == ["uwmtCR0"]


def test_all_pairs_uses_tukey():
    c = trecgain.compare(QRELS, RUNS, measures=["map"], all_pairs=True, permutations=2000, bootstrap=0)
    m = c.measures[0]
    assert [(p.a, p.b) for p in m.pairs] == [(0, 1), (0, 2), (1, 2)]
    x = np.array(m.values)
    ref = stats.tukey_hsd(x, 2000, DEFAULT_SEED)
    for p in m.pairs:
        assert p.p["tukey"] == ref[p.a, p.b]
        assert p.significant == (p.p["tukey"] < 0.05)
    assert c.settings["test"] == "tukey"
    assert all(math.isnan(v) for p in m.pairs for v in p.ci_bootstrap)  # bootstrap=0: none


# ---------------------------------------------------------------- the query set


def test_queries_a_run_lacks():
    qrels = str(EXAMPLE / "qrels.txt")
    full = str(EXAMPLE / "run.txt")
    lacking = {"301": {"FT911-3032": 2.0, "LA051790-0138": 1.0}, "303": {"FBIS4-26474": 1.0}}
    c = trecgain.compare(qrels, [full, lacking], measures=["map"], permutations=100, bootstrap=100)
    assert c.qids == ["301", "303"] and c.runs[1].lacks == 1
    assert any("every run has" in n and "lacks 1" in n for n in c.notes)
    assert c.measures[0].means[0] == Evaluator(qrels, measures=["map"]).evaluate(full).aggregate["map"]  # 3 queries
    complete = trecgain.compare(qrels, [full, lacking], measures=["map"], complete=True, permutations=100,
                                bootstrap=100)
    assert complete.qids == ["301", "302", "303"]
    ref = Evaluator(qrels, measures=["map"], complete=True).evaluate(lacking)
    assert [row[1] for row in complete.measures[0].values] == [ref.per_query[q]["map"] for q in complete.qids]
    assert complete.measures[0].values[1][1] == 0.0  # 302, missing, scores 0
    for k, m in enumerate(complete.measures[0].means):
        assert m == pytest.approx(np.mean([row[k] for row in complete.measures[0].values]), abs=1e-15)
    out = run_cli(["compare", "-c", "-m", "map", "--permutations", "50", qrels, full, "-"],
                  stdin=b"301 Q0 FT911-3032 1 2 x\n303 Q0 FBIS4-26474 1 1 x\n")
    assert out.rc == 0 and "lacks 1" in out.stderr and out.stderr.startswith("trecgain: note: with -c")


@pytest.mark.parametrize("compat", ["10", "9"])
def test_complete_means_match_per_query_values(compat):
    qrels = str(EXAMPLE / "qrels.txt")
    lacking = {"301": {"FT911-3032": 2.0}, "999": {"x": 1.0}}
    c = trecgain.compare(qrels, [str(EXAMPLE / "run.txt"), lacking], measures=["official", "ndcg_cut.5", "recall.10"],
                         complete=True, compat=compat, permutations=10, bootstrap=0)
    for m in c.measures:
        for k, mean in enumerate(m.means):
            assert mean == pytest.approx(sum(row[k] for row in m.values) / len(m.values), abs=1e-14)


def test_nickname_lines_that_are_no_mean_are_left_out():
    c = trecgain.compare(str(EXAMPLE / "qrels.txt"), [str(EXAMPLE / "run.txt")] * 2, measures=["official"],
                         permutations=10, bootstrap=0)
    keys = [m.key for m in c.measures]
    assert "map" in keys and "P_10" in keys and "num_q" not in keys and "gm_map" not in keys and "runid" not in keys
    assert any("leaves out runid, num_q" in n and "gm_map" in n for n in c.notes)


@pytest.mark.parametrize("measure", ["gm_map", "num_rel", "runid", "relstring", "gm_bpref"])
def test_measures_that_are_no_mean_are_refused(measure):
    with pytest.raises(TrecgainError, match="compare needs a mean over queries"):
        trecgain.compare(str(EXAMPLE / "qrels.txt"), [str(EXAMPLE / "run.txt")] * 2, measures=[measure])


# ---------------------------------------------------------------- the design notes


def test_design_notes_x_y_reversal():
    """dcg-and-ndcg.txt: X wins under exponential gain, Y under linear, at nDCG@3 and nDCG@6."""
    runs = [str(NOTES / f"{r}.txt") for r in "WXY"]
    c = trecgain.compare(str(NOTES / "qrels.txt"), runs, measures=["ndcg_cut.3,6"], global_gains="linear,exp",
                         permutations=100, bootstrap=0)
    means = {m.key: [round(v, 3) for v in m.means] for m in c.measures}
    assert means["ndcg_cut_3 (linear)"][1:] == [0.509, 0.638]
    assert means["ndcg_cut_3 (exp)"][1:] == [0.542, 0.418]
    assert means["ndcg_cut_6 (linear)"][1:] == [0.699, 0.708]
    assert means["ndcg_cut_6 (exp)"][1:] == [0.672, 0.576]
    xy = [r for r in c.reversals if (r.a, r.b) == (1, 2)]
    assert [r.line for r in xy] == ["ndcg_cut_3", "ndcg_cut_6"]
    assert all(r.reversed and [q for q, *_ in r.queries] == ["1"] for r in xy)
    assert all(r.schemes == ("linear", "exp") for r in c.reversals)
    text = run_cli(["compare", "--global-gains", "linear,exp", "-m", "ndcg_cut.3,6", "--permutations", "100",
                    str(NOTES / "qrels.txt"), *runs]).stdout.decode()
    assert "ndcg_cut_3  c - b: linear +0.1293, exp -0.1244 (the means reverse)" in text


def test_design_notes_cutoff_figure():
    """The worked example's nDCG@k for k = 1..6, both gains (the notes' table, three decimals)."""
    runs = [str(NOTES / f"{r}.txt") for r in "WXY"]
    c = trecgain.compare(str(NOTES / "qrels.txt"), runs, measures=["ndcg_cut.6"], global_gains=["linear", "exp"],
                         permutations=10, bootstrap=0)
    curves = c.cutoff_curve(6)
    assert [round(v, 3) for v in curves["linear"][0]] == [1.000, 0.871, 0.978, 0.853, 0.861, 0.961]
    assert [round(v, 3) for v in curves["exp"][0]] == [1.000, 0.779, 0.959, 0.872, 0.876, 0.949]
    assert c.default_depth() == 6


def test_design_notes_180_orderings_1002_reversals():
    """The six judged documents in their 180 distinguishable orders: 16,110 pairs, of which the
    two gain formulas order 1,002 oppositely at nDCG@6."""
    grades = [3, 2, 3, 0, 1, 2]
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    orders = {}
    for p in itertools.permutations(range(6)):
        orders.setdefault(tuple(grades[i] for i in p), p)
    runs = [{"q": {f"d{i}": float(10 - r) for r, i in enumerate(p)}} for p in orders.values()]
    assert len(runs) == 180 and len(runs) * 179 // 2 == 16110
    c = trecgain.compare(qrels, runs, measures=["ndcg_cut.6"], global_gains="linear,exp", permutations=1, bootstrap=0,
                         names=[str(k) for k in range(180)])
    assert sum(r.reversed for r in c.reversals) == 1002


# ---------------------------------------------------------------- the command: formats and seeds


def cli(*args: str, stdin: bytes = b""):
    return run_cli(["compare", "--permutations", "500", "--bootstrap", "500", *args, QRELS, *RUNS], stdin)


def test_every_format_parses():
    out = cli("--format", "json")
    data = json.loads(out.stdout)
    assert data["settings"]["seed"] == DEFAULT_SEED and [r["name"] for r in data["runs"]] == ["uwmtCR0", "aplrob03a",
                                                                                             "pircRBa1"]
    assert len(data["measures"]) == 3 and len(data["measures"][0]["comparisons"]) == 2
    rows = list(csv.DictReader(io.StringIO(cli("--format", "csv").stdout.decode())))
    assert len(rows) == 6 and {r["measure"] for r in rows} == {"map", "P_10", "ndcg_cut_10"}
    assert all(float(r["ci_t_low"]) <= float(r["diff"]) <= float(r["ci_t_high"]) for r in rows)
    md = cli("--format", "markdown").stdout.decode()
    assert "| a | uwmtCR0 |" in md and "|---|---|---:|---:|---:|" in md
    latex = cli("--format", "latex").stdout.decode()
    assert "\\toprule" in latex and "\\midrule" in latex and "\\bottomrule" in latex
    for measure, line in (("map", "map"), ("P.10", "P_10"), ("ndcg_cut.10", "ndcg_cut_10")):
        best = max(Evaluator(QRELS, measures=[measure]).evaluate(r).aggregate[line] for r in RUNS)
        assert f"\\textbf{{{best:.4f}}}" in latex
    assert "uwmtCR0" in latex and "P\\_10" in latex
    text = cli().stdout.decode()
    assert f"seed {DEFAULT_SEED}" in text and "letters:" in text


def test_same_seed_same_bytes():
    for fmt in ("text", "json"):
        first, second = cli("--format", fmt, "--seed", "7", "--all-pairs"), cli("--format", fmt, "--seed", "7",
                                                                               "--all-pairs")
        assert first.rc == 0 and first.stdout == second.stdout


RESAMPLED = {"ci_bootstrap", "se_randomization", "significant", "better"}


def _without_resampling(data: dict) -> dict:
    data["settings"].pop("seed")
    for m in data["measures"]:
        m.pop("better_than")
        for c in m["comparisons"]:
            for key in RESAMPLED:
                c.pop(key)
            for table in (c["p"], c["p_adjusted"]):
                table.pop("randomization")
                table.pop("tukey", None)
    return data


def test_another_seed_changes_only_resampled_numbers():
    one = json.loads(cli("--format", "json", "--seed", "1", "--all-pairs").stdout)
    two = json.loads(cli("--format", "json", "--seed", "2", "--all-pairs").stdout)
    assert one != two
    assert _without_resampling(one) == _without_resampling(two)
    assert one["measures"][0]["comparisons"][0]["p"]["t"] == two["measures"][0]["comparisons"][0]["p"]["t"]


# ---------------------------------------------------------------- the command: errors


@pytest.mark.parametrize("args, rc, says", [
    (["compare"], 2, "expected a qrels file and at least two run files"),
    (["compare", QRELS, RUNS[0]], 2, "at least two run files"),
    (["compare", "--format", "xml", QRELS, *RUNS], 2, "--format takes"),
    (["compare", "--permutations", "many", QRELS, *RUNS], 2, "--permutations takes a whole number"),
    (["compare", "--alpha", "5", QRELS, *RUNS], 2, "--alpha takes a number between 0 and 1"),
    (["compare", "--correction", "sidak", QRELS, *RUNS], 2, "--correction takes"),
    (["compare", "--plot", "out.gif", QRELS, *RUNS], 2, "--plot takes a file name ending in .png"),
    (["compare", "--nonsense", QRELS, *RUNS], 2, "unknown option '--nonsense'"),
    (["compare", QRELS, RUNS[0], "/no/such/run"], 1, "/no/such/run"),
    (["compare", "-m", "gm_map", QRELS, *RUNS], 1, "compare needs a mean over queries"),
    (["compare", "-m", "nosuch", QRELS, *RUNS], 1, "unknown measure 'nosuch'"),
    (["compare", "--test", "randomization", "--permutations", "0", QRELS, *RUNS], 1, "needs permutations"),
    (["compare", "--plot-measure", "P_5", "--plot", "/tmp/never.png", QRELS, *RUNS], 1, "--plot-measure"),
])
def test_errors_are_one_line(args, rc, says):
    out = run_cli(args)
    assert out.rc == rc, out.stderr
    assert out.stdout == b""
    assert out.stderr.count("\n") == 1 and says in out.stderr and out.stderr.startswith("trecgain: ")


@pytest.mark.parametrize("module, args, says", [
    ("scipy", [], "pip install 'trecgain[stats]'"),
    ("matplotlib", ["--plot", "x.png"], "pip install 'trecgain[plot]'"),
])
def test_missing_extras_are_one_line(monkeypatch, module, args, says):
    for name in list(sys.modules):
        if name == module or name.startswith(module + "."):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, module, None)
    out = run_cli(["compare", *args, QRELS, *RUNS])
    assert out.rc == 1 and out.stdout == b"" and out.stderr.count("\n") == 1 and says in out.stderr


def test_help():
    out = run_cli(["compare", "-h"])
    assert out.rc == 0 and b"--permutations" in out.stdout and b"--all-pairs" in out.stdout
    assert b"compare" in run_cli(["-h"]).stdout


def test_compare_is_the_function_whatever_was_imported():
    import trecgain.cli.compare  # noqa: F401
    import trecgain.comparison  # noqa: F401
    import trecgain.comparison.render  # noqa: F401

    assert trecgain.compare is trecgain.comparison.compare and "compare" in trecgain.__all__


def test_library_checks_its_arguments():
    qrels, run = str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "run.txt")
    for kwargs, says in (({"runs": [run]}, "at least two runs"), ({"correction": "x"}, "correction must be"),
                         ({"alpha": 1.5}, "alpha must be"), ({"permutations": -1}, "permutations must be"),
                         ({"test": "z"}, "test must be"), ({"baseline": 2}, "baseline must be"),
                         ({"frobnicate": 1}, "no option 'frobnicate'"), ({"names": ["x"]}, "names: 1 names")):
        args = {"runs": [run, run], **kwargs}
        with pytest.raises(TrecgainError, match=says):
            trecgain.compare(qrels, **args)


# ---------------------------------------------------------------- the plot


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_plot_formats(tmp_path, suffix, magic):
    path = tmp_path / f"figure{suffix}"
    out = cli("--plot", str(path), "-m", "map", "-m", "ndcg_cut.10")
    assert out.rc == 0 and out.stdout
    assert path.read_bytes().startswith(magic)


def test_plot_of_the_design_notes(tmp_path):
    path = tmp_path / "notes.png"
    runs = [str(NOTES / f"{r}.txt") for r in "WXY"]
    c = trecgain.compare(str(NOTES / "qrels.txt"), runs, measures=["ndcg_cut.6"], global_gains="linear,exp",
                         permutations=10, bootstrap=0)
    c.plot(str(path))
    assert path.stat().st_size > 10000


# ---------------------------------------------------------------- robustness (issue 23)


# Rndcg.1=0 gives grade 1 no gain: a query whose only relevant documents have grade 1 has an
# ideal of 0 and scores 0/0, nan (trecgain -m Rndcg.1=0 prints -nan there).  Queries 1 and 3
# are such queries; on 2 and 4 run a ranks the grade-2 document first, run b does not.
NAN_QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 e1 2\n2 0 e2 1\n3 0 f1 1\n4 0 g1 2\n4 0 g2 0\n"
NAN_A = "1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n2 Q0 e1 1 3 a\n2 Q0 e2 2 2 a\n3 Q0 f1 1 1 a\n4 Q0 g1 1 1 a\n4 Q0 g2 2 0 a\n"
NAN_B = "1 Q0 d2 1 3 b\n1 Q0 d1 2 2 b\n2 Q0 e2 1 3 b\n2 Q0 x 2 2 b\n3 Q0 x 1 1 b\n4 Q0 g2 1 1 b\n4 Q0 g1 2 0 b\n"
ALL_NAN_QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 e1 1\n2 0 e2 0\n3 0 f1 1\n"  # grade 1 only: every query 0/0


@pytest.fixture
def nan_files(tmp_path):
    files = {}
    for name, text in (("qrels", NAN_QRELS), ("all_nan", ALL_NAN_QRELS), ("a", NAN_A), ("b", NAN_B)):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text(text)
    return {k: str(v) for k, v in files.items()}


def test_nan_differences_are_left_out_of_the_statistics(nan_files):
    f = nan_files
    values = {run: Evaluator(f["qrels"], measures=["Rndcg.1=0"]).evaluate(f[run]).per_query for run in "ab"}
    assert all(math.isnan(values[r][q]["Rndcg_1=0"]) for r in "ab" for q in "13")  # the premise: 0/0 on 1, 3
    kept = ["2", "4"]
    d = np.array([values["b"][q]["Rndcg_1=0"] - values["a"][q]["Rndcg_1=0"] for q in kept])
    assert np.all(np.isfinite(d)) and np.all(d < 0)
    c = trecgain.compare(f["qrels"], [f["a"], f["b"]], measures=["Rndcg.1=0"], permutations=300, bootstrap=300)
    pair = c.measures[0].pairs[0]
    assert pair.n == 2 and (pair.wins, pair.ties, pair.losses) == (0, 0, 2)
    assert pair.diff == pytest.approx(d.mean(), abs=1e-15)
    assert pair.p["randomization"] == stats.randomization([d], 300, DEFAULT_SEED)[0][0]
    assert pair.ci_bootstrap == pytest.approx(stats.bootstrap([d], 300, DEFAULT_SEED)[0], abs=1e-15)
    assert not any(math.isnan(v) for v in (pair.diff, pair.p["t"], pair.p["randomization"]))
    [note] = [n for n in c.notes if "Rndcg_1=0" in n]
    assert "2 of the 4 queries" in note and "1, 3" in note
    assert [row[0] for row in c.measures[0].values][1] == values["a"]["2"]["Rndcg_1=0"]  # values: every query


def test_a_measure_without_a_finite_difference_has_no_test_marker_or_ranking(nan_files):
    f = nan_files
    out = run_cli(["compare", "-m", "Rndcg.1=0", "-m", "map", "--permutations", "300", "--bootstrap", "300",
                   f["all_nan"], f["a"], f["b"]])
    assert out.rc == 0
    text = out.stdout.decode()
    section = text.split("\nRndcg_1=0  (3 of the 3 queries left out: a value is not a finite number)\n")[1]
    section = section.split("\n\n")[0]
    assert "*" not in section and "1.0e-04" not in section and "0/0/0" in section  # no p, no marker, nothing counted
    table = text.split("letters:")[0].splitlines()
    assert table[-2].split()[:4] == ["a", "a", "1.0000", "nan"] and len(table[-2].split()) == 4  # no letter
    assert any(line.startswith("trecgain: note: Rndcg_1=0") and "3 of the 3 queries" in line
               for line in out.stderr.splitlines())
    data = json.loads(run_cli(["compare", "-f", "json", "-m", "Rndcg.1=0", "--permutations", "300", f["all_nan"],
                               f["a"], f["b"]]).stdout)
    [m] = data["measures"]
    [pair] = m["comparisons"]
    assert pair["p"] == {"t": None, "randomization": None} and pair["p_adjusted"] == {"t": None, "randomization": None}
    assert pair["significant"] is False and pair["better"] is None and pair["queries"] == 0
    assert m["better_than"] is None and m["best"] is None
    assert (pair["wins"], pair["ties"], pair["losses"]) == (0, 0, 0)


def test_library_nan_measure_has_no_winner(nan_files):
    f = nan_files
    c = trecgain.compare(f["all_nan"], [f["a"], f["b"]], measures=["Rndcg.1=0"], all_pairs=True, permutations=300,
                         bootstrap=0)
    m = c.measures[0]
    assert m.best is None and m.beats(0) == [] and m.beats(1) == []
    assert all(math.isnan(v) for v in m.pairs[0].p.values())


@pytest.fixture
def constant_difference():
    """b - a is 1 on both queries: the t statistic and the effect size are infinite."""
    qrels = {"1": {"d1": 1}, "2": {"d1": 1}}
    a = {"1": {"z": 2.0, "d1": 1.0}, "2": {"z": 2.0, "d1": 1.0}}
    b = {"1": {"d1": 2.0, "z": 1.0}, "2": {"d1": 2.0, "z": 1.0}}
    return trecgain.compare(qrels, [a, b], measures=["P.1"], permutations=50, bootstrap=50)


def test_json_non_finite_numbers_are_null(constant_difference):
    pair = constant_difference.measures[0].pairs[0]
    assert pair.t == math.inf and pair.effect == math.inf  # the premise
    data = json.loads(constant_difference.to_json())
    [comparison] = data["measures"][0]["comparisons"]
    assert comparison["t"] is None and comparison["effect_size"] is None

    def strings(v):
        if isinstance(v, dict):
            return [s for x in v.values() for s in strings(x)]
        if isinstance(v, list):
            return [s for x in v for s in strings(x)]
        return [v] if isinstance(v, str) else []

    assert not {"inf", "-inf", "nan", "+inf"} & set(strings(data))


def test_csv_and_text_spell_infinities_one_way(constant_difference):
    row = next(csv.DictReader(io.StringIO(constant_difference.to_csv())))
    assert row["t"] == "inf" and row["effect_size"] == "inf" and float(row["t"]) == math.inf
    text = constant_difference.to_text()
    assert "+inf" in text and "inf " not in text.replace("+inf", "")


def test_overflowing_squares_give_the_real_interval_and_no_warning():
    """Values near 1e300 (--global-gains 1=1e300,2=-1e300): squaring the differences overflows;
    the interval is the scaled computation's, never [-inf, inf], and numpy says nothing."""
    args = ["compare", "-f", "json", "--global-gains", "1=1e300,2=-1e300", "--exact-ideal", "-m", "dcg",
            "--permutations", "200", "--bootstrap", "200", QRELS, *RUNS]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning fails the test, wherever it comes from
        out = run_cli(args)
    assert out.rc == 0 and "Warning" not in out.stderr
    data = json.loads(out.stdout)
    c = trecgain.compare(QRELS, RUNS[:2], measures=["dcg"], global_gains="1=1e300,2=-1e300", exact_ideal=True,
                         permutations=10, bootstrap=0)
    d = np.array([row[1] - row[0] for row in c.measures[0].values]) / 1e299  # by hand, scaled
    mean, sd = d.mean(), d.std(ddof=1)
    half = sps.t.ppf(0.975, len(d) - 1) * sd / math.sqrt(len(d))
    first = data["measures"][0]["comparisons"][0]
    assert first["ci_t"] == pytest.approx([(mean - half) * 1e299, (mean + half) * 1e299], rel=1e-9)
    assert first["t"] == pytest.approx(mean / (sd / math.sqrt(len(d))), rel=1e-9) and first["t"] != 0.0
    assert first["effect_size"] == pytest.approx(mean / sd, rel=1e-9)


def test_a_statistic_past_floats_range_is_not_computable():
    import warnings

    d = [8e307, -8e307, 8e307]  # the t interval's upper bound is past 1.8e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t, p, low, high = stats.paired_t(d)
        [(rand, _)] = stats.randomization([d], 100, 1)
        [(blow, bhigh)] = stats.bootstrap([d], 100, 1)
        effect = stats.effect_size(d)
    assert math.isnan(low) and math.isnan(high)  # not computable: never an interval of infinities
    scaled = np.array(d) / 1e307
    assert t == pytest.approx(sps.ttest_rel(scaled, np.zeros(3)).statistic, rel=1e-12)
    assert effect == pytest.approx(scaled.mean() / scaled.std(ddof=1), rel=1e-12)
    assert 0 < rand <= 1 and math.isfinite(blow) and math.isfinite(bhigh)


@pytest.fixture(scope="module")
def small():
    return trecgain.compare(str(EXAMPLE / "qrels.txt"), [str(EXAMPLE / "run.txt")] * 2, measures=["map", "P.5"],
                            permutations=10, bootstrap=0)


def test_measure_unknown_is_a_trecgain_error(small):
    with pytest.raises(TrecgainError, match="no measure 'nope'.*map, P_5"):
        small.measure("nope")
    assert small.measure("P_5").line == "P_5"


@pytest.mark.parametrize("path, says", [(None, "a file name"), (7, "a file name"), (b"x.png", "a file name"),
                                        ("x.gif", "ending in .png, .svg or .pdf"), ("a\0.png", "a file name")])
def test_plot_path_must_be_a_file_name(small, path, says):
    with pytest.raises(TrecgainError, match=says):
        small.plot(path)


def test_plot_refuses_a_directory(small, tmp_path):
    folder = tmp_path / "figures.png"
    folder.mkdir()
    for path in (str(tmp_path) + "/", str(folder), str(folder) + "/"):
        with pytest.raises(TrecgainError, match="directory") as err:
            small.plot(path)
        assert "\n" not in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figures.png"] and not list(folder.iterdir())


def test_plot_accepts_a_path_object(small, tmp_path):
    small.plot(tmp_path / "x.svg")
    assert (tmp_path / "x.svg").read_bytes().startswith(b"<?xml")


@pytest.fixture
def plot_inputs(tmp_path):
    """A qrels and two runs copied into tmp_path, the first run named like a figure."""
    import shutil

    qrels = tmp_path / "qrels.png"
    run_a = tmp_path / "runA.png"
    run_b = tmp_path / "runB.txt"
    shutil.copyfile(EXAMPLE / "qrels.txt", qrels)
    shutil.copyfile(EXAMPLE / "run.txt", run_a)
    shutil.copyfile(EXAMPLE / "run.txt", run_b)
    return tmp_path, str(qrels), str(run_a), str(run_b)


@pytest.mark.parametrize("how", ["run", "qrels", "symlink", "hardlink"])
def test_plot_never_overwrites_an_input(plot_inputs, how):
    import os

    folder, qrels, run_a, run_b = plot_inputs
    target = {"run": run_a, "qrels": qrels}.get(how, str(folder / "link.png"))
    if how == "symlink":
        os.symlink(run_a, target)
    elif how == "hardlink":
        os.link(run_a, target)
    before = {p: open(p, "rb").read() for p in (qrels, run_a, run_b)}
    out = run_cli(["compare", "-m", "map", "--permutations", "20", "--plot", target, qrels, run_a, run_b])
    assert out.rc == 1 and out.stdout == b"" and out.stderr.count("\n") == 1
    assert "--plot" in out.stderr and "input file" in out.stderr
    assert {p: open(p, "rb").read() for p in before} == before


def test_plot_refuses_what_looks_like_a_run(plot_inputs):
    folder, qrels, run_a, run_b = plot_inputs
    other = folder / "old.png"
    other.write_bytes((EXAMPLE / "run.txt").read_bytes())
    out = run_cli(["compare", "-m", "map", "--permutations", "20", "--plot", str(other), qrels, run_b, run_b])
    assert out.rc == 1 and out.stdout == b"" and out.stderr.count("\n") == 1 and "looks like" in out.stderr
    assert other.read_bytes() == (EXAMPLE / "run.txt").read_bytes()


def test_library_plot_refuses_the_comparisons_inputs(plot_inputs):
    folder, qrels, run_a, run_b = plot_inputs
    c = trecgain.compare(qrels, [run_a, run_b], measures=["map"], permutations=10, bootstrap=0)
    before = open(run_a, "rb").read()
    with pytest.raises(TrecgainError, match="input file"):
        c.plot(run_a)
    assert open(run_a, "rb").read() == before


def test_a_failed_plot_leaves_no_file(small, tmp_path, monkeypatch):
    """Written atomically: a figure that fails half-way leaves neither the target nor a temporary file."""
    from matplotlib.figure import Figure

    target = tmp_path / "figure.png"
    target.write_bytes(b"\x89PNG old figure")

    def broken(self, fname, **kwargs):
        fname.write(b"\x89PNG half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(TrecgainError, match="No space left"):
        small.plot(str(target))
    assert target.read_bytes() == b"\x89PNG old figure" and [p.name for p in tmp_path.iterdir()] == ["figure.png"]


def test_plot_notes_come_after_a_plot_failure_not_before():
    """An error is the only line on stderr, even when the comparison had notes to say."""
    out = run_cli(["compare", "-m", "official", "--permutations", "20", "--bootstrap", "0", "--plot-measure", "P_999",
                   "--plot", "/tmp/never-written.png", QRELS, *RUNS])
    assert out.rc == 1 and out.stdout == b"" and out.stderr.count("\n") == 1 and "--plot-measure" in out.stderr


def test_huge_zero_padded_numbers_are_read():
    out = run_cli(["compare", "-m", "map", "--permutations", "0" * 4300 + "20", "--bootstrap", "0" * 5000,
                   "--top", "+" + "0" * 4301 + "1", QRELS, *RUNS])
    assert out.rc == 0, out.stderr
    assert "20 permutations; 0 bootstrap resamples" in out.stdout.decode()


@pytest.fixture(scope="module")
def figure():
    c = trecgain.compare(QRELS, RUNS, measures=["map", "P.10", "ndcg_cut.10"], permutations=200, bootstrap=200)
    return c, c.figure()


def _panels(fig):
    differences = [ax for ax in fig.axes if ax.get_label().startswith("differences ")]
    cutoffs = [ax for ax in fig.axes if ax.get_label() == "cutoffs"]
    return differences, cutoffs


def test_figure_has_one_panel_per_measure_on_one_scale(figure):
    c, fig = figure
    differences, cutoffs = _panels(fig)
    assert [ax.get_label() for ax in differences] == [f"differences {m.key}" for m in c.measures]
    assert len(cutoffs) == 1 and len(fig.axes) == len(c.measures) + 1
    limits = {ax.get_ylim() for ax in differences}
    assert len(limits) == 1  # a shared y-scale
    low, high = limits.pop()
    every = [row[k] - row[0] for m in c.measures for row in m.values for k in range(1, len(c.runs))]
    assert low <= min(every) and high >= max(every)


def test_figure_draws_each_comparisons_interval(figure):
    c, fig = figure
    differences, _ = _panels(fig)
    for ax, m in zip(differences, c.measures):
        for pair in m.pairs:
            name = f"{c.runs[pair.b].label} - {c.runs[pair.a].label}"
            [band] = [p for p in ax.collections if p.get_gid() == f"ci {name}"]
            ys = band.get_paths()[0].vertices[:, 1]
            assert (ys.min(), ys.max()) == pytest.approx(pair.ci_t, abs=1e-12)
            [mean] = [line for line in ax.lines if line.get_gid() == f"mean {name}"]
            assert list(mean.get_ydata()) == pytest.approx([pair.diff] * 2, abs=1e-15)


def test_figure_cutoff_axis_starts_at_zero(figure):
    _, fig = figure
    _, [cutoffs] = _panels(fig)
    low, high = cutoffs.get_ylim()
    assert low <= 0.0 and high >= 1.0 or low <= 0.0 < high


def test_plot_measure_draws_that_measure_only(figure):
    c, _ = figure
    fig = c.figure(measure="P_10")
    differences, cutoffs = _panels(fig)
    assert [ax.get_label() for ax in differences] == ["differences P_10"] and len(cutoffs) == 1
    with pytest.raises(TrecgainError, match="no line 'P_999'"):
        c.figure(measure="P_999")


@pytest.mark.parametrize("tag", ["$\\foo$", "a$b", "$x^2$"])
def test_plot_draws_run_names_with_dollars_as_text(tmp_path, tag):
    """matplotlib reads $...$ as mathematics: a run tagged $\\foo$ ended the command in a traceback."""
    run = tmp_path / "dollar.txt"
    run.write_text("".join(line.rsplit(" ", 1)[0] + f" {tag}\n" for line in (EXAMPLE / "run.txt").read_text()
                           .splitlines()))
    target = tmp_path / "figure.png"
    out = run_cli(["compare", "-m", "ndcg_cut.5", "--permutations", "20", "--plot", str(target),
                   str(EXAMPLE / "qrels.txt"), str(run), str(EXAMPLE / "run.txt")])
    assert out.rc == 0, out.stderr
    assert target.read_bytes().startswith(b"\x89PNG")
    c = trecgain.compare(str(EXAMPLE / "qrels.txt"), [str(run), str(EXAMPLE / "run.txt")], measures=["ndcg_cut.5"],
                         permutations=10, bootstrap=0)
    fig = c.figure()
    fig.canvas.draw()  # the texts are laid out (mathematics parsed) here
    texts = [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()]
    texts += [label for ax in fig.axes for label in ax.get_legend_handles_labels()[1]]
    assert any(tag in t.replace("\\$", "$") for t in texts)


# ---------------------------------------------------------------- the registry of statistical tests


def test_a_statistical_test_registered_is_used_end_to_end():
    """Adding a test is one function and one record: a test-only sign test, registered, is
    chosen by test= and --test, decides the markers, is adjusted and shown, and is gone once
    unregistered."""
    from scipy.stats import binomtest

    from trecgain.comparison import TESTS, Significance, register, unregister

    def sign(trial):
        out = []
        for d in trial.diffs:
            wins, losses = int((d > 0).sum()), int((d < 0).sum())
            out.append(binomtest(wins, wins + losses).pvalue if wins + losses else 1.0)
        return out

    register(Significance("sign", "paired sign test", "sign", sign, lambda trial: trial.test == "sign"))
    try:
        c = trecgain.compare(QRELS, RUNS, measures=["map"], test="sign", permutations=100, bootstrap=0)
        (m,) = c.measures
        for pair in m.pairs:
            d = [row[pair.b] - row[pair.a] for row in m.values]
            wins, losses = sum(x > 0 for x in d), sum(x < 0 for x in d)
            assert pair.p["sign"] == pytest.approx(binomtest(wins, wins + losses).pvalue, rel=1e-12)
            assert (pair.winner is not None) == (pair.adjusted["sign"] < 0.05 and pair.diff != 0)
        assert "paired sign test" in c.to_text() and "p_sign" in c.to_csv()
        out = run_cli(["compare", "--test", "sign", "--permutations", "100", "-m", "map", QRELS, *RUNS])
        assert out.rc == 0 and b"paired sign test" in out.stdout, out.stderr
    finally:
        unregister("sign")
    assert list(TESTS) == ["t", "randomization", "wilcoxon", "tukey"]
    with pytest.raises(TrecgainError, match="test must be one of"):
        trecgain.compare(QRELS, RUNS, measures=["map"], test="sign")
    with pytest.raises(ValueError):
        unregister("t")
