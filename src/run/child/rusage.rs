//! Reaping a child with `wait4(2)` to get its resource usage (rust-crates.md §4): user and
//! system CPU seconds and peak resident set size, covering the descendants it waited for.
//! Linux reports `ru_maxrss` in KiB; [`Usage::max_rss_bytes`] is in bytes.

use std::io;

/// How a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it (signal number).
    Signaled(i32),
}

impl ExitStatus {
    /// Decodes a raw `wait` status.
    pub fn from_raw(status: libc::c_int) -> ExitStatus {
        if libc::WIFSIGNALED(status) {
            ExitStatus::Signaled(libc::WTERMSIG(status))
        } else {
            ExitStatus::Exited(libc::WEXITSTATUS(status))
        }
    }

    /// True for exit code 0.
    pub fn success(self) -> bool {
        self == ExitStatus::Exited(0)
    }
}

/// Resource usage of one reaped child.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    /// User CPU time in seconds (child and the descendants it waited for).
    pub user_s: f64,
    /// System CPU time in seconds.
    pub sys_s: f64,
    /// Peak resident set size of the largest process in that tree, in bytes.
    pub max_rss_bytes: u64,
}

/// Waits for child `pid` to end (retrying on `EINTR`) and reaps it.
///
/// # Errors
/// The `wait4` error (e.g. `ECHILD` when `pid` is not an unreaped child of this process).
pub fn wait4(pid: libc::pid_t) -> io::Result<(ExitStatus, Usage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: status and ru are valid, writable, and live for the call.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if rc == pid {
            break;
        }
        let e = io::Error::last_os_error();
        if rc == -1 && e.kind() == io::ErrorKind::Interrupted {
            continue;
        }
        return Err(e);
    }
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    Ok((
        ExitStatus::from_raw(status),
        Usage {
            user_s: secs(ru.ru_utime),
            sys_s: secs(ru.ru_stime),
            max_rss_bytes: u64::try_from(ru.ru_maxrss).unwrap_or(0) * 1024,
        },
    ))
}

/// True when child `pid` has ended, **without** reaping it (`waitid` with `WNOWAIT`), so its
/// process-group id stays reserved until [`wait4`] and the group can still be signalled safely.
///
/// # Errors
/// The `waitid` error.
pub fn has_exited(pid: libc::pid_t) -> io::Result<bool> {
    // SAFETY: an all-zero siginfo_t is valid; waitid fills it.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: info is valid and writable; pid is our child.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            // SAFETY: waitid succeeded, so si_pid is initialised (0 when nothing changed).
            return Ok(unsafe { info.si_pid() } != 0);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    #[allow(clippy::zombie_processes)] // reaped by our wait4, not Child::wait
    fn reaps_with_usage() {
        let child = Command::new("sh")
            .args(["-c", "exit 3"])
            .spawn()
            .expect("sh runs");
        let pid = child.id() as libc::pid_t;
        let (st, usage) = wait4(pid).expect("wait4");
        assert_eq!(st, ExitStatus::Exited(3));
        assert!(usage.max_rss_bytes > 0);
        let child = Command::new("sh")
            .args(["-c", "kill -9 $$"])
            .spawn()
            .expect("sh runs");
        let pid = child.id() as libc::pid_t;
        while !has_exited(pid).expect("waitid") {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let (st, _) = wait4(pid).expect("wait4");
        assert_eq!(st, ExitStatus::Signaled(9));
    }
}
