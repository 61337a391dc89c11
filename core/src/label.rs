//! Stage 3: rankings joined with the qrels.
//!
//! Each ranked document gets a relevance value: its grade when judged, NOT_IN_QRELS when
//! the qrels do not list it, UNJUDGED when listed with a negative grade. With -J every
//! negative value is dropped and the rest close up their ranks.

use hashbrown::HashMap;

use crate::error::Result;
use crate::options::{Compat, Options, Ties};
use crate::rank::{check_duplicates, rank_query, rank_query_by, sort_score, Grouping};
use crate::read::{Qrels, Run};

/// One qrels query's ranking as the evaluation and explain both prepare it: its run lines
/// (`rows`) ranked under the tie rule and -M, refused if a document is retrieved twice
/// (`seen`: scratch), and labeled with the qrels (`ranked`); whether -M cut through a tie.
#[allow(clippy::too_many_arguments)]
pub fn prepare_query<'a>(
    query: usize,
    grouping: &Grouping,
    run: &'a Run,
    qrels: &Qrels,
    options: &Options,
    seen: &mut HashMap<&'a [u8], usize>,
    rows: &mut Vec<usize>,
    ranked: &mut Vec<f64>,
) -> Result<bool> {
    query_lines(query, grouping, run, qrels, options, rows);
    let cut_tie = rank_query(rows, run, options);
    check_duplicates(rows, run, seen)?;
    label_ranking(rows, query, run, qrels, ranked);
    Ok(cut_tie)
}

/// One qrels query's run lines (`rows`), in the order the run gave them (without the
/// document named as the query, when the options drop it).
pub fn query_lines(
    query: usize,
    grouping: &Grouping,
    run: &Run,
    qrels: &Qrels,
    options: &Options,
    rows: &mut Vec<usize>,
) {
    rows.clear();
    rows.extend_from_slice(grouping.lines(query));
    if options.drop_self {
        let qid = qrels.qids.get(query);
        rows.retain(|&row| run.docnos.get(row) != qid);
    }
}

/// One qrels query's ranking under a measure's own tie rule (`KernelRecord::ties`), -M and -J
/// applied as to the evaluation's ranking (whose preparation, `prepare_query`, refused the
/// documents retrieved twice): labeled into `ranked`.
#[allow(clippy::too_many_arguments)]
pub fn prepare_query_by(
    query: usize,
    grouping: &Grouping,
    run: &Run,
    qrels: &Qrels,
    options: &Options,
    ties: Ties,
    rows: &mut Vec<usize>,
    ranked: &mut Vec<f64>,
) {
    query_lines(query, grouping, run, qrels, options, rows);
    rank_query_by(rows, run, options, ties);
    label_ranking(rows, query, run, qrels, ranked);
    if options.judged_only {
        ranked.retain(|&v| v >= 0.0);
    }
}

/// Relevance value of a ranked document the qrels do not list.
pub const NOT_IN_QRELS: f64 = -1.0;
/// Relevance value of a ranked document judged with a negative grade (in the pool, unjudged).
pub const UNJUDGED: f64 = -2.0;

/// The relevance value of a document with this grade in the qrels (None: not listed).
fn value_of(grade: Option<f64>) -> f64 {
    match grade {
        Some(g) if g >= 0.0 => g,
        Some(_) => UNJUDGED,
        None => NOT_IN_QRELS,
    }
}

/// Relevance values of a ranking (run lines in rank order) of qrels query `query`.
pub fn label_ranking(rows: &[usize], query: usize, run: &Run, qrels: &Qrels, out: &mut Vec<f64>) {
    out.clear();
    out.extend(
        rows.iter()
            .map(|&row| value_of(qrels.grade(query, run.docnos.get(row)))),
    );
}

/// Relevance values of documents (by docno, in rank order) in qrels query `query`.
pub fn label_docnos<'d>(
    docnos: impl Iterator<Item = &'d [u8]>,
    query: usize,
    qrels: &Qrels,
    out: &mut Vec<f64>,
) {
    out.clear();
    out.extend(docnos.map(|docno| value_of(qrels.grade(query, docno))));
}

/// The docno of trec_eval 10's one-document ranking for a query only -c brings in.
pub const STAND_IN: &[u8] = b"ceci_nest_pas_un_docno";

/// The relevance value of that document: looked up in the qrels like any other.
pub fn stand_in_value(qrels: &Qrels, query: usize) -> f64 {
    value_of(qrels.grade(query, STAND_IN))
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

/// The ideal's grades from the ranking itself (`Ideal::Ranking`): the ranked documents'
/// grades >= 0, highest first.
pub fn ranked_grades(ranked: &[f64], out: &mut Vec<f64>) {
    out.clear();
    out.extend(ranked.iter().copied().filter(|&v| v >= 0.0));
    out.sort_unstable_by(|a, b| b.total_cmp(a));
}

/// Judgments below `level` dropped (`Options::level_gains`): such a ranked document becomes
/// one the qrels do not list, and leaves the judged grades.
pub fn drop_below_level(ranked: &mut [f64], judged: &mut Vec<f64>, level: f64) {
    for v in ranked.iter_mut() {
        if *v >= 0.0 && *v < level {
            *v = NOT_IN_QRELS;
        }
    }
    judged.retain(|&g| g >= level);
}

/// A ranked document whose score (f32 with compat 9) is not positive becomes judged
/// non-relevant (`Options::positive_scores`, torchmetrics' rule); `rows` are the ranking's
/// run lines, `ranked` their relevance values. Unjudged values stay as they are (-J keeps
/// dropping the same documents).
pub fn gate_scores(rows: &[usize], run: &Run, compat: Compat, ranked: &mut [f64]) {
    for (&row, v) in rows.iter().zip(ranked.iter_mut()) {
        if *v > 0.0 && sort_score(run.scores[row], compat) <= 0.0 {
            *v = 0.0;
        }
    }
}
