//! `trecgain explain` for the measures that compare the ranking with an ideal ranking they
//! build themselves: Compat (rank-biased overlap with the ideal ranking, ir_measures' compat
//! provider) and the diversity measures of ndeval (-R subtopics).
//!
//! Both rank ties by docno ascending (ir_measures' and ndeval's rule, not trec_eval's): the
//! caller gives each step its document from that ranking. The terms are added in the kernels'
//! order (core/src/measures/irm.rs, diversity.rs), so the values derived from the steps
//! (`Walkthrough::own`) are the kernels' bits.

use crate::error::{Error, Result};
use crate::label::NOT_IN_QRELS;
use crate::measures::diversity::{cutoff, discount, param, prepared, Relevant, Topic, UNJUDGED};
use crate::measures::irm::compat_inputs;
use crate::measures::{Intent, Query};
use crate::options::{Options, Request};
use crate::steps::{part, Step, Walkthrough};

/// A document of the ideal ranking as shown: its docno and grade.
pub struct IdealDoc {
    pub docno: String,
    pub grade: f64,
}

fn walkthrough(steps: Vec<Step>) -> Walkthrough {
    Walkthrough {
        shown: steps.len(),
        steps,
        own: Vec::new(),
        parts: Vec::new(),
        formula: String::new(),
        columns: Vec::new(),
    }
}

/// Compat on the query's overlap with its ideal ranking (`ideal`, in the provider's order);
/// `ranked`: the relevance values of the ranking (score descending, ties by docno ascending).
pub fn compat(
    q: &Query,
    request: &Request,
    ranked: &[f64],
    ideal: &[IdealDoc],
) -> Result<Walkthrough> {
    let (overlap, p, normalize) = compat_inputs(q, request)?;
    let depth = overlap.ranked.max(overlap.ideal);
    let (mut score, mut best, mut weights, mut weight) = (0.0, 0.0, 0.0, 1.0);
    let (mut shared, mut in_ideal) = (0u64, 0usize);
    let mut steps = Vec::with_capacity(depth);
    for d in 1..=depth {
        shared += u64::from(overlap.arrivals.get(d - 1).copied().unwrap_or(0));
        let term = weight * shared as f64 / d as f64;
        score += term;
        best += weight * (d.min(overlap.ideal)) as f64 / d as f64;
        weights += weight;
        let relevance = ranked.get(d - 1).copied();
        in_ideal += usize::from(relevance.is_some_and(|v| v > 0.0));
        steps.push(Step {
            rank: d,
            relevance,
            counted: relevance.is_some_and(|v| v > 0.0),
            count: shared as usize,
            weight: Some(weight),
            term: Some(term),
            sum: score,
            bound: Some(weights),
            value: Some(score / weights),
            ideal_detail: ideal
                .get(d - 1)
                .map(|doc| format!("{} ({})", doc.docno, doc.grade)),
            ideal_sum: Some(best),
            ..Step::default()
        });
        weight *= p;
    }
    let rbo = if depth == 0 { 0.0 } else { score / weights };
    let ideal_rbo = if depth == 0 { 0.0 } else { best / weights };
    let value = if normalize && ideal_rbo > 0.0 {
        rbo / ideal_rbo
    } else {
        rbo
    };
    let mut w = walkthrough(steps);
    w.own = vec![value];
    w.parts = vec![
        part("p (persistence)", p),
        part("normalize", f64::from(u8::from(normalize))),
        part("documents ranked", overlap.ranked as f64),
        part("ranked documents judged above 0", in_ideal as f64),
        part(
            "ideal ranking: the documents judged above 0",
            overlap.ideal as f64,
        ),
        part("depth: the longer of the two", depth as f64),
        part("RBO: sum / weights at the depth", rbo),
        part("the ideal ranking's RBO with itself", ideal_rbo),
    ];
    w.columns = vec![
        ("counted", "in ideal"),
        ("count", "shared so far"),
        ("ideal_detail", "ideal doc (grade)"),
        ("weight", "p^(d-1)"),
        ("term", "w*shared/d"),
        ("sum", "sum"),
        ("bound", "weights"),
        ("value", "RBO@d"),
        ("ideal_sum", "ideal sum"),
    ];
    w.formula = format!(
        "Compat = RBO / (the ideal's RBO with itself){}; RBO = (sum over depths d of p^(d-1) * shared(d) / d) / (sum of p^(d-1)), to the longer ranking's depth; shared(d): documents in both the ranking's and the ideal's first d (ranking: score descending, ties by docno ascending; ideal: grade descending, then score, then qrels order)",
        if normalize { "" } else { " (normalize=False: RBO alone)" }
    );
    Ok(w)
}

/// The names shown for a diversity query: its judged documents' docnos and its subtopics'.
pub struct Names<'a> {
    pub docnos: &'a [String],
    pub subtopics: &'a [String],
}

/// One ranked list's novelty, rank by rank: each subtopic's gain starts at 1 and is multiplied
/// by 1 - alpha at each document relevant to it (ndeval's order of additions).
struct Novelty<'a> {
    relevant: &'a Relevant,
    gain: Vec<f64>,
    seen: Vec<u32>,
    covered: usize,
    alpha: f64,
}

impl<'a> Novelty<'a> {
    fn new(relevant: &'a Relevant, width: usize, alpha: f64) -> Self {
        Novelty {
            relevant,
            gain: vec![1.0; width],
            seen: vec![0; width],
            covered: 0,
            alpha,
        }
    }

    /// Document d's novelty gain, and its subtopics with each one's count so far.
    fn add(&mut self, d: u32, names: &[String]) -> (f64, String) {
        let mut score = 0.0;
        let mut detail = Vec::new();
        for &s in self.relevant.of_doc(d) {
            let s = s as usize;
            score += self.gain[s];
            self.gain[s] *= 1.0 - self.alpha;
            self.seen[s] += 1;
            self.covered += usize::from(self.seen[s] == 1);
            let name = names.get(s).map_or("?", String::as_str);
            detail.push(format!("{name}:{}", self.seen[s]));
        }
        (score, detail.join(","))
    }
}

/// The relevance value shown for judged document d (its highest grade), or not in the qrels.
fn grade_of(topic: &Topic, d: u32) -> f64 {
    if d == UNJUDGED {
        return NOT_IN_QRELS;
    }
    let d = d as usize;
    topic.grade[topic.offsets[d]..topic.offsets[d + 1]]
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
}

/// A diversity measure on the query's subtopics (as its kernel prepares them).
pub fn diversity(
    intent: Intent,
    q: &Query,
    request: &Request,
    options: &Options,
    names: &Names,
) -> Result<Walkthrough> {
    let Some((topic, r, ranked)) = prepared(q, request, options) else {
        return Err(Error::new(
            "a diversity measure needs the query's subtopics (internal: none joined)",
        ));
    };
    let alpha = param(request, 0, 0.5);
    let mut w = match intent {
        Intent::ErrIa { normalized } => {
            cumulative(topic, &r, &ranked, request, names, alpha, false, normalized)
        }
        Intent::AlphaDcg { normalized } => {
            cumulative(topic, &r, &ranked, request, names, alpha, true, normalized)
        }
        Intent::Nrbp { normalized } => nrbp(topic, &r, &ranked, request, names, alpha, normalized),
        Intent::ApIa => ap_ia(topic, &r, &ranked, names),
        Intent::PIa | Intent::StRecall => at_cutoff(intent, topic, &r, &ranked, request, names),
    };
    w.parts.insert(
        0,
        part(
            format!(
                "subtopics with a document relevant at -l {} (of {} judged)",
                options.relevance_level, topic.width
            ),
            r.actual as f64,
        ),
    );
    if r.actual == 0 {
        w.formula
            .push_str("; no subtopic has a relevant document: 0");
    }
    Ok(w)
}

/// The steps of `ranked` (judged document indices) to `rows` ranks, its novelty added.
fn novelty_steps(
    topic: &Topic,
    r: &Relevant,
    ranked: &[u32],
    rows: usize,
    names: &Names,
    alpha: f64,
) -> Vec<Step> {
    let mut novelty = Novelty::new(r, topic.width, alpha);
    (0..rows)
        .map(|i| match ranked.get(i) {
            Some(&d) => {
                let (gain, detail) = novelty.add(d, names.subtopics);
                Step {
                    rank: i + 1,
                    relevance: Some(grade_of(topic, d)),
                    counted: !r.of_doc(d).is_empty(),
                    count: novelty.covered,
                    gain: Some(gain),
                    detail: Some(detail),
                    ..Step::default()
                }
            }
            None => Step {
                rank: i + 1,
                count: novelty.covered,
                ..Step::default()
            },
        })
        .collect()
}

/// The ideal ranking's documents and novelty gains to `rows` ranks, onto the steps.
fn ideal_gains(
    topic: &Topic,
    r: &Relevant,
    steps: &mut [Step],
    names: &Names,
    alpha: f64,
) -> Vec<f64> {
    let ideal = r.ideal_docs(topic, alpha, steps.len());
    let mut novelty = Novelty::new(r, topic.width, alpha);
    let mut gains = Vec::new();
    for (s, &d) in steps.iter_mut().zip(&ideal) {
        let (gain, detail) = novelty.add(d, names.subtopics);
        let docno = names.docnos.get(d as usize).map_or("?", String::as_str);
        s.ideal_detail = Some(format!("{docno} {detail}"));
        s.ideal_gain = Some(gain);
        gains.push(gain);
    }
    gains
}

/// ERR-IA (`dcg` false) or alpha-DCG at each rank to the cutoff, normalized from rank 2 by the
/// "ideal ideal" (every subtopic covered at every rank), as ndeval normalizes them; with
/// `normalized`, over the same of ndeval's greedy ideal ranking.
#[allow(clippy::too_many_arguments)]
fn cumulative(
    topic: &Topic,
    r: &Relevant,
    ranked: &[u32],
    request: &Request,
    names: &Names,
    alpha: f64,
    dcg: bool,
    normalized: bool,
) -> Walkthrough {
    let k = cutoff(request);
    let mut steps = novelty_steps(topic, r, ranked, k, names, alpha);
    let ideal = if normalized {
        ideal_gains(topic, r, &mut steps, names, alpha)
    } else {
        Vec::new()
    };
    let weigh = |score: f64, i: usize| {
        if dcg {
            score * discount(i)
        } else {
            score / (i + 1) as f64
        }
    };
    let (mut sum, mut ideal_sum, mut bound, mut dcg_sum, mut dcg_bound) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let mut every = r.actual as f64;
    let mut value = 0.0;
    for (i, s) in steps.iter_mut().enumerate() {
        let term = s.gain.map_or(0.0, |g| weigh(g, i));
        sum += term;
        ideal_sum += ideal.get(i).map_or(0.0, |&g| weigh(g, i));
        bound += weigh(every, i);
        // nERR-IA: normalized where the run's alpha-DCG is not 0 (as ndeval)
        dcg_sum += s.gain.map_or(0.0, |g| g * discount(i));
        dcg_bound += every * discount(i);
        every *= 1.0 - alpha;
        let (own, own_ideal, own_dcg) = if i == 0 {
            (sum, ideal_sum, dcg_sum)
        } else {
            (sum / bound, ideal_sum / bound, dcg_sum / dcg_bound)
        };
        value = match (normalized, dcg) {
            _ if r.actual == 0 => 0.0,
            (false, _) => own,
            (true, true) if own != 0.0 => own / own_ideal,
            (true, false) if own_dcg != 0.0 => own / own_ideal,
            (true, _) => 0.0,
        };
        s.weight = Some(if dcg {
            discount(i)
        } else {
            1.0 / (i + 1) as f64
        });
        s.term = Some(term);
        s.sum = sum;
        s.bound = Some(bound);
        if normalized {
            s.ideal_sum = Some(ideal_sum);
        }
        s.value = Some(value);
    }
    let name = match (dcg, normalized) {
        (true, false) => "alpha-DCG",
        (true, true) => "alpha-nDCG",
        (false, false) => "ERR-IA",
        (false, true) => "nERR-IA",
    };
    let mut w = walkthrough(steps);
    w.own = vec![value];
    w.parts = vec![
        part("alpha", alpha),
        part("cutoff k (ndeval's depth at most 20)", k as f64),
    ];
    let weight = if dcg {
        "ln 2 / ln(rank + 1)"
    } else {
        "1 / rank"
    };
    w.columns = vec![
        ("detail", "subtopics:count"),
        ("count", "covered"),
        ("gain", "novelty gain"),
        ("weight", if dcg { "discount" } else { "1/rank" }),
        ("term", "term"),
        ("sum", "sum"),
        ("bound", "every subtopic"),
    ];
    if normalized {
        w.columns.extend([
            ("ideal_detail", "ideal doc subtopics:count"),
            ("ideal_gain", "ideal gain"),
            ("ideal_sum", "ideal sum"),
        ]);
    }
    w.columns.push(("value", name));
    let base = if dcg { "alpha-DCG@k" } else { "ERR-IA@k" };
    w.formula = format!(
        "{base} = sum to k of (novelty gain x {weight}), over the same sum with every subtopic covered at every rank (from k = 2; ndeval's 'ideal ideal'); novelty gain = sum over the document's relevant subtopics of (1 - alpha)^(documents relevant to it above)"
    );
    if normalized {
        w.formula.push_str(&format!(
            "; {name}@k = {base} / that of ndeval's greedy ideal ranking (each next the judged document of the highest novelty gain, ties to the greater docno), 0 where {}",
            if dcg { "alpha-DCG@k is 0" } else { "the ranking's alpha-DCG@k is 0" }
        ));
    }
    w
}

/// NRBP (nNRBP: over the ideal ranking's) over the whole ranking.
fn nrbp(
    topic: &Topic,
    r: &Relevant,
    ranked: &[u32],
    request: &Request,
    names: &Names,
    alpha: f64,
    normalized: bool,
) -> Walkthrough {
    let beta = param(request, 1, 0.5);
    let judged = topic.judged();
    let rows = if normalized {
        ranked.len().max(judged)
    } else {
        ranked.len()
    };
    let mut steps = novelty_steps(topic, r, ranked, rows, names, alpha);
    let ideal = if normalized {
        ideal_gains(topic, r, &mut steps, names, alpha)
    } else {
        Vec::new()
    };
    let factor = (1.0 - (1.0 - alpha) * beta) / r.actual as f64;
    let (mut total, mut ideal_total, mut decay) = (0.0, 0.0, 1.0);
    for (i, s) in steps.iter_mut().enumerate() {
        if let Some(g) = s.gain {
            let term = g * decay;
            total += term;
            s.term = Some(term);
        }
        if let Some(&g) = ideal.get(i) {
            ideal_total += g * decay;
            s.ideal_sum = Some(ideal_total);
        }
        s.weight = Some(decay);
        s.sum = total;
        s.value = Some(if r.actual == 0 { 0.0 } else { total * factor });
        decay *= beta;
    }
    let run = if r.actual == 0 { 0.0 } else { total * factor };
    let ideal_run = if r.actual == 0 {
        0.0
    } else {
        ideal_total * factor
    };
    let value = match normalized {
        false => run,
        true if ideal_run == 0.0 => 0.0,
        true => run / ideal_run,
    };
    let mut w = walkthrough(steps);
    w.own = vec![value];
    w.parts = vec![
        part("alpha", alpha),
        part("beta", beta),
        part(
            "(1 - (1 - alpha) beta) / subtopics",
            if r.actual == 0 { 0.0 } else { factor },
        ),
        part("NRBP", run),
    ];
    if normalized {
        w.parts.push(part("the ideal ranking's NRBP", ideal_run));
    }
    w.columns = vec![
        ("detail", "subtopics:count"),
        ("count", "covered"),
        ("gain", "novelty gain"),
        ("weight", "beta^(rank-1)"),
        ("term", "term"),
        ("sum", "sum"),
        ("value", "NRBP so far"),
    ];
    if normalized {
        w.columns.extend([
            ("ideal_detail", "ideal doc subtopics:count"),
            ("ideal_gain", "ideal gain"),
            ("ideal_sum", "ideal sum"),
        ]);
    }
    w.formula = "NRBP = (1 - (1 - alpha) beta) / subtopics x sum over the ranking of novelty gain x beta^(rank - 1); novelty gain = sum over the document's relevant subtopics of (1 - alpha)^(documents relevant to it above)".into();
    if normalized {
        w.formula.push_str("; nNRBP = NRBP / that of ndeval's greedy ideal ranking of every judged document (0 where that is 0)");
    }
    w
}

/// MAP-IA: per subtopic the average precision of the ranking judged by it alone, averaged.
fn ap_ia(topic: &Topic, r: &Relevant, ranked: &[u32], names: &Names) -> Walkthrough {
    let mut steps = novelty_steps(topic, r, ranked, ranked.len(), names, 0.0);
    let mut count = vec![0u32; topic.width];
    let mut total = vec![0.0f64; topic.width];
    let mut sum = 0.0;
    for (s, &d) in steps.iter_mut().zip(ranked) {
        let mut term = 0.0;
        for &t in r.of_doc(d) {
            let t = t as usize;
            count[t] += 1;
            let precision = f64::from(count[t]) / s.rank as f64;
            total[t] += precision;
            term += precision;
        }
        sum += term;
        s.term = Some(term);
        s.sum = sum;
    }
    let mut w = walkthrough(steps);
    let mut averaged = 0.0;
    for (t, (total, &relevant)) in total.iter().zip(&r.per_subtopic).enumerate() {
        if relevant > 0 {
            let ap = total / f64::from(relevant);
            averaged += ap;
            let name = names.subtopics.get(t).map_or("?", String::as_str);
            w.parts.push(part(
                format!("AP of subtopic {name}: {total:.4} (precisions summed) / {relevant} (its relevant documents)"),
                ap,
            ));
        }
    }
    w.own = vec![if r.actual == 0 {
        0.0
    } else {
        averaged / r.actual as f64
    }];
    w.columns = vec![
        ("detail", "subtopics:count"),
        ("term", "precisions added"),
        ("sum", "sum"),
    ];
    w.formula = "MAP-IA = (sum over the subtopics with a relevant document of AP(subtopic)) / subtopics; AP(subtopic) = (sum of count:rank at each document relevant to it) / its relevant documents (a subtopic's count at a rank is the precision there)".into();
    w
}

/// P-IA@k and StRecall@k: relevant (document, subtopic) pairs, or subtopics covered, to k.
fn at_cutoff(
    intent: Intent,
    topic: &Topic,
    r: &Relevant,
    ranked: &[u32],
    request: &Request,
    names: &Names,
) -> Walkthrough {
    let k = cutoff(request);
    let mut steps = novelty_steps(topic, r, ranked, k, names, 0.0);
    let mut pairs = 0usize;
    let mut value = 0.0;
    let actual = r.actual;
    for (i, s) in steps.iter_mut().enumerate() {
        if intent == Intent::PIa {
            let here = ranked.get(i).map_or(0, |&d| r.of_doc(d).len());
            pairs += here;
            s.count = pairs;
            s.term = Some(here as f64);
            value = if actual == 0 {
                0.0
            } else {
                pairs as f64 / ((i + 1) * actual) as f64
            };
        } else {
            value = if actual == 0 {
                0.0
            } else {
                s.count as f64 / actual as f64
            };
        }
        s.value = Some(value);
        s.gain = None;
    }
    let mut w = walkthrough(steps);
    w.own = vec![value];
    w.parts = vec![part("cutoff k (ndeval's depth at most 20)", k as f64)];
    if intent == Intent::PIa {
        w.columns = vec![
            ("detail", "subtopics:count"),
            ("term", "pairs"),
            ("count", "pairs so far"),
            ("value", "P-IA"),
        ];
        w.formula =
            "P-IA@k = (relevant (document, subtopic) pairs in the first k) / (k x subtopics)"
                .into();
    } else {
        w.columns = vec![
            ("detail", "subtopics:count"),
            ("count", "covered"),
            ("value", "StRecall"),
        ];
        w.formula =
            "StRecall@k = (subtopics some document of the first k is relevant to) / subtopics"
                .into();
    }
    w
}
