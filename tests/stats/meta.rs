//! Reference values of `stats::meta` (inverse-variance, DerSimonian–Laird, Cochran's Q, I²).
//!
//! The data are metafor's `dat.bcg` (13 BCG vaccine trials; Colditz et al. 1994), as log risk
//! ratios `yᵢ = ln((a/(a+b)) / (c/(c+d)))` with variances `vᵢ = 1/a − 1/(a+b) + 1/c − 1/(c+d)`
//! (metafor's `escalc(measure = "RR")`). metafor's `rma(yi, vi, method = "DL")` prints for them
//! (its documentation, and the worked example of Viechtbauer 2010, J. Stat. Softw. 36(3)):
//! `tau^2 = 0.3088`, `I^2 = 92.12%`, `Q(df = 12) = 152.2330, p < .0001`, estimate `-0.7141`,
//! se `0.1787`, 95% CI `[-1.0644, -0.3638]`; `rma(..., method = "FE")`: `-0.4303`, se `0.0405`.
//! The hand calculation (the formulas of the module notes, in double precision) gives the
//! same figures to the printed digits, with more digits below.

use benchdiff::stats::meta;

/// (tpos, tneg, cpos, cneg) of the 13 trials of `dat.bcg`.
const BCG: [(f64, f64, f64, f64); 13] = [
    (4.0, 119.0, 11.0, 128.0),
    (6.0, 300.0, 29.0, 274.0),
    (3.0, 228.0, 11.0, 209.0),
    (62.0, 13536.0, 248.0, 12619.0),
    (33.0, 5036.0, 47.0, 5761.0),
    (180.0, 1361.0, 372.0, 1079.0),
    (8.0, 2537.0, 10.0, 619.0),
    (505.0, 87886.0, 499.0, 87892.0),
    (29.0, 7470.0, 45.0, 7232.0),
    (17.0, 1699.0, 65.0, 1600.0),
    (186.0, 50448.0, 141.0, 27197.0),
    (5.0, 2493.0, 3.0, 2338.0),
    (27.0, 16886.0, 29.0, 17825.0),
];

fn bcg() -> (Vec<f64>, Vec<f64>) {
    BCG.iter()
        .map(|&(a, b, c, d)| {
            (
                ((a / (a + b)) / (c / (c + d))).ln(),
                1.0 / a - 1.0 / (a + b) + 1.0 / c - 1.0 / (c + d),
            )
        })
        .unzip()
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want}");
}

#[test]
fn dersimonian_laird_matches_metafor_on_dat_bcg() {
    let (y, v) = bcg();
    let m = meta::combine(&y, &v).unwrap();
    assert_eq!(m.k, 13);
    // Printed by metafor (4 decimals) ...
    close(m.tau2, 0.3088, 5e-5, "tau2");
    close(m.q, 152.2330, 5e-5, "Q");
    close(m.i2_pct, 92.12, 5e-3, "I2");
    close(m.random.estimate, -0.7141, 5e-5, "RE estimate");
    close(m.random.se, 0.1787, 5e-5, "RE se");
    let (lo, hi) = m.random.interval(1.959_963_984_540_054);
    close(lo, -1.0644, 5e-5, "RE ci.lb");
    close(hi, -0.3638, 5e-5, "RE ci.ub");
    close(m.fixed.estimate, -0.4303, 5e-5, "FE estimate");
    close(m.fixed.se, 0.0405, 5e-5, "FE se");
    assert!(m.q_p_value < 1e-4, "p < .0001: {}", m.q_p_value);
    assert!(m.random.p_value() < 1e-4);
    // ... and the hand calculation to 1e-10.
    close(m.tau2, 0.308_760_262_862_376_5, 1e-10, "tau2 (hand)");
    close(m.q, 152.233_008_082_373_4, 1e-8, "Q (hand)");
    close(
        m.random.estimate,
        -0.714_117_222_073_227_1,
        1e-10,
        "RE (hand)",
    );
    close(m.random.se, 0.178_742_089_535_403_2, 1e-10, "RE se (hand)");
    close(
        m.fixed.estimate,
        -0.430_285_163_654_090_6,
        1e-10,
        "FE (hand)",
    );
    close(m.fixed.se, 0.040_498_751_710_863_81, 1e-10, "FE se (hand)");
    assert!(m.heterogeneous());
}

#[test]
fn homogeneous_estimates_have_tau2_zero_and_re_equals_fe() {
    // Three estimates well within their errors: Q < k − 1, so τ² = 0, I² = 0.
    let y = [0.10, 0.11, 0.09];
    let v = [0.01, 0.02, 0.015];
    let m = meta::combine(&y, &v).unwrap();
    assert_eq!(m.tau2, 0.0);
    assert_eq!(m.i2_pct, 0.0);
    assert_eq!(m.random, m.fixed);
    // Hand: w = 100, 50, 66.67; Σw = 216.67; μ = (10 + 5.5 + 6)/216.67 = 0.099231.
    close(
        m.fixed.estimate,
        21.5 / (100.0 + 50.0 + 200.0 / 3.0),
        1e-12,
        "FE",
    );
    close(
        m.fixed.se,
        (1.0f64 / (100.0 + 50.0 + 200.0 / 3.0)).sqrt(),
        1e-12,
        "se",
    );
    // Q = Σ w (y − μ)²; χ²₂ p = exp(−Q/2).
    let mu = m.fixed.estimate;
    let q = 100.0 * (0.10 - mu).powi(2)
        + 50.0 * (0.11 - mu).powi(2)
        + 200.0 / 3.0 * (0.09 - mu).powi(2);
    close(m.q, q, 1e-12, "Q");
    close(m.q_p_value, (-q / 2.0).exp(), 1e-9, "Q p (chi2, 2 df)");
    assert!(!m.heterogeneous());
    assert!(m.outliers().is_empty());
}

#[test]
fn i_squared_is_higgins_thompson() {
    assert_eq!(
        meta::i_squared(152.233, 13),
        (152.233 - 12.0) / 152.233 * 100.0
    );
    assert_eq!(meta::i_squared(5.0, 13), 0.0);
    assert_eq!(meta::i_squared(0.0, 4), 0.0);
}

#[test]
fn the_outlying_estimate_is_named() {
    // Four machines agree on −5% (log 0.95); the third says −20%.
    let y = [0.95f64.ln(), 0.948f64.ln(), 0.80f64.ln(), 0.952f64.ln()];
    let v = [1e-4; 4];
    let m = meta::combine(&y, &v).unwrap();
    assert!(m.heterogeneous(), "Q p = {}", m.q_p_value);
    assert!(m.i2_pct > 90.0);
    assert_eq!(m.outliers(), vec![2], "studentized: {:?}", m.studentized);
    // The random-effects interval is wider than the fixed-effect one.
    assert!(m.random.se > m.fixed.se);
}
