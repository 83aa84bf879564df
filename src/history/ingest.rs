//! Reading one results file for the history (`history add`, `--history`): streamed through
//! the capped readers of [`crate::format`] (every line-based format line by line with its line
//! limit, JSON documents up to their size limit), with the file's SHA-256 and its runner
//! machine record taken from the same bytes as they pass. Memory holds the samples, not the
//! file; an input without end (a device such as `/dev/zero`) ends with the reader's error
//! naming the file.

use crate::error::ImportError;
use crate::format::{Imported, Input, InputFormat, ReadOptions};
use crate::sample::SampleSet;
use sha2::Digest;
use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;

/// One file read for the history.
pub struct Ingested {
    /// Its samples.
    pub set: SampleSet,
    /// What the reader found (format, warnings).
    pub imported: Imported,
    /// SHA-256 of the file's bytes, 64 lowercase hex digits.
    pub sha256: String,
    /// The first `machine` record of a benchdiff results file (JSON text), when it has one.
    pub machine_record: Option<String>,
}

/// Reads the file at `path` (named `name` in diagnostics) in `format` (guessed when `None`).
///
/// # Errors
/// [`ImportError`] as [`crate::format::Input::read`] gives it: the file cannot be opened or
/// read, or its content cannot be read in the format (naming the file and line).
pub fn read_file(
    path: &std::path::Path,
    name: &str,
    format: Option<InputFormat>,
    opts: &ReadOptions,
) -> Result<Ingested, ImportError> {
    let file = std::fs::File::open(path).map_err(|e| ImportError::Io {
        file: name.to_owned(),
        source: e,
    })?;
    let seen = Rc::new(RefCell::new(Seen {
        file,
        hash: sha2::Sha256::new(),
        machine: MachineScan::default(),
    }));
    let mut set = SampleSet::new();
    let imported =
        Input::from_reader(name, Box::new(Tee(Rc::clone(&seen))))?.read(format, opts, &mut set)?;
    // What the reader left unread (nothing, for a reader that reads to the end) still counts
    // for the content hash.
    std::io::copy(&mut Tee(Rc::clone(&seen)), &mut std::io::sink()).map_err(|e| {
        ImportError::Io {
            file: name.to_owned(),
            source: e,
        }
    })?;
    let seen = seen.borrow();
    Ok(Ingested {
        set,
        imported,
        sha256: seen
            .hash
            .clone()
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        machine_record: seen.machine.found.clone(),
    })
}

/// The file and what is learnt from its bytes as they are read.
struct Seen {
    file: std::fs::File,
    hash: sha2::Sha256,
    machine: MachineScan,
}

/// Reads the file, feeding every byte to the hash and the machine-record scan.
struct Tee(Rc<RefCell<Seen>>);

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut seen = self.0.borrow_mut();
        let n = seen.file.read(buf)?;
        seen.hash.update(&buf[..n]);
        seen.machine.push(&buf[..n]);
        Ok(n)
    }
}

/// Finds the first line that is a JSON object with `"type": "machine"`, holding at most
/// [`crate::lines::MAX_LINE_BYTES`] of a line (a longer line is not one).
#[derive(Default)]
struct MachineScan {
    line: Vec<u8>,
    too_long: bool,
    found: Option<String>,
}

impl MachineScan {
    fn push(&mut self, mut data: &[u8]) {
        while self.found.is_none() && !data.is_empty() {
            let (part, ended) = match memchr::memchr(b'\n', data) {
                Some(i) => (&data[..i], Some(i + 1)),
                None => (data, None),
            };
            if !self.too_long && self.line.len() + part.len() <= crate::lines::MAX_LINE_BYTES {
                self.line.extend_from_slice(part);
            } else {
                self.too_long = true;
                self.line.clear();
            }
            let Some(next) = ended else { return };
            if !self.too_long {
                self.found = machine_record(&self.line);
            }
            self.line.clear();
            self.too_long = false;
            data = &data[next..];
        }
    }
}

/// The line as JSON text when it is a `machine` record.
fn machine_record(line: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    if !text.contains("\"machine\"") {
        return None;
    }
    let v = serde_json::from_str::<serde_json::Value>(text).ok()?;
    (v.get("type").and_then(|t| t.as_str()) == Some("machine")).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The machine record is found whatever the read sizes cut the lines into.
    #[test]
    fn finds_the_machine_record_across_reads() {
        let text = b"{\"type\":\"run\"}\nnoise \"machine\"\n{\"type\":\"machine\",\"cores\":2}\n{\"type\":\"machine\",\"cores\":3}\n";
        for step in [1, 2, 7, 64] {
            let mut scan = MachineScan::default();
            for chunk in text.chunks(step) {
                scan.push(chunk);
            }
            let found = scan.found.unwrap_or_default();
            assert!(found.contains("\"cores\":2"), "step {step}: {found}");
        }
    }
}
