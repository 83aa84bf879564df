//! Finding what to run, as compare.js does (spec §1.1): the benchmark folder, its categories,
//! the files of the chosen categories after `--filter`/`--exclude`, and the binaries.

use crate::run::RunnerError;
use std::path::{Path, PathBuf};

/// The benchmark folder: `explicit` when given (it must be a folder), else `./benchmark`, else
/// the first `benchmark` folder found in an ancestor of `cwd`. The result is absolute.
///
/// # Errors
/// [`RunnerError::BenchmarkDir`] when the given folder does not exist or none is found.
pub fn find_benchmark_dir(explicit: Option<&Path>, cwd: &Path) -> Result<PathBuf, RunnerError> {
    if let Some(p) = explicit {
        let abs = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        };
        return if abs.is_dir() {
            Ok(abs)
        } else {
            Err(RunnerError::BenchmarkDir(format!(
                "--benchmark-dir {}: not a folder",
                p.display()
            )))
        };
    }
    for dir in cwd.ancestors() {
        let cand = dir.join("benchmark");
        if cand.is_dir() {
            return Ok(cand);
        }
    }
    Err(RunnerError::BenchmarkDir(format!(
        "no `benchmark` folder in {} or any parent folder; pass --benchmark-dir DIR",
        cwd.display()
    )))
}

fn sorted_entries(dir: &Path) -> Result<Vec<(String, std::fs::FileType, PathBuf)>, RunnerError> {
    let rd =
        std::fs::read_dir(dir).map_err(|e| RunnerError::Io(format!("{}: {e}", dir.display())))?;
    let mut v = Vec::new();
    for e in rd {
        let e = e.map_err(|e| RunnerError::Io(format!("{}: {e}", dir.display())))?;
        let Ok(name) = e.file_name().into_string() else {
            continue; // not UTF-8: cannot be named in the CSV
        };
        let path = e.path();
        // Follow symlinks, as Node's fork would.
        let ft = match std::fs::metadata(&path) {
            Ok(m) => m.file_type(),
            Err(_) => continue,
        };
        v.push((name, ft, path));
    }
    // libuv's scandir sorts by strcmp, i.e. byte order.
    v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(v)
}

/// The categories: sub-folders of `dir` except `fixtures`, in byte (`strcmp`) order.
///
/// # Errors
/// [`RunnerError::Io`] when the folder cannot be read.
pub fn categories(dir: &Path) -> Result<Vec<String>, RunnerError> {
    Ok(sorted_entries(dir)?
        .into_iter()
        .filter(|(n, ft, _)| ft.is_dir() && n != "fixtures")
        .map(|(n, _, _)| n)
        .collect())
}

/// compare.js's `shouldSkip`, negated: with no filters everything is kept; with filters a
/// file is kept when one is a substring of its name; any exclude that is a substring drops it.
/// Only the file name is tested, not the category.
pub fn keep(name: &str, filters: &[String], excludes: &[String]) -> bool {
    let mut skip = !filters.is_empty();
    if filters.iter().any(|f| name.contains(f.as_str())) {
        skip = false;
    }
    if excludes.iter().any(|x| name.contains(x.as_str())) {
        skip = true;
    }
    !skip
}

/// The benchmark files to run, as `category/file.js` paths relative to `dir`: categories in
/// the order given (`all` = every category; repeats are dropped), files in `strcmp` order,
/// skipping names that start with `.` or `_` and anything that is not a file.
///
/// # Errors
/// [`RunnerError::UnknownCategory`] (with the list of categories), [`RunnerError::NoBenchmarks`]
/// when nothing is left, [`RunnerError::Io`] on unreadable folders.
pub fn select(
    dir: &Path,
    items: &[String],
    filters: &[String],
    excludes: &[String],
) -> Result<Vec<String>, RunnerError> {
    let all = categories(dir)?;
    let mut chosen: Vec<String> = Vec::new();
    for item in items {
        if item == "all" {
            for c in &all {
                if !chosen.contains(c) {
                    chosen.push(c.clone());
                }
            }
        } else if all.contains(item) {
            if !chosen.contains(item) {
                chosen.push(item.clone());
            }
        } else {
            return Err(RunnerError::UnknownCategory {
                category: item.clone(),
                available: all.clone(),
            });
        }
    }
    let mut files = Vec::new();
    for cat in &chosen {
        for (name, ft, _) in sorted_entries(&dir.join(cat))? {
            if name.starts_with('.') || name.starts_with('_') || !ft.is_file() {
                continue;
            }
            if keep(&name, filters, excludes) {
                files.push(format!("{cat}/{name}"));
            }
        }
    }
    if files.is_empty() {
        return Err(RunnerError::NoBenchmarks);
    }
    Ok(files)
}

/// Resolves a binary as `execvp` would: a name with a `/` is a path (relative to `cwd`), a bare
/// name is looked up in `PATH`. The result is absolute and executable.
///
/// # Errors
/// [`RunnerError::Binary`] saying what is wrong.
pub fn resolve_binary(flag: &str, bin: &Path, cwd: &Path) -> Result<PathBuf, RunnerError> {
    use std::os::unix::fs::PermissionsExt;
    let is_exe = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    let s = bin.as_os_str().as_encoded_bytes();
    if s.contains(&b'/') {
        let abs = if bin.is_absolute() {
            bin.to_path_buf()
        } else {
            cwd.join(bin)
        };
        if is_exe(&abs) {
            return Ok(abs);
        }
        let why = if abs.exists() {
            "is not an executable file"
        } else {
            "does not exist"
        };
        return Err(RunnerError::Binary(format!(
            "{flag} {}: {why}",
            bin.display()
        )));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            let cand = d.join(bin);
            if is_exe(&cand) {
                return Ok(if cand.is_absolute() {
                    cand
                } else {
                    cwd.join(cand)
                });
            }
        }
    }
    Err(RunnerError::Binary(format!(
        "{flag} {}: not found in PATH",
        bin.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_rules_are_compare_js() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(keep("a.js", &[], &[]));
        assert!(keep("next-tick-loop.js", &f(&["next-tick"]), &[]));
        assert!(!keep("timers.js", &f(&["next-tick"]), &[]));
        assert!(keep("timers.js", &f(&[""]), &[]), "--filter \"\" keeps all");
        assert!(!keep("next-tick-loop.js", &f(&["next"]), &f(&["loop"])));
        assert!(!keep("a.js", &[], &f(&["a"])));
    }

    #[test]
    fn selects_in_strcmp_order() {
        let d = tempfile::tempdir().unwrap();
        for p in [
            "b/z.js",
            "b/a.js",
            "b/_h.js",
            "b/.x.js",
            "b/B.js",
            "a/x.js",
            "fixtures/f.js",
        ] {
            let p = d.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        std::fs::create_dir_all(d.path().join("b/sub")).unwrap();
        assert_eq!(categories(d.path()).unwrap(), vec!["a", "b"]);
        let got = select(d.path(), &["b".into(), "a".into(), "b".into()], &[], &[]).unwrap();
        assert_eq!(got, vec!["b/B.js", "b/a.js", "b/z.js", "a/x.js"]);
        let all = select(d.path(), &["all".into()], &[], &[]).unwrap();
        assert_eq!(all, vec!["a/x.js", "b/B.js", "b/a.js", "b/z.js"]);
        assert!(matches!(
            select(d.path(), &["nope".into()], &[], &[]),
            Err(RunnerError::UnknownCategory { .. })
        ));
        assert!(matches!(
            select(d.path(), &["a".into()], &["zzz".into()], &[]),
            Err(RunnerError::NoBenchmarks)
        ));
    }
}
