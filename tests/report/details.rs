//! Issue 15, details that mislead (points 5, 6, 7): names without a trailing space, metrics
//! offered exactly as present, `--details` without NaN, the gate citing the right end of the
//! interval, singular counts, no milli prefix, input-specific hints and run sections.

use std::path::Path;
use std::process::Output;

fn go_file(dir: &Path, name: &str, ns: &[u32], mbs: &[f64]) -> String {
    let mut s = String::from("goos: linux\ngoarch: amd64\npkg: example.com/x\ncpu: Test CPU\n");
    for (n, m) in ns.iter().zip(mbs) {
        s.push_str(&format!(
            "BenchmarkDecode/large-8   \t 1000\t  {n} ns/op\t {m:.2} MB/s\n"
        ));
    }
    s.push_str("BenchmarkDecode/tiny-8   \t 1000\t  7 ns/op\t 1.00 MB/s\n");
    let p = dir.join(name);
    std::fs::write(&p, s).unwrap();
    p.display().to_string()
}

/// Old and new Go results: Decode/large-8 about 8% slower in the new file (5 samples each),
/// Decode/tiny-8 one sample a side.
fn inputs(dir: &Path) -> (String, String) {
    (
        go_file(
            dir,
            "old.txt",
            &[1200, 1210, 1190, 1205, 1195],
            &[500.0, 498.0, 503.0, 499.0, 501.0],
        ),
        go_file(
            dir,
            "new.txt",
            &[1300, 1305, 1295, 1310, 1290],
            &[460.0, 461.0, 459.0, 462.0, 458.0],
        ),
    )
}

fn benchdiff(args: &[&str]) -> Output {
    assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .env("COLUMNS", "200")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn names_of_inputs_without_configuration_have_no_trailing_space() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = inputs(dir.path());
    let j = out(&benchdiff(&["report", &old, &new, "--format", "json"]));
    assert!(j.contains("\"name\": \"Decode/large-8\""), "{j}");
    assert!(!j.contains("large-8 \""), "{j}");
    let t = benchdiff(&["report", &old, &new]);
    assert!(!format!("{}{}", out(&t), err(&t)).contains("tiny-8 :"));
}

#[test]
fn metric_choice_offers_exactly_the_metrics_present() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = inputs(dir.path());
    let r = benchdiff(&["report", &old, &new, "--metric", "rate"]);
    assert_eq!(r.status.code(), Some(2), "{}", out(&r));
    assert!(
        err(&r).contains("--metric rate: no such metric (these samples have: sec/op, B/s)"),
        "{}",
        err(&r)
    );
    let m = benchdiff(&["report", &old, &new, "--metric", "MB/s"]);
    assert!(m.status.success(), "{}", err(&m));
    assert!(out(&m).contains("metric: B/s"), "{}", out(&m));
    assert!(out(&m).contains("Decode/large-8"), "{}", out(&m));
}

#[test]
fn gate_on_a_lower_is_better_metric_cites_the_lower_end() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = inputs(dir.path());
    let g = benchdiff(&[
        "report",
        &old,
        &new,
        "--metric",
        "sec/op",
        "--max-regression",
        "2",
    ]);
    assert_eq!(g.status.code(), Some(1), "{}{}", out(&g), err(&g));
    let line = err(&g)
        .lines()
        .find(|l| l.contains("Decode/large-8"))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("{}", err(&g)));
    assert!(line.contains("(95% CI from +"), "{line}");
}

#[test]
fn details_say_n_a_instead_of_nan_and_hints_fit_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = inputs(dir.path());
    let d = out(&benchdiff(&["report", &old, &new, "--details"]));
    assert!(!d.contains("NaN"), "{d}");
    assert!(d.contains("CV n/a (needs 2 samples)"), "{d}");
    assert!(d.contains("go test -count"), "Go hint: {d}");
    assert!(
        !d.contains("benchmark_repetitions"),
        "no Google Benchmark hint: {d}"
    );
    assert!(d.contains("\n2 comparisons: "), "{d}");
}

#[test]
fn one_comparison_is_singular() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/results/node-timeout.jsonl"
    );
    let t = out(&benchdiff(&["report", p]));
    assert!(t.contains("\n1 comparison: "), "{t}");
}

#[test]
fn run_section_says_what_go_input_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = inputs(dir.path());
    let md = out(&benchdiff(&["report", &old, &new, "--format", "markdown"]));
    assert!(
        md.contains("- samples: read from old.txt, new.txt — Go benchmark text"),
        "{md}"
    );
    assert!(!md.contains("read from result files (binaries"), "{md}");
}

#[test]
fn results_file_run_section_gives_its_plan() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/results/node-timeout.jsonl"
    );
    let md = out(&benchdiff(&["report", p, "--format", "markdown"]));
    assert!(md.contains("- old: ./bin/node-old ("), "{md}");
    assert!(md.contains("- runs: 2 per binary, 2 files"), "{md}");
    assert!(md.contains("- order: random, seed 7"), "{md}");
}

#[test]
fn no_milli_prefix() {
    use benchdiff::render::table::si;
    assert_eq!(si(0.573), "0.573");
    assert_eq!(si(0.0573), "0.0573");
    assert_eq!(si(1.5e6), "1.50M");
}

#[test]
fn box_plot_draws_outliers() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for (i, v) in [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 250.0]
        .iter()
        .enumerate()
    {
        csv.push_str(&format!("\"old\",\"a/b.js\",\"n={}\",{v},0.1\n", 1));
        csv.push_str(&format!(
            "\"new\",\"a/b.js\",\"n=1\",{},0.1\n",
            100.0 + (i as f64) * 0.3
        ));
    }
    let input = dir.path().join("in.csv");
    std::fs::write(&input, csv).unwrap();
    let svg = dir.path().join("p.svg");
    let r = benchdiff(&[
        "report",
        input.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", err(&r));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        text.matches("<circle").count(),
        1,
        "one outlier (250) drawn"
    );
}

#[test]
fn go_output_keeps_the_configuration_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = inputs(dir.path());
    let g = out(&benchdiff(&["report", &old, &new, "--format", "go"]));
    for l in [
        "goos: linux",
        "goarch: amd64",
        "pkg: example.com/x",
        "cpu: Test CPU",
    ] {
        assert!(g.lines().any(|x| x == l), "{l} in\n{g}");
    }
}

#[test]
fn html_with_correction_none_has_one_p_column() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = inputs(dir.path());
    let h = out(&benchdiff(&[
        "report",
        &old,
        &new,
        "--format",
        "html",
        "--correction",
        "none",
    ]));
    assert!(!h.contains("p (none)"), "redundant column");
    assert!(h.contains("<th>p</th><th>verdict</th>"), "{h}");
}

/// Two rounds of a rate whose new side is very spread: Fieller's interval of the ratio of
/// means reaches below zero, so the interval is taken on the log-ratio scale and stays above
/// −100 % (a rate cannot fall below zero).
#[test]
fn rate_interval_with_two_rounds_stays_above_minus_100_percent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("two.csv");
    std::fs::write(
        &csv,
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\
         \"old\",\"a/b.js\",\"n=1\",100,1\n\"new\",\"a/b.js\",\"n=1\",50,1\n\
         \"old\",\"a/b.js\",\"n=1\",101,1\n\"new\",\"a/b.js\",\"n=1\",400,1\n",
    )
    .expect("write");
    let o = benchdiff(&["report", "--format", "json", csv.to_str().expect("path")]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).expect("JSON");
    let c = &v["comparisons"][0];
    let lo = c["change_ci_pct"]["lower"]
        .as_f64()
        .unwrap_or_else(|| panic!("no interval in {c}"));
    assert!(lo > -100.0, "lower bound {lo} in {c}");
}
