//! Cost of the Mann–Whitney U test with its Hodges–Lehmann interval on the exact branch:
//! 20,000 comparisons of 25 + 25 continuous samples, best of 5 passes (the cost rather than the
//! machine's other load). Prints the time; `cargo bench --bench rank_sum`.

use benchdiff::stats::rank::rank_sum;
use std::time::{Duration, Instant};

fn main() {
    // A fixed xorshift stream: the same samples in every run.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let data: Vec<(Vec<f64>, Vec<f64>)> = (0..20_000)
        .map(|_| {
            let a = (0..25).map(|_| 1e6 + 1e4 * next()).collect();
            let b = (0..25).map(|_| 1.01e6 + 1e4 * next()).collect();
            (a, b)
        })
        .collect();
    let mut best = Duration::MAX;
    let mut p_sum = 0.0;
    for _ in 0..5 {
        let start = Instant::now();
        p_sum = 0.0;
        for (a, b) in &data {
            p_sum += rank_sum(a, b, 0.95).map_or(f64::NAN, |r| r.p_value);
        }
        best = best.min(start.elapsed());
    }
    println!("20,000 rank_sum(25 + 25): best of 5 {best:?} (sum of p-values {p_sum:.6})");
}
