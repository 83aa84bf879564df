//! benchdiff's own results file (JSON Lines, `benchdiff compare --results`), streamed from a
//! file or standard input with the runner's loader ([`crate::format::results::load`]): every sample of every `ok` job
//! (first record per file, side and run) becomes a [`crate::sample::RATE`] sample with its
//! side, run index and time. Lines the loader could not read are returned as warnings.

use crate::error::{Diagnostic, ImportError};
use crate::format::Imported;
use crate::sample::{RATE, Sample, SampleSet};
use std::io::BufRead;

/// Reads a results file from `input` (`name` for diagnostics) into `set`, streamed;
/// `command` says whether it is a command-benchmark run's file (its first record is
/// `command-run`, see [`crate::run::commands::is_command_results`]).
///
/// # Errors
/// [`ImportError::Invalid`] when the loader rejects it (no `run` record first, a bad `run`
/// record), naming the line.
pub fn read_from<R: BufRead>(
    input: R,
    name: &str,
    command: bool,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    set.mark_rounds_recorded(); // every job carries the run (round) it ran in
    if command {
        return read_command_run(input, name, set);
    }
    let loaded = crate::format::results::load_from(input, name).map_err(|e| {
        // The loader's message names the file itself ("results file: NAME: …"); the
        // diagnostic already does.
        let full = e.to_string();
        let prefix = format!("results file: {name}: ");
        let msg = full.strip_prefix(&prefix).unwrap_or(&full);
        ImportError::Invalid(vec![diagnostic(name, msg)], 1)
    })?;
    for job in &loaded.done {
        for s in &job.samples {
            let r = s.to_report();
            let bid = set.intern_configuration(&job.file, &r.configuration);
            set.push(Sample {
                benchmark: bid,
                side: job.side,
                metric: RATE,
                value: r.rate,
                time_s: r.time_s,
                run: Some(job.run),
            });
        }
    }
    let warnings = loaded
        .warnings
        .iter()
        .map(|w| diagnostic(name, w))
        .collect();
    Ok(Imported {
        warnings,
        ..Imported::default()
    })
}

/// A results file of a command-benchmark run (`command-run` first, then `command-job`
/// records): every sample of every counted `ok` job (the first record per schedule position)
/// with its rate and all its metrics (`wall`, `user`, `sys`, `max_rss` and the program's own).
fn read_command_run<R: BufRead>(
    input: R,
    name: &str,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let loaded = crate::run::commands::load_results_from(input).map_err(|(line, message)| {
        ImportError::Invalid(
            vec![Diagnostic {
                file: name.to_owned(),
                line,
                message,
            }],
            1,
        )
    })?;
    for job in loaded.done.iter().filter(|j| !j.warmup) {
        crate::run::commands::add_to_set(set, job.side(), job.run, &job.samples);
    }
    let warnings = loaded
        .warnings
        .iter()
        .map(|w| diagnostic(name, w))
        .collect();
    Ok(Imported {
        warnings,
        ..Imported::default()
    })
}

/// A loader message as a diagnostic: a leading `line N: ` becomes the diagnostic's line (0
/// when the message names none).
fn diagnostic(name: &str, m: &str) -> Diagnostic {
    let parsed = m.strip_prefix("line ").and_then(|rest| {
        let (n, msg) = rest.split_once(": ")?;
        Some((n.parse::<u64>().ok()?, msg))
    });
    let (line, message) = parsed.unwrap_or((0, m));
    Diagnostic {
        file: name.to_owned(),
        line,
        message: message.to_owned(),
    }
}
