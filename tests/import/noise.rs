//! Issue 14, inputs of our own making: result files as harnesses really leave them (noise
//! between records, cut-off runs, byte-order marks and UTF-16, text around JSON, `NaN`
//! tokens, old schemas, failed or skipped runs, aggregates). One noisy-file test per importer,
//! and at least two more inputs per kind beyond the cases in `import_cases.rs`.

use benchdiff::format::{self, Imported, InputFormat, ReadOptions};
use benchdiff::sample::{SampleSet, Side};

fn read(bytes: &[u8], format: Option<InputFormat>) -> Result<(SampleSet, Imported), String> {
    let mut set = SampleSet::new();
    format::read_bytes(bytes, "f.txt", format, &ReadOptions::default(), &mut set)
        .map(|i| (set, i))
        .map_err(|e| e.to_string())
}

fn ok(bytes: &[u8], format: Option<InputFormat>) -> (SampleSet, Imported) {
    read(bytes, format).unwrap_or_else(|e| panic!("{e}"))
}

fn warnings(i: &Imported) -> Vec<String> {
    i.warnings.iter().map(ToString::to_string).collect()
}

fn utf16(s: &str, little_endian: bool) -> Vec<u8> {
    let mut out = if little_endian {
        vec![0xFF, 0xFE]
    } else {
        vec![0xFE, 0xFF]
    };
    for u in s.encode_utf16() {
        out.extend(if little_endian {
            u.to_le_bytes()
        } else {
            u.to_be_bytes()
        });
    }
    out
}

#[track_caller]
fn approx(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-12 * w.abs(), "{got:?} vs {want:?}");
    }
}

fn names(set: &SampleSet) -> Vec<String> {
    set.benchmarks().iter().map(|b| b.name()).collect()
}

// --- Kind 1: encodings -------------------------------------------------------------------

const GO: &str = "goos: linux\r\ncpu: Ünïcode CPU\r\nBenchmarkA-8 \t 100\t 1000 ns/op\r\nBenchmarkA-8 \t 100\t 1010 ns/op\r\nPASS\r\n";

#[test]
fn utf16_both_byte_orders_are_decoded_for_text_formats() {
    for le in [true, false] {
        let (set, imp) = ok(&utf16(GO, le), None);
        assert_eq!(imp.format, Some(InputFormat::Go));
        assert_eq!(set.len(), 2, "little endian {le}");
        assert!(
            imp.config
                .contains(&("cpu".to_owned(), "Ünïcode CPU".to_owned()))
        );
        assert_eq!(names(&set), vec!["A-8 "]);
    }
    // libtest and criterion through the same decoder.
    let lt = "running 1 test\r\ntest a ... bench:       3,161 ns/iter (+/- 975)\r\n";
    let (set, _) = ok(&utf16(lt, true), None);
    approx(&[set.samples()[0].value], &[3161e-9]);
    let cr = "a                       time:   [1.0 ns 2.0 ns 3.0 ns]\r\n";
    let (set, _) = ok(&utf16(cr, false), Some(InputFormat::Criterion));
    approx(&[set.samples()[0].value], &[2e-9]);
}

#[test]
fn utf16_json_and_utf8_bom_json_are_read() {
    let hf =
        r#"{"results": [{"command": "sleep 0.1", "times": [0.1, 0.11], "exit_codes": [0, 0]}]}"#;
    let (set, imp) = ok(&utf16(hf, true), None);
    assert_eq!(imp.format, Some(InputFormat::Hyperfine));
    assert_eq!(set.len(), 2);
    let bom = [b"\xEF\xBB\xBF".as_slice(), hf.as_bytes()].concat();
    let (set, _) = ok(&bom, Some(InputFormat::Hyperfine));
    assert_eq!(set.len(), 2);
}

#[test]
fn utf16_without_a_bom_is_refused_with_the_conversion() {
    let mut bytes = utf16(GO, true);
    bytes.drain(..2);
    let e = read(&bytes, None).unwrap_err();
    assert!(
        e.starts_with("f.txt:1: looks like UTF-16LE text without a byte-order mark"),
        "{e}"
    );
    assert!(e.contains("iconv -f UTF-16LE -t UTF-8"), "{e}");
}

#[test]
fn latin1_bytes_are_refused_as_an_encoding_problem() {
    let e = read(
        b"BenchmarkA 1 5 ns/op\ncpu: Intel\xAE\nBenchmarkA 1 6 ns/op\n",
        Some(InputFormat::Go),
    )
    .unwrap_err();
    assert!(e.contains("f.txt:2: not valid UTF-8"), "{e}");
    assert!(e.contains("iconv"), "{e}");
}

// --- Kind 1: noisy text, per importer ------------------------------------------------------

#[test]
fn go_noise_split_records_and_a_bad_line() {
    let text = "\
goos: linux
BenchmarkParse
BenchmarkParse-8   \tstarting worker pool
worker 1 ready
    12000\t     98765 ns/op\t  512 B/op\t   3 allocs/op
=== RUN   TestX
--- PASS: TestX (0.00s)
BenchmarkParse-8   \t   12000\t     98000 ns/op\t  512 B/op\t   3 allocs/op
BenchmarkParse-8   \t   12000\t     98x00 ns/op
some log line: with a colon
ok  \texample.com/p\t3.2s
";
    let (set, imp) = ok(text.as_bytes(), None);
    let sec: Vec<f64> = set
        .samples()
        .iter()
        .filter(|s| set.metric(s.metric).name == "sec/op")
        .map(|s| s.value)
        .collect();
    approx(&sec, &[98765e-9, 98000e-9]);
    let w = warnings(&imp);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with("f.txt:9: value \"98x00\" of unit ns/op is not a number"),
        "{w:?}"
    );
    assert!(
        w[0].contains("read 2 result lines; skipped this line"),
        "{w:?}"
    );
    assert!(w[1].starts_with("f.txt:3: 1 record(s) were split"), "{w:?}");
    assert!(w[1].contains("numbers on line 5"), "{w:?}");
}

#[test]
fn go_cut_off_runs_keep_their_whole_records() {
    // -v name line, then a kill signal: the name alone is named as cut off.
    let text = "BenchmarkA-4 \t 10 \t 5 ns/op\nBenchmarkB\nSIGQUIT: quit\nPC=0x46a3e1 m=0 sigcode=0\ngoroutine 1 [running]:\n";
    let (set, imp) = ok(text.as_bytes(), None);
    assert_eq!(set.len(), 1);
    let w = warnings(&imp);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(
            "f.txt:2: incomplete record BenchmarkB: the run was cut off (SIGQUIT: quit)"
        ),
        "{w:?}"
    );
    // Nothing whole at all: an error naming the line.
    let e = read(
        b"goos: linux\nBenchmarkA-4 \tpanic: boom\n",
        Some(InputFormat::Go),
    )
    .unwrap_err();
    assert!(
        e.contains("f.txt:2: incomplete record BenchmarkA-4: the run was cut off (panic: boom)"),
        "{e}"
    );
}

#[test]
fn libtest_noise_and_a_bad_line() {
    let text = "\
   Compiling x v0.1.0
    Finished bench [optimized] target(s) in 1.2s
     Running unittests src/lib.rs
running 3 tests
some println from a bench
test a ... bench:       3,161 ns/iter (+/- 975)
test b ... bench:       lots ns/iter (+/- 1)
test c ... bench:          12.5 ns/iter (+/- 0)
test result: ok. 0 passed; 0 failed; 0 ignored; 3 measured
";
    let (set, imp) = ok(text.as_bytes(), None);
    assert_eq!(set.len(), 2);
    let w = warnings(&imp);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("f.txt:7: cannot read the bench result"),
        "{w:?}"
    );
    assert!(w[0].contains("read 2 results"), "{w:?}");
    assert!(
        read(
            b"test b ... bench:       lots ns/iter (+/- 1)\n",
            Some(InputFormat::Libtest)
        )
        .is_err()
    );
}

#[test]
fn criterion_noise_and_a_bad_line() {
    let text = "\
Benchmarking parse: Warming up for 3.0000 s
parse                   time:   [1.0 ns 2.0 ns 3.0 ns]
                        change: [-1.0% +0.5% +2.0%] (p = 0.50 > 0.05)
Found 3 outliers among 100 measurements (3.00%)
render                  time:   [1.0 ns oops 3.0 ns]
a-very-long-benchmark-name-on-its-own-line
                        time:   [10.0 us 11.0 us 12.0 us]
";
    let (set, imp) = ok(text.as_bytes(), Some(InputFormat::Criterion));
    assert_eq!(
        names(&set),
        vec!["parse ", "a-very-long-benchmark-name-on-its-own-line "]
    );
    let w = warnings(&imp);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("f.txt:5: cannot read the time estimate"),
        "{w:?}"
    );
}

#[test]
fn run_js_csv_noise_rows() {
    let text = "\
\"filename\", \"configuration\", \"rate\", \"time\"
\"a.js\", \"n=1\", 10, 1
(node:1234) Warning: something printed by the benchmark
\"a.js\", \"n=1\", 11, 1
";
    let (set, imp) = ok(text.as_bytes(), Some(InputFormat::NodeRunCsv));
    assert_eq!(set.len(), 2);
    assert_eq!(names(&set), vec!["a.js n=1"]);
    let w = warnings(&imp);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("f.txt:3: "), "{w:?}");
    assert!(w[0].contains("read 2 rows"), "{w:?}");
}

#[test]
fn hyperfine_text_around_the_document_and_bare_tokens() {
    let text = "$ hyperfine --export-json /dev/stdout 'sleep 0.1'\nBenchmark 1: sleep 0.1\n{\n \"results\": [{\"command\": \"sleep 0.1\", \"mean\": NaN, \"stddev\": Infinity,\n  \"times\": [0.1, 0.11, 0.12], \"exit_codes\": [0, 0, 0]}]\n}\n$ echo done\n";
    let (set, imp) = ok(text.as_bytes(), None);
    assert_eq!(imp.format, Some(InputFormat::Hyperfine));
    assert_eq!(set.len(), 3);
    let w = warnings(&imp);
    assert!(
        w.contains(&"f.txt:1: text before the JSON document (lines 1-2) ignored".to_owned()),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.starts_with("f.txt:4: bare NaN is not valid JSON") && w.contains("1 more")),
        "{w:?}"
    );
    assert!(
        w.contains(&"f.txt:7: text after the JSON document ignored".to_owned()),
        "{w:?}"
    );
}

#[test]
fn hyperfine_unreadable_result_among_good_ones() {
    let text = r#"{"results": [
 {"command": "a", "times": [0.1, 0.2]},
 {"command": "b"},
 {"command": "c", "times": [0.3, null]}
]}"#;
    let (set, imp) = ok(text.as_bytes(), None);
    assert_eq!(set.len(), 3);
    let w = warnings(&imp);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("f.txt:3: command \"b\" has no \"times\" array"),
        "{w:?}"
    );
    assert!(w[0].contains("skipped 2 lines"), "{w:?}");
}

#[test]
fn google_benchmark_console_text_infinity_and_old_schema() {
    // Console output before the JSON (--benchmark_format=json with logging), an Infinity
    // counter, and an old file without run_type whose aggregates are told by their names.
    let text = r#"2026-01-01 Running ./bench
Run on (8 X 3600 MHz CPU s)
{
  "context": {"library_build_type": "release"},
  "benchmarks": [
    {"name": "BM_A/repeats:3", "iterations": 100, "real_time": 10.0, "cpu_time": 9.0, "time_unit": "us", "ratio": Infinity},
    {"name": "BM_A/repeats:3", "iterations": 100, "real_time": 11.0, "cpu_time": 10.0, "time_unit": "us"},
    {"name": "BM_A/repeats:3_mean", "iterations": 100, "real_time": 10.5, "cpu_time": 9.5, "time_unit": "us"},
    {"name": "BM_A/repeats:3_stddev", "iterations": 100, "real_time": 0.7, "cpu_time": 0.7, "time_unit": "us"},
    {"name": "BM_B", "iterations": 5, "real_time": NaN, "cpu_time": 1.0, "time_unit": "ms"}
  ]
}
"#;
    let (set, imp) = ok(text.as_bytes(), None);
    assert_eq!(imp.format, Some(InputFormat::GoogleBenchmark));
    let sec: Vec<f64> = set
        .samples()
        .iter()
        .filter(|s| set.metric(s.metric).name == "sec/op")
        .map(|s| s.value)
        .collect();
    approx(&sec, &[10e-6, 11e-6]);
    assert_eq!(names(&set), vec!["BM_A "]);
    let w = warnings(&imp);
    assert!(
        w.iter().any(|w| w.starts_with("f.txt:6: bare Infinity")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.starts_with("f.txt:10: BM_B: real_time or cpu_time missing")),
        "{w:?}"
    );
}

#[test]
fn pytest_benchmark_text_around_and_nan_rounds() {
    let text = "============ benchmark session starts ============\n{\"machine_info\": {}, \"benchmarks\": [\n {\"name\": \"test_a\", \"fullname\": \"t.py::test_a\", \"stats\": {\"data\": [0.1, NaN, 0.12], \"rounds\": 3}},\n {\"name\": \"test_b\", \"fullname\": \"t.py::test_b\", \"stats\": {\"mean\": 0.2, \"rounds\": 5}}\n], \"version\": \"3.1.0\"}\n=== 2 passed in 3.1s ===\n";
    let (set, imp) = ok(text.as_bytes(), None);
    assert_eq!(imp.format, Some(InputFormat::PytestBenchmark));
    assert_eq!(set.len(), 2);
    let w = warnings(&imp);
    assert!(
        w.iter()
            .any(|w| w.contains("t.py::test_b: no per-round data")
                && w.contains("--benchmark-save-data")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.contains("t.py::test_a: data[1] is not a number")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.contains("text before the JSON document")),
        "{w:?}"
    );
    // Nothing readable in a file: still an error.
    assert!(
        read(
            b"{\"machine_info\": {}, \"benchmarks\": [{\"stats\": {}}]}",
            None
        )
        .is_err()
    );
}

// --- Kind 2: what a harness marks as not a measurement ---------------------------------------

#[test]
fn google_benchmark_errors_and_skips_are_not_samples() {
    let text = r#"{"context": {}, "benchmarks": [
  {"name": "BM_X", "run_name": "BM_X", "run_type": "iteration", "iterations": 10, "real_time": 5, "cpu_time": 5, "time_unit": "ns"},
  {"name": "BM_E", "run_name": "BM_E", "run_type": "iteration", "error_occurred": true, "error_message": "disk full", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"},
  {"name": "BM_S", "run_name": "BM_S", "run_type": "iteration", "skip_message": "no GPU", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"},
  {"name": "BM_BigO", "run_name": "BM_X", "run_type": "aggregate", "aggregate_name": "BigO", "cpu_coefficient": 1.0, "real_coefficient": 1.0, "big_o": "N", "time_unit": "ns"}
]}"#;
    let (set, imp) = ok(text.as_bytes(), None);
    assert_eq!(names(&set), vec!["BM_X "]);
    let w = warnings(&imp);
    assert!(
        w.iter()
            .any(|w| w.contains("BM_E: skipped by the benchmark: disk full")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.contains("BM_S: skipped by the benchmark: no GPU")),
        "{w:?}"
    );
}

#[test]
fn google_benchmark_aggregates_only_file_is_read_not_refused() {
    let text = r#"{"context": {}, "benchmarks": [
  {"name": "BM_Q_mean", "run_name": "BM_Q", "run_type": "aggregate", "aggregate_name": "mean", "real_time": 2.0, "cpu_time": 1.9, "time_unit": "ms"},
  {"name": "BM_Q_median", "run_name": "BM_Q", "run_type": "aggregate", "aggregate_name": "median", "real_time": 2.1, "cpu_time": 2.0, "time_unit": "ms"},
  {"name": "BM_R_median", "run_name": "BM_R", "run_type": "aggregate", "aggregate_name": "median", "real_time": 3.0, "cpu_time": 3.0, "time_unit": "ms"}
]}"#;
    let (set, imp) = ok(text.as_bytes(), Some(InputFormat::GoogleBenchmark));
    assert_eq!(
        names(&set),
        vec!["BM_Q aggregate=mean", "BM_R aggregate=median"]
    );
    approx(&[set.samples()[0].value], &[2e-3]);
    let w = warnings(&imp);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("BM_Q: aggregates only (mean, median"),
        "{w:?}"
    );
}

#[test]
fn hyperfine_failed_runs_all_kinds() {
    // Every run of one command failed; exit codes absent (old hyperfine) count as success.
    let text = r#"{"results": [
 {"command": "bad", "times": [0.01, 0.02], "exit_codes": [2, null]},
 {"command": "old", "times": [0.3, 0.4]}
]}"#;
    let (set, imp) = ok(text.as_bytes(), None);
    assert_eq!(set.len(), 2);
    assert!(
        set.samples()
            .iter()
            .all(|s| set.benchmark(s.benchmark).file == "old")
    );
    let w = warnings(&imp);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("\"bad\": 2 of 2 runs failed (1 exited with 2 (run 1), 1 killed by a signal, exit code null (run 2)); only the 0 successful runs"), "{w:?}");
}

// --- Kind 6: compare.js legacy CSV ---------------------------------------------------------

#[test]
fn legacy_compare_csv_keeps_r_s_spaces() {
    let text = "\"binary\", \"filename\", \"configuration\", \"rate\", \"time\"\n\"old\", \"a.js\", \"\", 10, 0.1\n\"new\", \"a.js\", \"\", 12, 0.1\n\"old\", \"b.js\", \"n=1 x=\"\"q\"\"\", 10, 0.1\n";
    let (set, _) = ok(text.as_bytes(), None);
    // R: filename " a.js", configuration " ": the name paste0(filename, ' ', configuration).
    assert_eq!(names(&set), vec![" a.js  ", " b.js  n=1 x=\"q\""]);
    assert_eq!(
        set.samples().iter().filter(|s| s.side == Side::New).count(),
        1
    );
}

#[test]
fn legacy_compare_csv_report_r_rows_carry_the_space() {
    let text = "\"binary\", \"filename\", \"configuration\", \"rate\", \"time\"\n\"old\", \"a.js\", \"n=1\", 10, 0.1\n\"new\", \"a.js\", \"n=1\", 12, 0.1\n\"old\", \"a.js\", \"n=1\", 11, 0.1\n\"new\", \"a.js\", \"n=1\", 13, 0.1\n";
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("legacy.csv");
    std::fs::write(&p, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .args(["report", "--format", "r", p.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let row = stdout.lines().nth(1).expect("row");
    assert!(row.starts_with(" a.js  n=1 "), "{stdout}");
    assert!(row.contains("19.05 %"), "{stdout}");
}

/// A UTF-16 file much larger than the sniffing head (64 KiB): decoded as it streams, every
/// record read, line numbers those of the text.
#[test]
fn large_utf16_file_streams_past_the_head() {
    let mut text = String::from("goos: linux\r\n");
    for i in 0..20_000 {
        text.push_str(&format!(
            "BenchmarkBig/n={}-8 \t 100\t {} ns/op\r\n",
            i % 7,
            1000 + i % 13
        ));
    }
    text.push_str("BenchmarkBig/n=1-8 \t 100\t oops ns/op\r\n");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.txt");
    std::fs::write(&p, utf16(&text, true)).unwrap();
    assert!(std::fs::metadata(&p).unwrap().len() > 1 << 20);
    let mut set = SampleSet::new();
    let imp = format::read_path(p.to_str().unwrap(), None, &ReadOptions::default(), &mut set)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(set.len(), 20_000);
    assert_eq!(set.benchmarks().len(), 7);
    let w = warnings(&imp);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains(":20002: value \"oops\""), "{w:?}");
}
