//! The cost of `--stop decided`'s own work, against a job (milliseconds to seconds):
//! - once per run: the group-sequential boundary (`Boundary::new`: the recursive
//!   integration over the looks `--min-runs..=--max-runs`);
//! - once per round: the rule on every open row (`Decider::status`: paired log ratios, mean,
//!   variance, interval, decision) for suites of 20 and 1000 rows at 5 to 30 rounds.
//!
//! Run: `cargo bench --bench sequential_rule`. Prints microseconds. Measured on the shared
//! 2-core machine under load (23:15, 30 Nov 2026): boundary 34 ms (looks 5..=30), 75 ms
//! (5..=60), 219 ms (5..=200), once per run; the rule 7–9 µs per round on 20 rows, 0.2–0.6
//! ms on 1000 rows, against jobs of 50 ms to seconds.

use benchdiff::run::sequential::{ALPHA, DecideRule, Decider, Stop};
use benchdiff::stats::sequential::{Boundary, Method, row_alpha};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    for (method, max) in [
        (Method::Pocock, 30),
        (Method::Pocock, 60),
        (Method::Pocock, 200),
        (Method::ObrienFleming, 60),
        (Method::Mixture, 60),
    ] {
        let reps = 5;
        let t = Instant::now();
        for _ in 0..reps {
            black_box(Boundary::new(method, row_alpha(0.05, 20), 5, max));
        }
        println!(
            "boundary {:<15} looks 5..={max:<3}: {:>9.1} µs once per run",
            method.name(),
            t.elapsed().as_secs_f64() * 1e6 / reps as f64
        );
    }
    for rows in [20usize, 1000] {
        let mut d = Decider::new(
            DecideRule {
                stop: Stop::Decided,
                threshold_pct: 1.0,
                alpha: ALPHA,
                method: Method::Pocock,
                // On: the worst case, the predictive power is computed for open rows too.
                futility: true,
            },
            5,
            30,
        );
        d.fix_rows(rows);
        // Noisy rows that never settle: the rule runs on every row every round.
        let old: Vec<Vec<f64>> = (0..rows)
            .map(|r| {
                (0..30)
                    .map(|i| 100.0 + ((i * 7 + r) % 11) as f64 * 3.0)
                    .collect()
            })
            .collect();
        let new: Vec<Vec<f64>> = (0..rows)
            .map(|r| {
                (0..30)
                    .map(|i| 100.0 + ((i * 5 + r) % 13) as f64 * 3.0)
                    .collect()
            })
            .collect();
        for n in [5usize, 10, 30] {
            let reps = if rows > 100 { 20 } else { 1000 };
            let t = Instant::now();
            for _ in 0..reps {
                for r in 0..rows {
                    black_box(d.status(&old[r][..n], &new[r][..n]));
                }
            }
            println!(
                "rule on {rows:>4} rows after {n:>2} rounds: {:>9.2} µs per round",
                t.elapsed().as_secs_f64() * 1e6 / reps as f64
            );
        }
    }
}
