//! Statistics: pure math over slices of sample values, no I/O.
//!
//! - [`tdist`]: Student's t CDF and quantile (R's `pt`/`qt`).
//! - [`welch`]: Welch's t-test and compare.R's improvement/accuracy figures.

pub mod tdist;
pub mod welch;
