//! `benchdiff calibrate`'s options (A/A, or `--find-n KEY` as Node's calibrate-n) and
//! printing: the runs and the search are [`crate::run::calibrate`], the figures and rules
//! [`crate::verdict::calibrate`], the text [`crate::render::calibrate`].

use super::jobs::{JobArgs, NodeFileArgs};
use super::{Io, parse_percent};
use crate::run;
use crate::run::calibrate::{CalibratePlan, FindN};
use crate::run::ending::Stop;
use crate::run::schedule::Order;
use std::path::PathBuf;

/// Options of `benchdiff calibrate`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
A/A: BIN runs as both \"old\" and \"new\" in compare's interleaved order, so every difference \
is noise; a run that finds more than about 5% of its configurations significant says the \
machine (or the benchmark) is noisier than its own spread shows, e.g. through drift.

--find-n KEY re-implements Node's benchmark/calibrate-n.js: KEY = --start-n, then x --increase \
(at most --max-increases times) until the CV is below --cv-threshold overall and below twice \
that for every configuration.

Exit codes: 0 done; 1 a job failed; 2 bad usage.")]
pub(crate) struct CalibrateArgs {
    /// The binary to calibrate (a path, or a name looked up in PATH); with command benchmarks
    /// (--bench, --suite) the command, run as both sides.
    #[arg(long, value_name = "BIN", required_unless_present = "suite")]
    bin: Option<PathBuf>,
    /// The metric judged (default: the rate, else the first): e.g. `wall`, or a --measure
    /// counter such as `instructions`.
    #[arg(long, value_name = "NAME")]
    metric: Option<String>,
    /// Runs per side (A/A) or per tried value (--find-n).
    #[arg(long, value_name = "N", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(2..))]
    runs: u32,
    /// Accuracy to plan for: the report gives the runs a side needs for a 95% half-width at
    /// or below PCT.
    #[arg(long, value_name = "PCT", default_value = "2", value_parser = parse_percent)]
    target_accuracy: f64,
    /// Job order, as in compare.
    #[arg(long, value_enum, default_value_t = Order::Random)]
    order: Order,
    /// Where to write the JSON Lines results file (must not exist; default
    /// benchdiff-calibrate-<UTC time>.jsonl in the system temporary folder, TMPDIR).
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    #[command(flatten)]
    files: NodeFileArgs,
    #[command(flatten)]
    jobs: JobArgs,
    /// Find the value of benchmark parameter KEY that makes the CV small (Node's calibrate-n).
    #[arg(long, value_name = "KEY")]
    find_n: Option<String>,
    /// --find-n: first value tried.
    #[arg(long, value_name = "N", default_value_t = 10.0)]
    start_n: f64,
    /// --find-n: factor between tried values.
    #[arg(long, value_name = "F", default_value_t = 10.0)]
    increase: f64,
    /// --find-n: how many times the value may be increased.
    #[arg(long, value_name = "N", default_value_t = 6)]
    max_increases: u32,
    /// --find-n: overall CV threshold in percent (every configuration: twice this).
    #[arg(long, value_name = "PCT", default_value = "5", value_parser = parse_percent)]
    cv_threshold: f64,
    /// Categories (sub-folders of the benchmark folder), or `all`.
    #[arg(value_name = "CATEGORY", required_unless_present_any = ["bench", "suite"])]
    categories: Vec<String>,
    /// Command benchmarks: `--bench`, `-L`, `--suite` …; with any of them, --bin is a command.
    #[command(flatten)]
    command: super::jobs::CommandArgs,
}

impl CalibrateArgs {
    /// The typed plan of the calibration.
    fn plan(self) -> CalibratePlan {
        let find_n = self.find_n.map(|key| FindN {
            key,
            start_n: self.start_n,
            increase: self.increase,
            max_increases: self.max_increases,
            cv_threshold: self.cv_threshold,
        });
        CalibratePlan {
            bin: self.bin.unwrap_or_default(),
            runs: self.runs,
            target_accuracy: self.target_accuracy,
            files: self.files.files(self.categories),
            jobs: self.jobs.options(),
            order: self.order,
            results: self.results,
            find_n,
            command: self.command.spec(),
            metric: self.metric,
        }
    }
}

/// Runs `benchdiff calibrate` ([`run::calibrate::calibrate`]) and prints what it found;
/// returns the exit code.
pub(crate) fn calibrate(args: CalibrateArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let plan = args.plan();
    let found = run::calibrate::calibrate(&plan, io.stderr)?.map_err(Stop::usage)?;
    let (text, code) = found.output(&plan)?;
    io.stdout.write_all(text.as_bytes())?;
    io.stdout.flush()?;
    Ok(code)
}
