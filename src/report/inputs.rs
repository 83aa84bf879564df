//! Gathering a report's inputs: which file is which side, reading each in its format (guessed
//! or given), and the checks that there is something to compare.

use super::diagnostics::{self, Message, Messages};
use crate::compare::failures::Failures;
use crate::format::{self, InputFormat, ReadOptions};
use crate::render;
use crate::sample::{SampleSet, Side};
use std::collections::BTreeSet;

/// How a report reads its inputs.
#[derive(Clone, Debug, Default)]
pub struct InputPlan {
    /// The input files (`-`: standard input); none reads standard input.
    pub files: Vec<String>,
    /// The format of every input instead of guessing it from the content.
    pub input_format: Option<InputFormat>,
    /// `old=FILE` or `new=FILE`: a side's file, instead of positional files.
    pub label: Vec<String>,
    /// Go format: the configuration or name key whose values are the sides (`KEY[=OLD,NEW]`).
    pub sides_by: Option<String>,
}

/// What a report read: the samples and, for `--format benchstat`, the column labels, units
/// declared exact and the configuration common to all inputs.
pub struct Inputs {
    /// Every sample of every input.
    pub set: SampleSet,
    /// benchstat's column labels, exact units and common configuration.
    pub bench: render::benchstat::Options,
    /// The failed jobs results files recorded.
    pub failures: Failures,
    /// The run facts of a results file's plan record (the first one read).
    pub run: Option<render::RunInfo>,
    /// What the inputs recorded ([`render::describe_input`]).
    pub input: String,
    /// The format of the first input read (None when it was not recognised).
    pub format: Option<InputFormat>,
    /// Every value of the sides key when an input had more than two (a Go `--sides-by` key,
    /// a hyperfine export's commands; [`format::Imported::side_values`]): the report compares
    /// every further one with the first as a column; empty otherwise.
    pub side_values: Vec<String>,
    /// With more than two `side_values`: per value after the first, the samples of the first
    /// value (old) and of that value (new), each checked as a report of two sides is; empty
    /// otherwise.
    pub columns: Vec<SampleSet>,
}

/// How the reports that name their inputs (Markdown, JSON, HTML) name the input `f`: its file
/// name only (the report may be posted where the path means nothing), or `standard input`.
pub fn input_name(f: &str) -> String {
    if f == "-" {
        "standard input".to_owned()
    } else {
        std::path::Path::new(f)
            .file_name()
            .map_or_else(|| f.to_owned(), |n| n.to_string_lossy().into_owned())
    }
}

/// Reads every input of `plan`: compare.js CSV streamed and pooled; any other format sniffed
/// (or `input_format`), with files as sides (first old, second new, or `--label old=F
/// --label new=F`). Adds every problem to `out` (`file:line: …`) and returns `None` when an
/// input could not be read, when inputs naming their sides are mixed with one-side-per-file
/// inputs, or (unless `one_side_ok`) when no benchmark has both sides.
pub fn read_inputs(plan: &InputPlan, one_side_ok: bool, out: &mut Messages) -> Option<Inputs> {
    let sided = sides(plan).map_err(|e| out.error(e)).ok()?;
    let mut g = Gathered {
        inputs: sided.len(),
        ..Gathered::default()
    };
    for (f, side) in &sided {
        if let Err(usage) = g.read(f, *side, plan, out) {
            out.error(usage);
            return None;
        }
    }
    if g.unsided > 2 {
        out.error(format!(
            "{} result files without old/new sides: give two (old first), or --label \
             old=FILE --label new=FILE; more than two are compared as columns against the \
             first only when each is a file (not standard input) and none has a --label",
            g.unsided
        ));
        return None;
    }
    if g.failed {
        return None;
    }
    let columns = g.columns();
    let checked = match columns.is_empty() {
        true => g.check(&g.set, &sided, plan, one_side_ok),
        false => (columns.iter()).try_for_each(|c| g.check(c, &sided, plan, one_side_ok)),
    };
    if let Err(e) = checked {
        out.0.push(e);
        return None;
    }
    let mut read = g.into_inputs(&sided, plan);
    read.columns = columns;
    Some(read)
}

/// Reads more than two result files that are one side each, `files` (opened, each with its
/// name; the first the baseline), once each: per further file, the [`Inputs`] that
/// [`read_inputs`] gives for the baseline (old) and that file (new), built from the baseline's
/// samples read once. Each file's messages are added to `out` once, in the order of the files;
/// returns `None` at the first file that cannot be read or view that fails
/// [`read_inputs`]'s checks (the reason in `out`).
pub(crate) fn read_columns(
    files: Vec<(String, format::Input)>,
    plan: &InputPlan,
    one_side_ok: bool,
    out: &mut Messages,
) -> Option<Vec<Inputs>> {
    let mut files = files.into_iter();
    let (first, input) = files.next()?;
    let mut base = Gathered {
        inputs: 2,
        ..Gathered::default()
    };
    let read = |g: &mut Gathered, f: &str, input, out: &mut Messages| {
        if let Err(usage) = g.read_opened(f, input, None, plan, out) {
            out.error(usage);
            return false;
        }
        !g.failed
    };
    if !read(&mut base, &first, input, out) {
        return None;
    }
    let mut views = Vec::with_capacity(files.len());
    for (f, input) in files {
        let mut g = base.clone();
        if !read(&mut g, &f, input, out) {
            return None;
        }
        let sided = [(first.clone(), None), (f, None)];
        if let Err(e) = g.check(&g.set, &sided, plan, one_side_ok) {
            out.0.push(e);
            return None;
        }
        views.push(g.into_inputs(&sided, plan));
    }
    Some(views)
}

/// The inputs of `plan` with the side `--label` gave each (positional files have none):
/// standard input when there is none and it is not a terminal.
///
/// # Errors
/// The message when a `--label` is malformed or mixed with positional files, when there is
/// no input and standard input is a terminal, or when standard input is given twice.
fn sides(plan: &InputPlan) -> Result<Vec<(String, Option<Side>)>, String> {
    let mut sided: Vec<(String, Option<Side>)> = Vec::new();
    for l in &plan.label {
        let side = match l.split_once('=') {
            Some(("old", f)) => (f.to_owned(), Some(Side::Old)),
            Some(("new", f)) => (f.to_owned(), Some(Side::New)),
            _ => {
                return Err(format!(
                    "--label {l}: write --label old=FILE or --label new=FILE"
                ));
            }
        };
        sided.push(side);
    }
    sided.sort_by_key(|(_, s)| *s);
    if !plan.label.is_empty() && !plan.files.is_empty() {
        return Err(format!(
            "--label gives the files their sides; {} given besides it: name every file with \
             --label old=FILE or --label new=FILE",
            plan.files.join(" ")
        ));
    }
    sided.extend(plan.files.iter().map(|f| (f.clone(), None)));
    if sided.is_empty() {
        use std::io::IsTerminal as _;
        if std::io::stdin().is_terminal() {
            return Err(
                "report: no input files, and standard input is a terminal; give \
                        result files (benchdiff report OLD NEW, or a compare.js CSV / results \
                        file), or pipe them in (benchdiff report - < results.csv). See \
                        benchdiff report --help."
                    .to_owned(),
            );
        }
        sided.push(("-".to_owned(), None));
    }
    if sided.iter().filter(|(f, _)| f == "-").count() > 1 {
        return Err(
            "standard input (-) is given more than once; it can be read only once".to_owned(),
        );
    }
    Ok(sided)
}

/// What the inputs read so far gave.
#[derive(Clone, Default)]
struct Gathered {
    set: SampleSet,
    labels: Vec<String>,
    configs: Vec<Vec<(String, String)>>,
    exact: BTreeSet<String>,
    failed: bool,
    failures: Failures,
    run: Option<render::RunInfo>,
    input_format: Option<InputFormat>,
    /// Every value of the sides key, when an input had more than two.
    side_values: Vec<String>,
    /// Every value of the sides key the inputs had, in first-seen order, and per sample of
    /// `set` the index of its value among them (`u32::MAX`: none).
    values: Vec<String>,
    value_of: Vec<u32>,
    /// Inputs read without a side of their own so far.
    unsided: usize,
    /// How many inputs the report has (a hyperfine export alone compares its commands).
    inputs: usize,
    /// Inputs that name each sample's side (compare.js CSV, results files, Go with
    /// `--sides-by`) and inputs that are one side each: mixing them would put samples on a
    /// guessed side.
    self_sided: Vec<String>,
    one_side: Vec<String>,
}

impl Gathered {
    /// Reads the input `f` (streamed: the head is read to guess the format, then the rest)
    /// on `side` (none: by its order among the unsided inputs). An unreadable input is added
    /// to `out` and marks the gathering failed.
    ///
    /// # Errors
    /// The message when `f`'s format does not take the side options of `plan`.
    fn read(
        &mut self,
        f: &str,
        side: Option<Side>,
        plan: &InputPlan,
        out: &mut Messages,
    ) -> Result<(), String> {
        match format::Input::open(f) {
            Ok(input) => self.read_opened(f, input, side, plan, out),
            Err(e) => {
                out.error(e.to_string());
                self.failed = true;
                Ok(())
            }
        }
    }

    /// [`Gathered::read`] of the input `f` opened as `input`.
    ///
    /// # Errors
    /// The message when `f`'s format does not take the side options of `plan`.
    fn read_opened(
        &mut self,
        f: &str,
        input: format::Input,
        side: Option<Side>,
        plan: &InputPlan,
        out: &mut Messages,
    ) -> Result<(), String> {
        let format = plan.input_format.or_else(|| input.sniff());
        if let Some(e) = format.and_then(|x| input_side_misuse(f, x, side, plan)) {
            return Err(e);
        }
        if format
            .is_some_and(|x| x.has_sides() || (x == InputFormat::Go && plan.sides_by.is_some()))
        {
            self.self_sided.push(f.to_owned());
        } else {
            self.one_side.push(f.to_owned());
        }
        let side = side.unwrap_or_else(|| {
            if format.is_some_and(InputFormat::has_sides) {
                Side::Old
            } else {
                self.unsided += 1;
                if self.unsided == 1 {
                    Side::Old
                } else {
                    Side::New
                }
            }
        });
        let alone = self.inputs == 1 && format == Some(InputFormat::Hyperfine);
        let ro = ReadOptions {
            side,
            sides_by: plan
                .sides_by
                .clone()
                .or_else(|| alone.then(|| "command".to_owned())),
        };
        let start = self.set.len();
        match input.read(format, &ro, &mut self.set) {
            Ok(imported) => self.add(f, imported, side, start, out),
            Err(e) => {
                out.error(e.to_string());
                self.failed = true;
            }
        }
        Ok(())
    }

    /// Takes in what the input `f`, read on `side` into `set` from sample `start` on, gave
    /// besides its samples.
    fn add(
        &mut self,
        f: &str,
        imported: format::Imported,
        side: Side,
        start: usize,
        out: &mut Messages,
    ) {
        if !imported.side_of_sample.is_empty() {
            let index: Vec<u32> = (imported.side_values.iter())
                .map(|v| {
                    let i = self.values.iter().position(|x| x == v).unwrap_or_else(|| {
                        self.values.push(v.clone());
                        self.values.len() - 1
                    });
                    u32::try_from(i).unwrap_or(u32::MAX)
                })
                .collect();
            self.value_of.resize(start, u32::MAX);
            let of = |&i: &u32| index.get(i as usize).copied().unwrap_or(u32::MAX);
            self.value_of.extend(imported.side_of_sample.iter().map(of));
        }
        for w in &imported.warnings {
            out.warning(w.to_string());
        }
        // A results file whose jobs all failed has no samples for a reason the report lists;
        // the format hint would mislead.
        let all_failed = imported
            .results
            .as_ref()
            .is_some_and(|l| !Failures::from_loaded(l).is_empty());
        if imported.samples == 0 && !all_failed {
            out.0.push(diagnostics::no_samples(f, imported.format));
        }
        if imported.side_values.len() >= 2 {
            self.labels = imported.side_values[..2].to_vec();
            if imported.side_values.len() > 2 {
                self.side_values = imported.side_values.clone();
            }
        } else if !imported.format.is_some_and(InputFormat::has_sides) {
            let i = usize::from(side == Side::New);
            if self.labels.len() <= i {
                self.labels.resize(i + 1, String::new());
            }
            self.labels[i] = f.to_owned();
        }
        self.exact.extend(imported.exact_units.iter().cloned());
        if let Some(loaded) = &imported.results {
            let f = Failures::from_loaded(loaded);
            self.failures.items.extend(f.items);
            self.failures.unused.merge(&f.unused);
            if self.run.is_none() {
                let mut info = render::RunInfo::from_header(&loaded.header);
                info.sequential = loaded.settled.clone();
                self.run = Some(info);
            }
        }
        if self.input_format.is_none() {
            self.input_format = imported.format;
        }
        self.configs.push(imported.config.clone());
    }

    /// Checks that the inputs `sided` are not mixed and gave something to report in `set`
    /// (what they read, or a column of it).
    ///
    /// # Errors
    /// The message when self-sided and one-side inputs are mixed, when there is no sample
    /// (nor failure), or (unless `one_side_ok`) when no benchmark has both sides.
    fn check(
        &self,
        set: &SampleSet,
        sided: &[(String, Option<Side>)],
        plan: &InputPlan,
        one_side_ok: bool,
    ) -> Result<(), Message> {
        if !self.self_sided.is_empty() && !self.one_side.is_empty() {
            return Err(Message::Error(format!(
                "cannot mix inputs that name each sample's side ({}) with result files that \
                 are one side each ({}): report them separately",
                self.self_sided.join(", "),
                self.one_side.join(", ")
            )));
        }
        if set.is_empty() && self.failures.is_empty() {
            return Err(diagnostics::no_samples_read_as(self.input_format));
        }
        if !one_side_ok && !has_both_sides(set) && self.failures.is_empty() {
            let count = |side| set.iter().filter(|s| s.side == side).count() as u64;
            let from: Vec<&str> = sided.iter().map(|(f, _)| f.as_str()).collect();
            return Err(diagnostics::nothing_to_compare(
                count(Side::Old),
                count(Side::New),
                &from.join(", "),
                plan.sides_by.is_some(),
            ));
        }
        Ok(())
    }

    /// What the inputs `sided` of `plan` gave, as [`read_inputs`] returns it.
    fn into_inputs(self, sided: &[(String, Option<Side>)], plan: &InputPlan) -> Inputs {
        let bench = self.benchstat_options(plan);
        let names: Vec<String> = sided.iter().map(|(f, _)| input_name(f)).collect();
        Inputs {
            set: self.set,
            bench,
            failures: self.failures,
            run: self.run,
            input: render::describe_input(self.input_format, &names),
            format: self.input_format,
            side_values: self.side_values,
            columns: Vec::new(),
        }
    }

    /// With more than two values of the sides key: per value after the first, the view of
    /// the samples of the first value (old) and of that value (new); empty otherwise.
    fn columns(&self) -> Vec<SampleSet> {
        let index = |v: &String| self.values.iter().position(|x| x == v);
        let (Some(base), true) = (self.side_values.first(), self.side_values.len() > 2) else {
            return Vec::new();
        };
        let base = index(base);
        (self.side_values[1..].iter())
            .map(|v| value_view(&self.set, &self.value_of, base, index(v)))
            .collect()
    }

    /// benchstat's column labels, exact units and the configuration lines with one value
    /// across every input (benchstat prints those on top), but the `--sides-by` key.
    fn benchstat_options(&self, plan: &InputPlan) -> render::benchstat::Options {
        let mut bench = render::benchstat::Options::default();
        if let Some(l) = self.labels.first().filter(|l| !l.is_empty()) {
            bench.old_label = l.clone();
        }
        if let Some(l) = self.labels.get(1).filter(|l| !l.is_empty()) {
            bench.new_label = l.clone();
        }
        bench.exact_units = self.exact.clone();
        let configs = &self.configs;
        if let Some(first) = configs.first() {
            let skip = plan
                .sides_by
                .as_deref()
                .map(|k| k.split('=').next().unwrap_or(k));
            for (k, v) in first {
                let single = configs
                    .iter()
                    .all(|c| c.iter().filter(|(ck, _)| ck == k).all(|(_, cv)| cv == v))
                    && configs.iter().all(|c| c.iter().any(|(ck, _)| ck == k));
                if single && Some(k.as_str()) != skip && k != "binary" {
                    bench.config.push((k.clone(), v.clone()));
                }
            }
        }
        bench
    }
}

/// The samples of `set` whose value of the sides key (`value_of`, by sample) is `base` (on
/// old) or `column` (on new), in their order, with the benchmarks and metrics they use
/// interned in that order.
fn value_view(
    set: &SampleSet,
    value_of: &[u32],
    base: Option<usize>,
    column: Option<usize>,
) -> SampleSet {
    let mut view = SampleSet::new();
    let mut benchmarks = vec![None; set.benchmarks().len()];
    let mut metrics = vec![None; set.metrics().len()];
    let is = |v: u32, i: Option<usize>| i.is_some_and(|i| v as usize == i);
    for (s, &v) in set.iter().zip(value_of) {
        let side = match (is(v, base), is(v, column)) {
            (true, _) => Side::Old,
            (false, true) => Side::New,
            (false, false) => continue,
        };
        let benchmark = *benchmarks[s.benchmark.0 as usize].get_or_insert_with(|| {
            let b = set.benchmark(s.benchmark);
            view.intern_configuration(&b.file, &b.configuration)
        });
        let metric = *metrics[s.metric.0 as usize].get_or_insert_with(|| {
            let m = set.metric(s.metric);
            view.intern_metric(&m.name, &m.unit, m.better)
        });
        view.push(crate::sample::Sample {
            benchmark,
            metric,
            side,
            ..s
        });
    }
    if set.rounds_recorded() {
        view.mark_rounds_recorded();
    }
    view
}

/// Why input `f` of `format` cannot be read with the given side options, if it cannot:
/// `--sides-by` applies to the Go format only, and a format naming each sample's side
/// itself takes no `--label`.
fn input_side_misuse(
    f: &str,
    format: InputFormat,
    label: Option<Side>,
    plan: &InputPlan,
) -> Option<String> {
    if let Some(k) = &plan.sides_by
        && !matches!(
            format,
            InputFormat::Go | InputFormat::Hyperfine | InputFormat::CriterionBaselines
        )
    {
        return Some(format!(
            "--sides-by {k}: applies to the Go benchmark format only, and {f} is {}",
            format.name()
        ));
    }
    if let (Some(side), true) = (label, format.has_sides()) {
        return Some(format!(
            "--label {}={f}: {f} is {}, which names the side of each sample itself; give it \
             as a positional file",
            side.label(),
            format.name()
        ));
    }
    None
}

/// True when some benchmark has samples of one metric on both sides.
///
/// One flag byte per benchmark and metric seen (bit 1: old, bit 2: new): in a vector indexed
/// by benchmark and metric when there are few metrics, else in a map with the fast non-keyed
/// hasher.
fn has_both_sides(set: &SampleSet) -> bool {
    let side_bit = |s: &crate::sample::Sample| match s.side {
        Side::Old => 1u8,
        Side::New => 2u8,
        Side::Control => 0u8,
    };
    let metrics = set.metrics().len();
    if metrics <= 8 {
        let mut flags = vec![0u8; set.benchmarks().len() * metrics];
        for s in set.iter() {
            let i = s.benchmark.0 as usize * metrics + s.metric.0 as usize;
            if let Some(f) = flags.get_mut(i) {
                *f |= side_bit(&s);
                if *f == 3 {
                    return true;
                }
            }
        }
        return false;
    }
    let mut seen: rustc_hash::FxHashMap<(crate::sample::BenchmarkId, crate::sample::MetricId), u8> =
        rustc_hash::FxHashMap::default();
    for s in set.iter() {
        let flags = seen.entry((s.benchmark, s.metric)).or_insert(0);
        *flags |= side_bit(&s);
        if *flags == 3 {
            return true;
        }
    }
    false
}
