//! Series over commits: per benchmark configuration and metric, the samples of each commit,
//! their median, and the change points of the per-commit medians
//! ([`crate::stats::changepoint`]).
//!
//! With several samples per commit the change points are found on the per-commit medians
//! (the median damps the noise; the permutation test then treats commits as the units), and
//! the before/after figures use every sample of the segments around a change point.

use super::store::{CommitRow, Loaded, SeriesRow};
use crate::sample::Better;
use crate::stats::changepoint::{self, Params};
use crate::stats::quantile;
use rustc_hash::FxHashMap;

/// Which series and samples to keep.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Keep series whose `benchmark configuration` name contains this text.
    pub benchmark: Option<String>,
    /// Keep only this metric (name).
    pub metric: Option<String>,
    /// Keep only commits of this branch.
    pub branch: Option<String>,
    /// Keep only samples measured on this machine (name).
    pub machine: Option<String>,
    /// Keep only samples of files with all these tags.
    pub tags: Vec<(String, String)>,
}

/// The samples of one commit in a series.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Index into [`History::commits`].
    pub commit: usize,
    /// The samples, in the metric's unit, in the order stored.
    pub values: Vec<f64>,
    /// Their median.
    pub median: f64,
}

/// A change point of a series.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Index into [`SeriesView::points`] of the first point after the change.
    pub point: usize,
    /// Index into [`History::commits`] of that point's commit.
    pub commit: usize,
    /// Median of every sample from the previous change point (or the start) up to this one.
    pub before_median: f64,
    /// Median of every sample from this change point up to the next (or the end).
    pub after_median: f64,
    /// `(after − before) / before × 100`, percent.
    pub change_pct: f64,
    /// Permutation p-value.
    pub p_value: f64,
    /// True when the change makes the metric worse (lower for higher-is-better metrics).
    pub regression: bool,
}

/// One series: a benchmark configuration and metric over commits.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesView {
    /// The series' identity.
    pub key: SeriesRow,
    /// Commits with samples, in history order.
    pub points: Vec<Point>,
    /// Change points, in order.
    pub changes: Vec<Change>,
}

impl SeriesView {
    /// `benchmark configuration` (compare.R's row name, without a trailing space).
    pub fn name(&self) -> String {
        if self.key.configuration.is_empty() {
            self.key.benchmark.clone()
        } else {
            format!("{} {}", self.key.benchmark, self.key.configuration)
        }
    }

    /// Samples stored.
    pub fn sample_count(&self) -> usize {
        self.points.iter().map(|p| p.values.len()).sum()
    }
}

/// Every kept series with its change points, over the kept commits.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct History {
    /// Commits in history order (explicit order, then date, then first added).
    pub commits: Vec<CommitRow>,
    /// Series sorted by name, then metric.
    pub series: Vec<SeriesView>,
}

/// Percent change from `before` to `after` (NaN when `before` is 0).
pub fn change_pct(before: f64, after: f64) -> f64 {
    if before == 0.0 {
        f64::NAN
    } else {
        (after - before) / before.abs() * 100.0
    }
}

/// True when going from `before` to `after` is worse for a metric of direction `better`.
pub fn is_regression(better: Better, before: f64, after: f64) -> bool {
    match better {
        Better::Higher => after < before,
        Better::Lower => after > before,
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    quantile::median(v)
}

/// The change points of a series' points (per-commit medians).
pub fn changes_of(points: &[Point], better: Better, params: &Params) -> Vec<Change> {
    let medians: Vec<f64> = points.iter().map(|p| p.median).collect();
    let cps = changepoint::detect(&medians, params);
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(cps.iter().map(|c| c.index))
        .chain(std::iter::once(points.len()))
        .collect();
    cps.iter()
        .enumerate()
        .map(|(i, c)| {
            let mut before: Vec<f64> = points[bounds[i]..c.index]
                .iter()
                .flat_map(|p| p.values.iter().copied())
                .collect();
            let mut after: Vec<f64> = points[c.index..bounds[i + 2]]
                .iter()
                .flat_map(|p| p.values.iter().copied())
                .collect();
            let (b, a) = (median(&mut before), median(&mut after));
            Change {
                point: c.index,
                commit: points[c.index].commit,
                before_median: b,
                after_median: a,
                change_pct: change_pct(b, a),
                p_value: c.p_value,
                regression: is_regression(better, b, a),
            }
        })
        .collect()
}

/// Builds the series of `loaded` kept by `filter` and finds their change points (in
/// parallel over the available cores).
pub fn build(loaded: Loaded, filter: &Filter, params: &Params) -> History {
    let Loaded {
        commits,
        series,
        files,
        samples,
    } = loaded;
    let commits: Vec<CommitRow> = commits
        .into_iter()
        .filter(|c| {
            filter
                .branch
                .as_ref()
                .is_none_or(|b| c.branch.as_deref() == Some(b.as_str()))
        })
        .collect();
    let commit_index: FxHashMap<i64, usize> =
        commits.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    // file id -> commit index, for kept files only.
    let file_commit: FxHashMap<i64, usize> = files
        .iter()
        .filter(|f| filter.machine.as_ref().is_none_or(|m| &f.machine == m))
        .filter(|f| filter.tags.iter().all(|t| f.tags.contains(t)))
        .filter_map(|f| Some((f.id, *commit_index.get(&f.commit_id)?)))
        .collect();
    let kept: Vec<SeriesRow> = series
        .into_iter()
        .filter(|s| filter.metric.as_ref().is_none_or(|m| &s.metric == m))
        .filter(|s| {
            filter
                .benchmark
                .as_ref()
                .is_none_or(|b| format!("{} {}", s.benchmark, s.configuration).contains(b.as_str()))
        })
        .collect();
    let series_index: FxHashMap<i64, usize> =
        kept.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
    // Per kept series: commit index -> values.
    let mut per: Vec<FxHashMap<usize, Vec<f64>>> = vec![FxHashMap::default(); kept.len()];
    for (sid, fid, v) in samples {
        if let (Some(&si), Some(&ci)) = (series_index.get(&sid), file_commit.get(&fid)) {
            per[si].entry(ci).or_default().push(v);
        }
    }
    let mut jobs: Vec<(SeriesRow, Vec<Point>)> = kept
        .into_iter()
        .zip(per)
        .filter(|(_, m)| !m.is_empty())
        .map(|(key, m)| {
            let mut points: Vec<Point> = m
                .into_iter()
                .map(|(commit, values)| {
                    let mut sorted = values.clone();
                    Point {
                        commit,
                        median: median(&mut sorted),
                        values,
                    }
                })
                .collect();
            points.sort_by_key(|p| p.commit);
            (key, points)
        })
        .collect();
    jobs.sort_by(|a, b| {
        (&a.0.benchmark, &a.0.configuration, &a.0.metric).cmp(&(
            &b.0.benchmark,
            &b.0.configuration,
            &b.0.metric,
        ))
    });
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = jobs.len().div_ceil(threads).max(1);
    let mut out: Vec<SeriesView> = Vec::with_capacity(jobs.len());
    let mut parts: Vec<Vec<(SeriesRow, Vec<Point>)>> = Vec::new();
    while !jobs.is_empty() {
        let rest = jobs.split_off(chunk.min(jobs.len()));
        parts.push(std::mem::replace(&mut jobs, rest));
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| {
                scope.spawn(move || {
                    part.into_iter()
                        .map(|(key, points)| SeriesView {
                            changes: changes_of(&points, key.better, params),
                            key,
                            points,
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(v) => out.extend(v),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
    });
    History {
        commits,
        series: out,
    }
}

/// `history show`'s text: per series a header line (name, metric, unit — control characters
/// escaped as the report tables escape them —, direction, commits,
/// samples), its change points (commit, date, before → after median, change in percent,
/// p-value) and, with `commits`, every commit's sample count and median.
pub fn text(h: &History, commits: bool) -> String {
    use super::check::fmt_num;
    use crate::render::escape_control;
    use std::fmt::Write;
    let mut o = String::new();
    if h.series.is_empty() {
        o.push_str("no series (empty history, or nothing matches the filters)\n");
        return o;
    }
    for s in &h.series {
        let _ = writeln!(
            o,
            "{}  [{} {}, {} is better]  {} commits, {} samples",
            escape_control(&s.name()),
            escape_control(&s.key.metric),
            escape_control(&s.key.unit),
            match s.key.better {
                Better::Higher => "higher",
                Better::Lower => "lower",
            },
            s.points.len(),
            s.sample_count()
        );
        if s.changes.is_empty() {
            o.push_str("  no change point\n");
        }
        for c in &s.changes {
            let cm = &h.commits[c.commit];
            let _ = writeln!(
                o,
                "  change point at {} ({}): {} -> {} ({:+.2}%{}), p = {:.4}",
                cm.sha,
                super::format_rfc3339(cm.date_unix_s),
                fmt_num(c.before_median),
                fmt_num(c.after_median),
                c.change_pct,
                if c.regression { ", worse" } else { ", better" },
                c.p_value
            );
        }
        if commits {
            for p in &s.points {
                let cm = &h.commits[p.commit];
                let mark = if s.changes.iter().any(|c| c.commit == p.commit) {
                    " <- change"
                } else {
                    ""
                };
                let _ = writeln!(
                    o,
                    "    {:<40} {}  n={:<4} median {}{mark}",
                    cm.sha,
                    super::format_rfc3339(cm.date_unix_s),
                    p.values.len(),
                    fmt_num(p.median)
                );
            }
        }
    }
    o
}
