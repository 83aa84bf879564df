//! benchdiff's own results file (JSON Lines, `benchdiff compare --results`), streamed from a
//! file or standard input with the one loader ([`crate::format::results::load_streamed`]), for
//! Node-file and command runs alike: every sample of every `ok` job
//! (first record per file, side and run) becomes a [`crate::sample::RATE`] sample with its
//! side, run index and time, plus the metrics its line reported. A command job's own
//! measurements are one sample per job of each ([`add_command_job`]); a command run timed as
//! whole processes asks reports for its `wall` ([`crate::sample::SampleSet::ask_default`]).
//! Lines the loader could not read are returned as warnings.

use crate::error::{Diagnostic, ImportError};
use crate::format::Imported;
use crate::format::result_lines::ReportedMetric;
use crate::format::results::command::{
    CommandJobRecord, CommandJobView, CommandSample, CommandSampleView, MetricView,
    job_metrics_of_old,
};
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
                set.push(Sample::new(
                    bid,
                    job.side,
                    RATE,
                    r.rate,
                    r.time_s,
                    Some(job.run),
                ));
            }
            add_node_counters(set, job);
        }
        // Every sample of every counted `ok` job with its rate and the metrics its line
        // reported, and the job's own measurements (`wall`, `user`, `sys`, `max_rss`,
        // counters) once per job.
        crate::format::results::OkJob::Command(job) => {
            if !job.warmup {
                add_command_view_job(set, job, &mut no_params);
            }
        }
    };
    let loaded = crate::format::results::load_streamed(input, name, &mut add)
        .map_err(|e| crate::format::invalid(name, e.line, e.message))?;
    // Samples of jobs that did not end ok are left out, with one note per affected row (the
    // same notes `benchdiff compare` prints for the run: see `UnusedSamples`).
    let warnings = loaded
        .warnings
        .iter()
        .map(|w| diagnostic(name, w))
        .chain(
            loaded
                .unused
                .notes()
                .iter()
                .map(|n| crate::error::Diagnostic::new(name, 0, n.clone())),
        )
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
        set.push(Sample::new(
            id,
            job.side,
            metric,
            m.value,
            f64::NAN,
            Some(job.run),
        ));
    }
}

/// One metric as the loader pushes it: `(name, unit, better, value)`.
type MetricRow<'m> = (&'m str, &'m str, crate::sample::Better, f64);

/// A recorded metric, owned or borrowed, read as a [`MetricRow`].
trait AsMetricRow {
    fn row(&self) -> MetricRow<'_>;
}

impl AsMetricRow for ReportedMetric {
    fn row(&self) -> MetricRow<'_> {
        (&self.name, &self.unit, self.better, self.value)
    }
}

impl AsMetricRow for MetricView<'_> {
    fn row(&self) -> MetricRow<'_> {
        (&self.name, &self.unit, self.better, self.value)
    }
}

/// A job's own measurements: those its record holds, else (a file written before they were
/// recorded once per job) the leading ones of its first sample, else none.
fn job_rows<'m, M: AsMetricRow>(
    recorded: Option<&'m [M]>,
    first_sample: Option<&'m [M]>,
) -> Vec<MetricRow<'m>> {
    recorded
        .or(first_sample)
        .unwrap_or(&[])
        .iter()
        .map(AsMetricRow::row)
        .collect()
}

/// Adds a counted, `ok` command job to `set`: each sample's rate (with time) and the metrics
/// its line reported, then the job's own measurements ([`CommandJobRecord::metrics`]) as one
/// sample per job of each, in the row of its samples when they all have one, else in the row
/// of the job itself (its benchmark and combination). A record of a file written before those
/// were recorded once per job has them first in every sample's metrics: they are taken once,
/// from its first sample, and left out of every sample's own metrics.
pub fn add_command_job(set: &mut SampleSet, record: &CommandJobRecord) {
    let old_prefix = |s: &CommandSample| -> usize {
        if record.metrics.is_some() {
            0
        } else {
            job_metrics_of_old(s.metrics.iter().map(|m| m.name.as_str()))
        }
    };
    let mut row = JobRow::default();
    for s in &record.samples {
        let conf = crate::format::node_ipc::configuration_from_entries(&s.params)
            .unwrap_or_else(|_| Configuration::from_text(s.configuration.clone()));
        let id = set.intern_configuration(&s.name, &conf);
        row.see(id);
        let own = s.metrics[old_prefix(s)..].iter().map(AsMetricRow::row);
        push_rate_and_metrics(set, id, record.side, record.run, (s.rate, s.time_s), own);
    }
    let first = record.samples.first().map(|f| &f.metrics[..old_prefix(f)]);
    let job = job_rows(record.metrics.as_deref(), first);
    let place = (&*record.benchmark, &record.combination[..]);
    push_job_metrics(set, row, place, (record.side, record.run), &job);
    let whole = record.samples.iter().all(|s| s.source == WHOLE_PROCESS);
    ask_default(set, whole);
}

/// The `source` of a sample of a job timed as a whole process (no result lines).
pub const WHOLE_PROCESS: &str = "whole-process";

/// Asks reports to compare a job's `wall` (s, lower is better) by default when it was timed
/// as a whole process (`whole`: its one sample is not a line's), else the usual choice (the
/// rate): a command's time is what it is measured by, as hyperfine reports it; a line's
/// figures are the program's ([`SampleSet::ask_default`]).
fn ask_default(set: &mut SampleSet, whole: bool) {
    let wall = whole.then(|| set.intern_metric("wall", "s", crate::sample::Better::Lower));
    set.ask_default(wall);
}

/// The row a job's own measurements go to, found while its samples are added.
#[derive(Default)]
struct JobRow {
    /// The row of every sample so far, `None` before the first.
    one: Option<crate::sample::BenchmarkId>,
    /// True when two samples had different rows.
    mixed: bool,
}

impl JobRow {
    fn see(&mut self, id: crate::sample::BenchmarkId) {
        match self.one {
            None => self.one = Some(id),
            Some(o) if o != id => self.mixed = true,
            Some(_) => {}
        }
    }
}

/// Pushes a job's own measurements `metrics` (one sample each, round `run`, elapsed time the
/// job's `wall` when it has one) to its row: the row of its samples when they all have one
/// (a job timed as a whole process; a program that prints one kind of line), else the row of
/// the job itself — benchmark `benchmark` with the configuration of its `combination`, the row
/// of a whole-process sample of the same job.
fn push_job_metrics(
    set: &mut SampleSet,
    row: JobRow,
    (benchmark, combination): (&str, &[(String, String)]),
    (side, run): (Side, u32),
    metrics: &[MetricRow<'_>],
) {
    if metrics.is_empty() {
        return;
    }
    let id = match row.one {
        Some(id) if !row.mixed => id,
        _ => {
            let conf = crate::format::results::plan::configuration(&combination.to_vec(), &[]);
            set.intern_configuration(benchmark, &conf)
        }
    };
    let time_s = metrics
        .iter()
        .find(|m| m.0 == "wall" && m.1 == "s")
        .map_or(f64::NAN, |m| m.3);
    for &(name, unit, better, value) in metrics {
        let metric = set.intern_metric(name, unit, better);
        set.push(Sample::new(id, side, metric, value, time_s, Some(run)));
    }
}

/// Pushes one command sample: its rate (ops/s, left out when it is NaN and the time unknown)
/// and each metric its line reported `(name, unit, better, value)`, all with the sample's
/// elapsed seconds (NaN when unknown) and round `run`.
fn push_rate_and_metrics<'m>(
    set: &mut SampleSet,
    id: crate::sample::BenchmarkId,
    side: Side,
    run: u32,
    (rate, time_s): (f64, Option<f64>),
    metrics: impl Iterator<Item = MetricRow<'m>>,
) {
    // A whole-process sample measured under valgrind has neither rate nor time (its wall
    // time was valgrind's): only its metrics are samples.
    if !(rate.is_nan() && time_s.is_none()) {
        set.push(Sample::new(
            id,
            side,
            RATE,
            rate,
            time_s.unwrap_or(f64::NAN),
            Some(run),
        ));
    }
    let time_s = time_s.unwrap_or(f64::NAN);
    for (name, unit, better, value) in metrics {
        let metric = set.intern_metric(name, unit, better);
        set.push(Sample::new(id, side, metric, value, time_s, Some(run)));
    }
}

/// [`add_command_job`] for a job view; `no_params` caches the configuration of a sample
/// without parameters (the same for every such sample).
fn add_command_view_job(
    set: &mut SampleSet,
    job: &CommandJobView<'_>,
    no_params: &mut Option<Configuration>,
) {
    let old_prefix = |s: &CommandSampleView<'_>| -> usize {
        if job.metrics.is_some() {
            0
        } else {
            job_metrics_of_old(s.metrics.iter().map(|m| &*m.name))
        }
    };
    let mut row = JobRow::default();
    for s in job.samples.iter() {
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
        row.see(id);
        let own = s.metrics[old_prefix(s)..].iter().map(AsMetricRow::row);
        push_rate_and_metrics(set, id, job.side, job.run, (s.rate, s.time_s), own);
    }
    let first = job.samples.first().map(|f| &f.metrics[..old_prefix(f)]);
    let metrics = job_rows(job.metrics.as_deref(), first);
    let place = (&*job.benchmark, &job.combination[..]);
    push_job_metrics(set, row, place, (job.side, job.run), &metrics);
    let whole = job.samples.iter().all(|s| s.source == WHOLE_PROCESS);
    ask_default(set, whole);
}

/// A loader message as a diagnostic: a leading `line N: ` becomes the diagnostic's line (0
/// when the message names none).
fn diagnostic(name: &str, m: &str) -> Diagnostic {
    let parsed = m.strip_prefix("line ").and_then(|rest| {
        let (n, msg) = rest.split_once(": ")?;
        Some((n.parse::<u64>().ok()?, msg))
    });
    let (line, message) = parsed.unwrap_or((0, m));
    crate::error::Diagnostic::new(name, line, message)
}
