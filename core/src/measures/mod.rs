//! Stage 4: the measures. Every kernel has the same small interface: one query's labeled
//! ranking in, one value per output line out. They are listed in one table, `KERNELS`, one
//! record per measure with everything any code needs to know about it; the Python registry is
//! read from it (`trecgain._core.kernels()`) and adds only the parsing of parameters.
//!
//! Floating point follows trec_eval: terms added in rank order, divided by the discount
//! (never multiplied by a reciprocal), log2 from the C library, no fused multiply-add.

pub mod ap;
pub mod counts;
pub mod cwl;
pub mod diversity;
pub mod err;
pub mod gain;
pub mod gains;
pub mod irm;
pub mod jg;
pub mod precision;
pub mod prefs;
pub mod rbp;
pub mod relstring;
#[cfg(test)]
mod tests;

use crate::cwl::Rule;
use crate::error::{Error, Result};
use crate::options::{Options, Request, Summary, Ties};

/// One query as every measure sees it.
pub struct Query<'a> {
    /// Relevance value of each ranked document, in rank order: its grade (>= 0) when judged,
    /// `label::NOT_IN_QRELS` (-1) when the qrels do not list it, `label::UNJUDGED` (-2) when
    /// judged negative. After -M, and after -J when the evaluation or the request asks for it.
    pub ranked: &'a [f64],
    /// Grades >= 0 of every document the qrels judge for this query, highest first.
    pub judged: &'a [f64],
    /// A query the run lacks, brought in by -c and ranked as trec_eval 10 ranks it: one
    /// document the qrels do not list ("ceci_nest_pas_un_docno"). trec_eval then resets
    /// num_ret, the default utility and rbp_resid, unj and relstring: those kernels do too.
    pub stand_in: bool,
    /// Its totals at the evaluation's relevance level, when the driver counted them (for the
    /// ranking as the request sees it).
    pub tally: Option<precision::Tally>,
    /// With `--ties average`: per ranked document, its tie group's number (equal numbers are
    /// adjacent); the gain kernels give every document its group's mean gain.
    pub ties: Option<&'a [u32]>,
    /// With `-R qrels_jg`: per judgment group, the ranking labeled by that group alone.
    pub groups: &'a [jg::GroupRanking],
    /// With `-R prefs` or `-R qrels_prefs`: the preferences counted against the ranking.
    pub prefs: Option<&'a prefs::Counts>,
    /// With `-R subtopics`: the query's subtopic judgments and its ranking as pyndeval ranks it.
    pub subtopics: Option<&'a diversity::Topic>,
    /// When a measure reads them (`KernelRecord::overlap`, `KernelRecord::run_order`):
    /// ir_measures' own rankings of the query (what the run's ranking shares with the ideal
    /// ranking, for Compat; the ranking with ties in the run's order, for the C/W/L measures).
    pub rankings: Option<&'a irm::Rankings>,
}

/// What one measuring part keeps across its queries: warnings (each said once), for the
/// caller to show, and the gain tables built so far.
#[derive(Debug, Default)]
pub struct Notes {
    pub warnings: Vec<String>,
    /// Queries where documents of different relevance values tie (trec_eval's tie rule decides).
    pub mixed_tie_queries: usize,
    pub(crate) merge_tables: Vec<std::sync::Arc<gains::MergeTable>>,
}

impl Notes {
    pub fn warn(&mut self, warning: String) {
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }
}

/// Computes one query's values of a request, one per output line, into `out`.
pub type Kernel = fn(&Query, &Request, &Options, &mut Notes, &mut [f64]) -> Result<()>;

/// How many values per query (output slots) a request of a kernel has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slots {
    /// One value.
    One,
    /// One per cutoff.
    PerCutoff,
    /// One per numeric parameter (recall points, R multipliers).
    PerParam,
    /// One per character of relstring.
    Chars,
}

/// How a measure's `-m name.TEXT` parameters are read (the Python side's parser of that kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// None: `name.TEXT` is refused.
    None,
    /// Positive whole cutoffs, sorted, distinct.
    Cutoffs,
    /// Numbers, sorted, distinct, a line each (recall points, R multipliers).
    Points,
    /// Numbers in the order given (11pt_avg's recall points, set_F's beta).
    Numbers,
    /// utility's four coefficients.
    Coefficients,
    /// relstring's number of documents shown.
    Length,
    /// A gain string, `level=gain,...`.
    Gains,
    /// rbp's `p=P` and level=gain pairs.
    Persistence,
    /// Named in ir_measures' spelling only (`alpha_nDCG(alpha=0.3)@10`): its parameters are
    /// the record's `named` ones, sent in the order declared (every one, a default where the
    /// name gives none), after its ir_measures parameters `rel` and `judged_only`.
    Named,
}

/// A parameter of a measure named in ir_measures' spelling (`ParamKind::Named`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NamedParam {
    pub name: &'static str,
    pub kind: ParamType,
    /// Its value when the name does not give it (declared here only); NaN: the name must
    /// give it (required, as ir_measures requires C/W/L's max_rel).
    pub default: f64,
    /// Its least and greatest values.
    pub range: (f64, f64),
    pub help: &'static str,
}

/// What a named parameter holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// Any number in its range.
    Number,
    /// A whole number in its range.
    Whole,
    /// True (1) or False (0).
    Flag,
}

/// How a measure's output lines are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// The name alone.
    Plain,
    /// `name_TEXT` when parameters are given, else the name.
    Params,
    /// `name_K` per cutoff.
    Cutoffs,
    /// `name_%3.2f` per number.
    Points,
    /// One line, named as ir_measures prints the measure (`alpha_nDCG(alpha=0.3)@10`: its
    /// parameters other than their defaults, the cutoff).
    Named,
}

/// What a measure's per-query value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    Float,
    /// A whole number (printed as one).
    Count,
    /// The run's tag (runid).
    Tag,
    /// Characters, a slot each (relstring).
    Chars,
}

/// Which relevance judgments (`-R`) a measure reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relevance {
    /// Any format (runid, num_q).
    Any,
    /// Qrels: one grade per document.
    Grades,
    /// `-R qrels_jg`: judgment groups.
    Groups,
    /// `-R prefs` or `-R qrels_prefs`: preferences.
    Preferences,
    /// `-R subtopics`: judgments per subtopic.
    Subtopics,
}

/// What `trecgain explain` shows a measure as, per rank (the DCG family: core/src/explain.rs;
/// Compat and the diversity measures: core/src/ideal_steps.rs; the preference measures:
/// core/src/pref_steps.rs; the others: core/src/steps.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Explain {
    /// dcg / ideal over the whole ranking (ndcg, ndcg_p): 0 where the ideal is 0.
    Ndcg,
    /// ndcg_cut: where the ideal is 0, the DCG with trec_eval's default gains, else 0.
    NdcgCut,
    /// The DCG (dcg, dcg_cut).
    Dcg,
    /// The ideal DCG (ideal_dcg).
    Ideal,
    /// Cumulative gain, undiscounted (cg_cut).
    Cg,
    /// A count of the retrieved documents of a kind (num_ret, num_rel_ret, num_nonrel_judged_ret).
    Count(Counted),
    /// R, the judged documents at the relevance level (num_rel).
    Relevant,
    /// A ratio of the documents counted in the first k, per cutoff.
    AtCutoff(Ratio),
    /// The precision at each relevant retrieved document, summed, over R.
    Ap(Average),
    /// 1 / the rank of the first relevant document (recip_rank).
    RecipRank,
    /// Precision after R documents.
    Rprec,
    /// Precision after m R documents, per multiplier m.
    RprecMult,
    /// Per relevant retrieved document, the judged nonrelevant above it (bpref; gm_bpref: its log).
    Bpref { geometric: bool },
    /// Inferred AP: per relevant document, its expected precision.
    InfAp,
    /// The best precision where recall reaches each point (iprec_at_recall; 11pt_avg: their mean).
    Interpolated { averaged: bool },
    /// Counts over the whole retrieved set.
    Set(SetRatio),
    /// Per relevant document, 1 / log2(2 + nonrelevant above it), over R.
    BinG,
    /// nDCG at each document with a positive gain, averaged over the ideal positions.
    NdcgRel,
    /// nDCG where the ideal gain changes level, averaged.
    Rndcg,
    /// trec_eval's experimental G: gains over a log2 of the cost so far.
    G,
    /// Gains weighted by p^(rank-1), times 1 - p.
    Rbp,
    /// The weight of the unjudged ranks and of those past the ranking.
    RbpResid,
    /// Stopping probabilities times the chance of reaching the rank, over the rank.
    Err,
    /// The first N relevance values as characters.
    Relstring,
    /// Compat: the overlap of the ranking with the ideal ranking at each depth, weighted by
    /// p^(depth - 1), over the weights, over the ideal's own (core/src/ideal_steps.rs).
    Compat,
    /// A diversity measure (-R subtopics): per rank the document's subtopics, each one's count
    /// so far, the novelty gain, its discount and the running sum, beside ndeval's ideal.
    Intent(Intent),
    /// A measure averaged over judgment groups (-R qrels_jg): the shape's computation on each
    /// group's qrels, added in group order, over the number of groups.
    AvgJg(&'static Explain),
    /// A preference measure (-R prefs, qrels_prefs): the counts of preferences per judgment
    /// group, and how they make the value (core/src/pref_steps.rs).
    Preference(Preference),
    /// Accuracy: per relevant document the nonrelevant ones above it, summed, over N R.
    Accuracy,
    /// A C/W/L measure (cwl_eval's user model `Rule`, ranked with ties in the run's order): per
    /// rank the gain, the chance C(i) of going on, the weight W(i) and the expected utility so
    /// far (core/src/cwl_steps.rs).
    UserModel(Rule),
    /// runid: the run's tag, which the summary line prints (no per-query computation).
    RunTag,
    /// num_q: each evaluated query counts 1; the summary line counts them.
    QueryCount,
}

/// What a preference measure takes of its counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preference {
    /// A count summed over the groups: fulfilled (else possible) preferences of the kinds
    /// counted (`implied`: exactly one document retrieved; `absent`: neither).
    Count {
        fulfilled: bool,
        implied: bool,
        absent: bool,
    },
    /// Fulfilled over possible, summed over the groups (prefs_simp).
    Simple { implied: bool, absent: bool },
    /// Per group fulfilled over possible, averaged (prefs_avgjg).
    PerGroup { implied: bool, absent: bool },
    /// prefs_avgjg with as many nonrelevant documents as relevant ones (`retrieved`: of the
    /// retrieved documents).
    Rnonrel { retrieved: bool },
    /// Per pair of documents the share of groups agreeing, averaged over the pairs of the kinds
    /// counted (prefs_pair).
    Pair { implied: bool, absent: bool },
}

/// The diversity measure an `Explain::Intent` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// ERR-IA@k (nERR-IA@k: over the ideal ranking's).
    ErrIa { normalized: bool },
    /// alpha-DCG@k (alpha-nDCG@k: over the ideal ranking's).
    AlphaDcg { normalized: bool },
    /// NRBP (nNRBP: over the ideal ranking's).
    Nrbp { normalized: bool },
    /// MAP-IA: per subtopic its average precision, averaged.
    ApIa,
    /// P-IA@k: relevant (document, subtopic) pairs in the first k.
    PIa,
    /// StRecall@k: the subtopics covered in the first k.
    StRecall,
}

/// Which retrieved documents a count counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    Retrieved,
    /// At the relevance level, as trec_eval's loops test it (rel >= -l).
    Relevant,
    /// Judged at the relevance level (grade >= 0 and >= -l: num_rel_ret's count).
    RelevantJudged,
    /// Judged below the relevance level.
    JudgedNonrelevant,
    /// Not in the qrels, or judged negative.
    Unjudged,
    /// In the qrels, whatever the grade.
    Listed,
}

/// The ratio a cutoff measure takes of the first k documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ratio {
    /// Relevant over k (P).
    Precision,
    /// Relevant over R (recall).
    Recall,
    /// Relevant over min(k, R) (relative_P).
    RelativePrecision,
    /// 1 if any is relevant (success).
    Success,
    /// Unjudged over k (unj).
    Unjudged,
    /// In the qrels over min(k, retrieved) (judged).
    Judged,
}

/// How average precision's sum of precisions becomes the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Average {
    /// Over R (map).
    Whole,
    /// The first k documents' sum over R, per cutoff (map_cut).
    Cut,
    /// ln(max(AP, 0.00001)) (gm_map).
    Geometric,
    /// ln((1 + S) / (1 + R - S)) (yaap).
    Yaap,
}

/// The set measure's formula over retrieved, R and relevant retrieved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetRatio {
    Precision,
    Recall,
    RelativePrecision,
    Map,
    F,
    Utility,
}

impl Explain {
    /// The shape's name (`trecgain._core.kernels()`'s `explain`).
    pub fn name(self) -> &'static str {
        match self {
            Explain::Ndcg => "Ndcg",
            Explain::NdcgCut => "NdcgCut",
            Explain::Dcg => "Dcg",
            Explain::Ideal => "Ideal",
            Explain::Cg => "Cg",
            Explain::Count(_) => "Count",
            Explain::Relevant => "Relevant",
            Explain::AtCutoff(_) => "AtCutoff",
            Explain::Ap(_) => "Ap",
            Explain::RecipRank => "RecipRank",
            Explain::Rprec => "Rprec",
            Explain::RprecMult => "RprecMult",
            Explain::Bpref { .. } => "Bpref",
            Explain::InfAp => "InfAp",
            Explain::Interpolated { .. } => "Interpolated",
            Explain::Set(_) => "Set",
            Explain::BinG => "BinG",
            Explain::NdcgRel => "NdcgRel",
            Explain::Rndcg => "Rndcg",
            Explain::G => "G",
            Explain::Rbp => "Rbp",
            Explain::RbpResid => "RbpResid",
            Explain::Err => "Err",
            Explain::Relstring => "Relstring",
            Explain::Compat => "Compat",
            Explain::Intent(_) => "Intent",
            Explain::AvgJg(_) => "AvgJg",
            Explain::Preference(_) => "Preference",
            Explain::Accuracy => "Accuracy",
            Explain::UserModel(_) => "UserModel",
            Explain::RunTag => "RunTag",
            Explain::QueryCount => "QueryCount",
        }
    }

    /// Whether it lays the computation out rank by rank (runid and num_q rank nothing).
    pub fn per_rank(self) -> bool {
        !matches!(self, Explain::RunTag | Explain::QueryCount)
    }

    /// Whether it is one of the DCG family's shapes (rows with the ideal ranking beside).
    pub fn is_dcg(self) -> bool {
        matches!(
            self,
            Explain::Ndcg | Explain::NdcgCut | Explain::Dcg | Explain::Ideal | Explain::Cg
        )
    }
}

/// The parameters a request without any gets: declared once, here. The kernels whose
/// requests may come without numbers (relstring, utility, 11pt_avg, set_F, rbp) read these;
/// the Python side reads them from the records (`_core.kernels()`) for help, line names and
/// the cutoffs it sends.
pub mod defaults {
    /// trec_eval's cutoffs of P, recall, ndcg_cut, ...
    pub const CUTOFFS: [usize; 9] = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
    /// iprec_at_recall's and 11pt_avg's recall points.
    pub const RECALL_POINTS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
    /// Rprec_mult's multipliers of R.
    pub const R_MULTIPLIERS: [f64; 10] = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];
    /// utility's coefficients a, b, c, d.
    pub const UTILITY: [f64; 4] = [1.0, -1.0, 0.0, 0.0];
    /// relstring's number of documents shown.
    pub const RELSTRING_LENGTH: f64 = 10.0;
    /// set_F's beta.
    pub const SET_F_BETA: f64 = 1.0;
    /// rbp's persistence p.
    pub const RBP_P: f64 = 0.9;
}

/// One measure: its kernel and everything the code needs to know about it, anywhere (the
/// driver, explain, and through `trecgain._core.kernels()` every list the Python side
/// derives: help, completion, compare's lists, explain's, the tie rule's).
pub struct KernelRecord {
    pub name: &'static str,
    pub compute: Kernel,
    /// What `trecgain -h -m NAME` says it computes.
    pub help: &'static str,
    pub params: ParamKind,
    pub naming: Naming,
    pub value: Value,
    /// How its per-query values make the `all` line.
    pub summary: Summary,
    /// Printed per query with -q.
    pub per_query: bool,
    /// trec_eval 9.x has the measure: under `--compat 9` it follows 9.x's rules (the queries
    /// -c brings in are not evaluated, 9.x's recall points); a measure new in 10.0 follows
    /// 10.0's on float32 scores, whatever else is measured beside it.
    pub in_trec_eval_9: bool,
    /// False for trecgain's own measures.
    pub in_trec_eval: bool,
    /// `--ties average` is defined for it: sums of gains (the expected value over every
    /// ordering of a tie is the sum with each tied document given the group's mean gain) and
    /// the counts no ordering changes.
    pub tie_average: bool,
    /// Its gains come from the gain table: --global-gains (unless the request has its own
    /// gains), compare's gain schemes and --exact-ideal change it.
    pub gains: bool,
    /// It divides by the discount: --discount changes it (G and binG keep their own log2).
    pub discounted: bool,
    /// It adds gains in rank order: --ties average changes its value.
    pub rank_order: bool,
    /// A lower value is the better one (compare's bold and markers follow).
    pub lower_is_better: bool,
    /// How `trecgain explain` shows it (None: explain does not).
    pub explain: Option<Explain>,
    /// Its ir_measures spellings (`nDCG@k`: with a cutoff), if any.
    pub ir_measures: &'static [&'static str],
    /// The parameters its ir_measures spellings accept (`nDCG(dcg='exp-log2')`), a cutoff aside.
    pub ir_params: &'static [&'static str],
    /// The cutoffs of a request without any (cutoff measures).
    pub default_cutoffs: &'static [usize],
    /// The numbers of a request without any (points, coefficients, beta, length, p).
    pub default_numbers: &'static [f64],
    /// The relevance judgments it reads.
    pub relevance: Relevance,
    /// `ParamKind::Named`: its parameters, in the order their values are sent.
    pub named: &'static [NamedParam],
    /// The greatest cutoff it is defined at (0: any).
    pub max_cutoff: usize,
    /// It reads what the run's ranking shares with the ideal ranking (`Query::overlap`,
    /// joined per query in stage 3).
    pub overlap: bool,
    /// Its own tie rule, whatever --ties says (None: the evaluation's): its `Query::ranked`
    /// is the ranking in that order, after -M and -J, and empty for a query the run lacks
    /// (no -c stand-in).
    pub ties: Option<Ties>,
    /// It reads the ranking with equal scores in the run's order (`Rankings::run_order`,
    /// ranked per query in stage 3).
    pub run_order: bool,
    /// Its relevance level (-l, or the request's rel) must be 0 or more: it reads grades below
    /// the level by their value, and trecgain reads documents judged below 0 as unjudged.
    pub level_from_zero: bool,
}

impl KernelRecord {
    /// How its requests' values are laid out.
    pub fn slots(&self) -> Slots {
        match (self.naming, self.value) {
            (_, Value::Chars) => Slots::Chars,
            (Naming::Cutoffs, _) => Slots::PerCutoff,
            (Naming::Points, _) => Slots::PerParam,
            _ => Slots::One,
        }
    }

    /// How many values per query a request of this kernel has.
    pub fn lines(&self, request: &Request) -> usize {
        match self.slots() {
            Slots::One => 1,
            Slots::PerCutoff => request.cutoffs.len().max(1),
            Slots::PerParam => request.params.len().max(1),
            Slots::Chars => relstring::length(request),
        }
    }
}

/// A request's numbers, or its measure's defaults when it has none (a measure named plainly:
/// trec_eval tells that apart from one given its default parameters, so the Python side sends
/// none).
pub(crate) fn numbers_or<'r>(request: &'r Request, defaults: &'r [f64]) -> &'r [f64] {
    if request.params.is_empty() {
        defaults
    } else {
        &request.params
    }
}

/// Every measure, in trec_eval's output order (the order lines are printed in).
pub static KERNELS: &[KernelRecord] = &[
    KernelRecord {
        value: Value::Tag,
        summary: Summary::Tag,
        per_query: false,
        tie_average: true,
        relevance: Relevance::Any,
        explain: Some(Explain::RunTag),
        ..record(
            "runid",
            counts::runid,
            "Run id: the tag of the last run line read.",
        )
    },
    KernelRecord {
        value: Value::Count,
        summary: Summary::Count,
        per_query: false,
        tie_average: true,
        ir_measures: &["NumQ"],
        relevance: Relevance::Any,
        explain: Some(Explain::QueryCount),
        ..record(
            "num_q",
            counts::num_q,
            "Number of queries evaluated.",
        )
    },
    KernelRecord {
        value: Value::Count,
        summary: Summary::Sum,
        tie_average: true,
        ir_measures: &["NumRet"],
        ir_params: &["rel"],
        explain: Some(Explain::Count(Counted::Retrieved)),
        ..record(
            "num_ret",
            counts::num_ret,
            "Number of documents retrieved (after -M and -J); the summary is the sum.",
        )
    },
    KernelRecord {
        value: Value::Count,
        summary: Summary::SumJudgedRelevant,
        tie_average: true,
        ir_measures: &["NumRel"],
        ir_params: &["rel"],
        explain: Some(Explain::Relevant),
        ..record(
            "num_rel",
            counts::num_rel,
            "Number of judged documents with grade >= -l; the summary is the sum (with -c: every judgment with grade > 0, as trec_eval counts).",
        )
    },
    KernelRecord {
        value: Value::Count,
        summary: Summary::Sum,
        tie_average: true,
        ir_measures: &["NumRelRet"],
        ir_params: &["rel"],
        explain: Some(Explain::Count(Counted::RelevantJudged)),
        ..record(
            "num_rel_ret",
            counts::num_rel_ret,
            "Number of retrieved documents with grade >= -l; the summary is the sum.",
        )
    },
    KernelRecord {
        ir_measures: &["AP"],
        ir_params: &["judged_only", "rel"],
        explain: Some(Explain::Ap(Average::Whole)),
        ..record(
            "map",
            ap::map,
            "Mean average precision: precision at each relevant retrieved document, summed, over the number of relevant documents.",
        )
    },
    KernelRecord {
        summary: Summary::GeometricMean,
        per_query: false,
        explain: Some(Explain::Ap(Average::Geometric)),
        ..record(
            "gm_map",
            ap::gm_map,
            "Geometric mean of average precision (each AP floored at 0.00001); printed only in the summary.",
        )
    },
    KernelRecord {
        ir_measures: &["Rprec"],
        ir_params: &["judged_only", "rel"],
        explain: Some(Explain::Rprec),
        ..record(
            "Rprec",
            ap::rprec,
            "Precision after R documents, R the number of relevant documents.",
        )
    },
    KernelRecord {
        ir_measures: &["Bpref"],
        ir_params: &["rel"],
        explain: Some(Explain::Bpref { geometric: false }),
        ..record(
            "bpref",
            ap::bpref,
            "Binary preference: for each relevant retrieved document, 1 - (judged nonrelevant above it, at most R) / min(R, judged nonrelevant); over R. Unjudged documents are ignored.",
        )
    },
    KernelRecord {
        ir_measures: &["RR@k", "RR"],
        ir_params: &["judged_only", "rel"],
        explain: Some(Explain::RecipRank),
        ..record(
            "recip_rank",
            ap::recip_rank,
            "Reciprocal rank of the first relevant document (MRR: -M 10 for MRR@10).",
        )
    },
    KernelRecord {
        params: ParamKind::Points,
        naming: Naming::Points,
        ir_measures: &["IPrec@k", "IPrec"],
        ir_params: &["judged_only", "recall", "rel"],
        default_numbers: &defaults::RECALL_POINTS,
        explain: Some(Explain::Interpolated { averaged: false }),
        ..record(
            "iprec_at_recall",
            ap::iprec_at_recall,
            "Interpolated precision at recall points: -m iprec_at_recall.0.1,0.5 (default 0.00, 0.10, ..., 1.00).",
        )
    },
    KernelRecord {
        ir_measures: &["P@k"],
        ir_params: &["judged_only", "rel"],
        explain: Some(Explain::AtCutoff(Ratio::Precision)),
        ..at(
            "P",
            precision::p,
            "Precision at cutoffs: relevant in the first k over k: -m P.5,10.",
            &defaults::CUTOFFS,
        )
    },
    KernelRecord {
        params: ParamKind::Length,
        naming: Naming::Params,
        value: Value::Chars,
        summary: Summary::None,
        default_numbers: &[defaults::RELSTRING_LENGTH],
        explain: Some(Explain::Relstring),
        ..record(
            "relstring",
            relstring::relstring,
            "The relevance of the first N documents as characters (0-9, '>' above 9, '-' not in the qrels, '.' judged negative): -m relstring.20 (default 10); per query only.",
        )
    },
    KernelRecord {
        ir_measures: &["R@k"],
        ir_params: &["judged_only", "rel"],
        explain: Some(Explain::AtCutoff(Ratio::Recall)),
        ..at(
            "recall",
            precision::recall,
            "Recall at cutoffs: relevant in the first k over all relevant: -m recall.1000.",
            &defaults::CUTOFFS,
        )
    },
    KernelRecord {
        ir_measures: &["infAP"],
        ir_params: &["rel"],
        explain: Some(Explain::InfAp),
        ..record(
            "infAP",
            ap::infap,
            "Inferred AP (Yilmaz and Aslam): documents judged negative are pooled but unjudged, documents the qrels lack are not pooled.",
        )
    },
    KernelRecord {
        summary: Summary::GeometricMean,
        per_query: false,
        explain: Some(Explain::Bpref { geometric: true }),
        ..record(
            "gm_bpref",
            ap::gm_bpref,
            "Geometric mean of bpref (floored at 0.00001); printed only in the summary.",
        )
    },
    KernelRecord {
        params: ParamKind::Points,
        naming: Naming::Points,
        default_numbers: &defaults::R_MULTIPLIERS,
        explain: Some(Explain::RprecMult),
        ..record(
            "Rprec_mult",
            ap::rprec_mult,
            "Precision at rank m*R for multipliers m: -m Rprec_mult.0.5,1,2 (default 0.20, 0.40, ..., 2.00).",
        )
    },
    KernelRecord {
        params: ParamKind::Coefficients,
        naming: Naming::Params,
        default_numbers: &defaults::UTILITY,
        explain: Some(Explain::Set(SetRatio::Utility)),
        ..record(
            "utility",
            precision::utility,
            "a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret: -m utility.1,-1,0,0 (the default); d needs -N, the collection size.",
        )
    },
    KernelRecord {
        params: ParamKind::Numbers,
        naming: Naming::Params,
        default_numbers: &defaults::RECALL_POINTS,
        explain: Some(Explain::Interpolated { averaged: true }),
        ..record(
            "11pt_avg",
            ap::eleven_point,
            "Interpolated precision averaged over the recall points 0.0, 0.1, ..., 1.0 (or -m 11pt_avg.0.25,0.5,0.75).",
        )
    },
    KernelRecord {
        explain: Some(Explain::BinG),
        ..record(
            "binG",
            gain::bin_g,
            "Binary G: 1/log2(2 + nonrelevant before it) averaged over the relevant documents.",
        )
    },
    KernelRecord {
        params: ParamKind::Gains,
        naming: Naming::Params,
        gains: true,
        explain: Some(Explain::G),
        ..record(
            "G",
            gain::gain_g,
            "Normalised gain with a cost model (trec_eval's experimental G). Gains per level can be given as 'level=gain,...' (default: gain = grade).",
        )
    },
    KernelRecord {
        params: ParamKind::Gains,
        naming: Naming::Params,
        in_trec_eval_9: false,
        tie_average: true,
        gains: true,
        discounted: true,
        rank_order: true,
        explain: Some(Explain::Dcg),
        ir_measures: &["DCG"],
        ir_params: &["dcg", "gains", "judged_only"],
        ..record(
            "dcg",
            gain::dcg,
            "Discounted cumulative gain over the whole ranking. Gains per level can be given as 'level=gain,...' (default: gain = grade).",
        )
    },
    KernelRecord {
        params: ParamKind::Gains,
        naming: Naming::Params,
        in_trec_eval_9: false,
        tie_average: true,
        gains: true,
        discounted: true,
        explain: Some(Explain::Ideal),
        ..record(
            "ideal_dcg",
            gain::ideal_dcg,
            "DCG of the ideal ranking of all judged documents. Gains per level can be given as 'level=gain,...' (default: gain = grade).",
        )
    },
    KernelRecord {
        params: ParamKind::Gains,
        naming: Naming::Params,
        tie_average: true,
        gains: true,
        discounted: true,
        rank_order: true,
        explain: Some(Explain::Ndcg),
        ir_measures: &["nDCG"],
        ir_params: &["dcg", "gains", "judged_only"],
        ..record(
            "ndcg",
            gain::ndcg,
            "Normalised DCG over the whole ranking (Jarvelin and Kekalainen). Gains per level can be given as 'level=gain,...' (default: gain = grade).",
        )
    },
    KernelRecord {
        params: ParamKind::Gains,
        naming: Naming::Params,
        gains: true,
        discounted: true,
        explain: Some(Explain::NdcgRel),
        ..record(
            "ndcg_rel",
            gain::ndcg_rel,
            "nDCG averaged over the relevant documents. Gains per level can be given as 'level=gain,...' (default: gain = grade).",
        )
    },
    KernelRecord {
        params: ParamKind::Gains,
        naming: Naming::Params,
        gains: true,
        discounted: true,
        explain: Some(Explain::Rndcg),
        ..record(
            "Rndcg",
            gain::rndcg,
            "nDCG averaged where the ideal gain changes level. Gains per level can be given as 'level=gain,...' (default: gain = grade).",
        )
    },
    KernelRecord {
        tie_average: true,
        gains: true,
        discounted: true,
        rank_order: true,
        explain: Some(Explain::NdcgCut),
        ir_measures: &["nDCG@k"],
        ir_params: &["dcg", "gains", "judged_only"],
        ..at(
            "ndcg_cut",
            gain::ndcg_cut,
            "nDCG at cutoffs, grades as gains: -m ndcg_cut.5,10.",
            &defaults::CUTOFFS,
        )
    },
    KernelRecord {
        ir_measures: &["AP@k"],
        ir_params: &["judged_only", "rel"],
        explain: Some(Explain::Ap(Average::Cut)),
        ..at(
            "map_cut",
            ap::map_cut,
            "Average precision of the first k documents (over all relevant): -m map_cut.10.",
            &defaults::CUTOFFS,
        )
    },
    KernelRecord {
        explain: Some(Explain::AtCutoff(Ratio::RelativePrecision)),
        ..at(
            "relative_P",
            precision::relative_p,
            "Precision at k relative to the best possible: relevant in the first k over min(k, R).",
            &defaults::CUTOFFS,
        )
    },
    KernelRecord {
        ir_measures: &["Success@k"],
        ir_params: &["judged_only", "rel"],
        explain: Some(Explain::AtCutoff(Ratio::Success)),
        ..at(
            "success",
            precision::success,
            "1 if a relevant document is in the first k: -m success.1,5,10 (the default).",
            &[1,5,10],
        )
    },
    KernelRecord {
        ir_measures: &["SetP"],
        ir_params: &["judged_only", "rel", "relative"],
        explain: Some(Explain::Set(SetRatio::Precision)),
        ..record(
            "set_P",
            precision::set_p,
            "Precision of the whole retrieved set.",
        )
    },
    KernelRecord {
        ir_measures: &["SetRelP"],
        ir_params: &["judged_only", "rel", "relative"],
        explain: Some(Explain::Set(SetRatio::RelativePrecision)),
        ..record(
            "set_relative_P",
            precision::set_relative_p,
            "Relevant retrieved over min(retrieved, R).",
        )
    },
    KernelRecord {
        ir_measures: &["SetR"],
        ir_params: &["rel"],
        explain: Some(Explain::Set(SetRatio::Recall)),
        ..record(
            "set_recall",
            precision::set_recall,
            "Recall of the whole retrieved set.",
        )
    },
    KernelRecord {
        ir_measures: &["SetAP"],
        ir_params: &["judged_only", "rel"],
        explain: Some(Explain::Set(SetRatio::Map)),
        ..record(
            "set_map",
            precision::set_map,
            "set_P times set_recall.",
        )
    },
    KernelRecord {
        params: ParamKind::Numbers,
        naming: Naming::Params,
        ir_measures: &["SetF"],
        ir_params: &["beta", "judged_only", "rel"],
        default_numbers: &[defaults::SET_F_BETA],
        explain: Some(Explain::Set(SetRatio::F)),
        ..record(
            "set_F",
            precision::set_f,
            "F measure of the retrieved set: (beta + 1) P R / (beta P + R), -m set_F.0.5 (default beta 1).",
        )
    },
    KernelRecord {
        value: Value::Count,
        summary: Summary::Sum,
        explain: Some(Explain::Count(Counted::JudgedNonrelevant)),
        ..record(
            "num_nonrel_judged_ret",
            precision::num_nonrel_judged_ret,
            "Retrieved documents judged nonrelevant (grade below -l); the summary is the sum.",
        )
    },
    pref_count(
        "prefs_num_prefs_poss",
        prefs::num_prefs_poss,
        "Preferences possible (-R prefs or qrels_prefs): every judged preference A > B, whether A, B, both or neither is retrieved; the summary is the sum.",
    Preference::Count { fulfilled: false, implied: true, absent: true },
    ),
    pref_count(
        "prefs_num_prefs_ful",
        prefs::num_prefs_ful,
        "Preferences fulfilled: A ranked above B, or A retrieved and B not; the summary is the sum.",
    Preference::Count { fulfilled: true, implied: true, absent: true },
    ),
    pref_count(
        "prefs_num_prefs_ful_ret",
        prefs::num_prefs_ful_ret,
        "Preferences fulfilled with A and B both retrieved; the summary is the sum.",
    Preference::Count { fulfilled: true, implied: false, absent: false },
    ),
    pref(
        "prefs_simp",
        prefs::simp,
        "Preferences fulfilled over preferences possible (a pair of which neither is retrieved counts as not fulfilled).",
    Preference::Simple { implied: true, absent: true },
    ),
    pref(
        "prefs_pair",
        prefs::pair,
        "Per pair of documents some judgment group orders, the share of those groups the ranking agrees with, averaged over the pairs.",
    Preference::Pair { implied: true, absent: true },
    ),
    pref(
        "prefs_avgjg",
        prefs::avgjg,
        "prefs_simp per judgment group, averaged over the groups.",
    Preference::PerGroup { implied: true, absent: true },
    ),
    pref(
        "prefs_avgjg_Rnonrel",
        prefs::avgjg_rnonrel,
        "prefs_avgjg with each group's nonrelevant documents (level 0) made as many as its relevant ones.",
    Preference::Rnonrel { retrieved: false },
    ),
    pref(
        "prefs_simp_ret",
        prefs::simp_ret,
        "prefs_simp over the pairs of retrieved documents only.",
    Preference::Simple { implied: false, absent: false },
    ),
    pref(
        "prefs_pair_ret",
        prefs::pair_ret,
        "prefs_pair over the pairs of retrieved documents only.",
    Preference::Pair { implied: false, absent: false },
    ),
    pref(
        "prefs_avgjg_ret",
        prefs::avgjg_ret,
        "prefs_avgjg over the pairs of retrieved documents only.",
    Preference::PerGroup { implied: false, absent: false },
    ),
    pref(
        "prefs_avgjg_Rnonrel_ret",
        prefs::avgjg_rnonrel_ret,
        "prefs_avgjg_Rnonrel over the retrieved documents only.",
    Preference::Rnonrel { retrieved: true },
    ),
    pref(
        "prefs_simp_imp",
        prefs::simp_imp,
        "prefs_simp without the pairs of which neither document is retrieved.",
    Preference::Simple { implied: true, absent: false },
    ),
    pref(
        "prefs_pair_imp",
        prefs::pair_imp,
        "prefs_pair without the pairs of which neither document is retrieved.",
    Preference::Pair { implied: true, absent: false },
    ),
    pref(
        "prefs_avgjg_imp",
        prefs::avgjg_imp,
        "prefs_avgjg without the pairs of which neither document is retrieved.",
    Preference::PerGroup { implied: true, absent: false },
    ),
    KernelRecord {
        relevance: Relevance::Groups,
        explain: Some(Explain::AvgJg(&Explain::Ap(Average::Whole))),
        ..record(
            "map_avgjg",
            jg::map_avgjg,
            "map on each judgment group's qrels (-R qrels_jg), averaged over the groups.",
        )
    },
    KernelRecord {
        relevance: Relevance::Groups,
        explain: Some(Explain::AvgJg(&Explain::AtCutoff(Ratio::Precision))),
        ..at(
            "P_avgjg",
            jg::p_avgjg,
            "P at cutoffs on each judgment group's qrels (-R qrels_jg), averaged over the groups: -m P_avgjg.5,10.",
            &defaults::CUTOFFS,
        )
    },
    KernelRecord {
        params: ParamKind::Points,
        naming: Naming::Points,
        default_numbers: &defaults::R_MULTIPLIERS,
        relevance: Relevance::Groups,
        explain: Some(Explain::AvgJg(&Explain::RprecMult)),
        ..record(
            "Rprec_mult_avgjg",
            jg::rprec_mult_avgjg,
            "Rprec_mult on each judgment group's qrels (-R qrels_jg), averaged over the groups: -m Rprec_mult_avgjg.0.5,1,2.",
        )
    },
    KernelRecord {
        explain: Some(Explain::Ap(Average::Yaap)),
        ..record(
            "yaap",
            jg::yaap,
            "Yet another AP (Robertson): ln((1 + S) / (1 + R - S)), S the sum of precision at each relevant retrieved document.",
        )
    },
    KernelRecord {
        params: ParamKind::Persistence,
        naming: Naming::Params,
        in_trec_eval_9: false,
        gains: true,
        ir_measures: &["RBP@k", "RBP"],
        ir_params: &["p", "rel"],
        default_numbers: &[defaults::RBP_P],
        explain: Some(Explain::Rbp),
        ..record(
            "rbp",
            rbp::rbp,
            "Rank-biased precision (Moffat and Zobel): (1 - p) sum of gain(i) p^(i-1), gains scaled into [0, 1]: -m rbp.p=0.8 (default p 0.9), gains as 'level=gain'.",
        )
    },
    KernelRecord {
        params: ParamKind::Persistence,
        naming: Naming::Params,
        in_trec_eval_9: false,
        default_numbers: &[defaults::RBP_P],
        explain: Some(Explain::RbpResid),
        ..record(
            "rbp_resid",
            rbp::rbp_resid,
            "RBP's residual: how much RBP could grow were every unjudged retrieved document relevant: -m rbp_resid.p=0.8.",
        )
    },
    KernelRecord {
        in_trec_eval_9: false,
        lower_is_better: true,
        explain: Some(Explain::AtCutoff(Ratio::Unjudged)),
        ..at(
            "unj",
            precision::unj,
            "Fraction of the first k documents that are unjudged (not in the qrels, or judged negative): -m unj.5,10,20 (the default).",
            &[5,10,20],
        )
    },
    KernelRecord {
        in_trec_eval: false,
        ir_measures: &["ERR@k"],
        ir_params: &["judged_only"],
        explain: Some(Explain::Err),
        ..at(
            "err_cut",
            err::err_cut,
            "Expected reciprocal rank at cutoffs as gdeval.pl computes it, r = (2^grade - 1) / 2^max (max grade 4, --err-max-grade): -m err_cut.10,20 (not in trec_eval).",
            &[5,10,20],
        )
    },
    KernelRecord {
        in_trec_eval: false,
        tie_average: true,
        discounted: true,
        rank_order: true,
        explain: Some(Explain::Ndcg),
        ..record(
            "ndcg_p",
            gain::ndcg_p,
            "nDCG over the whole ranking with exponential gains 2^grade - 1 (not in trec_eval).",
        )
    },
    KernelRecord {
        in_trec_eval: false,
        tie_average: true,
        gains: true,
        rank_order: true,
        explain: Some(Explain::Cg),
        ..at(
            "cg_cut",
            gain::cg_cut,
            "Cumulative gain at cutoffs, undiscounted: -m cg_cut.5,10 (not in trec_eval; gains from --global-gains).",
            &defaults::CUTOFFS,
        )
    },
    KernelRecord {
        in_trec_eval: false,
        ir_measures: &["Judged@k"],
        explain: Some(Explain::AtCutoff(Ratio::Judged)),
        ..at(
            "judged",
            precision::judged,
            "Fraction of the first min(k, retrieved) documents that the qrels list, whatever the grade (ir_measures' Judged@k; not in trec_eval).",
            &[10],
        )
    },
    KernelRecord {
        in_trec_eval: false,
        tie_average: true,
        gains: true,
        discounted: true,
        rank_order: true,
        explain: Some(Explain::Dcg),
        ir_measures: &["DCG@k"],
        ir_params: &["dcg", "gains", "judged_only"],
        ..at(
            "dcg_cut",
            gain::dcg_cut,
            "DCG at cutoffs (ranx's and scikit-learn's DCG@k; not in trec_eval; gains from --global-gains).",
            &defaults::CUTOFFS,
        )
    },
    diverse(
        "ERR-IA",
        diversity::err_ia_k,
        "Intent-aware expected reciprocal rank (ndeval): per rank the novelty gain (each subtopic's gain 1, times 1 - alpha per earlier document relevant to it) over the rank, summed to k and, from k = 2, over the same sum with every subtopic covered at every rank.",
        &["ERR_IA@k"],
        &[ALPHA],
        Intent::ErrIa { normalized: false },
    ),
    diverse(
        "nERR-IA",
        diversity::nerr_ia_k,
        "ERR-IA@k over the ERR-IA@k of ndeval's greedy ideal ranking of the judged documents (0 where the run's alpha-DCG@k is 0).",
        &["nERR_IA@k"],
        &[ALPHA],
        Intent::ErrIa { normalized: true },
    ),
    diverse(
        "alpha-DCG",
        diversity::alpha_dcg,
        "alpha-DCG@k (ndeval): novelty gains times ln 2 / ln(rank + 1), summed to k and, from k = 2, over the same sum with every subtopic covered at every rank.",
        &["alpha_DCG@k"],
        &[ALPHA],
        Intent::AlphaDcg { normalized: false },
    ),
    diverse(
        "alpha-nDCG",
        diversity::alpha_ndcg,
        "alpha-nDCG@k: alpha-DCG@k over that of ndeval's greedy ideal ranking (0 where alpha-DCG@k is 0).",
        &["alpha_nDCG@k"],
        &[ALPHA],
        Intent::AlphaDcg { normalized: true },
    ),
    KernelRecord {
        max_cutoff: 0,
        ir_params: &["rel"],
        ..diverse(
            "NRBP",
            diversity::nrbp_all,
            "Novelty- and rank-biased precision (ndeval): novelty gains times beta^(rank - 1) over the whole ranking, times (1 - (1 - alpha) beta) over the number of subtopics.",
            &["NRBP"],
            &[ALPHA, BETA],
        Intent::Nrbp { normalized: false },
        )
    },
    KernelRecord {
        max_cutoff: 0,
        ir_params: &["rel"],
        ..diverse(
            "nNRBP",
            diversity::nnrbp_all,
            "NRBP over the NRBP of ndeval's greedy ideal ranking (0 where that is 0: no document relevant, or alpha 0 with beta 1; ndeval divides 0 by 0 there).",
            &["nNRBP"],
            &[ALPHA, BETA],
        Intent::Nrbp { normalized: true },
        )
    },
    KernelRecord {
        max_cutoff: 0,
        ..diverse(
            "MAP-IA",
            diversity::ap_ia,
            "Intent-aware average precision (ndeval): the average precision of the ranking judged by each subtopic alone, averaged over the subtopics.",
            &["AP_IA", "MAP_IA"],
            &[],
        Intent::ApIa,
        )
    },
    diverse(
        "P-IA",
        diversity::p_ia,
        "Intent-aware precision at k (ndeval): relevant (document, subtopic) pairs in the first k over k times the number of subtopics.",
        &["P_IA@k"],
        &[],
        Intent::PIa,
    ),
    KernelRecord {
        ir_params: &["rel"],
        ..diverse(
            "strec",
            diversity::st_recall,
            "Subtopic recall at k (ndeval): the subtopics some document of the first k is relevant to, over the number of subtopics.",
            &["StRecall@k"],
            &[],
        Intent::StRecall,
        )
    },
    KernelRecord {
        params: ParamKind::Named,
        naming: Naming::Named,
        in_trec_eval_9: false,
        in_trec_eval: false,
        rank_order: true,
        ir_measures: &["Compat"],
        named: &[PERSISTENCE, NORMALIZE],
        overlap: true,
        explain: Some(Explain::Compat),
        ..record(
            "Compat",
            irm::compat,
            "Compatibility (Clarke, Vtyurina and Smucker; ir_measures' compat provider): the rank-biased overlap of the ranking (ties by docno ascending) with the ideal ranking of the documents judged above 0 (by grade, then the run's score, then qrels order), to the longer one's depth; normalized by the ideal's overlap with itself.",
        )
    },
    KernelRecord {
        params: ParamKind::Named,
        naming: Naming::Named,
        summary: Summary::MeanOfDefined,
        in_trec_eval_9: false,
        in_trec_eval: false,
        rank_order: true,
        ir_measures: &["Accuracy@k", "Accuracy"],
        ir_params: &["rel"],
        ties: Some(Ties::Input),
        level_from_zero: true,
        explain: Some(Explain::Accuracy),
        ..record(
            "Accuracy",
            irm::accuracy,
            "Accuracy (ir_measures' accuracy provider): the share of (relevant, nonrelevant) pairs of the ranking (ties in the run's own order, cut at k when given) in which the relevant document comes first; a document the qrels lack has grade 0. A query with no relevant document in the cut ranking, or missing from the run, has no value and is left out of the mean; one with no nonrelevant document gets 1 (the provider fails with ZeroDivisionError there).",
        )
    },
    user_model(
        "INST",
        cwl::inst,
        Rule::Inst,
        "INST (Bailey, Moffat, Scholer, Thomas; cwl_eval's INSTCWLMetric through ir_measures' cwl_eval provider): expected utility per item of a user who goes on from rank i with ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - gain so far.",
        &["INST"],
        &[GOAL, MIN_REL, MAX_REL],
    ),
    user_model(
        "INSQ",
        cwl::insq,
        Rule::Insq,
        "INSQ (Moffat, Scholer, Thomas; cwl_eval's INSQCWLMetric through ir_measures' cwl_eval provider): expected utility per item of a user who goes on from rank i with ((i + 2T - 1) / (i + 2T))^2.",
        &["INSQ"],
        &[GOAL, MIN_REL, MAX_REL],
    ),
    user_model(
        "BPM",
        cwl::bpm,
        Rule::BpmStatic,
        "Bejeweled Player Model, static (Zhang et al.; cwl_eval's BPMCWLMetric(T, k) through ir_measures' cwl_eval provider): expected utility per item of a user who reads on until the gain so far reaches T or k documents are read.",
        &["BPM@k"],
        &[GOAL, MIN_REL, MAX_REL],
    ),
    user_model(
        "SDCG",
        cwl::sdcg,
        Rule::Ndcg,
        "Scaled DCG@k (cwl_eval's NDCGCWLMetric(k) through ir_measures' cwl_eval provider): DCG@k's discount 1/log2(i+1) over its sum to k, as weights of the gains (no ideal ranking).",
        &["SDCG@k"],
        &[MIN_REL, MAX_REL],
    ),
    user_model(
        "NERR8",
        cwl::nerr8,
        Rule::Nerr8,
        "Not (but nearly) ERR, Eq. 8 (Azzopardi, Mackenzie, Moffat; cwl_eval's NERReq8CWLMetric(k) through ir_measures' cwl_eval provider): the user stops at a document with its gain as chance, and at rank k.",
        &["NERR8@k"],
        &[MIN_REL, MAX_REL],
    ),
    user_model(
        "NERR9",
        cwl::nerr9,
        Rule::Nerr9,
        "Not (but nearly) ERR, Eq. 9 (cwl_eval's NERReq9CWLMetric(k) through ir_measures' cwl_eval provider): as NERR8, the chance of going on also times i / (i + 1).",
        &["NERR9@k"],
        &[MIN_REL, MAX_REL],
    ),
    user_model(
        "NERR10",
        cwl::nerr10,
        Rule::Nerr10,
        "Not (but nearly) ERR, Eq. 10 (cwl_eval's NERReq10CWLMetric(p) through ir_measures' cwl_eval provider): the user goes on with p (1 - gain).",
        &["NERR10"],
        &[PATIENCE, MIN_REL, MAX_REL],
    ),
    user_model(
        "RBP",
        cwl::rbp,
        Rule::Rbp,
        "Rank-biased precision as ir_measures computes RBP(rel=...) (cwl_eval's RBPCWLMetric(p) through its cwl_eval provider): gain 1 for a grade of at least rel, else 0, weighted p^(i-1) over their sum to rank 1000; without rel, RBP(p=...) is rbp.",
        &["RBP"],
        &[PERSISTENCE_RBP, REL],
    ),
    user_model(
        "NERR11",
        cwl::nerr11,
        Rule::Nerr11,
        "Not (but nearly) ERR, Eq. 11 (cwl_eval's NERReq11CWLMetric(T) through ir_measures' cwl_eval provider): the user goes on with INSQ's ((i + 2T - 1) / (i + 2T))^2 times (1 - gain).",
        &["NERR11"],
        &[GOAL, MIN_REL, MAX_REL],
    ),
];

/// A record with the common facts: one float line, plain name, no parameters, the mean, in
/// trec_eval 9 and 10, changed by no option.
const fn record(name: &'static str, compute: Kernel, help: &'static str) -> KernelRecord {
    KernelRecord {
        name,
        compute,
        help,
        params: ParamKind::None,
        naming: Naming::Plain,
        value: Value::Float,
        summary: Summary::Mean,
        per_query: true,
        in_trec_eval_9: true,
        in_trec_eval: true,
        tie_average: false,
        gains: false,
        discounted: false,
        rank_order: false,
        lower_is_better: false,
        explain: None,
        ir_measures: &[],
        ir_params: &[],
        default_cutoffs: &[],
        default_numbers: &[],
        relevance: Relevance::Grades,
        named: &[],
        max_cutoff: 0,
        overlap: false,
        ties: None,
        run_order: false,
        level_from_zero: false,
    }
}

/// Compat's persistence (RBO's p).
const PERSISTENCE: NamedParam = NamedParam {
    name: "p",
    kind: ParamType::Number,
    default: 0.95,
    range: (0.0, 1.0),
    help: "persistence: the overlap at depth d has weight p^(d - 1)",
};
/// Compat's normalization.
const NORMALIZE: NamedParam = NamedParam {
    name: "normalize",
    kind: ParamType::Flag,
    default: 1.0,
    range: (0.0, 1.0),
    help: "True: divide by the ideal ranking's overlap with itself (for a finite ideal ranking)",
};
/// ndeval's alpha (redundancy intolerance).
const ALPHA: NamedParam = NamedParam {
    name: "alpha",
    kind: ParamType::Number,
    default: 0.5,
    range: (0.0, 1.0),
    help: "redundancy intolerance: a subtopic's gain is multiplied by 1 - alpha at each document relevant to it",
};
/// ndeval's beta (patience).
const BETA: NamedParam = NamedParam {
    name: "beta",
    kind: ParamType::Number,
    default: 0.5,
    range: (0.0, 1.0),
    help: "patience: NRBP's discount per rank",
};

/// The C/W/L measures' goal T: the total gain the user wants (gains are scaled into [0, 1]).
const GOAL: NamedParam = NamedParam {
    name: "T",
    kind: ParamType::Number,
    default: 1.0,
    range: (0.0, f64::INFINITY),
    help: "total desired gain (gains scaled into [0, 1])",
};
/// ir_measures' RBP persistence.
const PERSISTENCE_RBP: NamedParam = NamedParam {
    name: "p",
    kind: ParamType::Number,
    default: 0.8,
    range: (0.0, 1.0),
    help: "persistence: the weight of rank i is p^(i-1)",
};
/// ir_measures' RBP relevance level (required: without it, RBP(p=...) is trecgain's rbp).
const REL: NamedParam = NamedParam {
    name: "rel",
    kind: ParamType::Whole,
    default: f64::NAN,
    range: (-2147483648.0, 2147483647.0),
    help: "grade from which a document has gain 1 (negative grades read as 0 first)",
};
/// NERR10's persistence.
const PATIENCE: NamedParam = NamedParam {
    name: "p",
    kind: ParamType::Number,
    default: 0.9,
    range: (0.0, 1.0),
    help: "persistence: the chance of going on past a document of gain 0",
};
/// The grade read as gain 0 (grades below it too: negative grades count as 0 first).
const MIN_REL: NamedParam = NamedParam {
    name: "min_rel",
    kind: ParamType::Whole,
    default: 0.0,
    range: (-2147483648.0, 2147483646.0),
    help: "grade with gain 0 (grades clipped into min_rel..max_rel, negative ones read as 0 first)",
};
/// The grade read as gain 1 (required, as ir_measures requires it: NaN marks that).
const MAX_REL: NamedParam = NamedParam {
    name: "max_rel",
    kind: ParamType::Whole,
    default: f64::NAN,
    range: (-2147483648.0, 2147483647.0),
    help: "grade with gain 1: gain = (grade - min_rel) / (max_rel - min_rel)",
};

/// A C/W/L measure's record, named as ir_measures names it (its cwl_eval provider's): one
/// line, its named parameters (min_rel and max_rel last), the ranking in the run's order;
/// `rule`: the cwl_eval user model its kernel computes, which explain shows.
const fn user_model(
    name: &'static str,
    compute: Kernel,
    rule: Rule,
    help: &'static str,
    ir_measures: &'static [&'static str],
    named: &'static [NamedParam],
) -> KernelRecord {
    KernelRecord {
        params: ParamKind::Named,
        naming: Naming::Named,
        in_trec_eval_9: false,
        in_trec_eval: false,
        rank_order: true,
        ir_measures,
        named,
        run_order: true,
        explain: Some(Explain::UserModel(rule)),
        ..record(name, compute, help)
    }
}

/// A diversity measure's record (`-R subtopics`), named as ir_measures names it: one line,
/// its named parameters, a cutoff up to ndeval's depth when `cutoff`.
const fn diverse(
    name: &'static str,
    compute: Kernel,
    help: &'static str,
    ir_measures: &'static [&'static str],
    named: &'static [NamedParam],
    intent: Intent,
) -> KernelRecord {
    KernelRecord {
        explain: Some(Explain::Intent(intent)),
        params: ParamKind::Named,
        naming: Naming::Named,
        in_trec_eval_9: false,
        in_trec_eval: false,
        rank_order: true,
        ir_measures,
        ir_params: &["rel", "judged_only"],
        relevance: Relevance::Subtopics,
        named,
        max_cutoff: diversity::DEPTH,
        ..record(name, compute, help)
    }
}

/// A preference measure's record (`-R prefs`, `-R qrels_prefs`).
const fn pref(
    name: &'static str,
    compute: Kernel,
    help: &'static str,
    explain: Preference,
) -> KernelRecord {
    KernelRecord {
        relevance: Relevance::Preferences,
        explain: Some(Explain::Preference(explain)),
        ..record(name, compute, help)
    }
}

/// A preference count's record: a whole number per query, summed.
const fn pref_count(
    name: &'static str,
    compute: Kernel,
    help: &'static str,
    explain: Preference,
) -> KernelRecord {
    KernelRecord {
        value: Value::Count,
        summary: Summary::Sum,
        ..pref(name, compute, help, explain)
    }
}

/// A cutoff measure's record: `name.5,10` gives its cutoffs (default `cutoffs`), one line each.
const fn at(
    name: &'static str,
    compute: Kernel,
    help: &'static str,
    cutoffs: &'static [usize],
) -> KernelRecord {
    KernelRecord {
        params: ParamKind::Cutoffs,
        naming: Naming::Cutoffs,
        default_cutoffs: cutoffs,
        ..record(name, compute, help)
    }
}

/// Writes a one-line measure's value.
pub(crate) fn single(out: &mut [f64], value: f64) {
    debug_assert_eq!(out.len(), 1);
    if let Some(slot) = out.first_mut() {
        *slot = value;
    }
}

/// The cutoffs of a cutoff measure's request: at least one, ascending, distinct (the kernels
/// walk the ranking once, from one cutoff to the next).
pub(crate) fn cutoffs_of<'r>(request: &'r Request, out: &[f64]) -> Result<&'r [usize]> {
    let cutoffs = &request.cutoffs;
    if cutoffs.is_empty() || !cutoffs.windows(2).all(|w| w[0] < w[1]) {
        return Err(Error::new(format!(
            "measure '{}': cutoffs must be ascending and distinct, at least one (got {:?})",
            request.kernel, cutoffs
        )));
    }
    debug_assert_eq!(out.len(), cutoffs.len());
    Ok(cutoffs)
}

pub fn kernel(name: &str) -> Option<&'static KernelRecord> {
    KERNELS.iter().find(|k| k.name == name)
}
