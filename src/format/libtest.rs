//! Rust libtest bench text (`cargo bench` with `#[bench]`):
//! `test <name> ... bench:   3,161 ns/iter (+/- 975)`.
//!
//! Each bench line is one sample of `sec/op` (the reported per-iteration median, converted from
//! ns/µs/ms/s to seconds; lower is better) for benchmark `<name>`; thousands separators are
//! dropped and a fraction is kept. `test … ... FAILED` lines are benchmarks without a result
//! and give a warning naming their line; `ignored`/`ok` tests, `running N tests`, summaries,
//! panics and cargo's `Running …` lines are not results and are skipped. Several targets in
//! one output are read as one.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, LineReader, ReadOptions, time_unit_seconds};
use crate::sample::{Better, Sample, SampleSet};

/// True for a `test … ... bench: …` line.
pub fn is_bench_line(line: &str) -> bool {
    line.trim_start().starts_with("test ") && line.contains(" ... bench:")
}

/// True for libtest's `running N test(s)` line.
pub fn is_running_line(line: &str) -> bool {
    let l = line.trim();
    l.strip_prefix("running ")
        .and_then(|r| r.split_whitespace().next())
        .is_some_and(|n| n.parse::<u64>().is_ok())
        && (l.ends_with(" tests") || l.ends_with(" test"))
}

/// Parses `3,161 ns/iter (+/- 975)` → seconds per iteration.
fn parse_bench(rest: &str) -> Option<f64> {
    let mut it = rest.split_whitespace();
    let num: String = it.next()?.chars().filter(|&c| c != ',').collect();
    let v: f64 = num.parse().ok()?;
    let unit = it.next()?.strip_suffix("/iter")?;
    Some(v * time_unit_seconds(unit)?)
}

/// Reads libtest bench text into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming every `... bench:` line whose value or unit cannot be read,
/// only when no result could be read (else they are skipped with one summary warning), or the
/// first line that is not UTF-8.
pub fn read_from<R: std::io::BufRead>(
    input: R,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut warns = Diagnostics::new(name);
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let mut lines = LineReader::new(input, name);
    let mut records = 0u64;
    while let Some((line_no, raw)) = lines.next_text_lenient(&mut diags)? {
        let l = raw.trim();
        let Some(body) = l.strip_prefix("test ") else {
            continue;
        };
        let Some((bname, result)) = body.split_once(" ... ") else {
            continue;
        };
        let bname = bname.trim();
        let result = result.trim();
        if let Some(rest) = result.strip_prefix("bench:") {
            match parse_bench(rest) {
                Some(v) => {
                    let bid = set.intern(bname, "");
                    records += 1;
                    set.push(Sample {
                        benchmark: bid,
                        side: opts.side,
                        metric,
                        value: v,
                        time_s: f64::NAN,
                        run: None,
                    });
                }
                None => diags.push(
                    line_no,
                    format!("cannot read the bench result {rest:?} (expected `N ns/iter (+/- M)`)"),
                ),
            }
        } else if result == "FAILED" {
            warns.push(line_no, format!("{bname} FAILED: no result"));
        }
    }
    let mut warnings = Vec::new();
    if let Some(w) = diags.finish_lenient(records, "results")? {
        warnings.push(w);
    }
    warnings.extend(warns.into_vec());
    Ok(Imported {
        warnings,
        ..Imported::default()
    })
}
