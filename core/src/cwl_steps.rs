//! `trecgain explain` for the C/W/L measures under ir_measures' names (INST, INSQ, BPM, SDCG,
//! NERR8-11, RBP with `rel`): one query's user model, rank by rank.
//!
//! The ranks are those of the ranking the kernel reads (score descending, equal scores in the
//! run's order), and every number shown is the kernel's own: the gains, C(i) and W(i) come
//! from `UserModel::of`, which the kernels call too, and the expected utility to rank i is
//! numpy's dot of W with the gains of ranks 1..i (the others as 0), summed in the kernel's
//! order, so at the ranking's last rank it is the kernel's value, bit for bit.

use crate::cwl::numeric::cumsum;
use crate::cwl::Rule;
use crate::error::Result;
use crate::measures::cwl::{GainOf, UserModel};
use crate::measures::Query;
use crate::options::Request;
use crate::steps::{part, Step, Walkthrough};

/// The C/W/L measure `rule` of `request` on query `q` (as its kernel sees it).
pub fn user_model(rule: Rule, q: &Query, request: &Request) -> Result<Walkthrough> {
    let model = UserModel::of(q, request, rule)?;
    let values = q
        .rankings
        .and_then(|r| r.run_order.as_deref())
        .unwrap_or(&[]);
    let shown = model.ranked.min(model.depth());
    let so_far = cumsum(&model.gains);
    let steps = (0..shown)
        .map(|i| Step {
            rank: i + 1,
            relevance: values.get(i).copied(),
            counted: model.gains[i] > 0.0,
            gain: Some(model.gains[i]),
            sum: so_far[i],
            continuation: Some(model.continuation[i]),
            weight: Some(model.weights[i]),
            value: Some(model.value_to(i + 1)),
            ..Step::default()
        })
        .collect();
    let value = model.value();
    let mut parts = parameters(&model);
    parts.extend([
        part(
            "documents ranked (ties in the run's order)",
            model.ranked as f64,
        ),
        part(
            "depth (cwl_eval's: ranks past the ranking have gain 0)",
            model.depth() as f64,
        ),
        part(
            "W(1) = 1 / (1 + C(1) + C(1)C(2) + ... to the depth)",
            model.weights.first().copied().unwrap_or(f64::NAN),
        ),
        part("EU = W . gain over the depth", value),
    ]);
    let mut columns = vec![("gain", "gain")];
    if matches!(rule, Rule::Inst | Rule::BpmStatic) {
        columns.push(("sum", "gain so far"));
    }
    columns.extend([
        ("continuation", "C(i)"),
        ("weight", "W(i)"),
        ("value", "EU to rank"),
    ]);
    Ok(Walkthrough {
        steps,
        shown,
        own: vec![value],
        parts,
        formula: format!(
            "EU = sum over ranks i = 1..{} of W(i) gain(i) (cwl_eval's expected utility per item); W(i) = W(1) C(1)...C(i-1); {}; {}; ranking: score descending, equal scores in the run's order",
            model.depth(),
            continuation_rule(rule),
            gain_rule(model.gain_of)
        ),
        columns,
    })
}

/// The parameters of the user model and of its gains, named.
fn parameters(model: &UserModel) -> Vec<crate::steps::Part> {
    let p = &model.metric.params;
    let first = p.first().copied().unwrap_or(f64::NAN);
    let mut parts = match model.metric.rule {
        Rule::Inst | Rule::Insq | Rule::Nerr11 => vec![part("T (the total gain wanted)", first)],
        Rule::BpmStatic => vec![
            part("T (the total gain wanted)", first),
            part(
                "k (documents read at most)",
                p.get(1).copied().unwrap_or(f64::NAN),
            ),
        ],
        Rule::Ndcg | Rule::Nerr8 | Rule::Nerr9 => vec![part("k (the cutoff)", first)],
        _ => vec![part("p (persistence)", first)],
    };
    match model.gain_of {
        GainOf::Scaled { min_rel, max_rel } => {
            parts.push(part("min_rel (the grade of gain 0)", min_rel));
            parts.push(part("max_rel (the grade of gain 1)", max_rel));
        }
        GainOf::Binary { rel } => parts.push(part("rel (the least grade of gain 1)", rel)),
    }
    parts
}

/// cwl_eval's C(i) of a rule, in words.
fn continuation_rule(rule: Rule) -> &'static str {
    match rule {
        Rule::Inst => "C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - (gain so far)",
        Rule::Insq => "C(i) = ((i + 2T - 1) / (i + 2T))^2",
        Rule::BpmStatic => {
            "C(i) = 1 while the gain so far is below T and i is below k (every document costs 1), else 0"
        }
        Rule::Ndcg => {
            "C(i) = log2(i + 1) / log2(i + 2) for i < k, else 0 (so W(i) = 1 / log2(i + 1) over the sum of those to k)"
        }
        Rule::Nerr8 => "C(i) = 1 - gain(i) for i < k - 1, else 0",
        Rule::Nerr9 => "C(i) = (i / (i + 1)) (1 - gain(i)) for i < k - 1, else 0",
        Rule::Nerr10 => "C(i) = p (1 - gain(i))",
        Rule::Nerr11 => "C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - gain(i))",
        Rule::Rbp => "C(i) = p (so W(i) = p^(i-1) over the sum of p^(j-1) to the depth)",
        _ => "C(i): cwl_eval's rule",
    }
}

/// How grades became gains, in words.
fn gain_rule(gain_of: GainOf) -> &'static str {
    match gain_of {
        GainOf::Scaled { .. } => {
            "gain = (grade - min_rel) / (max_rel - min_rel), the grade (negative as 0) clipped into [min_rel, max_rel]; a document the qrels do not list: 0"
        }
        GainOf::Binary { .. } => {
            "gain = 1 for a grade (negative as 0) >= rel, else 0; a document the qrels do not list: 0"
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::evaluate::evaluate;
    use crate::explain::explain;
    use crate::options::{Compat, Options};
    use crate::read::{Qrels, Run};
    use crate::testing::{qrels, request, run};

    /// a, b tied (the run lists a first; trec_eval would rank b first), then c; x unjudged.
    fn collection() -> (Qrels, Run) {
        let judged = [
            ("1", "a", 1.0),
            ("1", "b", 2.0),
            ("1", "c", 1.0),
            ("1", "d", 2.0),
        ];
        let lines = [
            ("1", "a", 1.0),
            ("1", "b", 1.0),
            ("1", "c", 0.5),
            ("1", "x", 0.25),
        ];
        (qrels(&judged), run(&lines))
    }

    #[test]
    fn nerr8_by_hand_in_the_runs_order() {
        let (q, r) = collection();
        // NERR8(max_rel=2)@3: gains 0.5, 1, 0.5, 0; C(1) = 1 - 0.5, C(2) = 0 (i < k - 1 = 2
        // only); W(1) = 1 / (1 + 0.5) = 2/3, W(2) = 1/3; EU = 2/3 * 0.5 + 1/3 * 1 = 2/3
        let req = request("NERR8", &[3], &[0.0, 2.0]);
        for options in [
            Options::default(),
            Options {
                compat: Compat::Nine,
                judged_only: true, // the provider's ranking keeps the unjudged x
                ..Options::default()
            },
        ] {
            let e = explain(&q, &r, &req, &options, 0, 0).unwrap();
            let docnos: Vec<&[u8]> = e
                .steps
                .iter()
                .map(|s| s.doc.as_ref().unwrap().docno.as_slice())
                .collect();
            assert_eq!(docnos, [&b"a"[..], b"b", b"c", b"x"]);
            let gains: Vec<f64> = e.steps.iter().map(|s| s.gain.unwrap()).collect();
            assert_eq!(gains, [0.5, 1.0, 0.5, 0.0]);
            let c: Vec<f64> = e.steps.iter().map(|s| s.continuation.unwrap()).collect();
            assert_eq!(c, [0.5, 0.0, 0.0, 0.0]);
            let w: Vec<f64> = e.steps.iter().map(|s| s.weight.unwrap()).collect();
            assert!((w[0] - 2.0 / 3.0).abs() < 1e-15 && (w[1] - 1.0 / 3.0).abs() < 1e-15);
            assert_eq!(&w[2..], [0.0, 0.0]);
            assert!((e.own[0] - 2.0 / 3.0).abs() < 1e-15, "{}", e.own[0]);
            let last = e.steps.last().unwrap().value.unwrap();
            assert_eq!(last.to_bits(), e.own[0].to_bits());
            assert_eq!(e.values[0].to_bits(), e.own[0].to_bits());
            let evaluated = evaluate(&q, &r, std::slice::from_ref(&req), &options).unwrap();
            assert_eq!(evaluated.value(0, 0).to_bits(), e.own[0].to_bits());
            assert!(e.run_order && e.ranked == 4);
            // d (gain 1) is missed; the tie of a and b is shown in the run's order
            assert_eq!(e.missed.len(), 1);
            assert_eq!(e.missed[0].gain, 1.0);
            assert_eq!(e.ties.len(), 1);
            assert_eq!(e.ties[0].docs[0].docno, b"a");
        }
    }

    #[test]
    fn bpm_stops_where_the_gain_reaches_t() {
        let (q, r) = collection();
        // BPM(T=1, max_rel=2)@10: gains 0.5, 1: the gain so far reaches T at rank 2, so C(1) = 1
        // and C(2) = 0; W = 1/2, 1/2; EU = (0.5 + 1) / 2
        let req = request("BPM", &[10], &[1.0, 0.0, 2.0]);
        let e = explain(&q, &r, &req, &Options::default(), 0, 0).unwrap();
        let so_far: Vec<f64> = e.steps.iter().map(|s| s.sum).collect();
        assert_eq!(so_far, [0.5, 1.5, 2.0, 2.0]);
        let c: Vec<f64> = e.steps.iter().map(|s| s.continuation.unwrap()).collect();
        assert_eq!(c, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(e.own, [0.75]);
        let eu: Vec<f64> = e.steps.iter().map(|s| s.value.unwrap()).collect();
        assert_eq!(eu, [0.25, 0.75, 0.75, 0.75]);
    }

    #[test]
    fn runid_and_num_q_have_no_ranks() {
        let (q, r) = collection();
        let explained = |kernel: &str| {
            explain(
                &q,
                &r,
                &request(kernel, &[], &[]),
                &Options::default(),
                0,
                0,
            )
            .unwrap()
        };
        let tag = explained("runid");
        assert_eq!(tag.tag.as_deref(), Some(&b"unknown"[..])); // a run given in memory
        assert!(tag.steps.is_empty() && tag.missed.is_empty() && tag.ties.is_empty());
        let count = explained("num_q");
        assert_eq!(
            (count.values.clone(), count.own.clone()),
            (vec![1.0], vec![1.0])
        );
        assert_eq!(count.parts[1].value, 1.0);
    }
}
