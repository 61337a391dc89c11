//! Everything an evaluation obeys, as plain frozen values: the run-wide options (trec_eval's
//! `-l -J -M -c`, `--compat`, the gain scheme and discount) and the measure requests.
//! The Python side parses measure strings and options into these; the core never parses them.

/// trec_eval release whose numerics are reproduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compat {
    /// trec_eval 10.0: scores are doubles.
    Ten,
    /// trec_eval 9.x (pytrec_eval, Anserini): scores are rounded to f32 before ranking.
    Nine,
}

/// Logarithm base of a discount.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Base {
    Two,
    E,
    Ten,
    /// Any other base above 1: ln(x) / ln(b).
    Other(f64),
}

impl Base {
    /// log_base(x), with the C library's log2 / log / log10 for the named bases.
    pub fn log(self, x: f64) -> f64 {
        match self {
            Base::Two => x.log2(),
            Base::E => x.ln(),
            Base::Ten => x.log10(),
            Base::Other(b) => x.ln() / b.ln(),
        }
    }

    pub fn value(self) -> f64 {
        match self {
            Base::Two => 2.0,
            Base::E => std::f64::consts::E,
            Base::Ten => 10.0,
            Base::Other(b) => b,
        }
    }
}

/// The rank discount of the DCG family: gains are divided by `divisor(position)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Discount {
    /// 1 / log_B(rank + 1); `Log(Base::Two)` is trec_eval's.
    Log(Base),
    /// Jarvelin and Kekalainen's original: no discount before rank B, then 1 / log_B(rank).
    Jk(Base),
}

impl Discount {
    pub const TREC_EVAL: Discount = Discount::Log(Base::Two);

    /// Divisor of the gain at 0-based `position` (rank = position + 1).
    pub fn divisor(self, position: usize) -> f64 {
        let rank = (position + 1) as f64;
        match self {
            Discount::Log(b) => b.log(rank + 1.0),
            Discount::Jk(b) => {
                if rank < b.value() {
                    1.0
                } else {
                    b.log(rank)
                }
            }
        }
    }
}

/// How levels not named in a gain string get their gain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// gain = grade (trec_eval's).
    Linear,
    /// gain = 2^grade - 1.
    Exp,
    /// gain = 1 if grade >= the relevance level, else 0.
    Binary,
}

/// One `level=gain` pair of a gain string; `level` is None for a name that is not an
/// integer (trec_eval 10 ignores it; compat 9 has already read it as atol would).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GainPair {
    pub level: Option<i64>,
    pub gain: f64,
}

/// Gains per relevance level: pairs over a scheme for the levels not named.
#[derive(Debug, Clone, PartialEq)]
pub struct GainSpec {
    /// The text it was parsed from, for messages (`1=3.5,2=9`, `exp`).
    pub text: String,
    pub pairs: Vec<GainPair>,
    pub scheme: Scheme,
    /// Sort the gain table by value, not with trec_eval's int-truncating comparator.
    pub exact_ideal: bool,
}

impl GainSpec {
    /// trec_eval's default table: gain = grade, no pairs.
    pub fn linear() -> Self {
        GainSpec {
            text: String::new(),
            pairs: Vec::new(),
            scheme: Scheme::Linear,
            exact_ideal: false,
        }
    }

    /// The design notes' exponential gains, 2^grade - 1 (ndcg_p).
    pub fn exponential() -> Self {
        GainSpec {
            text: "exp".into(),
            pairs: Vec::new(),
            scheme: Scheme::Exp,
            exact_ideal: false,
        }
    }
}

/// How a line's per-query values become its `all` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summary {
    /// Sum in query order, then divide by the number of queries.
    Mean,
    /// The mean over the queries that have a value (a NaN per-query value is none: the query
    /// is left out of the sum and of the count, as ir_measures leaves out a query its
    /// accuracy provider gives no value); NaN when no query has one (ir_measures' mean of
    /// nothing). -c does not change it: a query the run lacks has no value either.
    MeanOfDefined,
    /// Sum (num_ret, num_rel_ret).
    Sum,
    /// Sum; with -c, every judgment of the qrels with grade > 0 (trec_eval's num_rel with -c).
    SumJudgedRelevant,
    /// The number of queries (num_q).
    Count,
    /// The run tag (runid): no number.
    Tag,
    /// exp of the mean of the per-query values, which are logs (gm_map, gm_bpref); in 9.x the
    /// queries only -c brings in add log(MIN_GEO_MEAN) each, after the others.
    GeometricMean,
    /// No `all` line (relstring).
    None,
}

/// One measure to compute: which kernel, with which parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Kernel name in `measures::KERNELS` (`ndcg_cut`, `G`, ...).
    pub kernel: String,
    /// Cutoffs of a cutoff measure, ascending, positive, distinct (empty otherwise).
    pub cutoffs: Vec<usize>,
    /// Numeric parameters of the other measures: recall points, R multipliers, utility's
    /// coefficients, set_F's beta, rbp's p, relstring's length (empty: the kernel's defaults).
    pub params: Vec<f64>,
    /// The measure's own gains (a gain string or ir_measures' gains=); None: the global ones.
    pub gains: Option<GainSpec>,
    /// This measure alone drops the documents the qrels do not judge (ir_measures' judged_only).
    pub judged_only: bool,
    /// This measure's own relevance level, in place of -l (ir_measures' rel=).
    pub relevance_level: Option<f64>,
    pub summary: Summary,
    /// The names of its output lines, as printed (for -Z; empty when not given).
    pub lines: Vec<String>,
}

/// How documents with equal scores are ordered (`--ties`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ties {
    /// trec_eval's rule: score descending, then docno descending (byte order).
    #[default]
    Docno,
    /// The run's rank column ascending, then docno descending (the score is not used).
    Rank,
    /// trec_eval's order, and each document of a tie group gets the group's mean gain: the
    /// expected value over every ordering of the tie (the gain kernels that support it).
    Average,
    /// Score descending, then docno ascending: the other way round, used to tell whether
    /// ties decided a value (and ir_measures' RR@k, its msmarco provider's order).
    Reversed,
    /// Score descending, then the run's own order (a stable sort by score: BEIR's MRR@k, whose
    /// ties keep the order of the caller's dict).
    Input,
}

/// Which documents a query's ideal ranking (and its count of relevant documents) is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ideal {
    /// Every judged document of the query, retrieved or not (trec_eval's).
    #[default]
    Judged,
    /// Only the documents the run ranked for the query, with their grades (sklearn's
    /// `ndcg_score`, whose ideal is the row's own labels sorted).
    Ranking,
}

/// What a query with nothing relevant (no document at the relevance level among those the
/// ideal is built from: judged, or ranked under `Ideal::Ranking`) is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NoRelevant {
    /// Its measures' own values, 0 for the measures of `--as` (trec_eval's).
    #[default]
    Zero,
    /// 1 for every measure (torchmetrics' `empty_target_action="pos"`).
    One,
    /// Not evaluated: no values, left out of the mean (gdeval.pl; torchmetrics' "skip").
    Skip,
    /// An error naming the query (torchmetrics' "error").
    Error,
}

/// What average precision is divided by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApDivisor {
    /// The query's relevant documents (trec_eval's num_rel).
    #[default]
    Relevant,
    /// The relevant documents ranked within the cutoff (torchmetrics').
    Found,
}

/// The run-wide options of one evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `-l`: a grade >= this is relevant.
    pub relevance_level: f64,
    /// `-J`: drop documents the qrels do not judge (or judge negative), then close up the ranks.
    pub judged_only: bool,
    /// `-M`: evaluate the first M documents of each ranking.
    pub max_docs: Option<usize>,
    /// `-c`: evaluate every qrels query; one the run lacks has an empty ranking.
    pub complete: bool,
    /// With `complete`, evaluate even when no query is in both files (trec_eval 10).
    pub empty_ok: bool,
    /// How scores are read: doubles (10) or rounded to f32 (9).
    pub compat: Compat,
    pub discount: Discount,
    /// `--global-gains`: gains for every gain measure without its own.
    pub global_gains: Option<GainSpec>,
    /// `--exact-ideal`.
    pub exact_ideal: bool,
    /// `--err-max-grade` (gdeval's 4).
    pub err_max_grade: u32,
    /// `-N`: documents in the collection (utility's fourth coefficient counts the rest).
    pub num_docs: i64,
    /// `--ties`.
    pub ties: Ties,
    /// `-R`: the relevance format the qrels were read as.
    pub rel_format: crate::read::RelFormat,
    /// `-Z`: the means and deviations that turn each query's values into z-scores.
    pub zscores: Option<std::sync::Arc<crate::zscores::ZScores>>,
    /// `-D 0.QID`: evaluate this query only.
    pub only_query: Option<Vec<u8>>,
    /// `--as`: drop a ranked document whose docno is the query's id (BEIR's
    /// `ignore_identical_ids`), before ranking and -M.
    pub drop_self: bool,
    /// `--as`: the documents the ideal ranking and the relevant count come from.
    pub ideal: Ideal,
    /// `--as`: judgments below the relevance level are dropped, so they add no gain to a gain
    /// measure either (ranx's `clean_qrels`; trec_eval's nDCG ignores -l).
    pub level_gains: bool,
    /// `--as`: what a query with nothing relevant is given (`NoRelevant`).
    pub no_relevant: NoRelevant,
    /// `--as`: a document whose score (f32 with compat 9) is not positive is not relevant to
    /// the measures that count relevant documents (torchmetrics'); its gain is kept.
    pub positive_scores: bool,
    /// `--as`: what average precision is divided by.
    pub ap_divisor: ApDivisor,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            relevance_level: 1.0,
            judged_only: false,
            max_docs: None,
            complete: false,
            empty_ok: false,
            compat: Compat::Ten,
            discount: Discount::TREC_EVAL,
            global_gains: None,
            exact_ideal: false,
            err_max_grade: 4,
            num_docs: 0,
            ties: Ties::Docno,
            rel_format: crate::read::RelFormat::Qrels,
            zscores: None,
            only_query: None,
            drop_self: false,
            ideal: Ideal::Judged,
            level_gains: false,
            no_relevant: NoRelevant::Zero,
            positive_scores: false,
            ap_divisor: ApDivisor::Relevant,
        }
    }
}
