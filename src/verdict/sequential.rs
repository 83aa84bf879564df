//! The verdicts of a `--runs auto --stop decided` run: rows its sequential rule settled get
//! the verdict and interval of how the run stopped, not of a fixed-sample test.
//!
//! A fixed-sample t-test (and Holm's correction) after a data-dependent stop is not valid:
//! stopping when the data look good makes "significant" too easy. So a report of such a run
//! takes, for each settled row of the rate,
//! - **decided** faster / slower / no change: that decision, and the anytime-valid interval
//!   it settled on ([`crate::stats::sequential`]) as the row's interval;
//! - **stopped for futility**: inconclusive, whatever the fixed-sample test says (the rule
//!   stopped it because it could almost surely not be decided by `--max-runs`).
//!
//! Rows that ran to `--max-runs` keep the fixed-sample analysis, as in a fixed run. Other
//! metrics than the rate keep theirs (the rule looked at the rate only).

use crate::format::results::plan::{Settled, Status};
/// What a sequential rule decided about a comparison.
pub use crate::stats::sequential::Decision;
use crate::verdict::decide::{Decidable, Verdict};

/// Marks the decided comparisons `rows` of the rate with the rows a sequential rule settled
/// (`settled`, matched by `file + ' ' + configuration` to the comparison's name): see the
/// module docs. Returns how many rows changed verdict or interval. Comparisons of another
/// metric keep their analysis: the caller applies this to the rate's only.
pub fn apply<T: Decidable>(rows: &mut [T], settled: &[Settled]) -> usize {
    if settled.is_empty() {
        return 0;
    }
    let by_name: std::collections::HashMap<String, &Status> = settled
        .iter()
        .map(|s| {
            (
                format!("{} {}", s.file, s.configuration)
                    .trim_end()
                    .to_owned(),
                &s.status,
            )
        })
        .collect();
    let mut changed = 0;
    for a in rows.iter_mut() {
        let Some(status) = by_name.get(a.name().trim_end()) else {
            continue;
        };
        match **status {
            Status::Decided {
                decision,
                lo_pct,
                hi_pct,
                ..
            } => {
                let verdict = match decision {
                    Decision::Faster => Verdict::Faster,
                    Decision::Slower => Verdict::Slower,
                    Decision::NoChange => Verdict::NoChange,
                };
                a.settle(verdict, Some((lo_pct, hi_pct)));
                changed += 1;
            }
            Status::Futile { .. } if !matches!(a.verdict(), Verdict::Inconclusive { .. }) => {
                a.settle(Verdict::Inconclusive { runs_needed: None }, None);
                changed += 1;
            }
            _ => {}
        }
    }
    changed
}
