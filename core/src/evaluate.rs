//! The driver: read -> rank -> label -> measures -> summary for one run, query by query.
//!
//! Queries are measured a block at a time; each block is split into contiguous parts measured
//! on separate threads, every value landing in its query's row, and the summaries add the rows
//! in query order afterwards, so the numbers do not depend on the number of threads. Memory
//! beyond the inputs is one block of rows, plus every row only when the caller keeps them.

use crate::arena::Arena;
use crate::error::{Error, Result};
use crate::label::{
    drop_below_level, gate_scores, judged_grades, label_ranking, only_judged, prepare_query,
    prepare_query_by, ranked_grades, stand_in_value, Labeled,
};
use crate::measures::precision::Tally;
use crate::measures::{kernel, KernelRecord, Notes, Query, Relevance, Value};
use crate::options::{Compat, Ideal, NoRelevant, Options, Request, Summary, Ties};
use crate::printf::printed;
use crate::rank::{mixed_ties, rank_query_by, reverse_ties, tie_groups, Grouping};
use crate::read::{Qrels, RelFormat, Relations, Run};
use crate::relations::{relate, Ranking, Related};
use crate::summary::Totals;

/// What one evaluation produced: per query and per output line, and the `all` values.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// Evaluated queries, in qrels order.
    pub qids: Arena,
    /// Per query: whether the run has it (false for a query only -c brought in).
    pub in_run: Vec<bool>,
    /// Output lines (values per query).
    pub width: usize,
    /// Per value slot: its measure follows trec_eval 9.x's rules for the queries -c brings in
    /// (`Measuring::nine_slots`): their values are not evaluated, and print no line.
    pub nine_slots: Vec<bool>,
    /// Per value slot: a query may have no value there (NaN, `Summary::MeanOfDefined`), and
    /// then prints no line for it.
    pub optional_slots: Vec<bool>,
    /// `values[q * width + line]`.
    pub values: Vec<f64>,
    /// The `all` value of each line.
    pub summaries: Vec<f64>,
    /// The run tag.
    pub tag: Vec<u8>,
    pub warnings: Vec<String>,
    /// Queries in which documents of different relevance values tie (the tie rule decided).
    pub mixed_tie_queries: usize,
    /// With `Measuring::check_ties`: the evaluation with ties ordered the other way round.
    pub tie_check: Option<TieCheck>,
    /// Qrels queries the run lacks (evaluated only with -c), and the run's queries the qrels
    /// lack (never evaluated).
    pub queries_not_in_run: usize,
    pub queries_not_in_qrels: usize,
    /// Queries of both the run and the qrels left out as having nothing relevant
    /// (`NoRelevant::Skip`: gdeval.pl's rule, torchmetrics' "skip").
    pub queries_left_out: usize,
}

/// The evaluation with tied documents of different relevance values ordered the other way
/// round (score descending, then docno ascending).
#[derive(Debug, Clone)]
pub struct TieCheck {
    /// The `all` values it gives.
    pub summaries: Vec<f64>,
    /// Per-query printed lines (4 decimals) it changes.
    pub query_lines: usize,
}

/// How many of one query's per-query printed lines differ at 4 decimals between two rows
/// (`lines`: per value slot, its line's number when printed per query).
pub fn lines_printed_differently(row: &[f64], other: &[f64], lines: &[Option<usize>]) -> usize {
    let mut changed: Vec<usize> = Vec::new();
    for ((a, b), line) in row.iter().zip(other).zip(lines) {
        if let Some(line) = line {
            if a.to_bits() != b.to_bits() && printed(*a) != printed(*b) && !changed.contains(line) {
                changed.push(*line);
            }
        }
    }
    changed.len()
}

/// How many `all` values differ at 4 decimals between two lists of summaries (`shown`: per
/// value slot, whether its line has an `all` line).
pub fn summaries_printed_differently(summaries: &[f64], other: &[f64], shown: &[bool]) -> usize {
    (summaries.iter().zip(other).zip(shown))
        .filter(|((a, b), &shown)| shown && printed(**a) != printed(**b))
        .count()
}

impl Evaluation {
    pub fn value(&self, query: usize, line: usize) -> f64 {
        self.values[query * self.width + line]
    }
}

/// A request with its kernel, the first of its output lines, its own options when it has its
/// own relevance level, and whether it follows trec_eval 9.x's rules for the queries -c brings
/// in (compat 9 and a measure 9.x has: never evaluated, never printed, adding nothing).
struct Planned<'a> {
    request: &'a Request,
    kernel: &'static KernelRecord,
    first_line: usize,
    lines: usize,
    options: Option<Options>,
    nine: bool,
}

/// Whether a measure reading `needs` can be measured on qrels read as `format`.
fn reads(needs: Relevance, format: RelFormat) -> bool {
    match needs {
        Relevance::Any => true,
        Relevance::Grades => format == RelFormat::Qrels,
        Relevance::Groups => format == RelFormat::QrelsJg,
        Relevance::Preferences => matches!(format, RelFormat::Prefs | RelFormat::QrelsPrefs),
        Relevance::Subtopics => format == RelFormat::Subtopics,
    }
}

/// The qrels hold what `options.rel_format` says they do.
fn check_format(qrels: &Qrels, options: &Options) -> Result<()> {
    let held = match &qrels.relations {
        Relations::Grades => reads(Relevance::Grades, options.rel_format),
        Relations::Groups(_) => reads(Relevance::Groups, options.rel_format),
        Relations::Preferences(_) => reads(Relevance::Preferences, options.rel_format),
        Relations::Subtopics(_) => reads(Relevance::Subtopics, options.rel_format),
    };
    if held {
        Ok(())
    } else {
        Err(Error::new(format!(
            "the qrels were not read as -R {}",
            options.rel_format.name()
        )))
    }
}

fn plan<'r>(requests: &'r [Request], options: &Options) -> Result<(Vec<Planned<'r>>, usize)> {
    let mut planned = Vec::with_capacity(requests.len());
    let mut width = 0;
    for request in requests {
        let kernel = kernel(&request.kernel)
            .ok_or_else(|| Error::new(format!("no kernel '{}'", request.kernel)))?;
        if !reads(kernel.relevance, options.rel_format) {
            return Err(Error::new(format!(
                "measure '{}' cannot be measured with -R {}",
                kernel.name,
                options.rel_format.name()
            )));
        }
        let level = request.relevance_level.unwrap_or(options.relevance_level);
        if kernel.level_from_zero && level < 0.0 {
            return Err(Error::new(format!(
                "{}: the relevance level must be 0 or more (got {level}): trecgain reads \
                 documents judged below 0 as unjudged, not by their grade",
                kernel.name
            )));
        }
        let lines = kernel.lines(request);
        let own = request.relevance_level.map(|level| Options {
            relevance_level: level,
            ..options.clone()
        });
        planned.push(Planned {
            request,
            kernel,
            first_line: width,
            lines,
            options: own,
            nine: options.compat == Compat::Nine && kernel.in_trec_eval_9,
        });
        width += lines;
    }
    Ok((planned, width))
}

/// Called with each block's qrels queries and their rows of values.
pub type Visit<'v> = dyn FnMut(&[usize], &[f64]) -> Result<()> + 'v;
/// Called with each block's qrels queries, rows, and rows as the other tie rule gives them.
type OtherVisit<'v> = dyn FnMut(&[usize], &[f64], &[f64]) + 'v;

/// Per block of queries measured at once: about this many run lines, or this many queries.
const BLOCK_LINES: usize = 1 << 20;
const BLOCK_QUERIES: usize = 1 << 13;

/// A run against the qrels, ready to measure: kernels planned, run lines grouped by query.
pub struct Measuring<'a> {
    qrels: &'a Qrels,
    run: &'a Run,
    options: &'a Options,
    planned: Vec<Planned<'a>>,
    width: usize,
    grouping: Grouping,
    /// The qrels queries evaluated, in order.
    queries: Vec<usize>,
    /// The run's qrels queries not evaluated for having nothing relevant (`NoRelevant::Skip`).
    left_out: usize,
    threads: usize,
    /// A block holds about this many run lines, or this many queries.
    block: (usize, usize),
    /// Tell whether ties decided a printed value: per value slot, its line's number when the
    /// line is printed per query (`check_ties`).
    tie_lines: Option<Vec<Option<usize>>>,
    /// With -Z: per value slot, its line's name (None: not a number, runid or relstring).
    slot_names: Vec<Option<Vec<u8>>>,
    /// Some measure reads the judgment groups or preferences: each query is joined with them.
    relates: bool,
    /// Some measure reads what the ranking shares with the ideal ranking (Compat).
    overlaps: bool,
    /// The tie rule some measure ranks by whatever --ties says (`KernelRecord::ties`): each
    /// query is ranked by it too.
    own_ties: Option<Ties>,
    /// Some measure reads the ranking with ties in the run's order (the C/W/L measures).
    run_order: bool,
    /// Some measure reads the query's judged grades or tallies (every measure but those of
    /// subtopic judgments, which read only `Query::subtopics`).
    reads_grades: bool,
}

/// Whether some planned measure reads judgment groups or preferences.
fn relates(planned: &[Planned]) -> bool {
    overlaps(planned)
        || run_order(planned)
        || planned.iter().any(|p| {
            matches!(
                p.kernel.relevance,
                Relevance::Groups | Relevance::Preferences | Relevance::Subtopics
            )
        })
}

/// Whether some planned measure reads `Query::judged` or `Query::tally`.
fn reads_grades(planned: &[Planned]) -> bool {
    planned
        .iter()
        .any(|p| p.kernel.relevance != Relevance::Subtopics)
}

/// Whether some planned measure reads what the ranking shares with the ideal ranking.
fn overlaps(planned: &[Planned]) -> bool {
    planned.iter().any(|p| p.kernel.overlap)
}

/// The tie rule some planned measure ranks by whatever --ties says (the one rule records
/// declare today: the run's own order).
fn own_ties(planned: &[Planned]) -> Option<Ties> {
    let own = planned.iter().find_map(|p| p.kernel.ties);
    debug_assert!(planned
        .iter()
        .all(|p| p.kernel.ties.is_none() || p.kernel.ties == own));
    own
}

/// Whether some planned measure reads the ranking with ties in the run's order.
fn run_order(planned: &[Planned]) -> bool {
    planned.iter().any(|p| p.kernel.run_order)
}

/// Per value slot, the name of its line (as the requests name them), or None for a line that
/// is no number (runid, relstring) or a request without names.
fn slot_names(planned: &[Planned]) -> Vec<Option<Vec<u8>>> {
    let mut names = Vec::new();
    for p in planned {
        let numeric = !matches!(p.kernel.value, Value::Tag | Value::Chars);
        for i in 0..p.lines {
            let name = p.request.lines.get(i).filter(|_| numeric);
            names.push(name.map(|n| n.as_bytes().to_vec()));
        }
    }
    names
}

impl<'a> Measuring<'a> {
    pub fn new(
        qrels: &'a Qrels,
        run: &'a Run,
        requests: &'a [Request],
        options: &'a Options,
    ) -> Result<Self> {
        check_format(qrels, options)?;
        let (planned, width) = plan(requests, options)?;
        let grouping = Grouping::new(run, qrels);
        let queries = grouping.evaluated(run, qrels, options)?;
        let before = queries.len();
        let queries: Vec<usize> = queries
            .into_iter()
            .filter(|&q| grouping.measured(q, run, qrels, options))
            .collect();
        let left_out = before - queries.len();
        Ok(Measuring {
            qrels,
            run,
            options,
            slot_names: slot_names(&planned),
            relates: relates(&planned),
            overlaps: overlaps(&planned),
            own_ties: own_ties(&planned),
            run_order: run_order(&planned),
            reads_grades: reads_grades(&planned),
            planned,
            width,
            grouping,
            queries,
            left_out,
            threads: threads(),
            block: (BLOCK_LINES, BLOCK_QUERIES),
            tie_lines: None,
        })
    }

    /// Evaluate with trec_eval's tie rule and also, for the queries where documents of
    /// different relevance values tie, the other way round (`Evaluation::tie_check`). `lines`:
    /// per value slot, its output line's number when that line is printed per query.
    pub fn check_ties(&mut self, lines: Vec<Option<usize>>) {
        self.tie_lines = Some(lines);
    }

    /// Output lines (values per query).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The qid of qrels query `query`.
    pub fn qid(&self, query: usize) -> &[u8] {
        self.qrels.qids.get(query)
    }

    /// Per value slot: whether its measure follows trec_eval 9.x's rules for the queries -c
    /// brings in (9.x never evaluates them: they add nothing and print no line).
    pub fn nine_slots(&self) -> Vec<bool> {
        let mut slots = vec![false; self.width];
        for p in &self.planned {
            slots[p.first_line..p.first_line + p.lines].fill(p.nine);
        }
        slots
    }

    /// Per value slot: whether a query may have no value there (NaN: `Summary::MeanOfDefined`).
    pub fn optional_slots(&self) -> Vec<bool> {
        let summaries = self.summaries();
        summaries
            .iter()
            .map(|&s| s == Summary::MeanOfDefined)
            .collect()
    }

    /// Whether the run has qrels query `query` (false for one only -c brings in).
    pub fn in_run(&self, query: usize) -> bool {
        self.grouping.in_run[query]
    }

    /// Measures the queries a block at a time (each block in parts on several threads) and
    /// hands each block's qrels queries and rows (`width` values per query) to `visit`, in
    /// query order. The first error in query order wins.
    pub fn for_each_block(&self, visit: &mut Visit) -> Result<Notes> {
        self.for_each_block_checking(visit, None)
    }

    /// `for_each_block`, and with `other`, each block's rows as the other tie rule
    /// (`Ties::Reversed`) gives them handed to it too: the rows of queries without ties
    /// between documents of different relevance values are copied, not measured again.
    fn for_each_block_checking(
        &self,
        visit: &mut Visit,
        mut other: Option<&mut OtherVisit>,
    ) -> Result<Notes> {
        let mut notes = Notes::default();
        let (mut rows, mut alt) = (Vec::new(), Vec::new());
        for block in blocks(&self.queries, &self.grouping, self.block) {
            rows.clear();
            rows.resize(block.len() * self.width, 0.0);
            if other.is_some() {
                alt.clear();
                alt.resize(block.len() * self.width, 0.0);
            }
            let alt_rows = other.is_some().then_some(alt.as_mut_slice());
            let block_notes = self.measure_block(block, &mut rows, alt_rows)?;
            notes.mixed_tie_queries += block_notes.mixed_tie_queries;
            for w in block_notes.warnings {
                notes.warn(w);
            }
            visit(block, &rows)?;
            if let Some(other) = other.as_deref_mut() {
                other(block, &rows, &alt);
            }
        }
        Ok(notes)
    }

    fn measure_block(
        &self,
        block: &[usize],
        rows: &mut [f64],
        alt: Option<&mut [f64]>,
    ) -> Result<Notes> {
        let parts = split(block, &self.grouping, self.threads);
        let width = self.width;
        let outcomes: Vec<Result<Notes>> = std::thread::scope(|scope| {
            let mut rest = rows;
            let mut alt_rest = alt;
            let mut handles = Vec::new();
            for part in &parts {
                let (mine, tail) = rest.split_at_mut(part.len() * width);
                rest = tail;
                let alt_mine = match alt_rest.take() {
                    Some(a) => {
                        let (m, t) = a.split_at_mut(part.len() * width);
                        alt_rest = Some(t);
                        Some(m)
                    }
                    None => None,
                };
                handles.push(scope.spawn(move || self.measure_part(part, mine, alt_mine)));
            }
            handles
                .into_iter()
                .map(|h| h.join().expect("a measuring thread panicked"))
                .collect()
        });
        let mut notes = Notes::default();
        for outcome in outcomes {
            let part = outcome?;
            notes.mixed_tie_queries += part.mixed_tie_queries;
            for w in part.warnings {
                notes.warn(w);
            }
        }
        Ok(notes)
    }

    /// How each output line is summarised.
    fn summaries(&self) -> Vec<Summary> {
        self.planned
            .iter()
            .flat_map(|p| std::iter::repeat_n(p.request.summary, p.lines))
            .collect()
    }

    /// Measures everything; keeps every query's values when `keep_values`, else only the
    /// summaries (the per-query lines can then be streamed by `for_each_block`).
    pub fn evaluate(&self, keep_values: bool) -> Result<Evaluation> {
        self.evaluate_keeping(if keep_values { usize::MAX } else { 0 })
    }

    /// Measures everything, keeping every query's values if they take at most `budget` bytes
    /// (then `values` is complete), else none of them (then it is empty).
    pub fn evaluate_keeping(&self, budget: usize) -> Result<Evaluation> {
        let mut keep_values = budget > 0;
        let mut values = Vec::new();
        let summaries = self.summaries();
        let mut totals = Totals::new(self.nine_slots(), &summaries);
        let checking = self.tie_lines.is_some() && self.options.ties == Ties::Docno;
        let mut other_totals = Totals::new(self.nine_slots(), &summaries);
        let mut differing = 0;
        let lines = self.tie_lines.as_deref().unwrap_or(&[]);
        let width = self.width.max(1);
        let mut other = |queries: &[usize], rows: &[f64], alt: &[f64]| {
            let pairs = rows.chunks_exact(width).zip(alt.chunks_exact(width));
            for (&q, (row, alt_row)) in queries.iter().zip(pairs) {
                other_totals.add(alt_row, self.grouping.in_run[q]);
                differing += lines_printed_differently(row, alt_row, lines);
            }
        };
        let other: Option<&mut OtherVisit> = if checking { Some(&mut other) } else { None };
        let notes = self.for_each_block_checking(
            &mut |queries, rows| {
                for (&q, row) in queries.iter().zip(rows.chunks_exact(self.width.max(1))) {
                    totals.add(row, self.grouping.in_run[q]);
                }
                if keep_values {
                    values.extend_from_slice(rows);
                    if values.len().saturating_mul(8) > budget {
                        keep_values = false;
                        values = Vec::new();
                    }
                }
                Ok(())
            },
            other,
        )?;
        let finish = |t: &Totals| t.finish(self.qrels, self.options.complete);
        let tie_check = checking.then(|| TieCheck {
            summaries: finish(&other_totals),
            query_lines: differing,
        });
        let mut qids = Arena::new();
        for &q in &self.queries {
            qids.push(self.qrels.qids.get(q));
        }
        let mut warnings = self.run.warnings.clone();
        warnings.extend(notes.warnings);
        Ok(Evaluation {
            qids,
            in_run: self
                .queries
                .iter()
                .map(|&q| self.grouping.in_run[q])
                .collect(),
            width: self.width,
            nine_slots: self.nine_slots(),
            optional_slots: self.optional_slots(),
            values,
            summaries: finish(&totals),
            tie_check,
            tag: self.run.tag.clone(),
            warnings,
            mixed_tie_queries: notes.mixed_tie_queries,
            queries_not_in_run: self.grouping.in_run.iter().filter(|&&x| !x).count(),
            queries_left_out: self.left_out,
            queries_not_in_qrels: self.run.qids.len()
                - (0..self.run.qids.len())
                    .filter(|&q| self.qrels.query(self.run.qids.get(q)).is_some())
                    .count(),
        })
    }
}

impl Measuring<'_> {
    /// The first query (a qrels query, in query order) whose measuring fails, with its error;
    /// None when none fails. An evaluation's error is the first in query order but does not
    /// say which query it was, which a caller putting parts of a run together (`assemble`)
    /// needs. The queries are measured again one at a time.
    pub fn first_failure(&self) -> Option<(usize, Error)> {
        let mut row = vec![0.0; self.width];
        self.queries.iter().find_map(|&q| {
            self.measure_part(&[q], &mut row, None)
                .err()
                .map(|e| (q, e))
        })
    }
}

/// Per qrels query, its row among the parts' values (usize::MAX: no part measured it); an
/// error when the values do not fill `width` per query, or a query is not the qrels' or was
/// measured twice.
fn rows_of_parts(qrels: &Qrels, parts: &Parts, width: usize) -> Result<Vec<usize>> {
    if parts.values.len() != parts.qids.len() * width {
        return Err(Error::new(format!(
            "{} values for {} queries of {width} lines",
            parts.values.len(),
            parts.qids.len()
        )));
    }
    let mut row_of = vec![usize::MAX; qrels.qids.len()];
    for (i, qid) in parts.qids.iter().enumerate() {
        let q = qrels.query(qid).filter(|&q| row_of[q] == usize::MAX);
        let q = q.ok_or_else(|| {
            Error::new(format!(
                "query '{}' is not a qrels query, or was measured twice",
                crate::rank::text(qid)
            ))
        })?;
        row_of[q] = i;
    }
    Ok(row_of)
}

/// A run without lines, named `source`: what `assemble` measures the queries -c brings in on.
fn no_lines(source: &str) -> Run {
    Run {
        source: source.to_string(),
        qids: Arena::new(),
        query: Vec::new(),
        docnos: Arena::new(),
        scores: Vec::new(),
        lines: Vec::new(),
        ranks: Vec::new(),
        score_is_rank: false,
        distinct_docnos: false,
        judged: None,
        unit: "line",
        tag: Vec::new(),
        empty_qids: Vec::new(),
        warnings: Vec::new(),
    }
}

/// What the parts of one run, each measured elsewhere (a cluster's worker reads some of the
/// run's queries and evaluates them with `Options::complete` off and `Options::empty_ok` on),
/// bring to `assemble`.
#[derive(Debug, Clone, Default)]
pub struct Parts {
    /// The queries the parts measured (queries of both the run and the qrels, each once, in
    /// any order), and their rows of values (`width` per query), in the same order.
    pub qids: Vec<Vec<u8>>,
    pub values: Vec<f64>,
    /// The run's tag (of its last line).
    pub tag: Vec<u8>,
    /// The run's warnings, then the measures'.
    pub warnings: Vec<String>,
    pub mixed_tie_queries: usize,
    /// The run's queries the qrels lack.
    pub queries_not_in_qrels: usize,
    /// The queries of both the run and the qrels the parts left out as having nothing
    /// relevant (`NoRelevant::Skip`).
    pub queries_left_out: usize,
}

/// The evaluation of a run that was measured in parts elsewhere, exactly as `evaluate` makes
/// it of the whole run: the queries -c brings in are measured here, the rows are added in
/// query order (so the `all` values are the same bits), and the error is the one `evaluate`
/// reports, the first in query order. `source`: the run's name; `failure`: the first query (in
/// query order) a part failed to measure, with its error (`Measuring::first_failure`).
pub fn assemble(
    qrels: &Qrels,
    requests: &[Request],
    options: &Options,
    source: &str,
    parts: Parts,
    failure: Option<(Vec<u8>, Error)>,
) -> Result<Evaluation> {
    check_format(qrels, options)?;
    let (planned, width) = plan(requests, options)?;
    let row_of = rows_of_parts(qrels, &parts, width)?;
    let run = no_lines(source);
    let mut grouping = Grouping::new(&run, qrels);
    grouping.in_run = row_of.iter().map(|&r| r != usize::MAX).collect();
    // the parts left out the run's queries with nothing relevant (NoRelevant::Skip); those
    // only -c brings in are left out here by the same rule
    let left_out_only = Options {
        empty_ok: options.empty_ok || parts.queries_left_out > 0, // the run had queries, all left out
        ..options.clone()
    };
    let queries: Vec<usize> = grouping
        .evaluated(&run, qrels, &left_out_only)?
        .into_iter()
        .filter(|&q| grouping.in_run[q] || grouping.measured(q, &run, qrels, options))
        .collect();
    // the queries only -c brings in, measured here; with a part's failure, those before it
    let failed_at = match &failure {
        Some((qid, _)) => qrels.query(qid).unwrap_or(0),
        None => usize::MAX,
    };
    let absent: Vec<usize> = queries
        .iter()
        .copied()
        .filter(|&q| !grouping.in_run[q] && q < failed_at)
        .collect();
    let measuring = Measuring {
        qrels,
        run: &run,
        options,
        slot_names: slot_names(&planned),
        relates: relates(&planned),
        overlaps: overlaps(&planned),
        own_ties: own_ties(&planned),
        run_order: run_order(&planned),
        reads_grades: reads_grades(&planned),
        planned,
        width,
        grouping,
        queries: absent,
        left_out: parts.queries_left_out,
        threads: threads(),
        block: (BLOCK_LINES, BLOCK_QUERIES),
        tie_lines: None,
    };
    let mut absent_rows = vec![usize::MAX; qrels.qids.len()];
    let mut measured = Vec::new();
    let notes = measuring.for_each_block(&mut |block, rows| {
        for (i, &q) in block.iter().enumerate() {
            absent_rows[q] = measured.len() / width.max(1);
            measured.extend_from_slice(&rows[i * width..(i + 1) * width]);
        }
        Ok(())
    })?;
    if let Some((_, error)) = failure {
        return Err(error);
    }
    let mut totals = Totals::new(measuring.nine_slots(), &measuring.summaries());
    let mut values = Vec::with_capacity(queries.len() * width);
    let mut qids = Arena::new();
    let mut in_run = Vec::with_capacity(queries.len());
    for &q in &queries {
        let row = if measuring.grouping.in_run[q] {
            &parts.values[row_of[q] * width..(row_of[q] + 1) * width]
        } else {
            &measured[absent_rows[q] * width..(absent_rows[q] + 1) * width]
        };
        totals.add(row, measuring.grouping.in_run[q]);
        values.extend_from_slice(row);
        qids.push(qrels.qids.get(q));
        in_run.push(measuring.grouping.in_run[q]);
    }
    let mut warnings = parts.warnings;
    for w in notes.warnings {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    Ok(Evaluation {
        qids,
        in_run,
        width,
        nine_slots: measuring.nine_slots(),
        optional_slots: measuring.optional_slots(),
        values,
        summaries: totals.finish(qrels, options.complete),
        tie_check: None,
        tag: parts.tag,
        warnings,
        mixed_tie_queries: parts.mixed_tie_queries + notes.mixed_tie_queries,
        queries_not_in_run: measuring.grouping.in_run.iter().filter(|&&x| !x).count()
            - parts.queries_left_out,
        queries_left_out: parts.queries_left_out,
        queries_not_in_qrels: parts.queries_not_in_qrels,
    })
}

/// Evaluates one run against the qrels, keeping every query's values.
pub fn evaluate(
    qrels: &Qrels,
    run: &Run,
    requests: &[Request],
    options: &Options,
) -> Result<Evaluation> {
    Measuring::new(qrels, run, requests, options)?.evaluate(true)
}

/// Consecutive blocks of queries of about `max_lines` run lines or `max_queries` queries.
fn blocks<'q>(
    queries: &'q [usize],
    grouping: &Grouping,
    (max_lines, max_queries): (usize, usize),
) -> Vec<&'q [usize]> {
    let mut out = Vec::new();
    let (mut start, mut lines) = (0, 0);
    for (i, &q) in queries.iter().enumerate() {
        lines += grouping.lines(q).len();
        if lines >= max_lines || i + 1 - start >= max_queries {
            out.push(&queries[start..=i]);
            start = i + 1;
            lines = 0;
        }
    }
    if start < queries.len() {
        out.push(&queries[start..]);
    }
    out
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

/// -J on a ranking and, with `--ties average`, on its tie groups alongside.
fn only_judged_tied(
    values: &[f64],
    groups: &[u32],
    average: bool,
    out: &mut Vec<f64>,
    out_groups: &mut Vec<u32>,
) {
    only_judged(values, out);
    out_groups.clear();
    if average {
        out_groups.extend(
            values
                .iter()
                .zip(groups)
                .filter(|(&v, _)| v >= 0.0)
                .map(|(_, &g)| g),
        );
    }
}

/// Per-query buffers of the measuring loop, reused from query to query.
#[derive(Default)]
struct Scratch {
    judged: Vec<f64>,
    kept: Vec<f64>,
    filtered: Vec<f64>,
    groups: Vec<u32>,
    kept_groups: Vec<u32>,
    /// The ranked documents' grades before `gate_scores` (`Options::positive_scores`).
    ungated: Vec<f64>,
    filtered_groups: Vec<u32>,
    /// The query's judgment groups or preferences joined with its ranking.
    related: Related,
    /// The query's ranking under a measure's own tie rule (`Measuring::own_ties`): its run
    /// lines and their relevance values, and those values without the unjudged (a request's
    /// -J).
    own: Labeled<'static>,
    own_judged: Vec<f64>,
}

/// Ranks, labels and measures some queries into their rows of `out` (and, when checking
/// ties, into `alt` the rows as the other tie rule gives them).
impl Measuring<'_> {
    fn measure_part(
        &self,
        queries: &[usize],
        out: &mut [f64],
        mut alt: Option<&mut [f64]>,
    ) -> Result<Notes> {
        let (width, grouping, qrels, run, options) = (
            self.width,
            &self.grouping,
            self.qrels,
            self.run,
            self.options,
        );
        let mut notes = Notes::default();
        let mut other = Vec::new();
        let mut scratch = Scratch::default();
        let joins_judgments = self.relates && matches!(qrels.relations, Relations::Subtopics(_));
        let mut labeled = Labeled::new(joins_judgments);
        for (i, &q) in queries.iter().enumerate() {
            let cut_tie = prepare_query(q, grouping, run, qrels, options, &mut labeled)?;
            let Labeled {
                rows,
                labels: ranked,
                judgments,
                ..
            } = &mut labeled;
            if options.positive_scores {
                // the ideal's grades come from the ranking as given (torchmetrics' target)
                ranked_grades(ranked, &mut scratch.ungated);
                gate_scores(rows, run, options.compat, ranked);
            }
            if let Some(ties) = self.own_ties {
                prepare_query_by(q, grouping, run, qrels, options, ties, &mut scratch.own);
            }
            let mixed = options.ties == Ties::Docno
                && (cut_tie || mixed_ties(rows, ranked, run, options.compat));
            notes.mixed_tie_queries += usize::from(mixed);
            if options.ties == Ties::Average {
                tie_groups(rows, run, options.compat, &mut scratch.groups);
            }
            let checked = mixed && alt.is_some();
            if checked && !cut_tie {
                reverse_ties(rows, ranked, run, options.compat, &mut other);
            }
            if self.relates {
                let stand_in =
                    !grouping.in_run[q] && options.empty_ok && options.max_docs != Some(0);
                let ranking = Ranking {
                    ranked: rows,
                    labels: ranked,
                    judgments, // empty unless kept
                    lines: grouping.lines(q),
                    stand_in,
                    overlap: self.overlaps,
                    run_order: self.run_order,
                    ties_whole: !cut_tie,
                };
                relate(q, &ranking, run, qrels, options, &mut scratch.related)?;
            }
            let row = &mut out[i * width..(i + 1) * width];
            self.measure_ranking(q, ranked, &mut scratch, &mut notes, row)?;
            self.as_zscores(q, row);
            let Some(alt) = alt.as_deref_mut() else {
                continue;
            };
            let alt_row = &mut alt[i * width..(i + 1) * width];
            if !checked {
                alt_row.copy_from_slice(row);
                continue;
            }
            if cut_tie {
                // which documents -M keeps depends on the tie: rank again the other way round
                rows.clear();
                rows.extend_from_slice(grouping.lines(q));
                rank_query_by(rows, run, options, Ties::Reversed);
                label_ranking(rows, q, run, qrels, &mut other);
            }
            self.measure_ranking(q, &mut other, &mut scratch, &mut notes, alt_row)?;
            self.as_zscores(q, alt_row);
        }
        Ok(notes)
    }

    /// With -Z, a query's row as z-scores (before anything adds it up, as trec_eval does).
    fn as_zscores(&self, q: usize, row: &mut [f64]) {
        if let Some(zscores) = &self.options.zscores {
            zscores.convert(self.qrels.qids.get(q), &self.slot_names, row);
        }
    }

    /// Measures one labeled ranking of qrels query `q` (the stand-in of a query -c brings
    /// in, -J and the requests' own -J applied here) into its row.
    fn measure_ranking(
        &self,
        q: usize,
        ranked: &mut Vec<f64>,
        s: &mut Scratch,
        notes: &mut Notes,
        row: &mut [f64],
    ) -> Result<()> {
        let (options, qrels) = (self.options, self.qrels);
        let average = options.ties == Ties::Average;
        let absent = !self.grouping.in_run[q];
        if absent && options.empty_ok && options.max_docs != Some(0) {
            ranked.push(stand_in_value(qrels, q)); // trec_eval 10's ranking for a query -c brings in
            if average {
                s.groups.push(0);
            }
        }
        if options.judged_only {
            only_judged_tied(ranked, &s.groups, average, &mut s.kept, &mut s.kept_groups);
            std::mem::swap(ranked, &mut s.kept);
            std::mem::swap(&mut s.groups, &mut s.kept_groups);
        }
        if options.ideal == Ideal::Ranking && options.positive_scores {
            s.judged.clone_from(&s.ungated);
        } else if options.ideal == Ideal::Ranking {
            ranked_grades(ranked, &mut s.judged);
        } else if self.reads_grades || options.no_relevant != NoRelevant::Zero {
            judged_grades(qrels, q, &mut s.judged);
        } else {
            s.judged.clear(); // no measure reads them
        }
        if options.level_gains {
            drop_below_level(ranked, &mut s.judged, options.relevance_level);
        }
        let whole = Query {
            ranked,
            judged: &s.judged,
            stand_in: absent && options.empty_ok,
            tally: None,
            ties: average.then_some(s.groups.as_slice()),
            groups: &s.related.groups,
            prefs: s.related.prefs.as_ref(),
            subtopics: s.related.subtopics.as_ref(),
            rankings: Some(&s.related.provided),
        };
        if matches!(options.no_relevant, NoRelevant::One | NoRelevant::Error)
            && !s.judged.iter().any(|&g| g >= options.relevance_level)
        {
            return no_relevant(options.no_relevant, qrels.qids.get(q), row);
        }
        let tally = self
            .reads_grades
            .then(|| Tally::count(&whole, options.relevance_level));
        let not_evaluated = Query {
            ranked: &[],
            judged: &s.judged,
            stand_in: false,
            tally: None,
            ties: average.then_some(&[]),
            groups: &[],
            prefs: None,
            subtopics: None,
            rankings: None,
        };
        for p in &self.planned {
            let query = if absent && p.nine {
                Query { ..not_evaluated } // 9.x's rule for a query -c brings in
            } else if p.kernel.ties.is_some() {
                // its own tie rule: the query's ranking in that order (none for a query the
                // run lacks, -c or not)
                let own = if p.request.judged_only && !options.judged_only {
                    only_judged(&s.own.labels, &mut s.own_judged);
                    &s.own_judged
                } else {
                    &s.own.labels
                };
                Query {
                    ranked: own,
                    tally: None,
                    ties: None,
                    ..whole
                }
            } else if p.request.judged_only && !options.judged_only {
                only_judged_tied(
                    ranked,
                    &s.groups,
                    average,
                    &mut s.filtered,
                    &mut s.filtered_groups,
                );
                Query {
                    ranked: &s.filtered,
                    tally: None,
                    ties: average.then_some(s.filtered_groups.as_slice()),
                    ..whole
                }
            } else {
                Query { tally, ..whole }
            };
            (p.kernel.compute)(
                &query,
                p.request,
                p.options.as_ref().unwrap_or(options),
                notes,
                &mut row[p.first_line..p.first_line + p.lines],
            )
            .map_err(|e| qrels.locate_grade(q, e))?;
        }
        Ok(())
    }
}

/// The row of a query with nothing relevant under `rule` (One or Error; Skip's queries are
/// never measured, `Grouping::evaluated`): 1 for every value, or an error naming the query.
fn no_relevant(rule: NoRelevant, qid: &[u8], row: &mut [f64]) -> Result<()> {
    if rule == NoRelevant::Error {
        return Err(Error::new(format!(
            "query '{}' has nothing relevant, which the convention makes an error (torchmetrics' \
             empty_target_action='error')",
            String::from_utf8_lossy(qid)
        )));
    }
    row.fill(1.0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::ApDivisor;

    fn request(kernel: &str, cutoffs: Vec<usize>, summary: Summary) -> Request {
        Request {
            summary,
            ..crate::testing::request(kernel, &cutoffs, &[])
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
        let mut measuring = Measuring::new(&qrels, &run, &requests, &options).unwrap();
        let parts = split(&measuring.queries, &measuring.grouping, 3).len();
        assert_eq!(parts, 3, "the test must measure in several parts");
        measuring.threads = 1;
        let one = measuring.evaluate(true).unwrap();
        let blockings = [
            (2, (BLOCK_LINES, BLOCK_QUERIES)),
            (3, (1000, 7)),
            (7, (50, 1000)),
            (1, (1, 1)),
        ];
        for (threads, block) in blockings {
            measuring.threads = threads;
            measuring.block = block;
            let many = measuring.evaluate(true).unwrap();
            let bits = |e: &Evaluation| {
                e.values
                    .iter()
                    .chain(&e.summaries)
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                bits(&one),
                bits(&many),
                "{threads} parts, blocks of {block:?}"
            );
            let summaries_only = measuring.evaluate(false).unwrap();
            assert!(summaries_only.values.is_empty());
            assert_eq!(bits(&one)[one.values.len()..], bits(&summaries_only)[..]);
            // a budget the values fit in keeps them all; a smaller one keeps none
            let fits = measuring.evaluate_keeping(one.values.len() * 8).unwrap();
            assert_eq!(bits(&one), bits(&fits));
            let over = measuring
                .evaluate_keeping(one.values.len() * 8 - 8)
                .unwrap();
            assert!(over.values.is_empty());
            assert_eq!(bits(&one)[one.values.len()..], bits(&over)[..]);
        }
    }

    /// A run measured in parts (its queries split three ways, each part evaluated with -c off
    /// and empty_ok on, as a cluster's workers evaluate them) and put together by `assemble`
    /// is the whole run's evaluation, bit for bit: with -c under both rules (the queries only
    /// -c brings in measured by `assemble`), and without.
    #[test]
    fn assembled_parts_are_the_whole_evaluation() {
        let (mut judgments, mut lines) = (Vec::new(), Vec::new());
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for q in 0..60 {
            for d in 0..30 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let (qid, docno) = (
                    format!("q{q:02}").into_bytes(),
                    format!("d{d}").into_bytes(),
                );
                if x.is_multiple_of(3) {
                    judgments.push((qid.clone(), docno.clone(), (x % 4) as f64));
                }
                if q % 5 != 0 && x.is_multiple_of(2) {
                    lines.push((qid, docno, (x % 100) as f64 / 8.0));
                }
            }
        }
        lines.push((b"zz".to_vec(), b"d1".to_vec(), 1.0)); // a query the qrels lack
        let qrels = Qrels::from_judgments(
            "q",
            judgments
                .iter()
                .map(|(q, d, g)| (q.as_slice(), d.as_slice(), *g)),
            false,
        )
        .unwrap();
        let run_of = |keep: &dyn Fn(&[u8]) -> bool| {
            let kept = lines.iter().filter(|(q, _, _)| keep(q));
            Run::from_lines(
                "r",
                kept.map(|(q, d, s)| (q.as_slice(), d.as_slice(), *s)),
                Vec::<Vec<u8>>::new(),
            )
        };
        let whole = run_of(&|_| true).unwrap();
        let requests = [
            request("ndcg", vec![], Summary::Mean),
            request("map", vec![], Summary::Mean),
            request("map", vec![], Summary::GeometricMean),
            request("num_rel", vec![], Summary::SumJudgedRelevant),
            request("num_ret", vec![], Summary::Sum),
            request("num_q", vec![], Summary::Count),
        ];
        let bits = |e: &Evaluation| {
            let v: Vec<u64> = e
                .values
                .iter()
                .chain(&e.summaries)
                .map(|v| v.to_bits())
                .collect();
            (
                v,
                e.qids.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(),
                e.in_run.clone(),
            )
        };
        // the last two: the run's queries with nothing relevant at level 2 (some) or 3 (all:
        // grade 3 is never ranked) among their ranked documents are left out (NoRelevant::Skip)
        for (complete, compat, skip_below) in [
            (false, Compat::Ten, None),
            (true, Compat::Ten, None),
            (true, Compat::Nine, None),
            (false, Compat::Ten, Some(2.0)),
            (false, Compat::Ten, Some(3.0)),
        ] {
            let options = Options {
                complete,
                empty_ok: complete && compat == Compat::Ten,
                compat,
                ..Options::default()
            };
            let options = match skip_below {
                Some(level) => Options {
                    no_relevant: NoRelevant::Skip,
                    ideal: Ideal::Ranking,
                    relevance_level: level,
                    ..options
                },
                None => options,
            };
            let want = evaluate(&qrels, &whole, &requests, &options).unwrap();
            assert_eq!(want.queries_left_out > 0, skip_below.is_some());
            assert_eq!(want.qids.is_empty(), skip_below == Some(3.0));
            let part_options = Options {
                complete: false,
                empty_ok: true,
                ..options.clone()
            };
            let mut parts = Parts {
                tag: whole.tag.clone(),
                ..Parts::default()
            };
            for third in 0..3u8 {
                let run =
                    run_of(&|q| q.iter().map(|&b| b as usize).sum::<usize>() % 3 == third as usize);
                let part = evaluate(&qrels, &run.unwrap(), &requests, &part_options).unwrap();
                parts.qids.extend(part.qids.iter().map(<[u8]>::to_vec));
                parts.values.extend(&part.values);
                parts.queries_not_in_qrels += part.queries_not_in_qrels;
                parts.queries_left_out += part.queries_left_out;
            }
            let got = assemble(&qrels, &requests, &options, "r", parts.clone(), None).unwrap();
            assert_eq!(
                bits(&got),
                bits(&want),
                "complete {complete}, compat {compat:?}"
            );
            assert_eq!(
                (
                    got.queries_not_in_run,
                    got.queries_not_in_qrels,
                    got.queries_left_out
                ),
                (
                    want.queries_not_in_run,
                    want.queries_not_in_qrels,
                    want.queries_left_out
                )
            );
            // a part's failure is the error, unless a query only -c brings in fails before it
            let failure = (b"q07".to_vec(), Error::at("bad", "r", 7));
            let e = assemble(&qrels, &requests, &options, "r", parts, Some(failure));
            assert_eq!(e.err().unwrap().to_string(), "r:7: bad");
        }
        let nothing = assemble(
            &qrels,
            &requests,
            &Options::default(),
            "r",
            Parts::default(),
            None,
        );
        assert_eq!(
            nothing.err().unwrap().to_string(),
            "r: no query has both results and judgments"
        );
    }

    /// A document twice in one ranking: a file's run names lines, rows given in memory rows.
    #[test]
    fn a_duplicate_names_the_unit_of_its_run() {
        let qrels = Qrels::from_judgments("q", [(b"1", b"a", 1.0)], false).unwrap();
        let items = [(b"1", b"a", 2.0), (b"1", b"b", 1.0), (b"1", b"a", 0.5)];
        let requests = [request("ndcg", vec![], Summary::Mean)];
        let options = Options::default();
        let message = |run: &Run| {
            let measuring = Measuring::new(&qrels, run, &requests, &options).unwrap();
            measuring.evaluate(true).err().unwrap().to_string()
        };
        let rows = Run::from_rows("run DataFrame", items).unwrap();
        assert_eq!(
            message(&rows),
            "run DataFrame:3: document 'a' retrieved twice for query '1' (first at row 1)"
        );
        let lines = Run::from_lines("run", items, Vec::<Vec<u8>>::new()).unwrap();
        assert_eq!(
            message(&lines),
            "run:3: document 'a' retrieved twice for query '1' (first at line 1)"
        );
    }

    /// Queries 1 (a relevant at rank 2, under a non-relevant b), 2 (x judged 0, y relevant but
    /// not retrieved), 3 (c relevant, with a score of -1, below z).
    fn convention_case() -> (Qrels, Run) {
        let qrels = Qrels::from_judgments(
            "q",
            [
                (b"1", b"a", 1.0),
                (b"1", b"b", 0.0),
                (b"2", b"x", 0.0),
                (b"2", b"y", 1.0),
                (b"3", b"c", 1.0),
            ],
            false,
        )
        .unwrap();
        let lines = [
            (b"1", b"a", 1.0),
            (b"1", b"b", 2.0),
            (b"2", b"x", 1.0),
            (b"3", b"z", 0.0),
            (b"3", b"c", -1.0),
        ];
        (
            qrels,
            Run::from_lines("r", lines, Vec::<Vec<u8>>::new()).unwrap(),
        )
    }

    /// NoRelevant under Ideal::Ranking: query 2 ranks nothing relevant. Zero: RR 1/2, 0, 1/2
    /// (mean 1/3); One: query 2 scores 1 (mean 2/3); Skip: query 2 is not evaluated (mean 1/2);
    /// Error: an error naming it. Under Ideal::Judged query 2 has a relevant judgment: skipped
    /// by nothing.
    #[test]
    fn queries_with_nothing_relevant() {
        let (qrels, run) = convention_case();
        let requests = [request("recip_rank", vec![], Summary::Mean)];
        let with = |no_relevant, ideal| Options {
            no_relevant,
            ideal,
            ..Options::default()
        };
        let zero = evaluate(
            &qrels,
            &run,
            &requests,
            &with(NoRelevant::Zero, Ideal::Ranking),
        )
        .unwrap();
        assert_eq!(
            (zero.values.clone(), zero.summaries.clone()),
            (vec![0.5, 0.0, 0.5], vec![1.0 / 3.0])
        );
        let one = evaluate(
            &qrels,
            &run,
            &requests,
            &with(NoRelevant::One, Ideal::Ranking),
        )
        .unwrap();
        assert_eq!(
            (one.values, one.summaries),
            (vec![0.5, 1.0, 0.5], vec![2.0 / 3.0])
        );
        let skip = evaluate(
            &qrels,
            &run,
            &requests,
            &with(NoRelevant::Skip, Ideal::Ranking),
        )
        .unwrap();
        assert_eq!(skip.qids.len(), 2);
        assert_eq!((skip.values, skip.summaries), (vec![0.5, 0.5], vec![0.5]));
        let judged = evaluate(
            &qrels,
            &run,
            &requests,
            &with(NoRelevant::Skip, Ideal::Judged),
        )
        .unwrap();
        assert_eq!(judged.values, vec![0.5, 0.0, 0.5]);
        let error = evaluate(
            &qrels,
            &run,
            &requests,
            &with(NoRelevant::Error, Ideal::Ranking),
        );
        assert!(error
            .err()
            .unwrap()
            .to_string()
            .contains("query '2' has nothing relevant"));
    }

    /// positive_scores: query 3's c (score -1) is not relevant to RR and recall's numerator,
    /// but recall's divisor (Ideal::Ranking) still counts it: RR 0, recall@2 0 / 1. AP over the
    /// found (ApDivisor::Found) of query 1: (1/2) / 1 found.
    #[test]
    fn non_positive_scores_and_ap_over_the_found() {
        let (qrels, run) = convention_case();
        let requests = [
            request("recip_rank", vec![], Summary::Mean),
            request("recall", vec![2], Summary::Mean),
            request("map_cut", vec![1, 2], Summary::Mean),
        ];
        let options = Options {
            positive_scores: true,
            ideal: Ideal::Ranking,
            ap_divisor: ApDivisor::Found,
            ..Options::default()
        };
        let e = evaluate(&qrels, &run, &requests, &options).unwrap();
        let row = |q: usize| e.values[q * 4..(q + 1) * 4].to_vec();
        assert_eq!(row(0), vec![0.5, 1.0, 0.0, 0.5]);
        assert_eq!(row(2), vec![0.0, 0.0, 0.0, 0.0]);
        let plain = evaluate(&qrels, &run, &requests, &Options::default()).unwrap();
        assert_eq!(plain.values[8..12].to_vec(), vec![0.5, 1.0, 0.0, 0.5]);
    }
}
