//! The reader's rules and messages, each read with many chunk sizes (every chunk boundary).

use std::io::{self, Read, Write};

use flate2::write::GzEncoder;
use flate2::Compression;

use super::*;

const RUN: &[u8] = b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n1 Q0 c 3 1.0 tag\n2 Q0 a 1 1.5 tag\n";
const QRELS: &[u8] = b"1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 a 1\n";

/// Chunk sizes that put a boundary everywhere in small files, and the default.
const CHUNKS: &[usize] = &[1, 2, 3, 4, 5, 7, 11, 16, 17, 31, 64, 100, CHUNK_BYTES];

fn options(chunk: usize) -> ReadOptions {
    ReadOptions {
        chunk_bytes: chunk,
        ..ReadOptions::default()
    }
}

/// Everything a run holds, comparable.
#[derive(Debug, PartialEq)]
struct RunView {
    qids: Vec<Vec<u8>>,
    query: Vec<u32>,
    docnos: Vec<Vec<u8>>,
    scores: Vec<u64>,
    lines: Vec<u64>,
    tag: Vec<u8>,
    warnings: Vec<String>,
}

fn view_run(r: &Run) -> RunView {
    RunView {
        qids: r.qids.iter().map(<[u8]>::to_vec).collect(),
        query: r.query.clone(),
        docnos: r.docnos.iter().map(<[u8]>::to_vec).collect(),
        scores: r.scores.iter().map(|s| s.to_bits()).collect(),
        lines: r.lines.clone(),
        tag: r.tag.clone(),
        warnings: r.warnings.clone(),
    }
}

#[derive(Debug, PartialEq)]
struct QrelsView {
    qids: Vec<Vec<u8>>,
    offsets: Vec<usize>,
    docnos: Vec<Vec<u8>>,
    grades: Vec<u64>,
    lines: Vec<u64>,
}

fn view_qrels(q: &Qrels) -> QrelsView {
    QrelsView {
        qids: q.qids.iter().map(<[u8]>::to_vec).collect(),
        offsets: q.offsets.clone(),
        docnos: q.docnos.iter().map(<[u8]>::to_vec).collect(),
        grades: q.grades.iter().map(|g| g.to_bits()).collect(),
        lines: q.lines.clone(),
    }
}

/// Reads a run with every chunk size; all must agree (result or error).
fn run_of(bytes: &[u8]) -> Result<Run> {
    let mut first: Option<Result<RunView>> = None;
    let mut result = None;
    for &chunk in CHUNKS {
        let got = read_run_with(
            Input::from_bytes("run.txt", bytes.to_vec()),
            &options(chunk),
        );
        let view = got.as_ref().map(view_run).map_err(Clone::clone);
        match &first {
            None => first = Some(view),
            Some(want) => assert_eq!(&view, want, "chunk size {chunk}"),
        }
        result = Some(got);
    }
    result.unwrap()
}

fn qrels_of(bytes: &[u8], fractional: bool) -> Result<Qrels> {
    let mut first: Option<Result<QrelsView>> = None;
    let mut result = None;
    for &chunk in CHUNKS {
        let got = read_qrels_with(
            Input::from_bytes("qrels.txt", bytes.to_vec()),
            fractional,
            &options(chunk),
        );
        let view = got.as_ref().map(view_qrels).map_err(Clone::clone);
        match &first {
            None => first = Some(view),
            Some(want) => assert_eq!(&view, want, "chunk size {chunk}"),
        }
        result = Some(got);
    }
    result.unwrap()
}

fn run_error(bytes: &[u8]) -> String {
    match run_of(bytes) {
        Ok(_) => panic!("no error for {:?}", String::from_utf8_lossy(bytes)),
        Err(e) => {
            assert!(!e.to_string().contains('\n'));
            e.to_string()
        }
    }
}

fn qrels_error(bytes: &[u8], fractional: bool) -> String {
    match qrels_of(bytes, fractional) {
        Ok(_) => panic!("no error for {:?}", String::from_utf8_lossy(bytes)),
        Err(e) => {
            assert!(!e.to_string().contains('\n'));
            e.to_string()
        }
    }
}

fn one_score(token: &str) -> std::result::Result<f64, String> {
    let line = format!("1 Q0 a 1 {token} tag\n");
    run_of(line.as_bytes())
        .map(|r| r.scores[0])
        .map_err(|e| e.to_string())
}

fn one_grade(token: &str, fractional: bool) -> std::result::Result<f64, String> {
    let line = format!("1 0 a {token}\n");
    qrels_of(line.as_bytes(), fractional)
        .map(|q| q.grades[0])
        .map_err(|e| e.to_string())
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn ids(a: &Arena) -> Vec<&[u8]> {
    a.iter().collect()
}

// ---------------------------------------------------------------- runs

#[test]
fn run_columns() {
    let r = run_of(b"q2 Q0 d1 1 3.5 tagA\nq2 Q0 d2 2 -1 tagA\nq1 Q0 d1 1 0.25 tagB extra fields\nq2 Q0 d3 3 7 tagC\n")
        .unwrap();
    assert_eq!(ids(&r.qids), [b"q2", b"q1"]);
    assert_eq!(r.query, [0, 0, 1, 0]);
    assert_eq!(ids(&r.docnos), [&b"d1"[..], b"d2", b"d1", b"d3"]);
    assert_eq!(r.scores, [3.5, -1.0, 0.25, 7.0]);
    assert_eq!(r.lines, [1, 2, 3, 4]);
    assert_eq!(r.tag, b"tagC");
    assert_eq!(r.source, "run.txt");
    assert!(r.warnings.is_empty() && r.empty_qids.is_empty());
}

#[test]
fn run_any_whitespace_crlf_and_no_final_newline() {
    let plain = view_run(&run_of(RUN).unwrap());
    for text in [
        &b"1\tQ0\ta\t1\t3.0\ttag\n1 Q0 b 2 2.0 tag\r\n1  Q0 \t c 3 1.0\x0btag\x0c\n  2 Q0 a 1 1.5 tag   \n"[..],
        b"1 Q0 a 1 3.0 tag\r\n1 Q0 b 2 2.0 tag\r\n1 Q0 c 3 1.0 tag\r\n2 Q0 a 1 1.5 tag\r\n",
        b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n1 Q0 c 3 1.0 tag\n2 Q0 a 1 1.5 tag",
        b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n1 Q0 c 3 1.0 tag\n2 Q0 a 1 1.5 tag\r",
        b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n1 Q0 c 3 1.0 tag\n2 Q0 a 1 1.5 tag   ",
    ] {
        assert_eq!(view_run(&run_of(text).unwrap()), plain, "{:?}", String::from_utf8_lossy(text));
    }
}

#[test]
fn run_blank_and_comment_lines() {
    let r = run_of(b"# a comment\n\n   \n\t\r\n1 Q0 a#b 1 1 tag\n#1 Q0 x 1 1 hidden\n \x0c\n2 Q0 c 1 2 last\n# end\n\n")
        .unwrap();
    assert_eq!(ids(&r.docnos), [&b"a#b"[..], b"c"]);
    assert_eq!(r.lines, [5, 8]);
    assert_eq!(r.tag, b"last");
    // '#' not in column 0 is data
    let r = run_of(b" #q Q0 d 1 1 t\n").unwrap();
    assert_eq!(ids(&r.qids), [b"#q"]);
    let r = run_of(b"1 Q0 d 1 1 #t\n").unwrap();
    assert_eq!(r.tag, b"#t");
}

#[test]
fn run_lone_cr_is_whitespace_with_one_warning() {
    // two lines joined by a lone CR: one line of 12 fields, the second half ignored
    let r =
        run_of(b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\r1 Q0 c 3 1 t\n1 Q0 d 4 0 t\r2 Q0 e 1 1 u\n").unwrap();
    assert_eq!(ids(&r.docnos), [b"a", b"b", b"d"]);
    assert_eq!(
        r.warnings,
        ["run.txt:2: a carriage return that does not end a line is whitespace (as in trec_eval): \
          lines separated by CR alone run together"]
    );
    let r = run_of(b"1 Q0 a 1 3 t\n# x\rcomment\n1 Q0 b\r2 2 t\n").unwrap();
    assert_eq!(r.warnings.len(), 1);
    assert!(r.warnings[0].starts_with("run.txt:2: a carriage return"));
    let r = run_of(b"1 Q0 a 1 3 t\r\r\n").unwrap();
    assert!(r.warnings[0].starts_with("run.txt:1: "));
    let r = run_of(b"\r\n\r\n\n1 Q0 a 1 3 t\n\r \n").unwrap();
    assert!(r.warnings[0].starts_with("run.txt:5: "), "{:?}", r.warnings);
    // CRLF, and a CR ending the file, are not lone
    assert!(run_of(b"1 Q0 a 1 3 t\r\n1 Q0 b 1 3 t\r")
        .unwrap()
        .warnings
        .is_empty());
    // a qrels file gets no warning: the CR is whitespace
    let e = qrels_error(b"1 0 a 1\r1 0 b 2\n", false);
    assert_eq!(
        e,
        "qrels.txt:1: malformed qrels line: 8 fields, expected exactly 4 (qid iter docno grade)"
    );
}

#[test]
fn run_malformed_lines() {
    assert_eq!(
        run_error(b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0\n"),
        "run.txt:2: malformed run line: 5 fields, expected at least 6 (qid iter docno rank score tag)"
    );
    assert_eq!(
        run_error(b"\n\nx\n"),
        "run.txt:3: malformed run line: 1 field, expected at least 6 (qid iter docno rank score tag)"
    );
    assert_eq!(
        run_error(b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0"),
        "run.txt:2: malformed run line: 5 fields, expected at least 6 (qid iter docno rank score tag)"
    );
}

#[test]
fn run_scores_accepted() {
    for (token, want) in [
        ("3", 3.0),
        ("-2", -2.0),
        ("+4", 4.0),
        ("1.", 1.0),
        (".5", 0.5),
        ("-.5", -0.5),
        ("1e5", 1e5),
        ("1E-5", 1e-5),
        ("1.e5", 1e5),
        ("3e-1", 0.3),
        ("1e-999", 0.0),
        ("14.632499694824219", 14.632499694824219),
        ("12.3456", 12.3456),
        ("0.1234567890123456789", 0.12345678901234568),
        ("999999999999999999999999999999", 1e30),
    ] {
        assert_eq!(one_score(token), Ok(want), "{token}");
    }
    assert!(one_score("-0").unwrap().is_sign_negative());
}

#[test]
fn run_scores_refused() {
    for token in [
        "high", "1,5", "1e", "1e+", "inf", "nan", "-inf", "infinity", "NaN", "0x1p3", "1_0", ".",
        "-", "+", "--1", "1e5.5", "1.2.3", "e5", "\u{663}",
    ] {
        assert_eq!(
            one_score(token),
            Err(format!("run.txt:1: score '{token}' is not a number")),
            "{token}"
        );
    }
    for token in ["1e999", "-1e999", "2e308"] {
        assert_eq!(
            one_score(token),
            Err(format!("run.txt:1: score '{token}' is out of range"))
        );
    }
    assert_eq!(
        run_error(b"1 Q0 a 1 \xff\xfe1 t\n"),
        "run.txt:1: score '\\xff\\xfe1' is not a number"
    );
    assert_eq!(
        run_error(b"1 Q0 a 1 \xc3\xa9 t\n"),
        "run.txt:1: score '\u{e9}' is not a number"
    );
    assert_eq!(
        run_error(b"1 Q0 a 1 1\x01 t\n"),
        "run.txt:1: score '1\x01' is not a number"
    );
}

#[test]
fn run_tag_is_the_last_data_line_s() {
    let r = run_of(b"1 Q0 a 1 3 first\n1 Q0 b 1 3 second x y z\n# c\n\n").unwrap();
    assert_eq!(r.tag, b"second");
    let r = run_of(b"1 Q0 a 1 3 t\xff\xfe").unwrap();
    assert_eq!(r.tag, b"t\xff\xfe");
}

#[test]
fn run_empty() {
    for text in [
        &b""[..],
        b"\n\n",
        b"# only a comment\n",
        b"\n\n# only a comment\n",
        b"  \t\r\n\x0b",
        b"#",
    ] {
        assert_eq!(run_error(text), "run.txt: no results in the run file");
    }
}

#[test]
fn run_invalid_utf8_and_control_bytes_are_kept() {
    let r = run_of(b"q\xff Q0 d\x80\x01 1 1 t\x1c\nq\xc3\xa9 Q0 \xe4\xb8\xad 1 1 t\n").unwrap();
    assert_eq!(ids(&r.qids), [&b"q\xff"[..], b"q\xc3\xa9"]);
    assert_eq!(ids(&r.docnos), [&b"d\x80\x01"[..], b"\xe4\xb8\xad"]);
    assert_eq!(r.tag, b"t");
}

#[test]
fn run_qid_interning() {
    let mut text = Vec::new();
    for i in 0..500 {
        text.extend_from_slice(format!("q{} Q0 d{i} 1 1 t\n", i % 37).as_bytes());
    }
    let r = run_of(&text).unwrap();
    assert_eq!(r.qids.len(), 37);
    for (i, &q) in r.query.iter().enumerate() {
        assert_eq!(r.qids.get(q as usize), format!("q{}", i % 37).as_bytes());
    }
}

// ---------------------------------------------------------------- qrels

#[test]
fn qrels_grouped_in_byte_order() {
    let q = qrels_of(
        b"2 0 x 1\n10 0 a 0\n1 0 c 2\n2 0 b -1\n\x80 0 z 3\n01 0 d 1\n9 0 e 1\nz 0 f 1\n1 0 a 1\n",
        false,
    )
    .unwrap();
    assert_eq!(
        ids(&q.qids),
        [&b"01"[..], b"1", b"10", b"2", b"9", b"z", b"\x80"]
    );
    assert_eq!(q.offsets, [0, 1, 3, 4, 6, 7, 8, 9]);
    assert_eq!(
        ids(&q.docnos),
        [&b"d"[..], b"c", b"a", b"a", b"x", b"b", b"e", b"f", b"z"]
    );
    assert_eq!(q.grades, [1.0, 2.0, 1.0, 0.0, 1.0, -1.0, 1.0, 1.0, 3.0]);
    assert_eq!(q.lines, [6, 3, 9, 2, 1, 4, 7, 8, 5]);
    assert!(!q.fractional);
    assert_eq!(q.query(b"2"), Some(3));
    assert_eq!(q.query(b"\x80"), Some(6));
    assert_eq!(q.query(b"3"), None);
    assert_eq!(q.query(b""), None);
    assert_eq!(q.grade(3, b"b"), Some(-1.0));
    assert_eq!(q.grade(3, b"a"), None);
    assert_eq!(q.grade(2, b"a"), Some(0.0));
    assert_eq!(q.grade(1, b"a"), Some(1.0));
    assert_eq!(q.grade(99, b"a"), None);
    assert_eq!(q.judgment(1, b"c"), Some(1));
}

#[test]
fn qrels_sorted_input_kept_as_is() {
    let q = qrels_of(QRELS, false).unwrap();
    assert_eq!(ids(&q.qids), [b"1", b"2"]);
    assert_eq!(q.offsets, [0, 3, 4]);
    assert_eq!(q.lines, [1, 2, 3, 4]);
    assert_eq!(q.grade(0, b"a"), Some(2.0));
    assert_eq!(q.grade(1, b"a"), Some(1.0));
    assert_eq!(q.grade(1, b"b"), None);
}

#[test]
fn qrels_index_on_many_judgments() {
    let mut text = Vec::new();
    for i in 0..3000u32 {
        let q = (i * 7919) % 53;
        text.extend_from_slice(format!("q{q} 0 doc{i} {}\n", i % 5).as_bytes());
    }
    let q = read_qrels(Input::from_bytes("qrels.txt", text), false).unwrap();
    for i in 0..3000u32 {
        let query = q.query(format!("q{}", (i * 7919) % 53).as_bytes()).unwrap();
        assert_eq!(
            q.grade(query, format!("doc{i}").as_bytes()),
            Some((i % 5) as f64)
        );
        assert_eq!(
            q.grade((query + 1) % 53, format!("doc{i}").as_bytes()),
            None
        );
    }
    for w in q.qids.iter().collect::<Vec<_>>().windows(2) {
        assert!(w[0] < w[1]);
    }
}

/// Grouping by query, for files sorted, grouped out of byte order, and scattered, against a
/// plain stable sort.
#[test]
fn qrels_grouping_matches_a_stable_sort() {
    let mut x: u64 = 0x51_7cc1_b727_220a;
    for layout in 0..3 {
        let mut rows: Vec<(Vec<u8>, Vec<u8>, i64)> = Vec::new();
        for q in 1..=40u32 {
            for d in 0..(q % 7 + 1) * 3 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                rows.push((
                    format!("{q}").into_bytes(),
                    format!("d{}-{d}", x % 1000).into_bytes(),
                    (x % 5) as i64 - 1,
                ));
            }
        }
        match layout {
            0 => rows.sort_by(|a, b| a.0.cmp(&b.0)), // sorted in byte order
            1 => {}                                  // grouped, numeric order
            _ => rows.sort_by_key(|r| (r.1.clone(), r.2)), // scattered
        }
        let text: Vec<u8> = rows
            .iter()
            .flat_map(|(q, d, g)| [&q[..], b" 0 ", d, format!(" {g}\n").as_bytes()].concat())
            .collect();
        let got = qrels_of(&text, false).unwrap();
        let mut want: Vec<_> = rows.iter().enumerate().collect();
        want.sort_by(|a, b| a.1 .0.cmp(&b.1 .0)); // stable
        assert_eq!(got.docnos.len(), want.len());
        for (k, (line, (q, d, g))) in want.iter().enumerate() {
            assert_eq!(got.docnos.get(k), &d[..], "layout {layout}");
            assert_eq!(got.grades[k], *g as f64);
            assert_eq!(got.lines[k], *line as u64 + 1);
            let query = got.query(q).unwrap();
            assert!(got.offsets[query] <= k && k < got.offsets[query + 1]);
            assert_eq!(got.grade(query, d), Some(*g as f64));
        }
    }
}

#[test]
fn qrels_whitespace_comments_crlf() {
    let plain = view_qrels(&qrels_of(QRELS, false).unwrap());
    for text in [
        &b"# header\n1\t0\ta\t2\r\n1  0 b 0\n#\n1 0 c 1\x0b\n2 0 a 1"[..],
        b"1 0 a 2\r\n1 0 b 0\r\n1 0 c 1\r\n2 0 a 1\r\n",
        b"  1 0 a 2 \n\t1 0 b 0\n1 0 c \x0c1\n2 0 a 1\n#1 0 z 1\n",
    ] {
        let mut got = view_qrels(&qrels_of(text, false).unwrap());
        got.lines = plain.lines.clone();
        assert_eq!(got, plain, "{:?}", String::from_utf8_lossy(text));
    }
}

#[test]
fn qrels_malformed_lines() {
    let cases: [(&[u8], &str); 6] = [
        (b"1 0 a 2\n1 0 b\n", "qrels.txt:2: malformed qrels line: 3 fields, expected exactly 4 (qid iter docno grade)"),
        (b"1 0 a 2\n1 0 b 1 extra\n", "qrels.txt:2: malformed qrels line: 5 fields, expected exactly 4 (qid iter docno grade)"),
        (b"1 0 a 2\n\n1 0 b 1\n", "qrels.txt:2: malformed qrels line: blank line, expected exactly 4 (qid iter docno grade)"),
        (b"1 0 a 2\n \t\r\n", "qrels.txt:2: malformed qrels line: blank line, expected exactly 4 (qid iter docno grade)"),
        (b"x", "qrels.txt:1: malformed qrels line: 1 field, expected exactly 4 (qid iter docno grade)"),
        (b"1 0 a 2\n1 0 b", "qrels.txt:2: malformed qrels line: 3 fields, expected exactly 4 (qid iter docno grade)"),
    ];
    for (text, want) in cases {
        assert_eq!(qrels_error(text, false), want);
    }
    // the empty piece after a final newline is no line
    assert!(qrels_of(b"1 0 a 2\n", false).is_ok());
}

#[test]
fn qrels_grades() {
    assert_eq!(one_grade("3", false), Ok(3.0));
    assert_eq!(one_grade("-1", false), Ok(-1.0));
    assert_eq!(one_grade("+2", false), Ok(2.0));
    assert_eq!(one_grade("007", false), Ok(7.0));
    assert!(one_grade("-0", false).unwrap().is_sign_positive());
    assert_eq!(one_grade("999999999999999", false), Ok(999999999999999.0));
    assert_eq!(one_grade("2000000000", false), Ok(2e9));
    assert_eq!(one_grade("9007199254740992", false), Ok(9007199254740992.0));
    assert_eq!(
        one_grade("-9007199254740992", false),
        Ok(-9007199254740992.0)
    );
    for token in [
        "9007199254740993",
        "-9007199254740993",
        "99999999999999999999",
    ] {
        assert_eq!(
            one_grade(token, false),
            Err(format!("qrels.txt:1: grade {token} is out of range"))
        );
    }
    for token in ["2.5", "1.", ".5", "1e3", "-0.5", "1e-999"] {
        assert_eq!(
            one_grade(token, false),
            Err(format!(
                "qrels.txt:1: grade '{token}' is not an integer (use --fractional-grades, or \
                 fractional_grades=True, for fractional grades)"
            ))
        );
    }
    for token in [
        "yes", "-", "+", "1e999", "inf", "nan", "1_0", "0x10", "1e", "\u{663}",
    ] {
        assert_eq!(
            one_grade(token, false),
            Err(format!("qrels.txt:1: grade '{token}' is not an integer"))
        );
    }
    assert_eq!(
        qrels_error(b"1 0 a \xff\n", false),
        "qrels.txt:1: grade '\\xff' is not an integer"
    );
}

#[test]
fn qrels_fractional_grades() {
    assert_eq!(one_grade("2.5", true), Ok(2.5));
    assert_eq!(one_grade("1e3", true), Ok(1000.0));
    assert_eq!(one_grade("-.5", true), Ok(-0.5));
    assert_eq!(one_grade("3", true), Ok(3.0));
    assert_eq!(one_grade("99999999999999999999", true), Ok(1e20));
    for token in ["yes", "inf", "nan", "0x1p3", "1e", "1_0"] {
        assert_eq!(
            one_grade(token, true),
            Err(format!("qrels.txt:1: grade '{token}' is not a number"))
        );
    }
    assert_eq!(
        one_grade("1e999", true),
        Err("qrels.txt:1: grade '1e999' is out of range".into())
    );
    assert!(qrels_of(b"1 0 a 2.5\n", true).unwrap().fractional);
}

#[test]
fn qrels_duplicates() {
    assert_eq!(
        qrels_error(b"1 0 a 2\n1 0 a 1\n", false),
        "qrels.txt:2: document 'a' judged twice for query '1' (first at line 1)"
    );
    // the earliest repeating line is reported, whatever the query order
    assert_eq!(
        qrels_error(
            b"2 0 b 1\n1 0 a 2\n2 0 c 1\n1 0 x 1\n2 0 b 0\n1 0 a 1\n1 0 a 1\n",
            false
        ),
        "qrels.txt:5: document 'b' judged twice for query '2' (first at line 1)"
    );
    assert_eq!(
        qrels_error(b"1 0 a 2\n1 0 a 1\n1 0 a 1\n", false),
        "qrels.txt:2: document 'a' judged twice for query '1' (first at line 1)"
    );
    assert_eq!(
        qrels_error(b"q\xff 0 d\xfe 2\n# c\nq\xff 0 d\xfe 1\n", false),
        "qrels.txt:3: document 'd\\xfe' judged twice for query 'q\\xff' (first at line 1)"
    );
    // one docno under two queries is no duplicate
    assert!(qrels_of(b"1 0 a 2\n2 0 a 2\n", false).is_ok());
    // a parse error anywhere comes first
    assert_eq!(
        qrels_error(b"1 0 a 2\n1 0 a 1\n1 0 b x\n", false),
        "qrels.txt:3: grade 'x' is not an integer"
    );
}

#[test]
fn qrels_empty() {
    for text in [&b""[..], b"# nothing\n", b"#"] {
        assert_eq!(
            qrels_error(text, false),
            "qrels.txt: no judgments in the qrels file"
        );
    }
}

#[test]
fn qrels_invalid_utf8_kept() {
    let q = qrels_of(b"q\xff 0 \xff\xfe 1\nq\xc3\xa9 0 d\x80 2\n", false).unwrap();
    assert_eq!(ids(&q.qids), [&b"q\xc3\xa9"[..], b"q\xff"]);
    assert_eq!(q.grade(1, b"\xff\xfe"), Some(1.0));
    assert_eq!(q.grade(0, b"d\x80"), Some(2.0));
}

// ---------------------------------------------------------------- both files: bytes, lengths

#[test]
fn nul_bytes() {
    assert_eq!(
        run_error(b"1 Q0 a 1 1 t\n1 Q0 b\x00 1 1 t\n"),
        "run.txt:2: NUL byte in line"
    );
    assert_eq!(run_error(b"\x00"), "run.txt:1: NUL byte in line");
    assert_eq!(
        run_error(b"1 Q0 a 1 1 t\n#\x00 comment\n"),
        "run.txt:2: NUL byte in line"
    );
    assert_eq!(
        run_error(b"1 Q0 a 1 1 t\n\n \x00\n"),
        "run.txt:3: NUL byte in line"
    );
    assert_eq!(
        qrels_error(b"1 0 a 2\n1 0 b\x00 1\n", false),
        "qrels.txt:2: NUL byte in line"
    );
    // before the field count and the number of its line
    assert_eq!(
        qrels_error(b"1 0 b\x00\n", false),
        "qrels.txt:1: NUL byte in line"
    );
    assert_eq!(
        run_error(b"1 Q0 a 1 x \x00\n"),
        "run.txt:1: NUL byte in line"
    );
    // a fault on an earlier line comes first
    assert_eq!(
        run_error(b"1 Q0 a 1 x t\n\x00\n"),
        "run.txt:1: score 'x' is not a number"
    );
}

#[test]
fn endless_input_without_line_end() {
    let e = read_run(Input::new("/dev/zero", io::repeat(0)))
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "/dev/zero:1: NUL byte in line");
    let e = read_qrels(Input::new("x", io::repeat(b'x')), false)
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "x:1: line longer than 1048576 bytes");
    let e = read_run(Input::new(
        "x",
        io::Cursor::new(b"1 Q0 a 1 1 t\n".to_vec()).chain(io::repeat(b' ')),
    ))
    .err()
    .unwrap();
    assert_eq!(e.to_string(), "x:2: line longer than 1048576 bytes");
}

#[test]
fn long_lines() {
    // every line's length is checked, wherever the chunk ends
    let mut text = b"1 Q0 a 1 1 t\n".to_vec();
    text.extend_from_slice(b"1 Q0 b 1 1 t");
    text.extend(std::iter::repeat_n(b' ', MAX_LINE_BYTES - 12 + 1));
    text.extend_from_slice(b"\n1 Q0 c 1 1 t\n");
    for chunk in [CHUNK_BYTES, 1 << 16, MAX_LINE_BYTES + 100] {
        let e = read_run_with(Input::from_bytes("run.txt", text.clone()), &options(chunk))
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "run.txt:2: line longer than 1048576 bytes",
            "chunk {chunk}"
        );
    }
    // a line of exactly the limit is accepted
    let mut ok = b"1 Q0 b 1 1 t".to_vec();
    ok.extend(std::iter::repeat_n(b' ', MAX_LINE_BYTES - 12));
    ok.push(b'\n');
    assert!(read_run(Input::from_bytes("run.txt", ok.clone())).is_ok());
    ok.pop();
    assert!(read_run(Input::from_bytes("run.txt", ok)).is_ok());
    // a small limit, every chunk size
    let small = |max| ReadOptions {
        max_line_bytes: max,
        ..options(3)
    };
    let text = b"1 0 a 1\n# a longer comment line\n1 0 b 1\n";
    let e = read_qrels_with(Input::from_bytes("q", text.to_vec()), false, &small(20))
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "q:2: line longer than 20 bytes");
    assert!(read_qrels_with(Input::from_bytes("q", text.to_vec()), false, &small(23)).is_ok());
    for chunk in 1..40 {
        let o = ReadOptions {
            max_line_bytes: 22,
            ..options(chunk)
        };
        let e = read_qrels_with(Input::from_bytes("q", text.to_vec()), false, &o)
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "q:2: line longer than 22 bytes",
            "chunk {chunk}"
        );
        let e = read_qrels_with(Input::from_bytes("q", text[..31].to_vec()), false, &o)
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "q:2: line longer than 22 bytes",
            "chunk {chunk}"
        );
        // a NUL in the first max + 1 bytes of a long line, or beyond
        let nul = b"1 0 a 1\n# a longer comment lin\x00 and more\n";
        let e = read_qrels_with(Input::from_bytes("q", nul.to_vec()), false, &o)
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "q:2: NUL byte in line", "chunk {chunk}");
        let nul = b"1 0 a 1\n# a longer comment line\x00 and more\n";
        let e = read_qrels_with(Input::from_bytes("q", nul.to_vec()), false, &o)
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "q:2: line longer than 22 bytes",
            "chunk {chunk}"
        );
    }
}

#[test]
fn long_identifiers() {
    let id = |n| "x".repeat(n);
    let ok = format!("{} Q0 {} 1 1 t\n", id(1024), id(1024));
    let r = run_of(ok.as_bytes()).unwrap();
    assert_eq!(r.qids.get(0).len(), 1024);
    let want =
        |line| format!("run.txt:{line}: field of 1025 bytes: identifiers are at most 1024 bytes");
    assert_eq!(
        run_error(format!("1 Q0 a 1 1 t\n{} Q0 a 1 1 t\n", id(1025)).as_bytes()),
        want(2)
    );
    assert_eq!(
        run_error(format!("1 Q0 {} 1 1 t\n", id(1025)).as_bytes()),
        want(1)
    );
    assert_eq!(
        run_error(format!("1 Q0 a 1 {} t\n", "9".repeat(1025)).as_bytes()),
        want(1)
    );
    // iter and rank are not identifiers; the tag, printed as runid, is held to their limit
    assert!(run_of(format!("1 {} a {} 1 {}\n", id(2000), id(2000), id(1024)).as_bytes()).is_ok());
    assert_eq!(
        run_error(format!("1 Q0 a 1 1 t\n1 Q0 b 1 1 {}\n", id(5000)).as_bytes()),
        "run.txt:2: run tag of 5000 bytes: a tag is at most 1024 bytes"
    );
    let want = "qrels.txt:1: field of 1500 bytes: identifiers are at most 1024 bytes";
    assert_eq!(
        qrels_error(format!("{} 0 a 1\n", id(1500)).as_bytes(), false),
        want
    );
    assert_eq!(
        qrels_error(format!("1 0 {} 1\n", id(1500)).as_bytes(), false),
        want
    );
    assert_eq!(
        qrels_error(format!("1 0 a {}\n", "1".repeat(1500)).as_bytes(), true),
        want
    );
    // the qid is checked before the docno, the docno before the number
    assert_eq!(
        qrels_error(format!("{} 0 {} x\n", id(1100), id(1200)).as_bytes(), false),
        "qrels.txt:1: field of 1100 bytes: identifiers are at most 1024 bytes"
    );
    assert_eq!(
        qrels_error(format!("1 0 {} x\n", id(1200)).as_bytes(), false),
        "qrels.txt:1: field of 1200 bytes: identifiers are at most 1024 bytes"
    );
}

// ---------------------------------------------------------------- sources

struct Failing(usize);

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0 == 0 {
            return Err(io::Error::other("the disk is on fire"));
        }
        let n = self.0.min(buf.len());
        buf[..n].fill(b'\n');
        self.0 -= n;
        Ok(n)
    }
}

/// A reader that returns a byte at a time, interrupted now and then.
struct Trickle(Vec<u8>, usize, bool);

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.2 = !self.2;
        if self.2 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        if self.1 == self.0.len() || buf.is_empty() {
            return Ok(0);
        }
        buf[0] = self.0[self.1];
        self.1 += 1;
        Ok(1)
    }
}

#[test]
fn cannot_read() {
    let dir = std::env::temp_dir().join(format!("trecgain-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("nope");
    let missing = missing.to_str().unwrap();
    let e = Input::open(missing).err().unwrap();
    assert_eq!(
        e,
        Error::in_file("cannot read: No such file or directory", missing)
    );
    let e = read_run_path(missing, false).err().unwrap();
    assert_eq!(
        e.to_string(),
        format!("{missing}: cannot read: No such file or directory")
    );
    let e = read_qrels_path(dir.to_str().unwrap(), false).err().unwrap();
    assert_eq!(
        e.to_string(),
        format!("{}: cannot read: Is a directory", dir.display())
    );
    let e = read_run(Input::new("r", Failing(10))).err().unwrap();
    assert_eq!(e, Error::in_file("cannot read: the disk is on fire", "r"));
    let e = read_run(Input::new("r", Failing(CHUNK_BYTES + 10)))
        .err()
        .unwrap();
    assert_eq!(e, Error::in_file("cannot read: the disk is on fire", "r"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn short_and_interrupted_reads() {
    let r = read_run(Input::new("r", Trickle(RUN.to_vec(), 0, false))).unwrap();
    assert_eq!(view_run(&r), view_run(&run_of(RUN).unwrap()));
    let g = gzip(QRELS);
    let q = read_qrels(Input::new("q", Trickle(g, 0, false)), false).unwrap();
    assert_eq!(view_qrels(&q), view_qrels(&qrels_of(QRELS, false).unwrap()));
}

#[test]
fn paths_and_size_hints() {
    let dir = std::env::temp_dir().join(format!("trecgain-reader-paths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut run = Vec::new();
    let mut qrels = Vec::new();
    for i in 0..200_000u32 {
        run.extend_from_slice(
            format!(
                "q{}\tQ0\tdoc-{i}\t{}\t{}.{}\trun\n",
                i / 1000,
                i % 1000,
                i % 97,
                i % 13
            )
            .as_bytes(),
        );
        qrels.extend_from_slice(format!("q{} 0 doc-{i} {}\n", (i * 31) % 200, i % 3).as_bytes());
    }
    let run_path = dir.join("run.txt");
    let qrels_path = dir.join("qrels.gz");
    std::fs::write(&run_path, &run).unwrap();
    std::fs::write(&qrels_path, gzip(&qrels)).unwrap();
    let a = read_run_path(run_path.to_str().unwrap(), false).unwrap();
    let b = read_run(Input::from_bytes(run_path.to_str().unwrap(), run.clone())).unwrap();
    assert_eq!(view_run(&a), view_run(&b));
    assert_eq!(a.scores.len(), 200_000);
    assert!(a.scores.capacity() == a.scores.len()); // shrunk after the guess
    let q = read_qrels_path(qrels_path.to_str().unwrap(), false).unwrap();
    let p = read_qrels(Input::from_bytes("x", qrels.clone()), false).unwrap();
    assert_eq!(view_qrels(&q), view_qrels(&p));
    assert_eq!(q.source, qrels_path.to_str().unwrap());
    // a wrong size hint changes nothing but capacity
    for hint in [Some(0), Some(10), Some(1 << 40 >> 10), None] {
        let o = ReadOptions {
            size_hint: hint,
            chunk_bytes: 1 << 16,
            ..ReadOptions::default()
        };
        let c = read_run_with(
            Input::from_bytes(run_path.to_str().unwrap(), run.clone()),
            &o,
        )
        .unwrap();
        assert_eq!(view_run(&c), view_run(&a));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gzip_is_detected_by_content() {
    let plain = view_run(&run_of(RUN).unwrap());
    let packed = gzip(RUN);
    assert_eq!(view_run(&run_of(&packed).unwrap()), plain);
    // several members, as `cat a.gz b.gz` makes
    let mut two = gzip(&RUN[..20]);
    two.extend(gzip(&RUN[20..]));
    assert_eq!(view_run(&run_of(&two).unwrap()), plain);
    let q = qrels_of(&gzip(b"1 0 a 1\r\n# c\n1 0 b 2"), false).unwrap();
    assert_eq!(ids(&q.docnos), [b"a", b"b"]);
    // decompressed "1f 8b" is data, and an empty gzip file is empty
    assert_eq!(run_error(&gzip(b"")), "run.txt: no results in the run file");
    let r = run_of(&gzip(b"\x1f\x8b Q0 a 1 1 t\n")).unwrap();
    assert_eq!(ids(&r.qids), [b"\x1f\x8b"]);
    // errors inside carry their lines
    assert_eq!(
        run_error(&gzip(b"1 Q0 a 1 1 t\n1 Q0 a 1 x t\n")),
        "run.txt:2: score 'x' is not a number"
    );
    // a lone 1f byte is no gzip
    assert_eq!(
        run_error(b"\x1f"),
        "run.txt:1: malformed run line: 1 field, expected at least 6 (qid iter docno rank score tag)"
    );
}

#[test]
fn corrupt_gzip_is_a_read_error() {
    let mut big = Vec::new();
    for i in 0..20 {
        big.extend_from_slice(RUN);
        big.extend_from_slice(format!("{i} Q0 x 1 1 t\n").as_bytes());
    }
    let packed = gzip(&big);
    let check = |data: Vec<u8>| match read_run(Input::from_bytes("run.gz", data)) {
        Ok(r) => assert!(!r.scores.is_empty()),
        Err(e) => {
            assert_eq!(e.source.as_deref(), Some("run.gz"));
            assert!(!e.message.contains('\n'));
        }
    };
    for cut in 0..packed.len() {
        let e = read_run(Input::from_bytes("run.gz", packed[..cut].to_vec()));
        if cut >= 2 {
            let e = e
                .err()
                .unwrap_or_else(|| panic!("truncated at {cut}: no error"));
            assert_eq!(e.source.as_deref(), Some("run.gz"));
            assert!(
                e.message.starts_with("cannot read: ") && e.line.is_none(),
                "{cut}: {e}"
            );
        }
        check(packed[..cut].to_vec());
    }
    for pos in 0..packed.len() {
        for bit in [0, 3, 7] {
            let mut data = packed.clone();
            data[pos] ^= 1 << bit;
            check(data);
        }
    }
    // the first deflate block header says block type 3 (invalid)
    let mut data = gzip(b"1 Q0 a 1 1 tag\n");
    data[10] = 0x07;
    let e = read_run(Input::from_bytes("run.gz", data)).err().unwrap();
    assert!(e.message.starts_with("cannot read: "), "{e}");
    assert_eq!(e.source.as_deref(), Some("run.gz"));
    // Streaming: a fault in the lines read before the damage comes first when the chunk ends
    // before the damage, the read error when the damage is inside the first chunk.
    let mut data = gzip(b"1 Q0 a 1 x t\n1 Q0 b 1 1 t\n1 Q0 c 1 1 t\n");
    let n = data.len();
    data[n - 6] ^= 1; // the CRC
    let e = read_run_with(Input::from_bytes("run.gz", data.clone()), &options(4))
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "run.gz:1: score 'x' is not a number");
    let e = read_run(Input::from_bytes("run.gz", data)).err().unwrap();
    assert!(e.to_string().starts_with("run.gz: cannot read: "), "{e}");
    // a damaged checksum
    let mut data = gzip(RUN);
    let n = data.len();
    data[n - 6] ^= 1;
    assert!(read_run(Input::from_bytes("run.gz", data)).is_err());
}

// ---------------------------------------------------------------- chunk boundaries

/// A deterministic mixed file: CRLF, comments, blanks, tabs, lone CRs, no final newline.
fn mixed_run() -> Vec<u8> {
    let mut text = Vec::new();
    let mut x: u32 = 12345;
    for i in 0..300 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let sep = [&b" "[..], b"\t", b"  ", b" \t"][(x >> 8) as usize % 4];
        let end = [&b"\n"[..], b"\r\n", b"\n", b" \n", b"\r\r\n"][(x >> 12) as usize % 5];
        match (x >> 16) % 9 {
            0 => text.extend_from_slice(b"# comment line\n"),
            1 => text.extend_from_slice(b"\n"),
            _ => {}
        }
        for (k, field) in [
            format!("q{}", i / 17),
            "Q0".into(),
            format!("doc{}\u{e9}", x % 1000),
            format!("{i}"),
            format!("{}.{}", (x >> 3) % 100, x % 1000),
            "tag".into(),
        ]
        .iter()
        .enumerate()
        {
            if k > 0 {
                text.extend_from_slice(sep);
            }
            text.extend_from_slice(field.as_bytes());
        }
        if (x >> 20).is_multiple_of(7) {
            text.extend_from_slice(b" extra \xff");
        }
        text.extend_from_slice(end);
    }
    text.extend_from_slice(b"q99 Q0 last 1 1 final");
    text
}

#[test]
fn every_chunk_size_gives_the_same_run() {
    let text = mixed_run();
    let want = view_run(&read_run(Input::from_bytes("run.txt", text.clone())).unwrap());
    assert_eq!(want.tag, b"final");
    assert_eq!(want.warnings.len(), 1);
    assert!(want.query.len() > 250);
    for chunk in 1..=130 {
        let got =
            read_run_with(Input::from_bytes("run.txt", text.clone()), &options(chunk)).unwrap();
        assert_eq!(view_run(&got), want, "chunk {chunk}");
    }
    let got = read_run_with(Input::from_bytes("run.txt", gzip(&text)), &options(7)).unwrap();
    assert_eq!(view_run(&got), want);
}

#[test]
fn errors_keep_their_lines_across_chunks() {
    let mut text = mixed_run();
    let lines = text.iter().filter(|&&c| c == b'\n').count();
    text.extend_from_slice(b"\n1 Q0 x 1 nope t\n");
    for chunk in [1, 5, 64, 1000, CHUNK_BYTES] {
        let e = read_run_with(Input::from_bytes("run.txt", text.clone()), &options(chunk))
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            format!("run.txt:{}: score 'nope' is not a number", lines + 2)
        );
    }
}

// ---------------------------------------------------------------- in memory

#[test]
fn qrels_from_judgments() {
    let items = vec![
        (b"2".to_vec(), b"a".to_vec(), 1.0),
        (b"1".to_vec(), b"b".to_vec(), 2.0),
        (b"1".to_vec(), b"a".to_vec(), -0.0),
    ];
    let q = Qrels::from_judgments("qrels", items, false).unwrap();
    assert_eq!(ids(&q.qids), [b"1", b"2"]);
    assert_eq!(ids(&q.docnos), [b"b", b"a", b"a"]);
    assert_eq!(q.lines, [0, 0, 0]);
    assert_eq!(q.grade(0, b"a"), Some(0.0));
    assert!(q.grades[1].is_sign_positive());
    assert_eq!(q.source, "qrels");
    let borrowed: [(&[u8], &[u8], f64); 1] = [(b"q", b"d", 2.5)];
    let q = Qrels::from_judgments("qrels", borrowed, true).unwrap();
    assert_eq!(q.grade(0, b"d"), Some(2.5));
    assert!(q.fractional);

    let err = |items: Vec<(&str, &str, f64)>, fractional| {
        let items = items
            .into_iter()
            .map(|(q, d, g)| (q.as_bytes(), d.as_bytes(), g));
        Qrels::from_judgments("qrels", items, fractional)
            .err()
            .unwrap()
            .to_string()
    };
    assert_eq!(err(vec![], false), "qrels: no judgments in the qrels");
    assert_eq!(
        err(vec![("1", "a", 2.5)], false),
        "qrels: grade 2.5 of document 'a' is not an integer (fractional_grades=True accepts it)"
    );
    assert_eq!(
        err(vec![("1", "a", f64::NAN)], true),
        "qrels: grade nan of document 'a' is not an integer"
    );
    assert_eq!(
        err(vec![("1", "a", f64::INFINITY)], false),
        "qrels: grade inf of document 'a' is not an integer"
    );
    assert_eq!(
        err(vec![("1", "a", 1e16)], false),
        "qrels: grade 1e+16 of document 'a' is out of range"
    );
    assert_eq!(
        err(vec![("1", "a", 1.0), ("1", "a", 2.0)], false),
        "qrels: document 'a' judged twice for query '1'"
    );
    assert_eq!(
        err(vec![("1", "a b", 1.0)], false),
        "identifier 'a b' is empty or contains whitespace"
    );
    assert_eq!(
        err(vec![("", "a", 1.0)], false),
        "identifier '' is empty or contains whitespace"
    );
    assert_eq!(
        err(vec![("1", "a\0", 1.0)], false),
        "identifier 'a\\x00' is empty or contains whitespace"
    );
}

#[test]
fn run_from_lines() {
    let items: Vec<(&[u8], &[u8], f64)> =
        vec![(b"q2", b"a", 1.0), (b"q1", b"b", 2.0), (b"q2", b"c", 0.5)];
    let r = Run::from_lines("run", items, [b"q3".to_vec()]).unwrap();
    assert_eq!(ids(&r.qids), [b"q2", b"q1"]);
    assert_eq!(r.query, [0, 1, 0]);
    assert_eq!(r.lines, [1, 2, 3]);
    assert_eq!(r.tag, b"unknown");
    assert_eq!(r.empty_qids, [b"q3".to_vec()]);
    let none: [(&[u8], &[u8], f64); 0] = [];
    let r = Run::from_lines("run", none, [b"q"]).unwrap();
    assert!(r.scores.is_empty() && r.empty_qids.len() == 1);
    let e = Run::from_lines("run", none, Vec::<Vec<u8>>::new())
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "run: no results in the run");
    let e = Run::from_lines("run", [(b"q", b"d", f64::NAN)], Vec::<Vec<u8>>::new())
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "run: a score is not a finite number");
    let e = Run::from_lines("run", [(b"q", b"d\t", 1.0)], Vec::<Vec<u8>>::new())
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "identifier 'd\\t' is empty or contains whitespace"
    );
    let e = Run::from_lines("run", none, [b"x y"]).err().unwrap();
    assert_eq!(
        e.to_string(),
        "identifier 'x y' is empty or contains whitespace"
    );
}

#[test]
fn qrels_from_rows_name_their_rows() {
    let err = |items: Vec<(&str, &str, f64)>, fractional| {
        let items = items
            .into_iter()
            .map(|(q, d, g)| (q.as_bytes(), d.as_bytes(), g));
        Qrels::from_rows("qrels DataFrame", items, fractional)
            .err()
            .unwrap()
            .to_string()
    };
    let items = [(b"2", b"a", 1.0), (b"1", b"b", 2.0)];
    let q = Qrels::from_rows("qrels DataFrame", items, false).unwrap();
    assert_eq!(q.lines, [2, 1]); // grouped in byte order of qid, rows kept
    assert_eq!(
        err(
            vec![("1", "a", 1.0), ("2", "b", 0.0), ("1", "a", 2.0)],
            false
        ),
        "qrels DataFrame:3: document 'a' judged twice for query '1' (first at row 1)"
    );
    assert_eq!(
        err(vec![("1", "a", 1.0), ("1", "b", 2.5)], false),
        "qrels DataFrame:2: grade 2.5 of document 'b' is not an integer (fractional_grades=True accepts it)"
    );
    assert_eq!(
        err(vec![("1", "a", 1.0), ("1", "b c", 1.0)], false),
        "qrels DataFrame:2: identifier 'b c' is empty or contains whitespace"
    );
    assert_eq!(
        err(vec![], false),
        "qrels DataFrame: no judgments in the qrels"
    );
}

#[test]
fn run_from_rows_name_their_rows() {
    let items: Vec<(&[u8], &[u8], f64)> = vec![(b"q2", b"a", 1.0), (b"q1", b"b", 2.0)];
    let r = Run::from_rows("run list", items).unwrap();
    assert_eq!((r.lines.as_slice(), r.unit), ([1, 2].as_slice(), "row"));
    assert_eq!(r.tag, b"unknown");
    let e = Run::from_rows("run list", [(b"q", b"d", 1.0), (b"q", b"e", f64::NAN)])
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "run list:2: a score is not a finite number");
    let e = Run::from_rows("run list", [(b"q", b"", 1.0)])
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "run list:1: identifier '' is empty or contains whitespace"
    );
    let none: [(&[u8], &[u8], f64); 0] = [];
    let e = Run::from_rows("run list", none).err().unwrap();
    assert_eq!(e.to_string(), "run list: no results in the run");
    let r = Run::from_lines("run", [(b"q", b"d", 1.0)], Vec::<Vec<u8>>::new()).unwrap();
    assert_eq!(r.unit, "line");
}

// ---------------------------------------------------------------- speed (not run by default)

/// `cargo test --release -p trecgain-core read_speed -- --ignored --nocapture`
#[test]
#[ignore]
fn read_speed() {
    let lines = 1_000_000usize;
    let mut run = Vec::with_capacity(lines * 64);
    let mut bm25 = Vec::with_capacity(lines * 64);
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for i in 0..lines {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let q = 300 + i / 1000;
        let score = f64::from_bits((x >> 12) | 0x402e_0000_0000_0000) as f32 as f64; // 15..16, 17 digits
        run.extend_from_slice(
            format!(
                "{q}\tQ0\tclueweb09-en{:04}-{:02}-{:05}\t{}\t{score:?}\trunname\n",
                x % 10000,
                (x >> 20) % 100,
                (x >> 30) % 100000,
                i % 1000 + 1
            )
            .as_bytes(),
        );
        bm25.extend_from_slice(
            format!(
                "{q} Q0 {:07} {} {:.4} bm25\n",
                (x >> 8) % 8_000_000,
                i % 1000 + 1,
                (x % 300_000) as f64 / 10_000.0
            )
            .as_bytes(),
        );
    }
    eprintln!("{}", String::from_utf8_lossy(&run[..200]));
    for (what, data) in [("17-digit tab", &run), ("bm25 space", &bm25)] {
        let dir = std::env::temp_dir().join(format!("trecgain-speed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("run.txt");
        std::fs::write(&path, data).unwrap();
        let mut best = f64::MAX;
        for _ in 0..7 {
            let t = std::time::Instant::now();
            let r = read_run_path(path.to_str().unwrap(), false).unwrap();
            let ns = t.elapsed().as_nanos() as f64 / lines as f64;
            assert_eq!(r.scores.len(), lines);
            best = best.min(ns);
        }
        eprintln!(
            "{what}: {best:.1} ns/line ({} bytes/line)",
            data.len() / lines
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_qid() {
    let plain = qrels_of(b"1 0 a 1\n1 0 b 2\n", false).unwrap();
    let marked = qrels_of(b"\xef\xbb\xbf1 0 a 1\n1 0 b 2\n", false).unwrap();
    assert_eq!(view_qrels(&plain), view_qrels(&marked));
    let run = run_of(b"\xef\xbb\xbf1 Q0 a 1 2 t\n").unwrap();
    assert_eq!(run.qids.get(0), b"1");
    // only at the very start of the file: later on it is part of the qid, as any other bytes
    let later = run_of(b"1 Q0 a 1 2 t\n\xef\xbb\xbf1 Q0 b 1 1 t\n").unwrap();
    assert_eq!(later.qids.get(1), b"\xef\xbb\xbf1");
    // and after gzip's decompression too
    let packed = run_of(&gzip(b"\xef\xbb\xbf7 Q0 a 1 2 t\n")).unwrap();
    assert_eq!(packed.qids.get(0), b"7");
}

#[test]
fn compressed_files_other_than_gzip_are_named() {
    let cases: [(&[u8], &str); 4] = [
        (b"BZh91AY&SY\x01\x02", "bzip2"),
        (b"\xfd7zXZ\x00\x00\x04", "xz"),
        (b"\x28\xb5\x2f\xfd\x24\x00", "zstd"),
        (b"PK\x03\x04\x14\x00", "zip"),
    ];
    for (bytes, format) in cases {
        let e = run_error(bytes);
        assert!(
            e.starts_with(&format!("run.txt: the file is {format}-compressed")),
            "{e}"
        );
    }
    // a text line that merely starts like bzip2's magic is text
    assert!(qrels_of(b"BZh1 0 a 1\n", false).is_ok());
}

/// A run read in parts (byte ranges starting at lines, each told its first line's number, as
/// a cluster's workers read it) holds the lines the whole file holds, numbered as there, and
/// a fault is reported at the file's line; only the part at the file's start sniffs gzip and
/// byte-order marks, and a part of comments alone is no error.
#[test]
fn run_read_in_parts_numbers_the_files_lines() {
    let file: &[u8] = b"\xef\xbb\xbf1 Q0 a 1 3 t\n# c\n\n1 Q0 b 2 2 t\r\n2 Q0 a 1 1\rt\n\x1f\x8b Q0 z 1 1 u\n3 Q0 c 1 1 v";
    let whole = read_run(Input::from_bytes("run.txt", file.to_vec())).unwrap();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', file).map(|i| i + 1))
        .filter(|&i| i < file.len())
        .collect();
    // every way of cutting the file at line starts into two or three parts
    for (i, &a) in starts.iter().enumerate() {
        for &b in &starts[i..] {
            let cuts: Vec<usize> = [0, a, b, file.len()].into_iter().collect();
            let (mut lines, mut docnos, mut tag, mut warnings) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for w in cuts.windows(2).filter(|w| w[0] < w[1]) {
                let options = ReadOptions {
                    first_line: 1 + memchr::memchr_iter(b'\n', &file[..w[0]]).count() as u64,
                    file_start: w[0] == 0,
                    allow_empty: true,
                    ..options(3)
                };
                let part = read_run_with(
                    Input::from_bytes("run.txt", file[w[0]..w[1]].to_vec()),
                    &options,
                )
                .unwrap();
                lines.extend(part.lines.iter().copied());
                docnos.extend(part.docnos.iter().map(<[u8]>::to_vec));
                if !part.scores.is_empty() {
                    tag = part.tag.clone();
                }
                if warnings.is_empty() {
                    warnings = part.warnings.clone();
                }
            }
            assert_eq!(lines, whole.lines, "cut at {a}, {b}");
            assert_eq!(docnos, ids(&whole.docnos), "cut at {a}, {b}");
            assert_eq!((&tag, &warnings), (&whole.tag, &whole.warnings));
        }
    }
    assert_eq!(whole.lines, [1, 4, 5, 6, 7]);
    // a fault in a later part names the file's line
    let bad = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 high t\n";
    let options = ReadOptions {
        first_line: 2,
        file_start: false,
        allow_empty: true,
        ..ReadOptions::default()
    };
    let e = read_run_with(Input::from_bytes("run.txt", bad[13..].to_vec()), &options);
    assert_eq!(e.err().unwrap().to_string(), run_error(bad));
    assert_eq!(run_error(bad), "run.txt:3: score 'high' is not a number");
    let empty = read_run_with(Input::from_bytes("run.txt", b"# c\n".to_vec()), &options).unwrap();
    assert!(empty.scores.is_empty());
}

/// `--ties rank` reads the rank column as whole numbers exact in a double: a rank past 2^53 or
/// with a fraction is refused, not rounded into a tie with its neighbour.
#[test]
fn ranks_are_exact_whole_numbers() {
    let read = |text: &[u8]| {
        read_run_with(
            Input::from_bytes("run.txt", text.to_vec()),
            &ReadOptions {
                ranks: true,
                ..ReadOptions::default()
            },
        )
    };
    let Ok(run) =
        read(b"q Q0 a 9007199254740992 1 t\nq Q0 b 9007199254740991 1 t\nq Q0 c -3 1 t\n")
    else {
        panic!("whole ranks refused");
    };
    assert_eq!(run.ranks, [9007199254740992.0, 9007199254740991.0, -3.0]);
    for (rank, problem) in [
        ("9007199254740993", "is out of range"),
        ("1.5", "is not a whole number"),
        ("1e3", "is not a whole number"),
        ("first", "is not a number"),
    ] {
        let text = format!("q Q0 a 1 1 t\nq Q0 b {rank} 1 t\n");
        let message = match read(text.as_bytes()) {
            Ok(_) => panic!("rank {rank} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(
            message.starts_with(&format!("run.txt:2: rank '{rank}' {problem}")),
            "{message}"
        );
    }
}

#[test]
fn results_pushed_checked_are_results_pushed() {
    let rows: [(&[u8], bool, &[u8], f64); 5] = [
        (b"q1", false, b"d1", 1.0),
        (b"q1", true, b"d2", 2.0),
        (b"q2", false, b"d1", 3.0),
        (b"q1", false, b"d3", 4.0),
        (b"q1", true, b"d4", 5.0),
    ];
    let (mut checked, mut plain) = (
        Results::new("r", Some("row")),
        Results::new("r", Some("row")),
    );
    for &(q, same, d, s) in &rows {
        checked.push_checked(q, same, d, s).unwrap();
        plain.push(q, d, s).unwrap();
    }
    let (checked, plain) = (checked.finish(), plain.finish());
    assert_eq!(view_run(&checked), view_run(&plain));
    assert_eq!(ids(&checked.qids), vec![&b"q1"[..], b"q2"]);
    assert_eq!(checked.query, vec![0, 0, 1, 0, 0]);
    assert_eq!(checked.lines, vec![1, 2, 3, 4, 5]);
    let err = Results::new("r", Some("row"))
        .push_checked(b"q1", false, b"d1", f64::NAN)
        .unwrap_err();
    assert_eq!(err.to_string(), "r:1: a score is not a finite number");
}
