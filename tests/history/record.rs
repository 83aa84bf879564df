//! `compare --history URL` and `run --history URL`: a real run stores its samples in the
//! history database as it ends (SQLite file and a real PostgreSQL server started by the
//! test), a later `history add` of the same results file is a no-op, a bad URL is refused
//! before anything runs, and `history show` sees the stored series.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use crate::common;
#[cfg(all(feature = "e2e", feature = "postgres"))]
use crate::history_support;

use assert_cmd::Command;
use std::path::Path;

fn bd() -> Command {
    Command::cargo_bin("benchdiff").expect("binary")
}

fn out(o: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn record_round_trip(db: &str, dir: &Path) {
    let results = dir.join("cmp.results.jsonl");
    // A real command benchmark: two "builds" (the same program), 3 runs a side.
    let o = bd()
        .current_dir(dir)
        .args([
            "compare",
            "--old",
            "true",
            "--new",
            "true",
            "--bench",
            "x{n}",
            "-L",
            "n=1,2",
            "--runs",
            "3",
            "--no-progress",
            "--format",
            "json",
            "--history",
            db,
            "--history-commit",
            "c1",
            "--history-branch",
            "main",
            "--csv",
            "cmp.csv",
            "--results",
        ])
        .arg(&results)
        .output()
        .expect("runs");
    let (stdout, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    // stdout stays the report alone (JSON parses); the storing is said on stderr.
    serde_json::from_str::<serde_json::Value>(&stdout).expect("stdout is the JSON report");
    assert!(
        stderr.contains("benchdiff: history: ") && stderr.contains("under c1"),
        "{stderr}"
    );
    // 2 configurations × 2 sides × 3 runs, with the runner's metrics (wall, user, sys, rss…).
    let show = bd()
        .args([
            "history", "show", "--db", db, "--metric", "wall", "--side", "old",
        ])
        .output()
        .expect("show");
    let (show_out, show_err) = out(&show);
    assert!(show.status.success(), "{show_err}");
    assert!(show_out.contains("true n=1"), "{show_out}");
    assert!(show_out.contains("1 commits, 3 samples"), "{show_out}");

    // The same results file added by hand: recognised by content hash, nothing doubled.
    let again = bd()
        .args(["history", "add", "--db", db, "--commit", "c1"])
        .arg(&results)
        .output()
        .expect("add");
    let (a_out, a_err) = out(&again);
    assert!(again.status.success(), "{a_err}");
    assert!(a_out.contains("already stored"), "{a_out}");

    // `run --history` without --results: stored from a temporary results file.
    let r = bd()
        .current_dir(dir)
        .args([
            "run",
            "--bin",
            "true",
            "--bench",
            "y{n}",
            "-L",
            "n=7",
            "--runs",
            "2",
            "--history",
            db,
            "--history-commit",
            "c2",
        ])
        .output()
        .expect("run");
    let (_, r_err) = out(&r);
    assert!(r.status.success(), "{r_err}");
    assert!(
        r_err.contains("stored") && r_err.contains("under c2"),
        "{r_err}"
    );
    let show = bd()
        .args([
            "history",
            "show",
            "--db",
            db,
            "--metric",
            "wall",
            "--benchmark",
            "n=7",
        ])
        .output()
        .expect("show");
    let (show_out, _) = out(&show);
    assert!(show_out.contains("true n=7"), "{show_out}");
    assert!(show_out.contains("1 commits, 2 samples"), "{show_out}");
}

#[test]
fn compare_and_run_store_into_sqlite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("hist/history.db");
    record_round_trip(db.to_str().expect("path"), dir.path());
}

#[cfg(all(feature = "e2e", feature = "postgres"))]
#[test]
fn compare_and_run_store_into_postgres() {
    let server = history_support::PgServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record_round_trip(&server.fresh_db(), dir.path());
}

/// A database that cannot be opened is refused before any job runs (exit 2, no results file).
#[test]
fn bad_history_url_is_refused_before_running() {
    let dir = tempfile::tempdir().expect("tempdir");
    let results = dir.path().join("r.jsonl");
    let o = bd()
        .current_dir(dir.path())
        .args([
            "compare",
            "--old",
            "true",
            "--new",
            "true",
            "--bench",
            "x",
            "--runs",
            "2",
            "--no-progress",
            "--history",
            "postgres://nobody@127.0.0.1:1/none",
            "--history-commit",
            "c1",
            "--results",
        ])
        .arg(&results)
        .output()
        .expect("runs");
    let (_, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--history postgres://"), "{stderr}");
    assert!(!results.exists(), "nothing ran");
}

/// A Node-file run (real `node`) with `--history`: its samples (rate, per configuration) are
/// stored under the commit, both sides.
#[cfg(feature = "e2e")]
#[test]
fn node_compare_stores_into_sqlite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("h.db");
    let o = common::compare(
        dir.path(),
        &[
            "--runs",
            "2",
            "--seed",
            "7",
            "--no-progress",
            "--csv",
            "out.csv",
            "--history",
            db.to_str().expect("path"),
            "--history-commit",
            "v1",
            "ipc",
        ],
    )
    .output()
    .expect("runs");
    let (_, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("results.jsonl: stored"), "{stderr}");
    let conn = rusqlite::Connection::open(&db).expect("open");
    let (n, sides): (i64, i64) = conn
        .query_row(
            "SELECT COUNT(*), COUNT(DISTINCT side) FROM samples",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("count");
    assert!(n >= 4, "{n} samples");
    assert_eq!(sides, 2);
}
