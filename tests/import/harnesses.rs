//! The harness formats read from files the real tools wrote (`tests/data/harness/`, each named
//! with the command or repository that wrote it in its SOURCES.md): pyperf, criterion saved
//! baselines, JMH, BenchmarkDotNet, tinybench, vitest, mitata, benchmark.js, Catch2, and
//! several-command hyperfine exports; and the reader faults found on real files (Go names in
//! lower case after `Benchmark`, libtest records split by output, Google Benchmark aggregate
//! names).

use benchdiff::format::{self, Imported, InputFormat, ReadOptions};
use benchdiff::sample::{SampleSet, Side};
use std::path::PathBuf;
use std::process::Command;

fn data(f: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/harness")
        .join(f)
}

fn path(f: &str) -> String {
    data(f).to_str().expect("utf-8 path").to_owned()
}

fn opts(side: Side) -> ReadOptions {
    ReadOptions {
        side,
        sides_by: None,
    }
}

/// Reads `old` and `new` (format sniffed) into one set.
fn read_pair(old: &str, new: &str) -> (SampleSet, Imported, Imported) {
    let mut set = SampleSet::new();
    let a = format::read_path(&path(old), None, &opts(Side::Old), &mut set)
        .unwrap_or_else(|e| panic!("{old}: {e}"));
    let b = format::read_path(&path(new), None, &opts(Side::New), &mut set)
        .unwrap_or_else(|e| panic!("{new}: {e}"));
    (set, a, b)
}

/// The values of benchmark `name`, metric `metric`, on `side`.
fn values(set: &SampleSet, name: &str, metric: &str, side: Side) -> Vec<f64> {
    set.samples()
        .iter()
        .filter(|s| {
            s.side == side
                && set.benchmark(s.benchmark).name().trim_end() == name
                && set.metric(s.metric).name == metric
        })
        .map(|s| s.value)
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// `benchdiff ARGS` run in `tests/data/harness`: (exit code, stdout, stderr).
fn benchdiff(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(data(""))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("run benchdiff");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Rounds `x` to `d` significant digits, as pyperf prints its means (`26.2 us`).
fn sig(x: f64, d: i32) -> f64 {
    let m = 10f64.powi(d - 1 - x.abs().log10().floor() as i32);
    (x * m).round() / m
}

#[test]
fn pyperf_json_and_gzip_match_pyperf_compare_to() {
    let (set, a, b) = read_pair("pyperf-old.json", "pyperf-new.json.gz");
    assert_eq!(a.format, Some(InputFormat::Pyperf));
    assert_eq!(b.format, Some(InputFormat::Pyperf), "gzip is read through");
    // pyperf compare_to (pyperf-compare_to.txt):
    //   sort: [py_old] 26.2 us +- 4.7 us -> [py_new] 37.0 us +- 6.0 us: 1.41x slower
    //   join: [py_old] 1.36 us +- 0.28 us -> [py_new] 1.74 us +- 0.47 us: 1.27x slower
    for (name, old, new, ratio) in [
        ("sort", 26.2e-6, 37.0e-6, 1.41),
        ("join", 1.36e-6, 1.74e-6, 1.27),
    ] {
        let o = values(&set, name, "sec/op", Side::Old);
        let n = values(&set, name, "sec/op", Side::New);
        assert_eq!(
            (o.len(), n.len()),
            (24, 24),
            "{name}: 6 processes x 4 values"
        );
        assert_eq!(sig(mean(&o), 3), old, "{name} old mean");
        assert_eq!(sig(mean(&n), 3), new, "{name} new mean");
        assert_eq!((mean(&n) / mean(&o) * 100.0).round() / 100.0, ratio);
    }
    let (code, out, err) = benchdiff(&["report", "pyperf-old.json", "pyperf-new.json.gz"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("2 slower"),
        "pyperf calls both significant:\n{out}"
    );
}

#[test]
fn jmh_converts_units_and_reads_the_direction_of_the_mode() {
    // Two runs of one project, the first with -tu us, the second with -tu ns.
    let (set, a, _) = read_pair("jmh-avgt-us.json", "jmh-avgt-ns.json");
    assert_eq!(a.format, Some(InputFormat::Jmh));
    let name = "com.github.chrisgleissner.benchmarks.ArrayAddBenchmark.intArrayAdd";
    let o = values(&set, name, "sec/op", Side::Old);
    let n = values(&set, name, "sec/op", Side::New);
    assert_eq!(
        (o.len(), n.len()),
        (10, 10),
        "rawData: 1 fork x 10 iterations"
    );
    // JMH's scores: 0.28 us/op and 276.71 ns/op.
    assert!((mean(&o) - 0.28e-6).abs() < 0.01e-6, "{}", mean(&o));
    assert!((mean(&n) - 276.71e-9).abs() < 0.01e-9, "{}", mean(&n));
    let id = set.find_metric("sec/op").expect("sec/op");
    assert_eq!(set.metric(id).better, benchdiff::sample::Better::Lower);

    let mut set = SampleSet::new();
    format::read_path(&path("jmh-thrpt.json"), None, &opts(Side::Old), &mut set).expect("thrpt");
    let id = set.find_metric("ops/s").expect("thrpt is a rate");
    assert_eq!(set.metric(id).better, benchdiff::sample::Better::Higher);
    let v = values(&set, name, "ops/s", Side::Old);
    assert_eq!(v.len(), 15);
    // score 3524700.55 ops/ms = 3.52e9 ops/s
    assert!(
        (mean(&v) / 3_524_700_553.0 - 1.0).abs() < 1e-6,
        "{}",
        mean(&v)
    );
}

#[test]
fn benchmarkdotnet_full_export_reads_workload_results_per_operation() {
    let (set, a, _) = read_pair("bdn-before.json", "bdn-after.json");
    assert_eq!(a.format, Some(InputFormat::BenchmarkDotNet));
    let name = "Performance.UtilityStdDev.StdDev(Periods: 20)";
    let o = values(&set, name, "sec/op", Side::Old);
    let n = values(&set, name, "sec/op", Side::New);
    assert_eq!(
        (o.len(), n.len()),
        (3, 3),
        "the Workload/Result iterations only"
    );
    // BenchmarkDotNet's own Statistics.Mean: 16.2 ns before, 14.0 ns after.
    assert_eq!(sig(mean(&o) * 1e9, 3), 16.2);
    assert_eq!(sig(mean(&n) * 1e9, 3), 14.0);
}

#[test]
fn benchmarkdotnet_without_result_measurements_is_summary_only() {
    let mut set = SampleSet::new();
    let imp =
        format::read_path(&path("bdn-full.json"), None, &opts(Side::Old), &mut set).expect("read");
    assert_eq!(
        values(&set, "Sample.Benchmarks.Fib10", "sec/op", Side::Old),
        vec![24.420_208_500_964_3 * 1e-9]
    );
    let w: Vec<String> = imp.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter().any(|w| w.contains("summary statistics only")
            && w.contains("sd 0.1981212530783709 ns, n 14")
            && w.contains("compared from its mean, standard deviation and n (Welch's test)")),
        "{w:?}"
    );
}

/// A brief export (the full exports without their measurements: the shape BenchmarkDotNet's
/// brief JSON has) keeps one sample per benchmark, its mean, and records the mean, standard
/// deviation and n as the side's summary statistics: nothing is invented.
#[test]
fn benchmarkdotnet_brief_export_records_mean_sd_and_n() {
    let (set, a, _) = read_pair("bdn-before-brief.json", "bdn-after-brief.json");
    let name = "Performance.UtilityStdDev.StdDev(Periods: 20)";
    let o = values(&set, name, "sec/op", Side::Old);
    assert_eq!(o, vec![16.176_472_107_569_378 * 1e-9]);
    let b = set
        .find_benchmark(name, "")
        .or_else(|| {
            (0..set.benchmarks().len())
                .map(|i| benchdiff::sample::BenchmarkId(i as u32))
                .find(|&id| set.benchmark(id).name().trim_end() == name)
        })
        .expect("benchmark");
    let m = set.find_metric("sec/op").expect("metric");
    let s = set.summary(b, m, Side::Old).expect("summary statistics");
    assert_eq!(s.n, 3);
    assert_eq!(s.mean, 16.176_472_107_569_378 * 1e-9);
    assert_eq!(s.sd, 0.069_870_784_129_902_47 * 1e-9);
    assert!(
        a.warnings
            .iter()
            .any(|w| w.message.contains("Welch's test"))
    );
}

/// benchmark.js's `±rme% (n runs sampled)`: sd = rme/100 · mean · √n / t, t its 95% t value
/// (1.96 beyond 30 degrees of freedom, the t quantile below).
#[test]
fn benchmarkjs_lines_record_mean_sd_and_n() {
    let (set, _, _) = read_pair("benchmarkjs-old.txt", "benchmarkjs-new.txt");
    let m = set.find_metric("ops/s").expect("metric");
    let id = |name: &str| {
        (0..set.benchmarks().len())
            .map(|i| benchdiff::sample::BenchmarkId(i as u32))
            .find(|&id| set.benchmark(id).name().trim_end() == name)
            .expect("benchmark")
    };
    // sort x 9,326 ops/sec ±12.01% (36 runs sampled)
    let s = set.summary(id("sort"), m, Side::Old).expect("summary");
    assert_eq!((s.mean, s.n), (9326.0, 36));
    assert!((s.sd - 0.1201 * 9326.0 * 6.0 / 1.96).abs() < 1e-9, "{s:?}");
    assert_eq!(values(&set, "sort", "ops/s", Side::Old), vec![9326.0]);
}

#[test]
fn tinybench_samples_and_vitest_summaries() {
    let (set, a, _) = read_pair("tinybench-old.json", "tinybench-new.json");
    assert_eq!(a.format, Some(InputFormat::Tinybench));
    let text = std::fs::read_to_string(data("tinybench-old.json")).expect("read");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let count = doc[0]["result"]["latency"]["samplesCount"]
        .as_u64()
        .expect("count");
    let sort = values(&set, "sort", "sec/op", Side::Old);
    assert_eq!(sort.len() as u64, count);
    let ms_mean = doc[0]["result"]["latency"]["mean"].as_f64().expect("mean");
    assert!((mean(&sort) * 1e3 / ms_mean - 1.0).abs() < 1e-9);

    let (set, a, _) = read_pair("vitest-old.json", "vitest-new.json");
    assert_eq!(a.format, Some(InputFormat::Tinybench));
    let v = values(&set, "sort.bench.js > arrays > sort", "sec/op", Side::Old);
    assert_eq!(v, vec![0.071_181_739_304_817_03e-3]);
    let w = a.warnings[0].to_string();
    assert!(
        w.contains("summary statistics only") && w.contains("n 1496"),
        "{w}"
    );
}

#[test]
fn mitata_reads_every_run_sample_in_seconds() {
    let (set, a, _) = read_pair("mitata-old.json", "mitata-new.json");
    assert_eq!(a.format, Some(InputFormat::Mitata));
    let text = std::fs::read_to_string(data("mitata-old.json")).expect("read");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let stats = &doc["benchmarks"][0]["runs"][0]["stats"];
    let v = values(&set, "sort", "sec/op", Side::Old);
    assert_eq!(v.len(), stats["samples"].as_array().expect("samples").len());
    assert!((mean(&v) * 1e9 / stats["avg"].as_f64().expect("avg") - 1.0).abs() < 1e-9);
}

#[test]
fn benchmarkjs_lines_are_summary_only_rates() {
    let (set, a, _) = read_pair("benchmarkjs-old.txt", "benchmarkjs-new.txt");
    assert_eq!(a.format, Some(InputFormat::BenchmarkJs));
    assert_eq!(values(&set, "sort", "ops/s", Side::Old), vec![9326.0]);
    assert_eq!(values(&set, "join", "ops/s", Side::New), vec![22941.0]);
    assert!(
        a.warnings
            .iter()
            .any(|w| w.message.contains("summary statistics only"))
    );
    let mut set = SampleSet::new();
    format::read_path(
        &path("benchmarkjs-gab.txt"),
        None,
        &opts(Side::Old),
        &mut set,
    )
    .expect("read");
    assert_eq!(
        values(&set, "fib(10)", "ops/s", Side::Old),
        vec![1_431_759.0]
    );
    assert_eq!(
        values(
            &set,
            "createObjectBuffer with 200 comments",
            "ops/s",
            Side::Old
        ),
        vec![81.61]
    );
    assert_eq!(
        set.benchmarks().len(),
        3,
        "`this x line should be ignored` is not a result"
    );
}

#[test]
fn catch2_xml_means_are_summary_only() {
    let (set, a, _) = read_pair("catch2-old.xml", "catch2-new.xml");
    assert_eq!(a.format, Some(InputFormat::Catch2Xml));
    assert_eq!(
        values(&set, "fib 20", "sec/op", Side::Old),
        vec![14139.3e-9]
    );
    let w = a.warnings[0].to_string();
    assert!(
        w.contains("summary statistics only") && w.contains("n 20"),
        "{w}"
    );
}

#[test]
fn hyperfine_export_of_two_commands_compares_them() {
    let (code, out, err) = benchdiff(&["report", "hyperfine-2-commands.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("sleep 0.01 vs sleep 0.02"), "{out}");
    assert!(out.contains("1 slower"), "{out}");
    // hyperfine's user and system means, one value per side.
    let (code, out, err) = benchdiff(&["report", "hyperfine-2-commands.json", "--metric", "user"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("metric: user (s)"), "{out}");
    let (_, out, _) = benchdiff(&["report", "hyperfine-2-commands.json", "--metric", "system"]);
    assert!(out.contains("metric: system (s)"), "{out}");
}

#[test]
fn hyperfine_export_of_three_commands_names_them() {
    // Alone, every command after the first is a column compared with it.
    let (code, out, err) = benchdiff(&["report", "hyperfine-3-commands.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("baseline: sleep 0.01; 2 columns") && out.contains("sleep 0.03"),
        "{out}"
    );
    let (code, out, err) = benchdiff(&[
        "report",
        "hyperfine-3-commands.json",
        "--sides-by",
        "command=1,sleep 0.03",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("sleep 0.01 vs sleep 0.03"), "{out}");
}

#[test]
fn hyperfine_two_exports_still_compare_file_against_file() {
    let (set, _, _) = read_pair("hyperfine-2-commands.json", "hyperfine-3-commands.json");
    assert_eq!(values(&set, "sleep 0.01", "wall", Side::Old).len(), 5);
    assert_eq!(values(&set, "sleep 0.01", "wall", Side::New).len(), 5);
}

#[test]
fn go_names_going_on_in_lower_case_are_results() {
    // golang/perf's bent testdata: benchfmt reads any line starting with `Benchmark`.
    let text = "goos: linux\nBenchmarkk8s_schedulercache_total 1 33871255 total-bytes\n\
                Benchmarking the scheduler\n";
    let mut set = SampleSet::new();
    let imp = format::read_text(text, "bent.txt", None, &opts(Side::Old), &mut set).expect("read");
    assert_eq!(imp.format, Some(InputFormat::Go));
    assert_eq!(
        values(&set, "k8s_schedulercache_total", "total-bytes", Side::Old),
        vec![33_871_255.0]
    );
    assert!(
        imp.warnings.is_empty(),
        "prose stays text: {:?}",
        imp.warnings
    );
}

#[test]
fn libtest_records_split_by_output_are_rejoined() {
    let text = "running 2 tests\ntest trie_insert/64 ... inserting 64 keys\nstray line\n\
                bench:       1,234 ns/iter (+/- 56)\n\
                test trie_get    ... bench:         345 ns/iter (+/- 6)\n\
                test some_test ... ok\n";
    let mut set = SampleSet::new();
    let imp = format::read_text(text, "bench.txt", None, &opts(Side::Old), &mut set).expect("read");
    assert_eq!(imp.format, Some(InputFormat::Libtest));
    assert_eq!(
        values(&set, "trie_insert/64", "sec/op", Side::Old),
        vec![1234.0 * 1e-9]
    );
    assert_eq!(
        values(&set, "trie_get", "sec/op", Side::Old),
        vec![345.0 * 1e-9]
    );
    let w = imp.warnings[0].to_string();
    assert!(
        w.starts_with("bench.txt:2:") && w.contains("rejoined"),
        "{w}"
    );
}

#[test]
fn google_benchmark_aggregate_without_its_name_keeps_the_benchmark_name() {
    // Google Benchmark's aggregates-only output (gbench-aggregates.json) with the
    // `aggregate_name` keys removed, as older writers leave them, and one entry named so.
    let text = r#"{"context": {"library_build_type": "release"}, "benchmarks": [
        {"name": "BM_One", "run_name": "BM_One", "run_type": "aggregate",
         "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns"}
    ]}"#;
    let mut set = SampleSet::new();
    let imp = format::read_text(text, "gb.json", None, &opts(Side::Old), &mut set).expect("read");
    let w: Vec<String> = imp.warnings.iter().map(ToString::to_string).collect();
    assert!(w.iter().all(|w| !w.contains("BM: ")), "{w:?}");
    assert!(w.iter().any(|w| w.contains("BM_One")), "{w:?}");
}

#[test]
fn a_json_format_not_recognised_lists_json_formats_only() {
    let mut set = SampleSet::new();
    let e = format::read_text("{\"x\": 1}\n", "x.json", None, &opts(Side::Old), &mut set)
        .expect_err("unknown")
        .to_string();
    assert!(e.contains("pyperf") && e.contains("hyperfine"), "{e}");
    assert!(
        !e.contains("libtest") && !e.contains("node-compare-csv"),
        "{e}"
    );
}

#[test]
fn criterion_folder_compares_base_with_new() {
    let (code, out, err) = benchdiff(&["report", "criterion"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("Is a directory"), "{err}");
    assert!(out.contains("fib/small") && out.contains("sum"), "{out}");
    let mut set = SampleSet::new();
    let imp = format::read_path(&path("criterion"), None, &opts(Side::Old), &mut set)
        .expect("read folder");
    assert_eq!(imp.format, Some(InputFormat::CriterionBaselines));
    assert_eq!(imp.side_values, vec!["base".to_owned(), "new".to_owned()]);
    // Per-iteration time: times[i] / iters[i] nanoseconds.
    let text = std::fs::read_to_string(data("criterion/fib/small/new/sample.json")).expect("read");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let per_iter: Vec<f64> = doc["iters"]
        .as_array()
        .expect("iters")
        .iter()
        .zip(doc["times"].as_array().expect("times"))
        .map(|(i, t)| t.as_f64().expect("t") / i.as_f64().expect("i") * 1e-9)
        .collect();
    assert_eq!(values(&set, "fib/small", "sec/op", Side::New), per_iter);
    assert_eq!(values(&set, "sum", "sec/op", Side::Old).len(), 100);
}

#[test]
fn criterion_named_baselines_match_criterions_own_change() {
    // `cargo bench -- --load-baseline pr --baseline main` (criterion-load-baseline.txt):
    //   fib/small change: [+73.354% +120.72% +177.13%] (p = 0.00 < 0.05)
    //   sum       change: [-10.571% +0.3389% +13.491%] (p = 0.96 > 0.05)
    let (code, out, err) = benchdiff(&[
        "report",
        "criterion",
        "--sides-by",
        "baseline=main,pr",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("json report");
    let text = doc.to_string();
    let mut set = SampleSet::new();
    format::read_path(
        &path("criterion"),
        None,
        &ReadOptions {
            side: Side::Old,
            sides_by: Some("baseline=main,pr".into()),
        },
        &mut set,
    )
    .expect("read");
    for (name, change) in [("fib/small", 120.72), ("sum", 0.3389)] {
        let o = mean(&values(&set, name, "sec/op", Side::Old));
        let n = mean(&values(&set, name, "sec/op", Side::New));
        let pct = (n / o - 1.0) * 100.0;
        let digits = if change > 100.0 { 2 } else { 4 };
        let m = 10f64.powi(digits);
        assert_eq!((pct * m).round() / m, change, "{name}: {pct}");
        assert!(text.contains(name), "{name} in the report");
    }
    let (code, _, err) = benchdiff(&["report", "criterion", "--sides-by", "baseline=x,y"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the baselines found are base, main, new, pr"),
        "{err}"
    );
}

#[test]
fn criterion_sample_json_file_is_one_side() {
    let (set, a, _) = read_pair(
        "criterion/fib/small/main/sample.json",
        "criterion/fib/small/pr/sample.json",
    );
    assert_eq!(a.format, Some(InputFormat::CriterionSample));
    assert_eq!(values(&set, "fib/small", "sec/op", Side::Old).len(), 20);
    assert_eq!(values(&set, "fib/small", "sec/op", Side::New).len(), 20);
}

#[test]
fn a_folder_read_as_another_format_is_a_clear_error() {
    let mut set = SampleSet::new();
    let e = format::read_path(
        &path("criterion"),
        Some(InputFormat::Go),
        &opts(Side::Old),
        &mut set,
    )
    .expect_err("a folder is not Go text")
    .to_string();
    assert!(e.contains("a directory") && !e.contains("os error"), "{e}");
}

#[test]
fn no_samples_names_the_cause_of_the_format_read() {
    let dir = std::env::temp_dir().join(format!("benchdiff-harness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let go = dir.join("empty-go.txt");
    std::fs::write(&go, "goos: linux\ngoarch: amd64\n").expect("write");
    let go = go.to_str().expect("utf-8");
    let (code, _, err) = benchdiff(&["report", go, go]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no samples") && !err.contains("CSV header"),
        "{err}"
    );
}

#[test]
fn details_of_a_zero_to_zero_row_print_no_nan() {
    let dir = std::env::temp_dir().join(format!("benchdiff-zero-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join("zero.txt");
    std::fs::write(
        &f,
        "BenchmarkA 1 0 B/op\nBenchmarkA 1 0 B/op\nBenchmarkA 1 0 B/op\n",
    )
    .expect("write");
    let f = f.to_str().expect("utf-8");
    let (_, out, err) = benchdiff(&["report", f, f, "--details"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.contains("Welch:"), "{out}{err}");
    assert!(!out.contains("NaN"), "{out}");
}
