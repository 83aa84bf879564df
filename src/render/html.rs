//! `--format html`: one self-contained page (inline CSS and inline SVG, no script, no network
//! access, no external resource) with the summary table, the run facts and, per comparison, a
//! box plot with every sample as a point, the density of each binary (two regimes show as two
//! humps) and the value against run order (drift). Every string from the input is escaped with
//! [`escape`], so a benchmark named `<script>` stays text.

use super::markdown::run_facts;
use super::table::{flags, notes, p_cell, signed_pct, verdict_cell};
use super::{ReportData, plot};
use crate::verdict::decide::{Assessment, Method, Verdict};
use std::fmt::Write as _;

/// Size of each per-comparison plot, pixels.
pub const PLOT_SIZE: (u32, u32) = (380, 270);

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "\
.failures{border:2px solid #c00;padding:0 1em;margin:1em 0;background:#fff4f4}\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5rem;color:#222;max-width:1250px}\
h1{font-size:1.4rem}h2{font-size:1.2rem;margin-top:2rem}h3{font-size:1rem;margin:0 0 .3rem;word-break:break-all}\
table{border-collapse:collapse;font-size:.85rem}th,td{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.faster{color:#1a7f37;font-weight:600}.slower{color:#cf222e;font-weight:600}.inconclusive{color:#9a6700}\
section.comparison{border-top:1px solid #ccc;padding:.8rem 0}\
.plots{display:flex;flex-wrap:wrap;gap:.5rem}figure{margin:0}\
.note{background:#fff8c5;padding:.3rem .5rem;font-size:.85rem;white-space:pre-wrap}\
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem;font-size:.9rem}dt{font-weight:600}dd{margin:0}\
.legend-old{color:#00a3a8;font-weight:600}.legend-new{color:#e0564d;font-weight:600}";

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::NoChange => "nochange",
        Verdict::Inconclusive { .. } => "inconclusive",
    }
}

fn ci_text(x: &Assessment) -> String {
    match x.change_ci_pct {
        Some((lo, hi)) => format!("[{}, {}]", signed_pct(lo), signed_pct(hi)),
        None => "NA".to_owned(),
    }
}

fn plot_or_error(r: Result<String, plot::PlotError>, kind: &str) -> String {
    match r {
        Ok(svg) => format!("<figure class=\"plot\" data-plot=\"{kind}\">{svg}</figure>"),
        Err(e) => format!(
            "<p class=\"plot-error\" data-plot=\"{kind}\">{}</p>",
            escape(&e.to_string())
        ),
    }
}

/// Renders the page (the text [`write`] streams).
pub fn render(d: &ReportData<'_>) -> String {
    let mut out = Vec::new();
    match write(d, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(e) => e.to_string(),
    }
}

/// Writes the page of [`render`] to `w`: the head and summary table, then the comparisons'
/// sections (three plots each) built in parallel a chunk at a time and written in order, so
/// memory holds one chunk of sections instead of the whole page.
///
/// # Errors
/// Returns the error of writing to `w`.
pub fn write(d: &ReportData<'_>, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    use rayon::prelude::*;
    let a = d.assessments;
    let mut out = String::with_capacity(64 * 1024 + a.len() * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>benchdiff report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>benchdiff report</h1>\n<p class=\"summary\">{}</p>\n\
         <p><span class=\"legend-old\">■ old</span> binary, <span class=\"legend-new\">■ new</span> binary.</p>\n",
        escape(&super::table::summary_line_with(a, d.opts, d.failures))
    );
    if !d.failures.is_empty() {
        let _ = writeln!(
            out,
            "<section class=\"failures\"><h2>Failed benchmarks</h2>\n<p>{}: not compared.</p>\n<ul>",
            escape(&d.failures.summary().unwrap_or_default())
        );
        for l in d.failures.lines() {
            let _ = writeln!(out, "<li>{}</li>", escape(&l));
        }
        out.push_str("</ul></section>\n");
    }
    out.push_str(
        "<table class=\"summary\">\n<thead><tr><th>benchmark</th><th>change</th><th>95% CI</th>\
         <th>p</th>",
    );
    // With --correction none the adjusted p is the p: one column, not two equal ones.
    let two_p = d.opts.correction != crate::verdict::decide::Correction::None;
    let _ = write!(
        out,
        "{}<th>verdict</th><th>runs</th><th>flags</th></tr></thead>\n<tbody>\n",
        if two_p {
            format!("<th>p ({})</th>", escape(d.opts.correction.label()))
        } else {
            String::new()
        }
    );
    for (i, x) in a.iter().enumerate() {
        let c = &x.row.comparison;
        let _ = writeln!(
            out,
            "<tr><td><a href=\"#cmp-{i}\">{}</a></td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td>{}<td class=\"{}\">{}</td>\
             <td class=\"num\">{}/{}{}</td><td>{}</td></tr>",
            escape(&c.name),
            escape(&signed_pct(x.change_pct)),
            escape(&ci_text(x)),
            escape(&p_cell(x, x.p_value)),
            if two_p {
                format!(
                    "<td class=\"num\">{}</td>",
                    escape(&p_cell(x, x.p_adjusted))
                )
            } else {
                String::new()
            },
            verdict_class(x.verdict),
            escape(&verdict_cell(x)),
            c.old.len(),
            c.new.len(),
            if x.method == Method::Paired {
                " paired"
            } else {
                ""
            },
            escape(&flags(x)),
        );
    }
    if let Some(g) = super::table::geomean_text(a) {
        let _ = writeln!(
            out,
            "<tr class=\"geomean\"><td>geomean</td><td class=\"num\">{}</td><td></td><td></td>\
             {}<td></td><td></td><td></td></tr>",
            escape(&g),
            if two_p { "<td></td>" } else { "" }
        );
    }
    out.push_str("</tbody>\n</table>\n");
    let report_notes = super::table::report_notes(a, d.one_sided);
    for line in report_notes.lines() {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(line));
    }
    out.push_str("<h2>Run</h2>\n<dl>\n");
    for (k, v) in run_facts(d.run, d.input) {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v));
    }
    out.push_str("</dl>\n<h2>Comparisons</h2>\n");
    w.write_all(out.as_bytes())?;
    const CHUNK: usize = 256;
    for (k, chunk) in a.chunks(CHUNK).enumerate() {
        let parts: Vec<String> = chunk
            .par_iter()
            .enumerate()
            .map(|(j, x)| section(d, k * CHUNK + j, x))
            .collect();
        for p in parts {
            w.write_all(p.as_bytes())?;
        }
    }
    w.write_all(b"</body>\n</html>\n")
}

/// The section of comparison `i`: heading, figures, notes and its three plots.
fn section(d: &ReportData<'_>, i: usize, x: &Assessment) -> String {
    let mut out = String::with_capacity(64 * 1024);
    {
        let c = &x.row.comparison;
        let unit = d.set.metric(c.metric).unit.clone();
        let _ = write!(
            out,
            "<section class=\"comparison\" id=\"cmp-{i}\">\n<h3>{}</h3>\n\
             <p>change <strong>{}</strong> {} — <span class=\"{}\">{}</span> \
             (p={}, {} p={}; old n={}, new n={})</p>\n",
            escape(&c.name),
            escape(&signed_pct(x.change_pct)),
            escape(&ci_text(x)),
            verdict_class(x.verdict),
            escape(&verdict_cell(x)),
            escape(&p_cell(x, x.p_value)),
            escape(d.opts.correction.label()),
            escape(&p_cell(x, x.p_adjusted)),
            c.old.len(),
            c.new.len(),
        );
        let n = notes(std::slice::from_ref(x));
        if !n.is_empty() {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(n.trim_end()));
        }
        out.push_str("<div class=\"plots\">\n");
        out.push_str(&plot_or_error(plot::box_plot(c, &unit, PLOT_SIZE), "box"));
        out.push('\n');
        out.push_str(&plot_or_error(
            plot::density(c, &unit, PLOT_SIZE),
            "density",
        ));
        out.push('\n');
        out.push_str(&plot_or_error(plot::drift(c, &unit, PLOT_SIZE), "drift"));
        out.push_str("\n</div>\n</section>\n");
    }
    out
}
