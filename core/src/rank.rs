//! Stage 2: each evaluated query's ranking, as trec_eval orders it.
//!
//! Queries are evaluated in the qrels' order (unsigned byte order of qids). Per query: score
//! descending, ties by docno descending in byte order (`strcmp`), then the first `-M`
//! documents. With compat 9 scores are rounded to f32 first (`(float) atof(...)`), so
//! scores equal in f32 tie. A document retrieved twice within the kept ranks is an error.

use std::cmp::Ordering;

use hashbrown::HashMap;

use crate::arena::prefix;
use crate::error::{Error, Result};
use crate::options::{Compat, Ideal, NoRelevant, Options, Ties};
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

    /// The qrels queries to evaluate, in order: those of the run, or every one with -c; with
    /// `-D 0.QID` only QID's.
    pub fn evaluated(&self, run: &Run, qrels: &Qrels, options: &Options) -> Result<Vec<usize>> {
        let selected = |q: usize| {
            options
                .only_query
                .as_deref()
                .is_none_or(|qid| qrels.qids.get(q) == qid)
        };
        let any_in_run = (0..self.in_run.len()).any(|q| self.in_run[q] && selected(q));
        if !any_in_run && !options.empty_ok {
            return Err(Error::in_file(
                "no query has both results and judgments",
                &run.source,
            ));
        }
        let queries: Vec<usize> = (0..self.in_run.len())
            .filter(|&q| (self.in_run[q] || options.complete) && selected(q))
            .collect();
        if let (Some(qid), true) = (&options.only_query, queries.is_empty()) {
            return Err(Error::new(format!(
                "-D 0.{}: no such query to evaluate",
                text(qid)
            )));
        }
        Ok(queries)
    }

    /// Whether qrels query `q` is measured under the options' rule for queries with nothing
    /// relevant: always, but with `NoRelevant::Skip` only when it has something relevant.
    pub fn measured(&self, q: usize, run: &Run, qrels: &Qrels, options: &Options) -> bool {
        options.no_relevant != NoRelevant::Skip || self.has_relevant(q, run, qrels, options)
    }

    /// Whether qrels query `q` has a relevant document (grade >= the relevance level) among
    /// those its ideal is built from: its judged documents, or under `Ideal::Ranking` the
    /// documents the run ranks for it (without the one named as the query, with drop_self).
    pub fn has_relevant(&self, q: usize, run: &Run, qrels: &Qrels, options: &Options) -> bool {
        let level = options.relevance_level;
        match options.ideal {
            Ideal::Judged => qrels.grades[qrels.offsets[q]..qrels.offsets[q + 1]]
                .iter()
                .any(|&g| g >= level),
            Ideal::Ranking => {
                let qid = qrels.qids.get(q);
                self.lines(q).iter().any(|&row| {
                    let docno = run.docnos.get(row);
                    !(options.drop_self && docno == qid)
                        && qrels.grade(q, docno).is_some_and(|g| g >= level)
                })
            }
        }
    }

    /// Run lines of one qrels query, in file order.
    pub fn lines(&self, query: usize) -> &[usize] {
        &self.rows[self.offsets[query]..self.offsets[query + 1]]
    }
}

/// The score a ranking sorts by: the double, or with compat 9 the double rounded to f32.
pub fn sort_score(score: f64, compat: Compat) -> f64 {
    match compat {
        Compat::Ten => score,
        Compat::Nine => score as f32 as f64,
    }
}

/// Orders `rows` (run lines of one query) by the tie rule (trec_eval's by default) and keeps
/// the first `-M`; whether that cut went through a run of equal scores.
pub fn rank_query(rows: &mut Vec<usize>, run: &Run, options: &Options) -> bool {
    rank_query_by(rows, run, options, options.ties)
}

/// A run line as the ranking sorts it: its score's order key, its docno's first bytes, itself.
struct Keyed {
    score: u64,
    docno: u64,
    row: usize,
}

/// A score as an integer that orders as the score does (scores are finite; -0 and +0 are
/// equal, as they compare).
#[inline]
fn order_key(score: f64) -> u64 {
    let bits = (score + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// `rank_query` with another tie rule than the options'. Scores are sorted as order keys next
/// to their rows and docnos' first bytes (one pass over the run, then a sort of contiguous
/// keys); whole docnos are compared only when those first bytes are equal.
pub fn rank_query_by(rows: &mut Vec<usize>, run: &Run, options: &Options, ties: Ties) -> bool {
    rank_rows(rows, run, options.compat, options.max_docs, ties)
}

/// `rank_query_by` on the scores as `compat` reads them (the ir_measures measures rank by
/// the doubles, as its providers do, whatever --compat says), keeping the first `max_docs`.
pub fn rank_rows(
    rows: &mut Vec<usize>,
    run: &Run,
    compat: Compat,
    max_docs: Option<usize>,
    ties: Ties,
) -> bool {
    let by_docno = |a: usize, b: usize| run.docnos.get(b).cmp(run.docnos.get(a));
    let by_docno_keyed =
        |a: &Keyed, b: &Keyed| b.docno.cmp(&a.docno).then_with(|| by_docno(a.row, b.row));
    let mut keyed: Vec<Keyed> = match ties {
        Ties::Rank => Vec::new(),
        _ => rows
            .iter()
            .map(|&r| Keyed {
                score: order_key(sort_score(run.scores[r], compat)),
                docno: u64::from_be_bytes(prefix(run.docnos.get(r))),
                row: r,
            })
            .collect(),
    };
    match ties {
        Ties::Docno | Ties::Average => {
            keyed.sort_unstable_by(|a, b| b.score.cmp(&a.score).then_with(|| by_docno_keyed(a, b)))
        }
        Ties::Reversed => {
            keyed.sort_unstable_by(|a, b| b.score.cmp(&a.score).then_with(|| by_docno_keyed(b, a)))
        }
        // rows are run lines, numbered in the order the run gave them
        Ties::Input => {
            keyed.sort_unstable_by(|a, b| b.score.cmp(&a.score).then_with(|| a.row.cmp(&b.row)))
        }
        Ties::Rank => rows.sort_unstable_by(|&a, &b| {
            let by_rank = run.ranks[a].partial_cmp(&run.ranks[b]);
            by_rank
                .unwrap_or(Ordering::Equal)
                .then_with(|| by_docno(a, b))
        }),
    }
    if ties != Ties::Rank {
        rows.clear();
        rows.extend(keyed.iter().map(|k| k.row));
    }
    match max_docs {
        Some(m) if m < rows.len() => {
            let score = |r: usize| sort_score(run.scores[r], compat);
            let cut_tie = m > 0 && score(rows[m - 1]) == score(rows[m]);
            rows.truncate(m);
            cut_tie
        }
        _ => false,
    }
}

/// The runs of equal scores of a ranking (rows in rank order), as ranges of ranks (0-based),
/// a document alone with its score a run of one.
pub fn tie_runs<'a>(
    rows: &'a [usize],
    run: &'a Run,
    compat: Compat,
) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
    let score = move |i: usize| sort_score(run.scores[rows[i]], compat);
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= rows.len() {
            return None;
        }
        let mut end = start + 1;
        while end < rows.len() && score(end) == score(start) {
            end += 1;
        }
        let range = start..end;
        start = end;
        Some(range)
    })
}

/// Values per rank of a ranking in trec_eval's order (its labels, its rows, ...) as the other
/// tie rule (`Ties::Reversed`) orders them: each run of equal scores reversed.
pub fn reverse_ties<T: Copy>(
    rows: &[usize],
    values: &[T],
    run: &Run,
    compat: Compat,
    out: &mut Vec<T>,
) {
    out.clear();
    out.extend_from_slice(values);
    for range in tie_runs(rows, run, compat) {
        out[range].reverse();
    }
}

/// Tie groups of a ranking in trec_eval's order: per rank, a group number that changes
/// exactly where the score does (`--ties average`).
pub fn tie_groups(rows: &[usize], run: &Run, compat: Compat, out: &mut Vec<u32>) {
    out.clear();
    for (group, range) in tie_runs(rows, run, compat).enumerate() {
        out.extend(std::iter::repeat_n(group as u32, range.len()));
    }
}

/// Whether two documents of different relevance values tie in the ranking (then the tie rule
/// decides their order). `values` are the labels of `rows`.
pub fn mixed_ties(rows: &[usize], values: &[f64], run: &Run, compat: Compat) -> bool {
    rows.windows(2).zip(values.windows(2)).any(|(r, v)| {
        v[0] != v[1] && sort_score(run.scores[r[0]], compat) == sort_score(run.scores[r[1]], compat)
    })
}

/// Refuses a document retrieved twice in one ranking, naming the later line.
pub fn check_duplicates<'a>(
    rows: &[usize],
    run: &'a Run,
    seen: &mut HashMap<&'a [u8], usize>,
) -> Result<()> {
    if run.distinct_docnos {
        return Ok(());
    }
    seen.clear();
    seen.reserve(rows.len());
    for &row in rows {
        let docno = run.docnos.get(row);
        // one hash and one probe a row: the entry is either the earlier row or this one's
        let other = *seen.entry(docno).or_insert(row);
        if other != row {
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
    }
    Ok(())
}

/// Whether some query of the run retrieves a docno twice (`Run::distinct_docnos` is its
/// negation: `check_duplicates` then has nothing to find).
pub fn has_duplicates(run: &Run) -> bool {
    // a query's lines are usually together: one small set a query, kept in cache; a query met
    // again after another is answered by one set of every line
    let mut done = vec![false; run.qids.len()];
    let mut seen = hashbrown::HashSet::new();
    let mut current = None;
    for row in 0..run.query.len() {
        let q = run.query[row] as usize;
        if current != Some(q) {
            if done[q] {
                let mut all = hashbrown::HashSet::with_capacity(run.query.len());
                return (0..run.query.len())
                    .any(|r| !all.insert((run.query[r], run.docnos.get(r))));
            }
            done[q] = true;
            current = Some(q);
            seen.clear();
        }
        if !seen.insert(run.docnos.get(row)) {
            return true;
        }
    }
    false
}

/// Bytes as text for messages (invalid UTF-8 replaced).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::Run;

    fn run(lines: &[(&str, f64)]) -> Run {
        Run::from_lines(
            "r",
            lines
                .iter()
                .map(|(d, s)| (b"q".as_slice(), d.as_bytes(), *s)),
            Vec::<Vec<u8>>::new(),
        )
        .unwrap()
    }

    fn ranked(run: &Run, ties: Ties) -> Vec<&str> {
        let options = Options {
            ties,
            ..Options::default()
        };
        let mut rows: Vec<usize> = (0..run.scores.len()).collect();
        rank_query(&mut rows, run, &options);
        rows.iter()
            .map(|&r| std::str::from_utf8(run.docnos.get(r)).unwrap())
            .collect()
    }

    #[test]
    fn tie_rules_order_equal_scores() {
        let r = run(&[("a", 1.0), ("c", 2.0), ("b", 1.0), ("d", 1.0)]);
        assert_eq!(ranked(&r, Ties::Docno), ["c", "d", "b", "a"]);
        assert_eq!(ranked(&r, Ties::Average), ["c", "d", "b", "a"]);
        assert_eq!(ranked(&r, Ties::Reversed), ["c", "a", "b", "d"]);
        assert_eq!(ranked(&r, Ties::Input), ["c", "a", "b", "d"]);
        let mixed = run(&[("d", 1.0), ("a", 1.0), ("c", 2.0), ("b", 1.0)]);
        assert_eq!(ranked(&mixed, Ties::Input), ["c", "d", "a", "b"]);
        let mut with_ranks = run(&[("a", 0.0), ("c", 0.0), ("b", 0.0), ("d", 0.0)]);
        with_ranks.ranks = vec![2.0, 1.0, 2.0, 3.0];
        assert_eq!(ranked(&with_ranks, Ties::Rank), ["c", "b", "a", "d"]);
    }

    #[test]
    fn tie_groups_change_where_the_score_does() {
        let r = run(&[("a", 3.0), ("b", 2.0), ("c", 2.0), ("d", 1.0)]);
        let mut groups = Vec::new();
        tie_groups(&[0, 1, 2, 3], &r, Compat::Ten, &mut groups);
        assert_eq!(groups, [0, 1, 1, 2]);
        assert!(mixed_ties(
            &[0, 1, 2, 3],
            &[1.0, 0.0, 2.0, 0.0],
            &r,
            Compat::Ten
        ));
        assert!(!mixed_ties(
            &[0, 1, 2, 3],
            &[1.0, 2.0, 2.0, 0.0],
            &r,
            Compat::Ten
        ));
        // 1 and 1 + 1e-9 are one float32: tied in compat 9 only
        let close = run(&[("a", 1.0), ("b", 1.0 + 1e-9)]);
        tie_groups(&[1, 0], &close, Compat::Nine, &mut groups);
        assert_eq!(groups, [0, 0]);
        tie_groups(&[1, 0], &close, Compat::Ten, &mut groups);
        assert_eq!(groups, [0, 1]);
    }

    #[test]
    fn order_keys_order_as_the_scores_compare() {
        let scores = [
            f64::MIN,
            -1e300,
            -2.5,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1.0,
            1.0 + f64::EPSILON,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for a in scores {
            for b in scores {
                let by_key = order_key(a).cmp(&order_key(b));
                assert_eq!(Some(by_key), a.partial_cmp(&b), "{a} against {b}");
            }
        }
    }

    #[test]
    fn duplicates_are_a_docno_twice_in_one_query() {
        let twice = run(&[("d1", 2.0), ("d2", 1.0), ("d1", 0.5)]);
        assert!(has_duplicates(&twice));
        let two_queries = Run::from_lines(
            "r",
            [(b"q1", b"d1", 1.0), (b"q2", b"d1", 1.0)],
            Vec::<Vec<u8>>::new(),
        )
        .unwrap();
        assert!(!has_duplicates(&two_queries));
        let lines = [("q1", "d1"), ("q2", "d1"), ("q1", "d2"), ("q2", "d2")]; // queries interleaved
        let interleaved = |extra: Option<(&'static str, &'static str)>| {
            let items = lines
                .iter()
                .chain(extra.iter())
                .map(|&(q, d)| (q.as_bytes(), d.as_bytes(), 1.0));
            Run::from_lines("r", items, Vec::<Vec<u8>>::new()).unwrap()
        };
        assert!(!has_duplicates(&interleaved(None)));
        assert!(has_duplicates(&interleaved(Some(("q1", "d1")))));
    }

    #[test]
    fn a_run_of_distinct_docnos_skips_the_duplicate_check() {
        let mut twice = run(&[("d1", 1.0), ("d1", 2.0)]);
        let rows = [0, 1];
        assert!(check_duplicates(&rows, &twice, &mut HashMap::new()).is_err());
        twice.distinct_docnos = true; // what the dict walk sets for str docnos only
        assert!(check_duplicates(&rows, &twice, &mut HashMap::new()).is_ok());
    }
}
