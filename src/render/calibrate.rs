//! The reports of `benchdiff calibrate`: the A/A table with its false-positive and noise
//! lines ([`aa`]), and the value `--find-n` chose per benchmark file ([`find_n_line`]).

use crate::format::inspect::js_number;
use crate::verdict::calibrate::{AaRow, AgainstNominal, FalsePositives};

fn pct_text(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.2}%"),
        _ => "NA".to_owned(),
    }
}

/// The A/A report: the table (benchmark, runs old/new, CV, resolvable ±95%, Welch p with `*`
/// below 0.05, runs per side for ±`target_pct` percent), then the false-positive lines
/// (`fp`, none when no row had a test) and the noise summary with the wall time `wall_s`
/// in seconds.
pub fn aa(rows: &[AaRow], fp: Option<&FalsePositives>, target_pct: f64, wall_s: f64) -> String {
    let head = [
        "benchmark".to_owned(),
        "runs".to_owned(),
        "CV".to_owned(),
        "resolvable (±95%)".to_owned(),
        "p (Welch)".to_owned(),
        format!("runs/side for ±{target_pct}%"),
    ];
    let mut cells: Vec<[String; 6]> = vec![head];
    for r in rows {
        cells.push([
            r.name.clone(),
            format!("{}/{}", r.runs[0], r.runs[1]),
            pct_text(Some(r.cv_pct)),
            pct_text(r.half_width_pct),
            if r.p_value.is_finite() {
                let star = if r.p_value < 0.05 { " *" } else { "" };
                format!("{:.3}{star}", r.p_value)
            } else {
                "NA".to_owned()
            },
            r.runs_needed
                .map_or(">100000".to_owned(), |n| n.to_string()),
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|i| {
            cells
                .iter()
                .map(|c| c[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (j, c) in cells.iter().enumerate() {
        let mut line = String::new();
        for i in 0..6 {
            if i == 0 {
                line.push_str(&format!("{:<w$}", c[i], w = widths[i]));
            } else {
                line.push_str(&format!("  {:>w$}", c[i], w = widths[i]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if j == 0 {
            out.push_str(&"─".repeat(widths.iter().sum::<usize>() + 2 * 5));
            out.push('\n');
        }
    }
    out.push('\n');
    if let Some(fp) = fp {
        let (k, m) = (fp.significant, fp.tested);
        let (lo, hi) = fp.wilson;
        let rate = k as f64 / m as f64 * 100.0;
        let judgement = match fp.against_nominal() {
            AgainstNominal::Above => {
                "ABOVE the nominal 5%: the rows vary more between sides than their own spread \
                 says (drift, or noise shared within a run); trust only large changes"
            }
            AgainstNominal::Below => "below the nominal 5%",
            AgainstNominal::Consistent => "consistent with the nominal 5%",
        };
        out.push_str(&format!(
            "false positives: {k} of {m} configurations have Welch p < 0.05 (A/A: every one is \
             noise): {rate:.1}%, 95% CI [{:.1}%, {:.1}%] (Wilson score interval); {judgement}\n",
            lo * 100.0,
            hi * 100.0
        ));
        out.push_str(&format!(
            "after {} correction: {} of {} significant; benchdiff verdicts faster/slower: {}\n",
            fp.correction, fp.corrected_significant, fp.assessed, fp.verdicts
        ));
        for (name, p) in &fp.rows {
            out.push_str(&format!("  false positive: {name} (p = {p:.4})\n"));
        }
    }
    let mut cvs: Vec<f64> = rows
        .iter()
        .map(|r| r.cv_pct)
        .filter(|x| x.is_finite())
        .collect();
    cvs.sort_by(f64::total_cmp);
    if let (Some(first), Some(last)) = (cvs.first(), cvs.last()) {
        let med = cvs[cvs.len() / 2];
        let worst_need = rows.iter().map(|r| r.runs_needed).max().flatten();
        out.push_str(&format!(
            "noise: CV from {first:.2}% to {last:.2}% (median {med:.2}%); runs per side for \
             ±{target_pct}% on every configuration: {}; wall time {wall_s:.1} s\n",
            worst_need.map_or(">100000".to_owned(), |n| n.to_string())
        ));
    }
    out
}

/// One line of `--find-n`'s result: `FILE: KEY=VALUE (why)` for a chosen value (in
/// JavaScript's number format), `FILE: none (why)` when none met the rule.
pub fn find_n_line(file: &str, key: &str, value: Option<f64>, why: &str) -> String {
    match value {
        Some(v) => format!("{file}: {key}={} ({why})\n", js_number(v)),
        None => format!("{file}: none ({why})\n"),
    }
}
