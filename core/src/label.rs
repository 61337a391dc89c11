//! Stage 3: rankings joined with the qrels.
//!
//! Each ranked document gets a relevance value: its grade when judged, NOT_IN_QRELS when
//! the qrels do not list it, UNJUDGED when listed with a negative grade. With -J every
//! negative value is dropped and the rest close up their ranks.

use std::sync::Arc;

use hashbrown::HashMap;

use crate::error::Result;
use crate::options::{Compat, Options, Ties};
use crate::rank::{
    check_duplicates, has_duplicates, rank_query, rank_query_by, sort_score, Grouping,
};
use crate::read::{Judged, Qrels, Run};

/// A qrels query's run lines ranked and labeled, as `prepare_query` leaves them (reused from
/// query to query).
#[derive(Default)]
pub struct Labeled<'a> {
    /// The run lines in rank order (after -M).
    pub rows: Vec<usize>,
    /// Their relevance values.
    pub labels: Vec<f64>,
    /// Their judgments (indices in the qrels, `Judged::NONE` for none), when `keep_judgments`.
    pub judgments: Vec<u32>,
    pub keep_judgments: bool,
    /// Scratch: the docnos seen, for the check of a document retrieved twice.
    seen: HashMap<&'a [u8], usize>,
}

impl Labeled<'_> {
    /// Room for a query's ranking, its judgments kept when `keep_judgments`.
    pub fn new(keep_judgments: bool) -> Self {
        Labeled {
            keep_judgments,
            ..Labeled::default()
        }
    }
}

/// One qrels query's ranking as the evaluation and explain both prepare it: its run lines
/// ranked under the tie rule and -M, refused if a document is retrieved twice, and labeled
/// with the qrels, into `out`; whether -M cut through a tie.
pub fn prepare_query<'a>(
    query: usize,
    grouping: &Grouping,
    run: &'a Run,
    qrels: &Qrels,
    options: &Options,
    out: &mut Labeled<'a>,
) -> Result<bool> {
    let rows = &mut out.rows;
    query_lines(query, grouping, run, qrels, options, rows);
    let cut_tie = rank_query(rows, run, options);
    check_duplicates(rows, run, &mut out.seen)?;
    let judgments = out.keep_judgments.then_some(&mut out.judgments);
    label_judged(rows, query, run, qrels, &mut out.labels, judgments);
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
/// documents retrieved twice): its rows and labels into `out`.
pub fn prepare_query_by(
    query: usize,
    grouping: &Grouping,
    run: &Run,
    qrels: &Qrels,
    options: &Options,
    ties: Ties,
    out: &mut Labeled,
) {
    let (rows, labels) = (&mut out.rows, &mut out.labels);
    query_lines(query, grouping, run, qrels, options, rows);
    rank_query_by(rows, run, options, ties);
    label_ranking(rows, query, run, qrels, labels);
    if options.judged_only {
        labels.retain(|&v| v >= 0.0);
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

/// Relevance values of a ranking (run lines in rank order) of qrels query `query`: each
/// document looked up in the qrels, or its judgment taken from `run.judged` when that was
/// worked out with these very qrels.
pub fn label_ranking(rows: &[usize], query: usize, run: &Run, qrels: &Qrels, out: &mut Vec<f64>) {
    label_judged(rows, query, run, qrels, out, None);
}

/// `label_ranking`, each row's judgment (its index in the qrels, `Judged::NONE` for none) also
/// kept in `judgments` when given (the subtopic join reads them).
pub fn label_judged(
    rows: &[usize],
    query: usize,
    run: &Run,
    qrels: &Qrels,
    out: &mut Vec<f64>,
    judgments: Option<&mut Vec<u32>>,
) {
    out.clear();
    let judged = run
        .judged
        .as_ref()
        .filter(|j| std::ptr::eq(&*j.qrels, qrels));
    let lookup = |row: usize| qrels.judgment(query, run.docnos.get(row));
    let Some(kept) = judgments else {
        match judged {
            Some(judged) => out.extend(rows.iter().map(|&row| value_of(judged.grade(row)))),
            None => out.extend(
                rows.iter()
                    .map(|&row| value_of(lookup(row).map(|j| qrels.grades[j]))),
            ),
        }
        return;
    };
    kept.clear();
    match judged {
        Some(judged) => kept.extend(rows.iter().map(|&row| judged.judgment[row])),
        None => kept.extend(
            rows.iter()
                .map(|&row| qrels.judgment_index(query, run.docnos.get(row))),
        ),
    }
    out.extend(kept.iter().map(|&j| value_of(qrels.grade_at(j))));
}

/// What an evaluation of the run against `qrels` does first, done ahead (the program's first
/// reading does it while Python loads): each line's judgment in the qrels (`Run::judged`), and
/// whether a query retrieves a docno twice (`Run::distinct_docnos`, when none does).
pub fn prepare_ahead(run: &mut Run, qrels: Option<&Arc<Qrels>>) {
    run.distinct_docnos = !has_duplicates(run);
    run.judged = qrels.map(|qrels| judge(run, qrels));
}

/// Each run line's judgment in `qrels` (the qrels query of the line's qid, the line's docno):
/// the lookups `label_ranking` would make, made ahead (`Run::judged`).
fn judge(run: &Run, qrels: &Arc<Qrels>) -> Judged {
    let queries: Vec<Option<usize>> = (0..run.qids.len())
        .map(|q| qrels.query(run.qids.get(q)))
        .collect();
    let judgment = (0..run.query.len())
        .map(|row| {
            queries[run.query[row] as usize].map_or(Judged::NONE, |q| {
                qrels.judgment_index(q, run.docnos.get(row))
            })
        })
        .collect();
    Judged {
        qrels: Arc::clone(qrels),
        judgment,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn qrels(judgments: &[(&str, &str, f64)]) -> Arc<Qrels> {
        let items = judgments
            .iter()
            .map(|&(q, d, g)| (q.as_bytes(), d.as_bytes(), g));
        Arc::new(Qrels::from_judgments("qrels", items, false).unwrap())
    }

    fn run(lines: &[(&str, &str)]) -> Run {
        let items = lines
            .iter()
            .map(|&(q, d)| (q.as_bytes(), d.as_bytes(), 1.0));
        Run::from_lines("run", items, Vec::<Vec<u8>>::new()).unwrap()
    }

    fn labels(run: &Run, qrels: &Qrels, qid: &str) -> Vec<f64> {
        let query = qrels.query(qid.as_bytes()).unwrap();
        let rows: Vec<usize> = (0..run.query.len())
            .filter(|&r| run.qids.get(run.query[r] as usize) == qid.as_bytes())
            .collect();
        let mut out = Vec::new();
        label_ranking(&rows, query, run, qrels, &mut out);
        out
    }

    #[test]
    fn judgments_worked_out_ahead_label_as_the_lookups_do() {
        let qrels = qrels(&[("1", "a", 2.0), ("1", "b", -1.0), ("2", "a", 0.0)]);
        let mut run = run(&[("2", "a"), ("1", "c"), ("1", "a"), ("1", "b"), ("3", "a")]);
        let looked_up = [labels(&run, &qrels, "1"), labels(&run, &qrels, "2")];
        run.judged = Some(judge(&run, &qrels));
        let judged = &run.judged.as_ref().unwrap().judgment;
        assert_eq!(judged[1], Judged::NONE); // c: not listed
        assert_eq!(judged[4], Judged::NONE); // query 3: not in the qrels
        assert_eq!(looked_up[0], vec![NOT_IN_QRELS, 2.0, UNJUDGED]);
        assert_eq!(labels(&run, &qrels, "1"), looked_up[0]);
        assert_eq!(labels(&run, &qrels, "2"), looked_up[1]);
    }

    #[test]
    fn judgments_worked_out_with_other_qrels_are_not_used() {
        let first = qrels(&[("1", "a", 2.0)]);
        let other = qrels(&[("1", "a", 1.0)]); // the same file read again, changed meanwhile
        let mut run = run(&[("1", "a")]);
        run.judged = Some(judge(&run, &first));
        assert_eq!(labels(&run, &first, "1"), vec![2.0]);
        assert_eq!(labels(&run, &other, "1"), vec![1.0]);
    }
}
