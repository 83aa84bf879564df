//! The shard files of a sharded run (`compare --shard K/N`), or the file `merge` made of them,
//! as a report reads them: the samples of every shard pooled, and with `--split runs` one
//! block of samples per machine (each machine analysed on its own, then combined:
//! [`crate::verdict::combine`]). The file format is [`crate::format::results::shard`].

use super::Messages;
use crate::compare::failures::Failures;
use crate::format::results::shard::{self as fshard, Segment, ShardError, Split, checked_segments};
use crate::render::RunInfo;
use crate::sample::SampleSet;
use std::path::{Path, PathBuf};

/// True when some of `files` is a shard's or merged results file (`-` is stdin, never one).
pub(super) fn any_sharded(files: &[String]) -> bool {
    files
        .iter()
        .any(|f| f != "-" && fshard::is_sharded(Path::new(f)))
}

/// What a report of shard files reads: every shard's samples pooled, and with
/// [`Split::Runs`] one block per machine.
#[derive(Debug)]
pub(super) struct Shards {
    /// All shards' samples as one set (the per-side summaries).
    pub(super) pooled: SampleSet,
    /// `(machine label, its samples)` per shard under [`Split::Runs`], else empty.
    pub(super) blocks: Vec<(String, SampleSet)>,
    /// Failed and missing jobs of all shards.
    pub(super) failures: Failures,
    /// The run facts of the plan record.
    pub(super) run: Option<RunInfo>,
    /// What the inputs are ([`crate::render::describe_input`]).
    pub(super) input: String,
    /// How the plan was split.
    pub(super) split: Split,
}

/// Reads shard files or a merged file for a report: checks the shards (one plan; old and new
/// of a comparison on one machine), pools their samples and, under [`Split::Runs`], keeps each
/// machine's samples as a block. Adds the warnings and the line that says which shards ran
/// where to `messages`.
///
/// # Errors
/// Why the shards cannot be reported.
pub(super) fn read(files: &[String], messages: &mut Messages) -> Result<Shards, String> {
    let paths: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
    let (segments, missing) = checked_segments(&paths)?;
    if !missing.is_empty() {
        let e = ShardError::Missing {
            missing,
            of: segments.first().map_or(0, |s| s.shard.of),
        };
        messages.warning(format!("{e}; reporting the shards there are"));
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
        messages.warning(w.to_string());
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
    messages.info(format!(
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

impl Shards {
    /// What the report knows besides the samples: the machines' blocks, the run facts, the
    /// failed and missing jobs.
    pub(super) fn facts(&self) -> super::Facts<'_> {
        super::Facts {
            blocks: (!self.blocks.is_empty()).then_some(self.blocks.as_slice()),
            run: self.run.as_ref(),
            input: Some(&self.input),
            settled: &[],
            failures: &self.failures,
            format: None,
            benchstat: None,
        }
    }
}
