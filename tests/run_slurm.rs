//! A real one-machine Slurm cluster (`tests/common/slurm.rs`): it starts, runs a job array with a
//! dependent job, and leaves nothing running; and `examples/cluster/slurm/` run as a sharded
//! benchdiff comparison merged by a dependent job. Missing Slurm or munge fails, never skips.

mod common;

use common::slurm::{is_gone, processes_using, Cluster};
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
    let all = std::fs::read_to_string(jobs.join("all.txt")).expect("all.txt from the dependent job");
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
        assert!(is_gone(pid), "daemon {pid} still running after the guard dropped");
    }
    let left = processes_using(&dir);
    assert!(left.is_empty(), "processes left under {}: {left:?}", dir.display());
    assert!(!dir.exists(), "{} not removed", dir.display());
    eprintln!("cluster: start {started:?}, start+array+dependent {ran:?}, stop {stopped:?}");
}
