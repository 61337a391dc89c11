//! Measures only ir_measures has, computed as its own providers compute them.
//!
//! Compat (Clarke, Vtyurina and Smucker, TOIS 2021; ir_measures' `compat` provider): the
//! rank-biased overlap of the run's ranking with an ideal ranking, to the depth of the longer
//! of the two. The ranking is the run's, score descending, ties by docno ascending; the ideal
//! is every document judged above 0, highest grade first, then by the run's score (0 for a
//! document the run lacks), then in qrels order. At depth d (1-based) the overlap is the
//! number of documents in both the ranking's first d and the ideal's first d, over d; RBO
//! adds these with weight p^(d - 1) and divides by the sum of the weights. Normalized, it is
//! divided by the ideal's RBO with itself (when that is above 0). Which documents the two
//! rankings share is joined per query in stage 3 (`Overlap`, crate::relations); the operations
//! here are the provider's, in its order: `score += weight * shared / d`, `weights += weight`,
//! `weight *= p`.
//!
//! Accuracy (ir_measures' `accuracy` provider): the share of (relevant, nonrelevant) pairs
//! of the ranking in which the relevant document comes first. The ranking is the run's in its
//! own order for equal scores (the record's tie rule, `Ties::Input`), cut at the cutoff; a
//! document is relevant when its grade (0 for one the qrels lack) is at least the level. The
//! provider's arithmetic: the nonrelevant documents above each relevant one, summed as a whole
//! number S; the value 1 - S / (N * R), N the nonrelevant and R the relevant documents of the
//! cut ranking, N converted to a double and multiplied by R. No relevant document: no value
//! (NaN, left out of the mean by `Summary::MeanOfDefined`). No nonrelevant one: the provider
//! divides by zero and fails; trecgain gives 1, what one nonrelevant document appended would
//! give (every relevant document is before every nonrelevant one).

use super::{single, Notes, Query};
use crate::error::{Error, Result};
use crate::label::NOT_IN_QRELS;
use crate::options::{Options, Request};

/// What the run's ranking and the ideal ranking of one query share.
#[derive(Debug, Default, Clone)]
pub struct Overlap {
    /// Documents ranked (after -M).
    pub ranked: usize,
    /// Documents in the ideal ranking (judged above 0).
    pub ideal: usize,
    /// Per depth d - 1: how many documents are first in both rankings' first d (a document of
    /// both at rank a in one and b in the other arrives at depth max(a, b)).
    pub arrivals: Vec<u32>,
}

/// ir_measures' own rankings of one query, joined in stage 3 for the measures that read them
/// (`KernelRecord::overlap`, `KernelRecord::run_order`).
#[derive(Debug, Default, Clone)]
pub struct Rankings {
    /// Compat: what the run's ranking shares with the ideal ranking.
    pub overlap: Option<Overlap>,
    /// The C/W/L measures: the relevance values (as `Query::ranked` has them) of the ranking
    /// as ir_measures' providers sort it: score descending (the doubles), equal scores in the
    /// run's order (a stable sort); after -M, not changed by -J.
    pub run_order: Option<Vec<f64>>,
}

/// RBO of two rankings whose shared prefix sizes grow by `arrivals`, to `depth`.
fn rbo(arrivals: impl Iterator<Item = u32>, p: f64, depth: usize) -> f64 {
    let (mut score, mut weights, mut weight) = (0.0, 0.0, 1.0);
    let mut shared = 0u64;
    let mut arrivals = arrivals;
    for d in 1..=depth {
        shared += u64::from(arrivals.next().unwrap_or(0));
        score += weight * shared as f64 / d as f64;
        weights += weight;
        weight *= p;
    }
    if depth == 0 {
        return 0.0; // the provider divides 0 by 0 here only for a query with nothing at all
    }
    score / weights
}

/// What Compat reads of a query and its request: the overlap joined with the ideal ranking,
/// p, and whether to normalize (for the kernel and for explain).
pub(crate) fn compat_inputs<'q>(
    query: &Query<'q>,
    request: &Request,
) -> Result<(&'q Overlap, f64, bool)> {
    let Some(overlap) = query.rankings.and_then(|r| r.overlap.as_ref()) else {
        return Err(Error::new(
            "Compat needs the run's documents (internal: no overlap joined)",
        ));
    };
    match request.params.as_slice() {
        [p, normalize] => Ok((overlap, *p, *normalize != 0.0)),
        _ => Err(Error::new("Compat takes two parameters: p and normalize")),
    }
}

/// Compat(p, normalize): params are p and normalize (1 or 0).
pub fn compat(
    query: &Query,
    request: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let (overlap, p, normalize) = compat_inputs(query, request)?;
    let depth = overlap.ranked.max(overlap.ideal);
    let mut score = rbo(overlap.arrivals.iter().copied(), p, depth);
    if normalize {
        let ideal = overlap.ideal;
        let best = rbo((0..depth).map(|d| u32::from(d < ideal)), p, depth);
        if best > 0.0 {
            score /= best;
        }
    }
    single(out, score);
    Ok(())
}

/// Accuracy(rel)@k: the cutoff, if any, in `request.cutoffs`; the level in `options` (the
/// request's rel, else -l).
pub fn accuracy(
    query: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let level = options.relevance_level; // 0 or more: the record's level_from_zero
    let cutoff = request.cutoffs.first().copied().unwrap_or(usize::MAX);
    let (mut relevant, mut nonrelevant, mut above) = (0u64, 0u64, 0u64);
    for &value in query.ranked.iter().take(cutoff) {
        let grade = if value == NOT_IN_QRELS { 0.0 } else { value };
        if grade >= level {
            relevant += 1;
            above += nonrelevant;
        } else {
            nonrelevant += 1;
        }
    }
    let value = match (relevant, nonrelevant) {
        (0, _) => f64::NAN,
        (_, 0) => 1.0,
        _ => 1.0 - above as f64 / (nonrelevant as f64 * relevant as f64),
    };
    single(out, value);
    Ok(())
}
