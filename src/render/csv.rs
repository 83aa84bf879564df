//! `--format csv`: the samples as compare.js writes them (spec §1.4), so `Rscript compare.R`
//! and node-benchmark-compare still work downstream, and `benchdiff report` reads them back.
//!
//! Header `"binary","filename","configuration","rate","time"`, then one row per sample of the
//! report's metric (the rate for Node data) in arrival order. The `rate` column means
//! operations per second (higher is better): a time per operation (Go's or Google Benchmark's
//! `sec/op`, hyperfine's wall seconds) is written as its reciprocal, and a lower-is-better
//! metric that is not a time is refused ([`rate_view`]), so the direction survives the trip. The rate is written in
//! JavaScript's shortest round-trip form, so it reads back to the same double; the time with 9
//! decimals as Node's workers print it (`NA` when the source had none).

use crate::compare::primary_metric;
use crate::format::node_csv::write::CsvWriter;
use crate::sample::{Better, MetricId, RATE, Sample, SampleSet};

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
            let time = if s.time_s.is_finite() {
                format!("{:.9}", s.time_s)
            } else {
                "NA".to_owned()
            };
            let _ = w.row(s.side, &b.file, &b.configuration.text, s.value, &time);
        }
    }
    // The buffer is valid UTF-8 whenever the names are (they come from `str`s): take it as it
    // is instead of copying it (a million rows are about 90 MB, issue 16).
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Writes the samples of `metric` of `set` as compare.js CSV to `out`: the same bytes as
/// [`render_metric`], row by row through one reused line buffer (no per-sample allocation, no
/// whole-file string: a million rows are about 90 MB, issue 16). `out` is not flushed.
///
/// # Errors
/// Write errors of `out` (e.g. a closed pipe).
pub fn write_metric(
    set: &SampleSet,
    metric: MetricId,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    out.write_all(crate::format::node_csv::write::HEADER.as_bytes())?;
    // Windows of samples are formatted in parallel, chunk by chunk, and written in order.
    const WINDOW: usize = 1 << 16;
    const CHUNK: usize = 4096;
    // The samples are read in their packed form (`iter_range`), not unpacked into a copy.
    let n = set.len();
    for window in (0..n).step_by(WINDOW) {
        let end = (window + WINDOW).min(n);
        let texts: Vec<String> = (window..end)
            .into_par_iter()
            .step_by(CHUNK)
            .map(|from| {
                let to = (from + CHUNK).min(end);
                let mut text = String::with_capacity(96 * (to - from));
                let mut number = String::with_capacity(32);
                for s in set.iter_range(from..to).filter(|s| s.metric == metric) {
                    push_row(&mut text, &mut number, set, &s);
                }
                text
            })
            .collect();
        for t in texts {
            out.write_all(t.as_bytes())?;
        }
    }
    Ok(())
}

/// Appends the CSV row of sample `s` (with its newline) to `line`.
fn push_row(line: &mut String, number: &mut String, set: &SampleSet, s: &Sample) {
    use std::fmt::Write as _;
    let b = set.benchmark(s.benchmark);
    line.push('"');
    line.push_str(s.side.label());
    line.push_str("\",\"");
    push_quoted(line, &b.file);
    line.push_str("\",\"");
    push_quoted(line, &b.configuration.text);
    line.push_str("\",");
    push_js_number(line, number, s.value);
    line.push(',');
    if s.time_s.is_finite() {
        let _ = write!(line, "{:.9}", s.time_s);
    } else {
        line.push_str("NA");
    }
    line.push('\n');
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

/// Appends [`crate::format::inspect::js_number`] of `x` to `line` (JavaScript's
/// `Number#toString`), with `scratch` as the buffer for Rust's shortest round-trip digits.
fn push_js_number(line: &mut String, scratch: &mut String, x: f64) {
    use std::fmt::Write as _;
    if !x.is_finite() || x == 0.0 || x < 0.0 {
        line.push_str(&crate::format::inspect::js_number(x));
        return;
    }
    scratch.clear();
    // `{:e}` prints the shortest round-trip digits: "1.2345e5", "1e21", "5e-324".
    let _ = write!(scratch, "{x:e}");
    let (mantissa, exp) = scratch.split_once('e').unwrap_or((scratch.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (first, rest) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let k = (first.len() + rest.len()) as i32;
    let n = exp + 1; // position of the decimal point relative to the digit string
    let digits = |line: &mut String| {
        line.push_str(first);
        line.push_str(rest);
    };
    if k <= n && n <= 21 {
        digits(line);
        line.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        // The digit string split after n digits (the first part holds one digit).
        let point = n as usize;
        for (pushed, c) in first.chars().chain(rest.chars()).enumerate() {
            if pushed == point {
                line.push('.');
            }
            line.push(c);
        }
    } else if -6 < n && n <= 0 {
        line.push_str("0.");
        line.extend(std::iter::repeat_n('0', (-n) as usize));
        digits(line);
    } else {
        let e = n - 1;
        let sign = if e >= 0 { '+' } else { '-' };
        line.push_str(first);
        if !rest.is_empty() {
            line.push('.');
            line.push_str(rest);
        }
        let _ = write!(line, "e{sign}{}", e.abs());
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

    #[test]
    fn pushed_numbers_are_js_numbers() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -2.5,
            1e21,
            1e20,
            123456789012345680000.0,
            1.5e-7,
            1e-6,
            0.000001234,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            3300414.994181368,
            0.1 + 0.2,
        ];
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let bits = s.wrapping_mul(0x2545_F491_4F6C_DD1D);
            values.push(f64::from_bits(bits));
            values.push(
                (bits >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((bits % 40) as i32 - 20),
            );
        }
        let (mut line, mut scratch) = (String::new(), String::new());
        for v in values {
            line.clear();
            push_js_number(&mut line, &mut scratch, v);
            assert_eq!(line, crate::format::inspect::js_number(v), "{v:e}");
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
