//! Measures over judgment groups (`-R qrels_jg`: m_map_avgjg.c, m_P_avgjg.c,
//! m_Rprec_mult_avgjg.c), and yaap (m_yaap.c), Robertson's smoothed AP on ordinary qrels.
//!
//! Each `_avgjg` measure is its plain measure computed on each group's qrels in turn (the
//! ranking labeled by that group alone, -J dropping the documents that group does not judge),
//! the values added group by group from 0 in the groups' byte order, and divided by the number
//! of groups when there is more than one.

use super::ap::{map, precision_sum, rprec_mult};
use super::precision::{p, Tally};
use super::{single, Kernel, Notes, Query};
use crate::error::Result;
use crate::options::{Options, Request};

/// One judgment group's view of a query: the ranking labeled by its qrels, and its grades.
#[derive(Debug, Default, Clone)]
pub struct GroupRanking {
    pub ranked: Vec<f64>,
    pub judged: Vec<f64>,
}

/// `kernel` on each group of the query, added in order and divided by the number of groups
/// when there is more than one (trec_eval's `_avgjg` rule).
fn averaged(
    q: &Query,
    r: &Request,
    o: &Options,
    notes: &mut Notes,
    out: &mut [f64],
    kernel: Kernel,
) -> Result<()> {
    out.fill(0.0);
    let mut one = vec![0.0; out.len()];
    for group in q.groups {
        let view = Query {
            ranked: &group.ranked,
            judged: &group.judged,
            stand_in: q.stand_in,
            tally: None,
            ties: None,
            groups: &[],
            prefs: None,
            subtopics: None,
            rankings: None,
        };
        one.fill(0.0);
        kernel(&view, r, o, notes, &mut one)?;
        for (sum, value) in out.iter_mut().zip(&one) {
            *sum += value;
        }
    }
    if q.groups.len() > 1 {
        let n = q.groups.len() as f64;
        out.iter_mut().for_each(|v| *v /= n);
    }
    Ok(())
}

/// map averaged over the judgment groups.
pub fn map_avgjg(
    q: &Query,
    r: &Request,
    o: &Options,
    n: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    averaged(q, r, o, n, out, map)
}

/// P at cutoffs averaged over the judgment groups.
pub fn p_avgjg(q: &Query, r: &Request, o: &Options, n: &mut Notes, out: &mut [f64]) -> Result<()> {
    averaged(q, r, o, n, out, p)
}

/// Rprec_mult averaged over the judgment groups.
pub fn rprec_mult_avgjg(
    q: &Query,
    r: &Request,
    o: &Options,
    n: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    averaged(q, r, o, n, out, rprec_mult)
}

/// yaap: ln((1 + S) / (1 + R - S)), S the sum of precision at each relevant retrieved document.
pub fn yaap(q: &Query, _: &Request, o: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    let (sum, _) = precision_sum(q, o.relevance_level);
    let rel = Tally::of(q, o).rel as f64;
    single(out, ((1.0 + sum) / (1.0 + rel - sum)).ln());
    Ok(())
}
