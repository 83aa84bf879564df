//! pytest-benchmark JSON (`--benchmark-json`): `{"machine_info", "commit_info", "benchmarks":
//! [{"name", "fullname", "group", "params", "stats": {"data": [s…], "rounds", "iterations",
//! "median", …}}], "datetime", "version"}`.
//!
//! Each benchmark is `fullname` (configuration: `params` as sorted `key=value` words); every
//! number in `stats.data` (seconds per round, as pytest-benchmark stores them when run with
//! `--benchmark-save-data`/`--benchmark-json`) is one sample of `sec/op` (lower is better),
//! `run` its index. Entries of `data` that are not numbers are skipped with a warning naming
//! their line (some published files truncate `data` with a note string), as is a `data`
//! shorter than `stats.rounds`. A benchmark without `data` (a file saved without
//! `--benchmark-save-data`, or from an old release) has no raw samples: it gets a warning
//! naming it and the option, and the rest of the file is read. Fields that old releases leave
//! out (`ops`, `total`, `iterations`) are not used.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, find_line, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Reads pytest-benchmark JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error or a missing `benchmarks`
/// array, or every problem when no benchmark of the file could be read.
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
        "no \"benchmarks\" array: not pytest-benchmark JSON",
    )?;
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let mut from = 0;
    let mut records = 0u64;
    for b in benches {
        let full = b
            .get("fullname")
            .or_else(|| b.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let line = line_of_next_json_string(text, full, &mut from);
        if full.is_empty() {
            diags.push(line, "a benchmark without a \"name\"");
            continue;
        }
        let mut params: Vec<(String, String)> = b
            .get("params")
            .and_then(Value::as_object)
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.to_string())).collect())
            .unwrap_or_default();
        params.sort();
        let conf = params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let Some(data) = b.pointer("/stats/data").and_then(Value::as_array) else {
            // A file saved without per-round data (`--benchmark-save` without
            // `--benchmark-save-data`, or an old release): this test only is not comparable.
            let summary = match (
                b.pointer("/stats/mean").and_then(Value::as_f64),
                b.pointer("/stats/rounds").and_then(Value::as_u64),
            ) {
                (Some(mean), Some(rounds)) => {
                    format!(" (only summary statistics: mean {mean:e} s over {rounds} rounds)")
                }
                _ => String::new(),
            };
            warns.push(
                line,
                format!(
                    "{full}: no per-round data (stats.data){summary}, so it cannot be tested \
                     from this file; save the rounds with --benchmark-save-data (or \
                     --benchmark-json)"
                ),
            );
            continue;
        };
        let data_line = find_line(text, "\"data\"", from);
        let bid = set.intern(full, &conf);
        let mut n = 0u64;
        for (i, v) in data.iter().enumerate() {
            match v.as_f64() {
                Some(x) => {
                    set.push(Sample::new(
                        bid,
                        opts.side,
                        metric,
                        x,
                        x,
                        u32::try_from(i).ok(),
                    ));
                    n += 1;
                }
                None => {
                    let l = find_line(text, &v.to_string(), from);
                    warns.push(
                        l,
                        format!("{full}: data[{i}] is not a number ({v}); skipped"),
                    );
                }
            }
        }
        if n > 0 {
            records += 1;
        }
        if let Some(rounds) = b.pointer("/stats/rounds").and_then(Value::as_u64)
            && rounds > n
        {
            warns.push(
                data_line,
                format!("{full}: {n} of {rounds} rounds have raw data; only those are compared"),
            );
        }
    }
    crate::format::lenient_end(warnings, diags, records, "benchmarks", warns.into_vec())
}
