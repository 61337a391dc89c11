//! Arbitrary bytes as a qrels file (integer and fractional grades), as each of `-R`'s other
//! formats (qrels_jg, prefs, qrels_prefs, subtopics) and as a run, with the default chunk size
//! and a tiny one, plain and gzip-compressed: never a panic, an error is one line, and the chunk
//! size never changes the outcome.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use trecgain_core::error::Error;
use trecgain_core::read::{
    read_qrels_with, read_relevance_with, read_run_with, Input, Qrels, ReadOptions, RelFormat,
    Relations, Run,
};

fn check_error(e: &Error) {
    let text = e.to_string();
    assert!(
        !text.contains('\n') && !text.contains('\r'),
        "message on more than one line: {text:?}"
    );
    assert!(!e.message.is_empty());
}

type RunView = (
    Vec<Vec<u8>>,
    Vec<u32>,
    Vec<Vec<u8>>,
    Vec<u64>,
    Vec<u64>,
    Vec<u8>,
    Vec<String>,
);
type QrelsView = (Vec<Vec<u8>>, Vec<usize>, Vec<Vec<u8>>, Vec<u64>, Vec<u64>);

fn run_view(r: &Run) -> RunView {
    assert_eq!(r.query.len(), r.docnos.len());
    assert_eq!(r.scores.len(), r.docnos.len());
    assert_eq!(r.lines.len(), r.docnos.len());
    assert!(!r.scores.is_empty());
    for (i, &q) in r.query.iter().enumerate() {
        assert!((q as usize) < r.qids.len());
        assert!(r.scores[i].is_finite());
        assert!(i == 0 || r.lines[i] > r.lines[i - 1]);
    }
    (
        r.qids.iter().map(<[u8]>::to_vec).collect(),
        r.query.clone(),
        r.docnos.iter().map(<[u8]>::to_vec).collect(),
        r.scores.iter().map(|s| s.to_bits()).collect(),
        r.lines.clone(),
        r.tag.clone(),
        r.warnings.clone(),
    )
}

fn qrels_view(q: &Qrels) -> QrelsView {
    assert_eq!(q.offsets.len(), q.qids.len() + 1);
    assert_eq!(*q.offsets.last().unwrap(), q.docnos.len());
    for w in q.qids.iter().collect::<Vec<_>>().windows(2) {
        assert!(w[0] < w[1], "qids out of order");
    }
    for (query, qid) in q.qids.iter().enumerate() {
        assert_eq!(q.query(qid), Some(query));
        for j in q.offsets[query]..q.offsets[query + 1] {
            // each judgment found where the qrels keep it (a query judges a docno once)
            assert_eq!(q.judgment(query, q.docnos.get(j)), Some(j));
            assert!(q.grades[j].is_finite());
            assert!(q.fractional || q.grades[j].fract() == 0.0);
        }
    }
    (
        q.qids.iter().map(<[u8]>::to_vec).collect(),
        q.offsets.clone(),
        q.docnos.iter().map(<[u8]>::to_vec).collect(),
        q.grades.iter().map(|g| g.to_bits()).collect(),
        q.lines.clone(),
    )
}

fn options(chunk: usize) -> ReadOptions {
    ReadOptions {
        chunk_bytes: chunk,
        max_line_bytes: 300,
        size_hint: Some(100),
        ..ReadOptions::default()
    }
}

/// Per result line: qid, docno, score bits and line number.
fn results(r: &Run) -> Vec<(Vec<u8>, Vec<u8>, u64, u64)> {
    (0..r.scores.len())
        .map(|i| {
            (
                r.qids.get(r.query[i] as usize).to_vec(),
                r.docnos.get(i).to_vec(),
                r.scores[i].to_bits(),
                r.lines[i],
            )
        })
        .collect()
}

/// A run read in two parts cut at a line start, as a cluster's workers read one: the same
/// results, with the file's own line numbers (plain text only: a compressed file is not cut).
fn check_parts(data: &[u8], whole: &Run, at: u8) {
    let plain = data.first().is_some_and(|b| b.is_ascii_alphanumeric())
        && !data.starts_with(b"BZh")
        && !data.starts_with(b"PK");
    let newlines: Vec<usize> = memchr_positions(data);
    if !plain || newlines.is_empty() {
        return;
    }
    let cut = newlines[at as usize % newlines.len()] + 1;
    let input = |bytes: &[u8]| Input::from_bytes("fuzz.txt", bytes.to_vec());
    let first = ReadOptions {
        allow_empty: true,
        ..ReadOptions::default()
    };
    let second = ReadOptions {
        first_line: data[..cut].iter().filter(|&&b| b == b'\n').count() as u64 + 1,
        file_start: false,
        allow_empty: true,
        ..ReadOptions::default()
    };
    let a = read_run_with(input(&data[..cut]), &first).expect("the whole file was read");
    let b = read_run_with(input(&data[cut..]), &second).expect("the whole file was read");
    let mut parts = results(&a);
    parts.extend(results(&b));
    assert_eq!(parts, results(whole), "parts cut at byte {cut}");
}

fn memchr_positions(data: &[u8]) -> Vec<usize> {
    data.iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect()
}

/// The same outcome with either chunk size; but when the input cannot be read to its end
/// (damaged gzip), which comes first, that error or a fault in the lines read before it,
/// depends on how much was read at once: then both must be errors.
fn both<T: PartialEq + std::fmt::Debug>(a: Result<T, Error>, b: Result<T, Error>) {
    if let Err(e) = &a {
        check_error(e);
    }
    if let Err(e) = &b {
        check_error(e);
    }
    let unreadable =
        |r: &Result<T, Error>| matches!(r, Err(e) if e.message.starts_with("cannot read: "));
    if unreadable(&a) || unreadable(&b) {
        assert!(a.is_err() && b.is_err(), "{a:?} {b:?}");
        return;
    }
    assert_eq!(a, b, "the chunk size changed the outcome");
}

/// The groups or preference lines of a file of another `-R` format, checked and flattened.
type RelationsView = (QrelsView, Option<QrelsView>, Vec<usize>, Vec<(u32, u32, u64, u32, u64)>);

fn relations_view(q: &Qrels) -> RelationsView {
    let outer = qrels_view(q);
    match &q.relations {
        Relations::Grades => (outer, None, Vec::new(), Vec::new()),
        Relations::Groups(g) => {
            assert_eq!(g.first.len(), q.qids.len() + 1);
            assert_eq!(*g.first.last().unwrap(), g.qrels.qids.len());
            (outer, Some(qrels_view(&g.qrels)), g.first.clone(), Vec::new())
        }
        Relations::Preferences(p) => {
            assert_eq!(p.offsets.len(), q.qids.len() + 1);
            let lines = (0..p.level.len())
                .map(|i| {
                    let query = p.offsets.partition_point(|&o| o <= i) - 1;
                    let doc = p.doc[i] as usize;
                    assert!(doc >= q.offsets[query] && doc < q.offsets[query + 1]);
                    (p.group[i], p.subgroup[i], p.level[i].to_bits(), p.doc[i], p.lines[i])
                })
                .collect();
            (outer, None, p.offsets.clone(), lines)
        }
        Relations::Subtopics(s) => {
            assert_eq!(s.offsets.len(), q.grades.len() + 1);
            let lines = (0..s.subtopic.len())
                .map(|i| {
                    let doc = s.offsets.partition_point(|&o| o as usize <= i) - 1;
                    assert!((s.subtopic[i] as usize) < s.count && s.grade[i] <= q.grades[doc]);
                    (s.subtopic[i], 0, s.grade[i].to_bits(), doc as u32, 0)
                })
                .collect();
            let offsets = s.offsets.iter().map(|&o| o as usize).collect();
            (outer, None, offsets, lines)
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let chunk = 1 + data.first().copied().unwrap_or(0) as usize % 13;
    let input = |bytes: &[u8]| Input::from_bytes("fuzz.txt", bytes.to_vec());
    for format in [
        RelFormat::QrelsJg,
        RelFormat::Prefs,
        RelFormat::QrelsPrefs,
        RelFormat::Subtopics,
    ] {
        let big = read_relevance_with(input(data), false, format, &ReadOptions::default());
        let small = read_relevance_with(input(data), false, format, &options(chunk));
        if !matches!(&small, Err(e) if e.message.starts_with("line longer")) {
            both(
                big.as_ref().map(relations_view).map_err(Clone::clone),
                small.as_ref().map(relations_view).map_err(Clone::clone),
            );
        } else if let Err(e) = &big {
            check_error(e);
        }
    }
    for fractional in [false, true] {
        let big = read_qrels_with(input(data), fractional, &ReadOptions::default());
        let small = read_qrels_with(input(data), fractional, &options(chunk));
        // the default limit is 1 MiB: compare only where the small limit of 300 bytes is not hit
        if !matches!(&small, Err(e) if e.message.starts_with("line longer")) {
            both(
                big.as_ref().map(qrels_view).map_err(Clone::clone),
                small.as_ref().map(qrels_view).map_err(Clone::clone),
            );
        } else if let Err(e) = &big {
            check_error(e);
        }
    }
    let big = read_run_with(input(data), &ReadOptions::default());
    let small = read_run_with(input(data), &options(chunk));
    if !matches!(&small, Err(e) if e.message.starts_with("line longer")) {
        both(
            big.as_ref().map(run_view).map_err(Clone::clone),
            small.as_ref().map(run_view).map_err(Clone::clone),
        );
    } else if let Err(e) = &big {
        check_error(e);
    }
    if let Ok(whole) = &big {
        check_parts(data, whole, data.get(1).copied().unwrap_or(0));
    }
    // with the rank column read (--ties rank): the same run, or an error about a rank
    let ranks = ReadOptions {
        ranks: true,
        ..options(chunk)
    };
    match (&small, read_run_with(input(data), &ranks)) {
        (Ok(plain), Ok(ranked)) => {
            assert_eq!(run_view(plain), run_view(&ranked));
            assert_eq!(ranked.ranks.len(), ranked.scores.len());
        }
        (Ok(_), Err(e)) => {
            check_error(&e);
            assert!(e.message.starts_with("rank '"), "{e:?}");
        }
        (Err(_), Err(e)) => check_error(&e),
        (Err(e), Ok(_)) => panic!("only the reader without ranks failed: {e:?}"),
    }
    // the same bytes compressed: the same outcome
    if data.len() < 4096 && !data.starts_with(&[0x1f, 0x8b]) {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        let packed = enc.finish().unwrap();
        let unpacked = read_run_with(input(&packed), &ReadOptions::default());
        both(
            big.as_ref().map(run_view).map_err(Clone::clone),
            unpacked.as_ref().map(run_view).map_err(Clone::clone),
        );
    }
    // and as a damaged gzip stream: an error or a run, never a panic
    if data.len() >= 2 && data[..2] == [0x1f, 0x8b] {
        if let Err(e) = read_run_with(input(data), &options(chunk)) {
            check_error(&e);
        }
    }
});
