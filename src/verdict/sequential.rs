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
//! metrics than the rate keep theirs (the rule looked at the rate only), except the time of
//! commands timed as whole processes, whose rate is 1 / time: their rows read the same
//! decisions with the interval turned into the time's ([`as_time`]).

use crate::format::results::plan::{Settled, Status};
/// What a sequential rule decided about a comparison.
pub use crate::stats::sequential::Decision;
use crate::verdict::decide::{Decidable, Verdict};

/// The rows `settled` as they read for a time `t` whose rate `1/t` the rule settled them on
/// (a command timed as a whole process, reported by its `wall`): each status as
/// [`status_as_time`] turns it.
pub fn as_time(settled: &[Settled]) -> Vec<Settled> {
    settled
        .iter()
        .map(|s| Settled {
            status: status_as_time(s.status),
            ..s.clone()
        })
        .collect()
}

/// A status the rule reached on a rate `1/t`, as it reads for the time `t`: the same decision
/// (faster stays faster: a higher rate is a lower time), each interval `[lo, hi]` of the
/// rate's percent change `r` turned into the time's, `100·(1/(1 + r/100) − 1)`, bounds
/// swapped. Other statuses are returned as they are.
pub fn status_as_time(mut status: Status) -> Status {
    let time = |r: f64| 100.0 * (1.0 / (1.0 + r / 100.0) - 1.0);
    if let Status::Decided { lo_pct, hi_pct, .. } | Status::Futile { lo_pct, hi_pct, .. } =
        &mut status
    {
        (*lo_pct, *hi_pct) = (time(*hi_pct), time(*lo_pct));
    }
    status
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A rate's change r% is the time's 1/(1 + r/100) − 1: −50% of the rate is +100% of the
    /// time, the bounds swap, the decision stays.
    #[test]
    fn rate_intervals_read_as_time_intervals() {
        let st = status_as_time(Status::Decided {
            decision: Decision::Slower,
            lo_pct: -50.0,
            hi_pct: -20.0,
            row_alpha: 0.05,
            rows: 1,
        });
        let Status::Decided {
            decision,
            lo_pct,
            hi_pct,
            ..
        } = st
        else {
            panic!("still decided: {st:?}");
        };
        assert_eq!(decision, Decision::Slower);
        assert!(
            (lo_pct - 25.0).abs() < 1e-9 && (hi_pct - 100.0).abs() < 1e-9,
            "{st:?}"
        );
        assert_eq!(status_as_time(Status::Open), Status::Open);
    }
}
