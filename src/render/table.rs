//! The default report for people (`--format table`): the compare.R columns in a terminal
//! table, improvements coloured by direction when they are significant, the run counts per
//! side, and the same false-positive paragraph. Colour only on a terminal; `NO_COLOR` is
//! respected (the caller decides, see [`crate::cli`]).

use super::compare_r::{cells, false_positive_paragraph};
use crate::verdict::{Row, Stars};
use comfy_table::{
    Attribute, Cell, CellAlignment, Color, ContentArrangement, LineStyle, Table, presets,
};

/// Renders `rows` as a table. `color` turns on ANSI styling; `width` is the terminal width in
/// columns (None: no limit).
pub fn render(rows: &[Row], color: bool, width: Option<u16>) -> String {
    let mut t = Table::new();
    t.load_style(
        presets::NOTHING
            .header_separator(LineStyle::none().fill('─').junction('─'))
            .bottom_border(LineStyle::none().fill('─').junction('─')),
    );
    if color {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    match width {
        Some(w) => {
            t.set_width(w);
            t.set_content_arrangement(ContentArrangement::Dynamic);
        }
        None => {
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    t.set_header(
        [
            "benchmark",
            "confidence",
            "improvement",
            "accuracy (*)",
            "(**)",
            "(***)",
            "runs old/new",
        ]
        .map(|h| Cell::new(h).add_attribute(Attribute::Bold)),
    );
    for row in rows {
        let c = cells(row);
        let significant = matches!(row.stars, Some(s) if s != Stars::None);
        let mut imp = Cell::new(&c[1]).set_alignment(CellAlignment::Right);
        if significant {
            imp = imp.fg(if row.improvement_pct >= 0.0 {
                Color::Green
            } else {
                Color::Red
            });
        }
        let [conf, _, a95, a99, a999] = c;
        t.add_row(vec![
            Cell::new(&row.comparison.name),
            Cell::new(conf).set_alignment(CellAlignment::Right),
            imp,
            Cell::new(a95).set_alignment(CellAlignment::Right),
            Cell::new(a99).set_alignment(CellAlignment::Right),
            Cell::new(a999).set_alignment(CellAlignment::Right),
            Cell::new(format!(
                "{}/{}",
                row.comparison.old.len(),
                row.comparison.new.len()
            ))
            .set_alignment(CellAlignment::Right),
        ]);
    }
    let mut out = t.to_string();
    out.push_str("\n\n");
    out.push_str(&false_positive_paragraph(rows.len()));
    out
}
