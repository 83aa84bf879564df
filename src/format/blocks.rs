//! Reading a text input ahead in blocks of whole lines, straight into reusable buffers: the
//! first step of the compare.js CSV reader ([`super::node_csv`]) and the Go reader
//! ([`super::go`]), which parse one batch of blocks in parallel while the next is read.

use std::io::{ErrorKind, Read};

/// A batch of blocks read ahead: blocks of whole lines (each ending in a line break, but the
/// input's last), the bytes read of a line longer than a block when one was met (the caller
/// then reads the rest of the input line by line, which reports it), and whether the input
/// ended.
pub(crate) struct Batch {
    /// Blocks of whole lines, in input order.
    pub blocks: Vec<Vec<u8>>,
    /// The start of a line longer than a block, when one was met (reading stopped there).
    pub long: Option<Vec<u8>>,
    /// Whether the input ended.
    pub eof: bool,
}

/// Reads the next batch of up to `batch_blocks` blocks of `block_bytes` bytes at most (the
/// batch's first block: `first_bytes` at most, unless its first line is longer), each straight
/// into its buffer (taken from `pool`, zeroed only past its last length): no copy of the input
/// but the start of a line cut by a block's end, carried to the next block in `carry`.
///
/// # Errors
/// Read errors of `input` (an interrupted read is retried).
pub(crate) fn read_ahead<R: Read>(
    input: &mut R,
    carry: &mut Vec<u8>,
    pool: &mut Vec<Vec<u8>>,
    batch_blocks: usize,
    block_bytes: usize,
    first_bytes: usize,
) -> std::io::Result<Batch> {
    let mut blocks: Vec<Vec<u8>> = Vec::with_capacity(batch_blocks);
    let mut eof = false;
    while blocks.len() < batch_blocks && !eof {
        let mut buf = pool.pop().unwrap_or_default();
        buf.resize(block_bytes, 0);
        let mut len = carry.len();
        buf[..len].copy_from_slice(carry);
        carry.clear();
        let mut want = if blocks.is_empty() {
            first_bytes.clamp(1, block_bytes)
        } else {
            block_bytes
        };
        loop {
            while len < want {
                match input.read(&mut buf[len..want]) {
                    Ok(0) => {
                        eof = true;
                        break;
                    }
                    Ok(k) => len += k,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            }
            if eof {
                break;
            }
            match memchr::memrchr(b'\n', &buf[..len]) {
                Some(i) => {
                    carry.extend_from_slice(&buf[i + 1..len]);
                    len = i + 1;
                    break;
                }
                None if want < block_bytes => want = block_bytes,
                None => {
                    buf.truncate(len);
                    return Ok(Batch {
                        blocks,
                        long: Some(buf),
                        eof: false,
                    });
                }
            }
        }
        buf.truncate(len);
        if !buf.is_empty() {
            blocks.push(buf);
        }
    }
    Ok(Batch {
        blocks,
        long: None,
        eof,
    })
}

/// The first line of `rest` (without its line break) and what follows the break (empty at
/// the end): how a parser walks a block of [`read_ahead`].
#[inline(always)]
pub(crate) fn split_line(rest: &str) -> (&str, &str) {
    match memchr::memchr(b'\n', rest.as_bytes()) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    }
}
