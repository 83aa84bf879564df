//! The runner: runs Node-format benchmark files (as Node's `benchmark/compare.js` does, spec
//! §1) or command benchmarks under an old and a new binary, and produces samples.
//!
//! One way through: a plan ([`plan`]) gives the jobs; the one [`driver`] runs them round by
//! round as a [`driver::Policy`] says (the fixed schedule, or [`adaptive`] for `--runs auto`),
//! one job at a time through a [`driver::JobRunner`] ([`NodeRunner`], or the command runner of
//! [`command_run`]); every child goes through [`child::process`]; everything is reported to
//! one [`Observer`]; records are the one [`crate::format::results::Record`] enum.
//!
//! - [`compare`]: `compare`'s plan and entry point (Node files here, else [`command_bench`]);
//!   of Node files the plan from the options or a `--resume` file, the run with its CSV,
//!   results file and progress, the samples for the report;
//! - [`command_bench`]: command benchmarks — the plan from options and suite files (builds
//!   first), the run with its CSV, results file and progress, and `compare`'s run of them;
//! - [`options`]: what every run shares (job options, Node files, streams, limits, timeouts);
//! - [`plan`]: what to run (benchmark discovery, parameter matrices, suite files, git revisions);
//! - [`schedule`]: job order (`--order node` = compare.js; default seeded random per round);
//! - [`child`]: one child process — spawn, supervise (timeouts, process-group kills), reap
//!   with `wait4` usage — for Node files (IPC channel) and for commands;
//! - [`affinity`]: `--set CPUSET=…` / `--cpus` lists;
//! - [`driver`]: the one job loop (stop, fail-fast, interrupt, output errors) and its policies;
//! - [`ending`]: how a command ends — a [`ending::Stop`] with its exit code, or an
//!   [`ending::Ended`] run: its closing lines, exit code and the samples of its report;
//! - [`adaptive`]: `--runs auto` (stop a configuration once its interval is narrow enough);
//!   [`sequential`]: its `--stop decided`; [`outcome`]: what such a run did, for its summary;
//! - [`calibrate`]: `calibrate`'s A/A run and calibrate-n's search for a parameter value;
//! - [`machine`]: machine checks (governor, load, busy processes, pinning, turbo);
//! - [`command_run`]: running command benchmarks (any program) and their samples; their plan
//!   is [`plan::command`];
//! - [`shard`]: `--shard K/N` — a shard's slice of the schedule, its fingerprint and balance;
//! - [`merge`]: merging a sharded run's results files, and reading them for a report;
//! - [`sweep`]: `sweep`'s mean and interval per configuration, in plan order;
//! - [`signals`], [`clock`]: the Ctrl-C guard, the clock, the default seed and results path.
//!
//! The file formats it writes and reads (compare.js CSV, the results file, Node's IPC
//! messages, result lines) live in [`crate::format`].
//!
//! [`execute`] runs a list of jobs of a Node-file plan and reports everything to an
//! [`Observer`]; [`adaptive::execute_adaptive`] and [`command_run::execute`] are the other two
//! entry points, all three through [`driver::drive`]. The commands' runs ([`compare`],
//! [`command_bench`], [`calibrate`]) take a typed plan built from the options, write the lines
//! a person watches while a run goes on to the log stream they are given, and return what the
//! run produced with its closing lines ([`ending`]); the CLI prints them. These modules import
//! each other one way only (no cycle: `tests/architecture.rs`).

pub mod adaptive;
pub mod affinity;
pub mod calibrate;
pub mod child;
pub mod clock;
pub mod command_bench;
pub mod command_run;
pub mod compare;
pub mod driver;
pub mod ending;
pub mod machine;
pub mod merge;
pub mod options;
pub mod outcome;
pub mod plan;
pub mod schedule;
pub mod sequential;
pub mod shard;
pub mod signals;
pub mod sweep;

use crate::format::results;
use child::node as job;
use plan::discover;

use crate::sample::{SampleSet, Side};
use affinity::CpuList;
use results::{JobRecord, RunHeader, SampleRecord};
use schedule::{Job, Order};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub use crate::format::node_ipc::{Channel, Report};

/// Errors that stop a comparison before it starts (bad usage or environment; exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// No usable benchmark folder.
    #[error("{0}")]
    BenchmarkDir(String),
    /// A category that is not a sub-folder of the benchmark folder.
    #[error("the \"{category}\" category does not exist (categories: {})", available.join(", "))]
    UnknownCategory {
        /// What was asked for.
        category: String,
        /// What exists.
        available: Vec<String>,
    },
    /// Filters left no file.
    #[error("no benchmarks found (check the categories, --filter and --exclude)")]
    NoBenchmarks,
    /// A binary that cannot be run.
    #[error("{0}")]
    Binary(String),
    /// An invalid CPU list.
    #[error("{0}")]
    CpuSet(String),
    /// The results file cannot be created, opened or read.
    #[error("results file: {0}")]
    Results(String),
    /// Another I/O problem.
    #[error("{0}")]
    Io(String),
}

impl From<results::ResultsError> for RunnerError {
    fn from(e: results::ResultsError) -> RunnerError {
        RunnerError::Results(e.located())
    }
}

/// What to run: the inputs of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// `--old` as given.
    pub old: String,
    /// `--new` as given.
    pub new: String,
    /// Resolved absolute path of the old binary.
    pub old_exec: PathBuf,
    /// Resolved absolute path of the new binary.
    pub new_exec: PathBuf,
    /// Absolute benchmark folder.
    pub benchmark_dir: PathBuf,
    /// Files relative to it, `category/file.js`.
    pub files: Vec<String>,
    /// Runs per binary and file.
    pub runs: u32,
    /// Raw `--set` strings, passed to every child as arguments.
    pub set: Vec<String>,
    /// Job order.
    pub order: Order,
    /// Seed of the random order.
    pub seed: u64,
    /// CPUs to pin the children to.
    pub cpus: Option<CpuList>,
    /// Counters measured per job ([`child::counters`]).
    pub measure: child::counters::Measure,
    /// `--control`: every (file, run) also runs the old binary as [`Side::Control`].
    pub control: bool,
}

impl Plan {
    /// The binary of one side.
    pub fn binary(&self, side: Side) -> &Path {
        match side {
            Side::Old | Side::Control => &self.old_exec,
            Side::New => &self.new_exec,
        }
    }

    /// The full schedule (see [`schedule::schedule`]).
    pub fn schedule(&self) -> Vec<Job> {
        let sides = schedule::sides(self.control);
        schedule::schedule_sides(self.files.len(), self.runs, self.order, self.seed, sides)
    }

    /// The `run` record for this plan.
    pub fn header(&self, timeout: Option<Duration>, started_unix_s: f64) -> RunHeader {
        RunHeader {
            benchdiff: env!("CARGO_PKG_VERSION").to_owned(),
            started_unix_s,
            old: self.old.clone(),
            new: self.new.clone(),
            old_exec: self.old_exec.clone(),
            new_exec: self.new_exec.clone(),
            benchmark_dir: self.benchmark_dir.clone(),
            files: self.files.clone(),
            runs: self.runs,
            set: self.set.clone(),
            order: self.order,
            seed: self.seed,
            cpus: self.cpus.as_ref().map(|c| c.text.clone()),
            timeout_s: timeout.map(|t| t.as_secs_f64()),
            jobs: self.files.len() * self.runs as usize * schedule::sides(self.control).len(),
            adaptive: None,
            decided: None,
            csv: None,
            measure: (!self.measure.is_empty()).then(|| {
                self.measure
                    .counters()
                    .iter()
                    .map(|c| c.name())
                    .collect::<Vec<_>>()
                    .join(",")
            }),
            control: self.control,
        }
    }

    /// The plan of the Node `files` under `old` and `new`, each beside the option that names
    /// it, resolved from the current folder; `jobs` gives the arguments, CPUs (`--cpus` or a
    /// `--set CPUSET=…`, not both), counters and seed (default: from the clock).
    ///
    /// # Errors
    /// A binary that cannot run, no benchmark file, a bad CPU list or counter.
    pub fn of_files(
        old: (&str, &Path),
        new: (&str, &Path),
        files: &options::NodeFiles,
        jobs: &options::JobOptions,
        runs: u32,
        order: Order,
        control: bool,
    ) -> Result<Plan, RunnerError> {
        let cwd = std::env::current_dir().map_err(|e| RunnerError::Io(e.to_string()))?;
        let old_exec = discover::resolve_binary(old.0, old.1, &cwd)?;
        let new_exec = discover::resolve_binary(new.0, new.1, &cwd)?;
        let dir = discover::find_benchmark_dir(files.benchmark_dir.as_deref(), &cwd)?;
        let selected = discover::select(&dir, &files.categories, &files.filter, &files.exclude)?;
        let cpus = match (&jobs.cpus, affinity::cpuset_from_set_values(&jobs.set)?) {
            (Some(_), Some(_)) => {
                let both = "give either --cpus or --set CPUSET=…, not both";
                return Err(RunnerError::CpuSet(both.to_owned()));
            }
            (Some(c), None) => Some(CpuList::parse(c)?),
            (None, c) => c,
        };
        Ok(Plan {
            old: old.1.display().to_string(),
            new: new.1.display().to_string(),
            old_exec,
            new_exec,
            benchmark_dir: dir,
            files: selected,
            runs,
            set: jobs.set.clone(),
            order,
            seed: jobs.seed.unwrap_or_else(clock::default_seed),
            cpus,
            measure: match &jobs.measure {
                Some(list) => child::counters::measure_for(list).map_err(RunnerError::Io)?,
                None => child::counters::Measure::default(),
            },
            control,
        })
    }

    /// The plan a results file was written for (`--resume`); binaries are checked again.
    ///
    /// # Errors
    /// [`RunnerError::Binary`] / [`RunnerError::CpuSet`] / [`RunnerError::BenchmarkDir`] when
    /// the recorded binaries, CPU list or folder are no longer usable.
    pub fn from_header(h: &RunHeader) -> Result<Plan, RunnerError> {
        let cwd = std::env::current_dir().map_err(|e| RunnerError::Io(e.to_string()))?;
        let old_exec = discover::resolve_binary("old binary", &h.old_exec, &cwd)?;
        let new_exec = discover::resolve_binary("new binary", &h.new_exec, &cwd)?;
        if !h.benchmark_dir.is_dir() {
            return Err(RunnerError::BenchmarkDir(format!(
                "the recorded benchmark folder {} is gone",
                h.benchmark_dir.display()
            )));
        }
        let cpus = h.cpus.as_deref().map(CpuList::parse).transpose()?;
        let measure = match &h.measure {
            Some(list) => child::counters::measure_for(list).map_err(RunnerError::Io)?,
            None => child::counters::Measure::default(),
        };
        Ok(Plan {
            old: h.old.clone(),
            new: h.new.clone(),
            old_exec,
            new_exec,
            benchmark_dir: h.benchmark_dir.clone(),
            files: h.files.clone(),
            runs: h.runs,
            set: h.set.clone(),
            order: h.order,
            seed: h.seed,
            cpus,
            measure,
            control: h.control,
        })
    }
}

/// Options that do not change the schedule.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Per-job wall-clock limit.
    pub timeout: Option<Duration>,
    /// Stop at the first failed job (compare.js's behaviour on any failure).
    pub fail_fast: bool,
}

/// Receives everything a run of either kind produces, as it happens (the one observer of the
/// driver: Node-file runs call `config`, `sample` and `job_finished`, command runs
/// `command_job_finished` and `note`).
pub trait Observer {
    /// A job is about to start: `what` is the Node file (`category/file.js`) or the command
    /// job's description.
    fn job_started(&mut self, _job: &Job, _what: &str) {}
    /// The running Node child announced its configuration count.
    fn config(&mut self, _job: &Job, _queue_length: Option<u64>) {}
    /// A sample of a Node child arrived (as it arrived; whether it is used depends on how the
    /// job ends, see [`crate::format::results::UnusedSamples`]).
    ///
    /// # Errors
    /// An error (e.g. the CSV pipe closed) stops the run like an interrupt.
    fn sample(&mut self, _job: &Job, _file: &str, _report: &Report) -> std::io::Result<()> {
        Ok(())
    }
    /// A Node-file job ended (its record is complete).
    ///
    /// # Errors
    /// An error (e.g. the results file cannot be written) stops the run.
    fn job_finished(&mut self, _job: &Job, _record: &JobRecord) -> std::io::Result<()> {
        Ok(())
    }
    /// A command job ended (its record is complete).
    ///
    /// # Errors
    /// An error (e.g. the results file cannot be written) stops the run.
    fn command_job_finished(
        &mut self,
        _record: &results::command::CommandJobRecord,
    ) -> std::io::Result<()> {
        Ok(())
    }
    /// An extra record for the results file (the adaptive runner's rounds); ignored by default.
    ///
    /// # Errors
    /// An error (the results file cannot be written) stops the run.
    fn record(&mut self, _record: &results::Record) -> std::io::Result<()> {
        Ok(())
    }
    /// A note for the user (e.g. `--cleanup` trouble); ignored by default.
    fn note(&mut self, _text: &str) {}
}

/// How a run ended.
#[derive(Debug, Default)]
pub struct Summary {
    /// Jobs that ran (including failed and interrupted ones).
    pub jobs_run: usize,
    /// Jobs that did not end `ok`, with their error text.
    pub failed: Vec<(Job, String)>,
    /// Stopped by an interrupt before the end.
    pub interrupted: bool,
    /// Stopped by `--fail-fast`.
    pub stopped_by_fail_fast: bool,
    /// An output error that stopped the run.
    pub output_error: Option<std::io::Error>,
}

/// Adds the rate `r` a Node file's job (`side`, round `run`) reported to `set`: one sample of
/// its configuration.
pub(crate) fn add_rate(set: &mut SampleSet, side: Side, run: u32, file: &str, r: &Report) {
    let benchmark = set.intern_configuration(file, &r.configuration);
    set.mark_rounds_recorded(); // the runner's rounds ran old and new together
    set.push(crate::sample::Sample {
        benchmark,
        side,
        metric: crate::sample::RATE,
        value: r.rate,
        time_s: r.time_s,
        run: Some(run),
    });
}

/// Runs `jobs` (from `plan`'s schedule) one at a time through the one driver
/// ([`driver::drive`] with the [`driver::Fixed`] policy). Stops launching when `stop` becomes
/// true (the running child is ended), at the first failure with `fail_fast`, or on an observer
/// error.
pub fn execute(
    plan: &Plan,
    jobs: &[Job],
    opts: RunOptions,
    stop: &AtomicBool,
    obs: &mut dyn Observer,
) -> Summary {
    let mut runner = NodeRunner::new(plan, opts, obs);
    driver::drive(
        &mut driver::Fixed::new(jobs),
        &mut runner,
        opts.fail_fast,
        stop,
    )
}

/// The Node-file [`driver::JobRunner`]: one job is `BIN FILE [--set values]` through
/// [`child::node`], reported to an [`Observer`].
pub struct NodeRunner<'a> {
    plan: &'a Plan,
    cpu_set: Option<libc::cpu_set_t>,
    timeout: Option<Duration>,
    obs: &'a mut dyn Observer,
}

impl<'a> NodeRunner<'a> {
    /// A runner for the jobs of `plan`.
    pub fn new(plan: &'a Plan, opts: RunOptions, obs: &'a mut dyn Observer) -> NodeRunner<'a> {
        NodeRunner {
            plan,
            cpu_set: plan.cpus.as_ref().map(CpuList::to_cpu_set),
            timeout: opts.timeout,
            obs,
        }
    }
}

impl driver::JobRunner for NodeRunner<'_> {
    type Record = JobRecord;

    fn run(&mut self, planned: &driver::Planned, stop: &AtomicBool) -> driver::Ended<JobRecord> {
        let job = &planned.job;
        let plan = self.plan;
        let file = plan.files.get(job.file).map_or("", String::as_str);
        let abs = plan.benchmark_dir.join(file);
        let binary = plan.binary(job.side);
        self.obs.job_started(job, file);
        let spawn = job::Spawn {
            binary,
            file: &abs,
            args: planned.set.as_deref().unwrap_or(&plan.set),
            cpus: self.cpu_set.as_ref(),
            measure: &plan.measure,
        };
        let mut samples: Vec<SampleRecord> = Vec::new();
        let mut out_err: Option<std::io::Error> = None;
        let obs = &mut *self.obs;
        let outcome = if plan.files.get(job.file).is_some() {
            job::run_job(&spawn, self.timeout, stop, &mut |ev| match ev {
                job::Event::Config { queue_length } => {
                    obs.config(job, queue_length);
                    ControlFlow::Continue(())
                }
                job::Event::Report(r) => {
                    samples.push(SampleRecord::from_report(r));
                    match obs.sample(job, file, r) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(e) => {
                            out_err = Some(e);
                            ControlFlow::Break(())
                        }
                    }
                }
            })
        } else {
            job::Outcome {
                process: child::process::Finished {
                    spawn_error: Some(format!("no benchmark file at index {}", job.file)),
                    ..Default::default()
                },
                ..job::Outcome::default()
            }
        };
        let record = outcome.record(job, file, binary, samples, self.timeout);
        if let Err(e) = obs.job_finished(job, &record) {
            out_err.get_or_insert(e);
        }
        driver::Ended {
            status: record.status,
            failure: record.error.clone(),
            output_error: out_err,
            record,
        }
    }

    fn record(&mut self, record: &results::Record) -> std::io::Result<()> {
        self.obs.record(record)
    }
}
