//! benchmark.js console lines, as `String(benchmark)` prints them in a suite's `cycle`
//! handler: `<name> x <hz> ops/sec ±<rme>% (<n> runs sampled)` (`hz` with thousands
//! separators). Other lines (the suite's "Fastest is …", build output) are skipped.
//!
//! benchmark.js prints summary statistics only — the mean rate and the relative margin of
//! error of its 95 % interval over `n` sampled runs — not the samples. Each line gives one
//! sample of `ops/s` (the mean rate; higher is better) and its summary statistics
//! ([`SampleSet::set_summary`]): benchmark.js's margin of error is `rme = t · sd/√n / mean ·
//! 100` with `t` its two-sided 95 % Student's t value for `n − 1` degrees of freedom (its
//! `tTable`, 1.96 beyond 30), so `sd = rme/100 · mean · √n / t`. The file gets one warning
//! that it has summary statistics only: each benchmark is compared from its mean, standard
//! deviation and n (Welch's test), no samples invented.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, LineReader, ReadOptions};
use crate::sample::{Better, Sample, SampleSet};

/// One benchmark.js result line: name, rate (ops/s), relative margin of error (%), runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Line<'a> {
    /// The benchmark's name.
    pub name: &'a str,
    /// Mean rate, operations per second.
    pub hz: f64,
    /// Relative margin of error of the mean, percent.
    pub rme: f64,
    /// Number of sampled runs.
    pub runs: u64,
}

/// Parses `<name> x <hz> ops/sec ±<rme>% (<n> runs sampled)`, or `None`.
pub fn parse_line(line: &str) -> Option<Line<'_>> {
    let l = line.trim();
    let (head, tail) = l.split_once(" ops/sec ")?;
    let (name, hz) = head.rsplit_once(" x ")?;
    let hz: f64 = hz.replace(',', "").parse().ok()?;
    let tail = tail.strip_prefix('±')?;
    let (rme, rest) = tail.split_once("% (")?;
    let rme: f64 = rme.parse().ok()?;
    let runs: u64 = rest.split_whitespace().next()?.parse().ok()?;
    if !rest.contains("sampled)") || name.trim().is_empty() {
        return None;
    }
    Some(Line {
        name: name.trim(),
        hz,
        rme,
        runs,
    })
}

/// The summary statistics of line `l` (see the module doc); None for fewer than 2 runs or a
/// margin of error that is not a finite number ≥ 0.
fn summary_of(l: &Line<'_>) -> Option<crate::sample::SummaryStats> {
    let n = u32::try_from(l.runs).ok().filter(|&n| n >= 2)?;
    if !(l.rme.is_finite() && l.rme >= 0.0 && l.hz.is_finite()) {
        return None;
    }
    let df = f64::from(n - 1);
    let t = if df > 30.0 {
        1.96
    } else {
        crate::stats::tdist::qt(0.975, df)
    };
    Some(crate::sample::SummaryStats {
        mean: l.hz,
        sd: l.rme / 100.0 * l.hz * f64::from(n).sqrt() / t,
        n,
    })
}

/// Reads benchmark.js console text into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming line 1 when no line is a benchmark.js result, or the
/// first line that is not UTF-8.
pub fn read_from<R: std::io::BufRead>(
    input: R,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let metric = set.intern_metric("ops/s", "ops/s", Better::Higher);
    let mut lines = LineReader::new(input, name);
    let mut records = 0u64;
    let mut first = 0;
    while let Some((line_no, raw)) = lines.next_text_lenient(&mut diags)? {
        let Some(l) = parse_line(raw) else {
            continue;
        };
        if records == 0 {
            first = line_no;
        }
        records += 1;
        let bid = set.intern(l.name, "");
        set.push(Sample::new(bid, opts.side, metric, l.hz, f64::NAN, None));
        if let Some(stats) = summary_of(&l) {
            set.set_summary(bid, metric, opts.side, stats);
        }
    }
    if records == 0 {
        diags.push(
            1,
            "no benchmark.js result line (`name x 1,234 ops/sec ±1.23% (90 runs sampled)`)",
        );
    }
    let warning = crate::error::Diagnostic::new(
        name,
        first,
        format!(
            "benchmark.js prints summary statistics only (mean rate, margin of error, runs \
             sampled), not samples: each of the {records} benchmarks is compared from its mean, \
             standard deviation and n (Welch's test), without inventing samples"
        ),
    );
    crate::format::lenient_end(Vec::new(), diags, records, "results", vec![warning])
}
