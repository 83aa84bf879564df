//! BenchmarkDotNet JSON export (`[JsonExporterAttribute.Full]`, `--exporters json`, the
//! `*-report-full.json` or `*-report-brief.json` of `BenchmarkDotNet.Artifacts/results/`):
//! `{"Title", "HostEnvironmentInfo", "Benchmarks": [{"FullName", "Type", "Method",
//! "Parameters", "Statistics": {"Mean", "StandardDeviation", "N", …}, "Measurements":
//! [{"IterationMode", "IterationStage", "LaunchIndex", "IterationIndex", "Operations",
//! "Nanoseconds"}…]?}…]}`.
//!
//! Each entry is one benchmark (`FullName`, which holds the parameters, e.g.
//! `Ns.Class.Method(N: 10)`). The samples are the measurements of the workload's result
//! stage (`IterationMode` `Workload` and `IterationStage` `Result`; in files of
//! BenchmarkDotNet before 0.11, `IterationMode` `Result`), each as time per operation:
//! `Nanoseconds / Operations`, in seconds, metric `sec/op` (lower is better), `run` = the
//! `LaunchIndex` (the process that measured it). Overhead, pilot, warmup and jitting
//! iterations are not samples.
//!
//! The brief export has no measurements, only `Statistics`: such a benchmark gives one
//! sample, its `Mean`, with a warning that it has summary statistics only (the mean,
//! standard deviation and n are named; no samples are invented from them). With its
//! `StandardDeviation` and `N` they are recorded as its summary statistics
//! ([`SampleSet::set_summary`]) and the comparison is tested from them (Welch's test);
//! without them it is compared as one value per side, without a test.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Reads BenchmarkDotNet JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, a missing `Benchmarks`
/// array, or every problem when no benchmark has a measurement or a mean.
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut warns = Diagnostics::new(name);
    let (root, warnings) = crate::format::json_document(text, name)?;
    let benches = crate::format::json_array(
        &root,
        "Benchmarks",
        name,
        "no \"Benchmarks\" array: not a BenchmarkDotNet JSON export",
    )?;
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let mut from = 0;
    let mut records = 0u64;
    let mut summary_only: Vec<String> = Vec::new();
    // Summary-only benchmarks with their standard deviation and n.
    let mut with_stats: Vec<String> = Vec::new();
    let c_is_whole = |c: Option<f64>| c.is_some_and(|c| c >= 0.0 && c.fract() == 0.0);
    let mut summary_line = 0;
    for b in benches {
        let full = b
            .get("FullName")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| {
                let t = b.get("Type").and_then(Value::as_str)?;
                let m = b.get("Method").and_then(Value::as_str)?;
                Some(format!("{t}.{m}"))
            })
            .unwrap_or_default();
        let line = line_of_next_json_string(text, &full, &mut from);
        if full.is_empty() {
            diags.push(line, "a benchmark without a \"FullName\"");
            continue;
        }
        let bid = set.intern(&full, "");
        let mut n = 0u64;
        if let Some(ms) = b.get("Measurements").and_then(Value::as_array) {
            for m in ms {
                let mode = m.get("IterationMode").and_then(Value::as_str);
                let stage = m.get("IterationStage").and_then(Value::as_str);
                let result = matches!(
                    (mode, stage),
                    (Some("Workload"), Some("Result")) | (Some("Result"), None)
                );
                if !result {
                    continue;
                }
                let ns = m.get("Nanoseconds").and_then(Value::as_f64);
                let ops = m.get("Operations").and_then(Value::as_f64);
                let (Some(ns), Some(ops)) = (ns, ops.filter(|o| *o > 0.0)) else {
                    diags.push(
                        line,
                        format!("{full}: a measurement without Nanoseconds or Operations"),
                    );
                    continue;
                };
                n += 1;
                let launch = m.get("LaunchIndex").and_then(Value::as_u64);
                set.push(Sample::new(
                    bid,
                    opts.side,
                    metric,
                    ns / ops * 1e-9,
                    ns * 1e-9,
                    launch.and_then(|l| u32::try_from(l).ok()),
                ));
            }
        }
        if n == 0 {
            let stat = |k: &str| {
                b.pointer(&format!("/Statistics/{k}"))
                    .and_then(Value::as_f64)
            };
            match stat("Mean") {
                Some(mean) => {
                    n = 1;
                    set.push(Sample::new(
                        bid,
                        opts.side,
                        metric,
                        mean * 1e-9,
                        f64::NAN,
                        None,
                    ));
                    let (sd, count) = (stat("StandardDeviation"), stat("N"));
                    let text = |v: Option<f64>| v.map_or("?".into(), |v| format!("{v}"));
                    let item = format!(
                        "{full} (mean {mean} ns, sd {} ns, n {})",
                        text(sd),
                        text(count)
                    );
                    if summary_only.is_empty() && with_stats.is_empty() {
                        summary_line = line;
                    }
                    // With its standard deviation and n, the comparison is tested from them.
                    match (sd, count.and_then(|c| u32::try_from(c as u64).ok())) {
                        (Some(sd), Some(n)) if sd.is_finite() && c_is_whole(count) => {
                            let stats = crate::sample::SummaryStats {
                                mean: mean * 1e-9,
                                sd: sd * 1e-9,
                                n,
                            };
                            set.set_summary(bid, metric, opts.side, stats);
                            with_stats.push(item);
                        }
                        _ => summary_only.push(item),
                    }
                }
                None => diags.push(
                    line,
                    format!("{full}: neither Measurements nor Statistics.Mean"),
                ),
            }
        }
        if n > 0 {
            records += 1;
        }
    }
    let what = "summary statistics only, no workload result measurements (a brief export, or \
                measurements cut short)";
    let hint = "; export with JsonExporter.Full for the measurements";
    if !with_stats.is_empty() {
        let warning = super::summary_stats_warning(what, &with_stats, hint);
        warns.push(summary_line, warning);
    }
    if !summary_only.is_empty() {
        let warning = super::summary_only_warning(what, &summary_only, hint);
        warns.push(summary_line, warning);
    }
    crate::format::lenient_end(warnings, diags, records, "benchmarks", warns.into_vec())
}
