//! Summary-only inputs (BenchmarkDotNet's brief export, benchmark.js's lines) are compared
//! from each side's mean, standard deviation and n — Welch's test and Fieller's interval —
//! with a note, and no sample invented.

use assert_cmd::Command;
use std::path::PathBuf;

/// `benchdiff report --format json OLD NEW` in `tests/data/harness`: the document.
fn json(old: &str, new: &str) -> serde_json::Value {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/harness"))
        .args(["report", "--format", "json", old, new])
        .output()
        .expect("benchdiff runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// The brief exports hold BenchmarkDotNet's own mean, sd and n of the full exports' result
/// measurements: the test from them gives the full exports' change, interval and p-value.
#[test]
fn a_brief_export_is_tested_from_mean_sd_and_n_as_its_samples_would_be() {
    let brief = json("bdn-before-brief.json", "bdn-after-brief.json");
    let full = json("bdn-before.json", "bdn-after.json");
    let (b, f) = (
        brief["comparisons"].as_array().expect("comparisons"),
        full["comparisons"].as_array().expect("comparisons"),
    );
    assert_eq!(b.len(), 4);
    for (b, f) in b.iter().zip(f) {
        assert_eq!(b["name"], f["name"]);
        for key in ["change_pct", "p_value", "p_adjusted"] {
            let (x, y) = (b[key].as_f64().expect(key), f[key].as_f64().expect(key));
            assert!(close(x, y), "{} {key}: {x} vs {y}", b["name"]);
        }
        for end in ["lower", "upper"] {
            let (x, y) = (
                b["change_ci_pct"][end].as_f64().expect("ci"),
                f["change_ci_pct"][end].as_f64().expect("ci"),
            );
            assert!(close(x, y), "{} ci: {x} vs {y}", b["name"]);
        }
        // One value a side (the mean): nothing invented.
        assert_eq!(b["old"]["n"], 1, "{b}");
        assert_eq!(b["new"]["n"], 1, "{b}");
    }
}

/// benchmark.js: `sort x 9,326 ops/sec ±12.01% (36 runs sampled)` against `sort x 7,579
/// ops/sec ±9.73% (50 runs sampled)`: Welch's t from the means and the standard deviations
/// the margins of error give (t = 1.96 above 30 degrees of freedom), in the table with the
/// note.
#[test]
fn benchmarkjs_lines_are_tested_from_mean_sd_and_n() {
    let doc = json("benchmarkjs-old.txt", "benchmarkjs-new.txt");
    let sort = doc["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| c["name"] == "sort")
        .expect("sort");
    let side = |mean: f64, rme: f64, n: f64| (mean, rme / 100.0 * mean * n.sqrt() / 1.96, n);
    let (mo, so, no) = side(9326.0, 12.01, 36.0);
    let (mn, sn, nn) = side(7579.0, 9.73, 50.0);
    let t = (mn - mo) / (so * so / no + sn * sn / nn).sqrt();
    let got = sort["compare_r"]["welch"]["t"].as_f64().unwrap_or(f64::NAN);
    assert!(close(got, t), "t {got} vs {t}: {sort}");
    assert!(sort["p_value"].as_f64().expect("p") < 0.05, "{sort}");
    assert_eq!(sort["verdict"], "slower");
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/harness"))
        .args(["report", "benchmarkjs-old.txt", "benchmarkjs-new.txt"])
        .output()
        .expect("benchdiff runs");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("2 comparison(s) tested from summary statistics")
            && table.contains("no sample is invented"),
        "{table}"
    );
}
