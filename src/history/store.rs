//! [`Store`]: the history database over SQLite or PostgreSQL, one API and one schema.
//!
//! The logic (duplicates, commits, machines, series, retention) is written once over a small
//! SQL interface ([`Val`] parameters and rows); each backend supplies statement execution, the
//! bulk insert of samples (a prepared statement in SQLite, `COPY … FROM STDIN` in
//! PostgreSQL) and the scan of samples.
//!
//! Concurrency: many processes may write one database at once (a CI matrix storing one
//! commit's results together). SQLite writers take turns on the file's write lock; PostgreSQL
//! writers wait for each other only where they meet — the schema set-up, one commit's row, one
//! file's content hash, a new series — and a transaction the server aborts for a deadlock or a
//! serialization failure is run again. Nothing is lost and no writer fails for another's sake
//! (up to [`super::sqlite::BUSY_TIMEOUT`] of waiting in SQLite, [`TRANSACTION_ATTEMPTS`] in
//! PostgreSQL).

use super::HistoryError;
use super::schema::{self, MIGRATIONS};
use crate::sample::{Better, SampleSet, Side};
use rustc_hash::FxHashMap;

/// A statement parameter or a column value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A 64-bit integer.
    Int(i64),
    /// A double.
    Real(f64),
    /// Text.
    Text(String),
    /// NULL of an integer column.
    NullInt,
    /// NULL of a text column.
    NullText,
}

impl Val {
    fn int(&self) -> Option<i64> {
        match self {
            Val::Int(v) => Some(*v),
            _ => None,
        }
    }
    fn text(&self) -> Option<String> {
        match self {
            Val::Text(v) => Some(v.clone()),
            _ => None,
        }
    }
    fn opt_text(v: &Option<String>) -> Val {
        v.clone().map(Val::Text).unwrap_or(Val::NullText)
    }
    fn opt_int(v: Option<i64>) -> Val {
        v.map(Val::Int).unwrap_or(Val::NullInt)
    }
}

/// One row of `samples` to insert.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleRow {
    /// `files.id`.
    pub file_id: i64,
    /// `series.id`.
    pub series_id: i64,
    /// `commits.id`.
    pub commit_id: i64,
    /// 0 old, 1 new.
    pub side: i64,
    /// Run index, when the source knew it.
    pub run: Option<i64>,
    /// Position in the file (0-based, the order the samples were read: the schedule order).
    pub position: i64,
    /// The value in the metric's unit.
    pub value: f64,
    /// Elapsed seconds the benchmark reported (NaN when unknown is stored as 0).
    pub time_s: f64,
}

/// A series identity: (benchmark, configuration, metric, unit).
type SeriesKey = (String, String, String, String);

/// A scanned sample: `(series id, file id, value)`.
pub type Scanned = (i64, i64, f64);

/// The commit a file belongs to.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CommitInfo {
    /// Commit SHA (or any unique name, e.g. a release `v20.1.0`).
    pub sha: String,
    /// Branch, when given.
    pub branch: Option<String>,
    /// Commit date, Unix seconds; `None` keeps an existing date or uses the time of adding.
    pub date_unix_s: Option<i64>,
    /// Explicit order among commits (smaller first); `None` keeps an existing order.
    pub order: Option<i64>,
}

/// The machine a file was measured on.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct MachineRecord {
    /// A name (`--machine`, default the host name).
    pub name: String,
    /// CPU model (`/proc/cpuinfo` `model name`).
    pub cpu_model: String,
    /// Kernel release (`/proc/sys/kernel/osrelease`).
    pub kernel: String,
    /// Online CPU cores.
    pub cores: i64,
    /// The runner's machine record (JSON) when the file had one.
    pub record: Option<String>,
}

impl MachineRecord {
    /// The identity stored unique in `machines`: name, CPU model, kernel and cores.
    pub fn fingerprint(&self) -> String {
        format!(
            "{}|{}|{}|{}",
            self.name, self.cpu_model, self.kernel, self.cores
        )
    }

    /// This machine, named `name` (default: the host name from `/proc/sys/kernel/hostname`).
    pub fn this_machine(name: Option<&str>) -> MachineRecord {
        let read = |p: &str| std::fs::read_to_string(p).map(|s| s.trim().to_owned());
        let cpu_model = read("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown".to_owned());
        MachineRecord {
            name: name
                .map(str::to_owned)
                .or_else(|| read("/proc/sys/kernel/hostname").ok())
                .unwrap_or_else(|| "unknown".to_owned()),
            cpu_model,
            kernel: read("/proc/sys/kernel/osrelease").unwrap_or_else(|_| "unknown".to_owned()),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get() as i64),
            record: None,
        }
    }
}

/// One file to add.
pub struct NewFile<'a> {
    /// Hex SHA-256 of the file's bytes.
    pub sha256: String,
    /// The file's name as given.
    pub name: String,
    /// The format read (`node-compare-csv`, `go`, …).
    pub format: String,
    /// Its commit.
    pub commit: CommitInfo,
    /// Its machine.
    pub machine: MachineRecord,
    /// Tags `key=value` (a key at most once).
    pub tags: Vec<(String, String)>,
    /// The samples read from it. When none is on side `new` (a one-sided file), they are
    /// stored as side `new`: the build of this commit.
    pub set: &'a SampleSet,
    /// When it is added, Unix seconds.
    pub now_unix_s: i64,
}

/// What [`Store::add`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// The file is new: its samples were stored.
    Stored {
        /// Its `files.id`.
        file_id: i64,
        /// Samples stored.
        samples: usize,
    },
    /// A file with the same content hash was added before: nothing stored.
    Duplicate {
        /// The earlier file's id.
        file_id: i64,
    },
}

/// A commit row.
#[derive(Clone, Debug, PartialEq)]
pub struct CommitRow {
    /// `commits.id`.
    pub id: i64,
    /// SHA or name.
    pub sha: String,
    /// Branch.
    pub branch: Option<String>,
    /// Date, Unix seconds.
    pub date_unix_s: i64,
    /// Explicit order.
    pub order: Option<i64>,
}

/// A series row: one benchmark configuration and metric.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesRow {
    /// `series.id`.
    pub id: i64,
    /// Benchmark file or name.
    pub benchmark: String,
    /// Configuration text.
    pub configuration: String,
    /// Metric name.
    pub metric: String,
    /// Unit.
    pub unit: String,
    /// Direction.
    pub better: Better,
}

/// A file row (what the series need of it).
#[derive(Clone, Debug, PartialEq)]
pub struct FileRow {
    /// `files.id`.
    pub id: i64,
    /// Its commit.
    pub commit_id: i64,
    /// Its machine's name.
    pub machine: String,
    /// Its tags.
    pub tags: Vec<(String, String)>,
}

/// Everything [`Store::load`] read: commits, series, files and the samples of one side.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// Every commit.
    pub commits: Vec<CommitRow>,
    /// Every series.
    pub series: Vec<SeriesRow>,
    /// Every file.
    pub files: Vec<FileRow>,
    /// Samples of the side asked for: (series id, file id, value).
    pub samples: Vec<Scanned>,
}

/// Row counts of the main tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Counts {
    /// Commits.
    pub commits: i64,
    /// Files.
    pub files: i64,
    /// Series.
    pub series: i64,
    /// Samples.
    pub samples: i64,
}

/// The history database.
pub enum Store {
    /// A SQLite file (WAL mode).
    Sqlite(super::sqlite::Sqlite),
    /// A PostgreSQL server.
    Postgres(super::postgres::Postgres),
}

/// The PostgreSQL advisory lock (`pg_advisory_xact_lock`) held while the schema is set up or
/// migrated: the bytes of `bdschema` as a big-endian integer.
pub const SCHEMA_LOCK: i64 = i64::from_be_bytes(*b"bdschema");

/// How many times a PostgreSQL transaction is run in all when the server aborts it for a
/// serialization failure (SQLSTATE 40001) or a deadlock (40P01).
pub const TRANSACTION_ATTEMPTS: u32 = 8;

/// The PostgreSQL advisory lock (`pg_advisory_xact_lock`) that [`Store::add`] holds for a
/// file from its first statement to its end: the first 16 hex digits of the file's SHA-256 as
/// a two's-complement 64-bit integer (0 when the text is not hex: every such add then waits
/// for the others, which is still correct).
fn file_lock_key(sha256: &str) -> i64 {
    sha256
        .get(..16)
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .map_or(0, |k| k as i64)
}

/// The default database file, relative to the working directory.
pub const DEFAULT_DB: &str = ".benchdiff/history.db";

impl Store {
    /// Opens (creating when needed) the database at `url` and applies pending migrations:
    /// `postgres://…` or `postgresql://…` (libpq-style URL or `host=… user=…`) is PostgreSQL,
    /// `sqlite://PATH` or any other text a SQLite file path (its folder is created).
    ///
    /// # Errors
    /// [`HistoryError::Open`] when it cannot be opened; database errors from the migrations.
    pub fn open(url: &str) -> Result<Store, HistoryError> {
        let mut store = Store::connect(url)?;
        store.migrate()?;
        Ok(store)
    }

    /// Opens the database at `url` as [`Store::open`] without applying migrations.
    ///
    /// # Errors
    /// [`HistoryError::Open`] when it cannot be opened.
    pub fn connect(url: &str) -> Result<Store, HistoryError> {
        Ok(
            if url.starts_with("postgres://")
                || url.starts_with("postgresql://")
                || url.contains("host=")
            {
                Store::Postgres(super::postgres::Postgres::connect(url)?)
            } else {
                let path = url.strip_prefix("sqlite://").unwrap_or(url);
                Store::Sqlite(super::sqlite::Sqlite::open(path)?)
            },
        )
    }

    /// `"sqlite"` or `"postgres"`.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, HistoryError> {
        match self {
            Store::Sqlite(s) => s.exec(sql, params),
            Store::Postgres(p) => p.exec(sql, params),
        }
    }

    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>, HistoryError> {
        match self {
            Store::Sqlite(s) => s.query(sql, params),
            Store::Postgres(p) => p.query(sql, params),
        }
    }

    fn query_int(&mut self, sql: &str, params: &[Val]) -> Result<Option<i64>, HistoryError> {
        Ok(self
            .query(sql, params)?
            .first()
            .and_then(|r| r.first())
            .and_then(Val::int))
    }

    /// Runs `f` in a transaction: committed when it returns `Ok`, rolled back otherwise.
    ///
    /// SQLite: `BEGIN IMMEDIATE` takes the file's write lock at once, waiting for other
    /// writers up to [`super::sqlite::BUSY_TIMEOUT`], so the transaction never has to upgrade a
    /// read snapshot that another writer made stale. PostgreSQL: a transaction the server
    /// aborted only because of concurrent ones ([`HistoryError::is_transient`]) is rolled back
    /// and `f` run again from the start, up to [`TRANSACTION_ATTEMPTS`] times in all.
    fn transaction<T>(
        &mut self,
        mut f: impl FnMut(&mut Store) -> Result<T, HistoryError>,
    ) -> Result<T, HistoryError> {
        let mut attempt = 1;
        loop {
            match self.transaction_once(&mut f) {
                Err(e) if e.is_transient() && attempt < TRANSACTION_ATTEMPTS => {
                    // A short pause, different per process, so the two sides of a deadlock
                    // do not meet again at once.
                    let ms = 10 * u64::from(attempt) + u64::from(std::process::id() % 10);
                    std::thread::sleep(std::time::Duration::from_millis(ms));
                    attempt += 1;
                }
                result => return result,
            }
        }
    }

    fn transaction_once<T>(
        &mut self,
        f: &mut impl FnMut(&mut Store) -> Result<T, HistoryError>,
    ) -> Result<T, HistoryError> {
        let begin = match self {
            Store::Sqlite(_) => "BEGIN IMMEDIATE",
            Store::Postgres(_) => "BEGIN",
        };
        self.exec(begin, &[])?;
        let result = f(self).and_then(|v| self.exec("COMMIT", &[]).map(|_| v));
        if result.is_err() {
            let _ = self.exec("ROLLBACK", &[]);
        }
        result
    }

    /// PostgreSQL: waits for the transaction-scoped advisory lock `key` (released at COMMIT or
    /// ROLLBACK). SQLite: nothing to do, the transaction holds the file's write lock.
    fn lock(&mut self, key: i64) -> Result<(), HistoryError> {
        if let Store::Postgres(_) = self {
            self.exec("SELECT pg_advisory_xact_lock($1)", &[Val::Int(key)])?;
        }
        Ok(())
    }

    /// Applies the migrations newer than the database's version, each in a transaction, and
    /// records each in `schema_version`. Returns the version afterwards.
    ///
    /// Concurrency: any number of clients may open and migrate one database at once, also an
    /// empty one: the schema is set up once, under a lock ([`SCHEMA_LOCK`] in PostgreSQL, the
    /// write lock in SQLite), and the others wait for it and find it done. A database that is
    /// up to date is only read.
    ///
    /// # Errors
    /// Database errors (the failing migration is rolled back).
    pub fn migrate(&mut self) -> Result<i64, HistoryError> {
        self.migrate_to(i64::MAX)
    }

    /// Applies the migrations up to version `target` (inclusive) as [`Store::migrate`].
    ///
    /// # Errors
    /// Database errors (the failing migration is rolled back).
    pub fn migrate_to(&mut self, target: i64) -> Result<i64, HistoryError> {
        let wanted = || MIGRATIONS.iter().filter(|m| m.version <= target);
        // An error here (no `schema_version` yet) only means: set up under the lock below.
        if let Ok(applied) = self.applied_migrations()
            && wanted().all(|m| applied.contains(&m.version))
        {
            return self.schema_version();
        }
        self.transaction(|s| {
            s.lock(SCHEMA_LOCK)?;
            s.exec(schema::VERSION_TABLE, &[])
        })?;
        let id_type = match self {
            Store::Sqlite(_) => "INTEGER PRIMARY KEY",
            Store::Postgres(_) => "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        };
        for m in wanted() {
            self.transaction(|s| {
                s.lock(SCHEMA_LOCK)?;
                let done = s.query_int(
                    "SELECT COUNT(*) FROM schema_version WHERE version = $1",
                    &[Val::Int(m.version)],
                )?;
                if done.unwrap_or(0) > 0 {
                    return Ok(());
                }
                for stmt in schema::render(m, id_type) {
                    s.exec(&stmt, &[])?;
                }
                s.exec(
                    "INSERT INTO schema_version (version, description, applied_unix_s) \
                     VALUES ($1, $2, $3)",
                    &[
                        Val::Int(m.version),
                        Val::Text(m.description.to_owned()),
                        Val::Int(super::now_unix_s()),
                    ],
                )?;
                Ok(())
            })?;
        }
        self.schema_version()
    }

    /// The highest migration applied (0 for an empty database).
    ///
    /// # Errors
    /// Database errors.
    pub fn schema_version(&mut self) -> Result<i64, HistoryError> {
        Ok(self
            .query_int("SELECT MAX(version) FROM schema_version", &[])?
            .unwrap_or(0))
    }

    /// The versions recorded in `schema_version`, in order.
    ///
    /// # Errors
    /// Database errors.
    pub fn applied_migrations(&mut self) -> Result<Vec<i64>, HistoryError> {
        Ok(self
            .query("SELECT version FROM schema_version ORDER BY version", &[])?
            .iter()
            .filter_map(|r| r.first().and_then(Val::int))
            .collect())
    }

    /// Stores every sample of `file` (one transaction), unless a file with the same content
    /// hash is stored already.
    ///
    /// Concurrency: any number of clients may add at once to one database, under one commit,
    /// one machine and new series; each waits for the others where they meet and nothing is
    /// lost. Of several clients adding files with the same content hash at once, exactly one
    /// stores it and the others get [`Added::Duplicate`] with its id, as if they had added it
    /// after it. A duplicate changes nothing in the database.
    ///
    /// # Errors
    /// Database errors (nothing is stored then), also when a PostgreSQL transaction was still
    /// aborted by concurrent ones after [`TRANSACTION_ATTEMPTS`] attempts.
    pub fn add(&mut self, file: &NewFile<'_>) -> Result<Added, HistoryError> {
        self.transaction(|s| s.add_in_transaction(file))
    }

    fn add_in_transaction(&mut self, file: &NewFile<'_>) -> Result<Added, HistoryError> {
        // Adders of the same content wait here for each other, so the check below sees a
        // file that another one stored (PostgreSQL reads committed rows per statement).
        self.lock(file_lock_key(&file.sha256))?;
        if let Some(id) = self.query_int(
            "SELECT id FROM files WHERE sha256 = $1",
            &[Val::Text(file.sha256.clone())],
        )? {
            return Ok(Added::Duplicate { file_id: id });
        }
        let commit_id = self.upsert_commit(&file.commit, file.now_unix_s)?;
        let m = &file.machine;
        self.exec(
            "INSERT INTO machines (fingerprint, name, cpu_model, kernel, cores, record) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (fingerprint) DO NOTHING",
            &[
                Val::Text(m.fingerprint()),
                Val::Text(m.name.clone()),
                Val::Text(m.cpu_model.clone()),
                Val::Text(m.kernel.clone()),
                Val::Int(m.cores),
                Val::opt_text(&m.record),
            ],
        )?;
        let machine_id = self
            .query_int(
                "SELECT id FROM machines WHERE fingerprint = $1",
                &[Val::Text(m.fingerprint())],
            )?
            .ok_or_else(|| HistoryError::Invalid("machine row missing after insert".into()))?;
        let file_id = self
            .query_int(
                "INSERT INTO files (sha256, name, format, commit_id, machine_id, added_unix_s) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                &[
                    Val::Text(file.sha256.clone()),
                    Val::Text(file.name.clone()),
                    Val::Text(file.format.clone()),
                    Val::Int(commit_id),
                    Val::Int(machine_id),
                    Val::Int(file.now_unix_s),
                ],
            )?
            .ok_or_else(|| HistoryError::Invalid("files insert returned no id".into()))?;
        for (k, v) in &file.tags {
            self.exec(
                "INSERT INTO tags (file_id, key, value) VALUES ($1, $2, $3)",
                &[
                    Val::Int(file_id),
                    Val::Text(k.clone()),
                    Val::Text(v.clone()),
                ],
            )?;
        }
        // Series ids for every (benchmark, metric) pair the set uses: missing series are
        // inserted in batches, then every id is read back.
        let set = file.set;
        let mut pairs: Vec<(u32, u32)> = set
            .samples()
            .iter()
            .map(|s| (s.benchmark.0, s.metric.0))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let key_of = |(b, m): (u32, u32)| {
            let b = set.benchmark(crate::sample::BenchmarkId(b));
            let m = set.metric(crate::sample::MetricId(m));
            (
                b.file.clone(),
                b.configuration.text.clone(),
                m.name.clone(),
                m.unit.clone(),
            )
        };
        let mut known = self.series_ids()?;
        let mut missing: Vec<(u32, u32)> = pairs
            .iter()
            .copied()
            .filter(|p| !known.contains_key(&key_of(*p)))
            .collect();
        // Every adder inserts new series in one order (by name), so two that meet on several
        // series wait for each other instead of deadlocking.
        missing.sort_by_cached_key(|p| key_of(*p));
        if !missing.is_empty() {
            const PER: usize = 200;
            for chunk in missing.chunks(PER) {
                let mut sql = String::from(
                    "INSERT INTO series (benchmark, configuration, metric, unit, \
                     higher_is_better) VALUES ",
                );
                let mut params = Vec::with_capacity(chunk.len() * 5);
                for (i, p) in chunk.iter().enumerate() {
                    let k = key_of(*p);
                    let better = set.metric(crate::sample::MetricId(p.1)).better;
                    let n = i * 5;
                    if i > 0 {
                        sql.push(',');
                    }
                    sql.push_str(&format!(
                        "(${}, ${}, ${}, ${}, ${})",
                        n + 1,
                        n + 2,
                        n + 3,
                        n + 4,
                        n + 5
                    ));
                    params.extend([
                        Val::Text(k.0),
                        Val::Text(k.1),
                        Val::Text(k.2),
                        Val::Text(k.3),
                        Val::Int(i64::from(better == Better::Higher)),
                    ]);
                }
                sql.push_str(" ON CONFLICT (benchmark, configuration, metric, unit) DO NOTHING");
                self.exec(&sql, &params)?;
            }
            known = self.series_ids()?;
        }
        let mut ids: FxHashMap<(u32, u32), i64> = FxHashMap::default();
        for p in pairs {
            let id = *known
                .get(&key_of(p))
                .ok_or_else(|| HistoryError::Invalid("series row missing after insert".into()))?;
            ids.insert(p, id);
        }
        // A file of one side only (a `run` results file, Go output, …) measured the build of
        // this commit: stored as side `new`, so `show` finds it with its default side.
        let one_sided = !set.samples().iter().any(|s| s.side == Side::New);
        let mut rows = Vec::with_capacity(set.len());
        for (position, smp) in set.samples().iter().enumerate() {
            let series_id = ids[&(smp.benchmark.0, smp.metric.0)];
            rows.push(SampleRow {
                file_id,
                series_id,
                commit_id,
                // The control side (`compare --control`) is kept as 2: `show` and `check` read
                // old (0) or new (1) only.
                side: match smp.side {
                    Side::Control => 2,
                    s => i64::from(one_sided || s == Side::New),
                },
                run: smp.run.map(i64::from),
                position: position as i64,
                value: smp.value,
                time_s: if smp.time_s.is_finite() {
                    smp.time_s
                } else {
                    0.0
                },
            });
        }
        match self {
            Store::Sqlite(s) => s.insert_samples(&rows)?,
            Store::Postgres(p) => p.insert_samples(&rows)?,
        }
        Ok(Added::Stored {
            file_id,
            samples: rows.len(),
        })
    }

    /// Every series id by (benchmark, configuration, metric, unit).
    fn series_ids(&mut self) -> Result<FxHashMap<SeriesKey, i64>, HistoryError> {
        let mut known = FxHashMap::default();
        for r in self.query(
            "SELECT id, benchmark, configuration, metric, unit FROM series",
            &[],
        )? {
            if let (Some(id), Some(b), Some(c), Some(m), Some(u)) = (
                r[0].int(),
                r[1].text(),
                r[2].text(),
                r[3].text(),
                r[4].text(),
            ) {
                known.insert((b, c, m, u), id);
            }
        }
        Ok(known)
    }

    /// The id of commit `c`, made when new; an existing one gets the branch, date and order
    /// that `c` gives. One statement, so adders of one new commit at once make it once.
    fn upsert_commit(&mut self, c: &CommitInfo, now: i64) -> Result<i64, HistoryError> {
        if c.sha.is_empty() {
            return Err(HistoryError::Invalid("empty commit SHA".into()));
        }
        self.query_int(
            "INSERT INTO commits (sha, branch, date_unix_s, ord) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (sha) DO UPDATE SET branch = COALESCE($2, commits.branch), \
             date_unix_s = COALESCE($5, commits.date_unix_s), ord = COALESCE($4, commits.ord) \
             RETURNING id",
            &[
                Val::Text(c.sha.clone()),
                Val::opt_text(&c.branch),
                Val::Int(c.date_unix_s.unwrap_or(now)),
                Val::opt_int(c.order),
                Val::opt_int(c.date_unix_s),
            ],
        )?
        .ok_or_else(|| HistoryError::Invalid("commits insert returned no id".into()))
    }

    /// Every commit in history order: explicit order first (smaller first), then date, then
    /// the order they were first added.
    ///
    /// # Errors
    /// Database errors.
    pub fn commits(&mut self) -> Result<Vec<CommitRow>, HistoryError> {
        let mut out: Vec<CommitRow> = self
            .query("SELECT id, sha, branch, date_unix_s, ord FROM commits", &[])?
            .into_iter()
            .filter_map(|r| {
                Some(CommitRow {
                    id: r[0].int()?,
                    sha: r[1].text()?,
                    branch: r[2].text(),
                    date_unix_s: r[3].int()?,
                    order: r[4].int(),
                })
            })
            .collect();
        out.sort_by_key(|c| (c.order.is_none(), c.order, c.date_unix_s, c.id));
        Ok(out)
    }

    /// Commits, series, files and the samples of `side`.
    ///
    /// # Errors
    /// Database errors.
    pub fn load(&mut self, side: Side) -> Result<Loaded, HistoryError> {
        let commits = self.commits()?;
        let series = self
            .query(
                "SELECT id, benchmark, configuration, metric, unit, higher_is_better FROM series",
                &[],
            )?
            .into_iter()
            .filter_map(|r| {
                Some(SeriesRow {
                    id: r[0].int()?,
                    benchmark: r[1].text()?,
                    configuration: r[2].text()?,
                    metric: r[3].text()?,
                    unit: r[4].text()?,
                    better: if r[5].int()? != 0 {
                        Better::Higher
                    } else {
                        Better::Lower
                    },
                })
            })
            .collect();
        let mut tags: FxHashMap<i64, Vec<(String, String)>> = FxHashMap::default();
        for r in self.query("SELECT file_id, key, value FROM tags ORDER BY key", &[])? {
            if let (Some(f), Some(k), Some(v)) = (r[0].int(), r[1].text(), r[2].text()) {
                tags.entry(f).or_default().push((k, v));
            }
        }
        let files = self
            .query(
                "SELECT f.id, f.commit_id, m.name FROM files f JOIN machines m ON m.id = f.machine_id",
                &[],
            )?
            .into_iter()
            .filter_map(|r| {
                let id = r[0].int()?;
                Some(FileRow {
                    id,
                    commit_id: r[1].int()?,
                    machine: r[2].text()?,
                    tags: tags.remove(&id).unwrap_or_default(),
                })
            })
            .collect();
        let side = i64::from(side == Side::New);
        let samples = match self {
            Store::Sqlite(s) => s.scan_samples(side)?,
            Store::Postgres(p) => p.scan_samples(side)?,
        };
        Ok(Loaded {
            commits,
            series,
            files,
            samples,
        })
    }

    /// Row counts.
    ///
    /// # Errors
    /// Database errors.
    pub fn counts(&mut self) -> Result<Counts, HistoryError> {
        let mut n = |t: &str| -> Result<i64, HistoryError> {
            Ok(self
                .query_int(&format!("SELECT COUNT(*) FROM {t}"), &[])?
                .unwrap_or(0))
        };
        Ok(Counts {
            commits: n("commits")?,
            files: n("files")?,
            series: n("series")?,
            samples: n("samples")?,
        })
    }

    /// Deletes the commits (with their files, tags and samples) older than `keep_days` days
    /// before `now_unix_s` and/or all but the newest `keep_commits` commits in history order.
    /// Returns the number of commits deleted. Afterwards SQLite is vacuumed (the file shrinks)
    /// and PostgreSQL's `samples` vacuumed and analysed.
    ///
    /// # Errors
    /// Database errors (the whole prune is rolled back).
    pub fn prune(
        &mut self,
        keep_days: Option<u64>,
        keep_commits: Option<usize>,
        now_unix_s: i64,
    ) -> Result<usize, HistoryError> {
        let commits = self.commits()?;
        let mut doomed: Vec<i64> = Vec::new();
        for (i, c) in commits.iter().enumerate() {
            let too_old = keep_days
                .is_some_and(|d| c.date_unix_s < now_unix_s - (d as i64).saturating_mul(86_400));
            let too_many = keep_commits.is_some_and(|k| i + k < commits.len());
            if too_old || too_many {
                doomed.push(c.id);
            }
        }
        if doomed.is_empty() {
            return Ok(0);
        }
        self.transaction(|s| {
            for id in &doomed {
                let id = Val::Int(*id);
                s.exec(
                    "DELETE FROM samples WHERE file_id IN (SELECT id FROM files WHERE commit_id = $1)",
                    std::slice::from_ref(&id),
                )?;
                s.exec(
                    "DELETE FROM tags WHERE file_id IN (SELECT id FROM files WHERE commit_id = $1)",
                    std::slice::from_ref(&id),
                )?;
                s.exec("DELETE FROM files WHERE commit_id = $1", std::slice::from_ref(&id))?;
                s.exec("DELETE FROM commits WHERE id = $1", std::slice::from_ref(&id))?;
            }
            Ok(())
        })?;
        // Give the space back: SQLite rewrites the file; PostgreSQL marks it reusable.
        match self {
            Store::Sqlite(_) => self.exec("VACUUM", &[])?,
            Store::Postgres(_) => self.exec("VACUUM ANALYZE samples", &[])?,
        };
        Ok(doomed.len())
    }
}
