//! trecgain._core: the Python face of the Rust engine. Python parses measure strings into
//! plain tuples and checks its options into one value (trecgain.options.EvaluationOptions),
//! read here by field name; this module turns them into the core's types, runs the stages and
//! hands back results; core errors become `trecgain.errors.TrecgainError`.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use std::borrow::Cow;

use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use trecgain_core::error::Error;
use trecgain_core::evaluate::{
    assemble, lines_printed_differently, summaries_printed_differently, Evaluation, Measuring,
    Parts,
};
use trecgain_core::explain::{explain, query_index, Explanation};
use trecgain_core::options::{
    Base, Compat, Discount, GainPair, GainSpec, Options, Request, Scheme, Summary, Ties,
};
use trecgain_core::output::{write_trec, write_trec_streamed, Kind, Layout, LineFormat};
use trecgain_core::read::{
    read_relevance_path, read_relevance_with, read_run_path, read_run_with, Input, Qrels,
    ReadOptions, RelFormat, Run, MAX_ID_BYTES,
};
use trecgain_core::zscores::ZScores;

/// The core's error as the package's TrecgainError(message, source, line).
fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let raised = py
        .import("trecgain.errors")
        .and_then(|m| m.getattr("TrecgainError"))
        .and_then(|cls| cls.call1((err.message.clone(), err.source.clone(), err.line)));
    match raised {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

/// A Python binary file object (`.read(n)`) as a byte source for the reader.
struct PyReader {
    file: PyObject,
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::with_gil(|py| {
            py.check_signals()
                .map_err(|e| io::Error::new(io::ErrorKind::Interrupted, e.to_string()))?;
            let data = self
                .file
                .call_method1(py, "read", (buf.len(),))
                .map_err(|e| io::Error::other(e.to_string()))?;
            let data = data.bind(py);
            let bytes: &[u8] = if let Ok(b) = data.downcast::<PyBytes>() {
                b.as_bytes()
            } else {
                return Err(io::Error::other("the file object did not return bytes"));
            };
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            Ok(n)
        })
    }
}

/// "No such file or directory", as C's strerror says it (without Rust's "(os error 2)").
fn strerror(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// A path, or a binary file object, as an Input named `name`.
fn input(source: &Bound<'_, PyAny>, name: String) -> PyResult<Result<Input, Error>> {
    if let Ok(path) = source.extract::<std::path::PathBuf>() {
        return Ok(match File::open(&path) {
            Ok(f) => Ok(Input {
                name,
                reader: Box::new(f),
            }),
            Err(e) => Err(Error::in_file(
                format!("cannot read: {}", strerror(&e)),
                &name,
            )),
        });
    }
    Ok(Ok(Input {
        name,
        reader: Box::new(PyReader {
            file: source.clone().unbind(),
        }),
    }))
}

/// An id given in memory as the core reads it: a str's UTF-8 (surrogateescape's '\udc80' to
/// '\udcff' as the bytes they stand for), a bytes' bytes; None for anything else (another
/// type, a lone surrogate that stands for no byte).
fn id_bytes<'a>(item: &'a Bound<'_, PyAny>) -> Option<Cow<'a, [u8]>> {
    if let Ok(text) = item.downcast::<PyString>() {
        if let Ok(utf8) = text.to_str() {
            return Some(Cow::Borrowed(utf8.as_bytes()));
        }
        // SAFETY: text is a live str; the call returns a new reference or NULL with an error set,
        // which from_owned_ptr_or_err takes (a subclass's own encode() is not called).
        let encoded = unsafe {
            Bound::from_owned_ptr_or_err(
                item.py(),
                pyo3::ffi::PyUnicode_AsEncodedString(
                    text.as_ptr(),
                    c"utf-8".as_ptr(),
                    c"surrogateescape".as_ptr(),
                ),
            )
        };
        let encoded = encoded.ok()?;
        let bytes = encoded.downcast::<PyBytes>().ok()?;
        return Some(Cow::Owned(bytes.as_bytes().to_vec()));
    }
    item.downcast::<PyBytes>()
        .ok()
        .map(|b| Cow::Borrowed(b.as_bytes()))
}

/// An id the file readers would read: not empty, no ASCII whitespace or NUL, at most
/// MAX_ID_BYTES bytes (trecgain.check.key's rule for the bytes).
fn good_id(id: &[u8]) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_BYTES
        && !id.iter().any(|c| b" \t\n\r\x0b\x0c\0".contains(c))
}

/// The index of the first id in `ids` that `from_rows` would not take as it is (not a str or
/// bytes, a lone surrogate, empty, whitespace or NUL, over 1024 bytes), so that Python can
/// name it with trecgain.check's message and its row; None if every id is good.
#[pyfunction]
fn first_bad_id(ids: &Bound<'_, PyList>) -> Option<usize> {
    ids.iter()
        .position(|item| !id_bytes(&item).is_some_and(|id| good_id(&id)))
}

/// A buffer of doubles (a numpy float64 array, an array('d')) of as many values as there
/// are ids, to be read in place (None: no values).
fn doubles(
    values: &Bound<'_, PyAny>,
    qids: usize,
    docnos: usize,
) -> PyResult<Option<PyBuffer<f64>>> {
    // an empty array('d') has no memory, which PyBuffer refuses as misaligned
    let values = if values.len()? == 0 {
        None
    } else {
        Some(PyBuffer::<f64>::get(values)?)
    };
    let count = values.as_ref().map_or(0, PyBuffer::item_count);
    if count != qids || docnos != qids {
        return Err(PyValueError::new_err(format!(
            "columns of different lengths: {qids} qids, {docnos} docnos, {count} values"
        )));
    }
    Ok(values)
}

/// An id column as `from_rows` takes it, without a Python object per row but for the list: a
/// list of str or bytes; a buffer of whole numbers (a numpy int64 or uint64 array, read in
/// place), each id then its decimal spelling, as Python's `str(int)` writes it; or a pair
/// (str, buffer of uint64): the ids joined into one str, and where each ends in its UTF-8.
enum IdColumn<'py> {
    Texts(Bound<'py, PyList>),
    Signed(PyBuffer<i64>),
    Unsigned(PyBuffer<u64>),
    Joined(Bound<'py, PyString>, PyBuffer<u64>),
}

impl<'py> IdColumn<'py> {
    fn new(column: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(list) = column.downcast::<PyList>() {
            return Ok(IdColumn::Texts(list.clone()));
        }
        if let Ok((text, ends)) = column.extract::<(Bound<'py, PyString>, Bound<'py, PyAny>)>() {
            return Ok(IdColumn::Joined(text, PyBuffer::<u64>::get(&ends)?));
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
                "an id column is a list of str or bytes, a one-dimensional buffer of int64 or uint64, \
                 or a pair (str, buffer of uint64)",
            )
        })
    }

    fn len(&self) -> usize {
        match self {
            IdColumn::Texts(list) => list.len(),
            IdColumn::Signed(numbers) => numbers.item_count(),
            IdColumn::Unsigned(numbers) => numbers.item_count(),
            IdColumn::Joined(_, ends) => ends.item_count(),
        }
    }

    /// The ids as the core reads them (an id that is not a str or bytes is empty, which the
    /// core refuses at its row); a buffer that is not contiguous is copied out first.
    fn ids<'a>(&'a self, py: Python<'a>) -> PyResult<Box<dyn Iterator<Item = Id<'a>> + 'a>> {
        Ok(match self {
            IdColumn::Texts(list) => Box::new(
                list.iter()
                    .map(|item| Id::Text(id_bytes(&item).map(Cow::into_owned).unwrap_or_default())),
            ),
            IdColumn::Signed(numbers) => Box::new(in_place(py, numbers)?.map(Id::signed)),
            IdColumn::Unsigned(numbers) => {
                Box::new(in_place(py, numbers)?.map(|n| Id::number(false, n)))
            }
            IdColumn::Joined(text, ends) => {
                let text = text.to_str()?.as_bytes();
                let last =
                    in_place(py, ends)?.try_fold(0, |end, next| (end <= next).then_some(next));
                if last != Some(text.len() as u64) {
                    return Err(PyValueError::new_err(
                        "joined ids: the ends do not ascend to the text's length",
                    ));
                }
                let mut start = 0;
                Box::new(in_place(py, ends)?.map(move |end| {
                    let id = &text[start..end as usize];
                    start = end as usize;
                    Id::Slice(id)
                }))
            }
        })
    }
}

/// The items of a buffer, read in place (copied out first if it is not contiguous).
fn in_place<'a, T: Element + Copy>(
    py: Python<'a>,
    buffer: &'a PyBuffer<T>,
) -> PyResult<Box<dyn Iterator<Item = T> + 'a>> {
    Ok(match buffer.as_slice(py) {
        Some(cells) => Box::new(cells.iter().map(|cell| cell.get())),
        None => Box::new(buffer.to_vec(py)?.into_iter()),
    })
}

/// One id for the core: a str's or bytes' bytes, a part of joined ids, or a whole number's
/// decimal digits, kept in place (at most 20 bytes: "-9223372036854775808", "18446744073709551615").
enum Id<'a> {
    Text(Vec<u8>),
    Slice(&'a [u8]),
    Number { digits: [u8; 20], from: usize },
}

impl Id<'_> {
    fn signed(n: i64) -> Self {
        Id::number(n < 0, n.unsigned_abs())
    }

    fn number(negative: bool, mut magnitude: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut from = digits.len();
        loop {
            from -= 1;
            digits[from] = b'0' + (magnitude % 10) as u8;
            magnitude /= 10;
            if magnitude == 0 {
                break;
            }
        }
        if negative {
            from -= 1;
            digits[from] = b'-';
        }
        Id::Number { digits, from }
    }
}

impl AsRef<[u8]> for Id<'_> {
    fn as_ref(&self) -> &[u8] {
        match self {
            Id::Text(bytes) => bytes,
            Id::Slice(bytes) => bytes,
            Id::Number { digits, from } => &digits[*from..],
        }
    }
}

/// The rows of id columns and a value column, ids as the core reads them, values read in
/// place (copied out first if the buffer is not contiguous).
fn rows<'a>(
    py: Python<'a>,
    qids: &'a IdColumn<'_>,
    docnos: &'a IdColumn<'_>,
    values: &'a Option<PyBuffer<f64>>,
) -> PyResult<impl Iterator<Item = (Id<'a>, Id<'a>, f64)> + 'a> {
    let values = match values {
        None => Box::new(std::iter::empty()),
        Some(buffer) => in_place(py, buffer)?,
    };
    Ok(qids
        .ids(py)?
        .zip(docnos.ids(py)?)
        .zip(values)
        .map(|((q, d), v)| (q, d, v)))
}

#[pyclass(frozen, name = "Qrels", module = "trecgain._core")]
struct PyQrels {
    inner: Arc<Qrels>,
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

    /// Judgments given as (qid, docno, grade) triples (pytrec_eval's dict, flattened).
    #[staticmethod]
    fn from_judgments(
        py: Python<'_>,
        name: String,
        items: Vec<(Vec<u8>, Vec<u8>, f64)>,
        fractional: bool,
    ) -> PyResult<Self> {
        let qrels = Qrels::from_judgments(
            &name,
            items
                .iter()
                .map(|(q, d, g)| (q.as_slice(), d.as_slice(), *g)),
            fractional,
        )
        .map_err(|e| to_py(py, e))?;
        Ok(PyQrels {
            inner: Arc::new(qrels),
        })
    }

    /// Judgments given as columns of rows (a DataFrame's, a list of tuples'): each id column
    /// as `IdColumn` takes it (a list of str or bytes, checked first with `first_bad_id`; a
    /// buffer of int64 or uint64, their decimal text; joined ids), grades as a buffer of
    /// doubles; messages name the rows, counted from 1.
    #[staticmethod]
    fn from_rows(
        py: Python<'_>,
        name: String,
        qids: &Bound<'_, PyAny>,
        docnos: &Bound<'_, PyAny>,
        grades: &Bound<'_, PyAny>,
        fractional: bool,
    ) -> PyResult<Self> {
        let (qids, docnos) = (IdColumn::new(qids)?, IdColumn::new(docnos)?);
        let grades = doubles(grades, qids.len(), docnos.len())?;
        let qrels = Qrels::from_rows(&name, rows(py, &qids, &docnos, &grades)?, fractional)
            .map_err(|e| to_py(py, e))?;
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
struct PyRun {
    inner: Arc<Run>,
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

    /// Results given as (qid, docno, score) triples, plus queries with nothing retrieved.
    #[staticmethod]
    fn from_lines(
        py: Python<'_>,
        name: String,
        items: Vec<(Vec<u8>, Vec<u8>, f64)>,
        empty_qids: Vec<Vec<u8>>,
    ) -> PyResult<Self> {
        let run = Run::from_lines(
            &name,
            items
                .iter()
                .map(|(q, d, s)| (q.as_slice(), d.as_slice(), *s)),
            empty_qids,
        )
        .map_err(|e| to_py(py, e))?;
        Ok(PyRun {
            inner: Arc::new(run),
        })
    }

    /// Results given as columns of rows (a DataFrame's, a list of tuples'), as
    /// `Qrels.from_rows`: id columns as `IdColumn` takes them, scores as a buffer of doubles.
    #[staticmethod]
    fn from_rows(
        py: Python<'_>,
        name: String,
        qids: &Bound<'_, PyAny>,
        docnos: &Bound<'_, PyAny>,
        scores: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let (qids, docnos) = (IdColumn::new(qids)?, IdColumn::new(docnos)?);
        let scores = doubles(scores, qids.len(), docnos.len())?;
        let run =
            Run::from_rows(&name, rows(py, &qids, &docnos, &scores)?).map_err(|e| to_py(py, e))?;
        Ok(PyRun {
            inner: Arc::new(run),
        })
    }

    #[getter]
    fn source(&self) -> String {
        self.inner.source.clone()
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
fn integers(py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if values.len()? == 0 {
        return Ok(Vec::new()); // an empty array has no memory, which PyBuffer refuses
    }
    PyBuffer::<u64>::get(values)?.to_vec(py)
}

type SpecTuple = (String, Vec<(Option<i64>, f64)>, String, bool);
type RequestTuple = (
    String,
    Vec<usize>,
    Vec<f64>,
    Option<SpecTuple>,
    bool,
    Option<f64>,
    String,
    Vec<String>,
);

fn gain_spec((text, pairs, scheme, exact_ideal): SpecTuple) -> PyResult<GainSpec> {
    let scheme = match scheme.as_str() {
        "linear" => Scheme::Linear,
        "exp" => Scheme::Exp,
        "binary" => Scheme::Binary,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown gain scheme {other}"
            )))
        }
    };
    let pairs = pairs
        .into_iter()
        .map(|(level, gain)| GainPair { level, gain })
        .collect();
    Ok(GainSpec {
        text,
        pairs,
        scheme,
        exact_ideal,
    })
}

fn request(
    (kernel, cutoffs, params, gains, judged_only, relevance_level, summary, lines): RequestTuple,
) -> PyResult<Request> {
    let summary = match summary.as_str() {
        "mean" => Summary::Mean,
        "sum" => Summary::Sum,
        "sum_judged_relevant" => Summary::SumJudgedRelevant,
        "count" => Summary::Count,
        "tag" => Summary::Tag,
        "geometric_mean" => Summary::GeometricMean,
        "none" => Summary::None,
        other => return Err(PyValueError::new_err(format!("unknown summary {other}"))),
    };
    Ok(Request {
        kernel,
        cutoffs,
        params,
        gains: gains.map(gain_spec).transpose()?,
        judged_only,
        relevance_level,
        summary,
        lines,
    })
}

fn discount(kind: &str, base: &str) -> PyResult<Discount> {
    let base = match base {
        "2" => Base::Two,
        "e" => Base::E,
        "10" => Base::Ten,
        other => Base::Other(
            other
                .parse()
                .map_err(|_| PyValueError::new_err(format!("bad discount base '{other}'")))?,
        ),
    };
    match kind {
        "log" => Ok(Discount::Log(base)),
        "jk" => Ok(Discount::Jk(base)),
        other => Err(PyValueError::new_err(format!("unknown discount '{other}'"))),
    }
}

/// A field of a Python value, by name (a wrong type names the field).
fn field<'py, T: FromPyObject<'py>>(value: &Bound<'py, PyAny>, name: &str) -> PyResult<T> {
    value
        .getattr(name)?
        .extract()
        .map_err(|e| PyTypeError::new_err(format!("options field {name}: {e}")))
}

/// A gain spec given as a value with fields (trecgain.gains.GainSpec): text (only for messages,
/// a lone surrogate written as a backslash escape), pairs of (level, gain) with a level beyond
/// 64 bits saturated (it names no grade, as strtol saturates), scheme, exact_ideal.
fn gain_spec_fields(spec: &Bound<'_, PyAny>) -> PyResult<GainSpec> {
    let text = spec
        .getattr("text")?
        .call_method1("encode", ("utf-8", "backslashreplace"))?;
    let text = String::from_utf8_lossy(text.downcast::<PyBytes>()?.as_bytes()).into_owned();
    let mut pairs = Vec::new();
    for pair in spec.getattr("pairs")?.try_iter()? {
        let pair = pair?;
        let level = pair.getattr("level")?;
        let level = if level.is_none() {
            None
        } else {
            Some(
                level
                    .extract::<i64>()
                    .or_else(|_| Ok::<_, PyErr>(if level.gt(0)? { i64::MAX } else { i64::MIN }))?,
            )
        };
        pairs.push((level, field(&pair, "gain")?));
    }
    gain_spec((
        text,
        pairs,
        field(spec, "scheme")?,
        field(spec, "exact_ideal")?,
    ))
}

/// The core's Options from the Python options value (trecgain.options.EvaluationOptions), read
/// field by field by name; an unknown compat, tie rule or discount is an error naming it,
/// never a default.
fn core_options(value: &Bound<'_, PyAny>) -> PyResult<Options> {
    let compat: String = field(value, "compat")?;
    let ties: String = field(value, "ties")?;
    let discount_value = value.getattr("discount")?;
    let kind: String = field(&discount_value, "kind")?;
    let base: String = field(&discount_value, "base")?;
    let global_gains = value.getattr("global_gains")?;
    Ok(Options {
        relevance_level: field(value, "relevance_level")?,
        judged_only: field(value, "judged_only")?,
        max_docs: field(value, "max_docs")?,
        complete: field(value, "complete")?,
        empty_ok: field(value, "empty_ok")?,
        compat: match compat.as_str() {
            "9" => Compat::Nine,
            "10" => Compat::Ten,
            other => return Err(PyValueError::new_err(format!("unknown compat '{other}'"))),
        },
        discount: discount(&kind, &base)?,
        global_gains: if global_gains.is_none() {
            None
        } else {
            Some(gain_spec_fields(&global_gains)?)
        },
        exact_ideal: field(value, "exact_ideal")?,
        err_max_grade: field(value, "err_max_grade")?,
        num_docs: field(value, "num_docs")?,
        ties: match ties.as_str() {
            "docno" => Ties::Docno,
            "rank" => Ties::Rank,
            "average" => Ties::Average,
            "reversed" => Ties::Reversed,
            other => return Err(PyValueError::new_err(format!("no tie rule '{other}'"))),
        },
        rel_format: rel_format(&field::<String>(value, "rel_format")?)?,
        zscores: zscores(&value.getattr("zscores")?)?,
        only_query: field::<Option<Vec<u8>>>(value, "only_query")?,
    })
}

/// -Z's table (EvaluationOptions.zscores): None, or (qid, line name, mean, deviation) rows.
fn zscores(value: &Bound<'_, PyAny>) -> PyResult<Option<Arc<ZScores>>> {
    if value.is_none() {
        return Ok(None);
    }
    let rows: Vec<(Vec<u8>, Vec<u8>, f64, f64)> = value.extract()?;
    Ok(Some(Arc::new(ZScores::new(rows))))
}

/// An `-R` format by name (EvaluationOptions.rel_format).
fn rel_format(name: &str) -> PyResult<RelFormat> {
    RelFormat::named(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown relevance format '{name}'")))
}

#[pyclass(frozen, name = "Evaluation", module = "trecgain._core")]
struct PyEvaluation {
    inner: Evaluation,
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
    options: Options,
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

fn kind(text: &str) -> PyResult<Kind> {
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
fn py_evaluate(
    py: Python<'_>,
    qrels: &PyQrels,
    run: &PyRun,
    requests: Vec<RequestTuple>,
    options: &Bound<'_, PyAny>,
    keep_values: bool,
    tie_lines: Option<Vec<Option<usize>>>,
) -> PyResult<PyEvaluation> {
    let requests = requests
        .into_iter()
        .map(request)
        .collect::<PyResult<Vec<_>>>()?;
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
fn failing_query<'py>(
    py: Python<'py>,
    qrels: &PyQrels,
    run: &PyRun,
    requests: Vec<RequestTuple>,
    options: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let requests = requests
        .into_iter()
        .map(request)
        .collect::<PyResult<Vec<_>>>()?;
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
/// and run queries the qrels lack; `failure`: the first query (in query order) a part failed
/// to measure, with its error.
#[pyfunction]
#[pyo3(name = "assemble", signature = (qrels, requests, options, source, tag, qids, values,
                                       warnings, counts, keep_values, failure=None))]
#[allow(clippy::too_many_arguments)]
fn py_assemble(
    py: Python<'_>,
    qrels: &PyQrels,
    requests: Vec<RequestTuple>,
    options: &Bound<'_, PyAny>,
    source: String,
    tag: Vec<u8>,
    qids: Vec<Vec<u8>>,
    values: &Bound<'_, PyBytes>,
    warnings: Vec<String>,
    counts: (usize, usize),
    keep_values: bool,
    failure: Option<Failure>,
) -> PyResult<PyEvaluation> {
    let requests = requests
        .into_iter()
        .map(request)
        .collect::<PyResult<Vec<_>>>()?;
    let options = core_options(options)?;
    let bytes = values.as_bytes();
    if bytes.len() % 8 != 0 {
        return Err(PyValueError::new_err(
            "values are not a whole number of doubles",
        ));
    }
    let (mixed_tie_queries, queries_not_in_qrels) = counts;
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
    };
    let failure = failure.map(|(qid, message, source, line)| {
        let error = Error {
            message,
            source,
            line,
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

/// One query's computation of one measure (`trecgain explain`): the request and options as
/// the Python Evaluator builds them, the query's id, and at least `min_rows` rows. A dict of
/// rows, the lines' values, the documents missed, the tie groups and counts.
#[pyfunction]
#[pyo3(name = "explain")]
fn py_explain<'py>(
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

/// The core's measure records (`trecgain_core::measures::KERNELS`), in output order, one dict
/// each with the facts as plain values: the Python registry is built from these (one call,
/// when the registry is first imported).
#[pyfunction]
fn kernels(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    use trecgain_core::measures::{Explain, Naming, ParamKind, Relevance, Value, KERNELS};
    let out = PyList::empty(py);
    for k in KERNELS {
        let d = PyDict::new(py);
        d.set_item("name", k.name)?;
        d.set_item("help", k.help)?;
        let params = match k.params {
            ParamKind::None => "none",
            ParamKind::Cutoffs => "cutoffs",
            ParamKind::Points => "points",
            ParamKind::Numbers => "numbers",
            ParamKind::Coefficients => "coefficients",
            ParamKind::Length => "length",
            ParamKind::Gains => "gains",
            ParamKind::Persistence => "persistence",
        };
        d.set_item("params", params)?;
        let naming = match k.naming {
            Naming::Plain => "plain",
            Naming::Params => "params",
            Naming::Cutoffs => "cutoffs",
            Naming::Points => "points",
        };
        d.set_item("naming", naming)?;
        let value = match k.value {
            Value::Float => "float",
            Value::Count => "count",
            Value::Tag => "tag",
            Value::Chars => "chars",
        };
        d.set_item("value", value)?;
        let summary = match k.summary {
            Summary::Mean => "mean",
            Summary::Sum => "sum",
            Summary::SumJudgedRelevant => "sum_judged_relevant",
            Summary::Count => "count",
            Summary::Tag => "tag",
            Summary::GeometricMean => "geometric_mean",
            Summary::None => "none",
        };
        d.set_item("summary", summary)?;
        d.set_item("per_query", k.per_query)?;
        d.set_item("in_trec_eval_9", k.in_trec_eval_9)?;
        d.set_item("in_trec_eval", k.in_trec_eval)?;
        d.set_item("tie_average", k.tie_average)?;
        d.set_item("gains", k.gains)?;
        d.set_item("discounted", k.discounted)?;
        d.set_item("rank_order", k.rank_order)?;
        d.set_item("lower_is_better", k.lower_is_better)?;
        let explain = k.explain.map(|e| match e {
            Explain::Ndcg => "Ndcg",
            Explain::NdcgCut => "NdcgCut",
            Explain::Dcg => "Dcg",
            Explain::Ideal => "Ideal",
            Explain::Cg => "Cg",
        });
        d.set_item("explain", explain)?;
        d.set_item("ir_measures", k.ir_measures.to_vec())?;
        d.set_item("ir_params", k.ir_params.to_vec())?;
        d.set_item("default_cutoffs", k.default_cutoffs.to_vec())?;
        d.set_item("default_numbers", k.default_numbers.to_vec())?;
        let relevance = match k.relevance {
            Relevance::Any => "any",
            Relevance::Grades => "qrels",
            Relevance::Groups => "qrels_jg",
            Relevance::Preferences => "prefs",
        };
        d.set_item("relevance", relevance)?;
        out.append(d)?;
    }
    Ok(out)
}

fn explanation_dict<'py>(py: Python<'py>, e: &Explanation) -> PyResult<Bound<'py, PyDict>> {
    let rows = PyList::empty(py);
    for row in &e.rows {
        let d = PyDict::new(py);
        d.set_item("rank", row.rank)?;
        match &row.doc {
            Some(doc) => {
                d.set_item("docno", PyBytes::new(py, &doc.docno))?;
                d.set_item("score", doc.score)?;
                d.set_item("sort_score", doc.sort_score)?;
                d.set_item("line", doc.line)?;
            }
            None => {
                for key in ["docno", "score", "sort_score", "line"] {
                    d.set_item(key, py.None())?;
                }
            }
        }
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
    out.set_item("missed", missed)?;
    out.set_item("ties", ties)?;
    out.set_item("ranked", e.ranked)?;
    out.set_item("ideal", e.ideal)?;
    out.set_item("judged", e.judged)?;
    out.set_item("warnings", e.warnings.clone())?;
    Ok(out)
}

/// Ctrl-C in the command line: status 130 at once, even while the core runs and Python's
/// own handler cannot (a blocking open of a FIFO, a long evaluation); with `announce`, one
/// line on stderr first (the main process), else nothing (the -j workers: the main process
/// says it once). Only the `trecgain` program calls this; the library leaves a user's signal
/// handlers alone.
#[pyfunction]
fn exit_on_interrupt(announce: bool) {
    extern "C" fn announce_and_exit(_: libc::c_int) {
        const MESSAGE: &[u8] = b"trecgain: interrupted\n";
        // SAFETY: write(2) and _exit(2) are async-signal-safe (POSIX's list for signal
        // handlers); MESSAGE is a static buffer valid for its whole length, and nothing
        // else is touched, so the handler is sound whatever the interrupted thread was doing.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(130);
        }
    }
    extern "C" fn exit_quietly(_: libc::c_int) {
        // SAFETY: _exit(2) is async-signal-safe and touches no memory of the process.
        unsafe { libc::_exit(130) }
    }
    let handler: extern "C" fn(libc::c_int) = if announce {
        announce_and_exit
    } else {
        exit_quietly
    };
    // SAFETY: signal(2) with a handler of the right type (extern "C" fn(c_int)) that only
    // makes async-signal-safe calls; replacing the SIGINT disposition affects no memory.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
}

/// A -j worker dies with its parent (SIGKILL when the parent ends, however it ends), so no
/// worker outlives the command; `parent` is the parent's pid, read before the fork: if it
/// already ended before the signal was asked for, the worker ends now.
#[pyfunction]
fn die_with_parent(parent: i32) {
    // SAFETY: prctl(PR_SET_PDEATHSIG, signal) takes two integers and changes only this
    // process's parent-death signal; getppid() and _exit() take no pointers; none touches
    // memory the program uses.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
}

/// What an allocation that fails does: abort as Rust does (the library: a user's process is
/// not ours to end), or, in the command line, end at once with status 1, after one line on
/// stderr (the main process) or none (a -j worker: the main process reports it).
static ON_OUT_OF_MEMORY: AtomicU8 = AtomicU8::new(ABORT);
const ABORT: u8 = 0;
const EXIT_QUIETLY: u8 = 1;
const EXIT_WITH_LINE: u8 = 2;

/// The system allocator, with the command line's one-line end when memory runs out.
struct Allocator;

impl Allocator {
    fn out_of_memory(&self) {
        let mode = ON_OUT_OF_MEMORY.load(Ordering::Relaxed);
        if mode == ABORT {
            return; // the null pointer goes back, and Rust's handler aborts
        }
        const MESSAGE: &[u8] = b"trecgain: out of memory\n";
        // SAFETY: write(2) and _exit(2) allocate nothing and are async-signal-safe; MESSAGE is
        // a static buffer valid for its whole length. Ending the process here never returns
        // a pointer, so no caller can misuse one.
        unsafe {
            if mode == EXIT_WITH_LINE {
                libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            }
            libc::_exit(1);
        }
    }
}

// SAFETY: every method forwards to `System` with the same arguments and returns its result
// unchanged, so the GlobalAlloc contract (sizes, alignment, null on failure) is System's; the
// only addition runs when System has already failed, and either returns that null or ends
// the process.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        let p = System.alloc(layout);
        if p.is_null() {
            self.out_of_memory();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            self.out_of_memory();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            self.out_of_memory();
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Allocator = Allocator;

/// The command line's end when memory runs out: one line and status 1 (`announce`), or
/// status 1 alone (-j workers). Only the `trecgain` program calls this.
#[pyfunction]
fn exit_on_out_of_memory(announce: bool) {
    let mode = if announce {
        EXIT_WITH_LINE
    } else {
        EXIT_QUIETLY
    };
    ON_OUT_OF_MEMORY.store(mode, Ordering::Relaxed);
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(exit_on_interrupt, m)?)?;
    m.add_function(wrap_pyfunction!(die_with_parent, m)?)?;
    m.add_function(wrap_pyfunction!(exit_on_out_of_memory, m)?)?;
    m.add_class::<PyQrels>()?;
    m.add_class::<PyRun>()?;
    m.add_class::<PyEvaluation>()?;
    m.add_function(wrap_pyfunction!(py_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(py_explain, m)?)?;
    m.add_function(wrap_pyfunction!(first_bad_id, m)?)?;
    m.add_function(wrap_pyfunction!(failing_query, m)?)?;
    m.add_function(wrap_pyfunction!(py_assemble, m)?)?;
    m.add_function(wrap_pyfunction!(kernels, m)?)?;
    Ok(())
}
