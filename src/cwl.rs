//! The C/W/L kernels (trecgain_core::cwl) for trecgain.cwl: the metric classes as tuples,
//! and one call measuring every metric on every topic of a run.

use pyo3::prelude::*;

use trecgain_core::cwl::{self, Bounds, Topic, CWL_RECORDS};

type RecordTuple = (
    &'static str,
    Vec<(&'static str, Option<&'static str>)>,
    &'static str,
);

/// cwl_eval's metric classes: (class name, [(parameter, default spelling or None)], name template).
#[pyfunction]
pub(crate) fn cwl_records() -> Vec<RecordTuple> {
    CWL_RECORDS
        .iter()
        .map(|r| (r.class, r.parameters.to_vec(), r.name))
        .collect()
}

/// The depth and the values unjudged ranks take: (depth, max_gain, max_cost, min_cost).
type BoundsTuple = (usize, f64, f64, f64);

/// Every metric ((record index, parameters, printed name)) on every topic (gains and costs
/// flattened, `ends` closing each topic, judged relevant per topic): the flat values and None,
/// or no values and (topic index, metric index, problem) where cwl_eval crashes (topic None:
/// the metric's parameters are at fault).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
pub(crate) fn cwl_measure(
    py: Python<'_>,
    metrics: Vec<(usize, Vec<f64>, String)>,
    gains: Vec<f64>,
    costs: Vec<f64>,
    ends: Vec<usize>,
    judged_relevant: Vec<f64>,
    bounds: BoundsTuple,
    residuals: bool,
) -> PyResult<(Vec<f64>, Option<(Option<usize>, usize, String)>)> {
    let (depth, max_gain, max_cost, min_cost) = bounds;
    let bounds = Bounds {
        depth,
        max_gain,
        max_cost,
        min_cost,
    };
    let mut built = Vec::with_capacity(metrics.len());
    for (at, (index, params, name)) in metrics.into_iter().enumerate() {
        let record = CWL_RECORDS
            .get(index)
            .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("no such C/W/L record"))?;
        match cwl::metric(record.rule, params, depth, &name) {
            Ok(metric) => built.push(metric),
            Err(e) => return Ok((Vec::new(), Some((None, at, e.message)))),
        }
    }
    let mut topics = Vec::with_capacity(ends.len());
    let mut start = 0;
    for (end, judged) in ends.iter().zip(&judged_relevant) {
        topics.push(Topic {
            gains: &gains[start..*end],
            costs: &costs[start..*end],
            judged_relevant: *judged,
        });
        start = *end;
    }
    Ok(py.allow_threads(
        || match cwl::measure_all(&built, &topics, &bounds, residuals) {
            Ok(values) => (values, None),
            Err((topic, metric, problem)) => (Vec::new(), Some((Some(topic), metric, problem))),
        },
    ))
}
