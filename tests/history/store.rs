//! The history store: one test body per behaviour, run against SQLite (a file in a temporary
//! folder) and against a real PostgreSQL server the test starts itself
//! (`history_support::PgServer`). No mocks.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

#[cfg(all(feature = "e2e", feature = "postgres"))]
use crate::history_support;

use benchdiff::format::{self, ReadOptions};
use benchdiff::history::Store;
use benchdiff::history::schema::MIGRATIONS;
use benchdiff::history::series::{self, Filter};
use benchdiff::history::store::{Added, CommitInfo, MachineRecord, NewFile};
use benchdiff::sample::{SampleSet, Side};
use benchdiff::stats::changepoint::Params;

/// A compare.js CSV with `n` new-side samples per configuration around `level` ops/s.
fn csv(level: f64, n: usize, salt: u64) -> String {
    let mut s = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for conf in ["n=10", "n=20"] {
        for i in 0..n {
            let jitter = ((i as u64 * 7919 + salt * 104_729) % 97) as f64 / 97.0 - 0.5;
            let v = level * (1.0 + 0.01 * jitter) * if conf == "n=20" { 2.0 } else { 1.0 };
            s.push_str(&format!(
                "\"new\",\"process/next-tick-loop.js\",\"{conf}\",{v},0.5\n"
            ));
        }
    }
    s
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn add_text(store: &mut Store, text: &str, sha: &str, date: i64) -> Added {
    let mut set = SampleSet::new();
    let opts = ReadOptions {
        side: Side::New,
        sides_by: None,
    };
    format::read_text(text, "t.csv", None, &opts, &mut set).expect("readable CSV");
    store
        .add(&NewFile {
            sha256: sha256_hex(text.as_bytes()),
            name: "t.csv".into(),
            format: "node-compare-csv".into(),
            commit: CommitInfo {
                sha: sha.into(),
                branch: Some("main".into()),
                date_unix_s: Some(date),
                order: None,
            },
            machine: MachineRecord {
                name: "ci-1".into(),
                cpu_model: "Test CPU".into(),
                kernel: "6.1.0".into(),
                cores: 2,
                record: Some("{\"cpus_online\":2}".into()),
            },
            tags: vec![("runner".into(), "gha".into())],
            set: &set,
            now_unix_s: 1_700_000_000,
        })
        .expect("add")
}

fn migrations_are_numbered_and_recorded(url: &str) {
    let mut s = Store::open(url).expect("open");
    let last = MIGRATIONS.last().expect("migrations").version;
    assert_eq!(s.schema_version().expect("version"), last);
    let applied = s.applied_migrations().expect("applied");
    let want: Vec<i64> = (1..=last).collect();
    assert_eq!(applied, want);
    drop(s);
    // Opening again applies nothing twice.
    let mut s = Store::open(url).expect("reopen");
    assert_eq!(s.applied_migrations().expect("applied"), want);
}

fn upgrade_from_version_1_keeps_the_data(url: &str) {
    let mut s = Store::connect(url).expect("connect");
    assert_eq!(s.migrate_to(1).expect("migrate to 1"), 1);
    assert_eq!(s.applied_migrations().expect("applied"), [1]);
    add_text(&mut s, &csv(500.0, 3, 2), "old1", 1_600_000_000);
    drop(s);
    let mut s = Store::open(url).expect("open upgrades");
    let last = MIGRATIONS.last().expect("migrations").version;
    assert_eq!(s.schema_version().expect("version"), last);
    assert_eq!(s.counts().expect("counts").samples, 6);
    // Migrating again applies nothing.
    assert_eq!(s.migrate().expect("nothing to do"), last);
    assert_eq!(
        s.applied_migrations().expect("applied").len(),
        MIGRATIONS.len()
    );
}

fn same_file_twice_is_stored_once(url: &str) {
    let mut s = Store::open(url).expect("open");
    let text = csv(1000.0, 5, 1);
    let first = add_text(&mut s, &text, "aaa1", 1_600_000_000);
    let Added::Stored { file_id, samples } = first else {
        panic!("first add stored nothing: {first:?}")
    };
    assert_eq!(samples, 10);
    assert_eq!(
        add_text(&mut s, &text, "aaa1", 1_600_000_000),
        Added::Duplicate { file_id }
    );
    let c = s.counts().expect("counts");
    assert_eq!((c.commits, c.files, c.series, c.samples), (1, 1, 2, 10));
}

fn series_and_change_point_over_commits(url: &str) {
    let mut s = Store::open(url).expect("open");
    // 16 commits, a day apart, added out of order; the rate drops 30 % at commit 10.
    let mut order: Vec<usize> = (0..16).collect();
    order.reverse();
    for i in order {
        let level = if i < 10 { 1000.0 } else { 700.0 };
        let r = add_text(
            &mut s,
            &csv(level, 4, i as u64),
            &format!("c{i:02}"),
            1_600_000_000 + i as i64 * 86_400,
        );
        assert!(matches!(r, Added::Stored { samples: 8, .. }), "{r:?}");
    }
    let loaded = s.load(Side::New).expect("load");
    assert_eq!(loaded.samples.len(), 16 * 8);
    let h = series::build(
        loaded,
        &Filter {
            benchmark: Some("n=10".into()),
            ..Filter::default()
        },
        &Params::default(),
    );
    let shas: Vec<&str> = h.commits.iter().map(|c| c.sha.as_str()).collect();
    assert_eq!(shas[0], "c00");
    assert_eq!(shas[15], "c15");
    assert_eq!(h.series.len(), 1);
    let sv = &h.series[0];
    assert_eq!(sv.name(), "process/next-tick-loop.js n=10");
    assert_eq!(sv.points.len(), 16);
    assert!(sv.points.iter().all(|p| p.values.len() == 4));
    assert_eq!(sv.changes.len(), 1, "{:?}", sv.changes);
    let c = &sv.changes[0];
    assert_eq!(h.commits[c.commit].sha, "c10");
    assert!((c.change_pct - -30.0).abs() < 1.5, "{c:?}");
    assert!(c.regression && c.p_value <= 0.01, "{c:?}");
    // Tag and machine filters.
    let h = series::build(
        s.load(Side::New).expect("load"),
        &Filter {
            machine: Some("other".into()),
            ..Filter::default()
        },
        &Params::default(),
    );
    assert!(h.series.is_empty());
    let h = series::build(
        s.load(Side::New).expect("load"),
        &Filter {
            tags: vec![("runner".into(), "gha".into())],
            ..Filter::default()
        },
        &Params::default(),
    );
    assert_eq!(h.series.len(), 2);
    // Old side: nothing stored.
    assert!(s.load(Side::Old).expect("load").samples.is_empty());
}

fn commit_details_update_and_prune(url: &str) {
    let mut s = Store::open(url).expect("open");
    for i in 0..6 {
        add_text(
            &mut s,
            &csv(100.0, 2, i),
            &format!("p{i}"),
            1_600_000_000 + i as i64 * 86_400,
        );
    }
    // Keep the newest 4 commits.
    assert_eq!(s.prune(None, Some(4), 1_600_000_000).expect("prune"), 2);
    let shas: Vec<String> = s
        .commits()
        .expect("commits")
        .into_iter()
        .map(|c| c.sha)
        .collect();
    assert_eq!(shas, ["p2", "p3", "p4", "p5"]);
    let c = s.counts().expect("counts");
    assert_eq!((c.commits, c.files, c.samples), (4, 4, 16));
    // Older than 2 days before p5's date + 0.5 day: p2 and p3 go.
    let now = 1_600_000_000 + 5 * 86_400 + 43_200;
    assert_eq!(s.prune(Some(2), None, now).expect("prune"), 2);
    let shas: Vec<String> = s
        .commits()
        .expect("commits")
        .into_iter()
        .map(|c| c.sha)
        .collect();
    assert_eq!(shas, ["p4", "p5"]);
    // A pruned file can be added again.
    assert!(matches!(
        add_text(&mut s, &csv(100.0, 2, 0), "p0", 1_600_000_000),
        Added::Stored { .. }
    ));
}

/// A named test body, run with a database URL.
type Body = (&'static str, fn(&str));

const BODIES: &[Body] = &[
    (
        "migrations_are_numbered_and_recorded",
        migrations_are_numbered_and_recorded,
    ),
    (
        "upgrade_from_version_1_keeps_the_data",
        upgrade_from_version_1_keeps_the_data,
    ),
    (
        "same_file_twice_is_stored_once",
        same_file_twice_is_stored_once,
    ),
    (
        "series_and_change_point_over_commits",
        series_and_change_point_over_commits,
    ),
    (
        "commit_details_update_and_prune",
        commit_details_update_and_prune,
    ),
];

#[test]
fn store_on_sqlite() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (i, (name, body)) in BODIES.iter().enumerate() {
        eprintln!("sqlite: {name}");
        let path = dir.path().join(format!("h{i}/history.db"));
        body(path.to_str().expect("utf-8 path"));
    }
    // Pruning gives the space back: the file shrinks.
    let big = dir.path().join("big.db");
    let big = big.to_str().expect("path");
    let mut s = Store::open(big).expect("open");
    for i in 0..8 {
        add_text(
            &mut s,
            &csv(100.0, 400, i),
            &format!("b{i}"),
            1_600_000_000 + i as i64,
        );
    }
    drop(s);
    let before = std::fs::metadata(big).expect("db").len();
    let mut s = Store::open(big).expect("open");
    assert_eq!(s.prune(None, Some(1), 1_600_000_000).expect("prune"), 7);
    drop(s);
    let after = std::fs::metadata(big).expect("db").len();
    assert!(after * 3 < before, "{before} -> {after} bytes");
    let mut s = Store::open(dir.path().join("wal.db").to_str().expect("path")).expect("open");
    let Store::Sqlite(db) = &mut s else {
        panic!("a path opens SQLite")
    };
    assert_eq!(db.journal_mode().expect("journal mode"), "wal");
}

#[cfg(all(feature = "e2e", feature = "postgres"))]
#[test]
fn store_on_postgres() {
    let server = history_support::PgServer::start();
    for (name, body) in BODIES {
        eprintln!("postgres: {name}");
        body(&server.fresh_db());
    }
    let s = Store::open(&server.fresh_db()).expect("open");
    assert_eq!(s.backend(), "postgres");
}
