//! hyperfine `--export-json`: `{"results": [{"command", "times": [s…], "memory_usage_byte":
//! [bytes…]?, "exit_codes": [..]?, "parameters": {k: v}?, …}]}`.
//!
//! Each command is one benchmark: the file is the command string, the configuration is its
//! `parameters` as `key=value` words (sorted by key). Every entry of `times` is one sample of
//! the metric `wall` (seconds, lower is better), with `time_s` the same seconds and `run` its
//! index; every entry of `memory_usage_byte` one sample of `max_rss` (bytes, lower is better).
//! A run whose exit code is non-zero is skipped with a warning (hyperfine keeps it only with
//! `--ignore-failure`). Summary fields (mean, stddev, median, user, system) are not samples.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Reads hyperfine JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, of a missing `results`
/// array, or of a command without a `times` array of numbers.
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut warns = Diagnostics::new(name);
    let root: Value = serde_json::from_str(text).map_err(|e| json_error(name, &e))?;
    let Some(results) = root.get("results").and_then(Value::as_array) else {
        diags.push(
            1,
            "no \"results\" array: not hyperfine --export-json output",
        );
        diags.finish()?;
        return Ok(Imported::default());
    };
    let wall = set.intern_metric("wall", "s", Better::Lower);
    let rss = set.intern_metric("max_rss", "bytes", Better::Lower);
    let mut search_from = 0;
    for r in results {
        let command = r.get("command").and_then(Value::as_str).unwrap_or("");
        let line = line_of_next_json_string(text, command, &mut search_from);
        if command.is_empty() {
            diags.push(line, "a result without a \"command\"");
            continue;
        }
        let mut params: Vec<(String, String)> = r
            .get("parameters")
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| {
                        let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                        (k.clone(), v)
                    })
                    .collect()
            })
            .unwrap_or_default();
        params.sort();
        let conf = params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let bid = set.intern(command, &conf);
        let Some(times) = r.get("times").and_then(Value::as_array) else {
            diags.push(line, format!("command {command:?} has no \"times\" array"));
            continue;
        };
        let codes: Vec<Option<i64>> = r
            .get("exit_codes")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(Value::as_i64).collect())
            .unwrap_or_default();
        let mem = r.get("memory_usage_byte").and_then(Value::as_array);
        for (i, t) in times.iter().enumerate() {
            let Some(t) = t.as_f64() else {
                diags.push(
                    line,
                    format!("command {command:?}: times[{i}] is not a number"),
                );
                continue;
            };
            if let Some(Some(c)) = codes.get(i)
                && *c != 0
            {
                warns.push(
                    line,
                    format!("command {command:?}: run {i} exited with {c}; skipped"),
                );
                continue;
            }
            let run = u32::try_from(i).ok();
            set.push(Sample {
                benchmark: bid,
                side: opts.side,
                metric: wall,
                value: t,
                time_s: t,
                run,
            });
            if let Some(m) = mem.and_then(|m| m.get(i)).and_then(Value::as_f64) {
                set.push(Sample {
                    benchmark: bid,
                    side: opts.side,
                    metric: rss,
                    value: m,
                    time_s: t,
                    run,
                });
            }
        }
    }
    diags.finish()?;
    Ok(Imported {
        warnings: warns.into_vec(),
        ..Imported::default()
    })
}

/// A JSON syntax error as a positioned import error.
pub fn json_error(name: &str, e: &serde_json::Error) -> ImportError {
    ImportError::Invalid(
        vec![crate::error::Diagnostic {
            file: name.to_owned(),
            line: e.line() as u64,
            message: format!("not valid JSON: {e}"),
        }],
        1,
    )
}
