//! Reports of more than two sides as columns: the first input (or value of the sides key) is
//! the baseline, every other one a column compared with it, all comparisons corrected
//! together; the table, Markdown, JSON and benchstat views; the gate over every column; the
//! layouts of two sides refused by name.

use assert_cmd::Command;
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel);
    assert!(p.exists(), "test data {} is required", p.display());
    p
}

/// Runs `benchdiff report ARGS` in `tests/data/DIR`; returns (exit code, stdout, stderr).
fn report(dir: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(data(dir))
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

const FOUR: [&str; 4] = [
    "go-base.txt",
    "go-same.txt",
    "go-faster.txt",
    "go-slower.txt",
];

fn four(extra: &[&str]) -> (i32, String, String) {
    let mut args: Vec<&str> = FOUR.to_vec();
    args.extend_from_slice(extra);
    report("columns", &args)
}

#[test]
fn four_go_files_are_three_columns_against_the_first() {
    let (code, out, err) = four(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    insta::assert_snapshot!("four_go_files_table", out);
}

#[test]
fn four_go_files_in_markdown() {
    let (code, out, err) = four(&["--format", "markdown"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("four_go_files_markdown", out);
}

#[test]
fn four_go_files_in_benchstat_view() {
    let (code, out, err) = four(&["--format", "benchstat"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("four_go_files_benchstat", out);
}

/// Every comparison of every column is in one family: Holm multiplies the smallest p-value
/// by the family's size, 9 (three benchmarks, three columns), not 3.
#[test]
fn json_carries_every_column_corrected_together() {
    let (code, out, err) = four(&["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["baseline"], "go-base.txt");
    let labels: Vec<&str> = doc["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c["label"].as_str().expect("label"))
        .collect();
    assert_eq!(labels, ["go-same.txt", "go-faster.txt", "go-slower.txt"]);
    let comps = doc["comparisons"].as_array().expect("comparisons");
    assert_eq!(comps.len(), 9);
    assert_eq!(doc["summary"]["comparisons"], 9);
    assert_eq!(doc["columns"][1]["faster"], 3);
    assert_eq!(doc["columns"][2]["slower"], 3);
    let (min, adj) = comps
        .iter()
        .map(|c| {
            (
                c["p_value"].as_f64().expect("p"),
                c["p_adjusted"].as_f64().expect("p adjusted"),
            )
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("a comparison");
    assert!(
        ((adj / min) - 9.0).abs() < 1e-9,
        "smallest p {min}, adjusted {adj}"
    );
    for c in comps {
        assert!(
            labels.contains(&c["column"].as_str().expect("column")),
            "{c}"
        );
    }
    // The document is valid against the schema.
    let schema = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema/report.schema.json"),
    )
    .expect("schema");
    let schema: serde_json::Value = serde_json::from_str(&schema).expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // serde_json's pretty-printing, as every JSON report.
    assert_eq!(
        serde_json::to_string_pretty(&doc).expect("prints") + "\n",
        out
    );
}

/// The gate judges every column: only the slower column fails it.
#[test]
fn the_gate_judges_every_column() {
    let (code, _, err) = four(&["--max-regression", "5"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("3 comparison(s) regressed by more than 5%")
            && err.contains("across 9 comparisons of 3 columns"),
        "{err}"
    );
    assert_eq!(
        err.matches("go-slower.txt vs go-base.txt").count(),
        3,
        "{err}"
    );
    assert!(!err.contains("go-faster.txt vs"), "{err}");
    let (code, _, err) = four(&["--max-regression", "30"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn layouts_of_two_sides_name_the_option() {
    for (args, option) in [
        (vec!["--format", "r"], "--format r"),
        (vec!["--format", "analyze"], "--format analyze"),
        (vec!["--format", "csv"], "--format csv"),
        (vec!["--plot", "p.svg"], "--plot"),
    ] {
        let (code, out, err) = four(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains(option) && err.contains("more than two"),
            "{args:?}: {err}"
        );
    }
    assert!(!data("columns").join("p.svg").exists());
}

/// benchstat -col /poly: `--sides-by /poly` with its three values prints benchstat's
/// three-column table; every token of its rows (median, interval, change, p and n per
/// column) is benchstat's (crcSizeVsPoly.stdout, which also filters /align:0 and rows by
/// /size).
#[test]
fn a_sides_key_of_three_values_is_benchstats_columns() {
    let golden =
        std::fs::read_to_string(data("oracle/benchstat/crcSizeVsPoly.stdout")).expect("golden");
    let (code, out, err) = report(
        "oracle/benchstat",
        &[
            "--format",
            "benchstat",
            "--sides-by",
            "/poly",
            "crc-new.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let mut checked = 0;
    for (g, mine) in golden.split("\n\n").zip(out.split("\n\n")) {
        // The header lines: the same labels and units.
        let head = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| l.contains('│'))
                .map(|l| l.split_whitespace().filter(|w| *w != "│").collect())
                .collect()
        };
        assert_eq!(head(g), head(mine));
        for size in ["15", "40", "512", "1kB", "4kB", "32kB"] {
            let want: Vec<&str> = g
                .lines()
                .find(|l| l.split_whitespace().next() == Some(size))
                .expect("golden row")
                .split_whitespace()
                .skip(1)
                .collect();
            let name = format!("CRC32/size={size}/align=0-8");
            let got: Vec<&str> = mine
                .lines()
                .find(|l| l.split_whitespace().next() == Some(name.as_str()))
                .expect("row")
                .split_whitespace()
                .skip(1)
                .collect();
            assert_eq!(got, want, "{name}");
            checked += 1;
        }
    }
    assert_eq!(checked, 12);
    // The default table of the same three sides: two columns against IEEE.
    let (code, out, err) = report("oracle/benchstat", &["--sides-by", "/poly", "crc-new.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("baseline: IEEE; 2 columns compared with it, Holm correction across all 24"),
        "{out}"
    );
    // Named values: the same columns.
    let (code, named, err) = report(
        "oracle/benchstat",
        &["--sides-by", "/poly=IEEE,Castagnoli,Koopman", "crc-new.txt"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(named, out);
}

/// A hyperfine export of three commands (hyperfine 1.15.0): the first command is the
/// baseline, each other a column; hyperfine printed 1.48 ± 0.40 and 2.23 ± 0.60 times.
#[test]
fn a_hyperfine_export_of_three_commands_is_two_columns() {
    let (code, out, err) = report("columns", &["hyperfine-3-commands-10-runs.json"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("hyperfine_three_commands_table", out);
    assert!(out.contains("+48.38%") && out.contains("+122.64%"), "{out}");
    // The commands named (by number): the same columns.
    let (code, named, err) = report(
        "columns",
        &[
            "hyperfine-3-commands-10-runs.json",
            "--sides-by",
            "command=1,2,3",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(named, out);
}

/// The bounded-memory path (a single compare.js CSV above `--memory-limit`) never takes a
/// report of columns: four Go files print the same columns at any limit, and compare.js CSVs
/// (which name each sample's side) are pooled, never columns.
#[test]
fn columns_never_take_the_bounded_path() {
    let (code, want, err) = four(&[]);
    assert_eq!(code, 0, "{err}");
    let (code, got, err) = four(&["--memory-limit", "1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(got, want);
    let (code, out, err) = report(
        "oracle/node-compare-r",
        &["--memory-limit", "1", "http.csv", "http.csv", "http.csv"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("baseline:"), "{out}");
}

/// Standard input among more than two inputs cannot be read once per column: the error says
/// when inputs are columns.
#[test]
fn standard_input_among_columns_is_an_error_that_says_why() {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(data("columns"))
        .args(["report", "go-base.txt", "go-same.txt", "-"])
        .write_stdin(std::fs::read(data("columns/go-slower.txt")).expect("read"))
        .output()
        .expect("benchdiff runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("3 result files without old/new sides")
            && err.contains("compared as columns against the first only when each is a file"),
        "{err}"
    );
}

/// A named pipe in `dir` called `name` that gives `bytes` to the first reader that opens it,
/// and nothing after: an input that can be read only once (a second open waits for a writer
/// that never comes).
#[cfg(unix)]
fn read_once_input(dir: &std::path::Path, name: &str, bytes: Vec<u8>) {
    let path = dir.join(name);
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
    std::thread::spawn(move || {
        use std::io::Write as _;
        // Opening for writing waits for the reader; a reader that stops early is its business.
        if let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(&path) {
            let _ = w.write_all(&bytes);
        }
    });
}

/// Every input of a report of columns is read once: the baseline given as a named pipe, which
/// can be read only once, is compared with every column, as the same file is.
#[cfg(unix)]
#[test]
fn every_input_of_columns_is_read_once() {
    let (code, want, err) = four(&[]);
    assert_eq!(code, 0, "{err}");
    let dir = tempfile::tempdir().expect("temp dir");
    for f in &FOUR[1..] {
        std::fs::copy(data("columns").join(f), dir.path().join(f)).expect("copy");
    }
    let base = std::fs::read(data("columns").join(FOUR[0])).expect("read");
    read_once_input(dir.path(), FOUR[0], base);
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(dir.path())
        .arg("report")
        .args(FOUR)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("benchdiff runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}

/// A warning of the baseline's reader is printed once, not once per column it is compared
/// with, and a column's once.
#[test]
fn the_baselines_warnings_are_printed_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    for f in FOUR {
        let mut text = std::fs::read_to_string(data("columns").join(f)).expect("read");
        if f == FOUR[0] || f == FOUR[2] {
            text.push_str("BenchmarkBroken-8 notanumber 12 ns/op\n");
        }
        std::fs::write(dir.path().join(f), text).expect("write");
    }
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(dir.path())
        .arg("report")
        .args(FOUR)
        .output()
        .expect("benchdiff runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    for f in [FOUR[0], FOUR[2]] {
        let at = format!("warning: {f}:31: incomplete record BenchmarkBroken-8");
        assert_eq!(err.matches(&at).count(), 1, "{err}");
    }
    assert_eq!(err.lines().count(), 2, "{err}");
}

/// A sides key of more than two values is read once: the one input given on standard input
/// (which can be read only once) prints the columns the file prints, whether the values are
/// found by reading (`/poly`, a hyperfine export's commands) or named (`KEY=A,B,C`).
#[test]
fn a_sides_key_of_more_values_reads_its_input_once() {
    for (dir, file, extra) in [
        (
            "oracle/benchstat",
            "crc-new.txt",
            vec!["--sides-by", "/poly"],
        ),
        (
            "oracle/benchstat",
            "crc-new.txt",
            vec![
                "--sides-by",
                "/poly=IEEE,Castagnoli,Koopman",
                "--format",
                "benchstat",
            ],
        ),
        ("columns", "hyperfine-3-commands-10-runs.json", vec![]),
        (
            "columns",
            "hyperfine-3-commands-10-runs.json",
            vec!["--sides-by", "command=3,1,2"],
        ),
    ] {
        let mut args = extra.clone();
        args.push(file);
        let (code, want, err) = report(dir, &args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let mut args = extra.clone();
        args.push("-");
        let out = Command::cargo_bin("benchdiff")
            .expect("binary built")
            .current_dir(data(dir))
            .arg("report")
            .args(&args)
            .write_stdin(std::fs::read(data(dir).join(file)).expect("read"))
            .output()
            .expect("benchdiff runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
    }
}
