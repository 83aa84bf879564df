//! Plain data of a run's plan as the results file records it: the job order, the adaptive
//! stopping rule and its round records, parameter matrices. The runner (`run/`) gives
//! them their behaviour (inherent `impl` blocks live there); this module only defines and
//! (de)serialises them, so that reading a results file needs nothing from the runner.

use serde::{Deserialize, Serialize};

/// Scheduling policy.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// compare.js order: per file, per run, old then new.
    Node,
    /// Seeded random interleave of each round's jobs.
    Random,
}

/// The stopping rule's settings (recorded in the results file's `run` record as `adaptive`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// `--target-accuracy`: largest acceptable 95% half-width, percent of the old mean.
    #[serde(rename = "target_accuracy_pct")]
    pub target_pct: f64,
    /// `--min-runs`: samples a side needs before a configuration may settle (at least 2).
    pub min_runs: u32,
    /// `--max-runs`: rounds at most (the fixed schedule's run count).
    pub max_runs: u32,
}

/// What stops a configuration under `--runs auto` (`--stop`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stop {
    /// As soon as its anytime-valid interval lies wholly beyond ±`--threshold` (faster,
    /// slower) or wholly inside it (no change): [`crate::stats::sequential`].
    #[default]
    Decided,
    /// Once its 95% interval is narrow enough (`--target-accuracy`), whatever it says.
    Precision,
}

/// The settings of `--stop decided` (recorded in the results file's `run` record as
/// `decided`, and in every `adaptive` round record).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecideRule {
    /// Always [`Stop::Decided`]; written so that the record says which rule ran.
    pub stop: Stop,
    /// `--threshold`: the no-change band ±PCT, percent.
    pub threshold_pct: f64,
    /// Family-wise level of the whole run (0.05), split over the rows by Bonferroni.
    pub alpha: f64,
    /// The boundary family (older files: the default).
    #[serde(default)]
    pub method: crate::stats::sequential::Method,
    /// Stop a row for futility when its conditional power falls below
    /// [`crate::stats::sequential::FUTILITY_POWER`] (`--no-futility` turns it off; files
    /// written before it existed: off, so `--resume` replays their decisions).
    #[serde(default)]
    pub futility: bool,
}

/// One file's part of a round, as recorded in the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundFile {
    /// Benchmark file, `category/file.js`.
    pub file: String,
    /// Unsettled configurations (0 = not known yet).
    pub open: usize,
    /// The `--set` arguments of a restricted job; absent when the whole file runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<Vec<String>>,
}

/// A configuration that settled, as recorded in the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settled {
    /// Benchmark file.
    pub file: String,
    /// compare.js configuration text.
    pub configuration: String,
    /// Samples (old, new) when it settled.
    pub runs: [usize; 2],
    /// Why it settled.
    #[serde(flatten)]
    pub status: Status,
}

/// The `adaptive` record written before every round: the rule, the configurations that
/// settled after the previous round, and the jobs of this round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    /// Round index, from 0.
    pub round: u32,
    /// `--target-accuracy`, percent.
    pub target_accuracy_pct: f64,
    /// `--min-runs`.
    pub min_runs: u32,
    /// `--max-runs`.
    pub max_runs: u32,
    /// `--stop decided`: its settings (absent for the precision rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided: Option<DecideRule>,
    /// Configurations settled after the previous round.
    pub settled: Vec<Settled>,
    /// Files that run in this round.
    pub files: Vec<RoundFile>,
}

/// Where one configuration stands.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// Not precise enough yet (or too few samples).
    Open,
    /// The 95% half-width (percent of the old mean) reached the target.
    Precise {
        /// The half-width when it settled, percent.
        half_width_pct: f64,
    },
    /// Only one binary reports this configuration.
    OneSided,
    /// `--stop decided`: its anytime-valid interval settled it.
    Decided {
        /// Faster, slower or no change.
        decision: crate::stats::sequential::Decision,
        /// The interval's bounds when it settled, percent change of new against old
        /// (rates: positive = faster).
        lo_pct: f64,
        /// Upper bound, percent.
        hi_pct: f64,
        /// The row's level (the run's α split over its rows).
        row_alpha: f64,
        /// Rows the run's α was split over.
        rows: usize,
    },
    /// `--stop decided`: stopped for futility: its conditional power of a decision by
    /// `--max-runs` fell below [`crate::stats::sequential::FUTILITY_POWER`]. Decides
    /// nothing: reported as inconclusive.
    Futile {
        /// The conditional power when it stopped, in `[0, 1]`.
        conditional_power: f64,
        /// The sequential interval when it stopped, percent change (rates: positive = faster).
        lo_pct: f64,
        /// Upper bound, percent.
        hi_pct: f64,
    },
}

/// One parameter and its values, in listed order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Param {
    /// The key, used as `{key}` in argument templates.
    pub key: String,
    /// Its values as text (what is substituted into argv).
    pub values: Vec<String>,
}

/// A partial assignment that removes every combination it matches.
pub type Exclusion = Vec<(String, String)>;

/// One combination: `(key, value text)` in matrix key order.
pub type Combination = Vec<(String, String)>;

/// The typed JSON form of a value text, as `crate::run::plan::matrix` types parameter values:
/// finite number, boolean or string.
pub fn typed_value(text: &str) -> serde_json::Value {
    match text {
        "true" => return serde_json::Value::Bool(true),
        "false" => return serde_json::Value::Bool(false),
        _ => {}
    }
    let numeric = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && text.bytes().any(|b| b.is_ascii_digit());
    if numeric
        && let Ok(x) = text.parse::<f64>()
        && let Some(n) = serde_json::Number::from_f64(x)
    {
        return serde_json::Value::Number(n);
    }
    serde_json::Value::String(text.to_owned())
}

/// The configuration (compare.js text + typed params) of a combination followed by `extra`
/// entries whose keys it does not already have (e.g. what a program reported).
pub fn configuration(
    c: &Combination,
    extra: &[(String, serde_json::Value)],
) -> crate::sample::Configuration {
    let mut entries: Vec<(String, serde_json::Value)> =
        c.iter().map(|(k, v)| (k.clone(), typed_value(v))).collect();
    for (k, v) in extra {
        if !entries.iter().any(|(ek, _)| ek == k) {
            entries.push((k.clone(), v.clone()));
        }
    }
    // Every value is a number, string or boolean here, so this cannot fail; fall back to text.
    crate::format::node_ipc::configuration_from_entries(&entries).unwrap_or_else(|_| {
        crate::sample::Configuration::from_text(
            c.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
        )
    })
}
