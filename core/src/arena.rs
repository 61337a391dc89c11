//! Identifiers (qids, docnos) as variable-length byte strings stored end to end:
//! one long docno costs its own bytes, never a wider column for every row.

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
        Arena { bytes: Vec::with_capacity(bytes), ends: Vec::with_capacity(items) }
    }

    /// Appends an identifier and returns its index.
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
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![&b"x"[..], b"q1", b"", b"\xffdoc"]);
    }
}
