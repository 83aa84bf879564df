//! The multimodality decision of a side: two regimes by [`super::regimes`] (the gap test
//! alone, or Hartigan's dip test with a gap that separates the modes, both calibrated so that
//! healthy unimodal samples are flagged in about 0.3% of cases at every sample size), and the
//! note for sides too small to tell.
//!
//! A side is flagged **multimodal** when it has at least [`super::regimes::MIN_N`] (6) finite
//! samples and [`super::regimes::regimes`] finds two regimes; the modes reported are the two
//! regimes (median, share). Their centres must lie apart by what can matter (more than
//! [`super::regimes::MIN_RELATIVE_DISTANCE`], 0.1%: [`super::regimes::apart`]), so counts that
//! differ by a handful between runs are never multimodal; the same holds for the two groups
//! of [`too_few_to_tell`]. Three or more separated modes are flagged too, as the two groups
//! of their widest gap.
//!
//! Below 6 samples nothing is flagged: with 4 samples a 2+2 split has the largest possible dip
//! and "two modes", yet unimodal samples show it all the time; no test has the power to tell
//! two regimes apart there at a useful false-flag rate.
//!
//! Ashman's separation `D = |m₂ − m₁| / √((s₁² + s₂²)/2)` of the best split into groups of at
//! least `max(3, ⌈n/10⌉)` samples (K. M. Ashman, C. M. Bird and S. E. Zepf 1994, "Detecting
//! bimodality in astronomical datasets", *Astronomical Journal* 108, 2348) is reported beside
//! the flag but does not decide: on rounded samples both groups can be constant and `D`
//! infinite, and a uniform's halves are `D ≈ 3.5` apart at every size.
//!
//! The test says *whether* the samples fall into several regimes; the regimes say *where* and
//! *how many samples each*. Neither is applied to the data: a report shows the modes, the
//! change per regime, and says that a difference of means is not a reliable verdict for such a
//! side.

use super::dip::{dip, dip_p_value};
use super::regimes::{self, Regimes};

/// One mode of a multimodal side: a regime's centre and share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mode {
    /// The regime's median, in the units of the samples.
    pub centre: f64,
    /// Fraction of the samples in the regime, in `(0, 1)`; the shares of a side add up to 1.
    pub share: f64,
}

/// Evidence that a sample falls into several regimes.
#[derive(Clone, Debug, PartialEq)]
pub struct Multimodal {
    /// Dip statistic (fraction of probability mass, `[1/(2n), 1/4]`), of the de-rounded
    /// samples.
    pub dip: f64,
    /// Dip test p-value from the project's table (resolution 0.001; see
    /// [`super::dip::dip_p_value`]), on the de-rounded samples. At or above
    /// [`regimes::DIP_ALPHA`] when the gap alone flagged the side.
    pub p_value: f64,
    /// Ashman's separation `D` of the best two-group split (unitless; module notes), NaN for
    /// fewer than 6 samples.
    pub separation: f64,
    /// The two modes, left to right, with their shares: the regimes' medians.
    pub modes: Vec<Mode>,
    /// The two regimes and what found them.
    pub regimes: Regimes,
}

/// Dip statistic and p-value of a sample.
///
/// `None` for fewer than 4 values or any NaN or infinite value (the test has nothing to say).
pub fn dip_test(x: &[f64]) -> Option<(f64, f64)> {
    if x.len() < 4 || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let d = dip(x);
    Some((d, dip_p_value(d, x.len())))
}

/// The multimodality flag of one side's samples (module notes): `Some` with the dip, its
/// p-value, the modes and the two regimes when the side is multimodal, `None` otherwise (also
/// for fewer than [`regimes::MIN_N`] values or any NaN or infinite value).
///
/// Cost: a sort and a few linear passes ([`regimes::regime_statistics`]).
pub fn multimodality(x: &[f64]) -> Option<Multimodal> {
    multimodality_of(x, regimes::regime_statistics(x)?)
}

/// [`multimodality`] of `x` given its order ([`regimes::sort_order`]), for a caller that sorts
/// `x` for other checks too: the same result, with one sort fewer.
pub fn multimodality_ordered(x: &[f64], order: &[u32]) -> Option<Multimodal> {
    multimodality_of(x, regimes::regime_statistics_ordered(x, order)?)
}

/// The rest of [`multimodality`] after the regime statistics of `x`.
fn multimodality_of(x: &[f64], stats: regimes::RegimeStats) -> Option<Multimodal> {
    let r = regimes::decide(x, stats)?;
    Some(Multimodal {
        dip: stats.dip,
        p_value: stats.dip_p,
        separation: separation(x).unwrap_or(f64::NAN),
        modes: (r.regimes.iter())
            .map(|g| Mode {
                centre: g.centre,
                share: g.share,
            })
            .collect(),
        regimes: r,
    })
}

/// For a side too small for the regime test (4 or 5 finite samples): the centres (medians)
/// of the two groups when the sorted samples split into two groups of at least 2 whose gap is
/// more than twice the larger group's range — what two regimes would look like, and also what
/// unimodal samples this small often look like. Reports say that such a side has too few runs
/// to tell (the regime test needs [`regimes::MIN_N`]). `None` otherwise, also when the two
/// centres are too close to matter ([`regimes::apart`]).
pub fn too_few_to_tell(x: &[f64]) -> Option<(f64, f64)> {
    let n = x.len();
    if !(4..regimes::MIN_N).contains(&n) || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    (2..=n - 2).find_map(|k| {
        let (lo, hi) = (&v[..k], &v[k..]);
        let range = (lo[k - 1] - lo[0]).max(hi[hi.len() - 1] - hi[0]);
        let centres = (super::quantile::median(lo), super::quantile::median(hi));
        (hi[0] - lo[k - 1] > 2.0 * range && regimes::apart(centres.0, centres.1)).then_some(centres)
    })
}

/// Ashman's separation `D = |m₂ − m₁| / √((s₁² + s₂²)/2)` of the best split of the sorted
/// samples into a lower and an upper group, each of at least `max(3, ⌈n/10⌉)` samples
/// (`m`, `s²`: mean and sample variance of a group). Unitless and scale-free; infinite when
/// both groups are constant at different values.
///
/// `None` for fewer than 6 samples or any NaN or infinite value. Cost: a sort and two linear
/// passes (Welford's running mean and variance from each end).
pub fn separation(x: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 6 || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let min = 3usize.max(n.div_ceil(10));
    let scale = super::dip::pow2_scale(x);
    let mut v: Vec<f64> = x.iter().map(|a| a / scale).collect();
    v.sort_by(f64::total_cmp);
    // Welford running (mean, sum of squared deviations) of the first k values, k = 1..=n.
    let running = |it: &mut dyn Iterator<Item = f64>| -> Vec<(f64, f64)> {
        let (mut m, mut m2) = (0.0f64, 0.0f64);
        it.enumerate()
            .map(|(i, a)| {
                let k = (i + 1) as f64;
                let d = a - m;
                m += d / k;
                m2 += d * (a - m);
                (m, m2)
            })
            .collect()
    };
    let fwd = running(&mut v.iter().copied());
    let mut bwd = running(&mut v.iter().rev().copied());
    bwd.reverse(); // bwd[i]: the values v[i..]
    let mut best = 0.0f64;
    for i in min..=n - min {
        let (m1, ss1) = fwd[i - 1];
        let (m2, ss2) = bwd[i];
        let var = (ss1 / (i - 1) as f64 + ss2 / (n - i - 1) as f64) / 2.0;
        let gap = m2 - m1;
        let dsep = if var > 0.0 {
            gap / var.sqrt()
        } else if gap > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        best = best.max(dsep);
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_regimes_are_flagged_with_their_modes() {
        let mut x = Vec::new();
        for i in 0..15 {
            x.push(1.8e6 + 5e3 * (i % 5) as f64);
            x.push(3.5e6 + 8e3 * (i % 4) as f64);
        }
        let m = multimodality(&x).expect("flagged");
        assert!(m.p_value < 0.01 && m.dip > 0.2);
        assert_eq!(m.modes.len(), 2);
        assert!((m.modes[0].centre / 1.8e6 - 1.0).abs() < 0.05);
        assert!((m.modes[1].centre / 3.5e6 - 1.0).abs() < 0.05);
        assert_eq!((m.modes[0].share, m.modes[1].share), (0.5, 0.5));
    }

    #[test]
    fn evenly_spread_and_odd_samples_are_not_flagged() {
        let x: Vec<f64> = (0..30).map(|i| 100.0 + i as f64).collect();
        assert!(multimodality(&x).is_none());
        assert!(multimodality(&[1.0, 9.0, 1.0]).is_none());
        assert!(multimodality(&[1.0, 9.0, 1.0, f64::NAN, 9.0]).is_none());
        assert!(dip_test(&[]).is_none());
    }

    #[test]
    fn counts_a_handful_apart_are_not_multimodal() {
        // Instruction counts: 15 runs at 1234567–1234570, 15 at 1234607–1234610.
        let base = 1234567.0;
        let x: Vec<f64> = (0..30)
            .map(|i| base + if i % 2 == 0 { 0.0 } else { 40.0 } + (i % 4) as f64)
            .collect();
        let (_, p) = dip_test(&x).expect("dip");
        assert!(p < regimes::DIP_ALPHA, "the dip test rejects: {p}");
        assert!(multimodality(&x).is_none());
        let wide: Vec<f64> = x
            .iter()
            .map(|v| if *v > base + 20.0 { v * 1.01 } else { *v })
            .collect();
        assert!(multimodality(&wide).is_some());
        let four = |d: f64| [base, base + 1.0, base + d, base + d + 1.0];
        assert!(too_few_to_tell(&four(40.0)).is_none());
        assert!(too_few_to_tell(&four(0.01 * base)).is_some());
    }

    #[test]
    fn two_plus_two_of_four_is_not_flagged_but_noted() {
        let x = [1.0e6, 2.0e6, 1.01e6, 2.02e6];
        assert!(multimodality(&x).is_none());
        let (a, b) = too_few_to_tell(&x).expect("noted");
        assert_eq!((a, b), (1.005e6, 2.01e6));
        assert!(too_few_to_tell(&[1.0, 1.1, 1.2, 1.3]).is_none());
        assert!(too_few_to_tell(&[1.0, 1.1, 1.2, 1.3, 5.0, 5.1]).is_none());
    }

    #[test]
    fn separation_by_hand() {
        // Best split 1 2 3 | 11 12 13: means 2 and 12, variances 1 and 1: D = 10.
        let d = separation(&[12.0, 1.0, 13.0, 2.0, 11.0, 3.0]).unwrap_or(f64::NAN);
        assert!((d - 10.0).abs() < 1e-12, "{d}");
        assert_eq!(
            separation(&[1.0, 1.0, 1.0, 2.0, 2.0, 2.0]),
            Some(f64::INFINITY)
        );
        assert_eq!(separation(&[5.0; 8]), Some(0.0));
        assert_eq!(separation(&[1.0, 2.0, 3.0, 4.0, 5.0]), None);
        // 30 values: groups hold at least 3; a lone far value does not count.
        let mut x: Vec<f64> = (0..29).map(|i| 100.0 + (i % 7) as f64).collect();
        x.push(1e4);
        assert!(separation(&x).unwrap_or(f64::NAN) < 8.0);
    }

    #[test]
    fn a_minority_regime_is_flagged_by_the_gap() {
        // 4 of 30 runs at 1.8M, 26 at 3.5M ops/s: the dip test alone cannot see it.
        let mut x: Vec<f64> = (0..4).map(|i| 1.8e6 + 2e4 * i as f64).collect();
        x.extend((0..26).map(|i| 3.5e6 + 1e4 * (i % 9) as f64));
        let m = multimodality(&x).expect("flagged");
        assert!(m.p_value >= regimes::DIP_ALPHA, "{m:?}");
        assert!(m.regimes.by_gap && m.separation >= 8.0);
        assert_eq!(m.modes.len(), 2);
        assert!((m.modes[0].share - 4.0 / 30.0).abs() < 1e-12);
    }
}
