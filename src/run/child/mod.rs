//! Child processes: spawn, supervise, reap and measure one benchmark child.

pub mod command;
pub mod node;
pub mod poll;
pub mod rusage;
