//! The PostgreSQL backend of a build without the `postgres` cargo feature: [`Postgres`] has no
//! values, and [`Postgres::connect`] fails with an error naming the feature, so a
//! `postgres://…` URL is refused before anything runs and is never taken for a SQLite path.

use super::HistoryError;
use super::store::{SampleRow, Scanned, Val};
use std::convert::Infallible;

/// The error text of every `postgres://…` URL in this build.
pub const NOT_BUILT: &str =
    "benchdiff was built without the postgres feature: cargo install benchdiff --features postgres";

/// A PostgreSQL connection, which this build cannot make (no value of this type exists).
pub struct Postgres {
    never: Infallible,
}

impl Postgres {
    /// Always fails: this build has no PostgreSQL client.
    ///
    /// # Errors
    /// [`HistoryError::Open`] with [`NOT_BUILT`].
    pub fn connect(url: &str) -> Result<Postgres, HistoryError> {
        Err(HistoryError::Open {
            url: url.to_owned(),
            message: NOT_BUILT.to_owned(),
        })
    }

    pub(super) fn exec(&mut self, _sql: &str, _params: &[Val]) -> Result<u64, HistoryError> {
        match self.never {}
    }

    pub(super) fn query(
        &mut self,
        _sql: &str,
        _params: &[Val],
    ) -> Result<Vec<Vec<Val>>, HistoryError> {
        match self.never {}
    }

    pub(super) fn insert_samples(&mut self, _rows: &[SampleRow]) -> Result<(), HistoryError> {
        match self.never {}
    }

    pub(super) fn scan_samples(&mut self, _side: i64) -> Result<Vec<Scanned>, HistoryError> {
        match self.never {}
    }
}
