//! An evaluation as a Python object (`Evaluation`): its values, lines and summaries, the
//! trec text written or streamed, and the assembly of a run measured in parts.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use trecgain_core::error::Error;
use trecgain_core::evaluate::{
    assemble, lines_printed_differently, summaries_printed_differently, Evaluation, Measuring,
    Parts,
};
use trecgain_core::options::{Options, Request};
use trecgain_core::output::{write_trec, write_trec_streamed, Kind, Layout, LineFormat};
use trecgain_core::read::{Qrels, Run};

use crate::inputs::{PyQrels, PyRun};
use crate::options::{core_options, core_requests, RequestTuple};
use crate::to_py;

#[pyclass(frozen, name = "Evaluation", module = "trecgain._core")]
pub(crate) struct PyEvaluation {
    pub(crate) inner: Evaluation,
    /// The caller asked for the per-query values (else any kept serve only `write_trec`).
    shown: bool,
    /// What it was measured from, to measure the per-query lines again when they were not kept
    /// (None: put together from parts measured elsewhere, which keeps every value).
    measured: Option<Measured>,
}

/// The inputs of an evaluation.
struct Measured {
    qrels: Arc<Qrels>,
    run: Arc<Run>,
    requests: Vec<Request>,
    pub(crate) options: Options,
}

impl PyEvaluation {
    /// The values were kept (or there are none to keep).
    fn kept(&self) -> PyResult<()> {
        if self.shown && self.complete() {
            return Ok(());
        }
        Err(PyValueError::new_err(
            "this evaluation kept no per-query values (evaluate with keep_values=True)",
        ))
    }
}

impl PyEvaluation {
    /// Every query's values are at hand.
    fn complete(&self) -> bool {
        self.inner.values.len() == self.inner.qids.len() * self.inner.width
    }
}

pub(crate) fn kind(text: &str) -> PyResult<Kind> {
    match text {
        "float" => Ok(Kind::Float),
        "count" => Ok(Kind::Count),
        "tag" => Ok(Kind::Tag),
        "chars" => Ok(Kind::Chars),
        other => Err(PyValueError::new_err(format!("unknown value kind {other}"))),
    }
}

#[pymethods]
impl PyEvaluation {
    #[getter]
    fn qids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.inner
                .qids
                .iter()
                .map(|q| PyBytes::new(py, q))
                .collect::<Vec<_>>(),
        )
    }

    #[getter]
    fn in_run(&self) -> Vec<bool> {
        self.inner.in_run.clone()
    }

    /// Per value slot: whether its measure follows 9.x's rules for the queries -c brings in
    /// (no per-query line for them).
    #[getter]
    fn nine_slots(&self) -> Vec<bool> {
        self.inner.nine_slots.clone()
    }

    #[getter]
    fn width(&self) -> usize {
        self.inner.width
    }

    /// Per-query values of output line `line`, in query order.
    fn column(&self, line: usize) -> PyResult<Vec<f64>> {
        self.kept()?;
        Ok((0..self.inner.qids.len())
            .map(|q| self.inner.value(q, line))
            .collect())
    }

    /// Values of one query, one per output line.
    fn row(&self, query: usize) -> PyResult<Vec<f64>> {
        self.kept()?;
        Ok(self.inner.values[query * self.inner.width..(query + 1) * self.inner.width].to_vec())
    }

    /// Every query's values (a row per query), as little-endian doubles.
    fn values_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        if !self.complete() {
            return Err(PyValueError::new_err(
                "this evaluation kept no per-query values",
            ));
        }
        let bytes: Vec<u8> = self
            .inner
            .values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        Ok(PyBytes::new(py, &bytes))
    }

    #[getter]
    fn summaries(&self) -> Vec<f64> {
        self.inner.summaries.clone()
    }

    #[getter]
    fn tag<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.tag)
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings.clone()
    }

    /// How many printed values (4 decimals) ties decided: the `all` lines (`summary_slots`:
    /// per value slot, whether it has one) and the per-query lines that ordering tied
    /// documents of different relevance values the other way round changes. None when the
    /// evaluation did not check (`check_ties`).
    fn ties_decided(
        &self,
        summary_slots: Vec<bool>,
        per_query: bool,
        summary: bool,
    ) -> Option<usize> {
        let check = self.inner.tie_check.as_ref()?;
        let summaries =
            summaries_printed_differently(&self.inner.summaries, &check.summaries, &summary_slots);
        Some(if summary { summaries } else { 0 } + if per_query { check.query_lines } else { 0 })
    }

    /// How many printed values (4 decimals) differ from `other`, an evaluation of the same
    /// requests: the `all` lines (`summary_slots`: per value slot, whether it has one) and,
    /// when both hold every query's values, the per-query lines (`lines`: per value slot, its
    /// line's number when printed per query), else None. trecgain.distributed's count of
    /// what ties decided, from two evaluations put together from parts.
    fn printed_differences(
        &self,
        other: &PyEvaluation,
        lines: Vec<Option<usize>>,
        summary_slots: Vec<bool>,
    ) -> PyResult<(usize, Option<usize>)> {
        let (a, b) = (&self.inner, &other.inner);
        if a.width != b.width || lines.len() != a.width || a.qids.len() != b.qids.len() {
            return Err(PyValueError::new_err(
                "the evaluations do not have the same lines",
            ));
        }
        let summaries = summaries_printed_differently(&a.summaries, &b.summaries, &summary_slots);
        if !(self.complete() && other.complete()) {
            return Ok((summaries, None));
        }
        let width = a.width.max(1);
        let rows = a
            .values
            .chunks_exact(width)
            .zip(b.values.chunks_exact(width));
        let differing = rows
            .map(|(x, y)| lines_printed_differently(x, y, &lines))
            .sum();
        Ok((summaries, Some(differing)))
    }

    /// Queries in which documents of different relevance values tie (the tie rule decided).
    #[getter]
    fn mixed_tie_queries(&self) -> usize {
        self.inner.mixed_tie_queries
    }

    /// Queries of both the run and the qrels not evaluated for having nothing relevant
    /// (a convention's no_relevant="skip").
    #[getter]
    fn left_out_queries(&self) -> usize {
        self.inner.queries_left_out
    }

    /// (qrels queries the run lacks, run queries the qrels lack).
    #[getter]
    fn skipped_queries(&self) -> (usize, usize) {
        (
            self.inner.queries_not_in_run,
            self.inner.queries_not_in_qrels,
        )
    }

    /// Every evaluated query's values, a block of queries at a time, in query order:
    /// `visit(qids, in_run, values)`, `values` holding `width` doubles per query; from the
    /// values kept, else measured again block by block (so that no evaluation holds them all).
    fn for_each_block(&self, py: Python<'_>, visit: &Bound<'_, PyAny>) -> PyResult<()> {
        let width = self.inner.width;
        let mut failure: Option<PyErr> = None;
        let mut hand = |qids: Vec<&[u8]>, in_run: Vec<bool>, values: &[f64]| -> Result<(), Error> {
            let qids: Vec<_> = qids.into_iter().map(|q| PyBytes::new(py, q)).collect();
            visit
                .call1((qids, in_run, values.to_vec()))
                .map(|_| ())
                .map_err(|e| {
                    failure = Some(e);
                    Error::new("visit failed")
                })
        };
        let visited = match &self.measured {
            _ if self.complete() => {
                let n = self.inner.qids.len();
                (0..n).step_by(BLOCK_QUERIES).try_for_each(|start| {
                    let end = (start + BLOCK_QUERIES).min(n);
                    let qids = (start..end).map(|q| self.inner.qids.get(q)).collect();
                    let values = &self.inner.values[start * width..end * width];
                    hand(qids, self.inner.in_run[start..end].to_vec(), values)
                })
            }
            Some(m) => {
                Measuring::new(&m.qrels, &m.run, &m.requests, &m.options).and_then(|measuring| {
                    measuring
                        .for_each_block(&mut |queries, rows| {
                            let qids = queries.iter().map(|&q| measuring.qid(q)).collect();
                            let in_run = queries.iter().map(|&q| measuring.in_run(q)).collect();
                            hand(qids, in_run, rows)
                        })
                        .map(|_| ())
                })
            }
            None => Err(Error::new("the per-query values were not kept")),
        };
        match (failure, visited) {
            (Some(e), _) => Err(e),
            (None, Err(e)) => Err(to_py(py, e)),
            (None, Ok(())) => Ok(()),
        }
    }

    /// trec_eval's text, handed to `write(chunk)` about a megabyte at a time.
    /// `lines`: (name, kind, per_query, summary, slots) of each output line.
    #[allow(clippy::type_complexity)]
    fn write_trec(
        &self,
        py: Python<'_>,
        lines: Vec<(Vec<u8>, String, bool, bool, usize)>,
        per_query: bool,
        summary: bool,
        absent_queries: bool,
        write: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let formats = lines
            .into_iter()
            .map(|(name, k, per_query, summary, slots)| {
                Ok(LineFormat {
                    name,
                    kind: kind(&k)?,
                    per_query,
                    summary,
                    slots,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let mut failure: Option<PyErr> = None;
        let layout = Layout {
            per_query,
            summary,
            absent_queries,
        };
        let mut sink = |chunk: &[u8]| {
            write
                .call1((PyBytes::new(py, chunk),))
                .map(|_| ())
                .map_err(|e| {
                    failure = Some(e);
                    Error::new("write failed")
                })
        };
        let written = match &self.measured {
            _ if self.complete() => write_trec(&self.inner, &formats, layout, &mut sink),
            Some(m) => {
                Measuring::new(&m.qrels, &m.run, &m.requests, &m.options).and_then(|measuring| {
                    write_trec_streamed(&self.inner, &measuring, &formats, layout, &mut sink)
                })
            }
            None => Err(Error::new("the per-query values were not kept")),
        };
        match (failure, written) {
            (Some(e), _) => Err(e),
            (None, Err(e)) => Err(to_py(py, e)),
            (None, Ok(())) => Ok(()),
        }
    }
}

/// Queries per block handed to `Evaluation.for_each_block` from the values kept.
const BLOCK_QUERIES: usize = 4096;

/// Without keep_values, values are kept all the same, only to write the per-query lines
/// without measuring again, while they take at most this many bytes and no more than one
/// value per run line (the run's own columns take ~28 bytes a line); beyond, they are
/// streamed: many short queries cost little to measure again.
const WRITE_CACHE: usize = 64 << 20;

/// The bytes of values `evaluate(.., keep_values=False)` keeps for a run of `run_lines` lines.
fn write_cache(run_lines: usize) -> usize {
    WRITE_CACHE.min(run_lines.saturating_mul(8))
}

/// Evaluates a run: requests and options as the Python Evaluator builds them.
#[pyfunction]
#[pyo3(name = "evaluate", signature = (qrels, run, requests, options, keep_values, tie_lines=None))]
pub(crate) fn py_evaluate(
    py: Python<'_>,
    qrels: &PyQrels,
    run: &PyRun,
    requests: Vec<RequestTuple>,
    options: &Bound<'_, PyAny>,
    keep_values: bool,
    tie_lines: Option<Vec<Option<usize>>>,
) -> PyResult<PyEvaluation> {
    let requests = core_requests(requests)?;
    let options = core_options(options)?;
    let measured = Measured {
        qrels: qrels.inner.clone(),
        run: run.inner.clone(),
        requests,
        options,
    };
    let m = &measured;
    let result = py.allow_threads(|| {
        Measuring::new(&m.qrels, &m.run, &m.requests, &m.options).and_then(|mut measuring| {
            if let Some(lines) = tie_lines {
                measuring.check_ties(lines);
            }
            let cache = write_cache(m.run.scores.len());
            measuring.evaluate_keeping(if keep_values { usize::MAX } else { cache })
        })
    });
    result
        .map(|inner| PyEvaluation {
            inner,
            shown: keep_values,
            measured: Some(measured),
        })
        .map_err(|e| to_py(py, e))
}

/// The qid of the first query (in query order) whose measuring fails, None when none does (or
/// when the run cannot be measured at all): for a part of a run whose evaluation failed, so
/// that its error can be placed among the other parts' (trecgain.distributed).
#[pyfunction]
pub(crate) fn failing_query<'py>(
    py: Python<'py>,
    qrels: &PyQrels,
    run: &PyRun,
    requests: Vec<RequestTuple>,
    options: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let requests = core_requests(requests)?;
    let options = core_options(options)?;
    let (q, r) = (&qrels.inner, &run.inner);
    let failed = py.allow_threads(|| {
        Measuring::new(q, r, &requests, &options)
            .ok()
            .and_then(|m| m.first_failure())
            .map(|(query, _)| q.qids.get(query).to_vec())
    });
    Ok(failed.map(|qid| PyBytes::new(py, &qid)))
}

/// What a failed part reports: (qid, message, source, line) of its first failing query.
type Failure = (Vec<u8>, String, Option<String>, Option<u64>);

/// The evaluation of a run measured in parts by a cluster's workers (trecgain.distributed),
/// as `evaluate` makes it of the whole run (trecgain_core::evaluate::assemble): `qids` and
/// `values` (little-endian doubles, a row per query) of the queries the parts measured, the
/// run's tag and warnings (the run's, then the measures'); `counts`: queries with mixed ties,
/// run queries the qrels lack, and queries left out for having nothing relevant; `failure`: the first query (in query order) a part failed
/// to measure, with its error.
#[pyfunction]
#[pyo3(name = "assemble", signature = (qrels, requests, options, source, tag, qids, values,
                                       warnings, counts, keep_values, failure=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn py_assemble(
    py: Python<'_>,
    qrels: &PyQrels,
    requests: Vec<RequestTuple>,
    options: &Bound<'_, PyAny>,
    source: String,
    tag: Vec<u8>,
    qids: Vec<Vec<u8>>,
    values: &Bound<'_, PyBytes>,
    warnings: Vec<String>,
    counts: (usize, usize, usize),
    keep_values: bool,
    failure: Option<Failure>,
) -> PyResult<PyEvaluation> {
    let requests = core_requests(requests)?;
    let options = core_options(options)?;
    let bytes = values.as_bytes();
    if bytes.len() % 8 != 0 {
        return Err(PyValueError::new_err(
            "values are not a whole number of doubles",
        ));
    }
    let (mixed_tie_queries, queries_not_in_qrels, queries_left_out) = counts;
    let parts = Parts {
        qids,
        values: bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect(),
        tag,
        warnings,
        mixed_tie_queries,
        queries_not_in_qrels,
        queries_left_out,
    };
    let failure = failure.map(|(qid, message, source, line)| {
        let error = Error {
            message,
            source,
            line,
            grade: None,
        };
        (qid, error)
    });
    let q = &qrels.inner;
    let inner = py
        .allow_threads(|| assemble(q, &requests, &options, &source, parts, failure))
        .map_err(|e| to_py(py, e))?;
    Ok(PyEvaluation {
        inner,
        shown: keep_values,
        measured: None,
    })
}
