//! `benchdiff compare`: runs Node-format benchmark files under an old and a new binary, like
//! Node's `benchmark/compare.js` (spec §1), writes its CSV, keeps a JSON Lines results file,
//! and ends with the report when a person is watching (stdout is a terminal) or the CSV went to
//! a file. Here the options and what is printed: the runs are [`crate::run::compare`] (Node
//! files) and [`crate::run::command_bench`] (command benchmarks).

use super::jobs::{JobArgs, NodeFileArgs};
use super::{AnalysisArgs, EXIT_FAILED, EXIT_USAGE, Io};
use crate::run;
use crate::run::adaptive::{DecideRule, Rule, Runs};
use crate::run::clock::default_results_path;
use crate::run::compare::{NodeCompare, Streams};
use crate::run::schedule::Order;
pub use crate::run::signals::EXIT_INTERRUPTED;
use std::path::PathBuf;

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
          value_parser = run::adaptive::parse_runs)]
    runs: Runs,
    #[command(flatten)]
    adaptive: super::calibrate_cmd::AdaptiveArgs,
    #[command(flatten)]
    files: NodeFileArgs,
    #[command(flatten)]
    jobs: JobArgs,
    /// Job order: `random` shuffles each round's jobs with --seed; `node` is compare.js's
    /// (per file, per run, old then new).
    #[arg(long, value_enum, default_value_t = Order::Random)]
    order: Order,
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
    /// Command benchmarks: `--bench`, `-L`, `--suite`, `--old-rev` …; with any of them,
    /// --old/--new are commands, not Node.
    #[command(flatten)]
    command: super::command_bench::CommandArgs,
    /// Sharded runs: `--shard K/N|auto`, `--split`, `--balance-from`.
    #[command(flatten)]
    shard: super::shard_cmd::ShardArgs,
}

/// Runs `benchdiff compare`; returns the exit code (see the command's help).
pub(crate) fn compare(mut args: CompareArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    // The results file, chosen once: beside `--csv FILE`, else in the temporary folder (a
    // device or pipe as --csv) or ./benchdiff-results/.
    let derived = args.results.is_none() && args.resume.is_none();
    if derived {
        args.results = Some(default_results_path(args.csv.as_deref()));
    }
    let inputs = [
        ("--suite file", args.command.suite.as_deref()),
        ("--balance-from file", args.shard.balance_from.as_deref()),
        ("--old binary", args.old.as_deref()),
        ("--new binary", args.new.as_deref()),
    ];
    let files = run::compare::RunFiles {
        csv: args.csv.as_deref(),
        resume: args.resume.as_deref(),
        results: args.results.as_deref(),
        results_derived: derived,
        report: args.analysis.output.as_deref(),
        plot: args.analysis.plot.as_deref(),
        inputs: (inputs.into_iter())
            .filter_map(|(o, p)| p.map(|p| crate::output::Input::new(o, p)))
            .collect(),
        force: args.force,
    };
    if let Err(e) = run::compare::check_outputs(&files) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    if args.shard.shard.is_some() && args.runs == Runs::Auto {
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
        compare_nodes(&args, io)?
    };
    match &mut history {
        Some(h) if code != EXIT_USAGE => {
            let stored = super::history_cmd::store_run(h, &results_path, io)?;
            Ok(if !stored && code == 0 {
                EXIT_FAILED
            } else {
                code
            })
        }
        _ => Ok(code),
    }
}

impl CompareArgs {
    /// The typed plan of a Node-file comparison (`rules`: `--runs auto`'s, checked).
    fn node_plan(&self, rules: Option<(Rule, Option<DecideRule>)>) -> NodeCompare {
        NodeCompare {
            old: self.old.clone(),
            new: self.new.clone(),
            runs: self.adaptive.plan_runs(self.runs),
            rules,
            filter: self.files.filter.clone(),
            exclude: self.files.exclude.clone(),
            set: self.jobs.set.clone(),
            benchmark_dir: self.files.benchmark_dir.clone(),
            order: self.order,
            seed: self.jobs.seed,
            timeout: self.jobs.timeout,
            fail_fast: self.fail_fast,
            csv: self.csv.clone(),
            results: self.results.clone(),
            force: self.force,
            resume: self.resume.clone(),
            cpus: self.jobs.cpus.clone(),
            measure: self.jobs.measure.clone(),
            no_progress: self.no_progress,
            categories: self.categories.clone(),
            shard: self.shard.request(),
        }
    }
}

/// `compare` of Node files: the run ([`run::compare::execute`]), its closing lines and the
/// report.
fn compare_nodes(args: &CompareArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let rules = match args.adaptive.rules(args.runs, args.analysis.threshold) {
        Ok(r) => r,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let plan = args.node_plan(rules);
    let prep = match run::compare::prepare(&plan) {
        Ok(p) => p,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let streams = Streams {
        stdout: &mut *io.stdout,
        log: &mut *io.stderr,
        stdout_is_terminal: io.stdout_is_terminal,
        stderr_is_terminal: io.stderr_is_terminal,
    };
    let r = match run::compare::execute(&plan, prep, streams)? {
        Ok(r) => r,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let summary = &r.summary;
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
                r.results_path.display()
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
            r.jobs_to_run,
            r.results_path.display()
        )?;
    }
    if r.want_report {
        // The same notes `benchdiff report` prints for this run's results file.
        for n in r.unused.notes() {
            writeln!(io.stderr, "benchdiff: warning: {n}")?;
        }
        let failures = r.failures();
        if r.set.is_empty() && failures.is_empty() {
            writeln!(io.stderr, "benchdiff: no samples, no report")?;
        } else {
            let gate = super::emit_analysis_with(
                &r.set,
                &args.analysis,
                Some(&r.run),
                None,
                &failures,
                io,
            )?;
            code = code.max(gate);
        }
    }
    if let Some(a) = &r.adaptive {
        write!(io.stderr, "{}", a.summary_text())?;
    }
    if summary.interrupted {
        code = EXIT_INTERRUPTED;
    }
    Ok(code)
}

/// `compare` with command benchmarks: hands the shared options to
/// [`super::command_bench::compare_sharded`].
fn compare_commands(args: CompareArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let mut node_only = Vec::new();
    if !args.files.filter.is_empty() {
        node_only.push("--filter");
    }
    if !args.files.exclude.is_empty() {
        node_only.push("--exclude");
    }
    if args.files.benchmark_dir.is_some() {
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
        Runs::Fixed(n) if n != run::command_bench::DEFAULT_RUNS => Some(n),
        Runs::Fixed(_) => None,
        // The schedule's rounds: --max-runs.
        Runs::Auto => Some(args.adaptive.max_runs),
    };
    let common = run::command_bench::Common {
        old: args.old.as_ref().map(|p| p.to_string_lossy().into_owned()),
        new: args.new.as_ref().map(|p| p.to_string_lossy().into_owned()),
        runs,
        set: args.jobs.set.clone(),
        // The default random order gives way to a suite's `order`.
        order: (args.order != Order::Random).then_some(args.order),
        seed: args.jobs.seed,
        timeout: args.jobs.timeout,
        fail_fast: args.fail_fast,
        fail_on_error: !args.no_fail_on_error,
        csv: args.csv.clone(),
        results: args.results.clone(),
        cpus: args.jobs.cpus.clone(),
        measure: args.jobs.measure.clone(),
        no_progress: args.no_progress,
        node_only,
        auto,
    };
    let shard = match args.shard.request().resolve() {
        Ok(s) => s,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    super::command_bench::compare_sharded(common, &args.command, &args.analysis, shard, io)
}
