//! Wall time of a fixed small workload on a local one-node Slurm cluster as 1, 2 and 4 array
//! tasks against one direct run (the scaling table of `docs/sharding.md`). Task K of N runs
//! `--shard auto --split runs` (its share of the R rounds); the merge step is not timed. Two
//! workloads: CPU-bound (`awk` loops: the 2 cores are the limit) and waiting (`sleep`: the cores
//! are not). Prints a table of medians of 3 (about 5 minutes); needs slurm-wlm and munge:
//! `cargo bench --bench slurm_scaling`.

#[allow(dead_code)]
#[path = "../tests/common/slurm.rs"]
mod slurm;

use slurm::Cluster;
use std::time::{Duration, Instant};

const BENCHDIFF: &str = env!("CARGO_BIN_EXE_benchdiff");

fn main() {
    const R: usize = 16;
    const REPS: usize = 3;
    let c = Cluster::start();
    let jobs = c.dir().join("jobs");
    let jobs_s = jobs.to_str().expect("utf-8 temp path").to_owned();
    // The first job after a start waits longer: run one before measuring.
    let warm = c.sbatch(&["--chdir", &jobs_s, "--output", "warm.out", "--wrap", "true"]);
    c.wait(&[&warm], Duration::from_secs(60));
    let workloads: [(&str, String); 2] = [
        (
            "cpu (awk loop, 0.12/0.27 s per run)",
            "--old awk --new awk --bench \"-v n={n} 'BEGIN { for (i = 0; i < n; i++) s += i }'\" \
             -L n=1000000,2000000"
                .into(),
        ),
        (
            "wait (sleep 0.05/0.1 s per run)",
            "--old sleep --new sleep --bench '{t}' -L t=0.05,0.1".into(),
        ),
    ];
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let mut table = String::from("workload | direct | N=1 | N=2 | N=4 (median of 3, seconds)\n");
    for (wi, (name, bench)) in workloads.iter().enumerate() {
        let direct = median(
            (0..REPS)
                .map(|rep| {
                    let t = Instant::now();
                    let o = std::process::Command::new("sh")
                        .arg("-c")
                        .arg(format!(
                            "exec '{BENCHDIFF}' compare {bench} --runs {R} --seed 1 --no-progress \
                             --force --results d-{wi}-{rep}.jsonl --csv d-{wi}-{rep}.csv"
                        ))
                        .current_dir(&jobs)
                        .output()
                        .expect("direct run");
                    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        );
        let mut row = format!("{name} | {direct:.2}");
        for n in [1usize, 2, 4] {
            let secs = median(
                (0..REPS)
                    .map(|rep| {
                        let wrap = format!(
                            "exec '{BENCHDIFF}' compare {bench} --runs {R} --seed 1 --no-progress \
                             --shard auto --split runs \
                             --force --results s-{wi}-{n}-{rep}-$SLURM_ARRAY_TASK_ID.jsonl \
                             --csv s-{wi}-{n}-{rep}-$SLURM_ARRAY_TASK_ID.csv"
                        );
                        let t = Instant::now();
                        let id = c.sbatch(&[
                            &format!("--array=1-{n}"),
                            "--chdir",
                            &jobs_s,
                            "--output",
                            &format!("s-{wi}-{n}-{rep}-%a.out"),
                            "--wrap",
                            &wrap,
                        ]);
                        let states = c.wait(&[&id], Duration::from_secs(600));
                        let secs = t.elapsed().as_secs_f64();
                        assert!(
                            states.iter().all(|s| s.completed()),
                            "{:#?}",
                            states.iter().map(|s| s.summary()).collect::<Vec<_>>()
                        );
                        secs
                    })
                    .collect(),
            );
            row.push_str(&format!(" | {secs:.2}"));
        }
        table.push_str(&row);
        table.push('\n');
    }
    eprintln!("{table}");
}
