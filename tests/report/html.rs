//! The HTML report in a real headless Chromium (Debian's `chromium`, installed by `.ci/run`).
//! Fails — never skips — when Chromium is missing.
//!
//! 1. A copy of the page with a checking script added at the end of `<body>` (and an error
//!    recorder at the start of `<head>`) is loaded with `--dump-dom`: the script checks that
//!    every plot is an SVG that was laid out with a non-empty box and drawn elements, that the
//!    page loaded no external resource, that a benchmark named `<script>…` stayed text, and
//!    that no error happened; it writes its verdict into the DOM, which the test reads back.
//!    Chromium runs with `--enable-logging=stderr --v=1` (console messages are logged at verbosity 1), and any console message on stderr
//!    fails the test (the report itself has no script; the checker logs nothing).
//! 2. The unmodified page is screenshotted to `target/tmp/render_html.png` for a person to look at.

// Second test tier (cargo feature `e2e`): these tests start headless Chromium.
#![cfg(feature = "e2e")]

use crate::common;

use assert_cmd::Command;
use common::chromium::run_chromium;
use std::path::PathBuf;
use std::time::Duration;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/node-22-vs-24.csv");
const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/oracle/node-compare-r"
);

const ERROR_RECORDER: &str = r#"<script>
window.__bdErrors = [];
window.addEventListener('error', function (e) {
  window.__bdErrors.push(String(e.message || (e.target && (e.target.src || e.target.href)) || e));
}, true);
</script>"#;

const CHECKER: &str = r#"<script>
(function () {
  var problems = [];
  try {
  var figures = document.querySelectorAll('figure.plot');
  var sections = document.querySelectorAll('section.comparison');
  if (figures.length !== 3 * sections.length) problems.push('figures ' + figures.length + ' for ' + sections.length + ' comparisons');
  if (document.querySelectorAll('.plot-error').length) problems.push('plot errors');
  figures.forEach(function (f, i) {
    var svg = f.querySelector('svg');
    if (!svg) { problems.push('figure ' + i + ': no svg'); return; }
    var r = svg.getBoundingClientRect();
    if (!(r.width > 100 && r.height > 100)) problems.push('figure ' + i + ': svg box ' + r.width + 'x' + r.height);
    var drawn = svg.querySelectorAll('rect,circle,polyline,polygon,path,line').length;
    if (drawn < 10) problems.push('figure ' + i + ': only ' + drawn + ' shapes');
    var bb = svg.getBBox();
    if (!(bb.width > 0 && bb.height > 0)) problems.push('figure ' + i + ': empty bbox');
    var kind = f.getAttribute('data-plot');
    if (kind === 'box' && svg.querySelectorAll('circle').length < 4) problems.push('figure ' + i + ': box plot without sample points');
  });
  var res = performance.getEntriesByType('resource').length;
  if (res) problems.push(res + ' external resources loaded');
  if (document.querySelectorAll('script').length !== 2) problems.push('unexpected script elements: ' + document.querySelectorAll('script').length);
  if (window.__bdHostile) problems.push('hostile name executed');
  if (document.body.textContent.indexOf('<scr' + 'ipt>window.__bdHostile=1</scr' + 'ipt>') < 0) problems.push('hostile name not shown as text');
  } catch (e) { problems.push('checker threw: ' + e); }
  problems = problems.concat(window.__bdErrors);
  var out = document.createElement('pre');
  out.id = 'bd-result';
  out.textContent = (problems.length ? 'FAIL ' + problems.join('; ') : 'OK') + ' plots=' + figures.length;
  document.body.appendChild(out);
})();
</script>"#;

#[test]
fn html_report_renders_in_chromium() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A benchmark whose name is a script, and a two-regime one, pooled with real Node data.
    let hostile = dir.path().join("hostile.csv");
    let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for i in 0..20 {
        let old = 1000.0 + (i % 5) as f64;
        let new = if i % 2 == 0 { 1200.0 } else { 1500.0 } + (i % 3) as f64;
        for (side, rate) in [("old", old), ("new", new)] {
            csv.push_str(&format!(
                "\"{side}\",\"<script>window.__bdHostile=1</script>\",\"n=1\",{rate},0.010000000\n"
            ));
        }
    }
    std::fs::write(&hostile, csv).unwrap();
    let page = dir.path().join("report.html");
    let out = Command::cargo_bin("benchdiff")
        .expect("binary built")
        .args(["report", "--format", "html", "-o"])
        .arg(&page)
        .arg(EXAMPLE)
        .arg(format!("{ORACLE}/path-dirname-posix.csv"))
        .arg(&hostile)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script"), "the report has no script");
    assert!(
        !html.contains("src=") && !html.contains("<link") && !html.contains("url("),
        "the report refers to no external resource"
    );

    let checked = dir.path().join("checked.html");
    let with_checks = html
        .replacen("<head>", &format!("<head>\n{ERROR_RECORDER}"), 1)
        .replacen("</body>", &format!("{CHECKER}\n</body>"), 1);
    std::fs::write(&checked, with_checks).unwrap();
    let (dom, log) = run_chromium(
        &[
            "--enable-logging=stderr".to_owned(),
            "--v=1".to_owned(),
            "--window-size=1280,1000".to_owned(),
            "--dump-dom".to_owned(),
            format!("file://{}", checked.display()),
        ],
        &dir.path().join("profile1"),
        Duration::from_secs(120),
    );
    let start = dom.find("<pre id=\"bd-result\">").unwrap_or_else(|| {
        panic!(
            "the checker did not run; log:\n{log}\nDOM tail:\n{}",
            tail(&dom)
        )
    });
    let result = &dom[start + "<pre id=\"bd-result\">".len()..];
    let result = &result[..result.find("</pre>").expect("result closed")];
    assert!(result.starts_with("OK"), "{result}");
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    eprintln!("chromium check: {result}");

    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render_html.png");
    let _ = std::fs::remove_file(&shot);
    run_chromium(
        &[
            "--window-size=1300,2600".to_owned(),
            format!("--screenshot={}", shot.display()),
            format!("file://{}", page.display()),
        ],
        &dir.path().join("profile2"),
        Duration::from_secs(120),
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    assert!(
        png.len() > 50_000,
        "screenshot suspiciously small: {} bytes",
        png.len()
    );
    eprintln!("screenshot: {}", shot.display());
}

fn tail(s: &str) -> &str {
    let n = s.len();
    let mut i = n.saturating_sub(2000);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}
