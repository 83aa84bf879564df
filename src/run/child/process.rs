//! The one way a benchmark child is run: spawn it in a process group of its own (optionally
//! pinned to CPUs, optionally with an extra descriptor such as Node's IPC channel on fd 3),
//! read its pipes without blocking, supervise it (timeout, interrupt), kill its whole group,
//! and reap it with `wait4` for its resource usage. The Node adapter ([`super::node`]) and the
//! command adapter ([`super::command`]) only interpret the lines it hands them.
//!
//! **Behaviour (the same for both kinds of child):**
//! - everything is read on the calling thread with `poll(2)` over the pipes and a pidfd
//!   (Linux ≥ 5.3); the wait is at most [`POLL_WITH_PIDFD`], or [`POLL_WITHOUT_PIDFD`] when there
//!   is no pidfd and the exit must be polled for;
//! - benchdiff keeps a copy of the write end of the stdout and stderr pipes until the child
//!   has exited (when there is a pidfd), so the child's exit wakes the supervisor once (on the
//!   pidfd) rather than once per closed pipe and again for the exit: on a loaded machine each
//!   wake-up waits for a CPU, and this is most of the runner's per-run cost on a trivial
//!   command (`scripts/overhead-vs-hyperfine.sh`);
//! - an interrupt (`stop` becomes true, or the line handler returns `Break`) sends `SIGTERM` to
//!   the group and `SIGKILL` after [`TERM_GRACE`];
//! - the timeout is honoured in every state, also after an interrupt: when it expires first,
//!   the group gets `SIGKILL` at once (the child is then both interrupted and timed out;
//!   [`Finished::failure`] calls it interrupted);
//! - when the child has exited, whatever its descendants still write is drained without
//!   waiting for them, then the group gets `SIGKILL` (leftover workers go with it);
//! - lines longer than the stream's limit are handed over once as `None` and skipped;
//! - every group is registered with the [`super::watchdog`] while it lives, so that even
//!   `kill -9` on benchdiff leaves no process of the run behind (grandchildren included).

use crate::format::result_lines::ReportedMetric;
use crate::format::results::{JobStatus, signal_name};
use crate::run::child::counters::{self, Counter, Measure};
use crate::run::child::rusage::{self, ExitStatus, Usage};
use crate::sample::Better;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How many trailing stderr lines a child keeps (each cut to [`TAIL_LINE_BYTES`]).
pub const STDERR_TAIL_LINES: usize = 20;
/// Longest kept tail line, in bytes.
pub const TAIL_LINE_BYTES: usize = 500;
/// How long a child may take to end after `SIGTERM` (interrupt) before it gets `SIGKILL`.
pub const TERM_GRACE: Duration = Duration::from_secs(2);
/// Longest wait in one `poll(2)` when the child's exit wakes it up (pidfd).
pub const POLL_WITH_PIDFD: Duration = Duration::from_millis(100);
/// Longest wait in one `poll(2)` without a pidfd (the exit is checked after each wait).
pub const POLL_WITHOUT_PIDFD: Duration = Duration::from_millis(10);
/// Bytes read from a child's stream at a time.
const READ_BUF_BYTES: usize = 1 << 16;

thread_local! {
    static READ_BUF: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Longest stdout (and stderr) line examined, in bytes (1 MiB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One of the child's output streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The extra descriptor ([`Spec::extra_fd`], Node's IPC channel).
    Extra,
    /// Standard output.
    Stdout,
    /// Standard error (kept as a tail in [`Finished::stderr_tail`]; also handed over).
    Stderr,
}

/// What to start.
#[derive(Debug, Default)]
pub struct Spec {
    /// Program and arguments (`argv[0]` is looked up in `PATH` when it has no `/`).
    pub argv: Vec<OsString>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Environment variables to remove.
    pub env_remove: Vec<String>,
    /// Working folder (default: benchdiff's).
    pub cwd: Option<PathBuf>,
    /// Pipe stdout to the caller (else it goes to `/dev/null`).
    pub stdout: bool,
    /// Our end and the child's end of an extra channel, the child's end placed on descriptor
    /// `fd` (Node's IPC channel: fd 3), read as [`Stream::Extra`] lines of at most `limit` bytes.
    pub extra_fd: Option<ExtraFd>,
    /// CPUs to pin the child (and so its descendants) to.
    pub cpus: Option<libc::cpu_set_t>,
    /// Counters of the child and its descendants ([`super::counters`]); empty: none.
    pub measure: Measure,
}

/// An extra descriptor for the child (see [`Spec::extra_fd`]).
#[derive(Debug)]
pub struct ExtraFd {
    /// Our end, read by the supervisor.
    pub ours: OwnedFd,
    /// The child's end, closed in the parent after the spawn.
    pub theirs: OwnedFd,
    /// Where the child finds it.
    pub fd: RawFd,
    /// Longest line on it, in bytes.
    pub limit: usize,
}

/// How one child ended, whatever its kind.
#[derive(Clone, Debug, Default)]
pub struct Finished {
    /// How it ended; `None` when it could not be started (or not reaped).
    pub status: Option<ExitStatus>,
    /// Its `wait4` usage: user/sys seconds, peak RSS bytes.
    pub usage: Usage,
    /// Wall-clock seconds from spawn to reap (monotonic clock).
    pub wall_s: f64,
    /// The timeout expired and the group was killed.
    pub timed_out: bool,
    /// Stopped by an interrupt (`stop`) or because the line handler asked to stop.
    pub interrupted: bool,
    /// Why it could not be started (or reaped).
    pub spawn_error: Option<String>,
    /// The last lines it wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// The counters of [`Spec::measure`] with their values (a count, or seconds for
    /// `task-clock`), read after the child was reaped.
    pub counters: Vec<(Counter, f64)>,
    /// Why the counters could not be read (the job then fails).
    pub counter_error: Option<String>,
}

impl Finished {
    /// The status class and error text of how the process ended, before its output is judged:
    /// `None` when it exited with code 0 in time. The order (shared by both kinds of child):
    /// could not start, interrupted, timed out, killed by a signal, non-zero exit code.
    pub fn failure(&self, timeout: Option<Duration>) -> Option<(JobStatus, String)> {
        if let Some(e) = &self.spawn_error {
            return Some((JobStatus::Failed, e.clone()));
        }
        if self.interrupted {
            return Some((JobStatus::Interrupted, "interrupted".to_owned()));
        }
        if self.timed_out {
            let t = timeout
                .map(|t| format!(" after {} s", t.as_secs_f64()))
                .unwrap_or_default();
            return Some((
                JobStatus::Timeout,
                format!("timed out{t}; its process group was killed"),
            ));
        }
        match self.status {
            Some(ExitStatus::Signaled(s)) => {
                Some((JobStatus::Failed, format!("killed by {}", signal_name(s))))
            }
            Some(ExitStatus::Exited(c)) if c != 0 => {
                Some((JobStatus::Failed, format!("exit code {c}")))
            }
            None => Some((JobStatus::Failed, "not reaped".to_owned())),
            _ => self
                .counter_error
                .as_ref()
                .map(|e| (JobStatus::Failed, format!("counters: {e}"))),
        }
    }

    /// Its counters as metrics of the record, each named and measured as its counter, lower
    /// is better.
    pub fn counter_metrics(&self) -> impl Iterator<Item = ReportedMetric> + '_ {
        self.counters
            .iter()
            .map(|(c, v)| metric(c.name(), c.unit(), *v))
    }

    /// `(exit code, signal)` for the record.
    pub fn code_and_signal(&self) -> (Option<i32>, Option<i32>) {
        match self.status {
            Some(ExitStatus::Exited(c)) => (Some(c), None),
            Some(ExitStatus::Signaled(s)) => (None, Some(s)),
            None => (None, None),
        }
    }
}

/// A lower-is-better metric of a job's record: `value` in `unit`.
pub fn metric(name: &str, unit: &str, value: f64) -> ReportedMetric {
    ReportedMetric {
        name: name.to_owned(),
        unit: unit.to_owned(),
        better: Better::Lower,
        value,
    }
}

/// Splits a byte stream into lines; a line longer than the limit is handed over once as `None`
/// and the rest of it skipped.
struct Lines {
    buf: Vec<u8>,
    limit: usize,
    overflowed: bool,
}

impl Lines {
    fn new(limit: usize) -> Self {
        Lines {
            buf: Vec::new(),
            limit,
            overflowed: false,
        }
    }

    fn push(&mut self, mut data: &[u8], f: &mut dyn FnMut(Option<&[u8]>)) {
        while let Some(i) = memchr::memchr(b'\n', data) {
            if self.overflowed {
                self.overflowed = false;
                self.buf.clear();
            } else if self.buf.is_empty() {
                f(Some(&data[..i]));
            } else {
                self.buf.extend_from_slice(&data[..i]);
                let line = std::mem::take(&mut self.buf);
                f(Some(&line));
            }
            data = &data[i + 1..];
        }
        if !self.overflowed {
            self.buf.extend_from_slice(data);
            if self.buf.len() > self.limit {
                self.buf = Vec::new();
                self.overflowed = true;
                f(None);
            }
        }
    }

    fn finish(&mut self, f: &mut dyn FnMut(Option<&[u8]>)) {
        if !self.buf.is_empty() && !self.overflowed {
            let line = std::mem::take(&mut self.buf);
            f(Some(&line));
        }
        self.buf.clear();
        self.overflowed = false;
    }
}

/// Appends `line` (cut to [`TAIL_LINE_BYTES`], lossy UTF-8, without a trailing `\r`) to a
/// tail of at most `cap` lines.
pub fn tail_push(tail: &mut VecDeque<String>, cap: usize, line: &[u8]) {
    let mut s = String::from_utf8_lossy(&line[..line.len().min(TAIL_LINE_BYTES)]).into_owned();
    if s.ends_with('\r') {
        s.pop();
    }
    if tail.len() == cap {
        tail.pop_front();
    }
    tail.push_back(s);
}

/// A pipe for one of the child's output streams (see [`run`]).
struct OutPipe {
    /// The read end, ours, already non-blocking.
    ours: OwnedFd,
    /// The write end handed to the child. On the fast spawn path ([`super::spawn::spawn`])
    /// the child gets a copy and this one is kept until the child has exited, so that the
    /// child closing its end wakes nobody: the exit is seen on the pidfd, the data on the read
    /// end. (The std path hands this one to the child and keeps a duplicate.)
    child_end: OwnedFd,
}

/// A pipe whose read end (ours) is non-blocking and whose write end (the child's) blocks.
/// Three system calls: `pipe2` and one `fcntl(F_SETFL)` on a read end whose status flags are
/// known (`O_RDONLY`), rather than reading them first.
fn out_pipe() -> io::Result<OutPipe> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills a two-element array with two new descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are fresh and ours.
    let (ours, child_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: fcntl on a descriptor we own; a fresh pipe's read end has status O_RDONLY.
    if unsafe {
        libc::fcntl(
            ours.as_raw_fd(),
            libc::F_SETFL,
            libc::O_RDONLY | libc::O_NONBLOCK,
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(OutPipe { ours, child_end })
}

fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

fn killpg(pgid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: killpg has no memory-safety preconditions; the group leader is our unreaped
    // child, so the id cannot have been reused.
    unsafe {
        libc::killpg(pgid, sig);
    }
}

fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative result is a fresh descriptor that we now own.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Receives every line of a child's streams (`None` for an over-long line); `Break` stops the
/// child like an interrupt.
pub type LineHandler<'a> = dyn FnMut(Stream, Option<&[u8]>) -> ControlFlow<()> + 'a;

/// Runs one child to its end (see the module notes), handing every line of its streams to
/// `on_line` as it arrives (`None` for an over-long line). `on_line` returning `Break` stops
/// the child like an interrupt. Never panics on child behaviour: every failure is in the
/// returned [`Finished`].
pub fn run(
    spec: Spec,
    timeout: Option<Duration>,
    stop: &AtomicBool,
    on_line: &mut LineHandler<'_>,
) -> Finished {
    let mut out = Finished::default();
    let start = Instant::now();
    let mut spec = spec;
    // Under cachegrind the child is valgrind running the program (its output files in a
    // folder of their own, removed at the end).
    let cachegrind = match &spec.measure.cachegrind {
        Some(valgrind) => match counters::CachegrindRun::new() {
            Ok(cg) => {
                spec.argv = cg.wrap(valgrind, &spec.argv);
                Some(cg)
            }
            Err(e) => {
                out.spawn_error = Some(format!("cannot make a folder for cachegrind: {e}"));
                return out;
            }
        },
        None => None,
    };
    // perf counters are opened by the child just before exec and handed over a socket.
    let (counter_parent, counter_child) = if spec.measure.perf.is_empty() {
        (None, None)
    } else {
        match counters::prepare(&spec.measure.perf) {
            Ok((p, c)) => (Some(p), Some(c)),
            Err(e) => {
                out.spawn_error = Some(format!("cannot prepare the counters: {e}"));
                return out;
            }
        }
    };
    let Some((program, args)) = spec.argv.split_first() else {
        out.spawn_error = Some("empty command".to_owned());
        return out;
    };
    // Our own pipes, so that we keep a copy of each write end while the child runs: its exit
    // then wakes us once (the pidfd) instead of once per closed pipe plus the exit.
    let stdout_pipe = if spec.stdout {
        match out_pipe() {
            Ok(p) => Some(p),
            Err(e) => {
                out.spawn_error = Some(format!("cannot create a pipe: {e}"));
                return out;
            }
        }
    } else {
        None
    };
    let stderr_pipe = match out_pipe() {
        Ok(p) => p,
        Err(e) => {
            out.spawn_error = Some(format!("cannot create a pipe: {e}"));
            return out;
        }
    };
    let cpus = spec.cpus;
    let extra = spec.extra_fd.as_ref().map(|e| (e.theirs.as_raw_fd(), e.fd));
    let mut kept_writers: Vec<OwnedFd> = Vec::with_capacity(2);
    let mut readers: Vec<(Stream, OwnedFd)> = Vec::with_capacity(2);
    // Fast path: no CPU pinning, no extra descriptor and no counters, so no code has to run in
    // the child before exec: posix_spawn with a cached environment block (see `super::spawn`).
    let fast = if cpus.is_none() && extra.is_none() && counter_child.is_none() {
        super::spawn::spawn(
            &spec.argv,
            &spec.env,
            &spec.env_remove,
            spec.cwd.as_deref(),
            stdout_pipe.as_ref().map(|p| p.child_end.as_raw_fd()),
            stderr_pipe.child_end.as_raw_fd(),
        )
    } else {
        None
    };
    let spawned: io::Result<libc::pid_t> = match fast {
        Some(r) => {
            // The child's ends were duplicated into the child (or it failed): ours are the kept
            // writers.
            if let Some(p) = stdout_pipe {
                kept_writers.push(p.child_end);
                readers.push((Stream::Stdout, p.ours));
            }
            kept_writers.push(stderr_pipe.child_end);
            readers.push((Stream::Stderr, stderr_pipe.ours));
            r
        }
        None => spawn_with_std(
            &spec,
            program,
            args,
            (stdout_pipe, stderr_pipe),
            counter_child,
            &mut kept_writers,
            &mut readers,
        ),
    };
    let pid = match spawned {
        Ok(pid) => pid,
        Err(e) => {
            out.spawn_error = Some(format!(
                "cannot start {}: {e}",
                std::path::Path::new(program).display()
            ));
            out.wall_s = start.elapsed().as_secs_f64();
            return out;
        }
    };
    // Should benchdiff die here on (kill -9), the watchdog kills the whole group.
    super::watchdog::register(pid);
    let opened = counter_parent.map(|p| p.receive());
    let mut streams: Vec<(Stream, Option<File>, Lines)> = Vec::with_capacity(3);
    if let Some(e) = spec.extra_fd {
        drop(e.theirs);
        streams.push((Stream::Extra, Some(File::from(e.ours)), Lines::new(e.limit)));
    }
    for (_, f, _) in &streams {
        if let Some(f) = f {
            set_nonblocking(f.as_raw_fd());
        }
    }
    // The pipes' read ends are non-blocking from `out_pipe`.
    for (kind, fd) in readers {
        streams.push((kind, Some(File::from(fd)), Lines::new(MAX_LINE_BYTES)));
    }
    let pidfd = pidfd_open(pid);
    if pidfd.is_none() {
        // Without a pidfd only the pipes' hang-up wakes us early at the exit.
        kept_writers.clear();
    }
    // Whether the child is known to have exited (its pidfd turned readable), and whether to
    // ask `waitid` before the next wait (no pidfd, or the last wait saw nothing).
    let (mut exited, mut check_exit) = (false, pidfd.is_none());
    let deadline = timeout.map(|t| start + t);
    let mut kill_at: Option<Instant> = None;
    let mut caller_stopped = false;
    let mut stderr_tail: VecDeque<String> = VecDeque::new();
    // One read buffer per thread, kept from child to child: allocating (and zeroing) 64 KiB
    // per run was an mmap and an munmap per run of a trivial command.
    let mut buf = READ_BUF.with(std::cell::Cell::take);
    if buf.len() < READ_BUF_BYTES {
        buf = vec![0u8; READ_BUF_BYTES];
    }

    // Reads what is available on stream `i` (all of it with `drain`); closes it at its end.
    let mut read_some = |i: usize,
                         streams: &mut Vec<(Stream, Option<File>, Lines)>,
                         caller_stopped: &mut bool,
                         drain: bool| {
        let (kind, file, lines) = &mut streams[i];
        let kind = *kind;
        let mut deliver = |line: Option<&[u8]>| {
            if kind == Stream::Stderr
                && let Some(l) = line
            {
                tail_push(&mut stderr_tail, STDERR_TAIL_LINES, l);
            }
            if on_line(kind, line).is_break() {
                *caller_stopped = true;
            }
        };
        loop {
            let Some(f) = file.as_mut() else { return };
            match f.read(&mut buf) {
                Ok(0) => {
                    lines.finish(&mut deliver);
                    *file = None;
                    return;
                }
                Ok(n) => {
                    lines.push(&buf[..n], &mut deliver);
                    if !drain {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if drain {
                        // Leftover writers (descendants) may keep it open: finish what we have.
                        lines.finish(&mut deliver);
                        *file = None;
                    }
                    return;
                }
                Err(_) => {
                    lines.finish(&mut deliver);
                    *file = None;
                    return;
                }
            }
        }
    };

    loop {
        let now = Instant::now();
        if !out.interrupted && (caller_stopped || stop.load(Ordering::SeqCst)) {
            out.interrupted = true;
            killpg(pid, libc::SIGTERM);
            kill_at = Some(now + TERM_GRACE);
        }
        if let Some(k) = kill_at
            && now >= k
        {
            killpg(pid, libc::SIGKILL);
            kill_at = None;
        }
        if let Some(d) = deadline
            && !out.timed_out
            && now >= d
        {
            out.timed_out = true;
            killpg(pid, libc::SIGKILL);
            kill_at = None;
        }
        // With a pidfd the exit is known from `poll` (the pidfd turns readable); `waitid` asks
        // only after a wait that saw nothing, in case a wake-up was missed. Without one, it
        // asks every time.
        if exited || (check_exit && rusage::has_exited(pid).unwrap_or(true)) {
            // Only descendants can hold the pipes open now: drain what they wrote so far.
            kept_writers.clear();
            for i in 0..streams.len() {
                read_some(i, &mut streams, &mut caller_stopped, true);
            }
            break;
        }
        let mut wait = if pidfd.is_some() {
            POLL_WITH_PIDFD
        } else {
            POLL_WITHOUT_PIDFD
        };
        for t in [deadline.filter(|_| !out.timed_out), kill_at]
            .into_iter()
            .flatten()
        {
            wait = wait.min(t.saturating_duration_since(now));
        }
        let (ready, pid_ready) = {
            let view: Vec<(Stream, Option<&File>)> =
                streams.iter().map(|(k, f, _)| (*k, f.as_ref())).collect();
            crate::run::child::poll::wait_readable(&view, pidfd.as_ref(), wait)
        };
        exited = pid_ready;
        check_exit = pidfd.is_none() || (ready.is_empty() && !pid_ready);
        for i in ready {
            read_some(i, &mut streams, &mut caller_stopped, false);
        }
    }
    READ_BUF.with(|c| c.set(std::mem::take(&mut buf)));
    // Leftover descendants (a worker that outlived the controller) go with the group.
    killpg(pid, libc::SIGKILL);
    match rusage::wait4(pid) {
        Ok((status, usage)) => {
            out.status = Some(status);
            out.usage = usage;
        }
        Err(e) => out.spawn_error = Some(format!("wait4 failed: {e}")),
    }
    super::watchdog::forget(pid);
    out.wall_s = start.elapsed().as_secs_f64();
    out.stderr_tail = stderr_tail.into_iter().collect();
    let mut values = Vec::new();
    match opened.map(|o| o.map_err(|e| e.to_string()).and_then(|o| o.read())) {
        Some(Ok(v)) => values.extend(v),
        Some(Err(e)) => out.counter_error = Some(e),
        None => {}
    }
    if let Some(cg) = cachegrind {
        match cg.instructions() {
            Ok(n) => values.push((Counter::Instructions, n)),
            Err(e) => out.counter_error = Some(e),
        }
    }
    values.sort_by_key(|(c, _)| *c);
    out.counters = values;
    out
}

/// Starts the child of `spec` with `std::process::Command` (the path for CPU pinning, an extra
/// descriptor, or whatever [`super::spawn::spawn`] leaves to std), handing the child its ends
/// of the pipes and keeping ours in `kept_writers` and `readers`. Returns the child's pid.
fn spawn_with_std(
    spec: &Spec,
    program: &OsString,
    args: &[OsString],
    (stdout_pipe, stderr_pipe): (Option<OutPipe>, OutPipe),
    counter_child: Option<counters::ChildSide>,
    kept_writers: &mut Vec<OwnedFd>,
    readers: &mut Vec<(Stream, OwnedFd)>,
) -> io::Result<libc::pid_t> {
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null());
    match stdout_pipe {
        Some(p) => {
            kept_writers.push(p.child_end.try_clone()?);
            cmd.stdout(Stdio::from(p.child_end));
            readers.push((Stream::Stdout, p.ours));
        }
        None => {
            cmd.stdout(Stdio::null());
        }
    }
    kept_writers.push(stderr_pipe.child_end.try_clone()?);
    cmd.stderr(Stdio::from(stderr_pipe.child_end));
    readers.push((Stream::Stderr, stderr_pipe.ours));
    for k in &spec.env_remove {
        cmd.env_remove(k);
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    if let Some(d) = &spec.cwd {
        cmd.current_dir(d);
    }
    let cpus = spec.cpus;
    let extra = spec.extra_fd.as_ref().map(|e| (e.theirs.as_raw_fd(), e.fd));
    if cpus.is_none() && extra.is_none() && counter_child.is_none() {
        // No pre_exec hook, so std can still start the child with posix_spawn. The child gets
        // its own process group, so timeouts and Ctrl-C end all of it.
        cmd.process_group(0);
    } else {
        let mut counter_child = counter_child;
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure only makes async-signal-safe syscalls on values prepared before
        // fork and allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setpgid(0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // Die with benchdiff (e.g. kill -9), instead of measuring on as an orphan.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                if let Some((from, to)) = extra {
                    if from == to {
                        if libc::fcntl(to, libc::F_SETFD, 0) != 0 {
                            return Err(io::Error::last_os_error());
                        }
                    } else if libc::dup2(from, to) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                if let Some(set) = cpus.as_ref()
                    && libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                // Last, so that the counters count the program from exec on.
                if let Some(c) = counter_child.as_mut() {
                    c.open_and_send()?;
                }
                Ok(())
            });
        }
    }
    let child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    // The std handle must never wait or kill: the pid is reaped by wait4 in `run`.
    drop(child);
    Ok(pid)
}
