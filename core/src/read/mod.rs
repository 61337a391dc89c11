//! Stage 1: qrels and run files to columns, streamed in chunks of whole lines.
//!
//! Owned by the reader: any whitespace separates fields (C's isspace), CRLF, comment lines
//! (`#` in column 0) in both files, blank lines in runs, gzip detected by content, FILE:LINE
//! on every error. Rules and messages: see `read.py` of trecgain 0.1 and TREC_EVAL_SEMANTICS.md.

use std::io::Read;

use crate::arena::Arena;
use crate::error::Result;

/// A byte source and the name used for it in messages (`(standard input)` for `-`).
pub struct Input {
    pub name: String,
    pub reader: Box<dyn Read>,
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
}

impl Qrels {
    /// Index of a query in `qids`.
    pub fn query(&self, qid: &[u8]) -> Option<usize> {
        let _ = qid;
        todo!("reader")
    }

    /// Grade of (query, docno), if the qrels list it.
    pub fn grade(&self, query: usize, docno: &[u8]) -> Option<f64> {
        let _ = (query, docno);
        todo!("reader")
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
    /// Tag of the last line read (runid).
    pub tag: Vec<u8>,
    /// Queries given with nothing retrieved (`{qid: {}}` in a dict run): evaluated as empty.
    pub empty_qids: Vec<Vec<u8>>,
    /// Lines for the caller to show (the library never prints).
    pub warnings: Vec<String>,
}

/// Reads a qrels file: `qid iter docno grade`.
pub fn read_qrels(input: Input, fractional: bool) -> Result<Qrels> {
    let _ = (input, fractional);
    todo!("reader")
}

/// Reads a run file: `qid iter docno rank score tag [anything]`.
pub fn read_run(input: Input) -> Result<Run> {
    let _ = input;
    todo!("reader")
}
