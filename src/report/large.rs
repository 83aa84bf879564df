//! The report of a large compare.js CSV in bounded memory: every format, the same bytes on
//! stdout and stderr and the same exit code as the in-memory report.
//!
//! From [`Plan::memory_limit`] bytes of input on (`report --memory-limit BYTES`, 256 MiB by
//! default), a single compare.js CSV file (not standard input) is read with its samples spilled
//! to temporary partition files by benchmark ([`crate::sample::SpillingSet`], under `TMPDIR`;
//! where that folder is in memory, point `TMPDIR` at a disk). Each partition is then read
//! back and grouped ([`SpilledPartitions`], a [`Partitions`]), assessed on its own, and only a compact form of each row is kept: what
//! compare.R and compare.js print of it for `r` and `analyze` ([`Compact`]), its [`TableRow`]
//! for the table, the Markdown comment, JSON and HTML, a [`crate::render::benchstat::Row`]
//! for benchstat. The rows are put in the in-memory report's order (first appearance, then
//! but for `analyze` a stable sort by name), corrected and decided together, and printed by
//! the in-memory renderers. Rows that a note on stderr speaks of (values below 0, no Welch
//! test) are rare and kept whole.
//!
//! A JSON comparison's record ([`crate::render::json::Comparison`]) is made as its partition
//! is assessed and kept as a line of compact JSON in one more temporary file ([`Spool`]); once
//! the rows are decided each is read back in report order, given the values the correction
//! decides ([`crate::render::json::Comparison::correct`]) and written. The HTML page reads
//! the partitions a second time for the sections of the comparisons it plots ([`Sections`]).
//! `csv` and `go` write the samples again in arrival order, read back from the spill files a
//! window at a time ([`crate::sample::Spilled::in_arrival_order`]).
//!
//! Partitions hold about a sixteenth of the limit of input each (between 2 and 256). What
//! memory holds is the benchmark names, a compact row per comparison, and one partition's
//! samples and assessments at a time: a file whose samples belong to a few huge comparisons
//! is bounded by its largest comparison, which the statistics need whole. The options that
//! this path does not implement ([`try_report`]'s list) take the in-memory path.

use super::diagnostics::{self, RowNote, row_notes};
use super::{EXIT_USAGE, Format, InputPlan, Messages, Plan, samples};
use crate::compare::partitions::{Partitions, SpilledPartitions};
use crate::format::{self, InputFormat};
use crate::render::table::{self, TableRow};
use crate::sample::{RATE, SampleSet, Side, SpillingSet};
use crate::verdict::{self, decide};
use std::io::Write;

/// After a temporary file could not be created or written (`e`: `TMPDIR` names no folder or
/// one benchdiff may not write, the disk is full): says so, naming the folder, and leaves `f`
/// to the in-memory path (nothing else was printed: a compare.js CSV that reads gives no
/// warnings).
fn in_memory(f: &str, e: &std::io::Error, io: &mut Io<'_>) -> anyhow::Result<Option<i32>> {
    io.out.note(format!(
        "{f}: the temporary files of a bounded-memory read (in {}) failed ({e}); reading it \
         in memory",
        std::env::temp_dir().display()
    ));
    Ok(None)
}

/// Where a bounded report goes: the report to `stdout`, the messages to `out`.
struct Io<'a> {
    stdout: &'a mut dyn Write,
    out: &'a mut Messages,
}

/// Whether the bounded path implements the format and options of `a` for `inputs`: a single
/// input file, no `--plot`, `--metric`, `--cv`, `--label`, `--sides-by`, nor the table's
/// `--details` (those take the in-memory path).
fn bounded_path_applies(inputs: &InputPlan, a: &Plan) -> bool {
    let format = match a.format {
        Format::Table => !a.details,
        Format::Json | Format::Html => cfg!(any(unix, windows)),
        Format::R
        | Format::Analyze
        | Format::Markdown
        | Format::Csv
        | Format::Go
        | Format::Benchstat => true,
    };
    format
        && a.plot.is_none()
        && !a.fail_on_control
        && a.metric.is_none()
        && !a.cv
        && inputs.files.len() == 1
        && inputs.label.is_empty()
        && inputs.sides_by.is_none()
        && (inputs.input_format).is_none_or(|f| f == InputFormat::NodeCompareCsv)
}

/// Reports `inputs` by `plan` through the bounded path when it applies (see the module doc):
/// returns the exit code, or `None` when the in-memory path must be taken (another format or
/// option, several inputs, standard input, a file under [`Plan::memory_limit`], not a
/// compare.js CSV).
///
/// # Errors
/// Writing to `stdout` failed, or the samples were not spilled.
pub(super) fn try_report(
    inputs: &InputPlan,
    a: &Plan,
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<Option<i32>> {
    let io = &mut Io { stdout, out };
    let threshold = a.memory_limit;
    if !bounded_path_applies(inputs, a) {
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
        Err(e) => return in_memory(f, &e, io),
    };
    let ro = format::ReadOptions {
        side: Side::Old,
        sides_by: None,
    };
    // The messages of `read_inputs` for one compare.js CSV.
    let imported = match input.read(fmt, &ro, &mut spilling) {
        Ok(i) => i,
        Err(e) => {
            io.out.error(e.to_string());
            return Ok(Some(EXIT_USAGE));
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
        Err(e) => return in_memory(f, &e, io),
    };
    let spilled = parts.spilled();
    super::release_free_memory();
    for w in &imported.warnings {
        io.out.warning(w.to_string());
    }
    if imported.samples == 0 {
        io.out.0.push(diagnostics::no_samples(f, imported.format));
    }
    if spilled.is_empty() {
        io.out.0.push(diagnostics::no_samples_at_all());
        return Ok(Some(EXIT_USAGE));
    }
    // benchstat summarises a file of one side as one column.
    if !spilled.has_both_sides() && a.format != Format::Benchstat {
        let [old, new] = spilled.per_side();
        io.out
            .0
            .push(diagnostics::nothing_to_compare(old, new, f, false));
        return Ok(Some(EXIT_USAGE));
    }
    if spilled.metrics() != [RATE] {
        anyhow::bail!("{f}: a compare.js CSV with samples of another metric than the rate");
    }
    let failures = crate::compare::failures::Failures::default();
    let facts = super::Facts {
        blocks: None,
        run: None,
        input: None,
        settled: &[],
        failures: &failures,
        format: None,
        benchstat: None,
    };
    let defaults = crate::render::benchstat::Options::default();
    let shown = match a.format {
        Format::Csv => Some(samples::Shown::Csv),
        Format::Go => Some(samples::Shown::Go { config: &[] }),
        Format::Benchstat => Some(samples::Shown::Benchstat { options: &defaults }),
        _ => None,
    };
    let mut parts = parts;
    if let Some(shown) = shown {
        let kept = match samples::keep(&mut parts, RATE, a, &shown, io.out) {
            Ok(k) => k,
            Err(e) => return in_memory(f, &e, io),
        };
        let context = (a, &facts, &shown);
        return samples::write(kept, &mut parts, RATE, context, io.stdout, io.out).map(Some);
    }
    if matches!(
        a.format,
        Format::Table | Format::Markdown | Format::Json | Format::Html
    ) {
        let input = crate::render::describe_input(imported.format, &[super::input_name(f)]);
        return table(a, f, &input, parts, io);
    }

    let rows = match super::compare_r::rows(&mut parts, RATE, a, &failures, io.out) {
        Ok(r) => r,
        Err(e) => return in_memory(f, &e, io),
    };
    super::compare_r::write(rows, &mut parts, RATE, a, &facts, io.stdout, io.out).map(Some)
}

/// The default table, the Markdown comment or the JSON document of the spilled samples of
/// `f` (see the module doc; `input` says what the file records): partition by partition, each
/// comparison is estimated (without the correction) and kept as its [`TableRow`] (with the
/// notes of the format; for JSON its record goes to a [`Spool`]); the rows are put in
/// the in-memory order (first appearance, then a stable sort by name), corrected and decided
/// together, and written by the in-memory report's renderer.
fn table(
    a: &Plan,
    f: &str,
    input: &str,
    mut parts: SpilledPartitions,
    io: &mut Io<'_>,
) -> anyhow::Result<Option<i32>> {
    use rayon::prelude::*;
    let opts = super::options(a);
    let markdown = a.format == Format::Markdown;
    let json = a.format == Format::Json;
    let html = a.format == Format::Html;
    let Collected {
        mut rows,
        benchmark_of,
        mut noted,
        mut one_sided,
        spool,
    } = match collect_rows(a, &opts, &mut parts) {
        Ok(c) => c,
        Err(e) => return in_memory(f, &e, io),
    };
    // HTML reads the partitions again for the plots of the comparisons it shows.
    let kept = if html {
        Some(parts)
    } else {
        drop(parts);
        None
    };
    super::release_free_memory();
    // The in-memory order: first appearance, then a stable sort by name, that is by name and
    // then first appearance.
    let coll = crate::compare::RootCollation::new();
    rows.par_sort_unstable_by(|x, y| coll.compare(&x.1.name, &y.1.name).then(x.0.cmp(&y.0)));
    noted.sort_unstable_by(|x, y| {
        coll.compare(&x.1.comparison.name, &y.1.comparison.name)
            .then(x.0.cmp(&y.0))
    });
    one_sided.sort_unstable_by(|x, y| coll.compare(&x.1, &y.1).then(x.0.cmp(&y.0)));
    // Per row in report order, its index in the order of analysis.
    let spooled: Vec<usize> = if json || html {
        rows.iter().map(|r| r.2).collect()
    } else {
        Vec::new()
    };
    let mut rows: Vec<TableRow<'static>> = rows.into_iter().map(|(_, r, _)| r).collect();
    decide::decide_all(&mut rows, &opts);
    let plots = crate::render::html::HtmlOptions {
        plot_rows: a.plot_rows.clone(),
    };
    let sections = match kept {
        Some(parts) => {
            let s = Sections::render(&rows, &spooled, &benchmark_of, &plots, &opts, parts);
            match s {
                Ok(s) => Some(s),
                Err(e) => return in_memory(f, &e, io),
            }
        }
        None => None,
    };
    // The messages of the in-memory report ([`super::analyse`]) for the table.
    let flagged: Vec<RowNote<'_>> = noted
        .iter()
        .filter_map(|(_, r)| RowNote::of(&r.comparison, r.welch.err(), || r.improvement_pct))
        .collect();
    row_notes(&flagged, a.format, io.out);
    let mut listed = crate::compare::OneSided::default();
    for (_, name, only_old) in one_sided {
        if only_old {
            listed.only_old.push(name);
        } else {
            listed.only_new.push(name);
        }
    }
    let listed = listed.without_failures(&Default::default());
    // Colour and a terminal's width need every cell at once (comfy-table, column fitting);
    // a file or a pipe gets the table a few thousand rows at a time.
    let (color, width) = if a.output.is_some() {
        (false, None)
    } else {
        (a.color, a.width)
    };
    let failures = crate::compare::failures::Failures::default();
    let comment = crate::render::markdown::Comment {
        one_sided: &listed,
        opts: &opts,
        failures: &failures,
        run: None,
        input: Some(input),
    };
    let report_notes = if json {
        table::report_notes(
            rows.iter().any(|x| x.unpaired_input),
            &listed,
            decide::geomean(rows.iter().map(|x| x.log_ratio)),
        )
    } else {
        String::new()
    };
    let rest = crate::render::json::Rest {
        opts: &opts,
        run: None,
        counts: table::verdict_counts(rows.iter().map(|r| r.verdict)),
        geomean: decide::geomean(rows.iter().map(|r| r.log_ratio)),
        failures: &failures,
        one_sided: &listed,
        notes: &report_notes,
        control: None,
        metrics: None,
        columns: None,
    };
    let page = crate::render::html::Page {
        opts: &opts,
        failures: &failures,
        one_sided: &listed,
        run: None,
        input: Some(input),
        control: None,
    };
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        if let Some(s) = &sections {
            let mut write_sections = |shown: &[usize], w: &mut dyn Write| s.write(shown, w);
            crate::render::html::write_page(&rows, &page, &s.selected, &mut write_sections, w)
        } else if let Some(spool) = &spool {
            let comparisons = || spool.comparisons(&rows, &spooled, opts.alpha);
            crate::render::json::write_document(&rest, comparisons, w)
        } else if markdown {
            crate::render::markdown::write_rows(&rows, &comment, w)
        } else if color || width.is_some() {
            let t = table::render(&rows, &listed, &opts, color, width, &Default::default());
            w.write_all(t.as_bytes())
        } else {
            table::write_rows(&rows, &listed, &opts, w)
        }
    };
    let code = super::write_output(a.output.as_deref(), write, io.stdout, io.out).map(Some)?;
    // The gate on the decided rows, as the in-memory report's on its assessments.
    Ok(match (code, a.max_regression) {
        (Some(0), Some(max)) => Some(super::gate(&rows, max, &opts, &failures, io.out)),
        _ => code,
    })
}

/// What [`table`] keeps of the spilled samples' comparisons, in the order of analysis.
struct Collected {
    /// (first position, row, index in the order of analysis).
    rows: Vec<(u64, TableRow<'static>, usize)>,
    /// For HTML, per row in the order of analysis, its benchmark's id in the sample set.
    benchmark_of: Vec<u32>,
    /// The rows a note on stderr speaks of, whole: (first position, row).
    noted: Vec<(u64, verdict::Row)>,
    /// The benchmarks measured on one side only: (first position, name, only old).
    one_sided: Vec<(u64, String, bool)>,
    /// For JSON, the comparisons' objects before the correction.
    spool: Option<Spool>,
}

/// Reads the partitions of `spilled` one at a time, groups and estimates each comparison
/// (without the correction) and keeps its [`TableRow`] with the notes of `a`'s format (for
/// JSON its record goes to a [`Spool`]).
///
/// # Errors
/// A partition or the spool could not be read or written.
fn collect_rows(
    a: &Plan,
    opts: &decide::Options,
    parts: &mut SpilledPartitions,
) -> std::io::Result<Collected> {
    use rayon::prelude::*;
    let (markdown, json, html) = (
        a.format == Format::Markdown,
        a.format == Format::Json,
        a.format == Format::Html,
    );
    let notes = if markdown {
        crate::render::markdown::comparison_notes
    } else if json {
        // JSON has no note per comparison.
        |_: &decide::Assessment, _: &mut String| {}
    } else {
        table::comparison_notes
    };
    let mut spool = if json { Some(Spool::new()?) } else { None };
    // (first position, row, index in the order of analysis).
    let mut rows: Vec<(u64, TableRow<'static>, usize)> =
        Vec::with_capacity(parts.names().benchmarks().len());
    // For HTML, per row in the order of analysis, its benchmark's id in `set`.
    let mut benchmark_of: Vec<u32> = Vec::new();
    let mut noted: Vec<(u64, verdict::Row)> = Vec::new();
    // The benchmarks measured on one side only: (first position, name, only old).
    let mut one_sided: Vec<(u64, String, bool)> = Vec::new();
    for k in 0..parts.partitions() {
        let mut part = parts.partition(k, RATE)?;
        let comparisons = std::mem::take(&mut part.comparisons);
        // The comparisons keep the partition's benchmark ids (`ids` maps them to the whole
        // set's): the partition holds their names (moved out of the whole set), which JSON
        // shows.
        let ids = std::mem::take(&mut part.ids);
        let names = if json {
            Some(part)
        } else {
            drop(part);
            None
        };
        super::release_free_memory();
        let first = |c: &crate::compare::Comparison| {
            parts
                .first_position(ids[c.benchmark.0 as usize])
                .unwrap_or(u64::MAX)
        };
        let mut both = Vec::with_capacity(comparisons.len());
        for mut c in comparisons {
            if c.old.is_empty() || c.new.is_empty() {
                one_sided.push((first(&c), std::mem::take(&mut c.name), c.new.is_empty()));
            } else {
                both.push(c);
            }
        }
        // JSON shows compare.R's accuracy half-widths too.
        let vrows = verdict::rows_with(both, json);
        for r in &vrows {
            let c = &r.comparison;
            if RowNote::of(c, r.welch.err(), || r.improvement_pct).is_some() {
                noted.push((first(c), r.clone()));
            }
        }
        let assessed = decide::estimate_each(vrows, opts);
        if let (Some(spool), Some(names)) = (&mut spool, &names) {
            spool.append(&names.set, &assessed)?;
        }
        drop(names);
        if html {
            benchmark_of.extend(
                assessed
                    .iter()
                    .map(|x| ids[x.row.comparison.benchmark.0 as usize].0),
            );
        }
        let base = rows.len();
        rows.par_extend(assessed.par_iter().enumerate().map(|(i, x)| {
            let mut row = TableRow::with_notes(x, notes).into_owned();
            if json {
                // Not shown: the spooled record holds the flags.
                row.flags = Box::default();
            }
            (first(&x.row.comparison), row, base + i)
        }));
    }
    Ok(Collected {
        rows,
        benchmark_of,
        noted,
        one_sided,
        spool,
    })
}

/// The JSON records of a report's comparisons ([`crate::render::json::Comparison`]), made
/// partition by partition before the correction across the report and kept as lines of
/// compact JSON in an anonymous temporary file (as the spilled samples: [`tempfile::tempfile`]),
/// to be read back in the report's order with their corrected values ([`Spool::comparisons`]).
struct Spool {
    file: std::fs::File,
    /// Bytes written so far.
    len: u64,
    /// Per text, in the order appended: where it is.
    spots: Vec<Spot>,
}

/// Texts for a [`Spool`]: runs of texts, each with the lengths of its texts in order.
type Texts = Vec<(Vec<u8>, Vec<u32>)>;

/// Where a text is in a [`Spool`]'s file.
struct Spot {
    offset: u64,
    len: u32,
}

impl Spool {
    /// An empty spool over a new temporary file.
    ///
    /// # Errors
    /// Returns the error of creating the file (no temporary folder, no space).
    fn new() -> std::io::Result<Spool> {
        Ok(Spool {
            file: tempfile::tempfile()?,
            len: 0,
            spots: Vec::new(),
        })
    }

    /// Appends the records of the comparisons `a` (made in parallel; their names and metric
    /// in `set`), in order.
    ///
    /// # Errors
    /// Returns the error of writing the file (the disk is full).
    fn append(&mut self, set: &SampleSet, a: &[decide::Assessment]) -> std::io::Result<()> {
        use rayon::prelude::*;
        const CHUNK: usize = 64;
        let texts: Texts = a
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut text = Vec::with_capacity(CHUNK * 2048);
                let mut lens = Vec::with_capacity(chunk.len());
                for x in chunk {
                    let start = text.len();
                    // The level only decides `significant`, set again when read back.
                    let record = crate::render::json::Comparison::new(set, x, f64::NAN);
                    serde_json::to_writer(&mut text, &record)?;
                    text.push(b'\n');
                    lens.push(u32::try_from(text.len() - start).map_err(|_| {
                        std::io::Error::other("a comparison's JSON text over 4 GiB")
                    })?);
                }
                Ok((text, lens))
            })
            .collect::<std::io::Result<_>>()?;
        self.append_texts(texts)
    }

    /// Appends the texts `texts` in order: each a run of texts, with the length of each.
    ///
    /// # Errors
    /// Returns the error of writing the file (the disk is full).
    fn append_texts(&mut self, texts: Texts) -> std::io::Result<()> {
        for (text, lens) in texts {
            self.file.write_all(&text)?;
            for len in lens {
                self.spots.push(Spot {
                    offset: self.len,
                    len,
                });
                self.len += u64::from(len);
            }
        }
        Ok(())
    }

    /// The records of the comparisons of `rows` (in report order, corrected and decided; the
    /// `i`-th appended as `spooled[i]`), each read back and given its corrected p-value and
    /// verdict (significance at `alpha`). A window of rows is read at a time, in parallel
    /// (the records are in partition order, so reading them in report order jumps about the
    /// file).
    fn comparisons<'s>(
        &'s self,
        rows: &'s [TableRow<'_>],
        spooled: &'s [usize],
        alpha: f64,
    ) -> impl Iterator<Item = std::io::Result<crate::render::json::Comparison<'static>>> + 's {
        use rayon::prelude::*;
        const WINDOW: usize = 4096;
        rows.chunks(WINDOW)
            .enumerate()
            .flat_map(move |(k, window)| {
                let read = |(i, r): (usize, &TableRow<'_>)| {
                    let spot = &self.spots[spooled[k * WINDOW + i]];
                    let mut text = vec![0; spot.len as usize];
                    read_at(&self.file, &mut text, spot.offset)?;
                    let mut c: crate::render::json::Comparison = serde_json::from_slice(&text)?;
                    c.correct(r.p_adjusted, r.verdict, alpha);
                    Ok(c)
                };
                let records: Vec<_> = window.par_iter().enumerate().map(read).collect();
                records
            })
    }
}

/// The sections of an HTML page's plotted comparisons, rendered partition by partition and
/// kept in a [`Spool`], to be written in the page's order.
struct Sections {
    /// Which rows of the page (in report order) have a section ([`crate::render::html::selected`]).
    selected: Vec<bool>,
    spool: Spool,
    /// Per row of the page, the index of its section in `spool` (`u32::MAX`: none).
    spot_of: Vec<u32>,
}

impl Sections {
    /// Reads the partitions of `spilled` again (`set`: the set that spilled) and renders the
    /// sections of the `rows` (report order, corrected and decided; the `i`-th analysed as
    /// `spooled[i]`, of the benchmark `benchmark_of[spooled[i]]` of `set`) that the page shows
    /// ([`crate::render::html::section`], with `opts`' correction).
    ///
    /// # Errors
    /// Returns the error of reading a partition or of writing the temporary file.
    fn render(
        rows: &[TableRow<'_>],
        spooled: &[usize],
        benchmark_of: &[u32],
        plots: &crate::render::html::HtmlOptions,
        opts: &decide::Options,
        mut parts: SpilledPartitions,
    ) -> std::io::Result<Sections> {
        use crate::render::html;
        use rayon::prelude::*;
        let selected = html::selected(rows, plots);
        let full = html::full_plots(&selected);
        // The page's row of each shown benchmark, by its id in `set`.
        let mut at = vec![u32::MAX; parts.names().benchmarks().len()];
        for (i, &o) in spooled.iter().enumerate() {
            if selected[i] {
                at[benchmark_of[o] as usize] = i as u32;
            }
        }
        let mut spool = Spool::new()?;
        let mut spot_of = vec![u32::MAX; rows.len()];
        for k in 0..parts.partitions() {
            let mut part = parts.partition(k, RATE)?;
            let unit = part.set.metric(RATE).unit.clone();
            let shown: Vec<(usize, crate::compare::Comparison)> =
                std::mem::take(&mut part.comparisons)
                    .into_iter()
                    .filter_map(|c| {
                        let i = at[part.global(&c).0 as usize];
                        (i != u32::MAX).then_some((i as usize, c))
                    })
                    .collect();
            drop(part);
            let texts: Texts = shown
                .par_iter()
                .map(|(i, c)| {
                    let text = html::section(&rows[*i], c, &unit, *i, opts.correction, full);
                    let len = u32::try_from(text.len())
                        .map_err(|_| std::io::Error::other("an HTML section over 4 GiB"))?;
                    Ok((text.into_bytes(), vec![len]))
                })
                .collect::<std::io::Result<_>>()?;
            // One text each, appended in order.
            let base = spool.spots.len();
            for (j, (i, _)) in shown.iter().enumerate() {
                spot_of[*i] = (base + j) as u32;
            }
            spool.append_texts(texts)?;
            drop(shown);
            super::release_free_memory();
        }
        Ok(Sections {
            selected,
            spool,
            spot_of,
        })
    }

    /// Writes the sections of the rows `shown` (in order) to `w`, read back in parallel.
    ///
    /// # Errors
    /// Returns the error of reading the file or of writing to `w`.
    fn write(&self, shown: &[usize], w: &mut dyn Write) -> std::io::Result<()> {
        use rayon::prelude::*;
        let texts: Vec<Vec<u8>> = shown
            .par_iter()
            .map(|&i| {
                let spot = &self.spool.spots[self.spot_of[i] as usize];
                let mut text = vec![0; spot.len as usize];
                read_at(&self.spool.file, &mut text, spot.offset)?;
                Ok(text)
            })
            .collect::<std::io::Result<_>>()?;
        for t in texts {
            w.write_all(&t)?;
        }
        Ok(())
    }
}

/// Reads `buf.len()` bytes of `file` from `offset` (without moving a shared cursor, so that
/// threads may read at once).
///
/// # Errors
/// Returns the error of reading, or an unexpected end of file.
fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            match std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        // JSON takes the in-memory path there (`try_report`).
        let _ = (file, buf, offset);
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Format, InputPlan, Messages, Plan, report};
    use super::try_report;
    use crate::verdict::decide::Correction;
    use std::io::Write;

    /// Asserts that `text` contains each of `parts`, naming the first missing one.
    fn contains_all(text: &str, parts: &[&str]) {
        for p in parts {
            assert!(text.contains(p), "{p} not in {text}");
        }
    }

    /// The plans of `benchdiff report OPTIONS… FILE` (`argv`; the options these tests use:
    /// `--format`, `--correction`, `--threshold`, `--metric`, `--details`) for stdout with
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
        captured(|w, m| try_report(inputs, &plan, w, m).expect("report"))
    }

    /// The bounded path is taken at a low threshold (and only then), and prints what the
    /// in-memory report prints: the end-to-end tests of `tests/import_spill.rs` cannot see
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
        // Another metric, or the table's --details: not this path.
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
        ] {
            assert_eq!(bounded(&plans(argv, false, None), 1).0, None, "{argv:?}");
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
