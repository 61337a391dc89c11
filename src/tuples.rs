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

/// The rows, taken in one pass, each one's width checked (a shape's fault comes before any
/// cell's); only references, as the caller's rows hold them.
fn rows<'py>(rows: &Bound<'py, PyAny>, rules: &Rules<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let mut widths: Vec<(Bound<'py, PyType>, usize)> = Vec::new();
    let mut check = |i: usize, row: &Bound<'py, PyAny>| -> PyResult<()> {
        let width = if row.is_exact_instance_of::<PyTuple>() {
            3
        } else {
            let kind = row.get_type();
            if let Some((_, w)) = widths.iter().find(|(t, _)| t.is(&kind)) {
                *w
            } else {
                let w: usize = rules.rules.call_method1("width", (row, i))?.extract()?;
                widths.push((kind, w));
                w
            }
        };
        let tuple = row.downcast::<PyTuple>()?; // the width rule refuses what is not a tuple
        if tuple.len() != width {
            rules.rules.call_method1("wrong_width", (row, i))?;
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "wrong_width did not raise",
            ));
        }
        Ok(())
    };
    let mut taken = Vec::with_capacity(rows.len().unwrap_or(0));
    for (i, row) in rows.try_iter()?.enumerate() {
        let row = row?;
        check(i, &row)?;
        taken.push(row.downcast_into::<PyTuple>()?);
    }
    Ok(taken)
}

/// An id: a good str or bytes id in place (true: read natively, and checked as the readers
/// check ids), anything else as the rule makes it (false).
fn id<'a>(
    value: &'a Bound<'_, PyAny>,
    field: usize,
    row: usize,
    rules: &Rules<'_>,
) -> PyResult<(Cow<'a, [u8]>, bool)> {
    match id_bytes(value) {
        Some(id) if good_id(&id) => Ok((id, true)),
        _ => {
            let id = rules.rules.call_method1("id", (value, field, row))?;
            Ok((
                Cow::Owned(id.downcast::<PyBytes>()?.as_bytes().to_vec()),
                false,
            ))
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

/// Hands each row's (qid, docno, value) to `push`, in order, with whether both ids were read
/// natively and checked (`Some`), and then whether the qid is the previous row's (`Some(true)`:
/// not looked up again); `floats`: whether a float value is read natively (scores, fractional
/// grades).
pub fn read<'py>(
    rows_given: &Bound<'py, PyAny>,
    floats: bool,
    rules: &Rules<'py>,
    mut push: impl FnMut(&[u8], &[u8], f64, Option<bool>) -> PyResult<()>,
) -> PyResult<usize> {
    let rows = rows(rows_given, rules)?;
    let mut previous: Vec<u8> = Vec::new(); // the last natively read qid
    for (row, tuple) in rows.iter().enumerate() {
        let (q, d, v) = (tuple.get_item(0)?, tuple.get_item(1)?, tuple.get_item(2)?);
        let (qid, native_qid) = id(&q, 0, row, rules)?;
        let (docno, native_docno) = id(&d, 1, row, rules)?;
        let value = match native(&v, floats) {
            Some(value) => value,
            None => rules
                .rules
                .call_method1("value", (&v, &q, &d, row))?
                .extract()?,
        };
        let checked = (native_qid && native_docno).then(|| {
            let same = row > 0 && previous == *qid;
            if !same {
                previous.clear();
                previous.extend_from_slice(&qid);
            }
            same
        });
        if checked.is_none() {
            previous.clear();
        }
        push(&qid, &docno, value, checked)?;
    }
    Ok(rows.len())
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
        let (qid, _) = id(&q, 0, i, rules)?;
        let (subtopic, _) = id(&s, 2, i, rules)?;
        let (docno, _) = id(&d, 1, i, rules)?;
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
