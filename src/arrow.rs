//! A string column given through the Arrow C stream interface (a capsule named
//! "arrow_array_stream", as a polars Series' or a pyarrow array's `__arrow_c_stream__()`
//! makes it), read in place: utf8 ("u"), large utf8 ("U") and string view ("vu") arrays, in
//! any number of chunks, without nulls. Every offset and view is checked once when the
//! column is taken, so that reading a row is only arithmetic on bounds already proven.
//!
//! The layouts are the Arrow columnar format's (arrow.apache.org/docs/format/CDataInterface.html
//! and Columnar.html): "u" / "U" have buffers [validity, offsets (i32 / i64, length + 1
//! of them from the array's offset), data]; "vu" has [validity, views (16 bytes each),
//! data buffers..., sizes of the data buffers (i64 each)], and a view is (length i32, then the
//! bytes themselves if length <= 12, else a 4-byte prefix, buffer index i32, offset i32).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

#[repr(C)]
struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

#[repr(C)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

#[repr(C)]
struct ArrowArrayStream {
    get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    private_data: *mut c_void,
}

/// A struct of the interface owned here: released (its producer's `release`) when dropped.
/// Boxed: the interface lets a consumer move the structs, and a box keeps the address handed
/// to the producer's callbacks fixed while it is ours.
struct Owned<T: Release>(Box<T>);

trait Release {
    /// Calls the producer's release callback, if the struct is not released yet.
    fn release(&mut self);
}

macro_rules! release {
    ($t:ty) => {
        impl Release for $t {
            fn release(&mut self) {
                if let Some(release) = self.release {
                    // SAFETY: the interface's contract: a struct whose `release` is set is live
                    // and is released once, by its consumer, through this callback with its
                    // own address; the callback marks it released (release = NULL).
                    unsafe { release(self) };
                    self.release = None;
                }
            }
        }
    };
}
release!(ArrowSchema);
release!(ArrowArray);
release!(ArrowArrayStream);

impl<T: Release> Drop for Owned<T> {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// How one chunk keeps its strings.
enum Layout {
    /// Offsets (widened to i64 when read) and the data.
    Offsets32(*const i32, *const u8),
    Offsets64(*const i64, *const u8),
    /// The views and each data buffer with its size.
    Views(*const [u8; 16], Vec<(*const u8, usize)>),
}

/// One array of the stream: its rows are `offset .. offset + len` of its buffers.
struct Chunk {
    layout: Layout,
    offset: usize,
    len: usize,
    _array: Owned<ArrowArray>,
}

/// A string column of the stream's chunks, every bound checked.
pub struct Strings {
    chunks: Vec<Chunk>,
    /// The first row of each chunk, and the column's length last.
    starts: Vec<usize>,
    _stream: Owned<ArrowArrayStream>,
}

impl Strings {
    /// Takes the stream out of `capsule` (the capsule is left released, as the PyCapsule
    /// interface asks of a consumer) and checks every chunk.
    pub fn from_capsule(capsule: &Bound<'_, PyCapsule>) -> PyResult<Strings> {
        if capsule.name()? != Some(c"arrow_array_stream") {
            return Err(PyTypeError::new_err("not an Arrow C stream capsule"));
        }
        let pointer = capsule.pointer() as *mut ArrowArrayStream;
        if pointer.is_null() {
            return Err(PyValueError::new_err(
                "an Arrow C stream capsule holds no stream",
            ));
        }
        // SAFETY: a capsule named "arrow_array_stream" holds a pointer to a live ArrowArrayStream
        // (the PyCapsule interface); it is moved out bitwise and the capsule's copy marked
        // released, so that exactly one owner (ours) ever releases it. The GIL is held: no other
        // consumer reads the capsule meanwhile.
        let stream = unsafe {
            let moved = ptr::read(pointer);
            (*pointer).release = None;
            Owned(Box::new(moved))
        };
        if stream.0.release.is_none() {
            return Err(PyValueError::new_err(
                "the Arrow C stream was already consumed",
            ));
        }
        let mut strings = Strings {
            chunks: Vec::new(),
            starts: vec![0],
            _stream: stream,
        };
        let format = strings.format()?;
        while let Some(array) = strings.next_array()? {
            let chunk = Chunk::new(&format, array)?;
            let end = strings.starts[strings.starts.len() - 1] + chunk.len;
            strings.chunks.push(chunk);
            strings.starts.push(end);
        }
        Ok(strings)
    }

    /// The stream's format string ("u", "U", "vu"; anything else refused).
    fn format(&mut self) -> PyResult<Vec<u8>> {
        let stream = &mut *self._stream.0;
        let get_schema = stream.get_schema.ok_or_else(|| broken("no get_schema"))?;
        let mut schema = Owned(Box::new(ArrowSchema {
            format: ptr::null(),
            name: ptr::null(),
            metadata: ptr::null(),
            flags: 0,
            n_children: 0,
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }));
        // SAFETY: the stream is live and ours; get_schema fills the schema it is given (ours,
        // released by Owned) and returns 0, or an errno leaving it released.
        let status = unsafe { get_schema(stream, &mut *schema.0) };
        if status != 0 || schema.0.release.is_none() || schema.0.format.is_null() {
            return Err(self.failure("get_schema", status));
        }
        // SAFETY: a live schema's format is a NUL-terminated string it owns until released.
        let format = unsafe { CStr::from_ptr(schema.0.format) }
            .to_bytes()
            .to_vec();
        if !matches!(format.as_slice(), b"u" | b"U" | b"vu") {
            return Err(PyTypeError::new_err(format!(
                "an Arrow id column is a string column (utf8, large utf8, string view), not \
                 format '{}'",
                String::from_utf8_lossy(&format)
            )));
        }
        Ok(format)
    }

    /// The stream's next array, or None at its end.
    fn next_array(&mut self) -> PyResult<Option<Owned<ArrowArray>>> {
        let stream = &mut *self._stream.0;
        let get_next = stream.get_next.ok_or_else(|| broken("no get_next"))?;
        let mut array = Owned(Box::new(ArrowArray {
            length: 0,
            null_count: 0,
            offset: 0,
            n_buffers: 0,
            n_children: 0,
            buffers: ptr::null_mut(),
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }));
        // SAFETY: as get_schema: the array is filled (live, release set), or left released at
        // the stream's end, or an errno is returned.
        let status = unsafe { get_next(stream, &mut *array.0) };
        if status != 0 {
            return Err(self.failure("get_next", status));
        }
        Ok(array.0.release.is_some().then_some(array))
    }

    /// The producer's error, as a ValueError.
    fn failure(&mut self, call: &str, status: c_int) -> PyErr {
        let stream = &mut *self._stream.0;
        let message = match stream.get_last_error {
            // SAFETY: get_last_error returns NULL or a NUL-terminated string valid until the
            // stream's next call; it is copied at once.
            Some(last) => unsafe {
                let text = last(stream);
                (!text.is_null()).then(|| CStr::from_ptr(text).to_string_lossy().into_owned())
            },
            None => None,
        };
        broken(&format!(
            "{call} failed ({status}): {}",
            message.unwrap_or_default()
        ))
    }

    pub fn len(&self) -> usize {
        self.starts[self.starts.len() - 1]
    }

    /// The chunk holding `row` (< len), found from `hint`, the last one found (reading goes
    /// forward).
    #[inline]
    pub fn chunk_of(&self, row: usize, hint: usize) -> usize {
        if row >= self.starts[hint] && row < self.starts[hint + 1] {
            return hint;
        }
        self.starts.partition_point(|&start| start <= row) - 1
    }

    /// The bytes of `row` (< len), in chunk `chunk` (its chunk_of).
    #[inline]
    pub fn get(&self, row: usize, chunk: usize) -> &[u8] {
        let c = &self.chunks[chunk];
        c.get(row - self.starts[chunk])
    }
}

fn broken(problem: &str) -> PyErr {
    PyValueError::new_err(format!("an Arrow C stream: {problem}"))
}

impl Chunk {
    /// A chunk of the stream's format, its bounds checked.
    fn new(format: &[u8], array: Owned<ArrowArray>) -> PyResult<Chunk> {
        let a = &*array.0;
        let (Ok(len), Ok(offset)) = (usize::try_from(a.length), usize::try_from(a.offset)) else {
            return Err(broken("a negative length or offset"));
        };
        let views = format == b"vu";
        if a.n_buffers < 3 || (!views && a.n_buffers != 3) || a.buffers.is_null() {
            return Err(broken("a string array of an unexpected number of buffers"));
        }
        // SAFETY: a live array's `buffers` points to its n_buffers buffer pointers (3 or more,
        // checked above).
        let buffers = unsafe { std::slice::from_raw_parts(a.buffers, a.n_buffers as usize) };
        if a.null_count != 0 && !buffers[0].is_null() {
            return Err(PyValueError::new_err(
                "an Arrow id column holds nulls (the caller refuses them first)",
            ));
        }
        if len == 0 {
            let layout = Layout::Offsets64(ptr::null(), ptr::null());
            return Ok(Chunk {
                layout,
                offset,
                len,
                _array: array,
            });
        }
        if buffers[1].is_null() {
            return Err(broken("a string array without offsets or views"));
        }
        // an array of empty strings may have no data buffer: a dangling one of no bytes then
        // (`check` proves then that no row has a byte)
        let data = if buffers[2].is_null() {
            ptr::NonNull::<u8>::dangling().as_ptr().cast_const()
        } else {
            buffers[2].cast::<u8>()
        };
        let layout = match format {
            b"u" if buffers[1].cast::<i32>().is_aligned() => {
                Layout::Offsets32(buffers[1].cast(), data)
            }
            b"U" if buffers[1].cast::<i64>().is_aligned() => {
                Layout::Offsets64(buffers[1].cast(), data)
            }
            b"vu" => Layout::Views(buffers[1].cast(), data_buffers(buffers)?),
            _ => return Err(broken("misaligned offsets")),
        };
        let empty = !views && buffers[2].is_null();
        let chunk = Chunk {
            layout,
            offset,
            len,
            _array: array,
        };
        chunk.check(empty)?;
        Ok(chunk)
    }

    /// Every row's bounds: offsets ascending from 0 or more (all equal if there is no data
    /// buffer: no row has a byte); views' lengths and places within their buffers.
    fn check(&self, empty: bool) -> PyResult<()> {
        let bad = match &self.layout {
            Layout::Offsets32(offsets, _) => {
                // SAFETY: a utf8 array has offset + length + 1 offsets.
                let o =
                    unsafe { std::slice::from_raw_parts(offsets.add(self.offset), self.len + 1) };
                o[0] < 0 || o.windows(2).any(|w| w[1] < w[0] || empty && w[1] != w[0])
            }
            Layout::Offsets64(offsets, _) => {
                // SAFETY: as above, for a large utf8 array.
                let o =
                    unsafe { std::slice::from_raw_parts(offsets.add(self.offset), self.len + 1) };
                o[0] < 0 || o.windows(2).any(|w| w[1] < w[0] || empty && w[1] != w[0])
            }
            Layout::Views(views, data) => {
                // SAFETY: a string view array has offset + length views of 16 bytes ([u8; 16]
                // has alignment 1: any address is aligned).
                let v = unsafe { std::slice::from_raw_parts(views.add(self.offset), self.len) };
                v.iter().any(|view| view_place(view, data).is_none())
            }
        };
        if bad {
            return Err(broken("a string out of its array's bounds"));
        }
        Ok(())
    }

    /// The bytes of the chunk's row `i` (< len).
    #[inline]
    fn get(&self, i: usize) -> &[u8] {
        let at = self.offset + i;
        match &self.layout {
            // SAFETY (both offsets layouts): the offsets are aligned (checked in `new`); `check`
            // proved the offsets at..=at+1 (within the array's offset + length + 1) ascending
            // from 0 or more (equal where there is no data buffer: 0 bytes are read then, at a
            // dangling non-null pointer, wrapping_add being defined for any offset); the
            // producer's data buffer holds every byte up to the last offset, and lives as long
            // as the array (self).
            Layout::Offsets32(offsets, data) => unsafe {
                let (start, end) = (*offsets.add(at) as usize, *offsets.add(at + 1) as usize);
                std::slice::from_raw_parts(data.wrapping_add(start), end - start)
            },
            Layout::Offsets64(offsets, data) => unsafe {
                let (start, end) = (*offsets.add(at) as usize, *offsets.add(at + 1) as usize);
                std::slice::from_raw_parts(data.wrapping_add(start), end - start)
            },
            Layout::Views(views, data) => {
                // SAFETY: view `at` is within the array's views (at < offset + length).
                let view = unsafe { &*views.add(at) };
                match view_place(view, data) {
                    Some(Place::Inline(n)) => &view[4..4 + n],
                    // SAFETY: `check` proved start + n within data buffer b's size, and the
                    // buffer lives as long as the array (self).
                    Some(Place::Buffer(b, start, n)) => unsafe {
                        std::slice::from_raw_parts(data[b].0.add(start), n)
                    },
                    None => unreachable!("checked when the chunk was taken"),
                }
            }
        }
    }
}

/// The data buffers of a string view array, with their sizes (the last buffer).
fn data_buffers(buffers: &[*const c_void]) -> PyResult<Vec<(*const u8, usize)>> {
    let data = &buffers[2..buffers.len() - 1];
    let sizes = buffers[buffers.len() - 1] as *const i64;
    if sizes.is_null() && !data.is_empty() {
        return Err(broken("a string view array without its buffers' sizes"));
    }
    data.iter()
        .enumerate()
        .map(|(i, &b)| {
            // SAFETY: the last buffer of a string view array holds one i64 size per data buffer
            // (read unaligned: the interface does not promise its alignment to consumers).
            let size = unsafe { sizes.add(i).read_unaligned() };
            match usize::try_from(size) {
                Ok(size) if !b.is_null() || size == 0 => Ok((b.cast::<u8>(), size)),
                _ => Err(broken("a string view buffer of a bad size")),
            }
        })
        .collect()
}

/// Where a view's bytes are.
enum Place {
    Inline(usize),
    Buffer(usize, usize, usize),
}

/// A view's place, None if out of bounds.
#[inline]
fn view_place(view: &[u8; 16], data: &[(*const u8, usize)]) -> Option<Place> {
    let word = |i: usize| i32::from_ne_bytes([view[i], view[i + 1], view[i + 2], view[i + 3]]);
    let n = usize::try_from(word(0)).ok()?;
    if n <= 12 {
        return Some(Place::Inline(n));
    }
    let (b, start) = (
        usize::try_from(word(8)).ok()?,
        usize::try_from(word(12)).ok()?,
    );
    let &(_, size) = data.get(b)?;
    (start.checked_add(n)? <= size).then_some(Place::Buffer(b, start, n))
}
