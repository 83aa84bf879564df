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

/// The span `(lowest, highest)` of the finite values of `side` when they fall into two
/// regimes, by the check the assessments make of each side
/// ([`crate::stats::shape::multimodality`], as [`super::decide::SideSummary`] does).
fn regime_span(side: &[f64]) -> Option<(f64, f64)> {
    let finite: Vec<f64> = side.iter().copied().filter(|v| v.is_finite()).collect();
    let r = crate::stats::shape::multimodality(&finite)?.regimes;
    Some((r.regimes[0].low, r.regimes[1].high))
}

/// The note of a comparison of the sides `old` and `new` whose change of medians may come of
/// two regimes: a side falls into two regimes ([`regime_span`]) and the other side's median
/// lies within their span, so either median could have landed in either regime and the change
/// is no reliable verdict (an A/A comparison of such samples shows tens of percent). None
/// otherwise: a change far beyond both regimes is real whatever regime a median took.
/// `medians` are the sides' medians (old, new: [`summarize`]'s centres).
pub fn regimes_note(old: &[f64], new: &[f64], medians: [f64; 2]) -> Option<&'static str> {
    let within = |side: &[f64], m: f64| {
        // The regimes' span lies within the side's range: a median outside it needs no test.
        let finite = side.iter().copied().filter(|v| v.is_finite());
        let (min, max) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        min <= m && m <= max && regime_span(side).is_some_and(|(lo, hi)| lo <= m && m <= hi)
    };
    match (within(old, medians[1]), within(new, medians[0])) {
        (false, false) => None,
        (true, false) => Some(
            "the base's samples fall into 2 regimes around the other median: a median sits in \
             either by chance, so the change is not a reliable verdict (benchdiff report's table \
             gives each regime)",
        ),
        (false, true) => Some(
            "this side's samples fall into 2 regimes around the base's median: a median sits in \
             either by chance, so the change is not a reliable verdict (benchdiff report's table \
             gives each regime)",
        ),
        (true, true) => Some(
            "both sides' samples fall into 2 regimes: a median sits in either by chance, so the \
             change is not a reliable verdict (benchdiff report's table gives each regime)",
        ),
    }
}

/// Whether sides of `n` samples (old, new) are too few to show a difference at level
/// `alpha`: the smallest p-value the U test can reach with these counts is above `alpha`
/// (benchstat's "need >= 4 samples to detect a difference").
pub fn too_few_to_detect(n: [usize; 2], alpha: f64) -> bool {
    min_p(n[0], n[1]) > alpha
}
