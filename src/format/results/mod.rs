//! The results file: JSON Lines, one record per line, written and flushed as each job ends, so
//! an interrupted or killed run loses at most the job that was running.
//!
//! Records (field `type`):
//! - `run` (first line): the plan — binaries as given and as resolved, benchmark folder, files,
//!   runs, `--set` values, order, **seed**, CPU list, timeout, number of jobs, start time.
//! - `job`: one finished job — position in the schedule, file, side, run index, binary path,
//!   status (`ok`, `failed`, `timeout`, `interrupted`), exit code or signal, wall/user/sys
//!   seconds and peak RSS bytes of the child (from `wait4`), the `config` queue length, the
//!   samples (configuration text and structured params in reported order, rate, time, channel),
//!   an error text and the last stderr lines when something went wrong.
//! - `resume`: a `--resume` continued the run here.
//! - `machine`: the machine checks at the start (a command run writes it when its busy-process
//!   window closes, which may be after its first jobs); `adaptive`: a `--runs auto` round.
//! - `command-run` / `command-job`: the plan and the jobs of a command-benchmark run
//!   ([`command`]); such a file starts with `command-run` instead of `run`. A command job's
//!   own measurements (wall, user, sys, peak RSS, counters) are recorded once, in its record's
//!   `metrics`, and read as one sample per job; its samples carry only what each result line
//!   said. Older files, whose samples each repeat the job's measurements first, load to the
//!   same one sample per job ([`samples`]).
//! - `shard`: a sharded run's part of the plan (`compare --shard K/N`, [`shard`]); a merged
//!   file holds one per shard, each followed by that shard's records.
//! - `samples` / `command-samples`: part of the samples of the job whose record follows, when
//!   its record would be too long for one line ([`SamplesPart`]); the job record then says in
//!   `samples_before` how many samples its parts hold. A job reports at most
//!   [`MAX_JOB_SAMPLES`] samples (100,000), holding at most
//!   [`budget::MAX_JOB_SAMPLE_BYTES`] (128 MiB) in memory, each with at most
//!   [`budget::MAX_SAMPLE_VALUES`] (1,000) metrics and as many configuration parameters
//!   ([`budget`]): a job that crosses a limit is stopped there and recorded `failed` with an
//!   error naming it, the samples before it kept in its record.
//!
//! One [`Record`] enum covers every record of both kinds of run (status and side typed for
//! both), and one loader ([`load_from`]) reads either kind, with one error type
//! ([`ResultsError`]). This module needs nothing from the runner: the plain data types it
//! records live in [`plan`] and [`machine`].
//!
//! Rates are JSON numbers; NaN and infinities (not representable in JSON) are the strings
//! `"NaN"`, `"Infinity"`, `"-Infinity"`. A NaN configuration parameter is `null`.
//! [`load`] reads a file back for `--resume` and `report`: a job is done when it has an `ok`
//! record.

pub mod budget;
pub mod command;
pub mod machine;
pub mod plan;
pub mod samples;
pub mod shard;

use crate::format::node_ipc::{Channel, Report};
use crate::sample::{ConfValue, Configuration, Side};
use command::{CommandJobRecord, CommandRunHeader};
use plan::Order;
use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// The first record: everything needed to rebuild the schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// benchdiff version that wrote the file.
    pub benchdiff: String,
    /// Start time, seconds since the Unix epoch.
    pub started_unix_s: f64,
    /// `--old` as given.
    pub old: String,
    /// `--new` as given.
    pub new: String,
    /// The old binary, resolved to an absolute path.
    pub old_exec: PathBuf,
    /// The new binary, resolved to an absolute path.
    pub new_exec: PathBuf,
    /// The benchmark folder (absolute).
    pub benchmark_dir: PathBuf,
    /// Benchmark files relative to it (`category/file.js`), in plan order.
    pub files: Vec<String>,
    /// Runs per binary and file.
    pub runs: u32,
    /// Raw `--set` strings passed to every child.
    pub set: Vec<String>,
    /// Scheduling order.
    pub order: Order,
    /// Seed of the random order.
    pub seed: u64,
    /// CPU list the children are pinned to (`--cpus` or `--set CPUSET=`), if any.
    pub cpus: Option<String>,
    /// Per-job timeout in seconds, if any.
    pub timeout_s: Option<f64>,
    /// Number of jobs in the schedule (with `--runs auto`: at most, for `--max-runs`).
    pub jobs: usize,
    /// `--runs auto`: the stopping rule, so that `--resume` continues adaptively; absent for
    /// a fixed run count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<plan::Rule>,
    /// `--runs auto --stop decided`: the decided rule's settings (absent: the precision rule,
    /// or a fixed run count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided: Option<plan::DecideRule>,
    /// The `--csv FILE` of the run (absolute), so `--resume` keeps appending to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<PathBuf>,
    /// `--measure`: the counters measured per job, comma-separated (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<String>,
    /// `--control`: every (file, run) also runs the old binary as the control side (absent:
    /// no control).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub control: bool,
}

/// Outcome class of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    /// Exit code 0 and readable output.
    Ok,
    /// Could not start, non-zero exit, killed by a signal, or garbage output.
    Failed,
    /// Killed after `--timeout`.
    Timeout,
    /// Stopped by Ctrl-C (or because output could not be written).
    Interrupted,
}

impl JobStatus {
    /// The word stored in the results file: `ok`, `failed`, `timeout`, `interrupted`.
    pub fn label(self) -> &'static str {
        match self {
            JobStatus::Ok => "ok",
            JobStatus::Failed => "failed",
            JobStatus::Timeout => "timeout",
            JobStatus::Interrupted => "interrupted",
        }
    }

    /// Parses [`JobStatus::label`]; `None` for any other word.
    pub fn from_label(s: &str) -> Option<JobStatus> {
        [
            JobStatus::Ok,
            JobStatus::Failed,
            JobStatus::Timeout,
            JobStatus::Interrupted,
        ]
        .into_iter()
        .find(|st| st.label() == s)
    }
}

/// One sample as stored in a job record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    /// The compare.js configuration text.
    pub configuration: String,
    /// Structured parameters, `[key, value]` pairs in reported order.
    #[serde(serialize_with = "ser_params", deserialize_with = "de_params", default)]
    pub params: Vec<(String, ConfValue)>,
    /// Operations per second.
    #[serde(serialize_with = "ser_f64", deserialize_with = "de_f64")]
    pub rate: f64,
    /// The `time` column text (seconds with 9 decimals, or `NA`).
    pub time: String,
    /// Where the report came from.
    pub channel: Channel,
}

impl SampleRecord {
    /// The stored form of a report.
    pub fn from_report(r: &Report) -> Self {
        SampleRecord {
            configuration: r.configuration.text.clone(),
            params: r.configuration.params.clone(),
            rate: r.rate,
            time: r.time_text.clone(),
            channel: r.channel,
        }
    }

    /// Back to a report (time parsed from its text; `NA` is NaN).
    pub fn to_report(&self) -> Report {
        Report {
            configuration: Configuration {
                text: self.configuration.clone(),
                params: self.params.clone(),
            },
            rate: self.rate,
            time_text: self.time.clone(),
            time_s: self.time.trim().parse().unwrap_or(f64::NAN),
            channel: self.channel,
        }
    }
}

/// One finished job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    /// Position in the schedule, from 0.
    pub position: u32,
    /// Benchmark file, `category/file.js`.
    pub file: String,
    /// `old` or `new`.
    #[serde(serialize_with = "ser_side", deserialize_with = "de_side")]
    pub side: Side,
    /// Run index, from 0.
    pub run: u32,
    /// The binary that ran (absolute path).
    pub binary: PathBuf,
    /// Outcome class.
    pub status: JobStatus,
    /// Exit code, when it exited.
    pub exit_code: Option<i32>,
    /// Signal number, when a signal killed it.
    pub signal: Option<i32>,
    /// Wall-clock seconds from spawn to reap.
    pub wall_s: f64,
    /// User CPU seconds (child and waited-for descendants).
    pub user_s: f64,
    /// System CPU seconds.
    pub sys_s: f64,
    /// Peak RSS in bytes.
    pub max_rss_bytes: u64,
    /// `queueLength` of the child's `config` message.
    pub queue_length: Option<u64>,
    /// Samples, in arrival order: the last of them when the job's samples were split over
    /// several records (see [`SamplesPart`]).
    pub samples: Vec<SampleRecord>,
    /// How many of the job's samples come before `samples`, in the `samples` records written
    /// just before this one (0, and absent in the file, when all are here).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub samples_before: u64,
    /// What went wrong (or a note such as "no samples").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The last lines the child wrote to stderr.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
    /// Unreadable stdout lines (stdout mode), the last few.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stdout_tail: Vec<String>,
    /// `--measure`: the job's counters (its child and descendants, all its configurations),
    /// each with unit and direction; absent when none were measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<crate::format::result_lines::ReportedMetric>,
}

pub use budget::MAX_JOB_SAMPLES;

/// The error of a job stopped at [`MAX_JOB_SAMPLES`], as recorded in its `error` field
/// ([`budget::Limit::Samples`]).
pub fn sample_limit_error() -> String {
    budget::Limit::Samples.error()
}

impl JobRecord {
    /// A copy without its samples.
    fn without_samples(&self) -> JobRecord {
        JobRecord {
            position: self.position,
            file: self.file.clone(),
            side: self.side,
            run: self.run,
            binary: self.binary.clone(),
            status: self.status,
            exit_code: self.exit_code,
            signal: self.signal,
            wall_s: self.wall_s,
            user_s: self.user_s,
            sys_s: self.sys_s,
            max_rss_bytes: self.max_rss_bytes,
            queue_length: self.queue_length,
            samples: Vec::new(),
            samples_before: 0,
            error: self.error.clone(),
            stderr_tail: self.stderr_tail.clone(),
            stdout_tail: self.stdout_tail.clone(),
            counters: self.counters.clone(),
        }
    }
}

/// The signal's name for messages (`SIGKILL`), or its number.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        _ => return format!("signal {sig}"),
    };
    name.to_owned()
}

/// Samples printed by jobs that did not end `ok` (timed out, failed after reporting, or
/// interrupted), per benchmark row and side.
///
/// **Policy (case 20, one for every report of a run):** such samples stay in the results file
/// (the job record carries them with its status) and in the compare.js CSV (its rows are
/// written as they arrive, like compare.js, and the format has no place for a flag), but no
/// report uses them: the live `compare` report and `benchdiff report RESULTS.jsonl` both leave
/// them out and print the same [`UnusedSamples::notes`] for the affected rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnusedSamples {
    /// `(row name, side)` → per status: (jobs, samples).
    rows: std::collections::BTreeMap<(String, Side), Vec<StatusCount>>,
}

/// Jobs of one status and the samples they printed: `(status, jobs, samples)`.
type StatusCount = (JobStatus, u32, u32);

impl UnusedSamples {
    /// Counts the samples of a Node-file job `record` when its status is not `ok` (an `ok`
    /// record is ignored).
    pub fn add(&mut self, record: &JobRecord) {
        let rows = record
            .samples
            .iter()
            .map(|s| format!("{} {}", record.file, s.configuration));
        self.add_rows(record.status, record.side, rows);
    }

    /// Counts the samples of a command job `record` when its status is not `ok`.
    pub fn add_command(&mut self, record: &CommandJobRecord) {
        let rows = record
            .samples
            .iter()
            .map(|s| format!("{} {}", s.name, s.configuration));
        self.add_rows(record.status, record.side, rows);
    }

    fn add_rows(&mut self, status: JobStatus, side: Side, rows: impl Iterator<Item = String>) {
        if status == JobStatus::Ok {
            return;
        }
        let mut per_row: Vec<(String, u32)> = Vec::new();
        for row in rows {
            match per_row.iter_mut().find(|(r, _)| *r == row) {
                Some((_, n)) => *n += 1,
                None => per_row.push((row, 1)),
            }
        }
        for (row, n) in per_row {
            let tally = self.rows.entry((row, side)).or_default();
            match tally.iter_mut().find(|(st, _, _)| *st == status) {
                Some((_, jobs, samples)) => {
                    *jobs += 1;
                    *samples += n;
                }
                None => tally.push((status, 1, n)),
            }
        }
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &UnusedSamples) {
        for ((row, side), tally) in &other.rows {
            let mine = self.rows.entry((row.clone(), *side)).or_default();
            for &(st, jobs, samples) in tally {
                match mine.iter_mut().find(|(s, _, _)| *s == st) {
                    Some((_, j, n)) => {
                        *j += jobs;
                        *n += samples;
                    }
                    None => mine.push((st, jobs, samples)),
                }
            }
        }
    }

    /// True when no sample was left out.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Samples left out for `row` (the report's row name, `file configuration`) on `side`.
    pub fn samples(&self, row: &str, side: Side) -> u32 {
        self.rows
            .get(&(row.to_owned(), side))
            .map_or(0, |t| t.iter().map(|(_, _, n)| n).sum())
    }

    /// One note per affected row, sorted by row name then side, e.g.
    /// `dgram/bind.js n=1: new: 3 jobs timed out after reporting; their 3 samples are not used`.
    pub fn notes(&self) -> Vec<String> {
        let plural = |n: u32, one: &str, many: &str| {
            if n == 1 {
                format!("{n} {one}")
            } else {
                format!("{n} {many}")
            }
        };
        self.rows
            .iter()
            .map(|((row, side), tally)| {
                let parts: Vec<String> = tally
                    .iter()
                    .map(|&(st, jobs, samples)| {
                        let what = match st {
                            JobStatus::Timeout => "timed out",
                            JobStatus::Interrupted => "were interrupted",
                            _ => "failed",
                        };
                        let what = if jobs == 1 && st == JobStatus::Interrupted {
                            "was interrupted"
                        } else {
                            what
                        };
                        format!(
                            "{} {what} after reporting; their {} not used",
                            plural(jobs, "job", "jobs"),
                            plural(samples, "sample is", "samples are")
                        )
                    })
                    .collect();
                format!("{row}: {}: {}", side.label(), parts.join("; "))
            })
            .collect()
    }
}

/// A `resume` record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResumeMark {
    /// When, seconds since the Unix epoch.
    pub at_unix_s: f64,
    /// Jobs already done (status `ok`) at that point.
    pub done: usize,
    /// Jobs left to run.
    pub remaining: usize,
}

/// Any record of the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Record {
    /// The plan (first line).
    Run(RunHeader),
    /// A finished job.
    Job(JobRecord),
    /// A resume point.
    Resume(ResumeMark),
    /// Machine checks at the start.
    Machine(machine::MachineInfo),
    /// An adaptive round (`--runs auto`).
    Adaptive(plan::RoundRecord),
    /// The plan of a command-benchmark run (first line).
    #[serde(rename = "command-run")]
    CommandRun(CommandRunHeader),
    /// A finished command-benchmark job.
    #[serde(rename = "command-job")]
    CommandJob(CommandJobRecord),
    /// The part of a sharded plan this file holds (after the plan record; see [`shard`]).
    Shard(shard::ShardRecord),
    /// Samples of a Node-file job whose record comes next (see [`SamplesPart`]).
    Samples(SamplesPart<SampleRecord>),
    /// Samples of a command job whose record comes next (see [`SamplesPart`]).
    #[serde(rename = "command-samples")]
    CommandSamples(SamplesPart<command::CommandSample>),
}

/// Part of one job's samples, in a record of its own (`samples` for a Node-file job,
/// `command-samples` for a command job). A job whose record would be longer than
/// [`SPLIT_RECORD_BYTES`] is written as such parts, each about [`PART_BYTES`] (a part holds at
/// least one sample), followed by the job record with the last samples and, in
/// `samples_before`, how many samples the parts hold. The parts of a job come right before
/// its record: the job record is written last, so a job cut by a kill has no record and is
/// run again by `--resume`, and the loader ([`load_from`]) joins the parts to the record, or
/// warns about parts without one. Every record then stays far below [`MAX_RECORD_BYTES`],
/// whatever a job printed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplesPart<S> {
    /// The job's position in the schedule.
    pub position: u32,
    /// Samples, in arrival order.
    pub samples: Vec<S>,
}

/// A job record longer than this (4 MiB) is written as [`SamplesPart`] records and the job
/// record.
pub const SPLIT_RECORD_BYTES: usize = 4 << 20;

/// The size a [`SamplesPart`] record is filled to (1 MiB of samples).
pub const PART_BYTES: usize = 1 << 20;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The bytes of `record` as written, each line ended by `\n`: its line, or for a job record
/// longer than [`SPLIT_RECORD_BYTES`] the [`SamplesPart`] records of all its samples but the
/// last part's, then the record with those and `samples_before`. The parts are made of the
/// bytes of each sample, serialised once.
fn record_bytes(record: &Record) -> serde_json::Result<Vec<u8>> {
    /// The bytes of the job record `whole` of `samples`: its one line when that is short
    /// enough, else its parts; `with_last(last, before)` is that record holding the samples
    /// `last` after `before` samples in parts.
    fn job<S: Serialize + Clone>(
        whole: &Record,
        samples: &[S],
        position: u32,
        mut before: u64,
        wrap: fn(SamplesPart<S>) -> Record,
        with_last: &dyn Fn(Vec<S>, u64) -> Record,
    ) -> serde_json::Result<Vec<u8>> {
        let mut line = serde_json::to_vec(whole)?;
        if line.len() <= SPLIT_RECORD_BYTES {
            line.push(b'\n');
            return Ok(line);
        }
        let line_len = line.len();
        drop(line);
        let encoded = samples
            .iter()
            .map(serde_json::to_vec)
            .collect::<serde_json::Result<Vec<_>>>()?;
        // A part's line is the empty part's with its samples inside the final `[]`.
        let empty = serde_json::to_vec(&wrap(SamplesPart {
            position,
            samples: Vec::new(),
        }))?;
        let Some(cut) = empty.windows(2).rposition(|w| w == b"[]") else {
            return Err(serde::ser::Error::custom(
                "a samples part without its samples array",
            ));
        };
        let (open, close) = (&empty[..=cut], &empty[cut + 1..]);
        let mut out = Vec::with_capacity(line_len + line_len / 8);
        let mut first = 0;
        let mut bytes = 0;
        for (i, e) in encoded.iter().enumerate() {
            let len = e.len() + 1;
            if i > first && bytes + len > PART_BYTES {
                out.extend_from_slice(open);
                for (j, e) in encoded[first..i].iter().enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(e);
                }
                out.extend_from_slice(close);
                out.push(b'\n');
                before += (i - first) as u64;
                first = i;
                bytes = 0;
            }
            bytes += len;
        }
        out.extend_from_slice(&serde_json::to_vec(&with_last(
            samples[first..].to_vec(),
            before,
        ))?);
        out.push(b'\n');
        Ok(out)
    }
    match record {
        Record::Job(j) => job(
            record,
            &j.samples,
            j.position,
            j.samples_before,
            Record::Samples,
            &|samples, before| {
                let mut head = j.without_samples();
                head.samples = samples;
                head.samples_before = before;
                Record::Job(head)
            },
        ),
        Record::CommandJob(j) => job(
            record,
            &j.samples,
            j.position,
            j.samples_before,
            Record::CommandSamples,
            &|samples, before| {
                let mut head = j.without_samples();
                head.samples = samples;
                head.samples_before = before;
                Record::CommandJob(head)
            },
        ),
        _ => {
            let mut line = serde_json::to_vec(record)?;
            line.push(b'\n');
            Ok(line)
        }
    }
}

/// The samples of the parts waiting in `parts` for the job record at line `n` (of schedule
/// position `position`, continuing `before` samples): empty when it continues none; `Err`
/// when the parts it continues are missing (the record is then ignored, with a warning).
/// Parts of another job (one cut by a kill) are dropped with a warning.
fn join_parts<S>(
    parts: &mut Option<(u32, u64, Vec<S>)>,
    position: u32,
    before: u64,
    n: u64,
    warnings: &mut Vec<String>,
) -> Result<Vec<S>, ()> {
    if let Some((p, _, s)) = parts
        && *p == position
        && s.len() as u64 == before
        && before > 0
    {
        let s = std::mem::take(s);
        *parts = None;
        return Ok(s);
    }
    drop_parts(parts, warnings);
    if before > 0 {
        warnings.push(format!(
            "line {n}: the job record continues {before} samples of earlier records that are \
             missing; ignored"
        ));
        return Err(());
    }
    Ok(Vec::new())
}

/// Drops the parts waiting in `parts` (their job record never came), with a warning.
fn drop_parts<S>(parts: &mut Option<(u32, u64, Vec<S>)>, warnings: &mut Vec<String>) {
    if let Some((p, first, s)) = parts.take() {
        warnings.push(format!(
            "line {first}: {} samples of the job at position {p} without its job record (cut \
             by a kill?); ignored",
            s.len()
        ));
    }
}

/// Adds `part` (at line `n`) to the parts waiting in `parts` for their job record; parts of
/// another job, or more than [`MAX_JOB_SAMPLES`] samples, are dropped with a warning.
fn add_part<S>(
    parts: &mut Option<(u32, u64, Vec<S>)>,
    mut part: SamplesPart<S>,
    n: u64,
    warnings: &mut Vec<String>,
) {
    match parts {
        Some((p, _, s))
            if *p == part.position && s.len() + part.samples.len() <= MAX_JOB_SAMPLES =>
        {
            s.append(&mut part.samples);
        }
        _ => {
            drop_parts(parts, warnings);
            if part.samples.len() <= MAX_JOB_SAMPLES {
                *parts = Some((part.position, n, part.samples));
            }
        }
    }
}

/// Appends records to a results file, one flushed line each.
pub struct ResultsWriter {
    file: File,
    path: PathBuf,
}

impl ResultsWriter {
    /// Creates the file (and its missing folders), replacing an existing one; a device or pipe
    /// is written as it is. Whether an existing file may be replaced is decided before, by
    /// [`crate::output::check`] (refused unless `--force`).
    ///
    /// # Errors
    /// [`ResultsError`] when the folder or the file cannot be created.
    pub fn create(path: &Path) -> Result<ResultsWriter, ResultsError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                ResultsError::new("", 0, format!("cannot create {}: {e}", dir.display()))
            })?;
        }
        let file = File::create(path)
            .map_err(|e| ResultsError::new(&path.display().to_string(), 0, e.to_string()))?;
        Ok(ResultsWriter {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing file for appending (`--resume`).
    ///
    /// # Errors
    /// [`ResultsError`] when it cannot be opened.
    pub fn append(path: &Path) -> Result<ResultsWriter, ResultsError> {
        let err =
            |e: std::io::Error| ResultsError::new(&path.display().to_string(), 0, e.to_string());
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .read(true)
            .open(path)
            .map_err(err)?;
        // A kill mid-write can leave a partial last line: end it, so the next record starts clean.
        use std::io::{Read, Seek, SeekFrom};
        let len = file.seek(SeekFrom::End(0)).map_err(err)?;
        if len > 0 {
            let mut last = [0u8; 1];
            let ok =
                file.seek(SeekFrom::Start(len - 1)).is_ok() && file.read_exact(&mut last).is_ok();
            if ok && last[0] != b'\n' {
                file.write_all(b"\n").map_err(err)?;
            }
        }
        Ok(ResultsWriter {
            file,
            path: path.to_path_buf(),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one record as one line and flushes it; a job record longer than
    /// [`SPLIT_RECORD_BYTES`] as its [`SamplesPart`] records and then itself, in one write.
    ///
    /// # Errors
    /// Serialisation or write errors.
    pub fn write(&mut self, record: &Record) -> std::io::Result<()> {
        let line = record_bytes(record)?;
        self.file.write_all(&line)?;
        self.file.flush()
    }
}

/// A results file read back: a Node-file run (`run` first) or a command-benchmark run
/// (`command-run` first), by the one loader [`load_from`].
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// Its plan (the first record).
    pub header: Header,
    /// Node-file runs: `ok` job records, first one per (file, side, run), in file order.
    pub done: Vec<JobRecord>,
    /// Command runs: `ok` job records (warm-ups included), the first one per schedule
    /// position, in file order.
    pub command_done: Vec<CommandJobRecord>,
    /// Lines that could not be read (e.g. one cut short by a kill), as `line N: why`.
    pub warnings: Vec<String>,
    /// The adaptive stopping rule of a `--runs auto` run: from the header, or (files written
    /// before the header carried it) from the first `adaptive` round record.
    pub adaptive: Option<plan::Rule>,
    /// Samples of the jobs that did not end `ok` (see [`UnusedSamples`]).
    pub unused: UnusedSamples,
    /// Node-file runs: job records that did not end `ok` (failed, timed out, interrupted), in
    /// file order, for the failures every report lists.
    pub failed: Vec<JobRecord>,
    /// Command runs: job records that did not end `ok`, in file order.
    pub command_failed: Vec<CommandJobRecord>,
    /// `--runs auto`: the configurations the rule settled, from every `adaptive` record
    /// (first record of each file + configuration), in file order.
    pub settled: Vec<plan::Settled>,
}

/// The first record of a results file: which kind of run wrote it.
#[derive(Clone, Debug, PartialEq)]
pub enum Header {
    /// A Node-file run (`benchdiff compare --old BIN --new BIN CATEGORY`).
    Node(RunHeader),
    /// A command-benchmark run (`--bench`, `--suite`, `run`, `sweep`).
    Command(CommandRunHeader),
}

impl Loaded {
    /// The plan of a Node-file run (`None` for a command run).
    pub fn node_header(&self) -> Option<&RunHeader> {
        match &self.header {
            Header::Node(h) => Some(h),
            Header::Command(_) => None,
        }
    }

    /// Keys (file, side, run) of the done jobs of a Node-file run.
    pub fn done_keys(&self) -> HashSet<(String, Side, u32)> {
        self.done
            .iter()
            .map(|r| (r.file.clone(), r.side, r.run))
            .collect()
    }
}

/// Why a results file could not be read or written: the file, the 1-based line (0 when the
/// problem is not at a line), and what is wrong. Displayed as `results file: FILE: line N: why`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("results file: {}", self.located())]
pub struct ResultsError {
    /// The file (or folder) as named to the user; empty when the message names it.
    pub file: String,
    /// 1-based line, 0 for none.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

impl ResultsError {
    fn new(file: &str, line: u64, message: impl Into<String>) -> ResultsError {
        ResultsError {
            file: file.to_owned(),
            line,
            message: message.into(),
        }
    }

    /// The error of the line reader at line `line` of `file`, without naming the file twice:
    /// the reader's own line and message when it names one (an endless line), else `line`
    /// and the I/O error.
    pub(crate) fn from_import(file: &str, line: u64, e: crate::error::ImportError) -> ResultsError {
        match e {
            crate::error::ImportError::Invalid(d, _) if !d.is_empty() => {
                ResultsError::new(file, d[0].line, d[0].message.clone())
            }
            crate::error::ImportError::Io { source, .. } => {
                ResultsError::new(file, line, source.to_string())
            }
            other => ResultsError::new(file, line, other.to_string()),
        }
    }

    /// `FILE: line N: why` (parts that are empty left out).
    pub fn located(&self) -> String {
        let mut s = String::new();
        if !self.file.is_empty() {
            s.push_str(&self.file);
            s.push_str(": ");
        }
        if self.line > 0 {
            s.push_str(&format!("line {}: ", self.line));
        }
        s.push_str(&self.message);
        s
    }
}

#[derive(Deserialize)]
struct TypeOnly {
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// The longest results record read back, in bytes (16 MiB): far more than any job writes
/// (a record holds one job's samples); a longer line is skipped with a warning, not loaded.
pub const MAX_RECORD_BYTES: usize = 16 << 20;

/// Reads a results file (for `--resume` or `report`), streamed: memory is bounded by the
/// records kept, not by the file's size.
///
/// # Errors
/// [`ResultsError`] when the file cannot be read or its first record is not a plan.
pub fn load(path: &Path) -> Result<Loaded, ResultsError> {
    let name = path.display().to_string();
    let f = File::open(path).map_err(|e| ResultsError::new(&name, 0, e.to_string()))?;
    load_from(BufReader::new(f), &name)
}

/// True when the first non-blank line of `text` (after a byte-order mark) is a `command-run`
/// record. A first line that does not parse (e.g. cut off by a sniffing window: a plan with
/// long parameter lists can exceed 64 KiB) is judged by how it starts, `{"type":"command-run"`,
/// which is how benchdiff writes it.
pub fn is_command_results(text: &str) -> bool {
    let Some(first) = text
        .trim_start_matches('\u{feff}')
        .lines()
        .find(|l| !l.trim().is_empty())
    else {
        return false;
    };
    match serde_json::from_str::<TypeOnly>(first) {
        Ok(t) => t.kind.is_some_and(|k| k == "command-run"),
        Err(_) => {
            let start: String = first
                .chars()
                .filter(|c| !c.is_whitespace())
                .take(24)
                .collect();
            start.starts_with("{\"type\":\"command-run\"")
        }
    }
}

/// Reads a results file of either kind from `input` (named `name` in messages), streamed.
/// The first record decides the kind (`run` or `command-run`); records of the other kind, a
/// second plan record and unreadable lines after the first become warnings.
///
/// # Errors
/// [`ResultsError`] naming the line when reading fails, the first record is not a plan
/// (e.g. a job record before it), or the plan record is unreadable.
pub fn load_from<R: BufRead>(input: R, name: &str) -> Result<Loaded, ResultsError> {
    load_with(input, name, None)
}

/// A counted `ok` job record as [`load_streamed`] hands it over, in file order.
pub enum OkJob<'a> {
    /// A Node-file job (the first `ok` record of its file, side and run).
    Node(&'a JobRecord),
    /// A command job (the first `ok` record of its schedule position; warm-ups included).
    Command(&'a command::CommandJobView<'a>),
}

/// Reads a results file as [`load_from`] does, but hands every counted `ok` job record to
/// `on_ok` as it is read instead of keeping it: memory holds what the failure summary needs,
/// not the records. In the [`Loaded`] returned, `done` holds the Node-file `ok` records without
/// their samples, stderr and stdout tails; `command_done` is empty when no command job failed,
/// else holds the `ok` command records without argv, samples and measurements (position,
/// benchmark, combination, side, run and warm-up flag: what
/// [`crate::compare::failures::Failures::from_loaded`] reads).
///
/// # Errors
/// As [`load_from`].
pub fn load_streamed<R: BufRead>(
    input: R,
    name: &str,
    on_ok: &mut dyn FnMut(OkJob<'_>),
) -> Result<Loaded, ResultsError> {
    load_with(input, name, Some(on_ok))
}

/// A command `ok` job kept by [`load_streamed`]: position, run, index of its (benchmark,
/// combination) and side, warm-up.
type CompactOk = (u32, u32, u32, Side, bool);

/// The `type` of a record line: read from the line's start when it begins `{"type":"KIND"`
/// (how benchdiff writes every record) and KIND is a job record's (those lines are parsed in
/// full right after), else by parsing the line.
fn record_kind(line: &str) -> Result<Cow<'static, str>, serde_json::Error> {
    // The kinds of every record benchdiff writes, without an allocation per line.
    const KNOWN: [&str; 8] = [
        "job",
        "command-job",
        "samples",
        "command-samples",
        "run",
        "command-run",
        "adaptive",
        "machine",
    ];
    let known = |k: &str| KNOWN.iter().find(|&&x| x == k).copied();
    if let Some(rest) = line.strip_prefix("{\"type\":\"")
        && let Some(end) = rest.find('"')
        && let Some(k @ ("job" | "command-job" | "samples" | "command-samples")) =
            known(&rest[..end])
    {
        return Ok(Cow::Borrowed(k));
    }
    serde_json::from_str::<TypeOnly>(line).map(|t| {
        let k = t.kind.unwrap_or_default();
        known(&k).map_or(Cow::Owned(k), Cow::Borrowed)
    })
}

/// Parses a record line whose `type` is `kind` straight into its variant's struct (serde's
/// internally tagged enum would first buffer the whole record as generic content, then read
/// it again; the `type` key is ignored by the struct).
fn parse_record(kind: &str, line: &str) -> Result<Record, serde_json::Error> {
    Ok(match kind {
        "run" => Record::Run(serde_json::from_str(line)?),
        "job" => Record::Job(serde_json::from_str(line)?),
        "command-run" => Record::CommandRun(serde_json::from_str(line)?),
        "command-job" => Record::CommandJob(serde_json::from_str(line)?),
        "adaptive" => Record::Adaptive(serde_json::from_str(line)?),
        "samples" => Record::Samples(serde_json::from_str(line)?),
        "command-samples" => Record::CommandSamples(serde_json::from_str(line)?),
        _ => serde_json::from_str::<Record>(line)?,
    })
}

/// A line of a batch, parsed: blank, unreadable (over the limit, not UTF-8),
/// not JSON, or a record's `type` with the record parsed when the loader may keep it (plans,
/// job records, adaptive rounds).
// Most lines of a large file are `ok` command jobs, held in place (see `Record`).
#[allow(clippy::large_enum_variant)]
enum Parsed<'a> {
    Blank,
    Unreadable(String),
    NotJson(String),
    /// The record's `type`, and the record unless the loader has no use for it.
    Record(
        Cow<'static, str>,
        Option<Result<Item<'a>, serde_json::Error>>,
    ),
}

/// A record parsed in full, or (when streaming) an `ok` command job as a view on its line.
#[allow(clippy::large_enum_variant)]
enum Item<'a> {
    Record(Box<Record>),
    CommandOk(command::CommandJobView<'a>),
}

/// Lines read a batch at a time: their text, one after the other, and per line its number
/// and its byte range (or why it could not be read).
#[derive(Default)]
struct Batch {
    text: String,
    lines: Vec<BatchLine>,
    /// The number of the last line read (of any batch).
    last: u64,
}

/// A line of a [`Batch`]: its number, and its byte range in the batch's text or why it could
/// not be read.
type BatchLine = crate::lines::BatchLine;

/// Lines and bytes per batch: little against the records, few reads of the input.
const BATCH_LINES: usize = 4096;
const BATCH_BYTES: usize = 8 << 20;

impl Batch {
    /// Reads the next batch of lines; true at the end of the input.
    fn fill<R: BufRead>(
        &mut self,
        lines: &mut crate::format::LineReader<R>,
        name: &str,
    ) -> Result<bool, ResultsError> {
        self.text.clear();
        self.lines.clear();
        let read = lines.read_batch(&mut self.text, &mut self.lines, BATCH_LINES, BATCH_BYTES);
        if let Some(&(n, _)) = self.lines.last() {
            self.last = n;
        }
        read.map_err(|e| ResultsError::from_import(name, self.last + 1, e))
    }

    /// Every line of the batch parsed, in order; with `stream`, `ok` command jobs as views
    /// ([`command::CommandJobView`]).
    fn parse(&self, stream: bool) -> Vec<(u64, Parsed<'_>)> {
        self.lines
            .iter()
            .map(|(n, r)| {
                let p = match r {
                    Err(why) => Parsed::Unreadable(why.problem().unwrap_or_default()),
                    Ok((a, b)) => {
                        let line = &self.text[*a..*b];
                        if line.trim().is_empty() {
                            Parsed::Blank
                        } else {
                            match record_kind(line) {
                                Err(e) => Parsed::NotJson(e.to_string()),
                                Ok(kind) => {
                                    let full = matches!(
                                        &*kind,
                                        "run"
                                            | "command-run"
                                            | "job"
                                            | "command-job"
                                            | "adaptive"
                                            | "samples"
                                            | "command-samples"
                                    );
                                    let record = full.then(|| parse_item(&kind, line, stream));
                                    Parsed::Record(kind, record)
                                }
                            }
                        }
                    }
                };
                (*n, p)
            })
            .collect()
    }
}

/// [`parse_record`], or with `stream` an `ok` command job as a view (a job of another status
/// is parsed in full: the failure summary keeps it).
fn parse_item<'a>(kind: &str, line: &'a str, stream: bool) -> Result<Item<'a>, serde_json::Error> {
    if stream && kind == "command-job" {
        // The bulk of a command run's file: the lines benchdiff wrote, read without serde.
        if let Some(view) = command::CommandJobView::parse_fast(line) {
            return Ok(Item::CommandOk(view));
        }
        let view: command::CommandJobView<'a> = serde_json::from_str(line)?;
        if view.status == JobStatus::Ok {
            return Ok(Item::CommandOk(view));
        }
    }
    parse_record(kind, line).map(|r| Item::Record(Box::new(r)))
}

/// Schedule positions seen (of a command run's `ok` jobs): a bit per position below
/// [`Positions::DENSE`] (positions count from 0 to the plan's number of jobs), a hash set for
/// any above. Marking a position is then a bit operation, not a hash-set insert per job.
#[derive(Default)]
struct Positions {
    bits: Vec<u64>,
    sparse: rustc_hash::FxHashSet<u32>,
}

impl Positions {
    /// Positions below this have a bit (2 MiB of bits at most).
    const DENSE: u32 = 1 << 24;

    /// Marks position `p`; true when it was not marked before.
    fn insert(&mut self, p: u32) -> bool {
        if p >= Self::DENSE {
            return self.sparse.insert(p);
        }
        let (word, bit) = ((p / 64) as usize, 1u64 << (p % 64));
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        let new = self.bits[word] & bit == 0;
        self.bits[word] |= bit;
        new
    }
}

/// The loader behind [`load_from`] (`on_ok` None: every record kept) and [`load_streamed`].
fn load_with<R: BufRead>(
    input: R,
    name: &str,
    mut on_ok: Option<&mut dyn FnMut(OkJob<'_>)>,
) -> Result<Loaded, ResultsError> {
    use crate::format::LineReader;
    let mut compact: Vec<CompactOk> = Vec::new();
    let mut keys: Vec<(String, plan::Combination)> = Vec::new();
    // (benchmark, combination) → index in `keys`, by a text key made in `key_buf`.
    let mut key_index: rustc_hash::FxHashMap<Box<str>, u32> = rustc_hash::FxHashMap::default();
    let mut key_buf = String::new();
    let mut header: Option<Header> = None;
    let mut done = Vec::new();
    let mut command_done = Vec::new();
    let mut seen = HashSet::new();
    let mut seen_positions = Positions::default();
    let mut warnings = Vec::new();
    let mut adaptive = None;
    let mut settled = Vec::new();
    let mut settled_seen = HashSet::new();
    let mut unused = UnusedSamples::default();
    let mut failed = Vec::new();
    let mut command_failed = Vec::new();
    let mut lines = LineReader::with_limit(input, name, MAX_RECORD_BYTES);
    // The samples parts read since the last job record: (position, line of the first, samples).
    let mut node_parts: Option<(u32, u64, Vec<SampleRecord>)> = None;
    let mut command_parts: Option<(u32, u64, Vec<command::CommandSample>)> = None;
    // Lines are read in batches, parsed, then taken in file order.
    let stream = on_ok.is_some();
    // Takes one parsed line of the file, in order.
    let mut take = |n: u64, slot: &mut Parsed<'_>| -> Result<(), ResultsError> {
        let item = std::mem::replace(slot, Parsed::Blank);
        // The parts of a job come right before its record: any other line (a resume after a
        // kill, a line cut by it) ends the parts waiting.
        let continues = match &item {
            Parsed::Blank => true,
            Parsed::Record(k, _) => {
                matches!(&**k, "samples" | "command-samples" | "job" | "command-job")
            }
            _ => false,
        };
        if !continues {
            drop_parts(&mut node_parts, &mut warnings);
            drop_parts(&mut command_parts, &mut warnings);
        }
        let (kind, record) = match item {
            Parsed::Blank => return Ok(()),
            Parsed::Unreadable(why) => {
                warnings.push(format!("line {n}: {why}; ignored"));
                return Ok(());
            }
            Parsed::NotJson(e) => {
                warnings.push(format!("line {n}: not a JSON record ({e}); ignored"));
                return Ok(());
            }
            Parsed::Record(kind, record) => (kind, record),
        };
        let is_plan = kind == "run" || kind == "command-run";
        if header.is_none() && !is_plan {
            if kind == "job" || kind == "command-job" {
                return Err(ResultsError::new(
                    name,
                    n,
                    format!(
                        "{kind} record before the {} record; not a benchdiff results file",
                        if kind == "job" { "run" } else { "command-run" }
                    ),
                ));
            }
            return Ok(());
        }
        // Only the records the loader keeps are parsed in full.
        let wanted = is_plan
            || matches!(
                &*kind,
                "job" | "command-job" | "adaptive" | "samples" | "command-samples"
            );
        let Some(record) = record.filter(|_| wanted) else {
            return Ok(());
        };
        let record = match record {
            Ok(r) => r,
            Err(e) if is_plan && header.is_none() => {
                return Err(ResultsError::new(
                    name,
                    n,
                    format!("bad {kind} record: {e}"),
                ));
            }
            Err(e) => {
                if matches!(
                    &*kind,
                    "job" | "command-job" | "samples" | "command-samples"
                ) {
                    warnings.push(format!("line {n}: bad {kind} record ({e}); ignored"));
                }
                return Ok(());
            }
        };
        let record = match record {
            Item::Record(r) => {
                let mut r = *r;
                // A job record takes the samples of the parts before it.
                match (&mut r, &header) {
                    (Record::Job(j), Some(Header::Node(_))) => {
                        let Ok(mut parts) = join_parts(
                            &mut node_parts,
                            j.position,
                            j.samples_before,
                            n,
                            &mut warnings,
                        ) else {
                            return Ok(());
                        };
                        parts.append(&mut j.samples);
                        j.samples = parts;
                    }
                    (Record::CommandJob(j), Some(Header::Command(_))) => {
                        let Ok(mut parts) = join_parts(
                            &mut command_parts,
                            j.position,
                            j.samples_before,
                            n,
                            &mut warnings,
                        ) else {
                            return Ok(());
                        };
                        parts.append(&mut j.samples);
                        j.samples = parts;
                    }
                    (Record::Samples(part), Some(Header::Node(_))) => {
                        add_part(
                            &mut node_parts,
                            SamplesPart {
                                position: part.position,
                                samples: std::mem::take(&mut part.samples),
                            },
                            n,
                            &mut warnings,
                        );
                        return Ok(());
                    }
                    (Record::CommandSamples(part), Some(Header::Command(_))) => {
                        add_part(
                            &mut command_parts,
                            SamplesPart {
                                position: part.position,
                                samples: std::mem::take(&mut part.samples),
                            },
                            n,
                            &mut warnings,
                        );
                        return Ok(());
                    }
                    _ => {}
                }
                r
            }
            Item::CommandOk(mut j) => {
                if matches!(header, Some(Header::Command(_))) {
                    let Ok(parts) = join_parts(
                        &mut command_parts,
                        j.position,
                        j.samples_before,
                        n,
                        &mut warnings,
                    ) else {
                        return Ok(());
                    };
                    if !parts.is_empty() {
                        j.samples = command::Few::joined(parts, std::mem::take(&mut j.samples));
                    }
                }
                match (&header, on_ok.as_mut()) {
                    // A second `ok` record of a position: not counted (and, being `ok`, not
                    // an unused sample either).
                    (Some(Header::Command(_)), _) if !seen_positions.insert(j.position) => {}
                    (Some(Header::Command(_)), Some(f)) => {
                        f(OkJob::Command(&j));
                        // The old and new jobs of a benchmark often follow each other: the
                        // key of the job before, without making and hashing the text key.
                        let k = match compact.last() {
                            Some(&(_, _, last, _, _))
                                if keys.get(last as usize).is_some_and(|(b, c)| {
                                    *b == *j.benchmark && *c == j.combination
                                }) =>
                            {
                                last
                            }
                            _ => {
                                key_buf.clear();
                                key_buf.push_str(&j.benchmark);
                                for (k, v) in &j.combination {
                                    key_buf.push('\0');
                                    key_buf.push_str(k);
                                    key_buf.push('\0');
                                    key_buf.push_str(v);
                                }
                                match key_index.get(key_buf.as_str()) {
                                    Some(&k) => k,
                                    None => {
                                        let k = keys.len() as u32;
                                        keys.push((
                                            j.benchmark.clone().into_owned(),
                                            j.combination.clone(),
                                        ));
                                        key_index.insert(key_buf.as_str().into(), k);
                                        k
                                    }
                                }
                            }
                        };
                        compact.push((j.position, j.run, k, j.side, j.warmup));
                    }
                    _ => warnings.push(format!(
                        "line {n}: a {kind} record in a results file of the other kind; ignored"
                    )),
                }
                *slot = Parsed::Record(kind, Some(Ok(Item::CommandOk(j))));
                return Ok(());
            }
        };
        match (record, &header) {
            (Record::Run(h), None) => header = Some(Header::Node(h)),
            (Record::CommandRun(h), None) => header = Some(Header::Command(h)),
            (Record::Run(_) | Record::CommandRun(_), Some(_)) => {
                warnings.push(format!("line {n}: a second {kind} record; ignored"));
            }
            (Record::Job(j), Some(Header::Node(_))) => {
                unused.add(&j);
                if j.status == JobStatus::Ok && seen.insert((j.file.clone(), j.side, j.run)) {
                    match on_ok.as_mut() {
                        Some(f) => {
                            f(OkJob::Node(&j));
                            done.push(JobRecord {
                                samples: Vec::new(),
                                stderr_tail: Vec::new(),
                                stdout_tail: Vec::new(),
                                ..j
                            });
                        }
                        None => done.push(j),
                    }
                } else if j.status != JobStatus::Ok {
                    failed.push(j);
                }
            }
            (Record::CommandJob(j), Some(Header::Command(_)))
                if !j.ok() || !seen_positions.insert(j.position) =>
            {
                unused.add_command(&j);
                if !j.ok() {
                    command_failed.push(j);
                }
            }
            (Record::CommandJob(j), Some(Header::Command(_))) => command_done.push(j),
            (Record::Job(_) | Record::CommandJob(_), _) => {
                warnings.push(format!(
                    "line {n}: a {kind} record in a results file of the other kind; ignored"
                ));
            }
            (Record::Adaptive(r), _) => {
                if adaptive.is_none() {
                    adaptive = Some(plan::Rule {
                        target_pct: r.target_accuracy_pct,
                        min_runs: r.min_runs,
                        max_runs: r.max_runs,
                    });
                }
                for st in r.settled {
                    if settled_seen.insert((st.file.clone(), st.configuration.clone())) {
                        settled.push(st);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    };
    let mut batch = Batch::default();
    loop {
        let eof = batch.fill(&mut lines, name)?;
        for (n, mut item) in batch.parse(stream) {
            take(n, &mut item)?;
        }
        if eof {
            break;
        }
    }
    drop_parts(&mut node_parts, &mut warnings);
    drop_parts(&mut command_parts, &mut warnings);
    let header = header.ok_or_else(|| {
        ResultsError::new(
            name,
            0,
            "no run record: not a benchdiff results file (or it is empty)",
        )
    })?;
    let adaptive = match &header {
        Header::Node(h) => h.adaptive.or(adaptive),
        Header::Command(_) => None,
    };
    // Streamed: the failure summary reads the `ok` command records only when some job failed.
    if !command_failed.is_empty() {
        command_done.extend(compact.iter().map(|&(position, run, k, side, warmup)| {
            let (benchmark, combination) = keys[k as usize].clone();
            CommandJobRecord {
                exit_code: Some(0),
                ..CommandJobRecord::unmeasured(position, benchmark, combination, side, run, warmup)
            }
        }));
    }
    Ok(Loaded {
        header,
        done,
        command_done,
        warnings,
        adaptive,
        unused,
        failed,
        command_failed,
        settled,
    })
}

impl CommandJobRecord {
    /// The record of a job before anything of it is known: `ok`, no argv, exit code, signal,
    /// metrics, samples or error, its seconds `NaN` and its peak RSS 0.
    pub fn unmeasured(
        position: u32,
        benchmark: String,
        combination: plan::Combination,
        side: Side,
        run: u32,
        warmup: bool,
    ) -> CommandJobRecord {
        CommandJobRecord {
            position,
            benchmark,
            combination,
            side,
            run,
            warmup,
            argv: Vec::new(),
            status: JobStatus::Ok,
            exit_code: None,
            signal: None,
            wall_s: f64::NAN,
            user_s: f64::NAN,
            sys_s: f64::NAN,
            max_rss_bytes: 0,
            metrics: None,
            samples: Vec::new(),
            samples_before: 0,
            error: None,
            stderr_tail: Vec::new(),
        }
    }
}

fn ser_f64<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        s.serialize_f64(*x)
    } else if x.is_nan() {
        s.serialize_str("NaN")
    } else if *x > 0.0 {
        s.serialize_str("Infinity")
    } else {
        s.serialize_str("-Infinity")
    }
}

fn de_f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => Ok(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err(de::Error::custom(format!("not a number: {s:?}"))),
        },
        serde_json::Value::Null => Ok(f64::NAN),
        other => Err(de::Error::custom(format!("not a number: {other}"))),
    }
}

fn ser_side<S: Serializer>(side: &Side, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(side.label())
}

fn de_side<'de, D: Deserializer<'de>>(d: D) -> Result<Side, D::Error> {
    let s = String::deserialize(d)?;
    Side::from_record_label(&s)
        .ok_or_else(|| de::Error::custom(format!("side {s:?} is not old/new/control")))
}

fn ser_params<S: Serializer>(p: &[(String, ConfValue)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(p.len()))?;
    for (k, v) in p {
        let v = match v {
            ConfValue::Number(x) if x.is_finite() => serde_json::json!(x),
            ConfValue::Number(_) => serde_json::Value::Null,
            ConfValue::String(t) => serde_json::Value::String(t.clone()),
            ConfValue::Bool(b) => serde_json::Value::Bool(*b),
        };
        seq.serialize_element(&(k, v))?;
    }
    seq.end()
}

fn de_params<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, ConfValue)>, D::Error> {
    let raw: Vec<(String, serde_json::Value)> = Vec::deserialize(d)?;
    raw.into_iter()
        .map(|(k, v)| {
            let v = match v {
                serde_json::Value::Number(n) => ConfValue::Number(n.as_f64().unwrap_or(f64::NAN)),
                serde_json::Value::Null => ConfValue::Number(f64::NAN),
                serde_json::Value::String(s) => ConfValue::String(s),
                serde_json::Value::Bool(b) => ConfValue::Bool(b),
                other => return Err(de::Error::custom(format!("bad parameter value {other}"))),
            };
            Ok((k, v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines are taken in file order across many batches (three turning, each parsed while
    /// the one before is taken): every job's samples in order, and each unreadable line
    /// reported with its number, at batch boundaries too.
    #[test]
    fn batches_are_taken_in_order() {
        let mut text = String::from(
            "{\"type\":\"command-run\",\"benchdiff\":\"0.1.0\",\"started_unix_s\":1.0,\
             \"targets\":[{\"side\":\"old\",\"label\":\"/bin/true\",\"argv\":[\"/bin/true\"]},\
             {\"side\":\"new\",\"label\":\"/bin/true\",\"argv\":[\"/bin/true\"]}],\
             \"benchmarks\":[{\"name\":\"b\",\"template\":\"\",\"params\":[],\"exclusions\":[]}],\
             \"runs\":20000,\"warmup\":0,\"order\":\"node\",\"seed\":1,\"shell\":false,\
             \"timeout_s\":null,\"prepare\":null,\"setup\":null,\"cleanup\":null,\"cpus\":null,\
             \"jobs\":40000}\n",
        );
        let bad = [2, 4096, 4097, 8193, 12_289, 20_000, 30_001];
        let mut line = 1u64;
        let mut want_rates = Vec::new();
        for position in 0..35_000u32 {
            line += 1;
            while bad.contains(&line) {
                text.push_str("not json\n");
                line += 1;
            }
            let side = if position % 2 == 0 { "old" } else { "new" };
            let rate = f64::from(position) + 0.5;
            want_rates.push(rate);
            text.push_str(&format!(
                "{{\"type\":\"command-job\",\"position\":{position},\"benchmark\":\"b\",\
                 \"combination\":[],\"side\":\"{side}\",\"run\":{},\"warmup\":false,\
                 \"argv\":[\"/bin/true\"],\"status\":\"ok\",\"exit_code\":0,\"signal\":null,\
                 \"wall_s\":0.001,\"user_s\":0.001,\"sys_s\":0.0,\"max_rss_bytes\":1,\
                 \"samples\":[{{\"name\":\"b\",\"configuration\":\"\",\"params\":[],\
                 \"rate\":{rate},\"time_s\":0.001,\"source\":\"whole-process\",\"metrics\":[]}}]}}\n",
                position / 2
            ));
        }
        let mut rates = Vec::new();
        let loaded = load_streamed(text.as_bytes(), "t.jsonl", &mut |job| {
            if let OkJob::Command(j) = job {
                rates.extend(j.samples.iter().map(|s| s.rate));
            }
        })
        .unwrap();
        assert_eq!(rates, want_rates);
        let lines: Vec<&str> = loaded
            .warnings
            .iter()
            .map(|w| w.split(':').next().unwrap_or(""))
            .collect();
        let want: Vec<String> = bad.iter().map(|n| format!("line {n}")).collect();
        assert_eq!(lines, want, "{:?}", loaded.warnings);
    }

    /// A command job header of one benchmark and `jobs` jobs, then each record of `records`
    /// written by [`ResultsWriter`] into a temporary file; the file's text.
    fn written(records: &[Record]) -> String {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("r.jsonl");
        let mut w = ResultsWriter::create(&path).expect("creates");
        for r in records {
            w.write(r).expect("writes");
        }
        std::fs::read_to_string(&path).expect("reads")
    }

    fn command_header() -> Record {
        serde_json::from_str(
            "{\"type\":\"command-run\",\"benchdiff\":\"0.1.0\",\"started_unix_s\":1.0,\
             \"targets\":[{\"side\":\"old\",\"label\":\"t\",\"argv\":[\"t\"]}],\
             \"benchmarks\":[{\"name\":\"b\",\"template\":\"\",\"params\":[],\"exclusions\":[]}],\
             \"runs\":2,\"warmup\":0,\"order\":\"node\",\"seed\":1,\"shell\":false,\
             \"timeout_s\":null,\"prepare\":null,\"setup\":null,\"cleanup\":null,\"cpus\":null,\
             \"jobs\":2}",
        )
        .expect("header")
    }

    fn command_job(position: u32, samples: usize) -> command::CommandJobRecord {
        let sample = |i: usize| command::CommandSample {
            name: "b".into(),
            configuration: format!("i={i}"),
            params: vec![("i".into(), serde_json::json!(i))],
            rate: i as f64 + 0.5,
            time_s: Some(0.001),
            source: "json".into(),
            metrics: vec![crate::format::result_lines::ReportedMetric {
                name: "wall".into(),
                unit: "s".into(),
                better: crate::sample::Better::Lower,
                value: 0.25,
            }],
        };
        command::CommandJobRecord {
            argv: vec!["t".into()],
            exit_code: Some(0),
            wall_s: 0.5,
            user_s: 0.25,
            sys_s: 0.125,
            max_rss_bytes: 1,
            metrics: Some(Vec::new()),
            samples: (0..samples).map(sample).collect(),
            ..CommandJobRecord::unmeasured(
                position,
                "b".into(),
                Vec::new(),
                Side::Old,
                position,
                false,
            )
        }
    }

    /// A job with more samples than fit [`SPLIT_RECORD_BYTES`] is written as `command-samples`
    /// parts and its record, every line far below the reader's limit, and both loaders read
    /// it back whole, in order; a small job stays one record, as before.
    #[test]
    fn a_split_job_reads_back_whole() {
        let big = command_job(0, 60_000);
        let small = command_job(1, 3);
        let text = written(&[
            command_header(),
            Record::CommandJob(big.clone()),
            Record::CommandJob(small.clone()),
        ]);
        let kinds: Vec<String> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<TypeOnly>(l)
                    .expect("JSON")
                    .kind
                    .unwrap_or_default()
            })
            .collect();
        assert!(kinds.len() > 4, "{kinds:?}");
        assert!(
            kinds[1..kinds.len() - 2]
                .iter()
                .all(|k| k == "command-samples")
        );
        assert_eq!(kinds[kinds.len() - 2..], ["command-job", "command-job"]);
        assert!(text.lines().all(|l| l.len() <= 2 * PART_BYTES));
        assert_eq!(
            text.lines().last().expect("line"),
            serde_json::to_string(&Record::CommandJob(small.clone())).expect("JSON")
        );
        let full = load_from(text.as_bytes(), "r.jsonl").expect("loads");
        assert!(full.warnings.is_empty(), "{:?}", full.warnings);
        assert_eq!(full.command_done[0].samples, big.samples);
        assert_eq!(full.command_done[1].samples, small.samples);
        let mut rates = Vec::new();
        let streamed = load_streamed(text.as_bytes(), "r.jsonl", &mut |job| {
            if let OkJob::Command(j) = job {
                rates.extend(
                    j.samples
                        .iter()
                        .map(|s| (s.rate, s.configuration.to_string())),
                );
            }
        })
        .expect("loads");
        assert!(streamed.warnings.is_empty(), "{:?}", streamed.warnings);
        let want: Vec<(f64, String)> = big
            .samples
            .iter()
            .chain(&small.samples)
            .map(|s| (s.rate, s.configuration.clone()))
            .collect();
        assert_eq!(rates, want);
    }

    /// Parts cut off by a kill (no job record after them) are warned about and not counted;
    /// a job record whose parts are missing is ignored with a warning (its job is not done,
    /// so `--resume` runs it again); a re-run after the cut reads whole.
    #[test]
    fn parts_without_their_record_and_records_without_their_parts_are_not_counted() {
        let text = written(&[command_header(), Record::CommandJob(command_job(0, 30_000))]);
        let lines: Vec<&str> = text.lines().collect();
        let last = lines.len() - 1;
        // Killed before the job record: the parts, then a resume and the whole job again.
        let mut cut = lines[..last].join("\n");
        cut.push_str("\n{\"type\":\"resume\",\"at_unix_s\":2.0,\"done\":0,\"remaining\":2}\n");
        cut.push_str(&lines[1..].join("\n"));
        let loaded = load_from(cut.as_bytes(), "r.jsonl").expect("loads");
        assert_eq!(loaded.command_done.len(), 1);
        assert_eq!(loaded.command_done[0].samples.len(), 30_000);
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
        assert!(
            loaded.warnings[0].starts_with("line 2: ")
                && loaded.warnings[0].contains("without its job record"),
            "{:?}",
            loaded.warnings
        );
        // The record without its parts.
        let orphan = format!("{}\n{}\n", lines[0], lines[last]);
        let loaded = load_from(orphan.as_bytes(), "r.jsonl").expect("loads");
        assert!(loaded.command_done.is_empty());
        assert!(
            loaded.warnings[0].starts_with("line 2: the job record continues"),
            "{:?}",
            loaded.warnings
        );
        // Parts at the end of the file.
        let tail = lines[..last].join("\n");
        let loaded = load_from(tail.as_bytes(), "r.jsonl").expect("loads");
        assert!(loaded.command_done.is_empty());
        assert!(loaded.warnings[0].contains("without its job record"));
    }

    /// Positions are marked once, below and above the dense range.
    #[test]
    fn positions_are_marked_once() {
        let mut p = Positions::default();
        for x in [
            0,
            63,
            64,
            5,
            Positions::DENSE - 1,
            Positions::DENSE,
            u32::MAX,
        ] {
            assert!(p.insert(x), "{x}");
            assert!(!p.insert(x), "{x}");
        }
        assert!(p.insert(1) && p.insert(65));
    }

    #[test]
    fn records_round_trip() {
        let job = JobRecord {
            position: 3,
            file: "a/b.js".into(),
            side: Side::New,
            run: 1,
            binary: "/usr/bin/node".into(),
            status: JobStatus::Ok,
            exit_code: Some(0),
            signal: None,
            wall_s: 0.5,
            user_s: 0.25,
            sys_s: 0.125,
            max_rss_bytes: 4096,
            queue_length: Some(2),
            samples: vec![
                SampleRecord {
                    configuration: "n=1 s='x'".into(),
                    params: vec![
                        ("n".into(), ConfValue::Number(1.0)),
                        ("s".into(), ConfValue::String("x".into())),
                    ],
                    rate: 45686.44123456789,
                    time: "0.021888329".into(),
                    channel: Channel::Ipc,
                },
                SampleRecord {
                    configuration: "n=null".into(),
                    params: vec![("n".into(), ConfValue::Number(f64::NAN))],
                    rate: f64::INFINITY,
                    time: "NA".into(),
                    channel: Channel::Stdout,
                },
            ],
            samples_before: 0,
            error: None,
            stderr_tail: vec![],
            stdout_tail: vec![],
            counters: Vec::new(),
        };
        let text = serde_json::to_string(&Record::Job(job.clone())).unwrap();
        assert!(text.starts_with("{\"type\":\"job\""), "{text}");
        let back: Record = serde_json::from_str(&text).unwrap();
        let Record::Job(b) = back else { panic!() };
        assert_eq!(b.samples[0], job.samples[0]);
        assert_eq!(b.samples[1].rate, f64::INFINITY);
        assert!(matches!(b.samples[1].params[0].1, ConfValue::Number(x) if x.is_nan()));
        assert_eq!(b.side, Side::New);
    }
}
