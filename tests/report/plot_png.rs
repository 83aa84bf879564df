//! `--plot FILE.png`: compare.R's box plot rasterised with the embedded font (cargo feature
//! `png`); without that feature it is refused (`tests/features.rs`).

use assert_cmd::Command;

#[cfg(feature = "png")]
#[test]
fn plot_png_is_a_real_png_of_the_svg_size() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("box.png");
    let svg = dir.path().join("box.svg");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/node-22-vs-24.csv");
    for p in [&png, &svg] {
        Command::cargo_bin("benchdiff")
            .unwrap()
            .args(["report", example, "--plot"])
            .arg(p)
            .assert()
            .success();
    }
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    // The raster has the SVG's own pixel size.
    let svg_text = std::fs::read_to_string(&svg).unwrap();
    assert!(svg_text.contains(&format!("width=\"{w}\"")), "width {w}");
    assert!(svg_text.contains(&format!("height=\"{h}\"")), "height {h}");
    // Text was drawn: a plot with its labels compresses to well over a blank page.
    assert!(bytes.len() > 10_000, "{} bytes", bytes.len());
}

#[test]
fn plot_other_extensions_are_refused_before_any_output() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/node-22-vs-24.csv");
    Command::cargo_bin("benchdiff")
        .unwrap()
        .args(["report", example, "--plot", "x.gif"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("name the file *.svg or *.png"));
}
