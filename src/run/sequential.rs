//! `--runs auto --stop decided`: stop a configuration as soon as its comparison is decided.
//!
//! # The rule
//! After every round, each configuration with at least `--min-runs` samples a side gets the
//! sequential interval of [`crate::stats::sequential`] (the default: group-sequential
//! repeated confidence intervals with Lan–DeMets Pocock-type spending over the looks
//! `--min-runs..=--max-runs`, on the paired log ratios `ln(new_i/old_i)` of its rounds). It
//! settles as
//! - **faster** / **slower** when the whole interval lies beyond `+--threshold` /
//!   `−--threshold`,
//! - **no change** when the whole interval lies inside `±--threshold` (equivalence),
//!
//! - **stopped for futility** (not decided; reported inconclusive) when, from a third of
//!   `--max-runs` on, its predictive power of any decision by `--max-runs` is below 10%
//!   ([`crate::stats::sequential::Boundary::conditional_power`]; `--no-futility` turns it
//!   off),
//!
//! and otherwise goes on to `--max-runs`, where the report shows it as for a fixed run.
//! Settling is final. Reports take a settled row's verdict and interval from how it
//! stopped ([`crate::verdict::sequential`]). Samples are paired by their order on each side (round `i` of old with
//! round `i` of new), as both sides of a round run in the same round.
//!
//! # Several rows
//! The run's α (5%) is split over its `m` rows by Bonferroni ([`row_alpha`]): `m` is the
//! number of configurations known when the rows are first looked at (after `--min-runs`
//! rounds, when every file or command has reported its rows), so it is the same in a
//! resumed run that replays the same rounds. The union bound holds for any stopping times,
//! so the chance that any row is wrongly decided stays ≤ α (`tests/
//! stats_sequential_simulation.rs` measures it on 20-row suites).
//!
//! # Where it runs
//! Node-file runs: [`crate::run::adaptive::Adaptive`] with a [`Decider`] (the file
//! restriction, replay on `--resume` and the summary are shared with the precision rule).
//! Command benchmarks and suites: the policy [`CommandAuto`] of this module, for either rule.

use crate::format::results::JobStatus;
use crate::format::results::command::CommandJobRecord;
use crate::run::driver::{Planned, Policy, Round};
use crate::run::outcome::{ConfigRuns, Outcome};
use crate::run::schedule::Job;
use crate::sample::Side;
use crate::stats::sequential::{
    Boundary, FUTILITY_POWER, futility_from, paired_log_ratios, row_alpha,
};
use std::collections::HashMap;

pub use crate::format::results::plan::{DecideRule, Rule, Status, Stop};

/// The family-wise level of `--stop decided` (split over the rows).
pub const ALPHA: f64 = 0.05;

/// The decided rule of one run: its settings, and the boundary once the rows are known.
#[derive(Clone, Debug)]
pub struct Decider {
    /// The settings.
    pub rule: DecideRule,
    min_runs: usize,
    max_runs: usize,
    boundary: Option<(usize, Boundary)>,
}

impl Decider {
    /// The rule for looks `min_runs..=max_runs` (rounds).
    pub fn new(rule: DecideRule, min_runs: u32, max_runs: u32) -> Decider {
        Decider {
            rule,
            min_runs: min_runs.max(2) as usize,
            max_runs: max_runs.max(2) as usize,
            boundary: None,
        }
    }

    /// Fixes the number of rows the level is split over (the first call wins; see the
    /// module docs) and computes the boundary.
    pub fn fix_rows(&mut self, rows: usize) {
        if self.boundary.is_none() {
            let rows = rows.max(1);
            self.boundary = Some((
                rows,
                Boundary::new(
                    self.rule.method,
                    row_alpha(self.rule.alpha, rows),
                    self.min_runs,
                    self.max_runs,
                ),
            ));
        }
    }

    /// Whether the rows are fixed.
    pub fn rows_fixed(&self) -> bool {
        self.boundary.is_some()
    }

    /// The status of one configuration with these samples (rates, paired by order):
    /// one-sided, open, or decided (see the module docs). Open until [`Decider::fix_rows`].
    pub fn status(&self, old: &[f64], new: &[f64]) -> Status {
        let min = self.min_runs;
        if (old.len() >= min && new.is_empty()) || (new.len() >= min && old.is_empty()) {
            return Status::OneSided;
        }
        let Some((rows, b)) = &self.boundary else {
            return Status::Open;
        };
        if old.len().min(new.len()) < min {
            return Status::Open;
        }
        let n = old.len().min(new.len());
        match b.check(&old[..n], &new[..n], self.rule.threshold_pct) {
            Some((cs, Some(decision))) => {
                let (lo_pct, hi_pct) = cs.pct();
                Status::Decided {
                    decision,
                    lo_pct,
                    hi_pct,
                    row_alpha: b.alpha,
                    rows: *rows,
                }
            }
            Some((cs, None))
                if self.rule.futility
                    && n >= futility_from(self.min_runs, self.max_runs)
                    && n < self.max_runs =>
            {
                let d = paired_log_ratios(&old[..n], &new[..n]);
                match b.conditional_power(&d, self.rule.threshold_pct) {
                    Some(cp) if cp < FUTILITY_POWER => {
                        let (lo_pct, hi_pct) = cs.pct();
                        Status::Futile {
                            conditional_power: cp,
                            lo_pct,
                            hi_pct,
                        }
                    }
                    _ => Status::Open,
                }
            }
            _ => Status::Open,
        }
    }
}

/// The stopping rule of a command-benchmark run: precision or decided.
#[derive(Clone, Debug)]
pub enum StopRule {
    /// `--stop precision` (`--target-accuracy`).
    Precision(Rule),
    /// `--stop decided`.
    Decided(Rule, Decider),
}

impl StopRule {
    /// The rule's `min/max` settings.
    pub fn rule(&self) -> Rule {
        match self {
            StopRule::Precision(r) | StopRule::Decided(r, _) => *r,
        }
    }
}

#[derive(Clone, Debug)]
struct RowState {
    name: String,
    bench: String,
    configuration: String,
    samples: [Vec<f64>; 2],
    settled: Option<(u32, Status)>,
}

/// `--runs auto` for command benchmarks (a [`Policy`] of the one driver): round `r` runs the
/// jobs of round `r` of the fixed schedule for `--warmup + --max-runs` rounds whose
/// instance (benchmark × combination) still has an unsettled row; warm-up rounds always
/// run. A row is a (benchmark name, configuration) a job reported; an instance is open
/// while it has reported no row yet or one of its rows is open.
pub struct CommandAuto {
    rule: StopRule,
    full: Vec<Job>,
    warmup: u32,
    rows: Vec<RowState>,
    index: HashMap<(String, String), usize>,
    inst_rows: Vec<Vec<usize>>,
    inst_walls: Vec<Vec<f64>>,
    round: u32,
    rounds: u32,
    counted_rounds: u32,
    wall_s: f64,
    /// True while every counted sample was of a job timed as a whole process (its rate is
    /// 1 / wall, and reports show its wall): the summary then gives intervals of the time.
    whole_process: bool,
}

impl CommandAuto {
    /// The policy over `full` (the plan's whole schedule for `warmup + max_runs` rounds,
    /// `Job::file` indexing `instances` instances).
    pub fn new(rule: StopRule, full: Vec<Job>, instances: usize, warmup: u32) -> CommandAuto {
        CommandAuto {
            rule,
            full,
            warmup,
            rows: Vec::new(),
            index: HashMap::new(),
            inst_rows: vec![Vec::new(); instances],
            inst_walls: vec![Vec::new(); instances],
            round: 0,
            rounds: 0,
            counted_rounds: 0,
            wall_s: 0.0,
            whole_process: true,
        }
    }

    fn open(&self, inst: usize) -> bool {
        self.inst_rows
            .get(inst)
            .is_some_and(|r| r.is_empty() || r.iter().any(|&i| self.rows[i].settled.is_none()))
    }

    /// What the run did, for the closing summary (`jobs_run`: the driver's count).
    pub fn outcome(&self, jobs_run: usize) -> Outcome {
        let rule = self.rule.rule();
        let total_rounds = f64::from(self.warmup + rule.max_runs);
        let sides = if self.full.iter().any(|j| j.side == Side::Control) {
            3.0
        } else {
            2.0
        };
        let fixed: f64 = self
            .inst_walls
            .iter()
            .filter(|w| !w.is_empty())
            .map(|w| w.iter().sum::<f64>() / w.len() as f64 * sides * total_rounds)
            .sum();
        Outcome {
            rule,
            decided: match &self.rule {
                StopRule::Decided(_, d) => Some(d.rule),
                StopRule::Precision(_) => None,
            },
            rounds: self.rounds,
            jobs_run,
            jobs_max: self.full.len(),
            wall_s: self.wall_s,
            fixed_wall_estimate_s: fixed.max(self.wall_s),
            configs: self
                .rows
                .iter()
                .map(|r| ConfigRuns {
                    name: r.name.clone(),
                    runs: [r.samples[0].len(), r.samples[1].len()],
                    // As the report shows the row: a whole-process command by its wall time.
                    settled: match r.settled {
                        Some((round, st)) if self.whole_process => {
                            Some((round, crate::verdict::sequential::status_as_time(st)))
                        }
                        other => other,
                    },
                })
                .collect(),
            settled_rows: self
                .rows
                .iter()
                .filter_map(|r| {
                    r.settled
                        .map(|(_, status)| crate::format::results::plan::Settled {
                            file: r.bench.clone(),
                            configuration: r.configuration.clone(),
                            runs: [r.samples[0].len(), r.samples[1].len()],
                            status,
                        })
                })
                .collect(),
        }
    }
}

impl Policy<CommandJobRecord> for CommandAuto {
    fn next_round(&mut self) -> Option<Round> {
        let total = self.warmup + self.rule.rule().max_runs;
        if self.round >= total {
            return None;
        }
        let round = self.round;
        self.round += 1;
        let warm = round < self.warmup;
        let jobs: Vec<Planned> = self
            .full
            .iter()
            .filter(|j| j.run == round && (warm || self.open(j.file)))
            .map(|j| Planned { job: *j, set: None })
            .collect();
        if jobs.is_empty() {
            return None;
        }
        self.rounds += 1;
        Some(Round { jobs, record: None })
    }

    fn job_ended(&mut self, planned: &Planned, record: &CommandJobRecord) {
        self.wall_s += if record.wall_s.is_finite() {
            record.wall_s
        } else {
            0.0
        };
        let inst = planned.job.file;
        if record.status == JobStatus::Ok
            && record.wall_s.is_finite()
            && let Some(w) = self.inst_walls.get_mut(inst)
        {
            w.push(record.wall_s);
        }
        // A control job (`compare --control`) runs in the rounds its instance's old and new jobs
        // run: its samples settle nothing, and it stops with the rows it controls.
        if record.warmup || record.status != JobStatus::Ok || planned.job.side == Side::Control {
            return;
        }
        let side = usize::from(planned.job.side == Side::New);
        for s in &record.samples {
            self.whole_process &= s.source == crate::format::results::samples::WHOLE_PROCESS;
            let key = (s.name.clone(), s.configuration.clone());
            let i = match self.index.get(&key) {
                Some(&i) => i,
                None => {
                    self.rows.push(RowState {
                        name: format!("{} {}", s.name, s.configuration)
                            .trim_end()
                            .to_owned(),
                        bench: s.name.clone(),
                        configuration: s.configuration.clone(),
                        samples: [Vec::new(), Vec::new()],
                        settled: None,
                    });
                    self.index.insert(key, self.rows.len() - 1);
                    self.rows.len() - 1
                }
            };
            if let Some(r) = self.inst_rows.get_mut(inst)
                && !r.contains(&i)
            {
                r.push(i);
            }
            self.rows[i].samples[side].push(s.rate);
        }
    }

    fn round_ended(&mut self) {
        if self.round <= self.warmup {
            return;
        }
        self.counted_rounds += 1;
        let done = self.counted_rounds;
        if let StopRule::Decided(r, d) = &mut self.rule
            && done >= r.min_runs
        {
            d.fix_rows(self.rows.len());
        }
        for row in self.rows.iter_mut().filter(|r| r.settled.is_none()) {
            let st = match &self.rule {
                StopRule::Precision(r) => r.status(&row.samples[0], &row.samples[1]),
                StopRule::Decided(_, d) => d.status(&row.samples[0], &row.samples[1]),
            };
            if st != Status::Open {
                row.settled = Some((done, st));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::outcome::describe;
    use crate::stats::sequential::{Decision, Method};

    fn decider() -> Decider {
        let mut d = Decider::new(
            DecideRule {
                stop: Stop::Decided,
                threshold_pct: 1.0,
                alpha: ALPHA,
                method: Method::Pocock,
                futility: true,
            },
            5,
            30,
        );
        assert_eq!(d.status(&[1.0; 6], &[2.0; 6]), Status::Open);
        d.fix_rows(2);
        d
    }

    #[test]
    fn decides_faster_slower_and_no_change() {
        let d = decider();
        let old = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2];
        let fast: Vec<f64> = old.iter().map(|x| x * 1.2).collect();
        let slow: Vec<f64> = old.iter().map(|x| x * 0.8).collect();
        assert!(matches!(
            d.status(&old, &fast),
            Status::Decided {
                decision: Decision::Faster,
                rows: 2,
                ..
            }
        ));
        assert!(matches!(
            d.status(&old, &slow),
            Status::Decided {
                decision: Decision::Slower,
                ..
            }
        ));
        let same = [100.01, 101.0, 99.02, 100.49, 99.5, 100.2];
        assert!(matches!(
            d.status(&old, &same),
            Status::Decided {
                decision: Decision::NoChange,
                ..
            }
        ));
        // Too few, or too noisy.
        assert_eq!(d.status(&old[..4], &fast[..4]), Status::Open);
        assert_eq!(
            d.status(&old, &[80.0, 130.0, 95.0, 120.0, 70.0, 110.0]),
            Status::Open
        );
        assert_eq!(d.status(&old, &[]), Status::OneSided);
        assert!(describe(Some((6, d.status(&old, &slow)))).starts_with("decided slower"));
    }

    #[test]
    fn stops_for_futility_from_a_third_of_max_runs() {
        let d = decider();
        // ±20% noise around no change: open at 9 rounds, futile from round 10.
        let old = [100.0; 12];
        let new: Vec<f64> = (0..12)
            .map(|i| if i % 2 == 0 { 120.0 } else { 83.0 })
            .collect();
        assert_eq!(d.status(&old[..9], &new[..9]), Status::Open);
        let st = d.status(&old[..10], &new[..10]);
        assert!(
            matches!(st, Status::Futile { conditional_power, .. } if conditional_power < 0.1),
            "{st:?}"
        );
        assert!(describe(Some((10, st))).starts_with("stopped after round 10, undecided"));
        // Off: the same row stays open.
        let mut off = d.clone();
        off.rule.futility = false;
        assert_eq!(off.status(&old[..10], &new[..10]), Status::Open);
    }
}
