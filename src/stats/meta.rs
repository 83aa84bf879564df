//! Combining per-machine estimates (meta-analysis): when a run is spread over several
//! machines (`--shard K/N --split runs`), each machine is a block, analysed on its own, and
//! the per-machine estimates of one effect (a log-ratio new/old, unitless) are combined here.
//! Raw samples of different machines are never pooled: the machines' different speeds would
//! count as noise.
//!
//! For `k` estimates `yᵢ` with (squared standard error) variances `vᵢ`:
//! - **fixed effect / inverse-variance** (Hedges & Olkin 1985; Borenstein et al. 2009, ch. 11):
//!   `wᵢ = 1/vᵢ`, `μ̂ = Σwᵢyᵢ / Σwᵢ`, `Var(μ̂) = 1/Σwᵢ`;
//! - **Cochran's Q** (Cochran 1954): `Q = Σwᵢ(yᵢ − μ̂)²`, χ² with `k − 1` degrees of freedom
//!   when every machine measures the same effect;
//! - **I²** (Higgins & Thompson 2002, Stat. Med. 21:1539): `I² = max(0, (Q − (k−1))/Q)`, the
//!   share of the spread of the estimates due to real differences between machines (percent);
//! - **DerSimonian–Laird** (DerSimonian & Laird 1986, Control. Clin. Trials 7:177): the
//!   between-machine variance `τ² = max(0, (Q − (k−1)) / (Σwᵢ − Σwᵢ²/Σwᵢ))` and the
//!   random-effects estimate with `wᵢ* = 1/(vᵢ + τ²)`; with `τ² = 0` it equals the fixed effect;
//! - **externally studentised residuals** (Viechtbauer & Cheung 2010, Res. Synth. Methods 1:112,
//!   metafor's `rstudent`): machine `i` against the random-effects fit of the others,
//!   `zᵢ = (yᵢ − μ̂₍₋ᵢ₎) / √(vᵢ + τ²₍₋ᵢ₎ + Var(μ̂₍₋ᵢ₎))`, which names the outlying machine(s).
//!
//! Reference values (metafor's `dat.bcg`, log risk ratios: DL `τ² = 0.3088`, `μ̂ = −0.7141`,
//! SE 0.1787, Q = 152.2330, I² = 92.12%) are checked in `tests/stats/meta.rs`.

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

/// A fixed- or random-effects summary of `k` estimates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pooled {
    /// The combined estimate (same unit as the inputs, e.g. a log-ratio).
    pub estimate: f64,
    /// Its standard error.
    pub se: f64,
}

impl Pooled {
    /// `estimate ± q·se` for a quantile `q` (1.96 for a 95% normal interval).
    pub fn interval(&self, q: f64) -> (f64, f64) {
        (self.estimate - q * self.se, self.estimate + q * self.se)
    }

    /// Two-sided p-value of `estimate = 0` against the standard normal (metafor's default
    /// `test = "z"`).
    pub fn p_value(&self) -> f64 {
        if self.se == 0.0 {
            return if self.estimate == 0.0 { 1.0 } else { 0.0 };
        }
        let z = (self.estimate / self.se).abs();
        2.0 * (1.0 - Normal::standard().cdf(z))
    }
}

/// Everything [`combine`] finds about `k` estimates.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// Number of estimates combined.
    pub k: usize,
    /// Fixed-effect (inverse-variance) summary.
    pub fixed: Pooled,
    /// DerSimonian–Laird random-effects summary (equals `fixed` when `tau2` is 0).
    pub random: Pooled,
    /// Cochran's Q.
    pub q: f64,
    /// p-value of Q against χ² with `k − 1` degrees of freedom (NaN for `k = 1`).
    pub q_p_value: f64,
    /// Higgins & Thompson's I², percent in [0, 100] (0 for `k = 1`).
    pub i2_pct: f64,
    /// DerSimonian–Laird between-estimate variance τ² (squared unit of the inputs).
    pub tau2: f64,
    /// Externally studentised residual of each estimate (NaN for `k < 3`: the others cannot
    /// estimate a spread), in input order.
    pub studentized: Vec<f64>,
}

/// The fixed-effect (inverse-variance) summary of `y` with variances `v`.
/// `None` when the slices are empty, differ in length, or hold a non-finite value or a
/// variance ≤ 0.
pub fn fixed_effect(y: &[f64], v: &[f64]) -> Option<Pooled> {
    with_tau2(y, v, 0.0)
}

/// The random-effects summary for a given `tau2` (weights `1/(vᵢ + τ²)`); `tau2 = 0` is the
/// fixed effect. `None` for unusable input (see [`fixed_effect`]).
pub fn with_tau2(y: &[f64], v: &[f64], tau2: f64) -> Option<Pooled> {
    if y.is_empty() || y.len() != v.len() || !valid(y, v) || tau2.is_nan() || tau2 < 0.0 {
        return None;
    }
    let mut sw = 0.0;
    let mut swy = 0.0;
    for (yi, vi) in y.iter().zip(v) {
        let w = 1.0 / (vi + tau2);
        sw += w;
        swy += w * yi;
    }
    Some(Pooled {
        estimate: swy / sw,
        se: (1.0 / sw).sqrt(),
    })
}

fn valid(y: &[f64], v: &[f64]) -> bool {
    y.iter().all(|x| x.is_finite()) && v.iter().all(|x| x.is_finite() && *x > 0.0)
}

/// Cochran's Q of `y` around its fixed-effect estimate, and the DerSimonian–Laird τ².
/// `None` for unusable input (see [`fixed_effect`]).
pub fn q_and_tau2(y: &[f64], v: &[f64]) -> Option<(f64, f64)> {
    let fe = fixed_effect(y, v)?;
    let w: Vec<f64> = v.iter().map(|x| 1.0 / x).collect();
    let sw: f64 = w.iter().sum();
    let sw2: f64 = w.iter().map(|x| x * x).sum();
    let q: f64 = w
        .iter()
        .zip(y)
        .map(|(wi, yi)| wi * (yi - fe.estimate).powi(2))
        .sum();
    let df = (y.len() - 1) as f64;
    let c = sw - sw2 / sw;
    let tau2 = if c > 0.0 {
        ((q - df) / c).max(0.0)
    } else {
        0.0
    };
    Some((q, tau2))
}

/// Higgins & Thompson's I² in percent for Cochran's `q` over `k` estimates:
/// `max(0, (Q − (k−1))/Q) · 100` (0 when `Q` is 0).
pub fn i_squared(q: f64, k: usize) -> f64 {
    if q <= 0.0 || k < 2 {
        return 0.0;
    }
    ((q - (k - 1) as f64) / q).max(0.0) * 100.0
}

/// p-value of Cochran's `q` against χ² with `k − 1` degrees of freedom (NaN for `k < 2`).
pub fn q_p_value(q: f64, k: usize) -> f64 {
    if k < 2 || !q.is_finite() {
        return f64::NAN;
    }
    match ChiSquared::new((k - 1) as f64) {
        Ok(chi) => (1.0 - chi.cdf(q.max(0.0))).clamp(0.0, 1.0),
        Err(_) => f64::NAN,
    }
}

/// Fixed effect, Q, I², DerSimonian–Laird τ² and random effect, and the externally
/// studentised residuals of `k` estimates `y` with variances `v` (see the module notes).
/// `None` for unusable input (see [`fixed_effect`]).
pub fn combine(y: &[f64], v: &[f64]) -> Option<Meta> {
    let fixed = fixed_effect(y, v)?;
    let (q, tau2) = q_and_tau2(y, v)?;
    let random = with_tau2(y, v, tau2)?;
    let k = y.len();
    let studentized = (0..k)
        .map(|i| {
            if k < 3 {
                return f64::NAN;
            }
            let yo: Vec<f64> = (0..k).filter(|&j| j != i).map(|j| y[j]).collect();
            let vo: Vec<f64> = (0..k).filter(|&j| j != i).map(|j| v[j]).collect();
            let Some((_, t2)) = q_and_tau2(&yo, &vo) else {
                return f64::NAN;
            };
            let Some(fit) = with_tau2(&yo, &vo, t2) else {
                return f64::NAN;
            };
            (y[i] - fit.estimate) / (v[i] + t2 + fit.se * fit.se).sqrt()
        })
        .collect();
    Some(Meta {
        k,
        fixed,
        random,
        q,
        q_p_value: q_p_value(q, k),
        i2_pct: i_squared(q, k),
        tau2,
        studentized,
    })
}

/// Level of Cochran's Q below which the machines are flagged as disagreeing (0.10, the
/// customary level for Q's low power with few studies: Cochran 1954, Higgins et al. 2003).
pub const HETEROGENEITY_ALPHA: f64 = 0.10;

/// |studentised residual| above which a machine is named as outlying (the two-sided 95%
/// normal quantile).
pub const OUTLIER_Z: f64 = 1.959_963_984_540_054;

impl Meta {
    /// True when the machines disagree: Q's p-value is below [`HETEROGENEITY_ALPHA`].
    pub fn heterogeneous(&self) -> bool {
        self.q_p_value < HETEROGENEITY_ALPHA
    }

    /// Indices of the outlying estimates when [`Meta::heterogeneous`]: those whose |studentised
    /// residual| exceeds [`OUTLIER_Z`], or else the one with the largest; empty otherwise.
    pub fn outliers(&self) -> Vec<usize> {
        if !self.heterogeneous() {
            return Vec::new();
        }
        let mut out: Vec<usize> = (0..self.k)
            .filter(|&i| self.studentized[i].abs() > OUTLIER_Z)
            .collect();
        if out.is_empty()
            && let Some((i, _)) = self
                .studentized
                .iter()
                .enumerate()
                .filter(|(_, z)| z.is_finite())
                .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        {
            out.push(i);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_estimate_is_itself() {
        let m = combine(&[0.1], &[0.04]).unwrap();
        assert_eq!(m.fixed.estimate, 0.1);
        assert!((m.fixed.se - 0.2).abs() < 1e-15);
        assert_eq!(m.random, m.fixed);
        assert_eq!(m.i2_pct, 0.0);
        assert!(m.q_p_value.is_nan());
        assert!(m.outliers().is_empty());
    }

    #[test]
    fn bad_input_is_none() {
        assert!(combine(&[], &[]).is_none());
        assert!(combine(&[0.1, 0.2], &[0.1]).is_none());
        assert!(combine(&[0.1], &[0.0]).is_none());
        assert!(combine(&[f64::NAN], &[1.0]).is_none());
    }
}
