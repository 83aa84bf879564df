//! Confidence interval of a binomial proportion.
//!
//! [`wilson`]: Wilson's score interval (E. B. Wilson, "Probable inference, the law of
//! succession, and statistical inference", JASA 22 (1927) 209–212). For `k` successes in `n`
//! trials, `p̂ = k/n` and the normal quantile `z`:
//! `centre = (p̂ + z²/2n) / (1 + z²/n)`, `half = z / (1 + z²/n) · sqrt(p̂(1 − p̂)/n + z²/4n²)`.
//! Unlike the Wald interval `p̂ ± z·sqrt(p̂(1−p̂)/n)` it stays inside [0, 1] and does not
//! collapse to a point at `k = 0` or `k = n`; its coverage is close to nominal even for small
//! `n` (Brown, Cai & DasGupta, Statist. Sci. 16 (2001) 101–133). R: `prop.test(k, n,
//! correct = FALSE)$conf.int`.

/// The 97.5% standard normal quantile (two-sided 95%): `qnorm(0.975)`.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson's score interval `(low, high)` for `k` successes in `n` trials at normal quantile
/// `z` (use [`Z95`] for 95%). Both ends are proportions in [0, 1]; `(NaN, NaN)` when `n = 0`
/// or `k > n`.
pub fn wilson(k: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 || k > n {
        return (f64::NAN, f64::NAN);
    }
    let n = n as f64;
    let p = k as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_r_prop_test() {
        // R: prop.test(1, 20, correct = FALSE)$conf.int -> 0.008881449 0.236131193
        let (lo, hi) = wilson(1, 20, Z95);
        assert!((lo - 0.008_881_449).abs() < 1e-8, "{lo}");
        assert!((hi - 0.236_131_193).abs() < 1e-8, "{hi}");
        // R: prop.test(0, 10, correct = FALSE)$conf.int -> 0.0000000 0.2775328
        let (lo, hi) = wilson(0, 10, Z95);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.277_532_8).abs() < 1e-7, "{hi}");
        assert!(wilson(1, 0, Z95).0.is_nan());
    }
}
