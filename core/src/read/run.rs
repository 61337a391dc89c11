//! Run files: `qid iter docno rank score tag [anything]`, lines in file order.

use hashbrown::HashTable;
use memchr::memchr;

use super::number::{parse_decimal, parse_integer, Decimal, Grade};
use super::scan::split_line;
use super::source::Chunk;
use super::text::show;
use super::{hash_id, line_fault, malformed, room_needed, too_long_id, Limits, Run, MAX_ID_BYTES};
use crate::arena::Arena;
use crate::error::{Error, Result};

/// Distinct ids in order of first appearance, found again by hash.
#[derive(Default)]
pub(crate) struct Interner {
    pub ids: Arena,
    table: HashTable<u32>,
    last: Option<u32>,
}

impl Interner {
    /// The index of `id`, added if new. Runs hold long stretches of one query: the last one
    /// is tried first.
    #[inline]
    pub fn intern(&mut self, id: &[u8]) -> u32 {
        if let Some(last) = self.last {
            if self.ids.get(last as usize) == id {
                return last;
            }
        }
        let index = self.lookup_or_add(id);
        self.last = Some(index);
        index
    }

    /// The index of `id`, if it was added.
    pub fn find(&self, id: &[u8]) -> Option<u32> {
        let ids = &self.ids;
        self.table
            .find(hash_id(id), |&i| ids.get(i as usize) == id)
            .copied()
    }

    #[inline(never)]
    fn lookup_or_add(&mut self, id: &[u8]) -> u32 {
        let hash = hash_id(id);
        let ids = &self.ids;
        if let Some(&i) = self.table.find(hash, |&i| ids.get(i as usize) == id) {
            return i;
        }
        let i = self.ids.push(id) as u32;
        let ids = &self.ids;
        self.table
            .insert_unique(hash, i, |&j| hash_id(ids.get(j as usize)));
        i
    }
}

/// Columns of a run, filled chunk by chunk.
#[derive(Default)]
pub(crate) struct RunBuilder {
    pub qids: Interner,
    pub query: Vec<u32>,
    pub docnos: Arena,
    pub scores: Vec<f64>,
    pub lines: Vec<u64>,
    pub tag: Vec<u8>,
    /// First line holding a CR that does not end it (0: none).
    pub lone_cr_line: u64,
    reserved: bool,
    /// Read the rank column into `ranks`.
    pub keep_ranks: bool,
    pub ranks: Vec<f64>,
    /// Some line's score is not written as its rank.
    score_not_rank: bool,
}

impl RunBuilder {
    /// Reserves the columns for the whole file, guessed from its size and its first chunk.
    fn reserve(&mut self, size: u64, chunk_bytes: usize, docno_bytes: usize) {
        self.reserved = true;
        let Some((rows, bytes)) = room_needed(self.scores.len(), docno_bytes, size, chunk_bytes)
        else {
            return;
        };
        self.query.reserve(rows);
        self.scores.reserve(rows);
        self.lines.reserve(rows);
        self.docnos.reserve(rows, bytes);
    }

    pub fn parse(&mut self, chunk: &Chunk, name: &str, limits: &Limits) -> Result<()> {
        let data = chunk.data;
        let end = chunk.end;
        let docno_bytes_before = self.docnos.byte_len();
        let nul = memchr(0, &data[..end]).unwrap_or(usize::MAX);
        if self.lone_cr_line == 0 {
            self.lone_cr_line = lone_cr_line(data, end, chunk.first_line);
        }
        let mut pos = 0;
        let mut line = chunk.first_line;
        let mut last_tag = None;
        while pos < end {
            let start = pos;
            let mut f = [0usize; 12]; // start, end of the first six fields
            let (fields, p) = if data[pos] == b'#' {
                (
                    0,
                    pos + memchr(b'\n', &data[pos..end]).unwrap_or(end - 1 - pos),
                )
            } else {
                split_line(data, pos, &mut f)
            };
            pos = p + 1;
            if nul < p || p - start > limits.max_line {
                return Err(line_fault(nul, start, p, limits.max_line, name, line));
            }
            if fields == 0 {
                line += 1;
                continue; // blank or comment
            }
            if fields < 6 {
                return Err(malformed("run", fields, name, line));
            }
            let qid = &data[f[0]..f[1]];
            let docno = &data[f[4]..f[5]];
            let score = &data[f[8]..f[9]];
            for field in [qid, docno, score] {
                if field.len() > MAX_ID_BYTES {
                    return Err(too_long_id(field.len(), name, line));
                }
            }
            if f[11] - f[10] > MAX_ID_BYTES {
                // it is printed as runid: held to the identifiers' limit
                return Err(Error::at(
                    format!(
                        "run tag of {} bytes: a tag is at most {MAX_ID_BYTES} bytes",
                        f[11] - f[10]
                    ),
                    name,
                    line,
                ));
            }
            let score = match parse_decimal(score) {
                Decimal::Value(v) => v,
                Decimal::NotNumber => {
                    return Err(Error::at(
                        format!("score '{}' is not a number", show(score)),
                        name,
                        line,
                    ))
                }
                Decimal::OutOfRange => {
                    return Err(Error::at(
                        format!("score '{}' is out of range", show(score)),
                        name,
                        line,
                    ))
                }
            };
            let rank = &data[f[6]..f[7]];
            self.score_not_rank |= rank != &data[f[8]..f[9]];
            if self.keep_ranks {
                self.ranks.push(parse_rank(rank, name, line)?);
            }
            let q = self.qids.intern(qid);
            self.query.push(q);
            self.docnos.push(docno);
            self.scores.push(score);
            self.lines.push(line);
            last_tag = Some((f[10], f[11]));
            line += 1;
        }
        if let Some((s, e)) = last_tag {
            self.tag.clear();
            self.tag.extend_from_slice(&data[s..e]);
        }
        if !self.reserved {
            if let Some(size) = limits.size_hint {
                self.reserve(size, end, self.docnos.byte_len() - docno_bytes_before);
            }
        }
        Ok(())
    }

    /// The run; `allow_empty`: a part of a file may hold no results.
    pub fn finish(mut self, name: &str, allow_empty: bool) -> Result<Run> {
        if self.scores.is_empty() && !allow_empty {
            return Err(Error::in_file("no results in the run file", name));
        }
        let mut warnings = Vec::new();
        if self.lone_cr_line != 0 {
            warnings.push(format!(
                "{name}:{}: a carriage return that does not end a line is whitespace (as in \
                 trec_eval): lines separated by CR alone run together",
                self.lone_cr_line
            ));
        }
        let score_is_rank = !self.score_not_rank && self.scores.len() > 1;
        self.query.shrink_to_fit();
        self.scores.shrink_to_fit();
        self.lines.shrink_to_fit();
        self.docnos.shrink_to_fit();
        Ok(Run {
            source: name.to_string(),
            qids: self.qids.ids,
            query: self.query,
            docnos: self.docnos,
            scores: self.scores,
            lines: self.lines,
            score_is_rank,
            distinct_docnos: false,
            judged: None,
            ranks: self.ranks,
            unit: "line",
            tag: self.tag,
            empty_qids: Vec::new(),
            warnings,
        })
    }
}

/// The rank column of a line, read for `--ties rank`.
/// A rank: a whole number, exact as a double (at most 2^53 in magnitude), so that ranks
/// compare exactly.
fn parse_rank(rank: &[u8], name: &str, line: u64) -> Result<f64> {
    let problem = match parse_integer(rank) {
        Grade::Value(v) => return Ok(v),
        Grade::NotInteger {
            looks_fractional: true,
        } => "is not a whole number",
        Grade::NotInteger { .. } => "is not a number",
        Grade::OutOfRange => "is out of range (ranks are whole numbers up to 2^53)",
    };
    Err(Error::at(
        format!(
            "rank '{}' {problem} (--ties rank orders by the rank column)",
            show(rank)
        ),
        name,
        line,
    ))
}

/// The line of the first CR in the chunk that is not followed by '\n' (0: none).
fn lone_cr_line(data: &[u8], end: usize, first_line: u64) -> u64 {
    for i in memchr::memchr_iter(b'\r', &data[..end]) {
        if data[i + 1] != b'\n' {
            return first_line + memchr::memchr_iter(b'\n', &data[..i]).count() as u64;
        }
    }
    0
}
