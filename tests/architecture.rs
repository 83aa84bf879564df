//! The layering of `src/` (ARCHITECTURE.md): data flows one way, so the top-level
//! modules may only depend on each other as the table below allows. The test reads every
//! `src/**/*.rs`, collects each `crate::X` reference (`use crate::X…`, `use crate::{X, …}`,
//! `crate::X::f()`) outside comments, attributes it to the top-level module of the file
//! (`src/X.rs` or `src/X/…`), and fails with file:line for each broken rule and with the path
//! of each cycle between top-level modules. The direct children of `src/run/` are held to the
//! same: no cycle between them (`crate::run::X` and `super::X` references, see
//! [`child_references`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Files outside every rule: the crate root declares the modules and the binary wires the CLI.
const EXEMPT: [&str; 2] = ["src/lib.rs", "src/main.rs"];

/// The rules: `(modules, must not import, why)`. `ANY` stands for every top-level module.
const RULES: &[(&[&str], &str, &str)] = &[
    (
        ANY,
        "cli",
        "the CLI is the outermost layer: only main.rs (and lib.rs) may use it",
    ),
    (
        &[
            "format", "compare", "stats", "verdict", "render", "report", "sample", "lines",
            "error", "output",
        ],
        "run",
        "only the CLI drives the runner; the data, math and output layers work on samples",
    ),
    (
        &[
            "format", "compare", "stats", "verdict", "render", "sample", "lines", "error", "run",
        ],
        "history",
        "the history database is fed and read by the CLI; no stage of a run or report needs it",
    ),
];

/// The modules that may import only the listed ones: `(module, may import, why)`.
const ONLY: &[(&str, &[&str], &str)] = &[(
    "stats",
    &["sample", "error"],
    "statistics are pure math on the sample model: no I/O, no decisions, no output",
)];

/// Every top-level module (see [`RULES`]).
const ANY: &[&str] = &["*"];

/// One `crate::X` reference.
#[derive(Clone, Debug)]
struct Ref {
    /// File relative to the crate root, e.g. `src/format/results/mod.rs`.
    file: String,
    /// 1-based line.
    line: usize,
    /// The module the file belongs to.
    from: String,
    /// The referenced top-level module.
    to: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in entries {
        let p = e.expect("directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module of a file path relative to `src/` (`format/go.rs` → `format`).
fn module_of(rel: &Path) -> String {
    let first = rel
        .components()
        .next()
        .expect("a file under src")
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    first.strip_suffix(".rs").unwrap_or(&first).to_owned()
}

/// `line` without its `//` comment (doc comments included; a `//` inside a string literal
/// also cuts the line, which can only hide a reference, never invent one).
fn code_part(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The top-level modules `code` names through `crate::` (also inside `crate::{a, b::c}`).
fn referenced(code: &str) -> Vec<String> {
    names_after(code, "crate::")
}

/// The names that follow `prefix` (a path ending in `::`, not itself the tail of a longer
/// path) in `code`, also inside a group `prefix{a, b::c}`; `self` and `super` are not names.
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find(prefix).map(|i| i + from) {
        let before_ok = (code[..i].chars().next_back()).is_none_or(|c| !is_ident(c) && c != ':');
        let after = &code[i + prefix.len()..];
        from = i + prefix.len();
        if !before_ok {
            continue;
        }
        if let Some(group) = after.strip_prefix('{') {
            // Top-level names of the group: split at commas outside nested braces.
            let mut depth = 0usize;
            let mut item = String::new();
            let mut items = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(std::mem::take(&mut item));
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            items.push(item);
            for it in items {
                let name: String = it.trim().chars().take_while(|c| is_ident(*c)).collect();
                if !name.is_empty() && name != "self" && name != "super" {
                    out.push(name);
                }
            }
        } else {
            let name: String = after.chars().take_while(|c| is_ident(*c)).collect();
            if !name.is_empty() && name != "super" {
                out.push(name);
            }
        }
    }
    out
}

/// The code of `text` line by line without comments, with its 1-based line number; a `::{`
/// group that does not close on its line is joined with the next ones (at its first line).
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let open = |s: &str| s.matches('{').count() as i64 - s.matches('}').count() as i64;
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        let mut code = code_part(lines[i]).to_owned();
        if code.contains("::{") {
            while open(&code) > 0 && i + 1 < lines.len() {
                i += 1;
                code.push(' ');
                code.push_str(code_part(lines[i]));
            }
        }
        out.push((start + 1, code));
        i += 1;
    }
    out
}

/// The references between the direct children of `src/<parent>/` (each a file `X.rs` or a
/// folder `X/`; `mod.rs` is the parent itself and left out): `crate::<parent>::X` anywhere,
/// and `super::X` resolved from the file's place (`super::` in `src/run/a.rs`,
/// `super::super::` in `src/run/a/b.rs`). A `super::` inside an inline module (`mod tests`)
/// is read as if it stood at the top of its file.
fn child_references(parent: &str) -> Vec<Ref> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("src").join(parent);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    files.sort();
    let children: BTreeSet<String> = (files.iter())
        .map(|f| module_of(f.strip_prefix(&dir).expect("under the parent")))
        .filter(|m| m != "mod")
        .collect();
    let absolute = format!("crate::{parent}::");
    let mut refs = Vec::new();
    for f in files {
        let inner = f.strip_prefix(&dir).expect("under the parent");
        let from = module_of(inner);
        if from == "mod" {
            continue;
        }
        // How many `super::` lead from the file's module to the parent.
        let depth = inner.components().count() - usize::from(inner.ends_with("mod.rs"));
        let relative = "super::".repeat(depth);
        let rel = f
            .strip_prefix(root)
            .expect("under the crate")
            .to_string_lossy();
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for (line, code) in code_lines(&text) {
            let mut names = names_after(&code, &absolute);
            names.extend(names_after(&code, &relative));
            for to in names {
                if to != from && children.contains(&to) {
                    let (file, from) = (rel.replace('\\', "/"), from.clone());
                    refs.push(Ref {
                        file,
                        line,
                        from,
                        to,
                    });
                }
            }
        }
    }
    refs
}

/// Every cross-module `crate::X` reference of `src/`, outside [`EXEMPT`] files. Multi-line
/// `use crate::{…}` groups are joined into one line (reported at their first line, see
/// [`code_lines`]).
fn references() -> Vec<Ref> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut refs = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(root)
            .expect("under the crate")
            .to_string_lossy();
        let rel = rel.replace('\\', "/");
        if EXEMPT.contains(&rel.as_str()) {
            continue;
        }
        let from = module_of(f.strip_prefix(&src).expect("under src"));
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for (line, code) in code_lines(&text) {
            for to in referenced(&code) {
                if to != from {
                    let (file, from) = (rel.clone(), from.clone());
                    refs.push(Ref {
                        file,
                        line,
                        from,
                        to,
                    });
                }
            }
        }
    }
    assert!(
        refs.iter().any(|r| r.to == "sample"),
        "the scan found no `crate::sample` reference: the parser is broken"
    );
    refs
}

fn rule_violations(refs: &[Ref]) -> Vec<String> {
    let mut out = Vec::new();
    for r in refs {
        for (module, allowed, why) in ONLY {
            if r.from == *module && !allowed.contains(&r.to.as_str()) {
                out.push(format!(
                    "{}:{}: `{}` imports `{}` ({why})",
                    r.file, r.line, r.from, r.to
                ));
            }
        }
        for (modules, banned, why) in RULES {
            let applies = *modules == ANY || modules.contains(&r.from.as_str());
            if applies && r.to == *banned {
                out.push(format!(
                    "{}:{}: `{}` imports `{}` ({why})",
                    r.file, r.line, r.from, r.to
                ));
            }
        }
    }
    out
}

/// The module graph: edge `from → to` with the references that make it.
fn graph(refs: &[Ref]) -> BTreeMap<String, BTreeMap<String, Vec<&Ref>>> {
    let mut g: BTreeMap<String, BTreeMap<String, Vec<&Ref>>> = BTreeMap::new();
    for r in refs {
        g.entry(r.from.clone())
            .or_default()
            .entry(r.to.clone())
            .or_default()
            .push(r);
        g.entry(r.to.clone()).or_default();
    }
    g
}

/// One cycle per strongly connected component with more than one module (Tarjan's
/// algorithm, iterative form not needed for a dozen modules), as the module path
/// `a → b → … → a`.
fn cycles(g: &BTreeMap<String, BTreeMap<String, Vec<&Ref>>>) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        g: &'g BTreeMap<String, BTreeMap<String, Vec<&'g Ref>>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        sccs: Vec<Vec<&'g str>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.g[v].keys() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                self.sccs.push(scc);
            }
        }
    }
    let mut t = Tarjan {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        sccs: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    let mut out = Vec::new();
    for scc in t.sccs.into_iter().filter(|s| s.len() > 1) {
        let members: BTreeSet<&str> = scc.iter().copied().collect();
        // A shortest cycle through the smallest member: breadth-first inside the component.
        let start = *members.iter().next().expect("non-empty");
        let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut end = None;
        'search: while let Some(v) = queue.pop_front() {
            for w in g[v].keys().map(String::as_str) {
                if !members.contains(w) {
                    continue;
                }
                if w == start {
                    end = Some(v);
                    break 'search;
                }
                if !prev.contains_key(w) {
                    prev.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        let mut path = vec![start.to_owned()];
        let mut v = end.expect("a component of several modules has a cycle");
        let mut back = Vec::new();
        while v != start {
            back.push(v.to_owned());
            v = prev[v];
        }
        back.reverse();
        path.extend(back);
        path.push(start.to_owned());
        out.push(path);
    }
    out
}

#[test]
fn nothing_imports_cli_and_data_layers_never_import_run() {
    let refs = references();
    let bad = rule_violations(&refs);
    assert!(
        bad.is_empty(),
        "{} import(s) against the layering rules:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// `render` formats what `verdict` decided and computes no statistic: it imports no `stats`.
#[test]
fn render_imports_no_stats() {
    let refs = references();
    let bad: Vec<String> = refs
        .iter()
        .filter(|r| r.from == "render" && r.to == "stats")
        .map(|r| format!("{}:{}: `render` imports `stats`", r.file, r.line))
        .collect();
    assert!(
        bad.is_empty(),
        "renderers format the evidence `verdict` computed; take the figure from there:\n{}",
        bad.join("\n")
    );
}

/// Whether `code` (a line without its comment) uses rayon: names the crate or calls one of its
/// parallel iterator adaptors (`par_iter`, `into_par_iter`, `par_chunks`, `par_sort`, ...).
fn uses_rayon(code: &str) -> bool {
    let names_crate = code
        .match_indices("rayon")
        .any(|(i, _)| code[..i].chars().next_back().is_none_or(|c| !is_ident(c)));
    names_crate || code.contains(".par_") || code.contains("into_par_iter")
}

/// The renderers that may use rayon, each with the reason: its parallel loop gains at least 10%
/// of the wall time of its format on the 1M-row compare.js CSV (`benches/report_large.rs`).
const RAYON_IN_RENDER: &[(&str, &str)] =
    &[("src/render/csv.rs", "a million samples formatted as text")];

/// Parallel work belongs to the per-comparison phase of the report; a renderer writes the rows
/// it is given, in order, on the caller's thread: nothing in `render` uses rayon but the files
/// of [`RAYON_IN_RENDER`].
#[test]
fn render_uses_no_rayon() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src/render"), &mut files);
    files.sort();
    assert!(
        !files.is_empty(),
        "no file under src/render: the scan is broken"
    );
    let mut bad = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(root)
            .expect("under the crate")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let uses: Vec<String> = text
            .lines()
            .enumerate()
            .filter(|(_, line)| uses_rayon(code_part(line)))
            .map(|(i, line)| format!("{rel}:{}: {}", i + 1, line.trim()))
            .collect();
        match RAYON_IN_RENDER.iter().find(|(file, _)| *file == rel) {
            None => bad.extend(uses),
            Some((_, why)) if uses.is_empty() => bad.push(format!(
                "{rel} no longer uses rayon: take it out of RAYON_IN_RENDER (\"{why}\")"
            )),
            Some(_) => {}
        }
    }
    assert!(
        bad.is_empty(),
        "renderers write rows in order; parallel work goes in the per-comparison phase:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_cycles_between_top_level_modules() {
    assert_no_cycles(&references());
}

#[test]
fn no_cycles_between_the_runner_modules() {
    let refs = child_references("run");
    let edge = |a: &str, b: &str| refs.iter().any(|r| r.from == a && r.to == b);
    assert!(
        edge("compare", "command_bench") && edge("plan", "child"),
        "the scan of src/run/ missed references it must see: the parser is broken"
    );
    assert_no_cycles(&refs);
}

/// Fails with the path of each cycle of the module graph of `refs` and where its edges are.
fn assert_no_cycles(refs: &[Ref]) {
    let g = graph(refs);
    let found = cycles(&g);
    let mut text = String::new();
    for c in &found {
        text.push_str(&format!("cycle: {}\n", c.join(" → ")));
        for pair in c.windows(2) {
            let r = &g[&pair[0]][&pair[1]];
            let at: Vec<String> = r
                .iter()
                .take(3)
                .map(|r| format!("{}:{}", r.file, r.line))
                .collect();
            text.push_str(&format!(
                "  {} → {}: {}{}\n",
                pair[0],
                pair[1],
                at.join(", "),
                if r.len() > 3 {
                    format!(" (+{} more)", r.len() - 3)
                } else {
                    String::new()
                }
            ));
        }
    }
    assert!(found.is_empty(), "{text}");
}

#[test]
fn the_scanner_reads_groups_and_ignores_comments() {
    assert_eq!(
        referenced("use crate::{format, render::{a, b}, self};"),
        ["format", "render"]
    );
    assert_eq!(
        referenced("let x = crate::stats::welch::welch(a, b);"),
        ["stats"]
    );
    assert_eq!(referenced("use other_crate::run;"), Vec::<String>::new());
    assert_eq!(code_part("let a = 1; // see crate::cli"), "let a = 1; ");
    assert_eq!(module_of(Path::new("format/results/mod.rs")), "format");
    assert_eq!(module_of(Path::new("sample.rs")), "sample");
    assert_eq!(
        names_after("use super::{ending::Stop, plan, Observer};", "super::"),
        ["ending", "plan", "Observer"]
    );
    assert_eq!(
        names_after("super::super::plan::x()", "super::"),
        Vec::<String>::new()
    );
    assert_eq!(
        names_after("super::super::plan::x()", "super::super::"),
        ["plan"]
    );
    assert_eq!(
        names_after("crate::run::{self, shard}", "crate::run::"),
        ["shard"]
    );
    assert_eq!(
        code_lines("use super::{\n    a,\n    b, // c\n};\nx"),
        [
            (1, "use super::{     a,     b,  };".to_owned()),
            (5, "x".to_owned())
        ]
    );
    assert!(uses_rayon("use rayon::prelude::*;"));
    assert!(uses_rayon("rows.par_iter().map(f)"));
    assert!(uses_rayon("(0..n).into_par_iter()"));
    assert!(uses_rayon("x.par_chunks(64)"));
    assert!(!uses_rayon("let crayon = s.parse::<f64>();"));
    assert!(!uses_rayon(code_part("x.iter(); // was rayon's par_iter")));
}

#[test]
fn a_stage_that_imports_history_is_reported() {
    let r = Ref {
        file: "src/run/x.rs".to_owned(),
        line: 3,
        from: "run".to_owned(),
        to: "history".to_owned(),
    };
    let bad = rule_violations(&[r]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].starts_with("src/run/x.rs:3: `run` imports `history`"),
        "{}",
        bad[0]
    );
}

/// No sink of the report asks whether the samples were spilled or frees the heap itself: the
/// partition store does both (`compare::partitions`), so these names appear nowhere in
/// `src/report/`.
#[test]
fn the_report_leaves_memory_to_the_store() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src/report"), &mut files);
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read a source file");
        for (line, code) in code_lines(&text) {
            for name in ["spills()", "malloc_trim", "release_free_memory"] {
                if code.contains(name) {
                    found.push(format!("{}:{line}: {name}", f.display()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// ARCHITECTURE.md is one screen: at most 70 lines of at most 110 characters.
#[test]
fn the_architecture_page_is_one_screen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 70, "{} lines", lines.len());
    for (i, l) in lines.iter().enumerate() {
        assert!(
            l.chars().count() <= 110,
            "ARCHITECTURE.md:{}: {} characters",
            i + 1,
            l.len()
        );
    }
}
