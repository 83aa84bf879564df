//! Integration tests of the readers: every oracle and case input, limits, noisy files, round
//! trips, the bounded path. One test binary; each module is one former `tests/import_*.rs`.

#[path = "../common/mod.rs"]
mod common;

mod cases;
mod fuzz_regressions;
mod harnesses;
mod limits;
mod noise;
mod oracle;
mod roundtrip;
mod spill;
mod unbounded;
