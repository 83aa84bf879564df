//! Drift against run order: Kendall's rank correlation test and the Theil–Sen slope.
//!
//! A machine that warms up, throttles or fills its disk makes later runs systematically faster
//! or slower. Given `(run index, value)` pairs of one side:
//!
//! - **Test.** Kendall's `τ_b` between run index and value (M. G. Kendall 1938; ties: Kendall
//!   1945, `τ_b = S / √((n₀ − n₁)(n₀ − n₂))`, `S` = concordant − discordant pairs,
//!   `n₀ = n(n−1)/2`, `n₁`, `n₂` the tied pairs in index and in value). Two-sided p-value of `S`:
//!   exact (the null distribution of the number of discordant pairs is that of the number of
//!   inversions of a random permutation) when there are no ties and `n < 50`; otherwise the
//!   normal approximation with the tie-corrected variance (Kendall & Gibbons 1990, *Rank
//!   Correlation Methods*, 5th ed., eq. 4.3)
//!   `Var S = [n(n−1)(2n+5) − Σt(t−1)(2t+5) − Σu(u−1)(2u+5)]/18
//!          + Σt(t−1)(t−2)·Σu(u−1)(u−2) / (9n(n−1)(n−2)) + Σt(t−1)·Σu(u−1) / (2n(n−1))`,
//!   without continuity correction. These are the choices of R's `cor.test(method = "kendall")`.
//! - **Size.** The Theil–Sen slope (H. Theil 1950; P. K. Sen 1968, "Estimates of the regression
//!   coefficient based on Kendall's tau", *JASA* 63): the median of the pairwise slopes
//!   `(y_j − y_i)/(x_j − x_i)` over pairs with `x_i ≠ x_j`, robust to outliers, in value units
//!   per run; and that slope in percent of the mean value. For more than [`THEIL_SEN_MAX_N`]
//!   points the ordinary least-squares slope is used instead (the pairwise slopes would need
//!   `n²/2` memory).

use statrs::function::erf::erfc;

/// Above this many points the slope is the least-squares one (module notes).
pub const THEIL_SEN_MAX_N: usize = 2000;

/// Trend of values against run order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drift {
    /// Number of (finite) points used.
    pub n: usize,
    /// Kendall's `τ_b` in `[−1, 1]`: positive when values grow with the run index.
    pub tau: f64,
    /// Two-sided p-value of the hypothesis of no monotone trend, in `[0, 1]`.
    pub p_value: f64,
    /// Theil–Sen slope (least squares above [`THEIL_SEN_MAX_N`] points), value units per run.
    pub slope: f64,
    /// `slope / mean(values) · 100`: percent of the mean value per run (NaN if the mean is 0).
    pub slope_pct_per_run: f64,
}

/// Kendall's `S` = concordant − discordant pairs of finite points, in O(n log n) (W. R.
/// Knight 1966, "A computer method for calculating Kendall's tau with ungrouped data", *JASA*
/// 61): sort by (x, y); then `S = n₀ − n₁ − n₂ + n₃ − 2D` with `n₁`, `n₂` the pairs tied in x,
/// in y, `n₃` those tied in both, and `D` the strict inversions of the y sequence, counted by
/// a merge sort. (Pairs tied in x are in y order after the sort, so they count no inversion.)
/// Up to [`DIRECT_MAX_N`] points `D` and `n₂` are counted over all pairs instead (the same
/// integers; branch-free, faster than the merge at the 6–50 runs of a benchmark side).
/// Returns `(S, n₁, n₂)`.
fn kendall_s(pts: &[(f64, f64)]) -> (i64, i64, i64) {
    let n = pts.len() as i64;
    let mut v: Vec<(f64, f64)> = pts.to_vec();
    v.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let pairs = |t: i64| t * (t - 1) / 2;
    // Tied pairs in x (n1) and in both (n3), from runs of the (x, y)-sorted points.
    let (mut n1, mut n3) = (0i64, 0i64);
    let mut i = 0;
    while i < v.len() {
        let mut j = i + 1;
        while j < v.len() && v[j].0 == v[i].0 {
            j += 1;
        }
        n1 += pairs((j - i) as i64);
        let mut k = i;
        while k < j {
            let mut l = k + 1;
            while l < j && v[l].1 == v[k].1 {
                l += 1;
            }
            n3 += pairs((l - k) as i64);
            k = l;
        }
        i = j;
    }
    // Strict inversions of y (bottom-up merge sort); afterwards `ys` is sorted.
    if v.len() <= DIRECT_MAX_N {
        let (mut d, mut n2) = (0i64, 0i64);
        for (i, a) in v.iter().enumerate() {
            for b in &v[i + 1..] {
                d += i64::from(a.1 > b.1);
                n2 += i64::from(a.1 == b.1);
            }
        }
        return (pairs(n) - n1 - n2 + n3 - 2 * d, n1, n2);
    }
    let mut ys: Vec<f64> = v.iter().map(|p| p.1).collect();
    let mut buf = vec![0.0f64; ys.len()];
    let mut d = 0i64;
    let mut width = 1;
    while width < ys.len() {
        let mut lo = 0;
        while lo < ys.len() {
            let mid = (lo + width).min(ys.len());
            let hi = (lo + 2 * width).min(ys.len());
            let (mut a, mut b, mut k) = (lo, mid, lo);
            while a < mid && b < hi {
                if ys[a] <= ys[b] {
                    buf[k] = ys[a];
                    a += 1;
                } else {
                    // ys[b] is smaller than every remaining left element.
                    d += (mid - a) as i64;
                    buf[k] = ys[b];
                    b += 1;
                }
                k += 1;
            }
            buf[k..k + mid - a].copy_from_slice(&ys[a..mid]);
            k += mid - a;
            buf[k..k + hi - b].copy_from_slice(&ys[b..hi]);
            lo = hi;
        }
        std::mem::swap(&mut ys, &mut buf);
        width *= 2;
    }
    // Tied pairs in y (n2), from the sorted y values.
    let mut n2 = 0i64;
    let mut i = 0;
    while i < ys.len() {
        let mut j = i + 1;
        while j < ys.len() && ys[j] == ys[i] {
            j += 1;
        }
        n2 += pairs((j - i) as i64);
        i = j;
    }
    (pairs(n) - n1 - n2 + n3 - 2 * d, n1, n2)
}

/// Largest number of points for which [`kendall_s`] counts inversions and ties in y over all
/// pairs rather than by a merge sort.
const DIRECT_MAX_N: usize = 64;

/// Tie-group sums over sorted values: `(Σt(t−1), Σt(t−1)(t−2), Σt(t−1)(2t+5))`.
fn tie_sums(mut v: Vec<f64>) -> (f64, f64, f64) {
    if v.windows(2).all(|w| w[0] < w[1]) {
        // No ties (run indices in order): every group has t = 1 and adds (+0, −0, +0).
        return (0.0, 0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    let (mut a, mut b, mut c) = (0.0, 0.0, 0.0);
    let mut i = 0;
    while i < v.len() {
        let mut j = i + 1;
        while j < v.len() && v[j] == v[i] {
            j += 1;
        }
        let t = (j - i) as f64;
        a += t * (t - 1.0);
        b += t * (t - 1.0) * (t - 2.0);
        c += t * (t - 1.0) * (2.0 * t + 5.0);
        i = j;
    }
    (a, b, c)
}

/// `P(D ≤ d)` for `D` the number of inversions of a uniformly random permutation of `n`
/// (`D` = the discordant pairs under no trend). Probabilities by the recurrence
/// `P_m(k) = (1/m) Σ_{i<m} P_{m−1}(k − i)`.
///
/// The probabilities depend on `n` only: each thread keeps those of the sizes it has seen
/// (a report asks for the same few sizes thousands of times), computed as below, so the sum is
/// the same as without the cache.
fn inversions_cdf(n: usize, d: usize) -> f64 {
    use std::cell::RefCell;
    use std::rc::Rc;
    thread_local! {
        static PMF: RefCell<Vec<Option<Rc<Vec<f64>>>>> = const { RefCell::new(Vec::new()) };
    }
    let p = PMF.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() <= n {
            cache.resize(n + 1, None);
        }
        Rc::clone(cache[n].get_or_insert_with(|| Rc::new(inversions_pmf(n))))
    });
    let max = p.len() - 1;
    p[..=d.min(max)].iter().sum::<f64>().min(1.0)
}

/// `P(D = k)` for `k = 0..=n(n−1)/2` (see [`inversions_cdf`]).
fn inversions_pmf(n: usize) -> Vec<f64> {
    let max = n * n.saturating_sub(1) / 2;
    let mut p = vec![0.0f64; max + 1];
    p[0] = 1.0;
    for m in 2..=n {
        let top = m * (m - 1) / 2;
        // Sliding window sum of the previous row over k − m + 1 ..= k.
        let prev = p.clone();
        let mut window = 0.0;
        for k in 0..=top {
            window += prev[k];
            if k >= m {
                window -= prev[k - m];
            }
            p[k] = window / m as f64;
        }
    }
    p
}

/// Drift of `points = (run index, value)` (module notes). Points with a NaN or infinite index
/// or value are skipped.
///
/// `None` with fewer than 3 usable points or when all run indices are equal. A constant value
/// gives `τ = 0`, `p = 1` and slope 0.
pub fn drift(points: &[(f64, f64)]) -> Option<Drift> {
    drift_impl(points, None)
}

/// [`drift`] when its p-value is below `alpha`, else `None`: for reports that show only a
/// significant drift, the Theil–Sen slope (`n²/2` pairwise slopes and a selection, most of
/// the cost) of the other sides is never computed. A returned drift is the same as
/// [`drift`]'s.
pub fn significant_drift(points: &[(f64, f64)], alpha: f64) -> Option<Drift> {
    drift_impl(points, Some(alpha))
}

fn drift_impl(points: &[(f64, f64)], alpha: Option<f64>) -> Option<Drift> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let n = pts.len();
    if n < 3 || pts.iter().all(|p| p.0 == pts[0].0) {
        return None;
    }
    let nf = n as f64;
    let (s, x_ties, y_ties) = kendall_s(&pts);
    // Without tied pairs every tie group has t = 1 and the sums are 0.
    let tie_sums_if = |ties: i64, v: &dyn Fn(&(f64, f64)) -> f64| {
        if ties == 0 {
            (0.0, 0.0, 0.0)
        } else {
            tie_sums(pts.iter().map(v).collect())
        }
    };
    let (tx1, tx2, tx3) = tie_sums_if(x_ties, &|p| p.0);
    let (ty1, ty2, ty3) = tie_sums_if(y_ties, &|p| p.1);
    let n0 = nf * (nf - 1.0) / 2.0;
    let denom = ((n0 - tx1 / 2.0) * (n0 - ty1 / 2.0)).sqrt();
    let mean = pts.iter().map(|p| p.1 / nf).sum::<f64>();
    if denom == 0.0 {
        // All values equal (indices are not all equal): no trend at all.
        if alpha.is_some_and(|a| a <= 1.0) {
            return None;
        }
        return Some(Drift {
            n,
            tau: 0.0,
            p_value: 1.0,
            slope: 0.0,
            slope_pct_per_run: if mean == 0.0 { f64::NAN } else { 0.0 },
        });
    }
    let tau = (s as f64 / denom).clamp(-1.0, 1.0);
    let p_value = if tx1 == 0.0 && ty1 == 0.0 && n < 50 {
        // Discordant pairs D = (n0 − S)/2; two-sided: 2·P(D ≤ min(D, n0 − D)).
        let d = ((n0 - s as f64) / 2.0).round() as usize;
        let lower = d.min(n0 as usize - d);
        (2.0 * inversions_cdf(n, lower)).min(1.0)
    } else {
        let var = (nf * (nf - 1.0) * (2.0 * nf + 5.0) - tx3 - ty3) / 18.0
            + tx2 * ty2 / (9.0 * nf * (nf - 1.0) * (nf - 2.0))
            + tx1 * ty1 / (2.0 * nf * (nf - 1.0));
        if var > 0.0 {
            erfc((s as f64).abs() / var.sqrt() / std::f64::consts::SQRT_2).min(1.0)
        } else {
            1.0
        }
    };
    if alpha.is_some_and(|a| p_value.partial_cmp(&a) != Some(std::cmp::Ordering::Less)) {
        return None;
    }
    let slope = if n <= THEIL_SEN_MAX_N {
        // The finite pairwise slopes as order keys (integers in the order of `total_cmp`), which
        // select faster than the values.
        let mut keys: Vec<u64> = Vec::with_capacity(n * (n - 1) / 2);
        for i in 0..n {
            for j in i + 1..n {
                let dx = pts[j].0 - pts[i].0;
                if dx != 0.0 {
                    let s = (pts[j].1 - pts[i].1) / dx;
                    if s.is_finite() {
                        keys.push(super::rank::order_key(s));
                    }
                }
            }
        }
        median_of_keys(&mut keys)
    } else {
        let mx = pts.iter().map(|p| p.0 / nf).sum::<f64>();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - mean)).sum();
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        sxy / sxx
    };
    Some(Drift {
        n,
        tau,
        p_value,
        slope,
        slope_pct_per_run: if mean == 0.0 {
            f64::NAN
        } else {
            slope / mean * 100.0
        },
    })
}

/// [`median`] of the values whose order keys ([`super::rank::order_key`]) are `k` (reordered in
/// place): the same value (the middle key, or the halves of the two middle values added).
fn median_of_keys(k: &mut [u64]) -> f64 {
    use super::rank::from_key;
    if k.is_empty() {
        return f64::NAN;
    }
    let (m, odd) = (k.len() / 2, k.len() % 2 == 1);
    let (below, hi, _) = k.select_nth_unstable(m);
    let hi = from_key(*hi);
    if odd {
        hi
    } else {
        // The largest value below the middle one (as `median`'s fold of `f64::max`, which can
        // only differ in the sign of a zero, and then hi ≥ +0 makes the sum the same).
        let lo = from_key(below.iter().copied().max().unwrap_or(0));
        lo / 2.0 + hi / 2.0
    }
}

/// Median of the values (reordered in place); NaN when empty.
#[cfg(test)]
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let m = v.len() / 2;
    let (_, hi, _) = v.select_nth_unstable_by(m, f64::total_cmp);
    let hi = *hi;
    if v.len() % 2 == 1 {
        hi
    } else {
        let lo = v[..m].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        lo / 2.0 + hi / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The O(n²) definition of `S`.
    fn kendall_s_pairwise(p: &[(f64, f64)]) -> i64 {
        let sign = |a: f64, b: f64| match a.partial_cmp(&b) {
            Some(std::cmp::Ordering::Greater) => 1i64,
            Some(std::cmp::Ordering::Less) => -1,
            _ => 0,
        };
        let mut s = 0;
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                s += sign(p[j].0, p[i].0) * sign(p[j].1, p[i].1);
            }
        }
        s
    }

    #[test]
    fn knight_s_matches_the_pairwise_definition() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(7);
        for case in 0..400 {
            let n = rng.random_range(0..150); // both the pairwise count and the merge
            // Few distinct values: many ties in x, in y and in both.
            let levels = 1 + case % 9;
            let p: Vec<(f64, f64)> = (0..n)
                .map(|_| {
                    (
                        rng.random_range(0..levels) as f64,
                        rng.random_range(0..levels) as f64 * 0.5,
                    )
                })
                .collect();
            assert_eq!(kendall_s(&p).0, kendall_s_pairwise(&p), "{p:?}");
        }
    }

    #[test]
    fn median_of_keys_is_the_median_of_the_values() {
        use crate::stats::rank::order_key;
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(11);
        for case in 0..500 {
            let n = rng.random_range(0..40);
            let levels = 1 + case % 7;
            let mut v: Vec<f64> = (0..n)
                .map(|_| match rng.random_range(0..levels + 3) {
                    0 => 0.0,
                    1 => -0.0,
                    2 => rng.random::<f64>() - 0.5,
                    k => (k - 3) as f64 - 2.0,
                })
                .collect();
            let mut keys: Vec<u64> = v.iter().map(|&x| order_key(x)).collect();
            let (a, b) = (median_of_keys(&mut keys), median(&mut v));
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{a} {b}"
            );
        }
    }

    fn pts(y: &[f64]) -> Vec<(f64, f64)> {
        y.iter().enumerate().map(|(i, &v)| (i as f64, v)).collect()
    }

    #[test]
    fn perfectly_increasing_runs() {
        // 5 increasing values: S = 10, τ = 1; exact p = 2/5! = 1/60.
        let d = drift(&pts(&[10.0, 11.0, 12.0, 13.0, 14.0])).expect("drift");
        assert_eq!(d.tau, 1.0);
        assert!((d.p_value - 2.0 / 120.0).abs() < 1e-15);
        assert_eq!(d.slope, 1.0);
        assert!((d.slope_pct_per_run - 1.0 / 12.0 * 100.0).abs() < 1e-12);
    }

    #[test]
    fn exact_p_by_counting_permutations() {
        // y = 1 3 2 4: one discordant pair, S = 6 − 2 = 4, τ = 4/6.
        // Permutations of 4 with ≤ 1 inversion: 1 + 3 = 4 of 24 → p = 2·4/24 = 1/3
        // (R: cor.test(1:4, c(1,3,2,4), method = "kendall")$p.value = 0.3333).
        let d = drift(&pts(&[1.0, 3.0, 2.0, 4.0])).expect("drift");
        assert!((d.tau - 4.0 / 6.0).abs() < 1e-15);
        assert!((d.p_value - 1.0 / 3.0).abs() < 1e-12);
        // Pairwise slopes 2, 0.5, 1, -1, 0.5, 2 → median of (−1, .5, .5, 1, 2, 2) = 0.75.
        assert!((d.slope - 0.75).abs() < 1e-15);
    }

    #[test]
    fn matches_r_cor_test_kendall() {
        // R: cor.test(seq_along(x), x, method = "kendall"): tau 0.6888888889, p 0.004686948854.
        let x = [2.1, 3.5, 1.9, 4.4, 5.0, 3.9, 6.1, 5.5, 7.2, 6.0];
        let d = drift(&pts(&x)).expect("drift");
        assert!((d.tau - 0.6888888889).abs() < 1e-9);
        assert!((d.p_value - 0.004686948854).abs() < 1e-11);
    }

    #[test]
    fn ties_use_the_normal_approximation() {
        // y = 1 1 2 2: S = 4 (4 concordant, 0 discordant, 2 tied in y), n0 = 6, n2 = 2:
        // τ_b = 4/√(6·4) = 0.8165. Var S = (4·3·13 − 2·2·1·9)/18 = (156 − 36)/18 = 6.667;
        // z = 4/2.582 = 1.549, p = 0.1213 (R's cor.test gives the same).
        let d = drift(&pts(&[1.0, 1.0, 2.0, 2.0])).expect("drift");
        assert!((d.tau - 4.0 / 24f64.sqrt()).abs() < 1e-12);
        let z = 4.0 / (120.0f64 / 18.0).sqrt();
        assert!((d.p_value - erfc(z / std::f64::consts::SQRT_2)).abs() < 1e-12);
        assert!((d.p_value - 0.1213).abs() < 1e-3);
    }

    #[test]
    fn no_trend_and_odd_input() {
        let flat = drift(&pts(&[5.0, 5.0, 5.0, 5.0])).expect("drift");
        assert_eq!((flat.tau, flat.p_value, flat.slope), (0.0, 1.0, 0.0));
        assert!(drift(&pts(&[1.0, 2.0])).is_none());
        assert!(drift(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]).is_none());
        let d = drift(&[(0.0, 1.0), (1.0, f64::NAN), (2.0, 2.0), (3.0, 3.0)]).expect("drift");
        assert_eq!(d.n, 3);
        // Symmetric zig-zag: S = 0, p = 1.
        let z = drift(&pts(&[1.0, 3.0, 2.0, 2.5, 1.5])).expect("drift");
        assert!(z.p_value > 0.5);
    }

    #[test]
    fn large_n_uses_the_normal_approximation_and_least_squares() {
        let y: Vec<f64> = (0..2500).map(|i| 100.0 + 0.01 * i as f64).collect();
        let d = drift(&pts(&y)).expect("drift");
        assert_eq!(d.tau, 1.0);
        assert!(d.p_value < 1e-100);
        assert!((d.slope - 0.01).abs() < 1e-9);
    }
}
