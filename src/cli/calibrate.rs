//! `benchdiff calibrate`: how noisy is this machine for these benchmarks, before a long run.
//!
//! - **A/A** (default): the binary `--bin` is run against itself as both "old" and "new", with
//!   the same schedule `compare` uses (rounds, seeded random order), so every difference is
//!   noise. Per configuration: the coefficient of variation, the smallest change the run could
//!   resolve at 95% (the half-width of the 95% interval of the difference, compare.R's
//!   "accuracy (*)"), the Welch p-value, and the runs a side would need for `--target-accuracy`.
//!   Then the rows that came out "significant" (false positives) with their rate against the
//!   nominal 5% and Wilson's 95% score interval for that rate ([`crate::stats::proportion`]).
//! - **`--find-n KEY`** (Node's `benchmark/calibrate-n.js`, spec §6): per benchmark file, run it
//!   `--runs` times with `KEY=--start-n`, then multiply KEY by `--increase`, at most
//!   `--max-increases` times, until the coefficient of variation is below `--cv-threshold`
//!   overall (the mean of the configurations' CVs) and below twice that for every
//!   configuration; prints the value chosen per benchmark.
//!
//! Also home of the options of `compare --runs auto` ([`AdaptiveArgs`]; their rules are
//! [`crate::run::adaptive::AutoOptions`]).
//!
//! Here only the options and the printing: the runs and the search are
//! [`crate::run::calibrate`], the figures and rules [`crate::verdict::calibrate`] (math in
//! [`crate::stats::precision`]), the text [`crate::render::calibrate`].

use super::jobs::{JobArgs, NodeFileArgs};
use super::{EXIT_FAILED, EXIT_USAGE, Io, parse_percent};
use crate::render;
use crate::run;
use crate::run::adaptive::{AutoOptions, DecideRule, Rule, Runs, Stop};
use crate::run::calibrate::{CalibratePlan, Calibration, FindN};
use crate::run::schedule::Order;
use std::path::PathBuf;

/// The options of `compare --runs auto`.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct AdaptiveArgs {
    /// With --runs auto: stop running a configuration once the half-width of its 95% interval
    /// (percent of the old mean) is at or below PCT (`2` or `2%`). Precision only, never
    /// significance, so error rates stay valid.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub(crate) target_accuracy: Option<f64>,
    /// With --runs auto: samples a side needs before a configuration may stop.
    #[arg(long, value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u32).range(2..))]
    pub(crate) min_runs: u32,
    /// With --runs auto: runs at most (the fixed schedule the savings are measured against).
    #[arg(long, value_name = "N", default_value_t = 60,
          value_parser = clap::value_parser!(u32).range(2..))]
    pub(crate) max_runs: u32,
    /// With --runs auto: what stops a configuration. `decided` (the default): as soon as its
    /// anytime-valid interval lies wholly beyond ±--threshold (faster/slower) or wholly inside
    /// it (no change), with the 5% family-wise error split over the rows; `precision`: once
    /// its 95% interval is within --target-accuracy (the default when --target-accuracy is
    /// given).
    #[arg(long, value_enum, value_name = "RULE")]
    pub(crate) stop: Option<Stop>,
    /// With --stop decided: run every undecided configuration to --max-runs. By default a
    /// configuration also stops, reported inconclusive, once it has run a third of
    /// --max-runs and its chance of being decided by --max-runs (conditional power at its
    /// current estimate) is below 10%; that never decides anything wrongly, it only saves
    /// the runs that could not settle it.
    #[arg(long)]
    pub(crate) no_futility: bool,
}

impl AdaptiveArgs {
    /// The typed options.
    fn auto(&self) -> AutoOptions {
        AutoOptions {
            target_accuracy: self.target_accuracy,
            min_runs: self.min_runs,
            max_runs: self.max_runs,
            stop: self.stop,
            no_futility: self.no_futility,
        }
    }

    /// [`AutoOptions::rules`] of these options.
    pub(crate) fn rules(
        &self,
        runs: Runs,
        threshold_pct: f64,
    ) -> Result<Option<(Rule, Option<DecideRule>)>, String> {
        self.auto().rules(runs, threshold_pct)
    }

    /// [`AutoOptions::plan_runs`] of these options.
    pub(crate) fn plan_runs(&self, runs: Runs) -> u32 {
        self.auto().plan_runs(runs)
    }
}

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
    /// The binary to calibrate (a path, or a name looked up in PATH).
    #[arg(long, value_name = "BIN")]
    bin: PathBuf,
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
    #[arg(value_name = "CATEGORY", required = true)]
    categories: Vec<String>,
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
            bin: self.bin,
            runs: self.runs,
            target_accuracy: self.target_accuracy,
            filter: self.files.filter,
            exclude: self.files.exclude,
            set: self.jobs.set,
            benchmark_dir: self.files.benchmark_dir,
            order: self.order,
            seed: self.jobs.seed,
            timeout: self.jobs.timeout,
            cpus: self.jobs.cpus,
            measure: self.jobs.measure,
            results: self.results,
            find_n,
            categories: self.categories,
        }
    }
}

/// Runs `benchdiff calibrate`; returns the exit code.
pub(crate) fn calibrate(args: CalibrateArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let plan = args.plan();
    let outcome = match run::calibrate::calibrate(&plan, io.stderr)? {
        Ok(c) => c,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let failed = match outcome {
        Calibration::NoSamples => {
            writeln!(io.stderr, "benchdiff: no samples, no calibration")?;
            return Ok(EXIT_FAILED);
        }
        Calibration::Aa {
            rows,
            false_positives,
            wall_s,
            failed,
        } => {
            let text = render::calibrate::aa(
                &rows,
                false_positives.as_ref(),
                plan.target_accuracy,
                wall_s,
            );
            io.stdout.write_all(text.as_bytes())?;
            io.stdout.flush()?;
            failed
        }
        Calibration::FindN { chosen, failed } => {
            let key = plan.find_n.as_ref().map_or("", |f| f.key.as_str());
            for c in &chosen {
                let line = render::calibrate::find_n_line(&c.file, key, c.value, &c.why);
                io.stdout.write_all(line.as_bytes())?;
            }
            failed
        }
    };
    Ok(if failed { EXIT_FAILED } else { 0 })
}
