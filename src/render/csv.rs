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
        for s in set.samples().iter().filter(|s| s.metric == metric) {
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
    for s in set.samples().iter().filter(|s| s.metric == metric) {
        let b = set.benchmark(s.benchmark);
        let id = out.intern_configuration(&b.file, &b.configuration);
        out.push(Sample {
            benchmark: id,
            metric: RATE,
            value: 1.0 / s.value,
            ..*s
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
