//! Command-line interface: clap definitions and the wiring of options to the pipeline
//! (sources → samples → comparisons → statistics → verdicts → renderers).
//!
//! [`run`] takes its output streams as arguments (benchstat's seam), so tests can drive the
//! whole program in-process; `main` only supplies the real streams.

#[path = "calibrate.rs"]
pub(crate) mod calibrate_cmd;
#[path = "compare.rs"]
mod compare_cmd;
mod examples;
#[path = "history.rs"]
mod history_cmd;
mod jobs;
#[path = "run.rs"]
mod run_cmd;
#[path = "shard.rs"]
pub(crate) mod shard_cmd;
mod shell;
#[path = "sweep.rs"]
mod sweep_cmd;

use crate::format;
use crate::report::{self, Messages};
use crate::run::ending::{Ended, Stop};
use crate::sample::SampleSet;
use crate::verdict::decide::Correction;
use clap::{FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;

/// Exit code for bad usage or unreadable input.
pub const EXIT_USAGE: i32 = report::EXIT_USAGE;
/// Exit code when a gate failed or a benchmark job failed.
pub const EXIT_FAILED: i32 = report::EXIT_FAILED;

/// Where output goes and what it is connected to.
pub struct Io<'a> {
    /// Standard output: reports and CSV.
    pub stdout: &'a mut dyn Write,
    /// Standard error: diagnostics, notes, progress.
    pub stderr: &'a mut dyn Write,
    /// True when the table may be coloured: stdout is a terminal (or `CLICOLOR_FORCE` is set)
    /// and neither `NO_COLOR` nor `CLICOLOR=0` is set.
    pub color: bool,
    /// Terminal width in columns when stdout is a terminal.
    pub width: Option<u16>,
    /// True when stdout is a terminal (`compare` then prints the report instead of CSV).
    pub stdout_is_terminal: bool,
    /// True when stderr is a terminal (`compare` then draws its progress bar).
    pub stderr_is_terminal: bool,
}

#[derive(Parser, Debug)]
#[command(
    name = "benchdiff",
    version,
    about = "Did this change make the program faster or slower, for real, or is it noise?",
    long_about = "Compares benchmark samples of an old and a new build: Welch's t-test per \
                  configuration, compare.R-identical output, and more."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Say what changed, from results of every supported format of an old and a new build
    /// (stdin when no file or `-`).
    ///
    /// compare.js CSV files (or concatenated CSV with one header each) are pooled, as Node's
    /// CI does; other formats (Go, hyperfine, Google Benchmark, libtest, criterion,
    /// pytest-benchmark, run.js CSV) are one side per file: old first, then new.
    Report(Box<ReportArgs>),
    /// Run the benchmarks of an old and a new build, interleaved, and say what changed: any
    /// command (--bench), a suite file, two git revisions, or Node benchmark files.
    ///
    /// Like Node's benchmark/compare.js: CSV to stdout (or --csv FILE), a JSON Lines results
    /// file, and the report at the end when stdout is a terminal or --csv FILE is given.
    Compare(Box<compare_cmd::CompareArgs>),
    /// How noisy is this machine? Runs BIN against itself (A/A) in compare's interleaved
    /// order and reports per configuration the coefficient of variation, the smallest change
    /// resolvable at 95%, the false positives with their rate and interval, and the runs a
    /// side needs for --target-accuracy; or, with --find-n KEY, picks a parameter value
    /// (Node's calibrate-n).
    Calibrate(Box<calibrate_cmd::CalibrateArgs>),
    /// Run one build's command benchmarks, like Node's benchmark/run.js: every configuration
    /// once (or --runs N), each sample printed as `name key=value: rate`.
    Run(Box<run_cmd::RunArgs>),
    /// Sweep parameter values on one build, like Node's benchmark/scatter.js: mean rate per
    /// configuration with its 95% interval, as a table and with --plot FILE.svg.
    Sweep(Box<sweep_cmd::SweepArgs>),
    /// Samples over many commits in a database (SQLite file or PostgreSQL): add, show change
    /// points, check the newest commit in CI, build a static dashboard, prune.
    History(Box<history_cmd::HistoryArgs>),
    /// Merge the results files of a sharded run (`compare --shard K/N`) into one that
    /// `report` reads: checks that every shard belongs to one plan (exit 2 naming the odd file
    /// and field), and that no shard is missing (unless --allow-missing) or given twice.
    Merge(Box<shard_cmd::MergeArgs>),
    #[command(flatten)]
    Shell(shell::ShellCommand),
}

#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// Input files (`-` or none reads stdin): compare.js CSV (pooled), or two result files of
    /// another format (Go benchmark text, hyperfine/Google Benchmark/pytest-benchmark JSON,
    /// libtest or criterion text, run.js CSV): the first is old, the second new.
    files: Vec<String>,
    #[command(flatten)]
    inputs: InputArgs,
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// Input size in bytes from which a single compare.js CSV file is reported in bounded
    /// memory: its samples are spilled to temporary files (under TMPDIR) by benchmark and
    /// analysed one partition at a time. Every format and option gives the same report
    /// either way.
    #[arg(long, value_name = "BYTES", default_value_t = report::DEFAULT_MEMORY_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..))]
    memory_limit: u64,
}

/// How `report` reads its inputs (formats other than compare.js CSV).
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct InputArgs {
    /// Format of every input instead of guessing it from the content: node-compare-csv,
    /// node-run-csv, results-jsonl, go, hyperfine, google-benchmark, libtest, criterion,
    /// pytest-benchmark.
    #[arg(long, value_name = "FORMAT", value_parser = parse_input_format)]
    pub(crate) input_format: Option<format::InputFormat>,
    /// Give a side its file: `--label old=FILE --label new=FILE` (instead of positional files).
    #[arg(long, value_name = "old|new=FILE")]
    pub(crate) label: Vec<String>,
    /// Take the sides from one file by a key's values, like benchstat's -col: first value old,
    /// second new (more: columns); `KEY=OLD,NEW` picks two. Go: a configuration key (`note`)
    /// or a name key (`/poly`); hyperfine: `command` or a parameter of `-P`/`-L` (`threads`).
    #[arg(long, value_name = "KEY[=OLD,NEW]")]
    pub(crate) sides_by: Option<String>,
}

fn parse_input_format(s: &str) -> Result<format::InputFormat, String> {
    format::InputFormat::from_name(s).ok_or_else(|| {
        format!(
            "unknown input format '{s}' (formats: {})",
            format::FORMATS.map(|f| f.name()).join(", ")
        )
    })
}

/// Options of the analysis and its report, shared by every command that ends in a report.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct AnalysisArgs {
    /// Output format: `table` for people, `r` for byte-identical `Rscript compare.R` output,
    /// `analyze` for compare.js --analyze's layout, `markdown` for a pull-request comment,
    /// `json` (schema/report.schema.json), `html` (self-contained page with plots), `csv`
    /// (compare.js CSV of the samples).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
    /// Write the report to FILE instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Option<std::path::PathBuf>,
    /// Also draw compare.R's box plot (rate by benchmark, filled by binary) to FILE.svg or
    /// FILE.png (rasterised with an embedded font).
    #[arg(long, value_name = "FILE.svg")]
    pub(crate) plot: Option<std::path::PathBuf>,
    /// The metric to compare (default: `rate`, else the first one): e.g. `wall`, `user`,
    /// `sys`, `max_rss` (whole-process, lower is better) or a metric the program reported.
    #[arg(long, value_name = "NAME")]
    pub(crate) metric: Option<String>,
    /// Correction of the p-values across all comparisons of the report: Holm–Bonferroni
    /// (family-wise error), Benjamini–Hochberg (false discovery rate) or none.
    #[arg(long, value_enum, default_value_t = Correction::Holm)]
    pub(crate) correction: Correction,
    /// Smallest change that matters, in percent (`1` or `1%`): an interval inside ±PCT is
    /// "no change".
    #[arg(long, value_name = "PCT", default_value = "1", value_parser = parse_percent)]
    pub(crate) threshold: f64,
    /// Exit with code 1 when a comparison is significant after correction and its whole 95%
    /// interval lies below −PCT percent (Node's --max-regression rule); lists those rows.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub(crate) max_regression: Option<f64>,
    /// Exit with code 1 when the A/A control (`compare --control`) called more identical-build
    /// rows changed than α allows: the machine was too noisy to trust the verdicts.
    #[arg(long)]
    pub(crate) fail_on_control: bool,
    /// After the table, every comparison by every method: medians with order-statistic
    /// intervals, the paired test, Welch's test, Mann–Whitney U with the Hodges–Lehmann shift.
    #[arg(long)]
    pub(crate) details: bool,
    /// HTML of more than 200 comparisons: also plot the comparisons whose name contains TEXT
    /// (repeatable; `''` plots every one). Changed (faster/slower) and flagged comparisons are
    /// always plotted; the others are rows of the summary table only. (A page of up to 200
    /// comparisons plots every one.)
    #[arg(long, value_name = "TEXT")]
    pub(crate) plot_rows: Vec<String>,
    /// Show each side's coefficient of variation beside the change (the table's `CV old/new`
    /// column). Always shown, with a summary of every metric, when the samples carry counters
    /// (--measure).
    #[arg(long)]
    pub(crate) cv: bool,
}

/// Parses a percentage given as `2` or `2%` (non-negative, finite).
pub(crate) fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim().strip_suffix('%').unwrap_or(s.trim()).trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a percentage (write e.g. 2 or 2%)")),
    }
}

/// A report's output format (clap's value names and help come from its variants).
pub(crate) use crate::report::Format;

/// Runs benchdiff with `args` (including the program name) and returns the exit code:
/// 0 success, 1 a gate or job failed, 2 bad usage or unreadable input.
pub fn run(args: Vec<OsString>, io: &mut Io<'_>) -> i32 {
    let parsed = examples::command().try_get_matches_from(args);
    let cli = match parsed.and_then(|m| Cli::from_arg_matches(&m)) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let text = if io.color {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            let _ = if e.use_stderr() {
                write!(io.stderr, "{text}")
            } else {
                write!(io.stdout, "{text}")
            };
            return code;
        }
    };
    let result = match cli.command {
        Command::Report(a) => report(*a, io),
        Command::Compare(a) => compare_cmd::compare(*a, io),
        Command::Calibrate(a) => calibrate_cmd::calibrate(*a, io),
        Command::Run(a) => run_cmd::run(*a, io),
        Command::Sweep(a) => sweep_cmd::sweep(*a, io),
        Command::History(a) => history_cmd::history(*a, io),
        Command::Merge(a) => shard_cmd::merge(*a, io),
        Command::Shell(c) => shell::run(c, io),
    };
    match result {
        Ok(code) => code,
        // A reader that went away (`benchdiff report … | head`) is a normal end, as for
        // other filters: quiet, exit 0.
        Err(e) if is_broken_pipe(&e) => 0,
        // Why a command stopped ([`Stop`]: its exit code), or an error: exit 2.
        Err(e) => {
            let _ = writeln!(io.stderr, "benchdiff: {e:#}");
            e.downcast_ref::<Stop>().map_or(EXIT_USAGE, |s| s.code)
        }
    }
}

/// True when `e` is (or wraps) an EPIPE write error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

impl AnalysisArgs {
    /// The report plan of these options for output to `io` (its colour and width), with the
    /// default memory limit.
    pub(crate) fn plan(&self, io: &Io<'_>) -> report::Plan {
        report::Plan {
            format: self.format,
            output: self.output.clone(),
            plot: self.plot.clone(),
            metric: self.metric.clone(),
            correction: self.correction,
            threshold_pct: self.threshold,
            max_regression: self.max_regression,
            fail_on_control: self.fail_on_control,
            details: self.details,
            plot_rows: self.plot_rows.clone(),
            color: io.color,
            width: io.width,
            memory_limit: report::DEFAULT_MEMORY_LIMIT,
            cv: self.cv,
        }
    }
}

impl InputArgs {
    /// The input plan of these options for the input `files`.
    fn plan(&self, files: Vec<String>) -> report::InputPlan {
        report::InputPlan {
            files,
            input_format: self.input_format,
            label: self.label.clone(),
            sides_by: self.sides_by.clone(),
        }
    }
}

/// Prints the report's `messages` on stderr, one line each.
///
/// # Errors
/// Writing to stderr failed.
fn print(messages: &Messages, io: &mut Io<'_>) -> std::io::Result<()> {
    for m in messages.iter() {
        writeln!(io.stderr, "{m}")?;
    }
    Ok(())
}

/// Prints `lines` on stderr, one line each.
///
/// # Errors
/// Writing to stderr failed.
fn say(lines: &[String], io: &mut Io<'_>) -> std::io::Result<()> {
    lines.iter().try_for_each(|l| writeln!(io.stderr, "{l}"))
}

/// Prints how a run ended: its closing lines, the report on `analysis` when one follows,
/// the text after it; returns the exit code.
///
/// # Errors
/// Writing to stdout or stderr failed.
fn ended(ended: Ended, analysis: Option<&AnalysisArgs>, io: &mut Io<'_>) -> anyhow::Result<i32> {
    say(&ended.lines, io)?;
    let gate = match (&ended.report, analysis) {
        (Some(r), Some(a)) => match &r.run {
            Some(run) => {
                let facts = report::Facts {
                    blocks: None,
                    run: Some(run),
                    input: None,
                    settled: &run.sequential,
                    failures: &r.failures,
                    format: None,
                    benchstat: None,
                };
                emit_analysis(&r.set, &facts, a, io)?
            }
            None => {
                let facts = report::Facts {
                    blocks: None,
                    run: None,
                    input: None,
                    settled: &r.settled,
                    failures: &r.failures,
                    format: None,
                    benchstat: None,
                };
                emit_analysis(&r.set, &facts, a, io)?
            }
        },
        _ => 0,
    };
    write!(io.stderr, "{}", ended.after)?;
    Ok(ended.code(gate))
}

fn report(args: ReportArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let mut plan = args.analysis.plan(io);
    let inputs = args.inputs.plan(args.files.clone());
    if let Err(e) = plan.check_outputs(&inputs) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    plan.memory_limit = args.memory_limit;
    let mut out = Messages::default();
    let code = report::report(&inputs, &plan, &mut *io.stdout, &mut out);
    print(&out, io)?;
    code
}

/// Runs the report pipeline on `set` ([`report::analyse`]) with what the command knows
/// besides the samples (`facts`: run facts, sequential rows, a sharded run's machines, failed
/// jobs) and prints its messages. Every command that ends in a report calls this. Returns
/// the exit code: 1 when `--max-regression` failed.
///
/// # Errors
/// Writing to stdout or stderr failed, or the plot could not be drawn.
pub(crate) fn emit_analysis(
    set: &SampleSet,
    facts: &report::Facts<'_>,
    args: &AnalysisArgs,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let plan = args.plan(io);
    let mut out = Messages::default();
    let code = report::analyse(set, facts, &plan, &mut *io.stdout, &mut out);
    print(&out, io)?;
    code
}
