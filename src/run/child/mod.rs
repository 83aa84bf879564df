//! Child processes: spawn, supervise, reap and measure one benchmark child.
//!
//! [`process`] is the one spawn/supervise/reap path (process group, non-blocking pipes,
//! pidfd, timeout and interrupt handling, `wait4` usage); [`node`] (Node files: IPC channel on
//! fd 3 and stdout result lines) and [`command`] (command benchmarks: result lines, whole-process
//! timing) are adapters that interpret the lines it hands them. [`watchdog`] makes sure no
//! process of a run outlives benchdiff, even after `kill -9`.

pub mod command;
pub mod counters;
pub mod node;
pub mod poll;
pub mod process;
pub mod rusage;
pub mod spawn;
pub mod watchdog;
