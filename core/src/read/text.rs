//! Identifiers shown in messages, as Python shows them.

use std::fmt::Write;

/// Bytes as Python's `bytes.decode("utf-8", "backslashreplace")`: valid UTF-8 as it is, every
/// other byte as `\xNN`.
pub(crate) fn show(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// An identifier quoted in the manner of Python's `repr` of a str: quotes, backslash escapes for
/// control characters (C0, DEL, C1), `\xNN` for bytes that are not UTF-8.
pub(crate) fn repr(bytes: &[u8]) -> String {
    let has = |c: u8| bytes.contains(&c);
    let quote = if has(b'\'') && !has(b'"') { '"' } else { '\'' };
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push(quote);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c == quote => {
                    out.push('\\');
                    out.push(c);
                }
                c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push(quote);
    out
}

/// A double as Python's `repr(float)`: shortest round trip, `1e+16`, `1e-05`, `inf`, `nan`.
pub(crate) fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format!("{x:?}"); // Rust's Debug: shortest round trip, exponent from 1e16 and below 1e-4
    match s.split_once('e') {
        None => s,
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_escapes_invalid_utf8_only() {
        assert_eq!(show(b"doc-\xc3\xa9"), "doc-\u{e9}");
        assert_eq!(show(b"q\xff"), "q\\xff");
        assert_eq!(show(b"\xe4\xb8"), "\\xe4\\xb8");
        assert_eq!(show(b"\xed\xa0\x80x"), "\\xed\\xa0\\x80x"); // a surrogate is not UTF-8
        assert_eq!(show(b"a\x1cb"), "a\x1cb");
    }

    #[test]
    fn python_reprs() {
        assert_eq!(repr(b"a b"), "'a b'");
        assert_eq!(repr(b""), "''");
        assert_eq!(repr(b"a\tb\n\x00"), "'a\\tb\\n\\x00'");
        assert_eq!(repr(b"it's"), "\"it's\"");
        assert_eq!(repr(b"a\\b\xff"), "'a\\\\b\\xff'");
        assert_eq!(float_repr(2.5), "2.5");
        assert_eq!(float_repr(2.0), "2.0");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1.5e-5), "1.5e-05");
        assert_eq!(float_repr(f64::NAN), "nan");
        assert_eq!(float_repr(f64::NEG_INFINITY), "-inf");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e300), "1e+300");
    }
}
