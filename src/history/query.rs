//! Reading the history database for `history show`, `check` and `dashboard` (the series
//! with their change points, under a filter), and pruning it.

use super::series::{self, Filter, History};
use super::store::Counts;
use super::{HistoryError, Store};
use crate::sample::Side;
use crate::stats::changepoint::Params;

/// Which series to build and how to find their change points.
#[derive(Clone, Debug)]
pub struct Query {
    /// Only series whose `benchmark configuration` contains this text.
    pub benchmark: Option<String>,
    /// Only this metric.
    pub metric: Option<String>,
    /// Only commits of this branch.
    pub branch: Option<String>,
    /// Only samples from this machine name.
    pub machine: Option<String>,
    /// Only samples of files with these `KEY=VALUE` tags.
    pub tags: Vec<String>,
    /// Which side of two-sided files.
    pub side: Side,
    /// Largest p-value of the permutation test, in (0, 1).
    pub significance: f64,
    /// Shuffles per permutation test.
    pub permutations: usize,
    /// Fewest commits on either side of a change point (at least 1).
    pub min_size: usize,
    /// Seed of the shuffles.
    pub seed: u64,
}

/// Opens the database `db` and builds the series that `q` selects, with their change points.
///
/// # Errors
/// Outer: the database fails. Inner: a usage message (bad tag, significance or minimum
/// size).
pub fn load(db: &str, q: &Query) -> Result<Result<History, String>, HistoryError> {
    let tags = match super::recorder::parse_tags(&q.tags) {
        Ok(t) => t,
        Err(e) => return Ok(Err(e)),
    };
    if !(q.significance > 0.0 && q.significance < 1.0) {
        return Ok(Err("--significance must be between 0 and 1".into()));
    }
    if q.min_size == 0 {
        return Ok(Err("--min-size must be at least 1".into()));
    }
    let mut store = Store::open(db)?;
    let loaded = store.load(q.side)?;
    let filter = Filter {
        benchmark: q.benchmark.clone(),
        metric: q.metric.clone(),
        branch: q.branch.clone(),
        machine: q.machine.clone(),
        tags,
    };
    let params = Params {
        significance: q.significance,
        permutations: q.permutations,
        min_size: q.min_size,
        seed: q.seed,
    };
    Ok(Ok(series::build(loaded, &filter, &params)))
}

/// Deletes commits dated more than `keep_days` days ago and all but the newest
/// `keep_commits` (history order), with their samples; returns the commits deleted and what
/// is left.
///
/// # Errors
/// The database fails.
pub fn prune(
    db: &str,
    keep_days: Option<u64>,
    keep_commits: Option<usize>,
) -> Result<(usize, Counts), HistoryError> {
    let mut store = Store::open(db)?;
    let n = store.prune(keep_days, keep_commits, super::now_unix_s())?;
    let c = store.counts()?;
    Ok((n, c))
}
