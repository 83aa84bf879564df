//! Sharded runs on the command line: the `--shard`/`--split` options of `compare` and
//! `benchdiff merge`. The shard of a plan is [`crate::run::shard`]; merging shard files
//! [`crate::run::merge`]; `report` of shard files goes through the report's store.

use super::Io;
use crate::run;
use crate::run::merge::MergePlan;
use crate::run::shard::{self, ShardArg, ShardRequest, Split};
use std::path::PathBuf;

/// `--shard`, `--split`, `--balance-from`, `--shard-count` of `compare`.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct ShardArgs {
    /// Run only shard K of N of the plan (1-based: 1/4 … 4/4), or `auto`: K and N from a Slurm
    /// job array (SLURM_ARRAY_TASK_ID with _MIN/_MAX or _COUNT) or a Kubernetes Indexed Job
    /// (JOB_COMPLETION_INDEX, 0-based, with --shard-count N or BENCHDIFF_SHARD_COUNT). Merge the
    /// shards' results files with `benchdiff merge`. Without --seed every shard derives the
    /// same seed from the plan.
    #[arg(long, value_name = "K/N|auto", value_parser = shard::parse_shard,
          help_heading = "Sharded runs")]
    pub(crate) shard: Option<ShardArg>,
    /// With --shard auto and JOB_COMPLETION_INDEX: the number of shards N.
    #[arg(
        long,
        value_name = "N",
        requires = "shard",
        help_heading = "Sharded runs"
    )]
    pub(crate) shard_count: Option<u32>,
    /// How the plan is split: `benchmarks` (each shard runs whole benchmarks, every round) or
    /// `runs` (each shard runs every benchmark for its share of the rounds; each machine is
    /// then a block of the analysis).
    #[arg(long, value_enum, default_value_t = Split::Benchmarks, requires = "shard",
          help_heading = "Sharded runs")]
    pub(crate) split: Split,
    /// With --split benchmarks: balance the shards by the job times of this earlier results
    /// file (else by count). Every shard must be given the same file.
    #[arg(
        long,
        value_name = "RESULTS_FILE",
        requires = "shard",
        help_heading = "Sharded runs"
    )]
    pub(crate) balance_from: Option<PathBuf>,
}

impl ShardArgs {
    /// The typed request.
    pub(crate) fn request(&self) -> ShardRequest {
        ShardRequest {
            shard: self.shard,
            shard_count: self.shard_count,
            split: self.split,
            balance_from: self.balance_from.clone(),
        }
    }
}

/// Options of `benchdiff merge`.
#[derive(clap::Args, Debug)]
pub(crate) struct MergeArgs {
    /// The shards' results files (from `compare --shard K/N --results FILE`), in any order.
    #[arg(value_name = "SHARD_FILE", required = true)]
    files: Vec<PathBuf>,
    /// The merged results file to write (`benchdiff report` reads it).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// Merge even when shards are missing (with a warning; the report then lacks their jobs).
    #[arg(long)]
    allow_missing: bool,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
}

impl MergeArgs {
    /// The typed plan of the merge.
    fn plan(self) -> MergePlan {
        MergePlan {
            files: self.files,
            output: self.output,
            allow_missing: self.allow_missing,
            force: self.force,
        }
    }
}

/// `benchdiff merge`: exit 0 on success, 2 on a refused mix, duplicate or missing shard.
pub(crate) fn merge(args: MergeArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let merged = run::merge::merge(&args.plan());
    for w in &merged.warnings {
        writeln!(io.stderr, "benchdiff: {w}")?;
    }
    match merged.outcome {
        Ok(line) => writeln!(io.stderr, "benchdiff: {line}")
            .map(|()| 0)
            .map_err(Into::into),
        Err(e) => Err(crate::run::ending::Stop::usage(e).into()),
    }
}
