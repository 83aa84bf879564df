//! Importer for the CSV that Node's `benchmark/compare.js` writes (spec §1.4, §1.5).
//!
//! Two dialects are read, and may be mixed across concatenated inputs:
//! - current: header `"binary","filename","configuration","rate","time"`, rows
//!   `"old","util/format.js","type='string' n=100000",3300414.99,0.030299220`;
//! - pre-2024: the same with `", "` separators. R's `read.csv` keeps the space inside each
//!   text field after the first (its scanner adds spaces before an opening quote to the
//!   field), and so does this reader: the row `"old", "fs/x.js", "n=1", 10, 0.1` is file
//!   ` fs/x.js` with configuration ` n=1`, named ` fs/x.js  n=1` as compare.R names it. Header
//!   names are read without the spaces (R reads the header with `strip.white = TRUE`).
//!
//! Columns are found by header name (as `read.csv` + `dat$rate` do), so their order may vary;
//! `binary`, `filename`, `configuration` and `rate` are required, `time` is optional.
//! A later header line (several files concatenated with `cat`) is recognised by its fields
//! all being column names, wherever they are, and its column order is used from there on; a
//! header naming a column twice is an error. Blank lines are skipped as `read.csv` does; a NUL
//! byte in a field is an error naming line and column.
//!
//! A quoted field may hold line breaks (RFC 4180; benchdiff writes a name that has one so):
//! a line that ends inside quotes is joined with the next ones until the quote closes, and the
//! record is numbered by its first line; quotes that never close (within the line limit, or
//! before the input ends) are reported on that line and the lines after it read on their own.
//!
//! Why a tokenizer of our own instead of the `csv` crate: this is a fixed, line-oriented
//! dialect (compare.js never writes a line break inside a field), and the `csv` crate is
//! deliberately lenient — it silently splices a stray quote into the field (as in the oracle's
//! `complex.csv`, which uses backslash-escaped quotes). Here every malformed row is an error
//! that names its file, line and column. Lines longer than [`MAX_LINE_BYTES`] are rejected
//! without being held in memory.
//!
//! Numbers are read as R's `read.csv` reads them: surrounding spaces, a leading `+`, `NaN`,
//! `Inf`/`-Inf`, `Infinity`/`-Infinity` (what JavaScript writes) and `NA` (read as NaN).

pub mod write;

use crate::error::{Diagnostic, ImportError, MAX_DIAGNOSTICS};
use crate::format::{Line, LineReader};
use crate::sample::{RATE, Sample, SampleSet, SampleSink, Side};
use std::io::BufRead;

mod fast;
use fast::read_blocks;

/// The longest line accepted, in bytes (1 MiB); longer lines are an error naming the line.
pub const MAX_LINE_BYTES: usize = crate::format::MAX_LINE_BYTES;

/// What one import read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Data rows read into samples.
    pub rows: u64,
    /// Header lines seen (one per concatenated file).
    pub headers: u64,
    /// True if any header used the pre-2024 `", "` separator.
    pub legacy: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Columns {
    binary: Option<usize>,
    filename: usize,
    configuration: usize,
    rate: usize,
    time: Option<usize>,
    count: usize,
}

/// Reads compare.js CSV from `input` (named `name` in diagnostics) into `set`.
///
/// # Errors
/// [`ImportError::Io`] when reading fails; [`ImportError::Invalid`] listing every bad line
/// (file, line, what was wrong; the first [`MAX_DIAGNOSTICS`] are kept) when any row could not
/// be read: a missing header or column, an unknown binary label (only `old`/`new`), a
/// non-numeric rate or time, malformed quoting, invalid UTF-8, an over-long line.
/// Good rows are still added to `set` when an error is returned.
pub fn read_compare_csv<R: BufRead, S: SampleSink>(
    input: R,
    name: &str,
    set: &mut S,
) -> Result<ImportSummary, ImportError> {
    set.names_mut().mark_rounds_recorded(); // compare.js writes each run's old and new samples together
    read_csv(input, name, None, false, set).map(|(s, _)| s)
}

/// Reads the CSV of Node's `benchmark/run.js --format csv` (compare.js's columns without
/// `binary`) from `input`, streamed, putting every row on `side`. Quoting, numbers, line
/// limit and diagnostics are those of [`read_compare_csv`]; a `binary` column, if present, is
/// ignored.
///
/// # Errors
/// As [`read_compare_csv`].
pub fn read_run_csv<R: BufRead>(
    input: R,
    name: &str,
    side: Side,
    set: &mut SampleSet,
) -> Result<ImportSummary, ImportError> {
    read_csv(input, name, Some(side), false, set).map(|(s, _)| s)
}

/// [`read_run_csv`] as the lenient importers read: rows that cannot be read (a line over the
/// limit, a wrong field count, a rate that is not a number, text between rows) are skipped and
/// summed up in one warning (see [`crate::error::Diagnostics::finish_lenient`]); an error only
/// when no row could be read, or a line is not UTF-8 (another encoding).
///
/// # Errors
/// As [`read_compare_csv`], only when no row was read or a line is not UTF-8.
pub fn read_run_csv_lenient<R: BufRead>(
    input: R,
    name: &str,
    side: Side,
    set: &mut SampleSet,
) -> Result<(ImportSummary, Option<Diagnostic>), ImportError> {
    read_csv(input, name, Some(side), true, set)
}

/// What the per-line step asks of the loop: go on, or stop (no header: nothing else can be
/// read).
enum Flow {
    Go,
    Stop,
}

/// The reading state of [`read_csv`]: what was read, the problems, the columns in effect.
struct State<'n> {
    name: &'n str,
    fixed: Option<Side>,
    lenient: bool,
    summary: ImportSummary,
    diags: Vec<Diagnostic>,
    bad: u64,
    scratch: Vec<u8>,
    ranges: Vec<(usize, usize)>,
    columns: Option<Columns>,
    /// The column names of the first header (a later header may only use these and the
    /// standard ones).
    first_header: rustc_hash::FxHashSet<String>,
    line_no: u64,
    /// A record whose quoted field holds line breaks (RFC 4180), read so far.
    open: Option<OpenRecord>,
}

/// The lines of a record whose quoted field holds line breaks, joined by `\n`.
struct OpenRecord {
    /// The number of its first line.
    start: u64,
    /// Its lines so far, joined.
    text: String,
    /// Where each line after the first starts in `text`.
    starts: Vec<usize>,
}

impl OpenRecord {
    /// The record's lines, one by one.
    fn lines(&self) -> Vec<&str> {
        let mut out = Vec::with_capacity(self.starts.len() + 1);
        let mut from = 0;
        for &s in &self.starts {
            out.push(&self.text[from..s - 1]);
            from = s;
        }
        out.push(&self.text[from..]);
        out
    }
}

/// True when `line` ends inside a quoted field: it holds an odd number of quotes (a quote
/// inside a quoted field is doubled, and an unquoted field holds none).
fn ends_in_quotes(line: &[u8]) -> bool {
    memchr::memchr_iter(b'"', line).count() % 2 == 1
}

impl State<'_> {
    fn report(&mut self, line: u64, message: String) {
        self.bad += 1;
        if self.diags.len() < MAX_DIAGNOSTICS {
            self.diags
                .push(crate::error::Diagnostic::new(self.name, line, message));
        }
    }

    /// Reads line `line_no` (as the line reader gave it) into `set`.
    fn line<S: SampleSink>(&mut self, read: Line<'_>, set: &mut S) -> Result<Flow, ImportError> {
        if self.open.is_some() {
            return self.continue_record(read, set);
        }
        let line_no = self.line_no;
        // Lines over the limit and lines that are not UTF-8 are reported and skipped here. The
        // whole line is validated before it is cut into fields: fields are cut at ASCII
        // separators, so each is then valid too (validating the joined fields would let a
        // sequence split across two fields pass).
        let text = match read {
            Line::Text(t) => t,
            other @ Line::NotUtf8 { .. } if self.lenient => {
                return Err(crate::format::invalid(
                    self.name,
                    line_no,
                    format!(
                        "{}: the file is not UTF-8 (nor UTF-16 with a byte-order mark)",
                        other.problem().unwrap_or_default()
                    ),
                ));
            }
            other => {
                self.report(line_no, other.problem().unwrap_or_default());
                return Ok(Flow::Go);
            }
        };
        let line = text.as_bytes();
        if line.iter().all(|b| *b == b' ' || *b == b'\t') {
            return Ok(Flow::Go);
        }
        if ends_in_quotes(line) {
            // A quoted field goes on on the next line.
            self.open = Some(OpenRecord {
                start: line_no,
                text: text.to_owned(),
                starts: Vec::new(),
            });
            return Ok(Flow::Go);
        }
        Ok(self.record(line, line_no, set))
    }

    /// Reads one record (a line, or lines joined by a quoted field's line breaks) numbered
    /// `line_no` into `set`.
    fn record<S: SampleSink>(&mut self, line: &[u8], line_no: u64, set: &mut S) -> Flow {
        let fixed = self.fixed;
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut ranges = std::mem::take(&mut self.ranges);
        let flow = self.fields(line, line_no, fixed, &mut scratch, &mut ranges, set);
        self.scratch = scratch;
        self.ranges = ranges;
        flow
    }

    /// The next line `read` of a record whose quoted field holds line breaks: the record is
    /// read once its quotes close, as one record numbered by its first line.
    fn continue_record<S: SampleSink>(
        &mut self,
        read: Line<'_>,
        set: &mut S,
    ) -> Result<Flow, ImportError> {
        let Some(mut open) = self.open.take() else {
            return self.line(read, set);
        };
        let Line::Text(text) = read else {
            return self.unclosed(open, Some(read), set);
        };
        open.text.push('\n');
        open.starts.push(open.text.len());
        open.text.push_str(text);
        if ends_in_quotes(text.as_bytes()) {
            // The quote closes on this line: one record if it splits.
            let mut scratch = std::mem::take(&mut self.scratch);
            let mut ranges = std::mem::take(&mut self.ranges);
            let keep_spaces = self.fixed.is_none();
            let splits =
                split_fields(open.text.as_bytes(), keep_spaces, &mut scratch, &mut ranges).is_ok();
            self.scratch = scratch;
            self.ranges = ranges;
            if splits {
                return Ok(self.record(open.text.as_bytes(), open.start, set));
            }
            return self.unclosed(open, None, set);
        }
        if open.text.len() > MAX_LINE_BYTES {
            return self.unclosed(open, None, set);
        }
        self.open = Some(open);
        Ok(Flow::Go)
    }

    /// A record whose quotes never closed (the input or the line limit ended, or the joined
    /// lines are not one record): its first line is reported as it is, and the lines after it
    /// (then `after`, a line that is not text) are read on their own.
    fn unclosed<S: SampleSink>(
        &mut self,
        open: OpenRecord,
        after: Option<Line<'_>>,
        set: &mut S,
    ) -> Result<Flow, ImportError> {
        let last = self.line_no;
        let lines = open.lines();
        let mut flow = self.record(lines[0].as_bytes(), open.start, set);
        for (i, l) in lines.iter().enumerate().skip(1) {
            if let Flow::Stop = flow {
                break;
            }
            self.line_no = open.start + i as u64;
            flow = self.line(Line::Text(l), set)?;
        }
        self.line_no = last;
        match (flow, after) {
            (Flow::Stop, _) => Ok(Flow::Stop),
            (Flow::Go, Some(read)) => self.line(read, set),
            (Flow::Go, None) => Ok(Flow::Go),
        }
    }

    /// Ends the input: a record still open is reported and its lines read on their own.
    fn finish<S: SampleSink>(&mut self, set: &mut S) -> Result<(), ImportError> {
        while let Some(open) = self.open.take() {
            if let Flow::Stop = self.unclosed(open, None, set)? {
                break;
            }
        }
        Ok(())
    }

    /// The rest of [`State::line`], for a line that is text and not blank.
    fn fields<S: SampleSink>(
        &mut self,
        line: &[u8],
        line_no: u64,
        fixed: Option<Side>,
        scratch: &mut Vec<u8>,
        ranges: &mut Vec<(usize, usize)>,
        set: &mut S,
    ) -> Flow {
        if let Err((col, msg)) = split_fields(line, fixed.is_none(), scratch, ranges) {
            self.report(line_no, format!("column {col}: {msg}"));
            return Flow::Go;
        }
        let Ok(text) = std::str::from_utf8(scratch) else {
            self.report(line_no, "not valid UTF-8".to_owned());
            return Flow::Go;
        };
        let field = |i: usize| -> &str { &text[ranges[i].0..ranges[i].1] };
        if let Some(i) = (0..ranges.len()).find(|&i| field(i).contains('\0')) {
            self.report(
                line_no,
                format!(
                    "column {}: a NUL byte inside field {} (not text; R's read.csv cannot \
                     read it either)",
                    memchr::memchr(0, line).map_or(0, |p| p + 1),
                    i + 1
                ),
            );
            return Flow::Go;
        }

        // A header line: the first line, or a later one whose fields are all column names
        // (concatenated files; their column order may differ).
        // Header names are read as R reads them (`strip.white = TRUE`): without the spaces of
        // the legacy separator. Data fields keep them.
        let hfield = |i: usize| -> &str { field(i).trim_matches(' ') };
        let is_header = self.columns.is_none()
            || (0..ranges.len()).all(|i| {
                let f = hfield(i);
                KNOWN_COLUMNS.contains(&f) || self.first_header.contains(f)
            });
        if is_header {
            match header_columns(ranges.len(), hfield, fixed.is_none()) {
                Ok(c) => {
                    if self.columns.is_none() {
                        self.first_header =
                            (0..ranges.len()).map(|i| hfield(i).to_owned()).collect();
                    }
                    self.columns = Some(c);
                    self.summary.headers += 1;
                    self.summary.legacy |= line.windows(3).any(|w| w == b"\", ");
                }
                Err(msg) => {
                    self.report(line_no, msg);
                    if self.columns.is_none() {
                        // Without a header nothing else can be read.
                        return Flow::Stop;
                    }
                }
            }
            return Flow::Go;
        }
        let Some(cols) = self.columns else {
            return Flow::Go;
        };
        if ranges.len() != cols.count {
            self.report(
                line_no,
                format!(
                    "expected {} fields as in the header, found {}",
                    cols.count,
                    ranges.len()
                ),
            );
            return Flow::Go;
        }
        let side = match (fixed, cols.binary) {
            (Some(side), _) => side,
            (None, Some(b)) => {
                // A label after a legacy `", "` keeps its space in R (and matches neither
                // side there); it is read here without it.
                let label = field(b).trim_start_matches(' ');
                let Some(side) = Side::from_label(label) else {
                    self.report(
                        line_no,
                        format!("unknown binary label '{label}' (expected \"old\" or \"new\")"),
                    );
                    return Flow::Go;
                };
                side
            }
            (None, None) => return Flow::Go, // header_columns requires it
        };
        let rate = match parse_r_number(field(cols.rate)) {
            Some(v) => v,
            None => {
                self.report(
                    line_no,
                    format!("rate '{}' is not a number", field(cols.rate)),
                );
                return Flow::Go;
            }
        };
        let time_s = match cols.time {
            None => f64::NAN,
            Some(i) => match parse_r_number(field(i)) {
                Some(v) => v,
                None => {
                    self.report(line_no, format!("time '{}' is not a number", field(i)));
                    return Flow::Go;
                }
            },
        };
        let id = set
            .names_mut()
            .intern(field(cols.filename), field(cols.configuration));
        set.push(crate::sample::Sample::new(
            id, side, RATE, rate, time_s, None,
        ));
        self.summary.rows += 1;
        Flow::Go
    }

    /// Reads the lines of `input` one by one, numbered on from the last line read; true when
    /// a line asked to stop.
    fn lines<R: BufRead, S: SampleSink>(
        &mut self,
        input: R,
        set: &mut S,
    ) -> Result<bool, ImportError> {
        let mut lines = LineReader::new(input, self.name).starting_after(self.line_no);
        while let Some((n, read)) = lines.next_line()? {
            self.line_no = n;
            if let Flow::Stop = self.line(read, set)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The reader behind both: `fixed` is the side of every row when the CSV has no `binary`
/// column (run.js), `None` for compare.js CSV.
///
/// compare.js CSV is read line by line up to its first header, then in blocks of whole lines
/// parsed in parallel ([`parse_block`]); a block with anything but plain data rows (a problem,
/// a blank line or a later header) is read line by line instead, so diagnostics, their lines
/// and their order are those of reading the whole input line by line.
fn read_csv<R: BufRead, S: SampleSink>(
    input: R,
    name: &str,
    fixed: Option<Side>,
    lenient: bool,
    set: &mut S,
) -> Result<(ImportSummary, Option<Diagnostic>), ImportError> {
    read_csv_in(
        input,
        name,
        fixed,
        lenient,
        fixed.is_none() && !lenient,
        set,
    )
}

/// [`read_csv`], in blocks after the first header when `blocks`, else line by line throughout.
fn read_csv_in<R: BufRead, S: SampleSink>(
    mut input: R,
    name: &str,
    fixed: Option<Side>,
    lenient: bool,
    blocks: bool,
    set: &mut S,
) -> Result<(ImportSummary, Option<Diagnostic>), ImportError> {
    let mut st = State {
        name,
        fixed,
        lenient,
        summary: ImportSummary::default(),
        diags: Vec::new(),
        bad: 0,
        scratch: Vec::with_capacity(256),
        ranges: Vec::with_capacity(8),
        columns: None,
        first_header: rustc_hash::FxHashSet::default(),
        line_no: 0,
        open: None,
    };
    {
        let mut lines = LineReader::new(&mut input, name);
        while let Some((n, read)) = lines.next_line()? {
            st.line_no = n;
            if let Flow::Stop = st.line(read, set)? {
                break;
            }
            if blocks && st.columns.is_some() {
                break;
            }
        }
    }
    if blocks && st.columns.is_some() {
        read_blocks(&mut st, &mut input, set)?;
    }
    st.finish(set)?;

    let (summary, line_no) = (st.summary, st.line_no);
    if line_no == 0 {
        let header = if fixed.is_some() {
            "a run.js CSV header \"filename\", \"configuration\", \"rate\", \"time\""
        } else {
            "a compare.js CSV header \"binary\",\"filename\",\"configuration\",\"rate\",\"time\""
        };
        st.report(0, format!("empty input: expected {header}"));
    }
    if st.bad > 0 {
        if lenient && line_no > 0 {
            let warning = crate::error::Diagnostics::from_parts(name, st.diags, st.bad)
                .finish_lenient(summary.rows, "rows")?;
            return Ok((summary, warning));
        }
        return Err(ImportError::Invalid(st.diags, st.bad));
    }
    Ok((summary, None))
}

/// The columns compare.js writes.
const KNOWN_COLUMNS: [&str; 5] = ["binary", "filename", "configuration", "rate", "time"];

fn header_columns<'a>(
    count: usize,
    field: impl Fn(usize) -> &'a str,
    binary_required: bool,
) -> Result<Columns, String> {
    // Each name's first column, in one pass (linear in the number of columns).
    let mut first: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    first.reserve(count);
    for j in 0..count {
        if let Some(i) = first.insert(field(j), j) {
            return Err(format!(
                "the header names column \"{}\" twice (columns {} and {})",
                field(j),
                i + 1,
                j + 1
            ));
        }
    }
    let find = |name: &str| first.get(name).copied();
    let mut missing = Vec::new();
    let mut need = |name: &'static str| {
        let f = find(name);
        if f.is_none() {
            missing.push(name);
        }
        f.unwrap_or(0)
    };
    let binary = if binary_required {
        Some(need("binary"))
    } else {
        find("binary")
    };
    let c = Columns {
        binary,
        filename: need("filename"),
        configuration: need("configuration"),
        rate: need("rate"),
        time: find("time"),
        count,
    };
    if missing.is_empty() {
        Ok(c)
    } else {
        let (what, expected) = if binary_required {
            (
                "compare.js",
                "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"",
            )
        } else {
            (
                "run.js",
                "\"filename\", \"configuration\", \"rate\", \"time\"",
            )
        };
        Err(format!(
            "not a {what} CSV header: missing column(s) {} (expected {expected})",
            missing
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// Splits one CSV line into fields: unquoted, or `"quoted"` with `""` for a quote; spaces
/// around a quoted field are allowed (the legacy `", "` separator) and, with `keep_spaces`
/// (compare.js CSV, read as R reads it), kept in the field; run.js CSV drops them. Field bytes go to
/// `scratch`, their ranges to `ranges`. On error returns the 1-based column and a message.
fn split_fields(
    line: &[u8],
    keep_spaces: bool,
    scratch: &mut Vec<u8>,
    ranges: &mut Vec<(usize, usize)>,
) -> Result<(), (usize, String)> {
    scratch.clear();
    ranges.clear();
    let n = line.len();
    let mut pos = 0;
    loop {
        // Spaces before an opening quote stay in the field, as R's `read.csv` keeps them
        // (legacy `", "` separator: `"old", "a.js"` gives the filename ` a.js`).
        let mut p = pos;
        while p < n && line[p] == b' ' {
            p += 1;
        }
        let start = scratch.len();
        if p < n && line[p] == b'"' {
            if keep_spaces {
                scratch.extend_from_slice(&line[pos..p]);
            }
            pos = p + 1;
            loop {
                let Some(q) = memchr::memchr(b'"', &line[pos..]).map(|i| i + pos) else {
                    return Err((p + 1, "quoted field is not closed on this line".to_owned()));
                };
                scratch.extend_from_slice(&line[pos..q]);
                if q + 1 < n && line[q + 1] == b'"' {
                    scratch.push(b'"');
                    pos = q + 2;
                    continue;
                }
                pos = q + 1;
                break;
            }
            // Spaces after the closing quote: R appends them to the field too.
            let after = pos;
            while pos < n && line[pos] == b' ' {
                pos += 1;
            }
            if keep_spaces {
                scratch.extend_from_slice(&line[after..pos]);
            }
            if pos < n && line[pos] != b',' {
                return Err((
                    pos + 1,
                    "text after a closing quote (a quote inside a quoted field must be doubled as \"\"; backslash escapes are not CSV)".to_owned(),
                ));
            }
        } else {
            let end = memchr::memchr(b',', &line[pos..]).map_or(n, |i| i + pos);
            let fld = &line[pos..end];
            if let Some(i) = memchr::memchr(b'"', fld) {
                return Err((
                    pos + i + 1,
                    "quote inside an unquoted field (quote the whole field)".to_owned(),
                ));
            }
            scratch.extend_from_slice(fld);
            pos = end;
        }
        ranges.push((start, scratch.len()));
        if pos >= n {
            return Ok(());
        }
        pos += 1; // the comma
        if pos == n {
            ranges.push((scratch.len(), scratch.len()));
            return Ok(());
        }
    }
}

/// Parses a number as R's `read.csv` does for a numeric column: surrounding white space,
/// an optional sign (`+` included), decimal or exponent notation, `NaN`, `Inf`, `Infinity`
/// (any case), and `NA` (returned as NaN). Returns `None` for anything else (including empty).
pub fn parse_r_number(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c == ' ' || c == '\t');
    if t.is_empty() {
        return None;
    }
    if t == "NA" {
        return Some(f64::NAN);
    }
    let (neg, body) = match t.as_bytes()[0] {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let v = if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        f64::INFINITY
    } else if body.eq_ignore_ascii_case("nan") {
        f64::NAN
    } else {
        let first = *body.as_bytes().first()?;
        if !(first.is_ascii_digit() || first == b'.') {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<(SampleSet, ImportSummary), ImportError> {
        let mut set = SampleSet::new();
        let s = read_compare_csv(text.as_bytes(), "t.csv", &mut set)?;
        Ok((set, s))
    }

    #[test]
    fn current_form() {
        let (set, s) = read(
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\"old\",\"util/format.js\",\"type='string' n=100000\",3300414.994181368,0.030299220\n",
        )
        .unwrap();
        assert_eq!(s.rows, 1);
        assert!(!s.legacy);
        let b = set.benchmark(set.samples()[0].benchmark);
        assert_eq!(b.name(), "util/format.js type='string' n=100000");
        assert_eq!(set.samples()[0].value, 3300414.994181368);
        assert_eq!(set.samples()[0].time_s, 0.030299220);
    }

    #[test]
    fn legacy_form_and_concatenation() {
        let (set, s) = read(
            "\"binary\", \"filename\", \"configuration\", \"rate\", \"time\"\n\"old\", \"fs/x.js\", \"n=1\", 10, 0.1\n\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\"new\",\"fs/x.js\",\"n=1\",12,0.1\n",
        )
        .unwrap();
        assert_eq!(s.headers, 2);
        assert!(s.legacy);
        // R keeps the legacy separator's spaces in the text fields: two names, as in R.
        assert_eq!(set.benchmarks().len(), 2);
        assert_eq!(set.benchmarks()[0].name(), " fs/x.js  n=1");
        assert_eq!(set.benchmarks()[1].name(), "fs/x.js n=1");
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn doubled_quotes_and_reordered_columns() {
        let (set, _) =
            read("rate,configuration,binary,filename\n5,\"s=\"\"a\"\"\",new,f.js\n").unwrap();
        assert_eq!(set.benchmarks()[0].configuration.text, "s=\"a\"");
        assert!(set.samples()[0].time_s.is_nan());
    }

    #[test]
    fn errors_name_file_and_line() {
        let err = read(
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\"old\",\"a.js\",\"\",1,1\n\"mid\",\"a.js\",\"\",1,1\n\"old\",\"a.js\",\"\",fast,1\n\"old\",\"a.js\",\"x=\\\"y\\\"\",1,1\n\"old\",\"a.js\",1,1\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("t.csv:3: unknown binary label 'mid'"), "{err}");
        assert!(
            err.contains("t.csv:4: rate 'fast' is not a number"),
            "{err}"
        );
        assert!(
            err.contains("t.csv:5: column 19: text after a closing quote"),
            "{err}"
        );
        assert!(err.contains("t.csv:6: expected 5 fields"), "{err}");
    }

    #[test]
    fn quoted_line_breaks_join_lines_and_unclosed_quotes_name_their_line() {
        let h = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n";
        let (set, sum) = read(&format!(
            "{h}\"old\",\"a\n\nb\",\"n=1\",1,1\n\"new\",\"a\n\nb\",\"n=1\",2,1\n\"old\",\"c\",\"\",3,1\n"
        ))
        .unwrap();
        assert_eq!((set.len(), sum.rows), (3, 3));
        assert_eq!(&*set.benchmark(set.samples()[0].benchmark).file, "a\n\nb");
        // A quote that never closes: its line is reported, the lines after it are read.
        let mut set = SampleSet::new();
        let err = read_compare_csv(
            format!("{h}\"old\",\"a.js\",\"n=1,1,1\n\"old\",\"b.js\",\"\",1,1\n").as_bytes(),
            "t.csv",
            &mut set,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("t.csv:2: column 14: quoted field is not closed"),
            "{err}"
        );
        assert!(!err.contains("t.csv:3"), "{err}");
        assert_eq!(set.len(), 1);
        // Quotes that close on a later line but do not make one record: the same.
        let mut set = SampleSet::new();
        let err = read_compare_csv(
            format!("{h}\"old\",\"a.js\",\"n=1,1,1\n\"old\",\"b.js\",\"\",1,1\n\"x\n").as_bytes(),
            "t.csv",
            &mut set,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("t.csv:2: column 14"), "{err}");
        assert!(err.contains("t.csv:4:"), "{err}");
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn missing_column() {
        let err = read("\"binary\",\"filename\",\"rate\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "t.csv:1: not a compare.js CSV header: missing column(s) \"configuration\""
            ),
            "{err}"
        );
    }

    #[test]
    fn header_naming_a_column_twice_is_an_error() {
        let err = read("binary,filename,binary,configuration,rate\nold,a.js,old,,1\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t.csv:1: the header names column \"binary\" twice (columns 1 and 3)"),
            "{err}"
        );
    }

    #[test]
    fn later_header_with_other_column_order_is_used() {
        let (set, s) = read(
            "binary,filename,configuration,rate,time\nold,a.js,n=1,10,1\n\
             rate,time,binary,filename,configuration\n12,1,new,a.js,n=1\n13,1,new,a.js,n=1\n",
        )
        .unwrap();
        assert_eq!(s.headers, 2);
        assert_eq!(set.len(), 3);
        assert_eq!(set.benchmarks().len(), 1);
        assert_eq!(set.samples()[2].value, 13.0);
        assert_eq!(set.samples()[2].side, Side::New);
    }

    #[test]
    fn nul_byte_names_line_and_column() {
        let err = read("binary,filename,configuration,rate\nold,a\0.js,,1\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("t.csv:2: column 6: a NUL byte"), "{err}");
    }

    #[test]
    fn r_numbers() {
        assert_eq!(parse_r_number("+65419587491"), Some(65419587491.0));
        assert_eq!(parse_r_number(" 1e+21 "), Some(1e21));
        assert_eq!(parse_r_number("Infinity"), Some(f64::INFINITY));
        assert_eq!(parse_r_number("-Inf"), Some(f64::NEG_INFINITY));
        assert!(parse_r_number("NaN").unwrap().is_nan());
        assert!(parse_r_number("NA").unwrap().is_nan());
        assert_eq!(parse_r_number(""), None);
        assert_eq!(parse_r_number("1,234"), None);
        assert_eq!(parse_r_number("0x10"), None);
    }

    #[test]
    fn over_long_line_is_rejected_not_loaded() {
        let mut text = String::from("binary,filename,configuration,rate\n");
        text.push_str(&"x".repeat(MAX_LINE_BYTES + 10));
        text.push_str("\nold,a.js,,1\n");
        let mut set = SampleSet::new();
        let err = read_compare_csv(text.as_bytes(), "t.csv", &mut set).unwrap_err();
        assert!(err.to_string().contains("t.csv:2: line is longer than"));
        assert_eq!(set.len(), 1);
    }
}
