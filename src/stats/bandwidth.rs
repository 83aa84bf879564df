//! The bandwidth of a Gaussian kernel density estimate by Silverman's rule of thumb,
//! `h = 0.9 · min(s, IQR/1.34) · n^(−1/5)` (B. W. Silverman 1986, *Density Estimation for
//! Statistics and Data Analysis*, eq. 3.31), `s` the sample standard deviation and `IQR` the
//! type-7 interquartile range; when `IQR = 0` the rule uses `s` alone (as R's `bw.nrd0`).
//! The report's density plots use it ([`crate::verdict::density`]).

use super::quantile::quantile7;

/// Silverman's rule-of-thumb bandwidth `0.9 · min(s, IQR/1.34) · n^(−1/5)` (Silverman 1986,
/// eq. 3.31), in the units of the samples.
///
/// `IQR` is the type-7 interquartile range; when it is 0 the rule uses the standard deviation
/// `s` alone. `None` for fewer than 2 values, any NaN or infinite value, or a constant sample
/// (no spread: the density is a single spike).
pub fn silverman_bandwidth(x: &[f64]) -> Option<f64> {
    if x.len() < 2 || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let scale = super::dip::pow2_scale(x);
    let mut v: Vec<f64> = x.iter().map(|a| a / scale).collect();
    v.sort_by(f64::total_cmp);
    silverman_sorted(&v).map(|h| h * scale)
}

/// Silverman's bandwidth of sorted finite values of magnitude at most ~1.
fn silverman_sorted(v: &[f64]) -> Option<f64> {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let iqr = quantile7(v, 0.75) - quantile7(v, 0.25);
    let spread = if iqr > 0.0 { sd.min(iqr / 1.34) } else { sd };
    let h = 0.9 * spread * n.powf(-0.2);
    (h > 0.0 && h.is_finite()).then_some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silverman_rule_by_hand() {
        // 1..=5: s = √2.5 = 1.5811, IQR = 4 − 2 = 2 → 2/1.34 = 1.4925; h = 0.9·1.4925·5^(−0.2).
        let h = silverman_bandwidth(&[3.0, 1.0, 2.0, 5.0, 4.0]).unwrap_or(f64::NAN);
        let want = 0.9 * (2.0 / 1.34) * 5f64.powf(-0.2);
        assert!((h - want).abs() < 1e-12, "{h} vs {want}");
        assert_eq!(silverman_bandwidth(&[2.0, 2.0, 2.0]), None);
        assert_eq!(silverman_bandwidth(&[2.0]), None);
        assert_eq!(silverman_bandwidth(&[2.0, f64::NAN]), None);
        // IQR = 0 but s > 0: s alone.
        let x = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 9.0];
        let h = silverman_bandwidth(&x).unwrap_or(f64::NAN);
        let s = (64.0 * 7.0 / 8.0 / 7.0f64).sqrt();
        assert!((h - 0.9 * s * 8f64.powf(-0.2)).abs() < 1e-12);
    }
}
