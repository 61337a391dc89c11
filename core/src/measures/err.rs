//! ERR@k, expected reciprocal rank (Chapelle et al. 2009), as gdeval.pl computes it.
//!
//! A user reading down the ranking stops at each document with probability
//! r = (2^grade - 1) / 2^max_grade; ERR@k adds r_i / i times the chance of reaching rank i.
//! The operations are gdeval.pl's, left to right in rank order: `score += r * decay / i`,
//! then `decay *= 1 - r`. A document the qrels do not list (-1), a negative judgment (-2)
//! and grade 0 give r = 0; a grade above max_grade counts as max_grade (gdeval.pl refuses
//! it); a fractional grade (`--fractional-grades`) is the exponent itself, as in the gain
//! schemes.

use super::{cutoffs_of, Notes, Query};
use crate::error::{Error, Result};
use crate::options::{Options, Request};

/// 2^grade stays finite up to this grade.
pub const GRADE_LIMIT: u32 = 1023;

/// 2^n for 0 <= n <= 1023, exactly.
pub(crate) fn pow2(n: u32) -> f64 {
    f64::from_bits(u64::from(1023 + n) << 52)
}

/// 2^grade: exact for whole grades, the C library's exp2 for fractional ones.
pub(crate) fn power(grade: f64) -> f64 {
    if grade.fract() == 0.0 {
        pow2(grade as u32)
    } else {
        grade.exp2()
    }
}

/// ERR at each cutoff (0 for an empty ranking).
pub fn err_cut(
    query: &Query,
    request: &Request,
    options: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    let max_grade = options.err_max_grade;
    if max_grade > GRADE_LIMIT {
        return Err(Error::new(format!(
            "ERR's max_grade must be from 0 to {GRADE_LIMIT}, not {max_grade}"
        )));
    }
    let cutoffs = cutoffs_of(request, out)?;
    let top = pow2(max_grade);
    let (mut score, mut decay) = (0.0, 1.0);
    let mut i = 0;
    for (slot, &k) in out.iter_mut().zip(cutoffs) {
        while i < k.min(query.ranked.len()) {
            let r = (power(query.ranked[i].clamp(0.0, f64::from(max_grade))) - 1.0) / top;
            score += r * decay / (i + 1) as f64;
            decay *= 1.0 - r;
            i += 1;
        }
        *slot = score;
    }
    Ok(())
}
