//! Splitting lines into fields: any run of C `isspace` bytes (space, \t, \n, \v, \f, \r)
//! separates fields; every other byte, NUL and other control bytes included, belongs to a field.

/// C's `isspace` in the "C" locale.
pub(crate) const WS: [bool; 256] = {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\n' as usize] = true;
    t[0x0b] = true;
    t[0x0c] = true;
    t[b'\r' as usize] = true;
    t
};

#[inline(always)]
pub(crate) fn is_ws(b: u8) -> bool {
    WS[b as usize]
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `w` that is at most 32 (whitespace candidates), exactly per
/// byte: `(w | HI) - 33 * LO` cannot borrow across bytes since every byte of `w | HI` is >= 128.
#[inline(always)]
fn at_most_32(w: u64) -> u64 {
    !((w | HI).wrapping_sub(33 * LO)) & !w & HI
}

/// The index of the first whitespace byte at or after `p`.
///
/// The caller guarantees that `data[p..]` holds a whitespace byte (every chunk ends with '\n'):
/// the 8-byte loads may look past it, but the first match found is never beyond it.
#[inline(always)]
pub(crate) fn token_end(data: &[u8], mut p: usize) -> usize {
    loop {
        match data.get(p..p + 8) {
            Some(word) => {
                let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                let m = at_most_32(w);
                if m == 0 {
                    p += 8;
                    continue;
                }
                let q = p + (m.trailing_zeros() / 8) as usize;
                if is_ws(data[q]) {
                    return q;
                }
                p = q + 1; // a control byte that is not whitespace: part of the field
            }
            None => {
                while !is_ws(data[p]) {
                    p += 1;
                }
                return p;
            }
        }
    }
}

/// One 64-byte block from `p`: bit i of the first mask is set if byte `p + i` is whitespace,
/// of the second if it is '\n'. The caller guarantees `p + 64 <= data.len()`.
#[inline(always)]
fn block_masks(data: &[u8], p: usize) -> (u64, u64) {
    let block: &[u8; 64] = data[p..p + 64].try_into().expect("64 bytes");
    masks64(block)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn masks64(block: &[u8; 64]) -> (u64, u64) {
    // SAFETY: `masks64_sse2` needs SSE2, and this code is compiled only where the target has
    // it (the cfg above: SSE2 is part of the x86_64 baseline); it reads only through `block`.
    unsafe { masks64_sse2(block) }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn masks64_sse2(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let mut ws = 0u64;
    let mut nl = 0u64;
    for k in 0..4 {
        let word = |i: usize| {
            u64::from_le_bytes(block[16 * k + i..16 * k + i + 8].try_into().expect("8")) as i64
        };
        let v = _mm_set_epi64x(word(8), word(0));
        let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8));
        let y = _mm_sub_epi8(v, _mm_set1_epi8(9)); // \t \n \v \f \r are 9..=13
        let control = _mm_cmpeq_epi8(_mm_min_epu8(y, _mm_set1_epi8(4)), y);
        let newline = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8));
        ws |= (_mm_movemask_epi8(_mm_or_si128(space, control)) as u32 as u64) << (16 * k);
        nl |= (_mm_movemask_epi8(newline) as u32 as u64) << (16 * k);
    }
    (ws, nl)
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn masks64(block: &[u8; 64]) -> (u64, u64) {
    masks64_swar(block)
}

/// The same masks with 64-bit arithmetic, exactly per byte (no borrow crosses a byte: every
/// byte of `w | HI` is at least 128 and nothing larger than 127 is subtracted from it).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline(always)]
fn masks64_swar(block: &[u8; 64]) -> (u64, u64) {
    // the high bit of each byte, gathered into the low 8 bits (byte j to bit j)
    let gather = |m: u64| ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
    let mut ws = 0u64;
    let mut nl = 0u64;
    for k in 0..8 {
        let w = u64::from_le_bytes(block[8 * k..8 * k + 8].try_into().expect("8"));
        let ascii = !w & HI;
        let x = w | HI;
        let ge9 = x.wrapping_sub(9 * LO);
        let ge14 = x.wrapping_sub(14 * LO);
        let space = !(x ^ (0x20 * LO)).wrapping_sub(LO);
        let newline = !(x ^ (0x0a * LO)).wrapping_sub(LO);
        ws |= gather(((ge9 & !ge14) | space) & ascii) << (8 * k);
        nl |= gather(newline & ascii) << (8 * k);
    }
    (ws, nl)
}

/// Splits the line that starts at `start`: the (start, end) of its first `f.len() / 2` fields
/// go to `f`; returns the number of fields and the index of the line's '\n'.
///
/// The caller guarantees a '\n' at or after `start` in `data`.
#[inline(always)]
pub(crate) fn split_line(data: &[u8], start: usize, f: &mut [usize]) -> (usize, usize) {
    let want = f.len() / 2;
    let mut fields = 0usize;
    let mut p = start;
    let mut prev_ws = 1u64; // the byte before a line is whitespace ('\n')
    let mut open = usize::MAX; // start of a field running on into the next block
    while p + 64 <= data.len() {
        let (ws, nl) = block_masks(data, p);
        let first_nl = nl & nl.wrapping_neg();
        let inside = first_nl.wrapping_sub(1); // bytes before the '\n' (all if none)
        let before = (ws << 1) | prev_ws; // bit i: byte i - 1 is whitespace
        let mut starts = !ws & before & inside;
        let mut ends = ws & !before & (inside | first_nl);
        if open != usize::MAX && ends != 0 {
            let e = p + ends.trailing_zeros() as usize;
            ends &= ends - 1;
            if fields < want {
                f[2 * fields] = open;
                f[2 * fields + 1] = e;
            }
            fields += 1;
            open = usize::MAX;
        }
        while starts != 0 {
            let s = p + starts.trailing_zeros() as usize;
            starts &= starts - 1;
            if ends == 0 {
                open = s;
                break;
            }
            let e = p + ends.trailing_zeros() as usize;
            ends &= ends - 1;
            if fields < want {
                f[2 * fields] = s;
                f[2 * fields + 1] = e;
            }
            fields += 1;
        }
        if first_nl != 0 {
            return (fields, p + first_nl.trailing_zeros() as usize);
        }
        prev_ws = ws >> 63;
        p += 64;
    }
    // near the end of the buffer: byte by byte
    if open != usize::MAX {
        p = open;
    } else if prev_ws == 0 {
        // p is inside a field that began in an earlier block: cannot happen (it would be open)
        debug_assert!(false);
    }
    loop {
        while is_ws(data[p]) {
            if data[p] == b'\n' {
                return (fields, p);
            }
            p += 1;
        }
        let s = p;
        p = token_end(data, p);
        if fields < want {
            f[2 * fields] = s;
            f[2 * fields + 1] = p;
        }
        fields += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_is_exact_per_byte() {
        for b in 0..=255u8 {
            for pos in 0..8 {
                let mut bytes = [b'x'; 8];
                bytes[pos] = b;
                let m = at_most_32(u64::from_le_bytes(bytes));
                let want = if b <= 32 { 0x80u64 << (8 * pos) } else { 0 };
                assert_eq!(m, want, "byte {b} at {pos}");
            }
        }
        // neighbours never leak into each other (no borrow between bytes)
        let m = at_most_32(u64::from_le_bytes([0, 33, 0, 255, 32, 128, 160, 1]));
        assert_eq!(m, 0x80 | 0x80 << 16 | 0x80 << 32 | 0x80 << 56);
    }

    #[test]
    fn block_masks_are_exact() {
        let mut x: u64 = 0x1234_5678;
        for round in 0..2000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = if round % 2 == 0 {
                    x as u8
                } else {
                    b" \t\n\x0b\x0c\rab\x00\x08\x0e\x1f!\x80\xa0\xff"[(x % 16) as usize]
                };
            }
            let want_ws = (0..64).fold(0u64, |m, i| m | (is_ws(block[i]) as u64) << i);
            let want_nl = (0..64).fold(0u64, |m, i| m | ((block[i] == b'\n') as u64) << i);
            assert_eq!(masks64(&block), (want_ws, want_nl));
            assert_eq!(masks64_swar(&block), (want_ws, want_nl));
        }
    }

    /// The fields and the line end, the slow way.
    fn split_naive(line: &[u8]) -> (Vec<(usize, usize)>, usize) {
        let nl = line.iter().position(|&c| c == b'\n').unwrap();
        let mut fields = Vec::new();
        let mut i = 0;
        while i < nl {
            if is_ws(line[i]) {
                i += 1;
                continue;
            }
            let s = i;
            while !is_ws(line[i]) {
                i += 1;
            }
            fields.push((s, i));
        }
        (fields, nl)
    }

    #[test]
    fn split_line_matches_naive_splitting() {
        let mut x: u64 = 0x9876_5432;
        let alphabet = b"  \t\tabcdefgh\x0b\x0c\r\x00\x01\xff#";
        for round in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 300) as usize;
            let mut data: Vec<u8> = (0..len)
                .map(|i| alphabet[((x >> (i % 50)) as usize + i * 7 + round) % alphabet.len()])
                .collect();
            let lead = (x >> 20) as usize % 70;
            let mut buf = vec![b'x'; lead];
            buf.append(&mut data);
            buf.push(b'\n');
            buf.extend_from_slice(b"after the line\n");
            let pad = (x >> 30) as usize % 80;
            buf.extend(std::iter::repeat_n(b'z', pad));
            let (want, want_nl) = split_naive(&buf[lead..]);
            for k in [0usize, 1, 4, 6, 12] {
                let mut f = vec![0usize; 2 * k];
                let (n, nl) = split_line(&buf, lead, &mut f);
                assert_eq!(
                    (n, nl - lead),
                    (want.len(), want_nl),
                    "{:?}",
                    String::from_utf8_lossy(&buf)
                );
                for j in 0..k.min(n) {
                    assert_eq!((f[2 * j] - lead, f[2 * j + 1] - lead), want[j]);
                }
            }
        }
    }

    #[test]
    fn token_end_finds_first_whitespace() {
        let data = b"abc\x01def\x1fghij\tk\n";
        assert_eq!(token_end(data, 0), 12);
        assert_eq!(token_end(data, 13), 14);
        for start in 0..12 {
            assert_eq!(token_end(data, start), 12);
        }
        let data = b"ab\x0bc";
        assert_eq!(token_end(data, 0), 2);
        let data = b"abcdefghijklmnopq r";
        assert_eq!(token_end(data, 0), 17);
        assert_eq!(token_end(b"\xff\xfe\x80\xa0\x85\xc2\x85 ", 0), 7);
    }
}
