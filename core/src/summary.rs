//! Stage 5: the `all` value of each output line, from the per-query values in query order.

use crate::measures::ap::MIN_GEO_MEAN;
use crate::options::Summary;
use crate::read::Qrels;

/// Running totals of every output line, rows added in query order, as trec_eval adds them.
#[derive(Debug, Clone)]
pub struct Totals {
    totals: Vec<f64>,
    /// Queries added, and those of them the run has.
    queries: usize,
    in_run: usize,
    /// Per value slot, trec_eval 9.x's rule: queries only -c brings in are not evaluated; they
    /// add nothing to the sums and count only in the divisor (and as log(MIN_GEO_MEAN) in
    /// geometric means).
    absent_add_nothing: Vec<bool>,
    /// How each slot is summarised; for `Summary::MeanOfDefined`, the queries with a value.
    summaries: Vec<Summary>,
    defined: Vec<usize>,
}

impl Totals {
    /// `absent_add_nothing`: per value slot, whether trec_eval 9.x's rule for the queries only
    /// -c brings in applies; `summaries`: how each slot is summarised.
    pub fn new(absent_add_nothing: Vec<bool>, summaries: &[Summary]) -> Self {
        Totals {
            totals: vec![0.0; absent_add_nothing.len()],
            queries: 0,
            in_run: 0,
            defined: vec![0; absent_add_nothing.len()],
            summaries: summaries.to_vec(),
            absent_add_nothing,
        }
    }

    /// Adds one query's values (one per line); `in_run`: the run has the query.
    pub fn add(&mut self, row: &[f64], in_run: bool) {
        self.queries += 1;
        self.in_run += usize::from(in_run);
        let slots = self.totals.iter_mut().zip(&mut self.defined).zip(row);
        for (((total, defined), v), (&nine, &summary)) in
            slots.zip(self.absent_add_nothing.iter().zip(&self.summaries))
        {
            if summary == Summary::MeanOfDefined {
                if !v.is_nan() {
                    *total += v;
                    *defined += 1;
                }
            } else if in_run || !nine {
                *total += v;
            }
        }
    }

    /// The `all` value of each line.
    pub fn finish(&self, qrels: &Qrels, complete: bool) -> Vec<f64> {
        // with -c, trec_eval divides by the number of qrels queries, and num_q is that number:
        // every one of them is evaluated, unless -D 0.QID picked one
        let queries = if complete {
            qrels.qids.len().max(self.queries)
        } else {
            self.queries
        };
        let n = queries as f64;
        self.totals
            .iter()
            .zip(&self.summaries)
            .zip(self.absent_add_nothing.iter().zip(&self.defined))
            .map(|((&total, &summary), (&nine, &defined))| match summary {
                Summary::Mean if queries == 0 => 0.0,
                Summary::MeanOfDefined if defined == 0 => f64::NAN,
                Summary::MeanOfDefined => total / defined as f64,
                Summary::Mean => total / n,
                Summary::GeometricMean if queries == 0 => 0.0,
                Summary::GeometricMean => {
                    // with -c, each query not evaluated counts as log(MIN_GEO_MEAN)
                    let evaluated = if nine { self.in_run } else { self.queries };
                    let mut sum = total;
                    if complete || nine {
                        sum += (queries - evaluated) as f64 * MIN_GEO_MEAN.ln();
                    }
                    (sum / n).exp()
                }
                Summary::Sum => total,
                Summary::SumJudgedRelevant if complete => {
                    qrels.grades.iter().filter(|&&g| g > 0.0).count() as f64
                }
                Summary::SumJudgedRelevant => total,
                Summary::Count => n,
                Summary::Tag | Summary::None => 0.0,
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
        let mut totals = Totals::new(vec![false; 2], &[Summary::Mean, Summary::Sum]);
        for v in [0.1, 0.2, 0.3] {
            totals.add(&[v, 1.0], true);
        }
        let all = totals.finish(&qrels, false);
        assert_eq!(all, vec![expected, 3.0]);
        assert_eq!(
            Totals::new(vec![false], &[Summary::Mean]).finish(&qrels, false),
            vec![0.0]
        );
    }

    #[test]
    fn mean_of_defined_leaves_out_the_queries_without_a_value() {
        // (0.5 + 0.25) / 2: the NaN query counts neither in the sum nor in the divisor, with
        // or without -c; with no value at all the mean is NaN (ir_measures' mean of nothing).
        let qrels = Qrels::from_judgments("q", [(b"1", b"d", 1.0)], false).unwrap();
        let mut totals = Totals::new(vec![false; 2], &[Summary::MeanOfDefined, Summary::Mean]);
        for v in [0.5, f64::NAN, 0.25] {
            totals.add(&[v, 1.0], true);
        }
        totals.add(&[f64::NAN, 0.0], false);
        for complete in [false, true] {
            let all = totals.finish(&qrels, complete);
            assert_eq!(all[0], 0.375);
        }
        let none = Totals::new(vec![false], &[Summary::MeanOfDefined]);
        assert!(none.finish(&qrels, false)[0].is_nan());
    }
}
