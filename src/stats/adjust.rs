//! Multiple-comparison adjustment of p-values, as R's `p.adjust(p, "holm")` and
//! `p.adjust(p, "BH")` compute them.
//!
//! Formulas (R `stats::p.adjust`, documented in its help page):
//! - Holm (1979), "A simple sequentially rejective multiple test procedure", Scand. J. Statist.
//!   6:65–70. With the m non-NaN p-values in increasing order `p(1) ≤ … ≤ p(m)`:
//!   `p̃(i) = min(1, max_{k ≤ i} (m − k + 1)·p(k))` (controls the family-wise error rate).
//! - Benjamini & Hochberg (1995), "Controlling the false discovery rate", J. R. Statist. Soc. B
//!   57:289–300: `p̃(i) = min(1, min_{k ≥ i} (m/k)·p(k))` (controls the false discovery rate).
//!
//! NaN entries (R's `NA`) stay NaN in the output and are not counted in m, exactly as R
//! drops `NA` before adjusting. Ties get equal adjusted values, so the result does not depend
//! on the order of tied inputs. Inputs are not checked to lie in [0, 1]; values outside are
//! adjusted by the same arithmetic as R (the `min(1, ·)` cap still applies).

/// Indices of the non-NaN entries of `p`, sorted by increasing p (stable, as R's `order`).
fn order_finite(p: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    idx
}

/// Holm–Bonferroni adjusted p-values, element for element like R `p.adjust(p, "holm")`.
///
/// `p`: raw p-values (any order; NaN = missing). Returns a vector of the same length where
/// each entry is `min(1, max_{k ≤ rank} (m − k + 1)·p(k))`, m = number of non-NaN inputs;
/// NaN inputs give NaN. An empty input gives an empty output.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut out = vec![f64::NAN; p.len()];
    let order = order_finite(p);
    let m = order.len();
    let mut running = f64::NEG_INFINITY;
    for (k, &i) in order.iter().enumerate() {
        // R: pmin(1, cummax((n + 1L - i) * p[o])), i = 1..n
        let v = (m - k) as f64 * p[i];
        if v > running {
            running = v;
        }
        out[i] = running.min(1.0);
    }
    out
}

/// Benjamini–Hochberg adjusted p-values (false discovery rate), element for element like
/// R `p.adjust(p, "BH")`.
///
/// `p`: raw p-values (any order; NaN = missing). Returns a vector of the same length where
/// each entry is `min(1, min_{k ≥ rank} (m/k)·p(k))`, m = number of non-NaN inputs;
/// NaN inputs give NaN. An empty input gives an empty output.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let mut out = vec![f64::NAN; p.len()];
    let order = order_finite(p);
    let m = order.len();
    let mut running = f64::INFINITY;
    // R: i <- lp:1; o <- order(p, decreasing = TRUE); pmin(1, cummin(n / i * p[o]))
    for (k, &i) in order.iter().enumerate().rev() {
        let v = m as f64 / (k + 1) as f64 * p[i];
        if v < running {
            running = v;
        }
        out[i] = running.min(1.0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-12 * y.abs().max(1e-300)
            })
    }

    #[test]
    fn r_examples() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
        let p = [0.01, 0.04, 0.03, 0.005];
        assert!(close(&holm(&p), &[0.03, 0.06, 0.06, 0.02]));
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02
        assert!(close(&benjamini_hochberg(&p), &[0.02, 0.04, 0.04, 0.02]));
    }

    #[test]
    fn nan_not_counted() {
        // R: p.adjust(c(0.01, NA, 0.02), "holm") = 0.02 NA 0.02; "BH" = 0.02 NA 0.02
        let p = [0.01, f64::NAN, 0.02];
        assert!(close(&holm(&p), &[0.02, f64::NAN, 0.02]));
        assert!(close(&benjamini_hochberg(&p), &[0.02, f64::NAN, 0.02]));
        assert!(holm(&[]).is_empty());
        assert!(holm(&[f64::NAN])[0].is_nan());
        assert_eq!(benjamini_hochberg(&[0.7]), vec![0.7]);
    }
}
