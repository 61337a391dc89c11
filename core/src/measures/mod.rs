//! Stage 4: the measures. Every kernel has the same small interface: one query's labeled
//! ranking in, one value per output line out. They are listed in one table, `KERNELS`;
//! the Python registry holds the rest of each measure's record (names, parameters, help).
//!
//! Floating point follows trec_eval: terms added in rank order, divided by the discount
//! (never multiplied by a reciprocal), log2 from the C library, no fused multiply-add.

pub mod counts;
pub mod err;
pub mod gain;
pub mod gains;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::options::{Options, Request};

/// One query as every measure sees it.
pub struct Query<'a> {
    /// Relevance value of each ranked document, in rank order: its grade (>= 0) when judged,
    /// `label::NOT_IN_QRELS` (-1) when the qrels do not list it, `label::UNJUDGED` (-2) when
    /// judged negative. After -M, and after -J when the evaluation or the request asks for it.
    pub ranked: &'a [f64],
    /// Grades >= 0 of every document the qrels judge for this query, highest first.
    pub judged: &'a [f64],
}

/// What one measuring part keeps across its queries: warnings (each said once), for the
/// caller to show, and the gain tables built so far.
#[derive(Debug, Default)]
pub struct Notes {
    pub warnings: Vec<String>,
    pub(crate) merge_tables: Vec<std::sync::Arc<gains::MergeTable>>,
}

impl Notes {
    pub fn warn(&mut self, warning: String) {
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }
}

/// Computes one query's values of a request, one per output line, into `out`.
pub type Kernel = fn(&Query, &Request, &Options, &mut Notes, &mut [f64]) -> Result<()>;

/// A kernel and what the driver needs to know about it.
pub struct KernelRecord {
    pub name: &'static str,
    pub compute: Kernel,
}

impl KernelRecord {
    /// How many output lines (values per query) a request of this kernel has.
    pub fn lines(&self, request: &Request) -> usize {
        request.cutoffs.len().max(1)
    }
}

/// Every kernel, by the name the Python registry sends, in the registry's order.
pub static KERNELS: &[KernelRecord] = &[
    record("runid", counts::runid),
    record("num_q", counts::num_q),
    record("num_ret", counts::num_ret),
    record("num_rel", counts::num_rel),
    record("num_rel_ret", counts::num_rel_ret),
    record("binG", gain::bin_g),
    record("G", gain::gain_g),
    record("dcg", gain::dcg),
    record("ideal_dcg", gain::ideal_dcg),
    record("ndcg", gain::ndcg),
    record("ndcg_rel", gain::ndcg_rel),
    record("Rndcg", gain::rndcg),
    record("ndcg_cut", gain::ndcg_cut),
    record("err_cut", err::err_cut),
    record("ndcg_p", gain::ndcg_p),
    record("cg_cut", gain::cg_cut),
];

const fn record(name: &'static str, compute: Kernel) -> KernelRecord {
    KernelRecord { name, compute }
}

/// Writes a one-line measure's value.
pub(crate) fn single(out: &mut [f64], value: f64) {
    debug_assert_eq!(out.len(), 1);
    if let Some(slot) = out.first_mut() {
        *slot = value;
    }
}

/// The cutoffs of a cutoff measure's request: at least one, ascending, distinct (the kernels
/// walk the ranking once, from one cutoff to the next).
pub(crate) fn cutoffs_of<'r>(request: &'r Request, out: &[f64]) -> Result<&'r [usize]> {
    let cutoffs = &request.cutoffs;
    if cutoffs.is_empty() || !cutoffs.windows(2).all(|w| w[0] < w[1]) {
        return Err(Error::new(format!(
            "measure '{}': cutoffs must be ascending and distinct, at least one (got {:?})",
            request.kernel, cutoffs
        )));
    }
    debug_assert_eq!(out.len(), cutoffs.len());
    Ok(cutoffs)
}

pub fn kernel(name: &str) -> Option<&'static KernelRecord> {
    KERNELS.iter().find(|k| k.name == name)
}
