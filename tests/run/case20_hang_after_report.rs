//! Case 20 (a runner case): a benchmark child prints its result and then never exits (a
//! grandchild keeps its stdout open). Runs the stand-in `node` of
//! `tests/fixtures/hang-after-report/` (`bin/` and `benchmark/`, read in place; outputs go to a
//! temporary folder) and checks the case's points 1–5, including that the live `compare` report
//! and `benchdiff report RESULTS.jsonl` make the same choice about the samples of the timed-out
//! jobs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn case() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hang-after-report")
}

/// Processes whose environment holds `marker` (set on benchdiff, inherited by every child).
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in dir.flatten() {
        let p = e.path();
        let Ok(env) = std::fs::read(p.join("environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == marker.as_bytes()) {
            let cmd = std::fs::read(p.join("cmdline")).unwrap_or_default();
            found.push(format!(
                "{}: {}",
                p.display(),
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            ));
        }
    }
    found
}

const ROW: &str = "dgram/array-vs-concat.js type='concat' chunks=4";
const NOTE: &str = "dgram/array-vs-concat.js type='concat' chunks=4: new: 3 jobs timed out \
                    after reporting; their 3 samples are not used";

#[test]
fn hung_jobs_are_killed_and_both_reports_leave_their_samples_out_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("BENCHDIFF_CASE20_TEST={}", dir.path().display());
    let (mk, mv) = marker.split_once('=').unwrap();
    let csv = dir.path().join("out.csv");
    let results = dir.path().join("out.jsonl");
    let started = Instant::now();
    let out = assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .current_dir(case())
        .env(mk, mv)
        .env("COLUMNS", "200")
        .args([
            "compare",
            "--old",
            "./bin/node-old",
            "--new",
            "./bin/node-new",
            "--benchmark-dir",
            "benchmark",
            "--runs",
            "3",
            "--timeout",
            "3",
            "--seed",
            "7",
            "--no-progress",
        ])
        .arg("--csv")
        .arg(&csv)
        .arg("--results")
        .arg(&results)
        .arg("dgram")
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let wall = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let live = String::from_utf8_lossy(&out.stdout);

    // 1. No hang: killed after 3 s each with the process group; nothing left behind.
    assert!(wall < Duration::from_secs(60), "took {wall:?}: {stderr}");
    assert!(
        wall >= Duration::from_secs(9),
        "3 timeouts of 3 s: {wall:?}"
    );
    let left = processes_with(&marker);
    assert!(left.is_empty(), "left behind: {left:?}");

    // 2. Recorded as timed out, the other jobs went on, exit code 1.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for run in 1..=3 {
        assert!(
            stderr.contains(&format!(
                "job failed: dgram/array-vs-concat.js under new (run {run}/3): timed out after \
                 3 s; its process group was killed"
            )),
            "{stderr}"
        );
    }
    assert!(stderr.contains("3 of 12 job(s) failed"), "{stderr}");
    let text = std::fs::read_to_string(&results).unwrap();
    let jobs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["type"] == "job")
        .collect();
    assert_eq!(jobs.len(), 12);
    for j in &jobs {
        let hung = j["file"] == "dgram/array-vs-concat.js" && j["side"] == "new";
        if hung {
            assert_eq!(j["status"], "timeout", "{j}");
            assert_eq!(j["signal"], 9, "{j}");
            // The sample it printed is kept in the record, with the status that says why it
            // is not used.
            assert_eq!(j["samples"].as_array().unwrap().len(), 1, "{j}");
        } else {
            assert_eq!(j["status"], "ok", "{j}");
        }
    }

    // 3. Thousands separators are read exactly: `BB,MMM,JJJ.551989086` where JJJ is the
    // jitter j and MMM = 400 + j % 200 (bin/fake-node).
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    let rates: Vec<&str> = csv_text
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').nth(1).unwrap())
        .collect();
    assert_eq!(rates.len(), 12, "{csv_text}");
    for r in &rates {
        let (int, frac) = r.split_once('.').unwrap();
        assert_eq!(frac, "551989086", "{r}");
        assert_eq!(int.len(), 8, "{r}");
        let m: u32 = int[2..5].parse().unwrap();
        let j: u32 = int[5..].parse().unwrap();
        assert_eq!(m, 400 + j % 200, "{r}");
    }

    // 4. dgram/bind.js is compared normally with 3+3 samples.
    let bind = live
        .lines()
        .find(|l| l.contains("dgram/bind.js"))
        .unwrap_or_else(|| panic!("{live}"));
    assert!(bind.contains(" 3/3"), "{bind}");
    assert!(!bind.contains("NA"), "{bind}");

    // 5. One policy: the live report leaves the 3 samples of the timed-out jobs out and says
    // so for that row; `benchdiff report` on the results file does the same.
    // With no sample left on the new side the row is not compared: it is listed as failed
    // (never as "only in old", never "faster"), in the summary line and the failures section.
    assert!(
        !live.lines().any(|l| l.trim_start().starts_with(ROW)),
        "{live}"
    );
    assert!(!live.contains("only in old"), "{live}");
    assert!(
        live.contains("new: 3 of 3 jobs timed out after reporting; their 3 samples are not used"),
        "{live}"
    );
    assert!(
        live.contains("; FAILED: 1 benchmark with failed jobs (3 jobs timed out)"),
        "{live}"
    );
    assert!(
        stderr.contains(&format!("benchdiff: warning: {NOTE}")),
        "{stderr}"
    );
    let rep = assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .env("COLUMNS", "200")
        .arg("report")
        .arg(&results)
        .output()
        .unwrap();
    let rep_stdout = String::from_utf8_lossy(&rep.stdout);
    let rep_stderr = String::from_utf8_lossy(&rep.stderr);
    assert!(rep.status.success(), "{rep_stderr}");
    assert!(rep_stderr.contains(NOTE), "{rep_stderr}");
    assert_eq!(rep_stdout, live, "the two reports of one run differ");
}
