//! Byte sources read in chunks of whole lines: a path, standard input, any reader, gzip
//! (recognised by its magic bytes 1f 8b, however the file is named), never the whole file.

use std::io::{self, Cursor, Read};

use flate2::read::MultiGzDecoder;
use memchr::{memchr, memrchr};

use crate::error::{Error, Result};

/// Bytes readable past the end of a chunk (the 8-byte loads of the field scanner).
pub(crate) const PAD: usize = 16;

/// The reason of an I/O error as C's strerror words it ("No such file or directory").
pub(crate) fn strerror(err: &io::Error) -> String {
    let text = err.to_string();
    match err.raw_os_error() {
        Some(code) => text
            .strip_suffix(&format!(" (os error {code})"))
            .unwrap_or(&text)
            .to_string(),
        None => text,
    }
}

pub(crate) fn cannot_read(err: &io::Error, name: &str) -> Error {
    Error::in_file(format!("cannot read: {}", strerror(err)), name)
}

/// A chunk of whole lines: `data[..end]`, ending with '\n' (one is added after a last line that
/// lacks it); `data` holds at least `PAD` more bytes. Its first line is `first_line` (1-based).
pub(crate) struct Chunk<'a> {
    pub data: &'a [u8],
    pub end: usize,
    pub first_line: u64,
}

pub(crate) struct Source {
    pub name: String,
    reader: Box<dyn Read>,
    /// Always initialised up to its length; data is `buf[consumed..filled]`.
    buf: Vec<u8>,
    filled: usize,
    consumed: usize,
    eof: bool,
    done: bool,
    chunk: usize,
    max_line: usize,
    lines_before: u64,
    /// Decompressing gzip (the size of the file says nothing about the lines).
    pub gzip: bool,
}

/// The UTF-8 byte-order mark some editors put at the start of a text file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Compressed formats recognised by their magic bytes, to say what a file is instead of
/// reading it as text: (magic, format, how to decompress it). bzip2's `BZh` is followed by a
/// block size digit and the block magic `1AY&SY` (a text line may well start with `BZh`).
const COMPRESSED: [(&[u8], &str, &str); 4] = [
    (b"BZh?1AY&SY", "bzip2", "bunzip2 -k"),
    (b"\xfd7zXZ\x00", "xz", "unxz -k"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip"),
];

/// Whether `head` starts with `magic`, where `?` in the magic stands for a digit 1-9.
fn compressed(head: &[u8], magic: &[u8]) -> bool {
    head.len() >= magic.len()
        && magic.iter().zip(head).all(|(&m, &h)| {
            if m == b'?' {
                (b'1'..=b'9').contains(&h)
            } else {
                m == h
            }
        })
}

impl Source {
    /// `first_line`: the number of the input's first line (1 for a whole file); `file_start`:
    /// the input starts a file, so gzip, the other compressed formats and a byte-order mark
    /// are looked for (not in a part of a file that starts later).
    pub fn new(
        name: String,
        reader: Box<dyn Read>,
        chunk: usize,
        max_line: usize,
        first_line: u64,
        file_start: bool,
    ) -> Result<Source> {
        let chunk = chunk.max(1);
        let mut source = Source {
            name,
            reader,
            buf: Vec::new(),
            filled: 0,
            consumed: 0,
            eof: false,
            done: false,
            chunk,
            max_line,
            lines_before: first_line.saturating_sub(1),
            gzip: false,
        };
        if !file_start {
            return Ok(source);
        }
        source.fill(2)?;
        if source.filled >= 2 && source.buf[..2] == [0x1f, 0x8b] {
            let head = source.buf[..source.filled].to_vec();
            let rest = std::mem::replace(&mut source.reader, Box::new(io::empty()));
            source.reader = Box::new(MultiGzDecoder::new(Cursor::new(head).chain(rest)));
            source.filled = 0;
            source.eof = false;
            source.gzip = true;
        }
        source.fill(10)?;
        let head = &source.buf[..source.filled];
        if let Some((_, format, tool)) = COMPRESSED
            .iter()
            .find(|(magic, _, _)| compressed(head, magic))
        {
            return Err(Error::in_file(
                format!("the file is {format}-compressed: trecgain reads text and gzip; decompress it first ({tool})"),
                &source.name,
            ));
        }
        if head.starts_with(BOM) {
            source.consumed = BOM.len(); // a UTF-8 byte-order mark is not part of the first qid
        }
        Ok(source)
    }

    /// Reads until `target` bytes are buffered or the input ends. The buffer grows as data
    /// comes (a small input never gets a whole chunk's buffer).
    fn fill(&mut self, target: usize) -> Result<()> {
        while !self.eof && self.filled < target {
            if self.buf.len() <= self.filled + PAD + 1 {
                let want = (self.buf.len() * 2).max(1 << 16).min(target + PAD + 1);
                self.buf.resize(want.max(self.filled + PAD + 2), 0);
            }
            let limit = self.buf.len() - PAD - 1; // room for the added '\n' and the padding
            match self.reader.read(&mut self.buf[self.filled..limit]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(cannot_read(&e, &self.name)),
            }
        }
        if self.buf.len() < self.filled + PAD + 1 {
            self.buf.resize(self.filled + PAD + 1, 0);
        }
        Ok(())
    }

    /// The next chunk of whole lines, or None at the end of the input.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk<'_>>> {
        if self.done {
            return Ok(None);
        }
        if self.consumed > 0 {
            self.buf.copy_within(self.consumed..self.filled, 0);
            self.filled -= self.consumed;
            self.consumed = 0;
        }
        let mut target = self.chunk;
        loop {
            self.fill(target)?;
            let first_line = self.lines_before + 1;
            if self.eof {
                self.done = true;
                if self.filled == 0 {
                    return Ok(None);
                }
                if self.buf[self.filled - 1] != b'\n' {
                    self.buf[self.filled] = b'\n';
                    self.filled += 1;
                }
                let end = self.filled;
                self.consumed = end;
                return Ok(Some(Chunk {
                    data: &self.buf,
                    end,
                    first_line,
                }));
            }
            match memrchr(b'\n', &self.buf[..self.filled]) {
                Some(cut) => {
                    let end = cut + 1;
                    self.consumed = end;
                    self.lines_before +=
                        memchr::memchr_iter(b'\n', &self.buf[..end]).count() as u64;
                    return Ok(Some(Chunk {
                        data: &self.buf,
                        end,
                        first_line,
                    }));
                }
                None if self.filled > self.max_line => {
                    // one line, still without its end: refuse it rather than buffer it
                    let message = if memchr(0, &self.buf[..=self.max_line]).is_some() {
                        "NUL byte in line".to_string()
                    } else {
                        format!("line longer than {} bytes", self.max_line)
                    };
                    return Err(Error::at(message, &self.name, first_line));
                }
                None => target = self.filled + self.chunk,
            }
        }
    }
}
