//! CSV of Node's `benchmark/run.js --format csv`: header `"filename", "configuration",
//! "rate", "time"` and rows `"<name>", "<conf>", <rate>, <time>` — compare.js's CSV without the
//! `binary` column, since run.js runs one binary.
//!
//! Every row is one [`crate::sample::RATE`] sample on `opts.side` (so `benchdiff report
//! old.csv new.csv` compares two run.js outputs). The rows are read by the compare.js reader
//! ([`crate::source::node_csv`]) with the side as the binary column, so quoting, numbers
//! (`NaN`, `Infinity`), `", "` separators and errors (`file:line: …`) behave the same.

use super::{Imported, ReadOptions};
use crate::error::ImportError;
use crate::sample::SampleSet;

/// Reads run.js CSV `text` into `set` on `opts.side`.
///
/// # Errors
/// As [`crate::source::node_csv::read_compare_csv`], with the same line numbers.
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let label = opts.side.label();
    let mut csv = String::with_capacity(text.len() + text.len() / 8);
    let mut header_seen = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if body.trim().is_empty() {
            csv.push_str(line);
            continue;
        }
        let is_header = body.replace(['"', ' '], "").starts_with("filename,");
        if is_header {
            csv.push_str("\"binary\",");
            header_seen = true;
        } else if header_seen {
            csv.push('"');
            csv.push_str(label);
            csv.push_str("\",");
        }
        csv.push_str(line);
    }
    crate::source::node_csv::read_compare_csv(csv.as_bytes(), name, set)?;
    Ok(Imported::default())
}
