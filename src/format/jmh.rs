//! JMH JSON (`java -jar benchmarks.jar -rf json -rff FILE.json`): an array of
//! `{"jmhVersion", "benchmark", "mode", "params": {k: v}?, "primaryMetric": {"score",
//! "scoreUnit", "rawData": [[value…]…]}, "secondaryMetrics": {…}}`.
//!
//! Each entry is one benchmark (`benchmark`, the method's full name), its configuration the
//! `params` as sorted `key=value` words. Every value of `primaryMetric.rawData[fork]
//! [iteration]` is one sample (`run` = the fork, a JVM of its own). The `mode` and `scoreUnit`
//! choose the metric, converted to base units so files written with different
//! `-tu` units compare: `thrpt` (operations per time, higher is better) → `ops/s`; `avgt`
//! (time per operation, lower is better) → `sec/op`; `sample` (sampled times per operation)
//! → `sample-sec/op`; `ss` (single-shot time) → `ss-sec/op`. A unit JMH writes that is not a
//! time (`ops/ms`, `us/op`, …) is kept as written. Secondary metrics (profilers' `·gc.…`)
//! are not read. An entry without `rawData` (a summary written by another tool) is skipped
//! with a diagnostic naming its line.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions, line_of_next_json_string};
use crate::sample::{Better, Sample, SampleSet};
use serde_json::Value;

/// Seconds per time unit as JMH writes them (`ns`, `us`, `ms`, `s`, `min`, `hr`), or `None`.
fn unit_seconds(u: &str) -> Option<f64> {
    Some(match u {
        "ns" => 1e-9,
        "us" | "µs" | "μs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        "hr" => 3600.0,
        _ => return None,
    })
}

/// `(metric name, unit, better, factor)` of a JMH `mode` and `scoreUnit`: values are
/// multiplied by `factor`.
fn metric_of(mode: &str, unit: &str) -> (String, String, Better, f64) {
    if mode == "thrpt" {
        if let Some(per) = unit.strip_prefix("ops/").and_then(unit_seconds) {
            return ("ops/s".into(), "ops/s".into(), Better::Higher, 1.0 / per);
        }
        return (unit.into(), unit.into(), Better::Higher, 1.0);
    }
    let prefix = match mode {
        "avgt" => "",
        "sample" => "sample-",
        "ss" => "ss-",
        other => return (format!("{other} {unit}"), unit.into(), Better::Lower, 1.0),
    };
    match unit.strip_suffix("/op").and_then(unit_seconds) {
        Some(s) => (format!("{prefix}sec/op"), "sec/op".into(), Better::Lower, s),
        None => (format!("{prefix}{unit}"), unit.into(), Better::Lower, 1.0),
    }
}

/// Reads JMH JSON `text` into `set` on `opts.side`.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, a document that is not
/// an array, or every problem when no entry has raw data.
pub fn read(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let (root, warnings) = crate::format::json_document(text, name)?;
    let Some(entries) = root.as_array() else {
        let message = "not an array of results: not JMH -rf json output";
        return Err(crate::format::invalid(name, 1, message));
    };
    let mut from = 0;
    let mut records = 0u64;
    for e in entries {
        let bname = e.get("benchmark").and_then(Value::as_str).unwrap_or("");
        let line = line_of_next_json_string(text, bname, &mut from);
        if bname.is_empty() {
            diags.push(line, "a result without a \"benchmark\" name");
            continue;
        }
        let mode = e.get("mode").and_then(Value::as_str).unwrap_or("");
        let unit = e
            .pointer("/primaryMetric/scoreUnit")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(raw) = e
            .pointer("/primaryMetric/rawData")
            .and_then(Value::as_array)
        else {
            diags.push(
                line,
                format!("{bname}: no primaryMetric.rawData (only a score); not comparable"),
            );
            continue;
        };
        let (mname, munit, better, factor) = metric_of(mode, unit);
        let metric = set.intern_metric(&mname, &munit, better);
        let conf = crate::format::params_conf(e.get("params"));
        let bid = set.intern(bname, &conf);
        let mut n = 0u64;
        for (fork, values) in raw.iter().enumerate() {
            for v in values.as_array().into_iter().flatten() {
                match v.as_f64() {
                    Some(x) => {
                        n += 1;
                        set.push(Sample::new(
                            bid,
                            opts.side,
                            metric,
                            x * factor,
                            f64::NAN,
                            u32::try_from(fork).ok(),
                        ));
                    }
                    None => diags.push(line, format!("{bname}: rawData value {v} is not a number")),
                }
            }
        }
        if n > 0 {
            records += 1;
        } else {
            diags.push(line, format!("{bname}: rawData holds no value"));
        }
    }
    crate::format::lenient_end(warnings, diags, records, "results", Vec::new())
}
