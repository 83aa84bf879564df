//! What the runs of `compare`, `calibrate`, `run` and `sweep` share, Node files and command
//! benchmarks alike: how every job runs ([`JobOptions`]), which Node files run
//! ([`NodeFiles`]), where a run writes what a person watches ([`Streams`]), and the limits of
//! a plan.

use super::RunnerError;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The most jobs one run may schedule (a usage error beyond).
pub const MAX_JOBS: usize = 10_000_000;

/// Default counted runs of `compare`, per binary and file or configuration.
pub const DEFAULT_RUNS: u32 = 30;

/// The longest `--timeout` (and suite `timeout`) accepted: one year, in seconds.
pub const MAX_TIMEOUT_S: f64 = super::plan::suite::MAX_TIMEOUT_S;

/// Parses a `--timeout` value: seconds, finite, above 0 and at most [`MAX_TIMEOUT_S`].
///
/// # Errors
/// A message naming the value.
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= MAX_TIMEOUT_S => Ok(v),
        Ok(v) if v.is_finite() && v > MAX_TIMEOUT_S => Err(format!(
            "'{s}' seconds is more than the longest timeout, one year ({MAX_TIMEOUT_S} s)"
        )),
        _ => Err(format!("'{s}' is not a positive number of seconds")),
    }
}

/// A checked timeout as a [`Duration`] (`what` names its origin in the error).
///
/// # Errors
/// Not a number of seconds above 0 and at most one year.
pub fn timeout_duration(what: &str, secs: f64) -> Result<Duration, String> {
    parse_seconds(&secs.to_string())
        .ok()
        .and_then(|v| Duration::try_from_secs_f64(v).ok())
        .ok_or_else(|| {
            format!("{what} {secs}: not a number of seconds above 0 and at most one year")
        })
}

/// Where a run writes: the CSV may go to `stdout`; machine lines, notes and failed jobs to
/// `log` (stderr).
pub struct Streams<'a> {
    /// Standard output (the CSV when it is not a terminal).
    pub stdout: &'a mut dyn Write,
    /// Standard error.
    pub log: &'a mut dyn Write,
    /// Standard output is a terminal: no CSV there, and the report follows.
    pub stdout_is_terminal: bool,
    /// Standard error is a terminal: a progress bar is drawn.
    pub stderr_is_terminal: bool,
}

/// The progress bar on stderr of a run of `jobs` jobs: elapsed time, the bar, jobs done and
/// the ETA, then its message.
pub fn job_bar(jobs: usize) -> indicatif::ProgressBar {
    let stderr = indicatif::ProgressDrawTarget::stderr();
    let bar = indicatif::ProgressBar::with_draw_target(Some(jobs as u64), stderr);
    let template = "[{elapsed_precise}] {bar:24} {pos}/{len} jobs, ETA {eta} | {wide_msg}";
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// How every job of a run runs: its arguments, seed, time limit, CPUs and counters (`None`:
/// a suite's value, else the default).
#[derive(Clone, Debug, Default)]
pub struct JobOptions {
    /// `KEY=VALUE` arguments: a Node file gets each verbatim, a command benchmark's parameter
    /// KEY takes the one value VALUE.
    pub set: Vec<String>,
    /// Seed of the random order (default: a suite's, else from the clock).
    pub seed: Option<u64>,
    /// Per-job limit in seconds.
    pub timeout: Option<f64>,
    /// CPUs to pin the children to (taskset list).
    pub cpus: Option<String>,
    /// `--measure`: counters per job ([`crate::run::child::counters::parse_list`]).
    pub measure: Option<String>,
}

impl JobOptions {
    /// Checks that every `--set` value is `KEY=VALUE` with a key, as Node files take them.
    ///
    /// # Errors
    /// [`RunnerError::Io`] naming the first value that is not.
    pub fn check_node_set(&self) -> Result<(), RunnerError> {
        match (self.set.iter()).find(|s| s.split_once('=').is_none_or(|(k, _)| k.is_empty())) {
            Some(s) => Err(RunnerError::Io(format!(
                "--set {s:?}: expected KEY=VALUE (e.g. --set n=1000)"
            ))),
            None => Ok(()),
        }
    }
}

/// Which Node benchmark files run.
#[derive(Clone, Debug, Default)]
pub struct NodeFiles {
    /// Keep files whose name contains one of these (none: every file).
    pub filter: Vec<String>,
    /// Skip files whose name contains one of these (wins over `filter`).
    pub exclude: Vec<String>,
    /// The benchmark folder (default: ./benchmark, or the first `benchmark` folder upward).
    pub benchmark_dir: Option<PathBuf>,
    /// Categories (sub-folders of the benchmark folder), or `all`.
    pub categories: Vec<String>,
}
