//! `trecgain explain` for the preference measures (-R prefs, qrels_prefs): they count pairs of
//! documents (A preferred to B, and whether the ranking agrees), not ranks. The steps are the
//! ranking as the preferences see it (score descending, ties by docno ascending, after -M):
//! whether the preferences name each document, and its number among those named (a preference
//! A > B is fulfilled when A's number is the lower). The parts are each judgment group's
//! counts, and the value is made from them in the kernel's order (core/src/measures/prefs.rs).

use crate::error::Result;
use crate::label::NOT_IN_QRELS;
use crate::measures::prefs::{
    counts_of, over_groups, ratio, ratio_f, rnonrel_tallies, tallies, Counts,
};
use crate::measures::{Preference, Query};
use crate::steps::{part, Part, Step, Walkthrough};

/// The pairs a measure counts, in words.
fn kinds(implied: bool, absent: bool) -> &'static str {
    match (implied, absent) {
        (false, _) => "both documents retrieved",
        (true, false) => "at least one document retrieved",
        (true, true) => "every pair (a pair of which neither is retrieved is never fulfilled)",
    }
}

/// Each group's counts of the pairs of the kinds counted: fulfilled and possible.
fn group_parts(c: &Counts, implied: bool, absent: bool) -> Vec<Part> {
    let mut parts = Vec::new();
    for (i, g) in c.groups.iter().enumerate() {
        let (ful, poss) = tallies(g, implied, absent);
        parts.push(part(format!("group {}: fulfilled", i + 1), ful as f64));
        parts.push(part(format!("group {}: possible", i + 1), poss as f64));
    }
    parts
}

/// Explains preference measure `kind` on query `q`; `ranked`: the relevance values of its
/// ranking as the preferences see it (`NOT_IN_QRELS`: no preference names the document).
pub fn preference(kind: Preference, q: &Query, ranked: &[f64]) -> Result<Walkthrough> {
    let c = counts_of(q)?;
    let mut count = 0;
    let steps = ranked
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let named = v != NOT_IN_QRELS;
            count += usize::from(named);
            Step {
                rank: i + 1,
                relevance: Some(v),
                counted: named,
                count,
                ..Step::default()
            }
        })
        .collect::<Vec<_>>();
    let mut parts = vec![
        part("judgment groups", c.groups.len() as f64),
        part("documents the preferences name", c.judged as f64),
        part("of them retrieved", c.judged_ret as f64),
    ];
    let (own, formula) = match kind {
        Preference::Count {
            fulfilled,
            implied,
            absent,
        } => {
            parts.extend(group_parts(c, implied, absent));
            let (ful, poss) = c.groups.iter().fold((0, 0), |(f, p), g| {
                let (gf, gp) = tallies(g, implied, absent);
                (f + gf, p + gp)
            });
            let what = if fulfilled { "fulfilled" } else { "possible" };
            (
                if fulfilled { ful } else { poss } as f64,
                format!(
                    "the preferences {what}, summed over the groups; pairs counted: {}",
                    kinds(implied, absent)
                ),
            )
        }
        Preference::Simple { implied, absent } => {
            parts.extend(group_parts(c, implied, absent));
            let (ful, poss) = c.groups.iter().fold((0, 0), |(f, p), g| {
                let (gf, gp) = tallies(g, implied, absent);
                (f + gf, p + gp)
            });
            parts.push(part("fulfilled, all groups", ful as f64));
            parts.push(part("possible, all groups", poss as f64));
            (
                ratio(ful, poss),
                format!(
                    "(preferences fulfilled) / (preferences possible), summed over the groups, 0 if none possible; a preference A > B is fulfilled when the ranking has A above B; pairs counted: {}",
                    kinds(implied, absent)
                ),
            )
        }
        Preference::PerGroup { implied, absent } => {
            let mut sum = 0.0;
            for (i, g) in c.groups.iter().enumerate() {
                let (ful, poss) = tallies(g, implied, absent);
                if poss != 0 {
                    sum += ful as f64 / poss as f64;
                }
                parts.push(part(
                    format!("group {}: {ful} fulfilled / {poss} possible", i + 1),
                    ratio(ful, poss),
                ));
            }
            (
                over_groups(sum, c.groups.len()),
                format!(
                    "per group (fulfilled / possible; 0 if none possible), summed in group order, over the number of groups; pairs counted: {}",
                    kinds(implied, absent)
                ),
            )
        }
        Preference::Rnonrel { retrieved } => {
            let mut sum = 0.0;
            for (i, g) in c.groups.iter().enumerate() {
                let (ful, poss) = rnonrel_tallies(c, g, retrieved);
                sum += ful as f64 / poss as f64;
                let (r, n) = if retrieved {
                    (g.rel_ret, g.nonrel_ret)
                } else {
                    (g.rel, g.nonrel)
                };
                parts.push(part(
                    format!(
                        "group {}: R {r}, N {n}; {ful} fulfilled / {poss} possible",
                        i + 1
                    ),
                    ful as f64 / poss as f64,
                ));
            }
            (
                over_groups(sum, c.groups.len()),
                format!(
                    "per group with R relevant (level > 0) and N nonrelevant documents{}: R >= N: the counts plus R - N fulfilled preferences per relevant retrieved document and R - N possible per relevant one; R < N: counted again with the first R nonrelevant documents only; (fulfilled / possible) summed in group order (0/0 makes the sum NaN), over the number of groups, 0 unless the sum is above 0",
                    if retrieved { " retrieved" } else { "" }
                ),
            )
        }
        Preference::Pair { implied, absent } => {
            let p = c.pair_sums();
            parts.push(part(
                "pairs some group orders, both retrieved",
                p.pairs[0] as f64,
            ));
            parts.push(part("pairs, one retrieved", p.pairs[1] as f64));
            parts.push(part("pairs, neither retrieved", p.pairs[2] as f64));
            parts.push(part(
                "sum of the shares of groups agreeing, pairs both retrieved",
                p.ret,
            ));
            parts.push(part("the same, with the pairs of one retrieved", p.imp));
            let value = match (implied, absent) {
                (false, _) => ratio_f(p.ret, p.pairs[0]),
                (true, false) => ratio_f(p.imp, p.pairs[0] + p.pairs[1]),
                (true, true) => ratio_f(p.imp, p.pairs.iter().sum()),
            };
            (
                value,
                format!(
                    "per pair of documents some group orders, the share of those groups the ranking agrees with (a pair with one retrieved document: agreeing when the retrieved one is preferred; neither: never), summed, over the number of pairs; pairs counted: {}",
                    kinds(implied, absent)
                ),
            )
        }
    };
    Ok(Walkthrough {
        shown: steps.len(),
        steps,
        own: vec![own],
        parts,
        formula,
        columns: vec![("counted", "named"), ("count", "named so far")],
    })
}
