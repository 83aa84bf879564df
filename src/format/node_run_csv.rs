//! CSV of Node's `benchmark/run.js --format csv`: header `"filename", "configuration",
//! "rate", "time"` and rows `"<name>", "<conf>", <rate>, <time>` — compare.js's CSV without the
//! `binary` column, since run.js runs one binary.
//!
//! Every row is one [`crate::sample::RATE`] sample on `opts.side` (so `benchdiff report
//! old.csv new.csv` compares two run.js outputs). The rows are read, streamed, by the
//! compare.js reader ([`crate::format::node_csv::read_run_csv`]), so quoting, numbers (`NaN`,
//! `Infinity`), `", "` separators, the line limit and errors (`file:line: …`) behave the same.

use crate::error::ImportError;
use crate::format::{Imported, ReadOptions};
use crate::sample::SampleSet;
use std::io::BufRead;

/// Reads run.js CSV from `input` into `set` on `opts.side`.
///
/// Rows that cannot be read are skipped with one summary warning (see
/// [`crate::format::node_csv::read_run_csv_lenient`]).
///
/// # Errors
/// As [`crate::format::node_csv::read_compare_csv`], with the same line numbers, only when
/// no row could be read or a line is not UTF-8.
pub fn read_from<R: BufRead>(
    input: R,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let (_, warning) = crate::format::node_csv::read_run_csv_lenient(input, name, opts.side, set)?;
    Ok(Imported {
        warnings: warning.into_iter().collect(),
        ..Imported::default()
    })
}
