//! The policy of case 20 for command benchmarks too: result lines printed by a job that did
//! not end `ok` are kept in its record but used by no report; the live `compare` report and
//! `benchdiff report RESULTS.jsonl` leave them out and print the same note for the row.

use std::time::Duration;

const NOTE: &str = "calc n=1: new: 2 jobs timed out after reporting; their 2 samples are not used";

#[test]
fn command_jobs_that_time_out_after_reporting_are_noted_in_both_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .current_dir(dir.path())
        .env("COLUMNS", "200")
        .args([
            "compare",
            "--old",
            "sh",
            "--new",
            "sh",
            "--bench",
            "-c 'echo \"calc n={n}: 1,00{n}\"; if [ \"$BENCHDIFF_SIDE\" = new ] && [ {n} = 1 ]; then sleep 30; fi'",
            "-L",
            "n=1,2",
            "--runs",
            "2",
            "--timeout",
            "1",
            "--seed",
            "1",
            "--no-progress",
            "--csv",
            "out.csv",
            "--results",
            "r.jsonl",
        ])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let live = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("benchdiff: warning: {NOTE}")),
        "{stderr}"
    );
    // With no sample left on the new side the row is not compared: it is listed as failed,
    // not as "only in old".
    assert!(
        !live.lines().any(|l| l.trim_start().starts_with("calc n=1")),
        "{live}"
    );
    assert!(!live.contains("only in old"), "{live}");
    assert!(
        live.contains("FAILED: 1 benchmark with failed jobs"),
        "{live}"
    );
    assert!(live.contains(": new: 2 of 2 jobs"), "{live}");
    let other = live
        .lines()
        .find(|l| l.contains("calc n=2"))
        .unwrap_or_else(|| panic!("{live}"));
    assert!(other.contains(" 2/2"), "{other}");
    // The record keeps what the job printed, with the status that says why it is not used.
    let text = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    let timed_out: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["type"] == "command-job" && r["status"] == "timeout")
        .collect();
    assert_eq!(timed_out.len(), 2);
    assert!(timed_out.iter().all(|j| j["samples"][0]["rate"] == 1001.0));

    let rep = assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .current_dir(dir.path())
        .env("COLUMNS", "200")
        .args(["report", "r.jsonl"])
        .output()
        .unwrap();
    let rep_stderr = String::from_utf8_lossy(&rep.stderr);
    assert!(rep.status.success(), "{rep_stderr}");
    assert!(rep_stderr.contains(NOTE), "{rep_stderr}");
    assert_eq!(String::from_utf8_lossy(&rep.stdout), live);
}
