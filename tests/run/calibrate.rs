//! `benchdiff calibrate` on real `node` processes: A/A on the example suite and on the
//! project's noise fixtures (tests/fixtures/adaptive), `--find-n` on a fixture whose noise
//! shrinks with n, usage errors.

// Second test tier (cargo feature `e2e`): these tests start real `node` processes.
#![cfg(feature = "e2e")]

use crate::common;

use common::*;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn adaptive_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adaptive")
}

fn calibrate(dir: &Path, suite: &Path, args: &[&str]) -> assert_cmd::Command {
    require_node();
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").expect("binary built");
    c.current_dir(dir)
        .args(["calibrate", "--bin", "node", "--benchmark-dir"])
        .arg(suite)
        .args(["--results", "cal.jsonl"])
        .args(args);
    c
}

#[test]
fn aa_reports_cv_resolution_false_positives_and_runs_needed() {
    let dir = tempfile::tempdir().unwrap();
    let out = calibrate(
        dir.path(),
        &adaptive_suite(),
        &[
            "--runs",
            "6",
            "--seed",
            "3",
            "--target-accuracy",
            "2%",
            "--filter",
            "levels",
            "noise",
        ],
    )
    .assert()
    .success()
    .stderr(predicate::str::contains("benchdiff: machine: "))
    .stderr(predicate::str::contains(
        "A/A calibration of node: 1 file(s) x 6 run(s) x 2 sides = 12 jobs",
    ))
    .get_output()
    .clone();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(stdout.contains("runs/side for ±2%"), "{stdout}");
    // noise=0: constant rate, CV 0, resolves 0%, needs 2 runs.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("noise/levels.js noise=0 size=1 n=7"))
        .expect("row");
    let cols: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(&cols[4..], ["6/6", "0.00%", "0.00%", "NA", "2"], "{line}");
    // noise=40: uniform ±40%, CV about 23%: far more than 6 runs for ±2%.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("noise/levels.js noise=40 size=2 n=7"))
        .expect("row");
    let cols: Vec<&str> = line.split_whitespace().collect();
    let cv: f64 = cols[5].trim_end_matches('%').parse().unwrap();
    assert!((10.0..40.0).contains(&cv), "{line}");
    let need: u64 = cols.last().unwrap().parse().unwrap();
    assert!(need > 100, "{line}");
    // Two rows have a test (the constant ones have none): the rate has a Wilson interval.
    assert!(
        stdout.contains("configurations have Welch p < 0.05 (A/A: every one is noise)"),
        "{stdout}"
    );
    assert!(stdout.contains("of 2 configurations"), "{stdout}");
    assert!(stdout.contains("(Wilson score interval)"), "{stdout}");
    assert!(stdout.contains("noise: CV from 0.00%"), "{stdout}");
    let recs = records(&dir.path().join("cal.jsonl"));
    assert_eq!(recs[0]["type"], "run");
    assert_eq!(recs[0]["old_exec"], recs[0]["new_exec"]);
    assert!(recs.iter().any(|r| r["type"] == "machine"));
    assert_eq!(jobs(&dir.path().join("cal.jsonl")).len(), 12);
}

#[test]
fn aa_on_the_example_suite() {
    let dir = tempfile::tempdir().unwrap();
    let out = calibrate(dir.path(), &example_suite(), &["--runs", "3", "json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        stdout.contains("json/roundtrip.js keys=10 n=5000"),
        "{stdout}"
    );
    assert!(
        stdout.contains("of 2 configurations have Welch p < 0.05"),
        "{stdout}"
    );
}

#[test]
fn find_n_multiplies_until_the_cv_is_small() {
    let dir = tempfile::tempdir().unwrap();
    let out = calibrate(
        dir.path(),
        &adaptive_suite(),
        &[
            "--runs", "12", "--find-n", "n", "--filter", "scaled", "noise",
        ],
    )
    .assert()
    .success()
    .get_output()
    .clone();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    // CV about 9.5% at n=10 (overall above 5%), about 3% at n=100.
    assert!(
        stderr.contains("find-n: noise/scaled.js n=10: overall CV"),
        "{stderr}"
    );
    assert!(
        stderr.contains("find-n: noise/scaled.js n=100: overall CV"),
        "{stderr}"
    );
    assert_eq!(
        stdout.trim_end(),
        format!("noise/scaled.js: n=100 ({})", {
            let l = stderr
                .lines()
                .find(|l| l.contains("n=100: overall CV"))
                .unwrap();
            let cv = l
                .split("overall CV ")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap();
            format!("CV {cv} overall")
        })
    );
    // 12 runs per tried value, one binary.
    let jobs = jobs(&dir.path().join("cal.jsonl"));
    assert_eq!(jobs.len(), 24);
    assert!(jobs.iter().all(|j| j["side"] == "old"));
}

#[test]
fn find_n_names_files_without_the_parameter() {
    let dir = tempfile::tempdir().unwrap();
    calibrate(
        dir.path(),
        &adaptive_suite(),
        &[
            "--runs", "2", "--find-n", "zzz", "--filter", "scaled", "noise",
        ],
    )
    .assert()
    .success()
    .stdout(predicate::str::contains(
        "noise/scaled.js: none (no parameter zzz)",
    ));
}

#[test]
fn calibrate_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    calibrate(dir.path(), &adaptive_suite(), &["--runs", "1", "noise"])
        .assert()
        .code(2);
    calibrate(dir.path(), &adaptive_suite(), &["nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the \"nope\" category does not exist",
        ));
    calibrate(
        dir.path(),
        &adaptive_suite(),
        &["--find-n", "n", "--increase", "1", "noise"],
    )
    .assert()
    .code(2)
    .stderr(predicate::str::contains("--increase above 1"));
}

#[test]
fn without_results_the_record_goes_to_the_temporary_folder_not_the_current_one() {
    require_node();
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(dir.path())
        .env("TMPDIR", tmp.path())
        .args(["calibrate", "--bin", "node", "--benchmark-dir"])
        .arg(adaptive_suite())
        .args(["--runs", "2", "--filter", "levels", "noise"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let here: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert!(here.is_empty(), "left in the current folder: {here:?}");
    let kept: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path().display().to_string())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(stderr.contains(&kept[0]), "{stderr}");
}
