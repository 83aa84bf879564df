//! How precisely samples pin down a mean, and how many samples a wanted precision needs.
//!
//! - [`cv_pct`]: coefficient of variation, `sd / |mean| · 100` with the `n − 1` sample standard
//!   deviation (R: `sd(x) / abs(mean(x)) * 100`).
//! - [`mean_ci`]: the 95% Student's t interval of one mean, `mean ± qt(0.975, n−1) · sd / √n`
//!   (R: `t.test(x)$conf.int`; Node's `benchmark/scatter.R` draws it with `confint`).
//! - [`half_width_pct`]: the half-width of the 95% Welch interval of `mean(new) − mean(old)`
//!   in percent of the old mean (compare.R's "accuracy (*)" column, see
//!   [`crate::stats::welch`]).
//! - [`runs_for_accuracy`]: the runs per side for which that half-width, for two sides with the
//!   same CV and size, is at most a target (the Welch interval with equal variances and sizes
//!   has `df = 2n − 2`, Welch 1947; the start value is the normal-approximation sample size
//!   `n = 2 (z · cv / target)²`, e.g. Cohen, *Statistical Power Analysis*, 1988).

use crate::stats::proportion;
use crate::stats::tdist;
use crate::stats::welch::{self, WelchError};

/// Coefficient of variation of `x` in percent: `sd / |mean| · 100`, with the `n − 1` sample
/// standard deviation. NaN for fewer than 2 values; infinite or NaN for a mean of 0.
pub fn cv_pct(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return f64::NAN;
    }
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
    v.sqrt() / m.abs() * 100.0
}

/// Mean and the half-width of its 95% interval, in the unit of the samples.
#[derive(Clone, Debug, PartialEq)]
pub struct MeanInterval {
    /// Finite samples used.
    pub n: usize,
    /// Their arithmetic mean (NaN without samples).
    pub mean: f64,
    /// Half-width of the 95% interval, `qt(0.975, n−1) · sd / √n` (NaN below 2 samples).
    pub half: f64,
}

/// The mean of the finite values of `values` with its 95% Student's t interval
/// `mean ± qt(0.975, n−1) · sd / √n` (R: `t.test(x)$conf.int`). Non-finite values are
/// skipped; below 2 values the half-width is NaN.
pub fn mean_ci(values: &[f64]) -> MeanInterval {
    let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let n = v.len();
    let mean = v.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return MeanInterval {
            n,
            mean,
            half: f64::NAN,
        };
    }
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let half = tdist::qt(0.975, (n - 1) as f64) * sd / (n as f64).sqrt();
    MeanInterval { n, mean, half }
}

/// Half-width of the 95% Welch interval of `mean(new) − mean(old)`, percent of `|mean(old)|`
/// (compare.R's "accuracy (*)": `qt(0.975, df) · SE / mean_old · 100`). `Some(0.0)` for
/// essentially constant data; `None` with fewer than 2 samples a side, non-finite samples or
/// an old mean of 0.
pub fn half_width_pct(old: &[f64], new: &[f64]) -> Option<f64> {
    match welch::welch(old, new) {
        Ok(w) => {
            let h = w.accuracy_pct(0.05).abs();
            h.is_finite().then_some(h)
        }
        Err(WelchError::EssentiallyConstant) => Some(0.0),
        Err(_) => None,
    }
}

/// Runs per side `n` so that `qt(0.975, 2n − 2) · cv · sqrt(2/n)` is at most `target_pct`,
/// for two sides with the same coefficient of variation `cv_pct` (both in percent). That is
/// the 95% half-width of a difference of two means of `n` samples each, relative to the mean
/// (the Welch interval with equal variances and sizes has df = 2n − 2). Starts from the normal
/// approximation `2 (z · cv / target)²` and steps to the exact smallest `n`. `None` above
/// 100,000 runs, for a non-finite CV or a target that is not above 0.
pub fn runs_for_accuracy(cv_pct: f64, target_pct: f64) -> Option<u64> {
    if !cv_pct.is_finite() || target_pct.is_nan() || target_pct <= 0.0 {
        return None;
    }
    if cv_pct == 0.0 {
        return Some(2);
    }
    let half = |n: f64| tdist::qt(0.975, 2.0 * n - 2.0) * cv_pct * (2.0 / n).sqrt();
    // Normal approximation first, then step to the exact smallest n.
    let z = proportion::Z95;
    let mut n = ((z * cv_pct / target_pct).powi(2) * 2.0).ceil().max(2.0);
    if n > 100_000.0 {
        return None;
    }
    while n > 2.0 && half(n - 1.0) <= target_pct {
        n -= 1.0;
    }
    while half(n) > target_pct {
        n += 1.0;
        if n > 100_000.0 {
            return None;
        }
    }
    Some(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_for_accuracy_inverts_the_half_width() {
        // CV 5%, target 2%: n = 50 gives qt(.975, 98)·5·sqrt(2/50) = 1.9845 ≤ 2, n = 49 gives
        // 2.0051 (R: qt(0.975, 96) * 5 * sqrt(2/49)).
        assert_eq!(runs_for_accuracy(5.0, 2.0), Some(50));
        assert_eq!(runs_for_accuracy(0.0, 2.0), Some(2));
        assert_eq!(runs_for_accuracy(f64::NAN, 2.0), None);
        assert_eq!(runs_for_accuracy(1000.0, 0.01), None);
    }

    #[test]
    fn t_interval_of_the_mean() {
        // R: t.test(c(1,2,3,4))$conf.int = 0.4457397 4.5542603
        let p = mean_ci(&[1.0, 2.0, 3.0, 4.0]);
        assert!((p.mean - 2.5).abs() < 1e-12);
        assert!((p.mean - p.half - 0.4457397).abs() < 1e-6, "{p:?}");
        assert!(mean_ci(&[1.0]).half.is_nan());
    }

    #[test]
    fn cv_of_known_values() {
        // R: sd(c(9, 10, 11)) / 10 * 100 = 10
        assert!((cv_pct(&[9.0, 10.0, 11.0]) - 10.0).abs() < 1e-12);
        assert!(cv_pct(&[1.0]).is_nan());
    }
}
