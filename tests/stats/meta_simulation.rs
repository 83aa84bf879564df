//! Simulation of sharded runs combined over machines (issue 19, `verdict::combine`): fixed
//! seeds, the whole verdict path (per-machine sample sets → per-machine estimates →
//! inverse-variance / DerSimonian–Laird combination → Holm → verdict).
//!
//! The model: 4 machines whose speeds differ by up to 30% (1.00, 1.10, 1.20, 1.30 × 1000
//! ops/s), 30 rounds split over them as `--split runs` does (7, 8, 7, 8 rounds), each round
//! running old and new once; a per-round factor (σ = 1%, drift shared by old and new of the
//! round) and per-job noise (σ = 2%), both log-normal; the new build's true change is applied
//! on every machine.

use benchdiff::compare::group_metric;
use benchdiff::run::shard::{Shard, rounds_of};
use benchdiff::sample::{Configuration, RATE, Sample, SampleSet, Side};
use benchdiff::stats::ratio;
use benchdiff::verdict::combine::{self, Combined};
use benchdiff::verdict::decide::{self, Options, Verdict};
use rand::RngExt;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

const MACHINES: usize = 4;
const SPEEDS: [f64; MACHINES] = [1.0, 1.1, 1.2, 1.3];
const RUNS: u32 = 30;
const SEEDS: u64 = 1000;

fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

struct Run {
    /// One sample set per machine.
    blocks: Vec<(String, SampleSet)>,
    /// Every sample in one set (what pooling raw samples would analyse).
    pooled: SampleSet,
}

fn simulate(seed: u64, change: [f64; MACHINES]) -> Run {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pooled = SampleSet::new();
    pooled.mark_rounds_recorded();
    let mut blocks = Vec::new();
    for m in 0..MACHINES {
        let mut set = SampleSet::new();
        set.mark_rounds_recorded();
        let (from, to) = rounds_of(
            Shard {
                k: m as u32 + 1,
                n: MACHINES as u32,
            },
            RUNS,
        );
        for run in from..to {
            let round = (0.01 * normal(&mut rng)).exp();
            for side in [Side::Old, Side::New] {
                let factor = if side == Side::New {
                    1.0 + change[m]
                } else {
                    1.0
                };
                let rate = 1000.0 * SPEEDS[m] * factor * round * (0.02 * normal(&mut rng)).exp();
                for s in [&mut set, &mut pooled] {
                    let id = s.intern_configuration("bench/x.js", &Configuration::from_text("n=1"));
                    s.push(Sample {
                        benchmark: id,
                        side,
                        metric: RATE,
                        value: rate,
                        time_s: f64::NAN,
                        run: Some(run),
                    });
                }
            }
        }
        blocks.push((format!("machine{}", m + 1), set));
    }
    Run { blocks, pooled }
}

/// The combined assessment of the one comparison, as `report` makes it.
fn assess(run: &Run) -> decide::Assessment {
    let blocks: Vec<(String, Vec<benchdiff::compare::Comparison>)> = run
        .blocks
        .iter()
        .map(|(l, s)| (l.clone(), group_metric(s, RATE)))
        .collect();
    let opts = Options {
        distribution_checks: false,
        ..Options::default()
    };
    let combined: std::collections::HashMap<String, Combined> =
        combine::combine_blocks(&blocks, opts.confidence);
    assert_eq!(combined.len(), 1);
    let rows = benchdiff::verdict::rows(group_metric(&run.pooled, RATE));
    decide::assess_combined(rows, &combined, &opts)
        .pop()
        .expect("one comparison")
}

/// Fieller's interval of the ratio of means over the raw samples of all machines pooled, as
/// an unpaired t-test over pooled samples would give it (percent).
fn pooled_interval(run: &Run) -> (f64, f64) {
    let c = group_metric(&run.pooled, RATE)
        .pop()
        .expect("one comparison");
    let r = ratio::fieller(&c.old, &c.new, 0.95).expect("bounded");
    ((r.lo - 1.0) * 100.0, (r.hi - 1.0) * 100.0)
}

#[test]
fn a_five_percent_slowdown_on_four_machines_is_found_and_covered() {
    let mut slower_and_covered = 0;
    let mut combined_width = 0.0;
    let mut pooled_width = 0.0;
    let mut pooled_slower = 0;
    for seed in 0..SEEDS {
        let run = simulate(seed, [-0.05; MACHINES]);
        let a = assess(&run);
        let c = a.combined.as_ref().expect("combined");
        assert_eq!(c.k(), MACHINES);
        let (lo, hi) = a.change_ci_pct.expect("interval");
        if a.verdict == Verdict::Slower && lo <= -5.0 && -5.0 <= hi {
            slower_and_covered += 1;
        }
        combined_width += hi - lo;
        let (plo, phi) = pooled_interval(&run);
        pooled_width += phi - plo;
        if phi < 0.0 {
            pooled_slower += 1;
        }
    }
    let n = SEEDS as f64;
    let (cw, pw) = (combined_width / n, pooled_width / n);
    println!(
        "−5% on {MACHINES} machines, {SEEDS} seeds: slower and covering −5%: {:.1}% of seeds; mean \
         95% interval width: combined {cw:.2} points, pooled raw samples {pw:.2} points \
         ({:.1}x wider; pooled interval below 0 in {:.1}% of seeds)",
        slower_and_covered as f64 / n * 100.0,
        pw / cw,
        pooled_slower as f64 / n * 100.0
    );
    assert!(
        slower_and_covered as f64 >= 0.95 * n,
        "slower and covering in {slower_and_covered} of {SEEDS} seeds"
    );
    assert!(pw > 4.0 * cw, "pooled {pw:.2} vs combined {cw:.2}");
}

#[test]
fn the_machine_that_disagrees_is_named() {
    let mut named = 0;
    for seed in 0..200 {
        let run = simulate(10_000 + seed, [-0.05, -0.05, -0.20, -0.05]);
        let a = assess(&run);
        let c = a.combined.as_ref().expect("combined");
        if c.heterogeneous() && c.outliers() == vec!["machine3"] {
            named += 1;
        }
        if seed == 0 {
            println!("one machine at −20%: {}", c.note());
            // The table's flags and the Markdown notes name it too.
            let flags = benchdiff::render::table::flags(&a);
            assert!(
                flags.contains("combined(4 machines)") && flags.contains("heterogeneous(machine3)"),
                "{flags}"
            );
            let md = benchdiff::render::markdown::notes(std::slice::from_ref(&a));
            assert!(
                md.contains("combined over 4 machines") && md.contains("outlying: machine3"),
                "{md}"
            );
        }
    }
    println!("the heterogeneity flag names machine3 alone in {named} of 200 seeds");
    assert!(named >= 195, "named in {named} of 200 seeds");
}

#[test]
fn a_merged_a_a_run_keeps_the_nominal_false_positive_rate() {
    let mut false_positives = 0;
    for seed in 0..SEEDS {
        let run = simulate(20_000 + seed, [0.0; MACHINES]);
        let a = assess(&run);
        if matches!(a.verdict, Verdict::Faster | Verdict::Slower) {
            false_positives += 1;
        }
    }
    let rate = false_positives as f64 / SEEDS as f64;
    // Nominal 5%; allow three binomial standard errors of sampling noise.
    let limit = 0.05 + 3.0 * (0.05f64 * 0.95 / SEEDS as f64).sqrt();
    println!(
        "A/A over {MACHINES} machines: false positives {:.1}% of {SEEDS} seeds (nominal 5%)",
        rate * 100.0
    );
    assert!(rate <= limit, "false-positive rate {rate}");
}
