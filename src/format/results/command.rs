//! The records of a command-benchmark run (`benchdiff compare --bench`, `run`, `sweep`): the
//! `command-run` header and one `command-job` record per job. They are variants of the one
//! [`super::Record`] enum and read by the one loader ([`super::load_from`]); status and side are
//! typed as for Node-file runs.

mod fast;

use super::JobStatus;
use super::plan::{Combination, Exclusion, Order, Param};
use crate::format::result_lines::ReportedMetric;
use crate::sample::Side;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One program under test (a side).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// `old` or `new` (single-target modes use `old`).
    #[serde(
        serialize_with = "super::ser_side",
        deserialize_with = "super::de_side"
    )]
    pub side: Side,
    /// As given (`gzip -1`, a path, or an artifact).
    pub label: String,
    /// The words every run starts with (program, then fixed arguments).
    pub argv: Vec<String>,
    /// Working folder of its runs (default: benchdiff's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Git revision it was built from, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
    /// That revision's commit id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// A benchmark as recorded in the header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchHeader {
    /// Name.
    pub name: String,
    /// Argument template.
    pub template: String,
    /// Parameters and their values.
    pub params: Vec<Param>,
    /// Exclusions, each a list of `[key, value]`.
    pub exclusions: Vec<Exclusion>,
}

/// The first record of a command run's results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandRunHeader {
    /// benchdiff version.
    pub benchdiff: String,
    /// Start, seconds since the Unix epoch.
    pub started_unix_s: f64,
    /// The targets, with git revisions and commit ids when built from git.
    pub targets: Vec<Target>,
    /// The benchmarks.
    pub benchmarks: Vec<BenchHeader>,
    /// Counted runs.
    pub runs: u32,
    /// Warm-up runs.
    pub warmup: u32,
    /// Order.
    pub order: Order,
    /// Seed.
    pub seed: u64,
    /// `--shell`.
    pub shell: bool,
    /// Timeout per job, seconds.
    pub timeout_s: Option<f64>,
    /// `--prepare`.
    pub prepare: Option<String>,
    /// `--setup`.
    pub setup: Option<String>,
    /// `--cleanup`.
    pub cleanup: Option<String>,
    /// CPU list.
    pub cpus: Option<String>,
    /// Jobs in the schedule (with `--runs auto`: at most, for `--max-runs`).
    pub jobs: usize,
    /// `--runs auto`: the run limits (and `--target-accuracy` under `--stop precision`);
    /// absent for a fixed run count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<super::plan::Rule>,
    /// `--runs auto --stop decided`: the decided rule's settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided: Option<super::plan::DecideRule>,
    /// `--measure`: where each counter came from (absent: none measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<String>,
    /// `--control`: every (configuration, run) also ran the old target as the control side
    /// (absent: no control).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub control: bool,
}

/// One sample of a command job: what one result line said (or, for a job timed as a whole
/// process, its rate and time). The job's own measurements are not repeated here: they are
/// the job's one sample ([`CommandJobRecord::metrics`]). Fields at their default (no
/// configuration, no parameters, no time, no metrics) are left out of the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandSample {
    /// Benchmark name (`filename`).
    pub name: String,
    /// compare.js configuration text (absent: empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub configuration: String,
    /// Structured parameters, `[key, value]` (absent: none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<(String, serde_json::Value)>,
    /// Operations per second (NaN and infinities as in [`super::SampleRecord`]).
    #[serde(serialize_with = "super::ser_f64", deserialize_with = "super::de_f64")]
    pub rate: f64,
    /// Seconds (absent, or `null` in older files, when unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    /// `whole-process`, `node` or `json`.
    pub source: String,
    /// The metrics the line reported besides the rate (JSON lines; absent: none). Files
    /// written before job measurements were recorded once per job list the job's process
    /// metrics and counters first here, in every sample ([`CommandJobRecord::metrics`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<ReportedMetric>,
}

/// One finished command job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandJobRecord {
    /// Position in the schedule.
    pub position: u32,
    /// Benchmark name.
    pub benchmark: String,
    /// The combination, `[key, value]` texts.
    pub combination: Combination,
    /// `old` or `new`.
    #[serde(
        serialize_with = "super::ser_side",
        deserialize_with = "super::de_side"
    )]
    pub side: Side,
    /// Counted run index (for warm-ups: the warm-up index).
    pub run: u32,
    /// A warm-up run (no samples).
    pub warmup: bool,
    /// What was executed.
    pub argv: Vec<String>,
    /// Outcome class (the same classes as Node-file jobs).
    pub status: JobStatus,
    /// Exit code.
    pub exit_code: Option<i32>,
    /// Signal number.
    pub signal: Option<i32>,
    /// Wall seconds, spawn to reap.
    pub wall_s: f64,
    /// User CPU seconds.
    pub user_s: f64,
    /// System CPU seconds.
    pub sys_s: f64,
    /// Peak RSS, bytes.
    pub max_rss_bytes: u64,
    /// The job's own measurements, one sample per job: `wall` (s, spawn to reap), `user` and
    /// `sys` (s, CPU time), `max_rss` (bytes, peak resident set), all lower is better, then the
    /// `--measure` counters; under cachegrind only the counters. Absent for a job that never
    /// ran its command (a failed `--prepare`), and in files written before it was recorded,
    /// whose samples each carry these metrics first ([`job_metrics_of_old`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Vec<ReportedMetric>>,
    /// Samples (empty for warm-ups and failures): the last of them when the job's samples
    /// were split over several records (see [`super::SamplesPart`]).
    pub samples: Vec<CommandSample>,
    /// How many of the job's samples come before `samples`, in the `command-samples` records
    /// written just before this one (0, and absent in the file, when all are here).
    #[serde(default, skip_serializing_if = "super::is_zero")]
    pub samples_before: u64,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Last stderr lines of a failed job.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
}

impl CommandJobRecord {
    /// True when it ended `ok`.
    pub fn ok(&self) -> bool {
        self.status == JobStatus::Ok
    }

    /// A copy without its samples.
    pub(crate) fn without_samples(&self) -> CommandJobRecord {
        CommandJobRecord {
            position: self.position,
            benchmark: self.benchmark.clone(),
            combination: self.combination.clone(),
            side: self.side,
            run: self.run,
            warmup: self.warmup,
            argv: self.argv.clone(),
            status: self.status,
            exit_code: self.exit_code,
            signal: self.signal,
            wall_s: self.wall_s,
            user_s: self.user_s,
            sys_s: self.sys_s,
            max_rss_bytes: self.max_rss_bytes,
            metrics: self.metrics.clone(),
            samples: Vec::new(),
            samples_before: 0,
            error: self.error.clone(),
            stderr_tail: self.stderr_tail.clone(),
        }
    }
}

/// The names of a job's process metrics, in the order they are recorded.
const PROCESS_METRICS: [&str; 4] = ["wall", "user", "sys", "max_rss"];

/// In a file written before job measurements were recorded once per job (no
/// [`CommandJobRecord::metrics`]), every sample's metrics began with the job's: how many of
/// the metrics named `names` (one sample's, in order) are the job's — the four process
/// metrics `wall`, `user`, `sys`, `max_rss` (all four, or none under cachegrind), then the
/// counters ([`crate::sample::COUNTER_METRICS`]) that follow them. The rest are what the
/// line reported.
pub fn job_metrics_of_old<'n>(names: impl IntoIterator<Item = &'n str>) -> usize {
    let names: Vec<&str> = names.into_iter().collect();
    let process = if names.starts_with(&PROCESS_METRICS) {
        PROCESS_METRICS.len()
    } else {
        0
    };
    process
        + names[process..]
            .iter()
            .take_while(|n| crate::sample::COUNTER_METRICS.contains(n))
            .count()
}

/// An `ok` command job as the report reads it ([`super::load_streamed`]): the fields of a
/// [`CommandJobRecord`] a report uses, with text borrowed from the line when it has no
/// escapes; the fields a report does not use are checked to be present (as the full record
/// requires them) but not read.
#[derive(Debug, Deserialize)]
pub struct CommandJobView<'a> {
    /// Position in the schedule.
    pub position: u32,
    /// Benchmark name.
    #[serde(borrow)]
    pub benchmark: std::borrow::Cow<'a, str>,
    /// The combination, `[key, value]` texts.
    pub combination: Combination,
    /// `old` or `new`.
    #[serde(deserialize_with = "super::de_side")]
    pub side: Side,
    /// Counted run index (for warm-ups: the warm-up index).
    pub run: u32,
    /// A warm-up run (no samples).
    pub warmup: bool,
    /// Outcome class.
    pub status: JobStatus,
    /// As [`CommandJobRecord::metrics`].
    #[serde(borrow, default)]
    pub metrics: Option<Few<MetricView<'a>, 4>>,
    /// Samples (empty for warm-ups and failures).
    #[serde(borrow)]
    pub samples: Few<CommandSampleView<'a>, 1>,
    /// As [`CommandJobRecord::samples_before`].
    #[serde(default)]
    pub samples_before: u64,
    #[serde(rename = "argv")]
    _argv: serde::de::IgnoredAny,
    #[serde(rename = "exit_code", default)]
    _exit_code: Option<serde::de::IgnoredAny>,
    #[serde(rename = "signal", default)]
    _signal: Option<serde::de::IgnoredAny>,
    #[serde(rename = "wall_s")]
    _wall_s: serde::de::IgnoredAny,
    #[serde(rename = "user_s")]
    _user_s: serde::de::IgnoredAny,
    #[serde(rename = "sys_s")]
    _sys_s: serde::de::IgnoredAny,
    #[serde(rename = "max_rss_bytes")]
    _max_rss_bytes: serde::de::IgnoredAny,
}

impl<'a> CommandJobView<'a> {
    /// Reads an `ok` command-job line in exactly the shape benchdiff writes it, without serde
    /// (see [`fast`]); `None` for any other line, which is then for serde to read (or reject)
    /// as before.
    pub fn parse_fast(line: &'a str) -> Option<CommandJobView<'a>> {
        fast::parse(line)
    }
}

/// One sample of a [`CommandJobView`] (the fields of a [`CommandSample`], text borrowed).
#[derive(Debug, Default, Deserialize)]
pub struct CommandSampleView<'a> {
    /// Benchmark name (`filename`).
    #[serde(borrow)]
    pub name: std::borrow::Cow<'a, str>,
    /// compare.js configuration text.
    #[serde(borrow, default)]
    pub configuration: std::borrow::Cow<'a, str>,
    /// Structured parameters, `[key, value]`.
    #[serde(default)]
    pub params: Vec<(String, serde_json::Value)>,
    /// Operations per second (NaN and infinities as in [`super::SampleRecord`]).
    #[serde(deserialize_with = "super::de_f64")]
    pub rate: f64,
    /// Seconds (`None` when unknown).
    #[serde(default)]
    pub time_s: Option<f64>,
    /// Metrics besides the rate, as [`CommandSample::metrics`].
    #[serde(borrow, default)]
    pub metrics: Few<MetricView<'a>, 4>,
    /// `whole-process`, `node` or `json`.
    #[serde(borrow)]
    pub source: std::borrow::Cow<'a, str>,
}

/// One metric of a [`CommandSampleView`] (a [`ReportedMetric`], text borrowed).
#[derive(Debug, Deserialize)]
pub struct MetricView<'a> {
    /// Name, e.g. `allocs`.
    #[serde(borrow)]
    pub name: std::borrow::Cow<'a, str>,
    /// Unit (empty for a count).
    #[serde(borrow)]
    pub unit: std::borrow::Cow<'a, str>,
    /// Direction.
    #[serde(deserialize_with = "de_better")]
    pub better: crate::sample::Better,
    /// The value in `unit`.
    pub value: f64,
}

impl Default for MetricView<'_> {
    fn default() -> Self {
        MetricView {
            name: std::borrow::Cow::Borrowed(""),
            unit: std::borrow::Cow::Borrowed(""),
            better: crate::sample::Better::Lower,
            value: 0.0,
        }
    }
}

/// A list of up to `N` items held in place, in a vector beyond: a job's one sample and a
/// sample's four process metrics need no allocation. Reads as a slice.
#[derive(Clone)]
pub struct Few<T, const N: usize> {
    /// The first `len` items, when `spilled` is empty.
    inline: [T; N],
    len: usize,
    /// Every item, once there are more than `N`.
    spilled: Vec<T>,
}

impl<T: Default, const N: usize> Default for Few<T, N> {
    fn default() -> Self {
        Few {
            inline: std::array::from_fn(|_| T::default()),
            len: 0,
            spilled: Vec::new(),
        }
    }
}

impl<T: Default, const N: usize> Few<T, N> {
    /// Appends `item`.
    pub fn push(&mut self, item: T) {
        if self.spilled.is_empty() {
            if self.len < N {
                self.inline[self.len] = item;
                self.len += 1;
                return;
            }
            self.spilled.reserve(2 * N + 1);
            self.spilled
                .extend(self.inline[..self.len].iter_mut().map(std::mem::take));
            self.len = 0;
        }
        self.spilled.push(item);
    }
}

impl<'a, const N: usize> Few<CommandSampleView<'a>, N> {
    /// The samples `first` (owned, e.g. from the parts of a split job) then those of `rest`.
    pub fn joined(first: Vec<CommandSample>, mut rest: Self) -> Self {
        let mut few = Few::default();
        for s in first {
            few.push(CommandSampleView::from_sample(s));
        }
        let rest_items: Vec<CommandSampleView<'a>> = if rest.spilled.is_empty() {
            rest.inline[..rest.len]
                .iter_mut()
                .map(std::mem::take)
                .collect()
        } else {
            std::mem::take(&mut rest.spilled)
        };
        for s in rest_items {
            few.push(s);
        }
        few
    }
}

impl CommandSampleView<'_> {
    /// The view of an owned sample.
    fn from_sample(s: CommandSample) -> Self {
        let mut metrics = Few::default();
        for m in s.metrics {
            metrics.push(MetricView {
                name: std::borrow::Cow::Owned(m.name),
                unit: std::borrow::Cow::Owned(m.unit),
                better: m.better,
                value: m.value,
            });
        }
        CommandSampleView {
            name: std::borrow::Cow::Owned(s.name),
            configuration: std::borrow::Cow::Owned(s.configuration),
            params: s.params,
            rate: s.rate,
            time_s: s.time_s,
            metrics,
            source: std::borrow::Cow::Owned(s.source),
        }
    }
}

impl<T, const N: usize> std::ops::Deref for Few<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        if self.spilled.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spilled
        }
    }
}

impl<T: std::fmt::Debug, const N: usize> std::fmt::Debug for Few<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'de, T: Deserialize<'de> + Default, const N: usize> Deserialize<'de> for Few<T, N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut few = Few::default();
        for item in Vec::<T>::deserialize(d)? {
            few.push(item);
        }
        Ok(few)
    }
}

/// `"lower"` or `"higher"` (as [`ReportedMetric`] reads it), without allocating.
fn de_better<'de, D: serde::Deserializer<'de>>(d: D) -> Result<crate::sample::Better, D::Error> {
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = crate::sample::Better;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("\"lower\" or \"higher\"")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
            match s {
                "lower" => Ok(crate::sample::Better::Lower),
                "higher" => Ok(crate::sample::Better::Higher),
                o => Err(E::custom(format!("better {o:?} is not lower/higher"))),
            }
        }
    }
    d.deserialize_str(V)
}
