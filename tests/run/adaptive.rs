//! `benchdiff compare --runs auto` on real `node` processes: project-written fixtures
//! (tests/fixtures/adaptive: synthetic rates with known noise) and the example suite
//! (examples/node-suite). Also the machine checks every run prints and records.

// Second test tier (cargo feature `e2e`): these tests start real `node` processes.
#![cfg(feature = "e2e")]

use crate::common;

use common::*;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn adaptive_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adaptive")
}

fn bench(dir: &Path, suite: &Path, args: &[&str]) -> assert_cmd::Command {
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
        .arg(suite)
        .args(["--results", "results.jsonl", "--csv", "out.csv"])
        .args(args);
    c
}

/// `--runs auto` on the noise fixture: target ±1%, 3 to 6 runs, seed 5.
const NOISE_AUTO: [&str; 13] = [
    "--runs",
    "auto",
    "--target-accuracy",
    "1%",
    "--min-runs",
    "3",
    "--max-runs",
    "6",
    "--seed",
    "5",
    "--set",
    "n=7",
    "noise",
];

#[test]
fn quiet_configurations_stop_and_noisy_ones_run_restricted_with_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench(dir.path(), &adaptive_suite(), &NOISE_AUTO)
        .assert()
        .success()
        .stderr(predicate::str::contains("benchdiff: machine: "))
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    // noise=0 is constant: its interval has width 0 after --min-runs (3) rounds; noise=40 never
    // reaches ±1% in 6 runs.
    for size in [1, 2] {
        assert!(
            stderr.contains(&format!(
                "noise/levels.js noise=0 size={size} n=7: 3/3 runs, settled after round 3 at ±0.00%"
            )),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!(
                "noise/levels.js noise=40 size={size} n=7: 6/6 runs, ran to --max-runs"
            )),
            "{stderr}"
        );
    }
    // scaled.js (CV about 11% at n=7) never settles at ±1% either: 2 of 6 settle.
    assert!(
        stderr.contains("benchdiff: adaptive: 2 of 6 configurations settled"),
        "{stderr}"
    );
    // The report's runs column shows what each configuration got.
    assert!(stdout.contains("3/3 paired"), "{stdout}");
    assert!(stdout.contains("6/6 paired"), "{stdout}");

    let recs = records(&dir.path().join("results.jsonl"));
    assert_eq!(recs[0]["type"], "run");
    assert_eq!(recs[0]["runs"], 6, "the plan is the --max-runs schedule");
    let machine = recs
        .iter()
        .find(|r| r["type"] == "machine")
        .expect("machine record");
    assert!(machine["cpus_online"].as_u64().unwrap() >= 1);
    assert!(machine["warnings"].is_array());
    let adaptive: Vec<&serde_json::Value> =
        recs.iter().filter(|r| r["type"] == "adaptive").collect();
    // One record before each of the 6 rounds, then the final one listing every settled row.
    assert_eq!(adaptive.len(), 7);
    let last = adaptive[6];
    assert_eq!(last["files"], serde_json::json!([]), "{last}");
    assert_eq!(last["settled"].as_array().map(Vec::len), Some(2), "{last}");
    let rounds = &adaptive[..6];
    // Rounds 0-2: the whole file (no restriction yet). Round 3 on: levels.js runs with the
    // noisy values only; the user's n=7 stays, non-varying keys are not passed.
    for r in &rounds[..3] {
        for f in r["files"].as_array().unwrap() {
            assert!(f.get("set").is_none(), "{r}");
        }
    }
    let settled = rounds[3]["settled"].as_array().unwrap();
    assert_eq!(settled.len(), 2, "{}", rounds[3]);
    for r in &rounds[3..] {
        let levels = r["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == "noise/levels.js")
            .expect("levels.js still runs");
        assert_eq!(levels["set"], serde_json::json!(["n=7", "noise=40"]), "{r}");
        assert_eq!(levels["open"], 2);
    }
    // Jobs of rounds 3-5 of levels.js carry only the noisy configurations.
    for j in jobs(&dir.path().join("results.jsonl")) {
        if j["file"] == "noise/levels.js" && j["run"].as_u64().unwrap() >= 3 {
            let confs: Vec<&str> = j["samples"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["configuration"].as_str().unwrap())
                .collect();
            assert_eq!(confs, vec!["noise=40 size=1 n=7", "noise=40 size=2 n=7"]);
        }
    }
    // 2 files x 6 runs x 2 = 24 jobs at most; all ran (both files keep open rows).
    assert_eq!(jobs(&dir.path().join("results.jsonl")).len(), 24);
}

#[test]
fn resume_of_an_adaptive_run_continues_adaptively() {
    let dir = tempfile::tempdir().unwrap();
    bench(dir.path(), &adaptive_suite(), &NOISE_AUTO)
        .assert()
        .success();
    let full = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
    let recs = records(&dir.path().join("results.jsonl"));
    assert_eq!(
        recs[0]["adaptive"]["target_accuracy_pct"], 1.0,
        "{}",
        recs[0]
    );
    assert_eq!(recs[0]["adaptive"]["max_runs"], 6);
    let key = |j: &serde_json::Value| {
        (
            j["file"].as_str().unwrap().to_owned(),
            j["side"].as_str().unwrap().to_owned(),
            j["run"].as_u64().unwrap(),
        )
    };
    let mut reference: Vec<_> = jobs(&dir.path().join("results.jsonl"))
        .iter()
        .map(key)
        .collect();
    reference.sort();
    // Killed in round 3 (jobs 0-11 are rounds 0-2 of 2 files x 2 sides), after the rule
    // settled the constant configurations.
    for keep in [5, 14] {
        let cut = dir.path().join(format!("cut{keep}.jsonl"));
        std::fs::write(&cut, cut_after_jobs(&full, keep)).unwrap();
        let out = assert_cmd::Command::cargo_bin("benchdiff")
            .unwrap()
            .current_dir(dir.path())
            .arg("compare")
            .arg("--resume")
            .arg(&cut)
            // A new CSV per resume: an existing --csv is refused without --force.
            .arg("--csv")
            .arg(format!("resumed{keep}.csv"))
            .assert()
            .success()
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            stderr.contains("a configuration stops once its 95% interval is within ±1%"),
            "{stderr}"
        );
        assert!(
            stderr.contains("benchdiff: adaptive: 2 of 6 configurations settled"),
            "{stderr}"
        );
        for size in [1, 2] {
            assert!(
                stderr.contains(&format!(
                    "noise/levels.js noise=0 size={size} n=7: 3/3 runs, settled after round 3"
                )),
                "{stderr}"
            );
        }
        // The same jobs as the uninterrupted run, each once; the resumed levels.js jobs of
        // rounds 3-5 ran restricted to the open configurations.
        let resumed = jobs(&cut);
        let mut got: Vec<_> = resumed.iter().map(key).collect();
        got.sort();
        assert_eq!(got, reference, "keep {keep}");
        for j in &resumed[keep..] {
            if j["file"] == "noise/levels.js" && j["run"].as_u64().unwrap() >= 3 {
                assert_eq!(j["samples"].as_array().unwrap().len(), 2, "{j}");
            }
        }
        let rows = std::fs::read_to_string(dir.path().join(format!("resumed{keep}.csv"))).unwrap();
        // The CSV holds every sample of every job once.
        let samples: usize = resumed
            .iter()
            .map(|j| j["samples"].as_array().unwrap().len())
            .sum();
        assert_eq!(rows.lines().count(), samples + 1, "{rows}");
    }
}

#[test]
fn example_suite_with_a_loose_target_stops_at_min_runs() {
    // The example suite on real node, same binary twice: with a target of ±500% every row
    // settles after --min-runs rounds (even on a loaded machine), so the run does 3 of the 8
    // rounds.
    let dir = tempfile::tempdir().unwrap();
    let out = bench(
        dir.path(),
        &example_suite(),
        &[
            "--runs",
            "auto",
            "--target-accuracy",
            "500",
            "--min-runs",
            "3",
            "--max-runs",
            "8",
            "--seed",
            "11",
            "string",
        ],
    )
    .assert()
    .success()
    .get_output()
    .clone();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        stderr.contains(
            "benchdiff: adaptive: 2 of 2 configurations settled before --max-runs; 12 of 32 samples"
        ) && stderr.contains("6 of 16 jobs in 3 rounds"),
        "{stderr}"
    );
    assert!(stderr.contains("ratio 0."), "{stderr}");
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert_eq!(
        csv_rows(&csv).len(),
        12,
        "2 configurations x 2 binaries x 3 runs"
    );
}

#[test]
fn usage_errors_of_runs_auto() {
    let dir = tempfile::tempdir().unwrap();
    for (args, msg) in [
        // --stop decided is the default of --runs auto; the precision rule needs a target.
        (
            vec!["--runs", "auto", "--stop", "precision", "noise"],
            "--runs auto needs --target-accuracy",
        ),
        (
            vec![
                "--runs",
                "auto",
                "--stop",
                "decided",
                "--target-accuracy",
                "2",
                "noise",
            ],
            "--target-accuracy belongs to --stop precision",
        ),
        (
            vec!["--runs", "5", "--target-accuracy", "2", "noise"],
            "--target-accuracy needs --runs auto",
        ),
        (
            vec![
                "--runs",
                "auto",
                "--target-accuracy",
                "2",
                "--min-runs",
                "9",
                "--max-runs",
                "4",
                "noise",
            ],
            "--min-runs 9 is above --max-runs 4",
        ),
        (vec!["--runs", "sometimes", "noise"], "is not a run count"),
        (
            vec!["--runs", "auto", "--target-accuracy", "2x", "noise"],
            "is not a percentage",
        ),
    ] {
        bench(dir.path(), &adaptive_suite(), &args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    }
}

#[test]
fn fixed_runs_print_and_record_machine_checks() {
    let dir = tempfile::tempdir().unwrap();
    compare(dir.path(), &["--runs", "1", "--cpus", "0", "ipc"])
        .assert()
        .success()
        .stderr(predicate::str::contains("benchdiff: machine: "))
        .stderr(predicate::str::contains("pinned 0;"));
    let recs = records(&dir.path().join("results.jsonl"));
    let m = recs
        .iter()
        .find(|r| r["type"] == "machine")
        .expect("machine record");
    assert_eq!(m["pinned"], "0");
    assert!(m["load_avg"].is_array() || m["load_avg"].is_null());
}
