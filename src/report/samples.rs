//! The formats that show the samples rather than a verdict on each comparison: `--format
//! csv` (compare.js's CSV of the rate), `go` (Go benchmark lines) and `benchstat`
//! (benchstat's summary of each side and its U test), of a partition store
//! ([`Partitions`]) whether it holds the samples in memory or reads them back from spill
//! files. The samples are written in arrival order; what else the report needs of the
//! comparisons (the CSV's notes, and for the pipeline the `--plot`'s benchmarks and what the
//! `--max-regression` gate decides) is kept compact partition by partition, in the report's
//! order (by name, then first appearance).

use super::diagnostics::{RowNote, row_notes};
use super::{Evidence, Facts, Format, Messages, Plan, Written};
use crate::compare::Comparison;
use crate::compare::partitions::{Contents, Partitions};
use crate::format::go::GoLines;
use crate::render::benchstat as bs;
use crate::sample::{BenchmarkId, MetricId, Side};
use crate::verdict::{self, decide};
use std::io::Write;

/// What a samples format shows besides the samples.
pub(super) enum Shown<'o> {
    /// compare.js's CSV of the metric reported.
    Csv,
    /// Go benchmark lines of every metric, under the `key: value` configuration lines
    /// `config` the inputs shared.
    Go { config: &'o [(String, String)] },
    /// benchstat's tables of every metric, with its options (labels, exact units,
    /// configuration lines).
    Benchstat { options: &'o bs::Options },
}

/// What phase 1 keeps of the comparisons, each with the arrival position of its first
/// sample, and what the format shows.
pub(super) struct Kept<'o> {
    /// What the format shows besides the samples.
    shown: Shown<'o>,
    /// The CSV's comparisons with a note (no Welch test, values below 0), whole.
    noted: Vec<(u64, Comparison)>,
    /// benchstat's rows of each metric (in order of first appearance).
    benchstat: Vec<Table>,
    /// What the samples are (Go lines and benchstat's tables; the CSV needs none).
    contents: Contents,
}

/// benchstat's table of a metric: its rows in report order, each with its first position.
type Table = (MetricId, Vec<(u64, bs::Row)>);

/// The note of `c` ([`RowNote`]): no Welch test, or values below 0.
fn note(c: &Comparison) -> Option<RowNote<'_>> {
    use crate::stats::welch::{improvement_pct, welch_t};
    RowNote::of(c, welch_t(&c.old, &c.new).err(), || {
        improvement_pct(&c.old, &c.new)
    })
}

/// Phase 1: reads the partitions of `parts` one at a time and keeps what `shown` and `plan`
/// need besides the samples of `metric` (benchstat: of every metric). Adds the CSV's notes to
/// `out` in report order.
///
/// # Errors
/// A partition could not be read (a spill file).
pub(super) fn keep<'a, 'o>(
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    plan: &Plan,
    shown: Shown<'o>,
    out: &mut Messages,
) -> std::io::Result<Evidence<Kept<'o>, decide::Decided>> {
    use rayon::prelude::*;
    let opts = super::options(plan);
    let csv = matches!(shown, Shown::Csv);
    let mut kept = Kept {
        contents: if csv {
            Contents::default()
        } else {
            parts.contents()
        },
        shown,
        noted: Vec::new(),
        benchstat: Vec::new(),
    };
    // With `--max-regression`: what the gate reads of each comparison on both sides; with
    // `--plot`: each comparison on both sides, by name and benchmark.
    let mut decided: Vec<(u64, decide::Decided)> = Vec::new();
    let mut plotted: Vec<(u64, Box<str>, BenchmarkId)> = Vec::new();
    let decisions = plan.max_regression.is_some() || plan.plot.is_some();
    if csv || decisions {
        for k in 0..parts.partitions() {
            let mut part = parts.partition(k, metric)?;
            // Only the comparisons on both sides are noted, plotted or gated.
            let mut comparisons = std::mem::take(&mut part.comparisons);
            comparisons.retain(|c| !c.old.is_empty() && !c.new.is_empty());
            for c in &mut comparisons {
                c.benchmark = part.global(c);
            }
            parts.give_back(part);
            let first = |c: &Comparison| parts.first_position(c.benchmark).unwrap_or(u64::MAX);
            if plan.plot.is_some() {
                let names = comparisons
                    .iter()
                    .map(|c| (first(c), c.name.as_str().into()));
                plotted.extend(
                    names
                        .zip(&comparisons)
                        .map(|((f, n), c)| (f, n, c.benchmark)),
                );
            }
            if plan.max_regression.is_some() {
                let rows: Vec<(u64, verdict::Row)> = comparisons
                    .into_iter()
                    .map(|c| (first(&c), verdict::Row::with_accuracy(c, false)))
                    .collect();
                comparisons = super::gated_rows(rows, plan, &opts)
                    .into_iter()
                    .map(|(f, g, r)| {
                        decided.extend(g.map(|g| (f, *g)));
                        r.comparison
                    })
                    .collect();
            }
            if csv {
                let firsts: Vec<u64> = comparisons.iter().map(first).collect();
                kept.noted.par_extend(
                    firsts
                        .into_par_iter()
                        .zip(comparisons)
                        .filter(|(_, c)| note(c).is_some()),
                );
            }
        }
    }
    if let Shown::Benchstat { options } = &kept.shown {
        kept.benchstat = benchstat_rows(parts, &kept.contents, options, plan.plot.is_some())?;
    }
    let coll = crate::compare::RootCollation::new();
    kept.noted
        .sort_unstable_by(|x, y| coll.compare(&x.1.name, &y.1.name).then(x.0.cmp(&y.0)));
    decided.sort_unstable_by(|x, y| coll.compare(&x.1.name, &y.1.name).then(x.0.cmp(&y.0)));
    plotted.sort_unstable_by(|x, y| coll.compare(&x.1, &y.1).then(x.0.cmp(&y.0)));
    let flagged: Vec<RowNote<'_>> = kept.noted.iter().filter_map(|(_, c)| note(c)).collect();
    row_notes(&flagged, Format::Csv, out);
    drop(flagged);
    Ok(Evidence {
        rows: decided.into_iter().map(|d| d.1).collect(),
        pooled: Vec::new(),
        shows_control: false,
        benchmarks: plotted.into_iter().map(|p| p.2).collect(),
        kept,
    })
}

/// benchstat's rows ([`bs::Row`]: each side's summary and the U test) of every metric of
/// `parts` (`contents`: what its samples are), in order of first appearance, each with its
/// first position, in report order (`plot`: the `--plot` reads the comparisons again).
///
/// # Errors
/// A partition could not be read (a spill file).
fn benchstat_rows<'a>(
    parts: &mut dyn Partitions<'a>,
    contents: &Contents,
    options: &bs::Options,
    plot: bool,
) -> std::io::Result<Vec<Table>> {
    use rayon::prelude::*;
    let opts = bs::escaped(options);
    let view = bs::View::new(&opts, contents.per_side[0] > 0, contents.per_side[1] > 0);
    let mut tables = Vec::with_capacity(contents.metrics.len());
    for (i, &m) in contents.metrics.iter().enumerate() {
        // The names go back to the store when a later metric or the `--plot` reads them.
        let again = i + 1 < contents.metrics.len() || plot;
        let unit = parts.names().metric(m).unit.clone();
        let exact = opts.exact_units.contains(&unit);
        let mut rows: Vec<(u64, bs::Row)> = Vec::new();
        for k in 0..parts.partitions() {
            let part = parts.partition(k, m)?;
            let firsts: Vec<u64> = (part.comparisons.iter())
                .map(|c| parts.first_position(part.global(c)).unwrap_or(u64::MAX))
                .collect();
            rows.par_extend(part.comparisons.par_iter().zip(firsts).map(|(c, first)| {
                let aggregate = part
                    .set
                    .benchmark(c.benchmark)
                    .configuration
                    .text
                    .starts_with("aggregate=");
                (first, view.row(c, aggregate, exact))
            }));
            if again {
                parts.give_back(part);
            } else {
                drop(part);
            }
        }
        rows.par_sort_unstable_by_key(|r| r.0);
        tables.push((m, rows));
    }
    Ok(tables)
}

/// Phase 2: writes the samples in `shown`'s format to the `-o` file or `stdout` (the CSV of
/// `metric`; Go lines and benchstat's tables of every metric, then the failed jobs of
/// `facts`). Returns the exit code.
///
/// # Errors
/// Writing to `stdout` failed, or a partition could not be read again.
pub(super) fn write<'a>(
    kept: Kept<'_>,
    _: (&[decide::Decided], &[BenchmarkId]),
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    (plan, facts): (&Plan, &Facts<'_>),
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<std::io::Result<Written>> {
    let contents = &kept.contents;
    let tables = &kept.benchstat;
    // The CSV's first name a spreadsheet could run as a formula (written as it is).
    let mut formula: Option<String> = None;
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        match &kept.shown {
            Shown::Csv => {
                w.write_all(crate::format::node_csv::write::HEADER.as_bytes())?;
                parts.in_arrival_order(&mut |window| {
                    let f = crate::render::csv::write_rows(window, metric, w)?;
                    if formula.is_none() {
                        formula = f;
                    }
                    Ok(())
                })
            }
            Shown::Go { config } => {
                for (k, v) in *config {
                    writeln!(w, "{k}: {v}")?;
                }
                let lines = GoLines::new(parts.names());
                let mut used = contents.metrics.clone();
                used.sort_unstable_by_key(|m| m.0);
                lines.write_units(parts.names(), used, w)?;
                for (side, n) in [
                    (Side::Old, contents.per_side[0]),
                    (Side::New, contents.per_side[1]),
                ] {
                    if n == 0 {
                        continue;
                    }
                    GoLines::write_side_header(side, w)?;
                    parts.in_arrival_order(&mut |window| lines.write_samples(window, side, w))?;
                }
                Ok(())
            }
            Shown::Benchstat { options } => {
                let opts = bs::escaped(options);
                let view = bs::View::new(&opts, contents.per_side[0] > 0, contents.per_side[1] > 0);
                bs::write_config(&opts, w)?;
                for (i, (m, rows)) in tables.iter().enumerate() {
                    if i > 0 {
                        w.write_all(b"\n")?;
                    }
                    let unit = &parts.names().metric(*m).unit;
                    let exact = opts.exact_units.contains(unit);
                    view.write_table(rows, |r| &r.1, unit, exact, w)?;
                }
                w.write_all(crate::render::table::failures_section(facts.failures).as_bytes())
            }
        }
    };
    let code = super::write_output(plan.output.as_deref(), write, stdout, out)?;
    if let Some(f) = formula {
        out.warning(super::diagnostics::formula_cells("--format csv", &f));
    }
    Ok(Written::of(code))
}
