//! Renderers: turn verdict rows into text. Adding a format never touches the statistics.
//!
//! - [`compare_r`]: byte-identical to Node's `benchmark/compare.R`.
//! - [`table`]: the default terminal table for people.
//! - [`analyze`]: the layout of compare.js `--analyze` (table, text bar chart, Holm paragraph).
//! - [`markdown`], [`json`], [`html`], [`csv`]: pull-request comment, machine-readable report,
//!   self-contained page with plots, compare.js CSV of the samples.
//! - [`benchstat`]: Go benchstat's view (medians, order-statistic intervals, U test, geomean).
//! - [`plot`]: SVG plots (compare.R's `--plot` box plot; the HTML report's per-comparison plots).
//! - [`calibrate`], [`sweep`]: the reports of `benchdiff calibrate` and `benchdiff sweep` (table,
//!   SVG plot).

pub mod compare_r;
pub mod table;

pub mod analyze;
pub mod benchstat;
pub mod calibrate;
pub mod columns;
pub mod control;
pub mod csv;
pub mod html;
pub mod json;
pub mod markdown;
pub mod metrics;
pub mod plot;
pub mod sweep;

use std::borrow::Cow;

/// True for a character a terminal may act on instead of printing: C0 controls (U+0000–U+001F),
/// DEL (U+007F) and C1 controls (U+0080–U+009F).
fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

fn escape_with(s: &str, keep: fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_control(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_control(c) && !keep(c) {
            use std::fmt::Write as _;
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A name or label from the input made safe for a terminal: every control character (C0,
/// DEL, C1; see [`is_control`]) written as `\xNN` (two lower-case hex digits), so a file named
/// `a\x1b[31m.js` prints as those characters and cannot recolour or move the cursor. Text
/// without control characters is returned as is. Used by the text renderers (table, analyze,
/// Markdown, benchstat); `--format r` keeps R's own escaping and JSON/HTML escape for their
/// syntax.
pub fn escape_control(s: &str) -> Cow<'_, str> {
    escape_with(s, |_| false)
}

/// [`escape_control`] for a whole rendered text: line feeds stay.
pub fn escape_control_lines(s: &str) -> Cow<'_, str> {
    escape_with(s, |c| c == '\n')
}

/// Facts about how the samples were measured. Only `benchdiff compare` knows them (it ran the
/// binaries itself); a report on CSV files has none (`None` wherever a `RunInfo` is optional).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RunInfo {
    /// `--old` as the user gave it (a path or a name looked up in PATH).
    pub old: String,
    /// `--new` as the user gave it.
    pub new: String,
    /// Resolved absolute path of the old binary.
    pub old_path: String,
    /// Resolved absolute path of the new binary.
    pub new_path: String,
    /// Runs per binary and benchmark file (`--runs`).
    pub runs: u32,
    /// Job order: `random` (seeded shuffle of each round) or `node` (compare.js's order).
    pub order: String,
    /// Seed of the random order; `None` for the `node` order.
    pub seed: Option<u64>,
    /// Number of benchmark files run.
    pub files: usize,
    /// `--set` values passed to every benchmark (`key=value`).
    pub set: Vec<String>,
    /// CPUs the children were pinned to (taskset list such as `0-2`), if any.
    pub cpus: Option<String>,
    /// `--runs auto --stop decided`: the configurations its sequential rule settled, with
    /// their anytime-valid intervals (JSON: `run.sequential`; the table prints them after
    /// itself). Empty otherwise.
    pub sequential: Vec<crate::format::results::plan::Settled>,
}

impl RunInfo {
    /// The run facts of a benchdiff results file's plan record.
    pub fn from_header(h: &crate::format::results::Header) -> RunInfo {
        use crate::format::results::{Header, plan::Order};
        let order = |o: Order| match o {
            Order::Node => "node",
            Order::Random => "random",
        };
        match h {
            Header::Node(h) => RunInfo {
                old: h.old.clone(),
                new: h.new.clone(),
                old_path: h.old_exec.display().to_string(),
                new_path: h.new_exec.display().to_string(),
                runs: h.runs,
                order: order(h.order).to_owned(),
                seed: (h.order == Order::Random).then_some(h.seed),
                files: h.files.len(),
                set: h.set.clone(),
                cpus: h.cpus.clone(),
                sequential: Vec::new(),
            },
            Header::Command(h) => {
                let target = |side: crate::sample::Side| {
                    h.targets
                        .iter()
                        .find(|t| t.side == side)
                        .map(|t| (t.label.clone(), t.argv.join(" ")))
                        .unwrap_or_default()
                };
                let (old, old_path) = target(crate::sample::Side::Old);
                let (new, new_path) = target(crate::sample::Side::New);
                RunInfo {
                    old,
                    new,
                    old_path,
                    new_path,
                    runs: h.runs,
                    order: order(h.order).to_owned(),
                    seed: (h.order == Order::Random).then_some(h.seed),
                    files: h.benchmarks.len(),
                    set: Vec::new(),
                    cpus: h.cpus.clone(),
                    sequential: Vec::new(),
                }
            }
        }
    }
}

/// What an input of `format` read from `files` records, for the run section of a report on
/// it (benchdiff did not run the samples itself): what is there and what is not.
pub fn describe_input(format: Option<crate::format::InputFormat>, files: &[String]) -> String {
    use crate::format::InputFormat as F;
    let what = match format {
        Some(F::NodeCompareCsv) => {
            "compare.js CSV: the binary (old/new), file, configuration, rate and time of each \
             sample in the order written; the binaries' paths, runs and seed are not recorded"
        }
        Some(F::NodeRunCsv) => {
            "run.js CSV, one build per file: file, configuration, rate and time of each sample; \
             the binaries, run order and seed are not recorded"
        }
        Some(F::Go) => {
            "Go benchmark text: one line per sample with its iterations and units, and the \
             goos/goarch/pkg/cpu lines; which run each line came from, the order across builds \
             and a seed are not recorded"
        }
        Some(F::Hyperfine) => {
            "hyperfine JSON: the command and the time of each of its runs; the order of runs \
             across the two files and a seed are not recorded"
        }
        Some(F::GoogleBenchmark) => {
            "Google Benchmark JSON: the context (host, CPUs, build type) and each repetition's \
             times; the order across the two files and a seed are not recorded"
        }
        Some(F::Libtest) => {
            "libtest `cargo bench` text: one mean and deviation per benchmark (no per-run \
             samples); order and seed are not recorded"
        }
        Some(F::Criterion) => {
            "criterion text: a central estimate with its interval per benchmark (no per-run \
             samples); order and seed are not recorded"
        }
        Some(F::PytestBenchmark) => {
            "pytest-benchmark JSON: machine info and each round's time; the order across the \
             two files and a seed are not recorded"
        }
        Some(F::ResultsJsonl) => "benchdiff results file",
        Some(other) => other.recorded(),
        None => "result files",
    };
    if files.is_empty() {
        what.to_owned()
    } else {
        format!("{} — {what}", files.join(", "))
    }
}
