//! The history database schema: numbered migrations, the same for SQLite and PostgreSQL.
//!
//! Each migration is applied once, in its own transaction, and recorded in the
//! `schema_version` table (`version`, `description`, `applied_unix_s`). The SQL is written
//! once; `{ID}` stands for the dialect's auto-numbered primary key.
//!
//! Tables: `commits` (one per commit SHA: branch, date in Unix seconds, optional explicit
//! order), `machines` (fingerprint = name, CPU model, kernel, cores; the runner's machine
//! record as JSON), `series` (benchmark file, configuration, metric, unit, direction),
//! `files` (one per added file: SHA-256 of its bytes, unique, so adding a file twice stores
//! its samples once), `tags` (key/value per file) and `samples` (one value per row: file,
//! series, commit, side, run, position in the file, value in the metric's unit, elapsed
//! seconds).

/// One numbered migration.
#[derive(Clone, Copy, Debug)]
pub struct Migration {
    /// Version number, 1, 2, … in order.
    pub version: i64,
    /// What it does.
    pub description: &'static str,
    /// Statements separated by `;` (`{ID}` = the dialect's auto-numbered key).
    pub sql: &'static str,
}

/// The migrations, oldest first; the database is at the version of the last one applied.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "commits, machines, series, files, tags, samples",
        sql: "
CREATE TABLE commits (
  id {ID},
  sha TEXT NOT NULL UNIQUE,
  branch TEXT,
  date_unix_s BIGINT NOT NULL,
  ord BIGINT
);
CREATE TABLE machines (
  id {ID},
  fingerprint TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  kernel TEXT NOT NULL,
  cores BIGINT NOT NULL,
  record TEXT
);
CREATE TABLE series (
  id {ID},
  benchmark TEXT NOT NULL,
  configuration TEXT NOT NULL,
  metric TEXT NOT NULL,
  unit TEXT NOT NULL,
  higher_is_better BIGINT NOT NULL,
  UNIQUE (benchmark, configuration, metric, unit)
);
CREATE TABLE files (
  id {ID},
  sha256 TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  format TEXT NOT NULL,
  commit_id BIGINT NOT NULL REFERENCES commits (id),
  machine_id BIGINT NOT NULL REFERENCES machines (id),
  added_unix_s BIGINT NOT NULL
);
CREATE TABLE tags (
  file_id BIGINT NOT NULL REFERENCES files (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (file_id, key)
);
CREATE TABLE samples (
  file_id BIGINT NOT NULL,
  series_id BIGINT NOT NULL,
  commit_id BIGINT NOT NULL,
  side BIGINT NOT NULL,
  run BIGINT,
  position BIGINT NOT NULL,
  value DOUBLE PRECISION NOT NULL,
  time_s DOUBLE PRECISION NOT NULL
)",
    },
    Migration {
        version: 2,
        description: "index samples by file (prune and duplicate checks)",
        sql: "CREATE INDEX samples_by_file ON samples (file_id)",
    },
];

/// The SQL of `m` for a dialect whose auto-numbered primary key is `id_type`.
pub fn render(m: &Migration, id_type: &str) -> Vec<String> {
    m.sql
        .split(';')
        .map(|s| s.trim().replace("{ID}", id_type))
        .filter(|s| !s.is_empty())
        .collect()
}

/// `CREATE TABLE schema_version` (both dialects).
pub const VERSION_TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_version (
  version BIGINT PRIMARY KEY,
  description TEXT NOT NULL,
  applied_unix_s BIGINT NOT NULL
)";
