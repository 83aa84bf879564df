//! Sharded runs (issue 19): `compare --shard K/N`, `benchdiff merge`, `report` of shards —
//! the shard plans' union is the plan (property test), and real command benchmarks (`sleep`)
//! run as 3 shards in both split modes, merged and reported. Nothing is mocked; the one faked
//! thing is a second `machine` line written into a shard file for the different-machine case.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use benchdiff::run::schedule::{Order, schedule};
use benchdiff::run::shard::{Shard, Split, assign, slice};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// The plan: the union of the shard plans is the unsharded plan.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn union_of_shards_is_the_plan(
        units in 1usize..25,
        runs in 1u32..16,
        warmup in 0u32..3,
        n in 1u32..9,
        runs_split in any::<bool>(),
        node_order in any::<bool>(),
        seed in any::<u64>(),
        weights in proptest::collection::vec(0.0f64..100.0, 25),
        balanced in any::<bool>(),
    ) {
        let split = if runs_split { Split::Runs } else { Split::Benchmarks };
        let order = if node_order { Order::Node } else { Order::Random };
        let full = schedule(units, warmup + runs, order, seed);
        let w = balanced.then_some(&weights[..units]);
        let mut counted = BTreeMap::new();
        let mut warm = BTreeMap::new();
        for k in 1..=n {
            let a = assign(Shard { k, n }, split, units, runs, w);
            let part = slice(&full, &a, warmup);
            // Every job is the plan's job (same file, side, round, position), in plan order.
            let mut last = None;
            for j in &part {
                prop_assert_eq!(full[j.position as usize], *j);
                prop_assert!(last.is_none_or(|p| p < j.position));
                last = Some(j.position);
                let into = if j.run < warmup { &mut warm } else { &mut counted };
                *into.entry(j.position).or_insert(0u32) += 1;
            }
            if split == Split::Runs {
                // Every shard warms its machine: all warm-up jobs.
                prop_assert_eq!(part.iter().filter(|j| j.run < warmup).count(),
                                full.iter().filter(|j| j.run < warmup).count());
            }
        }
        // Counted jobs: exactly the plan's, none twice.
        let want: BTreeSet<u32> = full.iter().filter(|j| j.run >= warmup).map(|j| j.position).collect();
        prop_assert_eq!(counted.keys().copied().collect::<BTreeSet<_>>(), want);
        prop_assert!(counted.values().all(|&c| c == 1), "a counted job twice");
        if split == Split::Benchmarks {
            // Warm-ups go with their benchmark: also exactly once.
            prop_assert!(warm.values().all(|&c| c == 1));
            prop_assert_eq!(warm.len(), full.iter().filter(|j| j.run < warmup).count());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real processes.

fn benchdiff(dir: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("benchdiff").expect("binary built");
    c.current_dir(dir).env("NO_COLOR", "1");
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "SLURM_ARRAY_TASK_COUNT",
        "JOB_COMPLETION_INDEX",
        "BENCHDIFF_SHARD_COUNT",
    ] {
        c.env_remove(v);
    }
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

/// (benchmark configuration, side, run, warm-up, position) of every job record.
fn job_keys(path: &Path) -> BTreeSet<(String, String, u64, bool, u64)> {
    records(path)
        .into_iter()
        .filter(|r| r["type"] == "command-job")
        .map(|r| {
            (
                r["combination"].to_string(),
                r["side"].as_str().unwrap().to_owned(),
                r["run"].as_u64().unwrap(),
                r["warmup"].as_bool().unwrap(),
                r["position"].as_u64().unwrap(),
            )
        })
        .collect()
}

const RUNS: &str = "6";

/// The small command benchmark: 3 configurations of `sleep`, 6 runs, seed 7.
fn plan_args(extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "compare",
        "--old",
        "sleep",
        "--new",
        "sleep",
        "--bench",
        "{t}",
        "-L",
        "t=0.001,0.002,0.003",
        "--runs",
        RUNS,
        "--seed",
        "7",
        "--no-progress",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn run_shards(dir: &Path, split: &str, n: u32, prefix: &str) -> Vec<PathBuf> {
    (1..=n)
        .map(|k| {
            let f = dir.join(format!("{prefix}{k}.jsonl"));
            let shard = format!("{k}/{n}");
            let out = benchdiff(dir)
                .args(plan_args(&[
                    "--shard",
                    &shard,
                    "--split",
                    split,
                    "--results",
                    f.to_str().unwrap(),
                ]))
                .output()
                .unwrap();
            assert!(out.status.success(), "shard {shard}: {}", text(&out.stderr));
            assert!(
                text(&out.stderr).contains(&format!("shard {shard} (split {split})")),
                "{}",
                text(&out.stderr)
            );
            f
        })
        .collect()
}

fn merge(dir: &Path, files: &[PathBuf], out: &Path, extra: &[&str]) -> std::process::Output {
    let mut c = benchdiff(dir);
    c.arg("merge");
    for f in files {
        c.arg(f);
    }
    c.arg("-o").arg(out).args(extra);
    c.output().unwrap()
}

fn json_report(dir: &Path, files: &[&Path]) -> serde_json::Value {
    let mut c = benchdiff(dir);
    c.args(["report", "--format", "json"]);
    for f in files {
        c.arg(f);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Written straight from the structs, the bytes (combined rows too) are serde_json's
    // pretty-printing of the document.
    let again = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    assert!(
        again.as_bytes() == out.stdout,
        "not serde_json's pretty-printing"
    );
    // The combined rows' fields are in the schema.
    let schema_path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    doc
}

#[test]
fn three_shards_in_both_split_modes_merge_to_the_unsharded_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let whole = dir.join("whole.jsonl");
    let out = benchdiff(dir)
        .args(plan_args(&["--results", whole.to_str().unwrap()]))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = job_keys(&whole);
    assert_eq!(want.len(), 3 * 6 * 2);
    for split in ["runs", "benchmarks"] {
        let shards = run_shards(dir, split, 3, &format!("{split}-"));
        // Each shard records its part of the plan, the fingerprint and the machine.
        let recs: Vec<serde_json::Value> = shards.iter().map(|f| records(f)[1].clone()).collect();
        for (k, r) in recs.iter().enumerate() {
            assert_eq!(r["type"], "shard");
            assert_eq!(r["shard"], k as u64 + 1);
            assert_eq!(r["of"], 3);
            assert_eq!(r["split"], split);
            assert_eq!(r["plan"], recs[0]["plan"]);
            assert!(r["plan"].as_str().unwrap().starts_with("sha256:"));
            // One machine record (written when its busy-process window closes, which may
            // be after the first jobs).
            let machines = records(&shards[k])
                .iter()
                .filter(|r| r["type"] == "machine")
                .count();
            assert_eq!(machines, 1);
        }
        let merged = dir.join(format!("{split}-merged.jsonl"));
        let m = merge(dir, &shards, &merged, &[]);
        assert!(m.status.success(), "{}", text(&m.stderr));
        // The same jobs, rounds and positions as the unsharded run.
        assert_eq!(job_keys(&merged), want, "split {split}");
        let union: BTreeSet<_> = shards.iter().flat_map(|f| job_keys(f)).collect();
        assert_eq!(union, want);
        // The report has every configuration with the runs of the unsharded plan.
        for files in [
            vec![merged.as_path()],
            shards.iter().map(PathBuf::as_path).collect(),
        ] {
            let r = json_report(dir, &files);
            let rows = r["comparisons"].as_array().unwrap();
            let names: BTreeSet<&str> = rows.iter().map(|c| c["name"].as_str().unwrap()).collect();
            assert_eq!(
                names,
                ["sleep t=0.001", "sleep t=0.002", "sleep t=0.003"]
                    .into_iter()
                    .collect()
            );
            for c in rows {
                assert_eq!(c["runs"], 6, "{}", c["name"]);
                assert_eq!(c["old"]["n"], 6);
                match split {
                    // Each machine a block: combined over the 3 shards.
                    "runs" => {
                        assert_eq!(c["combined"]["machines"], 3, "{c}");
                        assert_eq!(c["combined"]["per_machine"].as_array().unwrap().len(), 3);
                    }
                    // Each configuration from one machine: analysed as today.
                    _ => assert!(c.get("combined").is_none(), "{c}"),
                }
            }
        }
    }
    // Markdown and the table say a row is combined, and over how many machines.
    let merged = dir.join("runs-merged.jsonl");
    let md = benchdiff(dir)
        .args(["report", "--format", "markdown"])
        .arg(&merged)
        .output()
        .unwrap();
    assert!(
        text(&md.stdout).contains("combined over 3 machines"),
        "{}",
        text(&md.stdout)
    );
    let table = benchdiff(dir).arg("report").arg(&merged).output().unwrap();
    let t = text(&table.stdout);
    assert!(
        t.contains("combined(3 machines)") && t.contains("combined over 3 machines"),
        "{t}"
    );
}

#[test]
fn merge_refuses_a_mix_and_reports_missing_and_duplicate_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let shards = run_shards(dir, "runs", 3, "a");
    // Shard 3 of another plan (another seed).
    let odd = dir.join("odd3.jsonl");
    let out = benchdiff(dir)
        .args(
            plan_args(&[
                "--shard",
                "3/3",
                "--split",
                "runs",
                "--results",
                odd.to_str().unwrap(),
            ])
            .into_iter()
            .map(|a| if a == "7" { "8".to_owned() } else { a }),
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let m = merge(
        dir,
        &[shards[0].clone(), shards[1].clone(), odd.clone()],
        &dir.join("x.jsonl"),
        &[],
    );
    assert_eq!(m.status.code(), Some(2));
    let e = text(&m.stderr);
    assert!(
        e.contains("odd3.jsonl") && e.contains("seed differs"),
        "{e}"
    );
    assert!(!dir.join("x.jsonl").exists());
    // A shard of another split.
    let other = run_shards(dir, "benchmarks", 3, "b");
    let m = merge(
        dir,
        &[shards[0].clone(), other[1].clone()],
        &dir.join("x.jsonl"),
        &[],
    );
    assert_eq!(m.status.code(), Some(2));
    let e = text(&m.stderr);
    assert!(e.contains("b2.jsonl") && e.contains("split differs"), "{e}");
    // Missing: an error, or a warning with --allow-missing.
    let two = [shards[0].clone(), shards[2].clone()];
    let m = merge(dir, &two, &dir.join("x.jsonl"), &[]);
    assert_eq!(m.status.code(), Some(2));
    assert!(
        text(&m.stderr).contains("missing shard(s) 2 of 3"),
        "{}",
        text(&m.stderr)
    );
    let m = merge(dir, &two, &dir.join("x.jsonl"), &["--allow-missing"]);
    assert!(m.status.success(), "{}", text(&m.stderr));
    assert!(text(&m.stderr).contains("warning: missing shard(s) 2 of 3"));
    // Duplicate.
    let dup = [
        shards[0].clone(),
        shards[1].clone(),
        shards[1].clone(),
        shards[2].clone(),
    ];
    let m = merge(dir, &dup, &dir.join("y.jsonl"), &[]);
    assert_eq!(m.status.code(), Some(2));
    assert!(
        text(&m.stderr).contains("shard 2/3 is given twice"),
        "{}",
        text(&m.stderr)
    );
}

#[test]
fn report_refuses_old_and_new_from_different_machines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let shards = run_shards(dir, "runs", 3, "m");
    // Fake: shard 2's run moved to another machine between the old and the new job of a round.
    let lines: Vec<String> = std::fs::read_to_string(&shards[1])
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let job = |l: &str| serde_json::from_str::<serde_json::Value>(l).unwrap();
    let first = lines
        .iter()
        .position(|l| l.contains("\"type\":\"command-job\""))
        .unwrap();
    let j = job(&lines[first]);
    let partner = lines
        .iter()
        .enumerate()
        .skip(first + 1)
        .find(|(_, l)| {
            let p = job(l);
            p["type"] == "command-job"
                && p["combination"] == j["combination"]
                && p["run"] == j["run"]
                && p["side"] != j["side"]
        })
        .map(|(i, _)| i)
        .unwrap();
    let mut machine = job(lines
        .iter()
        .find(|l| l.contains("\"type\":\"machine\""))
        .unwrap());
    machine["host"] = "other-host".into();
    let mut edited = lines.clone();
    edited.insert(partner, machine.to_string());
    std::fs::write(&shards[1], edited.join("\n") + "\n").unwrap();
    let out = benchdiff(dir).arg("report").args(&shards).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(
        e.contains("other-host") && e.contains("same machine") && e.contains("does not compare"),
        "{e}"
    );
    // Merging is allowed (one plan); its report refuses the same way.
    let merged = dir.join("merged.jsonl");
    assert!(merge(dir, &shards, &merged, &[]).status.success());
    let out = benchdiff(dir).arg("report").arg(&merged).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("other-host"));
}

fn shard_record_with_env(
    dir: &Path,
    name: &str,
    env: &[(&str, &str)],
    extra: &[&str],
) -> std::process::Output {
    let f = dir.join(name);
    let mut args = vec!["--shard", "auto", "--results", f.to_str().unwrap()];
    args.extend(extra);
    let mut c = benchdiff(dir);
    c.args(plan_args(&args));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn shard_auto_reads_slurm_and_kubernetes_environments() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Slurm array 4-6, task 5: shard 2 of 3.
    let out = shard_record_with_env(
        dir,
        "slurm.jsonl",
        &[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r = &records(&dir.join("slurm.jsonl"))[1];
    assert_eq!((r["shard"].as_u64(), r["of"].as_u64()), (Some(2), Some(3)));
    // Slurm with the count only (MIN 0): task 3 of 4.
    let out = shard_record_with_env(
        dir,
        "slurm-count.jsonl",
        &[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r = &records(&dir.join("slurm-count.jsonl"))[1];
    assert_eq!((r["shard"].as_u64(), r["of"].as_u64()), (Some(3), Some(4)));
    // Kubernetes Indexed Job, 0-based index with --shard-count.
    let out = shard_record_with_env(
        dir,
        "k8s.jsonl",
        &[("JOB_COMPLETION_INDEX", "0")],
        &["--shard-count", "2"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r = &records(&dir.join("k8s.jsonl"))[1];
    assert_eq!((r["shard"].as_u64(), r["of"].as_u64()), (Some(1), Some(2)));
    // ... or with BENCHDIFF_SHARD_COUNT.
    let out = shard_record_with_env(
        dir,
        "k8s-env.jsonl",
        &[
            ("JOB_COMPLETION_INDEX", "1"),
            ("BENCHDIFF_SHARD_COUNT", "2"),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r = &records(&dir.join("k8s-env.jsonl"))[1];
    assert_eq!((r["shard"].as_u64(), r["of"].as_u64()), (Some(2), Some(2)));
    // The index without a count, and no engine at all: clear errors naming the variables.
    let out = shard_record_with_env(dir, "k8s-bad.jsonl", &[("JOB_COMPLETION_INDEX", "1")], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--shard-count"),
        "{}",
        text(&out.stderr)
    );
    let out = shard_record_with_env(dir, "none.jsonl", &[], &[]);
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(
        e.contains("SLURM_ARRAY_TASK_ID") && e.contains("JOB_COMPLETION_INDEX"),
        "{e}"
    );
    assert!(
        !dir.join("none.jsonl").exists(),
        "no results file on a usage error"
    );
}

use crate::common;

/// (file, side, run, position) of every Node job record.
fn node_job_keys(path: &Path) -> BTreeSet<(String, String, u64, u64)> {
    common::jobs(path)
        .into_iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap().to_owned(),
                r["side"].as_str().unwrap().to_owned(),
                r["run"].as_u64().unwrap(),
                r["position"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[cfg(feature = "e2e")]
#[test]
fn node_file_runs_shard_and_merge_to_the_unsharded_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let base = [
        "--runs",
        "4",
        "--seed",
        "3",
        "--no-progress",
        "ipc",
        "stdout",
    ];
    let out = common::compare(dir, &base).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let whole = node_job_keys(&dir.join("results.jsonl"));
    assert_eq!(whole.len(), 2 * 4 * 2);
    for split in ["runs", "benchmarks"] {
        let mut files = Vec::new();
        for k in 1..=2 {
            let f = dir.join(format!("node-{split}-{k}.jsonl"));
            let shard = format!("{k}/2");
            let mut c = common::compare(dir, &base);
            // The helper writes results.jsonl in the current folder: one folder per shard.
            let sub = dir.join(format!("{split}{k}"));
            std::fs::create_dir_all(&sub).unwrap();
            c.current_dir(&sub)
                .args(["--shard", &shard, "--split", split]);
            let out = c.output().unwrap();
            assert!(out.status.success(), "{}", text(&out.stderr));
            if split == "runs" && k == 2 {
                // Interrupted: the last two jobs lost; --resume runs only the shard's missing jobs.
                let r = sub.join("results.jsonl");
                let lines: Vec<String> = std::fs::read_to_string(&r)
                    .unwrap()
                    .lines()
                    .map(str::to_owned)
                    .collect();
                let jobs: Vec<usize> = (0..lines.len())
                    .filter(|&i| lines[i].contains("\"type\":\"job\""))
                    .collect();
                let kept: Vec<&String> = (0..lines.len())
                    .filter(|i| !jobs[jobs.len() - 2..].contains(i))
                    .map(|i| &lines[i])
                    .collect();
                std::fs::write(
                    &r,
                    kept.iter().map(|l| format!("{l}\n")).collect::<String>(),
                )
                .unwrap();
                let out = assert_cmd::Command::cargo_bin("benchdiff")
                    .unwrap()
                    .current_dir(&sub)
                    .args(["compare", "--resume", "results.jsonl", "--no-progress"])
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", text(&out.stderr));
                assert!(
                    text(&out.stderr).contains("2 to run"),
                    "{}",
                    text(&out.stderr)
                );
            }
            std::fs::rename(sub.join("results.jsonl"), &f).unwrap();
            files.push(f);
        }
        let merged = dir.join(format!("node-{split}-merged.jsonl"));
        let m = merge(dir, &files, &merged, &[]);
        assert!(m.status.success(), "{}", text(&m.stderr));
        assert_eq!(node_job_keys(&merged), whole, "split {split}");
        let r = json_report(dir, &[merged.as_path()]);
        let rows = r["comparisons"].as_array().unwrap();
        // ipc/basic.js: 4 configurations, stdout/plain.js: its own.
        assert!(rows.len() >= 5, "{r}");
        for c in rows {
            assert_eq!(c["runs"], 4, "{}", c["name"]);
            assert_eq!(c.get("combined").is_some(), split == "runs", "{c}");
        }
    }
}

#[test]
fn balance_from_deals_benchmarks_by_previous_job_times() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let whole = dir.join("whole.jsonl");
    let out = benchdiff(dir)
        .args(plan_args(&["--results", whole.to_str().unwrap()]))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A previous run in which t=0.001 took 100 s a job and the others 1 s.
    let previous = dir.join("previous.jsonl");
    let lines: Vec<String> = records(&whole)
        .into_iter()
        .map(|mut r| {
            if r["type"] == "command-job" {
                let slow = r["combination"][0][1] == "0.001";
                r["wall_s"] = if slow { 100.0 } else { 1.0 }.into();
            }
            r.to_string()
        })
        .collect();
    std::fs::write(&previous, lines.join("\n") + "\n").unwrap();
    let units = |f: &Path| records(f)[1]["units"].clone();
    let mut files = Vec::new();
    for k in 1..=2 {
        let f = dir.join(format!("bal{k}.jsonl"));
        let shard = format!("{k}/2");
        let out = benchdiff(dir)
            .args(plan_args(&[
                "--shard",
                &shard,
                "--balance-from",
                previous.to_str().unwrap(),
                "--results",
                f.to_str().unwrap(),
            ]))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        files.push(f);
    }
    // The long benchmark alone on shard 1, the two short ones on shard 2 (by count it would
    // be 0 and 2 against 1).
    assert_eq!(units(&files[0]), serde_json::json!([0]));
    assert_eq!(units(&files[1]), serde_json::json!([1, 2]));
    let merged = dir.join("bal-merged.jsonl");
    let m = merge(dir, &files, &merged, &[]);
    assert!(m.status.success(), "{}", text(&m.stderr));
    assert_eq!(job_keys(&merged), job_keys(&whole));
    // A shard dealt by count does not belong to the balanced plan.
    let count = run_shards(dir, "benchmarks", 2, "cnt");
    assert_eq!(units(&count[0]), serde_json::json!([0, 2]));
    let m = merge(
        dir,
        &[files[0].clone(), count[1].clone()],
        &dir.join("x.jsonl"),
        &[],
    );
    assert_eq!(m.status.code(), Some(2));
    assert!(
        text(&m.stderr).contains("balance file differs"),
        "{}",
        text(&m.stderr)
    );
}

/// `--runs auto` stops rows on the samples it has; a shard has one machine's only, so the
/// combination is refused before anything runs (exit 2).
#[test]
fn shard_with_runs_auto_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let o = assert_cmd::Command::cargo_bin("benchdiff")
        .expect("binary")
        .current_dir(dir.path())
        .args([
            "compare",
            "--old",
            "true",
            "--new",
            "true",
            "--bench",
            "x",
            "--runs",
            "auto",
            "--shard",
            "1/2",
            "--results",
            "r.jsonl",
        ])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--shard with --runs auto is not supported"),
        "{err}"
    );
    assert!(!dir.path().join("r.jsonl").exists());
}
