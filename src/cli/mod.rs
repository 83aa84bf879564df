//! Command-line interface: clap definitions and the wiring of options to the pipeline
//! (sources → samples → comparisons → statistics → verdicts → renderers).
//!
//! [`run`] takes its output streams as arguments (benchstat's seam), so tests can drive the
//! whole program in-process; `main` only supplies the real streams.

#[path = "calibrate.rs"]
pub(crate) mod calibrate_cmd;
#[path = "command_bench.rs"]
pub(crate) mod command_bench;
#[path = "compare.rs"]
mod compare_cmd;
#[path = "history.rs"]
mod history_cmd;
#[path = "large.rs"]
pub(crate) mod large;
#[path = "run.rs"]
mod run_cmd;
#[path = "shard.rs"]
pub(crate) mod shard_cmd;
#[path = "sweep.rs"]
mod sweep_cmd;

use crate::sample::SampleSet;
use crate::stats::welch::WelchError;
use crate::verdict::decide::{self, Correction, Options};
use crate::{format, render, verdict};
use clap::{Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::Write;

/// Exit code for bad usage or unreadable input.
pub const EXIT_USAGE: i32 = 2;
/// Exit code when a gate failed or a benchmark job failed.
pub const EXIT_FAILED: i32 = 1;

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
    /// Report on benchmark results of every supported format (stdin when no file or `-`).
    ///
    /// compare.js CSV files (or concatenated CSV with one header each) are pooled, as Node's
    /// CI does; other formats (Go, hyperfine, Google Benchmark, libtest, criterion,
    /// pytest-benchmark, run.js CSV) are one side per file: old first, then new.
    Report(ReportArgs),
    /// Run Node-format benchmark files under an old and a new binary, like Node's
    /// benchmark/compare.js: CSV to stdout (or --csv FILE), a JSON Lines results file, and the
    /// report at the end when stdout is a terminal or --csv FILE is given.
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
}

/// How `report` reads its inputs (issue 8: formats other than compare.js CSV).
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
    /// Go format: take the sides from one file, by a configuration key (`note`) or a name key
    /// (`/poly`), like benchstat's -col: first value old, second new; `KEY=OLD,NEW` picks two.
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
    #[arg(long, value_enum, default_value_t = CorrectionArg::Holm)]
    pub(crate) correction: CorrectionArg,
    /// Smallest change that matters, in percent (`1` or `1%`): an interval inside ±PCT is
    /// "no change".
    #[arg(long, value_name = "PCT", default_value = "1", value_parser = parse_percent)]
    pub(crate) threshold: f64,
    /// Exit with code 1 when a comparison is significant after correction and its whole 95%
    /// interval lies below −PCT percent (Node's --max-regression rule); lists those rows.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub(crate) max_regression: Option<f64>,
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum CorrectionArg {
    /// Holm–Bonferroni step-down (default).
    Holm,
    /// Benjamini–Hochberg false discovery rate.
    Bh,
    /// No correction.
    None,
}

/// Parses a percentage given as `2` or `2%` (non-negative, finite).
pub(crate) fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim().strip_suffix('%').unwrap_or(s.trim()).trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a percentage (write e.g. 2 or 2%)")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Terminal table (colour on a terminal only; NO_COLOR, CLICOLOR, CLICOLOR_FORCE respected).
    Table,
    /// Exactly what `Rscript benchmark/compare.R` prints under LC_ALL=C.UTF-8.
    R,
    /// The layout of `node benchmark/compare.js --analyze` (table, text bar chart, Holm
    /// paragraph), from benchdiff's exact statistics.
    Analyze,
    /// A GitHub pull-request comment: summary line, changed rows, the rest in `<details>`.
    Markdown,
    /// Every statistic, verdict and flag as JSON (`schema_version`, schema/report.schema.json).
    Json,
    /// One self-contained HTML page with a box plot, density and drift plot per comparison.
    Html,
    /// compare.js CSV of the samples (for Rscript compare.R and node-benchmark-compare).
    Csv,
    /// Go benchstat's view: medians with order-statistic 95% intervals, Mann–Whitney p, `~`
    /// for no significant change, a geomean row; one table per unit.
    Benchstat,
    /// The samples in the Go benchmark format (read by benchstat: `benchstat -col binary`).
    Go,
}

/// Runs benchdiff with `args` (including the program name) and returns the exit code:
/// 0 success, 1 a gate or job failed, 2 bad usage or unreadable input.
pub fn run(args: Vec<OsString>, io: &mut Io<'_>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
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
        Command::Report(a) => report(a, io),
        Command::Compare(a) => compare_cmd::compare(*a, io),
        Command::Calibrate(a) => calibrate_cmd::calibrate(*a, io),
        Command::Run(a) => run_cmd::run(*a, io),
        Command::Sweep(a) => sweep_cmd::sweep(*a, io),
        Command::History(a) => history_cmd::history(*a, io),
        Command::Merge(a) => shard_cmd::merge(*a, io),
    };
    match result {
        Ok(code) => code,
        // A reader that went away (`benchdiff report … | head`) is a normal end, as for
        // other filters: quiet, exit 0.
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            let _ = writeln!(io.stderr, "benchdiff: {e:#}");
            EXIT_USAGE
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

/// Checks, before any work, the report's `-o FILE` and `--plot FILE.svg` against each other
/// and the command's `inputs` ([`crate::output::check`]); the plot must be named `*.svg` or
/// `*.png`.
///
/// # Errors
/// A message naming the option and the file.
pub(crate) fn check_outputs(
    args: &AnalysisArgs,
    inputs: &[crate::output::Input<'_>],
) -> Result<(), String> {
    let outs = analysis_outputs(args.output.as_deref(), args.plot.as_deref())?;
    crate::output::check(inputs, &outs, false)
}

/// The image format of a `--plot` file, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlotKind {
    /// `*.svg`: the plot as drawn.
    Svg,
    /// `*.png`: the same plot rasterised with an embedded font.
    Png,
}

/// `Svg` or `Png` from the file extension (any case); None for anything else.
pub(crate) fn plot_kind(p: &std::path::Path) -> Option<PlotKind> {
    let e = p.extension()?.to_str()?.to_ascii_lowercase();
    match e.as_str() {
        "svg" => Some(PlotKind::Svg),
        "png" => Some(PlotKind::Png),
        _ => None,
    }
}

/// The report file `output` and the plot `plot` (either optional) as outputs that are replaced
/// ([`crate::output::Use::Replace`]).
///
/// # Errors
/// The plot is not named `*.svg` or `*.png`.
pub(crate) fn analysis_outputs<'a>(
    output: Option<&'a std::path::Path>,
    plot: Option<&'a std::path::Path>,
) -> Result<Vec<crate::output::Output<'a>>, String> {
    use crate::output::{Output, Use};
    if let Some(p) = plot
        && plot_kind(p).is_none()
    {
        return Err(format!(
            "--plot {}: name the file *.svg or *.png",
            p.display()
        ));
    }
    let mut outs = Vec::new();
    for (flag, path) in [("-o", output), ("--plot", plot)] {
        if let Some(path) = path {
            outs.push(Output::new(flag, path, Use::Replace));
        }
    }
    Ok(outs)
}

/// What `report` read: the samples and, for `--format benchstat`, the column labels, units
/// declared exact and the configuration common to all inputs.
struct Inputs {
    set: SampleSet,
    bench: render::benchstat::Options,
    failures: crate::compare::failures::Failures,
    /// The run facts of a results file's plan record (the first one read).
    run: Option<render::RunInfo>,
    /// What the other inputs recorded ([`render::describe_input`]).
    input: String,
}

/// Reads every input of `report`: compare.js CSV streamed and pooled as before; any other
/// format sniffed (or `--input-format`), with files as sides (first old, second new, or
/// `--label old=F --label new=F`). Prints every problem as `file:line: …` on stderr and
/// returns `None` when an input could not be read, when inputs naming their sides are mixed
/// with one-side-per-file inputs, or (unless `one_side_ok`) when no benchmark has both sides.
fn read_inputs(
    files: &[String],
    opts: &InputArgs,
    one_side_ok: bool,
    io: &mut Io<'_>,
) -> anyhow::Result<Option<Inputs>> {
    use format::{self as import, InputFormat, ReadOptions};
    use std::collections::BTreeSet;
    let mut set = SampleSet::new();
    let mut sided: Vec<(String, Option<crate::sample::Side>)> = Vec::new();
    for l in &opts.label {
        let side = match l.split_once('=') {
            Some(("old", f)) => (f.to_owned(), Some(crate::sample::Side::Old)),
            Some(("new", f)) => (f.to_owned(), Some(crate::sample::Side::New)),
            _ => {
                writeln!(
                    io.stderr,
                    "benchdiff: --label {l}: write --label old=FILE or --label new=FILE"
                )?;
                return Ok(None);
            }
        };
        sided.push(side);
    }
    sided.sort_by_key(|(_, s)| *s);
    if !opts.label.is_empty() && !files.is_empty() {
        writeln!(
            io.stderr,
            "benchdiff: --label gives the files their sides; {} given besides it: name every \
             file with --label old=FILE or --label new=FILE",
            files.join(" ")
        )?;
        return Ok(None);
    }
    sided.extend(files.iter().map(|f| (f.clone(), None)));
    if sided.is_empty() {
        use std::io::IsTerminal as _;
        if std::io::stdin().is_terminal() {
            writeln!(
                io.stderr,
                "benchdiff: report: no input files, and standard input is a terminal; give \
                 result files (benchdiff report OLD NEW, or a compare.js CSV / results file), \
                 or pipe them in (benchdiff report - < results.csv). See benchdiff report --help."
            )?;
            return Ok(None);
        }
        sided.push(("-".to_owned(), None));
    }
    if sided.iter().filter(|(f, _)| f == "-").count() > 1 {
        writeln!(
            io.stderr,
            "benchdiff: standard input (-) is given more than once; it can be read only once"
        )?;
        return Ok(None);
    }
    let mut bench = render::benchstat::Options::default();
    let mut labels: Vec<String> = Vec::new();
    let mut configs: Vec<Vec<(String, String)>> = Vec::new();
    let mut exact: BTreeSet<String> = BTreeSet::new();
    let mut failed = false;
    let mut failures = crate::compare::failures::Failures::default();
    let mut run: Option<render::RunInfo> = None;
    let mut input_format: Option<InputFormat> = None;
    let mut unsided = 0usize;
    // Inputs that name each sample's side (compare.js CSV, results files, Go with --sides-by)
    // and inputs that are one side each: mixing them would put samples on a guessed side.
    let mut self_sided: Vec<String> = Vec::new();
    let mut one_side: Vec<String> = Vec::new();
    for (f, side) in &sided {
        // Every input is streamed: the head is read to guess the format, then the rest.
        let res = import::Input::open(f).and_then(|input| {
            let format = opts.input_format.or_else(|| input.sniff());
            if let Some(e) = format.and_then(|x| input_side_misuse(f, x, *side, opts)) {
                return Ok(Some(Err(e)));
            }
            if format
                .is_some_and(|x| x.has_sides() || (x == InputFormat::Go && opts.sides_by.is_some()))
            {
                self_sided.push(f.clone());
            } else {
                one_side.push(f.clone());
            }
            let side = side.unwrap_or_else(|| {
                if format.is_some_and(InputFormat::has_sides) {
                    crate::sample::Side::Old
                } else {
                    unsided += 1;
                    if unsided == 1 {
                        crate::sample::Side::Old
                    } else {
                        crate::sample::Side::New
                    }
                }
            });
            let ro = ReadOptions {
                side,
                sides_by: opts.sides_by.clone(),
            };
            input
                .read(format, &ro, &mut set)
                .map(|i| Some(Ok((i, side))))
        });
        match res {
            Ok(Some(Err(usage))) => {
                writeln!(io.stderr, "benchdiff: {usage}")?;
                return Ok(None);
            }
            Ok(Some(Ok((imported, side)))) => {
                for w in &imported.warnings {
                    writeln!(io.stderr, "benchdiff: warning: {w}")?;
                }
                // A results file whose jobs all failed has no samples for a reason the report
                // lists; the format hint would mislead.
                let all_failed = imported.results.as_ref().is_some_and(|l| {
                    !crate::compare::failures::Failures::from_loaded(l).is_empty()
                });
                if imported.samples == 0 && !all_failed {
                    warn_no_samples(f, imported.format, io)?;
                }
                if imported.side_values.len() == 2 {
                    labels = imported.side_values.clone();
                } else if !imported.format.is_some_and(InputFormat::has_sides) {
                    let i = usize::from(side == crate::sample::Side::New);
                    if labels.len() <= i {
                        labels.resize(i + 1, String::new());
                    }
                    labels[i] = f.clone();
                }
                exact.extend(imported.exact_units.iter().cloned());
                if let Some(loaded) = &imported.results {
                    let f = crate::compare::failures::Failures::from_loaded(loaded);
                    failures.items.extend(f.items);
                    failures.unused.merge(&f.unused);
                    if run.is_none() {
                        let mut info = render::RunInfo::from_header(&loaded.header);
                        info.sequential = loaded.settled.clone();
                        run = Some(info);
                    }
                }
                if input_format.is_none() {
                    input_format = imported.format;
                }
                configs.push(imported.config.clone());
            }
            Ok(None) => {}
            Err(e) => {
                writeln!(io.stderr, "benchdiff: {e}")?;
                failed = true;
            }
        }
    }
    if unsided > 2 {
        writeln!(
            io.stderr,
            "benchdiff: {unsided} result files without old/new sides: give two (old first), \
             or --label old=FILE --label new=FILE"
        )?;
        return Ok(None);
    }
    if failed {
        return Ok(None);
    }
    if !self_sided.is_empty() && !one_side.is_empty() {
        writeln!(
            io.stderr,
            "benchdiff: cannot mix inputs that name each sample's side ({}) with result files \
             that are one side each ({}): report them separately",
            self_sided.join(", "),
            one_side.join(", ")
        )?;
        return Ok(None);
    }
    if set.is_empty() && failures.is_empty() {
        writeln!(
            io.stderr,
            "benchdiff: no samples: the input holds no benchmark results (a CSV header but no rows, or a run of 0 benchmarks)"
        )?;
        return Ok(None);
    }
    if !one_side_ok && !has_both_sides(&set) && failures.is_empty() {
        let count = |side| set.iter().filter(|s| s.side == side).count();
        writeln!(
            io.stderr,
            "benchdiff: nothing to compare: no benchmark has samples on both sides (old: {} \
             samples, new: {} samples, from {}); give the old results and the new results \
             (two files, old first, or --label old=FILE --label new=FILE){}",
            count(crate::sample::Side::Old),
            count(crate::sample::Side::New),
            sided
                .iter()
                .map(|(f, _)| f.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if opts.sides_by.is_some() {
                ", or a --sides-by key with two values"
            } else {
                ""
            }
        )?;
        return Ok(None);
    }
    if let Some(l) = labels.first().filter(|l| !l.is_empty()) {
        bench.old_label = l.clone();
    }
    if let Some(l) = labels.get(1).filter(|l| !l.is_empty()) {
        bench.new_label = l.clone();
    }
    bench.exact_units = exact;
    // Configuration lines with one value across every input (benchstat prints those on top).
    if let Some(first) = configs.first() {
        let skip = opts
            .sides_by
            .as_deref()
            .map(|k| k.split('=').next().unwrap_or(k));
        for (k, v) in first {
            let single = configs
                .iter()
                .all(|c| c.iter().filter(|(ck, _)| ck == k).all(|(_, cv)| cv == v))
                && configs.iter().all(|c| c.iter().any(|(ck, _)| ck == k));
            if single && Some(k.as_str()) != skip && k != "binary" {
                bench.config.push((k.clone(), v.clone()));
            }
        }
    }
    let names: Vec<String> = sided.iter().map(|(f, _)| input_name(f)).collect();
    Ok(Some(Inputs {
        set,
        bench,
        failures,
        run,
        input: render::describe_input(input_format, &names),
    }))
}

/// How the reports that name their inputs (Markdown, JSON, HTML) name the input `f`: its file
/// name only (the report may be posted where the path means nothing), or `standard input`.
pub(crate) fn input_name(f: &str) -> String {
    if f == "-" {
        "standard input".to_owned()
    } else {
        std::path::Path::new(f)
            .file_name()
            .map_or_else(|| f.to_owned(), |n| n.to_string_lossy().into_owned())
    }
}

/// Why input `f` of `format` cannot be read with the given side options, if it cannot:
/// `--sides-by` applies to the Go format only, and a format naming each sample's side
/// itself takes no `--label`.
fn input_side_misuse(
    f: &str,
    format: format::InputFormat,
    label: Option<crate::sample::Side>,
    opts: &InputArgs,
) -> Option<String> {
    if let Some(k) = &opts.sides_by
        && format != format::InputFormat::Go
    {
        return Some(format!(
            "--sides-by {k}: applies to the Go benchmark format only, and {f} is {}",
            format.name()
        ));
    }
    if let (Some(side), true) = (label, format.has_sides()) {
        return Some(format!(
            "--label {}={f}: {f} is {}, which names the side of each sample itself; give it \
             as a positional file",
            side.label(),
            format.name()
        ));
    }
    None
}

/// True when some benchmark has samples of one metric on both sides.
///
/// One flag byte per benchmark and metric seen (bit 1: old, bit 2: new): in a vector indexed
/// by benchmark and metric when there are few metrics, else in a map with the fast non-keyed
/// hasher. A file that lists every old sample before the new ones is read to its middle, and
/// two look-ups with the default (SipHash) hasher per sample cost 20 ms of a million-sample
/// report (issue 16).
fn has_both_sides(set: &SampleSet) -> bool {
    let side_bit = |s: &crate::sample::Sample| match s.side {
        crate::sample::Side::Old => 1u8,
        crate::sample::Side::New => 2u8,
    };
    let metrics = set.metrics().len();
    if metrics <= 8 {
        let mut flags = vec![0u8; set.benchmarks().len() * metrics];
        for s in set.iter() {
            let i = s.benchmark.0 as usize * metrics + s.metric.0 as usize;
            if let Some(f) = flags.get_mut(i) {
                *f |= side_bit(&s);
                if *f == 3 {
                    return true;
                }
            }
        }
        return false;
    }
    let mut seen: rustc_hash::FxHashMap<(crate::sample::BenchmarkId, crate::sample::MetricId), u8> =
        rustc_hash::FxHashMap::default();
    for s in set.iter() {
        let flags = seen.entry((s.benchmark, s.metric)).or_insert(0);
        *flags |= side_bit(&s);
        if *flags == 3 {
            return true;
        }
    }
    false
}

fn report(args: ReportArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let labelled = args
        .inputs
        .label
        .iter()
        .filter_map(|l| l.split_once('=').map(|x| x.1));
    let inputs: Vec<crate::output::Input<'_>> = (args.files.iter().map(String::as_str))
        .chain(labelled)
        .map(|f| crate::output::Input::new("input file", std::path::Path::new(f)))
        .collect();
    if let Err(e) = check_outputs(&args.analysis, &inputs) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    // Shard files or a merged file of a sharded run: per machine, combined (issue 19).
    if args
        .inputs
        .input_format
        .is_none_or(|f| f == format::InputFormat::ResultsJsonl)
        && args.inputs.label.is_empty()
        && shard_cmd::any_sharded(&args.files)
    {
        return shard_cmd::report(&args.files, &args.analysis, io);
    }
    // Every format of a compare.js CSV over 256 MiB, but for a few options: in bounded memory.
    if let Some(code) = large::try_report(&args, io)? {
        return Ok(code);
    }
    // benchstat summarises a single file as one column; every other report compares sides.
    let one_side_ok = args.analysis.format == Format::Benchstat;
    let Some(inputs) = read_inputs(&args.files, &args.inputs, one_side_ok, io)? else {
        return Ok(EXIT_USAGE);
    };
    if args.analysis.format == Format::Benchstat {
        let mut text = render::benchstat::render(&inputs.set, &inputs.bench);
        text.push_str(&render::table::failures_section(&inputs.failures));
        return write_output(
            args.analysis.output.as_deref(),
            |out| out.write_all(text.as_bytes()),
            io,
        );
    }
    if args.analysis.format == Format::Go {
        // The Go format keeps the configuration lines every input shared (goos, goarch, pkg,
        // cpu), as benchstat prints them on top.
        // Streamed: a million samples are about 90 MB of text (issue 16).
        let go = |out: &mut dyn Write| -> std::io::Result<()> {
            for (k, v) in &inputs.bench.config {
                writeln!(out, "{k}: {v}")?;
            }
            format::go::write_to(&inputs.set, out)
        };
        return write_output(args.analysis.output.as_deref(), go, io);
    }
    let code = emit_analysis_with(
        &inputs.set,
        &args.analysis,
        inputs.run.as_ref(),
        Some(&inputs.input),
        &inputs.failures,
        io,
    );
    drop_in_background(inputs);
    code
}

/// Writes a report by `write` to the `-o` file `path` (created or truncated), else to stdout,
/// through a 64 KiB buffer, and flushes it. Returns the exit code: 0, or [`EXIT_USAGE`] after
/// saying on stderr that the `-o` file could not be created or written.
///
/// # Errors
/// Writing to stdout or stderr failed.
pub(crate) fn write_output(
    path: Option<&std::path::Path>,
    mut write: impl FnMut(&mut dyn Write) -> std::io::Result<()>,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let mut write = |w: &mut dyn Write| write(w).and_then(|()| w.flush());
    match path {
        Some(path) => {
            let written = std::fs::File::create(path)
                .and_then(|file| write(&mut std::io::BufWriter::with_capacity(1 << 16, file)));
            if let Err(e) = written {
                writeln!(io.stderr, "benchdiff: -o {}: {e}", path.display())?;
                return Ok(EXIT_USAGE);
            }
        }
        None => write(&mut std::io::BufWriter::with_capacity(
            1 << 16,
            &mut *io.stdout,
        ))?,
    }
    Ok(0)
}

/// Warns on stderr that the input `file` gave no samples in the format it was read as
/// (`read_as`; `None` when none was recognised).
///
/// # Errors
/// Writing to stderr failed.
pub(crate) fn warn_no_samples(
    file: &str,
    read_as: Option<format::InputFormat>,
    io: &mut Io<'_>,
) -> std::io::Result<()> {
    writeln!(
        io.stderr,
        "benchdiff: warning: {file}: no samples: nothing in it reads as {} (another \
         --input-format?)",
        read_as.map_or("a known format", format::InputFormat::name)
    )
}

/// Warns on stderr when some of the comparisons `(name, old samples, new samples)` have too few
/// samples for any rank test to reach p < 0.05 (compare.R's and compare.js's layouts show
/// stars by their own rule), naming how many and the first.
///
/// # Errors
/// Writing to stderr failed.
pub(crate) fn warn_too_few<'a>(
    counts: impl Iterator<Item = (&'a str, usize, usize)>,
    io: &mut Io<'_>,
) -> std::io::Result<()> {
    let mut few = counts.filter(|&(_, o, n)| decide::min_attainable_p(o, n) > 0.05);
    let Some((name, o, n)) = few.next() else {
        return Ok(());
    };
    writeln!(
        io.stderr,
        "benchdiff: warning: {} comparison(s) have too few samples for any verdict (first: {}, \
         {o}+{n}: no rank test can reach p < 0.05); their stars rest on normality alone",
        1 + few.count(),
        render::escape_control(name.trim_end()),
    )
}

/// The metric `name` when some sample of `set` has it. Units the Go format converts are found
/// by the name the input used: `MB/s` is `B/s`, `ns/op` is `sec/op`.
fn find_present_metric(set: &SampleSet, name: &str) -> Option<crate::sample::MetricId> {
    let alias = match name {
        "MB/s" => "B/s",
        "ns/op" | "time/op" => "sec/op",
        "B/op" | "allocs/op" => name,
        _ => name,
    };
    [name, alias]
        .into_iter()
        .filter_map(|n| set.find_metric(n))
        .find(|&id| set.has_metric(id))
}

/// The failures recorded in the results file at `path` (none when there is no file or it
/// cannot be read: the run itself has reported that), for the live report of a run.
pub(crate) fn failures_of(path: Option<&std::path::Path>) -> crate::compare::failures::Failures {
    path.and_then(|p| format::results::load(p).ok())
        .map(|l| crate::compare::failures::Failures::from_loaded(&l))
        .unwrap_or_default()
}

/// Runs the analysis pipeline on `set` and writes the report to `io.stdout` (notes on rows
/// without a test, and gate failures, go to `io.stderr`). Every command that ends in a report
/// (`report`, `compare`) calls this. Returns the exit code: 1 when `--max-regression` failed.
/// Takes the run facts of a command that measured the samples itself
/// (binaries, runs, order, seed), shown by the Markdown, JSON and HTML reports, and the
/// `failures` of its jobs (every format lists them; `--max-regression` then exits 1).
pub(crate) fn emit_analysis_with(
    set: &SampleSet,
    args: &AnalysisArgs,
    run: Option<&render::RunInfo>,
    input: Option<&str>,
    failures: &crate::compare::failures::Failures,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let settled = run.map_or(&[][..], |r| r.sequential.as_slice());
    emit_analysis_blocks(set, None, args, run, input, settled, failures, io)
}

/// [`emit_analysis_with`] for a run whose report has no run facts but whose sequential rule
/// (`--runs auto --stop decided`) settled rows: command benchmarks.
pub(crate) fn emit_analysis_settled(
    set: &SampleSet,
    args: &AnalysisArgs,
    settled: &[format::results::plan::Settled],
    failures: &crate::compare::failures::Failures,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    emit_analysis_blocks(set, None, args, None, None, settled, failures, io)
}

/// [`emit_analysis_with`] for a run sharded over machines: `blocks` are the machines (label,
/// that machine's samples); a comparison measured on several of them takes its change,
/// interval and p-value from the combination of the per-machine estimates
/// ([`crate::verdict::combine`]), never from the samples pooled in `set`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_analysis_blocks(
    set: &SampleSet,
    blocks: Option<&[(String, SampleSet)]>,
    args: &AnalysisArgs,
    run: Option<&render::RunInfo>,
    input: Option<&str>,
    settled: &[format::results::plan::Settled],
    failures: &crate::compare::failures::Failures,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let mut assessed = None;
    let code = emit_analysis_inner(
        set,
        blocks,
        args,
        run,
        input,
        settled,
        failures,
        io,
        &mut assessed,
    );
    drop_in_background(assessed);
    code
}

/// Drops `x` on a thread of its own: freeing the assessments of a large report (tens of
/// thousands of small allocations) takes longer than writing it, and the process may end
/// before that thread is done (issue 16).
pub(crate) fn drop_in_background<T: Send + 'static>(x: T) {
    // Without a thread (none can be started), it is dropped here.
    let _ = std::thread::Builder::new()
        .name("drop".to_owned())
        .spawn(move || drop(x));
}

/// [`emit_analysis_blocks`], leaving the assessments in `assessed` for the caller to drop.
#[allow(clippy::too_many_arguments)]
fn emit_analysis_inner(
    set: &SampleSet,
    blocks: Option<&[(String, SampleSet)]>,
    args: &AnalysisArgs,
    run: Option<&render::RunInfo>,
    input: Option<&str>,
    settled: &[format::results::plan::Settled],
    failures: &crate::compare::failures::Failures,
    io: &mut Io<'_>,
    assessed: &mut Option<Vec<decide::Assessment>>,
) -> anyhow::Result<i32> {
    let metric_id = match &args.metric {
        None => crate::compare::primary_metric(set),
        Some(name) => match find_present_metric(set, name) {
            Some(id) => id,
            None => {
                // Offer exactly the metrics some sample has.
                let names: Vec<&str> = set
                    .metrics()
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| set.has_metric(crate::sample::MetricId(*i as u32)))
                    .map(|(_, m)| m.name.as_str())
                    .collect();
                writeln!(
                    io.stderr,
                    "benchdiff: --metric {name}: no such metric (these samples have: {})",
                    names.join(", ")
                )?;
                return Ok(EXIT_USAGE);
            }
        },
    };
    // Formats whose figures are compare.js's rate (ops/s, higher is better) keep the
    // metric's direction: a time per operation becomes a rate, other costs are refused.
    let rate_set;
    let (set, metric_id) = match args.format {
        Format::R | Format::Analyze | Format::Csv => {
            let name = match args.format {
                Format::R => "r",
                Format::Analyze => "analyze",
                _ => "csv",
            };
            match render::csv::rate_view(set, metric_id, name) {
                Ok(None) => (set, metric_id),
                Ok(Some(view)) => {
                    writeln!(io.stderr, "benchdiff: note: {}", view.note)?;
                    rate_set = view.set;
                    (&rate_set, crate::sample::RATE)
                }
                Err(message) => {
                    writeln!(io.stderr, "benchdiff: {message}")?;
                    return Ok(EXIT_USAGE);
                }
            }
        }
        _ => (set, metric_id),
    };
    let mut comparisons = crate::compare::group_metric(set, metric_id);
    // csv, go and benchstat show no comparison (without --plot or a gate): only the notes on
    // stderr below look at them, so they are neither sorted nor tested (issue 16); the notes
    // still come in name order.
    let samples_only = matches!(args.format, Format::Csv | Format::Go | Format::Benchstat)
        && args.plot.is_none()
        && args.max_regression.is_none();
    // compare.js --analyze keeps first-seen order; every other report sorts by name.
    if args.format != Format::Analyze && !samples_only {
        crate::compare::sort_by_name(&mut comparisons);
    }
    // Benchmarks on one side only are listed, not compared (issue 14); compare.R keeps its rows.
    let one_sided = if args.format == Format::R {
        crate::compare::OneSided::default()
    } else {
        let (both, one) = crate::compare::split_one_sided(comparisons);
        comparisons = both;
        one.without_failures(failures)
    };
    // The analyze layout has no place for it: say it on stderr.
    if let (Format::Analyze, Some(w)) = (args.format, one_sided.warning()) {
        writeln!(
            io.stderr,
            "benchdiff: warning: {}",
            render::escape_control(&w)
        )?;
    }
    // compare.R's layout has no place for failures either: say them on stderr.
    if args.format == Format::R {
        let word = failures.heading().to_ascii_lowercase();
        for l in failures.lines() {
            writeln!(
                io.stderr,
                "benchdiff: warning: {word}: {}",
                render::escape_control(&l)
            )?;
        }
    }
    // compare.R's and compare.js's layouts show stars by their own rule: warn on stderr.
    if matches!(args.format, Format::R | Format::Analyze) {
        let counts = comparisons
            .iter()
            .map(|c| (c.name.as_str(), c.old.len(), c.new.len()));
        warn_too_few(counts, io)?;
    }
    // Only the formats that print them get the accuracy half-widths (three t quantiles a row;
    // the HTML report shows none).
    let accuracy = matches!(args.format, Format::R | Format::Analyze | Format::Json);
    let rows = if samples_only {
        let mut flagged: Vec<RowNote<'_>> = comparisons
            .iter()
            .filter_map(|c| {
                let error = crate::stats::welch::welch_t(&c.old, &c.new).err();
                RowNote::of(c, error, || {
                    crate::stats::welch::improvement_pct(&c.old, &c.new)
                })
            })
            .collect();
        // The same order as sorting every comparison first: the sort is stable and total.
        let coll = crate::compare::RootCollation::new();
        flagged.sort_by(|a, b| coll.compare(&a.comparison.name, &b.comparison.name));
        row_notes(&flagged, args.format, io)?;
        Vec::new()
    } else {
        let rows = verdict::rows_with(comparisons, accuracy);
        let flagged: Vec<RowNote<'_>> = rows
            .iter()
            .filter_map(|r| RowNote::of(&r.comparison, r.welch.err(), || r.improvement_pct))
            .collect();
        row_notes(&flagged, args.format, io)?;
        rows
    };
    let opts = Options {
        correction: match args.correction {
            CorrectionArg::Holm => Correction::Holm,
            CorrectionArg::Bh => Correction::BenjaminiHochberg,
            CorrectionArg::None => Correction::None,
        },
        threshold_pct: args.threshold,
        // Each format computes what it shows (issue 16): compare.R's and compare.js's layouts
        // show no distribution check, and only JSON and the table's --details show the rank
        // tests (HTML shows the table's notes: significant drift only). No verdict depends on
        // either.
        distribution_checks: !matches!(args.format, Format::R | Format::Analyze),
        rank_tests: args.format == Format::Json || (args.format == Format::Table && args.details),
        every_drift: args.format == Format::Json,
        ..Options::default()
    };
    let combined = match blocks {
        Some(b) => {
            let name = set.metric(metric_id).name.clone();
            let per: Vec<(String, Vec<crate::compare::Comparison>)> = b
                .iter()
                .map(|(label, s)| {
                    let comps = s
                        .find_metric(&name)
                        .map(|id| crate::compare::group_metric(s, id))
                        .unwrap_or_default();
                    (label.clone(), comps)
                })
                .collect();
            verdict::combine::combine_blocks(&per, opts.confidence)
        }
        None => Default::default(),
    };
    // Assessed once, for the report and the gate; compare.R's and compare.js's layouts need
    // no assessment (their gate assesses below).
    let needs_assessment = !matches!(args.format, Format::R | Format::Analyze) && !samples_only;
    let (rows, assessments) = if needs_assessment {
        // The gate takes the pooled estimates, never the per-machine combination.
        let kept = if args.max_regression.is_some() && !combined.is_empty() {
            rows.clone()
        } else {
            Vec::new()
        };
        let mut a = if combined.is_empty() {
            decide::assess(rows, &opts)
        } else {
            decide::assess_combined(rows, &combined, &opts)
        };
        // Rows a sequential rule stopped take the verdict of how they stopped.
        verdict::sequential::apply(&mut a, settled);
        (kept, Some(a))
    } else {
        (rows, None)
    };
    *assessed = assessments;
    let assessments = &*assessed;
    let a: &[decide::Assessment] = assessments.as_deref().unwrap_or(&[]);
    let d = render::ReportData {
        set,
        assessments: a,
        opts: &opts,
        run,
        input,
        one_sided: &one_sided,
        failures,
    };
    let to_file = args.output.is_some();
    let text = match args.format {
        Format::R => render::compare_r::render(&rows, render::compare_r::R_PRINT_WIDTH),
        Format::Table => {
            let (color, width) = if to_file {
                (false, None)
            } else {
                (io.color, io.width)
            };
            let t = render::table::render_with(a, &one_sided, &opts, color, width);
            let mut t = render::table::with_failures(t, a, &opts, failures);
            let m = set.metric(metric_id);
            if m.name != "rate" {
                // Which figure the changes are of, and which way is better (issue 5).
                t.insert_str(
                    0,
                    &format!(
                        "metric: {} ({}), {}\n\n",
                        m.name,
                        if m.unit.is_empty() { "count" } else { &m.unit },
                        match m.better {
                            crate::sample::Better::Lower => {
                                "lower is better: a negative change is an improvement (\"faster\")"
                            }
                            crate::sample::Better::Higher => "higher is better",
                        }
                    ),
                );
            }
            if args.details {
                t.push('\n');
                t.push_str(&render::table::details(a));
            }
            let marked: Vec<(String, u32, format::results::plan::Status)> = settled
                .iter()
                .map(|s| {
                    (
                        format!("{} {}", s.file, s.configuration)
                            .trim_end()
                            .to_owned(),
                        s.runs[0].min(s.runs[1]) as u32,
                        s.status,
                    )
                })
                .collect();
            t.push_str(&render::table::sequential_section(&marked));
            t
        }
        Format::Benchstat => {
            let mut t = render::benchstat::render(set, &render::benchstat::Options::default());
            t.push_str(&render::table::failures_section(failures));
            t
        }
        // Streamed below: a million rows are over 100 MB of JSON, over 1 GB of HTML and about
        // 90 MB of CSV or Go text.
        Format::Json | Format::Html | Format::Csv | Format::Go => String::new(),
        Format::Analyze => {
            let shown: Vec<&verdict::Row> = rows.iter().collect();
            render::analyze::render_rows(&shown, &opts, failures, args.max_regression)
        }
        Format::Markdown => render::markdown::render(&d),
    };
    let stream = |out: &mut dyn Write| -> std::io::Result<()> {
        match args.format {
            Format::Html => {
                let html = render::html::HtmlOptions {
                    plot_rows: args.plot_rows.clone(),
                };
                render::html::write_with(&d, &html, out)?
            }
            Format::Csv => render::csv::write_metric(set, metric_id, out)?,
            Format::Go => format::go::write_to(set, out)?,
            _ => render::json::write(&d, out)?,
        }
        out.flush()
    };
    let streamed = matches!(
        args.format,
        Format::Json | Format::Html | Format::Csv | Format::Go
    );
    match &args.output {
        Some(path) if streamed => {
            let written = std::fs::File::create(path)
                .and_then(|f| stream(&mut std::io::BufWriter::with_capacity(1 << 16, f)));
            if let Err(e) = written {
                writeln!(io.stderr, "benchdiff: -o {}: {e}", path.display())?;
                return Ok(EXIT_USAGE);
            }
        }
        None if streamed => {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut *io.stdout);
            stream(&mut w)?;
        }
        Some(path) => {
            if let Err(e) = std::fs::write(path, text.as_bytes()) {
                writeln!(io.stderr, "benchdiff: -o {}: {e}", path.display())?;
                return Ok(EXIT_USAGE);
            }
        }
        None => {
            io.stdout.write_all(text.as_bytes())?;
            io.stdout.flush()?;
        }
    }
    if let Some(path) = &args.plot {
        let Some(kind) = plot_kind(path) else {
            writeln!(
                io.stderr,
                "benchdiff: --plot {}: name the file *.svg or *.png",
                path.display()
            )?;
            return Ok(EXIT_USAGE);
        };
        let cs: Vec<&crate::compare::Comparison> = match assessments {
            Some(a) => a.iter().map(|x| &x.row.comparison).collect(),
            None => rows.iter().map(|r| &r.comparison).collect(),
        };
        let metric = set.metric(metric_id);
        let desc = if metric.name == "rate" {
            "rate of operations (higher is better)".to_owned()
        } else {
            format!(
                "{} ({}, {} is better)",
                metric.name,
                metric.unit,
                match metric.better {
                    crate::sample::Better::Higher => "higher",
                    crate::sample::Better::Lower => "lower",
                }
            )
        };
        let svg = render::plot::compare_r_box_plot(&cs, &desc)?;
        let bytes = match kind {
            PlotKind::Svg => svg.into_bytes(),
            PlotKind::Png => render::plot::svg_to_png(&svg)?,
        };
        if let Err(e) = std::fs::write(path, bytes) {
            writeln!(io.stderr, "benchdiff: --plot {}: {e}", path.display())?;
            return Ok(EXIT_USAGE);
        }
    }
    let Some(max) = args.max_regression else {
        return Ok(0);
    };
    // The report's own assessment when it has one of the pooled samples; else the verdicts
    // only (the gate reads no distribution check).
    let mut gate_assessed;
    let a: &[decide::Assessment] = match assessments {
        Some(a) if combined.is_empty() => a,
        _ => {
            let o = Options {
                distribution_checks: false,
                ..opts
            };
            gate_assessed = decide::assess(rows, &o);
            verdict::sequential::apply(&mut gate_assessed, settled);
            &gate_assessed
        }
    };
    let failing = decide::regressions(a, max, opts.alpha);
    // A benchmark that failed cannot pass a regression gate: it measured nothing.
    if !failures.is_empty() {
        writeln!(
            io.stderr,
            "FAIL: {}:",
            failures.summary().unwrap_or_default()
        )?;
        for l in failures.lines() {
            writeln!(io.stderr, "  {}", render::escape_control(&l))?;
        }
    }
    if failing.is_empty() {
        return Ok(if failures.is_empty() { 0 } else { EXIT_FAILED });
    }
    writeln!(
        io.stderr,
        "FAIL: {} benchmark(s) regressed by more than {max}% (interval excludes the threshold, \
         {} corrected across {} comparisons):",
        failing.len(),
        opts.correction.label(),
        a.len()
    )?;
    for f in failing {
        let (lo, hi) = f.change_ci_pct.unwrap_or((f64::NAN, f64::NAN));
        // The end of the interval nearest to no change: for a higher-is-better metric the
        // upper end (the change is at most that), for a lower-is-better one the lower end.
        let (end, bound) = match f.row.comparison.better {
            crate::sample::Better::Higher => ("up to", hi),
            crate::sample::Better::Lower => ("from", lo),
        };
        writeln!(
            io.stderr,
            "  {}  {} (95% CI {end} {}, adjusted p={:.2e})",
            f.row.comparison.name,
            render::table::signed_pct(f.change_pct),
            render::table::signed_pct(bound),
            f.p_adjusted
        )?;
    }
    Ok(EXIT_FAILED)
}

/// A comparison the notes on stderr speak of: values below 0, or no Welch test because the
/// data are essentially constant or not finite.
struct RowNote<'a> {
    comparison: &'a crate::compare::Comparison,
    negative: bool,
    error: Option<WelchError>,
    /// compare.R's improvement, percent (read only for essentially constant data).
    improvement_pct: f64,
}

impl<'a> RowNote<'a> {
    /// The note on `c` with Welch's `error`, if any; `improvement` is called only when needed.
    fn of(
        c: &'a crate::compare::Comparison,
        error: Option<WelchError>,
        improvement: impl FnOnce() -> f64,
    ) -> Option<RowNote<'a>> {
        let negative = c.old.iter().chain(&c.new).any(|v| *v < 0.0);
        let error =
            error.filter(|e| matches!(e, WelchError::EssentiallyConstant | WelchError::NotFinite));
        if !negative && error.is_none() {
            return None;
        }
        let improvement_pct = if error == Some(WelchError::EssentiallyConstant) {
            improvement()
        } else {
            f64::NAN
        };
        Some(RowNote {
            comparison: c,
            negative,
            error,
            improvement_pct,
        })
    }
}

/// Writes the notes of `rows` (in report order) to stderr: one warning for values below 0,
/// one note per comparison without a Welch test.
fn row_notes(rows: &[RowNote<'_>], format: Format, io: &mut Io<'_>) -> std::io::Result<()> {
    let non_positive: Vec<&str> = rows
        .iter()
        .filter(|r| r.negative)
        .map(|r| r.comparison.name.trim_end())
        .collect();
    if let Some(first) = non_positive.first() {
        let first = render::escape_control(first);
        writeln!(
            io.stderr,
            "benchdiff: warning: {} comparison(s) have values < 0 (first: {first}); changes are \
             ratios and need values ≥ 0: their intervals (paired, Fieller) are NA",
            non_positive.len()
        )?;
    }
    for row in rows {
        match row.error {
            Some(WelchError::EssentiallyConstant) => {
                let c = row.comparison;
                let constant = |v: &[f64]| v.iter().all(|x| *x == v[0]);
                let what = if !(constant(&c.old) && constant(&c.new)) {
                    "the standard error is negligible against the means (R's t.test rule: \
                     below 10·ε·max(|mean|), \"data are essentially constant\"), so the \
                     difference is taken as exact"
                } else if row.improvement_pct == 0.0 {
                    "both sides are constant and equal: no change"
                } else {
                    "both sides are constant and differ: the difference is exact"
                };
                let shown = if format == Format::R {
                    "confidence shown as NA"
                } else {
                    "p shown as \"exact\""
                };
                writeln!(
                    io.stderr,
                    "benchdiff: note: {}: {what}; no t-test, {shown} (R's compare.R stops the \
                     whole report here)",
                    c.name.trim_end()
                )?
            }
            Some(WelchError::NotFinite) => writeln!(
                io.stderr,
                "benchdiff: note: {}: a rate is NaN or infinite; no t-test, confidence shown as NA",
                row.comparison.name
            )?,
            _ => {}
        }
    }
    Ok(())
}

/// The stderr line that announces `--runs auto --stop decided` before a run (Node files and
/// command benchmarks alike): the boundary family, the family-wise level, the no-change band
/// (percent) and the run limits.
pub(crate) fn decided_rule_line(
    d: &crate::format::results::plan::DecideRule,
    min_runs: impl std::fmt::Display,
    max_runs: impl std::fmt::Display,
) -> String {
    format!(
        "benchdiff: --runs auto --stop decided: a configuration stops once its anytime-valid \
         interval ({} boundary, family-wise α {} split over the rows) lies beyond or within \
         ±{}% (at least {min_runs} runs, at most {max_runs}; the job count below is the most){}",
        d.method.name(),
        d.alpha,
        d.threshold_pct,
        if d.futility {
            "; from a third of the maximum on, one that has under 10% chance of being decided \
             by then stops undecided (--no-futility: runs it on)"
        } else {
            ""
        }
    )
}
