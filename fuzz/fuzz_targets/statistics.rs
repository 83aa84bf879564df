//! The statistics entry points on arbitrary sample vectors (NaN, infinities, zeros,
//! negatives, one sample, long runs of identical values) and the whole verdict pipeline.
#![no_main]
use benchdiff::sample::{RATE, Sample, SampleSet, Side};
use benchdiff::stats::{dip, drift, outliers, paired, rank, ratio, regimes, shape, welch};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    // First byte: split point and an optional repeat count; the rest: f64s.
    let split = data[0] as usize;
    let repeat = if data[0] & 0x80 != 0 {
        1 + (data[0] as usize & 0x3f) * 100
    } else {
        1
    };
    let vals: Vec<f64> = data[1..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    let cut = split.min(vals.len());
    let mut old = vals[..cut].to_vec();
    let new = vals[cut..].to_vec();
    if repeat > 1 && !old.is_empty() {
        let v = old[0];
        old.extend(std::iter::repeat_n(v, repeat));
    }
    let _ = welch::welch(&old, &new);
    let _ = welch::improvement_pct(&old, &new);
    let _ = ratio::fieller(&old, &new, 0.95);
    let _ = rank::rank_sum(&old, &new, 0.95);
    let pairs: Vec<(f64, f64)> = old.iter().copied().zip(new.iter().copied()).collect();
    let _ = paired::paired_log_ratio(&pairs, 0.95);
    let _ = dip::dip(&old);
    let _ = shape::multimodality(&new);
    let _ = shape::too_few_to_tell(&old);
    let _ = regimes::resolution(&old);
    if let Some(s) = regimes::regime_statistics(&old) {
        let _ = regimes::decide(&old, s);
    }
    let _ = regimes::regimes(&new);
    let _ = outliers::mad_outliers(&old);
    let pts: Vec<(f64, f64)> = new
        .iter()
        .enumerate()
        .map(|(i, v)| (i as f64, *v))
        .collect();
    let _ = drift::drift(&pts);

    let mut set = SampleSet::new();
    let id = set.intern("fuzz.js", "n=1");
    for (side, xs) in [(Side::Old, &old), (Side::New, &new)] {
        for (i, v) in xs.iter().enumerate() {
            set.push(Sample {
                benchmark: id,
                side,
                metric: RATE,
                value: *v,
                time_s: 1.0,
                run: Some(i as u32),
            });
        }
    }
    let rows = benchdiff::verdict::rows(benchdiff::compare::group(&set));
    let _ = benchdiff::verdict::decide::assess(rows, &Default::default());
});
