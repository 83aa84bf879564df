//! Renderers: turn verdict rows into text. Adding a format never touches the statistics.
//!
//! - [`compare_r`]: byte-identical to Node's `benchmark/compare.R`.
//! - [`table`]: the default terminal table for people.

pub mod compare_r;
pub mod table;
