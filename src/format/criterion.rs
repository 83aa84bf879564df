//! criterion.rs terminal text: per benchmark a line
//! `<name>   time:   [<lower> <unit> <estimate> <unit> <upper> <unit>]` (the name may stand
//! alone on the line before, when it is long), followed by optional `thrpt:`, `change:` and
//! outlier lines.
//!
//! criterion prints no raw samples, only its estimate and bootstrap interval: each benchmark
//! gives **one** sample of `sec/op` (lower is better), the middle estimate converted from
//! ps/ns/µs/ms/s to seconds. Comparing two criterion outputs therefore has n = 1 per side; the
//! report says so. (cargo-criterion's `--message-format json` has the raw samples.) Lines of
//! libtest unit tests, `Benchmarking …` progress, `change:` and outlier summaries are skipped.
//! A panic (`thread '…' panicked at`) or `error: bench failed` gives a warning naming its line:
//! the benchmarks after it did not run.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, LineReader, ReadOptions, time_unit_seconds};
use crate::sample::{Better, Sample, SampleSet};

/// True for a line holding `time:   [` followed by three value-unit pairs and `]`.
pub fn is_time_line(line: &str) -> bool {
    parse_time(line).is_some()
}

/// `(name before "time:", estimate seconds)` of a time line.
fn parse_time(line: &str) -> Option<(&str, Option<f64>)> {
    let i = line.find("time:")?;
    let rest = line[i + 5..].trim();
    let inner = rest.strip_prefix('[')?.strip_suffix(']')?;
    let f: Vec<&str> = inner.split_whitespace().collect();
    if f.len() != 6 {
        return Some((line[..i].trim(), None));
    }
    let v = f[2].parse::<f64>().ok();
    let s = time_unit_seconds(f[3]);
    Some((line[..i].trim(), v.zip(s).map(|(v, s)| v * s)))
}

/// Reads criterion text into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming a `time:` line whose values or units cannot be read, or
/// one with no benchmark name before it, only when no result could be read (else they are
/// skipped with one summary warning), or the first line that is not UTF-8.
pub fn read_from<R: std::io::BufRead>(
    input: R,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut warns = Diagnostics::new(name);
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    // The last non-blank line (a `time:` line without a name belongs to it).
    let mut prev = String::new();
    let mut lines = LineReader::new(input, name);
    let mut records = 0u64;
    while let Some((line_no, raw)) = lines.next_text_lenient(&mut diags)? {
        // A benchmark binary that panicked or failed: the results after it are missing.
        let t = raw.trim();
        if (t.starts_with("thread '") && t.contains("' panicked at"))
            || t.starts_with("error: bench failed")
            || t.starts_with("error: process didn't exit successfully")
        {
            warns.push(
                line_no,
                format!("the benchmark run failed ({t}); results after it are missing"),
            );
        }
        if let Some((bname, est)) = parse_time(raw) {
            let bname = if bname.is_empty() {
                prev.as_str()
            } else {
                bname
            };
            if bname.is_empty() {
                diags.push(line_no, "a time: line without a benchmark name before it");
            } else if let Some(v) = est {
                let bid = set.intern(bname, "");
                records += 1;
                set.push(Sample::new(bid, opts.side, metric, v, f64::NAN, None));
            } else {
                diags.push(
                    line_no,
                    "cannot read the time estimate (expected [lo unit est unit hi unit])",
                );
            }
        }
        if !raw.trim().is_empty() {
            prev.clear();
            prev.push_str(raw.trim());
        }
    }
    crate::format::lenient_end(Vec::new(), diags, records, "results", warns.into_vec())
}
