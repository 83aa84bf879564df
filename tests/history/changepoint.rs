//! Invariants of `stats::changepoint::detect` over random series (proptest): change points
//! are in order, leave at least `min_size` points on each side, have p-values within the
//! level, are the same for the same seed, and do not depend on the scale or offset of the
//! series (the statistic is location- and scale-equivariant, the test rank-free of units).

use benchdiff::stats::changepoint::{Params, detect};
use proptest::prelude::*;

fn series() -> impl Strategy<Value = Vec<f64>> {
    (
        6usize..80,
        prop::collection::vec(-1e3f64..1e3, 80),
        0usize..3,
    )
        .prop_map(|(n, v, steps)| {
            let mut x: Vec<f64> = v[..n].to_vec();
            for s in 0..steps {
                let at = n * (s + 1) / (steps + 1);
                for y in &mut x[at..] {
                    *y += 5e3;
                }
            }
            x
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn change_points_are_well_formed(x in series(), min_size in 1usize..5) {
        let p = Params { min_size, permutations: 99, ..Params::default() };
        let cps = detect(&x, &p);
        let mut last = 0;
        for c in &cps {
            prop_assert!(c.index >= last + min_size, "{cps:?}");
            prop_assert!(c.index + min_size <= x.len(), "{cps:?}");
            prop_assert!(c.p_value > 0.0 && c.p_value <= p.significance, "{cps:?}");
            last = c.index;
        }
        prop_assert_eq!(&cps, &detect(&x, &p));
        let scaled: Vec<f64> = x.iter().map(|v| v * 3.0 + 7.0).collect();
        let idx = |c: &[benchdiff::stats::changepoint::ChangePoint]| -> Vec<usize> {
            c.iter().map(|c| c.index).collect()
        };
        prop_assert_eq!(idx(&cps), idx(&detect(&scaled, &p)));
    }
}

#[test]
fn constant_series_has_no_change_point() {
    assert!(detect(&[5.0; 40], &Params::default()).is_empty());
    assert!(detect(&[], &Params::default()).is_empty());
}
