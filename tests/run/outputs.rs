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
    // Different programs: the --bench template, in the CSV behind a `'` (it starts with `-`,
    // which a spreadsheet would take for a formula).
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
    assert_eq!(csv_name(d.path(), "b.csv"), "'-c file={f}");
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
fn resume_continues_the_runs_csv() {
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
    // No CSV on stdout: the run's own CSV holds the two finished jobs' rows (from the results
    // file; the rows of jobs the cut file does not record are dropped) and the two re-run
    // jobs': as many as an uninterrupted run writes.
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("\"binary\""),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(rows(d.path()), 16);
}

/// A small compare.js CSV: one benchmark, two samples a side.
const SMALL_CSV: &str = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\
\"old\",\"a.js\",\"n=1\",10,0.1\n\"old\",\"a.js\",\"n=1\",11,0.1\n\
\"new\",\"a.js\",\"n=1\",12,0.1\n\"new\",\"a.js\",\"n=1\",13,0.1\n";

#[test]
fn report_output_naming_an_input_is_refused_and_the_input_kept() {
    let d = tempfile::tempdir().expect("tempdir");
    std::fs::write(d.path().join("in.csv"), SMALL_CSV).expect("write");
    std::fs::hard_link(d.path().join("in.csv"), d.path().join("hard.txt")).expect("link");
    std::os::unix::fs::symlink("in.csv", d.path().join("sym.txt")).expect("symlink");
    for out in ["in.csv", "./in.csv", "hard.txt", "sym.txt"] {
        let o = benchdiff(d.path(), &["report", "in.csv", "-o", out]);
        assert_eq!(o.status.code(), Some(2), "-o {out}: {}", stderr(&o));
        assert!(stderr(&o).contains("input"), "{}", stderr(&o));
        assert_eq!(
            std::fs::read_to_string(d.path().join("in.csv")).unwrap(),
            SMALL_CSV,
            "-o {out} changed the input"
        );
    }
    // A plot over an input is refused too.
    std::fs::write(d.path().join("in.svg"), SMALL_CSV).expect("write");
    let o = benchdiff(
        d.path(),
        &[
            "report",
            "--input-format",
            "node-compare-csv",
            "in.svg",
            "--plot",
            "in.svg",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(files(d.path()), ["hard.txt", "in.csv", "in.svg", "sym.txt"]);
}

/// `benchdiff ARGS < stdin` in `dir`: standard input is the file `stdin` there.
fn benchdiff_from(dir: &Path, stdin: &str, args: &[&str]) -> std::process::Output {
    let file = std::fs::File::open(dir.join(stdin)).expect("open stdin file");
    std::process::Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(file)
        .output()
        .expect("run benchdiff")
}

/// Standard input redirected from a file is an input like a named one: `report -o F < F`
/// (or `-`, a hard link of F, `--plot F`) is refused before anything is written, and F stays
/// byte for byte; another output, or the same content through a pipe, is written.
#[test]
fn report_output_naming_the_file_on_standard_input_is_refused_and_the_input_kept() {
    let d = tempfile::tempdir().expect("tempdir");
    std::fs::write(d.path().join("in.csv"), SMALL_CSV).expect("write");
    std::fs::hard_link(d.path().join("in.csv"), d.path().join("hard.txt")).expect("link");
    std::fs::write(d.path().join("in.svg"), SMALL_CSV).expect("write");
    for (stdin, args) in [
        ("in.csv", &["report", "-o", "in.csv"][..]),
        ("in.csv", &["report", "-", "-o", "in.csv"]),
        ("in.csv", &["report", "-", "-o", "hard.txt"]),
        (
            "in.svg",
            &[
                "report",
                "--input-format",
                "node-compare-csv",
                "--plot",
                "in.svg",
            ],
        ),
    ] {
        let o = benchdiff_from(d.path(), stdin, args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is the file on standard input")
                && err.contains("never replaces an input"),
            "{args:?}: {err}"
        );
        assert_eq!(
            std::fs::read(d.path().join(stdin)).expect("read"),
            SMALL_CSV.as_bytes(),
            "{args:?} changed the input"
        );
    }
    assert_eq!(files(d.path()), ["hard.txt", "in.csv", "in.svg"]);
    // Another output is written.
    let o = benchdiff_from(d.path(), "in.csv", &["report", "-o", "out.txt"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(d.path().join("out.txt"))
            .expect("read")
            .contains("a.js")
    );
    // Through a pipe, standard input is no file: the same path is an output like any other.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(d.path())
        .env("NO_COLOR", "1")
        .args(["report", "-o", "copy.csv"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::io::Write::write_all(
        &mut child.stdin.take().expect("stdin"),
        SMALL_CSV.as_bytes(),
    )
    .expect("write stdin");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_csv_symlink_to_the_results_file_is_refused_and_nothing_changes() {
    let d = tempfile::tempdir().expect("tempdir");
    // A dangling symlink: the CSV would be written into the results file.
    std::os::unix::fs::symlink("same3.jsonl", d.path().join("alias3.csv")).expect("symlink");
    let o = compare(
        d.path(),
        "/bin/true",
        &["--results", "same3.jsonl", "--csv", "alias3.csv"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("name the same file"), "{}", stderr(&o));
    assert_eq!(files(d.path()), ["alias3.csv"]);
    assert_eq!(
        std::fs::read_link(d.path().join("alias3.csv")).expect("symlink kept"),
        Path::new("same3.jsonl")
    );
    // The same through a hard link to an existing file, even with --force.
    std::fs::write(d.path().join("r.jsonl"), "keep").expect("write");
    std::fs::hard_link(d.path().join("r.jsonl"), d.path().join("r.csv")).expect("link");
    let o = compare(
        d.path(),
        "/bin/true",
        &["--results", "r.jsonl", "--csv", "r.csv", "--force"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.path().join("r.jsonl")).unwrap(),
        "keep"
    );
}

#[test]
fn a_device_is_written_as_it_is_with_or_without_force() {
    let d = tempfile::tempdir().expect("tempdir");
    for extra in [&[][..], &["--force"][..]] {
        let mut a = vec!["--results", "/dev/null", "--csv", "/dev/null"];
        a.extend_from_slice(extra);
        let o = compare(d.path(), "/bin/true", &a);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
    }
    assert!(files(d.path()).is_empty(), "{:?}", files(d.path()));
}

#[test]
fn the_results_file_of_a_csv_written_to_a_pipe_goes_to_the_temporary_folder() {
    let d = tempfile::tempdir().expect("tempdir");
    let tmp = tempfile::tempdir().expect("tempdir");
    let pipe = d.path().join("pipe");
    let c = std::ffi::CString::new(pipe.to_str().expect("utf-8")).expect("path");
    // SAFETY: mkfifo reads a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let reader = {
        let pipe = pipe.clone();
        std::thread::spawn(move || std::fs::read_to_string(pipe).expect("read the pipe"))
    };
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(d.path())
        .env("NO_COLOR", "1")
        .env("TMPDIR", tmp.path())
        .args([
            "compare",
            "--old",
            "/bin/true",
            "--new",
            "/bin/true",
            "--bench",
            "",
            "--runs",
            "2",
            "--csv",
            "pipe",
        ])
        .output()
        .expect("run benchdiff");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = reader.join().expect("reader");
    assert!(csv.starts_with("\"binary\""), "{csv}");
    // Nothing beside the pipe; the results file is in TMPDIR, and stderr says where.
    assert_eq!(files(d.path()), ["pipe"]);
    let kept = files(tmp.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(stderr(&o).contains(&kept[0]), "{}", stderr(&o));
}

#[test]
fn force_replaces_the_results_file_beside_the_csv() {
    let d = tempfile::tempdir().expect("tempdir");
    let o = compare(d.path(), "/bin/true", &["--csv", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for _ in 0..2 {
        let o = compare(d.path(), "/bin/true", &["--csv", "a.csv", "--force"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    assert_eq!(files(d.path()), ["a.csv", "a.results.jsonl"]);
    // Without --force an existing results file beside the CSV is refused like the CSV.
    std::fs::remove_file(d.path().join("a.csv")).expect("rm");
    let before = std::fs::read(d.path().join("a.results.jsonl")).expect("read");
    let o = compare(d.path(), "/bin/true", &["--csv", "a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(files(d.path()), ["a.results.jsonl"]);
    assert_eq!(
        std::fs::read(d.path().join("a.results.jsonl")).unwrap(),
        before
    );
}
