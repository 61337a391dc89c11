//! One query's computation of a measure, rank by rank (`trecgain explain`): the DCG family's
//! rows here, the other measures' from `steps`, `ideal_steps` (Compat, the diversity measures)
//! and `pref_steps` (the preference measures).
//!
//! The query is ranked, labeled and filtered (-M, -J, a measure's own judged_only) by the
//! driver's functions, in the driver's order (`Measuring::measure_part`); its gains come from
//! `Gains` with the kernel's gain rule, its divisors from `Discount::divisor`, and each row's
//! sums are added term by term as the kernels add them (gain / divisor, zero gains skipped;
//! cg_cut undiscounted), so the value at rank k is the bits the kernel gives at cutoff k.
//! The values of the measure's lines are the kernel's own, called on the same query; beside
//! them, each line's value as the explanation computes it (`Explanation::own`).

use hashbrown::{HashMap, HashSet};

use crate::cwl_steps::user_model as user_model_steps;
use crate::error::{Error, Result};
use crate::ideal_steps::{compat as compat_steps, diversity as diversity_steps, IdealDoc, Names};
use crate::label::{
    judged_grades, label_ranking, only_judged, prepare_query, prepare_query_by, query_lines,
    Labeled, NOT_IN_QRELS, UNJUDGED,
};
use crate::measures::cwl::gain_of as user_model_gains;
use crate::measures::diversity::UNJUDGED as NO_JUDGMENT;
use crate::measures::gain::ranked_gains;
use crate::measures::gains::{GainRule, Gains};
use crate::measures::precision::Tally;
use crate::measures::{kernel, Explain as Shape, KernelRecord, Notes, Query, Relevance, KERNELS};
use crate::options::{Compat, Discount, GainSpec, Options, Request, Ties};
use crate::pref_steps::preference as preference_steps;
use crate::rank::{
    rank_query, rank_query_by, rank_rows, sort_score, text, tie_groups, tie_runs, Grouping,
};
use crate::read::{Qrels, Relations, Run};
use crate::relations::{compat_ideal, relate, Ranking, Related};
use crate::steps::{averaged_groups, query_count, run_tag, walk as walk_steps, Part, Step};

/// The measures explain can show: those whose record says how (`KernelRecord::explain`).
pub fn supported() -> Vec<&'static str> {
    KERNELS
        .iter()
        .filter(|k| k.explain.is_some())
        .map(|k| k.name)
        .collect()
}

/// A ranked document.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub docno: Vec<u8>,
    /// The score as read.
    pub score: f64,
    /// The score the ranking sorted by (compat 9: rounded to f32).
    pub sort_score: f64,
    /// Its line in the run.
    pub line: u64,
}

/// One rank of the computation: the ranked document there (if the ranking reaches it) and
/// the ideal ranking's document there (if the judged documents reach it).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based.
    pub rank: usize,
    pub doc: Option<Doc>,
    /// The document's relevance value: its grade (>= 0), `label::NOT_IN_QRELS` (-1) or
    /// `label::UNJUDGED` (-2).
    pub relevance: Option<f64>,
    pub gain: Option<f64>,
    /// The divisor at this rank (1 for cg_cut).
    pub discount: f64,
    /// gain / discount as the kernel adds it (0 for a gain of 0, which it skips).
    pub discounted_gain: Option<f64>,
    /// The DCG (cg_cut: CG) of the ranks so far.
    pub dcg: f64,
    /// The grade of the ideal ranking's document at this rank: a judged document (grade >= 0),
    /// in the ideal ranking or, past its end (gains <= 0), after it.
    pub ideal_grade: Option<f64>,
    /// Its gain, when trec_eval's ideal ranking has it (None past the ideal walk's end).
    pub ideal_gain: Option<f64>,
    /// What it adds to the ideal DCG (0 past the ideal walk's end).
    pub ideal_discounted_gain: Option<f64>,
    pub ideal_dcg: f64,
    /// The measure at this rank: nDCG@rank (ndcg, ndcg_cut, ndcg_p), DCG (dcg, dcg_cut),
    /// ideal DCG (ideal_dcg) or CG (cg_cut).
    pub value: f64,
}

/// A judged document the evaluated ranking lacks, with a positive gain or relevant at -l.
#[derive(Debug, Clone, PartialEq)]
pub struct Missed {
    pub docno: Vec<u8>,
    pub grade: f64,
    /// The gain a ranked document of this grade gets.
    pub gain: f64,
    /// Its rank in the run's whole ranking, when the run has it past -M.
    pub ranked_at: Option<usize>,
}

/// A document of a run of equal scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Tied {
    pub docno: Vec<u8>,
    pub score: f64,
    /// Its rank in the whole ranking (before -M and -J).
    pub rank: usize,
    /// Its rank in the evaluated ranking (None: past -M, or dropped by -J).
    pub evaluated_rank: Option<usize>,
}

/// Documents with the same score (as ranked), ordered by docno descending.
#[derive(Debug, Clone, PartialEq)]
pub struct TieGroup {
    pub sort_score: f64,
    pub docs: Vec<Tied>,
}

/// One query's computation of one measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The DCG family's rows (empty for the other measures).
    pub rows: Vec<Row>,
    /// The other measures' rows, the ranks that matter (empty for the DCG family).
    pub steps: Vec<Step>,
    /// The counts that enter the measure (the other measures).
    pub parts: Vec<Part>,
    /// The measure's formula, its parts named (the other measures).
    pub formula: String,
    /// The columns of `steps` that say something for this measure: (field, title).
    pub columns: Vec<(&'static str, &'static str)>,
    /// The kernel's value for each of the request's lines (one per cutoff).
    pub values: Vec<f64>,
    /// Each line's value as the explanation computes it from its own rows and parts: the
    /// rows' value at the line's cutoff (the DCG family), the walkthrough's otherwise.
    pub own: Vec<f64>,
    pub missed: Vec<Missed>,
    pub ties: Vec<TieGroup>,
    /// Documents in the evaluated ranking.
    pub ranked: usize,
    /// Positions of the ideal ranking (judged documents with a positive gain, in trec_eval's walk).
    pub ideal: usize,
    /// Judged documents (grade >= 0).
    pub judged: usize,
    /// The measure ranks ties by docno ascending (Compat, the diversity and the preference
    /// measures), not by trec_eval's docno descending: the steps and tie groups are that
    /// ranking's.
    pub docno_ascending: bool,
    /// The measure ranks tied scores in the run's own order (Accuracy, the C/W/L measures):
    /// the steps and tie groups are that ranking's.
    pub run_order: bool,
    /// runid: the run's tag, which its summary line prints.
    pub tag: Option<Vec<u8>>,
    /// Warnings for the caller to show (the run's, and the gain table's).
    pub warnings: Vec<String>,
}

/// The qrels index of query `qid`, which both files must have (trec_eval evaluates only
/// the queries of the run the qrels judge).
pub fn query_index(qrels: &Qrels, run: &Run, qid: &[u8]) -> Result<usize> {
    let in_run = run.qids.iter().any(|q| q == qid) || run.empty_qids.iter().any(|q| q == qid);
    match qrels.query(qid) {
        Some(q) if in_run => Ok(q),
        Some(_) => Err(Error::in_file(
            format!(
                "query '{}' has no ranking in the run (trecgain evaluates only the run's queries)",
                text(qid)
            ),
            &run.source,
        )),
        None if in_run => Err(Error::in_file(
            format!(
                "query '{}' is not in the qrels (a query without judgments is not evaluated)",
                text(qid)
            ),
            &qrels.source,
        )),
        None => Err(Error::in_file(
            format!(
                "query '{}' is not in the qrels, nor in the run {}",
                text(qid),
                run.source
            ),
            &qrels.source,
        )),
    }
}

/// Explains `request` on qrels query `query` (which the run must have) under `options`,
/// with at least `min_rows` rows (to line it up with another explanation of the same query)
/// and, for a cutoff measure, no more than its largest cutoff.
pub fn explain(
    qrels: &Qrels,
    run: &Run,
    request: &Request,
    options: &Options,
    query: usize,
    min_rows: usize,
) -> Result<Explanation> {
    let (record, shape) = explained(request)?;
    check_format(record, qrels)?;
    let Prepared {
        mut rows,
        mut ranked,
        mut whole_ranking,
        before_j,
    } = ranking(qrels, run, query, options)?;
    if let Some(ties) = record.ties {
        // its own tie rule (the run's order): the ranking the driver gives its kernel
        let grouping = Grouping::new(run, qrels);
        let mut own = Labeled::default();
        prepare_query_by(query, &grouping, run, qrels, options, ties, &mut own);
        (rows, ranked) = (own.rows, own.labels);
        if options.judged_only {
            let mut labels = Vec::new();
            label_ranking(&rows, query, run, qrels, &mut labels);
            rows = judged_rows(&rows, &labels, &ranked);
        }
        whole_ranking = grouping.lines(query).to_vec();
        let unlimited = Options {
            max_docs: None,
            ..options.clone()
        };
        rank_query_by(&mut whole_ranking, run, &unlimited, ties);
    }
    let mut judged = Vec::new();
    judged_grades(qrels, query, &mut judged);
    let Joined {
        related,
        ascending,
        rows: shown_rows,
        whole: shown_whole,
    } = join(
        record,
        request,
        (qrels, run, query),
        options,
        &before_j,
        (&rows, &whole_ranking),
    )?;
    let whole = Query {
        ranked: &ranked,
        judged: &judged,
        stand_in: false,
        tally: None,
        ties: None,
        groups: &related.groups,
        prefs: related.prefs.as_ref(),
        subtopics: related.subtopics.as_ref(),
        rankings: Some(&related.provided),
    };
    let tally = Some(Tally::count(&whole, options.relevance_level));
    let mut filtered = Vec::new();
    let (query_seen, rows) = if request.judged_only && !options.judged_only {
        only_judged(&ranked, &mut filtered);
        let rows = judged_rows(&rows, &ranked, &filtered);
        (
            Query {
                ranked: &filtered,
                tally: None,
                ..whole
            },
            rows,
        )
    } else {
        (Query { tally, ..whole }, rows)
    };
    // --ties average: the tie groups of the ranking as the measure sees it (-J keeps equal
    // scores adjacent, so grouping what is left is grouping first and filtering after)
    let mut groups = Vec::new();
    let average = options.ties == Ties::Average;
    if average {
        tie_groups(&rows, run, options.compat, &mut groups);
    }
    let query_seen = Query {
        ties: average.then_some(groups.as_slice()),
        ..query_seen
    };
    let own = request.relevance_level.map(|level| Options {
        relevance_level: level,
        ..options.clone()
    });
    let options = own.as_ref().unwrap_or(options);

    let mut notes = Notes::default();
    let mut values = vec![0.0; record.lines(request)];
    (record.compute)(&query_seen, request, options, &mut notes, &mut values)
        .map_err(|e| qrels.locate_grade(query, e))?;

    // the C/W/L measures rank by the doubles, whatever --compat says
    let compat = if record.run_order {
        Compat::Ten
    } else {
        options.compat
    };
    let doc_at = |row: usize| Doc {
        docno: run.docnos.get(row).to_vec(),
        score: run.scores[row],
        sort_score: sort_score(run.scores[row], compat),
        line: run.lines[row],
    };
    let by_gain = shape.is_dcg() || record.gains;
    let exponential = GainSpec::exponential();
    let rule = if by_gain {
        gain_rule(request, options, &exponential)
    } else {
        GainRule::TREC_EVAL
    };
    let gains = Gains::new(&query_seen, &rule, options.relevance_level, &mut notes)
        .map_err(|e| qrels.locate_grade(query, e))?;
    let user_gains = match shape {
        Shape::UserModel(rule) => Some(user_model_gains(rule, request)?),
        _ => None,
    };
    let gain_of = |grade: f64| match user_gains {
        Some(g) => g.gain(grade),
        None => gains.ranked(grade),
    };
    let mut explanation = Explanation {
        rows: Vec::new(),
        steps: Vec::new(),
        parts: Vec::new(),
        formula: String::new(),
        columns: Vec::new(),
        values,
        own: Vec::new(),
        missed: missed(
            qrels,
            (run, query),
            (&shown_rows, &shown_whole),
            gain_of,
            |grade, gain| {
                let positive = (by_gain || user_gains.is_some()) && gain > 0.0;
                positive || (user_gains.is_none() && grade >= options.relevance_level)
            },
        ),
        ties: Vec::new(),
        ranked: if record.run_order {
            shown_rows.len() // not changed by -J
        } else {
            query_seen.ranked.len()
        },
        ideal: gains.num_ideal(),
        judged: judged.len(),
        docno_ascending: ascending,
        run_order: record.ties.is_some() || record.run_order,
        tag: (shape == Shape::RunTag).then(|| run.tag.clone()),
        warnings: Vec::new(),
    };
    let limit = if shape.is_dcg() {
        // the gains and the discount the kernel used
        let walk = Walk {
            run,
            compat: options.compat,
            shape,
            discount: (shape != Shape::Cg).then_some(options.discount),
            keep_dcg: GainRule::is_default(request.gains.as_ref(), options),
            gains: &gains,
            judged: &judged,
        };
        let ranked = query_seen.ranked;
        let per_rank = ranked_gains(&query_seen, &gains); // averaged over tie groups with --ties average
        let mut count = ranked.len().max(gains.num_ideal()).max(min_rows);
        if let Some(&largest) = request.cutoffs.last() {
            count = count.min(largest);
        }
        let out_rows = walk.rows(ranked, &rows, &per_rank, count);
        explanation.own = cutoffs_or_whole(request, record)
            .map(|k| {
                let at = k.min(out_rows.len());
                if at == 0 {
                    0.0
                } else {
                    out_rows[at - 1].value
                }
            })
            .collect();
        explanation.rows = out_rows;
        request.cutoffs.last().copied()
    } else {
        let w = walk_other(
            shape,
            &query_seen,
            (request, options),
            (qrels, run, query),
            (&related, &shown_rows),
            &mut notes,
        )?;
        let mut steps = w.steps;
        let whole = steps.len();
        steps.truncate(w.shown);
        for (step, &row) in steps.iter_mut().zip(&shown_rows) {
            step.doc = Some(doc_at(row));
        }
        explanation.steps = steps;
        explanation.own = w.own;
        explanation.parts = w.parts;
        explanation.formula = w.formula;
        explanation.columns = w.columns;
        (w.shown < whole).then_some(w.shown)
    };
    if shape.per_rank() {
        explanation.ties = ties(run, &shown_whole, &shown_rows, compat, limit);
    } else {
        explanation.missed.clear(); // runid and num_q rank nothing
    }
    explanation.warnings = run.warnings.clone();
    explanation.warnings.extend(notes.warnings);
    Ok(explanation)
}

/// What explain joins to the query beyond its graded ranking (Compat's overlap, the C/W/L
/// measures' ranking in the run's order, the formats beyond qrels), and the ranking its steps
/// and tie groups show.
struct Joined {
    related: Related,
    /// Ties by docno ascending (Compat, the diversity and the preference measures).
    ascending: bool,
    /// The ranking shown (after -M, and -J where the measure applies it).
    rows: Vec<usize>,
    /// The whole ranking shown, without -M (the ties beyond the cut).
    whole: Vec<usize>,
}

/// The query joined as the driver joins it (`relate`) for the measures that read more than
/// its graded ranking, and the ranking their steps show; `before_j`: its run lines before -J,
/// which each judgment group labels (-J then drops what that group does not judge).
fn join(
    record: &KernelRecord,
    request: &Request,
    (qrels, run, query): (&Qrels, &Run, usize),
    options: &Options,
    before_j: &[usize],
    (rows, whole_ranking): (&[usize], &[usize]),
) -> Result<Joined> {
    let ascending = record.overlap
        || matches!(
            record.relevance,
            Relevance::Subtopics | Relevance::Preferences
        );
    let mut out = Joined {
        related: Related::default(),
        ascending,
        rows: rows.to_vec(),
        whole: whole_ranking.to_vec(),
    };
    if !ascending && record.relevance != Relevance::Groups && !record.run_order {
        return Ok(out);
    }
    let grouping = Grouping::new(run, qrels);
    let lines = grouping.lines(query);
    let mut labels = Vec::new();
    if record.run_order {
        label_ranking(before_j, query, run, qrels, &mut labels); // as the driver gives them
    }
    let ranking = Ranking {
        ranked: before_j,
        labels: &labels,
        judgments: &[],
        lines,
        stand_in: false,
        overlap: record.overlap,
        run_order: record.run_order,
        ties_whole: false, // ranked anew: whether -M cut a run of equal scores is not known here
    };
    relate(query, &ranking, run, qrels, options, &mut out.related)?;
    out.rows = before_j.to_vec();
    if record.run_order {
        out.rows = out.related.run_order_rows.clone();
        out.whole = in_run_order(query, &grouping, (run, qrels), options);
    }
    if ascending {
        out.rows = ranked_ascending(lines, run, options);
        let unlimited = Options {
            max_docs: None,
            ..options.clone()
        };
        out.whole = ranked_ascending(lines, run, &unlimited);
    }
    if let Some(topic) = out.related.subtopics.as_ref() {
        if request.judged_only || options.judged_only {
            out.rows = out
                .rows
                .iter()
                .zip(&topic.ranked)
                .filter(|&(_, &d)| d != NO_JUDGMENT)
                .map(|(&row, _)| row)
                .collect();
        }
    }
    Ok(out)
}

/// The walkthrough of a measure outside the DCG family on the query as its kernel sees it
/// (`shown`: the ranking its steps show).
fn walk_other(
    shape: Shape,
    query_seen: &Query,
    (request, options): (&Request, &Options),
    (qrels, run, query): (&Qrels, &Run, usize),
    (related, shown): (&Related, &[usize]),
    notes: &mut Notes,
) -> Result<crate::steps::Walkthrough> {
    Ok(match shape {
        Shape::Compat => {
            let values = relevance_values(qrels, run, query, shown);
            let lines = Grouping::new(run, qrels);
            let ideal: Vec<IdealDoc> = compat_ideal(query, lines.lines(query), run, qrels, options)
                .into_iter()
                .map(|j| IdealDoc {
                    docno: text(qrels.docnos.get(j)),
                    grade: qrels.grades[j],
                })
                .collect();
            compat_steps(query_seen, request, &values, &ideal)?
        }
        Shape::Intent(intent) => {
            let docnos: Vec<String> = (qrels.offsets[query]..qrels.offsets[query + 1])
                .map(|j| text(qrels.docnos.get(j)))
                .collect();
            let subtopics = subtopic_names(qrels, related.subtopics.as_ref());
            let names = Names {
                docnos: &docnos,
                subtopics: &subtopics,
            };
            diversity_steps(intent, query_seen, request, options, &names)?
        }
        Shape::AvgJg(base) => {
            let names = group_names(qrels, query);
            let ranks = (&names[..], shown.len());
            let mut w = averaged_groups(*base, query_seen, request, options, notes, ranks)?;
            for (step, &row) in w.steps.iter_mut().zip(shown) {
                step.detail = Some(group_grades(qrels, query, run.docnos.get(row)));
            }
            w
        }
        Shape::Preference(kind) => {
            let values = relevance_values(qrels, run, query, shown);
            preference_steps(kind, query_seen, &values)?
        }
        Shape::UserModel(rule) => user_model_steps(rule, query_seen, request)?,
        Shape::RunTag => {
            let last = run.lines.last().copied();
            run_tag(&text(&run.tag), last, &run.source)
        }
        Shape::QueryCount => {
            let grouping = Grouping::new(run, qrels);
            let evaluated = grouping.evaluated(run, qrels, options)?.len();
            let lacking = |qid: &[u8]| qrels.query(qid).is_none();
            let run_only = run.qids.iter().filter(|q| lacking(q)).count()
                + run.empty_qids.iter().filter(|q| lacking(q)).count();
            query_count(evaluated, qrels.qids.len(), run_only)
        }
        _ => walk_steps(shape, query_seen, request, options, notes)?,
    })
}

/// A line's cutoff per line: the request's cutoffs, or the whole ranking (usize::MAX) for
/// each line of a measure without.
fn cutoffs_or_whole(request: &Request, record: &KernelRecord) -> impl Iterator<Item = usize> {
    let lines = record.lines(request);
    let cutoffs = request.cutoffs.clone();
    (0..lines).map(move |i| cutoffs.get(i).copied().unwrap_or(usize::MAX))
}

/// What the rows of an explanation are made from: the run (its documents), the kernel's gains
/// and discount (None: cg_cut adds gains undivided), the shape of the value, whether nDCG@k
/// stays DCG without an ideal (trec_eval's gains), and the judged grades (the ideal ranking
/// goes on past its positive gains).
struct Walk<'a> {
    run: &'a Run,
    compat: Compat,
    shape: Shape,
    discount: Option<Discount>,
    keep_dcg: bool,
    gains: &'a Gains,
    judged: &'a [f64],
}

impl Walk<'_> {
    /// The first `count` rows: each rank's document, gain and DCG so far beside the ideal
    /// ranking's, and the measure there.
    fn rows(&self, ranked: &[f64], rows: &[usize], per_rank: &[f64], count: usize) -> Vec<Row> {
        let mut ideal = self.gains.ideal_grades();
        let mut after_ideal = after_walk(self.judged, self.gains).into_iter();
        let (mut dcg, mut ideal_dcg) = (0.0, 0.0);
        let mut out_rows = Vec::with_capacity(count);
        for i in 0..count {
            let divisor = self.discount.map_or(1.0, |d: Discount| d.divisor(i));
            let (mut doc, mut relevance, mut gain, mut discounted) = (None, None, None, None);
            if let (Some(&v), Some(&row), Some(&g)) = (ranked.get(i), rows.get(i), per_rank.get(i))
            {
                let term = match self.discount {
                    None => {
                        dcg += g; // cg_cut adds every gain, undivided
                        g
                    }
                    Some(_) if g != 0.0 => {
                        let term = g / divisor;
                        dcg += term;
                        term
                    }
                    Some(_) => 0.0,
                };
                doc = Some(Doc {
                    docno: self.run.docnos.get(row).to_vec(),
                    score: self.run.scores[row],
                    sort_score: sort_score(self.run.scores[row], self.compat),
                    line: self.run.lines[row],
                });
                relevance = Some(v);
                gain = Some(g);
                discounted = Some(term);
            }
            let (ideal_grade, ideal_gain, ideal_term) = match ideal.next() {
                Some((grade, g)) => {
                    let term = if self.discount.is_some() {
                        g / divisor
                    } else {
                        g
                    };
                    ideal_dcg += term;
                    (Some(grade), Some(g), Some(term))
                }
                None => match after_ideal.next() {
                    Some(grade) => (Some(grade), None, Some(0.0)),
                    None => (None, None, None),
                },
            };
            let value = match self.shape {
                Shape::Ndcg if ideal_dcg > 0.0 => dcg / ideal_dcg,
                Shape::Ndcg => 0.0,
                Shape::NdcgCut if ideal_dcg > 0.0 => dcg / ideal_dcg,
                Shape::NdcgCut if self.keep_dcg => dcg,
                Shape::NdcgCut => 0.0,
                Shape::Ideal => ideal_dcg,
                _ => dcg, // Dcg, Cg (the other shapes are not walked here)
            };
            out_rows.push(Row {
                rank: i + 1,
                doc,
                relevance,
                gain,
                discount: divisor,
                discounted_gain: discounted,
                dcg,
                ideal_grade,
                ideal_gain,
                ideal_discounted_gain: ideal_term,
                ideal_dcg,
                value,
            });
        }
        out_rows
    }
}

/// The record and explain's shape of the requested measure (an error for one explain lacks).
fn explained(request: &Request) -> Result<(&'static KernelRecord, Shape)> {
    let record = kernel(&request.kernel);
    match (record, record.and_then(|k| k.explain)) {
        (Some(record), Some(shape)) => Ok((record, shape)),
        (Some(record), None) => Err(Error::new(refusal(record))),
        _ => Err(Error::new(format!(
            "explain shows {}, not '{}'",
            supported().join(", "),
            request.kernel
        ))),
    }
}

/// Why explain does not show a measure its record leaves without a shape (one line).
pub fn refusal(record: &KernelRecord) -> String {
    format!(
        "explain does not show '{}' (its record gives no way to)",
        record.name
    )
}

/// The `-R` that reads judgments of a kind.
fn format_of(relevance: Relevance) -> &'static str {
    match relevance {
        Relevance::Any | Relevance::Grades => "-R qrels",
        Relevance::Groups => "-R qrels_jg",
        Relevance::Preferences => "-R prefs or qrels_prefs",
        Relevance::Subtopics => "-R subtopics",
    }
}

/// An error unless the qrels hold the judgments the measure reads.
fn check_format(record: &KernelRecord, qrels: &Qrels) -> Result<()> {
    let held = match &qrels.relations {
        Relations::Grades => Relevance::Grades,
        Relations::Groups(_) => Relevance::Groups,
        Relations::Preferences(_) => Relevance::Preferences,
        Relations::Subtopics(_) => Relevance::Subtopics,
    };
    if record.relevance == Relevance::Any || record.relevance == held {
        return Ok(());
    }
    Err(Error::new(format!(
        "measure '{}' needs {}, and the qrels were read as {}",
        record.name,
        format_of(record.relevance),
        format_of(held)
    )))
}

/// A query's whole ranking (no -M) as ir_measures' cwl_eval provider ranks it: score
/// descending (the doubles), equal scores in the run's order.
fn in_run_order(
    query: usize,
    grouping: &Grouping,
    (run, qrels): (&Run, &Qrels),
    options: &Options,
) -> Vec<usize> {
    let mut rows = Vec::new();
    query_lines(query, grouping, run, qrels, options, &mut rows);
    rank_rows(&mut rows, run, Compat::Ten, None, Ties::Input);
    rows
}

/// A query's run lines ranked as ir_measures and ndeval rank them: score descending, ties by
/// docno ascending (after -M when the options have it).
fn ranked_ascending(lines: &[usize], run: &Run, options: &Options) -> Vec<usize> {
    let mut rows = lines.to_vec();
    rank_query_by(&mut rows, run, options, Ties::Reversed);
    rows
}

/// The relevance values of ranked run lines (as `label`: a grade, `NOT_IN_QRELS`, or
/// `UNJUDGED` for a negative grade).
fn relevance_values(qrels: &Qrels, run: &Run, query: usize, rows: &[usize]) -> Vec<f64> {
    rows.iter()
        .map(|&row| match qrels.judgment(query, run.docnos.get(row)) {
            Some(j) if qrels.grades[j] >= 0.0 => qrels.grades[j],
            Some(_) => UNJUDGED,
            None => NOT_IN_QRELS,
        })
        .collect()
}

/// The names of query `query`'s judgment groups (-R qrels_jg), in the evaluation's order.
fn group_names(qrels: &Qrels, query: usize) -> Vec<String> {
    let Relations::Groups(groups) = &qrels.relations else {
        return Vec::new();
    };
    groups
        .of(query)
        .map(|gq| {
            let id = groups.qrels.qids.get(gq);
            let name = id
                .iter()
                .position(|&b| b == 0)
                .map_or(id, |at| &id[at + 1..]);
            text(name)
        })
        .collect()
}

/// A document's grade in each judgment group of query `query` ('-': the group does not judge it).
fn group_grades(qrels: &Qrels, query: usize, docno: &[u8]) -> String {
    let Relations::Groups(groups) = &qrels.relations else {
        return String::new();
    };
    let names = group_names(qrels, query);
    groups
        .of(query)
        .zip(&names)
        .map(|(gq, name)| match groups.qrels.judgment(gq, docno) {
            Some(j) => format!("{name}:{}", groups.qrels.grades[j]),
            None => format!("{name}:-"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The names of a diversity query's subtopics, as the file names them.
fn subtopic_names(qrels: &Qrels, topic: Option<&crate::measures::diversity::Topic>) -> Vec<String> {
    let (Relations::Subtopics(subtopics), Some(topic)) = (&qrels.relations, topic) else {
        return Vec::new();
    };
    topic
        .named
        .iter()
        .map(|&n| {
            subtopics
                .names
                .get(n as usize)
                .map_or_else(String::new, |name| text(name))
        })
        .collect()
}

/// A query's ranking as the evaluation prepares it.
struct Prepared {
    /// Its run lines in rank order (after -M and -J).
    rows: Vec<usize>,
    /// Their relevance values.
    ranked: Vec<f64>,
    /// The whole ranking without -M (the ties beyond the cut).
    whole_ranking: Vec<usize>,
    /// Its run lines before -J.
    before_j: Vec<usize>,
}

/// The query's ranking as the evaluation prepares it (`prepare_query`, then -J); an error
/// when the run has no ranking for it.
fn ranking(qrels: &Qrels, run: &Run, query: usize, options: &Options) -> Result<Prepared> {
    let grouping = Grouping::new(run, qrels);
    if !grouping.in_run.get(query).copied().unwrap_or(false) {
        return Err(Error::in_file(
            format!(
                "query '{}' has no ranking in the run",
                text(qrels.qids.get(query))
            ),
            &run.source,
        ));
    }
    let mut labeled = Labeled::default();
    prepare_query(query, &grouping, run, qrels, options, &mut labeled)?;
    let Labeled {
        mut rows,
        labels: mut ranked,
        ..
    } = labeled;
    let mut whole_ranking = grouping.lines(query).to_vec();
    let unlimited = Options {
        max_docs: None,
        ..options.clone()
    };
    rank_query(&mut whole_ranking, run, &unlimited);
    let before_j = rows.clone();
    if options.judged_only {
        let mut kept = Vec::new();
        only_judged(&ranked, &mut kept);
        rows = judged_rows(&rows, &ranked, &kept);
        ranked = kept;
    }
    Ok(Prepared {
        rows,
        ranked,
        whole_ranking,
        before_j,
    })
}

/// The gain rule the kernel used: ndcg_p's exponential gains, else the request's or the
/// options' (`exponential`: ndcg_p's spec, which the rule borrows).
fn gain_rule<'a>(
    request: &'a Request,
    options: &'a Options,
    exponential: &'a GainSpec,
) -> GainRule<'a> {
    if request.kernel == "ndcg_p" {
        let mut rule = GainRule::of(exponential);
        rule.exact_ideal |= options.exact_ideal;
        rule
    } else {
        GainRule::resolve(request.gains.as_ref(), options)
    }
}

/// The run lines of a ranking that -J keeps: those whose relevance value it keeps
/// (`only_judged` gave `kept`, the values of those lines, in order).
fn judged_rows(rows: &[usize], values: &[f64], kept: &[f64]) -> Vec<usize> {
    let out: Vec<usize> = rows
        .iter()
        .zip(values)
        .filter(|&(_, &v)| v >= 0.0)
        .map(|(&r, _)| r)
        .collect();
    debug_assert_eq!(out.len(), kept.len(), "only_judged keeps the values >= 0");
    out
}

/// The grades of the judged documents trec_eval's ideal walk leaves out (gains <= 0, or the
/// levels after the walk stopped), highest first.
fn after_walk(judged: &[f64], gains: &Gains) -> Vec<f64> {
    let mut in_walk: HashMap<u64, usize> = HashMap::new();
    for (grade, _) in gains.ideal_grades() {
        *in_walk.entry(grade.to_bits()).or_default() += 1;
    }
    let mut out = Vec::new();
    for &grade in judged {
        match in_walk.get_mut(&grade.to_bits()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(grade),
        }
    }
    out
}

/// The judged documents the evaluated ranking lacks that count (`counts(grade, gain)`: a
/// positive gain, or a grade at the relevance level; `gain_of`: a grade's gain under the
/// measure's rule); highest grade first, then docno.
fn missed(
    qrels: &Qrels,
    (run, query): (&Run, usize),
    (rows, whole_ranking): (&[usize], &[usize]),
    gain_of: impl Fn(f64) -> f64,
    counts: impl Fn(f64, f64) -> bool,
) -> Vec<Missed> {
    let retrieved: HashSet<&[u8]> = rows.iter().map(|&r| run.docnos.get(r)).collect();
    let mut out: Vec<Missed> = (qrels.offsets[query]..qrels.offsets[query + 1])
        .filter_map(|j| {
            let (docno, grade) = (qrels.docnos.get(j), qrels.grades[j]);
            let gain = gain_of(grade);
            (grade >= 0.0 && counts(grade, gain) && !retrieved.contains(docno)).then(|| Missed {
                docno: docno.to_vec(),
                grade,
                gain,
                ranked_at: whole_ranking
                    .iter()
                    .position(|&r| run.docnos.get(r) == docno)
                    .map(|p| p + 1),
            })
        })
        .collect();
    out.sort_by(|a, b| b.grade.total_cmp(&a.grade).then(a.docno.cmp(&b.docno)));
    out
}

/// Runs of equal scores (as ranked) in the whole ranking, which the docno rule ordered; with a
/// `limit` (the largest cutoff), only those that reach a rank up to it.
fn ties(
    run: &Run,
    whole_ranking: &[usize],
    rows: &[usize],
    compat: Compat,
    limit: Option<usize>,
) -> Vec<TieGroup> {
    let evaluated: HashMap<usize, usize> =
        rows.iter().enumerate().map(|(i, &r)| (r, i + 1)).collect();
    tie_runs(whole_ranking, run, compat)
        .filter(|range| range.len() > 1)
        .map(|range| TieGroup {
            sort_score: sort_score(run.scores[whole_ranking[range.start]], compat),
            docs: range
                .map(|p| {
                    let r = whole_ranking[p];
                    Tied {
                        docno: run.docnos.get(r).to_vec(),
                        score: run.scores[r],
                        rank: p + 1,
                        evaluated_rank: evaluated.get(&r).copied(),
                    }
                })
                .collect(),
        })
        .filter(|group: &TieGroup| {
            limit.is_none_or(|limit| {
                group
                    .docs
                    .iter()
                    .filter_map(|d| d.evaluated_rank)
                    .any(|rank| rank <= limit)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::evaluate;
    use crate::options::{Base, Compat, GainPair, Scheme};

    use crate::testing::{qrels, run};

    fn request(kernel: &str, cutoffs: &[usize]) -> Request {
        crate::testing::request(kernel, cutoffs, &[])
    }

    /// The design notes' worked example: grades 3, 2, 3, 0, 1, 2 in rank order.
    fn worked() -> (Qrels, Run) {
        let grades = [3.0, 2.0, 3.0, 0.0, 1.0, 2.0];
        let docnos = ["d1", "d2", "d3", "d4", "d5", "d6"];
        let j: Vec<(&str, &str, f64)> = docnos
            .iter()
            .zip(grades)
            .map(|(&d, g)| ("1", d, g))
            .collect();
        let r: Vec<(&str, &str, f64)> = docnos
            .iter()
            .enumerate()
            .map(|(i, &d)| ("1", d, 99.0 - i as f64))
            .collect();
        (qrels(&j), run(&r))
    }

    fn r3(x: f64) -> String {
        format!("{x:.3}")
    }

    #[test]
    fn the_worked_example_rank_by_rank() {
        let (q, r) = worked();
        let e = explain(
            &q,
            &r,
            &request("ndcg_cut", &[6]),
            &Options::default(),
            0,
            0,
        )
        .unwrap();
        // the design notes' tables, rounded to 3 decimals
        let reciprocal: Vec<String> = e.rows.iter().map(|row| r3(1.0 / row.discount)).collect();
        assert_eq!(
            reciprocal,
            ["1.000", "0.631", "0.500", "0.431", "0.387", "0.356"]
        );
        let disc: Vec<String> = e
            .rows
            .iter()
            .map(|row| r3(row.discounted_gain.unwrap()))
            .collect();
        assert_eq!(disc, ["3.000", "1.262", "1.500", "0.000", "0.387", "0.712"]);
        let ideal: Vec<String> = e
            .rows
            .iter()
            .map(|row| r3(row.ideal_discounted_gain.unwrap()))
            .collect();
        assert_eq!(
            ideal,
            ["3.000", "1.893", "1.000", "0.861", "0.387", "0.000"]
        );
        let grades: Vec<f64> = e.rows.iter().map(|row| row.ideal_grade.unwrap()).collect();
        assert_eq!(grades, [3.0, 3.0, 2.0, 2.0, 1.0, 0.0]);
        // the design notes' "nDCG at each cutoff" table
        let dcg: Vec<String> = e.rows.iter().map(|row| r3(row.dcg)).collect();
        assert_eq!(dcg, ["3.000", "4.262", "5.762", "5.762", "6.149", "6.861"]);
        let idcg: Vec<String> = e.rows.iter().map(|row| r3(row.ideal_dcg)).collect();
        assert_eq!(idcg, ["3.000", "4.893", "5.893", "6.754", "7.141", "7.141"]);
        let ndcg: Vec<String> = e.rows.iter().map(|row| r3(row.value)).collect();
        assert_eq!(ndcg, ["1.000", "0.871", "0.978", "0.853", "0.861", "0.961"]);
        // the sixth judged document has gain 0: after trec_eval's ideal walk
        assert_eq!(e.ideal, 5);
        assert_eq!(e.rows[5].ideal_gain, None);
        assert_eq!(e.judged, 6);
        assert!(e.missed.is_empty() && e.ties.is_empty());
        // the recorded trec_eval value (h-worked-linear: ndcg_cut_6 0.9608)
        assert_eq!(format!("{:.4}", e.values[0]), "0.9608");
    }

    #[test]
    fn exponential_gains_as_the_design_notes_give_them() {
        let (q, r) = worked();
        let options = Options {
            global_gains: Some(GainSpec::exponential()),
            ..Options::default()
        };
        let e = explain(
            &q,
            &r,
            &request("ndcg_cut", &[1, 2, 3, 4, 5, 6]),
            &options,
            0,
            0,
        )
        .unwrap();
        let last = e.rows.last().unwrap();
        assert_eq!(
            (r3(last.dcg), r3(last.ideal_dcg), r3(last.value)),
            ("13.848".into(), "14.595".into(), "0.949".into())
        );
        let exp: Vec<String> = e.rows.iter().map(|row| r3(row.value)).collect();
        assert_eq!(exp, ["1.000", "0.779", "0.959", "0.872", "0.876", "0.949"]);
        // ndcg_p: exponential whatever the options say
        let p = explain(&q, &r, &request("ndcg_p", &[]), &Options::default(), 0, 0).unwrap();
        assert_eq!(r3(p.values[0]), "0.949");
    }

    #[test]
    fn rows_at_each_cutoff_are_the_kernels_bits() {
        // ties, an unjudged document, one not in the qrels, a relevant one not retrieved
        let q = qrels(&[
            ("a", "x1", 2.0),
            ("a", "x2", 1.0),
            ("a", "x3", 0.0),
            ("a", "x4", -1.0),
            ("a", "x5", 3.0),
            ("a", "x6", 1.0),
        ]);
        let r = run(&[
            ("a", "x1", 0.5),
            ("a", "x2", 0.5),
            ("a", "x3", 0.25),
            ("a", "x4", 0.7),
            ("a", "zz", 0.1),
            ("a", "x6", 0.1),
        ]);
        let jk = Options {
            discount: Discount::Jk(Base::Two),
            ..Options::default()
        };
        let gain_string = GainSpec {
            text: "1=0.5,2=3".into(),
            pairs: vec![
                GainPair {
                    level: Some(1),
                    gain: 0.5,
                },
                GainPair {
                    level: Some(2),
                    gain: 3.0,
                },
            ],
            scheme: Scheme::Linear,
            exact_ideal: false,
        };
        let with_gains = Options {
            global_gains: Some(gain_string),
            ..Options::default()
        };
        let judged_only = Options {
            judged_only: true,
            max_docs: Some(4),
            compat: Compat::Nine,
            ..Options::default()
        };
        for options in [Options::default(), jk, with_gains, judged_only] {
            for (name, cutoffs) in [
                ("ndcg", vec![]),
                ("ndcg_p", vec![]),
                ("dcg", vec![]),
                ("ideal_dcg", vec![]),
                ("ndcg_cut", vec![1, 2, 3, 5, 100]),
                ("dcg_cut", vec![2, 4, 10]),
                ("cg_cut", vec![1, 3, 7]),
            ] {
                let req = request(name, &cutoffs);
                let e = explain(&q, &r, &req, &options, 0, 0).unwrap();
                let evaluated = evaluate(&q, &r, std::slice::from_ref(&req), &options).unwrap();
                assert_eq!(e.values.len(), evaluated.width);
                let ks = if cutoffs.is_empty() {
                    vec![usize::MAX]
                } else {
                    cutoffs
                };
                for (line, &k) in ks.iter().enumerate() {
                    let kernel = evaluated.value(0, line);
                    assert_eq!(
                        e.values[line].to_bits(),
                        kernel.to_bits(),
                        "{name} line {line}"
                    );
                    let at = k.min(e.rows.len());
                    let row = if at == 0 { 0.0 } else { e.rows[at - 1].value };
                    assert_eq!(row.to_bits(), kernel.to_bits(), "{name}@{k} {options:?}");
                }
            }
        }
    }

    /// 60 queries of up to 40 documents, grades -1..4, many ties.
    fn many_queries() -> (Qrels, Run) {
        let (mut judgments, mut lines) = (Vec::new(), Vec::new());
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for q in 0..60 {
            let qid = format!("q{q:02}");
            for d in 0..(next() % 40 + 1) {
                let docno = format!("d{d}");
                if next() % 3 != 0 {
                    judgments.push((qid.clone(), docno.clone(), (next() % 6) as f64 - 1.0));
                }
                if next() % 4 != 0 {
                    lines.push((qid.clone(), docno, (next() % 9) as f64 / 3.0));
                }
            }
            judgments.push((qid.clone(), "anchor".into(), 1.0));
            lines.push((qid, "anchor".into(), 0.5));
        }
        let q = Qrels::from_judgments(
            "q.txt",
            judgments
                .iter()
                .map(|(a, b, g)| (a.as_bytes(), b.as_bytes(), *g)),
            false,
        )
        .unwrap();
        let r = Run::from_lines(
            "r.txt",
            lines
                .iter()
                .map(|(a, b, s)| (a.as_bytes(), b.as_bytes(), *s)),
            Vec::<Vec<u8>>::new(),
        )
        .unwrap();
        (q, r)
    }

    /// Every measure explain shows outside the DCG family, with its default parameters: the
    /// values it computes from its own rows and counts are the evaluation's, bit for bit.
    #[test]
    fn every_shape_computes_the_evaluations_values() {
        let (q, r) = many_queries();
        let variants = [
            Options::default(),
            Options {
                judged_only: true,
                max_docs: Some(7),
                relevance_level: 2.0,
                ..Options::default()
            },
            Options {
                compat: Compat::Nine,
                relevance_level: 0.0,
                ..Options::default()
            },
        ];
        let records = KERNELS.iter().filter(|k| {
            k.explain.is_some_and(|e| !e.is_dcg())
                && matches!(k.relevance, Relevance::Grades | Relevance::Any)
        });
        let mut checked = 0;
        for k in records {
            let mut req = request(k.name, k.default_cutoffs);
            if k.params == crate::measures::ParamKind::Points {
                req.params = k.default_numbers.to_vec();
            }
            if k.params == crate::measures::ParamKind::Named {
                // a required parameter (the C/W/L measures' max_rel, RBP's rel): 3, rel 1
                let required = |p: &crate::measures::NamedParam| match p.name {
                    "rel" => 1.0,
                    _ => 3.0,
                };
                req.params = k
                    .named
                    .iter()
                    .map(|p| {
                        if p.default.is_nan() {
                            required(p)
                        } else {
                            p.default
                        }
                    })
                    .collect();
            }
            if k.run_order && k.ir_measures.iter().any(|s| s.ends_with("@k")) {
                req.cutoffs = vec![5]; // BPM@k, SDCG@k, NERR8@k, NERR9@k
            }
            for options in &variants {
                let evaluated = evaluate(&q, &r, std::slice::from_ref(&req), options).unwrap();
                for query in 0..q.qids.len() {
                    let e = explain(&q, &r, &req, options, query, 0).unwrap();
                    assert_eq!(e.own.len(), evaluated.width, "{}", k.name);
                    for (slot, own) in e.own.iter().enumerate() {
                        let kernel = evaluated.value(query, slot);
                        assert_eq!(
                            own.to_bits(),
                            kernel.to_bits(),
                            "{} query {query} {options:?}",
                            k.name
                        );
                        assert_eq!(e.values[slot].to_bits(), kernel.to_bits());
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// 60 queries of up to 40 documents, grades -1..4, many ties: at every cutoff, and at the
    /// end for the whole-ranking measures, the rows' value is the evaluation's, bit for bit.
    #[test]
    fn rows_match_the_evaluation_on_many_queries() {
        let (q, r) = many_queries();
        let variants = [
            Options::default(),
            Options {
                discount: Discount::Log(Base::E),
                global_gains: Some(GainSpec::exponential()),
                ..Options::default()
            },
            Options {
                judged_only: true,
                max_docs: Some(7),
                relevance_level: 2.0,
                ..Options::default()
            },
            Options {
                discount: Discount::Jk(Base::Other(3.0)),
                exact_ideal: true,
                ..Options::default()
            },
        ];
        for options in &variants {
            for (name, cutoffs) in [
                ("ndcg", vec![]),
                ("ndcg_p", vec![]),
                ("dcg", vec![]),
                ("ideal_dcg", vec![]),
                ("ndcg_cut", vec![1, 3, 5, 10, 20, 50]),
                ("dcg_cut", vec![2, 5, 30]),
                ("cg_cut", vec![1, 4, 9, 40]),
            ] {
                let req = request(name, &cutoffs);
                let evaluated = evaluate(&q, &r, std::slice::from_ref(&req), options).unwrap();
                let ks = if cutoffs.is_empty() {
                    vec![usize::MAX]
                } else {
                    cutoffs
                };
                for query in 0..q.qids.len() {
                    let e = explain(&q, &r, &req, options, query, 0).unwrap();
                    for (line, &k) in ks.iter().enumerate() {
                        let kernel = evaluated.value(query, line);
                        assert_eq!(e.values[line].to_bits(), kernel.to_bits());
                        let at = k.min(e.rows.len());
                        let row = if at == 0 { 0.0 } else { e.rows[at - 1].value };
                        assert_eq!(
                            row.to_bits(),
                            kernel.to_bits(),
                            "{name}@{k} query {query} {options:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn ranking_labels_missed_documents_and_ties() {
        let q = qrels(&[
            ("a", "x1", 2.0),
            ("a", "x2", 1.0),
            ("a", "x4", -1.0),
            ("a", "x5", 3.0),
            ("a", "x6", 1.0),
            ("a", "x7", 0.0),
        ]);
        let r = run(&[
            ("a", "x1", 0.5),
            ("a", "x2", 0.5),
            ("a", "x4", 0.7),
            ("a", "zz", 0.2),
            ("a", "x6", 0.1),
            // equal to 0.2 in float32 only
            ("a", "x9", 0.2 + 1e-12),
        ]);
        let options = Options {
            max_docs: Some(5),
            ..Options::default()
        };
        let e = explain(&q, &r, &request("ndcg", &[]), &options, 0, 0).unwrap();
        let docnos: Vec<&[u8]> = e
            .rows
            .iter()
            .filter_map(|row| row.doc.as_ref().map(|d| d.docno.as_slice()))
            .collect();
        // score descending, ties by docno descending; -M 5
        assert_eq!(docnos, [&b"x4"[..], b"x2", b"x1", b"x9", b"zz"]);
        let relevance: Vec<f64> = e.rows.iter().filter_map(|row| row.relevance).collect();
        assert_eq!(relevance, [-2.0, 1.0, 2.0, -1.0, -1.0]);
        // the ideal ranking 3, 2, 1, 1 is shorter than the ranking; x7 (grade 0) follows it
        assert_eq!(e.rows.len(), 5);
        assert_eq!(e.rows[4].ideal_grade, Some(0.0));
        // x5 not retrieved, x6 past -M (rank 6), x7 has gain 0 and is not relevant
        let missed: Vec<(&[u8], f64, Option<usize>)> = e
            .missed
            .iter()
            .map(|m| (m.docno.as_slice(), m.grade, m.ranked_at))
            .collect();
        assert_eq!(
            missed,
            [(&b"x5"[..], 3.0, None), (&b"x6"[..], 1.0, Some(6))]
        );
        let groups: Vec<Vec<&[u8]>> = e
            .ties
            .iter()
            .map(|g| g.docs.iter().map(|d| d.docno.as_slice()).collect())
            .collect();
        assert_eq!(groups, [vec![&b"x2"[..], b"x1"]]);
        // compat 9: 0.2 and 0.2 + 1e-12 are one float32, and the docno rule orders them
        let nine = Options {
            compat: Compat::Nine,
            ..options
        };
        let e9 = explain(&q, &r, &request("ndcg", &[]), &nine, 0, 0).unwrap();
        assert_eq!(e9.ties.len(), 2);
        let near: Vec<(&[u8], usize)> = e9.ties[1]
            .docs
            .iter()
            .map(|d| (d.docno.as_slice(), d.rank))
            .collect();
        assert_eq!(near, [(&b"zz"[..], 4), (&b"x9"[..], 5)]);
        assert_eq!(e9.ties[1].sort_score, 0.2f32 as f64);
        // -J closes up the ranks: x4 (judged negative) and zz (not in the qrels) go
        let j = Options {
            judged_only: true,
            ..Options::default()
        };
        let ej = explain(&q, &r, &request("ndcg_cut", &[3]), &j, 0, 0).unwrap();
        let kept: Vec<&[u8]> = ej
            .rows
            .iter()
            .filter_map(|row| row.doc.as_ref().map(|d| d.docno.as_slice()))
            .collect();
        assert_eq!(kept, [&b"x2"[..], b"x1", b"x6"]);
        assert_eq!(ej.ties[0].docs[0].evaluated_rank, Some(1));
        assert_eq!(e.ties[0].docs[0].evaluated_rank, Some(2));
    }

    #[test]
    fn rows_stop_at_the_largest_cutoff_and_go_on_for_the_ideal() {
        let q = qrels(&[("a", "x1", 1.0), ("a", "x2", 2.0), ("a", "x3", 2.0)]);
        let r = run(&[("a", "x1", 1.0)]);
        let full = explain(&q, &r, &request("ndcg", &[]), &Options::default(), 0, 0).unwrap();
        assert_eq!(full.rows.len(), 3);
        assert!(full.rows[1].doc.is_none() && full.rows[1].gain.is_none());
        assert_eq!(full.rows[2].ideal_grade, Some(1.0));
        let cut = explain(
            &q,
            &r,
            &request("ndcg_cut", &[2]),
            &Options::default(),
            0,
            0,
        )
        .unwrap();
        assert_eq!(cut.rows.len(), 2);
        let padded = explain(&q, &r, &request("dcg", &[]), &Options::default(), 0, 7).unwrap();
        assert_eq!(padded.rows.len(), 7);
        assert_eq!(padded.rows[6].value, padded.rows[0].value);
        assert_eq!(padded.rows[6].ideal_grade, None);
    }

    #[test]
    fn unknown_queries_and_measures_are_refused() {
        let (q, r) = worked();
        let err = explain(
            &q,
            &r,
            &request("prefs_simp", &[]),
            &Options::default(),
            0,
            0,
        )
        .unwrap_err();
        assert!(err.message.contains("-R prefs"), "{err}");
        let err = explain(&q, &r, &request("nope", &[]), &Options::default(), 0, 0).unwrap_err();
        assert!(
            err.message.contains("ndcg_cut") && err.message.contains("'nope'"),
            "{err}"
        );
        let err = query_index(&q, &r, b"2").unwrap_err();
        assert_eq!(err.source.as_deref(), Some("q.txt"));
        assert!(err.message.contains("'2'"), "{err}");
        assert_eq!(query_index(&q, &r, b"1").unwrap(), 0);
        let r2 = run(&[("1", "d1", 1.0), ("7", "d1", 1.0)]);
        let err = query_index(&q, &r2, b"7").unwrap_err();
        assert_eq!(err.source.as_deref(), Some("q.txt"));
        let q2 = qrels(&[("1", "d1", 1.0), ("5", "d1", 1.0)]);
        let err = query_index(&q2, &r2, b"5").unwrap_err();
        assert_eq!(err.source.as_deref(), Some("r.txt"));
        // a document retrieved twice: the driver's error
        let r3 = run(&[("1", "d1", 1.0), ("1", "d1", 2.0)]);
        let err = explain(&q, &r3, &request("ndcg", &[]), &Options::default(), 0, 0).unwrap_err();
        assert!(err.message.contains("retrieved twice"), "{err}");
    }
}
