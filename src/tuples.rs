//! Iterables of rows, `(qid, docno, value)` tuples or ir_measures' namedtuples (and subtopic
//! judgments, `(qid, subtopic, docno, grade)`), read here without a Python call per row: an
//! iterable that is not a list is first made one (`list(rows)`, in C), then the rows are read
//! in one pass, ids and values read natively where they are the usual kinds (str or bytes ids;
//! float scores; int grades, float ones when fractional) and handed to the caller's rules
//! otherwise, which return them or raise TrecgainError naming the row. Where each field sits
//! is the rules' once per type of row. As the text readers do, a row's faults are reported qid
//! first, then docno, then value; for `(qid, docno, value)` rows a shape's fault (a row of
//! another width, or not a tuple) comes before any cell's, so before the first cell that is not
//! read natively the rows after it are checked for their shapes. Only references to the cells
//! are held while reading, as the caller's rows hold them.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyList, PyTuple, PyType};
use pyo3::PyTypeInfo;

use crate::ids::{good_id, id_bytes};

/// The caller's rules (trecgain/rows.py): for `(qid, docno, value)` rows `width(row, index)
/// -> int` (the fields a row of that type must have, or its fault raised), for subtopic rows
/// `layout(row, index) -> (width, qid, subtopic, docno, grade)`; `wrong_width(row, index)`
/// (raises), `id(value, field, index) -> bytes`, `value(value, qid, docno, index) -> float`.
pub struct Rules<'py> {
    rules: Bound<'py, PyAny>,
}

impl<'py> Rules<'py> {
    pub fn new(rules: Bound<'py, PyAny>) -> Self {
        Rules { rules }
    }
}

/// Where a row's fields sit: its width and the places of its qid, docno, value and subtopic.
#[derive(Clone, Copy)]
struct Layout {
    width: usize,
    qid: usize,
    docno: usize,
    value: usize,
    subtopic: usize,
}

/// A plain `(qid, docno, value)` tuple's layout.
const PLAIN: Layout = Layout {
    width: 3,
    qid: 0,
    docno: 1,
    value: 2,
    subtopic: 0,
};

/// The rows' shapes: each type of row's layout, asked of the rules once per type (`subtopics`:
/// the `layout` rule; otherwise a plain tuple is `PLAIN` and another type's width is the
/// `width` rule's).
struct Shapes<'a, 'py> {
    rules: &'a Rules<'py>,
    subtopics: bool,
    known: Vec<(Bound<'py, PyType>, Layout)>,
}

impl<'py> Shapes<'_, 'py> {
    /// The row as a tuple with its layout, or the row's shape fault (raised by the rules).
    fn check<'r>(
        &mut self,
        row: &'r Bound<'py, PyAny>,
        index: usize,
    ) -> PyResult<(&'r Bound<'py, PyTuple>, Layout)> {
        let layout = if !self.subtopics && row.is_exact_instance_of::<PyTuple>() {
            PLAIN
        } else {
            let kind = row.get_type();
            match self.known.iter().find(|(t, _)| t.is(&kind)) {
                Some((_, layout)) => *layout,
                None => {
                    let layout = self.ask(row, index)?;
                    self.known.push((kind, layout));
                    layout
                }
            }
        };
        let tuple = row.downcast::<PyTuple>()?; // the rules refuse what is not a tuple
        if tuple.len() != layout.width {
            self.rules.rules.call_method1("wrong_width", (row, index))?;
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "wrong_width did not raise",
            ));
        }
        Ok((tuple, layout))
    }

    /// The rules' layout for a type of row not seen before.
    fn ask(&self, row: &Bound<'py, PyAny>, index: usize) -> PyResult<Layout> {
        if self.subtopics {
            let (width, qid, subtopic, docno, value) = self
                .rules
                .rules
                .call_method1("layout", (row, index))?
                .extract()?;
            return Ok(Layout {
                width,
                qid,
                docno,
                value,
                subtopic,
            });
        }
        let width = self
            .rules
            .rules
            .call_method1("width", (row, index))?
            .extract()?;
        Ok(Layout { width, ..PLAIN })
    }
}

/// An iterable of rows, as a list.
pub struct Rows<'py> {
    list: Bound<'py, PyList>,
}

impl<'py> Rows<'py> {
    /// The rows (a list as it is; another iterable made a list, as `list(rows)` does).
    pub fn new(rows: &Bound<'py, PyAny>) -> PyResult<Self> {
        let list = match rows.downcast_exact::<PyList>() {
            Ok(list) => list.clone(),
            Err(_) => PyList::type_object(rows.py())
                .call1((rows,))?
                .downcast_into::<PyList>()?,
        };
        Ok(Rows { list })
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Hands each `(qid, docno, value)` row to `push`, in order, with whether both ids were
    /// read natively and checked (`Some`), and then whether the qid is the previous row's
    /// (`Some(true)`: not looked up again); `floats`: whether a float value is read natively
    /// (scores, fractional grades).
    pub fn read(
        &self,
        floats: bool,
        rules: &Rules<'py>,
        mut push: impl FnMut(&[u8], &[u8], f64, Option<bool>) -> PyResult<()>,
    ) -> PyResult<usize> {
        let mut shapes = Shapes {
            rules,
            subtopics: false,
            known: Vec::new(),
        };
        let mut shapes_checked = false; // the rows' shapes, checked from the first unusual cell
        let mut previous = Previous::new();
        let mut row = 0;
        while row < self.list.len() {
            let item = self.list.get_item(row)?;
            let (tuple, layout) = shapes.check(&item, row)?;
            let (q, d, v) = (
                tuple.get_borrowed_item(layout.qid)?,
                tuple.get_borrowed_item(layout.docno)?,
                tuple.get_borrowed_item(layout.value)?,
            );
            let same = previous.same(&q);
            let unusual; // a row's ids as read when they are not all read natively
            let (qid, docno, value, same) = match (same, usual_id(&d), native(&v, floats)) {
                (Some(same), Some(docno), Some(value)) => {
                    (previous.bytes(), docno, value, Some(same))
                }
                (same, ..) => {
                    if !shapes_checked {
                        self.check_shapes(&mut shapes, row + 1)?; // a shape's fault first
                        shapes_checked = true;
                    }
                    let (qid, native_qid) = id(&q, 0, row, rules)?;
                    let (docno, native_docno) = id(&d, 1, row, rules)?;
                    let value = value_of(&v, &q, &d, row, floats, rules)?;
                    let checked = native_qid && native_docno;
                    previous.note(&q, &qid, checked);
                    unusual = (qid, docno);
                    let same = checked.then_some(same == Some(true));
                    (&*unusual.0, &*unusual.1, value, same)
                }
            };
            if let Err(error) = push(qid, docno, value, same) {
                if !shapes_checked {
                    self.check_shapes(&mut shapes, row + 1)?; // a shape's fault first
                }
                return Err(error);
            }
            row += 1;
        }
        Ok(row)
    }

    /// The shapes of rows `from..` checked (the first fault raised).
    fn check_shapes(&self, shapes: &mut Shapes<'_, 'py>, from: usize) -> PyResult<()> {
        let mut row = from;
        while row < self.list.len() {
            shapes.check(&self.list.get_item(row)?, row)?;
            row += 1;
        }
        Ok(())
    }

    /// Hands each subtopic judgment row's (qid, subtopic, docno, grade) to `push`, in order,
    /// each row's faults before the next row's. Where each field sits is the rules' `layout`,
    /// asked once per type of row (a plain tuple, ir_measures' Qrel, pyndeval's SubtopicQrel);
    /// the subtopic is an id (field 2 to the `id` rule), the grade an integer.
    pub fn read_subtopics(
        &self,
        rules: &Rules<'py>,
        mut push: impl FnMut(&[u8], &[u8], &[u8], f64) -> PyResult<()>,
    ) -> PyResult<usize> {
        let mut shapes = Shapes {
            rules,
            subtopics: true,
            known: Vec::new(),
        };
        let mut row = 0;
        while row < self.list.len() {
            let item = self.list.get_item(row)?;
            let (tuple, layout) = shapes.check(&item, row)?;
            let (q, s, d, g) = (
                tuple.get_borrowed_item(layout.qid)?,
                tuple.get_borrowed_item(layout.subtopic)?,
                tuple.get_borrowed_item(layout.docno)?,
                tuple.get_borrowed_item(layout.value)?,
            );
            let (qid, _) = id(&q, 0, row, rules)?;
            let (subtopic, _) = id(&s, 2, row, rules)?;
            let (docno, _) = id(&d, 1, row, rules)?;
            let grade = value_of(&g, &q, &d, row, false, rules)?;
            push(&qid, &subtopic, &docno, grade)?;
            row += 1;
        }
        Ok(row)
    }
}

/// The previous row's qid when it was read natively: the object (held, so a row holding the
/// very same object has the same qid, not read again) and its bytes.
struct Previous<'py> {
    object: Option<Bound<'py, PyAny>>,
    bytes: Vec<u8>,
}

impl<'py> Previous<'py> {
    fn new() -> Self {
        Previous {
            object: None,
            bytes: Vec::new(),
        }
    }

    fn is(&self, qid: &Bound<'py, PyAny>) -> bool {
        self.object.as_ref().is_some_and(|o| o.is(qid))
    }

    /// Whether `qid` is read natively (`Some`), and then whether it is the previous row's qid;
    /// a new one is noted.
    fn same(&mut self, qid: &Bound<'py, PyAny>) -> Option<bool> {
        if self.is(qid) {
            return Some(true);
        }
        let id = usual_id(qid)?;
        let same = self.object.is_some() && self.bytes == id;
        self.bytes.clear();
        self.bytes.extend_from_slice(id);
        self.object = Some(qid.clone());
        Some(same)
    }

    /// The previous row's qid as read natively.
    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// After a row not read natively throughout: its qid, if read natively, is the previous.
    fn note(&mut self, qid_object: &Bound<'py, PyAny>, qid: &[u8], native: bool) {
        if !native {
            self.object = None;
            self.bytes.clear();
        } else if !self.is(qid_object) {
            self.bytes.clear();
            self.bytes.extend_from_slice(qid);
            self.object = Some(qid_object.clone());
        }
    }
}

/// A str or bytes id that the readers would read, in place (a str's UTF-8); None for anything
/// else (the rules' then).
fn usual_id<'a>(value: &'a Bound<'_, PyAny>) -> Option<&'a [u8]> {
    match id_bytes(value)? {
        Cow::Borrowed(id) if good_id(id) => Some(id),
        _ => None,
    }
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

/// A value read natively, or as the `value` rule makes it (or its fault).
fn value_of(
    value: &Bound<'_, PyAny>,
    qid: &Bound<'_, PyAny>,
    docno: &Bound<'_, PyAny>,
    row: usize,
    floats: bool,
    rules: &Rules<'_>,
) -> PyResult<f64> {
    match native(value, floats) {
        Some(value) => Ok(value),
        None => rules
            .rules
            .call_method1("value", (value, qid, docno, row))?
            .extract(),
    }
}
