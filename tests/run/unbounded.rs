//! Bounded memory whatever a benchmark prints: a job that prints result lines without end, wide
//! lines of many metrics, or lines holding more bytes than a job may keep is stopped at that
//! limit of its budget (recorded, reported, the run goes on), and a job with more samples than one results record holds is written so that the results file reads back
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

/// Asserts that the run `run` (named `what` in its timing line) ended in time with exit 1,
/// its stderr saying `why`, in less than `max_rss_mb` MB of peak RSS: the jobs failed at a
/// limit of their budget, recorded and reported, and none aborted.
fn assert_stopped(run: &bounded::Bounded, what: &str, why: &str, max_rss_mb: f64) {
    eprintln!(
        "{what}: {:.1} s, peak RSS {:.0} MB, exit {:?}",
        run.seconds, run.rss_mb, run.code
    );
    assert!(!run.timed_out, "killed at the deadline: {run:?}");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains(why), "{}", run.stderr);
    assert!(run.rss_mb < max_rss_mb, "peak RSS {:.0} MB", run.rss_mb);
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
    // Both jobs failed (exit 1), neither aborted nor lost.
    let why = "reported more than 100000 samples, the limit per job: stopped there";
    assert_stopped(&run, "runaway jobs", why, 1000.0);
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

/// Runs `awk PROGRAM` as both sides (`PROGRAM` is a command template: `}}` in it is one `}`) of a one-run command benchmark under the memory bound,
/// killed after `limit`; the results file is `r.jsonl` in `dir`.
fn awk_run(dir: &std::path::Path, program: &str, limit: Duration) -> bounded::Bounded {
    let quoted = format!("'{program}'");
    bounded::run(
        dir,
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
        limit,
    )
}

/// The `command-job` records of a results file: status, error, samples in the record.
fn job_records(path: &std::path::Path) -> Vec<(String, String, usize)> {
    let text = std::fs::read_to_string(path).expect("results file");
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["type"] == "command-job")
        .map(|r| {
            (
                r["status"].as_str().unwrap_or("").to_owned(),
                r["error"].as_str().unwrap_or("").to_owned(),
                r["samples"].as_array().map_or(0, Vec::len),
            )
        })
        .collect()
}

#[test]
fn a_job_printing_wide_result_lines_is_stopped_at_the_metric_limit_in_seconds() {
    let dir = tempfile::tempdir().expect("temp dir");
    // 3,000 JSON result lines of about 0.5 MB, each with 25,000 metrics: under the line
    // limit, many times the memory they take as text once parsed.
    let program = "BEGIN { s = \"{\\\"rate\\\":1000.5,\\\"metrics\\\":{\\\"m0\\\":0.25\"; \
                   for (i = 1; i < 25000; i += 100) { t = \"\"; \
                   for (j = i; j < i + 100 && j < 25000; j++) t = t \",\\\"metric_\" j \"\\\":\" j \".25\"; \
                   s = s t }; \
                   s = s \"}}}}\"; for (n = 0; n < 3000; n++) print s }";
    let run = awk_run(dir.path(), program, Duration::from_secs(60));
    // Both jobs failed (exit 1), neither aborted nor lost; the run went on to the second.
    let why = "a result line reported 25000 metrics, more than 1000, the limit per line: \
               stopped there, before its first sample";
    assert_stopped(&run, "wide lines", why, 1000.0);
    assert!(run.seconds < 60.0, "{:.1} s", run.seconds);
    let jobs = job_records(&dir.path().join("r.jsonl"));
    assert_eq!(
        jobs,
        vec![("failed".to_owned(), why.to_owned(), 0); 2],
        "{jobs:?}"
    );
}

#[test]
fn a_job_whose_result_lines_hold_too_many_bytes_is_stopped_at_the_byte_budget() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Lines of 1,000 metrics (the most a line may have) with names of 800 bytes: about 0.8 MB
    // each held, so the 128 MiB budget of a job ends it after about 155 of its 1,000 lines.
    let program = "BEGIN { pad = \"x\"; while (length(pad) < 800) pad = pad pad; \
                   pad = substr(pad, 1, 800); s = \"{\\\"rate\\\":7,\\\"metrics\\\":{\\\"m0\\\":1\"; \
                   for (i = 1; i < 1000; i += 50) { t = \"\"; \
                   for (j = i; j < i + 50 && j < 1000; j++) t = t \",\\\"m\" j pad \"\\\":\" j; \
                   s = s t }; \
                   s = s \"}}}}\"; for (n = 0; n < 1000; n++) print s }";
    // One job (`run`): every sample it keeps is written to the results file.
    let quoted = format!("'{program}'");
    let run = bounded::run(
        dir.path(),
        &[
            "run",
            "--bin",
            "awk",
            "--bench",
            &quoted,
            "--results",
            "r.jsonl",
        ],
        None,
        VMEM_KB,
        Duration::from_secs(120),
    );
    let why = "reported samples holding more than 128 MiB, the limit per job: stopped there; \
               its first";
    assert_stopped(&run, "heavy lines", why, 2000.0);
    let (jobs, longest) = samples_per_job(&dir.path().join("r.jsonl"));
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    for (status, kept) in &jobs {
        assert_eq!(status, "failed");
        // 128 MiB of lines holding 0.8 to 0.9 MB each.
        assert!((130..=170).contains(kept), "{kept} samples kept");
    }
    assert!(longest < MAX_RECORD_BYTES / 4, "a line of {longest} bytes");
    let records = job_records(&dir.path().join("r.jsonl"));
    for (_, error, _) in &records {
        let n = jobs[0].1;
        assert!(
            error.ends_with(&format!(
                "its first {n} samples are kept in the results file"
            )),
            "{error}"
        );
    }
}
