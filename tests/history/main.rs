//! Integration tests of history: SQLite and PostgreSQL stores, the CLI, change points, the
//! dashboard. One test binary; each module is one former `tests/history_*.rs`.

#[path = "../common/mod.rs"]
mod common;
#[cfg(all(feature = "e2e", feature = "postgres"))]
#[path = "../history_support/mod.rs"]
mod history_support;

mod accuracy;
mod changepoint;
mod cli;
#[cfg(all(feature = "e2e", feature = "postgres"))]
mod concurrency;
mod control;
mod dashboard;
mod node;
mod record;
mod store;
