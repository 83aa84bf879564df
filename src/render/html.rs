//! `--format html`: one self-contained page (inline CSS and inline SVG, no script, no network
//! access, no external resource) with the summary table of every comparison, the run facts
//! and a section with plots for each comparison (on a page of more than [`FULL_PLOTS_MAX`]
//! comparisons, for each one a reader needs, [`plotted`]: changed, flagged, or named by
//! `--plot-rows`): a box plot with every sample as a point, the density of each
//! binary (two regimes show as two humps) and the value against run order (drift); or, when
//! more than [`FULL_PLOTS_MAX`] comparisons are plotted, one compact strip plot each. The page
//! is streamed as it is made. Every string from the input is escaped with [`escape`], so a
//! benchmark named `<script>` stays text.

use super::markdown::run_facts;
use super::plot;
use super::table::{TableRow, ci_text, notes, p_cell, signed_pct, verdict_cell};
use crate::verdict::decide::Verdict;
use std::fmt::Write as _;

/// Size of each per-comparison plot, pixels.
pub const PLOT_SIZE: (u32, u32) = (380, 270);

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    escape_into(&mut out, s);
    out
}

/// [`escape`], appended to `out` (also used for SVG text, where the same five characters are
/// escaped).
pub(crate) fn escape_into(out: &mut String, s: &str) {
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

fn plot_or_error(r: Result<String, plot::PlotError>, kind: &str) -> String {
    match r {
        Ok(svg) => format!("<figure class=\"plot\" data-plot=\"{kind}\">{svg}</figure>"),
        Err(e) => format!(
            "<p class=\"plot-error\" data-plot=\"{kind}\">{}</p>",
            escape(&e.to_string())
        ),
    }
}

/// Which comparisons of the page get plots (besides the changed and flagged ones).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HtmlOptions {
    /// Also plot every comparison whose name contains one of these texts (`--plot-rows`;
    /// an empty text matches every name).
    pub plot_rows: Vec<String>,
}

/// The most comparisons drawn with the three full plots (box, density, drift; about 0.8 ms
/// of CPU and 170 KB of page each); a page that plots more draws one compact strip plot per
/// comparison instead ([`plot::strip_plot`], about 2 KB each).
pub const FULL_PLOTS_MAX: usize = 200;

/// True when comparison `x` of a page of more than [`FULL_PLOTS_MAX`] comparisons gets plots:
/// its verdict is faster or slower, it has a diagnostic flag ([`super::table::flags`]: too few samples,
/// multimodal, drift, outliers, combined), or its name contains one of `opts.plot_rows`. (A
/// page of at most [`FULL_PLOTS_MAX`] comparisons plots every one.)
pub fn plotted(x: &TableRow<'_>, opts: &HtmlOptions) -> bool {
    matches!(x.verdict, Verdict::Faster | Verdict::Slower)
        || !x.flags.is_empty()
        || opts.plot_rows.iter().any(|f| x.name.contains(f.as_str()))
}

/// Which comparisons of the page of `rows` get a section with plots: every one on a page of
/// at most [`FULL_PLOTS_MAX`] comparisons, else those [`plotted`] selects.
pub fn selected(rows: &[TableRow<'_>], opts: &HtmlOptions) -> Vec<bool> {
    if rows.len() <= FULL_PLOTS_MAX {
        vec![true; rows.len()]
    } else {
        rows.iter().map(|x| plotted(x, opts)).collect()
    }
}

/// Whether the sections of the comparisons `selected` ([`selected`]) get the three full
/// plots (at most [`FULL_PLOTS_MAX`] of them) rather than one strip plot each.
pub fn full_plots(selected: &[bool]) -> bool {
    selected.iter().filter(|&&s| s).count() <= FULL_PLOTS_MAX
}

/// What the page says besides its comparisons.
pub struct Page<'a> {
    /// The verdict rules used (correction, α, threshold).
    pub opts: &'a crate::verdict::decide::Options,
    /// Jobs that failed.
    pub failures: &'a crate::compare::failures::Failures,
    /// Benchmarks measured on one side only.
    pub one_sided: &'a crate::compare::OneSided,
    /// How the samples were measured, when benchdiff ran them.
    pub run: Option<&'a super::RunInfo>,
    /// What the input recorded, when benchdiff did not run the samples itself.
    pub input: Option<&'a str>,
    /// The A/A control of the comparisons (`compare --control`), when the samples have one.
    pub control: Option<&'a crate::verdict::control::Control>,
}

/// Writes the sections of the comparisons with the given indices (in order) to the writer
/// ([`write_page`]).
pub type WriteSections<'a> =
    dyn FnMut(&[usize], &mut dyn std::io::Write) -> std::io::Result<()> + 'a;

/// Writes the page of the comparisons `rows` (in report order, corrected and decided) to `w`
/// as [`write`] describes: the sections of the comparisons `selected` ([`selected`]) are
/// written by `sections`, given their indices a chunk at a time in order, with the plots
/// [`full_plots`] says ([`section`] writes one).
///
/// # Errors
/// Returns the error of writing to `w`, or of `sections`.
pub fn write_page(
    rows: &[TableRow<'_>],
    page: &Page<'_>,
    selected: &[bool],
    sections: &mut WriteSections<'_>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let shown: Vec<usize> = (0..rows.len()).filter(|&i| selected[i]).collect();
    let full = shown.len() <= FULL_PLOTS_MAX;
    let mut out = String::with_capacity(128 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>benchdiff report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>benchdiff report</h1>\n<p class=\"summary\">{}</p>\n\
         <p><span class=\"legend-old\">■ old</span> binary, <span class=\"legend-new\">■ new</span> binary.</p>\n",
        escape(&super::table::summary_line(
            rows.iter().map(|x| x.verdict),
            page.opts,
            page.failures
        ))
    );
    out.push_str(&super::control::html_line(page.control));
    let extra = super::control::table_extra(page.control);
    if !page.failures.is_empty() {
        let _ = writeln!(
            out,
            "<section class=\"failures\"><h2>{}</h2>\n<p>{}: {}.</p>\n<ul>",
            if page.failures.interrupted() {
                "Unfinished benchmarks"
            } else {
                "Failed benchmarks"
            },
            escape(&page.failures.summary().unwrap_or_default()),
            page.failures.consequence()
        );
        for l in page.failures.lines() {
            let _ = writeln!(out, "<li>{}</li>", escape(&l));
        }
        out.push_str("</ul></section>\n");
    }
    out.push_str(
        "<table class=\"summary\">\n<thead><tr><th>benchmark</th><th>change</th><th>95% CI</th>\
         <th>p</th>",
    );
    // With --correction none the adjusted p is the p: one column, not two equal ones.
    let two_p = page.opts.correction != crate::verdict::decide::Correction::None;
    let _ = write!(
        out,
        "{}{}<th>verdict</th><th>runs</th><th>flags</th></tr></thead>\n<tbody>\n",
        if two_p {
            format!("<th>p ({})</th>", escape(page.opts.correction.label()))
        } else {
            String::new()
        },
        super::control::html_headers(&extra),
    );
    for (i, x) in rows.iter().enumerate() {
        // A row with a section links to it; the others are table rows only.
        let name = if selected[i] {
            format!("<a href=\"#cmp-{i}\">{}</a>", escape(&x.name))
        } else {
            escape(&x.name)
        };
        let _ = writeln!(
            out,
            "<tr><td>{name}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td>{}{}<td class=\"{}\">{}{}</td>\
             <td class=\"num\">{}/{}{}</td><td>{}</td></tr>",
            escape(&signed_pct(x.estimate.change_pct)),
            escape(&ci_text(x.estimate.change_ci_pct)),
            escape(&p_cell(x.exact, x.p_value)),
            if two_p {
                format!(
                    "<td class=\"num\">{}</td>",
                    escape(&p_cell(x.exact, x.p_adjusted))
                )
            } else {
                String::new()
            },
            super::control::html_cells(&extra, i),
            verdict_class(x.verdict),
            escape(&verdict_cell(x.verdict, x.regimes)),
            escape(extra.verdict_suffix.get(i).copied().unwrap_or("")),
            x.estimate.n[0],
            x.estimate.n[1],
            if x.paired { " paired" } else { "" },
            escape(&x.flags),
        );
        if out.len() >= 64 * 1024 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    if let Some(g) = super::table::geomean_text(rows) {
        let _ = writeln!(
            out,
            "<tr class=\"geomean\"><td>geomean</td><td class=\"num\">{}</td><td></td><td></td>\
             {}{}<td></td><td></td><td></td></tr>",
            escape(&g),
            if two_p { "<td></td>" } else { "" },
            "<td></td>".repeat(extra.columns.len()),
        );
    }
    out.push_str("</tbody>\n</table>\n");
    let report_notes = super::table::report_notes(
        rows.iter().any(|x| x.unpaired_input),
        page.one_sided,
        crate::verdict::decide::geomean(rows.iter().map(|x| x.log_ratio)),
    );
    for line in report_notes.lines() {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(line));
    }
    out.push_str("<h2>Run</h2>\n<dl>\n");
    for (k, v) in run_facts(page.run, page.input) {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v));
    }
    out.push_str("</dl>\n<h2>Comparisons</h2>\n");
    let table_only = rows.len() - shown.len();
    if table_only > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note table-only\">{} of {} comparisons are plotted below: the changed \
             (faster or slower) and flagged ones. The other {table_only} are rows of the table \
             above only; plot them with --plot-rows TEXT (comparisons whose name contains TEXT; \
             --plot-rows '' plots every one).</p>",
            shown.len(),
            rows.len(),
        );
    }
    if !full {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} comparisons are plotted, more than {FULL_PLOTS_MAX}: each \
             gets one strip plot (a box and every sample, old above new) instead of the box, \
             density and run-order plots.</p>",
            shown.len(),
        );
    }
    w.write_all(out.as_bytes())?;
    drop(out);
    const CHUNK: usize = 256;
    for chunk in shown.chunks(CHUNK) {
        sections(chunk, w)?;
    }
    w.write_all(b"</body>\n</html>\n")
}

/// The section of comparison `i` of the page (its table row `x`, its samples `c` in the
/// metric's unit `unit`; the report's `correction`): heading, figures, notes and its three
/// plots (`full`) or its strip plot.
pub fn section(
    x: &TableRow<'_>,
    c: &crate::compare::Comparison,
    unit: &str,
    i: usize,
    correction: crate::verdict::decide::Correction,
    full: bool,
) -> String {
    let mut out = String::with_capacity(if full { 64 * 1024 } else { 4 * 1024 });
    let _ = write!(
        out,
        "<section class=\"comparison\" id=\"cmp-{i}\">\n<h3>{}</h3>\n\
         <p>change <strong>{}</strong> {} — <span class=\"{}\">{}</span> \
         (p={}, {} p={}; old n={}, new n={})</p>\n",
        escape(&x.name),
        escape(&signed_pct(x.estimate.change_pct)),
        escape(&ci_text(x.estimate.change_ci_pct)),
        verdict_class(x.verdict),
        escape(&verdict_cell(x.verdict, x.regimes)),
        escape(&p_cell(x.exact, x.p_value)),
        escape(correction.label()),
        escape(&p_cell(x.exact, x.p_adjusted)),
        c.old.len(),
        c.new.len(),
    );
    let n = notes(std::slice::from_ref(x));
    if !n.is_empty() {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(n.trim_end()));
    }
    if !full {
        out.push_str("<div class=\"plots\">\n<figure class=\"plot\" data-plot=\"strip\">");
        plot::strip_plot(c, unit, &mut out);
        out.push_str("</figure>\n</div>\n</section>\n");
        return out;
    }
    out.push_str("<div class=\"plots\">\n");
    out.push_str(&plot_or_error(plot::box_plot(c, unit, PLOT_SIZE), "box"));
    out.push('\n');
    out.push_str(&plot_or_error(plot::density(c, unit, PLOT_SIZE), "density"));
    out.push('\n');
    out.push_str(&plot_or_error(plot::drift(c, unit, PLOT_SIZE), "drift"));
    out.push_str("\n</div>\n</section>\n");
    out
}
