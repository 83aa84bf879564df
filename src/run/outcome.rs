//! What a `--runs auto` run did (either rule, Node files or commands), for the closing
//! summary on stderr: per configuration the runs it got and how it settled, and the runs
//! saved against `--max-runs`.

use crate::format::results::plan::{DecideRule, Rule, Settled, Status};
use crate::stats::sequential::Decision;

/// Per-configuration outcome of an adaptive run.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigRuns {
    /// Row name (`file configuration`).
    pub name: String,
    /// Samples of the old and the new binary.
    pub runs: [usize; 2],
    /// Round after which it settled, and why; `None` when it ran to `--max-runs`.
    pub settled: Option<(u32, Status)>,
}

/// What an adaptive run did, for the closing summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The rule.
    pub rule: Rule,
    /// `--stop decided`: its settings (`None`: the precision rule).
    pub decided: Option<DecideRule>,
    /// Rounds started.
    pub rounds: u32,
    /// Jobs run (after `--resume`: including the finished jobs replayed from the results file).
    pub jobs_run: usize,
    /// Jobs of the fixed schedule with `--max-runs` runs.
    pub jobs_max: usize,
    /// Sum of the jobs' wall seconds.
    pub wall_s: f64,
    /// Estimated wall seconds of the fixed schedule: per file, the mean wall time of its
    /// unrestricted jobs × 2 × `--max-runs` (files without such a job count their actual time).
    pub fixed_wall_estimate_s: f64,
    /// Every configuration, in the order first seen.
    pub configs: Vec<ConfigRuns>,
    /// The configurations that settled, by file and configuration (the report's run facts).
    pub settled_rows: Vec<Settled>,
}

impl Outcome {
    /// The closing lines printed on stderr after the report: per configuration the runs it got
    /// and when it settled, then the totals saved against `--max-runs`.
    pub fn summary_text(&self) -> String {
        let mut s = match &self.decided {
            Some(d) => format!(
                "benchdiff: adaptive runs (--stop decided: {} boundary, threshold ±{}%, family-wise \
                 α {}, Bonferroni over the rows; min {} / max {} runs):\n",
                d.method.name(),
                d.threshold_pct,
                d.alpha,
                self.rule.min_runs,
                self.rule.max_runs
            ),
            None => format!(
                "benchdiff: adaptive runs (target ±{}% at 95%, min {} / max {} runs):\n",
                self.rule.target_pct, self.rule.min_runs, self.rule.max_runs
            ),
        };
        for c in &self.configs {
            let how = describe(c.settled);
            s.push_str(&format!(
                "  {}: {}/{} runs, {how}\n",
                c.name, c.runs[0], c.runs[1]
            ));
        }
        let settled = self.configs.iter().filter(|c| c.settled.is_some()).count();
        let samples: usize = self.configs.iter().map(|c| c.runs[0] + c.runs[1]).sum();
        let max_samples = self.configs.len() * 2 * self.rule.max_runs as usize;
        let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
        s.push_str(&format!(
            "benchdiff: adaptive: {settled} of {} configurations settled before --max-runs; \
             {samples} of {max_samples} samples ({:.0}% saved); {} of {} jobs in {} rounds \
             ({:.0}% saved); job wall time {:.1} s against an estimated {:.1} s for --runs {} \
             (ratio {:.2}, {:.0}% saved)\n",
            self.configs.len(),
            pct(
                max_samples.saturating_sub(samples) as f64,
                max_samples as f64
            ),
            self.jobs_run,
            self.jobs_max,
            self.rounds,
            pct(
                self.jobs_max.saturating_sub(self.jobs_run) as f64,
                self.jobs_max as f64
            ),
            self.wall_s,
            self.fixed_wall_estimate_s,
            self.rule.max_runs,
            if self.fixed_wall_estimate_s > 0.0 {
                self.wall_s / self.fixed_wall_estimate_s
            } else {
                f64::NAN
            },
            pct(
                (self.fixed_wall_estimate_s - self.wall_s).max(0.0),
                self.fixed_wall_estimate_s
            ),
        ));
        s
    }
}

/// How a settled row is described in the stderr summary (`None`: ran to `--max-runs`).
pub fn describe(settled: Option<(u32, Status)>) -> String {
    match settled {
        Some((r, Status::Precise { half_width_pct })) => {
            format!("settled after round {r} at ±{half_width_pct:.2}% (precision)")
        }
        Some((r, Status::OneSided)) => format!("one binary only; stopped after round {r}"),
        Some((
            r,
            Status::Decided {
                decision,
                lo_pct,
                hi_pct,
                ..
            },
        )) => format!(
            "decided {} after round {r} (anytime-valid interval [{lo_pct:+.2}%, {hi_pct:+.2}%])",
            match decision {
                Decision::Faster => "faster",
                Decision::Slower => "slower",
                Decision::NoChange => "no change",
            }
        ),
        Some((
            r,
            Status::Futile {
                conditional_power,
                lo_pct,
                hi_pct,
            },
        )) => format!(
            "stopped after round {r}, undecided: {:.1}% chance of a decision by --max-runs \
             (futility; sequential interval [{lo_pct:+.2}%, {hi_pct:+.2}%])",
            100.0 * conditional_power
        ),
        Some((_, Status::Open)) | None => "ran to --max-runs".to_owned(),
    }
}
