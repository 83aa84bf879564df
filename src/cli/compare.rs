//! `benchdiff compare`: runs Node-format benchmark files under an old and a new binary, like
//! Node's `benchmark/compare.js` (spec §1), writes its CSV, keeps a JSON Lines results file,
//! and ends with the report when a person is watching (stdout is a terminal) or the CSV went to
//! a file. Here the options and what is printed: the run is [`crate::run::compare`] (Node
//! files, and [`crate::run::command_bench`] for command benchmarks).

use super::jobs::{AdaptiveArgs, CommandArgs, JobArgs, NodeFileArgs};
use super::{AnalysisArgs, EXIT_USAGE, Io};
use crate::run;
use crate::run::adaptive::Runs;
use crate::run::compare::ComparePlan;
use crate::run::ending::Stop;
use crate::run::options::Streams;
use crate::run::schedule::Order;
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
    adaptive: AdaptiveArgs,
    #[command(flatten)]
    files: NodeFileArgs,
    #[command(flatten)]
    jobs: JobArgs,
    /// Job order: `random` shuffles each round's jobs with --seed; `node` is compare.js's
    /// (per file, per run, old then new).
    #[arg(long, value_enum, default_value_t = Order::Random)]
    order: Order,
    /// The A/A control: every round also runs the old binary (or old command) again as its
    /// own side, `control`, in the same seeded order, and every report compares old against
    /// it as it compares old against new (the row's measured noise floor, the suite's measured
    /// false-positive count). The compare.js CSV leaves the control rows out; the results file
    /// keeps them. See docs/control.md.
    #[arg(long)]
    control: bool,
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
                                "benchmark_dir", "order", "seed", "cpus", "categories",
                                "control"])]
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
    command: CommandArgs,
    /// Sharded runs: `--shard K/N|auto`, `--split`, `--balance-from`.
    #[command(flatten)]
    shard: super::shard_cmd::ShardArgs,
}

impl CompareArgs {
    /// The typed plan of these options.
    fn plan(self) -> ComparePlan {
        ComparePlan {
            old: self.old,
            new: self.new,
            runs: self.runs,
            auto: self.adaptive.auto(),
            threshold_pct: self.analysis.threshold,
            files: self.files.files(self.categories),
            jobs: self.jobs.options(),
            order: self.order,
            fail_fast: self.fail_fast,
            fail_on_error: !self.no_fail_on_error,
            csv: self.csv,
            results: self.results,
            force: self.force,
            resume: self.resume,
            no_progress: self.no_progress,
            shard: self.shard.request(),
            command: self.command.spec(),
            report: self.analysis.output.clone(),
            plot: self.analysis.plot.clone(),
            control: self.control,
        }
    }
}

/// Runs `benchdiff compare` ([`run::compare::compare`]), prints how it ended and the report,
/// and stores the run with `--history`; returns the exit code (see the command's help).
pub(crate) fn compare(args: CompareArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let (analysis, history) = (args.analysis.clone(), args.history.clone());
    let mut plan = args.plan();
    plan.check().map_err(Stop::usage)?;
    let mut recorder = history.open().map_err(Stop::usage)?;
    let streams = Streams {
        stdout: &mut *io.stdout,
        log: &mut *io.stderr,
        stdout_is_terminal: io.stdout_is_terminal,
        stderr_is_terminal: io.stderr_is_terminal,
    };
    let code = match run::compare::compare(&plan, streams)? {
        Ok(ended) => super::ended(ended, Some(&analysis), io)?,
        // A stop (a failed build: exit 1) still stores the results file with --history.
        Err(stop) => writeln!(io.stderr, "benchdiff: {stop}").map(|()| stop.code)?,
    };
    match &mut recorder {
        Some(r) if code != EXIT_USAGE => {
            super::history_cmd::store_run(r, &plan.results_file(), code, io)
        }
        _ => Ok(code),
    }
}
