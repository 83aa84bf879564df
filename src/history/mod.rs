//! History: benchmark samples over many commits in a database, change points over commits,
//! a CI gate and a static dashboard.
//!
//! - [`schema`]: numbered migrations, recorded in `schema_version`.
//! - [`store`]: [`Store`], one API over SQLite (default, `rusqlite` with the bundled library,
//!   WAL mode) and PostgreSQL (`postgres://…`, the `postgres` crate's sync client; only with
//!   the `postgres` cargo feature, otherwise such a URL is an error naming the feature).
//! - [`series`]: the series per benchmark configuration and metric, per-commit medians and
//!   their change points ([`crate::stats::changepoint`]).
//! - [`check`]: the CI gate on the newest commit and its Markdown summary.
//! - [`dashboard`]: the static site (inline SVG, no server, no CDN).
//! - [`recorder`]: storing results files under a commit (`history add`, `--history URL`).
//! - [`query`]: the series a filter selects, and pruning.
//!
//! The history layer reads samples ([`crate::sample`]) and writes text; it never imports the
//! runner or the CLI.

pub mod check;
pub mod dashboard;
pub mod ingest;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(not(feature = "postgres"))]
#[path = "postgres_absent.rs"]
pub mod postgres;
pub mod query;
pub mod recorder;
pub mod schema;
pub mod series;
pub mod sqlite;
pub mod store;

pub use store::Store;

/// Errors of the history database.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The database could not be opened (bad URL, unreachable server, unwritable file).
    #[error("{url}: {message}")]
    Open {
        /// The URL or path given.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// An SQLite error.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A PostgreSQL error.
    #[cfg(feature = "postgres")]
    #[error("postgres: {0}")]
    Postgres(#[from] ::postgres::Error),
    /// Invalid data or arguments (a message naming what).
    #[error("{0}")]
    Invalid(String),
}

impl HistoryError {
    /// Whether PostgreSQL aborted the transaction only because of transactions running at the
    /// same time — a serialization failure (SQLSTATE 40001) or a deadlock (40P01) — so that
    /// running it again may succeed. [`Store`] retries such transactions itself.
    pub fn is_transient(&self) -> bool {
        #[cfg(feature = "postgres")]
        if let HistoryError::Postgres(e) = self {
            use ::postgres::error::SqlState;
            return e.code().is_some_and(|c| {
                *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
            });
        }
        false
    }
}

/// Seconds since the Unix epoch, now.
pub fn now_unix_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Parses an RFC 3339 date-time (`2024-05-01T12:00:00Z`, `2024-05-01T12:00:00.5+02:00`) or a
/// plain date (`2024-05-01`, midnight UTC) to seconds since the Unix epoch (fractions dropped).
///
/// Days from the civil date by Howard Hinnant's `days_from_civil` algorithm.
///
/// # Errors
/// A message naming the text when it is not such a date.
pub fn parse_rfc3339(text: &str) -> Result<i64, String> {
    let bad = || format!("'{text}' is not an RFC 3339 date (e.g. 2024-05-01T12:00:00Z)");
    let t = text.trim();
    let num = |s: &str| -> Result<i64, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse::<i64>().map_err(|_| bad())
    };
    let (date, time) = match t.find(['T', 't', ' ']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let d: Vec<&str> = date.split('-').collect();
    if d.len() != 3 || d[0].len() != 4 || d[1].len() != 2 || d[2].len() != 2 {
        return Err(bad());
    }
    let (y, m, day) = (num(d[0])?, num(d[1])?, num(d[2])?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return Err(bad());
    }
    let mut secs = 0;
    if let Some(time) = time {
        let (clock, offset) = if let Some(s) = time.strip_suffix(['Z', 'z']) {
            (s, 0)
        } else if let Some(i) = time.rfind(['+', '-']) {
            let o = &time[i + 1..];
            let (oh, om) = o.split_once(':').ok_or_else(bad)?;
            let sign = if &time[i..=i] == "-" { -1 } else { 1 };
            (&time[..i], sign * (num(oh)? * 3600 + num(om)? * 60))
        } else {
            return Err(bad());
        };
        let clock = clock.split('.').next().unwrap_or(clock);
        let c: Vec<&str> = clock.split(':').collect();
        if c.len() != 3 {
            return Err(bad());
        }
        let (h, mi, s) = (num(c[0])?, num(c[1])?, num(c[2])?);
        if h > 23 || mi > 59 || s > 60 {
            return Err(bad());
        }
        secs = h * 3600 + mi * 60 + s - offset;
    }
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Ok(days * 86_400 + secs)
}

/// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (the date from [`crate::run::clock::civil_from_days`]).
pub fn format_rfc3339(unix_s: i64) -> String {
    let (y, m, d) = crate::run::clock::civil_from_days(unix_s.div_euclid(86_400));
    let rem = unix_s.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(parse_rfc3339("2024-05-01"), Ok(1_714_521_600));
        assert_eq!(
            parse_rfc3339("2024-05-01T02:00:00.25+02:00"),
            Ok(1_714_521_600)
        );
        assert_eq!(format_rfc3339(1_714_521_600), "2024-05-01T00:00:00Z");
        assert_eq!(format_rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert!(parse_rfc3339("yesterday").is_err());
        assert!(parse_rfc3339("2024-13-01").is_err());
    }
}
