//! Every file of tests/data/oracle/benchstat and tests/data/oracle/harness-outputs is read by the
//! importer registry (format sniffed from the content), and each gives a known number of
//! samples — or, for the one file that is not in a format benchdiff reads (asv text), a clear
//! error naming its line.

use benchdiff::format::{self as import, InputFormat, ReadOptions};
use benchdiff::sample::{Better, SampleSet, Side};
use std::path::PathBuf;

fn oracle(dir: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/oracle")
        .join(dir);
    assert!(p.is_dir(), "oracle folder {} is missing", p.display());
    p
}

fn read(dir: &str, file: &str) -> (Result<import::Imported, String>, SampleSet) {
    let path = oracle(dir).join(file);
    let mut set = SampleSet::new();
    let r = import::read_path(
        path.to_str().expect("utf-8 path"),
        None,
        &ReadOptions::default(),
        &mut set,
    )
    .map_err(|e| e.to_string());
    (r, set)
}

/// (file, format, samples)
const BENCHSTAT: &[(&str, InputFormat, usize)] = &[
    ("crc-new.txt", InputFormat::Go, 720),
    ("crc-old.txt", InputFormat::Go, 720),
    ("issue19565.txt", InputFormat::Go, 24),
    ("issue19634.txt", InputFormat::Go, 10),
    ("new.txt", InputFormat::Go, 20),
    ("old.txt", InputFormat::Go, 20),
    ("smallSample.txt", InputFormat::Go, 2),
    ("units.txt", InputFormat::Go, 8),
    ("zero.txt", InputFormat::Go, 20),
];

const HARNESS: &[(&str, InputFormat, usize)] = &[
    // Google Benchmark JSON (2 runs × real and cpu time).
    ("cpp__google__two.txt", InputFormat::GoogleBenchmark, 4),
    ("go__bench__five.txt", InputFormat::Go, 5),
    // 3 × ns/op + 1 custom auxMetricUnits.
    ("go__bench__three.txt", InputFormat::Go, 4),
    // data arrays truncated to 4 numbers by the publisher (+5 for test_sleep_2).
    (
        "python__pytest__four.json",
        InputFormat::PytestBenchmark,
        17,
    ),
    ("python__pytest__two.json", InputFormat::PytestBenchmark, 8),
    ("rust__bench__failed.txt", InputFormat::Libtest, 2),
    ("rust__bench__ignore.txt", InputFormat::Libtest, 1),
    ("rust__bench__issue_390.txt", InputFormat::Libtest, 4),
    ("rust__bench__many.txt", InputFormat::Libtest, 6),
    ("rust__bench__multi_target.txt", InputFormat::Libtest, 2),
    ("rust__bench__one.txt", InputFormat::Libtest, 1),
    ("rust__bench__zero.txt", InputFormat::Libtest, 0),
    // criterion text: one estimate per benchmark.
    ("rust__criterion__dogfood.txt", InputFormat::Criterion, 4),
    ("rust__criterion__failed.txt", InputFormat::Criterion, 4),
    ("rust__criterion__many.txt", InputFormat::Criterion, 5),
    // hyperfine: every run's wall time (and memory), plus each command's mean user and
    // system time (one sample each).
    ("shell__hyperfine__one.json", InputFormat::Hyperfine, 216),
    ("shell__hyperfine__two.json", InputFormat::Hyperfine, 44),
];

#[test]
fn every_benchstat_input_is_read() {
    for &(file, format, n) in BENCHSTAT {
        let (r, set) = read("benchstat", file);
        let imp = r.unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(imp.format, Some(format), "{file}");
        assert_eq!(imp.samples, n, "{file}: samples");
        assert_eq!(set.len(), n, "{file}");
    }
    // Every data file of the folder is covered.
    let mut listed: Vec<&str> = BENCHSTAT.iter().map(|x| x.0).collect();
    listed.sort_unstable();
    let mut present: Vec<String> = std::fs::read_dir(oracle("benchstat"))
        .expect("read_dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.ends_with(".txt"))
        .collect();
    present.sort();
    assert_eq!(listed, present);
}

#[test]
fn every_harness_output_is_read_or_named() {
    for &(file, format, n) in HARNESS {
        let (r, _) = read("harness-outputs", file);
        let imp = r.unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(imp.format, Some(format), "{file}");
        assert_eq!(imp.samples, n, "{file}: samples");
    }
    // asv's console text is not a format benchdiff reads: the error names file and line 1.
    let (r, _) = read("harness-outputs", "python__asv__six.txt");
    let e = r.expect_err("asv text is not read");
    assert!(
        e.contains("python__asv__six.txt:1: not a benchmark result format benchdiff reads"),
        "{e}"
    );
    let mut covered: Vec<&str> = HARNESS.iter().map(|x| x.0).collect();
    covered.push("python__asv__six.txt");
    covered.sort_unstable();
    let mut present: Vec<String> = std::fs::read_dir(oracle("harness-outputs"))
        .expect("read_dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f != "README.md" && f != "SOURCE")
        .collect();
    present.sort();
    assert_eq!(covered, present);
}

#[test]
fn go_units_are_normalised_with_directions() {
    let (r, set) = read("benchstat", "crc-old.txt");
    r.expect("read");
    let names: Vec<(&str, Better)> = set
        .metrics()
        .iter()
        .skip(1)
        .map(|m| (m.name.as_str(), m.better))
        .collect();
    assert_eq!(names, [("sec/op", Better::Lower), ("B/s", Better::Higher)]);
    // 44.6 ns/op → 4.46e-8 s/op; 336.59 MB/s → 3.3659e8 B/s.
    let s = &set.samples()[..2];
    assert!((s[0].value - 44.6e-9).abs() < 1e-20);
    assert!((s[1].value - 336.59e6).abs() < 1e-3);
    assert!(set.samples().iter().all(|s| s.side == Side::Old));
    let b = set.benchmark(s[0].benchmark);
    assert_eq!(b.file, "CRC32/poly=IEEE/size=15/align=0-8");

    // Custom unit, better= metadata and the -N suffix.
    let (r, set) = read("harness-outputs", "go__bench__three.txt");
    r.expect("read");
    assert!(set.metrics().iter().any(|m| m.name == "auxMetricUnits"));
    let mut set = SampleSet::new();
    import::read_text(
        "Unit widgets better=higher\nBenchmarkA-4 1 5 widgets 10 B/op 2 allocs/op\n",
        "t",
        None,
        &ReadOptions::default(),
        &mut set,
    )
    .expect("read");
    let dirs: Vec<(String, Better)> = set
        .metrics()
        .iter()
        .skip(1)
        .map(|m| (m.name.clone(), m.better))
        .collect();
    assert_eq!(
        dirs,
        [
            ("widgets".to_owned(), Better::Higher),
            ("B/op".to_owned(), Better::Lower),
            ("allocs/op".to_owned(), Better::Lower)
        ]
    );
}

#[test]
fn results_jsonl_and_run_csv_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("run.csv");
    std::fs::write(
        &csv,
        "\"filename\", \"configuration\", \"rate\", \"time\"\n\"a/b.js\", \"n=1\", 100.5, 0.01\n\"a/b.js\", \"n=1\", 101, 0.02\n",
    )
    .expect("write");
    let mut set = SampleSet::new();
    let imp = import::read_path(
        csv.to_str().expect("utf-8"),
        None,
        &ReadOptions {
            side: Side::New,
            sides_by: None,
        },
        &mut set,
    )
    .expect("run.js csv");
    assert_eq!(imp.format, Some(InputFormat::NodeRunCsv));
    assert_eq!(imp.samples, 2);
    assert!(set.samples().iter().all(|s| s.side == Side::New));
    assert_eq!(
        set.benchmark(set.samples()[0].benchmark).name(),
        "a/b.js n=1"
    );

    // A bad row names its line.
    std::fs::write(
        &csv,
        "\"filename\", \"configuration\", \"rate\", \"time\"\n\"a/b.js\", \"n=1\", fast, 0.01\n",
    )
    .expect("write");
    let e = import::read_path(
        csv.to_str().expect("utf-8"),
        None,
        &ReadOptions::default(),
        &mut set,
    )
    .expect_err("bad rate")
    .to_string();
    assert!(e.contains("run.csv:2:"), "{e}");

    // Not a results file: named.
    let jl = dir.path().join("r.jsonl");
    std::fs::write(&jl, "{\"type\":\"job\"}\n").expect("write");
    let e = import::read_path(
        jl.to_str().expect("utf-8"),
        Some(InputFormat::ResultsJsonl),
        &ReadOptions::default(),
        &mut set,
    )
    .expect_err("no run record")
    .to_string();
    assert!(
        e.contains("r.jsonl:1: job record before the run record"),
        "{e}"
    );
}
