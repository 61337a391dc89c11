//! The C/W/L measures under ir_measures' names (INST, INSQ, BPM, SDCG, NERR8-11, and RBP with
//! `rel`, which ir_measures computes with cwl_eval too), computed as
//! ir_measures' cwl_eval provider computes them, with the kernels of `crate::cwl`:
//!
//! * the ranking is the run's documents, score descending, equal scores in the run's order
//!   (`Rankings::run_order`);
//! * a judged document's gain is its grade, negative grades as 0, clipped into
//!   [min_rel, max_rel] and scaled into [0, 1]: (grade - min_rel) / (max_rel - min_rel); a
//!   document the qrels do not list is unjudged (cwl_eval's worst case: gain 0); RBP's gain is
//!   1 for a grade (negative as 0) of at least `rel`, else 0;
//! * cwl_eval's settings as the provider fixes them: depth 1000, every cost 1, gains within
//!   [0, 1];
//! * the value is cwl_eval's expected utility per item (EU, the worst case).

use super::{single, Notes, Query};
use crate::cwl::numeric::dot;
use crate::cwl::{weights, Bounds, Metric, Ranking, Rule, Topic};
use crate::error::{Error, Result};
use crate::label::NOT_IN_QRELS;
use crate::options::{Options, Request};

/// The provider's RankingMaker: 1000 ranks (cwl_eval's default depth), cost 1 for every item,
/// gains in [0, 1].
const BOUNDS: Bounds = Bounds {
    depth: 1000,
    max_gain: 1.0,
    max_cost: 1.0,
    min_cost: 1.0,
};

/// A relevance value (`Query` labels) as the provider's gain: NaN (unjudged) for a document
/// the qrels do not list; else the grade (a negative one as 0) clipped and scaled.
fn gain(value: f64, min_rel: f64, max_rel: f64) -> f64 {
    if value == NOT_IN_QRELS {
        return f64::NAN;
    }
    let grade = value.max(0.0); // UNJUDGED (judged negative) is grade 0 too
    (grade.max(min_rel).min(max_rel) - min_rel) / (max_rel - min_rel)
}

/// A relevance value as the provider's binary gain (RBP's `rel`): 1 when the grade (a
/// negative one as 0) is at least `rel`, else 0; NaN (unjudged) for a document not listed.
fn binary_gain(value: f64, rel: f64) -> f64 {
    if value == NOT_IN_QRELS {
        return f64::NAN;
    }
    if value.max(0.0) >= rel {
        1.0
    } else {
        0.0
    }
}

/// The request's min_rel and max_rel (its last two numbers), checked.
fn rel_bounds(request: &Request) -> Result<(f64, f64)> {
    let (min_rel, max_rel) = match request.params.as_slice() {
        [.., min, max] => (*min, *max),
        _ => {
            return Err(Error::new(format!(
                "{}: min_rel and max_rel missing",
                request.kernel
            )))
        }
    };
    if min_rel >= max_rel {
        let name = request.lines.first().unwrap_or(&request.kernel);
        return Err(Error::new(format!(
            "measure {name}: min_rel ({min_rel}) must be less than max_rel ({max_rel})"
        )));
    }
    Ok((min_rel, max_rel))
}

/// The request's first named parameter (T or p).
fn first(request: &Request) -> f64 {
    request.params.first().copied().unwrap_or(f64::NAN)
}

/// The request's cutoff (k).
fn cutoff(request: &Request) -> Result<f64> {
    match request.cutoffs.as_slice() {
        [k] => Ok(*k as f64),
        _ => Err(Error::new(format!("{} needs one cutoff", request.kernel))),
    }
}

/// How a measure's request makes a relevance value a gain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GainOf {
    /// The grade (negative as 0) clipped into [min_rel, max_rel], scaled into [0, 1].
    Scaled { min_rel: f64, max_rel: f64 },
    /// 1 for a grade (negative as 0) of at least `rel`, else 0 (RBP).
    Binary { rel: f64 },
}

impl GainOf {
    /// A relevance value's gain: NaN (unjudged) for a document the qrels do not list.
    pub fn gain(self, value: f64) -> f64 {
        match self {
            GainOf::Scaled { min_rel, max_rel } => gain(value, min_rel, max_rel),
            GainOf::Binary { rel } => binary_gain(value, rel),
        }
    }
}

/// cwl_eval's metric for a request of the measure computed under `rule`, and its gains.
fn metric_of(rule: Rule, request: &Request) -> Result<(Metric, GainOf)> {
    if rule == Rule::Rbp {
        return match request.params.as_slice() {
            [p, rel] => Ok((
                Metric {
                    rule,
                    params: vec![*p],
                },
                GainOf::Binary { rel: *rel },
            )),
            _ => Err(Error::new("RBP takes two parameters: p and rel")),
        };
    }
    let params = match rule {
        Rule::Inst | Rule::Insq | Rule::Nerr10 | Rule::Nerr11 => vec![first(request)],
        Rule::BpmStatic => vec![first(request), cutoff(request)?],
        Rule::Ndcg | Rule::Nerr8 | Rule::Nerr9 => vec![cutoff(request)?],
        _ => {
            return Err(Error::new(format!(
                "{}: cwl_eval's {rule:?} is not a measure of the main command",
                request.kernel
            )))
        }
    };
    let (min_rel, max_rel) = rel_bounds(request)?;
    Ok((Metric { rule, params }, GainOf::Scaled { min_rel, max_rel }))
}

/// How a request of the measure computed under `rule` makes grades gains (explain's missed
/// documents).
pub(crate) fn gain_of(rule: Rule, request: &Request) -> Result<GainOf> {
    metric_of(rule, request).map(|(_, gains)| gains)
}

/// One query's C/W/L measure as the provider has cwl_eval compute it, per rank: the gains at
/// the depth (worst case: 0 past the ranking and for a document the qrels do not list), the
/// user model's C(i) and W(i). The kernels take its `value`; explain shows its ranks.
#[derive(Debug, Clone)]
pub struct UserModel {
    /// cwl_eval's metric: the rule and its parameters in cwl_eval's order.
    pub metric: Metric,
    /// How a relevance value became a gain.
    pub gain_of: GainOf,
    /// Documents in the ranking (score descending, ties in the run's order), before the depth.
    pub ranked: usize,
    /// Per rank to the depth: the gain, C(i) and W(i).
    pub gains: Vec<f64>,
    pub continuation: Vec<f64>,
    pub weights: Vec<f64>,
}

impl UserModel {
    /// The measure `rule` of `request` on the query's ranking in the run's order.
    pub fn of(query: &Query, request: &Request, rule: Rule) -> Result<UserModel> {
        let Some(ranked) = query.rankings.and_then(|r| r.run_order.as_deref()) else {
            return Err(Error::new(format!(
                "{} needs the ranking in the run's order (internal: not ranked)",
                request.kernel
            )));
        };
        let (metric, gain_of) = metric_of(rule, request)?;
        let gains: Vec<f64> = ranked.iter().map(|&v| gain_of.gain(v)).collect();
        let costs = vec![f64::NAN; gains.len()];
        let topic = Topic {
            gains: &gains,
            costs: &costs,
            judged_relevant: 0.0, // read by TrAP alone
        };
        let ranking = Ranking::new(&topic, &BOUNDS, true);
        let (weights, continuation) = weights(&metric, &ranking).map_err(Error::new)?;
        Ok(UserModel {
            metric,
            gain_of,
            ranked: ranked.len(),
            gains: ranking.gains,
            continuation,
            weights,
        })
    }

    /// cwl_eval's EU: W . gains (numpy's dot, in its BLAS's order).
    pub fn value(&self) -> f64 {
        dot(&self.weights, &self.gains)
    }

    /// EU counting the gains of the first `ranks` ranks only (those after as 0), summed in the
    /// same order: from the ranking's last rank on, the value itself, bit for bit.
    pub fn value_to(&self, ranks: usize) -> f64 {
        if ranks >= self.gains.len() {
            return self.value();
        }
        let mut gains = self.gains[..ranks].to_vec();
        gains.resize(self.gains.len(), 0.0);
        dot(&self.weights, &gains)
    }

    /// The depth cwl_eval reads (as the provider sets it).
    pub fn depth(&self) -> usize {
        BOUNDS.depth
    }
}

/// Measures `rule` of the request into the one output slot.
fn put(query: &Query, request: &Request, rule: Rule, out: &mut [f64]) -> Result<()> {
    single(out, UserModel::of(query, request, rule)?.value());
    Ok(())
}

/// RBP(p, rel): `RBPCWLMetric(p)` on binary gains (ir_measures' RBP with `rel`).
pub fn rbp(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::Rbp, out)
}

/// INST(T): cwl_eval's `INSTCWLMetric(T)`.
pub fn inst(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::Inst, out)
}

/// INSQ(T): `INSQCWLMetric(T)`.
pub fn insq(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::Insq, out)
}

/// BPM(T)@k: `BPMCWLMetric(T, k)`, k the cost bound (every cost 1: the depth).
pub fn bpm(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::BpmStatic, out)
}

/// SDCG@k: `NDCGCWLMetric(k)`.
pub fn sdcg(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::Ndcg, out)
}

/// NERR8@k: `NERReq8CWLMetric(k)`.
pub fn nerr8(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::Nerr8, out)
}

/// NERR9@k: `NERReq9CWLMetric(k)`.
pub fn nerr9(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::Nerr9, out)
}

/// NERR10(p): `NERReq10CWLMetric(p)`.
pub fn nerr10(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::Nerr10, out)
}

/// NERR11(T): `NERReq11CWLMetric(T)`.
pub fn nerr11(
    q: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    put(q, request, Rule::Nerr11, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::UNJUDGED;

    #[test]
    fn gains_are_clipped_and_scaled() {
        assert_eq!(gain(2.0, 0.0, 4.0), 0.5);
        assert_eq!(gain(7.0, 0.0, 4.0), 1.0);
        assert_eq!(gain(UNJUDGED, 0.0, 4.0), 0.0);
        assert_eq!(gain(UNJUDGED, -1.0, 1.0), 0.5); // judged negative: grade 0, then clipped
        assert_eq!(gain(1.0, 2.0, 3.0), 0.0);
        assert!(gain(NOT_IN_QRELS, 0.0, 1.0).is_nan());
    }

    #[test]
    fn binary_gains_read_negative_grades_as_zero() {
        assert_eq!(binary_gain(2.0, 2.0), 1.0);
        assert_eq!(binary_gain(1.0, 2.0), 0.0);
        assert_eq!(binary_gain(UNJUDGED, 0.0), 1.0); // judged negative: grade 0 >= rel 0
        assert!(binary_gain(NOT_IN_QRELS, 0.0).is_nan());
    }
}
