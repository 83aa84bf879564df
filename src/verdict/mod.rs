//! Verdicts: what the statistics of each comparison mean for the reader.
//!
//! This layer holds the decision rules. [`decide`] holds benchdiff's own: paired or unpaired
//! change intervals, Holm/BH correction, the four-way verdict and the regression gate. The
//! compare.R preset lives here: confidence stars
//! from the uncorrected two-sided Welch p-value at 0.05 / 0.01 / 0.001 (Node
//! `benchmark/compare.R`), and the three accuracy columns at the matching risks.

pub mod benchstat;
pub mod calibrate;
pub mod combine;
pub mod control;
pub mod decide;
pub mod density;
pub mod metrics;
pub mod sequential;

use crate::compare::Comparison;
use crate::stats::welch::{self, Welch, WelchError};

/// A sweep point's evidence: a configuration's mean with its 95% interval.
pub use crate::stats::precision::MeanInterval;

/// The risks of the three accuracy columns: 95%, 99% and 99.9% two-sided intervals.
pub const RISKS: [f64; 3] = [0.05, 0.01, 0.001];

/// compare.R's confidence stars for a p-value: `***` below 0.001, `**` below 0.01, `*` below
/// 0.05, none otherwise (also for NaN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stars {
    /// p ≥ 0.05 (or NaN): no evidence of a change.
    None,
    /// p < 0.05.
    One,
    /// p < 0.01.
    Two,
    /// p < 0.001.
    Three,
}

impl Stars {
    /// Stars for a two-sided p-value (thresholds are strict `<`, as in compare.R).
    pub fn from_p(p: f64) -> Stars {
        if p < 0.001 {
            Stars::Three
        } else if p < 0.01 {
            Stars::Two
        } else if p < 0.05 {
            Stars::One
        } else {
            Stars::None
        }
    }

    /// `"***"`, `"**"`, `"*"` or `""`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stars::None => "",
            Stars::One => "*",
            Stars::Two => "**",
            Stars::Three => "***",
        }
    }
}

/// One row of the compare.R-style report: a comparison with its statistics and stars.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The comparison (name and rates).
    pub comparison: Comparison,
    /// `(mean_new − mean_old)/mean_old·100`, percent; NaN for an empty side, ±Inf for a zero
    /// old mean.
    pub improvement_pct: f64,
    /// Welch's test, or why there is none.
    pub welch: Result<Welch, WelchError>,
    /// Stars from the uncorrected p-value; `None` when there is no test.
    pub stars: Option<Stars>,
    /// Accuracy half-widths in percent of the old mean at [`RISKS`]; `None` without a test,
    /// zeros when both sides are constant.
    pub accuracy_pct: Option<[f64; 3]>,
}

impl Row {
    /// The row's p-value for a correction over rows: Welch's; for essentially constant data 1
    /// when the improvement is 0, else 0 (the difference is then exact); NaN without a test.
    pub fn welch_p(&self) -> f64 {
        match &self.welch {
            Ok(w) => w.p_value,
            Err(WelchError::EssentiallyConstant) => {
                if self.improvement_pct == 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Err(_) => f64::NAN,
        }
    }

    /// Computes the statistics of one comparison.
    pub fn new(comparison: Comparison) -> Row {
        Row::with_accuracy(comparison, true)
    }

    /// As [`Row::new`]; with `accuracy` false the accuracy half-widths (three Student's t
    /// quantiles by Newton steps on the incomplete beta, the costly part of a row) are left
    /// out, as `None`, for reports that do not show them. Every other field is the same.
    pub fn with_accuracy(comparison: Comparison, accuracy: bool) -> Row {
        let improvement_pct = welch::improvement_pct(&comparison.old, &comparison.new);
        // A summary-only input: Welch's test from each side's mean, sd and n.
        let w = match comparison.summary {
            Some([o, n]) => welch::welch_summary(
                [o.mean, o.sd, f64::from(o.n)],
                [n.mean, n.sd, f64::from(n.n)],
            ),
            None => welch::welch(&comparison.old, &comparison.new),
        };
        let (stars, accuracy_pct) = match &w {
            Ok(w) => (
                Some(Stars::from_p(w.p_value)),
                accuracy.then(|| RISKS.map(|r| w.accuracy_pct(r))),
            ),
            Err(WelchError::EssentiallyConstant) => (None, Some([0.0; 3])),
            Err(_) => (None, None),
        };
        Row {
            comparison,
            improvement_pct,
            welch: w,
            stars,
            accuracy_pct,
        }
    }
}

/// Computes a row for every comparison, keeping their order (in parallel: each row is
/// independent, so the result is the same as one by one).
pub fn rows(comparisons: Vec<Comparison>) -> Vec<Row> {
    rows_with(comparisons, true)
}

/// As [`rows`], with the accuracy half-widths only when `accuracy` ([`Row::with_accuracy`]).
pub fn rows_with(comparisons: Vec<Comparison>, accuracy: bool) -> Vec<Row> {
    use rayon::prelude::*;
    comparisons
        .into_par_iter()
        .map(|c| Row::with_accuracy(c, accuracy))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_thresholds_are_strict() {
        assert_eq!(Stars::from_p(0.05), Stars::None);
        assert_eq!(Stars::from_p(0.049_999_999), Stars::One);
        assert_eq!(Stars::from_p(0.01), Stars::One);
        assert_eq!(Stars::from_p(0.001), Stars::Two);
        assert_eq!(Stars::from_p(0.000_999), Stars::Three);
        assert_eq!(Stars::from_p(f64::NAN), Stars::None);
    }
}
