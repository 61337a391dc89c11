//! Ids given in memory (a dict's keys, a DataFrame's or a list's cells) as the core reads
//! them: the bytes of a str (UTF-8, surrogateescape) or of a bytes, or a whole number's
//! decimal text; and the rule every id must meet (trecgain.check.key's, for the bytes).

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use trecgain_core::read::{separates, MAX_ID_BYTES};

/// An id given in memory as the core reads it: a str's UTF-8 (surrogateescape's '\udc80' to
/// '\udcff' as the bytes they stand for), a bytes' bytes; None for anything else (another
/// type, a lone surrogate that stands for no byte).
pub fn id_bytes<'a>(item: &'a Bound<'_, PyAny>) -> Option<Cow<'a, [u8]>> {
    if let Ok(text) = item.downcast::<PyString>() {
        if let Ok(utf8) = text.to_str() {
            return Some(Cow::Borrowed(utf8.as_bytes()));
        }
        // SAFETY: text is a live str; the call returns a new reference or NULL with an error set,
        // which from_owned_ptr_or_err takes (a subclass's own encode() is not called).
        let encoded = unsafe {
            Bound::from_owned_ptr_or_err(
                item.py(),
                pyo3::ffi::PyUnicode_AsEncodedString(
                    text.as_ptr(),
                    c"utf-8".as_ptr(),
                    c"surrogateescape".as_ptr(),
                ),
            )
        };
        let encoded = encoded.ok()?;
        let bytes = encoded.downcast::<PyBytes>().ok()?;
        return Some(Cow::Owned(bytes.as_bytes().to_vec()));
    }
    item.downcast::<PyBytes>()
        .ok()
        .map(|b| Cow::Borrowed(b.as_bytes()))
}

/// An id the file readers would read: not empty, no ASCII whitespace or NUL, at most
/// MAX_ID_BYTES bytes (trecgain.check.key's rule for the bytes).
pub fn good_id(id: &[u8]) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_BYTES && !id.iter().any(|&c| separates(c))
}

/// A whole number's decimal digits as an id, kept in place (at most 20 bytes:
/// "-9223372036854775808", "18446744073709551615").
pub struct Digits {
    digits: [u8; 20],
    from: usize,
}

impl Digits {
    pub fn signed(n: i64) -> Self {
        Digits::number(n < 0, n.unsigned_abs())
    }

    pub fn number(negative: bool, mut magnitude: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut from = digits.len();
        loop {
            from -= 1;
            digits[from] = b'0' + (magnitude % 10) as u8;
            magnitude /= 10;
            if magnitude == 0 {
                break;
            }
        }
        if negative {
            from -= 1;
            digits[from] = b'-';
        }
        Digits { digits, from }
    }
}

impl AsRef<[u8]> for Digits {
    fn as_ref(&self) -> &[u8] {
        &self.digits[self.from..]
    }
}
