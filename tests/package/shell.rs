//! `benchdiff completions bash|zsh|fish` and `benchdiff man` are generated from the clap
//! definitions: each names every subcommand, the bash script parses (`bash -n`), and
//! `man --dir` writes a page per subcommand.

use std::process::Command;

/// The subcommands a user can type (help excluded).
const SUBCOMMANDS: [&str; 9] = [
    "report",
    "compare",
    "calibrate",
    "run",
    "sweep",
    "history",
    "merge",
    "completions",
    "man",
];

fn stdout_of(args: &[&str]) -> String {
    let o = super::run(Command::new(super::benchdiff()).args(args));
    assert!(
        o.status.success(),
        "benchdiff {args:?}: {}",
        super::both(&o)
    );
    String::from_utf8(o.stdout).expect("UTF-8")
}

#[test]
fn each_completion_script_names_every_subcommand() {
    for (shell, head) in [
        ("bash", "_benchdiff()"),
        ("zsh", "#compdef benchdiff"),
        ("fish", "complete -c benchdiff"),
    ] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.contains(head), "{shell}: no {head:?}");
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell} completion lacks {sub}");
        }
        // Options of a subcommand are completed too.
        assert!(
            script.contains("max-regression"),
            "{shell}: no --max-regression"
        );
    }
}

#[test]
fn the_bash_completion_parses() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let file = dir.path().join("benchdiff.bash");
    std::fs::write(&file, stdout_of(&["completions", "bash"])).expect("write");
    let o = super::run(Command::new("bash").arg("-n").arg(&file));
    assert!(o.status.success(), "bash -n: {}", super::both(&o));
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let o = super::run(Command::new(super::benchdiff()).args(["completions", "tcsh"]));
    assert_eq!(o.status.code(), Some(2), "{}", super::both(&o));
}

#[test]
fn the_man_page_names_every_subcommand() {
    let page = stdout_of(&["man"]);
    assert!(page.contains(".TH benchdiff 1"), "no title line");
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("benchdiff\\-{sub}(1)")),
            "man page lacks {sub}"
        );
    }
}

#[test]
fn man_dir_writes_a_page_per_subcommand() {
    let dir = tempfile::tempdir().expect("temporary folder");
    stdout_of(&["man", "--dir", dir.path().to_str().expect("UTF-8 path")]);
    for page in std::iter::once("benchdiff.1".to_owned())
        .chain(SUBCOMMANDS.iter().map(|s| format!("benchdiff-{s}.1")))
    {
        let text = std::fs::read_to_string(dir.path().join(&page))
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH "), "{page} has no title");
    }
    // Nested commands get pages too (history's subcommands).
    assert!(dir.path().join("benchdiff-history-add.1").is_file());
}
