//! pytest-benchmark JSON (`--benchmark-json`): `{"machine_info", "commit_info", "benchmarks":
//! [{"name", "fullname", "group", "params", "stats": {"data": [s…], "rounds", "iterations",
//! "median", …}}], "datetime", "version"}`.
//!
//! Each benchmark is `fullname` (configuration: `params` as sorted `key=value` words); every
//! number in `stats.data` (seconds per round, as pytest-benchmark stores them when run with
//! `--benchmark-save-data`/`--benchmark-json`) is one sample of `sec/op` (lower is better),
//! `run` its index. Entries of `data` that are not numbers are skipped with a warning naming
//! their line (some published files truncate `data` with a note string), as is a `data`
//! shorter than `stats.rounds`. A benchmark without `data` has no raw samples: it is an error.

use crate::error::ImportError;
use crate::format::hyperfine::json_error;
use crate::format::{Diagnostics, Imported, ReadOptions, find_line, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Reads pytest-benchmark JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, a missing `benchmarks`
/// array, or a benchmark without a `stats.data` array.
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
        diags.push(1, "no \"benchmarks\" array: not pytest-benchmark JSON");
        diags.finish()?;
        return Ok(Imported::default());
    };
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let mut from = 0;
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
            diags.push(
                line,
                format!("{full}: no stats.data (raw rounds); save them with --benchmark-json"),
            );
            continue;
        };
        let data_line = find_line(text, "\"data\"", from);
        let bid = set.intern(full, &conf);
        let mut n = 0u64;
        for (i, v) in data.iter().enumerate() {
            match v.as_f64() {
                Some(x) => {
                    set.push(Sample {
                        benchmark: bid,
                        side: opts.side,
                        metric,
                        value: x,
                        time_s: x,
                        run: u32::try_from(i).ok(),
                    });
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
        if let Some(rounds) = b.pointer("/stats/rounds").and_then(Value::as_u64)
            && rounds > n
        {
            warns.push(
                data_line,
                format!("{full}: {n} of {rounds} rounds have raw data; only those are compared"),
            );
        }
    }
    diags.finish()?;
    Ok(Imported {
        warnings: warns.into_vec(),
        ..Imported::default()
    })
}
