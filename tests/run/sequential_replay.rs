//! Replays real Node samples through `--stop decided` (issue 17): two fixed `--runs 30`
//! runs of Node's `benchmark/process/next-tick-*.js` under Node 22.11.0 and 24.11.0
//! (`tests/data/sequential/`, see its README), fed round by round to the rule the runner
//! uses (`run::sequential::Decider`: Pocock-type boundary, 5% family-wise over the 15
//! rows, threshold ±1%, `--min-runs 5`, `--max-runs 30`, futility on or off).
//!
//! What it shows: where each row would have stopped, the share of the fixed run's machine
//! time (the `time` column: each sample's measured seconds) the sequential run would have
//! used, and whether its verdicts agree with the fixed run's report on all 30 rounds.
//! A live run differs only by the rounds' noise; the live figures are in the README.

use benchdiff::format::results::plan::{DecideRule, Status, Stop};
use benchdiff::run::sequential::{ALPHA, Decider};
use benchdiff::stats::sequential::{Decision, Method};
use std::collections::BTreeMap;
use std::path::Path;

/// (file, configuration) → (old rates, new rates, old times s, new times s), arrival order.
type Rows = BTreeMap<(String, String), [Vec<f64>; 4]>;

fn read(name: &str) -> Rows {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/sequential")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("data file");
    let mut rows = Rows::new();
    // compare.js's CSV: quoted text fields without commas, numbers bare.
    for line in text.lines().skip(1) {
        let rec: Vec<&str> = line.split(',').map(|f| f.trim_matches('"')).collect();
        assert_eq!(rec.len(), 5, "{line}");
        let key = (rec[1].to_owned(), rec[2].to_owned());
        let e = rows.entry(key).or_default();
        let (rate, time): (f64, f64) = (rec[3].parse().unwrap(), rec[4].parse().unwrap());
        let side = usize::from(rec[0] == "new");
        e[side].push(rate);
        e[2 + side].push(time);
    }
    rows
}

/// How one row ended under the rule: rounds run and status (Open: ran to 30).
fn replay(rows: &Rows, futility: bool) -> Vec<(usize, Status)> {
    let mut d = Decider::new(
        DecideRule {
            stop: Stop::Decided,
            threshold_pct: 1.0,
            alpha: ALPHA,
            method: Method::Pocock,
            futility,
        },
        5,
        30,
    );
    let mut out = vec![(30usize, Status::Open); rows.len()];
    let mut done = vec![false; rows.len()];
    for round in 1..=30 {
        if round == 5 {
            d.fix_rows(rows.len());
        }
        for (i, v) in rows.values().enumerate() {
            if done[i] {
                continue;
            }
            let st = d.status(&v[0][..round], &v[1][..round]);
            if st != Status::Open {
                out[i] = (round, st);
                done[i] = true;
            }
        }
    }
    out
}

/// The fixed run's verdict per row, as `benchdiff report` gives it on the whole file.
fn fixed_verdicts(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/sequential")
        .join(name);
    let out = assert_cmd::Command::cargo_bin("benchdiff")
        .unwrap()
        .args(["report", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn check(name: &str) {
    let rows = read(name);
    assert_eq!(rows.len(), 15);
    assert!(rows.values().all(|v| v[0].len() == 30 && v[1].len() == 30));
    let fixed = fixed_verdicts(name);
    assert_eq!(fixed.len(), 15);
    let total: f64 = rows
        .values()
        .map(|v| v[2].iter().chain(&v[3]).sum::<f64>())
        .sum();
    for futility in [false, true] {
        let ended = replay(&rows, futility);
        let used: f64 = rows
            .values()
            .zip(&ended)
            .map(|(v, (n, _))| v[2][..*n].iter().chain(&v[3][..*n]).sum::<f64>())
            .sum();
        let mut agree = 0;
        for (((key, _), (n, st)), f) in rows.iter().zip(&ended).zip(&fixed) {
            let seq = match st {
                Status::Decided { decision, .. } => match decision {
                    Decision::Faster => "faster",
                    Decision::Slower => "slower",
                    Decision::NoChange => "no_change",
                },
                _ => "inconclusive",
            };
            let how = match st {
                Status::Decided { .. } => "decided",
                Status::Futile { .. } => "futile",
                _ => "max-runs",
            };
            agree +=
                usize::from(seq == f.as_str() || (seq == "inconclusive" && f == "inconclusive"));
            eprintln!("  {} {}: {n} runs, {how} {seq} (fixed: {f})", key.0, key.1);
        }
        let ratio = used / total;
        eprintln!(
            "{name}, futility {futility}: machine time {:.0} of {:.0} s (ratio {ratio:.3}); \
             verdicts agree {agree}/15",
            used, total
        );
        // Never a decision against the fixed run's: a row decided faster/slower is so in
        // the fixed run's 95% interval too (checked through the verdict strings above,
        // allowing a fixed-run "inconclusive" where the rule decided).
        for ((_, st), f) in ended.iter().zip(&fixed) {
            if let Status::Decided { decision, .. } = st {
                let opposite = matches!(
                    (decision, f.as_str()),
                    (Decision::Faster, "slower") | (Decision::Slower, "faster")
                );
                assert!(!opposite, "{st:?} vs {f}");
            }
        }
        assert!(agree >= 13, "{name} futility {futility}: {agree}/15");
        if futility {
            assert!(ratio < 0.8, "{ratio}");
        }
    }
}

#[test]
fn replay_of_the_real_node_run_of_2026_11_30() {
    check("node-next-tick-fixed30-a.csv");
}

#[test]
fn replay_of_the_real_node_run_of_2026_12_01() {
    check("node-next-tick-fixed30-b.csv");
}

#[test]
fn replay_of_the_quiet_real_node_run_of_2026_12_01() {
    check("node-next-tick-fixed30-c.csv");
}
