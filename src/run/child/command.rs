//! Command benchmarks: turning `--old 'BIN ARGS'` / `--bench 'ARGS {param}'` into an argv, and
//! running one such child to its end with whole-process measurements.
//!
//! **No shell by default.** Command texts are split into words with the POSIX shell's quoting
//! rules only (whitespace separates words; `'…'` is literal; `"…"` is literal except `\"`,
//! `\\`, `\$` and `` \` ``; a backslash outside quotes takes the next character literally), with
//! no expansion of `$VAR`, globs, `;`, `|` or redirections. Placeholders `{key}` are substituted
//! **inside each word after splitting**, so a value such as `; rm -rf x` stays one argument.
//! `{{` and `}}` are literal braces; braces around anything that is not a parameter name
//! (`{}`, `{a b}`) stay as they are. With `--shell` the line goes to `sh -c` instead and every
//! substituted value is single-quoted.
//!
//! [`run_command`] spawns the argv in its own process group (killed as a whole on timeout or
//! interrupt), optionally pinned to CPUs (then through a `pre_exec` hook that also makes the
//! child die with benchdiff; without pinning std's `posix_spawn` path is used, which is
//! cheaper than `fork` for a large parent), reads stdout for result
//! lines ([`crate::format::result_lines`]) and keeps the stderr tail, and reaps it with `wait4` for
//! wall (spawn to reap, monotonic clock), user and sys seconds and peak RSS in bytes.

use crate::format::result_lines::{self, ResultLine};
use crate::run::child::rusage::{self, ExitStatus, Usage};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Lines of stderr kept from a child.
pub const STDERR_TAIL_LINES: usize = 20;
/// Longest kept stderr line, in bytes.
const TAIL_LINE_BYTES: usize = 500;
/// Longest stdout line examined for a result; longer lines are skipped.
const MAX_LINE: usize = 1 << 20;
/// Grace between `SIGTERM` and `SIGKILL` when interrupted.
const TERM_GRACE: Duration = Duration::from_secs(2);

/// Splits `text` into words with shell quoting rules and no expansions (see the module notes).
///
/// # Errors
/// A message for an unterminated quote or a trailing backslash.
pub fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(format!("{text:?}: unterminated single quote")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err(format!("{text:?}: unterminated double quote")),
                        },
                        Some(c) => cur.push(c),
                        None => return Err(format!("{text:?}: unterminated double quote")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => cur.push(c),
                    None => return Err(format!("{text:?}: ends with a lone backslash")),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Quotes `s` for `sh`: `'…'`, with each `'` written `'\''`.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The parameter names used as `{key}` in `text`, in order of first use.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    substitute_with(text, &mut |k| {
        if !out.iter().any(|o| o == k) {
            out.push(k.to_owned());
        }
        None
    });
    out
}

/// Replaces every `{key}` for which `value(key)` is `Some`; `{{`/`}}` become `{`/`}`.
pub fn substitute(text: &str, value: &dyn Fn(&str) -> Option<String>) -> String {
    substitute_with(text, &mut |k| value(k))
}

fn substitute_with(text: &str, value: &mut dyn FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push(if tail.starts_with('{') { '{' } else { '}' });
            rest = &tail[2..];
            continue;
        }
        if tail.starts_with('{')
            && let Some(end) = tail.find('}')
        {
            let key = &tail[1..end];
            if crate::run::plan::matrix::check_key(key).is_ok() {
                match value(key) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&tail[..=end]),
                }
                rest = &tail[end + 1..];
                continue;
            }
        }
        out.push_str(&tail[..1]);
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// Builds the argv of one run: `prefix` (the binary's words, e.g. `gzip -1`) then the words of
/// `template` with `{key}` replaced by the values of `combo`. With `shell` the result is
/// `["sh", "-c", LINE]`, where LINE is the prefix and template with shell-quoted values.
///
/// # Errors
/// A message for bad quoting in `template`.
pub fn build_argv(
    prefix: &[String],
    template: &str,
    combo: &[(String, String)],
    shell: bool,
) -> Result<Vec<String>, String> {
    let lookup = |k: &str| combo.iter().find(|(ck, _)| ck == k).map(|(_, v)| v.clone());
    if shell {
        let mut line: Vec<String> = prefix.iter().map(|w| shell_quote(w)).collect();
        line.push(substitute(template, &|k| {
            lookup(k).map(|v| shell_quote(&v))
        }));
        return Ok(vec!["sh".to_owned(), "-c".to_owned(), line.join(" ")]);
    }
    let mut argv = prefix.to_vec();
    for w in split_words(template)? {
        argv.push(substitute(&w, &lookup));
    }
    Ok(argv)
}

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
}

/// Everything known about one finished child.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// How it ended; `None` when it could not be started.
    pub status: Option<ExitStatus>,
    /// `wait4` usage: user/sys seconds, peak RSS bytes.
    pub usage: Usage,
    /// Seconds from spawn to reap.
    pub wall_s: f64,
    /// Killed after the timeout.
    pub timed_out: bool,
    /// Stopped because `stop` became true.
    pub interrupted: bool,
    /// Why it could not be started.
    pub spawn_error: Option<String>,
    /// Result lines, in order.
    pub results: Vec<ResultLine>,
    /// Result lines that were malformed (`stdout line N: why`), the first few.
    pub result_errors: Vec<String>,
    /// The last stderr lines.
    pub stderr_tail: Vec<String>,
}

impl Outcome {
    /// True when it exited with code 0 within its time and without malformed result lines.
    pub fn ok(&self) -> bool {
        self.spawn_error.is_none()
            && !self.timed_out
            && !self.interrupted
            && self.status.is_some_and(ExitStatus::success)
            && self.result_errors.is_empty()
    }

    /// A one-line description of what went wrong (`None` when [`Outcome::ok`]).
    pub fn error(&self, timeout: Option<Duration>) -> Option<String> {
        if let Some(e) = &self.spawn_error {
            return Some(e.clone());
        }
        if self.interrupted {
            return Some("interrupted".to_owned());
        }
        if self.timed_out {
            let t = timeout
                .map(|t| format!(" after {} s", t.as_secs_f64()))
                .unwrap_or_default();
            return Some(format!("timed out{t}; its process group was killed"));
        }
        match self.status {
            Some(ExitStatus::Signaled(s)) => {
                return Some(format!(
                    "killed by {}",
                    crate::format::results::signal_name(s)
                ));
            }
            Some(ExitStatus::Exited(c)) if c != 0 => return Some(format!("exit code {c}")),
            _ => {}
        }
        self.result_errors
            .first()
            .map(|e| format!("malformed result line: {e}"))
    }
}

fn tail_push(tail: &mut VecDeque<String>, line: &[u8]) {
    let mut s = String::from_utf8_lossy(&line[..line.len().min(TAIL_LINE_BYTES)]).into_owned();
    if s.ends_with('\r') {
        s.pop();
    }
    if tail.len() == STDERR_TAIL_LINES {
        tail.pop_front();
    }
    tail.push_back(s);
}

/// Splits a byte stream into lines; over-long lines are dropped.
#[derive(Default)]
struct LineBuf {
    buf: Vec<u8>,
    skipping: bool,
}

impl LineBuf {
    fn push(&mut self, mut data: &[u8], f: &mut dyn FnMut(&[u8])) {
        while let Some(i) = memchr::memchr(b'\n', data) {
            if !self.skipping {
                if self.buf.is_empty() {
                    f(&data[..i]);
                } else {
                    self.buf.extend_from_slice(&data[..i]);
                    f(&self.buf);
                    self.buf.clear();
                }
            }
            self.skipping = false;
            data = &data[i + 1..];
        }
        if !self.skipping {
            self.buf.extend_from_slice(data);
            if self.buf.len() > MAX_LINE {
                self.buf = Vec::new();
                self.skipping = true;
            }
        }
    }

    fn finish(&mut self, f: &mut dyn FnMut(&[u8])) {
        if !self.skipping && !self.buf.is_empty() {
            f(&self.buf);
        }
        self.buf.clear();
    }
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

fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative result is a fresh descriptor that we now own.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

fn killpg(pgid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: the group leader is our unreaped child, so the id cannot have been reused.
    unsafe {
        libc::killpg(pgid, sig);
    }
}

/// Runs one child to its end (see the module notes). Never panics on child behaviour: every
/// failure is in the returned [`Outcome`]. `stop` becoming true ends the child (`SIGTERM` to its
/// group, `SIGKILL` after 2 s); the timeout sends `SIGKILL` to the group at once.
pub fn run_command(
    spec: &Spec,
    timeout: Option<Duration>,
    cpus: Option<&libc::cpu_set_t>,
    stop: &AtomicBool,
) -> Outcome {
    let mut out = Outcome::default();
    let Some((program, args)) = spec.argv.split_first() else {
        out.spawn_error = Some("empty command".to_owned());
        return out;
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(if spec.parse_stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped());
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    if let Some(d) = &spec.cwd {
        cmd.current_dir(d);
    }
    let cpus: Option<libc::cpu_set_t> = cpus.copied();
    if cpus.is_none() {
        // Fast path: no pre_exec hook, so std can start the child with posix_spawn (clone with
        // a shared address space) instead of fork, which keeps the per-run overhead below
        // hyperfine's (scripts/overhead-vs-hyperfine.sh). The child still gets its own
        // process group, so timeouts and Ctrl-C end all of it.
        cmd.process_group(0);
    }
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure makes only async-signal-safe syscalls on values prepared before fork
    // and allocates nothing.
    unsafe {
        if cpus.is_some() {
            cmd.pre_exec(move || {
                if libc::setpgid(0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                if let Some(set) = cpus.as_ref()
                    && libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            out.spawn_error = Some(format!("cannot start {program:?}: {e}"));
            return out;
        }
    };
    let pid = child.id() as libc::pid_t;
    // (is_stdout, file)
    let mut streams: Vec<(bool, Option<File>)> = Vec::with_capacity(2);
    if let Some(o) = child.stdout.take() {
        // SAFETY: into_raw_fd hands over an open descriptor.
        streams.push((true, Some(unsafe { File::from_raw_fd(o.into_raw_fd()) })));
    }
    if let Some(e) = child.stderr.take() {
        // SAFETY: as above.
        streams.push((false, Some(unsafe { File::from_raw_fd(e.into_raw_fd()) })));
    }
    // The std handle must never wait or kill: the pid is reaped by wait4 below.
    drop(child);
    for (_, f) in &streams {
        if let Some(f) = f {
            set_nonblocking(f.as_raw_fd());
        }
    }
    let pidfd = pidfd_open(pid);
    let deadline = timeout.map(|t| start + t);
    let mut kill_at: Option<Instant> = None;
    let mut out_lines = LineBuf::default();
    let mut err_lines = LineBuf::default();
    let mut stderr_tail: VecDeque<String> = VecDeque::new();
    let mut line_no = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    let mut on_out = |l: &[u8], out: &mut Outcome| {
        line_no += 1;
        let Ok(text) = std::str::from_utf8(l) else {
            return;
        };
        match result_lines::parse_line(text) {
            Ok(Some(r)) => out.results.push(r),
            Ok(None) => {}
            Err(e) => {
                if out.result_errors.len() < 5 {
                    out.result_errors
                        .push(format!("stdout line {line_no}: {e}"));
                }
            }
        }
    };
    let mut read_stream =
        |i: usize, streams: &mut Vec<(bool, Option<File>)>, out: &mut Outcome, drain: bool| loop {
            let (is_out, slot) = &mut streams[i];
            let Some(f) = slot.as_mut() else { return };
            match f.read(&mut buf) {
                Ok(0) => {
                    if *is_out {
                        out_lines.finish(&mut |l| on_out(l, out));
                    } else {
                        err_lines.finish(&mut |l| tail_push(&mut stderr_tail, l));
                    }
                    *slot = None;
                    return;
                }
                Ok(n) => {
                    if *is_out {
                        out_lines.push(&buf[..n], &mut |l| on_out(l, out));
                    } else {
                        err_lines.push(&buf[..n], &mut |l| tail_push(&mut stderr_tail, l));
                    }
                    if !drain {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if drain {
                        // A descendant still holds the pipe: finish with what we have.
                        if *is_out {
                            out_lines.finish(&mut |l| on_out(l, out));
                        } else {
                            err_lines.finish(&mut |l| tail_push(&mut stderr_tail, l));
                        }
                        *slot = None;
                    }
                    return;
                }
                Err(_) => {
                    *slot = None;
                    return;
                }
            }
        };
    loop {
        let now = Instant::now();
        if stop.load(Ordering::SeqCst) && !out.interrupted {
            out.interrupted = true;
            killpg(pid, libc::SIGTERM);
            kill_at = Some(now + TERM_GRACE);
        }
        if let Some(d) = deadline
            && now >= d
            && !out.timed_out
        {
            out.timed_out = true;
            killpg(pid, libc::SIGKILL);
        }
        if let Some(k) = kill_at
            && now >= k
        {
            killpg(pid, libc::SIGKILL);
            kill_at = None;
        }
        let exited = rusage::has_exited(pid).unwrap_or(true);
        if exited {
            for i in 0..streams.len() {
                read_stream(i, &mut streams, &mut out, true);
            }
            break;
        }
        let mut wait = if pidfd.is_some() {
            Duration::from_millis(200)
        } else {
            Duration::from_millis(5)
        };
        for t in [deadline.filter(|_| !out.timed_out), kill_at]
            .into_iter()
            .flatten()
        {
            wait = wait.min(t.saturating_duration_since(now));
        }
        for i in crate::run::child::poll::wait_readable(&streams, pidfd.as_ref(), wait) {
            read_stream(i, &mut streams, &mut out, false);
        }
    }
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
    out
}

/// Runs a helper command line (`--prepare`, `--setup`, `--cleanup`, builds) with `sh -c`,
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
            "sh".to_owned(),
            "-c".to_owned(),
            format!("exec 1>&2; {line}"),
        ],
        env: env.to_vec(),
        cwd,
        parse_stdout: false,
    };
    run_command(&spec, timeout, None, stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(
            split_words(r#"a 'b c' "d \"e\" \$f" g\ h '' x"y"z"#).unwrap(),
            vec!["a", "b c", "d \"e\" $f", "g h", "", "xyz"]
        );
        assert_eq!(split_words("  ").unwrap(), Vec::<String>::new());
        assert!(split_words("'open").is_err());
        assert!(split_words("\"open").is_err());
        assert!(split_words("x\\").is_err());
        assert_eq!(
            split_words("a;b $HOME *").unwrap(),
            vec!["a;b", "$HOME", "*"]
        );
    }

    #[test]
    fn placeholders_stay_one_argument() {
        let combo = vec![("x".to_owned(), "; rm -rf x".to_owned())];
        let argv = build_argv(&["prog".into()], "--v={x} {x} {} {{x}} {y}", &combo, false).unwrap();
        assert_eq!(
            argv,
            vec!["prog", "--v=; rm -rf x", "; rm -rf x", "{}", "{x}", "{y}"]
        );
        let sh = build_argv(&["my prog".into()], "-n {x}", &combo, true).unwrap();
        assert_eq!(sh[2], "'my prog' -n '; rm -rf x'");
        assert_eq!(placeholders("{a} {b} {a} {{c}} {}"), vec!["a", "b"]);
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn measures_a_real_child() {
        let stop = AtomicBool::new(false);
        let spec = Spec {
            argv: split_words(
                r#"sh -c 'echo "q size=3: 1,000"; echo {\"rate\":2,\"metrics\":{\"n\":4}}; echo oops >&2; exit 3'"#,
            )
            .unwrap(),
            parse_stdout: true,
            ..Spec::default()
        };
        let o = run_command(&spec, None, None, &stop);
        assert_eq!(o.status, Some(ExitStatus::Exited(3)));
        assert_eq!(o.results.len(), 2);
        assert_eq!(o.results[0].rate, 1000.0);
        assert_eq!(o.results[1].metrics[0].value, 4.0);
        assert_eq!(o.stderr_tail, vec!["oops"]);
        assert_eq!(o.error(None).as_deref(), Some("exit code 3"));
        let spec = Spec {
            argv: vec!["sleep".into(), "5".into()],
            ..Spec::default()
        };
        let o = run_command(&spec, Some(Duration::from_millis(100)), None, &stop);
        assert!(o.timed_out && o.wall_s < 2.0, "{o:?}");
        let spec = Spec {
            argv: vec!["/nonexistent/prog".into()],
            ..Spec::default()
        };
        assert!(run_command(&spec, None, None, &stop).spawn_error.is_some());
    }
}
