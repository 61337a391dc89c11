//! Stage 3, for the relevance formats beyond qrels: a query's ranking joined with its
//! judgment groups (`-R qrels_jg`) or its preferences (`-R prefs`, `-R qrels_prefs`), once per
//! query, for the kernels to read from `Query::groups` and `Query::prefs`; or its subtopic
//! judgments (`-R subtopics`), for `Query::subtopics`.

use crate::error::Result;
use crate::label::{
    judged_grades, label_docnos, label_ranking, only_judged, stand_in_value, STAND_IN,
};
use crate::measures::diversity::{Topic, UNJUDGED};
use crate::measures::irm::{Overlap, Rankings};
use crate::measures::jg::GroupRanking;
use crate::measures::prefs::{Counts, Line};
use crate::options::{Compat, Options, Ties};
use crate::rank::{check_duplicates, rank_query_by, rank_rows, reverse_ties, sort_score, tie_runs};
use crate::read::Groups;
use crate::read::{Judged, Preferences, Qrels, Relations, Run, Subtopics};

/// What a query's ranking makes of its groups or preferences (reused from query to query).
#[derive(Default)]
pub struct Related {
    pub groups: Vec<GroupRanking>,
    pub prefs: Option<Counts>,
    pub subtopics: Option<Topic>,
    /// ir_measures' own rankings of the query (Compat's overlap, the C/W/L run order).
    pub provided: Rankings,
    /// The run lines of `provided.run_order`, in that order (explain shows their documents).
    pub run_order_rows: Vec<usize>,
    rows: Vec<usize>,
    /// The judgments of `rows`, when taken from the ranking's.
    judgments: Vec<u32>,
    lines: Vec<Line>,
}

/// One query's run lines.
pub struct Ranking<'a> {
    /// As trec_eval ranks them (after -M).
    pub ranked: &'a [usize],
    /// Their relevance values (as `label::label_ranking` gives them; empty: not labeled).
    pub labels: &'a [f64],
    /// Their judgments (`label::label_judged`'s; empty: not kept).
    pub judgments: &'a [u32],
    /// In file order.
    pub lines: &'a [usize],
    /// The query is one only -c brings in, ranked as trec_eval 10 ranks it (one document,
    /// STAND_IN).
    pub stand_in: bool,
    /// Some measure reads what the ranking shares with the ideal ranking (`Rankings::overlap`).
    pub overlap: bool,
    /// Some measure reads the ranking with ties in the run's order (`Rankings::run_order`).
    pub run_order: bool,
    /// -M cut no run of equal scores in two (`ranked` then holds the documents any tie rule
    /// keeps).
    pub ties_whole: bool,
}

/// Joins query `q`'s ranking with its groups or preferences.
pub fn relate(
    q: usize,
    ranking: &Ranking,
    run: &Run,
    qrels: &Qrels,
    options: &Options,
    out: &mut Related,
) -> Result<()> {
    let Ranking {
        ranked,
        lines,
        stand_in,
        overlap,
        run_order,
        ..
    } = *ranking;
    if run_order {
        in_run_order(q, ranking, run, qrels, options, out);
    }
    if overlap {
        let shared = out.provided.overlap.get_or_insert_with(Overlap::default);
        rank_reversed(ranking, run, options, &mut out.rows, &mut out.judgments);
        join_overlap(q, &out.rows, lines, run, qrels, options, shared);
    }
    match &qrels.relations {
        Relations::Grades => Ok(()),
        Relations::Groups(groups) => {
            label_groups(q, ranked, stand_in, run, groups, options, out);
            Ok(())
        }
        Relations::Preferences(prefs) => {
            count_preferences(q, lines, stand_in, run, qrels, prefs, options, out)
        }
        Relations::Subtopics(subtopics) => {
            let topic = out.subtopics.get_or_insert_with(Topic::default);
            let kept = rank_reversed(ranking, run, options, &mut out.rows, &mut out.judgments);
            let judgments = kept.then_some(out.judgments.as_slice());
            join_subtopics(
                q, &out.rows, judgments, stand_in, run, qrels, subtopics, topic,
            );
            Ok(())
        }
    }
}

/// The query's lines as `Ties::Reversed` ranks them (after -M), into `out`: trec_eval's
/// ranking with each run of equal scores reversed where that ranking holds the same documents
/// in the same runs (its ties broken by docno, no run cut by -M, no document dropped as the
/// query's own), ranked anew otherwise. Taken from the ranking, its judgments (when it has
/// them) come along into `judgments`; whether they did.
fn rank_reversed(
    ranking: &Ranking,
    run: &Run,
    options: &Options,
    out: &mut Vec<usize>,
    judgments: &mut Vec<u32>,
) -> bool {
    judgments.clear();
    let by_docno = matches!(options.ties, Ties::Docno | Ties::Average);
    if !(by_docno && ranking.ties_whole && !options.drop_self) {
        out.clear();
        out.extend_from_slice(ranking.lines);
        rank_query_by(out, run, options, Ties::Reversed);
        return false;
    }
    let (ranked, compat) = (ranking.ranked, options.compat);
    reverse_ties(ranked, ranked, run, compat, out);
    let kept = ranking.judgments.len() == ranked.len();
    if kept {
        reverse_ties(ranked, ranking.judgments, run, compat, judgments);
    }
    kept
}

/// Query `q`'s relevance values in the ranking of ir_measures' providers (score descending,
/// the doubles; equal scores in the run's order: a stable sort), after -M, into
/// `Rankings::run_order` (its run lines into `Related::run_order_rows`). trec_eval's ranking differs only within its runs of equal scores
/// (equal in f32 with compat 9, whose order the doubles keep), which are sorted again; when
/// -M cuts or the ranking is by rank (--ties rank), the run's lines are ranked anew.
fn in_run_order(
    q: usize,
    ranking: &Ranking,
    run: &Run,
    qrels: &Qrels,
    options: &Options,
    out: &mut Related,
) {
    let labels = out.provided.run_order.get_or_insert_with(Vec::new);
    labels.clear();
    let (ranked, lines) = (ranking.ranked, ranking.lines);
    let cut = options.max_docs.is_some_and(|m| m < lines.len());
    let rows = &mut out.run_order_rows;
    if cut || options.ties == Ties::Rank || ranking.labels.len() != ranked.len() {
        rows.clear();
        rows.extend_from_slice(lines);
        if options.drop_self {
            let qid = qrels.qids.get(q);
            rows.retain(|&row| run.docnos.get(row) != qid);
        }
        rank_rows(rows, run, Compat::Ten, options.max_docs, Ties::Input);
        label_ranking(rows, q, run, qrels, labels);
    } else {
        out.rows.clear();
        out.rows.extend(0..ranked.len());
        for ties in tie_runs(ranked, run, options.compat).filter(|r| r.len() > 1) {
            out.rows[ties].sort_unstable_by(|&a, &b| {
                let (ra, rb) = (ranked[a], ranked[b]);
                let by_score = run.scores[rb].partial_cmp(&run.scores[ra]);
                by_score
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(ra.cmp(&rb))
            });
        }
        labels.extend(out.rows.iter().map(|&i| ranking.labels[i]));
        rows.clear();
        rows.extend(out.rows.iter().map(|&i| ranked[i]));
    }
    if ranking.stand_in {
        labels.push(stand_in_value(qrels, q));
    }
}

/// What query `q`'s ranking (`rows`: score descending, then docno ascending, after -M)
/// shares with its ideal ranking (`compat_ideal`).
fn join_overlap(
    q: usize,
    rows: &[usize],
    lines: &[usize],
    run: &Run,
    qrels: &Qrels,
    options: &Options,
    out: &mut Overlap,
) {
    let (base, end) = (qrels.offsets[q], qrels.offsets[q + 1]);
    let ideal = compat_ideal(q, lines, run, qrels, options);
    let mut place = vec![usize::MAX; end - base];
    for (i, &j) in ideal.iter().enumerate() {
        place[j - base] = i;
    }
    out.ranked = rows.len();
    out.ideal = ideal.len();
    out.arrivals.clear();
    out.arrivals.resize(out.ranked.max(out.ideal), 0);
    for (rank, &row) in rows.iter().enumerate() {
        let shared = qrels
            .judgment(q, run.docnos.get(row))
            .map(|j| place[j - base]);
        if let Some(i) = shared.filter(|&i| i != usize::MAX) {
            out.arrivals[rank.max(i)] += 1;
        }
    }
}

/// Query `q`'s ideal ranking as ir_measures' compat provider orders it (its qrels judgments):
/// the documents judged above 0, highest grade first, then by their score in the run (`lines`,
/// 0 for a document it lacks), then in qrels order.
pub fn compat_ideal(
    q: usize,
    lines: &[usize],
    run: &Run,
    qrels: &Qrels,
    options: &Options,
) -> Vec<usize> {
    let (base, end) = (qrels.offsets[q], qrels.offsets[q + 1]);
    let mut score = vec![0.0; end - base];
    for &row in lines {
        if let Some(j) = qrels.judgment(q, run.docnos.get(row)) {
            score[j - base] = sort_score(run.scores[row], options.compat);
        }
    }
    let mut ideal: Vec<usize> = (base..end).filter(|&j| qrels.grades[j] > 0.0).collect();
    ideal.sort_by(|&a, &b| {
        let by_score = score[b - base].partial_cmp(&score[a - base]);
        qrels.grades[b]
            .total_cmp(&qrels.grades[a])
            .then(by_score.unwrap_or(std::cmp::Ordering::Equal))
            .then(qrels.lines[a].cmp(&qrels.lines[b]))
            .then(a.cmp(&b))
    });
    ideal
}

/// Query `q`'s subtopic judgments, and its ranking (`rows`, ranked as pyndeval ranks: score
/// descending, then docno ascending) as indices of its judged documents (from the rows'
/// `judgments` in the qrels when given, looked up otherwise).
#[allow(clippy::too_many_arguments)]
fn join_subtopics(
    q: usize,
    rows: &[usize],
    judgments: Option<&[u32]>,
    stand_in: bool,
    run: &Run,
    qrels: &Qrels,
    subtopics: &Subtopics,
    topic: &mut Topic,
) {
    let (base, end) = (qrels.offsets[q], qrels.offsets[q + 1]);
    topic.ranked.clear();
    match judgments {
        Some(judgments) => topic.ranked.extend(judgments.iter().map(|&j| {
            if j == Judged::NONE {
                UNJUDGED
            } else {
                j - base as u32
            }
        })),
        None => topic.ranked.extend(rows.iter().map(|&row| {
            let d = qrels.judgment(q, run.docnos.get(row));
            d.map_or(UNJUDGED, |j| (j - base) as u32)
        })),
    }
    if stand_in {
        topic.ranked.push(UNJUDGED);
    }
    let all = subtopics.offsets[base] as usize..subtopics.offsets[end] as usize;
    let named = local_subtopics(&subtopics.subtopic[all.clone()], subtopics.count, topic);
    topic.width = named.len();
    topic.offsets.clear();
    topic.offsets.extend(
        subtopics.offsets[base..=end]
            .iter()
            .map(|&o| o as usize - all.start),
    );
    topic.subtopic.clear();
    let local_of = &topic.local_of;
    topic.subtopic.extend(
        subtopics.subtopic[all.clone()]
            .iter()
            .map(|&s| local_of[s as usize]),
    );
    topic.grade.clear();
    topic.grade.extend_from_slice(&subtopics.grade[all]);
    topic.named = named;
    for &s in &topic.named {
        topic.local_of[s as usize] = NOT_NAMED;
    }
    topic.docnos.clear();
    topic.docnos.extend_from_range(&qrels.docnos, base..end);
    topic.relevant.take();
}

/// A subtopic the query's judgments do not name (`Topic::local_of`).
const NOT_NAMED: u32 = u32::MAX;

/// The subtopics a query's judgments name (`judged`, numbered in the file), ascending, and
/// each one's number in the query (its place among them) in `topic.local_of` (sized for the
/// file's `count` subtopics; every other entry `NOT_NAMED`, as the caller leaves it again).
fn local_subtopics(judged: &[u32], count: usize, topic: &mut Topic) -> Vec<u32> {
    let local_of = &mut topic.local_of;
    local_of.resize(count, NOT_NAMED);
    let mut named = std::mem::take(&mut topic.named);
    named.clear();
    for &s in judged {
        if local_of[s as usize] == NOT_NAMED {
            local_of[s as usize] = 0;
            named.push(s);
        }
    }
    named.sort_unstable();
    for (i, &s) in named.iter().enumerate() {
        local_of[s as usize] = i as u32;
    }
    named
}

/// Each group's labels of the ranking (-J: without the documents that group does not judge).
fn label_groups(
    q: usize,
    ranked: &[usize],
    stand_in: bool,
    run: &Run,
    groups: &Groups,
    options: &Options,
    out: &mut Related,
) {
    let range = groups.of(q);
    out.groups.resize_with(range.len(), GroupRanking::default);
    let mut labels = Vec::new();
    for (g, gq) in out.groups.iter_mut().zip(range) {
        let docnos = ranked.iter().map(|&row| run.docnos.get(row));
        let stand = stand_in.then_some(STAND_IN);
        label_docnos(docnos.chain(stand), gq, &groups.qrels, &mut labels);
        if options.judged_only {
            only_judged(&labels, &mut g.ranked);
        } else {
            std::mem::swap(&mut g.ranked, &mut labels);
        }
        judged_grades(&groups.qrels, gq, &mut g.judged);
    }
}

/// The preferences of query `q` counted against its ranking, which for preferences breaks
/// score ties by docno ascending (form_prefs_counts.c) before -M.
#[allow(clippy::too_many_arguments)]
fn count_preferences(
    q: usize,
    lines: &[usize],
    stand_in: bool,
    run: &Run,
    qrels: &Qrels,
    prefs: &Preferences,
    options: &Options,
    out: &mut Related,
) -> Result<()> {
    out.prefs = None; // the last query's counts go first: this query's reuse their matrix
    out.rows.clear();
    out.rows.extend_from_slice(lines);
    rank_query_by(&mut out.rows, run, options, Ties::Reversed);
    check_duplicates(&out.rows, run, &mut hashbrown::HashMap::new())?;
    let base = qrels.offsets[q];
    let judged = qrels.offsets[q + 1] - base;
    let mut number = vec![u32::MAX; judged];
    let mut next = 0u32;
    let docnos = out.rows.iter().map(|&row| run.docnos.get(row));
    for docno in docnos.chain(stand_in.then_some(STAND_IN)) {
        if let Some(j) = qrels.judgment(q, docno) {
            number[j - base] = next;
            next += 1;
        }
    }
    let judged_ret = next as usize;
    let mut rest: Vec<usize> = (0..judged).filter(|&d| number[d] == u32::MAX).collect();
    rest.sort_unstable_by(|&a, &b| qrels.docnos.get(base + a).cmp(qrels.docnos.get(base + b)));
    for d in rest {
        number[d] = next;
        next += 1;
    }
    out.lines.clear();
    out.lines
        .extend((prefs.offsets[q]..prefs.offsets[q + 1]).map(|i| Line {
            group: prefs.group[i],
            subgroup: prefs.subgroup[i],
            level: prefs.level[i],
            doc: prefs.doc[i] - base as u32,
            line: prefs.lines[i],
        }));
    let docno = |d: u32| crate::rank::text(qrels.docnos.get(base + d as usize));
    out.prefs = Some(Counts::form(
        &mut out.lines,
        &number,
        judged_ret,
        &docno,
        &qrels.source,
    )?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::{prepare_query, Labeled};
    use crate::rank::Grouping;
    use crate::read::SubtopicRows;

    /// Subtopic qrels of one query (documents d0-d9, some judged for two subtopics, d1 not
    /// judged) and a run of ten documents whose scores tie in runs of one to four.
    fn collection() -> (Qrels, Run) {
        let mut rows = SubtopicRows::new("qrels");
        for (s, d, g) in [
            ("a", 0, 1.0),
            ("b", 0, 0.0),
            ("a", 2, 1.0),
            ("b", 3, 1.0),
            ("a", 4, 0.0),
            ("b", 5, 1.0),
            ("a", 6, 1.0),
            ("b", 6, 1.0),
            ("a", 7, 0.0),
            ("b", 8, 1.0),
            ("a", 9, 1.0),
        ] {
            rows.push(b"q", s.as_bytes(), format!("d{d}").as_bytes(), g)
                .unwrap();
        }
        let scores = [3.0, 2.0, 2.0, 2.0, 2.0, 1.5, 1.0, 1.0, 0.5, 0.5];
        let lines = (0..10).map(|d| {
            (
                b"q".to_vec(),
                format!("d{}", (d * 7) % 10).into_bytes(),
                scores[d],
            )
        });
        let run = Run::from_lines("run", lines, Vec::<Vec<u8>>::new()).unwrap();
        (rows.finish().unwrap(), run)
    }

    #[test]
    fn the_reversed_ranking_taken_from_trec_evals_is_the_one_ranked_anew() {
        let (qrels, run) = collection();
        let Relations::Subtopics(subtopics) = &qrels.relations else {
            unreachable!()
        };
        let grouping = Grouping::new(&run, &qrels);
        let mut taken = 0;
        for ties in [Ties::Docno, Ties::Average, Ties::Input, Ties::Reversed] {
            for max_docs in [
                None,
                Some(1),
                Some(2),
                Some(3),
                Some(5),
                Some(6),
                Some(8),
                Some(9),
            ] {
                let options = Options {
                    ties,
                    max_docs,
                    ..Options::default()
                };
                let mut labeled = Labeled::new(true);
                let cut_tie =
                    prepare_query(0, &grouping, &run, &qrels, &options, &mut labeled).unwrap();
                let ranking = Ranking {
                    ranked: &labeled.rows,
                    labels: &labeled.labels,
                    judgments: &labeled.judgments,
                    lines: grouping.lines(0),
                    stand_in: false,
                    overlap: false,
                    run_order: false,
                    ties_whole: !cut_tie,
                };
                let anew = Ranking {
                    ties_whole: false,
                    judgments: &[],
                    ..ranking
                };
                let (mut from, mut kept, mut ranked, mut none) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                let derived = rank_reversed(&ranking, &run, &options, &mut from, &mut kept);
                assert!(!rank_reversed(
                    &anew,
                    &run,
                    &options,
                    &mut ranked,
                    &mut none
                ));
                assert_eq!(from, ranked, "{ties:?} -M {max_docs:?}");
                let (mut a, mut b) = (Topic::default(), Topic::default());
                join_subtopics(
                    0,
                    &from,
                    derived.then_some(&kept[..]),
                    false,
                    &run,
                    &qrels,
                    subtopics,
                    &mut a,
                );
                join_subtopics(0, &ranked, None, false, &run, &qrels, subtopics, &mut b);
                assert_eq!(a.ranked, b.ranked, "{ties:?} -M {max_docs:?}");
                taken += usize::from(derived);
            }
        }
        // by docno (twice), the whole ranking and -M 1, 5, 6, 8 (between runs): 2 x 5
        assert_eq!(taken, 10);
    }
}
