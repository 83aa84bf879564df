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

use super::{EXIT_USAGE, Format, Inputs, Messages, Plan};
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
    let mut all = decide::estimate_each(rows, &opts);
    let rules = decide::Rules {
        settled: &[],
        max_regression: plan.max_regression,
    };
    // Per failing comparison: its column and its index there.
    let mut failing = decide::decide(&mut all, &opts, rules)
        .into_iter()
        .peekable();
    let mut at = Vec::new();
    let mut start = 0;
    for (k, (n, _)) in parts.iter().enumerate() {
        while let Some(i) = failing.next_if(|&i| i < start + n) {
            at.push((k, i - start));
        }
        start += n;
    }
    let mut all = all.into_iter();
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
    let Some(max) = plan.max_regression else {
        return Ok(0);
    };
    let named: Vec<(String, &Assessment)> = (at.iter())
        .map(|&(k, j)| {
            let (c, f) = (&d.columns[k], &d.columns[k].assessments[j]);
            let name = render::escape_control(f.row.comparison.name.trim_end());
            let vs = (
                render::escape_control(c.label),
                render::escape_control(d.baseline),
            );
            (format!("{name}  {} vs {}: ", vs.0, vs.1), f)
        })
        .collect();
    let family = format!("{} comparisons of {} columns", start, d.columns.len());
    let noun_family = ("comparison(s)", family.as_str());
    Ok(super::gate(&named, noun_family, max, &opts, &failures, out))
}
