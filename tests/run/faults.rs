//! Fault injection for the runner, on real processes (issue 9): the results file on a full or
//! read-only filesystem, a child that floods stdout with 100 MB, a child whose grandchild keeps
//! stdout open, a grandchild that would outlive its parent, a child killed by SIGKILL, and
//! benchdiff itself killed at several points with `--resume` ending with every sample once.

// Second test tier (cargo feature `e2e`): these tests start real `node` processes.
#![cfg(feature = "e2e")]

use crate::common;

use common::*;
use predicates::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn chaos() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/chaos")
}

fn chaos_compare(dir: &Path, args: &[&str]) -> assert_cmd::Command {
    require_node();
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").expect("binary built");
    c.current_dir(dir)
        .args([
            "compare",
            "--old",
            "node",
            "--new",
            "node",
            "--benchmark-dir",
        ])
        .arg(chaos())
        .args(args);
    c
}

fn pid_alive(pid: i32) -> bool {
    // A zombie counts as dead: it has ended and only waits to be reaped.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn results_file_on_a_full_device_fails_before_the_first_job() {
    let dir = tempfile::tempdir().unwrap();
    chaos_compare(
        dir.path(),
        &[
            "--runs",
            "1",
            "--results",
            "/dev/full",
            "--csv",
            "out.csv",
            "chaos",
        ],
    )
    .timeout(Duration::from_secs(30))
    .assert()
    .code(2)
    .stderr(predicate::str::contains("/dev/full"));
    // Nothing ran: no CSV rows were written.
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap_or_default();
    assert!(
        csv.lines().count() <= 1,
        "jobs ran although results could not be written: {csv}"
    );
}

#[test]
fn results_file_on_a_read_only_filesystem_fails_before_the_first_job() {
    let dir = tempfile::tempdir().unwrap();
    // /proc is read-only for regular files, even for root.
    chaos_compare(
        dir.path(),
        &[
            "--runs",
            "1",
            "--results",
            "/proc/benchdiff-test/results.jsonl",
            "chaos",
        ],
    )
    .timeout(Duration::from_secs(30))
    .assert()
    .code(2)
    .stderr(predicate::str::contains("/proc/benchdiff-test"));
}

#[test]
fn csv_output_on_a_full_device_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    chaos_compare(
        dir.path(),
        &[
            "--runs",
            "1",
            "--results",
            "r.jsonl",
            "--csv",
            "/dev/full",
            "--filter",
            "ok",
            "chaos",
        ],
    )
    .timeout(Duration::from_secs(30))
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "CSV output /dev/full: No space left on device",
    ));
}

#[test]
fn a_child_flooding_stdout_is_drained_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    require_node();
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir.path())
        .args([
            "compare",
            "--old",
            "node",
            "--new",
            "node",
            "--runs",
            "1",
            "--benchmark-dir",
        ])
        .arg(chaos())
        .args([
            "--results",
            "r.jsonl",
            "--csv",
            "out.csv",
            "--filter",
            "flood",
            "chaos",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (status, rss_mb) = wait_with_peak_rss(child);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "status {status}"
    );
    eprintln!(
        "100 MB flood: benchdiff peak RSS {rss_mb:.1} MB, {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(
        rss_mb < 60.0,
        "benchdiff held the flood in memory: {rss_mb} MB"
    );
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
}

#[test]
fn a_grandchild_keeping_stdout_open_does_not_stall_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let start = Instant::now();
    chaos_compare(
        dir.path(),
        &[
            "--runs",
            "1",
            "--results",
            "r.jsonl",
            "--csv",
            "out.csv",
            "--filter",
            "keeps-stdout",
            "chaos",
        ],
    )
    .env("CHAOS_PIDFILE", &pidfile)
    .timeout(Duration::from_secs(50))
    .assert()
    .success();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "waited for the grandchild's pipes"
    );
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    // Tidy up a grandchild that may still hold the pipe (it was detached on purpose).
    if let Ok(p) = std::fs::read_to_string(&pidfile)
        && let Ok(pid) = p.trim().parse::<i32>()
    {
        // SAFETY: plain syscall on a pid this test's fixture started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

#[test]
fn a_grandchild_that_would_outlive_its_parent_is_ended_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    chaos_compare(
        dir.path(),
        &[
            "--runs",
            "1",
            "--timeout",
            "1",
            "--results",
            "r.jsonl",
            "--filter",
            "orphan",
            "--order",
            "node",
            "chaos",
        ],
    )
    .env("CHAOS_PIDFILE", &pidfile)
    .timeout(Duration::from_secs(40))
    .assert()
    .code(1)
    .stderr(predicate::str::contains("timed out"));
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let t = Instant::now();
    while pid_alive(pid) && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !pid_alive(pid),
        "grandchild {pid} outlived the timed-out job"
    );
}

#[test]
fn a_child_killed_by_sigkill_is_recorded_and_its_report_kept() {
    let dir = tempfile::tempdir().unwrap();
    chaos_compare(
        dir.path(),
        &[
            "--runs",
            "1",
            "--results",
            "r.jsonl",
            "--csv",
            "out.csv",
            "--filter",
            "sigkill",
            "--filter",
            "ok",
            "chaos",
        ],
    )
    .timeout(Duration::from_secs(30))
    .assert()
    .code(1)
    .stderr(predicate::str::contains("sigkill.js"));
    let recs = records(&dir.path().join("r.jsonl"));
    let jobs: Vec<_> = recs.iter().filter(|r| r["type"] == "job").collect();
    assert_eq!(jobs.len(), 4, "both files, both binaries");
    for j in &jobs {
        if j["file"] == "chaos/sigkill.js" {
            assert_eq!(j["signal"], 9, "{j}");
            assert_ne!(j["status"], "ok");
        } else {
            assert_eq!(j["status"], "ok", "{j}");
        }
    }
    // The sample the child sent before it was killed is kept in the CSV, as it arrived.
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert!(csv.contains("chaos/sigkill.js"), "{csv}");
}
