//! `--format json`: the whole analysis as one JSON document for other tools.
//!
//! The layout is documented by the JSON Schema `schema/report.schema.json` (draft 2020-12) in
//! the repository, and versioned by the top-level `schema_version` ([`SCHEMA_VERSION`]): a
//! field is only ever added within a version; renaming, removing or changing the meaning of
//! one bumps it.
//!
//! Numbers are JSON numbers in the units named by the field (`_pct`: percent; rates in the
//! metric's unit, e.g. ops/s). JSON has no NaN or infinity: a statistic that is undefined
//! (no test, an empty side) is `null`.
//!
//! The document and each of its objects are structs serialized by serde_json's pretty printer
//! (two spaces per level). Every struct declares its fields in sorted (byte) order, so the
//! bytes are those of pretty-printing the same document as a `serde_json::Value` tree, whose
//! objects sort their keys. The comparisons are serialized one at a time as they are made
//! ([`write_document`]): memory holds one comparison's record, not the document.

use super::RunInfo;
use crate::sample::{Better, SampleSet};
use crate::verdict::decide::{Assessment, Correction, Method, SideSummary, Verdict, WelchError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;

/// Version of the JSON layout (`schema_version`); see the module notes for when it changes.
pub const SCHEMA_VERSION: u64 = 2;

/// A text of a comparison: borrowed from the report when written, owned when read back.
type Text<'a> = Cow<'a, str>;

/// A number, written `null` when NaN or ±infinity (serde_json's rule for `f64`); `null` reads
/// back as NaN.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(transparent)]
struct Num(f64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        Ok(Num(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN)))
    }
}

/// An interval (schema `interval`).
#[derive(Serialize, Deserialize)]
struct Interval {
    lower: Num,
    upper: Num,
}

fn interval((lo, hi): (f64, f64)) -> Interval {
    Interval {
        lower: Num(lo),
        upper: Num(hi),
    }
}

/// One side's summary (schema `side`).
#[derive(Serialize, Deserialize)]
struct Side<'a> {
    cv_pct: Num,
    drift: Option<Drift>,
    mean: Num,
    median: Num,
    median_ci: Option<Interval>,
    multimodal: Option<Multimodal>,
    n: usize,
    outliers: Cow<'a, [usize]>,
}

#[derive(Serialize, Deserialize)]
struct Drift {
    n: usize,
    p_value: Num,
    significant: bool,
    slope: Num,
    slope_pct_per_run: Num,
    tau: Num,
}

#[derive(Serialize, Deserialize)]
struct Multimodal {
    dip: Num,
    modes: Vec<Mode>,
    p_value: Num,
    regimes: Regimes,
    separation: Num,
}

#[derive(Serialize, Deserialize)]
struct Mode {
    centre: Num,
    share: Num,
}

#[derive(Serialize, Deserialize)]
struct Regimes {
    by_dip: bool,
    by_gap: bool,
    dip_gap_critical: Num,
    gap: Num,
    gap_critical: Num,
    groups: Vec<Group>,
}

#[derive(Serialize, Deserialize)]
struct Group {
    centre: Num,
    count: usize,
    high: Num,
    low: Num,
    share: Num,
}

impl<'a> Side<'a> {
    /// The summary `s` of a side whose values are `values`.
    fn new(s: &'a SideSummary, values: &[f64]) -> Side<'a> {
        Side {
            cv_pct: Num(s.cv_pct),
            drift: s.drift.as_ref().map(|d| Drift {
                n: d.n,
                p_value: Num(d.p_value),
                significant: s.significant_drift().is_some(),
                slope: Num(d.slope),
                slope_pct_per_run: Num(d.slope_pct_per_run),
                tau: Num(d.tau),
            }),
            mean: Num(values.iter().sum::<f64>() / values.len() as f64),
            median: Num(s.median),
            median_ci: s.median_ci.map(interval),
            multimodal: s.multimodal.as_ref().map(|m| Multimodal {
                dip: Num(m.dip),
                modes: (m.modes.iter())
                    .map(|md| Mode {
                        centre: Num(md.centre),
                        share: Num(md.share),
                    })
                    .collect(),
                p_value: Num(m.p_value),
                regimes: Regimes {
                    by_dip: m.regimes.by_dip,
                    by_gap: m.regimes.by_gap,
                    dip_gap_critical: Num(m.regimes.dip_gap_critical),
                    gap: Num(m.regimes.stats.gap),
                    gap_critical: Num(m.regimes.gap_critical),
                    groups: (m.regimes.regimes.iter())
                        .map(|g| Group {
                            centre: Num(g.centre),
                            count: g.count,
                            high: Num(g.high),
                            low: Num(g.low),
                            share: Num(g.share),
                        })
                        .collect(),
                },
                separation: Num(m.separation),
            }),
            n: s.n,
            outliers: Cow::Borrowed(&s.outliers),
        }
    }
}

/// A comparison combined over machines (schema `combined`).
#[derive(Serialize, Deserialize)]
struct Combined<'a> {
    df: Num,
    fixed_change_pct: Num,
    heterogeneous: bool,
    i2_pct: Num,
    machines: usize,
    model: Text<'a>,
    outliers: Vec<Text<'a>>,
    per_machine: Vec<Machine<'a>>,
    q: Num,
    q_p_value: Num,
    tau2: Num,
}

#[derive(Serialize, Deserialize)]
struct Machine<'a> {
    change_pct: Num,
    df: Num,
    log_ratio: Num,
    machine: Text<'a>,
    method: Text<'a>,
    n_new: usize,
    n_old: usize,
    variance: Num,
}

/// compare.R's figures of a comparison (schema `compare_r`).
#[derive(Serialize, Deserialize)]
struct CompareR<'a> {
    accuracy_pct: Option<Accuracy>,
    improvement_pct: Num,
    stars: Option<Text<'a>>,
    welch: Option<Welch>,
    welch_error: Option<Text<'a>>,
}

#[derive(Serialize, Deserialize)]
struct Accuracy {
    p95: Num,
    p99: Num,
    p999: Num,
}

#[derive(Serialize, Deserialize)]
struct Welch {
    df: Num,
    p_value: Num,
    t: Num,
}

/// The sides (`old`, `new`) that a check flagged.
#[derive(Serialize, Deserialize)]
struct Flags<'a> {
    drift: Vec<Text<'a>>,
    multimodal: Vec<Text<'a>>,
    outliers: Vec<Text<'a>>,
}

#[derive(Serialize, Deserialize)]
struct MetricName<'a> {
    better: Text<'a>,
    name: Text<'a>,
    unit: Text<'a>,
}

#[derive(Serialize, Deserialize)]
struct Paired {
    df: Num,
    mean_log_ratio: Num,
    n: usize,
    p_value: Num,
    ratio: Num,
    ratio_ci: Interval,
    t: Num,
}

#[derive(Serialize, Deserialize)]
struct RankSum<'a> {
    ci_level: Num,
    exact: bool,
    method: Text<'a>,
    p_value: Num,
    shift: Num,
    shift_ci: Interval,
    w: Num,
}

#[derive(Serialize, Deserialize)]
struct RegimeChange {
    change_pct: Num,
    new_centre: Num,
    new_share: Num,
    old_centre: Num,
    old_share: Num,
}

#[derive(Serialize, Deserialize)]
struct UTest<'a> {
    all_equal: bool,
    method: Text<'a>,
    p_value: Num,
    u: Num,
}

/// One comparison of the document (schema `comparison`): borrowed from its assessment
/// ([`Comparison::new`]), or read back from its compact JSON text (`serde_json::from_slice`,
/// owned) to have its corrected values set ([`Comparison::correct`]).
#[derive(Serialize, Deserialize)]
pub struct Comparison<'a> {
    change: Text<'a>,
    change_ci_pct: Option<Interval>,
    change_pct: Num,
    /// Only in a columns report.
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<Text<'a>>,
    /// Only on rows combined over machines (a sharded run; optional in the schema).
    #[serde(skip_serializing_if = "Option::is_none")]
    combined: Option<Combined<'a>>,
    compare_r: CompareR<'a>,
    configuration: Text<'a>,
    file: Text<'a>,
    flags: Flags<'a>,
    method: Text<'a>,
    metric: MetricName<'a>,
    min_attainable_p: Num,
    name: Text<'a>,
    new: Side<'a>,
    old: Side<'a>,
    p_adjusted: Num,
    p_value: Num,
    paired: Option<Paired>,
    pairing: Text<'a>,
    rank_sum: Option<RankSum<'a>>,
    /// Only on rows where a side has two regimes (optional in the schema).
    #[serde(skip_serializing_if = "Option::is_none")]
    regime_changes: Option<Vec<RegimeChange>>,
    runs: usize,
    runs_needed: Option<u64>,
    significant: bool,
    too_few_samples: bool,
    u_test: Option<UTest<'a>>,
    verdict: Text<'a>,
}

impl<'a> Comparison<'a> {
    /// The comparison `a` (its names and metric in `set`), significant when its corrected
    /// p-value is below `alpha`.
    pub fn new(set: &'a SampleSet, a: &'a Assessment, alpha: f64) -> Comparison<'a> {
        let c = &a.row.comparison;
        let bench = set.benchmark(c.benchmark);
        let metric = set.metric(c.metric);
        let sides_where = |f: fn(&SideSummary) -> bool| -> Vec<Text<'a>> {
            [("old", &a.old_side), ("new", &a.new_side)]
                .into_iter()
                .filter(|(_, s)| f(s))
                .map(|(n, _)| n.into())
                .collect()
        };
        let changes = a.regime_changes();
        let mut x = Comparison {
            change: change_kind(a.change_pct).into(),
            change_ci_pct: a.change_ci_pct.map(interval),
            change_pct: Num(a.change_pct),
            column: None,
            combined: a.combined.as_ref().map(|c| Combined {
                df: Num(c.df),
                fixed_change_pct: Num((c.meta.fixed.estimate.exp() - 1.0) * 100.0),
                heterogeneous: c.heterogeneous(),
                i2_pct: Num(c.meta.i2_pct),
                machines: c.k(),
                model: if c.random_effects() {
                    "random_effects_dl"
                } else {
                    "fixed_effect"
                }
                .into(),
                outliers: c.outliers().into_iter().map(Into::into).collect(),
                per_machine: (c.machines.iter())
                    .map(|m| Machine {
                        change_pct: Num(m.change_pct()),
                        df: Num(m.df),
                        log_ratio: Num(m.log_ratio),
                        machine: m.machine.as_str().into(),
                        method: if m.paired { "paired" } else { "unpaired" }.into(),
                        n_new: m.n.1,
                        n_old: m.n.0,
                        variance: Num(m.variance),
                    })
                    .collect(),
                q: Num(c.meta.q),
                q_p_value: Num(c.meta.q_p_value),
                tau2: Num(c.meta.tau2),
            }),
            compare_r: CompareR {
                accuracy_pct: a.row.accuracy_pct.map(|[p95, p99, p999]| Accuracy {
                    p95: Num(p95),
                    p99: Num(p99),
                    p999: Num(p999),
                }),
                improvement_pct: Num(a.row.improvement_pct),
                stars: a.row.stars.map(|s| s.as_str().into()),
                welch: a.row.welch.as_ref().ok().map(|t| Welch {
                    df: Num(t.df),
                    p_value: Num(t.p_value),
                    t: Num(t.t),
                }),
                welch_error: match &a.row.welch {
                    Ok(_) => None,
                    Err(WelchError::TooFewSamples) => Some("too_few_samples".into()),
                    Err(WelchError::EssentiallyConstant) => Some("essentially_constant".into()),
                    Err(WelchError::NotFinite) => Some("not_finite".into()),
                },
            },
            configuration: bench.configuration.text.as_str().into(),
            file: bench.file.as_str().into(),
            flags: Flags {
                drift: sides_where(|s| s.significant_drift().is_some()),
                multimodal: sides_where(|s| s.multimodal.is_some()),
                outliers: sides_where(|s| !s.outliers.is_empty()),
            },
            method: match a.method {
                Method::Paired => "paired",
                Method::Unpaired => "unpaired",
            }
            .into(),
            metric: MetricName {
                better: match c.better {
                    Better::Higher => "higher",
                    Better::Lower => "lower",
                }
                .into(),
                name: metric.name.as_str().into(),
                unit: metric.unit.as_str().into(),
            },
            min_attainable_p: Num(a.min_attainable_p),
            name: c.name.as_str().into(),
            new: Side::new(&a.new_side, &c.new),
            old: Side::new(&a.old_side, &c.old),
            p_adjusted: Num(f64::NAN),
            p_value: Num(a.p_value),
            paired: a.paired.as_ref().map(|p| Paired {
                df: Num(p.df),
                mean_log_ratio: Num(p.mean_log_ratio),
                n: p.n,
                p_value: Num(p.p_value),
                ratio: Num(p.ratio),
                ratio_ci: interval(p.ratio_ci),
                t: Num(p.t),
            }),
            pairing: c.pairing.key().into(),
            rank_sum: a.rank.as_ref().map(|r| RankSum {
                ci_level: Num(r.ci_level),
                exact: r.exact,
                method: r.method.key().into(),
                p_value: Num(r.p_value),
                shift: Num(r.shift),
                shift_ci: interval(r.shift_ci),
                w: Num(r.w),
            }),
            regime_changes: (!changes.is_empty()).then(|| {
                (changes.iter())
                    .map(|r| RegimeChange {
                        change_pct: Num(r.change_pct),
                        new_centre: Num(r.new_centre),
                        new_share: Num(r.new_share),
                        old_centre: Num(r.old_centre),
                        old_share: Num(r.old_share),
                    })
                    .collect()
            }),
            runs: a.runs,
            runs_needed: None,
            significant: false,
            too_few_samples: a.too_few_samples,
            u_test: a.u_test.as_ref().map(|u| UTest {
                all_equal: u.all_equal,
                method: u.method().key().into(),
                p_value: Num(u.p_value),
                u: Num(u.u),
            }),
            verdict: "".into(),
        };
        x.correct(a.p_adjusted, a.verdict, a.change_ci_pct, alpha);
        x
    }

    /// Sets what the correction across the whole report decides: the corrected p-value
    /// `p_adjusted`, the verdict `verdict` (with `runs_needed`) and significance at `alpha`;
    /// and the interval of the change, percent (which a sequential rule may have settled).
    pub fn correct(
        &mut self,
        p_adjusted: f64,
        verdict: Verdict,
        change_ci_pct: Option<(f64, f64)>,
        alpha: f64,
    ) {
        self.change_ci_pct = change_ci_pct.map(interval);
        self.p_adjusted = Num(p_adjusted);
        self.runs_needed = match verdict {
            Verdict::Inconclusive { runs_needed } => runs_needed,
            _ => None,
        };
        self.significant = p_adjusted < alpha;
        self.verdict = match verdict {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "no_change",
            Verdict::Inconclusive { .. } => "inconclusive",
        }
        .into();
    }

    /// The comparison as one column's in a columns report.
    pub fn in_column(mut self, label: &'a str) -> Self {
        self.column = Some(label.into());
        self
    }
}

/// What a change figure is when JSON cannot carry it as a number: `finite`, `increase_from_zero`
/// (+∞: from 0 to a positive value), `decrease_to_minus_infinity` (never for values ≥ 0) or
/// `undefined` (NaN).
fn change_kind(c: f64) -> &'static str {
    if c.is_finite() {
        "finite"
    } else if c == f64::INFINITY {
        "increase_from_zero"
    } else if c == f64::NEG_INFINITY {
        "decrease_to_minus_infinity"
    } else {
        "undefined"
    }
}

/// What the JSON document holds besides its comparisons: every other top-level key, in the
/// figures of the whole report.
pub struct Rest<'a> {
    /// The verdict rules used (correction, α, confidence, threshold).
    pub opts: &'a crate::verdict::decide::Options,
    /// How the samples were measured, when benchdiff ran them.
    pub run: Option<&'a RunInfo>,
    /// How many comparisons there are, then how many are faster, slower, no change and
    /// inconclusive ([`crate::render::table::verdict_counts`]).
    pub counts: [usize; 5],
    /// The geomean of the changes ([`crate::verdict::decide::geomean`]).
    pub geomean: Option<crate::verdict::decide::Geomean>,
    /// Jobs that failed.
    pub failures: &'a crate::compare::failures::Failures,
    /// Benchmarks measured on one side only.
    pub one_sided: &'a crate::compare::OneSided,
    /// The report-level notes, one a line ([`crate::render::table::report_notes`]).
    pub notes: &'a str,
    /// The A/A control's `control` object ([`crate::render::control::json_value`]), when the
    /// samples have a control side.
    pub control: Option<Value>,
    /// The `metrics` array ([`super::metrics::json`]), when there is one.
    pub metrics: Option<Value>,
    /// A columns report's `baseline` label and its `columns` array.
    pub columns: Option<(&'a str, Value)>,
}

/// The document (schema root); `comparisons` is an [`Items`].
#[derive(Serialize)]
struct Document<'a, C> {
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    columns: Option<&'a Value>,
    comparisons: C,
    #[serde(skip_serializing_if = "Option::is_none")]
    control: Option<&'a Value>,
    failures: Vec<Failure<'a>>,
    geomean: Option<Geomean>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metrics: Option<&'a Value>,
    notes: Vec<&'a str>,
    only_new: &'a [String],
    only_old: &'a [String],
    options: Options,
    run: Option<Run<'a>>,
    schema_version: u64,
    summary: Summary,
    tool: Tool,
}

/// A failed benchmark, side and kind of failure (schema `failure`).
#[derive(Serialize)]
struct Failure<'a> {
    benchmark: &'a str,
    cause: &'a str,
    jobs: u32,
    of_jobs: u32,
    side: &'a str,
    status: &'a str,
    text: String,
    unused_samples: u32,
}

#[derive(Serialize)]
struct Geomean {
    change_pct: Option<f64>,
    defined: bool,
    n: usize,
    note: Option<String>,
}

#[derive(Serialize)]
struct Options {
    alpha: f64,
    confidence: f64,
    correction: &'static str,
    threshold_pct: f64,
}

/// How benchdiff ran the samples (schema `run`).
#[derive(Serialize)]
struct Run<'a> {
    cpus: Option<&'a str>,
    files: usize,
    new: &'a str,
    new_path: &'a str,
    old: &'a str,
    old_path: &'a str,
    order: &'a str,
    runs: u32,
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sequential: Vec<Settled<'a>>,
    set: &'a [String],
}

/// A configuration the sequential rule settled: `decided` or `futile`.
#[derive(Serialize)]
struct Settled<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    conditional_power: Option<f64>,
    configuration: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<crate::verdict::sequential::Decision>,
    file: &'a str,
    interval_pct: [f64; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    row_alpha: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<usize>,
    runs: [usize; 2],
    stopped: &'static str,
}

#[derive(Serialize)]
struct Summary {
    comparisons: usize,
    failed_benchmarks: usize,
    faster: usize,
    inconclusive: usize,
    no_change: usize,
    slower: usize,
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

fn run(r: &RunInfo) -> Run<'_> {
    use crate::format::results::plan::Status;
    Run {
        cpus: r.cpus.as_deref(),
        files: r.files,
        new: &r.new,
        new_path: &r.new_path,
        old: &r.old,
        old_path: &r.old_path,
        order: &r.order,
        runs: r.runs,
        seed: r.seed,
        sequential: (r.sequential.iter())
            .filter_map(|s| {
                let settled = |stopped, lo_pct, hi_pct| Settled {
                    conditional_power: None,
                    configuration: &s.configuration,
                    decision: None,
                    file: &s.file,
                    interval_pct: [lo_pct, hi_pct],
                    row_alpha: None,
                    rows: None,
                    runs: s.runs,
                    stopped,
                };
                match s.status {
                    Status::Decided {
                        decision,
                        lo_pct,
                        hi_pct,
                        row_alpha,
                        rows,
                    } => Some(Settled {
                        decision: Some(decision),
                        row_alpha: Some(row_alpha),
                        rows: Some(rows),
                        ..settled("decided", lo_pct, hi_pct)
                    }),
                    Status::Futile {
                        conditional_power,
                        lo_pct,
                        hi_pct,
                    } => Some(Settled {
                        conditional_power: Some(conditional_power),
                        ..settled("futile", lo_pct, hi_pct)
                    }),
                    _ => None,
                }
            })
            .collect(),
        set: &r.set,
    }
}

/// The `comparisons` array: the items of `self.0()` serialized one at a time; an error
/// among them ends the document with that error.
struct Items<F>(F);

impl<F, I, C> Serialize for Items<F>
where
    F: Fn() -> I,
    I: Iterator<Item = std::io::Result<C>>,
    C: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)().map(Item))
    }
}

/// A comparison, or the error of reading it back.
struct Item<C>(std::io::Result<C>);

impl<C: Serialize> Serialize for Item<C> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Ok(c) => c.serialize(s),
            Err(e) => Err(serde::ser::Error::custom(e)),
        }
    }
}

/// Writes the document of the comparisons that `comparisons()` yields (in report order,
/// each already corrected) and `rest`, pretty-printed, with a final newline.
///
/// # Errors
/// Returns the error of writing to `out`, or the first error among the comparisons.
pub fn write_document<C: Serialize, I: Iterator<Item = std::io::Result<C>>>(
    rest: &Rest<'_>,
    comparisons: impl Fn() -> I,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let [comparisons_n, faster, slower, no_change, inconclusive] = rest.counts;
    let doc = Document {
        baseline: rest.columns.as_ref().map(|c| c.0),
        columns: rest.columns.as_ref().map(|c| &c.1),
        comparisons: Items(comparisons),
        control: rest.control.as_ref(),
        failures: (rest.failures.items.iter())
            .map(|x| Failure {
                benchmark: &x.benchmark,
                cause: &x.cause,
                jobs: x.jobs,
                of_jobs: x.of_jobs,
                side: x.side.label(),
                status: x.kind.key(),
                text: x.describe(),
                unused_samples: x.unused_samples,
            })
            .collect(),
        geomean: rest.geomean.map(|g| Geomean {
            change_pct: g.change_pct(),
            defined: g.change_pct().is_some(),
            n: match g {
                crate::verdict::decide::Geomean::Defined { n, .. }
                | crate::verdict::decide::Geomean::Undefined { n, .. } => n,
            },
            note: g.note(),
        }),
        metrics: rest.metrics.as_ref(),
        notes: rest.notes.lines().collect(),
        only_new: &rest.one_sided.only_new,
        only_old: &rest.one_sided.only_old,
        options: Options {
            alpha: rest.opts.alpha,
            confidence: rest.opts.confidence,
            correction: match rest.opts.correction {
                Correction::Holm => "holm",
                Correction::BenjaminiHochberg => "bh",
                Correction::None => "none",
            },
            threshold_pct: rest.opts.threshold_pct,
        },
        run: rest.run.map(run),
        schema_version: SCHEMA_VERSION,
        summary: Summary {
            comparisons: comparisons_n,
            failed_benchmarks: rest.failures.benchmarks(),
            faster,
            inconclusive,
            no_change,
            slower,
        },
        tool: Tool {
            name: "benchdiff",
            version: env!("CARGO_PKG_VERSION"),
        },
    };
    // serde_json writes a token at a time: a buffer of a known type takes them without a
    // call through `dyn Write` each.
    use std::io::Write;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut w, &doc)?;
    w.write_all(b"\n")?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number is written as serde_json writes an `f64` (NaN and ±infinity as `null`), and
    /// `null` reads back as NaN.
    #[test]
    fn numbers_read_back() {
        let xs = [1.0, -0.0, 1e-7, 0.1, f64::NAN, f64::INFINITY].map(Num);
        let text = serde_json::to_string(&xs).expect("prints");
        assert_eq!(text, "[1.0,-0.0,1e-7,0.1,null,null]");
        let back: Vec<Num> = serde_json::from_str(&text).expect("reads");
        assert_eq!(serde_json::to_string(&back).expect("prints"), text);
        assert!(back[4].0.is_nan());
    }
}
