//! benchdiff: did this change make the program faster or slower, for real, or is it noise?
//!
//! Data flows one way, one folder per stage (see ARCHITECTURE.md):
//! sources — [`format`] (every file and wire format, read and write) and [`run`] (the runner:
//! plans, schedule, child processes) — produce [`sample`]s (the one data model) →
//! [`compare`] (grouping into old-vs-new comparisons) → [`stats`] (pure math) →
//! [`verdict`] (decision rules) → [`render`] (every text, HTML and plot output).
//! [`cli`] wires command-line options to these steps. [`lines`] is the capped line reader
//! and [`error`] the positioned diagnostics every reader reports. [`history`] keeps samples over
//! many commits in a database and finds change points.

#![warn(missing_docs)]

pub mod cli;
pub mod compare;
pub mod error;
pub mod format;
pub mod history;
pub mod lines;
pub mod output;
pub mod render;
pub mod report;
pub mod run;
pub mod sample;
pub mod stats;
pub mod verdict;
