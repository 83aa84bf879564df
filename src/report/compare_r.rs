//! `--format r` (compare.R's table) and `--format analyze` (compare.js `--analyze`) of the
//! comparisons of a partition store ([`Partitions`]), whether it holds the samples in memory
//! or reads them back from spill files: phase 1 keeps a compact row per comparison
//! ([`Compact`]: what the layouts print of it), partition by partition, in report order, and
//! hands the pipeline what the gate decides (with `--max-regression`) and the benchmarks the
//! `--plot` draws; phase 2 writes the rows.

use super::diagnostics::{self, RowNote, row_notes};
use super::{Evidence, Facts, Format, Messages, Plan, Written};
use crate::compare::OneSided;
use crate::compare::failures::Failures;
use crate::compare::partitions::Partitions;
use crate::render::{self, analyze};
use crate::sample::{BenchmarkId, MetricId};
use crate::verdict::{self, Stars, decide};
use std::io::Write;

/// What the report keeps of a comparison: what compare.R and compare.js print of it, the
/// arrival position of its first sample (the in-memory order before sorting), its benchmark
/// and its sample counts.
pub(super) struct Compact {
    first: u64,
    benchmark: BenchmarkId,
    name: Box<str>,
    stars: Option<Stars>,
    improvement_pct: f64,
    accuracy_pct: Option<[f64; 3]>,
    n: [u32; 2],
    /// The p-value of the analyze layout's corrected count ([`analyze::count_p`]).
    count_p: f64,
    /// With `--max-regression`: what the gate reads of the row, estimated before the
    /// correction.
    gate: Option<Box<decide::Decided>>,
}

/// The options of the gate's assessment of compare.R's rows: the report's, without the
/// distribution checks these layouts do not show.
fn gate_options(plan: &Plan) -> decide::Options {
    decide::Options {
        distribution_checks: false,
        ..super::options(plan)
    }
}

/// Phase 1: reads the partitions of `parts` one at a time and keeps each comparison of
/// `metric` compact, then puts the rows in report order (first appearance, then but for the
/// analyze layout, which keeps compare.js's order, a stable sort by name). Adds the
/// layouts' messages to `out`: the benchmarks measured on one side only (analyze, which
/// leaves them out; compare.R keeps them as rows), the failed jobs (compare.R, which has no
/// place for them), too few samples for a rank test, and the rows without a Welch test or
/// with values below 0. The evidence's rows are what the gate reads of each row (none
/// without `--max-regression`).
///
/// # Errors
/// A partition could not be read (a spill file).
pub(super) fn rows<'a>(
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    plan: &Plan,
    failures: &Failures,
    out: &mut Messages,
) -> std::io::Result<Evidence<Vec<Compact>, decide::Decided>> {
    let mut rows: Vec<Compact> = Vec::with_capacity(parts.names().benchmarks().len());
    let mut noted: Vec<(u64, verdict::Row)> = Vec::new();
    let analyze_layout = plan.format == Format::Analyze;
    // (first position, name, only old).
    let mut one_sided: Vec<(u64, String, bool)> = Vec::new();
    let gate_opts = gate_options(plan);
    for k in 0..parts.partitions() {
        let mut part = parts.partition(k, metric)?;
        let mut comparisons = std::mem::take(&mut part.comparisons);
        for c in &mut comparisons {
            c.benchmark = part.global(c);
        }
        // The `--plot` reads the comparisons again: their names go back to the store.
        if plan.plot.is_some() {
            parts.give_back(part);
        } else {
            drop(part);
        }
        let mut kept = Vec::with_capacity(comparisons.len());
        for mut r in verdict::rows_with(comparisons, true) {
            let c = &mut r.comparison;
            let first = parts.first_position(c.benchmark).unwrap_or(u64::MAX);
            if analyze_layout && (c.old.is_empty() || c.new.is_empty()) {
                one_sided.push((first, std::mem::take(&mut c.name), c.new.is_empty()));
                continue;
            }
            kept.push((first, r));
        }
        for (first, gate, mut r) in super::gated_rows(kept, plan, &gate_opts) {
            let count_p = analyze::count_p(&r);
            let c = &mut r.comparison;
            let n = [c.old.len() as u32, c.new.len() as u32];
            let noted_row = RowNote::of(c, r.welch.err(), || r.improvement_pct).is_some();
            let name: Box<str> = if noted_row {
                c.name.as_str().into()
            } else {
                std::mem::take(&mut c.name).into_boxed_str()
            };
            rows.push(Compact {
                first,
                benchmark: c.benchmark,
                name,
                stars: r.stars,
                improvement_pct: r.improvement_pct,
                accuracy_pct: r.accuracy_pct,
                n,
                count_p,
                gate,
            });
            if noted_row {
                noted.push((first, r));
            }
        }
    }
    // Without a `--plot`, no partition is read again.
    if plan.plot.is_none() {
        parts.release();
    }
    {
        use rayon::slice::ParallelSliceMut;
        rows.par_sort_unstable_by_key(|r| r.first);
        noted.sort_unstable_by_key(|n| n.0);
        one_sided.sort_unstable_by_key(|n| n.0);
        if !analyze_layout {
            let coll = crate::compare::RootCollation::new();
            rows.par_sort_by(|a, b| coll.compare(&a.name, &b.name));
            noted.sort_by(|a, b| coll.compare(&a.1.comparison.name, &b.1.comparison.name));
        }
    }
    let listed = OneSided::of(one_sided.into_iter().map(|(_, name, old)| (name, old)));
    if let Some(w) = listed.without_failures(failures).warning() {
        out.warning(render::escape_control(&w));
    }
    if !analyze_layout {
        let word = failures.heading().to_ascii_lowercase();
        for l in failures.lines() {
            out.warning(format!("{word}: {}", render::escape_control(&l)));
        }
    }
    let counts = rows
        .iter()
        .map(|r| (&*r.name, r.n[0] as usize, r.n[1] as usize));
    out.0.extend(diagnostics::too_few(counts));
    let flagged: Vec<RowNote<'_>> = noted
        .iter()
        .filter_map(|(_, r)| RowNote::of(&r.comparison, r.welch.err(), || r.improvement_pct))
        .collect();
    row_notes(&flagged, plan.format, out);
    drop(flagged);
    drop(noted);
    let benchmarks = rows.iter().map(|r| r.benchmark).collect();
    let gated = rows.iter_mut().filter_map(|r| r.gate.take()).map(|g| *g);
    Ok(Evidence {
        rows: gated.collect(),
        pooled: Vec::new(),
        shows_control: false,
        benchmarks,
        kept: rows,
    })
}

/// Phase 2: writes `rows` in `plan`'s layout to the `-o` file or `stdout` (the analyze layout
/// with the failed jobs of `facts`). Returns what was written.
///
/// # Errors
/// Writing to `stdout` failed.
pub(super) fn write<'a>(
    rows: Vec<Compact>,
    _: (&[decide::Decided], &[BenchmarkId]),
    _: &mut dyn Partitions<'a>,
    _: MetricId,
    (plan, facts): (&Plan, &Facts<'_>),
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<std::io::Result<Written>> {
    let failures = facts.failures;
    let gate_opts = gate_options(plan);
    let rrow = |i: usize| {
        let r = &rows[i];
        render::compare_r::RRow {
            name: &r.name,
            stars: r.stars,
            improvement_pct: r.improvement_pct,
            accuracy_pct: r.accuracy_pct,
        }
    };
    let arow = |i: usize| {
        let r = &rows[i];
        analyze::ARow {
            name: &r.name,
            stars: r.stars,
            improvement_pct: r.improvement_pct,
            accuracy_pct: r.accuracy_pct,
            shown: r.n[0] >= 2 && r.n[1] >= 2,
            count_p: r.count_p,
        }
    };
    let max = plan.max_regression;
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        if plan.format == Format::Analyze {
            analyze::write_rows(rows.len(), arow, &gate_opts, failures, max, w)
        } else {
            let width = render::compare_r::R_PRINT_WIDTH;
            render::compare_r::write_rows(rows.len(), rrow, width, w)
        }
    };
    let code = super::write_output(plan.output.as_deref(), write, stdout, out)?;
    Ok(Written::of(code))
}
