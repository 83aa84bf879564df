//! The compare.R-compatible report (`--format r`): byte for byte what
//! `Rscript benchmark/compare.R` prints under `LC_ALL=C.UTF-8` (spec §3.3–§3.5).
//!
//! This module owns only layout and R's text quirks; the numbers come from
//! [`crate::stats::welch`] and the stars from [`crate::verdict`]:
//! - `print(data.frame)` with `options(width = 200)`: row names left-aligned and padded to the
//!   longest, then five right-aligned character columns separated by one space; column width
//!   is the widest of header and cells, counted in display characters (`±` is one);
//! - a table wider than R's print width is wrapped into blocks of columns, each block
//!   repeating the row names (R `printMatrix`: a column joins the block while the line stays
//!   shorter than the width);
//! - row names are shown as R's `print` encodes strings: `\` as `\\`, control characters as
//!   escapes;
//! - `sprintf("%.2f %%")` and `sprintf("±%.2f%%")` with R's `NaN`, `Inf`, `-Inf`, `NA` texts;
//! - a blank line and the six-line false-positive paragraph with N = all rows.
//!
//! Deliberate deviations, documented: where both sides are constant R stops the whole script
//! ("data are essentially constant"); here that row shows `NA` confidence and `±0.00%`
//! accuracy and the caller says why on stderr. R silently drops rows past `max.print`
//! (99,999 cells, about 20,000 rows); every row is printed here.

use std::fmt::Write as _;
use unicode_width::UnicodeWidthStr;

/// R's `options(width = 200)` set by compare.R: the print width in characters.
pub const R_PRINT_WIDTH: usize = 200;

const HEADERS: [&str; 5] = ["confidence", "improvement", "accuracy (*)", "(**)", "(***)"];

/// Formats `x` as C/R `sprintf("%.2f")`, with R's texts for non-finite values.
pub fn r_fixed2(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x == f64::INFINITY {
        "Inf".to_owned()
    } else if x == f64::NEG_INFINITY {
        "-Inf".to_owned()
    } else {
        format!("{x:.2}")
    }
}

/// Escapes a string as R's `print` shows it (quote = FALSE): backslash doubled, ASCII
/// control characters as `\n`, `\t`, … or `\xNN`-style escapes.
pub fn r_escape(s: &str) -> String {
    if !s.bytes().any(|b| b == b'\\' || b < 0x20 || b == 0x7f) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// What compare.R prints of one row: its name (as [`crate::compare::Comparison::name`]), stars,
/// improvement (percent) and accuracy half-widths (percent) of a [`crate::verdict::Row`],
/// borrowed from the compact row a report keeps of a comparison.
#[derive(Clone, Copy, Debug)]
pub struct RRow<'a> {
    /// The comparison's name (benchdiff's: no trailing space for an empty configuration).
    pub name: &'a str,
    /// [`crate::verdict::Row::stars`].
    pub stars: Option<crate::verdict::Stars>,
    /// [`crate::verdict::Row::improvement_pct`], percent.
    pub improvement_pct: f64,
    /// [`crate::verdict::Row::accuracy_pct`], percent.
    pub accuracy_pct: Option<[f64; 3]>,
}

/// The five cells compare.R prints for a row: confidence, improvement, and the three
/// accuracy columns.
pub fn row_cells(row: &RRow<'_>) -> [String; 5] {
    let confidence = match row.stars {
        Some(s) => s.as_str().to_owned(),
        None => "NA".to_owned(),
    };
    let improvement = format!("{} %", r_fixed2(row.improvement_pct));
    let acc = |i: usize| match row.accuracy_pct {
        Some(a) => format!("±{}%", r_fixed2(a[i])),
        None => "NA".to_owned(),
    };
    [confidence, improvement, acc(0), acc(1), acc(2)]
}

/// compare.R's row name of `row` as R prints it: `paste0(filename, ' ', configuration)` (an
/// empty configuration leaves a trailing space, which benchdiff's own names drop: a name
/// without a space is a file without configuration), escaped as R's `print` does.
fn row_name(row: &RRow<'_>) -> String {
    let n = row.name;
    if n.contains(' ') {
        r_escape(n)
    } else {
        r_escape(&format!("{n} "))
    }
}

/// Writes compare.R's table and paragraph, with print width `width` (R's is
/// [`R_PRINT_WIDTH`]), for the `n` rows `row(0)`, …, `row(n - 1)` (in report order) to
/// `out`, without holding the text or the cells of every row: a first pass finds the column
/// widths, then each block of columns is formatted again, a window of rows at a time, and
/// written in order (the report of a 2 GB input in bounded memory).
///
/// # Errors
/// Write errors of `out`.
pub fn write_rows<'a, F>(
    n: usize,
    row: F,
    width: usize,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()>
where
    F: Fn(usize) -> RRow<'a>,
{
    const CHUNK: usize = 2048;
    const WINDOW: usize = 1 << 15;
    // Widths: the row labels' (display characters) and each column's (header or cells).
    let widths = (0..n.div_ceil(CHUNK))
        .map(|c| {
            let mut w = [0usize; 6];
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let r = row(i);
                w[0] = w[0].max(row_name(&r).width());
                for (j, cell) in row_cells(&r).iter().enumerate() {
                    w[j + 1] = w[j + 1].max(cell.width());
                }
            }
            w
        })
        .fold([0usize; 6], |a, b| std::array::from_fn(|j| a[j].max(b[j])));
    let rlabw = widths[0];
    let mut w = HEADERS.map(|h| h.width());
    for j in 0..5 {
        w[j] = w[j].max(widths[j + 1]);
    }
    // Column blocks, as R's printMatrix forms them (gap of 1 before each column).
    let mut jmin = 0;
    while jmin < 5 {
        let mut line_width = rlabw;
        let mut jmax = jmin;
        loop {
            line_width += w[jmax] + 1;
            jmax += 1;
            if !(jmax < 5 && line_width + w[jmax] + 1 < width) {
                break;
            }
        }
        let mut head = String::new();
        push_spaces(&mut head, rlabw);
        for j in jmin..jmax {
            push_spaces(&mut head, 1 + w[j] - HEADERS[j].width());
            head.push_str(HEADERS[j]);
        }
        head.push('\n');
        out.write_all(head.as_bytes())?;
        for window in (0..n).step_by(WINDOW) {
            let end = (window + WINDOW).min(n);
            let texts: Vec<String> = (0..(end - window).div_ceil(CHUNK))
                .map(|c| {
                    let from = window + c * CHUNK;
                    let mut text = String::with_capacity((end - from).min(CHUNK) * (rlabw + 60));
                    for i in from..(from + CHUNK).min(end) {
                        let r = row(i);
                        let name = row_name(&r);
                        let cells = row_cells(&r);
                        text.push_str(&name);
                        push_spaces(&mut text, rlabw - name.width());
                        for j in jmin..jmax {
                            push_spaces(&mut text, 1 + w[j] - cells[j].width());
                            text.push_str(&cells[j]);
                        }
                        text.push('\n');
                    }
                    text
                })
                .collect();
            for t in texts {
                out.write_all(t.as_bytes())?;
            }
        }
        jmin = jmax;
    }
    out.write_all(b"\n")?;
    out.write_all(false_positive_paragraph(n).as_bytes())
}

/// compare.R's closing paragraph for `n` comparisons (all rows, NA rows included).
pub fn false_positive_paragraph(n: usize) -> String {
    let nf = n as f64;
    format!(
        "Be aware that when doing many comparisons the risk of a false-positive\n\
         result increases. In this case, there are {n} comparisons, you can thus\n\
         expect the following amount of false-positive results:\n  \
         {:.2} false positives, when considering a   5% risk acceptance (*, **, ***),\n  \
         {:.2} false positives, when considering a   1% risk acceptance (**, ***),\n  \
         {:.2} false positives, when considering a 0.1% risk acceptance (***)\n",
        nf * 0.05,
        nf * 0.01,
        nf * 0.001
    )
}

fn push_spaces(s: &mut String, n: usize) {
    s.extend(std::iter::repeat_n(' ', n));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_texts() {
        assert_eq!(r_fixed2(f64::NAN), "NaN");
        assert_eq!(r_fixed2(f64::INFINITY), "Inf");
        assert_eq!(r_fixed2(-0.001), "-0.00");
        assert_eq!(r_fixed2(7.404_999), "7.40");
        assert_eq!(r_escape("a\\b\tc"), "a\\\\b\\tc");
    }

    #[test]
    fn paragraph_numbers() {
        let p = false_positive_paragraph(18);
        assert!(p.contains("there are 18 comparisons"));
        assert!(p.contains("  0.90 false positives, when considering a   5%"));
        assert!(p.contains("  0.18 false positives"));
        assert!(p.contains("  0.02 false positives"));
    }
}
