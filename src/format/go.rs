//! The Go benchmark format (golang.org/design/14313-benchmark-format, with the 2021 unit
//! metadata): what `go test -bench` prints and benchstat reads. Reader and writer.
//!
//! Lines (UTF-8; a trailing `\r` is dropped):
//! - **configuration** `key: value` — the key starts with a lower-case letter and has no space
//!   or upper-case letter; the value (the rest of the line, trimmed) applies to the results
//!   after it until the key is set again;
//! - **result** `Benchmark<Name> <iterations> <value> <unit> [<value> <unit>]…` — the name is
//!   `Benchmark` followed by an upper-case letter or the end of the field, fields are split at
//!   white space. Real `go test` output is noisy, and the reader takes what is whole:
//!   - a name with nothing after it (what `go test -v` prints before each benchmark) is
//!     skipped silently;
//!   - a name followed by other text (the benchmark's own output printed into the record, or
//!     a panic) waits for its numbers: the next line holding only `<iterations> <value>
//!     <unit> …` is joined to it (one warning per file counts the joins); when another result
//!     line or the end comes first, the record is incomplete and named, with the panic or
//!     signal that cut the run off when one follows;
//!   - a line that starts like a record but cannot be read (odd field count, a value that is
//!     not a number, …) is skipped.
//!
//!   Skipped lines are summed up in one warning per file (how many records were read, how
//!   many lines skipped, the first one's number and why); the file is an error only when it
//!   yields no record at all, or has a line that is not UTF-8 (another encoding);
//! - **unit metadata** `Unit <unit> key=value…` — `better=higher|lower` and
//!   `assume=nothing|exact`; setting a key twice to different values is an error;
//! - anything else (`PASS`, `ok …`, prose) is ignored.
//!
//! Units are normalised as benchstat does: the last hyphen-separated word of a unit whose
//! numerator is `ns` becomes `sec` (values × 1e−9) and `MB` becomes `B` (× 1e6), so `ns/op` is
//! read as `sec/op` and `MB/s` as `B/s`. Each unit is one metric (name = unit = the normalised
//! unit). Direction: `better=` metadata when given; otherwise higher is better for units ending
//! in `/s` (throughput, `B/s`) and lower for everything else (`sec/op`, `B/op`, `allocs/op`
//! and custom costs).
//!
//! A benchmark's identity is its full name after `Benchmark`, including `/key=value` parts and
//! the `-N` GOMAXPROCS suffix (benchstat's `.fullname`): [`crate::sample::Benchmark::file`]
//! holds it, the configuration text is empty, and the structured parameters hold the parsed
//! name (`name`, each `/key=value` part, `gomaxprocs`). File-level configuration does not
//! split benchmarks (benchstat's `-ignore` of every configuration key), except the key named
//! by [`ReadOptions::sides_by`]. Without `sides_by`, a `binary: old|new` configuration (what
//! [`write`] emits) puts the results after it on that side. Names written by [`go_name`] for
//! non-Go benchmarks (`Node:<file>:/<word>…`) are decoded back to file and configuration.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, LineReader, ReadOptions};
use crate::sample::{Better, ConfValue, Configuration, MetricId, Sample, SampleSet, Side};
use std::collections::HashMap;
use std::fmt::Write as _;

mod fast;
use fast::{Lines, NameRef, Next};

/// A configuration line `key: value` → `(key, value)`, or `None` when the line is not one.
pub fn parse_config_line(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = line.split_once(':')?;
    let first = key.chars().next()?;
    if !first.is_lowercase() || key.chars().any(|c| c.is_whitespace() || c.is_uppercase()) {
        return None;
    }
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    Some((key, rest.trim()))
}

/// True when `line` starts like a result line: `Benchmark` followed by an upper-case letter,
/// white space or the end of the line, or by any other name followed by an iteration count.
pub fn is_result_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("Benchmark") else {
        return false;
    };
    match rest.chars().next() {
        None => true,
        Some(c) if c.is_uppercase() || c.is_whitespace() => true,
        // benchfmt reads any line starting with `Benchmark` as a result; a name going on in
        // lower case (`Benchmarkk8s_…`) is one when an iteration count follows it, so that
        // prose such as `Benchmarking …` stays text.
        Some(_) => rest
            .split_whitespace()
            .nth(1)
            .is_some_and(|f| f.parse::<u64>().is_ok()),
    }
}

/// True when the result line `line` is a whole record: a name, an iteration count and at
/// least one value with its unit (what the format sniffer takes as proof of Go output; a
/// line such as hyperfine's `Benchmark 1: sleep 0.1` is not).
pub fn is_whole_record(line: &str) -> bool {
    let fields: Vec<&str> = line.split_whitespace().collect();
    fields.len() >= 4 && parse_measurements(&fields[1..]).is_ok()
}

/// benchstat's unit normalisation: `(tidied unit, factor)`; values are multiplied by `factor`.
pub fn tidy_unit(unit: &str) -> (String, f64) {
    let (prefix, last) = match unit.rfind('-') {
        Some(i) => (&unit[..=i], &unit[i + 1..]),
        None => ("", unit),
    };
    let (num, den) = match last.find('/') {
        Some(i) => (&last[..i], &last[i..]),
        None => (last, ""),
    };
    match num {
        "ns" => (format!("{prefix}sec{den}"), 1e-9),
        "MB" => (format!("{prefix}B{den}"), 1e6),
        _ => (unit.to_owned(), 1.0),
    }
}

/// The default direction of a (tidied) unit: higher is better for rates (`…/s`), lower for
/// everything else.
pub fn default_better(unit: &str) -> Better {
    if unit.ends_with("/s") {
        Better::Higher
    } else {
        Better::Lower
    }
}

/// Parsed parts of a Go benchmark name `Name/key=value/…-N`: structured parameters
/// (`name`, each part — `key=value` or `partN=text` —, and `gomaxprocs` when there is a
/// `-N` suffix).
pub fn name_params(full: &str) -> Vec<(String, ConfValue)> {
    let (base, procs) = match full.rfind('-') {
        Some(i)
            if i + 1 < full.len()
                && full[i + 1..].bytes().all(|b| b.is_ascii_digit())
                && !full[i + 1..].contains('/') =>
        {
            (&full[..i], full[i + 1..].parse::<f64>().ok())
        }
        _ => (full, None),
    };
    let mut parts = base.split('/');
    let mut out = vec![(
        "name".to_owned(),
        ConfValue::String(parts.next().unwrap_or("").to_owned()),
    )];
    for (i, p) in parts.enumerate() {
        match p.split_once('=') {
            Some((k, v)) => out.push((k.to_owned(), ConfValue::String(v.to_owned()))),
            None => out.push((format!("part{}", i + 1), ConfValue::String(p.to_owned()))),
        }
    }
    if let Some(n) = procs {
        out.push(("gomaxprocs".to_owned(), ConfValue::Number(n)));
    }
    out
}

#[derive(Default)]
struct UnitMeta {
    better: Option<(String, u64)>,
    assume: Option<(String, u64)>,
}

/// How the sides are chosen inside one file.
enum SidesBy {
    /// A configuration key.
    Config(String),
    /// A benchmark-name key (`/poly`): the part is removed from the name.
    Name(String),
}

/// Reads Go benchmark format from `input`, streamed line by line (named `name` in diagnostics) into `set`; see the module
/// doc for the grammar, units and identities. Samples go to `opts.side`, or are split by
/// `opts.sides_by`.
///
/// Malformed result or unit lines (odd field count, non-numeric value, bad or conflicting
/// metadata, an incomplete record) are skipped and summed up
/// in one warning (see [`Diagnostics::finish_lenient`]).
///
/// # Errors
/// [`ImportError::Invalid`] naming every malformed line when no record could be read; the
/// first line that is not UTF-8; a `sides_by` key that no result line carries (line 0: "no
/// key K in this file").
pub fn read_from<R: std::io::BufRead>(
    input: R,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    read_go(input, name, opts, set, true)
}

/// [`read_from`]; with `parallel` (and no `sides_by`), runs of plain result records are
/// parsed in parallel ([`Lines`]), else every line one by one.
fn read_go<R: std::io::BufRead>(
    input: R,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
    parallel: bool,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let mut fatal = Diagnostics::new(name);
    let mut imported = Imported::default();
    let mut config: Vec<(String, String)> = Vec::new();
    let mut meta: HashMap<String, UnitMeta> = HashMap::new();
    // Unit as written → (metric, factor to its tidied unit, whether it is `sec/op`).
    let mut metric_cache: rustc_hash::FxHashMap<String, (MetricId, f64, bool)> =
        rustc_hash::FxHashMap::default();
    // Benchmark name (after `--sides-by` stripping) → its identity; the last one seen.
    let mut bench_ids = GoNames::default();
    let mut last_bid: Option<(String, crate::sample::BenchmarkId)> = None;
    let (sides_by, wanted): (Option<SidesBy>, Option<Vec<String>>) = match &opts.sides_by {
        None => (None, None),
        Some(spec) => {
            let (key, vals) = match spec.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (spec.as_str(), None),
            };
            let wanted = vals
                .map(|v| {
                    v.split(',')
                        .map(|x| x.trim().to_owned())
                        .collect::<Vec<_>>()
                })
                .filter(|v| v.len() >= 2);
            let sb = match key.strip_prefix('/') {
                Some(k) => SidesBy::Name(k.to_owned()),
                None => SidesBy::Config(key.to_owned()),
            };
            (Some(sb), wanted)
        }
    };
    // Whether any result line carried the sides key (none: an error, not all-old rows).
    let mut key_seen = false;
    let mut results = 0u64;
    let mut side_values: Vec<String> = wanted.clone().unwrap_or_default();
    // Unit metadata applies to the whole input; a metric's direction is fixed when it is first
    // interned, so `better=` must come before the unit's first result (as benchfmt requires).
    let mut lines = Lines::new(input, name, parallel && opts.sides_by.is_none());
    // A result line whose numbers have not come yet, records read, records joined.
    let mut pending: Option<Pending> = None;
    let mut records = 0u64;
    let mut joined = 0u64;
    let mut first_join: Option<(u64, u64)> = None;
    loop {
        // Whole result records parsed in parallel with the state of their batch's start,
        // or one line at a time.
        let ctx = Ctx {
            side: match config.iter().find(|(k, _)| k == "binary") {
                Some((_, v)) => Side::from_label(v).unwrap_or(opts.side),
                None => opts.side,
            },
            default_side: opts.side,
            metrics: &metric_cache,
            names: &bench_ids,
        };
        let (line_no, line) = match lines.next(&mut diags, &ctx)? {
            None => break,
            Some(Next::Line(n, l)) => (n, l),
            Some(Next::Block(block)) => {
                // Still valid: no record waits for its numbers and the side is the one the
                // block was parsed with (names and units only ever get added).
                if pending.is_some() {
                    lines.reread(block);
                    continue;
                }
                if block.side != ctx.side {
                    lines.retry(block);
                    continue;
                }
                let mut new_ids = Vec::with_capacity(block.names.len());
                for n in &block.names {
                    let id = match bench_ids.get(n) {
                        Some((id, _)) => id,
                        None => {
                            let id = intern_go_name(set, n);
                            bench_ids.insert(n, id);
                            id
                        }
                    };
                    new_ids.push(id);
                }
                set.extend_samples(block.rows.iter().map(|&(r, side, metric, value, time_s)| {
                    Sample {
                        benchmark: match r {
                            NameRef::Known(id) => id,
                            NameRef::New(k) => new_ids[k as usize],
                        },
                        side,
                        metric,
                        value,
                        time_s,
                        run: None,
                    }
                }));
                for (k, v) in &block.configs {
                    set_config(&mut config, &mut imported.config, k, v);
                }
                records += block.records;
                results += block.records;
                lines.done(block);
                continue;
            }
        };
        if let Some(rest) = line
            .strip_prefix("Unit ")
            .or_else(|| line.strip_prefix("Unit\t"))
        {
            let mut fields = rest.split_whitespace();
            let Some(unit) = fields.next() else {
                diags.push(line_no, "Unit line without a unit");
                continue;
            };
            let (unit, _) = tidy_unit(unit);
            let m = meta.entry(unit.clone()).or_default();
            for kv in fields {
                let Some((k, v)) = kv.split_once('=') else {
                    diags.push(
                        line_no,
                        format!("expected key=value after the unit, found {kv:?}"),
                    );
                    continue;
                };
                let slot = match k {
                    "better" if v == "higher" || v == "lower" => &mut m.better,
                    "assume" if v == "nothing" || v == "exact" => &mut m.assume,
                    "better" | "assume" => {
                        diags.push(line_no, format!("bad value {v:?} for unit metadata {k}"));
                        continue;
                    }
                    // Unknown metadata keys are allowed by the format and ignored.
                    _ => continue,
                };
                match slot {
                    Some((old, at)) if old != v => diags.push(
                        line_no,
                        format!("metadata {k} of unit {unit} already set to {old} (line {at})"),
                    ),
                    Some(_) => {}
                    None => *slot = Some((v.to_owned(), line_no)),
                }
            }
            continue;
        }
        // A record: a whole result line, or a result line split by the benchmark's own
        // output (name first, numbers on a later line of their own), joined.
        let mut record: Option<Record> = None;
        if is_result_line(line) {
            let fields = fields_of(line);
            let full = fields.first().map_or("", |f| &f["Benchmark".len()..]);
            if let Some(p) = pending.take() {
                p.report(&mut diags);
            }
            if fields.len() < 2 || fields[1].parse::<u64>().is_err() {
                // `go test -v` prints each name alone before running it; without -v the name
                // of a record is printed first and its numbers when it ends, so output the
                // benchmark printed, or a panic, can come between them.
                let tail = line.trim_start()[fields[0].len()..].trim();
                pending = Some(Pending {
                    name: full.to_owned(),
                    line: line_no,
                    tail: (!tail.is_empty()).then(|| tail.chars().take(80).collect()),
                    abort: is_abort(tail).then(|| tail.chars().take(80).collect()),
                });
                continue;
            }
            match parse_measurements(&fields[1..]) {
                Ok((iters, values)) => record = Some((full.into(), values, iters)),
                Err(msg) => {
                    diags.push(line_no, msg);
                    continue;
                }
            }
        } else if let Some(p) = pending.as_mut() {
            let t = line.trim();
            let fields = fields_of(t);
            if fields.len() >= 3
                && fields.len() % 2 == 1
                && fields[0].parse::<u64>().is_ok()
                && let Ok((iters, values)) = parse_measurements(&fields)
            {
                joined += 1;
                if first_join.is_none() {
                    first_join = Some((p.line, line_no));
                }
                record = Some((p.name.clone().into(), values, iters));
                pending = None;
            } else if p.abort.is_none() && is_abort(t) {
                p.abort = Some(t.chars().take(80).collect());
            }
        }
        if let Some((full, values, iters)) = record {
            let full = full.as_ref();
            records += 1;
            // Which side, and the identity.
            let mut bench_name = std::borrow::Cow::Borrowed(full);
            let side_value = match &sides_by {
                None => None,
                Some(SidesBy::Config(k)) => {
                    let v = config
                        .iter()
                        .find(|(ck, _)| ck == k)
                        .map(|(_, v)| v.clone());
                    key_seen |= v.is_some();
                    Some(v.unwrap_or_default())
                }
                Some(SidesBy::Name(k)) => {
                    let (stripped, v) = strip_name_key(full, k);
                    bench_name = stripped.into();
                    key_seen |= v.is_some();
                    Some(v.unwrap_or_default())
                }
            };
            results += 1;
            // The index of the record's value of the sides key: the first is old, every other
            // new ([`Imported::side_of_sample`] tells them apart).
            let value_index = match side_value {
                None => None,
                Some(v) => match side_values.iter().position(|x| *x == v) {
                    Some(i) => Some(i),
                    None if wanted.is_some() => continue,
                    None => {
                        side_values.push(v);
                        Some(side_values.len() - 1)
                    }
                },
            };
            let side = match value_index {
                None => match config.iter().find(|(k, _)| k == "binary") {
                    Some((_, v)) => Side::from_label(v).unwrap_or(opts.side),
                    None => opts.side,
                },
                Some(0) => Side::Old,
                Some(_) => Side::New,
            };
            // The identity of a name is decoded once: later records of it are a hash look-up
            // (or none, when the previous record had the same name).
            let bid = match &last_bid {
                Some((n, id)) if n.as_str() == bench_name.as_ref() => *id,
                _ => {
                    let id = match bench_ids.get(bench_name.as_ref()) {
                        Some((id, _)) => id,
                        None => {
                            let id = intern_go_name(set, &bench_name);
                            bench_ids.insert(&bench_name, id);
                            id
                        }
                    };
                    match &mut last_bid {
                        Some((n, last)) => {
                            n.clear();
                            n.push_str(&bench_name);
                            *last = id;
                        }
                        None => last_bid = Some((bench_name.to_string(), id)),
                    }
                    id
                }
            };
            for (unit, v) in values {
                let (mid, factor, per_op_time) = match metric_cache.get(unit) {
                    Some(&x) => x,
                    None => {
                        let (tidy, factor) = tidy_unit(unit);
                        let better = match meta.get(&tidy).and_then(|m| m.better.as_ref()) {
                            Some((b, _)) if b == "higher" => Better::Higher,
                            Some(_) => Better::Lower,
                            None => default_better(&tidy),
                        };
                        let (mname, munit) = if tidy == "ops/s" {
                            ("rate".to_owned(), "ops/s".to_owned())
                        } else {
                            (tidy.clone(), tidy.clone())
                        };
                        let id = set.intern_metric(&mname, &munit, better);
                        let per_op_time = set.metric(id).name == "sec/op";
                        metric_cache.insert(unit.to_owned(), (id, factor, per_op_time));
                        (id, factor, per_op_time)
                    }
                };
                let value = v * factor;
                let time_s = if per_op_time {
                    value * iters as f64
                } else {
                    f64::NAN
                };
                set.push(Sample::new(bid, side, mid, value, time_s, None));
                if let Some(i) = value_index {
                    imported
                        .side_of_sample
                        .push(u32::try_from(i).unwrap_or(u32::MAX));
                }
            }
            continue;
        }
        if let Some((k, v)) = parse_config_line(line) {
            set_config(&mut config, &mut imported.config, k, v);
        }
    }
    for (unit, m) in &meta {
        if matches!(&m.assume, Some((a, _)) if a == "exact") {
            imported.exact_units.insert(unit.clone());
        }
    }
    if let (Some(sb), false, true) = (&sides_by, key_seen, results > 0) {
        let msg = match sb {
            SidesBy::Config(k) => format!(
                "--sides-by {k}: no key {k} in this file (no configuration line `{k}: …` \
                 before a result line)"
            ),
            SidesBy::Name(k) => format!(
                "--sides-by /{k}: no key /{k} in this file (no benchmark name with a \
                 `/{k}=…` part)"
            ),
        };
        fatal.push(0, msg);
    }
    imported.side_values = side_values;
    if let Some(p) = pending.take() {
        p.report(&mut diags);
    }
    if let Some(w) = diags.finish_lenient(records, "result lines")? {
        imported.warnings.push(w);
    }
    if let Some((a, b)) = first_join {
        imported.warnings.push(crate::error::Diagnostic {
            file: name.to_owned(),
            line: a,
            message: format!(
                "{joined} record(s) were split by the benchmark's own output (name here, \
                 numbers on line {b}{}); joined",
                if joined > 1 { " for the first" } else { "" }
            ),
        });
    }
    fatal.finish()?;
    Ok(imported)
}

/// Applies the configuration line `k: v`: sets `k` in `config` (the configuration in
/// effect) and adds the pair to `seen` (every pair met, first-seen order) when new.
fn set_config(
    config: &mut Vec<(String, String)>,
    seen: &mut Vec<(String, String)>,
    k: &str,
    v: &str,
) {
    match config.iter_mut().find(|(ck, _)| ck == k) {
        Some(e) => e.1 = v.to_owned(),
        None => config.push((k.to_owned(), v.to_owned())),
    }
    if !seen.iter().any(|(ck, cv)| ck == k && cv == v) {
        seen.push((k.to_owned(), v.to_owned()));
    }
}

/// One record read: the full name (after `Benchmark`), its `(unit, value)` pairs and its
/// iteration count.
type Record<'a> = (std::borrow::Cow<'a, str>, Vec<(&'a str, f64)>, u64);

/// A result line whose numbers have not come (yet): the name alone, or the name followed by
/// other text.
struct Pending {
    name: String,
    line: u64,
    /// What followed the name on its line (the benchmark's output, a panic), if anything.
    tail: Option<String>,
    /// The first text after the name that says the run was aborted (a panic, a kill).
    abort: Option<String>,
}

impl Pending {
    /// Records an unfinished record as a skipped line. A name alone that nothing aborted is
    /// what `go test -v` prints before each benchmark, and not a problem.
    fn report(self, diags: &mut Diagnostics) {
        match (&self.abort, &self.tail) {
            (Some(why), _) => diags.push(
                self.line,
                format!(
                    "incomplete record Benchmark{}: the run was cut off ({why}) before its \
                     numbers were printed",
                    self.name
                ),
            ),
            (None, Some(tail)) => diags.push(
                self.line,
                format!(
                    "incomplete record Benchmark{}: its numbers never came (the line goes on \
                     with {tail:?})",
                    self.name
                ),
            ),
            (None, None) => {}
        }
    }
}

/// True for text that says a Go test binary was aborted: a panic, a fatal error, a signal.
fn is_abort(text: &str) -> bool {
    text.starts_with("panic:")
        || text.contains("panic: ")
        || text.starts_with("fatal error:")
        || text.starts_with("SIG")
        || text.starts_with("signal: ")
        || text.starts_with("*** Test killed")
}

/// The white-space separated fields of `line` (Unicode white space, as `str::split_whitespace`),
/// split byte-wise when the line is ASCII without a vertical tab (the one ASCII character
/// that is white space to `char` but not to `u8::is_ascii_whitespace`): the same fields, faster.
fn fields_of(line: &str) -> Vec<&str> {
    let mut v = Vec::with_capacity(8);
    fields_into(line, &mut v);
    v
}

/// [`fields_of`] into `v` (cleared first), for a caller that reuses one vector line after
/// line.
fn fields_into<'a>(line: &'a str, v: &mut Vec<&'a str>) {
    /// Per byte: 1 for ASCII white space as `u8::is_ascii_whitespace` has it, 2 for a byte
    /// that may be (part of) other white space (the vertical tab, which
    /// `split_ascii_whitespace` keeps, and every non-ASCII byte), else 0.
    const CLASS: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0x80;
        while i < 256 {
            t[i] = 2;
            i += 1;
        }
        t[b' ' as usize] = 1;
        t[b'\t' as usize] = 1;
        t[b'\n' as usize] = 1;
        t[0x0C] = 1;
        t[b'\r' as usize] = 1;
        t[0x0B] = 2;
        t
    };
    v.clear();
    let b = line.as_bytes();
    let (n, mut i) = (b.len(), 0);
    while i < n {
        while i < n && CLASS[b[i] as usize] == 1 {
            i += 1;
        }
        let start = i;
        // Eight bytes at a time while none is below `!` or above the ASCII range (so each is
        // of class 0): a borrow can only set more high bits, never hide one.
        while let Some(w) = b[i..].first_chunk::<8>() {
            let w = u64::from_le_bytes(*w);
            if (w.wrapping_sub(0x2121_2121_2121_2121) | w) & 0x8080_8080_8080_8080 != 0 {
                break;
            }
            i += 8;
        }
        while i < n && CLASS[b[i] as usize] == 0 {
            i += 1;
        }
        if i < n && CLASS[b[i] as usize] == 2 {
            // Unicode white space may follow: cut the whole line as `split_whitespace` does.
            v.clear();
            v.extend(line.split_whitespace());
            return;
        }
        if i > start {
            v.push(&line[start..i]);
        }
    }
}

/// The `(unit, value)` pairs of a result line, units borrowed from the line.
type Measurements<'a> = Vec<(&'a str, f64)>;

/// The iteration count and `(unit, value)` pairs of a result line's fields after the name.
///
/// # Errors
/// The message for a line that is not a whole record (missing or non-integer iteration count,
/// missing measurements, a value without unit, a value that is not a number).
fn parse_measurements<'a>(fields: &[&'a str]) -> Result<(u64, Measurements<'a>), String> {
    let Some(first) = fields.first() else {
        return Err("missing iteration count".to_owned());
    };
    let Ok(iters) = first.parse::<u64>() else {
        return Err(format!("iteration count {first:?} is not a whole number"));
    };
    if fields.len() < 3 {
        return Err("missing measurements (value and unit)".to_owned());
    }
    if fields.len().is_multiple_of(2) {
        return Err(format!(
            "missing unit after value {:?}",
            fields[fields.len() - 1]
        ));
    }
    let mut values = Vec::with_capacity(fields.len() / 2);
    for pair in fields[1..].chunks(2) {
        match pair[0].parse::<f64>() {
            Ok(v) if pair[1].parse::<f64>().is_err() => values.push((pair[1], v)),
            Ok(_) => {
                return Err(format!(
                    "unit {:?} after value {:?} is a number",
                    pair[1], pair[0]
                ));
            }
            Err(_) => {
                return Err(format!(
                    "value {:?} of unit {} is not a number",
                    pair[0], pair[1]
                ));
            }
        }
    }
    Ok((iters, values))
}

/// Removes the `/key=value` part named `key` from a Go benchmark name; returns the new name
/// and the value (`None` when the name has no such part). The `-N` suffix stays at the end.
pub fn strip_name_key(full: &str, key: &str) -> (String, Option<String>) {
    let (body, suffix) = match full.rfind('-') {
        Some(i) if i + 1 < full.len() && full[i + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            (&full[..i], &full[i..])
        }
        _ => (full, ""),
    };
    let mut value = None;
    let mut kept: Vec<&str> = Vec::new();
    for (i, part) in body.split('/').enumerate() {
        if i > 0
            && value.is_none()
            && let Some((k, v)) = part.split_once('=')
            && k == key
        {
            value = Some(v.to_owned());
            continue;
        }
        kept.push(part);
    }
    (format!("{}{suffix}", kept.join("/")), value)
}

/// Writes `set` in the Go benchmark format, so benchstat (and [`read_from`]) can read it.
///
/// Layout: a `Unit <unit> better=…` line per metric; then, per side, a `binary: old|new`
/// configuration line and every sample of that side in arrival order as
/// `Benchmark<name> <iterations> <value> <unit>`. benchstat compares the sides with
/// `benchstat -col binary FILE`; [`read_from`] puts samples under `binary: old|new` on that side.
///
/// - Metric → unit: see [`go_unit`]. Name: see [`go_name`].
/// - Iterations: `round(time_s / value)` for `sec/op` samples with a time, else 1.
/// - Values: the shortest decimal that reads back to the same double.
pub fn write(set: &SampleSet) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(96 * set.len() + 256);
    // Writing into a Vec cannot fail.
    let _ = write_to(set, &mut out);
    // Valid UTF-8 whenever the names are (they come from `str`s).
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`write`] into `out` (the same bytes), a chunk of lines at a time: memory holds no
/// whole-file string, only a window of lines.
/// `out` is not flushed.
///
/// # Errors
/// Write errors of `out` (e.g. a closed pipe).
pub fn write_to(set: &SampleSet, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let used: std::collections::BTreeSet<u32> = set.iter().map(|s| s.metric.0).collect();
    let lines = GoLines::new(set);
    lines.write_units(set, used.into_iter().map(MetricId), out)?;
    for side in [Side::Old, Side::New] {
        if !set.iter().any(|s| s.side == side) {
            continue;
        }
        GoLines::write_side_header(side, out)?;
        lines.write_samples(set, side, out)?;
    }
    Ok(())
}

/// The parts of [`write_to`]'s text, for a writer that has the samples a window at a time
/// (the bounded-memory report of a large compare.js CSV): the `Unit` lines, a
/// side's `binary:` line, and the `Benchmark…` lines of the samples of one side in a set.
/// Names and units are made once per benchmark and per metric, not once per sample (a
/// million samples share 20,000 names).
#[derive(Debug)]
pub struct GoLines {
    units: Vec<String>,
    sec_op: Vec<bool>,
    names: Vec<String>,
}

impl GoLines {
    /// The names and units of the benchmarks and metrics of `set` (the set whose samples, or
    /// windows of samples with its benchmarks, are written).
    pub fn new(set: &SampleSet) -> GoLines {
        use rayon::prelude::*;
        GoLines {
            units: (0..set.metrics().len() as u32)
                .map(|m| go_unit(set, MetricId(m)))
                .collect(),
            sec_op: set.metrics().iter().map(|m| m.name == "sec/op").collect(),
            names: set
                .benchmarks()
                .par_iter()
                .map(|b| go_name(&b.file, &b.configuration.text))
                .collect(),
        }
    }

    /// Writes a `Unit <unit> better=…` line per metric of `used` (in that order).
    ///
    /// # Errors
    /// Write errors of `out`.
    pub fn write_units(
        &self,
        set: &SampleSet,
        used: impl IntoIterator<Item = MetricId>,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut line = String::with_capacity(256);
        for m in used {
            let better = match set.metric(m).better {
                Better::Higher => "higher",
                Better::Lower => "lower",
            };
            line.clear();
            let _ = writeln!(line, "Unit {} better={better}", self.units[m.0 as usize]);
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// Writes the configuration line that opens the samples of `side` (`binary: old`).
    ///
    /// # Errors
    /// Write errors of `out`.
    pub fn write_side_header(side: Side, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        write!(out, "\nbinary: {}\n\n", side.label())
    }

    /// Writes a `Benchmark…` line per sample of `side` in `set`, in arrival order (`set`
    /// has the benchmarks and metrics this was made of).
    ///
    /// # Errors
    /// Write errors of `out`.
    pub fn write_samples(
        &self,
        set: &SampleSet,
        side: Side,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        fast::write_samples(self, set, side, out)
    }

    /// Appends the `Benchmark…` line of `s` (a sample of the set this was made of) to `text`.
    fn push_sample(&self, s: &Sample, text: &mut String) {
        let iters = if self.sec_op[s.metric.0 as usize] && s.time_s.is_finite() && s.value > 0.0 {
            ((s.time_s / s.value).round() as u64).max(1)
        } else {
            1
        };
        text.push_str("Benchmark");
        text.push_str(&self.names[s.benchmark.0 as usize]);
        let _ = write!(text, " {iters} ");
        push_go_float(text, s.value);
        text.push(' ');
        text.push_str(&self.units[s.metric.0 as usize]);
        text.push('\n');
    }
}

/// The Go unit a metric is written with: the unit when the metric's name equals it (Go
/// sources: `sec/op`, `B/op`), `ops/s` for the rate, else `<name>-<unit>`; white space as `_`.
pub fn go_unit(set: &SampleSet, id: MetricId) -> String {
    let m = set.metric(id);
    let u = if m.name == m.unit || m.unit.is_empty() {
        m.name.clone()
    } else if m.name == "rate" && m.unit == "ops/s" {
        "ops/s".to_owned()
    } else {
        format!("{}-{}", m.name, m.unit)
    };
    u.split_whitespace().collect::<Vec<_>>().join("_")
}

/// Prefix of exported names of benchmarks that are not Go benchmarks (see [`go_name`]).
pub const FOREIGN_PREFIX: &str = "Node:";

/// The Go benchmark name (after `Benchmark`) of benchmark (`file`, configuration `conf`).
///
/// A Go benchmark (empty configuration, `file` starting with an upper-case letter, no white
/// space, not starting with [`FOREIGN_PREFIX`]) is written as is. Any other is written as
/// `Node:<file>:` followed by `/<word>` per configuration word (so benchstat sees Node's
/// `key=value` words as name keys), where `%`, `:`, `/` (in words) and white space are
/// percent-encoded; a configuration that is not its words joined by single spaces is written
/// as one word. [`read_from`] decodes this form back to the same file and configuration.
pub fn go_name(file: &str, conf: &str) -> String {
    let is_go = conf.is_empty()
        && file.chars().next().is_some_and(char::is_uppercase)
        && !file.chars().any(char::is_whitespace)
        && !file.starts_with(FOREIGN_PREFIX);
    if is_go {
        return file.to_owned();
    }
    let mut name = format!("{FOREIGN_PREFIX}{}:", pct(file, false));
    let words: Vec<&str> = conf.split(' ').collect();
    if conf.is_empty() {
    } else if words.iter().all(|w| !w.is_empty()) {
        for w in words {
            name.push('/');
            name.push_str(&pct(w, true));
        }
    } else {
        name.push('/');
        name.push_str(&pct(conf, true));
    }
    name
}

fn pct(s: &str, slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '%' || c == ':' || c.is_whitespace() || (slash && c == '/') {
            let mut b = [0u8; 4];
            for byte in c.encode_utf8(&mut b).bytes() {
                let _ = write!(out, "%{byte:02X}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn unpct(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Decodes a name written by [`go_name`] in its `Node:` form into (file, configuration);
/// `None` when `name` is not of that form.
pub fn decode_foreign_name(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix(FOREIGN_PREFIX)?;
    let (file, conf) = rest.split_once(':')?;
    let file = unpct(file)?;
    if conf.is_empty() {
        return Some((file, String::new()));
    }
    let words = conf
        .strip_prefix('/')?
        .split('/')
        .map(unpct)
        .collect::<Option<Vec<_>>>()?;
    Some((file, words.join(" ")))
}

/// Appends [`go_float`] of `v` to `line` without an intermediate string.
fn push_go_float(line: &mut String, v: f64) {
    if v.is_finite() {
        let _ = write!(line, "{v:?}");
    } else {
        line.push_str(&go_float(v));
    }
}

fn go_float(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        format!("{v:?}")
    }
}

/// The identity of a Go benchmark name (after `Benchmark`): a name written by [`go_name`] for
/// a non-Go benchmark decoded back to file and configuration, else the full name with its
/// parsed parts as parameters.
fn intern_go_name(set: &mut SampleSet, name: &str) -> crate::sample::BenchmarkId {
    match decode_foreign_name(name) {
        Some((file, conf)) => set.intern(&file, &conf),
        None => {
            let conf = Configuration {
                text: String::new(),
                params: name_params(name),
            };
            set.intern_configuration(name, &conf)
        }
    }
}

/// What the parallel parse of a batch may assume: the side of results (the `binary`
/// configuration) and the side a `binary` line that is not `old` or `new` stands for, the
/// units and names already known.
struct Ctx<'a> {
    side: Side,
    default_side: Side,
    metrics: &'a rustc_hash::FxHashMap<String, (MetricId, f64, bool)>,
    names: &'a GoNames,
}

/// The benchmark names met so far (after `--sides-by` stripping), each with its identity and
/// its place in first-seen order; the names' text is kept in that order too, so that a file
/// that cycles through its benchmarks (compare.js's order: every configuration once per run)
/// is matched name after name by one comparison with the name after the last one's, in
/// memory read in order, instead of a hash look-up that misses the cache.
#[derive(Default)]
struct GoNames {
    /// The place of the first name of each hash (no allocation per name).
    index: rustc_hash::FxHashMap<u64, u32>,
    /// The places of names whose hash an earlier name already had.
    collided: rustc_hash::FxHashMap<Box<str>, u32>,
    text: String,
    /// Per name in first-seen order: its byte range in `text` and its identity.
    order: Vec<(usize, usize, crate::sample::BenchmarkId)>,
}

impl GoNames {
    /// The identity of `name` and its place in first-seen order.
    fn get(&self, name: &str) -> Option<(crate::sample::BenchmarkId, usize)> {
        let &p = self.index.get(&Self::hash(name))?;
        if let Some(id) = self.at(p as usize, name) {
            return Some((id, p as usize));
        }
        let &p = self.collided.get(name)?;
        Some((self.order.get(p as usize)?.2, p as usize))
    }

    fn hash(name: &str) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(name)
    }

    /// Adds `name` (not met before) with identity `id`.
    fn insert(&mut self, name: &str, id: crate::sample::BenchmarkId) {
        let Ok(p) = u32::try_from(self.order.len()) else {
            return;
        };
        let start = self.text.len();
        self.text.push_str(name);
        self.order.push((start, self.text.len(), id));
        match self.index.entry(Self::hash(name)) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(p);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(name.into(), p);
            }
        }
    }

    /// The place after `p` in first-seen order (the first after the last).
    fn after(&self, p: usize) -> usize {
        if p + 1 >= self.order.len() { 0 } else { p + 1 }
    }

    /// The identity of the name at place `p` when it is `name`.
    fn at(&self, p: usize, name: &str) -> Option<crate::sample::BenchmarkId> {
        let &(a, b, id) = self.order.get(p)?;
        (&self.text[a..b] == name).then_some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fields are cut at white space as `str::split_whitespace` cuts them, ASCII or not.
    #[test]
    fn fields_are_split_at_any_white_space() {
        let lines = [
            "BenchmarkA-8   \t 100  12.5 ns/op\t3 B/op",
            "  lead and trail \r",
            "form\x0Cfeed vertical\x0Btab",
            "no-break\u{a0}space ideographic\u{3000}space caf\u{e9} x",
            "",
            " \t ",
            "one",
            "BenchmarkLongName/with=parts-8\t1\t2.5 ns/op",
            "BenchmarkLongName/with=parts\u{a0}more-8 1 2 ns/op",
            "abcdefgh\x0Bijklmnopq rstuvwxyz0123456789~\x7F!\x0Cend",
            "abcdefghijklmno\u{3000}pqrstuvwxyz",
        ];
        let mut v = Vec::new();
        for l in lines {
            fields_into(l, &mut v);
            assert_eq!(v, l.split_whitespace().collect::<Vec<_>>(), "{l:?}");
            assert_eq!(fields_of(l), v);
        }
    }

    /// Names are found by hash and text, a name whose hash an earlier one has (forced here)
    /// through the collision map, and the place after the last is the first.
    #[test]
    fn go_names_find_names_and_collisions() {
        use crate::sample::BenchmarkId;
        let mut names = GoNames::default();
        names.insert("A-8", BenchmarkId(7));
        assert_eq!(names.get("A-8"), Some((BenchmarkId(7), 0)));
        // "B-8" is made to share the hash of "A-8".
        names.index.insert(GoNames::hash("B-8"), 0);
        names.insert("B-8", BenchmarkId(3));
        assert_eq!(names.collided.len(), 1);
        assert_eq!(names.get("B-8"), Some((BenchmarkId(3), 1)));
        assert_eq!(names.get("A-8"), Some((BenchmarkId(7), 0)));
        assert_eq!(names.get("C-8"), None);
        assert_eq!(names.at(1, "B-8"), Some(BenchmarkId(3)));
        assert_eq!(names.at(1, "A-8"), None);
        assert_eq!((names.after(0), names.after(1)), (1, 0));
    }

    #[test]
    fn units_tidy_like_benchstat() {
        assert_eq!(tidy_unit("ns/op"), ("sec/op".to_owned(), 1e-9));
        assert_eq!(tidy_unit("MB/s"), ("B/s".to_owned(), 1e6));
        assert_eq!(
            tidy_unit("L1-miss-ns/op"),
            ("L1-miss-sec/op".to_owned(), 1e-9)
        );
        assert_eq!(tidy_unit("B/op"), ("B/op".to_owned(), 1.0));
        assert_eq!(default_better("B/s"), Better::Higher);
        assert_eq!(default_better("allocs/op"), Better::Lower);
    }

    #[test]
    fn names_and_keys() {
        assert_eq!(
            strip_name_key("CRC32/poly=IEEE/size=15/align=0-8", "poly"),
            (
                "CRC32/size=15/align=0-8".to_owned(),
                Some("IEEE".to_owned())
            )
        );
        let p = name_params("Fib/n=10-8");
        assert_eq!(p[1], ("n".to_owned(), ConfValue::String("10".to_owned())));
        assert_eq!(p[2], ("gomaxprocs".to_owned(), ConfValue::Number(8.0)));
        assert!(is_result_line("BenchmarkFoo 1 2 ns/op"));
        assert!(!is_result_line("Benchmarking file"));
        assert_eq!(parse_config_line("goos: linux"), Some(("goos", "linux")));
        assert_eq!(parse_config_line("Note: x"), None);
        assert_eq!(parse_config_line("a b: x"), None);
    }

    #[test]
    fn bad_lines_are_named() {
        let bad = "BenchmarkB x 2 ns/op\nBenchmarkC 1 2\nUnit ns/op better=higher\nUnit ns/op better=lower\n";
        // Nothing but bad lines: an error naming each.
        let mut set = SampleSet::new();
        let e = read_from(bad.as_bytes(), "t.txt", &ReadOptions::default(), &mut set)
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.txt:1: incomplete record BenchmarkB"), "{e}");
        assert!(e.contains("t.txt:2: missing measurements"), "{e}");
        assert!(
            e.contains("t.txt:4: metadata better of unit sec/op already set to higher"),
            "{e}"
        );
        // With a whole record besides: read, and one warning for the file.
        let text = format!("BenchmarkA 1 2 ns/op\n{bad}");
        let mut set = SampleSet::new();
        let imported =
            read_from(text.as_bytes(), "t.txt", &ReadOptions::default(), &mut set).unwrap();
        assert_eq!(set.len(), 1);
        assert_eq!(imported.warnings.len(), 1, "{:?}", imported.warnings);
        let w = imported.warnings[0].to_string();
        assert!(
            w.starts_with("t.txt:2: incomplete record BenchmarkB"),
            "{w}"
        );
        assert!(w.contains("read 1 result lines; skipped 3 lines"), "{w}");
    }
}
