//! Modes of a sample from a Gaussian kernel density estimate.
//!
//! Formulas:
//! - Kernel density estimate `f(t) = 1/(n·h) · Σ φ((t − x_i)/h)` with the standard normal
//!   density `φ` (Silverman 1986, *Density Estimation for Statistics and Data Analysis*,
//!   eq. 2.2a).
//! - Bandwidth by Silverman's rule of thumb, `h = 0.9 · min(s, IQR/1.34) · n^(−1/5)` (Silverman
//!   1986, eq. 3.31), `s` the sample standard deviation and `IQR` the type-7 interquartile range;
//!   when `IQR = 0` the rule uses `s` alone (as R's `bw.nrd0`).
//!
//! The density is evaluated on [`GRID_POINTS`] equally spaced points from `min − 3h` to
//! `max + 3h` (kernel terms beyond `7h` are skipped; they are below `1e−10` of the peak). A mode is
//! a local maximum of the density on the grid (the middle of a plateau); an antimode is the
//! lowest grid point between two neighbouring modes. A mode's **basin** runs from the antimode on
//! its left to the one on its right, and its **share** is the fraction of samples in the basin.
//!
//! Tiny bumps are ignored: while some mode holds less than [`MIN_MODE_SHARE`] of the samples,
//! or rises less than [`MIN_PROMINENCE`] (relative to the highest peak) above the higher of
//! its neighbouring antimodes, the weakest such mode (smallest share) is merged into the
//! neighbour across its shallower antimode; the merged mode keeps the taller peak as its centre
//! and adds the shares.

/// Number of grid points on which the density is evaluated.
pub const GRID_POINTS: usize = 512;

/// A mode holding less than this fraction of the samples is merged into a neighbour.
pub const MIN_MODE_SHARE: f64 = 0.05;

/// A mode whose peak density exceeds the higher neighbouring antimode by less than this fraction
/// of the highest peak density is merged into a neighbour.
pub const MIN_PROMINENCE: f64 = 0.05;

/// One mode of the estimated density.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mode {
    /// Location of the density peak, in the units of the samples.
    pub centre: f64,
    /// Fraction of the samples in the mode's basin (between its neighbouring antimodes), in
    /// `(0, 1]`; the shares of all modes of a sample add up to 1.
    pub share: f64,
    /// Estimated density at the peak, per unit of the samples (the KDE integrates to 1).
    pub density: f64,
}

/// The low point between two neighbouring modes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Antimode {
    /// Location of the density minimum, in the units of the samples: the boundary between the
    /// basins of the two modes.
    pub location: f64,
    /// Estimated density there, per unit of the samples.
    pub density: f64,
}

/// The modes of a kernel density estimate and the antimodes between them.
#[derive(Clone, Debug, PartialEq)]
pub struct KdeModes {
    /// Silverman's bandwidth used, in the units of the samples (0 for a constant sample).
    pub bandwidth: f64,
    /// The modes, left to right (empty only for empty or non-finite input).
    pub modes: Vec<Mode>,
    /// `antimodes[k]` lies between `modes[k]` and `modes[k + 1]` (one fewer than the modes).
    pub antimodes: Vec<Antimode>,
}

/// Type-7 quantile (R's default) of sorted, non-empty values.
fn quantile7(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Silverman's rule-of-thumb bandwidth `0.9 · min(s, IQR/1.34) · n^(−1/5)` (Silverman 1986,
/// eq. 3.31), in the units of the samples.
///
/// `IQR` is the type-7 interquartile range; when it is 0 the rule uses the standard deviation
/// `s` alone. `None` for fewer than 2 values, any NaN or infinite value, or a constant sample
/// (no spread: the density is a single spike).
pub fn silverman_bandwidth(x: &[f64]) -> Option<f64> {
    if x.len() < 2 || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let scale = super::dip::pow2_scale(x);
    let mut v: Vec<f64> = x.iter().map(|a| a / scale).collect();
    v.sort_by(f64::total_cmp);
    silverman_sorted(&v).map(|h| h * scale)
}

/// Silverman's bandwidth of sorted finite values of magnitude at most ~1.
fn silverman_sorted(v: &[f64]) -> Option<f64> {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let iqr = quantile7(v, 0.75) - quantile7(v, 0.25);
    let spread = if iqr > 0.0 { sd.min(iqr / 1.34) } else { sd };
    let h = 0.9 * spread * n.powf(-0.2);
    (h > 0.0 && h.is_finite()).then_some(h)
}

/// The modes of the Gaussian kernel density estimate of `x` with Silverman's bandwidth, left to
/// right, after merging tiny bumps (module notes).
///
/// - Empty input, or any NaN or infinite value: no modes.
/// - One value, or a constant sample: one mode at that value with share 1 and infinite
///   density, bandwidth 0.
///
/// Cost: `O(n log n + GRID_POINTS · k)` with `k` the samples within `7h` of a grid point.
pub fn kde_modes(x: &[f64]) -> KdeModes {
    kde_modes_with(x, true).0
}

/// [`kde_modes`], trying the cheap density first when `cheap` (the result is the same either
/// way); also says whether the cheap density decided the search.
fn kde_modes_with(x: &[f64], cheap: bool) -> (KdeModes, bool) {
    let none = KdeModes {
        bandwidth: 0.0,
        modes: Vec::new(),
        antimodes: Vec::new(),
    };
    if x.is_empty() || x.iter().any(|v| !v.is_finite()) {
        return (none, false);
    }
    let scale = super::dip::pow2_scale(x);
    let mut v: Vec<f64> = x.iter().map(|a| a / scale).collect();
    v.sort_by(f64::total_cmp);
    let Some(h) = silverman_sorted(&v) else {
        let one = KdeModes {
            modes: vec![Mode {
                centre: x[0],
                share: 1.0,
                density: f64::INFINITY,
            }],
            ..none
        };
        return (one, false);
    };
    let n = v.len();
    let (lo, hi) = (v[0] - 3.0 * h, v[n - 1] + 3.0 * h);
    let step = (hi - lo) / (GRID_POINTS - 1) as f64;
    let grid: Vec<f64> = (0..GRID_POINTS).map(|i| lo + step * i as f64).collect();
    // The samples within 7h of each grid point: `v[first..last]`.
    let mut windows = vec![(0usize, 0usize); GRID_POINTS];
    let (mut first, mut last) = (0usize, 0usize);
    for (w, &t) in windows.iter_mut().zip(&grid) {
        while first < n && v[first] < t - 7.0 * h {
            first += 1;
        }
        while last < n && v[last] <= t + 7.0 * h {
            last += 1;
        }
        *w = (first, last.max(first));
    }
    // Unnormalised density at grid point `i` (the factor 1/(n·h·√(2π)) does not move modes or
    // antimodes), by the library's `exp`: the figures this function returns.
    let exact = |i: usize| -> f64 {
        let (f, l) = windows[i];
        let t = grid[i];
        v[f..l]
            .iter()
            .map(|&a| {
                let z = (t - a) / h;
                (-0.5 * z * z).exp()
            })
            .sum()
    };
    // First the cheap density with its error bounds: when every comparison the mode search
    // makes is decided beyond them, the search on the library's density takes the same steps,
    // so only the densities returned are computed exactly; otherwise all of it is.
    let searched = if cheap {
        let (approx, bound) = approx_density(&v, &grid, &windows, h);
        let d = Density {
            d: &approx,
            bound: Some(&bound),
        };
        search(&d, &grid, &v)
    } else {
        None
    };
    let decided = searched.is_some();
    let (peaks, valleys, counts, dens) = match searched {
        Some((p, q, c)) => {
            let mut dens = vec![f64::NAN; GRID_POINTS];
            for &i in p.iter().chain(&q) {
                dens[i] = exact(i);
            }
            (p, q, c, dens)
        }
        None => {
            let dens: Vec<f64> = (0..GRID_POINTS).map(exact).collect();
            let full = Density {
                d: &dens,
                bound: None,
            };
            let (p, q, c) = search(&full, &grid, &v).unwrap_or_default();
            (p, q, c, dens)
        }
    };

    // Normalising factor of the density, per unit of the (unscaled) samples.
    let norm = 1.0 / (n as f64 * h * scale * (2.0 * std::f64::consts::PI).sqrt());
    let modes = KdeModes {
        bandwidth: h * scale,
        modes: peaks
            .iter()
            .zip(&counts)
            .map(|(&p, &c)| Mode {
                centre: grid[p] * scale,
                share: c as f64 / n as f64,
                density: dens[p] * norm,
            })
            .collect(),
        antimodes: valleys
            .iter()
            .map(|&q| Antimode {
                location: grid[q] * scale,
                density: dens[q] * norm,
            })
            .collect(),
    };
    (modes, decided)
}

/// Densities on the grid, exact (`bound` `None`) or each within `bound[i]` of the exact one.
struct Density<'a> {
    d: &'a [f64],
    bound: Option<&'a [f64]>,
}

impl Density<'_> {
    fn bound(&self, i: usize) -> f64 {
        self.bound.map_or(0.0, |b| b[i])
    }

    /// Whether `a − b` (values with error bounds `ea`, `eb`) has the same sign, or zero, as
    /// the exact difference: beyond the bounds, or both exact.
    fn sure(a: f64, ea: f64, b: f64, eb: f64) -> bool {
        (ea == 0.0 && eb == 0.0) || (a - b).abs() > ea + eb
    }

    /// The exact ordering of the densities at `i` and `j`, `None` when the bounds do not
    /// decide it.
    fn cmp(&self, i: usize, j: usize) -> Option<std::cmp::Ordering> {
        let (a, b) = (self.d[i], self.d[j]);
        // As the comparison operators order them (0 and −0 are equal).
        Density::sure(a, self.bound(i), b, self.bound(j))
            .then(|| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal))
    }

    /// The first grid point of lowest density in `from..=to`, `None` when the bounds do not
    /// decide which.
    fn argmin(&self, from: usize, to: usize) -> Option<usize> {
        let m = (from..=to).min_by(|&a, &b| self.d[a].total_cmp(&self.d[b]))?;
        (from..=to)
            .filter(|&j| j != m)
            .all(|j| match self.cmp(j, m) {
                Some(std::cmp::Ordering::Greater) => true,
                // An exact tie after `m`: the first minimum is `m` either way.
                Some(std::cmp::Ordering::Equal) => j > m,
                _ => false,
            })
            .then_some(m)
    }
}

/// Peaks, antimodes and the samples per basin of the density `dens` on `grid` (the module
/// notes), `None` when `dens` has error bounds and one of its comparisons is within them.
/// For an exact density it always answers.
#[allow(clippy::type_complexity)]
fn search(
    dens: &Density<'_>,
    grid: &[f64],
    v: &[f64],
) -> Option<(Vec<usize>, Vec<usize>, Vec<usize>)> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let n = v.len();
    // Peaks (middle of each plateau that is higher than both sides) and the antimodes between.
    let mut peaks: Vec<usize> = Vec::new();
    let mut i = 1;
    while i + 1 < GRID_POINTS {
        if dens.cmp(i, i - 1)? == Greater {
            let mut j = i;
            while j + 1 < GRID_POINTS && dens.cmp(j + 1, i)? == Equal {
                j += 1;
            }
            if j + 1 < GRID_POINTS && dens.cmp(j + 1, i)? == Less {
                peaks.push((i + j) / 2);
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
    if peaks.is_empty() {
        // Cannot happen for a finite sample (the density vanishes at both grid ends); be safe.
        dens.bound?;
        let top = (0..GRID_POINTS)
            .max_by(|&a, &b| dens.d[a].total_cmp(&dens.d[b]))
            .unwrap_or(0);
        peaks.push(top);
    }
    let mut valleys: Vec<usize> = Vec::with_capacity(peaks.len());
    for w in peaks.windows(2) {
        valleys.push(dens.argmin(w[0], w[1])?);
    }

    // Samples per basin: basin k holds the samples below grid[valleys[k]] and not in basin k−1.
    let mut counts = vec![0usize; peaks.len()];
    let mut k = 0;
    for &a in v {
        while k < valleys.len() && a >= grid[valleys[k]] {
            k += 1;
        }
        counts[k] += 1;
    }

    // Merge tiny bumps, weakest first.
    let d = |i: usize| dens.d[i];
    let e = |i: usize| dens.bound(i);
    let top_at = peaks
        .iter()
        .copied()
        .max_by(|&a, &b| d(a).total_cmp(&d(b)))
        .unwrap_or(0);
    // The highest peak's density, and a bound on its error (the largest of any peak's).
    let top = d(top_at);
    let top_bound = peaks.iter().map(|&p| e(p)).fold(0.0f64, f64::max);
    loop {
        if peaks.len() < 2 {
            break;
        }
        let mut weak: Option<usize> = None;
        for m in 0..peaks.len() {
            let small = (counts[m] as f64) < MIN_MODE_SHARE * n as f64;
            let low = if small {
                true
            } else {
                // prominence = peak − max(left antimode, right antimode) (0 beyond the ends).
                let left = (m > 0).then(|| valleys[m - 1]);
                let right = (m < valleys.len()).then(|| valleys[m]);
                let (side, side_bound) = match (left, right) {
                    (Some(l), Some(r)) => {
                        if d(l).max(d(r)) == d(l) {
                            (d(l), e(l) + e(r))
                        } else {
                            (d(r), e(l) + e(r))
                        }
                    }
                    (Some(q), None) | (None, Some(q)) => (d(q), e(q)),
                    (None, None) => (0.0, 0.0),
                };
                let prominence = d(peaks[m]) - side;
                let limit = MIN_PROMINENCE * top;
                let err = e(peaks[m]) + side_bound;
                if !Density::sure(prominence, err, limit, MIN_PROMINENCE * top_bound) {
                    return None;
                }
                prominence < limit
            };
            if low && weak.is_none_or(|w| counts[m] < counts[w]) {
                weak = Some(m);
            }
        }
        let Some(m) = weak else { break };
        // Merge across the higher (shallower) antimode; valley index of the merge.
        let vi = if m == 0 {
            0
        } else if m == peaks.len() - 1 || dens.cmp(valleys[m - 1], valleys[m])? != Less {
            m - 1
        } else {
            m
        };
        // Modes vi and vi + 1 merge.
        let keep = if dens.cmp(peaks[vi], peaks[vi + 1])? != Less {
            peaks[vi]
        } else {
            peaks[vi + 1]
        };
        peaks[vi] = keep;
        peaks.remove(vi + 1);
        counts[vi] += counts[vi + 1];
        counts.remove(vi + 1);
        valleys.remove(vi);
    }
    Some((peaks, valleys, counts))
}

/// Relative error bound of one kernel term of [`approx_density`] against the library's `exp`
/// of `−z²/2`: [`super::regimes::exp_nonpositive`] is within `10⁻¹⁴` of `eᵗ`, the library
/// within one unit in the last place (`1.1·10⁻¹⁶`), and the argument, computed as
/// `(t − a)²·(−1/(2h²))` instead of `−((t − a)/h)²/2`, differs by at most 5 units of rounding
/// of `|t| ≤ 24.5` (the window), so `eᵗ` by at most `24.5·5·1.1·10⁻¹⁶ = 1.4·10⁻¹⁴` relative;
/// about four times their sum, for safety.
const TERM_BOUND: f64 = 1e-13;

/// The density of `kde_modes` on `grid` by a cheaper exponential
/// ([`super::regimes::exp_nonpositive`], vectorised), and for each grid point a bound on its
/// distance from the density by the library's `exp` summed in order: [`TERM_BOUND`] of the
/// sum for the terms, and `2k` units of rounding (`k` terms) for the two summation orders.
/// An empty window is exactly 0 in both, with bound 0.
fn approx_density(
    v: &[f64],
    grid: &[f64],
    windows: &[(usize, usize)],
    h: f64,
) -> (Vec<f64>, Vec<f64>) {
    let mut d = vec![0.0f64; grid.len()];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has both features, checked just above.
        unsafe { density_avx2(v, grid, windows, h, &mut d) };
        return with_bounds(d, windows);
    }
    density_body::<false>(v, grid, windows, h, &mut d);
    with_bounds(d, windows)
}

fn with_bounds(d: Vec<f64>, windows: &[(usize, usize)]) -> (Vec<f64>, Vec<f64>) {
    let bound = d
        .iter()
        .zip(windows)
        .map(|(&x, &(f, l))| {
            let k = (l - f) as f64;
            x * (TERM_BOUND + 2.0 * k * f64::EPSILON)
        })
        .collect();
    (d, bound)
}

/// [`density_body`] compiled for AVX2 and FMA.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn density_avx2(v: &[f64], grid: &[f64], windows: &[(usize, usize)], h: f64, d: &mut [f64]) {
    density_body::<true>(v, grid, windows, h, d);
}

/// The kernel sums of [`approx_density`] into `d`, four terms at a time.
#[inline(always)]
fn density_body<const FMA: bool>(
    v: &[f64],
    grid: &[f64],
    windows: &[(usize, usize)],
    h: f64,
    d: &mut [f64],
) {
    // A multiplication by −1/(2h²) instead of the division by h (no division in the loop).
    let c = -0.5 / (h * h);
    let term = |t: f64, a: f64| {
        let z = t - a;
        super::regimes::exp_nonpositive::<FMA>(c * z * z)
    };
    for ((out, &t), &(f, l)) in d.iter_mut().zip(grid).zip(windows) {
        let w = &v[f..l];
        let mut acc = [0.0f64; 4];
        let mut chunks = w.chunks_exact(4);
        for c in &mut chunks {
            for j in 0..4 {
                acc[j] += term(t, c[j]);
            }
        }
        for &a in chunks.remainder() {
            acc[0] += term(t, a);
        }
        *out = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silverman_rule_by_hand() {
        // 1..=5: s = √2.5 = 1.5811, IQR = 4 − 2 = 2 → 2/1.34 = 1.4925; h = 0.9·1.4925·5^(−0.2).
        let h = silverman_bandwidth(&[3.0, 1.0, 2.0, 5.0, 4.0]).unwrap_or(f64::NAN);
        let want = 0.9 * (2.0 / 1.34) * 5f64.powf(-0.2);
        assert!((h - want).abs() < 1e-12, "{h} vs {want}");
        assert_eq!(silverman_bandwidth(&[2.0, 2.0, 2.0]), None);
        assert_eq!(silverman_bandwidth(&[2.0]), None);
        assert_eq!(silverman_bandwidth(&[2.0, f64::NAN]), None);
        // IQR = 0 but s > 0: s alone.
        let x = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 9.0];
        let h = silverman_bandwidth(&x).unwrap_or(f64::NAN);
        let s = (64.0 * 7.0 / 8.0 / 7.0f64).sqrt();
        assert!((h - 0.9 * s * 8f64.powf(-0.2)).abs() < 1e-12);
    }

    /// The cheap density's search gives the library density's modes, bit for bit, on many
    /// samples: normal, two clusters of varied separation and weight, uniform, heavy-tailed,
    /// rounded to a few values (ties, plateaus), tiny and large; and it decides most of them.
    #[test]
    fn cheap_density_gives_the_same_modes() {
        let mut seed: u64 = 0x6b64_655f_6d6f_6465;
        let mut unif = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let (mut total, mut decided) = (0usize, 0usize);
        for case in 0..3000 {
            let n = [3, 5, 8, 12, 25, 25, 40, 100, 300][case % 9];
            let kind = (case / 9) % 6;
            let mut x: Vec<f64> = Vec::with_capacity(n);
            for i in 0..n {
                let (u1, u2) = (unif(), unif());
                let g = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let v = match kind {
                    0 => 1e6 * (1.0 + 0.01 * g),
                    1 => {
                        let shift = if unif() < 0.3 + 0.4 * (case % 5) as f64 / 5.0 {
                            0.005 * (1 + case % 7) as f64
                        } else {
                            0.0
                        };
                        3e5 * (1.0 + shift + 0.004 * g)
                    }
                    2 => 10.0 + unif(),
                    3 => 100.0 + g / (unif() + 1e-3),
                    4 => (50.0 + 3.0 * g).round(),
                    _ => 7.0 + (i % 3) as f64 * 0.5 + 1e-9 * g,
                };
                x.push(v);
            }
            let (fast, used) = kde_modes_with(&x, true);
            let (slow, _) = kde_modes_with(&x, false);
            assert_eq!(fast, slow, "case {case}: {x:?}");
            total += 1;
            decided += usize::from(used);
        }
        assert!(
            decided * 10 >= total * 9,
            "cheap density decided {decided} of {total}"
        );
    }

    #[test]
    fn two_clusters_give_two_modes_with_their_shares() {
        let mut x = Vec::new();
        for i in 0..6 {
            x.push(10.0 + 0.1 * i as f64);
        }
        for i in 0..14 {
            x.push(20.0 + 0.1 * i as f64);
        }
        let k = kde_modes(&x);
        let m = &k.modes;
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(k.antimodes.len(), 1);
        assert!(k.antimodes[0].location > 11.0 && k.antimodes[0].location < 20.0);
        assert!(k.antimodes[0].density < 0.5 * m[0].density, "{k:?}");
        assert!((m[0].centre - 10.25).abs() < 1.0 && (m[1].centre - 20.65).abs() < 1.0);
        assert!((m[0].share - 0.3).abs() < 1e-12 && (m[1].share - 0.7).abs() < 1e-12);
    }

    #[test]
    fn density_integrates_to_one() {
        // Five values 0.5 apart (h = 0.485): one peak at 0 with density
        // (1 + 2·exp(−(0.5/h)²/2) + 2·exp(−(1/h)²/2)) / (5·h·√(2π)).
        let k = kde_modes(&[-1.0, -0.5, 0.0, 0.5, 1.0]);
        let h = k.bandwidth;
        assert!((h - 0.9 / 1.34 * 5f64.powf(-0.2)).abs() < 1e-12);
        let e = |d: f64| (-0.5 * (d / h) * (d / h)).exp();
        let want =
            (1.0 + 2.0 * e(0.5) + 2.0 * e(1.0)) / (5.0 * h * (2.0 * std::f64::consts::PI).sqrt());
        assert_eq!(k.modes.len(), 1);
        assert!(k.modes[0].centre.abs() < 0.01);
        assert!((k.modes[0].density / want - 1.0).abs() < 1e-3, "{k:?}");
    }

    #[test]
    fn a_lone_far_value_is_a_tiny_bump() {
        // One value of 30 (3.3%) is below MIN_MODE_SHARE: merged, one mode holds everything.
        let mut x: Vec<f64> = (0..29).map(|i| 100.0 + (i % 7) as f64).collect();
        x.push(400.0);
        let m = kde_modes(&x).modes;
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].share, 1.0);
        assert!((m[0].centre - 103.0).abs() < 2.0);
    }

    #[test]
    fn odd_input() {
        assert!(kde_modes(&[]).modes.is_empty());
        assert!(kde_modes(&[1.0, f64::INFINITY]).modes.is_empty());
        let c = kde_modes(&[4.0, 4.0]);
        assert_eq!(
            (c.modes.len(), c.modes[0].centre, c.modes[0].share),
            (1, 4.0, 1.0)
        );
        let m = kde_modes(&[1e300, 2e300, 1.5e300, 1.2e300]).modes;
        assert_eq!(m.len(), 1);
        assert!(m[0].centre > 1e300 && m[0].centre < 2e300);
    }
}
