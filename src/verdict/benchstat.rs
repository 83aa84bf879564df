//! The figures of Go benchstat's view (`--format benchstat`), computed here so that its
//! renderer ([`crate::render::benchstat`]) only formats them: per side the median with its
//! order-statistic interval (the mode and range for units declared exact), and per row the
//! two-sided Mann–Whitney U test with benchstat's rule for too few samples.

use crate::stats::quantile::{median, pct_range, quantile_ci};
use crate::stats::utest::{min_p, u_test};

/// Summary of one side of one row.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Median (or mode for exact units), in the metric's unit.
    pub center: f64,
    /// `± X` as a fraction; `None` when unbounded (shown `∞`).
    pub range: Option<f64>,
    /// Number of samples.
    pub n: usize,
    /// Note for the cell, if any.
    pub note: Option<String>,
}

/// benchstat's summary of one side: median with its order-statistic interval at
/// `confidence`, or for exact units the mode with the range. `values` in any order.
pub fn summarize(values: &[f64], exact: bool, confidence: f64) -> Summary {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return Summary {
            center: f64::NAN,
            range: None,
            n,
            note: None,
        };
    }
    if exact {
        // Mode: the most frequent value (the smallest among equally frequent ones).
        let (mut best, mut best_n, mut i) = (v[0], 0, 0);
        while i < n {
            let mut j = i;
            while j < n && v[j] == v[i] {
                j += 1;
            }
            if j - i > best_n {
                best = v[i];
                best_n = j - i;
            }
            i = j;
        }
        let (lo, hi) = (v[0], v[n - 1]);
        let note = (lo != hi)
            .then(|| format!("exact distribution expected, but values range from {lo} to {hi}"));
        return Summary {
            center: best,
            range: pct_range(best, lo, hi),
            n,
            note,
        };
    }
    let c = median(&v);
    let ci = quantile_ci(&v, 0.5, confidence);
    let (range, note) = match ci {
        Some(ci) if ci.lo.is_finite() && ci.hi.is_finite() => (pct_range(c, ci.lo, ci.hi), None),
        _ => (
            None,
            Some(format!(
                "need >= 6 samples for confidence interval at level {confidence}"
            )),
        ),
    };
    Summary {
        center: c,
        range,
        n,
        note,
    }
}

/// The U test of one row: its two-sided p-value (NaN when it gave none, and for exact units,
/// which are shown without a test) and whether it found every sample equal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankTest {
    /// Two-sided p-value ([`crate::stats::utest::u_test`], exact with ties for n ≤ 25).
    pub p_value: f64,
    /// Every sample of both sides is equal.
    pub all_equal: bool,
}

/// The U test of the sides `old` and `new` (any order, NaN included); none for `exact` units.
pub fn rank_test(old: &[f64], new: &[f64], exact: bool) -> RankTest {
    let t = if exact { None } else { u_test(old, new) };
    RankTest {
        p_value: t.map_or(f64::NAN, |t| t.p_value),
        all_equal: t.is_some_and(|t| t.all_equal),
    }
}

/// Whether sides of `n` samples (old, new) are too few to show a difference at level
/// `alpha`: the smallest p-value the U test can reach with these counts is above `alpha`
/// (benchstat's "need >= 4 samples to detect a difference").
pub fn too_few_to_detect(n: [usize; 2], alpha: f64) -> bool {
    min_p(n[0], n[1]) > alpha
}
