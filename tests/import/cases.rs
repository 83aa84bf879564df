//! The importer cases of issue 14 (`tests/data/cases/{06,08,09,13,17,23}-*`): every point of
//! each case with its reference values (as printed in the case's `ref-output.txt`), read from
//! the case folders themselves.

use benchdiff::format::{self, Imported, ReadOptions};
use benchdiff::sample::{SampleSet, Side};
use benchdiff::stats::{quantile::median, rank::rank_sum, welch::welch};
use std::path::PathBuf;
use std::process::Command;

fn case_dir(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cases")
        .join(case)
}

/// Reads `old` and `new` of `case` (format sniffed) into one set.
fn read_pair(case: &str, old: &str, new: &str) -> (SampleSet, Imported, Imported) {
    let mut set = SampleSet::new();
    let mut read = |f: &str, side| {
        let path = case_dir(case).join(f);
        format::read_path(
            path.to_str().expect("utf-8 path"),
            None,
            &ReadOptions {
                side,
                sides_by: None,
            },
            &mut set,
        )
        .unwrap_or_else(|e| panic!("{case}/{f}: {e}"))
    };
    let a = read(old, Side::Old);
    let b = read(new, Side::New);
    (set, a, b)
}

/// The values of benchmark `name` (its [`benchdiff::sample::Benchmark::name`], trimmed) and
/// metric `metric` on `side`, in arrival order.
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

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

fn med(v: &[f64]) -> f64 {
    median(&sorted(v))
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn pct(old: f64, new: f64) -> f64 {
    (new / old - 1.0) * 100.0
}

#[track_caller]
fn close(got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs(),
        "got {got}, want {want} (±{rel} relative)"
    );
}

/// Checks n, medians (in `unit` seconds), change of medians (and of means), the exact
/// Mann–Whitney p and Welch's p of one benchmark and metric against the reference.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn check(
    set: &SampleSet,
    name: &str,
    metric: &str,
    n: (usize, usize),
    medians: (f64, f64),
    change_pct: f64,
    mw_p: f64,
    welch_p: Option<f64>,
) {
    let old = values(set, name, metric, Side::Old);
    let new = values(set, name, metric, Side::New);
    assert_eq!((old.len(), new.len()), n, "{name} {metric}");
    close(med(&old), medians.0, 1e-4);
    close(med(&new), medians.1, 1e-4);
    assert!(
        (pct(med(&old), med(&new)) - change_pct).abs() < 0.006,
        "{name}: change {} want {change_pct}",
        pct(med(&old), med(&new))
    );
    let r = rank_sum(&old, &new, 0.95).expect("rank sum");
    // Completely separated sides: the exact p is 2 / C(n+m, n) even with ties inside a side
    // (the reference's exact test handles ties); benchdiff's test may then use the normal
    // approximation, so the p of separated samples is checked from the ranks themselves.
    let separated = old.iter().all(|o| new.iter().all(|n| o > n))
        || old.iter().all(|o| new.iter().all(|n| o < n));
    if r.exact {
        close(r.p_value, mw_p, 2e-3);
    } else {
        assert!(
            separated,
            "{name}: inexact p {} for sides that overlap",
            r.p_value
        );
        let b = new.len() as f64;
        let c = (1..=old.len()).fold(1.0, |acc, i| acc * (b + i as f64) / i as f64);
        close(2.0 / c, mw_p, 2e-3);
    }
    if let Some(wp) = welch_p {
        close(welch(&old, &new).expect("welch").p_value, wp, 1e-2);
    }
}

/// Runs `benchdiff ARGS` in the case folder: (exit code, stdout, stderr).
fn run(case: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .args(args)
        .current_dir(case_dir(case))
        .env("NO_COLOR", "1")
        .output()
        .expect("benchdiff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// ---------------------------------------------------------------------------------------
// 06 — UTF-16LE with BOM / UTF-8 with BOM, CR LF

const C06: &str = "06-utf16-powershell";

/// Points 1 and 2: both commands succeed; the UTF-16LE file is decoded, not refused.
#[test]
fn case06_p1_p2_utf16_is_decoded_and_reported() {
    for args in [
        &["report", "input-old.txt", "input-new.txt"][..],
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.txt",
            "input-new.txt",
        ][..],
    ] {
        let (code, out, err) = run(C06, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!err.contains("not valid UTF-8"), "{err}");
        assert!(out.contains("Split/rows=1000-20"), "{out}");
        assert!(out.contains("Split/rows=10-20"), "{out}");
    }
    let (_, out, _) = run(
        C06,
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.txt",
            "input-new.txt",
        ],
    );
    assert!(out.contains("-6.67% (p=0.002 n=6)"), "{out}");
    assert!(out.contains("-6.91% (p=0.002 n=6)"), "{out}");
}

/// Point 3: the UTF-8 BOM and CR LF of the new file: 12 samples, the first line's too, and
/// no `\r` in a name or unit.
#[test]
fn case06_p3_utf8_bom_and_crlf() {
    let (set, old, new) = read_pair(C06, "input-old.txt", "input-new.txt");
    assert_eq!(new.warnings, vec![], "no warning for a clean file");
    assert_eq!(old.warnings, vec![]);
    let sec = set
        .samples()
        .iter()
        .filter(|s| s.side == Side::New && set.metric(s.metric).name == "sec/op")
        .count();
    assert_eq!(sec, 12);
    for b in set.benchmarks() {
        assert!(
            !b.name().contains('\r') && !b.name().contains('\u{feff}'),
            "{:?}",
            b.name()
        );
    }
    for m in set.metrics() {
        assert!(!m.unit.contains('\r') && !m.name.contains('\r'), "{m:?}");
    }
}

/// Point 4: the numbers of the reference table; B/op and allocs/op constant and equal; the
/// `cpu:` line read as configuration.
#[test]
fn case06_p4_reference_numbers() {
    let (set, old, _) = read_pair(C06, "input-old.txt", "input-new.txt");
    check(
        &set,
        "Split/rows=1000-20",
        "sec/op",
        (6, 6),
        (41981.5e-9, 39182.5e-9),
        -6.67,
        0.0021645,
        Some(7.67e-7),
    );
    check(
        &set,
        "Split/rows=10-20",
        "sec/op",
        (6, 6),
        (612.1e-9, 569.8e-9),
        -6.91,
        0.0021645,
        Some(1.19e-9),
    );
    for (name, bop) in [("Split/rows=1000-20", 16384.0), ("Split/rows=10-20", 160.0)] {
        for side in [Side::Old, Side::New] {
            assert_eq!(values(&set, name, "B/op", side), vec![bop; 6]);
            assert_eq!(values(&set, name, "allocs/op", side), vec![1.0; 6]);
        }
    }
    assert!(
        old.config.contains(&(
            "cpu".to_owned(),
            "12th Gen Intel(R) Core(TM) i7-12700H".to_owned()
        )),
        "{:?}",
        old.config
    );
    let (_, out, _) = run(
        C06,
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.txt",
            "input-new.txt",
        ],
    );
    assert!(out.contains("all samples are equal"), "{out}");
}

// ---------------------------------------------------------------------------------------
// 08 — Google Benchmark: aggregates, per-row units, bare NaN, skipped row

const C08: &str = "08-gbench-aggregates-units";

/// Point 1: both files load; the bare `NaN` (line 106) is read as null with a warning.
#[test]
fn case08_p1_nan_is_accepted_with_a_warning() {
    let (_, old, _) = read_pair(C08, "input-old.json", "input-new.json");
    let w: Vec<String> = old.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter()
            .any(|w| w.starts_with("input-old.json:106: bare NaN")
                || w.contains("old.json:106: bare NaN")),
        "{w:?}"
    );
    for args in [
        &["report", "input-old.json", "input-new.json"][..],
        &[
            "report",
            "--input-format",
            "google-benchmark",
            "input-old.json",
            "input-new.json",
        ][..],
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.json",
            "input-new.json",
        ][..],
        &["report", "--details", "input-old.json", "input-new.json"][..],
        &[
            "report",
            "--format",
            "json",
            "input-old.json",
            "input-new.json",
        ][..],
    ] {
        let (code, _, err) = run(C08, args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
}

/// Point 2: BM_Parse/4096 from its 9 iteration rows per side, ns and us read alike.
#[test]
fn case08_p2_repetitions_only_in_one_unit() {
    let (set, _, _) = read_pair(C08, "input-old.json", "input-new.json");
    check(
        &set,
        "BM_Parse/4096",
        "sec/op",
        (9, 9),
        (51108.5e-9, 46005.3e-9),
        -9.985,
        4.114e-5,
        Some(1.02e-15),
    );
    check(
        &set,
        "BM_Parse/4096",
        "cpu-sec/op",
        (9, 9),
        (50942.7e-9, 45857.4e-9),
        -9.983,
        4.114e-5,
        Some(3.38e-16),
    );
    for metric in ["sec/op", "cpu-sec/op"] {
        let o = values(&set, "BM_Parse/4096", metric, Side::Old);
        let n = values(&set, "BM_Parse/4096", metric, Side::New);
        assert!((pct(mean(&o), mean(&n)) + 10.064).abs() < 0.006, "{metric}");
    }
}

/// Point 3: BM_Mmap/huge is skipped in the new file, its message shown; no −100 %, no test,
/// no new sample (so in no change and no geomean ratio).
#[test]
fn case08_p3_skipped_row_is_no_sample() {
    let (set, _, new) = read_pair(C08, "input-old.json", "input-new.json");
    assert!(values(&set, "BM_Mmap/huge", "sec/op", Side::New).is_empty());
    assert_eq!(values(&set, "BM_Mmap/huge", "sec/op", Side::Old).len(), 9);
    assert!(
        new.warnings
            .iter()
            .any(|w| w.message.contains("BM_Mmap/huge")
                && w.message.contains("needs 2 MiB huge pages")),
        "{:?}",
        new.warnings
    );
    let (_, out, _) = run(
        C08,
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.json",
            "input-new.json",
        ],
    );
    assert!(!out.contains("-100.00%"), "{out}");
    let (_, out, err) = run(C08, &["report", "input-old.json", "input-new.json"]);
    assert!(!out.contains("-100.00%"), "{out}");
    // With no sample on the new side it is listed as measured on one side only (not a
    // comparison, not in the geomean), or shown as a 9/0 row without a verdict.
    match out
        .lines()
        .find(|l| l.trim_start().starts_with("BM_Mmap/huge"))
    {
        Some(row) => assert!(
            row.contains("9/0") && !row.contains("faster") && !row.contains("slower"),
            "{row}"
        ),
        None => {
            let all = format!("{out}{err}");
            assert!(
                all.lines()
                    .any(|l| l.contains("only in old") && l.contains("BM_Mmap/huge")),
                "{all}"
            )
        }
    }
}

/// Point 4: BM_Lookup/1M (aggregates only) is shown by its mean aggregate, marked, with
/// n = 1+1 and no p-value: 2.1043 → 2.1620 ms, +2.742 %.
#[test]
fn case08_p4_aggregates_only_benchmark_is_shown_marked() {
    let (set, old, _) = read_pair(C08, "input-old.json", "input-new.json");
    let name = "BM_Lookup/1M aggregate=mean";
    let o = values(&set, name, "sec/op", Side::Old);
    let n = values(&set, name, "sec/op", Side::New);
    assert_eq!((o.len(), n.len()), (1, 1));
    close(o[0], 2.1043e-3, 1e-4);
    close(n[0], 2.1620e-3, 1e-4);
    assert!((pct(o[0], n[0]) - 2.742).abs() < 0.006);
    assert!(
        old.warnings
            .iter()
            .any(|w| w.message.contains("BM_Lookup/1M: aggregates only")),
        "{:?}",
        old.warnings
    );
    let (_, out, _) = run(C08, &["report", "input-old.json", "input-new.json"]);
    let row = out
        .lines()
        .find(|l| l.contains("BM_Lookup/1M"))
        .expect("row");
    assert!(
        row.contains("aggregate=mean") && row.contains("+2.74%") && row.contains("NA"),
        "{row}"
    );
    assert!(row.contains("1/1") && row.contains("inconclusive"), "{row}");
}

/// Point 5: the geomean is finite and non-zero, and says it includes the aggregate row.
#[test]
fn case08_p5_geomean_says_what_it_includes() {
    let (_, out, _) = run(
        C08,
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.json",
            "input-new.json",
        ],
    );
    let g = out
        .lines()
        .find(|l| l.starts_with("geomean"))
        .expect("geomean");
    assert!(g.contains("-3.83%"), "{g}");
    assert!(out.contains("includes rows marked aggregate="), "{out}");
    // The reference: geometric mean of the BM_Parse median ratio and BM_Lookup's mean ratio.
    let (set, _, _) = read_pair(C08, "input-old.json", "input-new.json");
    let r1 = med(&values(&set, "BM_Parse/4096", "sec/op", Side::New))
        / med(&values(&set, "BM_Parse/4096", "sec/op", Side::Old));
    let r2 = values(&set, "BM_Lookup/1M aggregate=mean", "sec/op", Side::New)[0]
        / values(&set, "BM_Lookup/1M aggregate=mean", "sec/op", Side::Old)[0];
    assert!((((r1 * r2).sqrt() - 1.0) * 100.0 + 3.832).abs() < 0.006);
}

// ---------------------------------------------------------------------------------------
// 09 — hyperfine: failed runs, a killed run, single runs

const C09: &str = "09-hyperfine-failed-runs";
const INDEXER: &str = "./indexer --threads 4 corpus/ threads=4";

/// Point 1: both files are read (null exit code, null stddev, memory, parameters).
#[test]
fn case09_p1_files_read() {
    for args in [
        &["report", "input-old.json", "input-new.json"][..],
        &["report", "--details", "input-old.json", "input-new.json"][..],
        &[
            "report",
            "--format",
            "json",
            "input-old.json",
            "input-new.json",
        ][..],
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.json",
            "input-new.json",
        ][..],
        &[
            "report",
            "--metric",
            "max_rss",
            "input-old.json",
            "input-new.json",
        ][..],
    ] {
        let (code, _, err) = run(C09, args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
}

/// Point 2a: one warning: 3 of the 10 new runs failed, 2 with exit code 1, 1 by a signal.
#[test]
fn case09_p2a_failed_and_killed_runs_are_named() {
    let (_, old, new) = read_pair(C09, "input-old.json", "input-new.json");
    assert_eq!(old.warnings, vec![]);
    let w: Vec<&str> = new.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("3 of 10 runs failed"), "{}", w[0]);
    assert!(w[0].contains("2 exited with 1 (runs 3, 7)"), "{}", w[0]);
    assert!(w[0].contains("1 killed by a signal"), "{}", w[0]);
    assert!(w[0].contains("(run 9)"), "{}", w[0]);
    assert!(w[0].contains("only the 7 successful runs"), "{}", w[0]);
}

/// Point 2b: only the successful runs are compared: n = 10+7, +0.40 % on means, Welch
/// t = 0.563, df = 13.07, p = 0.5831, exact Mann–Whitney p = 0.6009.
#[test]
fn case09_p2b_successful_runs_only() {
    let (set, _, _) = read_pair(C09, "input-old.json", "input-new.json");
    let o = values(&set, INDEXER, "wall", Side::Old);
    let n = values(&set, INDEXER, "wall", Side::New);
    assert_eq!((o.len(), n.len()), (10, 7));
    close(mean(&o), 1.2001, 1e-4);
    close(mean(&n), 1.2049, 1e-4);
    assert!((pct(mean(&o), mean(&n)) - 0.40).abs() < 0.006);
    close(med(&o), 1.2002, 1e-4);
    close(med(&n), 1.2085, 1e-4);
    let w = welch(&o, &n).expect("welch");
    close(w.t.abs(), 0.563, 2e-3);
    close(w.df, 13.07, 1e-3);
    close(w.p_value, 0.5831, 1e-3);
    let r = rank_sum(&o, &n, 0.95).expect("rank sum");
    assert!(r.exact);
    close(r.p_value, 0.6009, 1e-3);
    let (_, out, _) = run(
        C09,
        &["report", "--details", "input-old.json", "input-new.json"],
    );
    assert!(out.contains("p=0.5831"), "{out}");
    assert!(out.contains("p=0.6009"), "{out}");
}

/// Point 2c: never "faster" without the warning (here: no "faster" at all).
#[test]
fn case09_p2c_never_faster() {
    let (_, out, err) = run(C09, &["report", "input-old.json", "input-new.json"]);
    let row = out
        .lines()
        .find(|l| l.contains("--threads 4"))
        .expect("row");
    assert!(!row.contains("faster"), "{row}");
    assert!(err.contains("3 of 10 runs failed"), "{err}");
}

/// Point 3: `--version`: n = 1+1, no test, −7.14 %, no crash on `stddev: null`.
#[test]
fn case09_p3_single_runs() {
    let (set, _, _) = read_pair(C09, "input-old.json", "input-new.json");
    let o = values(&set, "./indexer --version", "wall", Side::Old);
    let n = values(&set, "./indexer --version", "wall", Side::New);
    assert_eq!((o, n.clone()), (vec![0.0042], vec![0.0039]));
    let (_, out, _) = run(C09, &["report", "input-old.json", "input-new.json"]);
    let row = out.lines().find(|l| l.contains("--version")).expect("row");
    assert!(
        row.contains("-7.14%") && row.contains("NA") && row.contains("1/1"),
        "{row}"
    );
}

/// Point 4: memory per run, no running maximum: the 7 good new runs' own values.
#[test]
fn case09_p4_memory_per_run() {
    let (set, _, _) = read_pair(C09, "input-old.json", "input-new.json");
    let n = values(&set, INDEXER, "max_rss", Side::New);
    assert_eq!(n.len(), 7);
    assert!(n.iter().all(|v| (517e6..=527e6).contains(v)), "{n:?}");
    let mut sorted_n = n.clone();
    sorted_n.sort_by(f64::total_cmp);
    assert_ne!(n, sorted_n, "values in run order, not a running maximum");
}

// ---------------------------------------------------------------------------------------
// 13 — go test output noise

const C13: &str = "13-go-output-noise";

/// Point 1: the `-v` file reads without any warning (name-only lines, output, `--- BENCH:`
/// blocks, PASS/ok and the `#` comment skipped silently).
#[test]
fn case13_p1_verbose_file_is_not_an_error() {
    let (_, old, _) = read_pair(C13, "input-old.txt", "input-new.txt");
    assert_eq!(old.warnings, vec![]);
    let (code, _, err) = run(C13, &["report", "input-old.txt", "input-new.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("input-old.txt"), "{err}");
}

/// Point 2: the six split BenchmarkLoad records are joined: n = 6+6, said once.
#[test]
fn case13_p2_split_records_are_joined() {
    let (set, _, new) = read_pair(C13, "input-old.txt", "input-new.txt");
    assert_eq!(values(&set, "Load-32", "sec/op", Side::New).len(), 6);
    assert_eq!(new.warnings.len(), 1, "{:?}", new.warnings);
    let w = new.warnings[0].to_string();
    assert!(
        w.starts_with(&format!(
            "{}:6: 6 record(s) were split",
            case_dir(C13).join("input-new.txt").display()
        )),
        "{w}"
    );
    assert!(w.contains("line 9"), "{w}");
}

/// Point 3: BenchmarkBuild with iteration count 0: n = 1+1, its custom units kept, +3.05 %.
#[test]
fn case13_p3_iteration_count_zero_and_custom_units() {
    let (set, _, _) = read_pair(C13, "input-old.txt", "input-new.txt");
    let o = values(&set, "Build-32", "sec/op", Side::Old);
    let n = values(&set, "Build-32", "sec/op", Side::New);
    assert_eq!((o.len(), n.len()), (1, 1));
    close(o[0], 16.418745564, 1e-9);
    close(n[0], 16.920337108, 1e-9);
    assert!((pct(o[0], n[0]) - 3.05).abs() < 0.006);
    for unit in ["binary-size", "build-peak-RSS-bytes"] {
        assert_eq!(values(&set, "Build-32", unit, Side::Old).len(), 1, "{unit}");
        assert_eq!(values(&set, "Build-32", unit, Side::New).len(), 1, "{unit}");
    }
    let (_, out, _) = run(
        C13,
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.txt",
            "input-new.txt",
        ],
    );
    assert!(
        out.contains("binary-size") && out.contains("build-peak-RSS-bytes"),
        "{out}"
    );
}

/// Point 4: the reference numbers; B/op and allocs/op constant and equal.
#[test]
fn case13_p4_reference_numbers() {
    let (set, _, _) = read_pair(C13, "input-old.txt", "input-new.txt");
    check(
        &set,
        "Echo/args=3-32",
        "sec/op",
        (6, 6),
        (230.2e-9, 207.4e-9),
        -9.90,
        0.002165,
        None,
    );
    check(
        &set,
        "Load-32",
        "sec/op",
        (6, 6),
        (84260.5e-9, 88328.5e-9),
        4.83,
        0.002165,
        None,
    );
    for (name, bop, allocs) in [("Echo/args=3-32", 48.0, 1.0), ("Load-32", 65536.0, 2.0)] {
        for side in [Side::Old, Side::New] {
            assert_eq!(values(&set, name, "B/op", side), vec![bop; 6]);
            assert_eq!(values(&set, name, "allocs/op", side), vec![allocs; 6]);
        }
    }
    let (_, out, _) = run(
        C13,
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.txt",
            "input-new.txt",
        ],
    );
    assert!(out.contains("-9.90% (p=0.002 n=6)"), "{out}");
    assert!(out.contains("+4.83% (p=0.002 n=6)"), "{out}");
}

// ---------------------------------------------------------------------------------------
// 17 — go test cut by its timeout

const C17: &str = "17-go-timeout-panic";

/// Point 1: line 15 is named as an incomplete record of a run cut off by a panic; no dump
/// line becomes a sample.
#[test]
fn case17_p1_cut_record_is_named() {
    let (set, _, new) = read_pair(C17, "input-old.txt", "input-new.txt");
    assert_eq!(new.warnings.len(), 1, "{:?}", new.warnings);
    let w = &new.warnings[0];
    assert_eq!(w.line, 15);
    assert!(
        w.message
            .contains("incomplete record BenchmarkInitFolder/random-2"),
        "{w}"
    );
    assert!(
        w.message.contains("cut off") && w.message.contains("panic: test timed out"),
        "{w}"
    );
    let names: Vec<String> = set.benchmarks().iter().map(|b| b.name()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
}

/// Point 2: the complete records are compared, n of each row visible.
#[test]
fn case17_p2_complete_records_are_compared() {
    let (set, _, _) = read_pair(C17, "input-old.txt", "input-new.txt");
    check(
        &set,
        "InitFolder/local-module-2",
        "sec/op",
        (5, 3),
        (29.953e-3, 27.119e-3),
        -9.462,
        0.0357143,
        Some(0.000449187),
    );
    check(
        &set,
        "InitFolder/submodule-2",
        "sec/op",
        (5, 3),
        (146.65e-3, 149.29e-3),
        1.803,
        0.142857,
        Some(0.228918),
    );
    check(
        &set,
        "InitFolder/random-2",
        "sec/op",
        (5, 2),
        (144.65e-3, 144.92e-3),
        0.192,
        0.857143,
        Some(0.415098),
    );
    check(
        &set,
        "InitFolder/aws-2",
        "sec/op",
        (5, 2),
        (1.37105, 1.37541),
        0.317,
        0.857143,
        Some(0.951223),
    );
    let (code, out, err) = run(
        C17,
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.txt",
            "input-new.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("-9.46% (p=0.036 n=5+3)"), "{out}");
    for n in ["(p=0.143 n=5+3)", "(p=0.857 n=5+2)"] {
        assert!(out.contains(n), "{n}: {out}");
    }
    let g = out
        .lines()
        .find(|l| l.starts_with("geomean"))
        .expect("geomean");
    assert!(g.contains("-1.89%"), "{g}");
    assert!(out.contains("all samples are equal"), "{out}");
    assert!(err.contains("input-new.txt:15: incomplete record"), "{err}");
}

// ---------------------------------------------------------------------------------------
// 23 — pytest-benchmark 3.0.0 JSON

const C23: &str = "23-pytest-benchmark-old-json";

/// Points 1 and 3: old fields missing do not matter; test_render without per-round data is
/// named with the remedy, and does not block the file.
#[test]
fn case23_p1_p3_missing_data_is_one_entry_only() {
    let (set, old, _) = read_pair(C23, "input-old.json", "input-new.json");
    assert_eq!(old.warnings.len(), 1, "{:?}", old.warnings);
    let w = &old.warnings[0];
    assert_eq!(w.line, 82);
    assert!(
        w.message.contains("tests/test_markup.py::test_render"),
        "{w}"
    );
    assert!(w.message.contains("no per-round data"), "{w}");
    assert!(w.message.contains("--benchmark-save-data"), "{w}");
    assert!(
        values(
            &set,
            "tests/test_markup.py::test_render",
            "sec/op",
            Side::Old
        )
        .is_empty()
    );
    assert_eq!(
        values(
            &set,
            "tests/test_markup.py::test_render",
            "sec/op",
            Side::New
        )
        .len(),
        15
    );
    for args in [
        &["report", "input-old.json", "input-new.json"][..],
        &[
            "report",
            "--format",
            "benchstat",
            "input-old.json",
            "input-new.json",
        ][..],
    ] {
        let (code, _, err) = run(C23, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(err.contains("--benchmark-save-data"), "{err}");
    }
}

/// Point 2: test_parse: n = 25+25, −5.527 % (means), −5.430 % (medians), Welch t = −9.8404,
/// df = 44.444, p = 9.82e-13, exact Mann–Whitney p = 2.20e-12, faster.
#[test]
fn case23_p2_test_parse_is_compared() {
    let (set, _, _) = read_pair(C23, "input-old.json", "input-new.json");
    let name = "tests/test_markup.py::test_parse";
    let o = values(&set, name, "sec/op", Side::Old);
    let n = values(&set, name, "sec/op", Side::New);
    assert_eq!((o.len(), n.len()), (25, 25));
    close(mean(&o), 2.1173e-4, 1e-4);
    close(mean(&n), 2.0002e-4, 1e-4);
    assert!((pct(mean(&o), mean(&n)) + 5.527).abs() < 0.006);
    assert!((pct(med(&o), med(&n)) + 5.430).abs() < 0.006);
    let w = welch(&o, &n).expect("welch");
    close(w.t.abs(), 9.8404, 1e-4);
    close(w.df, 44.444, 1e-4);
    close(w.p_value, 9.82e-13, 2e-3);
    let r = rank_sum(&o, &n, 0.95).expect("rank sum");
    close(r.p_value, 2.20e-12, 5e-3);
    let (_, out, _) = run(C23, &["report", "input-old.json", "input-new.json"]);
    let row = out.lines().find(|l| l.contains("test_parse")).expect("row");
    assert!(row.contains("faster"), "{row}");
}
