//! The CI gate (`benchdiff history check`): did the newest commit make a series worse?
//!
//! For every series with samples at the checked commit, the commit fails the gate when
//! either
//! - a change point starts at it and the change is a regression of more than
//!   `max_regression_pct`, or
//! - its median lies outside the range of the per-commit medians of the recent window (the
//!   last `window` commits before it, since the last change point before it) on the worse
//!   side, and differs from the window's median by more than `max_regression_pct` — the
//!   test for a newest commit, which cannot yet have the `min_size` points after it that a
//!   change point needs.

use super::series::{History, SeriesView, change_pct, is_regression};
use crate::stats::quantile;
use std::fmt::Write;

/// Options of [`check`].
#[derive(Clone, Debug, PartialEq)]
pub struct CheckOptions {
    /// The commit checked (SHA or name); `None` = the newest commit in history order.
    pub commit: Option<String>,
    /// Largest regression accepted, percent (e.g. 5 for 5 %).
    pub max_regression_pct: f64,
    /// Commits in the recent window (before the checked one).
    pub window: usize,
}

/// How a finding was detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A change point starts at the checked commit.
    ChangePoint,
    /// The checked commit's median is outside the recent range.
    OutOfRange,
}

/// One series that moved at the checked commit.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// Series name (`benchmark configuration`).
    pub series: String,
    /// Metric name.
    pub metric: String,
    /// Unit.
    pub unit: String,
    /// How it was found.
    pub kind: Kind,
    /// Median before (the segment or the recent window), in the unit.
    pub before: f64,
    /// Median at / after the commit, in the unit.
    pub after: f64,
    /// Change, percent.
    pub change_pct: f64,
    /// p-value of the change point (change points only).
    pub p_value: Option<f64>,
    /// True when the change is for the worse.
    pub regression: bool,
    /// True when it fails the gate (a regression beyond the limit).
    pub failed: bool,
}

/// What [`check`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// The commit checked.
    pub commit: String,
    /// Series with samples at that commit.
    pub series_checked: usize,
    /// Series that moved (failing ones first).
    pub findings: Vec<Finding>,
    /// The limit used, percent.
    pub max_regression_pct: f64,
}

impl CheckReport {
    /// True when any finding fails the gate.
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|f| f.failed)
    }
}

fn check_series(s: &SeriesView, k: usize, opts: &CheckOptions) -> Option<Finding> {
    let better = s.key.better;
    let base = |kind, before: f64, after: f64, p_value| {
        let pct = change_pct(before, after);
        let regression = is_regression(better, before, after);
        Finding {
            series: s.name(),
            metric: s.key.metric.clone(),
            unit: s.key.unit.clone(),
            kind,
            before,
            after,
            change_pct: pct,
            p_value,
            regression,
            failed: regression && pct.abs() > opts.max_regression_pct,
        }
    };
    if let Some(c) = s.changes.iter().find(|c| c.point == k) {
        return Some(base(
            Kind::ChangePoint,
            c.before_median,
            c.after_median,
            Some(c.p_value),
        ));
    }
    let since = s
        .changes
        .iter()
        .filter(|c| c.point < k)
        .map(|c| c.point)
        .max()
        .unwrap_or(0);
    let start = since.max(k.saturating_sub(opts.window));
    let mut window: Vec<f64> = s.points[start..k].iter().map(|p| p.median).collect();
    if window.len() < 2 {
        return None;
    }
    window.sort_by(f64::total_cmp);
    let (lo, hi) = (window[0], window[window.len() - 1]);
    let v = s.points[k].median;
    if v >= lo && v <= hi {
        return None;
    }
    Some(base(Kind::OutOfRange, quantile::median(&window), v, None))
}

/// Checks `opts.commit` (or the newest commit) in every series of `history`.
///
/// # Errors
/// A message when the commit is not in the history or the history is empty.
pub fn check(history: &History, opts: &CheckOptions) -> Result<CheckReport, String> {
    let ci = match &opts.commit {
        Some(sha) => history
            .commits
            .iter()
            .position(|c| &c.sha == sha || (sha.len() >= 7 && c.sha.starts_with(sha.as_str())))
            .ok_or_else(|| format!("commit '{sha}' is not in the history"))?,
        None => history
            .commits
            .len()
            .checked_sub(1)
            .ok_or("the history is empty")?,
    };
    let mut checked = 0;
    let mut findings = Vec::new();
    for s in &history.series {
        let Some(k) = s.points.iter().position(|p| p.commit == ci) else {
            continue;
        };
        checked += 1;
        if let Some(f) = check_series(s, k, opts) {
            findings.push(f);
        }
    }
    findings.sort_by(|a, b| {
        b.failed
            .cmp(&a.failed)
            .then(b.change_pct.abs().total_cmp(&a.change_pct.abs()))
    });
    Ok(CheckReport {
        commit: history.commits[ci].sha.clone(),
        series_checked: checked,
        findings,
        max_regression_pct: opts.max_regression_pct,
    })
}

/// Checks, before the database is opened, the `--markdown` file `path` of `history check`
/// ([`crate::output::check`]): never the database `db` itself (a `sqlite://` URL or a path),
/// replaced when it exists.
///
/// # Errors
/// A message naming `--markdown` and the file.
pub fn check_markdown_output(db: &str, path: &std::path::Path) -> Result<(), String> {
    use crate::output::{Input, Output, Use};
    let db = std::path::Path::new(db.strip_prefix("sqlite://").unwrap_or(db));
    let out = [Output::new("--markdown", path, Use::Replace)];
    crate::output::check(&[Input::new("--db file", db)], &out, false)
}

/// The report as Markdown for a pull-request comment: a verdict line and a table of the
/// series that moved.
pub fn markdown(r: &CheckReport) -> String {
    let mut s = String::new();
    let failed = r.findings.iter().filter(|f| f.failed).count();
    let _ = writeln!(s, "### benchdiff history check: `{}`\n", r.commit);
    if failed > 0 {
        let _ = writeln!(
            s,
            "**:x: {failed} regression(s) beyond {}%** in {} series checked.\n",
            r.max_regression_pct, r.series_checked
        );
    } else {
        let _ = writeln!(
            s,
            "**:white_check_mark: no regression beyond {}%** in {} series checked.\n",
            r.max_regression_pct, r.series_checked
        );
    }
    if r.findings.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "| | benchmark | metric | before | after | change | p-value | found by |"
    );
    let _ = writeln!(s, "|---|---|---|---:|---:|---:|---:|---|");
    for f in &r.findings {
        let mark = if f.failed {
            ":x:"
        } else if f.regression {
            ":warning:"
        } else {
            ":rocket:"
        };
        let _ = writeln!(
            s,
            "| {mark} | `{}` | {} ({}) | {} | {} | {:+.2}% | {} | {} |",
            crate::render::escape_control(&f.series)
                .replace('|', "\\|")
                .replace('`', "'"),
            crate::render::markdown::escape(&f.metric),
            crate::render::markdown::escape(&f.unit),
            fmt_num(f.before),
            fmt_num(f.after),
            f.change_pct,
            f.p_value.map_or("–".to_owned(), |p| format!("{p:.3}")),
            match f.kind {
                Kind::ChangePoint => "change point",
                Kind::OutOfRange => "outside recent range",
            }
        );
    }
    s
}

/// A number with about 4 significant digits, without exponent for everyday magnitudes.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e9).contains(&a) {
        format!("{v:.3e}")
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}
