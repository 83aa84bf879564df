//! Sources: everything that produces samples.
//!
//! - [`import`]: the registry of every format benchdiff reads (Go benchmark format, hyperfine,
//!   Google Benchmark, libtest, criterion, pytest-benchmark, run.js CSV, results JSON Lines).
//! - [`node_csv`]: the CSV Node's `benchmark/compare.js` writes.
//! - [`runner`]: runs Node-format benchmark files under two binaries (`benchdiff compare`).

pub mod import;
pub mod node_csv;
pub mod runner;
