//! What one job's samples may hold: memory is bounded whatever a child prints.
//!
//! A job (a Node file's child or a command benchmark's child) may report at most
//! [`MAX_JOB_SAMPLES`] samples (100,000), whose kept content may hold at most
//! [`MAX_JOB_SAMPLE_BYTES`] (128 MiB) in memory, each sample with at most
//! [`MAX_SAMPLE_VALUES`] (1,000) metrics and at most as many configuration parameters. The
//! bytes counted are those a kept sample holds ([`result_line_bytes`], [`report_bytes`]): its
//! strings, its metrics and parameters with their names, and the fixed size of each, so a
//! short line that expands in memory (a JSON line of many small metrics) counts at its size in
//! memory, not its length.
//!
//! The first sample that would cross a limit is not kept: the job is stopped there (its
//! process group ended as on an interrupt), it ends `failed` with [`Limit::error`] naming the
//! limit, the samples before it stay in its record (used by no report, as for every job that
//! did not end `ok`), and the run goes on with the next job. [`JobBudget`] keeps the count.

use crate::format::node_ipc::Report;
use crate::format::result_lines::ResultLine;
use std::mem::size_of;

/// The most samples one job may report (100,000).
pub const MAX_JOB_SAMPLES: usize = 100_000;

/// The most bytes the kept samples of one job may hold in memory (128 MiB), counted by
/// [`result_line_bytes`] and [`report_bytes`].
pub const MAX_JOB_SAMPLE_BYTES: usize = 128 << 20;

/// The most metrics one sample (result line) may report, and the most configuration
/// parameters it may have (1,000 each).
pub const MAX_SAMPLE_VALUES: usize = 1_000;

/// A limit of [`JobBudget`] that a job's next sample would have crossed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// More than [`MAX_JOB_SAMPLES`] samples.
    Samples,
    /// Samples holding more than [`MAX_JOB_SAMPLE_BYTES`]; `kept` samples were kept.
    Bytes {
        /// Samples kept before the limit.
        kept: usize,
    },
    /// A sample with `count` metrics, more than [`MAX_SAMPLE_VALUES`]; `kept` samples before it.
    Metrics {
        /// Metrics the sample had.
        count: usize,
        /// Samples kept before it.
        kept: usize,
    },
    /// A sample with `count` configuration parameters, more than [`MAX_SAMPLE_VALUES`].
    Params {
        /// Parameters the sample had.
        count: usize,
        /// Samples kept before it.
        kept: usize,
    },
}

impl Limit {
    /// The job's error text, as recorded in its `error` field: which limit, that the job was
    /// stopped there, and how many samples its record keeps. [`Limit::Samples`] gives
    /// [`crate::format::results::sample_limit_error`].
    pub fn error(&self) -> String {
        let kept = |n: usize| match n {
            0 => "stopped there, before its first sample".to_owned(),
            1 => "stopped there; its first sample is kept in the results file".to_owned(),
            n => format!("stopped there; its first {n} samples are kept in the results file"),
        };
        match self {
            Limit::Samples => format!(
                "reported more than {MAX_JOB_SAMPLES} samples, the limit per job: stopped \
                 there; its first {MAX_JOB_SAMPLES} samples are kept in the results file"
            ),
            Limit::Bytes { kept: n } => format!(
                "reported samples holding more than {} MiB, the limit per job: {}",
                MAX_JOB_SAMPLE_BYTES >> 20,
                kept(*n)
            ),
            Limit::Metrics { count, kept: n } => format!(
                "a result line reported {count} metrics, more than {MAX_SAMPLE_VALUES}, the \
                 limit per line: {}",
                kept(*n)
            ),
            Limit::Params { count, kept: n } => format!(
                "a result line reported {count} configuration parameters, more than \
                 {MAX_SAMPLE_VALUES}, the limit per line: {}",
                kept(*n)
            ),
        }
    }
}

/// The running count of one job's kept samples against the limits (see the module notes).
#[derive(Clone, Debug, Default)]
pub struct JobBudget {
    samples: usize,
    bytes: usize,
    crossed: Option<Limit>,
}

impl JobBudget {
    /// An empty budget.
    pub fn new() -> Self {
        Self::default()
    }

    /// Admits one more sample holding `bytes` with `metrics` metrics and `params`
    /// configuration parameters: `true` when it may be kept; `false` when it would cross a
    /// limit (then, and for every later call, [`JobBudget::crossed`] names the first limit
    /// crossed, and the sample must not be kept).
    pub fn admit(&mut self, bytes: usize, metrics: usize, params: usize) -> bool {
        if self.crossed.is_some() {
            return false;
        }
        let kept = self.samples;
        let crossed = if self.samples >= MAX_JOB_SAMPLES {
            Some(Limit::Samples)
        } else if metrics > MAX_SAMPLE_VALUES {
            Some(Limit::Metrics {
                count: metrics,
                kept,
            })
        } else if params > MAX_SAMPLE_VALUES {
            Some(Limit::Params {
                count: params,
                kept,
            })
        } else if self.bytes.saturating_add(bytes) > MAX_JOB_SAMPLE_BYTES {
            Some(Limit::Bytes { kept })
        } else {
            None
        };
        if crossed.is_some() {
            self.crossed = crossed;
            return false;
        }
        self.samples += 1;
        self.bytes += bytes;
        true
    }

    /// [`JobBudget::admit`] for a command benchmark's result line.
    pub fn admit_line(&mut self, line: &ResultLine) -> bool {
        self.admit(result_line_bytes(line), line.metrics.len(), line.conf.len())
    }

    /// [`JobBudget::admit`] for a Node report.
    pub fn admit_report(&mut self, report: &Report) -> bool {
        self.admit(report_bytes(report), 0, report.configuration.params.len())
    }

    /// The limit the job crossed, if any.
    pub fn crossed(&self) -> Option<&Limit> {
        self.crossed.as_ref()
    }

    /// Samples admitted.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Bytes the admitted samples hold.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// Bytes a JSON value holds: its fixed size and, for strings, arrays and objects, their
/// content.
fn json_bytes(v: &serde_json::Value) -> usize {
    size_of::<serde_json::Value>()
        + match v {
            serde_json::Value::String(s) => s.len(),
            serde_json::Value::Array(a) => a.iter().map(json_bytes).sum(),
            serde_json::Value::Object(o) => o.iter().map(|(k, v)| k.len() + json_bytes(v)).sum(),
            _ => 0,
        }
}

/// Bytes a kept result line holds in memory: its fixed size, its name, every configuration
/// entry (key and value) and every metric (name, unit and fixed size).
pub fn result_line_bytes(line: &ResultLine) -> usize {
    size_of::<ResultLine>()
        + line.name.len()
        + line
            .conf
            .iter()
            .map(|(k, v)| size_of::<String>() + k.len() + json_bytes(v))
            .sum::<usize>()
        + line
            .metrics
            .iter()
            .map(|m| {
                size_of::<crate::format::result_lines::ReportedMetric>()
                    + m.name.len()
                    + m.unit.len()
            })
            .sum::<usize>()
}

/// Bytes a kept Node report holds in memory: its fixed size, its configuration text, every
/// parameter (key and value) and its time text.
pub fn report_bytes(report: &Report) -> usize {
    size_of::<Report>()
        + report.configuration.text.len()
        + report.time_text.len()
        + report
            .configuration
            .params
            .iter()
            .map(|(k, v)| {
                size_of::<(String, crate::sample::ConfValue)>()
                    + k.len()
                    + match v {
                        crate::sample::ConfValue::String(s) => s.len(),
                        _ => 0,
                    }
            })
            .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::result_lines::parse_line;

    #[test]
    fn the_first_sample_over_a_limit_is_refused_and_named() {
        let mut b = JobBudget::new();
        assert!(b.admit(MAX_JOB_SAMPLE_BYTES - 10, 3, 2));
        assert!(b.admit(10, MAX_SAMPLE_VALUES, MAX_SAMPLE_VALUES));
        assert!(!b.admit(1, 0, 0));
        assert_eq!(b.crossed(), Some(&Limit::Bytes { kept: 2 }));
        // The first limit crossed stays.
        assert!(!b.admit(0, MAX_SAMPLE_VALUES + 1, 0));
        assert_eq!(b.crossed(), Some(&Limit::Bytes { kept: 2 }));
        assert_eq!((b.samples(), b.bytes()), (2, MAX_JOB_SAMPLE_BYTES));
        assert!(b.crossed().unwrap().error().contains("more than 128 MiB"));

        let mut b = JobBudget::new();
        assert!(b.admit(1, 0, 0));
        assert!(!b.admit(1, MAX_SAMPLE_VALUES + 1, 0));
        assert_eq!(
            b.crossed().map(Limit::error).as_deref(),
            Some(
                "a result line reported 1001 metrics, more than 1000, the limit per line: \
                 stopped there; its first sample is kept in the results file"
            )
        );
        let mut b = JobBudget::new();
        assert!(!b.admit(1, 0, MAX_SAMPLE_VALUES + 1));
        assert!(matches!(
            b.crossed(),
            Some(Limit::Params {
                count: 1001,
                kept: 0
            })
        ));

        let mut b = JobBudget::new();
        for _ in 0..MAX_JOB_SAMPLES {
            assert!(b.admit(0, 0, 0));
        }
        assert!(!b.admit(0, 0, 0));
        assert_eq!(b.crossed(), Some(&Limit::Samples));
        assert_eq!(
            Limit::Samples.error(),
            crate::format::results::sample_limit_error()
        );
    }

    #[test]
    fn bytes_count_what_a_line_holds_not_its_length() {
        let metrics: Vec<String> = (0..500).map(|i| format!("\"m{i}\":1")).collect();
        let text = format!("{{\"rate\":1,\"metrics\":{{{}}}}}", metrics.join(","));
        let line = parse_line(&text).unwrap().unwrap();
        let held = result_line_bytes(&line);
        assert!(held > 500 * size_of::<crate::format::result_lines::ReportedMetric>());
        assert!(
            held > 4 * text.len(),
            "{held} bytes for a line of {}",
            text.len()
        );
        let r = crate::format::result_lines::node::parse_result_line("a.js s=\"xyz\": 1").unwrap();
        assert!(report_bytes(&r) >= size_of::<Report>() + "s='xyz'".len() + 4);
    }
}
