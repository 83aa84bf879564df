//! The Node adapter: one job is one child `BIN FILE [--set values]` with Node's IPC channel on
//! fd 3 (spec §2), run by [`process::run`] (spawn, supervise, reap: the same path as command
//! benchmarks). This module only interprets what the child says: `config` and `report`
//! messages on the channel are handed to the caller at once; result lines on stdout are used
//! only when the child sent no report over the channel (spec §2.6), and then handed over when
//! it has ended.

use crate::format::node_ipc::{self, CHANNEL_ENV, CHANNEL_FD, MAX_MESSAGE_BYTES, Message};
use crate::format::result_lines::node::parse_result_line;
use crate::format::results::budget::{JobBudget, Limit};
use crate::format::results::{JobRecord, JobStatus, SampleRecord};
use crate::run::child::process::{self, Stream};
use crate::run::schedule::Job;
use crate::run::{Channel, Report};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const MAX_PROTOCOL_ERRORS: usize = 5;

/// What to start.
#[derive(Clone, Copy, Debug)]
pub struct Spawn<'a> {
    /// The binary (absolute).
    pub binary: &'a Path,
    /// The benchmark file (absolute), passed as the first argument.
    pub file: &'a Path,
    /// Further arguments: the raw `--set` strings, as compare.js passes them.
    pub args: &'a [String],
    /// CPUs to pin the child (and so its workers) to.
    pub cpus: Option<&'a libc::cpu_set_t>,
    /// Counters to measure ([`crate::run::child::counters`]).
    pub measure: &'a crate::run::child::counters::Measure,
}

/// Something the child said, handed to the caller as it arrives.
#[derive(Debug)]
pub enum Event<'a> {
    /// The controller's `config` message: how many configurations it will run.
    Config {
        /// `queueLength`, when given.
        queue_length: Option<u64>,
    },
    /// One measured configuration.
    Report(&'a Report),
}

/// Everything known about a finished job.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Unreadable channel messages (the first few) — garbage.
    pub protocol_errors: Vec<String>,
    /// Number of unreadable channel messages.
    pub protocol_error_count: u32,
    /// Reports handed to the caller.
    pub reports: u32,
    /// Where those reports came from.
    pub channel: Option<Channel>,
    /// `queueLength` of the child's `config` message.
    pub queue_length: Option<u64>,
    /// Non-empty stdout lines that were not result lines (counted in stdout mode only).
    pub stdout_unparsed: u32,
    /// The last of those lines.
    pub stdout_tail: Vec<String>,
    /// The limit of its [`JobBudget`] it crossed (too many samples, samples holding too many
    /// bytes, a sample with too many parameters): it was stopped there, the samples before
    /// handed over as usual.
    pub over_limit: Option<Limit>,
    /// How the process ended: status, `wait4` usage, wall seconds, timeout, interrupt, spawn
    /// error, stderr tail.
    pub process: process::Finished,
}

impl Outcome {
    /// Status class and error text of a finished job: stopped at a limit of its budget
    /// ([`Limit::error`]), then the process's failure
    /// ([`process::Finished::failure`], the order shared with command benchmarks), then garbage
    /// on the IPC channel, then garbage on stdout; an `ok` job that reported nothing gets the
    /// note "no samples".
    pub fn classify(&self, timeout: Option<Duration>) -> (JobStatus, Option<String>) {
        if let Some(limit) = &self.over_limit {
            return (JobStatus::Failed, Some(limit.error()));
        }
        if let Some((st, e)) = self.process.failure(timeout) {
            return (st, Some(e));
        }
        if self.protocol_error_count > 0 {
            let first = self.protocol_errors.first().cloned().unwrap_or_default();
            return (
                JobStatus::Failed,
                Some(format!(
                    "garbage on the IPC channel ({} unreadable message(s)): {first}",
                    self.protocol_error_count
                )),
            );
        }
        if self.reports == 0 && self.stdout_unparsed > 0 {
            let first = self.stdout_tail.first().cloned().unwrap_or_default();
            return (
                JobStatus::Failed,
                Some(format!(
                    "garbage output: no IPC report and no result line among {} stdout line(s), e.g. {:?}",
                    self.stdout_unparsed, first
                )),
            );
        }
        if self.reports == 0 {
            return (
                JobStatus::Ok,
                Some("no samples: the child reported nothing".to_owned()),
            );
        }
        (JobStatus::Ok, None)
    }

    /// The job's record for the results file.
    pub fn record(
        &self,
        job: &Job,
        file: &str,
        binary: &Path,
        samples: Vec<SampleRecord>,
        timeout: Option<Duration>,
    ) -> JobRecord {
        let (status, error) = self.classify(timeout);
        let (exit_code, signal) = self.process.code_and_signal();
        JobRecord {
            position: job.position,
            file: file.to_owned(),
            side: job.side,
            run: job.run,
            binary: binary.to_path_buf(),
            status,
            exit_code,
            signal,
            wall_s: self.process.wall_s,
            user_s: self.process.usage.user_s,
            sys_s: self.process.usage.sys_s,
            max_rss_bytes: self.process.usage.max_rss_bytes,
            queue_length: self.queue_length,
            samples,
            samples_before: 0,
            error,
            stderr_tail: if status == JobStatus::Ok {
                Vec::new()
            } else {
                self.process.stderr_tail.clone()
            },
            stdout_tail: self.stdout_tail.clone(),
            counters: self.process.counter_metrics().collect(),
        }
    }
}

/// Runs one job to its end through [`process::run`] (spawn, supervise, reap). Never panics on
/// child behaviour; every failure ends up in the returned [`Outcome`]. `on_event` returning
/// `Break` (e.g. the CSV pipe closed) stops the child like an interrupt; so does `stop`
/// becoming true (Ctrl-C): `SIGTERM` to its process group, `SIGKILL` after
/// [`process::TERM_GRACE`]. A `timeout` sends `SIGKILL` to the group at once, also during that
/// grace.
pub fn run_job(
    spawn: &Spawn<'_>,
    timeout: Option<Duration>,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(Event<'_>) -> ControlFlow<()>,
) -> Outcome {
    let mut out = Outcome::default();
    let (ours, theirs) = match node_ipc::socket_pair() {
        Ok(p) => p,
        Err(e) => {
            out.process.spawn_error = Some(format!("cannot create the IPC socket pair: {e}"));
            return out;
        }
    };
    let mut argv: Vec<OsString> = vec![spawn.binary.into(), spawn.file.into()];
    argv.extend(spawn.args.iter().map(OsString::from));
    let spec = process::Spec {
        argv,
        env: CHANNEL_ENV
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        env_remove: vec!["NODE_RUN_BENCHMARK_FN".to_owned()],
        cwd: None,
        stdout: true,
        extra_fd: Some(process::ExtraFd {
            ours,
            theirs,
            fd: CHANNEL_FD,
            limit: MAX_MESSAGE_BYTES,
        }),
        cpus: spawn.cpus.copied(),
        measure: spawn.measure.clone(),
    };
    let mut stdout_reports: Vec<Report> = Vec::new();
    // One budget for the channel's reports, one for stdout's: stdout's are used only when
    // the channel had none (spec §2.6), so only one of them is kept.
    let mut ipc_budget = JobBudget::new();
    let mut stdout_budget = JobBudget::new();
    let mut unparsed_tail: VecDeque<String> = VecDeque::new();
    let finished = process::run(spec, timeout, stop, &mut |stream, line| {
        match stream {
            Stream::Extra => {
                let res = match line {
                    Some(l) if l.iter().all(u8::is_ascii_whitespace) => {
                        return ControlFlow::Continue(());
                    }
                    Some(l) => node_ipc::parse_message(l),
                    None => Err(format!("IPC message longer than {MAX_MESSAGE_BYTES} bytes")),
                };
                match res {
                    Ok(Message::Config { queue_length, .. }) => {
                        out.queue_length = queue_length;
                        return on_event(Event::Config { queue_length });
                    }
                    Ok(Message::Report(r)) if !ipc_budget.admit_report(&r) => {
                        out.over_limit = ipc_budget.crossed().cloned();
                        return ControlFlow::Break(());
                    }
                    Ok(Message::Report(r)) => {
                        out.reports += 1;
                        out.channel = Some(Channel::Ipc);
                        return on_event(Event::Report(&r));
                    }
                    Ok(Message::Other) => {}
                    Err(e) => {
                        out.protocol_error_count += 1;
                        if out.protocol_errors.len() < MAX_PROTOCOL_ERRORS {
                            out.protocol_errors.push(e);
                        }
                    }
                }
            }
            Stream::Stdout => {
                let parsed = line
                    .and_then(|l| std::str::from_utf8(l).ok())
                    .and_then(parse_result_line);
                match parsed {
                    Some(r) if stdout_budget.admit_report(&r) => stdout_reports.push(r),
                    Some(_) => {
                        out.over_limit = stdout_budget.crossed().cloned();
                        return ControlFlow::Break(());
                    }
                    None => {
                        let l = line.unwrap_or(b"<over-long line>");
                        if !l.iter().all(u8::is_ascii_whitespace) {
                            out.stdout_unparsed += 1;
                            process::tail_push(&mut unparsed_tail, 5, l);
                        }
                    }
                }
            }
            Stream::Stderr => {}
        }
        ControlFlow::Continue(())
    });
    out.process = finished;
    if out.reports == 0 {
        out.stdout_tail = unparsed_tail.into_iter().collect();
        for r in &stdout_reports {
            out.reports += 1;
            out.channel = Some(Channel::Stdout);
            if on_event(Event::Report(r)).is_break() {
                break;
            }
        }
    } else {
        out.stdout_unparsed = 0;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `sh SCRIPT` as a Node job, collecting the reports handed over.
    fn run_script(script: &str) -> (Outcome, usize) {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("child.sh");
        std::fs::write(&file, script).expect("script");
        let measure = crate::run::child::counters::Measure::default();
        let spawn = Spawn {
            binary: Path::new("/bin/sh"),
            file: &file,
            args: &[],
            cpus: None,
            measure: &measure,
        };
        let stop = AtomicBool::new(false);
        let mut handed = 0;
        let out = run_job(&spawn, Some(Duration::from_secs(60)), &stop, &mut |e| {
            if let Event::Report(_) = e {
                handed += 1;
            }
            ControlFlow::Continue(())
        });
        (out, handed)
    }

    #[test]
    fn a_report_with_too_many_parameters_stops_the_job_on_either_channel() {
        let conf: Vec<String> = (0..1001).map(|i| format!("\"k{i}\":{i}")).collect();
        let ipc = format!(
            "echo '{{\"type\":\"report\",\"conf\":{{\"n\":1}},\"rate\":5,\"time\":\"0.1\"}}' >&3\n\
             echo '{{\"type\":\"report\",\"conf\":{{{}}},\"rate\":5,\"time\":\"0.1\"}}' >&3\n\
             sleep 30\n",
            conf.join(",")
        );
        let (out, handed) = run_script(&ipc);
        assert_eq!(handed, 1, "{out:?}");
        let (status, error) = out.classify(None);
        assert_eq!(status, JobStatus::Failed);
        assert_eq!(
            error.as_deref(),
            Some(
                "a result line reported 1001 configuration parameters, more than 1000, the \
                 limit per line: stopped there; its first sample is kept in the results file"
            )
        );
        assert!(
            out.process.wall_s < 20.0,
            "stopped, not waited for: {:.1} s",
            out.process.wall_s
        );
        let keys: Vec<String> = (0..1001).map(|i| format!(" k{i}={i}")).collect();
        let stdout = format!(
            "echo 'a.js n=1: 5'\necho 'a.js{}: 5'\nsleep 30\n",
            keys.concat()
        );
        let (out, handed) = run_script(&stdout);
        assert_eq!(handed, 1, "{out:?}");
        assert_eq!(out.channel, Some(Channel::Stdout));
        assert!(matches!(
            out.over_limit,
            Some(Limit::Params {
                count: 1001,
                kept: 1
            })
        ));
    }
}
