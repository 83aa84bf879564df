//! Tests of what users install and read: the runnable examples of README.md and docs/, the
//! shell completions and man pages, the npm packages and the GitHub Action. One test binary;
//! one module per file.

mod action;
mod examples;
mod npm;
mod shell;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The benchdiff binary cargo built for these tests.
fn benchdiff() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_benchdiff"))
}

/// `PATH` with the folder of [`benchdiff`] first, so a shell finds `benchdiff`.
fn path_with_benchdiff() -> std::ffi::OsString {
    let dir = benchdiff()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(&rest)))
        .expect("PATH joins")
}

/// Runs `cmd`, panicking with the command when it cannot start.
fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// stdout and stderr of `o`, for failure messages.
fn both(o: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A temporary folder that holds links to the repository's top-level files and folders (not
/// `target/` or `.git`), so examples written for the repository's root find its files while
/// what they write stays in the temporary folder.
fn checkout_view() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary folder");
    for entry in std::fs::read_dir(root()).expect("repository root") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        std::os::unix::fs::symlink(entry.path(), dir.path().join(&name)).expect("symlink");
    }
    dir
}
