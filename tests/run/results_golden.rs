//! Results files written by earlier versions of benchdiff (`tests/data/results/`, see its
//! README) must still load: `benchdiff report FILE` prints the same table as the version that
//! wrote them, with the same sample counts.

use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/results")
        .join(name)
}

/// `benchdiff report FILE ARGS…` stdout (exit code 0 asserted).
fn report_with(file: &str, args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("benchdiff")
        .expect("binary built")
        .env_remove("NO_COLOR")
        .env("COLUMNS", "200")
        .arg("report")
        .arg(data(file))
        .args(args)
        .output()
        .expect("benchdiff runs");
    assert!(
        out.status.success(),
        "report {file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 report")
}

/// The `runs` column (`old/new` counts) of the row whose benchmark starts with `row`.
fn runs_of(report: &str, row: &str) -> String {
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with(row))
        .unwrap_or_else(|| panic!("no row {row:?} in\n{report}"));
    line.split_whitespace()
        .find(|w| {
            let mut p = w.split('/');
            matches!((p.next(), p.next(), p.next()), (Some(a), Some(b), None)
                if a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok())
        })
        .unwrap_or_else(|| panic!("no runs column in {line:?}"))
        .to_owned()
}

/// `benchdiff report FILE` stdout (exit code 0 asserted).
fn report(file: &str) -> String {
    report_with(file, &[])
}

fn check(name: &str) -> String {
    check_with(name, &[])
}

/// `benchdiff report NAME.jsonl ARGS…` is `NAME.report.txt`.
fn check_with(name: &str, args: &[&str]) -> String {
    let got = report_with(&format!("{name}.jsonl"), args);
    let want =
        std::fs::read_to_string(data(&format!("{name}.report.txt"))).expect("expected report");
    assert_eq!(got, want, "report of {name}.jsonl changed");
    got
}

#[test]
fn node_run_of_ipc_and_stdout_results_loads() {
    let r = check("node-run");
    assert_eq!(runs_of(&r, "ipc/basic.js kind='plain' n=1"), "2/2");
    assert_eq!(runs_of(&r, "stdout/plain.js label='a \"b\"' n=20"), "2/2");
    assert!(r.contains("6 comparisons"), "{r}");
}

#[test]
fn node_run_with_timed_out_jobs_loads() {
    let r = check("node-timeout");
    assert_eq!(runs_of(&r, "dgram/bind.js"), "2/2");
    // The two new jobs timed out after printing their sample: those samples are not used, and
    // the benchmark is listed as failed (not as "only in old"), in the summary line too.
    assert!(!r.contains("only in old"), "{r}");
    assert!(
        r.contains("FAILED: 1 benchmark with failed jobs (2 jobs timed out)"),
        "{r}"
    );
    assert!(
        r.contains(
            "dgram/array-vs-concat.js: new: 2 of 2 jobs timed out after reporting; their 2 \
             samples are not used"
        ),
        "{r}"
    );
}

#[test]
fn command_run_with_warmups_loads() {
    // That version reported the rate; commands timed as whole processes are now reported by
    // their wall time, one sample per job, and the rate's table is the one it printed.
    let r = check_with("cmd-run", &["--metric", "rate"]);
    assert_eq!(runs_of(&r, "command"), "3/3");
    let wall = report("cmd-run.jsonl");
    assert!(
        wall.starts_with("metric: wall (s), lower is better"),
        "{wall}"
    );
    assert_eq!(runs_of(&wall, "command"), "3/3");
}

#[test]
fn command_run_with_result_lines_and_failures_loads() {
    let r = check("cmd-lines");
    assert_eq!(runs_of(&r, "calc n=1 code=0"), "2/2");
    assert_eq!(runs_of(&r, "calc n=2 code=0"), "2/2");
    // Failed jobs give no samples: their benchmarks are no rows, but they are listed as failed.
    assert!(
        !r.lines().any(|l| l.contains("code=1")
            && l.contains("/")
            && l.split_whitespace().any(|w| w == "2/2")),
        "failed jobs give no samples:\n{r}"
    );
    assert!(r.contains("n=1 code=1: new: 2 of 2 jobs failed"), "{r}");
    assert!(
        r.contains("FAILED: 2 benchmarks with failed jobs (8 jobs failed)"),
        "{r}"
    );
}

/// The one loader reads both kinds of golden file into the one record model (typed status
/// and side for both) and fails with one error type naming file and line.
#[test]
fn one_loader_reads_both_kinds_with_typed_records() {
    use benchdiff::format::results::{Header, JobStatus, load, load_from};
    use benchdiff::sample::Side;
    let node = load(&data("node-timeout.jsonl")).expect("node file loads");
    assert!(matches!(node.header, Header::Node(_)));
    assert_eq!(node.done.len(), 6, "8 jobs, 2 timed out");
    assert!(node.command_done.is_empty());
    assert_eq!(
        node.unused
            .samples("dgram/array-vs-concat.js type='concat' chunks=4", Side::New),
        2
    );
    let cmd = load(&data("cmd-lines.jsonl")).expect("command file loads");
    assert!(matches!(cmd.header, Header::Command(_)));
    assert!(cmd.done.is_empty());
    assert_eq!(cmd.command_done.len(), 8, "16 jobs, 8 failed");
    assert!(cmd.command_done.iter().all(|j| j.status == JobStatus::Ok));
    assert_eq!(
        cmd.command_done
            .iter()
            .filter(|j| j.side == Side::New)
            .count(),
        4
    );
    let e = load_from("{\"type\":\"command-job\"}\n".as_bytes(), "x.jsonl")
        .expect_err("a job before the plan");
    assert_eq!((e.file.as_str(), e.line), ("x.jsonl", 1));
    assert!(
        e.to_string().starts_with("results file: x.jsonl: line 1: "),
        "{e}"
    );
}
