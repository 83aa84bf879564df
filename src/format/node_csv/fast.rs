//! The compare.js CSV reader's fast path, checked against its plain path by the tests below:
//! after the first header, the input is read ahead in blocks of whole lines, a batch of
//! blocks parsed in parallel while the next is read ([`read_blocks`], [`parse_block`]); a
//! line in the usual form is cut in place ([`split_plain`]) instead of copied field by field
//! ([`split_fields`]). A block holding anything but plain data rows is given line by line to
//! the plain reader, which alone decides what every other line means: reading with and
//! without blocks gives the same samples, names, diagnostics and lines.

use super::*;
use crate::format::blocks::{Batch, read_ahead, split_line};

/// Bytes of input per block parsed by one thread (1 MiB + 64 KiB: more than a line may hold,
/// so every full block of readable lines ends in a line break).
const BLOCK_BYTES: usize = MAX_LINE_BYTES + (1 << 16);

/// Reads the rest of a compare.js CSV (after its first header) in blocks of whole lines,
/// a batch of blocks at a time parsed in parallel while the next batch is read, and adds them
/// to `set` in order. Memory holds two batches of the input, never the whole of it.
pub(super) fn read_blocks<R: BufRead, S: SampleSink>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    proptest! {
        /// A line [`split_plain`] takes is cut into the fields and ranges [`split_fields`]
        /// gives it (spaces kept), and the field bytes are the line's own.
        #[test]
        fn split_plain_cuts_as_split_fields(line in "[a\",= .1-]{0,24}") {
            let mut plain = Vec::new();
            if split_plain(line.as_bytes(), &mut plain) {
                let (mut scratch, mut ranges) = (Vec::new(), Vec::new());
                prop_assert!(split_fields(line.as_bytes(), true, &mut scratch, &mut ranges).is_ok());
                let cut = |bytes: &[u8], r: &[(usize, usize)]| -> Vec<Vec<u8>> {
                    r.iter().map(|&(a, b)| bytes[a..b].to_vec()).collect()
                };
                prop_assert_eq!(cut(line.as_bytes(), &plain), cut(&scratch, &ranges));
            }
        }
    }
}
