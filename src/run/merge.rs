//! The results files of a sharded run ([`super::shard`]): merging them into one file
//! ([`merge`]) and reading shard files (or a merged file) for a report ([`read_shards`]): the
//! pooled samples, and with `--split runs` one block of samples per machine. The file format
//! is [`crate::format::results::shard`]; combining the machines is
//! [`crate::verdict::combine`].

use crate::compare::failures::Failures;
use crate::format::results::shard::{self as fshard, Segment, ShardError, Split};
use crate::render::RunInfo;
use crate::sample::SampleSet;
use std::path::{Path, PathBuf};

/// Segments of one plan and the missing shard numbers.
type Checked = (Vec<Segment>, Vec<u32>);

/// Reads and checks the segments of `files` (one plan, no duplicate); returns them and the
/// missing shard numbers.
///
/// # Errors
/// A file cannot be read, or the shards belong to different plans or repeat one.
fn checked_segments(files: &[PathBuf]) -> Result<Checked, String> {
    let mut segments = Vec::new();
    for f in files {
        segments.extend(fshard::read_segments(f).map_err(|e| e.to_string())?);
    }
    let missing = fshard::check_plan(&segments).map_err(|e| e.to_string())?;
    Ok((segments, missing))
}

/// What `merge` does (built from its options).
#[derive(Clone, Debug)]
pub struct MergePlan {
    /// The shards' results files, in any order.
    pub files: Vec<PathBuf>,
    /// The merged results file to write.
    pub output: PathBuf,
    /// Merge even when shards are missing (with a warning).
    pub allow_missing: bool,
    /// Replace an existing output file.
    pub force: bool,
}

/// What [`merge`] did: warnings (in order, each a full message) and the closing line, or the
/// reason nothing was written.
#[derive(Debug)]
pub struct Merged {
    /// Warnings, e.g. missing shards merged anyway.
    pub warnings: Vec<String>,
    /// The summary line (shards, split, plan, job records, output), or the error.
    pub outcome: Result<String, String>,
}

/// Merges the shards' results files into `plan.output`: one plan, no shard twice, none
/// missing unless `allow_missing`; the output is checked first ([`crate::output::check`]: an
/// existing file only with `force`, never one of the shard files, its folder must exist).
pub fn merge(plan: &MergePlan) -> Merged {
    let mut warnings = Vec::new();
    let outcome = merge_into(plan, &mut warnings);
    Merged { warnings, outcome }
}

fn merge_into(args: &MergePlan, warnings: &mut Vec<String>) -> Result<String, String> {
    use crate::output::{Input, Output, Use};
    let inputs: Vec<Input<'_>> = args
        .files
        .iter()
        .map(|f| Input::new("shard file", f))
        .collect();
    let out = [Output::new("-o", &args.output, Use::Create)];
    crate::output::check(&inputs, &out, args.force)?;
    let (segments, missing) = checked_segments(&args.files)?;
    if !missing.is_empty() {
        let e = ShardError::Missing {
            missing: missing.clone(),
            of: segments.first().map_or(0, |s| s.shard.of),
        };
        if !args.allow_missing {
            return Err(e.to_string());
        }
        warnings.push(format!("warning: {e}; merged anyway (--allow-missing)"));
    }
    let written = std::fs::File::create(&args.output).and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        fshard::write_merged(&segments, &mut w)
    });
    if let Err(e) = written {
        return Err(format!("-o {}: {e}", args.output.display()));
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
    Ok(format!(
        "merged {} of {} shard(s) (split {}, plan {}) with {jobs} job record(s) into {}",
        segments.len(),
        first.of,
        first.split.label(),
        &first.plan[..first.plan.len().min(19)],
        args.output.display()
    ))
}

/// True when some of `files` is a shard's or merged results file (`-` is stdin, never one).
pub fn any_sharded(files: &[String]) -> bool {
    files
        .iter()
        .any(|f| f != "-" && fshard::is_sharded(Path::new(f)))
}

/// What a report of shard files reads: every shard's samples pooled, and with
/// [`Split::Runs`] one block per machine.
#[derive(Debug)]
pub struct Shards {
    /// All shards' samples as one set (the per-side summaries).
    pub pooled: SampleSet,
    /// `(machine label, its samples)` per shard under [`Split::Runs`], else empty.
    pub blocks: Vec<(String, SampleSet)>,
    /// Failed and missing jobs of all shards.
    pub failures: Failures,
    /// The run facts of the plan record.
    pub run: Option<RunInfo>,
    /// What the inputs are ([`crate::render::describe_input`]).
    pub input: String,
    /// How the plan was split.
    pub split: Split,
}

/// [`read_shards`]' messages (in order, each a full message: `warning: …` or the line that
/// says which shards ran where) and the shards, or why they cannot be reported.
#[derive(Debug)]
pub struct ShardsRead {
    /// Warnings and the description of the shards.
    pub messages: Vec<String>,
    /// The samples, or the error.
    pub shards: Result<Shards, String>,
}

/// Reads shard files or a merged file for a report: checks the shards (one plan; old and new
/// of a comparison on one machine), pools their samples and, under [`Split::Runs`], keeps each
/// machine's samples as a block.
pub fn read_shards(files: &[String]) -> ShardsRead {
    let mut messages = Vec::new();
    let shards = read_into(files, &mut messages);
    ShardsRead { messages, shards }
}

fn read_into(files: &[String], messages: &mut Vec<String>) -> Result<Shards, String> {
    let paths: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
    let (segments, missing) = checked_segments(&paths)?;
    if !missing.is_empty() {
        let e = ShardError::Missing {
            missing,
            of: segments.first().map_or(0, |s| s.shard.of),
        };
        messages.push(format!("warning: {e}; reporting the shards there are"));
    }
    fshard::check_machines(&segments).map_err(|e| e.to_string())?;
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
    let imported = crate::format::results::samples::read_from(
        std::io::Cursor::new(union.as_bytes()),
        &name,
        &mut pooled,
    )
    .map_err(|e| e.to_string())?;
    for w in &imported.warnings {
        messages.push(format!("warning: {w}"));
    }
    let (failures, run) = match &imported.results {
        Some(l) => (
            Failures::from_loaded(l),
            Some(RunInfo::from_header(&l.header)),
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
    messages.push(format!(
        "{} shard(s) of {} (split {}) on: {}{}",
        sorted.len(),
        sorted[0].shard.of,
        split.label(),
        labels.join(", "),
        if split == Split::Runs {
            "; each machine is analysed on its own and the machines are combined"
        } else {
            "; each benchmark ran on one machine"
        }
    ));
    let input = crate::render::describe_input(
        Some(crate::format::InputFormat::ResultsJsonl),
        &files
            .iter()
            .map(|f| {
                Path::new(f)
                    .file_name()
                    .map_or_else(|| f.clone(), |n| n.to_string_lossy().into_owned())
            })
            .collect::<Vec<_>>(),
    );
    Ok(Shards {
        pooled,
        blocks,
        failures,
        run,
        input,
        split,
    })
}
