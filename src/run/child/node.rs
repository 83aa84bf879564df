//! Running one job: one child `BIN FILE [--set values]` with Node's IPC channel on fd 3, its
//! stdout and stderr on pipes, in a process group of its own, optionally pinned to CPUs; read
//! until it ends, kill its whole group on timeout or interrupt, reap it with `wait4`.
//!
//! Everything is read on the calling thread with `poll(2)` over the channel, the two pipes and a
//! pidfd (Linux ≥ 5.3; without one the exit is checked every 10 ms). Reports that arrive on the
//! channel are handed to the caller at once; result lines on stdout are used only when the
//! child sent no report over the channel (spec §2.6), and then handed over when it has ended.

use crate::format::node_ipc::{self, CHANNEL_ENV, CHANNEL_FD, MAX_MESSAGE_BYTES, Message};
use crate::format::result_lines::node::parse_result_line;
use crate::run::child::rusage::{self, ExitStatus, Usage};
use crate::run::{Channel, Report};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How many trailing stderr lines a job keeps (each cut to [`TAIL_LINE_BYTES`]).
pub const STDERR_TAIL_LINES: usize = 20;
/// Longest kept tail line, in bytes.
pub const TAIL_LINE_BYTES: usize = 500;
/// How long a child may take to end after `SIGTERM` (interrupt) before it gets `SIGKILL`.
pub const TERM_GRACE: Duration = Duration::from_secs(2);
const MAX_STDOUT_LINE: usize = 1 << 20;
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
    /// How the child ended; `None` when it could not be started.
    pub status: Option<ExitStatus>,
    /// Its resource usage from `wait4`.
    pub usage: Usage,
    /// Wall-clock seconds from spawn to reap.
    pub wall_s: f64,
    /// The timeout expired and the group was killed.
    pub timed_out: bool,
    /// Stopped by an interrupt (Ctrl-C) or because the caller asked to stop.
    pub interrupted: bool,
    /// Why the child could not be started.
    pub spawn_error: Option<String>,
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
    /// The last lines the child wrote to stderr.
    pub stderr_tail: Vec<String>,
}

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

    /// Appends `data` and calls `f` for every complete line (without `\n`); a line longer than
    /// the limit is passed as `None` once.
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
    }
}

fn tail_push(tail: &mut VecDeque<String>, cap: usize, line: &[u8]) {
    let mut s = String::from_utf8_lossy(&line[..line.len().min(TAIL_LINE_BYTES)]).into_owned();
    if s.ends_with('\r') {
        s.pop();
    }
    if tail.len() == cap {
        tail.pop_front();
    }
    tail.push_back(s);
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
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
    if fd < 0 {
        None
    } else {
        // SAFETY: the syscall returned a fresh descriptor that we now own.
        Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
    }
}

/// Which stream a descriptor is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Ipc,
    Out,
    Err,
}

/// Runs one job to its end. Never panics on child behaviour; every failure ends up in the
/// returned [`Outcome`]. `on_event` returning `Break` (e.g. the CSV pipe closed) stops the
/// child like an interrupt; so does `stop` becoming true (Ctrl-C): `SIGTERM` to its process
/// group, `SIGKILL` after [`TERM_GRACE`]. A `timeout` sends `SIGKILL` to the group at once.
pub fn run_job(
    spawn: &Spawn<'_>,
    timeout: Option<Duration>,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(Event<'_>) -> ControlFlow<()>,
) -> Outcome {
    let mut out = Outcome::default();
    let start = Instant::now();
    let (ours, theirs) = match node_ipc::socket_pair() {
        Ok(p) => p,
        Err(e) => {
            out.spawn_error = Some(format!("cannot create the IPC socket pair: {e}"));
            return out;
        }
    };
    let mut cmd = Command::new(spawn.binary);
    cmd.arg(spawn.file)
        .args(spawn.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("NODE_RUN_BENCHMARK_FN");
    for (k, v) in CHANNEL_ENV {
        cmd.env(k, v);
    }
    let child_fd = theirs.as_raw_fd();
    let cpus: Option<libc::cpu_set_t> = spawn.cpus.copied();
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure only makes async-signal-safe syscalls on values prepared before fork
    // and allocates nothing.
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
            if child_fd == CHANNEL_FD {
                if libc::fcntl(CHANNEL_FD, libc::F_SETFD, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
            } else if libc::dup2(child_fd, CHANNEL_FD) < 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(set) = cpus.as_ref()
                && libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0
            {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            out.spawn_error = Some(format!("cannot start {}: {e}", spawn.binary.display()));
            out.wall_s = start.elapsed().as_secs_f64();
            return out;
        }
    };
    drop(theirs);
    let pid = child.id() as libc::pid_t;
    let mut streams: Vec<(Stream, Option<File>)> = Vec::with_capacity(3);
    streams.push((Stream::Ipc, Some(File::from(ours))));
    if let Some(o) = child.stdout.take() {
        // SAFETY: into_raw_fd hands over ownership of an open descriptor.
        streams.push((
            Stream::Out,
            Some(unsafe { File::from_raw_fd(o.into_raw_fd()) }),
        ));
    }
    if let Some(e) = child.stderr.take() {
        // SAFETY: as above.
        streams.push((
            Stream::Err,
            Some(unsafe { File::from_raw_fd(e.into_raw_fd()) }),
        ));
    }
    // The std handle must never wait or kill: the pid is reaped by wait4 below.
    drop(child);
    for (_, f) in &streams {
        if let Some(f) = f {
            let _ = set_nonblocking(f.as_raw_fd());
        }
    }
    let pidfd = pidfd_open(pid);

    let deadline = timeout.map(|t| start + t);
    let mut kill_at: Option<Instant> = None;
    let mut caller_stopped = false;
    let mut ipc_lines = Lines::new(MAX_MESSAGE_BYTES);
    let mut out_lines = Lines::new(MAX_STDOUT_LINE);
    let mut err_lines = Lines::new(usize::MAX);
    let mut stdout_reports: Vec<Report> = Vec::new();
    let mut unparsed_tail: VecDeque<String> = VecDeque::new();
    let mut stderr_tail: VecDeque<String> = VecDeque::new();
    let mut buf = vec![0u8; 1 << 16];

    // Handles bytes read from one stream.
    let mut consume =
        |stream: Stream, data: &[u8], eof: bool, out: &mut Outcome, caller_stopped: &mut bool| {
            let mut on_line = |line: Option<&[u8]>| match stream {
                Stream::Ipc => {
                    let res = match line {
                        Some(l) if l.iter().all(u8::is_ascii_whitespace) => return,
                        Some(l) => node_ipc::parse_message(l),
                        None => Err(format!("IPC message longer than {MAX_MESSAGE_BYTES} bytes")),
                    };
                    match res {
                        Ok(Message::Config { queue_length, .. }) => {
                            out.queue_length = queue_length;
                            if on_event(Event::Config { queue_length }).is_break() {
                                *caller_stopped = true;
                            }
                        }
                        Ok(Message::Report(r)) => {
                            out.reports += 1;
                            out.channel = Some(Channel::Ipc);
                            if on_event(Event::Report(&r)).is_break() {
                                *caller_stopped = true;
                            }
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
                Stream::Out => {
                    let parsed = line
                        .and_then(|l| std::str::from_utf8(l).ok())
                        .and_then(parse_result_line);
                    match parsed {
                        Some(r) => stdout_reports.push(r),
                        None => {
                            let l = line.unwrap_or(b"<over-long line>");
                            if !l.iter().all(u8::is_ascii_whitespace) {
                                out.stdout_unparsed += 1;
                                tail_push(&mut unparsed_tail, 5, l);
                            }
                        }
                    }
                }
                Stream::Err => {
                    if let Some(l) = line {
                        tail_push(&mut stderr_tail, STDERR_TAIL_LINES, l);
                    }
                }
            };
            let lines = match stream {
                Stream::Ipc => &mut ipc_lines,
                Stream::Out => &mut out_lines,
                Stream::Err => &mut err_lines,
            };
            lines.push(data, &mut on_line);
            if eof {
                lines.finish(&mut on_line);
            }
        };

    // Reads what is available on stream `i`; returns false once it is closed.
    let mut read_some = |i: usize,
                         streams: &mut Vec<(Stream, Option<File>)>,
                         out: &mut Outcome,
                         caller_stopped: &mut bool,
                         drain: bool| {
        loop {
            let (kind, file) = &mut streams[i];
            let Some(f) = file.as_mut() else { return };
            match f.read(&mut buf) {
                Ok(0) => {
                    consume(*kind, &[], true, out, caller_stopped);
                    *file = None;
                    return;
                }
                Ok(n) => {
                    let k = *kind;
                    consume(k, &buf[..n], false, out, caller_stopped);
                    if !drain {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if drain {
                        // Leftover writers (stragglers) may keep it open: finish what we have.
                        let k = *kind;
                        consume(k, &[], true, out, caller_stopped);
                        *file = None;
                    }
                    return;
                }
                Err(_) => {
                    let k = *kind;
                    consume(k, &[], true, out, caller_stopped);
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
            && !out.interrupted
            && now >= d
        {
            out.timed_out = true;
            killpg(pid, libc::SIGKILL);
        }
        match rusage::has_exited(pid) {
            Ok(true) | Err(_) => {
                for i in 0..streams.len() {
                    read_some(i, &mut streams, &mut out, &mut caller_stopped, true);
                }
                break;
            }
            Ok(false) => {}
        }
        let mut wait = if pidfd.is_some() {
            Duration::from_millis(100)
        } else {
            Duration::from_millis(10)
        };
        for t in [deadline.filter(|_| !out.timed_out), kill_at]
            .into_iter()
            .flatten()
        {
            wait = wait.min(t.saturating_duration_since(now));
        }
        for i in crate::run::child::poll::wait_readable(&streams, pidfd.as_ref(), wait) {
            read_some(i, &mut streams, &mut out, &mut caller_stopped, false);
        }
    }
    // Leftover descendants (a worker that outlived the controller) go with the group.
    killpg(pid, libc::SIGKILL);
    match rusage::wait4(pid) {
        Ok((status, usage)) => {
            out.status = Some(status);
            out.usage = usage;
        }
        Err(e) => out.spawn_error = Some(format!("wait4 failed: {e}")),
    }
    out.wall_s = start.elapsed().as_secs_f64();
    out.stderr_tail = stderr_tail.into_iter().collect();
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
