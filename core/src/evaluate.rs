//! The driver: read -> rank -> label -> measures -> summary for one run, query by query.
//!
//! Queries are split into contiguous parts measured on separate threads; every value lands
//! in its query's row, and summaries add the rows in query order afterwards, so the numbers
//! do not depend on the number of threads.

use hashbrown::HashMap;

use crate::arena::Arena;
use crate::error::{Error, Result};
use crate::label::{judged_grades, label_ranking, only_judged};
use crate::measures::{kernel, KernelRecord, Notes, Query};
use crate::options::{Options, Request};
use crate::rank::{check_duplicates, rank_query, Grouping};
use crate::read::{Qrels, Run};
use crate::summary::summarize;

/// What one evaluation produced: per query and per output line, and the `all` values.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// Evaluated queries, in qrels order.
    pub qids: Arena,
    /// Per query: whether the run has it (false for a query only -c brought in).
    pub in_run: Vec<bool>,
    /// Output lines (values per query).
    pub width: usize,
    /// `values[q * width + line]`.
    pub values: Vec<f64>,
    /// The `all` value of each line.
    pub summaries: Vec<f64>,
    /// The run tag.
    pub tag: Vec<u8>,
    pub warnings: Vec<String>,
}

impl Evaluation {
    pub fn value(&self, query: usize, line: usize) -> f64 {
        self.values[query * self.width + line]
    }
}

/// A request with its kernel and the first of its output lines.
struct Planned<'a> {
    request: &'a Request,
    kernel: &'static KernelRecord,
    first_line: usize,
    lines: usize,
}

fn plan(requests: &[Request]) -> Result<(Vec<Planned<'_>>, usize)> {
    let mut planned = Vec::with_capacity(requests.len());
    let mut width = 0;
    for request in requests {
        let kernel = kernel(&request.kernel)
            .ok_or_else(|| Error::new(format!("no kernel '{}'", request.kernel)))?;
        let lines = kernel.lines(request);
        planned.push(Planned {
            request,
            kernel,
            first_line: width,
            lines,
        });
        width += lines;
    }
    Ok((planned, width))
}

/// Evaluates one run against the qrels.
pub fn evaluate(
    qrels: &Qrels,
    run: &Run,
    requests: &[Request],
    options: &Options,
) -> Result<Evaluation> {
    evaluate_in_parts(qrels, run, requests, options, threads())
}

/// `evaluate`, measuring the queries in at most `threads` parts at once.
fn evaluate_in_parts(
    qrels: &Qrels,
    run: &Run,
    requests: &[Request],
    options: &Options,
    threads: usize,
) -> Result<Evaluation> {
    let (planned, width) = plan(requests)?;
    let grouping = Grouping::new(run, qrels);
    let queries = grouping.evaluated(run, options)?;
    let mut values = vec![0.0; queries.len() * width];
    let parts = split(&queries, &grouping, threads);
    let mut notes = Notes::default();
    let outcomes: Vec<Result<Notes>> = std::thread::scope(|scope| {
        let mut rest = values.as_mut_slice();
        let mut handles = Vec::new();
        for part in &parts {
            let (mine, tail) = rest.split_at_mut(part.len() * width);
            rest = tail;
            let (grouping, planned) = (&grouping, &planned);
            handles.push(scope.spawn(move || {
                measure_part(part, mine, width, grouping, planned, qrels, run, options)
            }));
        }
        handles
            .into_iter()
            .map(|h| h.join().expect("a measuring thread panicked"))
            .collect()
    });
    for outcome in outcomes {
        for w in outcome?.warnings {
            notes.warn(w);
        }
    }
    let summaries = (0..width)
        .map(|l| {
            let summary = planned
                .iter()
                .find(|p| l < p.first_line + p.lines)
                .map(|p| p.request.summary);
            let column = (0..queries.len()).map(|q| values[q * width + l]);
            summarize(
                column,
                summary.expect("every line has a request"),
                queries.len(),
                qrels,
                options.complete,
            )
        })
        .collect();
    let mut qids = Arena::new();
    for &q in &queries {
        qids.push(qrels.qids.get(q));
    }
    let mut warnings = run.warnings.clone();
    warnings.extend(notes.warnings);
    Ok(Evaluation {
        qids,
        in_run: queries.iter().map(|&q| grouping.in_run[q]).collect(),
        width,
        values,
        summaries,
        tag: run.tag.clone(),
        warnings,
    })
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8)
}

/// Contiguous parts of the queries with about the same number of run lines each.
fn split<'q>(queries: &'q [usize], grouping: &Grouping, parts: usize) -> Vec<&'q [usize]> {
    let total: usize = queries.iter().map(|&q| grouping.lines(q).len()).sum();
    let parts = if total < 20_000 { 1 } else { parts.max(1) };
    let target = total.div_ceil(parts).max(1);
    let mut out = Vec::new();
    let (mut start, mut acc) = (0, 0);
    for (i, &q) in queries.iter().enumerate() {
        acc += grouping.lines(q).len();
        if acc >= target && out.len() + 1 < parts {
            out.push(&queries[start..=i]);
            start = i + 1;
            acc = 0;
        }
    }
    out.push(&queries[start..]);
    out
}

/// Ranks, labels and measures some queries into their rows of `out`.
#[allow(clippy::too_many_arguments)]
fn measure_part(
    queries: &[usize],
    out: &mut [f64],
    width: usize,
    grouping: &Grouping,
    planned: &[Planned],
    qrels: &Qrels,
    run: &Run,
    options: &Options,
) -> Result<Notes> {
    let mut notes = Notes::default();
    let mut seen = HashMap::new();
    let (mut rows, mut ranked, mut judged, mut kept, mut filtered) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, &q) in queries.iter().enumerate() {
        rows.clear();
        rows.extend_from_slice(grouping.lines(q));
        rank_query(&mut rows, run, options);
        check_duplicates(&rows, run, &mut seen)?;
        label_ranking(&rows, q, run, qrels, &mut ranked);
        if options.judged_only {
            only_judged(&ranked, &mut kept);
            std::mem::swap(&mut ranked, &mut kept);
        }
        judged_grades(qrels, q, &mut judged);
        let row = &mut out[i * width..(i + 1) * width];
        for p in planned {
            let view = if p.request.judged_only && !options.judged_only {
                only_judged(&ranked, &mut filtered);
                &filtered
            } else {
                &ranked
            };
            let query = Query {
                ranked: view,
                judged: &judged,
            };
            (p.kernel.compute)(
                &query,
                p.request,
                options,
                &mut notes,
                &mut row[p.first_line..p.first_line + p.lines],
            )?;
        }
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Summary;

    fn request(kernel: &str, cutoffs: Vec<usize>, summary: Summary) -> Request {
        Request {
            kernel: kernel.into(),
            cutoffs,
            gains: None,
            judged_only: false,
            summary,
        }
    }

    /// 300 queries of 100 documents: the values and summaries must be the same bits whatever
    /// the number of parts the queries are measured in.
    #[test]
    fn parts_do_not_change_the_numbers() {
        let (mut judgments, mut lines) = (Vec::new(), Vec::new());
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for q in 0..300 {
            for d in 0..100 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let (qid, docno) = (format!("q{q}").into_bytes(), format!("d{d}").into_bytes());
                if x.is_multiple_of(3) {
                    judgments.push((qid.clone(), docno.clone(), (x % 4) as f64));
                }
                lines.push((qid, docno, (x % 1000) as f64 / 7.0));
            }
        }
        let qrels = Qrels::from_judgments(
            "q",
            judgments
                .iter()
                .map(|(q, d, g)| (q.as_slice(), d.as_slice(), *g)),
            false,
        )
        .unwrap();
        let run = Run::from_lines(
            "r",
            lines
                .iter()
                .map(|(q, d, s)| (q.as_slice(), d.as_slice(), *s)),
            Vec::<Vec<u8>>::new(),
        )
        .unwrap();
        let requests = [
            request("ndcg", vec![], Summary::Mean),
            request("ndcg_cut", vec![5, 10, 1000], Summary::Mean),
            request("G", vec![], Summary::Mean),
            request("num_rel_ret", vec![], Summary::Sum),
        ];
        let options = Options::default();
        let grouping = Grouping::new(&run, &qrels);
        let queries = grouping.evaluated(&run, &options).unwrap();
        assert_eq!(
            split(&queries, &grouping, 3).len(),
            3,
            "the test must measure in several parts"
        );
        let one = evaluate_in_parts(&qrels, &run, &requests, &options, 1).unwrap();
        for threads in [2, 3, 7] {
            let many = evaluate_in_parts(&qrels, &run, &requests, &options, threads).unwrap();
            let bits = |e: &Evaluation| {
                e.values
                    .iter()
                    .chain(&e.summaries)
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&one), bits(&many), "{threads} parts");
        }
    }
}
