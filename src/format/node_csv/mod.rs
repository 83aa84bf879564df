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
use crate::format::blocks::{Batch, read_ahead, split_line};
use crate::format::{Line, LineReader};
use crate::sample::{RATE, Sample, SampleSet, SampleSink, Side};
use std::io::BufRead;

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
            self.diags.push(Diagnostic {
                file: self.name.to_owned(),
                line,
                message,
            });
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
                return Err(ImportError::Invalid(
                    vec![Diagnostic {
                        file: self.name.to_owned(),
                        line: line_no,
                        message: format!(
                            "{}: the file is not UTF-8 (nor UTF-16 with a byte-order mark)",
                            other.problem().unwrap_or_default()
                        ),
                    }],
                    1,
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
        set.push(Sample {
            benchmark: id,
            side,
            metric: RATE,
            value: rate,
            time_s,
            run: None,
        });
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

/// Bytes of input per block parsed by one thread (1 MiB + 64 KiB: more than a line may hold,
/// so every full block of readable lines ends in a line break).
const BLOCK_BYTES: usize = MAX_LINE_BYTES + (1 << 16);

/// Reads the rest of a compare.js CSV (after its first header) in blocks of whole lines,
/// a batch of blocks at a time parsed in parallel while the next batch is read, and adds them
/// to `set` in order. Memory holds two batches of the input, never the whole of it.
fn read_blocks<R: BufRead, S: SampleSink>(
    st: &mut State<'_>,
    input: &mut R,
    set: &mut S,
) -> Result<(), ImportError> {
    use rayon::prelude::*;
    let batch_blocks = 2 * rayon::current_num_threads().max(1);
    let name = st.name;
    let io_err = |e: std::io::Error| ImportError::Io {
        file: name.to_owned(),
        source: e,
    };
    let mut carry: Vec<u8> = Vec::new();
    // The blocks' buffers, kept from batch to batch.
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut next = read_ahead(
        input,
        &mut carry,
        &mut pool,
        batch_blocks,
        BLOCK_BYTES,
        BLOCK_BYTES,
    )
    .map_err(io_err)?;
    loop {
        let (blocks, eof) = match next {
            Batch {
                blocks,
                long: None,
                eof,
            } => (blocks, eof),
            Batch {
                blocks,
                long: Some(buf),
                ..
            } => {
                // A line longer than a block (so over the line limit): the rest is read line
                // by line, which reports it.
                for b in blocks {
                    st.lines(&b[..], set)?;
                }
                st.lines(std::io::Read::chain(&buf[..], &mut *input), set)?;
                return Ok(());
            }
        };
        let Some(cols) = st.columns else {
            return Ok(());
        };
        // Names are looked up in the set (read-only while the blocks are parsed); names new
        // to a block are interned when it is added, in order. The next batch is read on this
        // thread meanwhile (the input need not be shareable between threads).
        let (parsed, ahead) = {
            let (first_header, known, blocks) = (&st.first_header, set.names(), &blocks);
            std::thread::scope(|s| {
                let parsing = s.spawn(move || {
                    blocks
                        .par_iter()
                        .map(|b| parse_block(b, cols, first_header, known))
                        .collect::<Vec<Option<Block>>>()
                });
                let ahead = if eof {
                    Ok(Batch {
                        blocks: Vec::new(),
                        long: None,
                        eof: true,
                    })
                } else {
                    read_ahead(
                        input,
                        &mut carry,
                        &mut pool,
                        batch_blocks,
                        BLOCK_BYTES,
                        BLOCK_BYTES,
                    )
                };
                (parsing.join(), ahead)
            })
        };
        let parsed = parsed.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        for (bytes, block) in blocks.iter().zip(parsed) {
            match block {
                // Parsed with the columns still in effect: add its rows, its names interned in
                // first-seen order (as reading row by row interns them).
                Some(block) if st.columns == Some(cols) && st.open.is_none() => {
                    let ids: Vec<crate::sample::BenchmarkId> = block
                        .names
                        .iter()
                        .map(|(file, conf)| set.names_mut().intern(file, conf))
                        .collect();
                    set.add(block.rows.iter().map(|&(r, side, value, time_s)| Sample {
                        benchmark: match r {
                            Ref::Known(id) => id,
                            Ref::New(k) => ids[k as usize],
                        },
                        side,
                        metric: RATE,
                        value,
                        time_s,
                        run: None,
                    }));
                    st.summary.rows += block.rows.len() as u64;
                    st.line_no += block.lines;
                }
                // Anything else, or a block after a header that changed the columns: line by
                // line.
                _ => {
                    st.lines(&bytes[..], set)?;
                }
            }
        }
        pool.extend(blocks);
        if eof {
            return Ok(());
        }
        next = ahead.map_err(io_err)?;
    }
}

/// The benchmark of a row parsed in parallel: one interned before the block, or the i-th new
/// name of the block.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ref {
    Known(crate::sample::BenchmarkId),
    New(u32),
}

/// The rows of a block parsed in parallel: benchmark names (file, configuration) not interned
/// before it, in first-seen order; rows `(benchmark, side, rate, time)`; the lines read.
struct Block {
    names: Vec<(Box<str>, Box<str>)>,
    rows: Vec<(Ref, Side, f64, f64)>,
    lines: u64,
}

/// Parses a block of whole compare.js CSV lines with the columns `cols`, or `None` when any
/// line is not a plain data row (over the line limit, not UTF-8, blank, malformed, a bad
/// label or number, a NUL byte, a header): the caller then reads the block line by line,
/// which reports it.
///
/// The block is validated as UTF-8 once; fields are cut at ASCII separators, so each is then
/// text too. A line in the usual form (each field quoted without quotes inside, or unquoted,
/// no spaces around) is cut in place ([`split_plain`]); any other goes through
/// [`split_fields`], which reads every form the line-by-line reader reads.
fn parse_block(
    bytes: &[u8],
    cols: Columns,
    first_header: &rustc_hash::FxHashSet<String>,
    known: &SampleSet,
) -> Option<Block> {
    let binary = cols.binary?;
    // A data row here is never a header line: its binary field is `old` or `new`, which a
    // header line could only hold if the first header named such a column.
    if first_header.contains("old") || first_header.contains("new") {
        return None;
    }
    // A NUL byte anywhere in a line is an error of that line (in a field, or in the quoting).
    if memchr::memchr(0, bytes).is_some() {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let mut names: Vec<(Box<str>, Box<str>)> = Vec::new();
    // Names new to the block by hash; a second name with the same hash gives up on the block
    // (the line-by-line reader interns it correctly).
    let mut index: rustc_hash::FxHashMap<u64, u32> = rustc_hash::FxHashMap::default();
    let mut last: Option<(u64, Ref)> = None;
    let mut rows = Vec::with_capacity(bytes.len() / 64);
    let mut scratch = Vec::with_capacity(256);
    let mut ranges = Vec::with_capacity(8);
    let mut lines = 0u64;
    let mut rest = text;
    while !rest.is_empty() {
        let (mut line, next) = split_line(rest);
        rest = next;
        lines += 1;
        if line.len() > MAX_LINE_BYTES {
            return None;
        }
        if let Some(l) = line.strip_suffix('\r') {
            line = l;
        }
        let fields: &str = if split_plain(line.as_bytes(), &mut ranges) {
            line
        } else {
            if line.bytes().all(|b| b == b' ' || b == b'\t')
                || split_fields(line.as_bytes(), true, &mut scratch, &mut ranges).is_err()
            {
                return None;
            }
            std::str::from_utf8(&scratch).ok()?
        };
        if ranges.len() != cols.count {
            return None;
        }
        let field = |i: usize| -> &str { &fields[ranges[i].0..ranges[i].1] };
        let side = Side::from_label(field(binary).trim_start_matches(' '))?;
        let rate = parse_r_number(field(cols.rate))?;
        let time_s = match cols.time {
            None => f64::NAN,
            Some(i) => parse_r_number(field(i))?,
        };
        let (file, conf) = (field(cols.filename), field(cols.configuration));
        let hash = crate::sample::benchmark_hash(file, conf);
        let k = match last {
            // The same hash as the last row's: the same name unless it collides, which the
            // look-ups below check.
            Some((h, k)) if h == hash && name_of(k, &names, known) == Some((file, conf)) => k,
            _ => {
                let k = match known.find_hashed(hash, file, conf) {
                    Some(id) => Ref::Known(id),
                    None => match index.entry(hash) {
                        std::collections::hash_map::Entry::Occupied(e) => {
                            let k = *e.get();
                            let (f, c) = &names[k as usize];
                            if (&**f, &**c) != (file, conf) {
                                return None;
                            }
                            Ref::New(k)
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            let k = u32::try_from(names.len()).ok()?;
                            names.push((file.into(), conf.into()));
                            e.insert(k);
                            Ref::New(k)
                        }
                    },
                };
                last = Some((hash, k));
                k
            }
        };
        rows.push((k, side, rate, time_s));
    }
    Some(Block { names, rows, lines })
}

/// The name (file, configuration) a row's benchmark reference stands for.
fn name_of<'a>(
    r: Ref,
    names: &'a [(Box<str>, Box<str>)],
    known: &'a SampleSet,
) -> Option<(&'a str, &'a str)> {
    match r {
        Ref::Known(id) => {
            let b = known.benchmarks().get(id.0 as usize)?;
            Some((&b.file, &b.configuration.text))
        }
        Ref::New(k) => names.get(k as usize).map(|(f, c)| (&**f, &**c)),
    }
}

/// Cuts a line of the usual compare.js form into fields in place, their ranges into `ranges`:
/// each field `"quoted"` with no quote inside, or unquoted with no quote, and no space before a
/// field or after a closing quote. Returns false for any other line (which
/// [`split_fields`] then reads, or reports); when true, the ranges are those
/// [`split_fields`] gives (with spaces kept) and the field bytes are the line's.
fn split_plain(line: &[u8], ranges: &mut Vec<(usize, usize)>) -> bool {
    ranges.clear();
    let n = line.len();
    let mut pos = 0;
    loop {
        if pos < n && line[pos] == b'"' {
            let Some(q) = memchr::memchr(b'"', &line[pos + 1..]) else {
                return false;
            };
            let q = pos + 1 + q;
            ranges.push((pos + 1, q));
            pos = q + 1;
            // A doubled quote, a space or anything else after the closing quote.
            if pos < n && line[pos] != b',' {
                return false;
            }
        } else {
            if pos < n && line[pos] == b' ' {
                return false;
            }
            let end = memchr::memchr2(b',', b'"', &line[pos..]).map_or(n, |i| i + pos);
            if end < n && line[end] == b'"' {
                return false;
            }
            ranges.push((pos, end));
            pos = end;
        }
        if pos >= n {
            return true;
        }
        pos += 1; // the comma
        if pos == n {
            ranges.push((n, n));
            return true;
        }
    }
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

    /// Reading in parallel blocks gives what reading line by line gives: samples, names, and
    /// every diagnostic with its line, over several batches of blocks with problems, a blank
    /// line, CRLF, and a later header that reorders the columns.
    #[test]
    fn blocks_read_as_line_by_line() {
        let mut text =
            String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
        let mut line = 1u64;
        for i in 0..400_000u64 {
            line += 1;
            let side = if i % 2 == 0 { "old" } else { "new" };
            let file = format!("c{}/b-{}.js", i % 7, (i / 2) % 3000);
            match line {
                150_001 => text.push_str("\"mid\",\"a.js\",\"\",1,1\n"),
                200_000 => text.push('\n'),
                210_000 => text.push_str(&format!("\"{side}\",\"{file}\",\"n=1\",12.5,0.1\r\n")),
                250_000 => text.push_str("rate,time,binary,filename,configuration\n"),
                300_000 => text.push_str("fast,1,old,a.js,\n"),
                l if l > 250_000 => text.push_str(&format!(
                    "{}.25,0.5,{side},{file},\"n={}\"\n",
                    i % 1000,
                    i % 3
                )),
                _ => text.push_str(&format!(
                    "\"{side}\",\"{file}\",\"n={}\",{}.5,0.{}\n",
                    i % 3,
                    1000 + i % 977,
                    i % 10
                )),
            }
        }
        assert!(text.len() > 3 * BLOCK_BYTES, "{} bytes", text.len());
        let read = |blocks: bool| {
            let mut set = SampleSet::new();
            let r = read_csv_in(text.as_bytes(), "t.csv", None, false, blocks, &mut set);
            (set, r.map(|(s, _)| s).map_err(|e| e.to_string()))
        };
        let (a, ra) = read(true);
        let (b, rb) = read(false);
        assert_eq!(ra, rb);
        let err = ra.unwrap_err();
        assert!(
            err.contains("t.csv:150001: unknown binary label 'mid'"),
            "{err}"
        );
        assert!(
            err.contains("t.csv:300000: rate 'fast' is not a number"),
            "{err}"
        );
        assert_eq!(a.samples(), b.samples());
        assert_eq!(a.benchmarks(), b.benchmarks());
        assert_eq!(a.len(), 400_000 - 4);
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
