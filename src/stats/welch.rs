//! Welch's two-sample t-test, as R's `t.test(x, y)` (default `var.equal = FALSE`) computes it,
//! and the figures compare.R derives from it.
//!
//! Formulas (R `stats:::t.test.default`; Welch 1947; Satterthwaite 1946):
//! - `SE = sqrt(var_old/n_old + var_new/n_new)` with sample variances (n − 1 denominator);
//! - `t = (mean_new − mean_old) / SE`;
//! - Welch–Satterthwaite degrees of freedom
//!   `df = SE⁴ / ((var_old/n_old)²/(n_old−1) + (var_new/n_new)²/(n_new−1))`;
//! - two-sided `p = 2·P(T_df > |t|)`.
//!
//! Scale invariance: samples are first divided by a power of two near their largest
//! magnitude (an exact operation), so rates near 1e300 or 1e-300 give the same t, df and p as
//! the same samples scaled to 1, where R overflows (t = 0, df = NaN) or stops with
//! "data are essentially constant".

use super::tdist;

/// Why a Welch test has no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WelchError {
    /// A side has fewer than 2 samples (compare.R prints the `NA` row).
    TooFewSamples,
    /// Both sides are (essentially) constant: the standard error is below
    /// `10·ε·max(|mean_old|, |mean_new|)`, the rule with which R's `t.test` stops.
    EssentiallyConstant,
    /// A sample is NaN or infinite.
    NotFinite,
}

impl std::fmt::Display for WelchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WelchError::TooFewSamples => "fewer than 2 samples on a side",
            WelchError::EssentiallyConstant => {
                "data are essentially constant (the standard error is negligible against the means; \
                 R's t.test stops here)"
            }
            WelchError::NotFinite => "a rate is NaN or infinite",
        })
    }
}

/// The result of Welch's test of `new` against `old`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// t statistic `(mean_new − mean_old)/SE` (unitless).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value in [0, 1].
    pub p_value: f64,
    /// Standard error of the mean difference relative to the old mean, `SE / mean_old`
    /// (a fraction, not percent; negative if the old mean is negative).
    pub se_rel: f64,
}

impl Welch {
    /// Half-width of the two-sided `1 − risk` confidence interval of the mean difference, in
    /// percent of the old mean: `qt(1 − risk/2, df) · SE / mean_old · 100` (compare.R's
    /// "accuracy" column; risk 0.05, 0.01, 0.001 give the `(*)`, `(**)`, `(***)` columns).
    pub fn accuracy_pct(&self, risk: f64) -> f64 {
        tdist::qt(1.0 - risk / 2.0, self.df) * self.se_rel * 100.0
    }
}

/// Mean and sample variance of `x / scale`, with R's two-pass mean refinement.
/// Returns `(mean, variance)`; variance is NaN for fewer than 2 values.
pub fn scaled_mean_var(x: &[f64], scale: f64) -> (f64, f64) {
    let n = x.len() as f64;
    if x.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mut m = x.iter().map(|v| v / scale).sum::<f64>() / n;
    if m.is_finite() {
        m += x.iter().map(|v| v / scale - m).sum::<f64>() / n;
    }
    if x.len() < 2 {
        return (m, f64::NAN);
    }
    let ss: f64 = x.iter().map(|v| (v / scale - m).powi(2)).sum();
    (m, ss / (n - 1.0))
}

/// An exact power-of-two scale near the largest finite magnitude in the samples (1 if none).
pub fn common_scale(a: &[f64], b: &[f64]) -> f64 {
    let max = a
        .iter()
        .chain(b)
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    if max == 0.0 || !max.is_finite() {
        return 1.0;
    }
    let e = max.log2().floor() as i32;
    // 2^e for e in the normal range (subnormal maxima are scaled in two steps).
    let e = e.clamp(-1022, 1023);
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Relative change of the means in percent, `(mean(new) − mean(old)) / mean(old) · 100`
/// (compare.R's "improvement"). NaN when a side is empty, ±Inf when the old mean is 0.
pub fn improvement_pct(old: &[f64], new: &[f64]) -> f64 {
    let s = common_scale(old, new);
    let (mo, _) = scaled_mean_var(old, s);
    let (mn, _) = scaled_mean_var(new, s);
    (mn - mo) / mo * 100.0
}

/// Welch's two-sided t-test of `new` against `old` (samples in any unit, e.g. ops/s).
///
/// # Errors
/// [`WelchError::TooFewSamples`] if a side has fewer than 2 samples,
/// [`WelchError::NotFinite`] if a sample is NaN or infinite,
/// [`WelchError::EssentiallyConstant`] under R's zero-variance rule.
pub fn welch(old: &[f64], new: &[f64]) -> Result<Welch, WelchError> {
    let (t, df, se_rel) = welch_t(old, new)?;
    Ok(Welch {
        t,
        df,
        p_value: tdist::two_sided_p(t, df),
        se_rel,
    })
}

/// [`welch`] without the p-value (the costly part: an incomplete beta): `(t, df, se_rel)`,
/// the fields of [`Welch`] of the same name, with the same errors.
///
/// # Errors
/// As [`welch`].
pub fn welch_t(old: &[f64], new: &[f64]) -> Result<(f64, f64, f64), WelchError> {
    if old.len() < 2 || new.len() < 2 {
        return Err(WelchError::TooFewSamples);
    }
    if old.iter().chain(new).any(|v| !v.is_finite()) {
        return Err(WelchError::NotFinite);
    }
    let s = common_scale(old, new);
    let (mo, vo) = scaled_mean_var(old, s);
    let (mn, vn) = scaled_mean_var(new, s);
    let (no, nn) = (old.len() as f64, new.len() as f64);
    let se2_o = vo / no;
    let se2_n = vn / nn;
    let se = (se2_o + se2_n).sqrt();
    if se < 10.0 * f64::EPSILON * mo.abs().max(mn.abs()) {
        return Err(WelchError::EssentiallyConstant);
    }
    let t = (mn - mo) / se;
    let df = se.powi(4) / (se2_o.powi(2) / (no - 1.0) + se2_n.powi(2) / (nn - 1.0));
    Ok((t, df, se / mo))
}

/// [`welch`] from each side's summary statistics `[mean, sd, n]` (sample standard deviation,
/// n − 1 denominator) instead of its samples: the same `t = (mean_new − mean_old)/SE`,
/// `SE² = sd_old²/n_old + sd_new²/n_new` and Welch–Satterthwaite `df` (Welch 1947), for
/// harnesses that report a mean, a standard deviation and a count but no samples.
///
/// # Errors
/// As [`welch`]: a side summarises fewer than 2 samples, a figure is not finite, or the
/// standard error is negligible against the means.
pub fn welch_summary(old: [f64; 3], new: [f64; 3]) -> Result<Welch, WelchError> {
    let [mo, so, no] = old;
    let [mn, sn, nn] = new;
    if no < 2.0 || nn < 2.0 {
        return Err(WelchError::TooFewSamples);
    }
    if old.iter().chain(&new).any(|v| !v.is_finite()) {
        return Err(WelchError::NotFinite);
    }
    let se2_o = so * so / no;
    let se2_n = sn * sn / nn;
    let se = (se2_o + se2_n).sqrt();
    if se < 10.0 * f64::EPSILON * mo.abs().max(mn.abs()) {
        return Err(WelchError::EssentiallyConstant);
    }
    let t = (mn - mo) / se;
    let df = se.powi(4) / (se2_o.powi(2) / (no - 1.0) + se2_n.powi(2) / (nn - 1.0));
    Ok(Welch {
        t,
        df,
        p_value: tdist::two_sided_p(t, df),
        se_rel: se / mo,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_example() {
        // R: t.test(c(2,4,6,8,10), 1:5): t = 1.8974, df = 5.8824, p = 0.1075311949
        let w = welch(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap();
        assert!((w.t - 1.897_366_596).abs() < 1e-9);
        assert!((w.df - 5.882_352_941).abs() < 1e-8);
        assert!((w.p_value - 0.107_531_194_9).abs() < 1e-9);
    }

    #[test]
    fn constant_and_small() {
        assert_eq!(welch(&[1.0], &[1.0, 2.0]), Err(WelchError::TooFewSamples));
        assert_eq!(
            welch(&[3.0, 3.0], &[3.0, 3.0]),
            Err(WelchError::EssentiallyConstant)
        );
        assert_eq!(
            welch(&[1.0, f64::NAN], &[1.0, 2.0]),
            Err(WelchError::NotFinite)
        );
    }

    #[test]
    fn scale_invariant_at_extremes() {
        let base_old = [1.0, 1.1, 0.9];
        let base_new = [1.2, 1.3, 1.25];
        let w1 = welch(&base_old, &base_new).unwrap();
        for k in [1e300, 1e-300, 1e-310] {
            let o: Vec<f64> = base_old.iter().map(|v| v * k).collect();
            let n: Vec<f64> = base_new.iter().map(|v| v * k).collect();
            let w = welch(&o, &n).unwrap();
            assert!(
                (w.t - w1.t).abs() < 1e-9 * w1.t.abs(),
                "{k}: {w:?} vs {w1:?}"
            );
            assert!((w.df - w1.df).abs() < 1e-9 * w1.df);
            assert!((w.p_value - w1.p_value).abs() < 1e-9 * w1.p_value);
        }
        assert!((w1.t - 3.873).abs() < 1e-3 && (w1.df - 2.9412).abs() < 1e-4);
        assert!((w1.p_value - 0.03156).abs() < 1e-5);
    }
}
