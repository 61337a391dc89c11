//! `trecgain explain`'s computation, handed to Python as a dict.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use trecgain_core::explain::{explain, query_index, Doc, Explanation};

use crate::inputs::{PyQrels, PyRun};
use crate::options::{core_options, request, RequestTuple};
use crate::to_py;

/// One query's computation of one measure (`trecgain explain`): the request and options as
/// the Python Evaluator builds them, the query's id, and at least `min_rows` rows. A dict of
/// rows, the lines' values, the documents missed, the tie groups and counts.
#[pyfunction]
#[pyo3(name = "explain")]
pub(crate) fn py_explain<'py>(
    py: Python<'py>,
    qrels: &PyQrels,
    run: &PyRun,
    request_tuple: RequestTuple,
    options: &Bound<'py, PyAny>,
    qid: Vec<u8>,
    min_rows: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let request = request(request_tuple)?;
    let options = core_options(options)?;
    let (q, r) = (&qrels.inner, &run.inner);
    let explained = py.allow_threads(|| {
        query_index(q, r, &qid).and_then(|query| explain(q, r, &request, &options, query, min_rows))
    });
    explanation_dict(py, &explained.map_err(|e| to_py(py, e))?)
}

/// A ranked document's fields of a row or step (None for each past the ranking).
fn set_doc(py: Python<'_>, d: &Bound<'_, PyDict>, doc: Option<&Doc>) -> PyResult<()> {
    match doc {
        Some(doc) => {
            d.set_item("docno", PyBytes::new(py, &doc.docno))?;
            d.set_item("score", doc.score)?;
            d.set_item("sort_score", doc.sort_score)?;
            d.set_item("line", doc.line)
        }
        None => ["docno", "score", "sort_score", "line"]
            .into_iter()
            .try_for_each(|key| d.set_item(key, py.None())),
    }
}

fn explanation_dict<'py>(py: Python<'py>, e: &Explanation) -> PyResult<Bound<'py, PyDict>> {
    let rows = PyList::empty(py);
    for row in &e.rows {
        let d = PyDict::new(py);
        d.set_item("rank", row.rank)?;
        set_doc(py, &d, row.doc.as_ref())?;
        d.set_item("relevance", row.relevance)?;
        d.set_item("gain", row.gain)?;
        d.set_item("discount", row.discount)?;
        d.set_item("discounted_gain", row.discounted_gain)?;
        d.set_item("dcg", row.dcg)?;
        d.set_item("ideal_grade", row.ideal_grade)?;
        d.set_item("ideal_gain", row.ideal_gain)?;
        d.set_item("ideal_discounted_gain", row.ideal_discounted_gain)?;
        d.set_item("ideal_dcg", row.ideal_dcg)?;
        d.set_item("value", row.value)?;
        rows.append(d)?;
    }
    let steps = PyList::empty(py);
    for step in &e.steps {
        let d = PyDict::new(py);
        d.set_item("rank", step.rank)?;
        set_doc(py, &d, step.doc.as_ref())?;
        d.set_item("relevance", step.relevance)?;
        d.set_item("counted", step.counted)?;
        d.set_item("count", step.count)?;
        d.set_item("gain", step.gain)?;
        d.set_item("weight", step.weight)?;
        d.set_item("continuation", step.continuation)?;
        d.set_item("term", step.term)?;
        d.set_item("sum", step.sum)?;
        d.set_item("value", step.value)?;
        d.set_item("detail", step.detail.as_deref())?;
        d.set_item("ideal_detail", step.ideal_detail.as_deref())?;
        d.set_item("ideal_gain", step.ideal_gain)?;
        d.set_item("ideal_sum", step.ideal_sum)?;
        d.set_item("bound", step.bound)?;
        steps.append(d)?;
    }
    let parts = PyList::empty(py);
    for p in &e.parts {
        parts.append((p.name.as_str(), p.value))?;
    }
    let missed = PyList::empty(py);
    for m in &e.missed {
        let d = PyDict::new(py);
        d.set_item("docno", PyBytes::new(py, &m.docno))?;
        d.set_item("grade", m.grade)?;
        d.set_item("gain", m.gain)?;
        d.set_item("ranked_at", m.ranked_at)?;
        missed.append(d)?;
    }
    let ties = PyList::empty(py);
    for group in &e.ties {
        let docs = PyList::empty(py);
        for t in &group.docs {
            let d = PyDict::new(py);
            d.set_item("docno", PyBytes::new(py, &t.docno))?;
            d.set_item("score", t.score)?;
            d.set_item("rank", t.rank)?;
            d.set_item("evaluated_rank", t.evaluated_rank)?;
            docs.append(d)?;
        }
        let d = PyDict::new(py);
        d.set_item("sort_score", group.sort_score)?;
        d.set_item("docs", docs)?;
        ties.append(d)?;
    }
    let out = PyDict::new(py);
    out.set_item("rows", rows)?;
    out.set_item("values", e.values.clone())?;
    out.set_item("own", e.own.clone())?;
    out.set_item("steps", steps)?;
    out.set_item("parts", parts)?;
    out.set_item("formula", e.formula.as_str())?;
    out.set_item("columns", e.columns.clone())?;
    out.set_item("missed", missed)?;
    out.set_item("ties", ties)?;
    out.set_item("ranked", e.ranked)?;
    out.set_item("ideal", e.ideal)?;
    out.set_item("judged", e.judged)?;
    out.set_item("docno_ascending", e.docno_ascending)?;
    out.set_item("run_order", e.run_order)?;
    out.set_item("tag", e.tag.as_deref().map(|tag| PyBytes::new(py, tag)))?;
    out.set_item("warnings", e.warnings.clone())?;
    Ok(out)
}
