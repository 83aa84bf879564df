//! Integration tests of every report format: compare.R byte-identity, snapshots, HTML, widths,
//! colour, round trips. One test binary; each module is one former `tests/report_*.rs`.

#[path = "../common/mod.rs"]
mod common;

mod benchstat;
mod cli;
mod colour;
mod columns;
mod control;
mod counters;
mod details;
mod failures;
mod formats;
mod hints_and_notes;
mod html;
mod html_plots;
mod hyperfine_parameters;
mod inputs;
mod plot_png;
mod regimes;
mod roundtrip;
mod summary_stats;
mod width;
