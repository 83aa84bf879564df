//! The SQLite backend: one file, WAL journal, `synchronous = NORMAL` (durable at each
//! checkpoint, safe against corruption), bulk inserts through one prepared statement. Writers
//! of several processes take turns on the write lock (see [`Sqlite::open`]).

use super::HistoryError;
use super::store::{SampleRow, Scanned, Val};
use rusqlite::types::{Value, ValueRef};

/// How long a statement waits for a lock another connection holds (another writer's
/// transaction, a checkpoint) before it fails with `database is locked`.
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// An open SQLite history database.
pub struct Sqlite {
    conn: rusqlite::Connection,
}

fn to_sql(v: &Val) -> Value {
    match v {
        Val::Int(i) => Value::Integer(*i),
        Val::Real(r) => Value::Real(*r),
        Val::Text(t) => Value::Text(t.clone()),
        Val::NullInt | Val::NullText => Value::Null,
    }
}

fn from_sql(v: ValueRef<'_>) -> Val {
    match v {
        ValueRef::Integer(i) => Val::Int(i),
        ValueRef::Real(r) => Val::Real(r),
        ValueRef::Text(t) => Val::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(_) | ValueRef::Null => Val::NullText,
    }
}

impl Sqlite {
    /// Opens or creates the file at `path` (creating its folder) in WAL mode.
    ///
    /// Concurrency: any number of processes may open the same file at once, also a file
    /// that does not exist yet. Every statement and every transaction of [`super::Store`]
    /// waits up to [`BUSY_TIMEOUT`] for a lock held by another connection before it fails
    /// with `database is locked`; writing transactions take the write lock when they begin
    /// (`BEGIN IMMEDIATE`), so one that waited never fails on a snapshot another writer made
    /// stale. Readers never wait for writers (WAL).
    ///
    /// # Errors
    /// [`HistoryError::Open`] naming the path, also when the file stays locked longer than
    /// [`BUSY_TIMEOUT`].
    pub fn open(path: &str) -> Result<Sqlite, HistoryError> {
        let open_err = |message: String| HistoryError::Open {
            url: path.to_owned(),
            message,
        };
        if let Some(dir) = std::path::Path::new(path).parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir).map_err(|e| open_err(e.to_string()))?;
        }
        let conn = rusqlite::Connection::open(path).map_err(|e| open_err(e.to_string()))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| open_err(e.to_string()))?;
        // Switching a new file to WAL reads it and then upgrades to the write lock, and
        // SQLite refuses that upgrade at once, without waiting, while another connection
        // writes (another process switching the same new file): try again until
        // BUSY_TIMEOUT has passed.
        let start = std::time::Instant::now();
        loop {
            match conn.pragma_update(None, "journal_mode", "WAL") {
                Ok(()) => break,
                Err(e)
                    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                        && start.elapsed() < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(e) => return Err(open_err(e.to_string())),
            }
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| open_err(e.to_string()))?;
        Ok(Sqlite { conn })
    }

    /// The journal mode in effect (`wal` after [`Sqlite::open`]).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn journal_mode(&self) -> Result<String, HistoryError> {
        Ok(self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get::<_, String>(0))?)
    }

    pub(super) fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, HistoryError> {
        if params.is_empty() {
            self.conn.execute_batch(sql)?;
            return Ok(0);
        }
        let mut st = self.conn.prepare_cached(sql)?;
        Ok(st.execute(rusqlite::params_from_iter(params.iter().map(to_sql)))? as u64)
    }

    pub(super) fn query(
        &mut self,
        sql: &str,
        params: &[Val],
    ) -> Result<Vec<Vec<Val>>, HistoryError> {
        let mut st = self.conn.prepare_cached(sql)?;
        let cols = st.column_count();
        let mut rows = st.query(rusqlite::params_from_iter(params.iter().map(to_sql)))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut row = Vec::with_capacity(cols);
            for i in 0..cols {
                row.push(from_sql(r.get_ref(i)?));
            }
            out.push(row);
        }
        Ok(out)
    }

    pub(super) fn insert_samples(&mut self, rows: &[SampleRow]) -> Result<(), HistoryError> {
        // Many rows per statement: fewer VM starts than one INSERT per row.
        const PER: usize = 64;
        let one = "(?,?,?,?,?,?,?,?)";
        let head = "INSERT INTO samples (file_id, series_id, commit_id, side, run, position, \
                    value, time_s) VALUES ";
        let full = format!("{head}{}", vec![one; PER].join(","));
        let mut chunks = rows.chunks_exact(PER);
        {
            let mut st = self.conn.prepare_cached(&full)?;
            for chunk in &mut chunks {
                let mut i = 1;
                for r in chunk {
                    bind(&mut st, &mut i, r)?;
                }
                st.raw_execute()?;
            }
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let sql = format!("{head}{}", vec![one; rest.len()].join(","));
            let mut st = self.conn.prepare(&sql)?;
            let mut i = 1;
            for r in rest {
                bind(&mut st, &mut i, r)?;
            }
            st.raw_execute()?;
        }
        Ok(())
    }

    pub(super) fn scan_samples(&mut self, side: i64) -> Result<Vec<Scanned>, HistoryError> {
        let mut st = self
            .conn
            .prepare("SELECT series_id, file_id, value FROM samples WHERE side = ?1")?;
        let mut rows = st.query([side])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, f64>(2)?,
            ));
        }
        Ok(out)
    }
}

fn bind(
    st: &mut rusqlite::Statement<'_>,
    i: &mut usize,
    r: &SampleRow,
) -> Result<(), HistoryError> {
    st.raw_bind_parameter(*i, r.file_id)?;
    st.raw_bind_parameter(*i + 1, r.series_id)?;
    st.raw_bind_parameter(*i + 2, r.commit_id)?;
    st.raw_bind_parameter(*i + 3, r.side)?;
    st.raw_bind_parameter(*i + 4, r.run)?;
    st.raw_bind_parameter(*i + 5, r.position)?;
    st.raw_bind_parameter(*i + 6, r.value)?;
    st.raw_bind_parameter(*i + 7, r.time_s)?;
    *i += 8;
    Ok(())
}
