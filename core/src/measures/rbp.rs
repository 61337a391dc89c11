//! Rank-biased precision (Moffat and Zobel) and its residual (m_rbp.c, m_rbp_resid.c):
//! persistence p (default 0.9) from the measure's `p=` parameter, gains from its level=gain
//! pairs (or the global gains) scaled into [0, 1] when any lies outside.
//!
//! trec_eval 10.0 means to scale by the smallest and largest gain of the query's gain table,
//! but starts both from uninitialised doubles, so what it prints depends on the compiler and
//! on the measures computed before (docs/trec_eval_measures.md). trecgain does what its
//! comment says: min and max over the table's gains.

use super::gains::{scheme_gain, table_extremes, GainRule, Gains, MAX_LEVEL};
use super::{single, Notes, Query};
use crate::error::Result;
use crate::options::{Options, Request};

/// The documents RBP looks at: all, or the first k for ir_measures' RBP@k.
pub(crate) fn depth(query: &Query, request: &Request) -> usize {
    request
        .cutoffs
        .first()
        .map_or(query.ranked.len(), |&k| k.min(query.ranked.len()))
}

pub(crate) fn persistence(request: &Request) -> f64 {
    super::numbers_or(request, &[super::defaults::RBP_P])[0]
}

/// The smallest and largest gain of the query's gain table (gains.rs, `table_extremes`);
/// fractional grades (and grades past 2^53) have no levels: the judged grades' gains.
fn extremes(query: &Query, rule: &GainRule, level: f64) -> (f64, f64) {
    let listed: Vec<(i64, f64)> = rule
        .pairs
        .iter()
        .filter_map(|p| p.level.map(|l| (l, p.gain)))
        .collect();
    if query
        .judged
        .iter()
        .any(|g| g.fract() != 0.0 || *g > MAX_LEVEL)
    {
        let gains = listed.iter().map(|&(_, g)| g).chain(
            query
                .judged
                .iter()
                .map(|&g| scheme_gain(rule.scheme, g, level)),
        );
        return gains.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), g| {
            (lo.min(g), hi.max(g))
        });
    }
    let num_levels = query.judged.first().map_or(0, |&top| top as i64 + 1);
    table_extremes(rule.scheme, &listed, num_levels, level)
}

/// Per ranked document its gain, and the (min, max) the gains were scaled by, if they were.
pub(crate) type ScaledGains = (Vec<f64>, Option<(f64, f64)>);

/// RBP's gain of each document of the first `depth` ranks, scaled into [0, 1] when the
/// table's gains leave it (then also the (min, max) it scaled by). Explain shows these.
pub(crate) fn scaled_gains(
    q: &Query,
    r: &Request,
    o: &Options,
    notes: &mut Notes,
) -> Result<ScaledGains> {
    let rule = GainRule::resolve(r.gains.as_ref(), o);
    let gains = Gains::new(q, &rule, o.relevance_level, notes)?;
    let (min, max) = extremes(q, &rule, o.relevance_level);
    let scaled = min < 0.0 || max > 1.0;
    let in_table = |v: f64| {
        v >= 0.0
            || rule
                .pairs
                .iter()
                .any(|p| p.level.map(|l| l as f64) == Some(v))
    };
    let out = q.ranked[..depth(q, r)]
        .iter()
        .map(|&v| {
            let gain = gains.ranked(v);
            if scaled && in_table(v) {
                (gain - min) / (max - min)
            } else {
                gain
            }
        })
        .collect();
    Ok((out, scaled.then_some((min, max))))
}

/// RBP: (1 - p) times the sum over ranks i of gain(i) p^(i-1).
pub fn rbp(q: &Query, r: &Request, o: &Options, notes: &mut Notes, out: &mut [f64]) -> Result<()> {
    let (gains, _) = scaled_gains(q, r, o, notes)?;
    let p = persistence(r);
    let (mut sum, mut weight) = (0.0, 1.0);
    for gain in gains {
        if gain != 0.0 {
            sum += gain * weight;
        }
        weight *= p;
    }
    single(out, (1.0 - p) * sum);
    Ok(())
}

pub fn rbp_resid(
    q: &Query,
    r: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    if q.stand_in && r.params.is_empty() {
        single(out, 0.0);
        return Ok(());
    }
    let p = persistence(r);
    let (mut sum, mut weight, mut unjudged) = (0.0, 1.0, 0usize);
    for &v in q.ranked {
        if v < 0.0 {
            unjudged += 1;
            sum += weight;
        }
        weight *= p;
    }
    single(
        out,
        if unjudged > 0 {
            weight + (1.0 - p) * sum
        } else {
            0.0
        },
    );
    Ok(())
}
