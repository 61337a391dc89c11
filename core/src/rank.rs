//! Stage 2: each evaluated query's ranking, as trec_eval orders it.
//!
//! Queries are evaluated in the qrels' order (unsigned byte order of qids). Per query: score
//! descending, ties by docno descending in byte order (`strcmp`), then the first `-M`
//! documents. With compat 9 scores are rounded to f32 first (`(float) atof(...)`), so
//! scores equal in f32 tie. A document retrieved twice within the kept ranks is an error.

use std::cmp::Ordering;

use hashbrown::HashMap;

use crate::error::{Error, Result};
use crate::options::{Compat, Options};
use crate::read::{Qrels, Run};

/// Which run lines belong to which qrels query, grouped once per evaluation.
pub struct Grouping {
    /// Run lines of qrels query q, in file order: `rows[offsets[q]..offsets[q + 1]]`.
    offsets: Vec<usize>,
    rows: Vec<usize>,
    /// Per qrels query: whether the run has it (lines, or `{qid: {}}` in a dict run).
    pub in_run: Vec<bool>,
}

impl Grouping {
    /// Groups the run's lines under the qrels queries (lines of other queries are ignored).
    pub fn new(run: &Run, qrels: &Qrels) -> Grouping {
        let to_qrels: Vec<Option<usize>> = run.qids.iter().map(|qid| qrels.query(qid)).collect();
        let num_queries = qrels.qids.len();
        let mut offsets = vec![0usize; num_queries + 1];
        for &q in &run.query {
            if let Some(target) = to_qrels[q as usize] {
                offsets[target + 1] += 1;
            }
        }
        for q in 0..num_queries {
            offsets[q + 1] += offsets[q];
        }
        let mut fill = offsets.clone();
        let mut rows = vec![0usize; offsets[num_queries]];
        for (line, &q) in run.query.iter().enumerate() {
            if let Some(target) = to_qrels[q as usize] {
                rows[fill[target]] = line;
                fill[target] += 1;
            }
        }
        let mut in_run: Vec<bool> = (0..num_queries)
            .map(|q| offsets[q + 1] > offsets[q])
            .collect();
        for qid in &run.empty_qids {
            if let Some(q) = qrels.query(qid) {
                in_run[q] = true;
            }
        }
        Grouping {
            offsets,
            rows,
            in_run,
        }
    }

    /// The qrels queries to evaluate, in order: those of the run, or every one with -c.
    pub fn evaluated(&self, run: &Run, options: &Options) -> Result<Vec<usize>> {
        if !self.in_run.iter().any(|&x| x) && !options.empty_ok {
            return Err(Error::in_file(
                "no query has both results and judgments",
                &run.source,
            ));
        }
        Ok((0..self.in_run.len())
            .filter(|&q| self.in_run[q] || options.complete)
            .collect())
    }

    /// Run lines of one qrels query, in file order.
    pub fn lines(&self, query: usize) -> &[usize] {
        &self.rows[self.offsets[query]..self.offsets[query + 1]]
    }
}

/// The score a ranking sorts by: the double, or with compat 9 the double rounded to f32.
fn sort_score(score: f64, compat: Compat) -> f64 {
    match compat {
        Compat::Ten => score,
        Compat::Nine => score as f32 as f64,
    }
}

/// Orders `rows` (run lines of one query) as trec_eval ranks them and keeps the first `-M`.
pub fn rank_query(rows: &mut Vec<usize>, run: &Run, options: &Options) {
    let compat = options.compat;
    rows.sort_unstable_by(|&a, &b| {
        let (sa, sb) = (
            sort_score(run.scores[a], compat),
            sort_score(run.scores[b], compat),
        );
        match sb.partial_cmp(&sa).unwrap_or(Ordering::Equal) {
            Ordering::Equal => run.docnos.get(b).cmp(run.docnos.get(a)),
            other => other,
        }
    });
    if let Some(m) = options.max_docs {
        rows.truncate(m);
    }
}

/// Refuses a document retrieved twice in one ranking, naming the later line.
pub fn check_duplicates<'a>(
    rows: &[usize],
    run: &'a Run,
    seen: &mut HashMap<&'a [u8], usize>,
) -> Result<()> {
    seen.clear();
    for &row in rows {
        let docno = run.docnos.get(row);
        if let Some(&other) = seen.get(docno) {
            let (first, second) = if run.lines[other] < run.lines[row] {
                (other, row)
            } else {
                (row, other)
            };
            return Err(Error::at(
                format!(
                    "document '{}' retrieved twice for query '{}' (first at {} {})",
                    text(docno),
                    text(run.qids.get(run.query[row] as usize)),
                    run.unit,
                    run.lines[first]
                ),
                &run.source,
                run.lines[second],
            ));
        }
        seen.insert(docno, row);
    }
    Ok(())
}

/// Bytes as text for messages (invalid UTF-8 replaced).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
