//! Running a command-benchmark plan ([`crate::run::plan::command`]): every job of its
//! schedule with [`crate::run::child::command`], and turning what each child did into samples.
//!
//! **Samples.** When a child prints result lines ([`crate::format::result_lines`]), each line is one
//! sample: its name (or the benchmark's) is the benchmark, its configuration is the
//! combination followed by any reported keys the combination does not have. Otherwise the
//! whole process is the sample: rate = 1 / wall seconds, time = wall seconds. A sample carries
//! only what its line said (for JSON lines, the program's own metrics). The job's own
//! measurements are one sample per job, recorded once in its record
//! ([`CommandJobRecord::metrics`]), all lower-is-better: `wall` (s, spawn to reap), `user` and
//! `sys` (s, CPU time from `wait4`), `max_rss` (bytes, peak resident set), and the `--measure`
//! counters. A job timed as a whole process is reported by its `wall` by default
//! ([`crate::sample::SampleSet::ask_default`]); its rate stays a metric (`--metric rate`).
//!
//! **Schedule.** `warmup + runs` rounds; the first `warmup` rounds are run and recorded
//! (`"warmup": true`) but produce no sample. Order and seed as for Node files
//! ([`crate::run::schedule`]). `prepare` runs (with `sh -c`, untimed) before every job, `setup`
//! once per target before the first job and `cleanup` once per target after the last, with
//! `BENCHDIFF_SIDE` (`old`/`new`) and `BENCHDIFF_BIN` (the target's program) in the environment.

use crate::format::result_lines::{LineForm, ReportedMetric};
use crate::format::results::JobStatus;
use crate::run::Observer;
use crate::run::child::command::{self, Outcome, Spec, helper_failure};
use crate::run::child::process::metric;
use crate::run::driver::{self, Fixed, Planned};
use crate::run::plan::matrix::{self, Combination};
use crate::run::schedule::Job;

pub use crate::format::results::command::{
    BenchHeader, CommandJobRecord, CommandRunHeader, CommandSample, Target,
};
pub use crate::run::plan::command::{BenchDef, CommandPlan, Instance, side_of};
use crate::sample::{Configuration, SampleSet, Side};
use std::sync::atomic::AtomicBool;

/// The job's own measurements ([`CommandJobRecord::metrics`]): its process metrics and
/// counters; under cachegrind only the counters (the process's own figures are valgrind's).
pub fn process_metrics(o: &Outcome, under_valgrind: bool) -> Vec<ReportedMetric> {
    let mut v = if under_valgrind {
        Vec::new()
    } else {
        vec![
            metric("wall", "s", o.process.wall_s),
            metric("user", "s", o.process.usage.user_s),
            metric("sys", "s", o.process.usage.sys_s),
            metric("max_rss", "bytes", o.process.usage.max_rss_bytes as f64),
        ]
    };
    v.extend(o.process.counter_metrics());
    v
}

/// The samples of one finished child (see the module notes): what its lines said, without the
/// job's own measurements ([`process_metrics`]). `under_valgrind`: the child ran under
/// cachegrind, so no time it took is a measurement: no sample has a rate or time (`NaN`,
/// absent), only the program's own metrics.
pub fn samples_of(
    def: &BenchDef,
    combo: &Combination,
    o: &Outcome,
    under_valgrind: bool,
) -> Vec<CommandSample> {
    let to_sample =
        |conf: Configuration, name: String, rate, time_s, source: &str, metrics| CommandSample {
            name,
            params: conf
                .params
                .iter()
                .map(|(k, v)| (k.clone(), crate::format::result_lines::conf_json(v)))
                .collect(),
            configuration: conf.text,
            rate,
            time_s,
            source: source.to_owned(),
            metrics,
        };
    if o.results.is_empty() {
        let (rate, time_s) = if under_valgrind {
            (f64::NAN, None)
        } else {
            (1.0 / o.process.wall_s, Some(o.process.wall_s))
        };
        return vec![to_sample(
            matrix::configuration(combo, &[]),
            def.name.clone(),
            rate,
            time_s,
            "whole-process",
            Vec::new(),
        )];
    }
    o.results
        .iter()
        .map(|r| {
            to_sample(
                matrix::configuration(combo, &r.conf),
                if r.name.is_empty() {
                    def.name.clone()
                } else {
                    r.name.clone()
                },
                if under_valgrind { f64::NAN } else { r.rate },
                if under_valgrind { None } else { r.time_s },
                match r.form {
                    LineForm::Node => "node",
                    LineForm::Json => "json",
                },
                r.metrics.clone(),
            )
        })
        .collect()
}

/// Adds a counted, `ok` job to `set`: each sample's rate (with time) and reported metrics,
/// and the job's own measurements once (see
/// [`crate::format::results::samples::add_command_job`]).
pub fn add_to_set(set: &mut SampleSet, record: &CommandJobRecord) {
    set.mark_rounds_recorded(); // the runner's rounds ran old and new together
    crate::format::results::samples::add_command_job(set, record);
}

/// How a command run ended.
#[derive(Debug, Default)]
pub struct CommandSummary {
    /// Jobs that ran.
    pub jobs_run: usize,
    /// Failed jobs: description and error.
    pub failed: Vec<String>,
    /// Stopped by an interrupt.
    pub interrupted: bool,
    /// Stopped by `fail_fast`.
    pub stopped_by_fail_fast: bool,
    /// Setup failed: nothing was measured.
    pub setup_failed: Option<String>,
    /// An output error that stopped the run.
    pub output_error: Option<std::io::Error>,
}

/// Runs the hook `line` (`--setup`, `--cleanup`) for target `t`, in its folder and with its
/// environment.
fn run_hook(plan: &CommandPlan, t: &Target, line: &str, stop: &AtomicBool) -> Outcome {
    command::run_shell(
        line,
        &target_env(plan, t),
        t.cwd.clone(),
        plan.timeout,
        stop,
    )
}

fn target_env(plan: &CommandPlan, t: &Target) -> Vec<(String, String)> {
    let mut env = plan.env.clone();
    env.push(("BENCHDIFF_SIDE".to_owned(), t.side.label().to_owned()));
    env.push((
        "BENCHDIFF_BIN".to_owned(),
        t.argv.first().cloned().unwrap_or_default(),
    ));
    env
}

/// A policy's rounds without the jobs a plan cannot run (an instance or target it lacks).
struct Checked<'a> {
    inner: &'a mut dyn driver::Policy<CommandJobRecord>,
    instances: usize,
    targets: usize,
}

impl driver::Policy<CommandJobRecord> for Checked<'_> {
    fn next_round(&mut self) -> Option<driver::Round> {
        let mut round = self.inner.next_round()?;
        round.jobs.retain(|p| {
            p.job.file < self.instances && usize::from(p.job.side == Side::New) < self.targets
        });
        Some(round)
    }
    fn job_ended(&mut self, planned: &Planned, record: &CommandJobRecord) {
        self.inner.job_ended(planned, record);
    }
    fn round_ended(&mut self) {
        self.inner.round_ended();
    }
}

/// The command [`driver::JobRunner`]: one job is `--prepare` (if any), then the target's argv
/// for one instance through [`crate::run::child::command`], reported to a [`Observer`].
struct CommandRunner<'a> {
    plan: &'a CommandPlan,
    instances: &'a [Instance],
    cpu_set: Option<libc::cpu_set_t>,
    obs: &'a mut dyn Observer,
}

impl driver::JobRunner for CommandRunner<'_> {
    type Record = CommandJobRecord;

    fn run(&mut self, planned: &Planned, stop: &AtomicBool) -> driver::Ended<CommandJobRecord> {
        let plan = self.plan;
        let job = &planned.job;
        // Jobs are checked against the plan before the run starts.
        let inst = &self.instances[job.file];
        let target = &plan.targets[usize::from(job.side == Side::New)];
        // A control job runs the old target as its own side.
        let side = if job.side == Side::Control {
            Side::Control
        } else {
            target.side
        };
        let def = &plan.benchmarks[inst.bench];
        let warmup = job.run < plan.warmup;
        let run = if warmup {
            job.run
        } else {
            job.run - plan.warmup
        };
        let combo = inst
            .combo
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let what = format!(
            "{}{}{combo} ({}, {} {}/{})",
            def.name,
            if combo.is_empty() { "" } else { " " },
            side,
            if warmup { "warm-up" } else { "run" },
            run + 1,
            if warmup { plan.warmup } else { plan.runs }
        );
        self.obs.job_started(job, &what);
        let mut env = target_env(plan, target);
        env.extend(def.env.iter().cloned());
        let (name, combo) = (def.name.clone(), inst.combo.clone());
        let mut record = CommandJobRecord::unmeasured(job.position, name, combo, side, run, warmup);
        let mut prepare_failed = None;
        for p in [&plan.prepare, &def.prepare].into_iter().flatten() {
            let o = command::run_shell(p, &env, target.cwd.clone(), plan.timeout, stop);
            if !o.ok() {
                prepare_failed = Some((helper_failure("--prepare", &o, plan.timeout), o));
                break;
            }
        }
        let outcome = match (prepare_failed, plan.argv(target, inst)) {
            (Some((msg, o)), _) => {
                record.status = if o.process.interrupted {
                    JobStatus::Interrupted
                } else {
                    JobStatus::Failed
                };
                record.error = Some(msg);
                None
            }
            (None, Err(e)) => {
                record.status = JobStatus::Failed;
                record.error = Some(e);
                None
            }
            (None, Ok(argv)) => {
                record.argv = argv.clone();
                let spec = Spec {
                    argv,
                    env,
                    cwd: target.cwd.clone(),
                    parse_stdout: true,
                    measure: plan.measure.clone(),
                };
                Some(command::run_command(
                    &spec,
                    plan.timeout,
                    self.cpu_set.as_ref(),
                    stop,
                ))
            }
        };
        if let Some(o) = &outcome {
            (record.exit_code, record.signal) = o.process.code_and_signal();
            record.wall_s = o.process.wall_s;
            record.user_s = o.process.usage.user_s;
            record.sys_s = o.process.usage.sys_s;
            record.max_rss_bytes = o.process.usage.max_rss_bytes;
            record.metrics = Some(process_metrics(o, plan.measure.cachegrind.is_some()));
            match o.failure(plan.timeout) {
                None => {
                    if !warmup {
                        record.samples =
                            samples_of(def, &inst.combo, o, plan.measure.cachegrind.is_some());
                    }
                }
                Some((status, error)) => {
                    // Result lines printed before the job failed are kept in the record (with
                    // its status) and used by no report: the same policy as for Node files
                    // (`format::results::UnusedSamples`).
                    if !warmup && !o.results.is_empty() {
                        record.samples =
                            samples_of(def, &inst.combo, o, plan.measure.cachegrind.is_some());
                    }
                    record.status = status;
                    record.error = Some(error);
                    record.stderr_tail = o.process.stderr_tail.clone();
                }
            }
        }
        let output_error = self.obs.command_job_finished(&record).err();
        driver::Ended {
            status: record.status,
            failure: (!record.ok() && record.status != JobStatus::Interrupted)
                .then(|| format!("{what}: {}", record.error.as_deref().unwrap_or("failed"))),
            output_error,
            record,
        }
    }

    fn record(&mut self, _record: &crate::format::results::Record) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `jobs` of `plan` (from [`CommandPlan::schedule`]; `Job::file` indexes `instances`),
/// with setup before and cleanup after, reporting every job to `obs`.
pub fn execute(
    plan: &CommandPlan,
    instances: &[Instance],
    jobs: &[Job],
    fail_fast: bool,
    stop: &AtomicBool,
    obs: &mut dyn Observer,
) -> CommandSummary {
    let jobs: Vec<Job> = jobs
        .iter()
        .filter(|j| {
            instances.get(j.file).is_some()
                && plan.targets.get(usize::from(j.side == Side::New)).is_some()
        })
        .copied()
        .collect();
    execute_policy(
        plan,
        instances,
        &mut Fixed::new(&jobs),
        fail_fast,
        stop,
        obs,
    )
}

/// Runs the jobs `policy` plans (`--runs auto`: [`crate::run::sequential::CommandAuto`]),
/// as [`execute`] does: setup before, cleanup after, every job reported to `obs`. Jobs whose
/// instance or target the plan does not have are skipped.
pub fn execute_policy(
    plan: &CommandPlan,
    instances: &[Instance],
    policy: &mut dyn driver::Policy<CommandJobRecord>,
    fail_fast: bool,
    stop: &AtomicBool,
    obs: &mut dyn Observer,
) -> CommandSummary {
    let mut summary = CommandSummary::default();
    let cpu_set = plan
        .cpus
        .as_deref()
        .and_then(|c| crate::run::affinity::CpuList::parse(c).ok())
        .map(|c| c.to_cpu_set());
    if let Some(setup) = &plan.setup {
        for t in &plan.targets {
            let o = run_hook(plan, t, setup, stop);
            if !o.ok() {
                summary.setup_failed = Some(helper_failure(
                    &format!("--setup for {} ({})", t.side, t.label),
                    &o,
                    plan.timeout,
                ));
                return summary;
            }
        }
    }
    let mut runner = CommandRunner {
        plan,
        instances,
        cpu_set,
        obs,
    };
    let mut checked = Checked {
        inner: policy,
        instances: instances.len(),
        targets: plan.targets.len(),
    };
    let run = driver::drive(&mut checked, &mut runner, fail_fast, stop);
    let obs = runner.obs;
    summary.jobs_run = run.jobs_run;
    summary.interrupted = run.interrupted;
    summary.stopped_by_fail_fast = run.stopped_by_fail_fast;
    summary.output_error = run.output_error;
    // An interrupted job is not a failure of the benchmark: it has no failure text.
    summary.failed = run
        .failed
        .into_iter()
        .map(|(_, text)| text)
        .filter(|t| !t.is_empty())
        .collect();
    if let Some(cleanup) = &plan.cleanup {
        let calm = AtomicBool::new(false);
        for t in &plan.targets {
            let o = run_hook(plan, t, cleanup, &calm);
            if !o.ok() {
                let msg = helper_failure(&format!("--cleanup for {}", t.side), &o, plan.timeout);
                obs.note(&msg);
                summary.failed.push(msg);
            }
        }
    }
    summary
}
