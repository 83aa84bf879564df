//! Catch2's XML reporter (`./tests --reporter xml`, Catch2 2.x `<Catch>` and 3.x
//! `<Catch2TestRun>`) with benchmarks: per `BENCHMARK` a `<BenchmarkResults name samples
//! resamples iterations clockResolution estimatedDuration>` element holding `<mean value
//! lowerBound upperBound ci/>`, `<standardDeviation …/>` and `<outliers …/>` (all values in
//! nanoseconds), or `<failed message/>`.
//!
//! Catch2 writes its samples' analysis, not the samples: each benchmark gives one sample of
//! `sec/op` (the `mean` value, per call of the benchmark body, in seconds; lower is better),
//! and the file gets one warning that it has summary statistics only (the mean, standard
//! deviation and number of samples are named; no samples are invented from them), so each
//! benchmark is compared as one value per side, without a test. A failed benchmark is
//! skipped with a warning naming its line.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions};
use crate::sample::{Better, Sample, SampleSet};

/// True when `head` (the start of an input) is a Catch2 XML report.
pub fn is_catch2_xml(head: &str) -> bool {
    head.contains("<Catch2TestRun") || head.contains("<Catch ")
}

/// Reads Catch2 XML `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of an XML syntax error, or every problem when no
/// benchmark has a mean (including a report without benchmarks).
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut warns = Diagnostics::new(name);
    let doc = match roxmltree::Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            let line = u64::from(e.pos().row);
            return Err(crate::format::invalid(
                name,
                line,
                format!("not valid XML: {e}"),
            ));
        }
    };
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let mut records = 0u64;
    let mut summaries: Vec<String> = Vec::new();
    let mut first = 0;
    for node in doc
        .descendants()
        .filter(|n| n.has_tag_name("BenchmarkResults"))
    {
        let line = u64::from(doc.text_pos_at(node.range().start).row);
        let bname = node.attribute("name").unwrap_or("");
        if bname.is_empty() {
            diags.push(line, "a <BenchmarkResults> without a name");
            continue;
        }
        let child = |tag: &str| node.children().find(|c| c.has_tag_name(tag));
        if let Some(f) = child("failed") {
            warns.push(
                line,
                format!(
                    "{bname}: the benchmark failed ({}); skipped",
                    f.attribute("message").unwrap_or("")
                ),
            );
            continue;
        }
        let value = |tag: &str| {
            child(tag)
                .and_then(|c| c.attribute("value"))
                .and_then(|v| v.parse::<f64>().ok())
        };
        let Some(mean) = value("mean") else {
            diags.push(line, format!("{bname}: no <mean value=…>"));
            continue;
        };
        records += 1;
        let bid = set.intern(bname, "");
        set.push(Sample::new(
            bid,
            opts.side,
            metric,
            mean * 1e-9,
            f64::NAN,
            None,
        ));
        if summaries.is_empty() {
            first = line;
        }
        let sd = value("standardDeviation").map_or("?".into(), |v| format!("{v}"));
        let n = node.attribute("samples").unwrap_or("?");
        summaries.push(format!("{bname} (mean {mean} ns, sd {sd} ns, n {n})"));
    }
    if records == 0 && diags.is_empty() {
        diags.push(1, "a Catch2 XML report without benchmark results");
    }
    if !summaries.is_empty() {
        warns.push(
            first,
            super::summary_only_warning(
                "Catch2 reports summary statistics only, not samples",
                &summaries,
                "",
            ),
        );
    }
    crate::format::lenient_end(Vec::new(), diags, records, "benchmarks", warns.into_vec())
}
