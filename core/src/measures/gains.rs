//! Gain tables and ideal rankings, one query at a time, exactly as trec_eval builds them.
//!
//! trec_eval (gain_init.c) makes a table of `(level, gain, documents at that level)`: the
//! pairs of the gain string in the order given, then every level 0..num_rel_levels-1 not
//! named, with gain = level. It sorts the table with glibc's merge sort and a comparator
//! that truncates the difference of two gains to int, so gains closer than 1 compare equal.
//! A ranked document gets the gain of the first entry of its level in sorted order; the
//! documents of a level are held by its first entry in the unsorted table; the ideal ranking
//! walks the sorted table from the top, skipping entries without documents, and stops at
//! the first entry whose gain is <= 0. It is not started at all unless the top entry's gain
//! (the "gate") is positive.
//!
//! With whole-number gains (or `--exact-ideal`) that comparator is a consistent order and
//! the merge sort is a stable sort by gain, so no entry per level is ever built: a grade of
//! 2,000,000,000 costs nothing. Fractional gains take the real merge sort, on the whole table.
//!
//! Fractional grades (a query with a judged grade that is not an integer, or above 2^53) have no levels:
//! the gain is the grade (linear), 2^grade - 1 (exp) or grade >= -l (binary), and the ideal
//! ranking is the judged documents in grade order, down to the last positive gain.

use std::cmp::Ordering;
use std::sync::Arc;

use super::{Notes, Query};
use crate::error::{Error, Result};
use crate::options::{GainPair, GainSpec, Options, Scheme};

/// The largest grade that is a level (every integer up to it is a double).
pub(crate) const MAX_LEVEL: f64 = 9007199254740992.0;
/// The largest gain in magnitude: a sum of fewer than 10^8 such gains stays finite.
pub const MAX_GAIN: f64 = 1e300;
/// 2^grade - 1 stays within MAX_GAIN up to this grade.
pub const MAX_EXP_GRADE: f64 = 996.0;
/// trec_eval sorts its gain table comparing `(int)(a - b)`: undefined for gains this far apart.
pub const MAX_GAIN_SPREAD: f64 = 2147483648.0;
/// Levels of the largest table built entry by entry (fractional gains only).
pub const MAX_LEVELS_FRACTIONAL: i64 = 100_000;

/// The gains a measure uses, borrowed from its `GainSpec` (or trec_eval's default table).
#[derive(Debug, Clone, Copy)]
pub struct GainRule<'a> {
    /// The text of the spec, for messages.
    pub text: &'a str,
    pub pairs: &'a [GainPair],
    pub scheme: Scheme,
    pub exact_ideal: bool,
}

impl<'a> GainRule<'a> {
    /// trec_eval's table: gain = grade.
    pub const TREC_EVAL: GainRule<'static> = GainRule {
        text: "",
        pairs: &[],
        scheme: Scheme::Linear,
        exact_ideal: false,
    };

    pub fn of(spec: &'a GainSpec) -> Self {
        GainRule {
            text: &spec.text,
            pairs: &spec.pairs,
            scheme: spec.scheme,
            exact_ideal: spec.exact_ideal,
        }
    }

    /// A measure's own gains, else the global ones, else trec_eval's; `--exact-ideal`
    /// applies to any of them.
    pub fn resolve(own: Option<&'a GainSpec>, options: &'a Options) -> Self {
        let mut rule = own
            .or(options.global_gains.as_ref())
            .map_or(GainRule::TREC_EVAL, GainRule::of);
        rule.exact_ideal |= options.exact_ideal;
        rule
    }

    /// Whether nothing changes trec_eval's default table (no gains, no `--exact-ideal`).
    pub fn is_default(own: Option<&GainSpec>, options: &Options) -> bool {
        own.is_none() && options.global_gains.is_none() && !options.exact_ideal
    }
}

/// The gain a scheme gives a grade >= 0 (fractional or not).
pub fn scheme_gain(scheme: Scheme, grade: f64, relevance_level: f64) -> f64 {
    match scheme {
        Scheme::Linear => grade,
        Scheme::Exp => grade.exp2() - 1.0,
        Scheme::Binary => {
            if grade >= relevance_level {
                1.0
            } else {
                0.0
            }
        }
    }
}

#[derive(Debug)]
enum Levels {
    /// Integer grades: levels 0..num_levels-1 exist; `listed` gives the gain a ranked
    /// document of each level named in the gain string gets.
    Table {
        num_levels: i64,
        listed: Vec<(i64, f64)>,
    },
    /// Fractional grades: the gain is the scheme's function of the grade.
    Fractional,
}

/// One query's gains as a measure sees them.
#[derive(Debug)]
pub struct Gains {
    levels: Levels,
    scheme: Scheme,
    relevance_level: f64,
    /// Gain of the sorted table's top entry: no ideal ranking unless it is > 0.
    pub gate: f64,
    /// The gain the ideal walk ends on (<= 0; 0 when it runs off the table).
    pub stop: f64,
    /// The ideal ranking: runs of positions with the same gain (> 0), top first.
    ideal: Vec<Row>,
}

/// One level that has judged documents (on its way into the ideal ranking), or a run of
/// ideal positions with the same gain.
#[derive(Debug, Clone, Copy)]
struct Row {
    gain: f64,
    /// The grade of its documents (explain's ideal grade column).
    grade: f64,
    /// Where its holder sits: position in the unsorted table (stable sort) or in the
    /// merge-sorted table.
    order: i64,
    count: usize,
}

impl Gains {
    pub fn new(
        query: &Query,
        rule: &GainRule,
        relevance_level: f64,
        notes: &mut Notes,
    ) -> Result<Gains> {
        // grades beyond 2^53 (only with --fractional-grades) name no level either
        if query
            .judged
            .iter()
            .any(|g| g.fract() != 0.0 || *g > MAX_LEVEL)
        {
            return Gains::fractional(query, rule, relevance_level);
        }
        let num_levels = query.judged.first().map_or(0, |&top| top as i64 + 1);
        if rule.scheme == Scheme::Exp {
            let in_table = query
                .ranked
                .iter()
                .copied()
                .filter(|&v| v >= 0.0 && v <= (num_levels - 1) as f64);
            refuse_exp(in_table.fold(f64::NEG_INFINITY, f64::max))?;
        }
        let listed: Vec<(i64, f64)> = rule
            .pairs
            .iter()
            .filter_map(|p| p.level.map(|l| (l, p.gain)))
            .collect();
        // a gain string's table (the default table, gain = level, is in order whatever its size)
        if !rule.exact_ideal && !listed.is_empty() {
            refuse_wide_table(rule, &listed, num_levels, relevance_level)?;
        }
        let mut gains = Gains {
            levels: Levels::Table {
                num_levels,
                listed: Vec::new(),
            },
            scheme: rule.scheme,
            relevance_level,
            gate: 0.0,
            stop: 0.0,
            ideal: Vec::new(),
        };
        let rows = if rule.exact_ideal || listed.iter().all(|&(_, g)| g.fract() == 0.0) {
            gains.ordered_table(query, &listed, num_levels)?
        } else {
            gains.merge_sorted_table(query, rule, &listed, num_levels, notes)?
        };
        gains.walk(rows);
        Ok(gains)
    }

    /// A consistent order (whole-number gains, or `--exact-ideal`): glibc's merge sort is then
    /// a stable sort by gain, and the unnamed levels, whose gain never decreases with the
    /// level, need no entries of their own.
    fn ordered_table(
        &mut self,
        query: &Query,
        listed: &[(i64, f64)],
        num_levels: i64,
    ) -> Result<Vec<Row>> {
        // The gain a ranked document gets: its level's first entry in sorted order, the
        // smallest gain among the pairs naming it.
        let mut ranked: Vec<(i64, f64)> = Vec::with_capacity(listed.len());
        for &(level, gain) in listed {
            match ranked.iter_mut().find(|(l, _)| *l == level) {
                Some(entry) => entry.1 = entry.1.min(gain),
                None => ranked.push((level, gain)),
            }
        }
        let mut unlisted_top = num_levels - 1;
        while unlisted_top >= 0 && listed.iter().any(|&(l, _)| l == unlisted_top) {
            unlisted_top -= 1;
        }
        let mut gate: Option<f64> = None;
        for &(_, gain) in listed {
            gate = Some(gate.map_or(gain, |g: f64| g.max(gain)));
        }
        if unlisted_top >= 0 {
            if self.scheme == Scheme::Exp {
                refuse_exp(unlisted_top as f64)?;
            }
            let top = scheme_gain(self.scheme, unlisted_top as f64, self.relevance_level);
            gate = Some(gate.map_or(top, |g| g.max(top)));
        }
        self.gate = gate.unwrap_or(0.0);
        if self.scheme == Scheme::Exp {
            refuse_exp(query.judged.first().copied().unwrap_or(0.0))?;
        }
        let mut rows = Vec::new();
        for (grade, count) in levels_of(query.judged) {
            let level = grade as i64;
            let row = match listed.iter().position(|&(l, _)| l == level) {
                Some(i) => Row {
                    gain: listed[i].1,
                    grade,
                    order: i as i64,
                    count,
                },
                None => Row {
                    gain: scheme_gain(self.scheme, grade, self.relevance_level),
                    grade,
                    order: (listed.len() as i64).saturating_add(level),
                    count,
                },
            };
            rows.push(row);
        }
        if !listed.is_empty() {
            // highest (gain, table position) first; without pairs the grades already are
            rows.sort_by(|a, b| {
                b.gain
                    .partial_cmp(&a.gain)
                    .unwrap_or(Ordering::Equal)
                    .then(b.order.cmp(&a.order))
            });
        }
        self.levels = Levels::Table {
            num_levels,
            listed: ranked,
        };
        Ok(rows)
    }

    /// Fractional gains: the whole table, sorted as glibc's qsort (a merge sort) sorts it.
    fn merge_sorted_table(
        &mut self,
        query: &Query,
        rule: &GainRule,
        listed: &[(i64, f64)],
        num_levels: i64,
        notes: &mut Notes,
    ) -> Result<Vec<Row>> {
        if num_levels > MAX_LEVELS_FRACTIONAL {
            return Err(Error::new(format!(
                "fractional gains '{}' with grades up to {}: trecgain builds such tables only up to grade {}",
                rule.text,
                num_levels - 1,
                MAX_LEVELS_FRACTIONAL - 1
            )));
        }
        if self.scheme == Scheme::Exp {
            refuse_exp(query.judged.first().copied().unwrap_or(0.0))?;
        }
        let table = MergeTable::cached(
            &mut notes.merge_tables,
            listed,
            self.scheme,
            self.relevance_level,
            num_levels,
        );
        if let Some(w) = &table.warning {
            if !notes.warnings.contains(w) {
                notes.warn(w.clone());
            }
        }
        self.gate = table.gate;
        let mut rows = Vec::new();
        for (grade, count) in levels_of(query.judged) {
            let (gain, position) = table.holder[grade as usize];
            rows.push(Row {
                gain,
                grade,
                order: position as i64,
                count,
            });
        }
        rows.sort_by_key(|r| std::cmp::Reverse(r.order));
        self.levels = Levels::Table {
            num_levels,
            listed: table.ranked.clone(),
        };
        Ok(rows)
    }

    fn fractional(query: &Query, rule: &GainRule, relevance_level: f64) -> Result<Gains> {
        if !rule.pairs.is_empty() {
            return Err(Error::new(format!(
                "gains '{}' name levels, which fractional grades do not have; use --global-gains linear, exp or \
                 binary",
                rule.text
            )));
        }
        if rule.scheme == Scheme::Exp {
            refuse_exp(query.ranked.iter().fold(0.0, |m: f64, &v| m.max(v)))?;
            refuse_exp(query.judged.first().copied().unwrap_or(0.0))?;
        }
        let top = query.judged.first().copied().unwrap_or(0.0);
        if rule.scheme == Scheme::Linear && top > MAX_GAIN {
            return Err(Error::about_grade(
                format!(
                    "grade {} is too large to be a gain: gains are at most {} (a sum of larger ones overflows)",
                    format_g(top),
                    format_g(MAX_GAIN)
                ),
                top,
            ));
        }
        let gain = |g: f64| scheme_gain(rule.scheme, g, relevance_level);
        let mut ideal: Vec<Row> = Vec::new();
        for &grade in query.judged {
            let g = gain(grade);
            if g <= 0.0 {
                break; // grades descend, and so do the gains
            }
            match ideal.last_mut() {
                Some(run) if run.grade == grade => run.count += 1,
                _ => ideal.push(Row {
                    gain: g,
                    grade,
                    order: 0,
                    count: 1,
                }),
            }
        }
        Ok(Gains {
            levels: Levels::Fractional,
            scheme: rule.scheme,
            relevance_level,
            gate: query.judged.first().map_or(0.0, |&g| gain(g)),
            stop: 0.0,
            ideal,
        })
    }

    /// The ideal ranking: levels from the top of the sorted table until one whose gain is
    /// <= 0, only if the table's top gain is positive.
    fn walk(&mut self, mut rows: Vec<Row>) {
        let end = rows.iter().position(|r| r.gain <= 0.0);
        self.stop = end.map_or(0.0, |e| rows[e].gain);
        if self.gate <= 0.0 {
            rows.clear();
        } else if let Some(e) = end {
            rows.truncate(e);
        }
        // (levels of equal gain stay apart: the grades are explain's; the gains are the same)
        rows.dedup_by(|later, earlier| {
            let same = later.gain == earlier.gain && later.grade == earlier.grade;
            if same {
                earlier.count += later.count;
            }
            same
        });
        self.ideal = rows;
    }

    /// The gain of a ranked document with this relevance value (-1 and -2 included: a gain
    /// string may name those levels, as trec_eval's lookup allows).
    #[inline]
    pub fn ranked(&self, value: f64) -> f64 {
        match &self.levels {
            Levels::Table { num_levels, listed } => {
                for &(level, gain) in listed {
                    if value == level as f64 {
                        return gain;
                    }
                }
                // the top level, not num_levels, as a double: 2^53 + 1 is not one (it rounds
                // to 2^53, which would leave a grade of 2^53 out of its own table)
                if value >= 0.0 && value <= (*num_levels - 1) as f64 {
                    scheme_gain(self.scheme, value, self.relevance_level)
                } else {
                    0.0
                }
            }
            Levels::Fractional => {
                if value >= 0.0 {
                    scheme_gain(self.scheme, value, self.relevance_level)
                } else {
                    0.0
                }
            }
        }
    }

    /// The gain at each position of the ideal ranking, top first.
    pub fn ideal(&self) -> impl Iterator<Item = f64> + '_ {
        self.ideal
            .iter()
            .flat_map(|r| std::iter::repeat_n(r.gain, r.count))
    }

    /// The grade and the gain at each position of the ideal ranking, top first (explain).
    pub fn ideal_grades(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.ideal
            .iter()
            .flat_map(|r| std::iter::repeat_n((r.grade, r.gain), r.count))
    }

    /// Positions of the ideal ranking.
    pub fn num_ideal(&self) -> usize {
        self.ideal.iter().map(|r| r.count).sum()
    }
}

/// Each distinct grade of a descending list, with how many documents have it.
fn levels_of(judged: &[f64]) -> impl Iterator<Item = (f64, usize)> + '_ {
    judged.chunk_by(|a, b| a == b).map(|c| (c[0], c.len()))
}

fn refuse_exp(grade: f64) -> Result<()> {
    if grade > MAX_EXP_GRADE {
        return Err(Error::about_grade(
            format!(
                "grade {} is too large for exponential gains: above grade {} sums of 2^grade - 1 overflow",
                format_g(grade),
                MAX_EXP_GRADE
            ),
            grade,
        ));
    }
    Ok(())
}

/// Refuses a gain table whose gains are 2^31 or more apart: trec_eval's comparator then
/// overflows an int, and its ideal ranking (what it prints) depends on the build. The
/// table: every level a pair names, and levels 0 up to the top judged grade with the
/// scheme's gains (which never decrease with the level).
fn refuse_wide_table(
    rule: &GainRule,
    listed: &[(i64, f64)],
    num_levels: i64,
    relevance_level: f64,
) -> Result<()> {
    let (min, max) = table_extremes(rule.scheme, listed, num_levels, relevance_level);
    if max - min >= MAX_GAIN_SPREAD {
        return Err(Error::new(format!(
            "gains from {} to {} are 2^31 or more apart: trec_eval compares gains as ints and \
             its ideal ranking is then undefined; add --exact-ideal to sort them by value",
            format_g(min),
            format_g(max)
        )));
    }
    Ok(())
}

/// The smallest and largest gain of trec_eval's table for a query of `num_levels` levels:
/// every level a pair names (`listed`), and the levels 0..num_levels no pair names, whose
/// scheme gains never decrease with the level (so the lowest and highest of them suffice;
/// few levels are named, so both searches stop soon however many levels there are).
/// (inf, -inf) for an empty table.
pub(crate) fn table_extremes(
    scheme: Scheme,
    listed: &[(i64, f64)],
    num_levels: i64,
    relevance_level: f64,
) -> (f64, f64) {
    let named = |level: i64| listed.iter().any(|&(l, _)| l == level);
    let lowest = (0..num_levels).find(|&l| !named(l));
    let highest = (0..num_levels).rev().find(|&l| !named(l));
    let gains = listed.iter().map(|&(_, g)| g).chain(
        lowest
            .into_iter()
            .chain(highest)
            .map(|l| scheme_gain(scheme, l as f64, relevance_level)),
    );
    gains.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), g| {
        (lo.min(g), hi.max(g))
    })
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    level: i64,
    gain: f64,
}

/// A merge-sorted table, which depends on the gains and the number of levels only: built
/// once for all the queries with as many levels (the last few are kept in the measuring
/// part's `Notes`, so nothing outlives the evaluation).
#[derive(Debug)]
pub struct MergeTable {
    listed: Vec<(i64, u64)>,
    scheme: Scheme,
    relevance_level: u64,
    num_levels: i64,
    /// The gain a ranked document of a listed level gets: its first entry in sorted order.
    ranked: Vec<(i64, f64)>,
    /// Gain of the top entry (0 for an empty table).
    gate: f64,
    /// Per level: the gain of the entry holding its documents (its first in the unsorted
    /// table) and that entry's position in the sorted table.
    holder: Vec<(f64, usize)>,
    /// Set when trec_eval's sort leaves the table out of order.
    warning: Option<String>,
}

const KEPT_TABLES: usize = 4;

impl MergeTable {
    fn cached(
        tables: &mut Vec<Arc<MergeTable>>,
        listed: &[(i64, f64)],
        scheme: Scheme,
        relevance_level: f64,
        num_levels: i64,
    ) -> Arc<MergeTable> {
        let key: Vec<(i64, u64)> = listed.iter().map(|&(l, g)| (l, g.to_bits())).collect();
        let rl = relevance_level.to_bits();
        let same = |t: &&Arc<MergeTable>| {
            t.num_levels == num_levels
                && t.scheme == scheme
                && t.relevance_level == rl
                && t.listed == key
        };
        if let Some(t) = tables.iter().find(same) {
            return Arc::clone(t);
        }
        let table = Arc::new(MergeTable::build(
            listed,
            scheme,
            relevance_level,
            num_levels,
        ));
        if tables.len() == KEPT_TABLES {
            tables.remove(0);
        }
        tables.push(Arc::clone(&table));
        table
    }

    fn build(
        listed: &[(i64, f64)],
        scheme: Scheme,
        relevance_level: f64,
        num_levels: i64,
    ) -> MergeTable {
        let named = |level: i64| listed.iter().any(|&(l, _)| l == level);
        // the pairs in the order given, then every level not named, with its scheme gain
        let mut table: Vec<Entry> = listed
            .iter()
            .map(|&(level, gain)| Entry { level, gain })
            .collect();
        for level in 0..num_levels {
            if !named(level) {
                table.push(Entry {
                    level,
                    gain: scheme_gain(scheme, level as f64, relevance_level),
                });
            }
        }
        // (table position of each entry, in sorted order)
        let mut sorted: Vec<(usize, Entry)> = table.iter().copied().enumerate().collect();
        glibc_msort(&mut sorted);
        let mut position = vec![0usize; table.len()];
        for (p, &(i, _)) in sorted.iter().enumerate() {
            position[i] = p;
        }
        let mut ranked: Vec<(i64, f64)> = Vec::new();
        for &(_, e) in &sorted {
            if named(e.level) && !ranked.iter().any(|&(l, _)| l == e.level) {
                ranked.push((e.level, e.gain));
            }
        }
        let mut holder = vec![(0.0, usize::MAX); num_levels as usize];
        for (i, e) in table.iter().enumerate() {
            if (0..num_levels).contains(&e.level) && holder[e.level as usize].1 == usize::MAX {
                holder[e.level as usize] = (e.gain, position[i]);
            }
        }
        let mut by_value: Vec<f64> = table.iter().map(|e| e.gain).collect();
        by_value.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
        let warning = sorted.iter().zip(&by_value).any(|(s, &v)| s.1.gain != v).then(|| {
            let pairs: Vec<String> = listed.iter().map(|&(l, g)| format!("{l}={}", format_g(g))).collect();
            format!(
                "gains '{}' differ by less than 1, which trec_eval's sort treats as equal: its ideal ranking is \
                 not ideal (use --exact-ideal to sort gains by value)",
                pairs.join(",")
            )
        });
        MergeTable {
            listed: listed.iter().map(|&(l, g)| (l, g.to_bits())).collect(),
            scheme,
            relevance_level: relevance_level.to_bits(),
            num_levels,
            ranked,
            gate: sorted.last().map_or(0.0, |s| s.1.gain),
            holder,
            warning,
        }
    }
}

/// trec_eval's comparator returns `(int) (a - b)`: positive only for a difference of at
/// least 1 that fits an int (x86 converts anything out of range, and NaN, to INT_MIN).
fn left_first(a: f64, b: f64) -> bool {
    let diff = a - b;
    !(1.0..2_147_483_648.0).contains(&diff)
}

/// glibc's msort: split at n/2, sort both halves, merge taking the left item while
/// compare(left, right) <= 0.
fn glibc_msort(items: &mut [(usize, Entry)]) {
    let mut scratch = Vec::with_capacity(items.len());
    msort(items, &mut scratch);
}

fn msort(items: &mut [(usize, Entry)], scratch: &mut Vec<(usize, Entry)>) {
    let n = items.len();
    if n <= 1 {
        return;
    }
    let (left, right) = items.split_at_mut(n / 2);
    msort(left, scratch);
    msort(right, scratch);
    scratch.clear();
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        if left_first(left[i].1.gain, right[j].1.gain) {
            scratch.push(left[i]);
            i += 1;
        } else {
            scratch.push(right[j]);
            j += 1;
        }
    }
    scratch.extend_from_slice(&left[i..]);
    scratch.extend_from_slice(&right[j..]);
    items.copy_from_slice(scratch);
}

/// C's (and Python's) `%g`: six significant digits, trailing zeros dropped, exponent form
/// below 1e-4 and from 1e6.
pub fn format_g(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        let fixed = format!("{:.*}", (5 - exp) as usize, x);
        trim_zeros(&fixed).to_string()
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{}{:02}", trim_zeros(mantissa), sign, exp.abs())
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}
