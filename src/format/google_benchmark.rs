//! Google Benchmark JSON (`--benchmark_format=json` / `--benchmark_out`):
//! `{"context": {…}, "benchmarks": [{"name", "run_name", "run_type", "repetitions",
//! "repetition_index", "iterations", "real_time", "cpu_time", "time_unit", …}]}`.
//!
//! Every `run_type: "iteration"` entry (each repetition) is one sample; `aggregate` entries
//! (mean, median, stddev, cv, BigO, RMS) are summaries and are skipped; entries with
//! `error_occurred: true` are skipped with a warning. The benchmark is `run_name` (or `name`
//! without a `/repeats:` part); metrics: `sec/op` from `real_time` and `cpu-sec/op` from
//! `cpu_time` (both converted from `time_unit` — ns, us, ms, s — to seconds; lower is better),
//! plus `bytes_per_second` as `B/s` and `items_per_second` as `items/s` (higher is better)
//! when present. `run` is `repetition_index`.

use crate::error::ImportError;
use crate::format::{
    Diagnostics, Imported, ReadOptions, line_of_next_json_string, time_unit_seconds,
};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// The configuration text that marks a benchmark's samples as its mean aggregate (a file
/// with aggregates only): shown, never tested against repetitions.
pub const AGGREGATE_MEAN: &str = "aggregate=mean";

/// Reads Google Benchmark JSON `text` into `set` on `opts.side`.
///
/// - `run_type: "iteration"` entries (each repetition) are the samples.
/// - Aggregate entries (`run_type: "aggregate"`, or, in files from versions without
///   `run_type`, names ending in `_mean`, `_median`, `_stddev`, `_cv`, `_BigO`, `_RMS`) are
///   not samples. A benchmark with aggregates but no repetition in the file (written with
///   `--benchmark_report_aggregates_only`) gets its `mean` aggregate (else its `median`) as
///   one sample of benchmark (`run_name`, [`AGGREGATE_MEAN`] or `aggregate=median`), so it is
///   shown, marked, with n = 1 and no test; a warning says so.
/// - Skipped or failed entries (`error_occurred: true`, `skipped: true`, or times of 0 with a
///   `skip_message`/`error_message`) are not samples; each gets a warning with its message.
/// - Bare `NaN`/`Infinity` tokens are read as `null` (see [`crate::format::json_document`]); an
///   entry whose `real_time` or `cpu_time` is then missing is skipped and counted in the
///   file's summary warning, like any other entry that cannot be read.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error or a missing `benchmarks`
/// array, or every problem when no entry of the file could be read.
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
        "benchmarks",
        name,
        "no \"benchmarks\" array: not Google Benchmark JSON",
    )?;
    let real = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let cpu = set.intern_metric("cpu-sec/op", "cpu-sec/op", Better::Lower);
    let mut from = 0;
    let mut records = 0u64;
    // Per run name: whether it had a repetition, its aggregates (name, line, entry).
    let mut with_reps: std::collections::HashSet<String> = Default::default();
    let mut aggregates: Vec<(String, String, u64, &Value)> = Vec::new();
    for b in benches {
        let bname = b.get("name").and_then(Value::as_str).unwrap_or("");
        let line = line_of_next_json_string(text, bname, &mut from);
        if bname.is_empty() {
            diags.push(line, "a benchmark entry without a \"name\"");
            continue;
        }
        let run_name = b
            .get("run_name")
            .and_then(Value::as_str)
            .map_or_else(|| strip_repeats(bname), str::to_owned);
        if let Some(agg) = aggregate_name(b, bname) {
            let base = b.get("run_name").and_then(Value::as_str).map_or_else(
                || strip_repeats(bname.strip_suffix(&format!("_{agg}")).unwrap_or(bname)),
                str::to_owned,
            );
            aggregates.push((base, agg, line, b));
            continue;
        }
        let rt = b.get("real_time").and_then(Value::as_f64);
        let ct = b.get("cpu_time").and_then(Value::as_f64);
        let message = ["skip_message", "error_message"]
            .iter()
            .find_map(|k| b.get(*k).and_then(Value::as_str))
            .unwrap_or("");
        let flagged = b.get("error_occurred").and_then(Value::as_bool) == Some(true)
            || b.get("skipped").and_then(Value::as_bool) == Some(true)
            || b.get("skipped")
                .and_then(Value::as_str)
                .is_some_and(|s| s != "NotSkipped");
        let zero_with_message =
            !message.is_empty() && rt == Some(0.0) && ct.is_none_or(|c| c == 0.0);
        if flagged || zero_with_message {
            let why = if message.is_empty() {
                String::new()
            } else {
                format!(": {message}")
            };
            warns.push(
                line,
                format!(
                    "{bname}: skipped by the benchmark{why}; not a sample (no change, no test)"
                ),
            );
            continue;
        }
        let unit = b.get("time_unit").and_then(Value::as_str).unwrap_or("ns");
        let Some(scale) = time_unit_seconds(unit) else {
            diags.push(line, format!("{bname}: unknown time_unit {unit:?}"));
            continue;
        };
        let (Some(rt), Some(ct)) = (rt, ct) else {
            diags.push(
                line,
                format!("{bname}: real_time or cpu_time missing (or not a number)"),
            );
            continue;
        };
        let iters = b
            .get("iterations")
            .and_then(Value::as_f64)
            .unwrap_or(f64::NAN);
        let run = b
            .get("repetition_index")
            .and_then(Value::as_u64)
            .and_then(|r| u32::try_from(r).ok());
        records += 1;
        with_reps.insert(run_name.clone());
        let bid = set.intern(&run_name, "");
        push_entry(
            set,
            b,
            bid,
            opts,
            real,
            cpu,
            (rt * scale, ct * scale),
            iters,
            run,
        );
    }
    // Benchmarks with aggregates only: their mean (else median) aggregate, marked.
    let mut shown: Vec<String> = Vec::new();
    for (base, _, line, _) in &aggregates {
        if with_reps.contains(base) || shown.contains(base) {
            continue;
        }
        let pick = aggregates
            .iter()
            .filter(|(b2, ..)| b2 == base)
            .find(|(_, a, ..)| a == "mean")
            .or_else(|| {
                aggregates
                    .iter()
                    .filter(|(b2, ..)| b2 == base)
                    .find(|(_, a, ..)| a == "median")
            });
        let names: Vec<&str> = aggregates
            .iter()
            .filter(|(b2, ..)| b2 == base)
            .map(|(_, a, ..)| a.as_str())
            .collect();
        shown.push(base.clone());
        let Some((_, which, _, e)) = pick else {
            warns.push(
                *line,
                format!(
                    "{base}: only aggregates ({}) and neither a mean nor a median; not shown",
                    names.join(", ")
                ),
            );
            continue;
        };
        let unit = e.get("time_unit").and_then(Value::as_str).unwrap_or("ns");
        let times = (
            e.get("real_time").and_then(Value::as_f64),
            e.get("cpu_time").and_then(Value::as_f64),
            time_unit_seconds(unit),
        );
        let (Some(rt), Some(ct), Some(scale)) = times else {
            diags.push(
                *line,
                format!("{base}_{which}: times or time_unit unreadable"),
            );
            continue;
        };
        records += 1;
        let bid = set.intern(base, &format!("aggregate={which}"));
        push_entry(
            set,
            e,
            bid,
            opts,
            real,
            cpu,
            (rt * scale, ct * scale),
            f64::NAN,
            None,
        );
        warns.push(
            *line,
            format!(
                "{base}: aggregates only ({}; no repetitions, as written with \
                 --benchmark_report_aggregates_only): its {which} aggregate is shown as one \
                 sample, marked `aggregate={which}`, with no test",
                names.join(", ")
            ),
        );
    }
    crate::format::lenient_end(
        warnings,
        diags,
        records,
        "benchmark entries",
        warns.into_vec(),
    )
}

/// Pushes one entry's samples: `sec/op` and `cpu-sec/op` (`times`, seconds), and the
/// `bytes_per_second`/`items_per_second` counters when present.
#[allow(clippy::too_many_arguments)]
fn push_entry(
    set: &mut SampleSet,
    b: &Value,
    bid: crate::sample::BenchmarkId,
    opts: &ReadOptions,
    real: crate::sample::MetricId,
    cpu: crate::sample::MetricId,
    times: (f64, f64),
    iters: f64,
    run: Option<u32>,
) {
    let push = |set: &mut SampleSet, metric, value: f64, time_s: f64| {
        set.push(Sample::new(bid, opts.side, metric, value, time_s, run))
    };
    push(set, real, times.0, times.0 * iters);
    push(set, cpu, times.1, f64::NAN);
    for (key, mname) in [("bytes_per_second", "B/s"), ("items_per_second", "items/s")] {
        if let Some(v) = b.get(key).and_then(Value::as_f64) {
            let m = set.intern_metric(mname, mname, Better::Higher);
            push(set, m, v, f64::NAN);
        }
    }
}

/// The aggregates Google Benchmark writes after a benchmark's repetitions (`BM_x_mean`, …).
const KNOWN_AGGREGATES: [&str; 6] = ["mean", "median", "stddev", "cv", "BigO", "RMS"];

/// The aggregate an entry is (`mean`, `median`, `stddev`, `cv`, `BigO`, `RMS`, or any
/// `aggregate_name`), or `None` for a repetition. Without `run_type` (older versions) the
/// name's suffix decides.
fn aggregate_name(b: &Value, bname: &str) -> Option<String> {
    match b.get("run_type").and_then(Value::as_str) {
        // Without `aggregate_name`, the name's last `_` part is the aggregate only when it is
        // one Google Benchmark writes (`BM_One` is a benchmark named so, not `BM`'s `One`).
        Some("aggregate") => Some(b.get("aggregate_name").and_then(Value::as_str).map_or_else(
            || {
                bname
                    .rsplit_once('_')
                    .map(|(_, s)| s)
                    .filter(|s| KNOWN_AGGREGATES.contains(s))
                    .unwrap_or("aggregate")
                    .to_owned()
            },
            str::to_owned,
        )),
        Some(_) => None,
        None => KNOWN_AGGREGATES
            .iter()
            .find(|s| bname.ends_with(&format!("_{s}")))
            .map(|s| (*s).to_owned()),
    }
}

fn strip_repeats(name: &str) -> String {
    name.split('/')
        .filter(|p| !p.starts_with("repeats:"))
        .collect::<Vec<_>>()
        .join("/")
}
