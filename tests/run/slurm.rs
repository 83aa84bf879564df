//! A real one-machine Slurm cluster (`tests/common/slurm.rs`): it starts, runs a job array with a
//! dependent job, and leaves nothing running; and `examples/cluster/slurm/` run as a sharded
//! benchdiff comparison merged by a dependent job. Missing Slurm or munge fails, never skips.

// Second test tier (cargo feature `e2e`): these tests start a one-machine Slurm cluster and `node`.
#![cfg(feature = "e2e")]

use crate::common;

use common::slurm::{Cluster, is_gone, processes_using};
use std::time::{Duration, Instant};

#[test]
fn cluster_starts_runs_an_array_and_stops() {
    let t = Instant::now();
    let c = Cluster::start();
    let started = t.elapsed();
    let jobs = c.dir().join("jobs");
    let jobs_s = jobs.to_str().expect("utf-8 temp path");
    let array = c.sbatch(&[
        "--array=1-4",
        "--chdir",
        jobs_s,
        "--output",
        "task-%a.out",
        "--wrap",
        "sleep 1; echo \"task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT\"",
    ]);
    let after = c.sbatch(&[
        &format!("--dependency=afterok:{array}"),
        "--chdir",
        jobs_s,
        "--output",
        "after.out",
        "--wrap",
        "cat task-*.out > all.txt",
    ]);
    let states = c.wait(&[&array, &after], Duration::from_secs(120));
    let mut tasks: Vec<String> = states
        .iter()
        .filter(|s| s.array_job.as_deref() == Some(array.as_str()))
        .map(|s| {
            assert!(s.completed(), "array task not completed: {}", s.raw);
            s.array_task.clone().unwrap_or_default()
        })
        .collect();
    tasks.sort();
    assert_eq!(tasks, ["1", "2", "3", "4"], "{states:#?}");
    let dep: Vec<_> = states.iter().filter(|s| s.id == after).collect();
    assert_eq!(dep.len(), 1, "{states:#?}");
    assert!(dep[0].completed(), "dependent job: {}", dep[0].raw);
    let all =
        std::fs::read_to_string(jobs.join("all.txt")).expect("all.txt from the dependent job");
    for k in 1..=4 {
        assert!(all.contains(&format!("task {k} of 4")), "{all}");
    }
    assert!(c.queued().is_empty(), "queue not empty: {:?}", c.queued());
    let ran = t.elapsed();

    let dir = c.dir().to_owned();
    let pids = c.daemon_pids();
    assert_eq!(pids.len(), 3, "munged, slurmctld, slurmd: {pids:?}");
    let t_stop = Instant::now();
    drop(c);
    let stopped = t_stop.elapsed();
    for pid in pids {
        assert!(
            is_gone(pid),
            "daemon {pid} still running after the guard dropped"
        );
    }
    let left = processes_using(&dir);
    assert!(
        left.is_empty(),
        "processes left under {}: {left:?}",
        dir.display()
    );
    assert!(!dir.exists(), "{} not removed", dir.display());
    eprintln!("cluster: start {started:?}, start+array+dependent {ran:?}, stop {stopped:?}");
}

#[test]
fn a_failed_task_cancels_the_dependent_job_instead_of_hanging() {
    // DependencyParameters=kill_invalid_depend: without it the afterok job stays PENDING forever.
    let c = Cluster::start();
    let jobs = c.dir().join("jobs");
    let jobs_s = jobs.to_str().expect("utf-8 temp path");
    let array = c.sbatch(&[
        "--array=1-2",
        "--chdir",
        jobs_s,
        "--output",
        "task-%a.out",
        "--wrap",
        "exit $((SLURM_ARRAY_TASK_ID - 1))",
    ]);
    let after = c.sbatch(&[
        &format!("--dependency=afterok:{array}"),
        "--chdir",
        jobs_s,
        "--wrap",
        "true",
    ]);
    let states = c.wait(&[&array, &after], Duration::from_secs(60));
    let summary: Vec<String> = states.iter().map(|s| s.summary()).collect();
    let task = |k: &str| {
        states
            .iter()
            .find(|s| s.array_task.as_deref() == Some(k))
            .unwrap_or_else(|| panic!("no task {k}: {summary:#?}"))
    };
    assert!(task("1").completed(), "{summary:#?}");
    assert_eq!(task("2").state, "FAILED", "{summary:#?}");
    assert_eq!(task("2").exit_code, "1:0", "{summary:#?}");
    let dep = states
        .iter()
        .find(|s| s.id == after)
        .expect("dependent job");
    assert_eq!(dep.state, "CANCELLED", "{summary:#?}");
    assert_eq!(dep.reason, "DependencyNeverSatisfied", "{summary:#?}");
}

#[test]
fn a_daemon_that_cannot_start_fails_the_test_with_its_log() {
    // The daemons exit at once on an unknown plugin: the start must panic naming the daemon and
    // showing the logs, and the guard must still stop munged and leave nothing running.
    let failure = std::panic::catch_unwind(|| {
        Cluster::start_with(&["SelectType=select/no-such-plugin"]);
    })
    .expect_err("the cluster started with a broken configuration");
    let msg = failure
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| failure.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        msg.contains("slurmctld died") || msg.contains("slurmd died"),
        "{msg}"
    );
    assert!(msg.contains("slurmctld.log"), "no slurmctld log in: {msg}");
    assert!(
        msg.contains("no-such-plugin"),
        "the logs do not name the bad plugin: {msg}"
    );
    // The failed cluster's folder, from the log headers (`== DIR/log/NAME ==`).
    let dir = msg
        .lines()
        .find_map(|l| l.strip_prefix("== ")?.split("/log/").next())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| panic!("no log path in: {msg}"));
    let left = processes_using(&dir);
    assert!(
        left.is_empty(),
        "processes left under {}: {left:?}",
        dir.display()
    );
    let munged_left: Vec<_> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&p| !is_gone(p))
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&*dir.to_string_lossy()))
        })
        .collect();
    assert!(munged_left.is_empty(), "left running: {munged_left:?}");
    assert!(!dir.exists(), "{} not removed", dir.display());
}

/// The benchdiff binary under test.
const BENCHDIFF: &str = env!("CARGO_BIN_EXE_benchdiff");
const SHARDS: usize = 4;
const RUNS: usize = 4;
const SEED: &str = "20261130";

/// One sharded comparison submitted through `examples/cluster/slurm/submit.sh`.
struct Case<'a> {
    name: &'a str,
    split: &'a str,
    /// The benchmark's variables for submit.sh (SUITE / OLD, NEW, BENCH / BENCHMARK_DIR, …).
    env: Vec<(&'a str, String)>,
    /// The same benchmark as `benchdiff compare` arguments, for the unsharded reference run.
    args: Vec<String>,
}

/// Every log of a submitted case, for failure messages.
fn case_logs(out: &std::path::Path) -> String {
    let mut s = String::new();
    let mut files: Vec<_> = std::fs::read_dir(out.join("logs"))
        .map(|rd| rd.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.sort();
    for f in files {
        let body = std::fs::read_to_string(&f).unwrap_or_default();
        s.push_str(&format!("== {} ==\n{body}\n", f.display()));
    }
    s
}

/// (benchmark or file, configuration, side) → counted samples, over the `job` and `command-job`
/// records of a results file (warm-ups and failed jobs left out).
fn sample_counts(
    path: &std::path::Path,
) -> std::collections::BTreeMap<(String, String, String), usize> {
    let mut m = std::collections::BTreeMap::new();
    for r in common::records(path) {
        if !matches!(r["type"].as_str(), Some("job" | "command-job")) {
            continue;
        }
        if r["warmup"] == true || r["status"] != "ok" {
            continue;
        }
        let side = r["side"].as_str().unwrap_or_default().to_owned();
        for s in r["samples"].as_array().into_iter().flatten() {
            let name = r["file"]
                .as_str()
                .or(r["benchmark"].as_str())
                .unwrap_or_default()
                .to_owned();
            let conf = s["configuration"].as_str().unwrap_or_default().to_owned();
            *m.entry((name, conf, side.clone())).or_insert(0) += 1;
        }
    }
    m
}

/// Submits `case` as a SHARDS-task array plus the merge job, waits for both, and checks the merged
/// results and report against an unsharded run of the same plan.
fn run_case(c: &Cluster, case: &Case) {
    let out = c.dir().join("jobs").join(case.name);
    std::fs::create_dir_all(&out).expect("case folder");
    let submit =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cluster/slurm/submit.sh");
    let o = std::process::Command::new("bash")
        .arg(&submit)
        .current_dir(&out)
        .env("SLURM_CONF", c.conf())
        .env("BENCHDIFF", BENCHDIFF)
        .env("OUT", &out)
        .env("SHARDS", SHARDS.to_string())
        .env("RUNS", RUNS.to_string())
        .env("SPLIT", case.split)
        .env("SEED", SEED)
        .env("EXCLUSIVE", "0")
        .envs(case.env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("run submit.sh");
    assert!(
        o.status.success(),
        "submit.sh failed: {}{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
        c.logs()
    );
    let ids = std::fs::read_to_string(out.join("jobs.env")).expect("jobs.env from submit.sh");
    let id = |key: &str| {
        ids.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in jobs.env: {ids}"))
            .to_owned()
    };
    let (array, merge) = (id("ARRAY_ID="), id("MERGE_ID="));
    let states = c.wait(&[&array, &merge], Duration::from_secs(600));
    let tasks: Vec<_> = states
        .iter()
        .filter(|s| s.array_job.as_deref() == Some(&array))
        .collect();
    let failed: Vec<_> = states
        .iter()
        .filter(|s| !s.completed())
        .map(|s| s.summary())
        .collect();
    assert!(
        failed.is_empty() && tasks.len() == SHARDS,
        "{}: jobs did not all complete ({} tasks): {failed:#?}\n{}",
        case.name,
        tasks.len(),
        case_logs(&out)
    );

    // The unsharded plan, run here with the same seed and runs.
    let reference = out.join("unsharded.results.jsonl");
    let o = std::process::Command::new(BENCHDIFF)
        .arg("compare")
        .args(&case.args)
        .args(["--runs", &RUNS.to_string(), "--seed", SEED, "--no-progress"])
        .arg("--results")
        .arg(&reference)
        .arg("--csv")
        .arg(out.join("unsharded.csv"))
        .output()
        .expect("unsharded benchdiff compare");
    assert!(
        o.status.success(),
        "unsharded run: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = sample_counts(&reference);
    let got = sample_counts(&out.join("merged.results.jsonl"));
    assert!(!want.is_empty());
    assert!(want.values().all(|&n| n == RUNS), "{want:#?}");
    assert_eq!(
        got, want,
        "{}: merged samples differ from the unsharded plan",
        case.name
    );

    let report = std::fs::read_to_string(out.join("report.md"))
        .unwrap_or_else(|e| panic!("report.md: {e}\n{}", case_logs(&out)));
    let runs = format!("{RUNS}/{RUNS}");
    for (name, conf, _) in want.keys() {
        let label = format!("| {name} {conf} |");
        let row = report.lines().find(|l| l.starts_with(&label));
        assert!(
            row.is_some_and(|r| r.contains(&runs)),
            "{}: no row {label} with {runs} runs in the merged report:\n{report}",
            case.name
        );
    }
}

/// A small Node-format benchmark folder (category `bench`, two files of two configurations each,
/// speaking compare.js's IPC protocol like tests/fixtures/suite/ipc/basic.js).
fn node_folder(dir: &std::path::Path) -> std::path::PathBuf {
    let root = dir.join("node-benchmark");
    std::fs::create_dir_all(root.join("bench")).expect("node benchmark folder");
    for (file, base) in [("a.js", 1000), ("b.js", 5000)] {
        let name = format!("bench/{file}");
        std::fs::write(
            root.join("bench").join(file),
            format!(
                "'use strict';\n\
                 const ns = [1, 2];\n\
                 process.send({{ type: 'config', name: '{name}', queueLength: ns.length }});\n\
                 for (const n of ns) {{\n\
                 \x20 process.send({{ name: '{name}', conf: {{ n }}, rate: {base} * n + Math.random() * 10,\n\
                 \x20   time: '0.001000000', type: 'report' }});\n\
                 }}\n"
            ),
        )
        .expect("benchmark file");
    }
    root
}

#[test]
fn sharded_example_runs_and_merges() {
    common::require_node();
    let c = Cluster::start();
    // A command benchmark: 4 configurations, each shard runs one (--split benchmarks).
    let command = Case {
        name: "command",
        split: "benchmarks",
        env: vec![
            ("OLD", "sleep".into()),
            ("NEW", "sleep".into()),
            ("BENCH", "{t}".into()),
            ("BENCHDIFF_ARGS", "-L t=0.01,0.02,0.03,0.04".into()),
        ],
        args: [
            "--old",
            "sleep",
            "--new",
            "sleep",
            "--bench",
            "{t}",
            "-L",
            "t=0.01,0.02,0.03,0.04",
        ]
        .map(String::from)
        .to_vec(),
    };
    run_case(&c, &command);
    // Node-format files under real `node`: every shard runs every configuration for its share of
    // the runs (--split runs).
    let folder = node_folder(c.dir());
    let dir = folder.to_str().expect("utf-8 path").to_owned();
    let node = Case {
        name: "node",
        split: "runs",
        env: vec![
            ("OLD", "node".into()),
            ("NEW", "node".into()),
            ("BENCHMARK_DIR", dir.clone()),
            ("CATEGORIES", "bench".into()),
        ],
        args: [
            "--old",
            "node",
            "--new",
            "node",
            "--benchmark-dir",
            &dir,
            "bench",
        ]
        .map(String::from)
        .to_vec(),
    };
    run_case(&c, &node);
}
