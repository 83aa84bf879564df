//! The tables behind the distribution checks of a side (`benchdiff::stats::regimes`,
//! `benchdiff::stats::outliers`, the drift rule of `benchdiff::verdict::decide`), by seeded
//! simulation; the same samples as `tests/stats/regimes_simulation.rs` draws, which checks the
//! error rates:
//!
//! ```sh
//! cargo run --release --example regime_tables -- calibrate    # the critical-value tables
//! cargo run --release --example regime_tables -- false-flags  # A/A rows at every n
//! cargo run --release --example regime_tables -- power        # two regimes: n × ratio × split
//! ```
//!
//! `calibrate` reads `REGIME_CAL_REPS` (samples per shape and size up to n = 30, default
//! 20,000; half of that up to 300, a quarter up to 2,000, a tenth beyond, at least 2,000).

use benchdiff::stats::outliers;
use benchdiff::stats::regimes::{DIP_ALPHA, FALSE_FLAG_SHARE, regime_statistics};
use benchdiff::stats::shape::multimodality;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("calibrate") => calibrate(),
        Some("false-flags") => false_flags(),
        Some("power") => power_table(),
        _ => {
            eprintln!("usage: regime_tables calibrate|false-flags|power");
            std::process::exit(2);
        }
    }
}

#[path = "../tests/stats/regime_samples.rs"]
mod regime_samples;
use regime_samples::{AaFlags, aa_rows, calibration_families, latency_families, two_regimes};

/// The sizes of the critical-value tables.
const SIZES: [usize; 40] = [
    6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 25, 28, 30, 35, 40, 45, 50, 60, 70, 80,
    100, 120, 150, 200, 250, 300, 400, 500, 700, 1000, 1500, 2000, 3000, 5000, 7000, 10000,
];

/// The value that `share` of `v` exceeds: the `⌊share·len⌋`-th largest (0-based), or 0 when
/// there are not that many.
fn exceeded_by(mut v: Vec<f64>, share: f64, len: usize) -> f64 {
    v.sort_by(|a, b| b.total_cmp(a));
    v.get((share * len as f64) as usize).copied().unwrap_or(0.0)
}

/// Largest robust z-score `|x − median| / σ̂` of a sample (the outlier rule's statistic).
fn max_robust_z(x: &[f64]) -> f64 {
    let o = outliers::mad_outliers(x);
    if o.sigma > 0.0 {
        x.iter()
            .map(|v| (v - o.median).abs() / o.sigma)
            .fold(0.0, f64::max)
    } else {
        0.0
    }
}

/// The critical values: for every size and calibration shape, the gap statistic exceeded by
/// `FALSE_FLAG_SHARE` of the samples (alone, and jointly with a dip rejection) and the largest
/// robust z-score exceeded by `outliers::FALSE_FLAG_SHARE` of them; the largest over the
/// shapes, made non-increasing in n. Printed as the Rust tables of the two modules.
fn calibrate() {
    let base: usize = std::env::var("REGIME_CAL_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let mut rows: Vec<(usize, f64, f64, f64)> = Vec::new();
    for &n in &SIZES {
        let reps = match n {
            0..=30 => base,
            31..=300 => base / 2,
            301..=2000 => base / 4,
            _ => base / 10,
        }
        .max(2000);
        let (mut gap, mut dip, mut z) = (0.0f64, 0.0f64, 0.0f64);
        for (fi, (_, draw)) in calibration_families().iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(1 + 1000 * fi as u64 + n as u64);
            let (mut g, mut gd, mut zs) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..reps {
                let x: Vec<f64> = (0..n).map(|_| draw(&mut rng)).collect();
                zs.push(max_robust_z(&x));
                let Some(s) = regime_statistics(&x) else {
                    continue;
                };
                g.push(s.gap);
                if s.dip_p < DIP_ALPHA {
                    gd.push(s.gap);
                }
            }
            gap = gap.max(exceeded_by(g, FALSE_FLAG_SHARE, reps));
            dip = dip.max(exceeded_by(gd, FALSE_FLAG_SHARE, reps));
            z = z.max(exceeded_by(zs, outliers::FALSE_FLAG_SHARE, reps));
        }
        eprintln!("n={n}: gap {gap:.4} dip+gap {dip:.4} z {z:.3}");
        rows.push((n, gap, dip.min(gap), z));
    }
    // The gap's values non-increasing in n: each the largest of its own and those of larger
    // sizes. (The robust z-score falls with n while the MAD settles, then grows with the tail
    // of n values: each of its values is the largest of its own and its neighbours'.)
    for i in (0..rows.len() - 1).rev() {
        let next = rows[i + 1];
        let r = &mut rows[i];
        r.1 = r.1.max(next.1);
        r.2 = r.2.max(next.2);
    }
    println!("regimes::CRITICAL = [");
    for r in &rows {
        println!("    ({}, {:.4}, {:.4}),", r.0, r.1, r.2);
    }
    println!("];\noutliers::THRESHOLD = [");
    for i in 0..rows.len() {
        let near = &rows[i.saturating_sub(1)..(i + 2).min(rows.len())];
        let z = near
            .iter()
            .map(|r| r.3)
            .fold(outliers::MODIFIED_Z_THRESHOLD, f64::max);
        println!("    ({}, {z:.3}),", rows[i].0);
    }
    println!("];");
}

/// Percent, as a table cell.
fn pct(r: f64) -> String {
    format!("{:>5.1}", r * 100.0)
}

/// A/A rows of the healthy latency shapes at every n: percent of rows (two sides of n samples
/// each) with a side flagged multimodal, with outliers, with drift, as a report flags them.
fn false_flags() {
    let rows: usize = std::env::var("ROWS_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let sizes = [10, 30, 100, 300, 1000, 10000];
    println!("percent of A/A rows flagged (multimodal / outliers / drift), {rows} rows each");
    print!("{:<22}", "shape");
    for n in sizes {
        print!(" | n={n:<17}");
    }
    println!();
    for (fi, (name, draw)) in latency_families().into_iter().enumerate() {
        print!("{name:<22}");
        for n in sizes {
            let rows = if n >= 10000 { rows / 2 } else { rows };
            let AaFlags {
                multimodal: mm,
                outliers: out,
                drift: dr,
            } = aa_rows(&draw, n, rows, 9000 + fi as u64 * 64 + n as u64);
            let f = |c: usize| pct(c as f64 / rows as f64);
            print!(" | {} {} {}", f(mm), f(out), f(dr));
        }
        println!();
    }
}

/// The power grid: percent of 1000 samples flagged, per n, ratio of the regimes, minority
/// share and within-regime CV; and the arm that flagged them.
fn power_table() {
    let reps = 1000;
    println!("percent flagged (gap arm, dip arm); within-regime CV 3% | 8%");
    for n in [6, 8, 10, 12, 15, 20, 30, 50, 100, 1000] {
        for ratio in [1.3, 1.5, 1.7, 2.0] {
            let mut line = format!("n={n:<5} {ratio:.1}x");
            for share in [0.5, 0.3, 0.2] {
                let k = (share * n as f64).round() as usize;
                for cv in [0.03, 0.08] {
                    let mut rng = ChaCha8Rng::seed_from_u64(1000 + n as u64);
                    let (mut f, mut g, mut d) = (0, 0, 0);
                    for _ in 0..reps {
                        let x = two_regimes(&mut rng, n, k, ratio, cv);
                        if let Some(m) = multimodality(&x) {
                            f += 1;
                            g += m.regimes.by_gap as usize;
                            d += m.regimes.by_dip as usize;
                        }
                    }
                    let p = |c: usize| (100.0 * c as f64 / reps as f64).round();
                    line += &format!(
                        " | {:.0}/{:.0} {:>3}",
                        (1.0 - share) * 100.0,
                        share * 100.0,
                        p(f)
                    );
                    line += &format!(" ({:.0},{:.0})", p(g), p(d));
                }
            }
            println!("{line}");
        }
    }
}
