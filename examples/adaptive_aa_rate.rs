//! The A/A false-positive rate of the adaptive stopping rule measured precisely: 100,000
//! simulated comparisons (no processes) under the rule `compare --runs auto` applies, with the
//! rule and coefficients of variation of `tests/stats/adaptive_simulation.rs` (which checks the
//! rate on 2,000), printed per CV for Welch's test and the paired log-ratio test:
//!
//! ```sh
//! cargo run --release --example adaptive_aa_rate
//! ```

use benchdiff::run::adaptive::Rule;
use benchdiff::stats::paired::paired_log_ratio;
use benchdiff::stats::welch::welch;
use rand::RngExt;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Standard normal deviate by Box–Muller.
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

const RULE: Rule = Rule {
    target_pct: 2.0,
    min_runs: 5,
    max_runs: 60,
};
const CVS: [f64; 4] = [0.01, 0.03, 0.05, 0.08];

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xADA9_0005);
    let total = 100_000;
    // Per CV: [Welch, paired] false positives.
    let mut fp = [[0usize; 2]; 4];
    for i in 0..total {
        let cv = CVS[i % CVS.len()];
        let (old, new) = RULE.drive(|_| {
            (
                1e6 * (1.0 + cv * normal(&mut rng)),
                1e6 * (1.0 + cv * normal(&mut rng)),
            )
        });
        if welch(&old, &new).unwrap().p_value < 0.05 {
            fp[i % CVS.len()][0] += 1;
        }
        let pairs: Vec<(f64, f64)> = old.iter().copied().zip(new.iter().copied()).collect();
        if paired_log_ratio(&pairs, 0.95).unwrap().p_value < 0.05 {
            fp[i % CVS.len()][1] += 1;
        }
    }
    let per = (total / CVS.len()) as f64;
    for (cv, f) in CVS.iter().zip(fp) {
        println!(
            "cv {cv}: false-positive rate Welch {:.2}%, paired {:.2}%",
            100.0 * f[0] as f64 / per,
            100.0 * f[1] as f64 / per
        );
    }
    for (k, test) in ["Welch", "paired"].iter().enumerate() {
        println!(
            "all, {test}: {:.2}% of {total}",
            100.0 * fp.iter().map(|f| f[k]).sum::<usize>() as f64 / total as f64
        );
    }
}
