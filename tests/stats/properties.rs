//! Property tests of the statistics (proptest): ranges, symmetry and scale invariance.
//!
//! - every p-value lies in [0, 1];
//! - swapping old and new mirrors the change (the ratio becomes its inverse) and keeps p;
//! - scaling all samples by a positive factor keeps every relative figure;
//! - adding the same constant sample to both sides never makes p NaN.

use benchdiff::stats::{paired, rank, ratio, welch};
use proptest::prelude::*;

fn side() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(1.0f64..1000.0, 2..40)
}

fn rel_eq(a: f64, b: f64, tol: f64) -> bool {
    a == b || (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn p_values_are_probabilities(old in side(), new in side()) {
        if let Ok(w) = welch::welch(&old, &new) {
            prop_assert!((0.0..=1.0).contains(&w.p_value), "welch p {}", w.p_value);
        }
        if let Some(r) = rank::rank_sum(&old, &new, 0.95) {
            prop_assert!((0.0..=1.0).contains(&r.p_value), "rank p {}", r.p_value);
        }
        let pairs: Vec<(f64, f64)> = old.iter().copied().zip(new.iter().copied()).collect();
        if let Some(p) = paired::paired_log_ratio(&pairs, 0.95) {
            prop_assert!((0.0..=1.0).contains(&p.p_value), "paired p {}", p.p_value);
        }
    }

    #[test]
    fn swapping_sides_mirrors_change_and_keeps_p(old in side(), new in side()) {
        let a = welch::welch(&old, &new);
        let b = welch::welch(&new, &old);
        if let (Ok(a), Ok(b)) = (a, b) {
            prop_assert!(rel_eq(a.t, -b.t, 1e-9));
            prop_assert!(rel_eq(a.p_value, b.p_value, 1e-9));
            prop_assert!(rel_eq(a.df, b.df, 1e-9));
        }
        let ia = welch::improvement_pct(&old, &new) / 100.0 + 1.0;
        let ib = welch::improvement_pct(&new, &old) / 100.0 + 1.0;
        prop_assert!(rel_eq(ia * ib, 1.0, 1e-12), "ratios {ia} {ib}");
        if let (Some(ra), Some(rb)) = (rank::rank_sum(&old, &new, 0.95), rank::rank_sum(&new, &old, 0.95)) {
            prop_assert!(rel_eq(ra.p_value, rb.p_value, 1e-9));
        }
        let pa: Vec<(f64, f64)> = old.iter().copied().zip(new.iter().copied()).collect();
        let pb: Vec<(f64, f64)> = pa.iter().map(|&(o, n)| (n, o)).collect();
        if let (Some(x), Some(y)) = (paired::paired_log_ratio(&pa, 0.95), paired::paired_log_ratio(&pb, 0.95)) {
            prop_assert!(rel_eq(x.ratio * y.ratio, 1.0, 1e-12));
            prop_assert!(rel_eq(x.p_value, y.p_value, 1e-9));
        }
    }

    #[test]
    fn scaling_keeps_relative_figures(old in side(), new in side(), k in prop::sample::select(vec![1e-300, 1e-9, 3.7, 1e12, 1e300])) {
        let so: Vec<f64> = old.iter().map(|v| v * k).collect();
        let sn: Vec<f64> = new.iter().map(|v| v * k).collect();
        prop_assert!(rel_eq(welch::improvement_pct(&old, &new), welch::improvement_pct(&so, &sn), 1e-9));
        if let (Ok(a), Ok(b)) = (welch::welch(&old, &new), welch::welch(&so, &sn)) {
            prop_assert!(rel_eq(a.p_value, b.p_value, 1e-9), "p {} vs {}", a.p_value, b.p_value);
            prop_assert!(rel_eq(a.accuracy_pct(0.05), b.accuracy_pct(0.05), 1e-9));
        }
        if let (Some(a), Some(b)) = (ratio::fieller(&old, &new, 0.95), ratio::fieller(&so, &sn, 0.95)) {
            prop_assert!(rel_eq(a.lo, b.lo, 1e-9) && rel_eq(a.hi, b.hi, 1e-9));
        }
    }

    #[test]
    fn a_shared_constant_never_makes_p_nan(old in side(), new in side(), c in 1.0f64..1000.0) {
        let mut o = old.clone();
        let mut n = new.clone();
        o.push(c);
        n.push(c);
        match welch::welch(&o, &n) {
            Ok(w) => prop_assert!(!w.p_value.is_nan()),
            Err(e) => prop_assert_eq!(e, welch::WelchError::EssentiallyConstant),
        }
        if let Some(r) = rank::rank_sum(&o, &n, 0.95) {
            prop_assert!(!r.p_value.is_nan());
        }
    }
}

/// Degenerate inputs never panic, and each statistic answers them as its contract says: NaN,
/// infinities, zeros, negatives, one sample, many identical, the extremes of `f64`.
///
/// - Welch's test: `TooFewSamples` when a side has fewer than 2 samples, else `NotFinite` when
///   a value is NaN or infinite, else `EssentiallyConstant` only when both sides' spread is
///   negligible against the larger mean (R's rule; but p = 1 when every value is 0, where R
///   also stops), else a p-value in [0, 1].
/// - The change in percent: `Inf` when the old mean is 0 and the new one is not, `NaN` when
///   both are 0 or a side is empty (compare.R's `Inf %` and `NaN %`), a number otherwise.
/// - Fieller's interval: none when a side has fewer than 2 samples or a value is not finite.
/// - The rank-sum test: none when a side is empty or a value is not finite, else a p-value in
///   [0, 1].
/// - The paired log-ratio test: none with fewer than 2 pairs or a pair that is not finite and
///   positive, else a p-value in [0, 1].
#[test]
fn degenerate_inputs_do_not_panic() {
    let cases: Vec<Vec<f64>> = vec![
        vec![],
        vec![1.0],
        vec![f64::NAN, 1.0],
        vec![f64::INFINITY, 1.0, 2.0],
        vec![0.0, 0.0, 0.0],
        vec![-1.0, -2.0, 5.0],
        vec![7.0; 100_000],
        vec![f64::MAX, f64::MAX / 2.0],
        vec![f64::MIN_POSITIVE, 5e-324],
    ];
    let finite = |x: &[f64]| x.iter().all(|v| v.is_finite());
    let constant = |x: &[f64]| x.iter().all(|v| *v == x[0]);
    // Every value within a millionth of `scale` of the first.
    let negligible = |x: &[f64], scale: f64| x.iter().all(|v| (v - x[0]).abs() <= 1e-6 * scale);
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    let probability = |p: f64| (0.0..=1.0).contains(&p);
    for a in &cases {
        for b in &cases {
            let case = format!(
                "old {:?}, new {:?}",
                &a[..a.len().min(3)],
                &b[..b.len().min(3)]
            );
            match welch::welch(a, b) {
                Err(e) if a.len() < 2 || b.len() < 2 => {
                    assert_eq!(e, welch::WelchError::TooFewSamples, "{case}")
                }
                Err(e) if !finite(a) || !finite(b) => {
                    assert_eq!(e, welch::WelchError::NotFinite, "{case}")
                }
                Err(e) => {
                    assert_eq!(e, welch::WelchError::EssentiallyConstant, "{case}");
                    let scale = mean(a).abs().max(mean(b).abs());
                    assert!(negligible(a, scale) && negligible(b, scale), "{case}");
                }
                Ok(w) => {
                    assert!(
                        a.len() >= 2 && b.len() >= 2 && finite(a) && finite(b),
                        "{case}"
                    );
                    if constant(a) && constant(b) {
                        // Every value 0 on both sides (R stops here): no evidence of a change.
                        assert!(a[0] == 0.0 && b[0] == 0.0, "{case}: {w:?}");
                        assert_eq!(w.p_value, 1.0, "{case}: {w:?}");
                    }
                    assert!(probability(w.p_value), "{case}: {w:?}");
                }
            }
            let change = welch::improvement_pct(a, b);
            if a.is_empty() || b.is_empty() {
                assert!(change.is_nan(), "{case}: {change}");
            } else if finite(a) && finite(b) {
                match (mean(a) == 0.0, mean(b) == 0.0) {
                    (true, true) => assert!(change.is_nan(), "{case}: {change}"),
                    (true, false) => assert!(change.is_infinite(), "{case}: {change}"),
                    // Finite unless the percentage itself overflows (new mean ~1e308 over 1).
                    _ => assert!(!change.is_nan(), "{case}: {change}"),
                }
            }
            let ci = ratio::fieller(a, b, 0.95);
            if a.len() < 2 || b.len() < 2 || !finite(a) || !finite(b) {
                assert!(ci.is_none(), "{case}: {ci:?}");
            }
            let r = rank::rank_sum(a, b, 0.95);
            if a.is_empty() || b.is_empty() || !finite(a) || !finite(b) {
                assert!(r.is_none(), "{case}: {r:?}");
            } else {
                let r = r.unwrap_or_else(|| panic!("{case}: no rank-sum test"));
                assert!(probability(r.p_value), "{case}: {r:?}");
            }
            let pairs: Vec<(f64, f64)> = a.iter().copied().zip(b.iter().copied()).collect();
            let p = paired::paired_log_ratio(&pairs, 0.95);
            let usable =
                |&(o, n): &(f64, f64)| o.is_finite() && n.is_finite() && o > 0.0 && n > 0.0;
            if pairs.len() < 2 || !pairs.iter().all(usable) {
                assert!(p.is_none(), "{case}: {p:?}");
            } else {
                let p = p.unwrap_or_else(|| panic!("{case}: no paired test"));
                assert!(probability(p.p_value), "{case}: {p:?}");
            }
        }
    }
}

/// A million identical samples a side (and one that differs) go through every statistic and
/// the whole verdict pipeline without panicking or hanging.
#[test]
fn a_million_identical_samples_go_through_the_pipeline() {
    use benchdiff::sample::{RATE, Sample, SampleSet, Side};
    use benchdiff::stats::{dip, outliers, shape};
    let start = std::time::Instant::now();
    let old = vec![7.0; 1_000_000];
    let mut new = vec![7.0; 1_000_000];
    new[0] = 8.0;
    for (a, b) in [(&old, &old), (&old, &new)] {
        let _ = welch::welch(a, b);
        let _ = ratio::fieller(a, b, 0.95);
        let _ = rank::rank_sum(a, b, 0.95);
        let _ = dip::dip(b);
        let _ = shape::multimodality(b);
        let _ = outliers::mad_outliers(b);
    }
    let mut set = SampleSet::new();
    let id = set.intern("same.js", "n=1");
    for (side, xs) in [(Side::Old, &old), (Side::New, &new)] {
        for (i, v) in xs.iter().enumerate() {
            set.push(Sample {
                benchmark: id,
                side,
                metric: RATE,
                value: *v,
                time_s: 1.0,
                run: Some(i as u32),
            });
        }
    }
    let rows = benchdiff::verdict::rows(benchdiff::compare::group(&set));
    let a = benchdiff::verdict::decide::assess(rows, &Default::default());
    assert_eq!(a.len(), 1);
    eprintln!(
        "1e6 identical samples a side: {:.1} s",
        start.elapsed().as_secs_f64()
    );
}
