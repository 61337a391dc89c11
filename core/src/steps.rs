//! `trecgain explain` for the measures outside the DCG family: one query's computation, rank
//! by rank, and the counts that enter it.
//!
//! Each shape (`measures::Explain`) walks the query as the driver prepared it (the same
//! `Query` its kernel is given) and adds its terms in the kernel's order, so the values it
//! derives from its own rows (`Walkthrough::own`) are the kernel's bits. The rows say per rank
//! whether the document counts (relevant at -l, unjudged, ...), how many have so far, the
//! per-document quantity and weight where the measure has them (RBP's gain and p^(i-1), ERR's
//! stopping probability and the chance of reaching the rank), the term it adds, the running
//! sum and the measure there.

use crate::error::Result;
use crate::explain::Doc;
use crate::label::{NOT_IN_QRELS, UNJUDGED};
use crate::measures::ap::{recall_rank, INFAP_EPSILON, MIN_GEO_MEAN};
use crate::measures::err::{pow2, power};
use crate::measures::gains::{GainRule, Gains};
use crate::measures::precision::Tally;
use crate::measures::{defaults, numbers_or, rbp, relstring};
use crate::measures::{Average, Counted, Explain as Shape, Notes, Query, Ratio, SetRatio};
use crate::options::{Options, Request};

/// One rank of the computation (the caller adds the document).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Step {
    /// 1-based.
    pub rank: usize,
    /// The ranked document (the caller fills in those shown).
    pub doc: Option<Doc>,
    /// The document's relevance value (as `explain::Row::relevance`; None past the ranking,
    /// where a measure's ranks go on: Compat's depths, the diversity measures' cutoffs).
    pub relevance: Option<f64>,
    /// The measure counts it (see the shape's `counted` column title).
    pub counted: bool,
    /// How many documents counted up to here.
    pub count: usize,
    /// The per-document quantity: RBP's gain, ERR's stopping probability, relstring's
    /// character, the recall here (iprec_at_recall).
    pub gain: Option<f64>,
    /// RBP's weight p^(i-1), ERR's chance of reaching the rank, the interpolated precision,
    /// a C/W/L user model's W(i).
    pub weight: Option<f64>,
    /// A C/W/L user model's C(i): the chance of going on from this rank to the next.
    pub continuation: Option<f64>,
    /// What the rank adds to the sum.
    pub term: Option<f64>,
    /// The sum so far (a C/W/L user model's: the gain so far).
    pub sum: f64,
    /// The measure at this rank, where it has one.
    pub value: Option<f64>,
    /// Words about the document (a diversity measure's subtopics, each with its count so far).
    pub detail: Option<String>,
    /// The ideal ranking's document at this rank (Compat, the diversity measures).
    pub ideal_detail: Option<String>,
    /// What the ideal ranking's document adds (its novelty gain).
    pub ideal_gain: Option<f64>,
    /// The ideal ranking's sum so far.
    pub ideal_sum: Option<f64>,
    /// The normalizer's sum so far (ndeval's "ideal ideal": every subtopic at every rank).
    pub bound: Option<f64>,
}

impl Step {
    /// The relevance value of a ranked document (not in the qrels past the ranking).
    pub fn grade(&self) -> f64 {
        self.relevance.unwrap_or(NOT_IN_QRELS)
    }
}

/// A count or number that enters the measure, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: String,
    pub value: f64,
}

/// One query's computation of a measure outside the DCG family.
#[derive(Debug, Clone, PartialEq)]
pub struct Walkthrough {
    /// Every rank the measure looks at (the caller shows the first ones).
    pub steps: Vec<Step>,
    /// The ranks that matter: up to the largest cutoff (or depth, or relstring's length).
    pub shown: usize,
    /// Each line's value, computed from the steps and parts.
    pub own: Vec<f64>,
    pub parts: Vec<Part>,
    /// The formula, its parts named.
    pub formula: String,
    /// The step columns shown: (key of `Step`, title).
    pub columns: Vec<(&'static str, &'static str)>,
}

pub(crate) fn part(name: impl Into<String>, value: f64) -> Part {
    Part {
        name: name.into(),
        value,
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Whether a relevance value counts for `counted` at relevance level `level`.
fn counts(counted: Counted, v: f64, level: f64) -> bool {
    match counted {
        Counted::Retrieved => true,
        Counted::Relevant => v >= level,
        Counted::RelevantJudged => v >= 0.0 && v >= level,
        Counted::JudgedNonrelevant => v >= 0.0 && v < level,
        Counted::Unjudged => v < 0.0,
        Counted::Listed => v != NOT_IN_QRELS,
    }
}

/// The steps with a running count of the documents that `counted` counts (no terms yet).
fn counting(q: &Query, counted: Counted, level: f64) -> Vec<Step> {
    let mut count = 0;
    q.ranked
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let c = counts(counted, v, level);
            count += usize::from(c);
            Step {
                rank: i + 1,
                doc: None,
                relevance: Some(v),
                counted: c,
                count,
                ..Step::default()
            }
        })
        .collect()
}

/// The count after the first `n` ranks.
fn count_at(steps: &[Step], n: usize) -> usize {
    n.checked_sub(1)
        .and_then(|i| steps.get(i))
        .map_or(0, |s| s.count)
}

/// The sum after the first `n` ranks.
fn sum_at(steps: &[Step], n: usize) -> f64 {
    n.checked_sub(1)
        .and_then(|i| steps.get(i))
        .map_or(0.0, |s| s.sum)
}

/// A walkthrough without ranks: a bookkeeping measure's value and the counts behind it.
fn without_ranks(own: f64, parts: Vec<Part>, formula: String) -> Walkthrough {
    Walkthrough {
        steps: Vec::new(),
        shown: 0,
        own: vec![own],
        parts,
        formula,
        columns: Vec::new(),
    }
}

/// runid: the run's tag, the sixth field of its last line read (`line`, in `source`), as
/// trec_eval keeps it; its per-query value is the kernel's placeholder 0.
pub fn run_tag(tag: &str, line: Option<u64>, source: &str) -> Walkthrough {
    let at = line.map_or_else(String::new, |n| format!(", line {n} of {source}"));
    without_ranks(
        0.0,
        line.map(|n| part("the run's last line read", n as f64))
            .into_iter()
            .collect(),
        format!(
            "runid = the run's tag: the sixth field of its last line read{at}: '{tag}' (trec_eval reads every line's tag and keeps the last; a run given in memory, not as a file, is tagged 'unknown'). It has no per-query value: only the summary line prints it"
        ),
    )
}

/// num_q: the asked query counts 1; the summary line counts the queries evaluated
/// (`evaluated`: the qrels queries the run has), of `judged` qrels queries and `run_only`
/// queries of the run the qrels lack.
pub fn query_count(evaluated: usize, judged: usize, run_only: usize) -> Walkthrough {
    without_ranks(
        1.0,
        vec![
            part("this query counts", 1.0),
            part(
                "queries evaluated: the qrels queries the run has (the summary line)",
                evaluated as f64,
            ),
            part(
                "qrels queries the run lacks (not evaluated; -c evaluates them)",
                judged.saturating_sub(evaluated) as f64,
            ),
            part(
                "run queries the qrels lack (not evaluated)",
                run_only as f64,
            ),
        ],
        "num_q = the number of queries evaluated: each counts 1, and the summary line adds them up (trec_eval evaluates the queries of the run that the qrels judge; with -c every qrels query)".into(),
    )
}

/// Explains `request` on query `q` (as its kernel sees it) under `options` (the request's own
/// relevance level applied).
pub fn walk(
    shape: Shape,
    q: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
) -> Result<Walkthrough> {
    let level = options.relevance_level;
    let t = Tally::count(q, level);
    let ret = q.ranked.len();
    let largest = request.cutoffs.last().map_or(ret, |&k| k.min(ret));
    let mut w = Walkthrough {
        steps: Vec::new(),
        shown: ret,
        own: Vec::new(),
        parts: Vec::new(),
        formula: String::new(),
        columns: vec![("counted", "rel"), ("count", "rel so far")],
    };
    let r_part = || part(format!("R (judged with grade >= {level})"), t.rel as f64);
    match shape {
        Shape::Count(counted) => {
            w.steps = counting(q, counted, level);
            w.columns = vec![("counted", title_of(counted)), ("count", "so far")];
            w.own = vec![count_at(&w.steps, ret) as f64];
            w.formula = format!("the number of retrieved documents {}", meaning_of(counted));
        }
        Shape::Relevant => {
            w.steps = counting(q, Counted::Relevant, level);
            w.parts = vec![r_part()];
            w.own = vec![q.judged.iter().filter(|&&g| g >= level).count() as f64];
            w.formula = "R: the judged documents with a grade >= -l, retrieved or not".into();
        }
        Shape::AtCutoff(ratio_of) => at_cutoff(&mut w, q, request, ratio_of, level, t.rel),
        Shape::Ap(average) => average_precision(&mut w, q, request, average, level, t.rel),
        Shape::RecipRank => {
            let depth = request.cutoffs.first().map_or(ret, |&k| k.min(ret));
            w.steps = counting(q, Counted::Relevant, level);
            w.shown = depth;
            let mut value = 0.0;
            for s in &mut w.steps[..depth] {
                if s.counted && s.count == 1 {
                    let term = 1.0 / s.rank as f64;
                    s.term = Some(term);
                    value = term;
                }
                s.value = Some(value);
            }
            w.own = vec![value];
            w.columns.extend([("term", "1/rank"), ("value", "RR")]);
            w.formula = "RR = 1 / (the rank of the first relevant document), 0 if none".into();
        }
        Shape::Rprec => {
            w.steps = counting(q, Counted::Relevant, level);
            let look = ret.min(t.rel);
            for s in &mut w.steps {
                s.value = Some(s.count as f64 / s.rank as f64);
            }
            w.parts = vec![
                r_part(),
                part("ranks looked at: min(retrieved, R)", look as f64),
            ];
            w.own = vec![if look == 0 {
                0.0
            } else {
                count_at(&w.steps, look) as f64 / t.rel as f64
            }];
            w.columns.push(("value", "P@rank"));
            w.formula = "Rprec = (relevant in the first min(retrieved, R)) / R".into();
        }
        Shape::RprecMult => {
            w.steps = counting(q, Counted::Relevant, level);
            for s in &mut w.steps {
                s.value = Some(s.count as f64 / s.rank as f64);
            }
            w.parts = vec![r_part()];
            for &m in numbers_or(request, &defaults::R_MULTIPLIERS) {
                let rank = (m * t.rel as f64 + 0.9) as i64;
                let value = match usize::try_from(rank) {
                    Ok(0) | Err(_) => 0.0,
                    Ok(rank) => count_at(&w.steps, rank.min(ret)) as f64 / rank as f64,
                };
                w.parts.push(part(
                    format!("rank for m = {m}: (m R + 0.9) truncated"),
                    rank as f64,
                ));
                w.own.push(value);
            }
            w.columns.push(("value", "P@rank"));
            w.formula =
                "Rprec_mult(m) = (relevant in the first r) / r, r = (m R + 0.9) truncated".into();
        }
        Shape::Bpref { geometric } => bpref(&mut w, q, geometric, level, &t),
        Shape::InfAp => inf_ap(&mut w, q, level, t.rel),
        Shape::Interpolated { averaged } => interpolated(&mut w, q, request, options, averaged, &t),
        Shape::Set(kind) => set_measure(&mut w, q, request, options, kind, &t),
        Shape::BinG => {
            w.steps = counting(q, Counted::Relevant, level);
            let mut sum = 0.0;
            for s in &mut w.steps {
                if s.counted {
                    let term = 1.0 / ((2 + s.rank - s.count) as f64).log2();
                    sum += term;
                    s.term = Some(term);
                }
                s.sum = sum;
                s.value = Some(ratio_f(sum, t.rel));
            }
            w.parts = vec![r_part()];
            let so_far = w.steps.last().map_or(0, |s| s.count);
            w.own = vec![if so_far > 0 { sum / t.rel as f64 } else { 0.0 }];
            w.columns.extend([
                ("term", "1/log2(2+nonrel above)"),
                ("sum", "sum"),
                ("value", "binG"),
            ]);
            w.formula =
                "binG = sum over relevant retrieved of 1 / log2(2 + nonrelevant above it), over R"
                    .into();
        }
        Shape::NdcgRel => ndcg_rel(&mut w, q, request, options, notes)?,
        Shape::Rndcg => rndcg(&mut w, q, request, options, notes)?,
        Shape::G => normalised_gain(&mut w, q, request, options, notes)?,
        Shape::Rbp => rank_biased(&mut w, q, request, options, notes)?,
        Shape::RbpResid => rbp_residual(&mut w, q, request),
        Shape::Err => expected_reciprocal_rank(&mut w, q, request, options, largest),
        Shape::Relstring => {
            let length = relstring::length(request);
            w.steps = counting(q, Counted::Retrieved, level);
            for s in &mut w.steps {
                s.gain = Some(f64::from(relstring::character(s.grade())));
            }
            w.shown = length.min(ret);
            w.own = (0..length)
                .map(|i| w.steps.get(i).and_then(|s| s.gain).unwrap_or(0.0))
                .collect();
            w.columns = vec![("gain", "character")];
            w.formula = format!(
                "the first {length} grades as characters: 0-9, '>' above 9, '-' not in the qrels, '.' judged negative"
            );
        }
        Shape::Ndcg | Shape::NdcgCut | Shape::Dcg | Shape::Ideal | Shape::Cg => {
            unreachable!("the DCG family is explained by explain::Walk")
        }
        Shape::Accuracy => accuracy(&mut w, q, request, level),
        Shape::Compat | Shape::Intent(_) | Shape::AvgJg(_) | Shape::Preference(_) => {
            unreachable!("explained by ideal_steps, pref_steps and steps::averaged_groups")
        }
        Shape::UserModel(_) | Shape::RunTag | Shape::QueryCount => {
            unreachable!("explained by cwl_steps, steps::run_tag and steps::query_count")
        }
    }
    w.shown = w.shown.min(w.steps.len());
    Ok(w)
}

/// A measure averaged over judgment groups: `base` walked on each group's view of the query
/// (`names`: the groups'), each line's values added in group order from 0, and divided by the
/// number of groups when there is more than one (trec_eval's `_avgjg` rule). The steps are the
/// `ranks` ranks of the ranking before -J (the caller adds each document's grade per group).
pub fn averaged_groups(
    base: Shape,
    q: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    (names, ranks): (&[String], usize),
) -> Result<Walkthrough> {
    let empty = Query {
        ranked: &[],
        judged: &[],
        groups: &[],
        tally: None,
        ties: None,
        ..*q
    };
    let mut w = walk(base, &empty, request, options, notes)?;
    let lines = w.own.len();
    let mut sums = vec![0.0; lines];
    w.parts.clear();
    for (g, group) in q.groups.iter().enumerate() {
        let view = Query {
            ranked: &group.ranked,
            judged: &group.judged,
            groups: &[],
            tally: None,
            ties: None,
            ..empty
        };
        let one = walk(base, &view, request, options, notes)?;
        let name = names.get(g).map_or("?", String::as_str);
        for (line, (sum, value)) in sums.iter_mut().zip(&one.own).enumerate() {
            *sum += value;
            let which = match (request.cutoffs.get(line), lines > 1) {
                (Some(k), _) => format!(" at {k}"),
                (None, true) => numbers_or(request, &defaults::R_MULTIPLIERS)
                    .get(line)
                    .map_or_else(String::new, |m| format!(" at m = {m}")),
                (None, false) => String::new(),
            };
            w.parts.push(part(format!("group {name}{which}"), *value));
        }
    }
    if q.groups.len() > 1 {
        let n = q.groups.len() as f64;
        sums.iter_mut().for_each(|v| *v /= n);
    }
    w.parts
        .insert(0, part("judgment groups", q.groups.len() as f64));
    w.own = sums;
    w.steps = (1..=ranks)
        .map(|rank| Step {
            rank,
            ..Step::default()
        })
        .collect();
    w.shown = ranks;
    if let Some(&k) = request.cutoffs.last() {
        w.shown = w.shown.min(k);
    }
    w.columns = vec![("detail", "grade per group")];
    w.formula = format!(
        "the measure on each judgment group's qrels (the ranking labeled by that group alone), added in group order, over the number of groups (when more than one); on each group: {}",
        w.formula
    );
    Ok(w)
}

/// Accuracy (ir_measures): per relevant document (grade >= -l, 0 for one the qrels lack) the
/// nonrelevant documents above it, summed as S; 1 - S / (N R) over the ranking cut at k (no
/// relevant document: NaN; none nonrelevant: 1).
fn accuracy(w: &mut Walkthrough, q: &Query, request: &Request, level: f64) {
    let cutoff = request.cutoffs.first().copied().unwrap_or(usize::MAX);
    w.steps = counting(q, Counted::Retrieved, level);
    w.shown = w.steps.len().min(cutoff);
    let (mut relevant, mut nonrelevant, mut above) = (0u64, 0u64, 0u64);
    for s in w.steps.iter_mut().take(cutoff) {
        let v = s.grade();
        let grade = if v == NOT_IN_QRELS { 0.0 } else { v };
        s.counted = grade >= level;
        if s.counted {
            relevant += 1;
            above += nonrelevant;
            s.term = Some(nonrelevant as f64);
        } else {
            nonrelevant += 1;
        }
        s.count = relevant as usize;
        s.sum = above as f64;
    }
    let value = match (relevant, nonrelevant) {
        (0, _) => f64::NAN,
        (_, 0) => 1.0,
        _ => 1.0 - above as f64 / (nonrelevant as f64 * relevant as f64),
    };
    w.own = vec![value];
    w.parts = vec![
        part(
            format!("R: relevant (grade >= {level}) in the ranking cut"),
            relevant as f64,
        ),
        part(
            "N: the others (not in the qrels: grade 0)",
            nonrelevant as f64,
        ),
        part("S: nonrelevant above each relevant, summed", above as f64),
    ];
    w.columns = vec![
        ("counted", "rel"),
        ("count", "rel so far"),
        ("term", "nonrel above"),
        ("sum", "S so far"),
    ];
    w.formula = "Accuracy = 1 - S / (N R) on the ranking with tied scores in the run's own order (ir_measures' rule), cut at k; no relevant document: no value (NaN, left out of the mean); none nonrelevant: 1".into();
}

/// sum / R, or sum when R is 0 (bpref, infAP and binG's running values).
fn ratio_f(sum: f64, rel: usize) -> f64 {
    if rel > 0 {
        sum / rel as f64
    } else {
        sum
    }
}

/// P, recall, relative_P, success, unj and judged: a ratio of the documents counted in the
/// first k.
fn at_cutoff(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    ratio_of: Ratio,
    level: f64,
    rel: usize,
) {
    let ret = q.ranked.len();
    let counted = match ratio_of {
        Ratio::Unjudged => Counted::Unjudged,
        Ratio::Judged => Counted::Listed,
        _ => Counted::Relevant,
    };
    w.steps = counting(q, counted, level);
    // seen documents counted in the first min(k, retrieved) = n
    let value = |seen: usize, k: usize, n: usize| match ratio_of {
        Ratio::Precision | Ratio::Unjudged => seen as f64 / k as f64,
        Ratio::Recall | Ratio::RelativePrecision if rel == 0 => 0.0,
        Ratio::Recall => seen as f64 / rel as f64,
        Ratio::RelativePrecision => seen as f64 / k.min(rel) as f64,
        Ratio::Success => f64::from(u8::from(seen > 0)),
        Ratio::Judged => ratio(seen, n),
    };
    for s in &mut w.steps {
        s.value = Some(value(s.count, s.rank, s.rank));
    }
    w.own = request
        .cutoffs
        .iter()
        .map(|&k| {
            let n = k.min(ret);
            value(count_at(&w.steps, n), k, n)
        })
        .collect();
    w.shown = request.cutoffs.last().map_or(ret, |&k| k.min(ret));
    if matches!(ratio_of, Ratio::Recall | Ratio::RelativePrecision) {
        w.parts = vec![part(
            format!("R (judged with grade >= {level})"),
            rel as f64,
        )];
    }
    let (title, formula) = match ratio_of {
        Ratio::Success => (
            "success@rank",
            "success@k = 1 if a relevant document is in the first k, else 0",
        ),
        Ratio::Precision => ("P@rank", "P@k = (relevant in the first k) / k"),
        Ratio::Recall => ("recall@rank", "recall@k = (relevant in the first k) / R"),
        Ratio::RelativePrecision => (
            "relative_P@rank",
            "relative_P@k = (relevant in the first k) / min(k, R)",
        ),
        Ratio::Unjudged => (
            "unj@rank",
            "unj@k = (unjudged in the first k) / k; unjudged: not in the qrels, or judged negative",
        ),
        Ratio::Judged => (
            "judged@rank",
            "judged@k = (in the qrels among the first min(k, retrieved)) / min(k, retrieved)",
        ),
    };
    w.columns = vec![
        ("counted", title_of(counted)),
        ("count", "so far"),
        ("value", title),
    ];
    w.formula = formula.into();
}

/// The column title of the documents `counted` counts.
fn title_of(counted: Counted) -> &'static str {
    match counted {
        Counted::Retrieved => "retrieved",
        Counted::Relevant | Counted::RelevantJudged => "rel",
        Counted::JudgedNonrelevant => "judged nonrel",
        Counted::Unjudged => "unjudged",
        Counted::Listed => "in qrels",
    }
}

/// What the documents `counted` counts are, for a formula.
fn meaning_of(counted: Counted) -> &'static str {
    match counted {
        Counted::Retrieved => "(after -M and -J)",
        Counted::Relevant | Counted::RelevantJudged => "judged with a grade >= -l",
        Counted::JudgedNonrelevant => "judged with a grade below -l (0 <= grade < -l)",
        Counted::Unjudged => "not in the qrels, or judged negative",
        Counted::Listed => "in the qrels",
    }
}

/// map, map_cut, gm_map and yaap: the precision at each relevant retrieved document.
fn average_precision(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    average: Average,
    level: f64,
    rel: usize,
) {
    w.steps = counting(q, Counted::Relevant, level);
    let mut sum = 0.0;
    for s in &mut w.steps {
        if s.counted {
            let term = s.count as f64 / s.rank as f64;
            sum += term;
            s.term = Some(term);
        }
        s.sum = sum;
        s.value = Some(if rel == 0 { 0.0 } else { sum / rel as f64 });
    }
    let ret = q.ranked.len();
    let ap = if count_at(&w.steps, ret) == 0 {
        0.0
    } else {
        sum / rel as f64
    };
    w.parts = vec![part(
        format!("R (judged with grade >= {level})"),
        rel as f64,
    )];
    w.columns.extend([
        ("term", "P@rank (relevant)"),
        ("sum", "sum"),
        ("value", "AP so far"),
    ]);
    w.formula = "AP = (sum of the precision at each relevant retrieved document) / R".into();
    w.own = match average {
        Average::Whole => vec![ap],
        Average::Cut => {
            w.shown = request.cutoffs.last().map_or(ret, |&k| k.min(ret));
            w.formula =
                "AP@k = (sum of the precision at each relevant document in the first k) / R".into();
            request
                .cutoffs
                .iter()
                .map(|&k| {
                    if rel == 0 {
                        0.0
                    } else {
                        sum_at(&w.steps, k.min(ret)) / rel as f64
                    }
                })
                .collect()
        }
        Average::Geometric => {
            w.formula.push_str(
                "; the per-query value is ln(max(AP, 0.00001)), the summary exp of their mean",
            );
            vec![ap.max(MIN_GEO_MEAN).ln()]
        }
        Average::Yaap => {
            w.formula = "yaap = ln((1 + S) / (1 + R - S)), S the sum of the precision at each relevant retrieved document".into();
            vec![((1.0 + sum) / (1.0 + rel as f64 - sum)).ln()]
        }
    };
}

/// bpref and gm_bpref: per relevant retrieved document, the judged nonrelevant above it.
fn bpref(w: &mut Walkthrough, q: &Query, geometric: bool, level: f64, t: &Tally) {
    w.steps = counting(q, Counted::JudgedNonrelevant, level);
    let mut sum = 0.0;
    for s in &mut w.steps {
        let v = s.grade();
        if v != NOT_IN_QRELS && v != UNJUDGED && !s.counted {
            let term = if s.count > 0 {
                1.0 - s.count.min(t.rel) as f64 / t.nonrel.min(t.rel) as f64
            } else {
                1.0
            };
            sum += term;
            s.term = Some(term);
        }
        s.sum = sum;
        s.value = Some(ratio_f(sum, t.rel));
    }
    let value = ratio_f(sum, t.rel);
    w.parts = vec![
        part(format!("R (judged with grade >= {level})"), t.rel as f64),
        part(format!("N (judged with grade < {level})"), t.nonrel as f64),
        part("min(R, N)", t.nonrel.min(t.rel) as f64),
    ];
    w.columns = vec![
        ("counted", "judged nonrel"),
        ("count", "nonrel so far"),
        ("term", "1 - min(nonrel above, R)/min(R, N)"),
        ("sum", "sum"),
        ("value", "bpref so far"),
    ];
    w.formula = "bpref = (sum over relevant retrieved of 1 - min(nonrelevant above, R) / min(R, N)) / R; unjudged documents are skipped".into();
    w.own = vec![if geometric {
        w.formula
            .push_str("; the per-query value is ln(max(bpref, 0.00001))");
        value.max(MIN_GEO_MEAN).ln()
    } else {
        value
    }];
}

/// infAP: per relevant document, 1/rank plus the expected precision above it.
fn inf_ap(w: &mut Walkthrough, q: &Query, level: f64, rel_total: usize) {
    w.steps = counting(q, Counted::Relevant, level);
    let (mut sum, mut rel, mut nonrel, mut unjudged) = (0.0, 0i64, 0i64, 0i64);
    for (j, s) in w.steps.iter_mut().enumerate() {
        let v = s.grade();
        if v == UNJUDGED {
            unjudged += 1;
        } else if v >= 0.0 && v < level {
            nonrel += 1;
        } else if v != NOT_IN_QRELS {
            rel += 1;
            let term = if j == 0 {
                1.0
            } else {
                let fj = j as f64;
                let above = (rel - 1 + nonrel + unjudged) as f64;
                1.0 / (fj + 1.0)
                    + (fj / (fj + 1.0))
                        * (above / fj)
                        * (((rel - 1) as f64 + INFAP_EPSILON)
                            / ((rel - 1 + nonrel) as f64 + 2.0 * INFAP_EPSILON))
            };
            sum += term;
            s.term = Some(term);
        }
        s.sum = sum;
        s.value = Some(ratio_f(sum, rel_total));
    }
    w.parts = vec![part(
        format!("R (judged with grade >= {level})"),
        rel_total as f64,
    )];
    w.columns.extend([
        ("term", "expected precision"),
        ("sum", "sum"),
        ("value", "infAP so far"),
    ]);
    w.formula = "infAP = (sum over relevant retrieved at rank k of 1/k + ((k-1)/k) (pooled above / (k-1)) ((rel above + e) / (judged above + 2e))) / R, e = 0.00001; pooled: judged, or judged negative; documents the qrels lack are skipped".into();
    w.own = vec![ratio_f(sum, rel_total)];
}

/// iprec_at_recall and 11pt_avg: the best precision at or after the rank where recall
/// reaches each point.
fn interpolated(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    options: &Options,
    averaged: bool,
    t: &Tally,
) {
    w.steps = counting(q, Counted::Relevant, options.relevance_level);
    for s in &mut w.steps {
        s.value = Some(s.count as f64 / s.rank as f64);
        s.gain = Some(ratio(s.count, t.rel));
    }
    // the interpolated precision: the best precision at this rank or below
    let mut best = f64::NEG_INFINITY;
    for s in w.steps.iter_mut().rev() {
        if let Some(p) = s.value {
            if best < p {
                best = p;
            }
        }
        s.weight = Some(best);
    }
    let points = numbers_or(request, &defaults::RECALL_POINTS);
    w.parts = vec![part(
        format!("R (judged with grade >= {})", options.relevance_level),
        t.rel as f64,
    )];
    let needed: Vec<i64> = points
        .iter()
        .map(|&point| recall_rank(point, t.rel, options.compat))
        .collect();
    // from the last rank up: a point is reached at the relevant document that makes its
    // count of relevant documents, and takes the best precision from there down
    let mut values = vec![0.0; points.len()];
    let mut order = Vec::new();
    let mut cut = needed.len();
    while cut > 0 && needed[cut - 1] > t.rel_ret as i64 {
        cut -= 1;
    }
    for s in w.steps.iter().rev().take_while(|s| s.count > 0) {
        if s.counted {
            while cut > 0 && s.count as i64 == needed[cut - 1] {
                values[cut - 1] = s.weight.unwrap_or(0.0);
                order.push(cut - 1);
                cut -= 1;
            }
        }
    }
    // points never reached going up: the best precision of all (NaN for an empty ranking)
    let best = w
        .steps
        .first()
        .and_then(|s| s.weight)
        .unwrap_or(t.rel_ret as f64 / t.ret as f64);
    while cut > 0 {
        values[cut - 1] = best;
        order.push(cut - 1);
        cut -= 1;
    }
    for ((&point, &n), &value) in points.iter().zip(&needed).zip(&values) {
        w.parts.push(part(
            format!("recall {point}: relevant needed {n}, interpolated precision"),
            value,
        ));
    }
    w.columns.extend([
        ("gain", "recall"),
        ("value", "P@rank"),
        ("weight", "interpolated P"),
    ]);
    w.formula = "iprec(r) = the best precision at any rank where recall >= r (relevant needed: r R rounded; --compat 9: r R + 0.9 truncated), 0 if never reached".into();
    w.own = if averaged {
        w.formula
            .push_str("; 11pt_avg = their mean over the points");
        let sum = order.iter().fold(0.0, |sum, &i| sum + values[i]);
        vec![sum / points.len() as f64]
    } else {
        values
    };
}

/// The set measures: counts over the whole retrieved set.
fn set_measure(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    options: &Options,
    kind: SetRatio,
    t: &Tally,
) {
    w.steps = counting(q, Counted::Relevant, options.relevance_level);
    w.parts = vec![
        part("retrieved", t.ret as f64),
        part(
            format!("R (judged with grade >= {})", options.relevance_level),
            t.rel as f64,
        ),
        part("relevant retrieved", t.rel_ret as f64),
    ];
    let value = match kind {
        SetRatio::Precision => {
            w.formula = "set_P = relevant retrieved / retrieved".into();
            ratio(t.rel_ret, t.ret)
        }
        SetRatio::Recall => {
            w.formula = "set_recall = relevant retrieved / R".into();
            ratio(t.rel_ret, t.rel)
        }
        SetRatio::RelativePrecision => {
            w.formula = "set_relative_P = relevant retrieved / min(retrieved, R)".into();
            ratio(t.rel_ret, t.ret.min(t.rel))
        }
        SetRatio::Map => {
            w.formula =
                "set_map = set_P * set_recall = relevant retrieved^2 / (retrieved R)".into();
            if t.ret > 0 && t.rel > 0 {
                (t.rel_ret as f64 * t.rel_ret as f64) / (t.ret as f64 * t.rel as f64)
            } else {
                0.0
            }
        }
        SetRatio::F => {
            let beta = numbers_or(request, &[defaults::SET_F_BETA])[0];
            w.parts.push(part("beta", beta));
            w.formula = "set_F = (beta + 1) P R / (beta P + R), P = set_P, R = set_recall".into();
            if t.rel_ret > 0 {
                let p = t.rel_ret as f64 / t.ret as f64;
                let r = t.rel_ret as f64 / t.rel as f64;
                (beta + 1.0) * p * r / (beta * p + r)
            } else {
                0.0
            }
        }
        SetRatio::Utility => {
            let c = numbers_or(request, &defaults::UTILITY);
            let c = |i: usize| c.get(i).copied().unwrap_or(0.0);
            let (ret, rel, rel_ret) = (t.ret as i64, t.rel as i64, t.rel_ret as i64);
            for (i, name) in ["a", "b", "c", "d"].iter().enumerate() {
                w.parts.push(part(*name, c(i)));
            }
            w.parts
                .push(part("N (-N, the collection size)", options.num_docs as f64));
            w.formula =
                "utility = a rel_ret + b nonrel_ret + c rel_not_ret + d nonrel_not_ret".into();
            c(0) * rel_ret as f64
                + c(1) * (ret - rel_ret) as f64
                + c(2) * (rel - rel_ret) as f64
                + c(3) * (options.num_docs + rel_ret - ret - rel) as f64
        }
    };
    w.own = vec![value];
}

/// RBP: each document's gain weighted by p^(i-1), and (1 - p) times their sum.
fn rank_biased(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
) -> Result<()> {
    let (gains, scaled) = rbp::scaled_gains(q, request, options, notes)?;
    let p = rbp::persistence(request);
    w.steps = counting(q, Counted::Retrieved, options.relevance_level);
    w.steps.truncate(gains.len());
    w.shown = gains.len();
    let (mut sum, mut weight) = (0.0, 1.0);
    for (s, &gain) in w.steps.iter_mut().zip(&gains) {
        let term = gain * weight;
        if gain != 0.0 {
            sum += term;
        }
        s.gain = Some(gain);
        s.weight = Some(weight);
        s.term = Some(if gain != 0.0 { term } else { 0.0 });
        s.sum = sum;
        s.value = Some((1.0 - p) * sum);
        weight *= p;
    }
    w.parts = vec![part("p", p)];
    if let Some((min, max)) = scaled {
        w.parts.push(part(
            "min gain (gains scaled by (gain - min) / (max - min))",
            min,
        ));
        w.parts.push(part("max gain", max));
    }
    w.parts
        .push(part("p^n, the weight left past the last rank", weight));
    w.own = vec![(1.0 - p) * sum];
    w.columns = vec![
        ("gain", "gain"),
        ("weight", "p^(rank-1)"),
        ("term", "gain*weight"),
        ("sum", "sum"),
        ("value", "RBP"),
    ];
    w.formula = "RBP = (1 - p) sum over ranks i of gain(i) p^(i-1)".into();
    Ok(())
}

/// rbp_resid: the weight of the unjudged ranks and of those past the ranking.
fn rbp_residual(w: &mut Walkthrough, q: &Query, request: &Request) {
    let p = rbp::persistence(request);
    w.steps = counting(q, Counted::Unjudged, 0.0);
    let (mut sum, mut weight) = (0.0, 1.0);
    for s in &mut w.steps {
        if s.counted {
            sum += weight;
            s.term = Some(weight);
        }
        s.weight = Some(weight);
        s.sum = sum;
        weight *= p;
    }
    let unjudged = w.steps.last().map_or(0, |s| s.count);
    w.parts = vec![
        part("p", p),
        part("p^n, the weight past the last rank", weight),
    ];
    w.own = vec![if unjudged > 0 {
        weight + (1.0 - p) * sum
    } else {
        0.0
    }];
    w.columns = vec![
        ("counted", "unjudged"),
        ("weight", "p^(rank-1)"),
        ("term", "weight (unjudged)"),
        ("sum", "sum"),
    ];
    w.formula =
        "rbp_resid = p^n + (1 - p) (sum of p^(i-1) over unjudged ranks i), 0 when none is unjudged"
            .into();
}

/// ERR@k: each rank's stopping probability times the chance of reaching it, over the rank.
fn expected_reciprocal_rank(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    options: &Options,
    largest: usize,
) {
    let max_grade = options.err_max_grade;
    let top = pow2(max_grade.min(crate::measures::err::GRADE_LIMIT));
    w.steps = counting(q, Counted::Retrieved, options.relevance_level);
    w.steps.truncate(largest);
    let (mut score, mut decay) = (0.0, 1.0);
    for s in &mut w.steps {
        let r = (power(s.grade().clamp(0.0, f64::from(max_grade))) - 1.0) / top;
        let term = r * decay / s.rank as f64;
        s.gain = Some(r);
        s.weight = Some(decay);
        s.term = Some(term);
        score += term;
        decay *= 1.0 - r;
        s.sum = score;
        s.value = Some(score);
    }
    let ret = w.steps.len();
    w.own = request
        .cutoffs
        .iter()
        .map(|&k| sum_at(&w.steps, k.min(ret)))
        .collect();
    w.parts = vec![part("max grade (--err-max-grade)", f64::from(max_grade))];
    w.columns = vec![
        ("gain", "stop prob r"),
        ("weight", "P(reach)"),
        ("term", "r P(reach)/rank"),
        ("value", "ERR"),
    ];
    w.formula = "ERR@k = sum over ranks i <= k of r(i) / i times the product of (1 - r(j)) for j < i, r = (2^grade - 1) / 2^max".into();
}

/// The gain table a gain measure uses (its own gains, else the global ones, else trec_eval's).
fn gains_of(q: &Query, request: &Request, options: &Options, notes: &mut Notes) -> Result<Gains> {
    let rule = GainRule::resolve(request.gains.as_ref(), options);
    Gains::new(q, &rule, options.relevance_level, notes)
}

/// The steps with each document's gain, the DCG so far (value) and the ideal DCG so far
/// (weight, while the ideal ranking lasts); the ideal ranking's gains and its DCG prefixes
/// (`ideal_at[n]`: its first n positions) for the whole ideal walk.
fn dcg_steps(
    w: &mut Walkthrough,
    q: &Query,
    gains: &Gains,
    options: &Options,
) -> (Vec<f64>, Vec<f64>) {
    let discount = options.discount;
    let ideal: Vec<f64> = gains.ideal().collect();
    let mut ideal_at = vec![0.0];
    for (i, &g) in ideal.iter().enumerate() {
        let last = ideal_at[i];
        ideal_at.push(last + g / discount.divisor(i));
    }
    w.steps = counting(q, Counted::Retrieved, options.relevance_level);
    let mut dcg = 0.0;
    for (i, s) in w.steps.iter_mut().enumerate() {
        let g = gains.ranked(s.grade());
        if g != 0.0 {
            dcg += g / discount.divisor(i);
        }
        s.gain = Some(g);
        s.value = Some(dcg);
        s.weight = ideal_at.get(i + 1).copied();
    }
    (ideal, ideal_at)
}

/// ndcg_rel: nDCG at each retrieved document with a positive gain, and the final nDCG for each
/// ideal position the ranking leaves unmatched, averaged over the ideal positions.
fn ndcg_rel(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
) -> Result<()> {
    let gains = gains_of(q, request, options, notes)?;
    let (ideal, ideal_at) = dcg_steps(w, q, &gains, options);
    let (mut sum, mut retrieved, mut idcg) = (0.0, 0i64, 0.0); // idcg: the ideal so far
    for (i, s) in w.steps.iter_mut().enumerate() {
        if let Some(&at) = ideal_at.get(i + 1) {
            idcg = at;
        }
        if s.gain.is_some_and(|g| g > 0.0) {
            let term = s.value.unwrap_or(0.0) / idcg;
            sum += term;
            retrieved += 1;
            s.term = Some(term);
        }
        s.sum = sum;
    }
    let dcg = w.steps.last().and_then(|s| s.value).unwrap_or(0.0);
    let num_ideal = ideal.len() as i64;
    let full_ideal = ideal_at.last().copied().unwrap_or(0.0);
    let rest = ((num_ideal - retrieved) as f64 * dcg) / full_ideal;
    sum += rest;
    w.parts = vec![
        part("positions of the ideal ranking", num_ideal as f64),
        part("documents with a positive gain retrieved", retrieved as f64),
        part("DCG", dcg),
        part("ideal DCG (of the ideal ranking's positions)", full_ideal),
        part(
            "the other positions add (positions - those retrieved) DCG / ideal DCG",
            rest,
        ),
    ];
    w.own = vec![if sum > 0.0 {
        sum / num_ideal as f64
    } else {
        0.0
    }];
    w.columns = vec![
        ("gain", "gain"),
        ("value", "DCG"),
        ("weight", "IDCG"),
        ("term", "DCG/IDCG (gain > 0)"),
        ("sum", "sum"),
    ];
    w.formula = "ndcg_rel = (sum of DCG/IDCG at each retrieved document with a positive gain, + (positions - those) DCG/IDCG at the end) / positions".into();
    Ok(())
}

/// Rndcg: nDCG at each rank where the ideal ranking's gain changes level (and where it ends,
/// and at the end of a ranking longer than it), averaged.
fn rndcg(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
) -> Result<()> {
    let gains = gains_of(q, request, options, notes)?;
    let (ideal, ideal_at) = dcg_steps(w, q, &gains, options);
    let rel = Tally::count(q, options.relevance_level).rel;
    let dcg_at = |n: usize| {
        n.min(w.steps.len())
            .checked_sub(1)
            .and_then(|i| w.steps[i].value)
            .unwrap_or(0.0)
    };
    let mut points: Vec<(usize, f64)> = Vec::new();
    for step in 1..ideal.len() {
        if ideal[step] != ideal[step - 1] {
            points.push((step, dcg_at(step) / ideal_at[step]));
        }
    }
    let end = ideal.len();
    if ideal.last().is_some_and(|&l| gains.stop != l) {
        points.push((end, dcg_at(end) / ideal_at[end]));
    }
    let n = q.ranked.len();
    if gains.gate > 0.0 && n > end + 1 && ideal_at[end] > 0.0 {
        points.push((n, dcg_at(n) / ideal_at[end]));
    }
    let mut sum = 0.0;
    for &(rank, value) in &points {
        sum += value;
        if let Some(s) = rank.checked_sub(1).and_then(|i| w.steps.get_mut(i)) {
            s.term = Some(value);
        }
    }
    w.parts = vec![part(
        format!("R (judged with grade >= {})", options.relevance_level),
        rel as f64,
    )];
    for &(rank, value) in &points {
        w.parts.push(part(format!("nDCG at rank {rank}"), value));
    }
    w.own = vec![if rel == 0 {
        0.0
    } else {
        sum / points.len() as f64
    }];
    w.columns = vec![
        ("gain", "gain"),
        ("value", "DCG"),
        ("weight", "IDCG"),
        ("term", "nDCG (a point)"),
    ];
    w.formula = "Rndcg = the mean of nDCG at each rank where the ideal ranking's gain changes level, where it ends, and at the end of a longer ranking; 0 when R is 0".into();
    Ok(())
}

/// trec_eval's experimental G: each gain over log2(2 + the ideal cost so far - the gain so far),
/// summed, over the ideal ranking's total gain.
fn normalised_gain(
    w: &mut Walkthrough,
    q: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
) -> Result<()> {
    let gains = gains_of(q, request, options, notes)?;
    let mut ideal_gains = gains.ideal();
    w.steps = counting(q, Counted::Retrieved, options.relevance_level);
    let (mut sum_results, mut sum_cost, mut results_g) = (0.0, 0.0, 0.0);
    for s in &mut w.steps {
        let g = gains.ranked(s.grade());
        sum_results += g;
        sum_cost += match ideal_gains.next() {
            Some(ig) if ig >= 1.0 => ig,
            _ => 1.0,
        };
        if g != 0.0 {
            let term = g / ((2.0 + sum_cost) - sum_results).log2();
            results_g += term;
            s.term = Some(term);
        }
        s.gain = Some(g);
        s.weight = Some(sum_cost);
        s.value = Some(sum_results);
        s.sum = results_g;
    }
    let sum_ideal = gains.ideal().fold(0.0, |sum, g| sum + g);
    w.parts = vec![part("the ideal ranking's total gain", sum_ideal)];
    w.own = vec![if sum_ideal > 0.0 {
        results_g / sum_ideal
    } else {
        0.0
    }];
    w.columns = vec![
        ("gain", "gain"),
        ("value", "gain so far"),
        ("weight", "cost so far"),
        ("term", "gain/log2(2+cost-gain so far)"),
        ("sum", "sum"),
    ];
    w.formula = "G = (sum of gain / log2(2 + cost so far - gain so far)) / the ideal total gain; cost: the ideal ranking's gain at the rank if >= 1, else 1".into();
    Ok(())
}
