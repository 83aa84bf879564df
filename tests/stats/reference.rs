//! Reference tests for the rank-sum test, p-value adjustment and order-statistic intervals.
//!
//! - `tests/data/stats/wilcox-vectors.tsv` and `p-adjust-vectors.tsv` were written by R 4.2.2
//!   (`scripts/reference/make-rank-adjust-vectors.R`); R is not needed to run these tests.
//! - benchstat's golden outputs in `tests/data/oracle/benchstat/` check medians and the
//!   `± X%` of the order-statistic intervals.
//!
//! Tolerances: p-values 1e-9 relative; exact-case estimates and interval bounds 1e-9 relative
//! to the largest magnitude in the samples (a difference near 0 can come from cancellation, so
//! relative-to-itself is meaningless there). In the asymptotic cases (ties, or 50+ a side)
//! benchdiff's shift is the Hodges–Lehmann median with order-statistic bounds, not R's
//! `uniroot(tol = 1e-4)` root (issue 14): those are checked against a brute-force sort, and
//! R's estimate only where it must coincide with the median (no ties, up to R's tolerance).
//! The worst errors are printed (`cargo test --test stats_reference -- --nocapture`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use benchdiff::stats::adjust::{benjamini_hochberg, holm};
use benchdiff::stats::quantile::{median, median_ci, pct_range, quantile_ci, quantile7};
use benchdiff::stats::rank::rank_sum;
use proptest::prelude::*;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/stats")
}

fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle/benchstat")
}

fn num(s: &str) -> f64 {
    match s {
        "NA" | "NaN" => f64::NAN,
        "Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        _ => s
            .parse()
            .unwrap_or_else(|e| panic!("bad number {s:?}: {e}")),
    }
}

fn nums(s: &str) -> Vec<f64> {
    s.split(',').map(num).collect()
}

/// Rows of a TSV file with a header, as maps from column name to field.
fn read_tsv(name: &str) -> Vec<BTreeMap<String, String>> {
    let path = data_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), header.len(), "{name}: {l}");
            header
                .iter()
                .zip(f)
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn rel_err(got: f64, want: f64) -> f64 {
    if got == want || (got.is_nan() && want.is_nan()) {
        0.0
    } else {
        (got - want).abs() / want.abs().max(f64::MIN_POSITIVE)
    }
}

#[test]
fn wilcox_matches_r() {
    let rows = read_tsv("wilcox-vectors.tsv");
    assert!(rows.len() >= 100, "{} cases", rows.len());
    let (mut worst_p, mut worst_exact, mut worst_asym) = (0.0f64, 0.0f64, 0.0f64);
    let (mut n_exact, mut n_asym) = (0, 0);
    for row in &rows {
        let case = &row["case"];
        let old = nums(&row["old"]);
        let new = nums(&row["new"]);
        let conf = num(&row["conf"]);
        let r = rank_sum(&old, &new, conf).unwrap_or_else(|| panic!("{case}: None"));
        let exact = row["exact"] == "1";
        assert_eq!(r.exact, exact, "{case}: exact flag");
        assert!(
            (r.w - num(&row["W"])).abs() < 1e-9,
            "{case}: W {} vs {}",
            r.w,
            row["W"]
        );
        let ep = rel_err(r.p_value, num(&row["p"]));
        assert!(
            ep < 1e-9,
            "{case}: p {} vs {} ({ep:e})",
            r.p_value,
            row["p"]
        );
        worst_p = worst_p.max(ep);

        let scale = old.iter().chain(&new).fold(0.0f64, |m, v| m.max(v.abs()));
        let mut worst_here = 0.0f64;
        let level = num(&row["level"]);
        if exact {
            // Without ties and below 50 a side R's estimate is the Hodges–Lehmann median and
            // its interval the order statistics: the same definition, so the values agree.
            for (what, got, want) in [
                ("estimate", r.shift, num(&row["estimate"])),
                ("lo", r.shift_ci.0, num(&row["lo"])),
                ("hi", r.shift_ci.1, num(&row["hi"])),
            ] {
                let err = (got - want).abs() / scale;
                assert!(
                    err < 1e-9,
                    "{case}: {what} {got:e} vs R {want:e} (error {err:e} of the data scale)"
                );
                worst_here = worst_here.max(err);
            }
            n_exact += 1;
            worst_exact = worst_exact.max(worst_here);
            if level < conf - 1e-12 {
                // R reports the achieved level when the requested one is not achievable.
                assert!(rel_err(r.ci_level, level) < 1e-9, "{case}: level {r:?}");
            } else {
                assert!(r.ci_level >= conf - 1e-12, "{case}: level {r:?}");
            }
        } else {
            // With ties or 50+ a side R solves the standardized statistic with an absolute
            // root tolerance (issue 14, case 03: wrong sign for data in seconds); benchdiff
            // keeps the Hodges–Lehmann median of the pairwise differences and order-statistic
            // bounds. Check those against a brute-force sort, and R's estimate against the
            // median where R's definition coincides with it (no ties).
            let mut d: Vec<f64> = new
                .iter()
                .flat_map(|x| old.iter().map(move |y| x - y))
                .collect();
            d.sort_by(f64::total_cmp);
            let t = d.len();
            let median = (d[(t - 1) / 2] + d[t / 2]) / 2.0;
            assert!(
                (r.shift - median).abs() <= 1e-12 * scale,
                "{case}: shift {} vs median of differences {median}",
                r.shift
            );
            // The bounds are differences of the data, symmetric in rank.
            let k_lo = d.partition_point(|v| *v < r.shift_ci.0) + 1;
            let k_hi = t - d.partition_point(|v| *v <= r.shift_ci.1) + 1;
            assert!(
                d.contains(&r.shift_ci.0) && d.contains(&r.shift_ci.1),
                "{case}"
            );
            assert!(
                r.shift_ci.0 <= r.shift && r.shift <= r.shift_ci.1,
                "{case}: {r:?}"
            );
            let ties = {
                let mut all: Vec<f64> = old.iter().chain(&new).copied().collect();
                all.sort_by(f64::total_cmp);
                all.windows(2).any(|w| w[0] == w[1])
            };
            if !ties {
                assert_eq!(k_lo, k_hi, "{case}: interval ranks {k_lo} / {k_hi}");
                // R's estimate is a zero of its statistic, which lies in the gap between the
                // two middle differences (up to its absolute tolerance).
                let want = num(&row["estimate"]);
                assert!(
                    want >= d[(t - 1) / 2] - 1e-4 && want <= d[t / 2] + 1e-4,
                    "{case}: R estimate {want} outside the middle gap"
                );
                worst_here = worst_here.max((r.shift - want).abs() / scale);
            }
            assert!(r.ci_level > 0.0 && r.ci_level <= 1.0, "{case}: {r:?}");
            n_asym += 1;
            worst_asym = worst_asym.max(worst_here);
        }
    }
    eprintln!(
        "wilcox: {} cases ({n_exact} exact, {n_asym} asymptotic); worst p rel error {worst_p:e}; \
         worst estimate/CI error (relative to data scale): exact {worst_exact:e}, \
         asymptotic {worst_asym:e}",
        rows.len()
    );
}

#[test]
fn p_adjust_matches_r() {
    let rows = read_tsv("p-adjust-vectors.tsv");
    assert!(rows.len() >= 15);
    let mut worst = 0.0f64;
    for row in &rows {
        let case = &row["case"];
        let p = nums(&row["p"]);
        for (name, got, want) in [
            ("holm", holm(&p), nums(&row["holm"])),
            ("BH", benjamini_hochberg(&p), nums(&row["BH"])),
        ] {
            assert_eq!(got.len(), want.len(), "{case} {name}");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.is_nan(), w.is_nan(), "{case} {name}[{i}]: {g} vs {w}");
                let e = rel_err(*g, *w);
                assert!(e < 1e-9, "{case} {name}[{i}]: {g} vs {w}");
                worst = worst.max(e);
            }
        }
    }
    eprintln!(
        "p.adjust: {} vectors; worst rel error {worst:e}",
        rows.len()
    );
}

// ---- benchstat oracle --------------------------------------------------------------------

/// Go benchmark result lines of a file: name → unit → values in benchstat's base units
/// (ns/op → sec/op, MB/s → B/s). Only `Benchmark…` lines are read; config lines are ignored
/// (as benchstat's `-ignore note` does for the `note:` key).
fn read_go_bench(file: &str) -> BTreeMap<String, BTreeMap<String, Vec<f64>>> {
    let path = oracle_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut out: BTreeMap<String, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("Benchmark")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let name = f[0].trim_start_matches("Benchmark").to_string();
        for pair in f[2..].chunks(2) {
            let v: f64 = pair[0].parse().expect("value");
            let (unit, v) = match pair[1] {
                "ns/op" => ("sec/op", v * 1e-9),
                "MB/s" => ("B/s", v * 1e6),
                u => (u, v),
            };
            out.entry(name.clone())
                .or_default()
                .entry(unit.to_string())
                .or_default()
                .push(v);
        }
    }
    out
}

/// Median and benchstat's `±` percentage string for one sample.
fn summary(values: &[f64]) -> (f64, String) {
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    let c = median(&s);
    let pct = match median_ci(&s, 0.95).and_then(|(lo, hi)| pct_range(c, lo, hi)) {
        Some(p) => format!("{:.0}%", 100.0 * p),
        None => "∞".to_string(),
    };
    (c, pct)
}

/// A benchstat table value like `46.55n`, `15.014µ`, `307.3Mi`, `2.001Gi`, `100.0n`:
/// (value, half a unit of its last digit).
fn parse_scaled(s: &str) -> (f64, f64) {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (digits, prefix) = s.split_at(split);
    let mult = match prefix {
        "" => 1.0,
        "n" => 1e-9,
        "µ" => 1e-6,
        "m" => 1e-3,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        p => panic!("unknown prefix {p:?} in {s:?}"),
    };
    let decimals = digits.split('.').nth(1).map_or(0, str::len);
    let half_ulp = 0.5 * 10f64.powi(-(decimals as i32)) * mult;
    (num(digits) * mult, half_ulp)
}

/// Checks every row of a benchstat box table against the two input files: medians to the
/// printed digits and the `±` strings exactly. Returns the number of summaries checked.
fn check_box_table(stdout: &str, old: &str, new: &str) -> usize {
    let path = oracle_dir().join(stdout);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let old = read_go_bench(old);
    let new = read_go_bench(new);
    let mut unit = String::new();
    let mut checked = 0;
    for line in text.lines() {
        if line.contains('│') {
            if line.contains("sec/op") {
                unit = "sec/op".into();
            } else if line.contains("B/s") {
                unit = "B/s".into();
            }
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() < 7 || t[2] != "±" || t[5] != "±" {
            continue;
        }
        for (side, value, pct) in [(&old, t[1], t[3]), (&new, t[4], t[6])] {
            let values = &side[t[0]][&unit];
            let (c, my_pct) = summary(values);
            let (shown, half) = parse_scaled(value);
            assert!(
                (c - shown).abs() <= half * (1.0 + 1e-9),
                "{stdout} {} {unit}: median {c:e} vs {value}",
                t[0]
            );
            assert_eq!(my_pct, pct, "{stdout} {} {unit}: ± of {values:?}", t[0]);
            checked += 1;
        }
    }
    checked
}

#[test]
fn benchstat_crc_medians_and_intervals() {
    // 36 benchmarks × 2 units × 2 files, n = 10 each (exact binomial interval).
    let n = check_box_table("crcIgnore.stdout", "crc-old.txt", "crc-new.txt");
    assert_eq!(n, 144);
}

#[test]
fn benchstat_csv_medians_and_intervals() {
    let path = oracle_dir().join("csvOldNew.stdout");
    let text = std::fs::read_to_string(&path).expect("csvOldNew.stdout");
    let old = read_go_bench("old.txt");
    let new = read_go_bench("new.txt");
    let mut checked = 0;
    for line in text.lines().filter(|l| l.starts_with("Encode")) {
        let f: Vec<&str> = line.split(',').collect();
        for (side, center, ci) in [(&old, f[1], f[2]), (&new, f[3], f[4])] {
            let (c, pct) = summary(&side[f[0]]["sec/op"]);
            assert!(
                rel_err(c, num(center)) < 1e-15,
                "{}: {c:e} vs {center}",
                f[0]
            );
            assert_eq!(pct, ci, "{}", f[0]);
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

#[test]
fn benchstat_small_samples_have_infinite_intervals() {
    // issue19634: n = 5 per side → "± ∞"; smallSample: n = 1.
    for (file, n) in [("issue19634.txt", 5), ("smallSample.txt", 1)] {
        let runs = read_go_bench(file);
        let values: Vec<f64> = runs.values().flat_map(|u| u["sec/op"].clone()).collect();
        assert!(values.len() >= n);
        let mut s = values[..n].to_vec();
        s.sort_by(f64::total_cmp);
        assert_eq!(median_ci(&s, 0.95), None, "{file}");
        let ci = quantile_ci(&s, 0.5, 0.95).expect("non-empty");
        assert!(ci.lo == f64::NEG_INFINITY || ci.hi == f64::INFINITY);
        assert_eq!(summary(&s).1, "∞");
    }
    // n = 6 is the smallest bounded interval at 0.95.
    let s = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    assert_eq!(median_ci(&s, 0.95), Some((1.0, 6.0)));
}

#[test]
fn benchstat_utest_p_without_ties() {
    // benchstat's U test is exact without ties for n ≤ 50, like R's; its `p=0.xxx` must
    // then agree with ours to the printed digits. (With ties benchstat stays exact up to
    // n = 25 where R, and so benchdiff, uses the normal approximation: not compared.)
    let path = oracle_dir().join("crcIgnore.stdout");
    let text = std::fs::read_to_string(&path).expect("crcIgnore.stdout");
    let old = read_go_bench("crc-old.txt");
    let new = read_go_bench("crc-new.txt");
    let mut unit = String::new();
    let mut checked = 0;
    for line in text.lines() {
        if line.contains("sec/op") {
            unit = "sec/op".into();
        } else if line.contains("B/s") {
            unit = "B/s".into();
        }
        let Some(at) = line.find("(p=") else { continue };
        let p_shown = &line[at + 3..at + 8];
        let name = line.split_whitespace().next().expect("name");
        let r = rank_sum(&old[name][&unit], &new[name][&unit], 0.95).expect("test");
        if r.exact {
            assert_eq!(format!("{:.3}", r.p_value), p_shown, "{name} {unit}");
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked} rows without ties");
    eprintln!("benchstat U test: {checked} tie-free rows agree on p");
}

#[test]
fn quantile7_r_values() {
    // R: quantile(c(7, 1, 3, 10, 2), c(0.1, 0.33, 0.5, 0.95)) = 1.40 2.32 3.00 9.40
    let mut x = [7.0, 1.0, 3.0, 10.0, 2.0];
    x.sort_by(f64::total_cmp);
    for (q, want) in [(0.1, 1.4), (0.33, 2.32), (0.5, 3.0), (0.95, 9.4)] {
        assert!(rel_err(quantile7(&x, q), want) < 1e-12, "{q}");
    }
}

// ---- properties --------------------------------------------------------------------------

fn sample(max_len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![
            (-1000.0f64..1000.0),
            (0i32..20).prop_map(f64::from), // ties
        ],
        1..max_len,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rank_sum_p_in_unit_interval_and_mirrors(old in sample(70), new in sample(70)) {
        let a = rank_sum(&old, &new, 0.95).expect("valid input");
        let b = rank_sum(&new, &old, 0.95).expect("valid input");
        prop_assert!((0.0..=1.0).contains(&a.p_value), "{a:?}");
        prop_assert!((a.p_value - b.p_value).abs() <= 1e-12, "{a:?} {b:?}");
        prop_assert_eq!(a.exact, b.exact);
        let nm = (old.len() * new.len()) as f64;
        prop_assert!((a.w + b.w - nm).abs() < 1e-9);
        prop_assert!(a.shift_ci.0 <= a.shift && a.shift <= a.shift_ci.1, "{a:?}");
        // Hodges–Lehmann and the order-statistic interval mirror exactly, with or without
        // ties (no root search, so no tolerance: issue 14).
        prop_assert_eq!(a.shift, -b.shift);
        prop_assert_eq!(a.shift_ci, (-b.shift_ci.1, -b.shift_ci.0));
        // The shift is the median of the pairwise differences.
        let mut d: Vec<f64> = new
            .iter()
            .flat_map(|x| old.iter().map(move |y| x - y))
            .collect();
        d.sort_by(f64::total_cmp);
        let k = d.len();
        prop_assert_eq!(a.shift, (d[(k - 1) / 2] + d[k / 2]) / 2.0);
    }

    #[test]
    fn adjusted_p_ordering(p in prop::collection::vec(
        prop_oneof![9 => 0.0f64..=1.0, 1 => Just(f64::NAN)], 0..60)) {
        let h = holm(&p);
        let bh = benjamini_hochberg(&p);
        for i in 0..p.len() {
            if p[i].is_nan() {
                prop_assert!(h[i].is_nan() && bh[i].is_nan());
                continue;
            }
            prop_assert!(h[i] >= bh[i] && bh[i] >= p[i], "{} {} {}", p[i], h[i], bh[i]);
            prop_assert!(h[i] <= 1.0);
            for j in 0..p.len() {
                if !p[j].is_nan() && p[i] <= p[j] {
                    prop_assert!(h[i] <= h[j] && bh[i] <= bh[j]);
                }
            }
        }
    }

    #[test]
    fn median_ci_contains_median(mut x in prop::collection::vec(-1e6f64..1e6, 1..80)) {
        x.sort_by(f64::total_cmp);
        let m = median(&x);
        prop_assert!((m - quantile7(&x, 0.5)).abs() <= 1e-9 * m.abs().max(1.0));
        let ci = quantile_ci(&x, 0.5, 0.95).expect("non-empty");
        prop_assert!(ci.lo <= m && m <= ci.hi);
        prop_assert!(ci.confidence >= 0.95 - 1e-12 || x.len() > 30);
        prop_assert_eq!(median_ci(&x, 0.95).is_some(), x.len() >= 6);
    }
}
