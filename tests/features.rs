//! What a build without an optional cargo feature says when a user asks for that feature's part.
//! These tests exist only in a build without the feature (plain `cargo test`); the README's test
//! command, which builds with every feature, runs this binary once more without them
//! (`scripts/test.sh`). A small binary of its own, so that second build stays short.

#![cfg_attr(all(feature = "png", feature = "postgres"), allow(unused_imports))]

use assert_cmd::Command;

/// `--plot FILE.png` without the `png` feature is refused before any output, naming the feature.
#[cfg(not(feature = "png"))]
#[test]
fn plot_png_without_the_feature_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let png = dir.path().join("box.png");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/node-22-vs-24.csv");
    Command::cargo_bin("benchdiff")
        .expect("binary")
        .args(["report", example, "--plot"])
        .arg(&png)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(
            "box.png: benchdiff was built without the png feature: \
             cargo install benchdiff --features png",
        ));
    assert!(!png.exists());
}

/// A `postgres://` URL in a build without the `postgres` feature is refused before anything
/// runs, and the error names the feature (never taken for a SQLite file path).
#[cfg(not(feature = "postgres"))]
#[test]
fn postgres_url_without_the_feature_names_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let o = Command::cargo_bin("benchdiff")
        .expect("binary")
        .current_dir(dir.path())
        .args([
            "history",
            "show",
            "--db",
            "postgres://nobody@127.0.0.1:1/none",
        ])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "postgres://nobody@127.0.0.1:1/none: benchdiff was built without the postgres \
             feature: cargo install benchdiff --features postgres"
        ),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("dir").count(),
        0,
        "no file made"
    );
}
