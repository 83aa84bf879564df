//! Every report format on the oracle inputs (insta snapshots under tests/snapshots/), the JSON
//! output validated against schema/report.schema.json, the Markdown rendered by a CommonMark +
//! GFM parser, the CSV round trip through `benchdiff report`, escaping of hostile names, and
//! `--plot` / `-o`.

use assert_cmd::Command;
use pulldown_cmark::{Event, Options as MdOptions, Parser, Tag};

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/oracle/node-compare-r"
);
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/node-22-vs-24.csv");

/// The inputs every format is snapshot on: (snapshot name, path). (The oracle's complex.csv
/// is not CSV — backslash-escaped quotes — and is rejected with file:line by every format.)
fn inputs() -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> =
        ["confidence", "http", "insufficient", "path-dirname-posix"]
            .into_iter()
            .map(|n| (n, format!("{ORACLE}/{n}.csv")))
            .collect();
    v.push(("node-22-vs-24", EXAMPLE.to_owned()));
    for (_, p) in &v {
        assert!(
            std::path::Path::new(p).exists(),
            "input {p} is required (tests/data/oracle)"
        );
    }
    v
}

fn benchdiff() -> Command {
    let mut c = Command::cargo_bin("benchdiff").expect("binary built");
    c.env_remove("NO_COLOR").env_remove("COLUMNS");
    c
}

/// Runs `benchdiff report --format FORMAT ARGS…` and returns stdout (exit code must be 0).
fn report(format: &str, args: &[&str]) -> String {
    let out = benchdiff()
        .args(["report", "--format", format])
        .args(args)
        .output()
        .expect("benchdiff runs");
    assert!(
        out.status.success(),
        "benchdiff report --format {format} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The HTML with every inline SVG replaced by a placeholder naming its size: the snapshot
/// shows the page structure; the plots are checked in a browser (tests/report_html.rs).
fn strip_svgs(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 4);
    let mut rest = html;
    while let Some(i) = rest.find("<svg") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let open_end = after.find('>').expect("svg start tag ends");
        let end = after.find("</svg>").expect("svg element closed") + "</svg>".len();
        out.push_str(&after[..=open_end]);
        out.push_str("[plot]</svg>");
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn snapshots_of_every_format() {
    for (name, path) in inputs() {
        for format in ["table", "r", "analyze", "markdown", "json", "csv", "html"] {
            let mut text = report(format, &[&path]);
            if format == "html" {
                text = strip_svgs(&text);
            }
            insta::assert_snapshot!(format!("{format}__{name}"), text);
        }
    }
}

#[test]
fn analyze_keeps_first_seen_order() {
    // compare.js --analyze keeps Map insertion order: string-2 is not sorted before string.
    let t = report("analyze", &[&format!("{ORACLE}/confidence.csv")]);
    let first = t.lines().nth(1).expect("a row");
    let csv = std::fs::read_to_string(format!("{ORACLE}/confidence.csv")).expect("oracle");
    let first_in_csv = csv.lines().nth(1).expect("a row");
    let conf = first_in_csv.split(',').nth(2).expect("configuration");
    assert!(
        first.contains(conf.trim_matches('"')),
        "{first:?} vs {first_in_csv:?}"
    );
}

#[test]
fn json_validates_against_the_schema() {
    let schema_path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema file"))
            .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    for (name, path) in inputs() {
        let out = report("json", &[&path]);
        let doc: serde_json::Value = serde_json::from_str(&out).expect("output is JSON");
        // Written straight from the structs, the bytes are serde_json's pretty-printing of
        // the document (sorted keys, its float digits and escapes, two-space indent).
        let again = serde_json::to_string_pretty(&doc).expect("prints") + "\n";
        assert!(again == out, "{name}: not serde_json's pretty-printing");
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .take(10)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert_eq!(doc["schema_version"], 2);
        let n = doc["comparisons"].as_array().expect("array").len();
        assert_eq!(doc["summary"]["comparisons"], n, "{name}");
    }
    // The schema is strict: an unknown field or a wrong verdict is rejected.
    let mut doc: serde_json::Value =
        serde_json::from_str(&report("json", &[&format!("{ORACLE}/confidence.csv")])).unwrap();
    doc["comparisons"][0]["verdict"] = "better".into();
    assert!(!validator.is_valid(&doc));
}

#[test]
fn markdown_renders_a_table_and_details() {
    let md = report("markdown", &[EXAMPLE]);
    let mut opts = MdOptions::empty();
    opts.insert(MdOptions::ENABLE_TABLES);
    let mut tables = 0;
    let mut header_cells = 0;
    let mut html = String::new();
    let mut in_head = false;
    for ev in Parser::new_ext(&md, opts) {
        match ev {
            Event::Start(Tag::Table(_)) => tables += 1,
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(pulldown_cmark::TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableCell) if in_head => header_cells += 1,
            Event::Html(h) | Event::InlineHtml(h) => html.push_str(&h),
            _ => {}
        }
    }
    let first = md.lines().next().expect("summary line");
    assert!(first.starts_with("**benchdiff**: "), "{first}");
    assert!(
        first.contains("faster") && first.contains("Holm"),
        "{first}"
    );
    assert!(tables >= 1, "no table rendered:\n{md}");
    assert_eq!(header_cells % 7, 0, "7 columns per table");
    assert!(
        html.contains("<details>") && html.contains("</details>"),
        "{html}"
    );
    assert!(html.contains("<summary>"), "{html}");
    // Changed rows come first: the first table's rows are all faster or slower.
    let first_table: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("| benchmark"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(!first_table.is_empty());
    for row in first_table {
        assert!(
            row.contains("**faster**") || row.contains("**slower**"),
            "{row}"
        );
    }
    // The rendered HTML has a <table> inside the <details> block.
    let mut rendered = String::new();
    pulldown_cmark::html::push_html(&mut rendered, Parser::new_ext(&md, opts));
    let d = rendered.find("<details>").expect("details in HTML");
    assert!(rendered[d..].contains("<table>"), "{rendered}");
}

#[test]
fn csv_round_trips_through_report() {
    for (name, path) in inputs() {
        let csv = report("csv", &[&path]);
        let dir = tempfile::tempdir().unwrap();
        let again = dir.path().join("again.csv");
        std::fs::write(&again, &csv).unwrap();
        let again = again.to_str().unwrap();
        for format in ["table", "r", "json"] {
            assert_eq!(
                report(format, &[&path]),
                report(format, &[again]),
                "{name}: --format {format} differs after the CSV round trip"
            );
        }
        // And the CSV itself is a fixed point.
        assert_eq!(report("csv", &[again]), csv, "{name}");
    }
}

/// A CSV whose names try to break out of HTML and Markdown.
fn hostile_csv(dir: &std::path::Path) -> String {
    let p = dir.join("hostile.csv");
    let mut s = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for i in 0..6 {
        for (side, rate) in [("old", 100.0 + i as f64), ("new", 120.0 + i as f64)] {
            s.push_str(&format!(
                "\"{side}\",\"<script>alert(1)</script>.js\",\"x=\"\"<b>|*y*\"\" n=1\",{rate},0.010000000\n"
            ));
        }
    }
    std::fs::write(&p, s).unwrap();
    p.to_str().unwrap().to_owned()
}

#[test]
fn input_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let p = hostile_csv(dir.path());
    let html = report("html", &[&p]);
    assert!(!html.contains("<script"), "raw <script> in HTML");
    assert!(!html.contains("<b>"), "raw <b> in HTML");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;.js"));
    let md = report("markdown", &[&p]);
    assert!(!md.contains("<script"), "{md}");
    assert!(md.contains("\\|\\*y\\*"), "{md}");
    let mut rendered = String::new();
    pulldown_cmark::html::push_html(
        &mut rendered,
        Parser::new_ext(&md, MdOptions::ENABLE_TABLES),
    );
    assert!(!rendered.contains("<script"), "{rendered}");
    assert!(rendered.contains("&lt;script&gt;"), "{rendered}");
    // One table row per comparison: the `|` in the name did not split the cell.
    let json: serde_json::Value = serde_json::from_str(&report("json", &[&p])).unwrap();
    assert_eq!(
        json["comparisons"][0]["file"],
        "<script>alert(1)</script>.js"
    );
}

#[test]
fn output_file_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.md");
    let svg = dir.path().join("box.svg");
    let stdout = report(
        "markdown",
        &[
            EXAMPLE,
            "-o",
            out.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
        ],
    );
    assert_eq!(stdout, "", "-o sends the report to the file");
    let md = std::fs::read_to_string(&out).unwrap();
    assert_eq!(md, report("markdown", &[EXAMPLE]));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..100.min(svg.len())]);
    assert!(svg.contains("rate of operations (higher is better)"));
    assert!(svg.contains("process/next-tick-breadth-args.js"));
    // Unsupported plot format: a clear error, exit 2.
    let bad = benchdiff()
        .args(["report", EXAMPLE, "--plot"])
        .arg(dir.path().join("x.pdf"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("name the file *.svg or *.png"));
}
