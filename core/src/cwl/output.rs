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
    } else {
        let _ = write!(out, "{value:.4}");
    }
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
}
