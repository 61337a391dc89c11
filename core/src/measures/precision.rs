//! The counting measures, at cutoffs and over the retrieved set: P, recall, relative_P,
//! success, unj (m_P.c, m_recall.c, m_rel_P.c, m_success.c, m_unjudged.c), and set_P,
//! set_recall, set_relative_P, set_map, set_F, utility, num_nonrel_judged_ret.
//!
//! A document counts as relevant where trec_eval's loops test `rel >= -l` on the ranked
//! relevance values (documents the qrels lack are -1, negative grades -2); the totals come
//! from `Tally`, as trec_eval's `res_rels` counts them.

use super::{cutoffs_of, single, Notes, Query};
use crate::error::Result;
use crate::label::NOT_IN_QRELS;
use crate::options::{Options, Request};

/// One query's totals, as trec_eval's `te_form_res_rels` counts them, at one relevance level.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    /// The relevance level they were counted at.
    pub level: f64,
    /// Documents ranked (after -M and -J).
    pub ret: usize,
    /// Judged documents (grade >= 0) with grade >= -l.
    pub rel: usize,
    /// Ranked documents judged with grade >= 0 and >= -l.
    pub rel_ret: usize,
    /// Judged documents with 0 <= grade < -l.
    pub nonrel: usize,
}

impl Tally {
    /// The query's totals at the options' level: counted once per query by the driver, again
    /// only for a request with its own level.
    pub fn of(query: &Query, options: &Options) -> Self {
        match query.tally {
            Some(t) if t.level == options.relevance_level => t,
            _ => Tally::count(query, options.relevance_level),
        }
    }

    pub fn count(query: &Query, level: f64) -> Self {
        let rel = query.judged.iter().filter(|&&g| g >= level).count();
        Tally {
            level,
            ret: query.ranked.len(),
            rel,
            rel_ret: query
                .ranked
                .iter()
                .filter(|&&v| v >= 0.0 && v >= level)
                .count(),
            nonrel: query.judged.len() - rel,
        }
    }
}

/// For each cutoff k: `at(relevant among the first k, k)`; past the end of the ranking the
/// count stays what it was, as trec_eval's cutoff loops leave it.
fn at_cutoffs(
    query: &Query,
    request: &Request,
    counts: impl Fn(f64) -> bool,
    out: &mut [f64],
    at: impl Fn(usize, usize) -> f64,
) -> Result<()> {
    let cutoffs = cutoffs_of(request, out)?;
    let mut seen = 0;
    let mut next = 0;
    for (i, &v) in query.ranked.iter().enumerate() {
        if i == cutoffs[next] {
            out[next] = at(seen, i);
            next += 1;
            if next == cutoffs.len() {
                return Ok(());
            }
        }
        if counts(v) {
            seen += 1;
        }
    }
    for (slot, &k) in out[next..].iter_mut().zip(&cutoffs[next..]) {
        *slot = at(seen, k);
    }
    Ok(())
}

/// Precision at k: relevant in the first k over k.
pub fn p(q: &Query, r: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let level = o.relevance_level;
    at_cutoffs(q, r, |v| v >= level, out, |rel, k| rel as f64 / k as f64)
}

/// Recall at k: relevant in the first k over all relevant (0 without relevant documents).
pub fn recall(q: &Query, r: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let (level, num_rel) = (o.relevance_level, Tally::of(q, o).rel);
    if num_rel == 0 {
        out.fill(0.0);
        return Ok(());
    }
    at_cutoffs(
        q,
        r,
        |v| v >= level,
        out,
        |rel, _| rel as f64 / num_rel as f64,
    )
}

/// Relative precision at k: relevant in the first k over min(k, relevant).
pub fn relative_p(
    q: &Query,
    r: &Request,
    o: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let (level, num_rel) = (o.relevance_level, Tally::of(q, o).rel);
    if num_rel == 0 {
        out.fill(0.0);
        return Ok(());
    }
    at_cutoffs(
        q,
        r,
        |v| v >= level,
        out,
        |rel, k| rel as f64 / k.min(num_rel) as f64,
    )
}

/// Success at k: 1 if a relevant document is in the first k.
pub fn success(q: &Query, r: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let level = o.relevance_level;
    at_cutoffs(
        q,
        r,
        |v| v >= level,
        out,
        |rel, _| {
            if rel > 0 {
                1.0
            } else {
                0.0
            }
        },
    )
}

/// Unjudged at k: documents the qrels lack or grade negative in the first k, over k.
pub fn unj(q: &Query, r: &Request, _: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    if q.stand_in {
        out.fill(0.0);
        return Ok(());
    }
    at_cutoffs(q, r, |v| v < 0.0, out, |unj, k| unj as f64 / k as f64)
}

/// Judged at k (ir_measures' Judged@k, BEIR's hole rate turned around): documents the qrels
/// list, whatever their grade, among the first min(k, retrieved), over min(k, retrieved).
pub fn judged(q: &Query, r: &Request, _: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let cutoffs = cutoffs_of(r, out)?;
    for (slot, &k) in out.iter_mut().zip(cutoffs) {
        let top = &q.ranked[..k.min(q.ranked.len())];
        let listed = top.iter().filter(|&&v| v != NOT_IN_QRELS).count();
        *slot = ratio(listed, top.len());
    }
    Ok(())
}

/// Relevant retrieved over retrieved.
pub fn set_p(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let t = Tally::of(q, o);
    single(out, ratio(t.rel_ret, t.ret));
    Ok(())
}

/// Relevant retrieved over relevant.
pub fn set_recall(
    q: &Query,
    _: &Request,
    o: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let t = Tally::of(q, o);
    single(out, ratio(t.rel_ret, t.rel));
    Ok(())
}

/// Relevant retrieved over min(retrieved, relevant).
pub fn set_relative_p(
    q: &Query,
    _: &Request,
    o: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let t = Tally::of(q, o);
    single(out, ratio(t.rel_ret, t.ret.min(t.rel))); // 0 unless both are positive
    Ok(())
}

/// set_P times set_recall.
pub fn set_map(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let t = Tally::of(q, o);
    let value = if t.ret > 0 && t.rel > 0 {
        (t.rel_ret as f64 * t.rel_ret as f64) / (t.ret as f64 * t.rel as f64)
    } else {
        0.0
    };
    single(out, value);
    Ok(())
}

/// (beta + 1) P R / (beta P + R) of the retrieved set; beta = params[0] (trec_eval's weight
/// is the parameter itself, not its square).
pub fn set_f(q: &Query, r: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let t = Tally::of(q, o);
    let beta = super::numbers_or(r, &[super::defaults::SET_F_BETA])[0];
    let value = if t.rel_ret > 0 {
        let precision = t.rel_ret as f64 / t.ret as f64;
        let recall = t.rel_ret as f64 / t.rel as f64;
        (beta + 1.0) * precision * recall / (beta * precision + recall)
    } else {
        0.0
    };
    single(out, value);
    Ok(())
}

/// a rel_ret + b nonrel_ret + c rel_not_ret + d nonrel_not_ret, with -N the collection size
/// (the default a,b,c,d = 1,-1,0,0 when the request has none; then 0 for a -c stand-in).
pub fn utility(q: &Query, r: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    if q.stand_in && r.params.is_empty() {
        single(out, 0.0);
        return Ok(());
    }
    let t = Tally::of(q, o);
    let coefficients = super::numbers_or(r, &super::defaults::UTILITY);
    let c = |i: usize| coefficients.get(i).copied().unwrap_or(0.0);
    let (ret, rel, rel_ret) = (t.ret as i64, t.rel as i64, t.rel_ret as i64);
    let value = c(0) * rel_ret as f64
        + c(1) * (ret - rel_ret) as f64
        + c(2) * (rel - rel_ret) as f64
        + c(3) * (o.num_docs + rel_ret - ret - rel) as f64;
    single(out, value);
    Ok(())
}

/// Ranked documents judged with 0 <= grade < -l.
pub fn num_nonrel_judged_ret(
    q: &Query,
    _: &Request,
    o: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let level = o.relevance_level;
    let n = q.ranked.iter().filter(|&&v| v >= 0.0 && v < level).count();
    single(out, n as f64);
    Ok(())
}

/// a / b, 0 when b is 0 (trec_eval leaves the value at 0).
fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
