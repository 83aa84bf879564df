//! Sources: everything that produces samples.
//!
//! - [`node_csv`]: the CSV Node's `benchmark/compare.js` writes.

pub mod node_csv;
