//! The four-way verdict, multiple-comparison control and the regression gate.
//!
//! For every comparison benchdiff estimates the relative change of the new build and a 95%
//! confidence interval for it, with one of two methods:
//! - **paired** ([`crate::stats::paired`]): when at least [`MIN_PAIRS`] rounds measured both
//!   binaries, the per-round log-ratio; slow drift of the machine cancels out;
//! - **unpaired** ([`crate::stats::ratio`] + [`crate::stats::welch`]): Fieller's interval for the
//!   ratio of means, Welch's p-value.
//!
//! The paired method is used only when the source recorded rounds that ran together
//! ([`crate::compare::Pairing`]): the i-th sample of one `go test` file and the i-th of another
//! are not a pair, and pairing them would both drop unmatched samples and understate the noise.
//!
//! The paired method needs every value positive (a log-ratio). Zero is a legitimate value of
//! counts (B/op, allocs/op): the unpaired method handles values ≥ 0 as long as the old mean is
//! positive, and **both sides constant** is an exact difference, not a test: `0 → 0` (or any
//! `x → x`) is *no change* (change 0, interval [0, 0], p = 1); `x → y` with x > 0 is the exact
//! ratio (`96 → 0` is −100%, interval [−100%, −100%], p = 0); `0 → y` with y > 0 is a change of
//! +∞ (interval [+∞, +∞], p = 0), a certain increase: *slower* for a lower-is-better metric,
//! and the `--max-regression` gate fires. An old side that is constant 0 against a varying new
//! side also has the change +∞ and interval [+∞, +∞], with Welch's p deciding significance.
//! Negative values (or an old mean of 0 with a varying old side) still get no interval (NA).
//!
//! **Too few samples.** When the rank-sum test's smallest attainable two-sided p for these
//! sample sizes, `2 / C(n_old + n_new, n_old)`, is above α (3 + 3: 0.1; 2 + 1: 0.667), no
//! distribution-free test could show a change, and a t-test's small p on such samples rests
//! only on the normality it cannot check: the verdict is inconclusive, with a "too few
//! samples" flag and note, and "runs needed" is the smallest count per side that can reach α.
//!
//! The p-values of all comparisons in a report form one family and are adjusted together
//! (Holm–Bonferroni by default, Benjamini–Hochberg, or none). The verdict against a threshold
//! `T` percent (default 1%):
//! - **no change**: the whole interval lies inside (−T, +T) — any change is smaller than T;
//! - **faster** / **slower**: otherwise, when the adjusted p-value is below α (0.05) and the
//!   interval lies entirely above / below 0;
//! - **inconclusive**: anything else — the interval is too wide to tell. The verdict then says
//!   how many runs per side would resolve it: the interval half-width shrinks as 1/√n, so
//!   `n · (h / h*)²` runs reach the half-width `h*` that would settle the question (the larger
//!   of `T − |estimate|`, which would show no change, and `|estimate|`, which would exclude 0).
//!
//! Rates are "higher is better" (ops/s): a positive change is faster. For a lower-is-better
//! metric (time, memory) the directions flip: a negative change is the improvement, reported
//! as "faster", and a positive one as "slower".

use crate::sample::Better;
use crate::stats::{adjust, drift, outliers, paired, quantile, rank, ratio, shape, utest};
use crate::verdict::Row;

/// The evidence that a side falls into several regimes.
pub use crate::stats::shape::Multimodal;
/// Why Welch's test gave no p-value, as the evidence of a comparison carries it.
pub use crate::stats::welch::WelchError;

/// Fewest rounds with both sides measured for the paired method.
pub const MIN_PAIRS: usize = 3;
/// Largest "runs needed" figure reported; beyond it the verdict says the change is too small
/// to resolve in practice.
pub const MAX_RUNS_NEEDED: u64 = 100_000;

/// Which family-wise or false-discovery correction is applied to the p-values of a report
/// (`--correction holm|bh|none`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Correction {
    /// Holm–Bonferroni step-down (controls the family-wise error rate; R `p.adjust("holm")`).
    #[default]
    Holm,
    /// Benjamini–Hochberg step-up (controls the false discovery rate; R `p.adjust("BH")`).
    #[value(name = "bh")]
    BenjaminiHochberg,
    /// No correction: every comparison at level α on its own (compare.R's stars).
    None,
}

impl Correction {
    /// Short name for reports: `Holm`, `BH` or `none`.
    pub fn label(self) -> &'static str {
        match self {
            Correction::Holm => "Holm",
            Correction::BenjaminiHochberg => "BH",
            Correction::None => "none",
        }
    }

    /// Adjusts `p` (NaN entries stay NaN and are not counted).
    pub fn adjust(self, p: &[f64]) -> Vec<f64> {
        match self {
            Correction::Holm => adjust::holm(p),
            Correction::BenjaminiHochberg => adjust::benjamini_hochberg(p),
            Correction::None => p.to_vec(),
        }
    }
}

/// Settings of the verdict rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Correction applied across all comparisons of the report.
    pub correction: Correction,
    /// Smallest change that matters, in percent (`--threshold`, default 1).
    pub threshold_pct: f64,
    /// Significance level for adjusted p-values (0.05).
    pub alpha: f64,
    /// Confidence level of the change interval (0.95).
    pub confidence: f64,
    /// Run the per-side distribution checks (medians, Mann–Whitney, multimodality, outliers,
    /// drift). Off only where nothing shows them (simulations of the verdict rules).
    pub distribution_checks: bool,
    /// With the distribution checks: also the rank-sum test with the Hodges–Lehmann shift
    /// ([`Assessment::rank`]) and benchstat's U test ([`Assessment::u_test`]). Off where a report
    /// shows neither (the table without `--details`, Markdown); the verdict never uses them.
    pub rank_tests: bool,
    /// With the distribution checks: keep the drift of every side ([`SideSummary::drift`]);
    /// off, only a drift with p below [`DRIFT_ALPHA`] is kept (and the Theil–Sen slope of the
    /// others is not computed), for reports that show only significant drift (table,
    /// Markdown).
    pub every_drift: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            correction: Correction::Holm,
            threshold_pct: 1.0,
            alpha: 0.05,
            confidence: 0.95,
            distribution_checks: true,
            rank_tests: true,
            every_drift: true,
        }
    }
}

/// The verdict on one comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The new build is better (faster): significant after correction, and the interval lies
    /// entirely on the improving side of 0 (above for rates, below for times and memory).
    Faster,
    /// The new build is worse (slower): significant, interval entirely on the other side.
    Slower,
    /// Any change is smaller than the threshold (interval inside ±threshold).
    NoChange,
    /// The data cannot tell; `runs_needed` per side would likely resolve it (None: unknown or
    /// more than [`MAX_RUNS_NEEDED`]).
    Inconclusive {
        /// Estimated runs per side that would settle the verdict.
        runs_needed: Option<u64>,
    },
}

impl Verdict {
    /// `faster`, `slower`, `no change` or `inconclusive`.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "no change",
            Verdict::Inconclusive { .. } => "inconclusive",
        }
    }
}

/// How the change and its interval were estimated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Per-round log-ratio, one-sample t-test (ratio of geometric means).
    Paired,
    /// Fieller interval of the ratio of means, Welch's t-test.
    Unpaired,
}

/// A comparison with its change estimate, interval, p-values and verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// compare.R's statistics for the same comparison.
    pub row: Row,
    /// Method used for the estimate and the p-value.
    pub method: Method,
    /// Estimated change of the new build's metric, percent (positive = a larger value: faster
    /// for a rate, slower for a time).
    pub change_pct: f64,
    /// 95% interval of the change, percent; None when it cannot be bounded.
    pub change_ci_pct: Option<(f64, f64)>,
    /// Raw two-sided p-value of the method (NaN without a test).
    pub p_value: f64,
    /// p-value after the report's correction (NaN without a test).
    pub p_adjusted: f64,
    /// The paired test, when it was used.
    pub paired: Option<paired::Paired>,
    /// Runs per side (the smaller side).
    pub runs: usize,
    /// The verdict.
    pub verdict: Verdict,
    /// Mann–Whitney U / Wilcoxon rank-sum test with the Hodges–Lehmann shift (new − old, in
    /// the rate's unit) and its 95% interval; None for an empty side.
    pub rank: Option<rank::RankSum>,
    /// benchstat's Mann–Whitney U test of old against new, exact with ties up to 25 samples a
    /// side; None for an empty side or without distribution checks.
    pub u_test: Option<utest::UTest>,
    /// Distribution checks of the old side.
    pub old_side: SideSummary,
    /// Distribution checks of the new side.
    pub new_side: SideSummary,
    /// Smallest two-sided p the rank-sum test can give for these sample sizes,
    /// `2 / C(n_old + n_new, n_old)` ([`crate::stats::utest::min_p`]); 1 for an empty side.
    pub min_attainable_p: f64,
    /// True when `min_attainable_p` is above α: too few samples for any verdict but
    /// inconclusive (see the module doc).
    pub too_few_samples: bool,
    /// A sharded run's comparison measured on several machines: the per-machine estimates and
    /// their combination, which the change, interval and p-value above then come from
    /// ([`crate::verdict::combine`]); `None` for a comparison from one machine.
    pub combined: Option<crate::verdict::combine::Combined>,
}

/// The change between the builds within one pair of regimes, when a side has two regimes
/// ([`crate::stats::regimes`]): the averaged change of a two-regime side describes neither
/// regime, so reports show these next to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegimeChange {
    /// Centre of the old side's regime (its median, or the side's median when it has one
    /// regime), in the metric's unit.
    pub old_centre: f64,
    /// Share of the old side's samples in that regime, in `(0, 1]`.
    pub old_share: f64,
    /// Centre of the new side's regime, as `old_centre`.
    pub new_centre: f64,
    /// Share of the new side's samples in that regime, in `(0, 1]`.
    pub new_share: f64,
    /// `(new_centre / old_centre − 1) · 100`, percent (positive = a larger value, as
    /// [`Assessment::change_pct`]).
    pub change_pct: f64,
}

impl Assessment {
    /// The change per regime (empty when neither side has two regimes): a two-regime side
    /// against the other side's median, regime by regime; when both sides have two regimes,
    /// lower against lower and upper against upper.
    pub fn regime_changes(&self) -> Vec<RegimeChange> {
        let parts = |s: &SideSummary| -> Vec<(f64, f64)> {
            match s.multimodal.as_ref().map(|m| &m.regimes) {
                Some(r) => r.regimes.iter().map(|g| (g.centre, g.share)).collect(),
                None => vec![(s.median, 1.0)],
            }
        };
        let (old, new) = (parts(&self.old_side), parts(&self.new_side));
        if old.len() == 1 && new.len() == 1 {
            return Vec::new();
        }
        let at = |v: &[(f64, f64)], i: usize| v[i.min(v.len() - 1)];
        (0..old.len().max(new.len()))
            .map(|i| {
                let ((oc, os), (nc, ns)) = (at(&old, i), at(&new, i));
                RegimeChange {
                    old_centre: oc,
                    old_share: os,
                    new_centre: nc,
                    new_share: ns,
                    change_pct: (nc / oc - 1.0) * 100.0,
                }
            })
            .collect()
    }
}

/// What one side's samples look like: centre, spread, and checks that are reported, never
/// silently applied.
#[derive(Clone, Debug, PartialEq)]
pub struct SideSummary {
    /// Number of samples.
    pub n: usize,
    /// Median rate (ops/s).
    pub median: f64,
    /// 95% order-statistic interval of the median (benchstat's method); None below 6 samples.
    pub median_ci: Option<(f64, f64)>,
    /// Coefficient of variation of the finite samples in percent, `sd / |mean| · 100` with the
    /// `n − 1` sample standard deviation ([`crate::stats::precision::cv_pct`]; NaN below 2).
    pub cv_pct: f64,
    /// Indices (arrival order) of samples flagged as outliers by the MAD rule; flagged only.
    /// On a side with two regimes each regime is checked on its own (a run of the other
    /// regime is not an outlier).
    pub outliers: Vec<usize>,
    /// Set when the samples fall into two separated regimes ([`crate::stats::shape`]).
    pub multimodal: Option<shape::Multimodal>,
    /// Trend of the rate against run order (Kendall's tau), when there are enough runs.
    pub drift: Option<drift::Drift>,
    /// For a side of 4 or 5 samples that splits into two groups: the groups' centres, too
    /// few runs to tell two regimes from noise ([`shape::too_few_to_tell`]).
    pub split: Option<(f64, f64)>,
}

/// Fewest samples of a side on which the regime test can flag two regimes.
pub const REGIME_MIN_N: usize = crate::stats::regimes::MIN_N;

/// p-value below which a trend against run order can be reported as drift: Kendall's test is
/// distribution-free, so a side of healthy, independent samples shows it in 0.25% of cases at
/// every size, a comparison (two sides) in 0.5%.
pub const DRIFT_ALPHA: f64 = 0.0025;

/// Smallest drift reported, percent of the side's mean over its runs (the Theil–Sen slope
/// times the runs it spans): the default `--threshold`, so a drift too small to move a change
/// past it is not reported, however many samples make it significant.
pub const DRIFT_MIN_PCT: f64 = 1.0;

/// Whether the drift `d` is reported: its p-value below [`DRIFT_ALPHA`] and its size over the
/// side's runs at least [`DRIFT_MIN_PCT`] of the mean.
pub fn reported_drift(d: &drift::Drift) -> bool {
    let span = d.n.saturating_sub(1) as f64;
    d.p_value < DRIFT_ALPHA && (d.slope_pct_per_run * span).abs() >= DRIFT_MIN_PCT
}

impl SideSummary {
    /// Summarises one side's rates (with their run indices, parallel to `rates`).
    pub fn new(rates: &[f64], runs: &[u32]) -> SideSummary {
        SideSummary::with_drift(rates, runs, true)
    }

    /// As [`SideSummary::new`]; with `every_drift` false, [`SideSummary::drift`] is kept only
    /// when significant ([`SideSummary::significant_drift`] is the same either way).
    pub fn with_drift(rates: &[f64], runs: &[u32], every_drift: bool) -> SideSummary {
        // One sort for the median, its interval, the outliers and the multimodality check.
        let filtered: Vec<f64>;
        let finite: &[f64] = if rates.iter().all(|v| v.is_finite()) {
            rates
        } else {
            filtered = rates.iter().copied().filter(|v| v.is_finite()).collect();
            &filtered
        };
        let mut order = Vec::with_capacity(finite.len());
        crate::stats::regimes::sort_order(finite, &mut order);
        let sorted: Vec<f64> = order.iter().map(|&i| finite[i as usize]).collect();
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(rates.len());
        points.extend(
            runs.iter()
                .zip(rates)
                .filter(|(_, v)| v.is_finite())
                .map(|(&r, &v)| (r as f64, v)),
        );
        let multimodal = shape::multimodality_ordered(finite, &order);
        let outliers = if finite.len() != rates.len() {
            Vec::new()
        } else if let Some(r) = multimodal.as_ref().map(|m| &m.regimes) {
            // Two regimes: a run is an outlier of its own regime, never for being in the other.
            let cut = r.regimes[0].high;
            let mut idx: Vec<usize> = Vec::new();
            for lower in [true, false] {
                let members: Vec<usize> = (0..rates.len())
                    .filter(|&i| (rates[i] <= cut) == lower)
                    .collect();
                let vals: Vec<f64> = members.iter().map(|&i| rates[i]).collect();
                idx.extend(
                    outliers::mad_outliers(&vals)
                        .indices
                        .into_iter()
                        .map(|j| members[j]),
                );
            }
            idx.sort_unstable();
            idx
        } else {
            // Every rate is finite here: `sorted` holds them all.
            outliers::mad_outliers_sorted(rates, &sorted).indices
        };
        SideSummary {
            n: rates.len(),
            median: if sorted.is_empty() {
                f64::NAN
            } else {
                quantile::median(&sorted)
            },
            median_ci: quantile::median_ci(&sorted, 0.95),
            cv_pct: crate::stats::precision::cv_pct(finite),
            outliers,
            multimodal,
            drift: if every_drift {
                drift::drift(&points)
            } else {
                drift::significant_drift(&points, DRIFT_ALPHA)
            },
            split: shape::too_few_to_tell(rates),
        }
    }

    /// A summary with only the count (checks not run).
    pub fn empty(n: usize) -> SideSummary {
        SideSummary {
            n,
            median: f64::NAN,
            median_ci: None,
            cv_pct: f64::NAN,
            outliers: Vec::new(),
            multimodal: None,
            drift: None,
            split: None,
        }
    }

    /// The drift, when it is reported ([`reported_drift`]).
    pub fn significant_drift(&self) -> Option<&drift::Drift> {
        self.drift.as_ref().filter(|d| reported_drift(d))
    }
}

/// Assesses every row (order kept) with one correction across all of them.
/// Comparisons are estimated in parallel (each on its own; the order is kept), so the result
/// is the same as one by one.
pub fn assess(rows: Vec<Row>, opts: &Options) -> Vec<Assessment> {
    let mut out = estimate_each(rows, opts);
    decide(&mut out, opts, Rules::default());
    out
}

/// Estimates every row (order kept, in parallel) without the correction: each
/// [`Assessment`] has its raw p-value, but `p_adjusted` NaN and an inconclusive placeholder
/// verdict until the correction across the whole report ([`correct`], [`verdict`]) is applied.
/// For a report computed in parts (the bounded-memory path of a large input).
pub fn estimate_each(rows: Vec<Row>, opts: &Options) -> Vec<Assessment> {
    use rayon::prelude::*;
    rows.into_par_iter().map(|r| estimate(r, opts)).collect()
}

/// A comparison's evidence as the report-wide decision reads it (its raw p-value and
/// [`Estimate`]) and takes its outcome (the corrected p-value and the verdict): an
/// [`Assessment`], or a compact record a report keeps instead of it.
pub trait Decidable {
    /// The comparison's name.
    fn name(&self) -> &str;
    /// Raw two-sided p-value (NaN without a test).
    fn p_value(&self) -> f64;
    /// p-value after the report's correction (NaN before [`decide`] and without a test).
    fn p_adjusted(&self) -> f64;
    /// What the verdict rests on besides the corrected p-value.
    fn estimate(&self) -> Estimate;
    /// Records the decision: `p_adjusted` after the report's correction, and the verdict.
    fn decided(&mut self, p_adjusted: f64, verdict: Verdict);
    /// The verdict (inconclusive before [`decide`]).
    fn verdict(&self) -> Verdict;
    /// Records how a sequential rule settled the comparison
    /// ([`crate::verdict::sequential::apply`]): its verdict and, when given, the interval
    /// of the change it settled on (percent).
    fn settle(&mut self, verdict: Verdict, change_ci_pct: Option<(f64, f64)>);
}

impl Decidable for Assessment {
    fn name(&self) -> &str {
        &self.row.comparison.name
    }
    fn p_value(&self) -> f64 {
        self.p_value
    }
    fn p_adjusted(&self) -> f64 {
        self.p_adjusted
    }
    fn estimate(&self) -> Estimate {
        Estimate::of(self)
    }
    fn decided(&mut self, p_adjusted: f64, verdict: Verdict) {
        self.p_adjusted = p_adjusted;
        self.verdict = verdict;
    }
    fn verdict(&self) -> Verdict {
        self.verdict
    }
    fn settle(&mut self, verdict: Verdict, change_ci_pct: Option<(f64, f64)>) {
        self.verdict = verdict;
        if change_ci_pct.is_some() {
            self.change_ci_pct = change_ci_pct;
        }
    }
}

/// The least a report keeps of an assessed comparison to decide and gate it with the
/// report's other comparisons ([`decide`], [`regressions`]), without its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Decided {
    /// The comparison's name.
    pub name: Box<str>,
    /// What the verdict rests on besides the corrected p-value.
    pub estimate: Estimate,
    /// Raw two-sided p-value (NaN without a test).
    pub p_value: f64,
    /// p-value after the report's correction (NaN before [`decide`] and without a test).
    pub p_adjusted: f64,
    /// The verdict (inconclusive before [`decide`]).
    pub verdict: Verdict,
}

impl Decided {
    /// What `a` brings to the report's decision, as assessed.
    pub fn of(a: &Assessment) -> Decided {
        Decided {
            name: a.row.comparison.name.as_str().into(),
            estimate: Estimate::of(a),
            p_value: a.p_value,
            p_adjusted: a.p_adjusted,
            verdict: a.verdict,
        }
    }
}

/// Implements [`Decidable`] for a compact record with the fields `name` (dereferencing to
/// `str`), `estimate`, `p_value`, `p_adjusted` and `verdict`.
macro_rules! decidable_record {
    ($t:ty) => {
        impl $crate::verdict::decide::Decidable for $t {
            fn name(&self) -> &str {
                &self.name
            }
            fn p_value(&self) -> f64 {
                self.p_value
            }
            fn p_adjusted(&self) -> f64 {
                self.p_adjusted
            }
            fn estimate(&self) -> $crate::verdict::decide::Estimate {
                self.estimate
            }
            fn decided(&mut self, p_adjusted: f64, verdict: $crate::verdict::decide::Verdict) {
                self.p_adjusted = p_adjusted;
                self.verdict = verdict;
            }
            fn verdict(&self) -> $crate::verdict::decide::Verdict {
                self.verdict
            }
            fn settle(
                &mut self,
                verdict: $crate::verdict::decide::Verdict,
                change_ci_pct: Option<(f64, f64)>,
            ) {
                self.verdict = verdict;
                if change_ci_pct.is_some() {
                    self.estimate.change_ci_pct = change_ci_pct;
                }
            }
        }
    };
}
pub(crate) use decidable_record;

decidable_record!(Decided);

/// What the report-wide decision ([`decide`]) applies besides the correction and threshold
/// of its [`Options`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Rules<'a> {
    /// The rows a sequential rule settled (`--runs auto --stop decided`; empty: none, or they
    /// do not settle the metric reported).
    pub settled: &'a [crate::format::results::plan::Settled],
    /// `--max-regression PCT`: the gate's threshold, percent.
    pub max_regression: Option<f64>,
}

/// The report-wide decision over `rows`, every comparison of a report in report order (one
/// family): applies the report's correction across all of them and decides each verdict
/// ([`correct`], [`verdict`]), then gives the rows a sequential rule settled its verdict
/// ([`crate::verdict::sequential::apply`]). Returns the indices in `rows` of the comparisons
/// that fail the `--max-regression` gate ([`regressions`]; none without it), in report order.
pub fn decide<T: Decidable>(rows: &mut [T], opts: &Options, rules: Rules<'_>) -> Vec<usize> {
    let p: Vec<f64> = rows.iter().map(Decidable::p_value).collect();
    let (adj, m) = correct(&p, opts.correction);
    for (x, pa) in rows.iter_mut().zip(adj) {
        let v = verdict(&x.estimate(), pa, opts, m);
        x.decided(pa, v);
    }
    if !rules.settled.is_empty() {
        crate::verdict::sequential::apply(rows, rules.settled);
    }
    match rules.max_regression {
        Some(max) => regressions(rows, max, opts.alpha),
        None => Vec::new(),
    }
}

/// The report's one decision: [`decide`] over `rows`, the report's comparisons in report
/// order, with the gate of `rules`; or, when the gate reads other estimates than the rows
/// (`gated`, not empty: a sharded run's pooled estimates beside the rows' combinations over
/// machines), `gated` decided as a family of its own with the gate and `rows` without it.
/// Returns the indices of the comparisons that fail the gate: in `gated` when it is not
/// empty, else in `rows`.
pub fn decide_report<T: Decidable>(
    rows: &mut [T],
    gated: &mut [Decided],
    opts: &Options,
    rules: Rules<'_>,
) -> Vec<usize> {
    if gated.is_empty() {
        return decide(rows, opts, rules);
    }
    let failing = decide(gated, opts, rules);
    let ungated = Rules {
        max_regression: None,
        ..rules
    };
    decide(rows, opts, ungated);
    failing
}

/// The p-values `p` (raw, one per comparison of a report, in report order) after the
/// correction `c`, and the family size `m` that [`verdict`] takes: the p-values that are not
/// NaN, at least 1.
pub fn correct(p: &[f64], c: Correction) -> (Vec<f64>, usize) {
    let m = p.iter().filter(|p| !p.is_nan()).count().max(1);
    (c.adjust(p), m)
}

/// As [`assess`], for a sharded run: a row whose name has a combination over machines in
/// `combined` takes its change, interval and p-value from it (never from the raw samples
/// pooled across machines); the distribution checks stay those of the pooled samples. One
/// correction across all rows, as [`assess`].
pub fn assess_combined(
    rows: Vec<Row>,
    combined: &std::collections::HashMap<String, crate::verdict::combine::Combined>,
    opts: &Options,
) -> Vec<Assessment> {
    let mut out = estimate_each_combined(rows, combined, opts);
    decide(&mut out, opts, Rules::default());
    out
}

/// [`assess_combined`] before the correction across the report: each row estimated on its
/// own ([`estimate_each`]), its change, interval and p-value taken from its combination
/// over machines in `combined` when it has one.
pub fn estimate_each_combined(
    rows: Vec<Row>,
    combined: &std::collections::HashMap<String, crate::verdict::combine::Combined>,
    opts: &Options,
) -> Vec<Assessment> {
    use rayon::prelude::*;
    rows.into_par_iter()
        .map(|r| {
            let mut a = estimate(r, opts);
            if let Some(c) = combined.get(&a.row.comparison.name) {
                a.method = if c.machines.iter().all(|m| m.paired) {
                    Method::Paired
                } else {
                    Method::Unpaired
                };
                a.change_pct = c.change_pct;
                a.change_ci_pct = Some(c.change_ci_pct);
                a.p_value = c.p_value;
                a.paired = None;
                a.combined = Some(c.clone());
            }
            a
        })
        .collect()
}

fn estimate(row: Row, opts: &Options) -> Assessment {
    let c = &row.comparison;
    let runs = c.old.len().min(c.new.len());
    let pairs = c.pairs();
    // Ratios (and their logs) mean nothing unless every value is positive: no interval then.
    let positive = c.old.iter().chain(&c.new).all(|v| *v > 0.0);
    let paired = if positive && pairs.len() >= MIN_PAIRS {
        paired::paired_log_ratio(&pairs, opts.confidence)
    } else {
        None
    };
    let (method, change_pct, ci, p_value) = match paired {
        Some(p) => (
            Method::Paired,
            (p.ratio - 1.0) * 100.0,
            Some(((p.ratio_ci.0 - 1.0) * 100.0, (p.ratio_ci.1 - 1.0) * 100.0)),
            p.p_value,
        ),
        None => {
            let (change, ci, p) = unpaired(&row, opts.confidence);
            (Method::Unpaired, change, ci, p)
        }
    };
    let (rank, u_test, old_side, new_side) = if opts.distribution_checks {
        let (rank, u_test) = if opts.rank_tests {
            let rank = rank::rank_sum(&c.old, &c.new, opts.confidence);
            (rank, benchstat_u_test(&c.old, &c.new, rank))
        } else {
            (None, None)
        };
        (
            rank,
            u_test,
            SideSummary::with_drift(&c.old, &c.old_runs, opts.every_drift),
            SideSummary::with_drift(&c.new, &c.new_runs, opts.every_drift),
        )
    } else {
        (
            None,
            None,
            SideSummary {
                split: shape::too_few_to_tell(&c.old),
                ..SideSummary::empty(c.old.len())
            },
            SideSummary {
                split: shape::too_few_to_tell(&c.new),
                ..SideSummary::empty(c.new.len())
            },
        )
    };
    // A comparison from summary statistics counts the samples they summarise.
    let counts = match c.summary {
        Some([o, n]) => [o.n as usize, n.n as usize],
        None => [c.old.len(), c.new.len()],
    };
    let min_attainable_p = min_attainable_p(counts[0], counts[1]);
    Assessment {
        rank,
        u_test,
        old_side,
        new_side,
        min_attainable_p,
        too_few_samples: min_attainable_p > opts.alpha,
        row,
        method,
        change_pct,
        change_ci_pct: ci,
        p_value,
        p_adjusted: f64::NAN,
        paired,
        runs,
        verdict: Verdict::Inconclusive { runs_needed: None },
        combined: None,
    }
}

/// The unpaired change (percent), its interval and p-value of a row: Fieller's interval of
/// the ratio of means with Welch's p, or the exact difference when both sides are constant
/// (see the module doc for zeros).
fn unpaired(row: &Row, confidence: f64) -> (f64, Option<(f64, f64)>, f64) {
    let c = &row.comparison;
    let non_negative = c.old.iter().chain(&c.new).all(|v| *v >= 0.0);
    // Constant needs two samples: one sample says nothing about its spread.
    let constant = |v: &[f64]| v.len() >= 2 && v.iter().all(|x| *x == v[0]);
    // Both sides (essentially) constant: a difference is certain, equality means no change.
    let welch_p = row.welch_p();
    if let Some([o, n]) = c.summary {
        let r = ratio::fieller_summary(
            [o.mean, o.sd, f64::from(o.n)],
            [n.mean, n.sd, f64::from(n.n)],
            confidence,
        )
        .filter(|_| non_negative);
        return (
            row.improvement_pct,
            r.map(|r| ((r.lo - 1.0) * 100.0, (r.hi - 1.0) * 100.0)),
            welch_p,
        );
    }
    if constant(&c.old) && constant(&c.new) && non_negative {
        let (o, n) = (c.old[0], c.new[0]);
        let change = if o == n {
            0.0
        } else if o == 0.0 {
            f64::INFINITY
        } else {
            (n / o - 1.0) * 100.0
        };
        let p = if o == n { 1.0 } else { 0.0 };
        return (change, Some((change, change)), p);
    }
    if non_negative && constant(&c.old) && c.old[0] == 0.0 {
        // From exactly nothing to something: the ratio is unbounded, the sign is certain.
        let ci = (row.improvement_pct == f64::INFINITY).then_some((f64::INFINITY, f64::INFINITY));
        return (row.improvement_pct, ci, welch_p);
    }
    let r = ratio::fieller(&c.old, &c.new, confidence).filter(|_| non_negative);
    // With few, spread samples Fieller's interval can be unbounded or reach below a ratio of
    // zero (a change below −100 %, impossible for a rate): then the interval is taken on the
    // log-ratio scale, whose bounds stay above −100 %.
    let r = match r {
        Some(f) if f.lo > 0.0 => Some(f),
        other => ratio::log_ratio(&c.old, &c.new, confidence).or(other),
    };
    (
        row.improvement_pct,
        r.map(|r| ((r.lo - 1.0) * 100.0, (r.hi - 1.0) * 100.0)),
        welch_p,
    )
}

/// Smallest two-sided p the rank-sum test can reach with `n_old` and `n_new` samples,
/// `2 / C(n_old + n_new, n_old)` (1 for an empty side). Above α there are too few samples for
/// any verdict (see the module doc).
pub fn min_attainable_p(n_old: usize, n_new: usize) -> f64 {
    if n_old == 0 || n_new == 0 {
        1.0
    } else {
        utest::min_p(n_old, n_new)
    }
}

/// benchstat's U test of old against new. Without ties below 50 a side its exact p is R's
/// exact p (`rank`), so it is taken from there; only tied (or larger) samples run
/// [`utest::u_test`] (its dynamic programme over tie groups is the costly part).
fn benchstat_u_test(old: &[f64], new: &[f64], rank: Option<rank::RankSum>) -> Option<utest::UTest> {
    match rank {
        Some(r) if r.exact => Some(utest::UTest {
            u: (old.len() * new.len()) as f64 - r.w,
            p_value: r.p_value,
            exact: true,
            all_equal: false,
            ties: false,
        }),
        _ => utest::u_test(old, new),
    }
}

/// Smallest sample count per side (at least the counts there are) whose rank-sum test can
/// reach `alpha`, for a too-few-samples verdict; None when 100 a side would not do.
fn samples_needed(n_old: usize, n_new: usize, alpha: f64) -> Option<u64> {
    (1..=100usize)
        .find(|&k| utest::min_p(n_old.max(k), n_new.max(k)) <= alpha)
        .map(|k| k as u64)
}

/// What the verdict on a comparison rests on besides its corrected p-value: the change and
/// its interval (percent), the sample counts and the metric's direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Estimated change, percent ([`Assessment::change_pct`]).
    pub change_pct: f64,
    /// Its 95% interval, percent ([`Assessment::change_ci_pct`]).
    pub change_ci_pct: Option<(f64, f64)>,
    /// Samples of the old and the new side.
    pub n: [u32; 2],
    /// Too few samples for any verdict ([`Assessment::too_few_samples`]).
    pub too_few_samples: bool,
    /// Which direction of the metric is the improvement.
    pub better: Better,
}

impl Estimate {
    /// The estimate of an assessment.
    pub fn of(a: &Assessment) -> Estimate {
        let c = &a.row.comparison;
        Estimate {
            change_pct: a.change_pct,
            change_ci_pct: a.change_ci_pct,
            n: match c.summary {
                Some([o, n]) => [o.n, n.n],
                None => [c.old.len() as u32, c.new.len() as u32],
            },
            too_few_samples: a.too_few_samples,
            better: c.better,
        }
    }
}

/// The verdict (see the module doc) on the comparison estimated by `e`, with its p-value
/// after the report's correction `p_adjusted` and the family size `m` of [`correct`].
pub fn verdict(e: &Estimate, p_adjusted: f64, opts: &Options, m: usize) -> Verdict {
    let t = opts.threshold_pct;
    let [n_old, n_new] = e.n.map(|n| n as usize);
    if e.too_few_samples {
        return Verdict::Inconclusive {
            runs_needed: samples_needed(n_old, n_new, opts.alpha),
        };
    }
    let Some((lo, hi)) = e.change_ci_pct else {
        return Verdict::Inconclusive { runs_needed: None };
    };
    if lo > -t && hi < t {
        return Verdict::NoChange;
    }
    let significant = p_adjusted < opts.alpha;
    let (up, down) = (lo > 0.0, hi < 0.0);
    let (improved, regressed) = match e.better {
        Better::Higher => (up, down),
        Better::Lower => (down, up),
    };
    if significant && improved {
        return Verdict::Faster;
    }
    if significant && regressed {
        return Verdict::Slower;
    }
    // Significance after the correction needs the interval at level 1 − α/m (Bonferroni, the
    // strictest step of Holm) to exclude 0: shrink the 95% target by the quantile ratio.
    let family = if opts.correction == Correction::None {
        1
    } else {
        m
    };
    let normal = statrs::distribution::Normal::standard();
    let z = |p: f64| statrs::distribution::ContinuousCDF::inverse_cdf(&normal, p);
    let sig_factor =
        z(1.0 - (1.0 - opts.confidence) / 2.0) / z(1.0 - opts.alpha / (2.0 * family as f64));
    Verdict::Inconclusive {
        runs_needed: runs_needed(
            n_old.min(n_new),
            (hi - lo) / 2.0,
            e.change_pct,
            t,
            sig_factor,
        ),
    }
}

/// The geometric mean of the changes of a report's comparisons (benchstat's geomean row).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Geomean {
    /// `exp(mean(ln rᵢ)) − 1` in percent over the `n` comparisons, where `rᵢ = 1 +
    /// change_pct/100` is each comparison's ratio (of means, or the paired geometric mean).
    Defined {
        /// Geometric mean change, percent.
        change_pct: f64,
        /// Comparisons it covers (every one in the report).
        n: usize,
    },
    /// A ratio has no logarithm: some comparison has a mean of 0 (or ≤ 0) on a side, or an
    /// undefined change. The geomean is left out rather than taken over the other rows.
    Undefined {
        /// Comparisons in the report.
        n: usize,
        /// Comparisons whose ratio is undefined, 0 or infinite (a side's mean is 0 or less).
        undefined: usize,
    },
}

impl Geomean {
    /// The change in percent when defined.
    pub fn change_pct(self) -> Option<f64> {
        match self {
            Geomean::Defined { change_pct, .. } => Some(change_pct),
            Geomean::Undefined { .. } => None,
        }
    }

    /// Why it is undefined, for a note (None when defined).
    pub fn note(self) -> Option<String> {
        match self {
            Geomean::Defined { .. } => None,
            Geomean::Undefined { n, undefined } => Some(format!(
                "geomean: not defined: {undefined} of {n} comparisons have a mean of 0 on a side \
                 (or no change figure), and a ratio to or from 0 has no logarithm; left out \
                 rather than taken over the other rows"
            )),
        }
    }
}

/// A comparison's term of [`geomean`]: `ln(1 + change_pct/100)`, or None when undefined (a
/// side's mean ≤ 0, or the ratio not finite and above 0).
pub fn log_ratio(x: &Assessment) -> Option<f64> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let c = &x.row.comparison;
    let r = 1.0 + x.change_pct / 100.0;
    (mean(&c.old) > 0.0 && mean(&c.new) > 0.0 && r.is_finite() && r > 0.0).then(|| r.ln())
}

/// The geometric mean of the changes of a report's comparisons (those present on both sides)
/// from each one's [`log_ratio`], in report order (the sum is taken in that order); None for
/// fewer than two comparisons (as benchstat, which prints no geomean for one row). A
/// comparison whose old or new mean is ≤ 0, or whose change is not a finite ratio above 0
/// (a `None` term), makes it [`Geomean::Undefined`] — so `0 → 0`, `0 → x` and `x → 0` all
/// do, as in benchstat ("summaries must be >0 to compute geomean").
pub fn geomean(logs: impl IntoIterator<Item = Option<f64>>) -> Option<Geomean> {
    let mut n = 0;
    let mut sum = 0.0;
    let mut undefined = 0;
    for l in logs {
        n += 1;
        match l {
            Some(l) => sum += l,
            None => undefined += 1,
        }
    }
    if n < 2 {
        return None;
    }
    Some(if undefined > 0 {
        Geomean::Undefined { n, undefined }
    } else {
        Geomean::Defined {
            change_pct: ((sum / n as f64).exp() - 1.0) * 100.0,
            n,
        }
    })
}

/// Runs per side that would shrink an interval of half-width `half_pct` (with `n` runs now)
/// enough to settle the verdict for an estimate `est_pct` and threshold `t_pct`: either the
/// interval fits inside ±threshold (half-width `t − |est|`), or it excludes 0 at the corrected
/// level (half-width `|est| · sig_factor`, where `sig_factor ≤ 1` is the ratio of the 95% to the
/// corrected normal quantile). The smaller requirement wins.
pub fn runs_needed(
    n: usize,
    half_pct: f64,
    est_pct: f64,
    t_pct: f64,
    sig_factor: f64,
) -> Option<u64> {
    let target = (t_pct - est_pct.abs()).max(est_pct.abs() * sig_factor);
    if target.is_nan() || target <= 0.0 || !half_pct.is_finite() || n == 0 {
        return None;
    }
    let need = (n as f64 * (half_pct / target).powi(2)).ceil();
    if need > MAX_RUNS_NEEDED as f64 {
        return None;
    }
    Some((need as u64).max(n as u64 + 1))
}

/// The indices of the comparisons that fail `--max-regression PCT` (Node's rule): significant after the
/// correction, and the whole interval of the change beyond `PCT` in the worse direction
/// (below `−PCT` for a higher-is-better metric such as the rate, above `+PCT` for a
/// lower-is-better one such as wall time or memory). A comparison with too few samples for any
/// verdict ([`Assessment::too_few_samples`]) never fails the gate, as it is never *slower*.
pub fn regressions<T: Decidable>(decided: &[T], max_regression_pct: f64, alpha: f64) -> Vec<usize> {
    let regressed = |a: &T| {
        let e = a.estimate();
        !e.too_few_samples
            && a.p_adjusted() < alpha
            && e.change_ci_pct.is_some_and(|(lo, hi)| match e.better {
                Better::Higher => hi < -max_regression_pct,
                Better::Lower => lo > max_regression_pct,
            })
    };
    (0..decided.len())
        .filter(|&i| regressed(&decided[i]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_needed_scales_with_square() {
        // ±4% with 10 runs, estimate 0, threshold 1%: half-width must reach 1% → 160 runs.
        assert_eq!(runs_needed(10, 4.0, 0.0, 1.0, 1.0), Some(160));
        // An estimate of 3% only needs the interval to exclude 0: (4/3)² · 10 → 18.
        assert_eq!(runs_needed(10, 4.0, 3.0, 1.0, 1.0), Some(18));
        // After a correction the interval must shrink further: (4/1.5)² · 10 → 72.
        assert_eq!(runs_needed(10, 4.0, 3.0, 1.0, 0.5), Some(72));
        assert_eq!(runs_needed(10, f64::NAN, 0.0, 1.0, 1.0), None);
    }
}
