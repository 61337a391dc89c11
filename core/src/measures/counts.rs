//! The bookkeeping measures: runid and num_q (their per-query values are placeholders; the
//! summary makes the tag and the count), num_ret, num_rel, num_rel_ret.

use super::precision::Tally;
use super::{single, Notes, Query};
use crate::error::Result;
use crate::options::{Options, Request};

/// The run tag is printed by the summary; per query: 0.
pub fn runid(_: &Query, _: &Request, _: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    single(out, 0.0);
    Ok(())
}

/// Each evaluated query counts 1.
pub fn num_q(_: &Query, _: &Request, _: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
    single(out, 1.0);
    Ok(())
}

/// Documents ranked (after -M and -J).
pub fn num_ret(
    query: &Query,
    _: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    single(
        out,
        if query.stand_in {
            0.0
        } else {
            query.ranked.len() as f64
        },
    );
    Ok(())
}

/// Judged documents with grade >= -l.
pub fn num_rel(
    query: &Query,
    _: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    single(out, Tally::of(query, options).rel as f64);
    Ok(())
}

/// Ranked documents that are judged (value >= 0) with grade >= -l.
pub fn num_rel_ret(
    query: &Query,
    _: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    single(out, Tally::of(query, options).rel_ret as f64);
    Ok(())
}
