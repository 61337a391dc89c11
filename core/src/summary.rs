//! Stage 5: the `all` value of each output line, from the per-query values in query order.

use crate::options::Summary;
use crate::read::Qrels;

/// The `all` value of one line: `column` holds its per-query values in query order.
pub fn summarize(
    column: impl Iterator<Item = f64>,
    summary: Summary,
    num_queries: usize,
    qrels: &Qrels,
    complete: bool,
) -> f64 {
    match summary {
        Summary::Mean => mean(column, num_queries),
        Summary::Sum => column.sum(),
        Summary::SumJudgedRelevant if complete => {
            qrels.grades.iter().filter(|&&g| g > 0.0).count() as f64
        }
        Summary::SumJudgedRelevant => column.sum(),
        Summary::Count => num_queries as f64,
        Summary::Tag => 0.0,
    }
}

/// Sum in query order, then divide, as trec_eval accumulates (0 with no queries).
pub fn mean(column: impl Iterator<Item = f64>, num_queries: usize) -> f64 {
    if num_queries == 0 {
        return 0.0;
    }
    let mut total = 0.0;
    for v in column {
        total += v;
    }
    total / num_queries as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_adds_in_order_then_divides() {
        // 0.1 + 0.2 + 0.3 added left to right is 0.6000000000000001; divided by 3.
        let expected = ((0.1f64 + 0.2) + 0.3) / 3.0;
        assert_eq!(mean([0.1, 0.2, 0.3].into_iter(), 3), expected);
        assert_eq!(mean(std::iter::empty(), 0), 0.0);
    }
}
