//! Every shell example of README.md and docs/*.md marked runnable runs and exits 0, so the
//! documentation cannot drift from the program. An example is a fenced ```sh block right after
//! the HTML comment `<!-- runnable -->` (needs only benchdiff and a POSIX system: this tier) or
//! `<!-- runnable e2e -->` (needs `node`: cargo feature `e2e`). Each runs with `bash -euo
//! pipefail` in a temporary folder that links the repository's files ([`super::checkout_view`]),
//! with this build's `benchdiff` first on `PATH`.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use std::path::PathBuf;
use std::process::Command;

/// Which tier an example runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tier {
    Plain,
    E2e,
}

/// A runnable example: its file, line and script.
#[derive(Debug)]
struct Example {
    file: String,
    line: usize,
    tier: Tier,
    script: String,
}

/// The Markdown files the examples come from: README.md and every docs/*.md.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![super::root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(super::root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The runnable examples of one Markdown text. Panics when a marker is not followed by a
/// fenced `sh` block, or names an unknown tier.
fn examples_of(file: &str, text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut pending: Option<Tier> = None;
    let mut current: Option<Example> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        let line = text[..range.start].lines().count() + 1;
        match event {
            Event::Html(html) if html.trim().starts_with("<!-- runnable") => {
                pending = Some(match html.trim() {
                    "<!-- runnable -->" => Tier::Plain,
                    "<!-- runnable e2e -->" => Tier::E2e,
                    other => panic!("{file}:{line}: unknown marker {other}"),
                });
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                if let Some(tier) = pending.take() {
                    let lang = match &kind {
                        CodeBlockKind::Fenced(l) => l.to_string(),
                        CodeBlockKind::Indented => String::new(),
                    };
                    assert_eq!(
                        lang, "sh",
                        "{file}:{line}: a runnable example must be ```sh"
                    );
                    current = Some(Example {
                        file: file.to_owned(),
                        line,
                        tier,
                        script: String::new(),
                    });
                }
            }
            Event::Text(t) => {
                if let Some(ex) = current.as_mut() {
                    ex.script.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.extend(current.take()),
            // Paragraphs or lists between a marker and its block: the marker is misplaced.
            Event::Start(ref tag) if pending.is_some() && !matches!(tag, Tag::HtmlBlock) => {
                panic!("{file}:{line}: a runnable marker must come right before its ```sh block");
            }
            _ => {}
        }
    }
    assert!(
        pending.is_none(),
        "{file}: a runnable marker at the end has no block"
    );
    out
}

fn all_examples() -> Vec<Example> {
    documents()
        .iter()
        .flat_map(|p| {
            let text =
                std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let name = p
                .strip_prefix(super::root())
                .unwrap_or(p)
                .display()
                .to_string();
            examples_of(&name, &text)
        })
        .collect()
}

/// Runs the examples of `tier`; returns how many ran. Panics listing every failure.
fn run_tier(tier: Tier) -> usize {
    let examples: Vec<Example> = all_examples()
        .into_iter()
        .filter(|e| e.tier == tier)
        .collect();
    let mut failures = Vec::new();
    for ex in &examples {
        let dir = super::checkout_view();
        let o = super::run(
            Command::new("bash")
                .args(["-euo", "pipefail", "-c", &ex.script])
                .current_dir(dir.path())
                .env("PATH", super::path_with_benchdiff())
                .env("NO_COLOR", "1"),
        );
        if !o.status.success() {
            failures.push(format!(
                "{}:{}:\n{}\n{}",
                ex.file,
                ex.line,
                ex.script,
                super::both(&o)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!(
        "ran {} {tier:?} example(s) of README.md and docs/",
        examples.len()
    );
    examples.len()
}

#[test]
fn readme_and_docs_examples_run() {
    let n = run_tier(Tier::Plain);
    // The README's tour alone has four; fewer means markers were lost.
    assert!(n >= 5, "only {n} runnable examples found");
}

// Second test tier (cargo feature `e2e`): the examples that start `node`.
#[cfg(feature = "e2e")]
#[test]
fn readme_and_docs_examples_with_node_run() {
    crate::npm::require("node");
    assert!(run_tier(Tier::E2e) >= 1, "no runnable e2e example found");
}

#[test]
fn markers_are_read_from_markdown() {
    let text = "# t\n\n<!-- runnable -->\n```sh\necho a\n```\n\n```sh\necho not marked\n```\n\n\
                <!-- runnable e2e -->\n```sh\nnode -v\n```\n";
    let ex = examples_of("t.md", text);
    assert_eq!(ex.len(), 2);
    assert_eq!(
        (ex[0].tier, ex[0].script.as_str(), ex[0].line),
        (Tier::Plain, "echo a\n", 4)
    );
    assert_eq!(
        (ex[1].tier, ex[1].script.as_str()),
        (Tier::E2e, "node -v\n")
    );
}

#[test]
#[should_panic(expected = "must be ```sh")]
fn a_marker_before_another_language_is_an_error() {
    examples_of("t.md", "<!-- runnable -->\n```text\nx\n```\n");
}
