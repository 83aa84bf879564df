//! Confidence interval for the ratio of two independent means, `mean(new)/mean(old)`, by
//! Fieller's theorem (Fieller 1954, J. R. Stat. Soc. B 16(2)) with Welch–Satterthwaite
//! degrees of freedom for the t quantile.
//!
//! With means `m_n`, `m_o`, squared standard errors `v_n = var_n/n_n`, `v_o = var_o/n_o` and
//! `q = qt(1 − α/2, df)`, the interval is the set of `r` with
//! `(m_n − r·m_o)² ≤ q²·(v_n + r²·v_o)`, the roots of
//! `(m_o² − q²v_o)·r² − 2·m_n·m_o·r + (m_n² − q²v_n) = 0`. It is bounded only when the old
//! mean is itself clearly non-zero (`m_o² > q²·v_o`); otherwise there is no finite interval.
//! Unlike compare.R's accuracy column (which divides the difference interval by the old mean
//! as if it were known exactly), it accounts for the uncertainty of the denominator.

use super::tdist;
use super::welch::{common_scale, scaled_mean_var};

/// Ratio of means with its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatioCi {
    /// `mean(new)/mean(old)` (1.05 = new is 5% higher).
    pub ratio: f64,
    /// Lower bound of the interval.
    pub lo: f64,
    /// Upper bound of the interval.
    pub hi: f64,
}

/// Interval of the ratio of geometric means `exp(mean(ln new) − mean(ln old))` at
/// `conf_level`: Welch's interval of the difference of the mean logarithms (Welch 1947,
/// Welch–Satterthwaite degrees of freedom), exponentiated. Its bounds are always positive, so
/// as a change in percent it never falls below −100 % — the scale for rates (ops/s) when
/// Fieller's interval is unbounded or reaches below zero, which happens with very few and
/// very spread samples. `ratio` is the ratio of geometric means.
///
/// Returns `None` unless both sides have at least 2 samples, all finite and positive.
pub fn log_ratio(old: &[f64], new: &[f64], conf_level: f64) -> Option<RatioCi> {
    if old.len() < 2 || new.len() < 2 || old.iter().chain(new).any(|v| !(v.is_finite() && *v > 0.0))
    {
        return None;
    }
    let stats = |x: &[f64]| {
        let n = x.len() as f64;
        let m = x.iter().map(|v| v.ln()).sum::<f64>() / n;
        let v = x.iter().map(|v| (v.ln() - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, v / n, n)
    };
    let (mo, so, no) = stats(old);
    let (mn, sn, nn) = stats(new);
    let d = mn - mo;
    let se2 = so + sn;
    if se2 == 0.0 {
        let r = d.exp();
        return Some(RatioCi {
            ratio: r,
            lo: r,
            hi: r,
        });
    }
    let df = se2.powi(2) / (so.powi(2) / (no - 1.0) + sn.powi(2) / (nn - 1.0));
    let q = tdist::qt(1.0 - (1.0 - conf_level) / 2.0, df);
    let h = q * se2.sqrt();
    Some(RatioCi {
        ratio: d.exp(),
        lo: (d - h).exp(),
        hi: (d + h).exp(),
    })
}

/// Fieller interval of `mean(new)/mean(old)` at `conf_level` (e.g. 0.95).
///
/// Returns `None` when a side has fewer than 2 samples, a value is not finite, or the
/// interval is unbounded (old mean not clearly different from zero).
pub fn fieller(old: &[f64], new: &[f64], conf_level: f64) -> Option<RatioCi> {
    if old.len() < 2 || new.len() < 2 || old.iter().chain(new).any(|v| !v.is_finite()) {
        return None;
    }
    let s = common_scale(old, new);
    let (mo, vo) = scaled_mean_var(old, s);
    let (mn, vn) = scaled_mean_var(new, s);
    fieller_of(
        [mo, vo, old.len() as f64],
        [mn, vn, new.len() as f64],
        conf_level,
    )
}

/// [`fieller`] from each side's summary statistics `[mean, sd, n]` (sample standard
/// deviation) instead of its samples: the same interval of the ratio of means, for harnesses
/// that report no samples. `None` as [`fieller`] (fewer than 2 samples a side, a figure not
/// finite, an unbounded interval).
pub fn fieller_summary(old: [f64; 3], new: [f64; 3], conf_level: f64) -> Option<RatioCi> {
    if old[2] < 2.0 || new[2] < 2.0 || old.iter().chain(&new).any(|v| !v.is_finite()) {
        return None;
    }
    // Scaled by the larger mean, as the samples are: the squares stay in range.
    let s = old[0].abs().max(new[0].abs());
    let s = if s > 0.0 { s } else { 1.0 };
    let side = |[m, sd, n]: [f64; 3]| [m / s, (sd / s).powi(2), n];
    fieller_of(side(old), side(new), conf_level)
}

/// Fieller's interval from each side's `[mean, variance, n]`.
fn fieller_of(old: [f64; 3], new: [f64; 3], conf_level: f64) -> Option<RatioCi> {
    let [mo, vo, no] = old;
    let [mn, vn, nn] = new;
    let (so, sn) = (vo / no, vn / nn);
    let ratio = mn / mo;
    let se2 = so + sn;
    if se2 == 0.0 {
        return Some(RatioCi {
            ratio,
            lo: ratio,
            hi: ratio,
        });
    }
    let df = se2.powi(2) / (so.powi(2) / (no - 1.0) + sn.powi(2) / (nn - 1.0));
    let q = tdist::qt(1.0 - (1.0 - conf_level) / 2.0, df);
    let q2 = q * q;
    let a = mo * mo - q2 * so;
    if a.is_nan() || a <= 0.0 {
        return None;
    }
    let b = -2.0 * mn * mo;
    let c = mn * mn - q2 * sn;
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return None;
    }
    let root = disc.sqrt();
    let (r1, r2) = ((-b - root) / (2.0 * a), (-b + root) / (2.0 * a));
    Some(RatioCi {
        ratio,
        lo: r1.min(r2),
        hi: r1.max(r2),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_ratio_and_is_scale_free() {
        let old = [100.0, 102.0, 98.0, 101.0, 99.0];
        let new = [110.0, 111.0, 109.0, 112.0, 108.0];
        let r = fieller(&old, &new, 0.95).unwrap();
        assert!(r.lo < r.ratio && r.ratio < r.hi);
        assert!((r.ratio - 1.1).abs() < 1e-12);
        let k = 1e-300;
        let o: Vec<f64> = old.iter().map(|v| v * k).collect();
        let n: Vec<f64> = new.iter().map(|v| v * k).collect();
        let r2 = fieller(&o, &n, 0.95).unwrap();
        assert!((r2.lo - r.lo).abs() < 1e-12 && (r2.hi - r.hi).abs() < 1e-12);
        // A noisy old mean near zero: no bounded interval.
        assert!(fieller(&[-1.0, 1.0, 0.5], &[1.0, 2.0, 3.0], 0.95).is_none());
    }

    #[test]
    fn log_ratio_stays_above_minus_100_percent_where_fieller_does_not() {
        let (old, new) = ([100.0, 101.0], [1.0, 1000.0]);
        let f = fieller(&old, &new, 0.95);
        assert!(f.is_none_or(|r| r.lo <= 0.0), "{f:?}");
        let l = log_ratio(&old, &new, 0.95).unwrap();
        assert!(l.lo > 0.0 && l.lo < l.ratio && l.ratio < l.hi, "{l:?}");
        assert!((l.ratio - (1000.0f64.sqrt() / (100.0f64 * 101.0).sqrt())).abs() < 1e-12);
        assert!(log_ratio(&[1.0, 0.0], &[1.0, 2.0], 0.95).is_none());
    }
}
