//! `-Z`: each query's values as z-scores, (value - mean) / standard deviation, with the mean
//! and deviation of that query and output line from a file (get_zscores.c, convert_zscores.c).
//! The values are converted before they are added up, so the `all` lines summarise z-scores.
//!
//! trec_eval's rules: a query the file lacks gets MISSING in every line; a line the file lacks
//! for the query gets MISSING; a deviation of 0 gives 0 when the value is the mean, else
//! MISSING. Its binary searches start with the upper bound one past the end, so a name beyond
//! every name of a query is compared with the next query's first one (and found when equal).

/// The value of a z-score that cannot be computed (trec_eval's MISSING_ZSCORE_VALUE).
pub const MISSING: f64 = -1_000_000.0;

/// Means and deviations per (query, line name), sorted by query then name (bytes).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ZScores {
    qids: Vec<Vec<u8>>,
    /// The entries of query i are `first[i]..first[i + 1]`.
    first: Vec<usize>,
    names: Vec<Vec<u8>>,
    mean: Vec<f64>,
    stddev: Vec<f64>,
}

impl ZScores {
    /// From (qid, line name, mean, standard deviation) rows in any order.
    pub fn new(mut rows: Vec<(Vec<u8>, Vec<u8>, f64, f64)>) -> ZScores {
        rows.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        let mut z = ZScores::default();
        for (qid, name, mean, stddev) in rows {
            if z.qids.last() != Some(&qid) {
                z.qids.push(qid);
                z.first.push(z.names.len());
            }
            z.names.push(name);
            z.mean.push(mean);
            z.stddev.push(stddev);
        }
        z.first.push(z.names.len());
        z
    }

    /// trec_eval's search of `key` in `items[lo..=hi]` (`hi` one past the last: an item there
    /// is compared too; None when it is beyond `items`).
    fn search<T: AsRef<[u8]>>(items: &[T], lo: usize, hi: usize, key: &[u8]) -> Option<usize> {
        let (mut start, mut end) = (lo as i64, hi as i64);
        while start <= end {
            let current = ((start + end) / 2) as usize;
            let item = items.get(current)?;
            match key.cmp(item.as_ref()) {
                std::cmp::Ordering::Less => end = current as i64 - 1,
                std::cmp::Ordering::Greater => start = current as i64 + 1,
                std::cmp::Ordering::Equal => return Some(current),
            }
        }
        None
    }

    /// Converts one query's row in place: `names[slot]` is its line's name, None for the
    /// lines that are no numbers (runid, relstring).
    pub fn convert(&self, qid: &[u8], names: &[Option<Vec<u8>>], row: &mut [f64]) {
        let query = Self::search(&self.qids, 0, self.qids.len(), qid);
        for (value, name) in row.iter_mut().zip(names) {
            let Some(name) = name else { continue };
            let Some(q) = query else {
                *value = MISSING;
                continue;
            };
            let (lo, hi) = (self.first[q], self.first[q + 1]);
            *value = match Self::search(&self.names, lo, hi, name) {
                None => MISSING,
                Some(i) if self.stddev[i] != 0.0 => (*value - self.mean[i]) / self.stddev[i],
                Some(i) if *value == self.mean[i] => 0.0,
                Some(_) => MISSING,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> ZScores {
        let row =
            |q: &str, m: &str, mean, sd| (q.as_bytes().to_vec(), m.as_bytes().to_vec(), mean, sd);
        ZScores::new(vec![
            row("2", "map", 0.5, 0.0),
            row("1", "P_5", 0.2, 0.1),
            row("2", "P_5", 0.4, 0.2),
        ])
    }

    #[test]
    fn converts_and_marks_what_is_missing() {
        let names = vec![Some(b"P_5".to_vec()), Some(b"map".to_vec()), None];
        let mut row = [0.6, 0.5, 7.0];
        table().convert(b"2", &names, &mut row);
        assert_eq!(row, [(0.6 - 0.4) / 0.2, 0.0, 7.0]);
        let mut row = [0.6, 0.4, 7.0];
        table().convert(b"2", &names, &mut row);
        assert_eq!(row[1], MISSING); // deviation 0, value not the mean
        let mut row = [0.6, 0.4, 7.0];
        table().convert(b"3", &names, &mut row);
        assert_eq!(row, [MISSING, MISSING, 7.0]);
    }

    #[test]
    fn a_name_past_the_querys_last_is_compared_with_the_next_querys_first() {
        // query 1 has only P_5; "map" sorts after it, and query 2's first name is P_5, not map:
        // missing. Query "1" searched for "P_5"... and for a name equal to query 2's first
        // ("P_5" of "2" when "1" lacks it) it is found there.
        let row =
            |q: &str, m: &str, mean, sd| (q.as_bytes().to_vec(), m.as_bytes().to_vec(), mean, sd);
        let z = ZScores::new(vec![row("1", "M", 0.0, 1.0), row("2", "P_5", 0.5, 0.25)]);
        let mut values = [1.0];
        z.convert(b"1", &[Some(b"P_5".to_vec())], &mut values);
        assert_eq!(values, [(1.0 - 0.5) / 0.25]);
    }
}
