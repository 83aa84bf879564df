//! The PostgreSQL backend (a shared team server): the `postgres` crate's sync client,
//! samples stored with `COPY samples FROM STDIN` (text format) and read with a streamed query.

use super::HistoryError;
use super::store::{SampleRow, Scanned, Val};
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{ToSql, Type};
use std::io::Write;

/// A connection to a PostgreSQL history database.
pub struct Postgres {
    client: postgres::Client,
}

/// Parameters as the client wants them: owned values behind `&dyn ToSql`.
enum Param {
    Int(i64),
    Real(f64),
    Text(String),
    NullInt(Option<i64>),
    NullText(Option<String>),
}

impl Param {
    fn of(v: &Val) -> Param {
        match v {
            Val::Int(i) => Param::Int(*i),
            Val::Real(r) => Param::Real(*r),
            Val::Text(t) => Param::Text(t.clone()),
            Val::NullInt => Param::NullInt(None),
            Val::NullText => Param::NullText(None),
        }
    }
    fn as_sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Param::Int(v) => v,
            Param::Real(v) => v,
            Param::Text(v) => v,
            Param::NullInt(v) => v,
            Param::NullText(v) => v,
        }
    }
}

fn column(row: &postgres::Row, i: usize) -> Result<Val, HistoryError> {
    let t = row.columns()[i].type_();
    Ok(if *t == Type::INT8 {
        row.try_get::<_, Option<i64>>(i)?
            .map_or(Val::NullInt, Val::Int)
    } else if *t == Type::INT4 {
        row.try_get::<_, Option<i32>>(i)?
            .map_or(Val::NullInt, |v| Val::Int(i64::from(v)))
    } else if *t == Type::INT2 {
        row.try_get::<_, Option<i16>>(i)?
            .map_or(Val::NullInt, |v| Val::Int(i64::from(v)))
    } else if *t == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(i)?
            .map_or(Val::NullInt, Val::Real)
    } else {
        row.try_get::<_, Option<String>>(i)?
            .map_or(Val::NullText, Val::Text)
    })
}

impl Postgres {
    /// Connects to `url` without TLS (a unix socket or a trusted network).
    ///
    /// # Errors
    /// [`HistoryError::Open`] with the server's message.
    pub fn connect(url: &str) -> Result<Postgres, HistoryError> {
        let client =
            postgres::Client::connect(url, postgres::NoTls).map_err(|e| HistoryError::Open {
                url: url.to_owned(),
                message: e.to_string(),
            })?;
        Ok(Postgres { client })
    }

    pub(super) fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, HistoryError> {
        if params.is_empty() {
            self.client.batch_execute(sql)?;
            return Ok(0);
        }
        let owned: Vec<Param> = params.iter().map(Param::of).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = owned.iter().map(Param::as_sql).collect();
        Ok(self.client.execute(sql, &refs)?)
    }

    pub(super) fn query(
        &mut self,
        sql: &str,
        params: &[Val],
    ) -> Result<Vec<Vec<Val>>, HistoryError> {
        let owned: Vec<Param> = params.iter().map(Param::of).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = owned.iter().map(Param::as_sql).collect();
        let rows = self.client.query(sql, &refs)?;
        rows.iter()
            .map(|r| (0..r.len()).map(|i| column(r, i)).collect())
            .collect()
    }

    pub(super) fn insert_samples(&mut self, rows: &[SampleRow]) -> Result<(), HistoryError> {
        let mut w = self.client.copy_in(
            "COPY samples (file_id, series_id, commit_id, side, run, position, value, time_s) \
             FROM STDIN",
        )?;
        let mut buf = Vec::with_capacity(1 << 20);
        let io = |e: std::io::Error| HistoryError::Invalid(format!("COPY samples: {e}"));
        for r in rows {
            let run = r.run.map_or_else(|| "\\N".to_owned(), |v| v.to_string());
            // `{:?}` of f64 is the shortest round-trip text; PostgreSQL parses it exactly.
            writeln!(
                buf,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                r.file_id,
                r.series_id,
                r.commit_id,
                r.side,
                run,
                r.position,
                pg_float(r.value),
                pg_float(r.time_s)
            )
            .map_err(io)?;
            if buf.len() > (1 << 20) {
                w.write_all(&buf).map_err(io)?;
                buf.clear();
            }
        }
        w.write_all(&buf).map_err(io)?;
        w.finish()?;
        Ok(())
    }

    pub(super) fn scan_samples(&mut self, side: i64) -> Result<Vec<Scanned>, HistoryError> {
        let mut it = self.client.query_raw(
            "SELECT series_id, file_id, value FROM samples WHERE side = $1",
            [side],
        )?;
        let mut out = Vec::new();
        while let Some(r) = it.next()? {
            out.push((
                r.try_get::<_, i64>(0)?,
                r.try_get::<_, i64>(1)?,
                r.try_get::<_, f64>(2)?,
            ));
        }
        Ok(out)
    }
}

/// A double as PostgreSQL's text input reads it back exactly: Rust's shortest round-trip
/// digits, `NaN`, `Infinity`, `-Infinity`.
fn pg_float(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        format!("{v:?}")
    }
}
