//! Issue 14, kind 7: every export keeps the metric's direction. For each export format
//! (`csv`, `go`, `r`, `analyze`) and both directions (lower is better: Go's `sec/op`; higher
//! is better: Go's `B/s` and Node's rate), the samples are exported, read back, and must give
//! the same verdicts; a lower-is-better metric that is not a time is refused by the rate
//! formats (`csv`, `r`, `analyze`) and kept by `go`.

use std::path::Path;
use std::process::Command;

/// Runs `benchdiff ARGS` in `dir`: (exit code, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("benchdiff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Go output of one side: `Fast` takes `fast` ns/op, `Slow` `slow` ns/op (12 samples each with
/// ±0.5 % deterministic jitter), each with a throughput in MB/s (the reciprocal scaled) and a
/// constant B/op that differs between sides.
fn go_side(fast: f64, slow: f64, bop: u32) -> String {
    let mut s = String::from("goos: linux\ngoarch: amd64\n");
    for i in 0..12 {
        let j = 1.0 + ((i * 7 % 11) as f64 - 5.0) / 1000.0;
        for (name, ns) in [("Fast", fast), ("Slow", slow)] {
            let v = ns * j;
            s.push_str(&format!(
                "Benchmark{name}-8 \t 1000\t {v:.2} ns/op\t {:.3} MB/s\t {bop} B/op\n",
                1000.0 / v
            ));
        }
    }
    s
}

/// The verdict word of the row of benchmark `name` in the default table.
fn verdict(table: &str, name: &str) -> &'static str {
    let row = table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"));
    for v in ["faster", "slower", "no change", "inconclusive"] {
        if row.contains(v) {
            return v;
        }
    }
    panic!("no verdict in {row}")
}

/// The improvement (percent) of row `name` in compare.R's or `--analyze`'s table.
fn improvement(report: &str, name: &str) -> f64 {
    let row = report
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no row {name} in\n{report}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    let i = cells.iter().position(|c| *c == "%").expect("a % cell") - 1;
    cells[i].parse().expect("a number")
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    // New: Fast 10 % quicker (1000 → 900 ns), Slow 10 % slower (1000 → 1100 ns).
    std::fs::write(dir.path().join("old.txt"), go_side(1000.0, 1000.0, 64)).unwrap();
    std::fs::write(dir.path().join("new.txt"), go_side(900.0, 1100.0, 48)).unwrap();
    dir
}

/// Lower is better (sec/op) and higher is better (B/s) through `--format csv`: the rate
/// column holds operations per second, so read back a speed-up is still "faster".
#[test]
fn csv_round_trip_keeps_both_directions() {
    let dir = setup();
    let d = dir.path();
    for metric in ["sec/op", "B/s"] {
        let (_, direct, _) = run(d, &["report", "--metric", metric, "old.txt", "new.txt"]);
        assert_eq!(verdict(&direct, "Fast-8"), "faster", "{metric}: {direct}");
        assert_eq!(verdict(&direct, "Slow-8"), "slower", "{metric}: {direct}");
        let (code, csv, err) = run(
            d,
            &[
                "report", "--format", "csv", "--metric", metric, "old.txt", "new.txt",
            ],
        );
        assert_eq!(code, 0, "{err}");
        if metric == "sec/op" {
            assert!(
                err.contains("converted to a rate, ops/s = 1 / (sec/op)"),
                "{err}"
            );
            // 1/(1000 ns) = 1e6 ops/s, not 1e-6.
            let first: f64 = csv
                .lines()
                .nth(1)
                .unwrap()
                .split(',')
                .nth(3)
                .unwrap()
                .parse()
                .unwrap();
            assert!((first - 1e6).abs() < 0.01e6, "{first}");
        }
        std::fs::write(d.join("back.csv"), &csv).unwrap();
        let (code, back, err) = run(d, &["report", "back.csv"]);
        assert_eq!(code, 0, "{err}");
        for name in ["Fast-8", "Slow-8"] {
            assert_eq!(
                verdict(&back, name),
                verdict(&direct, name),
                "{metric} {name}: {back}"
            );
        }
    }
}

/// Both directions through `--format go`: `Unit … better=` lines carry the direction, so
/// every metric reads back with the same verdicts, B/op (lower, not a time) included.
#[test]
fn go_round_trip_keeps_both_directions() {
    let dir = setup();
    let d = dir.path();
    let (code, go, err) = run(d, &["report", "--format", "go", "old.txt", "new.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        go.contains("Unit B/s better=higher") && go.contains("Unit sec/op better=lower"),
        "{go}"
    );
    std::fs::write(d.join("back.txt"), &go).unwrap();
    for metric in ["sec/op", "B/s", "B/op"] {
        let (_, direct, _) = run(d, &["report", "--metric", metric, "old.txt", "new.txt"]);
        let (code, back, err) = run(d, &["report", "--metric", metric, "back.txt"]);
        assert_eq!(code, 0, "{metric}: {err}");
        for name in ["Fast-8", "Slow-8"] {
            assert_eq!(
                verdict(&back, name),
                verdict(&direct, name),
                "{metric} {name}: {back}"
            );
        }
    }
}

/// `--format r` and `--format analyze` print a speed-up as a positive improvement in both
/// directions, and print the same as on the exported CSV read back (what compare.R would
/// print on it).
#[test]
fn r_and_analyze_keep_both_directions() {
    let dir = setup();
    let d = dir.path();
    for metric in ["sec/op", "B/s"] {
        let (_, csv, _) = run(
            d,
            &[
                "report", "--format", "csv", "--metric", metric, "old.txt", "new.txt",
            ],
        );
        std::fs::write(d.join("back.csv"), &csv).unwrap();
        for format in ["r", "analyze"] {
            let (code, direct, err) = run(
                d,
                &[
                    "report", "--format", format, "--metric", metric, "old.txt", "new.txt",
                ],
            );
            assert_eq!(code, 0, "{format} {metric}: {err}");
            let fast = improvement(&direct, "Fast-8");
            let slow = improvement(&direct, "Slow-8");
            assert!(fast > 5.0 && slow < -5.0, "{format} {metric}: {direct}");
            if metric == "sec/op" {
                // Rates of 1/0.9 and 1/1.1 of the old: +11.11 % and −9.09 %.
                assert!(
                    (fast - 11.11).abs() < 0.2 && (slow + 9.09).abs() < 0.2,
                    "{direct}"
                );
                assert!(err.contains(&format!("--format {format}: sec/op")), "{err}");
            }
            let (_, back, _) = run(d, &["report", "--format", format, "back.csv"]);
            assert_eq!(improvement(&back, "Fast-8"), fast, "{format} {metric}");
            assert_eq!(improvement(&back, "Slow-8"), slow, "{format} {metric}");
        }
    }
}

/// A lower-is-better metric that is not a time has no rate: the rate formats refuse it.
#[test]
fn rate_formats_refuse_lower_is_better_costs() {
    let dir = setup();
    let d = dir.path();
    for format in ["csv", "r", "analyze"] {
        let (code, out, err) = run(
            d,
            &[
                "report", "--format", format, "--metric", "B/op", "old.txt", "new.txt",
            ],
        );
        assert_eq!(code, 2, "{format}: {out}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains(&format!("--format {format} writes compare.js's rate")),
            "{err}"
        );
        assert!(
            err.contains("metric B/op (B/op) is lower-is-better and not a time"),
            "{err}"
        );
    }
}

/// Node's rate (higher is better) through every export: unchanged values, same verdicts.
#[test]
fn node_rate_round_trips_through_csv_and_go() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for i in 0..10 {
        let j = 1.0 + ((i * 7 % 11) as f64 - 5.0) / 1000.0;
        csv.push_str(&format!("\"old\",\"a.js\",\"n=1\",{},1.0\n", 1000.0 * j));
        csv.push_str(&format!("\"new\",\"a.js\",\"n=1\",{},1.0\n", 1200.0 * j));
    }
    std::fs::write(d.join("in.csv"), &csv).unwrap();
    let (_, direct, _) = run(d, &["report", "in.csv"]);
    assert_eq!(verdict(&direct, "a.js"), "faster", "{direct}");
    let (_, out, err) = run(d, &["report", "--format", "csv", "in.csv"]);
    assert!(!err.contains("converted"), "{err}");
    assert_eq!(out, csv.replace(",1.0\n", ",1.000000000\n"));
    let (_, go, _) = run(d, &["report", "--format", "go", "in.csv"]);
    std::fs::write(d.join("back.txt"), &go).unwrap();
    let (code, back, err) = run(d, &["report", "back.txt"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(verdict(&back, "a.js"), "faster", "{back}");
    let (_, r1, _) = run(d, &["report", "--format", "r", "in.csv"]);
    let (_, r2, _) = run(d, &["report", "--format", "r", "back.txt"]);
    assert_eq!(r1, r2);
}
