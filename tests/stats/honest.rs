//! Issue 14 beyond the cases: inputs made here for each kind of fault.
//! - kind 3, pairing where nothing pairs: separate Go files are never paired, compare.js CSV
//!   (rounds recorded) still is, and the data model carries the flag;
//! - kind 4, statistics that break on real values: the Hodges–Lehmann shift is scale-free with
//!   ties and on the large-sample path, rank-test methods are named, zero baselines and too
//!   few samples get defined verdicts;
//! - kind 5, sets that differ: benchmarks on one side only are listed, not counted; the
//!   geomean row in table, Markdown and JSON (schema-valid).
//!
//! Every test writes real files into a temporary folder and runs the real `benchdiff` binary
//! (or calls the library on literal values).

use assert_cmd::Command;
use benchdiff::compare::{self, Pairing};
use benchdiff::sample::{RATE, Sample, SampleSet, Side};
use benchdiff::stats::rank::{RankMethod, rank_sum};
use benchdiff::stats::utest::u_test;
use serde_json::Value;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write input");
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .arg("report")
        .args(args)
        .output()
        .expect("benchdiff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let mut a = vec!["--format", "json"];
    a.extend_from_slice(args);
    let (code, out, err) = run(dir, &a);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let schema_path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).expect("JSON");
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).take(5).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    doc
}

fn cmp<'a>(j: &'a Value, name: &str) -> &'a Value {
    j["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| c["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .unwrap_or_else(|| panic!("no comparison {name}: {j}"))
}

/// Go benchmark text: one `Benchmark<name> N <v> ns/op [extra]` line per value, in order.
fn go_text(rows: &[(&str, f64, &str)]) -> String {
    let mut s = String::from("goos: linux\ngoarch: amd64\npkg: example.com/x\n");
    for (name, v, extra) in rows {
        s.push_str(&format!(
            "Benchmark{name}-8 \t 1000000\t {v} ns/op{extra}\n"
        ));
    }
    s.push_str("PASS\nok  \texample.com/x\t1.0s\n");
    s
}

fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("no line {start} in\n{text}"))
}

// ---- kind 3: pairing ----------------------------------------------------------------------

/// Two `go test` files whose i-th values move together by accident (a shared drift pattern):
/// pairing by position would find a tiny consistent −1 % (p ≈ 1e-6); the files are
/// independent runs, so the comparison is unpaired and not significant.
#[test]
fn go_files_with_parallel_drift_are_not_paired() {
    let d = tempfile::tempdir().expect("tempdir");
    let old = [100.0, 110.0, 120.0, 130.0, 140.0, 150.0];
    let new: Vec<f64> = old.iter().map(|v| v * 0.99).collect();
    let rows =
        |v: &[f64]| -> Vec<(&str, f64, &str)> { v.iter().map(|&x| ("Drift", x, "")).collect() };
    write(d.path(), "old.txt", &go_text(&rows(&old)));
    write(d.path(), "new.txt", &go_text(&rows(&new)));
    let j = json(d.path(), &["old.txt", "new.txt"]);
    let c = cmp(&j, "Drift");
    assert_eq!(c["pairing"], "none");
    assert_eq!(c["method"], "unpaired");
    assert!(c["paired"].is_null());
    assert!(c["p_value"].as_f64().expect("p") > 0.5, "{c}");
    assert_eq!(c["verdict"], "inconclusive");
    let (_, table, _) = run(d.path(), &["old.txt", "new.txt"]);
    assert!(!line(&table, "Drift").contains("paired"), "{table}");
    assert!(table.contains("note: unpaired analysis"), "{table}");
    let (_, md, _) = run(d.path(), &["--format", "markdown", "old.txt", "new.txt"]);
    assert!(md.contains("unpaired analysis"), "{md}");
}

/// Unequal counts (6 + 4): nothing is dropped to make pairs, and the counts are shown.
#[test]
fn unequal_go_files_keep_every_sample() {
    let d = tempfile::tempdir().expect("tempdir");
    let old: Vec<(&str, f64, &str)> = [200.0, 202.0, 201.0, 199.0, 240.0, 241.0]
        .iter()
        .map(|&v| ("U", v, ""))
        .collect();
    let new: Vec<(&str, f64, &str)> = [198.0, 200.0, 199.0, 197.0]
        .iter()
        .map(|&v| ("U", v, ""))
        .collect();
    write(d.path(), "old.txt", &go_text(&old));
    write(d.path(), "new.txt", &go_text(&new));
    let j = json(d.path(), &["old.txt", "new.txt"]);
    let c = cmp(&j, "U");
    assert_eq!(
        (c["old"]["n"].as_u64(), c["new"]["n"].as_u64()),
        (Some(6), Some(4))
    );
    // The mean of all six old values, not of the first four.
    let want = (200.0 + 202.0 + 201.0 + 199.0 + 240.0 + 241.0) / 6.0 * 1e-9;
    assert!(
        (c["old"]["mean"].as_f64().expect("mean") - want).abs() < 1e-18,
        "{c}"
    );
    assert_eq!(c["pairing"], "none");
}

/// compare.js CSV records its rounds (old and new of a run side by side): still paired.
#[test]
fn compare_js_csv_is_still_paired() {
    let d = tempfile::tempdir().expect("tempdir");
    let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for (i, base) in [1000.0, 1100.0, 1200.0, 1300.0, 1400.0, 1500.0]
        .iter()
        .enumerate()
    {
        let _ = i;
        csv.push_str(&format!("\"old\",\"a.js\",\"n=1\",{base},0.1\n"));
        csv.push_str(&format!("\"new\",\"a.js\",\"n=1\",{},0.1\n", base * 1.05));
    }
    write(d.path(), "r.csv", &csv);
    let j = json(d.path(), &["r.csv"]);
    let c = cmp(&j, "a.js");
    assert_eq!(c["pairing"], "arrival_order");
    assert_eq!(c["method"], "paired");
    assert_eq!(c["verdict"], "faster");
    let (_, table, _) = run(d.path(), &["r.csv"]);
    assert!(line(&table, "a.js").contains("6/6 paired"), "{table}");
    assert!(!table.contains("unpaired analysis"), "{table}");
}

/// The data model: run indices alone (pytest-benchmark's rounds, say) do not make pairs; only
/// a source that marks its rounds as recorded does.
#[test]
fn sample_set_flag_decides_pairing() {
    let mut set = SampleSet::new();
    let id = set.intern("b", "");
    for r in 0..5u32 {
        for (side, v) in [(Side::Old, 10.0 + r as f64), (Side::New, 11.0 + r as f64)] {
            set.push(Sample {
                benchmark: id,
                side,
                metric: RATE,
                value: v,
                time_s: f64::NAN,
                run: Some(r),
            });
        }
    }
    let c = &compare::group(&set)[0];
    assert_eq!(c.pairing, Pairing::None);
    assert!(c.pairs().is_empty());
    set.mark_rounds_recorded();
    let c = &compare::group(&set)[0];
    assert_eq!(c.pairing, Pairing::Runs);
    assert_eq!(c.pairs().len(), 5);
    // Pooling keeps the flag only when every part has it.
    let mut pooled = SampleSet::new();
    pooled.extend_from(&set);
    assert!(pooled.rounds_recorded());
    pooled.extend_from(&SampleSet::new());
    assert!(!pooled.rounds_recorded());
}

// ---- kind 4: statistics on real values ----------------------------------------------------

/// Integer-rounded, heavily tied timings at three scales (ns, s, Gs): the same shift and
/// interval, scaled, with the sign of the change; the shift is the median of the differences.
#[test]
fn hodges_lehmann_is_scale_free_with_ties() {
    let old = [
        501.0, 502.0, 502.0, 503.0, 502.0, 501.0, 504.0, 502.0, 503.0, 502.0,
    ];
    let new = [
        499.0, 500.0, 499.0, 500.0, 501.0, 499.0, 500.0, 498.0, 500.0, 499.0,
    ];
    let base = rank_sum(&old, &new, 0.95).expect("valid");
    assert_eq!(base.method, RankMethod::NormalTieContinuity);
    assert_eq!(base.shift, -3.0); // median of the 100 differences (python statistics.median)
    assert!(base.shift_ci.0 <= base.shift && base.shift < base.shift_ci.1);
    assert!(base.shift_ci.1 < 0.0, "{base:?}");
    for scale in [1e-9, 1e-3, 1e9] {
        let o: Vec<f64> = old.iter().map(|v| v * scale).collect();
        let n: Vec<f64> = new.iter().map(|v| v * scale).collect();
        let r = rank_sum(&o, &n, 0.95).expect("valid");
        assert_eq!(r.p_value, base.p_value, "{scale}");
        for (got, want) in [
            (r.shift, base.shift),
            (r.shift_ci.0, base.shift_ci.0),
            (r.shift_ci.1, base.shift_ci.1),
        ] {
            assert!(
                (got / scale - want).abs() < 1e-9 * want.abs().max(1.0),
                "{scale}: {r:?}"
            );
        }
    }
}

/// Beyond 49² pairs the order statistics come from bisection: the same values as sorting all
/// differences, with ties, at a tiny scale.
#[test]
fn large_sample_shift_matches_brute_force() {
    let old: Vec<f64> = (0..60)
        .map(|i| (1000 + (i * 7) % 13) as f64 * 1e-9)
        .collect();
    let new: Vec<f64> = (0..70)
        .map(|i| (997 + (i * 5) % 11) as f64 * 1e-9)
        .collect();
    let r = rank_sum(&old, &new, 0.95).expect("valid");
    let mut d: Vec<f64> = new
        .iter()
        .flat_map(|x| old.iter().map(move |y| x - y))
        .collect();
    d.sort_by(f64::total_cmp);
    let t = d.len();
    assert_eq!(r.shift, (d[(t - 1) / 2] + d[t / 2]) / 2.0);
    assert!(d.contains(&r.shift_ci.0) && d.contains(&r.shift_ci.1));
    let k_lo = d.partition_point(|v| *v < r.shift_ci.0) + 1;
    let k_hi = t - d.partition_point(|v| *v <= r.shift_ci.1) + 1;
    // Both ends are the same rank from their side (ties can widen the rank range at a value).
    assert!(k_lo <= t / 2 && k_hi <= t / 2, "{k_lo} {k_hi}");
    assert!(r.shift < 0.0 && r.shift_ci.0 < r.shift_ci.1);
    // Mirrored exactly.
    let m = rank_sum(&new, &old, 0.95).expect("valid");
    assert_eq!(m.shift, -r.shift);
    assert_eq!(m.shift_ci, (-r.shift_ci.1, -r.shift_ci.0));
}

/// The method of a rank-test p is named: exact, exact with ties, normal approximations.
#[test]
fn rank_test_methods_are_named() {
    let a: Vec<f64> = (0..10).map(|i| (i / 2) as f64).collect();
    let b: Vec<f64> = (0..10).map(|i| (i / 2 + 1) as f64).collect();
    let u = u_test(&a, &b).expect("valid");
    assert_eq!(u.method(), RankMethod::ExactTies);
    assert_eq!(u.method().label(), "exact with ties");
    let big_a: Vec<f64> = (0..30).map(|i| (i / 3) as f64).collect();
    let big_b: Vec<f64> = (0..30).map(|i| (i / 3 + 1) as f64).collect();
    let u = u_test(&big_a, &big_b).expect("valid");
    assert_eq!(u.method(), RankMethod::NormalTieContinuity);
    let c: Vec<f64> = (0..10).map(f64::from).collect();
    let e: Vec<f64> = (0..10).map(|i| f64::from(i) + 0.5).collect();
    assert_eq!(u_test(&c, &e).expect("valid").method(), RankMethod::Exact);
    let r = rank_sum(&c, &e, 0.95).expect("valid");
    assert_eq!((r.method, r.exact), (RankMethod::Exact, true));
    let c60: Vec<f64> = (0..60).map(f64::from).collect();
    let e60: Vec<f64> = (0..60).map(|i| f64::from(i) + 0.5).collect();
    assert_eq!(
        rank_sum(&c60, &e60, 0.95).expect("valid").method,
        RankMethod::NormalContinuity
    );
    assert_eq!(
        RankMethod::NormalContinuity.label(),
        "normal approx., continuity-corrected"
    );
}

/// A count that goes from a constant 0 to varying values (the new build sometimes allocates),
/// and one that stays at 4: +∞ and slower (gate fires), and no change.
#[test]
fn zero_baseline_to_varying_counts() {
    let d = tempfile::tempdir().expect("tempdir");
    let mk = |allocs: &[u32], keep: u32| -> String {
        let rows: Vec<(String, f64, String)> = allocs
            .iter()
            .flat_map(|a| {
                [
                    (
                        "Grow".to_owned(),
                        100.0,
                        format!("\t 0 B/op\t {a} allocs/op"),
                    ),
                    (
                        "Keep".to_owned(),
                        50.0,
                        format!("\t 0 B/op\t {keep} allocs/op"),
                    ),
                ]
            })
            .collect();
        let borrowed: Vec<(&str, f64, &str)> = rows
            .iter()
            .map(|(n, v, e)| (n.as_str(), *v, e.as_str()))
            .collect();
        go_text(&borrowed)
    };
    write(d.path(), "old.txt", &mk(&[0, 0, 0, 0, 0, 0], 4));
    write(d.path(), "new.txt", &mk(&[1, 2, 1, 2, 1, 2], 4));
    let j = json(d.path(), &["--metric", "allocs/op", "old.txt", "new.txt"]);
    let grow = cmp(&j, "Grow");
    assert_eq!(grow["change"], "increase_from_zero");
    assert_eq!(grow["verdict"], "slower");
    let keep = cmp(&j, "Keep");
    assert_eq!(keep["verdict"], "no_change");
    assert_eq!(keep["change_pct"].as_f64(), Some(0.0));
    assert_eq!(j["geomean"]["defined"], false);
    let (code, _, err) = run(
        d.path(),
        &[
            "--metric",
            "allocs/op",
            "--max-regression",
            "10",
            "old.txt",
            "new.txt",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Grow"), "{err}");
    // B/op stays 0 → 0 for both: no change, exit 0 under the gate.
    let (code, out, err) = run(
        d.path(),
        &[
            "--metric",
            "B/op",
            "--max-regression",
            "10",
            "old.txt",
            "new.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("0 faster, 0 slower, 2 no change, 0 inconclusive"),
        "{out}"
    );
}

/// A count that drops to 0 in a paired compare.js CSV (rounds recorded): zeros make the
/// log-ratio impossible, so the exact unpaired difference decides: −100 %, faster.
#[test]
fn drop_to_zero_in_paired_csv() {
    let d = tempfile::tempdir().expect("tempdir");
    let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for _ in 0..5 {
        csv.push_str("\"old\",\"gc.js\",\"n=1\",3,0.1\n\"new\",\"gc.js\",\"n=1\",0,0.1\n");
    }
    write(d.path(), "gc.csv", &csv);
    let j = json(d.path(), &["gc.csv"]);
    let c = cmp(&j, "gc.js");
    // The rate is higher-is-better: a drop to 0 is a certain loss.
    assert_eq!(c["change_pct"].as_f64(), Some(-100.0));
    assert_eq!(c["verdict"], "slower");
    assert_eq!(c["method"], "unpaired");
}

/// 3 rounds, even paired and with a large change, cannot support a verdict; 4 rounds can.
#[test]
fn three_paired_rounds_are_too_few_four_are_not() {
    let d = tempfile::tempdir().expect("tempdir");
    let csv = |n: usize| {
        let mut s = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
        for i in 0..n {
            let base = 1000.0 + 3.0 * i as f64;
            s.push_str(&format!("\"old\",\"x.js\",\"n=1\",{base},0.1\n"));
            s.push_str(&format!("\"new\",\"x.js\",\"n=1\",{},0.1\n", base * 1.2));
        }
        s
    };
    write(d.path(), "three.csv", &csv(3));
    write(d.path(), "four.csv", &csv(4));
    let j = json(d.path(), &["three.csv"]);
    let c = cmp(&j, "x.js");
    assert_eq!(c["too_few_samples"], true);
    assert_eq!(c["verdict"], "inconclusive");
    assert_eq!(c["runs_needed"].as_u64(), Some(4));
    let (_, table, _) = run(d.path(), &["three.csv"]);
    assert!(line(&table, "x.js").contains("too-few-samples"), "{table}");
    assert!(table.contains("too few samples (3+3)"), "{table}");
    // The gate follows the verdict: a 20 % drop on 3 rounds does not fail it, on 4 it does.
    for (n, want) in [(3, 0), (4, 1)] {
        let slower = csv(n)
            .lines()
            .enumerate()
            .fold(String::new(), |mut acc, (i, l)| {
                // Every new row (even lines after the header) at 80 % of its old rate.
                if i > 0 && i % 2 == 0 {
                    let mut parts: Vec<String> = l.split(',').map(str::to_owned).collect();
                    let rate: f64 = parts[3].parse().expect("rate");
                    parts[3] = format!("{}", rate * 0.8 / 1.2);
                    acc.push_str(&parts.join(","));
                } else {
                    acc.push_str(l);
                }
                acc.push('\n');
                acc
            });
        write(d.path(), "slower.csv", &slower);
        let (code, _, err) = run(d.path(), &["--max-regression", "5", "slower.csv"]);
        assert_eq!(code, want, "{n} rounds: {err}");
    }
    let j = json(d.path(), &["four.csv"]);
    let c = cmp(&j, "x.js");
    assert_eq!(c["too_few_samples"], false);
    assert_eq!(c["verdict"], "faster");
}

// ---- kind 5: sets that differ -------------------------------------------------------------

/// Old has A, B, C; new has B, C, D: A and D are listed (one warning line), not compared and
/// not counted; the geomean covers B and C.
#[test]
fn one_sided_benchmarks_are_listed_not_counted() {
    let d = tempfile::tempdir().expect("tempdir");
    let vals = [100.0, 101.0, 99.0, 100.5, 100.2];
    let side = |names: &[&'static str], f: f64| -> String {
        let rows: Vec<(&str, f64, &str)> = names
            .iter()
            .flat_map(|n| vals.iter().map(move |v| (*n, v * f, "")))
            .collect();
        go_text(&rows)
    };
    write(d.path(), "old.txt", &side(&["A", "B", "C"], 1.0));
    write(d.path(), "new.txt", &side(&["B", "C", "D"], 0.9));
    let j = json(d.path(), &["old.txt", "new.txt"]);
    assert_eq!(j["summary"]["comparisons"], 2);
    assert_eq!(j["comparisons"].as_array().map(Vec::len), Some(2));
    // Names without configuration carry no trailing space (issue 15).
    assert_eq!(j["only_old"], serde_json::json!(["A-8"]));
    assert_eq!(j["only_new"], serde_json::json!(["D-8"]));
    assert_eq!(j["geomean"]["n"], 2);
    assert!((j["geomean"]["change_pct"].as_f64().expect("geomean") + 10.0).abs() < 1e-9);
    let (code, table, err) = run(d.path(), &["old.txt", "new.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("2 comparisons: 2 faster"), "{table}");
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with("warning: 1 benchmark only in old (first: A-8), 1 only in new")
                || l.starts_with("warning: 1 benchmark only in old (first: A-8), 1 benchmark only in new (first: D-8)"))
            .count(),
        1,
        "{table}"
    );
    assert!(
        !table.lines().any(|l| l.trim_start().starts_with("A-8")),
        "{table}"
    );
    assert!(line(&table, "geomean").contains("-10.00%"), "{table}");
    let (_, md, _) = run(d.path(), &["--format", "markdown", "old.txt", "new.txt"]);
    assert!(
        md.contains("only in old (first: A-8)") && md.contains("**-10.00%**"),
        "{md}"
    );
    let (_, html, _) = run(d.path(), &["--format", "html", "old.txt", "new.txt"]);
    assert!(html.contains("only in old") && html.contains("class=\"geomean\""));
    // The analyze layout says it on stderr.
    let (code, _, err) = run(d.path(), &["--format", "analyze", "old.txt", "new.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: 1 benchmark only in old (first: A-8)"),
        "{err}"
    );
    // compare.R's view keeps every row, as R does.
    let (code, r, err) = run(d.path(), &["--format", "r", "old.txt", "new.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(r.contains("A-8"), "{r}");
}

/// A compare.js CSV with a configuration that only the new binary ran, and a geomean over
/// rows with different changes: exp(mean(log ratios)).
#[test]
fn csv_with_new_only_configuration_and_geomean() {
    let d = tempfile::tempdir().expect("tempdir");
    let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for i in 0..6 {
        let w = 1.0 + 0.001 * i as f64;
        csv.push_str(&format!("\"old\",\"a.js\",\"n=1\",{},0.1\n", 1000.0 * w));
        csv.push_str(&format!("\"new\",\"a.js\",\"n=1\",{},0.1\n", 1210.0 * w));
        csv.push_str(&format!("\"old\",\"a.js\",\"n=2\",{},0.1\n", 500.0 * w));
        csv.push_str(&format!("\"new\",\"a.js\",\"n=2\",{},0.1\n", 400.0 * w));
        csv.push_str(&format!("\"new\",\"a.js\",\"n=3\",{},0.1\n", 700.0 * w));
    }
    write(d.path(), "r.csv", &csv);
    let j = json(d.path(), &["r.csv"]);
    assert_eq!(j["only_new"], serde_json::json!(["a.js n=3"]));
    assert_eq!(j["only_old"], serde_json::json!([]));
    assert_eq!(j["summary"]["comparisons"], 2);
    // Ratios 1.21 and 0.8: geomean sqrt(0.968) − 1.
    let want = ((1.21f64 * 0.8).sqrt() - 1.0) * 100.0;
    let got = j["geomean"]["change_pct"].as_f64().expect("defined");
    assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    let (_, table, _) = run(d.path(), &["r.csv"]);
    assert!(
        table.contains("warning: 1 benchmark only in new (first: a.js n=3)"),
        "{table}"
    );
}
