//! The files a run writes (`--csv`, `--results`) are checked **before** the run starts, so a
//! bad path costs nothing and leaves nothing behind: the same file named twice (also through
//! symlinks or `./a` vs `a`), a folder, a missing or unwritable folder, or an existing file
//! without `--force` is a usage error (exit 2). Devices and pipes (`/dev/null`, a FIFO) are
//! written as they are.
//!
//! **Overwrite rule (one for both files):** an existing file is refused unless `--force` is
//! given; with `--force` it is replaced. A results file is the record of a run (`--resume`
//! continues it, `benchdiff report` reads it) and a CSV is the raw data of an earlier
//! comparison: neither should be lost to a typo, and two files that behave differently under
//! the same command line surprise. `--resume FILE` appends to FILE (which must exist).

use std::path::{Path, PathBuf};

/// How a run uses one output file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Created (refused when it exists, unless `force`).
    Create,
    /// Appended to (must exist: `--resume`).
    Append,
}

/// One output of a run: the option that names it (for messages), its path and its use.
#[derive(Clone, Debug)]
pub struct Output<'a> {
    /// The option, e.g. `--csv`.
    pub option: &'a str,
    /// The path as given.
    pub path: &'a Path,
    /// How the run uses it.
    pub usage: Use,
}

/// The path with symlinks and `.`/`..` resolved as far as it exists (an existing file is
/// canonicalised; a new file is its canonical folder joined with its name).
pub fn identity(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let name = path.file_name().map(PathBuf::from).unwrap_or_default();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match parent.canonicalize() {
        Ok(p) => p.join(name),
        Err(_) => path.to_path_buf(),
    }
}

fn writable_dir(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access reads a NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

/// Checks the outputs of a run before it starts (see the module notes).
///
/// # Errors
/// A message naming the option and path: the same file twice, a folder, a missing or
/// unwritable folder, an existing file to create without `force`, a missing file to append to.
pub fn check(outputs: &[Output<'_>], force: bool) -> Result<(), String> {
    let mut seen: Vec<(PathBuf, &str, &Path)> = Vec::new();
    for o in outputs {
        let shown = o.path.display();
        if o.path.as_os_str().is_empty() {
            return Err(format!("{}: empty path", o.option));
        }
        if o.path.is_dir() {
            return Err(format!(
                "{} {shown}: is a folder; give a file path",
                o.option
            ));
        }
        let exists = o.path.exists();
        // Devices and pipes (/dev/null, /dev/stdout, a FIFO) are written as they are.
        let special = exists && !o.path.is_file();
        if special {
            continue;
        }
        let id = identity(o.path);
        if let Some((_, other, p)) = seen.iter().find(|(i, _, _)| *i == id) {
            return Err(format!(
                "{} {shown} and {other} {} name the same file; give them different paths",
                o.option,
                p.display()
            ));
        }
        match o.usage {
            Use::Append if !exists => {
                return Err(format!("{} {shown}: no such file", o.option));
            }
            Use::Create if exists && !force => {
                return Err(format!(
                    "{} {shown}: file exists; use --force to replace it (or choose another path)",
                    o.option
                ));
            }
            _ => {}
        }
        let dir = match o.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        // The results file's folder is created when missing (its first existing ancestor
        // must then be writable); the CSV's must exist.
        let mut probe = dir.clone();
        while !probe.exists() {
            match probe.parent() {
                Some(p) if !p.as_os_str().is_empty() => probe = p.to_path_buf(),
                _ => {
                    probe = PathBuf::from(".");
                    break;
                }
            }
        }
        if !probe.is_dir() {
            return Err(format!(
                "{} {shown}: {} is not a folder",
                o.option,
                probe.display()
            ));
        }
        let target_writable = if exists {
            std::fs::OpenOptions::new()
                .append(true)
                .open(o.path)
                .is_ok()
        } else {
            writable_dir(&probe)
        };
        if !target_writable {
            return Err(format!("{} {shown}: not writable", o.option));
        }
        seen.push((id, o.option, o.path));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out<'a>(option: &'a str, path: &'a Path) -> Output<'a> {
        Output {
            option,
            path,
            usage: Use::Create,
        }
    }

    #[test]
    fn same_file_through_dot_and_symlink() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a.csv");
        let dot = d.path().join("./a.csv");
        let e = check(&[out("--csv", &a), out("--results", &dot)], false).unwrap_err();
        assert!(e.contains("name the same file"), "{e}");
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(d.path().join("sub"), d.path().join("link")).unwrap();
        let x = d.path().join("sub/x");
        let y = d.path().join("link/x");
        assert!(check(&[out("--csv", &x), out("--results", &y)], false).is_err());
        assert!(check(&[out("--csv", &x), out("--results", &a)], false).is_ok());
    }

    #[test]
    fn folder_existing_and_unwritable() {
        let d = tempfile::tempdir().unwrap();
        let e = check(&[out("--csv", d.path())], false).unwrap_err();
        assert!(e.contains("is a folder"), "{e}");
        let f = d.path().join("f.csv");
        std::fs::write(&f, "x").unwrap();
        let e = check(&[out("--csv", &f)], false).unwrap_err();
        assert!(e.contains("--force"), "{e}");
        assert!(check(&[out("--csv", &f)], true).is_ok());
        let under_file = f.join("x.csv");
        assert!(check(&[out("--csv", &under_file)], false).is_err());
        let appended = Output {
            option: "--resume",
            path: &d.path().join("none.jsonl"),
            usage: Use::Append,
        };
        assert!(check(&[appended], false).is_err());
    }
}
