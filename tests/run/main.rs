//! Integration tests of the runner: `node` and command children, faults, resume, outputs,
//! shards, Slurm. One test binary; each module is one former `tests/run_*.rs`.

#[path = "../common/mod.rs"]
mod common;

mod adaptive;
mod calibrate;
mod case20_hang_after_report;
mod child;
mod cluster_examples;
mod commands;
mod control;
mod counters;
mod faults;
mod job_metrics;
mod node;
mod orphans;
mod outputs;
mod results_golden;
mod resume;
mod sequential;
mod sequential_replay;
mod shard;
mod slurm;
mod unbounded;
mod unused_samples;
mod usage;
