//! The capped line reader every line-based format reads through: bounded memory whatever the
//! input's size, 1-based line numbers, UTF-8 checked per line, a UTF-8 byte-order mark and the
//! `\r` of CRLF removed.

use crate::error::Diagnostics;
use crate::error::ImportError;

/// The longest line a line-based importer accepts, in bytes (1 MiB; the compare.js reader's
/// [`crate::format::node_csv::MAX_LINE_BYTES`] too); a longer line is an error naming it
/// and is skipped without being held in memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most bytes of one line a [`LineReader`] reads while looking for its end (256 MiB): a
/// line over the limit is skipped, but input without a line break for this long is not
/// line-based text (a device such as `/dev/zero`, a binary file), and reading stops with an
/// error naming the line instead of reading on without end.
pub const MAX_SKIP_BYTES: u64 = 256 << 20;

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

/// A line read by [`LineReader::read_batch`]: its number, and the byte range of its text in
/// the batch's text or why it cannot be read.
pub type BatchLine = (u64, Result<(usize, usize), Line<'static>>);

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

    /// Numbers the lines on from `line_no` (the first line read is `line_no + 1`), for an
    /// input that continues another: a byte-order mark is removed only from line 1.
    pub fn starting_after(mut self, line_no: u64) -> Self {
        self.line_no = line_no;
        self
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

    /// The next line that can be read, as the lenient importers read: a line over the limit
    /// is recorded in `diags` (a skipped line) and passed over; a line that is not UTF-8 ends
    /// the import, since it means the whole input is in another encoding (its text would be
    /// misread line by line), not that one line is noise.
    ///
    /// # Errors
    /// [`ImportError::Io`] when reading fails; [`ImportError::Invalid`] naming the first line
    /// that is not UTF-8, with how to convert the file.
    pub fn next_text_lenient(
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
                Some((n, Err(problem @ Line::NotUtf8 { .. }))) => {
                    return Err(ImportError::Invalid(
                        vec![crate::error::Diagnostic {
                            file: self.name.clone(),
                            line: n,
                            message: format!(
                                "{}: the file is not UTF-8 (nor UTF-16 with a byte-order mark); \
                                 convert it, e.g. iconv -f LATIN1 -t UTF-8",
                                problem.problem().unwrap_or_default()
                            ),
                        }],
                        1,
                    ));
                }
                Some((n, Err(problem))) => diags.push(n, problem.problem().unwrap_or_default()),
            }
        }
    }

    /// Reads whole lines in bulk: appends each line's text to `text` and its number and byte
    /// range there (or why it cannot be read) to `lines`, until `lines` has `max_lines` more
    /// entries or `text` `max_bytes` more bytes, or the input ends (then returns true). The
    /// lines, numbers and problems are those [`LineReader::next_line`] gives one by one, but
    /// the lines inside the reader's buffer are validated as UTF-8 and copied a buffer at a
    /// time (one pass over the bytes instead of a copy, two checks and another copy per line).
    ///
    /// # Errors
    /// [`ImportError::Io`] when reading fails (the lines read before stay in `lines`).
    pub fn read_batch(
        &mut self,
        text: &mut String,
        lines: &mut Vec<BatchLine>,
        max_lines: usize,
        max_bytes: usize,
    ) -> Result<bool, ImportError> {
        let (lines0, text0) = (lines.len(), text.len());
        while lines.len() - lines0 < max_lines && text.len() - text0 < max_bytes {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(ImportError::Io {
                        file: self.name.clone(),
                        source: e,
                    });
                }
            };
            if chunk.is_empty() {
                return Ok(true);
            }
            // The whole lines in the buffer, in place; line 1 (its byte-order mark) and a line
            // that runs past the buffer go one by one.
            let whole = if self.line_no == 0 {
                None
            } else {
                memchr::memrchr(b'\n', chunk)
            };
            let Some(end) = whole else {
                match self.advance()? {
                    None => return Ok(true),
                    Some((n, Ok((a, b)))) => {
                        let start = text.len();
                        text.push_str(std::str::from_utf8(&self.buf[a..b]).unwrap_or_default());
                        lines.push((n, Ok((start, text.len()))));
                    }
                    Some((n, Err(problem))) => lines.push((n, Err(problem))),
                }
                continue;
            };
            let region = &chunk[..end];
            // Validated once: the lines of valid text are cut at `\n`, so each is text.
            let valid = std::str::from_utf8(region).ok();
            let mut pos = 0;
            let mut consumed = 0;
            while pos <= region.len()
                && lines.len() - lines0 < max_lines
                && text.len() - text0 < max_bytes
            {
                let stop = memchr::memchr(b'\n', &region[pos..]).map_or(region.len(), |i| pos + i);
                let line = &region[pos..stop];
                self.line_no += 1;
                let n = self.line_no;
                let limit = self.limit;
                if line.len() > limit && !(line.len() == limit + 1 && line.last() == Some(&b'\r')) {
                    lines.push((n, Err(Line::TooLong { limit })));
                } else {
                    let b = if line.last() == Some(&b'\r') {
                        stop - 1
                    } else {
                        stop
                    };
                    let body = match valid {
                        Some(t) => Ok(&t[pos..b]),
                        None => std::str::from_utf8(&region[pos..b]).map_err(|e| Line::NotUtf8 {
                            column: e.valid_up_to() + 1,
                        }),
                    };
                    match body {
                        Ok(t) => {
                            let start = text.len();
                            text.push_str(t);
                            lines.push((n, Ok((start, text.len()))));
                        }
                        Err(problem) => lines.push((n, Err(problem))),
                    }
                }
                pos = stop + 1;
                consumed = pos;
            }
            self.input.consume(consumed);
        }
        Ok(false)
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
        let Some(read) = read else {
            return Ok(None);
        };
        self.line_no += 1;
        if read == Capped::Endless {
            return Err(ImportError::Invalid(
                vec![crate::error::Diagnostic {
                    file: self.name.clone(),
                    line: self.line_no,
                    message: format!(
                        "no line break in {} MiB: not line-based text (a device or a binary \
                         file?); reading stopped",
                        MAX_SKIP_BYTES >> 20
                    ),
                }],
                1,
            ));
        }
        if read == Capped::TooLong {
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

/// Why [`read_document`] could not read a document.
#[derive(Debug)]
pub enum DocumentError {
    /// Reading failed.
    Io(std::io::Error),
    /// Longer than the limit (bytes): not read further.
    TooLarge(u64),
    /// Not UTF-8; the 1-based line of the first bad byte.
    NotUtf8(u64),
}

/// Reads a document parsed whole (a JSON result file, a suite file) from `input`, refusing
/// it once it is over `limit` bytes: memory holds at most `limit + 1` bytes whatever the input
/// (also a device without end, such as `/dev/zero`).
///
/// # Errors
/// [`DocumentError`]: a read error, more than `limit` bytes, or text that is not UTF-8.
pub fn read_document(input: impl std::io::Read, limit: u64) -> Result<String, DocumentError> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(input, limit.saturating_add(1)),
        &mut bytes,
    )
    .map_err(DocumentError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(DocumentError::TooLarge(limit));
    }
    String::from_utf8(bytes).map_err(|e| {
        let pos = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..pos].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        DocumentError::NotUtf8(line)
    })
}

/// How [`read_line_limited`] read a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Capped {
    /// The whole line is in the buffer.
    Whole,
    /// Longer than the limit: the buffer holds a prefix, the rest was skipped.
    TooLong,
    /// No line break within [`MAX_SKIP_BYTES`]: reading stopped inside the line.
    Endless,
}

/// Reads one line (without its `\n`) into `buf`. Returns `None` at end of input, or how the
/// line was read: [`Capped::TooLong`] when it was longer than `limit` (then `buf` holds only
/// a prefix and the rest of the line was skipped), [`Capped::Endless`] when no line break came
/// within [`MAX_SKIP_BYTES`]. A `\r` ending the line (CRLF) does not count.
fn read_line_limited<R: std::io::BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<Capped>> {
    let r = read_line_capped(input, buf, limit.saturating_add(1))?;
    Ok(r.map(|capped| {
        if capped == Capped::Whole
            && buf.len() > limit
            && !(buf.len() == limit + 1 && buf.last() == Some(&b'\r'))
        {
            Capped::TooLong
        } else {
            capped
        }
    }))
}

/// [`read_line_limited`] without the CRLF allowance: [`Capped::TooLong`] when the line's bytes
/// (including a final `\r`) exceed `limit`.
fn read_line_capped<R: std::io::BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<Capped>> {
    let mut any = false;
    let mut too_long = false;
    let mut read: u64 = 0;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let capped = if too_long {
            Capped::TooLong
        } else {
            Capped::Whole
        };
        if chunk.is_empty() {
            return Ok(any.then_some(capped));
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
            return Ok(Some(if too_long {
                Capped::TooLong
            } else {
                Capped::Whole
            }));
        }
        read += take as u64;
        if read > MAX_SKIP_BYTES {
            return Ok(Some(Capped::Endless));
        }
    }
}

/// The text encoding an input's byte-order mark announced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (with or without the mark `EF BB BF`).
    Utf8,
    /// UTF-16 little-endian (mark `FF FE`; what Windows PowerShell 5.1 redirection writes).
    Utf16Le,
    /// UTF-16 big-endian (mark `FE FF`).
    Utf16Be,
}

impl Encoding {
    /// The encoding announced by the byte-order mark at the start of `head`, and the mark's
    /// length in bytes (0 when there is none: then UTF-8 is assumed).
    pub fn from_bom(head: &[u8]) -> (Encoding, usize) {
        if head.starts_with(b"\xEF\xBB\xBF") {
            (Encoding::Utf8, 3)
        } else if head.starts_with(b"\xFF\xFE") {
            (Encoding::Utf16Le, 2)
        } else if head.starts_with(b"\xFE\xFF") {
            (Encoding::Utf16Be, 2)
        } else {
            (Encoding::Utf8, 0)
        }
    }

    /// Its name as `iconv` spells it (`UTF-8`, `UTF-16LE`, `UTF-16BE`).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16Le => "UTF-16LE",
            Encoding::Utf16Be => "UTF-16BE",
        }
    }
}

/// `Some(encoding)` when `head` (without a byte-order mark) looks like UTF-16 text without
/// one: among its first 256 bytes (at least 8), every second byte is NUL and the others are
/// not (ASCII text in UTF-16). Such input is not decoded by guess; it is refused with the
/// conversion command.
pub fn utf16_without_bom(head: &[u8]) -> Option<Encoding> {
    let h = &head[..head.len().min(256) & !1];
    if h.len() < 8 {
        return None;
    }
    let even_nul = h.iter().step_by(2).all(|&b| b == 0);
    let odd_nul = h.iter().skip(1).step_by(2).all(|&b| b == 0);
    let even_some = h.iter().step_by(2).any(|&b| b != 0);
    let odd_some = h.iter().skip(1).step_by(2).any(|&b| b != 0);
    if odd_nul && even_some {
        Some(Encoding::Utf16Le)
    } else if even_nul && odd_some {
        Some(Encoding::Utf16Be)
    } else {
        None
    }
}

/// Streams UTF-16 text (without its byte-order mark) from `inner` as UTF-8, with memory
/// bounded by a few KiB whatever the input's size. Unpaired surrogates and an odd final byte
/// become U+FFFD (the replacement character), so a damaged file is still read line by line
/// and the damage is visible in the text rather than a failure of the whole input.
pub struct Utf16Reader<R> {
    inner: R,
    little_endian: bool,
    /// Raw bytes read but not decoded yet (at most one code unit and a half of a pair).
    raw: Vec<u8>,
    /// UTF-8 output not handed out yet.
    out: Vec<u8>,
    out_pos: usize,
    /// A high surrogate waiting for its low half.
    pending_high: Option<u16>,
    eof: bool,
}

impl<R: std::io::Read> Utf16Reader<R> {
    /// Decodes `inner` as UTF-16 in the byte order of `encoding` (`Utf8` is taken as
    /// little-endian; callers pass a UTF-16 encoding).
    pub fn new(inner: R, encoding: Encoding) -> Self {
        Utf16Reader {
            inner,
            little_endian: encoding != Encoding::Utf16Be,
            raw: Vec::with_capacity(8192),
            out: Vec::with_capacity(12288),
            out_pos: 0,
            pending_high: None,
            eof: false,
        }
    }

    fn push_char(&mut self, c: char) {
        let mut b = [0u8; 4];
        self.out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
    }

    /// Decodes the next chunk of input into `out`; false at the end of input.
    fn refill(&mut self) -> std::io::Result<bool> {
        self.out.clear();
        self.out_pos = 0;
        while self.out.is_empty() {
            if self.eof {
                return Ok(false);
            }
            let start = self.raw.len();
            self.raw.resize(start + 8192, 0);
            let n = loop {
                match self.inner.read(&mut self.raw[start..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.raw.truncate(start);
                        return Err(e);
                    }
                }
            };
            self.raw.truncate(start + n);
            if n == 0 {
                self.eof = true;
                if self.pending_high.take().is_some() {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                if !self.raw.is_empty() {
                    self.raw.clear();
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                continue;
            }
            let whole = self.raw.len() & !1;
            let mut i = 0;
            while i < whole {
                let pair = [self.raw[i], self.raw[i + 1]];
                i += 2;
                let unit = if self.little_endian {
                    u16::from_le_bytes(pair)
                } else {
                    u16::from_be_bytes(pair)
                };
                if let Some(high) = self.pending_high.take() {
                    if (0xDC00..0xE000).contains(&unit) {
                        let c = 0x10000
                            + ((u32::from(high) - 0xD800) << 10)
                            + (u32::from(unit) - 0xDC00);
                        self.push_char(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
                        continue;
                    }
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                if (0xD800..0xDC00).contains(&unit) {
                    self.pending_high = Some(unit);
                } else {
                    let c = char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER);
                    self.push_char(c);
                }
            }
            self.raw.drain(..whole);
        }
        Ok(true)
    }
}

impl<R: std::io::Read> std::io::Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.out_pos >= self.out.len() && !self.refill()? {
            return Ok(0);
        }
        let n = buf.len().min(self.out.len() - self.out_pos);
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    /// Reading in bulk gives the lines, numbers and problems of reading line by line, for
    /// every buffer size and batch limit: a byte-order mark, CRLF, a lone `\r`, blank lines,
    /// bytes that are not UTF-8, lines over the limit (and one at the limit plus its `\r`), and
    /// no final line break.
    #[test]
    fn batches_read_as_line_by_line() {
        let mut input: Vec<u8> = b"\xEF\xBB\xBFfirst\r\nsecond\n\n\r\nbad \xFF byte\r\n".to_vec();
        input.extend_from_slice(b"0123456789abcdef\n0123456789abcde\r\n0123456789abcdefg\r\n");
        input.extend_from_slice("caf\u{e9} \u{1F600}\r\nx\ry\n".as_bytes());
        input.extend_from_slice(b"\xC3\n");
        input.extend_from_slice(&b"0123456789".repeat(5));
        input.extend_from_slice(b"\nlast");
        let limit = 15;
        let one_by_one = {
            let mut r = LineReader::with_limit(&input[..], "t", limit);
            let mut out = Vec::new();
            while let Some((n, line)) = r.next_line().unwrap() {
                out.push(format!("{n}: {line:?}"));
            }
            out
        };
        for cap in [1, 2, 3, 5, 8, 13, 64, 4096] {
            for (max_lines, max_bytes) in [
                (1, usize::MAX),
                (3, usize::MAX),
                (usize::MAX, 4),
                (usize::MAX, usize::MAX),
            ] {
                let mut r = LineReader::with_limit(
                    std::io::BufReader::with_capacity(cap, &input[..]),
                    "t",
                    limit,
                );
                let mut out = Vec::new();
                loop {
                    let mut text = String::new();
                    let mut lines = Vec::new();
                    let eof = r
                        .read_batch(&mut text, &mut lines, max_lines, max_bytes)
                        .unwrap();
                    for (n, l) in lines {
                        let line = match l {
                            Ok((a, b)) => Line::Text(&text[a..b]),
                            Err(p) => p,
                        };
                        out.push(format!("{n}: {line:?}"));
                    }
                    if eof {
                        break;
                    }
                }
                assert_eq!(
                    out, one_by_one,
                    "capacity {cap}, limits {max_lines} {max_bytes}"
                );
            }
        }
    }

    fn utf16(s: &str, le: bool) -> Vec<u8> {
        s.encode_utf16()
            .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
            .collect()
    }

    #[test]
    fn decodes_both_byte_orders_and_pairs() {
        let text = "BenchmarkA-8 \u{1F600} 10 5 ns/op\r\nµs\n".repeat(2000);
        for (le, enc) in [(true, Encoding::Utf16Le), (false, Encoding::Utf16Be)] {
            let mut out = String::new();
            Utf16Reader::new(utf16(&text, le).as_slice(), enc)
                .read_to_string(&mut out)
                .unwrap();
            assert_eq!(out, text);
        }
    }

    #[test]
    fn matches_the_standard_library_on_any_units() {
        // A deterministic spread of code units, surrogates of both halves included.
        let mut x: u32 = 12345;
        let units: Vec<u16> = (0..20_000)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let u = (x >> 8) as u16;
                if x & 0x300 == 0 {
                    0xD800 | (u & 0x7FF)
                } else {
                    u
                }
            })
            .collect();
        let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        let mut out = String::new();
        Utf16Reader::new(bytes.as_slice(), Encoding::Utf16Le)
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, String::from_utf16_lossy(&units));
    }

    #[test]
    fn damage_becomes_replacement_characters() {
        // A lone high surrogate, then an odd final byte.
        let bytes = [0x00, 0xD8, b'a', 0, b'b'];
        let mut out = String::new();
        Utf16Reader::new(bytes.as_slice(), Encoding::Utf16Le)
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, "\u{FFFD}a\u{FFFD}");
        assert_eq!(Encoding::from_bom(b"\xFF\xFEa\0"), (Encoding::Utf16Le, 2));
        assert_eq!(
            utf16_without_bom(&utf16("goos: linux\n", true)),
            Some(Encoding::Utf16Le)
        );
        assert_eq!(utf16_without_bom(b"goos: linux\n"), None);
    }
}
