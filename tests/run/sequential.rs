//! `--runs auto --stop decided` (issue 17) on real processes: command benchmarks whose two
//! "builds" are `sh` scripts that sleep 300 ms and 375 ms (one 20% slower in
//! rate), and Node files (real `node`, the fixture folder tests/fixtures/adaptive) with
//! `--resume`.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use crate::common;

use common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `compare --old ./OLD --new ./NEW --bench x --runs auto` with up to 20 runs a side.
fn command_run(dir: &Path, old: &str, new: &str) -> (String, String, Vec<serde_json::Value>) {
    let results = dir.join(format!("{old}-{new}.jsonl"));
    let (old_path, new_path) = (format!("./{old}"), format!("./{new}"));
    let o = assert_cmd::Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args([
            "compare",
            "--old",
            &old_path,
            "--new",
            &new_path,
            "--bench",
            "x",
            "--runs",
            "auto",
            "--max-runs",
            "20",
            "--seed",
            "3",
            "--csv",
        ])
        .arg(format!("{old}-{new}.csv"))
        .arg("--results")
        .arg(&results)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The run record says which rule ran.
    let head = &records(&results)[0];
    assert_eq!(head["decided"]["stop"], "decided", "{head}");
    assert_eq!(head["decided"]["threshold_pct"], 1.0, "{head}");
    assert_eq!(head["adaptive"]["max_runs"], 20, "{head}");
    let jobs = records(&results)
        .into_iter()
        .filter(|r| r["type"] == "command-job")
        .collect();
    (text(&o.stdout), text(&o.stderr), jobs)
}

#[test]
fn command_benchmark_20_percent_apart_is_decided_before_max_runs() {
    let d = tempfile::tempdir().unwrap();
    script(d.path(), "fast", "sleep 0.3");
    script(d.path(), "slow", "sleep 0.375");
    for (old, new, verdict) in [("fast", "slow", "slower"), ("slow", "fast", "faster")] {
        let (stdout, stderr, jobs) = command_run(d.path(), old, new);
        assert!(stderr.contains("--runs auto --stop decided"), "{stderr}");
        assert!(
            stderr.contains(&format!("decided {verdict} after round")),
            "{old} -> {new}: {stderr}"
        );
        // Stopped before --max-runs (20 rounds = 40 jobs).
        assert!(jobs.len() < 40, "{} jobs: {stderr}", jobs.len());
        assert!(
            stderr.contains("benchdiff: adaptive: 1 of 1 configurations settled"),
            "{stderr}"
        );
        assert!(stderr.contains("saved"), "{stderr}");
        // The table is followed by the settled row's anytime-valid interval.
        assert!(stdout.contains("† settled by --stop decided"), "{stdout}");
        assert!(
            stdout.contains(&format!("† x: {verdict} after")),
            "{stdout}"
        );
    }
}

#[test]
fn usage_of_stop() {
    let d = tempfile::tempdir().unwrap();
    script(d.path(), "p", "true");
    for (args, msg) in [
        (
            vec!["--runs", "5", "--stop", "decided"],
            "--stop needs --runs auto",
        ),
        (
            vec![
                "--runs",
                "auto",
                "--stop",
                "decided",
                "--target-accuracy",
                "2",
            ],
            "--target-accuracy belongs to --stop precision",
        ),
        (
            vec!["--runs", "auto", "--stop", "precision"],
            "--runs auto needs --target-accuracy",
        ),
    ] {
        let o = assert_cmd::Command::cargo_bin("benchdiff")
            .unwrap()
            .current_dir(d.path())
            .args(["compare", "--old", "./p", "--new", "./p", "--bench", "x"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            text(&o.stderr).contains(msg),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
}

fn adaptive_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adaptive")
}

/// `--runs auto` (decided) on the noise fixture: 3 to 8 runs, seed 5.
const NOISE_DECIDED: [&str; 11] = [
    "--runs",
    "auto",
    "--min-runs",
    "3",
    "--max-runs",
    "8",
    "--seed",
    "5",
    "--set",
    "n=7",
    "noise",
];

fn node_run(dir: &Path) -> assert_cmd::Command {
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
        .arg(adaptive_suite())
        .args(["--results", "results.jsonl", "--csv", "out.csv"])
        .args(NOISE_DECIDED);
    c
}

#[cfg(feature = "e2e")]
#[test]
fn node_files_stop_when_decided_and_resume_decides_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let out = node_run(dir.path()).assert().success().get_output().clone();
    let stderr = text(&out.stderr);
    // The constant configurations (same binary: log ratio 0 every round) are decided "no
    // change" at the first look, after --min-runs rounds.
    for size in [1, 2] {
        assert!(
            stderr.contains(&format!(
                "noise/levels.js noise=0 size={size} n=7: 3/3 runs, decided no change after \
                 round 3"
            )),
            "{stderr}"
        );
    }
    let recs = records(&dir.path().join("results.jsonl"));
    assert_eq!(recs[0]["decided"]["stop"], "decided", "{}", recs[0]);
    assert_eq!(recs[0]["decided"]["threshold_pct"], 1.0);
    assert_eq!(recs[0]["decided"]["alpha"], 0.05);
    assert_eq!(recs[0]["decided"]["method"], "pocock");
    let settled: Vec<&serde_json::Value> = recs
        .iter()
        .filter(|r| r["type"] == "adaptive")
        .flat_map(|r| r["settled"].as_array().unwrap())
        .collect();
    assert!(
        settled
            .iter()
            .any(|s| s["status"] == "decided" && s["decision"] == "no_change" && s["rows"] == 6),
        "{settled:?}"
    );
    // The table is followed by the settled rows' anytime-valid intervals.
    let stdout = text(&out.stdout);
    assert!(stdout.contains("† settled by --stop decided"), "{stdout}");
    assert!(
        stdout.contains("† noise/levels.js noise=0 size=1 n=7: no change after 3 runs a side"),
        "{stdout}"
    );
    let full = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
    let summary = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("  noise/"))
            .map(str::to_owned)
            .collect()
    };
    let reference = summary(&stderr);
    assert_eq!(reference.len(), 6, "{stderr}");
    // Killed in round 1 and in round 4: the resumed run decides every row as the whole one.
    for keep in [5, 14] {
        let cut = dir.path().join(format!("cut{keep}.jsonl"));
        std::fs::write(&cut, cut_after_jobs(&full, keep)).unwrap();
        let out = assert_cmd::Command::cargo_bin("benchdiff")
            .unwrap()
            .current_dir(dir.path())
            .arg("compare")
            .arg("--resume")
            .arg(&cut)
            .arg("--csv")
            .arg(format!("resumed{keep}.csv"))
            .assert()
            .success()
            .get_output()
            .clone();
        let resumed = text(&out.stderr);
        assert!(resumed.contains("--runs auto --stop decided"), "{resumed}");
        // Node's random rates differ between the runs, so only the rows the data fix
        // (the constant ones) must match exactly; all must be present.
        let got = summary(&resumed);
        assert_eq!(got.len(), 6, "{resumed}");
        for l in reference.iter().filter(|l| l.contains("noise=0")) {
            assert!(got.contains(l), "keep {keep}: {l}\n{resumed}");
        }
    }
}

#[cfg(feature = "e2e")]
#[test]
fn json_report_of_a_decided_run_carries_the_anytime_valid_intervals() {
    let dir = tempfile::tempdir().unwrap();
    node_run(dir.path())
        .args(["--format", "json", "-o", "report.json"])
        .assert()
        .success();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let seq = doc["run"]["sequential"].as_array().expect("run.sequential");
    let row = seq
        .iter()
        .find(|s| s["configuration"] == "noise=0 size=2 n=7")
        .expect("the constant row settled");
    assert_eq!(row["file"], "noise/levels.js");
    assert_eq!(row["decision"], "no_change");
    assert_eq!(row["interval_pct"], serde_json::json!([0.0, 0.0]));
    assert_eq!(row["runs"], serde_json::json!([3, 3]));
    assert_eq!(row["rows"], 6);
    assert_eq!(row["stopped"], "decided");
    assert!(
        seq.iter()
            .any(|s| s["stopped"] == "futile" && s["conditional_power"].as_f64() < Some(0.1)),
        "{seq:?}"
    );
    let schema_path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[cfg(feature = "e2e")]
#[test]
fn a_later_report_of_the_results_file_shows_how_each_row_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let out = node_run(dir.path()).assert().success().get_output().clone();
    let live = text(&out.stdout);
    // Same binary on both sides: the ±40% rows can neither be decided faster/slower nor
    // within ±1% by 8 runs, so futility stops them undecided (from round 3 = 8/3 rounded up).
    assert!(live.contains("‡ stopped for futility"), "{live}");
    assert!(
        live.contains("‡ noise/levels.js noise=40 size=1 n=7: stopped after"),
        "{live}"
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("undecided:"), "{stderr}");
    // `report` of the results file: the same sections, and the same verdicts.
    let later = assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .current_dir(dir.path())
        .env_remove("NO_COLOR")
        .args(["report", "results.jsonl"])
        .assert()
        .success()
        .get_output()
        .clone();
    let later = text(&later.stdout);
    assert!(later.contains("† settled by --stop decided"), "{later}");
    assert!(later.contains("‡ stopped for futility"), "{later}");
    assert_eq!(
        later.lines().filter(|l| l.contains('‡')).count(),
        live.lines().filter(|l| l.contains('‡')).count()
    );
    // A row stopped for futility is inconclusive in the table, whatever its fixed-sample test.
    for l in later
        .lines()
        .filter(|l| l.starts_with(" noise/levels.js noise=40"))
    {
        assert!(l.contains("inconclusive"), "{l}");
    }
    // The final adaptive record lists every settled row.
    let recs = records(&dir.path().join("results.jsonl"));
    let last = recs
        .iter()
        .rev()
        .find(|r| r["type"] == "adaptive")
        .expect("an adaptive record");
    assert_eq!(last["files"], serde_json::json!([]));
    assert_eq!(last["settled"].as_array().map(Vec::len), Some(6), "{last}");
}

#[cfg(feature = "e2e")]
#[test]
fn no_futility_runs_undecided_rows_to_max_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = node_run(dir.path())
        .arg("--no-futility")
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("noise/levels.js noise=40 size=1 n=7: 8/8 runs, ran to --max-runs"),
        "{stderr}"
    );
    assert!(!text(&out.stdout).contains('‡'));
    let recs = records(&dir.path().join("results.jsonl"));
    assert_eq!(recs[0]["decided"]["futility"], false, "{}", recs[0]);
    // Refused where it means nothing.
    assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .args(["compare", "--old", "true", "--new", "true", "--bench", ""])
        .args(["--runs", "5", "--no-futility"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--no-futility belongs to --runs auto",
        ));
}
