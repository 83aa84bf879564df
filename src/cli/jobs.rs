//! Option groups shared by the commands that run benchmarks (`compare`, `calibrate`, `run`,
//! `sweep`), flattened into each, and the typed requests they give.

use super::parse_percent;
use crate::run::adaptive::{AutoOptions, Stop};
use crate::run::command_bench::CommandSpec;
use crate::run::options::{JobOptions, NodeFiles};
use std::path::PathBuf;

/// How every job runs: arguments, seed, time limit, CPUs.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct JobArgs {
    /// KEY=VALUE for every benchmark (repeatable). A Node benchmark file gets it verbatim as
    /// an argument (`n=1000` replaces that parameter's values; `CPUSET=0-2` also pins the
    /// children to those CPUs); a command benchmark's parameter KEY takes the one value VALUE.
    #[arg(long, value_name = "K=V")]
    pub(crate) set: Vec<String>,
    /// Seed of the random order (default: a suite's seed, else from the clock; printed and
    /// recorded).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// Kill a job (its whole process group) after SECS seconds and record it as failed.
    #[arg(long, value_name = "SECS", value_parser = crate::run::options::parse_seconds)]
    pub(crate) timeout: Option<f64>,
    /// Pin the children to these CPUs (taskset list, e.g. 0 or 0-2,4).
    #[arg(long, value_name = "LIST")]
    pub(crate) cpus: Option<String>,
    /// Counters per run of the child and its descendants, each a metric beside wall time:
    /// instructions, cycles, branch-misses, task-clock, context-switches, cpu-migrations,
    /// page-faults, all-software (comma-separated; docs/counters.md).
    #[arg(long, value_name = "LIST")]
    pub(crate) measure: Option<String>,
}

impl JobArgs {
    /// The typed options.
    pub(crate) fn options(&self) -> JobOptions {
        JobOptions {
            set: self.set.clone(),
            seed: self.seed,
            timeout: self.timeout,
            cpus: self.cpus.clone(),
            measure: self.measure.clone(),
        }
    }
}

/// Which Node benchmark files run (with the CATEGORY arguments).
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct NodeFileArgs {
    /// Run only files whose name contains S (repeatable; any match keeps a file).
    #[arg(long, value_name = "S")]
    pub(crate) filter: Vec<String>,
    /// Skip files whose name contains S (repeatable; wins over --filter).
    #[arg(long, value_name = "S")]
    pub(crate) exclude: Vec<String>,
    /// The benchmark folder (default: ./benchmark, or the first `benchmark` folder upward).
    #[arg(long, value_name = "DIR")]
    pub(crate) benchmark_dir: Option<PathBuf>,
}

impl NodeFileArgs {
    /// The typed selection of these options and the CATEGORY arguments.
    pub(crate) fn files(self, categories: Vec<String>) -> NodeFiles {
        NodeFiles {
            filter: self.filter,
            exclude: self.exclude,
            benchmark_dir: self.benchmark_dir,
            categories,
        }
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
    /// The typed options.
    pub(crate) fn auto(&self) -> AutoOptions {
        AutoOptions {
            target_accuracy: self.target_accuracy,
            min_runs: self.min_runs,
            max_runs: self.max_runs,
            stop: self.stop,
            no_futility: self.no_futility,
        }
    }
}

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
