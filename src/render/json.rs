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
use crate::sample::SampleSet;
use crate::verdict::decide::WelchError;
use crate::verdict::decide::{Assessment, Correction, Method, SideSummary, Verdict};
use serde_json::{Map, Value, json};

/// Version of the JSON layout (`schema_version`); see the module notes for when it changes.
pub const SCHEMA_VERSION: u64 = 1;

/// A finite number, or `null` for NaN and ±infinity.
fn num(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
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

/// A pretty-printer writing JSON straight from the report's structs, byte for byte as
/// `serde_json::to_writer_pretty` prints the equivalent `Value` tree: two spaces per level,
/// `"key": value`, `{}` and `[]` for empty containers, floats and string escapes by serde_json
/// itself. The caller gives the keys of each object in sorted (byte) order, the order of
/// serde_json's `BTreeMap`-backed objects (checked in debug builds).
struct Pretty<'a> {
    out: &'a mut Vec<u8>,
    /// Nesting depth: an entry is indented by two spaces per level.
    depth: usize,
    /// No entry yet in the innermost open object or array.
    first: bool,
    /// The last key of every open object ("" before its first, and for arrays), to check the
    /// order in debug builds.
    #[cfg(debug_assertions)]
    keys: Vec<&'static str>,
    /// When set, the values of the [`Corrected`] fields are left out and their positions in
    /// `out` recorded here instead (indexed by the field), to be filled in later
    /// ([`write_completed`]).
    holes: Option<[usize; 4]>,
}

impl<'a> Pretty<'a> {
    fn new(out: &'a mut Vec<u8>, depth: usize) -> Self {
        Pretty {
            out,
            depth,
            first: true,
            #[cfg(debug_assertions)]
            keys: Vec::new(),
            holes: None,
        }
    }

    /// The value of the field `field` of a comparison whose corrected p-value is
    /// `p_adjusted` and verdict `verdict` (significance at `alpha`); or, when the writer
    /// leaves holes, nothing but the record of where it goes.
    fn corrected(&mut self, field: Corrected, p_adjusted: f64, verdict: Verdict, alpha: f64) {
        match &mut self.holes {
            Some(h) => h[field as usize] = self.out.len(),
            None => write_corrected(self, field, p_adjusted, verdict, alpha),
        }
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        for _ in 0..self.depth {
            self.out.extend_from_slice(b"  ");
        }
    }

    /// Starts an entry of the innermost container: `,` after a previous one, then a new line.
    fn entry(&mut self) {
        if !self.first {
            self.out.push(b',');
        }
        self.newline();
        self.first = false;
    }

    /// Starts the entry `"key": ` of the innermost object (`key` needs no escaping).
    fn key(&mut self, key: &'static str) {
        #[cfg(debug_assertions)]
        if let Some(last) = self.keys.last_mut() {
            debug_assert!(
                *last < key,
                "JSON keys out of order: {last:?} before {key:?}"
            );
            *last = key;
        }
        self.entry();
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\": ");
    }

    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.depth += 1;
        self.first = true;
        #[cfg(debug_assertions)]
        self.keys.push("");
    }

    fn close(&mut self, bracket: u8) {
        self.depth -= 1;
        if !self.first {
            self.newline();
        }
        self.out.push(bracket);
        self.first = false;
        #[cfg(debug_assertions)]
        self.keys.pop();
    }

    /// `{`, the entries `body` writes, `}`.
    fn object(&mut self, body: impl FnOnce(&mut Self)) {
        self.open(b'{');
        body(self);
        self.close(b'}');
    }

    /// `[`, one entry per item written by `item`, `]`.
    fn array<T>(&mut self, items: impl IntoIterator<Item = T>, mut item: impl FnMut(&mut Self, T)) {
        self.open(b'[');
        for x in items {
            self.entry();
            item(self, x);
        }
        self.close(b']');
    }

    fn null(&mut self) {
        self.out.extend_from_slice(b"null");
    }

    /// A finite number as serde_json prints an `f64` (shortest round-trip digits, `1.0` for
    /// integral values), `null` for NaN and ±infinity (as [`num`]).
    fn f64(&mut self, x: f64) {
        if x.is_finite() {
            use serde_json::ser::Formatter;
            // Writing to a Vec cannot fail.
            let _ = serde_json::ser::CompactFormatter.write_f64(self.out, x);
        } else {
            self.null();
        }
    }

    fn uint(&mut self, n: u64) {
        use std::io::Write;
        let _ = write!(self.out, "{n}");
    }

    fn bool(&mut self, b: bool) {
        self.out
            .extend_from_slice(if b { b"true" } else { b"false" });
    }

    /// A JSON string, escaped by serde_json.
    fn str(&mut self, s: &str) {
        // Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *self.out, s);
    }

    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.null(),
        }
    }

    /// `{"lower": lo, "upper": hi}` or `null`.
    fn interval(&mut self, ci: Option<(f64, f64)>) {
        match ci {
            Some((lo, hi)) => self.object(|w| {
                w.key("lower");
                w.f64(lo);
                w.key("upper");
                w.f64(hi);
            }),
            None => self.null(),
        }
    }

    /// An optional object: `body` writes its entries, `null` for `None`.
    fn opt<T>(&mut self, x: Option<T>, body: impl FnOnce(&mut Self, T)) {
        match x {
            Some(x) => self.object(|w| body(w, x)),
            None => self.null(),
        }
    }
}

/// One side's summary (schema `side`) at the writer's position.
fn write_side(w: &mut Pretty<'_>, s: &SideSummary, values: &[f64]) {
    w.object(|w| {
        w.key("cv_pct");
        w.f64(s.cv_pct);
        w.key("drift");
        w.opt(s.drift.as_ref(), |w, d| {
            w.key("n");
            w.uint(d.n as u64);
            w.key("p_value");
            w.f64(d.p_value);
            w.key("significant");
            w.bool(s.significant_drift().is_some());
            w.key("slope");
            w.f64(d.slope);
            w.key("slope_pct_per_run");
            w.f64(d.slope_pct_per_run);
            w.key("tau");
            w.f64(d.tau);
        });
        w.key("mean");
        w.f64(mean(values));
        w.key("median");
        w.f64(s.median);
        w.key("median_ci");
        w.interval(s.median_ci);
        w.key("multimodal");
        w.opt(s.multimodal.as_ref(), |w, m| {
            w.key("dip");
            w.f64(m.dip);
            w.key("modes");
            w.array(&m.modes, |w, md| {
                w.object(|w| {
                    w.key("centre");
                    w.f64(md.centre);
                    w.key("density");
                    w.f64(md.density);
                    w.key("share");
                    w.f64(md.share);
                })
            });
            w.key("p_value");
            w.f64(m.p_value);
            w.key("regimes");
            w.opt(m.regimes.as_ref(), |w, r| {
                w.key("bic");
                w.f64(r.stats.bic);
                w.key("bic_critical");
                w.f64(r.bic_critical);
                w.key("by_bic");
                w.bool(r.by_bic);
                w.key("by_gap");
                w.bool(r.by_gap);
                w.key("gap");
                w.f64(r.stats.gap);
                w.key("gap_critical");
                w.f64(r.gap_critical);
                w.key("groups");
                w.array(&r.regimes, |w, g| {
                    w.object(|w| {
                        w.key("centre");
                        w.f64(g.centre);
                        w.key("count");
                        w.uint(g.count as u64);
                        w.key("high");
                        w.f64(g.high);
                        w.key("low");
                        w.f64(g.low);
                        w.key("share");
                        w.f64(g.share);
                    })
                });
            });
            w.key("separation");
            w.f64(m.separation);
        });
        w.key("n");
        w.uint(s.n as u64);
        w.key("outliers");
        w.array(&s.outliers, |w, &i| w.uint(i as u64));
    });
}

/// The fields of a comparison that depend on the correction across the whole report (its
/// corrected p-value and its verdict), in the order they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Corrected {
    PAdjusted = 0,
    RunsNeeded = 1,
    Significant = 2,
    Verdict = 3,
}

/// The fields of [`Corrected`], in order.
const CORRECTED: [Corrected; 4] = [
    Corrected::PAdjusted,
    Corrected::RunsNeeded,
    Corrected::Significant,
    Corrected::Verdict,
];

/// Writes the value of `field` for a comparison with the corrected p-value `p_adjusted` and
/// the verdict `verdict` (significant: `p_adjusted < alpha`).
fn write_corrected(
    w: &mut Pretty<'_>,
    field: Corrected,
    p_adjusted: f64,
    verdict: Verdict,
    alpha: f64,
) {
    match field {
        Corrected::PAdjusted => w.f64(p_adjusted),
        Corrected::RunsNeeded => match verdict {
            Verdict::Inconclusive {
                runs_needed: Some(n),
            } => w.uint(n),
            _ => w.null(),
        },
        Corrected::Significant => w.bool(p_adjusted < alpha),
        Corrected::Verdict => w.str(verdict_key(verdict)),
    }
}

/// One comparison (schema `comparison`) at the writer's position; `set` holds its names and
/// metric, `alpha` is the report's level.
fn write_comparison(w: &mut Pretty<'_>, set: &SampleSet, alpha: f64, a: &Assessment) {
    let c = &a.row.comparison;
    let bench = set.benchmark(c.benchmark);
    let metric = set.metric(c.metric);
    let sides_where = |w: &mut Pretty<'_>, f: &dyn Fn(&SideSummary) -> bool| {
        let sides = [("old", &a.old_side), ("new", &a.new_side)];
        w.array(sides.into_iter().filter(|(_, s)| f(s)), |w, (n, _)| {
            w.str(n)
        });
    };
    w.object(|w| {
        w.key("change");
        w.str(change_kind(a.change_pct));
        w.key("change_ci_pct");
        w.interval(a.change_ci_pct);
        w.key("change_pct");
        w.f64(a.change_pct);
        // Only on rows combined over machines (a sharded run; optional in the schema).
        if let Some(c) = &a.combined {
            w.key("combined");
            w.object(|w| {
                w.key("df");
                w.f64(c.df);
                w.key("fixed_change_pct");
                w.f64((c.meta.fixed.estimate.exp() - 1.0) * 100.0);
                w.key("heterogeneous");
                w.bool(c.heterogeneous());
                w.key("i2_pct");
                w.f64(c.meta.i2_pct);
                w.key("machines");
                w.uint(c.k() as u64);
                w.key("model");
                w.str(if c.random_effects() {
                    "random_effects_dl"
                } else {
                    "fixed_effect"
                });
                w.key("outliers");
                w.array(c.outliers(), |w, m| w.str(m));
                w.key("per_machine");
                w.array(&c.machines, |w, m| {
                    w.object(|w| {
                        w.key("change_pct");
                        w.f64(m.change_pct());
                        w.key("df");
                        w.f64(m.df);
                        w.key("log_ratio");
                        w.f64(m.log_ratio);
                        w.key("machine");
                        w.str(&m.machine);
                        w.key("method");
                        w.str(if m.paired { "paired" } else { "unpaired" });
                        w.key("n_new");
                        w.uint(m.n.1 as u64);
                        w.key("n_old");
                        w.uint(m.n.0 as u64);
                        w.key("variance");
                        w.f64(m.variance);
                    })
                });
                w.key("q");
                w.f64(c.meta.q);
                w.key("q_p_value");
                w.f64(c.meta.q_p_value);
                w.key("tau2");
                w.f64(c.meta.tau2);
            });
        }
        w.key("compare_r");
        w.object(|w| {
            w.key("accuracy_pct");
            w.opt(a.row.accuracy_pct, |w, [p95, p99, p999]| {
                w.key("p95");
                w.f64(p95);
                w.key("p99");
                w.f64(p99);
                w.key("p999");
                w.f64(p999);
            });
            w.key("improvement_pct");
            w.f64(a.row.improvement_pct);
            w.key("stars");
            w.opt_str(a.row.stars.map(|s| s.as_str()));
            w.key("welch");
            w.opt(a.row.welch.as_ref().ok(), |w, t| {
                w.key("df");
                w.f64(t.df);
                w.key("p_value");
                w.f64(t.p_value);
                w.key("t");
                w.f64(t.t);
            });
            w.key("welch_error");
            w.opt_str(match &a.row.welch {
                Ok(_) => None,
                Err(WelchError::TooFewSamples) => Some("too_few_samples"),
                Err(WelchError::EssentiallyConstant) => Some("essentially_constant"),
                Err(WelchError::NotFinite) => Some("not_finite"),
            });
        });
        w.key("configuration");
        w.str(&bench.configuration.text);
        w.key("file");
        w.str(&bench.file);
        w.key("flags");
        w.object(|w| {
            w.key("drift");
            sides_where(w, &|s| s.significant_drift().is_some());
            w.key("multimodal");
            sides_where(w, &|s| s.multimodal.is_some());
            w.key("outliers");
            sides_where(w, &|s| !s.outliers.is_empty());
        });
        w.key("method");
        w.str(match a.method {
            Method::Paired => "paired",
            Method::Unpaired => "unpaired",
        });
        w.key("metric");
        w.object(|w| {
            w.key("better");
            w.str(match c.better {
                Better::Higher => "higher",
                Better::Lower => "lower",
            });
            w.key("name");
            w.str(&metric.name);
            w.key("unit");
            w.str(&metric.unit);
        });
        w.key("min_attainable_p");
        w.f64(a.min_attainable_p);
        w.key("name");
        w.str(&c.name);
        w.key("new");
        write_side(w, &a.new_side, &c.new);
        w.key("old");
        write_side(w, &a.old_side, &c.old);
        w.key("p_adjusted");
        w.corrected(Corrected::PAdjusted, a.p_adjusted, a.verdict, alpha);
        w.key("p_value");
        w.f64(a.p_value);
        w.key("paired");
        w.opt(a.paired.as_ref(), |w, p| {
            w.key("df");
            w.f64(p.df);
            w.key("mean_log_ratio");
            w.f64(p.mean_log_ratio);
            w.key("n");
            w.uint(p.n as u64);
            w.key("p_value");
            w.f64(p.p_value);
            w.key("ratio");
            w.f64(p.ratio);
            w.key("ratio_ci");
            w.interval(Some(p.ratio_ci));
            w.key("t");
            w.f64(p.t);
        });
        w.key("pairing");
        w.str(c.pairing.key());
        w.key("rank_sum");
        w.opt(a.rank.as_ref(), |w, r| {
            w.key("ci_level");
            w.f64(r.ci_level);
            w.key("exact");
            w.bool(r.exact);
            w.key("method");
            w.str(r.method.key());
            w.key("p_value");
            w.f64(r.p_value);
            w.key("shift");
            w.f64(r.shift);
            w.key("shift_ci");
            w.interval(Some(r.shift_ci));
            w.key("w");
            w.f64(r.w);
        });
        // Only on rows where a side has two regimes (the key is optional in the schema).
        let changes = a.regime_changes();
        if !changes.is_empty() {
            w.key("regime_changes");
            w.array(&changes, |w, r| {
                w.object(|w| {
                    w.key("change_pct");
                    w.f64(r.change_pct);
                    w.key("new_centre");
                    w.f64(r.new_centre);
                    w.key("new_share");
                    w.f64(r.new_share);
                    w.key("old_centre");
                    w.f64(r.old_centre);
                    w.key("old_share");
                    w.f64(r.old_share);
                })
            });
        }
        w.key("runs");
        w.uint(a.runs as u64);
        w.key("runs_needed");
        w.corrected(Corrected::RunsNeeded, a.p_adjusted, a.verdict, alpha);
        w.key("significant");
        w.corrected(Corrected::Significant, a.p_adjusted, a.verdict, alpha);
        w.key("too_few_samples");
        w.bool(a.too_few_samples);
        w.key("u_test");
        w.opt(a.u_test.as_ref(), |w, u| {
            w.key("all_equal");
            w.bool(u.all_equal);
            w.key("method");
            w.str(u.method().key());
            w.key("p_value");
            w.f64(u.p_value);
            w.key("u");
            w.f64(u.u);
        });
        w.key("verdict");
        w.corrected(Corrected::Verdict, a.p_adjusted, a.verdict, alpha);
    });
}

/// Where the values that the report's correction decides go in the text of a comparison
/// rendered before it ([`write_pending`]): byte offsets from the start of its text, one per
/// corrected field (`p_adjusted`, `runs_needed`, `significant`, `verdict`), in order.
pub type Holes = [u32; 4];

/// Appends to `out` the JSON object of the comparison `a` (its names and metric in `set`),
/// as [`write()`] prints it in the array of comparisons (the first line not indented), but
/// without the values of its corrected p-value, `runs_needed`, `significant` and verdict,
/// which the correction across the whole report decides: returns where they go, for
/// [`write_completed`]. For a report that renders its comparisons before it has corrected
/// them all (the bounded-memory report of a large input).
///
/// # Panics
/// Never for a comparison's text under 4 GiB.
pub fn write_pending(set: &SampleSet, a: &Assessment, out: &mut Vec<u8>) -> Holes {
    let start = out.len();
    let mut w = Pretty::new(out, 2);
    w.holes = Some([0; 4]);
    // The level only decides `significant`, which is left out.
    write_comparison(&mut w, set, f64::NAN, a);
    let holes = w.holes.unwrap_or_default();
    holes.map(|h| u32::try_from(h - start).unwrap_or(u32::MAX))
}

/// Appends to `out` the comparison `text` of [`write_pending`] with the values at its
/// `holes` filled in: the corrected p-value `p_adjusted`, the verdict `verdict`, significance
/// at `alpha` — the bytes [`write()`] prints for the comparison so corrected.
pub fn write_completed(
    text: &[u8],
    holes: Holes,
    p_adjusted: f64,
    verdict: Verdict,
    alpha: f64,
    out: &mut Vec<u8>,
) {
    let mut at = 0;
    for (field, h) in CORRECTED.into_iter().zip(holes) {
        let h = (h as usize).clamp(at, text.len());
        out.extend_from_slice(&text[at..h]);
        write_corrected(&mut Pretty::new(out, 0), field, p_adjusted, verdict, alpha);
        at = h;
    }
    out.extend_from_slice(&text[at..]);
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

/// What the JSON document holds besides its comparisons: every top-level key after
/// `comparisons`, in the figures of the whole report.
pub struct Rest<'a> {
    /// The verdict rules used (correction, α, confidence, threshold).
    pub opts: &'a crate::verdict::decide::Options,
    /// How the samples were measured, when benchdiff ran them.
    pub run: Option<&'a RunInfo>,
    /// How many comparisons there are, then how many are faster, slower, no change and
    /// inconclusive ([`crate::render::table::verdict_counts`]).
    pub counts: [usize; 5],
    /// The geomean of the changes ([`crate::verdict::decide::geomean`]).
    pub geomean: Option<crate::verdict::decide::Geomean>,
    /// Jobs that failed.
    pub failures: &'a crate::compare::failures::Failures,
    /// Benchmarks measured on one side only.
    pub one_sided: &'a crate::compare::OneSided,
    /// The report-level notes, one a line ([`crate::render::table::report_notes`]).
    pub notes: &'a str,
    /// The A/A control's `control` object ([`crate::render::control::json_value`]), when the
    /// samples have a control side.
    pub control: Option<Value>,
}

/// The start of the document, up to its array of comparisons (`[` included when `rows` is
/// not 0; `[]` else).
///
/// # Errors
/// Returns the error of writing to `out`.
pub fn write_head(rows: usize, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    out.write_all(if rows == 0 {
        b"{\n  \"comparisons\": []"
    } else {
        b"{\n  \"comparisons\": [\n"
    })
}

/// What goes before the `i`-th comparison's text (counting from 0) in the array.
pub fn separator(i: usize) -> &'static [u8] {
    if i == 0 { b"    " } else { b",\n    " }
}

/// The end of the document after its comparisons (the `]` of a non-empty array, when `rows`
/// is not 0, and the other top-level keys of `rest`).
///
/// # Errors
/// Returns the error of writing to `out`.
pub fn write_rest(
    rows: usize,
    rest: &Rest<'_>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write_rest_with(rows, rest, None, out)
}

/// [`write_rest`] with the `metrics` array when there is one ([`super::metrics::json`]).
fn write_rest_with(
    rows: usize,
    rest: &Rest<'_>,
    metrics: Option<Value>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    if rows != 0 {
        out.write_all(b"\n  ]")?;
    }
    let [comparisons, faster, slower, no_change, inconclusive] = rest.counts;
    let mut top = Map::new();
    top.insert("schema_version".into(), json!(SCHEMA_VERSION));
    top.insert(
        "tool".into(),
        json!({ "name": "benchdiff", "version": env!("CARGO_PKG_VERSION") }),
    );
    top.insert(
        "options".into(),
        json!({
            "correction": correction_key(rest.opts.correction),
            "alpha": rest.opts.alpha,
            "confidence": rest.opts.confidence,
            "threshold_pct": rest.opts.threshold_pct,
        }),
    );
    top.insert("run".into(), rest.run.map_or(Value::Null, run_info));
    top.insert(
        "summary".into(),
        json!({
            "comparisons": comparisons,
            "faster": faster,
            "slower": slower,
            "no_change": no_change,
            "inconclusive": inconclusive,
            "failed_benchmarks": rest.failures.benchmarks(),
        }),
    );
    top.insert(
        "geomean".into(),
        match rest.geomean {
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
    if let Some(c) = &rest.control {
        top.insert("control".into(), c.clone());
    }
    top.insert("failures".into(), failures(rest.failures));
    if let Some(m) = metrics {
        top.insert("metrics".into(), m);
    }
    top.insert("only_old".into(), json!(rest.one_sided.only_old));
    top.insert("only_new".into(), json!(rest.one_sided.only_new));
    top.insert(
        "notes".into(),
        json!(rest.notes.lines().collect::<Vec<_>>()),
    );
    // `comparisons` sorts before every other top-level key: it comes first.
    debug_assert!(top.keys().all(|k| k.as_str() > "comparisons"));
    let text = serde_json::to_string_pretty(&Value::Object(top))?;
    // `text` is `{\n  "failures": …\n}`: the other keys, after the comparisons.
    out.write_all(b",\n")?;
    out.write_all(text.strip_prefix("{\n").unwrap_or(&text).as_bytes())?;
    out.write_all(b"\n")
}

/// Writes the report of [`render`] to `out`, one window of comparisons at a time: memory stays
/// that of a window's text instead of the whole document's (a million-row report is over
/// 100 MB of JSON). Each comparison is written straight from its structs ([`Pretty`]; building
/// a `serde_json::Value` tree of each and dropping it was a fifth of the report's CPU). Keys
/// are in serde_json's sorted order, so `comparisons` comes first ([`write_head`]) and the
/// other top-level keys follow it ([`write_rest`]); the bytes are those of pretty-printing the
/// whole document as one `Value` tree.
///
/// # Errors
/// Returns the error of writing to `out`.
pub fn write(d: &ReportData<'_>, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let a = d.assessments;
    write_head(a.len(), out)?;
    // Windows of comparisons are rendered and written in order: memory stays that of a window.
    const WINDOW: usize = 2048;
    const CHUNK: usize = 64;
    for (k, window) in a.chunks(WINDOW).enumerate() {
        let texts: Vec<Vec<u8>> = window
            .chunks(CHUNK)
            .enumerate()
            .map(|(j, chunk)| {
                let mut text = Vec::with_capacity(CHUNK * 4096);
                for (i, x) in chunk.iter().enumerate() {
                    text.extend_from_slice(separator(k * WINDOW + j * CHUNK + i));
                    // Inside the top-level object and the array: depth 2.
                    write_comparison(&mut Pretty::new(&mut text, 2), d.set, d.opts.alpha, x);
                }
                text
            })
            .collect();
        for text in texts {
            out.write_all(&text)?;
        }
    }
    // Each comparison's log ratio (the means read every sample); the geomean's sum is in row
    // order.
    let geomean = if a.len() < 2 {
        None
    } else {
        let logs: Vec<Option<f64>> = a.iter().map(crate::verdict::decide::log_ratio).collect();
        crate::verdict::decide::geomean(logs)
    };
    let unpaired = a
        .iter()
        .any(|x| x.row.comparison.pairing == crate::compare::Pairing::None);
    let notes = super::table::report_notes(unpaired, d.one_sided, geomean);
    let rest = Rest {
        opts: d.opts,
        run: d.run,
        counts: super::table::verdict_counts(a.iter().map(|x| x.verdict)),
        geomean,
        failures: d.failures,
        one_sided: d.one_sided,
        notes: &notes,
        control: d.control.map(|c| super::control::json_value(c, a)),
    };
    write_rest_with(a.len(), &rest, super::metrics::json(d.metrics), out)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes the document of `pretty_matches_serde_json` with [`Pretty`] at `depth`.
    fn write_doc(depth: usize) -> String {
        let mut out = Vec::new();
        let mut w = Pretty::new(&mut out, depth);
        w.object(|w| {
            w.key("a");
            w.array(std::iter::empty::<u8>(), |_, _| {});
            w.key("b");
            w.object(|_| {});
            w.key("c");
            w.array(
                [1.0, -0.0, 1e-7, 1.5e300, 0.1, 24.0, f64::NAN, f64::INFINITY],
                |w, x| w.f64(x),
            );
            w.key("d");
            w.null();
            w.key("e");
            w.str("q\"\\\n\u{1}é\u{2028}");
            w.key("f");
            w.array([true, false], |w, b| {
                w.object(|w| {
                    w.key("x");
                    w.bool(b);
                    w.key("y");
                    w.interval(b.then_some((1.0, f64::NAN)));
                })
            });
            w.key("n");
            w.uint(u64::MAX);
            w.key("o");
            w.opt_str(None);
            w.key("p_value");
            w.opt(Some(3), |w, x| {
                w.key("x");
                w.uint(x);
            });
            w.key("pairing");
            w.opt(None::<u64>, |_, _| {});
        });
        String::from_utf8(out).expect("UTF-8")
    }

    /// The direct writer gives serde_json's pretty-printing of the same tree: empty
    /// containers, float digits (integral, negative zero, exponents), NaN and infinity as
    /// `null`, string escapes, nesting, and indentation from a starting depth.
    #[test]
    fn pretty_matches_serde_json() {
        let tree = json!({
            "a": [],
            "b": {},
            "c": [1.0, -0.0, 1e-7, 1.5e300, 0.1, 24.0, num(f64::NAN), num(f64::INFINITY)],
            "d": null,
            "e": "q\"\\\n\u{1}é\u{2028}",
            "f": [
                { "x": true, "y": { "lower": 1.0, "upper": num(f64::NAN) } },
                { "x": false, "y": null },
            ],
            "n": u64::MAX,
            "o": null,
            "p_value": { "x": 3 },
            "pairing": null,
        });
        let want = serde_json::to_string_pretty(&tree).expect("prints");
        assert_eq!(write_doc(0), want);
        // At depth 2 (a comparison in the report), every line after the first is indented
        // by four more spaces.
        assert_eq!(write_doc(2), want.replace('\n', "\n    "));
    }
}
