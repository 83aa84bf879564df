//! The Go format's fast paths, each checked against its plain path by the tests below:
//!
//! - reading: runs of plain result records are read ahead in blocks of whole lines and parsed
//!   in parallel ([`Lines`], [`parse_go_block`]); any block holding another kind of line is
//!   given line by line to the plain reader, which alone decides what every other line means.
//!   Reading with and without blocks gives the same samples, names, configuration, warnings
//!   and errors.
//! - writing: the `Benchmark…` lines of a window of samples are formatted in parallel, chunk by
//!   chunk, and written in order ([`write_samples`]): the same bytes as writing them sample by
//!   sample with [`GoLines::push_sample`].

use super::*;
use crate::format::blocks::{Batch, read_ahead, split_line};

/// What a block's parse depends on besides its lines: the number of units known (units are
/// only ever added) and the side.
type CtxKey = (usize, Side);

impl Ctx<'_> {
    /// The state a block is parsed under ([`CtxKey`]).
    fn key(&self) -> CtxKey {
        (self.metrics.len(), self.side)
    }
}

/// The benchmark of a record parsed in parallel: known before its block, or the block's k-th
/// new name.
#[derive(Clone, Copy)]
pub(super) enum NameRef {
    Known(crate::sample::BenchmarkId),
    New(u32),
}

/// A block of lines that are all whole result records of known units, configuration lines
/// or other text that is ignored, parsed in parallel: the side assumed at its start, names
/// new to it (first-seen order), one row per value `(name, side, metric, value, time)`, its
/// configuration lines in order, the records and lines, and its bytes (to read them one by
/// one if the assumptions no longer hold).
pub(super) struct GoBlock {
    pub(super) side: Side,
    pub(super) names: Vec<Box<str>>,
    pub(super) rows: Vec<(NameRef, Side, MetricId, f64, f64)>,
    pub(super) configs: Vec<(String, String)>,
    pub(super) records: u64,
    lines: u64,
    bytes: Vec<u8>,
}

/// The next thing [`Lines`] gives: one line, or a block of records parsed in parallel.
pub(super) enum Next<'a> {
    Line(u64, &'a str),
    Block(GoBlock),
}

/// The rest of the input read line by line, after what was read ahead.
type SeqReader<R> = LineReader<std::io::Chain<std::io::Cursor<Vec<u8>>, R>>;

/// The input read ahead in blocks of whole lines (1 MiB each, two per thread a batch, read
/// straight into their buffers; the first batch is one block of 64 KiB), each batch parsed
/// in parallel while the next is read, so
/// that runs of plain result records are parsed in parallel; a block holding any other line
/// (unit metadata, a record split by the benchmark's output, a line that cannot be read, …)
/// is read line by line through a [`LineReader`] numbered on from the lines before it, as
/// without read-ahead. With `parallel` false (`--sides-by`), every line is given one by one.
pub(super) struct Lines<R> {
    name: String,
    /// The input while it is read in blocks.
    input: Option<R>,
    /// The rest of the input read line by line (without `parallel`, or from a line longer
    /// than a block on).
    seq: Option<SeqReader<R>>,
    /// The next batch, read ahead.
    ahead: Option<Batch>,
    /// Blocks of the current batch: bytes, the parallel parse of each (`None`: not lines it
    /// can take under the state it was parsed with), and that state ([`Ctx::key`]; `None`
    /// when it is to be parsed again).
    blocks: std::collections::VecDeque<(Vec<u8>, Option<GoBlock>, Option<CtxKey>)>,
    /// The current batch's line longer than a block, read after its blocks.
    long: Option<Vec<u8>>,
    /// A block being given line by line.
    current: Option<LineReader<std::io::Cursor<Vec<u8>>>>,
    /// The line given last from `current` (copied out of its reader).
    line: String,
    /// Lines before the next block.
    line_no: u64,
    /// The start of a line cut by the end of the last block read.
    carry: Vec<u8>,
    /// Block buffers for reuse.
    pool: Vec<Vec<u8>>,
    /// No batch after the current one.
    eof: bool,
}

/// Bytes of lines per block parsed by one thread.
const GO_BLOCK_BYTES: usize = 1 << 20;

/// Bytes of lines of the input's first block (the only one of the first batch), unless its
/// first line is longer.
const FIRST_BLOCK_BYTES: usize = 1 << 16;

/// The lines of a block as [`LineReader`] counts them: every `\n`, and a last line without
/// one.
fn count_lines(bytes: &[u8]) -> u64 {
    let n = memchr::memchr_iter(b'\n', bytes).count() as u64;
    n + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

impl<R: std::io::BufRead> Lines<R> {
    pub(super) fn new(input: R, name: &str, parallel: bool) -> Self {
        let (input, seq) = if parallel {
            (Some(input), None)
        } else {
            let chain = std::io::Read::chain(std::io::Cursor::new(Vec::new()), input);
            (None, Some(LineReader::new(chain, name)))
        };
        Lines {
            name: name.to_owned(),
            input,
            seq,
            ahead: None,
            blocks: std::collections::VecDeque::new(),
            long: None,
            current: None,
            line: String::new(),
            line_no: 0,
            carry: Vec::new(),
            pool: Vec::new(),
            eof: false,
        }
    }

    /// Gives the lines of `block` one by one after all (its assumptions no longer hold).
    pub(super) fn reread(&mut self, block: GoBlock) {
        let start = self.line_no;
        self.line_no += block.lines;
        self.current = Some(
            LineReader::new(std::io::Cursor::new(block.bytes), &self.name).starting_after(start),
        );
    }

    /// Parses `block` again at its turn, with the state then (it was parsed with the side of
    /// an earlier configuration line).
    pub(super) fn retry(&mut self, block: GoBlock) {
        self.blocks.push_front((block.bytes, None, None));
    }

    /// `block` was taken: its lines are counted, its buffer kept for reuse.
    pub(super) fn done(&mut self, block: GoBlock) {
        self.line_no += block.lines;
        self.pool.push(block.bytes);
    }

    /// The next line or block; problems as [`LineReader::next_text_lenient`] reports them.
    pub(super) fn next(
        &mut self,
        diags: &mut Diagnostics,
        ctx: &Ctx<'_>,
    ) -> Result<Option<Next<'_>>, ImportError> {
        if self.seq.is_some() {
            return match self.seq.as_mut() {
                Some(r) => Ok(r.next_text_lenient(diags)?.map(|(n, l)| Next::Line(n, l))),
                None => Ok(None),
            };
        }
        loop {
            if let Some(r) = self.current.as_mut() {
                match r.next_text_lenient(diags)? {
                    Some((n, l)) => {
                        self.line.clear();
                        self.line.push_str(l);
                        return Ok(Some(Next::Line(n, &self.line)));
                    }
                    None => self.current = None,
                }
                continue;
            }
            if let Some((bytes, parsed, key)) = self.blocks.pop_front() {
                match parsed {
                    Some(mut b) => {
                        b.bytes = bytes;
                        return Ok(Some(Next::Block(b)));
                    }
                    None if key != Some(ctx.key()) => {
                        // Parsed with an older state (before the batch's first unit line, or
                        // with the side of an earlier configuration line): this block and the
                        // rest of the batch parsed so are parsed again, in parallel, with the
                        // state now; what still fails is read line by line.
                        self.blocks.push_front((bytes, None, None));
                        self.reparse(ctx);
                    }
                    None => {
                        let start = self.line_no;
                        self.line_no += count_lines(&bytes);
                        self.current = Some(
                            LineReader::new(std::io::Cursor::new(bytes), &self.name)
                                .starting_after(start),
                        );
                    }
                }
                continue;
            }
            if let Some(long) = self.long.take() {
                // A line longer than a block (so over the line limit): the rest is read line
                // by line, which reports it.
                if let Some(input) = self.input.take() {
                    let chain = std::io::Read::chain(std::io::Cursor::new(long), input);
                    self.seq =
                        Some(LineReader::new(chain, &self.name).starting_after(self.line_no));
                }
                return match self.seq.as_mut() {
                    Some(r) => Ok(r.next_text_lenient(diags)?.map(|(n, l)| Next::Line(n, l))),
                    None => Ok(None),
                };
            }
            if self.eof {
                return Ok(None);
            }
            self.next_batch(ctx)?;
        }
    }

    /// Makes the batch read ahead (read now, the first time) the current one and parses its
    /// blocks in parallel while the next batch is read on this thread.
    fn next_batch(&mut self, ctx: &Ctx<'_>) -> Result<(), ImportError> {
        use rayon::prelude::*;
        let io_err = |name: &str, e: std::io::Error| ImportError::Io {
            file: name.to_owned(),
            source: e,
        };
        let batch_blocks = 2 * rayon::current_num_threads().max(1);
        let batch = match self.ahead.take() {
            Some(b) => b,
            None => match self.input.as_mut() {
                // The first batch is one short block: its lines (often unit and configuration
                // lines, which it is read line by line for) are taken while the next batch is
                // read, which is then parsed knowing the units.
                Some(input) => read_ahead(
                    input,
                    &mut self.carry,
                    &mut self.pool,
                    1,
                    GO_BLOCK_BYTES,
                    FIRST_BLOCK_BYTES,
                )
                .map_err(|e| io_err(&self.name, e))?,
                None => Batch {
                    blocks: Vec::new(),
                    long: None,
                    eof: true,
                },
            },
        };
        self.eof = batch.eof || batch.long.is_some();
        self.long = batch.long;
        let key = Some(ctx.key());
        let mut parsed: Vec<(Vec<u8>, Option<GoBlock>, Option<CtxKey>)> =
            batch.blocks.into_iter().map(|b| (b, None, key)).collect();
        let read_next = !self.eof;
        let (carry, pool) = (&mut self.carry, &mut self.pool);
        let input = self.input.as_mut();
        let ahead = std::thread::scope(|s| {
            let parsing = s.spawn(|| {
                parsed.par_iter_mut().for_each(|(bytes, p, _)| {
                    *p = parse_go_block(bytes, ctx);
                });
            });
            let ahead = match input {
                Some(input) if read_next => Some(read_ahead(
                    input,
                    carry,
                    pool,
                    batch_blocks,
                    GO_BLOCK_BYTES,
                    GO_BLOCK_BYTES,
                )),
                _ => None,
            };
            if let Err(panic) = parsing.join() {
                std::panic::resume_unwind(panic);
            }
            ahead
        });
        self.blocks = parsed.into();
        self.ahead = ahead.transpose().map_err(|e| io_err(&self.name, e))?;
        Ok(())
    }

    /// Parses again, in parallel with `ctx`, the blocks left that were parsed under another
    /// state (fewer units known, another side) or are to be parsed again.
    fn reparse(&mut self, ctx: &Ctx<'_>) {
        use rayon::prelude::*;
        let key = Some(ctx.key());
        self.blocks.par_iter_mut().for_each(|(bytes, parsed, k)| {
            if *k != key {
                *parsed = parse_go_block(bytes, ctx);
                *k = key;
            }
        });
    }
}

/// Parses a block of whole lines as result records of known units, configuration lines and
/// other text that reading line by line ignores, or `None` when any line is something else
/// (unit metadata, a record without its numbers, a line that cannot be read or is not a
/// whole record, a unit not known yet, a line over the limit, not UTF-8, a byte-order mark):
/// the caller then reads the block line by line, which reports it (see [`Lines`]).
fn parse_go_block(bytes: &[u8], ctx: &Ctx<'_>) -> Option<GoBlock> {
    let text = std::str::from_utf8(bytes).ok()?;
    if text.starts_with('\u{feff}') {
        return None;
    }
    let mut names: Vec<Box<str>> = Vec::new();
    let mut index: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
    let mut rows = Vec::with_capacity(bytes.len() / 64);
    let mut configs = Vec::new();
    let mut last: Option<(&str, NameRef)> = None;
    // Where the next record's name is looked for first in the names known ([`GoNames`]).
    let mut guess: Option<usize> = None;
    let mut records = 0u64;
    let mut lines = 0u64;
    let mut side = ctx.side;
    let mut fields: Vec<&str> = Vec::with_capacity(8);
    let mut rest = text;
    while !rest.is_empty() {
        let (mut line, next) = split_line(rest);
        rest = next;
        lines += 1;
        if line.len() > crate::lines::MAX_LINE_BYTES {
            return None;
        }
        if let Some(l) = line.strip_suffix('\r') {
            line = l;
        }
        if line.starts_with("Unit ") || line.starts_with("Unit\t") {
            return None;
        }
        if !is_result_line(line) {
            // What reading line by line does with it when no record waits for its numbers.
            if let Some((k, v)) = parse_config_line(line) {
                if k == "binary" {
                    side = Side::from_label(v).unwrap_or(ctx.default_side);
                }
                configs.push((k.to_owned(), v.to_owned()));
            }
            continue;
        }
        fields_into(line, &mut fields);
        // A name without its numbers, or not a whole record (as `parse_measurements` takes
        // it: an odd number of fields after the count, each value a number, its unit not).
        if fields.len() < 4 || fields.len() % 2 == 1 {
            return None;
        }
        let iters = fields[1].parse::<u64>().ok()?;
        let full = &fields[0]["Benchmark".len()..];
        let r = match last {
            Some((n, r)) if n == full => r,
            _ => {
                // The name after the last known one, or looked up.
                let known = match guess.and_then(|p| ctx.names.at(p, full).map(|id| (id, p))) {
                    Some(found) => Some(found),
                    None => ctx.names.get(full),
                };
                guess = known.map(|(_, p)| ctx.names.after(p));
                let r = match known {
                    Some((id, _)) => NameRef::Known(id),
                    None => match index.get(full) {
                        Some(&k) => NameRef::New(k),
                        None => {
                            let k = u32::try_from(names.len()).ok()?;
                            names.push(full.into());
                            index.insert(full, k);
                            NameRef::New(k)
                        }
                    },
                };
                last = Some((full, r));
                r
            }
        };
        for pair in fields[2..].chunks_exact(2) {
            let v = pair[0].parse::<f64>().ok()?;
            // A known unit was read as a unit before, so it is not a number.
            let &(mid, factor, per_op_time) = ctx.metrics.get(pair[1])?;
            let value = v * factor;
            let time_s = if per_op_time {
                value * iters as f64
            } else {
                f64::NAN
            };
            rows.push((r, side, mid, value, time_s));
        }
        records += 1;
    }
    Some(GoBlock {
        side: ctx.side,
        names,
        rows,
        configs,
        records,
        lines,
        bytes: Vec::new(),
    })
}

/// [`GoLines::write_samples`]: windows of samples formatted in parallel, chunk by chunk, each
/// line by [`GoLines::push_sample`], written in arrival order.
pub(super) fn write_samples(
    lines: &GoLines,
    set: &SampleSet,
    side: Side,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    const WINDOW: usize = 1 << 16;
    const CHUNK: usize = 4096;
    // Read from the set's packed samples, range by range (no unpacked copy of the set).
    for start in (0..set.len()).step_by(WINDOW) {
        let end = set.len().min(start + WINDOW);
        let texts: Vec<String> = (start..end)
            .step_by(CHUNK)
            .collect::<Vec<usize>>()
            .into_par_iter()
            .map(|from| {
                let chunk = set.iter_range(from..end.min(from + CHUNK));
                let mut text = String::with_capacity(96 * chunk.len());
                for s in chunk.filter(|s| s.side == side) {
                    lines.push_sample(&s, &mut text);
                }
                text
            })
            .collect();
        for t in texts {
            out.write_all(t.as_bytes())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::RATE;

    /// Reads `bytes` in parallel blocks and line by line; asserts the same result (samples,
    /// names, metrics, configuration, warnings, or the same error) and returns it.
    fn read_both_ways(bytes: &[u8]) -> Result<(SampleSet, Imported), String> {
        let read = |parallel: bool| {
            let mut set = SampleSet::new();
            let r = read_go(bytes, "t.txt", &ReadOptions::default(), &mut set, parallel)
                .map_err(|e| e.to_string());
            (set, r)
        };
        let (a, ra) = read(true);
        let (b, rb) = read(false);
        assert_eq!(ra, rb);
        assert_eq!(a.len(), b.len());
        let first = a
            .samples()
            .iter()
            .zip(b.samples())
            .position(|(x, y)| format!("{x:?}") != format!("{y:?}"));
        assert_eq!(first, None, "first differing sample");
        assert_eq!(a.benchmarks(), b.benchmarks());
        assert_eq!(a.metrics(), b.metrics());
        ra.map(|i| (a, i))
    }

    /// Records with the lines reading line by line passes over (blank lines, `PASS`,
    /// configuration lines that set the side or not), a byte-order mark, CRLF, a line over
    /// the limit, a last line without a newline, and a line that is not UTF-8: read in
    /// parallel blocks as line by line, line numbers included.
    #[test]
    fn parallel_blocks_read_odd_lines_as_line_by_line() {
        let records = |text: &mut Vec<u8>, from: u64, n: u64, eol: &str| {
            for i in from..from + n {
                text.extend_from_slice(
                    format!(
                        "BenchmarkDecode/size={}-8 \t {} \t {}.5 ns/op{eol}",
                        i % 300,
                        1000 + i % 13,
                        100 + i % 997
                    )
                    .as_bytes(),
                );
                match i % 40_000 {
                    7_000 => text.extend_from_slice(b"\nPASS\nok  \tpkg\t1.2s\n"),
                    9_000 => text.extend_from_slice(b"cpu: Some CPU @ 2GHz\n"),
                    13_000 => text.extend_from_slice(b"binary: new\n"),
                    21_000 => text.extend_from_slice(b"binary: neither\n"),
                    33_000 => text.extend_from_slice(b"binary: old\n"),
                    _ => {}
                }
            }
        };
        let mut text = b"\xEF\xBB\xBFgoos: linux\n".to_vec();
        records(&mut text, 0, 150_000, "\n");
        records(&mut text, 150_000, 50_000, "\r\n");
        let (set, imported) = read_both_ways(&text).unwrap();
        assert_eq!(set.len(), 200_000);
        assert!(set.samples().iter().any(|s| s.side == Side::New));
        assert!(
            imported
                .config
                .iter()
                .any(|(k, v)| k == "cpu" && v == "Some CPU @ 2GHz")
        );
        // The last line without its newline.
        text.truncate(text.len() - 2);
        assert_eq!(read_both_ways(&text).unwrap().0.len(), 200_000);
        // A first line longer than the first block (64 KiB), and one as long as it.
        for first in [100_000, FIRST_BLOCK_BYTES - 1] {
            let mut wide = vec![b'z'; first];
            wide.push(b'\n');
            wide.extend_from_slice(&text);
            assert_eq!(read_both_ways(&wide).unwrap().0.len(), 200_000);
        }
        // A line over the limit in the second batch, and one a byte short of it in the first.
        let mut long = text.clone();
        let at = long.len() / 2;
        let at = at + memchr::memchr(b'\n', &long[at..]).unwrap() + 1;
        long.splice(
            at..at,
            std::iter::repeat_n(b'x', crate::lines::MAX_LINE_BYTES + 10),
        );
        let at = 3 * GO_BLOCK_BYTES / 2;
        let at = at + memchr::memchr(b'\n', &long[at..]).unwrap() + 1;
        let mut short = vec![b'y'; crate::lines::MAX_LINE_BYTES - 1];
        short.extend_from_slice(b"\r\n");
        long.splice(at..at, short);
        let (_, imported) = read_both_ways(&long).unwrap();
        assert!(
            imported.warnings[0].to_string().contains("longer than"),
            "{:?}",
            imported.warnings
        );
        // A line that is not UTF-8 in the third block: the same error, naming its line.
        let mut bad = text.clone();
        let at = 5 * GO_BLOCK_BYTES / 2;
        let at = at + memchr::memchr(b'\n', &bad[at..]).unwrap() + 1;
        bad.splice(at..at, b"caf\xE9\n".iter().copied());
        let line = bad[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let e = read_both_ways(&bad).unwrap_err();
        assert!(e.contains(&format!("t.txt:{line}: not valid UTF-8")), "{e}");
    }

    /// Reading runs of records in parallel gives what reading line by line gives: samples,
    /// names, warnings and configuration, across batches, with the side switched by a
    /// configuration line, a new unit, a record split by the benchmark's output, a line that is
    /// not a record, CRLF and a `Unit` line mid-file.
    #[test]
    fn parallel_blocks_read_as_line_by_line() {
        let mut text = String::from("goos: linux\nbinary: old\n");
        for i in 0..400_000u64 {
            match i {
                40_000 => text.push_str("binary: new\n"),
                250_000 => text.push_str("binary: old\n"),
                50_000 => text.push_str("BenchmarkSplit/x-8  \tsome output\n  100  12 ns/op\n"),
                60_000 => text.push_str("PASS\nUnit B/op better=higher\n"),
                70_000 => text.push_str("BenchmarkCut-8 panic: boom\n"),
                80_000 => text.push_str("BenchmarkX-8 10 5 ns/op 7 B/op 3 allocs/op\r\n"),
                _ => {}
            }
            let unit = if i > 90_000 && i % 5 == 0 {
                "MB/s"
            } else {
                "ns/op"
            };
            text.push_str(&format!(
                "BenchmarkDecode/size={}-8 \t {} \t {}.5 {unit}\n",
                i % 700,
                1000 + i % 13,
                100 + i % 997
            ));
        }
        assert!(text.len() > 16 * GO_BLOCK_BYTES, "{} bytes", text.len());
        let (a, imported) = read_both_ways(text.as_bytes()).expect("read");
        assert!(!imported.warnings.is_empty(), "the cut record is reported");
        assert!(a.samples().iter().any(|s| s.side == Side::New));
    }

    /// Writing in parallel chunks gives the bytes of writing sample by sample, for sets of
    /// every size around the chunk and window edges, both sides interleaved, several metrics
    /// (a `sec/op` with and without a time), names that need escaping and odd values.
    #[test]
    fn chunked_writes_are_the_bytes_of_writing_sample_by_sample() {
        use crate::sample::Better;
        let one_by_one = |set: &SampleSet| {
            let lines = GoLines::new(set);
            let mut out = Vec::new();
            for side in [Side::Old, Side::New] {
                GoLines::write_side_header(side, &mut out).unwrap();
                for s in set.iter().filter(|s| s.side == side) {
                    let mut text = String::new();
                    lines.push_sample(&s, &mut text);
                    out.extend_from_slice(text.as_bytes());
                }
            }
            out
        };
        let chunked = |set: &SampleSet| {
            let lines = GoLines::new(set);
            let mut out = Vec::new();
            for side in [Side::Old, Side::New] {
                GoLines::write_side_header(side, &mut out).unwrap();
                lines.write_samples(set, side, &mut out).unwrap();
            }
            out
        };
        let values = [
            1.0,
            0.1,
            1e-300,
            123456789.125,
            5e-324,
            f64::MAX,
            0.0,
            2.5e21,
            1.0 / 3.0,
        ];
        for n in [0, 1, 4095, 4096, 4097, 65_535, 65_536, 65_537, 200_003] {
            let mut set = SampleSet::new();
            let ns = set.intern_metric("sec/op", "s", Better::Lower);
            let bytes = set.intern_metric("B/op", "B", Better::Lower);
            let ids: Vec<_> = (0..37)
                .map(|b| set.intern(&format!("dir/b {b}%.js"), &format!("n={b} s='x/y'")))
                .collect();
            for i in 0..n {
                let metric = match i % 3 {
                    0 => RATE,
                    1 => ns,
                    _ => bytes,
                };
                set.push(Sample {
                    benchmark: ids[i % ids.len()],
                    side: if (i / 7) % 3 == 0 {
                        Side::New
                    } else {
                        Side::Old
                    },
                    metric,
                    value: values[i % values.len()] * (1.0 + i as f64),
                    time_s: if i % 5 == 0 {
                        f64::NAN
                    } else {
                        0.25 + i as f64
                    },
                    run: None,
                });
            }
            assert_eq!(chunked(&set), one_by_one(&set), "{n} samples");
        }
    }
}
