//! Issue 15, "nothing hidden": a benchmark whose jobs failed is listed by every report format
//! with its cause and counts (the summary line too), a pull-request comment shows it at the
//! top and never says "no change" alone, and `--max-regression` fails on it. Runs a real tiny
//! Node benchmark folder in which one file throws on every run.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use std::path::Path;
use std::process::Output;

/// A benchmark folder `bench/`: `cat/ok.js` reports two configurations over IPC,
/// `cat/throws.js` throws before reporting anything.
fn suite(dir: &Path) {
    let cat = dir.join("bench/cat");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(
        cat.join("ok.js"),
        "'use strict';\n\
         process.send({ type: 'config', name: 'cat/ok.js', queueLength: 2 });\n\
         for (const n of [1, 2]) {\n\
           process.send({ name: 'cat/ok.js', conf: { n }, rate: 1000 * n + Math.random() * 10,\n\
             time: '0.001000000', type: 'report' });\n\
         }\n",
    )
    .unwrap();
    std::fs::write(
        cat.join("throws.js"),
        "'use strict';\nthrow new Error('boom: throws.js always fails');\n",
    )
    .unwrap();
}

fn benchdiff(dir: &Path, args: &[&str]) -> Output {
    assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .current_dir(dir)
        .env("COLUMNS", "200")
        .env("NO_COLOR", "1")
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs the suite (3 runs) with the Markdown report; returns the temp dir and the output.
fn run_markdown() -> (tempfile::TempDir, Output) {
    let dir = tempfile::tempdir().unwrap();
    suite(dir.path());
    let out = benchdiff(
        dir.path(),
        &[
            "compare",
            "--old",
            "node",
            "--new",
            "node",
            "--runs",
            "3",
            "--seed",
            "1",
            "--benchmark-dir",
            "bench",
            "--no-progress",
            "--csv",
            "out.csv",
            "--results",
            "r.jsonl",
            "--format",
            "markdown",
            "cat",
        ],
    );
    (dir, out)
}

#[cfg(feature = "e2e")]
#[test]
fn markdown_of_a_run_with_a_failing_benchmark_shows_it_at_the_top() {
    let (dir, out) = run_markdown();
    let md = text(&out.stdout);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a job failed: {err}\n{md}");
    eprintln!("{md}");
    let first = md.lines().next().unwrap_or_default();
    assert!(
        first.contains("**FAILED: 1 benchmark with failed jobs (6 jobs failed)**"),
        "summary line: {first}"
    );
    let failed = md
        .find("cat/throws.js: old: 3 of 3 jobs failed")
        .expect(&md);
    assert!(
        md.contains("cat/throws.js: new: 3 of 3 jobs failed"),
        "{md}"
    );
    assert!(
        md.contains("boom: throws.js always fails"),
        "cause shown: {md}"
    );
    let table = md.find("| benchmark |").expect(&md);
    assert!(failed < table, "failures come before the tables:\n{md}");
    assert!(
        !md.contains("No benchmark changed significantly"),
        "never 'no change' while something failed:\n{md}"
    );
    // The report of the results file says the same.
    let rep = benchdiff(dir.path(), &["report", "r.jsonl", "--format", "markdown"]);
    assert!(rep.status.success(), "{}", text(&rep.stderr));
    assert_eq!(
        text(&rep.stdout),
        md,
        "live and results-file reports differ"
    );
}

#[cfg(feature = "e2e")]
#[test]
fn every_format_lists_the_failure_and_the_gate_fails() {
    let (dir, _) = run_markdown();
    let d = dir.path();
    // Table: summary line and section.
    let t = text(&benchdiff(d, &["report", "r.jsonl"]).stdout);
    assert!(
        t.contains("; FAILED: 1 benchmark with failed jobs (6 jobs failed)"),
        "{t}"
    );
    assert!(
        t.contains("  cat/throws.js: new: 3 of 3 jobs failed"),
        "{t}"
    );
    // JSON: a failures array that validates against the schema.
    let j = text(&benchdiff(d, &["report", "r.jsonl", "--format", "json"]).stdout);
    let doc: serde_json::Value = serde_json::from_str(&j).unwrap();
    let f = doc["failures"].as_array().expect("failures array");
    assert_eq!(f.len(), 2, "{j}");
    assert_eq!(f[0]["benchmark"], "cat/throws.js");
    assert_eq!(f[0]["side"], "old");
    assert_eq!(f[0]["status"], "failed");
    assert_eq!(f[0]["jobs"], 3);
    assert_eq!(f[0]["of_jobs"], 3);
    assert!(
        f[0]["cause"]
            .as_str()
            .unwrap()
            .contains("boom: throws.js always fails"),
        "{j}"
    );
    assert_eq!(doc["summary"]["failed_benchmarks"], 1);
    let schema_path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // HTML, analyze, benchstat, and compare.R's layout (stderr).
    let h = text(&benchdiff(d, &["report", "r.jsonl", "--format", "html"]).stdout);
    assert!(h.contains("<h2>Failed benchmarks</h2>"), "{h}");
    assert!(h.contains("cat/throws.js: new: 3 of 3 jobs failed"), "{h}");
    for fmt in ["analyze", "benchstat"] {
        let o = text(&benchdiff(d, &["report", "r.jsonl", "--format", fmt]).stdout);
        assert!(
            o.contains("FAILED: 1 benchmark with failed jobs"),
            "{fmt}: {o}"
        );
        assert!(
            o.contains("cat/throws.js: old: 3 of 3 jobs failed"),
            "{fmt}: {o}"
        );
    }
    let r = benchdiff(d, &["report", "r.jsonl", "--format", "r"]);
    assert!(
        text(&r.stderr).contains("warning: failed: cat/throws.js: old: 3 of 3 jobs failed"),
        "{}",
        text(&r.stderr)
    );
    // The gate: nothing regressed, but a benchmark failed.
    let g = benchdiff(d, &["report", "r.jsonl", "--max-regression", "50"]);
    assert_eq!(g.status.code(), Some(1), "{}", text(&g.stderr));
    assert!(text(&g.stderr).contains("FAIL: 1 benchmark with failed jobs"));
}

#[test]
fn timed_out_jobs_are_failures_not_one_sided_rows() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/results/node-timeout.jsonl"
    );
    let out = benchdiff(Path::new("."), &["report", p, "--format", "markdown"]);
    let md = text(&out.stdout);
    assert!(out.status.success());
    assert!(!md.contains("only in old"), "{md}");
    let f = md
        .find("dgram/array-vs-concat.js: new: 2 of 2 jobs timed out after reporting; their 2 samples are not used")
        .expect(&md);
    assert!(f < md.find("| benchmark |").expect(&md), "{md}");
}

#[cfg(feature = "e2e")]
#[test]
fn a_run_in_which_every_benchmark_failed_still_reports_the_failures() {
    let dir = tempfile::tempdir().unwrap();
    suite(dir.path());
    std::fs::remove_file(dir.path().join("bench/cat/ok.js")).unwrap();
    let live = benchdiff(
        dir.path(),
        &[
            "compare",
            "--old",
            "node",
            "--new",
            "node",
            "--runs",
            "1",
            "--benchmark-dir",
            "bench",
            "--no-progress",
            "--csv",
            "out.csv",
            "--results",
            "r.jsonl",
            "--format",
            "markdown",
            "cat",
        ],
    );
    assert_eq!(live.status.code(), Some(1));
    let md = text(&live.stdout);
    assert!(md.contains("cat/throws.js: new: 1 of 1 job failed"), "{md}");
    let rep = benchdiff(dir.path(), &["report", "r.jsonl", "--format", "json"]);
    assert!(rep.status.success(), "{}", text(&rep.stderr));
    assert!(
        !text(&rep.stderr).contains("no samples"),
        "{}",
        text(&rep.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    assert_eq!(doc["failures"].as_array().map(Vec::len), Some(2));
    assert_eq!(doc["summary"]["comparisons"], 0);
}
