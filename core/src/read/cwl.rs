//! cwl_eval's text files for `trecgain cwl`: the gain file, the cost file and the result
//! file, read as cwl_eval (Python) reads them, so that every file it measures is measured
//! alike and every file it crashes on is refused at its line (docs/cwl.md, "Files"):
//!
//! - UTF-8 text (a byte-order mark is part of the first field, as Python's "utf-8" keeps it);
//!   lines end with `\n`, `\r\n` or `\r` (Python's universal newlines), a last line may lack
//!   its end; a line holding a byte that is not UTF-8 is refused there ("not UTF-8 text").
//! - Fields are split on Python's whitespace (`str.split()`: C's six, `\x1c`-`\x1f`, and the
//!   Unicode spaces such as U+00A0 and U+3000), numbers read as Python's `float()` reads them
//!   (`inf`, `nan`, `1_0`, digits of other scripts; an overflow is infinite).
//! - Gain file: `topic unused docno gain` and any fields after; the last gain of a (topic,
//!   docno) wins, at the position of its first; then every gain in [min_gain, max_gain] (NaN
//!   passes), checked topic by topic in order of first appearance.
//! - Cost file: exactly `element_type cost`; the last cost of a type wins.
//! - Result file: exactly six fields; each stretch of lines of one topic is a ranking, its
//!   documents in file order, the first `depth` of them looked up (the rest only checked).

use std::collections::HashMap;

use hashbrown::HashTable;
use memchr::memchr2;

use super::number::{parse_decimal, Decimal};
use super::run::Interner;
use super::scan::split_line;
use super::source::{cannot_read, Source};
use super::text::{float_repr, repr};
use super::{hash_id, Input, CHUNK_BYTES};
use crate::arena::Arena;
use crate::error::{Error, Result};

/// Fields echoed in messages are cut to this many characters.
const CUT: usize = 64;

/// The most fields of a line a reader looks at (one more than the result file's six, to
/// count the lines with more).
const FIELDS: usize = 6;

/// Python's `str.isspace` on ASCII: `\t \n \v \f \r`, `\x1c`-`\x1f` and the space.
fn ascii_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | 0x1c..=0x1f | b' ')
}

/// Python's `str.isspace`: Unicode's White_Space and the four ASCII separators.
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Whether a chunk can be split with the core's own scanner: ASCII without `\r` (no line
/// ends but `\n`) and without `\x1c`-`\x1f` (C's isspace is then Python's).
fn plain(bytes: &[u8]) -> bool {
    !bytes.iter().fold(false, |odd, &b| {
        odd | (b >= 0x80) | (b == b'\r') | (b.wrapping_sub(0x1c) < 4)
    })
}

/// Splits a line (UTF-8) on Python's whitespace: the first fields' byte ranges go to `out`,
/// the count of all of them is returned.
fn split_python(line: &str, out: &mut [(usize, usize); FIELDS]) -> usize {
    let bytes = line.as_bytes();
    let (mut count, mut i, mut start) = (0, 0, None);
    while i < bytes.len() {
        let (space, width) = match bytes[i] {
            b if b < 0x80 => (ascii_space(b), 1),
            _ => line[i..]
                .chars()
                .next()
                .map_or((false, 1), |c| (python_space(c), c.len_utf8())),
        };
        if space {
            if let Some(s) = start.take() {
                if count < FIELDS {
                    out[count] = (s, i);
                }
                count += 1;
            }
        } else if start.is_none() {
            start = Some(i);
        }
        i += width;
    }
    if let Some(s) = start {
        if count < FIELDS {
            out[count] = (s, bytes.len());
        }
        count += 1;
    }
    count
}

/// One line: its file's name, its number, its text, its first fields (ranges into the
/// text) and their count.
struct Line<'a> {
    name: &'a str,
    number: u64,
    text: &'a [u8],
    fields: [(usize, usize); FIELDS],
    count: usize,
}

impl Line<'_> {
    fn field(&self, i: usize) -> &[u8] {
        let (s, e) = self.fields[i];
        &self.text[s..e]
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::at(message, self.name, self.number)
    }

    /// Field `i` as a number (`what` names it in the message).
    fn number(&self, i: usize, what: &str) -> Result<f64> {
        let field = self.field(i);
        python_float(field)
            .ok_or_else(|| self.error(format!("{what} {} is not a number", quoted(field))))
    }
}

/// Reads `input` line by line as Python reads a text file, handing each line to `each`.
/// Returns the file's name (for messages).
fn each_line(input: Input, mut each: impl FnMut(&Line) -> Result<()>) -> Result<String> {
    let mut source = Source::new(
        input.name,
        input.reader,
        CHUNK_BYTES,
        usize::MAX / 4, // Python reads a line of any length
        1,
        false, // no gzip, no byte-order mark: text as Python's open() reads it
    )?;
    let name = source.name.clone();
    let mut number = 0u64;
    while let Some(chunk) = source.next_chunk()? {
        let (data, end) = (chunk.data, chunk.end);
        if plain(&data[..end]) {
            let mut f = [0usize; 2 * FIELDS];
            let mut pos = 0;
            while pos < end {
                let (count, p) = split_line(data, pos, &mut f);
                number += 1;
                let mut line = Line {
                    name: &name,
                    number,
                    text: data,
                    fields: [(0, 0); FIELDS],
                    count,
                };
                for (i, field) in line.fields.iter_mut().enumerate().take(count) {
                    *field = (f[2 * i], f[2 * i + 1]);
                }
                each(&line)?;
                pos = p + 1;
            }
            continue;
        }
        let (text, bad) = match std::str::from_utf8(&data[..end]) {
            Ok(text) => (text, end),
            Err(e) => {
                let valid = e.valid_up_to();
                (std::str::from_utf8(&data[..valid]).unwrap_or(""), valid)
            }
        };
        let mut pos = 0;
        while pos < end {
            let stop = pos + memchr2(b'\r', b'\n', &data[pos..end]).unwrap_or(end - 1 - pos);
            number += 1;
            if bad < stop {
                return Err(Error::at("not UTF-8 text", &name, number));
            }
            let mut line = Line {
                name: &name,
                number,
                text: &text.as_bytes()[pos..stop],
                fields: [(0, 0); FIELDS],
                count: 0,
            };
            line.count = split_python(&text[pos..stop], &mut line.fields);
            each(&line)?;
            pos = if data[stop] == b'\r' && data.get(stop + 1) == Some(&b'\n') {
                stop + 2
            } else {
                stop + 1
            };
        }
    }
    Ok(name)
}

/// The unicode digits Python's `float()` reads (Unicode 14.0's decimal digits, as Python
/// 3.11's `unicodedata.decimal`): the zero of each run of ten.
const DIGIT_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66,
    0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90,
    0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
    0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650,
    0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60, 0x16ac0, 0x16b50,
    0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0,
];

/// The value of a decimal digit of any script, as Python's `float()` reads it.
fn unicode_digit(c: char) -> Option<u8> {
    let code = c as u32;
    let at = DIGIT_ZEROS.partition_point(|&zero| zero <= code);
    let zero = DIGIT_ZEROS[at.checked_sub(1)?];
    (code - zero < 10).then(|| (code - zero) as u8)
}

fn infinite(negative: bool) -> f64 {
    if negative {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    }
}

/// A decimal in ASCII, as Python's float() reads it (an overflow is infinite).
fn ascii_float(text: &[u8]) -> Option<f64> {
    match parse_decimal(text) {
        Decimal::Value(v) => Some(v),
        Decimal::OutOfRange => Some(infinite(text.first() == Some(&b'-'))),
        Decimal::NotNumber => None,
    }
}

/// Python's `inf`, `infinity` and `nan`, any case, signed.
fn inf_or_nan(text: &str) -> Option<f64> {
    let (negative, word) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let word = word.to_ascii_lowercase();
    match word.as_str() {
        "inf" | "infinity" => Some(infinite(negative)),
        "nan" => Some(if negative { -f64::NAN } else { f64::NAN }),
        _ => None,
    }
}

/// A field as Python's `float()` reads it, or None where it raises ValueError.
pub(crate) fn python_float(field: &[u8]) -> Option<f64> {
    if let Some(v) = ascii_float(field) {
        return Some(v);
    }
    let text = std::str::from_utf8(field).ok()?;
    let mut ascii = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if c.is_ascii() => ascii.push(c),
            c => ascii.push(char::from(b'0' + unicode_digit(c)?)),
        }
    }
    if ascii.contains('_') {
        // PEP 515: an underscore only between two digits
        let b = ascii.as_bytes();
        let between = |i: usize| {
            i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit)
        };
        if !(0..b.len()).filter(|&i| b[i] == b'_').all(between) {
            return None;
        }
        ascii.retain(|c| c != '_');
    }
    inf_or_nan(&ascii).or_else(|| ascii_float(ascii.as_bytes()))
}

/// A field quoted in a message as Python's `repr` quotes it, cut to `CUT` characters.
fn quoted(field: &[u8]) -> String {
    let text = String::from_utf8_lossy(field);
    match text.char_indices().nth(CUT) {
        Some((at, _)) => format!("{}...", repr(text[..at].as_bytes())),
        None => repr(field),
    }
}

/// Whether two identifiers are equal, without a library call for the usual lengths (topics
/// and docnos of 8 to 16 bytes: two overlapping 8-byte words).
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if (8..=16).contains(&a.len()) {
        let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8"));
        let last = a.len() - 8;
        return word(a, 0) == word(b, 0) && word(a, last) == word(b, last);
    }
    a == b
}

/// A gain file: the last gain of each (topic, docno), in order of first appearance.
#[derive(Default)]
pub struct CwlGains {
    topics: Interner,
    /// Per judgment: its docno and gain.
    docnos: Arena,
    gains: Vec<f64>,
    /// Per topic, its judgments by the hash of their docno (small tables, each in cache
    /// while a topic's lines are read and looked up).
    tables: Vec<HashTable<u32>>,
    /// Per topic: the judged documents with a gain above 0.
    relevant: Vec<f64>,
    /// The judgments whose gain is outside [min_gain, max_gain] now: their topic and the line
    /// that gave the gain (rare: no column of lines for every judgment).
    outside: HashMap<u32, (u32, u64)>,
}

impl CwlGains {
    fn add(&mut self, topic: &[u8], docno: &[u8], gain: f64, line: u64, (min, max): (f64, f64)) {
        let t = match self.tables.len().checked_sub(1) {
            // the topic of the line before, as a gain file's lines mostly are
            Some(last) if same(self.topics.ids.get(last), topic) => last as u32,
            _ => self.topics.intern(topic),
        };
        if t as usize == self.tables.len() {
            // room for as many judgments as the topic before had (topics are alike in size)
            let size = self.tables.last().map_or(0, HashTable::len);
            self.tables.push(HashTable::with_capacity(size));
            self.relevant.push(0.0);
        }
        let hash = hash_id(docno);
        let docnos = &self.docnos;
        let table = &mut self.tables[t as usize];
        let j = match table.find(hash, |&j| same(docnos.get(j as usize), docno)) {
            Some(&j) => {
                if self.gains[j as usize] > 0.0 {
                    self.relevant[t as usize] -= 1.0;
                }
                self.gains[j as usize] = gain;
                j
            }
            None => {
                let j = self.docnos.push(docno) as u32;
                self.gains.push(gain);
                let docnos = &self.docnos;
                table.insert_unique(hash, j, |&i| hash_id(docnos.get(i as usize)));
                j
            }
        };
        if gain > 0.0 {
            self.relevant[t as usize] += 1.0;
        }
        if gain > max || gain < min {
            self.outside.insert(j, (t, line));
        } else if !self.outside.is_empty() {
            self.outside.remove(&j);
        }
    }

    /// The first gain outside [min, max] (topics in order of first appearance, then their
    /// documents), as cwl_eval's check finds it, at the line that gave it.
    fn check(&self, name: &str, min_gain: f64, max_gain: f64) -> Result<()> {
        let Some((&j, &(_, line))) = self.outside.iter().min_by_key(|(&j, &(t, _))| (t, j)) else {
            return Ok(());
        };
        let gain = self.gains[j as usize];
        let bound = if gain > max_gain {
            format!("above --max_gain {}", float_repr(max_gain))
        } else {
            format!("below --min_gain {}", float_repr(min_gain))
        };
        let message = format!("gain {} is {bound}", float_repr(gain));
        Err(Error::at(message, name, line))
    }

    /// The index of a topic of the gain file.
    fn topic(&self, topic: &[u8]) -> Option<u32> {
        self.topics.find(topic)
    }

    /// The gain of a document of topic `t`, if the file judges it.
    #[inline]
    fn gain(&self, t: u32, docno: &[u8]) -> Option<f64> {
        self.tables[t as usize]
            .find(hash_id(docno), |&j| {
                same(self.docnos.get(j as usize), docno)
            })
            .map(|&j| self.gains[j as usize])
    }
}

/// Reads a gain file, every gain checked against [min_gain, max_gain].
pub fn read_cwl_gains(input: Input, min_gain: f64, max_gain: f64) -> Result<CwlGains> {
    gains_sized(input, min_gain, max_gain, 0)
}

/// `read_cwl_gains` with room made for a file of `size` bytes (lines of about 20 bytes), so
/// that the columns are not copied as they grow.
fn gains_sized(input: Input, min_gain: f64, max_gain: f64, size: u64) -> Result<CwlGains> {
    let mut gains = CwlGains::default();
    let lines = (size / 20) as usize;
    gains.docnos.reserve(lines, lines * 12);
    gains.gains.reserve(lines);
    let name = each_line(input, |line| {
        if line.count < 4 {
            return Err(line.error("needs 4 fields: topic unused docno gain"));
        }
        let gain = line.number(3, "gain")?;
        gains.add(
            line.field(0),
            line.field(2),
            gain,
            line.number,
            (min_gain, max_gain),
        );
        Ok(())
    })?;
    gains.check(&name, min_gain, max_gain)?;
    Ok(gains)
}

/// A file as cwl_eval opens it (`-` is a file of that name, not standard input).
pub fn open_cwl_file(path: &str) -> Result<Input> {
    let file = std::fs::File::open(path).map_err(|e| cannot_read(&e, path))?;
    Ok(Input::new(path, file))
}

/// Element type -> cost (the last line of a type wins).
#[derive(Default)]
pub struct CwlCosts {
    costs: HashMap<Vec<u8>, f64>,
}

impl CwlCosts {
    fn cost(&self, element_type: &[u8]) -> Option<f64> {
        self.costs.get(element_type).copied()
    }
}

/// Reads a cost file: `element_type cost` a line.
pub fn read_cwl_costs(input: Input) -> Result<CwlCosts> {
    let mut costs = CwlCosts::default();
    each_line(input, |line| {
        if line.count != 2 {
            return Err(line.error("needs 2 fields: element_type cost"));
        }
        let cost = line.number(1, "cost")?;
        costs.costs.insert(line.field(0).to_vec(), cost);
        Ok(())
    })?;
    Ok(costs)
}

/// The rankings of a result file as read: per ranking its topic and where its documents
/// end; per document (at most `depth` a ranking) its docno and element type.
#[derive(Default)]
pub struct CwlRankings {
    topics: Arena,
    ends: Vec<usize>,
    docnos: Arena,
    /// Per document: its element type, an index into `types`.
    kinds: Vec<u32>,
    types: Interner,
}

/// Reads a result file: exactly six fields a line, each stretch of lines of one topic a
/// ranking, its first `depth` documents kept (the lines after them checked).
pub fn read_cwl_rankings(input: Input, depth: usize) -> Result<CwlRankings> {
    rankings_sized(input, depth, 0)
}

/// `read_cwl_rankings` with room made for a file of `size` bytes (lines of about 32 bytes).
fn rankings_sized(input: Input, depth: usize, size: u64) -> Result<CwlRankings> {
    let mut run = CwlRankings::default();
    let lines = (size / 32) as usize;
    run.docnos.reserve(lines, lines * 14);
    run.kinds.reserve(lines);
    let mut kept = 0usize;
    let name = each_line(input, |line| {
        if line.count != 6 {
            return Err(line.error("needs 6 fields: topic element_type docno rank score run_id"));
        }
        let id = line.field(0);
        if run.topics.is_empty() || !same(run.topics.get(run.topics.len() - 1), id) {
            if !run.topics.is_empty() {
                run.ends.push(run.kinds.len());
            }
            run.topics.push(id);
            kept = 0;
        }
        if kept < depth {
            kept += 1;
            run.docnos.push(line.field(2));
            run.kinds.push(run.types.intern(line.field(1)));
        }
        Ok(())
    })?;
    if run.topics.is_empty() {
        return Err(Error::in_file(
            "no results (cwl_eval fails on an empty result file)",
            &name,
        ));
    }
    run.ends.push(run.kinds.len());
    Ok(run)
}

/// The rankings of a result file with their documents' gains and costs (NaN: unjudged, no
/// cost), flattened.
pub struct CwlRun {
    /// Per ranking: its topic.
    pub topics: Arena,
    /// Ranking r's documents are `ends[r - 1]..ends[r]` (from 0).
    pub ends: Vec<usize>,
    /// Per ranking: its topic's judged documents with a gain above 0.
    pub relevant: Vec<f64>,
    pub gains: Vec<f64>,
    pub costs: Vec<f64>,
}

/// A result file of at least this many documents is looked up in the gains on two threads.
const PARALLEL_LOOKUPS: usize = 1 << 16;

impl CwlRankings {
    /// The documents looked up in the gains, their element types in the costs (None: no cost
    /// file); a large file's in two halves of whole rankings, the second on another thread.
    pub fn judged(self, gains: &CwlGains, costs: Option<&CwlCosts>) -> CwlRun {
        let type_costs: Vec<f64> = self
            .types
            .ids
            .iter()
            .map(|t| costs.and_then(|c| c.cost(t)).unwrap_or(f64::NAN))
            .collect();
        let n = self.kinds.len();
        let mut looked_up = vec![0.0; n];
        let mut relevant = vec![0.0; self.ends.len()];
        let middle = match n >= PARALLEL_LOOKUPS {
            true => self.ends.partition_point(|&end| end < n / 2),
            false => self.ends.len(),
        };
        let (early, late) = looked_up.split_at_mut(self.first_doc(middle));
        let (early_relevant, late_relevant) = relevant.split_at_mut(middle);
        std::thread::scope(|scope| {
            if middle < self.ends.len() {
                let rankings = middle..self.ends.len();
                scope.spawn(|| self.look_up(rankings, gains, late_relevant, late));
            }
            self.look_up(0..middle, gains, early_relevant, early);
        });
        CwlRun {
            costs: self.kinds.iter().map(|&k| type_costs[k as usize]).collect(),
            topics: self.topics,
            ends: self.ends,
            relevant,
            gains: looked_up,
        }
    }

    /// Where ranking `r`'s documents start.
    fn first_doc(&self, r: usize) -> usize {
        if r == 0 {
            0
        } else {
            self.ends[r - 1]
        }
    }

    /// Rankings `rankings`' documents looked up in the gains (NaN: unjudged) into `out`, and
    /// each ranking's count of relevant documents into `relevant`.
    fn look_up(
        &self,
        rankings: std::ops::Range<usize>,
        gains: &CwlGains,
        relevant: &mut [f64],
        out: &mut [f64],
    ) {
        let base = self.first_doc(rankings.start);
        let mut start = base;
        for (i, r) in rankings.enumerate() {
            let end = self.ends[r];
            let topic = gains.topic(self.topics.get(r));
            relevant[i] = topic.map_or(0.0, |t| gains.relevant[t as usize]);
            for d in start..end {
                out[d - base] = topic
                    .and_then(|t| gains.gain(t, self.docnos.get(d)))
                    .unwrap_or(f64::NAN);
            }
            start = end;
        }
    }
}

/// Reads a result file and looks its documents up (`read_cwl_rankings`, then `judged`).
pub fn read_cwl_result(
    input: Input,
    gains: &CwlGains,
    costs: Option<&CwlCosts>,
    depth: usize,
) -> Result<CwlRun> {
    Ok(read_cwl_rankings(input, depth)?.judged(gains, costs))
}

fn read_cwl_judgments(
    gain_file: &str,
    cost_file: Option<&str>,
    (min_gain, max_gain): (f64, f64),
) -> Result<(CwlGains, Option<CwlCosts>)> {
    let gains = gains_sized(
        open_cwl_file(gain_file)?,
        min_gain,
        max_gain,
        size_of(gain_file),
    )?;
    let costs = match cost_file {
        Some(path) => Some(read_cwl_costs(open_cwl_file(path)?)?),
        None => None,
    };
    Ok((gains, costs))
}

/// The size of a regular file (0 when it is not one: a pipe, a device).
fn size_of(path: &str) -> u64 {
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map_or(0, |m| m.len())
}

/// The gain file (checked against [min_gain, max_gain]) and the cost file, and, read at the
/// same time on a second thread, the result file's rankings: each file's outcome, the gain
/// and cost files' together (their first error).
pub fn read_cwl_files(
    gain_file: &str,
    cost_file: Option<&str>,
    result_file: &str,
    bounds: (f64, f64),
    depth: usize,
) -> (Result<(CwlGains, Option<CwlCosts>)>, Result<CwlRankings>) {
    std::thread::scope(|scope| {
        let ahead = scope
            .spawn(|| rankings_sized(open_cwl_file(result_file)?, depth, size_of(result_file)));
        let judgments = read_cwl_judgments(gain_file, cost_file, bounds);
        let rankings = ahead.join().unwrap_or_else(|_| {
            Err(Error::in_file(
                "reading failed (a thread panicked)",
                result_file,
            ))
        });
        (judgments, rankings)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gains(text: &str) -> Result<CwlGains> {
        read_cwl_gains(Input::from_bytes("g", text.as_bytes().to_vec()), 0.0, 1.0)
    }

    fn result(text: &[u8], g: &CwlGains, depth: usize) -> Result<CwlRun> {
        read_cwl_result(Input::from_bytes("r", text.to_vec()), g, None, depth)
    }

    #[test]
    fn identifiers_compare_byte_by_byte() {
        let base = b"FBIS3-16217-LA071";
        for len in 0..=base.len() {
            let a = &base[..len];
            assert!(same(a, a));
            for at in 0..len {
                let mut b = a.to_vec();
                b[at] ^= 1;
                assert!(!same(a, &b), "{len} {at}");
            }
            assert!(!same(a, &base[..len.saturating_sub(1)]) || len == 0);
        }
    }

    #[test]
    fn numbers_as_python_float_reads_them() {
        // each expectation is Python 3.11's float() of the same text
        let cases: &[(&str, Option<f64>)] = &[
            ("0.5", Some(0.5)),
            ("1e-1", Some(0.1)),
            (".5", Some(0.5)),
            ("5.", Some(5.0)),
            ("1_0", Some(10.0)),
            ("1_0.2_5e1_0", Some(10.25e10)),
            ("1__0", None),
            ("_1", None),
            ("1_", None),
            ("1_.5", None),
            ("1e400", Some(f64::INFINITY)),
            ("-1e400", Some(f64::NEG_INFINITY)),
            ("-iNfInItY", Some(f64::NEG_INFINITY)),
            ("+inf", Some(f64::INFINITY)),
            ("infinit", None),
            ("\u{661}\u{662}", Some(12.0)),   // Arabic-Indic digits
            ("\u{ff11}.\u{ff15}", Some(1.5)), // fullwidth digits
            ("\u{b2}", None),                 // superscript two: not a decimal digit
            ("0x10", None),
            ("1e", None),
            ("", None),
            ("é", None),
        ];
        for (text, want) in cases {
            let got = python_float(text.as_bytes());
            assert_eq!(got, *want, "{text:?}");
        }
        assert!(python_float(b"nan").unwrap().is_nan());
        assert!(python_float(b"-NaN").unwrap().is_nan());
    }

    #[test]
    fn fields_split_on_python_whitespace() {
        let mut f = [(0, 0); FIELDS];
        let line = "a\u{a0}b\x1cc\u{3000}d\u{85}e\u{200b}f";
        let n = split_python(line, &mut f);
        let got: Vec<&str> = f[..n].iter().map(|&(s, e)| &line[s..e]).collect();
        assert_eq!(got, ["a", "b", "c", "d", "e\u{200b}f"]); // U+200B is not whitespace
        assert_eq!(split_python("  \t ", &mut f), 0);
        assert_eq!(split_python("1 2 3 4 5 6 7 8", &mut f), 8);
    }

    #[test]
    fn lines_end_as_python_ends_them() {
        // \r, \r\n and \n end lines; \x0b, \x0c, \x1c and U+2028 do not (they only separate fields)
        let g = gains("q 0 a 1\rq 0 b 0.5\r\nq 0 c 0\nq\x0b0\x0cd\u{2028}1\x1ce").unwrap();
        assert_eq!(g.gains, [1.0, 0.5, 0.0, 1.0]);
        let e = gains("q 0 a 1\rq 0 b 0.5\r\nq 0 c 0\nq 0 d 2")
            .err()
            .unwrap();
        assert_eq!(e.line, Some(4));
        let e = gains("q 0 a 1\rq 0 b\n").err().unwrap();
        assert_eq!(
            e.to_string(),
            "g:2: needs 4 fields: topic unused docno gain"
        );
    }

    #[test]
    fn the_last_gain_wins_and_the_range_is_checked_in_python_order() {
        let g = gains("q 0 a 2\nq 0 a 0.5\n").unwrap(); // 2 is replaced before the check
        assert_eq!(g.gains, [0.5]);
        assert_eq!(g.relevant, [1.0]);
        let g = gains("q 0 a 1\nq 0 b 1\nq 0 a 0\np 0 a 1\n").unwrap();
        assert_eq!(g.relevant, [1.0, 1.0]);
        let e = gains("q 0 a 2\nq 0 b 3\nq 0 a 0.5\n").err().unwrap(); // a is fine again
        assert_eq!(e.to_string(), "g:2: gain 3.0 is above --max_gain 1.0");
        // topic p comes first: its bad gain is reported, at the line that gave it
        let e = gains("p 0 x 0\nq 0 a 3\np 0 x -1\n").err().unwrap();
        assert_eq!(e.to_string(), "g:3: gain -1.0 is below --min_gain 0.0");
        let e = gains("q 0 a 1e16\n").err().unwrap();
        assert_eq!(e.to_string(), "g:1: gain 1e+16 is above --max_gain 1.0");
        assert!(gains("q 0 a nan\n").is_ok()); // NaN passes cwl_eval's check
        let e = gains("q 0 a 1\nq 0 b caf\u{e9}\n").err().unwrap();
        assert_eq!(e.to_string(), "g:2: gain 'caf\u{e9}' is not a number");
        let long = "9".repeat(70) + "x";
        let e = gains(&format!("q 0 a {long}\n")).err().unwrap();
        assert_eq!(
            e.message,
            format!("gain '{}'... is not a number", "9".repeat(64))
        );
    }

    #[test]
    fn invalid_utf8_is_refused_at_its_line() {
        let g = gains("q 0 a 1\n").unwrap();
        let e = result(b"q Q0 a 1 1 r\nq Q0 caf\xe9 2 1 r\n", &g, 10)
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "r:2: not UTF-8 text");
        // an earlier line's fault comes first
        let e = result(b"q Q0 a 1 1\nq Q0 caf\xe9 2 1 r\n", &g, 10)
            .err()
            .unwrap();
        assert_eq!(e.line, Some(1));
    }

    #[test]
    fn rankings_in_file_order_cut_at_the_depth() {
        let g = gains("q 0 a 1\nq 0 b 0.5\np 0 a 0.25\n").unwrap();
        let text = b"q Q0 b 1 1 r\nq Q0 x 2 1 r\nq Q0 a 3 1 r\np Q0 a 1 1 r\nq Q0 a 1 1 r\n";
        let run = result(text, &g, 2).unwrap();
        let topics: Vec<&[u8]> = run.topics.iter().collect();
        assert_eq!(topics, [&b"q"[..], b"p", b"q"]); // q comes back: a ranking of its own
        assert_eq!(run.ends, [2, 3, 4]);
        assert_eq!(run.relevant, [2.0, 1.0, 2.0]);
        assert_eq!(run.gains[..1], [0.5]);
        assert!(run.gains[1].is_nan()); // unjudged
        assert_eq!(run.gains[2..], [0.25, 1.0]);
        // lines past the depth are still checked
        let e = result(b"q Q0 a 1 1 r\nq Q0 b 2 1\n", &g, 1).err().unwrap();
        assert_eq!(e.line, Some(2));
        let e = result(b"", &g, 1).err().unwrap();
        assert_eq!(
            e.to_string(),
            "r: no results (cwl_eval fails on an empty result file)"
        );
        // a byte-order mark belongs to the first topic, as Python's utf-8 keeps it
        let run = result("\u{feff}q Q0 a 1 1 r\n".as_bytes(), &g, 1).unwrap();
        assert_eq!(run.topics.get(0), "\u{feff}q".as_bytes());
    }
}
