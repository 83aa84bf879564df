//! Outliers by the modified z-score (median and median absolute deviation).
//!
//! Source: B. Iglewicz and D. C. Hoaglin (1993), *How to Detect and Handle Outliers*, ASQC
//! Basic References in Quality Control 16, section 3.4: the modified z-score
//! `M_i = 0.6745 · (x_i − x̃) / MAD`, with `x̃` the median and `MAD = median |x_i − x̃|`, flags
//! `|M_i| > 3.5`. Here the MAD is scaled to a consistent estimate of the normal standard
//! deviation, `σ̂ = 1.4826 · MAD` (`1.4826 ≈ 1/0.6745 = 1/Φ⁻¹(0.75)`), and a value is flagged
//! when `|x_i − x̃| / σ̂ > 3.5`: the same rule.
//!
//! When more than half of the values are equal the MAD is 0 and every other value would be
//! "infinitely" far; then `σ̂` falls back to the mean absolute deviation about the median scaled
//! by `√(π/2) ≈ 1.2533` (also consistent for the normal σ). If that is 0 too, all values are
//! equal and none is flagged.
//!
//! A value less than [`super::regimes::MIN_RELATIVE_DISTANCE`] (0.1%) from the median is never
//! flagged, however small `σ̂`: instruction counts that differ by a handful between runs have a
//! robust standard deviation of a few instructions, and a run 40 instructions away is no
//! outlier of a count of millions (the same bound as for two regimes).
//!
//! Outliers are flagged, never dropped: callers report them next to statistics computed on all
//! samples.

/// Threshold on the modified z-score (Iglewicz & Hoaglin 1993).
pub const MODIFIED_Z_THRESHOLD: f64 = 3.5;

/// Scale factor from the MAD to a normal standard deviation, `1/Φ⁻¹(0.75)`.
pub const MAD_TO_SIGMA: f64 = 1.4826;

/// Which samples of a side are outliers, and the robust location and scale behind the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Outliers {
    /// Median of the finite samples (units of the samples; NaN if there are none).
    pub median: f64,
    /// Robust standard deviation `σ̂` (units of the samples): `1.4826 · MAD`, or the fallback of
    /// the module notes when the MAD is 0; 0 when all finite samples are equal.
    pub sigma: f64,
    /// Indices into the input of the flagged samples, increasing. NaN and infinite samples are
    /// always flagged (they do not enter the median).
    pub indices: Vec<usize>,
}

/// Median of a non-empty slice (sorted in place).
fn median_in_place(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        v[m - 1] / 2.0 + v[m] / 2.0
    }
}

/// Modified z-score outliers of `x` (module notes): indices `i` with
/// `|x_i − median| / σ̂ > 3.5` and `|x_i − median|` above 0.1% of `|median|`, plus every
/// non-finite value.
///
/// Empty input gives no indices and a NaN median. With fewer than 3 finite values nothing
/// finite is flagged (a median of two values is halfway between them).
pub fn mad_outliers(x: &[f64]) -> Outliers {
    let mut finite: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    let non_finite = x
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.is_finite())
        .map(|(i, _)| i);
    if finite.is_empty() {
        return Outliers {
            median: f64::NAN,
            sigma: f64::NAN,
            indices: non_finite.collect(),
        };
    }
    let median = median_in_place(&mut finite);
    mad_outliers_of(x, &finite, median)
}

/// [`mad_outliers`] of `x` when its finite values, sorted by `f64::total_cmp`, are at hand
/// (`sorted`, as many as `x` has finite values): the same result without sorting them again.
pub fn mad_outliers_sorted(x: &[f64], sorted: &[f64]) -> Outliers {
    if sorted.is_empty() {
        return mad_outliers(x);
    }
    let m = sorted.len() / 2;
    let median = if sorted.len() % 2 == 1 {
        sorted[m]
    } else {
        sorted[m - 1] / 2.0 + sorted[m] / 2.0
    };
    mad_outliers_of(x, sorted, median)
}

/// [`median_in_place`] of `dev(v)` over the non-empty `sorted` (by `f64::total_cmp`), for
/// `dev` the distance from `median` of [`mad_outliers_of`], without a copy or a sort: the
/// distances fall (not strictly) up to `median` and rise after it (each step of `dev` rounds
/// monotonically), so merging the two runs from `median` outwards meets them in sorted order
/// and its middle values are those of the sorted copy.
fn median_of_deviations(sorted: &[f64], median: f64, dev: impl Fn(f64) -> f64) -> f64 {
    let n = sorted.len();
    let (mut left, mut right) = {
        let p = sorted.partition_point(|&v| v < median);
        (p, p)
    };
    let (mut prev, mut cur) = (f64::NAN, f64::NAN);
    for _ in 0..=n / 2 {
        let take_left = left > 0
            && (right == n || dev(sorted[left - 1]).total_cmp(&dev(sorted[right])).is_lt());
        let d = if take_left {
            left -= 1;
            dev(sorted[left])
        } else {
            right += 1;
            dev(sorted[right - 1])
        };
        (prev, cur) = (cur, d);
    }
    if n % 2 == 1 {
        cur
    } else {
        prev / 2.0 + cur / 2.0
    }
}

/// The rest of [`mad_outliers`] after the median of the sorted finite values `finite`.
fn mad_outliers_of(x: &[f64], finite: &[f64], median: f64) -> Outliers {
    // |x − median| without overflow for values near ±f64::MAX.
    let dev = |v: f64| ((v / 2.0 - median / 2.0).abs()) * 2.0;
    let mad = median_of_deviations(finite, median, dev);
    let sigma = if mad > 0.0 {
        MAD_TO_SIGMA * mad
    } else {
        let mut abs_dev: Vec<f64> = finite.iter().map(|&v| dev(v)).collect();
        abs_dev.sort_by(f64::total_cmp);
        let n = abs_dev.len() as f64;
        abs_dev.iter().map(|d| d / n).sum::<f64>() * (std::f64::consts::PI / 2.0).sqrt()
    };
    let flag_finite = finite.len() >= 3 && sigma > 0.0;
    // Closer to the median than this is never an outlier (module notes).
    let near = super::regimes::MIN_RELATIVE_DISTANCE * median.abs();
    let indices = x
        .iter()
        .enumerate()
        .filter(|&(_, &v)| {
            !v.is_finite()
                || (flag_finite && dev(v) / sigma > MODIFIED_Z_THRESHOLD && dev(v) > near)
        })
        .map(|(i, _)| i)
        .collect();
    Outliers {
        median,
        sigma,
        indices,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The median of the deviations by the merge is the median of their sorted copy, bit for
    /// bit, with ties, zeros and both parities.
    #[test]
    fn merged_deviations_give_the_sorted_median() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for case in 0..5000 {
            let n = 1 + case % 40;
            let mut v: Vec<f64> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let u = (state >> 11) as f64 / (1u64 << 53) as f64;
                    match case % 4 {
                        0 => u * 1e6,
                        1 => (u * 6.0).round() - 3.0,
                        2 => (u - 0.5) * 1e-300,
                        _ => 1e6 * (1.0 + 0.01 * u),
                    }
                })
                .collect();
            v.sort_by(f64::total_cmp);
            let m = n / 2;
            let median = if n % 2 == 1 {
                v[m]
            } else {
                v[m - 1] / 2.0 + v[m] / 2.0
            };
            let dev = |x: f64| ((x / 2.0 - median / 2.0).abs()) * 2.0;
            let mut d: Vec<f64> = v.iter().map(|&x| dev(x)).collect();
            let want = median_in_place(&mut d);
            let got = median_of_deviations(&v, median, dev);
            assert_eq!(got.to_bits(), want.to_bits(), "{v:?}");
        }
    }

    #[test]
    fn hand_checked_example() {
        // Median 5, |deviations| 3 2 1 0 1 2 95 → MAD 2, σ̂ = 2.9652.
        // 100: 95/2.9652 = 32.0 > 3.5 flagged; 2: 3/2.9652 = 1.01 not flagged.
        let x = [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 100.0];
        let o = mad_outliers(&x);
        assert_eq!(o.median, 5.0);
        assert!((o.sigma - 2.0 * 1.4826).abs() < 1e-12);
        assert_eq!(o.indices, vec![6]);
    }

    #[test]
    fn threshold_is_three_and_a_half_robust_sigmas() {
        // Median 10, MAD 1 (σ̂ = 1.4826): cut-off 10 ± 5.1891.
        let x = [9.0, 9.0, 10.0, 10.0, 10.0, 11.0, 11.0, 15.18, 4.8];
        let o = mad_outliers(&x);
        assert_eq!(o.median, 10.0);
        assert_eq!(o.indices, vec![8]); // 5.2/1.4826 = 3.507 flagged; 5.18/1.4826 = 3.494 kept
    }

    #[test]
    fn zero_mad_falls_back_to_mean_absolute_deviation() {
        // Median 1, MAD 0; mean |dev| = 8/9, σ̂ = 8/9·1.2533 = 1.114; 8/1.114 = 7.2 > 3.5.
        let x = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 9.0];
        let o = mad_outliers(&x);
        assert_eq!(o.indices, vec![8]);
        assert!((o.sigma - 8.0 / 9.0 * 1.2533141373155).abs() < 1e-9);
        // All equal: nothing flagged.
        assert!(mad_outliers(&[3.0; 5]).indices.is_empty());
    }

    #[test]
    fn counts_a_handful_from_the_median_are_not_outliers() {
        // Instruction counts: most runs equal, a few 3 or 40 instructions away.
        let x = [
            1234567.0, 1234567.0, 1234570.0, 1234567.0, 1234607.0, 1234567.0, 1234567.0,
        ];
        assert!(mad_outliers(&x).indices.is_empty());
        // 1% away is an outlier.
        let mut y = x;
        y[4] = 1234567.0 * 1.01;
        assert_eq!(mad_outliers(&y).indices, vec![4]);
    }

    #[test]
    fn odd_input() {
        let o = mad_outliers(&[]);
        assert!(o.indices.is_empty() && o.median.is_nan());
        let o = mad_outliers(&[1.0, f64::NAN, 2.0, 3.0, f64::INFINITY]);
        assert_eq!(o.indices, vec![1, 4]);
        assert_eq!(o.median, 2.0);
        assert!(mad_outliers(&[1.0, 1e6]).indices.is_empty());
        let o = mad_outliers(&[f64::MAX, -f64::MAX, 0.0, 1.0, 2.0]);
        assert_eq!(o.indices, vec![0, 1]);
    }
}
