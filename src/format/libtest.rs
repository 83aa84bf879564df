//! Rust libtest bench text (`cargo bench` with `#[bench]`):
//! `test <name> ... bench:   3,161 ns/iter (+/- 975)`.
//!
//! Each bench line is one sample of `sec/op` (the reported per-iteration median, converted from
//! ns/µs/ms/s to seconds; lower is better) for benchmark `<name>`; thousands separators are
//! dropped and a fraction is kept. `test … ... FAILED` lines are benchmarks without a result
//! and give a warning naming their line; `ignored`/`ok` tests, `running N tests`, summaries,
//! panics and cargo's `Running …` lines are not results and are skipped. Several targets in
//! one output are read as one. A record split by the benchmark's own output (libtest prints
//! `test <name> ... ` before running it and `bench: …` after, so what the benchmark printed
//! lands between) is rejoined: the first later line holding `bench:` is its result, with one
//! warning counting such records.

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
    // A `test NAME ... ` whose result has not come yet (the benchmark's own output came
    // between), with its line; and the records joined so, with the first one's lines.
    let mut pending: Option<(String, u64)> = None;
    let mut joined = 0u64;
    let mut first_join: Option<(u64, u64)> = None;
    while let Some((line_no, raw)) = lines.next_text_lenient(&mut diags)? {
        let l = raw.trim();
        let (bname, result, from_line) = match l.strip_prefix("test ") {
            Some(body) => {
                let Some((bname, result)) = body
                    .split_once(" ... ")
                    .or_else(|| body.strip_suffix(" ...").map(|b| (b, "")))
                else {
                    continue;
                };
                pending = None;
                (bname.trim().to_owned(), result.trim(), line_no)
            }
            // A line after a pending name: its result, when it holds `bench:`.
            None => match (&pending, l.find("bench:")) {
                (Some((p, at)), Some(i)) => {
                    joined += 1;
                    first_join.get_or_insert((*at, line_no));
                    let r = (p.clone(), &l[i..], line_no);
                    pending = None;
                    r
                }
                _ => continue,
            },
        };
        // The result may follow the benchmark's own output on the line.
        let bench_at = result.find("bench:");
        if let Some(rest) = bench_at.map(|i| &result[i + "bench:".len()..]) {
            match parse_bench(rest) {
                Some(v) => {
                    let bid = set.intern(&bname, "");
                    records += 1;
                    set.push(Sample::new(bid, opts.side, metric, v, f64::NAN, None));
                }
                None => diags.push(
                    from_line,
                    format!("cannot read the bench result {rest:?} (expected `N ns/iter (+/- M)`)"),
                ),
            }
        } else if result == "FAILED" {
            warns.push(from_line, format!("{bname} FAILED: no result"));
        } else if !matches!(result, "ok" | "ignored") && !result.starts_with("ignored") {
            pending = Some((bname, from_line));
        }
    }
    if let Some((first, at)) = first_join {
        warns.push(
            first,
            format!(
                "{joined} record(s) were split by the benchmark's own output (name here, \
                 result on line {at}); rejoined"
            ),
        );
    }
    crate::format::lenient_end(Vec::new(), diags, records, "results", warns.into_vec())
}
