//! mitata JSON (`await run({ format: 'json' })`, printed on standard output): `{"layout",
//! "context", "benchmarks": [{"alias", "group", "args", "runs": [{"name", "args": {k: v},
//! "stats": {"samples": [ns…], "avg", "min", "max", …}?, "error"?}…]}…]}`.
//!
//! Each run is one benchmark: its `name`, configured by its `args` (sorted `key=value`
//! words; a benchmark without arguments has one run with `{}`). Every entry of
//! `stats.samples` (nanoseconds per iteration) is one sample of `sec/op` in seconds (lower is
//! better). mitata sorts its samples, so their order is not the order they were measured in
//! (`run` is not set). A run without `stats` (it threw: `error`) is skipped with a warning.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Reads mitata JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, a missing `benchmarks`
/// array, or every problem when no run has samples.
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
        "no \"benchmarks\" array: not mitata JSON",
    )?;
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let mut from = 0;
    let mut records = 0u64;
    for b in benches {
        let alias = b.get("alias").and_then(Value::as_str).unwrap_or("");
        for run in b
            .get("runs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let rname = run
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .unwrap_or(alias);
            let line = line_of_next_json_string(text, rname, &mut from);
            if rname.is_empty() {
                diags.push(line, "a run without a \"name\"");
                continue;
            }
            let Some(samples) = run.pointer("/stats/samples").and_then(Value::as_array) else {
                let why = run.get("error").filter(|e| !e.is_null()).map_or_else(
                    || "no stats.samples".to_owned(),
                    |e| format!("it threw: {e}"),
                );
                warns.push(line, format!("{rname}: {why}; skipped"));
                continue;
            };
            let conf = crate::format::params_conf(run.get("args"));
            let bid = set.intern(rname, &conf);
            let mut n = 0u64;
            for v in samples {
                if let Some(ns) = v.as_f64() {
                    n += 1;
                    set.push(Sample::new(
                        bid,
                        opts.side,
                        metric,
                        ns * 1e-9,
                        ns * 1e-9,
                        None,
                    ));
                } else {
                    diags.push(line, format!("{rname}: sample {v} is not a number"));
                }
            }
            if n > 0 {
                records += 1;
            }
        }
    }
    crate::format::lenient_end(warnings, diags, records, "runs", warns.into_vec())
}
