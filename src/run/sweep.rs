//! `sweep` (Node's `benchmark/scatter.js` + scatter.R): per configuration of a one-build
//! command run, the mean with its 95% interval ([`crate::stats::precision::mean_ci`]), in the
//! plan's order ([`points`]), and what `sweep` shows after its run ([`show`]). The table and
//! plot are [`crate::render::sweep`].

use super::command_run::CommandPlan;
use super::ending::Stop;
use crate::report::EXIT_USAGE;
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

/// What `sweep` shows after its run: the table for stdout, the lines for stderr (where the
/// plot went, or why it did not), and the exit code they give (2 when the plot failed).
pub struct Swept {
    /// The table ([`crate::render::sweep::table`]), without a final line break.
    pub table: String,
    /// Lines for stderr, each whole.
    pub lines: Vec<String>,
    /// 0, or [`EXIT_USAGE`] when the plot could not be drawn or written.
    pub code: i32,
}

/// The points of `set` on `metric` (`None`: `rate`) in `plan`'s order as a table, and with
/// `plot` the SVG drawn against the parameter `x` (default: the first with several values)
/// and written there.
///
/// # Errors
/// `set` has no metric `metric` (exit 2).
pub fn show(
    plan: &CommandPlan,
    set: &SampleSet,
    metric: Option<&str>,
    x: Option<&str>,
    plot: Option<&std::path::Path>,
) -> Result<Swept, Stop> {
    let id = match metric {
        None => crate::sample::RATE,
        Some(m) => set
            .find_metric(m)
            .ok_or_else(|| Stop::usage(format!("--metric {m}: no such metric")))?,
    };
    let m = set.metric(id);
    let points = points(plan, set, id);
    let mut swept = Swept {
        table: crate::render::sweep::table(set, &points, &m.name, &m.unit),
        lines: Vec::new(),
        code: 0,
    };
    if let Some(path) = plot {
        let drawn = crate::render::sweep::plot(set, &points, x, &m.name, &m.unit)
            .map_err(|e| format!("benchdiff: --plot: {e}"))
            .and_then(|svg| {
                std::fs::write(path, svg)
                    .map_err(|e| format!("benchdiff: --plot {}: {e}", path.display()))
            });
        swept.lines.push(match drawn {
            Ok(()) => format!("benchdiff: plot written to {}", path.display()),
            Err(e) => {
                swept.code = EXIT_USAGE;
                e
            }
        });
    }
    Ok(swept)
}
