//! Test support (compiled for tests only): requests, qrels and runs written as literals.

use crate::options::{Request, Summary};
use crate::read::{Qrels, Run};

/// A request of `kernel` at `cutoffs` with `params`, averaged, nothing else asked.
pub(crate) fn request(kernel: &str, cutoffs: &[usize], params: &[f64]) -> Request {
    Request {
        kernel: kernel.into(),
        cutoffs: cutoffs.to_vec(),
        params: params.to_vec(),
        gains: None,
        judged_only: false,
        relevance_level: None,
        summary: Summary::Mean,
        lines: Vec::new(),
    }
}

/// Qrels of (qid, docno, grade) judgments (integer grades), named "q.txt".
pub(crate) fn qrels(judgments: &[(&str, &str, f64)]) -> Qrels {
    Qrels::from_judgments(
        "q.txt",
        judgments
            .iter()
            .map(|&(q, d, g)| (q.as_bytes(), d.as_bytes(), g)),
        false,
    )
    .expect("good judgments")
}

/// A run of (qid, docno, score) lines in that order, named "r.txt".
pub(crate) fn run(lines: &[(&str, &str, f64)]) -> Run {
    Run::from_lines(
        "r.txt",
        lines
            .iter()
            .map(|&(q, d, s)| (q.as_bytes(), d.as_bytes(), s)),
        Vec::<Vec<u8>>::new(),
    )
    .expect("good lines")
}
