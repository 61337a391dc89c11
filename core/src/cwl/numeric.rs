//! numpy's arithmetic where cwl_eval leans on it, in numpy's order: `np.sum` is a pairwise
//! sum (blocks of at most 128, eight running sums each), `cumsum`/`cumprod` run left to right.
//! `np.dot` goes to the BLAS, whose order depends on the machine's kernel; here it is a plain
//! left-to-right sum of products (no FMA), equal to the BLAS to about 1e-15.

/// numpy's `np.sum` of a float64 vector (the reduction starts from +0.0).
pub fn np_sum(values: &[f64]) -> f64 {
    0.0 + pairwise(values)
}

/// numpy's pairwise summation (`pairwise_sum` in its loops): exact to its grouping.
fn pairwise(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        return values.iter().fold(-0.0, |sum, v| sum + v);
    }
    if n <= 128 {
        let mut sums = [0.0; 8];
        sums.copy_from_slice(&values[..8]);
        let whole = n - n % 8;
        for block in values[8..whole].chunks_exact(8) {
            for (sum, v) in sums.iter_mut().zip(block) {
                *sum += v;
            }
        }
        let head = ((sums[0] + sums[1]) + (sums[2] + sums[3]))
            + ((sums[4] + sums[5]) + (sums[6] + sums[7]));
        return values[whole..].iter().fold(head, |sum, v| sum + v);
    }
    let half = n / 2;
    let half = half - half % 8;
    pairwise(&values[..half]) + pairwise(&values[half..])
}

/// `np.cumsum`.
pub fn cumsum(values: &[f64]) -> Vec<f64> {
    let mut total = 0.0;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            total = if i == 0 { *v } else { total + v };
            total
        })
        .collect()
}

/// `np.cumprod`.
pub fn cumprod(values: &[f64]) -> Vec<f64> {
    let mut product = 1.0;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            product = if i == 0 { *v } else { product * v };
            product
        })
        .collect()
}

/// `np.dot` of two vectors of one length, summed left to right.
pub fn dot(left: &[f64], right: &[f64]) -> f64 {
    left.iter().zip(right).fold(0.0, |sum, (a, b)| sum + a * b)
}

/// Python's `math.pow`: C's pow, with its errors (a finite overflow is "math range error",
/// a NaN or infinity out of numbers is "math domain error").
pub fn math_pow(base: f64, exponent: f64) -> Result<f64, &'static str> {
    // black_box: the compiler must not turn pow(2, y) into exp2(y) or pow(x, -1) into 1 / x,
    // which may round differently from the C library's pow that Python calls.
    let value = std::hint::black_box(base).powf(std::hint::black_box(exponent));
    let finite_in = base.is_finite() && exponent.is_finite();
    if value.is_nan() && !base.is_nan() && !exponent.is_nan() {
        Err("math domain error")
    } else if value.is_infinite() && finite_in {
        Err(if base == 0.0 { "math domain error" } else { "math range error" })
    } else {
        Ok(value)
    }
}

/// numpy's power of float64 scalars (C's pow, no errors).
pub fn np_pow(base: f64, exponent: f64) -> f64 {
    std::hint::black_box(base).powf(std::hint::black_box(exponent))
}

/// Python's `math.log(x, base)`: log(x) / log(base).
pub fn math_log(x: f64, base: f64) -> f64 {
    x.ln() / base.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_groups_as_numpy() {
        // 1e16 + 1 + ... : the grouping decides which ones survive
        let mut values = vec![1.0; 200];
        values[0] = 1e16;
        let sequential = values.iter().fold(0.0, |s, v| s + v);
        assert_eq!(sequential, 1e16);
        // numpy (2.4) gives 1e16 + 188: values[..96] in eight running sums (the one holding
        // 1e16 loses its eleven ones), then values[96..] (104) apart
        assert_eq!(np_sum(&values), 1e16 + 188.0);
        assert_eq!(np_sum(&[]), 0.0);
        assert!(np_sum(&[-0.0]).is_sign_positive());
    }

    #[test]
    fn python_pow_errors() {
        assert_eq!(math_pow(std::f64::consts::E, 1000.0), Err("math range error"));
        assert_eq!(math_pow(0.0, -1.0), Err("math domain error"));
        assert_eq!(math_pow(-1.0, 0.5), Err("math domain error"));
        assert_eq!(math_pow(2.0, -1.0), Ok(0.5));
    }
}
