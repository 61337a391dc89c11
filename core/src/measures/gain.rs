//! The DCG family and trec_eval's other gain measures: binG, G, dcg, ideal_dcg, ndcg,
//! ndcg_rel, Rndcg, ndcg_cut, and trecgain's ndcg_p and cg_cut.
//!
//! Each kernel walks the ranking in rank order as trec_eval's loops do (m_ndcg.c, m_G.c,
//! ...): it adds each term to a double as it comes, divides by the discount, and takes
//! log2 from the C library. Which gains a measure uses: its own, else the global ones
//! (`GainRule::resolve`); ndcg_cut and cg_cut have no gain string of their own in trec_eval's
//! syntax, so theirs come from the request only when ir_measures' `gains=` gave them.

use super::gains::{GainRule, Gains};
use super::precision::Tally;
use super::{cutoffs_of, single, Notes, Query};
use crate::error::Result;
use crate::options::{Discount, GainSpec, Options, Request};

fn gains_of(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
) -> Result<Gains> {
    Gains::new(
        query,
        &GainRule::resolve(request.gains.as_ref(), options),
        options.relevance_level,
        notes,
    )
}

/// The gain of each ranked document: from its relevance value, or with `--ties average` the
/// mean gain of its tie group (the group's gains added in rank order, divided by its size).
enum RankedGains<'q> {
    Own(&'q [f64], &'q Gains),
    Averaged(Vec<f64>),
}

impl<'q> RankedGains<'q> {
    fn of(query: &'q Query, gains: &'q Gains) -> Self {
        let Some(groups) = query.ties else {
            return RankedGains::Own(query.ranked, gains);
        };
        let mut out = Vec::with_capacity(query.ranked.len());
        let mut start = 0;
        while start < query.ranked.len() {
            let end = start
                + groups[start..]
                    .iter()
                    .take_while(|&&g| g == groups[start])
                    .count();
            let mut sum = 0.0;
            for &v in &query.ranked[start..end] {
                sum += gains.ranked(v);
            }
            let mean = sum / (end - start) as f64;
            out.extend(std::iter::repeat_n(mean, end - start));
            start = end;
        }
        RankedGains::Averaged(out)
    }

    #[inline]
    fn at(&self, i: usize) -> f64 {
        match self {
            RankedGains::Own(ranked, gains) => gains.ranked(ranked[i]),
            RankedGains::Averaged(gains) => gains[i],
        }
    }

    fn len(&self) -> usize {
        match self {
            RankedGains::Own(ranked, _) => ranked.len(),
            RankedGains::Averaged(gains) => gains.len(),
        }
    }
}

/// Each ranked document's gain as the kernels use it (`trecgain explain` shows them).
pub(crate) fn ranked_gains(query: &Query, gains: &Gains) -> Vec<f64> {
    let ranked = RankedGains::of(query, gains);
    (0..ranked.len()).map(|i| ranked.at(i)).collect()
}

/// DCG over the whole ranking (terms with gain 0 skipped, as trec_eval does).
fn dcg_of(query: &Query, gains: &Gains, discount: Discount) -> f64 {
    let ranked = RankedGains::of(query, gains);
    let mut dcg = 0.0;
    for i in 0..ranked.len() {
        let g = ranked.at(i);
        if g != 0.0 {
            dcg += g / discount.divisor(i);
        }
    }
    dcg
}

/// DCG of the whole ideal ranking.
fn ideal_dcg_of(gains: &Gains, discount: Discount) -> f64 {
    let mut ideal = 0.0;
    for (i, g) in gains.ideal().enumerate() {
        ideal += g / discount.divisor(i);
    }
    ideal
}

fn ndcg_with(query: &Query, gains: &Gains, discount: Discount) -> f64 {
    let dcg = dcg_of(query, gains, discount);
    let ideal = ideal_dcg_of(gains, discount);
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}

/// Discounted cumulative gain over the whole ranking.
pub fn dcg(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let gains = gains_of(query, request, options, notes)?;
    single(out, dcg_of(query, &gains, options.discount));
    Ok(())
}

/// DCG of the ideal ranking of all judged documents.
pub fn ideal_dcg(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let gains = gains_of(query, request, options, notes)?;
    single(out, ideal_dcg_of(&gains, options.discount));
    Ok(())
}

/// dcg / ideal_dcg over the whole ranking; 0 when the ideal is 0.
pub fn ndcg(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let gains = gains_of(query, request, options, notes)?;
    single(out, ndcg_with(query, &gains, options.discount));
    Ok(())
}

/// nDCG with exponential gains 2^grade - 1, whatever the request or the global gains say.
pub fn ndcg_p(
    query: &Query,
    _: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let exponential = GainSpec::exponential();
    let mut rule = GainRule::of(&exponential);
    rule.exact_ideal |= options.exact_ideal;
    let gains = Gains::new(query, &rule, options.relevance_level, notes)?;
    single(out, ndcg_with(query, &gains, options.discount));
    Ok(())
}

/// nDCG at each cutoff: DCG over the first k ranks over the ideal DCG over the first k ideal
/// ranks. Where the ideal is 0, trec_eval keeps the DCG (which is 0 too) when no gains are
/// given; with gains, 0.
pub fn ndcg_cut(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let cutoffs = cutoffs_of(request, out)?;
    let gains = gains_of(query, request, options, notes)?;
    let keep_dcg = GainRule::is_default(request.gains.as_ref(), options);
    let discount = options.discount;
    dcg_at_cutoffs(query, &gains, discount, cutoffs, out);
    let mut ideal_gains = gains.ideal();
    let mut ideal = 0.0;
    let mut i = 0;
    let mut exhausted = false;
    for (slot, &k) in out.iter_mut().zip(cutoffs) {
        while !exhausted && i < k {
            match ideal_gains.next() {
                Some(g) => ideal += g / discount.divisor(i),
                None => exhausted = true,
            }
            i += 1;
        }
        *slot = if ideal > 0.0 {
            *slot / ideal
        } else if keep_dcg {
            *slot
        } else {
            0.0
        };
    }
    Ok(())
}

/// DCG of the first k documents for each cutoff k, into `out`.
fn dcg_at_cutoffs(
    query: &Query,
    gains: &Gains,
    discount: Discount,
    cutoffs: &[usize],
    out: &mut [f64],
) {
    let ranked = RankedGains::of(query, gains);
    let mut dcg = 0.0;
    let mut i = 0;
    for (slot, &k) in out.iter_mut().zip(cutoffs) {
        while i < k.min(ranked.len()) {
            let g = ranked.at(i);
            if g != 0.0 {
                dcg += g / discount.divisor(i);
            }
            i += 1;
        }
        *slot = dcg;
    }
}

/// DCG at cutoffs (ranx's and scikit-learn's DCG@k; not in trec_eval).
pub fn dcg_cut(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let cutoffs = cutoffs_of(request, out)?;
    let gains = gains_of(query, request, options, notes)?;
    dcg_at_cutoffs(query, &gains, options.discount, cutoffs, out);
    Ok(())
}

/// Cumulative gain of the first k documents, undiscounted.
pub fn cg_cut(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let cutoffs = cutoffs_of(request, out)?;
    let gains = gains_of(query, request, options, notes)?;
    let ranked = RankedGains::of(query, &gains);
    let mut sum = 0.0;
    let mut i = 0;
    for (slot, &k) in out.iter_mut().zip(cutoffs) {
        while i < k.min(ranked.len()) {
            sum += ranked.at(i);
            i += 1;
        }
        *slot = sum;
    }
    Ok(())
}

/// nDCG averaged over the relevant documents (positive ideal gain): at each retrieved
/// document with positive gain, dcg so far over ideal dcg so far; each relevant document not
/// retrieved adds final dcg over final ideal; divided by the number of ideal positions.
pub fn ndcg_rel(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let gains = gains_of(query, request, options, notes)?;
    let discount = options.discount;
    let mut ideal_gains = gains.ideal();
    let (mut dcg, mut ideal) = (0.0, 0.0);
    let mut sum = 0.0;
    let mut retrieved: i64 = 0;
    let mut num_ideal: i64 = 0;
    for (i, &v) in query.ranked.iter().enumerate() {
        let g = gains.ranked(v);
        if g != 0.0 {
            dcg += g / discount.divisor(i);
        }
        if let Some(ig) = ideal_gains.next() {
            ideal += ig / discount.divisor(i);
            num_ideal += 1;
        }
        if g > 0.0 {
            sum += dcg / ideal;
            retrieved += 1;
        }
    }
    for ig in ideal_gains {
        ideal += ig / discount.divisor(num_ideal as usize);
        num_ideal += 1;
    }
    sum += ((num_ideal - retrieved) as f64 * dcg) / ideal;
    single(
        out,
        if sum > 0.0 {
            sum / num_ideal as f64
        } else {
            0.0
        },
    );
    Ok(())
}

/// The DCG of the first n documents, for increasing n.
struct DcgCursor<'q> {
    query: &'q Query<'q>,
    discount: Discount,
    at: usize,
    dcg: f64,
}

impl DcgCursor<'_> {
    fn upto(&mut self, n: usize, gains: &Gains) -> f64 {
        while self.at < n.min(self.query.ranked.len()) {
            let g = gains.ranked(self.query.ranked[self.at]);
            if g != 0.0 {
                self.dcg += g / self.discount.divisor(self.at);
            }
            self.at += 1;
        }
        self.dcg
    }
}

/// nDCG averaged at the points where the ideal gain changes level, plus the end of a
/// ranking longer than the ideal one. 0 without relevant documents (num_rel at -l); 0/0 (NaN,
/// which trec_eval prints as -nan) when there are some but no ideal gain is positive.
pub fn rndcg(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let gains = gains_of(query, request, options, notes)?;
    if Tally::of(query, options).rel == 0 {
        single(out, 0.0);
        return Ok(());
    }
    let discount = options.discount;
    let mut cursor = DcgCursor {
        query,
        discount,
        at: 0,
        dcg: 0.0,
    };
    let mut sum = 0.0;
    let mut points: usize = 0;
    let mut ideal = 0.0;
    let mut step = 0;
    let mut last: Option<f64> = None;
    for g in gains.ideal() {
        if last.is_some_and(|l| l != g) {
            sum += cursor.upto(step, &gains) / ideal;
            points += 1;
        }
        ideal += g / discount.divisor(step);
        last = Some(g);
        step += 1;
    }
    // where the walk ends, on a gain <= 0
    if let Some(l) = last {
        if gains.stop != l {
            sum += cursor.upto(step, &gains) / ideal;
            points += 1;
        }
    }
    // the end of a ranking that goes on past the ideal one
    let n = query.ranked.len();
    if gains.gate > 0.0 && n > step + 1 && ideal > 0.0 {
        sum += cursor.upto(n, &gains) / ideal;
        points += 1;
    }
    single(out, sum / points as f64);
    Ok(())
}

/// trec_eval's experimental normalised gain: at each rank add gain / log2(2 + sum_cost -
/// sum_results), sum_cost adding the ideal gain at that rank if it is >= 1, else 1;
/// normalised by the total ideal gain. Its own log2, whatever the discount.
pub fn gain_g(
    query: &Query,
    request: &Request,
    options: &Options,
    notes: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let gains = gains_of(query, request, options, notes)?;
    let mut ideal_gains = gains.ideal();
    let (mut sum_results, mut sum_cost, mut results_g) = (0.0, 0.0, 0.0);
    for &v in query.ranked {
        let g = gains.ranked(v);
        sum_results += g;
        sum_cost += match ideal_gains.next() {
            Some(ig) if ig >= 1.0 => ig,
            _ => 1.0,
        };
        if g != 0.0 {
            results_g += g / ((2.0 + sum_cost) - sum_results).log2();
        }
    }
    let mut sum_ideal = 0.0;
    for g in gains.ideal() {
        sum_ideal += g;
    }
    single(
        out,
        if sum_ideal > 0.0 {
            results_g / sum_ideal
        } else {
            0.0
        },
    );
    Ok(())
}

/// trec_eval's binary G: 1 / log2(2 + nonrelevant documents before it) at each relevant
/// document (grade >= -l), over num_rel.
pub fn bin_g(
    query: &Query,
    _: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let mut so_far: usize = 0;
    let mut sum = 0.0;
    for (i, &v) in query.ranked.iter().enumerate() {
        if v >= options.relevance_level {
            so_far += 1;
            sum += 1.0 / ((3 + i - so_far) as f64).log2();
        }
    }
    single(
        out,
        if so_far > 0 {
            sum / Tally::of(query, options).rel as f64
        } else {
            0.0
        },
    );
    Ok(())
}
