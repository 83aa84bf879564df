//! Issue 16: the HTML page of a large report plots only the comparisons a reader needs —
//! changed (faster/slower), flagged, or named with `--plot-rows` — as one compact strip plot
//! each once more than 200 are plotted; the other comparisons are rows of the summary table
//! only, and a note says how many and how to ask for their plots.

use assert_cmd::Command;
use std::path::Path;

/// A compare.js CSV of `configs` configurations × 10 runs a side: every even configuration
/// 20% faster in the new binary, every odd one drawn from the same values on both sides.
fn write_csv(path: &Path, configs: usize) {
    let mut s = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for r in 0..10usize {
        for c in 0..configs {
            let base = 1000.0 * (1 + c) as f64;
            let old = base * (1.0 + 0.001 * ((r * 7 + c * 3) % 10) as f64);
            let shift = if c % 2 == 0 { 1.2 } else { 1.0 };
            let new = base * shift * (1.0 + 0.001 * ((r * 3 + c * 7) % 10) as f64);
            for (side, rate) in [("old", old), ("new", new)] {
                s.push_str(&format!(
                    "\"{side}\",\"f/bench-{c}.js\",\"n=1\",{rate},0.010000000\n"
                ));
            }
        }
    }
    std::fs::write(path, s).unwrap();
}

fn html(csv: &Path, extra: &[&str]) -> String {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .args(["report", "--format", "html"])
        .args(extra)
        .arg(csv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 page")
}

/// The `(id, h3 text, body)` of every comparison section of the page.
fn sections(page: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for part in page
        .split("<section class=\"comparison\" id=\"cmp-")
        .skip(1)
    {
        let id: usize = part[..part.find('"').unwrap()].parse().unwrap();
        let h3 = &part[part.find("<h3>").unwrap() + 4..part.find("</h3>").unwrap()];
        let body = &part[..part.find("</section>").unwrap()];
        out.push((id, h3.to_owned(), body.to_owned()));
    }
    out
}

/// The summary table's rows: `(name cell, verdict class, flags cell)`.
fn table_rows(page: &str) -> Vec<(String, String, String)> {
    let body = &page[page.find("<tbody>").unwrap()..page.find("</tbody>").unwrap()];
    body.lines()
        .filter(|l| l.starts_with("<tr><td>"))
        .map(|l| {
            let cells: Vec<&str> = l.split("<td").collect();
            let name = cells[1].trim_start_matches('>').trim_end_matches("</td>");
            let verdict = cells
                .iter()
                .filter_map(|c| c.strip_prefix(" class=\""))
                .find(|c| !c.starts_with("num"))
                .map(|c| c[..c.find('"').unwrap()].to_owned())
                .unwrap_or_default();
            let flags = cells[cells.len() - 1]
                .trim_start_matches('>')
                .split("</td>")
                .next()
                .unwrap_or("");
            (name.to_owned(), verdict, flags.to_owned())
        })
        .collect()
}

#[test]
fn a_large_page_plots_changed_and_flagged_rows_and_tables_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("large.csv");
    write_csv(&csv, 500);
    let page = html(&csv, &[]);
    let rows = table_rows(&page);
    assert_eq!(rows.len(), 500, "every comparison is a table row");
    let secs = sections(&page);
    // Exactly the changed and flagged rows have a section, linked from their table row.
    let mut expected = 0;
    for (i, (name, verdict, flags)) in rows.iter().enumerate() {
        let needed = verdict == "faster" || verdict == "slower" || !flags.is_empty();
        let linked = name.starts_with(&format!("<a href=\"#cmp-{i}\">"));
        assert_eq!(needed, linked, "row {i}: {name} {verdict} {flags:?}");
        assert_eq!(
            needed,
            secs.iter().any(|(id, _, _)| *id == i),
            "row {i}: section"
        );
        expected += usize::from(needed);
    }
    assert_eq!(secs.len(), expected);
    assert!(
        (250..500).contains(&expected),
        "the 250 faster rows and the flagged ones: {expected}"
    );
    // The note says how many rows are table-only and how to plot them.
    assert!(
        page.contains(&format!(
            "{expected} of 500 comparisons are plotted below: the changed (faster or slower) \
             and flagged ones. The other {} are rows of the table above only; plot them with \
             --plot-rows TEXT",
            500 - expected
        )),
        "note missing"
    );
    // More than 200 plotted: one strip plot each, with every sample of both sides.
    for (id, name, body) in &secs {
        assert_eq!(body.matches("<figure").count(), 1, "{name}");
        assert!(body.contains("data-plot=\"strip\""), "{name}");
        assert!(
            body.contains("<path stroke=\"#00BFC4\"") && body.contains("<path stroke=\"#F8766D\""),
            "cmp-{id} {name}: dots of both sides"
        );
        // 10 samples a side, each a zero-length segment unless two fall on one pixel.
        let dots = body.matches("h0").count();
        assert!((12..=20).contains(&dots), "cmp-{id}: {dots} dots");
    }
    // The strip plot is valid SVG that draws (rasterised by the same code as --plot FILE.png,
    // which needs the `png` feature).
    #[cfg(feature = "png")]
    {
        let (_, _, body) = &secs[0];
        let svg = &body[body.find("<svg").unwrap()..body.find("</svg>").unwrap() + 6];
        let png = benchdiff::render::plot::svg_to_png(svg).expect("strip plot parses");
        assert!(png.starts_with(b"\x89PNG"));
    }
    assert!(!page.contains("<script"));
}

#[test]
fn plot_rows_adds_rows_by_name_and_empty_text_plots_all() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("large.csv");
    write_csv(&csv, 500);
    let default = sections(&html(&csv, &[]));
    // bench-1.js has no change; it is plotted only when asked for.
    let name = "f/bench-1.js n=1";
    assert!(!default.iter().any(|(_, h, _)| h == name));
    let asked = sections(&html(&csv, &["--plot-rows", "bench-1.js"]));
    assert!(asked.iter().any(|(_, h, _)| h == name));
    assert_eq!(asked.len(), default.len() + 1);
    let page = html(&csv, &["--plot-rows", ""]);
    assert_eq!(sections(&page).len(), 500);
    assert!(!page.contains("rows of the table above only"));
}

#[test]
fn a_page_of_up_to_200_comparisons_plots_every_one_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("small.csv");
    write_csv(&csv, 40);
    let page = html(&csv, &[]);
    let secs = sections(&page);
    assert_eq!(secs.len(), 40);
    for (_, name, body) in &secs {
        for kind in ["box", "density", "drift"] {
            assert!(body.contains(&format!("data-plot=\"{kind}\"")), "{name}");
        }
    }
    assert!(!page.contains("rows of the table above only"));
}

#[test]
fn up_to_200_plotted_of_a_large_page_get_the_three_full_plots() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("mid.csv");
    write_csv(&csv, 300);
    let page = html(&csv, &[]);
    let secs = sections(&page);
    // The 150 faster rows (the others have no change and no flag here).
    assert_eq!(secs.len(), 150);
    for (_, name, body) in &secs {
        assert_eq!(body.matches("<figure").count(), 3, "{name}");
        assert!(!body.contains("data-plot=\"strip\""), "{name}");
    }
    assert!(page.contains("150 of 300 comparisons are plotted below"));
}

/// Values at the ends of the f64 range (subnormals, ±1.8e308, a spread below the values'
/// precision) once made plotters' tick search loop for ever (a 33-line file ran for 10
/// minutes): every plot's axis is kept finite and wider than the values' precision, so the
/// page is drawn at once, with its plots, in memory and through the bounded path.
#[test]
fn extreme_values_are_plotted_without_hanging() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("extreme.csv");
    let cases: [(&str, [f64; 6]); 6] = [
        ("tiny", [5e-324, 1e-320, 2e-322, 4e-323, 3e-321, 7e-322]),
        (
            "near",
            [1e15, 1e15 + 1.0, 1e15 + 2.0, 1e15, 1e15 + 1.0, 1e15 + 3.0],
        ),
        (
            "huge",
            [f64::MAX, 1e308, 1.5e308, 1.7e308, 1.2e308, 1.1e308],
        ),
        ("mix", [-1.7e308, 1.7e308, 0.0, 5e-324, -5e-324, 1e300]),
        (
            "neg",
            [-1e-310, -2e-310, -3e-310, -1e-310, -5e-310, -4e-310],
        ),
        ("pair", [0.0, 5e-324, f64::MAX, f64::MAX, 5e-324, 0.0]),
    ];
    let mut s = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for r in 0..6 {
        for (name, values) in &cases {
            for (k, side) in ["old", "new"].into_iter().enumerate() {
                let v = values[(r + k) % 6];
                s.push_str(&format!("\"{side}\",\"{name}.js\",\"n=1\",{v:?},0.5\n"));
            }
        }
    }
    std::fs::write(&path, s).expect("write CSV");
    let started = std::time::Instant::now();
    let page = html(&path, &[]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
    for (name, _) in &cases {
        assert!(page.contains(&format!("{name}.js n=1")), "{name} missing");
    }
    // Every comparison of a page this small is plotted in full: box, density and run plots.
    assert!(page.matches("<svg").count() >= 3 * cases.len(), "{page}");
    let bounded = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .args(["report", "--memory-limit", "1", "--format", "html"])
        .arg(&path)
        .output()
        .expect("run benchdiff");
    assert_eq!(String::from_utf8_lossy(&bounded.stdout), page);
    // compare.R's box plot of every comparison (`--plot`) draws them too.
    let svg = dir.path().join("extreme.svg");
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .args(["report", "--plot"])
        .arg(&svg)
        .arg(&path)
        .output()
        .expect("run benchdiff");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drawn = std::fs::read_to_string(&svg).expect("--plot file");
    assert!(drawn.starts_with("<svg"), "{drawn}");
}
