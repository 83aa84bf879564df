//! Output paths are checked before a run starts (issue 15, points 3 and 6) and failed jobs set
//! the exit code under `--fail-on-error` (point 1). Real `benchdiff` runs of a command
//! benchmark (`/bin/true`, `/bin/false`) in a temporary folder.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use std::path::Path;

fn benchdiff(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("run benchdiff")
}

fn compare(dir: &Path, program: &str, extra: &[&str]) -> std::process::Output {
    let mut a = vec![
        "compare", "--old", program, "--new", program, "--bench", "", "--runs", "2",
    ];
    a.extend_from_slice(extra);
    benchdiff(dir, &a)
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn csv_and_results_naming_the_same_file_is_refused_before_anything_runs() {
    let d = tempfile::tempdir().expect("tempdir");
    for (csv, res) in [("a.csv", "a.csv"), ("a.csv", "./a.csv")] {
        let o = compare(d.path(), "/bin/true", &["--csv", csv, "--results", res]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("name the same file"), "{}", stderr(&o));
        assert!(files(d.path()).is_empty(), "{:?}", files(d.path()));
    }
    std::fs::create_dir(d.path().join("sub")).expect("mkdir");
    std::os::unix::fs::symlink("sub", d.path().join("link")).expect("symlink");
    let o = compare(
        d.path(),
        "/bin/true",
        &["--csv", "sub/x.csv", "--results", "link/x.csv"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(files(&d.path().join("sub")).is_empty());
}

#[test]
fn csv_folder_leaves_no_stray_results_file() {
    let d = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(d.path().join("out")).expect("mkdir");
    let o = compare(d.path(), "/bin/true", &["--csv", "out"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a folder"), "{}", stderr(&o));
    assert_eq!(files(d.path()), ["out"]);
    assert!(files(&d.path().join("out")).is_empty());
}

#[test]
fn unwritable_results_path_is_refused() {
    let d = tempfile::tempdir().expect("tempdir");
    // A CSV in a missing folder: refused before the results file is created.
    let o = compare(d.path(), "/bin/true", &["--csv", "nodir/a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(files(d.path()).is_empty(), "{:?}", files(d.path()));
    std::fs::write(d.path().join("plain"), "x").expect("write");
    let o = compare(d.path(), "/bin/true", &["--results", "plain/r.jsonl"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(files(d.path()), ["plain"]);
}

#[test]
fn existing_csv_and_results_are_refused_unless_force() {
    let d = tempfile::tempdir().expect("tempdir");
    std::fs::write(d.path().join("a.csv"), "old").expect("write");
    let o = compare(d.path(), "/bin/true", &["--csv", "a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.path().join("a.csv")).unwrap(),
        "old"
    );
    assert_eq!(files(d.path()), ["a.csv"]);

    std::fs::write(d.path().join("r.jsonl"), "old").expect("write");
    let o = compare(
        d.path(),
        "/bin/true",
        &["--results", "r.jsonl", "--csv", "b.csv"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!d.path().join("b.csv").exists());

    let o = compare(
        d.path(),
        "/bin/true",
        &["--results", "r.jsonl", "--csv", "a.csv", "--force"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_ne!(
        std::fs::read_to_string(d.path().join("a.csv")).unwrap(),
        "old"
    );
    assert!(
        std::fs::read_to_string(d.path().join("r.jsonl"))
            .unwrap()
            .starts_with('{')
    );
}

#[test]
fn failed_jobs_exit_1_unless_no_fail_on_error() {
    let d = tempfile::tempdir().expect("tempdir");
    let o = compare(d.path(), "/bin/false", &["--csv", "a.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("job(s) failed"), "{}", stderr(&o));
    let o = compare(
        d.path(),
        "/bin/false",
        &["--csv", "b.csv", "--fail-on-error"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = compare(
        d.path(),
        "/bin/false",
        &["--csv", "c.csv", "--no-fail-on-error"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("job(s) failed"), "{}", stderr(&o));
}

/// The `filename` column of the CSV's first data row.
fn csv_name(dir: &Path, csv: &str) -> String {
    let text = std::fs::read_to_string(dir.join(csv)).expect("csv");
    let row = text.lines().nth(1).expect("a data row").to_owned();
    row.split(',')
        .nth(1)
        .expect("filename")
        .trim_matches('"')
        .to_owned()
}

#[test]
fn command_benchmarks_are_named_after_the_program_or_name() {
    let d = tempfile::tempdir().expect("tempdir");
    // The same program on both sides: its file name, not the first word of --bench.
    let o = benchdiff(
        d.path(),
        &[
            "compare",
            "--old",
            "/bin/true",
            "--new",
            "/bin/true",
            "--bench",
            "-c file={f}",
            "-L",
            "f=a",
            "--runs",
            "1",
            "--csv",
            "a.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(csv_name(d.path(), "a.csv"), "true");
    // Different programs: the --bench template.
    let o = benchdiff(
        d.path(),
        &[
            "compare",
            "--old",
            "/bin/true",
            "--new",
            "/bin/echo",
            "--bench",
            "-c file={f}",
            "-L",
            "f=a",
            "--runs",
            "1",
            "--csv",
            "b.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(csv_name(d.path(), "b.csv"), "-c file={f}");
    // --name wins.
    let o = benchdiff(
        d.path(),
        &[
            "compare",
            "--old",
            "/bin/true",
            "--new",
            "/bin/true",
            "--bench",
            "-c file={f}",
            "-L",
            "f=a",
            "--name",
            "parse",
            "--runs",
            "1",
            "--csv",
            "c.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(csv_name(d.path(), "c.csv"), "parse");
}

#[cfg(feature = "e2e")]
#[test]
fn resume_keeps_appending_to_the_runs_csv() {
    let d = tempfile::tempdir().expect("tempdir");
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite");
    let suite = suite.to_str().expect("utf-8 path");
    let o = benchdiff(
        d.path(),
        &[
            "compare",
            "--old",
            "node",
            "--new",
            "node",
            "--benchmark-dir",
            suite,
            "--runs",
            "2",
            "--order",
            "node",
            "--csv",
            "out.csv",
            "--results",
            "full.jsonl",
            "ipc",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = |d: &Path| {
        std::fs::read_to_string(d.join("out.csv"))
            .expect("csv")
            .lines()
            .count()
            - 1
    };
    // ipc/basic.js: 4 configurations a job, 2 runs x 2 binaries.
    assert_eq!(rows(d.path()), 16);
    let full = std::fs::read_to_string(d.path().join("full.jsonl")).expect("results");
    assert!(
        full.lines().next().unwrap_or("").contains("out.csv"),
        "{full}"
    );
    // The run as if killed after two jobs.
    let mut cut = String::new();
    let mut jobs = 0;
    for l in full.lines() {
        if l.contains("\"type\":\"job\"") {
            if jobs == 2 {
                break;
            }
            jobs += 1;
        }
        cut.push_str(l);
        cut.push('\n');
    }
    std::fs::write(d.path().join("cut.jsonl"), cut).expect("write");
    let o = benchdiff(d.path(), &["compare", "--resume", "cut.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // No CSV on stdout: the two remaining jobs' rows went to the run's own CSV.
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("\"binary\""),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(rows(d.path()), 24);
}
