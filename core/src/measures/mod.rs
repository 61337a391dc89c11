//! Stage 4: the measures. Every kernel has the same small interface: one query's labeled
//! ranking in, one value per output line out. They are listed in one table, `KERNELS`;
//! the Python registry holds the rest of each measure's record (names, parameters, help).
//!
//! Floating point follows trec_eval: terms added in rank order, divided by the discount
//! (never multiplied by a reciprocal), log2 from the C library, no fused multiply-add.

use crate::error::Result;
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

/// Warnings collected while measuring (each said once), for the caller to show.
#[derive(Debug, Default)]
pub struct Notes {
    pub warnings: Vec<String>,
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

/// Every kernel, by the name the Python registry sends.
pub static KERNELS: &[KernelRecord] = &[];

pub fn kernel(name: &str) -> Option<&'static KernelRecord> {
    KERNELS.iter().find(|k| k.name == name)
}
