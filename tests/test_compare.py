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
from trecgain import Evaluator, TrecgainError, stats
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
    import trecgain.compare_cli  # noqa: F401
    import trecgain.compare_render  # noqa: F401
    import trecgain.comparison  # noqa: F401

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
