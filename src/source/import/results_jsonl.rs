//! benchdiff's own results file (JSON Lines, `benchdiff compare --results`), read with the
//! runner's loader ([`crate::source::runner::results::load`]): every sample of every `ok` job
//! (first record per file, side and run) becomes a [`crate::sample::RATE`] sample with its
//! side, run index and time. Lines the loader could not read are returned as warnings.

use super::{Imported, line_of};
use crate::error::{Diagnostic, ImportError};
use crate::sample::{RATE, Sample, SampleSet};
use std::path::Path;

/// Reads the results file at `path` (`name` for diagnostics) into `set`.
///
/// # Errors
/// [`ImportError::Invalid`] when the input is not a file (standard input is not supported:
/// the runner's loader reads paths) or the loader rejects it (no `run` record first, a bad
/// `run` record), naming the line when the loader does.
pub fn read(
    text: &str,
    name: &str,
    path: Option<&Path>,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let bad = |line: u64, message: String| {
        ImportError::Invalid(
            vec![Diagnostic {
                file: name.to_owned(),
                line,
                message,
            }],
            1,
        )
    };
    let Some(path) = path else {
        return Err(bad(
            0,
            "a results file must be given by path, not on stdin".to_owned(),
        ));
    };
    let _ = line_of(text, 0);
    let loaded = crate::source::runner::results::load(path)
        .map_err(|e| bad(line_from_message(&e.to_string()), e.to_string()))?;
    for job in &loaded.done {
        for s in &job.samples {
            let r = s.to_report();
            let bid = set.intern_configuration(&job.file, &r.configuration);
            set.push(Sample {
                benchmark: bid,
                side: job.side,
                metric: RATE,
                value: r.rate,
                time_s: r.time_s,
                run: Some(job.run),
            });
        }
    }
    let warnings = loaded
        .warnings
        .iter()
        .map(|w| Diagnostic {
            file: name.to_owned(),
            line: line_from_message(w),
            message: w.clone(),
        })
        .collect();
    Ok(Imported {
        warnings,
        ..Imported::default()
    })
}

/// The N of a `line N:` inside a loader message (0 when absent).
fn line_from_message(m: &str) -> u64 {
    m.find("line ")
        .and_then(|i| {
            m[i + 5..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}
