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
    let none = KdeModes {
        bandwidth: 0.0,
        modes: Vec::new(),
        antimodes: Vec::new(),
    };
    if x.is_empty() || x.iter().any(|v| !v.is_finite()) {
        return none;
    }
    let scale = super::dip::pow2_scale(x);
    let mut v: Vec<f64> = x.iter().map(|a| a / scale).collect();
    v.sort_by(f64::total_cmp);
    let Some(h) = silverman_sorted(&v) else {
        return KdeModes {
            modes: vec![Mode {
                centre: x[0],
                share: 1.0,
                density: f64::INFINITY,
            }],
            ..none
        };
    };
    let n = v.len();
    let (lo, hi) = (v[0] - 3.0 * h, v[n - 1] + 3.0 * h);
    let step = (hi - lo) / (GRID_POINTS - 1) as f64;
    let grid: Vec<f64> = (0..GRID_POINTS).map(|i| lo + step * i as f64).collect();
    // Unnormalised density (the factor 1/(n·h·√(2π)) does not move modes or antimodes).
    let mut dens = vec![0.0f64; GRID_POINTS];
    let (mut first, mut last) = (0usize, 0usize);
    for (d, &t) in dens.iter_mut().zip(&grid) {
        while first < n && v[first] < t - 7.0 * h {
            first += 1;
        }
        while last < n && v[last] <= t + 7.0 * h {
            last += 1;
        }
        *d = v[first..last.max(first)]
            .iter()
            .map(|&a| {
                let z = (t - a) / h;
                (-0.5 * z * z).exp()
            })
            .sum();
    }

    // Peaks (middle of each plateau that is higher than both sides) and the antimodes between.
    let mut peaks: Vec<usize> = Vec::new();
    let mut i = 1;
    while i + 1 < GRID_POINTS {
        if dens[i] > dens[i - 1] {
            let mut j = i;
            while j + 1 < GRID_POINTS && dens[j + 1] == dens[i] {
                j += 1;
            }
            if j + 1 < GRID_POINTS && dens[j + 1] < dens[i] {
                peaks.push((i + j) / 2);
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
    if peaks.is_empty() {
        // Cannot happen for a finite sample (the density vanishes at both grid ends); be safe.
        let top = (0..GRID_POINTS)
            .max_by(|&a, &b| dens[a].total_cmp(&dens[b]))
            .unwrap_or(0);
        peaks.push(top);
    }
    let mut valleys: Vec<usize> = peaks
        .windows(2)
        .map(|w| {
            (w[0]..=w[1])
                .min_by(|&a, &b| dens[a].total_cmp(&dens[b]))
                .unwrap_or(w[0])
        })
        .collect();

    // Samples per basin: basin k holds the samples below grid[valleys[k]] and not in basin k−1.
    let mut counts = vec![0usize; peaks.len()];
    let mut k = 0;
    for &a in &v {
        while k < valleys.len() && a >= grid[valleys[k]] {
            k += 1;
        }
        counts[k] += 1;
    }

    // Merge tiny bumps, weakest first.
    let top = peaks.iter().map(|&p| dens[p]).fold(0.0f64, f64::max);
    loop {
        if peaks.len() < 2 {
            break;
        }
        let prominence = |m: usize, peaks: &[usize], valleys: &[usize]| {
            let left = if m > 0 { dens[valleys[m - 1]] } else { 0.0 };
            let right = if m < valleys.len() {
                dens[valleys[m]]
            } else {
                0.0
            };
            dens[peaks[m]] - left.max(right)
        };
        let weak = (0..peaks.len())
            .filter(|&m| {
                (counts[m] as f64) < MIN_MODE_SHARE * n as f64
                    || prominence(m, &peaks, &valleys) < MIN_PROMINENCE * top
            })
            .min_by_key(|&m| counts[m]);
        let Some(m) = weak else { break };
        // Merge across the higher (shallower) antimode; valley index of the merge.
        let vi = if m == 0 {
            0
        } else if m == peaks.len() - 1 || dens[valleys[m - 1]] >= dens[valleys[m]] {
            m - 1
        } else {
            m
        };
        // Modes vi and vi + 1 merge.
        let keep = if dens[peaks[vi]] >= dens[peaks[vi + 1]] {
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

    // Normalising factor of the density, per unit of the (unscaled) samples.
    let norm = 1.0 / (n as f64 * h * scale * (2.0 * std::f64::consts::PI).sqrt());
    KdeModes {
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
