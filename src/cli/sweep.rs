//! `benchdiff sweep`: one build over a range of parameter values, like Node's
//! `benchmark/scatter.js` (+ scatter.R): every configuration `--runs N` times (default 10), then
//! per configuration the mean rate with its 95% confidence interval
//! `mean ± qt(0.975, n−1) · sd / √n` (Student's t, as scatter.R's `confint` of the mean), as a
//! table, and with `--plot FILE.svg` a line per benchmark (and per value of the other
//! parameters) against the swept parameter (`--x KEY`, default the first one with several
//! values), with the intervals drawn as bars.

use super::command_bench::{self, Outputs};
use super::run_cmd::SingleArgs;
use super::{EXIT_USAGE, Io};
use crate::sample::{BenchmarkId, ConfValue, SampleSet};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Options of `benchdiff sweep`.
#[derive(clap::Args, Debug)]
pub(crate) struct SweepArgs {
    /// Runs per configuration.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(2..))]
    runs: u32,
    /// The metric to show (default `rate`; e.g. `wall`, `max_rss`, or a reported metric).
    #[arg(long, value_name = "NAME")]
    metric: Option<String>,
    /// The swept parameter (x axis); default: the first with more than one value.
    #[arg(long, value_name = "KEY")]
    x: Option<String>,
    /// Draw the sweep as SVG to FILE.svg.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    single: SingleArgs,
}

/// Mean and 95% interval of one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Samples.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Half-width of the 95% interval (NaN below 2 samples).
    pub half: f64,
}

/// `mean ± qt(0.975, n−1)·sd/√n` of finite values.
pub fn mean_ci(values: &[f64]) -> Point {
    let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let n = v.len();
    let mean = v.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return Point {
            n,
            mean,
            half: f64::NAN,
        };
    }
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let half = crate::stats::tdist::qt(0.975, (n - 1) as f64) * sd / (n as f64).sqrt();
    Point { n, mean, half }
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

fn value_text(v: &ConfValue) -> String {
    crate::format::inspect::inspect_value(v)
}

/// Runs `benchdiff sweep`; returns the exit code.
pub(crate) fn sweep(args: SweepArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let prepared = match args.single.plan(Some(args.runs), io)? {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    if let Some(x) = &args.x
        && !prepared
            .plan
            .benchmarks
            .iter()
            .any(|b| b.matrix.params.iter().any(|p| &p.key == x))
    {
        let keys: Vec<&str> = prepared
            .plan
            .benchmarks
            .iter()
            .flat_map(|b| b.matrix.params.iter().map(|p| p.key.as_str()))
            .collect();
        writeln!(
            io.stderr,
            "benchdiff: --x {x}: no benchmark has a parameter {x:?} (parameters: {})",
            if keys.is_empty() {
                "none".to_owned()
            } else {
                keys.join(", ")
            }
        )?;
        return Ok(EXIT_USAGE);
    }
    if let Err(e) = super::check_output_paths(None, args.plot.as_deref()) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    let finished = command_bench::execute(
        &prepared.plan,
        args.single.fail_fast,
        Outputs {
            csv: None,
            results: args.single.results.clone(),
            echo: None,
            progress: io.stderr_is_terminal,
        },
        io.stderr,
    )?;
    let f = match finished {
        Ok(f) => f,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let mut code = command_bench::summarise(&f, io.stderr)?;
    let set = &f.set;
    let metric = match &args.metric {
        None => crate::sample::RATE,
        Some(m) => match set.find_metric(m) {
            Some(id) => id,
            None => {
                writeln!(io.stderr, "benchdiff: --metric {m}: no such metric")?;
                return Ok(EXIT_USAGE);
            }
        },
    };
    let m = set.metric(metric).clone();
    let mut by: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for s in set.samples().iter().filter(|s| s.metric == metric) {
        by.entry(s.benchmark.0).or_default().push(s.value);
    }
    let mut points: Vec<(BenchmarkId, Point)> = by
        .iter()
        .map(|(&b, v)| (BenchmarkId(b), mean_ci(v)))
        .collect();
    // Rows in plan order: benchmarks as given, combinations in -L order (last key fastest).
    let instances = prepared.plan.instances();
    let rank = |b: BenchmarkId| -> usize {
        let bm = set.benchmark(b);
        instances
            .iter()
            .position(|inst| {
                prepared.plan.benchmarks[inst.bench].name == bm.file
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
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::NOTHING);
    t.set_header(vec![
        "benchmark".to_owned(),
        format!("mean {} ({})", m.name, m.unit),
        "95% CI".to_owned(),
        "±%".to_owned(),
        "n".to_owned(),
    ]);
    for (b, p) in &points {
        let bm = set.benchmark(*b);
        t.add_row(vec![
            bm.name(),
            format!("{:.6}", p.mean),
            format!("[{:.6}, {:.6}]", p.mean - p.half, p.mean + p.half),
            format!("{:.2}%", p.half / p.mean * 100.0),
            p.n.to_string(),
        ]);
    }
    writeln!(io.stdout, "{t}")?;
    if let Some(path) = &args.plot {
        match plot(set, &points, args.x.as_deref(), &m.name, &m.unit) {
            Ok(svg) => {
                if let Err(e) = std::fs::write(path, svg) {
                    writeln!(io.stderr, "benchdiff: --plot {}: {e}", path.display())?;
                    code = code.max(EXIT_USAGE);
                } else {
                    writeln!(io.stderr, "benchdiff: plot written to {}", path.display())?;
                }
            }
            Err(e) => {
                writeln!(io.stderr, "benchdiff: --plot: {e}")?;
                code = code.max(EXIT_USAGE);
            }
        }
    }
    Ok(code)
}

/// The SVG: x = the swept parameter (numeric when every value is a number, else evenly spaced
/// labels), one line per benchmark and combination of the other parameters, 95% bars.
fn plot(
    set: &SampleSet,
    points: &[(BenchmarkId, Point)],
    x_key: Option<&str>,
    metric: &str,
    unit: &str,
) -> Result<String, String> {
    let confs: Vec<&Vec<(String, ConfValue)>> = points
        .iter()
        .map(|(b, _)| &set.benchmark(*b).configuration.params)
        .collect();
    let key = match x_key {
        Some(k) => k.to_owned(),
        None => {
            let mut found = None;
            if let Some(first) = confs.first() {
                for (k, _) in first.iter() {
                    let mut vals: Vec<String> = confs
                        .iter()
                        .filter_map(|c| {
                            c.iter().find(|(ck, _)| ck == k).map(|(_, v)| value_text(v))
                        })
                        .collect();
                    vals.sort();
                    vals.dedup();
                    if vals.len() > 1 {
                        found = Some(k.clone());
                        break;
                    }
                }
            }
            found.ok_or("no parameter has more than one value; nothing to sweep")?
        }
    };
    // Series: benchmark file + the other parameters.
    let mut series: BTreeMap<String, Vec<(ConfValue, Point)>> = BTreeMap::new();
    for (b, p) in points {
        let bm = set.benchmark(*b);
        let Some((_, xv)) = bm.configuration.params.iter().find(|(k, _)| *k == key) else {
            continue;
        };
        let rest: Vec<String> = bm
            .configuration
            .params
            .iter()
            .filter(|(k, _)| *k != key)
            .map(|(k, v)| format!("{k}={}", value_text(v)))
            .collect();
        let label = format!("{} {}", bm.file, rest.join(" ")).trim().to_owned();
        series
            .entry(label)
            .or_default()
            .push((xv.clone(), p.clone()));
    }
    if series.is_empty() {
        return Err(format!("no configuration has the parameter {key:?}"));
    }
    let numeric = series
        .values()
        .flatten()
        .all(|(v, _)| matches!(v, ConfValue::Number(x) if x.is_finite()));
    let mut labels: Vec<String> = Vec::new();
    let xpos = |v: &ConfValue, labels: &mut Vec<String>| -> f64 {
        match v {
            ConfValue::Number(x) if numeric => *x,
            other => {
                let t = value_text(other);
                match labels.iter().position(|l| *l == t) {
                    Some(i) => i as f64,
                    None => {
                        labels.push(t);
                        (labels.len() - 1) as f64
                    }
                }
            }
        }
    };
    let mut lines: Vec<(String, Vec<(f64, Point)>)> = Vec::new();
    for (label, pts) in &series {
        let mut v: Vec<(f64, Point)> = pts
            .iter()
            .map(|(x, p)| (xpos(x, &mut labels), p.clone()))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        lines.push((label.clone(), v));
    }
    let all = lines.iter().flat_map(|(_, v)| v.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64, 0.0f64);
    for (x, p) in all {
        x0 = x0.min(*x);
        x1 = x1.max(*x);
        let h = if p.half.is_finite() { p.half } else { 0.0 };
        y0 = y0.min(p.mean - h);
        y1 = y1.max(p.mean + h);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let pad = (x1 - x0) * 0.05;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| format!("{e:?}"))?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .caption(
                format!("{metric} by {key} (mean, 95% interval)"),
                ("sans-serif", 18),
            )
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d((x0 - pad)..(x1 + pad), y0..(y1 * 1.05).max(1e-12))
            .map_err(|e| format!("{e:?}"))?;
        let fmt_x = |x: &f64| {
            if numeric {
                crate::render::table::si(*x)
            } else {
                labels.get(x.round() as usize).cloned().unwrap_or_default()
            }
        };
        chart
            .configure_mesh()
            .x_desc(key.as_str())
            .y_desc(format!("{metric} ({unit})"))
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&|y| crate::render::table::si(*y))
            .draw()
            .map_err(|e| format!("{e:?}"))?;
        for (i, (label, pts)) in lines.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|(x, p)| (*x, p.mean)),
                    color,
                ))
                .map_err(|e| format!("{e:?}"))?
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            chart
                .draw_series(
                    pts.iter()
                        .filter(|(_, p)| p.half.is_finite())
                        .map(|(x, p)| {
                            PathElement::new(
                                vec![(*x, p.mean - p.half), (*x, p.mean + p.half)],
                                color,
                            )
                        }),
                )
                .map_err(|e| format!("{e:?}"))?;
            chart
                .draw_series(
                    pts.iter()
                        .map(|(x, p)| Circle::new((*x, p.mean), 3, color.filled())),
                )
                .map_err(|e| format!("{e:?}"))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| format!("{e:?}"))?;
        root.present().map_err(|e| format!("{e:?}"))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_interval_of_the_mean() {
        // R: t.test(c(1,2,3,4))$conf.int = 0.4457397 4.5542603
        let p = mean_ci(&[1.0, 2.0, 3.0, 4.0]);
        assert!((p.mean - 2.5).abs() < 1e-12);
        assert!((p.mean - p.half - 0.4457397).abs() < 1e-6, "{p:?}");
        assert!(mean_ci(&[1.0]).half.is_nan());
    }
}
