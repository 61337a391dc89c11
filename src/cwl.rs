//! `trecgain cwl` (trecgain.cwl) in the core: the gain, cost and result files read into
//! `CwlInputs`, then every metric measured on every ranking into `CwlMeasured`,
//! whose text is cwl_eval's output; the metric classes as tuples; the BibTeX file of `-b`.

use std::sync::Mutex;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use trecgain_core::arena::Arena;
use trecgain_core::cwl::{self, bibtex, output, Bounds, Metric, Topic, CWL_RECORDS};
use trecgain_core::error::Error;
use trecgain_core::read::{self, CwlCosts, CwlGains, CwlRankings, CwlRun};

use crate::to_py;

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

/// The gain file and the cost file, read and checked, and the result file's rankings (read
/// on a second thread meanwhile), or the result file's error, raised by `cwl_evaluate`: after
/// the metrics file's, as cwl_eval meets them.
#[pyclass(frozen, name = "CwlInputs", module = "trecgain._core")]
pub(crate) struct PyCwlInputs {
    gains: CwlGains,
    costs: Option<CwlCosts>,
    rankings: Mutex<Option<Result<CwlRankings, Error>>>,
}

/// Reads the gain file (every gain checked against [min_gain, max_gain]), the cost file and
/// the result file (its first `depth` documents a ranking); raises the gain or cost file's error.
#[pyfunction]
#[pyo3(signature = (gain_file, cost_file, result_file, min_gain, max_gain, depth))]
pub(crate) fn cwl_read(
    py: Python<'_>,
    gain_file: &str,
    cost_file: Option<&str>,
    result_file: &str,
    min_gain: f64,
    max_gain: f64,
    depth: usize,
) -> PyResult<PyCwlInputs> {
    let (judgments, rankings) = py.allow_threads(|| {
        read::read_cwl_files(
            gain_file,
            cost_file,
            result_file,
            (min_gain, max_gain),
            depth,
        )
    });
    let (gains, costs) = judgments.map_err(|e| to_py(py, e))?;
    Ok(PyCwlInputs {
        gains,
        costs,
        rankings: Mutex::new(Some(rankings)),
    })
}

/// Every metric on every ranking of a result file: its topics, names and values.
#[pyclass(frozen, name = "CwlMeasured", module = "trecgain._core")]
pub(crate) struct PyCwlMeasured {
    topics: Arena,
    names: Vec<String>,
    values: Vec<f64>,
    residuals: bool,
}

#[pymethods]
impl PyCwlMeasured {
    /// The rankings' topics, in file order.
    fn topics(&self) -> Vec<String> {
        self.topics
            .iter()
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .collect()
    }

    /// The values, 5 (10 with residuals) per ranking and metric, rankings first.
    fn values(&self) -> Vec<f64> {
        self.values.clone()
    }

    /// cwl_eval's output (with the header when `colnames`).
    fn text<'py>(&self, py: Python<'py>, colnames: bool) -> Bound<'py, PyBytes> {
        let text = py.allow_threads(|| {
            output::text(
                self.topics.iter(),
                &self.names,
                &self.values,
                self.residuals,
                colnames,
            )
        });
        PyBytes::new(py, &text)
    }
}

/// The depth and the values unjudged ranks take: (depth, max_gain, max_cost, min_cost).
type BoundsTuple = (usize, f64, f64, f64);
/// Where cwl_eval would crash: (the ranking's topic, or None for the metric's parameters,
/// the metric's index, the problem).
type Problem = (Option<String>, usize, String);

fn metrics_of(specs: &[(usize, Vec<f64>, String)], depth: usize) -> Result<Vec<Metric>, Problem> {
    specs
        .iter()
        .enumerate()
        .map(|(at, (index, params, name))| {
            let record = CWL_RECORDS
                .get(*index)
                .ok_or_else(|| (None, at, "no such C/W/L record".to_string()))?;
            cwl::metric(record.rule, params.clone(), depth, name).map_err(|e| (None, at, e.message))
        })
        .collect()
}

fn topics_of(run: &CwlRun) -> Vec<Topic<'_>> {
    let mut start = 0;
    run.ends
        .iter()
        .zip(&run.relevant)
        .map(|(&end, &judged)| {
            let topic = Topic {
                gains: &run.gains[start..end],
                costs: &run.costs[start..end],
                judged_relevant: judged,
            };
            start = end;
            topic
        })
        .collect()
}

/// Measures every metric ((record index, parameters, printed name)) on each ranking of the
/// inputs (once: their rankings are used up): the measured values and None, or None and where
/// cwl_eval crashes; raises the result file's error.
#[pyfunction]
#[pyo3(signature = (inputs, metrics, bounds, residuals))]
pub(crate) fn cwl_evaluate(
    py: Python<'_>,
    inputs: &PyCwlInputs,
    metrics: Vec<(usize, Vec<f64>, String)>,
    bounds: BoundsTuple,
    residuals: bool,
) -> PyResult<(Option<PyCwlMeasured>, Option<Problem>)> {
    let (depth, max_gain, max_cost, min_cost) = bounds;
    let bounds = Bounds {
        depth,
        max_gain,
        max_cost,
        min_cost,
    };
    let rankings = inputs
        .rankings
        .lock()
        .map_err(|_| PyRuntimeError::new_err("the C/W/L inputs are poisoned"))?
        .take()
        .ok_or_else(|| PyRuntimeError::new_err("the C/W/L inputs were measured already"))?
        .map_err(|e| to_py(py, e))?;
    let run = py.allow_threads(|| rankings.judged(&inputs.gains, inputs.costs.as_ref()));
    let built = match metrics_of(&metrics, depth) {
        Ok(built) => built,
        Err(problem) => return Ok((None, Some(problem))),
    };
    let measured =
        py.allow_threads(|| cwl::measure_all(&built, &topics_of(&run), &bounds, residuals));
    Ok(match measured {
        Ok(values) => (
            Some(PyCwlMeasured {
                topics: run.topics,
                names: metrics.into_iter().map(|(_, _, name)| name).collect(),
                values,
                residuals,
            }),
            None,
        ),
        Err((topic, metric, problem)) => {
            let topic = String::from_utf8_lossy(run.topics.get(topic)).into_owned();
            (None, Some((Some(topic), metric, problem)))
        }
    })
}

/// The BibTeX file cwl_eval writes (`-b`) for metrics of these record indices.
#[pyfunction]
pub(crate) fn cwl_bibtex(records: Vec<usize>) -> PyResult<String> {
    let rules = records
        .iter()
        .map(|&i| CWL_RECORDS.get(i).map(|r| r.rule))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("no such C/W/L record"))?;
    Ok(bibtex::file(rules))
}
