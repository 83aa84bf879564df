//! The capped line reader every line-based format reads through: bounded memory whatever the
//! input's size, 1-based line numbers, UTF-8 checked per line, a UTF-8 byte-order mark and the
//! `\r` of CRLF removed.

use crate::error::Diagnostics;
use crate::error::ImportError;

/// The longest line a line-based importer accepts, in bytes (1 MiB; the compare.js reader's
/// [`crate::format::node_csv::MAX_LINE_BYTES`] too); a longer line is an error naming it
/// and is skipped without being held in memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line from a [`LineReader`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// The line's text, without `\n`, a trailing `\r`, or (line 1) a UTF-8 byte-order mark.
    Text(&'a str),
    /// Longer than the reader's limit (bytes; [`MAX_LINE_BYTES`] by default): skipped, not
    /// read.
    TooLong {
        /// The limit, bytes.
        limit: usize,
    },
    /// Not valid UTF-8; `column` is the 1-based byte column of the first bad byte.
    NotUtf8 {
        /// 1-based byte column.
        column: usize,
    },
}

impl Line<'_> {
    /// The diagnostic for a line that could not be read (`None` for [`Line::Text`]).
    pub fn problem(&self) -> Option<String> {
        match self {
            Line::Text(_) => None,
            Line::TooLong { limit } => Some(format!("line is longer than {limit} bytes; not read")),
            Line::NotUtf8 { column } => Some(format!("not valid UTF-8 (at column {column})")),
        }
    }
}

/// A line in a [`LineReader`]'s buffer: the byte range of its validated text, or why it
/// cannot be read.
type RawLine = Result<(usize, usize), Line<'static>>;

/// Streams an input line by line with bounded memory: at most [`MAX_LINE_BYTES`] of one line
/// are held, whatever the input's size. Line numbers are 1-based and count every `\n`.
pub struct LineReader<R> {
    input: R,
    buf: Vec<u8>,
    line_no: u64,
    name: String,
    limit: usize,
}

impl<R: std::io::BufRead> LineReader<R> {
    /// Reads from `input`, named `name` in I/O errors, with the [`MAX_LINE_BYTES`] limit.
    pub fn new(input: R, name: &str) -> Self {
        Self::with_limit(input, name, MAX_LINE_BYTES)
    }

    /// As [`LineReader::new`] with a line limit of `limit` bytes.
    pub fn with_limit(input: R, name: &str, limit: usize) -> Self {
        LineReader {
            input,
            buf: Vec::with_capacity(256),
            line_no: 0,
            name: name.to_owned(),
            limit,
        }
    }

    /// The next line and its number, or `None` at the end of the input.
    ///
    /// # Errors
    /// [`ImportError::Io`] when reading fails.
    pub fn next_line(&mut self) -> Result<Option<(u64, Line<'_>)>, ImportError> {
        Ok(self.advance()?.map(|(n, body)| {
            let line = match body {
                Ok((a, b)) => Line::Text(std::str::from_utf8(&self.buf[a..b]).unwrap_or_default()),
                Err(problem) => problem,
            };
            (n, line)
        }))
    }

    /// The next line that can be read, and its number, or `None` at the end of the input;
    /// every line skipped on the way (over the limit, not UTF-8) is recorded in `diags`.
    ///
    /// # Errors
    /// [`ImportError::Io`] when reading fails.
    pub fn next_text(
        &mut self,
        diags: &mut Diagnostics,
    ) -> Result<Option<(u64, &str)>, ImportError> {
        loop {
            match self.advance()? {
                None => return Ok(None),
                Some((n, Ok((a, b)))) => {
                    return Ok(Some((
                        n,
                        std::str::from_utf8(&self.buf[a..b]).unwrap_or_default(),
                    )));
                }
                Some((n, Err(problem))) => diags.push(n, problem.problem().unwrap_or_default()),
            }
        }
    }

    /// Reads the next line into the buffer: its number and the byte range of its validated
    /// UTF-8 text, or the problem (a [`Line`] that is not text).
    fn advance(&mut self) -> Result<Option<(u64, RawLine)>, ImportError> {
        self.buf.clear();
        let read = read_line_limited(&mut self.input, &mut self.buf, self.limit).map_err(|e| {
            ImportError::Io {
                file: self.name.clone(),
                source: e,
            }
        })?;
        let Some(too_long) = read else {
            return Ok(None);
        };
        self.line_no += 1;
        if too_long {
            return Ok(Some((
                self.line_no,
                Err(Line::TooLong { limit: self.limit }),
            )));
        }
        let mut a = 0;
        let mut b = self.buf.len();
        if self.line_no == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
            a = 3;
        }
        if b > a && self.buf[b - 1] == b'\r' {
            b -= 1;
        }
        Ok(Some((
            self.line_no,
            match std::str::from_utf8(&self.buf[a..b]) {
                Ok(_) => Ok((a, b)),
                Err(e) => Err(Line::NotUtf8 {
                    column: e.valid_up_to() + 1,
                }),
            },
        )))
    }
}

/// Reads one line (without its `\n`) into `buf`. Returns `None` at end of input, or
/// `Some(true)` when the line was longer than `limit` (then `buf` holds only a prefix and the
/// rest of the line was skipped). A `\r` ending the line (CRLF) does not count.
fn read_line_limited<R: std::io::BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<bool>> {
    let r = read_line_capped(input, buf, limit.saturating_add(1))?;
    Ok(r.map(|capped| {
        capped || (buf.len() > limit && !(buf.len() == limit + 1 && buf.last() == Some(&b'\r')))
    }))
}

/// [`read_line_limited`] without the CRLF allowance: `Some(true)` when the line's bytes
/// (including a final `\r`) exceed `limit`.
fn read_line_capped<R: std::io::BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<bool>> {
    let mut any = false;
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if any { Some(too_long) } else { None });
        }
        any = true;
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > limit {
                too_long = true;
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        input.consume(if done { take + 1 } else { take });
        if done {
            return Ok(Some(too_long));
        }
    }
}
