//! `compare` of Node-format benchmark files under an old and a new binary, like Node's
//! `benchmark/compare.js` (spec §1): the plan from the options or a `--resume` file
//! ([`prepare`]), then the run ([`execute`]) that writes the compare.js CSV and the JSON Lines
//! results file and returns the samples for the report. Command benchmarks are
//! [`super::command_bench`].

use super::adaptive::{AutoOptions, DecideRule, Rule, Runs};
use super::clock::{default_results_path, now_unix_s};
use super::command_bench::{CommandSpec, Common};
use super::ending::{Ended, RunReport, Stop, recorded_failures};
use super::options::{DEFAULT_RUNS, JobOptions, MAX_JOBS, NodeFiles, Streams, timeout_duration};
use super::outcome::Outcome;
use super::schedule::{Job, Order};
use super::shard::{ShardRequest, ShardRun};
use super::signals::{INTERRUPTED, SignalGuard};
use super::{Observer, Plan, Report, RunOptions, RunnerError, Summary};
use crate::compare::failures::{FailureKind, Failures};
use crate::format::node_csv::write::{Cells, CsvWriter};
use crate::format::results::{
    self, JobRecord, JobStatus, Record, ResultsWriter, ResumeMark, RunHeader, UnusedSamples,
};
use crate::render::RunInfo;
use crate::sample::{SampleSet, Side};
use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How many of a failed job's last stderr lines are echoed (the results file keeps more).
const STDERR_LINES_SHOWN: usize = 12;

/// Everything `benchdiff compare` was asked (built from its options): Node files under an
/// old and a new binary, or command benchmarks when [`CommandSpec::active`].
#[derive(Clone, Debug)]
pub struct ComparePlan {
    /// The baseline binary (a path, or a name looked up in PATH; a command with command
    /// benchmarks).
    pub old: Option<PathBuf>,
    /// The candidate binary.
    pub new: Option<PathBuf>,
    /// Runs per binary and file: a count, or `auto` within `auto`'s limits.
    pub runs: Runs,
    /// The settings of `--runs auto`.
    pub auto: AutoOptions,
    /// The report's `--threshold` in percent (`--stop decided` decides against it).
    pub threshold_pct: f64,
    /// The Node files that run.
    pub files: NodeFiles,
    /// How every job runs.
    pub jobs: JobOptions,
    /// Job order.
    pub order: Order,
    /// Stop at the first failed job.
    pub fail_fast: bool,
    /// Failed jobs make the exit code 1 (`--fail-on-error`, the default).
    pub fail_on_error: bool,
    /// The CSV file (`-`: stdout).
    pub csv: Option<PathBuf>,
    /// The results file; [`ComparePlan::check`] chooses it when none is given (next to the
    /// CSV file, else ./benchdiff-results/).
    pub results: Option<PathBuf>,
    /// Replace an existing CSV or results file.
    pub force: bool,
    /// Continue the run of this results file.
    pub resume: Option<PathBuf>,
    /// No progress bar.
    pub no_progress: bool,
    /// The shard of the plan to run.
    pub shard: ShardRequest,
    /// Command benchmarks (`--bench`, `--suite`, `--old-rev` …).
    pub command: CommandSpec,
    /// The report's `-o` file.
    pub report: Option<PathBuf>,
    /// The report's `--plot` file.
    pub plot: Option<PathBuf>,
    /// `--control`: every (file or configuration, run) also runs the old build again as the
    /// control side, in the same seeded rounds.
    pub control: bool,
}

impl ComparePlan {
    /// Chooses the results file once when none is given (beside `--csv FILE`, in the
    /// temporary folder for a device or pipe, else ./benchdiff-results/), then checks every
    /// output against the others and the run's inputs ([`check_outputs`]) and the options
    /// that cannot go together, before anything runs or is created.
    ///
    /// # Errors
    /// The message to print (exit 2).
    pub fn check(&mut self) -> Result<(), String> {
        let derived = self.results.is_none() && self.resume.is_none();
        if derived {
            self.results = Some(default_results_path(self.csv.as_deref()));
        }
        let inputs = [
            ("--suite file", self.command.suite.as_deref()),
            ("--balance-from file", self.shard.balance_from.as_deref()),
            ("--old binary", self.old.as_deref()),
            ("--new binary", self.new.as_deref()),
        ];
        check_outputs(&RunFiles {
            csv: self.csv.as_deref(),
            resume: self.resume.as_deref(),
            results: self.results.as_deref(),
            results_derived: derived,
            report: self.report.as_deref(),
            plot: self.plot.as_deref(),
            inputs: (inputs.into_iter())
                .filter_map(|(o, p)| p.map(|p| crate::output::Input::new(o, p)))
                .collect(),
            force: self.force,
        })?;
        if self.shard.shard.is_some() && self.runs == Runs::Auto {
            return Err(
                "--shard with --runs auto is not supported: a shard's rows would stop \
                        on that machine's samples alone; give a fixed --runs N"
                    .to_owned(),
            );
        }
        Ok(())
    }

    /// The results file the run writes or continues (after [`ComparePlan::check`]).
    pub fn results_file(&self) -> PathBuf {
        (self.resume.clone())
            .or_else(|| self.results.clone())
            .unwrap_or_default()
    }

    /// The shared run options of a command-benchmark comparison (`auto`: `--runs auto`'s
    /// rules). The defaults of `--runs` (30) and `--order` (random) give way to a suite's.
    fn common(&self, auto: Option<(Rule, Option<DecideRule>)>) -> Common {
        let given = [
            ("--filter", !self.files.filter.is_empty()),
            ("--exclude", !self.files.exclude.is_empty()),
            ("--benchmark-dir", self.files.benchmark_dir.is_some()),
            ("--resume", self.resume.is_some()),
            ("CATEGORY", !self.files.categories.is_empty()),
        ];
        Common {
            old: (self.old.as_ref()).map(|p| p.to_string_lossy().into_owned()),
            new: (self.new.as_ref()).map(|p| p.to_string_lossy().into_owned()),
            runs: match self.runs {
                Runs::Fixed(n) if n != DEFAULT_RUNS => Some(n),
                Runs::Fixed(_) => None,
                // The schedule's rounds: --max-runs.
                Runs::Auto => Some(self.auto.max_runs),
            },
            jobs: self.jobs.clone(),
            order: (self.order != Order::Random).then_some(self.order),
            fail_fast: self.fail_fast,
            fail_on_error: self.fail_on_error,
            csv: self.csv.clone(),
            results: self.results.clone(),
            no_progress: self.no_progress,
            node_only: (given.into_iter()).filter(|g| g.1).map(|g| g.0).collect(),
            auto,
            control: self.control,
        }
    }
}

/// Runs `benchdiff compare` of a checked `plan` ([`ComparePlan::check`]): Node files
/// ([`prepare`], [`execute`]) or command benchmarks ([`super::command_bench::compare`]),
/// writing the lines a person watches to `out.log` and the CSV as [`execute`] says.
///
/// # Errors
/// Outer: `out` or the results file cannot be written. Inner: why nothing ran (bad options,
/// no benchmark, a failed build, an output that cannot be created).
pub fn compare(plan: &ComparePlan, out: Streams<'_>) -> std::io::Result<Result<Ended, Stop>> {
    let rules = match plan.auto.rules(plan.runs, plan.threshold_pct) {
        Ok(r) => r,
        Err(e) => return Ok(Err(Stop::usage(e))),
    };
    if plan.command.active() {
        let common = plan.common(rules);
        let shard = match plan.shard.resolve() {
            Ok(s) => s,
            Err(e) => return Ok(Err(Stop::usage(e))),
        };
        return Ok(
            super::command_bench::compare(&common, &plan.command, shard, out)?
                .map(|c| c.ended(plan.fail_on_error))
                .map_err(Stop::from),
        );
    }
    let prep = match prepare(plan, rules) {
        Ok(p) => p,
        Err(e) => return Ok(Err(Stop::usage(e))),
    };
    Ok(execute(plan, prep, out)?
        .map(|r| r.ended(plan.fail_on_error))
        .map_err(Stop::usage))
}

/// What a finished (or stopped) Node-file comparison produced.
#[derive(Debug)]
pub struct NodeRun {
    /// The samples of the jobs that ended `ok` (resumed ones included).
    pub set: SampleSet,
    /// Samples of jobs that did not end `ok`: left out of the report, noted per row.
    pub unused: UnusedSamples,
    /// How the run ended.
    pub summary: Summary,
    /// `--runs auto`: what the run did, for the closing summary.
    pub adaptive: Option<Outcome>,
    /// The results file.
    pub results_path: PathBuf,
    /// Jobs this run had to run (after `--resume` and `--shard`).
    pub jobs_to_run: usize,
    /// A shard of the plan ran (the other shards' jobs are not "not run" here).
    pub sharded: bool,
    /// The run facts for the report.
    pub run: RunInfo,
    /// The report should follow: the CSV did not go to stdout, and stdout is a terminal or
    /// the CSV went to a file.
    pub want_report: bool,
    /// The Ctrl-C guard of the run, still installed: keep it until the partial report is
    /// written, so a second SIGINT (GNU `timeout -s INT` sends two) does not cut it off.
    pub signals: SignalGuard,
    /// The warning when the CSV (compare.js's, names as they are) holds a name a spreadsheet
    /// could run as a formula ([`crate::report::diagnostics::formula_cells`]).
    pub formula_warning: Option<String>,
}

/// Progress on stderr: jobs with ETA, files, runs, configurations of the running child.
struct Progress {
    bar: indicatif::ProgressBar,
    nfiles: usize,
    runs: u32,
    per_file_done: Vec<u32>,
    queue: Option<u64>,
    configs_done: u64,
    current: String,
}

impl Progress {
    fn new(total: usize, plan: &Plan, done: &[JobRecord]) -> Progress {
        let bar = super::options::job_bar(total);
        bar.enable_steady_tick(Duration::from_secs(1));
        let mut per_file_done = vec![0u32; plan.files.len()];
        for r in done {
            if let Some(i) = plan.files.iter().position(|f| *f == r.file) {
                per_file_done[i] += 1;
            }
        }
        Progress {
            bar,
            nfiles: plan.files.len(),
            runs: plan.runs,
            per_file_done,
            queue: None,
            configs_done: 0,
            current: String::new(),
        }
    }

    fn redraw(&self) {
        let files_done = self
            .per_file_done
            .iter()
            .filter(|&&n| n >= 2 * self.runs)
            .count();
        let configs = match self.queue {
            Some(q) => format!("{}/{q} configs", self.configs_done),
            None => format!("{} configs", self.configs_done),
        };
        self.bar.set_message(format!(
            "{files_done}/{} files | {configs} | {}",
            self.nfiles, self.current
        ));
    }
}

struct CompareObserver<'a> {
    set: SampleSet,
    csv: Option<CsvWriter<Box<dyn Write + 'a>>>,
    /// Where the CSV goes (`--csv PATH` or `stdout`), for error messages.
    csv_name: String,
    results: ResultsWriter,
    stderr: &'a mut dyn Write,
    progress: Option<Progress>,
    runs: u32,
    /// Samples of jobs that did not end `ok`: left out of the report, noted per row.
    unused: UnusedSamples,
    /// With counter columns in the CSV: the running job's rows, written when it ends (with
    /// its counters).
    pending: Vec<Report>,
}

impl CompareObserver<'_> {
    fn say(&mut self, text: &str) {
        let stderr = &mut self.stderr;
        match &self.progress {
            Some(p) => p.bar.suspend(|| {
                let _ = stderr.write_all(text.as_bytes());
                let _ = stderr.flush();
            }),
            None => {
                let _ = stderr.write_all(text.as_bytes());
                let _ = stderr.flush();
            }
        }
    }

    /// Writes one CSV row, or keeps it until the job ends when the CSV has counter columns.
    fn csv_row(&mut self, side: Side, file: &str, r: &Report) -> std::io::Result<()> {
        if let Some(csv) = &mut self.csv {
            if csv.extra_columns() > 0 {
                self.pending.push(r.clone());
                return Ok(());
            }
            csv.row(side, file, &r.configuration.text, r.rate, &r.time_text)
                .map_err(|e| {
                    std::io::Error::new(e.kind(), format!("CSV output {}: {e}", self.csv_name))
                })?;
        }
        Ok(())
    }
}

impl Observer for CompareObserver<'_> {
    fn job_started(&mut self, job: &Job, file: &str) {
        if let Some(p) = &mut self.progress {
            p.queue = None;
            p.configs_done = 0;
            p.current = format!("{file} ({}, run {}/{})", job.side, job.run + 1, p.runs);
            p.redraw();
        }
    }

    fn config(&mut self, _job: &Job, queue_length: Option<u64>) {
        if let Some(p) = &mut self.progress {
            p.queue = queue_length;
            p.redraw();
        }
    }

    fn sample(&mut self, job: &Job, file: &str, report: &Report) -> std::io::Result<()> {
        // The CSV gets every row as it arrives (as compare.js writes it); the report's set only
        // the samples of jobs that end `ok` (added in `job_finished`).
        self.csv_row(job.side, file, report)?;
        if let Some(p) = &mut self.progress {
            p.configs_done += 1;
            p.redraw();
        }
        Ok(())
    }

    fn record(&mut self, record: &Record) -> std::io::Result<()> {
        self.results.write(record)
    }

    fn job_finished(&mut self, job: &Job, record: &JobRecord) -> std::io::Result<()> {
        self.results.write(&Record::Job(record.clone()))?;
        // The job's rows with its counters: a job is one process, so its counters are one
        // configuration's only when it ran one (else `NA`; the results file has them).
        let pending = std::mem::take(&mut self.pending);
        if let Some(csv) = &mut self.csv {
            let extra: Vec<Option<f64>> = if pending.len() == 1 {
                record.counters.iter().map(|m| Some(m.value)).collect()
            } else {
                Vec::new()
            };
            for r in &pending {
                csv.row_with(
                    job.side,
                    &record.file,
                    &r.configuration.text,
                    r.rate,
                    &r.time_text,
                    &extra,
                )
                .map_err(|e| {
                    std::io::Error::new(e.kind(), format!("CSV output {}: {e}", self.csv_name))
                })?;
            }
        }
        if record.status == JobStatus::Ok {
            for s in &record.samples {
                super::add_rate(
                    &mut self.set,
                    job.side,
                    job.run,
                    &record.file,
                    &s.to_report(),
                );
            }
            self.set.mark_rounds_recorded();
            crate::format::results::samples::add_node_counters(&mut self.set, record);
        } else {
            self.unused.add(record);
        }
        let what = format!(
            "{} under {} (run {}/{})",
            crate::render::escape_control(&record.file),
            job.side,
            job.run + 1,
            self.runs
        );
        match (record.status, &record.error) {
            (JobStatus::Ok, None) => {}
            (JobStatus::Ok, Some(note)) => self.say(&format!("benchdiff: note: {what}: {note}\n")),
            (JobStatus::Interrupted, _) => {}
            (_, err) => {
                let mut text = format!(
                    "benchdiff: job failed: {what}: {}\n",
                    err.as_deref().unwrap_or("failed")
                );
                let skip = record.stderr_tail.len().saturating_sub(STDERR_LINES_SHOWN);
                for l in &record.stderr_tail[skip..] {
                    let l = crate::render::escape_control(l);
                    text.push_str(&format!("  stderr | {l}\n"));
                }
                self.say(&text);
            }
        }
        if let Some(p) = &mut self.progress {
            if let Some(n) = p.per_file_done.get_mut(job.file) {
                *n += 1;
            }
            p.bar.inc(1);
            p.redraw();
        }
        Ok(())
    }
}

/// The files a `compare` run writes and reads, for [`check_outputs`].
#[derive(Clone, Debug, Default)]
pub struct RunFiles<'a> {
    /// `--csv` (`-`: stdout, not a file).
    pub csv: Option<&'a Path>,
    /// `--resume`: the results file continued.
    pub resume: Option<&'a Path>,
    /// The results file: `--results`, or the one chosen beside the CSV
    /// ([`default_results_path`]; then `results_derived`).
    pub results: Option<&'a Path>,
    /// The results file was chosen by benchdiff, not named by `--results`.
    pub results_derived: bool,
    /// The report's `-o` file.
    pub report: Option<&'a Path>,
    /// The report's `--plot` file.
    pub plot: Option<&'a Path>,
    /// The files the run reads (`--suite`, `--balance-from`, the binaries), each with the
    /// option that names it.
    pub inputs: Vec<crate::output::Input<'a>>,
    /// `--force`: an existing CSV or results file is replaced.
    pub force: bool,
}

/// Checks every output of a run (`-o`, `--plot`, `--csv`, `--results` or the results file
/// beside the CSV, `--resume`) against each other and the run's input files before anything
/// runs or is created ([`crate::output::check`]).
///
/// # Errors
/// A message naming the option and the file.
pub fn check_outputs(files: &RunFiles<'_>) -> Result<(), String> {
    use crate::output::{Output, Use, check};
    let mut outs = crate::report::outputs(files.report, files.plot)?;
    if let Some(p) = files.csv.filter(|p| p.as_os_str() != "-") {
        outs.push(Output::new("--csv", p, Use::Create));
    }
    if let Some(p) = files.resume {
        outs.push(Output::new("--resume", p, Use::Append));
    }
    if let Some(p) = files.results {
        let option = if files.results_derived {
            "the results file"
        } else {
            "--results"
        };
        outs.push(Output::new(option, p, Use::Create).making_folder());
    }
    check(&files.inputs, &outs, files.force)
}

/// A Node-file comparison ready to run: its plan, the results file (header written), and for
/// `--resume` the jobs already done.
pub struct Prepared {
    plan: Plan,
    timeout: Option<Duration>,
    results: ResultsWriter,
    done: Vec<JobRecord>,
    warnings: Vec<String>,
    resumed: bool,
    /// Samples of earlier jobs that did not end `ok` (a resumed run's file).
    unused: UnusedSamples,
    /// `--runs auto`'s rule (a resumed run: the one recorded in its results file).
    adaptive: Option<super::adaptive::Rule>,
    /// `--stop decided`'s settings (a resumed run: recorded in its results file).
    decided: Option<super::adaptive::DecideRule>,
    /// A resumed run's recorded `--csv` file (appended to when no --csv is given).
    recorded_csv: Option<PathBuf>,
    /// `--shard K/N`: the shard's record and the jobs it keeps.
    shard: Option<ShardRun>,
}

/// Builds the plan (or loads it from the `--resume` file), checks it, and creates (or opens
/// for appending) the results file with its plan and shard records.
///
/// # Errors
/// Bad options, no benchmark, a binary that cannot run, or the results file cannot be
/// written.
pub fn prepare(
    args: &ComparePlan,
    rules: Option<(Rule, Option<DecideRule>)>,
) -> Result<Prepared, RunnerError> {
    let (adaptive, decided) = (rules.map(|r| r.0), rules.and_then(|r| r.1));
    args.jobs.check_node_set()?;
    if let Some(path) = &args.resume {
        let loaded = results::load(path)?;
        let Some(header) = loaded.node_header() else {
            return Err(RunnerError::Io(format!(
                "--resume {}: this is the results file of a command-benchmark run; --resume \
                 continues Node-file runs only. Run the command benchmarks again (the samples \
                 recorded so far can be read with: benchdiff report {})",
                path.display(),
                path.display()
            )));
        };
        let plan = Plan::from_header(header)?;
        let timeout = match args.jobs.timeout {
            Some(t) => Some(timeout_duration("--timeout", t).map_err(RunnerError::Io)?),
            None => header
                .timeout_s
                .map(|t| timeout_duration(&format!("{}: timeout_s", path.display()), t))
                .transpose()
                .map_err(RunnerError::Io)?,
        };
        let results = ResultsWriter::append(path)?;
        let recorded_csv = header.csv.clone();
        let shard = super::shard::resumed(path).map_err(RunnerError::Io)?;
        let decided = header.decided;
        return Ok(Prepared {
            plan,
            timeout,
            results,
            done: loaded.done,
            warnings: loaded.warnings,
            resumed: true,
            unused: loaded.unused,
            adaptive: loaded.adaptive,
            decided,
            recorded_csv,
            shard,
        });
    }
    let (Some(old), Some(new)) = (&args.old, &args.new) else {
        return Err(RunnerError::Binary(
            "--old and --new are required".to_owned(),
        ));
    };
    let runs = args.auto.plan_runs(args.runs);
    let (old, new) = (("--old", old.as_path()), ("--new", new.as_path()));
    let mut plan = Plan::of_files(
        old,
        new,
        &args.files,
        &args.jobs,
        runs,
        args.order,
        args.control,
    )?;
    let sides = super::schedule::sides(args.control).len();
    let jobs = (plan.files.len() as u128) * u128::from(runs) * sides as u128;
    if runs > super::plan::suite::MAX_RUNS || jobs > MAX_JOBS as u128 {
        return Err(RunnerError::Io(format!(
            "--runs {runs}: {} file(s) x {runs} run(s) x {sides} sides = {jobs} jobs; at most {} \
             runs and {} jobs are allowed",
            plan.files.len(),
            super::plan::suite::MAX_RUNS,
            MAX_JOBS
        )));
    }
    let shard_plan = args.shard.resolve().map_err(RunnerError::Io)?;
    if shard_plan.is_some() && adaptive.is_some() {
        return Err(RunnerError::Io(
            "--shard with --runs auto: a sharded run needs a fixed number of runs".to_owned(),
        ));
    }
    let shard = shard_plan
        .map(|sp| super::shard::node_shard(&sp, &mut plan, args.jobs.seed.is_some()))
        .transpose()
        .map_err(RunnerError::Io)?;
    let path = args
        .results
        .clone()
        .unwrap_or_else(|| default_results_path(args.csv.as_deref()));
    let timeout = (args.jobs.timeout)
        .map(|t| timeout_duration("--timeout", t))
        .transpose()
        .map_err(RunnerError::Io)?;
    let mut results = ResultsWriter::create(&path)?;
    let header = RunHeader {
        adaptive,
        decided,
        csv: args
            .csv
            .as_deref()
            .filter(|p| p.as_os_str() != "-")
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())),
        ..plan.header(timeout, now_unix_s())
    };
    results
        .write(&Record::Run(header))
        .map_err(|e| RunnerError::Results(format!("{}: {e}", path.display())))?;
    if let Some(s) = &shard {
        results
            .write(&Record::Shard(s.record.clone()))
            .map_err(|e| RunnerError::Results(format!("{}: {e}", path.display())))?;
    }
    Ok(Prepared {
        plan,
        timeout,
        results,
        done: Vec::new(),
        warnings: Vec::new(),
        resumed: false,
        unused: UnusedSamples::default(),
        adaptive,
        decided,
        recorded_csv: None,
        shard,
    })
}

/// Runs a prepared comparison: machine checks (recorded and written to `out.log`), the plan
/// line, the CSV (to `out.stdout` when it is not a terminal, or to `--csv FILE`), the results
/// file, a progress bar when `out.stderr_is_terminal`, each failed job with the end of its
/// stderr as it ends; the samples of the jobs that ended `ok` come back for the report.
///
/// # Errors
/// Outer: `out` or the results file cannot be written. Inner: the CSV cannot be created.
pub fn execute(
    args: &ComparePlan,
    prep: Prepared,
    out: Streams<'_>,
) -> std::io::Result<Result<NodeRun, String>> {
    let Prepared {
        plan,
        timeout,
        mut results,
        done,
        warnings,
        resumed,
        unused,
        adaptive: rule,
        decided,
        recorded_csv,
        shard,
    } = prep;
    // `--resume` without --csv continues the run's own CSV (recorded in its header): it is
    // rewritten from the results file's finished jobs, so a killed job's rows are not kept.
    let append_csv = recorded_csv.filter(|_| args.csv.is_none());
    let csv_to_stdout = match &args.csv {
        Some(p) => p.as_os_str() == "-",
        None => append_csv.is_none() && !out.stdout_is_terminal,
    };
    let csv_file = args
        .csv
        .as_ref()
        .filter(|p| p.as_os_str() != "-")
        .or(append_csv.as_ref());
    let want_report = !csv_to_stdout && (out.stdout_is_terminal || csv_file.is_some());

    for w in &warnings {
        writeln!(
            out.log,
            "benchdiff: note: {}: {w}",
            results.path().display()
        )?;
    }
    let all_jobs = plan.schedule();
    let done_keys: HashSet<(String, Side, u32)> = done
        .iter()
        .map(|r| (r.file.clone(), r.side, r.run))
        .collect();
    let todo: Vec<Job> = all_jobs
        .iter()
        .filter(|j| !done_keys.contains(&(plan.files[j.file].clone(), j.side, j.run)))
        .copied()
        .collect();
    // `--shard K/N`: only this shard's jobs.
    let todo = match &shard {
        Some(s) => super::shard::slice(&todo, &s.assignment, 0),
        None => todo,
    };
    if resumed {
        results.write(&Record::Resume(ResumeMark {
            at_unix_s: now_unix_s(),
            done: done.len(),
            remaining: todo.len(),
        }))?;
    }
    let machine = super::machine::check(plan.cpus.as_ref());
    results.write(&Record::Machine(machine.clone()))?;
    write!(out.log, "{}", machine.render())?;
    writeln!(
        out.log,
        "benchdiff: results file: {}",
        results.path().display()
    )?;
    if !plan.measure.is_empty() {
        writeln!(out.log, "benchdiff: {}", plan.measure.note())?;
    }
    if let (Some(rule), Some(d)) = (rule, decided) {
        writeln!(
            out.log,
            "{}",
            super::adaptive::decided_rule_line(&d, rule.min_runs, rule.max_runs)
        )?;
    } else if let Some(rule) = rule {
        writeln!(
            out.log,
            "benchdiff: --runs auto: a configuration stops once its 95% interval is within ±{}% \
             of the old mean (at least {} runs, at most {}; the job count below is the most)",
            rule.target_pct, rule.min_runs, rule.max_runs
        )?;
    }
    writeln!(
        out.log,
        "benchdiff: {} file(s) x {} run(s) x {} = {} jobs, order {}{}{}",
        plan.files.len(),
        plan.runs,
        if plan.control {
            "3 sides (old, new, control: old again)"
        } else {
            "2 binaries"
        },
        all_jobs.len(),
        match plan.order {
            Order::Node => "node",
            Order::Random => "random",
        },
        if plan.order == Order::Random {
            format!(", seed {}", plan.seed)
        } else {
            String::new()
        },
        if resumed {
            format!("; resuming: {} done, {} to run", done.len(), todo.len())
        } else {
            String::new()
        }
    )?;
    if let Some(s) = &shard {
        writeln!(out.log, "{}", super::shard::describe(s, all_jobs.len()))?;
    }
    if !csv_to_stdout && csv_file.is_none() {
        writeln!(
            out.log,
            "benchdiff: stdout is a terminal: no CSV written (use --csv FILE); the report follows at the end"
        )?;
    }

    let (stdout, stderr) = (out.stdout, out.log);
    let csv_sink: Option<Box<dyn Write + '_>> = if csv_to_stdout {
        Some(Box::new(stdout))
    } else if let Some(p) = csv_file {
        match std::fs::File::create(p) {
            Ok(f) => Some(Box::new(BufWriter::new(f))),
            Err(e) => return Ok(Err(format!("--csv {}: {e}", p.display()))),
        }
    } else {
        None
    };
    let csv_name = match csv_file {
        Some(p) if !csv_to_stdout => p.display().to_string(),
        _ => "stdout".to_owned(),
    };
    let counter_names: Vec<&str> = plan.measure.counters().iter().map(|c| c.name()).collect();
    let csv = match csv_sink
        .map(|w| CsvWriter::with_columns(w, &counter_names, Cells::Verbatim))
        .transpose()
    {
        Ok(c) => c,
        Err(e) => return Ok(Err(format!("CSV output {csv_name}: {e}"))),
    };
    let progress = if !args.no_progress && out.stderr_is_terminal {
        Some(Progress::new(todo.len(), &plan, &done))
    } else {
        None
    };
    let mut obs = CompareObserver {
        set: SampleSet::new(),
        csv,
        csv_name,
        results,
        stderr,
        progress,
        runs: plan.runs,
        unused,
        pending: Vec::new(),
    };
    for r in &done {
        for s in &r.samples {
            let rep = s.to_report();
            super::add_rate(&mut obs.set, r.side, r.run, &r.file, &rep);
            obs.csv_row(r.side, &r.file, &rep)?;
        }
    }
    let opts = RunOptions {
        timeout,
        fail_fast: args.fail_fast,
    };
    // Installed until the partial report is written (it goes back in [`NodeRun::signals`]):
    // a second Ctrl-C does not cut the report off.
    let signals = SignalGuard::install();
    let (summary, adaptive) = {
        match rule {
            Some(rule) => {
                let (s, o) = super::adaptive::execute_adaptive(
                    &plan,
                    rule,
                    decided,
                    &done,
                    opts,
                    &INTERRUPTED,
                    &mut obs,
                );
                (s, Some(o))
            }
            None => (
                super::execute(&plan, &todo, opts, &INTERRUPTED, &mut obs),
                None,
            ),
        }
    };
    if let Some(p) = &obs.progress {
        p.bar.finish_and_clear();
    }
    let results_path = obs.results.path().to_path_buf();
    let formula_warning = (obs.csv.as_ref().and_then(CsvWriter::formula_cell)).map(|f| {
        let what = format!("the CSV ({})", obs.csv_name);
        crate::report::diagnostics::formula_cells(&what, f)
    });
    let set = std::mem::take(&mut obs.set);
    let unused = std::mem::take(&mut obs.unused);
    drop(obs);
    let mut run = run_info(&plan);
    if let Some(a) = &adaptive {
        run.sequential = a.settled_rows.clone();
    }
    Ok(Ok(NodeRun {
        set,
        unused,
        summary,
        adaptive,
        results_path,
        jobs_to_run: todo.len(),
        sharded: shard.is_some(),
        run,
        want_report,
        signals,
        formula_warning,
    }))
}
impl NodeRun {
    /// How the run ended: its closing lines (an output error, failed jobs — exit 1 when
    /// `fail_on_error` — an interrupt with the command that continues it), and the report's
    /// samples when it should follow.
    pub fn ended(self, fail_on_error: bool) -> Ended {
        let summary = &self.summary;
        let mut lines = Vec::new();
        let mut code = 0;
        if let Some(w) = &self.formula_warning {
            lines.push(format!("benchdiff: warning: {w}"));
        }
        if let Some(e) = &summary.output_error {
            lines.push(super::ending::output_error_line(e));
            code = crate::report::EXIT_USAGE;
        }
        let real = (summary.failed.iter())
            .filter(|(_, e)| e != "interrupted")
            .count();
        if real > 0 {
            let where_ = format!("; details in {}", self.results_path.display());
            lines.push(super::ending::failed_line(
                real,
                summary.jobs_run,
                summary.stopped_by_fail_fast,
                &where_,
            ));
            if fail_on_error {
                code = code.max(crate::report::EXIT_FAILED);
            }
        }
        if summary.interrupted {
            lines.push(format!(
                "benchdiff: interrupted after {} of {} job(s); continue with: benchdiff compare \
                 --resume {}",
                summary.jobs_run,
                self.jobs_to_run,
                self.results_path.display()
            ));
        }
        let mut ended = Ended {
            lines,
            report: None,
            after: (self.adaptive.as_ref()).map_or_else(String::new, Outcome::summary_text),
            code,
            interrupted: summary.interrupted,
            signals: None,
        };
        if self.want_report {
            let report = RunReport {
                failures: self.failures(),
                settled: self.run.sequential.clone(),
                run: Some(self.run),
                set: self.set,
            };
            ended = ended.with_report(self.unused.notes(), report);
        }
        ended.signals = Some(self.signals);
        ended
    }

    /// The failed and missing jobs recorded in the results file, for the report (a shard's
    /// without the other shards' jobs, which are not "not run" here); none when the file
    /// cannot be read (the run has said so).
    pub fn failures(&self) -> Failures {
        let mut failures = recorded_failures(Some(&self.results_path));
        if self.sharded {
            failures.items.retain(|f| f.kind != FailureKind::NotRun);
        }
        failures
    }
}

/// The run facts the reports show (binaries, runs, order, seed).
fn run_info(plan: &Plan) -> RunInfo {
    RunInfo {
        old: plan.old.clone(),
        new: plan.new.clone(),
        old_path: plan.old_exec.display().to_string(),
        new_path: plan.new_exec.display().to_string(),
        runs: plan.runs,
        order: match plan.order {
            Order::Node => "node",
            Order::Random => "random",
        }
        .to_owned(),
        seed: (plan.order == Order::Random).then_some(plan.seed),
        files: plan.files.len(),
        set: plan.set.clone(),
        cpus: plan.cpus.as_ref().map(|c| c.text.clone()),
        sequential: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(runs: Runs) -> ComparePlan {
        ComparePlan {
            old: Some("a".into()),
            new: Some("b".into()),
            runs,
            auto: AutoOptions {
                target_accuracy: None,
                min_runs: 5,
                max_runs: 60,
                stop: None,
                no_futility: false,
            },
            threshold_pct: 1.0,
            files: NodeFiles {
                filter: vec!["x".into()],
                categories: vec!["fs".into()],
                ..NodeFiles::default()
            },
            jobs: JobOptions::default(),
            order: Order::Random,
            fail_fast: false,
            fail_on_error: true,
            csv: None,
            results: None,
            force: false,
            resume: None,
            no_progress: true,
            shard: ShardRequest::default(),
            command: CommandSpec::default(),
            report: None,
            plot: None,
            control: false,
        }
    }

    #[test]
    fn command_benchmarks_leave_the_default_runs_and_order_to_a_suite() {
        let default = plan(Runs::Fixed(DEFAULT_RUNS)).common(None);
        assert_eq!((default.runs, default.order), (None, None));
        assert_eq!(plan(Runs::Fixed(7)).common(None).runs, Some(7));
        assert_eq!(plan(Runs::Auto).common(None).runs, Some(60));
        let mut node = plan(Runs::Fixed(7));
        node.order = Order::Node;
        assert_eq!(node.common(None).order, Some(Order::Node));
    }

    #[test]
    fn command_benchmarks_name_the_node_file_options_given() {
        let common = plan(Runs::Fixed(7)).common(None);
        assert_eq!(common.node_only, ["--filter", "CATEGORY"]);
        assert!(common.fail_on_error);
    }
}
