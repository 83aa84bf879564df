//! hyperfine exports of parameter scans (`-P`, `-L`), reported alone: one command run per
//! parameter value makes each value a side (the first old), columns for three or more; two
//! parameters make every combination a side unless `--sides-by KEY` takes one parameter's
//! values as the sides. Every change agrees with the ratio hyperfine printed for the same
//! export (tests/data/harness/hyperfine-parameters/, each `.json` beside its `.txt`).

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

const DIR: &str = "tests/data/harness/hyperfine-parameters";

fn data(file: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(DIR)
        .join(file);
    assert!(p.exists(), "test data {} is required", p.display());
    p
}

/// `benchdiff report ARGS` in the data folder: (exit code, stdout, stderr).
fn report(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(data(""))
        .arg("report")
        .args(args)
        .output()
        .expect("benchdiff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// hyperfine's summary in `F.txt`: each command's mean time relative to the fastest, as
/// printed (two decimals; the fastest is 1).
fn printed_ratios(stem: &str) -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(data(&format!("{stem}.txt"))).expect("read");
    let summary = text.split("Summary").nth(1).expect("a summary");
    let quoted = |l: &str| l.split('\'').nth(1).map(str::to_owned);
    let mut ratios = BTreeMap::new();
    for line in summary.lines().map(str::trim) {
        if let Some(fastest) = line.strip_suffix(" ran").and_then(quoted) {
            ratios.insert(fastest, 1.0);
        } else if let Some((r, rest)) = line.split_once(" ± ") {
            let r: f64 = r.parse().expect("a ratio");
            assert!(rest.contains("times faster than"), "{line}");
            ratios.insert(quoted(rest).expect("a command"), r);
        }
    }
    ratios
}

/// The report's change of time (`change_pct`, %) per (old command, new command), from
/// `--format json`: a comparison named `<old> vs <new>`, or a column against the baseline.
fn changes(args: &[&str]) -> Vec<(String, String, f64)> {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    let (code, out, err) = report(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    let json: Value = serde_json::from_str(&out).expect("JSON");
    let baseline = json["baseline"].as_str().map(str::to_owned);
    let comparisons = json["comparisons"].as_array().expect("comparisons");
    comparisons
        .iter()
        .filter(|c| c["metric"]["name"] == "wall")
        .map(|c| {
            let change = c["change_pct"].as_f64().expect("a change");
            let (old, new) = match (&baseline, c["column"].as_str()) {
                (Some(b), Some(col)) => (b.clone(), col.to_owned()),
                _ => {
                    let (o, n) = (c["file"].as_str().expect("file"))
                        .split_once(" vs ")
                        .expect("<old> vs <new>");
                    (o.to_owned(), n.to_owned())
                }
            };
            (old, new, change)
        })
        .collect()
}

/// Checks each change of `got` against hyperfine's printed ratios of `stem`: new / old - 1
/// of the two ratios, within their rounding to two decimals. Returns the lines compared.
fn agrees(stem: &str, got: &[(String, String, f64)]) -> Vec<String> {
    let ratios = printed_ratios(stem);
    got.iter()
        .map(|(old, new, change)| {
            let (o, n) = (ratios[old.as_str()], ratios[new.as_str()]);
            let lo = 100.0 * ((n - 0.005) / (o + 0.005) - 1.0);
            let hi = 100.0 * ((n + 0.005) / (o - 0.005) - 1.0);
            assert!(
                (lo..=hi).contains(change),
                "{stem}: {old} → {new}: benchdiff {change:+.2}%, hyperfine {n:.2}/{o:.2} \
                 gives [{lo:+.2}%, {hi:+.2}%]"
            );
            format!("{old} → {new}: {change:+.2}% (hyperfine {n:.2}/{o:.2})")
        })
        .collect()
}

/// `-P ms 10 12 -D 2`: two values, one comparison `sleep 0.010 vs sleep 0.012`, its change
/// hyperfine's "1.11 ± 0.26 times faster" (+11.27%).
#[test]
fn a_two_value_scan_is_old_against_new_as_hyperfine_printed_it() {
    let (code, out, err) = report(&["hyperfine-scan-2-values.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("sleep 0.010 vs sleep 0.012") && out.contains("+11.27%"),
        "{out}"
    );
    let got = changes(&["hyperfine-scan-2-values.json"]);
    assert_eq!(got.len(), 1, "{got:?}");
    let lines = agrees("hyperfine-scan-2-values", &got);
    assert_eq!(
        lines,
        ["sleep 0.010 → sleep 0.012: +11.27% (hyperfine 1.11/1.00)"]
    );
}

/// `-L ms 10,15`: a list parameter is read as a scan is.
#[test]
fn a_two_value_list_is_old_against_new() {
    let got = changes(&["hyperfine-list-2-values.json"]);
    assert_eq!(got.len(), 1, "{got:?}");
    agrees("hyperfine-list-2-values", &got);
    assert!(got[0].2 > 30.0, "{got:?}");
}

/// `-P ms 10 12`: three values, the first the baseline and two columns; hyperfine's fastest
/// was the second value, so the first column is about 0% (a ratio of 1.00 either way).
#[test]
fn a_three_value_scan_is_columns() {
    let (code, out, err) = report(&["hyperfine-scan-3-values.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("baseline: sleep 0.010; 2 columns") && out.contains("sleep 0.012"),
        "{out}"
    );
    let got = changes(&["hyperfine-scan-3-values.json"]);
    assert_eq!(got.len(), 2, "{got:?}");
    agrees("hyperfine-scan-3-values", &got);
    // Two of the values named: one comparison.
    let got = changes(&[
        "hyperfine-scan-3-values.json",
        "--sides-by",
        "command=sleep 0.012,1",
    ]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_str()),
        ("sleep 0.012", "sleep 0.010")
    );
    agrees("hyperfine-scan-3-values", &got);
}

/// Two `-L` parameters: by default every combination is a side (hyperfine's own summary
/// compares every one), the first the baseline; `--sides-by ms` compares the values of
/// `ms` per value of `extra`, one row each.
#[test]
fn two_parameters_are_combinations_or_one_parameter_by_rows() {
    let stem = "hyperfine-list-2-parameters";
    let file = "hyperfine-list-2-parameters.json";
    let got = changes(&[file]);
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(
        got.iter().all(|(old, ..)| old == "sleep 0.010 0.000"),
        "{got:?}"
    );
    agrees(stem, &got);

    let (code, out, err) = report(&[file, "--sides-by", "ms"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("sleep 0.010 0.000 vs sleep 0.020 0.000 extra=0")
            && out.contains("sleep 0.010 0.005 vs sleep 0.020 0.005 extra=5"),
        "{out}"
    );
    let got = changes(&[file, "--sides-by", "ms"]);
    assert_eq!(got.len(), 2, "{got:?}");
    agrees(stem, &got);
    let got = changes(&[file, "--sides-by", "extra=5,0"]);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got.iter().all(|(old, ..)| old.ends_with(" 0.005")),
        "{got:?}"
    );
    agrees(stem, &got);
}

/// Two commands under one parameter stay command against command, one row per value.
#[test]
fn two_commands_with_a_parameter_stay_commands() {
    let (code, out, err) = report(&["hyperfine-list-2-commands.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("sleep 0.0{ms} vs sleep 0.0{ms}5 ms=10")
            && out.contains("sleep 0.0{ms} vs sleep 0.0{ms}5 ms=20"),
        "{out}"
    );
    // The parameter as the sides: each command one row.
    let got = changes(&["hyperfine-list-2-commands.json", "--sides-by", "ms"]);
    assert_eq!(got.len(), 2, "{got:?}");
    agrees("hyperfine-list-2-commands", &got);
}

/// A sides key that is neither `command` nor a parameter, or values the parameter does not
/// have: an error naming what there is.
#[test]
fn a_sides_key_the_export_lacks_is_an_error_that_lists_its_parameters() {
    let (code, _, err) = report(&["hyperfine-list-2-parameters.json", "--sides-by", "size"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("size is not a parameter") && err.contains("(its parameters: extra, ms)"),
        "{err}"
    );
    let (code, _, err) = report(&["hyperfine-list-2-parameters.json", "--sides-by", "ms=10,30"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("name two or more values of ms (10, 20)"),
        "{err}"
    );
}
