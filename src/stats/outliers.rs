//! Outliers by the modified z-score (median and median absolute deviation), with a threshold
//! that grows with the sample size so that healthy samples are not flagged at any size.
//!
//! Source: B. Iglewicz and D. C. Hoaglin (1993), *How to Detect and Handle Outliers*, ASQC
//! Basic References in Quality Control 16, section 3.4: the modified z-score
//! `M_i = 0.6745 · (x_i − x̃) / MAD`, with `x̃` the median and `MAD = median |x_i − x̃|`. Here
//! the MAD is scaled to a consistent estimate of the normal standard deviation,
//! `σ̂ = 1.4826 · MAD` (`1.4826 ≈ 1/0.6745 = 1/Φ⁻¹(0.75)`), and a value is flagged when
//! `|x_i − x̃| / σ̂ >` [`outlier_threshold`]`(n)`.
//!
//! Iglewicz and Hoaglin's fixed cut-off of 3.5 ([`MODIFIED_Z_THRESHOLD`]) is a per-value
//! rule: among `n` values some exceed it by chance, more often the larger `n` and the longer
//! the tail (simulated here: 13% of normal and 28% of gamma(2) samples of 10 values have such
//! a value, and every sample of 1000 right-skewed latencies). The threshold used is instead
//! the largest robust z-score that healthy samples of size `n` exceed in only
//! [`FALSE_FLAG_SHARE`] of cases, the largest over the fifteen unimodal shapes of
//! [`super::regimes`]'s calibration (right-skewed gamma and Weibull latencies, log-normal,
//! normal, uniform), and never below 3.5: `examples/regime_tables.rs calibrate`, interpolated
//! linearly in `ln n` between tabulated sizes and continued along that line beyond the last
//! (the largest of `n` values of an exponential tail grows like `ln n`). An outlier is thus a
//! value further from the median than healthy samples of that size put one (a run 2× slower
//! than ten others with a CV of 3% is 30 robust standard deviations away; the threshold at
//! n = 10 is about 19).
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

/// Iglewicz and Hoaglin's (1993) cut-off on the modified z-score: the floor of
/// [`outlier_threshold`].
pub const MODIFIED_Z_THRESHOLD: f64 = 3.5;

/// Share of healthy samples of each simulated shape with a value beyond [`outlier_threshold`]
/// (module notes): 0.25%.
pub const FALSE_FLAG_SHARE: f64 = 0.0025;

/// The threshold on `|x − median| / σ̂` for a sample of `n` finite values (module notes):
/// linear in `ln n` between tabulated sizes; below the first, its value; beyond the last,
/// continued along the line through the table's values at [`TAIL_FROM`] and at its last size
/// (the largest of `n` values of an exponential tail grows like `ln n`). At least
/// [`MODIFIED_Z_THRESHOLD`].
pub fn outlier_threshold(n: usize) -> f64 {
    let last = THRESHOLD.len() - 1;
    let line = |a: (usize, f64), b: (usize, f64)| {
        let (la, lb) = ((a.0 as f64).ln(), (b.0 as f64).ln());
        a.1 + ((n as f64).ln() - la) / (lb - la) * (b.1 - a.1)
    };
    let t = if n <= THRESHOLD[0].0 {
        THRESHOLD[0].1
    } else if n > THRESHOLD[last].0 {
        let from = THRESHOLD.partition_point(|r| r.0 < TAIL_FROM).min(last - 1);
        line(THRESHOLD[from], THRESHOLD[last])
    } else {
        let i = THRESHOLD.partition_point(|r| r.0 < n);
        line(THRESHOLD[i - 1], THRESHOLD[i])
    };
    t.max(MODIFIED_Z_THRESHOLD)
}

/// The size from which [`outlier_threshold`]'s extrapolation beyond the table is drawn.
const TAIL_FROM: usize = 1000;

/// `(n, outlier_threshold)`: simulated by `examples/regime_tables.rs calibrate` (module notes;
/// the samples of [`super::regimes`]'s table), each value the largest of its own and its
/// neighbours' in the table (the simulated values vary by about ±0.5 from one size to the
/// next).
const THRESHOLD: [(usize, f64); 40] = [
    (6, 27.651),
    (7, 27.651),
    (8, 27.196),
    (9, 18.755),
    (10, 18.755),
    (11, 16.723),
    (12, 16.723),
    (13, 14.285),
    (14, 14.113),
    (15, 13.640),
    (16, 13.640),
    (18, 13.068),
    (20, 12.438),
    (22, 12.412),
    (25, 11.847),
    (28, 11.847),
    (30, 11.383),
    (35, 11.383),
    (40, 11.116),
    (45, 11.116),
    (50, 10.889),
    (60, 10.777),
    (70, 10.777),
    (80, 10.744),
    (100, 10.661),
    (120, 10.780),
    (150, 10.780),
    (200, 11.102),
    (250, 11.102),
    (300, 11.160),
    (400, 11.277),
    (500, 11.613),
    (700, 11.663),
    (1000, 12.089),
    (1500, 12.145),
    (2000, 12.568),
    (3000, 13.520),
    (5000, 13.520),
    (7000, 13.684),
    (10000, 13.684),
];

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
/// `|x_i − median| / σ̂ >` [`outlier_threshold`]`(n)` (`n` finite values) and `|x_i − median|` above 0.1% of `|median|`, plus every
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
    let threshold = outlier_threshold(finite.len());
    // Closer to the median than this is never an outlier (module notes).
    let near = super::regimes::MIN_RELATIVE_DISTANCE * median.abs();
    let indices = x
        .iter()
        .enumerate()
        .filter(|&(_, &v)| {
            !v.is_finite() || (flag_finite && dev(v) / sigma > threshold && dev(v) > near)
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
    fn the_threshold_is_the_table_s_at_its_sizes_and_grows_with_the_tail_beyond() {
        assert_eq!(outlier_threshold(10), THRESHOLD[4].1);
        assert_eq!(outlier_threshold(2), THRESHOLD[0].1);
        let (a, b) = (outlier_threshold(10_000), outlier_threshold(100_000));
        assert!(b > a && b < 2.0 * a, "{a} {b}");
        for n in 3..20_000 {
            assert!(outlier_threshold(n) >= MODIFIED_Z_THRESHOLD);
        }
        // Median 10, MAD 1 (σ̂ = 1.4826): with 9 values the cut-off is 10 ± t·σ̂.
        let t = outlier_threshold(9) * MAD_TO_SIGMA;
        let x = [
            9.0,
            9.0,
            10.0,
            10.0,
            10.0,
            11.0,
            11.0,
            10.0 + t - 0.01,
            10.0 - t - 0.01,
        ];
        let o = mad_outliers(&x);
        assert_eq!(o.median, 10.0);
        assert_eq!(o.indices, vec![8]);
    }

    #[test]
    fn zero_mad_falls_back_to_mean_absolute_deviation() {
        // Median 1, MAD 0; mean |dev| = 8/30, σ̂ = 8/30·1.2533; 8/σ̂ = 23.9 is beyond the
        // threshold of 30 values. (With the fallback one deviant of n is n/1.2533 robust
        // standard deviations away, whatever its size: of 9 values, never an outlier.)
        let mut x = [1.0; 30];
        x[29] = 9.0;
        let o = mad_outliers(&x);
        assert_eq!(o.indices, vec![29]);
        assert!((o.sigma - 8.0 / 30.0 * 1.2533141373155).abs() < 1e-9);
        x[29] = 1e6;
        assert!(mad_outliers(&x[21..]).indices.is_empty());
        // All equal: nothing flagged.
        assert!(mad_outliers(&[3.0; 5]).indices.is_empty());
    }

    #[test]
    fn counts_a_handful_from_the_median_are_not_outliers() {
        // Instruction counts: most runs equal, a few 3 or 40 instructions away.
        let mut x = [1234567.0; 30];
        (x[2], x[4], x[9]) = (1234570.0, 1234607.0, 1234607.0);
        assert!(mad_outliers(&x).indices.is_empty());
        // 1% away is an outlier.
        x[4] = 1234567.0 * 1.01;
        assert_eq!(mad_outliers(&x).indices, vec![4]);
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
