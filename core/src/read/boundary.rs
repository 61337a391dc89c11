//! Where a part of a run file may begin, for a run read in parts (trecgain.distributed): the
//! first line after a given byte whose qid is not the qid of the first run line there, so that
//! no query is split between parts. Fields are the reader's own (C `isspace` separates them),
//! comment and blank lines are skipped as the reader skips them.

use std::io::{self, Read};

use super::scan::is_ws;

/// The bytes of a line looked at for its qid (a longer qid is compared by these).
const HEAD: usize = 4096;
/// Bytes read at a time.
const BLOCK: usize = 1 << 16;

/// A part's first line: `offset` where it starts (the end of the file when there is none),
/// and the newlines from the byte after the one the search started at to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartStart {
    pub offset: u64,
    pub newlines: u64,
}

/// From `reader`, positioned at byte `position` of the file: the start of the first line after
/// the one holding `position` whose qid differs from the first run line's there (the lines
/// before it, all of one query, stay with the part that holds `position`).
pub fn part_start<R: Read>(reader: R, position: u64) -> io::Result<PartStart> {
    let mut lines = Lines::new(reader);
    let rest = lines.next()?; // the rest of the line holding `position`
    let mut newlines = u64::from(rest.ended && rest.length >= 2); // its end, if after `position`
    let mut offset = position + rest.length;
    let mut first: Option<Vec<u8>> = None;
    loop {
        let line = lines.next()?;
        if line.length == 0 {
            return Ok(PartStart { offset, newlines });
        }
        if let Some(qid) = qid(&line.head) {
            match &first {
                None => first = Some(qid.to_vec()),
                Some(seen) if seen.as_slice() != qid => return Ok(PartStart { offset, newlines }),
                Some(_) => {}
            }
        }
        offset += line.length;
        newlines += u64::from(line.ended);
    }
}

/// A line's first field, or None for a comment (`#` first) or a blank line.
fn qid(head: &[u8]) -> Option<&[u8]> {
    if head.first() == Some(&b'#') {
        return None;
    }
    let start = head.iter().position(|&b| !is_ws(b))?;
    let end = head[start..]
        .iter()
        .position(|&b| is_ws(b))
        .map_or(head.len(), |k| start + k);
    Some(&head[start..end])
}

/// One line as `Lines` reads it: its first HEAD bytes, its length, whether a '\n' ends it.
struct Line {
    head: Vec<u8>,
    length: u64,
    ended: bool,
}

/// The lines of a reader, a long line never held whole.
struct Lines<R> {
    reader: R,
    buffer: Vec<u8>,
    filled: usize,
    at: usize,
}

impl<R: Read> Lines<R> {
    fn new(reader: R) -> Self {
        Lines {
            reader,
            buffer: vec![0; BLOCK],
            filled: 0,
            at: 0,
        }
    }

    fn next(&mut self) -> io::Result<Line> {
        let mut line = Line {
            head: Vec::new(),
            length: 0,
            ended: false,
        };
        loop {
            if self.at >= self.filled {
                self.filled = loop {
                    match self.reader.read(&mut self.buffer) {
                        Ok(n) => break n,
                        Err(e)
                            if e.kind() == io::ErrorKind::Interrupted && e.get_ref().is_none() =>
                        {
                            continue
                        }
                        Err(e) => return Err(e),
                    }
                };
                self.at = 0;
                if self.filled == 0 {
                    return Ok(line);
                }
            }
            let data = &self.buffer[self.at..self.filled];
            let (end, ended) = match memchr::memchr(b'\n', data) {
                Some(k) => (k + 1, true),
                None => (data.len(), false),
            };
            let keep = end.min(HEAD.saturating_sub(line.head.len()));
            line.head.extend_from_slice(&data[..keep]);
            line.length += end as u64;
            self.at += end;
            if ended {
                line.ended = true;
                return Ok(line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same search written the plain way: whole lines, split at the reader's whitespace.
    fn naive(file: &[u8], position: usize) -> PartStart {
        let mut offset = file[position..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(file.len(), |k| position + k + 1);
        let mut newlines = u64::from(offset > position + 1 && file[offset - 1] == b'\n');
        let mut first: Option<&[u8]> = None;
        while offset < file.len() {
            let end = file[offset..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(file.len(), |k| offset + k + 1);
            let text = &file[offset..end];
            let fields: Vec<&[u8]> = if text.first() == Some(&b'#') {
                vec![]
            } else {
                text.split(|&b| is_ws(b))
                    .filter(|f| !f.is_empty())
                    .collect()
            };
            if let Some(q) = fields.first() {
                match first {
                    None => first = Some(q),
                    Some(seen) if seen != *q => break,
                    _ => {}
                }
            }
            newlines += u64::from(file[end - 1] == b'\n');
            offset = end;
        }
        PartStart {
            offset: offset as u64,
            newlines,
        }
    }

    #[test]
    fn finds_where_the_qid_changes() {
        let file =
            b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 c 1 1 t\n# note\n\n2 Q0 d 2 0 t\n3\tQ0 e 1 1 t";
        for position in 0..file.len() {
            let found = part_start(&file[position..], position as u64).unwrap();
            assert_eq!(found, naive(file, position), "from byte {position}");
        }
        assert_eq!(
            part_start(&file[3..], 3).unwrap(),
            PartStart {
                offset: 26,
                newlines: 2
            }
        );
    }

    #[test]
    fn long_lines_and_odd_whitespace_are_read_as_the_reader_reads_them() {
        let long = "x".repeat(3 * BLOCK);
        let text = format!("9 Q0 {long} 1 1 t\n 9\x0bQ0 b 1 1 t\r\n10 Q0 c 1 1 t\n10 Q0 d 1 1 t\n");
        let file = text.as_bytes();
        for position in [0, 1, 5, BLOCK, 3 * BLOCK + 8, file.len() - 1] {
            assert_eq!(
                part_start(&file[position..], position as u64).unwrap(),
                naive(file, position)
            );
        }
    }
}
