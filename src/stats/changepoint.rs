//! Change points of a series: E-divisive with means (E-Divisive-means style), with a
//! permutation significance test.
//!
//! Method (Matteson, D. S. and James, N. A. (2014), "A Nonparametric Approach for Multiple
//! Change Point Analysis of Multivariate Data", JASA 109(505):334–345, §2–3), univariate with
//! exponent α = 1:
//!
//! - For a segment `x[0..n)` and a split `τ` (left `x[0..τ)`, size `m`; right `x[τ..n)`,
//!   size `k = n − m`), the divergence is
//!   `Ê = 2/(m·k)·Σ|xᵢ−yⱼ| − 1/C(m,2)·Σ_{i<l}|xᵢ−xₗ| − 1/C(k,2)·Σ_{j<l}|yⱼ−yₗ|`
//!   and the statistic is `Q̂(τ) = m·k/n · Ê`. The candidate is the `τ` maximising `Q̂`, with
//!   both sides at least [`Params::min_size`] long. Simplification against the paper: the
//!   right end `κ` is the end of the segment (no search over `κ`), as Hunter/Otava do.
//! - Significance: the segment's values are shuffled [`Params::permutations`] times; the
//!   p-value is `(1 + #{max Q̂ of a shuffle ≥ observed max Q̂}) / (1 + permutations)`
//!   (the paper's §3.2 permutation test). The candidate is a change point when `p ≤`
//!   [`Params::significance`]. Shuffles stop early once the p-value can no longer reach the
//!   level (same decision, fewer shuffles).
//! - Multiple change points: bisection. The candidate of each segment between the change
//!   points found so far is tested; the one with the largest `Q̂` among the significant ones
//!   is added, until no segment has a significant candidate (the paper's hierarchical
//!   procedure). A series without change points raises a false alarm with probability at most
//!   `significance` (the first test).
//! - The sums over pairs are computed in `O(n log n)` per statistic with a Fenwick tree over
//!   the ranks of the values (the sum of `|xᵢ − xⱼ|` for a new `xᵢ` against those before it is
//!   `xᵢ·(#below − #above) − Σbelow + Σabove`).
//! - Shuffles use a SplitMix64 generator (Steele, Lea, Flood 2014) seeded with
//!   [`Params::seed`] and the segment bounds, so results are reproducible.
//!
//! Units: whatever the series is in (the statistic is scale-equivariant); p-values are
//! probabilities in `[0, 1]`.

/// Parameters of [`detect`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Largest p-value accepted as a change point (the false-alarm level per test), e.g. 0.01.
    pub significance: f64,
    /// Shuffles per permutation test, e.g. 199 (the smallest reachable p-value is
    /// `1/(permutations+1)`).
    pub permutations: usize,
    /// Fewest points on either side of a change point (at least 1).
    pub min_size: usize,
    /// Seed of the shuffles.
    pub seed: u64,
}

impl Default for Params {
    /// significance 0.01, 199 permutations, minimum segment 3 points, seed 1.
    fn default() -> Self {
        Params {
            significance: 0.01,
            permutations: 199,
            min_size: 3,
            seed: 1,
        }
    }
}

/// One change point found by [`detect`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangePoint {
    /// Index of the first point after the change (the series changes between `index − 1`
    /// and `index`).
    pub index: usize,
    /// The statistic `Q̂` at the split (units of the series).
    pub q: f64,
    /// Permutation p-value of the test that accepted it.
    pub p_value: f64,
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small, portable, seedable generator.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n ≥ 1), by rejection so it has no modulo bias.
    fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let v = self.next();
            if v < zone {
                return (v % n) as usize;
            }
        }
    }
}

/// Fenwick tree of counts and sums over value ranks.
struct Fenwick {
    cnt: Vec<f64>,
    sum: Vec<f64>,
}

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick {
            cnt: vec![0.0; n + 1],
            sum: vec![0.0; n + 1],
        }
    }
    fn clear(&mut self) {
        self.cnt.iter_mut().for_each(|v| *v = 0.0);
        self.sum.iter_mut().for_each(|v| *v = 0.0);
    }
    fn add(&mut self, rank: usize, value: f64) {
        let mut i = rank + 1;
        while i < self.cnt.len() {
            self.cnt[i] += 1.0;
            self.sum[i] += value;
            i += i & i.wrapping_neg();
        }
    }
    /// (count, sum) of ranks `< rank`.
    fn prefix(&self, rank: usize) -> (f64, f64) {
        let (mut c, mut s) = (0.0, 0.0);
        let mut i = rank;
        while i > 0 {
            c += self.cnt[i];
            s += self.sum[i];
            i -= i & i.wrapping_neg();
        }
        (c, s)
    }
}

/// Scratch space for the statistic of one segment.
struct Scan {
    fen: Fenwick,
    left: Vec<f64>,
    right: Vec<f64>,
}

impl Scan {
    fn new(n: usize) -> Self {
        Scan {
            fen: Fenwick::new(n),
            left: vec![0.0; n + 1],
            right: vec![0.0; n + 1],
        }
    }

    /// Sum of `|v − earlier|` over the values already in the tree, then inserts `v`.
    fn push(&mut self, rank: usize, v: f64, total: (f64, f64)) -> f64 {
        let (cb, sb) = self.fen.prefix(rank);
        let (ca, sa) = (total.0 - cb, total.1 - sb);
        self.fen.add(rank, v);
        v * cb - sb + sa - v * ca
    }

    /// `(τ, Q̂(τ))` maximising Q̂ over `τ ∈ [min, n − min]` for values `x` with `ranks`
    /// (distinct ranks in `0..n`); `None` when the segment is too short.
    fn best(&mut self, x: &[f64], ranks: &[usize], min: usize) -> Option<(usize, f64)> {
        let n = x.len();
        if n < 2 * min {
            return None;
        }
        // left[t] = Σ_{i<l<t} |xᵢ − xₗ|; right[t] = Σ_{t≤j<l<n} |xⱼ − xₗ|.
        self.fen.clear();
        let (mut c, mut s) = (0.0, 0.0);
        self.left[0] = 0.0;
        for t in 0..n {
            let d = self.push(ranks[t], x[t], (c, s));
            c += 1.0;
            s += x[t];
            self.left[t + 1] = self.left[t] + d;
        }
        self.fen.clear();
        let (mut c, mut s) = (0.0, 0.0);
        self.right[n] = 0.0;
        for t in (0..n).rev() {
            let d = self.push(ranks[t], x[t], (c, s));
            c += 1.0;
            s += x[t];
            self.right[t] = self.right[t + 1] + d;
        }
        let total = self.left[n];
        let nf = n as f64;
        let mut best: Option<(usize, f64)> = None;
        for tau in min..=(n - min) {
            let (m, k) = (tau as f64, nf - tau as f64);
            let w = self.left[tau];
            let r = self.right[tau];
            let between = total - w - r;
            let within_l = if tau > 1 {
                w / (m * (m - 1.0) / 2.0)
            } else {
                0.0
            };
            let within_r = if n - tau > 1 {
                r / (k * (k - 1.0) / 2.0)
            } else {
                0.0
            };
            let e = 2.0 * between / (m * k) - within_l - within_r;
            let q = m * k / nf * e;
            if best.is_none_or(|(_, bq)| q > bq) {
                best = Some((tau, q));
            }
        }
        best
    }
}

/// Ranks `0..n` of `x` (ties broken by position; NaN sorts last).
fn ranks_of(x: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&a, &b| x[a].total_cmp(&x[b]).then(a.cmp(&b)));
    let mut r = vec![0; x.len()];
    for (rank, &i) in idx.iter().enumerate() {
        r[i] = rank;
    }
    r
}

/// A tested candidate of one segment `[start, end)`.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    index: usize,
    q: f64,
    p_value: f64,
}

/// Best split of `x[start..end)` and its permutation p-value.
fn test_segment(x: &[f64], start: usize, end: usize, p: &Params) -> Option<Candidate> {
    let seg = &x[start..end];
    let ranks = ranks_of(seg);
    let mut scan = Scan::new(seg.len());
    let (tau, q) = scan.best(seg, &ranks, p.min_size.max(1))?;
    if !q.is_finite() || q <= 0.0 {
        return Some(Candidate {
            index: start + tau,
            q,
            p_value: 1.0,
        });
    }
    let mut rng = SplitMix64(
        p.seed ^ (start as u64).wrapping_mul(0x9E37_79B9) ^ (end as u64).rotate_left(32),
    );
    let mut vals = seg.to_vec();
    let mut rks = ranks;
    let mut exceed = 0usize;
    let perms = p.permutations;
    // Exceedances allowed before p = (1 + e)/(1 + perms) goes over the level.
    let limit = (p.significance * (perms as f64 + 1.0) - 1.0).floor();
    let mut done = 0usize;
    for _ in 0..perms {
        for i in (1..vals.len()).rev() {
            let j = rng.below(i + 1);
            vals.swap(i, j);
            rks.swap(i, j);
        }
        let (_, qp) = scan.best(&vals, &rks, p.min_size.max(1))?;
        done += 1;
        // Ties within rounding count as exceedances, so the p-value does not depend on the
        // scale or offset of the series.
        if qp >= q * (1.0 - 1e-9) {
            exceed += 1;
            if (exceed as f64) > limit {
                break;
            }
        }
    }
    let p_value = if done < perms {
        // Stopped early: not significant; report the p-value of the shuffles made.
        ((1 + exceed) as f64 / (1 + done) as f64).min(1.0)
    } else {
        (1 + exceed) as f64 / (1 + perms) as f64
    };
    Some(Candidate {
        index: start + tau,
        q,
        p_value,
    })
}

/// The change points of `x` (in index order), by E-divisive means with a permutation test
/// (see the module documentation for the method and its source).
///
/// Non-finite values should be removed by the caller; they make a segment's test return
/// p = 1. A series shorter than `2·min_size` has none.
pub fn detect(x: &[f64], params: &Params) -> Vec<ChangePoint> {
    let mut found: Vec<ChangePoint> = Vec::new();
    // Candidates per segment, keyed by the segment's start; recomputed when a segment splits.
    let mut segments: Vec<(usize, usize, Option<Candidate>)> =
        vec![(0, x.len(), test_segment(x, 0, x.len(), params))];
    loop {
        let best = segments
            .iter()
            .enumerate()
            .filter_map(|(i, (_, _, c))| c.map(|c| (i, c)))
            .filter(|(_, c)| c.p_value <= params.significance)
            .max_by(|a, b| a.1.q.total_cmp(&b.1.q));
        let Some((i, c)) = best else { break };
        let (start, end, _) = segments[i];
        found.push(ChangePoint {
            index: c.index,
            q: c.q,
            p_value: c.p_value,
        });
        segments.remove(i);
        segments.push((start, c.index, test_segment(x, start, c.index, params)));
        segments.push((c.index, end, test_segment(x, c.index, end, params)));
    }
    found.sort_by_key(|c| c.index);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(n: usize, seed: u64, sd: f64) -> Vec<f64> {
        let mut r = SplitMix64(seed);
        (0..n)
            .map(|_| {
                // Sum of 12 uniforms − 6: approximately standard normal.
                let s: f64 = (0..12)
                    .map(|_| (r.next() >> 11) as f64 / (1u64 << 53) as f64)
                    .sum();
                (s - 6.0) * sd
            })
            .collect()
    }

    #[test]
    fn statistic_matches_the_direct_formula() {
        let x = [3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0];
        let ranks = ranks_of(&x);
        let mut scan = Scan::new(x.len());
        let (tau, q) = scan.best(&x, &ranks, 1).expect("long enough");
        // Direct O(n²) evaluation at every split.
        let n = x.len();
        let mut best = (0, f64::MIN);
        for t in 1..n {
            let (l, r) = x.split_at(t);
            let between: f64 = l
                .iter()
                .flat_map(|a| r.iter().map(move |b| (a - b).abs()))
                .sum();
            let pairs = |s: &[f64]| -> f64 {
                let mut acc = 0.0;
                for i in 0..s.len() {
                    for j in i + 1..s.len() {
                        acc += (s[i] - s[j]).abs();
                    }
                }
                acc
            };
            let (m, k) = (t as f64, (n - t) as f64);
            let wl = if t > 1 {
                pairs(l) / (m * (m - 1.0) / 2.0)
            } else {
                0.0
            };
            let wr = if n - t > 1 {
                pairs(r) / (k * (k - 1.0) / 2.0)
            } else {
                0.0
            };
            let qd = m * k / n as f64 * (2.0 * between / (m * k) - wl - wr);
            if qd > best.1 {
                best = (t, qd);
            }
        }
        assert_eq!(tau, best.0);
        assert!((q - best.1).abs() < 1e-9, "{q} vs {}", best.1);
    }

    #[test]
    fn finds_one_step() {
        let mut x = noise(60, 7, 1.0);
        for v in &mut x[35..] {
            *v += 5.0;
        }
        let cps = detect(&x, &Params::default());
        assert_eq!(cps.len(), 1, "{cps:?}");
        assert!((34..=36).contains(&cps[0].index), "{cps:?}");
        assert!(cps[0].p_value <= 0.01);
    }

    #[test]
    fn finds_two_steps_and_none_in_noise() {
        let mut x = noise(90, 3, 1.0);
        for v in &mut x[30..60] {
            *v += 6.0;
        }
        let idx: Vec<usize> = detect(&x, &Params::default())
            .iter()
            .map(|c| c.index)
            .collect();
        assert_eq!(idx.len(), 2, "{idx:?}");
        assert!(
            idx[0].abs_diff(30) <= 1 && idx[1].abs_diff(60) <= 1,
            "{idx:?}"
        );
        assert!(detect(&noise(90, 11, 1.0), &Params::default()).is_empty());
        assert!(detect(&[1.0, 2.0], &Params::default()).is_empty());
    }
}
