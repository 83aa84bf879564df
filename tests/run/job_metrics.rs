//! A command job's own measurements (wall, user, sys, peak RSS, counters) are one sample per
//! job, recorded once in its record; result-line samples carry only what their line said.
//! Commands timed as whole processes are reported by their wall time by default (lower is
//! better, a positive change is slower, as hyperfine reports time); the rate stays available.
//! Real child processes (`sh` scripts in a temporary folder, `sleep`); nothing is mocked.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).expect("script written");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("executable");
    p
}

fn benchdiff(dir: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").expect("binary built");
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "200");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `command-job` records of a results file.
fn jobs(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("results file")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON record"))
        .filter(|r| r["type"] == "command-job")
        .collect()
}

/// `benchdiff report FILE ARGS…` as JSON.
fn report_json(dir: &Path, file: &str, args: &[&str]) -> serde_json::Value {
    let o = benchdiff(dir)
        .args(["report", file, "--format", "json"])
        .args(args)
        .output()
        .expect("benchdiff runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON report")
}

/// The one comparison of a JSON report whose name starts with `name`.
fn row<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    let rows = report["comparisons"]
        .as_array()
        .expect("comparisons listed");
    rows.iter()
        .find(|r| r["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .unwrap_or_else(|| panic!("no row {name}: {report}"))
}

/// The sample counts (old, new) of a JSON report's row.
fn n(r: &serde_json::Value) -> (Option<u64>, Option<u64>) {
    (r["old"]["n"].as_u64(), r["new"]["n"].as_u64())
}

/// A program that prints `lines` result lines `x: RATE` in its one run: `--metric wall` has
/// one sample a side (the job's), so the row is inconclusive with no exact p-value; each
/// sample in the file carries only its line's rate, the job record the job's measurements.
#[test]
fn one_run_of_many_lines_is_one_wall_sample_a_side() {
    let d = tempfile::tempdir().expect("temporary folder");
    let body = "i=0\nwhile [ $i -lt 5000 ]; do echo \"x: $((1000 + i % 7))\"; i=$((i + 1)); done";
    script(d.path(), "old", body);
    script(d.path(), "new", &format!("sleep 0.05\n{body}"));
    let o = benchdiff(d.path())
        .args([
            "compare",
            "--old",
            "./old",
            "--new",
            "./new",
            "--bench",
            "",
            "--runs",
            "1",
            "--results",
            "r.jsonl",
            "--csv",
            "r.csv",
        ])
        .output()
        .expect("benchdiff runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    for j in jobs(&d.path().join("r.jsonl")) {
        let names: Vec<&str> = (j["metrics"].as_array().expect("job metrics").iter())
            .map(|m| m["name"].as_str().expect("name"))
            .collect();
        assert_eq!(
            names,
            ["wall", "user", "sys", "max_rss"],
            "{}",
            j["metrics"]
        );
        assert_eq!(j["metrics"][0]["value"], j["wall_s"]);
        let samples = j["samples"].as_array().expect("samples");
        assert_eq!(samples.len(), 5000);
        for s in samples {
            assert!(s.get("metrics").is_none(), "a line's sample: {s}");
            assert!(
                s.get("params").is_none() && s.get("time_s").is_none(),
                "{s}"
            );
        }
    }
    let wall = report_json(d.path(), "r.jsonl", &["--metric", "wall"]);
    let r = row(&wall, "x");
    assert_eq!(n(r), (Some(1), Some(1)), "{r}");
    assert_eq!(r["verdict"], "inconclusive", "{r}");
    assert!(
        r["p_value"].is_null() || r["p_value"].as_f64().is_some_and(|p| p > 0.05),
        "{r}"
    );
    let table = benchdiff(d.path())
        .args(["report", "r.jsonl", "--metric", "wall"])
        .output()
        .expect("benchdiff runs");
    let out = text(&table.stdout);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("x "))
        .expect("row x");
    assert!(!line.contains("exact"), "{out}");
    assert!(line.contains("1/1"), "{out}");
    // The lines themselves: 5,000 rate samples a side, reported by default (a program that
    // prints result lines is measured by them).
    let rate = report_json(d.path(), "r.jsonl", &[]);
    let r = row(&rate, "x");
    assert_eq!(n(r), (Some(5000), Some(5000)), "{r}");
}

/// 90,000 result lines in one run: the results file holds each line's figures once and the
/// job's measurements once, well under 10 MB (it held about 700 bytes a line when every line
/// repeated the job's).
#[test]
fn results_file_of_a_90000_line_job_is_small() {
    let d = tempfile::tempdir().expect("temporary folder");
    script(d.path(), "lines", "seq 1 90000 | sed 's/.*/x: &/'");
    let o = benchdiff(d.path())
        .args([
            "compare",
            "--old",
            "./lines",
            "--new",
            "./lines",
            "--bench",
            "",
            "--runs",
            "1",
            "--results",
            "r.jsonl",
            "--csv",
            "/dev/null",
        ])
        .output()
        .expect("benchdiff runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let bytes = std::fs::metadata(d.path().join("r.jsonl"))
        .expect("results file")
        .len();
    // Two jobs of 90,000 samples each, in one file under 10 MB (about 7.9 MB).
    assert!(bytes < 10_000_000, "{bytes} bytes for two 90,000-line jobs");
    let wall = report_json(d.path(), "r.jsonl", &["--metric", "wall"]);
    let r = row(&wall, "x");
    assert_eq!(n(r), (Some(1), Some(1)), "{r}");
    let rate = report_json(d.path(), "r.jsonl", &["--metric", "rate"]);
    let r = row(&rate, "x");
    assert_eq!(n(r), (Some(90_000), Some(90_000)), "{r}");
}

/// `sleep 0.01` against `sleep 0.04`: reported by wall time, the header says so, the change
/// is positive and the verdict "slower"; `--metric rate` gives the change of runs per second
/// (negative, still slower). Four times as long, so that a loaded machine still decides it.
#[test]
fn whole_process_commands_report_wall_time_by_default() {
    let d = tempfile::tempdir().expect("temporary folder");
    let base = [
        "compare",
        "--old",
        "sleep 0.01",
        "--new",
        "sleep 0.04",
        "--bench",
        "",
        "--runs",
        "10",
        "--results",
        "r.jsonl",
        "--csv",
        "r.csv",
    ];
    let o = benchdiff(d.path())
        .args(base)
        .output()
        .expect("benchdiff runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.starts_with("metric: wall (s), lower is better"),
        "{out}"
    );
    let line = out.lines().find(|l| l.contains("sleep")).expect("row");
    let change = line.split_whitespace().nth(1).expect("change");
    assert!(change.starts_with('+'), "{line}");
    assert!(line.contains("slower"), "{out}");
    // The same from the results file; the rate on request.
    let again = report_json(d.path(), "r.jsonl", &[]);
    let r = row(&again, "sleep");
    assert_eq!(r["metric"]["name"], "wall", "{r}");
    assert!(r["change_pct"].as_f64().is_some_and(|c| c > 0.0), "{r}");
    let rate = report_json(d.path(), "r.jsonl", &["--metric", "rate"]);
    let r = row(&rate, "sleep");
    assert!(r["change_pct"].as_f64().is_some_and(|c| c < 0.0), "{r}");
    assert_eq!(r["verdict"], "slower", "{r}");
    // compare.js's layout keeps the rate (no conversion note, rate figures).
    let o = benchdiff(d.path())
        .args(["report", "r.jsonl", "--format", "r"])
        .output()
        .expect("benchdiff runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        !text(&o.stderr).contains("converted to a rate"),
        "{}",
        text(&o.stderr)
    );
    let r_out = text(&o.stdout);
    let line = r_out.lines().find(|l| l.starts_with("sleep")).expect("row");
    assert!(line.contains(" -"), "{r_out}");
}

/// A results file written before job measurements were recorded once per job (every sample
/// repeats the job's wall/user/sys/max_rss first, `tests/data/results/cmd-multi.jsonl`)
/// still loads: its rate table is the one that version printed, its program metric is the
/// line's, and its wall is one sample per job (2 jobs a side), in the job's own row when its
/// lines name several rows.
#[test]
fn old_results_files_give_one_job_sample() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results");
    let file = data.join("cmd-multi.jsonl");
    let file = file.to_str().expect("UTF-8 path");
    let d = tempfile::tempdir().expect("temporary folder");
    let o = benchdiff(d.path())
        .args(["report", file])
        .output()
        .expect("benchdiff runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let want = std::fs::read_to_string(data.join("cmd-multi.report.txt")).expect("golden");
    assert_eq!(text(&o.stdout), want);
    let wall = report_json(d.path(), file, &["--metric", "wall"]);
    let rows = wall["comparisons"].as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{wall}");
    let r = row(&wall, "prog n=3");
    assert_eq!(n(r), (Some(2), Some(2)), "{r}");
    let allocs = report_json(d.path(), file, &["--metric", "allocs"]);
    let r = row(&allocs, "y n=3");
    assert_eq!(n(r), (Some(2), Some(2)), "{r}");
    let rate = report_json(d.path(), file, &[]);
    let r = row(&rate, "x n=3");
    assert_eq!(n(r), (Some(6), Some(6)), "{r}");
}
