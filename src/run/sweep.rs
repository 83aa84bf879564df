//! `sweep` (Node's `benchmark/scatter.js` + scatter.R): per configuration of a one-build
//! command run, the mean with its 95% interval ([`crate::stats::precision::mean_ci`]), in the
//! plan's order. The table and plot are [`crate::render::sweep`].

use super::command_run::CommandPlan;
use crate::sample::{BenchmarkId, ConfValue, MetricId, SampleSet};
use crate::stats::precision::{MeanInterval, mean_ci};
use std::collections::BTreeMap;

/// Checks that some benchmark of `plan` has the parameter `x` (the swept one).
///
/// # Errors
/// A message naming `x` and the parameters there are.
pub fn check_x(plan: &CommandPlan, x: &str) -> Result<(), String> {
    if plan
        .benchmarks
        .iter()
        .any(|b| b.matrix.params.iter().any(|p| p.key == x))
    {
        return Ok(());
    }
    let keys: Vec<&str> = plan
        .benchmarks
        .iter()
        .flat_map(|b| b.matrix.params.iter().map(|p| p.key.as_str()))
        .collect();
    Err(format!(
        "--x {x}: no benchmark has a parameter {x:?} (parameters: {})",
        if keys.is_empty() {
            "none".to_owned()
        } else {
            keys.join(", ")
        }
    ))
}

/// True when a configuration value is the parameter value text `v` (numbers compared as
/// numbers: `0.10` is `0.1`).
fn same_value(c: &ConfValue, v: &str) -> bool {
    match c {
        ConfValue::Number(x) => v.trim().parse::<f64>().is_ok_and(|y| y == *x),
        ConfValue::String(s) => s == v,
        ConfValue::Bool(b) => b.to_string() == v,
    }
}

/// The mean of `metric` with its 95% interval per benchmark configuration of `set`, in plan
/// order: benchmarks as given, combinations in `-L` order (last key fastest); configurations
/// the plan does not name come last.
pub fn points(
    plan: &CommandPlan,
    set: &SampleSet,
    metric: MetricId,
) -> Vec<(BenchmarkId, MeanInterval)> {
    let mut by: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for s in set.samples().iter().filter(|s| s.metric == metric) {
        by.entry(s.benchmark.0).or_default().push(s.value);
    }
    let mut points: Vec<(BenchmarkId, MeanInterval)> = by
        .iter()
        .map(|(&b, v)| (BenchmarkId(b), mean_ci(v)))
        .collect();
    let instances = plan.instances();
    let rank = |b: BenchmarkId| -> usize {
        let bm = set.benchmark(b);
        instances
            .iter()
            .position(|inst| {
                plan.benchmarks[inst.bench].name == bm.file
                    && inst.combo.len() == bm.configuration.params.len()
                    && inst.combo.iter().all(|(k, v)| {
                        bm.configuration
                            .params
                            .iter()
                            .any(|(ck, cv)| ck == k && same_value(cv, v))
                    })
            })
            .unwrap_or(usize::MAX)
    };
    points.sort_by_key(|(b, _)| rank(*b));
    points
}
