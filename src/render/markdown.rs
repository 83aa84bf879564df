//! `--format markdown`: a pull-request comment (GitHub-flavoured Markdown).
//!
//! Layout: a one-line summary (verdict counts and the rules used), the table of changed rows
//! (faster / slower) first, the other rows in a collapsible `<details>` block, notes for rows
//! whose samples fall into several regimes or drift against run order, and the run facts
//! (binaries, runs, order, seed). Every string from the input is escaped, so a benchmark name
//! cannot break the table or inject HTML.

use super::RunInfo;
use super::table::{TableRow, p_cell, signed_pct, verdict_cell};
use crate::compare::OneSided;
use crate::compare::failures::Failures;
use crate::verdict::decide::{self, Assessment, Options, Verdict};
use std::fmt::Write as _;

/// Escapes text for a GFM table cell or paragraph: HTML-significant characters become
/// entities, Markdown punctuation is backslash-escaped, `|` cannot end the cell, and line
/// breaks become spaces.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            c if super::escape_control(c.encode_utf8(&mut [0; 4])).len() > 1 => {
                out.push_str(&super::escape_control(c.encode_utf8(&mut [0; 4])));
            }
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' | '!' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// The one-line summary of the comparisons with the verdicts `verdicts`: counts per verdict,
/// comparisons, correction, α and threshold, and the failures `f`.
fn summary_line(verdicts: impl Iterator<Item = Verdict>, opts: &Options, f: &Failures) -> String {
    let count = super::table::verdict_counts(verdicts);
    let failed = f.summary().map_or_else(String::new, |s| {
        format!("; **{}: {}**", f.heading(), escape(&s))
    });
    format!(
        "**benchdiff**: {} faster, {} slower, {} no change, {} inconclusive of {} comparison{} \
         ({} correction, α = {}, threshold ±{}%){failed}",
        count[1],
        count[2],
        count[3],
        count[4],
        count[0],
        if count[0] == 1 { "" } else { "s" },
        opts.correction.label(),
        opts.alpha,
        opts.threshold_pct
    )
}

/// The failures block at the top of the comment (empty when nothing failed): a bold warning
/// with the counts and one list item per failure, so a PR comment never hides one.
pub fn failures(f: &crate::compare::failures::Failures) -> String {
    let Some(sum) = f.summary() else {
        return String::new();
    };
    let mut out = format!(
        "> [!WARNING]\n> **{}: {}** — {}, so the result is incomplete.\n>\n",
        f.heading(),
        escape(&sum),
        if f.interrupted() {
            "the run was stopped and these were compared on the jobs that finished"
        } else {
            "these were not compared"
        }
    );
    for l in f.lines() {
        let _ = writeln!(out, "> - {}", escape(&l));
    }
    out.push('\n');
    out
}

/// Writes the table of `rows` under the correction `c` to `out`, a few thousand rows at a
/// time (formatted 512 at a time, joined in order: a large report has half a million rows).
fn write_table(
    rows: &[&TableRow<'_>],
    c: decide::Correction,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write!(
        out,
        "| benchmark | change | 95% CI | p ({}) | verdict | runs | flags |\n\
         |:--|--:|--:|--:|:--|--:|:--|\n",
        c.label()
    )?;
    for batch in rows.chunks(512 * 32) {
        let chunks: Vec<String> = batch
            .chunks(512)
            .map(|chunk| {
                let mut text = String::with_capacity(chunk.len() * 160);
                for x in chunk {
                    row(&mut text, x);
                }
                text
            })
            .collect();
        for c in &chunks {
            out.write_all(c.as_bytes())?;
        }
    }
    Ok(())
}

/// Appends the Markdown table row of `x` (with its newline) to `out`.
fn row(out: &mut String, x: &TableRow<'_>) {
    let ci = match x.estimate.change_ci_pct {
        Some((lo, hi)) => format!("{} … {}", signed_pct(lo), signed_pct(hi)),
        None => "NA".to_owned(),
    };
    let verdict = match x.verdict {
        Verdict::Faster | Verdict::Slower => {
            format!("**{}**", verdict_cell(x.verdict, x.regimes))
        }
        _ => verdict_cell(x.verdict, x.regimes),
    };
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} | {}/{}{} | {} |",
        escape(&x.name),
        signed_pct(x.estimate.change_pct),
        ci,
        p_cell(x.exact, x.p_adjusted),
        verdict,
        x.estimate.n[0],
        x.estimate.n[1],
        if x.paired { " paired" } else { "" },
        escape(&x.flags),
    );
}

/// Notes for multimodal and drifting sides, one Markdown list item each (empty when none).
pub fn notes(a: &[Assessment]) -> String {
    let mut out = String::new();
    for x in a {
        comparison_notes(x, &mut out);
    }
    out
}

/// The notes of [`notes`] on one comparison, appended to `out` (its [`TableRow::notes`] in a
/// comment, [`TableRow::with_notes`]).
pub fn comparison_notes(x: &Assessment, out: &mut String) {
    let name = escape(x.row.comparison.name.trim_end());
    for (side, s) in [("old", &x.old_side), ("new", &x.new_side)] {
        if let Some(m) = &s.multimodal {
            let _ = writeln!(
                out,
                "- {name}: the {side} binary's samples fall into {} regimes: {} ({}); the \
                 difference of means is not a reliable verdict.",
                m.modes.len(),
                super::table::modes_text(m, ""),
                super::table::evidence(m)
            );
        }
        if let Some(dr) = s.significant_drift() {
            let _ = writeln!(
                out,
                "- {name}: the {side} binary's rate drifts {:+.2}% per run against run order \
                 (Kendall τ {:.2}, p={:.4}).",
                dr.slope_pct_per_run, dr.tau, dr.p_value
            );
        }
    }
    let texts = [
        super::table::regime_change_text(x),
        super::table::combined_text(x),
    ];
    let few = [("old", &x.old_side), ("new", &x.new_side)]
        .map(|(side, s)| super::table::too_few_regimes_text(side, s));
    for t in texts.into_iter().chain(few).flatten() {
        let _ = writeln!(out, "- {name}: {}.", escape(&t));
    }
}

/// The run facts as `(label, value)` pairs, for Markdown and HTML. Without run metadata
/// (samples read from compare.js CSV or other result files) one pair says so.
/// `input` says what a result file recorded ([`super::describe_input`]).
pub fn run_facts(run: Option<&RunInfo>, input: Option<&str>) -> Vec<(&'static str, String)> {
    let Some(r) = run else {
        return vec![(
            "samples",
            input.map_or_else(
                || {
                    "read from result files (binaries, order and seed not recorded there)"
                        .to_owned()
                },
                |i| format!("read from {i}"),
            ),
        )];
    };
    let bin = |given: &str, path: &str| {
        if given == path {
            given.to_owned()
        } else {
            format!("{given} ({path})")
        }
    };
    let mut f = vec![
        ("old", bin(&r.old, &r.old_path)),
        ("new", bin(&r.new, &r.new_path)),
        (
            "runs",
            format!(
                "{} per binary, {} file{}",
                r.runs,
                r.files,
                if r.files == 1 { "" } else { "s" }
            ),
        ),
        (
            "order",
            match r.seed {
                Some(s) => format!("{}, seed {s}", r.order),
                None => r.order.clone(),
            },
        ),
    ];
    if !r.set.is_empty() {
        f.push(("set", r.set.join(" ")));
    }
    if let Some(c) = &r.cpus {
        f.push(("cpus", c.clone()));
    }
    f.push(("tool", format!("benchdiff {}", env!("CARGO_PKG_VERSION"))));
    f
}

/// What a comment says besides its rows: the benchmarks on one side only, the verdict
/// options, the failures, the run facts and the input ([`ReportData`]).
pub struct Comment<'a> {
    /// Benchmarks measured on one side only.
    pub one_sided: &'a OneSided,
    /// The verdict options (correction, α, threshold).
    pub opts: &'a Options,
    /// Failed jobs.
    pub failures: &'a Failures,
    /// Run facts of a command that measured the samples itself.
    pub run: Option<&'a RunInfo>,
    /// What the input files recorded ([`super::describe_input`]).
    pub input: Option<&'a str>,
}

/// Writes the comment of `rows` (in report order, decided, their notes those of
/// [`comparison_notes`]) to `out`: [`render`] of the assessments they were built from, byte
/// for byte, with the tables written a few thousand rows at a time.
///
/// # Errors
/// Writing to `out` failed.
pub fn write_rows(
    rows: &[TableRow<'_>],
    c: &Comment<'_>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let (changed, rest): (Vec<&TableRow<'_>>, Vec<&TableRow<'_>>) = rows
        .iter()
        .partition(|x| matches!(x.verdict, Verdict::Faster | Verdict::Slower));
    out.write_all(summary_line(rows.iter().map(|x| x.verdict), c.opts, c.failures).as_bytes())?;
    out.write_all(b"\n\n")?;
    out.write_all(failures(c.failures).as_bytes())?;
    if let Some(g) = decide::geomean(rows.iter().map(|x| x.log_ratio)) {
        writeln!(
            out,
            "Geometric mean of the changes over the {} benchmarks on both sides: {}\n",
            match g {
                decide::Geomean::Defined { n, .. } | decide::Geomean::Undefined { n, .. } => n,
            },
            g.change_pct().map_or_else(
                || "n/a (see the notes)".to_owned(),
                |c| format!("**{}**", signed_pct(c))
            )
        )?;
    }
    if changed.is_empty() && !c.failures.is_empty() {
        out.write_all(
            b"No compared benchmark changed significantly; the failed benchmarks above were not \
              compared.\n\n",
        )?;
    } else if changed.is_empty() {
        out.write_all(b"No benchmark changed significantly.\n\n")?;
    } else {
        write_table(&changed, c.opts.correction, out)?;
        out.write_all(b"\n")?;
    }
    if !rest.is_empty() {
        write!(
            out,
            "<details>\n<summary>{} comparison{} with no change or inconclusive</summary>\n\n",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" },
        )?;
        write_table(&rest, c.opts.correction, out)?;
        out.write_all(b"\n</details>\n\n")?;
    }
    let mut n = String::new();
    if let Some(t) = super::table::too_few_note(rows) {
        let _ = writeln!(n, "- {}.", escape(&t));
    }
    let report_notes = super::table::report_notes(
        rows.iter().any(|x| x.unpaired_input),
        c.one_sided,
        decide::geomean(rows.iter().map(|x| x.log_ratio)),
    );
    for line in report_notes.lines() {
        let text = line
            .strip_prefix("note: ")
            .or_else(|| line.strip_prefix("warning: "))
            .unwrap_or(line);
        let bold = if line.starts_with("warning: ") {
            "**warning**: "
        } else {
            ""
        };
        let _ = writeln!(n, "- {bold}{}.", escape(text));
    }
    if !n.is_empty() || rows.iter().any(|x| !x.notes.is_empty()) {
        out.write_all(b"**Notes**\n\n")?;
        for x in rows {
            out.write_all(x.notes.as_bytes())?;
        }
        out.write_all(n.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.write_all(b"**Run**\n\n")?;
    for (k, v) in run_facts(c.run, c.input) {
        writeln!(out, "- {k}: {}", escape(&v))?;
    }
    Ok(())
}
