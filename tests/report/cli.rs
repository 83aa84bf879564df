//! `benchdiff report` end to end: the compare.R oracle files byte for byte, several inputs
//! pooled, the legacy CSV form, stdin, and bad input (file:line errors, exit code 2).

use assert_cmd::Command;
use predicates::prelude::*;

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/oracle/node-compare-r"
);

fn oracle(name: &str) -> String {
    let p = format!("{ORACLE}/{name}");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("oracle file {p} is required: {e}"))
}

fn benchdiff() -> Command {
    let mut c = Command::cargo_bin("benchdiff").expect("binary built");
    c.env_remove("NO_COLOR");
    c
}

fn report_r(args: &[&str]) -> String {
    let out = benchdiff()
        .arg("report")
        .arg("--format")
        .arg("r")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn oracle_files_byte_for_byte() {
    for name in ["confidence", "http", "path-dirname-posix", "insufficient"] {
        let got = report_r(&[&format!("{ORACLE}/{name}.csv")]);
        let want = oracle(&format!("{name}.expected.txt"));
        assert!(
            got == want,
            "{name}: output differs from compare.R\n--- got\n{got}\n--- want\n{want}"
        );
    }
}

#[test]
fn stdin_and_dash_read_the_same() {
    let want = oracle("confidence.expected.txt");
    let out = benchdiff()
        .args(["report", "--format", "r"])
        .write_stdin(oracle("confidence.csv"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    let out = benchdiff()
        .args(["report", "--format", "r", "-"])
        .write_stdin(oracle("confidence.csv"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
}

#[test]
fn pooled_inputs_equal_concatenation() {
    // Node's CI concatenates CSVs; `cat` keeps every header, awk drops all but the first.
    let a = oracle("confidence.csv");
    let b = oracle("path-dirname-posix.csv");
    let separate = report_r(&[
        &format!("{ORACLE}/confidence.csv"),
        &format!("{ORACLE}/path-dirname-posix.csv"),
    ]);
    let cat = benchdiff()
        .args(["report", "--format", "r"])
        .write_stdin(format!("{a}{b}"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(cat.stdout).unwrap(), separate);
    let b_body: String = b.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let awk = benchdiff()
        .args(["report", "--format", "r"])
        .write_stdin(format!("{a}{b_body}"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(awk.stdout).unwrap(), separate);
    assert!(separate.contains("there are 10 comparisons"));
}

#[test]
fn legacy_separator_form_reads_the_same() {
    let legacy: String = oracle("confidence.csv")
        .lines()
        .map(|l| {
            // "old","f.js","conf",1.5,0.1  ->  "old", "f.js", "conf", 1.5, 0.1
            let mut out = String::new();
            let mut in_q = false;
            for c in l.chars() {
                if c == '"' {
                    in_q = !in_q;
                }
                out.push(c);
                if c == ',' && !in_q {
                    out.push(' ');
                }
            }
            out + "\n"
        })
        .collect();
    assert!(legacy.starts_with("\"binary\", \"filename\", "));
    let out = benchdiff()
        .args(["report", "--format", "r"])
        .write_stdin(legacy)
        .output()
        .unwrap();
    // No R oracle of the legacy form exists: the expected text is derived from the spec
    // (§1.5) and R's scanner (`read.csv` keeps the space before an opening quote in a text
    // field): filename ` f.js` and configuration ` conf` make the row name ` f.js  conf`, two
    // characters longer than in the current form, so every row gains a leading space and a
    // second space after the file name, and the header line two spaces of padding; the
    // numbers are those of the current form.
    let expected: String = oracle("confidence.expected.txt")
        .split_inclusive('\n')
        .map(|l| {
            if l.starts_with(' ') && l.contains("confidence") {
                format!("  {l}")
            } else if let Some((file, rest)) = l.split_once(' ')
                && file.ends_with(".js")
            {
                format!(" {file}  {rest}")
            } else {
                l.to_owned()
            }
        })
        .collect();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn complex_csv_names_its_bad_lines() {
    benchdiff()
        .args(["report", &format!("{ORACLE}/complex.csv")])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "complex.csv:2: column 30: text after a closing quote",
        ))
        .stderr(predicate::str::contains("complex.csv:3: column 30:"));
}

#[test]
fn bad_input_is_a_clear_error_with_exit_2() {
    let cases: &[(&str, &str)] = &[
        (
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\"base\",\"a.js\",\"n=1\",1,1\n",
            "<stdin>:2: unknown binary label 'base'",
        ),
        (
            "\"binary\",\"filename\",\"rate\",\"time\"\n",
            "<stdin>:1: not a compare.js CSV header: missing column(s) \"configuration\"",
        ),
        (
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\"old\",\"a.js\",\"n=1\",1.2.3,1\n",
            "<stdin>:2: rate '1.2.3' is not a number",
        ),
        ("", "<stdin>: empty input"),
        (
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n",
            "no samples",
        ),
    ];
    for (input, msg) in cases {
        benchdiff()
            .arg("report")
            .write_stdin(*input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*msg));
    }
    benchdiff()
        .args(["report", "/nonexistent/x.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/nonexistent/x.csv: No such file"));
}

#[test]
fn constant_rows_do_not_abort_the_report() {
    let csv = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\
               \"old\",\"a.js\",\"n=1\",5,1\n\"old\",\"a.js\",\"n=1\",5,1\n\
               \"new\",\"a.js\",\"n=1\",5,1\n\"new\",\"a.js\",\"n=1\",5,1\n\
               \"old\",\"b.js\",\"n=1\",5,1\n\"old\",\"b.js\",\"n=1\",6,1\n\
               \"new\",\"b.js\",\"n=1\",7,1\n\"new\",\"b.js\",\"n=1\",8,1\n";
    let out = benchdiff()
        .args(["report", "--format", "r"])
        .write_stdin(csv)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stdout.contains("a.js n=1         NA      0.00 %       ±0.00%"),
        "{stdout}"
    );
    assert!(stdout.contains("b.js n=1"), "{stdout}");
    assert!(
        stderr.contains("a.js n=1: both sides are constant and equal: no change"),
        "{stderr}"
    );
}

#[test]
fn non_finite_rates_are_read_as_r_reads_them() {
    let csv = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\
               \"old\",\"a.js\",\"\",Infinity,1\n\"old\",\"a.js\",\"\",1,1\n\
               \"new\",\"a.js\",\"\",NaN,1\n\"new\",\"a.js\",\"\",2,1\n";
    let out = benchdiff()
        .args(["report", "--format", "r"])
        .write_stdin(csv)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("a.js          NA       NaN %           NA   NA    NA"),
        "{stdout}"
    );
}

#[test]
fn table_format_has_no_colour_off_a_terminal() {
    let out = benchdiff()
        .args(["report", &format!("{ORACLE}/confidence.csv")])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(!s.contains('\x1b'));
    assert!(s.contains("util/format.js type='string-2' n=100000"));
    assert!(s.contains("+14.02%"), "{s}");
    assert!(s.contains("30/30 paired"), "{s}");
    assert!(s.contains("3 comparisons: "), "{s}");
    assert!(
        s.contains("(Holm correction, alpha 0.05, threshold ±1%)"),
        "{s}"
    );
}

/// Wide tables wrap into column blocks exactly where R's printMatrix wraps them
/// (fixtures made with R 4.2.2, see tests/data/compare-r/README.md).
#[test]
fn wide_tables_wrap_like_r() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compare-r");
    for n in [149, 150, 190, 210] {
        let got = report_r(&[&format!("{dir}/wrap-{n}.csv")]);
        let want = std::fs::read_to_string(format!("{dir}/wrap-{n}.expected.txt")).unwrap();
        assert!(got == want, "wrap-{n}\n--- got\n{got}\n--- want\n{want}");
    }
}

/// The built-in example (Node 22.11.0 vs 24.11.0 on Node's own process/ and timers/
/// benchmarks, 6 runs) reports exactly as compare.R did on it.
#[test]
fn built_in_example_matches_r() {
    let root = env!("CARGO_MANIFEST_DIR");
    let got = report_r(&[&format!("{root}/examples/node-22-vs-24.csv")]);
    let want = std::fs::read_to_string(format!(
        "{root}/tests/data/compare-r/node-22-vs-24.expected.txt"
    ))
    .unwrap();
    assert_eq!(got, want);
}

/// A benchmark name with a line break (a command benchmark's `--name`) goes into `--csv` as
/// one quoted field (RFC 4180) that `report` and `history add` read back, and no text output
/// prints the line break raw (a name cannot fake report lines).
#[test]
fn a_name_with_a_line_break_is_quoted_in_the_csv_read_back_and_escaped() {
    let d = tempfile::tempdir().expect("tempdir");
    let name = "evil\nFAKE: 1 faster";
    let run = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .current_dir(d.path())
        .env("NO_COLOR", "1")
        .args([
            "compare",
            "--old",
            "/bin/true",
            "--new",
            "/bin/true",
            "--bench",
            "",
            "--name",
            name,
            "--runs",
            "2",
            "--csv",
            "a.csv",
        ])
        .output()
        .expect("compare runs");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let csv = std::fs::read_to_string(d.path().join("a.csv")).expect("csv");
    assert!(csv.contains("\"evil\nFAKE: 1 faster\""), "{csv}");
    let faked = |text: &str| text.lines().any(|l| l.starts_with("FAKE"));
    for format in ["table", "r", "markdown", "analyze"] {
        let o = benchdiff()
            .current_dir(d.path())
            .args(["report", "a.csv", "--format", format])
            .output()
            .expect("report runs");
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        );
        assert_eq!(o.status.code(), Some(0), "--format {format}: {err}");
        assert!(out.contains("evil"), "--format {format}: {out}");
        assert!(
            !faked(&out) && !faked(&err),
            "--format {format}: {out}{err}"
        );
    }
    let db = d.path().join("h.db");
    let db = db.to_str().expect("utf-8");
    let add = benchdiff()
        .args([
            "history",
            "add",
            "--commit",
            "aaaa",
            "--date",
            "2024-01-01T00:00:00Z",
        ])
        .arg(d.path().join("a.csv"))
        .args(["--db", db])
        .output()
        .expect("history add runs");
    assert!(
        add.status.success(),
        "{}",
        String::from_utf8_lossy(&add.stderr)
    );
    for args in [&["show", "--commits"][..], &["check"][..]] {
        let o = benchdiff()
            .arg("history")
            .args(args)
            .args(["--db", db])
            .output()
            .expect("history runs");
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            args[0] == "check" || out.contains("evil"),
            "{args:?}: {out}"
        );
        assert!(!faked(&out), "{args:?}: {out}");
    }
}

/// `compare … --csv` of command benchmarks writes benchdiff's own CSV: a name a spreadsheet
/// would run as a formula (OWASP: a text cell starting with `=`, `+`, `-`, `@`, a tab or a
/// carriage return) gets a leading `'`; a name that is a plain number (`-1.5`) and the
/// number cells stay as they are.
#[test]
fn a_formula_name_is_neutralised_in_the_csv_of_a_command_run() {
    let d = tempfile::tempdir().expect("tempdir");
    let formula = r#"=HYPERLINK("http://evil.example/?x","click")"#;
    for (name, file) in [(formula, "f.csv"), ("-1.5", "n.csv"), ("@x", "at.csv")] {
        let run = Command::cargo_bin("benchdiff")
            .expect("binary built")
            .current_dir(d.path())
            .env("NO_COLOR", "1")
            .args([
                "compare",
                "--old",
                "/bin/true",
                "--new",
                "/bin/true",
                "--bench",
                "",
                &format!("--name={name}"),
                "--runs",
                "2",
                "--csv",
                file,
            ])
            .output()
            .expect("compare runs");
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let read = |f: &str| std::fs::read_to_string(d.path().join(f)).expect("csv");
    let csv = read("f.csv");
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{csv}");
    for row in &rows {
        assert!(
            row.starts_with(r#""old","'=HYPERLINK(""http://evil.example/?x"",""click"")","","#)
                || row.starts_with(
                    r#""new","'=HYPERLINK(""http://evil.example/?x"",""click"")","","#
                ),
            "{csv}"
        );
        // The rate and time are numbers, unquoted.
        let numbers: Vec<&str> = row.rsplitn(3, ',').take(2).collect();
        assert!(numbers.iter().all(|n| n.parse::<f64>().is_ok()), "{row}");
    }
    assert!(
        read("n.csv").contains("\n\"old\",\"-1.5\",\"\","),
        "{}",
        read("n.csv")
    );
    assert!(
        read("at.csv").contains("\n\"old\",\"'@x\",\"\","),
        "{}",
        read("at.csv")
    );
}

/// `report --format csv` writes compare.js's CSV for compare.R: names as they are (the
/// input comes back byte for byte), with one warning on stderr when a name would be a
/// formula in a spreadsheet, however many there are.
#[test]
fn report_format_csv_keeps_a_formula_name_and_warns_once() {
    let d = tempfile::tempdir().expect("tempdir");
    let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for (side, file, conf, rate) in [
        (
            "old",
            r#"=HYPERLINK(""http://evil.example/?x"",""click"")"#,
            "n=1",
            10,
        ),
        (
            "old",
            r#"=HYPERLINK(""http://evil.example/?x"",""click"")"#,
            "n=1",
            11,
        ),
        (
            "new",
            r#"=HYPERLINK(""http://evil.example/?x"",""click"")"#,
            "n=1",
            12,
        ),
        (
            "new",
            r#"=HYPERLINK(""http://evil.example/?x"",""click"")"#,
            "n=1",
            13,
        ),
        ("old", "a.js", "+cmd|' /C calc'!A0", 10),
        ("new", "a.js", "+cmd|' /C calc'!A0", 12),
        ("old", "b.js", "-1.5", 10),
        ("new", "b.js", "-1.5", 12),
    ] {
        csv.push_str(&format!(
            "\"{side}\",\"{file}\",\"{conf}\",{rate},0.100000000\n"
        ));
    }
    std::fs::write(d.path().join("in.csv"), &csv).expect("write");
    let o = benchdiff()
        .current_dir(d.path())
        .args(["report", "in.csv", "--format", "csv"])
        .output()
        .expect("report runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), csv);
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(
        err.contains("--format csv is compare.js's CSV")
            && err.contains(r#""=HYPERLINK(\"http://evil.example/?x\",\"click\")""#)
            && err.contains("may run as a formula"),
        "{err}"
    );
    // Names that start as no formula does (a plain number among them): no warning.
    let plain: String = csv
        .lines()
        .filter(|l| !l.contains("HYPERLINK") && !l.contains("cmd|"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(d.path().join("plain.csv"), &plain).expect("write");
    let o = benchdiff()
        .current_dir(d.path())
        .args(["report", "plain.csv", "--format", "csv"])
        .output()
        .expect("report runs");
    assert_eq!(String::from_utf8_lossy(&o.stdout), plain);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("formula"));
}

/// A report that cannot be written to standard output says so, and exits 2.
#[test]
fn a_full_standard_output_is_named() {
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .args(["report", &format!("{ORACLE}/http.csv")])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("benchdiff: standard output: No space left on device"),
        "{stderr}"
    );
}
