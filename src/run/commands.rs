//! Command benchmarks end to end: a [`CommandPlan`] (targets × benchmarks × parameter
//! combinations × runs), its schedule, running every job with [`crate::run::child::command`], and turning
//! what each child did into samples.
//!
//! **Samples.** When a child prints result lines ([`crate::format::result_lines`]), each line is one
//! sample: its name (or the benchmark's) is the benchmark, its configuration is the
//! combination followed by any reported keys the combination does not have. Otherwise the
//! whole process is the sample: rate = 1 / wall seconds, time = wall seconds. Every sample also
//! carries the job's process metrics, all lower-is-better: `wall` (s, spawn to reap), `user`
//! and `sys` (s, CPU time from `wait4`), `max_rss` (bytes, peak resident set) — plus, for JSON
//! lines, the program's own metrics.
//!
//! **Schedule.** `warmup + runs` rounds; the first `warmup` rounds are run and recorded
//! (`"warmup": true`) but produce no sample. Order and seed as for Node files
//! ([`crate::run::schedule`]). `prepare` runs (with `sh -c`, untimed) before every job, `setup`
//! once per target before the first job and `cleanup` once per target after the last, with
//! `BENCHDIFF_SIDE` (`old`/`new`) and `BENCHDIFF_BIN` (the target's program) in the environment.

use crate::format::result_lines::{LineForm, ReportedMetric};
use crate::format::results::JobStatus;
use crate::run::child::command::{self, Outcome, Spec};
use crate::run::plan::matrix::{self, Combination, Matrix};
use crate::run::schedule::{self, Job, Order};

pub use crate::format::results::command::{
    BenchHeader, CommandJobRecord, CommandRunHeader, CommandSample, Target,
};
use crate::sample::{Better, Configuration, SampleSet, Side};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// One benchmark: an argument template with a parameter matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchDef {
    /// Its name (the `filename` of its samples when the program reports none).
    pub name: String,
    /// Arguments after the target's words, with `{key}` placeholders.
    pub template: String,
    /// Parameters (only keys used in the template) and exclusions.
    pub matrix: Matrix,
    /// Extra environment of its runs.
    pub env: Vec<(String, String)>,
    /// Run before every job of this benchmark (after the plan's `prepare`).
    pub prepare: Option<String>,
}

/// One benchmark with one combination: a unit of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Index into [`CommandPlan::benchmarks`].
    pub bench: usize,
    /// The combination.
    pub combo: Combination,
}

/// Everything a command-benchmark run needs.
#[derive(Clone, Debug)]
pub struct CommandPlan {
    /// One target (`run`, `sweep`) or two (old, new).
    pub targets: Vec<Target>,
    /// Benchmarks.
    pub benchmarks: Vec<BenchDef>,
    /// Counted runs per target and instance.
    pub runs: u32,
    /// Uncounted runs per target and instance, before the counted ones.
    pub warmup: u32,
    /// Job order.
    pub order: Order,
    /// Seed of the random order.
    pub seed: u64,
    /// Hand the line to `sh -c` instead of splitting it.
    pub shell: bool,
    /// Environment of every child.
    pub env: Vec<(String, String)>,
    /// Per-job limit.
    pub timeout: Option<Duration>,
    /// Before every job (`sh -c`, untimed).
    pub prepare: Option<String>,
    /// Once per target before the first job.
    pub setup: Option<String>,
    /// Once per target after the last job.
    pub cleanup: Option<String>,
    /// CPUs to pin the children to (as given, e.g. `0-1`).
    pub cpus: Option<String>,
}

/// The side of target `i` of a plan: the first is `old`, the second `new`.
pub fn side_of(i: usize) -> Side {
    if i == 0 { Side::Old } else { Side::New }
}

impl CommandPlan {
    /// Every instance: benchmarks in order, combinations last key fastest.
    pub fn instances(&self) -> Vec<Instance> {
        let mut v = Vec::new();
        for (b, def) in self.benchmarks.iter().enumerate() {
            for combo in def.matrix.combinations() {
                v.push(Instance { bench: b, combo });
            }
        }
        v
    }

    /// The full schedule over `instances.len()` instances and `warmup + runs` rounds; jobs of
    /// a missing second target are left out. `Job::file` indexes the instances.
    pub fn schedule(&self, instances: usize) -> Vec<Job> {
        let mut jobs =
            schedule::schedule(instances, self.warmup + self.runs, self.order, self.seed);
        if self.targets.len() < 2 {
            jobs.retain(|j| j.side == Side::Old);
            for (i, j) in jobs.iter_mut().enumerate() {
                j.position = u32::try_from(i).unwrap_or(u32::MAX);
            }
        }
        jobs
    }

    /// The argv of one job.
    ///
    /// # Errors
    /// A message for bad quoting in the template.
    pub fn argv(&self, target: &Target, inst: &Instance) -> Result<Vec<String>, String> {
        let def = &self.benchmarks[inst.bench];
        crate::run::plan::argv::build_argv(&target.argv, &def.template, &inst.combo, self.shell)
            .map_err(|e| format!("benchmark {:?}: {e}", def.name))
    }

    /// The header record of this plan.
    pub fn header(&self, started_unix_s: f64, jobs: usize) -> CommandRunHeader {
        CommandRunHeader {
            benchdiff: env!("CARGO_PKG_VERSION").to_owned(),
            started_unix_s,
            targets: self.targets.clone(),
            benchmarks: self
                .benchmarks
                .iter()
                .map(|b| BenchHeader {
                    name: b.name.clone(),
                    template: b.template.clone(),
                    params: b.matrix.params.clone(),
                    exclusions: b.matrix.exclusions.clone(),
                })
                .collect(),
            runs: self.runs,
            warmup: self.warmup,
            order: self.order,
            seed: self.seed,
            shell: self.shell,
            timeout_s: self.timeout.map(|t| t.as_secs_f64()),
            prepare: self.prepare.clone(),
            setup: self.setup.clone(),
            cleanup: self.cleanup.clone(),
            cpus: self.cpus.clone(),
            jobs,
        }
    }
}

fn process_metrics(o: &Outcome) -> Vec<ReportedMetric> {
    let m = |name: &str, unit: &str, value: f64| ReportedMetric {
        name: name.to_owned(),
        unit: unit.to_owned(),
        better: Better::Lower,
        value,
    };
    vec![
        m("wall", "s", o.wall_s),
        m("user", "s", o.usage.user_s),
        m("sys", "s", o.usage.sys_s),
        m("max_rss", "bytes", o.usage.max_rss_bytes as f64),
    ]
}

/// The samples of one finished child (see the module notes).
pub fn samples_of(def: &BenchDef, combo: &Combination, o: &Outcome) -> Vec<CommandSample> {
    let process = process_metrics(o);
    let to_sample = |conf: Configuration, name: String, rate, time_s, source: &str, extra| {
        let mut metrics = process.clone();
        metrics.extend(extra);
        CommandSample {
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
        }
    };
    if o.results.is_empty() {
        return vec![to_sample(
            matrix::configuration(combo, &[]),
            def.name.clone(),
            1.0 / o.wall_s,
            Some(o.wall_s),
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
                r.rate,
                r.time_s,
                match r.form {
                    LineForm::Node => "node",
                    LineForm::Json => "json",
                },
                r.metrics.clone(),
            )
        })
        .collect()
}

/// Adds the samples of a counted, `ok` job to `set`: the rate (with time) and every metric
/// (see [`crate::format::results::samples::add_command_samples`]).
pub fn add_to_set(set: &mut SampleSet, side: Side, run: u32, samples: &[CommandSample]) {
    crate::format::results::samples::add_command_samples(set, side, run, samples);
}

/// Receives a command run as it happens.
pub trait CommandObserver {
    /// A job is about to start.
    fn job_started(&mut self, _job: &Job, _what: &str) {}
    /// A job ended.
    ///
    /// # Errors
    /// An output error stops the run.
    fn job_finished(&mut self, record: &CommandJobRecord) -> std::io::Result<()>;
    /// A note for the user (setup/cleanup trouble).
    fn note(&mut self, _text: &str) {}
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

fn target_env(plan: &CommandPlan, t: &Target) -> Vec<(String, String)> {
    let mut env = plan.env.clone();
    env.push(("BENCHDIFF_SIDE".to_owned(), t.side.label().to_owned()));
    env.push((
        "BENCHDIFF_BIN".to_owned(),
        t.argv.first().cloned().unwrap_or_default(),
    ));
    env
}

/// Describes a failed helper command with its stderr tail.
pub fn helper_failure(what: &str, o: &Outcome, timeout: Option<Duration>) -> String {
    let mut s = format!(
        "{what} failed: {}",
        o.error(timeout).unwrap_or_else(|| "failed".to_owned())
    );
    for l in o.stderr_tail.iter().rev().take(12).rev() {
        s.push_str("\n  stderr | ");
        s.push_str(l);
    }
    s
}

/// Runs `jobs` of `plan` (from [`CommandPlan::schedule`]; `Job::file` indexes `instances`),
/// with setup before and cleanup after, reporting every job to `obs`.
pub fn execute(
    plan: &CommandPlan,
    instances: &[Instance],
    jobs: &[Job],
    fail_fast: bool,
    stop: &AtomicBool,
    obs: &mut dyn CommandObserver,
) -> CommandSummary {
    let mut summary = CommandSummary::default();
    let cpu_set = plan
        .cpus
        .as_deref()
        .and_then(|c| crate::run::affinity::CpuList::parse(c).ok())
        .map(|c| c.to_cpu_set());
    if let Some(setup) = &plan.setup {
        for t in &plan.targets {
            let o = command::run_shell(
                setup,
                &target_env(plan, t),
                t.cwd.clone(),
                plan.timeout,
                stop,
            );
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
    for job in jobs {
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            summary.interrupted = true;
            break;
        }
        let (Some(inst), Some(target)) = (
            instances.get(job.file),
            plan.targets.get(usize::from(job.side == Side::New)),
        ) else {
            continue;
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
            target.side,
            if warmup { "warm-up" } else { "run" },
            run + 1,
            if warmup { plan.warmup } else { plan.runs }
        );
        obs.job_started(job, &what);
        let mut env = target_env(plan, target);
        env.extend(def.env.iter().cloned());
        let mut record = CommandJobRecord {
            position: job.position,
            benchmark: def.name.clone(),
            combination: inst.combo.clone(),
            side: target.side,
            run,
            warmup,
            argv: Vec::new(),
            status: JobStatus::Ok,
            exit_code: None,
            signal: None,
            wall_s: f64::NAN,
            user_s: f64::NAN,
            sys_s: f64::NAN,
            max_rss_bytes: 0,
            samples: Vec::new(),
            error: None,
            stderr_tail: Vec::new(),
        };
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
                record.status = if o.interrupted {
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
                };
                Some(command::run_command(
                    &spec,
                    plan.timeout,
                    cpu_set.as_ref(),
                    stop,
                ))
            }
        };
        if let Some(o) = &outcome {
            record.exit_code = match o.status {
                Some(crate::run::child::rusage::ExitStatus::Exited(c)) => Some(c),
                _ => None,
            };
            record.signal = match o.status {
                Some(crate::run::child::rusage::ExitStatus::Signaled(s)) => Some(s),
                _ => None,
            };
            record.wall_s = o.wall_s;
            record.user_s = o.usage.user_s;
            record.sys_s = o.usage.sys_s;
            record.max_rss_bytes = o.usage.max_rss_bytes;
            match o.failure(plan.timeout) {
                None => {
                    if !warmup {
                        record.samples = samples_of(def, &inst.combo, o);
                    }
                }
                Some((status, error)) => {
                    record.status = status;
                    record.error = Some(error);
                    record.stderr_tail = o.stderr_tail.clone();
                }
            }
        }
        summary.jobs_run += 1;
        if let Err(e) = obs.job_finished(&record) {
            summary.output_error = Some(e);
            break;
        }
        if record.status == JobStatus::Interrupted {
            summary.interrupted = true;
            break;
        }
        if !record.ok() {
            summary.failed.push(format!(
                "{what}: {}",
                record.error.as_deref().unwrap_or("failed")
            ));
            if fail_fast {
                summary.stopped_by_fail_fast = true;
                break;
            }
        }
    }
    if let Some(cleanup) = &plan.cleanup {
        let calm = AtomicBool::new(false);
        for t in &plan.targets {
            let o = command::run_shell(
                cleanup,
                &target_env(plan, t),
                t.cwd.clone(),
                plan.timeout,
                &calm,
            );
            if !o.ok() {
                let msg = helper_failure(&format!("--cleanup for {}", t.side), &o, plan.timeout);
                obs.note(&msg);
                summary.failed.push(msg);
            }
        }
    }
    summary
}
