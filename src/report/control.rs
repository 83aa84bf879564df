//! The A/A control of a report (`compare --control`): the control comparison (old against the
//! old build run again, [`SampleSet::control_view`]) goes through the same grouping, pairing,
//! assessment, threshold and correction as the report's own rows, as its own family
//! ([`crate::verdict::control`]), and `--fail-on-control` fails the gate when it is flagged.

use super::{EXIT_FAILED, Messages, Plan};
use crate::sample::{MetricId, SampleSet};
use crate::verdict::control::{self, Control};
use crate::verdict::decide::{self, Decidable, Options};

/// The control of the report's `real` assessments (in report order) of `metric`, when `set`
/// has control samples and the report assessed its rows; `None` otherwise (with a warning when
/// `--fail-on-control` was asked for samples without a control). With `blocks` (the machines
/// of a sharded run split by rounds, as the real rows) a control row estimated on two or more
/// machines takes the per-machine combination of its blocks' control comparisons
/// ([`decide::assess_combined`]), exactly as its real row does.
pub(super) fn analyse<T: Decidable>(
    set: &SampleSet,
    metric: MetricId,
    opts: &Options,
    real: Option<&[T]>,
    blocks: Option<&[(String, SampleSet)]>,
    plan: &Plan,
    out: &mut Messages,
) -> Option<Control> {
    let Some(view) = set.control_view() else {
        if plan.fail_on_control {
            out.warning(
                "--fail-on-control: these samples have no control side (run them with \
                 `benchdiff compare --control`); the control gate does not apply",
            );
        }
        return None;
    };
    let real = real?;
    let mut comparisons = crate::compare::group_metric(&view, metric);
    crate::compare::sort_by_name(&mut comparisons);
    let (both, _) = crate::compare::split_one_sided(comparisons);
    let rows = crate::verdict::rows_with(both, false);
    let views: Vec<(String, SampleSet)> = (blocks.unwrap_or_default().iter())
        .filter_map(|(label, b)| b.control_view().map(|v| (label.clone(), v)))
        .collect();
    let combined = super::combine(&views, &view.metric(metric).name, opts);
    drop(views);
    let assessed = if combined.is_empty() {
        decide::assess(rows, opts)
    } else {
        decide::assess_combined(rows, &combined, opts)
    };
    Some(control::summarise(real, &assessed, opts))
}

/// The control gate: [`EXIT_FAILED`] with its `FAIL:` line when `--fail-on-control` was asked
/// and the control is flagged; 0 otherwise.
pub(super) fn gate(control: Option<&Control>, plan: &Plan, out: &mut Messages) -> i32 {
    match control {
        Some(c) if plan.fail_on_control && c.flagged => {
            out.gate(format!("FAIL: {}", crate::render::control::line(c)));
            EXIT_FAILED
        }
        _ => 0,
    }
}
