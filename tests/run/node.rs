//! `benchdiff compare` on real `node` processes and project-written benchmark files
//! (tests/fixtures/suite, examples/node-suite): the IPC path, the stdout path, the CSV and the
//! results file, faults (crash, signal, timeout, garbage), --fail-fast, CPU pinning, usage errors.

// Second test tier (cargo feature `e2e`): these tests start real `node` processes.
#![cfg(feature = "e2e")]

use crate::common;

use common::*;
use predicates::prelude::*;
use std::collections::HashMap;

#[test]
fn ipc_path_writes_compare_js_csv_and_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = compare(dir.path(), &["--runs", "2", "--seed", "7", "ipc"])
        .assert()
        .success()
        .stderr(predicate::str::contains("results file: results.jsonl"))
        .stderr(predicate::str::contains("seed 7"))
        .get_output()
        .stdout
        .clone();
    let rows = csv_rows(&String::from_utf8(out).unwrap());
    assert_eq!(
        rows.len(),
        2 * 2 * 4,
        "2 runs x 2 binaries x 4 configurations"
    );
    let mut per: HashMap<(String, String), usize> = HashMap::new();
    for [b, f, c, rate, time] in &rows {
        assert_eq!(f, "ipc/basic.js");
        assert_eq!(time, "0.001000000", "time string kept verbatim");
        assert!(rate.parse::<f64>().unwrap() > 1000.0);
        *per.entry((b.clone(), c.clone())).or_default() += 1;
    }
    // Keys in reported order, strings quoted as util.inspect quotes them.
    for conf in [
        "kind='plain' n=1",
        "kind='plain' n=2",
        "kind=\"it's\" n=1",
        "kind=\"it's\" n=2",
    ] {
        for b in ["old", "new"] {
            assert_eq!(
                per.get(&(b.to_owned(), conf.to_owned())),
                Some(&2),
                "{b} {conf}"
            );
        }
    }
    let recs = records(&dir.path().join("results.jsonl"));
    assert_eq!(recs[0]["type"], "run");
    assert_eq!(recs[0]["seed"], 7);
    assert_eq!(recs[0]["order"], "random");
    assert_eq!(recs[0]["files"], serde_json::json!(["ipc/basic.js"]));
    let jobs = jobs(&dir.path().join("results.jsonl"));
    assert_eq!(jobs.len(), 4);
    let mut positions: Vec<u64> = jobs
        .iter()
        .map(|j| j["position"].as_u64().unwrap())
        .collect();
    positions.sort();
    assert_eq!(positions, vec![0, 1, 2, 3]);
    for j in &jobs {
        assert_eq!(j["status"], "ok");
        assert_eq!(j["exit_code"], 0);
        assert_eq!(j["queue_length"], 4);
        assert!(j["binary"].as_str().unwrap().ends_with("node"));
        assert!(j["wall_s"].as_f64().unwrap() > 0.0);
        assert!(j["user_s"].as_f64().unwrap() + j["sys_s"].as_f64().unwrap() > 0.0);
        assert!(
            j["max_rss_bytes"].as_u64().unwrap() > 1 << 20,
            "node uses > 1 MiB"
        );
        let samples = j["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 4);
        assert_eq!(samples[0]["channel"], "ipc");
        assert_eq!(
            samples[0]["params"],
            serde_json::json!([["kind", "plain"], ["n", 1.0]])
        );
    }
}

#[test]
fn set_values_reach_the_child_and_node_order_is_compare_js() {
    let dir = tempfile::tempdir().unwrap();
    let out = compare(
        dir.path(),
        &[
            "--runs", "2", "--order", "node", "--set", "n=5", "ipc", "stdout",
        ],
    )
    .assert()
    .success()
    .get_output()
    .stdout
    .clone();
    let rows = csv_rows(&String::from_utf8(out).unwrap());
    let order: Vec<(String, String)> = rows.iter().map(|r| (r[0].clone(), r[1].clone())).collect();
    let mut expected = Vec::new();
    for (file, per_job) in [("ipc/basic.js", 2), ("stdout/plain.js", 2)] {
        for _run in 0..2 {
            for b in ["old", "new"] {
                for _ in 0..per_job {
                    expected.push((b.to_owned(), file.to_owned()));
                }
            }
        }
    }
    assert_eq!(order, expected);
    assert!(rows.iter().any(|r| r[2] == "kind='plain' n=5"));
}

#[test]
fn stdout_path_reads_result_lines() {
    let dir = tempfile::tempdir().unwrap();
    let out = compare(dir.path(), &["--runs", "1", "stdout"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = csv_rows(&String::from_utf8(out).unwrap());
    assert_eq!(rows.len(), 4);
    for [_, f, c, rate, time] in &rows {
        assert_eq!(f, "stdout/plain.js");
        assert!(
            c == "label='a \"b\"' n=10" || c == "label='a \"b\"' n=20",
            "{c}"
        );
        assert!(
            rate.parse::<f64>().unwrap() > 100_000.0,
            "comma grouping removed: {rate}"
        );
        assert_eq!(time, "NA", "stdout lines carry no time");
    }
    for j in jobs(&dir.path().join("results.jsonl")) {
        assert_eq!(j["status"], "ok");
        assert_eq!(j["samples"][0]["channel"], "stdout");
    }
}

#[test]
fn crashing_child_is_recorded_and_other_jobs_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = compare(
        dir.path(),
        &[
            "--runs", "1", "--order", "node", "--filter", "crash", "--filter", "basic", "faults",
            "ipc",
        ],
    )
    .assert()
    .code(1)
    .stderr(predicate::str::contains(
        "job failed: faults/crash.js under old (run 1/1): exit code 1",
    ))
    .stderr(predicate::str::contains("stderr | Error: boom"))
    .stderr(predicate::str::contains("2 of 4 job(s) failed"))
    .get_output()
    .stdout
    .clone();
    let rows = csv_rows(&String::from_utf8(out).unwrap());
    // The crash happens after one report; ipc/basic.js still ran under both binaries.
    assert_eq!(rows.iter().filter(|r| r[1] == "ipc/basic.js").count(), 8);
    let jobs = jobs(&dir.path().join("results.jsonl"));
    let crash: Vec<_> = jobs
        .iter()
        .filter(|j| j["file"] == "faults/crash.js")
        .collect();
    assert_eq!(crash.len(), 2);
    for j in crash {
        assert_eq!(j["status"], "failed");
        assert_eq!(j["exit_code"], 1);
        assert_eq!(j["error"], "exit code 1");
        let tail = j["stderr_tail"].as_array().unwrap();
        assert!(tail.iter().any(|l| l.as_str().unwrap().contains("boom")));
    }
}

#[test]
fn hanging_child_times_out_and_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    compare(
        dir.path(),
        &[
            "--runs",
            "1",
            "--timeout",
            "0.5",
            "--filter",
            "hang",
            "faults",
        ],
    )
    .assert()
    .code(1)
    .stderr(predicate::str::contains("timed out after 0.5 s"));
    assert!(started.elapsed().as_secs_f64() < 10.0);
    for j in jobs(&dir.path().join("results.jsonl")) {
        assert_eq!(j["status"], "timeout");
        assert_eq!(j["signal"], 9);
        let wall = j["wall_s"].as_f64().unwrap();
        assert!((0.5..3.0).contains(&wall), "wall {wall}");
    }
}

#[test]
fn garbage_and_signals_are_failures() {
    let dir = tempfile::tempdir().unwrap();
    compare(
        dir.path(),
        &[
            "--runs", "1", "--filter", "garbage", "--filter", "junk", "--filter", "signal",
            "faults",
        ],
    )
    .assert()
    .code(1)
    .stderr(predicate::str::contains("garbage output"))
    .stderr(predicate::str::contains("garbage on the IPC channel"))
    .stderr(predicate::str::contains("killed by SIGKILL"));
    let jobs = jobs(&dir.path().join("results.jsonl"));
    assert_eq!(jobs.len(), 6);
    for j in &jobs {
        assert_eq!(j["status"], "failed", "{j}");
        let err = j["error"].as_str().unwrap();
        match j["file"].as_str().unwrap() {
            "faults/garbage.js" => {
                assert!(err.starts_with("garbage output"), "{err}");
                assert_eq!(j["stdout_tail"][0], "this is not a benchmark result");
            }
            "faults/ipc-junk.js" => assert!(err.contains("not json at all"), "{err}"),
            "faults/signal.js" => assert_eq!(j["signal"], 9),
            other => panic!("unexpected {other}"),
        }
    }
}

#[test]
fn fail_fast_stops_at_the_first_failure() {
    let dir = tempfile::tempdir().unwrap();
    compare(
        dir.path(),
        &[
            "--runs",
            "3",
            "--order",
            "node",
            "--fail-fast",
            "--filter",
            "signal",
            "faults",
        ],
    )
    .assert()
    .code(1)
    .stderr(predicate::str::contains("stopped by --fail-fast"));
    assert_eq!(jobs(&dir.path().join("results.jsonl")).len(), 1);
}

#[test]
fn cpus_and_cpuset_pin_the_child() {
    let dir = tempfile::tempdir().unwrap();
    let out = compare(dir.path(), &["--runs", "1", "--cpus", "0", "env"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    for r in csv_rows(&String::from_utf8(out).unwrap()) {
        assert_eq!(r[2], "cpus='0'");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = compare(dir.path(), &["--runs", "1", "--set", "CPUSET=0-0", "env"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    for r in csv_rows(&String::from_utf8(out).unwrap()) {
        assert_eq!(r[2], "cpus='0'");
    }
    assert_eq!(records(&dir.path().join("results.jsonl"))[0]["cpus"], "0-0");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    compare(dir.path(), &["nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the \"nope\" category does not exist",
        ));
    compare(dir.path(), &["--filter", "zzz", "ipc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no benchmarks found"));
    compare(dir.path(), &["--set", "CPUSET=a-b", "ipc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid CPU list"));
    compare(dir.path(), &["--set", "novalue", "ipc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("expected KEY=VALUE"));
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").unwrap();
    c.current_dir(dir.path())
        .args(["compare", "--old", "./no-such-node", "--new", "node", "ipc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--old ./no-such-node: does not exist",
        ));
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").unwrap();
    c.current_dir(dir.path())
        .args(["compare", "--old", "node", "--new", "node", "ipc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no `benchmark` folder"));
    // Nothing was run, and no results file was left behind by the failed starts.
    assert!(!dir.path().join("results.jsonl").exists());
}

#[test]
fn csv_file_gives_the_report_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    compare(
        dir.path(),
        &["--runs", "3", "--csv", "out.csv", "--format", "r", "ipc"],
    )
    .assert()
    .success()
    .stdout(predicate::str::contains("ipc/basic.js kind='plain' n=1"))
    .stdout(predicate::str::contains("there are 4 comparisons"));
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert_eq!(csv_rows(&csv).len(), 3 * 2 * 4);
}

#[test]
fn example_suite_reports_are_relayed_from_worker_processes() {
    require_node();
    let dir = tempfile::tempdir().unwrap();
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").unwrap();
    let out = c
        .current_dir(dir.path())
        .args(["compare", "--old", "node", "--new", "node", "--runs", "1"])
        .arg("--benchmark-dir")
        .arg(example_suite())
        .args(["--results", "r.jsonl", "--set", "n=200", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = csv_rows(&String::from_utf8(out).unwrap());
    assert_eq!(rows.len(), 4, "2 configurations x 2 binaries");
    for [_, f, c, _, time] in &rows {
        assert_eq!(f, "json/roundtrip.js");
        assert!(c == "keys=10 n=200" || c == "keys=100 n=200", "{c}");
        let (_, frac) = time.split_once('.').unwrap();
        assert_eq!(frac.len(), 9, "9-decimal time {time}");
    }
}
