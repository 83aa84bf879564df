//! `--format markdown`: a pull-request comment (GitHub-flavoured Markdown).
//!
//! Layout: a one-line summary (verdict counts and the rules used), the table of changed rows
//! (faster / slower) first, the other rows in a collapsible `<details>` block, notes for rows
//! whose samples fall into several regimes or drift against run order, and the run facts
//! (binaries, runs, order, seed). Every string from the input is escaped, so a benchmark name
//! cannot break the table or inject HTML.

use super::table::{p_cell, si, signed_pct, verdict_cell};
use super::{ReportData, RunInfo};
use crate::verdict::decide::{Assessment, Method, Verdict};
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

/// The one-line summary: counts per verdict, comparisons, correction, α and threshold.
pub fn summary(d: &ReportData<'_>) -> String {
    let a = d.assessments;
    let count = |f: fn(&Verdict) -> bool| a.iter().filter(|x| f(&x.verdict)).count();
    let failed = d
        .failures
        .summary()
        .map_or_else(String::new, |s| format!("; **FAILED: {}**", escape(&s)));
    format!(
        "**benchdiff**: {} faster, {} slower, {} no change, {} inconclusive of {} comparison{} \
         ({} correction, α = {}, threshold ±{}%){failed}",
        count(|v| matches!(v, Verdict::Faster)),
        count(|v| matches!(v, Verdict::Slower)),
        count(|v| matches!(v, Verdict::NoChange)),
        count(|v| matches!(v, Verdict::Inconclusive { .. })),
        a.len(),
        if a.len() == 1 { "" } else { "s" },
        d.opts.correction.label(),
        d.opts.alpha,
        d.opts.threshold_pct
    )
}

/// The failures block at the top of the comment (empty when nothing failed): a bold warning
/// with the counts and one list item per failure, so a PR comment never hides one.
pub fn failures(f: &crate::compare::failures::Failures) -> String {
    let Some(sum) = f.summary() else {
        return String::new();
    };
    let mut out = format!(
        "> [!WARNING]\n> **FAILED: {}** — these were not compared, so the result is incomplete.\n>\n",
        escape(&sum)
    );
    for l in f.lines() {
        let _ = writeln!(out, "> - {}", escape(&l));
    }
    out.push('\n');
    out
}

fn table(rows: &[&Assessment], d: &ReportData<'_>) -> String {
    let mut out = format!(
        "| benchmark | change | 95% CI | p ({}) | verdict | runs | flags |\n\
         |:--|--:|--:|--:|:--|--:|:--|\n",
        d.opts.correction.label()
    );
    // Rows in parallel, 512 at a time, joined in order (a million-row report has 20,000).
    use rayon::prelude::*;
    let chunks: Vec<String> = rows
        .par_chunks(512)
        .map(|chunk| {
            let mut text = String::with_capacity(chunk.len() * 160);
            for x in chunk {
                row(&mut text, x);
            }
            text
        })
        .collect();
    for c in &chunks {
        out.push_str(c);
    }
    out
}

/// Appends the Markdown table row of `x` (with its newline) to `out`.
fn row(out: &mut String, x: &Assessment) {
    let ci = match x.change_ci_pct {
        Some((lo, hi)) => format!("{} … {}", signed_pct(lo), signed_pct(hi)),
        None => "NA".to_owned(),
    };
    let verdict = match x.verdict {
        Verdict::Faster | Verdict::Slower => format!("**{}**", verdict_cell(x)),
        _ => verdict_cell(x),
    };
    let c = &x.row.comparison;
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} | {}/{}{} | {} |",
        escape(&c.name),
        signed_pct(x.change_pct),
        ci,
        p_cell(x, x.p_adjusted),
        verdict,
        c.old.len(),
        c.new.len(),
        if x.method == Method::Paired {
            " paired"
        } else {
            ""
        },
        escape(&super::table::flags(x)),
    );
}

/// Notes for multimodal and drifting sides, one Markdown list item each (empty when none).
pub fn notes(a: &[Assessment]) -> String {
    let mut out = String::new();
    for x in a {
        let name = escape(x.row.comparison.name.trim_end());
        for (side, s) in [("old", &x.old_side), ("new", &x.new_side)] {
            if let Some(m) = &s.multimodal {
                let modes: Vec<String> = m
                    .modes
                    .iter()
                    .map(|md| format!("{} ({:.0}% of runs)", si(md.centre), md.share * 100.0))
                    .collect();
                let _ = writeln!(
                    out,
                    "- {name}: the {side} binary's samples fall into {} regimes: {} ({}); the \
                     difference of means is not a reliable verdict.",
                    m.modes.len(),
                    modes.join(", "),
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
        if let Some(t) = super::table::regime_change_text(x) {
            let _ = writeln!(out, "- {name}: {}.", escape(&t));
        }
        if let Some(t) = super::table::combined_text(x) {
            let _ = writeln!(out, "- {name}: {}.", escape(&t));
        }
        for (side, v) in [
            ("old", &x.row.comparison.old),
            ("new", &x.row.comparison.new),
        ] {
            if let Some(t) = super::table::too_few_regimes_text(side, v) {
                let _ = writeln!(out, "- {name}: {}.", escape(&t));
            }
        }
    }
    out
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

/// Renders the pull-request comment.
pub fn render(d: &ReportData<'_>) -> String {
    let (changed, rest): (Vec<&Assessment>, Vec<&Assessment>) = d
        .assessments
        .iter()
        .partition(|x| matches!(x.verdict, Verdict::Faster | Verdict::Slower));
    let mut out = summary(d);
    out.push_str("\n\n");
    out.push_str(&failures(d.failures));
    if let Some(g) = crate::verdict::decide::geomean(d.assessments) {
        let _ = writeln!(
            out,
            "Geometric mean of the changes over the {} benchmarks on both sides: {}\n",
            match g {
                crate::verdict::decide::Geomean::Defined { n, .. }
                | crate::verdict::decide::Geomean::Undefined { n, .. } => n,
            },
            g.change_pct().map_or_else(
                || "n/a (see the notes)".to_owned(),
                |c| format!("**{}**", signed_pct(c))
            )
        );
    }
    if changed.is_empty() && !d.failures.is_empty() {
        out.push_str(
            "No compared benchmark changed significantly; the failed benchmarks above were not \
             compared.\n\n",
        );
    } else if changed.is_empty() {
        out.push_str("No benchmark changed significantly.\n\n");
    } else {
        out.push_str(&table(&changed, d));
        out.push('\n');
    }
    if !rest.is_empty() {
        let _ = write!(
            out,
            "<details>\n<summary>{} comparison{} with no change or inconclusive</summary>\n\n{}\n\
             </details>\n\n",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" },
            table(&rest, d)
        );
    }
    let mut n = notes(d.assessments);
    if let Some(t) = super::table::too_few_note(d.assessments) {
        let _ = writeln!(n, "- {}.", escape(&t));
    }
    for line in super::table::report_notes(d.assessments, d.one_sided).lines() {
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
    if !n.is_empty() {
        out.push_str("**Notes**\n\n");
        out.push_str(&n);
        out.push('\n');
    }
    out.push_str("**Run**\n\n");
    for (k, v) in run_facts(d.run, d.input) {
        let _ = writeln!(out, "- {k}: {}", escape(&v));
    }
    out
}
