//! `benchdiff history …` end to end with the real binary, against a SQLite file and against a
//! real PostgreSQL server started by the test: add (with duplicates), show, check (the CI
//! gate and its Markdown), dashboard and prune.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

#[cfg(all(feature = "e2e", feature = "postgres"))]
use crate::history_support;

use assert_cmd::Command;
use std::path::Path;

/// Writes a compare.js CSV of `n` new-side samples of two configurations at `level` ops/s.
fn write_csv(path: &Path, level: f64, n: usize, salt: usize) {
    let mut s = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for (conf, scale) in [("n=10", 1.0), ("n=20", 3.0)] {
        for i in 0..n {
            let jitter = ((i * 31 + salt * 17) % 11) as f64 / 11.0 - 0.5;
            let v = level * scale * (1.0 + 0.01 * jitter);
            s.push_str(&format!(
                "\"new\",\"process/next-tick-loop.js\",\"{conf}\",{v},0.5\n"
            ));
        }
    }
    std::fs::write(path, s).expect("write csv");
}

fn bd(db: &str, args: &[&str]) -> std::process::Output {
    let mut c = Command::cargo_bin("benchdiff").expect("binary");
    c.arg("history").args(args).arg("--db").arg(db);
    c.output().expect("runs")
}

fn text(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn cli_round_trip(db: &str, dir: &Path) {
    // 14 commits a day apart; the rate drops 25 % at commit 8.
    for i in 0..14 {
        let f = dir.join(format!("c{i}.csv"));
        write_csv(&f, if i < 8 { 1000.0 } else { 750.0 }, 5, i);
        let date = format!("2024-03-{:02}T10:00:00Z", i + 1);
        let sha = format!("{i:02}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        let o = bd(
            db,
            &[
                "add",
                f.to_str().expect("path"),
                "--commit",
                &sha,
                "--branch",
                "main",
                "--date",
                &date,
                "--machine",
                "ci-box",
                "--tag",
                "os=linux",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(text(&o).contains("stored 10 samples"), "{}", text(&o));
    }
    // The same file again: skipped.
    let again = bd(
        db,
        &[
            "add",
            dir.join("c3.csv").to_str().expect("path"),
            "--commit",
            "zzz",
        ],
    );
    assert!(again.status.success());
    assert!(text(&again).contains("already stored"), "{}", text(&again));

    let show = bd(db, &["show", "--commits"]);
    assert!(
        show.status.success(),
        "{}",
        String::from_utf8_lossy(&show.stderr)
    );
    let out = text(&show);
    assert!(
        out.contains(
            "process/next-tick-loop.js n=10  [rate ops/s, higher is better]  14 commits, 70 samples"
        ),
        "{out}"
    );
    assert_eq!(out.matches("change point at 08aaaa").count(), 2, "{out}");
    assert!(out.contains("(-25."), "{out}");
    assert!(
        !out.contains("zzz"),
        "the duplicate made no commit with samples: {out}"
    );

    // The gate: commit 8 starts a change point of -25 %: fails at 5 %, passes at 30 %.
    let sha8 = "08aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let md = dir.join("summary.md");
    let fail = bd(
        db,
        &[
            "check",
            "--commit",
            sha8,
            "--max-regression",
            "5",
            "--markdown",
            md.to_str().expect("p"),
        ],
    );
    assert_eq!(fail.status.code(), Some(1), "{}", text(&fail));
    let summary = std::fs::read_to_string(&md).expect("markdown written");
    assert_eq!(summary, text(&fail));
    assert!(summary.contains("2 regression(s) beyond 5%"), "{summary}");
    assert!(
        summary.contains("| :x: | `process/next-tick-loop.js n=10` | rate (ops/s)"),
        "{summary}"
    );
    assert!(summary.contains("change point"), "{summary}");
    let pass = bd(db, &["check", "--commit", sha8, "--max-regression", "30"]);
    assert_eq!(pass.status.code(), Some(0), "{}", text(&pass));

    // A new commit far below the recent range fails as the newest commit.
    let f = dir.join("new.csv");
    write_csv(&f, 500.0, 5, 99);
    let o = bd(
        db,
        &[
            "add",
            f.to_str().expect("p"),
            "--commit",
            "head1",
            "--date",
            "2024-04-01T00:00:00Z",
        ],
    );
    assert!(o.status.success());
    let newest = bd(db, &["check"]);
    assert_eq!(newest.status.code(), Some(1), "{}", text(&newest));
    assert!(
        text(&newest).contains("outside recent range"),
        "{}",
        text(&newest)
    );
    assert!(text(&newest).contains("`head1`"), "{}", text(&newest));

    // Dashboard: an overview and one page per series.
    let site = dir.join("site");
    let d = bd(db, &["dashboard", "--out", site.to_str().expect("p")]);
    assert!(d.status.success(), "{}", String::from_utf8_lossy(&d.stderr));
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    assert!(index.contains("series-0000.html") && index.contains("series-0001.html"));
    assert!(index.contains("<svg"));
    assert!(!index.contains("<script") && !index.contains("http://cdn"));

    // Prune to the newest 5 commits.
    let p = bd(db, &["prune", "--keep-commits", "5"]);
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    assert!(
        text(&p).starts_with("deleted 10 commits; 5 commits, 50 samples left"),
        "{}",
        text(&p)
    );

    // Unknown commit and bad tag: usage errors.
    assert_eq!(
        bd(db, &["check", "--commit", "nope"]).status.code(),
        Some(2)
    );
    let bad = bd(
        db,
        &[
            "add",
            dir.join("c1.csv").to_str().expect("p"),
            "--commit",
            "x",
            "--tag",
            "novalue",
        ],
    );
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn cli_on_sqlite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db/history.db");
    cli_round_trip(db.to_str().expect("path"), dir.path());
}

#[cfg(all(feature = "e2e", feature = "postgres"))]
#[test]
fn cli_on_postgres() {
    let server = history_support::PgServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    cli_round_trip(&server.fresh_db(), dir.path());
}

/// A results file of `benchdiff run` (a real command run): every metric is stored, as side
/// `new` (one-sided file), with the runner's machine record.
#[test]
fn run_results_file_with_machine_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let results = dir.path().join("r.jsonl");
    Command::cargo_bin("benchdiff")
        .expect("binary")
        .args([
            "run",
            "--bin",
            "true",
            "--bench",
            "x{n}",
            "-L",
            "n=1",
            "--runs",
            "3",
            "--results",
        ])
        .arg(&results)
        .assert()
        .success();
    let db = dir.path().join("h.db");
    let db = db.to_str().expect("path");
    let o = bd(db, &["add", results.to_str().expect("p"), "--commit", "r1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let show = text(&bd(db, &["show", "--metric", "wall"]));
    assert!(
        show.contains("true n=1  [wall s, lower is better]  1 commits, 3 samples"),
        "{show}"
    );
    let conn = rusqlite::Connection::open(db).expect("open");
    let (cores, record): (i64, String) = conn
        .query_row("SELECT cores, record FROM machines", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("one machine");
    assert!(cores >= 1);
    let v: serde_json::Value = serde_json::from_str(&record).expect("JSON record");
    assert_eq!(v["type"], "machine");
    assert!(
        v["cpus_online"].as_u64().is_some_and(|n| n >= 1),
        "{record}"
    );
}
