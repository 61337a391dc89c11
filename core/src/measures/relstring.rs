//! relstring (m_relstring.c): the relevance values of the first N ranked documents (N =
//! params[0], default 10) as characters, one slot per character (0 past the end). Printed
//! per query only.

use super::{Notes, Query};
use crate::error::Result;
use crate::label::{NOT_IN_QRELS, UNJUDGED};
use crate::options::{Options, Request};

/// How many characters (output slots) a request shows.
pub fn length(request: &Request) -> usize {
    super::numbers_or(request, &[super::defaults::RELSTRING_LENGTH])
        .first()
        .map_or(0, |&n| n.max(0.0) as usize)
}

/// One document's character: its grade 0-9, '>' above 9, '-' not in the qrels, '.' judged
/// negative (in the pool, unjudged), '<' for any other value.
pub(crate) fn character(value: f64) -> u8 {
    if value > 9.0 {
        b'>'
    } else if value >= 0.0 {
        b'0' + value as u8
    } else if value == NOT_IN_QRELS {
        b'-'
    } else if value == UNJUDGED {
        b'.'
    } else {
        b'<'
    }
}

pub fn relstring(
    q: &Query,
    r: &Request,
    _: &Options,
    _: &mut Notes,
    out: &mut [f64],
) -> Result<()> {
    out.fill(0.0);
    if q.stand_in && r.params.is_empty() {
        return Ok(()); // trec_eval 10 clears a plainly named relstring of a -c stand-in
    }
    for (slot, &v) in out.iter_mut().zip(q.ranked) {
        *slot = f64::from(character(v));
    }
    Ok(())
}
