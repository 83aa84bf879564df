//! `--measure`: counters of real children and their descendants. The choice of source given
//! what the machine offers is unit-tested in `run::child::counters`; here real processes are
//! counted: the kernel's software counters, valgrind's cachegrind (instructions without a
//! PMU), and the hardware counters where the machine has them. With `BENCHDIFF_REQUIRE_PMU=1`
//! the hardware test fails on a machine without a PMU instead of checking the error a user
//! gets there.
#![cfg(feature = "e2e")]

use benchdiff::run::child::command::{Spec, run_command};
use benchdiff::run::child::counters::{self, Counter, Measure, Probe};
use std::sync::atomic::AtomicBool;

/// Runs `sh -c SCRIPT` once with `measure`; returns its counters.
fn counted(script: &str, measure: &Measure) -> Vec<(Counter, f64)> {
    let spec = Spec {
        argv: vec!["sh".into(), "-c".into(), script.into()],
        measure: measure.clone(),
        ..Spec::default()
    };
    let o = run_command(&spec, None, None, &AtomicBool::new(false));
    assert!(
        o.ok(),
        "{script}: {:?} {:?}",
        o.error(None),
        o.process.stderr_tail
    );
    o.process.counters
}

fn value(v: &[(Counter, f64)], c: Counter) -> f64 {
    v.iter()
        .find(|(k, _)| *k == c)
        .unwrap_or_else(|| panic!("{c} missing in {v:?}"))
        .1
}

const ONE_LS: &str = "ls / >/dev/null";
const FOUR_LS: &str = "ls / >/dev/null; ls / >/dev/null; ls / >/dev/null; ls / >/dev/null";

#[test]
fn software_counters_count_the_child_and_its_descendants() {
    let all: Vec<Counter> = counters::parse_list("all-software").unwrap();
    let m = counters::select(&all, &counters::probe())
        .unwrap_or_else(|e| panic!("software counters must work here: {e}"));
    assert_eq!(m.perf, all);
    let one = counted(ONE_LS, &m);
    let four = counted(FOUR_LS, &m);
    // Each `ls` is a descendant process: its page faults and CPU time are counted too.
    let (pf1, pf4) = (
        value(&one, Counter::PageFaults),
        value(&four, Counter::PageFaults),
    );
    assert!(pf1 > 50.0, "page faults of one ls: {pf1}");
    assert!(pf4 > 2.5 * pf1, "four ls {pf4} vs one {pf1}");
    let (t1, t4) = (
        value(&one, Counter::TaskClock),
        value(&four, Counter::TaskClock),
    );
    assert!(t1 > 0.0 && t1 < 5.0, "task-clock in seconds: {t1}");
    assert!(t4 > t1, "task-clock four ls {t4} vs one {t1}");
    assert!(value(&four, Counter::ContextSwitches) >= 0.0);
    assert!(value(&four, Counter::CpuMigrations) >= 0.0);
}

/// The cachegrind source, whatever the machine has (as chosen when there is no PMU).
fn cachegrind() -> Measure {
    let probe = Probe {
        hardware: Err(libc::ENOENT),
        ..counters::probe()
    };
    counters::select(&[Counter::Instructions], &probe)
        .unwrap_or_else(|e| panic!("valgrind is needed for this test: {e}"))
}

#[test]
fn cachegrind_counts_instructions_within_one_percent_across_runs() {
    let m = cachegrind();
    assert!(m.cachegrind.is_some() && m.perf.is_empty());
    let runs: Vec<f64> = (0..4)
        .map(|_| value(&counted(ONE_LS, &m), Counter::Instructions))
        .collect();
    let (lo, hi) = runs
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(lo > 100_000.0, "{runs:?}");
    assert!(hi / lo - 1.0 < 0.01, "spread above 1%: {runs:?}");
    // The descendants run under valgrind too (--trace-children=yes).
    let four = value(&counted(FOUR_LS, &m), Counter::Instructions);
    assert!(four > 3.0 * lo, "four ls {four} vs one {lo}");
}

#[test]
fn cachegrind_runs_record_instructions_and_no_wall_time() {
    let d = tempfile::tempdir().unwrap();
    let m = cachegrind();
    let valgrind_dir = m.cachegrind.as_ref().unwrap().parent().unwrap().to_owned();
    // Only valgrind's folder in PATH first, so `--measure instructions` picks it when there
    // is no PMU; with a PMU the hardware counter is used and wall time is kept.
    let no_pmu = counters::probe().hardware.is_err();
    let out = assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .current_dir(d.path())
        .env("NO_COLOR", "1")
        .env("PATH", format!("{}:/usr/bin:/bin", valgrind_dir.display()))
        .args([
            "compare",
            "--old",
            "sh",
            "--new",
            "sh",
            "--bench",
            "-c 'ls / >/dev/null'",
            "--runs",
            "3",
            "--measure",
            "instructions",
            "--no-progress",
            "--csv",
            "out.csv",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let csv = std::fs::read_to_string(d.path().join("out.csv")).unwrap();
    assert!(
        csv.starts_with(
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\",\"instructions\"\n"
        ),
        "{csv}"
    );
    let results = std::fs::read_to_string(d.path().join("out.results.jsonl")).unwrap();
    let job = results
        .lines()
        .find(|l| l.contains("\"command-job\""))
        .expect("a job record");
    assert!(job.contains("\"name\":\"instructions\""), "{job}");
    // The report after the CSV: each side's CV, and every metric summarised below the table.
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("CV old/new"), "{report}");
    assert!(
        report.contains("metrics of these samples") && report.contains("\n  instructions ("),
        "{report}"
    );
    if no_pmu {
        assert!(
            stderr.contains("cachegrind"),
            "the note names the source: {stderr}"
        );
        assert!(!job.contains("\"name\":\"wall\""), "{job}");
    }
}

#[test]
fn hardware_counters_where_the_pmu_exists() {
    let probe = counters::probe();
    let hw = [
        Counter::Instructions,
        Counter::Cycles,
        Counter::BranchMisses,
    ];
    match probe.hardware {
        Ok(()) => {
            let m = counters::select(&hw, &probe).expect("perf for all three");
            assert_eq!(m.perf, hw);
            let one = counted(ONE_LS, &m);
            let four = counted(FOUR_LS, &m);
            let (i1, i4) = (
                value(&one, Counter::Instructions),
                value(&four, Counter::Instructions),
            );
            assert!(i1 > 100_000.0, "{one:?}");
            assert!(i4 > 3.0 * i1, "descendants counted: {i4} vs {i1}");
            assert!(value(&one, Counter::Cycles) > 0.0, "{one:?}");
        }
        Err(e) => {
            assert!(
                std::env::var("BENCHDIFF_REQUIRE_PMU").as_deref() != Ok("1"),
                "BENCHDIFF_REQUIRE_PMU=1 but this machine has no usable hardware counter: \
                 perf_event_open for instructions failed with {}",
                std::io::Error::from_raw_os_error(e)
            );
            // Without a PMU the user gets the error naming it for what valgrind cannot count.
            let err = counters::select(&[Counter::Cycles], &probe).unwrap_err();
            assert!(err.contains("cycles"), "{err}");
            eprintln!("no PMU here ({e}): checked the error a user gets: {err}");
        }
    }
}
