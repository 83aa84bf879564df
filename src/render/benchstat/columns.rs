//! benchstat's view of more than two sides: a column per side, the first the base and every
//! other with its `vs base` cell, as `benchstat` prints N files (golang/perf's
//! `cmd/benchstat/testdata/crcSizeVsPoly.stdout` is such a table). Each cell is what the
//! two-column view prints for that side against the base ([`super::View`]); the geomean row
//! has every column's geometric mean and each compared column's ratio to the base.

use super::{
    Notes, Options, Summary, add_mark, center, delta, escaped, fmt_value, join, pad_right,
    scale_for, summarize, width, write_config,
};
use crate::compare::group_metric;
use crate::sample::SampleSet;
use crate::verdict::benchstat;

/// The cells of one row: name; per column value, interval, note; per compared column delta,
/// detail, note.
#[derive(Clone, Default)]
struct Cells {
    name: String,
    cols: Vec<[String; 3]>,
    deltas: Vec<[String; 3]>,
}

/// One benchmark's samples per column (the base first), empty where a column has none.
struct Row {
    name: String,
    values: Vec<Vec<f64>>,
}

/// Renders benchstat's view of the columns `views` (one per compared side: the base as the
/// old side, that column as the new side), headed by `labels` (the base's, then each
/// column's), with `opts` (exact units, configuration lines, α, confidence): one table per
/// metric in first-seen order.
pub fn render_columns(views: &[&SampleSet], labels: &[String], opts: &Options) -> String {
    let opts = &escaped(opts);
    let mut out: Vec<u8> = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_config(opts, &mut out);
    let mut metrics: Vec<(String, String)> = Vec::new();
    for set in views {
        for s in set.iter() {
            let m = set.metric(s.metric);
            if !metrics.iter().any(|(n, u)| *n == m.name && *u == m.unit) {
                metrics.push((m.name.clone(), m.unit.clone()));
            }
        }
    }
    let labels: Vec<String> = labels
        .iter()
        .map(|l| crate::render::escape_control(l).into_owned())
        .collect();
    let mut text = String::new();
    for (i, (name, unit)) in metrics.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let rows = rows_of(views, name, unit);
        let exact = opts.exact_units.contains(unit);
        text.push_str(&table(&rows, &labels, unit, exact, opts));
    }
    out.extend_from_slice(text.as_bytes());
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The rows of metric `name` (`unit`): the base's benchmarks in first-seen order, then any a
/// column adds.
fn rows_of(views: &[&SampleSet], name: &str, unit: &str) -> Vec<Row> {
    let cols = views.len() + 1;
    let mut rows: Vec<Row> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (k, set) in views.iter().enumerate() {
        let Some(id) = (0..set.metrics().len())
            .map(|i| crate::sample::MetricId(i as u32))
            .find(|&id| set.metric(id).name == name && set.metric(id).unit == unit)
        else {
            continue;
        };
        for c in group_metric(set, id) {
            let n = crate::render::escape_control(c.name.trim_end()).into_owned();
            let i = *at.entry(n.clone()).or_insert_with(|| {
                rows.push(Row {
                    name: n,
                    values: vec![Vec::new(); cols],
                });
                rows.len() - 1
            });
            if rows[i].values[0].is_empty() {
                rows[i].values[0] = c.old;
            }
            rows[i].values[k + 1] = c.new;
        }
    }
    rows
}

/// The cells of `r` (values in `unit`, `exact` or not), its notes marked in `notes`.
fn cells(r: &Row, unit: &str, exact: bool, opts: &Options, notes: &mut Notes) -> Cells {
    let sums: Vec<Option<Summary>> = r
        .values
        .iter()
        .map(|v| (!v.is_empty()).then(|| summarize(v, exact, opts.confidence)))
        .collect();
    let min = sums
        .iter()
        .flatten()
        .map(|s| s.center.abs())
        .filter(|x| *x > 0.0)
        .fold(f64::INFINITY, f64::min);
    let sc = scale_for(unit, if min.is_finite() { min } else { 0.0 });
    let mut c = Cells {
        name: r.name.clone(),
        cols: vec![Default::default(); sums.len()],
        deltas: vec![Default::default(); sums.len() - 1],
    };
    for (j, s) in sums.iter().enumerate() {
        let Some(s) = s else { continue };
        c.cols[j][0] = fmt_value(s.center, &sc);
        c.cols[j][1] = match s.range {
            Some(r) => format!("± {:.0}%", r * 100.0),
            None => "± ∞".to_owned(),
        };
        if let Some(n) = &s.note {
            c.cols[j][2] = notes.mark(n);
        }
    }
    for k in 1..sums.len() {
        if let (Some(so), Some(sn)) = (&sums[0], &sums[k]) {
            let t = benchstat::rank_test(&r.values[0], &r.values[k], exact);
            let n = [r.values[0].len(), r.values[k].len()];
            let d = delta(n, so, sn, exact, opts.alpha, t.p_value, t.all_equal);
            c.deltas[k - 1][0] = d.text;
            c.deltas[k - 1][1] = d.detail;
            // Only a change shown (p < α) can mislead: `~` claims none.
            let regimes = if exact || t.p_value.is_nan() || t.p_value >= opts.alpha {
                None
            } else {
                benchstat::regimes_note(&r.values[0], &r.values[k])
            };
            for n in d.notes.iter().map(String::as_str).chain(regimes) {
                let m = notes.mark(n);
                add_mark(&mut c.deltas[k - 1][2], m);
            }
        }
    }
    c
}

/// The geomean row of `rows` (`ncols` columns, values in `unit`), its notes marked in `notes`.
fn geomean(
    rows: &[Row],
    ncols: usize,
    unit: &str,
    exact: bool,
    opts: &Options,
    notes: &mut Notes,
) -> Cells {
    let mut g = Cells {
        name: "geomean".to_owned(),
        cols: vec![Default::default(); ncols],
        deltas: vec![Default::default(); ncols - 1],
    };
    let centers: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| {
            r.values
                .iter()
                .map(|v| (!v.is_empty()).then(|| summarize(v, exact, opts.confidence).center))
                .collect()
        })
        .collect();
    for j in 0..ncols {
        let cs: Vec<f64> = centers.iter().filter_map(|r| r[j]).collect();
        if cs.iter().any(|&c| c.is_nan() || c <= 0.0) {
            let m = notes.mark("summaries must be >0 to compute geomean");
            if j == 0 {
                g.cols[0][2] = m;
            } else {
                add_mark(&mut g.deltas[j - 1][2], m);
            }
        } else if !cs.is_empty() {
            let v = (cs.iter().map(|c| c.ln()).sum::<f64>() / cs.len() as f64).exp();
            g.cols[j][0] = fmt_value(v, &scale_for(unit, v));
        }
        if j == 0 {
            continue;
        }
        let mut ratios: Vec<Option<f64>> = Vec::new();
        let mut differs = false;
        for r in &centers {
            match (r[0], r[j]) {
                (Some(o), Some(n)) => ratios.push(if o == 0.0 {
                    (n == 0.0).then_some(1.0)
                } else {
                    Some(n / o)
                }),
                _ => differs = true,
            }
        }
        g.deltas[j - 1][0] = if ratios.is_empty() || ratios.iter().any(Option::is_none) {
            "?".to_owned()
        } else {
            let r: Vec<f64> = ratios.iter().flatten().copied().collect();
            let x = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len() as f64).exp();
            format!("{:+.2}%", (x - 1.0) * 100.0)
        };
        if differs {
            let m =
                notes.mark("benchmark set differs from baseline; geomeans may not be comparable");
            add_mark(&mut g.deltas[j - 1][2], m);
        }
    }
    g
}

/// One table: two header lines, a line per row, the geomean line when there are several
/// rows, the notes.
fn table(rows: &[Row], labels: &[String], unit: &str, exact: bool, opts: &Options) -> String {
    let ncols = labels.len();
    let mut notes = Notes(Vec::new());
    let mut lines: Vec<Cells> = rows
        .iter()
        .map(|r| cells(r, unit, exact, opts, &mut notes))
        .collect();
    if rows.len() > 1 {
        lines.push(geomean(rows, ncols, unit, exact, opts, &mut notes));
    }
    let name_w = lines.iter().map(|c| width(&c.name)).max().unwrap_or(0);
    let cw: Vec<[usize; 3]> = (0..ncols)
        .map(|j| {
            std::array::from_fn(|k| {
                lines
                    .iter()
                    .map(|c| width(&c.cols[j][k]))
                    .max()
                    .unwrap_or(0)
            })
        })
        .collect();
    let dw: Vec<[usize; 3]> = (0..ncols - 1)
        .map(|j| {
            std::array::from_fn(|k| {
                lines
                    .iter()
                    .map(|c| width(&c.deltas[j][k]))
                    .max()
                    .unwrap_or(0)
            })
        })
        .collect();
    let group = |c: &Cells, j: usize| {
        join(&[
            (&c.cols[j][0], cw[j][0], true),
            (&c.cols[j][1], cw[j][1], false),
            (&c.cols[j][2], cw[j][2], false),
        ])
    };
    let empty = Cells {
        cols: vec![Default::default(); ncols],
        deltas: vec![Default::default(); ncols - 1],
        ..Cells::default()
    };
    let vc: Vec<usize> = (0..ncols)
        .map(|j| width(&group(&empty, j)).max(width(unit)))
        .collect();
    let compared = |c: &Cells, j: usize| {
        let d = join(&[
            (&c.deltas[j - 1][0], dw[j - 1][0], true),
            (&c.deltas[j - 1][1], dw[j - 1][1], false),
            (&c.deltas[j - 1][2], dw[j - 1][2], false),
        ]);
        format!("{}  {d}", pad_right(&group(c, j), vc[j]))
    };
    let gw: Vec<usize> = (0..ncols)
        .map(|j| {
            if j == 0 {
                vc[0].max(width(&labels[0]))
            } else {
                width(&compared(&empty, j))
                    .max(vc[j] + 2 + width("vs base"))
                    .max(width(&labels[j]))
            }
        })
        .collect();
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(s.trim_end());
        out.push('\n');
    };
    let blank = " ".repeat(name_w);
    let mut h1 = format!("{blank} │");
    let mut h2 = format!("{blank} │");
    for j in 0..ncols {
        h1.push_str(&format!(" {} │", center(&labels[j], gw[j])));
        let sub = if j == 0 {
            center(unit, gw[0])
        } else {
            pad_right(&format!("{}  vs base", center(unit, vc[j])), gw[j])
        };
        h2.push_str(&format!(" {sub} │"));
    }
    line(h1);
    line(h2);
    for c in &lines {
        let mut s = pad_right(&c.name, name_w);
        for (j, w) in gw.iter().enumerate() {
            s.push_str("   ");
            let g = if j == 0 { group(c, 0) } else { compared(c, j) };
            s.push_str(&pad_right(&g, *w));
        }
        line(s);
    }
    let mut text = crate::render::escape_control_lines(&out).into_owned();
    for (i, n) in notes.0.iter().enumerate() {
        let mark = super::SUPERSCRIPTS
            .get(i)
            .map_or_else(|| format!("({})", i + 1), |s| (*s).to_owned());
        text.push_str(&crate::render::escape_control_lines(&format!(
            "{mark} {n}\n"
        )));
    }
    text
}
