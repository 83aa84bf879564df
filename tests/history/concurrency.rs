//! Many history writers on one database at once: `history add` and `compare --history`
//! processes started together against one SQLite file and against one database of a real
//! PostgreSQL server that the test starts. Every writer waits for its turn instead of failing:
//! every process exits 0 with no error text, every sample is stored exactly once (rows counted
//! in the database), a file added by several writers at once is stored by one of them and the
//! others say "already stored" exactly as a second `history add` run afterwards says it.
//!
//! Rounds run on fresh databases (the schema is set up by writers racing each other) and on
//! databases that already hold earlier rounds; all writers of a round store under one commit
//! that is new to the database (the CI matrix: several jobs of one commit ending together).

use crate::history_support;

use benchdiff::format::{self, ReadOptions};
use benchdiff::history::Store;
use benchdiff::history::store::{Added, CommitInfo, MachineRecord, NewFile};
use benchdiff::sample::{SampleSet, Side};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

/// Samples (rows) of every compare.js CSV the adders store.
const ROWS: usize = 400;

/// The database under test and what the rounds stored in it so far.
struct Target {
    /// `history --db` / `--history` text.
    url: String,
    /// A SQLite file, or a PostgreSQL connection text.
    pg: bool,
    /// Samples stored by all rounds on this database.
    samples: i64,
    /// Files stored by all rounds on this database.
    files: i64,
    /// Commits made by all rounds on this database.
    commits: i64,
}

impl Target {
    fn sqlite(path: &Path) -> Target {
        Target::new(path.to_str().expect("utf-8 path").to_owned(), false)
    }

    fn postgres(url: String) -> Target {
        Target::new(url, true)
    }

    fn new(url: String, pg: bool) -> Target {
        Target {
            url,
            pg,
            samples: 0,
            files: 0,
            commits: 0,
        }
    }

    /// Rows of `sql`: a text column and a count.
    fn rows(&self, sql: &str) -> Vec<(String, i64)> {
        if self.pg {
            let mut c = postgres::Client::connect(&self.url, postgres::NoTls).expect("connect");
            c.query(sql, &[])
                .expect("query")
                .iter()
                .map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1)))
                .collect()
        } else {
            let c = rusqlite::Connection::open(&self.url).expect("open");
            let mut st = c.prepare(sql).expect("prepare");
            st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
                .expect("query")
                .collect::<Result<_, _>>()
                .expect("rows")
        }
    }

    fn count(&self, table: &str) -> i64 {
        self.rows(&format!("SELECT 'n', COUNT(*) FROM {table}"))[0].1
    }
}

/// What a round's writers are.
#[derive(Clone, Copy)]
struct Mix {
    /// `history add` of one and the same file (same path, same bytes).
    same_file: usize,
    /// `history add` of a file of their own.
    own_files: usize,
    /// `compare --history` of a small command benchmark (`true` against `true`, 2 runs a side).
    compares: usize,
    /// The round's commit is made (with a file of its own) before the writers start.
    commit_before: bool,
    /// The own-file adds store under commits of their own (else under the round's commit).
    commit_per_writer: bool,
}

/// The full mix: 8 writers.
const ALL: Mix = Mix {
    same_file: 3,
    own_files: 3,
    compares: 2,
    commit_before: false,
    commit_per_writer: false,
};

fn benchdiff() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("benchdiff"))
}

/// A compare.js CSV of [`ROWS`] new-side samples, its values made unique by `salt`.
fn write_csv(path: &Path, salt: usize) {
    let mut s = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for i in 0..ROWS {
        let v = 1000.0 + i as f64 * 0.37 + salt as f64 * 0.001;
        s.push_str(&format!("\"new\",\"a/b.js\",\"n={}\",{v},0.5\n", i % 5));
    }
    std::fs::write(path, s).expect("write csv");
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Exit 0 and no error text on stderr (compare's informational lines and load warnings are
/// fine).
fn assert_clean(o: &Output, what: &str) {
    let err = text(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{what}: exit {:?}\nstdout: {}\nstderr: {err}",
        o.status.code(),
        text(&o.stdout)
    );
    let lower = err.to_lowercase();
    for bad in [
        "error",
        "locked",
        "could not",
        "duplicate",
        "panicked",
        "failed",
    ] {
        assert!(!lower.contains(bad), "{what}: '{bad}' on stderr: {err}");
    }
}

/// One round: the writers of `mix` started together against `t`, all under a commit new to
/// it; then the checks. `dir` is this round's own folder.
fn round(t: &mut Target, dir: &Path, r: usize, mix: Mix) {
    std::fs::create_dir_all(dir).expect("round dir");
    let commit = format!("round{r:02}");
    let same = dir.join("same.csv");
    write_csv(&same, 1000 + r);
    // Expected samples per stored file: `name @ commit`.
    let mut want: BTreeMap<String, i64> = BTreeMap::new();
    let name = |p: &Path| p.display().to_string();
    let key = |p: &Path, commit: &str| format!("{} @ {commit}", p.display());
    if mix.commit_before {
        let f = dir.join("before.csv");
        write_csv(&f, r * 100 + 99);
        let mut c = benchdiff();
        c.args(["history", "add", "--commit", &commit])
            .arg("--db")
            .arg(&t.url)
            .arg(&f);
        assert_clean(&c.output().expect("runs"), "the add before the round");
        want.insert(key(&f, &commit), ROWS as i64);
    }
    let mut jobs: Vec<(String, Command)> = Vec::new();
    for k in 0..mix.same_file {
        let mut c = benchdiff();
        c.args(["history", "add", "--commit", &commit, "--branch", "main"])
            .arg("--db")
            .arg(&t.url)
            .arg(&same);
        jobs.push((format!("same-file add {k}"), c));
    }
    let mut own = Vec::new();
    for k in 0..mix.own_files {
        let f = dir.join(format!("own{k}.csv"));
        write_csv(&f, r * 100 + k);
        let own_commit = if mix.commit_per_writer {
            format!("{commit}-{k}")
        } else {
            commit.clone()
        };
        let mut c = benchdiff();
        c.args(["history", "add", "--commit", &own_commit])
            .args(["--machine", &format!("matrix-{k}")])
            .args(["--tag", &format!("job={k}")])
            .arg("--db")
            .arg(&t.url)
            .arg(&f);
        jobs.push((format!("own-file add {k}"), c));
        own.push((f, own_commit));
    }
    let mut runs = Vec::new();
    for k in 0..mix.compares {
        let results = dir.join(format!("cmp{k}.results.jsonl"));
        let mut c = benchdiff();
        c.current_dir(dir)
            .args(["compare", "--old", "true", "--new", "true", "--bench", "x"])
            .args(["--runs", "2", "--no-progress", "--format", "json"])
            .args(["--history", &t.url, "--history-commit", &commit])
            .args(["--csv", &format!("cmp{k}.csv"), "--results"])
            .arg(&results);
        jobs.push((format!("compare --history {k}"), c));
        runs.push(results);
    }
    let outputs: Vec<(String, Output)> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .into_iter()
            .map(|(what, mut c)| s.spawn(move || (what, c.output().expect("starts"))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer thread"))
            .collect()
    });
    let ctx = format!("round {r} on {}", t.url);
    for (what, o) in &outputs {
        assert_clean(o, &format!("{ctx}: {what}"));
    }

    if mix.same_file > 0 {
        want.insert(key(&same, &commit), ROWS as i64);
    }
    for (f, c) in &own {
        want.insert(key(f, c), ROWS as i64);
    }

    // The same file: one writer stored it, the others said what a later add says.
    let same_out: Vec<String> = outputs
        .iter()
        .filter(|(w, _)| w.starts_with("same-file"))
        .map(|(_, o)| text(&o.stdout))
        .collect();
    if mix.same_file > 0 {
        let stored = format!("{}: stored {ROWS} samples under {commit}\n", name(&same));
        assert_eq!(
            same_out.iter().filter(|o| **o == stored).count(),
            1,
            "{ctx}: exactly one writer stores the file: {same_out:?}"
        );
        let mut later = benchdiff();
        later
            .args(["history", "add", "--commit", &commit, "--branch", "main"])
            .arg("--db")
            .arg(&t.url)
            .arg(&same);
        let later = later.output().expect("runs");
        assert_clean(&later, &format!("{ctx}: the later add"));
        let already = text(&later.stdout);
        assert!(already.contains("already stored"), "{ctx}: {already}");
        for o in same_out.iter().filter(|o| **o != stored) {
            assert_eq!(*o, already, "{ctx}: as a sequential second add says");
        }
    }
    for ((what, o), (_, c)) in outputs
        .iter()
        .filter(|(w, _)| w.starts_with("own-file"))
        .zip(&own)
    {
        assert!(
            text(&o.stdout).contains(&format!("stored {ROWS} samples under {c}")),
            "{ctx}: {what}: {}",
            text(&o.stdout)
        );
    }
    // A compare run says on stderr how many samples it stored.
    for (k, results) in runs.iter().enumerate() {
        let (_, o) = outputs
            .iter()
            .find(|(w, _)| *w == format!("compare --history {k}"))
            .expect("compare output");
        let err = text(&o.stderr);
        let line = err
            .lines()
            .find(|l| l.starts_with("benchdiff: history: "))
            .unwrap_or_else(|| panic!("{ctx}: compare {k} said nothing stored: {err}"));
        let n: i64 = line
            .split(": stored ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{ctx}: compare {k}: {line}"));
        assert!(n > 0, "{ctx}: {line}");
        assert!(line.contains(&format!("under {commit}")), "{ctx}: {line}");
        want.insert(key(results, &commit), n);
    }

    // Rows in the database: each file of the round once, with all its samples, under its
    // commit.
    let got: BTreeMap<String, i64> = t
        .rows(&format!(
            "SELECT f.name || ' @ ' || c.sha, \
             (SELECT COUNT(*) FROM samples s WHERE s.file_id = f.id) \
             FROM files f JOIN commits c ON c.id = f.commit_id WHERE f.name LIKE '{}/%'",
            dir.display()
        ))
        .into_iter()
        .collect();
    assert_eq!(got, want, "{ctx}: the round's files and their samples");
    t.samples += want.values().sum::<i64>();
    t.files += want.len() as i64;
    let commits: std::collections::BTreeSet<&str> =
        want.keys().filter_map(|k| k.rsplit(" @ ").next()).collect();
    t.commits += commits.len() as i64;
    assert_eq!(
        t.count("samples"),
        t.samples,
        "{ctx}: samples in the database"
    );
    assert_eq!(t.count("files"), t.files, "{ctx}: files in the database");
    assert_eq!(
        t.count("commits"),
        t.commits,
        "{ctx}: commits in the database"
    );
    assert_eq!(
        t.count("schema_version"),
        2,
        "{ctx}: each migration recorded once"
    );
}

/// `rounds` rounds of `mix`: even rounds on a fresh database from `fresh`, odd rounds on the
/// database of the round before. Returns the wall time.
fn rounds(
    dir: &Path,
    rounds: usize,
    mix: Mix,
    mut fresh: impl FnMut(usize) -> Target,
) -> std::time::Duration {
    let start = Instant::now();
    let mut t = fresh(0);
    for r in 0..rounds {
        if r > 0 && r % 2 == 0 {
            t = fresh(r);
        }
        round(&mut t, &dir.join(format!("r{r:02}")), r, mix);
    }
    start.elapsed()
}

/// The PostgreSQL server of this file's tests: started by the first test that needs it and
/// shared by the tests running at the same time; stopped (its Drop) as soon as no running test
/// holds it, also when a test panics.
fn pg_server() -> Arc<history_support::PgServer> {
    static SHARED: Mutex<Weak<history_support::PgServer>> = Mutex::new(Weak::new());
    let mut slot = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(server) = slot.upgrade() {
        return server;
    }
    let server = Arc::new(history_support::PgServer::start());
    *slot = Arc::downgrade(&server);
    server
}

fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("bd-hconc")
        .tempdir()
        .expect("tempdir")
}

fn sqlite_in(dir: &Path) -> impl FnMut(usize) -> Target + '_ {
    move |r| Target::sqlite(&dir.join(format!("db{r:02}/history.db")))
}

fn own_files_only(n: usize) -> Mix {
    Mix {
        same_file: 0,
        own_files: n,
        compares: 0,
        commit_before: false,
        commit_per_writer: false,
    }
}

/// 8 `history add` of different files into one SQLite file at once: all wait, all store.
#[test]
fn sqlite_parallel_adds_wait_for_the_write_lock() {
    let dir = tempdir();
    rounds(dir.path(), 3, own_files_only(8), sqlite_in(dir.path()));
}

/// 4 `compare --history` runs into one SQLite file at once: every run's samples are stored.
#[test]
fn sqlite_simultaneous_compare_runs_all_store() {
    let dir = tempdir();
    let mix = Mix {
        same_file: 0,
        own_files: 0,
        compares: 4,
        commit_before: false,
        commit_per_writer: false,
    };
    rounds(dir.path(), 5, mix, sqlite_in(dir.path()));
}

/// A new SQLite file that another connection is writing (before it is in WAL mode) is
/// waited for, not refused: `history add` switches it to WAL once the other has committed.
#[test]
fn sqlite_new_file_written_by_another_is_waited_for() {
    let dir = tempdir();
    let db = dir.path().join("history.db");
    let mut other = rusqlite::Connection::open(&db).expect("open");
    let tx = other.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate);
    let tx = tx.expect("write lock");
    tx.execute_batch("CREATE TABLE other (x INTEGER)")
        .expect("create");
    let f = dir.path().join("f.csv");
    write_csv(&f, 1);
    let mut add = benchdiff();
    add.args(["history", "add", "--commit", "c1", "--db"])
        .arg(&db)
        .arg(&f);
    let adder = std::thread::spawn(move || add.output().expect("runs"));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    tx.commit().expect("commit");
    let o = adder.join().expect("adder thread");
    assert_clean(&o, "history add");
    assert!(
        text(&o.stdout).contains(&format!("stored {ROWS} samples under c1")),
        "{}",
        text(&o.stdout)
    );
}

/// 8 adds, each under a commit of its own, into a fresh PostgreSQL database: the schema is
/// set up once, nobody fails.
#[test]
fn postgres_fresh_database_schema_set_up_once() {
    let server = pg_server();
    let dir = tempdir();
    let mix = Mix {
        commit_per_writer: true,
        ..own_files_only(8)
    };
    for r in 0..3 {
        let mut t = Target::postgres(server.fresh_db());
        round(&mut t, &dir.path().join(format!("r{r}")), r, mix);
    }
}

/// 8 adds of different files under one commit new to an existing PostgreSQL database (a CI
/// matrix): the commit is made once, every file stored.
#[test]
fn postgres_one_new_commit_from_many_jobs() {
    let server = pg_server();
    let dir = tempdir();
    let mut t = Target::postgres(server.fresh_db());
    round(&mut t, &dir.path().join("setup"), 0, own_files_only(1));
    for r in 1..4 {
        round(
            &mut t,
            &dir.path().join(format!("r{r}")),
            r,
            own_files_only(8),
        );
    }
}

/// 8 adds of the same file under a commit the existing PostgreSQL database already has: one
/// stores it, seven say "already stored" as a second add afterwards does.
#[test]
fn postgres_same_file_at_once_is_stored_once() {
    let server = pg_server();
    let dir = tempdir();
    let mut t = Target::postgres(server.fresh_db());
    round(&mut t, &dir.path().join("setup"), 0, own_files_only(1));
    let mix = Mix {
        same_file: 8,
        own_files: 0,
        compares: 0,
        commit_before: true,
        commit_per_writer: false,
    };
    for r in 1..4 {
        round(&mut t, &dir.path().join(format!("r{r}")), r, mix);
    }
}

/// The stress test on SQLite: 20 rounds of 8 writers (3 adds of one file, 3 adds of files of
/// their own, 2 `compare --history` runs), fresh and existing database files.
#[test]
fn stress_sqlite_eight_writers_twenty_rounds() {
    let dir = tempdir();
    let took = rounds(dir.path(), 20, ALL, sqlite_in(dir.path()));
    eprintln!("sqlite: 20 rounds of 8 writers in {took:.1?}");
}

/// The stress test on a real PostgreSQL server: 20 rounds of 8 writers as on SQLite, fresh and
/// existing databases.
#[test]
fn stress_postgres_eight_writers_twenty_rounds() {
    let server = pg_server();
    let dir = tempdir();
    let took = rounds(dir.path(), 20, ALL, |_| Target::postgres(server.fresh_db()));
    eprintln!("postgres: 20 rounds of 8 writers in {took:.1?}");
}

/// A compare.js CSV as text (as [`write_csv`] writes it).
fn csv_text(salt: usize) -> String {
    let dir = tempdir();
    let p = dir.path().join("t.csv");
    write_csv(&p, salt);
    std::fs::read_to_string(&p).expect("read back")
}

/// Adds `text` under commit `sha` through the library's [`Store::add`].
fn add_text(
    store: &mut Store,
    text: &str,
    sha: &str,
) -> Result<Added, benchdiff::history::HistoryError> {
    let mut set = SampleSet::new();
    let opts = ReadOptions {
        side: Side::New,
        sides_by: None,
    };
    format::read_text(text, "t.csv", None, &opts, &mut set).expect("readable CSV");
    store.add(&NewFile {
        sha256: sha256_hex(text),
        name: "t.csv".into(),
        format: "node-compare-csv".into(),
        commit: CommitInfo {
            sha: sha.into(),
            ..CommitInfo::default()
        },
        machine: MachineRecord {
            name: "ci".into(),
            cpu_model: "Test CPU".into(),
            kernel: "6.1.0".into(),
            cores: 2,
            record: None,
        },
        tags: Vec::new(),
        set: &set,
        now_unix_s: 1_700_000_000,
    })
}

fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An add that PostgreSQL aborts as a deadlock's victim is run again and stores the file. The
/// deadlock is made on purpose: another session holds the commit's row and then waits for the
/// add's file lock while the add waits for that row.
#[test]
fn postgres_deadlock_victim_is_run_again() {
    let server = pg_server();
    let url = server.fresh_db();
    let mut store = Store::open(&url).expect("open");
    let first = add_text(&mut store, &csv_text(1), "dl").expect("first add");
    assert!(matches!(first, Added::Stored { .. }), "{first:?}");
    drop(store);
    let connect = || postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    // The add's session checks for a deadlock after 3 s of waiting, the other after 60 s: the
    // add is the victim, and this test has 3 s to close the cycle.
    let dbname = url.rsplit("dbname=").next().expect("dbname");
    connect()
        .batch_execute(&format!(
            "ALTER DATABASE {dbname} SET deadlock_timeout = '3s'"
        ))
        .expect("alter database");
    let mut other = connect();
    other
        .batch_execute(
            "SET deadlock_timeout = '60s'; BEGIN; \
             UPDATE commits SET branch = 'other' WHERE sha = 'dl'",
        )
        .expect("hold the commit row");
    let text = csv_text(2);
    let adder = {
        let url = url.clone();
        std::thread::spawn(move || {
            let mut s = Store::open(&url).expect("open");
            add_text(&mut s, &text, "dl")
        })
    };
    // Wait until the add waits for the commit row (its file lock is held by then).
    let mut watch = connect();
    let start = Instant::now();
    loop {
        let waiting: i64 = watch
            .query_one(
                "SELECT COUNT(*) FROM pg_locks WHERE NOT granted AND pid IN \
                 (SELECT pid FROM pg_stat_activity WHERE datname = current_database())",
                &[],
            )
            .expect("pg_locks")
            .get(0);
        if waiting > 0 {
            break;
        }
        assert!(
            start.elapsed().as_secs() < 60,
            "the add never waited for the commit row"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // The advisory lock the add holds (a 64-bit key: high half in classid, low in objid).
    let key: i64 = watch
        .query_one(
            "SELECT (classid::bigint << 32) | objid::bigint FROM pg_locks \
             WHERE locktype = 'advisory' AND objsubid = 1 AND granted \
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .expect("the add holds one advisory lock")
        .get(0);
    other
        .execute("SELECT pg_advisory_xact_lock($1)", &[&key])
        .expect("the add, not this session, is the deadlock's victim");
    other.batch_execute("ROLLBACK").expect("rollback");
    let added = adder.join().expect("adder thread");
    assert!(
        matches!(added, Ok(Added::Stored { samples, .. }) if samples == ROWS),
        "the add is run again and stores the file: {added:?}"
    );
    let t = Target::postgres(url);
    assert_eq!(t.count("files"), 2);
    assert_eq!(t.count("samples"), 2 * ROWS as i64);
}
