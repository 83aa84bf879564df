//! `benchdiff report` on sides with two performance regimes, end to end through the real
//! binary and every renderer: inputs made here (compare.js CSV written to a temporary
//! directory) in the shapes issue 14 and 15 describe.
//! - Node 24's `process/next-tick-breadth.js` against Node 22, 10 runs a side: the new samples
//!   in two clusters of five near 3.3M and 5.9M ops/s — flagged, named, change per regime;
//! - 2 of 10 runs at twice the rate of the others — a second regime, not two outliers;
//! - a 2+2 split of 4 samples — not flagged (too few), with a note saying so;
//! - values printed with two decimals, many tied — not flagged.

use assert_cmd::Command;
use std::fmt::Write as _;

fn benchdiff() -> Command {
    let mut c = Command::cargo_bin("benchdiff").expect("binary built");
    c.env_remove("NO_COLOR");
    c
}

/// `base · (1 + spread·u)` with a fixed pseudo-random `u` in [−1, 1] per index.
fn noisy(base: f64, spread: f64, i: usize) -> f64 {
    let u = ((i as f64 * 0.618_033_988_75 + 0.1).fract() - 0.5) * 2.0;
    base * (1.0 + spread * u)
}

/// A compare.js CSV of one benchmark with the given old and new rates.
fn csv(file: &str, old: &[f64], new: &[f64]) -> String {
    let mut s = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for (side, v) in [("old", old), ("new", new)] {
        for r in v {
            let _ = writeln!(s, "\"{side}\",\"{file}\",\"n=10000000\",{r},{}", 1e7 / r);
        }
    }
    s
}

/// Runs `benchdiff report --format FORMAT` on the CSV; stdout.
fn report(csv_text: &str, format: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("results.csv");
    std::fs::write(&path, csv_text).expect("write csv");
    let out = benchdiff()
        .args(["report", "--format", format])
        .arg(&path)
        .output()
        .expect("run benchdiff");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn next_tick_breadth() -> String {
    let old: Vec<f64> = (0..10).map(|i| noisy(3.1e6, 0.03, i)).collect();
    let new: Vec<f64> = (0..10)
        .map(|i| noisy(if i % 2 == 0 { 3.3e6 } else { 5.9e6 }, 0.03, i + 20))
        .collect();
    csv("process/next-tick-breadth.js", &old, &new)
}

#[test]
fn two_clusters_of_five_are_flagged_in_every_format() {
    let data = next_tick_breadth();

    let table = report(&data, "table");
    assert!(table.contains(", 2 regimes"), "{table}");
    assert!(table.contains("multimodal(new)"), "{table}");
    assert!(
        table.contains(
            "the new binary's samples fall into 2 regimes: 3.29M ops/s (50% of runs), \
             5.83M ops/s (50% of runs)"
        ),
        "{table}"
    );
    assert!(table.contains("change per regime"), "{table}");
    // Each new regime against the old median (3.1M): about +6% and +90%.
    let line = table
        .lines()
        .find(|l| l.contains("change per regime"))
        .expect("regime line");
    assert!(
        line.contains("3.10M (100%) → 3.29M (50%): +6.21%")
            && line.contains("3.10M (100%) → 5.83M (50%): +88.22%"),
        "{line}"
    );

    let md = report(&data, "markdown");
    assert!(
        md.contains(", 2 regimes") && md.contains("change per regime"),
        "{md}"
    );

    let html = report(&data, "html");
    assert!(html.contains(", 2 regimes") && html.contains("change per regime"));

    let text = report(&data, "json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    // Written straight from the structs, the bytes (regimes and regime changes too) are
    // serde_json's pretty-printing of the document.
    assert_eq!(serde_json::to_string_pretty(&json).unwrap() + "\n", text);
    let c = &json["comparisons"][0];
    assert_eq!(c["flags"]["multimodal"], serde_json::json!(["new"]));
    let groups = c["new"]["multimodal"]["regimes"]["groups"]
        .as_array()
        .expect("groups");
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["count"], 5);
    assert_eq!(groups[1]["count"], 5);
    let changes = c["regime_changes"].as_array().expect("regime changes");
    assert_eq!(changes.len(), 2);
    let lo = changes[0]["change_pct"].as_f64().expect("pct");
    let hi = changes[1]["change_pct"].as_f64().expect("pct");
    assert!((0.0..15.0).contains(&lo), "{lo}");
    assert!((75.0..105.0).contains(&hi), "{hi}");
    assert!(c["old"]["multimodal"].is_null());
}

#[test]
fn two_of_ten_at_twice_the_rate_is_a_second_regime() {
    let old: Vec<f64> = (0..10).map(|i| noisy(1.0e6, 0.03, i)).collect();
    let mut new: Vec<f64> = (0..8).map(|i| noisy(1.0e6, 0.03, i + 10)).collect();
    new.extend([2.0e6, 2.05e6]);
    let json: serde_json::Value =
        serde_json::from_str(&report(&csv("gc.js", &old, &new), "json")).expect("json");
    let c = &json["comparisons"][0];
    let groups = c["new"]["multimodal"]["regimes"]["groups"]
        .as_array()
        .expect("a second regime");
    assert_eq!(
        (groups[0]["count"].as_u64(), groups[1]["count"].as_u64()),
        (Some(8), Some(2))
    );
    // Not reported as two outliers of one regime.
    assert_eq!(c["new"]["outliers"], serde_json::json!([]));
}

#[test]
fn two_plus_two_of_four_is_not_flagged_but_noted() {
    let old = [1.0e6, 1.01e6, 0.99e6, 1.0e6];
    let new = [1.0e6, 1.01e6, 2.0e6, 2.02e6];
    let table = report(&csv("small.js", &old, &new), "table");
    assert!(!table.contains("multimodal("), "{table}");
    assert!(!table.contains(", 2 regimes"), "{table}");
    assert!(
        table.contains("the new binary's 4 samples split into two groups")
            && table.contains("needs at least 6 runs"),
        "{table}"
    );
}

#[test]
fn rounded_tied_values_are_not_flagged() {
    // Times in ms printed with two decimals: three distinct values, many ties.
    let old = [0.50, 0.51, 0.50, 0.50, 0.51, 0.50, 0.49, 0.51, 0.50, 0.50];
    let new = [0.49, 0.49, 0.50, 0.49, 0.48, 0.49, 0.49, 0.50, 0.49, 0.48];
    let table = report(&csv("rounded.js", &old, &new), "table");
    assert!(!table.contains("multimodal("), "{table}");
    assert!(!table.contains("regime"), "{table}");
}
