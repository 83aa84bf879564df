//! Sharded runs in the results file: the `shard` record a shard's file carries
//! right after its plan record, reading a shard file or a merged file back as its shard
//! *segments*, the checks of `benchdiff merge` (one plan, no duplicate or missing shard) and of
//! `report` (old and new of a comparison on one machine), and the merged file's writer.
//!
//! **A shard's file** is a normal results file: the plan record (`run` or `command-run`),
//! then one `shard` record, then the `machine` record and the job records of that shard.
//! **A merged file** is the plan record of the lowest shard followed by every shard's segment —
//! its `shard` record (with `source`, the file it came from) and all of its records, verbatim —
//! in shard order. Older readers see one results file whose job records are the union of the
//! shards (they ignore the unknown `shard` records).
//!
//! A job belongs to the machine named by the last `machine` record before it (field `host`).

use super::{Record, ResultsError};
use crate::format::{Line, LineReader};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::Path;

/// How a plan is split over shards (`--split`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Each shard runs whole benchmarks (Node files, or command configurations), all rounds.
    #[default]
    Benchmarks,
    /// Each shard runs every benchmark for its share of the rounds: a machine is a block.
    Runs,
}

impl Split {
    /// `benchmarks` or `runs`.
    pub fn label(self) -> &'static str {
        match self {
            Split::Benchmarks => "benchmarks",
            Split::Runs => "runs",
        }
    }
}

/// The `shard` record: which part of which plan this file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardRecord {
    /// K, 1-based (1 ≤ K ≤ N).
    pub shard: u32,
    /// N, the number of shards.
    pub of: u32,
    /// The split mode.
    pub split: Split,
    /// The plan's fingerprint, `sha256:` + hex (suite or benchmark files and parameters,
    /// seed, runs, the binaries' content hashes — for commands, the command lines).
    pub plan: String,
    /// The shared seed of the schedule.
    pub seed: u64,
    /// Counted runs of the unsharded plan.
    pub runs: u32,
    /// `sha256:` of the `--balance-from` file that assigned benchmarks to shards, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<String>,
    /// `--split benchmarks`: indices (into the plan's files or command configurations) this
    /// shard runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<Vec<usize>>,
    /// `--split runs`: the counted rounds `[from, to)` this shard runs (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<[u32; 2]>,
    /// Jobs this shard schedules.
    pub jobs: usize,
    /// Host name of the machine that ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Written by `benchdiff merge`: the shard file this segment came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl ShardRecord {
    /// `K/N`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.shard, self.of)
    }
}

/// One shard's part of a shard file or a merged file.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// Where it came from: the shard file (for a merged file, its `source`, else the merged
    /// file's name).
    pub source: String,
    /// The file it was read from (for messages with line numbers).
    pub file: String,
    /// The kind of plan: `run` (Node files) or `command-run`.
    pub kind: String,
    /// The plan record line of the file.
    pub header: String,
    /// The shard record.
    pub shard: ShardRecord,
    /// The records after the shard record (up to the next one), with their 1-based lines.
    pub lines: Vec<(u64, String)>,
}

#[derive(Deserialize)]
struct TypeOnly {
    #[serde(rename = "type")]
    kind: Option<String>,
}

fn kind_of(line: &str) -> Option<String> {
    serde_json::from_str::<TypeOnly>(line)
        .ok()
        .and_then(|t| t.kind)
}

/// True when the results file at `path` holds `shard` records (a shard's file or a merged
/// file): its second record is one. False for anything unreadable, and for anything but a
/// regular file (a pipe read here would be consumed).
pub fn is_sharded(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut lines = LineReader::with_limit(std::io::BufReader::new(f), "", super::MAX_RECORD_BYTES);
    let mut seen = 0;
    while let Ok(Some((_, line))) = lines.next_line() {
        let Line::Text(t) = line else { return false };
        if t.trim().is_empty() {
            continue;
        }
        seen += 1;
        match (seen, kind_of(t).as_deref()) {
            (1, Some("run" | "command-run")) => {}
            (2, Some("shard")) => return true,
            _ => return false,
        }
    }
    false
}

/// Reads the shard segments of a shard file or merged file at `path`.
///
/// # Errors
/// [`ResultsError`] naming the file and line when it cannot be read, does not start with a
/// plan record, has a bad `shard` record, or has no `shard` record (not a sharded run).
pub fn read_segments(path: &Path) -> Result<Vec<Segment>, ResultsError> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| ResultsError::new(&name, 0, e.to_string()))?;
    read_segments_from(std::io::BufReader::new(f), &name)
}

/// [`read_segments`] from any reader, named `name` in messages.
///
/// # Errors
/// As [`read_segments`].
pub fn read_segments_from<R: BufRead>(input: R, name: &str) -> Result<Vec<Segment>, ResultsError> {
    let mut lines = LineReader::with_limit(input, name, super::MAX_RECORD_BYTES);
    let mut header: Option<(String, String)> = None;
    let mut segments: Vec<Segment> = Vec::new();
    let mut last = 0;
    loop {
        let (n, line) = match lines.next_line() {
            Ok(Some(x)) => x,
            Ok(None) => break,
            Err(e) => return Err(ResultsError::from_import(name, last + 1, e)),
        };
        last = n;
        let Line::Text(t) = line else { continue };
        if t.trim().is_empty() {
            continue;
        }
        let kind = kind_of(t).unwrap_or_default();
        match (&header, kind.as_str()) {
            (None, "run" | "command-run") => header = Some((kind.clone(), t.to_owned())),
            (None, _) => {
                return Err(ResultsError::new(
                    name,
                    n,
                    "the first record is not a run or command-run record: not a benchdiff \
                     results file",
                ));
            }
            (Some((k, h)), "shard") => {
                let shard = match serde_json::from_str::<Record>(t) {
                    Ok(Record::Shard(s)) => s,
                    Ok(_) => return Err(ResultsError::new(name, n, "bad shard record")),
                    Err(e) => {
                        return Err(ResultsError::new(name, n, format!("bad shard record: {e}")));
                    }
                };
                if shard.shard == 0 || shard.shard > shard.of {
                    return Err(ResultsError::new(
                        name,
                        n,
                        format!("shard {}: K must be 1 to N", shard.label()),
                    ));
                }
                segments.push(Segment {
                    source: shard.source.clone().unwrap_or_else(|| name.to_owned()),
                    file: name.to_owned(),
                    kind: k.clone(),
                    header: h.clone(),
                    shard,
                    lines: Vec::new(),
                });
            }
            (Some(_), _) => match segments.last_mut() {
                Some(s) => s.lines.push((n, t.to_owned())),
                None => {
                    return Err(ResultsError::new(
                        name,
                        n,
                        "a record before the shard record: not the results file of a sharded \
                         run (benchdiff compare --shard K/N)",
                    ));
                }
            },
        }
    }
    if segments.is_empty() {
        return Err(ResultsError::new(
            name,
            0,
            "no shard record: not the results file of a sharded run (benchdiff compare --shard K/N)",
        ));
    }
    Ok(segments)
}

impl Segment {
    /// The segment as a results file of its own: the plan record, the shard record and its
    /// records (for the one loader, [`super::load_from`]).
    pub fn text(&self) -> String {
        let mut s = String::with_capacity(
            self.header.len() + self.lines.iter().map(|(_, l)| l.len() + 1).sum::<usize>() + 512,
        );
        s.push_str(&self.header);
        s.push('\n');
        if let Ok(r) = serde_json::to_string(&Record::Shard(self.shard.clone())) {
            s.push_str(&r);
            s.push('\n');
        }
        for (_, l) in &self.lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }

    /// A short name for messages: `FILE (shard K/N)`.
    pub fn describe(&self) -> String {
        format!("{} (shard {})", self.source, self.shard.label())
    }

    /// The machine's name for reports: the host of its `machine` record (or of the shard
    /// record), else `shard K`.
    pub fn host(&self) -> Option<String> {
        self.lines
            .iter()
            .find_map(|(_, l)| match serde_json::from_str::<Record>(l) {
                Ok(Record::Machine(m)) => m.host,
                _ => None,
            })
            .or_else(|| self.shard.host.clone())
    }
}

/// Why shards cannot be merged or reported together.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShardError {
    /// A shard of another plan (or split): names the odd file and the field.
    #[error(
        "{file} does not belong to the plan of {first}: {field} differs ({value} there, {first_value} in {first}); \
         shards of different plans cannot be merged"
    )]
    Mix {
        /// The odd file (and shard).
        file: String,
        /// The file the others are compared with.
        first: String,
        /// The differing field.
        field: &'static str,
        /// Its value in the odd file.
        value: String,
        /// Its value in the first file.
        first_value: String,
    },
    /// The same shard twice.
    #[error("shard {shard} is given twice: {a} and {b}")]
    Duplicate {
        /// `K/N`.
        shard: String,
        /// One file.
        a: String,
        /// The other.
        b: String,
    },
    /// Shards missing (an error unless `--allow-missing`).
    #[error("missing shard(s) {} of {of}: the merged results would not cover the plan (--allow-missing merges anyway)", missing.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))]
    Missing {
        /// The missing K values.
        missing: Vec<u32>,
        /// N.
        of: u32,
    },
    /// Old and new (or control) of a comparison ran on different machines.
    #[error(
        "{what}: {side_a} ran on {old_host} and {side_b} on {new_host} ({file}); a comparison \
         needs {side_a} and {side_b} measured on the same machine (a machine's speed would \
         count as the change), so benchdiff does not compare them",
        side_a = .sides[0],
        side_b = .sides[1]
    )]
    DifferentMachines {
        /// The benchmark and round.
        what: String,
        /// The two sides: `old` and `new`, or a side and `control`.
        sides: &'static [&'static str; 2],
        /// Host of the first side's job.
        old_host: String,
        /// Host of the second side's job.
        new_host: String,
        /// Where.
        file: String,
    },
}

/// Checks that `segments` (from one or more files) belong to one plan and cover it: the same
/// plan kind, N, split, seed, runs, balance file and fingerprint as the first; no shard twice;
/// returns the missing K values (empty when complete).
///
/// # Errors
/// [`ShardError::Mix`] naming the first odd segment and field, [`ShardError::Duplicate`].
pub fn check_plan(segments: &[Segment]) -> Result<Vec<u32>, ShardError> {
    let Some(first) = segments.first() else {
        return Ok(Vec::new());
    };
    let f = &first.shard;
    for s in &segments[1..] {
        let r = &s.shard;
        let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "none".to_owned());
        let fields: [(&'static str, String, String); 7] = [
            ("plan kind", s.kind.clone(), first.kind.clone()),
            ("shard count N", r.of.to_string(), f.of.to_string()),
            (
                "split",
                r.split.label().to_owned(),
                f.split.label().to_owned(),
            ),
            ("seed", r.seed.to_string(), f.seed.to_string()),
            ("runs", r.runs.to_string(), f.runs.to_string()),
            ("balance file", opt(&r.balance), opt(&f.balance)),
            ("plan fingerprint", r.plan.clone(), f.plan.clone()),
        ];
        if let Some((field, value, first_value)) = fields.into_iter().find(|(_, a, b)| a != b) {
            return Err(ShardError::Mix {
                file: s.describe(),
                first: first.describe(),
                field,
                value,
                first_value,
            });
        }
    }
    let mut seen: BTreeMap<u32, &Segment> = BTreeMap::new();
    for s in segments {
        if let Some(prev) = seen.insert(s.shard.shard, s) {
            return Err(ShardError::Duplicate {
                shard: s.shard.label(),
                a: prev.source.clone(),
                b: s.source.clone(),
            });
        }
    }
    Ok((1..=f.of).filter(|k| !seen.contains_key(k)).collect())
}

/// A host and where a job on it was recorded (`file:line`).
type HostAt = (String, String);

#[derive(Deserialize)]
struct JobKey {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    benchmark: Option<String>,
    #[serde(default)]
    combination: Vec<(String, String)>,
    side: String,
    run: u32,
    #[serde(default)]
    warmup: bool,
    status: String,
}

/// Checks that old, new and control (when there is one) of every (benchmark, round) ran on one
/// machine: each `ok` job is attributed to the host of the last `machine` record before it; a
/// pair of jobs on two different known hosts is refused (a job without a known host is not
/// checked).
///
/// # Errors
/// [`ShardError::DifferentMachines`] for the first such pair.
pub fn check_machines(segments: &[Segment]) -> Result<(), ShardError> {
    // (unit, run) → the (host, file:line) of its old, new and control jobs
    let mut seen: BTreeMap<(String, u32), [Option<HostAt>; 3]> = BTreeMap::new();
    for s in segments {
        let mut host = s.shard.host.clone();
        for (n, l) in &s.lines {
            match kind_of(l).as_deref() {
                Some("machine") => {
                    if let Ok(Record::Machine(m)) = serde_json::from_str::<Record>(l) {
                        host = m.host.or(host);
                    }
                }
                Some("job" | "command-job") => {
                    let Ok(j) = serde_json::from_str::<JobKey>(l) else {
                        continue;
                    };
                    if j.status != "ok" || j.warmup {
                        continue;
                    }
                    let Some(h) = &host else { continue };
                    let unit = if j.kind == "job" {
                        j.file.unwrap_or_default()
                    } else {
                        let combo: Vec<String> = j
                            .combination
                            .iter()
                            .map(|(k, v)| format!("{k}={v}"))
                            .collect();
                        format!("{} {}", j.benchmark.unwrap_or_default(), combo.join(" "))
                            .trim_end()
                            .to_owned()
                    };
                    let i = match j.side.as_str() {
                        "new" => 1,
                        "control" => 2,
                        _ => 0,
                    };
                    let key = (unit, j.run);
                    let entry = seen.entry(key.clone()).or_default();
                    entry[i].get_or_insert((h.clone(), format!("{}:{n}", s.file)));
                    // The control is the old build again: checked against old, or new
                    // when old has no known host yet.
                    let pair = match &*entry {
                        [Some(o), Some(n), c] => match c {
                            Some(c) if c.0 != o.0 => Some((&["old", "control"], o, c)),
                            _ => Some((&["old", "new"], o, n)),
                        },
                        [Some(o), None, Some(c)] => Some((&["old", "control"], o, c)),
                        [None, Some(n), Some(c)] => Some((&["new", "control"], n, c)),
                        _ => None,
                    };
                    if let Some((sides, (oh, of), (nh, nf))) = pair
                        && oh != nh
                    {
                        return Err(ShardError::DifferentMachines {
                            what: format!("{}, run {}", key.0, key.1 + 1),
                            sides,
                            old_host: oh.clone(),
                            new_host: nh.clone(),
                            file: if of == nf {
                                of.clone()
                            } else {
                                format!("{of}, {nf}")
                            },
                        });
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Writes the merged results file of `segments` to `out`: the plan record of the lowest shard,
/// then each segment (its `shard` record with `source`, then its records) in shard order.
///
/// # Errors
/// Write errors.
pub fn write_merged(segments: &[Segment], out: &mut dyn Write) -> std::io::Result<()> {
    let mut order: Vec<&Segment> = segments.iter().collect();
    order.sort_by_key(|s| s.shard.shard);
    let Some(first) = order.first() else {
        return Ok(());
    };
    writeln!(out, "{}", first.header)?;
    for s in order {
        let mut rec = s.shard.clone();
        rec.source.get_or_insert_with(|| s.source.clone());
        writeln!(out, "{}", serde_json::to_string(&Record::Shard(rec))?)?;
        for (_, l) in &s.lines {
            writeln!(out, "{l}")?;
        }
    }
    out.flush()
}

/// The distinct machine labels of `segments` for reports, in segment order: the host name, or
/// `host [shard K/N]` when hosts repeat (several shards on one machine are still separate
/// blocks), or `shard K/N` without a host.
pub fn block_labels(segments: &[Segment]) -> Vec<String> {
    let hosts: Vec<Option<String>> = segments.iter().map(Segment::host).collect();
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for h in hosts.iter().flatten() {
        *count.entry(h.as_str()).or_default() += 1;
    }
    let mut labels: Vec<String> = segments
        .iter()
        .zip(&hosts)
        .map(|(s, h)| match h {
            Some(h) if count.get(h.as_str()) == Some(&1) => h.clone(),
            Some(h) => format!("{h} [shard {}]", s.shard.label()),
            None => format!("shard {}", s.shard.label()),
        })
        .collect();
    // Two segments of one shard label (a file given twice is refused earlier): keep unique.
    let mut used = BTreeSet::new();
    for (i, l) in labels.iter_mut().enumerate() {
        if !used.insert(l.clone()) {
            l.push_str(&format!(" #{}", i + 1));
        }
    }
    labels
}

/// Segments of one plan and the missing shard numbers.
pub type Checked = (Vec<Segment>, Vec<u32>);

/// Reads and checks the segments of `files` (one plan, no duplicate); returns them and the
/// missing shard numbers.
///
/// # Errors
/// A file cannot be read, or the shards belong to different plans or repeat one.
pub fn checked_segments(files: &[std::path::PathBuf]) -> Result<Checked, String> {
    let mut segments = Vec::new();
    for f in files {
        segments.extend(read_segments(f).map_err(|e| e.to_string())?);
    }
    let missing = check_plan(&segments).map_err(|e| e.to_string())?;
    Ok((segments, missing))
}
