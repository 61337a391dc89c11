//! Iterables of rows, `(qid, docno, value)` tuples or ir_measures' namedtuples, read here
//! without a Python call per row: the rows are taken in one pass (each a tuple of the width
//! its type has: 3, or 4 for ir_measures' Qrel, as the caller's `width` rule says once per
//! type), then read in order, ids and values read natively where they are the usual kinds
//! (str or bytes ids; float scores; int grades, float ones when fractional) and handed to
//! the caller's rules otherwise, which return them or raise TrecgainError naming the row.
//! As the text readers do, a row's faults are reported qid first, then docno, then value,
//! and a shape's fault (a row of another width) before any of them. Only references to the
//! cells are held while reading, as the caller's rows hold them.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyTuple, PyType};

use crate::ids::{good_id, id_bytes};

/// The caller's rules (trecgain/rows.py): `width(row, index) -> int` (the fields a row of
/// that type must have, or its fault raised), `wrong_width(row, index)` (raises),
/// `id(value, field, index) -> bytes`, `value(value, qid, docno, index) -> float`.
pub struct Rules<'py> {
    rules: Bound<'py, PyAny>,
}

impl<'py> Rules<'py> {
    pub fn new(rules: Bound<'py, PyAny>) -> Self {
        Rules { rules }
    }
}

/// The cells of the rows, column by column.
struct Cells<'py> {
    qids: Vec<Bound<'py, PyAny>>,
    docnos: Vec<Bound<'py, PyAny>>,
    values: Vec<Bound<'py, PyAny>>,
}

/// The rows' cells, each row's width checked.
fn cells<'py>(rows: &Bound<'py, PyAny>, rules: &Rules<'py>) -> PyResult<Cells<'py>> {
    let mut widths: Vec<(Bound<'py, PyType>, usize)> = Vec::new();
    let mut out = Cells {
        qids: Vec::new(),
        docnos: Vec::new(),
        values: Vec::new(),
    };
    for (i, row) in rows.try_iter()?.enumerate() {
        let row = row?;
        let kind = row.get_type();
        let width = if row.is_exact_instance_of::<PyTuple>() {
            3
        } else if let Some((_, w)) = widths.iter().find(|(t, _)| t.is(&kind)) {
            *w
        } else {
            let w: usize = rules.rules.call_method1("width", (&row, i))?.extract()?;
            widths.push((kind, w));
            w
        };
        let tuple = row.downcast::<PyTuple>()?; // the width rule refuses what is not a tuple
        if tuple.len() != width {
            rules.rules.call_method1("wrong_width", (&row, i))?;
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "wrong_width did not raise",
            ));
        }
        out.qids.push(tuple.get_item(0)?);
        out.docnos.push(tuple.get_item(1)?);
        out.values.push(tuple.get_item(2)?);
    }
    Ok(out)
}

/// An id: a good str or bytes id in place, anything else as the rule makes it.
fn id<'a>(
    value: &'a Bound<'_, PyAny>,
    field: usize,
    row: usize,
    rules: &Rules<'_>,
) -> PyResult<Cow<'a, [u8]>> {
    match id_bytes(value) {
        Some(id) if good_id(&id) => Ok(id),
        _ => {
            let id = rules.rules.call_method1("id", (value, field, row))?;
            Ok(Cow::Owned(id.downcast::<PyBytes>()?.as_bytes().to_vec()))
        }
    }
}

/// A value read natively: a finite float (a score, or a fractional grade), or an int of at
/// most 2^53 in magnitude; None for anything else.
fn native(value: &Bound<'_, PyAny>, floats: bool) -> Option<f64> {
    if let Ok(float) = value.downcast_exact::<PyFloat>() {
        let v = float.value();
        return (floats && v.is_finite()).then_some(v);
    }
    if value.is_exact_instance_of::<PyInt>() {
        let n = value.extract::<i64>().ok()?;
        return (n.unsigned_abs() <= 1 << 53).then_some(n as f64);
    }
    None
}

/// Hands each row's (qid, docno, value) to `push`, in order; `floats`: whether a float value
/// is read natively (scores, fractional grades).
pub fn read<'py>(
    rows: &Bound<'py, PyAny>,
    floats: bool,
    rules: &Rules<'py>,
    mut push: impl FnMut(&[u8], &[u8], f64) -> PyResult<()>,
) -> PyResult<usize> {
    let cells = cells(rows, rules)?;
    for row in 0..cells.values.len() {
        let (q, d, v) = (&cells.qids[row], &cells.docnos[row], &cells.values[row]);
        let qid = id(q, 0, row, rules)?;
        let docno = id(d, 1, row, rules)?;
        let value = match native(v, floats) {
            Some(value) => value,
            None => rules
                .rules
                .call_method1("value", (v, q, d, row))?
                .extract()?,
        };
        push(&qid, &docno, value)?;
    }
    Ok(cells.values.len())
}

/// Hands each subtopic judgment row's (qid, subtopic, docno, grade) to `push`, in order. Where
/// each field sits is the rules' `layout(row, index) -> (width, qid, subtopic, docno, grade)`,
/// asked once per type of row (a plain tuple, ir_measures' Qrel, pyndeval's SubtopicQrel); the
/// subtopic is an id (field 2 to the `id` rule), the grade an integer.
pub fn read_subtopics<'py>(
    rows: &Bound<'py, PyAny>,
    rules: &Rules<'py>,
    mut push: impl FnMut(&[u8], &[u8], &[u8], f64) -> PyResult<()>,
) -> PyResult<usize> {
    type Layout = (usize, usize, usize, usize, usize);
    let mut layouts: Vec<(Bound<'py, PyType>, Layout)> = Vec::new();
    let mut count = 0;
    for (i, row) in rows.try_iter()?.enumerate() {
        let row = row?;
        let kind = row.get_type();
        let layout = match layouts.iter().find(|(t, _)| t.is(&kind)) {
            Some((_, layout)) => *layout,
            None => {
                let layout: Layout = rules.rules.call_method1("layout", (&row, i))?.extract()?;
                layouts.push((kind, layout));
                layout
            }
        };
        let (width, qid_at, subtopic_at, docno_at, grade_at) = layout;
        let tuple = row.downcast::<PyTuple>()?; // the layout rule refuses what is not a tuple
        if tuple.len() != width {
            rules.rules.call_method1("wrong_width", (&row, i))?;
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "wrong_width did not raise",
            ));
        }
        let (q, s, d, g) = (
            tuple.get_item(qid_at)?,
            tuple.get_item(subtopic_at)?,
            tuple.get_item(docno_at)?,
            tuple.get_item(grade_at)?,
        );
        let qid = id(&q, 0, i, rules)?;
        let subtopic = id(&s, 2, i, rules)?;
        let docno = id(&d, 1, i, rules)?;
        let grade = match native(&g, false) {
            Some(value) => value,
            None => rules
                .rules
                .call_method1("value", (&g, &q, &d, i))?
                .extract()?,
        };
        push(&qid, &subtopic, &docno, grade)?;
        count += 1;
    }
    Ok(count)
}
