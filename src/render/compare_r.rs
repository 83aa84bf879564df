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

use crate::verdict::Row;
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

/// The five cells compare.R prints for a row: confidence, improvement, and the three
/// accuracy columns.
pub fn cells(row: &Row) -> [String; 5] {
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

/// Renders the table and paragraph for `rows` (already in report order) with print width
/// `width` (R's is [`R_PRINT_WIDTH`]).
pub fn render(rows: &[Row], width: usize) -> String {
    // compare.R's row name is `paste0(filename, ' ', configuration)`: an empty configuration
    // leaves a trailing space, which benchdiff's own names drop (a name without a space is a
    // file without configuration).
    let names: Vec<String> = rows
        .iter()
        .map(|r| {
            let n = &r.comparison.name;
            if n.contains(' ') {
                r_escape(n)
            } else {
                r_escape(&format!("{n} "))
            }
        })
        .collect();
    let cells: Vec<[String; 5]> = rows.iter().map(cells).collect();
    let rlabw = names.iter().map(|n| n.width()).max().unwrap_or(0);
    let mut w = HEADERS.map(|h| h.width());
    for c in &cells {
        for j in 0..5 {
            w[j] = w[j].max(c[j].width());
        }
    }
    let mut out = String::with_capacity(rows.len() * (rlabw + 60) + 600);
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
        push_spaces(&mut out, rlabw);
        for j in jmin..jmax {
            push_spaces(&mut out, 1 + w[j] - HEADERS[j].width());
            out.push_str(HEADERS[j]);
        }
        out.push('\n');
        for (name, c) in names.iter().zip(&cells) {
            out.push_str(name);
            push_spaces(&mut out, rlabw - name.width());
            for j in jmin..jmax {
                push_spaces(&mut out, 1 + w[j] - c[j].width());
                out.push_str(&c[j]);
            }
            out.push('\n');
        }
        jmin = jmax;
    }
    out.push('\n');
    out.push_str(&false_positive_paragraph(rows.len()));
    out
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
