//! compare.js's CSV (spec §1.4, exact): the header
//! `"binary","filename","configuration","rate","time"` and one row per report,
//! `"old","util/format.js","type='string' n=100000",3300414.994181368,0.030299220`.
//! The rate is JavaScript's shortest round-trip `Number#toString`; the time is the child's
//! 9-decimal string verbatim (`NA` when the child gave none). Double quotes inside the quoted
//! fields are doubled; line breaks stay inside their quoted field (RFC 4180), which the reader
//! reads back. Every row is flushed as it is written.
//!
//! A run with counters (`--measure`) adds one column per counter after `time`, named as the
//! metric (`instructions`, `task-clock`, …; all lower is better, `task-clock` in seconds, the
//! others counts), `NA` where a row has no value. Readers that find columns by name (R's
//! `read.csv`, benchdiff) ignore them.
//!
//! Text cells (the quoted fields: binary, filename, configuration, the extra columns' names)
//! are written [`Cells::Verbatim`], byte for byte as compare.js writes them, or
//! [`Cells::SpreadsheetSafe`], each passed through [`spreadsheet_safe`] (OWASP's rule against
//! CSV injection). Number cells (rate, time, counters) are never changed.

use crate::format::inspect::js_number;
use crate::sample::Side;
use std::borrow::Cow;
use std::io::{self, Write};

/// How a CSV writer writes its text cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cells {
    /// As compare.js writes them: what compare.R and compare.js read, byte for byte. The
    /// writer keeps the first cell [`is_formula`] finds, for a warning.
    Verbatim,
    /// Each through [`spreadsheet_safe`]: a spreadsheet opening the file runs no formula.
    SpreadsheetSafe,
}

/// Whether a spreadsheet could run the text cell `text` as a formula, by OWASP's rule on CSV
/// injection: it starts with `=`, `+`, `-`, `@`, a tab or a carriage return. A cell that is
/// a decimal number as a whole (`-1.5`, `+2e-3`: only digits, `.`, `e`, `E`, `+`, `-`, and it
/// reads as a number) is not one: a spreadsheet reads it as that number and runs nothing.
pub fn is_formula(text: &str) -> bool {
    let starts = matches!(
        text.as_bytes().first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
    );
    let number =
        || text.bytes().all(|b| b"0123456789.eE+-".contains(&b)) && text.parse::<f64>().is_ok();
    starts && !number()
}

/// The text cell `text` as a spreadsheet shows it without running it: prefixed with `'` when
/// [`is_formula`] (a spreadsheet takes the rest as text and does not show the quote), else
/// unchanged. Readers of the file (benchdiff, compare.R) then read the `'` as part of the
/// name.
pub fn spreadsheet_safe(text: &str) -> Cow<'_, str> {
    if is_formula(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The header line, with its newline.
pub const HEADER: &str = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n";

/// Writes compare.js CSV rows to a stream, flushing after each.
pub struct CsvWriter<W: Write> {
    out: W,
    line: String,
    extra: usize,
    cells: Cells,
    /// [`Cells::Verbatim`]: the first text cell written that [`is_formula`].
    formula: Option<String>,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header and returns the writer of [`Cells::Verbatim`] cells.
    ///
    /// # Errors
    /// Write errors of `out`.
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_columns(out, &[], Cells::Verbatim)
    }

    /// Writes the header with `extra` columns after `time` and returns the writer of `cells`.
    ///
    /// # Errors
    /// Write errors of `out`.
    pub fn with_columns(out: W, extra: &[&str], cells: Cells) -> io::Result<Self> {
        let mut w = CsvWriter {
            out,
            line: HEADER.trim_end().to_owned(),
            extra: extra.len(),
            cells,
            formula: None,
        };
        let mut header = std::mem::take(&mut w.line);
        for name in extra {
            header.push_str(",\"");
            w.push_cell(&mut header, name);
            header.push('"');
        }
        header.push('\n');
        w.out.write_all(header.as_bytes())?;
        w.out.flush()?;
        header.clear();
        w.line = header;
        Ok(w)
    }

    /// The first text cell written as it is that a spreadsheet could run as a formula
    /// ([`Cells::Verbatim`], [`is_formula`]); `None` when there was none.
    pub fn formula_cell(&self) -> Option<&str> {
        self.formula.as_deref()
    }

    /// Appends the text cell `field` to `line` as the writer's [`Cells`] say, its double
    /// quotes doubled.
    fn push_cell(&mut self, line: &mut String, field: &str) {
        match self.cells {
            Cells::Verbatim => {
                if self.formula.is_none() && is_formula(field) {
                    self.formula = Some(field.to_owned());
                }
                push_escaped(line, field);
            }
            Cells::SpreadsheetSafe => push_escaped(line, &spreadsheet_safe(field)),
        }
    }

    /// The extra columns' count (see [`CsvWriter::with_columns`]).
    pub fn extra_columns(&self) -> usize {
        self.extra
    }

    /// Writes and flushes one row. `time` is the text for the `time` column.
    ///
    /// # Errors
    /// Write errors of the stream (e.g. a closed pipe).
    pub fn row(
        &mut self,
        side: Side,
        file: &str,
        configuration: &str,
        rate: f64,
        time: &str,
    ) -> io::Result<()> {
        self.row_with(side, file, configuration, rate, time, &[])
    }

    /// Writes and flushes one row with the values of the extra columns (`None`, and any
    /// value missing at the end, is `NA`; numbers in JavaScript's shortest form). A
    /// [`Side::Control`] row is not written: compare.R reads only `old` and `new`, and the
    /// control's samples are kept in the results file.
    ///
    /// # Errors
    /// Write errors of the stream (e.g. a closed pipe).
    pub fn row_with(
        &mut self,
        side: Side,
        file: &str,
        configuration: &str,
        rate: f64,
        time: &str,
        extra: &[Option<f64>],
    ) -> io::Result<()> {
        if side == Side::Control {
            return Ok(());
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        line.push('"');
        line.push_str(side.label());
        line.push_str("\",\"");
        self.push_cell(&mut line, file);
        line.push_str("\",\"");
        self.push_cell(&mut line, configuration);
        line.push_str("\",");
        line.push_str(&js_number(rate));
        line.push(',');
        line.push_str(time);
        for i in 0..self.extra {
            line.push(',');
            match extra.get(i).copied().flatten() {
                Some(v) => line.push_str(&js_number(v)),
                None => line.push_str("NA"),
            }
        }
        line.push('\n');
        let written = self.out.write_all(line.as_bytes());
        self.line = line;
        written?;
        self.out.flush()
    }
}

/// Appends `field` to `s` with its double quotes doubled (the inside of a quoted field).
pub fn push_escaped(s: &mut String, field: &str) {
    for c in field.chars() {
        if c == '"' {
            s.push('"');
        }
        s.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::SampleSet;

    #[test]
    fn rows_are_exact_and_read_back() {
        let mut buf = Vec::new();
        {
            let mut w = CsvWriter::new(&mut buf).unwrap();
            w.row(
                Side::Old,
                "util/format.js",
                "type='string' n=100000",
                3300414.994181368,
                "0.030299220",
            )
            .unwrap();
            w.row(Side::New, "a.js", "s=`x \"y\" z'`", 1e21, "NA")
                .unwrap();
        }
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(
            text,
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\
             \"old\",\"util/format.js\",\"type='string' n=100000\",3300414.994181368,0.030299220\n\
             \"new\",\"a.js\",\"s=`x \"\"y\"\" z'`\",1e+21,NA\n"
        );
        let mut set = SampleSet::new();
        crate::format::node_csv::read_compare_csv(text.as_bytes(), "t", &mut set).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set.samples()[0].value, 3300414.994181368);
        assert_eq!(
            set.benchmark(set.samples()[1].benchmark).configuration.text,
            "s=`x \"y\" z'`"
        );
    }

    #[test]
    fn formula_cells_by_owasp_and_numbers_kept() {
        for f in [
            "=1+1",
            "+cmd|' /C calc'!A0",
            "-2+3",
            "-x",
            "@SUM(A1)",
            "\tx",
            "\rx",
            "-inf",
            "+",
        ] {
            assert!(is_formula(f), "{f:?}");
            assert_eq!(spreadsheet_safe(f), format!("'{f}"));
        }
        for plain in [
            "", "a.js", "n=1 x=-1", "-1.5", "+2e-3", "-0", "1-2", " =x", "'=x",
        ] {
            assert!(!is_formula(plain), "{plain:?}");
            assert_eq!(spreadsheet_safe(plain), plain);
        }
    }

    #[test]
    fn safe_cells_are_neutralised_and_verbatim_ones_kept_and_noted() {
        let write = |cells| {
            let mut buf = Vec::new();
            let mut w = CsvWriter::with_columns(&mut buf, &["@n"], cells).unwrap();
            w.row_with(Side::Old, "=a\"b", "-n=1", -1.5, "NA", &[Some(-2.0)])
                .unwrap();
            let first = w.formula_cell().map(str::to_owned);
            (String::from_utf8(buf).unwrap(), first)
        };
        let (safe, first) = write(Cells::SpreadsheetSafe);
        assert_eq!(
            safe,
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\",\"'@n\"\n\
             \"old\",\"'=a\"\"b\",\"'-n=1\",-1.5,NA,-2\n"
        );
        assert_eq!(first, None);
        let (verbatim, first) = write(Cells::Verbatim);
        assert!(verbatim.ends_with("\"@n\"\n\"old\",\"=a\"\"b\",\"-n=1\",-1.5,NA,-2\n"));
        assert_eq!(first.as_deref(), Some("@n"));
    }

    #[test]
    fn line_breaks_in_names_are_quoted_and_read_back() {
        let mut buf = Vec::new();
        {
            let mut w = CsvWriter::new(&mut buf).unwrap();
            w.row(Side::Old, "a\nb.js", "n=1\r\n\"x\"", 1.0, "NA")
                .unwrap();
            w.row(Side::New, "a\nb.js", "n=1\r\n\"x\"", 2.0, "NA")
                .unwrap();
        }
        let text = String::from_utf8(buf).unwrap();
        assert!(
            text.contains("\"old\",\"a\nb.js\",\"n=1\r\n\"\"x\"\"\",1,NA\n"),
            "{text}"
        );
        let mut set = SampleSet::new();
        crate::format::node_csv::read_compare_csv(text.as_bytes(), "t", &mut set).unwrap();
        assert_eq!(set.len(), 2);
        let b = set.benchmark(set.samples()[1].benchmark);
        // The reader gives a line break as `\n` (a CRLF inside a field reads as LF).
        assert_eq!(
            (&*b.file, &*b.configuration.text),
            ("a\nb.js", "n=1\n\"x\"")
        );
    }
}
