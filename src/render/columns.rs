//! Reports of more than two sides as columns ([`crate::report`] compares every column with
//! the baseline, all comparisons corrected together): the default table, the Markdown comment
//! and the JSON document.
//!
//! A row per benchmark (every benchmark of any column, in report order), a column per compared
//! side: its change against the baseline with the 95% interval and the verdict (`, 2 regimes`
//! when a side's samples fall into two regimes), a geomean row when there are several rows.
//! Below the table: one summary line per column, the correction's family (every comparison of
//! every column), then each column's notes under its label.

use super::markdown::escape;
use super::table::{
    TableRow, ci_text, report_notes, signed_pct, summary_line, verdict_cell, verdict_counts,
};
use crate::compare::OneSided;
use crate::compare::failures::Failures;
use crate::sample::{Better, Metric, SampleSet};
use crate::verdict::decide::{self, Assessment, Options};
use std::fmt::Write as _;

/// One column: the comparisons of one side with the baseline.
#[derive(Clone, Copy, Debug)]
pub struct Column<'a> {
    /// The column's label (its file name as given, or its value of the sides key).
    pub label: &'a str,
    /// The samples of the baseline (old) and this column (new).
    pub set: &'a SampleSet,
    /// Its assessments in report order, corrected with every other column's.
    pub assessments: &'a [Assessment],
    /// Benchmarks of the baseline only or of this column only.
    pub one_sided: &'a OneSided,
}

/// What a columns report shows.
#[derive(Clone, Debug)]
pub struct Columns<'a> {
    /// The baseline's label.
    pub baseline: &'a str,
    /// The compared columns, in input order.
    pub columns: Vec<Column<'a>>,
    /// The metric compared.
    pub metric: &'a Metric,
    /// The verdict rules (the correction is across every comparison of every column).
    pub opts: &'a Options,
    /// What the inputs recorded ([`super::describe_input`]).
    pub input: Option<&'a str>,
    /// Jobs that failed.
    pub failures: &'a Failures,
    /// The format of the inputs ([`super::table::single_hint_for`]).
    pub input_format: Option<crate::format::InputFormat>,
}

impl Columns<'_> {
    /// Every comparison's count: the correction's family.
    fn family(&self) -> usize {
        self.columns.iter().map(|c| c.assessments.len()).sum()
    }

    /// The row names, in report order: the first column's, then any other column's that it
    /// lacks, the whole sorted as the report sorts its rows.
    fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for c in &self.columns {
            for a in c.assessments {
                if seen.insert(a.row.comparison.name.as_str()) {
                    names.push(&a.row.comparison.name);
                }
            }
        }
        let coll = crate::compare::RootCollation::new();
        names.sort_by(|a, b| coll.compare(a, b));
        names
    }

    /// Each column's rows as the table renders them, by row name.
    fn rows(&self) -> Vec<std::collections::HashMap<&str, TableRow<'_>>> {
        self.columns
            .iter()
            .map(|c| {
                c.assessments
                    .iter()
                    .map(|a| (a.row.comparison.name.as_str(), TableRow::of(a)))
                    .collect()
            })
            .collect()
    }

    /// The line naming the baseline, the columns and the correction's family.
    fn heading(&self) -> String {
        format!(
            "baseline: {}; {} column{} compared with it, {} correction across all {} \
             comparisons",
            super::escape_control(self.baseline),
            self.columns.len(),
            if self.columns.len() == 1 { "" } else { "s" },
            self.opts.correction.label(),
            self.family()
        )
    }
}

/// A comparison's cell: change, 95% interval and verdict.
fn cell(x: &TableRow<'_>) -> String {
    format!(
        "{} {} {}",
        signed_pct(x.estimate.change_pct),
        ci_text(x.estimate.change_ci_pct),
        verdict_cell(x.verdict, x.regimes)
    )
}

/// The line of the metric when it is not Node's rate (as the two-side table prints it).
fn metric_line(m: &Metric) -> String {
    if m.name == "rate" {
        return String::new();
    }
    format!(
        "metric: {} ({}), {}\n\n",
        m.name,
        if m.unit.is_empty() { "count" } else { &m.unit },
        match m.better {
            Better::Lower => "lower is better: a negative change is an improvement (\"faster\")",
            Better::Higher => "higher is better",
        }
    )
}

/// The cells of the table: the header, a line per row, the geomean line.
fn grid(d: &Columns<'_>, name: &dyn Fn(&str) -> String) -> Vec<Vec<String>> {
    let rows = d.rows();
    let mut grid = Vec::new();
    let mut header = vec!["benchmark".to_owned()];
    header.extend(d.columns.iter().map(|c| name(c.label)));
    grid.push(header);
    let names = d.names();
    for n in &names {
        let mut line = vec![name(n.trim_end())];
        line.extend(
            rows.iter()
                .map(|r| r.get(n).map_or_else(|| "-".to_owned(), cell)),
        );
        grid.push(line);
    }
    if names.len() > 1 {
        let mut line = vec!["geomean".to_owned()];
        for c in &d.columns {
            let g = decide::geomean(c.assessments.iter().map(decide::log_ratio));
            line.push(g.map_or_else(String::new, |g| {
                g.change_pct().map_or_else(|| "n/a".to_owned(), signed_pct)
            }));
        }
        grid.push(line);
    }
    grid
}

/// The default table of the columns report `d` (see the module doc).
pub fn table(d: &Columns<'_>) -> String {
    let esc = |s: &str| super::escape_control(s).into_owned();
    let grid = grid(d, &esc);
    let cols = grid[0].len();
    let widths: Vec<usize> = (0..cols)
        .map(|j| grid.iter().map(|r| width(&r[j])).max().unwrap_or(0))
        .collect();
    let mut out = metric_line(d.metric);
    out.push_str(&d.heading());
    out.push_str("\n\n");
    let total = widths.iter().sum::<usize>() + 2 * (cols - 1);
    for (i, r) in grid.iter().enumerate() {
        let mut line = String::new();
        for (j, c) in r.iter().enumerate() {
            if j > 0 {
                line.push_str("  ");
            }
            line.push_str(c);
            line.push_str(&" ".repeat(widths[j] - width(c)));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&"─".repeat(total));
            out.push('\n');
        }
    }
    out.push_str(&"─".repeat(total));
    out.push_str("\n\n");
    for c in &d.columns {
        let s = summary_line(c.assessments.iter().map(|a| a.verdict), d.opts, d.failures);
        let _ = writeln!(out, "{}: {s}", esc(c.label));
    }
    let notes = column_notes(d, &|a, out| super::table::comparison_notes(a, out));
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes);
    }
    out.push_str(&super::table::failures_section(d.failures));
    out
}

/// Each column's notes (its comparisons' own by `notes`, the single-sample and too-few notes,
/// the report notes of its comparisons) under a line naming it; empty when no column has any.
fn column_notes(d: &Columns<'_>, notes: &dyn Fn(&Assessment, &mut String)) -> String {
    let mut out = String::new();
    for c in &d.columns {
        let mut text = String::new();
        let rows: Vec<TableRow<'_>> = c
            .assessments
            .iter()
            .map(|a| {
                let mut r = TableRow::of(a);
                if let Some(f) = d.input_format {
                    r.single_hint = super::table::single_hint_for(f);
                }
                let mut own = String::new();
                notes(a, &mut own);
                r.notes = own.into_boxed_str();
                r
            })
            .collect();
        text.push_str(&super::table::notes(&rows));
        text.push_str(&report_notes(
            rows.iter().any(|x| x.unpaired_input),
            c.one_sided,
            None,
        ));
        if text.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "{} vs {}:",
            super::escape_control(c.label),
            super::escape_control(d.baseline)
        );
        for l in text.lines() {
            let _ = writeln!(out, "  {l}");
        }
    }
    out
}

/// Each column's notes in Markdown: a line naming it, then its comparisons' own notes
/// ([`super::markdown::comparison_notes`]) and the report's notes on it, one list item each.
fn markdown_notes(d: &Columns<'_>) -> String {
    let mut out = String::new();
    for c in &d.columns {
        let mut items = String::new();
        for a in c.assessments {
            super::markdown::comparison_notes(a, &mut items);
        }
        let rows: Vec<TableRow<'_>> = c
            .assessments
            .iter()
            .map(|a| {
                let mut r = TableRow::of(a);
                r.notes = "".into();
                if let Some(f) = d.input_format {
                    r.single_hint = super::table::single_hint_for(f);
                }
                r
            })
            .collect();
        let mut text = super::table::notes(&rows);
        text.push_str(&report_notes(
            rows.iter().any(|x| x.unpaired_input),
            c.one_sided,
            None,
        ));
        for l in text.lines() {
            let _ = writeln!(items, "- {}", escape(l));
        }
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "**{} vs {}**\n\n{items}",
            escape(c.label),
            escape(d.baseline)
        );
    }
    out
}

/// The Markdown comment of the columns report `d`: a summary line, the table, the notes in a
/// `<details>` block, and what the inputs recorded.
pub fn markdown(d: &Columns<'_>) -> String {
    let code = |s: &str| format!("`{}`", s.replace('`', "'"));
    let grid = grid(d, &|s| escape(s));
    let counts = verdict_counts(
        d.columns
            .iter()
            .flat_map(|c| c.assessments.iter().map(|a| a.verdict)),
    );
    let mut out = format!(
        "**benchdiff**: {} column{} against the baseline {}: {} comparisons, {} faster, {} \
         slower, {} no change, {} inconclusive ({} correction across all, alpha {}, threshold \
         ±{}%)\n\n",
        d.columns.len(),
        if d.columns.len() == 1 { "" } else { "s" },
        code(d.baseline),
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        counts[4],
        d.opts.correction.label(),
        d.opts.alpha,
        d.opts.threshold_pct
    );
    let m = d.metric;
    if m.name != "rate" {
        let _ = writeln!(out, "{}\n", escape(metric_line(m).trim_end()));
    }
    for (i, r) in grid.iter().enumerate() {
        let _ = writeln!(out, "| {} |", r.join(" | "));
        if i == 0 {
            let mut rule = vec!["---"];
            rule.extend(std::iter::repeat_n("--:", r.len() - 1));
            let _ = writeln!(out, "| {} |", rule.join(" | "));
        }
    }
    let notes = markdown_notes(d);
    if !notes.is_empty() {
        out.push_str("\n<details><summary>Notes</summary>\n\n");
        out.push_str(&notes);
        out.push_str("</details>\n");
    }
    let failures = super::markdown::failures(d.failures);
    if !failures.is_empty() {
        out.push('\n');
        out.push_str(&failures);
    }
    if let Some(i) = d.input {
        let _ = write!(out, "\n<sub>samples: read from {}</sub>\n", escape(i));
    }
    out
}

/// Writes the JSON document of the columns report `d`: the two-side document's layout
/// (schema/report.schema.json) with every column's comparisons in `comparisons`, each naming
/// its `column`; `baseline` and `columns` (label, counts and geomean of each) added; the
/// summary counts every comparison.
///
/// # Errors
/// Returns the error of writing to `out`.
pub fn write_json(d: &Columns<'_>, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use serde_json::json;
    let mut one_sided = OneSided::default();
    for c in &d.columns {
        for (all, these) in [
            (&mut one_sided.only_old, &c.one_sided.only_old),
            (&mut one_sided.only_new, &c.one_sided.only_new),
        ] {
            for n in these {
                if !all.contains(n) {
                    all.push(n.clone());
                }
            }
        }
    }
    let columns = d
        .columns
        .iter()
        .map(|c| {
            let [n, faster, slower, no_change, inconclusive] =
                verdict_counts(c.assessments.iter().map(|a| a.verdict));
            let g = decide::geomean(c.assessments.iter().map(decide::log_ratio));
            json!({
                "label": c.label,
                "comparisons": n,
                "faster": faster,
                "slower": slower,
                "no_change": no_change,
                "inconclusive": inconclusive,
                "geomean_change_pct": g.and_then(|g| g.change_pct()).filter(|x| x.is_finite()),
                "only_baseline": c.one_sided.only_old,
                "only_column": c.one_sided.only_new,
            })
        })
        .collect();
    let rest = super::json::Rest {
        opts: d.opts,
        run: None,
        counts: verdict_counts(
            d.columns
                .iter()
                .flat_map(|c| c.assessments.iter().map(|a| a.verdict)),
        ),
        geomean: None,
        failures: d.failures,
        one_sided: &one_sided,
        notes: "",
        control: None,
        metrics: None,
        columns: Some((d.baseline, serde_json::Value::Array(columns))),
    };
    let alpha = d.opts.alpha;
    let comparisons = || {
        d.columns.iter().flat_map(move |c| {
            (c.assessments.iter())
                .map(move |a| Ok(super::json::Comparison::new(c.set, a, alpha).in_column(c.label)))
        })
    };
    super::json::write_document(&rest, comparisons, out)
}

fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}
