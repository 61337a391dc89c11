//! trec_eval's spelling of a number (C's `printf("%6.4f")` under glibc): a leaf, used by the
//! output (trec text) and by the evaluation (whether two values print alike, for the tie check).

use std::io::Write;

/// C's `%6.4f`, with glibc's spelling of NaN (`-nan` with the sign bit set, as x86's 0/0 makes
/// it; `nan` without, as atof("nan") reads it) and of infinities.
pub fn push_number(buf: &mut Vec<u8>, value: f64) {
    if value.is_nan() {
        let text: &[u8] = if value.is_sign_negative() {
            b"  -nan"
        } else {
            b"   nan"
        };
        buf.extend_from_slice(text);
    } else if value.is_infinite() {
        buf.extend_from_slice(if value > 0.0 { b"   inf" } else { b"  -inf" });
    } else {
        let _ = write!(buf, "{value:6.4}");
    }
}

/// A value as trec_eval prints it.
pub fn printed(value: f64) -> Vec<u8> {
    let mut text = Vec::new();
    push_number(&mut text, value);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(v: f64) -> String {
        let mut b = Vec::new();
        push_number(&mut b, v);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn numbers_print_as_printf() {
        // Expected strings are C's printf("%6.4f") of the same doubles.
        assert_eq!(number(0.03125), "0.0312"); // exact tie: round half to even
        assert_eq!(number(0.99995), "1.0000"); // the double is above the tie
        assert_eq!(number(-10.0), "-10.0000");
        assert_eq!(number(-0.0), "-0.0000");
        assert_eq!(number(-f64::NAN), "  -nan");
        assert_eq!(number(f64::NAN), "   nan");
        let zero = std::hint::black_box(0.0);
        assert_eq!(number(zero / zero), "  -nan"); // x86's default NaN
        assert_eq!(number(f64::INFINITY), "   inf");
        assert_eq!(number(f64::NEG_INFINITY), "  -inf");
        assert_eq!(number(664564957.0812), "664564957.0812");
    }
}
