//! numpy's arithmetic where cwl_eval leans on it, in numpy's order: `np.sum` is a pairwise
//! sum (blocks of at most 128, eight running sums each), `cumsum`/`cumprod` run left to right,
//! `np.dot` is the BLAS's: numpy's wheels ship OpenBLAS, whose ddot kernel depends on the
//! machine (its running sums, their folding, fused multiply-adds); `dot` follows the kernel
//! OpenBLAS picks for this processor (AVX-512: SkylakeX's; AVX2 with FMA: Haswell's; else a
//! left-to-right sum), so the values are numpy's to the bit where the kernel is the one
//! followed, and to about 1e-15 otherwise (docs/cwl.md).

use std::sync::OnceLock;

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

/// A vector's nonzero terms: where they are, and how many lie before each index (so that
/// the terms of any range are found without a search).
pub struct Sparse<'a> {
    values: &'a [f64],
    nonzero: Vec<usize>,
    /// `before[i]`: the nonzero terms at indices below i.
    before: Vec<usize>,
}

impl<'a> Sparse<'a> {
    pub fn new(values: &'a [f64]) -> Sparse<'a> {
        let mut nonzero = Vec::new();
        let mut before = Vec::with_capacity(values.len() + 1);
        for (i, v) in values.iter().enumerate() {
            before.push(nonzero.len());
            if *v != 0.0 {
                nonzero.push(i);
            }
        }
        before.push(nonzero.len());
        Sparse {
            values,
            nonzero,
            before,
        }
    }

    /// How many terms are not zero.
    pub fn count(&self) -> usize {
        self.nonzero.len()
    }

    /// `np_sum(&values[start..])`: numpy's pairwise grouping walked over the nonzero terms
    /// alone, the all-zero blocks skipped. Exact: a zero added to a nonzero sum leaves it as it
    /// is, and a sum of zeros is a zero, which the final `0.0 +` makes +0.0 whatever its sign.
    pub fn tail_sum(&self, start: usize) -> f64 {
        0.0 + self.pairwise(start, self.values.len())
    }

    /// `pairwise(&values[start..end])`.
    fn pairwise(&self, start: usize, end: usize) -> f64 {
        let terms = &self.nonzero[self.before[start]..self.before[end]];
        let values = self.values;
        // with at most two nonzero terms every grouping rounds once, in a + b (zeros add nothing)
        match *terms {
            [] => return 0.0,
            [a] => return values[a],
            [a, b] => return values[a] + values[b],
            _ => {}
        }
        let n = end - start;
        if n < 8 {
            return terms.iter().fold(-0.0, |sum, &i| sum + values[i]);
        }
        if n <= 128 {
            let whole = start + n - n % 8;
            let split = self.before[whole] - self.before[start];
            let mut sums = [0.0f64; 8];
            for &i in &terms[..split] {
                sums[(i - start) % 8] += values[i];
            }
            let head = ((sums[0] + sums[1]) + (sums[2] + sums[3]))
                + ((sums[4] + sums[5]) + (sums[6] + sums[7]));
            return terms[split..].iter().fold(head, |sum, &i| sum + values[i]);
        }
        let half = n / 2;
        let middle = start + half - half % 8;
        self.pairwise(start, middle) + self.pairwise(middle, end)
    }
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

/// How numpy's OpenBLAS sums a dot product on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotOrder {
    /// 32 at a time in four 8-lane running sums, folded to four 4-lane ones, 16 at a time.
    SkylakeX,
    /// 16 at a time in four 4-lane running sums.
    Haswell,
    /// Left to right.
    Plain,
}

/// The order OpenBLAS's dynamic dispatch would pick here (by the processor's features).
pub fn dot_order() -> DotOrder {
    static ORDER: OnceLock<DotOrder> = OnceLock::new();
    *ORDER.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return DotOrder::SkylakeX;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return DotOrder::Haswell;
            }
        }
        DotOrder::Plain
    })
}

/// `np.dot` of two vectors of one length, in the BLAS's order for this machine.
pub fn dot(x: &[f64], y: &[f64]) -> f64 {
    dot_in(dot_order(), x, y)
}

/// `np.dot` in a given kernel's order: its blocks of 16, then the rest one by one (fused in
/// SkylakeX's kernel; a product, then a sum, in Haswell's: both checked against numpy on such
/// machines).
pub fn dot_in(order: DotOrder, x: &[f64], y: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if order != DotOrder::Plain && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: `dot_fma` only enables the FMA instructions, and the processor has them
        // (checked just above); it reads only through the slices.
        return unsafe { dot_fma(order, x, y) };
    }
    dot_body(order, x, y)
}

/// `dot_body` compiled with the processor's fused multiply-add instruction: the same
/// rounding as the library's `fma` (both exact), without a call per product.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn dot_fma(order: DotOrder, x: &[f64], y: &[f64]) -> f64 {
    dot_body(order, x, y)
}

#[inline(always)]
fn dot_body(order: DotOrder, x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    let blocked = match order {
        DotOrder::Plain => return x.iter().zip(y).fold(0.0, |sum, (a, b)| sum + a * b),
        _ if n < 16 => 0.0,
        DotOrder::SkylakeX => skylakex_blocks(&x[..n & !15], &y[..n & !15]),
        DotOrder::Haswell => haswell_blocks(&x[..n & !15], &y[..n & !15]),
    };
    let rest = n & !15..n;
    match order {
        // OpenBLAS's C loop after the blocks: fused in its SkylakeX build, not in its Haswell
        // build (numpy's OpenBLAS 0.3.31 on an AMD EPYC, Haswell kernel: checked against it)
        DotOrder::SkylakeX => rest.fold(blocked, |sum, i| y[i].mul_add(x[i], sum)),
        _ => rest.fold(blocked, |sum, i| sum + y[i] * x[i]),
    }
}

/// Four running sums of 4 lanes each over blocks of 16, fused multiply-adds.
#[inline(always)]
fn lanes16(x: &[f64], y: &[f64], start: usize, sums: &mut [[f64; 4]; 4]) {
    for i in (start..x.len()).step_by(16) {
        for (k, sum) in sums.iter_mut().enumerate() {
            for (l, lane) in sum.iter_mut().enumerate() {
                let j = i + 4 * k + l;
                *lane = x[j].mul_add(y[j], *lane);
            }
        }
    }
}

#[inline(always)]
fn skylakex_blocks(x: &[f64], y: &[f64]) -> f64 {
    let n32 = x.len() & !31;
    let mut wide = [[0.0f64; 8]; 4];
    for i in (0..n32).step_by(32) {
        for (k, sum) in wide.iter_mut().enumerate() {
            for (l, lane) in sum.iter_mut().enumerate() {
                let j = i + 8 * k + l;
                *lane = x[j].mul_add(y[j], *lane);
            }
        }
    }
    let mut sums = [[0.0f64; 4]; 4];
    for (k, sum) in sums.iter_mut().enumerate() {
        for (l, lane) in sum.iter_mut().enumerate() {
            *lane = wide[k][l] + wide[k][l + 4];
        }
    }
    lanes16(x, y, n32, &mut sums);
    let lane = |l: usize| ((sums[0][l] + sums[1][l]) + sums[2][l]) + sums[3][l];
    (lane(0) + lane(2)) + (lane(1) + lane(3))
}

#[inline(always)]
fn haswell_blocks(x: &[f64], y: &[f64]) -> f64 {
    let mut sums = [[0.0f64; 4]; 4];
    lanes16(x, y, 0, &mut sums);
    let folded: Vec<[f64; 2]> = sums.iter().map(|s| [s[0] + s[2], s[1] + s[3]]).collect();
    let pair = |a: [f64; 2], b: [f64; 2]| [a[0] + b[0], a[1] + b[1]];
    let all = pair(pair(folded[0], folded[1]), pair(folded[2], folded[3]));
    all[0] + all[1]
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
        Err(if base == 0.0 {
            "math domain error"
        } else {
            "math range error"
        })
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
    fn the_rest_after_the_blocks_is_fused_in_skylakex_only() {
        // sixteen products of 0 and a seventeenth, 1/3 * 3 after a sum of -1: fused, the
        // product's rounding error survives (2^-54 below 1, minus 1); unfused, 1/3 * 3 rounds
        // to 1 and the sum is 0 (numpy's Haswell kernel gives the latter, its SkylakeX one the
        // former: tests/test_cwl.py holds trecgain to numpy on whichever machine runs it)
        let mut x = [0.0f64; 18];
        let mut y = [0.0f64; 18];
        (x[16], y[16]) = (-1.0, 1.0);
        (x[17], y[17]) = (1.0 / 3.0, 3.0);
        assert_eq!(dot_in(DotOrder::Haswell, &x, &y), 0.0);
        assert_eq!(
            dot_in(DotOrder::SkylakeX, &x, &y),
            3.0f64.mul_add(1.0 / 3.0, -1.0)
        );
        assert_ne!(3.0f64.mul_add(1.0 / 3.0, -1.0), 0.0);
    }

    #[test]
    fn sparse_sums_are_the_dense_sums() {
        let mut x: u64 = 0x2545_f491;
        for round in 0..600 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 700) as usize;
            let values: Vec<f64> = (0..n)
                .map(|i| {
                    let r = x.wrapping_mul(i as u64 + 1).rotate_left(round % 64) >> 40;
                    match r % 9 {
                        0 => 1.0 / (i as f64 + 1.0),
                        1 => 1e16,
                        2 => -0.5 / (i as f64 + 3.0),
                        3 => -0.0,
                        _ => 0.0,
                    }
                })
                .collect();
            let sparse_values = Sparse::new(&values);
            for start in 0..=n {
                let dense = np_sum(&values[start..]);
                let sparse = sparse_values.tail_sum(start);
                assert_eq!(dense.to_bits(), sparse.to_bits(), "n {n} start {start}");
            }
        }
    }

    #[test]
    fn python_pow_errors() {
        assert_eq!(
            math_pow(std::f64::consts::E, 1000.0),
            Err("math range error")
        );
        assert_eq!(math_pow(0.0, -1.0), Err("math domain error"));
        assert_eq!(math_pow(-1.0, 0.5), Err("math domain error"));
        assert_eq!(math_pow(2.0, -1.0), Ok(0.5));
    }
}
