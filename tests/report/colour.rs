//! Colour of `benchdiff report --format table` follows the usual conventions (issue 13):
//! `NO_COLOR` (non-empty) turns it off, `CLICOLOR=0` turns it off on a terminal,
//! `CLICOLOR_FORCE=1` turns it on even into a pipe, and `NO_COLOR` beats `CLICOLOR_FORCE`.
//! The terminal cases run the real binary under a real pseudo-terminal (util-linux `script`,
//! part of every Debian system).

use std::process::Command;

const INPUT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/oracle/node-compare-r/confidence.csv"
);

const BIN: &str = env!("CARGO_BIN_EXE_benchdiff");

/// The colour variables a test may set; every other one is removed so the machine's own
/// settings (or a CI's) do not leak in.
const VARS: [&str; 4] = ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "CI"];

fn clean(c: &mut Command, env: &[(&str, &str)]) {
    for v in VARS {
        c.env_remove(v);
    }
    c.env("TERM", "xterm-256color");
    for (k, v) in env {
        c.env(k, v);
    }
}

fn check_input() {
    assert!(
        std::path::Path::new(INPUT).is_file(),
        "{INPUT} is required (tests/data/oracle)"
    );
}

/// stdout of `benchdiff report INPUT` into a pipe.
fn piped(env: &[(&str, &str)]) -> String {
    check_input();
    let mut c = Command::new(BIN);
    c.args(["report", INPUT]);
    clean(&mut c, env);
    let out = c.output().expect("benchdiff runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8 report")
}

/// What `benchdiff report INPUT` writes to a pseudo-terminal.
fn on_terminal(env: &[(&str, &str)]) -> String {
    check_input();
    let mut c = Command::new("script");
    c.args([
        "-q",
        "-e",
        "-c",
        &format!("'{BIN}' report '{INPUT}'"),
        "/dev/null",
    ])
    .stdin(std::process::Stdio::null());
    clean(&mut c, env);
    let out = c
        .output()
        .expect("util-linux `script` is needed for the terminal tests (Debian: bsdutils)");
    assert!(out.status.success(), "{out:?}");
    let s = String::from_utf8(out.stdout).expect("UTF-8 report");
    assert!(
        s.contains("3 comparisons: "),
        "no report on the terminal: {s}"
    );
    s
}

fn coloured(s: &str) -> bool {
    s.contains("\x1b[")
}

#[test]
fn pipe_is_plain_by_default() {
    let s = piped(&[]);
    assert!(!coloured(&s), "{s:?}");
    assert!(s.contains("3 comparisons: "), "{s}");
}

#[test]
fn clicolor_force_colours_a_pipe() {
    let s = piped(&[("CLICOLOR_FORCE", "1")]);
    assert!(coloured(&s), "{s:?}");
    // Bold header, green "faster" (util/format.js type='string' is +14.02%).
    assert!(s.contains("\x1b[1m"), "{s:?}");
    assert!(s.contains("\x1b[38;5;10m faster"), "{s:?}");
}

#[test]
fn no_color_beats_clicolor_force() {
    let s = piped(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!coloured(&s), "{s:?}");
}

#[test]
fn terminal_is_coloured_by_default() {
    assert!(coloured(&on_terminal(&[])));
}

#[test]
fn clicolor_zero_turns_the_terminal_plain() {
    let s = on_terminal(&[("CLICOLOR", "0")]);
    assert!(!coloured(&s), "{s:?}");
}

#[test]
fn no_color_turns_the_terminal_plain() {
    let s = on_terminal(&[("NO_COLOR", "1")]);
    assert!(!coloured(&s), "{s:?}");
}
