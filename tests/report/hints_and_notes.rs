//! The single-sample hint fits the harness that wrote the input (not the metric's name), and
//! the benchstat view notes a row whose sides fall into two regimes, as the table does.

use assert_cmd::Command;
use std::fmt::Write as _;

/// Runs `benchdiff report ARGS` in `dir`; returns (exit code, stdout, stderr).
fn report_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
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

/// The table of two files `old` and `new` (names with the format's extension) with one
/// sample a side.
fn single(ext: &str, old: &str, new: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let (o, n) = (format!("old.{ext}"), format!("new.{ext}"));
    std::fs::write(dir.path().join(&o), old).expect("write");
    std::fs::write(dir.path().join(&n), new).expect("write");
    let (code, out, err) = report_in(dir.path(), &[&o, &n]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("one sample on a side"), "{out}");
    out
}

#[test]
fn the_single_sample_hint_names_the_harness_of_the_input() {
    let go = |ns: u32| format!("BenchmarkX-8   1000   {ns} ns/op\n");
    let out = single("txt", &go(100), &go(110));
    assert!(out.contains("go test -count 10"), "{out}");

    let hf = |t: f64| format!("{{\"results\": [{{\"command\": \"x\", \"times\": [{t}]}}]}}");
    let out = single("json", &hf(0.1), &hf(0.2));
    assert!(out.contains("hyperfine --runs N"), "{out}");
    assert!(!out.contains("go test"), "{out}");

    let libtest = |ns: u32| format!("test parse ... bench:       {ns} ns/iter (+/- 5)\n");
    let out = single("txt", &libtest(1234), &libtest(1300));
    assert!(out.contains("run cargo bench several times"), "{out}");
    assert!(!out.contains("go test"), "{out}");

    let csv = |r: u32| {
        format!(
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\"old\",\"a.js\",\"n=1\",{r},1\n\"new\",\"a.js\",\"n=1\",{},1\n",
            r + 50
        )
    };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("r.csv"), csv(1000)).expect("write");
    let (code, out, err) = report_in(dir.path(), &["r.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("compare.js --runs N"), "{out}");
}

/// An A/A comparison whose sides both fall into two regimes (14 of 20 runs near 100 ns, the
/// others near 176 ns; 6 and 14 on the other side): the medians land in different regimes, a
/// "significant" change of about +76% (issue's `+75.97% (p=0.050 n=20)`) with no real
/// change. benchstat's view notes it.
#[test]
fn the_benchstat_view_notes_two_regimes() {
    let side = |low: usize| {
        let mut s = String::new();
        for i in 0..20 {
            let centre = if i < low { 100.0 } else { 176.0 };
            let v = centre * (1.0 + ((i as f64 * 0.618_033_988_75).fract() - 0.5) * 0.01);
            let _ = writeln!(s, "BenchmarkAA-8   1000   {v:.2} ns/op");
        }
        s
    };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("a.txt"), side(14)).expect("write");
    std::fs::write(dir.path().join("b.txt"), side(6)).expect("write");
    let (code, table, err) = report_in(dir.path(), &["a.txt", "b.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("2 regimes"), "{table}");
    let (code, out, err) = report_in(dir.path(), &["--format", "benchstat", "a.txt", "b.txt"]);
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("AA-8")).expect("row");
    assert!(row.trim_end().ends_with('¹'), "{out}");
    assert!(
        out.contains("¹ both sides' samples fall into 2 regimes"),
        "{out}"
    );
}
