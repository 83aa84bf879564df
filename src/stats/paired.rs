//! Paired analysis of interleaved runs: the log-ratio of the new to the old rate within each
//! run (round of the schedule), tested with a one-sample t-test.
//!
//! When both binaries run once per round, slow drift of the machine (thermal state, other
//! load) moves both samples of a round alike; the per-round ratio cancels it. With
//! `d_i = ln(new_i / old_i)`: mean `d̄`, sample sd `s`, `t = d̄ / (s/√n)`, `df = n − 1`
//! (Student 1908), and the ratio of geometric means `exp(d̄)` with the interval
//! `exp(d̄ ± qt(1 − α/2, n − 1)·s/√n)`.

use super::tdist;

/// Result of the paired log-ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    /// Number of pairs (rounds with both sides measured).
    pub n: usize,
    /// Mean of `ln(new/old)` over the pairs (unitless).
    pub mean_log_ratio: f64,
    /// t statistic of the mean log-ratio against 0.
    pub t: f64,
    /// Degrees of freedom, `n − 1`.
    pub df: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Ratio of geometric means new/old, `exp(d̄)` (1.05 = new is 5% higher).
    pub ratio: f64,
    /// Two-sided confidence interval of that ratio at the requested level.
    pub ratio_ci: (f64, f64),
}

/// Paired test over `(old, new)` rate pairs at confidence `conf_level` (e.g. 0.95).
///
/// Returns `None` with fewer than 2 pairs or when any rate is not finite and positive (a
/// log-ratio needs positive rates). When every log-ratio is identical the spread is zero: the
/// interval collapses to the ratio and p is 0 for a non-zero mean, 1 for a zero mean.
pub fn paired_log_ratio(pairs: &[(f64, f64)], conf_level: f64) -> Option<Paired> {
    if pairs.len() < 2 {
        return None;
    }
    if pairs
        .iter()
        .any(|&(o, n)| !(o.is_finite() && n.is_finite() && o > 0.0 && n > 0.0))
    {
        return None;
    }
    let d: Vec<f64> = pairs.iter().map(|&(o, n)| (n / o).ln()).collect();
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (var / n).sqrt();
    let df = n - 1.0;
    let (t, p_value, half) = if se <= 4.0 * f64::EPSILON * mean.abs().max(f64::MIN_POSITIVE) {
        let p = if mean == 0.0 { 1.0 } else { 0.0 };
        (f64::INFINITY.copysign(mean), p, 0.0)
    } else {
        let t = mean / se;
        let q = tdist::qt(1.0 - (1.0 - conf_level) / 2.0, df);
        (t, tdist::two_sided_p(t, df), q * se)
    };
    Some(Paired {
        n: d.len(),
        mean_log_ratio: mean,
        t,
        df,
        p_value,
        ratio: mean.exp(),
        ratio_ci: ((mean - half).exp(), (mean + half).exp()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_cancels_in_pairs() {
        // The machine slows by 1% a round; new is 3% faster within every round.
        let pairs: Vec<(f64, f64)> = (0..20)
            .map(|i| {
                let base = 100.0 * (1.0 - 0.01 * i as f64);
                let wobble = 1.0 + 0.002 * ((i * 7 % 5) as f64 - 2.0);
                (base, base * 1.03 * wobble)
            })
            .collect();
        let p = paired_log_ratio(&pairs, 0.95).unwrap();
        assert!((p.ratio - 1.03).abs() < 0.002, "{p:?}");
        assert!(p.ratio_ci.0 > 1.02 && p.ratio_ci.1 < 1.04, "{p:?}");
        assert!(p.p_value < 1e-10);
    }

    #[test]
    fn one_sample_t_matches_r() {
        // R: t.test(log(c(1.1,0.95,1.2,1.05)/1))  -> t = 1.4135, df = 3, p-value = 0.2523
        let pairs = [(1.0, 1.1), (1.0, 0.95), (1.0, 1.2), (1.0, 1.05)];
        let p = paired_log_ratio(&pairs, 0.95).unwrap();
        assert!((p.t - 1.4135).abs() < 1e-3, "{p:?}");
        assert!((p.p_value - 0.2523).abs() < 1e-3, "{p:?}");
        assert!(paired_log_ratio(&[(1.0, 2.0)], 0.95).is_none());
        assert!(paired_log_ratio(&[(1.0, 2.0), (0.0, 1.0)], 0.95).is_none());
    }
}
