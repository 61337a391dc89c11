//! Stage 4: the measures. Every kernel has the same small interface: one query's labeled
//! ranking in, one value per output line out. They are listed in one table, `KERNELS`;
//! the Python registry holds the rest of each measure's record (names, parameters, help).
//!
//! Floating point follows trec_eval: terms added in rank order, divided by the discount
//! (never multiplied by a reciprocal), log2 from the C library, no fused multiply-add.

pub mod ap;
pub mod counts;
pub mod err;
pub mod gain;
pub mod gains;
pub mod precision;
pub mod rbp;
pub mod relstring;
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
    /// A query the run lacks, brought in by -c and ranked as trec_eval 10 ranks it: one
    /// document the qrels do not list ("ceci_nest_pas_un_docno"). trec_eval then resets
    /// num_ret, the default utility and rbp_resid, unj and relstring: those kernels do too.
    pub stand_in: bool,
    /// Its totals at the evaluation's relevance level, when the driver counted them (for the
    /// ranking as the request sees it).
    pub tally: Option<precision::Tally>,
    /// With `--ties average`: per ranked document, its tie group's number (equal numbers are
    /// adjacent); the gain kernels give every document its group's mean gain.
    pub ties: Option<&'a [u32]>,
}

/// What one measuring part keeps across its queries: warnings (each said once), for the
/// caller to show, and the gain tables built so far.
#[derive(Debug, Default)]
pub struct Notes {
    pub warnings: Vec<String>,
    /// Queries where documents of different relevance values tie (trec_eval's tie rule decides).
    pub mixed_tie_queries: usize,
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

/// How many values per query (output slots) a request of a kernel has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slots {
    /// One value.
    One,
    /// One per cutoff.
    PerCutoff,
    /// One per numeric parameter (recall points, R multipliers).
    PerParam,
    /// One per character of relstring.
    Chars,
}

/// A kernel and what the driver needs to know about it.
pub struct KernelRecord {
    pub name: &'static str,
    pub compute: Kernel,
    pub slots: Slots,
    /// trec_eval 9.x has the measure: under `--compat 9` it follows 9.x's rules (the queries
    /// -c brings in are not evaluated, 9.x's recall points); a measure new in 10.0 follows
    /// 10.0's on float32 scores, whatever else is measured beside it.
    pub in_trec_eval_9: bool,
}

impl KernelRecord {
    /// How many values per query a request of this kernel has.
    pub fn lines(&self, request: &Request) -> usize {
        match self.slots {
            Slots::One => 1,
            Slots::PerCutoff => request.cutoffs.len().max(1),
            Slots::PerParam => request.params.len().max(1),
            Slots::Chars => relstring::length(request),
        }
    }
}

/// Every kernel, by the name the Python registry sends, in the registry's order.
pub static KERNELS: &[KernelRecord] = &[
    one("runid", counts::runid),
    one("num_q", counts::num_q),
    one("num_ret", counts::num_ret),
    one("num_rel", counts::num_rel),
    one("num_rel_ret", counts::num_rel_ret),
    one("map", ap::map),
    one("gm_map", ap::gm_map),
    one("Rprec", ap::rprec),
    one("bpref", ap::bpref),
    one("recip_rank", ap::recip_rank),
    per_param("iprec_at_recall", ap::iprec_at_recall),
    per_cutoff("P", precision::p),
    record("relstring", relstring::relstring, Slots::Chars),
    per_cutoff("recall", precision::recall),
    one("infAP", ap::infap),
    one("gm_bpref", ap::gm_bpref),
    per_param("Rprec_mult", ap::rprec_mult),
    one("utility", precision::utility),
    one("11pt_avg", ap::eleven_point),
    one("binG", gain::bin_g),
    one("G", gain::gain_g),
    new_in_10(one("dcg", gain::dcg)),
    new_in_10(one("ideal_dcg", gain::ideal_dcg)),
    one("ndcg", gain::ndcg),
    one("ndcg_rel", gain::ndcg_rel),
    one("Rndcg", gain::rndcg),
    per_cutoff("ndcg_cut", gain::ndcg_cut),
    per_cutoff("map_cut", ap::map_cut),
    per_cutoff("relative_P", precision::relative_p),
    per_cutoff("success", precision::success),
    one("set_P", precision::set_p),
    one("set_relative_P", precision::set_relative_p),
    one("set_recall", precision::set_recall),
    one("set_map", precision::set_map),
    one("set_F", precision::set_f),
    one("num_nonrel_judged_ret", precision::num_nonrel_judged_ret),
    new_in_10(one("rbp", rbp::rbp)),
    new_in_10(one("rbp_resid", rbp::rbp_resid)),
    new_in_10(per_cutoff("unj", precision::unj)),
    per_cutoff("err_cut", err::err_cut),
    one("ndcg_p", gain::ndcg_p),
    per_cutoff("cg_cut", gain::cg_cut),
    per_cutoff("dcg_cut", gain::dcg_cut),
    per_cutoff("judged", precision::judged),
];

const fn record(name: &'static str, compute: Kernel, slots: Slots) -> KernelRecord {
    KernelRecord {
        name,
        compute,
        slots,
        in_trec_eval_9: true,
    }
}

const fn new_in_10(record: KernelRecord) -> KernelRecord {
    KernelRecord {
        in_trec_eval_9: false,
        ..record
    }
}

const fn one(name: &'static str, compute: Kernel) -> KernelRecord {
    record(name, compute, Slots::One)
}

const fn per_cutoff(name: &'static str, compute: Kernel) -> KernelRecord {
    record(name, compute, Slots::PerCutoff)
}

const fn per_param(name: &'static str, compute: Kernel) -> KernelRecord {
    record(name, compute, Slots::PerParam)
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
