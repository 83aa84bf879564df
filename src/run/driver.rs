//! The one driver of every run: rounds of jobs chosen by a [`Policy`], run one at a time by a
//! [`JobRunner`] (Node files or commands), with one stopping logic: an interrupt (`stop`)
//! ends the run before the next job, an interrupted job ends it, `--fail-fast` ends it at the
//! first failed job, and an output error (CSV or results file) ends it at once.
//!
//! The fixed schedule is the policy [`Fixed`] (one round: the given jobs); `--runs auto` is
//! [`crate::run::adaptive::Adaptive`], which the driver asks for the next round after each
//! round, and tells about every job that ended.

use crate::format::results::{JobStatus, Record};
use crate::run::Summary;
use crate::run::schedule::Job;
use std::sync::atomic::{AtomicBool, Ordering};

/// One job the policy wants run.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    /// The job.
    pub job: Job,
    /// Arguments that replace the plan's `--set` values for this job (`--runs auto` restricts
    /// a file to its unsettled configurations); `None` keeps them.
    pub set: Option<Vec<String>>,
}

/// One round: the jobs to run, in order, and a record for the results file written before
/// them (the adaptive round record).
#[derive(Clone, Debug, Default)]
pub struct Round {
    /// Jobs, in order.
    pub jobs: Vec<Planned>,
    /// Written before the first job.
    pub record: Option<Record>,
}

/// How one job ended, as the driver needs it, with the kind's record `R`.
#[derive(Debug)]
pub struct Ended<R> {
    /// The job's record (a [`crate::format::results::JobRecord`] or a command job record).
    pub record: R,
    /// Its status class.
    pub status: JobStatus,
    /// What went wrong, for the summary (when the status is not `ok`).
    pub failure: Option<String>,
    /// An output error (CSV pipe closed, results file not writable): stops the run.
    pub output_error: Option<std::io::Error>,
}

/// Runs one job of a given kind and reports it to the caller's observer.
pub trait JobRunner {
    /// The record of one job.
    type Record;
    /// Runs `planned` to its end.
    fn run(&mut self, planned: &Planned, stop: &AtomicBool) -> Ended<Self::Record>;
    /// Writes a policy's round record.
    ///
    /// # Errors
    /// An output error, which stops the run.
    fn record(&mut self, record: &Record) -> std::io::Result<()>;
}

/// Which jobs run, asked by the driver before every round.
pub trait Policy<R> {
    /// The next round, or `None` when the run is complete.
    fn next_round(&mut self) -> Option<Round>;
    /// A job of the current round ended with `record`.
    fn job_ended(&mut self, _planned: &Planned, _record: &R) {}
    /// Every job of the current round ran (not called when the run stops inside a round).
    fn round_ended(&mut self) {}
    /// A record written once after the last round (also after an interrupt), e.g. every
    /// configuration the adaptive rule settled; `None` writes nothing.
    fn final_record(&mut self) -> Option<Record> {
        None
    }
}

/// The fixed schedule: one round of the given jobs.
#[derive(Clone, Debug)]
pub struct Fixed {
    jobs: Option<Vec<Job>>,
}

impl Fixed {
    /// A policy that runs `jobs` once, in order.
    pub fn new(jobs: &[Job]) -> Fixed {
        Fixed {
            jobs: Some(jobs.to_vec()),
        }
    }
}

impl<R> Policy<R> for Fixed {
    fn next_round(&mut self) -> Option<Round> {
        self.jobs.take().map(|jobs| Round {
            jobs: jobs
                .into_iter()
                .map(|job| Planned { job, set: None })
                .collect(),
            record: None,
        })
    }
}

/// Runs rounds from `policy` with `runner` until the policy is done or the run stops (see
/// the module notes). Failed jobs (interrupted ones included) are listed in
/// [`Summary::failed`] with their failure text.
pub fn drive<R>(
    policy: &mut dyn Policy<R>,
    runner: &mut dyn JobRunner<Record = R>,
    fail_fast: bool,
    stop: &AtomicBool,
) -> Summary {
    let mut summary = Summary::default();
    'rounds: while let Some(round) = policy.next_round() {
        if let Some(rec) = &round.record
            && let Err(e) = runner.record(rec)
        {
            summary.output_error = Some(e);
            break;
        }
        for planned in &round.jobs {
            if stop.load(Ordering::SeqCst) {
                summary.interrupted = true;
                break 'rounds;
            }
            let ended = runner.run(planned, stop);
            summary.jobs_run += 1;
            policy.job_ended(planned, &ended.record);
            if let Some(e) = ended.output_error {
                summary.output_error = Some(e);
                break 'rounds;
            }
            if ended.status != JobStatus::Ok {
                summary
                    .failed
                    .push((planned.job, ended.failure.unwrap_or_default()));
            }
            if ended.status == JobStatus::Interrupted {
                summary.interrupted = true;
                break 'rounds;
            }
            if ended.status != JobStatus::Ok && fail_fast {
                summary.stopped_by_fail_fast = true;
                break 'rounds;
            }
        }
        policy.round_ended();
    }
    if summary.output_error.is_none()
        && let Some(rec) = policy.final_record()
        && let Err(e) = runner.record(&rec)
    {
        summary.output_error = Some(e);
    }
    summary
}
