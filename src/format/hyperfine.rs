//! hyperfine `--export-json`: `{"results": [{"command", "times": [s…], "memory_usage_byte":
//! [bytes…]?, "exit_codes": [..]?, "parameters": {k: v}?, …}]}`.
//!
//! Each command is one benchmark: the file is the command string, the configuration is its
//! `parameters` as `key=value` words (sorted by key). Every entry of `times` is one sample of
//! the metric `wall` (seconds, lower is better), with `time_s` the same seconds and `run` its
//! index; every entry of `memory_usage_byte` one sample of `max_rss` (bytes, lower is better).
//! A run whose exit code is non-zero or `null` (killed by a signal) is left out, with one
//! warning per command counting them (hyperfine keeps such runs only with `--ignore-failure`).
//! `user` and `system` (the mean user and system CPU seconds of the command's runs; hyperfine
//! exports no per-run CPU times) give one sample each of the metrics `user` and `system`
//! (seconds, lower is better): `--metric user` compares them as one value per side, without a
//! test. The other summary fields (mean, stddev, median, min, max) are not samples.
//!
//! One export holding several commands (`hyperfine 'old' 'new' --export-json r.json`) is
//! compared command against command when [`ReadOptions::sides_by`] is `command` (the report
//! asks for it when the export is its only input): the first command is old, the second new,
//! and they are one benchmark named `<old> vs <new>` (per parameter combination, for
//! `--parameter-scan`/`-L` exports). `command=OLD,NEW` names the two commands (their text or
//! their 1-based positions). `command` alone on an export of more than two commands, or
//! `command=A,B,C…`, reads every further command as new too, in one benchmark named by the
//! first command, and
//! [`crate::format::Imported::side_values`] lists the commands
//! ([`crate::format::Imported::side_of_sample`] tells the samples apart): the report compares
//! each further one with the first as a column of its own.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet, Side};
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
    let results = crate::format::json_array(
        &root,
        "results",
        name,
        "no \"results\" array: not hyperfine --export-json output",
    )?;
    let wall = set.intern_metric("wall", "s", Better::Lower);
    let rss = set.intern_metric("max_rss", "bytes", Better::Lower);
    let user = set.intern_metric("user", "s", Better::Lower);
    let system = set.intern_metric("system", "s", Better::Lower);
    let sides = match &opts.sides_by {
        Some(spec) => Some(command_sides(results, spec, name)?),
        None => None,
    };
    let mut search_from = 0;
    let mut records = 0u64;
    let mut side_of_sample: Vec<u32> = Vec::new();
    for (index, r) in results.iter().enumerate() {
        let command = r.get("command").and_then(Value::as_str).unwrap_or("");
        let line = line_of_next_json_string(text, command, &mut search_from);
        if command.is_empty() {
            diags.push(line, "a result without a \"command\"");
            continue;
        }
        let conf = crate::format::params_conf(r.get("parameters"));
        let Some(times) = r.get("times").and_then(Value::as_array) else {
            diags.push(line, format!("command {command:?} has no \"times\" array"));
            continue;
        };
        let (bid, side, value) = match &sides {
            None => (set.intern(command, &conf), opts.side, None),
            Some(s) => match s.value_of(index) {
                Some(v) => {
                    let side = if v == 0 { Side::Old } else { Side::New };
                    (set.intern(&s.benchmark, &conf), side, Some(v))
                }
                None => continue,
            },
        };
        let before = set.len();
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
                side,
                metric: wall,
                value: t,
                time_s: t,
                run,
            });
            if let Some(m) = mem.and_then(|m| m.get(i)).and_then(Value::as_f64) {
                set.push(Sample {
                    benchmark: bid,
                    side,
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
        // After the runs: the first sample's metric is the report's default one (wall).
        for (metric, key) in [(user, "user"), (system, "system")] {
            if let Some(v) = r.get(key).and_then(Value::as_f64) {
                set.push(Sample {
                    benchmark: bid,
                    side,
                    metric,
                    value: v,
                    time_s: f64::NAN,
                    run: None,
                });
            }
        }

        if let Some(v) = value {
            side_of_sample.resize(side_of_sample.len() + set.len() - before, v);
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
        side_values: sides.map(|s| s.values).unwrap_or_default(),
        side_of_sample,
        ..Imported::default()
    })
}

/// Which results of a several-command export are old and new.
struct CommandSides {
    /// The benchmark they are compared as: `<old> vs <new>`, or the first command when
    /// there are more than two.
    benchmark: String,
    /// Old, new, then the further commands of an export compared as columns.
    values: Vec<String>,
    /// The index in `values` of each result's command (by result index), `None` for the
    /// commands not compared.
    sides: Vec<Option<u32>>,
}

impl CommandSides {
    fn value_of(&self, index: usize) -> Option<u32> {
        self.sides.get(index).copied().flatten()
    }
}

/// The sides of the results of one export by `spec`: `command` (first command old, every
/// other new) or `command=OLD,NEW,…` (commands named by their text or 1-based position; a
/// third and on are new as well, the columns of a report). Results that
/// differ only by parameters (`--parameter-scan`, `-L`) keep them as their configuration:
/// the commands are told apart by their text once the parameter values are taken out.
///
/// # Errors
/// [`ImportError::Invalid`] when `spec` is not `command[=OLD,NEW,…]`, when the export has
/// fewer than two commands (the message lists them), or when a named command is not in the
/// export.
fn command_sides(results: &[Value], spec: &str, name: &str) -> Result<CommandSides, ImportError> {
    let invalid = |message: String| {
        ImportError::Invalid(
            vec![crate::error::Diagnostic {
                file: name.to_owned(),
                line: 1,
                message,
            }],
            1,
        )
    };
    // The command of each result with its parameter values replaced by `{key}`.
    let templates: Vec<String> = results
        .iter()
        .map(|r| {
            let mut c = r
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            if let Some(p) = r.get("parameters").and_then(Value::as_object) {
                for (k, v) in p {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    if !v.is_empty() {
                        c = c.replace(&v, &format!("{{{k}}}"));
                    }
                }
            }
            c
        })
        .collect();
    let mut distinct: Vec<&str> = Vec::new();
    for t in &templates {
        if !distinct.contains(&t.as_str()) {
            distinct.push(t);
        }
    }
    let list = || {
        distinct
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{}: {c}", i + 1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let values: Vec<String> = match spec.split_once('=') {
        None if spec == "command" => {
            if distinct.len() < 2 {
                return Err(invalid(format!(
                    "{} command in one export ({}); nothing to compare it with: give two \
                     exports",
                    distinct.len(),
                    list()
                )));
            }
            // Old and new, then the commands after the second: the report compares each
            // with the first as a column of its own.
            distinct.iter().map(|c| (*c).to_owned()).collect()
        }
        Some(("command", names)) => {
            let pick = |s: &str| -> Option<String> {
                if distinct.contains(&s) {
                    return Some(s.to_owned());
                }
                let i: usize = s.trim().parse().ok()?;
                distinct.get(i.checked_sub(1)?).map(|c| (*c).to_owned())
            };
            let names: Vec<&str> = names.split(',').collect();
            let picked: Option<Vec<String>> = names.iter().map(|n| pick(n)).collect();
            match picked {
                Some(p) if p.len() >= 2 => p,
                _ => {
                    // The first command and the first further one not found, as the pair
                    // of a column.
                    let k = match pick(names[0]) {
                        None => 1,
                        Some(_) => names
                            .iter()
                            .skip(1)
                            .position(|n| pick(n).is_none())
                            .map_or(1, |k| k + 1),
                    };
                    let shown = if names.len() > 2 {
                        format!("command={},{}", names[0].trim(), names[k].trim())
                    } else {
                        spec.to_owned()
                    };
                    return Err(invalid(format!(
                        "--sides-by {shown}: name two of the export's commands by text or \
                         number ({})",
                        list()
                    )));
                }
            }
        }
        _ => {
            return Err(invalid(format!(
                "--sides-by {spec}: a hyperfine export takes --sides-by command or \
                     --sides-by command=OLD,NEW"
            )));
        }
    };
    let sides = templates
        .iter()
        .map(|t| {
            let i = values.iter().position(|v| v == t)?;
            u32::try_from(i).ok()
        })
        .collect();
    Ok(CommandSides {
        benchmark: match values.len() {
            2 => format!("{} vs {}", values[0], values[1]),
            _ => values[0].clone(),
        },
        values,
        sides,
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
