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
use crate::format::hyperfine::json_error;
use crate::format::{
    Diagnostics, Imported, ReadOptions, line_of_next_json_string, time_unit_seconds,
};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Reads Google Benchmark JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, a missing `benchmarks`
/// array, or an iteration entry without a name, times or a known `time_unit`.
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut warns = Diagnostics::new(name);
    let root: Value = serde_json::from_str(text).map_err(|e| json_error(name, &e))?;
    let Some(benches) = root.get("benchmarks").and_then(Value::as_array) else {
        diags.push(1, "no \"benchmarks\" array: not Google Benchmark JSON");
        diags.finish()?;
        return Ok(Imported::default());
    };
    let real = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let cpu = set.intern_metric("cpu-sec/op", "cpu-sec/op", Better::Lower);
    let mut from = 0;
    for b in benches {
        let bname = b.get("name").and_then(Value::as_str).unwrap_or("");
        let line = line_of_next_json_string(text, bname, &mut from);
        if b.get("run_type").and_then(Value::as_str) == Some("aggregate") {
            continue;
        }
        if bname.is_empty() {
            diags.push(line, "a benchmark entry without a \"name\"");
            continue;
        }
        if b.get("error_occurred").and_then(Value::as_bool) == Some(true) {
            let msg = b.get("error_message").and_then(Value::as_str).unwrap_or("");
            warns.push(
                line,
                format!("{bname}: the benchmark failed ({msg}); skipped"),
            );
            continue;
        }
        let run_name = b
            .get("run_name")
            .and_then(Value::as_str)
            .map_or_else(|| strip_repeats(bname), str::to_owned);
        let unit = b.get("time_unit").and_then(Value::as_str).unwrap_or("ns");
        let Some(scale) = time_unit_seconds(unit) else {
            diags.push(line, format!("{bname}: unknown time_unit {unit:?}"));
            continue;
        };
        let (Some(rt), Some(ct)) = (
            b.get("real_time").and_then(Value::as_f64),
            b.get("cpu_time").and_then(Value::as_f64),
        ) else {
            diags.push(line, format!("{bname}: real_time or cpu_time missing"));
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
        let bid = set.intern(&run_name, "");
        let push = |set: &mut SampleSet, metric, value: f64, time_s: f64| {
            set.push(Sample {
                benchmark: bid,
                side: opts.side,
                metric,
                value,
                time_s,
                run,
            })
        };
        push(set, real, rt * scale, rt * scale * iters);
        push(set, cpu, ct * scale, f64::NAN);
        for (key, mname) in [("bytes_per_second", "B/s"), ("items_per_second", "items/s")] {
            if let Some(v) = b.get(key).and_then(Value::as_f64) {
                let m = set.intern_metric(mname, mname, Better::Higher);
                push(set, m, v, f64::NAN);
            }
        }
    }
    diags.finish()?;
    Ok(Imported {
        warnings: warns.into_vec(),
        ..Imported::default()
    })
}

fn strip_repeats(name: &str) -> String {
    name.split('/')
        .filter(|p| !p.starts_with("repeats:"))
        .collect::<Vec<_>>()
        .join("/")
}
