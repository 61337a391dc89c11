//! Qrels files: `qid iter docno grade`, grouped by query in byte order, indexed by hash; and
//! the other relevance formats trec_eval reads with `-R` (`qrels_jg`, `prefs`,
//! `qrels_prefs`), whose extra columns `read::relations` turns into groups or preferences.

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use memchr::memchr;

use super::number::{parse_decimal, parse_integer, Decimal, Grade};
use super::run::Interner;
use super::scan::split_line;
use super::source::Chunk;
use super::text::show;
use super::{
    hash_judgment, line_fault, malformed, room_needed, too_long_id, Limits, Qrels, RelFormat,
    Relations, MAX_ID_BYTES,
};
use crate::arena::Arena;
use crate::error::{Error, Result};

/// A query with at most this many judgments has no hash table: its few docnos are scanned.
pub(crate) const SCANNED: usize = 8;

/// `table_of` of a query without a table.
pub(crate) const NO_TABLE: u32 = u32::MAX;

/// Judgments in file order, filled chunk by chunk.
#[derive(Default)]
pub(crate) struct QrelsBuilder {
    pub qids: Interner,
    pub query: Vec<u32>,
    pub docnos: Arena,
    pub grades: Vec<f64>,
    pub lines: Vec<u64>,
    pub reserved: bool,
    /// The file's format: which columns it has, and what its second (and third) hold.
    pub format: RelFormat,
    /// `qrels_jg`, `prefs`, `qrels_prefs`: per line, its judgment group (second column).
    pub groups: Interner,
    pub group: Vec<u32>,
    /// `prefs`: per line, its judgment subgroup (third column).
    pub subgroups: Interner,
    pub subgroup: Vec<u32>,
}

impl QrelsBuilder {
    fn reserve(&mut self, size: u64, chunk_bytes: usize, docno_bytes: usize) {
        self.reserved = true;
        let Some((rows, bytes)) = room_needed(self.grades.len(), docno_bytes, size, chunk_bytes)
        else {
            return;
        };
        self.query.reserve(rows);
        self.grades.reserve(rows);
        self.lines.reserve(rows);
        self.docnos.reserve(rows, bytes);
        if self.format != RelFormat::Qrels {
            self.group.reserve(rows); // the judgment group, preference or subtopic column
        }
        if self.format == RelFormat::Prefs {
            self.subgroup.reserve(rows);
        }
    }

    pub fn parse(
        &mut self,
        chunk: &Chunk,
        name: &str,
        fractional: bool,
        limits: &Limits,
    ) -> Result<()> {
        let data = chunk.data;
        let end = chunk.end;
        let docno_bytes_before = self.docnos.byte_len();
        let nul = memchr(0, &data[..end]).unwrap_or(usize::MAX);
        let mut pos = 0;
        let mut line = chunk.first_line;
        let (want, kind) = (self.format.fields(), self.format.name());
        let levels = fractional || self.format.levels();
        while pos < end {
            let start = pos;
            let mut f = [0usize; 10]; // start, end of the first five fields
            let comment = data[pos] == b'#';
            let (fields, p) = if comment {
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
            if comment {
                line += 1;
                continue;
            }
            if fields != want {
                return Err(malformed(kind, fields, name, line));
            }
            let qid = &data[f[0]..f[1]];
            let last = 2 * want - 4; // the docno's field, then the grade's
            let docno = &data[f[last]..f[last + 1]];
            let grade = &data[f[last + 2]..f[last + 3]];
            for k in 0..want {
                let len = f[2 * k + 1] - f[2 * k];
                if len > MAX_ID_BYTES {
                    return Err(too_long_id(len, name, line));
                }
            }
            let grade = parse_grade(grade, levels).map_err(|m| Error::at(m, name, line))?;
            if self.format != RelFormat::Qrels {
                self.group.push(self.groups.intern(&data[f[2]..f[3]]));
            }
            if self.format == RelFormat::Prefs {
                self.subgroup.push(self.subgroups.intern(&data[f[4]..f[5]]));
            }
            let q = self.qids.intern(qid);
            self.query.push(q);
            self.docnos.push(docno);
            self.grades.push(grade);
            self.lines.push(line);
            line += 1;
        }
        if !self.reserved {
            if let Some(size) = limits.size_hint {
                self.reserve(size, end, self.docnos.byte_len() - docno_bytes_before);
            }
        }
        Ok(())
    }

    pub fn finish(self, name: &str, fractional: bool) -> Result<Qrels> {
        if self.grades.is_empty() {
            let what = match self.format {
                RelFormat::Prefs => "no preferences in the prefs file",
                RelFormat::QrelsPrefs => "no judgments in the qrels_prefs file",
                RelFormat::QrelsJg => "no judgments in the qrels_jg file",
                RelFormat::Subtopics => "no judgments in the subtopics file",
                RelFormat::Qrels => "no judgments in the qrels file",
            };
            return Err(Error::in_file(what, name));
        }
        match self.format {
            RelFormat::Qrels => assemble(name, self, fractional, Some("line")),
            RelFormat::QrelsJg => super::relations::groups(name, self, fractional),
            RelFormat::Prefs | RelFormat::QrelsPrefs => super::relations::preferences(name, self),
            RelFormat::Subtopics => super::relations::subtopics(name, self),
        }
    }
}

/// A grade token: an integer, or with `fractional` any decimal. The error is the message.
fn parse_grade(tok: &[u8], fractional: bool) -> std::result::Result<f64, String> {
    if fractional {
        return match parse_decimal(tok) {
            Decimal::Value(v) => Ok(v),
            Decimal::NotNumber => Err(format!("grade '{}' is not a number", show(tok))),
            Decimal::OutOfRange => Err(format!("grade '{}' is out of range", show(tok))),
        };
    }
    match parse_integer(tok) {
        Grade::Value(v) => Ok(v),
        Grade::NotInteger {
            looks_fractional: true,
        } => Err(format!(
            "grade '{}' is not an integer (use --fractional-grades, or fractional_grades=True, for \
             fractional grades)",
            show(tok)
        )),
        Grade::NotInteger {
            looks_fractional: false,
        } => Err(format!("grade '{}' is not an integer", show(tok))),
        Grade::OutOfRange => Err(format!("grade {} is out of range", show(tok))),
    }
}

/// Groups judgments by query (queries in unsigned byte order, file order within a query),
/// builds the (query, docno) index, and refuses a document judged twice for one query,
/// naming its positions if the judgments have them (`unit`: "line" in a file, "row").
pub(crate) fn assemble(
    name: &str,
    b: QrelsBuilder,
    fractional: bool,
    unit: Option<&str>,
) -> Result<Qrels> {
    assemble_with(name, b, fractional, unit, None)
}

/// The (query, docno) index of qrels: one table per query of more than `SCANNED` judgments,
/// keyed by `hash_judgment` of the query's place in byte order and the docno, its values the
/// judgments' places within their query (`Qrels::judgment`); per query, its table or
/// `NO_TABLE`.
pub(crate) type Index = (Vec<HashTable<u32>>, Vec<u32>);

/// `assemble`, with the index already built when `index` is given (by a reader that found
/// each query's distinct documents: no document is then judged twice).
pub(crate) fn assemble_with(
    name: &str,
    mut b: QrelsBuilder,
    fractional: bool,
    unit: Option<&str>,
    index: Option<Index>,
) -> Result<Qrels> {
    if b.grades.len() > u32::MAX as usize {
        return Err(Error::in_file(
            "too many judgments (at most 4294967295)",
            name,
        ));
    }
    let (order, rank) = byte_order(&b.qids.ids);
    let mut offsets = vec![0usize; order.len() + 1];
    for &q in &b.query {
        offsets[rank[q as usize] as usize + 1] += 1;
    }
    for r in 0..order.len() {
        offsets[r + 1] += offsets[r];
    }
    let mut qids = Arena::with_capacity(order.len(), 0);
    for &q in &order {
        qids.push(b.qids.ids.get(q as usize));
    }
    let (docnos, grades, lines) = grouped(&mut b, &rank, &offsets);
    let ((tables, table_of), duplicate) = match index {
        Some(index) => (index, None),
        None => index_judgments(&offsets, &docnos, &lines),
    };
    if let Some((first, second)) = duplicate {
        let qid =
            super::relations::query_name(qids.get(offsets.partition_point(|&o| o <= first) - 1));
        let docno = show(docnos.get(first));
        return Err(match unit {
            Some(unit) => Error::at(
                format!(
                    "document '{docno}' judged twice for query {qid} (first at {unit} {})",
                    lines[first]
                ),
                name,
                lines[second],
            ),
            None => Error::in_file(
                format!("document '{docno}' judged twice for query {qid}"),
                name,
            ),
        });
    }
    Ok(Qrels {
        source: name.to_string(),
        qids,
        offsets,
        docnos,
        grades,
        lines,
        fractional,
        tables,
        table_of,
        relations: Relations::Grades,
    })
}

/// The queries in unsigned byte order of their ids (`order`), and each query's place in it
/// (`rank`).
pub(crate) fn byte_order(ids: &Arena) -> (Vec<u32>, Vec<u32>) {
    let mut order: Vec<u32> = (0..ids.len() as u32).collect();
    order.sort_unstable_by(|&a, &c| ids.get(a as usize).cmp(ids.get(c as usize)));
    let mut rank = vec![0u32; ids.len()];
    for (r, &q) in order.iter().enumerate() {
        rank[q as usize] = r as u32;
    }
    (order, rank)
}

/// The judgments' columns (docnos, grades, lines) grouped by query in byte order, file order
/// within a query: as they are when the file is so grouped, whole stretches copied when each
/// query's judgments are together, a counting sort when they are scattered.
fn grouped(b: &mut QrelsBuilder, rank: &[u32], offsets: &[usize]) -> (Arena, Vec<f64>, Vec<u64>) {
    let n = b.grades.len();
    // Stretches of judgments of one query in the file: (start, end, rank of the query).
    let mut segments: Vec<(usize, usize, u32)> = Vec::new();
    let mut in_order = true; // already grouped in byte order (sorted qrels): kept as it is
    for (j, &q) in b.query.iter().enumerate() {
        let r = rank[q as usize];
        match segments.last_mut() {
            Some(last) if last.2 == r => last.1 = j + 1,
            last => {
                in_order &= last.is_none_or(|l| l.2 < r);
                segments.push((j, j + 1, r));
                if segments.len() > n / 8 + 1 {
                    in_order = false;
                    break; // scattered: the counting sort below
                }
            }
        }
    }
    let columns = if in_order {
        (
            std::mem::take(&mut b.docnos),
            std::mem::take(&mut b.grades),
            std::mem::take(&mut b.lines),
        )
    } else if segments.len() <= n / 8 + 1 {
        // A query's judgments are together in the file, the queries out of byte order (as in a
        // qrels sorted numerically): whole stretches are copied, in byte order of their query.
        segments.sort_by_key(|&(_, _, r)| r); // stable: file order within a query
        let mut docnos = Arena::with_capacity(n, b.docnos.byte_len());
        let mut grades = Vec::with_capacity(n);
        let mut lines = Vec::with_capacity(n);
        for &(lo, hi, _) in &segments {
            docnos.extend_from_range(&b.docnos, lo..hi);
            grades.extend_from_slice(&b.grades[lo..hi]);
            lines.extend_from_slice(&b.lines[lo..hi]);
        }
        (docnos, grades, lines)
    } else {
        counting_sort(b, rank, offsets)
    };
    drop(std::mem::take(&mut b.query));
    columns
}

/// Scattered judgments grouped by a counting sort: each judgment's row, then one column at a
/// time, each builder column dropped as soon as it is copied (a lower peak than copying all
/// at once).
fn counting_sort(
    b: &mut QrelsBuilder,
    rank: &[u32],
    offsets: &[usize],
) -> (Arena, Vec<f64>, Vec<u64>) {
    let n = b.grades.len();
    let mut row_at = offsets.to_vec();
    let dest: Vec<u32> = b
        .query
        .iter()
        .map(|&q| {
            let r = rank[q as usize] as usize;
            row_at[r] += 1;
            (row_at[r] - 1) as u32
        })
        .collect();
    drop(row_at);
    let column = std::mem::take(&mut b.grades);
    let mut grades = vec![0.0; n];
    for (j, &row) in dest.iter().enumerate() {
        grades[row as usize] = column[j];
    }
    drop(column);
    let mut lines = vec![0u64; n];
    for (j, &row) in dest.iter().enumerate() {
        lines[row as usize] = b.lines[j];
    }
    drop(std::mem::take(&mut b.lines));
    let mut ends = vec![0u64; n];
    for (j, &row) in dest.iter().enumerate() {
        ends[row as usize] = b.docnos.get(j).len() as u64;
    }
    let mut total = 0;
    for end in ends.iter_mut() {
        total += *end;
        *end = total;
    }
    let mut bytes = vec![0u8; total as usize];
    for (j, &row) in dest.iter().enumerate() {
        let docno = b.docnos.get(j);
        let end = ends[row as usize] as usize;
        bytes[end - docno.len()..end].copy_from_slice(docno);
    }
    (Arena::from_parts(bytes, ends), grades, lines)
}

/// The (query, docno) index (`Index`), and the duplicate pair that repeats a judgment at the
/// earliest line, if any, as (earlier, later) judgments. A query of at most `SCANNED`
/// judgments has no table (`Qrels::judgment` scans its few docnos; its lookups stay within a
/// few cache-resident kilobytes either way).
fn index_judgments(
    offsets: &[usize],
    docnos: &Arena,
    lines: &[u64],
) -> (Index, Option<(usize, usize)>) {
    let nq = offsets.len() - 1;
    let mut tables = Vec::new();
    let mut table_of = vec![NO_TABLE; nq];
    let mut duplicate: Option<(usize, usize)> = None;
    for r in 0..nq {
        let (lo, hi) = (offsets[r], offsets[r + 1]);
        if hi - lo <= SCANNED {
            // a few judgments: Qrels::judgment scans them; only duplicates are looked for here
            for j in lo..hi {
                if let Some(earlier) = (lo..j).find(|&i| docnos.get(i) == docnos.get(j)) {
                    if duplicate.is_none_or(|(_, d)| lines[j] < lines[d]) {
                        duplicate = Some((earlier, j));
                    }
                }
            }
            continue;
        }
        let docno_at = |i: &u32| docnos.get(lo + *i as usize);
        let mut table = HashTable::new();
        table.reserve(hi - lo, |i| hash_judgment(r as u32, docno_at(i)));
        for j in lo..hi {
            let docno = docnos.get(j);
            let hash = hash_judgment(r as u32, docno);
            let entry = table.entry(
                hash,
                |i| docno_at(i) == docno,
                |i| hash_judgment(r as u32, docno_at(i)),
            );
            match entry {
                Entry::Occupied(e) => {
                    let earlier = lo + *e.get() as usize;
                    if duplicate.is_none_or(|(_, d)| lines[j] < lines[d]) {
                        duplicate = Some((earlier, j));
                    }
                }
                Entry::Vacant(e) => {
                    e.insert((j - lo) as u32);
                }
            }
        }
        table_of[r] = tables.len() as u32;
        tables.push(table);
    }
    ((tables, table_of), duplicate)
}
