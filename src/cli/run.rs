//! `benchdiff run`: one build, like Node's `benchmark/run.js`: every configuration of every
//! command benchmark once (or `--runs N` times), each sample printed as a result line
//! `name key=value …: rate` as it arrives, on the same runner as `compare`.

use super::command_bench::{self, CommandArgs};
use super::jobs::JobArgs;
use super::{EXIT_FAILED, EXIT_USAGE, Io};
use crate::run::command_bench::{Common, Outputs, PlanError, Prepared};
use crate::run::schedule::Order;
use std::path::PathBuf;

/// Options shared by `run` and `sweep`.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct SingleArgs {
    /// The program and fixed arguments (split like a shell would; no shell runs). With a
    /// --suite and no --bin, the suite's [new] side is built and used.
    #[arg(long, value_name = "BIN")]
    pub(crate) bin: Option<String>,
    /// Job order: `random` (seeded) or `node` (configuration by configuration).
    #[arg(long, value_enum)]
    pub(crate) order: Option<Order>,
    /// Stop at the first failed run.
    #[arg(long)]
    pub(crate) fail_fast: bool,
    /// Also write a JSON Lines results file (every run, with wall/user/sys/RSS).
    #[arg(long, value_name = "FILE")]
    pub(crate) results: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) jobs: JobArgs,
    #[command(flatten)]
    pub(crate) command: CommandArgs,
}

impl SingleArgs {
    /// The shared run options, with `runs`.
    pub(crate) fn common(&self, runs: Option<u32>) -> Common {
        Common {
            runs,
            set: self.jobs.set.clone(),
            order: self.order,
            seed: self.jobs.seed,
            timeout: self.jobs.timeout,
            fail_fast: self.fail_fast,
            results: self.results.clone(),
            cpus: self.jobs.cpus.clone(),
            measure: self.jobs.measure.clone(),
            no_progress: true,
            node_only: if self.command.old_rev.is_some() {
                vec!["--old-rev/--new-rev (compare only)"]
            } else {
                Vec::new()
            },
            ..Common::default()
        }
    }

    /// Checks `--results` and a `--plot` file before anything runs
    /// ([`crate::run::command_bench::check_single_outputs`]).
    ///
    /// # Errors
    /// The message to print.
    pub(crate) fn check_outputs(&self, plot: Option<&std::path::Path>) -> Result<(), String> {
        crate::run::command_bench::check_single_outputs(
            self.results.as_deref(),
            plot,
            self.bin.as_deref(),
            self.command.suite.as_deref(),
        )
    }

    /// Builds the plan or prints why not; `Err` holds the exit code.
    pub(crate) fn plan(
        &self,
        runs: Option<u32>,
        io: &mut Io<'_>,
    ) -> anyhow::Result<Result<Prepared, i32>> {
        let common = self.common(runs);
        let spec = self.command.spec();
        match crate::run::command_bench::make_plan(
            &common,
            &spec,
            1,
            self.bin.as_deref(),
            io.stderr,
        ) {
            Ok(p) => Ok(Ok(p)),
            Err(PlanError::Usage(e)) => {
                writeln!(io.stderr, "benchdiff: {e}")?;
                Ok(Err(EXIT_USAGE))
            }
            Err(PlanError::Build(e)) => {
                writeln!(io.stderr, "benchdiff: {e}")?;
                Ok(Err(EXIT_FAILED))
            }
        }
    }
}

/// Options of `benchdiff run`.
#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// Runs per configuration.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    #[command(flatten)]
    single: SingleArgs,
    #[command(flatten)]
    history: super::history_cmd::HistoryTarget,
}

/// Runs `benchdiff run`; returns the exit code (0, 1 a run failed, 2 usage).
pub(crate) fn run(args: RunArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    if let Err(e) = args.single.check_outputs(None) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    let mut history = match args.history.open() {
        Ok(h) => h,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let prepared = match args.single.plan(Some(args.runs), io)? {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    // --history without --results: the results file lives in a temporary folder until stored.
    let scratch = match (&history, &args.single.results) {
        (Some(_), None) => Some(tempfile::tempdir()?),
        _ => None,
    };
    let results = args
        .single
        .results
        .clone()
        .or_else(|| scratch.as_ref().map(|d| d.path().join("run.results.jsonl")));
    let (stdout, stderr) = (&mut *io.stdout, &mut *io.stderr);
    let finished = crate::run::command_bench::execute(
        &prepared.plan,
        args.single.fail_fast,
        Outputs {
            csv: None,
            results: results.clone(),
            echo: Some(stdout),
            progress: false,
        },
        stderr,
    )?;
    let code = match finished {
        Ok(f) => command_bench::summarise(&f, true, io.stderr)?,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    match (&mut history, &results) {
        (Some(h), Some(path)) => {
            let stored = super::history_cmd::store_run(h, path, io)?;
            Ok(if !stored && code == 0 {
                EXIT_FAILED
            } else {
                code
            })
        }
        _ => Ok(code),
    }
}
