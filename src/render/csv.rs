//! `--format csv`: the samples as compare.js writes them (spec §1.4), so `Rscript compare.R`
//! and node-benchmark-compare still work downstream, and `benchdiff report` reads them back.
//!
//! Header `"binary","filename","configuration","rate","time"`, then one row per sample of the
//! report's metric (the rate for Node data) in arrival order. The `rate` column means
//! operations per second (higher is better): a time per operation (Go's or Google Benchmark's
//! `sec/op`, hyperfine's wall seconds) is written as its reciprocal, and a lower-is-better
//! metric that is not a time is refused ([`rate_view`]), so the direction survives the trip.
//! The rate is written in JavaScript's shortest round-trip form, so it reads back to the same
//! double; the time with 9 decimals as Node's workers print it (`NA` when the source had
//! none). Names are written as they are, as compare.js writes them (no spreadsheet escaping:
//! compare.R reads this file); [`write_rows`] returns the first that a spreadsheet could run,
//! for the report's warning.

use crate::compare::primary_metric;
use crate::format::node_csv::write::{CsvWriter, is_formula};
use crate::sample::{Better, MetricId, RATE, Sample, SampleSet, Side};

/// Renders the samples of [`primary_metric`] of `set` as compare.js CSV (see
/// [`render_metric`]).
pub fn render(set: &SampleSet) -> String {
    render_metric(set, primary_metric(set))
}

/// Renders the samples of `metric` of `set` as compare.js CSV, values as they are: callers
/// pass a higher-is-better metric, or the rate of a [`rate_view`].
pub fn render_metric(set: &SampleSet, metric: MetricId) -> String {
    let mut buf: Vec<u8> = Vec::with_capacity(64 * set.len() + 64);
    // Writing into a Vec cannot fail.
    if let Ok(mut w) = CsvWriter::new(&mut buf) {
        for s in set.iter().filter(|s| s.metric == metric) {
            let b = set.benchmark(s.benchmark);
            let mut time = String::new();
            if s.time_s.is_finite() {
                push_fixed9(&mut time, s.time_s);
            } else {
                time.push_str("NA");
            }
            let _ = w.row(s.side, &b.file, &b.configuration.text, s.value, &time);
        }
    }
    // The buffer is valid UTF-8 whenever the names are (they come from `str`s): take it as it
    // is instead of copying it (a million rows are about 90 MB).
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Writes the samples of `metric` of `set` as compare.js CSV to `out`: the same bytes as
/// [`render_metric`], row by row through one reused line buffer (no per-sample allocation, no
/// whole-file string: a million rows are about 90 MB). `out` is not flushed. Returns the
/// first text cell written that a spreadsheet could run as a formula, as [`write_rows`].
///
/// # Errors
/// Write errors of `out` (e.g. a closed pipe).
pub fn write_metric(
    set: &SampleSet,
    metric: MetricId,
    out: &mut dyn std::io::Write,
) -> std::io::Result<Option<String>> {
    out.write_all(crate::format::node_csv::write::HEADER.as_bytes())?;
    write_rows(set, metric, out)
}

/// Writes the rows of [`write_metric`] without the header: one per sample of `metric` of
/// `set` in arrival order (control samples, `compare --control`, left out as compare.R reads
/// only `old` and `new`). A report of spilled samples writes the header and then the rows of
/// each window of samples read back in arrival order.
///
/// The names are written as they are ([`Cells::Verbatim`]: compare.R reads this file, and
/// reads back what compare.js wrote); returns the first of them that a spreadsheet could run
/// as a formula ([`is_formula`]), so that the report can say so, or `None`.
///
/// [`Cells::Verbatim`]: crate::format::node_csv::write::Cells::Verbatim
///
/// # Errors
/// Write errors of `out`.
pub fn write_rows(
    set: &SampleSet,
    metric: MetricId,
    out: &mut dyn std::io::Write,
) -> std::io::Result<Option<String>> {
    use rayon::prelude::*;
    // Windows of samples are formatted in parallel, chunk by chunk, and written in order.
    const WINDOW: usize = 1 << 16;
    const CHUNK: usize = 4096;
    // The samples are read in their packed form (`iter_range`), not unpacked into a copy.
    let n = set.len();
    let mut formula: Option<String> = None;
    for window in (0..n).step_by(WINDOW) {
        let end = (window + WINDOW).min(n);
        let texts: Vec<(String, Option<String>)> = (window..end)
            .into_par_iter()
            .step_by(CHUNK)
            .map(|from| {
                let to = (from + CHUNK).min(end);
                let mut text = String::with_capacity(96 * (to - from));
                let mut formula = None;
                let keep = |s: &Sample| s.metric == metric && s.side != Side::Control;
                for s in set.iter_range(from..to).filter(keep) {
                    push_row(&mut text, set, &s, &mut formula);
                }
                (text, formula)
            })
            .collect();
        for (t, f) in texts {
            out.write_all(t.as_bytes())?;
            if formula.is_none() {
                formula = f;
            }
        }
    }
    Ok(formula)
}

/// Appends the CSV row of sample `s` (with its newline) to `line`; `formula` takes its
/// benchmark's name or configuration when it is the first that [`is_formula`].
fn push_row(line: &mut String, set: &SampleSet, s: &Sample, formula: &mut Option<String>) {
    let b = set.benchmark(s.benchmark);
    if formula.is_none() {
        *formula = [&*b.file, &*b.configuration.text]
            .into_iter()
            .find(|t| is_formula(t))
            .map(str::to_owned);
    }
    line.push('"');
    line.push_str(s.side.label());
    line.push_str("\",\"");
    push_quoted(line, &b.file);
    line.push_str("\",\"");
    push_quoted(line, &b.configuration.text);
    line.push_str("\",");
    crate::format::inspect::push_js_number(line, s.value);
    line.push(',');
    if s.time_s.is_finite() {
        push_fixed9(line, s.time_s);
    } else {
        line.push_str("NA");
    }
    line.push('\n');
}

/// Appends `format!("{:.9}", t)` (seconds with 9 decimals, as Node's workers print them) to
/// `line`. For a non-negative `t` below 9·10⁶ the digits come from the integer nearest to
/// `t`·10⁹ when the rounding of that product cannot change which integer is nearest (it is
/// off by at most `t`·10⁹·2⁻⁵², so a fraction farther than 2⁻⁵⁰ of it from ½ decides): that
/// is the correctly rounded value `{:.9}` prints, without its exact big-number arithmetic
/// (which was a seventh of `--format csv` of a million rows). Anything else, ties and
/// near-ties included, is formatted by `{:.9}` itself.
fn push_fixed9(line: &mut String, t: f64) {
    if t.is_sign_positive() && t < 9e6 {
        let y = t * 1e9;
        // A nearest integer (`as` truncates; `round` is a library call); checked below.
        let n = (y + 0.5) as u64;
        // 0 ≤ n < 9·10¹⁵: exact as a double, and so is the difference.
        if 0.5 - (y - n as f64).abs() > y * (4.0 * f64::EPSILON) {
            let (int, frac) = (n / 1_000_000_000, (n % 1_000_000_000) as u32);
            let mut digits = [b'0'; 30];
            let mut at = 20;
            let mut rest = int;
            loop {
                at -= 1;
                digits[at] = b'0' + (rest % 10) as u8;
                rest /= 10;
                if rest == 0 {
                    break;
                }
            }
            digits[20] = b'.';
            let mut rest = frac;
            for d in digits[21..30].iter_mut().rev() {
                *d = b'0' + (rest % 10) as u8;
                rest /= 10;
            }
            // ASCII digits and a point.
            line.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
            return;
        }
    }
    use std::fmt::Write as _;
    let _ = write!(line, "{t:.9}");
}

/// `field` with every `"` doubled (compare.js CSV quoting).
fn push_quoted(line: &mut String, field: &str) {
    if !field.contains('"') {
        line.push_str(field);
        return;
    }
    for c in field.chars() {
        if c == '"' {
            line.push('"');
        }
        line.push(c);
    }
}

/// A sample set whose compared metric was converted to compare.js's rate (for the formats
/// whose figures mean operations per second, higher is better: `--format csv`, `r`,
/// `analyze`), and the note saying so.
#[derive(Clone, Debug)]
pub struct RateView {
    /// The samples of the metric as [`crate::sample::RATE`] (ops/s), nothing else.
    pub set: SampleSet,
    /// What was converted, for stderr.
    pub note: String,
}

/// True for a lower-is-better metric that is a time per operation (seconds: `sec/op`,
/// `cpu-sec/op`, `…-sec/op`, or a wall time in `s`): its reciprocal is a rate in ops/s.
pub fn is_time_per_op(m: &crate::sample::Metric) -> bool {
    m.better == Better::Lower
        && (m.unit == "s" || m.unit == "sec/op" || m.unit.ends_with("-sec/op"))
}

/// What a rate-only format (compare.js CSV's `rate` column, compare.R's and `--analyze`'s
/// "improvement", all meaning operations per second, higher is better) makes of `metric`:
///
/// - `Ok(None)`: higher is better already (the rate, `B/s`, `items/s`): written as is;
/// - `Ok(Some(view))`: a time per operation (see [`is_time_per_op`]): every value `v`
///   seconds becomes `1/v` ops/s, so a speed-up stays an improvement (reading the CSV back, or
///   compare.R on it, gives the same verdicts);
/// - `Err(message)`: any other lower-is-better metric (`B/op`, `allocs/op`, bytes): it has no
///   rate, and writing it as one would turn every improvement into a regression.
///
/// `format` names the format in the messages (`csv`, `r`, `analyze`).
///
/// # Errors
/// The message refusing the format for a lower-is-better metric that is not a time.
pub fn rate_view(
    set: &SampleSet,
    metric: MetricId,
    format: &str,
) -> Result<Option<RateView>, String> {
    let m = set.metric(metric);
    if m.better == Better::Higher {
        return Ok(None);
    }
    if !is_time_per_op(m) {
        return Err(format!(
            "--format {format} writes compare.js's rate (operations per second, higher is \
             better); metric {} ({}) is lower-is-better and not a time, so it has no rate and \
             its improvements would read as regressions: use --format table, benchstat, go, \
             json or markdown for it",
            m.name,
            if m.unit.is_empty() { "count" } else { &m.unit }
        ));
    }
    let mut out = SampleSet::new();
    for s in set.iter().filter(|s| s.metric == metric) {
        let b = set.benchmark(s.benchmark);
        let id = out.intern_configuration(&b.file, &b.configuration);
        out.push(Sample {
            benchmark: id,
            metric: RATE,
            value: 1.0 / s.value,
            ..s
        });
    }
    Ok(Some(RateView {
        set: out,
        note: format!(
            "--format {format}: {} (seconds per operation, lower is better) converted to a \
             rate, ops/s = 1 / ({}), so that a speed-up is an improvement",
            m.name, m.unit
        ),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast 9-decimal form is `{:.9}`'s: random times of every scale, values next to a
    /// tie (k + ½)·10⁻⁹ and exact ties, integers, zero, negative zero, the limits.
    #[test]
    fn fixed9_is_rusts_9_decimals() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            0.010228719,
            0.0000000005,
            0.0000000015,
            0.0000000025,
            1e-10,
            4.9999999999e-10,
            5.0000000001e-10,
            8_999_999.999_999_999,
            9e6,
            1e7,
            -0.5,
            f64::MIN_POSITIVE,
            5e-324,
            123.4567890125,
            0.5,
            0.25,
            0.125,
            2.5e-9,
        ];
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let bits = s.wrapping_mul(0x2545_F491_4F6C_DD1D);
            let unit = (bits >> 11) as f64 / (1u64 << 53) as f64;
            values.push(f64::from_bits(bits));
            values.push(unit * 10f64.powi((bits % 19) as i32 - 12));
            // Times as Node prints them (9 decimals), and halfway between two of them.
            let k = (bits % 100_000_000_000) as f64;
            values.push(k / 1e9);
            values.push((k + 0.5) / 1e9);
            values.push((2.0 * k + 1.0) * 5e-10);
            let near = (k + 0.5) / 1e9;
            values.push(f64::from_bits(near.to_bits() + 1));
            values.push(f64::from_bits(near.to_bits().saturating_sub(1)));
        }
        let mut line = String::new();
        for v in values.into_iter().filter(|v| v.is_finite()) {
            line.clear();
            push_fixed9(&mut line, v);
            assert_eq!(line, format!("{v:.9}"), "{v:e}");
        }
    }

    #[test]
    fn written_csv_is_the_rendered_csv() {
        let mut set = SampleSet::new();
        for i in 0..10_000u32 {
            let b = set.intern(&format!("a\"b/{}.js", i % 37), &format!("n={}", i % 11));
            let side = if i % 2 == 0 {
                crate::sample::Side::Old
            } else {
                crate::sample::Side::New
            };
            set.push(Sample {
                benchmark: b,
                side,
                metric: RATE,
                value: 1e5 + f64::from(i) / 7.0,
                time_s: if i % 5 == 0 {
                    f64::NAN
                } else {
                    1e-3 * f64::from(i)
                },
                run: None,
            });
        }
        let mut out = Vec::new();
        write_metric(&set, RATE, &mut out).expect("write to a Vec");
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            render_metric(&set, RATE)
        );
    }
}
