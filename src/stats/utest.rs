//! benchstat's two-sided Mann–Whitney U test (golang.org/x/perf `internal/stats`, described in
//! its docs and in peer-tools.md §1), which differs from R's `wilcox.test` ([`super::rank`])
//! in one way that matters for benchmark data: with **ties** it still uses the exact null
//! distribution for small samples instead of the normal approximation.
//!
//! With x = first sample (n₁), y = second (n₂), N = n₁ + n₂ and mid-ranks of the pooled sample,
//! `U₁ = R₁ − n₁(n₁ + 1)/2` (R₁ the rank sum of x). Under H₀ every split of the pooled values
//! into groups of n₁ and n₂ is equally likely, so with tie groups of sizes t₁…t_k (in
//! increasing value order, mid-rank m_j), a split taking a_j values of group j into x has
//! probability `Π C(t_j, a_j) / C(N, n₁)` and gives `R₁ = Σ a_j·m_j` (Mann & Whitney 1947;
//! Klotz 1966 for the tied case). This module sums that distribution exactly by dynamic
//! programming over the groups when n₁, n₂ ≤ 50 without ties or n₁, n₂ ≤ 25 with ties
//! (benchstat's limits; without ties and with every count below 2⁵³, as for 28 + 28, the same
//! integers come from the generating function of U, see `no_ties_below`); otherwise it uses
//! the normal approximation with continuity correction and the tie-corrected variance
//! `σ² = n₁n₂/12 · (N + 1 − Σ(t³ − t)/(N(N − 1)))`.
//! The null distribution is symmetric about n₁n₂/2, so the two-sided p-value is
//! `min(1, 2·P(U ≤ min(U₁, n₁n₂ − U₁)))`. When every value is the same, p = 1.

use statrs::distribution::{ContinuousCDF, Normal};

/// Result of [`u_test`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UTest {
    /// `U₁` of the first sample: pairs where it is larger, plus half the tied pairs.
    pub u: f64,
    /// Two-sided p-value in [0, 1].
    pub p_value: f64,
    /// True when the exact (tie-aware) distribution was summed.
    pub exact: bool,
    /// True when every value of both samples is equal (p = 1; benchstat's "all samples are
    /// equal").
    pub all_equal: bool,
    /// True when some values are tied (in the pooled sample).
    pub ties: bool,
}

impl UTest {
    /// How the p-value was computed: exact, exact with ties, or the normal approximation
    /// (continuity-corrected; tie-corrected when there are ties).
    pub fn method(&self) -> super::rank::RankMethod {
        use super::rank::RankMethod;
        match (self.exact, self.ties) {
            (true, false) => RankMethod::Exact,
            (true, true) => RankMethod::ExactTies,
            (false, true) => RankMethod::NormalTieContinuity,
            (false, false) => RankMethod::NormalContinuity,
        }
    }
}

/// Sample size per side up to which the exact distribution is used without ties.
pub const EXACT_MAX_N: usize = 50;
/// Sample size per side up to which the exact distribution is used with ties.
pub const EXACT_TIES_MAX_N: usize = 25;

/// Two-sided Mann–Whitney U test of `x` against `y` (see the module doc). Values in any unit,
/// unsorted. Returns `None` when a side is empty or holds a NaN.
pub fn u_test(x: &[f64], y: &[f64]) -> Option<UTest> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 || x.iter().chain(y).any(|v| v.is_nan()) {
        return None;
    }
    let mut all: Vec<(f64, bool)> = x
        .iter()
        .map(|&v| (v, true))
        .chain(y.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Tie groups: (size, count from x, twice the mid-rank).
    let mut groups: Vec<(usize, usize, usize)> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j < all.len() && all[j].0 == all[i].0 {
            j += 1;
        }
        let t = j - i;
        let from_x = all[i..j].iter().filter(|e| e.1).count();
        // ranks i+1..=j, mid-rank (i+1+j)/2, doubled: i+1+j
        groups.push((t, from_x, i + 1 + j));
        i = j;
    }
    let n = n1 + n2;
    let two_r1: usize = groups.iter().map(|g| g.1 * g.2).sum();
    let two_u1 = two_r1 as f64 - (n1 * (n1 + 1)) as f64;
    let u = two_u1 / 2.0;
    let all_equal = groups.len() == 1;
    let ties = groups.iter().any(|g| g.0 > 1);
    if all_equal {
        return Some(UTest {
            u,
            p_value: 1.0,
            exact: true,
            all_equal,
            ties,
        });
    }
    let half = (n1 * n2) as f64 / 2.0;
    let u_small = u.min(2.0 * half - u);
    let exact = if ties {
        n1 <= EXACT_TIES_MAX_N && n2 <= EXACT_TIES_MAX_N
    } else {
        n1 <= EXACT_MAX_N && n2 <= EXACT_MAX_N
    };
    // P(U ≤ u_small): doubled U = s − n1(n1+1); compare in doubled integers.
    let limit = (2.0 * u_small).round() as i64 + (n1 * (n1 + 1)) as i64;
    // Whether every count of the distribution below is an integer below 2⁵³, so that the f64
    // sums are exact and any exact method gives the very same p (see `exact_counts`).
    let counts_exact = exact_counts(n1, n2).is_some();
    let p = if exact && !ties && counts_exact {
        // Same integers as the dynamic programme below, in O(n₁·U) instead of O(N²·n₁²).
        let below = no_ties_below(n1, n2, u_small as usize) as f64;
        let total = exact_counts(n1, n2).unwrap_or(u64::MAX) as f64;
        (2.0 * below / total).min(1.0)
    } else if exact {
        // dist[k][s]: weight of choosing k values into x with doubled rank sum s.
        let max_s = 2 * n * (n + 1);
        // A state's rank sum only grows as groups are added, so sums above `limit` never reach
        // the tail summed below: with exact counts they are not kept (the total is known).
        let top_s = if counts_exact {
            (limit.max(0) as usize).min(max_s)
        } else {
            max_s
        };
        let mut dist = vec![vec![0.0f64; top_s + 1]; n1 + 1];
        dist[0][0] = 1.0;
        // Positions (ranks) placed so far: k values among the first `placed` ranks have a
        // doubled rank sum in [k(k + 1), k(2·placed − k + 1)], so only that band is visited.
        let mut placed = 0usize;
        for &(t, _, m2) in &groups {
            let binom: Vec<f64> = (0..=t).map(|a| choose(t, a)).collect();
            // In place, like a knapsack: taking a ≥ 1 values of this group moves weight from
            // row k to row k + a, so rows are visited from the top down and every source is
            // read before anything is added to it (a = 0 keeps the weight where it is).
            for k in (0..=n1.min(placed)).rev() {
                let lo = k * (k + 1);
                let hi = (k * (2 * placed + 1 - k)).min(top_s);
                let (below, above) = dist.split_at_mut(k + 1);
                let row = &below[k];
                for (s, &w) in row.iter().enumerate().take(hi + 1).skip(lo) {
                    if w == 0.0 {
                        continue;
                    }
                    for (a, &c) in binom.iter().enumerate().take((n1 - k).min(t) + 1).skip(1) {
                        let ns = s + a * m2;
                        if ns <= top_s {
                            above[a - 1][ns] += w * c;
                        }
                    }
                }
            }
            placed += t;
        }
        let total: f64 = match exact_counts(n1, n2) {
            Some(c) => c as f64,
            None => dist[n1].iter().sum(),
        };
        let below: f64 = dist[n1]
            .iter()
            .enumerate()
            .filter(|(s, _)| (*s as i64) <= limit)
            .map(|(_, w)| w)
            .sum();
        (2.0 * below / total).min(1.0)
    } else {
        let tie_sum: f64 = groups
            .iter()
            .map(|g| {
                let t = g.0 as f64;
                t * t * t - t
            })
            .sum();
        let nf = n as f64;
        let var = (n1 * n2) as f64 / 12.0 * (nf + 1.0 - tie_sum / (nf * (nf - 1.0)));
        if var <= 0.0 {
            1.0
        } else {
            let z = ((half - u_small) - 0.5).max(0.0) / var.sqrt();
            match Normal::new(0.0, 1.0) {
                Ok(norm) => (2.0 * norm.cdf(-z)).min(1.0),
                Err(_) => f64::NAN,
            }
        }
    };
    Some(UTest {
        u,
        p_value: p,
        exact,
        all_equal,
        ties,
    })
}

/// `C(n₁ + n₂, n₁)` when it and every count the dynamic programme of [`u_test`] meets (at most
/// `C(N, min(n₁, ⌊N/2⌋))`) is below 2⁵³, so that f64 holds each of them, and each sum of them,
/// exactly; `None` otherwise.
fn exact_counts(n1: usize, n2: usize) -> Option<u64> {
    let n = n1 + n2;
    let choose_u = |k: usize| -> Option<u128> {
        let mut c: u128 = 1;
        for i in 0..k {
            c = c.checked_mul((n - i) as u128)? / (i as u128 + 1);
        }
        Some(c)
    };
    let widest = choose_u(n1.min(n / 2))?;
    let total = choose_u(n1.min(n2))?;
    (widest < 1u128 << 53).then_some(total as u64)
}

/// Number of splits of the ranks 1..N (no ties) into x (n₁) and y (n₂) whose U of x is at most
/// `u_max`: the sum of the first `u_max + 1` coefficients of the Gaussian binomial
/// `[N choose n₁]_q = Π_{i=1..n₁} (1 − q^{n₂+i}) / (1 − q^i)` (the generating function of U;
/// Mann & Whitney 1947), built one factor at a time as power series truncated at `u_max`. Each
/// partial product is `[n₂+i choose i]_q`, a polynomial with integer coefficients, so the
/// integers are exact (callers check with [`exact_counts`] that they fit).
fn no_ties_below(n1: usize, n2: usize, u_max: usize) -> u64 {
    // The counts depend on (n1, n2) only, and a report asks for the same few sizes thousands
    // of times: each thread keeps the running sums of the whole distribution per size (the
    // recurrence for c[j] reads no index above j, so they are the very integers of a table cut
    // at u_max).
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;
    type Sums = HashMap<(usize, usize), Rc<Vec<u64>>>;
    thread_local! {
        static CDF: RefCell<Sums> = RefCell::new(HashMap::new());
    }
    let full = n1 * n2;
    if u_max > full || full > 1 << 16 {
        return no_ties_below_direct(n1, n2, u_max);
    }
    let cdf = CDF.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 64 {
            cache.clear();
        }
        Rc::clone(cache.entry((n1, n2)).or_insert_with(|| {
            let c = no_ties_counts(n1, n2, full);
            let mut sum = 0i64;
            Rc::new(
                c.iter()
                    .map(|&v| {
                        sum += v;
                        sum as u64
                    })
                    .collect(),
            )
        }))
    });
    cdf[u_max]
}

/// [`no_ties_below`] without the cache.
fn no_ties_below_direct(n1: usize, n2: usize, u_max: usize) -> u64 {
    no_ties_counts(n1, n2, u_max).iter().sum::<i64>() as u64
}

/// Number of arrangements with U = j, for j = 0..=u_max, without ties (the recurrence of
/// [`no_ties_below`]).
fn no_ties_counts(n1: usize, n2: usize, u_max: usize) -> Vec<i64> {
    let mut c = vec![0i64; u_max + 1];
    c[0] = 1;
    for i in 1..=n1 {
        let a = n2 + i;
        for j in (a..=u_max).rev() {
            c[j] -= c[j - a];
        }
        for j in i..=u_max {
            c[j] += c[j - i];
        }
    }
    c
}

/// The smallest two-sided p-value [`u_test`] can give for sample sizes n₁, n₂ (all of one
/// sample below all of the other, no ties): `2 / C(n₁ + n₂, n₁)`, capped at 1. benchstat warns
/// "need >= 4 samples to detect a difference at alpha level 0.05" when this exceeds alpha.
pub fn min_p(n1: usize, n2: usize) -> f64 {
    (2.0 / choose(n1 + n2, n1)).min(1.0)
}

fn choose(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    let mut c = 1.0f64;
    for i in 0..k {
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    c.round()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact-with-ties p against a brute-force enumeration of every split of the pooled
    /// values (N ≤ 12), on tied data of several shapes.
    #[test]
    fn exact_ties_match_enumeration() {
        let cases: [(&[f64], &[f64]); 5] = [
            (&[1.0, 1.0, 2.0, 3.0, 3.0], &[2.0, 3.0, 4.0, 4.0]),
            (&[5.0, 5.0, 5.0], &[5.0, 6.0, 6.0, 7.0]),
            (
                &[1043.0, 1044.0, 1043.0, 1045.0, 1044.0],
                &[1042.0, 1043.0, 1042.0, 1044.0],
            ),
            (&[0.0, 0.0, 0.0, 1.0], &[0.0, 2.0, 2.0, 2.0, 1.0, 0.0]),
            (
                &[1.0, 2.0, 2.0, 2.0, 3.0, 3.0],
                &[2.0, 2.0, 3.0, 4.0, 4.0, 4.0],
            ),
        ];
        for (x, y) in cases {
            let r = u_test(x, y).expect("valid");
            assert!(r.exact && r.ties);
            let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
            let n = pooled.len();
            // U of x for a subset given by a bit mask: pairs larger plus half the ties.
            let u_of = |mask: u32| {
                let mut u = 0.0;
                for i in (0..n).filter(|i| mask >> i & 1 == 1) {
                    for j in (0..n).filter(|j| mask >> j & 1 == 0) {
                        u += if pooled[i] > pooled[j] {
                            1.0
                        } else if pooled[i] == pooled[j] {
                            0.5
                        } else {
                            0.0
                        };
                    }
                }
                u
            };
            let half = (x.len() * y.len()) as f64 / 2.0;
            let small = r.u.min(2.0 * half - r.u);
            let (mut below, mut total) = (0u64, 0u64);
            for mask in 0u32..(1 << n) {
                if mask.count_ones() as usize != x.len() {
                    continue;
                }
                total += 1;
                if u_of(mask) <= small + 1e-9 {
                    below += 1;
                }
            }
            let want = (2.0 * below as f64 / total as f64).min(1.0);
            assert!(
                (r.p_value - want).abs() < 1e-12,
                "{x:?} {y:?}: {} vs {want}",
                r.p_value
            );
        }
    }

    /// The Gaussian-binomial tail of the no-ties fast path against a plain count of subsets by
    /// size and rank sum, for every U of every size pair up to 12 + 12, and the exactness bound.
    #[test]
    fn no_ties_counts_match_subset_count() {
        for n1 in 1..=12usize {
            for n2 in 1..=12usize {
                let n = n1 + n2;
                let max_r = n * (n + 1) / 2;
                // cnt[k][r]: subsets of size k of the ranks seen so far with rank sum r.
                let mut cnt = vec![vec![0u64; max_r + 1]; n1 + 1];
                cnt[0][0] = 1;
                for rank in 1..=n {
                    for k in (1..=n1.min(rank)).rev() {
                        for r in (rank..=max_r).rev() {
                            cnt[k][r] += cnt[k - 1][r - rank];
                        }
                    }
                }
                let base = n1 * (n1 + 1) / 2;
                let mut acc = 0u64;
                for u in 0..=n1 * n2 {
                    acc += cnt[n1][base + u];
                    assert_eq!(no_ties_below(n1, n2, u), acc, "{n1}+{n2} U<={u}");
                }
                assert_eq!(exact_counts(n1, n2), Some(acc));
            }
        }
        assert!(exact_counts(28, 28).is_some());
        assert!(exact_counts(29, 29).is_none());
    }

    #[test]
    fn exact_without_and_with_ties() {
        // All of x below all of y, n = 5 + 5: p = 2 / C(10, 5) = 2/252.
        let x = [115.0, 114.0, 115.0, 115.0, 115.0];
        let y = [78.8; 5];
        let r = u_test(&x, &y).unwrap();
        assert!((r.p_value - 2.0 / 252.0).abs() < 1e-15, "{r:?}");
        assert!(r.exact);
        // R: wilcox.test(c(1,2,3), c(4,5,6)) p = 0.1
        let r = u_test(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert!((r.p_value - 0.1).abs() < 1e-15);
        assert!(u_test(&[1.0, 1.0], &[1.0]).unwrap().all_equal);
        assert_eq!(min_p(1, 1), 1.0);
        assert!(min_p(3, 3) > 0.05 && min_p(4, 4) < 0.05);
    }
}
