//! The qrels and the run as Python objects (`Qrels`, `Run`): read from paths, file objects,
//! dicts, rows and tuples, or a part of a file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use trecgain_core::error::Error;
use trecgain_core::read::{
    read_relevance_path, read_relevance_with, read_run_path, read_run_with, Input, Judgments,
    Qrels, ReadOptions, Results, Run, SubtopicRows,
};

use crate::options::rel_format;
use crate::readers::{input, strerror};
use crate::{dicts, rows, to_py, tuples};

#[pyclass(frozen, name = "Qrels", module = "trecgain._core")]
pub(crate) struct PyQrels {
    pub(crate) inner: Arc<Qrels>,
}

#[pymethods]
impl PyQrels {
    /// Reads a qrels file (or one of `-R`'s other formats) from a path or a binary file object.
    #[staticmethod]
    #[pyo3(signature = (source, name, fractional, format = "qrels"))]
    fn read(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        name: String,
        fractional: bool,
        format: &str,
    ) -> PyResult<Self> {
        let format = rel_format(format)?;
        let qrels = match source.extract::<String>() {
            // a path: read without the interpreter, so another thread can read the run meanwhile
            Ok(path) => py.allow_threads(|| read_relevance_path(&path, fractional, format)),
            Err(_) => input(source, name)?.and_then(|input| {
                read_relevance_with(input, fractional, format, &ReadOptions::default())
            }),
        };
        Ok(PyQrels {
            inner: Arc::new(qrels.map_err(|e| to_py(py, e))?),
        })
    }

    /// Judgments given as a `{qid: {docno: grade}}` dict (or other mapping), walked in
    /// Rust; `rules`: trecgain.read's functions for what is not read natively (src/dicts.rs).
    #[staticmethod]
    fn from_dict(
        py: Python<'_>,
        name: String,
        source: &Bound<'_, PyAny>,
        fractional: bool,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let rules = dicts::Rules::new(rules.clone());
        let qrels = dicts::qrels_from_dict(py, &name, source, fractional, &rules)?;
        Ok(PyQrels {
            inner: Arc::new(qrels),
        })
    }

    /// Judgments given as columns of rows (a DataFrame's, a list of tuples'), read as
    /// src/rows.rs says; messages name the rows, counted from 1. None if `stop` was reached:
    /// the caller reports that row's fault.
    #[staticmethod]
    #[pyo3(signature = (name, qids, docnos, grades, fractional, rule, stop))]
    #[allow(clippy::too_many_arguments)]
    fn from_rows(
        py: Python<'_>,
        name: String,
        qids: &Bound<'_, PyAny>,
        docnos: &Bound<'_, PyAny>,
        grades: &Bound<'_, PyAny>,
        fractional: bool,
        rule: &Bound<'_, PyAny>,
        stop: Option<usize>,
    ) -> PyResult<Option<Self>> {
        let columns = rows::Columns::new(py, qids, docnos, grades, rule, stop)?;
        let mut judgments = Judgments::new(&name, Some("row"));
        let read = columns.read(stop, |q, _, d, g| {
            judgments.push(q, d, g).map_err(|e| to_py(py, e))
        })?;
        if !read {
            return Ok(None);
        }
        let qrels = judgments.finish(fractional).map_err(|e| to_py(py, e))?;
        Ok(Some(PyQrels {
            inner: Arc::new(qrels),
        }))
    }

    /// Subtopic judgments (`-R subtopics`) given as an iterable of rows (qid, subtopic,
    /// docno, grade), read by src/tuples.rs's `Rows::read_subtopics` with trecgain/rows.py's
    /// `rules`; messages name the rows, counted from 1.
    #[staticmethod]
    fn subtopics_from_tuples(
        py: Python<'_>,
        name: String,
        rows: &Bound<'_, PyAny>,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let rules = tuples::Rules::new(rules.clone());
        let mut judgments = SubtopicRows::new(&name);
        tuples::Rows::new(rows)?.read_subtopics(&rules, |q, s, d, g| {
            judgments.push(q, s, d, g).map_err(|e| to_py(py, e))
        })?;
        let qrels = judgments.finish().map_err(|e| to_py(py, e))?;
        Ok(PyQrels {
            inner: Arc::new(qrels),
        })
    }

    /// Judgments given as an iterable of rows ((qid, docno, grade) tuples, ir_measures'
    /// Qrel), read as src/tuples.rs says with trecgain/rows.py's `rules`; messages name the
    /// rows, counted from 1.
    #[staticmethod]
    fn from_tuples(
        py: Python<'_>,
        name: String,
        rows: &Bound<'_, PyAny>,
        fractional: bool,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let rules = tuples::Rules::new(rules.clone());
        let mut judgments = Judgments::new(&name, Some("row"));
        tuples::Rows::new(rows)?.read(fractional, &rules, |q, d, g, _| {
            judgments.push(q, d, g).map_err(|e| to_py(py, e))
        })?;
        let qrels = judgments.finish(fractional).map_err(|e| to_py(py, e))?;
        Ok(PyQrels {
            inner: Arc::new(qrels),
        })
    }

    #[getter]
    fn source(&self) -> String {
        self.inner.source.clone()
    }

    /// Number of judgments.
    fn __len__(&self) -> usize {
        self.inner.grades.len()
    }

    /// Whether grades may be fractional.
    #[getter]
    fn fractional(&self) -> bool {
        self.inner.fractional
    }

    /// The judgments as a qrels file (`qid 0 docno grade`, queries in order), which `read`
    /// reads back into the same qrels: how they travel to a cluster's workers.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        use std::io::Write;
        let q = &self.inner;
        let mut out = Vec::with_capacity(q.docnos.byte_len() + q.grades.len() * 16);
        for query in 0..q.qids.len() {
            for j in q.offsets[query]..q.offsets[query + 1] {
                out.extend_from_slice(q.qids.get(query));
                out.extend_from_slice(b" 0 ");
                out.extend_from_slice(q.docnos.get(j));
                let _ = writeln!(out, " {}", q.grades[j]); // Display: the shortest exact decimal
            }
        }
        PyBytes::new(py, &out)
    }
}

#[pyclass(frozen, name = "Run", module = "trecgain._core")]
pub(crate) struct PyRun {
    pub(crate) inner: Arc<Run>,
}

#[pymethods]
impl PyRun {
    /// Reads a run file from a path or a binary file object, its rank column too when `ranks`.
    ///
    /// Parts of files, as Dask workers read them (trecgain.distributed): `range`, (offset,
    /// length or None for the rest) of a path's file, the part to read, named `name` in
    /// messages (without a range, a path names itself); `first_line`, the file's number of the
    /// part's first line; `file_start`, whether the part starts the file (gzip, the other
    /// compressed formats and a byte-order mark are recognised only there); `allow_empty`, no
    /// error for a part without results; `lines`, the file's numbers of the run lines read (an
    /// array('Q'), for lines gathered from several parts).
    #[staticmethod]
    #[pyo3(signature = (source, name, ranks, range=None, first_line=1, file_start=true,
                        allow_empty=false, lines=None))]
    #[allow(clippy::too_many_arguments)]
    fn read(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        name: String,
        ranks: bool,
        range: Option<(u64, Option<u64>)>,
        first_line: u64,
        file_start: bool,
        allow_empty: bool,
        lines: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let options = ReadOptions {
            ranks,
            first_line,
            file_start,
            allow_empty,
            ..ReadOptions::default()
        };
        let run = match (source.extract::<String>(), range) {
            (Ok(path), None) if first_line == 1 && file_start && !allow_empty => {
                py.allow_threads(|| read_run_path(&path, ranks))
            }
            (Ok(path), Some((offset, length))) => {
                py.allow_threads(|| read_part(&path, name, offset, length, options))
            }
            _ => input(source, name)?.and_then(|input| read_run_with(input, &options)),
        };
        let mut run = run.map_err(|e| to_py(py, e))?;
        if let Some(lines) = lines {
            let numbers = integers(py, lines)?;
            if numbers.len() != run.lines.len() {
                return Err(PyValueError::new_err(format!(
                    "{} line numbers for {} run lines",
                    numbers.len(),
                    run.lines.len()
                )));
            }
            run.lines = numbers;
        }
        Ok(PyRun {
            inner: Arc::new(run),
        })
    }

    /// The run's distinct qids, in order of first appearance.
    #[getter]
    fn qids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let qids: Vec<_> = self
            .inner
            .qids
            .iter()
            .map(|q| PyBytes::new(py, q))
            .collect();
        PyList::new(py, qids)
    }

    /// Lines for the caller to show (a carriage return that does not end a line).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings.clone()
    }

    /// Number of run lines (results).
    fn __len__(&self) -> usize {
        self.inner.scores.len()
    }

    /// Results given as a `{qid: {docno: score}}` dict (or other mapping), walked in Rust,
    /// a query given as `{}` evaluated with nothing retrieved; `rules`: as `Qrels.from_dict`.
    #[staticmethod]
    fn from_dict(
        py: Python<'_>,
        name: String,
        source: &Bound<'_, PyAny>,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let rules = dicts::Rules::new(rules.clone());
        let run = dicts::run_from_dict(py, &name, source, &rules)?;
        Ok(PyRun {
            inner: Arc::new(run),
        })
    }

    /// Results given as columns of rows (a DataFrame's, a list of tuples'), as
    /// `Qrels.from_rows` reads them.
    #[staticmethod]
    #[pyo3(signature = (name, qids, docnos, scores, rule, stop))]
    fn from_rows(
        py: Python<'_>,
        name: String,
        qids: &Bound<'_, PyAny>,
        docnos: &Bound<'_, PyAny>,
        scores: &Bound<'_, PyAny>,
        rule: &Bound<'_, PyAny>,
        stop: Option<usize>,
    ) -> PyResult<Option<Self>> {
        let columns = rows::Columns::new(py, qids, docnos, scores, rule, stop)?;
        let mut results = Results::new(&name, Some("row"));
        results.reserve(columns.len());
        let read = columns.read(stop, |q, same, d, s| {
            results
                .push_checked(q, same, d, s)
                .map_err(|e| to_py(py, e))
        })?;
        if !read {
            return Ok(None);
        }
        let run = results.finish();
        if run.scores.is_empty() {
            return Err(to_py(py, Error::in_file("no results in the run", &name)));
        }
        Ok(Some(PyRun {
            inner: Arc::new(run),
        }))
    }

    #[getter]
    fn source(&self) -> String {
        self.inner.source.clone()
    }

    /// Results given as an iterable of rows ((qid, docno, score) tuples, ir_measures'
    /// ScoredDoc), read as `Qrels.from_tuples` reads them.
    #[staticmethod]
    fn from_tuples(
        py: Python<'_>,
        name: String,
        rows: &Bound<'_, PyAny>,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let rules = tuples::Rules::new(rules.clone());
        let mut results = Results::new(&name, Some("row"));
        let rows = tuples::Rows::new(rows)?;
        results.reserve(rows.len());
        rows.read(true, &rules, |q, d, s, checked| {
            match checked {
                Some(same_query) => results.push_checked(q, same_query, d, s),
                None => results.push(q, d, s),
            }
            .map_err(|e| to_py(py, e))
        })?;
        let run = results.finish();
        if run.scores.is_empty() {
            return Err(to_py(py, Error::in_file("no results in the run", &name)));
        }
        Ok(PyRun {
            inner: Arc::new(run),
        })
    }

    #[getter]
    fn tag<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.tag)
    }

    /// Whether the rank column was read (`--ties rank`).
    #[getter]
    fn has_ranks(&self) -> bool {
        self.inner.ranks.len() == self.inner.scores.len()
    }

    /// Whether every line's score is written as its rank is (the score column holds ranks).
    #[getter]
    fn score_is_rank(&self) -> bool {
        self.inner.score_is_rank
    }
}

/// Bytes `offset..offset + length` of the file at `path` (to its end without a length) as a
/// run, messages naming `name`.
fn read_part(
    path: &str,
    name: String,
    offset: u64,
    length: Option<u64>,
    mut options: ReadOptions,
) -> Result<Run, Error> {
    let cannot = |e: io::Error| Error::in_file(format!("cannot read: {}", strerror(&e)), &name);
    let mut file = File::open(path).map_err(cannot)?;
    file.seek(SeekFrom::Start(offset)).map_err(cannot)?;
    let size = match length {
        Some(n) => n,
        None => file
            .metadata()
            .map_err(cannot)?
            .len()
            .saturating_sub(offset),
    };
    options.size_hint = Some(size);
    let input = Input {
        name,
        reader: Box::new(file.take(size)),
    };
    read_run_with(input, &options)
}

/// A buffer of unsigned 64-bit integers (an array('Q')), copied out.
pub(crate) fn integers(py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if values.len()? == 0 {
        return Ok(Vec::new()); // an empty array has no memory, which PyBuffer refuses
    }
    PyBuffer::<u64>::get(values)?.to_vec(py)
}
