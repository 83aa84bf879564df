//! The store of a report's samples: [`open`] reads the inputs once and says what they are —
//! two sides in memory, two sides spilled to temporary partition files, a sharded run's
//! machines, or more than two sides as columns — so the report that follows never asks how they were read.
//!
//! **Spilled**: from [`Plan::memory_limit`] bytes of input on (`report --memory-limit BYTES`,
//! 256 MiB by default), a single compare.js CSV file (not standard input) is read with its
//! samples spilled to temporary partition files by benchmark ([`crate::sample::SpillingSet`],
//! under `TMPDIR`; where that folder is in memory, point `TMPDIR` at a disk) and reported from
//! them ([`SpilledPartitions`]) by the same code as samples held in memory: every format and
//! option, the same bytes on stdout and stderr and the same exit code. Partitions hold about
//! a sixteenth of the limit of input each (between 2 and 256). What memory holds is the
//! benchmark names, a compact row per comparison, and one partition's samples at a time: a
//! file whose samples belong to a few huge comparisons is bounded by its largest comparison,
//! which the statistics need whole. A `--plot` draws every comparison at once, so it reads
//! them all back. Several inputs, `--label` and `--sides-by` gather the samples in memory.
//!
//! **Shards**: the shard files of a sharded run, or their merged file, are pooled, with one
//! block of samples per machine under `--split runs` ([`super::shards`]).
//!
//! **Columns**: more than two sides — more than two positional result files of formats that
//! are one side each, a `--sides-by KEY` (Go, hyperfine) or a hyperfine export whose key has
//! more than two values, or `--sides-by KEY=A,B,C…` — are read once, each column a two-sided
//! view of the samples (the baseline old, the column new), checked as a two-side read is
//! ([`super::columns`] reports them).

use super::diagnostics;
use super::inputs::read_columns;
use super::{EXIT_USAGE, Format, InputPlan, Inputs, Messages, Plan, read_inputs};
use crate::compare::failures::Failures;
use crate::compare::partitions::SpilledPartitions;
use crate::format::{self, InputFormat};
use crate::render;
use crate::sample::{RATE, Side, SpillingSet};

/// What a report's inputs are, once read.
pub(super) enum Opened {
    /// Nothing to report: the exit code, the reason in the messages.
    Stop(i32),
    /// Two sides, every sample in memory.
    Memory(Box<Inputs>),
    /// Two sides of one large compare.js CSV, spilled to partition files.
    Spilled(Box<Spilled>),
    /// More than two sides: per column after the baseline, its two-sided view.
    Columns(Vec<Inputs>),
    /// The shard files of a sharded run, or their merged file.
    Shards(Box<super::shards::Shards>),
}

/// The samples of one compare.js CSV spilled to partition files, and what the report says of
/// the input.
pub(super) struct Spilled {
    /// The partition files and the names of their benchmarks.
    pub(super) parts: SpilledPartitions,
    /// What the input recorded ([`render::describe_input`]).
    input: String,
    /// The input's format.
    format: Option<InputFormat>,
    /// No failed jobs: a compare.js CSV records none.
    failures: Failures,
}

impl Spilled {
    /// What the report knows besides the samples, and the partition store.
    pub(super) fn facts(&mut self) -> (super::Facts<'_>, &mut SpilledPartitions) {
        let facts = super::Facts {
            blocks: None,
            run: None,
            input: Some(&self.input),
            settled: &[],
            failures: &self.failures,
            format: self.format,
            benchstat: None,
        };
        (facts, &mut self.parts)
    }
}

/// Reads the inputs of `inputs` for a report by `plan` (see the module doc), their messages
/// added to `out`.
///
/// # Errors
/// The samples of a large compare.js CSV were spilled but are not only of the rate.
pub(super) fn open(inputs: &InputPlan, plan: &Plan, out: &mut Messages) -> anyhow::Result<Opened> {
    // Shard files or a merged file of a sharded run: per machine, combined.
    let results = inputs
        .input_format
        .is_none_or(|f| f == InputFormat::ResultsJsonl);
    if results && inputs.label.is_empty() && super::shards::any_sharded(&inputs.files) {
        let shards = match super::shards::read(&inputs.files, out) {
            Ok(s) => s,
            Err(e) => {
                out.error(e);
                return Ok(Opened::Stop(EXIT_USAGE));
            }
        };
        if plan.format == Format::R && shards.split == crate::format::results::shard::Split::Runs {
            out.warning(
                "--format r is compare.R's Welch t-test over the samples of all machines \
                 pooled; the other formats combine the machines",
            );
        }
        return Ok(Opened::Shards(Box::new(shards)));
    }
    if let Some(columns) = columns_of(inputs) {
        if let Err(e) = check_columns_plan(plan) {
            out.error(e);
            return Ok(Opened::Stop(EXIT_USAGE));
        }
        let one_side_ok = plan.format == Format::Benchstat;
        let reads = match columns {
            Given::Files(files) => once(out, |m| read_columns(files, inputs, one_side_ok, m)),
            Given::Values => read_inputs(inputs, one_side_ok, out).map(value_reads),
        };
        return Ok(reads.map_or(Opened::Stop(EXIT_USAGE), Opened::Columns));
    }
    if let Some(opened) = spill(inputs, plan, out)? {
        return Ok(opened);
    }
    Ok(in_memory(inputs, plan, out))
}

/// Reads the inputs of `inputs` in memory (see [`open`]).
pub(super) fn in_memory(inputs: &InputPlan, plan: &Plan, out: &mut Messages) -> Opened {
    // benchstat summarises a single file as one column; every other report compares sides.
    let one_side_ok = plan.format == Format::Benchstat;
    let Some(read) = read_inputs(inputs, one_side_ok, out) else {
        return Opened::Stop(EXIT_USAGE);
    };
    // A sides key with more than two values (a Go key, a hyperfine export's commands).
    if read.side_values.len() > 2 {
        if let Err(e) = check_columns_plan(plan) {
            out.error(e);
            return Opened::Stop(EXIT_USAGE);
        }
        return Opened::Columns(value_reads(read));
    }
    Opened::Memory(Box::new(read))
}

/// After a temporary file could not be created, written or read again (`e`: `TMPDIR` names
/// no folder or one benchdiff may not write, the disk is full): says so in `out`, naming the
/// folder, before the input `f` is read in memory (nothing else was printed: a compare.js CSV
/// that reads gives no warnings).
pub(super) fn note_in_memory(f: &str, e: &std::io::Error, out: &mut Messages) {
    out.note(format!(
        "{f}: the temporary files of a bounded-memory read (in {}) failed ({e}); reading it \
         in memory",
        std::env::temp_dir().display()
    ));
}

/// Whether the inputs of `inputs` can be spilled: a single input file, without `--label` or
/// `--sides-by` (several files, labels and sides are gathered in memory), and the temporary
/// texts of JSON, HTML and the table's details can be read back where they are written.
fn spillable(inputs: &InputPlan, a: &Plan) -> bool {
    let format = match a.format {
        Format::Json | Format::Html | Format::Table => cfg!(any(unix, windows)),
        Format::R
        | Format::Analyze
        | Format::Markdown
        | Format::Csv
        | Format::Go
        | Format::Benchstat => true,
    };
    format
        && inputs.files.len() == 1
        && inputs.label.is_empty()
        && inputs.sides_by.is_none()
        && (inputs.input_format).is_none_or(|f| f == InputFormat::NodeCompareCsv)
}

/// The spilled samples of `inputs` when they are one large compare.js CSV (see the module
/// doc), or `None` when they are to be read in memory (several inputs, standard input, a file
/// under [`Plan::memory_limit`], not a compare.js CSV, no temporary folder).
///
/// # Errors
/// The samples spilled are not only of the rate.
fn spill(inputs: &InputPlan, a: &Plan, out: &mut Messages) -> anyhow::Result<Option<Opened>> {
    let threshold = a.memory_limit;
    if !spillable(inputs, a) {
        return Ok(None);
    }
    let f = &inputs.files[0];
    let size = match std::fs::metadata(f) {
        Ok(m) if f != "-" && m.is_file() => m.len(),
        _ => return Ok(None),
    };
    if size < threshold {
        return Ok(None);
    }
    let Ok(input) = format::Input::open(f) else {
        return Ok(None);
    };
    let fmt = inputs.input_format.or_else(|| input.sniff());
    if fmt != Some(InputFormat::NodeCompareCsv) {
        return Ok(None);
    }
    let parts = size.div_ceil((threshold / 16).max(1)).clamp(2, 256) as usize;
    // Without temporary files (none can be created: `TMPDIR` names no folder, too many open
    // files), the in-memory path reads the file, after a note: it may need much more memory.
    // The Go lines are written in arrival order and need no comparison: one file; the CSV
    // rows are written in arrival order too, and its notes need the comparisons: partitions
    // with the partition of every sample recorded.
    let spilling = match a.format {
        Format::Go => SpillingSet::new(1),
        Format::Csv => SpillingSet::new_in_order(parts),
        _ => SpillingSet::new(parts),
    };
    let mut spilling = match spilling {
        Ok(s) => s,
        Err(e) => {
            note_in_memory(f, &e, out);
            return Ok(None);
        }
    };
    let ro = format::ReadOptions {
        side: Side::Old,
        sides_by: None,
    };
    // The messages of `read_inputs` for one compare.js CSV.
    let imported = match input.read(fmt, &ro, &mut spilling) {
        Ok(i) => i,
        Err(e) => {
            out.error(e.to_string());
            return Ok(Some(Opened::Stop(EXIT_USAGE)));
        }
    };
    // What Go and benchstat print besides the samples comes from the Go format's lines (a
    // compare.js CSV has none): should a reader ever give some, the in-memory path prints them.
    if !(imported.config.is_empty()
        && imported.exact_units.is_empty()
        && imported.side_values.is_empty()
        && imported.results.is_none())
    {
        return Ok(None);
    }
    let (set, spilled) = spilling.finish();
    let parts = match spilled {
        Ok(s) => SpilledPartitions::new(set, s),
        Err(e) => {
            note_in_memory(f, &e, out);
            return Ok(None);
        }
    };
    let spilled = parts.spilled();
    for w in &imported.warnings {
        out.warning(w.to_string());
    }
    if imported.samples == 0 {
        out.0.push(diagnostics::no_samples(f, imported.format));
    }
    if spilled.is_empty() {
        out.0.push(diagnostics::no_samples_at_all());
        return Ok(Some(Opened::Stop(EXIT_USAGE)));
    }
    // benchstat summarises a file of one side as one column.
    if !spilled.has_both_sides() && a.format != Format::Benchstat {
        let [old, new] = spilled.per_side();
        out.0
            .push(diagnostics::nothing_to_compare(old, new, f, false));
        return Ok(Some(Opened::Stop(EXIT_USAGE)));
    }
    if spilled.metrics() != [RATE] {
        anyhow::bail!("{f}: a compare.js CSV with samples of another metric than the rate");
    }
    Ok(Some(Opened::Spilled(Box::new(Spilled {
        parts,
        input: render::describe_input(imported.format, &[super::input_name(f)]),
        format: imported.format,
        failures: Failures::default(),
    }))))
}

/// The columns of `read` (its [`Inputs::columns`]) as reads of their own, each headed by its
/// value of the sides key.
fn value_reads(read: Inputs) -> Vec<Inputs> {
    let Inputs {
        columns,
        side_values,
        bench,
        failures,
        run,
        input,
        format,
        ..
    } = read;
    (columns.into_iter().zip(side_values.into_iter().skip(1)))
        .map(|(set, v)| Inputs {
            set,
            bench: render::benchstat::Options {
                new_label: v,
                ..bench.clone()
            },
            failures: failures.clone(),
            run: run.clone(),
            input: input.clone(),
            format,
            side_values: Vec::new(),
            columns: Vec::new(),
        })
        .collect()
}

/// More than two sides given up front.
enum Given {
    /// More than two result files that are one side each, opened (the baseline first).
    Files(Vec<(String, crate::format::Input)>),
    /// `--sides-by KEY=A,B,C…`.
    Values,
}

/// The sides of `inputs` when it has more than two given up front; `None` otherwise.
fn columns_of(inputs: &InputPlan) -> Option<Given> {
    if let Some((_, values)) = inputs.sides_by.as_deref().and_then(|s| s.split_once('=')) {
        return (values.split(',').count() > 2).then_some(Given::Values);
    }
    let files = &inputs.files;
    if files.len() < 3 || !inputs.label.is_empty() || files.iter().any(|f| f == "-") {
        return None;
    }
    // Every file one side: formats that name each sample's side are pooled as before. Each
    // file is opened once, and read from what was opened.
    let one_side = |i: &crate::format::Input| {
        inputs
            .input_format
            .or_else(|| i.sniff())
            .is_some_and(|x| !(x.has_sides() || x == InputFormat::Go && inputs.sides_by.is_some()))
    };
    let opened = files
        .iter()
        .map(|f| {
            crate::format::Input::open(f)
                .ok()
                .filter(one_side)
                .map(|i| (f.clone(), i))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Given::Files(opened))
}

/// Why `plan` cannot be reported as columns, if it cannot: the layouts of two sides only.
fn check_columns_plan(plan: &Plan) -> Result<(), String> {
    let option = match plan.format {
        Format::Table | Format::Markdown | Format::Json | Format::Benchstat => None,
        Format::R => Some("--format r (compare.R's layout)"),
        Format::Analyze => Some("--format analyze (compare.js --analyze's layout)"),
        Format::Csv => Some("--format csv (compare.js's CSV: an old and a new binary)"),
        Format::Go => Some("--format go"),
        Format::Html => Some("--format html"),
    };
    let option = option.or(plan.plot.as_ref().map(|_| "--plot (compare.R's box plot)"));
    match option {
        Some(o) => Err(format!(
            "{o}: shows two sides only, and these inputs have more than two (a baseline and \
             columns): use --format table, markdown, json or benchstat, or give two inputs"
        )),
        None => Ok(()),
    }
}

/// What `read` returns, its messages added to `out` but those `out` has already (a file
/// given twice as a column, the baseline read again with each column).
fn once<T>(out: &mut Messages, read: impl FnOnce(&mut Messages) -> T) -> T {
    let mut m = Messages::default();
    let read = read(&mut m);
    for x in m.take() {
        if !out.0.contains(&x) {
            out.0.push(x);
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::super::{Format, InputPlan, Messages, Plan, report};
    use super::{Opened, open};
    use crate::verdict::decide::Correction;
    use std::io::Write;

    /// Asserts that `text` contains each of `parts`, naming the first missing one.
    fn contains_all(text: &str, parts: &[&str]) {
        for p in parts {
            assert!(text.contains(p), "{p} not in {text}");
        }
    }

    /// The plans of `benchdiff report OPTIONS… FILE` (`argv`; the options these tests use:
    /// `--format`, `--correction`, `--threshold`, `--metric`, `--details`, `--cv`,
    /// `--fail-on-control`) for stdout with
    /// colour `color` and `width` columns, read in memory whatever the file's size.
    fn plans(argv: &[&str], color: bool, width: Option<u16>) -> (InputPlan, Plan) {
        let (file, options) = argv[2..].split_last().expect("a file");
        let mut plan = Plan {
            color,
            width,
            memory_limit: u64::MAX,
            ..Plan::new(Format::Table)
        };
        let mut it = options.iter();
        while let Some(o) = it.next() {
            let mut value = || *it.next().expect("a value");
            match *o {
                "--format" => {
                    plan.format = clap::ValueEnum::from_str(value(), false).expect("a format")
                }
                "--correction" => {
                    plan.correction = match value() {
                        "holm" => Correction::Holm,
                        "bh" => Correction::BenjaminiHochberg,
                        _ => Correction::None,
                    }
                }
                "--threshold" => plan.threshold_pct = value().parse().expect("a number"),
                "--metric" => plan.metric = Some(value().to_owned()),
                "--details" => plan.details = true,
                "--cv" => plan.cv = true,
                "--fail-on-control" => plan.fail_on_control = true,
                other => panic!("{other}: not an option of these tests"),
            }
        }
        let inputs = InputPlan {
            files: vec![(*file).to_owned()],
            ..InputPlan::default()
        };
        (inputs, plan)
    }

    /// Runs `f` on a stdout buffer and messages; returns its result, the stdout and the
    /// messages as the CLI prints them on stderr.
    fn captured<T>(f: impl FnOnce(&mut dyn Write, &mut Messages) -> T) -> (T, String, String) {
        let (mut stdout, mut out) = (Vec::new(), Messages::default());
        let r = f(&mut stdout, &mut out);
        let err: String = out.iter().map(|m| format!("{m}\n")).collect();
        (r, String::from_utf8_lossy(&stdout).into_owned(), err)
    }

    /// The report of `plans` in memory: exit code, stdout and stderr.
    fn in_memory((inputs, plan): &(InputPlan, Plan)) -> (i32, String, String) {
        captured(|w, m| report(inputs, plan, w, m).expect("report"))
    }

    /// The report of `plans` through the bounded path from `threshold` bytes on: `None` when
    /// it is not taken.
    fn bounded(
        (inputs, plan): &(InputPlan, Plan),
        threshold: u64,
    ) -> (Option<i32>, String, String) {
        let plan = Plan {
            memory_limit: threshold,
            ..plan.clone()
        };
        let mut m = Messages::default();
        let spilled = matches!(open(inputs, &plan, &mut m), Ok(Opened::Spilled(_)));
        if !spilled {
            return (None, String::new(), String::new());
        }
        let (code, stdout, stderr) = captured(|w, m| report(inputs, &plan, w, m).expect("report"));
        (Some(code), stdout, stderr)
    }

    /// The bounded path is taken at a low threshold (and only then), and prints what the
    /// in-memory report prints: the end-to-end tests of `tests/import/spill.rs` cannot see
    /// which path ran.
    #[test]
    fn a_low_threshold_takes_the_bounded_path_with_the_same_output() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("r.csv");
        let mut text =
            String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
        for run in 0..6 {
            for c in 0..40 {
                for (side, shift) in [("old", 0.0), ("new", 0.02 * (c % 3) as f64)] {
                    let rate = 100.0 * (1.0 + shift) + ((run * 7 + c * 3) % 11) as f64;
                    text.push_str(&format!(
                        "\"{side}\",\"b{}.js\",\"n={c}\",{rate},1\n",
                        c % 4
                    ));
                }
            }
            text.push_str("\"new\",\"z/new-only.js\",\"\",3,1\n");
        }
        std::fs::write(&path, &text).expect("write");
        let file = path.to_str().expect("UTF-8 path").to_owned();
        for format in ["r", "analyze"] {
            let argv = ["benchdiff", "report", "--format", format, file.as_str()];
            let p = plans(&argv, false, None);
            let want = in_memory(&p);
            assert_eq!(want.0, 0, "{}", want.2);
            assert!(want.1.contains("b0.js n=0"), "{}", want.1);
            for threshold in [1, text.len() as u64 / 5, text.len() as u64] {
                let got = bounded(&p, threshold);
                assert_eq!(
                    (got.0, &got.1, &got.2),
                    (Some(0), &want.1, &want.2),
                    "{format} {threshold}"
                );
            }
            let above = bounded(&p, text.len() as u64 + 1);
            assert_eq!(above, (None, String::new(), String::new()));
        }
        // Every option of a report: the same output through spilled samples.
        for argv in [
            &[
                "benchdiff",
                "report",
                "--format",
                "csv",
                "--metric",
                "rate",
                file.as_str(),
            ][..],
            &["benchdiff", "report", "--details", file.as_str()],
            &["benchdiff", "report", "--cv", file.as_str()],
            &["benchdiff", "report", "--metric", "rate", file.as_str()],
            &["benchdiff", "report", "--metric", "wall", file.as_str()],
            &["benchdiff", "report", "--fail-on-control", file.as_str()],
        ] {
            let p = plans(argv, false, None);
            let want = in_memory(&p);
            let got = bounded(&p, 1);
            assert_eq!(
                (got.0, &got.1, &got.2),
                (Some(want.0), &want.1, &want.2),
                "{argv:?}"
            );
        }
    }

    /// The default table, the Markdown comment, the JSON document, the HTML page and the
    /// samples as CSV, Go lines and benchstat's table through the bounded path at several
    /// thresholds are the in-memory ones, stdout and stderr, on rows of every kind of note: two
    /// regimes, drift, outliers, too few samples, one sample a side, no Welch test (constant),
    /// values below 0, a benchmark on one side only; under each correction, another threshold,
    /// and as on a terminal (colour, a width to fit).
    /// A compare.js CSV of 40 configurations × 12 runs with two regimes, drift, an outlier, a
    /// benchmark on one side only, a constant comparison, negative rates and too few samples.
    fn flagged_csv() -> String {
        let mut text =
            String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
        let line = |text: &mut String, side: &str, file: &str, conf: &str, rate: f64| {
            text.push_str(&format!("\"{side}\",\"{file}\",\"{conf}\",{rate},1\n"));
        };
        for run in 0..12u32 {
            let noise = |c: u32, k: u32| ((run * 7 + c * 3 + k * 5) % 11) as f64 / 10.0;
            for c in 0..40u32 {
                let file = format!("b{}.js", c % 4);
                let conf = format!("n={c}");
                let old = match c {
                    // Two regimes on the old side.
                    0 => 100.0 + 30.0 * f64::from(run % 2) + noise(c, 0),
                    // An outlier.
                    2 if run == 5 => 160.0,
                    _ => 100.0 + noise(c, 0),
                };
                let new = match c {
                    // Drift against run order on the new side.
                    1 => 100.0 + 3.0 * f64::from(run) + noise(c, 1),
                    _ => 100.0 * (1.0 + 0.02 * f64::from(c % 3)) + noise(c, 1),
                };
                line(&mut text, "old", &file, &conf, old);
                line(&mut text, "new", &file, &conf, new);
            }
            line(&mut text, "new", "z/new-only.js", "", 3.0);
            line(&mut text, "old", "z/const.js", "n=1", 500.0);
            line(&mut text, "new", "z/const.js", "n=1", 500.0);
            line(&mut text, "old", "z/neg.js", "n=1", -1.0 - noise(1, 2));
            line(&mut text, "new", "z/neg.js", "n=1", -1.5 - noise(2, 3));
            if run < 2 {
                line(&mut text, "old", "z/few.js", "n=1", 10.0 + noise(3, 4));
                line(&mut text, "new", "z/few.js", "n=1", 11.0 + noise(4, 5));
            }
            if run == 0 {
                line(&mut text, "old", "z/one.js", "", 10.0);
                line(&mut text, "new", "z/one.js", "", 12.0);
            }
        }
        text
    }

    /// `--format csv`, `go` and `benchstat` of `argv` (`extra` its options, `text` the file's
    /// content): the bounded path prints what the in-memory path prints at every threshold.
    fn samples_and_benchstat(argv: &[&str], extra: &[&str], text: &str) {
        let size = text.len() as u64;
        let samples = extra.contains(&"csv") || extra.contains(&"go");
        let p = plans(argv, false, None);
        let want = in_memory(&p);
        assert_eq!(want.0, 0, "{}", want.2);
        if samples {
            // Every sample again, in arrival order (csv) or per side (go).
            let rows = text.lines().count() - 1;
            let lines = want.1.lines().filter(|l| !l.is_empty()).count();
            assert_eq!(lines, rows + if extra.contains(&"csv") { 1 } else { 3 });
        } else {
            for cell in [
                "~ (p=",
                "geomean",
                "z/one.js",
                "z/new-only.js",
                "² need >= 6 samples",
                "¹ all samples are equal",
            ] {
                assert!(want.1.contains(cell), "{cell} not in {}", want.1);
            }
        }
        if extra.contains(&"csv") {
            contains_all(
                &want.2,
                &[
                    "z/const.js n=1: both sides are constant and equal",
                    "1 comparison(s) have values < 0 (first: z/neg.js n=1)",
                ],
            );
        }
        for threshold in [1, size / 5, size] {
            let got = bounded(&p, threshold);
            assert_eq!(
                (got.0, &got.1, &got.2),
                (Some(0), &want.1, &want.2),
                "{extra:?} {threshold}"
            );
        }
    }

    #[test]
    fn the_table_takes_the_bounded_path_with_the_same_output() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.csv");
        let text = flagged_csv();
        std::fs::write(&path, &text).expect("write");
        let file = path.to_str().expect("UTF-8 path").to_owned();
        let size = text.len() as u64;
        for extra in [
            &[][..],
            &["--correction", "bh"],
            &["--correction", "none", "--threshold", "5"],
            &["--format", "markdown"],
            &[
                "--format",
                "markdown",
                "--correction",
                "none",
                "--threshold",
                "5",
            ],
            &["--format", "json"],
            &["--format", "json", "--correction", "bh", "--threshold", "5"],
            &["--format", "html"],
            &[
                "--format",
                "html",
                "--correction",
                "none",
                "--threshold",
                "5",
            ],
            &["--format", "csv"],
            &["--format", "go"],
            &["--format", "benchstat"],
        ] {
            let markdown = extra.contains(&"markdown");
            let json = extra.contains(&"json");
            let html = extra.contains(&"html");
            let mut argv = vec!["benchdiff", "report"];
            argv.extend_from_slice(extra);
            argv.push(&file);
            let samples = extra.contains(&"csv") || extra.contains(&"go");
            let benchstat = extra.contains(&"benchstat");
            if samples || benchstat {
                samples_and_benchstat(&argv, extra, &text);
                continue;
            }
            // JSON and HTML draw no terminal table.
            let looks: &[(bool, Option<u16>)] = if json || html {
                &[(false, None)]
            } else {
                &[(false, None), (true, None), (false, Some(70))]
            };
            for &(color, width) in looks {
                let p = plans(&argv, color, width);
                let want = in_memory(&p);
                assert_eq!(want.0, 0, "{}", want.2);
                if (color, width) == (false, None) && !markdown && !json && !html {
                    contains_all(
                        &want.1,
                        &[
                            ", 2 regimes",
                            "multimodal(old)",
                            "drift(new)",
                            "outliers(old:1)",
                            "note: b0.js n=0: change per regime",
                            "note: b1.js n=1: the new binary's rate drifts",
                            "2 comparisons have too few samples (first: z/few.js n=1)",
                            "note: z/one.js: one sample on a side",
                            "warning: 1 benchmark only in new (first: z/new-only.js)",
                        ],
                    );
                    contains_all(
                        &want.2,
                        &[
                            "z/const.js n=1: both sides are constant and equal",
                            "1 comparison(s) have values < 0 (first: z/neg.js n=1)",
                        ],
                    );
                }
                if (color, width) == (false, None) && markdown {
                    contains_all(
                        &want.1,
                        &[
                            ", 2 regimes",
                            "drift(new)",
                            "- b0.js n=0: change per regime",
                            "- b1.js n=1: the new binary's rate drifts",
                            "- 2 comparisons have too few samples (first: z/few.js n=1)",
                            "- **warning**: 1 benchmark only in new (first: z/new-only.js)",
                            "- samples: read from t.csv — compare.js CSV",
                        ],
                    );
                }
                if (color, width) == (false, None) && json {
                    contains_all(
                        &want.1,
                        &[
                            "\"regime_changes\": [",
                            "\"drift\": [\n          \"new\"\n        ]",
                            "\"outliers\": [\n          \"old\"\n        ]",
                            "\"welch_error\": \"essentially_constant\"",
                            "\"too_few_samples\": true",
                            "\"verdict\": \"faster\"",
                            "\"runs_needed\": 4",
                            "\"only_new\": [\n    \"z/new-only.js\"\n  ]",
                        ],
                    );
                    contains_all(
                        &want.2,
                        &[
                            "z/const.js n=1: both sides are constant and equal",
                            "1 comparison(s) have values < 0 (first: z/neg.js n=1)",
                        ],
                    );
                }
                if html {
                    contains_all(
                        &want.1,
                        &[
                            "<a href=\"#cmp-0\">b0.js n=0</a>",
                            "data-plot=\"density\"",
                            ", 2 regimes</td>",
                            "drift(new)",
                            "the new binary&#39;s rate drifts",
                            "1 benchmark only in new (first: z/new-only.js)",
                        ],
                    );
                }
                for threshold in [1, size / 5, size] {
                    let got = bounded(&p, threshold);
                    assert_eq!(
                        (got.0, &got.1, &got.2),
                        (Some(0), &want.1, &want.2),
                        "{extra:?} {color} {width:?} {threshold}"
                    );
                }
            }
        }
    }
}
