//! Stage 1: qrels and run files to columns, streamed in chunks of whole lines.
//!
//! Owned by the reader: any whitespace separates fields (C's isspace), CRLF, comment lines
//! (`#` in column 0) in both files, blank lines in runs, gzip detected by content, FILE:LINE
//! on every error. Rules and messages: the list below, and the README's "Bad input, large
//! input, pipes and signals".
//!
//! The rules, as trecgain 0.1 has them:
//! - Lines end with '\n'; a CR before it belongs to the line and, like every C whitespace byte,
//!   separates fields. A CR elsewhere is whitespace too, so lines separated by CR alone run
//!   together, as in trec_eval; a run holding one gets one warning (`Run::warnings`).
//! - A line whose first byte is `#` is a comment, in either file. A blank run line is skipped;
//!   a blank qrels line is malformed. Qrels lines have exactly 4 fields, run lines at least 6.
//! - A NUL byte, a line over 1 MiB, a qid, docno, score or grade over 1024 bytes, a score that
//!   is not a decimal number (see `number.rs`), a grade that is not an integer (unless
//!   fractional) or whose magnitude exceeds 2^53 (so that every grade is exactly a double;
//!   trecgain 0.1 refused more than 15 digits) are errors at FILE:LINE. Of several faults, the
//!   first line's is reported; within a line: NUL (among its first 1 MiB + 1 bytes), length,
//!   field count, qid, docno and number length, the number. The input is streamed: a read
//!   error (damaged gzip) is reported when it is met, after the faults of the chunks before it.
//! - A document judged twice for one query is an error at the later line of the earliest
//!   repeat, once the whole file is read.
//! - Identifiers are bytes, kept as they are (invalid UTF-8 included), in an `Arena`.

use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, Read};

use foldhash::fast::FixedState;
use hashbrown::HashTable;

use crate::arena::Arena;
use crate::error::{Error, Result};

mod boundary;
mod cwl;
mod number;
mod qrels;
mod relations;
mod run;
mod scan;
mod source;
mod text;

#[cfg(test)]
mod tests;

pub use boundary::{part_start, PartStart};
pub use cwl::{
    open_cwl_file, read_cwl_costs, read_cwl_files, read_cwl_gains, read_cwl_rankings,
    read_cwl_result, CwlCosts, CwlGains, CwlRankings, CwlRun,
};
use qrels::QrelsBuilder;
pub use relations::{Groups, Preferences, RelFormat, Relations, Subtopics};
use run::RunBuilder;
use source::{cannot_read, Source};

/// Bytes read at a time (whole lines of them).
pub const CHUNK_BYTES: usize = 1 << 22;
/// A longer line is not a qrels or run line: refused, not buffered.
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// The longest qid, docno, score or grade.
pub const MAX_ID_BYTES: usize = 1024;

/// A byte source and the name used for it in messages (`(standard input)` for `-`).
pub struct Input {
    pub name: String,
    pub reader: Box<dyn Read>,
}

impl Input {
    /// Any reader, named `name` in messages.
    pub fn new(name: impl Into<String>, reader: impl Read + 'static) -> Input {
        Input {
            name: name.into(),
            reader: Box::new(reader),
        }
    }

    /// Bytes in memory (plain or gzip), named `name` in messages.
    pub fn from_bytes(name: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Input {
        Input::new(name, io::Cursor::new(bytes.into()))
    }

    /// A file, or standard input for `-` (named `(standard input)`).
    pub fn open(path: &str) -> Result<Input> {
        if path == "-" {
            return Ok(Input::new("(standard input)", io::stdin().lock()));
        }
        let file = File::open(path).map_err(|e| cannot_read(&e, path))?;
        Ok(Input::new(path, file))
    }
}

/// How a file is read. `Default` is what the command line uses.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Bytes read at a time (the chunk is cut after its last newline).
    pub chunk_bytes: usize,
    /// The longest line accepted.
    pub max_line_bytes: usize,
    /// The size of the input, when known: the columns are reserved once from it and the first
    /// chunk (ignored for gzip).
    pub size_hint: Option<u64>,
    /// Keep the rank column of a run (for `--ties rank`; otherwise it is not read).
    pub ranks: bool,
    /// Reading one part of a file (a byte range starting at a line, as a cluster's worker
    /// reads a run too large for one machine): the number of its first line in the file, so
    /// that messages name the file's lines.
    pub first_line: u64,
    /// Whether the input starts the file: gzip, other compressed formats and a byte-order mark
    /// are recognised there only (false for a part that starts later).
    pub file_start: bool,
    /// A run part may hold no results (comment or blank lines only): not an error.
    pub allow_empty: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            chunk_bytes: CHUNK_BYTES,
            max_line_bytes: MAX_LINE_BYTES,
            size_hint: None,
            ranks: false,
            first_line: 1,
            file_start: true,
            allow_empty: false,
        }
    }
}

pub(crate) struct Limits {
    pub max_line: usize,
    pub size_hint: Option<u64>,
}

/// Judgments grouped by query, queries in unsigned byte order of their qids.
pub struct Qrels {
    pub source: String,
    /// Distinct query ids, byte order.
    pub qids: Arena,
    /// Judgments of query q are `offsets[q]..offsets[q + 1]`.
    pub offsets: Vec<usize>,
    /// Per judgment.
    pub docnos: Arena,
    /// Per judgment: the grade (an integer unless `fractional`); negative: in the pool, unjudged.
    pub grades: Vec<f64>,
    /// Per judgment: 1-based line in the file (0 for judgments not from a file).
    pub lines: Vec<u64>,
    pub fractional: bool,
    /// Judgments by hash of (query, docno), one table per query of more than `qrels::SCANNED`
    /// judgments (a smaller one's are scanned), its values places within the query
    /// (`qrels::Index`); valid while `offsets` and `docnos` are unchanged.
    tables: Vec<HashTable<u32>>,
    /// Per query: its table in `tables`, or `qrels::NO_TABLE`.
    table_of: Vec<u32>,
    /// What a `-R qrels_jg`, `prefs` or `qrels_prefs` file holds beyond this.
    pub relations: Relations,
}

const SEED: u64 = 0x7265_6164_6572_2121;

#[inline]
pub(crate) fn hash_id(id: &[u8]) -> u64 {
    FixedState::with_seed(SEED).hash_one(id)
}

#[inline]
pub(crate) fn hash_judgment(query: u32, docno: &[u8]) -> u64 {
    FixedState::with_seed(SEED ^ 0x5bd1_e995).hash_one((query, docno))
}

/// How much more room the columns of a file need (rows, docno bytes), guessed from its size
/// and from what its first chunk of `chunk_bytes` held; None when that chunk was the file.
pub(crate) fn room_needed(
    rows_now: usize,
    docno_bytes: usize,
    size: u64,
    chunk_bytes: usize,
) -> Option<(usize, usize)> {
    if rows_now == 0 || chunk_bytes == 0 || size <= chunk_bytes as u64 {
        return None;
    }
    let scale = size as f64 / chunk_bytes as f64 * 1.02;
    let rows = ((rows_now as f64 * scale) as usize + 1024).saturating_sub(rows_now);
    let bytes = ((docno_bytes as f64 * scale) as usize + 16 * 1024).saturating_sub(docno_bytes);
    Some((rows, bytes))
}

pub(crate) fn malformed(kind: &str, found: usize, name: &str, line: u64) -> Error {
    let (want, form) = match RelFormat::named(kind) {
        Some(format) => (format!("exactly {}", format.fields()), format.form()),
        None => ("at least 6".to_string(), "qid iter docno rank score tag"),
    };
    let what = match found {
        0 => "blank line".to_string(),
        1 => "1 field".to_string(),
        n => format!("{n} fields"),
    };
    Error::at(
        format!("malformed {kind} line: {what}, expected {want} ({form})"),
        name,
        line,
    )
}

/// The fault of a line holding a NUL or too long: NUL, if one is among the first
/// `max_line + 1` bytes (all that is ever buffered of a line without its end), else too long.
#[cold]
pub(crate) fn line_fault(
    nul: usize,
    start: usize,
    end: usize,
    max_line: usize,
    name: &str,
    line: u64,
) -> Error {
    if nul < end && nul - start <= max_line {
        Error::at("NUL byte in line", name, line)
    } else {
        Error::at(format!("line longer than {max_line} bytes"), name, line)
    }
}

pub(crate) fn too_long_id(len: usize, name: &str, line: u64) -> Error {
    Error::at(
        format!("field of {len} bytes: identifiers are at most {MAX_ID_BYTES} bytes"),
        name,
        line,
    )
}

/// Whether a byte may not be in an identifier: NUL or C's isspace (' ', '\t', '\n', '\v',
/// '\f', '\r'), all at most b' ': one compare and one bit of a mask.
#[inline]
pub fn separates(c: u8) -> bool {
    const MASK: u64 = 1 | 1 << b'\t' | 1 << b'\n' | 1 << 0x0b | 1 << 0x0c | 1 << b'\r' | 1 << b' ';
    c <= b' ' && MASK >> c & 1 == 1
}

/// An identifier given in memory: not empty, no whitespace, no NUL.
fn check_key(id: &[u8]) -> Result<()> {
    if id.is_empty() || id.iter().any(|&c| separates(c)) {
        return Err(Error::new(format!(
            "identifier {} is empty or contains whitespace",
            text::repr(id)
        )));
    }
    Ok(())
}

impl Qrels {
    /// Index of a query in `qids`.
    pub fn query(&self, qid: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.qids.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.qids.get(mid).cmp(qid) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Index of the judgment of (query, docno) in the per-judgment columns, if the qrels list it.
    #[inline]
    pub fn judgment(&self, query: usize, docno: &[u8]) -> Option<usize> {
        let (lo, hi) = (*self.offsets.get(query)?, *self.offsets.get(query + 1)?);
        if hi - lo <= qrels::SCANNED {
            // most docnos differ from a judged one in their first byte: no memcmp call then
            let first = docno.first();
            return (lo..hi).find(|&i| {
                let judged = self.docnos.get(i);
                judged.first() == first && judged == docno
            });
        }
        let hash = hash_judgment(query as u32, docno);
        self.tables[self.table_of[query] as usize]
            .find(hash, |&i| self.docnos.get(lo + i as usize) == docno)
            .map(|&i| lo + i as usize)
    }

    /// `judgment` as a judgment index (`Judged::NONE`: not listed).
    #[inline]
    pub fn judgment_index(&self, query: usize, docno: &[u8]) -> u32 {
        self.judgment(query, docno)
            .map_or(Judged::NONE, |j| j as u32)
    }

    /// The grade of judgment index `j` (None: `Judged::NONE`, not listed).
    #[inline]
    pub fn grade_at(&self, j: u32) -> Option<f64> {
        (j != Judged::NONE).then(|| self.grades[j as usize])
    }

    /// `error` as the qrels' own when a gain rule refused one of query `q`'s grades: at the
    /// line (or row) of the first judgment of `q` with that grade, naming its document; any
    /// other error as it is.
    pub fn locate_grade(&self, q: usize, error: Error) -> Error {
        let (Some(bits), None) = (error.grade, &error.source) else {
            return error;
        };
        let grade = f64::from_bits(bits);
        let judgments = self.offsets[q]..self.offsets[q + 1];
        let Some(j) = judgments.into_iter().find(|&j| self.grades[j] == grade) else {
            return Error::in_file(error.message, &self.source);
        };
        let message = format!(
            "{} (document {} of query {})",
            error.message,
            text::repr(self.docnos.get(j)),
            text::repr(self.qids.get(q))
        );
        match self.lines[j] {
            0 => Error::in_file(message, &self.source),
            line => Error::at(message, &self.source, line),
        }
    }

    /// Grade of (query, docno), if the qrels list it.
    #[inline]
    pub fn grade(&self, query: usize, docno: &[u8]) -> Option<f64> {
        self.judgment(query, docno).map(|i| self.grades[i])
    }

    /// Qrels given in memory (pytrec_eval's `{qid: {docno: grade}}`), named `source` in
    /// messages: the same grouping, index and duplicate check as a file. Grades are integers
    /// (at most 2^53 in magnitude) unless `fractional`; any grade must be finite.
    pub fn from_judgments<I, Q, D>(source: &str, items: I, fractional: bool) -> Result<Qrels>
    where
        I: IntoIterator<Item = (Q, D, f64)>,
        Q: AsRef<[u8]>,
        D: AsRef<[u8]>,
    {
        judgments(source, items, fractional, None)
    }

    /// Qrels given as numbered rows (a DataFrame, a list of tuples): as `from_judgments`, but
    /// the rows are numbered 1, 2, ... and messages name them (`SOURCE:ROW: document 'd'
    /// judged twice for query 'q' (first at row 1)`), as a file's messages name its lines.
    pub fn from_rows<I, Q, D>(source: &str, items: I, fractional: bool) -> Result<Qrels>
    where
        I: IntoIterator<Item = (Q, D, f64)>,
        Q: AsRef<[u8]>,
        D: AsRef<[u8]>,
    {
        judgments(source, items, fractional, Some("row"))
    }
}

/// Subtopic judgments (`-R subtopics`) given in memory as numbered rows (qid, subtopic, docno,
/// grade): `push` each, then `finish`; the rows are read as a `subtopics` file's lines.
pub struct SubtopicRows<'s> {
    b: QrelsBuilder,
    source: &'s str,
}

impl<'s> SubtopicRows<'s> {
    pub fn new(source: &'s str) -> Self {
        SubtopicRows {
            b: QrelsBuilder {
                format: RelFormat::Subtopics,
                ..QrelsBuilder::default()
            },
            source,
        }
    }

    /// Adds the next row (numbered from 1 in messages); ids are checked as a file's fields
    /// are, the grade is the caller's (an integer, checked).
    pub fn push(&mut self, qid: &[u8], subtopic: &[u8], docno: &[u8], grade: f64) -> Result<()> {
        let b = &mut self.b;
        let row = b.lines.len() as u64 + 1;
        for id in [qid, subtopic, docno] {
            check_key(id).map_err(|e| Error::at(e.message, self.source, row))?;
        }
        b.group.push(b.groups.intern(subtopic));
        b.query.push(b.qids.intern(qid));
        b.docnos.push(docno);
        b.grades.push(grade);
        b.lines.push(row);
        Ok(())
    }

    /// The qrels of the rows (an error if there are none).
    pub fn finish(self) -> Result<Qrels> {
        if self.b.grades.is_empty() {
            return Err(Error::in_file(
                "no subtopic judgments in the rows",
                self.source,
            ));
        }
        self.b.finish(self.source, false)
    }
}

/// Judgments given in memory one at a time (the Python bindings walk a dict or rows with it):
/// `push` each, then `finish`; the same grouping, index and checks as `Qrels::from_judgments`.
pub struct Judgments<'s> {
    b: QrelsBuilder,
    source: &'s str,
    /// What positions are called in messages ("row"), or None for a dict's judgments.
    unit: Option<&'static str>,
}

impl<'s> Judgments<'s> {
    pub fn new(source: &'s str, unit: Option<&'static str>) -> Self {
        Judgments {
            b: QrelsBuilder::default(),
            source,
            unit,
        }
    }

    /// Adds one judgment; an id that is empty or holds whitespace or NUL is an error.
    #[inline]
    pub fn push(&mut self, qid: &[u8], docno: &[u8], grade: f64) -> Result<()> {
        let b = &mut self.b;
        let position = if self.unit.is_some() {
            b.lines.len() as u64 + 1
        } else {
            0
        };
        check_key(qid)
            .and_then(|()| check_key(docno))
            .map_err(|e| match self.unit {
                Some(_) => Error::at(e.message, self.source, position),
                None => e,
            })?;
        let q = b.qids.intern(qid);
        b.query.push(q);
        b.docnos.push(docno);
        b.grades.push(grade);
        b.lines.push(position);
        Ok(())
    }

    /// The qrels: grades finite, integers of at most 2^53 in magnitude unless `fractional`,
    /// at least one judgment, no document judged twice for a query.
    pub fn finish(self, fractional: bool) -> Result<Qrels> {
        let Judgments {
            mut b,
            source,
            unit,
        } = self;
        let at = |message: String, position: u64| match unit {
            Some(_) => Error::at(message, source, position),
            None => Error::in_file(message, source),
        };
        if b.grades.is_empty() {
            return Err(Error::in_file("no judgments in the qrels", source));
        }
        for (j, grade) in b.grades.iter_mut().enumerate() {
            let g = *grade;
            if !g.is_finite() || (!fractional && g.fract() != 0.0) {
                let hint = if fractional || !g.is_finite() {
                    ""
                } else {
                    " (fractional_grades=True accepts it)"
                };
                let (g, doc) = (text::float_repr(g), text::show(b.docnos.get(j)));
                return Err(at(
                    format!("grade {g} of document '{doc}' is not an integer{hint}"),
                    b.lines[j],
                ));
            }
            if !fractional {
                if g.abs() > number::MAX_INTEGER_GRADE as f64 {
                    let (g, doc) = (text::float_repr(g), text::show(b.docnos.get(j)));
                    return Err(at(
                        format!("grade {g} of document '{doc}' is out of range"),
                        b.lines[j],
                    ));
                }
                *grade = g + 0.0; // no negative zero among integer grades
            }
        }
        qrels::assemble(source, b, fractional, unit)
    }
}

/// Judgments given in memory; `unit`: what their positions are called in messages ("row"), or
/// None for judgments without positions (a dict's).
fn judgments<I, Q, D>(
    source: &str,
    items: I,
    fractional: bool,
    unit: Option<&'static str>,
) -> Result<Qrels>
where
    I: IntoIterator<Item = (Q, D, f64)>,
    Q: AsRef<[u8]>,
    D: AsRef<[u8]>,
{
    let mut judgments = Judgments::new(source, unit);
    for (qid, docno, grade) in items {
        judgments.push(qid.as_ref(), docno.as_ref(), grade)?;
    }
    judgments.finish(fractional)
}

/// Per run line, the index of its judgment in `qrels`'s columns (`Judged::NONE`: not listed).
pub struct Judged {
    pub qrels: std::sync::Arc<Qrels>,
    pub judgment: Vec<u32>,
}

impl Judged {
    /// A line the qrels do not list.
    pub const NONE: u32 = u32::MAX;

    /// The grade of run line `row` in these qrels (None: not listed).
    #[inline]
    pub fn grade(&self, row: usize) -> Option<f64> {
        self.qrels.grade_at(self.judgment[row])
    }
}

/// Run lines in file order (blank and comment lines dropped).
pub struct Run {
    pub source: String,
    /// Distinct query ids, in order of first appearance.
    pub qids: Arena,
    /// Per line: index of its query in `qids`.
    pub query: Vec<u32>,
    /// Per line.
    pub docnos: Arena,
    /// Per line.
    pub scores: Vec<f64>,
    /// Per line: 1-based line number in the file.
    pub lines: Vec<u64>,
    /// Per line, the rank column, when the run was read for `--ties rank` (else empty): whole
    /// numbers, exact as doubles.
    pub ranks: Vec<f64>,
    /// Whether every line's score is written as its rank is (`1 ... 1`, `2 ... 2`): the score
    /// column then holds ranks, and trec_eval ranks them upside down.
    pub score_is_rank: bool,
    /// Whether no query is known to retrieve a docno twice by whoever built the run (a dict
    /// whose docnos are all str: distinct keys, distinct UTF-8), so that ranking needs no
    /// duplicate check; false for a file's lines.
    pub distinct_docnos: bool,
    /// What `lines` number in messages: "line" (a file's, a dict's results) or "row" (rows
    /// given in memory: `Run::from_rows`).
    pub unit: &'static str,
    /// Each line's judgment in one qrels, worked out before the evaluation asked (the
    /// program's prefetch does it while Python loads: `label::judge`); used with those qrels only.
    pub judged: Option<Judged>,
    /// Tag of the last line read (runid).
    pub tag: Vec<u8>,
    /// Queries given with nothing retrieved (`{qid: {}}` in a dict run): evaluated as empty.
    pub empty_qids: Vec<Vec<u8>>,
    /// Lines for the caller to show (the library never prints).
    pub warnings: Vec<String>,
}

impl Run {
    /// A run given in memory (pytrec_eval's `{qid: {docno: score}}`, with `empty_qids` for
    /// `{qid: {}}`), named `source` in messages. Lines are numbered 1, 2, ... in the order
    /// given; the tag is `unknown`. Scores must be finite.
    pub fn from_lines<I, Q, D, E, S>(source: &str, items: I, empty_qids: E) -> Result<Run>
    where
        I: IntoIterator<Item = (Q, D, f64)>,
        Q: AsRef<[u8]>,
        D: AsRef<[u8]>,
        E: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        let mut results = Results::new(source, None);
        for (qid, docno, score) in items {
            results.push(qid.as_ref(), docno.as_ref(), score)?;
        }
        results.finish_with_empty(empty_qids)
    }

    /// A run given as numbered rows (a DataFrame, a list of tuples): as `from_lines`, but
    /// messages name the rows (`SOURCE:ROW: ...`, `(first at row 1)`), as a file's its lines.
    pub fn from_rows<I, Q, D>(source: &str, items: I) -> Result<Run>
    where
        I: IntoIterator<Item = (Q, D, f64)>,
        Q: AsRef<[u8]>,
        D: AsRef<[u8]>,
    {
        let run = results(source, items, Some("row"))?;
        if run.scores.is_empty() {
            return Err(Error::in_file("no results in the run", source));
        }
        Ok(run)
    }
}

/// Results given in memory one at a time, numbered 1, 2, ... (the Python bindings walk a dict
/// or rows with it): `push` each, then `finish`. `unit`: what messages call the positions
/// ("row"), or None for a dict's results (messages then name no position, except a
/// duplicate's "line").
pub struct Results<'s> {
    b: RunBuilder,
    source: &'s str,
    unit: Option<&'static str>,
}

impl<'s> Results<'s> {
    pub fn new(source: &'s str, unit: Option<&'static str>) -> Self {
        Results {
            b: RunBuilder::default(),
            source,
            unit,
        }
    }

    /// Room for `rows` more results (their docnos guessed at 8 bytes each).
    pub fn reserve(&mut self, rows: usize) {
        self.b.docnos.reserve(rows, rows * 8);
        self.b.query.reserve(rows);
        self.b.scores.reserve(rows);
        self.b.lines.reserve(rows);
    }

    /// Adds one result; an id that is empty or holds whitespace or NUL, or a score that is not
    /// finite, is an error.
    #[inline]
    pub fn push(&mut self, qid: &[u8], docno: &[u8], score: f64) -> Result<()> {
        let b = &mut self.b;
        let position = b.lines.len() as u64 + 1;
        let at = |e: Error| match self.unit {
            Some(_) => Error::at(e.message, self.source, position),
            None => e,
        };
        check_key(qid).and_then(|()| check_key(docno)).map_err(at)?;
        if !score.is_finite() {
            return Err(at(Error::in_file(
                "a score is not a finite number",
                self.source,
            )));
        }
        let q = b.qids.intern(qid);
        b.query.push(q);
        b.docnos.push(docno);
        b.scores.push(score);
        b.lines.push(position);
        Ok(())
    }

    /// Adds one result whose ids the caller has checked as `push` checks them (not empty, no
    /// whitespace or NUL); `same_query`: its qid is the previous result's, not looked up again.
    /// A score that is not finite is an error.
    #[inline]
    pub fn push_checked(
        &mut self,
        qid: &[u8],
        same_query: bool,
        docno: &[u8],
        score: f64,
    ) -> Result<()> {
        debug_assert!(check_key(qid).is_ok() && check_key(docno).is_ok());
        if !score.is_finite() {
            return self.push(qid, docno, score);
        }
        let b = &mut self.b;
        let q = match b.query.last() {
            Some(&q) if same_query => q,
            _ => b.qids.intern(qid),
        };
        b.lines.push(b.lines.len() as u64 + 1);
        b.query.push(q);
        b.docnos.push(docno);
        b.scores.push(score);
        Ok(())
    }

    /// The run (it may hold no results: the caller says whether that is an error).
    pub fn finish(self) -> Run {
        let b = self.b;
        Run {
            source: self.source.to_string(),
            qids: b.qids.ids,
            query: b.query,
            docnos: b.docnos,
            scores: b.scores,
            lines: b.lines,
            unit: self.unit.unwrap_or("line"),
            ranks: Vec::new(),
            score_is_rank: false,
            distinct_docnos: false,
            judged: None,
            tag: b"unknown".to_vec(),
            empty_qids: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The run of a dict, with the queries given with nothing retrieved (`{qid: {}}`):
    /// an error if it has neither results nor such queries.
    pub fn finish_with_empty<E, S>(self, empty_qids: E) -> Result<Run>
    where
        E: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        let mut run = self.finish();
        for qid in empty_qids {
            check_key(qid.as_ref())?;
            run.empty_qids.push(qid.as_ref().to_vec());
        }
        if run.scores.is_empty() && run.empty_qids.is_empty() {
            return Err(Error::in_file("no results in the run", &run.source));
        }
        Ok(run)
    }
}

/// Results given in memory, numbered 1, 2, ... (see `Results`).
fn results<I, Q, D>(source: &str, items: I, unit: Option<&'static str>) -> Result<Run>
where
    I: IntoIterator<Item = (Q, D, f64)>,
    Q: AsRef<[u8]>,
    D: AsRef<[u8]>,
{
    let mut results = Results::new(source, unit);
    for (qid, docno, score) in items {
        results.push(qid.as_ref(), docno.as_ref(), score)?;
    }
    Ok(results.finish())
}

fn open_source(input: Input, options: &ReadOptions) -> Result<(Source, Limits)> {
    let source = Source::new(
        input.name,
        input.reader,
        options.chunk_bytes,
        options.max_line_bytes,
        options.first_line,
        options.file_start,
    )?;
    let size_hint = if source.gzip { None } else { options.size_hint };
    Ok((
        source,
        Limits {
            max_line: options.max_line_bytes,
            size_hint,
        },
    ))
}

/// Reads a qrels file: `qid iter docno grade`.
pub fn read_qrels(input: Input, fractional: bool) -> Result<Qrels> {
    read_qrels_with(input, fractional, &ReadOptions::default())
}

/// Reads a qrels file with the given chunk size, line limit and size hint.
pub fn read_qrels_with(input: Input, fractional: bool, options: &ReadOptions) -> Result<Qrels> {
    read_relevance_with(input, fractional, RelFormat::Qrels, options)
}

/// Reads a relevance file of any `-R` format.
pub fn read_relevance_with(
    input: Input,
    fractional: bool,
    format: RelFormat,
    options: &ReadOptions,
) -> Result<Qrels> {
    let (mut source, limits) = open_source(input, options)?;
    let name = source.name.clone();
    let mut b = QrelsBuilder {
        format,
        ..QrelsBuilder::default()
    };
    while let Some(chunk) = source.next_chunk()? {
        b.parse(&chunk, &name, fractional, &limits)?;
    }
    drop(source);
    b.finish(&name, fractional)
}

/// Reads a run file: `qid iter docno rank score tag [anything]`.
pub fn read_run(input: Input) -> Result<Run> {
    read_run_with(input, &ReadOptions::default())
}

/// Reads a run file with the given chunk size, line limit and size hint.
pub fn read_run_with(input: Input, options: &ReadOptions) -> Result<Run> {
    let (mut source, limits) = open_source(input, options)?;
    let name = source.name.clone();
    let mut b = RunBuilder::default();
    b.keep_ranks = options.ranks;
    while let Some(chunk) = source.next_chunk()? {
        b.parse(&chunk, &name, &limits)?;
    }
    drop(source);
    b.finish(&name, options.allow_empty)
}

/// The size of a regular file (None for pipes, devices, standard input).
fn file_size(path: &str) -> Option<u64> {
    if path == "-" {
        return None;
    }
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// Reads the qrels file at `path` (`-`: standard input), its columns reserved from its size.
pub fn read_qrels_path(path: &str, fractional: bool) -> Result<Qrels> {
    read_relevance_path(path, fractional, RelFormat::Qrels)
}

/// Reads the relevance file of `-R` format `format` at `path` (`-`: standard input).
pub fn read_relevance_path(path: &str, fractional: bool, format: RelFormat) -> Result<Qrels> {
    let options = ReadOptions {
        size_hint: file_size(path),
        ..ReadOptions::default()
    };
    read_relevance_with(Input::open(path)?, fractional, format, &options)
}

/// Reads the run file at `path` (`-`: standard input), its columns reserved from its size;
/// its rank column too when `ranks`.
pub fn read_run_path(path: &str, ranks: bool) -> Result<Run> {
    let options = ReadOptions {
        size_hint: file_size(path),
        ranks,
        ..ReadOptions::default()
    };
    read_run_with(Input::open(path)?, &options)
}
