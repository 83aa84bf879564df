//! Generates `src/stats/dip_table.rs`: quantiles of `√n·dip` for samples of `n` independent
//! Uniform(0,1) values (the null distribution of Hartigan & Hartigan's dip test), by seeded
//! simulation with our own [`benchdiff::stats::dip::dip`].
//!
//! ```sh
//! cargo run --release --example make_dip_table -- src/stats/dip_table.rs [SIMS]
//! ```
//!
//! Each sample size `n` has its own generator, `ChaCha8Rng::seed_from_u64(SEED + n)`, so the
//! table is the same on every machine and for any number of threads. `SIMS` (default 500,000)
//! samples are drawn per `n`; quantiles are R's type 7 (linear between order statistics).
//! The file is written to a temporary name and renamed, so cargo never compiles a half-written
//! table.

use benchdiff::stats::dip::dip;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const SEED: u64 = 0x00D1_9D1B_1985;
const DEFAULT_SIMS: usize = 500_000;
const NS: [usize; 21] = [
    4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 300, 500, 1000,
];
const PROBS: [f64; 19] = [
    0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995,
    0.998, 0.999,
];

/// Type-7 quantile of sorted values.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Quantiles of √n·dip over `sims` uniform samples of size `n`.
fn simulate(n: usize, sims: usize) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + n as u64);
    let mut x = vec![0.0f64; n];
    let mut dips = Vec::with_capacity(sims);
    for _ in 0..sims {
        for v in x.iter_mut() {
            *v = rng.random::<f64>();
        }
        dips.push((n as f64).sqrt() * dip(&x));
    }
    dips.sort_by(f64::total_cmp);
    PROBS.iter().map(|&p| quantile(&dips, p)).collect()
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: make_dip_table OUT.rs [SIMS]");
        std::process::exit(2);
    };
    let sims: usize = match args.next() {
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("SIMS must be a positive integer");
            std::process::exit(2)
        }),
        None => DEFAULT_SIMS,
    };
    let start = std::time::Instant::now();
    let rows: Mutex<Vec<Option<Vec<f64>>>> = Mutex::new(vec![None; NS.len()]);
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    // Largest n first, so the slowest jobs do not start last.
    let order: Vec<usize> = (0..NS.len()).rev().collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&k) = order.get(i) else { break };
                    let q = simulate(NS[k], sims);
                    if let Ok(mut r) = rows.lock() {
                        r[k] = Some(q);
                    }
                }
            });
        }
    });
    let rows = rows.into_inner().unwrap_or_default();

    let mut s = String::new();
    let _ = writeln!(
        s,
        "//! GENERATED FILE, do not edit: quantiles of `√n·dip` under the uniform null.\n\
         //!\n\
         //! Made by `cargo run --release --example make_dip_table -- src/stats/dip_table.rs {sims}`\n\
         //! (examples/make_dip_table.rs): for each `n` in [`DIP_TABLE_N`], {sims} samples of `n`\n\
         //! Uniform(0,1) values from `ChaCha8Rng::seed_from_u64({SEED:#x} + n)` (rand 0.10), their\n\
         //! dip from [`super::dip::dip`], and the type-7 quantiles at the levels of\n\
         //! [`DIP_TABLE_PROB`]. Standard error of a quantile near level `p` is about\n\
         //! `√(p(1−p)/{sims})` in probability.\n"
    );
    let _ = writeln!(
        s,
        "/// Sample sizes `n` of the rows of [`DIP_TABLE_Q`], increasing.\n\
         #[rustfmt::skip]\n\
         pub const DIP_TABLE_N: [usize; {}] = {:?};\n",
        NS.len(),
        NS
    );
    let _ = writeln!(
        s,
        "/// Probability levels of the columns of [`DIP_TABLE_Q`], increasing.\n\
         #[rustfmt::skip]\n\
         pub const DIP_TABLE_PROB: [f64; {}] = {:?};\n",
        PROBS.len(),
        PROBS
    );
    let _ = writeln!(
        s,
        "/// `DIP_TABLE_Q[k][j]`: the level-`DIP_TABLE_PROB[j]` quantile of `√n·dip` for\n\
         /// `n = DIP_TABLE_N[k]` independent Uniform(0,1) values (rounded to 6 decimals).\n\
         #[rustfmt::skip]\n\
         pub const DIP_TABLE_Q: [[f64; {}]; {}] = [",
        PROBS.len(),
        NS.len()
    );
    for (k, row) in rows.iter().enumerate() {
        let Some(row) = row else {
            eprintln!("row for n = {} missing", NS[k]);
            std::process::exit(1);
        };
        let cells: Vec<String> = row.iter().map(|q| format!("{q:.6}")).collect();
        let _ = writeln!(s, "    // n = {}\n    [{}],", NS[k], cells.join(", "));
    }
    s.push_str("];\n");
    let tmp = format!("{out}.tmp");
    std::fs::write(&tmp, s)?;
    std::fs::rename(&tmp, &out)?;
    eprintln!(
        "wrote {out}: {} sizes x {sims} samples in {:.1} s on {threads} threads",
        NS.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
