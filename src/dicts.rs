//! pytrec_eval-style dicts, `{qid: {docno: score}}` runs and `{qid: {docno: grade}}` qrels,
//! walked here without a Python call per entry: the usual ids (str, bytes, int) and values
//! (float scores, int grades) are read natively; any other id or value, and every fault, goes
//! to one of trecgain.read's rule functions (`Rules`), which applies trecgain.check's rules
//! and raises its TrecgainError, so the messages are the ones the rules write.
//!
//! The order of checks is trecgain.read's: first every query (its id, then that its documents
//! are a mapping), then whether two qids name one query, then each entry in order (docno, then
//! value). Nothing per entry is kept as a Python object: ids are copied into the core's columns.
//! A run whose docnos are all str (read as UTF-8) is marked `distinct_docnos`: a dict's keys
//! are distinct, so no query can retrieve one twice and ranking skips that check.

use std::borrow::Cow;
use std::collections::HashMap;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyInt, PyString};

use trecgain_core::read::{Judgments, Qrels, Results, Run};

use crate::ids::{good_id, Digits};
use crate::to_py;

/// trecgain.read's functions for what is not read natively, each raising TrecgainError when
/// its value is refused: `key(value, what, source) -> bytes`, `documents(qid, docs, what)`
/// (refuses documents that are not a mapping), `same_query(first, second, what)` (always
/// raises), `score(value, docno, qid) -> float`, `grade(value, docno, qid, fractional) ->
/// float`.
pub struct Rules<'py> {
    rules: Bound<'py, PyAny>,
}

impl<'py> Rules<'py> {
    pub fn new(rules: Bound<'py, PyAny>) -> Self {
        Rules { rules }
    }

    fn call<A: IntoPyObject<'py, Target = pyo3::types::PyTuple>>(
        &self,
        name: &str,
        args: A,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.rules.getattr(name)?.call1(args)
    }
}

/// `value` as an id: a str's UTF-8, a bytes' bytes, an int's decimal text when it is a good
/// id; anything else (a lone surrogate, a str subclass, numpy's ints, a bad id) as the rules
/// make it, or their error. Also whether it is a str read as UTF-8 (distinct such strs are
/// distinct ids).
fn key<'a, 'py>(
    value: &'a Bound<'py, PyAny>,
    what: &str,
    source: &str,
    rules: &Rules<'py>,
) -> PyResult<(Cow<'a, [u8]>, bool)> {
    let native: Option<(Cow<'a, [u8]>, bool)> = if let Ok(text) = value.downcast_exact::<PyString>()
    {
        text.to_str()
            .ok()
            .map(|t| (Cow::Borrowed(t.as_bytes()), true))
    } else if let Ok(bytes) = value.downcast_exact::<PyBytes>() {
        Some((Cow::Borrowed(bytes.as_bytes()), false))
    } else if value.is_exact_instance_of::<PyInt>() {
        value
            .extract::<i64>()
            .ok()
            .map(|n| (Cow::Owned(Digits::signed(n).as_ref().to_vec()), false))
    } else {
        None
    };
    match native {
        Some((id, plain)) if good_id(&id) => Ok((id, plain)),
        _ => {
            let id = rules.call("key", (value, what, source))?;
            Ok((
                Cow::Owned(id.downcast::<PyBytes>()?.as_bytes().to_vec()),
                false,
            ))
        }
    }
}

/// The (key, value) pairs of a mapping: a dict's own (an exact dict read in place), or what
/// another mapping's `items()` gives.
fn for_each_item<'py>(
    mapping: &Bound<'py, PyAny>,
    mut visit: impl FnMut(Bound<'py, PyAny>, Bound<'py, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    if let Ok(dict) = mapping.downcast_exact::<PyDict>() {
        for (k, v) in dict.iter() {
            visit(k, v)?;
        }
        return Ok(());
    }
    for item in mapping.call_method0("items")?.try_iter()? {
        let (k, v) = item?.extract::<(Bound<'py, PyAny>, Bound<'py, PyAny>)>()?;
        visit(k, v)?;
    }
    Ok(())
}

/// One query of a dict: its id as given, its documents, its id's bytes.
struct Query<'py> {
    given: Bound<'py, PyAny>,
    documents: Bound<'py, PyAny>,
    qid: Vec<u8>,
}

/// The queries of a dict, each checked (id, then documents a mapping), and no two naming
/// the same query.
fn queries<'py>(
    source: &Bound<'py, PyAny>,
    what: &str,
    rules: &Rules<'py>,
) -> PyResult<Vec<Query<'py>>> {
    let mut out = Vec::new();
    for_each_item(source, |given, documents| {
        let qid = key(&given, "query id", what, rules)?.0.into_owned();
        if !documents.is_exact_instance_of::<PyDict>() {
            rules.call("documents", (&given, &documents, what))?;
        }
        out.push(Query {
            given,
            documents,
            qid,
        });
        Ok(())
    })?;
    let mut seen: HashMap<&[u8], usize> = HashMap::with_capacity(out.len());
    for (i, query) in out.iter().enumerate() {
        if let Some(&first) = seen.get(query.qid.as_slice()) {
            rules.call("same_query", (&out[first].given, &query.given, what))?;
            return Err(PyRuntimeError::new_err("same_query did not raise"));
        }
        seen.insert(&query.qid, i);
    }
    Ok(out)
}

/// An int that is exactly a double (at most 2^53 in magnitude), as one; None otherwise.
fn exact_int(value: &Bound<'_, PyAny>) -> Option<f64> {
    if !value.is_exact_instance_of::<PyInt>() {
        return None;
    }
    let n = value.extract::<i64>().ok()?;
    (n.unsigned_abs() <= 1 << 53).then_some(n as f64)
}

/// A score: a finite float or an int that is exactly a double, else as the rules make it.
fn score<'py>(
    value: &Bound<'py, PyAny>,
    docno: &Bound<'py, PyAny>,
    query: &Query<'py>,
    rules: &Rules<'py>,
) -> PyResult<f64> {
    if let Ok(float) = value.downcast_exact::<PyFloat>() {
        let v = float.value();
        if v.is_finite() {
            return Ok(v);
        }
    } else if let Some(v) = exact_int(value) {
        return Ok(v);
    }
    rules
        .call("score", (value, docno, &query.given))?
        .extract::<f64>()
}

/// A grade: an int of at most 2^53 in magnitude, with `fractional` also a finite float, else
/// as the rules make it.
fn grade<'py>(
    value: &Bound<'py, PyAny>,
    docno: &Bound<'py, PyAny>,
    query: &Query<'py>,
    fractional: bool,
    rules: &Rules<'py>,
) -> PyResult<f64> {
    if let Some(v) = exact_int(value) {
        return Ok(v);
    }
    if fractional {
        if let Ok(float) = value.downcast_exact::<PyFloat>() {
            let v = float.value();
            if v.is_finite() {
                return Ok(v);
            }
        }
    }
    rules
        .call("grade", (value, docno, &query.given, fractional))?
        .extract::<f64>()
}

/// The entries of a query's documents, if it is a dict (0 for another mapping).
fn entries(documents: &Bound<'_, PyAny>) -> usize {
    documents
        .downcast_exact::<PyDict>()
        .map_or(0, |dict| dict.len())
}

/// A `{qid: {docno: score}}` dict (or other mapping) as a run named `name`; a query given as
/// `{}` is evaluated with nothing retrieved, as pytrec_eval does.
pub fn run_from_dict<'py>(
    py: Python<'py>,
    name: &str,
    source: &Bound<'py, PyAny>,
    rules: &Rules<'py>,
) -> PyResult<Run> {
    let queries = queries(source, name, rules)?;
    let mut results = Results::new(name, None);
    results.reserve(queries.iter().map(|q| entries(&q.documents)).sum());
    let mut empty = Vec::new();
    let mut distinct = true;
    for query in &queries {
        let mut none = true;
        for_each_item(&query.documents, |docno, value| {
            let (id, plain) = key(&docno, "document id", name, rules)?;
            distinct &= plain;
            let s = score(&value, &docno, query, rules)?;
            // key() has checked both ids as push would; after the first entry the query is
            // the previous entry's, so it is not looked up again.
            let same_query = !none;
            none = false;
            results
                .push_checked(&query.qid, same_query, &id, s)
                .map_err(|e| to_py(py, e))
        })?;
        if none {
            empty.push(query.qid.as_slice());
        }
    }
    let mut run = results.finish_with_empty(empty).map_err(|e| to_py(py, e))?;
    run.distinct_docnos = distinct;
    Ok(run)
}

/// A `{qid: {docno: grade}}` dict (or other mapping) as qrels named `name`.
pub fn qrels_from_dict<'py>(
    py: Python<'py>,
    name: &str,
    source: &Bound<'py, PyAny>,
    fractional: bool,
    rules: &Rules<'py>,
) -> PyResult<Qrels> {
    let queries = queries(source, name, rules)?;
    let mut judgments = Judgments::new(name, None);
    for query in &queries {
        for_each_item(&query.documents, |docno, value| {
            let (id, _) = key(&docno, "document id", name, rules)?;
            let g = grade(&value, &docno, query, fractional, rules)?;
            judgments.push(&query.qid, &id, g).map_err(|e| to_py(py, e))
        })?;
    }
    judgments.finish(fractional).map_err(|e| to_py(py, e))
}
