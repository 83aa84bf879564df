//! Command benchmarks (issue 5) on real child processes: `sh` scripts written into a temporary
//! folder, `sleep`, and real `git` repositories. Nothing is mocked.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn benchdiff(dir: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").expect("binary built");
    c.current_dir(dir).env("NO_COLOR", "1");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn records(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn jobs(path: &Path) -> Vec<serde_json::Value> {
    records(path)
        .into_iter()
        .filter(|r| r["type"] == "command-job")
        .collect()
}

#[test]
fn matrix_expands_last_key_fastest_with_set_and_skip() {
    let d = tempfile::tempdir().unwrap();
    script(d.path(), "rec", "echo \"$BENCHDIFF_SIDE $*\" >> log");
    let run = |extra: &[&str]| {
        let _ = std::fs::remove_file(d.path().join("log"));
        let _ = std::fs::remove_file(d.path().join("r.jsonl"));
        // An existing --csv is refused without --force.
        let _ = std::fs::remove_file(d.path().join("out.csv"));
        let mut c = benchdiff(d.path());
        c.args([
            "compare",
            "--old",
            "./rec",
            "--new",
            "./rec",
            "--bench",
            "-a {a} -b {b}",
            "-L",
            "a=1,2",
            "-L",
            "b=x,y",
            "--runs",
            "1",
            "--order",
            "node",
            "--csv",
            "out.csv",
            "--results",
            "r.jsonl",
        ])
        .args(extra);
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        std::fs::read_to_string(d.path().join("log")).unwrap()
    };
    assert_eq!(
        run(&[]),
        "old -a 1 -b x\nnew -a 1 -b x\nold -a 1 -b y\nnew -a 1 -b y\n\
         old -a 2 -b x\nnew -a 2 -b x\nold -a 2 -b y\nnew -a 2 -b y\n"
    );
    assert_eq!(
        run(&["--set", "b=y"]),
        "old -a 1 -b y\nnew -a 1 -b y\nold -a 2 -b y\nnew -a 2 -b y\n"
    );
    assert_eq!(
        run(&["--skip", "a=1,b=y", "--skip", "a=2,b=x"]),
        "old -a 1 -b x\nnew -a 1 -b x\nold -a 2 -b y\nnew -a 2 -b y\n"
    );
    // The configuration column is typed like common.js: numbers bare, strings quoted.
    let csv = std::fs::read_to_string(d.path().join("out.csv")).unwrap();
    assert!(csv.contains("\"old\",\"rec\",\"a=1 b='x'\","), "{csv}");
    // A --set key no benchmark has, and an unknown {key}, are usage errors naming the key.
    let o = benchdiff(d.path())
        .args([
            "compare", "--old", "./rec", "--new", "./rec", "--bench", "{a}", "-L", "a=1",
        ])
        .args(["--set", "zz=1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("zz"), "{}", text(&o.stderr));
    let o = benchdiff(d.path())
        .args([
            "compare", "--old", "./rec", "--new", "./rec", "--bench", "{q}",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no -L q="), "{}", text(&o.stderr));
}

#[test]
fn parameter_values_are_never_shell_code() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("x")).unwrap();
    script(
        d.path(),
        "args",
        "for a in \"$@\"; do echo \"<$a>\" >> log; done",
    );
    let o = benchdiff(d.path())
        .args([
            "compare",
            "--old",
            "./args",
            "--new",
            "./args",
            "--bench",
            "--v={v} '{v}'",
            "-L",
            "v=; rm -rf x",
            "--runs",
            "1",
            "--csv",
            "out.csv",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(d.path().join("x").is_dir(), "the folder x must survive");
    let log = std::fs::read_to_string(d.path().join("log")).unwrap();
    assert_eq!(log, "<--v=; rm -rf x>\n<; rm -rf x>\n".repeat(2));
    // With --shell the value is quoted for sh: still one argument, still no command run.
    std::fs::remove_file(d.path().join("log")).unwrap();
    let o = benchdiff(d.path())
        .args([
            "compare",
            "--old",
            "./args",
            "--new",
            "./args",
            "--bench",
            "{v}",
            "-L",
            "v=; rm -rf x",
            "--runs",
            "1",
            "--csv",
            "out2.csv",
            "--shell",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(d.path().join("x").is_dir());
    assert_eq!(
        std::fs::read_to_string(d.path().join("log")).unwrap(),
        "<; rm -rf x>\n".repeat(2)
    );
}

#[test]
fn whole_process_timing_and_lower_is_better_signs() {
    let d = tempfile::tempdir().unwrap();
    let base = [
        "compare",
        "--old",
        "sleep 0.05",
        "--new",
        "sleep 0.15",
        "--bench",
        "",
        "--runs",
        "4",
    ];
    // Rate (higher is better, `--metric rate`): the new build is about 3x slower, so the
    // change is negative.
    let o = benchdiff(d.path())
        .args(base)
        .args([
            "--csv",
            "rate.csv",
            "--results",
            "r.jsonl",
            "--metric",
            "rate",
        ])
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let row = out.lines().find(|l| l.contains("sleep")).unwrap();
    assert!(row.contains("slower"), "{out}");
    // About -67% (1/0.15 against 1/0.05); a loaded machine stretches both sleeps by the
    // same few milliseconds of spawn and reap, which moves the change towards 0.
    let change: f64 = row
        .split_whitespace()
        .find_map(|c| c.strip_suffix('%')?.parse().ok())
        .expect("a change in percent");
    assert!(
        (-75.0..=-45.0).contains(&change),
        "rate change about -67%: {out}"
    );
    // Whole-process samples: wall from spawn to reap, rate = 1 / wall; the job's own
    // measurements once, in its record.
    for j in jobs(&d.path().join("r.jsonl")) {
        let wall = j["wall_s"].as_f64().unwrap();
        let want = if j["side"] == "old" { 0.05 } else { 0.15 };
        // Spawn and reap add milliseconds, more on a loaded machine.
        assert!(wall >= want && wall < want + 0.5, "{j}");
        let s = &j["samples"][0];
        assert_eq!(s["source"], "whole-process");
        assert!((s["rate"].as_f64().unwrap() - 1.0 / wall).abs() < 1e-9);
        assert!(s.get("metrics").is_none(), "{s}");
        let names: Vec<&str> = j["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["wall", "user", "sys", "max_rss"]);
        assert!(
            j["metrics"][3]["value"].as_f64().unwrap() > 100_000.0,
            "peak RSS in bytes"
        );
    }
    // Wall seconds (lower is better, the default for commands timed as whole processes): the
    // change is positive in every column and still slower.
    let o = benchdiff(d.path())
        .args(base)
        .args(["--csv", "wall.csv"])
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        out.starts_with("metric: wall (s), lower is better"),
        "{out}"
    );
    let row = out.lines().find(|l| l.contains("sleep")).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    // command  +200%  [+a%, +b%]  p  p  slower  4/4 paired
    assert!(cols[1].starts_with('+'), "{row}");
    assert!(
        cols[2].starts_with("[+") && cols[3].starts_with('+'),
        "{row}"
    );
    assert!(row.contains("slower"), "{row}");
    assert!(out.contains("0 faster, 1 slower"), "{out}");
    // The same runs seen from the other side: old is faster.
    let o = benchdiff(d.path())
        .args([
            "compare",
            "--old",
            "sleep 0.15",
            "--new",
            "sleep 0.05",
            "--bench",
            "",
            "--runs",
            "4",
            "--csv",
            "wall2.csv",
            "--metric",
            "wall",
        ])
        .output()
        .unwrap();
    let out = text(&o.stdout);
    let row = out.lines().find(|l| l.contains("sleep")).unwrap();
    assert!(
        row.split_whitespace().nth(1).unwrap().starts_with('-'),
        "{row}"
    );
    assert!(row.contains("faster"), "{out}");
    let o = benchdiff(d.path())
        .args(base)
        .args(["--csv", "x.csv", "--metric", "nope"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("wall, user, sys, max_rss"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn json_lines_carry_program_metrics() {
    let d = tempfile::tempdir().unwrap();
    // Old allocates about twice as much per op; both report a rate that is about equal.
    let body = |allocs: u32| {
        format!(
            "j=$(($$ % 7))\n\
             echo 'some log line'\n\
             echo \"{{\\\"name\\\":\\\"alloc\\\",\\\"conf\\\":{{\\\"size\\\":$1,\\\"mode\\\":\\\"x\\\"}},\\\"rate\\\":$((1000 + j)),\\\"metrics\\\":{{\\\"allocs\\\":$(({allocs} + j)),\\\"mb\\\":{{\\\"value\\\":$((10 + j)),\\\"unit\\\":\\\"MB/s\\\",\\\"better\\\":\\\"higher\\\"}}}}}}\""
        )
    };
    script(d.path(), "old", &body(200));
    script(d.path(), "new", &body(100));
    let o = benchdiff(d.path())
        .args([
            "compare",
            "--old",
            "./old",
            "--new",
            "./new",
            "--bench",
            "{size}",
            "-L",
            "size=8",
            "--runs",
            "6",
            "--csv",
            "out.csv",
            "--results",
            "r.jsonl",
            "--metric",
            "allocs",
        ])
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        out.starts_with("metric: allocs (count), lower is better"),
        "{out}"
    );
    let row = out.lines().find(|l| l.contains("alloc ")).unwrap();
    assert!(
        row.contains("alloc size=8 mode='x'"),
        "reported keys join the combination: {row}"
    );
    assert!(row.contains("faster"), "{out}");
    let j = &jobs(&d.path().join("r.jsonl"))[0];
    let s = &j["samples"][0];
    assert_eq!(s["source"], "json");
    // The line's own metrics only; the job's are in its record.
    assert_eq!(s["metrics"][0]["name"], "allocs");
    assert_eq!(s["metrics"][1]["better"], "higher");
    assert_eq!(j["metrics"][0]["name"], "wall");
    // A malformed JSON result (rate is not a number) fails the job with the line named.
    script(d.path(), "bad", "echo '{\"rate\":\"fast\"}'");
    let o = benchdiff(d.path())
        .args([
            "compare", "--old", "./bad", "--new", "./bad", "--bench", "", "--runs", "1", "--csv",
            "bad.csv",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("malformed result line: stdout line 1: \"rate\" must be a number"),
        "{err}"
    );
}

#[test]
fn warmup_runs_are_run_but_not_counted() {
    let d = tempfile::tempdir().unwrap();
    script(d.path(), "count", "echo run >> \"runs-$BENCHDIFF_SIDE\"");
    let o = benchdiff(d.path())
        .args([
            "compare",
            "--old",
            "./count",
            "--new",
            "./count",
            "--bench",
            "",
            "--runs",
            "3",
            "--warmup",
            "2",
            "--csv",
            "out.csv",
            "--results",
            "r.jsonl",
            "--prepare",
            "echo p >> prepared",
            "--setup",
            "echo \"$BENCHDIFF_SIDE\" >> setup",
            "--cleanup",
            "echo c >> cleanup",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    for side in ["old", "new"] {
        let n = std::fs::read_to_string(d.path().join(format!("runs-{side}")))
            .unwrap()
            .lines()
            .count();
        assert_eq!(n, 5, "2 warm-up + 3 counted runs of {side}");
    }
    let csv = std::fs::read_to_string(d.path().join("out.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 6,
        "only counted runs are samples: {csv}"
    );
    let js = jobs(&d.path().join("r.jsonl"));
    assert_eq!(js.iter().filter(|j| j["warmup"] == true).count(), 4);
    assert!(
        js.iter()
            .filter(|j| j["warmup"] == true)
            .all(|j| j["samples"] == serde_json::json!([]))
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("prepared"))
            .unwrap()
            .lines()
            .count(),
        10
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("setup")).unwrap(),
        "old\nnew\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("cleanup")).unwrap(),
        "c\nc\n"
    );
}

#[test]
fn suite_file_builds_and_runs_with_exclusions() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("prog"),
        "#!/bin/sh\necho \"$GREETING $*\" >> log\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("benchdiff.toml"),
        r#"runs = 2
warmup = 1
order = "node"
env = { GREETING = "hi" }

[old]
build = "cp prog old.sh && chmod +x old.sh"
command = "./old.sh o"
[new]
build = "cp prog new.sh && chmod +x new.sh"
command = "./new.sh n"

[[benchmark]]
name = "b"
args = "{size} {mode}"
params = { size = [1, 2], mode = ["a", "b"] }
exclude = [{ size = 2, mode = "a" }]
"#,
    )
    .unwrap();
    let o = benchdiff(d.path())
        .args(["compare", "--suite", "benchdiff.toml", "--csv", "out.csv"])
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("benchdiff: building old:"), "{err}");
    assert!(
        err.contains("3 configuration(s) x 2 binaries x (2 run(s) + 1 warm-up) = 18 jobs"),
        "{err}"
    );
    let log = std::fs::read_to_string(d.path().join("log")).unwrap();
    assert_eq!(log.lines().count(), 18);
    assert!(log.starts_with("hi o 1 a\nhi n 1 a\n"), "{log}");
    assert!(!log.contains(" 2 a"), "excluded combination ran: {log}");
    // Errors in the file name the file and line.
    std::fs::write(
        d.path().join("bad.toml"),
        "[old]\ncommand = \"a\"\n[new]\ncommand = \"b\"\n\n[[benchmark]]\nargs = \"{n}\"\nparams = { m = [1] }\n",
    )
    .unwrap();
    let o = benchdiff(d.path())
        .args(["compare", "--suite", "bad.toml"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("bad.toml:") && err.contains("\"m\" is not used"),
        "{err}"
    );
}

#[test]
fn failing_build_is_reported_clearly() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("benchdiff.toml"),
        "[old]\nbuild = \"echo 'error[E0308]: mismatched types' >&2; exit 101\"\ncommand = \"true\"\n\
         [new]\ncommand = \"true\"\n[[benchmark]]\nargs = \"\"\n",
    )
    .unwrap();
    let o = benchdiff(d.path())
        .args(["compare", "--suite", "benchdiff.toml", "--csv", "out.csv"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("build of old"), "{err}");
    assert!(err.contains("failed: exit code 101"), "{err}");
    assert!(
        err.contains("stderr | error[E0308]: mismatched types"),
        "{err}"
    );
    assert!(!d.path().join("out.csv").exists(), "nothing ran");
}

fn git(dir: &Path, args: &[&str]) {
    let o = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
}

#[test]
fn builds_from_git_revisions_record_commits() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path();
    git(repo, &["init", "-q"]);
    std::fs::write(repo.join("prog.sh"), "#!/bin/sh\nsleep 0.01\n").unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "v1"]);
    git(repo, &["tag", "v1"]);
    std::fs::write(repo.join("prog.sh"), "#!/bin/sh\nsleep 0.03\n").unwrap();
    git(repo, &["commit", "-qam", "v2"]);
    let o = benchdiff(repo)
        .args([
            "compare",
            "--old-rev",
            "v1",
            "--new-rev",
            "HEAD",
            "--build",
            "cp prog.sh built && chmod +x built",
            "--artifact",
            "built",
            "--bench",
            "",
            "--runs",
            "3",
            "--csv",
            "out.csv",
            "--results",
            "r.jsonl",
        ])
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(text(&o.stdout).contains("slower"), "{}", text(&o.stdout));
    let head = &records(&repo.join("r.jsonl"))[0];
    assert_eq!(head["targets"][0]["rev"], "v1");
    assert_eq!(head["targets"][1]["rev"], "HEAD");
    let c = head["targets"][1]["commit"].as_str().unwrap();
    assert_eq!(c.len(), 40, "{head}");
    // The worktrees are gone afterwards, and the repository's own tree was not touched.
    let wt = std::process::Command::new("git")
        .current_dir(repo)
        .args(["worktree", "list"])
        .output()
        .unwrap();
    assert_eq!(text(&wt.stdout).lines().count(), 1, "{}", text(&wt.stdout));
    // A failing build names the side, revision and commit.
    let o = benchdiff(repo)
        .args([
            "compare",
            "--old-rev",
            "v1",
            "--new-rev",
            "HEAD",
            "--build",
            "echo nope >&2; false",
            "--artifact",
            "built",
            "--bench",
            "",
            "--csv",
            "out2.csv",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("build of old (v1 = "), "{err}");
    assert!(
        err.contains("exit code 1") && err.contains("stderr | nope"),
        "{err}"
    );
    let o = benchdiff(repo)
        .args([
            "compare",
            "--old-rev",
            "nosuchrev",
            "--new-rev",
            "HEAD",
            "--build",
            "true",
            "--artifact",
            "x",
            "--bench",
            "",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--old-rev nosuchrev: not a commit"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn run_prints_result_lines_and_sweep_draws_intervals() {
    let d = tempfile::tempdir().unwrap();
    script(
        d.path(),
        "prog",
        "echo \"{\\\"name\\\":\\\"p\\\",\\\"rate\\\":$(($1 * 100 + $$ % 5))}\"",
    );
    let o = benchdiff(d.path())
        .args([
            "run", "--bin", "./prog", "--bench", "{n}", "-L", "n=1,2", "--order", "node",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with("p n=1: 10") && lines[1].starts_with("p n=2: 20"),
        "{out}"
    );
    let o = benchdiff(d.path())
        .args([
            "sweep", "--bin", "./prog", "--bench", "{n}", "-L", "n=1,2,4", "--runs", "4", "--plot",
            "s.svg",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("p n=4") && out.contains("95% CI"), "{out}");
    let svg = std::fs::read_to_string(d.path().join("s.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("rate by n"),
        "{}",
        &svg[..200]
    );
}

#[test]
fn built_in_example_finds_the_optimisations() {
    // README "Set-up" command 1, with fewer runs: builds examples/rust-optimisations twice with
    // cargo and compares the builds.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let d = tempfile::tempdir().unwrap();
    let csv = d.path().join("example.csv");
    let o = benchdiff(root)
        .args([
            "compare",
            "--suite",
            "examples/benchdiff.toml",
            "--runs",
            "6",
            "--csv",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}\n{out}", text(&o.stderr));
    // Correctness, not speed, is asserted here: the effects are large (+50% to +2900% on a
    // quiet machine, where all six are "faster"), but the other tests of this file run in
    // parallel on the same cores, so a noisy row may come out inconclusive. None may come out
    // slower, and most must be found.
    let summary = out
        .lines()
        .find(|l| l.starts_with("6 comparisons: "))
        .unwrap_or_else(|| panic!("no summary line\n{out}"));
    let faster: usize = summary["6 comparisons: ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(summary.contains(", 0 slower,"), "{out}");
    assert!(faster >= 4, "{out}\n{}", text(&o.stderr));
}

/// `--shell` and `--prepare` run `/bin/sh` (SECURITY.md), never an `sh` found first on PATH.
#[test]
fn shell_and_prepare_run_bin_sh_not_the_first_sh_on_path() {
    let d = tempfile::tempdir().unwrap();
    let fake = d.path().join("fake");
    std::fs::create_dir(&fake).unwrap();
    let marker = d.path().join("fake-sh-ran");
    script(
        &fake,
        "sh",
        &format!("echo \"$@\" >> '{}'\nexec /bin/sh \"$@\"", marker.display()),
    );
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    benchdiff(d.path())
        .env("PATH", path)
        .args([
            "compare",
            "--old",
            "/bin/true",
            "--new",
            "/bin/true",
            "--bench",
            "x",
            "--shell",
            "--prepare",
            "true",
            "--runs",
            "1",
            "--csv",
            "a.csv",
        ])
        .assert()
        .success();
    assert!(
        !marker.exists(),
        "the fake sh ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
}
