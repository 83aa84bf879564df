//! Interrupting and resuming `benchdiff compare` on real `node` processes: kill -9 mid-run
//! (once, and at several seeded points) followed by `--resume` ends with every sample exactly
//! once; Ctrl-C (SIGINT) stops, keeps the finished samples, prints the partial report and exits
//! 130; a command run's results file is refused by `--resume` with a pointer to `report`.
//! (Resuming an adaptive run: `tests/run_adaptive.rs`; `--resume` keeping the run's CSV:
//! `tests/run_outputs.rs`.)

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use crate::common;

use common::*;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn ok_jobs(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| {
            t.lines()
                .filter(|l| l.contains("\"status\":\"ok\""))
                .count()
        })
        .unwrap_or(0)
}

fn start_slow_run(dir: &Path, extra: &[&str]) -> std::process::Child {
    require_node();
    Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir)
        .args(["compare", "--old", "node", "--new", "node", "--runs", "3"])
        .arg("--benchmark-dir")
        .arg(suite())
        .args(["--results", "results.jsonl"])
        .args(extra)
        .arg("slow")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("benchdiff starts")
}

fn wait_for_jobs(path: &Path, n: usize, child: &mut std::process::Child) {
    let t = Instant::now();
    while ok_jobs(path) < n {
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "benchdiff ended before {n} jobs were done"
        );
        assert!(t.elapsed() < Duration::from_secs(30), "jobs too slow");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(feature = "e2e")]
#[test]
fn kill_9_then_resume_has_every_sample_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.jsonl");
    // 3 files x 3 runs x 2 binaries = 18 jobs of ~0.2 s, 2 samples each.
    let mut child = start_slow_run(dir.path(), &["--csv", "first.csv"]);
    wait_for_jobs(&results, 5, &mut child);
    child.kill().expect("SIGKILL"); // kill -9: no cleanup at all
    child.wait().expect("reaped");
    let before = ok_jobs(&results);
    assert!(
        (5..18).contains(&before),
        "killed mid-run ({before} jobs done)"
    );

    let mut c = assert_cmd::Command::cargo_bin("benchdiff").unwrap();
    c.current_dir(dir.path())
        .args([
            "compare",
            "--resume",
            "results.jsonl",
            "--csv",
            "resumed.csv",
        ])
        .assert()
        .success()
        .stderr(predicates::str::contains(format!(
            "resuming: {before} done, {} to run",
            18 - before
        )));

    // Results: every (file, side, run) has exactly one ok record.
    let recs = records(&results);
    assert_eq!(recs.iter().filter(|r| r["type"] == "run").count(), 1);
    assert_eq!(recs.iter().filter(|r| r["type"] == "resume").count(), 1);
    let mut keys = HashSet::new();
    let mut samples = 0;
    for j in recs
        .iter()
        .filter(|r| r["type"] == "job" && r["status"] == "ok")
    {
        let key = (
            j["file"].as_str().unwrap().to_owned(),
            j["side"].as_str().unwrap().to_owned(),
            j["run"].as_u64().unwrap(),
        );
        assert!(keys.insert(key.clone()), "job {key:?} recorded twice");
        samples += j["samples"].as_array().unwrap().len();
    }
    assert_eq!(keys.len(), 18);
    assert_eq!(samples, 36);

    // The resumed CSV holds every sample once: 3 per (binary, file, configuration).
    let csv = std::fs::read_to_string(dir.path().join("resumed.csv")).unwrap();
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 36);
    let mut per: HashMap<(String, String, String), usize> = HashMap::new();
    let mut rates = HashSet::new();
    for [b, f, c, rate, _] in rows {
        *per.entry((b, f, c)).or_default() += 1;
        assert!(rates.insert(rate.clone()), "sample {rate} appears twice");
    }
    assert_eq!(per.len(), 12);
    assert!(per.values().all(|&n| n == 3), "{per:?}");
}

#[cfg(feature = "e2e")]
#[test]
fn ctrl_c_stops_and_prints_the_partial_report() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.jsonl");
    let mut child = start_slow_run(dir.path(), &["--csv", "out.csv", "--format", "r"]);
    wait_for_jobs(&results, 8, &mut child);
    // SAFETY: plain kill(2) on our own child's pid.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(rc, 0);
    let out = child.wait_with_output().expect("benchdiff ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "stderr: {stderr}");
    assert!(stderr.contains("interrupted after"), "{stderr}");
    assert!(stderr.contains("--resume results.jsonl"), "{stderr}");
    assert!(stdout.contains("slow/s"), "partial report: {stdout}");
    let done = ok_jobs(&results);
    assert!(done < 18, "stopped early ({done} jobs)");
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    // Every finished job's samples are in the CSV (the interrupted one may add a partial job's).
    assert!(csv_rows(&csv).len() >= 2 * done);
}

/// benchdiff is killed with SIGKILL at several points (seeded delays), resumed each time, and
/// the final results hold every (file, binary, run) job exactly once.
#[cfg(feature = "e2e")]
#[test]
fn killed_at_several_points_resume_keeps_every_sample_exactly_once() {
    require_node();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.jsonl");
    let spawn = |resume: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_benchdiff"));
        c.current_dir(dir.path());
        if resume {
            c.args(["compare", "--resume", "results.jsonl"]);
        } else {
            c.args([
                "compare",
                "--old",
                "node",
                "--new",
                "node",
                "--runs",
                "3",
                "--benchmark-dir",
            ])
            .arg(suite())
            .args(["--results", "results.jsonl", "slow"]);
        }
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c.spawn().expect("benchdiff starts")
    };
    // Delays in ms from a fixed LCG: the kill lands at different points of the schedule.
    let mut seed: u64 = 0x5EED;
    let mut delays = Vec::new();
    for _ in 0..3 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        delays.push(400 + (seed >> 33) % 900);
    }
    let mut child = spawn(false);
    for (i, d) in delays.iter().enumerate() {
        std::thread::sleep(Duration::from_millis(*d));
        if child.try_wait().unwrap().is_some() {
            break; // finished before this kill point
        }
        child.kill().unwrap();
        child.wait().unwrap();
        if !results.exists()
            || std::fs::read_to_string(&results)
                .unwrap_or_default()
                .is_empty()
        {
            child = spawn(false); // killed before anything was written
        } else {
            child = spawn(true);
        }
        eprintln!("kill {} after {d} ms", i + 1);
    }
    let status = child.wait().unwrap();
    // The last resume runs to the end (jobs of the slow suite take ~0.2 s each).
    assert!(status.success(), "final run failed: {status}");
    let recs = records(&results);
    let mut keys = HashSet::new();
    let mut samples = 0;
    for j in recs
        .iter()
        .filter(|r| r["type"] == "job" && r["status"] == "ok")
    {
        let key = (
            j["file"].as_str().unwrap().to_owned(),
            j["side"].as_str().unwrap().to_owned(),
            j["run"].as_u64().unwrap(),
        );
        assert!(keys.insert(key.clone()), "job {key:?} recorded ok twice");
        samples += j["samples"].as_array().unwrap().len();
    }
    assert_eq!(keys.len(), 18, "3 files x 3 runs x 2 binaries");
    assert_eq!(samples, 36);
}

/// A small command-benchmark run (see `tests/run_usage.rs`).
const COMMAND_RUN: [&str; 8] = [
    "compare",
    "--old",
    "true",
    "--new",
    "true",
    "--bench",
    "",
    "--no-progress",
];

/// Runs benchdiff in `dir` with `args`; returns (exit code, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("benchdiff runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn resume_of_a_command_run_says_it_is_for_node_files_only() {
    let d = tempfile::tempdir().unwrap();
    let mut a = COMMAND_RUN.to_vec();
    a.extend(["--runs", "1", "--csv", "k1.csv"]);
    let (code, err) = run_in(d.path(), &a);
    assert_eq!(code, 0, "{err}");
    let (code, err) = run_in(d.path(), &["compare", "--resume", "k1.results.jsonl"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Node-file runs only"), "{err}");
    assert!(err.contains("benchdiff report k1.results.jsonl"), "{err}");
}

/// Data rows of a compare.js CSV file (0 when it does not exist yet).
fn csv_row_count(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

/// benchdiff killed with SIGKILL while a job has written one of its two CSV rows, then
/// `--resume` (appending to the run's own CSV): the CSV holds exactly the rows of an
/// uninterrupted run, each sample once.
#[cfg(feature = "e2e")]
#[test]
fn kill_9_mid_job_then_resume_leaves_the_csv_of_an_uninterrupted_run() {
    require_node();
    let dir = tempfile::tempdir().unwrap();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/halfway");
    let (results, csv) = (dir.path().join("results.jsonl"), dir.path().join("out.csv"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir.path())
        .args(["compare", "--old", "node", "--new", "node", "--runs", "2"])
        .arg("--benchmark-dir")
        .arg(&bench)
        .args(["--results", "results.jsonl", "--csv", "out.csv", "half"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("benchdiff starts");
    // Wait until the second job has written its first row (and not its second).
    let t = Instant::now();
    while !(ok_jobs(&results) == 1 && csv_row_count(&csv) == 3) {
        assert!(child.try_wait().unwrap().is_none(), "benchdiff ended early");
        assert!(t.elapsed() < Duration::from_secs(30), "jobs too slow");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert_eq!(ok_jobs(&results), 1);
    assert_eq!(csv_row_count(&csv), 3, "killed mid-job");

    let o = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir.path())
        .args(["compare", "--resume", "results.jsonl"])
        .stdin(Stdio::null())
        .output()
        .expect("resume runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // 2 runs x 2 binaries x 2 configurations, each once: as an uninterrupted run writes it.
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows = csv_rows(&text);
    assert_eq!(rows.len(), 8, "{text}");
    let mut per: HashMap<(String, String), usize> = HashMap::new();
    for [b, _, c, _, _] in rows {
        *per.entry((b, c)).or_default() += 1;
    }
    assert!(per.values().all(|&n| n == 2), "{per:?}");
    let rates: HashSet<String> = csv_rows(&text).into_iter().map(|r| r[3].clone()).collect();
    let samples: usize = jobs(&results)
        .iter()
        .filter(|j| j["status"] == "ok")
        .map(|j| j["samples"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        (rates.len(), samples),
        (8, 8),
        "the CSV's samples are the results file's"
    );
}

/// Two SIGINTs at once (GNU `timeout -s INT` sends two): the run stops, the partial report is
/// still printed, and the interrupted job is reported as interrupted, not as a failure whose
/// benchmark was "not compared".
#[cfg(feature = "e2e")]
#[test]
fn two_sigints_still_print_the_partial_report_with_the_job_as_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.jsonl");
    let mut child = start_slow_run(dir.path(), &["--csv", "out.csv"]);
    wait_for_jobs(&results, 4, &mut child);
    for _ in 0..2 {
        // SAFETY: plain kill(2) on our own child's pid.
        assert_eq!(
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
            0
        );
    }
    let out = child.wait_with_output().expect("benchdiff ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "stderr: {stderr}");
    assert!(
        stdout.contains("slow/s"),
        "partial report: {stdout}\nstderr: {stderr}"
    );
    // (INCOMPLETE when the signals landed between two jobs.)
    assert!(
        stdout.contains("\nINTERRUPTED: ") || stdout.contains("\nINCOMPLETE: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("unfinished jobs (")
            && stdout.contains(": compared on the jobs that finished\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("FAILED"), "{stdout}");
}
