//! Kernel tests. Every expectation comes from the design notes, the README, a recorded
//! trec_eval transcript of the conformance corpus, or a computation by hand written out
//! as a formula here, never from a kernel's own output.

use super::gains::format_g;
use super::{kernel, Notes, Query, KERNELS};
use crate::arena::Arena;
use crate::error::Result;
use crate::options::{Base, Discount, GainPair, GainSpec, Options, Request, Scheme};

/// The design notes' worked example: grades 3, 2, 3, 0, 1, 2 in rank order, and these six
/// the only judged documents.
const WORKED: [f64; 6] = [3.0, 2.0, 3.0, 0.0, 1.0, 2.0];
const WORKED_JUDGED: [f64; 6] = [3.0, 3.0, 2.0, 2.0, 1.0, 0.0];

fn request(name: &str, cutoffs: &[usize], gains: Option<GainSpec>) -> Request {
    Request {
        gains,
        ..crate::testing::request(name, cutoffs, &[])
    }
}

fn eval_notes(
    name: &str,
    ranked: &[f64],
    judged: &[f64],
    req: &Request,
    options: &Options,
    notes: &mut Notes,
) -> Result<Vec<f64>> {
    let record = kernel(name).expect("a known kernel");
    let mut out = vec![f64::NAN; record.lines(req)];
    (record.compute)(
        &Query {
            ranked,
            judged,
            stand_in: false,
            tally: None,
            ties: None,
            groups: &[],
            prefs: None,
            subtopics: None,
            rankings: None,
        },
        req,
        options,
        notes,
        &mut out,
    )?;
    Ok(out)
}

fn eval_with(
    name: &str,
    ranked: &[f64],
    judged: &[f64],
    cutoffs: &[usize],
    options: &Options,
) -> Vec<f64> {
    eval_notes(
        name,
        ranked,
        judged,
        &request(name, cutoffs, None),
        options,
        &mut Notes::default(),
    )
    .unwrap()
}

fn eval(name: &str, ranked: &[f64], judged: &[f64], cutoffs: &[usize]) -> Vec<f64> {
    eval_with(name, ranked, judged, cutoffs, &Options::default())
}

fn one(name: &str, ranked: &[f64], judged: &[f64]) -> f64 {
    eval(name, ranked, judged, &[])[0]
}

/// As trec_eval prints a value (`%6.4f`, without the padding).
fn f4(x: f64) -> String {
    format!("{x:.4}")
}

fn f3(values: &[f64]) -> Vec<String> {
    values.iter().map(|x| format!("{x:.3}")).collect()
}

fn gains(text: &str, pairs: &[(i64, f64)]) -> GainSpec {
    GainSpec {
        text: text.into(),
        pairs: pairs
            .iter()
            .map(|&(l, g)| GainPair {
                level: Some(l),
                gain: g,
            })
            .collect(),
        scheme: Scheme::Linear,
        exact_ideal: false,
    }
}

fn scheme(s: Scheme) -> GainSpec {
    GainSpec {
        text: format!("{s:?}").to_lowercase(),
        pairs: Vec::new(),
        scheme: s,
        exact_ideal: false,
    }
}

fn global(spec: GainSpec) -> Options {
    Options {
        global_gains: Some(spec),
        ..Options::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

/// DCG by the textbook formula, for hand computations.
fn textbook_dcg(gains: &[f64]) -> f64 {
    gains
        .iter()
        .enumerate()
        .map(|(i, g)| g / ((i + 2) as f64).log2())
        .sum()
}

#[test]
fn every_kernel_is_listed_once() {
    let mut names: Vec<_> = KERNELS.iter().map(|k| k.name).collect();
    assert_eq!(
        names[..5],
        ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret"]
    );
    names.sort_unstable();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "a kernel is listed twice");
    for name in [
        "yaap",
        "map_avgjg",
        "P_avgjg",
        "Rprec_mult_avgjg",
        "prefs_avgjg_Rnonrel_ret",
    ] {
        assert!(kernel(name).is_some(), "{name}");
    }
    assert_eq!(
        kernel("ndcg_cut")
            .unwrap()
            .lines(&request("ndcg_cut", &[5, 10], None)),
        2
    );
    assert_eq!(
        kernel("ndcg").unwrap().lines(&request("ndcg", &[], None)),
        1
    );
}

// ---------------------------------------------------------------- the worked example

#[test]
fn worked_example_linear() {
    // README "Gain schemes" table, log:2 row; design notes: DCG@6 6.861, IDCG@6 7.141
    assert_eq!(f4(one("dcg", &WORKED, &WORKED_JUDGED)), "6.8611");
    assert_eq!(f4(one("ideal_dcg", &WORKED, &WORKED_JUDGED)), "7.1410");
    assert_eq!(f4(one("ndcg", &WORKED, &WORKED_JUDGED)), "0.9608");
    // design notes, "nDCG at each cutoff", linear column
    let cut = eval("ndcg_cut", &WORKED, &WORKED_JUDGED, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(
        f3(&cut),
        ["1.000", "0.871", "0.978", "0.853", "0.861", "0.961"]
    );
    assert_eq!(f4(cut[5]), "0.9608");
    // a cutoff past the ranking keeps the whole ranking's value
    assert_eq!(
        eval("ndcg_cut", &WORKED, &WORKED_JUDGED, &[6, 1000]),
        [cut[5], cut[5]]
    );
}

#[test]
fn worked_example_exponential() {
    // README: ndcg_p 0.9488; --global-gains exp: ndcg 0.9488, ndcg_cut_3 0.9595, ndcg_cut_6 0.9488
    assert_eq!(f4(one("ndcg_p", &WORKED, &WORKED_JUDGED)), "0.9488");
    let exp = global(scheme(Scheme::Exp));
    assert_eq!(
        f4(eval_with("ndcg", &WORKED, &WORKED_JUDGED, &[], &exp)[0]),
        "0.9488"
    );
    let cut = eval_with(
        "ndcg_cut",
        &WORKED,
        &WORKED_JUDGED,
        &[1, 2, 3, 4, 5, 6],
        &exp,
    );
    assert_eq!(f4(cut[2]), "0.9595");
    assert_eq!(f4(cut[5]), "0.9488");
    // design notes, "nDCG at each cutoff", exponential column; DCG@6 13.848, IDCG@6 14.595
    assert_eq!(
        f3(&cut),
        ["1.000", "0.779", "0.959", "0.872", "0.876", "0.949"]
    );
    assert_eq!(
        format!(
            "{:.3}",
            eval_with("dcg", &WORKED, &WORKED_JUDGED, &[], &exp)[0]
        ),
        "13.848"
    );
    assert_eq!(
        format!(
            "{:.3}",
            eval_with("ideal_dcg", &WORKED, &WORKED_JUDGED, &[], &exp)[0]
        ),
        "14.595"
    );
    // README: --global-gains 1=1,2=3,3=7 -m ndcg_cut.6 gives 0.9488 too
    let table = global(gains("1=1,2=3,3=7", &[(1, 1.0), (2, 3.0), (3, 7.0)]));
    assert_eq!(
        f4(eval_with("ndcg_cut", &WORKED, &WORKED_JUDGED, &[6], &table)[0]),
        "0.9488"
    );
    // ndcg_p ignores the global gains
    assert_eq!(
        f4(eval_with("ndcg_p", &WORKED, &WORKED_JUDGED, &[], &table)[0]),
        "0.9488"
    );
}

#[test]
fn worked_example_binary_and_cumulative_gain() {
    // README: --global-gains binary -l 2 -m ndcg_cut.6 gives 0.9709
    let binary = Options {
        relevance_level: 2.0,
        ..global(scheme(Scheme::Binary))
    };
    assert_eq!(
        f4(eval_with("ndcg_cut", &WORKED, &WORKED_JUDGED, &[6], &binary)[0]),
        "0.9709"
    );
    // README: cg_cut_3 8.0000, cg_cut_6 11.0000
    assert_eq!(
        eval("cg_cut", &WORKED, &WORKED_JUDGED, &[3, 6]),
        [8.0, 11.0]
    );
    // design notes: CG@3 of 3, 0, 0 and of 0, 0, 3 are both 3; past the ranking, the total
    assert_eq!(
        eval("cg_cut", &[3.0, 0.0, 0.0], &[3.0], &[3, 10]),
        [3.0, 3.0]
    );
    assert_eq!(eval("cg_cut", &[0.0, 0.0, 3.0], &[3.0], &[3]), [3.0]);
    assert_eq!(eval("cg_cut", &[], &[3.0], &[3]), [0.0]);
}

#[test]
fn discounts() {
    // README "Gain schemes" table: dcg, ideal_dcg, ndcg_cut_6 per --discount
    let rows = [
        (Discount::Log(Base::E), "9.8985", "10.3023", "0.9608"),
        (Discount::Log(Base::Ten), "22.7922", "23.7219", "0.9608"),
        (Discount::Jk(Base::Two), "8.0972", "8.6925", "0.9315"),
        (Discount::Jk(Base::Ten), "11.0000", "11.0000", "1.0000"),
    ];
    for (discount, dcg, ideal, cut6) in rows {
        let o = Options {
            discount,
            ..Options::default()
        };
        assert_eq!(
            f4(eval_with("dcg", &WORKED, &WORKED_JUDGED, &[], &o)[0]),
            dcg,
            "{discount:?}"
        );
        assert_eq!(
            f4(eval_with("ideal_dcg", &WORKED, &WORKED_JUDGED, &[], &o)[0]),
            ideal,
            "{discount:?}"
        );
        assert_eq!(
            f4(eval_with("ndcg_cut", &WORKED, &WORKED_JUDGED, &[6], &o)[0]),
            cut6,
            "{discount:?}"
        );
    }
    // design notes: nDCG@6 exponential 0.949 (log bases), 0.898 (J&K b = 2), 1.000 (b = 10)
    for (discount, expected) in [
        (Discount::Log(Base::E), "0.949"),
        (Discount::Log(Base::Other(3.0)), "0.949"),
        (Discount::Jk(Base::Two), "0.898"),
        (Discount::Jk(Base::Ten), "1.000"),
    ] {
        let o = Options {
            discount,
            ..Options::default()
        };
        assert_eq!(
            format!(
                "{:.3}",
                eval_with("ndcg_p", &WORKED, &WORKED_JUDGED, &[], &o)[0]
            ),
            expected
        );
    }
    // G and binG keep their own log2
    let jk = Options {
        discount: Discount::Jk(Base::Ten),
        ..Options::default()
    };
    for name in ["G", "binG"] {
        assert_eq!(
            eval_with(name, &WORKED, &WORKED_JUDGED, &[], &jk),
            eval(name, &WORKED, &WORKED_JUDGED, &[])
        );
    }
}

#[test]
fn gain_formula_reversals() {
    // design notes: X and Y over the worked example's judged documents
    let x = [3.0, 0.0, 0.0, 2.0, 2.0, 1.0];
    let y = [2.0, 2.0, 1.0, 3.0, 0.0, 0.0];
    let exp = global(scheme(Scheme::Exp));
    assert_eq!(
        f3(&eval("ndcg_cut", &x, &WORKED_JUDGED, &[3, 6])),
        ["0.509", "0.699"]
    );
    assert_eq!(
        f3(&eval("ndcg_cut", &y, &WORKED_JUDGED, &[3, 6])),
        ["0.638", "0.708"]
    );
    assert_eq!(
        f3(&eval_with("ndcg_cut", &x, &WORKED_JUDGED, &[3, 6], &exp)),
        ["0.542", "0.672"]
    );
    assert_eq!(
        f3(&eval_with("ndcg_cut", &y, &WORKED_JUDGED, &[3, 6], &exp)),
        ["0.418", "0.576"]
    );
}

#[test]
fn graded_versus_binary() {
    // design notes: one highly relevant document, three marginal, two nonrelevant
    let judged = [3.0, 1.0, 1.0, 1.0, 0.0, 0.0];
    let u = [1.0, 1.0, 1.0, 3.0, 0.0, 0.0];
    let v = [3.0, 0.0, 1.0, 1.0, 1.0, 0.0];
    assert_eq!(
        f3(&[one("ndcg", &u, &judged), one("ndcg_p", &u, &judged)]),
        ["0.750", "0.601"]
    );
    assert_eq!(
        f3(&[one("ndcg", &v, &judged), one("ndcg_p", &v, &judged)]),
        ["0.946", "0.971"]
    );
}

#[test]
fn ranking_metrics_example() {
    // ranking-metrics.txt: grades 3, 2, 0, 1, 2, exponential gain: DCG@5 10.484, IDCG 10.823, 0.969
    let ranked = [3.0, 2.0, 0.0, 1.0, 2.0];
    let judged = [3.0, 2.0, 2.0, 1.0, 0.0];
    let exp = global(scheme(Scheme::Exp));
    assert_eq!(
        format!("{:.3}", eval_with("dcg", &ranked, &judged, &[], &exp)[0]),
        "10.484"
    );
    assert_eq!(
        format!(
            "{:.3}",
            eval_with("ideal_dcg", &ranked, &judged, &[], &exp)[0]
        ),
        "10.823"
    );
    assert_eq!(
        format!(
            "{:.3}",
            eval_with("ndcg_cut", &ranked, &judged, &[5], &exp)[0]
        ),
        "0.969"
    );
}

// ---------------------------------------------------------------- trec_eval's other measures

#[test]
fn rndcg_and_ndcg_rel_by_hand() {
    let dcg_at = |k: usize| textbook_dcg(&WORKED[..k]);
    let ideal_at = |k: usize| textbook_dcg(&WORKED_JUDGED[..k]);
    let ndcg_at = |k: usize| dcg_at(k) / ideal_at(k);
    // ideal gains 3, 3, 2, 2, 1: the gain changes after ranks 2 and 4, the walk ends after 5
    let rndcg = (ndcg_at(2) + ndcg_at(4) + ndcg_at(5)) / 3.0;
    assert!(close(one("Rndcg", &WORKED, &WORKED_JUDGED), rndcg));
    // every relevant document retrieved, at ranks 1, 2, 3, 5, 6
    let ndcg_rel = (ndcg_at(1) + ndcg_at(2) + ndcg_at(3) + ndcg_at(5) + ndcg_at(6)) / 5.0;
    assert!(close(one("ndcg_rel", &WORKED, &WORKED_JUDGED), ndcg_rel));

    // a ranking longer than the ideal by more than one: one more point at its end
    let ranked: [f64; 4] = [0.0, 2.0, -1.0, 1.0];
    let judged = [2.0, 1.0];
    let d = |k: usize| textbook_dcg(&ranked[..k].iter().map(|&v| v.max(0.0)).collect::<Vec<_>>());
    let i1 = 2.0;
    let i2 = 2.0 + 1.0 / 3f64.log2();
    assert!(close(
        one("Rndcg", &ranked, &judged),
        (d(1) / i1 + d(2) / i2 + d(4) / i2) / 3.0
    ));
    // grade 2 at rank 2 over ideal@2, grade 1 at rank 4 over the whole ideal
    assert!(close(
        one("ndcg_rel", &ranked, &judged),
        (d(2) / i2 + d(4) / i2) / 2.0
    ));
    // a relevant document not retrieved counts final dcg / final ideal
    let short = [0.0, 2.0];
    let dd = 2.0 / 3f64.log2();
    assert!(close(
        one("ndcg_rel", &short, &judged),
        (dd / i2 + dd / i2) / 2.0
    ));
}

#[test]
fn gain_g_by_hand() {
    // ranks: grade 0 (ideal 2: cost 2), grade 2 (past the ideal: cost 1): 2 / log2(2 + 3 - 2), over 2
    assert!(close(one("G", &[0.0, 2.0], &[2.0]), 1.0 / 3f64.log2()));
    // the worked example: sum_cost follows the ideal gains 3, 3, 2, 2, 1 then 1
    let ideal = [3.0, 3.0, 2.0, 2.0, 1.0, 1.0];
    let (mut results, mut cost, mut g) = (0.0, 0.0, 0.0);
    for (grade, c) in WORKED.iter().zip(ideal) {
        results += grade;
        cost += c;
        if *grade != 0.0 {
            g += grade / ((2.0 + cost) - results).log2();
        }
    }
    assert!(close(one("G", &WORKED, &WORKED_JUDGED), g / 11.0));
    assert_eq!(one("G", &[], &WORKED_JUDGED), 0.0);
    assert_eq!(one("G", &[0.0, -1.0], &[0.0]), 0.0);
}

#[test]
fn bin_g_by_hand() {
    // relevant at ranks 2 and 4, with 1 and 2 nonrelevant documents above: num_rel 3
    let expected = (1.0 / 3f64.log2() + 1.0 / 4f64.log2()) / 3.0;
    assert!(close(
        one("binG", &[0.0, 1.0, -1.0, 2.0], &[2.0, 1.0, 1.0, 0.0]),
        expected
    ));
    let l2 = Options {
        relevance_level: 2.0,
        ..Options::default()
    };
    // at -l 2 only the grade 2 is relevant, with three nonrelevant documents above: num_rel 1
    assert!(close(
        eval_with(
            "binG",
            &[0.0, 1.0, -1.0, 2.0],
            &[2.0, 1.0, 1.0, 0.0],
            &[],
            &l2
        )[0],
        1.0 / 5f64.log2()
    ));
    assert_eq!(one("binG", &[0.0, -1.0], &[1.0]), 0.0);
}

#[test]
fn err_by_hand() {
    // r = (2^g - 1) / 16: 15/16, 0, 3/16; ERR@3 = 15/16 + (3/16) (1/16) / 3
    let ranked = [4.0, 0.0, 2.0];
    assert_eq!(
        eval("err_cut", &ranked, &[4.0, 2.0], &[1, 2, 3, 20]),
        [0.9375, 0.9375, 0.94140625, 0.94140625]
    );
    // unjudged and negative give 0; a grade above the maximum counts as the maximum
    assert_eq!(
        eval("err_cut", &[-1.0, -2.0, 9.0], &[9.0], &[3]),
        [15.0 / 16.0 / 3.0]
    );
    let max1 = Options {
        err_max_grade: 1,
        ..Options::default()
    };
    assert_eq!(
        eval_with("err_cut", &[0.0, 1.0], &[1.0], &[2], &max1),
        [0.5 / 2.0]
    );
    assert_eq!(eval("err_cut", &[], &[1.0], &[5]), [0.0]);
    let bad = Options {
        err_max_grade: 1024,
        ..Options::default()
    };
    let err = eval_notes(
        "err_cut",
        &ranked,
        &[4.0],
        &request("err_cut", &[5], None),
        &bad,
        &mut Notes::default(),
    );
    assert_eq!(
        err.unwrap_err().message,
        "ERR's max_grade must be from 0 to 1023, not 1024"
    );
}

#[test]
fn counts() {
    let ranked = [3.0, -1.0, 0.0, -2.0, 1.0];
    let judged = [3.0, 2.0, 1.0, 0.0];
    assert_eq!(one("num_ret", &ranked, &judged), 5.0);
    assert_eq!(one("num_rel", &ranked, &judged), 3.0);
    assert_eq!(one("num_rel_ret", &ranked, &judged), 2.0);
    assert_eq!(one("runid", &ranked, &judged), 0.0);
    assert_eq!(one("num_q", &ranked, &judged), 1.0);
    let l0 = Options {
        relevance_level: 0.0,
        ..Options::default()
    };
    assert_eq!(eval_with("num_rel", &ranked, &judged, &[], &l0), [4.0]);
    assert_eq!(eval_with("num_rel_ret", &ranked, &judged, &[], &l0), [3.0]);
    assert_eq!(one("num_ret", &[], &judged), 0.0);
}

// ---------------------------------------------------------------- gain tables

#[test]
fn fractional_gain_quirk() {
    // testdata/conformance/cases/h-fractional-gain-quirk: qrels a 1, b 0, c 2, d 3, e 1; the run
    // ranks a, e, b. README and the recorded transcript: ndcg_1=0.5 0.1913 (0.1725 with
    // --exact-ideal), G_1=0.5 0.0848, ndcg_rel_1=0.5 0.1790, Rndcg_1=0.5 0.1790.
    let ranked = [1.0, 1.0, 0.0];
    let judged = [3.0, 2.0, 1.0, 1.0, 0.0];
    let spec = gains("1=0.5", &[(1, 0.5)]);
    let mut notes = Notes::default();
    let run = |name: &str, options: &Options, notes: &mut Notes| {
        eval_notes(
            name,
            &ranked,
            &judged,
            &request(name, &[], Some(spec.clone())),
            options,
            notes,
        )
        .unwrap()[0]
    };
    let plain = Options::default();
    assert_eq!(f4(run("ndcg", &plain, &mut notes)), "0.1913");
    assert_eq!(f4(run("G", &plain, &mut notes)), "0.0848");
    assert_eq!(f4(run("ndcg_rel", &plain, &mut notes)), "0.1790");
    assert_eq!(f4(run("Rndcg", &plain, &mut notes)), "0.1790");
    assert_eq!(
        notes.warnings,
        ["gains '1=0.5' differ by less than 1, which trec_eval's sort treats as equal: its ideal ranking is not \
          ideal (use --exact-ideal to sort gains by value)"]
    );
    let mut quiet = Notes::default();
    let exact = Options {
        exact_ideal: true,
        ..Options::default()
    };
    assert_eq!(f4(run("ndcg", &exact, &mut quiet)), "0.1725");
    assert!(quiet.warnings.is_empty());
    // by hand: dcg 0.5 + 0.5 / log2 3 over ideal 3 + 2 / log2 3 (the 0.5s left out) ...
    let dcg = 0.5 + 0.5 / 3f64.log2();
    assert!(close(
        run("ndcg", &plain, &mut notes),
        dcg / (3.0 + 2.0 / 3f64.log2())
    ));
    // ... or over 3, 2, 0.5, 0.5 sorted by value
    assert!(close(
        run("ndcg", &exact, &mut notes),
        dcg / textbook_dcg(&[3.0, 2.0, 0.5, 0.5])
    ));
}

#[test]
fn merge_sort_order_matters() {
    // table 1.5 (level 1), 0.9 (level 0), 2 (level 2), 3 (level 3): trec_eval's comparator sees
    // 1.5 = 0.9 (the difference truncates to 0) and both below 2, so the merge keeps 1.5
    // before 0.9, and the walk from the top takes 3, 2, 0.9, 1.5
    let judged = [3.0, 2.0, 1.0, 0.0];
    let ideal_of = |spec: GainSpec, notes: &mut Notes| {
        let req = request("ideal_dcg", &[], Some(spec));
        eval_notes(
            "ideal_dcg",
            &[1.0],
            &judged,
            &req,
            &Options::default(),
            notes,
        )
        .unwrap()[0]
    };
    let mut notes = Notes::default();
    let ideal = ideal_of(gains("1=1.5,0=0.9", &[(1, 1.5), (0, 0.9)]), &mut notes);
    assert!(close(ideal, textbook_dcg(&[3.0, 2.0, 0.9, 1.5])), "{ideal}");
    assert_eq!(
        notes.warnings,
        ["gains '1=1.5,0=0.9' differ by less than 1, which trec_eval's sort treats as equal: its ideal ranking \
          is not ideal (use --exact-ideal to sort gains by value)"]
    );
    // named the other way round the table starts in order and stays so: no warning
    let mut quiet = Notes::default();
    let ideal = ideal_of(gains("0=0.9,1=1.5", &[(0, 0.9), (1, 1.5)]), &mut quiet);
    assert!(close(ideal, textbook_dcg(&[3.0, 2.0, 1.5, 0.9])));
    assert!(quiet.warnings.is_empty());
}

#[test]
fn gain_strings() {
    let judged = [2.0, 1.0, 0.0];
    let go = |name: &str, ranked: &[f64], spec: GainSpec| {
        let req = request(name, &[], Some(spec));
        eval_notes(
            name,
            ranked,
            &judged,
            &req,
            &Options::default(),
            &mut Notes::default(),
        )
        .unwrap()[0]
    };
    // a level named twice: ranked documents get the smaller gain (first in sorted order), the
    // ideal the first one named (which holds the documents)
    let twice = gains("1=5,1=2", &[(1, 5.0), (1, 2.0)]);
    assert!(close(go("dcg", &[1.0], twice.clone()), 2.0));
    assert!(close(
        go("ideal_dcg", &[1.0], twice),
        5.0 + 2.0 / 3f64.log2()
    ));
    // a negative gain ends the ideal walk; below it nothing counts
    let negative = gains("2=-1", &[(2, -1.0)]);
    assert!(close(go("ideal_dcg", &[], negative.clone()), 1.0));
    assert!(close(
        go("dcg", &[2.0, 1.0], negative),
        -1.0 + 1.0 / 3f64.log2()
    ));
    // a gain for level -1 (documents the qrels do not list), as trec_eval's lookup gives it
    let unlisted = gains("-1=1", &[(-1, 1.0)]);
    assert!(close(
        go("dcg", &[-1.0, -2.0, 1.0], unlisted),
        1.0 + 1.0 / 4f64.log2()
    ));
    // a level above every judged grade still sets the gate; its entry holds no documents
    let above = gains("7=9", &[(7, 9.0)]);
    assert!(close(go("ideal_dcg", &[], above), 2.0 + 1.0 / 3f64.log2()));
    // every gain <= 0: no ideal ranking, ndcg 0
    let none = gains("1=0,2=0", &[(1, 0.0), (2, 0.0)]);
    assert_eq!(go("ndcg", &[1.0], none.clone()), 0.0);
    assert_eq!(go("ideal_dcg", &[1.0], none), 0.0);
    // a name that is not an integer is ignored
    let ignored = GainSpec {
        text: "a=4".into(),
        pairs: vec![GainPair {
            level: None,
            gain: 4.0,
        }],
        scheme: Scheme::Linear,
        exact_ideal: false,
    };
    assert_eq!(go("ndcg", &[2.0, 1.0], ignored), 1.0);
}

#[test]
fn own_gains_win_over_global_ones() {
    let options = global(scheme(Scheme::Exp));
    let own = gains("3=3", &[(3, 3.0)]);
    let req = request("ndcg", &[], Some(own));
    let v = eval_notes(
        "ndcg",
        &WORKED,
        &WORKED_JUDGED,
        &req,
        &options,
        &mut Notes::default(),
    )
    .unwrap();
    assert_eq!(f4(v[0]), "0.9608");
}

// ---------------------------------------------------------------- edges

#[test]
fn empty_ranking() {
    let judged = [2.0, 1.0];
    for name in ["dcg", "ndcg", "ndcg_rel", "G", "binG", "ndcg_p", "Rndcg"] {
        assert_eq!(one(name, &[], &judged), 0.0, "{name}");
    }
    assert!(close(
        one("ideal_dcg", &[], &judged),
        2.0 + 1.0 / 3f64.log2()
    ));
    assert_eq!(eval("ndcg_cut", &[], &judged, &[5, 10]), [0.0, 0.0]);
    assert_eq!(one("num_rel", &[], &judged), 2.0);
}

#[test]
fn nothing_relevant() {
    let ranked = [0.0, -1.0, 0.0];
    let judged = [0.0, 0.0];
    for name in [
        "dcg",
        "ideal_dcg",
        "ndcg",
        "ndcg_rel",
        "G",
        "binG",
        "ndcg_p",
        "Rndcg",
    ] {
        assert_eq!(one(name, &ranked, &judged), 0.0, "{name}");
    }
    assert_eq!(eval("ndcg_cut", &ranked, &judged, &[1, 5]), [0.0, 0.0]);
    assert_eq!(eval("err_cut", &ranked, &judged, &[1, 5]), [0.0, 0.0]);
    for name in ["dcg", "ideal_dcg", "ndcg", "ndcg_rel", "G", "Rndcg"] {
        assert_eq!(
            one(name, &[], &[]),
            0.0,
            "{name} of a query with no judgments"
        );
    }
}

#[test]
fn rndcg_is_nan_with_relevant_documents_but_no_positive_gain() {
    // as trec_eval computes it: -l 0 on a query judged all 0 gives 0/0
    let l0 = Options {
        relevance_level: 0.0,
        ..Options::default()
    };
    assert!(eval_with("Rndcg", &[0.0], &[0.0, 0.0], &[], &l0)[0].is_nan());
    // and gain strings that make every gain <= 0
    let req = request("Rndcg", &[], Some(gains("1=0", &[(1, 0.0)])));
    let v = eval_notes(
        "Rndcg",
        &[1.0],
        &[1.0],
        &req,
        &Options::default(),
        &mut Notes::default(),
    )
    .unwrap();
    assert!(v[0].is_nan());
}

#[test]
fn huge_grades_cost_nothing() {
    // no entry per level: grades 2,000,000,000 and 1
    let judged = [2e9, 1.0, 0.0];
    let ranked = [1.0, 2e9];
    let dcg = 1.0 + 2e9 / 3f64.log2();
    let ideal = 2e9 + 1.0 / 3f64.log2();
    assert!(close(one("dcg", &ranked, &judged), dcg));
    assert!(close(one("ideal_dcg", &ranked, &judged), ideal));
    assert!(close(one("ndcg", &ranked, &judged), dcg / ideal));
    assert!(close(
        eval("ndcg_cut", &ranked, &judged, &[2])[0],
        dcg / ideal
    ));
    let spec = gains("1=2", &[(1, 2.0)]);
    let req = request("ndcg", &[], Some(spec));
    let v = eval_notes(
        "ndcg",
        &ranked,
        &judged,
        &req,
        &Options::default(),
        &mut Notes::default(),
    )
    .unwrap();
    assert!(close(
        v[0],
        (2.0 + 2e9 / 3f64.log2()) / (2e9 + 2.0 / 3f64.log2())
    ));
}

#[test]
fn exponential_gains_refuse_grades_above_996() {
    let refused = |ranked: &[f64], judged: &[f64]| {
        let req = request("ndcg_p", &[], None);
        eval_notes(
            "ndcg_p",
            ranked,
            judged,
            &req,
            &Options::default(),
            &mut Notes::default(),
        )
        .unwrap_err()
        .message
    };
    let message =
        "grade 997 is too large for exponential gains: above grade 996 sums of 2^grade - 1 overflow";
    assert_eq!(refused(&[997.0], &[997.0]), message);
    assert_eq!(refused(&[], &[997.0, 1.0]), message);
    assert_eq!(
        refused(&[], &[2e9]),
        "grade 2e+09 is too large for exponential gains: above grade 996 sums of 2^grade - 1 overflow"
    );
    // 996 is fine, even three times (sums of 2^1023 - 1 overflowed), and a perfect ranking scores 1
    assert_eq!(one("ndcg_p", &[996.0, 1.0], &[996.0, 1.0]), 1.0);
    assert_eq!(one("ndcg_p", &[996.0; 3], &[996.0; 3]), 1.0);
    assert_eq!(
        one("dcg", &[1024.0], &[1024.0]),
        1024.0,
        "linear gains take any grade"
    );
}

#[test]
fn fractional_grades() {
    let judged = [2.5, 1.0, 0.0];
    let ranked = [1.0, 2.5, -1.0];
    let dcg = 1.0 + 2.5 / 3f64.log2();
    let ideal = 2.5 + 1.0 / 3f64.log2();
    assert!(close(one("dcg", &ranked, &judged), dcg));
    assert!(close(one("ideal_dcg", &ranked, &judged), ideal));
    assert!(close(one("ndcg", &ranked, &judged), dcg / ideal));
    // exp: 2^2.5 - 1 and 1
    let e = 2.5f64.exp2() - 1.0;
    assert!(close(
        one("ndcg_p", &ranked, &judged),
        (1.0 + e / 3f64.log2()) / (e + 1.0 / 3f64.log2())
    ));
    // binary at -l 2: only the 2.5 is relevant
    let binary = Options {
        relevance_level: 2.0,
        ..global(scheme(Scheme::Binary))
    };
    assert!(close(
        eval_with("ndcg", &ranked, &judged, &[], &binary)[0],
        1.0 / 3f64.log2()
    ));
    assert_eq!(one("num_rel", &ranked, &judged), 2.0);
    // Rndcg: ideal 2.5, 1: points after rank 1 and rank 2
    let r = ((1.0 / 2.5) + dcg / ideal) / 2.0;
    assert!(close(one("Rndcg", &ranked, &judged), r));
    // gain strings name levels: refused
    let req = request("ndcg", &[], Some(gains("1=3", &[(1, 3.0)])));
    let err = eval_notes(
        "ndcg",
        &ranked,
        &judged,
        &req,
        &Options::default(),
        &mut Notes::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "gains '1=3' name levels, which fractional grades do not have; use --global-gains linear, exp or binary"
    );
    // grades above 996 with exp
    let err = eval_notes(
        "ndcg_p",
        &[],
        &[996.5],
        &request("ndcg_p", &[], None),
        &Options::default(),
        &mut Notes::default(),
    );
    assert_eq!(
        err.unwrap_err().message,
        "grade 996.5 is too large for exponential gains: above grade 996 sums of 2^grade - 1 overflow"
    );
}

#[test]
fn ndcg_cut_keeps_dcg_only_without_gains() {
    // a negative gain: DCG -1 where the ideal is 0; with global gains the value is 0
    let options = global(gains("1=-1", &[(1, -1.0)]));
    assert_eq!(eval_with("ndcg_cut", &[1.0], &[1.0], &[1], &options), [0.0]);
    assert_eq!(eval_with("dcg", &[1.0], &[1.0], &[], &options), [-1.0]);
}

#[test]
fn percent_g() {
    let cases = [
        (0.5, "0.5"),
        (3.0, "3"),
        (2e9, "2e+09"),
        (1024.0, "1024"),
        (123456.0, "123456"),
        (1234567.0, "1.23457e+06"),
        (0.0001, "0.0001"),
        (0.00001234, "1.234e-05"),
        (-2.5, "-2.5"),
        (1023.5, "1023.5"),
        (0.1, "0.1"),
        (999999.5, "1e+06"),
    ];
    for (x, s) in cases {
        assert_eq!(format_g(x), s, "{x}");
    }
}

// ---------------------------------------------------------------- recorded transcripts

/// One-query cases of testdata/conformance/cases, their queries built by hand from qrels.txt
/// and run.txt (ranked by score), checked against trec_eval's recorded output.
#[test]
fn recorded_transcripts() {
    let check = |case: &str,
                 name: &str,
                 ranked: &[f64],
                 judged: &[f64],
                 req: Request,
                 options: &Options,
                 want: &[&str]| {
        let got = eval_notes(name, ranked, judged, &req, options, &mut Notes::default()).unwrap();
        assert_eq!(
            got.iter().map(|&x| f4(x)).collect::<Vec<_>>(),
            want,
            "{case} {name}"
        );
    };
    let plain = Options::default();
    // h-worked-linear
    let cuts = request("ndcg_cut", &[1, 2, 3, 4, 5, 6], None);
    let want = ["1.0000", "0.8710", "0.9778", "0.8531", "0.8610", "0.9608"];
    check(
        "h-worked-linear",
        "ndcg_cut",
        &WORKED,
        &WORKED_JUDGED,
        cuts,
        &plain,
        &want,
    );
    // h-big-grades: a 127, b 12, c -127; the run ranks b, c, a
    let (ranked, judged) = ([12.0, -2.0, 127.0], [127.0, 12.0]);
    for (name, want) in [("G", "0.5890"), ("ndcg", "0.5610"), ("Rndcg", "0.0918")] {
        check(
            "h-big-grades",
            name,
            &ranked,
            &judged,
            request(name, &[], None),
            &plain,
            &[want],
        );
    }
    let cuts = request("ndcg_cut", &[1, 2], None);
    check(
        "h-big-grades",
        "ndcg_cut",
        &ranked,
        &judged,
        cuts,
        &plain,
        &["0.0945", "0.0892"],
    );
    // a 1, b 0, c 2, d 3, e 1; the run ranks a, e, b
    let (ranked, judged) = ([1.0, 1.0, 0.0], [3.0, 2.0, 1.0, 1.0, 0.0]);
    let with =
        |name: &str, text: &str, pairs: &[(i64, f64)]| request(name, &[], Some(gains(text, pairs)));
    let cases = [
        (
            "h-gain-negative",
            "ndcg",
            with("ndcg", "1=-1", &[(1, -1.0)]),
            "-0.3827",
        ),
        (
            "h-gain-negative",
            "ndcg_rel",
            with("ndcg_rel", "2=-3", &[(2, -3.0)]),
            "0.3924",
        ),
        (
            "h-gain-level0",
            "ndcg",
            with("ndcg", "0=1", &[(0, 1.0)]),
            "0.3819",
        ),
        (
            "h-gain-level0",
            "G",
            with("G", "0=2", &[(0, 2.0)]),
            "0.1991",
        ),
        (
            "h-help-example-gains",
            "ndcg",
            with("ndcg", "1=3.5,2=9.0,4=7.0", &[(1, 3.5), (2, 9.0), (4, 7.0)]),
            "0.4034",
        ),
    ];
    for (case, name, req, want) in cases {
        check(case, name, &ranked, &judged, req, &plain, &[want]);
    }
    // h-level0: -l 0
    let l0 = Options {
        relevance_level: 0.0,
        ..Options::default()
    };
    check(
        "h-level0",
        "num_rel",
        &ranked,
        &judged,
        request("num_rel", &[], None),
        &l0,
        &["5.0000"],
    );
    check(
        "h-level0",
        "binG",
        &ranked,
        &judged,
        request("binG", &[], None),
        &l0,
        &["0.6000"],
    );
    check(
        "h-level0",
        "ndcg_rel",
        &ranked,
        &judged,
        request("ndcg_rel", &[], None),
        &l0,
        &["0.3360"],
    );
    // h-nothing-relevant: three documents judged 0, all retrieved
    let zeros = [0.0, 0.0, 0.0];
    for name in ["binG", "G", "ndcg", "ndcg_rel", "Rndcg"] {
        check(
            "h-nothing-relevant",
            name,
            &zeros,
            &zeros,
            request(name, &[], None),
            &plain,
            &["0.0000"],
        );
    }
    check(
        "h-nothing-relevant",
        "ndcg_cut",
        &zeros,
        &zeros,
        request("ndcg_cut", &[2], None),
        &plain,
        &["0.0000"],
    );
}

#[test]
fn cutoffs_must_be_ascending() {
    for cutoffs in [&[][..], &[5, 3], &[2, 2]] {
        for name in ["ndcg_cut", "cg_cut", "err_cut"] {
            let req = request(name, cutoffs, None);
            let mut out = vec![0.0; cutoffs.len().max(1)];
            let q = Query {
                ranked: &WORKED,
                judged: &WORKED_JUDGED,
                stand_in: false,
                tally: None,
                ties: None,
                groups: &[],
                prefs: None,
                subtopics: None,
                rankings: None,
            };
            let record = kernel(name).unwrap();
            assert!((record.compute)(
                &q,
                &req,
                &Options::default(),
                &mut Notes::default(),
                &mut out
            )
            .is_err());
        }
    }
}

#[test]
fn fractional_gain_tables_have_a_size_limit() {
    let judged = [2e9, 1.0];
    let req = request("ndcg", &[], Some(gains("1=0.5", &[(1, 0.5)])));
    let err = eval_notes(
        "ndcg",
        &[1.0],
        &judged,
        &req,
        &Options::default(),
        &mut Notes::default(),
    );
    assert_eq!(
        err.unwrap_err().message,
        "fractional gains '1=0.5' with grades up to 2000000000: trecgain builds such tables only up to grade 99999"
    );
    // sorted by value, the table needs no entry per level
    let exact = Options {
        exact_ideal: true,
        ..Options::default()
    };
    let v = eval_notes("ndcg", &[1.0], &judged, &req, &exact, &mut Notes::default()).unwrap()[0];
    assert!(close(v, 0.5 / (2e9 + 0.5 / 3f64.log2())));
}

/// `--ties average`: the worked example with ranks 2-3 tied (grades 2 and 3) and ranks 5-6
/// tied (grades 1 and 2): each tied document counts its group's mean grade, by hand.
#[test]
fn average_ties_give_each_document_its_groups_mean_gain() {
    let groups = [0u32, 1, 1, 2, 3, 3];
    let req = request("dcg_cut", &[2, 3, 6], None);
    let record = kernel("dcg_cut").unwrap();
    let mut out = vec![f64::NAN; 3];
    let query = Query {
        ranked: &WORKED,
        judged: &WORKED_JUDGED,
        stand_in: false,
        tally: None,
        ties: Some(&groups),
        groups: &[],
        prefs: None,
        subtopics: None,
        rankings: None,
    };
    (record.compute)(
        &query,
        &req,
        &Options::default(),
        &mut Notes::default(),
        &mut out,
    )
    .unwrap();
    let d = |rank: f64| (rank + 1.0).log2();
    let at2 = 3.0 + 2.5 / d(2.0);
    let at3 = at2 + 2.5 / d(3.0);
    let at6 = at3 + 0.0 / d(4.0) + 1.5 / d(5.0) + 1.5 / d(6.0);
    for (got, want) in out.iter().zip([at2, at3, at6]) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
    // the whole-ranking sum does not depend on the order within groups: no ties, same DCG
    let dcg = |ties| {
        let mut out = [0.0];
        let q = Query { ties, ..query };
        (kernel("dcg").unwrap().compute)(
            &q,
            &request("dcg", &[], None),
            &Options::default(),
            &mut Notes::default(),
            &mut out,
        )
        .unwrap();
        out[0]
    };
    let (tied, plain) = (dcg(Some(&groups)), dcg(None));
    assert!(
        (tied - plain).abs() > 1e-3,
        "rank 2-3 and 5-6 swap gains: {tied} vs {plain}"
    );
}

/// The diversity kernels on a topic worked by hand: documents a (subtopics 0 and 1) and b
/// (subtopic 0), ranked b, a; alpha 0.5.
#[test]
fn diversity_by_hand() {
    use crate::measures::diversity::Topic;
    let topic = Topic {
        ranked: vec![1, 0],
        offsets: vec![0, 2, 3],
        subtopic: vec![0, 1, 0],
        grade: vec![1.0, 2.0, 1.0],
        docnos: ["a", "b"].iter().fold(Arena::default(), |mut docnos, d| {
            docnos.push(d.as_bytes());
            docnos
        }),
        width: 2,
        ..Topic::default()
    };
    let value = |name: &str, cutoffs: &[usize], params: &[f64]| {
        let record = kernel(name).expect("a known kernel");
        let req = Request {
            params: params.to_vec(),
            ..request(name, cutoffs, None)
        };
        let mut out = vec![f64::NAN; 1];
        let query = Query {
            ranked: &[],
            judged: &[],
            stand_in: false,
            tally: None,
            ties: None,
            groups: &[],
            prefs: None,
            subtopics: Some(&topic),
            rankings: None,
        };
        (record.compute)(
            &query,
            &req,
            &Options::default(),
            &mut Notes::default(),
            &mut out,
        )
        .expect("computed");
        out[0]
    };
    // gains: b 1 (subtopic 0 new), a 0.5 + 1; S = 2
    assert_eq!(value("ERR-IA", &[1], &[0.5]), 1.0); // rank 1 is not normalized
    assert_eq!(
        value("ERR-IA", &[2], &[0.5]),
        (1.0 + 1.5 / 2.0) / (2.0 + 1.0 / 2.0)
    );
    // the ideal ranks a (2) before b (0.5): ERR 2 + 0.25 over the same 2.5
    let ideal = (2.0 + 0.5 / 2.0) / 2.5;
    assert_eq!(value("nERR-IA", &[2], &[0.5]), 0.7 / ideal);
    assert_eq!(value("strec", &[1], &[]), 0.5);
    assert_eq!(value("P-IA", &[2], &[]), 3.0 / 4.0);
    assert_eq!(value("MAP-IA", &[], &[]), (1.0 + 0.5) / 2.0);
    // NRBP: (1 + 1.5 beta) (1 - (1 - alpha) beta) / S, beta 0.5
    assert_eq!(value("NRBP", &[], &[0.5, 0.5]), 1.75 * 0.75 / 2.0);
    assert_eq!(value("alpha-DCG", &[1], &[0.5]), 1.0);
}

/// Accuracy by hand. Ranking (labels) 0, 2, -1, 1, -2 at level 1: relevant at ranks 2 and 4,
/// with 1 and 2 nonrelevant documents above them; 3 nonrelevant in all: 1 - 3 / (3 * 2).
/// At level 0 the document the qrels lack (-1) is relevant too (grade 0), the one judged
/// negative (-2) is not: nonrelevant above the relevant ones 0, 0, 0, 0; N = 1: 1 - 0 / 4.
/// Cut at 2: one relevant, one nonrelevant above it: 1 - 1 / 1. No relevant: no value (NaN);
/// no nonrelevant: 1.
#[test]
fn accuracy_by_hand() {
    let ranking = [0.0, 2.0, -1.0, 1.0, -2.0];
    let at = |level: f64, cutoffs: &[usize], ranked: &[f64]| {
        let options = Options {
            relevance_level: level,
            ..Options::default()
        };
        eval_with("Accuracy", ranked, &[], cutoffs, &options)[0]
    };
    assert_eq!(at(1.0, &[], &ranking), 1.0 - 3.0 / (3.0 * 2.0));
    assert_eq!(at(0.0, &[], &ranking), 1.0);
    assert_eq!(at(1.0, &[2], &ranking), 0.0);
    assert_eq!(at(2.0, &[], &ranking), 1.0 - 1.0 / 4.0);
    assert!(at(3.0, &[], &ranking).is_nan());
    assert!(at(1.0, &[1], &ranking).is_nan());
    assert!(at(1.0, &[], &[]).is_nan());
    assert_eq!(at(1.0, &[], &[1.0, 3.0]), 1.0);
    // a level below 0 is refused by the driver, before any kernel runs
    // (tests/test_irm_accuracy.py), as the record declares
    assert!(kernel("Accuracy").is_some_and(|k| k.level_from_zero));
}

/// The driver ranks each query by one own tie rule (`Measuring::own_ties`): the records that
/// declare one must declare the same.
#[test]
fn records_declare_one_own_tie_rule() {
    let mut rules: Vec<_> = KERNELS.iter().filter_map(|k| k.ties).collect();
    rules.dedup();
    assert!(rules.len() <= 1, "{rules:?}");
}
