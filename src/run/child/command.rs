//! The command adapter: one command-benchmark job (any program) run by
//! [`crate::run::child::process::run`] — the same spawn/supervise/reap path as Node files —
//! with stdout read for result lines ([`crate::format::result_lines`]) and whole-process
//! measurements: wall (spawn to reap, monotonic clock), user and sys seconds and peak RSS in
//! bytes from `wait4`. The argv comes from [`crate::run::plan::argv`].
//!
//! Without CPU pinning the child is started through std's `posix_spawn` path (cheaper than
//! `fork` for a large parent); with pinning through a `pre_exec` hook that also makes the child
//! die with benchdiff.

use crate::format::result_lines::{self, ResultLine};
use crate::format::results::JobStatus;
use crate::format::results::budget::{JobBudget, Limit};
use crate::run::child::process::{self, Finished, Stream};
use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What to start.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    /// Program and arguments (`argv[0]` is looked up in `PATH` when it has no `/`).
    pub argv: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Working folder (default: benchdiff's).
    pub cwd: Option<PathBuf>,
    /// Read stdout for result lines (else it goes to `/dev/null`).
    pub parse_stdout: bool,
    /// Counters to measure ([`crate::run::child::counters`]).
    pub measure: crate::run::child::counters::Measure,
}

/// Everything known about one finished child.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Result lines, in order.
    pub results: Vec<ResultLine>,
    /// Result lines that were malformed (`stdout line N: why`), the first few.
    pub result_errors: Vec<String>,
    /// The limit of its [`JobBudget`] it crossed (too many result lines, lines holding too
    /// many bytes, a line with too many metrics or parameters): it was stopped there, the
    /// lines before kept in [`Outcome::results`].
    pub over_limit: Option<Limit>,
    /// How the process ended: status, `wait4` usage, wall seconds, timeout, interrupt, spawn
    /// error, stderr tail.
    pub process: Finished,
}

impl Outcome {
    /// True when it exited with code 0 within its time, without malformed result lines and
    /// within its [`JobBudget`].
    pub fn ok(&self) -> bool {
        self.failure(None).is_none()
    }

    /// Status class and error text, `None` when [`Outcome::ok`]: stopped at a limit of its
    /// budget ([`Limit::error`]), else the process's failure ([`Finished::failure`], the order
    /// shared with Node files), else a malformed result line.
    pub fn failure(&self, timeout: Option<Duration>) -> Option<(JobStatus, String)> {
        if let Some(limit) = &self.over_limit {
            return Some((JobStatus::Failed, limit.error()));
        }
        self.process.failure(timeout).or_else(|| {
            self.result_errors
                .first()
                .map(|e| (JobStatus::Failed, format!("malformed result line: {e}")))
        })
    }

    /// A one-line description of what went wrong (`None` when [`Outcome::ok`]).
    pub fn error(&self, timeout: Option<Duration>) -> Option<String> {
        self.failure(timeout).map(|(_, e)| e)
    }
}

/// Runs one child to its end (see the module notes). Never panics on child behaviour: every
/// failure is in the returned [`Outcome`]. `stop` becoming true ends the child (`SIGTERM` to its
/// group, `SIGKILL` after [`process::TERM_GRACE`]); the timeout sends `SIGKILL` to the group at
/// once, also during that grace.
pub fn run_command(
    spec: &Spec,
    timeout: Option<Duration>,
    cpus: Option<&libc::cpu_set_t>,
    stop: &AtomicBool,
) -> Outcome {
    let mut out = Outcome::default();
    let pspec = process::Spec {
        argv: spec.argv.iter().map(OsString::from).collect(),
        env: spec.env.clone(),
        env_remove: Vec::new(),
        cwd: spec.cwd.clone(),
        stdout: spec.parse_stdout,
        extra_fd: None,
        cpus: cpus.copied(),
        measure: spec.measure.clone(),
    };
    let mut line_no = 0usize;
    let mut budget = JobBudget::new();
    let finished = process::run(pspec, timeout, stop, &mut |stream, line| {
        if stream != Stream::Stdout {
            return ControlFlow::Continue(());
        }
        line_no += 1;
        let Some(text) = line.and_then(|l| std::str::from_utf8(l).ok()) else {
            return ControlFlow::Continue(());
        };
        match result_lines::parse_line(text) {
            Ok(Some(r)) if budget.admit_line(&r) => out.results.push(r),
            Ok(Some(_)) => {
                out.over_limit = budget.crossed().cloned();
                return ControlFlow::Break(());
            }
            Ok(None) => {}
            Err(e) => {
                if out.result_errors.len() < 5 {
                    out.result_errors
                        .push(format!("stdout line {line_no}: {e}"));
                }
            }
        }
        ControlFlow::Continue(())
    });
    out.process = finished;
    out
}

/// The shell of `--shell`, `--prepare`, `--setup`, `--cleanup` and builds: always this path,
/// never an `sh` looked up in `PATH` (SECURITY.md).
pub const SHELL: &str = "/bin/sh";

/// Describes a failed helper command with its stderr tail.
pub fn helper_failure(what: &str, o: &Outcome, timeout: Option<Duration>) -> String {
    let mut s = format!(
        "{what} failed: {}",
        o.error(timeout).unwrap_or_else(|| "failed".to_owned())
    );
    for l in o.process.stderr_tail.iter().rev().take(12).rev() {
        s.push_str("\n  stderr | ");
        s.push_str(l);
    }
    s
}

/// Runs a helper command line (`--prepare`, `--setup`, `--cleanup`, builds) with `/bin/sh -c`,
/// stdout and stderr kept in the tail.
pub fn run_shell(
    line: &str,
    env: &[(String, String)],
    cwd: Option<PathBuf>,
    timeout: Option<Duration>,
    stop: &AtomicBool,
) -> Outcome {
    let spec = Spec {
        argv: vec![
            SHELL.to_owned(),
            "-c".to_owned(),
            format!("exec 1>&2; {line}"),
        ],
        env: env.to_vec(),
        cwd,
        parse_stdout: false,
        measure: Default::default(),
    };
    run_command(&spec, timeout, None, stop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::child::rusage::ExitStatus;

    #[test]
    fn measures_a_real_child() {
        let stop = AtomicBool::new(false);
        let spec = Spec {
            argv: [
                "sh",
                "-c",
                r#"echo "q size=3: 1,000"; echo {\"rate\":2,\"metrics\":{\"n\":4}}; echo oops >&2; exit 3"#,
            ]
            .map(str::to_owned)
            .to_vec(),
            parse_stdout: true,
            ..Spec::default()
        };
        let o = run_command(&spec, None, None, &stop);
        assert_eq!(o.process.status, Some(ExitStatus::Exited(3)));
        assert_eq!(o.results.len(), 2);
        assert_eq!(o.results[0].rate, 1000.0);
        assert_eq!(o.results[1].metrics[0].value, 4.0);
        assert_eq!(o.process.stderr_tail, vec!["oops"]);
        assert_eq!(o.error(None).as_deref(), Some("exit code 3"));
        let spec = Spec {
            argv: vec!["sleep".into(), "5".into()],
            ..Spec::default()
        };
        let o = run_command(&spec, Some(Duration::from_millis(100)), None, &stop);
        assert!(o.process.timed_out && o.process.wall_s < 2.0, "{o:?}");
        let spec = Spec {
            argv: vec!["/nonexistent/prog".into()],
            ..Spec::default()
        };
        assert!(
            run_command(&spec, None, None, &stop)
                .process
                .spawn_error
                .is_some()
        );
    }
}
