//! Byte sources from Python: a binary file object as a reader, a path or an object as the
//! core's Input, and where a part of a run file may begin.

use std::fs::File;
use std::io::{self, Read};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use trecgain_core::error::Error;
use trecgain_core::read::Input;

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
pub(crate) fn strerror(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// A path, or a binary file object, as an Input named `name`.
pub(crate) fn input(source: &Bound<'_, PyAny>, name: String) -> PyResult<Result<Input, Error>> {
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

/// Where a part of a run file may begin (trecgain.distributed): from `file`, a binary file
/// object positioned at byte `position`, the start of the first line after the one holding it
/// whose qid differs from the first run line's there, and the newlines from `position + 1` to it.
#[pyfunction]
pub(crate) fn part_start(py: Python<'_>, file: PyObject, position: u64) -> PyResult<(u64, u64)> {
    let reader = PyReader { file };
    let found = py
        .allow_threads(|| trecgain_core::read::part_start(reader, position))
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    Ok((found.offset, found.newlines))
}
