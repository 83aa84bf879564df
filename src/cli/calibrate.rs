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
//! Also home of the options of `compare --runs auto` ([`AdaptiveArgs`]).
//!
//! Here only the options and the printing: the runs and the search are
//! [`crate::run::calibrate`], the figures and rules [`crate::verdict::calibrate`] (math in
//! [`crate::stats::precision`]), the text [`crate::render::calibrate`].

use super::{EXIT_FAILED, EXIT_USAGE, Io, parse_percent};
use crate::render;
use crate::run;
use crate::run::adaptive::{DecideRule, Rule, Stop};
use crate::run::calibrate::{CalibratePlan, Calibration, FindN};
use crate::run::schedule::Order;
use std::path::PathBuf;

/// `--runs`: a fixed count or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunsArg {
    /// Exactly this many runs per binary and file.
    Fixed(u32),
    /// Adaptive: `--target-accuracy`, `--min-runs`, `--max-runs`.
    Auto,
}

/// Parses `--runs`: a positive integer or `auto`.
pub(crate) fn parse_runs(s: &str) -> Result<RunsArg, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("auto") {
        return Ok(RunsArg::Auto);
    }
    match t.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(RunsArg::Fixed(n)),
        _ => Err(format!(
            "'{s}' is not a run count (a positive integer, or `auto` with --target-accuracy)"
        )),
    }
}

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
    /// The rules of `--runs auto`: the run limits, and the decided rule's settings under
    /// `--stop decided` (`threshold_pct`: the report's `--threshold`). `None` for a fixed
    /// count.
    ///
    /// # Errors
    /// A usage message: `--stop` with a fixed count, `--stop decided` with
    /// `--target-accuracy`, or what [`AdaptiveArgs::rule`] refuses.
    pub(crate) fn rules(
        &self,
        runs: RunsArg,
        threshold_pct: f64,
    ) -> Result<Option<(Rule, Option<DecideRule>)>, String> {
        if self.no_futility && runs != RunsArg::Auto {
            return Err("--no-futility belongs to --runs auto --stop decided".to_owned());
        }
        let stop = match (runs, self.stop, self.target_accuracy) {
            (RunsArg::Fixed(_), Some(_), _) => {
                return Err("--stop needs --runs auto (it decides when to stop)".to_owned());
            }
            (RunsArg::Fixed(_), None, _) => return self.rule(runs).map(|r| r.map(|r| (r, None))),
            (RunsArg::Auto, Some(s), _) => s,
            (RunsArg::Auto, None, Some(_)) => Stop::Precision,
            (RunsArg::Auto, None, None) => Stop::Decided,
        };
        if self.no_futility && stop == Stop::Precision {
            return Err("--no-futility belongs to --stop decided".to_owned());
        }
        match stop {
            Stop::Precision => self.rule(runs).map(|r| r.map(|r| (r, None))),
            Stop::Decided if self.target_accuracy.is_some() => Err(
                "--target-accuracy belongs to --stop precision; --stop decided stops on --threshold"
                    .to_owned(),
            ),
            Stop::Decided if self.min_runs > self.max_runs => Err(format!(
                "--min-runs {} is above --max-runs {}",
                self.min_runs, self.max_runs
            )),
            Stop::Decided => Ok(Some((
                Rule {
                    target_pct: 0.0,
                    min_runs: self.min_runs,
                    max_runs: self.max_runs,
                },
                Some(DecideRule {
                    stop: Stop::Decided,
                    threshold_pct,
                    alpha: crate::run::sequential::ALPHA,
                    method: crate::stats::sequential::Method::default(),
                    futility: !self.no_futility,
                }),
            ))),
        }
    }

    /// The stopping rule for `--runs auto` (`None` for a fixed count).
    ///
    /// # Errors
    /// A usage message: `--runs auto` without `--target-accuracy` (or a target of 0), a target
    /// with a fixed count, or `--min-runs` above `--max-runs`.
    pub(crate) fn rule(&self, runs: RunsArg) -> Result<Option<Rule>, String> {
        match (runs, self.target_accuracy) {
            (RunsArg::Fixed(_), None) => Ok(None),
            (RunsArg::Fixed(_), Some(_)) => {
                Err("--target-accuracy needs --runs auto (it decides when to stop)".to_owned())
            }
            (RunsArg::Auto, None) => Err(
                "--runs auto needs --target-accuracy PCT (e.g. --target-accuracy 2%)".to_owned(),
            ),
            (RunsArg::Auto, Some(t)) if t <= 0.0 => {
                Err("--target-accuracy must be above 0%".to_owned())
            }
            (RunsArg::Auto, Some(_)) if self.min_runs > self.max_runs => Err(format!(
                "--min-runs {} is above --max-runs {}",
                self.min_runs, self.max_runs
            )),
            (RunsArg::Auto, Some(t)) => Ok(Some(Rule {
                target_pct: t,
                min_runs: self.min_runs,
                max_runs: self.max_runs,
            })),
        }
    }

    /// The runs of the plan: the fixed count, or `--max-runs` for `auto`.
    pub(crate) fn plan_runs(&self, runs: RunsArg) -> u32 {
        match runs {
            RunsArg::Fixed(n) => n,
            RunsArg::Auto => self.max_runs,
        }
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
    /// Run only files whose name contains S (repeatable; any match keeps a file).
    #[arg(long, value_name = "S")]
    filter: Vec<String>,
    /// Skip files whose name contains S (repeatable; wins over --filter).
    #[arg(long, value_name = "S")]
    exclude: Vec<String>,
    /// Passed verbatim to every benchmark as an argument (as in compare).
    #[arg(long, value_name = "K=V")]
    set: Vec<String>,
    /// The benchmark folder (default: ./benchmark, or the first `benchmark` folder upward).
    #[arg(long, value_name = "DIR")]
    benchmark_dir: Option<PathBuf>,
    /// Job order, as in compare.
    #[arg(long, value_enum, default_value_t = Order::Random)]
    order: Order,
    /// Seed of the random order (default: from the clock; printed and recorded).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Kill a job after SECS seconds and record it as failed.
    #[arg(long, value_name = "SECS", value_parser = crate::run::compare::parse_seconds)]
    timeout: Option<f64>,
    /// Pin the children to these CPUs (taskset list).
    #[arg(long, value_name = "LIST")]
    cpus: Option<String>,
    /// Where to write the JSON Lines results file (must not exist; default
    /// ./benchdiff-results/calibrate-<unix time>.jsonl).
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
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
            filter: self.filter,
            exclude: self.exclude,
            set: self.set,
            benchmark_dir: self.benchmark_dir,
            order: self.order,
            seed: self.seed,
            timeout: self.timeout,
            cpus: self.cpus,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_arg() {
        assert_eq!(parse_runs("auto"), Ok(RunsArg::Auto));
        assert_eq!(parse_runs("30"), Ok(RunsArg::Fixed(30)));
        assert!(parse_runs("0").is_err() && parse_runs("x").is_err());
    }
}
