//! Preference measures (`-R prefs`, `-R qrels_prefs`: form_prefs_counts.c, m_prefs_*.c).
//!
//! `Counts::form` joins one query's ranking with its preference lines once; every kernel here
//! reads the result. Documents get internal numbers: the retrieved ones that some preference
//! names, 0.. in rank order (this ranking breaks score ties by docno ascending, and -M cuts it),
//! then the others in byte order of their docnos. Per judgment group (jg): with one subgroup
//! (jsg), documents of equal level form classes, each preferred to every lower class; with
//! several, the preferences of each subgroup are joined and closed under transitivity. Each
//! preference A > B is then fulfilled or not, among retrieved documents (`ret`), with exactly
//! one of them retrieved (`imp`: fulfilled when A is), or with neither (never fulfilled).

use super::{single, Notes, Query};
use crate::error::{Error, Result};
use crate::options::{Options, Request};

/// A judgment group's preferences and what the ranking makes of them.
#[derive(Debug, Default, Clone)]
pub struct Group {
    pub ful_ret: u64,
    pub poss_ret: u64,
    pub ful_imp: u64,
    pub poss_imp: u64,
    pub poss_notoccur: u64,
    /// Documents of level > 0 (relevant) and of level <= 0, judged and retrieved.
    pub rel: u64,
    pub rel_ret: u64,
    pub nonrel: u64,
    pub nonrel_ret: u64,
    pub form: Form,
}

/// How a group's preferences are held.
#[derive(Debug, Clone)]
pub enum Form {
    /// One subgroup: classes of equal level, highest first, each its documents' numbers in
    /// ascending order (`ranks[range]`).
    Classes {
        ranks: Vec<u32>,
        classes: Vec<(f64, std::ops::Range<usize>)>,
    },
    /// Several: `prefers(i, j)` rows of bits, and each document's level (-1 if the group does
    /// not name it; the last level given to it when it has several).
    Matrix {
        bits: Vec<u64>,
        words: usize,
        level: Vec<f64>,
    },
}

impl Default for Form {
    fn default() -> Self {
        Form::Classes {
            ranks: Vec::new(),
            classes: Vec::new(),
        }
    }
}

impl Form {
    fn prefers(bits: &[u64], words: usize, i: usize, j: usize) -> bool {
        bits[i * words + j / 64] >> (j % 64) & 1 == 1
    }
}

/// One query's preferences counted against its ranking.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    pub groups: Vec<Group>,
    /// Documents the preferences name, and how many of them are retrieved.
    pub judged: usize,
    pub judged_ret: usize,
    /// Per pair i < j, at `pairs[i * judged + j]`: how many groups prefer i to j, and j to i
    /// (trec_eval's unsigned shorts: they wrap at 65536). Cells past `judged * judged` are
    /// zero and unused (a reused matrix: see `zeroed_pairs`).
    pairs: Vec<[u16; 2]>,
    /// The pairs some group orders: bit `max` of row `min` (rows of `judged.div_ceil(64)` words).
    touched: Vec<u64>,
    /// The prefs_pair sums, computed once when a pair measure first asks.
    pair_sums: std::cell::OnceCell<PairSums>,
}

/// prefs_pair's sums over the pairs some group orders: the shares added in trec_eval's order
/// over the pairs of two retrieved documents (`ret`), continued over those of exactly one
/// (`imp`), and the number of pairs of each kind (both retrieved, one, neither).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairSums {
    pub(crate) ret: f64,
    pub(crate) imp: f64,
    pub(crate) pairs: [u64; 3],
}

/// One preference line of a query, as `Counts::form` takes it.
#[derive(Debug, Clone, Copy)]
pub struct Line {
    pub group: u32,
    pub subgroup: u32,
    pub level: f64,
    /// The document's number among the query's distinct documents.
    pub doc: u32,
    /// Its line in the file (for messages).
    pub line: u64,
}

impl Counts {
    /// Counts `lines` (one query's) against a ranking: `number[d]` is distinct document d's
    /// internal number (see the module's comment), `judged_ret` how many are retrieved.
    /// `docno(d)` names document d in messages; `source` is the file.
    pub fn form(
        lines: &mut [Line],
        number: &[u32],
        judged_ret: usize,
        docno: &dyn Fn(u32) -> String,
        source: &str,
    ) -> Result<Counts> {
        let judged = number.len();
        let rank = |l: &Line| number[l.doc as usize];
        lines.sort_by(|a, b| {
            (a.group, a.subgroup)
                .cmp(&(b.group, b.subgroup))
                .then_with(|| {
                    b.level
                        .partial_cmp(&a.level)
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
                .then_with(|| rank(a).cmp(&rank(b)))
        });
        let mut counts = Counts {
            groups: Vec::new(),
            judged,
            judged_ret,
            pairs: zeroed_pairs(judged * judged),
            touched: vec![0; judged * judged.div_ceil(64)],
            pair_sums: std::cell::OnceCell::new(),
        };
        let mut start = 0;
        while start < lines.len() {
            let g = lines[start].group;
            let end = start + lines[start..].iter().take_while(|l| l.group == g).count();
            let group = &lines[start..end];
            let several = group.iter().any(|l| l.subgroup != group[0].subgroup);
            let formed = if several {
                counts.matrix_group(group, number, docno, source)?
            } else {
                counts.class_group(group, number, docno, source)?
            };
            counts.groups.push(formed);
            start = end;
        }
        Ok(counts)
    }

    /// A group of one subgroup: classes of equal level.
    fn class_group(
        &mut self,
        lines: &[Line],
        number: &[u32],
        docno: &dyn Fn(u32) -> String,
        source: &str,
    ) -> Result<Group> {
        let ranks: Vec<u32> = lines.iter().map(|l| number[l.doc as usize]).collect();
        let mut classes: Vec<(f64, std::ops::Range<usize>)> = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            match classes.last_mut() {
                Some((level, range)) if *level == l.level => range.end = i + 1,
                _ => classes.push((l.level, i..i + 1)),
            }
        }
        let njr = self.judged_ret as u32;
        let mut g = Group::default();
        for (c1, (level, range)) in classes.iter().enumerate() {
            let members = &ranks[range.clone()];
            let ret = members.iter().take_while(|&&r| r < njr).count() as u64;
            if *level > 0.0 {
                g.rel_ret += ret;
                g.rel += members.len() as u64;
            } else {
                g.nonrel_ret += ret;
                g.nonrel += members.len() as u64;
            }
            for (_, lower) in &classes[c1 + 1..] {
                for (k1, &r1) in members.iter().enumerate() {
                    for (k2, &r2) in ranks[lower.clone()].iter().enumerate() {
                        self.prefer(r1 as usize, r2 as usize);
                        if r1 == r2 {
                            let line = lines[range.start + k1]
                                .line
                                .max(lines[lower.start + k2].line);
                            let doc = docno(lines[range.start + k1].doc);
                            return Err(Error::at(
                                format!("document '{doc}' has two levels in one judgment subgroup"),
                                source,
                                line,
                            ));
                        }
                        count_pair(&mut g, r1, r2, njr);
                    }
                }
            }
        }
        g.poss_ret += g.ful_ret;
        g.poss_imp += g.ful_imp;
        g.form = Form::Classes { ranks, classes };
        Ok(g)
    }

    /// A group of several subgroups: the preferences of each, joined and closed.
    fn matrix_group(
        &mut self,
        lines: &[Line],
        number: &[u32],
        docno: &dyn Fn(u32) -> String,
        source: &str,
    ) -> Result<Group> {
        let n = self.judged;
        let words = n.div_ceil(64);
        let mut bits = vec![0u64; n * words];
        let mut level = vec![-1.0; n];
        for (i, l) in lines.iter().enumerate() {
            let r = number[l.doc as usize] as usize;
            if (level[r] > 0.0 && l.level == 0.0) || (level[r] == 0.0 && l.level > 0.0) {
                return Err(Error::at(
                    format!(
                        "document '{}' has both level 0 and a level > 0 in one judgment group",
                        docno(l.doc)
                    ),
                    source,
                    l.line,
                ));
            }
            level[r] = l.level;
            let same = |m: &Line| m.subgroup == l.subgroup;
            let mut j = i + 1;
            while j < lines.len() && same(&lines[j]) && lines[j].level == l.level {
                j += 1;
            }
            while j < lines.len() && same(&lines[j]) {
                let c = number[lines[j].doc as usize] as usize;
                bits[r * words + c / 64] |= 1 << (c % 64);
                j += 1;
            }
        }
        close(&mut bits, n, words);
        for i in 0..n {
            for j in i + 1..n {
                if Form::prefers(&bits, words, i, j) && Form::prefers(&bits, words, j, i) {
                    return Err(Error::in_file(
                        "inconsistent preferences: two documents are each preferred to the other within one judgment group (trec_eval aborts)",
                        source,
                    ));
                }
            }
        }
        let njr = self.judged_ret;
        let mut g = Group::default();
        for (i, &lv) in level.iter().enumerate() {
            let ret = u64::from(i < njr);
            if lv > 0.0 {
                g.rel += 1;
                g.rel_ret += ret;
            } else if lv == 0.0 {
                g.nonrel += 1;
                g.nonrel_ret += ret;
            }
        }
        for i in 0..n {
            for j in 0..n {
                if i != j && Form::prefers(&bits, words, i, j) {
                    self.prefer(i, j);
                    count_pair(&mut g, i as u32, j as u32, njr as u32);
                }
            }
        }
        g.poss_ret += g.ful_ret;
        g.poss_imp += g.ful_imp;
        g.form = Form::Matrix { bits, words, level };
        Ok(g)
    }

    /// One more group prefers document i to document j.
    fn prefer(&mut self, i: usize, j: usize) {
        let (lo, hi) = (i.min(j), i.max(j));
        let cell = &mut self.pairs[lo * self.judged + hi][usize::from(i > j)];
        *cell = cell.wrapping_add(1);
        self.touched[lo * self.judged.div_ceil(64) + hi / 64] |= 1 << (hi % 64);
    }

    /// Calls `visit(i, j)` for each pair some group orders, i < j, with i in `rows` and
    /// j >= `from`, in row order.
    fn each_ordered_pair(
        &self,
        rows: std::ops::Range<usize>,
        from: usize,
        mut visit: impl FnMut(usize, usize),
    ) {
        let words = self.judged.div_ceil(64);
        for i in rows {
            let row = &self.touched[i * words..(i + 1) * words];
            for (w, &bits) in row.iter().enumerate().skip(from / 64) {
                let mut rest = if w == from / 64 {
                    bits & (!0u64 << (from % 64))
                } else {
                    bits
                };
                while rest != 0 {
                    let j = w * 64 + rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    visit(i, j);
                }
            }
        }
    }

    /// prefs_pair's sums (see `PairSums`): the ordered pairs in trec_eval's order (row by row),
    /// those of two retrieved documents first, then those of one.
    pub(crate) fn pair_sums(&self) -> PairSums {
        *self.pair_sums.get_or_init(|| {
            let (n, njr) = (self.judged, self.judged_ret);
            let cells = |i: usize, j: usize| {
                let [a, b] = self.pairs[i * n + j];
                (a, b)
            };
            let share = |a: u16, b: u16| f64::from(a) / (f64::from(a) + f64::from(b));
            let (mut ret, mut pairs) = (0.0, [0u64; 3]);
            self.each_ordered_pair(0..n, 0, |i, j| {
                let (a, b) = cells(i, j);
                if a == 0 && b == 0 {
                    return; // counted 65536 times: wrapped to 0, as trec_eval's counter does
                }
                let kind = usize::from(j >= njr) + usize::from(i >= njr);
                pairs[kind] += 1;
                if kind == 0 {
                    ret += share(a, b);
                }
            });
            let mut imp = ret;
            self.each_ordered_pair(0..njr.min(n), njr, |i, j| {
                let (a, b) = cells(i, j);
                if a != 0 || b != 0 {
                    imp += share(a, b);
                }
            });
            PairSums { ret, imp, pairs }
        })
    }
}

thread_local! {
    /// The pairs matrix of this thread's last query, all zero again: the next query's
    /// matrix reuses its memory. A fresh one is zeroed pages the kernel faults in one by one
    /// (6 MB for a query of 1,250 documents), and that was a third of `-R prefs`'s time.
    static SPARE_PAIRS: std::cell::RefCell<Vec<[u16; 2]>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A pairs matrix of at least `cells` zeros (the spare when it is large enough: its cells
/// past `cells` stay zero and unused).
fn zeroed_pairs(cells: usize) -> Vec<[u16; 2]> {
    let spare = SPARE_PAIRS.with(|spare| std::mem::take(&mut *spare.borrow_mut()));
    if spare.len() >= cells {
        return spare;
    }
    vec![[0, 0]; cells + cells / 4] // room to grow: the next larger query may fit
}

impl Drop for Counts {
    /// Gives the pairs matrix back as the spare, zeroed where a group touched it (the only
    /// cells `prefer` writes), when it is larger than the spare there is.
    fn drop(&mut self) {
        let n = self.judged;
        if self.pairs.len() < n * n || n == 0 {
            return;
        }
        let mut pairs = std::mem::take(&mut self.pairs);
        self.each_ordered_pair(0..n, 0, |i, j| pairs[i * n + j] = [0, 0]);
        SPARE_PAIRS.with(|spare| {
            let mut spare = spare.borrow_mut();
            if pairs.len() > spare.len() {
                *spare = pairs;
            }
        });
    }
}

/// Adds preference r1 > r2 to a group's tallies (both retrieved, one, or neither).
fn count_pair(g: &mut Group, r1: u32, r2: u32, njr: u32) {
    if r1 < r2 {
        if r2 < njr {
            g.ful_ret += 1;
        } else if r1 < njr {
            g.ful_imp += 1;
        } else {
            g.poss_notoccur += 1;
        }
    } else if r1 < njr {
        g.poss_ret += 1;
    } else if r2 < njr {
        g.poss_imp += 1;
    } else {
        g.poss_notoccur += 1;
    }
}

/// The transitive closure of a preference matrix (Warshall's, on rows of bits).
fn close(bits: &mut [u64], n: usize, words: usize) {
    for k in 0..n {
        let row_k: Vec<u64> = bits[k * words..(k + 1) * words].to_vec();
        for i in 0..n {
            if i != k && bits[i * words + k / 64] >> (k % 64) & 1 == 1 {
                for (w, &b) in bits[i * words..(i + 1) * words].iter_mut().zip(&row_k) {
                    *w |= b;
                }
            }
        }
    }
    for i in 0..n {
        bits[i * words + i / 64] &= !(1 << (i % 64));
    }
}

/// A query without preferences counted (trec_eval 9.x's rule for a query -c brings in).
pub(crate) fn counts_of<'q>(q: &Query<'q>) -> Result<&'q Counts> {
    thread_local! {
        static NONE: &'static Counts = Box::leak(Box::default());
    }
    Ok(q.prefs.unwrap_or_else(|| NONE.with(|none| *none)))
}

/// Per group: (fulfilled, possible) with the kinds of pairs a measure counts.
pub(crate) fn tallies(g: &Group, imp: bool, notoccur: bool) -> (u64, u64) {
    let mut ful = g.ful_ret;
    let mut poss = g.poss_ret;
    if imp {
        ful += g.ful_imp;
        poss += g.poss_imp;
    }
    if notoccur {
        poss += g.poss_notoccur;
    }
    (ful, poss)
}

fn sums(c: &Counts, imp: bool, notoccur: bool) -> (u64, u64) {
    c.groups.iter().fold((0, 0), |(f, p), g| {
        let (gf, gp) = tallies(g, imp, notoccur);
        (f + gf, p + gp)
    })
}

pub(crate) fn ratio(ful: u64, poss: u64) -> f64 {
    if poss == 0 {
        0.0
    } else {
        ful as f64 / poss as f64
    }
}

/// The mean over groups of each group's ratio (a group without preferences adds 0).
fn per_group(c: &Counts, imp: bool, notoccur: bool) -> f64 {
    let mut sum = 0.0;
    for g in &c.groups {
        let (ful, poss) = tallies(g, imp, notoccur);
        if poss != 0 {
            sum += ful as f64 / poss as f64;
        }
    }
    over_groups(sum, c.groups.len())
}

/// trec_eval's `if (sum > 0.0) value = sum / num_jgs`.
pub(crate) fn over_groups(sum: f64, groups: usize) -> f64 {
    if sum > 0.0 {
        sum / groups as f64
    } else {
        0.0
    }
}

macro_rules! kernel {
    ($(#[$doc:meta])* $name:ident, |$c:ident| $body:expr) => {
        $(#[$doc])*
        pub fn $name(q: &Query, _: &Request, _: &Options, _: &mut Notes, out: &mut [f64]) -> Result<()> {
            let $c = counts_of(q)?;
            single(out, $body);
            Ok(())
        }
    };
}

kernel!(
    /// Preferences possible, all kinds.
    num_prefs_poss, |c| sums(c, true, true).1 as f64);
kernel!(
    /// Preferences fulfilled, retrieved and implied.
    num_prefs_ful, |c| sums(c, true, true).0 as f64);
kernel!(
    /// Preferences fulfilled among retrieved documents.
    num_prefs_ful_ret, |c| sums(c, false, false).0 as f64);
kernel!(
    /// Fulfilled over possible, all kinds.
    simp, |c| { let (f, p) = sums(c, true, true); ratio(f, p) });
kernel!(
    /// Fulfilled over possible among retrieved documents.
    simp_ret, |c| { let (f, p) = sums(c, false, false); ratio(f, p) });
kernel!(
    /// Fulfilled over possible, retrieved and implied.
    simp_imp, |c| { let (f, p) = sums(c, true, false); ratio(f, p) });
kernel!(
    /// Per pair of documents, the share of groups the ranking agrees with, averaged.
    pair, |c| { let p = c.pair_sums(); ratio_f(p.imp, p.pairs.iter().sum()) });
kernel!(
    /// prefs_pair over pairs of retrieved documents.
    pair_ret, |c| { let p = c.pair_sums(); ratio_f(p.ret, p.pairs[0]) });
kernel!(
    /// prefs_pair over pairs with at least one retrieved document.
    pair_imp, |c| { let p = c.pair_sums(); ratio_f(p.imp, p.pairs[0] + p.pairs[1]) });
kernel!(
    /// Per group fulfilled over possible, averaged over groups.
    avgjg, |c| per_group(c, true, true));
kernel!(
    /// prefs_avgjg among retrieved documents.
    avgjg_ret, |c| per_group(c, false, false));
kernel!(
    /// prefs_avgjg without the pairs of which neither document is retrieved.
    avgjg_imp, |c| per_group(c, true, false));
kernel!(
    /// prefs_avgjg with each group's nonrelevant documents made as many as its relevant ones.
    avgjg_rnonrel, |c| rnonrel(c, false));
kernel!(
    /// prefs_avgjg_Rnonrel among retrieved documents.
    avgjg_rnonrel_ret, |c| rnonrel(c, true));

pub(crate) fn ratio_f(sum: f64, pairs: u64) -> f64 {
    if pairs == 0 {
        0.0
    } else {
        sum / pairs as f64
    }
}

/// prefs_avgjg_Rnonrel(_ret): per group with R relevant and N nonrelevant documents (retrieved
/// ones with `ret`), R >= N: the counts plus R - N fulfilled preferences for each relevant
/// retrieved document (and R - N possible for each relevant one); R < N: counted again with
/// only the first R nonrelevant documents. 0/0 in a group makes the sum NaN, and the value 0.
fn rnonrel(c: &Counts, ret: bool) -> f64 {
    let mut sum = 0.0;
    for g in &c.groups {
        let (ful, poss) = rnonrel_tallies(c, g, ret);
        sum += ful as f64 / poss as f64;
    }
    over_groups(sum, c.groups.len())
}

/// A group's (fulfilled, possible) as prefs_avgjg_Rnonrel(_ret) counts them (see `rnonrel`).
pub(crate) fn rnonrel_tallies(c: &Counts, g: &Group, ret: bool) -> (u64, u64) {
    let (r, n) = if ret {
        (g.rel_ret, g.nonrel_ret)
    } else {
        (g.rel, g.nonrel)
    };
    if r >= n {
        let (f, p) = tallies(g, !ret, !ret);
        (f + g.rel_ret * (r - n), p + g.rel * (r - n))
    } else {
        recount(g, c.judged_ret, c.judged, r, ret)
    }
}

/// A group's (fulfilled, possible) with only its first `keep` nonrelevant documents (R: the
/// relevant ones, retrieved ones with `ret`; a matrix group keeps all its relevant ones'
/// number) (m_prefs_avgjg_Rnonrel.c's recalculate, and its `_ret` variant's).
fn recount(g: &Group, njr: usize, n: usize, keep: u64, ret: bool) -> (u64, u64) {
    let (mut ful, mut poss) = (0u64, 0u64);
    match &g.form {
        Form::Classes { ranks, classes } => {
            let limit = if ret { njr as u32 } else { u32::MAX };
            let members = |range: &std::ops::Range<usize>| -> &[u32] {
                let m = &ranks[range.clone()];
                &m[..m.iter().take_while(|&&r| r < limit).count()]
            };
            let mut tally = |a: &[u32], b: &[u32]| {
                for &r1 in a {
                    for &r2 in b {
                        if r1 < r2 && (ret || (r1 as usize) < njr) {
                            ful += 1;
                        } else {
                            poss += 1;
                        }
                    }
                }
            };
            let last = classes.len() - 1;
            for c1 in 0..classes.len() {
                for c2 in c1 + 1..last {
                    tally(members(&classes[c1].1), members(&classes[c2].1));
                }
            }
            let nonrel = members(&classes[last].1);
            let kept = &nonrel[..(keep as usize).min(nonrel.len())];
            for class in classes {
                tally(members(&class.1), kept);
            }
        }
        Form::Matrix { bits, words, level } => {
            // both variants keep as many nonrelevant documents as the group has relevant ones,
            // retrieved or not (m_prefs_avgjg_Rnonrel_ret.c reads num_rel here too)
            let keep = g.rel;
            let scan = if ret { njr } else { n };
            let mut seen = 0u64;
            let mut first_discarded = scan;
            for (i, &lv) in level.iter().enumerate().take(scan) {
                if lv == 0.0 {
                    seen += 1;
                    if seen == keep + 1 {
                        first_discarded = i;
                        break;
                    }
                }
            }
            let gone = |i: usize| i >= first_discarded && level[i] == 0.0;
            let upto = if ret { njr } else { n };
            for i in 0..upto {
                if gone(i) {
                    continue;
                }
                for j in 0..upto {
                    if j == i || gone(j) || !Form::prefers(bits, *words, i, j) {
                        continue;
                    }
                    if i < njr && j > i {
                        ful += 1;
                    } else {
                        poss += 1;
                    }
                }
            }
        }
    }
    (ful, ful + poss)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(group: u32, subgroup: u32, level: f64, doc: u32) -> Line {
        Line {
            group,
            subgroup,
            level,
            doc,
            line: u64::from(doc) + 1,
        }
    }

    #[test]
    fn subgroups_join_and_close_under_transitivity() {
        // documents 0, 1, 2 (numbers = docs), 0 and 2 retrieved (judged_ret 2 means numbers
        // 0, 1 retrieved): subgroup 0 says 0 > 1, subgroup 1 says 1 > 2: closed, 0 > 2 too
        let mut lines = vec![
            line(0, 0, 2.0, 0),
            line(0, 0, 1.0, 1),
            line(0, 1, 5.0, 1),
            line(0, 1, 4.0, 2),
        ];
        let docno = |d: u32| d.to_string();
        let c = Counts::form(&mut lines, &[0, 1, 2], 2, &docno, "f").unwrap();
        let g = &c.groups[0];
        // 0 > 1: both retrieved, fulfilled; 1 > 2 and 0 > 2: implied, fulfilled
        assert_eq!((g.ful_ret, g.poss_ret, g.ful_imp, g.poss_imp), (1, 1, 2, 2));
        assert_eq!(c.pairs[2], [1, 0]); // 0 > 2: the transitive preference
        assert_eq!((g.rel, g.rel_ret, g.nonrel), (3, 2, 0));
    }

    #[test]
    fn a_conflict_within_a_group_is_an_error() {
        let mut lines = vec![
            line(0, 0, 2.0, 0),
            line(0, 0, 1.0, 1),
            line(0, 1, 2.0, 1),
            line(0, 1, 1.0, 0),
        ];
        let docno = |d: u32| d.to_string();
        let e = Counts::form(&mut lines, &[0, 1], 2, &docno, "f").unwrap_err();
        assert!(e.to_string().contains("inconsistent preferences"), "{e}");
    }

    #[test]
    fn classes_count_every_pair_of_levels() {
        // one subgroup: levels 2 (doc 1), 1 (doc 0), 0 (doc 2); ranking 0, 1, 2 (all retrieved)
        let mut lines = vec![line(0, 0, 1.0, 0), line(0, 0, 2.0, 1), line(0, 0, 0.0, 2)];
        let docno = |d: u32| d.to_string();
        let c = Counts::form(&mut lines, &[0, 1, 2], 3, &docno, "f").unwrap();
        let g = &c.groups[0];
        // 1 > 0 reversed by the ranking; 1 > 2 and 0 > 2 kept
        assert_eq!((g.ful_ret, g.poss_ret), (2, 3));
        assert_eq!((g.rel, g.nonrel, g.nonrel_ret), (2, 1, 1));
    }

    #[test]
    fn a_reused_pairs_matrix_starts_at_zero() {
        // a larger query's matrix, given back when its counts drop, then a smaller query's
        // on the same thread: every cell as in a matrix made fresh on another thread
        let docno = |d: u32| d.to_string();
        let mut big: Vec<Line> = (0..70).map(|d| line(0, 0, f64::from(d % 3), d)).collect();
        let numbers: Vec<u32> = (0..70).collect();
        drop(Counts::form(&mut big, &numbers, 40, &docno, "f").unwrap());
        let small = || {
            let mut lines = vec![line(0, 0, 1.0, 0), line(0, 0, 2.0, 1), line(0, 0, 0.0, 2)];
            let c = Counts::form(&mut lines, &[2, 0, 1], 2, &|d: u32| d.to_string(), "f").unwrap();
            (
                c.pairs[..9].to_vec(),
                c.pair_sums().ret,
                c.pair_sums().imp,
                c.pair_sums().pairs,
            )
        };
        let reused = small();
        let fresh = std::thread::spawn(small).join().unwrap();
        assert_eq!(reused.0, fresh.0);
        assert_eq!(
            (reused.1.to_bits(), reused.2.to_bits(), reused.3),
            (fresh.1.to_bits(), fresh.2.to_bits(), fresh.3)
        );
        assert!(reused.0.iter().any(|c| *c != [0, 0]));
    }
}
