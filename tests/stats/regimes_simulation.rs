//! Seeded simulations of the distribution checks of a side (`benchdiff::stats::regimes`,
//! `benchdiff::stats::outliers`, the drift rule): false flags on healthy samples at every
//! sample size, and the power of the regime test on samples drawn from two regimes.
//!
//! The tables of the modules' documentation (the critical values, the false-flag rows, the
//! power grid) are printed by `cargo run --release --example regime_tables`.

use benchdiff::stats::regimes::regimes;
use benchdiff::stats::shape::multimodality;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use super::regime_samples::{aa_rows, latency_families, two_regimes, unimodal_families};

/// Fraction of `reps` samples from `draw` that `flag` flags.
fn rate(
    seed: u64,
    reps: usize,
    mut draw: impl FnMut(&mut ChaCha8Rng) -> Vec<f64>,
    flag: impl Fn(&[f64]) -> bool,
) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let hits = (0..reps).filter(|_| flag(&draw(&mut rng))).count();
    hits as f64 / reps as f64
}

fn flagged(x: &[f64]) -> bool {
    regimes(x).is_some()
}

/// A/A rows (two sides of `n` healthy samples each) of gamma(2), Weibull(1.5), log-normal,
/// normal and uniform latencies, with and without a floor, at n = 10 to 10,000: at most 1%
/// of the rows of each shape and size are flagged multimodal; at most 1% of each shape's
/// rows over all sizes have outliers or drift, as a report flags them (each calibrated to
/// about 0.3–0.5% of rows).
#[test]
fn healthy_rows_are_rarely_flagged_at_any_n() {
    let mut table = Vec::new();
    for (fi, (name, draw)) in latency_families().into_iter().enumerate() {
        let (mut outliers, mut drift, mut all) = (0, 0, 0);
        for n in [10, 30, 100, 300, 1000, 10_000] {
            let rows = if n >= 10_000 { 100 } else { 400 };
            let flags = aa_rows(&draw, n, rows, 90_000 + fi as u64 * 64 + n as u64);
            let multimodal = flags.multimodal;
            outliers += flags.outliers;
            drift += flags.drift;
            all += rows;
            table.push(format!(
                "{name:<22} n={n:<6} multimodal {multimodal}/{rows}"
            ));
            assert!(multimodal * 100 <= rows, "{}", table.join("\n"));
        }
        table.push(format!(
            "{name:<22} all n: outliers {outliers}/{all}, drift {drift}/{all}"
        ));
        assert!(
            outliers * 100 <= all && drift * 100 <= all,
            "{}",
            table.join("\n")
        );
    }
    println!("{}", table.join("\n"));
}

/// False flags of the regime test stay at or below 1% within two standard errors on the
/// heavy-tailed and rounded shapes it is not calibrated on, from 6 to 30 runs.
#[test]
fn uncalibrated_shapes_are_rarely_flagged() {
    let reps = 400;
    for (fi, (name, draw)) in unimodal_families().into_iter().enumerate() {
        for n in [6, 8, 10, 15, 20, 30] {
            let r = rate(
                100 + fi as u64 * 64 + n as u64,
                reps,
                |g| (0..n).map(|_| draw(g)).collect(),
                |x: &[f64]| multimodality(x).is_some(),
            );
            let se = (0.01 * 0.99 / reps as f64).sqrt();
            assert!(r <= 0.01 + 2.0 * se, "{name}, n={n}: {r}");
        }
    }
}

/// Clear two-regime cases are flagged as two regimes: 2× apart, 3% CV, 50/50 and 70/30 splits
/// at n ≥ 10, 2 of 10 runs at twice the rate of the others, and 5 + 5 runs 1.7× apart; regimes
/// 1.3× apart (ten within-regime standard deviations) from 20 runs.
#[test]
fn clear_two_regime_samples_are_flagged() {
    let reps = 200;
    for n in [10, 20, 30] {
        for share in [0.5, 0.3] {
            let k = (share * n as f64).round() as usize;
            let r = rate(
                7 + n as u64,
                reps,
                |g| two_regimes(g, n, k, 2.0, 0.03),
                flagged,
            );
            assert!(r >= 0.99, "n={n} share={share}: {r}");
        }
    }
    let r = rate(11, reps, |g| two_regimes(g, 10, 2, 2.0, 0.03), flagged);
    assert!(r >= 0.99, "2 of 10 at 2x: {r}");
    let r = rate(13, reps, |g| two_regimes(g, 10, 5, 1.7, 0.03), flagged);
    assert!(r >= 0.99, "5 + 5 at 1.7x: {r}");
    let r = rate(12, reps, |g| two_regimes(g, 20, 10, 1.3, 0.03), flagged);
    assert!(r >= 0.9, "1.3x 10+10: {r}");
}

/// One sample of 10 in two regimes of 5, 1.7× apart: flagged and named, 5 and 5.
#[test]
fn five_and_five_runs_far_apart_are_two_regimes() {
    let x = [1.00, 1.02, 0.99, 1.01, 0.98, 1.70, 1.72, 1.69, 1.71, 1.68];
    let m = multimodality(&x).expect("two regimes");
    let [lo, hi] = m.regimes.regimes;
    assert_eq!((lo.count, hi.count), (5, 5));
    assert!((lo.centre - 1.0).abs() < 1e-9 && (hi.centre - 1.70).abs() < 1e-9);
}
