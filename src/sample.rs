//! The one data model: **samples**.
//!
//! Every source (the compare.js CSV importer, the runner, later importers) produces a
//! [`SampleSet`]; every analysis and renderer consumes one. A [`Sample`] is one measurement
//! of one [`Metric`] of one benchmark configuration under one binary. The primary metric of
//! Node's system is the **rate** in operations per second (higher is better), metric id
//! [`RATE`]; other sources add metrics with their own unit and direction (wall seconds, peak
//! RSS bytes, ns/op, B/op …). The elapsed time the benchmark reported travels with each sample
//! (`time_s`), as compare.js's CSV carries it.
//!
//! Benchmark identities (file + configuration) are interned once per set, and each sample is
//! kept in 24 bytes (value, time, benchmark id, and side, metric and run packed in 32 bits).
//! [`SampleSet::iter`] reads them in that form; [`SampleSet::samples`] unpacks them once into
//! a slice of [`Sample`] (40 bytes each) for the callers that want one. A set holds its samples
//! in memory; a reader that must not ([`SpillingSet`]) writes them elsewhere through
//! [`SampleSink`].

use rustc_hash::FxHashMap;
use std::fmt;

mod sink;
mod spill;
pub use sink::SampleSink;
pub use spill::{Scratch, Spilled, SpillingSet, release_free_memory};

/// Which build a sample was measured under: compare.js calls these `old` and `new`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The baseline binary (`--old`), the denominator of every relative figure.
    Old,
    /// The candidate binary (`--new`).
    New,
    /// The baseline run again as its own side, the A/A control (`compare --control`): its jobs
    /// run the old build, interleaved with the old and new jobs of the same rounds. Old-vs-new
    /// comparisons ignore it; the control comparison reads it as the new side
    /// ([`SampleSet::control_view`]).
    Control,
}

impl Side {
    /// The label compare.js writes in the `binary` column: `"old"` or `"new"`; the control
    /// side's label (`"control"`) appears only in results files.
    pub fn label(self) -> &'static str {
        match self {
            Side::Old => "old",
            Side::New => "new",
            Side::Control => "control",
        }
    }

    /// Parses a `binary` column label; only `old` and `new` are known (returns `None` otherwise).
    pub fn from_label(label: &str) -> Option<Side> {
        match label {
            "old" => Some(Side::Old),
            "new" => Some(Side::New),
            _ => None,
        }
    }

    /// Parses a side as results files store it: [`Side::from_label`] or `control`.
    pub fn from_record_label(label: &str) -> Option<Side> {
        match label {
            "control" => Some(Side::Control),
            _ => Side::from_label(label),
        }
    }

    /// The build a job of this side runs: the control runs the old one.
    pub fn build(self) -> Side {
        match self {
            Side::Control => Side::Old,
            s => s,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One value of a configuration parameter, typed as Node's `common.js` types it.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfValue {
    /// A JavaScript number (double precision).
    Number(f64),
    /// A string value.
    String(String),
    /// A boolean value (allowed by Node since PR #60129).
    Bool(bool),
}

/// A benchmark configuration: the parameter assignment one sample was measured with.
///
/// `text` is the configuration exactly as compare.js writes it in its CSV
/// (`type='string' n=100000`: space-joined `key=util.inspect(value)`, keys in reported order).
/// `params` holds the same assignment as structured key/values when the source knew them
/// (the runner does; the CSV importer leaves it empty, because the text is what R groups on).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Configuration {
    /// The compare.js rendering, used for grouping and display.
    pub text: String,
    /// Structured parameters in reported order; empty when only the text is known.
    pub params: Vec<(String, ConfValue)>,
}

impl Configuration {
    /// A configuration known only by its compare.js text.
    pub fn from_text(text: impl Into<String>) -> Self {
        Configuration {
            text: text.into(),
            params: Vec::new(),
        }
    }
}

/// A benchmark identity: the benchmark file (compare.js `filename`, e.g. `util/format.js`)
/// plus one configuration of it. Comparisons are made per benchmark.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Benchmark {
    /// Benchmark file relative to the benchmark folder, e.g. `process/next-tick-loop.js`.
    pub file: String,
    /// The configuration this identity stands for.
    pub configuration: Configuration,
}

impl Benchmark {
    /// The row name compare.R prints: `paste0(filename, ' ', configuration)`; an empty
    /// configuration leaves a trailing space, as in R.
    pub fn name(&self) -> String {
        let mut s = String::with_capacity(self.file.len() + 1 + self.configuration.text.len());
        s.push_str(&self.file);
        s.push(' ');
        s.push_str(&self.configuration.text);
        s
    }
}

/// Whether a larger value of a metric means the program did better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Better {
    /// Larger is better (rates, throughput: ops/s, B/s).
    Higher,
    /// Smaller is better (times, memory, allocations: s, ns/op, bytes, B/op).
    Lower,
}

/// A measured quantity: name, unit and direction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Metric {
    /// Name as reported, e.g. `rate`, `wall`, `max_rss`, `sec/op`, `gc_count`.
    pub name: String,
    /// Unit in base units, e.g. `ops/s`, `s`, `bytes`, `B/op`, `` (a count).
    pub unit: String,
    /// Which direction is an improvement.
    pub better: Better,
}

/// The names of the metrics `--measure` records per run (`perf stat`'s event names): samples
/// with one of them carry counters.
pub const COUNTER_METRICS: [&str; 7] = [
    "instructions",
    "cycles",
    "branch-misses",
    "task-clock",
    "context-switches",
    "cpu-migrations",
    "page-faults",
];

/// Index of a [`Metric`] inside its [`SampleSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetricId(pub u32);

/// The rate metric (operations per second, higher is better): id 0 in every [`SampleSet`].
pub const RATE: MetricId = MetricId(0);

/// Up to this many metrics, [`SampleSet::intern_metric`] finds a metric by scanning them (the
/// usual case: a handful); beyond it, by a hash index.
const METRIC_SCAN: usize = 16;

/// A hash of a metric's name and unit, for [`SampleSet::intern_metric`]'s index.
fn metric_hash(name: &str, unit: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    name.hash(&mut h);
    unit.hash(&mut h);
    h.finish()
}

/// A 64-bit hash of a benchmark name (`file`, configuration text) for look-ups in a
/// [`SampleSet`] ([`SampleSet::find_hashed`], [`SampleSet::intern_hashed`]); readers compute
/// it once per row. Equal names give equal hashes; different names almost never do (a
/// collision is resolved by comparing the names).
pub fn benchmark_hash(file: &str, conf_text: &str) -> u64 {
    use std::hash::Hasher as _;
    let mut h = rustc_hash::FxHasher::default();
    h.write(file.as_bytes());
    // 0xFF never occurs in UTF-8: the split between the two parts is part of the hash.
    h.write_u8(0xFF);
    h.write(conf_text.as_bytes());
    h.finish()
}

/// The key of a benchmark whose hash an earlier one had: `file + '\0' + configuration`.
fn collision_key(file: &str, conf_text: &str) -> Box<str> {
    let mut key = String::with_capacity(file.len() + 1 + conf_text.len());
    key.push_str(file);
    key.push('\0');
    key.push_str(conf_text);
    key.into_boxed_str()
}

/// What a harness that writes no samples reports of one side of a benchmark: the mean, the
/// sample standard deviation and the number of samples they summarise (BenchmarkDotNet's brief
/// export, benchmark.js's lines). Kept beside the one sample such an input gives (the mean),
/// so that a comparison can be tested from them ([`crate::compare::Comparison::summary`])
/// without inventing samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SummaryStats {
    /// The mean, in the metric's unit.
    pub mean: f64,
    /// The sample standard deviation (n − 1 denominator), in the metric's unit.
    pub sd: f64,
    /// How many samples the harness summarised.
    pub n: u32,
}

/// Index of a [`Benchmark`] inside its [`SampleSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BenchmarkId(pub u32);

/// One measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Which benchmark configuration was measured.
    pub benchmark: BenchmarkId,
    /// Under which binary.
    pub side: Side,
    /// Which metric `value` measures ([`RATE`] for Node's rate).
    pub metric: MetricId,
    /// The measured value in the metric's unit (for [`RATE`]: operations per second). May be
    /// NaN or infinite when a source says so.
    pub value: f64,
    /// Elapsed time of the measured section in seconds (NaN when the source has none).
    pub time_s: f64,
    /// The run (round of the schedule) this sample belongs to, when the source knows it.
    pub run: Option<u32>,
}

impl Sample {
    /// The sample of benchmark `benchmark` on `side` in `metric`: `value` in the metric's unit,
    /// `time_s` the seconds its measured section took (NaN when the input has none), `run` its
    /// run when the input records one.
    pub fn new(
        benchmark: BenchmarkId,
        side: Side,
        metric: MetricId,
        value: f64,
        time_s: f64,
        run: Option<u32>,
    ) -> Sample {
        Sample {
            benchmark,
            side,
            metric,
            value,
            time_s,
            run,
        }
    }
}

/// A sample as a [`SampleSet`] keeps it (24 bytes): `tag` holds the side (bit 0 new, bit 7
/// control, neither old), the metric (bits 1–6, [`TAG_METRIC_WIDE`] when it does not fit) and the run plus one (bits 8–31, 0 for
/// none, [`TAG_RUN_WIDE`] when it does not fit); a sample with either field wide has its metric
/// and run in [`SampleSet::wide`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct Packed {
    value: f64,
    time_s: f64,
    benchmark: u32,
    tag: u32,
}

/// The metric field of a tag that says "see the wide list".
const TAG_METRIC_WIDE: u32 = 0x3F;
/// The tag bit of a [`Side::Control`] sample.
const TAG_CONTROL: u32 = 0x80;
/// The run field of a tag that says "see the wide list".
const TAG_RUN_WIDE: u32 = 0xFF_FFFF;

impl Packed {
    /// The packed form of `s`, and whether its metric and run go to the wide list.
    fn of(s: &Sample) -> (Packed, bool) {
        let metric = if s.metric.0 < TAG_METRIC_WIDE {
            s.metric.0
        } else {
            TAG_METRIC_WIDE
        };
        let run = match s.run {
            None => 0,
            Some(r) if r < TAG_RUN_WIDE - 1 => r + 1,
            Some(_) => TAG_RUN_WIDE,
        };
        let side = match s.side {
            Side::Old => 0,
            Side::New => 1,
            Side::Control => TAG_CONTROL,
        };
        let tag = side | metric << 1 | run << 8;
        let p = Packed {
            value: s.value,
            time_s: s.time_s,
            benchmark: s.benchmark.0,
            tag,
        };
        (p, metric == TAG_METRIC_WIDE || run == TAG_RUN_WIDE)
    }

    /// True when the metric and run are in the wide list.
    fn is_wide(self) -> bool {
        (self.tag >> 1) & TAG_METRIC_WIDE == TAG_METRIC_WIDE || self.tag >> 8 == TAG_RUN_WIDE
    }

    /// The side of the sample.
    fn side(self) -> Side {
        if self.tag & 1 == 1 {
            Side::New
        } else if self.tag & TAG_CONTROL != 0 {
            Side::Control
        } else {
            Side::Old
        }
    }

    /// The sample, given its metric and run when they are wide.
    fn unpack(self, wide: Option<(MetricId, Option<u32>)>) -> Sample {
        let (metric, run) = wide.unwrap_or_else(|| {
            let r = self.tag >> 8;
            (
                MetricId((self.tag >> 1) & TAG_METRIC_WIDE),
                if r == 0 { None } else { Some(r - 1) },
            )
        });
        Sample {
            benchmark: BenchmarkId(self.benchmark),
            side: self.side(),
            metric,
            value: self.value,
            time_s: self.time_s,
            run,
        }
    }
}

/// The samples of a [`SampleSet`] in arrival order, unpacked one by one
/// ([`SampleSet::iter`]).
#[derive(Clone, Debug)]
pub struct Samples<'a> {
    packed: std::slice::Iter<'a, Packed>,
    wide: &'a [(usize, MetricId, Option<u32>)],
}

impl Iterator for Samples<'_> {
    type Item = Sample;

    fn next(&mut self) -> Option<Sample> {
        let p = *self.packed.next()?;
        if p.is_wide()
            && let Some((&(_, m, r), rest)) = self.wide.split_first()
        {
            self.wide = rest;
            return Some(p.unpack(Some((m, r))));
        }
        Some(p.unpack(None))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.packed.size_hint()
    }
}

impl ExactSizeIterator for Samples<'_> {}

/// A set of samples with interned benchmark identities and metrics, in arrival order.
#[derive(Clone, Debug)]
pub struct SampleSet {
    benchmarks: Vec<Benchmark>,
    metrics: Vec<Metric>,
    /// Metrics by a hash of their name and unit (the first metric of each hash), kept once
    /// there are more than [`METRIC_SCAN`] of them (see [`SampleSet::intern_metric`]).
    metric_index: FxHashMap<u64, u32>,
    /// How many of `metrics` (the first ones) are in `metric_index`.
    metrics_indexed: usize,
    /// Benchmarks by [`benchmark_hash`] of their name: the first benchmark of each hash.
    index: FxHashMap<u64, BenchmarkId>,
    /// Benchmarks whose hash an earlier one already had, by `file + '\0' + configuration`.
    collided: FxHashMap<Box<str>, BenchmarkId>,
    last_id: Option<BenchmarkId>,
    /// The samples, packed, in arrival order.
    packed: Vec<Packed>,
    /// `(index, metric, run)` of the samples whose metric or run does not fit their tag, in
    /// index order.
    wide: Vec<(usize, MetricId, Option<u32>)>,
    /// The samples unpacked, made on the first call of [`SampleSet::samples`].
    unpacked: std::sync::OnceLock<Vec<Sample>>,
    rounds_recorded: bool,
    /// The summary statistics of summary-only inputs, by benchmark, metric and side.
    summaries: FxHashMap<(BenchmarkId, MetricId, Side), SummaryStats>,
    /// What its sources asked reports to compare by default ([`SampleSet::ask_default`]):
    /// `None` before any asked, `Some(None)` for the usual choice ([`RATE`] when present),
    /// `Some(Some(id))` for metric `id`.
    asked: Option<Option<MetricId>>,
}

/// Two sources' asks of a default metric together: one's when the other asked nothing, the
/// metric they both asked, else the usual choice.
fn merge_asked(
    a: Option<Option<MetricId>>,
    b: Option<Option<MetricId>>,
) -> Option<Option<MetricId>> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(x), Some(y)) if x == y => Some(x),
        _ => Some(None),
    }
}

impl Default for SampleSet {
    fn default() -> Self {
        SampleSet {
            benchmarks: Vec::new(),
            metrics: vec![Metric {
                name: "rate".to_owned(),
                unit: "ops/s".to_owned(),
                better: Better::Higher,
            }],
            metric_index: FxHashMap::default(),
            metrics_indexed: 0,
            index: FxHashMap::default(),
            collided: FxHashMap::default(),
            last_id: None,
            packed: Vec::new(),
            wide: Vec::new(),
            unpacked: std::sync::OnceLock::new(),
            rounds_recorded: false,
            summaries: FxHashMap::default(),
            asked: None,
        }
    }
}

impl SampleSet {
    /// An empty set (holding only the [`RATE`] metric).
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of a metric, creating it on first sight. A metric is identified by name and
    /// unit; the direction given first wins.
    ///
    /// # Panics
    /// Panics if more than `u32::MAX` metrics are interned.
    pub fn intern_metric(&mut self, name: &str, unit: &str, better: Better) -> MetricId {
        let same = |m: &Metric| m.name == name && m.unit == unit;
        if self.metrics.len() <= METRIC_SCAN {
            if let Some(i) = self.metrics.iter().position(same) {
                return MetricId(i as u32);
            }
        } else {
            // Many metrics (a Go line may name thousands of units): by hash, not by a scan of
            // all of them per value.
            for (i, m) in self.metrics.iter().enumerate().skip(self.metrics_indexed) {
                self.metric_index
                    .entry(metric_hash(&m.name, &m.unit))
                    .or_insert(i as u32);
            }
            self.metrics_indexed = self.metrics.len();
            let found = match self.metric_index.get(&metric_hash(name, unit)) {
                Some(&i) if same(&self.metrics[i as usize]) => Some(i as usize),
                // Two metrics with one hash: the scan decides.
                Some(_) => self.metrics.iter().position(same),
                None => None,
            };
            if let Some(i) = found {
                return MetricId(i as u32);
            }
        }
        self.metrics.push(Metric {
            name: name.to_owned(),
            unit: unit.to_owned(),
            better,
        });
        MetricId(u32::try_from(self.metrics.len() - 1).expect("fewer than 2^32 metrics"))
    }

    /// Asks reports of this set to compare `metric` when none is asked for (`None`: the usual
    /// choice, [`RATE`] when some sample has it): a source calls it for each unit it adds (a
    /// command job timed as a whole process asks for its `wall`, one with result lines for the
    /// usual choice). The set keeps a metric only while every ask names it
    /// ([`SampleSet::default_metric`]).
    pub fn ask_default(&mut self, metric: Option<MetricId>) {
        self.asked = merge_asked(self.asked, Some(metric));
    }

    /// The metric every ask of [`SampleSet::ask_default`] named, when some sample has it;
    /// `None` when no source asked, they asked for different ones, or the usual choice.
    pub fn default_metric(&self) -> Option<MetricId> {
        self.asked.flatten().filter(|&m| self.has_metric(m))
    }

    /// All metrics, indexed by [`MetricId`] ([`RATE`] first).
    pub fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    /// The metric behind an id.
    pub fn metric(&self, id: MetricId) -> &Metric {
        &self.metrics[id.0 as usize]
    }

    /// The metric id named `name` (first match), if any sample set defines it.
    pub fn find_metric(&self, name: &str) -> Option<MetricId> {
        self.metrics
            .iter()
            .position(|m| m.name == name)
            .map(|i| MetricId(i as u32))
    }

    /// The id of benchmark (`file`, configuration `conf_text`), creating it on first sight.
    ///
    /// # Panics
    /// Panics if more than `u32::MAX` distinct benchmarks are interned.
    pub fn intern(&mut self, file: &str, conf_text: &str) -> BenchmarkId {
        // Consecutive rows often name the same benchmark (old, then new): skip the hash.
        if let Some(id) = self.last_id {
            let b = &self.benchmarks[id.0 as usize];
            if b.file == file && b.configuration.text == conf_text {
                return id;
            }
        }
        self.intern_hashed(benchmark_hash(file, conf_text), file, conf_text)
    }

    /// [`SampleSet::intern`] with the name's [`benchmark_hash`] already computed.
    ///
    /// # Panics
    /// Panics if more than `u32::MAX` distinct benchmarks are interned.
    pub fn intern_hashed(&mut self, hash: u64, file: &str, conf_text: &str) -> BenchmarkId {
        if let Some(id) = self.find_hashed(hash, file, conf_text) {
            self.last_id = Some(id);
            return id;
        }
        let id =
            BenchmarkId(u32::try_from(self.benchmarks.len()).expect("fewer than 2^32 benchmarks"));
        self.benchmarks.push(Benchmark {
            file: file.to_owned(),
            configuration: Configuration::from_text(conf_text),
        });
        match self.index.entry(hash) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(id);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(collision_key(file, conf_text), id);
            }
        }
        self.last_id = Some(id);
        id
    }

    /// The id of benchmark (`file`, configuration `conf_text`) when it is interned, else
    /// `None`; a read-only look-up (several threads may look up at once while nothing is
    /// interned).
    pub fn find_benchmark(&self, file: &str, conf_text: &str) -> Option<BenchmarkId> {
        self.find_hashed(benchmark_hash(file, conf_text), file, conf_text)
    }

    /// [`SampleSet::find_benchmark`] with the name's [`benchmark_hash`] already computed.
    pub fn find_hashed(&self, hash: u64, file: &str, conf_text: &str) -> Option<BenchmarkId> {
        let &id = self.index.get(&hash)?;
        let b = &self.benchmarks[id.0 as usize];
        if b.file == file && b.configuration.text == conf_text {
            return Some(id);
        }
        if self.collided.is_empty() {
            return None;
        }
        self.collided
            .get(collision_key(file, conf_text).as_ref())
            .copied()
    }

    /// Like [`SampleSet::intern`], keeping structured parameters when the benchmark is new.
    pub fn intern_configuration(
        &mut self,
        file: &str,
        configuration: &Configuration,
    ) -> BenchmarkId {
        let id = self.intern(file, &configuration.text);
        let b = &mut self.benchmarks[id.0 as usize];
        if b.configuration.params.is_empty() && !configuration.params.is_empty() {
            b.configuration.params = configuration.params.clone();
        }
        id
    }

    /// Appends one sample (its benchmark id must come from this set).
    pub fn push(&mut self, sample: Sample) {
        debug_assert!((sample.benchmark.0 as usize) < self.benchmarks.len());
        let (p, wide) = Packed::of(&sample);
        if wide {
            self.wide
                .push((self.packed.len(), sample.metric, sample.run));
        }
        self.packed.push(p);
        self.unpacked.take();
    }

    /// Appends samples in order (their benchmark ids must come from this set).
    pub fn extend_samples(&mut self, samples: impl IntoIterator<Item = Sample>) {
        let n = self.benchmarks.len();
        let base = self.packed.len();
        let wide = &mut self.wide;
        let packed = &mut self.packed;
        packed.extend(samples.into_iter().enumerate().map(|(i, s)| {
            debug_assert!((s.benchmark.0 as usize) < n);
            let (p, w) = Packed::of(&s);
            if w {
                wide.push((base + i, s.metric, s.run));
            }
            p
        }));
        self.unpacked.take();
    }

    /// Reserves room for `additional` more samples (24 bytes each).
    pub fn reserve(&mut self, additional: usize) {
        self.packed.reserve(additional);
    }

    /// All samples in arrival order, as a slice: unpacked on the first call and kept (40
    /// bytes a sample besides the 24 of the packed form); [`SampleSet::iter`] reads them
    /// without a copy.
    pub fn samples(&self) -> &[Sample] {
        self.unpacked.get_or_init(|| self.iter().collect())
    }

    /// The samples in arrival order, unpacked one at a time (no copy of the set).
    pub fn iter(&self) -> Samples<'_> {
        Samples {
            packed: self.packed.iter(),
            wide: &self.wide,
        }
    }

    /// The samples of positions `range` in arrival order (see [`SampleSet::iter`]).
    ///
    /// # Panics
    /// Panics if `range` is out of bounds.
    pub fn iter_range(&self, range: std::ops::Range<usize>) -> Samples<'_> {
        let from = self.wide.partition_point(|w| w.0 < range.start);
        Samples {
            packed: self.packed[range].iter(),
            wide: &self.wide[from..],
        }
    }

    /// True when some sample is of `metric`.
    pub fn has_metric(&self, metric: MetricId) -> bool {
        if metric.0 < TAG_METRIC_WIDE && self.wide.is_empty() {
            return (self.packed.iter()).any(|p| (p.tag >> 1) & TAG_METRIC_WIDE == metric.0);
        }
        self.iter().any(|s| s.metric == metric)
    }

    /// All benchmark identities, indexed by [`BenchmarkId`].
    pub fn benchmarks(&self) -> &[Benchmark] {
        &self.benchmarks
    }

    /// The benchmark behind an id.
    pub fn benchmark(&self, id: BenchmarkId) -> &Benchmark {
        &self.benchmarks[id.0 as usize]
    }

    /// Marks the set as coming from a source that records **rounds that ran together**: one
    /// old and one new measurement of a configuration taken back to back (benchdiff's runner and
    /// its results files, compare.js's CSV in its run order). Only then may the i-th old and the
    /// i-th new sample of a configuration be analysed as a pair; every other source (separate
    /// `go test` or hyperfine files, pytest-benchmark rounds, …) holds independent runs and gets
    /// the unpaired analysis. Readers and the runner call this; nothing else should.
    pub fn mark_rounds_recorded(&mut self) {
        self.rounds_recorded = true;
    }

    /// True when [`SampleSet::mark_rounds_recorded`] was called: samples of the same run index
    /// (or the same arrival position, for compare.js CSV) of the two sides ran together.
    pub fn rounds_recorded(&self) -> bool {
        self.rounds_recorded
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.packed.len()
    }

    /// True when the set holds no sample.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records the summary statistics `stats` a summary-only input gave for `side` of
    /// `benchmark` in `metric` (the last one given wins).
    pub fn set_summary(
        &mut self,
        benchmark: BenchmarkId,
        metric: MetricId,
        side: Side,
        stats: SummaryStats,
    ) {
        self.summaries.insert((benchmark, metric, side), stats);
    }

    /// The summary statistics recorded for `side` of `benchmark` in `metric`, if any.
    pub fn summary(
        &self,
        benchmark: BenchmarkId,
        metric: MetricId,
        side: Side,
    ) -> Option<SummaryStats> {
        self.summaries.get(&(benchmark, metric, side)).copied()
    }

    /// Appends every sample of `other`, re-interning its benchmarks and metrics (pooling
    /// several inputs), its summary statistics and its asks of a default metric
    /// ([`SampleSet::ask_default`]).
    ///
    /// The pooled set records rounds only if every pooled part does (an empty set takes the
    /// flag of what is added to it).
    pub fn extend_from(&mut self, other: &SampleSet) {
        self.rounds_recorded = if self.packed.is_empty() {
            other.rounds_recorded
        } else {
            self.rounds_recorded && other.rounds_recorded
        };
        let map: Vec<BenchmarkId> = other
            .benchmarks
            .iter()
            .map(|b| self.intern_configuration(&b.file, &b.configuration))
            .collect();
        let mmap: Vec<MetricId> = other
            .metrics
            .iter()
            .map(|m| self.intern_metric(&m.name, &m.unit, m.better))
            .collect();
        self.extend_samples(other.iter().map(|s| Sample {
            benchmark: map[s.benchmark.0 as usize],
            metric: mmap[s.metric.0 as usize],
            ..s
        }));
        for (&(b, m, side), &stats) in &other.summaries {
            let key = (map[b.0 as usize], mmap[m.0 as usize], side);
            self.summaries.insert(key, stats);
        }
        let other_asked = other.asked.map(|m| m.map(|m| mmap[m.0 as usize]));
        self.asked = merge_asked(self.asked, other_asked);
    }

    /// True when some sample is of [`Side::Control`].
    pub fn has_control(&self) -> bool {
        if self.wide.is_empty() {
            return self.packed.iter().any(|p| p.side() == Side::Control);
        }
        self.iter().any(|s| s.side == Side::Control)
    }

    /// The A/A control comparison of this set: the same benchmarks, metrics and rounds flag,
    /// with the [`Side::Old`] samples as they are, the [`Side::Control`] samples as
    /// [`Side::New`], and the new samples left out; `None` when the set has no control sample.
    /// Every old-vs-new analysis of the view is then the control's (old vs old again).
    pub fn control_view(&self) -> Option<SampleSet> {
        if !self.has_control() {
            return None;
        }
        let mut view = SampleSet {
            packed: Vec::new(),
            wide: Vec::new(),
            unpacked: std::sync::OnceLock::new(),
            ..self.clone()
        };
        view.extend_samples(self.iter().filter_map(|s| match s.side {
            Side::Old => Some(s),
            Side::Control => Some(Sample {
                side: Side::New,
                ..s
            }),
            Side::New => None,
        }));
        Some(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_keep_their_ids_past_the_scan_limit() {
        // Metrics are found by a scan up to METRIC_SCAN, then by a hash index: every metric
        // keeps its first id either way, and name and unit together identify it.
        let mut set = SampleSet::new();
        let n = 3 * METRIC_SCAN as u32 + 5;
        let ids: Vec<MetricId> = (0..n)
            .map(|i| set.intern_metric(&format!("m{i}"), "ns/op", Better::Lower))
            .collect();
        assert_eq!(ids, (1..=n).map(MetricId).collect::<Vec<_>>());
        for i in (0..n).rev() {
            assert_eq!(
                set.intern_metric(&format!("m{i}"), "ns/op", Better::Higher),
                ids[i as usize]
            );
        }
        assert_eq!(set.intern_metric("rate", "ops/s", Better::Higher), RATE);
        let other_unit = set.intern_metric("m3", "B/op", Better::Lower);
        assert_eq!(other_unit, MetricId(n + 1));
        assert_eq!(set.intern_metric("m3", "B/op", Better::Lower), other_unit);
        assert_eq!(set.metric(ids[7]).better, Better::Lower);
        assert_eq!(set.metrics().len(), n as usize + 2);
    }

    #[test]
    fn interning_dedups_and_names_like_r() {
        let mut set = SampleSet::new();
        let a = set.intern("util/format.js", "n=1");
        let b = set.intern("util/format.js", "n=1");
        let c = set.intern("util/format.js", "");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(set.benchmark(a).name(), "util/format.js n=1");
        assert_eq!(set.benchmark(c).name(), "util/format.js ");
        assert_eq!(set.find_benchmark("util/format.js", "n=1"), Some(a));
        assert_eq!(set.find_benchmark("util/format.js", "n=2"), None);
    }

    /// Samples keep every field through packing: metrics and runs beyond what the tag
    /// holds, no run, NaN and infinite values; [`SampleSet::iter_range`] starts mid-way.
    #[test]
    fn packed_samples_round_trip() {
        let mut set = SampleSet::new();
        let b = set.intern("a.js", "");
        for i in 0..130 {
            set.intern_metric(&format!("m{i}"), "s", Better::Lower);
        }
        let runs = [
            None,
            Some(0),
            Some(5),
            Some(0xFF_FFFD),
            Some(0xFF_FFFE),
            Some(u32::MAX),
        ];
        let mut want = Vec::new();
        for (i, &run) in runs.iter().cycle().take(60).enumerate() {
            let s = Sample {
                benchmark: b,
                side: if i % 3 == 0 { Side::New } else { Side::Old },
                metric: MetricId([0, 1, 126, 127, 128, 130][i % 6 / 2 + (i % 4) % 3]),
                value: [1.5, f64::INFINITY, -0.0][i % 3],
                time_s: if i % 5 == 0 { f64::NAN } else { i as f64 },
                run,
            };
            want.push(s);
            if i % 2 == 0 {
                set.push(s);
            } else {
                set.extend_samples([s]);
            }
        }
        let bits = |v: &[Sample]| -> Vec<String> { v.iter().map(|s| format!("{s:?}")).collect() };
        assert_eq!(bits(set.samples()), bits(&want));
        assert_eq!(bits(&set.iter().collect::<Vec<_>>()), bits(&want));
        assert_eq!(
            bits(&set.iter_range(17..41).collect::<Vec<_>>()),
            bits(&want[17..41])
        );
        assert!(set.has_metric(MetricId(127)));
        assert!(!set.has_metric(MetricId(129)));
        let mut copy = SampleSet::new();
        copy.extend_from(&set);
        copy.extend_from(&set);
        assert_eq!(bits(&copy.samples()[60..]), bits(&want));
    }

    /// A default metric holds while every ask names it, through pooling too; a disagreeing
    /// ask (or none with samples) falls back to the usual choice.
    #[test]
    fn default_metric_is_the_one_every_source_asked() {
        let mut set = SampleSet::new();
        let b = set.intern("cmd", "");
        let wall = set.intern_metric("wall", "s", Better::Lower);
        assert_eq!(set.default_metric(), None);
        set.ask_default(Some(wall));
        assert_eq!(set.default_metric(), None, "no wall sample yet");
        set.push(Sample {
            benchmark: b,
            side: Side::Old,
            metric: wall,
            value: 0.5,
            time_s: 0.5,
            run: Some(0),
        });
        set.ask_default(Some(wall));
        assert_eq!(set.default_metric(), Some(wall));
        let mut pooled = SampleSet::new();
        pooled.extend_from(&set);
        let pooled_wall = pooled.find_metric("wall").expect("interned");
        assert_eq!(pooled.default_metric(), Some(pooled_wall));
        let mut lines = SampleSet::new();
        lines.ask_default(None);
        pooled.extend_from(&lines);
        assert_eq!(pooled.default_metric(), None);
        set.ask_default(None);
        assert_eq!(set.default_metric(), None);
        set.ask_default(Some(wall));
        assert_eq!(set.default_metric(), None, "a disagreement is final");
    }

    /// Two names with the same hash stay two benchmarks, each found by its name.
    #[test]
    fn hash_collisions_are_resolved_by_name() {
        let mut set = SampleSet::new();
        let a = set.intern_hashed(42, "a.js", "n=1");
        let b = set.intern_hashed(42, "b.js", "n=1");
        let c = set.intern_hashed(42, "a.js", "n=1");
        assert_ne!(a, b);
        assert_eq!(a, c);
        assert_eq!(set.find_hashed(42, "a.js", "n=1"), Some(a));
        assert_eq!(set.find_hashed(42, "b.js", "n=1"), Some(b));
        assert_eq!(set.find_hashed(42, "c.js", "n=1"), None);
        assert_eq!(set.find_hashed(7, "b.js", "n=1"), None);
        assert_eq!(set.benchmarks().len(), 2);
    }
}
