//! tinybench results as JSON and `vitest bench --outputJson` (vitest runs its benchmarks on
//! tinybench).
//!
//! - tinybench has no file format of its own; its tasks are written with
//!   `JSON.stringify(bench.tasks.map(({ name, result }) => ({ name, result })))`: an array of
//!   `{"name", "result": {"latency": {"samples": [ms…], "mean", "sd", "samplesCount", …},
//!   …}}` (tinybench 3 and later; `retainSamples: true` keeps the samples), or
//!   `{"name", "result": {"samples": [ms…], "mean", "sd", …}}` (tinybench 2).
//! - vitest: `{"files": [{"filepath", "groups": [{"fullName", "benchmarks": [{"name",
//!   "samples": [ms…], "mean", "sd", "sampleCount", …}]}]}]}`; the benchmark is named
//!   `<group fullName> > <name>`.
//!
//! Every sample (milliseconds per call) is one sample of `sec/op` in seconds (lower is
//! better). tinybench keeps its samples sorted, so their order is not the order they were
//! measured in (`run` is not set). A task that failed (`result.error`) is skipped with a
//! warning. Without samples (tinybench without `retainSamples`, vitest, which writes
//! `"samples": []`) only summary statistics remain: the task gives one sample, its mean, with
//! a warning naming the mean, standard deviation and n (no samples are invented from them),
//! and it is compared as one value per side, without a test.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// One task found in the document: its name and the object holding `samples`/`mean`/`sd`.
struct Task<'a> {
    name: String,
    stats: Option<&'a Value>,
    error: Option<String>,
}

/// The tasks of a tinybench array or a vitest report.
fn tasks(root: &Value) -> Option<Vec<Task<'_>>> {
    if let Some(files) = root.get("files").and_then(Value::as_array) {
        let mut out = Vec::new();
        for f in files {
            for g in f
                .get("groups")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let group = g.get("fullName").and_then(Value::as_str).unwrap_or("");
                for b in g
                    .get("benchmarks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let n = b.get("name").and_then(Value::as_str).unwrap_or("");
                    let name = if group.is_empty() {
                        n.to_owned()
                    } else {
                        format!("{group} > {n}")
                    };
                    out.push(Task {
                        name,
                        stats: Some(b),
                        error: None,
                    });
                }
            }
        }
        return Some(out);
    }
    let list = root.as_array()?;
    Some(
        list.iter()
            .map(|t| {
                let result = t.get("result");
                let stats = result.and_then(|r| r.get("latency").or(Some(r)));
                let error = result
                    .and_then(|r| r.get("error"))
                    .filter(|e| !e.is_null())
                    .map(|e| {
                        e.get("message")
                            .and_then(Value::as_str)
                            .map_or_else(|| e.to_string(), str::to_owned)
                    });
                Task {
                    name: t
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    stats,
                    error,
                }
            })
            .collect(),
    )
}

/// Reads tinybench or vitest JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, a document that is
/// neither a task array nor a vitest report, or every problem when no task has a sample or
/// a mean.
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut warns = Diagnostics::new(name);
    let (root, warnings) = crate::format::json_document(text, name)?;
    let Some(tasks) = tasks(&root) else {
        let message = "neither an array of tinybench tasks nor a vitest --outputJson report";
        return Err(crate::format::invalid(name, 1, message));
    };
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let mut from = 0;
    let mut records = 0u64;
    let mut summary_only: Vec<String> = Vec::new();
    let mut summary_line = 0;
    for t in tasks {
        let line = line_of_next_json_string(text, &t.name, &mut from);
        if t.name.is_empty() {
            diags.push(line, "a task without a \"name\"");
            continue;
        }
        if let Some(e) = t.error {
            warns.push(line, format!("{}: the task failed ({e}); skipped", t.name));
            continue;
        }
        let stats = t.stats;
        let num = |k: &str| stats.and_then(|s| s.get(k)).and_then(Value::as_f64);
        let samples: Vec<f64> = stats
            .and_then(|s| s.get("samples"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        let bid = set.intern(&t.name, "");
        if !samples.is_empty() {
            records += 1;
            for ms in samples {
                set.push(Sample::new(
                    bid,
                    opts.side,
                    metric,
                    ms * 1e-3,
                    ms * 1e-3,
                    None,
                ));
            }
            continue;
        }
        let Some(mean) = num("mean") else {
            diags.push(line, format!("{}: neither samples nor a mean", t.name));
            continue;
        };
        records += 1;
        set.push(Sample::new(
            bid,
            opts.side,
            metric,
            mean * 1e-3,
            f64::NAN,
            None,
        ));
        let sd = num("sd").map_or("?".into(), |v| format!("{v}"));
        let n = num("sampleCount")
            .or_else(|| num("samplesCount"))
            .map_or("?".into(), |v| format!("{v}"));
        if summary_only.is_empty() {
            summary_line = line;
        }
        summary_only.push(format!("{} (mean {mean} ms, sd {sd} ms, n {n})", t.name));
    }
    if !summary_only.is_empty() {
        warns.push(
            summary_line,
            super::summary_only_warning(
                "summary statistics only, no samples",
                &summary_only,
                "; keep the samples (tinybench: retainSamples: true)",
            ),
        );
    }
    crate::format::lenient_end(warnings, diags, records, "tasks", warns.into_vec())
}
