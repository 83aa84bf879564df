//! Ctrl-C and `kill` during a run: SIGINT/SIGTERM set [`INTERRUPTED`] (the `stop` flag every
//! driver and child supervisor polls) instead of killing benchdiff, so the running child is
//! ended cleanly, its job recorded, and the partial report printed. A second signal changes
//! nothing (GNU `timeout -s INT` sends two at once, and the report must still come out; the
//! guard stays installed while the report is written); a third exits at once with
//! [`EXIT_INTERRUPTED`] (the results file is complete up to the last job; the child dies with
//! benchdiff through `PR_SET_PDEATHSIG` or its process group).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Exit code after Ctrl-C (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Set by the first SIGINT/SIGTERM while a [`SignalGuard`] is installed.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// SIGINT/SIGTERM received since the guard was installed.
static SIGNALS: AtomicU32 = AtomicU32::new(0);

/// The signal that exits at once (the first stops the run, the second is absorbed).
const EXIT_ON_SIGNAL: u32 = 3;

/// stderr is a terminal (checked at install): the third signal then clears the progress line
/// before exiting, so no half-drawn bar is left on screen.
static STDERR_TTY: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_sig: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    if SIGNALS.fetch_add(1, Ordering::SeqCst) + 1 >= EXIT_ON_SIGNAL {
        if STDERR_TTY.load(Ordering::SeqCst) {
            const CLEAR: &[u8] = b"\r\x1b[2K";
            // SAFETY: write and _exit are async-signal-safe; CLEAR is static.
            unsafe { libc::write(2, CLEAR.as_ptr().cast(), CLEAR.len()) };
        }
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(EXIT_INTERRUPTED) };
    }
}

/// SIGINT/SIGTERM handlers for the duration of a run; the previous ones come back on drop.
pub struct SignalGuard {
    old: Vec<(libc::c_int, libc::sigaction)>,
}

impl SignalGuard {
    /// Clears [`INTERRUPTED`] and installs the handlers (without `SA_RESTART`, so a blocked
    /// `poll(2)` returns `EINTR` at once). Keep the guard until the partial report is written.
    pub fn install() -> SignalGuard {
        INTERRUPTED.store(false, Ordering::SeqCst);
        SIGNALS.store(0, Ordering::SeqCst);
        // SAFETY: isatty only inspects descriptor 2.
        STDERR_TTY.store(unsafe { libc::isatty(2) } == 1, Ordering::SeqCst);
        let mut old = Vec::new();
        for sig in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: sigaction structs are plain C data; zeroed is a valid initial value, and
            // the handler only touches an atomic (async-signal-safe).
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                libc::sigemptyset(&mut sa.sa_mask);
                sa.sa_flags = 0;
                let mut prev: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &sa, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
        SignalGuard { old }
    }
}

impl std::fmt::Debug for SignalGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignalGuard")
            .field("signals", &self.old.len())
            .finish()
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: restores an action previously returned by sigaction.
            unsafe {
                libc::sigaction(*sig, prev, std::ptr::null_mut());
            }
        }
    }
}
