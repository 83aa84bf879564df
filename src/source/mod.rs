//! Sources: everything that produces samples.
//!
//! - [`node_csv`]: the CSV Node's `benchmark/compare.js` writes.
//! - [`runner`]: runs Node-format benchmark files under two binaries (`benchdiff compare`).

pub mod node_csv;
pub mod runner;
