//! `--format json`: the whole analysis as one JSON document for other tools.
//!
//! The layout is documented by the JSON Schema `schema/report.schema.json` (draft 2020-12) in
//! the repository, and versioned by the top-level `schema_version` ([`SCHEMA_VERSION`]): a
//! field is only ever added within a version; renaming, removing or changing the meaning of
//! one bumps it.
//!
//! Numbers are JSON numbers in the units named by the field (`_pct`: percent; rates in the
//! metric's unit, e.g. ops/s). JSON has no NaN or infinity: a statistic that is undefined
//! (no test, an empty side) is `null`.

use super::{ReportData, RunInfo};
use crate::sample::Better;
use crate::stats::welch::WelchError;
use crate::verdict::decide::{Assessment, Correction, Method, SideSummary, Verdict};
use serde_json::{Map, Value, json};

/// Version of the JSON layout (`schema_version`); see the module notes for when it changes.
pub const SCHEMA_VERSION: u64 = 1;

/// A finite number, or `null` for NaN and ±infinity.
fn num(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// `{"lower": lo, "upper": hi}` or `null`.
fn interval(ci: Option<(f64, f64)>) -> Value {
    match ci {
        Some((lo, hi)) => json!({ "lower": num(lo), "upper": num(hi) }),
        None => Value::Null,
    }
}

/// The verdict's machine name: `faster`, `slower`, `no_change` or `inconclusive`.
pub fn verdict_key(v: Verdict) -> &'static str {
    match v {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::NoChange => "no_change",
        Verdict::Inconclusive { .. } => "inconclusive",
    }
}

/// The correction's machine name: `holm`, `bh` or `none` (the `--correction` values).
pub fn correction_key(c: Correction) -> &'static str {
    match c {
        Correction::Holm => "holm",
        Correction::BenjaminiHochberg => "bh",
        Correction::None => "none",
    }
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn side(s: &SideSummary, values: &[f64]) -> Value {
    json!({
        "n": s.n,
        "mean": num(mean(values)),
        "median": num(s.median),
        "median_ci": interval(s.median_ci),
        "cv_pct": num(s.cv_pct),
        "outliers": s.outliers,
        "multimodal": s.multimodal.as_ref().map(|m| json!({
            "dip": num(m.dip),
            "p_value": num(m.p_value),
            "separation": num(m.separation),
            "modes": m.modes.iter().map(|md| json!({
                "centre": num(md.centre),
                "share": num(md.share),
                "density": num(md.density),
            })).collect::<Vec<_>>(),
            "regimes": m.regimes.as_ref().map(|r| json!({
                "by_gap": r.by_gap,
                "by_bic": r.by_bic,
                "gap": num(r.stats.gap),
                "gap_critical": num(crate::stats::regimes::gap_critical(r.stats.n)),
                "bic": num(r.stats.bic),
                "bic_critical": num(crate::stats::regimes::bic_critical(r.stats.n)),
                "groups": r.regimes.iter().map(|g| json!({
                    "centre": num(g.centre),
                    "share": num(g.share),
                    "count": g.count,
                    "low": num(g.low),
                    "high": num(g.high),
                })).collect::<Vec<_>>(),
            })),
        })),
        "drift": s.drift.as_ref().map(|d| json!({
            "n": d.n,
            "tau": num(d.tau),
            "p_value": num(d.p_value),
            "slope": num(d.slope),
            "slope_pct_per_run": num(d.slope_pct_per_run),
            "significant": s.significant_drift().is_some(),
        })),
    })
}

fn comparison(d: &ReportData<'_>, a: &Assessment) -> Value {
    let c = &a.row.comparison;
    let bench = d.set.benchmark(c.benchmark);
    let metric = d.set.metric(c.metric);
    let sides_where = |f: &dyn Fn(&SideSummary) -> bool| -> Vec<&str> {
        [("old", &a.old_side), ("new", &a.new_side)]
            .into_iter()
            .filter(|(_, s)| f(s))
            .map(|(n, _)| n)
            .collect()
    };
    let welch_error = match &a.row.welch {
        Ok(_) => Value::Null,
        Err(WelchError::TooFewSamples) => json!("too_few_samples"),
        Err(WelchError::EssentiallyConstant) => json!("essentially_constant"),
        Err(WelchError::NotFinite) => json!("not_finite"),
    };
    let mut v = json!({
        "name": c.name,
        "file": bench.file,
        "configuration": bench.configuration.text,
        "metric": {
            "name": metric.name,
            "unit": metric.unit,
            "better": match c.better { Better::Higher => "higher", Better::Lower => "lower" },
        },
        "method": match a.method { Method::Paired => "paired", Method::Unpaired => "unpaired" },
        "pairing": c.pairing.key(),
        "runs": a.runs,
        "too_few_samples": a.too_few_samples,
        "min_attainable_p": num(a.min_attainable_p),
        "change_pct": num(a.change_pct),
        "change": change_kind(a.change_pct),
        "change_ci_pct": interval(a.change_ci_pct),
        "p_value": num(a.p_value),
        "p_adjusted": num(a.p_adjusted),
        "significant": a.p_adjusted < d.opts.alpha,
        "verdict": verdict_key(a.verdict),
        "runs_needed": match a.verdict {
            Verdict::Inconclusive { runs_needed } => json!(runs_needed),
            _ => Value::Null,
        },
        "flags": {
            "multimodal": sides_where(&|s| s.multimodal.is_some()),
            "drift": sides_where(&|s| s.significant_drift().is_some()),
            "outliers": sides_where(&|s| !s.outliers.is_empty()),
        },
        "old": side(&a.old_side, &c.old),
        "new": side(&a.new_side, &c.new),
        "compare_r": {
            "improvement_pct": num(a.row.improvement_pct),
            "stars": a.row.stars.map(|s| s.as_str()),
            "accuracy_pct": a.row.accuracy_pct.map(|[p95, p99, p999]| json!({
                "p95": num(p95), "p99": num(p99), "p999": num(p999),
            })),
            "welch": a.row.welch.as_ref().ok().map(|w| json!({
                "t": num(w.t), "df": num(w.df), "p_value": num(w.p_value),
            })),
            "welch_error": welch_error,
        },
        "paired": a.paired.as_ref().map(|p| json!({
            "n": p.n,
            "mean_log_ratio": num(p.mean_log_ratio),
            "ratio": num(p.ratio),
            "ratio_ci": interval(Some(p.ratio_ci)),
            "t": num(p.t),
            "df": num(p.df),
            "p_value": num(p.p_value),
        })),
        "rank_sum": a.rank.as_ref().map(|r| json!({
            "w": num(r.w),
            "p_value": num(r.p_value),
            "exact": r.exact,
            "method": r.method.key(),
            "shift": num(r.shift),
            "shift_ci": interval(Some(r.shift_ci)),
            "ci_level": num(r.ci_level),
        })),
        "u_test": a.u_test.as_ref().map(|u| json!({
            "u": num(u.u),
            "p_value": num(u.p_value),
            "method": u.method().key(),
            "all_equal": u.all_equal,
        })),
    });
    // Only on rows combined over machines (a sharded run; optional in the schema).
    if let (Some(c), Some(obj)) = (&a.combined, v.as_object_mut()) {
        obj.insert(
            "combined".to_owned(),
            json!({
                "machines": c.k(),
                "model": if c.random_effects() { "random_effects_dl" } else { "fixed_effect" },
                "df": num(c.df),
                "fixed_change_pct": num((c.meta.fixed.estimate.exp() - 1.0) * 100.0),
                "tau2": num(c.meta.tau2),
                "q": num(c.meta.q),
                "q_p_value": num(c.meta.q_p_value),
                "i2_pct": num(c.meta.i2_pct),
                "heterogeneous": c.heterogeneous(),
                "outliers": c.outliers(),
                "per_machine": c.machines.iter().map(|m| json!({
                    "machine": m.machine,
                    "change_pct": num(m.change_pct()),
                    "log_ratio": num(m.log_ratio),
                    "variance": num(m.variance),
                    "df": num(m.df),
                    "method": if m.paired { "paired" } else { "unpaired" },
                    "n_old": m.n.0,
                    "n_new": m.n.1,
                })).collect::<Vec<_>>(),
            }),
        );
    }
    // Only on rows where a side has two regimes (the key is optional in the schema).
    let changes = a.regime_changes();
    if let (false, Some(obj)) = (changes.is_empty(), v.as_object_mut()) {
        obj.insert(
            "regime_changes".to_owned(),
            changes
                .iter()
                .map(|r| {
                    json!({
                        "old_centre": num(r.old_centre),
                        "old_share": num(r.old_share),
                        "new_centre": num(r.new_centre),
                        "new_share": num(r.new_share),
                        "change_pct": num(r.change_pct),
                    })
                })
                .collect::<Value>(),
        );
    }
    v
}

/// What a change figure is when JSON cannot carry it as a number: `finite`, `increase_from_zero`
/// (+∞: from 0 to a positive value), `decrease_to_minus_infinity` (never for values ≥ 0) or
/// `undefined` (NaN).
fn change_kind(c: f64) -> &'static str {
    if c.is_finite() {
        "finite"
    } else if c == f64::INFINITY {
        "increase_from_zero"
    } else if c == f64::NEG_INFINITY {
        "decrease_to_minus_infinity"
    } else {
        "undefined"
    }
}

fn run_info(r: &RunInfo) -> Value {
    let mut v = json!({
        "old": r.old,
        "new": r.new,
        "old_path": r.old_path,
        "new_path": r.new_path,
        "runs": r.runs,
        "order": r.order,
        "seed": r.seed,
        "files": r.files,
        "set": r.set,
        "cpus": r.cpus,
    });
    let settled: Vec<Value> = r
        .sequential
        .iter()
        .filter_map(|s| match s.status {
            crate::format::results::plan::Status::Decided {
                decision,
                lo_pct,
                hi_pct,
                row_alpha,
                rows,
            } => Some(json!({
                "file": s.file,
                "configuration": s.configuration,
                "runs": s.runs,
                "stopped": "decided",
                "decision": decision,
                "interval_pct": [num(lo_pct), num(hi_pct)],
                "row_alpha": num(row_alpha),
                "rows": rows,
            })),
            crate::format::results::plan::Status::Futile {
                conditional_power,
                lo_pct,
                hi_pct,
            } => Some(json!({
                "file": s.file,
                "configuration": s.configuration,
                "runs": s.runs,
                "stopped": "futile",
                "conditional_power": num(conditional_power),
                "interval_pct": [num(lo_pct), num(hi_pct)],
            })),
            _ => None,
        })
        .collect();
    if !settled.is_empty()
        && let Value::Object(m) = &mut v
    {
        m.insert("sequential".into(), Value::Array(settled));
    }
    v
}

/// Renders the report as pretty-printed JSON (one document, ending in a newline); the text
/// [`write`] streams.
pub fn render(d: &ReportData<'_>) -> String {
    let mut out = Vec::new();
    match write(d, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(e) => format!("{{\"error\": \"{e}\"}}\n"),
    }
}

/// Writes the report of [`render`] to `out`, one comparison at a time: memory stays that of
/// one comparison's JSON tree instead of the whole document's (a million-row report is over
/// 100 MB of JSON). Keys are in serde_json's sorted order, so `comparisons` comes first and
/// the other top-level keys follow it; the bytes are those of pretty-printing the whole tree.
///
/// # Errors
/// Returns the error of writing to `out`.
pub fn write(d: &ReportData<'_>, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let a = d.assessments;
    let count = |k: &str| a.iter().filter(|x| verdict_key(x.verdict) == k).count();
    let mut top = Map::new();
    top.insert("schema_version".into(), json!(SCHEMA_VERSION));
    top.insert(
        "tool".into(),
        json!({ "name": "benchdiff", "version": env!("CARGO_PKG_VERSION") }),
    );
    top.insert(
        "options".into(),
        json!({
            "correction": correction_key(d.opts.correction),
            "alpha": d.opts.alpha,
            "confidence": d.opts.confidence,
            "threshold_pct": d.opts.threshold_pct,
        }),
    );
    top.insert("run".into(), d.run.map_or(Value::Null, run_info));
    top.insert(
        "summary".into(),
        json!({
            "comparisons": a.len(),
            "faster": count("faster"),
            "slower": count("slower"),
            "no_change": count("no_change"),
            "inconclusive": count("inconclusive"),
            "failed_benchmarks": d.failures.benchmarks(),
        }),
    );
    let geomean = crate::verdict::decide::geomean(a);
    top.insert(
        "geomean".into(),
        match geomean {
            None => Value::Null,
            Some(g) => json!({
                "n": match g {
                    crate::verdict::decide::Geomean::Defined { n, .. }
                    | crate::verdict::decide::Geomean::Undefined { n, .. } => n,
                },
                "change_pct": g.change_pct().map_or(Value::Null, num),
                "defined": g.change_pct().is_some(),
                "note": g.note(),
            }),
        },
    );
    top.insert("failures".into(), failures(d.failures));
    top.insert("only_old".into(), json!(d.one_sided.only_old));
    top.insert("only_new".into(), json!(d.one_sided.only_new));
    top.insert(
        "notes".into(),
        json!(
            super::table::report_notes(a, d.one_sided)
                .lines()
                .collect::<Vec<_>>()
        ),
    );
    // `comparisons` sorts before every other top-level key: streamed first, element by element,
    // each pretty-printed on its own and indented to its depth (4 spaces; JSON strings hold no
    // raw line feeds, so indenting line by line is exact).
    debug_assert!(top.keys().all(|k| k.as_str() > "comparisons"));
    out.write_all(b"{\n  \"comparisons\": ")?;
    if a.is_empty() {
        out.write_all(b"[]")?;
    } else {
        out.write_all(b"[\n")?;
        // Windows of comparisons are rendered in parallel (each comparison on its own, so the
        // bytes are those of one by one) and written in order: memory stays that of a window.
        use rayon::prelude::*;
        const WINDOW: usize = 2048;
        const CHUNK: usize = 64;
        let mut first = true;
        for window in a.chunks(WINDOW) {
            let texts: Vec<std::io::Result<Vec<u8>>> = window
                .par_chunks(CHUNK)
                .map(|chunk| {
                    let mut text = Vec::with_capacity(CHUNK * 4096);
                    let mut buf = Vec::with_capacity(16 * 1024);
                    for x in chunk {
                        buf.clear();
                        serde_json::to_writer_pretty(&mut buf, &comparison(d, x))?;
                        for (j, line) in buf.split(|&b| b == b'\n').enumerate() {
                            text.extend_from_slice(if j == 0 { b",\n    " } else { b"\n    " });
                            text.extend_from_slice(line);
                        }
                    }
                    Ok(text)
                })
                .collect();
            for text in texts {
                let text = text?;
                // Every comparison starts with ",\n": the first one of the array without it.
                let skip = if first { 2 } else { 0 };
                first = false;
                out.write_all(&text[skip.min(text.len())..])?;
            }
        }
        out.write_all(b"\n  ]")?;
    }
    let rest = serde_json::to_string_pretty(&Value::Object(top))?;
    // `rest` is `{\n  "geomean": …\n}`: the other keys, after the comparisons.
    out.write_all(b",\n")?;
    out.write_all(rest.strip_prefix("{\n").unwrap_or(&rest).as_bytes())?;
    out.write_all(b"\n")
}

/// The `failures` array: one object per benchmark, side and kind of failure (schema
/// `failure`).
fn failures(f: &crate::compare::failures::Failures) -> Value {
    Value::Array(
        f.items
            .iter()
            .map(|x| {
                json!({
                    "benchmark": x.benchmark,
                    "side": x.side.label(),
                    "status": x.kind.key(),
                    "jobs": x.jobs,
                    "of_jobs": x.of_jobs,
                    "unused_samples": x.unused_samples,
                    "cause": x.cause,
                    "text": x.describe(),
                })
            })
            .collect(),
    )
}
