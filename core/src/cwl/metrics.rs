//! cwl_eval's metrics: each one a continuation rule C(i) (the chance of going on from rank
//! i to i + 1), or, for TBG, U-measure and TrAP, a weight rule W(i) from which C follows.
//! One record per metric class of cwl_eval 1.0.12: its class name (as a metrics file names
//! it), its parameters with their defaults, the name it prints under. Each rule keeps
//! cwl_eval's arithmetic and order; docs/cwl.md says each in words.

use std::collections::HashMap;

use super::numeric::{cumsum, math_log, math_pow, np_pow, np_sum, Sparse};
use super::Ranking;

/// One metric class: how a metrics file names it, its parameters (a default, spelled as
/// cwl_eval's source spells it: an int without a point, a float with one), its printed name
/// (Python's `str.format` template over the parameters as given).
pub struct CwlRecord {
    pub class: &'static str,
    pub parameters: &'static [(&'static str, Option<&'static str>)],
    pub name: &'static str,
    pub rule: Rule,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Undefined,
    Precision,
    Rbp,
    Rr,
    Ap,
    TrAp,
    Ndcg,
    Inst,
    Insq,
    Tbg,
    BpmStatic,
    BpmDynamic,
    UMeasure,
    IftGoal,
    IftRate,
    IftGoalRate,
    Nerr8,
    Nerr9,
    Nerr10,
    Nerr11,
    Npv,
    Set,
}

const fn record(
    class: &'static str,
    parameters: &'static [(&'static str, Option<&'static str>)],
    name: &'static str,
    rule: Rule,
) -> CwlRecord {
    CwlRecord {
        class,
        parameters,
        name,
        rule,
    }
}

/// The metric classes of cwl_eval 1.0.12 (every class its metrics file can name).
pub const CWL_RECORDS: &[CwlRecord] = &[
    record("CWLMetric", &[], "Undefined", Rule::Undefined),
    record(
        "PrecisionCWLMetric",
        &[("k", Some("10"))],
        "P@{0}",
        Rule::Precision,
    ),
    record(
        "RBPCWLMetric",
        &[("theta", Some("0.9"))],
        "RBP@{0}",
        Rule::Rbp,
    ),
    record("RRCWLMetric", &[], "RR", Rule::Rr),
    record("APCWLMetric", &[], "AP", Rule::Ap),
    record("TrAPCWLMetric", &[], "TrAP", Rule::TrAp),
    record("NDCGCWLMetric", &[("k", None)], "NDCG-k@{0}", Rule::Ndcg),
    record(
        "INSTCWLMetric",
        &[("T", Some("1.0"))],
        "INST-T={0}",
        Rule::Inst,
    ),
    record(
        "INSQCWLMetric",
        &[("T", Some("1.0"))],
        "INSQ-T={0}",
        Rule::Insq,
    ),
    record(
        "TBGCWLMetric",
        &[("halflife", Some("224"))],
        "TBG-H@{0} ",
        Rule::Tbg,
    ),
    record(
        "BPMCWLMetric",
        &[("T", Some("1.0")), ("K", Some("10"))],
        "BPM-Static-T={0}-K={1}",
        Rule::BpmStatic,
    ),
    record(
        "BPMDCWLMetric",
        &[
            ("T", Some("1")),
            ("K", Some("10")),
            ("hb", Some("1.0")),
            ("hc", Some("1.0")),
            ("gain_med", Some("0.5")),
        ],
        "BPM-Dynamic-T={0}-K={1}-hb={2}-hc={3}",
        Rule::BpmDynamic,
    ),
    record(
        "UMeasureCWLMetric",
        &[("L", Some("1000"))],
        "U-L@{0} ",
        Rule::UMeasure,
    ),
    record(
        "IFTGoalCWLMetric",
        &[("T", None), ("b1", None), ("R1", None)],
        "IFT-C1-T={0}-b1={1}-R1={2}",
        Rule::IftGoal,
    ),
    record(
        "IFTRateCWLMetric",
        &[("A", None), ("b2", None), ("R2", None)],
        "IFT-C2-A={0}-b2={1}-R2={2}",
        Rule::IftRate,
    ),
    record(
        "IFTGoalRateCWLMetric",
        &[
            ("T", None),
            ("b1", None),
            ("R1", None),
            ("A", None),
            ("b2", None),
            ("R2", None),
        ],
        "IFT-C1-C2-T={0}-b1={1}-R1={2}-A={3}-b2={4}-R2={5}",
        Rule::IftGoalRate,
    ),
    record(
        "NERReq8CWLMetric",
        &[("k", None)],
        "NERR-EQ8@k={0}",
        Rule::Nerr8,
    ),
    record(
        "NERReq9CWLMetric",
        &[("k", None)],
        "NERR-EQ9@k={0}",
        Rule::Nerr9,
    ),
    record(
        "NERReq10CWLMetric",
        &[("phi", Some("0.9"))],
        "NERR-EQ10@phi={0}",
        Rule::Nerr10,
    ),
    record(
        "NERReq11CWLMetric",
        &[("T", Some("1.0"))],
        "NERR-EQ11@T={0}",
        Rule::Nerr11,
    ),
    record(
        "NPVCWLMetric",
        &[("rate", Some("0.1"))],
        "NPV-r@{0}",
        Rule::Npv,
    ),
    record(
        "SETCWLMetric",
        &[("beta", Some("0.5")), ("k", Some("10"))],
        "SET-k@{1}-b@{0}",
        Rule::Set,
    ),
];

/// One metric to measure: a rule and its parameters, in the record's order.
#[derive(Clone, Debug)]
pub struct Metric {
    pub rule: Rule,
    pub params: Vec<f64>,
}

impl Metric {
    /// The rule's weights W when it defines them itself (TBG, U-measure, TrAP), else None.
    pub fn own_weights(&self, r: &Ranking) -> Option<Vec<f64>> {
        match self.rule {
            Rule::Tbg => Some(tbg_weights(self.params[0], &r.costs)),
            Rule::UMeasure => Some(umeasure_weights(self.params[0], &r.costs)),
            Rule::TrAp => Some(trap_weights(r)),
            _ => None,
        }
    }

    /// The continuation vector C (length: the depth), or the error cwl_eval would crash on.
    pub fn continuation(&self, r: &Ranking) -> Result<Vec<f64>, String> {
        let p = &self.params;
        let n = r.gains.len();
        Ok(match self.rule {
            Rule::Undefined => vec![1.0; n],
            Rule::Precision => (0..n)
                .map(|i| if (i as f64) < p[0] - 1.0 { 1.0 } else { 0.0 })
                .collect(),
            Rule::Rbp => vec![p[0]; n],
            Rule::Npv => vec![1.0 / (1.0 + p[0]); n],
            Rule::Rr => reciprocal_rank(&r.gains),
            Rule::Ap => average_precision(&r.gains),
            Rule::Ndcg => ndcg(p[0], n),
            Rule::Inst => inst(p[0], unit_gains(&r.gains)?),
            Rule::Insq => (0..n)
                .map(|i| square(insq_ratio(i as f64 + 1.0, p[0])))
                .collect(),
            Rule::BpmStatic => bpm_static(p[0], p[1], r),
            Rule::BpmDynamic => bpm_dynamic(p, r),
            Rule::IftGoal => cumsum(&r.gains)
                .iter()
                .map(|&y| ift_goal(p[0], p[1], p[2], y))
                .collect::<Result<_, _>>()?,
            Rule::IftRate => ift_rate_all(&p[0..3], r)?,
            Rule::IftGoalRate => ift_goal_rate(p, r)?,
            Rule::Nerr8 => nerr_cut(p[0], unit_gains(&r.gains)?, |_, g| 1.0 - g),
            Rule::Nerr9 => nerr_cut(p[0], unit_gains(&r.gains)?, |rank, g| {
                (1.0 * rank / (rank + 1.0)) * (1.0 - g)
            }),
            Rule::Nerr10 => unit_gains(&r.gains)?
                .iter()
                .map(|g| p[0] * (1.0 - g))
                .collect(),
            Rule::Nerr11 => nerr11(p[0], unit_gains(&r.gains)?),
            Rule::Set => set(p[0], p[1], n)?,
            Rule::Tbg | Rule::UMeasure | Rule::TrAp => {
                continuation_from_weights(&self.own_weights(r).unwrap_or_default())
            }
        })
    }
}

/// Values of the rules that call the C library's `pow` at every rank, remembered by their
/// inputs (the same inputs give the same value: nothing in the arithmetic changes), kept
/// from rank to rank and topic to topic for one metric: INST's C by (running gain, rank), IFT's
/// goal term by the running gain, its rate term by (running gain, rank, running cost).
#[derive(Default)]
pub struct PowMemo {
    goal: Option<(u64, f64)>,
    /// Per running gain met: per rank, (running cost's bits, value).
    ranks: Vec<Vec<Option<(u64, f64)>>>,
    /// Running gain's bits -> its index in `ranks`.
    index: HashMap<u64, usize>,
    /// The running gain of the rank before and its index (looked up again only when it changes).
    last: Option<(u64, usize)>,
}

/// The most running gains remembered (fine-grained gains make new ones all the time).
const MEMO_GAINS: usize = 4096;

impl PowMemo {
    fn goal(&mut self, p: &[f64], y: f64) -> Result<f64, String> {
        match self.goal {
            Some((bits, value)) if bits == y.to_bits() => Ok(value),
            _ => {
                let value = ift_goal(p[0], p[1], p[2], y)?;
                self.goal = Some((y.to_bits(), value));
                Ok(value)
            }
        }
    }

    /// The index in `ranks` of running gain `y` (a vector of `n` ranks).
    fn slot(&mut self, y: f64, n: usize) -> usize {
        let bits = y.to_bits();
        if let Some((last, at)) = self.last {
            if last == bits {
                return at;
            }
        }
        let at = match self.index.get(&bits) {
            Some(&at) => at,
            None => {
                if self.ranks.len() >= MEMO_GAINS {
                    self.ranks.clear();
                    self.index.clear();
                }
                self.ranks.push(vec![None; n]);
                self.index.insert(bits, self.ranks.len() - 1);
                self.ranks.len() - 1
            }
        };
        if self.ranks[at].len() < n {
            self.ranks[at].resize(n, None);
        }
        self.last = Some((bits, at));
        at
    }

    /// `compute`'s value at rank index `i` (of `n`) for running gain `y` and running cost `k`.
    fn at(
        &mut self,
        i: usize,
        n: usize,
        y: f64,
        k: f64,
        compute: impl FnOnce() -> Result<f64, String>,
    ) -> Result<f64, String> {
        let at = self.slot(y, n);
        match self.ranks[at][i] {
            Some((bits, value)) if bits == k.to_bits() => Ok(value),
            _ => {
                let value = compute()?;
                self.ranks[at][i] = Some((k.to_bits(), value));
                Ok(value)
            }
        }
    }
}

impl Metric {
    /// `continuation`, remembering what INST and IFT compute with `pow` in `memo` (the same
    /// values).
    pub fn continuation_with(&self, r: &Ranking, memo: &mut PowMemo) -> Result<Vec<f64>, String> {
        let p = &self.params;
        let n = r.gains.len();
        match self.rule {
            Rule::Inst => {
                let gains = unit_gains(&r.gains)?;
                let cum = cumsum(gains);
                (0..n)
                    .map(|i| memo.at(i, n, cum[i], 0.0, || Ok(inst_at(p[0], i, cum[i]))))
                    .collect()
            }
            Rule::IftGoal => cumsum(&r.gains).iter().map(|&y| memo.goal(p, y)).collect(),
            Rule::IftRate | Rule::IftGoalRate => {
                let (y, k) = (cumsum(&r.gains), cumsum(&r.costs));
                let rate = if self.rule == Rule::IftRate {
                    &p[0..3]
                } else {
                    &p[3..6]
                };
                (0..n)
                    .map(|i| {
                        let goal = match self.rule {
                            Rule::IftGoalRate => Some(memo.goal(p, y[i])?),
                            _ => None,
                        };
                        let value = memo.at(i, n, y[i], k[i], || {
                            ift_rate(rate[0], rate[1], rate[2], y[i], k[i])
                        })?;
                        Ok(goal.map_or(value, |g| g * value))
                    })
                    .collect()
            }
            _ => self.continuation(r),
        }
    }
}

/// C(i) = W(i+1) / W(i) where W(i) > 0, else 0; the last is 0.
pub fn continuation_from_weights(weights: &[f64]) -> Vec<f64> {
    let mut c: Vec<f64> = weights
        .windows(2)
        .map(|w| if w[0] > 0.0 { w[1] / w[0] } else { 0.0 })
        .collect();
    c.push(0.0);
    c
}

fn square(x: f64) -> f64 {
    np_pow(x, 2.0)
}

/// INST, INSQ and NERR Eq. 8-11 refuse gains outside [0, 1] (numpy's min/max: a NaN hides all).
fn unit_gains(gains: &[f64]) -> Result<&[f64], String> {
    if gains.iter().any(|g| g.is_nan()) {
        return Ok(gains);
    }
    match gains.iter().find(|g| **g < 0.0 || **g > 1.0) {
        Some(g) => Err(format!("needs gains in [0, 1] (gain {g})")),
        None => Ok(gains),
    }
}

fn reciprocal_rank(gains: &[f64]) -> Vec<f64> {
    let first = gains.iter().position(|g| *g > 0.0).unwrap_or(gains.len());
    (0..gains.len())
        .map(|i| if i < first { 1.0 } else { 0.0 })
        .collect()
}

/// C(i) = sum(g_j / j, j > i) / sum(g_j / j, j >= i), 0 once the first sum is not positive.
fn average_precision(gains: &[f64]) -> Vec<f64> {
    let n = gains.len();
    let rii: Vec<f64> = gains
        .iter()
        .enumerate()
        .map(|(i, g)| g / (i as f64 + 1.0))
        .collect();
    let sparse = Sparse::new(&rii);
    let tails: Vec<f64> = if sparse.count() * 4 < n {
        // few gains: each tail's pairwise sum walked over its nonzero terms only (the same
        // sums in the same order: adding a zero changes no nonzero sum)
        (0..=n).map(|i| sparse.tail_sum(i)).collect()
    } else {
        (0..=n).map(|i| np_sum(&rii[i..])).collect()
    };
    let mut c: Vec<f64> = (0..n.saturating_sub(1))
        .map(|i| {
            if tails[i + 1] > 0.0 {
                tails[i + 1] / tails[i]
            } else {
                0.0
            }
        })
        .collect();
    c.push(0.0);
    c
}

fn ndcg(k: f64, n: usize) -> Vec<f64> {
    (1..=n)
        .map(|i| {
            let i = i as f64;
            if i < k {
                math_log(i + 1.0, 2.0) / math_log(i + 2.0, 2.0)
            } else {
                0.0
            }
        })
        .collect()
}

fn inst(t: f64, gains: &[f64]) -> Vec<f64> {
    cumsum(gains)
        .iter()
        .enumerate()
        .map(|(i, cg)| inst_at(t, i, *cg))
        .collect()
}

/// INST's C at rank index `i` with running gain `cg`.
fn inst_at(t: f64, i: usize, cg: f64) -> f64 {
    let ti = t - cg;
    let rank = i as f64 + 1.0;
    square((rank + t + ti - 1.0) / (rank + t + ti))
}

fn insq_ratio(rank: f64, t: f64) -> f64 {
    (rank + (2.0 * t) - 1.0) / (rank + (2.0 * t))
}

fn nerr11(t: f64, gains: &[f64]) -> Vec<f64> {
    gains
        .iter()
        .enumerate()
        .map(|(i, g)| square(insq_ratio(i as f64 + 1.0, t)) * (1.0 - g))
        .collect()
}

fn nerr_cut(k: f64, gains: &[f64], rule: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    gains
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if (i as f64) < k - 1.0 {
                rule(i as f64 + 1.0, *g)
            } else {
                0.0
            }
        })
        .collect()
}

/// 1 while the running total stays below its bound, 0 from the first rank that reaches it.
fn prefix_below(totals: &[f64], mut bound: impl FnMut(usize) -> f64) -> usize {
    // the first rank whose total is not below the bound (NaN included)
    totals
        .iter()
        .enumerate()
        .position(|(i, t)| t.partial_cmp(&bound(i)) != Some(std::cmp::Ordering::Less))
        .unwrap_or(totals.len())
}

fn both_prefixes(n: usize, gain_prefix: usize, cost_prefix: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            if i < gain_prefix && i < cost_prefix {
                1.0
            } else {
                0.0
            }
        })
        .collect()
}

fn bpm_static(t: f64, k: f64, r: &Ranking) -> Vec<f64> {
    let gain_prefix = prefix_below(&cumsum(&r.gains), |_| t);
    let cost_prefix = prefix_below(&cumsum(&r.costs), |_| k);
    both_prefixes(r.gains.len(), gain_prefix, cost_prefix)
}

/// BPM-Dynamic: T moves by hb * (g_i - gain_med) after each rank it lets through; K never
/// moves (cwl_eval's cost loop updates T, not K).
fn bpm_dynamic(p: &[f64], r: &Ranking) -> Vec<f64> {
    let (mut t, k, hb, med) = (p[0], p[1], p[2], p[4]);
    let gain_prefix = prefix_below(&cumsum(&r.gains), |i| {
        let bound = t;
        t += hb * (r.gains[i] - med);
        bound
    });
    let cost_prefix = prefix_below(&cumsum(&r.costs), |_| k);
    both_prefixes(r.gains.len(), gain_prefix, cost_prefix)
}

fn ift_goal(t: f64, b1: f64, r1: f64, y: f64) -> Result<f64, String> {
    let ex = 1.0 + b1 * math_pow(std::f64::consts::E, (t - y) * r1)?;
    Ok(1.0 - math_pow(ex, -1.0)?)
}

fn ift_rate(a: f64, b2: f64, r2: f64, y: f64, k: f64) -> Result<f64, String> {
    let ex = 1.0 + b2 * math_pow(std::f64::consts::E, (a - (y / k)) * r2)?;
    Ok(math_pow(ex, -1.0)?)
}

fn ift_rate_all(p: &[f64], r: &Ranking) -> Result<Vec<f64>, String> {
    let (y, k) = (cumsum(&r.gains), cumsum(&r.costs));
    y.iter()
        .zip(&k)
        .map(|(y, k)| ift_rate(p[0], p[1], p[2], *y, *k))
        .collect()
}

fn ift_goal_rate(p: &[f64], r: &Ranking) -> Result<Vec<f64>, String> {
    let (y, k) = (cumsum(&r.gains), cumsum(&r.costs));
    y.iter()
        .zip(&k)
        .map(|(y, k)| Ok(ift_goal(p[0], p[1], p[2], *y)? * ift_rate(p[3], p[4], p[5], *y, *k)?))
        .collect()
}

/// SET: C(i) = w(i+1) / w(i) for i < k, w(i) = (i+1)^beta - i^beta (Python's math.pow).
fn set(beta: f64, k: f64, n: usize) -> Result<Vec<f64>, String> {
    let weight =
        |i: f64| -> Result<f64, String> { Ok(math_pow(i + 1.0, beta)? - math_pow(i, beta)?) };
    (1..=n)
        .map(|i| {
            let i = i as f64;
            if i.partial_cmp(&k) != Some(std::cmp::Ordering::Less) {
                return Ok(0.0); // i >= k, or k NaN
            }
            let (next, here) = (weight(i + 1.0)?, weight(i)?);
            if here == 0.0 {
                Err("float division by zero".to_string())
            } else {
                Ok(next / here)
            }
        })
        .collect()
}

/// TBG: W(i) = decay(cost before rank i) / the sum of the depth's decays,
/// decay(x) = h * 2^(-x/h) / ln 2 (the integral of the half-life curve from x on).
fn tbg_weights(h: f64, costs: &[f64]) -> Vec<f64> {
    let ln2 = math_log(2.0, std::f64::consts::E);
    let decay = |x: f64| (h * np_pow(2.0, -x / h)) / ln2;
    let mut raw = vec![decay(0.0)];
    let mut norm = raw[0];
    for spent in cumsum(costs).iter().take(costs.len().saturating_sub(1)) {
        let w = decay(*spent);
        norm += w;
        raw.push(w);
    }
    raw.iter().map(|w| w / norm).collect()
}

/// U-measure: W(i) = max(0, 1 - (cost before rank i) / L), normalised; the last rank weighs 0.
fn umeasure_weights(l: f64, costs: &[f64]) -> Vec<f64> {
    let mut raw = Vec::with_capacity(costs.len());
    let mut start = 0.0;
    let mut norm = 0.0;
    for spent in cumsum(costs).iter().take(costs.len().saturating_sub(1)) {
        let left = 1.0 - (start / l);
        let w = if left > 0.0 { left } else { 0.0 };
        start = *spent;
        raw.push(w);
        norm += w;
    }
    raw.push(0.0);
    raw.iter().map(|w| w / norm).collect()
}

/// TrAP: W(i) = (gain to rank i, 1 before the first gain) / (cost to rank i) / R.
fn trap_weights(r: &Ranking) -> Vec<f64> {
    let costs = cumsum(&r.costs);
    let mut gains = cumsum(&r.gains);
    let mut i = 0;
    while gains[i] == 0.0 && i < gains.len() - 1 {
        gains[i] = 1.0;
        i += 1;
    }
    let w = gains.iter().zip(&costs).map(|(g, c)| g / c);
    if r.total_rels > 0.0 {
        w.map(|w| w / r.total_rels).collect()
    } else {
        w.collect()
    }
}
