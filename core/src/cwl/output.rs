//! `trecgain cwl`'s output as cwl_eval prints it: a line per ranking and metric, the topic,
//! the metric's name and its values, tab-separated, each as Python's `{:.4f}`.

use std::io::Write;

pub const HEADER: &str = "Topic\tMetric\tEU\tETU\tEC\tETC\tED";
pub const RESIDUAL_HEADER: &str =
    "Topic\tMetric\tEU\tETU\tEC\tETC\tED\tResEU\tResETU\tResEC\tResETC\tResED";

/// Python's `format(value, ".4f")`: correctly rounded (half to even on the exact binary
/// value, as Rust's own fixed formatting), `nan` whatever its sign, `inf`, `-inf`, `-0.0000`.
pub fn push_fixed4(out: &mut Vec<u8>, value: f64) {
    if value.is_nan() {
        out.extend_from_slice(b"nan");
    } else if value.is_infinite() {
        out.extend_from_slice(if value > 0.0 { b"inf" } else { b"-inf" });
    } else if let Some(units) = ten_thousandths(value) {
        if value.is_sign_negative() {
            out.push(b'-');
        }
        let _ = write!(out, "{}.{:04}", units / 10_000, units % 10_000);
    } else {
        let _ = write!(out, "{value:.4}");
    }
}

/// |value| in ten-thousandths, rounded as `{:.4}` rounds the exact binary value, when the
/// product value * 10^4 tells it: that product is off the exact one by at most half its ulp,
/// so where its fraction is further than two ulps from one half, the exact one rounds the same
/// way (and is no tie). None otherwise (near a tie, or too large): Rust's formatting decides.
fn ten_thousandths(value: f64) -> Option<u64> {
    let x = (value * 10_000.0).abs();
    if x >= 1e15 {
        return None;
    }
    let whole = x.floor();
    let fraction = x - whole; // exact below 2^52
    let margin = 2.0 * f64::EPSILON * x.max(1.0); // at least two ulps of x
    if (fraction - 0.5).abs() <= margin {
        return None;
    }
    Some(whole as u64 + u64::from(fraction > 0.5))
}

/// The lines of rankings `topics` (their ids) by metrics `names`, `values` holding 5 (10 with
/// residuals) per ranking and metric in that order; the header first when `colnames`.
pub fn text<'a>(
    topics: impl Iterator<Item = &'a [u8]>,
    names: &[String],
    values: &[f64],
    residuals: bool,
    colnames: bool,
) -> Vec<u8> {
    let width = if residuals { 10 } else { 5 };
    let mut out = Vec::with_capacity(values.len() / width * 64 + 128);
    if colnames {
        out.extend_from_slice(if residuals { RESIDUAL_HEADER } else { HEADER }.as_bytes());
        out.push(b'\n');
    }
    let mut rows = values.chunks_exact(width);
    for topic in topics {
        for (name, row) in names.iter().zip(rows.by_ref()) {
            out.extend_from_slice(topic);
            out.push(b'\t');
            out.extend_from_slice(name.as_bytes());
            for value in row {
                out.push(b'\t');
                push_fixed4(&mut out, *value);
            }
            out.push(b'\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(value: f64) -> String {
        let mut out = Vec::new();
        push_fixed4(&mut out, value);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn numbers_as_python_formats_them() {
        // Python: format(x, ".4f") of the same doubles
        assert_eq!(fixed(0.03125), "0.0312"); // an exact tie, to even
        assert_eq!(fixed(0.00015), "0.0001"); // the double is below the tie
        assert_eq!(fixed(2.5), "2.5000");
        assert_eq!(fixed(-0.0), "-0.0000");
        assert_eq!(fixed(-0.00001), "-0.0000");
        assert_eq!(fixed(-f64::NAN), "nan");
        assert_eq!(fixed(f64::NEG_INFINITY), "-inf");
        assert_eq!(fixed(1e17), "100000000000000000.0000");
    }

    /// The fast path agrees with Rust's own fixed formatting, near ties and far from them.
    #[test]
    fn ten_thousandths_round_as_the_formatting_does() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut values = vec![
            0.0,
            5e-5,
            1.5e-4,
            0.03125,
            0.99995,
            999.99995,
            1e11 + 0.5e-4,
        ];
        for _ in 0..50_000 {
            let units = (next() % 100_000_000) as f64;
            let tie = (units + 0.5) / 10_000.0; // a decimal tie, as the nearest double
            let nudge = f64::from_bits(tie.to_bits() + (next() % 5)) - tie;
            values.extend([tie, tie - nudge, tie + nudge, units / 10_000.0]);
            values.push(f64::from_bits(next() >> 2) % 1e9); // anywhere
        }
        let mut fast = 0;
        for v in values.into_iter().flat_map(|v| [v, -v]) {
            let mut own = Vec::new();
            let _ = write!(own, "{v:.4}");
            assert_eq!(fixed(v).as_bytes(), own, "{v:e}");
            fast += usize::from(ten_thousandths(v).is_some());
        }
        assert!(fast > 250_000, "the fast path was taken {fast} times");
    }
}
