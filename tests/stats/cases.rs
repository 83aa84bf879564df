//! Issue 14, statistics and verdicts on the files people really have: every point of the
//! cases `03-mwu-ties`, `04-mwu-small-n` and `18-zero-baseline` (in `tests/data/cases/`, read in
//! place) as a test asserting the reference values of its `ref-output.txt`. Each test runs the
//! real `benchdiff` binary on the case's files.

use assert_cmd::Command;
use serde_json::Value;

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cases");

fn case_dir(name: &str) -> String {
    let d = format!("{CASES}/{name}");
    assert!(
        std::path::Path::new(&d).is_dir(),
        "case folder {d} is required (tests/data/cases)"
    );
    d
}

/// Runs `benchdiff report ARGS input-old.txt input-new.txt` in the case folder: (exit code,
/// stdout, stderr).
fn report(case: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(case_dir(case))
        .env_remove("NO_COLOR")
        .arg("report")
        .args(args)
        .args(["input-old.txt", "input-new.txt"])
        .output()
        .expect("benchdiff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

fn json_report(case: &str, args: &[&str]) -> Value {
    let mut a = vec!["--format", "json"];
    a.extend_from_slice(args);
    let (code, out, err) = report(case, &a);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON report")
}

/// The comparison whose name starts with `name`.
fn cmp<'a>(j: &'a Value, name: &str) -> &'a Value {
    j["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| c["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .unwrap_or_else(|| panic!("no comparison {name}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs().max(1e-300)
}

/// The table line of a benchmark (its row starts with the name after one space).
fn row<'a>(table: &'a str, name: &str) -> &'a str {
    table
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"))
}

// ---- 03-mwu-ties ---------------------------------------------------------------------------

const T4096: &str = "Digest/len=4096-8";
const T65536: &str = "Digest/len=65536-8";

/// Points 1 and 4: the p-value is R's normal approximation (tie and continuity corrected), and
/// the exact-with-ties permutation p is the other correct value; none of the wrong variants.
#[test]
fn case03_p_values_are_the_two_correct_ones() {
    let j = json_report("03-mwu-ties", &[]);
    for (name, r_p, exact_p, u_old, wrong) in [
        (
            T4096,
            0.00937477,
            0.010878,
            56.5,
            [0.0117187, 0.00799685, 0.0100817, 0.00468738],
        ),
        (
            T65536,
            0.142018,
            0.154002,
            46.0,
            [0.156254, 0.127834, 0.141482, 0.0710091],
        ),
    ] {
        let c = cmp(&j, name);
        let r = &c["rank_sum"];
        assert!(close(f(&r["p_value"]), r_p, 1e-5), "{name}: {r}");
        assert_eq!(f(&r["w"]), 64.0 - u_old, "{name}: W of new = 64 − U(old)");
        let u = &c["u_test"];
        assert!(close(f(&u["p_value"]), exact_p, 1e-5), "{name}: {u}");
        assert_eq!(f(&u["u"]), u_old, "{name}");
        for p in [f(&r["p_value"]), f(&u["p_value"])] {
            for w in wrong {
                assert!(
                    !close(p, w, 1e-4),
                    "{name}: wrong variant {w} reported ({p})"
                );
            }
        }
    }
}

/// Point 2: the method behind each p is named (JSON and `--details`).
#[test]
fn case03_p_value_methods_are_named() {
    let j = json_report("03-mwu-ties", &[]);
    for name in [T4096, T65536] {
        let c = cmp(&j, name);
        assert_eq!(c["rank_sum"]["method"], "normal_tie_continuity", "{name}");
        assert_eq!(c["u_test"]["method"], "exact_ties", "{name}");
    }
    let (code, out, err) = report("03-mwu-ties", &["--details"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "p=0.0094 (normal approx., tie- and continuity-corrected), p=0.0109 (exact with ties)"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "p=0.1420 (normal approx., tie- and continuity-corrected), p=0.1540 (exact with ties)"
        ),
        "{out}"
    );
}

/// Points 3 and 5: the benchstat view shows the exact-with-ties p and calls len=4096 a
/// significant −0.19 % change and len=65536 `~`; medians 1044 → 1042 and 16480 → 16473.5 ns.
#[test]
fn case03_benchstat_view_and_significance() {
    let (code, out, err) = report("03-mwu-ties", &["--format", "benchstat"]);
    assert_eq!(code, 0, "{err}");
    let l4096 = row(&out, T4096);
    assert!(
        l4096.contains("-0.19%") && l4096.contains("p=0.011 n=8"),
        "{l4096}"
    );
    let l65536 = row(&out, T65536);
    assert!(
        l65536.contains('~') && l65536.contains("p=0.154 n=8"),
        "{l65536}"
    );
    let j = json_report("03-mwu-ties", &[]);
    for (name, old, new) in [(T4096, 1044.0, 1042.0), (T65536, 16480.0, 16473.5)] {
        let c = cmp(&j, name);
        assert!(close(f(&c["old"]["median"]), old * 1e-9, 1e-12), "{name}");
        assert!(close(f(&c["new"]["median"]), new * 1e-9, 1e-12), "{name}");
    }
    // The exact-with-ties p decides significance at α = 0.05 as in the case.
    assert!(f(&cmp(&j, T4096)["u_test"]["p_value"]) < 0.05);
    assert!(f(&cmp(&j, T65536)["u_test"]["p_value"]) > 0.05);
}

/// Point 6: the Hodges–Lehmann shift is the median of the 64 pairwise differences, −2 ns and
/// −5.5 ns, inside its interval, whatever unit the samples are stored in.
#[test]
fn case03_hodges_lehmann_shift_has_the_right_sign() {
    let j = json_report("03-mwu-ties", &[]);
    for (name, want_ns) in [(T4096, -2.0), (T65536, -5.5)] {
        let r = &cmp(&j, name)["rank_sum"];
        let shift = f(&r["shift"]);
        let (lo, hi) = (f(&r["shift_ci"]["lower"]), f(&r["shift_ci"]["upper"]));
        assert!((shift - want_ns * 1e-9).abs() < 1e-15, "{name}: {shift}");
        assert!(lo <= shift && shift <= hi, "{name}: {lo} {shift} {hi}");
        // Not on an interval end, as R's uniroot answer was.
        assert!(shift < hi, "{name}: estimate on the upper end");
    }
    let (_, out, _) = report("03-mwu-ties", &["--details"]);
    assert!(out.contains("Hodges-Lehmann shift -2.00n sec/op"), "{out}");
    assert!(out.contains("Hodges-Lehmann shift -5.50n sec/op"), "{out}");
    // Same data in ns and in s: the same shift, scaled (library, case values).
    let old = [
        1043.0, 1044.0, 1043.0, 1045.0, 1044.0, 1043.0, 1046.0, 1044.0,
    ];
    let new = [
        1042.0, 1043.0, 1042.0, 1042.0, 1044.0, 1043.0, 1042.0, 1041.0,
    ];
    let ns = benchdiff::stats::rank::rank_sum(&old, &new, 0.95).expect("valid");
    let s_old: Vec<f64> = old.iter().map(|v| v * 1e-9).collect();
    let s_new: Vec<f64> = new.iter().map(|v| v * 1e-9).collect();
    let s = benchdiff::stats::rank::rank_sum(&s_old, &s_new, 0.95).expect("valid");
    assert_eq!(ns.shift, -2.0);
    assert!((s.shift * 1e9 - ns.shift).abs() < 1e-6, "{s:?} vs {ns:?}");
    assert!((s.shift_ci.0 * 1e9 - ns.shift_ci.0).abs() < 1e-6);
    assert!((s.shift_ci.1 * 1e9 - ns.shift_ci.1).abs() < 1e-6);
    assert_eq!(ns.p_value, s.p_value);
}

/// Point 7: ties cause no warning that stops the report or hides the result.
#[test]
fn case03_ties_do_not_stop_the_report() {
    for args in [
        &[][..],
        &["--format", "benchstat"],
        &["--details"],
        &["--format", "json"],
    ] {
        let (code, out, err) = report("03-mwu-ties", args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(
            out.contains("len=4096") && out.contains("len=65536"),
            "{out}"
        );
        assert!(!err.contains("error"), "{err}");
    }
}

// ---- 04-mwu-small-n ------------------------------------------------------------------------

const SMALL: &str = "Decode/small-8";
const TINY: &str = "Decode/tiny-8";
const EMPTY: &str = "Valid/empty-8";
const LARGE: &str = "Decode/large-8";

/// Points 1, 2, 3, 4, 5: the exact two-sided p of each row, in [0, 1], the central case
/// exactly 1, and the smallest attainable p of each size.
#[test]
fn case04_exact_p_values_and_smallest_attainable() {
    let j = json_report("04-mwu-small-n", &[]);
    for (name, w_new, p, min_p) in [
        (SMALL, 14.0, 1.0, 0.00606061),
        (TINY, 2.0, 0.0634921, 0.015873),
        (EMPTY, 0.0, 0.666667, 0.666667),
        (LARGE, 0.0, 0.1, 0.1),
    ] {
        let c = cmp(&j, name);
        let r = &c["rank_sum"];
        assert_eq!(r["method"], "exact", "{name}");
        assert_eq!(f(&r["w"]), w_new, "{name}");
        assert!(close(f(&r["p_value"]), p, 1e-5), "{name}: {r}");
        assert!(close(f(&c["u_test"]["p_value"]), p, 1e-5), "{name}");
        assert!(close(f(&c["min_attainable_p"]), min_p, 1e-5), "{name}");
        for v in [&r["p_value"], &c["u_test"]["p_value"], &c["p_value"]] {
            if let Some(p) = v.as_f64() {
                assert!((0.0..=1.0).contains(&p), "{name}: p {p}");
            }
        }
    }
    // The central outcome is exactly 1, not 1.07273.
    assert_eq!(f(&cmp(&j, SMALL)["rank_sum"]["p_value"]), 1.0);
    assert_eq!(f(&cmp(&j, SMALL)["u_test"]["p_value"]), 1.0);
    let (_, out, _) = report("04-mwu-small-n", &["--details"]);
    assert!(out.contains("W=14, p=1.0000 (exact)"), "{out}");
}

/// Points 2, 6 and the kind: independent `go test` files are not paired by position; the
/// unequal counts are shown and no sample is dropped; the method is shown.
#[test]
fn case04_independent_files_are_not_paired() {
    let j = json_report("04-mwu-small-n", &[]);
    for (name, n_old, n_new) in [(SMALL, 7, 4), (TINY, 5, 4), (EMPTY, 2, 1), (LARGE, 3, 3)] {
        let c = cmp(&j, name);
        assert_eq!(c["pairing"], "none", "{name}");
        assert_eq!(c["method"], "unpaired", "{name}");
        assert!(c["paired"].is_null(), "{name}");
        assert_eq!(c["old"]["n"], n_old, "{name}");
        assert_eq!(c["new"]["n"], n_new, "{name}");
    }
    let (code, table, err) = report("04-mwu-small-n", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("unpaired analysis"), "{table}");
    for (name, runs) in [
        (SMALL, "7/4"),
        (TINY, "5/4"),
        (EMPTY, "2/1"),
        (LARGE, "3/3"),
    ] {
        let l = row(&table, name);
        assert!(l.contains(runs) && !l.contains("paired"), "{l}");
    }
    // tiny-8 (p 0.0635) is not a change in any view that gives a verdict.
    let tiny = row(&table, TINY);
    assert!(
        !tiny.contains("faster") && !tiny.contains("slower"),
        "{tiny}"
    );
    assert_eq!(cmp(&j, TINY)["verdict"], "inconclusive");
    let (_, md, _) = report("04-mwu-small-n", &["--format", "markdown"]);
    let md_tiny = md
        .lines()
        .find(|l| l.contains("Decode/tiny-8"))
        .expect("row");
    assert!(!md_tiny.contains("faster"), "{md_tiny}");
    assert!(md.contains("No benchmark changed significantly."), "{md}");
}

/// Points 1 and 2: small-8 and tiny-8 are not significant (`~`), in every verdict view.
#[test]
fn case04_small_and_tiny_not_significant() {
    let j = json_report("04-mwu-small-n", &[]);
    for name in [SMALL, TINY] {
        let v = cmp(&j, name)["verdict"].as_str().expect("verdict");
        assert!(v == "no_change" || v == "inconclusive", "{name}: {v}");
        assert_eq!(cmp(&j, name)["too_few_samples"], false, "{name}");
    }
    let (_, out, _) = report("04-mwu-small-n", &["--format", "benchstat"]);
    for (name, p) in [(SMALL, "p=1.000 n=7+4"), (TINY, "p=0.063 n=5+4")] {
        let l = row(&out, name);
        assert!(l.contains('~') && l.contains(p), "{l}");
    }
}

/// Points 3, 4, 7: empty-8 (2+1) and large-8 (3+3) are inconclusive with a too-few-samples
/// warning wherever the verdict is shown; their −8.22 % / −6.48 % median changes never appear
/// as a change without it.
#[test]
fn case04_too_few_samples_warned_everywhere() {
    let j = json_report("04-mwu-small-n", &[]);
    for (name, median_change) in [(EMPTY, -8.22), (LARGE, -6.48)] {
        let c = cmp(&j, name);
        assert_eq!(c["verdict"], "inconclusive", "{name}");
        assert_eq!(c["too_few_samples"], true, "{name}");
        let m = (f(&c["new"]["median"]) / f(&c["old"]["median"]) - 1.0) * 100.0;
        assert!(
            (m - median_change).abs() < 0.005,
            "{name}: median change {m}"
        );
    }
    let (code, table, err) = report("04-mwu-small-n", &[]);
    assert_eq!(code, 0, "{err}");
    for name in [EMPTY, LARGE] {
        let l = row(&table, name);
        assert!(
            l.contains("inconclusive") && l.contains("too-few-samples"),
            "{l}"
        );
    }
    assert!(
        table.contains("2 comparisons have too few samples") && table.contains("0.100"),
        "{table}"
    );
    let (_, md, _) = report("04-mwu-small-n", &["--format", "markdown"]);
    for name in ["Valid/empty-8", "Decode/large-8"] {
        let l = md
            .lines()
            .find(|l| l.starts_with("| ") && l.contains(name))
            .expect("markdown row");
        assert!(
            l.contains("inconclusive") && l.contains("too-few-samples"),
            "{l}"
        );
    }
    assert!(md.contains("too few samples"), "{md}");
    let (_, html, _) = report("04-mwu-small-n", &["--format", "html"]);
    assert!(html.contains("too-few-samples") && html.contains("too few samples"));
    // compare.R's and compare.js's layouts keep their stars (byte-identical stdout) and warn on
    // stderr.
    for format in ["analyze", "r"] {
        let (code, _, err) = report("04-mwu-small-n", &["--format", format]);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains("2 comparison(s) have too few samples for any verdict"),
            "{format}: {err}"
        );
    }
    // The benchstat view keeps its own footnote.
    let (_, bs, _) = report("04-mwu-small-n", &["--format", "benchstat"]);
    assert!(bs.contains("need >= 4 samples to detect a difference at alpha level 0.05"));
}

// ---- 18-zero-baseline ----------------------------------------------------------------------

const ESMALL: &str = "Encode/small-8";
const ELARGE: &str = "Encode/large-8";
const DECODE: &str = "Decode-8";

/// Point 1: no NaN, no crash, exit 0 for every report without a gate.
#[test]
fn case18_no_nan_and_exit_0() {
    for metric in ["sec/op", "B/op", "allocs/op"] {
        for format in ["table", "markdown", "json", "html"] {
            let (code, out, err) = report(
                "18-zero-baseline",
                &["--metric", metric, "--format", format],
            );
            assert_eq!(code, 0, "{metric} {format}: {err}");
            assert!(!out.contains("NaN"), "{metric} {format}: {out}");
        }
    }
    let (code, _, err) = report("18-zero-baseline", &["--format", "benchstat"]);
    assert_eq!(code, 0, "{err}");
}

/// Points 2, 3, 4: 0 → 0 is no change, 0 → x is a certain increase (slower), x → 0 is −100 %
/// (faster), in B/op and allocs/op, in the table and JSON.
#[test]
fn case18_zero_rows_have_verdicts() {
    for metric in ["B/op", "allocs/op"] {
        let j = json_report("18-zero-baseline", &["--metric", metric]);
        let small = cmp(&j, ESMALL);
        assert_eq!(small["verdict"], "no_change", "{metric}");
        assert_eq!(f(&small["change_pct"]), 0.0, "{metric}");
        assert_eq!(f(&small["p_value"]), 1.0, "{metric}");
        let large = cmp(&j, ELARGE);
        assert_eq!(large["verdict"], "slower", "{metric}");
        assert_eq!(large["change"], "increase_from_zero", "{metric}");
        assert!(large["change_pct"].is_null(), "{metric}");
        let dec = cmp(&j, DECODE);
        assert_eq!(dec["verdict"], "faster", "{metric}");
        assert_eq!(f(&dec["change_pct"]), -100.0, "{metric}");
        assert_eq!(j["summary"]["inconclusive"], 0, "{metric}");
        let (_, table, _) = report("18-zero-baseline", &["--metric", metric]);
        assert!(row(&table, ESMALL).contains("no change"), "{table}");
        assert!(row(&table, ELARGE).contains("+Inf%") && row(&table, ELARGE).contains("slower"));
        assert!(row(&table, DECODE).contains("-100.00%") && row(&table, DECODE).contains("faster"));
        assert!(table.contains("3 comparisons: 1 faster, 1 slower, 1 no change, 0 inconclusive"));
    }
}

/// Point 3: a regression gate on a metric that starts allocating fails.
#[test]
fn case18_gate_fires_on_new_allocations() {
    for metric in ["allocs/op", "B/op"] {
        let (code, _, err) = report(
            "18-zero-baseline",
            &["--metric", metric, "--max-regression", "5"],
        );
        assert_eq!(code, 1, "{metric}: {err}");
        assert!(
            err.contains("FAIL: 1 benchmark(s) regressed") && err.contains(ELARGE),
            "{err}"
        );
        assert!(
            !err.contains(DECODE) || !err.contains("  Decode-8"),
            "{err}"
        );
    }
    // sec/op regresses by +3 %, below a 5 % gate: exit 0.
    let (code, _, err) = report(
        "18-zero-baseline",
        &["--metric", "sec/op", "--max-regression", "5"],
    );
    assert_eq!(code, 0, "{err}");
}

/// Point 5: the geomean over a metric with a zero summary is left out with a note (never 0,
/// NaN, or taken over the other rows); over sec/op it is defined.
#[test]
fn case18_geomean_undefined_with_zero_summaries() {
    for metric in ["B/op", "allocs/op"] {
        let j = json_report("18-zero-baseline", &["--metric", metric]);
        let g = &j["geomean"];
        assert_eq!(g["defined"], false, "{g}");
        assert!(g["change_pct"].is_null(), "{g}");
        assert!(
            g["note"]
                .as_str()
                .is_some_and(|n| n.contains("not defined")),
            "{g}"
        );
        let (_, table, _) = report("18-zero-baseline", &["--metric", metric]);
        assert!(row(&table, "geomean").contains("n/a"), "{table}");
        assert!(table.contains("note: geomean: not defined"), "{table}");
        let (_, md, _) = report(
            "18-zero-baseline",
            &["--metric", metric, "--format", "markdown"],
        );
        assert!(md.contains("n/a (see the notes)") && md.contains("geomean: not defined"));
    }
    let j = json_report("18-zero-baseline", &["--metric", "sec/op"]);
    assert_eq!(j["geomean"]["defined"], true);
    assert_eq!(j["geomean"]["n"], 3);
    // Over the changes shown (ratios of means), as the rows: check against them.
    let logs: f64 = j["comparisons"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|c| (1.0 + f(&c["change_pct"]) / 100.0).ln())
        .sum();
    let want = ((logs / 3.0).exp() - 1.0) * 100.0;
    assert!((f(&j["geomean"]["change_pct"]) - want).abs() < 1e-9);
    // The benchstat view keeps the median geomean of the case, −3.42 %.
    let (_, bs, _) = report("18-zero-baseline", &["--format", "benchstat"]);
    assert!(row(&bs, "geomean").contains("-3.42%"), "{bs}");
}

/// Point 6: sec/op medians, median changes, exact Mann–Whitney p and Welch p of each row.
#[test]
fn case18_sec_op_reference_values() {
    let j = json_report("18-zero-baseline", &["--metric", "sec/op"]);
    for (name, old, new, change, welch) in [
        (ESMALL, 119.85, 118.1, -1.460, 0.00031836),
        (ELARGE, 980.15, 1009.25, 2.969, 1.94889e-05),
        (DECODE, 450.85, 400.35, -11.201, 1.06361e-08),
    ] {
        let c = cmp(&j, name);
        let (mo, mn) = (f(&c["old"]["median"]), f(&c["new"]["median"]));
        assert!(close(mo, old * 1e-9, 1e-9), "{name}: {mo}");
        assert!(close(mn, new * 1e-9, 1e-9), "{name}: {mn}");
        assert!(((mn / mo - 1.0) * 100.0 - change).abs() < 5e-4, "{name}");
        assert!(close(f(&c["u_test"]["p_value"]), 0.0021645, 1e-4), "{name}");
        // Exact (with ties where 119.8 ns occurs on both sides).
        assert!(
            c["u_test"]["method"]
                .as_str()
                .is_some_and(|m| m.starts_with("exact"))
        );
        assert!(
            close(f(&c["compare_r"]["welch"]["p_value"]), welch, 1e-4),
            "{name}"
        );
        // Welch's p is the verdict's p for these unpaired files.
        assert!(close(f(&c["p_value"]), welch, 1e-4), "{name}");
    }
}
