//! The A/A control arm (`compare --control`): what the control comparison (old against the old
//! build run again as its own side, [`crate::sample::Side::Control`]) says about each row and
//! about the suite.
//!
//! The control rows are assessed exactly as the real ones ([`super::decide::assess`] with the
//! report's options: same pairing, method, threshold and α), corrected as **their own family**
//! with the same correction. Two rules read them:
//!
//! - **Per row** ([`ControlRow::clear`]): a real row called `faster` or `slower` *stands clear*
//!   of its control when the control's change lies outside the real change's interval. The
//!   identical build measured a change the real interval cannot tell apart from the real one
//!   otherwise, and the verdict is qualified ("within control").
//! - **Per suite** ([`Control::flagged`]): `k` of the `m` control rows are called changed
//!   (`faster` or `slower`). Under identical builds the report promises, after a family-wise
//!   correction (Holm; Benjamini–Hochberg, whose false discovery rate equals the family-wise
//!   error when every hypothesis is null), at most α expected false calls in the whole family
//!   (Bonferroni's inequality), i.e. a rate of `α / m` per row; without a correction, `α` per
//!   row. The control is *flagged* when the 95% Wilson score interval of `k / m`
//!   ([`crate::stats::proportion::wilson`]; Wilson 1927) lies entirely above that rate: the
//!   machine called identical builds changed more often than the report's α allows.

use super::decide::{Assessment, Correction, Decidable, Options, Verdict};
use crate::stats::proportion::{Z95, wilson};

/// The control of one real row: the control comparison with the same name and metric.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlRow {
    /// The control's change (control against old), percent, as [`Assessment::change_pct`].
    pub change_pct: f64,
    /// Its 95% interval, percent; `None` when it cannot be bounded.
    pub change_ci_pct: Option<(f64, f64)>,
    /// The control's own verdict (corrected in the control family).
    pub verdict: Verdict,
    /// For a real row called `faster`/`slower`: whether it stands clear of its control (the
    /// control's change outside the real interval). `None` for other verdicts.
    pub clear: Option<bool>,
}

impl ControlRow {
    /// True when the real row's verdict is `faster`/`slower` but not clear of its control.
    pub fn qualifies(&self) -> bool {
        self.clear == Some(false)
    }
}

/// The control of a report: per real row and for the suite.
#[derive(Clone, Debug, PartialEq)]
pub struct Control {
    /// One entry per real assessment, in report order (`None`: no control samples for it).
    pub rows: Vec<Option<ControlRow>>,
    /// Control rows called changed (`faster` or `slower`).
    pub called: usize,
    /// Control rows assessed.
    pub compared: usize,
    /// 95% Wilson interval of `called / compared` (NaN when nothing was compared).
    pub rate_ci: (f64, f64),
    /// The report's α.
    pub alpha: f64,
    /// The report's correction (the control family uses it too).
    pub correction: Correction,
    /// The rate of identical-build rows called changed the report promises per row: `α / m`
    /// after a correction, `α` without one.
    pub promised_rate: f64,
    /// The rate's interval lies above `promised_rate`: the machine is too noisy to trust.
    pub flagged: bool,
}

/// True for `faster` and `slower`.
pub fn called_changed(v: Verdict) -> bool {
    matches!(v, Verdict::Faster | Verdict::Slower)
}

/// Whether a real assessment stands clear of its control's change (see the module notes):
/// `None` unless the real verdict is `faster`/`slower`; `Some(false)` when its interval is
/// unknown or holds the control's change.
pub fn stands_clear<T: Decidable>(real: &T, control_change_pct: f64) -> Option<bool> {
    if !called_changed(real.verdict()) {
        return None;
    }
    Some(match real.estimate().change_ci_pct {
        Some((lo, hi)) => !(lo..=hi).contains(&control_change_pct),
        None => false,
    })
}

/// The suite's figures of `called` of `compared` control rows under `opts` (see the module
/// notes for the rule).
pub fn suite(called: usize, compared: usize, opts: &Options) -> (f64, (f64, f64), bool) {
    let promised = match opts.correction {
        Correction::None => opts.alpha,
        _ => opts.alpha / compared.max(1) as f64,
    };
    let ci = wilson(called as u64, compared as u64, Z95);
    let flagged = compared > 0 && ci.0 > promised;
    (promised, ci, flagged)
}

/// The control of `real` (the report's decided comparisons of one metric, in report order)
/// from the control family's assessments `control` of the same metric (assessed with the
/// same `opts`), matched by comparison name.
pub fn summarise<T: Decidable>(real: &[T], control: &[Assessment], opts: &Options) -> Control {
    let index: std::collections::HashMap<&str, &Assessment> = control
        .iter()
        .map(|a| (a.row.comparison.name.as_str(), a))
        .collect();
    let rows = real
        .iter()
        .map(|a| {
            index.get(a.name()).map(|k| ControlRow {
                change_pct: k.change_pct,
                change_ci_pct: k.change_ci_pct,
                verdict: k.verdict,
                clear: stands_clear(a, k.change_pct),
            })
        })
        .collect();
    let called = control.iter().filter(|a| called_changed(a.verdict)).count();
    let (promised_rate, rate_ci, flagged) = suite(called, control.len(), opts);
    Control {
        rows,
        called,
        compared: control.len(),
        rate_ci,
        alpha: opts.alpha,
        correction: opts.correction,
        promised_rate,
        flagged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_call_in_a_corrected_family_flags_the_machine() {
        let o = Options::default();
        let (promised, ci, flagged) = suite(0, 20, &o);
        assert!((promised - 0.0025).abs() < 1e-12);
        assert_eq!(ci.0, 0.0);
        assert!(!flagged);
        let (_, ci, flagged) = suite(1, 20, &o);
        assert!(ci.0 > 0.0025 && flagged);
        let none = Options {
            correction: Correction::None,
            ..Options::default()
        };
        // Without a correction α per row is allowed: 1 of 20 is not above it, 8 of 20 is.
        assert!(!suite(1, 20, &none).2);
        assert!(suite(8, 20, &none).2);
        assert!(!suite(0, 0, &o).2);
    }
}
