//! The output of `benchdiff sweep` (Node's `benchmark/scatter.js` + `scatter.R`): the table of
//! each configuration's mean with its 95% interval ([`table`]) and the SVG plot of the means
//! against the swept parameter with the intervals as bars ([`plot`]).

use crate::sample::{BenchmarkId, ConfValue, SampleSet};
use crate::verdict::MeanInterval;
use plotters::prelude::*;
use std::collections::BTreeMap;

fn value_text(v: &ConfValue) -> String {
    crate::format::inspect::inspect_value(v)
}

/// The sweep table (no borders): benchmark, mean of `metric` in `unit` (6 decimals), the 95%
/// interval, its half-width in percent of the mean, and the sample count; rows in the order
/// of `points`.
pub fn table(
    set: &SampleSet,
    points: &[(BenchmarkId, MeanInterval)],
    metric: &str,
    unit: &str,
) -> String {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::NOTHING);
    t.set_header(vec![
        "benchmark".to_owned(),
        format!("mean {metric} ({unit})"),
        "95% CI".to_owned(),
        "±%".to_owned(),
        "n".to_owned(),
    ]);
    for (b, p) in points {
        let bm = set.benchmark(*b);
        t.add_row(vec![
            bm.name(),
            format!("{:.6}", p.mean),
            format!("[{:.6}, {:.6}]", p.mean - p.half, p.mean + p.half),
            format!("{:.2}%", p.half / p.mean * 100.0),
            p.n.to_string(),
        ]);
    }
    t.to_string()
}

/// The sweep as an 800×500 SVG: x = the swept parameter `x_key` (default: the first parameter
/// with more than one value; numeric when every value is a number, else evenly spaced
/// labels), y = `metric` in `unit`, one line per benchmark and combination of the other
/// parameters, the 95% intervals as bars.
///
/// # Errors
/// A message when no parameter varies, no configuration has `x_key`, or plotters fails.
pub fn plot(
    set: &SampleSet,
    points: &[(BenchmarkId, MeanInterval)],
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
    let mut series: BTreeMap<String, Vec<(ConfValue, MeanInterval)>> = BTreeMap::new();
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
    let mut lines: Vec<(String, Vec<(f64, MeanInterval)>)> = Vec::new();
    for (label, pts) in &series {
        let mut v: Vec<(f64, MeanInterval)> = pts
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
                super::table::si(*x)
            } else {
                labels.get(x.round() as usize).cloned().unwrap_or_default()
            }
        };
        chart
            .configure_mesh()
            .x_desc(key.as_str())
            .y_desc(format!("{metric} ({unit})"))
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&|y| super::table::si(*y))
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
