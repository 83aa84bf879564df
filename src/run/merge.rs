//! Merging the results files of a sharded run ([`super::shard`]) into one file ([`merge`]).
//! The file format is [`crate::format::results::shard`]; a report reads shard files through
//! its store ([`crate::report`]).

use crate::format::results::shard::{self as fshard, ShardError, checked_segments};
use std::path::PathBuf;

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
