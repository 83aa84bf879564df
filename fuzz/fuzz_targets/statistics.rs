//! The statistics entry points on arbitrary sample vectors (NaN, infinities, zeros,
//! negatives, one sample, long runs of identical values) and the whole verdict pipeline:
//! paired (rounds recorded) and unpaired (independent files), counts with zeros and ties
//! (issue 14), benchmarks on one side only, the geomean and the table/JSON renderers.
#![no_main]
use benchdiff::sample::{RATE, Sample, SampleSet, Side};
use benchdiff::stats::{dip, drift, outliers, paired, rank, ratio, regimes, shape, utest, welch};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    // First byte: split point and an optional repeat count; the rest: f64s.
    let split = data[0] as usize;
    let repeat = if data[0] & 0x80 != 0 { 1 + (data[0] as usize & 0x3f) * 100 } else { 1 };
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
    check_rank(&old, &new);
    // The same values as small counts: zeros and heavy ties (B/op, allocs/op).
    let count = |v: &f64| if v.is_finite() { (v.abs() % 4.0).floor() } else { 0.0 };
    let (old_c, new_c): (Vec<f64>, Vec<f64>) =
        (old.iter().map(count).collect(), new.iter().map(count).collect());
    check_rank(&old_c, &new_c);
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
    let pts: Vec<(f64, f64)> = new.iter().enumerate().map(|(i, v)| (i as f64, *v)).collect();
    let _ = drift::drift(&pts);

    for rounds in [true, false] {
        pipeline(&old, &new, rounds);
        pipeline(&old_c, &new_c, rounds);
    }
});

/// Rank tests: p in [0, 1], the shift inside its interval, exact mirroring.
fn check_rank(old: &[f64], new: &[f64]) {
    if let Some(r) = rank::rank_sum(old, new, 0.95) {
        assert!((0.0..=1.0).contains(&r.p_value), "{r:?}");
        if r.shift.is_finite() && r.shift_ci.0.is_finite() && r.shift_ci.1.is_finite() {
            assert!(r.shift_ci.0 <= r.shift && r.shift <= r.shift_ci.1, "{r:?}");
        }
        if let Some(m) = rank::rank_sum(new, old, 0.95)
            && r.shift.is_finite()
        {
            assert_eq!(r.shift, -m.shift);
        }
        let _ = r.method.label();
    }
    if let Some(u) = utest::u_test(old, new) {
        assert!((0.0..=1.0).contains(&u.p_value), "{u:?}");
        let _ = u.method().key();
    }
    if !old.is_empty() && !new.is_empty() && old.len() + new.len() < 200 {
        let p = utest::min_p(old.len(), new.len());
        assert!(p > 0.0 && p <= 1.0);
    }
}

/// The verdict pipeline on one benchmark plus one measured on the old side only, with or
/// without recorded rounds, through the geomean and the table and JSON renderers.
fn pipeline(old: &[f64], new: &[f64], rounds: bool) {
    let mut set = SampleSet::new();
    if rounds {
        set.mark_rounds_recorded();
    }
    let id = set.intern("fuzz.js", "n=1");
    let lone = set.intern("fuzz.js", "n=2");
    for (side, xs) in [(Side::Old, old), (Side::New, new)] {
        for (i, v) in xs.iter().enumerate() {
            set.push(Sample { benchmark: id, side, metric: RATE, value: *v, time_s: 1.0, run: Some(i as u32) });
        }
    }
    if let Some(v) = old.first() {
        set.push(Sample { benchmark: lone, side: Side::Old, metric: RATE, value: *v, time_s: 1.0, run: None });
    }
    let (both, one_sided) = benchdiff::compare::split_one_sided(benchdiff::compare::group(&set));
    let rows = benchdiff::verdict::rows(both);
    let opts = Default::default();
    let a = benchdiff::verdict::decide::assess(rows, &opts);
    for x in &a {
        assert!(x.p_value.is_nan() || (0.0..=1.0).contains(&x.p_value), "{}", x.p_value);
        if x.too_few_samples {
            assert!(matches!(x.verdict, benchdiff::verdict::decide::Verdict::Inconclusive { .. }));
        }
    }
    let _ = benchdiff::verdict::decide::geomean(&a);
    let _ = benchdiff::render::table::render_with(&a, &one_sided, &opts, false, None);
    let d = benchdiff::render::ReportData { set: &set, assessments: &a, opts: &opts, run: None, one_sided: &one_sided };
    let _ = benchdiff::render::json::render(&d);
}
