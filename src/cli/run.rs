//! `benchdiff run`: one build, like Node's `benchmark/run.js`: every configuration of every
//! command benchmark once (or `--runs N` times), each sample printed as a result line
//! `name key=value …: rate` as it arrives, on the same runner as `compare`.

use super::Io;
use super::jobs::{CommandArgs, JobArgs};
use crate::run::command_bench::{self, Common, Outputs, SinglePlan};
use crate::run::ending::Stop;
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
    /// The typed plan of `runs` runs per configuration.
    pub(crate) fn plan(&self, runs: u32) -> SinglePlan {
        let common = Common {
            runs: Some(runs),
            jobs: self.jobs.options(),
            order: self.order,
            fail_fast: self.fail_fast,
            results: self.results.clone(),
            ..Common::default()
        };
        let (bin, command) = (self.bin.clone(), self.command.spec());
        SinglePlan {
            bin,
            common,
            command,
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
    let plan = args.single.plan(args.runs);
    plan.check_outputs(None).map_err(Stop::usage)?;
    let mut history = args.history.open().map_err(Stop::usage)?;
    let prepared = plan.prepare(io.stderr)?;
    let (results, _scratch) = plan.results_file(history.is_some())?;
    let outputs = Outputs {
        csv: None,
        results: results.clone(),
        echo: Some(&mut *io.stdout),
        progress: false,
    };
    let finished =
        command_bench::execute(&prepared.plan, args.single.fail_fast, outputs, io.stderr)?;
    let code = super::ended(finished.map_err(Stop::usage)?.ended(true), None, io)?;
    match (&mut history, &results) {
        (Some(h), Some(path)) => super::history_cmd::store_run(h, path, code, io),
        _ => Ok(code),
    }
}
