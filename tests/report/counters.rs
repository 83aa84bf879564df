//! Reports of samples that carry counters (`--measure`): the table's `CV old/new` column and
//! the metrics section, the Markdown and JSON summaries, on real results files of
//! `examples/rust-optimisations` (tests/data/counters/SOURCES.md); reports without counters
//! keep their layout unless `--cv` asks for the column.

use assert_cmd::Command;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/counters");

fn benchdiff() -> Command {
    let mut c = Command::cargo_bin("benchdiff").expect("binary built");
    c.env_remove("NO_COLOR").env_remove("COLUMNS");
    c
}

/// `benchdiff report ARGS…`: stdout (exit code 0).
fn report(args: &[&str]) -> String {
    let out = benchdiff()
        .arg("report")
        .args(args)
        .output()
        .expect("benchdiff runs");
    assert!(
        out.status.success(),
        "benchdiff report {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn instructions() -> String {
    format!("{DATA}/rust-optimisations-instructions.jsonl")
}

fn software() -> String {
    format!("{DATA}/rust-optimisations-software.jsonl")
}

/// Instruction counts from cachegrind at a 0.1% threshold: every row shows each side's CV (a
/// few millionths of a percent), and the metrics section the program's own metrics. Counts
/// that differ by a handful of instructions in two tight groups are not two regimes, and a
/// run a few dozen instructions off is no outlier.
#[test]
fn instruction_counts_show_their_cv_and_every_metric() {
    let path = instructions();
    let text = report(&[&path, "--metric", "instructions", "--threshold", "0.1"]);
    insta::assert_snapshot!("table_instructions", text);
    assert!(text.contains("CV old/new"), "{text}");
    assert!(!text.contains("regimes"), "{text}");
    assert!(!text.contains("multimodal"), "{text}");
    assert!(!text.contains("outliers"), "{text}");
}

/// Wall time beside the kernel's software counters: the deciding metric's CV per row, and
/// the CV of every other metric in the section below, wall's in percents.
#[test]
fn wall_time_beside_software_counters() {
    let path = software();
    let text = report(&[&path, "--metric", "wall"]);
    insta::assert_snapshot!("table_wall_software", text);
    let section = text
        .split_once("metrics of these samples")
        .expect("a metrics section")
        .1;
    for m in ["rate", "user", "task-clock", "page-faults", "max_rss"] {
        assert!(section.contains(&format!("\n  {m} (")), "{m}: {section}");
    }
    assert!(section.contains("wall (s, lower is better), decides"));
}

#[test]
fn markdown_and_json_summarise_every_metric() {
    let path = instructions();
    let md = report(&[
        &path,
        "--metric",
        "instructions",
        "--threshold",
        "0.1",
        "--format",
        "markdown",
    ]);
    insta::assert_snapshot!("markdown_instructions", md);
    let metrics = md.find("**Metrics**").expect("a metrics table");
    assert!(metrics < md.find("**Run**").expect("run facts"), "{md}");
    let json = report(&[&path, "--metric", "instructions", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let again = serde_json::to_string_pretty(&doc).expect("prints") + "\n";
    assert!(again == json, "not serde_json's pretty-printing");
    let schema_path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let m = doc["metrics"].as_array().expect("metrics array");
    assert_eq!(m[0]["name"], "instructions");
    assert_eq!(m[0]["decides"], true);
    assert_eq!(m[0]["comparisons"], 6);
    let cv = m[0]["cv_pct"]["old"].as_f64().expect("a CV");
    assert!(cv > 0.0 && cv < 1e-3, "{cv}");
    assert!(m[1..].iter().all(|x| x["decides"] == false));
    // The per-comparison CV is the side's.
    let old = doc["comparisons"][0]["old"]["cv_pct"]
        .as_f64()
        .expect("a CV");
    assert!(old < 1e-3, "{old}");
}

/// Samples without counters are reported as before; `--cv` adds the column to their table.
#[test]
fn without_counters_the_column_is_asked_for() {
    let csv = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/oracle/node-compare-r/confidence.csv"
    );
    let plain = report(&[csv]);
    assert!(!plain.contains("CV old/new") && !plain.contains("metrics of these samples"));
    let asked = report(&[csv, "--cv"]);
    let header = asked.lines().next().expect("a header");
    let at = |h: &str| header.find(h).unwrap_or_else(|| panic!("{h}: {header}"));
    assert!(
        at("95% CI") < at("CV old/new") && at("CV old/new") < at("p "),
        "{header}"
    );
    assert!(!asked.contains("metrics of these samples"));
    // Every other line but the header and the rules is the same without the column.
    assert_eq!(plain.lines().count(), asked.lines().count());
    let md = report(&[csv, "--format", "markdown"]);
    assert!(!md.contains("**Metrics**"));
}
