//! Sample quantiles and distribution-free confidence intervals for quantiles from order
//! statistics.
//!
//! - [`quantile7`]: Hyndman & Fan (1996) type 7, R's default `quantile(x, q)` (and numpy's):
//!   with `h = (n − 1)·q`, `j = ⌊h⌋`, `Q = (1 − (h − j))·x(j+1) + (h − j)·x(j+2)` (1-based order
//!   statistics), computed in R's order of operations.
//! - [`median`]: the middle order statistic, or the mean of the two middle ones (R `median`).
//! - [`quantile_ci`] / [`median_ci`]: the order-statistic interval of benchstat
//!   (golang.org/x/perf `benchmath`, go-moremath `QuantileCI`). The number of observations
//!   below the population q-quantile is binomial B(n, q); the interval `[x(l), x(r)]` covers
//!   the quantile with probability `P(l ≤ K < r)`, K ~ B(n, q) (Hahn & Meeker 1991, §5.2;
//!   David & Nagaraja 2003, §7.1). For n ≤ 30 the band of K is grown out from the mode of the
//!   binomial, adding the more likely neighbour first and the left one on ties, until its mass
//!   reaches the confidence level. Above 30 it uses the normal approximation N(nq, nq(1 − q))
//!   with continuity correction: the central `confidence` band `[l₁, r₁]` is rounded out to
//!   the binomial outcomes whose cells `[k − ½, k + ½]` cover it, and the right end is moved
//!   one step in (left bias) when the interval still has enough coverage. Orders outside
//!   `1..=n` mean an infinite bound; at confidence 0.95 this happens for the median when
//!   n < 6 (benchstat's "need >= 6 samples for confidence interval at level 0.95").
//!
//! All functions take samples already sorted in increasing order (NaN-free); they do not sort.

use statrs::distribution::{ContinuousCDF, Normal};

/// Sample size up to which [`quantile_ci`] sums the exact binomial distribution (benchstat's
/// threshold); above it the normal approximation with continuity correction is used.
pub const EXACT_CI_MAX_N: usize = 30;

/// Median of increasingly sorted samples (R `median`): the middle value, or the mean of the
/// two middle values for an even count. NaN for an empty slice.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        mid(sorted[n / 2 - 1], sorted[n / 2])
    }
}

/// `(a + b) / 2` without overflow for large finite values (R's `mean` uses long double).
fn mid(a: f64, b: f64) -> f64 {
    let s = (a + b) / 2.0;
    if s.is_finite() || !a.is_finite() || !b.is_finite() {
        s
    } else {
        a / 2.0 + b / 2.0
    }
}

/// Type-7 sample quantile of increasingly sorted samples (R's default `quantile(x, q)`).
///
/// `q` is a probability in [0, 1]. Returns NaN for an empty slice or `q` outside [0, 1]
/// (or NaN). `quantile7(x, 0.5)` equals [`median`] up to rounding.
pub fn quantile7(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 || !(0.0..=1.0).contains(&q) {
        return f64::NAN;
    }
    // R: index <- 1 + (n - 1) * probs; lo <- floor(index); hi <- ceiling(index)
    let index = (n - 1) as f64 * q; // 0-based
    let lo = (index.floor() as usize).min(n - 1);
    let hi = (index.ceil() as usize).min(n - 1);
    let x_lo = sorted[lo];
    let x_hi = sorted[hi];
    if index > lo as f64 && x_hi != x_lo {
        let h = index - lo as f64;
        (1.0 - h) * x_lo + h * x_hi
    } else {
        x_lo
    }
}

/// An order-statistic confidence interval for a quantile (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantileCi {
    /// Lower bound: the order statistic `x(lo_order)`, or −∞ when `lo_order` is 0.
    pub lo: f64,
    /// Upper bound: the order statistic `x(hi_order)`, or +∞ when `hi_order` is n + 1.
    pub hi: f64,
    /// 1-based order of the lower bound, in `0..=n` (0 = unbounded below).
    pub lo_order: usize,
    /// 1-based order of the upper bound, in `1..=n+1` (n + 1 = unbounded above).
    pub hi_order: usize,
    /// Achieved coverage probability of the interval (≥ the requested level, or its normal
    /// approximation for n > [`EXACT_CI_MAX_N`]); 1 when both bounds are infinite.
    pub confidence: f64,
}

/// Binomial B(n, p) probability of exactly k successes; 0 outside `0..=n`.
/// Exact for p = ½ and n ≤ 60 (the binomial coefficient and 2⁻ⁿ are exact doubles).
fn binom_pmf(n: usize, p: f64, k: i64) -> f64 {
    if k < 0 || k as usize > n {
        return 0.0;
    }
    let k = k as usize;
    let kk = k.min(n - k);
    let mut c = 1.0f64;
    for i in 0..kk {
        // c = C(n, i + 1), exact while it fits in 53 bits
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
}

/// The orders `(lo, hi)` and achieved confidence of the interval for the `q` quantile of n
/// samples, as in the module doc; `lo` in `0..=n`, `hi` in `1..=n+1`.
///
/// A function of its arguments only, which a report asks for with the same few of them
/// thousands of times (the median at 95% of 25 runs a side): each thread remembers the last
/// few answers (the same values as computed afresh).
fn ci_orders(n: usize, q: f64, confidence: f64) -> (usize, usize, f64) {
    use std::cell::RefCell;
    const SLOTS: usize = 8;
    type Memo = [(usize, u64, u64, (usize, usize, f64)); SLOTS];
    thread_local! {
        static MEMO: RefCell<Memo> =
            const { RefCell::new([(usize::MAX, 0, 0, (0, 0, 0.0)); SLOTS]) };
    }
    let key = (n, q.to_bits(), confidence.to_bits());
    let slot = (key.0 as u64 ^ key.1.rotate_left(7) ^ key.2.rotate_left(29))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        >> 61;
    let slot = slot as usize % SLOTS;
    let hit = MEMO.with(|memo| {
        let m = memo.borrow()[slot];
        ((m.0, m.1, m.2) == key).then_some(m.3)
    });
    if let Some(orders) = hit {
        return orders;
    }
    let orders = ci_orders_uncached(n, q, confidence);
    MEMO.with(|memo| memo.borrow_mut()[slot] = (key.0, key.1, key.2, orders));
    orders
}

/// [`ci_orders`] computed.
fn ci_orders_uncached(n: usize, q: f64, confidence: f64) -> (usize, usize, f64) {
    if confidence >= 1.0 {
        return (0, n + 1, 1.0);
    }
    let (l, r, conf): (i64, i64, f64);
    if n <= EXACT_CI_MAX_N {
        // K = number of samples below the population quantile; the quantile lies between
        // x(k) and x(k+1) with probability P(K = k). Start at the (lower) mode.
        let mut x = ((n + 1) as f64 * q).ceil() as i64 - 1;
        if q == 0.0 {
            x = 0;
        }
        let x = x.clamp(0, n as i64);
        let mut acc = binom_pmf(n, q, x);
        // [lo, hi) is the band of k summed so far.
        let (mut lo, mut hi) = (x, x + 1);
        let mut lp = binom_pmf(n, q, lo - 1);
        let mut rp = binom_pmf(n, q, hi);
        while acc < confidence && (lp > 0.0 || rp > 0.0) {
            if lp >= rp {
                acc += lp;
                lo -= 1;
                lp = binom_pmf(n, q, lo - 1);
            } else {
                acc += rp;
                hi += 1;
                rp = binom_pmf(n, q, hi);
            }
        }
        (l, r, conf) = (lo, hi, acc);
    } else {
        let mu = n as f64 * q;
        let sigma = (n as f64 * q * (1.0 - q)).sqrt();
        let Ok(norm) = Normal::new(mu, sigma) else {
            return (0, n + 1, 1.0);
        };
        let l1 = norm.inverse_cdf((1.0 - confidence) / 2.0);
        let r1 = 2.0 * mu - l1;
        // Binomial outcomes whose continuity cells [k − ½, k + ½] cover [l1, r1].
        let lo = (l1 - 0.5).floor() as i64 + 1;
        let mut hi = (r1 - 0.5).ceil() as i64 + 1;
        let cover = |l: i64, r: i64| norm.cdf(r as f64 - 0.5) - norm.cdf(l as f64 - 0.5);
        let mut c = cover(lo, hi);
        let biased = cover(lo, hi - 1);
        if biased >= confidence && biased < c {
            hi -= 1;
            c = biased;
        }
        if lo <= 0 && hi > n as i64 {
            c = 1.0;
        }
        (l, r, conf) = (lo, hi, c);
    }
    (
        l.clamp(0, n as i64) as usize,
        r.clamp(1, n as i64 + 1) as usize,
        conf,
    )
}

/// Order-statistic confidence interval for the `q` quantile (benchstat's `QuantileCI`) of
/// increasingly sorted samples, at the requested two-sided `confidence` (e.g. 0.95).
///
/// Returns `None` for an empty slice, `q` outside [0, 1], or `confidence` not in (0, 1]
/// (or NaN). Bounds outside the sample are ±∞ (see [`QuantileCi`]).
pub fn quantile_ci(sorted: &[f64], q: f64, confidence: f64) -> Option<QuantileCi> {
    let n = sorted.len();
    if n == 0 || !(0.0..=1.0).contains(&q) || !(confidence > 0.0 && confidence <= 1.0) {
        return None;
    }
    let (lo_order, hi_order, confidence) = ci_orders(n, q, confidence);
    let lo = if lo_order == 0 {
        f64::NEG_INFINITY
    } else {
        sorted[lo_order - 1]
    };
    let hi = if hi_order > n {
        f64::INFINITY
    } else {
        sorted[hi_order - 1]
    };
    Some(QuantileCi {
        lo,
        hi,
        lo_order,
        hi_order,
        confidence,
    })
}

/// Confidence interval `(lo, hi)` for the median of increasingly sorted samples at the
/// two-sided level `confidence`, bounded by order statistics (benchstat's median interval).
///
/// Returns `None` when the interval is not bounded by the sample (benchstat's `± ∞`: at 0.95
/// this is every n < 6), for an empty slice, or for `confidence` not in (0, 1).
pub fn median_ci(sorted: &[f64], confidence: f64) -> Option<(f64, f64)> {
    if confidence >= 1.0 {
        return None;
    }
    let ci = quantile_ci(sorted, 0.5, confidence)?;
    (ci.lo.is_finite() && ci.hi.is_finite()).then_some((ci.lo, ci.hi))
}

/// benchstat's `±` figure: the larger relative distance from `center` to an interval bound,
/// `max(hi/center − 1, 1 − lo/center)`, as a fraction (0.05 = ±5%).
///
/// Returns `None` when a bound is infinite or NaN, or when a bound has a different sign from
/// the centre (benchstat prints `∞` and `?`); returns `Some(0.0)` for a zero centre with zero
/// bounds.
pub fn pct_range(center: f64, lo: f64, hi: f64) -> Option<f64> {
    if !(center.is_finite() && lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let sign = |v: f64| {
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    if sign(center) != sign(lo) || sign(center) != sign(hi) {
        return None;
    }
    if center == 0.0 {
        return Some(0.0);
    }
    Some((hi / center - 1.0).max(1.0 - lo / center))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type7_matches_r() {
        // R: quantile(1:5, c(0, .25, .5, .9, 1)) = 1 2 3 4.6 5
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        for (q, want) in [(0.0, 1.0), (0.25, 2.0), (0.5, 3.0), (0.9, 4.6), (1.0, 5.0)] {
            assert!((quantile7(&x, q) - want).abs() < 1e-12, "{q}");
        }
        // R: quantile(c(1, 2, 4, 8), 0.3) = 1.9
        assert!((quantile7(&[1.0, 2.0, 4.0, 8.0], 0.3) - 1.9).abs() < 1e-12);
        assert!(quantile7(&[], 0.5).is_nan());
        assert!(quantile7(&x, 1.5).is_nan());
        assert_eq!(median(&[1.0, 2.0, 4.0, 8.0]), 3.0);
        assert_eq!(median(&[7.0]), 7.0);
        assert!(median(&[]).is_nan());
        assert_eq!(median(&[f64::MAX, f64::MAX]), f64::MAX);
    }

    #[test]
    fn median_ci_small_samples() {
        let x: Vec<f64> = (1..=5).map(f64::from).collect();
        assert_eq!(median_ci(&x, 0.95), None);
        let x: Vec<f64> = (1..=6).map(f64::from).collect();
        // n = 6: P(1 ≤ K < 6) = 1 − 2/64 = 0.96875 ≥ 0.95 → [x(1), x(6)]
        let ci = quantile_ci(&x, 0.5, 0.95).unwrap();
        assert_eq!((ci.lo, ci.hi), (1.0, 6.0));
        assert!((ci.confidence - 0.968_75).abs() < 1e-15);
        // n = 10: [x(2), x(9)] with 1 − 22/1024 = 0.978515625
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        let ci = quantile_ci(&x, 0.5, 0.95).unwrap();
        assert_eq!((ci.lo_order, ci.hi_order), (2, 9));
        assert!((ci.confidence - 0.978_515_625).abs() < 1e-15);
        assert_eq!(quantile_ci(&[], 0.5, 0.95), None);
        assert_eq!(quantile_ci(&x, 0.5, f64::NAN), None);
    }

    #[test]
    fn median_ci_normal_approximation() {
        let x: Vec<f64> = (1..=100).map(f64::from).collect();
        let ci = quantile_ci(&x, 0.5, 0.95).unwrap();
        // Continuity-corrected band [39.5, 60.5) → x(40)..x(61), then left-biased to x(60):
        // P(40 ≤ K ≤ 59) ≈ 0.954 under B(100, ½).
        assert_eq!((ci.lo_order, ci.hi_order), (40, 60));
        assert!(ci.confidence >= 0.95 && ci.confidence < 0.97);
    }

    #[test]
    fn pct_range_rules() {
        assert_eq!(pct_range(10.0, 9.0, 10.5), Some(0.09999999999999998));
        assert_eq!(pct_range(10.0, f64::NEG_INFINITY, 10.5), None);
        assert_eq!(pct_range(1.0, -1.0, 2.0), None);
        assert_eq!(pct_range(0.0, 0.0, 0.0), Some(0.0));
    }
}
