//! What a report of several metrics says about each: its verdict counts, its change (the
//! geometric mean over the comparisons) and how much it varies between runs (each side's
//! coefficient of variation).
//!
//! A run with `--measure` records counters beside wall time. The report decides on one
//! metric (`--metric`); the others are summarised here, so a reader sees what each would say
//! and how noisy it is: an instruction count with a CV of 0.0001% can resolve a 0.1% change
//! in a handful of runs, a wall time with a CV of 3% cannot.

use crate::sample::{Better, Metric};
use crate::verdict::decide::{self, Assessment, Verdict};

/// One metric of a report, summarised over its comparisons.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricSummary {
    /// The metric's name, e.g. `wall`, `instructions`.
    pub name: String,
    /// Its unit (`s`, `bytes`; empty for a count).
    pub unit: String,
    /// Which direction is the improvement.
    pub better: Better,
    /// Comparisons, then how many are faster, slower, no change and inconclusive.
    pub counts: [usize; 5],
    /// The change, percent: of the one comparison, or the geometric mean of the changes of
    /// several ([`decide::geomean`]); None without comparisons or when undefined (a side's
    /// mean is 0).
    pub change_pct: Option<f64>,
    /// Median over the comparisons of each side's coefficient of variation, percent (old,
    /// new): [`decide::SideSummary::cv_pct`]; NaN when no comparison has one.
    pub cv_pct: [f64; 2],
}

/// What a metric's summary reads of one decided comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figures {
    /// The verdict.
    pub verdict: Verdict,
    /// The change, percent ([`Assessment::change_pct`]).
    pub change_pct: f64,
    /// Its term of the geometric mean ([`decide::log_ratio`]).
    pub log_ratio: Option<f64>,
    /// Each side's coefficient of variation, percent (old, new;
    /// [`decide::SideSummary::cv_pct`]).
    pub cv_pct: [f64; 2],
}

impl Figures {
    /// The figures of the assessment `a` (with the distribution checks that give each side's
    /// CV).
    pub fn of(a: &Assessment) -> Figures {
        Figures {
            verdict: a.verdict,
            change_pct: a.change_pct,
            log_ratio: decide::log_ratio(a),
            cv_pct: [a.old_side.cv_pct, a.new_side.cv_pct],
        }
    }
}

impl MetricSummary {
    /// The summary of `metric` from the figures `a` of its decided comparisons.
    pub fn of(metric: &Metric, a: &[Figures]) -> MetricSummary {
        let mut counts = [0usize; 5];
        for x in a {
            counts[0] += 1;
            counts[match x.verdict {
                Verdict::Faster => 1,
                Verdict::Slower => 2,
                Verdict::NoChange => 3,
                Verdict::Inconclusive { .. } => 4,
            }] += 1;
        }
        MetricSummary {
            name: metric.name.clone(),
            unit: metric.unit.clone(),
            better: metric.better,
            counts,
            change_pct: match a {
                [] => None,
                [one] => Some(one.change_pct).filter(|c| c.is_finite()),
                _ => decide::geomean(a.iter().map(|x| x.log_ratio)).and_then(|g| g.change_pct()),
            },
            cv_pct: [
                median_cv(a.iter().map(|x| x.cv_pct[0])),
                median_cv(a.iter().map(|x| x.cv_pct[1])),
            ],
        }
    }
}

/// The median of the finite CVs `cv` (NaN when none is finite): the typical noise of a metric
/// over a report's comparisons, unmoved by one noisy comparison.
pub fn median_cv(cv: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = cv.filter(|c| c.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    crate::stats::quantile::median(&v)
}

/// What a report shows of its metrics besides the one it decides on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Show each side's CV beside each comparison's change (the table's `CV old/new` column):
    /// the samples carry counters (`--measure`), or `--cv` asked for it.
    pub cv: bool,
    /// The metric the report decides on, summarised; None unless the samples carry counters.
    pub chosen: Option<MetricSummary>,
    /// Every other metric the samples have, in the set's order, summarised the same way
    /// (empty unless the samples carry counters).
    pub others: Vec<MetricSummary>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_cv_skips_undefined_sides() {
        assert!(median_cv(std::iter::empty()).is_nan());
        assert!(median_cv([f64::NAN].into_iter()).is_nan());
        assert_eq!(median_cv([3.0, f64::NAN, 1.0, 2.0].into_iter()), 2.0);
        assert_eq!(median_cv([4.0, 1.0].into_iter()), 2.5);
    }

    /// The CV of each side is the sample standard deviation over the mean: for instruction
    /// counts a few apart it is about a millionth of a percent, for wall times percents.
    #[test]
    fn side_cv_of_counts_and_times() {
        let counts = [
            1000000.0, 1000001.0, 1000003.0, 1000000.0, 1000002.0, 1000001.0,
        ];
        let s = decide::SideSummary::new(&counts, &[0, 1, 2, 3, 4, 5]);
        // By hand: the deviations from the mean 1000001.1667 square to 6.8333 in all, /5.
        let want = 1.3667f64.sqrt() / 1000001.1667 * 100.0;
        assert!(
            (s.cv_pct / want - 1.0).abs() < 1e-4,
            "{} vs {want}",
            s.cv_pct
        );
        assert!(s.cv_pct < 2e-4);
        assert!(s.multimodal.is_none() && s.split.is_none());
        let times = [0.100, 0.103, 0.097, 0.105, 0.095, 0.100];
        let t = decide::SideSummary::new(&times, &[0, 1, 2, 3, 4, 5]);
        assert!((t.cv_pct - 3.6878).abs() < 1e-3, "{}", t.cv_pct);
        assert!(decide::SideSummary::new(&[5.0], &[0]).cv_pct.is_nan());
    }
}
