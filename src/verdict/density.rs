//! The statistics the plots draw: the kernel density estimate of a density plot (Gaussian
//! kernels with Silverman's bandwidth, [`crate::stats::bandwidth::silverman_bandwidth`], so
//! that two regimes show as two humps) and the Tukey box of a box plot ([`tukey_box`]).
//! Renderers draw these; they compute no statistic themselves.

use crate::stats::bandwidth::silverman_bandwidth;
use crate::stats::quantile::quantile7;

/// Silverman's bandwidth of `x` (finite values; see
/// [`crate::stats::bandwidth::silverman_bandwidth`]), in the units of the samples; `None` for
/// fewer than 2 values, a non-finite value, or no spread.
pub fn bandwidth(x: &[f64]) -> Option<f64> {
    silverman_bandwidth(x)
}

/// The Gaussian kernel density of the finite values of `x` at each point of `grid` (one
/// value per point, in `1 / unit`), integrating to 1 over the real line; `None` when the
/// bandwidth of those values is undefined ([`bandwidth`]).
pub fn kde(x: &[f64], grid: &[f64]) -> Option<Vec<f64>> {
    let v: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    let h = silverman_bandwidth(&v)?;
    let norm = 1.0 / (v.len() as f64 * h * (2.0 * std::f64::consts::PI).sqrt());
    Some(
        grid.iter()
            .map(|g| {
                v.iter()
                    .map(|xi| (-0.5 * ((g - xi) / h).powi(2)).exp())
                    .sum::<f64>()
                    * norm
            })
            .collect(),
    )
}

/// Tukey's box of the finite values of `values`, as ggplot2's `geom_boxplot` draws it:
/// `(whisker low, q1, median, q3, whisker high)` in the units of the values, the quartiles of
/// type 7 ([`quantile7`]) and each whisker at the furthest value within 1.5 IQR of its box
/// end; `None` when no value is finite.
pub fn tukey_box(values: &[f64]) -> Option<(f64, f64, f64, f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let (q1, med, q3) = (quantile7(&v, 0.25), quantile7(&v, 0.5), quantile7(&v, 0.75));
    let iqr = q3 - q1;
    let lo = v.iter().copied().find(|x| *x >= q1 - 1.5 * iqr);
    let hi = v.iter().rev().copied().find(|x| *x <= q3 + 1.5 * iqr);
    Some((lo.unwrap_or(q1), q1, med, q3, hi.unwrap_or(q3)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The density of a symmetric sample peaks at its centre, is symmetric around it, and
    /// sums (times the grid step) to about 1; a constant sample has none.
    #[test]
    fn kde_is_a_density() {
        let x = [1.0, 2.0, 2.5, 3.0, 4.0];
        let grid: Vec<f64> = (0..=400)
            .map(|i| -3.5 + 12.0 * f64::from(i) / 400.0)
            .collect();
        let d = kde(&x, &grid).expect("a density");
        let step = 12.0 / 400.0;
        let mass: f64 = d.iter().sum::<f64>() * step;
        assert!((mass - 1.0).abs() < 1e-3, "{mass}");
        let top = d.iter().copied().fold(0.0, f64::max);
        assert_eq!(d[200], top);
        assert!((d[150] - d[250]).abs() < 1e-12);
        assert_eq!(kde(&[2.0, 2.0, f64::NAN], &grid), None);
        assert_eq!(bandwidth(&x), silverman_bandwidth(&x));
    }
}
