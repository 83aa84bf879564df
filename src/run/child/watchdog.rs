//! Nothing of a run outlives benchdiff, not even after `kill -9`.
//!
//! Every benchmark child runs in a process group of its own ([`super::process`]), and its
//! descendants (the worker Node's `common.js` forks per configuration, a `sleep` a command
//! forks) stay in that group. While benchdiff lives, timeouts, interrupts and the end of each
//! job `killpg` the whole group. `SIGKILL` on benchdiff can be caught by nobody in benchdiff,
//! and `PR_SET_PDEATHSIG` only reaches the direct child: a grandchild would be re-parented to
//! init and keep running (forever, for a hanging benchmark).
//!
//! **Mechanism.** The first time a child is started, benchdiff forks a small watchdog process
//! (no `exec`: it runs only async-signal-safe system calls on stack memory, so forking from a
//! multi-threaded benchdiff is safe). Benchdiff keeps the write end of a pipe (close-on-exec,
//! so no child inherits it); the watchdog holds only the read end, closes every other
//! descriptor, ignores `SIGINT`/`SIGTERM`/`SIGHUP` (Ctrl-C is benchdiff's to handle) and
//! blocks in `read(2)`. Benchdiff writes each child's process-group id to the pipe right
//! after spawning it (`+pgid`, one 4-byte message, atomic under `PIPE_BUF`) and `-pgid` once
//! the group has been killed and its leader reaped (so a reused id is never signalled). When
//! benchdiff dies — however it dies — the kernel closes the write end, `read` returns 0, and
//! the watchdog sends `SIGKILL` to every group still registered, then exits. The direct child
//! also gets `PR_SET_PDEATHSIG` where it is started with a `pre_exec` hook.
//!
//! Limits: a descendant that leaves the group on purpose (`setsid`, `setpgid`) is not
//! followed; a child started in the microseconds between its spawn and the registration is
//! only covered by `PR_SET_PDEATHSIG`. cgroup v2 `cgroup.kill` would follow everything but
//! needs a delegated v2 hierarchy, which benchdiff cannot count on (this machine, for one, has
//! the hybrid v1 layout).

use std::os::fd::RawFd;
use std::sync::Mutex;

/// Most process groups the watchdog tracks at once (benchdiff runs one child at a time).
pub const MAX_GROUPS: usize = 256;

/// The write end of the pipe, once the watchdog runs; `None` when it could not be started.
static WATCHDOG: Mutex<Option<Option<RawFd>>> = Mutex::new(None);

/// Registers a new child process group with the watchdog (starting it on first use). Best
/// effort: without a watchdog the run goes on, covered by `PR_SET_PDEATHSIG` only.
pub fn register(pgid: libc::pid_t) {
    send(pgid);
}

/// Tells the watchdog the group is gone (killed and its leader reaped).
pub fn forget(pgid: libc::pid_t) {
    send(-pgid);
}

fn send(msg: libc::pid_t) {
    let Ok(mut g) = WATCHDOG.lock() else { return };
    let fd = *g.get_or_insert_with(start);
    if let Some(fd) = fd {
        let bytes = msg.to_ne_bytes();
        loop {
            // SAFETY: writes 4 bytes from a live buffer to our own descriptor.
            let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
            if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
    }
}

/// Forks the watchdog; returns benchdiff's write end.
fn start() -> Option<RawFd> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills a two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    let (read_end, write_end) = (fds[0], fds[1]);
    // SAFETY: the child only makes async-signal-safe system calls on stack data and ends in
    // `_exit`; it touches no lock and allocates nothing.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: see above.
        unsafe { watchdog_main(read_end) }
    }
    // SAFETY: closing our copy of the read end.
    unsafe { libc::close(read_end) };
    if pid < 0 {
        // SAFETY: closing the write end we own.
        unsafe { libc::close(write_end) };
        return None;
    }
    Some(write_end)
}

/// The watchdog process (see the module notes). Never returns.
///
/// # Safety
/// Only to be called in a freshly forked child.
unsafe fn watchdog_main(read_end: RawFd) -> ! {
    // SAFETY: all calls below are async-signal-safe and act on this process only.
    unsafe {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
        // Keep nothing of benchdiff's open (its stdout pipe, results file, the write end).
        let fd = if read_end == 0 {
            0
        } else {
            let r = libc::dup2(read_end, 0);
            if r != 0 {
                libc::_exit(0)
            }
            0
        };
        if libc::syscall(libc::SYS_close_range, 1u32, u32::MAX, 0u32) != 0 {
            for f in 1..4096 {
                libc::close(f);
            }
        }
        let mut groups = [0 as libc::pid_t; MAX_GROUPS];
        let mut buf = [0u8; 4];
        let mut have = 0usize;
        loop {
            let n = libc::read(fd, buf.as_mut_ptr().add(have).cast(), 4 - have);
            if n < 0 {
                if *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                break;
            }
            if n == 0 {
                break;
            }
            have += n as usize;
            if have < 4 {
                continue;
            }
            have = 0;
            let msg = libc::pid_t::from_ne_bytes(buf);
            if msg > 0 {
                if let Some(slot) = groups.iter_mut().find(|g| **g == 0) {
                    *slot = msg;
                }
            } else if msg < 0
                && let Some(slot) = groups.iter_mut().find(|g| **g == -msg)
            {
                *slot = 0;
            }
        }
        for g in groups {
            if g > 0 {
                libc::killpg(g, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }
}
