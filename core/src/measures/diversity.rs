//! The intent-aware (diversity) measures of ndeval, the TREC Web track's evaluation program
//! (and pyndeval, its Python wrapper): ERR-IA, alpha-DCG, NRBP and their normalized forms,
//! MAP-IA, P-IA and subtopic recall, on `-R subtopics` judgments. docs/diversity.md gives each
//! rule and quirk. The arithmetic is ndeval's, in its order: a document's gain is summed over its
//! subtopics in subtopic order, the "ideal ideal" normalization skips rank 1, the discount is
//! ln 2 / ln(rank + 1).

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::arena::Arena;
use crate::error::Result;
use crate::measures::{Notes, Query};
use crate::options::{Options, Request};

/// ndeval's depth: every cut-off measure is computed to this rank.
pub const DEPTH: usize = 20;
/// No judged document at this rank.
pub const UNJUDGED: u32 = u32::MAX;

/// One query's subtopic judgments joined with its ranking (built by `relations::relate`).
#[derive(Default, Debug)]
pub struct Topic {
    /// Per ranked document (score descending, then docno ascending, as pyndeval ranks; after
    /// -M): its index among the query's judged documents, or `UNJUDGED`.
    pub ranked: Vec<u32>,
    /// The judgments of judged document d are `offsets[d]..offsets[d + 1]`.
    pub offsets: Vec<usize>,
    /// Per judgment: the query's own number of its subtopic (in the file's order of subtopics)
    /// and its grade.
    pub subtopic: Vec<u32>,
    pub grade: Vec<f64>,
    /// Per judged document: its docno (ndeval's ideal ranking breaks ties by docno).
    pub docnos: Arena,
    /// How many subtopics the query's judgments name.
    pub width: usize,
    /// Per subtopic of the query: its number in the file (`read::Subtopics::names`).
    pub named: Vec<u32>,
    /// Scratch for `subtopic`: per subtopic of the file, its number in the query.
    pub(crate) local_of: Vec<u32>,
    /// The judgments at the relevance level, worked out once for all the query's measures
    /// (emptied whenever the topic is filled again).
    pub(crate) relevant: OnceLock<Relevant>,
}

impl Topic {
    /// How many documents the query judges.
    pub fn judged(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

/// A topic's judgments at one relevance level: per judged document its relevant subtopics.
#[derive(Debug, Clone)]
pub(crate) struct Relevant {
    level: f64,
    /// Document d's subtopics are `subtopics[offsets[d]..offsets[d + 1]]`, ascending.
    offsets: Vec<usize>,
    subtopics: Vec<u32>,
    /// Per subtopic: how many documents are relevant to it.
    pub(crate) per_subtopic: Vec<u32>,
    /// Subtopics with a relevant document (ndeval's actualSubtopics).
    pub(crate) actual: usize,
    /// The ideal ranking last worked out, for the query's next measures (`Ideal`).
    ideal: IdealKept,
}

/// Documents relevant to the same subtopics: those subtopics, and each document's (docno,
/// index).
type Class<'r> = (&'r [u32], Vec<(&'r [u8], u32)>);

/// An ideal ranking kept: the bits of its alpha, whether it runs to its end (not only to the
/// depth asked), and its documents.
type Ideal = (u64, bool, Vec<u32>);

/// The ideal ranking a topic's measures share (a measure asking for fewer ranks reads the first
/// ones; one asking for more, or another alpha, works out its own, which is then kept).
#[derive(Debug, Default)]
struct IdealKept(std::sync::Mutex<Option<Ideal>>);

impl Clone for IdealKept {
    /// A copy of the judgments keeps no ideal (it is worked out again when asked for).
    fn clone(&self) -> Self {
        IdealKept::default()
    }
}

impl Relevant {
    pub(crate) fn of(topic: &Topic, level: f64) -> Relevant {
        let mut r = Relevant {
            level,
            offsets: vec![0],
            subtopics: Vec::new(),
            per_subtopic: vec![0; topic.width],
            actual: 0,
            ideal: IdealKept::default(),
        };
        for d in 0..topic.judged() {
            let start = r.subtopics.len();
            for j in topic.offsets[d]..topic.offsets[d + 1] {
                if topic.grade[j] >= level {
                    r.subtopics.push(topic.subtopic[j]);
                    r.per_subtopic[topic.subtopic[j] as usize] += 1;
                }
            }
            if r.subtopics.len() - start > 1 {
                r.subtopics[start..].sort_unstable();
            }
            r.offsets.push(r.subtopics.len());
        }
        r.actual = r.per_subtopic.iter().filter(|&&n| n > 0).count();
        r
    }

    pub(crate) fn of_doc(&self, d: u32) -> &[u32] {
        if d == UNJUDGED {
            return &[];
        }
        &self.subtopics[self.offsets[d as usize]..self.offsets[d as usize + 1]]
    }

    /// ndeval's ideal ranking (`ideal_walk`), as the query's judged documents (explain shows
    /// them).
    pub(crate) fn ideal_docs(&self, topic: &Topic, alpha: f64, depth: usize) -> Vec<u32> {
        self.with_ideal(topic, alpha, depth, <[u32]>::to_vec)
    }

    /// `read` of the ideal's first `depth` choices for `alpha`: those kept when they reach that
    /// far, or worked out (and kept).
    fn with_ideal<T>(
        &self,
        topic: &Topic,
        alpha: f64,
        depth: usize,
        read: impl FnOnce(&[u32]) -> T,
    ) -> T {
        let bits = alpha.to_bits();
        let mut kept = self
            .ideal
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let enough = |k: &Ideal| k.0 == bits && (k.1 || k.2.len() >= depth);
        if !kept.as_ref().is_some_and(enough) {
            let ideal = self.ideal_walk(topic, alpha, depth);
            let whole = ideal.len() < depth;
            *kept = Some((bits, whole, ideal));
        }
        let ideal = &kept.as_ref().expect("kept above").2;
        read(&ideal[..ideal.len().min(depth)])
    }

    /// ndeval's ideal ranking to `depth` ranks (fewer: the ideal ends there), its documents:
    /// greedily the document of the highest novelty gain next, ties to the greater docno.
    /// ndeval ranks every judged document; this stops where every document left would add
    /// nothing, which changes no value (a document of gain 0 adds 0 to every sum), and takes
    /// only documents relevant to some subtopic as candidates (any other adds nothing).
    ///
    /// Documents relevant to the same subtopics always have the same gain (summed the same
    /// way), so of each such class only the one of the greatest docno can be chosen next: each
    /// step compares the classes, not the documents, and chooses what a scan of every document
    /// would. The greedy choices do not depend on the depth, so an ideal worked out for one
    /// measure serves the query's others to as many ranks (`IdealKept`).
    fn ideal_walk(&self, topic: &Topic, alpha: f64, depth: usize) -> Vec<u32> {
        debug_assert!((0.0..=1.0).contains(&alpha)); // gains never grow: a gain of 0 stays 0
        let mut gain = vec![1.0f64; topic.width];
        let mut classes = self.classes(topic);
        let mut out = Vec::with_capacity(depth.min(self.offsets.len()));
        while out.len() < depth {
            let mut best: Option<(usize, f64, &[u8])> = None;
            for (c, (subtopics, docs)) in classes.iter().enumerate() {
                let Some(&(docno, _)) = docs.last() else {
                    continue;
                };
                let mut score = 0.0;
                for &s in *subtopics {
                    score += gain[s as usize];
                }
                if best.is_none_or(|(_, max, first)| score > max || (score == max && docno > first))
                {
                    best = Some((c, score, docno));
                }
            }
            let Some((c, score, _)) = best else {
                break;
            };
            if score == 0.0 {
                break;
            }
            let subtopics = classes[c].0;
            let (_, d) = classes[c].1.pop().expect("a class with a document left");
            for &s in subtopics {
                gain[s as usize] *= 1.0 - alpha;
            }
            out.push(d);
        }
        out
    }

    /// The documents relevant to some subtopic, in classes of the same subtopics, each class
    /// its documents' (docno, document) in byte order of the docnos (its next choice last).
    fn classes<'r>(&'r self, topic: &'r Topic) -> Vec<Class<'r>> {
        let mut docs: Vec<(&[u32], &[u8], u32)> = (0..self.offsets.len() as u32 - 1)
            .map(|d| (self.of_doc(d), topic.docnos.get(d as usize), d))
            .filter(|(subtopics, _, _)| !subtopics.is_empty())
            .collect();
        docs.sort_unstable();
        let mut classes: Vec<Class> = Vec::new();
        for (subtopics, docno, d) in docs {
            match classes.last_mut() {
                Some((same, members)) if *same == subtopics => members.push((docno, d)),
                _ => classes.push((subtopics, vec![(docno, d)])),
            }
        }
        classes
    }
}

/// Per rank of the first `DEPTH` of `ranked` (judged documents, or `UNJUDGED`), the
/// novelty-discounted gain: each subtopic's gain starts at 1 and is multiplied by 1 - alpha at
/// each document relevant to it.
fn novelty(ranked: &[u32], r: &Relevant, width: usize, alpha: f64) -> [f64; DEPTH] {
    let mut gain = vec![1.0f64; width];
    let mut out = [0.0; DEPTH];
    for (score, &d) in out.iter_mut().zip(ranked) {
        *score = take_gain(r.of_doc(d), &mut gain, alpha);
    }
    out
}

/// A document's novelty gain: its subtopics' gains so far, summed in subtopic order, each
/// then multiplied by 1 - alpha.
fn take_gain(subtopics: &[u32], gain: &mut [f64], alpha: f64) -> f64 {
    let mut score = 0.0;
    for &s in subtopics {
        score += gain[s as usize];
        gain[s as usize] *= 1.0 - alpha;
    }
    score
}

/// ndeval's discount of 0-based rank i: ln 2 / ln(i + 2).
pub(crate) fn discount(i: usize) -> f64 {
    2.0f64.ln() / (i as f64 + 2.0).ln()
}

/// ERR-IA (`dcg`: false) or alpha-DCG (true) at depths 1..=DEPTH, normalized by the "ideal
/// ideal" (every subtopic covered at every rank) from depth 2 on, as ndeval normalizes them.
fn cumulative(ranked: &[u32], r: &Relevant, width: usize, alpha: f64, dcg: bool) -> [f64; DEPTH] {
    let mut out = [0.0; DEPTH];
    if r.actual == 0 {
        return out;
    }
    let weight = |i: usize| {
        if dcg {
            discount(i)
        } else {
            1.0 / (i + 1) as f64
        }
    };
    for (i, score) in novelty(ranked, r, width, alpha).into_iter().enumerate() {
        out[i] = if dcg {
            score * weight(i)
        } else {
            score / (i + 1) as f64
        };
    }
    let mut ideal = [0.0; DEPTH];
    let mut gain = r.actual as f64;
    for (i, x) in ideal.iter_mut().enumerate() {
        *x = if dcg {
            gain * weight(i)
        } else {
            gain / (i + 1) as f64
        };
        gain *= 1.0 - alpha;
    }
    for i in 1..DEPTH {
        out[i] += out[i - 1];
        ideal[i] += ideal[i - 1];
    }
    for i in 1..DEPTH {
        out[i] /= ideal[i];
    }
    out
}

/// NRBP: novelty gains discounted by beta per rank, over the whole ranking (`ranked`: judged
/// documents, or `UNJUDGED`).
fn nrbp(ranked: &[u32], r: &Relevant, width: usize, alpha: f64, beta: f64) -> f64 {
    if r.actual == 0 {
        return 0.0;
    }
    let mut gain = vec![1.0f64; width];
    let mut total = 0.0;
    let mut decay = 1.0;
    for &d in ranked {
        let subtopics = r.of_doc(d);
        if !subtopics.is_empty() {
            // a document relevant to nothing scores 0: adding 0 * decay changes no sum
            total += take_gain(subtopics, &mut gain, alpha) * decay;
        }
        decay *= beta;
    }
    total * ((1.0 - (1.0 - alpha) * beta) / r.actual as f64)
}

/// The cut-off of a request (ndeval's depth bounds it: the Python side refuses more).
pub(crate) fn cutoff(request: &Request) -> usize {
    request
        .cutoffs
        .first()
        .copied()
        .unwrap_or(DEPTH)
        .clamp(1, DEPTH)
}

/// A named parameter of the request (declared in the record, sent in that order).
pub(crate) fn param(request: &Request, i: usize, default: f64) -> f64 {
    request.params.get(i).copied().unwrap_or(default)
}

/// A query's topic, its judgments at the relevance level, and its ranking (-J applied).
pub(crate) type Prepared<'q> = (&'q Topic, Cow<'q, Relevant>, Cow<'q, [u32]>);

/// The query's topic, its judgments at the relevance level, and its ranking (-J of the
/// request applied).
pub(crate) fn prepared<'q>(
    q: &'q Query,
    request: &Request,
    options: &Options,
) -> Option<Prepared<'q>> {
    let topic = q.subtopics?;
    let level = options.relevance_level;
    let relevant = match topic.relevant.get_or_init(|| Relevant::of(topic, level)) {
        r if r.level == level => Cow::Borrowed(r),
        _ => Cow::Owned(Relevant::of(topic, level)),
    };
    let ranked = if request.judged_only || options.judged_only {
        Cow::Owned(
            topic
                .ranked
                .iter()
                .copied()
                .filter(|&d| d != UNJUDGED)
                .collect(),
        )
    } else {
        Cow::Borrowed(&topic.ranked[..])
    };
    Some((topic, relevant, ranked))
}

/// The first `DEPTH` ranks: all the cut-off measures read.
fn top(ranked: &[u32]) -> &[u32] {
    &ranked[..ranked.len().min(DEPTH)]
}

/// ERR-IA@k and nERR-IA@k (alpha: ndeval's, 0.5 unless ndeval's -alpha says otherwise).
fn err_ia(q: &Query, request: &Request, options: &Options, out: &mut [f64], normalized: bool) {
    out[0] = 0.0;
    let Some((topic, r, ranked)) = prepared(q, request, options) else {
        return;
    };
    let alpha = param(request, 0, 0.5);
    let k = cutoff(request) - 1;
    let run = cumulative(top(&ranked), &r, topic.width, alpha, false);
    out[0] = run[k];
    if normalized {
        let ideal = r.with_ideal(topic, alpha, DEPTH, |ideal| {
            cumulative(ideal, &r, topic.width, alpha, false)
        });
        // ndeval normalizes where the run's alpha-DCG is not 0 (then neither is its ERR)
        let dcg = cumulative(top(&ranked), &r, topic.width, alpha, true);
        out[0] = if dcg[k] != 0.0 {
            run[k] / ideal[k]
        } else {
            0.0
        };
    }
}

/// alpha-DCG@k and alpha-nDCG@k.
fn alpha_dcg_at(
    q: &Query,
    request: &Request,
    options: &Options,
    out: &mut [f64],
    normalized: bool,
) {
    out[0] = 0.0;
    let Some((topic, r, ranked)) = prepared(q, request, options) else {
        return;
    };
    let alpha = param(request, 0, 0.5);
    let k = cutoff(request) - 1;
    let run = cumulative(top(&ranked), &r, topic.width, alpha, true);
    out[0] = run[k];
    if normalized && run[k] != 0.0 {
        let ideal = r.with_ideal(topic, alpha, DEPTH, |ideal| {
            cumulative(ideal, &r, topic.width, alpha, true)
        });
        out[0] = run[k] / ideal[k];
    }
}

pub fn err_ia_k(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    err_ia(q, request, options, out, false);
    Ok(())
}

pub fn nerr_ia_k(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    err_ia(q, request, options, out, true);
    Ok(())
}

pub fn alpha_dcg(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    alpha_dcg_at(q, request, options, out, false);
    Ok(())
}

pub fn alpha_ndcg(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    alpha_dcg_at(q, request, options, out, true);
    Ok(())
}

/// NRBP and nNRBP (parameters alpha, beta). nNRBP is 0 where the ideal NRBP is 0 (no document
/// relevant, or alpha 0 with beta 1: ndeval divides 0 by 0 there).
fn nrbp_of(q: &Query, request: &Request, options: &Options, out: &mut [f64], normalized: bool) {
    out[0] = 0.0;
    let Some((topic, r, ranked)) = prepared(q, request, options) else {
        return;
    };
    let (alpha, beta) = (param(request, 0, 0.5), param(request, 1, 0.5));
    let run = nrbp(&ranked, &r, topic.width, alpha, beta);
    out[0] = run;
    if normalized {
        let ideal = r.with_ideal(topic, alpha, usize::MAX, |ideal| {
            nrbp(ideal, &r, topic.width, alpha, beta)
        });
        out[0] = if ideal == 0.0 { 0.0 } else { run / ideal };
    }
}

pub fn nrbp_all(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    nrbp_of(q, request, options, out, false);
    Ok(())
}

pub fn nnrbp_all(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    nrbp_of(q, request, options, out, true);
    Ok(())
}

/// MAP-IA: per subtopic, the average precision of the ranking judged by that subtopic alone,
/// averaged over the subtopics some document is relevant to; the whole ranking counts.
pub fn ap_ia(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    out[0] = 0.0;
    let Some((topic, r, ranked)) = prepared(q, request, options) else {
        return Ok(());
    };
    if r.actual == 0 {
        return Ok(());
    }
    let mut count = vec![0u32; topic.width];
    let mut total = vec![0.0f64; topic.width];
    for (i, &d) in ranked.iter().enumerate() {
        for &s in r.of_doc(d) {
            count[s as usize] += 1;
            total[s as usize] += f64::from(count[s as usize]) / (i + 1) as f64;
        }
    }
    let mut sum = 0.0;
    for (total, &relevant) in total.iter().zip(&r.per_subtopic) {
        if relevant > 0 {
            sum += total / f64::from(relevant);
        }
    }
    out[0] = sum / r.actual as f64;
    Ok(())
}

/// P-IA@k: relevant (document, subtopic) pairs in the first k, over k times the subtopics.
pub fn p_ia(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    out[0] = 0.0;
    let Some((_, r, ranked)) = prepared(q, request, options) else {
        return Ok(());
    };
    if r.actual == 0 {
        return Ok(());
    }
    let k = cutoff(request);
    let count: usize = ranked.iter().take(k).map(|&d| r.of_doc(d).len()).sum();
    out[0] = count as f64 / (k * r.actual) as f64;
    Ok(())
}

/// StRecall@k: the subtopics covered in the first k, over the subtopics.
pub fn st_recall(
    q: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    out[0] = 0.0;
    let Some((topic, r, ranked)) = prepared(q, request, options) else {
        return Ok(());
    };
    if r.actual == 0 {
        return Ok(());
    }
    let mut seen = vec![false; topic.width];
    let mut count = 0usize;
    for &d in ranked.iter().take(cutoff(request)) {
        for &s in r.of_doc(d) {
            if !seen[s as usize] {
                seen[s as usize] = true;
                count += 1;
            }
        }
    }
    out[0] = count as f64 / r.actual as f64;
    Ok(())
}
