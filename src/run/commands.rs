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
use crate::run::child::command::{self, Outcome, Spec};
use crate::run::plan::matrix::{self, Combination, Matrix};
use crate::run::schedule::{self, Job, Order};
use crate::sample::{Better, Configuration, Sample, SampleSet, Side};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// One program under test (a side).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// `old` or `new` (single-target modes use `old`).
    pub side: String,
    /// As given (`gzip -1`, a path, or an artifact).
    pub label: String,
    /// The words every run starts with (program, then fixed arguments).
    pub argv: Vec<String>,
    /// Working folder of its runs (default: benchdiff's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Git revision it was built from, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
    /// That revision's commit id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

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
        command::build_argv(&target.argv, &def.template, &inst.combo, self.shell)
            .map_err(|e| format!("benchmark {:?}: {e}", def.name))
    }

    /// The header record of this plan.
    pub fn header(&self, started_unix_s: f64, jobs: usize) -> CommandRunHeader {
        CommandRunHeader {
            kind: "command-run".to_owned(),
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

/// A benchmark as recorded in the header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchHeader {
    /// Name.
    pub name: String,
    /// Argument template.
    pub template: String,
    /// Parameters and their values.
    pub params: Vec<matrix::Param>,
    /// Exclusions, each a list of `[key, value]`.
    pub exclusions: Vec<matrix::Exclusion>,
}

/// The first record of a command run's results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandRunHeader {
    /// Always `command-run`.
    #[serde(rename = "type")]
    pub kind: String,
    /// benchdiff version.
    pub benchdiff: String,
    /// Start, seconds since the Unix epoch.
    pub started_unix_s: f64,
    /// The targets, with git revisions and commit ids when built from git.
    pub targets: Vec<Target>,
    /// The benchmarks.
    pub benchmarks: Vec<BenchHeader>,
    /// Counted runs.
    pub runs: u32,
    /// Warm-up runs.
    pub warmup: u32,
    /// Order.
    pub order: Order,
    /// Seed.
    pub seed: u64,
    /// `--shell`.
    pub shell: bool,
    /// Timeout per job, seconds.
    pub timeout_s: Option<f64>,
    /// `--prepare`.
    pub prepare: Option<String>,
    /// `--setup`.
    pub setup: Option<String>,
    /// `--cleanup`.
    pub cleanup: Option<String>,
    /// CPU list.
    pub cpus: Option<String>,
    /// Jobs in the schedule.
    pub jobs: usize,
}

/// One sample of a command job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandSample {
    /// Benchmark name (`filename`).
    pub name: String,
    /// compare.js configuration text.
    pub configuration: String,
    /// Structured parameters, `[key, value]`.
    pub params: Vec<(String, serde_json::Value)>,
    /// Operations per second.
    pub rate: f64,
    /// Seconds (NaN when unknown; `null` in JSON).
    pub time_s: Option<f64>,
    /// `whole-process`, `node` or `json`.
    pub source: String,
    /// Metrics besides the rate (process metrics first).
    pub metrics: Vec<ReportedMetric>,
}

/// One finished command job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandJobRecord {
    /// Always `command-job`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Position in the schedule.
    pub position: u32,
    /// Benchmark name.
    pub benchmark: String,
    /// The combination, `[key, value]` texts.
    pub combination: Combination,
    /// `old` or `new`.
    pub side: String,
    /// Counted run index (for warm-ups: the warm-up index).
    pub run: u32,
    /// A warm-up run (no samples).
    pub warmup: bool,
    /// What was executed.
    pub argv: Vec<String>,
    /// `ok`, `failed`, `timeout` or `interrupted`.
    pub status: String,
    /// Exit code.
    pub exit_code: Option<i32>,
    /// Signal number.
    pub signal: Option<i32>,
    /// Wall seconds, spawn to reap.
    pub wall_s: f64,
    /// User CPU seconds.
    pub user_s: f64,
    /// System CPU seconds.
    pub sys_s: f64,
    /// Peak RSS, bytes.
    pub max_rss_bytes: u64,
    /// Samples (empty for warm-ups and failures).
    pub samples: Vec<CommandSample>,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Last stderr lines of a failed job.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
}

impl CommandJobRecord {
    /// The side as a [`Side`].
    pub fn side(&self) -> Side {
        Side::from_label(&self.side).unwrap_or(Side::Old)
    }

    /// True when it ended `ok`.
    pub fn ok(&self) -> bool {
        self.status == "ok"
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

/// Adds the samples of a counted, `ok` job to `set`: the rate (with time) and every metric.
pub fn add_to_set(set: &mut SampleSet, side: Side, run: u32, samples: &[CommandSample]) {
    set.mark_rounds_recorded(); // the runner's rounds ran old and new together
    for s in samples {
        let entries = s.params.clone();
        let conf = crate::format::node_ipc::configuration_from_entries(&entries)
            .unwrap_or_else(|_| Configuration::from_text(s.configuration.clone()));
        let id = set.intern_configuration(&s.name, &conf);
        let time_s = s.time_s.unwrap_or(f64::NAN);
        set.push(Sample {
            benchmark: id,
            side,
            metric: crate::sample::RATE,
            value: s.rate,
            time_s,
            run: Some(run),
        });
        for m in &s.metrics {
            let metric = set.intern_metric(&m.name, &m.unit, m.better);
            set.push(Sample {
                benchmark: id,
                side,
                metric,
                value: m.value,
                time_s,
                run: Some(run),
            });
        }
    }
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
    env.push(("BENCHDIFF_SIDE".to_owned(), t.side.clone()));
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
            kind: "command-job".to_owned(),
            position: job.position,
            benchmark: def.name.clone(),
            combination: inst.combo.clone(),
            side: target.side.clone(),
            run,
            warmup,
            argv: Vec::new(),
            status: "ok".to_owned(),
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
                    "interrupted"
                } else {
                    "failed"
                }
                .to_owned();
                record.error = Some(msg);
                None
            }
            (None, Err(e)) => {
                record.status = "failed".to_owned();
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
            if o.ok() {
                if !warmup {
                    record.samples = samples_of(def, &inst.combo, o);
                }
            } else {
                record.status = if o.interrupted {
                    "interrupted"
                } else if o.timed_out {
                    "timeout"
                } else {
                    "failed"
                }
                .to_owned();
                record.error = o.error(plan.timeout);
                record.stderr_tail = o.stderr_tail.clone();
            }
        }
        summary.jobs_run += 1;
        if let Err(e) = obs.job_finished(&record) {
            summary.output_error = Some(e);
            break;
        }
        if record.status == "interrupted" {
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

/// A command run's results file read back (for `benchdiff report` and `compare --resume`).
#[derive(Clone, Debug)]
pub struct CommandLoaded {
    /// Its plan (the `command-run` record, first line).
    pub header: CommandRunHeader,
    /// The `ok` job records (warm-ups included), the first one per schedule position, in
    /// file order.
    pub done: Vec<CommandJobRecord>,
    /// Lines that could not be read (e.g. one cut short by a kill), as `line N: why`.
    pub warnings: Vec<String>,
}

/// True when the first non-blank line of `text` (after a byte-order mark) is a `command-run`
/// record. A first line that does not parse (e.g. cut off by a sniffing window: a plan with
/// long parameter lists can exceed 64 KiB) is judged by how it starts, `{"type":"command-run"`,
/// which is how benchdiff writes it.
pub fn is_command_results(text: &str) -> bool {
    #[derive(Deserialize)]
    struct TypeOnly {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    let Some(first) = text
        .trim_start_matches('\u{feff}')
        .lines()
        .find(|l| !l.trim().is_empty())
    else {
        return false;
    };
    match serde_json::from_str::<TypeOnly>(first) {
        Ok(t) => t.kind.is_some_and(|k| k == "command-run"),
        Err(_) => {
            let start: String = first
                .chars()
                .filter(|c| !c.is_whitespace())
                .take(24)
                .collect();
            start.starts_with("{\"type\":\"command-run\"")
        }
    }
}

/// True when the file at `path` is a command run's results file (its first
/// [`crate::format::SNIFF_BYTES`] are read, not the whole file); false when it cannot
/// be read.
pub fn is_command_results_file(path: &std::path::Path) -> bool {
    std::fs::File::open(path).is_ok_and(|f| {
        let mut head = Vec::new();
        let limit = crate::format::SNIFF_BYTES as u64;
        std::io::Read::read_to_end(&mut std::io::Read::take(f, limit), &mut head).is_ok()
            && is_command_results(&String::from_utf8_lossy(&head))
    })
}

/// Reads the text of a command run's results file.
///
/// # Errors
/// `(line, message)` (1-based line) when the first record is not a readable `command-run`
/// record. Unreadable later lines become warnings.
pub fn load_results(text: &str) -> Result<CommandLoaded, (u64, String)> {
    load_results_from(text.as_bytes())
}

/// Reads a command run's results file from `input`, streamed line by line (lines over
/// [`crate::format::results::MAX_RECORD_BYTES`] are skipped with a warning, not loaded).
///
/// # Errors
/// As [`load_results`]; a read error is reported at the line it happened on.
pub fn load_results_from<R: std::io::BufRead>(input: R) -> Result<CommandLoaded, (u64, String)> {
    use crate::format::{Line, LineReader};
    let mut header: Option<CommandRunHeader> = None;
    let mut done = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut warnings = Vec::new();
    let mut lines =
        LineReader::with_limit(input, "results", crate::format::results::MAX_RECORD_BYTES);
    let mut last = 0u64;
    loop {
        let (n, line) = match lines.next_line() {
            Ok(Some(x)) => x,
            Ok(None) => break,
            Err(e) => return Err((last + 1, e.to_string())),
        };
        last = n;
        let line = match line {
            Line::Text(t) => t,
            other => {
                let why = other.problem().unwrap_or_default();
                if header.is_none() {
                    return Err((n, why));
                }
                warnings.push(format!("line {n}: {why}; ignored"));
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) if header.is_some() => {
                warnings.push(format!("line {n}: not a JSON record ({e}); ignored"));
                continue;
            }
            Err(e) => return Err((n, format!("not a JSON record: {e}"))),
        };
        let kind = value.get("type").and_then(|t| t.as_str()).unwrap_or("");
        match (kind, &header) {
            ("command-run", None) => match serde_json::from_value::<CommandRunHeader>(value) {
                Ok(h) => header = Some(h),
                Err(e) => return Err((n, format!("bad command-run record: {e}"))),
            },
            (_, None) => {
                return Err((
                    n,
                    "the first record is not a command-run record: not a benchdiff results \
                     file of command benchmarks"
                        .to_owned(),
                ));
            }
            ("command-run", Some(_)) => {
                warnings.push(format!("line {n}: a second command-run record; ignored"));
            }
            ("command-job", Some(_)) => match serde_json::from_value::<CommandJobRecord>(value) {
                Ok(j) => {
                    if j.ok() && seen.insert(j.position) {
                        done.push(j);
                    }
                }
                Err(e) => warnings.push(format!("line {n}: bad command-job record ({e}); ignored")),
            },
            _ => {}
        }
    }
    let header = header.ok_or((
        1,
        "empty: no command-run record (not a benchdiff results file)".to_owned(),
    ))?;
    Ok(CommandLoaded {
        header,
        done,
        warnings,
    })
}
