//! Waiting on a child's pipes and its pidfd at once: the `poll(2)` step of
//! [`crate::run::child::process`].

use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

/// Waits up to `wait` (clamped to 1 ms ..= 1 s) until any open stream in `streams` is
/// readable (or hung up), or the child behind `pidfd` exits. Returns the indices into
/// `streams` that have an event, in order, and whether `pidfd` is readable (the child has
/// exited: `pidfd_open(2)`); nothing on a timeout or an interrupted wait (the caller then
/// re-checks its deadlines and whether the child exited).
pub fn wait_readable<T>(
    streams: &[(T, Option<&File>)],
    pidfd: Option<&OwnedFd>,
    wait: Duration,
) -> (Vec<usize>, bool) {
    let mut pfds: Vec<libc::pollfd> = Vec::with_capacity(streams.len() + 1);
    let mut which: Vec<usize> = Vec::with_capacity(streams.len());
    for (i, (_, f)) in streams.iter().enumerate() {
        if let Some(f) = f {
            pfds.push(libc::pollfd {
                fd: f.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
            which.push(i);
        }
    }
    if let Some(p) = pidfd {
        pfds.push(libc::pollfd {
            fd: p.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
    }
    let ms = wait.as_millis().clamp(1, 1000) as libc::c_int;
    // SAFETY: pfds is a valid array of pollfd of the given length.
    let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, ms) };
    if n <= 0 {
        return (Vec::new(), false);
    }
    let exited = pidfd.is_some() && pfds.last().is_some_and(|p| p.revents != 0);
    let ready = which
        .iter()
        .enumerate()
        .filter(|(slot, _)| pfds[*slot].revents != 0)
        .map(|(_, &i)| i)
        .collect();
    (ready, exited)
}
