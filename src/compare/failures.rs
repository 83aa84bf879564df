//! Benchmarks whose jobs did not end well: failed, timed out, interrupted, or never run.
//!
//! The one failure model every report shows ("nothing hidden"). It is built from a
//! results file ([`Failures::from_loaded`]: the job records with their status, error text and
//! stderr tail) for `benchdiff report RESULTS.jsonl` and for the live `compare` report alike,
//! so both say the same. Samples printed by such jobs are not used (case 20 policy, see
//! [`crate::format::results::UnusedSamples`]); a failure entry says how many there were.

use crate::format::results::{Header, JobStatus, Loaded, UnusedSamples};
use crate::sample::Side;
use std::collections::HashMap;

/// Why a benchmark's jobs gave no (usable) samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FailureKind {
    /// Non-zero exit, a signal, or unreadable output.
    Failed,
    /// Killed after `--timeout`.
    Timeout,
    /// Stopped by Ctrl-C.
    Interrupted,
    /// Planned but never run (the run stopped before, e.g. `--fail-fast`): skipped.
    NotRun,
}

impl FailureKind {
    /// Machine name: `failed`, `timeout`, `interrupted`, `skipped`.
    pub fn key(self) -> &'static str {
        match self {
            FailureKind::Failed => "failed",
            FailureKind::Timeout => "timeout",
            FailureKind::Interrupted => "interrupted",
            FailureKind::NotRun => "skipped",
        }
    }

    fn from_status(s: JobStatus) -> Option<FailureKind> {
        match s {
            JobStatus::Ok => None,
            JobStatus::Failed => Some(FailureKind::Failed),
            JobStatus::Timeout => Some(FailureKind::Timeout),
            JobStatus::Interrupted => Some(FailureKind::Interrupted),
        }
    }

    /// Verb phrase for `jobs` jobs: `failed`, `timed out`, `were interrupted`, `were not run`.
    fn verb(self, jobs: u32) -> &'static str {
        match (self, jobs == 1) {
            (FailureKind::Failed, _) => "failed",
            (FailureKind::Timeout, _) => "timed out",
            (FailureKind::Interrupted, true) => "was interrupted",
            (FailureKind::Interrupted, false) => "were interrupted",
            (FailureKind::NotRun, true) => "was not run",
            (FailureKind::NotRun, false) => "were not run",
        }
    }
}

/// Jobs of one benchmark, side and kind that did not end `ok`.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The benchmark: a Node file (`dgram/bind.js`) or a command benchmark with its parameter
    /// combination (`calc n=1`).
    pub benchmark: String,
    /// The binary (side) whose jobs failed.
    pub side: Side,
    /// What happened.
    pub kind: FailureKind,
    /// Jobs of this benchmark and side that ended so.
    pub jobs: u32,
    /// Jobs of this benchmark and side in the plan (counted, not warm-up).
    pub of_jobs: u32,
    /// Samples those jobs printed before they ended (not used by any report).
    pub unused_samples: u32,
    /// The first cause recorded: the job's error text, else the last stderr line; empty when
    /// none was recorded.
    pub cause: String,
}

impl Failure {
    /// One line, e.g. `dgram/bind.js: new: 3 of 3 jobs timed out after reporting; their 3
    /// samples are not used (timed out after 3 s)`.
    pub fn describe(&self) -> String {
        let jobs = if self.of_jobs >= self.jobs && self.of_jobs > 0 {
            format!(
                "{} of {} job{}",
                self.jobs,
                self.of_jobs,
                if self.of_jobs == 1 { "" } else { "s" }
            )
        } else {
            format!("{} job{}", self.jobs, if self.jobs == 1 { "" } else { "s" })
        };
        let samples = match self.unused_samples {
            0 if self.kind == FailureKind::NotRun => String::new(),
            0 => ", before reporting any sample".to_owned(),
            1 => " after reporting; its 1 sample is not used".to_owned(),
            n => format!(" after reporting; their {n} samples are not used"),
        };
        let cause = if self.cause.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.cause)
        };
        format!(
            "{}: {}: {jobs} {}{samples}{cause}",
            self.benchmark,
            self.side.label(),
            self.kind.verb(self.jobs)
        )
    }
}

/// Every failure of a run, in benchmark order (old before new), plus the samples left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Failures {
    /// One entry per benchmark, side and kind.
    pub items: Vec<Failure>,
    /// Samples of the jobs that did not end `ok`, per report row and side.
    pub unused: UnusedSamples,
}

/// Longest cause kept (characters): one line in a table or a PR comment.
const CAUSE_MAX: usize = 160;

/// The cause of a failed job: its error text (`exit code 1`, `timed out after 3 s`) and the
/// most telling stderr line: the first naming an error or exception (`Error: boom`, a Rust
/// `panicked at`), else the last non-empty one.
fn cause_of(error: Option<&String>, stderr_tail: &[String]) -> String {
    let err = error
        .map(|e| e.lines().next().unwrap_or("").trim().to_owned())
        .filter(|e| !e.is_empty());
    let lines = || {
        stderr_tail
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
    };
    let telling = lines()
        .find(|l| {
            l.contains("Error:")
                || l.contains("Exception")
                || l.contains("panicked at")
                || l.starts_with("error")
        })
        .or_else(|| lines().next_back());
    let raw = match (err, telling) {
        (Some(e), Some(t)) => format!("{e}; stderr: {t}"),
        (Some(e), None) => e,
        (None, Some(t)) => format!("stderr: {t}"),
        (None, None) => String::new(),
    };
    if raw.chars().count() > CAUSE_MAX {
        let mut s: String = raw.chars().take(CAUSE_MAX - 1).collect();
        s.push('…');
        s
    } else {
        raw
    }
}

impl Failures {
    /// True when every planned job ended `ok`.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Number of benchmarks (distinct [`Failure::benchmark`]) with a failure.
    pub fn benchmarks(&self) -> usize {
        let mut names: Vec<&str> = self.items.iter().map(|f| f.benchmark.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    }

    /// The failures of a results file: per benchmark and side, the jobs that failed, timed
    /// out or were interrupted (with the first cause), and the planned jobs that never ran
    /// (skipped). Warm-up jobs of command runs count like the others: a failing warm-up is a
    /// failing benchmark.
    pub fn from_loaded(loaded: &Loaded) -> Failures {
        // (benchmark, side) → planned jobs; per (benchmark, side, kind) → entry.
        let mut planned: Vec<(String, Side, u32)> = Vec::new();
        let mut items: Vec<Failure> = Vec::new();
        let note = |bench: &str,
                    side: Side,
                    kind: FailureKind,
                    samples: u32,
                    cause: String,
                    items: &mut Vec<Failure>| {
            match items
                .iter_mut()
                .find(|f| f.benchmark == bench && f.side == side && f.kind == kind)
            {
                Some(f) => {
                    f.jobs += 1;
                    f.unused_samples += samples;
                    if f.cause.is_empty() {
                        f.cause = cause;
                    }
                }
                None => items.push(Failure {
                    benchmark: bench.to_owned(),
                    side,
                    kind,
                    jobs: 1,
                    of_jobs: 0,
                    unused_samples: samples,
                    cause,
                }),
            }
        };
        // Counts per (benchmark, side) in first-seen order, found through a hash index: one
        // look-up per job, whatever the number of keys.
        type Counts = (Vec<(String, Side, u32)>, HashMap<(String, Side), usize>);
        let bump =
            |(v, index): &mut Counts, b: &str, side: Side| match index.get(&(b.to_owned(), side)) {
                Some(&i) => v[i].2 += 1,
                None => {
                    index.insert((b.to_owned(), side), v.len());
                    v.push((b.to_owned(), side, 1));
                }
            };
        let mut planned_c: Counts = (Vec::new(), HashMap::new());
        let mut seen_c: Counts = (Vec::new(), HashMap::new());
        match &loaded.header {
            Header::Node(h) => {
                let sides: &[Side] = if h.control {
                    &[Side::Old, Side::New, Side::Control]
                } else {
                    &[Side::Old, Side::New]
                };
                for f in &h.files {
                    for &side in sides {
                        planned.push((f.clone(), side, h.runs));
                    }
                }
                let ok = loaded.done_keys();
                let mut failed_keys = std::collections::HashSet::new();
                for j in &loaded.done {
                    bump(&mut seen_c, &j.file, j.side);
                }
                // A job that failed and later ran again with success (`--resume`) is not a
                // failure; a job recorded failing twice counts once.
                for j in &loaded.failed {
                    let key = (j.file.clone(), j.side, j.run);
                    if ok.contains(&key) || !failed_keys.insert(key) {
                        continue;
                    }
                    bump(&mut seen_c, &j.file, j.side);
                    if let Some(kind) = FailureKind::from_status(j.status) {
                        let cause = cause_of(j.error.as_ref(), &j.stderr_tail);
                        note(
                            &j.file,
                            j.side,
                            kind,
                            j.samples.len() as u32,
                            cause,
                            &mut items,
                        );
                    }
                }
            }
            Header::Command(_) => {
                let ok: std::collections::HashSet<u32> =
                    loaded.command_done.iter().map(|j| j.position).collect();
                let mut failed_pos = std::collections::HashSet::new();
                for j in loaded.command_done.iter().filter(|j| !j.warmup) {
                    let name = command_key(&j.benchmark, &j.combination);
                    bump(&mut planned_c, &name, j.side);
                }
                for j in &loaded.command_failed {
                    if ok.contains(&j.position) || !failed_pos.insert(j.position) {
                        continue;
                    }
                    let name = command_key(&j.benchmark, &j.combination);
                    if !j.warmup {
                        bump(&mut planned_c, &name, j.side);
                    }
                    if let Some(kind) = FailureKind::from_status(j.status) {
                        let cause = cause_of(j.error.as_ref(), &j.stderr_tail);
                        note(
                            &name,
                            j.side,
                            kind,
                            j.samples.len() as u32,
                            cause,
                            &mut items,
                        );
                    }
                }
            }
        }
        // Node runs plan from the header; command runs count what the file records.
        planned.extend(planned_c.0);
        let seen_index: HashMap<(&str, Side), u32> = seen_c
            .0
            .iter()
            .map(|(b, s, n)| ((b.as_str(), *s), *n))
            .collect();
        // Planned jobs with no record: never run.
        for (b, side, n) in &planned {
            let ran = seen_index.get(&(b.as_str(), *side)).copied().unwrap_or(0);
            if ran < *n && loaded.adaptive.is_none() && matches!(loaded.header, Header::Node(_)) {
                for _ in ran..*n {
                    note(b, *side, FailureKind::NotRun, 0, String::new(), &mut items);
                }
            }
        }
        let mut planned_index: HashMap<(&str, Side), u32> = HashMap::new();
        for (b, s, n) in &planned {
            // The first entry wins, as a linear search would find it.
            planned_index.entry((b.as_str(), *s)).or_insert(*n);
        }
        for f in &mut items {
            f.of_jobs = planned_index
                .get(&(f.benchmark.as_str(), f.side))
                .copied()
                .unwrap_or(f.jobs);
        }
        items.sort_by(|a, b| {
            (a.benchmark.as_str(), a.side, a.kind).cmp(&(b.benchmark.as_str(), b.side, b.kind))
        });
        Failures {
            items,
            unused: loaded.unused.clone(),
        }
    }

    /// True when report row `row` (`file configuration`) has no usable sample on `side`
    /// because jobs of that side failed: its samples were left out, or its benchmark failed.
    pub fn explains(&self, row: &str, side: Side) -> bool {
        self.unused.samples(row, side) > 0
            || self.items.iter().any(|f| {
                f.side == side
                    && f.kind != FailureKind::NotRun
                    && (row == f.benchmark
                        || row
                            .strip_prefix(f.benchmark.as_str())
                            .is_some_and(|r| r.starts_with(' ')))
            })
    }

    /// Counts per kind, e.g. `2 failed, 1 timed out`; None when nothing failed.
    pub fn counts(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        for (kind, word) in [
            (FailureKind::Failed, "failed"),
            (FailureKind::Timeout, "timed out"),
            (FailureKind::Interrupted, "interrupted"),
            (FailureKind::NotRun, "skipped (not run)"),
        ] {
            let jobs: u32 = self
                .items
                .iter()
                .filter(|f| f.kind == kind)
                .map(|f| f.jobs)
                .sum();
            if jobs > 0 {
                parts.push(format!(
                    "{jobs} job{} {word}",
                    if jobs == 1 { "" } else { "s" }
                ));
            }
        }
        Some(parts.join(", "))
    }

    /// The summary-line part, e.g. `1 benchmark with failed jobs (2 jobs timed out)`, or for a
    /// stopped run ([`Failures::interrupted`]) `3 benchmarks with unfinished jobs (1 job
    /// interrupted, 9 jobs skipped (not run))`; None when nothing failed.
    pub fn summary(&self) -> Option<String> {
        let counts = self.counts()?;
        let n = self.benchmarks();
        Some(format!(
            "{n} benchmark{} with {} jobs ({counts})",
            if n == 1 { "" } else { "s" },
            if self.interrupted() {
                "unfinished"
            } else {
                "failed"
            }
        ))
    }

    /// True when no job failed or timed out and some were interrupted (Ctrl-C) or never run
    /// (the run was stopped or killed): such benchmarks are compared on the jobs that finished.
    pub fn interrupted(&self) -> bool {
        !self.items.is_empty()
            && self
                .items
                .iter()
                .all(|f| matches!(f.kind, FailureKind::Interrupted | FailureKind::NotRun))
    }

    /// The word that heads the failures in a report: `INTERRUPTED` for a run stopped by Ctrl-C
    /// ([`Failures::interrupted`] with an interrupted job), `INCOMPLETE` for one that stopped
    /// between jobs, else `FAILED`.
    pub fn heading(&self) -> &'static str {
        if !self.interrupted() {
            "FAILED"
        } else if self
            .items
            .iter()
            .any(|f| f.kind == FailureKind::Interrupted)
        {
            "INTERRUPTED"
        } else {
            "INCOMPLETE"
        }
    }

    /// What the report did with the benchmarks listed: `not compared` (their failed jobs'
    /// samples are not used), or for a stopped run `compared on the jobs that finished`.
    pub fn consequence(&self) -> &'static str {
        if self.interrupted() {
            "compared on the jobs that finished"
        } else {
            "not compared"
        }
    }

    /// One line per entry ([`Failure::describe`]).
    pub fn lines(&self) -> Vec<String> {
        self.items.iter().map(Failure::describe).collect()
    }
}

/// The benchmark name of a command job: its name and parameter combination (`calc n=1`).
fn command_key(bench: &str, combination: &[(String, String)]) -> String {
    let mut s = bench.to_owned();
    for (k, v) in combination {
        s.push(' ');
        s.push_str(k);
        s.push('=');
        s.push_str(v);
    }
    s
}
