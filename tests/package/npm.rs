//! The npm packages as a user gets them: `scripts/npm-pack.sh` packs the launcher `benchdiff`
//! and `@benchdiff/linux-x64` (with this build's binary), the tarballs install into a fresh
//! project without the network (`npm install --offline`), and `npx benchdiff` runs the binary:
//! `--version`, a report of a file, and a report of a compare.js CSV stream piped in from a
//! real Node run of `examples/node-suite` (Node's own `benchmark/` folder is not part of this
//! repository and cannot be fetched where only package registries are reachable: the same pipe
//! from Node's `benchmark/compare.js` is shown by hand, `docs/npm.md`). The launcher's override
//! variable and its message on an unsupported platform are checked too.

// Second test tier (cargo feature `e2e`): these tests start node, npm and npx.
#![cfg(feature = "e2e")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Panics loudly unless `tool --version` runs from PATH.
pub(crate) fn require(tool: &str) {
    match Command::new(tool).arg("--version").output() {
        Ok(o) if o.status.success() => {}
        other => panic!(
            "these tests need `{tool}` on PATH (Debian: apt-get install nodejs npm; scripts/test.sh \
             installs it): {other:?}"
        ),
    }
}

/// The two tarballs (launcher, platform package) packed into `out` by scripts/npm-pack.sh
/// with this build's binary.
fn pack(out: &Path) -> (PathBuf, PathBuf) {
    let o = super::run(
        Command::new("bash")
            .arg(super::root().join("scripts/npm-pack.sh"))
            .arg("--binary")
            .arg(super::benchdiff())
            .arg("--out")
            .arg(out),
    );
    assert!(o.status.success(), "npm-pack.sh: {}", super::both(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "npm-pack.sh printed {text:?}");
    (PathBuf::from(lines[0]), PathBuf::from(lines[1]))
}

/// A fresh npm project in `dir` with both tarballs installed offline.
fn install(dir: &Path, launcher: &Path, platform: &Path) {
    std::fs::write(
        dir.join("package.json"),
        "{\"name\": \"fresh\", \"version\": \"1.0.0\", \"private\": true}\n",
    )
    .expect("package.json");
    let o = super::run(
        Command::new("npm")
            .args(["install", "--offline", "--no-audit", "--no-fund"])
            .arg(launcher)
            .arg(platform)
            .current_dir(dir),
    );
    assert!(
        o.status.success(),
        "npm install --offline: {}",
        super::both(&o)
    );
}

/// `npx benchdiff ARGS` in `dir`.
fn npx(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("npx");
    c.arg("--offline")
        .arg("benchdiff")
        .args(args)
        .current_dir(dir)
        .env_remove("BENCHDIFF_BINARY");
    c
}

#[test]
fn the_packed_tarballs_install_offline_and_npx_runs_the_binary() {
    require("node");
    require("npm");
    let packs = tempfile::tempdir().expect("temporary folder");
    let (launcher, platform) = pack(packs.path());
    let project = tempfile::tempdir().expect("temporary folder");
    install(project.path(), &launcher, &platform);
    let installed = project
        .path()
        .join("node_modules/@benchdiff/linux-x64/bin/benchdiff");
    assert!(installed.is_file(), "no binary at {}", installed.display());

    let o = super::run(&mut npx(project.path(), &["--version"]));
    assert!(o.status.success(), "{}", super::both(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        format!("benchdiff {}", env!("CARGO_PKG_VERSION"))
    );

    let csv = super::root().join("examples/node-22-vs-24.csv");
    let o = super::run(&mut npx(
        project.path(),
        &["report", csv.to_str().expect("UTF-8")],
    ));
    assert!(o.status.success(), "{}", super::both(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("9 comparisons: 4 faster, 0 slower"),
        "{table}"
    );

    // The exit code comes through: bad usage is 2.
    let o = super::run(&mut npx(project.path(), &["report", "--no-such-option"]));
    assert_eq!(o.status.code(), Some(2), "{}", super::both(&o));

    // A compare.js CSV stream from a real Node run (benchdiff's runner, stdout not a terminal:
    // the CSV goes to stdout), piped into npx benchdiff.
    let mut compare = Command::new(super::benchdiff())
        .args(["compare", "--old", "node", "--new", "node", "--runs", "4"])
        .args(["--no-progress", "--benchmark-dir"])
        .arg(super::root().join("examples/node-suite/benchmark"))
        .arg("array")
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("benchdiff compare starts");
    let csv_out = compare.stdout.take().expect("stdout");
    let o = super::run(npx(project.path(), &["report"]).stdin(Stdio::from(csv_out)));
    let status = compare.wait().expect("compare.js ends");
    assert!(status.success(), "benchdiff compare: {status}");
    assert!(
        o.status.success(),
        "npx benchdiff report: {}",
        super::both(&o)
    );
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("array/sort.js"), "{table}");
    assert!(table.contains("4/4"), "4 runs a side: {table}");
}

#[test]
fn the_launcher_runs_benchdiff_binary_and_explains_an_unsupported_platform() {
    require("node");
    let launcher = super::root().join("npm/benchdiff/bin/benchdiff.js");
    // BENCHDIFF_BINARY: any binary, without the platform package.
    let o = super::run(
        Command::new("node")
            .arg(&launcher)
            .arg("--version")
            .env("BENCHDIFF_BINARY", super::benchdiff()),
    );
    assert!(o.status.success(), "{}", super::both(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("benchdiff "));
    let o = super::run(
        Command::new("node")
            .arg(&launcher)
            .env("BENCHDIFF_BINARY", "/nonexistent/benchdiff"),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("BENCHDIFF_BINARY=/nonexistent/benchdiff: no such file")
    );

    // A platform with no prebuilt package: the message says which and what to do.
    let script = format!(
        "Object.defineProperty(process, 'arch', {{ value: 'riscv64' }}); require({:?});",
        launcher.display().to_string()
    );
    let o = super::run(
        Command::new("node")
            .args(["-e", &script])
            .env_remove("BENCHDIFF_BINARY"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", super::both(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no prebuilt binary for linux-riscv64"),
        "{err}"
    );
    assert!(
        err.contains("cargo install benchdiff") && err.contains("BENCHDIFF_BINARY"),
        "{err}"
    );

    // The platform package missing (installed with --omit=optional): says so.
    let o = super::run(
        Command::new("node")
            .arg(&launcher)
            .env_remove("BENCHDIFF_BINARY")
            .current_dir("/"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", super::both(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("@benchdiff/linux-x64"),
        "{}",
        super::both(&o)
    );
}
