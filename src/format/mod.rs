//! Importers: every benchmark-result format benchdiff reads, behind one registry.
//!
//! Each format has a name (what `--input-format` takes), a content sniffer, and a reader that
//! adds samples to a [`SampleSet`] and reports every line it cannot read as a positioned
//! [`Diagnostic`] (`file:line: what was wrong`).
//!
//! | name | module | what it reads |
//! |---|---|---|
//! | `node-compare-csv` | [`crate::format::node_csv`] | CSV of Node's `benchmark/compare.js` |
//! | `node-run-csv` | [`node_run_csv`] | CSV of Node's `benchmark/run.js --format csv` |
//! | `results-jsonl` | [`results`] | benchdiff's own results file (JSON Lines) |
//! | `go` | [`go`] | Go benchmark format (`go test -bench`, what benchstat reads) |
//! | `hyperfine` | [`hyperfine`] | `hyperfine --export-json` |
//! | `google-benchmark` | [`google_benchmark`] | Google Benchmark `--benchmark_format=json` |
//! | `libtest` | [`libtest`] | Rust `cargo bench` (libtest) text |
//! | `criterion` | [`criterion`] | criterion.rs terminal text |
//! | `pytest-benchmark` | [`pytest_benchmark`] | pytest-benchmark `--benchmark-json` |
//! | `pyperf` | [`pyperf`] | pyperf JSON (`-o FILE.json`, also gzip-compressed) |
//! | `criterion-baselines` | [`criterion_baselines`] | criterion's `target/criterion` folder (two saved baselines) |
//! | `criterion-sample` | [`criterion_baselines`] | one criterion `sample.json` |
//! | `jmh` | [`jmh`] | JMH `-rf json` |
//! | `benchmarkdotnet` | [`benchmarkdotnet`] | BenchmarkDotNet JSON export (full or brief) |
//! | `tinybench` | [`tinybench`] | tinybench tasks as JSON, `vitest bench --outputJson` |
//! | `mitata` | [`mitata`] | mitata `run({ format: 'json' })` |
//! | `benchmarkjs` | [`benchmarkjs`] | benchmark.js console lines (summary only) |
//! | `catch2-xml` | [`catch2`] | Catch2 `--reporter xml` with benchmarks |
//!
//! Formats without a side of their own (all but the two Node CSVs and the results file) put
//! their samples on the side given in [`ReadOptions::side`]: `benchdiff report old.txt new.txt`
//! reads the first file as old and the second as new, like benchstat.

pub mod benchmarkdotnet;
pub mod benchmarkjs;
mod blocks;
pub mod catch2;
pub mod criterion;
pub mod criterion_baselines;
pub mod go;
pub mod google_benchmark;
pub mod hyperfine;
pub mod inspect;
pub mod jmh;
pub mod libtest;
pub mod mitata;
pub mod node_csv;
pub mod node_ipc;
pub mod node_run_csv;
pub mod pyperf;
pub mod pytest_benchmark;
pub mod result_lines;
pub mod results;
pub mod tinybench;

pub use crate::error::Diagnostics;
use crate::error::{Diagnostic, ImportError};
pub use crate::lines::{Encoding, Line, LineReader, MAX_LINE_BYTES, Utf16Reader};
use crate::sample::{SampleSet, SampleSink, Side};
use std::collections::BTreeSet;

/// A format benchdiff can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputFormat {
    /// Node `benchmark/compare.js` CSV (has a `binary` column: old/new).
    NodeCompareCsv,
    /// Node `benchmark/run.js --format csv` (no binary column: one side per file).
    NodeRunCsv,
    /// benchdiff's results JSON Lines (`benchdiff compare --results`).
    ResultsJsonl,
    /// Go benchmark format.
    Go,
    /// hyperfine `--export-json`.
    Hyperfine,
    /// Google Benchmark JSON.
    GoogleBenchmark,
    /// Rust libtest `cargo bench` text.
    Libtest,
    /// criterion.rs terminal text.
    Criterion,
    /// pytest-benchmark JSON.
    PytestBenchmark,
    /// pyperf JSON.
    Pyperf,
    /// criterion's `target/criterion` folder: two saved baselines (a directory input).
    CriterionBaselines,
    /// One criterion `sample.json`.
    CriterionSample,
    /// JMH `-rf json`.
    Jmh,
    /// BenchmarkDotNet JSON export.
    BenchmarkDotNet,
    /// tinybench tasks as JSON, or `vitest bench --outputJson`.
    Tinybench,
    /// mitata JSON.
    Mitata,
    /// benchmark.js console lines.
    BenchmarkJs,
    /// Catch2 XML reporter output.
    Catch2Xml,
}

/// Every format, in sniffing priority order.
pub const FORMATS: [InputFormat; 18] = [
    InputFormat::ResultsJsonl,
    InputFormat::Hyperfine,
    InputFormat::GoogleBenchmark,
    InputFormat::PytestBenchmark,
    InputFormat::Pyperf,
    InputFormat::Jmh,
    InputFormat::BenchmarkDotNet,
    InputFormat::Tinybench,
    InputFormat::Mitata,
    InputFormat::CriterionSample,
    InputFormat::CriterionBaselines,
    InputFormat::NodeCompareCsv,
    InputFormat::NodeRunCsv,
    InputFormat::Catch2Xml,
    InputFormat::Criterion,
    InputFormat::BenchmarkJs,
    InputFormat::Libtest,
    InputFormat::Go,
];

impl InputFormat {
    /// The name `--input-format` takes.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::NodeCompareCsv => "node-compare-csv",
            InputFormat::NodeRunCsv => "node-run-csv",
            InputFormat::ResultsJsonl => "results-jsonl",
            InputFormat::Go => "go",
            InputFormat::Hyperfine => "hyperfine",
            InputFormat::GoogleBenchmark => "google-benchmark",
            InputFormat::Libtest => "libtest",
            InputFormat::Criterion => "criterion",
            InputFormat::PytestBenchmark => "pytest-benchmark",
            InputFormat::Pyperf => "pyperf",
            InputFormat::CriterionBaselines => "criterion-baselines",
            InputFormat::CriterionSample => "criterion-sample",
            InputFormat::Jmh => "jmh",
            InputFormat::BenchmarkDotNet => "benchmarkdotnet",
            InputFormat::Tinybench => "tinybench",
            InputFormat::Mitata => "mitata",
            InputFormat::BenchmarkJs => "benchmarkjs",
            InputFormat::Catch2Xml => "catch2-xml",
        }
    }

    /// The format named `name` (see [`InputFormat::name`]), if any.
    pub fn from_name(name: &str) -> Option<InputFormat> {
        FORMATS.into_iter().find(|f| f.name() == name)
    }

    /// True when the format says itself which side (old/new) each sample belongs to.
    pub fn has_sides(self) -> bool {
        matches!(
            self,
            InputFormat::NodeCompareCsv
                | InputFormat::ResultsJsonl
                | InputFormat::CriterionBaselines
        )
    }

    /// What an input of this format records, for a report's run section (the formats that
    /// `render::describe_input` does not describe itself).
    pub fn recorded(self) -> &'static str {
        match self {
            InputFormat::Pyperf => {
                "pyperf JSON: each worker process's values and the metadata; the order across \
                 the two files and a seed are not recorded"
            }
            InputFormat::CriterionBaselines | InputFormat::CriterionSample => {
                "criterion sample.json: each sample's iterations and time; the order across \
                 the baselines and a seed are not recorded"
            }
            InputFormat::Jmh => {
                "JMH JSON: each fork's iteration scores and the JVM; the order across the two \
                 files and a seed are not recorded"
            }
            InputFormat::BenchmarkDotNet => {
                "BenchmarkDotNet JSON: each workload iteration's time and operations (the brief \
                 export only statistics); the order across the two files is not recorded"
            }
            InputFormat::Tinybench => {
                "tinybench/vitest JSON: sorted samples (or only a mean and deviation); the \
                 order of the runs is not recorded"
            }
            InputFormat::Mitata => {
                "mitata JSON: sorted samples per run; the order of the runs is not recorded"
            }
            InputFormat::BenchmarkJs => {
                "benchmark.js lines: a mean rate and margin of error per benchmark (no \
                 samples); order and seed are not recorded"
            }
            InputFormat::Catch2Xml => {
                "Catch2 XML: a mean and deviation per benchmark (no samples); order and seed \
                 are not recorded"
            }
            _ => "result files",
        }
    }

    /// True for the formats that are one JSON document (the ones `--input-format` can name
    /// for a JSON input).
    pub fn is_json(self) -> bool {
        matches!(
            self,
            InputFormat::ResultsJsonl
                | InputFormat::Hyperfine
                | InputFormat::GoogleBenchmark
                | InputFormat::PytestBenchmark
                | InputFormat::Pyperf
                | InputFormat::CriterionSample
                | InputFormat::Jmh
                | InputFormat::BenchmarkDotNet
                | InputFormat::Tinybench
                | InputFormat::Mitata
        )
    }
}

/// How to read one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// The side of every sample of formats without sides of their own.
    pub side: Side,
    /// Go format only: a configuration key (`note`) or a benchmark-name key (`/poly`) whose
    /// values make the sides, as benchstat's `-col`: the first value seen (or `OLD` of
    /// `KEY=OLD,NEW,…`) is old, every other one (or those named after `OLD`) new, each told
    /// apart by [`Imported::side_of_sample`]; samples with values not named are left out. A
    /// name key is removed from the benchmark name. hyperfine: `command[=OLD,NEW,…]`, or one
    /// of the export's parameters as `KEY[=OLD,NEW,…]`.
    pub sides_by: Option<String>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            side: Side::Old,
            sides_by: None,
        }
    }
}

/// What an import read, besides the samples it added.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    /// The format read.
    pub format: Option<InputFormat>,
    /// Samples added to the set.
    pub samples: usize,
    /// Problems that did not stop the import (a truncated data array, a skipped failed
    /// benchmark), positioned like errors.
    pub warnings: Vec<Diagnostic>,
    /// Units declared `assume=exact` (Go `Unit` metadata): their values are expected not to
    /// vary, and the benchstat view summarises them by the mode.
    pub exact_units: BTreeSet<String>,
    /// Go configuration lines (`key: value`): every distinct pair, in first-seen order.
    pub config: Vec<(String, String)>,
    /// Go format or a hyperfine export with [`ReadOptions::sides_by`]: the values that became
    /// old and new, then every further value (named in `sides_by`, or in first-seen order
    /// when it named none), whose samples are new as well: the report compares each with the
    /// first as a column of its own.
    pub side_values: Vec<String>,
    /// With [`ReadOptions::sides_by`] (Go, hyperfine): per sample the read added, in order,
    /// the index of its value in `side_values` (0 is old, any other new); empty otherwise.
    pub side_of_sample: Vec<u32>,
    /// Results files: what the loader read besides the samples (plan record, failed job
    /// records with their status, error and stderr tail, unused samples), as
    /// [`results::load_streamed`] keeps it (the `ok` records' samples are in the set, not
    /// here); the failures every report lists are built from it. `None` for formats that
    /// record no jobs.
    pub results: Option<Box<crate::format::results::Loaded>>,
}

/// The import error of one problem: [`ImportError::Invalid`] holding only
/// [`Diagnostic::new`]`(file, line, message)`.
pub fn invalid(file: &str, line: u64, message: impl Into<String>) -> ImportError {
    ImportError::Invalid(vec![Diagnostic::new(file, line, message)], 1)
}

/// The end of a lenient read of `records` records (`what` names them, e.g. "benchmarks"):
/// `warnings` (the document's own), then the summary warning of the problems in `diags`
/// ([`Diagnostics::finish_lenient`]), then `warns`, as an [`Imported`] holding nothing else.
///
/// # Errors
/// [`ImportError::Invalid`] with every problem in `diags` when `records` is 0.
pub fn lenient_end(
    mut warnings: Vec<Diagnostic>,
    diags: Diagnostics,
    records: u64,
    what: &str,
    warns: Vec<Diagnostic>,
) -> Result<Imported, ImportError> {
    warnings.extend(diags.finish_lenient(records, what)?);
    warnings.extend(warns);
    Ok(Imported {
        warnings,
        ..Imported::default()
    })
}

/// 1-based line number of byte offset `pos` in `text`.
pub fn line_of(text: &str, pos: usize) -> u64 {
    let pos = pos.min(text.len());
    text.as_bytes()[..pos]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// The 1-based line of the next occurrence of `value` written as a JSON string, searching
/// from byte `*from`, and moves `*from` past it (JSON importers use this to name the line of
/// each record in their diagnostics, in record order).
pub fn line_of_next_json_string(text: &str, value: &str, from: &mut usize) -> u64 {
    let needle = serde_json::to_string(value).unwrap_or_default();
    let line = find_line(text, &needle, *from);
    if let Some(i) = text.get(*from..).and_then(|t| t.find(&needle)) {
        *from += i + needle.len();
    }
    line
}

/// 1-based line of the first occurrence of `needle` at or after byte `from` (1 if absent).
pub fn find_line(text: &str, needle: &str, from: usize) -> u64 {
    let from = from.min(text.len());
    match text.get(from..).and_then(|t| t.find(needle)) {
        Some(i) => line_of(text, from + i),
        None => 1,
    }
}

/// Guesses the format of an input from its first bytes (up to 64 KiB are looked at).
///
/// JSON inputs are told apart by their keys (`results`/`times` → hyperfine; `context` +
/// `benchmarks` → Google Benchmark; `machine_info` + `benchmarks` → pytest-benchmark; a first
/// line `{"type":"run"` → results JSON Lines); CSV by its header (`binary` + `filename` →
/// compare.js, `filename` + `rate` → run.js); text by its lines (`time:   [` → criterion,
/// `test … ... bench:` or `running N tests` → libtest, `Benchmark…` result or `key: value`
/// lines → Go). Returns `None` when nothing matches.
pub fn sniff(head: &str) -> Option<InputFormat> {
    let t = head.trim_start_matches('\u{feff}').trim_start();
    let first_line = t.lines().next().unwrap_or("");
    if t.starts_with('{') || t.starts_with('[') {
        let compact: String = first_line.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.starts_with("{\"type\":\"run\"")
            || compact.contains("\"type\":\"run\"")
            || compact.contains("\"type\":\"command-run\"")
        {
            return Some(InputFormat::ResultsJsonl);
        }
        return sniff_json_document(t);
    }
    let header: String = first_line
        .chars()
        .filter(|c| !matches!(c, '"' | ' '))
        .collect();
    let cols: Vec<&str> = header.split(',').collect();
    if cols.contains(&"filename") && cols.contains(&"rate") {
        return Some(if cols.contains(&"binary") {
            InputFormat::NodeCompareCsv
        } else {
            InputFormat::NodeRunCsv
        });
    }
    if t.starts_with('<') && catch2::is_catch2_xml(t) {
        return Some(InputFormat::Catch2Xml);
    }
    let mut go_config = false;
    let mut libtest = false;
    for line in t.lines() {
        let l = line.trim_end();
        if l.contains("time:") && l.contains('[') && criterion::is_time_line(l) {
            return Some(InputFormat::Criterion);
        }
        if benchmarkjs::parse_line(l).is_some() {
            return Some(InputFormat::BenchmarkJs);
        }
        if libtest::is_bench_line(l) || libtest::is_running_line(l) {
            libtest = true;
        }
        if go::is_result_line(l) && go::is_whole_record(l) {
            return Some(InputFormat::Go);
        }
        if go::parse_config_line(l).is_some() {
            go_config = true;
        }
    }
    if libtest {
        return Some(InputFormat::Libtest);
    }
    // A JSON document after other text (a build log, a shell prompt, hyperfine's or Google
    // Benchmark's console output): its format by its keys.
    if let Some(f) = json_start(t).and_then(|p| sniff_json_document(&t[p..])) {
        return Some(f);
    }
    if go_config {
        return Some(InputFormat::Go);
    }
    None
}

/// The JSON document formats told apart by their keys, or `None`: `times` + `command` →
/// hyperfine; `machine_info` → pytest-benchmark; `runs` with `values` or `warmups` → pyperf;
/// `primaryMetric` or `jmhVersion` → JMH; `Benchmarks` with `HostEnvironmentInfo` or `Title`
/// → BenchmarkDotNet; `files` + `groups` (vitest) or a task `result` with `latency`,
/// `samples` or `hz` → tinybench; `benchmarks` + `layout` or `alias` → mitata;
/// `sampling_mode`, or `iters` + `times`, or a document starting `[[` → a criterion
/// `sample.json`; `benchmarks` with `context` or `run_type` → Google Benchmark.
fn sniff_json_document(t: &str) -> Option<InputFormat> {
    let has = |k: &str| t.contains(&format!("\"{k}\""));
    if has("times") && has("command") {
        return Some(InputFormat::Hyperfine);
    }
    if has("machine_info") {
        return Some(InputFormat::PytestBenchmark);
    }
    if has("runs") && (has("values") || has("warmups")) && !has("stats") {
        return Some(InputFormat::Pyperf);
    }
    if has("primaryMetric") || has("jmhVersion") {
        return Some(InputFormat::Jmh);
    }
    if has("Benchmarks") && (has("HostEnvironmentInfo") || has("Title")) {
        return Some(InputFormat::BenchmarkDotNet);
    }
    if (has("files") && has("groups") && has("benchmarks"))
        || (has("result") && has("name") && (has("latency") || has("samples") || has("hz")))
    {
        return Some(InputFormat::Tinybench);
    }
    if has("benchmarks") && (has("layout") || has("alias")) {
        return Some(InputFormat::Mitata);
    }
    let compact: String = t.chars().take(64).filter(|c| !c.is_whitespace()).collect();
    if has("sampling_mode") || (has("iters") && has("times")) || compact.starts_with("[[") {
        return Some(InputFormat::CriterionSample);
    }
    if t.contains("\"benchmarks\"") && (t.contains("\"context\"") || t.contains("\"run_type\"")) {
        return Some(InputFormat::GoogleBenchmark);
    }
    None
}

/// Byte offset of the start of the first line whose first non-blank character is `{` or
/// `[` (where a JSON document written after other text begins), or `None`.
pub fn json_start(text: &str) -> Option<usize> {
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('{') || t.starts_with('[') {
            return Some(pos + (line.len() - t.len()));
        }
        pos += line.len();
    }
    None
}

/// The array under `key` in the JSON document `root` of input `name`: the list of records a
/// JSON importer reads.
///
/// # Errors
/// [`ImportError::Invalid`] naming line 1 with the message `missing` when `root` has no array
/// under `key` (the document is not the format the importer reads).
pub fn json_array<'a>(
    root: &'a serde_json::Value,
    key: &str,
    name: &str,
    missing: &str,
) -> Result<&'a [serde_json::Value], ImportError> {
    root.get(key)
        .and_then(serde_json::Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| invalid(name, 1, missing))
}

/// A JSON result document as harnesses really leave it, parsed leniently: text before the
/// document (up to the first line starting with `{` or `[`) and after it is ignored with a
/// warning; the bare tokens `NaN`, `Infinity` and `-Infinity` (not JSON, but written by
/// Python's `json` and some C++ writers) are read as `null`, with one warning naming the first
/// one's line and how many there were. Line numbers in errors and warnings are those of
/// `text`.
///
/// # Errors
/// [`ImportError::Invalid`] naming line 1 when there is no JSON document, or the line of the
/// first syntax error inside it.
pub fn json_document(
    text: &str,
    name: &str,
) -> Result<(serde_json::Value, Vec<Diagnostic>), ImportError> {
    let mut warnings = Vec::new();
    let Some(start) = json_start(text) else {
        return Err(invalid(
            name,
            1,
            "no JSON document (no line starts with `{` or `[`)",
        ));
    };
    let first_line = line_of(text, start);
    if !text[..start]
        .trim_start_matches('\u{feff}')
        .trim()
        .is_empty()
    {
        warnings.push(Diagnostic::new(
            name,
            1,
            format!(
                "text before the JSON document (lines 1-{}) ignored",
                first_line - 1
            ),
        ));
    }
    let (clean, tokens) = replace_bare_non_finite(&text[start..]);
    if let Some((at, token)) = tokens.first() {
        warnings.push(Diagnostic::new(
            name,
            line_of(text, start + at),
            format!(
                "bare {token} is not valid JSON; read as null (a missing value){}",
                if tokens.len() > 1 {
                    format!(", as are {} more such tokens", tokens.len() - 1)
                } else {
                    String::new()
                }
            ),
        ));
    }
    let mut stream = serde_json::Deserializer::from_str(&clean).into_iter::<serde_json::Value>();
    let value = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            let line = e.line() as u64 + first_line - 1;
            return Err(invalid(name, line, format!("not valid JSON: {e}")));
        }
        None => return Err(invalid(name, first_line, "no JSON document")),
    };
    let end = stream.byte_offset();
    let after = &clean[end..];
    if !after.trim().is_empty() {
        let skip = after.len() - after.trim_start().len();
        // `clean` has the same lines as the document (tokens replaced, not line breaks).
        let line = line_of(&clean, end + skip) + first_line - 1;
        warnings.push(Diagnostic::new(
            name,
            line,
            "text after the JSON document ignored",
        ));
    }
    Ok((value, warnings))
}

/// `text` with every bare `NaN`, `Infinity` and `-Infinity` outside JSON strings replaced by
/// `null`, and the byte offset and spelling of each replaced token (line breaks are kept, so
/// line numbers do not move).
fn replace_bare_non_finite(text: &str) -> (std::borrow::Cow<'_, str>, Vec<(usize, &'static str)>) {
    const TOKENS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];
    let b = text.as_bytes();
    let mut found: Vec<(usize, &'static str)> = Vec::new();
    let (mut i, mut in_str, mut esc) = (0, false, false);
    while i < b.len() {
        let c = b[i];
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        let boundary_before = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if boundary_before
            && let Some(tok) = TOKENS.iter().find(|t| b[i..].starts_with(t.as_bytes()))
        {
            let end = i + tok.len();
            if end >= b.len() || !(b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                found.push((i, tok));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    if found.is_empty() {
        return (std::borrow::Cow::Borrowed(text), found);
    }
    let mut out = String::with_capacity(text.len() + found.len());
    let mut last = 0;
    for (at, tok) in &found {
        out.push_str(&text[last..*at]);
        out.push_str("null");
        last = at + tok.len();
    }
    out.push_str(&text[last..]);
    (std::borrow::Cow::Owned(out), found)
}

/// The largest JSON document read (hyperfine, Google Benchmark, pytest-benchmark), in bytes
/// (64 MiB). These formats are one JSON document each, parsed whole; a larger input is an
/// error naming line 1, not loaded. Every line-based format is streamed instead, with memory
/// bounded by the samples kept, not by the input's size.
pub const MAX_JSON_DOCUMENT_BYTES: u64 = 64 << 20;

/// How much of an input is read ahead to guess its format, in bytes (64 KiB); more when
/// that much is only blank lines (up to 16 MiB).
pub const SNIFF_BYTES: usize = 1 << 16;

/// The most an input's leading blank lines are read ahead for guessing its format (16 MiB).
const MAX_BLANK_HEAD: usize = 16 << 20;

/// One input opened for reading: its name, its first [`SNIFF_BYTES`] (enough to guess the
/// format) and the rest, not read yet. [`Input::read`] then streams it into a [`SampleSet`]:
/// line-based formats line by line (memory bounded by the samples kept; lines over
/// [`MAX_LINE_BYTES`] rejected by number, not loaded), JSON documents whole up to
/// [`MAX_JSON_DOCUMENT_BYTES`].
pub struct Input {
    name: String,
    head: Vec<u8>,
    rest: Box<dyn std::io::Read>,
    encoding: Encoding,
    /// A directory given as the input (criterion's `target/criterion`): read as a folder of
    /// saved baselines, never as a stream.
    dir: Option<std::path::PathBuf>,
}

impl Input {
    /// Opens the file at `path` (`-` = standard input, named `<stdin>`) and reads its head.
    ///
    /// # Errors
    /// [`ImportError::Io`] when it cannot be opened or read.
    pub fn open(path: &str) -> Result<Input, ImportError> {
        if path != "-" && std::path::Path::new(path).is_dir() {
            return Ok(Input {
                name: path.to_owned(),
                head: Vec::new(),
                rest: Box::new(std::io::empty()),
                encoding: Encoding::Utf8,
                dir: Some(std::path::PathBuf::from(path)),
            });
        }
        let (name, rest): (String, Box<dyn std::io::Read>) = if path == "-" {
            ("<stdin>".to_owned(), Box::new(std::io::stdin()))
        } else {
            let f = std::fs::File::open(path).map_err(|e| ImportError::Io {
                file: path.to_owned(),
                source: e,
            })?;
            (path.to_owned(), Box::new(f))
        };
        Input::from_reader(&name, rest)
    }

    /// An input read from `rest` (named `name` in diagnostics): its head is read now, and it
    /// is decoded as [`Input::open`] decodes a file.
    ///
    /// # Errors
    /// [`ImportError::Io`] when its head cannot be read.
    pub fn from_reader(name: &str, rest: Box<dyn std::io::Read>) -> Result<Input, ImportError> {
        let name = name.to_owned();
        let mut input = Input {
            name,
            head: Vec::new(),
            rest,
            encoding: Encoding::Utf8,
            dir: None,
        };
        input.fill_head().map_err(|e| ImportError::Io {
            file: input.name.clone(),
            source: e,
        })?;
        if input.head.starts_with(&[0x1f, 0x8b]) {
            input.gunzip().map_err(|e| ImportError::Io {
                file: input.name.clone(),
                source: e,
            })?;
        }
        input.decode().map_err(|(name, e)| ImportError::Io {
            file: name,
            source: e,
        })
    }

    /// Reads the head: [`SNIFF_BYTES`], and while it is only blank lines, on (up to
    /// `MAX_BLANK_HEAD` bytes) so that the format is guessed from the first content.
    fn fill_head(&mut self) -> std::io::Result<()> {
        loop {
            let before = self.head.len();
            let mut limited = std::io::Read::take(&mut self.rest, SNIFF_BYTES as u64);
            std::io::Read::read_to_end(&mut limited, &mut self.head)?;
            let blank = self
                .head
                .iter()
                .all(|b| b.is_ascii_whitespace() || [0xEF, 0xBB, 0xBF].contains(b));
            if self.head.len() == before || !blank || self.head.len() >= MAX_BLANK_HEAD {
                return Ok(());
            }
        }
    }

    /// A gzip-compressed input (`.json.gz` as pyperf writes it): the rest is decompressed as
    /// it streams, and the head is read again from the decompressed bytes.
    fn gunzip(&mut self) -> std::io::Result<()> {
        let head = std::io::Cursor::new(std::mem::take(&mut self.head));
        let rest = std::mem::replace(&mut self.rest, Box::new(std::io::empty()));
        self.rest = Box::new(flate2::read::MultiGzDecoder::new(std::io::Read::chain(
            head, rest,
        )));
        self.fill_head()
    }

    /// Applies the byte-order mark at the start of the head: a UTF-8 mark is dropped; after a
    /// UTF-16 mark (either byte order) the whole input is decoded to UTF-8 as it streams, and
    /// the head is read again from the decoded text.
    fn decode(mut self) -> Result<Input, (String, std::io::Error)> {
        let (encoding, bom) = Encoding::from_bom(&self.head);
        match encoding {
            Encoding::Utf8 => {
                self.head.drain(..bom);
                Ok(self)
            }
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let mut head = std::io::Cursor::new(std::mem::take(&mut self.head));
                head.set_position(bom as u64);
                let rest = std::mem::replace(&mut self.rest, Box::new(std::io::empty()));
                self.rest = Box::new(Utf16Reader::new(std::io::Read::chain(head, rest), encoding));
                self.encoding = encoding;
                match self.fill_head() {
                    Ok(()) => Ok(self),
                    Err(e) => Err((self.name, e)),
                }
            }
        }
    }

    /// An input held in memory (tests, fuzzing), named `name`; decoded as [`Input::open`]
    /// decodes a file (byte-order marks, UTF-16).
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Input {
        let input = Input {
            name: name.to_owned(),
            head: bytes.to_vec(),
            rest: Box::new(std::io::empty()),
            encoding: Encoding::Utf8,
            dir: None,
        };
        // Decoding bytes in memory cannot fail to read; keep them undecoded if it did.
        input.decode().unwrap_or_else(|(name, _)| Input {
            name,
            head: bytes.to_vec(),
            rest: Box::new(std::io::empty()),
            encoding: Encoding::Utf8,
            dir: None,
        })
    }

    /// The encoding its byte-order mark announced (UTF-8 when there is none).
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Its name in diagnostics (the path, or `<stdin>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The head as text for guessing the format: bytes that are not UTF-8 (or a character
    /// cut by the end of the head) become U+FFFD, so one bad byte does not hide the format;
    /// the reader then reports that line.
    fn head_text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.head)
    }

    /// The format guessed from the content ([`sniff`] on the head), or `None`.
    pub fn sniff(&self) -> Option<InputFormat> {
        if self.dir.is_some() {
            return Some(InputFormat::CriterionBaselines);
        }
        sniff(&self.head_text())
    }

    /// Reads the input in `format` (sniffed when `None`) into `set` (a [`SampleSet`], or a
    /// [`crate::sample::SpillingSet`], which only the compare.js CSV reader spills into: the
    /// other readers put their samples into its set of names).
    ///
    /// # Errors
    /// [`ImportError::Invalid`] naming every line that could not be read (not UTF-8, over
    /// the line limit, malformed for the format), or line 1 when the format is not
    /// recognised or a JSON document is over [`MAX_JSON_DOCUMENT_BYTES`];
    /// [`ImportError::Io`] when reading fails. Samples read before an error may have been
    /// added to `set`.
    pub fn read<S: SampleSink>(
        self,
        format: Option<InputFormat>,
        opts: &ReadOptions,
        sink: &mut S,
    ) -> Result<Imported, ImportError> {
        if let Some(dir) = &self.dir {
            let set = sink.names_mut();
            if format.is_some_and(|f| f != InputFormat::CriterionBaselines) {
                return Err(invalid(
                    &self.name,
                    0,
                    "a directory; only criterion-baselines reads a directory (criterion's \
                     target/criterion folder)",
                ));
            }
            let before = set.len();
            let mut imported = criterion_baselines::read_dir(dir, &self.name, opts, set)?;
            imported.format = Some(InputFormat::CriterionBaselines);
            imported.samples = set.len() - before;
            return Ok(imported);
        }
        if let Some(enc) = crate::lines::utf16_without_bom(&self.head) {
            let n = enc.name();
            return Err(invalid(
                &self.name,
                1,
                format!(
                    "looks like {n} text without a byte-order mark (every second byte is NUL); \
                     convert it to UTF-8 first: iconv -f {n} -t UTF-8 {0} > {0}.utf8",
                    self.name
                ),
            ));
        }
        let head_text = self.head_text();
        let head = head_text.trim_start_matches('\u{feff}');
        // Empty input, or a CSV-looking first line: the compare.js reader gives the precise
        // error ("empty input", "not a compare.js CSV header: missing column(s) …").
        let first = head.lines().position(|l| !l.trim().is_empty());
        let first_line = first.and_then(|i| head.lines().nth(i));
        let json = first_line.is_some_and(|l| l.trim_start().starts_with(['{', '[']));
        let csv_like = || {
            (!json && first_line.is_none_or(|l| l.contains(',')))
                .then_some(InputFormat::NodeCompareCsv)
        };
        let Some(format) = format.or_else(|| sniff(head)).or_else(csv_like) else {
            let what = if json {
                "JSON, but not a JSON format benchdiff recognises"
            } else {
                "not a benchmark result format benchdiff reads"
            };
            let names: Vec<&str> = FORMATS
                .iter()
                .filter(|f| f.is_json() == json && **f != InputFormat::CriterionBaselines)
                .map(|f| f.name())
                .collect();
            return Err(invalid(
                &self.name,
                first.map_or(1, |i| i as u64 + 1),
                format!(
                    "{what} (formats: {}); name one with --input-format",
                    names.join(", ")
                ),
            ));
        };
        drop(head_text);
        let name = self.name;
        let reader = std::io::BufReader::with_capacity(
            1 << 16,
            std::io::Read::chain(std::io::Cursor::new(self.head), self.rest),
        );
        let before = sink.count();
        let set = sink.names_mut();
        let mut imported = match format {
            InputFormat::NodeCompareCsv => {
                crate::format::node_csv::read_compare_csv(reader, &name, sink)?;
                Imported::default()
            }
            InputFormat::NodeRunCsv => node_run_csv::read_from(reader, &name, opts, set)?,
            InputFormat::ResultsJsonl => results::samples::read_from(reader, &name, set)?,
            InputFormat::Go => go::read_from(reader, &name, opts, set)?,
            InputFormat::Libtest => libtest::read_from(reader, &name, opts, set)?,
            InputFormat::Criterion => criterion::read_from(reader, &name, opts, set)?,
            InputFormat::Hyperfine => hyperfine::read(&document(reader, &name)?, &name, opts, set)?,
            InputFormat::GoogleBenchmark => {
                google_benchmark::read(&document(reader, &name)?, &name, opts, set)?
            }
            InputFormat::PytestBenchmark => {
                pytest_benchmark::read(&document(reader, &name)?, &name, opts, set)?
            }
            InputFormat::Pyperf => pyperf::read(&document(reader, &name)?, &name, opts, set)?,
            InputFormat::CriterionBaselines => {
                return Err(invalid(
                    &name,
                    0,
                    "criterion-baselines reads a directory (criterion's target/criterion \
                     folder), and this is a file",
                ));
            }
            InputFormat::CriterionSample => {
                criterion_baselines::read_sample(&document(reader, &name)?, &name, opts, set)?
            }
            InputFormat::Jmh => jmh::read(&document(reader, &name)?, &name, opts, set)?,
            InputFormat::BenchmarkDotNet => {
                benchmarkdotnet::read(&document(reader, &name)?, &name, opts, set)?
            }
            InputFormat::Tinybench => tinybench::read(&document(reader, &name)?, &name, opts, set)?,
            InputFormat::Mitata => mitata::read(&document(reader, &name)?, &name, opts, set)?,
            InputFormat::BenchmarkJs => benchmarkjs::read_from(reader, &name, opts, set)?,
            InputFormat::Catch2Xml => catch2::read(&document(reader, &name)?, &name, opts, set)?,
        };
        imported.format = Some(format);
        imported.samples = sink.count() - before;
        Ok(imported)
    }
}

/// The whole text of a JSON-document input, refused over [`MAX_JSON_DOCUMENT_BYTES`].
fn document(reader: impl std::io::Read, name: &str) -> Result<String, ImportError> {
    crate::lines::read_document(reader, MAX_JSON_DOCUMENT_BYTES).map_err(|e| match e {
        crate::lines::DocumentError::Io(e) => ImportError::Io {
            file: name.to_owned(),
            source: e,
        },
        crate::lines::DocumentError::TooLarge(limit) => invalid(
            name,
            1,
            format!(
                "a JSON document over {} MiB; not read (JSON result formats are parsed whole; \
                 line-based formats such as Go's or compare.js CSV have no size limit)",
                limit >> 20
            ),
        ),
        crate::lines::DocumentError::NotUtf8(line) => invalid(name, line, "not valid UTF-8"),
    })
}

/// Reads `bytes` (an input held in memory, named `name` in diagnostics) as [`Input::read`].
///
/// # Errors
/// As [`Input::read`].
pub fn read_bytes(
    bytes: &[u8],
    name: &str,
    format: Option<InputFormat>,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    Input::from_bytes(name, bytes).read(format, opts, set)
}

/// Reads `text` (an input held in memory, named `name` in diagnostics) as [`Input::read`].
///
/// # Errors
/// As [`Input::read`].
pub fn read_text(
    text: &str,
    name: &str,
    format: Option<InputFormat>,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    read_bytes(text.as_bytes(), name, format, opts, set)
}

/// Opens and reads the file at `path` (`-` = stdin) as [`Input::read`], streamed.
///
/// # Errors
/// As [`Input::open`] and [`Input::read`].
pub fn read_path(
    path: &str,
    format: Option<InputFormat>,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    Input::open(path)?.read(format, opts, set)
}

/// The warning of a reader whose benchmarks carry summary statistics only (`items`: one
/// "NAME (mean …, sd …, n …)" each, in file order): `"{what}: "`, the first three items and
/// how many more, that each is compared as one value (its mean) without a test, then `hint`
/// (empty, or "; …" saying how to keep the samples).
pub fn summary_only_warning(what: &str, items: &[String], hint: &str) -> String {
    summary_warning(what, items, "as one value (its mean), without a test", hint)
}

/// The warning of a reader whose benchmarks carry summary statistics only but with their
/// standard deviation and n (`items` as [`summary_only_warning`]'s): each is compared from
/// them (Welch's test, Fieller's interval; [`crate::sample::SampleSet::set_summary`]), no
/// sample is invented; then `hint`.
pub fn summary_stats_warning(what: &str, items: &[String], hint: &str) -> String {
    let how = "from its mean, standard deviation and n (Welch's test), without inventing samples";
    summary_warning(what, items, how, hint)
}

/// `"{what}: "`, the first three of `items` and how many more, `"; each is compared {how}"`,
/// then `hint`.
fn summary_warning(what: &str, items: &[String], how: &str, hint: &str) -> String {
    let more = if items.len() > 3 {
        format!(" and {} more", items.len() - 3)
    } else {
        String::new()
    };
    let first = items[..items.len().min(3)].join(", ");
    format!("{what}: {first}{more}; each is compared {how}{hint}")
}

/// A configuration text from a JSON object of parameters: `key=value` words sorted by key
/// (string values without their quotes), empty when `params` is absent or not an object.
pub fn params_conf(params: Option<&serde_json::Value>) -> String {
    let mut words: Vec<(String, String)> = params
        .and_then(serde_json::Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    (k.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default();
    words.sort();
    words
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Seconds per unit of a time-unit suffix as harnesses print it (`ns`, `us`, `µs`, `μs`, `ms`,
/// `s`, `ps`), or `None`.
pub fn time_unit_seconds(unit: &str) -> Option<f64> {
    Some(match unit {
        "ps" => 1e-12,
        "ns" => 1e-9,
        "us" | "µs" | "μs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_by_content() {
        assert_eq!(
            sniff("goos: linux\nBenchmarkX 1 2 ns/op\n"),
            Some(InputFormat::Go)
        );
        assert_eq!(
            sniff("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n"),
            Some(InputFormat::NodeCompareCsv)
        );
        assert_eq!(
            sniff("\"filename\", \"configuration\", \"rate\", \"time\"\n"),
            Some(InputFormat::NodeRunCsv)
        );
        assert_eq!(
            sniff("test a ... bench:       3,161 ns/iter (+/- 975)\n"),
            Some(InputFormat::Libtest)
        );
        assert_eq!(
            sniff("x      time:   [1.0 ns 2.0 ns 3.0 ns]\n"),
            Some(InputFormat::Criterion)
        );
        assert_eq!(sniff("hello world\n"), None);
        assert_eq!(InputFormat::from_name("go"), Some(InputFormat::Go));
    }
}
