//! Sharded runs on the command line (issue 19): the `--shard`/`--split` options of `compare`,
//! `benchdiff merge`, and `report` of shard files or a merged file (per machine, combined).

use super::{AnalysisArgs, EXIT_USAGE, Io};
use crate::format::results::shard::{self as fshard, Segment, ShardError};
use crate::run::shard::{self, Assignment, Shard, ShardArg, Split};
use crate::sample::SampleSet;
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

/// A resolved shard of a run: K/N, split, and the balance file's hash and weights source.
#[derive(Clone, Debug)]
pub(crate) struct ShardPlan {
    pub(crate) shard: Shard,
    pub(crate) split: Split,
    pub(crate) balance: Option<PathBuf>,
}

impl ShardArgs {
    /// The shard to run, if any (`auto` read from the process environment).
    pub(crate) fn resolve(&self) -> Result<Option<ShardPlan>, String> {
        let Some(arg) = self.shard else {
            return Ok(None);
        };
        let s = match arg {
            ShardArg::Fixed(s) => s,
            ShardArg::Auto => shard::from_env(&|k| std::env::var(k).ok(), self.shard_count)?,
        };
        if self.balance_from.is_some() && self.split == Split::Runs {
            return Err(
                "--balance-from applies to --split benchmarks (with --split runs every shard runs \
                 every benchmark)"
                    .to_owned(),
            );
        }
        Ok(Some(ShardPlan {
            shard: s,
            split: self.split,
            balance: self.balance_from.clone(),
        }))
    }
}

/// A shard ready to run: its record (for the results file) and the jobs it keeps.
#[derive(Clone, Debug)]
pub(crate) struct ShardRun {
    pub(crate) record: fshard::ShardRecord,
    pub(crate) assignment: Assignment,
}

impl ShardPlan {
    /// The shard's record and assignment for a plan with `names` benchmarks (Node files or
    /// command configurations), `runs` counted rounds, the fingerprint parts without the seed,
    /// the seed, and the job count of `jobs_of(assignment)`.
    pub(crate) fn prepare(
        &self,
        names: &[String],
        runs: u32,
        parts: &[String],
        seed: u64,
        jobs_of: &dyn Fn(&Assignment) -> usize,
    ) -> Result<ShardRun, String> {
        let (weights, balance) = match &self.balance {
            Some(p) => (
                Some(shard::balance_weights(p, names)?),
                Some(shard::file_hash(p)?),
            ),
            None => (None, None),
        };
        let a = shard::assign(
            self.shard,
            self.split,
            names.len(),
            runs,
            weights.as_deref(),
        );
        let jobs = jobs_of(&a);
        Ok(ShardRun {
            record: shard::record(
                self.shard,
                self.split,
                &shard::with_seed(parts, seed),
                seed,
                runs,
                balance,
                &a,
                jobs,
            ),
            assignment: a,
        })
    }
}

/// The shard of a Node-file plan: without `--seed` (`seed_given` false) the plan's seed
/// becomes the one derived from the plan, the same on every shard.
pub(crate) fn node_shard(
    sp: &ShardPlan,
    plan: &mut crate::run::Plan,
    seed_given: bool,
) -> Result<ShardRun, String> {
    let parts = shard::node_parts(plan)?;
    if !seed_given {
        plan.seed = shard::derived_seed(&shard::fingerprint(&parts));
    }
    let schedule = plan.schedule();
    sp.prepare(&plan.files, plan.runs, &parts, plan.seed, &|a| {
        shard::slice(&schedule, a, 0).len()
    })
}

/// The shard of a command plan (see [`node_shard`]); the benchmarks are its configurations.
pub(crate) fn command_shard(
    sp: &ShardPlan,
    plan: &mut crate::run::plan::command::CommandPlan,
    seed_given: bool,
) -> Result<ShardRun, String> {
    let parts = shard::command_parts(plan);
    if !seed_given {
        plan.seed = shard::derived_seed(&shard::fingerprint(&parts));
    }
    let instances = plan.instances();
    let names: Vec<String> = instances
        .iter()
        .map(|i| {
            shard::unit_name(
                plan.benchmarks.get(i.bench).map_or("", |b| b.name.as_str()),
                &i.combo,
            )
        })
        .collect();
    let schedule = plan.schedule(instances.len());
    let warmup = plan.warmup;
    sp.prepare(&names, plan.runs, &parts, plan.seed, &|a| {
        shard::slice(&schedule, a, warmup).len()
    })
}

/// The shard a results file being resumed was written for (`None` for an unsharded file).
pub(crate) fn resumed(path: &std::path::Path) -> Result<Option<ShardRun>, String> {
    if !fshard::is_sharded(path) {
        return Ok(None);
    }
    let segs = fshard::read_segments(path).map_err(|e| e.to_string())?;
    let Some(seg) = segs.into_iter().next() else {
        return Ok(None);
    };
    let assignment = Assignment::from_record(&seg.shard).ok_or_else(|| {
        format!(
            "--resume {}: its shard record holds no assignment",
            path.display()
        )
    })?;
    Ok(Some(ShardRun {
        record: seg.shard,
        assignment,
    }))
}

/// The stderr line that says what a shard runs.
pub(crate) fn describe(run: &ShardRun, total_jobs: usize) -> String {
    let r = &run.record;
    let part = match &run.assignment {
        Assignment::Units(u) => format!("{} benchmark(s)", u.len()),
        Assignment::Rounds(a, b) => format!("rounds {}–{} of {}", a + 1, b, r.runs),
    };
    format!(
        "benchdiff: shard {} (split {}): {part}, {} of the plan's {total_jobs} jobs; seed {}, plan {}{}",
        r.label(),
        r.split.label(),
        r.jobs,
        r.seed,
        &r.plan[..r.plan.len().min(19)],
        if r.jobs == 0 {
            " — this shard has nothing to run"
        } else {
            ""
        }
    )
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

/// Segments of one plan and the missing shard numbers.
type Checked = (Vec<Segment>, Vec<u32>);

/// Reads and checks the segments of `files` (one plan, no duplicate); returns them and the
/// missing shard numbers, or the exit code after printing the error.
fn checked_segments(files: &[PathBuf], io: &mut Io<'_>) -> anyhow::Result<Result<Checked, i32>> {
    let mut segments = Vec::new();
    for f in files {
        match fshard::read_segments(f) {
            Ok(s) => segments.extend(s),
            Err(e) => {
                writeln!(io.stderr, "benchdiff: {e}")?;
                return Ok(Err(EXIT_USAGE));
            }
        }
    }
    match fshard::check_plan(&segments) {
        Ok(missing) => Ok(Ok((segments, missing))),
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            Ok(Err(EXIT_USAGE))
        }
    }
}

/// `benchdiff merge`: exit 0 on success, 2 on a refused mix, duplicate or missing shard.
pub(crate) fn merge(args: MergeArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    use crate::output::{Input, Output, Use};
    let inputs: Vec<Input<'_>> = args
        .files
        .iter()
        .map(|f| Input::new("shard file", f))
        .collect();
    let out = [Output::new("-o", &args.output, Use::Create)];
    if let Err(e) = crate::output::check(&inputs, &out, args.force) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    let (segments, missing) = match checked_segments(&args.files, io)? {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    if !missing.is_empty() {
        let e = ShardError::Missing {
            missing: missing.clone(),
            of: segments.first().map_or(0, |s| s.shard.of),
        };
        if !args.allow_missing {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
        writeln!(
            io.stderr,
            "benchdiff: warning: {e}; merged anyway (--allow-missing)"
        )?;
    }
    let written = std::fs::File::create(&args.output).and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        fshard::write_merged(&segments, &mut w)
    });
    if let Err(e) = written {
        writeln!(io.stderr, "benchdiff: -o {}: {e}", args.output.display())?;
        return Ok(EXIT_USAGE);
    }
    let first = &segments[0].shard;
    let jobs: usize = segments
        .iter()
        .map(|s| {
            s.lines
                .iter()
                .filter(|(_, l)| {
                    l.contains("\"type\":\"job\"") || l.contains("\"type\":\"command-job\"")
                })
                .count()
        })
        .sum();
    writeln!(
        io.stderr,
        "benchdiff: merged {} of {} shard(s) (split {}, plan {}) with {jobs} job record(s) into {}",
        segments.len(),
        first.of,
        first.split.label(),
        &first.plan[..first.plan.len().min(19)],
        args.output.display()
    )?;
    Ok(0)
}

/// True when some of `files` is a shard's or merged results file.
pub(crate) fn any_sharded(files: &[String]) -> bool {
    files
        .iter()
        .any(|f| f != "-" && fshard::is_sharded(std::path::Path::new(f)))
}

/// `report` of shard files or a merged file: checks the shards (one plan; old and new of a
/// comparison on one machine), analyses each machine on its own and combines them.
pub(crate) fn report(
    files: &[String],
    analysis: &AnalysisArgs,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let paths: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
    let (segments, missing) = match checked_segments(&paths, io)? {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    if !missing.is_empty() {
        let e = ShardError::Missing {
            missing,
            of: segments.first().map_or(0, |s| s.shard.of),
        };
        writeln!(
            io.stderr,
            "benchdiff: warning: {e}; reporting the shards there are"
        )?;
    }
    if let Err(e) = fshard::check_machines(&segments) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    let mut sorted: Vec<&Segment> = segments.iter().collect();
    sorted.sort_by_key(|s| s.shard.shard);
    // All shards as one results file: the pooled samples (for the per-side summaries), the
    // failures and the run facts.
    let mut union = String::new();
    union.push_str(&sorted[0].header);
    union.push('\n');
    for s in &sorted {
        for (_, l) in &s.lines {
            union.push_str(l);
            union.push('\n');
        }
    }
    let name = files.join(" + ");
    let mut pooled = SampleSet::new();
    let imported = match crate::format::results::samples::read_from(
        std::io::Cursor::new(union.as_bytes()),
        &name,
        &mut pooled,
    ) {
        Ok(i) => i,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    for w in &imported.warnings {
        writeln!(io.stderr, "benchdiff: warning: {w}")?;
    }
    let (failures, run) = match &imported.results {
        Some(l) => (
            crate::compare::failures::Failures::from_loaded(l),
            Some(crate::render::RunInfo::from_header(&l.header)),
        ),
        None => (Default::default(), None),
    };
    let split = sorted[0].shard.split;
    let labels = fshard::block_labels(&sorted.iter().map(|s| (*s).clone()).collect::<Vec<_>>());
    let mut blocks: Vec<(String, SampleSet)> = Vec::new();
    if split == Split::Runs {
        for (s, label) in sorted.iter().zip(&labels) {
            let mut set = SampleSet::new();
            if crate::format::results::samples::read_from(
                std::io::Cursor::new(s.text().into_bytes()),
                &s.source,
                &mut set,
            )
            .is_ok()
            {
                blocks.push((label.clone(), set));
            }
        }
    }
    writeln!(
        io.stderr,
        "benchdiff: {} shard(s) of {} (split {}) on: {}{}",
        sorted.len(),
        sorted[0].shard.of,
        split.label(),
        labels.join(", "),
        if split == Split::Runs {
            "; each machine is analysed on its own and the machines are combined"
        } else {
            "; each benchmark ran on one machine"
        }
    )?;
    if analysis.format == super::Format::R && split == Split::Runs {
        writeln!(
            io.stderr,
            "benchdiff: warning: --format r is compare.R's Welch t-test over the samples of all \
             machines pooled; the other formats combine the machines"
        )?;
    }
    let input = crate::render::describe_input(
        Some(crate::format::InputFormat::ResultsJsonl),
        &files
            .iter()
            .map(|f| {
                std::path::Path::new(f)
                    .file_name()
                    .map_or_else(|| f.clone(), |n| n.to_string_lossy().into_owned())
            })
            .collect::<Vec<_>>(),
    );
    super::emit_analysis_blocks(
        &pooled,
        (!blocks.is_empty()).then_some(blocks.as_slice()),
        analysis,
        run.as_ref(),
        Some(&input),
        &[],
        &failures,
        io,
    )
}
