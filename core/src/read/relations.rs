//! The relevance formats beyond one grade per (query, document) that trec_eval reads with `-R`:
//!
//! - `qrels_jg`: `qid jg docno grade`, the second column a judgment group (one judge's or one
//!   session's judgments); each group is a qrels of its own.
//! - `prefs`: `qid jg jsg docno level`: within a judgment subgroup (jsg) of a judgment group
//!   (jg), a document with a higher level is preferred to one with a lower level.
//! - `qrels_prefs`: an ordinary qrels read as preferences: `qid jg docno level`, every line of a
//!   group in one subgroup.
//! - `subtopics`: `qid subtopic docno judgment`, the diversity qrels of the TREC Web track
//!   (ndeval's, and ir_measures' pyndeval provider's, whose iteration column is the subtopic):
//!   a document is judged once per subtopic, so it may be listed more than once per query.
//!
//! Each is held as a `Qrels` with one entry per distinct (query, document) (what ranks and
//! labels the run) and its `relations`: the groups, or the preference lines.

use hashbrown::hash_table::Entry;
use hashbrown::{HashMap, HashTable};

use super::qrels::{assemble, assemble_with, byte_order, QrelsBuilder, NO_TABLE, SCANNED};
use super::run::Interner;
use super::text::show;
use super::{hash_judgment, Qrels};
use crate::arena::Arena;
use crate::error::{Error, Result};

/// What a relevance file is (`-R`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RelFormat {
    /// `qid iter docno grade`.
    #[default]
    Qrels,
    /// `qid jg docno grade`.
    QrelsJg,
    /// `qid jg jsg docno level`.
    Prefs,
    /// `qid jg docno level`, read as preferences.
    QrelsPrefs,
    /// `qid subtopic docno judgment`: diversity (intent-aware) judgments.
    Subtopics,
}

impl RelFormat {
    /// The format named as `-R` names it.
    pub fn named(name: &str) -> Option<RelFormat> {
        Some(match name {
            "qrels" => RelFormat::Qrels,
            "qrels_jg" => RelFormat::QrelsJg,
            "prefs" => RelFormat::Prefs,
            "qrels_prefs" => RelFormat::QrelsPrefs,
            "subtopics" => RelFormat::Subtopics,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            RelFormat::Qrels => "qrels",
            RelFormat::QrelsJg => "qrels_jg",
            RelFormat::Prefs => "prefs",
            RelFormat::QrelsPrefs => "qrels_prefs",
            RelFormat::Subtopics => "subtopics",
        }
    }

    /// Fields of a line.
    pub fn fields(self) -> usize {
        if self == RelFormat::Prefs {
            5
        } else {
            4
        }
    }

    /// The fields, as a malformed line's message shows them.
    pub fn form(self) -> &'static str {
        match self {
            RelFormat::Qrels => "qid iter docno grade",
            RelFormat::QrelsJg => "qid jg docno grade",
            RelFormat::Prefs => "qid jg jsg docno level",
            RelFormat::QrelsPrefs => "qid jg docno level",
            RelFormat::Subtopics => "qid subtopic docno judgment",
        }
    }

    /// Its last column is any number (trec_eval's atof), not an integer grade.
    pub fn levels(self) -> bool {
        matches!(self, RelFormat::Prefs | RelFormat::QrelsPrefs)
    }
}

/// What qrels hold beyond one grade per (query, document).
#[derive(Default)]
pub enum Relations {
    /// Nothing: a plain qrels.
    #[default]
    Grades,
    /// `qrels_jg`: the judgment groups.
    Groups(Box<Groups>),
    /// `prefs`, `qrels_prefs`: the preference lines.
    Preferences(Box<Preferences>),
    /// `subtopics`: each document's judgments per subtopic.
    Subtopics(Box<Subtopics>),
}

/// The judgments of a `subtopics` file, per judgment of the outer qrels (one per distinct
/// (query, document), its grade the highest of the document's judgments).
pub struct Subtopics {
    /// The judgments of the outer qrels' judgment j are `offsets[j]..offsets[j + 1]` (fewer
    /// than `u32::MAX` lines: `subtopics` refuses more).
    pub offsets: Vec<u32>,
    /// Per judgment: its subtopic, numbered in order of first appearance in the file (the order
    /// pyndeval numbers them in, which is the order gains are added in), and its grade.
    pub subtopic: Vec<u32>,
    pub grade: Vec<f64>,
    /// How many distinct subtopics the file names.
    pub count: usize,
    /// The subtopics' names, by their number.
    pub names: Vec<Vec<u8>>,
}

/// The judgment groups of `qrels_jg`: one qrels query per (query, group), in that order (a
/// group's query id is `qid NUL jg`).
pub struct Groups {
    pub qrels: Qrels,
    /// The groups of query q (of the outer qrels) are `first[q]..first[q + 1]`.
    pub first: Vec<usize>,
}

impl Groups {
    /// The group queries of query q.
    pub fn of(&self, query: usize) -> std::ops::Range<usize> {
        self.first[query]..self.first[query + 1]
    }
}

/// The lines of a preference file, grouped by query (file order within a query).
pub struct Preferences {
    /// The lines of query q are `offsets[q]..offsets[q + 1]`.
    pub offsets: Vec<usize>,
    /// Per line: its judgment group and subgroup, numbered in byte order of their names (the
    /// order trec_eval sorts them in), its level, its document (a judgment index of the outer
    /// qrels) and its line in the file.
    pub group: Vec<u32>,
    pub subgroup: Vec<u32>,
    pub level: Vec<f64>,
    pub doc: Vec<u32>,
    pub lines: Vec<u64>,
}

/// A query id as messages show it: `'qid'`, or for a group's query `'qid' (judgment group 'jg')`.
pub(crate) fn query_name(qid: &[u8]) -> String {
    match qid.iter().position(|&c| c == 0) {
        Some(nul) => format!(
            "'{}' (judgment group '{}')",
            show(&qid[..nul]),
            show(&qid[nul + 1..])
        ),
        None => format!("'{}'", show(qid)),
    }
}

/// Numbers of interned names in unsigned byte order of the names.
fn ranks_in_byte_order(names: &Interner) -> Vec<u32> {
    byte_order(&names.ids).1 // the places assemble gives the queries
}

/// The queries of `b` without their judgments (what the run is grouped under).
fn queries_only(name: &str, qids: Interner, fractional: bool) -> Result<Qrels> {
    let b = QrelsBuilder {
        qids,
        ..QrelsBuilder::default()
    };
    assemble(name, b, fractional, Some("line"))
}

/// A `qrels_jg` file's qrels: its queries, each with its groups.
pub(crate) fn groups(name: &str, mut b: QrelsBuilder, fractional: bool) -> Result<Qrels> {
    let mut inner = QrelsBuilder::default();
    let mut key = Vec::new();
    for (j, &q) in b.query.iter().enumerate() {
        key.clear();
        key.extend_from_slice(b.qids.ids.get(q as usize));
        key.push(0);
        key.extend_from_slice(b.groups.ids.get(b.group[j] as usize));
        inner.query.push(inner.qids.intern(&key));
    }
    inner.docnos = std::mem::take(&mut b.docnos);
    inner.grades = std::mem::take(&mut b.grades);
    inner.lines = std::mem::take(&mut b.lines);
    let inner = assemble(name, inner, fractional, Some("line"))?;
    let mut outer = queries_only(name, b.qids, fractional)?;
    let mut first = vec![0usize; outer.qids.len() + 1];
    for key in inner.qids.iter() {
        let nul = key.iter().position(|&c| c == 0).unwrap_or(key.len());
        if let Some(q) = outer.query(&key[..nul]) {
            first[q + 1] += 1;
        }
    }
    for q in 0..outer.qids.len() {
        first[q + 1] += first[q];
    }
    outer.relations = Relations::Groups(Box::new(Groups {
        qrels: inner,
        first,
    }));
    Ok(outer)
}

/// A `prefs` or `qrels_prefs` file's qrels: its distinct (query, document) pairs, and its lines.
pub(crate) fn preferences(name: &str, b: QrelsBuilder) -> Result<Qrels> {
    let n = b.grades.len();
    // the distinct documents of each query, each at its first line
    let mut seen: HashMap<(u32, &[u8]), ()> = HashMap::with_capacity(n);
    let mut distinct = QrelsBuilder::default();
    let mut docnos = Arena::new();
    for j in 0..n {
        let (q, docno) = (b.query[j], b.docnos.get(j));
        if seen.insert((q, docno), ()).is_none() {
            distinct.query.push(q);
            docnos.push(docno);
            distinct.grades.push(0.0);
            distinct.lines.push(b.lines[j]);
        }
    }
    drop(seen);
    distinct.docnos = docnos;
    distinct.qids = b.qids;
    let qids: Vec<Vec<u8>> = distinct.qids.ids.iter().map(<[u8]>::to_vec).collect();
    let mut outer = assemble(name, distinct, true, Some("line"))?;
    let group_rank = ranks_in_byte_order(&b.groups);
    let subgroup_rank = ranks_in_byte_order(&b.subgroups);
    let query_of: Vec<usize> = qids
        .iter()
        .map(|qid| outer.query(qid).unwrap_or(usize::MAX))
        .collect();
    // the lines, grouped by query in a stable counting sort
    let nq = outer.qids.len();
    let mut offsets = vec![0usize; nq + 1];
    for &q in &b.query {
        offsets[query_of[q as usize] + 1] += 1;
    }
    for q in 0..nq {
        offsets[q + 1] += offsets[q];
    }
    let mut at = offsets.clone();
    let mut prefs = Preferences {
        offsets: Vec::new(),
        group: vec![0; n],
        subgroup: vec![0; n],
        level: vec![0.0; n],
        doc: vec![0; n],
        lines: vec![0; n],
    };
    for j in 0..n {
        let q = query_of[b.query[j] as usize];
        let row = at[q];
        at[q] += 1;
        prefs.group[row] = group_rank[b.group[j] as usize];
        prefs.subgroup[row] = if b.subgroup.is_empty() {
            0
        } else {
            subgroup_rank[b.subgroup[j] as usize]
        };
        prefs.level[row] = b.grades[j];
        prefs.doc[row] = outer.judgment(q, b.docnos.get(j)).unwrap_or(0) as u32;
        prefs.lines[row] = b.lines[j];
    }
    prefs.offsets = offsets;
    outer.relations = Relations::Preferences(Box::new(prefs));
    Ok(outer)
}

/// The place of `subtopic` in a document's chain of its query's lines (places: the lines
/// numbered from 0 in the query; from the latest, `previous` linking each place to the one
/// before, `NO_LINE` ending it; `group` a place's subtopic), if any.
fn place_of_subtopic(
    mut place: u32,
    previous: &[u32],
    group: impl Fn(usize) -> u32,
    subtopic: u32,
) -> Option<usize> {
    while place != NO_LINE {
        if group(place as usize) == subtopic {
            return Some(place as usize);
        }
        place = previous[place as usize];
    }
    None
}

/// The end of a document's chain of lines.
const NO_LINE: u32 = u32::MAX;
/// A grouped `subtopics` file of at least this many lines finds its documents on two threads.
const PARALLEL_LINES: usize = 1 << 16;

/// Where each query's lines start when lines are counted query by query (queries numbered
/// 0..queries): query q's are `offsets[q]..offsets[q + 1]` of that order.
fn query_offsets(query: &[u32], queries: usize) -> Vec<usize> {
    let mut offsets = vec![0usize; queries + 1];
    for &q in query {
        offsets[q as usize + 1] += 1;
    }
    for q in 0..queries {
        offsets[q + 1] += offsets[q];
    }
    offsets
}

/// Lines grouped by query (queries numbered 0..queries), each query's in file order (a stable
/// counting sort): query q's lines are `rows[offsets[q]..offsets[q + 1]]`.
fn lines_by_query(query: &[u32], queries: usize) -> (Vec<usize>, Vec<usize>) {
    let offsets = query_offsets(query, queries);
    let mut next = offsets.clone();
    let mut rows = vec![0usize; query.len()];
    for (j, &q) in query.iter().enumerate() {
        rows[next[q as usize]] = j;
        next[q as usize] += 1;
    }
    (offsets, rows)
}

/// The distinct documents of a `subtopics` file (or of a stretch of it), each query's in the
/// order its lines first name them.
#[derive(Default)]
struct Documents {
    /// Per document: the line that first names it, and its highest judgment.
    first_line: Vec<u32>,
    grade: Vec<f64>,
    /// Per document, when the lines were moved (`Columns::local` None): its first row.
    first_row: Vec<u32>,
    /// The file's first line that judges a document twice for one subtopic, and the error.
    twice: Option<(u64, Error)>,
    /// The qrels' index of the queries (`qrels::Index`): each query's table of more than
    /// `SCANNED` documents, and which query (its place in byte order) each table is.
    tables: Vec<HashTable<u32>>,
    tabled: Vec<u32>,
}

/// Lines visited query by query: a grouped file's own lines (`offsets` over them, from line
/// `lo`), or the lines in `rows` (`offsets` over that list, `lo` 0).
struct Visit<'a> {
    offsets: &'a [usize],
    rows: &'a [usize],
    grouped: bool,
    lo: usize,
    /// Per query (as the file numbers them): its place in byte order of the queries.
    rank: &'a [u32],
}

/// The per-line columns `documents` reads (lines `lo..`: its subtopic and grade) and writes:
/// each line's place among its query's documents into `local`, or, without `local` (a file
/// grouped in byte order of its queries), each query's subtopics and grades moved in place
/// into judgment order (a document's lines together, in file order; the documents in the
/// order the lines first name them), which is where the qrels will keep them.
struct Columns<'a> {
    group: &'a mut [u32],
    grades: &'a mut [f64],
    local: Option<&'a mut [u32]>,
}

impl<'a> Columns<'a> {
    fn split_at(self, at: usize) -> (Columns<'a>, Columns<'a>) {
        let (group, later_group) = self.group.split_at_mut(at);
        let (grades, later_grades) = self.grades.split_at_mut(at);
        let (local, later_local) = match self.local {
            Some(local) => {
                let (early, late) = local.split_at_mut(at);
                (Some(early), Some(late))
            }
            None => (None, None),
        };
        let early = Columns {
            group,
            grades,
            local,
        };
        let late = Columns {
            group: later_group,
            grades: later_grades,
            local: later_local,
        };
        (early, late)
    }
}

/// Where `documents` writes what it finds per document, from the start (at most one document
/// per line of its lines): `Documents`' columns, `first_row` empty unless lines are moved.
struct Found<'a> {
    first_line: &'a mut [u32],
    grade: &'a mut [f64],
    first_row: &'a mut [u32],
}

impl<'a> Found<'a> {
    fn split_at(self, at: usize) -> (Found<'a>, Found<'a>) {
        let (first_line, later_first_line) = self.first_line.split_at_mut(at);
        let (grade, later_grade) = self.grade.split_at_mut(at);
        let rows_at = at.min(self.first_row.len());
        let (first_row, later_first_row) = self.first_row.split_at_mut(rows_at);
        let early = Found {
            first_line,
            grade,
            first_row,
        };
        let late = Found {
            first_line: later_first_line,
            grade: later_grade,
            first_row: later_first_row,
        };
        (early, late)
    }
}

/// What one pass of `documents` found besides what it wrote into `Found`: how many
/// documents, and `Documents`' other fields.
struct Pass {
    found: usize,
    twice: Option<(u64, Error)>,
    tables: Vec<HashTable<u32>>,
    tabled: Vec<u32>,
}

/// Moves a query's subtopics and grades (its lines' stretch of the columns) into judgment
/// order, each line to its document's next row (`place`: each line's document; `rows`: per
/// document, its first row in the stretch, advanced as lines are placed); `was`: scratch.
fn move_lines(
    group: &mut [u32],
    grades: &mut [f64],
    place: &[u32],
    rows: &mut [u32],
    was: &mut (Vec<u32>, Vec<f64>),
) {
    was.0.clear();
    was.0.extend_from_slice(group);
    was.1.clear();
    was.1.extend_from_slice(grades);
    for (i, &d) in place.iter().enumerate() {
        let row = rows[d as usize] as usize;
        rows[d as usize] += 1;
        group[row] = was.0[i];
        grades[row] = was.1[i];
    }
}

/// Finds each query's distinct documents, writing each line's place among its query's
/// documents into `local` (lines `lo..lo + local.len()`), and notes the first line that judges
/// a document twice for one subtopic of a query (ndeval would add both to the subtopic's count
/// of relevant documents and keep either one's judgment). What is kept of a query's lines
/// while it is read is the query's own (a few thousand lines: in cache).
fn documents(name: &str, b: &QrelsBuilder, visit: &Visit, columns: Columns, out: Found) -> Pass {
    let Columns {
        group,
        grades,
        mut local,
    } = columns;
    let lo = visit.lo;
    debug_assert!(local.is_some() || visit.grouped);
    let Found {
        first_line,
        grade,
        first_row,
    } = out;
    let mut pass = Pass {
        found: 0,
        twice: None,
        tables: Vec::new(),
        tabled: Vec::new(),
    };
    // the query's documents by docno, as the qrels index them (what `Qrels::judgment` looks up)
    let mut table = HashTable::<u32>::new();
    // each document's lines so far, a chain of places in the query: its latest, and each
    // place's previous one; moving lines, each line's document and each document's rows
    let (mut latest, mut previous) = (Vec::<u32>::new(), Vec::<u32>::new());
    let (mut place, mut rows, mut was) = (
        Vec::<u32>::new(),
        Vec::<u32>::new(),
        (Vec::new(), Vec::new()),
    );
    for bounds in visit.offsets.windows(2) {
        let line = |i: usize| match visit.grouped {
            true => bounds[0] + i,
            false => visit.rows[bounds[0] + i],
        };
        latest.clear();
        previous.clear();
        place.clear();
        let start = pass.found; // where the query's documents start
        let count = bounds[1] - bounds[0];
        let Some(&query) = (count > 0).then(|| &b.query[line(0)]) else {
            continue;
        };
        let r = visit.rank[query as usize];
        table.clear();
        let docno_at = |d: &u32| b.docnos.get(first_line[start + *d as usize] as usize);
        table.reserve(count, |d| hash_judgment(r, docno_at(d)));
        for i in 0..count {
            let j = line(i);
            let docno = b.docnos.get(j);
            let hash = hash_judgment(r, docno);
            let docno_at = |d: &u32| b.docnos.get(first_line[start + *d as usize] as usize);
            let d = match table.entry(
                hash,
                |d| docno_at(d) == docno,
                |d| hash_judgment(r, docno_at(d)),
            ) {
                Entry::Occupied(e) => *e.get() as usize,
                Entry::Vacant(e) => {
                    e.insert(latest.len() as u32);
                    latest.len()
                }
            };
            let chain = latest.get(d).copied().unwrap_or(NO_LINE);
            let group_of = |place: usize| group[line(place) - lo];
            if let Some(p) = place_of_subtopic(chain, &previous, group_of, group[j - lo]) {
                if pass
                    .twice
                    .as_ref()
                    .is_none_or(|(line, _)| b.lines[j] < *line)
                {
                    let message = format!(
                        "document '{}' is judged twice for subtopic '{}' of query '{}' (first at line {})",
                        show(docno),
                        show(b.groups.ids.get(group[j - lo] as usize)),
                        show(b.qids.ids.get(b.query[j] as usize)),
                        b.lines[line(p)],
                    );
                    pass.twice = Some((b.lines[j], Error::at(message, name, b.lines[j])));
                }
                break; // the query's later lines come later in the file
            }
            match local.as_deref_mut() {
                Some(local) => local[j - lo] = d as u32,
                None => place.push(d as u32),
            }
            if d < latest.len() {
                grade[start + d] = f64::max(grade[start + d], grades[j - lo]);
                previous.push(latest[d]);
                latest[d] = i as u32;
            } else {
                first_line[start + d] = j as u32;
                grade[start + d] = grades[j - lo];
                pass.found += 1;
                previous.push(NO_LINE);
                latest.push(i as u32);
            }
        }
        if latest.len() > SCANNED {
            if table.capacity() > 2 * latest.len() {
                // documents judged for several subtopics: room for fewer than the lines
                let docno_at = |d: &u32| b.docnos.get(first_line[start + *d as usize] as usize);
                table.shrink_to(latest.len(), |d| hash_judgment(r, docno_at(d)));
            }
            pass.tabled.push(r);
            pass.tables.push(std::mem::take(&mut table));
        }
        if local.is_none() && pass.twice.is_none() {
            // each document's lines counted, then its first row in the query's stretch of
            // lines, which holds its rows
            rows.clear();
            rows.resize(latest.len(), 0);
            place.iter().for_each(|&d| rows[d as usize] += 1);
            let mut next = 0;
            for (d, count) in rows.iter_mut().enumerate() {
                (*count, next) = (next, next + *count);
                first_row[start + d] = bounds[0] as u32 + *count;
            }
            let stretch = bounds[0] - lo..bounds[1] - lo;
            move_lines(
                &mut group[stretch.clone()],
                &mut grades[stretch],
                &place,
                &mut rows,
                &mut was,
            );
        }
    }
    pass
}

/// Each query's distinct documents (`documents`), on two threads in halves of whole queries
/// when `halves` (a grouped file: its queries are independent), into columns with room for a
/// document per line: each half writes its own part of them (so each thread is the first to
/// touch its pages), and the second half's documents are then moved to follow the first's.
fn find_documents(
    name: &str,
    b: &QrelsBuilder,
    visit: &Visit,
    columns: Columns,
    halves: bool,
) -> Documents {
    let n = columns.group.len();
    let moved = columns.local.is_none();
    let mut first_line = vec![0u32; n];
    let mut grade = vec![0.0; n];
    let mut first_row = vec![0u32; if moved { n } else { 0 }];
    let found = Found {
        first_line: &mut first_line,
        grade: &mut grade,
        first_row: &mut first_row,
    };
    let pass = if halves {
        debug_assert!(visit.grouped && visit.lo == 0);
        let offsets = visit.offsets;
        let middle = offsets
            .partition_point(|&o| o < n / 2)
            .min(offsets.len() - 1);
        let lo = offsets[middle];
        let (early, late) = columns.split_at(lo);
        let (found_early, found_late) = found.split_at(lo);
        let first = Visit {
            offsets: &offsets[..=middle],
            ..*visit
        };
        let second = Visit {
            offsets: &offsets[middle..],
            lo,
            ..*visit
        };
        let (mut a, later) = std::thread::scope(|scope| {
            let other = scope.spawn(|| documents(name, b, &second, late, found_late));
            let a = documents(name, b, &first, early, found_early);
            let later = other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (a, later)
        });
        let from = lo..lo + later.found;
        first_line.copy_within(from.clone(), a.found);
        grade.copy_within(from.clone(), a.found);
        if moved {
            first_row.copy_within(from, a.found);
        }
        a.found += later.found;
        a.tables.extend(later.tables);
        a.tabled.extend_from_slice(&later.tabled);
        if let Some((line, error)) = later.twice {
            if a.twice.as_ref().is_none_or(|(earlier, _)| line < *earlier) {
                a.twice = Some((line, error));
            }
        }
        a
    } else {
        documents(name, b, visit, columns, found)
    };
    first_line.truncate(pass.found);
    grade.truncate(pass.found);
    first_row.truncate(if moved { pass.found } else { 0 });
    Documents {
        first_line,
        grade,
        first_row,
        twice: pass.twice,
        tables: pass.tables,
        tabled: pass.tabled,
    }
}

/// Calls `visit(query, line)` for each line in file order, its query as the file numbers
/// them: a grouped file's from its stretches of lines (`line_offsets`), another's from `query`.
fn each_line(
    grouped: bool,
    line_offsets: &[usize],
    query: &[u32],
    visit: &mut dyn FnMut(usize, usize),
) {
    if grouped {
        for (q, bounds) in line_offsets.windows(2).enumerate() {
            (bounds[0]..bounds[1]).for_each(|j| visit(q, j));
        }
    } else {
        query
            .iter()
            .enumerate()
            .for_each(|(j, &q)| visit(q as usize, j));
    }
}

/// The outer qrels' builder: one judgment per distinct document. A grouped file's documents
/// come in line order, so its queries, docnos and line numbers are kept in place (no second
/// copy of the identifiers; the file's lines are then known by their stretches, not by
/// `b.query`); otherwise they are copied.
fn distinct_builder(
    b: &mut QrelsBuilder,
    first_line: Vec<u32>,
    grade: Vec<f64>,
    grouped: bool,
) -> QrelsBuilder {
    let mut distinct = QrelsBuilder {
        grades: grade,
        qids: std::mem::take(&mut b.qids),
        ..QrelsBuilder::default()
    };
    if grouped {
        distinct.query = std::mem::take(&mut b.query);
        distinct.lines = std::mem::take(&mut b.lines);
        for (i, &j) in first_line.iter().enumerate() {
            // i <= j: read before written
            distinct.query[i] = distinct.query[j as usize];
            distinct.lines[i] = distinct.lines[j as usize];
        }
        distinct.query.truncate(first_line.len());
        distinct.lines.truncate(first_line.len());
        distinct.docnos = std::mem::take(&mut b.docnos);
        distinct.docnos.keep(&first_line);
    } else {
        distinct.query = first_line.iter().map(|&j| b.query[j as usize]).collect();
        let mut docnos = Arena::with_capacity(first_line.len(), b.docnos.byte_len());
        for &j in &first_line {
            docnos.push(b.docnos.get(j as usize));
        }
        distinct.docnos = docnos;
        distinct.lines = first_line.iter().map(|&j| b.lines[j as usize]).collect();
    }
    distinct
}

/// A `subtopics` file's qrels: its distinct (query, document) pairs, each with its judgments
/// per subtopic. A document judged twice for one subtopic of a query is refused.
pub(crate) fn subtopics(name: &str, mut b: QrelsBuilder) -> Result<Qrels> {
    let n = b.grades.len();
    if n >= NO_LINE as usize {
        return Err(Error::in_file(
            "too many judgments (at most 4294967294)",
            name,
        ));
    }
    // Each query's lines are indexed on their own, in file order: a query's few hundred
    // judgments index in cache, where one index of every line misses it on each lookup. A file
    // whose queries come one after another (the usual) is read in place.
    let grouped = b.query.windows(2).all(|w| w[0] <= w[1]);
    let (line_offsets, rows) = if grouped {
        (query_offsets(&b.query, b.qids.ids.len()), Vec::new())
    } else {
        lines_by_query(&b.query, b.qids.ids.len())
    };
    // a grouped file whose queries come in byte order (the outer qrels' order: the usual) has
    // each query's rows where its lines are, and its lines are moved there as its documents
    // are found; another's lines are placed afterwards, by each line's document (`local`)
    let rank = ranks_in_byte_order(&b.qids);
    let in_place = grouped && rank.iter().enumerate().all(|(q, &r)| r as usize == q);
    let (mut group, mut grades) = (std::mem::take(&mut b.group), std::mem::take(&mut b.grades));
    let mut local = if in_place { Vec::new() } else { vec![0u32; n] };
    let columns = Columns {
        group: &mut group,
        grades: &mut grades,
        local: (!in_place).then_some(local.as_mut_slice()),
    };
    let visit = Visit {
        offsets: &line_offsets,
        rows: &rows,
        grouped,
        lo: 0,
        rank: &rank,
    };
    let documents = find_documents(name, &b, &visit, columns, grouped && n >= PARALLEL_LINES);
    drop(rows);
    let Documents {
        first_line,
        grade,
        first_row,
        twice,
        tables,
        tabled,
    } = documents;
    if let Some((_, error)) = twice {
        return Err(error);
    }
    // the queries' documents are distinct: the tables that found them are the qrels' index
    let mut table_of = vec![NO_TABLE; rank.len()];
    for (t, &r) in tabled.iter().enumerate() {
        table_of[r as usize] = t as u32;
    }
    let distinct = distinct_builder(&mut b, first_line, grade, grouped);
    let index = Some((tables, table_of));
    let mut outer = assemble_with(name, distinct, false, Some("line"), index)?;
    let (offsets, subtopic, grade) = if in_place {
        let mut offsets = first_row;
        offsets.push(n as u32);
        (offsets, group, grades)
    } else {
        // each query of the file at its place in the qrels (assemble's byte order)
        let query_of: Vec<usize> = rank.iter().map(|&r| r as usize).collect();
        placed(&outer, &query_of, &local, &group, &grades, |visit| {
            each_line(grouped, &line_offsets, &b.query, visit)
        })
    };
    outer.relations = Relations::Subtopics(Box::new(Subtopics {
        offsets,
        subtopic,
        grade,
        count: b.groups.ids.len(),
        names: b.groups.ids.iter().map(<[u8]>::to_vec).collect(),
    }));
    Ok(outer)
}

/// The lines' subtopics and grades placed under their outer judgments, in file order (a
/// stable counting sort): per judgment its rows' offsets, then the two columns. The qrels keep
/// a query's judgments in the order given, so a line's judgment is its query's first plus its
/// document's place among the query's (`local`); `each_line` visits (query, line) in file order.
fn placed(
    outer: &Qrels,
    query_of: &[usize],
    local: &[u32],
    group: &[u32],
    grades: &[f64],
    each_line: impl Fn(&mut dyn FnMut(usize, usize)),
) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
    let n = local.len();
    let at = |q: usize, j: usize| {
        let q = query_of[q];
        debug_assert!(local[j] as usize + outer.offsets[q] < outer.offsets[q + 1]);
        outer.offsets[q] + local[j] as usize
    };
    // counts at offsets[d + 2], so that offsets[d + 1] is judgment d's next row while the lines
    // are placed, and its end afterwards
    let mut offsets = vec![0u32; outer.grades.len() + 2];
    each_line(&mut |q, j| offsets[at(q, j) + 2] += 1);
    for d in 2..offsets.len() {
        offsets[d] += offsets[d - 1];
    }
    let (mut subtopic, mut grade) = (vec![0u32; n], vec![0.0; n]);
    each_line(&mut |q, j| {
        let row = &mut offsets[at(q, j) + 1];
        subtopic[*row as usize] = group[j];
        grade[*row as usize] = grades[j];
        *row += 1;
    });
    offsets.pop();
    (offsets, subtopic, grade)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A builder of `subtopics` lines (qid, subtopic, docno, grade), numbered from 1.
    fn builder(rows: &[(String, String, String, f64)]) -> QrelsBuilder {
        let mut b = QrelsBuilder::default();
        for (i, (q, s, d, g)) in rows.iter().enumerate() {
            let q = b.qids.intern(q.as_bytes());
            b.query.push(q);
            let s = b.groups.intern(s.as_bytes());
            b.group.push(s);
            b.docnos.push(d.as_bytes());
            b.grades.push(*g);
            b.lines.push(i as u64 + 1);
        }
        b
    }

    /// 300 queries, each judging documents per subtopic (lines by subtopic, so a document's
    /// lines are apart); `twice`: (query, subtopic) pairs that judge their first document again.
    fn rows(twice: &[(usize, usize)]) -> Vec<(String, String, String, f64)> {
        let mut rows = Vec::new();
        for q in 0..300 {
            for s in 0..3 {
                for d in 0..(120 - 30 * s) {
                    let docno = format!("d{}", (d * 7 + q) % 151);
                    rows.push((
                        format!("q{q}"),
                        format!("{s}"),
                        docno,
                        ((d + q + s) % 3) as f64,
                    ));
                }
                if twice.contains(&(q, s)) {
                    let docno = format!("d{}", q % 151);
                    rows.push((format!("q{q}"), format!("{s}"), docno, 1.0));
                }
            }
        }
        rows
    }

    /// What `documents` found, and the subtopics and grades as it left them.
    type Found = (Documents, Vec<u32>, Vec<f64>);

    /// `documents` of `b` in one pass and in halves, each on copies of its subtopics and
    /// grades, each line's place noted in its `local` when given (lines moved otherwise).
    fn passes(b: &QrelsBuilder, local: [Option<&mut [u32]>; 2]) -> [Found; 2] {
        let offsets = query_offsets(&b.query, b.qids.ids.len());
        let rank = ranks_in_byte_order(&b.qids);
        let visit = Visit {
            offsets: &offsets,
            rows: &[],
            grouped: true,
            lo: 0,
            rank: &rank,
        };
        let pass = |halves: bool, local: Option<&mut [u32]>| {
            let (mut group, mut grades) = (b.group.clone(), b.grades.clone());
            let columns = Columns {
                group: &mut group,
                grades: &mut grades,
                local,
            };
            let found = find_documents("f", b, &visit, columns, halves);
            (found, group, grades)
        };
        let [one, two] = local;
        [pass(false, one), pass(true, two)]
    }

    /// `documents` in one pass and in halves, each line's place noted (`local`).
    fn both_ways(b: &QrelsBuilder) -> (Documents, Vec<u32>, Documents, Vec<u32>) {
        let n = b.grades.len();
        let (mut one, mut two) = (vec![0u32; n], vec![0u32; n]);
        let [(whole, ..), (halves, ..)] = passes(b, [Some(&mut one), Some(&mut two)]);
        (whole, one, halves, two)
    }

    #[test]
    fn lines_moved_in_halves_are_those_moved_in_one_pass() {
        let b = builder(&rows(&[]));
        let [(whole, group, grades), (halves, group2, grades2)] = passes(&b, [None, None]);
        assert_eq!(whole.first_row, halves.first_row);
        assert_eq!(whole.first_line, halves.first_line);
        let bits = |g: &[f64]| g.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
        assert_eq!((&group, bits(&grades)), (&group2, bits(&grades2)));
        assert_ne!(group, b.group); // moved: a document's lines apart in the file are together
        assert_eq!(whole.first_row.len(), whole.first_line.len());
    }

    #[test]
    fn documents_found_in_halves_are_those_of_one_pass() {
        let b = builder(&rows(&[]));
        assert!(b.grades.len() >= PARALLEL_LINES);
        let (whole, one, halves, two) = both_ways(&b);
        assert_eq!(one, two);
        assert_eq!(whole.first_line, halves.first_line);
        let bits = |d: &Documents| d.grade.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&whole), bits(&halves));
        assert!(whole.twice.is_none() && halves.twice.is_none());
        // each document once, with its highest grade of its subtopics
        assert_eq!(whole.first_line.len(), 300 * 120);
    }

    #[test]
    fn the_first_line_judging_twice_is_named_whichever_half_holds_it() {
        for twice in [
            vec![(150, 1)],
            vec![(3, 2)],
            vec![(150, 0), (40, 1)],
            vec![(40, 1), (199, 2)],
        ] {
            let b = builder(&rows(&twice));
            let (whole, _, halves, _) = both_ways(&b);
            let line = |d: &Documents| d.twice.as_ref().map(|(line, e)| (*line, e.to_string()));
            let expected = line(&whole).expect("refused");
            assert_eq!(line(&halves), Some(expected.clone()));
            let (q, s) = twice.iter().min().unwrap();
            assert!(
                expected
                    .1
                    .contains(&format!("subtopic '{s}' of query 'q{q}'")),
                "{}",
                expected.1
            );
        }
    }

    /// A judgment: its qid, its docno, and its rows' subtopics and grades (bits).
    type Judgment = (Vec<u8>, Vec<u8>, Vec<(Vec<u8>, u64)>);

    /// Each judgment's subtopics and grades, by (qid, docno), in row order.
    fn judgments(qrels: &Qrels) -> Vec<Judgment> {
        let Relations::Subtopics(s) = &qrels.relations else {
            panic!("not subtopics")
        };
        let mut out = Vec::new();
        for q in 0..qrels.qids.len() {
            for j in qrels.offsets[q]..qrels.offsets[q + 1] {
                let rows = (s.offsets[j] as usize..s.offsets[j + 1] as usize)
                    .map(|i| {
                        (
                            s.names[s.subtopic[i] as usize].clone(),
                            s.grade[i].to_bits(),
                        )
                    })
                    .collect();
                out.push((
                    qrels.qids.get(q).to_vec(),
                    qrels.docnos.get(j).to_vec(),
                    rows,
                ));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn subtopics_moved_in_place_are_those_placed_anew() {
        // queries in byte order (q000, q001, ...): each query's rows are where its lines are,
        // moved in place; the same queries in the opposite order, and the lines with a query
        // met again after the others (not grouped): placed in new columns
        let mut rows = rows(&[]);
        for row in rows.iter_mut() {
            row.0 = format!("q{:03}", row.0[1..].parse::<usize>().unwrap());
        }
        let in_order = subtopics("f", builder(&rows)).unwrap();
        let mut reversed = rows.clone();
        reversed.sort_by(|a, b| b.0.cmp(&a.0)); // stable: each query's lines in file order
        let reversed = subtopics("f", builder(&reversed)).unwrap();
        let mut apart = rows.clone();
        apart.rotate_left(1); // q000's first line last
        let apart = subtopics("f", builder(&apart)).unwrap();
        assert_eq!(judgments(&in_order), judgments(&reversed));
        let sorted = |mut j: Vec<Judgment>| {
            j.iter_mut().for_each(|(_, _, rows)| rows.sort());
            j
        };
        assert_eq!(sorted(judgments(&in_order)), sorted(judgments(&apart)));
        assert_eq!(judgments(&in_order).len(), 300 * 120);
    }

    /// The index the reader builds as it finds each query's documents is the one
    /// `Qrels::judgment` reads: every judgment found at its place and a docno the query does
    /// not judge not found, whatever the order of the lines (moved in place, placed in new
    /// columns; two halves or one pass), in queries with a table and in a small one scanned.
    #[test]
    fn each_judgment_is_found_where_the_qrels_keep_it() {
        let mut rows = rows(&[]);
        for row in rows.iter_mut() {
            row.0 = format!("q{:03}", row.0[1..].parse::<usize>().unwrap());
        }
        for (s, d) in [(0, "a"), (1, "a"), (0, "b"), (1, "c")] {
            rows.push(("q300".into(), s.to_string(), d.into(), 1.0));
        }
        let mut reversed = rows.clone();
        reversed.sort_by(|a, b| b.0.cmp(&a.0));
        let mut apart = rows.clone();
        apart.rotate_left(1);
        let few: Vec<_> = rows[rows.len() - 5000..].to_vec(); // one pass: under PARALLEL_LINES
        assert!(rows.len() >= PARALLEL_LINES && few.len() < PARALLEL_LINES);
        for lines in [&rows, &reversed, &apart, &few] {
            let qrels = subtopics("f", builder(lines)).unwrap();
            let mut tables = 0;
            for q in 0..qrels.qids.len() {
                let judged = qrels.offsets[q]..qrels.offsets[q + 1];
                for j in judged.clone() {
                    assert_eq!(qrels.judgment(q, qrels.docnos.get(j)), Some(j));
                }
                assert_eq!(qrels.judgment(q, b"d151"), None); // no query judges it
                let small = judged.len() <= SCANNED;
                assert_eq!(qrels.table_of[q] == NO_TABLE, small);
                tables += usize::from(!small);
                let other = if qrels.qids.get(q) == b"q300" {
                    &b"d0"[..]
                } else {
                    b"a"
                };
                assert_eq!(qrels.judgment(q, other), None); // another query's document
            }
            assert_eq!(
                tables,
                qrels.qids.len() - 1,
                "every query but q300 has a table"
            );
        }
    }

    #[test]
    fn the_first_line_judging_twice_is_named_in_any_order_of_lines() {
        for (rotate, padded) in [(0, false), (0, true), (1, false), (5000, true)] {
            let mut rows = rows(&[(40, 1), (7, 2)]);
            if padded {
                // queries in byte order: the lines are moved as the documents are found
                for row in rows.iter_mut() {
                    row.0 = format!("q{:03}", row.0[1..].parse::<usize>().unwrap());
                }
            }
            rows.rotate_left(rotate); // 1, 5000: a query's lines apart (not grouped)
                                      // by brute force: the earliest line judging a (query, subtopic, document) again
            let mut seen = std::collections::HashMap::new();
            let mut expected = None;
            for (i, (q, s, d, _)) in rows.iter().enumerate() {
                if let Some(first) = seen.insert((q.clone(), s.clone(), d.clone()), i + 1) {
                    expected.get_or_insert((i + 1, first));
                }
            }
            let (line, first) = expected.unwrap();
            let error = subtopics("f", builder(&rows))
                .err()
                .expect("refused")
                .to_string();
            assert!(error.starts_with(&format!("f:{line}: ")), "{error}");
            assert!(
                error.ends_with(&format!("(first at line {first})")),
                "{error}"
            );
        }
    }
}
