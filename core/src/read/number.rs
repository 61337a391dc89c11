//! Scores and grades: the spellings trecgain 0.1 accepts, the doubles strtod gives.
//!
//! A decimal is `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`, nothing else:
//! no `inf`, `nan`, hex, underscores or spaces (Rust's own parser takes `inf` and `nan`, so the
//! grammar is checked here first). A decimal that overflows to infinity is out of range; one
//! that underflows is 0, as with strtod. An integer grade is `[+-]? digits`, at most 2^53 in
//! magnitude so that every accepted grade is exactly a double.

/// What a decimal token is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Decimal {
    Value(f64),
    NotNumber,
    OutOfRange,
}

/// What an integer grade token is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Grade {
    Value(f64),
    /// Not `[+-]digits`; `looks_fractional`: a finite decimal (the message suggests fractional grades).
    NotInteger {
        looks_fractional: bool,
    },
    OutOfRange,
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The largest integer grade: every integer up to 2^53 is exactly a double.
pub(crate) const MAX_INTEGER_GRADE: u64 = 1 << 53;

#[inline]
pub(crate) fn parse_decimal(tok: &[u8]) -> Decimal {
    let (negative, start) = sign(tok, 0);
    let Some(digits) = significand(tok, start) else {
        return Decimal::NotNumber;
    };
    let Some((exp, end)) = exponent(tok, digits.end) else {
        return Decimal::NotNumber;
    };
    if end != tok.len() {
        return Decimal::NotNumber;
    }
    if !digits.truncated {
        if digits.mantissa == 0 {
            return Decimal::Value(if negative { -0.0 } else { 0.0 });
        }
        if let Some(v) = clinger(digits.mantissa, exp - digits.frac_digits as i64) {
            return Decimal::Value(if negative { -v } else { v });
        }
    }
    // Longer mantissas (17-digit scores) or exponents beyond 10^22: fast_float's
    // Eisel-Lemire, correctly rounded as strtod; what it cannot decide, Rust's own parser.
    match fast_float2::parse::<f64, _>(tok) {
        Ok(v) if v.is_finite() => Decimal::Value(v),
        Ok(_) => Decimal::OutOfRange,
        Err(_) => slow(tok),
    }
}

/// An optional sign at `i`: whether it is '-', and where the number goes on.
#[inline(always)]
fn sign(tok: &[u8], i: usize) -> (bool, usize) {
    match tok.get(i) {
        Some(b'-') => (true, i + 1),
        Some(b'+') => (false, i + 1),
        _ => (false, i),
    }
}

/// A decimal's digits before its exponent, as `significand` reads them.
struct Significand {
    /// Where the digits end.
    end: usize,
    /// The significant digits (exact while `truncated` is false: at most 19 of them).
    mantissa: u64,
    /// Digits after the point.
    frac_digits: usize,
    truncated: bool,
}

/// The digits from `i`: leading zeros (of the integer part, and of the fraction when the
/// integer part is zero) skipped, the rest gathered into the mantissa; None without a digit.
#[inline(always)]
fn significand(tok: &[u8], mut i: usize) -> Option<Significand> {
    let n = tok.len();
    let int_start = i;
    while i < n && tok[i] == b'0' {
        i += 1;
    }
    let mut mantissa: u64 = 0;
    let int_significant_start = i;
    i = digits(tok, i, &mut mantissa);
    let int_significant = i - int_significant_start;
    let int_digits = i - int_start;
    let (mut frac_digits, mut frac_significant) = (0usize, 0usize);
    if i < n && tok[i] == b'.' {
        i += 1;
        let frac_start = i;
        if int_significant == 0 {
            while i < n && tok[i] == b'0' {
                i += 1;
            }
        }
        let significant_start = i;
        i = digits(tok, i, &mut mantissa);
        frac_significant = i - significant_start;
        frac_digits = i - frac_start;
    }
    (int_digits + frac_digits > 0).then_some(Significand {
        end: i,
        mantissa,
        frac_digits,
        truncated: int_significant + frac_significant > 19,
    })
}

/// An optional exponent at `i` (`e` or `E`, a sign, digits; huge ones saturate): its value
/// and where it ends; None for an `e` without digits.
#[inline(always)]
fn exponent(tok: &[u8], i: usize) -> Option<(i64, usize)> {
    if tok.get(i).is_none_or(|&b| (b | 0x20) != b'e') {
        return Some((0, i));
    }
    let (negative, mut i) = sign(tok, i + 1);
    let start = i;
    let mut exp: i64 = 0;
    while i < tok.len() && tok[i].is_ascii_digit() {
        if exp < 1_000_000 {
            exp = exp * 10 + (tok[i] - b'0') as i64;
        }
        i += 1;
    }
    (i > start).then_some((if negative { -exp } else { exp }, i))
}

/// Clinger's fast path: an exact mantissa times an exact power of ten, one correctly rounded
/// operation, the double strtod gives; None where it does not apply.
#[inline(always)]
fn clinger(mantissa: u64, e10: i64) -> Option<f64> {
    if mantissa > MAX_INTEGER_GRADE || !(-22..=22).contains(&e10) {
        return None;
    }
    let m = mantissa as f64;
    Some(if e10 >= 0 {
        m * POW10[e10 as usize]
    } else {
        m / POW10[(-e10) as usize]
    })
}

/// Reads decimal digits from `i` on into `mantissa` (wrapping: exact for up to 19 digits in
/// all), eight at a time where it can; returns the index after the last digit.
#[inline(always)]
fn digits(tok: &[u8], mut i: usize, mantissa: &mut u64) -> usize {
    while let Some(word) = tok.get(i..i + 8) {
        let v = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        // every byte in '0'..='9': high nibble 3, and adding 6 keeps it 3
        if (v & 0xf0f0_f0f0_f0f0_f0f0) != 0x3030_3030_3030_3030
            || (v.wrapping_add(0x0606_0606_0606_0606) & 0xf0f0_f0f0_f0f0_f0f0)
                != 0x3030_3030_3030_3030
        {
            break;
        }
        *mantissa = mantissa
            .wrapping_mul(100_000_000)
            .wrapping_add(eight_digits(v));
        i += 8;
    }
    while i < tok.len() && tok[i].is_ascii_digit() {
        *mantissa = mantissa
            .wrapping_mul(10)
            .wrapping_add((tok[i] - b'0') as u64);
        i += 1;
    }
    i
}

/// The value of eight ASCII digits, the first in the lowest byte (as in Rust's core).
#[inline(always)]
fn eight_digits(v: u64) -> u64 {
    const MASK: u64 = 0x0000_00ff_0000_00ff;
    const MUL1: u64 = 0x000f_4240_0000_0064; // 100 + (1_000_000 << 32)
    const MUL2: u64 = 0x0000_2710_0000_0001; // 1 + (10_000 << 32)
    let mut v = v - 0x3030_3030_3030_3030;
    v = (v * 10) + (v >> 8); // pairs of digits
    let v1 = (v & MASK).wrapping_mul(MUL1);
    let v2 = ((v >> 16) & MASK).wrapping_mul(MUL2);
    (v1.wrapping_add(v2) >> 32) as u32 as u64
}

#[cold]
#[inline(never)]
fn slow(tok: &[u8]) -> Decimal {
    // The grammar above is a subset of Rust's float grammar, whose parser rounds correctly.
    match std::str::from_utf8(tok)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    {
        Some(v) if v.is_finite() => Decimal::Value(v),
        Some(_) => Decimal::OutOfRange,
        None => Decimal::NotNumber,
    }
}

#[inline]
pub(crate) fn parse_integer(tok: &[u8]) -> Grade {
    let (negative, digits) = match tok.first() {
        Some(b'-') => (true, &tok[1..]),
        Some(b'+') => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        let looks_fractional = matches!(parse_decimal(tok), Decimal::Value(_));
        return Grade::NotInteger { looks_fractional };
    }
    let mut value: u64 = 0;
    for &c in digits {
        value = value * 10 + (c - b'0') as u64;
        if value > MAX_INTEGER_GRADE {
            return Grade::OutOfRange;
        }
    }
    let v = value as f64;
    Grade::Value(if negative && value != 0 { -v } else { v }) // "-0" is 0: an integer has no signed zero
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(tok: &str) -> f64 {
        match parse_decimal(tok.as_bytes()) {
            Decimal::Value(v) => v,
            other => panic!("{tok}: {other:?}"),
        }
    }

    #[test]
    fn decimals_accepted_as_python_reads_them() {
        for (tok, want) in [
            ("1", 1.0),
            ("1.", 1.0),
            (".5", 0.5),
            ("-.5", -0.5),
            ("+.5", 0.5),
            ("1e5", 1e5),
            ("1E5", 1e5),
            ("1.e5", 1e5),
            ("1e-5", 1e-5),
            ("1e+5", 1e5),
            ("1e05", 1e5),
            (".1e1", 1.0),
            ("+1e+1", 10.0),
            ("1.5E-3", 0.0015),
            ("00012", 12.0),
            ("00.", 0.0),
            ("1e-999", 0.0),
            ("0e999", 0.0),
            ("14.632499694824219", 14.632499694824219),
            ("0.1234567890123456789", 0.12345678901234568),
            ("999999999999999999999999999999", 1e30),
            ("12.3456", 12.3456),
            ("-3.25", -3.25),
            ("9007199254740993", 9007199254740992.0),
            ("1.7976931348623157e308", f64::MAX),
            ("4.9e-324", 5e-324),
        ] {
            assert_eq!(value(tok), want, "{tok}");
            assert_eq!(value(tok), tok.parse::<f64>().unwrap(), "{tok}");
        }
        assert!(value("-0").is_sign_negative());
        assert!(value("-0.0e5").is_sign_negative());
        assert!(value("0").is_sign_positive());
    }

    #[test]
    fn decimals_refused() {
        for tok in [
            "", ".", "-", "+", "1e", "1e+", ".e5", "e5", "--1", "+-1", "1e5.5", "1ee5", "1e5e",
            "1.2.3", "1-2", "1+", "high", "1,5", "e", "E", "-e5", "-.", "+.", "-.e1", "1.e",
            "0x1p3", "inf", "nan", "infinity", "-inf", "NaN", "1_0", "\u{e9}", " 1", "1 ",
            "\u{663}", "1e-", "1d5", "0x10", "1f",
        ] {
            assert_eq!(parse_decimal(tok.as_bytes()), Decimal::NotNumber, "{tok:?}");
        }
        assert_eq!(parse_decimal(b"\xff"), Decimal::NotNumber);
        for tok in ["1e999", "-1e999", "1e309", "2e308", "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"] {
            assert_eq!(parse_decimal(tok.as_bytes()), Decimal::OutOfRange, "{tok}");
        }
    }

    #[test]
    fn fast_path_matches_std_on_many_numbers() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 20) as usize + 1;
            let mantissa = (x >> 8) % 10u64.pow(digits.min(19) as u32);
            let point = (x >> 40) as usize % (digits + 1);
            let mut s = format!("{mantissa:0digits$}");
            s.insert(point, '.');
            if x & 1 == 1 {
                s.insert(0, '-');
            }
            if x & 2 == 2 {
                s.push_str(&format!("e{}", ((x >> 50) % 60) as i64 - 30));
            }
            let want: f64 = s.parse().unwrap();
            match parse_decimal(s.as_bytes()) {
                Decimal::Value(v) => assert_eq!(v.to_bits(), want.to_bits(), "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
    }

    #[test]
    fn long_mantissas_match_std() {
        let mut x: u64 = 0x1234_5678_9abc_def1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..300_000 {
            let w = match next() % 4 {
                0 => next(),
                1 => (1u64 << 53) + next() % (1u64 << 11) * 2 + 1, // halfway between doubles
                2 => next() % 100_000_000_000_000_000 + 10_000_000_000_000_000,
                _ => next() >> (next() % 64),
            };
            let q = (next() % 140) as i64 - 70;
            let text = format!("{w}e{q}");
            let want: f64 = text.parse().unwrap();
            match parse_decimal(text.as_bytes()) {
                Decimal::Value(v) => assert_eq!(v.to_bits(), want.to_bits(), "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        // exact integers past 2^53 round to even
        for w in (1u64 << 53)..(1u64 << 53) + 1000 {
            assert_eq!(
                parse_decimal(w.to_string().as_bytes()),
                Decimal::Value(w as f64)
            );
        }
    }

    #[test]
    fn integers() {
        assert_eq!(parse_integer(b"2"), Grade::Value(2.0));
        assert_eq!(parse_integer(b"-1"), Grade::Value(-1.0));
        assert_eq!(parse_integer(b"+3"), Grade::Value(3.0));
        assert_eq!(parse_integer(b"0007"), Grade::Value(7.0));
        let zero = parse_integer(b"-0");
        assert!(matches!(zero, Grade::Value(v) if v == 0.0 && v.is_sign_positive()));
        assert_eq!(
            parse_integer(b"999999999999999"),
            Grade::Value(999999999999999.0)
        );
        assert_eq!(
            parse_integer(b"9007199254740992"),
            Grade::Value(9007199254740992.0)
        );
        assert_eq!(
            parse_integer(b"-9007199254740992"),
            Grade::Value(-9007199254740992.0)
        );
        assert_eq!(parse_integer(b"9007199254740993"), Grade::OutOfRange);
        assert_eq!(parse_integer(b"-9007199254740993"), Grade::OutOfRange);
        assert_eq!(parse_integer(b"99999999999999999999"), Grade::OutOfRange);
        assert_eq!(
            parse_integer(b"0000000000000000000000000001"),
            Grade::Value(1.0)
        );
        for tok in [
            "2.5",
            "1.",
            ".5",
            "1e3",
            "-.5",
            "1e-999",
            "0.1234567890123456789",
        ] {
            assert_eq!(
                parse_integer(tok.as_bytes()),
                Grade::NotInteger {
                    looks_fractional: true
                },
                "{tok}"
            );
        }
        for tok in [
            "", "-", "+", "yes", "1e999", "inf", "nan", "1_0", "0x10", "1e", "\u{663}", "+-1",
        ] {
            assert_eq!(
                parse_integer(tok.as_bytes()),
                Grade::NotInteger {
                    looks_fractional: false
                },
                "{tok}"
            );
        }
    }
}
