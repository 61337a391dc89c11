//! Stage 3: rankings joined with the qrels.
//!
//! Each ranked document gets a relevance value: its grade when judged, NOT_IN_QRELS when
//! the qrels do not list it, UNJUDGED when listed with a negative grade. With -J every
//! negative value is dropped and the rest close up their ranks.

use crate::read::{Qrels, Run};

/// Relevance value of a ranked document the qrels do not list.
pub const NOT_IN_QRELS: f64 = -1.0;
/// Relevance value of a ranked document judged with a negative grade (in the pool, unjudged).
pub const UNJUDGED: f64 = -2.0;

/// Relevance values of a ranking (run lines in rank order) of qrels query `query`.
pub fn label_ranking(rows: &[usize], query: usize, run: &Run, qrels: &Qrels, out: &mut Vec<f64>) {
    out.clear();
    out.extend(
        rows.iter()
            .map(|&row| match qrels.grade(query, run.docnos.get(row)) {
                Some(g) if g >= 0.0 => g,
                Some(_) => UNJUDGED,
                None => NOT_IN_QRELS,
            }),
    );
}

/// The ranking without the documents the qrels do not judge (-J).
pub fn only_judged(values: &[f64], out: &mut Vec<f64>) {
    out.clear();
    out.extend(values.iter().copied().filter(|&v| v >= 0.0));
}

/// Grades >= 0 of a query's judged documents, highest first.
pub fn judged_grades(qrels: &Qrels, query: usize, out: &mut Vec<f64>) {
    out.clear();
    let range = qrels.offsets[query]..qrels.offsets[query + 1];
    out.extend(qrels.grades[range].iter().copied().filter(|&g| g >= 0.0));
    out.sort_unstable_by(|a, b| b.total_cmp(a));
}
