//! `benchdiff compare`: runs Node-format benchmark files under an old and a new binary, like
//! Node's `benchmark/compare.js` (spec §1), writes its CSV, keeps a JSON Lines results file,
//! and ends with the report when a person is watching (stdout is a terminal) or the CSV went to
//! a file.

use super::{AnalysisArgs, EXIT_FAILED, EXIT_USAGE, Io};
use crate::format::node_csv::write::CsvWriter;
use crate::format::results::{
    self, JobRecord, JobStatus, Record, ResultsWriter, ResumeMark, RunHeader, UnusedSamples,
};
use crate::run::affinity::{CpuList, cpuset_from_set_values};
use crate::run::plan::discover;
use crate::run::schedule::{Job, Order};
use crate::run::{self as runner, Observer, Plan, Report, RunOptions, RunnerError};
use crate::sample::{Sample, SampleSet, Side};
use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Duration;

/// How many of a failed job's last stderr lines are echoed (the results file keeps more).
const STDERR_LINES_SHOWN: usize = 12;

use crate::run::clock::{default_results_path, default_seed, now_unix_s};
pub use crate::run::signals::EXIT_INTERRUPTED;
use crate::run::signals::{INTERRUPTED, SignalGuard};

/// Options of `benchdiff compare`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Each job is one child `BIN FILE [--set values]` with Node's IPC channel (as compare.js forks \
it); files run in their category order, `strcmp` order within a category. CSV rows go to stdout \
when it is not a terminal (or to --csv FILE); every job is also recorded in a JSON Lines results \
file (default: next to --csv FILE as FILE.results.jsonl; in the temporary folder when --csv \
is a device or pipe; else ./benchdiff-results/<UTC time>.jsonl) that --resume continues.

Output files: -o, --plot, --csv and --results are checked before anything runs: the same file \
twice (also through symlinks and hard links), an input file, a folder or an unwritable path is \
an error (exit 2) and nothing is created; an existing CSV or results file (also the one beside \
--csv) is refused unless --force, which replaces it. Devices and pipes are written as they are.

No process of a run outlives benchdiff, even after kill -9: a watchdog process kills every \
benchmark's process group (forked workers included) when benchdiff dies.

Exit codes: 0 all jobs ok; 1 a job failed (--fail-on-error, the default; --no-fail-on-error \
turns it off) or --max-regression failed; 2 bad usage; 130 interrupted.")]
pub(crate) struct CompareArgs {
    /// The baseline binary (a path, or a name looked up in PATH).
    #[arg(long, value_name = "BIN", required_unless_present_any = ["resume", "suite", "old_rev"])]
    old: Option<PathBuf>,
    /// The candidate binary.
    #[arg(long, value_name = "BIN", required_unless_present_any = ["resume", "suite", "old_rev"])]
    new: Option<PathBuf>,
    /// Samples per binary: each file runs this many times under each binary; `auto` stops
    /// each configuration once it is decided (--stop decided, the default) or precise enough
    /// (--stop precision / --target-accuracy), between --min-runs and --max-runs.
    #[arg(long, value_name = "N|auto", default_value = "30",
          value_parser = super::calibrate_cmd::parse_runs)]
    runs: super::calibrate_cmd::RunsArg,
    #[command(flatten)]
    adaptive: super::calibrate_cmd::AdaptiveArgs,
    /// Run only files whose name contains S (repeatable; any match keeps a file).
    #[arg(long, value_name = "S")]
    filter: Vec<String>,
    /// Skip files whose name contains S (repeatable; wins over --filter).
    #[arg(long, value_name = "S")]
    exclude: Vec<String>,
    /// Passed verbatim to every benchmark as an argument (`n=1000` replaces that parameter's
    /// values; repeat for several). `CPUSET=0-2` also pins the children to those CPUs.
    #[arg(long, value_name = "K=V")]
    set: Vec<String>,
    /// The benchmark folder (default: ./benchmark, or the first `benchmark` folder upward).
    #[arg(long, value_name = "DIR")]
    benchmark_dir: Option<PathBuf>,
    /// Job order: `random` shuffles each round's jobs with --seed; `node` is compare.js's
    /// (per file, per run, old then new).
    #[arg(long, value_enum, default_value_t = Order::Random)]
    order: Order,
    /// Seed of the random order (default: from the clock; printed and recorded).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Kill a job (its whole process group) after SECS seconds and record it as failed.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    timeout: Option<f64>,
    /// Stop at the first failed job (compare.js stops at any failure).
    #[arg(long)]
    fail_fast: bool,
    /// Write the CSV to FILE (`-` = stdout) instead of stdout; the report then follows on stdout.
    /// An existing FILE is refused unless --force.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Where to write the JSON Lines results file. An existing FILE is refused unless --force.
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    results: Option<PathBuf>,
    /// Replace an existing --csv or --results file (without it both are refused, before
    /// anything runs).
    #[arg(long)]
    force: bool,
    /// Exit 1 when any benchmark job failed (crashed, timed out, bad output), even when the
    /// report is otherwise fine. On by default.
    #[arg(long, overrides_with = "no_fail_on_error")]
    fail_on_error: bool,
    /// Exit 0 despite failed jobs (the failures are still reported and recorded).
    #[arg(long, overrides_with = "fail_on_error")]
    no_fail_on_error: bool,
    /// Continue an interrupted run from its results file: run only the jobs without an `ok`
    /// record and append to FILE. The CSV: without --csv, the run's own --csv file (recorded
    /// in FILE) is rewritten with the finished jobs' rows and continued, so it ends as an
    /// uninterrupted run's; with --csv, all samples go to the new file.
    /// The plan comes from FILE.
    /// Node-file runs only: a command-benchmark run cannot be resumed (its file can be read
    /// with `benchdiff report FILE`).
    #[arg(long, value_name = "FILE",
          conflicts_with_all = ["old", "new", "runs", "filter", "exclude", "set",
                                "benchmark_dir", "order", "seed", "cpus", "categories"])]
    resume: Option<PathBuf>,
    /// Pin the children to these CPUs (taskset list, e.g. 0 or 0-2,4).
    #[arg(long, value_name = "LIST")]
    cpus: Option<String>,
    /// No progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    no_progress: bool,
    #[command(flatten)]
    analysis: AnalysisArgs,
    #[command(flatten)]
    history: super::history_cmd::HistoryTarget,
    /// Categories (sub-folders of the benchmark folder), or `all`.
    #[arg(value_name = "CATEGORY",
          required_unless_present_any = ["resume", "bench", "suite", "old_rev"])]
    categories: Vec<String>,
    /// Command benchmarks (issue 5): `--bench`, `-L`, `--suite`, `--old-rev` … (see
    /// src/cli/command_bench.rs); with any of them, --old/--new are commands, not Node.
    #[command(flatten)]
    command: super::command_bench::CommandArgs,
    /// Sharded runs (issue 19): `--shard K/N|auto`, `--split`, `--balance-from`.
    #[command(flatten)]
    shard: super::shard_cmd::ShardArgs,
}

/// The longest `--timeout` (and suite `timeout`) accepted: one year, in seconds.
pub(crate) const MAX_TIMEOUT_S: f64 = crate::run::plan::suite::MAX_TIMEOUT_S;

/// Parses a `--timeout` value: seconds, finite, above 0 and at most [`MAX_TIMEOUT_S`].
pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= MAX_TIMEOUT_S => Ok(v),
        Ok(v) if v.is_finite() && v > MAX_TIMEOUT_S => Err(format!(
            "'{s}' seconds is more than the longest timeout, one year ({MAX_TIMEOUT_S} s)"
        )),
        _ => Err(format!("'{s}' is not a positive number of seconds")),
    }
}

/// A checked timeout as a [`Duration`] (`what` names its origin in the error).
pub(crate) fn timeout_duration(what: &str, secs: f64) -> Result<Duration, String> {
    parse_seconds(&secs.to_string())
        .ok()
        .and_then(|v| Duration::try_from_secs_f64(v).ok())
        .ok_or_else(|| {
            format!("{what} {secs}: not a number of seconds above 0 and at most one year")
        })
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
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total as u64),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "[{elapsed_precise}] {bar:24} {pos}/{len} jobs, ETA {eta} | {wide_msg}",
        ) {
            bar.set_style(style);
        }
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

    /// Adds a sample of an `ok` job to the report's set.
    fn add(&mut self, side: Side, run: u32, file: &str, r: &Report) {
        let id = self.set.intern_configuration(file, &r.configuration);
        self.set.mark_rounds_recorded(); // the runner's rounds ran old and new together
        self.set.push(Sample {
            benchmark: id,
            side,
            metric: crate::sample::RATE,
            value: r.rate,
            time_s: r.time_s,
            run: Some(run),
        });
    }

    /// Writes one CSV row.
    fn csv_row(&mut self, side: Side, file: &str, r: &Report) -> std::io::Result<()> {
        if let Some(csv) = &mut self.csv {
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
        if record.status == JobStatus::Ok {
            for s in &record.samples {
                self.add(job.side, job.run, &record.file, &s.to_report());
            }
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

/// Checks every output of the run (`-o`, `--plot`, `--csv`, `--results` or the results file
/// beside the CSV, `--resume`) against each other and the run's input files before anything
/// runs or is created ([`crate::output::check`]).
fn check_run_outputs(args: &CompareArgs, derived: bool) -> Result<(), String> {
    use crate::output::{Input, Output, Use, check};
    let mut outs = super::analysis_outputs(
        args.analysis.output.as_deref(),
        args.analysis.plot.as_deref(),
    )?;
    if let Some(p) = args.csv.as_deref().filter(|p| p.as_os_str() != "-") {
        outs.push(Output::new("--csv", p, Use::Create));
    }
    if let Some(p) = &args.resume {
        outs.push(Output::new("--resume", p, Use::Append));
    }
    if let Some(p) = &args.results {
        let option = if derived {
            "the results file"
        } else {
            "--results"
        };
        outs.push(Output::new(option, p, Use::Create).making_folder());
    }
    let mut inputs = Vec::new();
    for (option, p) in [
        ("--suite file", args.command.suite.as_deref()),
        ("--balance-from file", args.shard.balance_from.as_deref()),
        ("--old binary", args.old.as_deref()),
        ("--new binary", args.new.as_deref()),
    ] {
        if let Some(p) = p {
            inputs.push(Input::new(option, p));
        }
    }
    check(&inputs, &outs, args.force)
}

/// Runs `benchdiff compare`; returns the exit code (see the command's help).
pub(crate) fn compare(mut args: CompareArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    // The results file, chosen once: beside `--csv FILE`, else in the temporary folder (a
    // device or pipe as --csv) or ./benchdiff-results/.
    let derived = args.results.is_none() && args.resume.is_none();
    if derived {
        args.results = Some(default_results_path(args.csv.as_deref()));
    }
    if let Err(e) = check_run_outputs(&args, derived) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    if args.shard.shard.is_some() && args.runs == super::calibrate_cmd::RunsArg::Auto {
        writeln!(
            io.stderr,
            "benchdiff: --shard with --runs auto is not supported: a shard's rows would stop on \
             that machine's samples alone; give a fixed --runs N"
        )?;
        return Ok(EXIT_USAGE);
    }
    let mut history = match args.history.open() {
        Ok(h) => h,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    // The results file this run writes (or continues): what `--history` stores at the end.
    let results_path = args
        .resume
        .clone()
        .or_else(|| args.results.clone())
        .unwrap_or_default();
    let code = if args.command.active() {
        compare_commands(args, io)?
    } else {
        match prepare(&args) {
            Ok(prep) => run(args, prep, io)?,
            Err(e) => {
                writeln!(io.stderr, "benchdiff: {e}")?;
                return Ok(EXIT_USAGE);
            }
        }
    };
    match &mut history {
        Some(h) if code != EXIT_USAGE => {
            let stored = h.store_run(&results_path, io)?;
            Ok(if !stored && code == 0 {
                EXIT_FAILED
            } else {
                code
            })
        }
        _ => Ok(code),
    }
}

struct Prepared {
    plan: Plan,
    timeout: Option<Duration>,
    results: ResultsWriter,
    done: Vec<JobRecord>,
    warnings: Vec<String>,
    resumed: bool,
    /// Samples of earlier jobs that did not end `ok` (a resumed run's file).
    unused: UnusedSamples,
    /// `--runs auto`'s rule (a resumed run: the one recorded in its results file).
    adaptive: Option<runner::adaptive::Rule>,
    /// `--stop decided`'s settings (a resumed run: recorded in its results file).
    decided: Option<runner::adaptive::DecideRule>,
    /// A resumed run's recorded `--csv` file (appended to when no --csv is given).
    recorded_csv: Option<PathBuf>,
    /// `--shard K/N`: the shard's record and the jobs it keeps.
    shard: Option<super::shard_cmd::ShardRun>,
}

fn prepare(args: &CompareArgs) -> Result<Prepared, RunnerError> {
    let rules = args
        .adaptive
        .rules(args.runs, args.analysis.threshold)
        .map_err(RunnerError::Io)?;
    let (adaptive, decided) = (rules.map(|r| r.0), rules.and_then(|r| r.1));
    for s in &args.set {
        if s.split_once('=').is_none_or(|(k, _)| k.is_empty()) {
            return Err(RunnerError::Io(format!(
                "--set {s:?}: expected KEY=VALUE (e.g. --set n=1000)"
            )));
        }
    }
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
        let timeout = match args.timeout {
            Some(t) => Some(timeout_duration("--timeout", t).map_err(RunnerError::Io)?),
            None => header
                .timeout_s
                .map(|t| timeout_duration(&format!("{}: timeout_s", path.display()), t))
                .transpose()
                .map_err(RunnerError::Io)?,
        };
        let results = ResultsWriter::append(path)?;
        let recorded_csv = header.csv.clone();
        let shard = super::shard_cmd::resumed(path).map_err(RunnerError::Io)?;
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
    let cwd = std::env::current_dir().map_err(|e| RunnerError::Io(e.to_string()))?;
    let (Some(old), Some(new)) = (&args.old, &args.new) else {
        return Err(RunnerError::Binary(
            "--old and --new are required".to_owned(),
        ));
    };
    let old_exec = discover::resolve_binary("--old", old, &cwd)?;
    let new_exec = discover::resolve_binary("--new", new, &cwd)?;
    let dir = discover::find_benchmark_dir(args.benchmark_dir.as_deref(), &cwd)?;
    let files = discover::select(&dir, &args.categories, &args.filter, &args.exclude)?;
    let cpuset = cpuset_from_set_values(&args.set)?;
    let cpus = match (&args.cpus, cpuset) {
        (Some(_), Some(_)) => {
            return Err(RunnerError::CpuSet(
                "give either --cpus or --set CPUSET=…, not both".to_owned(),
            ));
        }
        (Some(c), None) => Some(CpuList::parse(c)?),
        (None, c) => c,
    };
    let runs = args.adaptive.plan_runs(args.runs);
    let jobs = (files.len() as u128) * u128::from(runs) * 2;
    if runs > crate::run::plan::suite::MAX_RUNS || jobs > super::command_bench::MAX_JOBS as u128 {
        return Err(RunnerError::Io(format!(
            "--runs {runs}: {} file(s) x {runs} run(s) x 2 binaries = {jobs} jobs; at most {} \
             runs and {} jobs are allowed",
            files.len(),
            crate::run::plan::suite::MAX_RUNS,
            super::command_bench::MAX_JOBS
        )));
    }
    let shard_plan = args.shard.resolve().map_err(RunnerError::Io)?;
    if shard_plan.is_some() && adaptive.is_some() {
        return Err(RunnerError::Io(
            "--shard with --runs auto: a sharded run needs a fixed number of runs".to_owned(),
        ));
    }
    let mut plan = Plan {
        old: old.display().to_string(),
        new: new.display().to_string(),
        old_exec,
        new_exec,
        benchmark_dir: dir,
        files,
        runs,
        set: args.set.clone(),
        order: args.order,
        seed: args.seed.unwrap_or_else(default_seed),
        cpus,
    };
    let shard = shard_plan
        .map(|sp| super::shard_cmd::node_shard(&sp, &mut plan, args.seed.is_some()))
        .transpose()
        .map_err(RunnerError::Io)?;
    let path = args
        .results
        .clone()
        .unwrap_or_else(|| default_results_path(args.csv.as_deref()));
    let timeout = args
        .timeout
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

fn run(args: CompareArgs, prep: Prepared, io: &mut Io<'_>) -> anyhow::Result<i32> {
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
        None => append_csv.is_none() && !io.stdout_is_terminal,
    };
    let csv_file = args
        .csv
        .as_ref()
        .filter(|p| p.as_os_str() != "-")
        .or(append_csv.as_ref());
    let want_report = !csv_to_stdout && (io.stdout_is_terminal || csv_file.is_some());

    for w in &warnings {
        writeln!(
            io.stderr,
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
    // `--shard K/N`: only this shard's jobs (issue 19).
    let todo = match &shard {
        Some(s) => runner::shard::slice(&todo, &s.assignment, 0),
        None => todo,
    };
    if resumed {
        results.write(&Record::Resume(ResumeMark {
            at_unix_s: now_unix_s(),
            done: done.len(),
            remaining: todo.len(),
        }))?;
    }
    let machine = runner::machine::check(plan.cpus.as_ref());
    results.write(&Record::Machine(machine.clone()))?;
    write!(io.stderr, "{}", machine.render())?;
    writeln!(
        io.stderr,
        "benchdiff: results file: {}",
        results.path().display()
    )?;
    if let (Some(rule), Some(d)) = (rule, decided) {
        writeln!(
            io.stderr,
            "{}",
            super::decided_rule_line(&d, rule.min_runs, rule.max_runs)
        )?;
    } else if let Some(rule) = rule {
        writeln!(
            io.stderr,
            "benchdiff: --runs auto: a configuration stops once its 95% interval is within ±{}% \
             of the old mean (at least {} runs, at most {}; the job count below is the most)",
            rule.target_pct, rule.min_runs, rule.max_runs
        )?;
    }
    writeln!(
        io.stderr,
        "benchdiff: {} file(s) x {} run(s) x 2 binaries = {} jobs, order {}{}{}",
        plan.files.len(),
        plan.runs,
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
        writeln!(
            io.stderr,
            "{}",
            super::shard_cmd::describe(s, all_jobs.len())
        )?;
    }
    if !csv_to_stdout && csv_file.is_none() {
        writeln!(
            io.stderr,
            "benchdiff: stdout is a terminal: no CSV written (use --csv FILE); the report follows at the end"
        )?;
    }

    let (stdout, stderr) = (&mut *io.stdout, &mut *io.stderr);
    let csv_sink: Option<Box<dyn Write + '_>> = if csv_to_stdout {
        Some(Box::new(stdout))
    } else if let Some(p) = csv_file {
        let f = std::fs::File::create(p).map_err(|e| anyhow::anyhow!("--csv {}: {e}", p.display()));
        match f {
            Ok(f) => Some(Box::new(BufWriter::new(f))),
            Err(e) => {
                writeln!(stderr, "benchdiff: {e:#}")?;
                return Ok(EXIT_USAGE);
            }
        }
    } else {
        None
    };
    let csv_name = match csv_file {
        Some(p) if !csv_to_stdout => p.display().to_string(),
        _ => "stdout".to_owned(),
    };
    let csv = match csv_sink.map(CsvWriter::new).transpose() {
        Ok(c) => c,
        Err(e) => {
            writeln!(stderr, "benchdiff: CSV output {csv_name}: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let progress = if !args.no_progress && io.stderr_is_terminal {
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
    };
    for r in &done {
        for s in &r.samples {
            let rep = s.to_report();
            obs.add(r.side, r.run, &r.file, &rep);
            obs.csv_row(r.side, &r.file, &rep)?;
        }
    }
    let opts = RunOptions {
        timeout,
        fail_fast: args.fail_fast,
    };
    // Installed until the partial report is written: a second Ctrl-C does not cut it off.
    let _guard = SignalGuard::install();
    let (summary, adaptive) = {
        match rule {
            Some(rule) => {
                let (s, o) = runner::adaptive::execute_adaptive(
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
                runner::execute(&plan, &todo, opts, &INTERRUPTED, &mut obs),
                None,
            ),
        }
    };
    if let Some(p) = &obs.progress {
        p.bar.finish_and_clear();
    }
    let results_path = obs.results.path().to_path_buf();
    let set = std::mem::take(&mut obs.set);
    let unused = std::mem::take(&mut obs.unused);
    drop(obs);

    let mut code = 0;
    if let Some(e) = &summary.output_error {
        writeln!(io.stderr, "benchdiff: stopped: cannot write output: {e}")?;
        code = EXIT_USAGE;
    }
    if !summary.failed.is_empty() {
        let real: Vec<_> = summary
            .failed
            .iter()
            .filter(|(_, e)| e != "interrupted")
            .collect();
        if !real.is_empty() {
            writeln!(
                io.stderr,
                "benchdiff: {} of {} job(s) failed{}; details in {}",
                real.len(),
                summary.jobs_run,
                if summary.stopped_by_fail_fast {
                    " (stopped by --fail-fast)"
                } else {
                    ""
                },
                results_path.display()
            )?;
            if !args.no_fail_on_error {
                code = code.max(EXIT_FAILED);
            }
        }
    }
    if summary.interrupted {
        writeln!(
            io.stderr,
            "benchdiff: interrupted after {} of {} job(s); continue with: benchdiff compare --resume {}",
            summary.jobs_run,
            todo.len(),
            results_path.display()
        )?;
    }
    if want_report {
        // The same notes `benchdiff report` prints for this run's results file.
        for n in unused.notes() {
            writeln!(io.stderr, "benchdiff: warning: {n}")?;
        }
        let mut failures = super::failures_of(Some(&results_path));
        if shard.is_some() {
            // The other shards' jobs are not "not run" here.
            failures
                .items
                .retain(|f| f.kind != crate::compare::failures::FailureKind::NotRun);
        }
        if set.is_empty() && failures.is_empty() {
            writeln!(io.stderr, "benchdiff: no samples, no report")?;
        } else {
            let mut info = run_info(&plan);
            if let Some(a) = &adaptive {
                info.sequential = a.settled_rows.clone();
            }
            let gate =
                super::emit_analysis_with(&set, &args.analysis, Some(&info), None, &failures, io)?;
            code = code.max(gate);
        }
    }
    if let Some(a) = &adaptive {
        write!(io.stderr, "{}", a.summary_text())?;
    }
    if summary.interrupted {
        code = EXIT_INTERRUPTED;
    }
    Ok(code)
}

/// The run facts the reports show (binaries, runs, order, seed).
fn run_info(plan: &Plan) -> crate::render::RunInfo {
    crate::render::RunInfo {
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

/// `compare` with command benchmarks: hands the shared options to
/// [`super::command_bench::compare_sharded`].
fn compare_commands(args: CompareArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    use super::calibrate_cmd::RunsArg;
    let mut node_only = Vec::new();
    if !args.filter.is_empty() {
        node_only.push("--filter");
    }
    if !args.exclude.is_empty() {
        node_only.push("--exclude");
    }
    if args.benchmark_dir.is_some() {
        node_only.push("--benchmark-dir");
    }
    if args.resume.is_some() {
        node_only.push("--resume");
    }
    if !args.categories.is_empty() {
        node_only.push("CATEGORY");
    }
    let auto = match args.adaptive.rules(args.runs, args.analysis.threshold) {
        Ok(a) => a,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let runs = match args.runs {
        // The default (30) gives way to a suite's `runs`.
        RunsArg::Fixed(n) if n != super::command_bench::DEFAULT_RUNS => Some(n),
        RunsArg::Fixed(_) => None,
        // The schedule's rounds: --max-runs.
        RunsArg::Auto => Some(args.adaptive.max_runs),
    };
    let common = super::command_bench::Common {
        old: args.old.as_ref().map(|p| p.to_string_lossy().into_owned()),
        new: args.new.as_ref().map(|p| p.to_string_lossy().into_owned()),
        runs,
        set: args.set.clone(),
        // The default random order gives way to a suite's `order`.
        order: (args.order != Order::Random).then_some(args.order),
        seed: args.seed,
        timeout: args.timeout,
        fail_fast: args.fail_fast,
        fail_on_error: !args.no_fail_on_error,
        csv: args.csv.clone(),
        results: args.results.clone(),
        cpus: args.cpus.clone(),
        no_progress: args.no_progress,
        node_only,
        auto,
    };
    let shard = match args.shard.resolve() {
        Ok(s) => s,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    super::command_bench::compare_sharded(common, &args.command, &args.analysis, shard, io)
}
