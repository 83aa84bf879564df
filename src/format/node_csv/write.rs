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

use crate::format::inspect::js_number;
use crate::sample::Side;
use std::io::{self, Write};

/// The header line, with its newline.
pub const HEADER: &str = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n";

/// Writes compare.js CSV rows to a stream, flushing after each.
pub struct CsvWriter<W: Write> {
    out: W,
    line: String,
    extra: usize,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header and returns the writer.
    ///
    /// # Errors
    /// Write errors of `out`.
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_columns(out, &[])
    }

    /// Writes the header with `extra` columns after `time` and returns the writer.
    ///
    /// # Errors
    /// Write errors of `out`.
    pub fn with_columns(mut out: W, extra: &[&str]) -> io::Result<Self> {
        let mut header = HEADER.trim_end().to_owned();
        for name in extra {
            header.push_str(",\"");
            push_escaped(&mut header, name);
            header.push('"');
        }
        header.push('\n');
        out.write_all(header.as_bytes())?;
        out.flush()?;
        Ok(CsvWriter {
            out,
            line: String::with_capacity(256),
            extra: extra.len(),
        })
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
        self.line.clear();
        self.line.push('"');
        self.line.push_str(side.label());
        self.line.push_str("\",\"");
        push_escaped(&mut self.line, file);
        self.line.push_str("\",\"");
        push_escaped(&mut self.line, configuration);
        self.line.push_str("\",");
        self.line.push_str(&js_number(rate));
        self.line.push(',');
        self.line.push_str(time);
        for i in 0..self.extra {
            self.line.push(',');
            match extra.get(i).copied().flatten() {
                Some(v) => self.line.push_str(&js_number(v)),
                None => self.line.push_str("NA"),
            }
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())?;
        self.out.flush()
    }
}

fn push_escaped(s: &mut String, field: &str) {
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
