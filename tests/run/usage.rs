//! Usage errors and edge cases of the runner's command line, on the real binary with real
//! child processes (`true`, `sh`, `sleep`) and real files in temporary folders.

use std::path::Path;

fn benchdiff(dir: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").expect("binary built");
    c.current_dir(dir).env("NO_COLOR", "1");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs benchdiff in `dir` with `args`; returns (exit code, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let o = benchdiff(dir).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        text(&o.stdout),
        text(&o.stderr),
    )
}

const CMP: [&str; 8] = [
    "compare",
    "--old",
    "true",
    "--new",
    "true",
    "--bench",
    "",
    "--no-progress",
];

#[test]
fn huge_or_bad_timeouts_are_usage_errors_not_panics() {
    let d = tempfile::tempdir().unwrap();
    for t in ["1e100", "inf", "0", "-1", "31536001"] {
        let opt = format!("--timeout={t}");
        let mut a = CMP.to_vec();
        a.extend(["--runs", "2", &opt]);
        let (code, _, err) = run(d.path(), &a);
        assert_eq!(code, 2, "--timeout {t}: {err}");
        assert!(err.contains("--timeout"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        for cmd in [
            &["run", "--bin", "true", "--bench", ""][..],
            &["sweep", "--bin", "true", "--bench", "", "--runs", "2"][..],
            &["calibrate", "--bin", "true"][..],
        ] {
            let mut a = cmd.to_vec();
            a.push(&opt);
            let (code, _, err) = run(d.path(), &a);
            assert_eq!(code, 2, "{a:?}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    // Node-file compare (fails before any binary is looked at).
    let (code, _, err) = run(
        d.path(),
        &[
            "compare",
            "--old",
            "true",
            "--new",
            "true",
            "--timeout",
            "1e100",
            "x",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // A suite file's timeout, named by file:line.
    std::fs::write(
        d.path().join("s.toml"),
        "runs = 2\ntimeout = 1e100\n[old]\ncommand = \"true\"\n[new]\ncommand = \"true\"\n\
         [[benchmark]]\nargs = \"\"\n",
    )
    .unwrap();
    let (code, _, err) = run(d.path(), &["compare", "--suite", "s.toml", "--no-progress"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("s.toml:2: timeout"), "{err}");
}

#[test]
fn suite_runs_zero_is_rejected_with_its_line() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("s.toml"),
        "# comment\nruns = 0\n[old]\ncommand = \"true\"\n[new]\ncommand = \"true\"\n\
         [[benchmark]]\nargs = \"\"\n",
    )
    .unwrap();
    let (code, _, err) = run(d.path(), &["compare", "--suite", "s.toml", "--no-progress"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("s.toml:2: runs = 0"), "{err}");
}

#[test]
fn run_counts_that_overflow_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    for extra in [
        &["--runs", "4294967295", "--warmup", "1"][..],
        &["--runs", "2", "--warmup", "4294967295"][..],
    ] {
        let mut a = CMP.to_vec();
        a.extend(extra);
        let (code, _, err) = run(d.path(), &a);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains("at most"), "{err}");
    }
}

#[test]
fn plans_without_jobs_and_ignored_options_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let mut a = CMP.to_vec();
    a[6] = "{n}";
    a.extend([
        "-L", "n=1,2", "--skip", "n=1", "--skip", "n=2", "--runs", "2",
    ]);
    let (code, _, err) = run(d.path(), &a);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no benchmarks to run"), "{err}");

    let mut a = CMP.to_vec();
    a.extend(["--runs", "2", "--target-accuracy", "2"]);
    let (code, _, err) = run(d.path(), &a);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--target-accuracy"), "{err}");

    let (code, _, err) = run(
        d.path(),
        &[
            "sweep", "--bin", "true", "--bench", "{t}", "-L", "t=1,2", "--x", "nokey", "--runs",
            "2",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--x nokey"), "{err}");
}

#[test]
fn unwritable_outputs_fail_before_the_first_job() {
    let d = tempfile::tempdir().unwrap();
    for (flag, path) in [
        ("-o", "/nonexistent/r.html"),
        ("--plot", "/nonexistent/x.svg"),
    ] {
        let mut a = CMP.to_vec();
        a.extend(["--runs", "2", "--csv", "ok.csv", flag, path]);
        let (code, _, err) = run(d.path(), &a);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(flag) && err.contains(path), "{err}");
        assert!(!err.contains("jobs, order"), "a job ran: {err}");
        assert!(!d.path().join("ok.results.jsonl").exists());
    }
    // `--results /dev/full`: no empty CSV left behind.
    let mut a = CMP.to_vec();
    a.extend(["--runs", "2", "--csv", "left.csv", "--results", "/dev/full"]);
    let (code, _, err) = run(d.path(), &a);
    assert_eq!(code, 2, "{err}");
    assert!(!d.path().join("left.csv").exists(), "{err}");
}

#[test]
fn command_results_files_are_read_by_report_with_machine_checks() {
    let d = tempfile::tempdir().unwrap();
    let mut a = CMP.to_vec();
    a[6] = "-c {n}";
    a[2] = "sh";
    a[4] = "sh";
    a.extend(["-L", "n=:", "--runs", "3", "--csv", "k.csv"]);
    let (code, _, err) = run(d.path(), &a);
    assert_eq!(code, 0, "{err}");
    // Machine checks printed and recorded, as for Node files (once; a command run writes the
    // record when its busy-process window closes, possibly after its first jobs).
    let results = std::fs::read_to_string(d.path().join("k.results.jsonl")).unwrap();
    assert_eq!(
        results
            .lines()
            .filter(|l| l.contains("\"type\":\"machine\""))
            .count(),
        1,
        "{results}"
    );
    assert!(err.contains("benchdiff: machine: "), "{err}");
    // Named after the program (the same on both sides), not the first word of --bench.
    assert!(results.contains("\"benchmark\":\"sh\""), "{results}");
    for extra in [&[][..], &["--input-format", "results-jsonl"][..]] {
        let mut a = vec!["report", "--metric", "wall", "k.results.jsonl"];
        a.extend(extra);
        let (code, out, err) = run(d.path(), &a);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("metric: wall") && out.contains("sh n="),
            "{out}"
        );
        assert!(out.contains("3/3"), "{out}");
    }
    // A broken first record names the file once, with its line.
    std::fs::write(d.path().join("bad.jsonl"), "{\"type\":\"run\"}\n").unwrap();
    let (code, _, err) = run(d.path(), &["report", "bad.jsonl"]);
    assert_eq!(code, 2);
    assert_eq!(err.matches("bad.jsonl").count(), 1, "{err}");
}

#[test]
fn failed_job_names_have_single_spaces() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        d.path(),
        &[
            "compare",
            "--old",
            "false",
            "--new",
            "true",
            "--bench",
            "",
            "--runs",
            "1",
            "--no-progress",
            "--csv",
            "f.csv",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("job failed: command (old, run 1"), "{err}");
}

#[test]
fn sweep_rows_follow_the_list_order() {
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = run(
        d.path(),
        &[
            "sweep",
            "--bin",
            "true",
            "--bench",
            "{t}",
            "-L",
            "t=0.2,0.05,0.1",
            "--runs",
            "2",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("{s} missing: {out}"));
    assert!(
        at("t=0.2") < at("t=0.05") && at("t=0.05") < at("t=0.1"),
        "{out}"
    );
}

#[test]
fn report_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let d = tempfile::tempdir().unwrap();
    let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for i in 0..4000 {
        for side in ["old", "new"] {
            csv.push_str(&format!(
                "\"{side}\",\"f{}\",\"n=1\",{},1\n",
                i % 400,
                100 + i % 7
            ));
        }
    }
    std::fs::write(d.path().join("big.csv"), csv).unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("benchdiff"))
        .current_dir(d.path())
        .args(["report", "--format", "html", "big.csv"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut head = [0u8; 10];
    out.read_exact(&mut head).unwrap();
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}
