//! hyperfine `--export-json`: `{"results": [{"command", "times": [s…], "memory_usage_byte":
//! [bytes…]?, "exit_codes": [..]?, "parameters": {k: v}?, …}]}`.
//!
//! Each command is one benchmark: the file is the command string, the configuration is its
//! `parameters` as `key=value` words (sorted by key). Every entry of `times` is one sample of
//! the metric `wall` (seconds, lower is better), with `time_s` the same seconds and `run` its
//! index; every entry of `memory_usage_byte` one sample of `max_rss` (bytes, lower is better).
//! A run whose exit code is non-zero or `null` (killed by a signal) is left out, with one
//! warning per command counting them (hyperfine keeps such runs only with `--ignore-failure`).
//! Summary fields (mean, stddev, median, user, system) are not samples.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Reads hyperfine JSON `text` into `set` on `opts.side`.
///
/// Only successful runs are samples: a run whose exit code is non-zero, or `null` (killed by
/// a signal), is left out, and each command with such runs gets one warning that counts and
/// names them (runs counted from 1). A result that cannot be read (no `command`, no `times`)
/// or a time that is not a number is skipped and counted in one summary warning per file.
/// Summary fields (`mean`, `stddev` — possibly `null` —, `median`, `user`, `system`) are not
/// used.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error or of a missing `results`
/// array, or every problem when no result of the file could be read.
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut warns = Diagnostics::new(name);
    let (root, mut warnings) = crate::format::json_document(text, name)?;
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
    let mut records = 0u64;
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
        let Some(times) = r.get("times").and_then(Value::as_array) else {
            diags.push(line, format!("command {command:?} has no \"times\" array"));
            continue;
        };
        let bid = set.intern(command, &conf);
        // Exit codes: absent (hyperfine before 1.11) means every run counted as successful.
        let codes: Option<&Vec<Value>> = r.get("exit_codes").and_then(Value::as_array);
        let mem = r.get("memory_usage_byte").and_then(Value::as_array);
        let mut failed: Vec<(usize, Option<i64>)> = Vec::new();
        let mut good = 0u64;
        for (i, t) in times.iter().enumerate() {
            let Some(t) = t.as_f64() else {
                diags.push(
                    line,
                    format!("command {command:?}: times[{i}] is not a number ({t})"),
                );
                continue;
            };
            if let Some(c) = codes.and_then(|c| c.get(i)) {
                match c.as_i64() {
                    Some(0) => {}
                    code => {
                        failed.push((i, code));
                        continue;
                    }
                }
            }
            good += 1;
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
        if good > 0 {
            records += 1;
        }
        if !failed.is_empty() {
            warns.push(line, failed_runs(command, times.len(), &failed));
        }
    }
    if let Some(w) = diags.finish_lenient(records, "results")? {
        warnings.push(w);
    }
    warnings.extend(warns.into_vec());
    Ok(Imported {
        warnings,
        ..Imported::default()
    })
}

/// The warning for a command's unsuccessful runs: how many of `total`, grouped by exit code
/// (`None`: killed by a signal, hyperfine writes `null`), runs counted from 1.
fn failed_runs(command: &str, total: usize, failed: &[(usize, Option<i64>)]) -> String {
    let mut groups: Vec<(Option<i64>, Vec<usize>)> = Vec::new();
    for &(i, c) in failed {
        match groups.iter_mut().find(|(g, _)| *g == c) {
            Some((_, v)) => v.push(i + 1),
            None => groups.push((c, vec![i + 1])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(c, runs)| {
            let list = runs
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let s = if runs.len() == 1 { "" } else { "s" };
            match c {
                Some(c) => format!("{} exited with {c} (run{s} {list})", runs.len()),
                None => format!(
                    "{} killed by a signal, exit code null (run{s} {list})",
                    runs.len()
                ),
            }
        })
        .collect();
    format!(
        "command {command:?}: {} of {total} runs failed ({}); only the {} successful runs are \
         compared",
        failed.len(),
        parts.join(", "),
        total - failed.len()
    )
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
