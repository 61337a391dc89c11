//! Stage 6: trec_eval's text, `printf("%-22s\t%s\t%6.4f\n", name, qid, value)`, bytes in and
//! bytes out, written in chunks so per-query output is never held whole.

use std::io::Write;

use crate::error::Result;
use crate::evaluate::{Evaluation, Measuring};
use crate::printf::push_number;

/// How a line's values print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `%6.4f`.
    Float,
    /// `%ld`.
    Count,
    /// The run tag (runid).
    Tag,
    /// Characters, one per value slot up to the first 0, in single quotes (relstring).
    Chars,
}

/// One output line family: its printed name, how its value prints, whether it has per-query
/// lines and an `all` line, and how many value slots it takes (relstring: one per character).
#[derive(Debug, Clone)]
pub struct LineFormat {
    pub name: Vec<u8>,
    pub kind: Kind,
    pub per_query: bool,
    pub summary: bool,
    pub slots: usize,
}

/// What to print of an evaluation.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// `-q`: each query's lines.
    pub per_query: bool,
    /// Not `-n`: the `all` lines.
    pub summary: bool,
    /// Print per-query lines for queries the run lacks (trec_eval 10 with -c; 9.x prints none).
    pub absent_queries: bool,
}

const CHUNK: usize = 1 << 20;

/// Writes the evaluation's text to `sink` in chunks of about a megabyte (per-query lines
/// from the values it kept).
pub fn write_trec(
    ev: &Evaluation,
    lines: &[LineFormat],
    layout: Layout,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
    if layout.per_query {
        for q in 0..ev.qids.len() {
            if ev.in_run[q] || layout.absent_queries {
                let row = &ev.values[q * ev.width..(q + 1) * ev.width];
                let skip = Skip {
                    nine: (!ev.in_run[q]).then_some(ev.nine_slots.as_slice()),
                    optional: &ev.optional_slots,
                };
                push_query(&mut buf, lines, ev.qids.get(q), row, &ev.tag, skip);
            }
            flush_full(&mut buf, sink)?;
        }
    }
    finish(&mut buf, ev, lines, layout, sink)
}

/// The same text, the per-query lines measured again block by block as they are written, so
/// that no evaluation holds every query's values (`ev` holds the summaries).
pub fn write_trec_streamed(
    ev: &Evaluation,
    measuring: &Measuring,
    lines: &[LineFormat],
    layout: Layout,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
    if layout.per_query {
        let width = measuring.width();
        let (nine, optional) = (measuring.nine_slots(), measuring.optional_slots());
        measuring.for_each_block(&mut |queries, rows| {
            for (i, &q) in queries.iter().enumerate() {
                if measuring.in_run(q) || layout.absent_queries {
                    let skip = Skip {
                        nine: (!measuring.in_run(q)).then_some(nine.as_slice()),
                        optional: &optional,
                    };
                    push_query(
                        &mut buf,
                        lines,
                        measuring.qid(q),
                        &rows[i * width..(i + 1) * width],
                        &ev.tag,
                        skip,
                    );
                }
                flush_full(&mut buf, sink)?;
            }
            Ok(())
        })?;
    }
    finish(&mut buf, ev, lines, layout, sink)
}

fn flush_full(buf: &mut Vec<u8>, sink: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
    if buf.len() >= CHUNK {
        sink(buf)?;
        buf.clear();
    }
    Ok(())
}

/// The `all` lines (unless -n), then whatever is left in `buf`.
fn finish(
    buf: &mut Vec<u8>,
    ev: &Evaluation,
    lines: &[LineFormat],
    layout: Layout,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    if layout.summary {
        let mut slot = 0;
        for line in lines {
            if line.summary {
                let values = &ev.summaries[slot..slot + line.slots];
                push_line(buf, &line.name, b"all", line.kind, values, &ev.tag);
            }
            slot += line.slots;
        }
    }
    if !buf.is_empty() {
        sink(buf)?;
    }
    Ok(())
}

/// Which of a query's lines print no line.
#[derive(Clone, Copy)]
struct Skip<'a> {
    /// For a query the run lacks, the value slots whose lines 9.x's rules do not print
    /// (`Evaluation::nine_slots`).
    nine: Option<&'a [bool]>,
    /// The value slots where a NaN is no value (`Evaluation::optional_slots`).
    optional: &'a [bool],
}

impl Skip<'_> {
    fn skips(&self, slot: usize, value: f64) -> bool {
        let flag = |slots: &[bool]| slots.get(slot).copied().unwrap_or(false);
        self.nine.is_some_and(flag) || (value.is_nan() && flag(self.optional))
    }
}

/// One query's lines, in registry order, but those `skip` leaves out.
fn push_query(
    buf: &mut Vec<u8>,
    lines: &[LineFormat],
    qid: &[u8],
    row: &[f64],
    tag: &[u8],
    skip: Skip,
) {
    let mut slot = 0;
    for line in lines {
        let skipped = skip.skips(slot, row.get(slot).copied().unwrap_or(0.0));
        if line.per_query && !skipped {
            push_line(
                buf,
                &line.name,
                qid,
                line.kind,
                &row[slot..slot + line.slots],
                tag,
            );
        }
        slot += line.slots;
    }
}

/// One line; `values` are its slots (one, but for Chars).
fn push_line(buf: &mut Vec<u8>, name: &[u8], qid: &[u8], kind: Kind, values: &[f64], tag: &[u8]) {
    let value = values.first().copied().unwrap_or(0.0); // Chars may have no slot (relstring.0)
    buf.extend_from_slice(name);
    for _ in name.len()..22 {
        buf.push(b' ');
    }
    buf.push(b'\t');
    buf.extend_from_slice(qid);
    buf.push(b'\t');
    match kind {
        Kind::Tag => buf.extend_from_slice(tag),
        Kind::Count => {
            let _ = write!(buf, "{}", value as i64);
        }
        Kind::Float => push_number(buf, value),
        Kind::Chars => {
            buf.push(b'\'');
            buf.extend(values.iter().take_while(|&&c| c != 0.0).map(|&c| c as u8));
            buf.push(b'\'');
        }
    }
    buf.push(b'\n');
}
