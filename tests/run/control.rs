//! `compare --control` on real children: the control side (the old build again) runs in the
//! same seeded rounds as old and new, the results file records it, the compare.js CSV leaves
//! it out, `report` reads it back, a Node-file run with a control killed midway resumes with
//! every (file, side, run) exactly once, and under `--runs auto` the control stops with its
//! row. `calibrate` of command benchmarks (the A/A judgement of Node files, any metric).

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use crate::common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A busy loop of `n` shell iterations (no `sleep`): a command benchmark in a few ms.
fn shell_loop(n: u32) -> String {
    format!("sh -c 'i=0; while [ $i -lt {n} ]; do i=$((i+1)); done'")
}

fn benchdiff(dir: &Path, args: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "250")
        .args(args)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .expect("benchdiff runs")
}

#[test]
fn command_compare_with_control_runs_and_records_a_third_side_in_every_round() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (old, new) = (shell_loop(2000), shell_loop(2400));
    let out = benchdiff(
        dir.path(),
        &[
            "compare",
            "--control",
            "--old",
            &old,
            "--new",
            &new,
            "--bench",
            "",
            "--runs",
            "4",
            "--seed",
            "5",
            "--results",
            "r.jsonl",
            "--csv",
            "r.csv",
            "--no-progress",
        ],
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("+ control (old again)"), "{stderr}");
    let results = dir.path().join("r.jsonl");
    let recs = records(&results);
    assert_eq!(recs[0]["control"], true, "the header records the control");
    // Every round holds one old, one new and one control job, the control running the old
    // command's argv.
    let mut rounds: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    let mut old_argv = None;
    for j in recs.iter().filter(|r| r["type"] == "command-job") {
        assert_eq!(j["status"], "ok", "{j}");
        let side = j["side"].as_str().expect("side").to_owned();
        if side == "old" {
            old_argv = Some(j["argv"].clone());
        }
        if side == "control"
            && let Some(a) = &old_argv
        {
            assert_eq!(&j["argv"], a, "the control runs the old command");
        }
        rounds
            .entry(j["run"].as_u64().expect("run"))
            .or_default()
            .insert(side);
    }
    assert_eq!(rounds.len(), 4);
    for sides in rounds.values() {
        assert_eq!(sides.len(), 3, "{sides:?}");
    }
    let csv = std::fs::read_to_string(dir.path().join("r.csv")).expect("CSV");
    assert_eq!(csv.lines().count(), 1 + 8, "old and new rows only: {csv}");
    assert!(!csv.contains("control"));
    assert!(stdout.contains("control: "), "the live report: {stdout}");
    // `report` of the results file reads the control back.
    let out = benchdiff(dir.path(), &["report", "--format", "json", "r.jsonl"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["control"]["rows"], 1);
    assert_eq!(v["comparisons"].as_array().map(Vec::len), Some(1));
}

#[cfg(feature = "e2e")]
#[test]
fn a_node_run_with_control_killed_midway_resumes_every_job_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    // 2 files x 2 runs x 3 sides = 12 jobs.
    compare(
        dir.path(),
        &[
            "--control",
            "--runs",
            "2",
            "--seed",
            "9",
            "--csv",
            "a.csv",
            "ipc",
            "stdout",
        ],
    )
    .assert()
    .success();
    let results = dir.path().join("results.jsonl");
    let full = std::fs::read_to_string(&results).expect("results");
    let all = jobs(&results);
    assert_eq!(
        all.iter().filter(|j| j["side"] == "control").count() * 3,
        all.len()
    );
    std::fs::write(&results, cut_after_jobs(&full, 5)).expect("cut");
    let out = benchdiff(
        dir.path(),
        &["compare", "--resume", "results.jsonl", "--csv", "b.csv"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let keys: Vec<(String, String, u64)> = jobs(&results)
        .iter()
        .filter(|j| j["status"] == "ok")
        .map(|j| {
            (
                j["file"].as_str().expect("file").to_owned(),
                j["side"].as_str().expect("side").to_owned(),
                j["run"].as_u64().expect("run"),
            )
        })
        .collect();
    let unique: BTreeSet<_> = keys.iter().cloned().collect();
    assert_eq!(keys.len(), unique.len(), "no job twice: {keys:?}");
    assert_eq!(unique.len(), all.len(), "every job once");
    let out = benchdiff(dir.path(), &["report", "results.jsonl"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("control: "), "{text}");
}

/// (configuration, side, run, position) of every command job of a results file.
fn command_job_keys(path: &Path) -> BTreeSet<(String, String, u64, u64)> {
    (std::fs::read_to_string(path).expect("results file").lines())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .filter(|r| r["type"] == "command-job")
        .map(|r| {
            (
                r["combination"].to_string(),
                r["side"].as_str().expect("side").to_owned(),
                r["run"].as_u64().expect("run"),
                r["position"].as_u64().expect("position"),
            )
        })
        .collect()
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

/// `--shard` with `--control`: each shard runs its slice of the plan's schedule with the
/// control jobs in it, `merge` keeps them, and the merged report assesses the control as it
/// assesses old against new: on a split by rounds each machine is a block and a control row
/// is the per-machine combination, the very figures a report of old against the control jobs
/// (relabelled new) gives.
#[test]
fn sharded_runs_with_a_control_merge_and_combine_the_control_per_machine() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let plan = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "compare",
            "--control",
            "--old",
            "sleep",
            "--new",
            "sleep",
            "--bench",
            "{t}",
            "-L",
            "t=0.001,0.002",
            "--runs",
            "4",
            "--seed",
            "7",
            "--no-progress",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let whole = d.join("whole.jsonl");
    let args = plan(&["--results", whole.to_str().expect("path")]);
    let out = benchdiff(d, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = command_job_keys(&whole);
    assert_eq!(want.len(), 2 * 4 * 3, "old, new and control jobs");
    for split in ["runs", "benchmarks"] {
        let shards: Vec<std::path::PathBuf> = (1..=2)
            .map(|k| {
                let f = d.join(format!("{split}-{k}.jsonl"));
                let shard = format!("{k}/2");
                let args = plan(&[
                    "--shard",
                    &shard,
                    "--split",
                    split,
                    "--results",
                    f.to_str().expect("path"),
                ]);
                let out = benchdiff(d, &args.iter().map(String::as_str).collect::<Vec<_>>());
                assert!(
                    out.status.success(),
                    "shard {shard}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                f
            })
            .collect();
        let merged = d.join(format!("{split}-merged.jsonl"));
        let m = benchdiff(
            d,
            &[
                "merge",
                shards[0].to_str().expect("path"),
                shards[1].to_str().expect("path"),
                "-o",
                merged.to_str().expect("path"),
            ],
        );
        assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
        // The same jobs, control ones included, as the unsharded run.
        assert_eq!(command_job_keys(&merged), want, "split {split}");
        let r = json_of(&benchdiff(
            d,
            &["report", "--format", "json", merged.to_str().expect("path")],
        ));
        let c = &r["control"];
        assert_eq!(c["rows"], 2, "{c}");
        let html = benchdiff(
            d,
            &["report", "--format", "html", merged.to_str().expect("path")],
        );
        assert!(String::from_utf8_lossy(&html.stdout).contains("<th>control</th>"));
        if split != "runs" {
            continue;
        }
        for row in r["comparisons"].as_array().expect("rows") {
            assert_eq!(row["combined"]["machines"], 2, "{row}");
        }
        // Old against the control jobs as a plain comparison: the control's new side.
        let text = std::fs::read_to_string(&merged).expect("merged");
        let aa: String = (text.lines())
            .filter(|l| !(l.contains("\"type\":\"command-job\"") && l.contains("\"side\":\"new\"")))
            .map(|l| {
                l.replace("\"side\":\"control\"", "\"side\":\"new\"")
                    .replace(",\"control\":true", "")
                    + "\n"
            })
            .collect();
        let aa_path = d.join("aa.jsonl");
        std::fs::write(&aa_path, aa).expect("written");
        let plain = json_of(&benchdiff(
            d,
            &[
                "report",
                "--format",
                "json",
                aa_path.to_str().expect("path"),
            ],
        ));
        assert!(plain.get("control").is_none());
        let rows = plain["comparisons"].as_array().expect("rows");
        let controls = c["comparisons"].as_array().expect("control rows");
        assert_eq!(rows.len(), controls.len());
        for (p, k) in rows.iter().zip(controls) {
            assert_eq!(p["name"], k["name"]);
            assert_eq!(p["combined"]["machines"], 2, "{p}");
            assert_eq!(p["change_pct"], k["control"]["change_pct"], "{p}\n{k}");
            let ci = &k["control"]["change_ci_pct"];
            assert_eq!(p["change_ci_pct"]["lower"], ci[0], "{p}\n{k}");
            assert_eq!(p["change_ci_pct"]["upper"], ci[1], "{p}\n{k}");
        }
        // Fake: shard 2 moved to another machine just before a control job whose round's old
        // and new jobs ran: the report refuses the pair, naming the control.
        let lines: Vec<String> = (std::fs::read_to_string(&shards[1]).expect("shard").lines())
            .map(str::to_owned)
            .collect();
        let job = |l: &str| serde_json::from_str::<serde_json::Value>(l).expect("JSON line");
        let at = (0..lines.len())
            .find(|&i| {
                let j = job(&lines[i]);
                j["type"] == "command-job"
                    && j["side"] == "control"
                    && lines[..i]
                        .iter()
                        .filter(|l| {
                            let p = job(l);
                            p["type"] == "command-job"
                                && p["combination"] == j["combination"]
                                && p["run"] == j["run"]
                        })
                        .count()
                        == 2
            })
            .expect("a control job after its round's old and new");
        let mut machine = job(lines
            .iter()
            .find(|l| l.contains("\"type\":\"machine\""))
            .expect("machine record"));
        machine["host"] = "other-host".into();
        let mut edited = lines.clone();
        edited.insert(at, machine.to_string());
        std::fs::write(&shards[1], edited.join("\n") + "\n").expect("written");
        let out = benchdiff(
            d,
            &[
                "report",
                shards[0].to_str().expect("path"),
                shards[1].to_str().expect("path"),
            ],
        );
        assert_eq!(out.status.code(), Some(2));
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(
            e.contains("and control on other-host") && e.contains("same machine"),
            "{e}"
        );
    }
}

/// `--runs auto` with a control: a control job runs in exactly the rounds its configuration's
/// old and new jobs run, so the control never runs longer than the row it controls.
#[test]
fn with_runs_auto_the_control_stops_with_its_row_never_later() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (old, new) = (shell_loop(1000), shell_loop(4000));
    let out = benchdiff(
        dir.path(),
        &[
            "compare",
            "--control",
            "--old",
            &old,
            "--new",
            &new,
            "--bench",
            "",
            "--runs",
            "auto",
            "--min-runs",
            "3",
            "--max-runs",
            "12",
            "--threshold",
            "5",
            "--seed",
            "2",
            "--results",
            "r.jsonl",
            "--csv",
            "r.csv",
            "--no-progress",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let mut per_run: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for j in records(&dir.path().join("r.jsonl"))
        .iter()
        .filter(|r| r["type"] == "command-job")
    {
        per_run
            .entry(j["run"].as_u64().expect("run"))
            .or_default()
            .insert(j["side"].as_str().expect("side").to_owned());
    }
    assert!(!per_run.is_empty());
    for (run, sides) in &per_run {
        assert_eq!(sides.len(), 3, "round {run}: {sides:?}");
    }
    // A 4x slower command is decided before --max-runs, and the control stopped with it.
    assert!(
        per_run.len() < 12,
        "decided early: {} rounds",
        per_run.len()
    );
    let out = benchdiff(dir.path(), &["report", "r.jsonl"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("control: "), "{text}");
}

#[test]
fn calibrate_judges_a_command_benchmark_on_any_metric() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bench = "-c 'i=0; while [ $i -lt 500 ]; do i=$((i+1)); done'";
    let base = [
        "calibrate",
        "--bin",
        "sh",
        "--bench",
        bench,
        "--runs",
        "4",
        "--seed",
        "3",
    ];
    let run = |extra: &[&str], results: &str| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(&["--results", results]);
        args.extend_from_slice(extra);
        benchdiff(dir.path(), &args)
    };
    let out = run(&[], "a.jsonl");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("4/4") && stdout.contains("false positives"),
        "{stdout}"
    );
    let sides: BTreeSet<String> = (records(&dir.path().join("a.jsonl")).iter())
        .filter(|r| r["type"] == "command-job")
        .map(|r| r["side"].as_str().expect("side").to_owned())
        .collect();
    assert_eq!(sides.len(), 2, "the command ran as both sides: {sides:?}");
    let out = run(&["--metric", "max_rss"], "b.jsonl");
    assert!(out.status.success());
    let out = run(&["--metric", "nope"], "c.jsonl");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metric nope: no such metric"));
}

/// A Node-file run under `--runs auto` with a control: every round that runs a file runs its
/// control too, and the control's samples settle nothing (the run goes on by old and new).
#[cfg(feature = "e2e")]
#[test]
fn a_node_run_under_runs_auto_runs_each_files_control_in_its_rounds() {
    let dir = tempfile::tempdir().expect("temp dir");
    compare(
        dir.path(),
        &[
            "--control",
            "--runs",
            "auto",
            "--min-runs",
            "2",
            "--max-runs",
            "4",
            "--seed",
            "3",
            "--csv",
            "a.csv",
            "ipc",
            "stdout",
        ],
    )
    .assert()
    .success();
    let mut per: BTreeMap<(String, u64), BTreeSet<String>> = BTreeMap::new();
    for j in jobs(&dir.path().join("results.jsonl")) {
        per.entry((
            j["file"].as_str().expect("file").to_owned(),
            j["run"].as_u64().expect("run"),
        ))
        .or_default()
        .insert(j["side"].as_str().expect("side").to_owned());
    }
    assert!(!per.is_empty());
    for (k, sides) in &per {
        assert_eq!(sides.len(), 3, "{k:?}: {sides:?}");
    }
}
