//! Regressions from the fresh-user review of `benchdiff report`: samples that were dropped or
//! put on a guessed side, misleading notes on constant or extreme data, header and NUL
//! handling of compare.js CSV, terminal escape codes in names, and import warnings. Every case
//! runs the real binary on real files.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn oracle(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/oracle")
        .join(rel);
    assert!(p.exists(), "oracle file {} is required", p.display());
    p.to_string_lossy().into_owned()
}

fn benchdiff() -> Command {
    let mut c = Command::cargo_bin("benchdiff").expect("binary built");
    c.env_remove("NO_COLOR");
    c
}

/// Runs `benchdiff report ARGS` in `dir`; returns (exit code, stdout, stderr).
fn report_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = benchdiff()
        .current_dir(dir)
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

fn report(args: &[&str]) -> (i32, String, String) {
    report_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

const CSV_HEADER: &str = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n";

/// A temporary directory holding `files` (name, content).
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        std::fs::write(d.path().join(name), text).expect("write fixture");
    }
    d
}

fn csv(rows: &[(&str, &str, &str, f64)]) -> String {
    let mut s = CSV_HEADER.to_owned();
    for (bin, file, conf, rate) in rows {
        s.push_str(&format!("\"{bin}\",\"{file}\",\"{conf}\",{rate},1\n"));
    }
    s
}

fn some_csv() -> String {
    csv(&[
        ("old", "a.js", "n=1", 100.0),
        ("old", "a.js", "n=1", 101.0),
        ("new", "a.js", "n=1", 110.0),
        ("new", "a.js", "n=1", 111.0),
    ])
}

// ---- item 1: samples dropped or on the wrong side ----

#[test]
fn mixing_compare_csv_with_one_side_files_is_an_error() {
    let d = dir_with(&[("some.csv", &some_csv())]);
    let (code, out, err) = report_in(d.path(), &[&oracle("benchstat/old.txt"), "some.csv"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("cannot mix"), "{err}");
    assert!(err.contains("some.csv") && err.contains("old.txt"), "{err}");
}

#[test]
fn label_with_extra_positional_file_is_an_error() {
    let old = oracle("benchstat/old.txt");
    let new = oracle("benchstat/new.txt");
    let (code, out, err) = report(&[
        "--label",
        &format!("old={old}"),
        "--label",
        &format!("new={new}"),
        &old,
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--label"), "{err}");
    // The labels alone still work.
    let (code, _, err) = report(&[
        "--label",
        &format!("old={old}"),
        "--label",
        &format!("new={new}"),
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn sides_by_a_missing_key_is_an_error() {
    let old = oracle("benchstat/old.txt");
    let (code, _, err) = report(&["--sides-by", "note", &old, &oracle("benchstat/new.txt")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no key note in"), "{err}");
    let (code, _, err) = report(&["--sides-by", "/nokey", &oracle("benchstat/crc-new.txt")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no key /nokey in"), "{err}");
    // A key that exists still splits the file.
    let (code, out, err) = report(&[
        "--sides-by",
        "/poly=IEEE,Castagnoli",
        &oracle("benchstat/crc-new.txt"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("size=15"), "{out}");
}

#[test]
fn sides_by_on_csv_is_an_error() {
    let d = dir_with(&[("const.csv", &some_csv())]);
    let (code, _, err) = report_in(d.path(), &["--sides-by", "note", "const.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Go benchmark format only"), "{err}");
}

#[test]
fn a_single_one_side_file_is_an_error() {
    let (code, out, err) = report(&[&oracle("benchstat/old.txt")]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("no benchmark has samples on both sides"),
        "{err}"
    );
    assert!(err.contains("new: 0 samples"), "{err}");
}

// ---- item 2: constant and extreme data ----

#[test]
fn constant_sides_that_differ_are_exact_in_table_and_note() {
    let d = dir_with(&[(
        "const.csv",
        &csv(&[
            ("old", "a.js", "n=1", 100.0),
            ("old", "a.js", "n=1", 100.0),
            ("new", "a.js", "n=1", 110.0),
            ("new", "a.js", "n=1", 110.0),
        ]),
    )]);
    let (code, out, err) = report_in(d.path(), &["const.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("exact"), "{out}");
    assert!(!out.contains("0.0e0"), "{out}");
    assert!(
        err.contains("both sides are constant and differ: the difference is exact"),
        "{err}"
    );
    assert!(!err.contains("confidence shown as NA"), "{err}");
    // compare.R's layout keeps its NA confidence, and says so.
    let (_, _, err) = report_in(d.path(), &["--format", "r", "const.csv"]);
    assert!(err.contains("confidence shown as NA"), "{err}");
}

#[test]
fn negligible_standard_error_is_not_called_zero_variance() {
    let d = dir_with(&[(
        "huge.csv",
        &csv(&[
            ("old", "a.js", "n=1", 1e308),
            ("old", "a.js", "n=1", 1e308),
            ("new", "a.js", "n=1", 1.0),
            ("new", "a.js", "n=1", 2.0),
        ]),
    )]);
    let (code, _, err) = report_in(d.path(), &["huge.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("zero variance"), "{err}");
    assert!(
        err.contains("standard error is negligible against the means"),
        "{err}"
    );
    // benchstat's view writes 1e308 with an exponent, not 309 digits.
    let (code, out, err) = report_in(d.path(), &["--format", "benchstat", "huge.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1.000e308"), "{out}");
    assert!(!out.contains("10000000000000000"), "{out}");
}

#[test]
fn negative_rates_warn_and_analyze_prints_absolute_accuracy() {
    let d = dir_with(&[(
        "neg.csv",
        &csv(&[
            ("old", "a.js", "n=1", -100.0),
            ("old", "a.js", "n=1", -101.0),
            ("old", "a.js", "n=1", -103.0),
            ("new", "a.js", "n=1", -110.0),
            ("new", "a.js", "n=1", -111.0),
            ("new", "a.js", "n=1", -115.0),
        ]),
    )]);
    let (code, out, err) = report_in(d.path(), &["--format", "analyze", "neg.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("±-"), "{out}");
    // Zero is a legitimate value (issue 14: B/op, allocs/op); negative values still warn.
    assert_eq!(err.matches("values < 0").count(), 1, "{err}");
    let (_, out, _) = report_in(d.path(), &["neg.csv"]);
    assert!(
        out.contains("0 faster, 0 slower, 0 no change, 1 inconclusive"),
        "{out}"
    );
}

// ---- item 3: compare.js CSV headers and NUL bytes (end to end) ----

#[test]
fn csv_header_problems_name_the_line() {
    let d = dir_with(&[
        (
            "twice.csv",
            "binary,filename,binary,configuration,rate\nold,a.js,old,,1\n",
        ),
        (
            "reordered.csv",
            "binary,filename,configuration,rate,time\nold,a.js,n=1,10,1\nold,a.js,n=1,11,1\n\
             rate,time,binary,filename,configuration\n12,1,new,a.js,n=1\n13,1,new,a.js,n=1\n",
        ),
        (
            "nul.csv",
            "binary,filename,configuration,rate\nold,a\0.js,,1\n",
        ),
    ]);
    let (code, _, err) = report_in(d.path(), &["twice.csv"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("twice.csv:1: the header names column \"binary\" twice"),
        "{err}"
    );
    let (code, out, err) = report_in(d.path(), &["reordered.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2/2"), "{out}");
    let (code, _, err) = report_in(d.path(), &["nul.csv"]);
    assert_eq!(code, 2);
    assert!(err.contains("nul.csv:2: column 6: a NUL byte"), "{err}");
}

// ---- item 4: terminal escape codes in names ----

#[test]
fn control_characters_in_names_are_escaped_in_text_reports() {
    let name = "a\u{1b}[31m\u{9b}.js";
    let rows: Vec<(&str, &str, &str, f64)> = [100.0, 101.0, 103.0]
        .iter()
        .map(|r| ("old", name, "n=1", *r))
        .chain(
            [110.0, 111.0, 115.0]
                .iter()
                .map(|r| ("new", name, "n=1", *r)),
        )
        .collect();
    let d = dir_with(&[("esc.csv", &csv(&rows))]);
    for format in ["table", "analyze", "markdown", "benchstat"] {
        let (code, out, err) = report_in(d.path(), &["--format", format, "esc.csv"]);
        assert_eq!(code, 0, "{format}: {err}");
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{9b}'),
            "{format}: raw control character in {out:?}"
        );
        assert!(out.contains("\\x1b"), "{format}: {out}");
    }
    // A Go file named with an escape code: the benchstat column header is escaped too.
    let go = "BenchmarkX 1 10 ns/op\nBenchmarkX 1 11 ns/op\n";
    let go2 = "BenchmarkX 1 12 ns/op\nBenchmarkX 1 13 ns/op\n";
    let d = dir_with(&[("o\u{1b}[2J.txt", go), ("n.txt", go2)]);
    let (code, out, err) = report_in(
        d.path(),
        &["--format", "benchstat", "o\u{1b}[2J.txt", "n.txt"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(out.contains("o\\x1b[2J.txt"), "{out}");
}

// ---- item 5: imports ----

#[test]
fn failed_criterion_run_warns_naming_the_line() {
    let failed = oracle("harness-outputs/rust__criterion__failed.txt");
    let (code, _, err) = report(&[&failed, &failed]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "rust__criterion__failed.txt:60: the benchmark run failed (thread 'main' panicked"
        ),
        "{err}"
    );
    assert!(err.contains("rust__criterion__failed.txt:62:"), "{err}");
}

#[test]
fn one_sample_per_side_gets_a_note() {
    let g = oracle("harness-outputs/cpp__google__two.txt");
    let (code, out, err) = report(&[&g, &g]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("2 comparisons have one sample on a side") && out.contains("n=1"),
        "{out}"
    );
}

#[test]
fn si_prefixes_cover_small_values() {
    use benchdiff::render::table::si;
    assert_eq!(si(2.15e-7), "215n");
    // No milli prefix (issue 15): "4.56m" beside "1.80M" is easily misread.
    assert_eq!(si(4.56e-3), "0.00456");
    assert_eq!(si(27.46e-6), "27.5µ");
    assert_eq!(si(1.8e6), "1.80M");
    assert_eq!(si(0.0), "0.00");
    assert_eq!(si(3e-12), "3.00p");
}

#[test]
fn a_file_with_no_samples_is_named() {
    let d = dir_with(&[("const.csv", &some_csv())]);
    let (code, _, err) = report_in(d.path(), &["--input-format", "go", "const.csv"]);
    assert_eq!(code, 2);
    assert!(err.contains("const.csv: no samples"), "{err}");
}

#[test]
fn report_help_names_every_format() {
    let out = benchdiff()
        .args(["report", "--help"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.contains("every supported format")),
        "{text}"
    );
}
