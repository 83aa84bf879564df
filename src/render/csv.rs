//! `--format csv`: the samples as compare.js writes them (spec §1.4), so `Rscript compare.R`
//! and node-benchmark-compare still work downstream, and `benchdiff report` reads them back.
//!
//! Header `"binary","filename","configuration","rate","time"`, then one row per sample of the
//! report's metric (the rate for Node data) in arrival order. The rate is written in
//! JavaScript's shortest round-trip form, so it reads back to the same double; the time with 9
//! decimals as Node's workers print it (`NA` when the source had none).

use crate::compare::primary_metric;
use crate::format::node_csv::write::CsvWriter;
use crate::sample::SampleSet;

/// Renders the samples of [`primary_metric`] of `set` as compare.js CSV.
pub fn render(set: &SampleSet) -> String {
    let metric = primary_metric(set);
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
    String::from_utf8_lossy(&buf).into_owned()
}
