//! `--format analyze`: the layout of Node's `benchmark/compare.js --analyze` (spec §1.7 and
//! §4): the table with signed improvements and `±` accuracy columns, the skipped-rows note, the
//! 40-cell text bar chart, compare.R's false-positive paragraph and the corrected-count
//! paragraph.
//!
//! The layout is Node's; the numbers are benchdiff's. compare.js feeds every rate through an
//! HdrHistogram (3 significant figures) before its Welch test; here the statistics come from
//! the raw samples: the improvement is the difference of the raw means, the stars and the
//! three accuracy half-widths are Welch's (the same as `--format r`), and the corrected count
//! adjusts the Welch p-values of the shown rows with the report's correction (Holm by default,
//! as compare.js does). Rows keep the order the caller gives (compare.js: first seen).

use crate::verdict::decide::Correction;
use crate::verdict::{Row, Stars};
use std::fmt::Write as _;

/// Width of the text bar chart in cells (compare.js `barWidth`).
pub const BAR_WIDTH: usize = 40;
/// Cells left of the axis; the axis cell is index `HALF_WIDTH` (compare.js `halfWidth`).
pub const HALF_WIDTH: usize = 20;

/// JavaScript `Number#toFixed(digits)` for the values reports print: `NaN`, `Infinity`,
/// `-Infinity`, otherwise fixed-point with `digits` decimals (negative zero prints as `0`).
pub fn js_fixed(x: f64, digits: usize) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if x == 0.0 {
        format!("{:.digits$}", 0.0)
    } else {
        format!("{x:.digits$}")
    }
}

/// A signed value with two decimals as compare.js prints improvements: `+7.40` / `-3.76`.
fn signed2(x: f64) -> String {
    format!("{}{}", if x >= 0.0 { "+" } else { "" }, js_fixed(x, 2))
}

/// compare.js's stars, right-aligned in three characters: `***`, ` **`, `  *` or empty.
fn stars3(s: Option<Stars>) -> &'static str {
    match s {
        Some(Stars::Three) => "***",
        Some(Stars::Two) => " **",
        Some(Stars::One) => "  *",
        _ => "",
    }
}

fn pad_right(s: &str, w: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(w.saturating_sub(n)))
}

fn pad_left(s: &str, w: usize) -> String {
    let n = s.chars().count();
    format!("{}{s}", " ".repeat(w.saturating_sub(n)))
}

/// One line of the text bar chart (spec §4): 40 cells, the axis `|` at cell 20, `█` for a
/// significant effect (`▓` when not significant) from the axis to the improvement, `░` for the
/// rest of the 95% interval, spaces elsewhere. `imp` and `ci95` are percent, `max_abs > 0`.
pub fn bar(imp: f64, ci95: f64, max_abs: f64, significant: bool) -> String {
    let half = HALF_WIDTH as f64;
    let imp_pos = half + imp / max_abs * half;
    let ci_l = half + (imp - ci95) / max_abs * half;
    let ci_r = half + (imp + ci95) / max_abs * half;
    let fill = if significant { '█' } else { '▓' };
    (0..BAR_WIDTH)
        .map(|x| {
            let pos = x as f64 + 0.5;
            if x == HALF_WIDTH {
                '|'
            } else if (imp >= 0.0 && pos > half && pos <= imp_pos)
                || (imp < 0.0 && pos < half && pos >= imp_pos)
            {
                fill
            } else if ci_l <= pos && pos <= ci_r {
                '░'
            } else {
                ' '
            }
        })
        .collect()
}

/// The chart block (spec §4): an empty line, the scale line, one bar per row. `rows` are
/// `(name, improvement %, 95% half-width %, stars)`; empty input gives an empty string.
pub fn chart(rows: &[(&str, f64, f64, Option<Stars>)], max_name_len: usize) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let max_abs = chart_scale(rows.iter().map(|(_, imp, ci, _)| imp.abs() + ci));
    let mut out = chart_head(max_abs, max_name_len);
    for (name, imp, ci, stars) in rows {
        chart_line(&mut out, name, *imp, *ci, *stars, max_abs, max_name_len);
    }
    out
}

/// The chart's scale: the largest finite `|improvement| + half-width` (1 when that is 0).
fn chart_scale(ends: impl Iterator<Item = f64>) -> f64 {
    let max_abs = ends.filter(|v| v.is_finite()).fold(0.0_f64, f64::max);
    if max_abs == 0.0 { 1.0 } else { max_abs }
}

/// The chart's empty line and scale line.
fn chart_head(max_abs: f64, max_name_len: usize) -> String {
    let l = format!("-{}%", js_fixed(max_abs, 1));
    let r = format!("+{}%", js_fixed(max_abs, 1));
    let mut out = String::from("\n");
    let _ = writeln!(
        out,
        "{}{l}{}0%{}{r}",
        " ".repeat(max_name_len + 5),
        " ".repeat(HALF_WIDTH.saturating_sub(l.chars().count() + 1)),
        " ".repeat((HALF_WIDTH - 1).saturating_sub(r.chars().count())),
    );
    out
}

/// Appends the chart line of one row to `out`.
fn chart_line(
    out: &mut String,
    name: &str,
    imp: f64,
    ci: f64,
    stars: Option<Stars>,
    max_abs: f64,
    max_name_len: usize,
) {
    let s = stars3(stars);
    let _ = writeln!(
        out,
        "{}  {}  {}% {}",
        pad_right(name, max_name_len),
        bar(imp, ci, max_abs, !s.trim().is_empty()),
        signed2(imp),
        s.trim()
    );
}

/// What the `--analyze` layout shows of one row: its name, stars, improvement and accuracy
/// (percent), whether compare.js shows it at all (at least 2 samples a side), and the p-value
/// of the corrected count ([`count_p`]), borrowed from the compact row a report keeps of a
/// comparison.
#[derive(Clone, Copy, Debug)]
pub struct ARow<'a> {
    /// The comparison's name.
    pub name: &'a str,
    /// [`Row::stars`].
    pub stars: Option<Stars>,
    /// [`Row::improvement_pct`], percent.
    pub improvement_pct: f64,
    /// [`Row::accuracy_pct`], percent.
    pub accuracy_pct: Option<[f64; 3]>,
    /// At least 2 samples on each side (compare.js skips the others).
    pub shown: bool,
    /// [`count_p`] of the row.
    pub count_p: f64,
}

/// The p-value a row brings to the corrected count ([`Row::welch_p`]).
pub fn count_p(row: &Row) -> f64 {
    row.welch_p()
}

/// Writes the `--analyze` report of the `n` rows `row(0)`, …, `row(n - 1)` (in report
/// order; compare.R's figures alone, no assessment needed) to `out`: `opts` gives the
/// correction and α of the corrected count, `failures` the failed jobs; `max_regression` is
/// `--max-regression` in percent: rows without stars whose 95% half-width exceeds it are
/// marked `(inconclusive)`, with a note. Written a line at a time, without holding the
/// text.
///
/// # Errors
/// Write errors of `out`.
pub fn write_rows<'a, F>(
    n: usize,
    row: F,
    opts: &crate::verdict::decide::Options,
    failures: &crate::compare::failures::Failures,
    max_regression: Option<f64>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()>
where
    F: Fn(usize) -> ARow<'a>,
{
    // compare.js skips a configuration with fewer than 2 samples on a side.
    let shown_rows = || (0..n).map(&row).filter(|r| r.shown);
    let shown = shown_rows().count();
    let skipped = n - shown;
    let w = shown_rows()
        .map(|a| super::escape_control(a.name).chars().count())
        .max()
        .unwrap_or(0);
    let ci = |a: &ARow<'_>, k: usize| -> f64 {
        // Absolute: with non-positive rates R's half-width/mean is negative (`±-5%`).
        a.accuracy_pct.map_or(f64::NAN, |c| c[k].abs())
    };
    let mut line = String::new();
    writeln!(
        out,
        "{}  confidence   improvement   accuracy (*)    (**)   (***)",
        " ".repeat(w)
    )?;
    let gate = max_regression.filter(|r| *r > 0.0);
    let mut underpowered = 0;
    for a in shown_rows() {
        line.clear();
        let stars = stars3(a.stars);
        let imp = format!("{} %", signed2(a.improvement_pct));
        let _ = write!(
            line,
            "{}  {}  {}   ±{}%  ±{}%  ±{}%",
            pad_right(&super::escape_control(a.name), w),
            pad_right(stars, 10),
            pad_left(&imp, 11),
            js_fixed(ci(&a, 0), 2),
            js_fixed(ci(&a, 1), 2),
            js_fixed(ci(&a, 2), 2),
        );
        if let Some(r) = gate
            && stars.trim().is_empty()
            && ci(&a, 0) > r
        {
            underpowered += 1;
            line.push_str("  (inconclusive)");
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    if skipped > 0 {
        writeln!(
            out,
            "\nNote: {skipped} configuration{} skipped because Welch's t-test requires at least \
             2 samples per binary. Use --runs 2 or higher.",
            if skipped == 1 { " was" } else { "s were" }
        )?;
    }
    chart_rows(shown_rows, &ci, w, out)?;
    out.write_all(
        "\nRates were used as measured: Welch's t-test on the raw samples \
         (no histogram quantisation).\n\n"
            .as_bytes(),
    )?;
    out.write_all(super::compare_r::false_positive_paragraph(shown).as_bytes())?;
    // The corrected count: the Welch p-values of the shown rows, adjusted together.
    let p: Vec<f64> = shown_rows().map(|a| a.count_p).collect();
    let adj = opts.correction.adjust(&p);
    let k = adj.iter().filter(|p| **p < opts.alpha).count();
    let (noun, verb) = if k == 1 {
        ("comparison", "remains")
    } else {
        ("comparisons", "remain")
    };
    let level = format!("{}%", opts.alpha * 100.0);
    match opts.correction {
        Correction::None => {
            write!(
                out,
                "\nThe stars above are per-benchmark and uncorrected, and so is this count\n\
                 (--correction none): {k} {noun} {verb} significant at {level}.\n"
            )?;
        }
        c => {
            let method = if c == Correction::Holm {
                "Holm-Bonferroni"
            } else {
                "Benjamini-Hochberg"
            };
            write!(
                out,
                "\nThe stars above are per-benchmark and uncorrected. Adjusting for the size of\n\
                 this comparison set ({method}), {k} {noun} {verb} significant at {level}.\n"
            )?;
        }
    }
    out.write_all(b"--max-regression uses the corrected values.\n")?;
    if let Some(r) = gate
        && underpowered > 0
    {
        write!(
            out,
            "\nNote: {underpowered} of {shown} comparison(s) could not resolve an effect as small as \
             {r}%, and are marked (inconclusive):\ntheir 95% interval is wider than that. Raise \
             --runs,\nor pin cores with --set CPUSET, to narrow them.\n",
        )?;
    }
    out.write_all(super::table::failures_section(failures).as_bytes())
}

/// [`chart`] of the shown rows, written a line at a time: the same text.
fn chart_rows<'a, I: Iterator<Item = ARow<'a>>>(
    rows: impl Fn() -> I,
    ci: &dyn Fn(&ARow<'_>, usize) -> f64,
    max_name_len: usize,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    if rows().next().is_none() {
        return Ok(());
    }
    let max_abs = chart_scale(rows().map(|a| a.improvement_pct.abs() + ci(&a, 0)));
    out.write_all(chart_head(max_abs, max_name_len).as_bytes())?;
    let mut line = String::new();
    for a in rows() {
        line.clear();
        let name = super::escape_control(a.name);
        chart_line(
            &mut line,
            &name,
            a.improvement_pct,
            ci(&a, 0),
            a.stars,
            max_abs,
            max_name_len,
        );
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_matches_the_worked_example() {
        // Spec §4: imp 158.99, ci95 15.61 → maxAbs 174.6; cells 21..37 full, 38..39 interval.
        let b = bar(158.99, 15.61, 158.99 + 15.61, true);
        assert_eq!(
            b,
            format!("{}|{}░░", " ".repeat(20), "█".repeat(17)),
            "{b:?}"
        );
        let c = chart(&[("x", 158.99, 15.61, Some(Stars::Three))], 1);
        assert!(c.ends_with("|█████████████████░░  +158.99% ***\n"), "{c}");
        assert!(
            c.contains(&format!(
                "-174.6%{}0%{}+174.6%",
                " ".repeat(12),
                " ".repeat(12)
            )),
            "{c}"
        );
    }

    #[test]
    fn not_significant_is_shaded_and_negative_fills_left() {
        let b = bar(-10.0, 5.0, 20.0, false);
        // impPos = 10: cells 10..19 (pos 10.5..19.5) are ▓; the interval [5, 15] adds 5..9.
        assert_eq!(
            b,
            format!(
                "{}{}{}|{}",
                " ".repeat(5),
                "░".repeat(5),
                "▓".repeat(10),
                " ".repeat(19)
            )
        );
    }
}
