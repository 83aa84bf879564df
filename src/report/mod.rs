//! The report pipeline: every `report`, `compare`, `run`, `merge` and `history` output goes
//! through [`analyse`] (samples already read) or [`report`] (inputs to read first).
//!
//! samples → comparisons ([`crate::compare`]) → rows and assessments ([`crate::verdict`]) →
//! the format's renderer ([`crate::render`]) → the report file or stdout, a `--plot` file,
//! and the `--max-regression` gate. What the report has to say besides the report itself
//! (errors, warnings, notes, the gate's verdict) is returned as [`Messages`]; the caller
//! prints them.

mod columns;
mod compare_r;
mod control;
pub mod diagnostics;
pub mod inputs;
mod metrics;
mod samples;
mod shards;
mod spool;
mod store;
mod verdicts;

pub use diagnostics::{Message, Messages};
pub use inputs::{InputPlan, Inputs, input_name, read_inputs};

use crate::compare::Comparison;
use crate::compare::failures::Failures;
use crate::compare::partitions::Partitions;
use crate::format::results::plan::Settled;
use crate::sample::{Better, MetricId, SampleSet};
use crate::verdict::decide::{self, Correction, Options};
use crate::{format, render, verdict};
use anyhow::Context as _;
use diagnostics::RowNote;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit code for bad usage or unreadable input.
pub const EXIT_USAGE: i32 = 2;
/// Exit code when a gate failed or a benchmark job failed.
pub const EXIT_FAILED: i32 = 1;

/// Input size (bytes) from which a single compare.js CSV is reported in bounded memory
/// (256 MiB; [`Plan::memory_limit`]).
pub const DEFAULT_MEMORY_LIMIT: u64 = 256 << 20;

/// A report's output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Terminal table (colour on a terminal only; NO_COLOR, CLICOLOR, CLICOLOR_FORCE respected).
    Table,
    /// Exactly what `Rscript benchmark/compare.R` prints under LC_ALL=C.UTF-8.
    R,
    /// The layout of `node benchmark/compare.js --analyze` (table, text bar chart, Holm
    /// paragraph), from benchdiff's exact statistics.
    Analyze,
    /// A GitHub pull-request comment: summary line, changed rows, the rest in `<details>`.
    Markdown,
    /// Every statistic, verdict and flag as JSON (`schema_version`, schema/report.schema.json).
    Json,
    /// One self-contained HTML page with a box plot, density and drift plot per comparison.
    Html,
    /// compare.js CSV of the samples (for Rscript compare.R and node-benchmark-compare).
    Csv,
    /// Go benchstat's view: medians with order-statistic 95% intervals, Mann–Whitney p, `~`
    /// for no significant change, a geomean row; one table per unit.
    Benchstat,
    /// The samples in the Go benchmark format (read by benchstat: `benchstat -col binary`).
    Go,
}

/// What a report shows and where it goes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The output format.
    pub format: Format,
    /// The report file instead of stdout (created or truncated).
    pub output: Option<PathBuf>,
    /// compare.R's box plot, to this `*.svg` or `*.png` file.
    pub plot: Option<PathBuf>,
    /// The metric to compare (default: `rate`, else the first one).
    pub metric: Option<String>,
    /// Correction of the p-values across the report's comparisons.
    pub correction: Correction,
    /// Smallest change that matters, percent: an interval inside ±this is "no change".
    pub threshold_pct: f64,
    /// The gate: fail when a significant change's whole interval lies below −this percent.
    pub max_regression: Option<f64>,
    /// The gate: fail when the A/A control is flagged ([`crate::verdict::control`]).
    pub fail_on_control: bool,
    /// The table's `--details`: every comparison by every method after the table.
    pub details: bool,
    /// HTML: the comparisons whose name contains one of these are plotted too.
    pub plot_rows: Vec<String>,
    /// The table may be coloured (stdout is a terminal that takes colour).
    pub color: bool,
    /// The terminal's width in columns, when stdout is a terminal.
    pub width: Option<u16>,
    /// Input size in bytes from which a single compare.js CSV file is read in bounded memory,
    /// its samples spilled to temporary files by benchmark ([`DEFAULT_MEMORY_LIMIT`]).
    pub memory_limit: u64,
    /// `--cv`: the table shows each side's CV beside the change (always shown, with the other
    /// metrics' summary, for samples with counters: [`metrics`]).
    pub cv: bool,
}

/// The report file `output` and the plot `plot` (either optional) as outputs a report
/// replaces ([`crate::output::Use::Replace`]), for [`crate::output::check`].
///
/// # Errors
/// The plot is not named `*.svg` or `*.png`, or is a PNG in a build without PNG output.
pub fn outputs<'a>(
    output: Option<&'a Path>,
    plot: Option<&'a Path>,
) -> Result<Vec<crate::output::Output<'a>>, String> {
    use crate::output::{Output, Use};
    if let Some(p) = plot {
        match plot_kind(p) {
            None => {
                return Err(format!(
                    "--plot {}: name the file *.svg or *.png",
                    p.display()
                ));
            }
            Some(PlotKind::Png) => {
                if let Some(why) = render::plot::PNG_UNAVAILABLE {
                    return Err(format!("--plot {}: {why}", p.display()));
                }
            }
            Some(PlotKind::Svg) => {}
        }
    }
    Ok([("-o", output), ("--plot", plot)]
        .into_iter()
        .filter_map(|(flag, path)| path.map(|p| Output::new(flag, p, Use::Replace)))
        .collect())
}

impl Plan {
    /// The plan of a report in `format` with the CLI's defaults: to stdout without colour or
    /// width limit, the primary metric, Holm's correction, a 1% threshold, no gate, no plot,
    /// and the bounded-memory path from [`DEFAULT_MEMORY_LIMIT`] on.
    pub fn new(format: Format) -> Plan {
        Plan {
            format,
            output: None,
            plot: None,
            metric: None,
            correction: Correction::Holm,
            threshold_pct: 1.0,
            max_regression: None,
            fail_on_control: false,
            details: false,
            plot_rows: Vec::new(),
            color: false,
            width: None,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            cv: false,
        }
    }

    /// Checks, before any input is read, the report's `-o` file and `--plot` file against
    /// each other and the files `inputs` reads, standard input among them when it is one
    /// (`-`, or no input file) ([`crate::output::check`]: an output never replaces an input;
    /// a report replaces an existing file that is not one).
    ///
    /// # Errors
    /// A message naming the option and the file.
    pub fn check_outputs(&self, inputs: &InputPlan) -> Result<(), String> {
        use crate::output::Input;
        let labelled = inputs
            .label
            .iter()
            .filter_map(|l| l.split_once('=').map(|x| x.1));
        let mut read: Vec<Input<'_>> = (inputs.files.iter().map(String::as_str))
            .chain(labelled)
            .map(|f| Input::new("input file", Path::new(f)))
            .collect();
        // No input file: the report reads standard input.
        if read.is_empty() {
            read.push(Input::new("input file", Path::new("-")));
        }
        let outs = outputs(self.output.as_deref(), self.plot.as_deref())?;
        crate::output::check(&read, &outs, false)
    }
}

/// What a report knows besides its samples.
#[derive(Clone, Copy)]
pub struct Facts<'a> {
    /// A sharded run's machines (label, that machine's samples): a comparison measured on
    /// several takes its change, interval and p-value from the combination of the
    /// per-machine estimates ([`crate::verdict::combine`]), never from the pooled samples.
    pub blocks: Option<&'a [(String, SampleSet)]>,
    /// The run facts of a command that measured the samples (binaries, runs, order, seed),
    /// shown by the Markdown, JSON and HTML reports.
    pub run: Option<&'a render::RunInfo>,
    /// What the inputs recorded ([`render::describe_input`]).
    pub input: Option<&'a str>,
    /// The rows a sequential rule (`--runs auto --stop decided`) settled.
    pub settled: &'a [Settled],
    /// The failed jobs: every format lists them, and `--max-regression` then fails.
    pub failures: &'a Failures,
    /// The format of the inputs the samples were read from (None: benchdiff ran them).
    pub format: Option<format::InputFormat>,
    /// What the inputs give benchstat's and the Go format's views (column labels, units
    /// declared exact, the configuration lines every input shared); None: the defaults.
    pub benchstat: Option<&'a render::benchstat::Options>,
}

/// Reads the inputs of `inputs` and reports them by `plan` to the `-o` file or `stdout`.
/// Returns the exit code: 0; [`EXIT_USAGE`] when an input could not be read or an option does
/// not apply (the reason in `out`); [`EXIT_FAILED`] when the gate failed.
///
/// # Errors
/// Writing to `stdout` failed, or the plot could not be drawn.
pub fn report(
    inputs: &InputPlan,
    plan: &Plan,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<i32> {
    let opened = store::open(inputs, plan, out)?;
    report_opened(opened, inputs, plan, stdout, out)
}

/// Reports the inputs `inputs`, read as `opened`, by `plan`; spilled samples whose temporary
/// files cannot be read again are read in memory instead, after a note.
///
/// # Errors
/// Writing to `stdout` failed, or the plot could not be drawn.
fn report_opened(
    opened: store::Opened,
    inputs: &InputPlan,
    plan: &Plan,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<i32> {
    match opened {
        store::Opened::Stop(code) => Ok(code),
        store::Opened::Columns(reads) => columns::report(reads, &inputs.files, plan, stdout, out),
        store::Opened::Memory(read) => analyse(&read.set, &read.facts(), plan, stdout, out),
        store::Opened::Shards(s) => analyse(&s.pooled, &s.facts(), plan, stdout, out),
        store::Opened::Spilled(mut spilled) => {
            let (facts, parts) = spilled.facts();
            let Some(metric) = chosen_metric(parts, plan, out) else {
                return Ok(EXIT_USAGE);
            };
            match report_partitions(parts, metric, &facts, plan, stdout, out)? {
                Ok(code) => Ok(code),
                Err(e) => {
                    store::note_in_memory(&inputs.files[0], &e, out);
                    let opened = store::in_memory(inputs, plan, out);
                    report_opened(opened, inputs, plan, stdout, out)
                }
            }
        }
    }
}

impl Inputs {
    /// What the report knows of these inputs besides the samples.
    fn facts(&self) -> Facts<'_> {
        Facts {
            blocks: None,
            run: self.run.as_ref(),
            input: Some(&self.input),
            settled: self
                .run
                .as_ref()
                .map_or(&[][..], |r| r.sequential.as_slice()),
            failures: &self.failures,
            format: self.format,
            benchstat: Some(&self.bench),
        }
    }
}

/// The metric the report compares ([`choose_metric`] among the metrics the samples of
/// `parts` have), or `None` after adding to `out` why there is none.
fn chosen_metric<'a>(
    parts: &dyn Partitions<'a>,
    plan: &Plan,
    out: &mut Messages,
) -> Option<MetricId> {
    let present = parts.contents().metrics;
    let name = plan.metric.as_deref();
    choose_metric(parts.names(), |id| present.contains(&id), name, plan.format)
        .map_err(|e| out.error(e))
        .ok()
}

/// Writes a report by `write` to the `-o` file `path` (replaced whole:
/// [`crate::output::replace`]), else to `stdout`, through a 64 KiB buffer, and flushes it.
/// Returns the exit code: 0, or [`EXIT_USAGE`] after adding to `out` that the `-o` file could
/// not be created or written.
///
/// # Errors
/// Writing to `stdout` failed (the error says "standard output").
pub fn write_output(
    path: Option<&Path>,
    mut write: impl FnMut(&mut dyn Write) -> std::io::Result<()>,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<i32> {
    let mut write = |w: &mut dyn Write| write(w).and_then(|()| w.flush());
    match path {
        Some(path) => {
            let written = crate::output::replace(path, |file| {
                write(&mut std::io::BufWriter::with_capacity(1 << 16, file))
            });
            if let Err(e) = written {
                out.error(format!("-o {}: {e}", path.display()));
                return Ok(EXIT_USAGE);
            }
        }
        None => {
            let written = write(&mut std::io::BufWriter::with_capacity(1 << 16, stdout));
            written.context("standard output")?;
        }
    }
    Ok(0)
}

/// The failures recorded in the results file at `path` (none when there is no file or it
/// cannot be read: the run itself has reported that), for the live report of a run.
pub fn failures_of(path: Option<&Path>) -> Failures {
    path.and_then(|p| format::results::load(p).ok())
        .map(|l| Failures::from_loaded(&l))
        .unwrap_or_default()
}

/// Runs the analysis on `set` and writes the report by `plan` to the `-o` file or `stdout`;
/// notes on rows without a test, and the gate's verdict, go to `out`. Returns the exit code:
/// [`EXIT_USAGE`] when an option does not apply to these samples or the output could not be
/// written, [`EXIT_FAILED`] when `--max-regression` failed or (with it) a job failed.
///
/// # Errors
/// Writing to `stdout` failed, or the plot could not be drawn.
pub fn analyse(
    set: &SampleSet,
    facts: &Facts<'_>,
    plan: &Plan,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<i32> {
    let Some(metric_id) = chosen_metric(&crate::compare::partitions::InMemory::new(set), plan, out)
    else {
        return Ok(EXIT_USAGE);
    };
    // Formats whose figures are compare.js's rate (ops/s, higher is better) keep the
    // metric's direction: a time per operation becomes a rate, other costs are refused.
    let rate_set;
    let (set, metric_id) = match rate_view(set, metric_id, plan.format) {
        Ok(None) => (set, metric_id),
        Ok(Some(view)) => {
            out.note(view.note);
            rate_set = view.set;
            (&rate_set, crate::sample::RATE)
        }
        Err(message) => {
            out.error(message);
            return Ok(EXIT_USAGE);
        }
    };
    let mut parts = crate::compare::partitions::InMemory::new(set);
    let reported = report_partitions(&mut parts, metric_id, facts, plan, stdout, out)?;
    // Samples in memory are always read.
    reported.map_err(anyhow::Error::from)
}

/// The report of the comparisons of `metric` in the partition store `parts` by `plan`, written
/// to the `-o` file or `stdout`, its messages in `out`: every format, whether the store holds
/// the samples in memory or reads them back from spill files. Returns the exit code, or the
/// error of reading the store before anything was written or added to `out`.
///
/// # Errors
/// Writing to `stdout` failed, the store could not be read again after the report was
/// written, or the plot could not be drawn.
fn report_partitions<'a>(
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    facts: &Facts<'_>,
    plan: &Plan,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<std::io::Result<i32>> {
    // Rows settled on the rate of commands timed as whole processes read, for their wall, with
    // the intervals of the time.
    let as_time;
    let facts = &if wall_of_commands(parts.names(), metric) && !facts.settled.is_empty() {
        as_time = verdict::sequential::as_time(facts.settled);
        Facts {
            settled: &as_time,
            ..*facts
        }
    } else {
        *facts
    };
    match plan.format {
        Format::R | Format::Analyze => {
            let evidence = compare_r::rows(parts, metric, plan, facts.failures, out);
            finish(
                evidence,
                parts,
                metric,
                (plan, facts),
                stdout,
                out,
                compare_r::write,
            )
        }
        Format::Csv | Format::Go | Format::Benchstat => {
            let defaults = render::benchstat::Options::default();
            let bench = facts.benchstat.unwrap_or(&defaults);
            let shown = match plan.format {
                Format::Csv => samples::Shown::Csv,
                Format::Go => samples::Shown::Go {
                    config: &bench.config,
                },
                _ => samples::Shown::Benchstat { options: bench },
            };
            let evidence = samples::keep(parts, metric, plan, shown, out);
            finish(
                evidence,
                parts,
                metric,
                (plan, facts),
                stdout,
                out,
                samples::write,
            )
        }
        Format::Table | Format::Markdown | Format::Json | Format::Html => {
            let evidence = verdicts::collect(parts, metric, (plan, facts));
            finish(
                evidence,
                parts,
                metric,
                (plan, facts),
                stdout,
                out,
                verdicts::write,
            )
        }
    }
}

/// What a sink's phase 1 hands the pipeline, in report order.
pub(super) struct Evidence<K, R> {
    /// What only the sink's phase 2 reads.
    pub kept: K,
    /// The comparisons decided together: the report's rows, or for the layouts that show no
    /// decision, the estimates the gate reads (none without `--max-regression`).
    pub rows: Vec<R>,
    /// A sharded run's pooled estimates, which the gate reads instead of the rows'
    /// combinations over machines (empty otherwise).
    pub pooled: Vec<decide::Decided>,
    /// The benchmarks (ids of the whole set) the `--plot` and the HTML sections draw.
    pub benchmarks: Vec<crate::sample::BenchmarkId>,
    /// Whether the format shows the A/A control (else `--fail-on-control` has nothing to
    /// gate: [`no_control_shown`]).
    pub shows_control: bool,
}

/// What a sink's phase 2 did.
#[derive(Debug)]
pub(super) struct Written {
    /// The exit code of writing the report: 0, or [`EXIT_USAGE`] after a message.
    pub code: i32,
    /// The A/A control the report showed, which `--fail-on-control` gates.
    pub control: Option<verdict::control::Control>,
}

impl Written {
    /// A report written with exit code `code` that shows no control.
    fn of(code: i32) -> std::io::Result<Written> {
        Ok(Written {
            code,
            control: None,
        })
    }
}

/// The pipeline after a sink's phase 1 (`evidence`, or the error of reading the store, returned
/// as it is): decides the evidence once ([`decide::decide_report`], with the [`rules`] of
/// `plan` and `facts`), writes the report by the sink's phase 2 `write` (given what phase 1
/// kept, the decided rows and the benchmarks), draws the `--plot`, and gates: the control's
/// gate, then `--max-regression`. Returns the exit code, or the error
/// of reading the store again before anything was written or added to `out`.
///
/// # Errors
/// Writing to `stdout` failed, the store could not be read again after the report was
/// written, or the plot could not be drawn.
fn finish<'a, K, R: decide::Decidable>(
    evidence: std::io::Result<Evidence<K, R>>,
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    (plan, facts): (&Plan, &Facts<'_>),
    stdout: &mut dyn Write,
    out: &mut Messages,
    write: impl FnOnce(
        K,
        (&[R], &[crate::sample::BenchmarkId]),
        &mut dyn Partitions<'a>,
        MetricId,
        (&Plan, &Facts<'_>),
        &mut dyn Write,
        &mut Messages,
    ) -> anyhow::Result<std::io::Result<Written>>,
) -> anyhow::Result<std::io::Result<i32>> {
    let Evidence {
        kept,
        mut rows,
        mut pooled,
        benchmarks,
        shows_control,
    } = match evidence {
        Ok(e) => e,
        Err(e) => return Ok(Err(e)),
    };
    if !shows_control {
        no_control_shown(parts.names(), metric, plan, out);
    }
    let opts = options(plan);
    let rules = rules(parts.names(), metric, plan, facts);
    let failing = decide::decide_report(&mut rows, &mut pooled, &opts, rules);
    let written = match write(
        kept,
        (&rows, &benchmarks),
        parts,
        metric,
        (plan, facts),
        stdout,
        out,
    )? {
        Ok(w) => w,
        Err(e) => return Ok(Err(e)),
    };
    if written.code != 0 {
        return Ok(Ok(written.code));
    }
    if let Some(path) = &plan.plot {
        let code = write_plot(path, parts, metric, &benchmarks, out)?;
        if code != 0 {
            return Ok(Ok(code));
        }
    }
    let control_code = control::gate(written.control.as_ref(), plan, out);
    let Some(max) = plan.max_regression else {
        return Ok(Ok(control_code));
    };
    let code = if pooled.is_empty() {
        gate_two_sides(&rows, &failing, max, &opts, facts.failures, out)
    } else {
        gate_two_sides(&pooled, &failing, max, &opts, facts.failures, out)
    };
    Ok(Ok(code.max(control_code)))
}

/// For the layouts that show no control: the warning of `--fail-on-control` on samples
/// without a control side ([`control::analyse`]); such a layout has no control to gate.
fn no_control_shown(set: &SampleSet, metric: MetricId, plan: &Plan, out: &mut Messages) {
    if plan.fail_on_control {
        let opts = options(plan);
        control::analyse::<decide::Decided>(set, metric, &opts, None, None, plan, out);
    }
}

/// Whether the rows a sequential rule settled (on the rate) settle the comparisons of `metric`
/// of `set`: those of the rate, and those of the `wall` of commands timed as whole processes
/// (the set's [`SampleSet::default_metric`]), whose rate is 1 / wall; other metrics keep their
/// analysis.
pub(crate) fn settles(set: &SampleSet, metric: MetricId) -> bool {
    metric == crate::sample::RATE || wall_of_commands(set, metric)
}

/// True when `metric` is the `wall` (s) a command run's set asks reports for by default.
fn wall_of_commands(set: &SampleSet, metric: MetricId) -> bool {
    let m = set.metric(metric);
    set.default_metric() == Some(metric) && m.name == "wall" && m.unit == "s"
}

/// The metric `name` asks for when some sample has it (`present`; `set` names the metrics).
/// Units the Go format converts are found by the name the input used: `MB/s` is `B/s`,
/// `ns/op` is `sec/op`. Without a name: the metric the samples' source asked for
/// ([`SampleSet::default_metric`]: the `wall` of commands timed as whole processes), else
/// [`crate::compare::primary_metric`]; in the formats whose figures are compare.js's rate
/// (`format` `r`, `analyze`, `csv`), always the latter.
///
/// # Errors
/// The message naming the metrics the samples have.
fn choose_metric(
    set: &SampleSet,
    present: impl Fn(MetricId) -> bool,
    name: Option<&str>,
    format: Format,
) -> Result<MetricId, String> {
    let Some(name) = name else {
        let rate_format = matches!(format, Format::R | Format::Analyze | Format::Csv);
        let asked = set.default_metric().filter(|&m| !rate_format && present(m));
        return Ok(asked.unwrap_or_else(|| crate::compare::primary_metric(set)));
    };
    let alias = match name {
        "MB/s" => "B/s",
        "ns/op" | "time/op" => "sec/op",
        _ => name,
    };
    let found = [name, alias]
        .into_iter()
        .filter_map(|n| set.find_metric(n))
        .find(|&id| present(id));
    found.ok_or_else(|| {
        // Offer exactly the metrics some sample has.
        let names: Vec<&str> = set
            .metrics()
            .iter()
            .enumerate()
            .filter(|(i, _)| present(MetricId(*i as u32)))
            .map(|(_, m)| m.name.as_str())
            .collect();
        format!(
            "--metric {name}: no such metric (these samples have: {})",
            names.join(", ")
        )
    })
}

/// For the formats whose figures are compare.js's rate (`r`, `analyze`, `csv`): the samples
/// of `metric` as a rate, when it is not one already ([`render::csv::rate_view`]).
///
/// # Errors
/// The message when the metric cannot be shown as a rate.
fn rate_view(
    set: &SampleSet,
    metric: MetricId,
    format: Format,
) -> Result<Option<render::csv::RateView>, String> {
    let name = match format {
        Format::R => "r",
        Format::Analyze => "analyze",
        Format::Csv => "csv",
        _ => return Ok(None),
    };
    render::csv::rate_view(set, metric, name)
}

/// The verdict rows of `comparisons`, with the notes on rows without a Welch test or with
/// values below 0 added to `out` in name order.
fn verdict_rows(
    comparisons: Vec<Comparison>,
    format: Format,
    out: &mut Messages,
) -> Vec<verdict::Row> {
    // Only the formats that print them get the accuracy half-widths (three t quantiles a
    // row; the HTML report shows none).
    let accuracy = format == Format::Json;
    let rows = verdict::rows_with(comparisons, accuracy);
    let flagged: Vec<RowNote<'_>> = rows
        .iter()
        .filter_map(|r| RowNote::of(&r.comparison, r.welch.err(), || r.improvement_pct))
        .collect();
    diagnostics::row_notes(&flagged, format, out);
    rows
}

/// The verdict options of `plan`: its correction and threshold, and what its format shows.
/// compare.R's and compare.js's layouts show no distribution check, and only JSON and the
/// table's `--details` show the rank tests (HTML shows the table's notes: significant drift
/// only); no verdict depends on either.
pub(crate) fn options(plan: &Plan) -> Options {
    Options {
        correction: plan.correction,
        threshold_pct: plan.threshold_pct,
        distribution_checks: !matches!(plan.format, Format::R | Format::Analyze),
        rank_tests: plan.format == Format::Json || (plan.format == Format::Table && plan.details),
        every_drift: plan.format == Format::Json,
        ..Options::default()
    }
}

/// The per-machine combination of the comparisons of metric `name` in `blocks`.
fn combine(
    blocks: &[(String, SampleSet)],
    name: &str,
    opts: &Options,
) -> std::collections::HashMap<String, verdict::combine::Combined> {
    let per: Vec<(String, Vec<Comparison>)> = blocks
        .iter()
        .map(|(label, s)| {
            let comps = s
                .find_metric(name)
                .map(|id| crate::compare::group_metric(s, id))
                .unwrap_or_default();
            (label.clone(), comps)
        })
        .collect();
    verdict::combine::combine_blocks(&per, opts.confidence)
}

/// Draws compare.R's box plot of the comparisons of `metric` of the benchmarks `benchmarks`
/// (ids of the whole set, in report order), read back from `parts`, to `path` (`*.svg` or
/// `*.png`). Returns the exit code: 0, or [`EXIT_USAGE`] after adding to `out` why the file
/// could not be written.
///
/// # Errors
/// A partition could not be read again, or the plot could not be drawn or rasterised.
fn write_plot<'a>(
    path: &Path,
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    benchmarks: &[crate::sample::BenchmarkId],
    out: &mut Messages,
) -> anyhow::Result<i32> {
    let Some(kind) = plot_kind(path) else {
        out.error(format!(
            "--plot {}: name the file *.svg or *.png",
            path.display()
        ));
        return Ok(EXIT_USAGE);
    };
    let read = crate::compare::partitions::comparisons_of(parts, metric, benchmarks)?;
    let comparisons: Vec<&Comparison> = read.iter().collect();
    let metric = parts.names().metric(metric);
    let desc = if metric.name == "rate" {
        "rate of operations (higher is better)".to_owned()
    } else {
        format!(
            "{} ({}, {} is better)",
            metric.name,
            metric.unit,
            match metric.better {
                Better::Higher => "higher",
                Better::Lower => "lower",
            }
        )
    };
    let svg = render::plot::compare_r_box_plot(&comparisons, &desc)?;
    let bytes = match kind {
        PlotKind::Svg => svg.into_bytes(),
        PlotKind::Png => render::plot::svg_to_png(&svg)?,
    };
    if let Err(e) = std::fs::write(path, bytes) {
        out.error(format!("--plot {}: {e}", path.display()));
        return Ok(EXIT_USAGE);
    }
    Ok(0)
}

/// The image format of a `--plot` file, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotKind {
    /// `*.svg`: the plot as drawn.
    Svg,
    /// `*.png`: the same plot rasterised with an embedded font.
    Png,
}

/// `Svg` or `Png` from the file extension (any case); None for anything else.
pub fn plot_kind(p: &Path) -> Option<PlotKind> {
    let e = p.extension()?.to_str()?.to_ascii_lowercase();
    match e.as_str() {
        "svg" => Some(PlotKind::Svg),
        "png" => Some(PlotKind::Png),
        _ => None,
    }
}

/// The rows `kept` (first position, row), each with what the gate reads of it when `plan`
/// has `--max-regression` (estimated by `opts`, without the correction; None otherwise).
fn gated_rows(
    kept: Vec<(u64, verdict::Row)>,
    plan: &Plan,
    opts: &decide::Options,
) -> Vec<(u64, Option<Box<decide::Decided>>, verdict::Row)> {
    if plan.max_regression.is_none() {
        return kept.into_iter().map(|(f, r)| (f, None, r)).collect();
    }
    let (firsts, rows): (Vec<u64>, Vec<verdict::Row>) = kept.into_iter().unzip();
    let assessed = decide::estimate_each(rows, opts);
    firsts
        .into_iter()
        .zip(assessed)
        .map(|(f, x)| (f, Some(Box::new(decide::Decided::of(&x))), x.row))
        .collect()
}

/// The rules of the report's decision ([`decide::decide`]) of `metric` of `set` by `plan`:
/// the rows the sequential rule of `facts` settled, when they settle this metric
/// ([`settles`]), and the `--max-regression` gate.
fn rules<'f>(
    set: &SampleSet,
    metric: MetricId,
    plan: &Plan,
    facts: &Facts<'f>,
) -> decide::Rules<'f> {
    decide::Rules {
        settled: if settles(set, metric) {
            facts.settled
        } else {
            &[]
        },
        max_regression: plan.max_regression,
    }
}

/// The `--max-regression max` gate: adds to `out` the failed jobs (a benchmark that failed
/// cannot pass: it measured nothing) and the decided comparisons `failing` that regressed by
/// more than `max` percent (each after the text that names it in its line; `noun` counts
/// them, `family` names the comparisons corrected together). Returns the exit code:
/// [`EXIT_FAILED`] when either exists, else 0.
fn gate<T: decide::Decidable>(
    failing: &[(String, &T)],
    (noun, family): (&str, &str),
    max: f64,
    opts: &Options,
    failures: &Failures,
    out: &mut Messages,
) -> i32 {
    if !failures.is_empty() {
        out.gate(format!("FAIL: {}:", failures.summary().unwrap_or_default()));
        for l in failures.lines() {
            out.gate(format!("  {}", render::escape_control(&l)));
        }
    }
    if failing.is_empty() {
        return if failures.is_empty() { 0 } else { EXIT_FAILED };
    }
    out.gate(format!(
        "FAIL: {} {noun} regressed by more than {max}% (interval excludes the threshold, {} \
         corrected across {family}):",
        failing.len(),
        opts.correction.label(),
    ));
    for (named, f) in failing {
        let e = f.estimate();
        let (lo, hi) = e.change_ci_pct.unwrap_or((f64::NAN, f64::NAN));
        // The end of the interval nearest to no change: for a higher-is-better metric the
        // upper end (the change is at most that), for a lower-is-better one the lower end.
        let (end, bound) = match e.better {
            Better::Higher => ("up to", hi),
            Better::Lower => ("from", lo),
        };
        out.gate(format!(
            "  {named}{} (95% CI {end} {}, adjusted p={:.2e})",
            render::table::signed_pct(e.change_pct),
            render::table::signed_pct(bound),
            f.p_adjusted()
        ));
    }
    EXIT_FAILED
}

/// The gate ([`gate`]) of `rows`, the decided comparisons of a report of two sides, of
/// which those at `failing` regressed.
fn gate_two_sides<T: decide::Decidable>(
    rows: &[T],
    failing: &[usize],
    max: f64,
    opts: &Options,
    failures: &Failures,
    out: &mut Messages,
) -> i32 {
    let named: Vec<(String, &T)> = failing
        .iter()
        .map(|&i| (format!("{}  ", rows[i].name()), &rows[i]))
        .collect();
    let family = format!("{} comparisons", rows.len());
    gate(&named, ("benchmark(s)", &family), max, opts, failures, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compare.js CSV in a temporary folder: two benchmarks, one whose sides are constant
    /// and equal (no Welch test), one with values below 0.
    fn csv() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("r.csv");
        let mut text =
            String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
        for run in 0..6 {
            for side in ["old", "new"] {
                text.push_str(&format!("\"{side}\",\"c.js\",\"n=1\",500,1\n"));
                let v = -1.0 - f64::from(run) / 10.0;
                text.push_str(&format!("\"{side}\",\"neg.js\",\"n=1\",{v},1\n"));
            }
        }
        std::fs::write(&path, text).expect("write");
        let file = path.to_str().expect("UTF-8 path").to_owned();
        (dir, file)
    }

    /// The report's notes and warnings are values, in the order they arose; nothing is
    /// printed.
    #[test]
    fn the_messages_are_returned_as_values() {
        let (_dir, file) = csv();
        let inputs = InputPlan {
            files: vec![file],
            ..InputPlan::default()
        };
        let (mut stdout, mut out) = (Vec::new(), Messages::default());
        let code = report(&inputs, &Plan::new(Format::R), &mut stdout, &mut out).expect("report");
        assert_eq!(code, 0);
        assert!(String::from_utf8_lossy(&stdout).contains("c.js n=1"));
        let m: Vec<&Message> = out.iter().collect();
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(
            matches!(m[0], Message::Warning(t)
                if t.starts_with("1 comparison(s) have values < 0 (first: neg.js n=1)")),
            "{m:?}"
        );
        assert!(
            matches!(m[1], Message::Note(t)
                if t.starts_with("c.js n=1: both sides are constant and equal")),
            "{m:?}"
        );
        assert!(m[1].to_string().starts_with("benchdiff: note: c.js n=1: "));
    }

    /// An `-o` file that cannot be created is an error message and exit code 2, after
    /// nothing was written to stdout.
    #[test]
    fn an_output_that_cannot_be_written_is_an_error_message() {
        let (dir, file) = csv();
        let plan = Plan {
            output: Some(dir.path().join("missing").join("report.txt")),
            ..Plan::new(Format::Table)
        };
        let inputs = InputPlan {
            files: vec![file],
            ..InputPlan::default()
        };
        let (mut stdout, mut out) = (Vec::new(), Messages::default());
        let code = report(&inputs, &plan, &mut stdout, &mut out).expect("report");
        assert_eq!(code, EXIT_USAGE);
        assert!(stdout.is_empty());
        let last = out.iter().last().expect("a message");
        assert!(
            matches!(last, Message::Error(t) if t.starts_with("-o ") && t.contains("report.txt")),
            "{out:?}"
        );
        assert!(last.to_string().starts_with("benchdiff: -o "));
    }
}
