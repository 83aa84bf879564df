//! The formats that give a verdict on each comparison — the table, the Markdown comment,
//! JSON and the HTML page — of a partition store ([`Partitions`]), whether it holds the
//! samples in memory or reads them back from spill files.
//!
//! Phase 1 ([`collect`]) reads one partition at a time, assesses each comparison on its own
//! and keeps its [`TableRow`] (every figure and text the table, the comment and the page show
//! of it), and what else the format asks for: its JSON record before the correction, kept in
//! a [`Spool`]; its `--details` text; with per-machine combinations and a gate, the pooled
//! estimate the gate reads. Phase 2 ([`write`]) puts the rows in report order (by name, then
//! first appearance), corrects and decides them together, applies a sequential rule's
//! verdicts, computes the A/A control and the metrics' summary from the decided rows, writes
//! the format (the HTML page reads the partitions again for the sections it plots), draws the
//! `--plot` and gates.

use super::diagnostics::{RowNote, row_notes};
use super::spool::{Sections, Spool};
use super::{Evidence, Facts, Format, Messages, Plan, Written};
use crate::compare::failures::Failures;
use crate::compare::partitions::Partitions;
use crate::compare::{Comparison, OneSided};
use crate::render::table::{self, TableRow};
use crate::render::{self, html, json, markdown};
use crate::sample::{BenchmarkId, Better, MetricId};
use crate::verdict::{self, decide};
use std::collections::HashMap;
use std::io::Write;

/// What phase 1 keeps of the comparisons, in the order they were analysed.
pub(super) struct Collected {
    /// (first position, row, index in the order of analysis).
    rows: Vec<(u64, TableRow<'static>, usize)>,
    /// Per row, its benchmark's id in the whole set.
    benchmark_of: Vec<BenchmarkId>,
    /// With `--details`: per row, its text.
    details: Option<Spool>,
    /// With per-machine combinations and `--max-regression`: per row, the pooled estimate
    /// the gate reads (the report's rows take the combination).
    pooled: Vec<decide::Decided>,
    /// The rows a note on stderr speaks of, whole: (first position, row).
    noted: Vec<(u64, verdict::Row)>,
    /// The benchmarks measured on one side only: (first position, name, only old).
    one_sided: Vec<(u64, String, bool)>,
    /// For JSON, the comparisons' records before the correction, in the order of analysis.
    records: Option<Spool>,
}

/// Phase 1: reads the partitions of `parts` one at a time, groups the comparisons of
/// `metric`, estimates each (without the correction; a sharded run's by its combination
/// over the machines of `facts`) and keeps its [`TableRow`] with the notes of `plan`'s
/// format, and what else the format needs (see the module doc), in report order.
///
/// # Errors
/// A partition could not be read, or the spool not written.
pub(super) fn collect<'a>(
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    (plan, facts): (&Plan, &Facts<'_>),
) -> std::io::Result<Evidence<Kept, TableRow<'static>>> {
    use rayon::prelude::*;
    let opts = super::options(plan);
    // A sharded run's comparisons take their per-machine combinations, by name.
    let combined = match facts.blocks {
        Some(b) => super::combine(b, &parts.names().metric(metric).name, &opts),
        None => HashMap::new(),
    };
    let cv = super::metrics::rows_carry_cv(parts.names(), plan);
    let single_hint = facts.format.map(table::single_hint_for);
    let json = plan.format == Format::Json;
    let notes = match plan.format {
        Format::Markdown => markdown::comparison_notes,
        // JSON has no note per comparison.
        Format::Json => |_: &decide::Assessment, _: &mut String| {},
        _ => table::comparison_notes,
    };
    let gate_pooled = plan.max_regression.is_some() && !combined.is_empty();
    let pooled_opts = decide::Options {
        distribution_checks: false,
        ..opts
    };
    let mut kept = Collected {
        rows: Vec::with_capacity(parts.names().benchmarks().len()),
        benchmark_of: Vec::new(),
        details: if plan.details {
            Some(Spool::new(parts.scratch()?))
        } else {
            None
        },
        pooled: Vec::new(),
        noted: Vec::new(),
        one_sided: Vec::new(),
        records: if json {
            Some(Spool::new(parts.scratch()?))
        } else {
            None
        },
    };
    for k in 0..parts.partitions() {
        let mut part = parts.partition(k, metric)?;
        let comparisons = std::mem::take(&mut part.comparisons);
        let ids = std::mem::take(&mut part.ids);
        // The JSON records name their benchmarks and metric by the partition's set.
        // The `--plot` reads the comparisons again: their names go back to the store then.
        let names = if json || plan.plot.is_some() {
            Some(part)
        } else {
            drop(part);
            None
        };
        let first = |c: &Comparison| {
            parts
                .first_position(ids[c.benchmark.0 as usize])
                .unwrap_or(u64::MAX)
        };
        let mut both = Vec::with_capacity(comparisons.len());
        for mut c in comparisons {
            if c.old.is_empty() || c.new.is_empty() {
                let f = first(&c);
                kept.one_sided
                    .push((f, std::mem::take(&mut c.name), c.new.is_empty()));
            } else {
                both.push(c);
            }
        }
        // JSON shows compare.R's accuracy half-widths too.
        let vrows = verdict::rows_with(both, json);
        for r in &vrows {
            let c = &r.comparison;
            if RowNote::of(c, r.welch.err(), || r.improvement_pct).is_some() {
                kept.noted.push((first(c), r.clone()));
            }
        }
        if gate_pooled {
            let pooled = decide::estimate_each(vrows.clone(), &pooled_opts);
            kept.pooled.extend(pooled.iter().map(decide::Decided::of));
        }
        let assessed = if combined.is_empty() {
            decide::estimate_each(vrows, &opts)
        } else {
            decide::estimate_each_combined(vrows, &combined, &opts)
        };
        if let (Some(spool), Some(names)) = (&mut kept.records, &names) {
            spool.append(&names.set, &assessed)?;
        }
        let names = names.filter(|_| plan.plot.is_some());
        if let Some(spool) = &mut kept.details {
            let texts = (assessed.par_iter())
                .map(|x| table::details(std::slice::from_ref(x)))
                .collect();
            spool.append_each(texts)?;
        }
        kept.benchmark_of.extend(
            assessed
                .iter()
                .map(|x| ids[x.row.comparison.benchmark.0 as usize]),
        );
        let base = kept.rows.len();
        let firsts: Vec<u64> = assessed.iter().map(|x| first(&x.row.comparison)).collect();
        kept.rows.par_extend(
            (assessed.par_iter().zip(firsts).enumerate()).map(|(i, (x, f))| {
                let mut row = TableRow::with_notes(x, notes).into_owned();
                if cv {
                    row.cv_pct = Some([x.old_side.cv_pct, x.new_side.cv_pct]);
                }
                if let Some(hint) = single_hint {
                    row.single_hint = hint;
                }
                if json {
                    // Not shown: the spooled record holds the flags.
                    row.flags = Box::default();
                }
                (f, row, base + i)
            }),
        );
        if let Some(mut part) = names {
            part.ids = ids;
            parts.give_back(part);
        }
    }
    // Without a `--plot` or HTML sections, no partition is read again.
    if plan.plot.is_none() && plan.format != Format::Html {
        parts.release();
    }
    Ok(in_report_order(kept, facts.failures))
}

/// Phase 2: writes the decided `rows` (in report order; `benchmarks`: theirs) in `plan`'s
/// format to the `-o` file or `stdout` with the facts of `facts`, after the notes on stderr
/// and with the A/A control and the metrics' summary computed from the decided rows (see the
/// module doc). Returns what was written, or the error of reading the store again for the
/// HTML sections (before anything was written or added to `out`).
///
/// # Errors
/// Writing to `stdout` failed, or the spool could not be read again.
#[allow(clippy::too_many_arguments)]
pub(super) fn write<'a>(
    kept: Kept,
    (rows, benchmarks): (&[TableRow<'static>], &[BenchmarkId]),
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    (plan, facts): (&Plan, &Facts<'_>),
    stdout: &mut dyn Write,
    out: &mut Messages,
) -> anyhow::Result<std::io::Result<Written>> {
    let opts = super::options(plan);
    let Kept {
        order,
        listed,
        noted,
        details,
        records,
    } = kept;
    let sections = if plan.format == Format::Html {
        let plots = html::HtmlOptions {
            plot_rows: plan.plot_rows.clone(),
        };
        match Sections::render(rows, benchmarks, (&plots, &opts), metric, parts) {
            Ok(s) => Some(s),
            Err(e) => return Ok(Err(e)),
        }
    } else {
        None
    };
    let flagged: Vec<RowNote<'_>> = noted
        .iter()
        .filter_map(|(_, r)| RowNote::of(&r.comparison, r.welch.err(), || r.improvement_pct))
        .collect();
    row_notes(&flagged, plan.format, out);
    drop(flagged);
    drop(noted);
    let control = super::control::analyse(
        parts.names(),
        metric,
        &opts,
        Some(rows),
        facts.blocks,
        plan,
        out,
    );
    let shown = super::metrics::for_report(parts.names(), metric, rows, &opts, plan);
    let doc = Document {
        rows,
        order: &order,
        listed: &listed,
        opts: &opts,
        facts,
        control: control.as_ref(),
        metrics: &shown,
        details: details.as_ref(),
        plan,
    };
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        match plan.format {
            Format::Html => {
                let Some(s) = &sections else {
                    return Ok(());
                };
                let page = html::Page {
                    opts: &opts,
                    failures: facts.failures,
                    one_sided: &listed,
                    run: facts.run,
                    input: facts.input,
                    control: control.as_ref(),
                };
                let mut write_sections = |shown: &[usize], w: &mut dyn Write| s.write(shown, w);
                html::write_page(rows, &page, &s.selected, &mut write_sections, w)
            }
            Format::Json => doc.json(records.as_ref(), w),
            Format::Markdown => doc.markdown(w),
            _ => doc.table(parts.names().metric(metric), w),
        }
    };
    let code = super::write_output(plan.output.as_deref(), write, stdout, out)?;
    Ok(Ok(Written { code, control }))
}

/// What phase 2 reads besides the decided rows, in report order.
pub(super) struct Kept {
    /// Per row, its index in the order of analysis.
    order: Vec<usize>,
    /// The benchmarks measured on one side only, but for the failed ones.
    listed: OneSided,
    /// The rows a note on stderr speaks of, whole, in report order: (first position, row).
    noted: Vec<(u64, verdict::Row)>,
    /// With `--details`: per row in the order of analysis, its text.
    details: Option<Spool>,
    /// For JSON, the comparisons' records before the correction, in the order of analysis.
    records: Option<Spool>,
}

/// The rows of `kept` in report order, with the rows its notes speak of (the benchmarks
/// measured on one side only listed but for those in `failures`).
fn in_report_order(kept: Collected, failures: &Failures) -> Evidence<Kept, TableRow<'static>> {
    let Collected {
        rows,
        benchmark_of,
        details,
        pooled,
        mut noted,
        mut one_sided,
        records,
    } = kept;
    // Report order, sorted in place: by name, then first appearance.
    let coll = crate::compare::RootCollation::new();
    let mut rows = rows;
    {
        use rayon::slice::ParallelSliceMut;
        rows.par_sort_unstable_by(|x, y| coll.compare(&x.1.name, &y.1.name).then(x.0.cmp(&y.0)));
    }
    noted.sort_unstable_by(|x, y| {
        coll.compare(&x.1.comparison.name, &y.1.comparison.name)
            .then(x.0.cmp(&y.0))
    });
    one_sided.sort_unstable_by(|x, y| coll.compare(&x.1, &y.1).then(x.0.cmp(&y.0)));
    // Per row in report order, its index in the order of analysis.
    let order: Vec<usize> = rows.iter().map(|r| r.2).collect();
    let rows: Vec<TableRow<'static>> = rows.into_iter().map(|r| r.1).collect();
    let benchmarks: Vec<BenchmarkId> = order.iter().map(|&i| benchmark_of[i]).collect();
    let pooled = reorder(pooled, &order);
    let listed = OneSided::of(one_sided.into_iter().map(|(_, name, old)| (name, old)));
    Evidence {
        rows,
        pooled,
        benchmarks,
        shows_control: true,
        kept: Kept {
            order,
            listed: listed.without_failures(failures),
            noted,
            details,
            records,
        },
    }
}

/// `v` (in the order of analysis; empty when not kept) in report order: the `order[i]`-th
/// first.
fn reorder<T>(v: Vec<T>, order: &[usize]) -> Vec<T> {
    if v.is_empty() {
        return v;
    }
    let mut slots: Vec<Option<T>> = v.into_iter().map(Some).collect();
    order.iter().filter_map(|&i| slots[i].take()).collect()
}

/// What a verdict format writes: the decided rows in report order and the rest of the
/// report.
struct Document<'d> {
    rows: &'d [TableRow<'static>],
    /// Per row, its index in the order of analysis (of its JSON record).
    order: &'d [usize],
    listed: &'d OneSided,
    opts: &'d decide::Options,
    facts: &'d Facts<'d>,
    control: Option<&'d verdict::control::Control>,
    metrics: &'d verdict::metrics::Metrics,
    /// With `--details`: per row in the order of analysis, its text.
    details: Option<&'d Spool>,
    plan: &'d Plan,
}

impl Document<'_> {
    /// The default table: the metric's line when it is not the rate, the table (coloured and
    /// fitted to the terminal unless written to a file, with the control's column), the
    /// failures, the control's line, the metrics' summary, `--details`, and the rows a
    /// sequential rule settled. Without colour, width, CV column, control or failures it is
    /// written a few thousand rows at a time.
    fn table(&self, m: &crate::sample::Metric, w: &mut dyn Write) -> std::io::Result<()> {
        let (plan, rows) = (self.plan, self.rows);
        let (color, width) = if plan.output.is_some() {
            (false, None)
        } else {
            (plan.color, plan.width)
        };
        if m.name != "rate" {
            // Which figure the changes are of, and which way is better.
            write!(
                w,
                "metric: {} ({}), {}\n\n",
                m.name,
                if m.unit.is_empty() { "count" } else { &m.unit },
                match m.better {
                    Better::Lower => {
                        "lower is better: a negative change is an improvement (\"faster\")"
                    }
                    Better::Higher => "higher is better",
                }
            )?;
        }
        let extra = render::control::table_extra(self.control);
        let failures = self.facts.failures;
        let cv = rows.iter().any(|r| r.cv_pct.is_some());
        if color || width.is_some() || cv || self.control.is_some() || !failures.is_empty() {
            let t = table::render(rows, self.listed, self.opts, color, width, &extra);
            let t = table::with_failures(t, rows, self.opts, failures);
            w.write_all(t.as_bytes())?;
        } else {
            table::write_rows(rows, self.listed, self.opts, w)?;
        }
        if let Some(c) = self.control {
            write!(w, "\n{}\n", render::control::line(c))?;
        }
        w.write_all(render::metrics::section(self.metrics).as_bytes())?;
        if let Some(details) = self.details {
            w.write_all(b"\n")?;
            for &i in self.order {
                w.write_all(&details.text(i)?)?;
            }
        }
        let marked: Vec<(String, u32, crate::format::results::plan::Status)> = (self.facts)
            .settled
            .iter()
            .map(|s| {
                (
                    format!("{} {}", s.file, s.configuration)
                        .trim_end()
                        .to_owned(),
                    s.runs[0].min(s.runs[1]) as u32,
                    s.status,
                )
            })
            .collect();
        w.write_all(table::sequential_section(&marked).as_bytes())
    }

    /// The Markdown comment, with the metrics' summary before its run section and the
    /// control's marks when there are some; else written a few thousand rows at a time.
    fn markdown(&self, w: &mut dyn Write) -> std::io::Result<()> {
        let comment = markdown::Comment {
            one_sided: self.listed,
            opts: self.opts,
            failures: self.facts.failures,
            run: self.facts.run,
            input: self.facts.input,
        };
        let metrics = render::metrics::markdown(self.metrics);
        if self.control.is_none() && metrics.is_empty() {
            return markdown::write_rows(self.rows, &comment, w);
        }
        let mut text = Vec::new();
        markdown::write_rows(self.rows, &comment, &mut text)?;
        let mut t = String::from_utf8_lossy(&text).into_owned();
        let at = t.rfind("**Run**\n").unwrap_or(t.len());
        t.insert_str(at, &metrics);
        let t = render::control::markdown(self.control, self.rows, t);
        w.write_all(t.as_bytes())
    }

    /// The JSON document: the comparisons' `records` in report order, each given its decided
    /// values.
    fn json(&self, records: Option<&Spool>, w: &mut dyn Write) -> std::io::Result<()> {
        let Some(records) = records else {
            return Ok(());
        };
        let rows = self.rows;
        let report_notes = table::report_notes(
            rows.iter().any(|x| x.unpaired_input),
            self.listed,
            decide::geomean(rows.iter().map(|x| x.log_ratio)),
        );
        let rest = json::Rest {
            opts: self.opts,
            run: self.facts.run,
            counts: table::verdict_counts(rows.iter().map(|r| r.verdict)),
            geomean: decide::geomean(rows.iter().map(|r| r.log_ratio)),
            failures: self.facts.failures,
            one_sided: self.listed,
            notes: &report_notes,
            control: self.control.map(|c| render::control::json_value(c, rows)),
            metrics: render::metrics::json(self.metrics),
            columns: None,
        };
        let alpha = self.opts.alpha;
        json::write_document(&rest, || records.comparisons(rows, self.order, alpha), w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::partitions::{Contents, InMemory, Partition};
    use crate::sample::{RATE, Sample, SampleSet, Side};

    /// Samples in memory whose partitions cannot be read a second time (a spill file that
    /// cannot be read back, a temporary folder that filled up).
    struct SecondReadFails<'a> {
        inner: InMemory<'a>,
        reads: usize,
    }

    impl<'a> Partitions<'a> for SecondReadFails<'a> {
        fn partitions(&self) -> usize {
            self.inner.partitions()
        }
        fn partition(&mut self, k: usize, metric: MetricId) -> std::io::Result<Partition<'a>> {
            self.reads += 1;
            if self.reads > 1 {
                return Err(std::io::Error::other("no space left"));
            }
            self.inner.partition(k, metric)
        }
        fn give_back(&mut self, part: Partition<'a>) {
            self.inner.give_back(part);
        }
        fn first_position(&self, id: BenchmarkId) -> Option<u64> {
            self.inner.first_position(id)
        }
        fn names(&self) -> &SampleSet {
            self.inner.names()
        }
        fn scratch(&self) -> std::io::Result<crate::sample::Scratch> {
            crate::sample::Scratch::file()
        }
        fn release(&mut self) {}
        fn contents(&self) -> Contents {
            self.inner.contents()
        }
        fn in_arrival_order(
            &mut self,
            f: &mut dyn FnMut(&SampleSet) -> std::io::Result<()>,
        ) -> std::io::Result<()> {
            self.inner.in_arrival_order(f)
        }
    }

    /// When the HTML page's sections cannot read the store again, the report returns that
    /// error before it wrote anything or added any message (the caller reads the input in
    /// memory instead), even with rows that have notes.
    #[test]
    fn sections_that_cannot_read_the_store_again_leave_nothing_written() {
        let mut set = SampleSet::new();
        for c in 0..5u32 {
            let b = set.intern("a.js", &format!("n={c}"));
            for run in 0..6u32 {
                for (side, shift) in [(Side::Old, 0.0), (Side::New, f64::from(c))] {
                    // n=0 is constant on both sides: a row with a note.
                    let noise = if c == 0 { 0.0 } else { f64::from(run % 3) };
                    set.push(Sample {
                        benchmark: b,
                        side,
                        metric: RATE,
                        value: 100.0 + shift + noise,
                        time_s: 1.0,
                        run: Some(run),
                    });
                }
            }
        }
        let plan = Plan::new(Format::Html);
        let mut store = SecondReadFails {
            inner: InMemory::new(&set),
            reads: 0,
        };
        let failures = Failures::default();
        let facts = Facts {
            blocks: None,
            run: None,
            input: None,
            settled: &[],
            failures: &failures,
            format: None,
            benchstat: None,
        };
        let evidence = collect(&mut store, RATE, (&plan, &facts)).expect("first read");
        let (mut stdout, mut out) = (Vec::new(), Messages::default());
        let written = write(
            evidence.kept,
            (&evidence.rows, &evidence.benchmarks),
            &mut store,
            RATE,
            (&plan, &facts),
            &mut stdout,
            &mut out,
        );
        let error = written
            .expect("no fatal error")
            .expect_err("the second read fails");
        assert_eq!(error.to_string(), "no space left");
        assert!(stdout.is_empty());
        assert_eq!(out, Messages::default());
    }
}
