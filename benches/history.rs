//! Speed and size of the history database (issue 18), with the real binary where a user
//! would run it:
//!
//! 1. `benchdiff history add` of a 1,000,000-row compare.js CSV (20,000 configurations ×
//!    2 binaries × 25 runs) into a fresh SQLite file. Goal: < 5 s wall.
//! 2. A database of 1,000 commits × 200 configurations × 10 samples (2,000,000 samples),
//!    added through the library one commit (one transaction) at a time. Goals: adds in
//!    seconds; the SQLite file (after a WAL checkpoint) < 200 MB.
//! 3. `benchdiff history show` over those 2,000,000 samples (every series' change points).
//!    Goal: < 2 s wall.
//!
//! Each step runs against SQLite and against a real PostgreSQL server started for the
//! bench in a temporary folder (Debian's `postgresql`, unix socket, the same helper as the
//! tests; `fsync=off`, so PostgreSQL's figures are the best case). The size goal is SQLite's;
//! PostgreSQL's on-disk size (`pg_database_size`) is printed for reference.
//! Prints each figure with PASS/FAIL and exits 1 when a goal is missed.
//! Run: `cargo bench --features postgres --bench history`.

#[path = "../tests/history_support/mod.rs"]
mod history_support;

use benchdiff::history::Store;
use benchdiff::history::store::{CommitInfo, MachineRecord, NewFile};
use benchdiff::sample::{Better, Sample, SampleSet, Side};
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_benchdiff");

/// xorshift64*: reproducible noise without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn big_csv(path: &Path) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        w,
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\""
    )?;
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for _run in 0..25 {
        for c in 0..20_000 {
            for side in ["old", "new"] {
                let rate = 1e6 * (1.0 + (c % 97) as f64 / 100.0) * (1.0 + 0.02 * (r.next() - 0.5));
                writeln!(
                    w,
                    "\"{side}\",\"bench/file{}.js\",\"n={}\",{rate},0.5",
                    c / 100,
                    c % 100
                )?;
            }
        }
    }
    w.flush()
}

fn report(name: &str, value: f64, unit: &str, limit: f64, failed: &mut bool) {
    let ok = value < limit;
    *failed |= !ok;
    println!(
        "{name:<55} {value:>9.2} {unit:<3} (goal < {limit} {unit}) {}",
        if ok { "PASS" } else { "FAIL" }
    );
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut failed = false;
    let csv = dir.path().join("big.csv");
    big_csv(&csv).expect("generate");
    let sqlite = |name: &str| {
        dir.path()
            .join(format!("{name}.db"))
            .to_str()
            .expect("path")
            .to_owned()
    };
    measure("SQLite", &csv, &sqlite, &mut failed);
    let server = history_support::PgServer::start();
    let pg = |_: &str| server.fresh_db();
    measure("PostgreSQL", &csv, &pg, &mut failed);
    if failed {
        std::process::exit(1);
    }
}

/// Steps 1–3 on one backend; `db` gives a fresh database URL per step.
fn measure(backend: &str, csv: &Path, db: &dyn Fn(&str) -> String, failed: &mut bool) {
    println!("{backend}:");
    // 1. add a 1M-row CSV.
    let db1 = db("add");
    let t = Instant::now();
    let out = Command::new(BIN)
        .args([
            "history",
            "add",
            "--commit",
            "big",
            "--date",
            "2025-01-01",
            "--db",
        ])
        .arg(&db1)
        .arg(csv)
        .output()
        .expect("runs");
    let add_s = t.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report(
        "history add, 1,000,000-row compare.js CSV",
        add_s,
        "s",
        5.0,
        failed,
    );

    // 2. 1,000 commits × 200 configurations × 10 samples.
    let db2 = db("big");
    let mut store = Store::open(&db2).expect("open");
    let mut r = Rng(42);
    let t = Instant::now();
    for commit in 0..1000usize {
        let mut set = SampleSet::new();
        let metric = set.intern_metric("rate", "ops/s", Better::Higher);
        for c in 0..200 {
            let b = set.intern(
                &format!("bench/file{}.js", c / 20),
                &format!("n={}", c % 20),
            );
            // Every 250 commits a 10 % step in a quarter of the series.
            let step = if c % 4 == 0 {
                1.0 + 0.1 * (commit / 250) as f64
            } else {
                1.0
            };
            for run in 0..10 {
                set.push(Sample {
                    benchmark: b,
                    side: Side::New,
                    metric,
                    value: 1e5 * step * (1.0 + 0.02 * (r.next() - 0.5)),
                    time_s: 0.1,
                    run: Some(run),
                });
            }
        }
        store
            .add(&NewFile {
                sha256: format!("{commit:064x}"),
                name: format!("c{commit}.csv"),
                format: "node-compare-csv".into(),
                commit: CommitInfo {
                    sha: format!("{commit:040x}"),
                    branch: Some("main".into()),
                    date_unix_s: Some(1_700_000_000 + commit as i64 * 3600),
                    order: None,
                },
                machine: MachineRecord::this_machine(Some("bench")),
                tags: Vec::new(),
                set: &set,
                now_unix_s: 1_700_000_000,
            })
            .expect("add");
    }
    let fill_s = t.elapsed().as_secs_f64();
    let counts = store.counts().expect("counts");
    assert_eq!(counts.samples, 2_000_000);
    // Closing the last connection checkpoints the WAL into the main file.
    drop(store);
    report(
        "add 1,000 commits x 200 configurations x 10 samples",
        fill_s,
        "s",
        30.0,
        failed,
    );
    if backend == "SQLite" {
        let file = Path::new(&db2);
        let size = std::fs::metadata(file).map_or(0, |m| m.len())
            + std::fs::metadata(file.with_extension("db-wal")).map_or(0, |m| m.len());
        report(
            "SQLite size of 2,000,000 samples (file + WAL)",
            size as f64 / 1e6,
            "MB",
            200.0,
            failed,
        );
    } else if let Ok(mut c) = postgres::Client::connect(&db2, postgres::NoTls)
        && let Ok(row) = c.query_one("SELECT pg_database_size(current_database())", &[])
    {
        let bytes: i64 = row.get(0);
        println!(
            "{:<55} {:>9.2} MB (for reference)",
            "PostgreSQL database size, 2,000,000 samples",
            bytes as f64 / 1e6
        );
    }

    // 3. show over 2M samples.
    let t = Instant::now();
    let out = Command::new(BIN)
        .args(["history", "show", "--db"])
        .arg(&db2)
        .output()
        .expect("runs");
    let show_s = t.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let cps = text.matches("change point at").count();
    report(
        "history show, 2,000,000 samples, 200 series",
        show_s,
        "s",
        2.0,
        failed,
    );
    println!("  ({cps} change points found; 50 series x 3 steps planted)");
}
