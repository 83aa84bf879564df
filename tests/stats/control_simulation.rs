//! Simulation of the A/A control arm (`compare --control`, [`benchdiff::verdict::control`])
//! with fixed seeds: 1,000 suites of 20 rows, 10 interleaved rounds of old, new and control
//! (the old build again) each, a round drift shared by the three jobs of a round (CV 2%) and
//! a per-sample CV of 2%.
//!
//! - Under the null (new and control identical to old): among the suites whose control says
//!   clean, the real comparisons' family-wise false-positive rate (Holm, α = 5%) stays at or
//!   below α, with two binomial standard errors of tolerance.
//! - With noise injected into one side's runs (load slowing every old job by `1 + |N(0, 5%)|`,
//!   as nodejs/node#7094's load during the old runs alone): the control is flagged in at least
//!   90% of the suites.

use benchdiff::compare;
use benchdiff::sample::{RATE, Sample, SampleSet, Side};
use benchdiff::verdict::control::{self, Control};
use benchdiff::verdict::decide::{self, Options, Verdict};
use benchdiff::verdict::rows;
use rand::RngExt;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

const SUITES: usize = 1000;
const ROWS: usize = 20;
const RUNS: u32 = 10;

/// Standard normal deviate by Box–Muller.
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// One suite under the null; with `old_load`, every old job is slowed by `1 + |N(0, load)|`.
fn suite(rng: &mut ChaCha8Rng, old_load: f64) -> SampleSet {
    let mut set = SampleSet::new();
    set.mark_rounds_recorded();
    for c in 0..ROWS {
        let id = set.intern("sim.js", &format!("c={c}"));
        for r in 0..RUNS {
            let drift = 1.0 + 0.02 * normal(rng);
            for side in [Side::Old, Side::New, Side::Control] {
                let load = if side == Side::Old {
                    1.0 + (old_load * normal(rng)).abs()
                } else {
                    1.0
                };
                let rate = 1e6 * drift * (1.0 + 0.02 * normal(rng)) / load;
                set.push(Sample {
                    benchmark: id,
                    side,
                    metric: RATE,
                    value: rate,
                    time_s: 1.0 / rate,
                    run: Some(r),
                });
            }
        }
    }
    set
}

/// The real assessments and the control of a suite, as the report makes them.
fn analyse(set: &SampleSet, opts: &Options) -> (Vec<decide::Assessment>, Control) {
    let real = decide::assess(rows(compare::group(set)), opts);
    let view = set.control_view().expect("a control side");
    let ctl = decide::assess(rows(compare::group(&view)), opts);
    let c = control::summarise(&real, &ctl, opts);
    (real, c)
}

fn opts() -> Options {
    Options {
        distribution_checks: false,
        ..Options::default()
    }
}

#[test]
fn a_clean_control_keeps_the_family_wise_rate_at_alpha() {
    let opts = opts();
    let mut rng = ChaCha8Rng::seed_from_u64(0xC0_47_01);
    let (mut clean, mut clean_fp, mut flagged) = (0usize, 0usize, 0usize);
    for _ in 0..SUITES {
        let set = suite(&mut rng, 0.0);
        let (real, c) = analyse(&set, &opts);
        assert_eq!(c.compared, ROWS);
        if c.flagged {
            flagged += 1;
            continue;
        }
        clean += 1;
        if real
            .iter()
            .any(|a| matches!(a.verdict, Verdict::Faster | Verdict::Slower))
        {
            clean_fp += 1;
        }
    }
    let rate = clean_fp as f64 / clean as f64;
    let se = (opts.alpha * (1.0 - opts.alpha) / clean as f64).sqrt();
    println!(
        "null: control flagged {flagged}/{SUITES}; family-wise false positives when clean \
         {clean_fp}/{clean} = {:.2}% (alpha {}%, tolerance +{:.2}%)",
        rate * 100.0,
        opts.alpha * 100.0,
        2.0 * se * 100.0
    );
    assert!(rate <= opts.alpha + 2.0 * se, "{rate}");
    // The control's own false alarms are the report's α too.
    let f = flagged as f64 / SUITES as f64;
    assert!(
        f <= opts.alpha + 2.0 * (opts.alpha * 0.95 / SUITES as f64).sqrt(),
        "{f}"
    );
}

#[test]
fn load_on_one_sides_runs_is_flagged_by_the_control() {
    let opts = opts();
    let mut rng = ChaCha8Rng::seed_from_u64(0x10AD_0001);
    let mut flagged = 0usize;
    for _ in 0..SUITES {
        let set = suite(&mut rng, 0.05);
        if analyse(&set, &opts).1.flagged {
            flagged += 1;
        }
    }
    println!("load on the old runs: control flagged {flagged}/{SUITES}");
    assert!(flagged * 10 >= SUITES * 9, "{flagged}");
}
