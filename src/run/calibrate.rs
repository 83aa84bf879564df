//! `calibrate`: how noisy is this machine for these benchmarks, before a long run.
//!
//! - **A/A** ([`Calibration::Aa`]): the binary is run against itself as both "old" and "new",
//!   with the same schedule `compare` uses (rounds, seeded random order), so every difference
//!   is noise; the rows and the false positives are [`crate::verdict::calibrate`]'s, of the
//!   rate or of `--metric` (e.g. an `--measure` counter). Node files run through the Node
//!   runner; command benchmarks and suite files (`--bench`, `--suite`) through
//!   [`super::command_bench`] with the one command as both sides, judged by the same code.
//! - **find-n** ([`Calibration::FindN`], Node's `benchmark/calibrate-n.js`, spec §6): per
//!   benchmark file, run it `runs` times with `KEY=start_n`, then multiply KEY by `increase`,
//!   at most `max_increases` times, until the coefficient of variation is below
//!   `cv_threshold` overall (the mean of the configurations' CVs) and below twice that for
//!   every configuration ([`crate::verdict::calibrate::find_n_ok`]).
//!
//! The text of the outcome is [`crate::render::calibrate`]'s ([`Calibration::output`]); the
//! caller prints it.

use super::clock::now_unix_s;
use super::command_bench::{self, CommandSpec, Common, Outputs, SinglePlan};
use super::ending::Stop;
use super::options::{JobOptions, NodeFiles};
use super::schedule::{Job, Order};
use super::{Observer, Plan, Report, RunOptions, RunnerError};
use crate::format::results::{JobRecord, JobStatus, Record, ResultsWriter};
use crate::render;
use crate::report::EXIT_FAILED;
use crate::sample::{SampleSet, Side};
use crate::verdict::calibrate::{self, AaRow, FalsePositives};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What `calibrate` runs (built from its options).
#[derive(Clone, Debug)]
pub struct CalibratePlan {
    /// The binary to calibrate (a path, or a name looked up in PATH).
    pub bin: PathBuf,
    /// Runs per side (A/A) or per tried value (find-n); at least 2.
    pub runs: u32,
    /// Accuracy to plan for, in percent: the runs a side needs for a 95% half-width at or
    /// below it.
    pub target_accuracy: f64,
    /// The Node files that run.
    pub files: NodeFiles,
    /// How every job runs (as in compare).
    pub jobs: JobOptions,
    /// Job order.
    pub order: Order,
    /// The results file (default `benchdiff-calibrate-<UTC time>.jsonl` in the system
    /// temporary folder, `TMPDIR`).
    pub results: Option<PathBuf>,
    /// Search a parameter value instead of the A/A run.
    pub find_n: Option<FindN>,
    /// Command benchmarks (`--bench`, `--suite` …): the command is `bin` (or the suite's
    /// `[new]` side), run as both sides.
    pub command: CommandSpec,
    /// The metric judged (default: the rate, else the first metric).
    pub metric: Option<String>,
}

/// The search of calibrate-n: which parameter, where it starts, how it grows.
#[derive(Clone, Debug)]
pub struct FindN {
    /// The benchmark parameter searched.
    pub key: String,
    /// First value tried (above 0).
    pub start_n: f64,
    /// Factor between tried values (above 1).
    pub increase: f64,
    /// How many times the value may be increased.
    pub max_increases: u32,
    /// Overall CV threshold in percent (every configuration: twice this).
    pub cv_threshold: f64,
}

/// The value chosen for one benchmark file.
#[derive(Clone, Debug)]
pub struct Chosen {
    /// The file, `category/file.js`.
    pub file: String,
    /// The value that met the thresholds (`None`: none did, or the file has no such parameter).
    pub value: Option<f64>,
    /// Why: the CV reached, or what went wrong.
    pub why: String,
}

/// What `calibrate` found.
#[derive(Debug)]
pub enum Calibration {
    /// The A/A run: rows per configuration, the false positives, the wall time in seconds.
    Aa {
        /// One row per configuration.
        rows: Vec<AaRow>,
        /// The rows that came out significant, with their rate.
        false_positives: Option<FalsePositives>,
        /// The run's wall time in seconds.
        wall_s: f64,
        /// A job failed.
        failed: bool,
    },
    /// The A/A run produced no sample.
    NoSamples,
    /// The find-n search: the value per file, in plan order.
    FindN {
        /// One entry per file searched (fewer when interrupted).
        chosen: Vec<Chosen>,
        /// A job failed.
        failed: bool,
    },
}

impl Calibration {
    /// What `calibrate` prints on stdout for this outcome of `plan` (the A/A table, or a line
    /// per file searched: [`crate::render::calibrate`]) and its exit code, 1 when a job
    /// failed.
    ///
    /// # Errors
    /// The A/A run produced no sample (exit 1).
    pub fn output(&self, plan: &CalibratePlan) -> Result<(String, i32), Stop> {
        let code = |failed: bool| if failed { EXIT_FAILED } else { 0 };
        match self {
            Calibration::NoSamples => Err(Stop::failed("no samples, no calibration")),
            Calibration::Aa {
                rows,
                false_positives,
                wall_s,
                failed,
            } => {
                let fp = false_positives.as_ref();
                let text = render::calibrate::aa(rows, fp, plan.target_accuracy, *wall_s);
                Ok((text, code(*failed)))
            }
            Calibration::FindN { chosen, failed } => {
                let key = plan.find_n.as_ref().map_or("", |f| f.key.as_str());
                let text = (chosen.iter())
                    .map(|c| render::calibrate::find_n_line(&c.file, key, c.value, &c.why))
                    .collect();
                Ok((text, code(*failed)))
            }
        }
    }
}

/// Collects samples and writes job records.
struct CalObserver<'a> {
    set: SampleSet,
    results: ResultsWriter,
    log: &'a mut dyn Write,
}

impl Observer for CalObserver<'_> {
    fn sample(&mut self, job: &Job, file: &str, r: &Report) -> std::io::Result<()> {
        super::add_rate(&mut self.set, job.side, job.run, file, r);
        Ok(())
    }

    fn job_finished(&mut self, job: &Job, record: &JobRecord) -> std::io::Result<()> {
        self.results.write(&Record::Job(record.clone()))?;
        if record.status != JobStatus::Ok {
            writeln!(
                self.log,
                "benchdiff: job failed: {} ({}, run {}): {}",
                crate::render::escape_control(&record.file),
                job.side,
                job.run + 1,
                record.error.as_deref().unwrap_or("failed")
            )?;
        }
        Ok(())
    }
}

fn prepare(args: &CalibratePlan) -> Result<Plan, RunnerError> {
    args.jobs.check_node_set()?;
    if let Some(t) = args.jobs.timeout
        && !(t.is_finite() && t > 0.0)
    {
        return Err(RunnerError::Io(format!(
            "--timeout {t}: not a positive number of seconds"
        )));
    }
    if let Some(f) = &args.find_n
        && !(f.start_n > 0.0 && f.increase > 1.0)
    {
        return Err(RunnerError::Io(
            "--find-n needs --start-n above 0 and --increase above 1".to_owned(),
        ));
    }
    let bin = ("--bin", args.bin.as_path());
    let (files, jobs) = (&args.files, &args.jobs);
    Plan::of_files(bin, bin, files, jobs, args.runs, args.order, false)
}

/// Runs a calibration: the results file (plan and machine records first), the machine
/// checks, then the A/A run or the find-n search. The machine lines, the results file's
/// path, the plan line, each failed job and each find-n step are written to `log` as they
/// happen.
///
/// # Errors
/// Outer: `log` or the results file cannot be written. Inner: a usage message (bad options,
/// no benchmark, the results file cannot be created).
pub fn calibrate(
    args: &CalibratePlan,
    log: &mut dyn Write,
) -> std::io::Result<Result<Calibration, String>> {
    let path = args
        .results
        .clone()
        .unwrap_or_else(|| super::clock::temporary_results_path("benchdiff-calibrate"));
    let out = [
        crate::output::Output::new("--results", &path, crate::output::Use::Create).making_folder(),
    ];
    let bin: Vec<crate::output::Input<'_>> = (!args.bin.as_os_str().is_empty())
        .then(|| crate::output::Input::new("--bin binary", &args.bin))
        .into_iter()
        .collect();
    if let Err(e) = crate::output::check(&bin, &out, false) {
        return Ok(Err(e));
    }
    if args.command.active() {
        if args.find_n.is_some() {
            return Ok(Err(
                "--find-n searches a Node benchmark parameter: it does not apply to command \
                 benchmarks (give CATEGORY… of Node files)"
                    .to_owned(),
            ));
        }
        return command_aa(args, &path, log);
    }
    let plan = match prepare(args) {
        Ok(p) => p,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let mut results = match ResultsWriter::create(&path) {
        Ok(r) => r,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let timeout = args.jobs.timeout.map(Duration::from_secs_f64);
    results.write(&Record::Run(plan.header(timeout, now_unix_s())))?;
    let info = super::machine::check(plan.cpus.as_ref());
    results.write(&Record::Machine(info.clone()))?;
    write!(log, "{}", info.render())?;
    writeln!(log, "benchdiff: results file: {}", path.display())?;
    if !plan.measure.is_empty() {
        writeln!(log, "benchdiff: {}", plan.measure.note())?;
    }
    let opts = RunOptions {
        timeout,
        fail_fast: false,
    };
    let stop = AtomicBool::new(false);
    let obs = CalObserver {
        set: SampleSet::new(),
        results,
        log,
    };
    match &args.find_n {
        Some(f) => find_n(f, &plan, opts, &stop, obs).map(Ok),
        None => aa(args, &plan, opts, &stop, obs),
    }
}

/// The A/A judgement of the samples of one calibration run (Node files or commands alike):
/// the rows and false positives of `args.metric` (default the primary metric).
///
/// # Errors
/// `--metric` names a metric the samples do not have.
fn judge(
    set: &SampleSet,
    args: &CalibratePlan,
    wall_s: f64,
    failed: bool,
) -> Result<Calibration, String> {
    if set.is_empty() {
        return Ok(Calibration::NoSamples);
    }
    let metric = match &args.metric {
        None => crate::compare::primary_metric(set),
        Some(name) => (set.find_metric(name))
            .filter(|&id| set.has_metric(id))
            .ok_or_else(|| {
                let have: Vec<&str> = (set.metrics().iter().enumerate())
                    .filter(|(i, _)| set.has_metric(crate::sample::MetricId(*i as u32)))
                    .map(|(_, m)| m.name.as_str())
                    .collect();
                format!(
                    "--metric {name}: no such metric (these samples have: {})",
                    have.join(", ")
                )
            })?,
    };
    let rows = calibrate::aa_rows_of(set, metric, args.target_accuracy);
    let false_positives = calibrate::false_positives_of(&rows, set, metric);
    Ok(Calibration::Aa {
        rows,
        false_positives,
        wall_s,
        failed,
    })
}

/// The A/A run of command benchmarks or a suite: `run`'s plan of the one command, its target
/// run again as the new side, through the command runner; the samples judged by [`judge`].
fn command_aa(
    args: &CalibratePlan,
    path: &std::path::Path,
    log: &mut dyn Write,
) -> std::io::Result<Result<Calibration, String>> {
    let single = SinglePlan {
        bin: (!args.bin.as_os_str().is_empty()).then(|| args.bin.to_string_lossy().into_owned()),
        common: Common {
            runs: Some(args.runs),
            jobs: args.jobs.clone(),
            order: Some(args.order),
            results: Some(path.to_path_buf()),
            ..Common::default()
        },
        command: args.command.clone(),
    };
    let prepared = match single.prepare(log) {
        Ok(p) => p,
        Err(stop) => return Ok(Err(stop.to_string())),
    };
    let mut plan = prepared.plan.clone();
    let Some(mut twin) = plan.targets.first().cloned() else {
        return Ok(Err("no command to calibrate".to_owned()));
    };
    twin.side = Side::New;
    plan.targets.truncate(1);
    plan.targets.push(twin);
    writeln!(
        log,
        "benchdiff: A/A calibration of {}: the command runs as both sides",
        plan.targets[0].label
    )?;
    let started = std::time::Instant::now();
    let out = Outputs {
        csv: None,
        results: Some(path.to_path_buf()),
        echo: None,
        progress: false,
    };
    let finished = match command_bench::execute(&plan, false, out, log)? {
        Ok(f) => f,
        Err(e) => return Ok(Err(e)),
    };
    drop(prepared);
    let failed = !finished.summary.failed.is_empty() || finished.summary.setup_failed.is_some();
    let wall_s = started.elapsed().as_secs_f64();
    Ok(judge(&finished.set, args, wall_s, failed))
}

fn aa(
    args: &CalibratePlan,
    plan: &Plan,
    opts: RunOptions,
    stop: &AtomicBool,
    mut obs: CalObserver<'_>,
) -> std::io::Result<Result<Calibration, String>> {
    let jobs = plan.schedule();
    writeln!(
        obs.log,
        "benchdiff: A/A calibration of {}: {} file(s) x {} run(s) x 2 sides = {} jobs, order {}, seed {}",
        plan.old,
        plan.files.len(),
        plan.runs,
        jobs.len(),
        match plan.order {
            Order::Node => "node",
            Order::Random => "random",
        },
        plan.seed
    )?;
    let started = std::time::Instant::now();
    let summary = super::execute(plan, &jobs, opts, stop, &mut obs);
    let set = std::mem::take(&mut obs.set);
    drop(obs);
    let wall_s = started.elapsed().as_secs_f64();
    Ok(judge(&set, args, wall_s, !summary.failed.is_empty()))
}

fn find_n(
    f: &FindN,
    plan: &Plan,
    opts: RunOptions,
    stop: &AtomicBool,
    mut obs: CalObserver<'_>,
) -> std::io::Result<Calibration> {
    let key = f.key.as_str();
    let base_set: Vec<String> = plan
        .set
        .iter()
        .filter(|s| s.split_once('=').is_none_or(|(k, _)| k != key))
        .cloned()
        .collect();
    let mut chosen: Vec<Chosen> = Vec::new();
    let mut failed = false;
    let mut position = 0u32;
    for (fi, file) in plan.files.iter().enumerate() {
        let mut value = f.start_n;
        let mut result: (Option<f64>, String) = (None, String::new());
        for step in 0..=f.max_increases {
            let mut set = base_set.clone();
            set.push(format!(
                "{key}={}",
                crate::format::inspect::js_number(value)
            ));
            let p = Plan {
                set,
                ..plan.clone()
            };
            let jobs: Vec<Job> = (0..plan.runs)
                .map(|r| {
                    position += 1;
                    Job {
                        position: position - 1,
                        file: fi,
                        run: r,
                        side: Side::Old,
                    }
                })
                .collect();
            obs.set = SampleSet::new();
            let s = super::execute(&p, &jobs, opts, stop, &mut obs);
            failed |= !s.failed.is_empty();
            let comps = crate::compare::group(&obs.set);
            let has_key = obs.set.benchmarks().iter().any(|b| {
                b.configuration.params.iter().any(|(k, _)| k == key)
                    || b.configuration
                        .text
                        .split(' ')
                        .any(|kv| kv.split_once('=').is_some_and(|(k, _)| k == key))
            });
            if comps.is_empty() || !has_key {
                result = (
                    None,
                    if comps.is_empty() {
                        "no samples".to_owned()
                    } else {
                        format!("no parameter {key}")
                    },
                );
                break;
            }
            let st = calibrate::find_step(value, &comps);
            let ok = calibrate::find_n_ok(&st, f.cv_threshold);
            writeln!(
                obs.log,
                "benchdiff: find-n: {file} {key}={}: overall CV {:.2}%, worst {:.2}% ({}){}",
                crate::format::inspect::js_number(value),
                st.overall_cv_pct,
                st.worst.0,
                st.worst.1,
                if ok { " -> ok" } else { "" }
            )?;
            if ok {
                result = (Some(value), format!("CV {:.2}% overall", st.overall_cv_pct));
                break;
            }
            if step == f.max_increases {
                result = (
                    None,
                    format!(
                        "no value up to {key}={} met CV < {}% overall and < {}% per configuration",
                        crate::format::inspect::js_number(value),
                        f.cv_threshold,
                        2.0 * f.cv_threshold
                    ),
                );
            }
            value *= f.increase;
        }
        chosen.push(Chosen {
            file: file.clone(),
            value: result.0,
            why: result.1,
        });
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
    }
    Ok(Calibration::FindN { chosen, failed })
}
