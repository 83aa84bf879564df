//! benchdiff's own results file (JSON Lines, `benchdiff compare --results`), streamed from a
//! file or standard input with the one loader ([`crate::format::results::load_streamed`]), for
//! Node-file and command runs alike: every sample of every `ok` job
//! (first record per file, side and run) becomes a [`crate::sample::RATE`] sample with its
//! side, run index and time. Lines the loader could not read are returned as warnings.

use crate::error::{Diagnostic, ImportError};
use crate::format::Imported;
use crate::format::results::command::CommandSample;
use crate::sample::{Configuration, RATE, Sample, SampleSet, Side};
use std::io::BufRead;

/// Reads a results file of either kind from `input` (`name` for diagnostics) into `set`,
/// streamed, with the one loader ([`crate::format::results::load_streamed`]): each counted
/// `ok` job's samples are added as the job is read, and [`Imported::results`] keeps what the
/// failure summary needs, not the job records.
///
/// # Errors
/// [`ImportError::Invalid`] when the loader rejects it (no plan record first, a bad plan
/// record), naming the line.
pub fn read_from<R: BufRead>(
    input: R,
    name: &str,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    set.mark_rounds_recorded(); // every job carries the run (round) it ran in
    // The configuration of samples without parameters, made once.
    let mut no_params: Option<Configuration> = None;
    // Each counted `ok` job's samples go into the set as the job is read; the loader keeps
    // only what the failure summary needs.
    let mut add = |job: crate::format::results::OkJob<'_>| match job {
        crate::format::results::OkJob::Node(job) => {
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
            add_node_counters(set, job);
        }
        // Every sample of every counted `ok` job with its rate and all its metrics (`wall`,
        // `user`, `sys`, `max_rss` and the program's own).
        crate::format::results::OkJob::Command(job) => {
            if !job.warmup {
                add_command_view_samples(set, job.side, job.run, &job.samples, &mut no_params);
            }
        }
    };
    let loaded = crate::format::results::load_streamed(input, name, &mut add).map_err(|e| {
        ImportError::Invalid(
            vec![Diagnostic {
                file: name.to_owned(),
                line: e.line,
                message: e.message,
            }],
            1,
        )
    })?;
    // Samples of jobs that did not end ok are left out, with one note per affected row (the
    // same notes `benchdiff compare` prints for the run: see `UnusedSamples`).
    let warnings = loaded
        .warnings
        .iter()
        .map(|w| diagnostic(name, w))
        .chain(loaded.unused.notes().iter().map(|n| Diagnostic {
            file: name.to_owned(),
            line: 0,
            message: n.clone(),
        }))
        .collect();
    Ok(Imported {
        warnings,
        results: Some(Box::new(loaded)),
        ..Imported::default()
    })
}

/// The configuration text of the row that holds a Node-file job's counters when the job ran
/// several configurations in its one process.
pub const ALL_CONFIGURATIONS: &str = "(all configurations)";

/// Adds the counters of a counted, `ok` Node-file job to `set` (nothing when it has none).
/// A job is one process for all the configurations of its file, so its counters belong to
/// that configuration's row when it ran one, else to the row `FILE (all configurations)`.
pub fn add_node_counters(set: &mut SampleSet, job: &crate::format::results::JobRecord) {
    if job.counters.is_empty() {
        return;
    }
    let conf = match job.samples.as_slice() {
        [one] => one.to_report().configuration,
        _ => Configuration::from_text(ALL_CONFIGURATIONS.to_owned()),
    };
    let id = set.intern_configuration(&job.file, &conf);
    for m in &job.counters {
        let metric = set.intern_metric(&m.name, &m.unit, m.better);
        set.push(Sample {
            benchmark: id,
            side: job.side,
            metric,
            value: m.value,
            time_s: f64::NAN,
            run: Some(job.run),
        });
    }
}

/// Adds the samples of a counted, `ok` command job to `set`: the rate (with time) and every
/// metric.
pub fn add_command_samples(set: &mut SampleSet, side: Side, run: u32, samples: &[CommandSample]) {
    for s in samples {
        let conf = crate::format::node_ipc::configuration_from_entries(&s.params)
            .unwrap_or_else(|_| Configuration::from_text(s.configuration.clone()));
        let id = set.intern_configuration(&s.name, &conf);
        let metrics = s
            .metrics
            .iter()
            .map(|m| (&*m.name, &*m.unit, m.better, m.value));
        push_rate_and_metrics(set, id, side, run, (s.rate, s.time_s), metrics);
    }
}

/// Pushes one command sample: its rate (ops/s, left out when it is NaN and the time unknown)
/// and each other metric `(name, unit, better,
/// value)`, all with the sample's elapsed seconds (NaN when unknown) and round `run`.
fn push_rate_and_metrics<'m>(
    set: &mut SampleSet,
    id: crate::sample::BenchmarkId,
    side: Side,
    run: u32,
    (rate, time_s): (f64, Option<f64>),
    metrics: impl Iterator<Item = (&'m str, &'m str, crate::sample::Better, f64)>,
) {
    // A whole-process sample measured under valgrind has neither rate nor time (its wall
    // time was valgrind's): only its metrics are samples.
    if !(rate.is_nan() && time_s.is_none()) {
        set.push(Sample {
            benchmark: id,
            side,
            metric: RATE,
            value: rate,
            time_s: time_s.unwrap_or(f64::NAN),
            run: Some(run),
        });
    }
    let time_s = time_s.unwrap_or(f64::NAN);
    for (name, unit, better, value) in metrics {
        let metric = set.intern_metric(name, unit, better);
        set.push(Sample {
            benchmark: id,
            side,
            metric,
            value,
            time_s,
            run: Some(run),
        });
    }
}

/// [`add_command_samples`] for the samples of a job view; `no_params` caches the
/// configuration of a sample without parameters (the same for every such sample).
fn add_command_view_samples(
    set: &mut SampleSet,
    side: Side,
    run: u32,
    samples: &[crate::format::results::command::CommandSampleView<'_>],
    no_params: &mut Option<Configuration>,
) {
    for s in samples {
        let id = if s.params.is_empty() {
            let conf = no_params.get_or_insert_with(|| {
                crate::format::node_ipc::configuration_from_entries(&[]).unwrap_or_default()
            });
            set.intern_configuration(&s.name, conf)
        } else {
            let conf = crate::format::node_ipc::configuration_from_entries(&s.params)
                .unwrap_or_else(|_| Configuration::from_text(s.configuration.to_string()));
            set.intern_configuration(&s.name, &conf)
        };
        let metrics = s
            .metrics
            .iter()
            .map(|m| (&*m.name, &*m.unit, m.better, m.value));
        push_rate_and_metrics(set, id, side, run, (s.rate, s.time_s), metrics);
    }
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
