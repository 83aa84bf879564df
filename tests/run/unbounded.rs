//! Bounded memory whatever a benchmark prints: a job that prints result lines without end is
//! stopped at the per-job sample limit (recorded, reported, the run goes on), and a job with
//! more samples than one results record holds is written so that the results file reads back
//! whole. Each run is bounded in time and virtual memory (`ulimit -v`), so a regression fails
//! instead of exhausting the machine.

use crate::common::bounded;
use std::time::Duration;

/// Virtual memory allowed to benchdiff, KiB (4 GB; the runaway job used to need more).
const VMEM_KB: u64 = 4_000_000;
/// The per-job sample limit (`format::results::MAX_JOB_SAMPLES`).
const LIMIT: u64 = 100_000;
/// The longest line the results reader accepts (`format::results::MAX_RECORD_BYTES`).
const MAX_RECORD_BYTES: usize = 16 << 20;

/// Samples a results file holds per job (position): those of the job record and of the
/// `command-samples` parts before it; and the longest line.
fn samples_per_job(path: &std::path::Path) -> (Vec<(String, u64)>, usize) {
    let text = std::fs::read_to_string(path).expect("results file");
    let longest = text.lines().map(str::len).max().unwrap_or(0);
    let mut parts = 0u64;
    let mut jobs = Vec::new();
    for l in text.lines() {
        let r: serde_json::Value = serde_json::from_str(l).expect("every line is JSON");
        let n = r["samples"].as_array().map_or(0, |s| s.len() as u64);
        match r["type"].as_str() {
            Some("command-samples") => parts += n,
            Some("command-job") => {
                assert_eq!(r["samples_before"].as_u64().unwrap_or(0), parts, "{l:.300}");
                jobs.push((r["status"].as_str().unwrap_or("").to_owned(), parts + n));
                parts = 0;
            }
            _ => {}
        }
    }
    (jobs, longest)
}

#[test]
fn a_job_printing_result_lines_without_end_is_stopped_at_the_sample_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    // `yes 'x: 1'` prints a valid result line without end.
    let run = bounded::run(
        dir.path(),
        &[
            "compare",
            "--old",
            "yes",
            "--new",
            "yes",
            "--bench",
            "x: 1",
            "--runs",
            "1",
            "--results",
            "r.jsonl",
        ],
        None,
        VMEM_KB,
        Duration::from_secs(400),
    );
    eprintln!(
        "runaway jobs: {:.1} s, peak RSS {:.0} MB, exit {:?}",
        run.seconds, run.rss_mb, run.code
    );
    assert!(!run.timed_out, "killed at the deadline: {run:?}");
    // Both jobs failed (exit 1), neither aborted nor lost.
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("reported more than 100000 samples, the limit per job: stopped there"),
        "{}",
        run.stderr
    );
    assert!(run.rss_mb < 1000.0, "peak RSS {:.0} MB", run.rss_mb);
    let (jobs, longest) = samples_per_job(&dir.path().join("r.jsonl"));
    assert_eq!(
        jobs,
        vec![("failed".to_owned(), LIMIT), ("failed".to_owned(), LIMIT)]
    );
    assert!(longest < MAX_RECORD_BYTES / 4, "a line of {longest} bytes");
    // The report of the file names the limit as the jobs' failure and counts their samples.
    let report = bounded::run(
        dir.path(),
        &["report", "r.jsonl"],
        None,
        VMEM_KB,
        Duration::from_secs(200),
    );
    assert!(matches!(report.code, Some(0 | 1)), "{}", report.stderr);
    let all = format!("{}{}", report.stdout, report.stderr);
    assert!(
        all.contains("yes: old: 1 of 1 job failed after reporting; their 100000 samples are not used (reported more than 100000 samples, the limit per job"),
        "{all}"
    );
}

#[test]
fn a_job_with_more_samples_than_one_record_holds_reads_back_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    // 60,000 result lines: one record of them would be about 21 MB, over the reader's limit.
    let program = "BEGIN { for (i = 0; i < 60000; i++) print \"x: \" (1000 + i % 7) }";
    let quoted = format!("'{program}'");
    let run = bounded::run(
        dir.path(),
        &[
            "compare",
            "--old",
            "awk",
            "--new",
            "awk",
            "--bench",
            &quoted,
            "--runs",
            "1",
            "--results",
            "r.jsonl",
        ],
        None,
        VMEM_KB,
        Duration::from_secs(400),
    );
    assert!(!run.timed_out, "killed at the deadline: {run:?}");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let (jobs, longest) = samples_per_job(&dir.path().join("r.jsonl"));
    assert_eq!(
        jobs,
        vec![("ok".to_owned(), 60_000), ("ok".to_owned(), 60_000)]
    );
    assert!(longest < MAX_RECORD_BYTES / 4, "a line of {longest} bytes");
    // `report` of the run's own file reads every sample: 60,000 per side.
    let report = bounded::run(
        dir.path(),
        &["report", "r.jsonl", "--format", "json"],
        None,
        VMEM_KB,
        Duration::from_secs(200),
    );
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    assert!(!report.stderr.contains("no samples"), "{}", report.stderr);
    let json: serde_json::Value = serde_json::from_str(&report.stdout).expect("JSON report");
    let rate = json["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| c["metric"]["name"] == "rate")
        .expect("the rate comparison");
    assert_eq!(rate["old"]["n"], 60_000, "{rate}");
    assert_eq!(rate["new"]["n"], 60_000, "{rate}");
}
