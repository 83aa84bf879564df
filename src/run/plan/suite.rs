//! Suite files (`benchdiff.toml`): builds, targets and command benchmarks with parameter
//! matrices, read with the `toml` crate and serde. The format (documented with an example in
//! README.md, "Suite files"):
//!
//! ```toml
//! runs = 10            # counted runs per target and configuration (command line --runs wins)
//! warmup = 1           # uncounted runs before them
//! timeout = 60         # seconds per run
//! order = "random"     # or "node"
//! shell = false        # true: each run is `sh -c LINE`
//! prepare = "sync"     # sh -c before every run (untimed); setup / cleanup: once per target
//! env = { LC_ALL = "C" }
//!
//! [old]                # or [git] with old, new, build, artifact (see below)
//! build = "cargo build --release --target-dir target/old"   # sh -c, once, before any run
//! command = "target/old/release/prog --quiet"               # the words every run starts with
//! [new]
//! build = "cargo build --release --features new --target-dir target/new"
//! command = "target/new/release/prog --quiet"
//!
//! [[benchmark]]
//! name = "queue"
//! args = "queue {size}"                  # appended to the command; {key} = a parameter
//! params = { size = [1000, 100000] }     # in order: the last key varies fastest
//! exclude = [{ size = 1000 }]            # combinations to leave out (all keys must match)
//! ```
//!
//! Relative paths and every command run in the suite file's folder. `[git]` takes `old` and
//! `new` revisions, a `build` command and the `artifact` path inside the checkout
//! (see [`crate::run::plan::git`]); `repo` (default: the suite's folder) names the repository.
//! Errors name `file:line`.

use crate::run::plan::matrix::{Matrix, check_key};
use crate::run::schedule::Order;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One side of a suite: an optional build and the command every run starts with.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SideToml {
    /// Build command (`sh -c`, in the suite folder), run once before any benchmark.
    pub build: Option<String>,
    /// The program and fixed arguments, split with shell-word rules.
    pub command: String,
}

/// Builds from git revisions.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GitToml {
    /// The repository folder (relative to the suite file; default: its folder).
    pub repo: Option<PathBuf>,
    /// Old revision (any `git rev-parse` name).
    pub old: String,
    /// New revision.
    pub new: String,
    /// Build command run in each checkout.
    pub build: String,
    /// The program inside the checkout, after the build.
    pub artifact: String,
    /// Fixed arguments after the artifact.
    #[serde(default)]
    pub args: Option<String>,
}

/// A `[[benchmark]]` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchToml {
    /// Name (default: the `args` text).
    pub name: Option<String>,
    /// Arguments with `{key}` placeholders.
    #[serde(default)]
    pub args: String,
    /// Parameters: key → list of values (strings, integers, floats, booleans), in order.
    #[serde(default)]
    pub params: toml::Table,
    /// Exclusions: tables of key = value.
    #[serde(default)]
    pub exclude: Vec<toml::Table>,
    /// Extra environment.
    #[serde(default)]
    pub env: toml::Table,
    /// Run before every run of this benchmark.
    pub prepare: Option<String>,
}

/// The whole file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteToml {
    /// Counted runs.
    pub runs: Option<u32>,
    /// Warm-up runs.
    pub warmup: Option<u32>,
    /// Seconds per run.
    pub timeout: Option<f64>,
    /// `random` or `node`.
    pub order: Option<String>,
    /// Seed of the random order.
    pub seed: Option<u64>,
    /// Run through `sh -c`.
    #[serde(default)]
    pub shell: bool,
    /// Before every run.
    pub prepare: Option<String>,
    /// Once per target before the runs.
    pub setup: Option<String>,
    /// Once per target after the runs.
    pub cleanup: Option<String>,
    /// Environment of every run.
    #[serde(default)]
    pub env: toml::Table,
    /// The old side.
    pub old: Option<SideToml>,
    /// The new side.
    pub new: Option<SideToml>,
    /// Or: both sides from git.
    pub git: Option<GitToml>,
    /// The benchmarks.
    #[serde(default)]
    pub benchmark: Vec<toml::Spanned<BenchToml>>,
}

/// A suite read and checked.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The file.
    pub path: PathBuf,
    /// Its folder (absolute): where commands run and relative paths start.
    pub dir: PathBuf,
    /// The parsed file.
    pub toml: SuiteToml,
    /// Benchmarks: (name, args, matrix, env, prepare).
    pub benchmarks: Vec<SuiteBench>,
}

/// A checked benchmark.
#[derive(Clone, Debug)]
pub struct SuiteBench {
    /// Name.
    pub name: String,
    /// Argument template.
    pub args: String,
    /// Parameters and exclusions.
    pub matrix: Matrix,
    /// Environment.
    pub env: Vec<(String, String)>,
    /// Prepare command.
    pub prepare: Option<String>,
}

/// The largest `runs` or `warmup` accepted (per target and configuration), in the suite file
/// and on the command line: a million.
pub const MAX_RUNS: u32 = 1_000_000;

/// The largest suite file read, in bytes (16 MiB): a suite file is parsed whole, so a larger
/// input (a device such as `/dev/zero`, a file given by mistake) is refused, not loaded.
pub const MAX_SUITE_BYTES: u64 = 16 << 20;

/// The longest `timeout` accepted, seconds (one year).
pub const MAX_TIMEOUT_S: f64 = 365.0 * 86_400.0;

/// The default name of a command benchmark: its argument template with the `{key}`
/// placeholders removed and spaces collapsed (`-c {file}` → `-c`), or `command` when nothing
/// is left.
pub fn default_bench_name(template: &str) -> String {
    let mut out = template.to_owned();
    for k in crate::run::plan::argv::placeholders(template) {
        out = out.replace(&format!("{{{k}}}"), " ");
    }
    let name = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        "command".to_owned()
    } else {
        name
    }
}

/// The 1-based line of the first top-level `key = …` line of a TOML text (1 when not found).
fn top_key_line(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The argv text of a TOML scalar (string as is; integers, floats and booleans printed).
///
/// # Errors
/// A message for arrays, tables and dates.
pub fn value_text(v: &toml::Value) -> Result<String, String> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(format!("{other} is not a string, number or boolean")),
    }
}

/// Environment entries of a TOML table.
///
/// # Errors
/// A message for a non-scalar value.
pub fn env_of(t: &toml::Table) -> Result<Vec<(String, String)>, String> {
    t.iter()
        .map(|(k, v)| {
            value_text(v)
                .map(|s| (k.clone(), s))
                .map_err(|e| format!("env {k}: {e}"))
        })
        .collect()
}

/// The scheduling order named in a suite.
///
/// # Errors
/// A message for another name.
pub fn order_of(s: &str) -> Result<Order, String> {
    match s {
        "random" => Ok(Order::Random),
        "node" => Ok(Order::Node),
        o => Err(format!("order {o:?}: use \"random\" or \"node\"")),
    }
}

/// Reads and checks a suite file.
///
/// # Errors
/// `file:line: message` for unreadable files, TOML syntax errors, unknown keys, bad values,
/// exclusions naming unknown parameters or values, and a missing or doubled target.
pub fn load(path: &Path) -> Result<Suite, String> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let text = crate::lines::read_document(file, MAX_SUITE_BYTES).map_err(|e| match e {
        crate::lines::DocumentError::Io(e) => format!("{shown}: {e}"),
        crate::lines::DocumentError::TooLarge(limit) => format!(
            "{shown}: larger than {} MiB: not a suite file (not read further)",
            limit >> 20
        ),
        crate::lines::DocumentError::NotUtf8(line) => {
            format!("{shown}:{line}: not valid UTF-8: a suite file is TOML text")
        }
    })?;
    let toml: SuiteToml = toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| line_of(&text, s.start)).unwrap_or(1);
        format!("{shown}:{line}: {}", e.message())
    })?;
    let at = |off: usize, msg: String| format!("{shown}:{}: {msg}", line_of(&text, off));
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(dir).map_err(|e| format!("{shown}: {e}"))?;
    match (&toml.git, &toml.old, &toml.new) {
        (Some(_), None, None) | (None, Some(_), Some(_)) => {}
        (Some(_), _, _) => {
            return Err(format!(
                "{shown}: give either [git] or [old] and [new], not both"
            ));
        }
        _ => {
            return Err(format!(
                "{shown}: the suite needs [old] and [new] (or [git]) tables"
            ));
        }
    }
    if let Some(o) = &toml.order {
        order_of(o).map_err(|e| format!("{shown}: {e}"))?;
    }
    env_of(&toml.env).map_err(|e| format!("{shown}: {e}"))?;
    let key_at = |key: &str, msg: String| format!("{shown}:{}: {msg}", top_key_line(&text, key));
    if toml.runs == Some(0) {
        return Err(key_at(
            "runs",
            "runs = 0: at least 1 run is needed".to_owned(),
        ));
    }
    if let Some(r) = toml.runs
        && r > MAX_RUNS
    {
        return Err(key_at("runs", format!("runs = {r}: at most {MAX_RUNS}")));
    }
    if let Some(w) = toml.warmup
        && w > MAX_RUNS
    {
        return Err(key_at(
            "warmup",
            format!("warmup = {w}: at most {MAX_RUNS}"),
        ));
    }
    if let Some(t) = toml.timeout
        && !(t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT_S)
    {
        return Err(key_at(
            "timeout",
            format!("timeout = {t}: give seconds above 0 and at most one year ({MAX_TIMEOUT_S})"),
        ));
    }
    if toml.benchmark.is_empty() {
        return Err(format!("{shown}: no [[benchmark]] entries"));
    }
    let mut benchmarks = Vec::new();
    for sb in &toml.benchmark {
        let off = sb.span().start;
        let b = sb.get_ref();
        let name = b
            .name
            .clone()
            .unwrap_or_else(|| default_bench_name(&b.args));
        let mut matrix = Matrix::default();
        for (k, v) in &b.params {
            check_key(k).map_err(|e| at(off, format!("benchmark {name:?}: {e}")))?;
            let list = match v {
                toml::Value::Array(a) => a.clone(),
                scalar => vec![scalar.clone()],
            };
            let mut values = Vec::new();
            for x in &list {
                values.push(
                    value_text(x)
                        .map_err(|e| at(off, format!("benchmark {name:?}: params.{k}: {e}")))?,
                );
            }
            if values.is_empty() {
                return Err(at(
                    off,
                    format!("benchmark {name:?}: params.{k} has no values"),
                ));
            }
            matrix.push_values(k, values);
        }
        for ex in &b.exclude {
            let mut e = Vec::new();
            for (k, v) in ex {
                e.push((
                    k.clone(),
                    value_text(v)
                        .map_err(|e| at(off, format!("benchmark {name:?}: exclude.{k}: {e}")))?,
                ));
            }
            matrix.exclusions.push(e);
        }
        matrix
            .check_exclusions()
            .map_err(|e| at(off, format!("benchmark {name:?}: {e}")))?;
        let used = crate::run::plan::argv::placeholders(&b.args);
        for p in &matrix.params {
            if !used.contains(&p.key) {
                return Err(at(
                    off,
                    format!(
                        "benchmark {name:?}: parameter {:?} is not used in args ({:?}); write {{{}}} where it goes",
                        p.key, b.args, p.key
                    ),
                ));
            }
        }
        for u in &used {
            if !matrix.params.iter().any(|p| &p.key == u) {
                return Err(at(
                    off,
                    format!("benchmark {name:?}: args use {{{u}}} but params has no {u:?}"),
                ));
            }
        }
        crate::run::plan::argv::split_words(&b.args)
            .map_err(|e| at(off, format!("benchmark {name:?}: args {e}")))?;
        benchmarks.push(SuiteBench {
            name,
            args: b.args.clone(),
            matrix,
            env: env_of(&b.env).map_err(|e| at(off, e))?,
            prepare: b.prepare.clone(),
        });
    }
    Ok(Suite {
        path: path.to_path_buf(),
        dir,
        toml,
        benchmarks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_reports_lines() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("benchdiff.toml");
        std::fs::write(
            &p,
            "runs = 3\n[old]\ncommand = \"a\"\n[new]\ncommand = \"b\"\n\n[[benchmark]]\nname = \"x\"\nargs = \"{z} {a}\"\nparams = { z = [1, 2], a = [\"p\", true] }\nexclude = [{ z = 1, a = true }]\n",
        )
        .unwrap();
        let s = load(&p).unwrap();
        assert_eq!(s.benchmarks[0].matrix.params[0].key, "z", "order kept");
        assert_eq!(s.benchmarks[0].matrix.combinations().len(), 3);
        std::fs::write(
            &p,
            "[old]\ncommand = \"a\"\n[new]\ncommand = \"b\"\n\n[[benchmark]]\nargs = \"{z}\"\nparams = { z = [1] }\nexclude = [{ z = 7 }]\n",
        )
        .unwrap();
        let e = load(&p).unwrap_err();
        assert!(
            e.contains("benchdiff.toml:6:") && e.contains("not a value"),
            "{e}"
        );
        std::fs::write(&p, "runs = \"x\"\n").unwrap();
        let e = load(&p).unwrap_err();
        assert!(e.contains("benchdiff.toml:1:"), "{e}");
        std::fs::write(
            &p,
            "[old]\ncommand = \"a\"\n[new]\ncommand = \"b\"\nbogus = 1\n",
        )
        .unwrap();
        let e = load(&p).unwrap_err();
        assert!(e.contains("bogus"), "{e}");
    }
}
