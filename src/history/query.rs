//! `history show`, `check`, `dashboard` and `prune`: reading the history database (the series
//! with their change points, under a filter), what each prints, and pruning.

use super::check::{self, CheckOptions};
use super::dashboard;
use super::series::{self, Filter, History};
use super::{HistoryError, Store};
use crate::sample::Side;
use crate::stats::changepoint::Params;
use std::path::Path;

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

/// `history show`: the series `q` selects with their change points, as text
/// ([`series::text`]; `commits`: every commit's sample count and median too).
///
/// # Errors
/// As [`load`].
pub fn show(db: &str, q: &Query, commits: bool) -> Result<Result<String, String>, HistoryError> {
    Ok(load(db, q)?.map(|h| series::text(&h, commits)))
}

/// What `history check` found: its Markdown summary, and whether the gate failed.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The Markdown summary ([`check::markdown`]).
    pub markdown: String,
    /// A regression beyond the limit: exit 1.
    pub failed: bool,
}

/// `history check`: checks the commit of `opts` in the series `q` selects ([`check::check`])
/// and writes the Markdown summary also to `markdown` when given (checked before the
/// database is opened: never the database itself).
///
/// # Errors
/// Outer: the database fails. Inner: the usage message (the `--markdown` file, a bad
/// filter, an unknown commit, the file cannot be written).
pub fn check(
    db: &str,
    q: &Query,
    opts: &CheckOptions,
    markdown: Option<&Path>,
) -> Result<Result<Checked, String>, HistoryError> {
    if let Some(Err(e)) = markdown.map(|p| check::check_markdown_output(db, p)) {
        return Ok(Err(e));
    }
    let report = match load(db, q)?.and_then(|h| check::check(&h, opts)) {
        Ok(r) => r,
        Err(e) => return Ok(Err(e)),
    };
    let md = check::markdown(&report);
    if let Some(Err(e)) = markdown.map(|p| std::fs::write(p, &md).map_err(|e| (p, e))) {
        return Ok(Err(format!("{}: {}", e.0.display(), e.1)));
    }
    Ok(Ok(Checked {
        markdown: md,
        failed: report.failed(),
    }))
}

/// `history dashboard`: writes the static site of the series `q` selects into `out`
/// ([`dashboard::write`]); returns the line that says so, with its line break.
///
/// # Errors
/// Outer: the database fails. Inner: a bad filter, or a file that cannot be written.
pub fn dashboard(db: &str, q: &Query, out: &Path) -> Result<Result<String, String>, HistoryError> {
    let written = load(db, q)?.and_then(|h| dashboard::write(&h, out));
    Ok(written.map(|files| format!("wrote {} pages to {}\n", files.len(), out.display())))
}

/// Deletes commits dated more than `keep_days` days ago and all but the newest
/// `keep_commits` (history order), with their samples; returns the line that says how many
/// commits went and what is left, with its line break.
///
/// # Errors
/// Outer: the database fails. Inner: neither limit is given.
pub fn prune(
    db: &str,
    keep_days: Option<u64>,
    keep_commits: Option<usize>,
) -> Result<Result<String, String>, HistoryError> {
    if keep_days.is_none() && keep_commits.is_none() {
        return Ok(Err(
            "history prune needs --keep-days N and/or --keep-commits N".to_owned(),
        ));
    }
    let mut store = Store::open(db)?;
    let n = store.prune(keep_days, keep_commits, super::now_unix_s())?;
    let c = store.counts()?;
    Ok(Ok(format!(
        "deleted {n} commits; {} commits, {} samples left\n",
        c.commits, c.samples
    )))
}
