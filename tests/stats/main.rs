//! Integration tests of the statistics: R reference vectors, properties, seeded simulations.
//! One test binary; each module is one former `tests/stats_*.rs`.

mod adaptive_simulation;
mod cases;
mod control_simulation;
mod dip;
mod honest;
mod meta;
mod meta_simulation;
mod properties;
mod reference;
mod regime_samples;
mod regimes_simulation;
mod sequential_simulation;
mod verdict_simulation;
mod welch_vectors;
