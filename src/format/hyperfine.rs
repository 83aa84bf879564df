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
//!
//! An export of one command under parameters (`-P ms 10 12 'sleep 0.0{ms}'`, `-L`, several
//! `-L`: each result a parameter combination of its own) has one command per combination,
//! named by its text as hyperfine prints it (`sleep 0.010`): each is a side, the first old,
//! as the commands of a several-command export are. A parameter's name as `sides_by`
//! (`ms`, or `ms=10,20`) takes that parameter's values as the sides instead (`ms=10` old),
//! the other parameters as the configuration: one row per command and combination of them.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, invalid, line_of_next_json_string};
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
    let (root, warnings) = crate::format::json_document(text, name)?;
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
        Some(spec) => Some(sides_of(results, spec, name)?),
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
        let Some(times) = r.get("times").and_then(Value::as_array) else {
            diags.push(line, format!("command {command:?} has no \"times\" array"));
            continue;
        };
        let (bid, side, value) = match &sides {
            None => {
                let conf = crate::format::params_conf(r.get("parameters"));
                (set.intern(command, &conf), opts.side, None)
            }
            Some(s) => match s.side_of(index) {
                Some((v, benchmark, conf)) => {
                    let side = if *v == 0 { Side::Old } else { Side::New };
                    (set.intern(benchmark, conf), side, Some(*v))
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
            set.push(Sample::new(bid, side, wall, t, t, run));
            if let Some(m) = mem.and_then(|m| m.get(i)).and_then(Value::as_f64) {
                set.push(Sample::new(bid, side, rss, m, t, run));
            }
        }
        if good > 0 {
            records += 1;
        }
        // After the runs: the first sample's metric is the report's default one (wall).
        for (metric, key) in [(user, "user"), (system, "system")] {
            if let Some(v) = r.get(key).and_then(Value::as_f64) {
                set.push(Sample::new(bid, side, metric, v, f64::NAN, None));
            }
        }

        if let Some(v) = value {
            side_of_sample.resize(side_of_sample.len() + set.len() - before, v);
        }
        if !failed.is_empty() {
            warns.push(line, failed_runs(command, times.len(), &failed));
        }
    }
    Ok(Imported {
        side_values: sides.map(|s| s.values).unwrap_or_default(),
        side_of_sample,
        ..crate::format::lenient_end(warnings, diags, records, "results", warns.into_vec())?
    })
}

/// Which results of one export are old and new, and the benchmark each is compared in.
struct CommandSides {
    /// Old, new, then the further sides of an export compared as columns.
    values: Vec<String>,
    /// Per result (by index): its index in `values` and the benchmark it is compared in (name
    /// and configuration); `None` for the results not compared.
    sides: Vec<Option<(u32, String, String)>>,
}

impl CommandSides {
    fn side_of(&self, index: usize) -> Option<&(u32, String, String)> {
        self.sides.get(index)?.as_ref()
    }
}

/// The sides of the results of one export by `spec`: `command[=OLD,NEW,…]`
/// ([`command_sides`]) or the name of a parameter, `KEY[=A,B,…]` ([`parameter_sides`]).
///
/// # Errors
/// As [`command_sides`] and [`parameter_sides`].
fn sides_of(results: &[Value], spec: &str, name: &str) -> Result<CommandSides, ImportError> {
    match spec.split_once('=').map_or(spec, |(k, _)| k) {
        "command" => command_sides(results, spec, name),
        _ => parameter_sides(results, spec, name),
    }
}

/// A parameter value as text: a JSON string's contents, any other value as JSON.
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
}

/// The `key=value` words of the parameters of result `r` but `without` (sorted by key).
fn conf_without(r: &Value, without: Option<&str>) -> String {
    let mut p = (r.get("parameters").and_then(Value::as_object))
        .cloned()
        .unwrap_or_default();
    if let Some(k) = without {
        p.remove(k);
    }
    crate::format::params_conf(Some(&Value::Object(p)))
}

/// The sides of the results of one export by `spec`: `command` (first command old, every
/// other new) or `command=OLD,NEW,…` (commands named by their text or 1-based position; a
/// third and on are new as well, the columns of a report).
///
/// An export of one command run with parameters (`--parameter-scan`, `-L`: every result a
/// parameter combination of its own) has one command per combination: each is a side,
/// named by its command text as hyperfine prints it, compared without a configuration.
/// Otherwise results that differ only by parameters keep them as their configuration: the
/// commands are told apart by their text once the parameter values are taken out.
///
/// # Errors
/// [`ImportError::Invalid`] when `spec` is not `command[=OLD,NEW,…]`, when the export has
/// fewer than two commands (the message lists them), or when a named command is not in the
/// export.
fn command_sides(results: &[Value], spec: &str, name: &str) -> Result<CommandSides, ImportError> {
    let confs: Vec<String> = (results.iter()).map(|r| conf_without(r, None)).collect();
    let scan = confs.iter().all(|c| !c.is_empty())
        && (confs.iter().enumerate()).all(|(i, c)| !confs[..i].contains(c));
    let command = |r: &Value| {
        r.get("command")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let labels: Vec<String> = if scan {
        // A parameter the command does not use gives the same text twice: the parameters
        // tell them apart.
        let commands: Vec<String> = results.iter().map(command).collect();
        (commands.iter().zip(&confs))
            .map(
                |(c, conf)| match commands.iter().filter(|x| *x == c).count() {
                    1 => c.clone(),
                    _ => format!("{c} ({conf})"),
                },
            )
            .collect()
    } else {
        // The command of each result with its parameter values replaced by `{key}`.
        (results.iter())
            .map(|r| {
                let mut c = command(r);
                if let Some(p) = r.get("parameters").and_then(Value::as_object) {
                    for (k, v) in p {
                        let v = text(v);
                        if !v.is_empty() {
                            c = c.replace(&v, &format!("{{{k}}}"));
                        }
                    }
                }
                c
            })
            .collect()
    };
    let mut distinct: Vec<&str> = Vec::new();
    for t in &labels {
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
                return Err(invalid(
                    name,
                    1,
                    format!(
                        "{} command in one export ({}); nothing to compare it with: give two \
                         exports",
                        distinct.len(),
                        list()
                    ),
                ));
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
                    return Err(invalid(
                        name,
                        1,
                        format!(
                            "--sides-by {shown}: name two of the export's commands by text or \
                             number ({})",
                            list()
                        ),
                    ));
                }
            }
        }
        _ => {
            return Err(invalid(
                name,
                1,
                format!(
                    "--sides-by {spec}: a hyperfine export takes --sides-by command, \
                     command=OLD,NEW or the name of one of its parameters"
                ),
            ));
        }
    };
    let benchmark = match values.len() {
        2 => format!("{} vs {}", values[0], values[1]),
        _ => values[0].clone(),
    };
    let sides = (labels.iter().zip(confs))
        .map(|(t, conf)| {
            let i = values.iter().position(|v| v == t)?;
            let conf = if scan { String::new() } else { conf };
            Some((u32::try_from(i).ok()?, benchmark.clone(), conf))
        })
        .collect();
    Ok(CommandSides { values, sides })
}

/// The sides of the results of one export by the values of its parameter `KEY` of `spec`
/// (`KEY`: every value in first-seen order, the first old; `KEY=A,B,…`: the values named,
/// `A` old), as `KEY=value`. The other parameters are the configuration, and a row is one
/// command at one combination of them (hyperfine runs every command once per parameter
/// combination: the i-th result of a combination is its i-th command), named `<old> vs
/// <new>` by the commands of its two sides, or by its first side's command when there are
/// more. Results without `KEY`, or with a value not named, are not compared.
///
/// # Errors
/// [`ImportError::Invalid`] when no result has the parameter `KEY` (the message lists the
/// export's parameters), when it has one value only, or when `KEY=A,B,…` names fewer than two
/// values or one the export does not have (the message lists them).
fn parameter_sides(results: &[Value], spec: &str, name: &str) -> Result<CommandSides, ImportError> {
    let (key, named) = match spec.split_once('=') {
        Some((k, v)) => (k, Some(v.split(',').map(str::trim).collect::<Vec<_>>())),
        None => (spec, None),
    };
    let value_of = |r: &Value| r.get("parameters").and_then(|p| p.get(key)).map(text);
    let mut seen: Vec<String> = Vec::new();
    for v in results.iter().filter_map(value_of) {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    let listed = |v: &[String]| v.join(", ");
    if seen.is_empty() {
        let mut keys: Vec<String> = (results.iter())
            .filter_map(|r| r.get("parameters").and_then(Value::as_object))
            .flat_map(|p| p.keys().cloned())
            .collect();
        keys.sort();
        keys.dedup();
        let keys = if keys.is_empty() {
            "none".to_owned()
        } else {
            listed(&keys)
        };
        return Err(invalid(
            name,
            1,
            format!(
                "--sides-by {spec}: {key} is not a parameter of this export (its parameters: \
                 {keys}); a hyperfine export takes --sides-by command, command=OLD,NEW or the \
                 name of one of its parameters"
            ),
        ));
    }
    let values: Vec<String> = match named {
        None if seen.len() >= 2 => seen,
        None => {
            return Err(invalid(
                name,
                1,
                format!(
                    "--sides-by {spec}: the parameter {key} has one value in this export ({}); \
                     nothing to compare it with",
                    listed(&seen)
                ),
            ));
        }
        Some(n) if n.len() >= 2 && n.iter().all(|v| seen.iter().any(|s| s == v)) => {
            n.iter().map(|v| (*v).to_owned()).collect()
        }
        Some(_) => {
            return Err(invalid(
                name,
                1,
                format!(
                    "--sides-by {spec}: name two or more values of {key} ({})",
                    listed(&seen)
                ),
            ));
        }
    };
    let full: Vec<String> = results.iter().map(|r| conf_without(r, None)).collect();
    let rows: Vec<(usize, String)> = (results.iter().enumerate())
        .map(|(i, r)| {
            let nth = full[..i].iter().filter(|c| **c == full[i]).count();
            (nth, conf_without(r, Some(key)))
        })
        .collect();
    let side: Vec<Option<u32>> = (results.iter())
        .map(|r| {
            let v = value_of(r)?;
            u32::try_from(values.iter().position(|x| *x == v)?).ok()
        })
        .collect();
    let command = |i: usize| {
        results[i]
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let of_side = |row: &(usize, String), v: u32| {
        (0..results.len()).find(|&j| rows[j] == *row && side[j] == Some(v))
    };
    let sides = (0..results.len())
        .map(|i| {
            let v = side[i]?;
            let benchmark = match (of_side(&rows[i], 0), of_side(&rows[i], 1)) {
                (Some(old), Some(new)) if values.len() == 2 => {
                    format!("{} vs {}", command(old), command(new))
                }
                (Some(old), _) => command(old).to_owned(),
                (None, _) => command(i).to_owned(),
            };
            Some((v, benchmark, rows[i].1.clone()))
        })
        .collect();
    Ok(CommandSides {
        values: values.iter().map(|v| format!("{key}={v}")).collect(),
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
