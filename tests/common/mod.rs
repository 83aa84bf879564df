//! Helpers shared by the test files (`tests/run_*.rs` and others). They start real `node` processes:
//! a missing `node` is a test failure, never a skip.

#![allow(dead_code)]

pub mod bounded;
pub mod chromium;
pub mod slurm;

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

/// The fixture benchmark folder.
pub fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite")
}

/// The example suite's benchmark folder.
pub fn example_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/node-suite/benchmark")
}

/// Panics loudly unless `node` runs from PATH; returns its version.
pub fn require_node() -> String {
    match StdCommand::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        Ok(o) => panic!(
            "these tests need `node` on PATH; `node --version` failed: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("these tests need `node` on PATH (not found: {e})"),
    }
}

/// `benchdiff compare --old node --new node --benchmark-dir <suite>` plus `args`, with the
/// results file in `dir`.
pub fn compare(dir: &Path, args: &[&str]) -> assert_cmd::Command {
    require_node();
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").expect("binary built");
    c.current_dir(dir)
        .env_remove("NO_COLOR")
        .args([
            "compare",
            "--old",
            "node",
            "--new",
            "node",
            "--benchmark-dir",
        ])
        .arg(suite())
        .args(["--results", "results.jsonl"])
        .args(args);
    c
}

/// The records of a results file, parsed.
pub fn records(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

/// The `job` records of a results file.
pub fn jobs(path: &Path) -> Vec<serde_json::Value> {
    records(path)
        .into_iter()
        .filter(|r| r["type"] == "job")
        .collect()
}

/// CSV data rows (after the header) as (binary, filename, configuration, rate, time) strings.
pub fn csv_rows(text: &str) -> Vec<[String; 5]> {
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\""),
        "CSV header"
    );
    lines
        .map(|l| {
            // "a","b","c",rate,time — the configuration may hold doubled quotes.
            let (quoted, rest) = l.rsplit_once("\",").expect("quoted fields");
            let mut nums = rest.split(',');
            let rate = nums.next().expect("rate").to_owned();
            let time = nums.next().expect("time").to_owned();
            let inner = quoted.strip_prefix('"').expect("leading quote");
            let mut parts = inner.splitn(3, "\",\"");
            let b = parts.next().expect("binary").to_owned();
            let f = parts.next().expect("filename").to_owned();
            let c = parts.next().expect("configuration").replace("\"\"", "\"");
            [b, f, c, rate, time]
        })
        .collect()
}

/// Waits for `child` with `wait4`: its raw wait status and its peak RSS in MB (the kernel's
/// `ru_maxrss`, KiB, / 1024).
pub fn wait_with_peak_rss(child: std::process::Child) -> (i32, f64) {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data filled by the kernel for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid);
    std::mem::forget(child); // reaped above
    (status, ru.ru_maxrss as f64 / 1024.0)
}

/// A run killed after `keep` jobs: the results file as it was at that moment (records are
/// written in order, each as its job ends).
pub fn cut_after_jobs(full: &str, keep: usize) -> String {
    let mut out = String::new();
    let mut jobs = 0;
    for l in full.lines() {
        if l.contains("\"type\":\"job\"") {
            if jobs == keep {
                break;
            }
            jobs += 1;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}
