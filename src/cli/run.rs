//! `benchdiff run`: one build, like Node's `benchmark/run.js`: every configuration of every
//! command benchmark once (or `--runs N` times), each sample printed as a result line
//! `name key=value …: rate` as it arrives, on the same runner as `compare`.

use super::command_bench::{self, CommandArgs, Common, Outputs, PlanError};
use super::{EXIT_FAILED, EXIT_USAGE, Io};
use crate::run::schedule::Order;
use std::path::PathBuf;

/// Options shared by `run` and `sweep`.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct SingleArgs {
    /// The program and fixed arguments (split like a shell would; no shell runs). With a
    /// --suite and no --bin, the suite's [new] side is built and used.
    #[arg(long, value_name = "BIN")]
    pub(crate) bin: Option<String>,
    /// Replace a parameter's values by one value (repeatable).
    #[arg(long, value_name = "K=V")]
    pub(crate) set: Vec<String>,
    /// Job order: `random` (seeded) or `node` (configuration by configuration).
    #[arg(long, value_enum)]
    pub(crate) order: Option<Order>,
    /// Seed of the random order.
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// Kill a run (its process group) after SECS seconds and record it as failed.
    #[arg(long, value_name = "SECS", value_parser = super::compare_cmd::parse_seconds)]
    pub(crate) timeout: Option<f64>,
    /// Stop at the first failed run.
    #[arg(long)]
    pub(crate) fail_fast: bool,
    /// Also write a JSON Lines results file (every run, with wall/user/sys/RSS).
    #[arg(long, value_name = "FILE")]
    pub(crate) results: Option<PathBuf>,
    /// Pin the children to these CPUs (e.g. 0 or 0-2,4).
    #[arg(long, value_name = "LIST")]
    pub(crate) cpus: Option<String>,
    #[command(flatten)]
    pub(crate) command: CommandArgs,
}

impl SingleArgs {
    /// The shared run options, with `runs`.
    pub(crate) fn common(&self, runs: Option<u32>) -> Common {
        Common {
            runs,
            set: self.set.clone(),
            order: self.order,
            seed: self.seed,
            timeout: self.timeout,
            fail_fast: self.fail_fast,
            results: self.results.clone(),
            cpus: self.cpus.clone(),
            no_progress: true,
            node_only: if self.command.old_rev.is_some() {
                vec!["--old-rev/--new-rev (compare only)"]
            } else {
                Vec::new()
            },
            ..Common::default()
        }
    }

    /// Checks `--results` and a `--plot` file against each other and the inputs (`--bin`,
    /// `--suite`) before anything runs ([`crate::output::check`]; an existing results file is
    /// refused: these commands have no `--force`).
    ///
    /// # Errors
    /// The message to print.
    pub(crate) fn check_outputs(&self, plot: Option<&std::path::Path>) -> Result<(), String> {
        use crate::output::{Input, Output, Use};
        let mut outs = super::analysis_outputs(None, plot)?;
        if let Some(p) = &self.results {
            outs.push(Output::new("--results", p, Use::Create).making_folder());
        }
        let bin = self.bin.as_deref().map(std::path::Path::new);
        let inputs: Vec<Input<'_>> = [
            ("--bin binary", bin),
            ("--suite file", self.command.suite.as_deref()),
        ]
        .into_iter()
        .filter_map(|(o, p)| p.map(|p| Input::new(o, p)))
        .collect();
        crate::output::check(&inputs, &outs, false)
    }

    /// Builds the plan or prints why not; `Err` holds the exit code.
    pub(crate) fn plan(
        &self,
        runs: Option<u32>,
        io: &mut Io<'_>,
    ) -> anyhow::Result<Result<command_bench::Prepared, i32>> {
        let common = self.common(runs);
        match command_bench::make_plan(&common, &self.command, 1, self.bin.as_deref(), io.stderr) {
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
    let finished = command_bench::execute(
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
            let stored = h.store_run(path, io)?;
            Ok(if !stored && code == 0 {
                EXIT_FAILED
            } else {
                code
            })
        }
        _ => Ok(code),
    }
}
