//! Hartigan's dip statistic of unimodality and its p-value.
//!
//! Source: J. A. Hartigan and P. M. Hartigan (1985), "The Dip Test of Unimodality",
//! *Annals of Statistics* 13(1), 70–84. The dip of a distribution function `F` is
//! `inf_G sup_x |F(x) − G(x)|` over unimodal distribution functions `G` (convex up to the mode,
//! concave after it). For the empirical distribution function of a sample it is computed with
//! the paper's construction from the greatest convex minorant and least concave majorant:
//!
//! 1. Start with the modal interval `[x_L, x_U]` = the whole sample and `D = 0`.
//! 2. Take the greatest convex minorant `G` and the least concave majorant `L` of `F` on
//!    `[x_L, x_U]`; let `d = sup |G − L|` (attained at a touching point of `G` or `L`).
//! 3. If `d ≤ D`, stop: the dip is `D / 2`.
//! 4. Otherwise the supremum gives a narrower modal interval `[x_L⁰, x_U⁰]`: if it is attained
//!    at a touching point `g` of `G`, `x_L⁰ = g` and `x_U⁰` is the first touching point of `L`
//!    at or after `g`; if at a touching point `l` of `L`, `x_U⁰ = l` and `x_L⁰` is the last
//!    touching point of `G` at or before `l`. Set
//!    `D = max(D, sup_[x_L, x_L⁰] |G − F|, sup_[x_U⁰, x_U] |L − F|)`, move to `[x_L⁰, x_U⁰]`
//!    and go to 2.
//!
//! Distances are measured in counts (`F = i` at the `i`-th order statistic) and the jump of one
//! count at each data point is included (`F` runs from `i − 1` to `i` at `x_(i)`), so the dip
//! of any sample of size `n` is at least `1/(2n)` and at most `1/4` for `n ≥ 2`; divided by
//! `2n` this is the convention of Hartigan's published tables and of the R and Python `diptest`
//! packages. Tied values are treated as the limit of the sample with the ties separated by
//! vanishing gaps in sample order: on a run of equal values, hull points are placed by their
//! count (rank), which is what the reference implementations give.
//!
//! The p-value is `P(dip of n Uniform(0,1) samples ≥ dip)` (the paper takes the uniform as the
//! null: asymptotically the least favourable unimodal distribution), read from
//! [`super::dip_table`], a
//! table of quantiles of `√n·dip` that this project simulated itself (`examples/make_dip_table.rs`).
//! Interpolation is linear in `1/√n` between the table's sample sizes and linear in probability
//! between its quantiles.

use super::dip_table::{DIP_TABLE_N, DIP_TABLE_PROB, DIP_TABLE_Q};

/// Dip statistic of the sample `x` (any order, any scale; a fraction of probability mass in
/// `[1/(2n), 1/4]` for `n ≥ 2`).
///
/// - `n = 1` gives `0.5` and `n = 2, 3` give `1/(2n)`: every sample of fewer than four values
///   is as unimodal as a sample can be (the reference packages return the same values).
/// - Tied values are allowed (see the module notes); a constant sample gives `1/(2n)`.
/// - Empty input, or any NaN or infinite value, gives NaN.
///
/// The statistic is invariant under `x ↦ a·x + b` with `a > 0`; values are first divided by
/// a power of two near their largest magnitude (exact), so magnitudes near `1e±300` work.
/// Cost: one sort plus `O(n)` per narrowing of the modal interval.
pub fn dip(x: &[f64]) -> f64 {
    if x.is_empty() || x.iter().any(|v| !v.is_finite()) {
        return f64::NAN;
    }
    let scale = pow2_scale(x);
    let mut v: Vec<f64> = x.iter().map(|a| a / scale).collect();
    v.sort_by(f64::total_cmp);
    let (mut g, mut l) = (Vec::with_capacity(v.len()), Vec::with_capacity(v.len()));
    dip_sorted_counts(&v, &mut g, &mut l) / (2.0 * v.len() as f64)
}

/// [`dip`] of a finite, non-empty sample, usually already sorted by `f64::total_cmp` (as the
/// de-rounded samples of [`super::regimes`] are): the same value, with the sort skipped when
/// the values are in order (dividing by a power of two keeps the
/// order, so [`dip`]'s stable sort would leave them as they are).
pub(crate) fn dip_of_sorted(x: &[f64]) -> f64 {
    if x.is_empty() || x.iter().any(|v| !v.is_finite()) {
        return f64::NAN;
    }
    let scale = pow2_scale(x);
    let mut v: Vec<f64> = x.iter().map(|a| a / scale).collect();
    if !v.windows(2).all(|w| w[0].total_cmp(&w[1]).is_le()) {
        v.sort_by(f64::total_cmp);
    }
    let (mut g, mut l) = (Vec::with_capacity(v.len()), Vec::with_capacity(v.len()));
    dip_sorted_counts(&v, &mut g, &mut l) / (2.0 * v.len() as f64)
}

/// A power of two near the largest magnitude of `x` (1 if all are 0).
pub(crate) fn pow2_scale(x: &[f64]) -> f64 {
    let max = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if max == 0.0 || !max.is_finite() {
        return 1.0;
    }
    let e = max.log2().floor().clamp(-1000.0, 1000.0) as i32;
    2.0f64.powi(e)
}

/// Height (in counts) at the abscissa of point `p` of the hull segment from vertex `a` to
/// vertex `b` (`a ≤ p ≤ b`). A segment inside a run of ties is vertical in the limit of
/// separated ties and passes through every point of the run.
fn height(v: &[f64], a: usize, b: usize, p: usize) -> f64 {
    let dx = v[b] - v[a];
    if dx == 0.0 {
        p as f64
    } else {
        a as f64 + (b - a) as f64 * ((v[p] - v[a]) / dx)
    }
}

/// Greatest convex minorant (`LOWER`) or least concave majorant of the points `(v[i], i)` for
/// `i` in `lo..=hi`: the indices of its vertices, increasing. A vertex `b` after `a` stays
/// when the turn to the next point `c` is strictly convex (concave): the orientation
/// `(v[b] − v[a])·(c − b) − (v[c] − v[b])·(b − a)` is positive (negative).
fn hull<const LOWER: bool>(v: &[f64], lo: usize, hi: usize, out: &mut Vec<usize>) {
    out.clear();
    let v = &v[..=hi];
    for (i, &vi) in v.iter().enumerate().skip(lo) {
        while let [.., a, b] = out[..] {
            let (va, vb) = (v[a], v[b]);
            let c = (vb - va) * (i - b) as f64 - (vi - vb) * (b - a) as f64;
            let keep = if LOWER { c > 0.0 } else { c < 0.0 };
            if keep {
                break;
            }
            out.pop();
        }
        out.push(i);
    }
}

/// Twice the dip, in counts, of the sorted finite sample `v` (non-empty); `g` and `l` are
/// buffers for the two hulls.
fn dip_sorted_counts(v: &[f64], g: &mut Vec<usize>, l: &mut Vec<usize>) -> f64 {
    let n = v.len();
    let (mut lo, mut hi) = (0usize, n - 1);
    let mut big_d = 0.0f64;
    // Each pass narrows [lo, hi] strictly or stops; the cap only guards against a logic error.
    for _ in 0..=n + 1 {
        if lo == hi {
            // A single point: G = L there, d = 1 (the jump), and the fit on it is 1 too.
            big_d = big_d.max(1.0);
            break;
        }
        hull::<true>(v, lo, hi, g);
        hull::<false>(v, lo, hi, l);

        // d = sup (L − G) + 1 over the vertices of both hulls (the +1 is the jump of F at a
        // data point: G lies under the lower corners, L over the upper ones).
        let mut d = f64::NEG_INFINITY;
        let (mut x_lo, mut x_hi) = (lo, hi);
        // Distances at the vertices of G, against L.
        let mut j = 0usize;
        for &gi in g.iter() {
            while l[j + 1] < gi {
                j += 1;
            }
            // l[j] < gi ≤ l[j + 1] (or gi = lo = l[0]).
            let (a, b) = if gi == l[j] {
                (gi, gi)
            } else {
                (l[j], l[j + 1])
            };
            let dist = if a == b {
                1.0
            } else {
                height(v, a, b, gi) - gi as f64 + 1.0
            };
            if dist > d {
                d = dist;
                x_lo = gi;
                x_hi = if gi == l[j] { gi } else { l[j + 1] };
            }
        }
        // Distances at the vertices of L, against G.
        let mut k = 0usize;
        for &li in l.iter() {
            while k + 1 < g.len() && g[k + 1] <= li {
                k += 1;
            }
            // g[k] ≤ li < g[k + 1] (or li = hi = g[k]).
            let dist = if g[k] == li {
                1.0
            } else {
                li as f64 - height(v, g[k], g[k + 1], li) + 1.0
            };
            if dist > d {
                d = dist;
                x_lo = g[k];
                x_hi = li;
            }
        }

        if d <= big_d {
            break;
        }
        // Fit of F by G on [lo, x_lo] (F above G: at the upper corners) and by L on
        // [x_hi, hi] (F below L: at the lower corners).
        let mut s = 0usize;
        for p in lo..=x_lo {
            while g[s + 1] < p && s + 2 < g.len() {
                s += 1;
            }
            let gh = if p == g[s] {
                p as f64
            } else {
                height(v, g[s], g[s + 1], p)
            };
            big_d = big_d.max(p as f64 - gh + 1.0);
        }
        let mut s = l.iter().position(|&li| li >= x_hi).unwrap_or(0);
        for p in x_hi..=hi {
            while s + 1 < l.len() && l[s + 1] <= p {
                s += 1;
            }
            let lh = if p == l[s] || s + 1 == l.len() {
                p as f64
            } else {
                height(v, l[s], l[s + 1], p)
            };
            big_d = big_d.max(lh - p as f64 + 1.0);
        }
        if (x_lo, x_hi) == (lo, hi) {
            break;
        }
        lo = x_lo;
        hi = x_hi;
    }
    big_d
}

/// The p-value of the dip test: the probability that `n` independent Uniform(0,1) values have
/// a dip of at least `dip`, read from the project's simulated table (module notes).
///
/// - `n < 4` gives 1 (no sample that small can show multimodality).
/// - A dip at or below the table's smallest quantile gives 1; one above the table's largest
///   quantile (probability 0.999) gives [`DIP_P_FLOOR`], so p-values are resolved down to
///   0.001 and reported as 0.001 below that.
/// - For `n` above the largest tabulated size (1000) the `√n·dip` quantiles of `n = 1000` are
///   used (they are within about 1% of the asymptotic ones).
/// - NaN `dip` gives NaN.
///
/// Cost: a few dozen arithmetic operations (no allocation, no simulation).
pub fn dip_p_value(dip: f64, n: usize) -> f64 {
    if dip.is_nan() {
        return f64::NAN;
    }
    if n < 4 {
        return 1.0;
    }
    let s = (n as f64).sqrt() * dip;
    let row = |k: usize, j: usize| DIP_TABLE_Q[k][j];
    let last = DIP_TABLE_N.len() - 1;
    // Bracket n in the table and the weight of the upper row (linear in 1/√n).
    let (k0, k1, w) = match DIP_TABLE_N.iter().position(|&m| m >= n) {
        None => (last, last, 0.0),
        Some(k) if DIP_TABLE_N[k] == n || k == 0 => (k, k, 0.0),
        Some(k) => {
            let (a, b) = (DIP_TABLE_N[k - 1] as f64, DIP_TABLE_N[k] as f64);
            let w = (1.0 / a.sqrt() - 1.0 / (n as f64).sqrt()) / (1.0 / a.sqrt() - 1.0 / b.sqrt());
            (k - 1, k, w)
        }
    };
    let q = |j: usize| row(k0, j) + w * (row(k1, j) - row(k0, j));
    let m = DIP_TABLE_PROB.len();
    if s <= q(0) {
        return 1.0;
    }
    if s > q(m - 1) {
        return DIP_P_FLOOR;
    }
    // p = P(dip ≥ s) = 1 − P(dip < s): the left-continuous reading of the quantiles, so a dip
    // on an atom of the null distribution (small n, where many samples share the smallest
    // possible dip) counts the whole atom. Find q(j) < s ≤ q(j + 1).
    let mut j = 0;
    while j + 2 < m && q(j + 1) < s {
        j += 1;
    }
    let (qa, qb) = (q(j), q(j + 1));
    let (pa, pb) = (DIP_TABLE_PROB[j], DIP_TABLE_PROB[j + 1]);
    let cdf = if qb > qa {
        pa + (pb - pa) * (s - qa) / (qb - qa)
    } else {
        pb
    };
    (1.0 - cdf).clamp(DIP_P_FLOOR, 1.0)
}

/// The smallest p-value [`dip_p_value`] reports: `1 −` the table's highest probability level.
pub const DIP_P_FLOOR: f64 = 0.001;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_samples_follow_the_reference_convention() {
        assert_eq!(dip(&[1.0]), 0.5);
        assert_eq!(dip(&[1.0, 2.0]), 0.25);
        assert!((dip(&[1.0, 2.0, 4.0]) - 1.0 / 6.0).abs() < 1e-15);
        assert_eq!(dip(&[1.0, 2.0, 3.0, 4.0]), 0.125);
        assert_eq!(dip(&[1.0, 1.0, 1.0, 1.0]), 0.125);
        assert_eq!(dip(&[1.0, 1.0, 2.0, 2.0]), 0.25);
        assert!(dip(&[]).is_nan());
        assert!(dip(&[1.0, f64::NAN]).is_nan());
        assert!(dip(&[1.0, f64::INFINITY]).is_nan());
    }

    #[test]
    fn two_point_masses_give_half_the_smaller_weight() {
        // Atoms of weight 1/3 and 2/3: the best unimodal fit misses the smaller atom by half.
        let x = [0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
        assert!((dip(&x) - 1.0 / 6.0).abs() < 1e-15);
    }

    #[test]
    fn affine_invariant_and_extreme_magnitudes() {
        let x = [0.3, 1.7, 0.2, 5.0, 5.2, 4.9, 0.1, 5.1, 2.5];
        let d = dip(&x);
        let y: Vec<f64> = x.iter().map(|v| v * 1e300).collect();
        let z: Vec<f64> = x.iter().map(|v| v * -3.0 + 7.0).collect();
        assert!((dip(&y) - d).abs() < 1e-12);
        assert!((dip(&z) - d).abs() < 1e-12);
    }

    #[test]
    fn p_value_edges() {
        assert_eq!(dip_p_value(0.3, 3), 1.0);
        assert_eq!(dip_p_value(1.0 / 60.0, 30), 1.0);
        assert_eq!(dip_p_value(0.25, 30), DIP_P_FLOOR);
        assert!(dip_p_value(f64::NAN, 30).is_nan());
        let mut last = 1.0;
        for k in 1..=50 {
            let p = dip_p_value(k as f64 * 0.004, 30);
            assert!(p <= last && (0.0..=1.0).contains(&p));
            last = p;
        }
        // Beyond the table, and between two tabulated sizes.
        assert!((0.0..=1.0).contains(&dip_p_value(0.02, 5000)));
        assert!((0.0..=1.0).contains(&dip_p_value(0.05, 33)));
    }
}
