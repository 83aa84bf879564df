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
//! Here only the options and the wiring to the runner: the figures and rules are
//! [`crate::verdict::calibrate`] (math in [`crate::stats::precision`]), the text is
//! [`crate::render::calibrate`].

use super::{EXIT_FAILED, EXIT_USAGE, Io, parse_percent};
use crate::format::results::{JobRecord, JobStatus, Record, ResultsWriter};
use crate::render;
use crate::run::adaptive::{DecideRule, Rule, Stop};
use crate::run::affinity::{CpuList, cpuset_from_set_values};
use crate::run::machine;
use crate::run::plan::discover;
use crate::run::schedule::{Job, Order};
use crate::run::{self as runner, Observer, Plan, Report, RunOptions, RunnerError};
use crate::sample::{Sample, SampleSet, Side};
use crate::verdict::calibrate;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
    #[arg(long, value_name = "SECS", value_parser = super::compare_cmd::parse_seconds)]
    timeout: Option<f64>,
    /// Pin the children to these CPUs (taskset list).
    #[arg(long, value_name = "LIST")]
    cpus: Option<String>,
    /// Where to write the JSON Lines results file (must not exist; default
    /// benchdiff-calibrate-<UTC time>.jsonl in the system temporary folder, TMPDIR).
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

/// Collects samples and writes job records.
struct CalObserver<'a> {
    set: SampleSet,
    results: ResultsWriter,
    stderr: &'a mut dyn Write,
}

impl Observer for CalObserver<'_> {
    fn sample(&mut self, job: &Job, file: &str, r: &Report) -> std::io::Result<()> {
        let id = self.set.intern_configuration(file, &r.configuration);
        self.set.mark_rounds_recorded(); // the runner's rounds ran old and new together
        self.set.push(Sample {
            benchmark: id,
            side: job.side,
            metric: crate::sample::RATE,
            value: r.rate,
            time_s: r.time_s,
            run: Some(job.run),
        });
        Ok(())
    }

    fn job_finished(&mut self, job: &Job, record: &JobRecord) -> std::io::Result<()> {
        self.results.write(&Record::Job(record.clone()))?;
        if record.status != JobStatus::Ok {
            writeln!(
                self.stderr,
                "benchdiff: job failed: {} ({}, run {}): {}",
                crate::render::escape_control(&record.file),
                job.side,
                job.run + 1,
                record.error.as_deref().unwrap_or("failed")
            )?;
        }
        Ok(())
    }
}

fn now_unix_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn prepare(args: &CalibrateArgs) -> Result<Plan, RunnerError> {
    for s in &args.set {
        if s.split_once('=').is_none_or(|(k, _)| k.is_empty()) {
            return Err(RunnerError::Io(format!(
                "--set {s:?}: expected KEY=VALUE (e.g. --set n=1000)"
            )));
        }
    }
    if let Some(t) = args.timeout
        && !(t.is_finite() && t > 0.0)
    {
        return Err(RunnerError::Io(format!(
            "--timeout {t}: not a positive number of seconds"
        )));
    }
    if args.find_n.is_some() && !(args.start_n > 0.0 && args.increase > 1.0) {
        return Err(RunnerError::Io(
            "--find-n needs --start-n above 0 and --increase above 1".to_owned(),
        ));
    }
    let cwd = std::env::current_dir().map_err(|e| RunnerError::Io(e.to_string()))?;
    let exec = discover::resolve_binary("--bin", &args.bin, &cwd)?;
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
    let seed = args.seed.unwrap_or_else(|| {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        (t ^ (u64::from(std::process::id()) << 32)) >> 11
    });
    Ok(Plan {
        old: args.bin.display().to_string(),
        new: args.bin.display().to_string(),
        old_exec: exec.clone(),
        new_exec: exec,
        benchmark_dir: dir,
        files,
        runs: args.runs,
        set: args.set.clone(),
        order: args.order,
        seed,
        cpus,
    })
}

/// Runs `benchdiff calibrate`; returns the exit code.
pub(crate) fn calibrate(args: CalibrateArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let path = args
        .results
        .clone()
        .unwrap_or_else(|| crate::run::clock::temporary_results_path("benchdiff-calibrate"));
    let out = [
        crate::output::Output::new("--results", &path, crate::output::Use::Create).making_folder(),
    ];
    let bin = [crate::output::Input::new("--bin binary", &args.bin)];
    if let Err(e) = crate::output::check(&bin, &out, false) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    let plan = match prepare(&args) {
        Ok(p) => p,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let mut results = match ResultsWriter::create(&path) {
        Ok(r) => r,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let timeout = args.timeout.map(Duration::from_secs_f64);
    results.write(&Record::Run(plan.header(timeout, now_unix_s())))?;
    let info = machine::check(plan.cpus.as_ref());
    results.write(&Record::Machine(info.clone()))?;
    write!(io.stderr, "{}", info.render())?;
    writeln!(io.stderr, "benchdiff: results file: {}", path.display())?;
    let opts = RunOptions {
        timeout,
        fail_fast: false,
    };
    let stop = AtomicBool::new(false);
    match &args.find_n {
        Some(key) => find_n(&args, key, &plan, opts, &stop, results, io),
        None => aa(&args, &plan, opts, &stop, results, io),
    }
}

fn aa(
    args: &CalibrateArgs,
    plan: &Plan,
    opts: RunOptions,
    stop: &AtomicBool,
    results: ResultsWriter,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let jobs = plan.schedule();
    writeln!(
        io.stderr,
        "benchdiff: A/A calibration of {}: {} file(s) x {} run(s) x 2 sides = {} jobs, order {}, seed {}",
        plan.old,
        plan.files.len(),
        plan.runs,
        jobs.len(),
        match plan.order {
            Order::Node => "node",
            Order::Random => "random",
        },
        plan.seed
    )?;
    let started = std::time::Instant::now();
    let mut obs = CalObserver {
        set: SampleSet::new(),
        results,
        stderr: &mut *io.stderr,
    };
    let summary = runner::execute(plan, &jobs, opts, stop, &mut obs);
    let set = std::mem::take(&mut obs.set);
    drop(obs);
    let wall = started.elapsed().as_secs_f64();
    if set.is_empty() {
        writeln!(io.stderr, "benchdiff: no samples, no calibration")?;
        return Ok(EXIT_FAILED);
    }
    let rows = calibrate::aa_rows(&set, args.target_accuracy);
    let fp = calibrate::false_positives(&rows, &set);
    let text = render::calibrate::aa(&rows, fp.as_ref(), args.target_accuracy, wall);
    io.stdout.write_all(text.as_bytes())?;
    io.stdout.flush()?;
    Ok(if summary.failed.is_empty() {
        0
    } else {
        EXIT_FAILED
    })
}

fn find_n(
    args: &CalibrateArgs,
    key: &str,
    plan: &Plan,
    opts: RunOptions,
    stop: &AtomicBool,
    results: ResultsWriter,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let base_set: Vec<String> = plan
        .set
        .iter()
        .filter(|s| s.split_once('=').is_none_or(|(k, _)| k != key))
        .cloned()
        .collect();
    let mut obs = CalObserver {
        set: SampleSet::new(),
        results,
        stderr: &mut *io.stderr,
    };
    let mut chosen: Vec<(String, Option<f64>, String)> = Vec::new();
    let mut failed = false;
    let mut position = 0u32;
    for (fi, file) in plan.files.iter().enumerate() {
        let mut value = args.start_n;
        let mut result: (Option<f64>, String) = (None, String::new());
        for step in 0..=args.max_increases {
            let mut set = base_set.clone();
            set.push(format!(
                "{key}={}",
                crate::format::inspect::js_number(value)
            ));
            let p = Plan {
                set,
                ..plan.clone()
            };
            let jobs: Vec<Job> = (0..plan.runs)
                .map(|r| {
                    position += 1;
                    Job {
                        position: position - 1,
                        file: fi,
                        run: r,
                        side: Side::Old,
                    }
                })
                .collect();
            obs.set = SampleSet::new();
            let s = runner::execute(&p, &jobs, opts, stop, &mut obs);
            failed |= !s.failed.is_empty();
            let comps = crate::compare::group(&obs.set);
            let has_key = obs.set.benchmarks().iter().any(|b| {
                b.configuration.params.iter().any(|(k, _)| k == key)
                    || b.configuration
                        .text
                        .split(' ')
                        .any(|kv| kv.split_once('=').is_some_and(|(k, _)| k == key))
            });
            if comps.is_empty() || !has_key {
                result = (
                    None,
                    if comps.is_empty() {
                        "no samples".to_owned()
                    } else {
                        format!("no parameter {key}")
                    },
                );
                break;
            }
            let st = calibrate::find_step(value, &comps);
            let ok = calibrate::find_n_ok(&st, args.cv_threshold);
            writeln!(
                obs.stderr,
                "benchdiff: find-n: {file} {key}={}: overall CV {:.2}%, worst {:.2}% ({}){}",
                crate::format::inspect::js_number(value),
                st.overall_cv_pct,
                st.worst.0,
                st.worst.1,
                if ok { " -> ok" } else { "" }
            )?;
            if ok {
                result = (Some(value), format!("CV {:.2}% overall", st.overall_cv_pct));
                break;
            }
            if step == args.max_increases {
                result = (
                    None,
                    format!(
                        "no value up to {key}={} met CV < {}% overall and < {}% per configuration",
                        crate::format::inspect::js_number(value),
                        args.cv_threshold,
                        2.0 * args.cv_threshold
                    ),
                );
            }
            value *= args.increase;
        }
        chosen.push((file.clone(), result.0, result.1));
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
    }
    drop(obs);
    for (file, v, why) in &chosen {
        let line = render::calibrate::find_n_line(file, key, *v, why);
        io.stdout.write_all(line.as_bytes())?;
    }
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
