//! Option groups shared by the commands that run benchmarks (`compare`, `calibrate`, `run`,
//! `sweep`), flattened into each.

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
    #[arg(long, value_name = "SECS", value_parser = crate::run::compare::parse_seconds)]
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
