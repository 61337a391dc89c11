//! Average precision and its relatives: map, gm_map, map_cut, Rprec, Rprec_mult,
//! iprec_at_recall, 11pt_avg, recip_rank, and the incomplete-judgment measures bpref,
//! gm_bpref and infAP (m_map.c, m_gm_map.c, m_map_cut.c, m_Rprec.c, m_Rprec_mult.c,
//! m_iprec_at_recall.c, m_11pt_avg.c, m_recip_rank.c, m_bpref.c, m_gm_bpref.c, m_infap.c).
//!
//! The geometric-mean measures store log(max(value, MIN_GEO_MEAN)) per query, as trec_eval
//! does; their summary (`Summary::GeometricMean`) takes exp of the mean.

use super::precision::Tally;
use super::{cutoffs_of, single, Notes, Query};
use crate::error::Result;
use crate::label::{NOT_IN_QRELS, UNJUDGED};
use crate::options::{ApDivisor, Compat, Options, Request};

/// trec_eval's floor for a value whose log is averaged (`MIN_GEO_MEAN`).
pub const MIN_GEO_MEAN: f64 = 0.00001;

/// Sum over relevant ranked documents of precision at their rank (trec_eval's order).
pub(crate) fn precision_sum(query: &Query, level: f64) -> (f64, usize) {
    let (mut sum, mut rel) = (0.0, 0);
    for (i, &v) in query.ranked.iter().enumerate() {
        if v >= level {
            rel += 1;
            sum += rel as f64 / (i + 1) as f64;
        }
    }
    (sum, rel)
}

fn average_precision(query: &Query, options: &Options) -> f64 {
    let (sum, rel_seen) = precision_sum(query, options.relevance_level);
    if rel_seen == 0 {
        return 0.0;
    }
    sum / divisor(query, options, rel_seen) as f64
}

/// What AP is divided by: the query's relevant documents, or those found (`ApDivisor`).
fn divisor(query: &Query, options: &Options, found: usize) -> usize {
    match options.ap_divisor {
        ApDivisor::Relevant => Tally::of(query, options).rel,
        ApDivisor::Found => found,
    }
}

/// Mean average precision (per query: AP).
pub fn map(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    single(out, average_precision(q, o));
    Ok(())
}

/// Geometric mean AP: per query log(max(AP, MIN_GEO_MEAN)).
pub fn gm_map(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    single(out, average_precision(q, o).max(MIN_GEO_MEAN).ln());
    Ok(())
}

/// AP of the first k documents (the sum over relevant in the first k, over all relevant).
pub fn map_cut(q: &Query, r: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let cutoffs = cutoffs_of(r, out)?;
    let (level, num_rel) = (o.relevance_level, Tally::of(q, o).rel);
    if num_rel == 0 {
        out.fill(0.0);
        return Ok(());
    }
    // AP so far: over all relevant, or over those found so far (0 before the first)
    let ap = |sum: f64, found: usize| match o.ap_divisor {
        ApDivisor::Relevant => sum / num_rel as f64,
        ApDivisor::Found if found == 0 => 0.0,
        ApDivisor::Found => sum / found as f64,
    };
    let (mut sum, mut rel, mut next) = (0.0, 0, 0);
    for (i, &v) in q.ranked.iter().enumerate() {
        if i == cutoffs[next] {
            out[next] = ap(sum, rel);
            next += 1;
            if next == cutoffs.len() {
                return Ok(());
            }
        }
        if v >= level {
            rel += 1;
            sum += rel as f64 / (i + 1) as f64;
        }
    }
    out[next..].fill(ap(sum, rel));
    Ok(())
}

/// Precision at rank R (R = relevant documents): relevant in the first min(R, retrieved), over R.
pub fn rprec(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let t = Tally::of(q, o);
    let look = t.ret.min(t.rel);
    let value = if look == 0 {
        0.0
    } else {
        let rel = q.ranked[..look]
            .iter()
            .filter(|&&v| v >= o.relevance_level)
            .count();
        rel as f64 / t.rel as f64
    };
    single(out, value);
    Ok(())
}

/// Precision at rank m R for each multiplier m (params, ascending): rank (long)(m R + 0.9).
pub fn rprec_mult(
    q: &Query,
    r: &Request,
    o: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let t = Tally::of(q, o);
    let ranks: Vec<i64> = r
        .params
        .iter()
        .map(|&m| (m * t.rel as f64 + 0.9) as i64)
        .collect();
    out.fill(0.0);
    let mut cut = ranks.len() as i64 - 1;
    while cut >= 0 && ranks[cut as usize] > t.ret as i64 {
        out[cut as usize] = t.rel_ret as f64 / ranks[cut as usize] as f64;
        cut -= 1;
    }
    let mut rel_seen = t.rel_ret;
    let mut i = t.ret;
    while i > 0 && rel_seen > 0 {
        let precision = rel_seen as f64 / i as f64;
        while cut >= 0 && i as i64 == ranks[cut as usize] {
            out[cut as usize] = precision;
            cut -= 1;
        }
        if q.ranked[i - 1] >= o.relevance_level {
            rel_seen -= 1;
        }
        i -= 1;
    }
    Ok(())
}

/// The number of relevant documents at which recall reaches `point` of `num_rel`: rounded
/// to nearest in trec_eval 10, `(long)(point R + 0.9)` in 9.x.
pub(crate) fn recall_rank(point: f64, num_rel: usize, compat: Compat) -> i64 {
    let x = point * num_rel as f64;
    match compat {
        Compat::Ten => x.round() as i64,
        Compat::Nine => (x + 0.9) as i64,
    }
}

/// Interpolated precision at each recall point (the maximum precision at any recall at or
/// above it), walking the ranking from its end as trec_eval does; calls `emit(point, value)`.
fn interpolated(q: &Query, points: &[f64], o: &Options, mut emit: impl FnMut(usize, f64)) {
    let t = Tally::of(q, o);
    let ranks: Vec<i64> = points
        .iter()
        .map(|&p| recall_rank(p, t.rel, o.compat))
        .collect();
    let mut cut = ranks.len() as i64 - 1;
    while cut >= 0 && ranks[cut as usize] > t.rel_ret as i64 {
        cut -= 1;
    }
    let mut best = t.rel_ret as f64 / t.ret as f64;
    let mut rel_seen = t.rel_ret;
    let mut i = t.ret;
    while i > 0 && rel_seen > 0 {
        let precision = rel_seen as f64 / i as f64;
        if best < precision {
            best = precision;
        }
        if q.ranked[i - 1] >= o.relevance_level {
            while cut >= 0 && rel_seen as i64 == ranks[cut as usize] {
                emit(cut as usize, best);
                cut -= 1;
            }
            rel_seen -= 1;
        }
        i -= 1;
    }
    while cut >= 0 {
        emit(cut as usize, best);
        cut -= 1;
    }
}

/// Interpolated precision at recall points (params, ascending: 0.0, 0.1, ..., 1.0).
pub fn iprec_at_recall(
    q: &Query,
    r: &Request,
    o: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    out.fill(0.0);
    interpolated(q, &r.params, o, |point, value| out[point] = value);
    Ok(())
}

/// The mean of the interpolated precisions at the recall points (as given, default 0.0, ...,
/// 1.0), added from the last point as trec_eval walks them.
pub fn eleven_point(
    q: &Query,
    r: &Request,
    o: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let points = super::numbers_or(r, &super::defaults::RECALL_POINTS);
    let mut sum = 0.0;
    interpolated(q, points, o, |_, value| sum += value);
    single(out, sum / points.len() as f64);
    Ok(())
}

/// 1 / rank of the first relevant document (0 when none is ranked); with a cutoff k
/// (ir_measures' RR@k), only within the first k.
pub fn recip_rank(
    q: &Query,
    r: &Request,
    o: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let depth = r
        .cutoffs
        .first()
        .map_or(q.ranked.len(), |&k| k.min(q.ranked.len()));
    let first = q.ranked[..depth]
        .iter()
        .position(|&v| v >= o.relevance_level);
    single(out, first.map_or(0.0, |i| 1.0 / (i + 1) as f64));
    Ok(())
}

/// bpref: per relevant ranked document, 1 - min(judged nonrelevant above, R) / min(N, R),
/// over R (N: judged nonrelevant documents); unjudged documents are skipped.
fn bpref_of(q: &Query, o: &Options) -> f64 {
    let t = Tally::of(q, o);
    let level = o.relevance_level;
    let (mut bpref, mut nonrel_seen) = (0.0, 0usize);
    for &v in q.ranked {
        if v == NOT_IN_QRELS || v == UNJUDGED {
            continue;
        }
        if v >= 0.0 && v < level {
            nonrel_seen += 1;
        } else if nonrel_seen > 0 {
            bpref += 1.0 - nonrel_seen.min(t.rel) as f64 / t.nonrel.min(t.rel) as f64;
        } else {
            bpref += 1.0;
        }
    }
    if t.rel > 0 {
        bpref /= t.rel as f64;
    }
    bpref
}

pub fn bpref(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    single(out, bpref_of(q, o));
    Ok(())
}

/// Geometric mean bpref: per query log(max(bpref, MIN_GEO_MEAN)).
pub fn gm_bpref(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    single(out, bpref_of(q, o).max(MIN_GEO_MEAN).ln());
    Ok(())
}

/// trec_eval's smoothing constant of infAP.
pub(crate) const INFAP_EPSILON: f64 = 0.00001;

/// Inferred AP (Yilmaz and Aslam): documents the qrels lack count as nonrelevant ranks,
/// pooled-but-unjudged ones (negative grades) are left out of the precision estimate.
pub fn infap(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let level = o.relevance_level;
    let (mut inf_ap, mut rel, mut nonrel, mut unjudged) = (0.0, 0i64, 0i64, 0i64);
    for (j, &v) in q.ranked.iter().enumerate() {
        if v == NOT_IN_QRELS {
            continue;
        }
        if v == UNJUDGED {
            unjudged += 1;
            continue;
        }
        if v >= 0.0 && v < level {
            nonrel += 1;
            continue;
        }
        rel += 1;
        if j == 0 {
            inf_ap += 1.0;
        } else {
            let fj = j as f64;
            let above = (rel - 1 + nonrel + unjudged) as f64;
            inf_ap += 1.0 / (fj + 1.0)
                + (fj / (fj + 1.0))
                    * (above / fj)
                    * (((rel - 1) as f64 + INFAP_EPSILON)
                        / ((rel - 1 + nonrel) as f64 + 2.0 * INFAP_EPSILON));
        }
    }
    let num_rel = Tally::of(q, o).rel;
    if num_rel > 0 {
        inf_ap /= num_rel as f64;
    }
    single(out, inf_ap);
    Ok(())
}
