//! Reports of more than two sides as columns, as benchstat compares N files: the first side is
//! the baseline and every other side is a column compared with it.
//!
//! The columns are read by the store ([`super::store`]), each a two-sided view of the
//! samples (the baseline old, the column new). Every view is compared as a two-side report
//! compares, and the comparisons of all columns are corrected together (one Holm or
//! Benjamini–Hochberg family). The table, Markdown, JSON and benchstat views show them as
//! columns ([`crate::render::columns`], [`crate::render::benchstat::render_columns`]); the
//! layouts of two sides only (compare.R, compare.js, CSV, Go, HTML, `--plot`) are refused by
//! the store with a message naming the option.

use super::{EXIT_FAILED, EXIT_USAGE, Format, Inputs, Messages, Plan};
use crate::compare::OneSided;
use crate::compare::failures::Failures;
use crate::render;
use crate::sample::SampleSet;
use crate::verdict::decide::{self, Assessment};
use std::io::Write;

/// One column: its label and the two-sided view of the samples (baseline old, column new).
struct View {
    label: String,
    set: SampleSet,
}

/// Reports the views `reads` (one per column, the baseline old in each) of the input files
/// `files` by `plan`.
///
/// # Errors
/// Writing to `stdout` failed.
pub(super) fn report(
    reads: Vec<Inputs>,
    files: &[String],
    plan: &Plan,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<i32> {
    let baseline = reads
        .first()
        .map(|r| r.bench.old_label.clone())
        .unwrap_or_default();
    let mut failures = Failures::default();
    let mut bench = None;
    let mut input = String::new();
    let mut format = None;
    let mut views = Vec::with_capacity(reads.len());
    for r in reads {
        if bench.is_none() {
            bench = Some(r.bench.clone());
            format = r.format;
            let names: Vec<String> = files.iter().map(|f| super::input_name(f)).collect();
            input = render::describe_input(format, &names);
        }
        failures.items.extend(r.failures.items);
        failures.unused.merge(&r.failures.unused);
        views.push(View {
            label: r.bench.new_label.clone(),
            set: r.set,
        });
    }
    let bench = bench.unwrap_or_default();
    let path = plan.output.as_deref();
    if plan.format == Format::Benchstat {
        let sets: Vec<&SampleSet> = views.iter().map(|v| &v.set).collect();
        let mut labels = vec![baseline];
        labels.extend(views.iter().map(|v| v.label.clone()));
        let mut text = render::benchstat::render_columns(&sets, &labels, &bench);
        text.push_str(&render::table::failures_section(&failures));
        return super::write_output(path, |w| w.write_all(text.as_bytes()), stdout, out);
    }
    let opts = super::options(plan);
    // Each view compared as a two-side report compares it; then one correction for all.
    let mut rows = Vec::new();
    let mut parts: Vec<(usize, OneSided)> = Vec::with_capacity(views.len());
    let mut metric = None;
    for v in &views {
        let present = |id| v.set.has_metric(id);
        let id = match super::choose_metric(&v.set, present, plan.metric.as_deref(), plan.format) {
            Ok(id) => id,
            Err(e) => {
                out.error(e);
                return Ok(EXIT_USAGE);
            }
        };
        metric.get_or_insert_with(|| v.set.metric(id).clone());
        let mut comps = crate::compare::group_metric(&v.set, id);
        crate::compare::sort_by_name(&mut comps);
        let (both, one) = crate::compare::split_one_sided(comps);
        let r = super::verdict_rows(both, plan.format, out);
        parts.push((r.len(), one.without_failures(&failures)));
        rows.extend(r);
    }
    let mut all = decide::assess(rows, &opts).into_iter();
    let assessed: Vec<Vec<Assessment>> = parts
        .iter()
        .map(|(n, _)| all.by_ref().take(*n).collect())
        .collect();
    let columns: Vec<render::columns::Column<'_>> = views
        .iter()
        .zip(&assessed)
        .zip(&parts)
        .map(|((v, a), (_, one))| render::columns::Column {
            label: &v.label,
            set: &v.set,
            assessments: a,
            one_sided: one,
        })
        .collect();
    let metric = metric.unwrap_or_else(|| SampleSet::new().metric(crate::sample::RATE).clone());
    let d = render::columns::Columns {
        baseline: &baseline,
        columns,
        metric: &metric,
        opts: &opts,
        input: Some(&input),
        failures: &failures,
        input_format: format,
    };
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        match plan.format {
            Format::Json => render::columns::write_json(&d, w),
            Format::Markdown => w.write_all(render::columns::markdown(&d).as_bytes()),
            _ => {
                let mut t = render::columns::table(&d);
                if plan.details {
                    for c in &d.columns {
                        t.push_str(&format!("\n{} vs {}:\n", c.label, d.baseline));
                        t.push_str(&render::table::details(c.assessments));
                    }
                }
                w.write_all(t.as_bytes())
            }
        }
    };
    let code = super::write_output(path, write, stdout, out)?;
    if code != 0 {
        return Ok(code);
    }
    match plan.max_regression {
        Some(max) => Ok(gate(&d, max, out)),
        None => Ok(0),
    }
}

/// The `--max-regression max` gate over every column of `d`: the failed jobs, and each
/// comparison of any column that regressed by more than `max` percent (its corrected p-value
/// from the one family of all columns), added to `out`. Returns [`EXIT_FAILED`] when either
/// exists, else 0.
fn gate(d: &render::columns::Columns<'_>, max: f64, out: &mut Messages) -> i32 {
    let opts = d.opts;
    if !d.failures.is_empty() {
        out.gate(format!(
            "FAIL: {}:",
            d.failures.summary().unwrap_or_default()
        ));
        for l in d.failures.lines() {
            out.gate(format!("  {}", render::escape_control(&l)));
        }
    }
    let family: usize = d.columns.iter().map(|c| c.assessments.len()).sum();
    let failing: Vec<(&str, &Assessment)> = d
        .columns
        .iter()
        .flat_map(|c| {
            decide::regressions(c.assessments, max, opts.alpha)
                .into_iter()
                .map(move |a| (c.label, a))
        })
        .collect();
    if failing.is_empty() {
        return if d.failures.is_empty() {
            0
        } else {
            EXIT_FAILED
        };
    }
    out.gate(format!(
        "FAIL: {} comparison(s) regressed by more than {max}% (interval excludes the \
         threshold, {} corrected across {family} comparisons of {} columns):",
        failing.len(),
        opts.correction.label(),
        d.columns.len()
    ));
    for (label, f) in failing {
        let (lo, hi) = f.change_ci_pct.unwrap_or((f64::NAN, f64::NAN));
        let (end, bound) = match f.row.comparison.better {
            crate::sample::Better::Higher => ("up to", hi),
            crate::sample::Better::Lower => ("from", lo),
        };
        out.gate(format!(
            "  {}  {} vs {}: {} (95% CI {end} {}, adjusted p={:.2e})",
            render::escape_control(f.row.comparison.name.trim_end()),
            render::escape_control(label),
            render::escape_control(d.baseline),
            render::table::signed_pct(f.change_pct),
            render::table::signed_pct(bound),
            f.p_adjusted
        ));
    }
    EXIT_FAILED
}
