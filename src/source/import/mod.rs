//! Importers: every benchmark-result format benchdiff reads, behind one registry.
//!
//! Each format has a name (what `--input-format` takes), a content sniffer, and a reader that
//! adds samples to a [`SampleSet`] and reports every line it cannot read as a positioned
//! [`Diagnostic`] (`file:line: what was wrong`).
//!
//! | name | module | what it reads |
//! |---|---|---|
//! | `node-compare-csv` | [`crate::source::node_csv`] | CSV of Node's `benchmark/compare.js` |
//! | `node-run-csv` | [`node_run_csv`] | CSV of Node's `benchmark/run.js --format csv` |
//! | `results-jsonl` | [`results_jsonl`] | benchdiff's own results file (JSON Lines) |
//! | `go` | [`go_bench`] | Go benchmark format (`go test -bench`, what benchstat reads) |
//! | `hyperfine` | [`hyperfine`] | `hyperfine --export-json` |
//! | `google-benchmark` | [`google_benchmark`] | Google Benchmark `--benchmark_format=json` |
//! | `libtest` | [`libtest`] | Rust `cargo bench` (libtest) text |
//! | `criterion` | [`criterion`] | criterion.rs terminal text |
//! | `pytest-benchmark` | [`pytest_benchmark`] | pytest-benchmark `--benchmark-json` |
//!
//! Formats without a side of their own (all but the two Node CSVs and the results file) put
//! their samples on the side given in [`ReadOptions::side`]: `benchdiff report old.txt new.txt`
//! reads the first file as old and the second as new, like benchstat.

pub mod criterion;
pub mod go_bench;
pub mod google_benchmark;
pub mod hyperfine;
pub mod libtest;
pub mod node_run_csv;
pub mod pytest_benchmark;
pub mod results_jsonl;

use crate::error::{Diagnostic, ImportError, MAX_DIAGNOSTICS};
use crate::sample::{SampleSet, Side};
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
}

/// Every format, in sniffing priority order.
pub const FORMATS: [InputFormat; 9] = [
    InputFormat::ResultsJsonl,
    InputFormat::Hyperfine,
    InputFormat::GoogleBenchmark,
    InputFormat::PytestBenchmark,
    InputFormat::NodeCompareCsv,
    InputFormat::NodeRunCsv,
    InputFormat::Criterion,
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
            InputFormat::NodeCompareCsv | InputFormat::ResultsJsonl
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
    /// `KEY=OLD,NEW`) is old, the second (or `NEW`) is new; samples with other values are
    /// left out. A name key is removed from the benchmark name.
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
    /// Go format with [`ReadOptions::sides_by`]: the values that became old and new.
    pub side_values: Vec<String>,
}

/// Collects positioned diagnostics, keeping the first [`MAX_DIAGNOSTICS`].
#[derive(Debug, Default)]
pub struct Diagnostics {
    file: String,
    kept: Vec<Diagnostic>,
    total: u64,
}

impl Diagnostics {
    /// An empty collector for input `file`.
    pub fn new(file: &str) -> Self {
        Diagnostics {
            file: file.to_owned(),
            kept: Vec::new(),
            total: 0,
        }
    }

    /// Records a problem at 1-based `line` (0: not tied to a line).
    pub fn push(&mut self, line: u64, message: impl Into<String>) {
        self.total += 1;
        if self.kept.len() < MAX_DIAGNOSTICS {
            self.kept.push(Diagnostic {
                file: self.file.clone(),
                line,
                message: message.into(),
            });
        }
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `Ok(())` when nothing was recorded, else [`ImportError::Invalid`] with the diagnostics.
    ///
    /// # Errors
    /// [`ImportError::Invalid`] when any problem was recorded.
    pub fn finish(self) -> Result<(), ImportError> {
        if self.total == 0 {
            Ok(())
        } else {
            Err(ImportError::Invalid(self.kept, self.total))
        }
    }

    /// The recorded diagnostics (for warnings).
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.kept
    }
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
        if t.contains("\"times\"") && t.contains("\"command\"") {
            return Some(InputFormat::Hyperfine);
        }
        if t.contains("\"machine_info\"") {
            return Some(InputFormat::PytestBenchmark);
        }
        if t.contains("\"benchmarks\"") && (t.contains("\"context\"") || t.contains("\"run_type\""))
        {
            return Some(InputFormat::GoogleBenchmark);
        }
        return None;
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
    let mut go_config = false;
    let mut libtest = false;
    for line in t.lines() {
        let l = line.trim_end();
        if l.contains("time:") && l.contains('[') && criterion::is_time_line(l) {
            return Some(InputFormat::Criterion);
        }
        if libtest::is_bench_line(l) || libtest::is_running_line(l) {
            libtest = true;
        }
        if go_bench::is_result_line(l) {
            return Some(InputFormat::Go);
        }
        if go_bench::parse_config_line(l).is_some() {
            go_config = true;
        }
    }
    if libtest {
        return Some(InputFormat::Libtest);
    }
    if go_config {
        return Some(InputFormat::Go);
    }
    None
}

/// Reads one input (`text`, the whole file; `name` for diagnostics; `path` when it is a file,
/// needed by the results-JSON-Lines reader) in `format` (sniffed when `None`) into `set`.
///
/// # Errors
/// [`ImportError::Invalid`] naming every line that could not be read, or line 1 when the
/// format is not recognised; [`ImportError::Io`] when a results file cannot be read.
/// Samples read before an error may have been added to `set`.
pub fn read_text(
    text: &str,
    name: &str,
    path: Option<&std::path::Path>,
    format: Option<InputFormat>,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    // Empty input, or a CSV-looking first line: the compare.js reader gives the precise error
    // ("empty input", "not a compare.js CSV header: missing column(s) …").
    let csv_like = || {
        let first = text.lines().find(|l| !l.trim().is_empty());
        first
            .is_none_or(|l| l.contains(','))
            .then_some(InputFormat::NodeCompareCsv)
    };
    let format = match format.or_else(|| sniff_text(text)).or_else(csv_like) {
        Some(f) => f,
        None => {
            let line = text
                .lines()
                .position(|l| !l.trim().is_empty())
                .map_or(1, |i| i as u64 + 1);
            return Err(ImportError::Invalid(
                vec![Diagnostic {
                    file: name.to_owned(),
                    line,
                    message: format!(
                        "not a benchmark result format benchdiff reads (formats: {}); \
                         name one with --input-format",
                        FORMATS.map(InputFormat::name).join(", ")
                    ),
                }],
                1,
            ));
        }
    };
    let before = set.len();
    let mut imported = match format {
        InputFormat::NodeCompareCsv => {
            crate::source::node_csv::read_compare_csv(text.as_bytes(), name, set)?;
            Imported::default()
        }
        InputFormat::NodeRunCsv => node_run_csv::read(text, name, opts, set)?,
        InputFormat::ResultsJsonl => results_jsonl::read(text, name, path, set)?,
        InputFormat::Go => go_bench::read(text, name, opts, set)?,
        InputFormat::Hyperfine => hyperfine::read(text, name, opts, set)?,
        InputFormat::GoogleBenchmark => google_benchmark::read(text, name, opts, set)?,
        InputFormat::Libtest => libtest::read(text, name, opts, set)?,
        InputFormat::Criterion => criterion::read(text, name, opts, set)?,
        InputFormat::PytestBenchmark => pytest_benchmark::read(text, name, opts, set)?,
    };
    imported.format = Some(format);
    imported.samples = set.len() - before;
    Ok(imported)
}

/// Reads the file at `path` (`-` = stdin) as [`read_text`] does.
///
/// # Errors
/// [`ImportError::Io`] when the file cannot be read; [`ImportError::Invalid`] when it is not
/// UTF-8 (naming the line); otherwise as [`read_text`].
pub fn read_path(
    path: &str,
    format: Option<InputFormat>,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let (name, text) = load_text(path)?;
    let p = (path != "-").then(|| std::path::Path::new(path));
    read_text(&text, &name, p, format, opts, set)
}

/// The whole text of the file at `path` (`-` = stdin, named `<stdin>`): `(name, text)`.
///
/// # Errors
/// [`ImportError::Io`] when it cannot be read; [`ImportError::Invalid`] naming the first line
/// that is not UTF-8.
pub fn load_text(path: &str) -> Result<(String, String), ImportError> {
    let (name, bytes) = if path == "-" {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut b).map_err(|e| {
            ImportError::Io {
                file: "<stdin>".to_owned(),
                source: e,
            }
        })?;
        ("<stdin>".to_owned(), b)
    } else {
        let b = std::fs::read(path).map_err(|e| ImportError::Io {
            file: path.to_owned(),
            source: e,
        })?;
        (path.to_owned(), b)
    };
    match String::from_utf8(bytes) {
        Ok(t) => Ok((name, t)),
        Err(e) => {
            let pos = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..pos].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            Err(ImportError::Invalid(
                vec![Diagnostic {
                    file: name,
                    line,
                    message: "not valid UTF-8".to_owned(),
                }],
                1,
            ))
        }
    }
}

/// Guesses the format of `text` as [`read_text`] does (its first 64 KiB).
pub fn sniff_text(text: &str) -> Option<InputFormat> {
    sniff(&text[..floor_char(text, 1 << 16)])
}

fn floor_char(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
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
