//! How a report shows each side's coefficient of variation and the summary of its metrics
//! ([`crate::verdict::metrics::Metrics`]): the table's `CV old/new` column and its metrics
//! section, the Markdown comment's metrics table, the JSON report's `metrics` array.

use super::table::signed_pct;
use crate::sample::Better;
use crate::verdict::metrics::{MetricSummary, Metrics};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The header of the table's CV column.
pub const CV_HEADER: &str = "CV old/new";

/// A CV in percent with two significant digits: `2.7%`, `0.35%`, `0.00012%`; `1.2e-6%` below
/// 0.0001%, `0%` for no spread at all, `NA` when undefined (fewer than 2 samples, a mean of 0).
pub fn cv_text(x: f64) -> String {
    if !x.is_finite() {
        "NA".to_owned()
    } else if x == 0.0 {
        "0%".to_owned()
    } else if x.abs() < 1e-4 {
        format!("{x:.1e}%")
    } else {
        // Digits after the point for two significant digits (none from 10 on).
        let digits = (1 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}%")
    }
}

/// The CV cell of a comparison: the old and the new side's CV, `0.00012%/0.00009%`.
pub fn cv_cell(cv: [f64; 2]) -> String {
    format!("{}/{}", cv_text(cv[0]), cv_text(cv[1]))
}

/// The summaries of `m` in report order: the deciding metric first (flagged true), then the
/// others.
fn all(m: &Metrics) -> impl Iterator<Item = (&MetricSummary, bool)> {
    (m.chosen.iter().map(|s| (s, true))).chain(m.others.iter().map(|s| (s, false)))
}

/// The change cell of a metric: its change (geomean over several comparisons), `n/a` when
/// undefined.
fn change_cell(s: &MetricSummary) -> String {
    s.change_pct.map_or_else(|| "n/a".to_owned(), signed_pct)
}

/// The name of a metric with its unit and direction: `wall (s, lower is better)`.
fn described(s: &MetricSummary) -> String {
    format!(
        "{} ({}, {} is better)",
        s.name,
        if s.unit.is_empty() { "count" } else { &s.unit },
        match s.better {
            Better::Lower => "lower",
            Better::Higher => "higher",
        }
    )
}

/// The table's metrics section (empty without summaries): one aligned line per metric, the
/// deciding one first, with its change (the geomean over the comparisons), the median CV of each side and the verdict
/// counts, all under the report's options.
pub fn section(m: &Metrics) -> String {
    let lines: Vec<[String; 4]> = all(m)
        .map(|(s, decides)| {
            let [n, faster, slower, same, open] = s.counts;
            [
                format!("{}{}", described(s), if decides { ", decides" } else { "" }),
                change_cell(s),
                cv_cell(s.cv_pct),
                format!(
                    "{n} comparison{}: {faster} faster, {slower} slower, {same} no change, \
                     {open} inconclusive",
                    if n == 1 { "" } else { "s" }
                ),
            ]
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let heads = ["metric", "change", CV_HEADER, "verdicts"];
    let width = |i: usize| {
        lines
            .iter()
            .map(|l| l[i].chars().count())
            .chain([heads[i].len()])
            .max()
            .unwrap_or(0)
    };
    let w = [width(0), width(1), width(2)];
    let mut out = String::from(
        "\nmetrics of these samples, each compared the same way (--metric NAME reports one; \
         change: geomean over the comparisons; CV: their median):\n",
    );
    let mut line = |c: [&str; 4]| {
        let _ = writeln!(
            out,
            "  {:<w0$}  {:>w1$}  {:>w2$}  {}",
            c[0],
            c[1],
            c[2],
            c[3],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2]
        );
    };
    line(heads);
    for l in &lines {
        line([&l[0], &l[1], &l[2], &l[3]]);
    }
    out
}

/// The Markdown comment's metrics table (empty without summaries), before its run facts.
pub fn markdown(m: &Metrics) -> String {
    let mut out = String::new();
    for (s, decides) in all(m) {
        if out.is_empty() {
            out.push_str(
                "**Metrics** (each compared the same way; `--metric NAME` reports one; change: \
                 geomean over the comparisons; CV: their median)\n\n\
                 | metric | change | CV old/new | faster | slower | no change | inconclusive |\n\
                 |:--|--:|--:|--:|--:|--:|--:|\n",
            );
        }
        let [_, faster, slower, same, open] = s.counts;
        let name = super::markdown::escape(&described(s));
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {faster} | {slower} | {same} | {open} |",
            if decides { "**" } else { "" },
            if decides { format!("{name}**") } else { name },
            change_cell(s),
            cv_cell(s.cv_pct),
        );
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The JSON report's `metrics` array (None without summaries: the key is then left out).
pub fn json(m: &Metrics) -> Option<Value> {
    let num = |x: f64| if x.is_finite() { json!(x) } else { Value::Null };
    let items: Vec<Value> = all(m)
        .map(|(s, decides)| {
            let [n, faster, slower, same, open] = s.counts;
            json!({
                "name": s.name,
                "unit": s.unit,
                "better": match s.better { Better::Lower => "lower", Better::Higher => "higher" },
                "decides": decides,
                "comparisons": n,
                "faster": faster,
                "slower": slower,
                "no_change": same,
                "inconclusive": open,
                "change_pct": s.change_pct.map_or(Value::Null, num),
                "cv_pct": { "old": num(s.cv_pct[0]), "new": num(s.cv_pct[1]) },
            })
        })
        .collect();
    (!items.is_empty()).then_some(Value::Array(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cv_with_two_significant_digits() {
        assert_eq!(cv_text(2.6612), "2.7%");
        assert_eq!(cv_text(12.3), "12%");
        assert_eq!(cv_text(0.3456), "0.35%");
        assert_eq!(cv_text(0.000123), "0.00012%");
        assert_eq!(cv_text(1.23e-6), "1.2e-6%");
        assert_eq!(cv_text(0.0), "0%");
        assert_eq!(cv_text(f64::NAN), "NA");
        assert_eq!(cv_cell([2.66, 0.0]), "2.7%/0%");
    }
}
