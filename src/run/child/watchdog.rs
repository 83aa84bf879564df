//! Nothing of a run outlives benchdiff, not even after `kill -9`.
//!
//! Every benchmark child runs in a process group of its own ([`super::process`]), and its
//! descendants (the worker Node's `common.js` forks per configuration, a `sleep` a command
//! forks) stay in that group. While benchdiff lives, timeouts, interrupts and the end of each
//! job `killpg` the whole group. `SIGKILL` on benchdiff can be caught by nobody in benchdiff,
//! and `PR_SET_PDEATHSIG` only reaches the direct child: a grandchild would be re-parented to
//! init and keep running (forever, for a hanging benchmark).
//!
//! **Mechanism.** The first time a child is started, benchdiff maps a small table of process
//! group ids shared with a watchdog process (`mmap(MAP_SHARED | MAP_ANONYMOUS)`, [`MAX_GROUPS`]
//! 32-bit slots) and forks the watchdog (no `exec`: it runs only async-signal-safe system calls,
//! so forking from a multi-threaded benchdiff is safe). Benchdiff keeps the write end of a pipe
//! (close-on-exec, so no child inherits it); the watchdog holds only the read end, closes every
//! other descriptor, ignores `SIGINT`/`SIGTERM`/`SIGHUP` (Ctrl-C is benchdiff's to handle) and
//! blocks in `read(2)`. Benchdiff stores each child's process-group id in a free slot right
//! after spawning it and clears the slot once the group has been killed and its leader reaped
//! (so a reused id is never signalled); both are plain atomic stores in shared memory, so a
//! run costs the watchdog no wake-up at all (an earlier version wrote each id to the pipe:
//! two extra context switches per run, a measurable part of the per-run overhead of
//! `compare --bench` on a trivial command). When benchdiff dies — however it dies — the
//! kernel closes the write end, `read` returns 0, and the watchdog sends `SIGKILL` to every
//! group still in the table, then exits. The direct child also gets `PR_SET_PDEATHSIG` where
//! it is started with a `pre_exec` hook.
//!
//! Limits: a descendant that leaves the group on purpose (`setsid`, `setpgid`) is not
//! followed; a child started in the microseconds between its spawn and the registration is
//! only covered by `PR_SET_PDEATHSIG`. cgroup v2 `cgroup.kill` would follow everything but
//! needs a delegated v2 hierarchy, which benchdiff cannot count on (this machine, for one, has
//! the hybrid v1 layout).

use std::os::fd::RawFd;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

/// Most process groups the watchdog tracks at once (benchdiff runs one child at a time).
pub const MAX_GROUPS: usize = 256;

/// The watchdog once started: benchdiff's write end of the pipe (kept open for the life of
/// benchdiff) and the shared table; `None` when it could not be started.
struct Watchdog {
    write_end: RawFd,
    table: &'static [AtomicI32; MAX_GROUPS],
    pid: libc::pid_t,
}

static WATCHDOG: Mutex<Option<Option<Watchdog>>> = Mutex::new(None);

/// Registers a new child process group with the watchdog (starting it on first use). Best
/// effort: without a watchdog (or with [`MAX_GROUPS`] groups alive) the run goes on, covered
/// by `PR_SET_PDEATHSIG` only.
pub fn register(pgid: libc::pid_t) {
    let Ok(mut g) = WATCHDOG.lock() else { return };
    if let Some(w) = g.get_or_insert_with(start)
        && let Some(slot) = w.table.iter().find(|s| s.load(Ordering::Relaxed) == 0)
    {
        slot.store(pgid, Ordering::SeqCst);
    }
}

/// Tells the watchdog the group is gone (killed and its leader reaped).
pub fn forget(pgid: libc::pid_t) {
    let Ok(g) = WATCHDOG.lock() else { return };
    if let Some(Some(w)) = g.as_ref()
        && let Some(slot) = w.table.iter().find(|s| s.load(Ordering::Relaxed) == pgid)
    {
        slot.store(0, Ordering::SeqCst);
    }
}

/// Maps the shared table and forks the watchdog.
fn start() -> Option<Watchdog> {
    let size = std::mem::size_of::<[AtomicI32; MAX_GROUPS]>();
    // SAFETY: a fresh anonymous shared mapping, zero-filled by the kernel; never unmapped.
    let mem = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if mem == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: the mapping is page-aligned, zeroed (all slots 0) and lives as long as the
    // process; AtomicI32 has the layout of i32.
    let table: &'static [AtomicI32; MAX_GROUPS] = unsafe { &*mem.cast() };
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills a two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    let (read_end, write_end) = (fds[0], fds[1]);
    // SAFETY: the child only makes async-signal-safe system calls and reads the shared table,
    // then ends in `_exit`; it touches no lock and allocates nothing.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: see above.
        unsafe { watchdog_main(read_end, table) }
    }
    // SAFETY: closing our copy of the read end.
    unsafe { libc::close(read_end) };
    if pid < 0 {
        // SAFETY: closing the write end we own.
        unsafe { libc::close(write_end) };
        return None;
    }
    Some(Watchdog {
        write_end,
        table,
        pid,
    })
}

/// Ends the watchdog as benchdiff's death would (it kills any group still registered) and
/// waits up to a second for it to exit, so that nothing of the run is left when benchdiff
/// exits normally (without this, the watchdog ends a moment after benchdiff). A later child
/// starts a new watchdog.
pub fn shutdown() {
    let Ok(mut g) = WATCHDOG.lock() else { return };
    let Some(Some(w)) = g.take() else { return };
    // SAFETY: closing the write end we own; the watchdog then reads end-of-file.
    unsafe { libc::close(w.write_end) };
    for _ in 0..10_000 {
        let mut status = 0;
        // SAFETY: waiting for our own child, the watchdog; status is writable.
        let rc = unsafe { libc::waitpid(w.pid, &mut status, libc::WNOHANG) };
        if rc != 0 {
            return; // reaped, or not ours to wait for
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
}

/// The watchdog process (see the module notes). Never returns.
///
/// # Safety
/// Only to be called in a freshly forked child.
unsafe fn watchdog_main(read_end: RawFd, table: &[AtomicI32; MAX_GROUPS]) -> ! {
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
        // Nothing is ever written: read returns 0 when benchdiff is gone.
        let mut buf = [0u8; 64];
        loop {
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            if n <= 0 {
                break;
            }
        }
        for slot in table {
            let g = slot.load(Ordering::SeqCst);
            if g > 0 {
                libc::killpg(g, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }
}
