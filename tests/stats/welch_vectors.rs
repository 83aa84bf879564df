//! Every row of `tests/data/oracle/welch/welch-vectors.tsv` (R 4.2.2 `t.test(new, old)`):
//! t, df and p within 1e-9 relative, stars exact, improvement and accuracy exact at two
//! decimals. The two rows where R itself fails (`huge_rates`, `tiny_rates`) must give the
//! scale-invariant answer instead.

use benchdiff::render::compare_r::r_fixed2;
use benchdiff::stats::{tdist, welch};
use benchdiff::verdict::Stars;

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/oracle/welch/welch-vectors.tsv"
);

fn nums(s: &str) -> Vec<f64> {
    s.split(',')
        .map(|v| v.parse().expect("oracle number"))
        .collect()
}

fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / b.abs().max(1e-300)
    }
}

#[test]
fn every_oracle_row() {
    let text = std::fs::read_to_string(ORACLE)
        .unwrap_or_else(|e| panic!("oracle file {ORACLE} is required: {e}"));
    let mut checked = 0;
    let mut worst_p: f64 = 0.0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let case = f[0];
        let old = nums(f[1]);
        let new = nums(f[2]);
        if case == "huge_rates" || case == "tiny_rates" {
            let w = welch::welch(&old, &new).expect("scale-invariant result");
            assert!((w.t - 3.873).abs() < 5e-4, "{case}: t {}", w.t);
            assert!((w.df - 2.9412).abs() < 5e-5, "{case}: df {}", w.df);
            assert!(
                (w.p_value - 0.03156).abs() < 5e-6,
                "{case}: p {}",
                w.p_value
            );
            assert_eq!(Stars::from_p(w.p_value), Stars::One);
            checked += 1;
            continue;
        }
        let g = |i: usize| -> f64 { f[i].parse().expect("oracle number") };
        let (t, df, p) = (g(5), g(6), g(7));
        let w = welch::welch(&old, &new).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert!(rel(w.t, t) < 1e-9, "{case}: t {} vs R {}", w.t, t);
        assert!(rel(w.df, df) < 1e-9, "{case}: df {} vs R {}", w.df, df);
        assert!(
            rel(w.p_value, p) < 1e-9,
            "{case}: p {:e} vs R {:e}",
            w.p_value,
            p
        );
        worst_p = worst_p.max(rel(w.p_value, p));
        // Quantiles at the three risks.
        for (i, risk) in [(8, 0.05), (9, 0.01), (10, 0.001)] {
            let q = tdist::qt(1.0 - risk / 2.0, w.df);
            assert!(rel(q, g(i)) < 1e-9, "{case}: qt({risk}) {q} vs R {}", g(i));
        }
        assert_eq!(Stars::from_p(w.p_value).as_str(), f[15], "{case}: stars");
        assert_eq!(
            r_fixed2(welch::improvement_pct(&old, &new)),
            r_fixed2(g(11)),
            "{case}: improvement"
        );
        for (i, risk) in [(12, 0.05), (13, 0.01), (14, 0.001)] {
            assert_eq!(
                r_fixed2(w.accuracy_pct(risk)),
                r_fixed2(g(i)),
                "{case}: accuracy {risk}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 173, "every oracle row is checked");
    eprintln!("worst relative p-value error: {worst_p:e}");
}

/// The star boundaries: p just below and just above 0.05 / 0.01 / 0.001 in t, for several df.
#[test]
fn star_boundaries_are_exact() {
    for df in [2.0, 5.5, 17.3, 58.0, 1000.0] {
        for alpha in [0.05, 0.01, 0.001] {
            let t = tdist::qt(1.0 - alpha / 2.0, df);
            let p = tdist::two_sided_p(t, df);
            assert!(rel(p, alpha) < 1e-12, "df {df} alpha {alpha}: p {p:e}");
            let below = tdist::two_sided_p(t * (1.0 + 1e-9), df);
            let above = tdist::two_sided_p(t * (1.0 - 1e-9), df);
            assert!(below < alpha && above > alpha, "df {df} alpha {alpha}");
        }
    }
}
