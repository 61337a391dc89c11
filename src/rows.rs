//! Rows given as columns (a DataFrame's, a list of tuples', split by trecgain/rows.py), read
//! here row by row into the core's builders without a Python call per row and without a
//! copy of an id but into the core's columns.
//!
//! An id column is one of:
//! - a list of Python objects: a str (its UTF-8; surrogateescape's '\udc80'..'\udcff' as the
//!   bytes they stand for) or bytes is read in place when it is a good id; anything else
//!   (an int, numpy's scalars, a bad id) goes to the caller's `rule(value, field, row)`, which
//!   returns the id's bytes or raises TrecgainError naming the row (trecgain.check's rules);
//! - a one-dimensional buffer of int64 or uint64 (a numpy array, read in place): each id its
//!   decimal text, as `str(int)` writes it;
//! - a one-dimensional C-contiguous numpy array of objects (a pandas column's `to_numpy()`,
//!   read in place: numpy's buffer of format "O"), each cell read as a list's;
//! - an Arrow C stream capsule of a string column (a polars String column's, a pyarrow
//!   array's), read in place by src/arrow.rs; a bad id goes to `rule` as its str.
//!
//! Values are a buffer of doubles the caller checked. `stop`: the first row the caller found
//! a value's fault in: the rows before it are read, and reading stops there without looking
//! at it, for the caller to report its first fault (qid, docno, then value).

use std::borrow::Cow;

use pyo3::buffer::{Element, PyBuffer, ReadOnlyCell};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyList, PyString};

use crate::arrow::Strings;
use crate::ids::{good_id, id_bytes, Digits};

/// A cell of a numpy array of objects: a borrowed pointer to the object the array holds.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct ObjectRef(*mut pyo3::ffi::PyObject);

// SAFETY: numpy's buffer format "O" is one `PyObject *` per item; PyBuffer::get checks the
// item's size and alignment against ObjectRef's (a pointer's) besides this format.
unsafe impl Element for ObjectRef {
    fn is_compatible_format(format: &std::ffi::CStr) -> bool {
        format.to_bytes() == b"O"
    }
}

/// An id column, as the module says.
enum IdColumn<'py> {
    Objects(Bound<'py, PyList>),
    Signed(PyBuffer<i64>),
    Unsigned(PyBuffer<u64>),
    ObjectArray(PyBuffer<ObjectRef>),
    Arrow(Strings),
}

impl<'py> IdColumn<'py> {
    fn new(column: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(list) = column.downcast::<PyList>() {
            return Ok(IdColumn::Objects(list.clone()));
        }
        if let Ok(capsule) = column.downcast::<PyCapsule>() {
            return Ok(IdColumn::Arrow(Strings::from_capsule(capsule)?));
        }
        if let Ok(objects) = PyBuffer::<ObjectRef>::get(column) {
            if objects.dimensions() != 1 || !objects.is_c_contiguous() {
                return Err(PyTypeError::new_err(
                    "an array of objects as ids is one-dimensional and C-contiguous",
                ));
            }
            return Ok(IdColumn::ObjectArray(objects));
        }
        let numbers = match PyBuffer::<i64>::get(column) {
            Ok(signed) if signed.dimensions() == 1 => Some(IdColumn::Signed(signed)),
            Ok(_) => None,
            Err(_) => PyBuffer::<u64>::get(column)
                .ok()
                .filter(|unsigned| unsigned.dimensions() == 1)
                .map(IdColumn::Unsigned),
        };
        numbers.ok_or_else(|| {
            PyTypeError::new_err(
                "an id column is a list, a one-dimensional buffer of int64, uint64 or \
                 objects, or an Arrow C stream capsule",
            )
        })
    }

    fn len(&self) -> usize {
        match self {
            IdColumn::Objects(list) => list.len(),
            IdColumn::Signed(numbers) => numbers.item_count(),
            IdColumn::Unsigned(numbers) => numbers.item_count(),
            IdColumn::ObjectArray(objects) => objects.item_count(),
            IdColumn::Arrow(strings) => strings.len(),
        }
    }
}

/// The cells of a buffer, in place, or copied out when it is not contiguous.
enum Cells<'a, T: Element> {
    InPlace(&'a [ReadOnlyCell<T>]),
    Copied(Vec<T>),
}

impl<'a, T: Element + Copy> Cells<'a, T> {
    fn new(py: Python<'a>, buffer: &'a PyBuffer<T>) -> PyResult<Self> {
        Ok(match buffer.as_slice(py) {
            Some(cells) => Cells::InPlace(cells),
            None => Cells::Copied(buffer.to_vec(py)?),
        })
    }

    #[inline]
    fn get(&self, i: usize) -> T {
        match self {
            Cells::InPlace(cells) => cells[i].get(),
            Cells::Copied(values) => values[i],
        }
    }
}

/// An id column ready to read row by row.
enum Reader<'a, 'py> {
    Objects(&'a Bound<'py, PyList>),
    Signed(Cells<'a, i64>),
    Unsigned(Cells<'a, u64>),
    ObjectArray(Python<'py>, &'a [ReadOnlyCell<ObjectRef>]),
    /// The strings and the chunk of the row last read.
    Arrow(&'a Strings, std::cell::Cell<usize>),
}

impl<'a, 'py> Reader<'a, 'py> {
    fn new(py: Python<'py>, column: &'a IdColumn<'py>) -> PyResult<Self>
    where
        'py: 'a,
    {
        Ok(match column {
            IdColumn::Objects(list) => Reader::Objects(list),
            IdColumn::Signed(numbers) => Reader::Signed(Cells::new(py, numbers)?),
            IdColumn::Unsigned(numbers) => Reader::Unsigned(Cells::new(py, numbers)?),
            IdColumn::ObjectArray(objects) => {
                let cells = objects.as_slice(py).ok_or_else(|| {
                    PyTypeError::new_err("an array of objects as ids is C-contiguous")
                })?;
                Reader::ObjectArray(py, cells)
            }
            IdColumn::Arrow(strings) => Reader::Arrow(strings, std::cell::Cell::new(0)),
        })
    }

    /// The cell of `row`: an object of the list, or the id itself.
    #[inline(always)]
    fn cell(&self, row: usize) -> PyResult<Cell<'a, 'py>> {
        Ok(match self {
            Reader::Objects(list) => Cell::Object(list.get_item(row)?),
            Reader::Signed(cells) => Cell::Number(Digits::signed(cells.get(row))),
            Reader::Unsigned(cells) => Cell::Number(Digits::number(false, cells.get(row))),
            Reader::ObjectArray(py, cells) => {
                let pointer = cells[row].get().0;
                // SAFETY: the array holds a strong reference to each object it holds; the
                // pointer is read now, under the GIL, and a reference of our own taken at once,
                // before any Python code (a rule) could replace the array's cell. The buffer
                // keeps the array's memory (numpy does not resize an exported array).
                let object = unsafe { Bound::from_borrowed_ptr_or_opt(*py, pointer) };
                Cell::Object(
                    object
                        .ok_or_else(|| PyValueError::new_err("an array of objects holds a NULL"))?,
                )
            }
            Reader::Arrow(strings, hint) => {
                let chunk = strings.chunk_of(row, hint.get());
                hint.set(chunk);
                Cell::Slice(strings.get(row, chunk))
            }
        })
    }
}

/// One row's id as read: a Python object, a number's text, or an Arrow string in place.
enum Cell<'a, 'py> {
    Object(Bound<'py, PyAny>),
    Number(Digits),
    Slice(&'a [u8]),
}

impl Cell<'_, '_> {
    /// The id's bytes; an object that is not a good str or bytes id as `rule` makes it.
    #[inline(always)]
    fn bytes(&self, field: usize, row: usize, rule: &Bound<'_, PyAny>) -> PyResult<Cow<'_, [u8]>> {
        match self {
            Cell::Object(object) => match id_bytes(object) {
                Some(id) if good_id(&id) => Ok(id),
                _ => ruled(rule, object, field, row),
            },
            Cell::Number(id) => Ok(Cow::Borrowed(id.as_ref())),
            Cell::Slice(id) if good_id(id) => Ok(Cow::Borrowed(id)),
            Cell::Slice(id) => {
                // an Arrow string column's strings are UTF-8 (the format's promise, checked here)
                let text = std::str::from_utf8(id).map_err(|_| {
                    PyValueError::new_err("an id of an Arrow string column is not UTF-8")
                })?;
                ruled(rule, &PyString::new(rule.py(), text), field, row)
            }
        }
    }
}

/// An id the core does not read natively, as `rule` makes it (or its fault); out of the
/// row loop, which it seldom leaves.
#[cold]
#[inline(never)]
fn ruled<'c>(
    rule: &Bound<'_, PyAny>,
    id: &Bound<'_, PyAny>,
    field: usize,
    row: usize,
) -> PyResult<Cow<'c, [u8]>> {
    let id = rule.call1((id, field, row))?;
    Ok(Cow::Owned(id.downcast::<PyBytes>()?.as_bytes().to_vec()))
}

/// The columns of some rows, checked to be of one length.
pub struct Columns<'py> {
    py: Python<'py>,
    qids: IdColumn<'py>,
    docnos: IdColumn<'py>,
    /// None: no rows (an empty array('d') has no memory, which PyBuffer refuses as misaligned).
    values: Option<PyBuffer<f64>>,
    rule: Bound<'py, PyAny>,
}

impl<'py> Columns<'py> {
    /// The columns; with `stop`, the values may end there (the caller found a fault there).
    pub fn new(
        py: Python<'py>,
        qids: &Bound<'py, PyAny>,
        docnos: &Bound<'py, PyAny>,
        values: &Bound<'py, PyAny>,
        rule: &Bound<'py, PyAny>,
        stop: Option<usize>,
    ) -> PyResult<Self> {
        let (qids, docnos) = (IdColumn::new(qids)?, IdColumn::new(docnos)?);
        let values = if values.len()? == 0 {
            None
        } else {
            Some(PyBuffer::<f64>::get(values)?)
        };
        let count = values.as_ref().map_or(0, PyBuffer::item_count);
        let enough = count == qids.len() || stop.is_some_and(|s| count >= s.min(qids.len()));
        if !enough || docnos.len() != qids.len() {
            return Err(PyValueError::new_err(format!(
                "columns of different lengths: {} qids, {} docnos, {count} values",
                qids.len(),
                docnos.len()
            )));
        }
        Ok(Columns {
            py,
            qids,
            docnos,
            values,
            rule: rule.clone(),
        })
    }

    pub fn len(&self) -> usize {
        self.qids.len()
    }

    /// Hands each row's (qid, whether it is the previous row's qid, docno, value) to `push`,
    /// in order, up to `stop`, the ids checked (`good_id`, or `rule`'s); false if reading
    /// stopped there.
    pub fn read(
        &self,
        stop: Option<usize>,
        mut push: impl FnMut(&[u8], bool, &[u8], f64) -> PyResult<()>,
    ) -> PyResult<bool> {
        let Some(values) = &self.values else {
            return Ok(stop.is_none());
        };
        let values = Cells::new(self.py, values)?;
        let (qids, docnos) = (
            Reader::new(self.py, &self.qids)?,
            Reader::new(self.py, &self.docnos)?,
        );
        let end = stop.map_or(self.len(), |s| s.min(self.len()));
        // a frame's qid column repeats one object for a query's rows (np.repeat, a join):
        // the previous row's qid is taken again when its cell is the same object (held here,
        // so that its address is not another object's meanwhile)
        let (mut last_object, mut last_qid): (Option<Bound<'py, PyAny>>, Vec<u8>) =
            (None, Vec::new());
        for row in 0..end {
            let (q, d) = (qids.cell(row)?, docnos.cell(row)?);
            let same = match (&q, &last_object) {
                (Cell::Object(object), Some(last)) => object.is(last),
                // an Arrow column's qid: the previous row's bytes (checked then) again
                (Cell::Slice(id), _) => row > 0 && *id == last_qid.as_slice(),
                _ => false,
            };
            if !same {
                let qid = q.bytes(0, row, &self.rule)?;
                last_qid.clear();
                last_qid.extend_from_slice(&qid);
                last_object = match &q {
                    Cell::Object(object) => Some(object.clone()),
                    _ => None,
                };
            }
            let docno = d.bytes(1, row, &self.rule)?;
            push(&last_qid, same, &docno, values.get(row))?;
        }
        Ok(end == self.len())
    }
}
