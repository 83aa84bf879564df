//! Seeded samples of the two-regime detector's simulations: normal and log-normal draws, two
//! regimes a ratio apart, and the unimodal families of the false-flag checks. Shared by
//! `tests/stats/regimes_simulation.rs` (the error rates) and `examples/regime_tables.rs` (the
//! tables of `src/stats/regimes.rs`), so both draw the same samples.

use benchdiff::verdict::decide::SideSummary;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// Standard normal deviate (Box–Muller).
pub fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
    let v: f64 = rng.random::<f64>();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Log-normal noise with coefficient of variation `cv` around 1.
pub fn lognormal(rng: &mut ChaCha8Rng, cv: f64) -> f64 {
    let s = (1.0 + cv * cv).ln().sqrt();
    (s * normal(rng)).exp()
}

/// `n` samples: `minority` of them from a regime `ratio` times faster than the rest, each
/// regime with log-normal noise of CV `cv`, around 3.3M ops/s, in shuffled order.
pub fn two_regimes(
    rng: &mut ChaCha8Rng,
    n: usize,
    minority: usize,
    ratio: f64,
    cv: f64,
) -> Vec<f64> {
    let mut x: Vec<f64> = (0..n)
        .map(|i| {
            let base = if i < minority { 3.3e6 * ratio } else { 3.3e6 };
            base * lognormal(rng, cv)
        })
        .collect();
    // Fisher–Yates (order does not matter to the detector; keeps the samples realistic).
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        x.swap(i, j);
    }
    x
}

/// The unimodal families of the false-flag checks: `(name, draw one value)`.
/// A named way to draw one sample value.
pub type Family = (String, Box<dyn Fn(&mut ChaCha8Rng) -> f64>);

pub fn unimodal_families() -> Vec<Family> {
    let mut f: Vec<Family> = Vec::new();
    for cv in [0.01, 0.03, 0.10] {
        f.push((
            format!("normal cv {cv}"),
            Box::new(move |r| 1e6 * (1.0 + cv * normal(r))),
        ));
        f.push((
            format!("lognormal cv {cv}"),
            Box::new(move |r| 250.0 * lognormal(r, cv)),
        ));
    }
    // The uniform (short tails; the dip test's own null), on (0.9, 1.1) and (0, 1).
    f.push((
        "uniform 0.9-1.1".to_owned(),
        Box::new(|r| 0.9 + 0.2 * r.random::<f64>()),
    ));
    f.push(("uniform 0-1".to_owned(), Box::new(|r| r.random::<f64>())));
    // Heavy tails: Student's t with 3 and 5 degrees of freedom, scale 1% around 1e6.
    for df in [3usize, 5] {
        f.push((
            format!("t{df} scale 0.01"),
            Box::new(move |r| {
                let z = normal(r);
                let chi2: f64 = (0..df).map(|_| normal(r).powi(2)).sum();
                1e6 * (1.0 + 0.01 * z / (chi2 / df as f64).sqrt())
            }),
        ));
    }
    // Rounded to two decimals: sd 0.3, 0.5, 1 and 2 hundredths around 1.00 (as few as 2–3
    // distinct values, many exact ties).
    for sd in [0.003, 0.005, 0.01, 0.02] {
        f.push((
            format!("rounded sd {sd}"),
            Box::new(move |r| ((1.0 + sd * normal(r)) * 100.0).round() / 100.0),
        ));
    }
    f
}

/// Gamma deviate of integer shape `k` and scale 1 (a sum of `k` exponentials).
pub fn gamma_int(rng: &mut ChaCha8Rng, k: usize) -> f64 {
    (0..k).map(|_| -(1.0 - rng.random::<f64>()).ln()).sum()
}

/// Weibull deviate of shape `k` and scale 1 (inverse of its distribution function).
pub fn weibull(rng: &mut ChaCha8Rng, k: f64) -> f64 {
    (-(1.0 - rng.random::<f64>()).ln()).powf(1.0 / k)
}

/// The healthy latency shapes of the every-n false-flag checks: `(name, draw one value)`:
/// right-skewed gamma(2) and Weibull(1.5), alone and as noise over a floor, log-normal with
/// CV 5%, normal with CV 2%, and a uniform on (1000, 1010).
pub fn latency_families() -> Vec<Family> {
    vec![
        ("gamma(2)".to_owned(), Box::new(|r| gamma_int(r, 2))),
        (
            "1 + 0.1 gamma(2)".to_owned(),
            Box::new(|r| 1.0 + 0.1 * gamma_int(r, 2)),
        ),
        ("weibull(1.5)".to_owned(), Box::new(|r| weibull(r, 1.5))),
        (
            "1 + 0.1 weibull(1.5)".to_owned(),
            Box::new(|r| 1.0 + 0.1 * weibull(r, 1.5)),
        ),
        (
            "lognormal cv 5%".to_owned(),
            Box::new(|r| lognormal(r, 0.05)),
        ),
        (
            "normal cv 2%".to_owned(),
            Box::new(|r| 1.0 + 0.02 * normal(r)),
        ),
        (
            "uniform 1000-1010".to_owned(),
            Box::new(|r| 1000.0 + 10.0 * r.random::<f64>()),
        ),
    ]
}

/// The shapes the critical values are calibrated on ([`latency_families`] and the normal,
/// log-normal and uniform ones of [`unimodal_families`]): the heavy-tailed and rounded shapes
/// of the latter are checked, not calibrated on. (Read by `examples/regime_tables.rs`.)
#[allow(dead_code)]
pub fn calibration_families() -> Vec<Family> {
    let mut f = latency_families();
    f.extend(
        unimodal_families()
            .into_iter()
            .filter(|(name, _)| !name.starts_with('t') && !name.starts_with("rounded")),
    );
    f
}

/// How many of a batch of A/A rows a report flags, per check.
#[derive(Clone, Copy, Debug, Default)]
pub struct AaFlags {
    /// Rows with a side flagged multimodal.
    pub multimodal: usize,
    /// Rows with a side that has outliers.
    pub outliers: usize,
    /// Rows with a side that drifts significantly with run order.
    pub drift: usize,
}

/// `rows` A/A rows of two sides of `n` samples each from `draw` (seeded with `seed`), run
/// index = sample position, summarised as a report summarises a side.
pub fn aa_rows(draw: &dyn Fn(&mut ChaCha8Rng) -> f64, n: usize, rows: usize, seed: u64) -> AaFlags {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let runs: Vec<u32> = (0..n as u32).collect();
    let mut flags = AaFlags::default();
    for _ in 0..rows {
        let sides: Vec<SideSummary> = (0..2)
            .map(|_| {
                let x: Vec<f64> = (0..n).map(|_| draw(&mut rng)).collect();
                SideSummary::with_drift(&x, &runs, false)
            })
            .collect();
        flags.multimodal += sides.iter().any(|s| s.multimodal.is_some()) as usize;
        flags.outliers += sides.iter().any(|s| !s.outliers.is_empty()) as usize;
        flags.drift += sides.iter().any(|s| s.significant_drift().is_some()) as usize;
    }
    flags
}
