//! The C/W/L framework as cwl_eval 1.0.12 computes it (Azzopardi, Moffat, Thomas, Zuccon):
//! a metric is a user model, C(i) the chance of going on from rank i; from it W(i) (the share
//! of attention rank i gets) and L(i) (the chance of stopping at i). Per topic and metric:
//! EU = sum W(i) g(i), ETU = sum L(i) G(i) (G the running gain), EC and ETC the same over
//! costs, ED = 1 / W(1). Unjudged documents count as gain 0 and the highest cost; with
//! residuals also as the highest gain and lowest cost, and each residual is the difference.
//! The ranking is the run's documents in file order, cut or padded to the depth.
//! The kernels are a leaf: the files are read by `read::cwl`; `output` prints the values as
//! cwl_eval does and `bibtex` writes its `-b` file.

pub mod bibtex;
pub mod metrics;
pub mod numeric;
pub mod output;

use crate::error::{Error, Result};
pub use metrics::{CwlRecord, Metric, PowMemo, Rule, CWL_RECORDS};
use numeric::{cumprod, cumsum, dot, np_sum};

/// What an unjudged or unretrieved rank is worth, and how deep the user model looks.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub depth: usize,
    pub max_gain: f64,
    pub max_cost: f64,
    pub min_cost: f64,
}

/// One topic of the run: gains (NaN: unjudged) and costs (NaN: no cost for the element type)
/// in file order, and how many of its judged documents have a positive gain.
pub struct Topic<'a> {
    pub gains: &'a [f64],
    pub costs: &'a [f64],
    pub judged_relevant: f64,
}

/// A topic's vectors at the depth, for the worst case (unjudged: gain 0, highest cost) or
/// the best (highest gain, lowest cost).
pub struct Ranking {
    pub gains: Vec<f64>,
    pub costs: Vec<f64>,
    pub total_rels: f64,
}

fn at_depth(values: &[f64], depth: usize, fill: f64) -> Vec<f64> {
    let mut v: Vec<f64> = values
        .iter()
        .take(depth)
        .map(|x| if x.is_nan() { fill } else { *x })
        .collect();
    v.resize(depth, fill);
    v
}

impl Ranking {
    pub fn new(topic: &Topic, bounds: &Bounds, worst: bool) -> Ranking {
        let (gain_fill, cost_fill) = if worst {
            (0.0, bounds.max_cost)
        } else {
            (bounds.max_gain, bounds.min_cost)
        };
        let gains = at_depth(topic.gains, bounds.depth, gain_fill);
        let costs = at_depth(topic.costs, bounds.depth, cost_fill);
        let total_rels = if worst {
            topic.judged_relevant
        } else {
            best_total_rels(&gains, topic.judged_relevant)
        };
        Ranking {
            gains,
            costs,
            total_rels,
        }
    }
}

/// Python's max(np.sum(gains with positives as 1), judged).
fn best_total_rels(gains: &[f64], judged: f64) -> f64 {
    let ones: Vec<f64> = gains
        .iter()
        .map(|g| if *g > 0.0 { 1.0 } else { *g })
        .collect();
    let retrieved = np_sum(&ones);
    if judged > retrieved {
        judged
    } else {
        retrieved
    }
}

/// W from C: W(1) = 1 / sum of the running products of C, W(i) = W(1) * C(1)...C(i-1).
fn weights_from(c: &[f64]) -> Vec<f64> {
    let mut products = vec![1.0];
    products.extend(cumprod(&c[..c.len().saturating_sub(1)]));
    let first = 1.0 / np_sum(&products);
    let mut w = vec![first];
    w.extend(products[1..].iter().map(|p| p * first));
    w
}

/// L from C: L(i) = C(1)...C(i-1) * (1 - C(i)).
fn stopping_from(c: &[f64]) -> Vec<f64> {
    let mut shifted = vec![1.0];
    shifted.extend_from_slice(&c[..c.len().saturating_sub(1)]);
    cumprod(&shifted)
        .iter()
        .zip(c)
        .map(|(p, ci)| p * (1.0 - ci))
        .collect()
}

/// A metric's W and C on one case of a ranking (W per rank first, then C).
pub fn weights(metric: &Metric, r: &Ranking) -> std::result::Result<(Vec<f64>, Vec<f64>), String> {
    Ok(match metric.own_weights(r) {
        Some(w) => {
            let c = metrics::continuation_from_weights(&w);
            (w, c)
        }
        None => {
            let c = metric.continuation(r)?;
            (weights_from(&c), c)
        }
    })
}

/// EU, ETU, EC, ETC, ED of one metric on one case of a ranking.
pub fn score(metric: &Metric, r: &Ranking) -> std::result::Result<[f64; 5], String> {
    let (w, c) = weights(metric, r)?;
    let l = stopping_from(&c);
    let (cum_gains, cum_costs) = (cumsum(&r.gains), cumsum(&r.costs));
    Ok([
        dot(&w, &r.gains),
        dot(&l, &cum_gains),
        dot(&w, &r.costs),
        dot(&l, &cum_costs),
        1.0 / w[0],
    ])
}

/// A metric's five values on a topic, then (with residuals) the best case minus the worst.
pub fn measure(
    metric: &Metric,
    topic: &Topic,
    bounds: &Bounds,
    residuals: bool,
) -> std::result::Result<Vec<f64>, String> {
    let worst = score(metric, &Ranking::new(topic, bounds, true))?;
    let mut values = worst.to_vec();
    if residuals {
        let best = score(metric, &Ranking::new(topic, bounds, false))?;
        values.extend(best.iter().zip(&worst).map(|(b, w)| b - w));
    }
    Ok(values)
}

/// A metric from a record's rule and parameters, refusing what cwl_eval crashes on.
pub fn metric(rule: Rule, params: Vec<f64>, depth: usize, name: &str) -> Result<Metric> {
    let first = params.first().copied().unwrap_or(0.0);
    let problem = match rule {
        Rule::Precision if first.fract() != 0.0 || first < 1.0 => {
            Some("k must be a whole number from 1")
        }
        Rule::Precision if first - 1.0 > depth as f64 => {
            Some("k - 1 must not pass the depth (--max_depth)")
        }
        Rule::Tbg if first == 0.0 => Some("the half-life must not be 0 (a division by zero)"),
        Rule::UMeasure if first == 0.0 => Some("L must not be 0 (a division by zero)"),
        _ => None,
    };
    match problem {
        Some(p) => Err(Error::new(format!("{}: {p}", name.trim_end()))),
        None => Ok(Metric { rule, params }),
    }
}

/// Whether a rule's W depends only on its parameters and the costs (TBG, U-measure): a topic
/// whose cost vector is the topic before's (every cost 1 without a cost file) has its model.
fn cost_model(rule: Rule) -> bool {
    matches!(rule, Rule::Tbg | Rule::UMeasure)
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// A metric's state from topic to topic in `measure_all`: its model when it does not depend
/// on the ranking, or on the costs alone (with the costs it was made for), and its `pow` memo.
#[derive(Default)]
struct Kept {
    fixed: Option<Model>,
    by_costs: Option<(Vec<f64>, Model)>,
    memo: PowMemo,
}

impl Kept {
    /// The metric's model on a case: kept, or made in `scratch`.
    fn model<'a>(
        &'a mut self,
        metric: &Metric,
        r: &Ranking,
        scratch: &'a mut Model,
    ) -> std::result::Result<&'a Model, String> {
        if fixed_model(metric.rule) {
            if self.fixed.is_none() {
                let mut own = Model::default();
                own.of(metric, r, &mut self.memo)?;
                self.fixed = Some(own);
            }
            return Ok(self.fixed.as_ref().expect("made above"));
        }
        if cost_model(metric.rule) {
            let stale = match &self.by_costs {
                Some((costs, _)) => !same_bits(costs, &r.costs),
                None => true,
            };
            if stale {
                let mut own = Model::default();
                own.of(metric, r, &mut self.memo)?;
                self.by_costs = Some((r.costs.clone(), own));
            }
            return Ok(&self.by_costs.as_ref().expect("made above").1);
        }
        scratch.of(metric, r, &mut self.memo)?;
        Ok(scratch)
    }
}

/// Whether a rule's C depends only on its parameters and the depth, not on the ranking:
/// its W and L are then the same for every topic and both cases.
fn fixed_model(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::Undefined
            | Rule::Precision
            | Rule::Rbp
            | Rule::Npv
            | Rule::Ndcg
            | Rule::Insq
            | Rule::Set
    )
}

/// A metric's W and L on one case (buffers reused from metric to metric).
#[derive(Default, Clone)]
struct Model {
    products: Vec<f64>,
    w: Vec<f64>,
    l: Vec<f64>,
}

impl Model {
    /// From C, in `weights_from` and `stopping_from`'s arithmetic: with P(i) = C(1)...C(i-1)
    /// (P(1) = 1), W(1) = 1 / sum P, W(i) = P(i) W(1), L(i) = P(i) (1 - C(i)).
    fn set_continuation(&mut self, c: &[f64]) {
        self.products.clear();
        self.products.push(1.0);
        let mut product = 1.0;
        for (i, ci) in c[..c.len().saturating_sub(1)].iter().enumerate() {
            product = if i == 0 { *ci } else { product * ci };
            self.products.push(product);
        }
        let first = 1.0 / np_sum(&self.products);
        self.w.clear();
        self.w.push(first);
        self.w.extend(self.products[1..].iter().map(|p| p * first));
        self.l.clear();
        self.l
            .extend(self.products.iter().zip(c).map(|(p, ci)| p * (1.0 - ci)));
    }

    /// A metric's model on a case of a ranking, as `weights` computes it.
    fn of(
        &mut self,
        metric: &Metric,
        r: &Ranking,
        memo: &mut PowMemo,
    ) -> std::result::Result<(), String> {
        match metric.own_weights(r) {
            Some(w) => {
                let c = metrics::continuation_from_weights(&w);
                self.w = w;
                self.l = stopping_from(&c);
            }
            None => self.set_continuation(&metric.continuation_with(r, memo)?),
        }
        Ok(())
    }

    /// EU, ETU, EC, ETC, ED on a case, as `score` computes them.
    fn values(&self, case: &Case) -> [f64; 5] {
        let r = &case.ranking;
        [
            dot(&self.w, &r.gains),
            dot(&self.l, &case.cum_gains),
            dot(&self.w, &r.costs),
            dot(&self.l, &case.cum_costs),
            1.0 / self.w[0],
        ]
    }
}

/// A case of a ranking with its running gains and costs, shared by every metric.
struct Case {
    ranking: Ranking,
    cum_gains: Vec<f64>,
    cum_costs: Vec<f64>,
}

impl Case {
    fn new(topic: &Topic, bounds: &Bounds, worst: bool) -> Case {
        let ranking = Ranking::new(topic, bounds, worst);
        let (cum_gains, cum_costs) = (cumsum(&ranking.gains), cumsum(&ranking.costs));
        Case {
            ranking,
            cum_gains,
            cum_costs,
        }
    }
}

/// Every metric on every topic: values[topic][metric] flattened, 5 (or 10) per pair; an
/// error names the topic (its index) and the metric (its index) where cwl_eval would crash
/// (the first in topic order). The values are `measure`'s; the work is shared: each topic's
/// cases once for all metrics, the model of a metric whose C does not depend on the ranking
/// once for a part of the topics. Many topics are measured in parts on up to 8 threads (a
/// topic's values depend on it alone; each part keeps its own models).
pub fn measure_all(
    metrics: &[Metric],
    topics: &[Topic],
    bounds: &Bounds,
    residuals: bool,
) -> std::result::Result<Vec<f64>, (usize, usize, String)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads < 2 || topics.len() < PARALLEL_TOPICS {
        return measure_part(metrics, topics, 0, bounds, residuals);
    }
    let per = topics.len().div_ceil(threads);
    let parts: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = topics
            .chunks(per)
            .enumerate()
            .map(|(i, part)| {
                scope.spawn(move || measure_part(metrics, part, i * per, bounds, residuals))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut values =
        Vec::with_capacity(topics.len() * metrics.len() * if residuals { 10 } else { 5 });
    for part in parts {
        values.extend(part?); // the first error in topic order
    }
    Ok(values)
}

/// At least this many topics are measured in parts on several threads.
const PARALLEL_TOPICS: usize = 64;

/// `measure_all` of the topics `first..first + topics.len()`.
fn measure_part(
    metrics: &[Metric],
    topics: &[Topic],
    first: usize,
    bounds: &Bounds,
    residuals: bool,
) -> std::result::Result<Vec<f64>, (usize, usize, String)> {
    let mut values =
        Vec::with_capacity(topics.len() * metrics.len() * if residuals { 10 } else { 5 });
    let mut kept: Vec<Kept> = metrics.iter().map(|_| Kept::default()).collect();
    let mut scratch = Model::default();
    for (t, topic) in topics.iter().enumerate() {
        let worst = Case::new(topic, bounds, true);
        let best = residuals.then(|| Case::new(topic, bounds, false));
        for (m, (metric, kept)) in metrics.iter().zip(&mut kept).enumerate() {
            let fail = |e: String| (first + t, m, e);
            let worst_values = kept
                .model(metric, &worst.ranking, &mut scratch)
                .map_err(fail)?
                .values(&worst);
            let best_values = match &best {
                Some(b) => Some(
                    kept.model(metric, &b.ranking, &mut scratch)
                        .map_err(fail)?
                        .values(b),
                ),
                None => None,
            };
            push_case(&mut values, worst_values, best_values);
        }
    }
    Ok(values)
}

/// The worst case's five values, then (with residuals) the best case's minus them.
fn push_case(values: &mut Vec<f64>, worst: [f64; 5], best: Option<[f64; 5]>) {
    values.extend_from_slice(&worst);
    if let Some(best) = best {
        values.extend(best.iter().zip(&worst).map(|(b, w)| b - w));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rule: Rule, params: &[f64], gains: &[f64], depth: usize, residuals: bool) -> Vec<f64> {
        let costs = vec![f64::NAN; gains.len()];
        let topic = Topic {
            gains,
            costs: &costs,
            judged_relevant: 1.0,
        };
        let bounds = Bounds {
            depth,
            max_gain: 1.0,
            max_cost: 1.0,
            min_cost: 1.0,
        };
        let metric = metric(rule, params.to_vec(), depth, "test").unwrap();
        measure(&metric, &topic, &bounds, residuals).unwrap()
    }

    #[test]
    fn precision_by_hand() {
        // W = 1/2 on ranks 1-2: EU = (1 + 0.5) / 2; L(2) = 1: ETU = G(2) = 1.5; EC = 1; ETC = 2; ED = 2
        assert_eq!(
            run(Rule::Precision, &[2.0], &[1.0, 0.5, 1.0], 5, false),
            vec![0.75, 1.5, 1.0, 2.0, 2.0]
        );
    }

    #[test]
    fn rbp_by_hand_with_residuals() {
        // depth 3, theta 0.5: W = (4, 2, 1) / 7; L = (0.5, 0.25, 0.125): C stays 0.5 at the
        // last rank, so the stops within the depth add to 0.875, not 1
        let v = run(Rule::Rbp, &[0.5], &[1.0, f64::NAN], 3, true);
        assert!((v[0] - 4.0 / 7.0).abs() < 1e-15);
        assert!((v[1] - 0.875).abs() < 1e-15); // G = 1, 1, 1
        assert!((v[4] - 1.75).abs() < 1e-15);
        // best case: gains 1, 1, 1 (the unjudged rank and the padded one at max_gain), G = 1, 2, 3
        assert!((v[5] - 3.0 / 7.0).abs() < 1e-15);
        assert!((v[6] - (0.5 + 0.25 * 2.0 + 0.125 * 3.0 - 0.875)).abs() < 1e-15);
    }

    #[test]
    fn reciprocal_rank_stops_at_the_first_gain() {
        // C = 1, 0: W = 1/2, 1/2, 0 ...; L(2) = 1: ETU = G(2) = 0.5
        assert_eq!(
            run(Rule::Rr, &[], &[0.0, 0.5, 1.0], 4, false),
            vec![0.25, 0.5, 1.0, 2.0, 2.0]
        );
    }

    #[test]
    fn inst_refuses_gains_above_one() {
        let costs = [f64::NAN];
        let topic = Topic {
            gains: &[2.0],
            costs: &costs,
            judged_relevant: 1.0,
        };
        let bounds = Bounds {
            depth: 2,
            max_gain: 2.0,
            max_cost: 1.0,
            min_cost: 1.0,
        };
        let m = metric(Rule::Inst, vec![1.0], 2, "INST").unwrap();
        assert!(measure(&m, &topic, &bounds, false)
            .unwrap_err()
            .contains("[0, 1]"));
    }

    #[test]
    fn precision_k_is_checked() {
        assert!(metric(Rule::Precision, vec![0.0], 10, "P@0").is_err());
        assert!(metric(Rule::Precision, vec![12.0], 10, "P@12").is_err());
        assert!(metric(Rule::Precision, vec![11.0], 10, "P@11").is_ok());
    }

    #[test]
    fn measure_all_is_measure_topic_by_topic() {
        // the shared cases and fixed models change no value (bit for bit) and no error
        let specs: &[(Rule, &[f64])] = &[
            (Rule::Undefined, &[]),
            (Rule::Precision, &[2.0]),
            (Rule::Rbp, &[0.8]),
            (Rule::Npv, &[0.1]),
            (Rule::Rr, &[]),
            (Rule::Ap, &[]),
            (Rule::TrAp, &[]),
            (Rule::Ndcg, &[5.0]),
            (Rule::Inst, &[2.0]),
            (Rule::Insq, &[1.0]),
            (Rule::Tbg, &[5.5]),
            (Rule::BpmStatic, &[1.0, 4.0]),
            (Rule::BpmDynamic, &[1.0, 10.0, 1.0, 1.0, 0.5]),
            (Rule::UMeasure, &[10.0]),
            (Rule::IftGoal, &[2.0, 0.9, 10.0]),
            (Rule::IftRate, &[0.2, 0.9, 10.0]),
            (Rule::IftGoalRate, &[2.0, 0.9, 1.0, 0.2, 0.9, 2.0]),
            (Rule::Inst, &[1.0]),
            (Rule::Nerr8, &[4.0]),
            (Rule::Nerr10, &[0.9]),
            (Rule::Set, &[0.5, 5.0]),
        ];
        let mut x: u64 = 0x1234_5678_9abc;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for depth in [1usize, 5, 40, 300] {
            let metrics: Vec<Metric> = specs
                .iter()
                .map(|(rule, p)| metric(*rule, p.to_vec(), depth, "m").unwrap())
                .collect();
            let mut data = Vec::new();
            for _ in 0..6 {
                let n = (next() % 350) as usize;
                let gains: Vec<f64> = (0..n)
                    .map(|_| match next() % 6 {
                        0 => f64::NAN,
                        1 => 1.0,
                        2 => 0.5,
                        _ => 0.0,
                    })
                    .collect();
                let uniform = next() % 2 == 0; // no cost file: the same costs topic after topic
                let costs: Vec<f64> = (0..n)
                    .map(|_| {
                        if uniform {
                            f64::NAN
                        } else {
                            [f64::NAN, 1.0, 2.5][(next() % 3) as usize]
                        }
                    })
                    .collect();
                data.push((gains, costs, (next() % 5) as f64));
            }
            // 6 topics measured on one thread, 70 in parts on several
            for count in [6, 70] {
                let topics: Vec<Topic> = data
                    .iter()
                    .cycle()
                    .take(count)
                    .map(|(g, c, r)| Topic {
                        gains: g,
                        costs: c,
                        judged_relevant: *r,
                    })
                    .collect();
                for residuals in [false, true] {
                    let bounds = Bounds {
                        depth,
                        max_gain: 1.0,
                        max_cost: 2.0,
                        min_cost: 0.5,
                    };
                    let all = measure_all(&metrics, &topics, &bounds, residuals).unwrap();
                    let one_by_one: Vec<f64> = topics
                        .iter()
                        .flat_map(|t| {
                            metrics
                                .iter()
                                .flat_map(|m| measure(m, t, &bounds, residuals).unwrap())
                                .collect::<Vec<_>>()
                        })
                        .collect();
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(&all),
                        bits(&one_by_one),
                        "depth {depth}, {count} topics"
                    );
                }
            }
        }
    }

    #[test]
    fn the_first_failing_topic_is_named_when_measured_in_parts() {
        // INST refuses gains above 1: topics 40 and 65 have one, in different parts
        let good = vec![1.0, 0.0, 0.5];
        let bad = vec![0.0, 2.0, 0.5];
        let costs = vec![f64::NAN; 3];
        let topics: Vec<Topic> = (0..100)
            .map(|t| Topic {
                gains: if t == 40 || t == 65 { &bad } else { &good },
                costs: &costs,
                judged_relevant: 1.0,
            })
            .collect();
        let bounds = Bounds {
            depth: 5,
            max_gain: 1.0,
            max_cost: 1.0,
            min_cost: 1.0,
        };
        let metrics = vec![
            metric(Rule::Rbp, vec![0.5], 5, "rbp").unwrap(),
            metric(Rule::Inst, vec![2.0], 5, "inst").unwrap(),
        ];
        let (topic, m, _) = measure_all(&metrics, &topics, &bounds, false).unwrap_err();
        assert_eq!((topic, m), (40, 1));
        let (topic, m, _) = measure_all(&metrics, &topics[41..], &bounds, true).unwrap_err();
        assert_eq!((topic, m), (65 - 41, 1));
    }

    #[test]
    fn dot_orders_agree_on_exact_sums() {
        let x: Vec<f64> = (0..100).map(|i| (i % 7) as f64).collect();
        let y: Vec<f64> = (0..100).map(|i| (i % 3) as f64 * 0.5).collect();
        let plain = numeric::dot_in(numeric::DotOrder::Plain, &x, &y);
        assert_eq!(numeric::dot_in(numeric::DotOrder::SkylakeX, &x, &y), plain);
        assert_eq!(numeric::dot_in(numeric::DotOrder::Haswell, &x, &y), plain);
    }
}
