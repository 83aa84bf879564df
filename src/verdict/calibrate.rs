//! The judgements of `benchdiff calibrate`.
//!
//! - A/A ([`aa_rows`], [`false_positives`]): a binary run against itself, so every "significant"
//!   row is a false positive. Per configuration the CV, the resolvable change (95% Welch
//!   half-width, [`crate::stats::precision`]), Welch's p and the runs a side needs for a target;
//!   then the false-positive rate against the nominal 5% with Wilson's 95% score interval
//!   ([`crate::stats::proportion`]) and what benchdiff's own rules ([`super::decide`]) made of it.
//! - `--find-n` ([`find_step`], [`find_n_ok`]): Node's `benchmark/calibrate-n.js` rule, overall
//!   CV (mean of the configurations' CVs) below the threshold and every configuration below
//!   twice that.

use crate::compare::{self, Comparison};
use crate::sample::{MetricId, SampleSet};
use crate::stats::precision::{cv_pct, half_width_pct, runs_for_accuracy};
use crate::stats::{proportion, welch};
use crate::verdict::decide::{self, Options, Verdict};

/// The nominal false-positive rate of a test at 95%: 0.05 (a fraction).
pub const NOMINAL_ALPHA: f64 = 0.05;

/// One configuration's A/A figures.
#[derive(Clone, Debug, PartialEq)]
pub struct AaRow {
    /// Row name.
    pub name: String,
    /// Samples of the "old" and the "new" side.
    pub runs: [usize; 2],
    /// Coefficient of variation of all samples of the row (both sides pooled: they come from
    /// the same binary), percent.
    pub cv_pct: f64,
    /// Half-width of the 95% interval of the difference, percent of the old mean: the
    /// smallest change this run could resolve.
    pub half_width_pct: Option<f64>,
    /// Welch's two-sided p-value (NaN when there is no test).
    pub p_value: f64,
    /// Runs per side for a 95% half-width at or below the target (`None`: over 100,000).
    pub runs_needed: Option<u64>,
}

/// The A/A figures of every configuration of `set`, in report order (sorted by name);
/// `target_pct` is the wanted 95% half-width in percent of the mean.
pub fn aa_rows(set: &SampleSet, target_pct: f64) -> Vec<AaRow> {
    aa_rows_of(set, compare::primary_metric(set), target_pct)
}

/// [`aa_rows`] of the samples of `metric` (a counter such as `instructions`, `wall`, …).
pub fn aa_rows_of(set: &SampleSet, metric: MetricId, target_pct: f64) -> Vec<AaRow> {
    let mut comparisons = compare::group_metric(set, metric);
    compare::sort_by_name(&mut comparisons);
    comparisons
        .into_iter()
        .map(|c| {
            let all: Vec<f64> = c.old.iter().chain(&c.new).copied().collect();
            let cv = cv_pct(&all);
            AaRow {
                runs: [c.old.len(), c.new.len()],
                cv_pct: cv,
                half_width_pct: half_width_pct(&c.old, &c.new),
                p_value: welch::welch(&c.old, &c.new).map_or(f64::NAN, |w| w.p_value),
                runs_needed: runs_for_accuracy(cv, target_pct),
                name: c.name,
            }
        })
        .collect()
}

/// The false positives of an A/A run.
#[derive(Clone, Debug, PartialEq)]
pub struct FalsePositives {
    /// Rows with Welch p below [`NOMINAL_ALPHA`].
    pub significant: u64,
    /// Rows with a Welch test (finite p).
    pub tested: u64,
    /// Wilson's 95% score interval of `significant / tested`, as fractions in [0, 1].
    pub wilson: (f64, f64),
    /// The label of benchdiff's default p-value correction (e.g. `Holm`).
    pub correction: &'static str,
    /// Rows benchdiff's default rules assessed.
    pub assessed: usize,
    /// Of those, significant after the correction.
    pub corrected_significant: usize,
    /// Of those, given the verdict faster or slower.
    pub verdicts: usize,
    /// Name and Welch p of every false positive, in row order.
    pub rows: Vec<(String, f64)>,
}

/// Where the false-positive rate's 95% interval lies against the nominal 5%.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgainstNominal {
    /// The whole interval is above 5%: the rows vary more between sides than their spread says.
    Above,
    /// The whole interval is below 5%.
    Below,
    /// The interval contains 5%.
    Consistent,
}

impl FalsePositives {
    /// Where Wilson's interval of the rate lies against [`NOMINAL_ALPHA`].
    pub fn against_nominal(&self) -> AgainstNominal {
        let (lo, hi) = self.wilson;
        let nominal_pct = NOMINAL_ALPHA * 100.0;
        if lo * 100.0 > nominal_pct {
            AgainstNominal::Above
        } else if hi * 100.0 < nominal_pct {
            AgainstNominal::Below
        } else {
            AgainstNominal::Consistent
        }
    }
}

/// The false positives of the A/A `rows` of `set`: `None` when no row has a Welch test.
pub fn false_positives(rows: &[AaRow], set: &SampleSet) -> Option<FalsePositives> {
    false_positives_of(rows, set, compare::primary_metric(set))
}

/// [`false_positives`] of the A/A `rows` of `metric` ([`aa_rows_of`]).
pub fn false_positives_of(
    rows: &[AaRow],
    set: &SampleSet,
    metric: MetricId,
) -> Option<FalsePositives> {
    let tested: Vec<&AaRow> = rows.iter().filter(|r| r.p_value.is_finite()).collect();
    let fp: Vec<(String, f64)> = tested
        .iter()
        .filter(|r| r.p_value < NOMINAL_ALPHA)
        .map(|r| (r.name.clone(), r.p_value))
        .collect();
    let k = fp.len() as u64;
    let m = tested.len() as u64;
    if m == 0 {
        return None;
    }
    let opts = Options::default();
    let mut comparisons = compare::group_metric(set, metric);
    compare::sort_by_name(&mut comparisons);
    let a = decide::assess(super::rows(comparisons), &opts);
    Some(FalsePositives {
        significant: k,
        tested: m,
        wilson: proportion::wilson(k, m, proportion::Z95),
        correction: opts.correction.label(),
        assessed: a.len(),
        corrected_significant: a.iter().filter(|x| x.p_adjusted < opts.alpha).count(),
        verdicts: a
            .iter()
            .filter(|x| matches!(x.verdict, Verdict::Faster | Verdict::Slower))
            .count(),
        rows: fp,
    })
}

/// One tried value of `--find-n`.
#[derive(Clone, Debug, PartialEq)]
pub struct FindStep {
    /// The value of KEY.
    pub value: f64,
    /// Mean of the configurations' CVs, percent.
    pub overall_cv_pct: f64,
    /// The largest configuration CV, percent, and its configuration.
    pub worst: (f64, String),
}

/// The `--find-n` figures of the comparisons of one tried `value` (samples on the old side):
/// each configuration's CV in percent, their mean over the finite ones (NaN when none) and
/// the largest.
pub fn find_step(value: f64, comparisons: &[Comparison]) -> FindStep {
    let cvs: Vec<(f64, String)> = comparisons
        .iter()
        .map(|c| (cv_pct(&c.old), c.name.clone()))
        .collect();
    let finite: Vec<f64> = cvs.iter().map(|c| c.0).filter(|x| x.is_finite()).collect();
    let overall = if finite.is_empty() {
        f64::NAN
    } else {
        finite.iter().sum::<f64>() / finite.len() as f64
    };
    let worst = cvs
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .cloned()
        .unwrap_or((f64::NAN, String::new()));
    FindStep {
        value,
        overall_cv_pct: overall,
        worst,
    }
}

/// `--find-n`'s decision for one step: overall CV below `threshold_pct` and every
/// configuration below twice that (calibrate-n's rule).
pub fn find_n_ok(step: &FindStep, threshold_pct: f64) -> bool {
    step.overall_cv_pct < threshold_pct && step.worst.0 < 2.0 * threshold_pct
}
