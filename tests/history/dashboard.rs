//! The history dashboard in a real headless Chromium (Debian's `chromium`, as
//! tests/report_html.rs): the overview and a series page load with no script, no external
//! resource, and plots that are drawn (inline SVG with the samples, the median line and the
//! change point marked).

// Second test tier (cargo feature `e2e`): these tests start headless Chromium.
#![cfg(feature = "e2e")]

use crate::common;

use assert_cmd::Command;
use common::chromium::run_chromium;
use std::path::Path;
use std::time::Duration;

/// `chromium --headless --dump-dom URL` (window 1280×1000), killed after `limit`; returns
/// the DOM.
fn dump_dom(url: &str, profile: &Path, limit: Duration) -> String {
    let args = [
        "--window-size=1280,1000".to_owned(),
        "--dump-dom".to_owned(),
        url.to_owned(),
    ];
    run_chromium(&args, profile, limit).0
}

/// Appended to a copy of each page: measures what Chromium laid out and writes the result
/// into the DOM.
const CHECKER: &str = r#"<script>
(function () {
  var p = [];
  var svgs = document.querySelectorAll('svg');
  if (!svgs.length) p.push('no svg');
  svgs.forEach(function (s, i) {
    var b = s.getBoundingClientRect();
    if (!(b.width > 50 && b.height > 20)) p.push('svg ' + i + ' box ' + b.width + 'x' + b.height);
    var bb = s.getBBox();
    if (!(bb.width > 0 && bb.height > 0)) p.push('svg ' + i + ' empty');
  });
  if (performance.getEntriesByType('resource').length) p.push('external resources');
  var out = document.createElement('pre');
  out.id = 'bd-result';
  out.textContent = (p.length ? 'FAIL ' + p.join('; ') : 'OK') +
    ' svgs=' + svgs.length +
    ' samples=' + document.querySelectorAll('circle.sample').length +
    ' medians=' + document.querySelectorAll('polyline.median').length +
    ' changepoints=' + document.querySelectorAll('line.changepoint').length +
    ' rows=' + document.querySelectorAll('table#commits tbody tr').length +
    ' series=' + document.querySelectorAll('table#series tbody tr').length;
  document.body.appendChild(out);
})();
</script>"#;

fn checked(page: &Path, dir: &Path, name: &str) -> String {
    let html = std::fs::read_to_string(page).expect("page");
    assert!(!html.contains("<script"), "{name}: the page has no script");
    assert!(
        !html.contains("src=") && !html.contains("<link") && !html.contains("url("),
        "{name}: no external resource"
    );
    let copy = dir.join(format!("checked-{name}"));
    std::fs::write(
        &copy,
        html.replacen("</body>", &format!("{CHECKER}</body>"), 1),
    )
    .expect("w");
    let dom = dump_dom(
        &format!("file://{}", copy.display()),
        &dir.join(format!("profile-{name}")),
        Duration::from_secs(120),
    );
    let start = dom
        .find("<pre id=\"bd-result\">")
        .unwrap_or_else(|| panic!("{name}: the checker did not run"));
    let r = &dom[start + 20..];
    r[..r.find("</pre>").expect("closed")].to_owned()
}

#[test]
fn dashboard_renders_in_chromium() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("h.db");
    for i in 0..12 {
        let mut csv = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
        let level = if i < 7 { 500.0 } else { 650.0 };
        for k in 0..4 {
            let v = level + ((i * 5 + k * 3) % 7) as f64;
            csv.push_str(&format!("\"new\",\"<b>x</b>.js\",\"n=1\",{v},0.1\n"));
        }
        let f = dir.path().join(format!("{i}.csv"));
        std::fs::write(&f, csv).expect("csv");
        Command::cargo_bin("benchdiff")
            .expect("binary")
            .args(["history", "add", "--db"])
            .arg(&db)
            .arg(&f)
            .args(["--commit", &format!("r{i:02}"), "--date"])
            .arg(format!("2025-01-{:02}", i + 1))
            .assert()
            .success();
    }
    let site = dir.path().join("site");
    Command::cargo_bin("benchdiff")
        .expect("binary")
        .args(["history", "dashboard", "--db"])
        .arg(&db)
        .arg("--out")
        .arg(&site)
        .assert()
        .success();
    let index = checked(&site.join("index.html"), dir.path(), "index.html");
    assert!(index.starts_with("OK svgs=1 "), "{index}");
    assert!(index.ends_with("series=1"), "{index}");
    let page = checked(&site.join("series-0000.html"), dir.path(), "series.html");
    assert!(page.starts_with("OK svgs=1 "), "{page}");
    assert!(
        page.contains("samples=48 medians=1 changepoints=1 rows=12"),
        "{page}"
    );
    // The hostile benchmark name is text, not markup.
    let html = std::fs::read_to_string(site.join("series-0000.html")).expect("page");
    assert!(html.contains("&lt;b&gt;x&lt;/b&gt;.js n=1"));
    eprintln!("chromium: index {index}; series page {page}");
}
