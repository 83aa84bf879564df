//! pyperf JSON (`python -m pyperf timeit … -o FILE.json`, a `pyperf.Runner` script's `-o`,
//! pyperformance; also gzip-compressed, `FILE.json.gz`): `{"version", "metadata": {…},
//! "benchmarks": [{"metadata": {"name", "unit"?, …}, "runs": [{"metadata", "warmups":
//! [[loops, value]…], "values": [value…]?}…]}…]}`.
//!
//! Each benchmark is its `name` (from its metadata, else the file's common metadata). Every
//! entry of a run's `values` is one sample (`run` = the run's index, i.e. the worker process
//! that measured it, as pyperf spreads values over processes); `warmups` are not samples, and
//! calibration runs (warmups only) give none. The `unit` metadata (benchmark's, else the
//! file's) chooses the metric: `second` → `sec/op` (seconds per loop iteration, what pyperf
//! stores), `byte` → `bytes`, `integer` → `value`; all lower is better. A single benchmark
//! written as the document itself (`{"runs": …}`) is read too.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Reads pyperf JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, a document without
/// `benchmarks` (nor `runs`), or every problem when no benchmark of the file has a value.
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let (root, warnings) = crate::format::json_document(text, name)?;
    let benches: Vec<&Value> = match root.get("benchmarks").and_then(Value::as_array) {
        Some(b) => b.iter().collect(),
        None if root.get("runs").is_some() => vec![&root],
        None => {
            let message = "no \"benchmarks\" array: not pyperf JSON";
            return Err(crate::format::invalid(name, 1, message));
        }
    };
    let common = root.get("metadata");
    let meta = |b: &Value, key: &str| -> Option<String> {
        b.pointer(&format!("/metadata/{key}"))
            .or_else(|| common.and_then(|m| m.get(key)))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut from = 0;
    let mut records = 0u64;
    for (i, b) in benches.iter().enumerate() {
        let bname = meta(b, "name").unwrap_or_else(|| format!("benchmark {}", i + 1));
        let line = line_of_next_json_string(text, &bname, &mut from);
        let unit = meta(b, "unit").unwrap_or_else(|| "second".to_owned());
        let metric = match unit.as_str() {
            "second" => set.intern_metric("sec/op", "sec/op", Better::Lower),
            "byte" => set.intern_metric("bytes", "bytes", Better::Lower),
            "integer" => set.intern_metric("value", "", Better::Lower),
            other => {
                diags.push(line, format!("{bname}: unknown pyperf unit {other:?}"));
                continue;
            }
        };
        let Some(runs) = b.get("runs").and_then(Value::as_array) else {
            diags.push(line, format!("{bname}: no \"runs\" array"));
            continue;
        };
        let bid = set.intern(&bname, "");
        let mut n = 0u64;
        let mut bad = 0u64;
        for (r, run) in runs.iter().enumerate() {
            let Some(values) = run.get("values").and_then(Value::as_array) else {
                continue; // a calibration run: warmups only
            };
            for v in values {
                let Some(x) = v.as_f64() else {
                    bad += 1;
                    continue;
                };
                n += 1;
                set.push(Sample::new(
                    bid,
                    opts.side,
                    metric,
                    x,
                    if unit == "second" { x } else { f64::NAN },
                    u32::try_from(r).ok(),
                ));
            }
        }
        if bad > 0 {
            diags.push(line, format!("{bname}: {bad} values are not numbers"));
        }
        if n == 0 {
            diags.push(
                line,
                format!("{bname}: no values (only calibration or warmup runs)"),
            );
        } else {
            records += 1;
        }
    }
    crate::format::lenient_end(warnings, diags, records, "benchmarks", Vec::new())
}
