//! Identifiers (qids, docnos) as variable-length byte strings stored end to end:
//! one long docno costs its own bytes, never a wider column for every row.

/// An identifier's first `N` bytes, zero-padded: read big-endian as an integer, a key that
/// orders as the identifiers do where two keys differ (at the first byte where they differ
/// either both identifiers have a byte, or the shorter ends and the other's byte is not 0, so
/// the shorter is also first by bytes); equal keys say nothing, and the identifiers themselves
/// are compared. Sorting on keys first spares most comparisons of bytes.
#[inline]
pub fn prefix<const N: usize>(id: &[u8]) -> [u8; N] {
    let mut first = [0u8; N];
    let n = id.len().min(N);
    first[..n].copy_from_slice(&id[..n]);
    first
}

#[derive(Debug, Default, Clone)]
pub struct Arena {
    bytes: Vec<u8>,
    ends: Vec<u64>,
}

impl Arena {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(items: usize, bytes: usize) -> Self {
        Arena {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(items),
        }
    }

    /// An arena from its bytes and the end of each identifier in them (non-decreasing, the
    /// last one `bytes.len()`).
    pub fn from_parts(bytes: Vec<u8>, ends: Vec<u64>) -> Self {
        let covered = ends.last().map_or(0, |&e| e as usize);
        assert_eq!(covered, bytes.len(), "the ends do not cover the bytes");
        debug_assert!(ends.windows(2).all(|w| w[0] <= w[1]));
        Arena { bytes, ends }
    }

    /// Room for `items` more identifiers of `bytes` more bytes in all.
    pub fn reserve(&mut self, items: usize, bytes: usize) {
        self.bytes.reserve(bytes);
        self.ends.reserve(items);
    }

    /// No identifiers left (the room they had is kept).
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    /// Bytes of all identifiers together.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// Appends an identifier and returns its index.
    #[inline]
    pub fn push(&mut self, id: &[u8]) -> usize {
        self.bytes.extend_from_slice(id);
        self.ends.push(self.bytes.len() as u64);
        self.ends.len() - 1
    }

    /// Appends every identifier of another arena, in order.
    pub fn extend(&mut self, other: &Arena) {
        let base = self.bytes.len() as u64;
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|e| e + base));
    }

    /// Appends the identifiers `range` of another arena, in order (one copy of their bytes).
    pub fn extend_from_range(&mut self, other: &Arena, range: std::ops::Range<usize>) {
        if range.is_empty() {
            return;
        }
        let start = if range.start == 0 {
            0
        } else {
            other.ends[range.start - 1]
        };
        let end = other.ends[range.end - 1];
        let base = self.bytes.len() as u64;
        self.bytes
            .extend_from_slice(&other.bytes[start as usize..end as usize]);
        self.ends
            .extend(other.ends[range].iter().map(|e| e - start + base));
    }

    #[inline]
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Keeps only the identifiers `kept` (strictly increasing indices), in that order, moved
    /// to the front in place: no second copy of the bytes.
    pub fn keep(&mut self, kept: &[u32]) {
        debug_assert!(kept.windows(2).all(|w| w[0] < w[1]));
        let mut write = 0usize;
        for (i, &k) in kept.iter().enumerate() {
            let k = k as usize;
            // identifier k's bounds, read before ends[i] is written (i <= k, and every end
            // below i already written held its old value whenever i == k)
            let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
            let end = self.ends[k] as usize;
            self.bytes.copy_within(start..end, write);
            write += end - start;
            self.ends[i] = write as u64;
        }
        self.bytes.truncate(write);
        self.ends.truncate(kept.len());
    }

    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_get_extend() {
        let mut a = Arena::new();
        assert_eq!(a.push(b"q1"), 0);
        assert_eq!(a.push(b""), 1);
        assert_eq!(a.push(b"\xffdoc"), 2);
        let mut b = Arena::new();
        b.push(b"x");
        b.extend(&a);
        assert_eq!(
            b.iter().collect::<Vec<_>>(),
            vec![&b"x"[..], b"q1", b"", b"\xffdoc"]
        );
        let mut c = Arena::new();
        c.push(b"y");
        c.extend_from_range(&b, 2..4);
        c.extend_from_range(&b, 0..1);
        c.extend_from_range(&b, 3..3);
        assert_eq!(
            c.iter().collect::<Vec<_>>(),
            vec![&b"y"[..], b"", b"\xffdoc", b"x"]
        );
    }

    #[test]
    fn keep_moves_the_kept_to_the_front() {
        let ids: [&[u8]; 6] = [b"a", b"bb", b"", b"ccc", b"d", b"ee"];
        for kept in [
            vec![],
            vec![0, 1, 2, 3, 4, 5],
            vec![0, 1, 3, 5],
            vec![1, 2, 4],
            vec![5],
        ] {
            let mut a = Arena::new();
            ids.iter().for_each(|id| {
                a.push(id);
            });
            a.keep(&kept);
            let expected: Vec<&[u8]> = kept.iter().map(|&k| ids[k as usize]).collect();
            assert_eq!(a.iter().collect::<Vec<_>>(), expected);
            assert_eq!(
                a.byte_len(),
                expected.iter().map(|id| id.len()).sum::<usize>()
            );
        }
    }

    #[test]
    fn prefixes_that_differ_order_as_the_identifiers() {
        let ids: [&[u8]; 9] = [
            b"",
            b"a",
            b"a\0",
            b"ab",
            b"abcdefgh",
            b"abcdefghi",
            b"abcdefgh\0",
            b"b",
            b"\xff",
        ];
        for a in ids {
            for b in ids {
                let (ka, kb) = (u64::from_be_bytes(prefix(a)), u64::from_be_bytes(prefix(b)));
                if ka != kb {
                    assert_eq!(ka.cmp(&kb), a.cmp(b), "{a:?} {b:?}");
                }
                let (la, lb) = (
                    u128::from_be_bytes(prefix(a)),
                    u128::from_be_bytes(prefix(b)),
                );
                if la != lb {
                    assert_eq!(la.cmp(&lb), a.cmp(b), "{a:?} {b:?}");
                }
            }
        }
        assert_eq!(prefix::<4>(b"ab"), *b"ab\0\0");
    }
}
