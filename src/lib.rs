//! benchdiff: did this change make the program faster or slower, for real, or is it noise?
//!
//! Data flows one way, one module per step:
//! [`source`] (importers, later the runner) → [`sample`] (the one data model) →
//! [`compare`] (grouping into old-vs-new comparisons) → [`stats`] (pure math) →
//! [`verdict`] (decision rules: stars, later corrections and verdicts) → [`render`] (text).
//! [`cli`] wires command-line options to these steps.

#![warn(missing_docs)]

pub mod cli;
pub mod compare;
pub mod error;
pub mod render;
pub mod sample;
pub mod source;
pub mod stats;
pub mod verdict;
