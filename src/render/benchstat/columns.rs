//! benchstat's view of more than two sides: a column per side, the first the base and every
//! other with its `vs base` cell, as `benchstat` prints N files (golang/perf's
//! `cmd/benchstat/testdata/crcSizeVsPoly.stdout` is such a table). Rows, cells and the
//! geomean row are the two-column view's ([`super::View`]) with more columns.

use super::{Options, View, escaped, write_config};
use crate::compare::group_metric;
use crate::sample::SampleSet;

/// Renders benchstat's view of the columns `views` (one per compared side: the base as the
/// old side, that column as the new side), headed by `labels` (the base's, then each
/// column's), with `opts` (exact units, configuration lines, α, confidence): one table per
/// metric in first-seen order.
pub fn render_columns(views: &[&SampleSet], labels: &[String], opts: &Options) -> String {
    let opts = &escaped(opts);
    let labels = labels
        .iter()
        .map(|l| crate::render::escape_control(l).into_owned())
        .collect();
    let view = View::columns(opts, labels);
    let mut out: Vec<u8> = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_view(views, &view, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`render_columns`] into `out` by `view`.
fn write_view(
    views: &[&SampleSet],
    view: &View<'_>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write_config(view.opts, out)?;
    let mut metrics: Vec<(String, String)> = Vec::new();
    for set in views {
        for s in set.iter() {
            let m = set.metric(s.metric);
            if !metrics.iter().any(|(n, u)| *n == m.name && *u == m.unit) {
                metrics.push((m.name.clone(), m.unit.clone()));
            }
        }
    }
    for (i, (name, unit)) in metrics.iter().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        let exact = view.opts.exact_units.contains(unit);
        let rows = rows_of(views, name, unit, view, exact);
        view.write_table(&rows, |r| r, unit, exact, out)?;
    }
    Ok(())
}

/// The rows of metric `name` (`unit`, `exact` or not) of `view`: the base's benchmarks in
/// first-seen order, then any a column adds.
fn rows_of(
    views: &[&SampleSet],
    name: &str,
    unit: &str,
    view: &View<'_>,
    exact: bool,
) -> Vec<super::Row> {
    // Per benchmark: its name, whether it is a harness's aggregate, its samples per column.
    let mut rows: Vec<(Box<str>, bool, Vec<Vec<f64>>)> = Vec::new();
    let mut at: std::collections::HashMap<Box<str>, usize> = std::collections::HashMap::new();
    for (k, set) in views.iter().enumerate() {
        let Some(id) = (0..set.metrics().len())
            .map(|i| crate::sample::MetricId(i as u32))
            .find(|&id| set.metric(id).name == name && set.metric(id).unit == unit)
        else {
            continue;
        };
        for c in group_metric(set, id) {
            let n: Box<str> = crate::render::escape_control(c.name.trim_end()).into();
            let aggregate = set
                .benchmark(c.benchmark)
                .configuration
                .text
                .starts_with("aggregate=");
            let i = *at.entry(n.clone()).or_insert_with(|| {
                rows.push((n, false, vec![Vec::new(); views.len() + 1]));
                rows.len() - 1
            });
            let row = &mut rows[i];
            row.1 |= aggregate;
            if row.2[0].is_empty() {
                row.2[0] = c.old;
            }
            row.2[k + 1] = c.new;
        }
    }
    rows.into_iter()
        .map(|(n, aggregate, values)| {
            let sides: Vec<&[f64]> = values.iter().map(Vec::as_slice).collect();
            view.row_of(n, &sides, aggregate, exact)
        })
        .collect()
}
