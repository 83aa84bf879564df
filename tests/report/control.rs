//! The A/A control in every report (`compare --control`): a results file with a control side
//! gives the table a `control` column and line, the Markdown comment leads with the line, the
//! JSON report carries a `control` object, a row whose interval holds its control's change is
//! "within control", and `--fail-on-control` fails when the control is flagged. The results
//! files are written here, with fixed values, in the format the runner writes.

use assert_cmd::Command;
use std::fmt::Write as _;
use std::path::Path;

/// A deterministic noise in [-0.5, 0.5) from `i` (a 64-bit mix).
fn noise(i: u64) -> f64 {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// A command-run results file with a control side: per row `(name, new factor, control
/// factor)`, `runs` rounds of old, new and control jobs, rates `1000 · factor · (1 + spread ·
/// noise)`.
fn results_file(rows: &[(&str, f64, f64)], runs: u32, spread: f64) -> String {
    let mut s = String::new();
    let benches: Vec<String> = rows
        .iter()
        .map(|(n, _, _)| {
            format!("{{\"name\":\"{n}\",\"template\":\"\",\"params\":[],\"exclusions\":[]}}")
        })
        .collect();
    let _ = writeln!(
        s,
        "{{\"type\":\"command-run\",\"benchdiff\":\"0.1.0\",\"started_unix_s\":1.0,\
         \"targets\":[{{\"side\":\"old\",\"label\":\"a\",\"argv\":[\"/bin/a\"]}},\
         {{\"side\":\"new\",\"label\":\"b\",\"argv\":[\"/bin/b\"]}}],\
         \"benchmarks\":[{}],\"runs\":{runs},\"warmup\":0,\"order\":\"random\",\"seed\":1,\
         \"shell\":false,\"timeout_s\":null,\"prepare\":null,\"setup\":null,\"cleanup\":null,\
         \"cpus\":null,\"jobs\":{},\"control\":true}}",
        benches.join(","),
        rows.len() * runs as usize * 3
    );
    let mut position = 0u64;
    for run in 0..runs {
        for (r, (name, new, control)) in rows.iter().enumerate() {
            for (side, factor) in [("old", 1.0), ("new", *new), ("control", *control)] {
                let rate = 1000.0 * factor * (1.0 + spread * noise(position * 7 + r as u64));
                let _ = writeln!(
                    s,
                    "{{\"type\":\"command-job\",\"position\":{position},\"benchmark\":\"{name}\",\
                     \"combination\":[],\"side\":\"{side}\",\"run\":{run},\"warmup\":false,\
                     \"argv\":[\"/bin/x\"],\"status\":\"ok\",\"exit_code\":0,\"signal\":null,\
                     \"wall_s\":0.001,\"user_s\":0.001,\"sys_s\":0.0,\"max_rss_bytes\":1000,\
                     \"samples\":[{{\"name\":\"{name}\",\"configuration\":\"\",\"params\":[],\
                     \"rate\":{rate},\"time_s\":null,\"source\":\"node\",\"metrics\":[]}}]}}"
                );
                position += 1;
            }
        }
    }
    s
}

fn report(dir: &Path, file: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "250")
        .arg("report")
        .args(args)
        .arg(file)
        .output()
        .expect("benchdiff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Rows: `clear` is 10% faster with a clean control, `same` unchanged, `drifted` 10% faster
/// but its control shows the same 10% (the machine, not the build).
const ROWS: [(&str, f64, f64); 3] = [
    ("clear", 1.10, 1.0),
    ("same", 1.0, 1.0),
    ("drifted", 1.10, 1.10),
];

fn fixture(rows: &[(&str, f64, f64)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("r.jsonl"), results_file(rows, 12, 0.02)).expect("written");
    dir
}

#[test]
fn the_table_shows_each_rows_control_and_the_suites_count() {
    let dir = fixture(&ROWS);
    let (code, out, err) = report(dir.path(), "r.jsonl", &[]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("control_table", out);
    let drifted = out.lines().find(|l| l.contains("drifted")).expect("row");
    assert!(drifted.contains("faster (within control)"), "{drifted}");
    let clear = out.lines().find(|l| l.contains(" clear ")).expect("row");
    assert!(!clear.contains("within control"), "{clear}");
    assert!(
        out.contains("control: 1 of 3 identical-build rows called changed"),
        "{out}"
    );
}

#[test]
fn markdown_leads_with_the_control_line_and_json_carries_it() {
    let dir = fixture(&ROWS);
    let (code, md, err) = report(dir.path(), "r.jsonl", &["--format", "markdown"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        md.starts_with("**control: 1 of 3 identical-build rows"),
        "{md}"
    );
    assert!(md.contains("| **faster** (within control) |"), "{md}");
    insta::assert_snapshot!("control_markdown", md);
    let (code, json, err) = report(dir.path(), "r.jsonl", &["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(
        serde_json::to_string_pretty(&v).expect("prints") + "\n",
        json
    );
    let schema_path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema file"))
            .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = (validator.iter_errors(&v))
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let c = &v["control"];
    assert_eq!(c["called_changed"], 1);
    assert_eq!(c["rows"], 3);
    assert_eq!(c["flagged"], true);
    assert_eq!(c["rate_ci_method"], "wilson");
    let drifted = (c["comparisons"].as_array().expect("array").iter())
        .find(|r| r["name"] == "drifted")
        .expect("drifted");
    assert_eq!(drifted["control"]["clear"], false);
    insta::assert_snapshot!(
        "control_json",
        serde_json::to_string_pretty(c).expect("JSON text")
    );
}

#[test]
fn fail_on_control_fails_only_a_flagged_control() {
    let dir = fixture(&ROWS);
    let (code, _, err) = report(dir.path(), "r.jsonl", &[]);
    assert_eq!(
        code, 0,
        "without the option the control only informs: {err}"
    );
    let (code, _, err) = report(dir.path(), "r.jsonl", &["--fail-on-control"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("FAIL: control: 1 of 3"), "{err}");
    let clean = fixture(&[("a", 1.10, 1.0), ("b", 1.0, 1.0)]);
    let (code, out, err) = report(clean.path(), "r.jsonl", &["--fail-on-control"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("called changed") && out.contains("clean"),
        "{out}"
    );
    // With --max-regression too, the control gate still applies.
    let (code, _, _) = report(
        dir.path(),
        "r.jsonl",
        &["--fail-on-control", "--max-regression", "50"],
    );
    assert_eq!(code, 1);
}

#[test]
fn a_report_without_a_control_has_no_control_column() {
    let dir = fixture(&ROWS);
    let text = std::fs::read_to_string(dir.path().join("r.jsonl")).expect("read");
    let without: String = (text.lines())
        .filter(|l| !l.contains("\"side\":\"control\""))
        .map(|l| l.replace(",\"control\":true", "") + "\n")
        .collect();
    std::fs::write(dir.path().join("plain.jsonl"), without).expect("written");
    let (code, out, err) = report(dir.path(), "plain.jsonl", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("control"), "{out}");
    let (_, json, _) = report(dir.path(), "plain.jsonl", &["--format", "json"]);
    assert!(!json.contains("\"control\""), "{json}");
    let (code, _, err) = report(dir.path(), "plain.jsonl", &["--fail-on-control"]);
    assert_eq!(code, 0);
    assert!(err.contains("no control side"), "{err}");
}

#[test]
fn the_csv_export_of_a_control_run_has_old_and_new_rows_only() {
    let dir = fixture(&ROWS);
    let (code, csv, err) = report(dir.path(), "r.jsonl", &["--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(!csv.contains("\"control\""), "{csv}");
    assert_eq!(csv.lines().count(), 1 + 3 * 12 * 2, "old and new rows");
}

#[test]
fn the_html_page_shows_the_control_line_column_and_qualified_verdicts() {
    let dir = fixture(&ROWS);
    let (code, html, err) = report(dir.path(), "r.jsonl", &["--format", "html"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        html.contains(
            "<p class=\"control flagged\"><strong>control: 1 of 3 identical-build rows called \
             changed"
        ),
        "{html}"
    );
    // The line comes before the summary table.
    let line = html.find("<p class=\"control").expect("line");
    let table = html.find("<table class=\"summary\">").expect("table");
    assert!(line < table);
    assert!(html.contains("<th>control</th><th>verdict</th>"), "{html}");
    let drifted = (html.lines())
        .find(|l| l.starts_with("<tr><td><a href=\"#cmp-") && l.contains(">drifted<"))
        .expect("drifted row");
    assert!(
        drifted.contains("<td class=\"faster\">faster (within control)</td>"),
        "{drifted}"
    );
    // Its control cell, just before the verdict: a change and an interval.
    assert!(
        drifted.contains("%]</td><td class=\"faster\">") && drifted.matches("%]</td>").count() == 2,
        "{drifted}"
    );
    let clear = (html.lines())
        .find(|l| l.starts_with("<tr><td><a href=\"#cmp-") && l.contains(">clear<"))
        .expect("clear row");
    assert!(!clear.contains("within control"), "{clear}");

    let text = std::fs::read_to_string(dir.path().join("r.jsonl")).expect("read");
    let without: String = (text.lines())
        .filter(|l| !l.contains("\"side\":\"control\""))
        .map(|l| l.replace(",\"control\":true", "") + "\n")
        .collect();
    std::fs::write(dir.path().join("plain.jsonl"), without).expect("written");
    let (code, plain, err) = report(dir.path(), "plain.jsonl", &["--format", "html"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !plain.contains("control") && !plain.contains("<th>control</th>"),
        "no control markup without a control side"
    );
}
