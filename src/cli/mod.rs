//! Command-line interface: clap definitions and the wiring of options to the pipeline
//! (sources → samples → comparisons → statistics → verdicts → renderers).
//!
//! [`run`] takes its output streams as arguments (benchstat's seam), so tests can drive the
//! whole program in-process; `main` only supplies the real streams.

#[path = "compare.rs"]
mod compare_cmd;

use crate::error::ImportError;
use crate::sample::SampleSet;
use crate::stats::welch::WelchError;
use crate::verdict::decide::{self, Correction, Options};
use crate::{render, source, verdict};
use clap::{Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::{BufReader, Write};

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
    /// True when stdout is a terminal and colour is allowed (not `NO_COLOR`).
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
    /// Report on samples read from compare.js CSV files (stdin when no file or `-`).
    ///
    /// Several files (or concatenated CSV with one header each) are pooled, as Node's CI
    /// does. Rates are operations per second (higher is better).
    Report(ReportArgs),
    /// Run Node-format benchmark files under an old and a new binary, like Node's
    /// benchmark/compare.js: CSV to stdout (or --csv FILE), a JSON Lines results file, and the
    /// report at the end when stdout is a terminal or --csv FILE is given.
    Compare(Box<compare_cmd::CompareArgs>),
}

#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// CSV files written by Node's benchmark/compare.js; `-` or none reads stdin.
    files: Vec<String>,
    #[command(flatten)]
    analysis: AnalysisArgs,
}

/// Options of the analysis and its report, shared by every command that ends in a report.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct AnalysisArgs {
    /// Output format: `table` for people, `r` for byte-identical `Rscript compare.R` output.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
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
    /// Terminal table (colour on a terminal only; NO_COLOR respected).
    Table,
    /// Exactly what `Rscript benchmark/compare.R` prints under LC_ALL=C.UTF-8.
    R,
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
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(io.stderr, "benchdiff: {e:#}");
            EXIT_USAGE
        }
    }
}

fn read_inputs(files: &[String], io: &mut Io<'_>) -> anyhow::Result<Option<SampleSet>> {
    let mut set = SampleSet::new();
    let files: Vec<String> = if files.is_empty() {
        vec!["-".to_owned()]
    } else {
        files.to_vec()
    };
    let mut failed = false;
    for f in &files {
        let res = if f == "-" {
            let stdin = std::io::stdin();
            source::node_csv::read_compare_csv(stdin.lock(), "<stdin>", &mut set)
        } else {
            match std::fs::File::open(f) {
                Ok(file) => source::node_csv::read_compare_csv(
                    BufReader::with_capacity(1 << 16, file),
                    f,
                    &mut set,
                ),
                Err(e) => Err(ImportError::Io {
                    file: f.clone(),
                    source: e,
                }),
            }
        };
        if let Err(e) = res {
            writeln!(io.stderr, "benchdiff: {e}")?;
            failed = true;
        }
    }
    if failed {
        return Ok(None);
    }
    if set.is_empty() {
        writeln!(
            io.stderr,
            "benchdiff: no samples: the input has a header but no rows"
        )?;
        return Ok(None);
    }
    Ok(Some(set))
}

fn report(args: ReportArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let Some(set) = read_inputs(&args.files, io)? else {
        return Ok(EXIT_USAGE);
    };
    emit_analysis(&set, &args.analysis, io)
}

/// Runs the analysis pipeline on `set` and writes the report to `io.stdout` (notes on rows
/// without a test, and gate failures, go to `io.stderr`). Every command that ends in a report
/// (`report`, `compare`) calls this. Returns the exit code: 1 when `--max-regression` failed.
pub(crate) fn emit_analysis(
    set: &SampleSet,
    args: &AnalysisArgs,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let mut comparisons = crate::compare::group(set);
    crate::compare::sort_by_name(&mut comparisons);
    let rows = verdict::rows(comparisons);
    for row in &rows {
        match row.welch {
            Err(WelchError::EssentiallyConstant) => writeln!(
                io.stderr,
                "benchdiff: note: {}: data are essentially constant (zero variance on both sides); \
                 no t-test, confidence shown as NA (R's compare.R would stop the whole report here)",
                row.comparison.name
            )?,
            Err(WelchError::NotFinite) => writeln!(
                io.stderr,
                "benchdiff: note: {}: a rate is NaN or infinite; no t-test, confidence shown as NA",
                row.comparison.name
            )?,
            _ => {}
        }
    }
    let opts = Options {
        correction: match args.correction {
            CorrectionArg::Holm => Correction::Holm,
            CorrectionArg::Bh => Correction::BenjaminiHochberg,
            CorrectionArg::None => Correction::None,
        },
        threshold_pct: args.threshold,
        ..Options::default()
    };
    let text = match args.format {
        Format::R => render::compare_r::render(&rows, render::compare_r::R_PRINT_WIDTH),
        Format::Table => {
            let a = decide::assess(rows.clone(), &opts);
            let mut t = render::table::render(&a, &opts, io.color, io.width);
            if args.details {
                t.push('\n');
                t.push_str(&render::table::details(&a));
            }
            t
        }
    };
    io.stdout.write_all(text.as_bytes())?;
    io.stdout.flush()?;
    let Some(max) = args.max_regression else {
        return Ok(0);
    };
    let a = decide::assess(rows, &opts);
    let failing = decide::regressions(&a, max, opts.alpha);
    if failing.is_empty() {
        return Ok(0);
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
        let (_, hi) = f.change_ci_pct.unwrap_or((f64::NAN, f64::NAN));
        writeln!(
            io.stderr,
            "  {}  {} (95% CI up to {}, adjusted p={:.2e})",
            f.row.comparison.name,
            render::table::signed_pct(f.change_pct),
            render::table::signed_pct(hi),
            f.p_adjusted
        )?;
    }
    Ok(EXIT_FAILED)
}
