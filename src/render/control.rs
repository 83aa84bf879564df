//! What every report says about the A/A control (`compare --control`,
//! [`crate::verdict::control`]): the suite's line ("control: k of m identical-build rows called
//! changed …"), the table's `control` column and the qualified verdicts, the Markdown comment's
//! lead line and section, the HTML page's line and column, and the JSON report's `control`
//! object.

use super::table::{Extra, TableRow, signed_pct};
use crate::verdict::control::{Control, ControlRow};
use serde_json::{Value, json};

/// Appended to the verdict of a row called faster or slower that does not stand clear of its
/// control ([`ControlRow::qualifies`]).
pub const WITHIN_CONTROL: &str = " (within control)";

/// A percentage with at most two decimals: `0.25%`, `5%`.
fn pct(x: f64) -> String {
    let s = format!("{:.2}", x * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// The suite's line: `control: 1 of 20 identical-build rows called changed (5%, 95% Wilson
/// interval 0.89%–23.61%; α = 0.05 with Holm allows 0.25% a row): FLAGGED — the machine is too
/// noisy to trust these verdicts`, or `…: clean`.
pub fn line(c: &Control) -> String {
    let rate = if c.compared == 0 {
        "no rows".to_owned()
    } else {
        format!(
            "{}, 95% Wilson interval {}–{}",
            pct(c.called as f64 / c.compared as f64),
            pct(c.rate_ci.0),
            pct(c.rate_ci.1)
        )
    };
    let rule = match c.correction {
        crate::verdict::decide::Correction::None => format!("α = {} a row", c.alpha),
        k => format!(
            "α = {} with {} allows {} a row",
            c.alpha,
            k.label(),
            pct(c.promised_rate)
        ),
    };
    let qualified = c.rows.iter().flatten().filter(|r| r.qualifies()).count();
    let within = if qualified > 0 {
        format!(
            "; {qualified} verdict{} within control",
            if qualified == 1 { "" } else { "s" }
        )
    } else {
        String::new()
    };
    format!(
        "control: {} of {} identical-build row{} called changed ({rate}; {rule}): {}{within}",
        c.called,
        c.compared,
        if c.compared == 1 { "" } else { "s" },
        if c.flagged {
            "FLAGGED, the machine called identical builds changed more often than α allows"
        } else {
            "clean"
        }
    )
}

/// A row's control cell: its change and interval (`+0.12% [-0.80%, +1.04%]`), `NA` without
/// a control.
pub fn cell(r: Option<&ControlRow>) -> String {
    match r {
        None => "NA".to_owned(),
        Some(r) => match r.change_ci_pct {
            Some((lo, hi)) => format!(
                "{} [{}, {}]",
                signed_pct(r.change_pct),
                signed_pct(lo),
                signed_pct(hi)
            ),
            None => signed_pct(r.change_pct),
        },
    }
}

/// The table's additions for a control: a `control` column before the verdict, and
/// [`WITHIN_CONTROL`] after the verdicts it qualifies. Empty without a control.
pub fn table_extra(c: Option<&Control>) -> Extra {
    let Some(c) = c else {
        return Extra::default();
    };
    Extra {
        columns: vec![(
            "control".to_owned(),
            c.rows.iter().map(|r| cell(r.as_ref())).collect(),
        )],
        verdict_suffix: (c.rows.iter())
            .map(|r| match r {
                Some(r) if r.qualifies() => WITHIN_CONTROL,
                _ => "",
            })
            .collect(),
    }
}

/// The HTML page's control paragraph, `<p class="control">` with the suite's [`line`] (bold
/// when the control is flagged); empty without a control.
pub fn html_line(c: Option<&Control>) -> String {
    match c {
        None => String::new(),
        Some(c) if c.flagged => format!(
            "<p class=\"control flagged\"><strong>{}</strong></p>\n",
            super::html::escape(&line(c))
        ),
        Some(c) => format!(
            "<p class=\"control\">{}</p>\n",
            super::html::escape(&line(c))
        ),
    }
}

/// The HTML summary table's header cells of `extra`'s columns ([`table_extra`]).
pub fn html_headers(extra: &Extra) -> String {
    (extra.columns.iter())
        .map(|(h, _)| format!("<th>{}</th>", super::html::escape(h)))
        .collect()
}

/// The HTML summary table's cells of row `i` in `extra`'s columns ([`table_extra`]).
pub fn html_cells(extra: &Extra, i: usize) -> String {
    (extra.columns.iter())
        .map(|(_, cells)| {
            format!(
                "<td class=\"num\">{}</td>",
                super::html::escape(cells.get(i).map_or("", String::as_str))
            )
        })
        .collect()
}

/// The Markdown comment `body` led by the control's line, its qualified verdicts marked
/// [`WITHIN_CONTROL`] in its tables, with a section listing each row's control after it;
/// `body` as it is without a control.
pub fn markdown(c: Option<&Control>, rows: &[TableRow<'_>], body: String) -> String {
    let Some(c) = c else {
        return body;
    };
    let mut out = format!("**{}**\n\n", super::markdown::escape(&line(c)));
    let qualified: Vec<String> = (rows.iter().zip(&c.rows))
        .filter(|(_, r)| r.as_ref().is_some_and(ControlRow::qualifies))
        .map(|(a, _)| format!("| {} | ", super::markdown::escape(&a.name)))
        .collect();
    for l in body.split_inclusive('\n') {
        match qualified.iter().find(|p| l.starts_with(p.as_str())) {
            // The verdict cell of a faster/slower row is bold: mark it after its `**`.
            Some(p) => match l[p.len()..].find("** |") {
                Some(i) => {
                    let at = p.len() + i + 2;
                    out.push_str(&l[..at]);
                    out.push_str(WITHIN_CONTROL);
                    out.push_str(&l[at..]);
                }
                None => out.push_str(l),
            },
            None => out.push_str(l),
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(
        "\n<details><summary>A/A control per row (old against the old build run again)\
         </summary>\n\n| benchmark | change | control | verdict |\n|---|---:|---:|---|\n",
    );
    for (a, r) in rows.iter().zip(&c.rows) {
        let verdict = super::table::verdict_text(a.verdict);
        let suffix = if r.as_ref().is_some_and(ControlRow::qualifies) {
            WITHIN_CONTROL
        } else {
            ""
        };
        out.push_str(&format!(
            "| {} | {} | {} | {verdict}{suffix} |\n",
            super::markdown::escape(&a.name),
            signed_pct(a.estimate.change_pct),
            cell(r.as_ref()),
        ));
    }
    out.push_str("\n</details>\n");
    out
}

/// A number, or null when it is not finite.
fn num(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// The JSON report's `control` object: the suite's figures and one entry per comparison, in
/// the order of `comparisons` (`null` for a comparison without a control).
pub fn json_value(c: &Control, rows: &[TableRow<'_>]) -> Value {
    let rows: Vec<Value> = (rows.iter().zip(&c.rows))
        .map(|(a, r)| match r {
            None => json!({ "name": a.name, "control": Value::Null }),
            Some(r) => json!({
                "name": a.name,
                "control": {
                    "change_pct": num(r.change_pct),
                    "change_ci_pct": r.change_ci_pct.map_or(Value::Null, |(lo, hi)| json!([num(lo), num(hi)])),
                    "verdict": r.verdict.label(),
                    "clear": r.clear,
                },
            }),
        })
        .collect();
    json!({
        "called_changed": c.called,
        "rows": c.compared,
        "rate": if c.compared == 0 { Value::Null } else { num(c.called as f64 / c.compared as f64) },
        "rate_ci": [num(c.rate_ci.0), num(c.rate_ci.1)],
        "rate_ci_method": "wilson",
        "alpha": c.alpha,
        "promised_rate": c.promised_rate,
        "flagged": c.flagged,
        "line": line(c),
        "comparisons": rows,
    })
}
