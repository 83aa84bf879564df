//! Two performance regimes in one side's samples (a second GC regime, a JIT tier that kicks in
//! on some runs), reported only when the samples show **separated** modes, at every sample size
//! from the 6 runs of a quick comparison to the 100,000 result lines of a per-iteration harness.
//!
//! The samples are first put on the log scale when all are positive and their logarithms are
//! less skewed than the values (regimes of a rate or a time differ by a factor, and the noise
//! of a benchmark is relative; but the log of values spread over orders of magnitude, such as
//! a uniform on (0, 1), grows a long tail of its own), then **de-rounded**:
//! the resolution `δ` of the printed values is found ([`resolution`]: the coarsest power of ten
//! all values are multiples of, or the smallest spacing when values repeat), every value
//! stands for its rounding bin `[y − δ/2, y + δ/2]`, and a run of `m` equal values is spread
//! evenly over its bin (the `j`-th at `y − δ/2 + (j + ½)·δ/m`). Two decimals of 0.50 and 0.51
//! thus read as a flat stretch from 0.495 to 0.515, not as two spikes.
//!
//! Two statistics of the sorted, de-rounded sample `z₁ ≤ … ≤ zₙ`:
//!
//! - **gap** `G = max_k gap_k / s_k` over the splits into a lower group of `k` and an upper group
//!   of `n − k` values, both at least [`min_regime_size`] (`max(2, ⌈n/10⌉)`: two runs far from
//!   the rest are a regime, one is an outlier): the empty stretch between the groups — from the
//!   top of the lower group's last rounding bin to the bottom of the upper group's first one —
//!   over the pooled within-group standard deviation `s_k = √((SS₁ + SS₂)/(n − 2))`. A gap
//!   statistic in the spirit of Wainer & Schacht (1978, "Gapping", *Psychometrika* 43,
//!   203–212): the separation of two modes relative to their spread. For a unimodal
//!   continuous sample it falls towards 0 as `n` grows (neighbouring values close in); two
//!   separated regimes keep an empty stretch between them at every `n`.
//! - **dip**: Hartigan's dip test of unimodality (J. A. Hartigan and P. M. Hartigan 1985, "The
//!   dip test of unimodality", *Annals of Statistics* 13, 70–84; [`super::dip`]), calibrated
//!   against the uniform, the least favourable unimodal shape, so its level holds for every
//!   unimodal distribution.
//!
//! # Decision
//!
//! A side shows two regimes when `n ≥` [`MIN_N`] and either
//! 1. **the gap alone** exceeds [`gap_critical`]`(n)`: a calibrated test of unimodality that
//!    sees a minority regime (2 of 10 runs) the dip test cannot; or
//! 2. **the dip test rejects** at [`DIP_ALPHA`] (the report's default α) **and the gap
//!    separates the modes**: `G >` [`dip_gap_critical`]`(n)`, a lower bar than (1).
//!
//! In both the regimes are the two groups of the gap's best split. The critical values are
//! simulated (`cargo run --release --example regime_tables -- calibrate`, seeded): for every
//! tabulated `n` from 6 to 10,000, the largest over fifteen unimodal shapes a benchmark meets —
//! right-skewed latencies (gamma(2) and Weibull(1.5), alone and as noise over a floor),
//! log-normal and normal with CV 1–10%, uniforms — of the value each shape exceeds in
//! [`FALSE_FLAG_SHARE`] of its samples (for (2): jointly with a dip rejection). Between
//! tabulated sizes they are interpolated linearly in `1/n`, and beyond the last they are held
//! (both fall with `n`: holding is conservative). A side of healthy samples is thus flagged in
//! at most about 0.3% of cases at every size, a comparison (two sides) in at most about 0.6%.
//!
//! What this costs: two regimes are found where the data show them apart. Two regimes 1.7×
//! apart with a within-regime CV of 3% are flagged from 10 runs (5 + 5) on, 2 of 10 runs at
//! twice the rate of the others likewise; regimes 1.3× apart (about ten within-regime standard
//! deviations) need about 20 runs to be flagged reliably; overlapping regimes (1.3× apart with
//! a CV of 8%, barely bimodal) are not flagged at any size, since averaging over them is what
//! a unimodal but wide distribution gives too. The full power table:
//! `examples/regime_tables.rs power`.
//!
//! Below 6 samples nothing is flagged: a 2+2 split of four runs is what two pairs of a
//! unimodal sample often look like (the dip of `{1, 1.01, 2, 2.02}` is the largest possible,
//! `1/4`), and no test at that size tells them apart from two regimes at a useful false-flag
//! rate. Reports say so when a side of 4 or 5 splits like that
//! ([`super::shape::too_few_to_tell`]).
//!
//! # Regimes that cannot matter
//!
//! The statistics are scale-free, so they also find two groups in values that hardly vary:
//! instruction counts of a deterministic program that differ by a handful of instructions
//! between runs (1000000, 1000001, 1000003 against 1000040, 1000042) form two groups with a
//! large gap relative to their spread. Two groups whose centres are less than
//! [`MIN_RELATIVE_DISTANCE`] (0.1%) apart are one regime ([`apart`]): a tenth of the default
//! `--threshold` of 1% and the smallest threshold the docs suggest (0.1%, for instruction
//! counts), so averaging over them moves a change by less than any change a report is asked
//! to resolve. Wall times never show such groups (a CV of 0.5% or more hides them).

use super::dip::{dip_of_sorted, dip_p_value};

/// Fewest samples on which a second regime can be flagged.
pub const MIN_N: usize = 6;

/// Significance level of the dip test in the decision's second arm (module notes).
pub const DIP_ALPHA: f64 = 0.05;

/// Share of healthy samples of each simulated shape above a critical value (module notes):
/// 0.15% per arm.
pub const FALSE_FLAG_SHARE: f64 = 0.0015;

/// Smallest distance between the centres of two regimes, relative to the larger centre's
/// magnitude (0.1%; module notes, "Regimes that cannot matter").
pub const MIN_RELATIVE_DISTANCE: f64 = 1e-3;

/// Whether two centres `a` and `b` (units of the samples) are far enough apart to be two
/// regimes: `|b − a| > ` [`MIN_RELATIVE_DISTANCE`] `· max(|a|, |b|)`. False when either is NaN.
pub fn apart(a: f64, b: f64) -> bool {
    (b - a).abs() > MIN_RELATIVE_DISTANCE * a.abs().max(b.abs())
}

/// Smallest number of samples that makes a regime: `max(2, ⌈n/10⌉)` of `n`.
pub fn min_regime_size(n: usize) -> usize {
    2usize.max(n.div_ceil(10))
}

/// One regime of a side's samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Regime {
    /// Median of the regime's samples (units of the samples).
    pub centre: f64,
    /// Fraction of the side's samples in this regime, in `(0, 1)`.
    pub share: f64,
    /// Number of samples in the regime.
    pub count: usize,
    /// Smallest sample of the regime (units of the samples).
    pub low: f64,
    /// Largest sample of the regime (units of the samples).
    pub high: f64,
}

/// The statistics of [`regime_statistics`] (module notes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegimeStats {
    /// Number of samples.
    pub n: usize,
    /// Whether the statistics were computed on the log of the samples (all positive).
    pub log_scale: bool,
    /// Rounding resolution found in the samples (units of the samples; 0 when none).
    pub resolution: f64,
    /// Gap statistic `G` (unitless).
    pub gap: f64,
    /// Lower-group size of the split that maximises `G`.
    pub gap_split: usize,
    /// Dip statistic of the de-rounded sample (fraction of probability mass, `[1/(2n), 1/4]`).
    pub dip: f64,
    /// Dip test p-value ([`super::dip::dip_p_value`]).
    pub dip_p: f64,
}

/// Two regimes found in a side's samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Regimes {
    /// The statistics behind the decision.
    pub stats: RegimeStats,
    /// The lower and the upper regime (by value).
    pub regimes: [Regime; 2],
    /// The gap alone exceeded [`gap_critical`] (arm 1 of the module notes).
    pub by_gap: bool,
    /// The dip test rejected at [`DIP_ALPHA`] and the gap exceeded [`dip_gap_critical`]
    /// (arm 2).
    pub by_dip: bool,
    /// [`gap_critical`] of the sample size.
    pub gap_critical: f64,
    /// [`dip_gap_critical`] of the sample size.
    pub dip_gap_critical: f64,
}

/// The rounding resolution of `x` (units of the samples): the coarsest power of ten, from
/// `10⁻⁹` of the largest magnitude up, of which every value is a multiple (within `10⁻⁴` of
/// the step); when some value repeats exactly, at least the smallest positive spacing between
/// distinct values. 0 for an empty or all-zero sample or any non-finite value.
pub fn resolution(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.to_vec();
    v.sort_by(f64::total_cmp);
    resolution_sorted(&v)
}

/// [`resolution`] of a sample already sorted (by `f64::total_cmp`).
fn resolution_sorted(x: &[f64]) -> f64 {
    let max = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if max == 0.0 || !max.is_finite() {
        return 0.0;
    }
    let top = max.log10().ceil() as i32;
    let mut dec = 0.0;
    for k in (top - 9..=top).rev() {
        let step = 10f64.powi(k);
        if x.iter().all(|&v| {
            let q = v / step;
            (q - q.round()).abs() <= 1e-4
        }) {
            dec = step;
            break;
        }
    }
    let v = x;
    let ties = v.windows(2).any(|w| w[0] == w[1]);
    let spacing = v
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    if ties && spacing.is_finite() {
        dec.max(spacing)
    } else {
        dec
    }
}

/// Sorted de-rounded values on the working scale, with the bin of each, `(z, lo, hi)`, of `y`
/// (sorted by `f64::total_cmp`), given `ln[i] = y[i].ln()` when `log`, written into `out`.
/// Without a resolution every bin is its value, `(z, z, z)`, with no further logarithm.
fn derounded_sorted(y: &[f64], ln: &[f64], delta: f64, log: bool, out: &mut Vec<(f64, f64, f64)>) {
    out.clear();
    if delta == 0.0 {
        // v − 0/2 = v = v + 0/2, and (v − 0/2).max(v/2) = v for v > 0: the bins of the general
        // case below, with the logarithm taken once.
        out.extend((0..y.len()).map(|i| {
            let t = if log { ln[i] } else { y[i] };
            (t, t, t)
        }));
        return;
    }
    let tr = |v: f64| if log { v.ln() } else { v };
    let bin = |v: f64| {
        let lo = if log {
            (v - delta / 2.0).max(v / 2.0)
        } else {
            v - delta / 2.0
        };
        (tr(lo), tr(v + delta / 2.0))
    };
    let mut i = 0;
    while i < y.len() {
        let mut j = i;
        while j + 1 < y.len() && y[j + 1] == y[i] {
            j += 1;
        }
        let m = j - i + 1;
        let (lo, hi) = bin(y[i]);
        if m == 1 {
            out.push((if log { ln[i] } else { y[i] }, lo, hi));
        } else {
            for k in 0..m {
                out.push((lo + (k as f64 + 0.5) * (hi - lo) / m as f64, lo, hi));
            }
        }
        i = j + 1;
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
}

/// Sample skewness `m₃ / m₂^{3/2}` (central moments; 0 for a sample without spread).
fn skewness(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let m2 = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let m3 = x.iter().map(|v| (v - mean).powi(3)).sum::<f64>() / n;
    if m2 > 0.0 { m3 / m2.powf(1.5) } else { 0.0 }
}

/// Running `(mean, sum of squared deviations)` of the first `k` values, `k = 1..=len`
/// (Welford's update), written into `out`.
fn running(it: impl Iterator<Item = f64>, out: &mut Vec<(f64, f64)>) {
    let (mut m, mut ss) = (0.0f64, 0.0f64);
    out.clear();
    out.extend(it.enumerate().map(|(i, a)| {
        let d = a - m;
        m += d / (i + 1) as f64;
        ss += d * (a - m);
        (m, ss)
    }));
}

/// The order of `x` by `f64::total_cmp`, equal values in arrival order (the permutation a
/// stable sort of the indices gives), written into `order`: by one sort of integer keys
/// ([`super::rank::order_key`], then the index).
pub fn sort_order(x: &[f64], order: &mut Vec<u32>) {
    let mut keys: Vec<(u64, u32)> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| (super::rank::order_key(v), i as u32))
        .collect();
    keys.sort_unstable();
    order.clear();
    order.extend(keys.iter().map(|k| k.1));
}

/// The gap and dip statistics of the module notes for the samples `x` (units irrelevant:
/// both statistics are scale-free).
///
/// `None` for fewer than [`MIN_N`] values, any NaN or infinite value, or a sample with no
/// spread after de-rounding. Cost: a sort and a few linear passes.
pub fn regime_statistics(x: &[f64]) -> Option<RegimeStats> {
    let mut order = Vec::with_capacity(x.len());
    sort_order(x, &mut order);
    regime_statistics_ordered(x, &order)
}

/// As [`regime_statistics`], given the order of `x` ([`sort_order`]), which the caller may need
/// too (one sort for both). An `order` of another length is ignored.
pub fn regime_statistics_ordered(x: &[f64], order: &[u32]) -> Option<RegimeStats> {
    let n = x.len();
    if n < MIN_N || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    if order.len() != n {
        return regime_statistics(x);
    }
    let y: Vec<f64> = order.iter().map(|&i| x[i as usize]).collect();
    let positive = y[0] > 0.0;
    let ln_x: Vec<f64> = if positive {
        x.iter().map(|v| v.ln()).collect()
    } else {
        Vec::new()
    };
    let log = positive && skewness(&ln_x).abs() <= skewness(x).abs();
    let ln_y: Vec<f64> = if log {
        order.iter().map(|&i| ln_x[i as usize]).collect()
    } else {
        Vec::new()
    };
    let delta = resolution_sorted(&y);
    let mut pts = Vec::with_capacity(n);
    derounded_sorted(&y, &ln_y, delta, log, &mut pts);
    let z: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let (mut fwd, mut bwd) = (Vec::with_capacity(n), Vec::with_capacity(n));
    running(z.iter().copied(), &mut fwd);
    running(z.iter().rev().copied(), &mut bwd);
    bwd.reverse(); // bwd[i]: the values z[i..]
    let sst = fwd[n - 1].1;
    if sst.is_nan() || sst <= 0.0 || sst.is_infinite() {
        return None;
    }
    let min = min_regime_size(n);
    let (mut gap, mut gap_split) = (0.0f64, min);
    for k in min..=n - min {
        let w = fwd[k - 1].1 + bwd[k].1;
        let g = (pts[k].1 - pts[k - 1].2).max(0.0);
        let s = (w / (n as f64 - 2.0)).sqrt();
        let gk = if s > 0.0 {
            g / s
        } else if g > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        if gk > gap {
            gap = gk;
            gap_split = k;
        }
    }
    let d = dip_of_sorted(&z);
    Some(RegimeStats {
        n,
        log_scale: log,
        resolution: delta,
        gap,
        gap_split,
        dip: d,
        dip_p: dip_p_value(d, n),
    })
}

/// Critical value of the gap statistic `G` alone for `n` samples (arm 1 of the module notes).
/// `NaN` below [`MIN_N`].
pub fn gap_critical(n: usize) -> f64 {
    interpolate(&CRITICAL, n, |r| r.1)
}

/// Critical value of the gap statistic `G` beside a dip rejection for `n` samples (arm 2 of
/// the module notes); at most [`gap_critical`]. `NaN` below [`MIN_N`].
pub fn dip_gap_critical(n: usize) -> f64 {
    interpolate(&CRITICAL, n, |r| r.2)
}

/// The column `col` of `table` at `n`: linear in `1/n` between tabulated sizes, held beyond the
/// last, NaN below [`MIN_N`].
fn interpolate(table: &[(usize, f64, f64)], n: usize, col: fn(&(usize, f64, f64)) -> f64) -> f64 {
    if n < MIN_N {
        return f64::NAN;
    }
    match table.iter().position(|r| r.0 >= n) {
        None => col(&table[table.len() - 1]),
        Some(i) if table[i].0 == n || i == 0 => col(&table[i]),
        Some(i) => {
            let (a, b) = (&table[i - 1], &table[i]);
            let (ia, ib) = (1.0 / a.0 as f64, 1.0 / b.0 as f64);
            let t = (ia - 1.0 / n as f64) / (ia - ib);
            col(a) + t * (col(b) - col(a))
        }
    }
}

/// `(n, gap_critical, dip_gap_critical)`: simulated by `examples/regime_tables.rs calibrate`
/// (module notes; 20,000 samples per shape up to n = 30, 10,000 up to 300, 5,000 up to 2,000,
/// 2,000 beyond), made non-increasing in `n` (each value the largest of its own and those of larger
/// sizes).
const CRITICAL: [(usize, f64, f64); 40] = [
    (6, 18.7898, 17.2350),
    (7, 14.1221, 12.7133),
    (8, 11.3068, 10.8013),
    (9, 9.3789, 8.3024),
    (10, 7.7701, 7.4552),
    (11, 7.0242, 6.3213),
    (12, 6.2432, 6.1463),
    (13, 5.6081, 5.1066),
    (14, 5.2604, 4.9160),
    (15, 5.1918, 4.4699),
    (16, 4.8684, 4.2389),
    (18, 4.3855, 3.6205),
    (20, 3.9618, 3.3116),
    (22, 3.1518, 2.9714),
    (25, 3.0353, 2.5900),
    (28, 2.8512, 2.3016),
    (30, 2.5954, 2.1734),
    (35, 2.2249, 1.9127),
    (40, 2.0422, 1.6580),
    (45, 1.7437, 1.5526),
    (50, 1.6358, 1.3687),
    (60, 1.3834, 1.1348),
    (70, 1.1369, 0.9573),
    (80, 1.1153, 0.8267),
    (100, 0.8795, 0.6678),
    (120, 0.7302, 0.5672),
    (150, 0.5936, 0.4311),
    (200, 0.4674, 0.3392),
    (250, 0.3622, 0.2728),
    (300, 0.3369, 0.2154),
    (400, 0.2511, 0.1626),
    (500, 0.2065, 0.1370),
    (700, 0.1580, 0.0985),
    (1000, 0.1074, 0.0719),
    (1500, 0.0746, 0.0469),
    (2000, 0.0572, 0.0374),
    (3000, 0.0372, 0.0247),
    (5000, 0.0250, 0.0152),
    (7000, 0.0183, 0.0112),
    (10000, 0.0133, 0.0079),
];

/// Two regimes in `x` (module notes), or `None`: too few samples (below [`MIN_N`]), any NaN or
/// infinite value, neither arm of the decision, or the two groups' centres less than
/// [`MIN_RELATIVE_DISTANCE`] apart ([`apart`]).
pub fn regimes(x: &[f64]) -> Option<Regimes> {
    decide(x, regime_statistics(x)?)
}

/// The decision of [`regimes`] for statistics already computed from the same `x` by
/// [`regime_statistics`].
pub fn decide(x: &[f64], stats: RegimeStats) -> Option<Regimes> {
    let (gap_crit, dip_crit) = (gap_critical(stats.n), dip_gap_critical(stats.n));
    let by_gap = stats.gap > gap_crit;
    let by_dip = stats.dip_p < DIP_ALPHA && stats.gap > dip_crit;
    if !(by_gap || by_dip) || x.len() != stats.n {
        return None;
    }
    let k = stats.gap_split;
    let mut y = x.to_vec();
    y.sort_by(f64::total_cmp);
    let n = y.len() as f64;
    let regime = |s: &[f64]| Regime {
        centre: super::quantile::median(s),
        share: s.len() as f64 / n,
        count: s.len(),
        low: s[0],
        high: s[s.len() - 1],
    };
    let (lower, upper) = (regime(&y[..k]), regime(&y[k..]));
    if !apart(lower.centre, upper.centre) {
        return None;
    }
    Some(Regimes {
        stats,
        regimes: [lower, upper],
        by_gap,
        by_dip,
        gap_critical: gap_crit,
        dip_gap_critical: dip_crit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`derounded_sorted`] of `x` in any order.
    fn derounded(x: &[f64], delta: f64, log: bool) -> Vec<(f64, f64, f64)> {
        let mut y: Vec<f64> = x.to_vec();
        y.sort_by(f64::total_cmp);
        let ln: Vec<f64> = y.iter().map(|v| v.ln()).collect();
        let mut out = Vec::new();
        derounded_sorted(&y, &ln, delta, log, &mut out);
        out
    }

    /// `base · (1 + spread·u)` for a fixed pseudo-random `u` in [−1, 1] per index.
    fn noisy(base: f64, spread: f64, i: usize) -> f64 {
        let u = ((i as f64 * 0.618_033_988_75).fract() - 0.5) * 2.0;
        base * (1.0 + spread * u)
    }

    #[test]
    fn two_clusters_of_five_are_two_regimes() {
        // The next-tick-breadth shape: 5 runs near 3.3M and 5 near 5.9M ops/s, ±3%.
        let x: Vec<f64> = (0..10)
            .map(|i| noisy(if i % 2 == 0 { 3.3e6 } else { 5.9e6 }, 0.03, i))
            .collect();
        let r = regimes(&x).expect("two regimes");
        assert!(r.by_gap && r.by_dip, "{r:?}");
        let [lo, hi] = r.regimes;
        assert_eq!((lo.count, hi.count), (5, 5));
        assert!((lo.centre / 3.3e6 - 1.0).abs() < 0.03 && (hi.centre / 5.9e6 - 1.0).abs() < 0.03);
        assert_eq!((lo.share, hi.share), (0.5, 0.5));
    }

    #[test]
    fn two_of_ten_at_twice_the_rate_is_a_regime() {
        let mut x: Vec<f64> = (0..8).map(|i| noisy(1.0e6, 0.03, i)).collect();
        x.extend((8..10).map(|i| noisy(2.0e6, 0.03, i)));
        let r = regimes(&x).expect("a second regime");
        assert!(
            r.by_gap && !r.by_dip,
            "the dip test does not see 2 of 10: {r:?}"
        );
        assert_eq!((r.regimes[0].count, r.regimes[1].count), (8, 2));
        assert!((r.regimes[1].share - 0.2).abs() < 1e-12);
    }

    #[test]
    fn one_far_run_is_an_outlier_not_a_regime() {
        let mut x: Vec<f64> = (0..9).map(|i| noisy(1.0e6, 0.03, i)).collect();
        x.push(2.0e6);
        assert!(regimes(&x).is_none());
    }

    #[test]
    fn four_samples_are_too_few() {
        assert!(regime_statistics(&[1.0, 1.01, 2.0, 2.02]).is_none());
        assert!(regimes(&[1.0, 1.01, 1.02, 2.0, 2.02]).is_none());
        assert!(gap_critical(5).is_nan() && dip_gap_critical(5).is_nan());
    }

    #[test]
    fn rounded_ties_are_not_regimes() {
        // Two decimals, three distinct values, many exact ties.
        let x = [0.50, 0.51, 0.50, 0.50, 0.51, 0.50, 0.49, 0.51, 0.50, 0.50];
        assert!((resolution(&x) - 0.01).abs() < 1e-12);
        assert!(regimes(&x).is_none(), "{:?}", regime_statistics(&x));
        let x = [1.00, 1.00, 1.00, 1.01, 1.01, 1.01];
        assert!(regimes(&x).is_none(), "{:?}", regime_statistics(&x));
        // Rounding that still leaves a real gap: 0.50/0.51 against 1.00/1.01.
        let x = [0.50, 0.51, 0.50, 0.51, 0.50, 1.00, 1.01, 1.00, 1.01, 1.00];
        assert!(regimes(&x).is_some());
    }

    #[test]
    fn counts_a_handful_apart_are_one_regime() {
        // Instruction counts of a deterministic program: two groups 40 instructions apart.
        let x: Vec<f64> = [0.0, 1.0, 3.0, 0.0, 2.0, 40.0, 41.0, 43.0, 40.0, 42.0]
            .iter()
            .map(|d| 1234567.0 + d)
            .collect();
        let s = regime_statistics(&x).expect("statistics");
        assert!(s.gap > gap_critical(s.n), "the gap fires: {s:?}");
        assert!(regimes(&x).is_none());
        // The same shape 1% apart is two regimes.
        let y: Vec<f64> = x
            .iter()
            .map(|&v| if v > 1234587.0 { v * 1.01 } else { v })
            .collect();
        assert!(regimes(&y).is_some());
        assert!(apart(1.0, 1.0011) && !apart(1.0, 1.0009) && !apart(f64::NAN, 1.0));
        assert!(apart(-1.0, 1.0) && apart(1e-9, 2e-9) && !apart(0.0, 0.0));
    }

    #[test]
    fn resolution_of_printed_values() {
        assert!((resolution(&[1.25, 3.5, 0.75]) - 0.01).abs() < 1e-15);
        assert_eq!(resolution(&[120.0, 340.0, 560.0]), 10.0);
        assert_eq!(resolution(&[0.0, 0.0]), 0.0);
        let fine = [3312456.123456789, 3287001.987654321];
        assert!(resolution(&fine) < 1e-2);
        // Repeated values without a decimal step: the smallest spacing.
        assert_eq!(resolution(&[1.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0]), 1.0 / 3.0);
    }

    #[test]
    fn derounding_spreads_ties_over_their_bin() {
        let d = derounded(&[0.5, 0.5, 0.51], 0.01, false);
        assert!((d[0].0 - 0.4975).abs() < 1e-12 && (d[1].0 - 0.5025).abs() < 1e-12);
        assert!((d[2].0 - 0.51).abs() < 1e-12 && (d[2].1 - 0.505).abs() < 1e-12);
    }

    #[test]
    fn critical_values_fall_with_n_and_are_held_beyond_the_table() {
        let mut last = (f64::INFINITY, f64::INFINITY);
        for n in MIN_N..=20_000 {
            let (g, d) = (gap_critical(n), dip_gap_critical(n));
            assert!(
                g <= last.0 && d <= last.1 && d <= g && g.is_finite(),
                "n={n}"
            );
            last = (g, d);
        }
        assert_eq!(gap_critical(1_000_000), gap_critical(20_000));
    }

    #[test]
    fn odd_input() {
        // Printed integers stand for their rounding bins: spread, but one regime.
        assert!(regime_statistics(&[1.0; 8]).is_some() && regimes(&[1.0; 8]).is_none());
        assert!(regime_statistics(&[1.234_567_891_234_5; 8]).is_none());
        assert!(regime_statistics(&[1.0, 2.0, 3.0, f64::NAN, 4.0, 5.0, 6.0]).is_none());
        // Negative values work on the raw scale.
        let x = [-5.0, -5.1, -4.9, -5.05, 5.0, 5.1, 4.9, 5.05];
        let s = regime_statistics(&x).expect("stats");
        assert!(!s.log_scale);
        assert!(regimes(&x).is_some());
        // An order of another length is ignored.
        assert_eq!(regime_statistics_ordered(&x, &[0]), Some(s));
    }
}
