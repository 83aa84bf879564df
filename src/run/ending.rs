//! How a command of the runner ends: a [`Stop`] before or instead of the run (a message and
//! its exit code), or an [`Ended`] run (its closing lines, the exit code they give, and the
//! samples of the report that follows). `compare`, `run`, `sweep`, `calibrate` and `merge`
//! return them; the CLI prints them and writes the report.

use super::plan::command::PlanError;
use super::signals::{EXIT_INTERRUPTED, SignalGuard};
use crate::compare::failures::Failures;
use crate::format::results::plan::Settled;
use crate::render::RunInfo;
use crate::report::{EXIT_FAILED, EXIT_USAGE};
use crate::sample::SampleSet;

/// Why a command stopped without a result: the message (printed as `benchdiff: MESSAGE`) and
/// the exit code ([`EXIT_USAGE`] for bad options or inputs, [`EXIT_FAILED`] for a failed
/// build or job).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Stop {
    /// What went wrong, without the `benchdiff: ` prefix.
    pub message: String,
    /// The exit code.
    pub code: i32,
}

impl Stop {
    /// Bad usage or an unreadable input: exit 2.
    pub fn usage(message: impl std::fmt::Display) -> Stop {
        Stop {
            message: message.to_string(),
            code: EXIT_USAGE,
        }
    }

    /// A build, job or store that failed: exit 1.
    pub fn failed(message: impl std::fmt::Display) -> Stop {
        Stop {
            message: message.to_string(),
            code: EXIT_FAILED,
        }
    }
}

impl From<PlanError> for Stop {
    fn from(e: PlanError) -> Stop {
        match e {
            PlanError::Usage(m) => Stop::usage(m),
            PlanError::Build(m) => Stop::failed(m),
        }
    }
}

/// What a run that ran left to say.
pub struct Ended {
    /// Lines for stderr before the report (failed jobs, an interrupt, an output error, the
    /// report's notes), each whole, without its line break.
    pub lines: Vec<String>,
    /// The samples of the report, when the report follows and there is something to report.
    pub report: Option<RunReport>,
    /// Text for stderr after the report (the `--runs auto` summary), line breaks included.
    pub after: String,
    /// The exit code of the run itself: 0, [`EXIT_FAILED`] for failed jobs,
    /// [`EXIT_USAGE`] for an output error.
    pub code: i32,
    /// The run was interrupted: the exit code is [`EXIT_INTERRUPTED`] whatever the report
    /// says.
    pub interrupted: bool,
    /// The run's Ctrl-C guard, kept until the report is written, so a second SIGINT (GNU
    /// `timeout -s INT` sends two) does not cut it off.
    pub signals: Option<SignalGuard>,
}

impl Ended {
    /// The exit code of the command once the report gave `gate` (0, or 1 when
    /// `--max-regression` failed).
    pub fn code(&self, gate: i32) -> i32 {
        if self.interrupted {
            EXIT_INTERRUPTED
        } else {
            self.code.max(gate)
        }
    }

    /// Adds, when the report should follow, the notes `benchdiff report` prints for the run's
    /// results file (`notes`) and either the samples to report or the line that there are
    /// none.
    pub(crate) fn with_report(mut self, notes: Vec<String>, report: RunReport) -> Ended {
        self.lines
            .extend(notes.iter().map(|n| format!("benchdiff: warning: {n}")));
        if report.set.is_empty() && report.failures.is_empty() {
            self.lines
                .push("benchdiff: no samples, no report".to_owned());
        } else {
            self.report = Some(report);
        }
        self
    }
}

/// The samples of a run's report with the facts it shows.
pub struct RunReport {
    /// The samples of the jobs that ended `ok`.
    pub set: SampleSet,
    /// The run facts (binaries, runs, order, seed) of a Node-file run.
    pub run: Option<RunInfo>,
    /// The rows the sequential rule (`--runs auto --stop decided`) settled.
    pub settled: Vec<Settled>,
    /// The failed and missing jobs recorded in the results file.
    pub failures: Failures,
}

/// The failures recorded in the results file at `path` (none when there is no file or it
/// cannot be read: the run itself has reported that), for the live report of a run.
pub fn recorded_failures(path: Option<&std::path::Path>) -> Failures {
    path.and_then(|p| crate::format::results::load(p).ok())
        .map(|l| Failures::from_loaded(&l))
        .unwrap_or_default()
}

/// The line that `failed` of `jobs_run` jobs failed, with ` (stopped by --fail-fast)` and
/// `where_` (e.g. `; details in FILE`) appended.
pub(crate) fn failed_line(failed: usize, jobs_run: usize, fail_fast: bool, where_: &str) -> String {
    format!(
        "benchdiff: {failed} of {jobs_run} job(s) failed{}{where_}",
        if fail_fast {
            " (stopped by --fail-fast)"
        } else {
            ""
        }
    )
}

/// The line of an output error that stopped the run.
pub(crate) fn output_error_line(e: &std::io::Error) -> String {
    format!("benchdiff: stopped: cannot write output: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(code: i32, interrupted: bool) -> Ended {
        Ended {
            lines: Vec::new(),
            report: None,
            after: String::new(),
            code,
            interrupted,
            signals: None,
        }
    }

    #[test]
    fn an_interrupt_gives_130_whatever_the_run_and_the_report_say() {
        assert_eq!(ended(EXIT_USAGE, true).code(EXIT_FAILED), EXIT_INTERRUPTED);
        assert_eq!(ended(0, true).code(0), EXIT_INTERRUPTED);
    }

    #[test]
    fn the_exit_code_is_the_worse_of_the_run_and_the_gate() {
        assert_eq!(ended(0, false).code(EXIT_FAILED), EXIT_FAILED);
        assert_eq!(ended(EXIT_USAGE, false).code(EXIT_FAILED), EXIT_USAGE);
        assert_eq!(ended(0, false).code(0), 0);
    }

    #[test]
    fn a_report_without_samples_or_failures_is_a_line_not_a_report() {
        let empty = RunReport {
            set: SampleSet::new(),
            run: None,
            settled: Vec::new(),
            failures: Failures::default(),
        };
        let e = ended(0, false).with_report(vec!["2 samples unused".to_owned()], empty);
        assert!(e.report.is_none());
        assert_eq!(
            e.lines,
            [
                "benchdiff: warning: 2 samples unused",
                "benchdiff: no samples, no report"
            ]
        );
    }
}
