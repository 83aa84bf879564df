//! Two performance regimes in one side's samples (a second GC regime, a JIT tier that kicks in
//! on some runs): detection with power at the 6–30 runs benchmarks use, and robust to rounding.
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
//! Three statistics of the sorted, de-rounded sample `z₁ ≤ … ≤ zₙ`, each over the splits into
//! a lower group of `k` and an upper group of `n − k` values, both at least
//! [`min_regime_size`] (`max(2, ⌈n/10⌉)`: two runs far from the rest are a regime, one is an
//! outlier):
//!
//! - **gap** `G = max_k gap_k / s_k`: the empty stretch between the groups — from the top of the
//!   lower group's last rounding bin to the bottom of the upper group's first one — over the
//!   pooled within-group standard deviation `s_k = √((SS₁ + SS₂)/(n − 2))`. A gap statistic in
//!   the spirit of Wainer & Schacht (1978, "Gapping", *Psychometrika* 43, 203–212), with its
//!   critical values simulated here because the maximum over splits has no closed form.
//! - **mixture** `ΔBIC`: a two-component Gaussian mixture with a common variance, fitted by EM
//!   (A. P. Dempster, N. M. Laird and D. B. Rubin 1977, "Maximum likelihood from incomplete
//!   data via the EM algorithm", *JRSS B* 39, 1–38) from the best split (the split with the
//!   largest classification likelihood, which in one dimension is a contiguous split of the
//!   sorted sample: W. D. Fisher 1958, "On grouping for maximum homogeneity", *JASA* 53,
//!   789–798), against one Gaussian, compared by the Bayesian information criterion
//!   (G. Schwarz 1978, "Estimating the dimension of a model", *Annals of Statistics* 6,
//!   461–464): `ΔBIC = 2(ℓ₂ − ℓ₁) − 2·ln n` (two more parameters: the second mean and the
//!   weight). The usual "ΔBIC > 0" is far from a 5% test at these sample sizes, so the
//!   threshold is simulated too.
//! - **dip**: Hartigan's dip test (J. A. Hartigan and P. M. Hartigan 1985, "The dip test of
//!   unimodality", *Annals of Statistics* 13, 70–84; [`super::dip`]), reported for reference.
//!
//! # Decision and its measured power
//!
//! A side shows two regimes when `n ≥` [`MIN_N`] and `G` or `ΔBIC` exceeds its critical value
//! for `n` ([`gap_critical`], [`bic_critical`]): the larger of the statistic's 99.5th
//! percentile on normal samples of that size (the statistics are affine-invariant, so this
//! holds for every mean and CV) and its 99th percentile on uniform samples (flat and
//! short-tailed, the shape of a benchmark drifting steadily across its runs, where a two-group
//! split fits best without two regimes: with the normal values alone the mixture flagged 15% of
//! uniform samples of 30). Both tables were simulated here; between tabulated sizes they are
//! interpolated linearly in `1/n`, beyond `n = 200` held (they fall with `n`, except the
//! uniform `ΔBIC`, which rises: held, it is lenient there, and the dip test has ample power at
//! such sizes).
//!
//! Below 6 samples nothing is flagged: a 2+2 split of four runs is what two pairs of a
//! unimodal sample often look like (the dip of `{1, 1.01, 2, 2.02}` is the largest possible,
//! `1/4`), and no test at that size tells them apart from two regimes at a useful false-flag
//! rate. Reports say so when a side of 4 or 5 splits like that
//! ([`super::shape::too_few_to_tell`]).
//!
//! The dip test is not part of this decision: it is calibrated against the uniform, the least
//! favourable unimodal shape, and at these sizes it only sees even splits — with 3 of 10 runs
//! in a regime twice as fast it rejects in half the samples, and 2 runs out of 10 never.
//! [`super::shape`] uses it beside this test (on the de-rounded samples), which carries even
//! splits of overlapping regimes and three or more modes.
//!
//! Power, percent of 1000 seeded samples (`examples/regime_tables.rs power`;
//! regimes `r×` apart, each with log-normal noise of CV 3%, the minority regime holding
//! `round(share·n)` runs; "test": this module; "flag": the report's multimodal flag of
//! [`super::shape`], this test or the dip test with KDE modes):
//!
//! ```text
//!            r = 1.3              r = 1.5              r = 2.0
//!  n   50/50 70/30 80/20    50/50 70/30 80/20    50/50 70/30 80/20   (test / flag)
//!  6   26/89 25/27   0/0    64/99 62/64   0/0    98/100 98/98   0/0   (80/20 = 1 run: outlier)
//!  8   57/92 54/54 54/54    97/100 95/95 95/95   100 everywhere
//! 10   78/97 78/78 82/82    100 everywhere       100 everywhere
//! 12   95/99 95/95 94/94    100                  100
//! 15+  ≥ 97 everywhere      100                  100
//! ```
//!
//! With CV 8% inside each regime (1.3× apart is then 3.3 standard deviations: barely bimodal)
//! the power is far lower (test/flag, 50/50 then 70/30): `r = 2`: n = 6 28/89, 24/26; n = 8
//! 58/92, 53/54; n = 10 78/97, 77/77; from n = 12 ≥ 90. `r = 1.5`: n = 10 16/48, 16/17;
//! n = 20 44/71, 46/46; n = 30 66/85, 68/68. `r = 1.3`: test ≤ 7%, flag ≤ 16%.
//!
//! False flags (`regime_tables false-flags`, 1000 samples per family and size, n = 6, 8, 10, 15, 20,
//! 30): this test ≤ 1% on normal and log-normal samples with CV 1–10%, ≤ 2% on uniform
//! samples and on Student's t with 3 and 5 degrees of freedom, 0% on values rounded to two
//! decimals with a standard deviation of 0.3–2 hundredths (2 to 8 distinct values, many ties).
//! The dip arm of the report's flag adds about 1% (6% on the uniform, its own null).
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
    /// Gap statistic `G` (unitless), with the size of the lower group of its best split.
    pub gap: f64,
    /// Lower-group size of the split that maximises `G`.
    pub gap_split: usize,
    /// `ΔBIC` of two mixture components against one (positive favours two); `−∞` when EM
    /// ends with a component lighter than [`min_regime_size`] samples (an outlier, not a
    /// regime).
    pub bic: f64,
    /// Lower-group size of the split the mixture's EM started from (largest classification
    /// likelihood).
    pub bic_split: usize,
    /// Dip statistic of the de-rounded sample.
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
    /// Which statistics exceeded their critical values.
    pub by_gap: bool,
    /// `ΔBIC` exceeded [`bic_critical`].
    pub by_bic: bool,
    /// [`gap_critical`] of the sample size: the gap statistic's critical value.
    pub gap_critical: f64,
    /// [`bic_critical`] of the sample size: `ΔBIC`'s critical value.
    pub bic_critical: f64,
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

/// Buffers of [`statistics`], reused by its steps.
#[derive(Default)]
struct Scratch {
    order: Vec<u32>,
    y: Vec<f64>,
    ln_x: Vec<f64>,
    ln_y: Vec<f64>,
    pts: Vec<(f64, f64, f64)>,
    z: Vec<f64>,
    fwd: Vec<(f64, f64)>,
    bwd: Vec<(f64, f64)>,
}

/// The gap, mixture and dip statistics of the module notes for the samples `x` (units
/// irrelevant: every statistic is scale-free).
///
/// `None` for fewer than [`MIN_N`] values, any NaN or infinite value, or a sample with no
/// spread after de-rounding.
/// Cost: a sort, a few linear passes and at most 100 EM iterations of `O(n)`.
pub fn regime_statistics(x: &[f64]) -> Option<RegimeStats> {
    statistics(x, None, true)
}

/// As [`regime_statistics`], for a caller that only passes the result to [`decide`] (and shows
/// [`RegimeStats::bic`] only for a flagged side): the same statistics, except that
/// [`RegimeStats::bic`] of a side that neither the gap nor the mixture flags may be the
/// screened approximation of [`em_screen`] (below [`bic_critical`] by a wide margin) instead of
/// the exact EM's value. Whenever the gap fires, the screen's `ΔBIC` is above or within its
/// margin of the critical value, or the screen's lighter component is within its margin of
/// the [`min_regime_size`] limit, the exact EM runs, so [`decide`] gives the same answer and a
/// flagged side the same `ΔBIC`, bit for bit, as with [`regime_statistics`].
///
/// Cost: as [`regime_statistics`], with an EM whose E step costs one inlined polynomial
/// exponential per point instead of three library calls (about a third of the time of the
/// statistics on the 25-run sides of a report).
pub fn regime_statistics_screened(x: &[f64]) -> Option<RegimeStats> {
    statistics(x, None, false)
}

/// As [`regime_statistics_screened`], given the order of `x` ([`sort_order`]), which the
/// caller may need too (one sort for both).
pub fn regime_statistics_screened_ordered(x: &[f64], order: &[u32]) -> Option<RegimeStats> {
    if x.len() != order.len() {
        return regime_statistics_screened(x);
    }
    statistics(x, Some(order), false)
}

/// [`regime_statistics`] (`exact`) or [`regime_statistics_screened`], with the order of `x`
/// when the caller has it.
fn statistics(x: &[f64], order: Option<&[u32]>, exact: bool) -> Option<RegimeStats> {
    let n = x.len();
    if n < MIN_N || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    statistics_in(x, order, exact, &mut Scratch::default())
}

/// [`statistics`] with its buffers.
fn statistics_in(
    x: &[f64],
    order: Option<&[u32]>,
    exact: bool,
    s: &mut Scratch,
) -> Option<RegimeStats> {
    let n = x.len();
    let Scratch {
        order: own_order,
        y,
        ln_x,
        ln_y,
        pts,
        z,
        fwd,
        bwd,
    } = s;
    // One sort (of the indices, so that the logarithms taken in arrival order for the
    // skewness serve the sorted values too).
    let order = match order {
        Some(o) => o,
        None => {
            sort_order(x, own_order);
            own_order
        }
    };
    y.clear();
    y.extend(order.iter().map(|&i| x[i as usize]));
    let positive = y[0] > 0.0;
    ln_x.clear();
    if positive {
        ln_x.extend(x.iter().map(|v| v.ln()));
    }
    let log = positive && skewness(ln_x).abs() <= skewness(x).abs();
    ln_y.clear();
    if log {
        ln_y.extend(order.iter().map(|&i| ln_x[i as usize]));
    }
    let delta = resolution_sorted(y);
    derounded_sorted(y, ln_y, delta, log, pts);
    z.clear();
    z.extend(pts.iter().map(|p| p.0));
    running(z.iter().copied(), fwd);
    running(z.iter().rev().copied(), bwd);
    bwd.reverse(); // bwd[i]: the values z[i..]
    let (mean, sst) = fwd[n - 1];
    if sst.is_nan() || sst <= 0.0 || sst.is_infinite() {
        return None;
    }
    let nf = n as f64;
    let min = min_regime_size(n);
    let (mut gap, mut gap_split) = (0.0f64, min);
    let (mut best_cl, mut bic_split) = (f64::NEG_INFINITY, min);
    let shares = share_terms(n);
    for k in min..=n - min {
        let (m1, ss1) = fwd[k - 1];
        let (m2, ss2) = bwd[k];
        let _ = (m1, m2);
        let w = ss1 + ss2;
        let g = (pts[k].1 - pts[k - 1].2).max(0.0);
        let s = (w / (nf - 2.0)).sqrt();
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
        // Classification log-likelihood (up to a constant) of the split with a common variance.
        let (t1, t2) = shares[k];
        let cl = -nf / 2.0 * (w / nf).ln() + t1 + t2;
        if cl > best_cl {
            best_cl = cl;
            bic_split = k;
        }
    }
    // EM for the two-component common-variance mixture, started from the best split.
    let ll1 = -nf / 2.0 * ((std::f64::consts::TAU * sst / nf).ln() + 1.0);
    // A component of fewer than `min` samples' weight is an outlier, not a regime.
    let light = min as f64 - 0.5;
    let bic_of = |ll2: f64, weight: f64| {
        if weight.min(1.0 - weight) * nf >= light {
            2.0 * (ll2 - ll1) - 2.0 * nf.ln()
        } else {
            f64::NEG_INFINITY
        }
    };
    let var_floor = sst / nf * 1e-6;
    let screened = if exact || gap > gap_critical(n) {
        None
    } else {
        let (ll2, weight) = em_screen(z, bic_split, var_floor);
        // Margins of `em_screen` (its notes): far below the critical value, or with a clearly
        // too light component, the exact EM decides the same; otherwise (near a limit, or
        // beyond the critical value, where the value is shown) it runs.
        let margin = SCREEN_MARGIN * (1.0 + ll2.abs() + ll1.abs());
        let below = 2.0 * (ll2 - ll1) - 2.0 * nf.ln() < bic_critical(n) - margin;
        let too_light = weight.min(1.0 - weight) * nf < light - WEIGHT_MARGIN;
        (below || too_light).then(|| bic_of(ll2, weight))
    };
    let bic = screened.unwrap_or_else(|| {
        let (ll2, weight) = em_common_variance(z, bic_split, var_floor);
        bic_of(ll2, weight)
    });
    let _ = mean;
    let d = dip_of_sorted(z);
    Some(RegimeStats {
        n,
        log_scale: log,
        resolution: delta,
        gap,
        gap_split,
        bic,
        bic_split,
        dip: d,
        dip_p: dip_p_value(d, n),
    })
}

/// `(k·ln(k/n), (n−k)·ln((n−k)/n))` for `k = 0..=n`: the weight terms of the classification
/// log-likelihood of [`regime_statistics`], which depend on `n` only.
fn share_terms(n: usize) -> Vec<(f64, f64)> {
    let nf = n as f64;
    (0..=n)
        .map(|k| {
            let (n1, n2) = (k as f64, (n - k) as f64);
            (n1 * (n1 / nf).ln(), n2 * (n2 / nf).ln())
        })
        .collect()
}

/// The EM's starting parameters from the hard split of sorted `z` after `k` values: the two
/// means, the weight of the lower part and the common variance (floored at `var_floor`).
/// Shared by the exact EM and its screen, which must start from the same point.
fn em_start(z: &[f64], k: usize, var_floor: f64) -> (f64, f64, f64, f64) {
    let nf = z.len() as f64;
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let (m1, m2) = (mean(&z[..k]), mean(&z[k..]));
    let ss: f64 = z[..k].iter().map(|a| (a - m1).powi(2)).sum::<f64>()
        + z[k..].iter().map(|a| (a - m2).powi(2)).sum::<f64>();
    (m1, m2, k as f64 / nf, (ss / nf).max(var_floor))
}

/// Maximum log-likelihood reached by EM for a two-component Gaussian mixture with a common
/// variance (floored at `var_floor`) on sorted `z`, from the hard split after `k` values, and
/// the weight of the lower component.
fn em_common_variance(z: &[f64], k: usize, var_floor: f64) -> (f64, f64) {
    let n = z.len();
    let nf = n as f64;
    let (mut m1, mut m2, mut w, mut var) = em_start(z, k, var_floor);
    let mut r = vec![0.0f64; n];
    let mut ll = f64::NEG_INFINITY;
    for _ in 0..100 {
        // E step (log-sum-exp for stability) and the log-likelihood of the current parameters.
        let c = -0.5 * (std::f64::consts::TAU * var).ln();
        let (lw1, lw2) = (w.ln(), (1.0 - w).ln());
        // exp(0) = 1 exactly: the larger term needs no exp (same bits, a third fewer calls).
        let exp0 = |d: f64| if d == 0.0 { 1.0 } else { d.exp() };
        let mut new_ll = 0.0;
        for (ri, &a) in r.iter_mut().zip(z) {
            let l1 = lw1 + c - (a - m1).powi(2) / (2.0 * var);
            let l2 = lw2 + c - (a - m2).powi(2) / (2.0 * var);
            let top = l1.max(l2);
            let lse = top + (exp0(l1 - top) + exp0(l2 - top)).ln();
            *ri = (l1 - lse).exp();
            new_ll += lse;
        }
        let converged = (new_ll - ll).abs() <= 1e-10 * new_ll.abs().max(1.0);
        ll = new_ll;
        if converged {
            break;
        }
        // M step.
        let s1: f64 = r.iter().sum();
        let s2 = nf - s1;
        if s1 < 1e-9 || s2 < 1e-9 {
            break;
        }
        m1 = r.iter().zip(z).map(|(ri, a)| ri * a).sum::<f64>() / s1;
        m2 = r.iter().zip(z).map(|(ri, a)| (1.0 - ri) * a).sum::<f64>() / s2;
        w = s1 / nf;
        var = (r
            .iter()
            .zip(z)
            .map(|(ri, a)| ri * (a - m1).powi(2) + (1.0 - ri) * (a - m2).powi(2))
            .sum::<f64>()
            / nf)
            .max(var_floor);
    }
    (ll, w)
}

/// Relative margin of [`em_screen`]'s `ΔBIC` (times `1 + |ℓ₂| + |ℓ₁|`) within which
/// [`regime_statistics_screened`] runs the exact EM.
const SCREEN_MARGIN: f64 = 1e-6;

/// Margin of [`em_screen`]'s lighter component's weight, in samples (weight times `n`), from the
/// [`min_regime_size`] limit, within which [`regime_statistics_screened`] runs the exact EM (when
/// its `ΔBIC` is not clearly below the critical value). Wider than [`SCREEN_MARGIN`]: where the
/// likelihood is flat in the weight, the stopping rule leaves the weight less settled than the
/// log-likelihood.
const WEIGHT_MARGIN: f64 = 0.25;

/// The EM of [`em_common_variance`] (same start, same updates, same stopping rule) with a
/// cheaper E step, for screening: one inlined polynomial exponential per point
/// ([`exp_nonpositive`], relative error below `10⁻¹⁴`) instead of two `exp` and one `ln`
/// library calls, the log-likelihood summed as `Σ max(ℓ₁ᵢ, ℓ₂ᵢ) + ln Π(1 + e^{−|ℓ₁ᵢ − ℓ₂ᵢ|})`
/// (one `ln` per 256 points, the library's), the component difference `ℓ₂ᵢ − ℓ₁ᵢ` taken as the linear
/// function of `zᵢ` it is, and the sums in four lanes (a different summation order).
///
/// Why its verdict is the exact EM's away from the limits: both iterate the same smooth map from
/// the same start; the screen's parameters differ from the exact ones by rounding-level
/// relative perturbations (`~10⁻¹⁴` per step, from the exponential and the summation order),
/// which EM, a contraction near its fixed point, does not amplify by more than a few orders of
/// magnitude in its at most 100 steps. Where the two stop one iteration apart, the
/// log-likelihoods differ by at most the last step's change, `10⁻¹⁰·|ℓ₂|` (the stopping rule).
/// [`SCREEN_MARGIN`], `10⁻⁶` relative, is four orders of magnitude above both. The weight is
/// less settled where the likelihood is flat in it, hence the wider [`WEIGHT_MARGIN`]. The
/// largest differences measured by `tests::screened_em_agrees_with_exact_em` over 12 600
/// normal, log-normal, uniform, heavy-tailed, rounded and two-regime samples of 6–200 values
/// are `1.5·10⁻¹⁰` of `1 + |ℓ₂|` and `2.2·10⁻⁴` samples in the weight.
fn em_screen(z: &[f64], k: usize, var_floor: f64) -> (f64, f64) {
    let mut r = vec![0.0; z.len()];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has both features, checked just above.
        return unsafe { em_screen_avx2(z, k, var_floor, &mut r) };
    }
    em_screen_body::<false>(z, k, var_floor, &mut r)
}

/// [`em_screen_body`] compiled for AVX2 and FMA (its loops vectorise four-wide, and its
/// exponential's polynomial uses fused multiply-adds).
///
/// # Safety
/// The CPU must have AVX2 and FMA. (An `unsafe fn` rather than a safe one with a target
/// feature, which needs Rust 1.86.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn em_screen_avx2(z: &[f64], k: usize, var_floor: f64, r: &mut [f64]) -> (f64, f64) {
    em_screen_body::<true>(z, k, var_floor, r)
}

/// The EM of [`em_screen`], with `r` (as long as `z`) for the responsibilities; `FMA`: the
/// exponential's polynomial by fused multiply-adds (only where the CPU has them).
#[inline(always)]
fn em_screen_body<const FMA: bool>(
    z: &[f64],
    k: usize,
    var_floor: f64,
    r: &mut [f64],
) -> (f64, f64) {
    let n = z.len();
    let nf = n as f64;
    let (mut m1, mut m2, mut w, mut var) = em_start(z, k, var_floor);
    let total: f64 = z.iter().sum();
    let mut ll = f64::NEG_INFINITY;
    for _ in 0..100 {
        let c = -0.5 * (std::f64::consts::TAU * var).ln();
        let (lw1, lw2) = (w.ln(), (1.0 - w).ln());
        let h = 0.5 / var;
        // ℓ₂ᵢ − ℓ₁ᵢ = ln(w₂/w₁) + 2h(m₂ − m₁)(zᵢ − (m₁ + m₂)/2), linear in zᵢ; and
        // max(ℓ₁ᵢ, ℓ₂ᵢ) = ℓ₁ᵢ + max(0, ℓ₂ᵢ − ℓ₁ᵢ).
        let step = EStep {
            dw: lw2 - lw1,
            beta: 2.0 * h * (m2 - m1),
            mid: 0.5 * (m1 + m2),
            m1,
        };
        let (sq, pos, logs, s1, t1) = e_step_body::<FMA>(z, r, step);
        let new_ll = nf * (lw1 + c) - h * sq + pos + logs;
        let converged = (new_ll - ll).abs() <= 1e-10 * new_ll.abs().max(1.0);
        ll = new_ll;
        if converged {
            break;
        }
        let s2 = nf - s1;
        if s1 < 1e-9 || s2 < 1e-9 {
            break;
        }
        m1 = t1 / s1;
        m2 = (total - t1) / s2;
        w = s1 / nf;
        var = (m_step_ss_body(z, r, m1, m2) / nf).max(var_floor);
    }
    (ll, w)
}

/// Parameters of one E step of [`em_screen`]: `ℓ₂ᵢ − ℓ₁ᵢ = dw + beta·(zᵢ − mid)`, and the
/// lower component's mean `m1`.
#[derive(Clone, Copy)]
struct EStep {
    dw: f64,
    beta: f64,
    mid: f64,
    m1: f64,
}

/// `Σ rᵢ(zᵢ − m₁)² + (1 − rᵢ)(zᵢ − m₂)²`, the M step's pooled sum of squares of
/// [`em_screen`], in four lanes.
#[inline(always)]
fn m_step_ss_body(z: &[f64], r: &[f64], m1: f64, m2: f64) -> f64 {
    let term = |ri: f64, a: f64| ri * (a - m1) * (a - m1) + (1.0 - ri) * (a - m2) * (a - m2);
    let mut acc = [0.0f64; 4];
    for (r4, z4) in r.chunks_exact(4).zip(z.chunks_exact(4)) {
        for j in 0..4 {
            acc[j] += term(r4[j], z4[j]);
        }
    }
    let rest = z.len() / 4 * 4;
    for (&ri, &a) in r[rest..].iter().zip(&z[rest..]) {
        acc[0] += term(ri, a);
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// One E step of [`em_screen`] on `z`, writing the lower component's responsibilities into `r`:
/// returns `(Σ(zᵢ − m₁)², Σ max(0, ℓ₂ᵢ − ℓ₁ᵢ), Σ ln(1 + e^{−|ℓ₂ᵢ − ℓ₁ᵢ|}), Σ rᵢ, Σ rᵢzᵢ)`.
#[inline(always)]
fn e_step_body<const FMA: bool>(z: &[f64], r: &mut [f64], p: EStep) -> (f64, f64, f64, f64, f64) {
    let d = |a: f64| p.dw + p.beta * (a - p.mid);
    for (ri, &a) in r.iter_mut().zip(z) {
        *ri = exp_nonpositive::<FMA>(-d(a).abs());
    }
    let (mut sq, mut pos, mut s1, mut t1) = ([0.0f64; 4], [0.0f64; 4], [0.0f64; 4], [0.0f64; 4]);
    let mut logs = 0.0f64;
    let mut point = |j: usize, ri: &mut f64, a: f64, prod: &mut [f64; 4]| {
        let (e, di, q) = (*ri, d(a), a - p.m1);
        let inv = 1.0 / (1.0 + e);
        let resp = if di <= 0.0 { inv } else { e * inv };
        *ri = resp;
        sq[j] += q * q;
        pos[j] += di.max(0.0);
        prod[j] *= 1.0 + e;
        s1[j] += resp;
        t1[j] += resp * a;
    };
    for (rc, zc) in r.chunks_mut(256).zip(z.chunks(256)) {
        let mut prod = [1.0f64; 4];
        let rest = zc.len() / 4 * 4;
        let (rv, rt) = rc.split_at_mut(rest);
        for (r4, z4) in rv.chunks_exact_mut(4).zip(zc.chunks_exact(4)) {
            for j in 0..4 {
                point(j, &mut r4[j], z4[j], &mut prod);
            }
        }
        for (ri, &a) in rt.iter_mut().zip(&zc[rest..]) {
            point(0, ri, a, &mut prod);
        }
        // Each lane's product is at most 2⁶⁴ (64 factors in (1, 2]): their product fits.
        logs += ((prod[0] * prod[1]) * (prod[2] * prod[3])).ln();
    }
    let sum = |v: [f64; 4]| (v[0] + v[1]) + (v[2] + v[3]);
    (sum(sq), sum(pos), logs, sum(s1), sum(t1))
}

/// `eᵗ` for `t ≤ 0` (`t` below −700 is taken as −700: the result, about `10⁻³⁰⁴`, is then
/// only an upper bound), relative error below `10⁻¹⁴`: Cody–Waite reduction `t = k·ln 2 + r`,
/// `|r| ≤ ln 2 / 2`, Taylor polynomial of degree 12 for `eʳ` (truncation
/// `0.347¹³/13! < 10⁻¹⁵`), `2ᵏ` built from its bits. Branch-free, so the E step vectorises.
/// With `FMA` the polynomial's steps are fused multiply-adds (one rounding each instead of two).
#[inline(always)]
pub(super) fn exp_nonpositive<const FMA: bool>(t: f64) -> f64 {
    const SHIFTER: f64 = 6_755_399_441_055_744.0; // 1.5·2⁵²: adding it rounds to an integer
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000); // ln 2, its last 32 bits zero
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76); // ln 2 − LN2_HI
    let t = t.max(-700.0);
    let shifted = t * std::f64::consts::LOG2_E + SHIFTER;
    let k = shifted - SHIFTER;
    let r = (t - k * LN2_HI) - k * LN2_LO;
    // k ∈ [−1010, 0]: the low bits of `shifted` hold k; k + 1023 is the biased exponent.
    let scale = f64::from_bits(shifted.to_bits().wrapping_add(1023) << 52);
    const C: [f64; 13] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
    ];
    let mut p = C[12];
    for &c in C[..12].iter().rev() {
        p = if FMA { p.mul_add(r, c) } else { p * r + c };
    }
    p * scale
}

/// Critical value of the gap statistic `G` for `n` samples (module notes): its simulated 99.5th
/// percentile on normal samples, interpolated linearly in `1/n` between tabulated sizes and
/// held at the last one (`n` = 200) beyond (both decrease with `n`, so this is conservative). `NaN` below [`MIN_N`].
pub fn gap_critical(n: usize) -> f64 {
    interpolate(&GAP_CRIT, n).max(interpolate(&GAP_CRIT_UNIFORM, n))
}

/// Critical value of `ΔBIC` for `n` samples, as [`gap_critical`].
pub fn bic_critical(n: usize) -> f64 {
    interpolate(&BIC_CRIT, n).max(interpolate(&BIC_CRIT_UNIFORM, n))
}

fn interpolate(table: &[(usize, f64)], n: usize) -> f64 {
    if n < MIN_N {
        return f64::NAN;
    }
    match table.iter().position(|&(m, _)| m >= n) {
        None => table[table.len() - 1].1,
        Some(i) if table[i].0 == n || i == 0 => table[i].1,
        Some(i) => {
            let ((a, va), (b, vb)) = (table[i - 1], table[i]);
            let t = (1.0 / a as f64 - 1.0 / n as f64) / (1.0 / a as f64 - 1.0 / b as f64);
            va + t * (vb - va)
        }
    }
}

/// `(n, 99.5th percentile of G on normal samples)`, simulated by
/// `examples/regime_tables.rs calibrate` (10 000 log-normal samples per size, seed 1;
/// the 99.5th percentile is known to about ±0.07 percentage point of probability).
#[allow(clippy::approx_constant)] // 0.7854 at n = 60 is a simulated value, not π/4.
const GAP_CRIT: [(usize, f64); 33] = [
    (6, 9.0698),
    (7, 7.6222),
    (8, 5.9313),
    (9, 5.2097),
    (10, 4.3105),
    (11, 3.9501),
    (12, 3.6078),
    (13, 3.4007),
    (14, 3.0967),
    (15, 2.7814),
    (16, 2.6385),
    (17, 2.5383),
    (18, 2.4204),
    (19, 2.3607),
    (20, 2.2229),
    (21, 1.9573),
    (22, 1.8792),
    (23, 1.8752),
    (24, 1.7618),
    (25, 1.7115),
    (26, 1.6831),
    (27, 1.5882),
    (28, 1.5876),
    (29, 1.5561),
    (30, 1.4813),
    (35, 1.2338),
    (40, 1.1559),
    (50, 0.9255),
    (60, 0.7854),
    (80, 0.6092),
    (100, 0.4886),
    (150, 0.3500),
    (200, 0.2686),
];

/// `(n, 99.5th percentile of ΔBIC on normal samples)`, simulated as [`GAP_CRIT`].
const BIC_CRIT: [(usize, f64); 33] = [
    (6, 10.9295),
    (7, 10.9168),
    (8, 9.4129),
    (9, 9.2149),
    (10, 7.8591),
    (11, 7.8366),
    (12, 7.6026),
    (13, 7.4241),
    (14, 7.3305),
    (15, 6.4106),
    (16, 6.4489),
    (17, 6.5358),
    (18, 5.8653),
    (19, 5.9541),
    (20, 5.8942),
    (21, 5.3425),
    (22, 5.1122),
    (23, 5.5789),
    (24, 5.0868),
    (25, 5.4535),
    (26, 5.0910),
    (27, 4.8384),
    (28, 4.9048),
    (29, 4.4567),
    (30, 4.3555),
    (35, 4.1001),
    (40, 3.7068),
    (50, 3.2171),
    (60, 2.1933),
    (80, 1.4357),
    (100, 0.7028),
    (150, -0.5971),
    (200, -0.9492),
];

/// `(n, 99th percentile of G on uniform samples)`, simulated by
/// `examples/regime_tables.rs calibrate` with `REGIME_CAL_DIST=uniform` (5 000 samples
/// per size, seed 1): flat, short-tailed samples (a benchmark drifting steadily across its
/// runs looks like this) are where a two-group split fits best without two regimes.
const GAP_CRIT_UNIFORM: [(usize, f64); 33] = [
    (6, 11.2232),
    (7, 8.6871),
    (8, 7.1660),
    (9, 5.6214),
    (10, 5.1881),
    (11, 4.5883),
    (12, 4.2153),
    (13, 3.9047),
    (14, 3.6106),
    (15, 3.3463),
    (16, 3.1552),
    (17, 2.8893),
    (18, 2.7701),
    (19, 2.5579),
    (20, 2.5879),
    (21, 2.2620),
    (22, 2.3567),
    (23, 2.2040),
    (24, 2.1273),
    (25, 2.0211),
    (26, 1.9825),
    (27, 1.9510),
    (28, 1.8463),
    (29, 1.7794),
    (30, 1.7151),
    (35, 1.4264),
    (40, 1.2724),
    (50, 1.0711),
    (60, 0.8725),
    (80, 0.6760),
    (100, 0.5486),
    (150, 0.3918),
    (200, 0.2996),
];

/// `(n, 99th percentile of ΔBIC on uniform samples)`, simulated as [`GAP_CRIT_UNIFORM`]. It
/// grows with `n`: a uniform is fitted better by two Gaussians than by one.
const BIC_CRIT_UNIFORM: [(usize, f64); 33] = [
    (6, 13.1797),
    (7, 12.6523),
    (8, 11.4983),
    (9, 10.1429),
    (10, 11.3772),
    (11, 10.4001),
    (12, 10.1274),
    (13, 10.4570),
    (14, 10.4848),
    (15, 10.3996),
    (16, 10.8771),
    (17, 11.4612),
    (18, 10.8580),
    (19, 10.2471),
    (20, 11.2225),
    (21, 10.5956),
    (22, 12.1525),
    (23, 11.9717),
    (24, 11.9273),
    (25, 12.3601),
    (26, 12.4063),
    (27, 12.6325),
    (28, 13.0104),
    (29, 14.0291),
    (30, 13.4541),
    (35, 14.5720),
    (40, 15.6195),
    (50, 17.2477),
    (60, 18.9757),
    (80, 22.7216),
    (100, 26.6006),
    (150, 37.3772),
    (200, 48.4760),
];

/// Two regimes in `x` (module notes), or `None`: too few samples (below [`MIN_N`]), any NaN or
/// infinite value, no statistic beyond its critical value, or the two groups' centres less
/// than [`MIN_RELATIVE_DISTANCE`] apart ([`apart`]).
///
/// The regimes are the two groups of the split of the statistic that fired (the gap's when
/// both did), each with its median and share.
pub fn regimes(x: &[f64]) -> Option<Regimes> {
    decide(x, regime_statistics(x)?)
}

/// The decision of [`regimes`] for statistics already computed from the same `x` by
/// [`regime_statistics`].
pub fn decide(x: &[f64], stats: RegimeStats) -> Option<Regimes> {
    let (gap_crit, bic_crit) = (gap_critical(stats.n), bic_critical(stats.n));
    let by_gap = stats.gap > gap_crit;
    let by_bic = stats.bic > bic_crit;
    if !(by_gap || by_bic) || x.len() != stats.n {
        return None;
    }
    let k = if by_gap {
        stats.gap_split
    } else {
        stats.bic_split
    };
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
        by_bic,
        gap_critical: gap_crit,
        bic_critical: bic_crit,
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
        assert!(r.by_gap && r.by_bic, "{r:?}");
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
        assert!(gap_critical(5).is_nan());
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
        assert!(
            s.gap > gap_critical(s.n) && s.bic > bic_critical(s.n),
            "both statistics fire: {s:?}"
        );
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

    /// A small deterministic generator (xorshift64*) for the screen checks.
    struct Rng(u64);
    impl Rng {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }
        fn normal(&mut self) -> f64 {
            let (u, v) = (self.uniform(), self.uniform());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        }
    }

    /// Samples of every shape a report meets: normal and log-normal with CV 0.1–20%, uniform,
    /// heavy-tailed, rounded to two decimals (many ties), values printed with 3 decimals, and
    /// two regimes 1.05–3× apart in shares from 1 run up to a half; 6–200 values.
    fn screen_samples() -> Vec<Vec<f64>> {
        let mut g = Rng(0x9e37_79b9_7f4a_7c15);
        let mut out = Vec::new();
        let sizes = [6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50, 80, 120, 200];
        for rep in 0..120 {
            for &n in &sizes {
                let cv = [0.001, 0.01, 0.03, 0.1, 0.2][rep % 5];
                let ratio = [1.05, 1.1, 1.2, 1.3, 1.5, 2.0, 3.0][rep % 7];
                let minority = [1, 2, n / 10, n / 5, n * 3 / 10, n / 2][rep % 6].max(1);
                let mut fam: Vec<Vec<f64>> = vec![
                    (0..n).map(|_| 1e6 * (1.0 + cv * g.normal())).collect(),
                    (0..n).map(|_| 250.0 * (cv * g.normal()).exp()).collect(),
                    (0..n).map(|_| 0.9 + 0.2 * g.uniform()).collect(),
                    (0..n)
                        .map(|_| {
                            let z = g.normal();
                            let chi: f64 = (0..3).map(|_| g.normal().powi(2)).sum();
                            1e6 * (1.0 + 0.01 * z / (chi / 3.0).sqrt())
                        })
                        .collect(),
                    (0..n)
                        .map(|_| ((1.0 + cv.min(0.02) * g.normal()) * 100.0).round() / 100.0)
                        .collect(),
                    (0..n)
                        .map(|_| (3.3e4 * (1.0 + cv * g.normal()) * 1e3).round() / 1e3)
                        .collect(),
                    (0..n)
                        .map(|i| {
                            let base = if i < minority { 3.3e6 * ratio } else { 3.3e6 };
                            base * (cv.min(0.08) * g.normal()).exp()
                        })
                        .collect(),
                ];
                out.append(&mut fam);
            }
        }
        out
    }

    #[test]
    fn polynomial_exponential_is_accurate() {
        let mut worst = 0.0f64;
        for i in 0..=200_000 {
            let t = -(i as f64) * 700.0 / 200_000.0;
            for e in [exp_nonpositive::<false>(t), exp_nonpositive::<true>(t)] {
                worst = worst.max((e / t.exp() - 1.0).abs());
            }
        }
        assert!(worst < 1e-14, "{worst:e}");
        assert_eq!(exp_nonpositive::<false>(0.0), 1.0);
        assert_eq!(exp_nonpositive::<true>(0.0), 1.0);
    }

    /// The screened EM reaches the exact EM's log-likelihood and weight to far better than
    /// [`SCREEN_MARGIN`], and the screened statistics decide every sample as the exact ones,
    /// with the same `ΔBIC` bits wherever a side is flagged.
    #[test]
    fn screened_em_agrees_with_exact_em() {
        let (mut worst_ll, mut worst_w, mut flagged, mut total) = (0.0f64, 0.0f64, 0, 0);
        for x in screen_samples() {
            let Some(exact) = regime_statistics(&x) else {
                assert!(regime_statistics_screened(&x).is_none());
                continue;
            };
            total += 1;
            let screened = regime_statistics_screened(&x).expect("same inputs");
            let (de, ds) = (decide(&x, exact), decide(&x, screened));
            assert_eq!(de.is_some(), ds.is_some(), "{x:?}");
            if let (Some(a), Some(b)) = (de, ds) {
                flagged += 1;
                assert_eq!((a.by_gap, a.by_bic), (b.by_gap, b.by_bic), "{x:?}");
                assert_eq!(a.stats.bic.to_bits(), b.stats.bic.to_bits(), "{x:?}");
                assert_eq!(a, b);
            }
            let z: Vec<f64> = derounded(&x, exact.resolution, exact.log_scale)
                .iter()
                .map(|p| p.0)
                .collect();
            let nf = z.len() as f64;
            let m = z.iter().sum::<f64>() / nf;
            let sst: f64 = z.iter().map(|a| (a - m).powi(2)).sum();
            let floor = sst / nf * 1e-6;
            let (lle, we) = em_common_variance(&z, exact.bic_split, floor);
            // The screen as this CPU runs it, and without fused multiply-adds.
            let mut r = vec![0.0; z.len()];
            for (lls, ws) in [
                em_screen(&z, exact.bic_split, floor),
                em_screen_body::<false>(&z, exact.bic_split, floor, &mut r),
            ] {
                worst_ll = worst_ll.max((lle - lls).abs() / (1.0 + lle.abs()));
                worst_w = worst_w.max((we - ws).abs() * nf);
            }
        }
        println!("{total} samples, {flagged} flagged; worst |Δℓ| {worst_ll:e}, |Δw|·n {worst_w:e}");
        assert!(total > 10_000 && flagged > 500, "{total} {flagged}");
        assert!(worst_ll < SCREEN_MARGIN * 1e-3, "{worst_ll:e}");
        assert!(worst_w < WEIGHT_MARGIN * 0.01, "{worst_w:e}");
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
        assert!(bic_critical(10_000).is_finite());
    }
}
