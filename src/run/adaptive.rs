//! Adaptive run counts (`benchdiff compare --runs auto --target-accuracy PCT`): stop measuring a
//! configuration once its result is precise enough.
//!
//! This is `--stop precision`. The default of `--runs auto`, `--stop decided`, runs through
//! the same [`Adaptive`] policy (restriction, replay on `--resume`, summary) with the rule of
//! [`crate::run::sequential`] in place of [`Rule::status`].
//!
//! # The stopping rule
//! After every round (every active file measured once under each binary), each configuration
//! with at least `--min-runs` samples on both sides is checked: when the half-width of the 95%
//! confidence interval of the difference of means, relative to the old mean (compare.R's
//! "accuracy (*)" column: `qt(0.975, df) · SE / mean(old) · 100`, Welch–Satterthwaite df; see
//! [`crate::stats::welch`]), is at or below the target, the configuration is **settled** and is
//! not scheduled again. Everything else continues until `--max-runs`.
//!
//! The rule looks at **precision only, never at the estimate or its significance**: whether a
//! configuration stops depends on the spread of its samples, not on the sign or size of the
//! difference, so stopping cannot pick moments where the difference happens to look
//! significant, and the error rates of the tests stay at their nominal level. (For normal
//! samples the sample variance is independent of the sample mean, so a variance-based stopping
//! time carries no information about the mean difference: Stein's two-stage argument, Stein 1945,
//! Ann. Math. Statist. 16:243–258.) `tests/adaptive_simulation.rs` checks this by simulation.
//! A rule that stopped when `p < 0.05` would inflate the false-positive rate far above 5%.
//!
//! # Job granularity
//! A Node benchmark file runs all its configurations in one job (one controller process that
//! forks one worker per configuration). A file is scheduled in a round while at least one of
//! its configurations is unsettled. When only some are unsettled, the job is **restricted**
//! with `--set` arguments: for every parameter that varies between the file's configurations,
//! the values of the unsettled configurations are passed as `key=value` (repeated keys give
//! several values, as Node's `common.js` reads them), replacing the user's `--set` values of
//! those keys; the child then runs the cartesian product of those values. This is used when the
//! product leaves out at least one configuration the file reported; otherwise (or when a
//! configuration's parameters are unknown or not representable, e.g. a NaN) the whole file
//! runs. Samples of already settled configurations that such a job still produces are recorded
//! (CSV, results file) **and used** in the report: the stopping rule ignores the difference
//! of means, so extra samples never bias it, and more data only narrows the interval.
//! Settling is final: a settled configuration is not re-opened by later samples.
//!
//! A configuration reported by only one binary (added or removed between builds) is settled
//! as one-sided once the other binary has run it `--min-runs` times without reporting it. A
//! file that reported nothing after `--min-runs` rounds stops too.
//!
//! # Resume
//! The `run` record of the results file carries the [`Rule`]. `--resume` calls
//! [`execute_adaptive`] with the finished (`ok`) jobs: in schedule order, each finished job's
//! samples are fed to the rule instead of running it again, so the rounds already played
//! are re-decided identically and the rest run as they would have.
//!
//! # Order
//! Round `r` runs the jobs of round `r` of the fixed schedule for `--max-runs` runs (same
//! `--order` and `--seed`, see [`crate::run::schedule`]), minus the jobs of files that have no
//! unsettled configuration: with the same seed, a fixed and an adaptive run interleave their
//! common jobs identically.

use crate::format::inspect::js_number;
use crate::format::results::{JobRecord, JobStatus, Record};
use crate::run::driver::{Planned, Policy, Round, drive};
use crate::run::outcome::{ConfigRuns, Outcome};
use crate::run::schedule::{self, Job};
use crate::run::{NodeRunner, Observer, Plan, Report, RunOptions, Summary};
use crate::sample::{ConfValue, Side};
use crate::stats::welch::{self, WelchError};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

pub use crate::format::results::plan::{
    DecideRule, RoundFile, RoundRecord, Rule, Settled, Status, Stop,
};

/// Risk of the interval the rule looks at: 0.05, i.e. the 95% interval.
pub const RISK: f64 = 0.05;

/// Half-width of the 95% interval of `mean(new) − mean(old)` in percent of `|mean(old)|`
/// (compare.R's "accuracy (*)"). `Some(0.0)` for essentially constant data; `None` with fewer
/// than 2 samples a side, non-finite samples or an old mean of 0.
pub fn half_width_pct(old: &[f64], new: &[f64]) -> Option<f64> {
    match welch::welch(old, new) {
        Ok(w) => {
            let h = w.accuracy_pct(RISK).abs();
            h.is_finite().then_some(h)
        }
        Err(WelchError::EssentiallyConstant) => Some(0.0),
        Err(_) => None,
    }
}

impl Rule {
    /// The samples a side needs before the rule looks at a configuration.
    pub fn min_samples(&self) -> usize {
        self.min_runs.max(2) as usize
    }

    /// The status of one configuration with these samples (rates in any unit). Only the
    /// spread of the samples matters (see the module docs); never the difference of means.
    pub fn status(&self, old: &[f64], new: &[f64]) -> Status {
        let min = self.min_samples();
        if (old.len() >= min && new.is_empty()) || (new.len() >= min && old.is_empty()) {
            return Status::OneSided;
        }
        if old.len() < min || new.len() < min {
            return Status::Open;
        }
        match half_width_pct(old, new) {
            Some(h) if h <= self.target_pct => Status::Precise { half_width_pct: h },
            _ => Status::Open,
        }
    }

    /// Drives the rule over one simulated configuration: `next(round)` gives the round's
    /// `(old, new)` samples; rounds continue until the configuration settles or `max_runs`
    /// rounds ran. Returns the samples (both sides the same length). This is the rule exactly as
    /// [`execute_adaptive`] applies it after every round, without processes.
    pub fn drive(&self, mut next: impl FnMut(u32) -> (f64, f64)) -> (Vec<f64>, Vec<f64>) {
        let (mut old, mut new) = (Vec::new(), Vec::new());
        for round in 0..self.max_runs {
            let (o, n) = next(round);
            old.push(o);
            new.push(n);
            if self.status(&old, &new) != Status::Open {
                break;
            }
        }
        (old, new)
    }
}

/// One configuration seen while running.
#[derive(Clone, Debug)]
struct ConfState {
    text: String,
    params: Vec<(String, ConfValue)>,
    samples: [Vec<f64>; 2],
    settled: Option<(u32, Status)>,
}

#[derive(Clone, Debug, Default)]
struct FileState {
    confs: Vec<ConfState>,
    index: HashMap<String, usize>,
    /// Wall seconds of `ok` jobs that ran the whole file.
    full_walls: Vec<f64>,
    /// Rounds this file ran in.
    rounds: u32,
    stopped_empty: bool,
}

/// The index of a side's samples in [`ConfState::samples`] (control samples are not kept:
/// see [`Tracker::add`]).
fn side_ix(s: Side) -> usize {
    match s {
        Side::Old | Side::Control => 0,
        Side::New => 1,
    }
}

/// `String(value)` in JavaScript: what a `key=value` argument must say so that `common.js`
/// reads the same value back (`+value` for numbers, `value === 'true'` for booleans).
/// `None` for values that cannot be passed that way (NaN).
fn arg_value(v: &ConfValue) -> Option<String> {
    match v {
        ConfValue::Number(x) if x.is_finite() => Some(js_number(*x)),
        ConfValue::Number(_) => None,
        ConfValue::String(s) => Some(s.clone()),
        ConfValue::Bool(b) => Some(b.to_string()),
    }
}

/// The arguments that restrict a file's job to the configurations `open` (indices into
/// `confs`), or `None` when the whole file must run (see the module docs). `user_set` are the
/// `--set` strings of the plan; those naming a restricted key are replaced.
fn restriction(confs: &[ConfState], open: &[usize], user_set: &[String]) -> Option<Vec<String>> {
    if open.is_empty() || open.len() == confs.len() {
        return None;
    }
    // Each configuration as key -> argument text; all must have the same keys.
    let mut rows: Vec<HashMap<&str, String>> = Vec::with_capacity(confs.len());
    for c in confs {
        if c.params.is_empty() {
            return None;
        }
        let mut m = HashMap::new();
        for (k, v) in &c.params {
            m.insert(k.as_str(), arg_value(v)?);
        }
        rows.push(m);
    }
    let keys: Vec<&str> = confs[0].params.iter().map(|(k, _)| k.as_str()).collect();
    if rows
        .iter()
        .any(|r| r.len() != keys.len() || keys.iter().any(|k| !r.contains_key(k)))
    {
        return None;
    }
    // Per key: all values (first-seen order) and the open configurations' values.
    let mut restricted: Vec<(&str, Vec<String>)> = Vec::new();
    for k in &keys {
        let mut all: Vec<&String> = Vec::new();
        for r in &rows {
            if !all.contains(&&r[k]) {
                all.push(&r[k]);
            }
        }
        let mut want: Vec<String> = Vec::new();
        for &i in open {
            let v = &rows[i][k];
            if !want.contains(v) {
                want.push(v.clone());
            }
        }
        if want.len() < all.len() {
            restricted.push((k, want));
        }
    }
    // The product must leave out at least one known configuration.
    let covered = rows
        .iter()
        .filter(|r| restricted.iter().all(|(k, vs)| vs.contains(&r[k])))
        .count();
    if restricted.is_empty() || covered == rows.len() {
        return None;
    }
    let mut args: Vec<String> = user_set
        .iter()
        .filter(|s| {
            let key = s.split_once('=').map_or(s.as_str(), |(k, _)| k);
            !restricted.iter().any(|(k, _)| *k == key)
        })
        .cloned()
        .collect();
    for (k, vs) in &restricted {
        for v in vs {
            args.push(format!("{k}={v}"));
        }
    }
    Some(args)
}

/// What the runner knows about every file and configuration during an adaptive run.
#[derive(Clone, Debug)]
pub struct Tracker {
    rule: Rule,
    files: Vec<FileState>,
    rounds_done: u32,
    /// `--stop decided`: the rule that settles configurations instead of [`Rule::status`].
    decider: Option<crate::run::sequential::Decider>,
}

impl Tracker {
    /// An empty tracker for `files` benchmark files.
    pub fn new(rule: Rule, files: usize) -> Tracker {
        Tracker {
            rule,
            files: vec![FileState::default(); files],
            rounds_done: 0,
            decider: None,
        }
    }

    /// The tracker of `--stop decided` (see [`crate::run::sequential`]).
    pub fn decided(rule: Rule, decided: DecideRule, files: usize) -> Tracker {
        Tracker {
            decider: Some(crate::run::sequential::Decider::new(
                decided,
                rule.min_runs,
                rule.max_runs,
            )),
            ..Tracker::new(rule, files)
        }
    }

    /// Records one sample of file index `file`. A control sample (`compare --control`) is
    /// not looked at: the control of a file runs in exactly the rounds its old and new jobs
    /// run, so it stops with the rows it controls, never later.
    pub fn add(&mut self, file: usize, side: Side, r: &Report) {
        let Some(f) = self.files.get_mut(file) else {
            return;
        };
        if side == Side::Control {
            return;
        }
        let i = match f.index.get(&r.configuration.text) {
            Some(&i) => i,
            None => {
                f.confs.push(ConfState {
                    text: r.configuration.text.clone(),
                    params: r.configuration.params.clone(),
                    samples: [Vec::new(), Vec::new()],
                    settled: None,
                });
                f.index
                    .insert(r.configuration.text.clone(), f.confs.len() - 1);
                f.confs.len() - 1
            }
        };
        f.confs[i].samples[side_ix(side)].push(r.rate);
    }

    /// Applies the rule after a round; returns the configurations that settled now.
    pub fn settle(&mut self, files: &[String]) -> Vec<Settled> {
        self.rounds_done += 1;
        // The decided rule splits its level over the configurations known when it first
        // looks (after --min-runs rounds): see `run::sequential`.
        if let Some(d) = &mut self.decider
            && !d.rows_fixed()
            && self.rounds_done >= self.rule.min_runs
        {
            d.fix_rows(self.files.iter().map(|f| f.confs.len()).sum());
        }
        let decider = self.decider.as_ref();
        let mut out = Vec::new();
        for (fi, f) in self.files.iter_mut().enumerate() {
            if f.confs.is_empty() && f.rounds >= self.rule.min_runs.max(1) {
                f.stopped_empty = true;
            }
            for c in f.confs.iter_mut().filter(|c| c.settled.is_none()) {
                let st = match decider {
                    Some(d) => d.status(&c.samples[0], &c.samples[1]),
                    None => self.rule.status(&c.samples[0], &c.samples[1]),
                };
                if st != Status::Open {
                    c.settled = Some((self.rounds_done, st));
                    out.push(Settled {
                        file: files.get(fi).cloned().unwrap_or_default(),
                        configuration: c.text.clone(),
                        runs: [c.samples[0].len(), c.samples[1].len()],
                        status: st,
                    });
                }
            }
        }
        out
    }

    /// Whether file `file` still runs, and with which `--set` arguments (`None`: all of it).
    pub fn plan_file(&self, file: usize, user_set: &[String]) -> Option<Option<Vec<String>>> {
        let f = self.files.get(file)?;
        if f.stopped_empty {
            return None;
        }
        if f.confs.is_empty() {
            return Some(None);
        }
        let open: Vec<usize> = (0..f.confs.len())
            .filter(|&i| f.confs[i].settled.is_none())
            .collect();
        if open.is_empty() {
            return None;
        }
        Some(restriction(&f.confs, &open, user_set))
    }

    fn open_count(&self, file: usize) -> usize {
        self.files.get(file).map_or(0, |f| {
            f.confs.iter().filter(|c| c.settled.is_none()).count()
        })
    }
}

/// `--runs auto` as a [`Policy`] of the one driver (see the module docs): before every round
/// it applies the rule to what the previous rounds measured and plans the jobs of the fixed
/// `--max-runs` schedule whose file still has unsettled configurations, restricted with `--set`
/// where possible; jobs a resumed run already has are replayed into the rule instead of run.
pub struct Adaptive<'a> {
    plan: &'a Plan,
    rule: Rule,
    full: Vec<Job>,
    tracker: Tracker,
    done: HashMap<(usize, Side, u32), &'a JobRecord>,
    round: u32,
    /// Files of the round being run (index → `Some(restriction)`).
    plans: Vec<Option<Option<Vec<String>>>>,
    settled_prev: Vec<Settled>,
    rounds: u32,
    replayed: usize,
    wall_s: f64,
    decided: Option<DecideRule>,
}

impl<'a> Adaptive<'a> {
    /// The policy of `--stop decided` for `plan` (see [`crate::run::sequential`]).
    pub fn decided(
        plan: &'a Plan,
        rule: Rule,
        decided: DecideRule,
        done: &'a [JobRecord],
    ) -> Adaptive<'a> {
        let mut a = Adaptive::new(plan, rule, done);
        a.tracker = Tracker::decided(rule, decided, plan.files.len());
        a.decided = Some(decided);
        a
    }

    /// The policy for `plan` under `rule`; `done` are a resumed run's `ok` records.
    pub fn new(plan: &'a Plan, rule: Rule, done: &'a [JobRecord]) -> Adaptive<'a> {
        let done = done
            .iter()
            .filter_map(|r| {
                let f = plan.files.iter().position(|f| *f == r.file)?;
                Some(((f, r.side, r.run), r))
            })
            .collect();
        Adaptive {
            plan,
            rule,
            // With a control, its jobs sit in the same rounds and are planned with their file.
            full: schedule::schedule_sides(
                plan.files.len(),
                rule.max_runs,
                plan.order,
                plan.seed,
                schedule::sides(plan.control),
            ),
            tracker: Tracker::new(rule, plan.files.len()),
            done,
            round: 0,
            plans: Vec::new(),
            settled_prev: Vec::new(),
            rounds: 0,
            replayed: 0,
            wall_s: 0.0,
            decided: None,
        }
    }

    /// What the run did, for the closing summary (`jobs_run`: the driver's count).
    pub fn outcome(&self, jobs_run: usize) -> Outcome {
        let fixed_wall_estimate_s = self
            .tracker
            .files
            .iter()
            .map(|f| {
                if f.full_walls.is_empty() {
                    0.0
                } else {
                    f.full_walls.iter().sum::<f64>() / f.full_walls.len() as f64
                        * schedule::sides(self.plan.control).len() as f64
                        * f64::from(self.rule.max_runs)
                }
            })
            .sum::<f64>()
            .max(self.wall_s);
        let (mut configs, mut settled_rows) = (Vec::new(), Vec::new());
        for (fi, f) in self.tracker.files.iter().enumerate() {
            let file = self.plan.files.get(fi).cloned().unwrap_or_default();
            for c in &f.confs {
                let runs = [c.samples[0].len(), c.samples[1].len()];
                configs.push(ConfigRuns {
                    name: format!("{file} {}", c.text),
                    runs,
                    settled: c.settled,
                });
                if let Some((_, status)) = c.settled {
                    settled_rows.push(Settled {
                        file: file.clone(),
                        configuration: c.text.clone(),
                        runs,
                        status,
                    });
                }
            }
        }
        Outcome {
            rule: self.rule,
            decided: self.decided,
            rounds: self.rounds,
            jobs_run: jobs_run + self.replayed,
            jobs_max: self.full.len(),
            wall_s: self.wall_s,
            fixed_wall_estimate_s,
            configs,
            settled_rows,
        }
    }
}

impl Policy<JobRecord> for Adaptive<'_> {
    fn next_round(&mut self) -> Option<Round> {
        if self.round >= self.rule.max_runs {
            return None;
        }
        let round = self.round;
        self.round += 1;
        self.plans = (0..self.plan.files.len())
            .map(|f| self.tracker.plan_file(f, &self.plan.set))
            .collect();
        if self.plans.iter().all(Option::is_none) {
            return None;
        }
        self.rounds += 1;
        let mut jobs = Vec::new();
        for job in self.full.iter().filter(|j| j.run == round) {
            let Some(Some(p)) = self.plans.get(job.file) else {
                continue;
            };
            if let Some(rec) = self.done.get(&(job.file, job.side, job.run)) {
                // Replayed at its place in the schedule: the rule looks at the samples only
                // after the round, so the order within the round does not matter.
                for s in &rec.samples {
                    self.tracker.add(job.file, job.side, &s.to_report());
                }
                self.wall_s += rec.wall_s;
                if p.is_none()
                    && let Some(f) = self.tracker.files.get_mut(job.file)
                {
                    f.full_walls.push(rec.wall_s);
                }
                self.replayed += 1;
                continue;
            }
            jobs.push(Planned {
                job: *job,
                set: p.clone(),
            });
        }
        let record = RoundRecord {
            round,
            target_accuracy_pct: self.rule.target_pct,
            min_runs: self.rule.min_runs,
            max_runs: self.rule.max_runs,
            decided: self.decided,
            settled: std::mem::take(&mut self.settled_prev),
            files: self
                .plans
                .iter()
                .enumerate()
                .filter_map(|(i, p)| {
                    p.as_ref().map(|set| RoundFile {
                        file: self.plan.files[i].clone(),
                        open: self.tracker.open_count(i),
                        set: set.clone(),
                    })
                })
                .collect(),
        };
        Some(Round {
            record: (!jobs.is_empty()).then_some(Record::Adaptive(record)),
            jobs,
        })
    }

    fn job_ended(&mut self, planned: &Planned, record: &JobRecord) {
        let job = &planned.job;
        // Only the samples of jobs that ended `ok` count (the policy of every report,
        // `format::results::UnusedSamples`).
        if record.status == JobStatus::Ok {
            for s in &record.samples {
                self.tracker.add(job.file, job.side, &s.to_report());
            }
        }
        self.wall_s += record.wall_s;
        if let Some(f) = self.tracker.files.get_mut(job.file)
            && planned.set.is_none()
            && record.status == JobStatus::Ok
        {
            f.full_walls.push(record.wall_s);
        }
    }

    fn round_ended(&mut self) {
        for (i, p) in self.plans.iter().enumerate() {
            if p.is_some()
                && let Some(f) = self.tracker.files.get_mut(i)
            {
                f.rounds += 1;
            }
        }
        self.settled_prev = self.tracker.settle(&self.plan.files);
    }

    /// An `adaptive` record after the last round, with no files and **every** configuration
    /// settled so far (rows that settled in the last round have no later round record), so
    /// a report of the results file knows how each row stopped.
    fn final_record(&mut self) -> Option<Record> {
        let settled = self.outcome(0).settled_rows;
        (!settled.is_empty()).then(|| {
            Record::Adaptive(RoundRecord {
                round: self.round,
                target_accuracy_pct: self.rule.target_pct,
                min_runs: self.rule.min_runs,
                max_runs: self.rule.max_runs,
                decided: self.decided,
                settled,
                files: Vec::new(),
            })
        })
    }
}

/// Runs `plan` adaptively under `rule` (with `decided`: `--stop decided`) through the one
/// driver with the [`Adaptive`] policy.
/// Jobs in `done` (a resumed run's `ok` records) are not run: their samples are replayed into
/// the rule at their place in the schedule (the caller has already passed them to `obs`).
/// Writes an `adaptive` record (see [`RoundRecord`]) through [`Observer::record`] before every
/// round that runs a job. Stops like [`crate::run::execute`] on interrupt, `--fail-fast` or an
/// output error.
pub fn execute_adaptive(
    plan: &Plan,
    rule: Rule,
    decided: Option<DecideRule>,
    done: &[JobRecord],
    opts: RunOptions,
    stop: &AtomicBool,
    obs: &mut dyn Observer,
) -> (Summary, Outcome) {
    let mut policy = match decided {
        Some(d) => Adaptive::decided(plan, rule, d, done),
        None => Adaptive::new(plan, rule, done),
    };
    let mut runner = NodeRunner::new(plan, opts, obs);
    let summary = drive(&mut policy, &mut runner, opts.fail_fast, stop);
    let outcome = policy.outcome(summary.jobs_run);
    (summary, outcome)
}

/// The stderr line that announces `--runs auto --stop decided` before a run (Node files and
/// command benchmarks alike): the boundary family, the family-wise level, the no-change band
/// (percent) and the run limits.
pub fn decided_rule_line(
    d: &DecideRule,
    min_runs: impl std::fmt::Display,
    max_runs: impl std::fmt::Display,
) -> String {
    format!(
        "benchdiff: --runs auto --stop decided: a configuration stops once its anytime-valid \
         interval ({} boundary, family-wise α {} split over the rows) lies beyond or within \
         ±{}% (at least {min_runs} runs, at most {max_runs}; the job count below is the most){}",
        d.method.name(),
        d.alpha,
        d.threshold_pct,
        if d.futility {
            "; from a third of the maximum on, one that has under 10% chance of being decided \
             by then stops undecided (--no-futility: runs it on)"
        } else {
            ""
        }
    )
}

/// `--runs`: a fixed count or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// Exactly this many runs per binary and file.
    Fixed(u32),
    /// Adaptive: `--target-accuracy`, `--min-runs`, `--max-runs`.
    Auto,
}

/// Parses `--runs`: a positive integer or `auto`.
///
/// # Errors
/// A message naming the value.
pub fn parse_runs(s: &str) -> Result<Runs, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("auto") {
        return Ok(Runs::Auto);
    }
    match t.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(Runs::Fixed(n)),
        _ => Err(format!(
            "'{s}' is not a run count (a positive integer, or `auto` with --target-accuracy)"
        )),
    }
}

/// The options of `--runs auto`: `--target-accuracy`, `--min-runs`, `--max-runs`, `--stop`,
/// `--no-futility`.
#[derive(Clone, Copy, Debug)]
pub struct AutoOptions {
    /// Stop a configuration once its 95% half-width (percent of the old mean) is at or below
    /// this (`--stop precision`).
    pub target_accuracy: Option<f64>,
    /// Samples a side needs before a configuration may stop.
    pub min_runs: u32,
    /// Runs at most.
    pub max_runs: u32,
    /// What stops a configuration (default: `decided`, or `precision` with a target).
    pub stop: Option<Stop>,
    /// Under `--stop decided`: run every undecided configuration to `max_runs`.
    pub no_futility: bool,
}

impl AutoOptions {
    /// The rules of `--runs auto`: the run limits, and the decided rule's settings under
    /// `--stop decided` (`threshold_pct`: the report's `--threshold`). `None` for a fixed
    /// count.
    ///
    /// # Errors
    /// A usage message: `--stop` with a fixed count, `--stop decided` with
    /// `--target-accuracy`, or what [`AutoOptions::rule`] refuses.
    pub fn rules(
        &self,
        runs: Runs,
        threshold_pct: f64,
    ) -> Result<Option<(Rule, Option<DecideRule>)>, String> {
        if self.no_futility && runs != Runs::Auto {
            return Err("--no-futility belongs to --runs auto --stop decided".to_owned());
        }
        let stop = match (runs, self.stop, self.target_accuracy) {
            (Runs::Fixed(_), Some(_), _) => {
                return Err("--stop needs --runs auto (it decides when to stop)".to_owned());
            }
            (Runs::Fixed(_), None, _) => return self.rule(runs).map(|r| r.map(|r| (r, None))),
            (Runs::Auto, Some(s), _) => s,
            (Runs::Auto, None, Some(_)) => Stop::Precision,
            (Runs::Auto, None, None) => Stop::Decided,
        };
        if self.no_futility && stop == Stop::Precision {
            return Err("--no-futility belongs to --stop decided".to_owned());
        }
        match stop {
            Stop::Precision => self.rule(runs).map(|r| r.map(|r| (r, None))),
            Stop::Decided if self.target_accuracy.is_some() => Err(
                "--target-accuracy belongs to --stop precision; --stop decided stops on --threshold"
                    .to_owned(),
            ),
            Stop::Decided if self.min_runs > self.max_runs => Err(format!(
                "--min-runs {} is above --max-runs {}",
                self.min_runs, self.max_runs
            )),
            Stop::Decided => Ok(Some((
                Rule {
                    target_pct: 0.0,
                    min_runs: self.min_runs,
                    max_runs: self.max_runs,
                },
                Some(DecideRule {
                    stop: Stop::Decided,
                    threshold_pct,
                    alpha: crate::run::sequential::ALPHA,
                    method: crate::stats::sequential::Method::default(),
                    futility: !self.no_futility,
                }),
            ))),
        }
    }

    /// The stopping rule for `--runs auto` (`None` for a fixed count).
    ///
    /// # Errors
    /// A usage message: `--runs auto` without `--target-accuracy` (or a target of 0), a target
    /// with a fixed count, or `--min-runs` above `--max-runs`.
    pub fn rule(&self, runs: Runs) -> Result<Option<Rule>, String> {
        match (runs, self.target_accuracy) {
            (Runs::Fixed(_), None) => Ok(None),
            (Runs::Fixed(_), Some(_)) => {
                Err("--target-accuracy needs --runs auto (it decides when to stop)".to_owned())
            }
            (Runs::Auto, None) => Err(
                "--runs auto needs --target-accuracy PCT (e.g. --target-accuracy 2%)".to_owned(),
            ),
            (Runs::Auto, Some(t)) if t <= 0.0 => {
                Err("--target-accuracy must be above 0%".to_owned())
            }
            (Runs::Auto, Some(_)) if self.min_runs > self.max_runs => Err(format!(
                "--min-runs {} is above --max-runs {}",
                self.min_runs, self.max_runs
            )),
            (Runs::Auto, Some(t)) => Ok(Some(Rule {
                target_pct: t,
                min_runs: self.min_runs,
                max_runs: self.max_runs,
            })),
        }
    }

    /// The runs of the plan: the fixed count, or `--max-runs` for `auto`.
    pub fn plan_runs(&self, runs: Runs) -> u32 {
        match runs {
            Runs::Fixed(n) => n,
            Runs::Auto => self.max_runs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(params: &[(&str, ConfValue)]) -> ConfState {
        ConfState {
            text: String::new(),
            params: params
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
            samples: [Vec::new(), Vec::new()],
            settled: None,
        }
    }

    fn grid() -> Vec<ConfState> {
        // n x type, 2 x 2.
        let mut v = Vec::new();
        for n in [10.0, 20.0] {
            for t in ["a", "b"] {
                v.push(conf(&[
                    ("n", ConfValue::Number(n)),
                    ("type", ConfValue::String(t.into())),
                    ("flag", ConfValue::Bool(true)),
                ]));
            }
        }
        v
    }

    #[test]
    fn restriction_passes_the_open_product() {
        let c = grid();
        let user = vec!["n=10".to_owned(), "n=20".to_owned(), "CPUSET=0".to_owned()];
        // Open: n=10 type=a and n=10 type=b -> product n=10 x {a,b}: `n=10` replaces the user's n.
        assert_eq!(
            restriction(&c, &[0, 1], &user),
            Some(vec!["CPUSET=0".to_owned(), "n=10".to_owned()])
        );
        // One configuration: both keys restricted.
        assert_eq!(
            restriction(&c, &[3], &[]),
            Some(vec!["n=20".to_owned(), "type=b".to_owned()])
        );
        // A diagonal spans the whole product: run the whole file.
        assert_eq!(restriction(&c, &[0, 3], &user), None);
        // All open, or none: the whole file.
        assert_eq!(restriction(&c, &[0, 1, 2, 3], &user), None);
        // A NaN parameter cannot be passed back.
        let mut c2 = grid();
        c2[3].params[0].1 = ConfValue::Number(f64::NAN);
        assert_eq!(restriction(&c2, &[3], &[]), None);
    }

    #[test]
    fn status_looks_at_precision_only() {
        let rule = Rule {
            target_pct: 2.0,
            min_runs: 3,
            max_runs: 10,
        };
        let tight = [100.0, 100.5, 99.5];
        assert_eq!(rule.status(&tight[..2], &tight[..2]), Status::Open);
        assert!(matches!(
            rule.status(&tight, &tight),
            Status::Precise { .. }
        ));
        // A large but precisely measured difference settles just the same.
        let shifted: Vec<f64> = tight.iter().map(|x| x * 1.5).collect();
        assert!(matches!(
            rule.status(&tight, &shifted),
            Status::Precise { .. }
        ));
        assert_eq!(
            rule.status(&[100.0, 80.0, 120.0], &[100.0, 80.0, 120.0]),
            Status::Open
        );
        assert_eq!(rule.status(&tight, &[]), Status::OneSided);
        assert!(matches!(
            rule.status(&[5.0; 3], &[5.0; 3]),
            Status::Precise { half_width_pct } if half_width_pct == 0.0
        ));
    }
}

#[cfg(test)]
mod runs_tests {
    use super::*;

    #[test]
    fn runs_arg() {
        assert_eq!(parse_runs("auto"), Ok(Runs::Auto));
        assert_eq!(parse_runs("30"), Ok(Runs::Fixed(30)));
        assert!(parse_runs("0").is_err() && parse_runs("x").is_err());
    }
}
