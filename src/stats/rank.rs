//! Wilcoxon rank-sum (Mann–Whitney U) test of `new` against `old`, as R's
//! `wilcox.test(new, old)` computes its p-value (two-sided, `mu = 0`, `correct = TRUE`,
//! `exact = NULL`), with the Hodges–Lehmann location shift and its order-statistic confidence
//! interval.
//!
//! Sources: Wilcoxon (1945); Mann & Whitney (1947); Hodges & Lehmann (1963); Bauer (1972),
//! "Constructing confidence sets using rank statistics", JASA 67:687–690; Hollander & Wolfe
//! (1973), *Nonparametric Statistical Methods*, §4.1–4.3; R's `?wilcox.test`, `?pwilcox`.
//! Re-implemented from those formulas, not translated from R's code.
//!
//! With x = `new` (n values), y = `old` (m values) and mid-ranks of the pooled sample:
//! - `W = Σ rank(xᵢ) − n(n + 1)/2 = #{xᵢ > yⱼ} + ½·#{xᵢ = yⱼ}` (R's statistic; the
//!   Mann–Whitney U of `new`). W above nm/2 means `new` tends to be larger.
//! - **p, exact** (n < 50, m < 50 and no ties anywhere in the pooled sample): W has the
//!   distribution of the Mann–Whitney U under H₀, whose counts are the coefficients of the
//!   Gaussian binomial `[n+m choose n]_q = Π_{i=1..n} (1 − q^{m+i}) / (1 − q^i)`.
//!   Two-sided `p = min(1, 2·P(U ≤ W))` for W ≤ nm/2, else `min(1, 2·P(U ≥ W))`; the central
//!   outcome gives exactly 1.
//! - **p, normal approximation** otherwise (R's rule; [`RankMethod`] names it):
//!   `z = (W − nm/2 − ½·sign(W − nm/2)) / σ` with the tie-corrected
//!   `σ² = nm/12 · (n + m + 1 − Σ(t³ − t)/((n + m)(n + m − 1)))` (t = sizes of tie groups),
//!   `p = 2·Φ(−|z|)`. The exact permutation p that stays exact with ties (benchstat's) is
//!   [`super::utest::u_test`].
//! - **Shift**, in every case: the Hodges–Lehmann estimate, the median of the nm differences
//!   `xᵢ − yⱼ`, and the interval `[D(k), D(nm − k + 1)]` of the sorted differences, with k the
//!   `(1 − c)/2` quantile of U (at least 1; exact for n, m < 50, else the normal
//!   approximation `⌊nm/2 − z_{1−(1−c)/2}·√(nm(n + m + 1)/12)⌋`), and the level
//!   `1 − 2·P(U ≤ k − 1)` (the requested one for the normal approximation). With ties the
//!   same order statistics are used, so the level is then approximate.
//!
//! Deliberate difference from R: with ties (or 50+ samples a side) R's `wilcox.test` solves the
//! standardized statistic for the shift with `uniroot(tol = 1e-4)`, an *absolute* tolerance.
//! For timings stored in seconds (1e-6 s apart) that tolerance is wider than the whole data,
//! and R returns an interval end as the estimate, with the wrong sign (case 03: +1 ns for a
//! −2 ns shift). Here the estimate and interval use only subtractions and comparisons of the
//! data, so they scale exactly with the unit and never depend on a tolerance. On data without
//! ties and below 50 a side both definitions are the same, and the values match R's.
//! When every observation is the same value (σ = 0; R stops with an error) the p-value is 1.
//!
//! Cost: O((n + m) log(n + m)) to sort and rank. Exact p: the null distribution is computed
//! once per (n, m) (O(min(n, m)·nm), exact integers) and cached per thread. The four order
//! statistics of the pairwise differences (interval ends, median) are selected without sorting
//! the nm differences: from small brackets found by counting in the sorted difference matrix
//! for n·m ≤ 49², else by bisection on the value with O(n + m) counting (at most 64 passes
//! per statistic), so large samples (thousands per side) stay cheap and there is no size cap.

use std::cell::RefCell;
use std::rc::Rc;

use statrs::distribution::{ContinuousCDF, Normal};

/// Sample size (per side) from which R, and this module, use the normal approximation even
/// without ties (`exact <- n.x < 50 && n.y < 50`).
pub const EXACT_MAX_N: usize = 49;

/// How a rank-test p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankMethod {
    /// The exact null distribution of U (no ties).
    Exact,
    /// The exact permutation distribution of the mid-rank statistic, which stays exact with
    /// ties (benchstat's rule, [`super::utest`]).
    ExactTies,
    /// The normal approximation with tie-corrected variance and continuity correction (R's
    /// `wilcox.test` as soon as there is a tie, or from 50 samples a side).
    NormalTieContinuity,
    /// The normal approximation with continuity correction (no ties present).
    NormalContinuity,
}

impl RankMethod {
    /// Human label: `exact`, `exact with ties`, `normal approx., tie- and continuity-corrected`
    /// or `normal approx., continuity-corrected`.
    pub fn label(self) -> &'static str {
        match self {
            RankMethod::Exact => "exact",
            RankMethod::ExactTies => "exact with ties",
            RankMethod::NormalTieContinuity => "normal approx., tie- and continuity-corrected",
            RankMethod::NormalContinuity => "normal approx., continuity-corrected",
        }
    }

    /// Machine name: `exact`, `exact_ties`, `normal_tie_continuity`, `normal_continuity`.
    pub fn key(self) -> &'static str {
        match self {
            RankMethod::Exact => "exact",
            RankMethod::ExactTies => "exact_ties",
            RankMethod::NormalTieContinuity => "normal_tie_continuity",
            RankMethod::NormalContinuity => "normal_continuity",
        }
    }
}

/// Result of the rank-sum test of `new` against `old` (see the module doc for formulas).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankSum {
    /// R's W statistic: `#{new > old pairs} + ½·#{tied pairs}`, in `0..=n_new·n_old`.
    pub w: f64,
    /// Two-sided p-value in [0, 1].
    pub p_value: f64,
    /// True when the exact null distribution was used (n < 50 each side and no ties);
    /// false for the normal approximation with continuity and tie correction.
    pub exact: bool,
    /// How `p_value` was computed (name it wherever p is shown).
    pub method: RankMethod,
    /// Location shift `new − old` in the units of the samples: the Hodges–Lehmann estimate,
    /// the median of the n·m pairwise differences (with or without ties).
    pub shift: f64,
    /// Confidence interval `(lo, hi)` of the shift, in the units of the samples.
    pub shift_ci: (f64, f64),
    /// Confidence level of `shift_ci`: in the exact case the achieved level
    /// `1 − 2·P(U ≤ k − 1)` (≥ the requested one unless the samples are too small to reach
    /// it, as when n = m = 2), else the requested level.
    pub ci_level: f64,
}

/// Wilcoxon rank-sum test of `new` against `old` with the Hodges–Lehmann shift
/// `new − old` and its `conf_level` two-sided interval (e.g. 0.95), as R's
/// `wilcox.test(new, old, conf.int = TRUE, conf.level = conf_level)`.
///
/// Samples are in any unit (the shift and interval are in that unit); they need not be
/// sorted. Returns `None` if a side is empty, a sample is NaN or infinite, or `conf_level`
/// is not strictly between 0 and 1.
pub fn rank_sum(old: &[f64], new: &[f64], conf_level: f64) -> Option<RankSum> {
    if old.is_empty() || new.is_empty() || !(conf_level > 0.0 && conf_level < 1.0) {
        return None;
    }
    if old.iter().chain(new).any(|v| !v.is_finite()) {
        return None;
    }
    let mut x = new.to_vec();
    let mut y = old.to_vec();
    x.sort_unstable_by(f64::total_cmp);
    y.sort_unstable_by(f64::total_cmp);
    let (nx, ny) = (x.len() as f64, y.len() as f64);
    let r = ranks(&x, &y, 0.0);
    let w = r.sum_x - nx * (nx + 1.0) / 2.0;

    let exact = x.len() <= EXACT_MAX_N && y.len() <= EXACT_MAX_N && !r.ties;
    let half = nx * ny / 2.0;
    let p_value = if exact {
        let dist = null_distribution(x.len(), y.len());
        let p = if w > half {
            dist.upper(w as usize)
        } else {
            dist.cdf(w as i64)
        };
        (2.0 * p).min(1.0)
    } else {
        // Normal approximation with continuity and tie correction (R's).
        let sigma = sigma(nx, ny, r.tie_sum);
        if sigma == 0.0 {
            // Every observation has the same value (R stops here).
            1.0
        } else {
            let dz = w - half;
            let z = (dz - sign(dz) * 0.5) / sigma;
            (2.0 * normal_upper_tail(z)).min(1.0)
        }
    };
    let (shift, shift_ci, ci_level) = hodges_lehmann(&x, &y, conf_level);
    Some(RankSum {
        w,
        p_value,
        exact,
        method: if exact {
            RankMethod::Exact
        } else if r.ties {
            RankMethod::NormalTieContinuity
        } else {
            RankMethod::NormalContinuity
        },
        shift,
        shift_ci,
        ci_level,
    })
}

/// The Hodges–Lehmann shift of sorted `x` (new) against sorted `y` (old) — the median of the
/// n·m differences `xᵢ − yⱼ` — and its order-statistic interval `[D(k), D(nm − k + 1)]` with
/// the achieved (or, for large samples, requested) confidence level.
///
/// k is the `(1 − c)/2` quantile of the Mann–Whitney U without ties (at least 1): exact for
/// n, m ≤ [`EXACT_MAX_N`], else `⌊nm/2 − z·√(nm(n + m + 1)/12)⌋` (Hollander & Wolfe 1973,
/// §4.3, normal approximation). With ties the same order statistics are used (they are still
/// differences that occur in the data; the level is then approximate). Only comparisons and
/// subtractions of the data are involved, so the result scales with the unit of the samples:
/// no tolerance, no root search.
fn hodges_lehmann(x: &[f64], y: &[f64], conf_level: f64) -> (f64, (f64, f64), f64) {
    let alpha = 1.0 - conf_level;
    let total = x.len() * y.len();
    let (qu, level) = if x.len() <= EXACT_MAX_N && y.len() <= EXACT_MAX_N {
        let dist = null_distribution(x.len(), y.len());
        let qu = dist.quantile(alpha / 2.0).max(1);
        (qu, 1.0 - 2.0 * dist.cdf(qu as i64 - 1))
    } else {
        let (nx, ny) = (x.len() as f64, y.len() as f64);
        let sd = (nx * ny * (nx + ny + 1.0) / 12.0).sqrt();
        let k = (nx * ny / 2.0 + normal_quantile(alpha / 2.0) * sd).floor();
        ((k.max(1.0) as usize).min(total.div_ceil(2)), conf_level)
    };
    let ql = total - qu;
    // 1-based ranks wanted among the nm differences: the interval ends and the median.
    let (mid_lo, mid_hi) = (total.div_ceil(2), total / 2 + 1);
    let ranks = [qu, ql + 1, mid_lo, mid_hi];
    let [lo, hi, m1, m2] = if total <= EXACT_MAX_N * EXACT_MAX_N {
        kth_differences(x, y, ranks, &mut Vec::new())
    } else {
        ranks.map(|k| kth_by_bisection(x, y, k))
    };
    let median = if mid_lo == mid_hi {
        m1
    } else {
        let s = (m1 + m2) / 2.0;
        if s.is_finite() {
            s
        } else {
            m1 / 2.0 + m2 / 2.0
        }
    };
    (median, (lo, hi), level)
}

/// The k-th smallest (1-based) difference `xᵢ − yⱼ` of sorted `x`, `y` by bisection on the
/// IEEE order of the value: the smallest value v with at least k differences ≤ v, found in
/// at most 64 counting passes of O(n + m) each. That value is itself a difference, so the
/// result is exact (no tolerance) for any scale of the data.
fn kth_by_bisection(x: &[f64], y: &[f64], k: usize) -> f64 {
    let m = y.len();
    let count_le = |p: f64| {
        let mut j0 = 0usize;
        let mut total = 0usize;
        for &xi in x {
            while j0 < m && xi - y[j0] > p {
                j0 += 1;
            }
            total += m - j0;
        }
        total
    };
    let (mut lo, mut hi) = (order_key(x[0] - y[m - 1]), order_key(x[x.len() - 1] - y[0]));
    if count_le(from_key(lo)) >= k {
        return from_key(lo);
    }
    // Invariant: count(lo) < k ≤ count(hi).
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if count_le(from_key(mid)) >= k {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    from_key(hi)
}

fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Upper tail `P(Z > |z|)` of the standard normal, as `½·Q(½, z²/2)` (regularized upper
/// incomplete gamma; Abramowitz & Stegun 26.2.30 with 6.5.17), accurate to ~1e-15 relative
/// where statrs' `erfc`-based normal CDF is off by up to ~5e-11.
fn normal_upper_tail(z: f64) -> f64 {
    let h = z * z / 2.0;
    if h.is_infinite() {
        return 0.0;
    }
    statrs::function::gamma::checked_gamma_ur(0.5, h)
        .map(|q| q / 2.0)
        .unwrap_or_else(|_| Normal::standard().cdf(-z.abs()))
}

fn normal_quantile(p: f64) -> f64 {
    Normal::standard().inverse_cdf(p)
}

/// Tie-corrected standard deviation of W under H₀ (R's `SIGMA`, same order of operations).
fn sigma(nx: f64, ny: f64, tie_sum: f64) -> f64 {
    ((nx * ny / 12.0) * ((nx + ny + 1.0) - tie_sum / ((nx + ny) * (nx + ny - 1.0)))).sqrt()
}

/// Mid-rank summary of the pooled sample `(x − d, y)`.
struct Ranks {
    /// Sum of the mid-ranks of the x values.
    sum_x: f64,
    /// `Σ (t³ − t)` over tie groups of size t.
    tie_sum: f64,
    /// Whether any two pooled values are equal.
    ties: bool,
}

/// Ranks of the pooled `(x − d, y)` by merging the two sorted slices, O(n + m).
/// `x − d` stays sorted because floating-point subtraction of a constant is monotone.
fn ranks(x: &[f64], y: &[f64], d: f64) -> Ranks {
    let (mut i, mut j) = (0usize, 0usize);
    let mut pos = 0.0f64;
    let mut sum_x = 0.0f64;
    let mut tie_sum = 0.0f64;
    let mut ties = false;
    while i < x.len() || j < y.len() {
        let xv = if i < x.len() { x[i] - d } else { f64::INFINITY };
        let yv = if j < y.len() { y[j] } else { f64::INFINITY };
        let v = if i < x.len() && (j >= y.len() || xv <= yv) {
            xv
        } else {
            yv
        };
        let mut cx = 0.0f64;
        while i < x.len() && x[i] - d == v {
            cx += 1.0;
            i += 1;
        }
        let mut cy = 0.0f64;
        while j < y.len() && y[j] == v {
            cy += 1.0;
            j += 1;
        }
        let t = cx + cy;
        if t > 1.0 {
            ties = true;
            tie_sum += t * t * t - t;
        }
        sum_x += cx * (pos + (t + 1.0) / 2.0);
        pos += t;
    }
    Ranks {
        sum_x,
        tie_sum,
        ties,
    }
}

/// The exact null distribution of the Mann–Whitney U for sample sizes (n, m): lower-tail
/// probabilities `P(U ≤ k)` for `k ≤ ⌊nm/2⌋` (the rest follows from symmetry about nm/2).
struct UDist {
    nm: usize,
    cum: Vec<f64>,
}

impl UDist {
    /// `P(U ≤ k)`, R's `pwilcox(k, n, m)`.
    fn cdf(&self, k: i64) -> f64 {
        if k < 0 {
            return 0.0;
        }
        let k = k as usize;
        if k >= self.nm {
            return 1.0;
        }
        match self.cum.get(k) {
            Some(&p) => p,
            // P(U ≤ k) = 1 − P(U ≥ k + 1) = 1 − P(U ≤ nm − k − 1)
            None => 1.0 - self.cum.get(self.nm - k - 1).copied().unwrap_or(1.0),
        }
    }

    /// `P(U ≥ k)`, R's `pwilcox(k − 1, n, m, lower.tail = FALSE)`.
    fn upper(&self, k: usize) -> f64 {
        if k > self.nm {
            return 0.0;
        }
        self.cdf((self.nm - k) as i64)
    }

    /// Smallest k with `P(U ≤ k) ≥ p` (R's `qwilcox(p, n, m)`, with its 10ε fuzz).
    fn quantile(&self, p: f64) -> usize {
        let target = p - 10.0 * f64::EPSILON;
        // P(U ≤ k) is non-decreasing in k: the first k at or above the target.
        let below = |k: usize| self.cdf(k as i64) < target;
        let (mut lo, mut hi) = (0usize, self.nm);
        if !below(lo) {
            return 0;
        }
        // Invariant: below(lo) and !below(hi) (P(U ≤ nm) = 1 ≥ any p ≤ 1).
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if below(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

/// Null distributions keyed by (smaller, larger) sample size, most recently used first.
type UCache = Vec<((usize, usize), Rc<UDist>)>;

thread_local! {
    /// Recently used null distributions (a report compares many rows with the same run
    /// counts).
    static U_CACHE: RefCell<UCache> = const { RefCell::new(Vec::new()) };
}

/// Exact null distribution of U for sizes (n, m), both at most [`EXACT_MAX_N`] (cached).
fn null_distribution(n: usize, m: usize) -> Rc<UDist> {
    let key = (n.min(m), n.max(m));
    U_CACHE.with(|cell| {
        let mut cache = cell.borrow_mut();
        if let Some(pos) = cache.iter().position(|(k, _)| *k == key) {
            let entry = cache.remove(pos);
            let dist = Rc::clone(&entry.1);
            cache.insert(0, entry);
            return dist;
        }
        let dist = Rc::new(compute_null_distribution(key.0, key.1));
        cache.insert(0, (key, Rc::clone(&dist)));
        cache.truncate(16);
        dist
    })
}

/// Coefficients of the Gaussian binomial `[n+m choose n]_q` up to degree ⌊nm/2⌋, exact in
/// i128 (the largest, C(98, 49) ≈ 2.5·10²⁸, fits), turned into lower-tail probabilities.
fn compute_null_distribution(n: usize, m: usize) -> UDist {
    let nm = n * m;
    let half = nm / 2;
    let mut c = vec![0i128; half + 1];
    c[0] = 1;
    for i in 1..=n {
        // Multiply by (1 − q^(m+i)), then divide by (1 − q^i); both only look downwards, so
        // truncating at degree `half` is exact.
        let k = m + i;
        for u in (k..=half).rev() {
            c[u] -= c[u - k];
        }
        for u in i..=half {
            c[u] += c[u - i];
        }
    }
    // Total number of rank configurations: C(n + m, n).
    let mut total: i128 = 1;
    for i in 1..=n {
        total = total * (m + i) as i128 / i as i128;
    }
    let total = total as f64;
    let mut acc: i128 = 0;
    let cum = c
        .iter()
        .map(|&v| {
            acc += v;
            acc as f64 / total
        })
        .collect();
    UDist { nm, cum }
}

/// A key whose unsigned order is the numeric order of `v` (IEEE 754 total order), so that
/// selection runs on integers.
pub(crate) fn order_key(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

/// Inverse of [`order_key`].
pub(crate) fn from_key(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// Number of `xᵢ − yⱼ` (x, y sorted increasingly) per row i that are below `p`
/// (`strict`) or at most `p`, written to `out` (length n); returns their total. O(n + m):
/// the rows increase with i, so the count per row never increases.
fn row_counts(x: &[f64], y: &[f64], p: f64, strict: bool, out: &mut [usize]) -> usize {
    if strict {
        row_counts_by(x, y, out, |d| d < p)
    } else {
        row_counts_by(x, y, out, |d| d <= p)
    }
}

/// [`row_counts`] for the predicate `inside(xᵢ − yⱼ)`, which must hold on a suffix of each
/// row (j ≥ some j0) and whose j0 must not decrease with i.
#[inline(always)]
fn row_counts_by(x: &[f64], y: &[f64], out: &mut [usize], inside: impl Fn(f64) -> bool) -> usize {
    let m = y.len();
    // Row i, xᵢ − yⱼ, decreases in j, so the qualifying j are a suffix `j0..m`; and as xᵢ
    // grows, `j0` can only move right.
    let mut j0 = 0usize;
    let mut total = 0;
    for (o, &xi) in out.iter_mut().zip(x) {
        while j0 < m && !inside(xi - y[j0]) {
            j0 += 1;
        }
        *o = m - j0;
        total += m - j0;
    }
    total
}

/// The `ranks`-th smallest (1-based, each in `1..=n·m`) of the differences `xᵢ − yⱼ` of
/// increasingly sorted `x` and `y`, without sorting all n·m of them.
///
/// The matrix of differences is sorted along rows and columns, so the number of its entries
/// below a value is counted in O(n + m) ([`row_counts`]). For each rank, a stratified 8 × 8
/// grid sample of the matrix gives two values that should bracket it; exact counts confirm
/// the bracket (or it is widened to the whole range), and the rank is selected among the
/// few differences inside. The result does not depend on the sample, only the speed does.
fn kth_differences(x: &[f64], y: &[f64], ranks: [usize; 4], keys: &mut Vec<u64>) -> [f64; 4] {
    let (n, m) = (x.len(), y.len());
    let total = n * m;
    let mut out = [f64::NAN; 4];
    if total < 256 {
        keys.clear();
        for &xi in x {
            keys.extend(y.iter().map(|&yj| order_key(xi - yj)));
        }
        for (o, &k) in out.iter_mut().zip(&ranks) {
            *o = from_key(*keys.select_nth_unstable(k.clamp(1, total) - 1).1);
        }
        return out;
    }
    let (gr, gc) = (8.min(n), 8.min(m));
    let mut sample = [0u64; 64];
    let mut len = 0;
    for a in 0..gr {
        let i = (2 * a + 1) * n / (2 * gr);
        for b in 0..gc {
            let j = (2 * b + 1) * m / (2 * gc);
            sample[len] = order_key(x[i] - y[j]);
            len += 1;
        }
    }
    let sample = &mut sample[..len];
    sample.sort_unstable();
    let mut lt = vec![0usize; n];
    let mut le = vec![0usize; n];
    // The ranks covered by the bracket gathered last: below+1 ..= below+keys.len().
    let mut below = usize::MAX;
    keys.clear();
    for (o, &k) in out.iter_mut().zip(&ranks) {
        let k = k.clamp(1, total);
        if below != usize::MAX && k > below && k - below <= keys.len() {
            // Same bracket as the previous rank (the two middle ranks of the median).
            *o = from_key(*keys.select_nth_unstable(k - below - 1).1);
            continue;
        }
        let pos = k * len / total;
        // Lower end: a sample value with fewer than k differences below it, trying sample
        // positions 2, 6, 18 below `pos`, else −∞. Upper end likewise, above.
        below = 0;
        lt.fill(0);
        for margin in [2, 6, 18] {
            let p_lo = from_key(sample[pos.saturating_sub(margin)]);
            let cnt = row_counts(x, y, p_lo, true, &mut lt);
            if cnt < k {
                below = cnt;
                break;
            }
            lt.fill(0);
        }
        le.fill(m);
        for margin in [2, 6, 18] {
            let p_hi = from_key(sample[(pos + margin).min(len - 1)]);
            if row_counts(x, y, p_hi, false, &mut le) >= k {
                break;
            }
            le.fill(m);
        }
        keys.clear();
        for (i, &xi) in x.iter().enumerate() {
            // Row i in increasing order is j = m − 1, …, 0: its first `lt[i]` values are below
            // the bracket and its first `le[i]` are inside or below it.
            if lt[i] < le[i] {
                keys.extend(y[m - le[i]..m - lt[i]].iter().map(|&yj| order_key(xi - yj)));
            }
        }
        // The bracket holds ranks below+1 ..= below+keys.len(), which include k.
        let idx = (k - below - 1).min(keys.len().saturating_sub(1));
        if let Some((_, v, _)) = (!keys.is_empty()).then(|| keys.select_nth_unstable(idx)) {
            *o = from_key(*v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_small() {
        // R: wilcox.test(c(3.1, 4.2, 5.3, 6.4), c(1.05, 2.15, 3.25), conf.int = TRUE)
        //    W = 11, p-value = 0.1142857 (= 4/35), CI -0.15 5.35, estimate 2.6
        let r = rank_sum(&[1.05, 2.15, 3.25], &[3.1, 4.2, 5.3, 6.4], 0.95).unwrap();
        assert!(r.exact);
        assert_eq!(r.w, 11.0);
        assert!((r.p_value - 4.0 / 35.0).abs() < 1e-15, "{r:?}");
        assert!((r.shift - 2.6).abs() < 1e-12);
        assert!((r.shift_ci.0 - (3.1 - 3.25)).abs() < 1e-12, "{r:?}");
        assert!((r.shift_ci.1 - (6.4 - 1.05)).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn null_distribution_sums_to_one() {
        for (n, m) in [(1, 1), (2, 3), (7, 7), (49, 49), (1, 49)] {
            let d = compute_null_distribution(n, m);
            assert!((d.cdf((n * m) as i64) - 1.0).abs() < 1e-15);
            // symmetry: P(U ≤ k) + P(U ≤ nm − k − 1) = 1
            for k in 0..(n * m) as i64 {
                let s = d.cdf(k) + d.cdf((n * m) as i64 - k - 1);
                assert!((s - 1.0).abs() < 1e-12, "{n} {m} {k}");
            }
        }
    }

    #[test]
    fn kth_differences_match_sorting() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut cases: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
        for (n, m) in [
            (25, 25),
            (16, 16),
            (49, 49),
            (49, 6),
            (3, 49),
            (40, 45),
            (10, 30),
        ] {
            let x = (0..n).map(|_| next() * 10.0).collect();
            let y = (0..m).map(|_| 2.0 + next() * 10.0).collect();
            cases.push((x, y));
            // Evenly spaced: many equal differences.
            let x = (0..n).map(f64::from).collect();
            let y = (0..m).map(|j| f64::from(j) + 0.5).collect();
            cases.push((x, y));
            // Skewed: an outlier far away on each side.
            let mut x: Vec<f64> = (0..n).map(|_| next()).collect();
            x[0] = -1e9;
            let mut y: Vec<f64> = (0..m).map(|_| next()).collect();
            y[0] = 1e12;
            cases.push((x, y));
        }
        let mut keys = Vec::new();
        for (mut x, mut y) in cases {
            x.sort_by(f64::total_cmp);
            y.sort_by(f64::total_cmp);
            let mut all: Vec<f64> = x
                .iter()
                .flat_map(|a| y.iter().map(move |b| a - b))
                .collect();
            all.sort_by(f64::total_cmp);
            let t = all.len();
            for ranks in [[1, t, t / 2, t / 2 + 1], [t / 3, 2 * t / 3, 7, t - 7]] {
                let got = kth_differences(&x, &y, ranks, &mut keys);
                let want = ranks.map(|k| all[k - 1]);
                assert_eq!(got, want, "{} x {}", x.len(), y.len());
            }
        }
    }

    #[test]
    fn order_keys_round_trip_and_sort() {
        let v = [-f64::MAX, -1.5, -0.0, 0.0, 1e-310, 2.0, f64::INFINITY];
        for w in v.windows(2) {
            assert!(order_key(w[0]) < order_key(w[1]));
        }
        for x in v {
            assert_eq!(from_key(order_key(x)).to_bits(), x.to_bits());
        }
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(rank_sum(&[], &[1.0], 0.95), None);
        assert_eq!(rank_sum(&[1.0], &[f64::NAN], 0.95), None);
        assert_eq!(rank_sum(&[1.0], &[2.0], 1.0), None);
        let r = rank_sum(&[3.0, 3.0], &[3.0, 3.0, 3.0], 0.95).unwrap();
        assert_eq!((r.p_value, r.shift, r.shift_ci), (1.0, 0.0, (0.0, 0.0)));
        let r = rank_sum(&[3.0, 3.0], &[5.0, 5.0, 5.0], 0.95).unwrap();
        assert_eq!((r.shift, r.shift_ci), (2.0, (2.0, 2.0)));
        assert!(!r.exact && r.p_value > 0.0 && r.p_value <= 1.0);
    }
}
