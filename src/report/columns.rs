//! Reports of more than two sides as columns, as benchstat compares N files: the first side is
//! the baseline and every other side is a column compared with it.
//!
//! The sides come from more than two positional result files of formats that are one side
//! each, from a `--sides-by KEY` (Go, hyperfine) or a hyperfine export alone whose key has
//! more than two values (commands, or the parameter values of one command), or from `--sides-by KEY=A,B,C…`. Every input is read once, through the
//! inputs' reading path ([`read_inputs`], [`read_columns`]), and each column is a two-sided
//! view of the samples read (the baseline on [`Side::Old`], the column on [`Side::New`]),
//! checked as a two-side read is; every view is compared as a two-side report compares, and
//! the comparisons of all columns are corrected together (one Holm or Benjamini–Hochberg
//! family). The table, Markdown, JSON and benchstat views show them as columns
//! ([`crate::render::columns`], [`crate::render::benchstat::render_columns`]); the layouts of
//! two sides only (compare.R, compare.js, CSV, Go, HTML, `--plot`) are refused with a message
//! naming the option.
//!
//! [`Side::Old`]: crate::sample::Side::Old
//! [`Side::New`]: crate::sample::Side::New

use super::inputs::read_columns;
use super::{EXIT_FAILED, EXIT_USAGE, Format, InputPlan, Inputs, Messages, Plan, read_inputs};
use crate::compare::OneSided;
use crate::compare::failures::Failures;
use crate::format::InputFormat;
use crate::render;
use crate::sample::SampleSet;
use crate::verdict::decide::{self, Assessment};
use std::io::Write;

/// One column: its label and the two-sided view of the samples (baseline old, column new).
struct View {
    label: String,
    set: SampleSet,
}

/// Reports `inputs` as columns when they are more than two sides given up front (more than
/// two one-side result files, or `--sides-by KEY=A,B,C…`): returns the exit code, or `None`
/// when the report has two sides (or finds out only by reading, [`report_sides`]).
///
/// # Errors
/// Writing to `stdout` failed.
pub(crate) fn try_report(
    inputs: &InputPlan,
    plan: &Plan,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<Option<i32>> {
    let Some(columns) = columns_of(inputs) else {
        return Ok(None);
    };
    if let Err(e) = check_plan(plan) {
        out.error(e);
        return Ok(Some(EXIT_USAGE));
    }
    let one_side_ok = plan.format == Format::Benchstat;
    let reads = match columns {
        Given::Files(files) => once(out, |m| read_columns(files, inputs, one_side_ok, m)),
        Given::Values => read_inputs(inputs, one_side_ok, out).map(value_reads),
    };
    let Some(reads) = reads else {
        return Ok(Some(EXIT_USAGE));
    };
    report_reads(reads, &inputs.files, plan, stdout, out).map(Some)
}

/// Reports as columns the inputs whose reading `read` found more than two values of the
/// sides key ([`Inputs::side_values`], each column in [`Inputs::columns`]). Returns the exit
/// code.
///
/// # Errors
/// Writing to `stdout` failed.
pub(crate) fn report_sides(
    inputs: &InputPlan,
    read: Inputs,
    plan: &Plan,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<i32> {
    if let Err(e) = check_plan(plan) {
        out.error(e);
        return Ok(EXIT_USAGE);
    }
    report_reads(value_reads(read), &inputs.files, plan, stdout, out)
}

/// The columns of `read` (its [`Inputs::columns`]) as reads of their own, each headed by its
/// value of the sides key.
fn value_reads(read: Inputs) -> Vec<Inputs> {
    let Inputs {
        columns,
        side_values,
        bench,
        failures,
        run,
        input,
        format,
        ..
    } = read;
    (columns.into_iter().zip(side_values.into_iter().skip(1)))
        .map(|(set, v)| Inputs {
            set,
            bench: render::benchstat::Options {
                new_label: v,
                ..bench.clone()
            },
            failures: failures.clone(),
            run: run.clone(),
            input: input.clone(),
            format,
            side_values: Vec::new(),
            columns: Vec::new(),
        })
        .collect()
}

/// More than two sides given up front.
enum Given {
    /// More than two result files that are one side each, opened (the baseline first).
    Files(Vec<(String, crate::format::Input)>),
    /// `--sides-by KEY=A,B,C…`.
    Values,
}

/// The sides of `inputs` when it has more than two given up front; `None` otherwise.
fn columns_of(inputs: &InputPlan) -> Option<Given> {
    if let Some((_, values)) = inputs.sides_by.as_deref().and_then(|s| s.split_once('=')) {
        return (values.split(',').count() > 2).then_some(Given::Values);
    }
    let files = &inputs.files;
    if files.len() < 3 || !inputs.label.is_empty() || files.iter().any(|f| f == "-") {
        return None;
    }
    // Every file one side: formats that name each sample's side are pooled as before. Each
    // file is opened once, and read from what was opened.
    let one_side = |i: &crate::format::Input| {
        inputs
            .input_format
            .or_else(|| i.sniff())
            .is_some_and(|x| !(x.has_sides() || x == InputFormat::Go && inputs.sides_by.is_some()))
    };
    let opened = files
        .iter()
        .map(|f| {
            crate::format::Input::open(f)
                .ok()
                .filter(one_side)
                .map(|i| (f.clone(), i))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Given::Files(opened))
}

/// Why `plan` cannot be reported as columns, if it cannot: the layouts of two sides only.
fn check_plan(plan: &Plan) -> Result<(), String> {
    let option = match plan.format {
        Format::Table | Format::Markdown | Format::Json | Format::Benchstat => None,
        Format::R => Some("--format r (compare.R's layout)"),
        Format::Analyze => Some("--format analyze (compare.js --analyze's layout)"),
        Format::Csv => Some("--format csv (compare.js's CSV: an old and a new binary)"),
        Format::Go => Some("--format go"),
        Format::Html => Some("--format html"),
    };
    let option = option.or(plan.plot.as_ref().map(|_| "--plot (compare.R's box plot)"));
    match option {
        Some(o) => Err(format!(
            "{o}: shows two sides only, and these inputs have more than two (a baseline and \
             columns): use --format table, markdown, json or benchstat, or give two inputs"
        )),
        None => Ok(()),
    }
}

/// What `read` returns, its messages added to `out` but those `out` has already (a file
/// given twice as a column, the baseline read again with each column).
fn once<T>(out: &mut Messages, read: impl FnOnce(&mut Messages) -> T) -> T {
    let mut m = Messages::default();
    let read = read(&mut m);
    for x in m.take() {
        if !out.0.contains(&x) {
            out.0.push(x);
        }
    }
    read
}

/// Reports the views `reads` (one per column, the baseline old in each) of the input files
/// `files` by `plan`.
///
/// # Errors
/// Writing to `stdout` failed.
fn report_reads(
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
