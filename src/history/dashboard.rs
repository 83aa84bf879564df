//! The static dashboard (`benchdiff history dashboard`): an overview page with every series
//! (sparkline, latest value, latest change point) and one page per series (samples per
//! commit, the median line, change points marked, a table of commit, date and values).
//! Plain HTML with inline SVG: no server, no scripts, no CDN.

use super::check::fmt_num;
use super::series::{History, SeriesView};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// HTML-escapes `s` (text and attribute values).
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}td,th{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums}.bad{color:#b00}.good{color:#070}\
svg{background:#fafafa}code{font-size:90%}";

/// The file name of series `i`'s page.
pub fn page_name(i: usize) -> String {
    format!("series-{i:04}.html")
}

fn short(sha: &str) -> &str {
    if sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        &sha[..10]
    } else {
        sha
    }
}

/// `(lo, hi)` of the y axis for `values`, padded by 5 %.
fn y_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-6).max(1e-12);
    (lo - pad, hi + pad)
}

/// A sparkline of the per-commit medians (width × height pixels), change points as dots.
pub fn sparkline(s: &SeriesView, width: f64, height: f64) -> String {
    let n = s.points.len();
    let (lo, hi) = y_range(s.points.iter().map(|p| p.median));
    let x = |i: usize| {
        if n <= 1 {
            width / 2.0
        } else {
            2.0 + i as f64 * (width - 4.0) / (n - 1) as f64
        }
    };
    let y = |v: f64| height - 2.0 - (v - lo) / (hi - lo) * (height - 4.0);
    let pts: Vec<String> = s
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.median)))
        .collect();
    let mut o = format!(
        "<svg class=\"spark\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         xmlns=\"http://www.w3.org/2000/svg\"><polyline fill=\"none\" stroke=\"#36c\" \
         stroke-width=\"1.5\" points=\"{}\"/>",
        pts.join(" ")
    );
    for c in &s.changes {
        let _ = write!(
            o,
            "<circle class=\"cp\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{}\"/>",
            x(c.point),
            y(s.points[c.point].median),
            if c.regression { "#c00" } else { "#090" }
        );
    }
    o.push_str("</svg>");
    o
}

/// The series plot: every sample as a dot per commit, the median line, change points as
/// dashed vertical lines with their change in percent.
pub fn plot(h: &History, s: &SeriesView) -> String {
    let (w, ht) = (900.0, 320.0);
    let (l, r, t, b) = (80.0, 20.0, 20.0, 60.0);
    let n = s.points.len();
    let (lo, hi) = y_range(s.points.iter().flat_map(|p| p.values.iter().copied()));
    let x = |i: usize| {
        if n <= 1 {
            l + (w - l - r) / 2.0
        } else {
            l + i as f64 * (w - l - r) / (n - 1) as f64
        }
    };
    let y = |v: f64| t + (hi - v) / (hi - lo) * (ht - t - b);
    let mut o = format!(
        "<svg class=\"plot\" width=\"{w}\" height=\"{ht}\" viewBox=\"0 0 {w} {ht}\" \
         xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\">\
         <line x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{}\" stroke=\"#888\"/>\
         <line x1=\"{l}\" y1=\"{0}\" x2=\"{}\" y2=\"{0}\" stroke=\"#888\"/>",
        ht - b,
        w - r
    );
    for frac in [0.0, 0.5, 1.0] {
        let v = lo + (hi - lo) * frac;
        let _ = write!(
            o,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            l - 4.0,
            y(v) + 4.0,
            esc(&fmt_num(v))
        );
    }
    let _ = write!(
        o,
        "<text x=\"12\" y=\"{:.1}\" transform=\"rotate(-90 12 {:.1})\" text-anchor=\"middle\">{}</text>",
        (t + ht - b) / 2.0,
        (t + ht - b) / 2.0,
        esc(&format!("{} ({})", s.key.metric, s.key.unit))
    );
    let label_every = n.div_ceil(12).max(1);
    for (i, p) in s.points.iter().enumerate() {
        for v in &p.values {
            let _ = write!(
                o,
                "<circle class=\"sample\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\" fill=\"#9ab\"/>",
                x(i),
                y(*v)
            );
        }
        if i % label_every == 0 || i + 1 == n {
            let _ = write!(
                o,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" transform=\"rotate(-35 {0:.1} {1:.1})\">{}</text>",
                x(i),
                ht - b + 14.0,
                esc(short(&h.commits[p.commit].sha))
            );
        }
    }
    let pts: Vec<String> = s
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.median)))
        .collect();
    let _ = write!(
        o,
        "<polyline class=\"median\" fill=\"none\" stroke=\"#36c\" stroke-width=\"2\" points=\"{}\"/>",
        pts.join(" ")
    );
    for c in &s.changes {
        let xc = (x(c.point) + x(c.point.saturating_sub(1))) / 2.0;
        let col = if c.regression { "#c00" } else { "#090" };
        let _ = write!(
            o,
            "<line class=\"changepoint\" x1=\"{xc:.1}\" y1=\"{t}\" x2=\"{xc:.1}\" y2=\"{}\" \
             stroke=\"{col}\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{}\" fill=\"{col}\">{:+.1}%</text>",
            ht - b,
            xc + 3.0,
            t + 10.0,
            c.change_pct
        );
    }
    o.push_str("</svg>");
    o
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n{body}\n</body></html>\n",
        esc(title)
    )
}

/// The overview page.
pub fn index_html(h: &History) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>Benchmark history</h1><p>{} series over {} commits.</p>\
         <table id=\"series\"><thead><tr><th>benchmark</th><th>metric</th><th>commits</th>\
         <th>trend</th><th>latest</th><th>latest change</th></tr></thead><tbody>",
        h.series.len(),
        h.commits.len()
    );
    for (i, s) in h.series.iter().enumerate() {
        let latest = s.points.last().map_or(String::new(), |p| fmt_num(p.median));
        let change = s.changes.last().map_or("–".to_owned(), |c| {
            format!(
                "<span class=\"{}\">{:+.1}%</span> at <code>{}</code>",
                if c.regression { "bad" } else { "good" },
                c.change_pct,
                esc(short(&h.commits[c.commit].sha))
            )
        });
        let _ = write!(
            b,
            "<tr><td><a href=\"{}\">{}</a></td><td>{} ({})</td><td class=\"n\">{}</td>\
             <td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            page_name(i),
            esc(&s.name()),
            esc(&s.key.metric),
            esc(&s.key.unit),
            s.points.len(),
            sparkline(s, 160.0, 32.0),
            latest,
            change
        );
    }
    b.push_str("</tbody></table>");
    page("Benchmark history", &b)
}

/// The page of one series.
pub fn series_html(h: &History, s: &SeriesView) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<p><a href=\"index.html\">← all series</a></p><h1>{}</h1><p>{} ({}, {} is better); \
         {} commits, {} samples.</p>{}",
        esc(&s.name()),
        esc(&s.key.metric),
        esc(&s.key.unit),
        match s.key.better {
            crate::sample::Better::Higher => "higher",
            crate::sample::Better::Lower => "lower",
        },
        s.points.len(),
        s.sample_count(),
        plot(h, s)
    );
    if !s.changes.is_empty() {
        b.push_str(
            "<h2>Change points</h2><table id=\"changes\"><thead><tr><th>commit</th><th>date</th>\
             <th>before</th><th>after</th><th>change</th><th>p-value</th></tr></thead><tbody>",
        );
        for c in &s.changes {
            let cm = &h.commits[c.commit];
            let _ = write!(
                b,
                "<tr><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                 <td class=\"n {}\">{:+.2}%</td><td class=\"n\">{:.4}</td></tr>",
                esc(&cm.sha),
                super::format_rfc3339(cm.date_unix_s),
                fmt_num(c.before_median),
                fmt_num(c.after_median),
                if c.regression { "bad" } else { "good" },
                c.change_pct,
                c.p_value
            );
        }
        b.push_str("</tbody></table>");
    }
    b.push_str(
        "<h2>Commits</h2><table id=\"commits\"><thead><tr><th>commit</th><th>date</th>\
         <th>samples</th><th>median</th><th>values</th></tr></thead><tbody>",
    );
    for p in &s.points {
        let cm = &h.commits[p.commit];
        let vals: Vec<String> = p.values.iter().map(|v| fmt_num(*v)).collect();
        let _ = write!(
            b,
            "<tr><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td>{}</td></tr>",
            esc(&cm.sha),
            super::format_rfc3339(cm.date_unix_s),
            p.values.len(),
            fmt_num(p.median),
            esc(&vals.join(", "))
        );
    }
    b.push_str("</tbody></table>");
    page(&s.name(), &b)
}

/// Writes `index.html` and one page per series into `dir` (created); returns the files.
///
/// # Errors
/// I/O errors naming the file.
pub fn write(h: &History, dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = Vec::new();
    let mut put = |name: String, text: String| -> Result<(), String> {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
        out.push(p);
        Ok(())
    };
    put("index.html".to_owned(), index_html(h))?;
    for (i, s) in h.series.iter().enumerate() {
        put(page_name(i), series_html(h, s))?;
    }
    Ok(out)
}
