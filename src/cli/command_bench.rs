//! The command-benchmark options of `compare`, `run` and `sweep` (`--bench`, `-L`, `--suite`,
//! `--old-rev` …), and what `compare` of command benchmarks prints. Planning and running are
//! [`crate::run::command_bench`].

use super::{AnalysisArgs, EXIT_FAILED, EXIT_USAGE, Io};
use crate::run::command_bench::{self, CommandSpec, Common, Finished, PlanError};
use crate::run::compare::Streams;
use crate::run::shard::ShardPlan;
use std::io::Write;
use std::path::PathBuf;

/// Options that turn `compare` into a command-benchmark comparison (also used by `run` and
/// `sweep`).
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct CommandArgs {
    /// A command benchmark: the arguments after BIN, split like a shell would (no shell runs
    /// unless --shell) with `{key}` placeholders for parameters; repeat for several.
    #[arg(
        long,
        value_name = "ARGS",
        allow_hyphen_values = true,
        help_heading = "Command benchmarks"
    )]
    pub(crate) bench: Vec<String>,
    /// The name of the --bench benchmark at the same position (repeatable). Default: the
    /// program's file name when --old and --new (or --bin) are the same program and there is
    /// one --bench, else `PROGRAM ARGS` with the --bench template.
    #[arg(long, value_name = "NAME", help_heading = "Command benchmarks")]
    pub(crate) name: Vec<String>,
    /// A parameter and its values, comma-separated (repeatable): every combination runs, the
    /// last key varying fastest. `--set KEY=V` then replaces a key's list by V.
    #[arg(
        short = 'L',
        long = "list",
        value_name = "KEY=V1,V2,…",
        help_heading = "Command benchmarks"
    )]
    pub(crate) list: Vec<String>,
    /// Leave out the combinations that match all these KEY=VALUE pairs (repeatable).
    #[arg(
        long,
        value_name = "KEY=V[,KEY=V…]",
        help_heading = "Command benchmarks"
    )]
    pub(crate) skip: Vec<String>,
    /// Run each command through `sh -c` (values are single-quoted) instead of as an argv.
    #[arg(long, help_heading = "Command benchmarks")]
    pub(crate) shell: bool,
    /// Uncounted runs per binary and configuration before the counted ones.
    #[arg(long, value_name = "N", help_heading = "Command benchmarks")]
    pub(crate) warmup: Option<u32>,
    /// Shell command run before every run (not timed), e.g. to drop caches.
    #[arg(long, value_name = "CMD", help_heading = "Command benchmarks")]
    pub(crate) prepare: Option<String>,
    /// Shell command run once per binary before its first run (BENCHDIFF_SIDE, BENCHDIFF_BIN set).
    #[arg(long, value_name = "CMD", help_heading = "Command benchmarks")]
    pub(crate) setup: Option<String>,
    /// Shell command run once per binary after the last run.
    #[arg(long, value_name = "CMD", help_heading = "Command benchmarks")]
    pub(crate) cleanup: Option<String>,
    /// Environment variable for every run (repeatable).
    #[arg(
        long = "env",
        value_name = "KEY=VALUE",
        help_heading = "Command benchmarks"
    )]
    pub(crate) env: Vec<String>,
    /// A suite file (benchdiff.toml): builds, binaries, benchmarks with parameter matrices.
    #[arg(long, value_name = "FILE", help_heading = "Command benchmarks")]
    pub(crate) suite: Option<PathBuf>,
    /// Build the old binary from this git revision (with --new-rev, --build, --artifact).
    #[arg(long, value_name = "REV", requires_all = ["new_rev", "build", "artifact"],
          help_heading = "Builds from git")]
    pub(crate) old_rev: Option<String>,
    /// Build the new binary from this git revision.
    #[arg(long, value_name = "REV", requires_all = ["old_rev", "build", "artifact"],
          help_heading = "Builds from git")]
    pub(crate) new_rev: Option<String>,
    /// Build command, run with `sh -c` in each revision's temporary worktree.
    #[arg(long, value_name = "CMD", help_heading = "Builds from git")]
    pub(crate) build: Option<String>,
    /// The program inside the worktree after the build (relative path).
    #[arg(long, value_name = "PATH", help_heading = "Builds from git")]
    pub(crate) artifact: Option<String>,
}

impl CommandArgs {
    /// True when these options ask for command benchmarks.
    pub(crate) fn active(&self) -> bool {
        !self.bench.is_empty() || self.suite.is_some() || self.old_rev.is_some()
    }

    /// The typed request.
    pub(crate) fn spec(&self) -> CommandSpec {
        CommandSpec {
            bench: self.bench.clone(),
            name: self.name.clone(),
            list: self.list.clone(),
            skip: self.skip.clone(),
            shell: self.shell,
            warmup: self.warmup,
            prepare: self.prepare.clone(),
            setup: self.setup.clone(),
            cleanup: self.cleanup.clone(),
            env: self.env.clone(),
            suite: self.suite.clone(),
            old_rev: self.old_rev.clone(),
            new_rev: self.new_rev.clone(),
            build: self.build.clone(),
            artifact: self.artifact.clone(),
        }
    }
}

/// Prints the end-of-run lines for failures and interrupts; returns the exit code so far.
/// Failed jobs give exit code 1 unless `fail_on_error` is false (`--no-fail-on-error`).
pub(crate) fn summarise(
    f: &Finished,
    fail_on_error: bool,
    stderr: &mut dyn Write,
) -> std::io::Result<i32> {
    let mut code = 0;
    let where_ = f
        .results_path
        .as_ref()
        .map(|p| format!("; details in {}", p.display()))
        .unwrap_or_default();
    if let Some(e) = &f.summary.setup_failed {
        writeln!(stderr, "benchdiff: {e}")?;
        return Ok(EXIT_FAILED);
    }
    if let Some(e) = &f.summary.output_error {
        writeln!(stderr, "benchdiff: stopped: cannot write output: {e}")?;
        code = EXIT_USAGE;
    }
    if !f.summary.failed.is_empty() {
        writeln!(
            stderr,
            "benchdiff: {} of {} job(s) failed{}{where_}",
            f.summary.failed.len(),
            f.summary.jobs_run,
            if f.summary.stopped_by_fail_fast {
                " (stopped by --fail-fast)"
            } else {
                ""
            }
        )?;
        if fail_on_error {
            code = code.max(EXIT_FAILED);
        }
    }
    if f.summary.interrupted {
        writeln!(
            stderr,
            "benchdiff: interrupted after {} job(s)",
            f.summary.jobs_run
        )?;
        code = crate::run::signals::EXIT_INTERRUPTED;
    }
    Ok(code)
}

/// `benchdiff compare` with command benchmarks: the run ([`command_bench::compare`]), its
/// closing lines, and the report (on `--metric`) when stdout is a terminal or `--csv FILE` is
/// given; with `shard`, only that shard of the plan.
pub(crate) fn compare_sharded(
    common: Common,
    cmd: &CommandArgs,
    analysis: &AnalysisArgs,
    shard: Option<ShardPlan>,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let streams = Streams {
        stdout: &mut *io.stdout,
        log: &mut *io.stderr,
        stdout_is_terminal: io.stdout_is_terminal,
        stderr_is_terminal: io.stderr_is_terminal,
    };
    let compared = match command_bench::compare(&common, &cmd.spec(), shard, streams)? {
        Ok(c) => c,
        Err(PlanError::Usage(e)) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
        Err(PlanError::Build(e)) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_FAILED);
        }
    };
    let f = &compared.finished;
    let mut code = summarise(f, common.fail_on_error, io.stderr)?;
    if compared.want_report && f.summary.setup_failed.is_none() {
        // The same notes `benchdiff report` prints for this run's results file.
        for n in f.unused.notes() {
            writeln!(io.stderr, "benchdiff: warning: {n}")?;
        }
        let failures = f.failures();
        if f.set.is_empty() && failures.is_empty() {
            writeln!(io.stderr, "benchdiff: no samples, no report")?;
        } else {
            let settled = f
                .outcome
                .as_ref()
                .map_or(&[][..], |o| o.settled_rows.as_slice());
            let facts = crate::report::Facts {
                blocks: None,
                run: None,
                input: None,
                settled,
                failures: &failures,
            };
            let gate = super::emit_analysis(&f.set, &facts, analysis, io)?;
            code = code.max(gate);
        }
    }
    if let Some(o) = &f.outcome {
        write!(io.stderr, "{}", o.summary_text())?;
    }
    Ok(code)
}
