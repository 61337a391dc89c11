//! Stage 5: the `all` value of each output line, from the per-query values in query order.

use crate::options::Summary;
use crate::read::Qrels;

/// Running totals of every output line, rows added in query order, as trec_eval adds them.
#[derive(Debug, Clone)]
pub struct Totals {
    totals: Vec<f64>,
    queries: usize,
}

impl Totals {
    pub fn new(width: usize) -> Self {
        Totals {
            totals: vec![0.0; width],
            queries: 0,
        }
    }

    /// Adds one query's values (one per line).
    pub fn add(&mut self, row: &[f64]) {
        for (total, v) in self.totals.iter_mut().zip(row) {
            *total += v;
        }
        self.queries += 1;
    }

    /// The `all` value of each line, given how each is summarised.
    pub fn finish(&self, summaries: &[Summary], qrels: &Qrels, complete: bool) -> Vec<f64> {
        self.totals
            .iter()
            .zip(summaries)
            .map(|(&total, &summary)| match summary {
                Summary::Mean if self.queries == 0 => 0.0,
                Summary::Mean => total / self.queries as f64,
                Summary::Sum => total,
                Summary::SumJudgedRelevant if complete => {
                    qrels.grades.iter().filter(|&&g| g > 0.0).count() as f64
                }
                Summary::SumJudgedRelevant => total,
                Summary::Count => self.queries as f64,
                Summary::Tag => 0.0,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_adds_in_order_then_divides() {
        // 0.1 + 0.2 + 0.3 added left to right is 0.6000000000000001; divided by 3.
        let expected = ((0.1f64 + 0.2) + 0.3) / 3.0;
        let qrels = Qrels::from_judgments("q", [(b"1", b"d", 1.0)], false).unwrap();
        let mut totals = Totals::new(2);
        for v in [0.1, 0.2, 0.3] {
            totals.add(&[v, 1.0]);
        }
        let all = totals.finish(&[Summary::Mean, Summary::Sum], &qrels, false);
        assert_eq!(all, vec![expected, 3.0]);
        assert_eq!(
            Totals::new(1).finish(&[Summary::Mean], &qrels, false),
            vec![0.0]
        );
    }
}
