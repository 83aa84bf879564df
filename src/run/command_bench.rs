//! Command benchmarks (any program, `compare --bench …` / `--suite FILE` / `--old-rev …`, and
//! `run` and `sweep`): building a [`CommandPlan`] from the options and suite files (running
//! builds first, [`make_plan`]), executing it with a results file, compare.js CSV and progress
//! ([`execute`], [`execute_with`]), and `compare`'s whole run ([`compare`]). The jobs
//! themselves run in [`super::command_run`].

use super::adaptive::{DecideRule, Rule};
use super::clock::{default_results_path, default_seed, now_unix_s};
use super::command_run::{self, BenchDef, CommandJobRecord, CommandPlan, CommandSummary, Target};
use super::ending::{Ended, RunReport, Stop};
use super::options::{DEFAULT_RUNS, JobOptions, MAX_JOBS, Streams, timeout_duration};
use super::outcome::Outcome;
use super::plan::argv::split_words;
pub use super::plan::command::{PlanError, Prepared};
use super::plan::command::{git_targets, parse_env, run_build, target_from_text};
use super::plan::matrix::Matrix;
use super::plan::suite;
use super::schedule::{Job, Order};
use super::shard::{ShardPlan, ShardRun};
use super::signals::{INTERRUPTED, SignalGuard};
use crate::format::node_csv::write::{Cells, CsvWriter};
use crate::format::results::{Record, ResultsWriter, UnusedSamples};
use crate::sample::{SampleSet, Side};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The command benchmarks asked for: `--bench` templates and names, `-L` lists, `--skip`,
/// the run hooks, a suite file, git builds (the options of `compare`, `run` and `sweep`).
#[derive(Clone, Debug, Default)]
pub struct CommandSpec {
    /// Argument templates after the program, with `{key}` placeholders.
    pub bench: Vec<String>,
    /// The names of the `bench` entries at the same positions.
    pub name: Vec<String>,
    /// `KEY=V1,V2,…` parameter lists.
    pub list: Vec<String>,
    /// `KEY=V[,KEY=V…]`: combinations left out.
    pub skip: Vec<String>,
    /// Run each command through `sh -c`.
    pub shell: bool,
    /// Uncounted runs per binary and configuration before the counted ones.
    pub warmup: Option<u32>,
    /// Shell command run before every run (not timed).
    pub prepare: Option<String>,
    /// Shell command run once per binary before its first run.
    pub setup: Option<String>,
    /// Shell command run once per binary after its last run.
    pub cleanup: Option<String>,
    /// `KEY=VALUE` environment variables for every run.
    pub env: Vec<String>,
    /// A suite file (benchdiff.toml).
    pub suite: Option<PathBuf>,
    /// Build the old binary from this git revision.
    pub old_rev: Option<String>,
    /// Build the new binary from this git revision.
    pub new_rev: Option<String>,
    /// Build command run in each revision's worktree.
    pub build: Option<String>,
    /// The program inside the worktree after the build.
    pub artifact: Option<String>,
}

impl CommandSpec {
    /// True when these options ask for command benchmarks (`--bench`, `--suite` or
    /// `--old-rev`).
    pub fn active(&self) -> bool {
        !self.bench.is_empty() || self.suite.is_some() || self.old_rev.is_some()
    }
}

/// The file name of a program given as `--old`/`--new`/`--bin` (its first word), e.g.
/// `./build/node --flag` → `node`.
fn program_name(program: &str) -> String {
    let first = split_words(program)
        .ok()
        .and_then(|w| w.into_iter().next())
        .unwrap_or_default();
    std::path::Path::new(&first)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or(first)
}

/// The run options of `compare`, `run` and `sweep` that command benchmarks share with Node
/// files (`None`: the suite's value, else the default).
#[derive(Debug, Clone, Default)]
pub struct Common {
    /// The old program and fixed arguments (`compare`).
    pub old: Option<String>,
    /// The new program and fixed arguments (`compare`).
    pub new: Option<String>,
    /// Counted runs per binary and configuration.
    pub runs: Option<u32>,
    /// How every job runs (`set`: `KEY=V` replaces a parameter's values by one value).
    pub jobs: JobOptions,
    /// Job order.
    pub order: Option<Order>,
    /// Stop at the first failed job.
    pub fail_fast: bool,
    /// `--fail-on-error` (compare's default): failed jobs make the exit code 1.
    pub fail_on_error: bool,
    /// The CSV file (`-`: stdout).
    pub csv: Option<PathBuf>,
    /// The results file.
    pub results: Option<PathBuf>,
    /// No progress bar.
    pub no_progress: bool,
    /// Node-only options that were given (an error in command mode).
    pub node_only: Vec<&'static str>,
    /// `--runs auto`: the run limits and, under `--stop decided`, its settings (`runs` is
    /// then `--max-runs`).
    pub auto: Option<(Rule, Option<DecideRule>)>,
    /// `--control`: every (configuration, run) also runs the old target as [`Side::Control`].
    pub control: bool,
}

/// Builds the plan of a command-benchmark run. `sides` is 2 for `compare`, 1 for `run` and
/// `sweep` (`single`: their `--bin`; with a suite, its `[new]` side is used). Builds run
/// first, their output going to `stderr`.
///
/// # Errors
/// [`PlanError::Usage`] for bad options or suite files, [`PlanError::Build`] when a build
/// fails.
pub fn make_plan(
    common: &Common,
    cmd: &CommandSpec,
    sides: usize,
    single: Option<&str>,
    stderr: &mut dyn Write,
) -> Result<Prepared, PlanError> {
    let u = PlanError::Usage;
    if let Some(o) = common.node_only.first() {
        return Err(u(format!(
            "{o} applies to Node benchmark files, not to command benchmarks"
        )));
    }
    // What is missing to measure the counters is said before anything is built or run.
    let measure = match &common.jobs.measure {
        Some(list) => {
            let m = crate::run::child::counters::measure_for(list).map_err(u)?;
            let _ = writeln!(stderr, "benchdiff: {}", m.note());
            m
        }
        None => crate::run::child::counters::Measure::default(),
    };
    let cwd = std::env::current_dir().map_err(|e| u(e.to_string()))?;
    let loaded = match &cmd.suite {
        Some(p) => Some(suite::load(p).map_err(u)?),
        None => None,
    };
    let st = loaded.as_ref().map(|s| &s.toml);
    let base = loaded.as_ref().map_or(cwd.clone(), |s| s.dir.clone());

    // Benchmarks: the suite's, then each --bench with the -L matrix restricted to its keys.
    let mut benchmarks: Vec<BenchDef> = Vec::new();
    if let Some(s) = &loaded {
        for b in &s.benchmarks {
            benchmarks.push(BenchDef {
                name: b.name.clone(),
                template: b.args.clone(),
                matrix: b.matrix.clone(),
                env: b.env.clone(),
                prepare: b.prepare.clone(),
            });
        }
    }
    let mut global = Matrix::default();
    for l in &cmd.list {
        global.add_list(l).map_err(u)?;
    }
    for s in &cmd.skip {
        global.add_exclusion_text(s).map_err(u)?;
    }
    global.check_exclusions().map_err(u)?;
    let mut used_keys: Vec<String> = Vec::new();
    if cmd.name.len() > cmd.bench.len() {
        return Err(u(format!(
            "{} --name given for {} --bench",
            cmd.name.len(),
            cmd.bench.len()
        )));
    }
    let program = match single {
        Some(b) => Some(b.to_owned()),
        None => common.old.clone().filter(|o| {
            common
                .new
                .as_ref()
                .is_some_and(|n| program_name(n) == program_name(o))
        }),
    }
    .map(|p| program_name(&p))
    .filter(|p| !p.is_empty());
    for (i, t) in cmd.bench.iter().enumerate() {
        split_words(t).map_err(|e| u(format!("--bench {e}")))?;
        let keys = super::plan::argv::placeholders(t);
        for k in &keys {
            if !global.params.iter().any(|p| &p.key == k) {
                return Err(u(format!(
                    "--bench {t:?} uses {{{k}}} but no -L {k}=… gives its values"
                )));
            }
        }
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        used_keys.extend(keys.iter().cloned());
        benchmarks.push(BenchDef {
            name: match (cmd.name.get(i), &program) {
                (Some(n), _) => n.clone(),
                (None, Some(p)) if cmd.bench.len() == 1 => p.clone(),
                (None, Some(p)) if !t.trim().is_empty() => format!("{p} {}", t.trim()),
                (None, Some(p)) => p.clone(),
                (None, None) if t.trim().is_empty() => suite::default_bench_name(t),
                (None, None) => t.trim().to_owned(),
            },
            template: t.clone(),
            matrix: global.restrict(&refs),
            env: Vec::new(),
            prepare: None,
        });
    }
    for p in &global.params {
        if !used_keys.contains(&p.key) {
            return Err(u(format!("-L {}: no --bench uses {{{}}}", p.key, p.key)));
        }
    }
    if benchmarks.is_empty() {
        return Err(u(
            "no command benchmarks: give --bench ARGS (or a --suite with [[benchmark]] entries)"
                .to_owned(),
        ));
    }
    for s in &common.jobs.set {
        let (k, _) = s
            .split_once('=')
            .ok_or_else(|| u(format!("--set {s:?}: expected KEY=VALUE")))?;
        let mut hit = false;
        for b in &mut benchmarks {
            if b.matrix.params.iter().any(|p| p.key == k) {
                b.matrix.set(s).map_err(u)?;
                hit = true;
            }
        }
        if !hit {
            return Err(u(format!("--set {s}: no benchmark has a parameter {k:?}")));
        }
    }

    // Targets: command line, suite sides, or git.
    let mut checkouts = Vec::new();
    let targets: Vec<Target> = if sides == 1 {
        let text = match (single, st.and_then(|s| s.new.as_ref())) {
            (Some(t), _) => t.to_owned(),
            (None, Some(n)) => {
                if let Some(b) = &n.build {
                    run_build("new", b, &base, stderr)?;
                }
                n.command.clone()
            }
            (None, None) => return Err(u("--bin BIN is required".to_owned())),
        };
        vec![target_from_text(Side::Old, "--bin", &text, &base).map_err(u)?]
    } else if let (Some(o), Some(n)) = (&cmd.old_rev, &cmd.new_rev) {
        let (b, a) = (
            cmd.build.as_deref().unwrap_or_default(),
            cmd.artifact.as_deref().unwrap_or_default(),
        );
        let (t, c) = git_targets(&cwd, o, n, b, a, common.old.as_deref(), stderr)?;
        checkouts = c;
        t
    } else if let (Some(o), Some(n)) = (&common.old, &common.new) {
        vec![
            target_from_text(Side::Old, "--old", o, &cwd).map_err(u)?,
            target_from_text(Side::New, "--new", n, &cwd).map_err(u)?,
        ]
    } else if let Some(g) = st.and_then(|s| s.git.as_ref()) {
        let repo = g.repo.as_ref().map_or(base.clone(), |r| base.join(r));
        let (t, c) = git_targets(
            &repo,
            &g.old,
            &g.new,
            &g.build,
            &g.artifact,
            g.args.as_deref(),
            stderr,
        )?;
        checkouts = c;
        t
    } else if let (Some(o), Some(n)) = (
        st.and_then(|s| s.old.as_ref()),
        st.and_then(|s| s.new.as_ref()),
    ) {
        for (label, side) in [("old", o), ("new", n)] {
            if let Some(b) = &side.build {
                run_build(label, b, &base, stderr)?;
            }
        }
        let mut t = vec![
            target_from_text(Side::Old, "[old] command", &o.command, &base).map_err(u)?,
            target_from_text(Side::New, "[new] command", &n.command, &base).map_err(u)?,
        ];
        for x in &mut t {
            x.cwd = Some(base.clone());
        }
        t
    } else {
        return Err(u(
            "--old BIN and --new BIN are required (or --old-rev/--new-rev, or a --suite)"
                .to_owned(),
        ));
    };

    let mut env = match st {
        Some(s) => suite::env_of(&s.env).map_err(u)?,
        None => Vec::new(),
    };
    env.extend(parse_env(&cmd.env).map_err(u)?);
    let order = match (common.order, st.and_then(|s| s.order.as_deref())) {
        (Some(o), _) => o,
        (None, Some(o)) => suite::order_of(o).map_err(u)?,
        (None, None) => Order::Random,
    };
    if let Some(c) = &common.jobs.cpus {
        super::affinity::CpuList::parse(c).map_err(|e| u(e.to_string()))?;
    }
    let timeout = match (common.jobs.timeout, st.and_then(|s| s.timeout)) {
        (Some(t), _) => Some(timeout_duration("--timeout", t).map_err(u)?),
        (None, Some(t)) => Some(timeout_duration("suite timeout", t).map_err(u)?),
        (None, None) => None,
    };
    let runs = common
        .runs
        .or(st.and_then(|s| s.runs))
        .unwrap_or(if sides == 1 { 1 } else { DEFAULT_RUNS });
    let warmup = cmd.warmup.or(st.and_then(|s| s.warmup)).unwrap_or(0);
    if runs == 0 {
        return Err(u("--runs 0: at least 1 run is needed".to_owned()));
    }
    if runs > suite::MAX_RUNS || warmup > suite::MAX_RUNS {
        return Err(u(format!(
            "--runs {runs} / --warmup {warmup}: each may be at most {}",
            suite::MAX_RUNS
        )));
    }
    let configurations: usize = benchmarks
        .iter()
        .map(|b| b.matrix.combinations().len())
        .sum();
    if configurations == 0 {
        return Err(u(
            "no benchmarks to run: every combination is left out (check --skip / exclude)"
                .to_owned(),
        ));
    }
    if common.control && targets.len() < 2 {
        return Err(u("--control needs an old and a new target".to_owned()));
    }
    let per_run = targets.len() + usize::from(common.control);
    let jobs = (configurations as u128) * u128::from(runs + warmup) * per_run as u128;
    if jobs > MAX_JOBS as u128 {
        return Err(u(format!(
            "{configurations} configuration(s) x {} binar{} x ({runs} run(s) + {warmup} warm-up) = \
             {jobs} jobs: more than the {MAX_JOBS} a run may have",
            targets.len(),
            if targets.len() == 1 { "y" } else { "ies" },
        )));
    }
    let plan = CommandPlan {
        targets,
        benchmarks,
        runs,
        warmup,
        order,
        seed: (common.jobs.seed)
            .or(st.and_then(|s| s.seed))
            .unwrap_or_else(default_seed),
        shell: cmd.shell || st.is_some_and(|s| s.shell),
        env,
        timeout,
        prepare: cmd.prepare.clone().or(st.and_then(|s| s.prepare.clone())),
        setup: cmd.setup.clone().or(st.and_then(|s| s.setup.clone())),
        cleanup: cmd.cleanup.clone().or(st.and_then(|s| s.cleanup.clone())),
        cpus: common.jobs.cpus.clone(),
        measure,
        control: common.control,
    };
    Ok(Prepared {
        plan,
        _checkouts: checkouts,
    })
}

/// What a finished run produced.
pub struct Finished {
    /// The samples of the counted jobs that ended `ok`.
    pub set: SampleSet,
    /// How the run ended.
    pub summary: CommandSummary,
    /// The results file, when one was written.
    pub results_path: Option<PathBuf>,
    /// Samples of jobs that did not end `ok`: left out of the report, noted per row.
    pub unused: UnusedSamples,
    /// `--runs auto`: what the run did, for the closing summary.
    pub outcome: Option<Outcome>,
}

impl Finished {
    /// How the run ended: a failed setup (exit 1, nothing else said), an output error (exit
    /// 2), failed jobs (exit 1 when `fail_on_error`), an interrupt (exit 130); the
    /// `--runs auto` summary after the report. No report.
    pub fn ended(&self, fail_on_error: bool) -> Ended {
        let s = &self.summary;
        let mut ended = Ended {
            lines: Vec::new(),
            report: None,
            after: (self.outcome.as_ref()).map_or_else(String::new, |o| o.summary_text()),
            code: 0,
            interrupted: false,
            signals: None,
        };
        if let Some(e) = &s.setup_failed {
            ended.lines.push(format!("benchdiff: {e}"));
            ended.code = crate::report::EXIT_FAILED;
            return ended;
        }
        if let Some(e) = &s.output_error {
            ended.lines.push(super::ending::output_error_line(e));
            ended.code = crate::report::EXIT_USAGE;
        }
        if !s.failed.is_empty() {
            let where_ = (self.results_path.as_ref())
                .map(|p| format!("; details in {}", p.display()))
                .unwrap_or_default();
            (ended.lines).push(super::ending::failed_line(
                s.failed.len(),
                s.jobs_run,
                s.stopped_by_fail_fast,
                &where_,
            ));
            if fail_on_error {
                ended.code = ended.code.max(crate::report::EXIT_FAILED);
            }
        }
        if s.interrupted {
            (ended.lines).push(format!(
                "benchdiff: interrupted after {} job(s)",
                s.jobs_run
            ));
            ended.interrupted = true;
        }
        ended
    }

    /// The failed and missing jobs recorded in the results file, for the report; none without
    /// a results file or when it cannot be read (the run has said so).
    pub fn failures(&self) -> crate::compare::failures::Failures {
        super::ending::recorded_failures(self.results_path.as_deref())
    }
}

struct Obs<'a, 'e> {
    set: SampleSet,
    csv: Option<CsvWriter<Box<dyn Write + 'a>>>,
    results: Option<ResultsWriter>,
    bar: Option<indicatif::ProgressBar>,
    echo: Option<&'a mut dyn Write>,
    stderr_lines: Vec<String>,
    unused: UnusedSamples,
    /// The machine checks until their busy-process window has closed and they are written.
    machine: Option<super::machine::PendingCheck>,
    /// Where the machine lines go (the run's stderr).
    err: &'e mut dyn Write,
    /// A failure to write the machine record when a job started, reported when it ends.
    machine_error: Option<std::io::Error>,
}

impl Obs<'_, '_> {
    /// Once the machine checks' busy-process window has closed (or at once with `wait`):
    /// writes the `machine` record to the results file and its lines to stderr (above the
    /// progress bar). Nothing when already done.
    fn flush_machine(&mut self, wait: bool) -> std::io::Result<()> {
        if !wait && self.machine.as_ref().is_none_or(|m| !m.ready()) {
            return Ok(());
        }
        let Some(pending) = self.machine.take() else {
            return Ok(());
        };
        let machine = pending.finish();
        if let Some(w) = &mut self.results {
            w.write(&Record::Machine(machine.clone()))?;
        }
        let text = machine.render();
        match &self.bar {
            Some(b) => {
                for l in text.lines() {
                    b.println(l);
                }
            }
            None => write!(self.err, "{text}")?,
        }
        Ok(())
    }
}

impl super::Observer for Obs<'_, '_> {
    fn job_started(&mut self, _job: &Job, what: &str) {
        // The window closes while the first jobs run: print it before a long job, not after.
        if let Err(e) = self.flush_machine(false) {
            self.machine_error = Some(e);
        }
        if let Some(b) = &self.bar {
            b.set_message(what.to_owned());
        }
    }

    fn command_job_finished(&mut self, r: &CommandJobRecord) -> std::io::Result<()> {
        if let Some(e) = self.machine_error.take() {
            return Err(e);
        }
        self.flush_machine(false)?;
        if let Some(w) = &mut self.results {
            w.write(&Record::CommandJob(r.clone()))?;
        }
        self.unused.add_command(r);
        if r.ok() && !r.warmup {
            command_run::add_to_set(&mut self.set, r);
            // The job's counters (its own measurements), in the order they were measured.
            let counters: Vec<&crate::format::result_lines::ReportedMetric> = (r.metrics.iter())
                .flatten()
                .filter(|m| crate::run::child::counters::is_counter_name(&m.name))
                .collect();
            for s in &r.samples {
                if let Some(csv) = &mut self.csv {
                    let time = s
                        .time_s
                        .filter(|t| t.is_finite())
                        .map_or_else(|| "NA".to_owned(), |t| format!("{t:.9}"));
                    // The counters' columns, in the header's order (`with_columns`): the job's
                    // counters on each of its rows.
                    let extra: Vec<Option<f64>> = counters
                        .iter()
                        .map(|m| Some(m.value))
                        .take(csv.extra_columns())
                        .collect();
                    csv.row_with(r.side, &s.name, &s.configuration, s.rate, &time, &extra)?;
                }
                if let Some(e) = &mut self.echo {
                    // The rate, or under valgrind (no rate) the counters.
                    let figure = if s.rate.is_nan() {
                        counters
                            .iter()
                            .map(|m| {
                                format!("{} {}", m.name, crate::format::inspect::js_number(m.value))
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    } else {
                        crate::format::inspect::js_number(s.rate)
                    };
                    writeln!(
                        e,
                        "{}{}{}: {figure}",
                        s.name,
                        if s.configuration.is_empty() { "" } else { " " },
                        s.configuration,
                    )?;
                    e.flush()?;
                }
            }
        }
        if !r.ok() && r.status != crate::format::results::JobStatus::Interrupted {
            let combo = r
                .combination
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ");
            let mut text = format!(
                "benchdiff: job failed: {}{}{} ({}, run {}{}): {}",
                crate::render::escape_control(&r.benchmark),
                if combo.is_empty() { "" } else { " " },
                crate::render::escape_control(&combo),
                r.side,
                r.run + 1,
                if r.warmup { ", warm-up" } else { "" },
                r.error.as_deref().unwrap_or("failed")
            );
            for l in r.stderr_tail.iter().rev().take(12).rev() {
                text.push_str("\n  stderr | ");
                text.push_str(&crate::render::escape_control(l));
            }
            self.stderr_lines.push(text);
        }
        if let Some(b) = &self.bar {
            b.inc(1);
        }
        Ok(())
    }

    fn note(&mut self, text: &str) {
        self.stderr_lines.push(format!("benchdiff: {text}"));
    }
}

/// Where a run's outputs go.
pub struct Outputs<'a> {
    /// compare.js CSV sink.
    pub csv: Option<Box<dyn Write + 'a>>,
    /// Results file path (`None`: none written).
    pub results: Option<PathBuf>,
    /// Print every sample as a Node result line here (`run`).
    pub echo: Option<&'a mut dyn Write>,
    /// Draw a progress bar on stderr.
    pub progress: bool,
}

/// Executes a plan: results file (header first), jobs, CSV rows, failures on stderr.
///
/// # Errors
/// The results file cannot be created, or stderr cannot be written.
pub fn execute(
    plan: &CommandPlan,
    fail_fast: bool,
    out: Outputs<'_>,
    stderr: &mut dyn Write,
) -> std::io::Result<Result<Finished, String>> {
    execute_with(plan, None, None, fail_fast, out, stderr)
}

/// [`execute`] under `--runs auto` when `auto` is given (the plan's `runs` is then
/// `--max-runs`: [`super::sequential::CommandAuto`] picks each round's jobs), and of one
/// shard of the plan when `shard` is given (`--shard K/N`: its record follows the plan
/// record, and only its jobs run).
///
/// # Errors
/// As [`execute`].
pub fn execute_with(
    plan: &CommandPlan,
    auto: Option<&(Rule, Option<DecideRule>)>,
    shard: Option<&ShardRun>,
    fail_fast: bool,
    out: Outputs<'_>,
    stderr: &mut dyn Write,
) -> std::io::Result<Result<Finished, String>> {
    let instances = plan.instances();
    let full = plan.schedule(instances.len());
    let jobs = match shard {
        Some(s) => super::shard::slice(&full, &s.assignment, plan.warmup),
        None => full.clone(),
    };
    let mut results = match &out.results {
        Some(p) => match ResultsWriter::create(p) {
            Ok(w) => Some(w),
            Err(e) => return Ok(Err(e.to_string())),
        },
        None => None,
    };
    // Machine checks (governor, turbo, load, pinning …), printed and recorded as for Node
    // files. The busy-process window stays open while the first jobs run (its children are
    // left out of it): the `machine` record and lines follow when it closes.
    let cpus = plan
        .cpus
        .as_deref()
        .and_then(|c| super::affinity::CpuList::parse(c).ok());
    let machine = super::machine::check_pending(cpus.as_ref());
    if let Some(w) = &mut results {
        let written = w
            .write(&Record::CommandRun(command_run::CommandRunHeader {
                adaptive: auto.map(|a| a.0),
                decided: auto.and_then(|a| a.1),
                ..plan.header(now_unix_s(), full.len())
            }))
            .and_then(|()| match shard {
                Some(s) => w.write(&Record::Shard(s.record.clone())),
                None => Ok(()),
            });
        if let Err(e) = written {
            return Ok(Err(format!("results file {}: {e}", w.path().display())));
        }
    }
    if let Some(w) = &results {
        writeln!(stderr, "benchdiff: results file: {}", w.path().display())?;
    }
    writeln!(
        stderr,
        "benchdiff: {} configuration(s) x {} binar{}{} x ({} run(s){}) = {} jobs, order {}{}",
        instances.len(),
        plan.targets.len(),
        if plan.targets.len() == 1 { "y" } else { "ies" },
        if plan.control {
            " + control (old again)"
        } else {
            ""
        },
        plan.runs,
        if plan.warmup > 0 {
            format!(" + {} warm-up", plan.warmup)
        } else {
            String::new()
        },
        jobs.len(),
        match plan.order {
            Order::Node => "node".to_owned(),
            Order::Random => format!("random, seed {}", plan.seed),
        },
        if plan.shell { ", through sh -c" } else { "" }
    )?;
    if let Some(s) = shard {
        writeln!(stderr, "{}", super::shard::describe(s, full.len()))?;
    }
    let counter_names: Vec<&str> = plan.measure.counters().iter().map(|c| c.name()).collect();
    let csv = match out.csv {
        Some(w) => Some(CsvWriter::with_columns(
            w,
            &counter_names,
            Cells::SpreadsheetSafe,
        )?),
        None => None,
    };
    let bar = out.progress.then(|| super::options::job_bar(jobs.len()));
    let mut obs = Obs {
        set: SampleSet::new(),
        csv,
        results,
        bar,
        echo: out.echo,
        stderr_lines: Vec::new(),
        unused: UnusedSamples::default(),
        machine: Some(machine),
        err: &mut *stderr,
        machine_error: None,
    };
    let mut outcome = None;
    let summary = {
        let _guard = SignalGuard::install();
        match auto {
            None => {
                command_run::execute(plan, &instances, &jobs, fail_fast, &INTERRUPTED, &mut obs)
            }
            Some((rule, decided)) => {
                use super::sequential::{CommandAuto, Decider, StopRule};
                let stop_rule = match decided {
                    Some(d) => {
                        StopRule::Decided(*rule, Decider::new(*d, rule.min_runs, rule.max_runs))
                    }
                    None => StopRule::Precision(*rule),
                };
                let mut policy =
                    CommandAuto::new(stop_rule, jobs.clone(), instances.len(), plan.warmup);
                let s = command_run::execute_policy(
                    plan,
                    &instances,
                    &mut policy,
                    fail_fast,
                    &INTERRUPTED,
                    &mut obs,
                );
                outcome = Some(policy.outcome(s.jobs_run));
                s
            }
        }
    };
    // A run shorter than the busy-process window: its machine record and lines now.
    let mut summary = summary;
    let flushed = match obs.machine_error.take() {
        Some(e) => Err(e),
        None => obs.flush_machine(true),
    };
    if let Err(e) = flushed
        && summary.output_error.is_none()
    {
        summary.output_error = Some(e);
    }
    let Obs {
        set,
        results,
        bar,
        stderr_lines,
        unused,
        ..
    } = obs;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    for l in &stderr_lines {
        writeln!(stderr, "{l}")?;
    }
    Ok(Ok(Finished {
        set,
        results_path: results.as_ref().map(|w| w.path().to_path_buf()),
        unused,
        summary,
        outcome,
    }))
}

/// Checks the outputs of `run` and `sweep` before anything runs: the `results` file and a
/// `plot` file against each other and the inputs, `--bin` (when it names a file) and the
/// `suite` file ([`crate::output::check`]; an existing results file is
/// refused: these commands have no `--force`).
///
/// # Errors
/// A message naming the option and the file.
pub fn check_single_outputs(
    results: Option<&Path>,
    plot: Option<&Path>,
    bin: Option<&str>,
    suite: Option<&Path>,
) -> Result<(), String> {
    use crate::output::{Input, Output, Use};
    let mut outs = crate::report::outputs(None, plot)?;
    if let Some(p) = results {
        outs.push(Output::new("--results", p, Use::Create).making_folder());
    }
    let inputs: Vec<Input<'_>> = [
        ("--bin binary", bin.map(Path::new)),
        ("--suite file", suite),
    ]
    .into_iter()
    .filter_map(|(o, p)| p.map(|p| Input::new(o, p)))
    .collect();
    crate::output::check(&inputs, &outs, false)
}

/// What `run` and `sweep` run: one build's command benchmarks.
#[derive(Clone, Debug, Default)]
pub struct SinglePlan {
    /// The program and fixed arguments (`None`: a suite's `[new]` side, built).
    pub bin: Option<String>,
    /// The run options (`old`, `new`, `csv`, `auto` and `no_progress` do not apply).
    pub common: Common,
    /// The command benchmarks.
    pub command: CommandSpec,
}

impl SinglePlan {
    /// Checks the results file and a `plot` file before anything runs
    /// ([`check_single_outputs`]).
    ///
    /// # Errors
    /// The message to print (exit 2).
    pub fn check_outputs(&self, plot: Option<&Path>) -> Result<(), String> {
        let (results, suite) = (
            self.common.results.as_deref(),
            self.command.suite.as_deref(),
        );
        check_single_outputs(results, plot, self.bin.as_deref(), suite)
    }

    /// Where `run` writes its results file: `--results`, else, when the file is to be `kept`
    /// (`--history` stores it after the run), `run.results.jsonl` in a new temporary folder,
    /// returned too: the file lives as long as the folder.
    ///
    /// # Errors
    /// The temporary folder cannot be created.
    pub fn results_file(
        &self,
        kept: bool,
    ) -> std::io::Result<(Option<PathBuf>, Option<tempfile::TempDir>)> {
        let scratch = match &self.common.results {
            None if kept => Some(tempfile::tempdir()?),
            _ => None,
        };
        let path = (self.common.results.clone())
            .or_else(|| scratch.as_ref().map(|d| d.path().join("run.results.jsonl")));
        Ok((path, scratch))
    }

    /// Builds the plan ([`make_plan`] of one side; builds first, their output to `stderr`).
    ///
    /// # Errors
    /// Why not, with its exit code (`--old-rev` belongs to `compare`).
    pub fn prepare(&self, stderr: &mut dyn Write) -> Result<Prepared, Stop> {
        let common = Common {
            no_progress: true,
            node_only: if self.command.old_rev.is_some() {
                vec!["--old-rev/--new-rev (compare only)"]
            } else {
                Vec::new()
            },
            ..self.common.clone()
        };
        make_plan(&common, &self.command, 1, self.bin.as_deref(), stderr).map_err(Stop::from)
    }
}

/// What [`compare`] ran: the finished run, and whether the report should follow (the CSV did
/// not go to stdout, and stdout is a terminal or the CSV went to a file).
pub struct Compared {
    /// The samples, failures and summary of the run.
    pub finished: Finished,
    /// The report should follow.
    pub want_report: bool,
    /// The Ctrl-C guard of the run, still installed: keep it until the partial report is
    /// written, so a second SIGINT (GNU `timeout -s INT` sends two) does not cut it off.
    pub signals: SignalGuard,
}

impl Compared {
    /// How the run ended ([`Finished::ended`]), with the report's samples when it should
    /// follow (not after a failed setup).
    pub fn ended(self, fail_on_error: bool) -> Ended {
        let f = self.finished;
        let mut ended = f.ended(fail_on_error);
        if self.want_report && f.summary.setup_failed.is_none() {
            let report = RunReport {
                failures: f.failures(),
                settled: (f.outcome.as_ref()).map_or_else(Vec::new, |o| o.settled_rows.clone()),
                run: None,
                set: f.set,
            };
            ended = ended.with_report(f.unused.notes(), report);
        }
        ended.signals = Some(self.signals);
        ended
    }
}

/// `compare` with command benchmarks: plan, builds, runs, CSV (to `out.stdout` when it is not
/// a terminal, or to `--csv FILE`) and results file; with `shard`, only that shard of the
/// plan. Build output, the `--stop decided` rule, the plan line and failed jobs go to
/// `out.log`.
///
/// # Errors
/// Outer: `out` cannot be written. Inner: [`PlanError::Build`] when a build failed,
/// [`PlanError::Usage`] for bad options, a shard that cannot be prepared, or outputs that
/// cannot be created (a CSV created for the run is then removed).
pub fn compare(
    common: &Common,
    cmd: &CommandSpec,
    shard: Option<ShardPlan>,
    out: Streams<'_>,
) -> std::io::Result<Result<Compared, PlanError>> {
    let Streams {
        stdout,
        log: stderr,
        stdout_is_terminal,
        stderr_is_terminal,
    } = out;
    let mut prepared = match make_plan(common, cmd, 2, None, stderr) {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    let shard = match shard {
        Some(sp) => {
            // Without --seed (and a suite seed) every shard derives the same seed from the plan.
            let suite_seed = cmd
                .suite
                .as_ref()
                .and_then(|p| suite::load(p).ok())
                .and_then(|s| s.toml.seed);
            let given = common.jobs.seed.is_some() || suite_seed.is_some();
            match super::shard::command_shard(&sp, &mut prepared.plan, given) {
                Ok(s) => Some(s),
                Err(e) => return Ok(Err(PlanError::Usage(e))),
            }
        }
        None => None,
    };
    if let Some((rule, Some(d))) = &common.auto {
        writeln!(
            stderr,
            "{}",
            super::adaptive::decided_rule_line(d, rule.min_runs, rule.max_runs)
        )?;
    }
    let csv_to_stdout = match &common.csv {
        Some(p) => p.as_os_str() == "-",
        None => !stdout_is_terminal,
    };
    let csv_file = common.csv.as_ref().filter(|p| p.as_os_str() != "-");
    let want_report = !csv_to_stdout && (stdout_is_terminal || csv_file.is_some());
    let results = common
        .results
        .clone()
        .unwrap_or_else(|| default_results_path(common.csv.as_deref()));
    let progress = !common.no_progress && stderr_is_terminal;
    // Nothing at the path, not even a symlink: the CSV is new and is removed if no run happens.
    let csv_created = csv_file.filter(|p| std::fs::symlink_metadata(p).is_err() && !csv_to_stdout);
    let csv_sink: Option<Box<dyn Write + '_>> = if csv_to_stdout {
        Some(Box::new(stdout))
    } else if let Some(p) = csv_file {
        match std::fs::File::create(p) {
            Ok(f) => Some(Box::new(BufWriter::new(f))),
            Err(e) => return Ok(Err(PlanError::Usage(format!("--csv {}: {e}", p.display())))),
        }
    } else {
        None
    };
    // Installed until the partial report is written (it goes back in [`Compared::signals`]).
    let signals = SignalGuard::install();
    let finished = execute_with(
        &prepared.plan,
        common.auto.as_ref(),
        shard.as_ref(),
        common.fail_fast,
        Outputs {
            csv: csv_sink,
            results: Some(results),
            echo: None,
            progress,
        },
        stderr,
    )?;
    match finished {
        Ok(finished) => Ok(Ok(Compared {
            finished,
            want_report,
            signals,
        })),
        Err(e) => {
            // No run happened: leave no empty CSV behind.
            if let Some(p) = csv_created {
                let _ = std::fs::remove_file(p);
            }
            Ok(Err(PlanError::Usage(e)))
        }
    }
}
