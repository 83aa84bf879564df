//! The tables of `src/stats/regimes.rs`'s documentation, by seeded simulation of the two-regime
//! detector (`benchdiff::stats::regimes`); the same samples as `tests/stats/regimes_simulation.rs`
//! draws, which checks the detector's error rates:
//!
//! ```sh
//! cargo run --release --example regime_tables -- power        # n × separation × split
//! cargo run --release --example regime_tables -- false-flags  # per unimodal family
//! cargo run --release --example regime_tables -- calibrate    # GAP_CRIT and BIC_CRIT
//! ```
//!
//! `calibrate` reads `REGIME_CAL_REPS` (samples per size, default 20,000) and
//! `REGIME_CAL_DIST=uniform` (the 99th percentiles on uniform samples instead).

use benchdiff::stats::regimes::{MIN_N, bic_critical, gap_critical, regime_statistics, regimes};
use benchdiff::stats::shape::multimodality;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("power") => power_table(),
        Some("false-flags") => false_flag_table(),
        Some("calibrate") => calibrate(),
        _ => {
            eprintln!("usage: regime_tables power|false-flags|calibrate");
            std::process::exit(2);
        }
    }
}

#[path = "../tests/stats/regime_samples.rs"]
mod regime_samples;
use regime_samples::{normal, two_regimes, unimodal_families};

/// Percent, as a table cell.
fn pct(r: f64) -> String {
    format!("{:>4.0}", r * 100.0)
}

/// The full power grid (about a minute in debug). Prints, for each n, separation and
/// minority share, the flag rate of the final rule and of each statistic alone at its own
/// critical value (dip at p < 0.05).
fn power_table() {
    let reps = 1000;
    println!(
        "percent flagged; within-regime CV 3% and 8%; rule = gap or BIC; dip alone at p < 0.05"
    );
    println!(
        "{:>4} {:>5} {:>5} {:>4} | CV 3%: flag rule  gap  bic  dip | CV 8%: flag rule  gap  bic  dip",
        "n", "ratio", "split", "k"
    );
    for n in [6, 8, 10, 12, 15, 20, 25, 30] {
        for ratio in [1.3, 1.5, 2.0] {
            for share in [0.5, 0.3, 0.2] {
                let k = (share * n as f64).round() as usize;
                let mut cells = Vec::new();
                for cv in [0.03, 0.08] {
                    let mut rng = ChaCha8Rng::seed_from_u64(1000 + n as u64);
                    let (mut a, mut g, mut b, mut d, mut m) = (0, 0, 0, 0, 0);
                    for _ in 0..reps {
                        let x = two_regimes(&mut rng, n, k, ratio, cv);
                        let Some(s) = regime_statistics(&x) else {
                            continue;
                        };
                        a += regimes(&x).is_some() as usize;
                        m += multimodality(&x).is_some() as usize;
                        g += (s.gap > gap_critical(n)) as usize;
                        b += (s.bic > bic_critical(n)) as usize;
                        d += (s.dip_p < 0.05) as usize;
                    }
                    let f = |c: usize| pct(c as f64 / reps as f64);
                    cells.push(format!("{} {} {} {} {}", f(m), f(a), f(g), f(b), f(d)));
                }
                println!(
                    "{n:>4} {ratio:>5.1} {:>2.0}/{:<2.0} {k:>4} |       {} |       {}",
                    (1.0 - share) * 100.0,
                    share * 100.0,
                    cells[0],
                    cells[1]
                );
            }
        }
    }
}

/// False-flag rates per unimodal family (printed for the module documentation).
fn false_flag_table() {
    let reps = 1000;
    let sizes = [6, 8, 10, 15, 20, 30];
    println!("false flags, percent: the rule at each n | gap, bic, dip pooled over the sizes");
    println!(
        "{:<18} {:>4} {:>4} {:>4} {:>4} {:>4} {:>4} |  gap  bic  dip",
        "family", 6, 8, 10, 15, 20, 30
    );
    for (fi, (name, draw)) in unimodal_families().into_iter().enumerate() {
        let (mut g, mut b, mut d, mut t) = (0, 0, 0, 0);
        let mut per_n = Vec::new();
        for n in sizes {
            let mut rng = ChaCha8Rng::seed_from_u64(5000 + fi as u64 * 64 + n as u64);
            let mut a = 0;
            for _ in 0..reps {
                let x: Vec<f64> = (0..n).map(|_| draw(&mut rng)).collect();
                t += 1;
                a += regimes(&x).is_some() as usize;
                if let Some(s) = regime_statistics(&x) {
                    g += (s.gap > gap_critical(n)) as usize;
                    b += (s.bic > bic_critical(n)) as usize;
                    d += (s.dip_p < 0.05) as usize;
                }
            }
            per_n.push(pct(a as f64 / reps as f64));
        }
        let f = |c: usize| pct(c as f64 / t as f64);
        println!(
            "{name:<18} {} | {} {} {}",
            per_n.join(" "),
            f(g),
            f(b),
            f(d)
        );
    }
}

/// Critical values of the gap and ΔBIC statistics: the 99.5th percentiles on
/// log-normal samples (normal on the log scale the statistics use), printed as the tables of
/// `src/stats/regimes.rs`.
fn calibrate() {
    let reps: usize = std::env::var("REGIME_CAL_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    // REGIME_CAL_DIST=uniform: the 99th percentiles on uniform samples instead (the short-tailed
    // shape a drifting benchmark gives; the dip test's null).
    let uniform = std::env::var("REGIME_CAL_DIST").is_ok_and(|v| v == "uniform");
    let level = if uniform { 0.99 } else { 0.995 };
    let sizes: Vec<usize> = (MIN_N..=30)
        .chain([35, 40, 50, 60, 80, 100, 150, 200])
        .collect();
    let mut gap_rows = Vec::new();
    let mut bic_rows = Vec::new();
    for n in sizes {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut g = Vec::with_capacity(reps);
        let mut b = Vec::with_capacity(reps);
        for _ in 0..reps {
            let x: Vec<f64> = if uniform {
                (0..n).map(|_| 0.9 + 0.2 * rng.random::<f64>()).collect()
            } else {
                (0..n).map(|_| (0.05 * normal(&mut rng)).exp()).collect()
            };
            if let Some(s) = regime_statistics(&x) {
                g.push(s.gap);
                b.push(s.bic);
            }
        }
        g.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        let q = |v: &[f64], p: f64| v[((v.len() as f64 * p) as usize).min(v.len() - 1)];
        gap_rows.push(format!("({n}, {:.4})", q(&g, level)));
        bic_rows.push(format!("({n}, {:.4})", q(&b, level)));
        eprintln!(
            "n={n} gap95={:.3} gap99={:.3} bic95={:.3} bic99={:.3}",
            q(&g, 0.95),
            q(&g, 0.99),
            q(&b, 0.95),
            q(&b, 0.99)
        );
    }
    println!("GAP_CRIT = [{}]", gap_rows.join(", "));
    println!("BIC_CRIT = [{}]", bic_rows.join(", "));
}
