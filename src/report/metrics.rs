//! The metrics of a report besides the one it decides on, and whether it shows each side's
//! CV ([`crate::verdict::metrics`]).
//!
//! Samples that carry counters (`--measure`: instruction counts, the kernel's software
//! counters, beside wall time) are reported with a `CV old/new` column and a summary of every
//! metric, because comparing the metrics' noise is why counters are measured. Other samples
//! are reported as before, unless `--cv` asks for the column: the default table of wall times
//! or a harness's figures stays as it was.

use super::{Format, Plan};
use crate::render::table::TableRow;
use crate::sample::{COUNTER_METRICS, MetricId, SampleSet};
use crate::verdict::decide::{self, Options};
use crate::verdict::metrics::{Figures, MetricSummary, Metrics};

/// True when some sample of `set` is of a counter metric ([`COUNTER_METRICS`]).
pub(crate) fn carries_counters(set: &SampleSet) -> bool {
    set.metrics().iter().enumerate().any(|(i, m)| {
        COUNTER_METRICS.contains(&m.name.as_str()) && set.has_metric(MetricId(i as u32))
    })
}

/// Whether the rows of the report of `set` by `plan` carry each side's CV
/// ([`TableRow::cv_pct`]): in the formats that show the metrics (table, Markdown, JSON), when
/// the samples carry counters or `--cv` asked for the column.
pub(crate) fn rows_carry_cv(set: &SampleSet, plan: &Plan) -> bool {
    matches!(plan.format, Format::Table | Format::Markdown | Format::Json)
        && (plan.cv || carries_counters(set))
}

/// What the report of `set` by `plan`, deciding on `chosen` with the decided rows `rows`
/// (carrying their CV when [`rows_carry_cv`]), shows of its metrics: the CV column when the
/// samples carry counters or `--cv` asked for it; with counters, also the summary of `chosen`
/// and of every other metric the samples have, each compared with the same options `opts`
/// (formats that show it: table, Markdown, JSON).
pub(crate) fn for_report(
    set: &SampleSet,
    chosen: MetricId,
    rows: &[TableRow<'_>],
    opts: &Options,
    plan: &Plan,
) -> Metrics {
    if !matches!(plan.format, Format::Table | Format::Markdown | Format::Json) {
        return Metrics::default();
    }
    if !carries_counters(set) {
        return Metrics {
            cv: plan.cv,
            ..Metrics::default()
        };
    }
    let figures: Vec<Figures> = rows
        .iter()
        .map(|r| Figures {
            verdict: r.verdict,
            change_pct: r.estimate.change_pct,
            log_ratio: r.log_ratio,
            cv_pct: r.cv_pct.unwrap_or([f64::NAN; 2]),
        })
        .collect();
    let others = (0..set.metrics().len() as u32)
        .map(MetricId)
        .filter(|&id| id != chosen && set.has_metric(id))
        .map(|id| summary(set, id, opts))
        .collect();
    Metrics {
        cv: true,
        chosen: Some(MetricSummary::of(set.metric(chosen), &figures)),
        others,
    }
}

/// The summary of metric `id` of `set`: its comparisons (benchmarks on both sides) assessed
/// with `opts`, without the rank tests nobody shows here.
fn summary(set: &SampleSet, id: MetricId, opts: &Options) -> MetricSummary {
    let mut comparisons = crate::compare::group_metric(set, id);
    crate::compare::sort_by_name(&mut comparisons);
    let (both, _) = crate::compare::split_one_sided(comparisons);
    let o = Options {
        distribution_checks: true,
        rank_tests: false,
        every_drift: false,
        ..*opts
    };
    let a = decide::assess(crate::verdict::rows_with(both, false), &o);
    let figures: Vec<Figures> = a.iter().map(Figures::of).collect();
    MetricSummary::of(set.metric(id), &figures)
}
