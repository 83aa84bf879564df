//! The one rule for every file a command writes (`report -o`, `--plot`, `compare --csv`,
//! `--results`, `--resume`, `run --results`, `calibrate --results`, `merge -o`,
//! `history check --markdown`), checked by [`check`] **before** the command reads, runs or
//! creates anything, so a refusal changes nothing on disk:
//!
//! - **An output is never an input** of the same command, nor another output of it: paths are
//!   compared after resolving `.`/`..` and symlinks (also a symlink whose target does not exist
//!   yet: writing through it would create that target), and existing files also by device and
//!   inode, so a hard link is caught too. An input `-` is standard input: when it is a regular
//!   file (`report -o F < F`) its device and inode are compared as a named input's are.
//! - **Devices and pipes** (`/dev/null`, `/dev/stdout`, a FIFO) are written as they are, with or
//!   without `--force`, and are never compared with other paths.
//! - **Existing files**: a file a run creates ([`Use::Create`]: a CSV, a results file) is refused
//!   unless `force`, which replaces it; a report ([`Use::Replace`]: `-o`, `--plot`,
//!   `--markdown`) is replaced (`report -o` whole: [`replace`]); a file a run continues ([`Use::Append`]: `--resume`) must exist.
//! - **Folders**: an output that is a folder, or whose nearest existing folder is not writable,
//!   is refused; only a results file's missing folder is created ([`Output::making_folder`]).
//!
//! Files derived from another output ([`results_beside`]: the results file of `--csv FILE`) are
//! checked like the file they belong to (refused without `--force`, replaced with it) and are
//! never created beside a device or pipe: they then go to the system temporary folder.
//!
//! This module depends on nothing but the standard library, so every stage may use it.

use std::path::{Path, PathBuf};

/// How a command uses one output file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// A record of work (a CSV, a results file): an existing file is refused unless `force`.
    Create,
    /// A report derived from the inputs: an existing file is replaced.
    Replace,
    /// Continued (`--resume`): must exist.
    Append,
}

/// One output of a command: the option that names it (for messages), its path and its use.
#[derive(Clone, Debug)]
pub struct Output<'a> {
    /// The option, e.g. `--csv` (or a phrase such as `the results file`).
    pub option: &'a str,
    /// The path as given.
    pub path: &'a Path,
    /// How the command uses it.
    pub usage: Use,
    /// Its missing folders are created (a results file); otherwise its folder must exist.
    pub makes_folder: bool,
}

impl<'a> Output<'a> {
    /// An output named by `option`, used as `usage`, whose folder must exist.
    pub fn new(option: &'a str, path: &'a Path, usage: Use) -> Output<'a> {
        Output {
            option,
            path,
            usage,
            makes_folder: false,
        }
    }

    /// The same output, its missing folders created when it is written.
    pub fn making_folder(self) -> Output<'a> {
        Output {
            makes_folder: true,
            ..self
        }
    }
}

/// One input of a command: the option or role that names it (for messages) and its path.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// What the file is to the command, e.g. `input file`, `--suite file`, `shard file`.
    pub option: &'a str,
    /// The path as given; `-` is standard input, protected when it is a regular file.
    pub path: &'a Path,
}

impl<'a> Input<'a> {
    /// An input named by `option`.
    pub fn new(option: &'a str, path: &'a Path) -> Input<'a> {
        Input { option, path }
    }
}

/// True when `path` exists (following symlinks) and is neither a regular file nor a folder: a
/// character or block device, a FIFO or a socket. Such outputs are written as they are.
pub fn is_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Writes the report file `path` ([`Use::Replace`]) whole by `write`. A device or pipe
/// ([`is_device`]) is written as it is; any other path is written to a new file in its folder
/// (that of the file a symlink `path` names), renamed over it once `write` returned `Ok`: a
/// reader or a second report writing the same path never sees half a report, and a failed or
/// cut-off write leaves the file that was there (a process killed while writing leaves its
/// new file, named `.NAME.PID-NANOS.partial`, beside it). The file gets the mode [`std::fs::File::create`]
/// gives (0o666 less the umask).
///
/// # Errors
/// Creating, writing or renaming failed; the new file is then removed.
pub fn replace(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if is_device(path) {
        return write(&mut std::fs::File::create(path)?);
    }
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| match std::fs::read_link(path) {
        Ok(to) => path.parent().unwrap_or(Path::new("")).join(to),
        Err(_) => path.to_path_buf(),
    });
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let partial = folder.join(format!(".{name}.{}-{nanos}.partial", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&partial)?;
    let done = write(&mut file).and_then(|()| std::fs::rename(&partial, &target));
    if done.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    done
}

/// What a path names, for comparing outputs with inputs and with each other.
#[derive(Clone, Debug)]
struct Identity {
    /// The path with `.`/`..` and every symlink resolved, as far as it exists.
    path: PathBuf,
    /// Device and inode of an existing file.
    inode: Option<(u64, u64)>,
}

impl Identity {
    fn same(&self, other: &Identity) -> bool {
        match (self.inode, other.inode) {
            (Some(a), Some(b)) => a == b,
            _ => self.path == other.path,
        }
    }
}

/// The identity of standard input when it is a regular file (redirected from a file, `< F`);
/// `None` for a terminal, a pipe, a device or a closed descriptor. Its path is empty, so only
/// its device and inode can match an output.
fn stdin_identity() -> Option<Identity> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let m = std::fs::File::from(fd).metadata().ok()?;
    m.is_file().then(|| Identity {
        path: PathBuf::new(),
        inode: Some((m.dev(), m.ino())),
    })
}

fn identity(path: &Path) -> Identity {
    use std::os::unix::fs::MetadataExt;
    let resolved = resolve(path);
    let inode = std::fs::metadata(&resolved)
        .ok()
        .map(|m| (m.dev(), m.ino()));
    Identity {
        path: resolved,
        inode,
    }
}

/// `path` with symlinks and `.`/`..` resolved as far as it exists: an existing file is
/// canonicalised; a symlink to a missing file resolves to that file (writing through the link
/// creates it); a new file is its nearest existing folder, canonicalised, joined with the rest.
fn resolve(path: &Path) -> PathBuf {
    let mut p = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    // A chain of symlinks ending in a missing file (40 links at most, as the kernel allows).
    for _ in 0..40 {
        if let Ok(c) = p.canonicalize() {
            return c;
        }
        match std::fs::read_link(&p) {
            Ok(target) => {
                p = match p.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Err(_) => break,
        }
    }
    // A missing file: canonicalise its nearest existing folder.
    let mut rest = Vec::new();
    let mut dir = p.as_path();
    while let Some(parent) = dir.parent() {
        if let Some(name) = dir.file_name() {
            rest.push(name.to_os_string());
        }
        if let Ok(c) = parent.canonicalize() {
            let mut out = c;
            out.extend(rest.iter().rev());
            return out;
        }
        dir = parent;
    }
    p
}

fn writable_dir(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access reads a NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

/// Checks the outputs of a command against its inputs and each other before anything is
/// written (see the module notes). `force` is the command's `--force`.
///
/// # Errors
/// A message naming the option and path: an output that is an input or another output, a
/// folder, a missing or unwritable folder, an existing file to create without `force`, a
/// missing file to append to.
pub fn check(inputs: &[Input<'_>], outputs: &[Output<'_>], force: bool) -> Result<(), String> {
    let stdin = |i: &Input<'_>| i.path.as_os_str() == "-";
    let inputs: Vec<(Identity, &Input<'_>)> = inputs
        .iter()
        .filter_map(|i| match stdin(i) {
            true => stdin_identity().map(|id| (id, i)),
            false => (std::fs::metadata(i.path).is_ok() && !is_device(i.path))
                .then(|| (identity(i.path), i)),
        })
        .collect();
    let mut seen: Vec<(Identity, &Output<'_>)> = Vec::new();
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
        if is_device(o.path) {
            continue;
        }
        let id = identity(o.path);
        if let Some((_, i)) = inputs.iter().find(|(i, _)| i.same(&id)) {
            if stdin(i) {
                return Err(format!(
                    "{} {shown}: is the file on standard input (the {} -); an output never \
                     replaces an input",
                    o.option, i.option
                ));
            }
            return Err(format!(
                "{} {shown}: names the {} {}; an output never replaces an input",
                o.option,
                i.option,
                i.path.display()
            ));
        }
        if let Some((_, other)) = seen.iter().find(|(i, _)| i.same(&id)) {
            return Err(format!(
                "{} {shown} and {} {} name the same file; give them different paths",
                o.option,
                other.option,
                other.path.display()
            ));
        }
        let exists = std::fs::metadata(o.path).is_ok();
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
        let dir = match id.path.parent() {
            Some(p) => p.to_path_buf(),
            None => PathBuf::from("/"),
        };
        let mut probe = dir.clone();
        while !probe.exists() {
            match probe.parent() {
                Some(p) => probe = p.to_path_buf(),
                None => break,
            }
        }
        if !probe.is_dir() {
            return Err(format!(
                "{} {shown}: {} is not a folder",
                o.option,
                probe.display()
            ));
        }
        if probe != dir && !o.makes_folder {
            return Err(format!("{} {shown}: no folder {}", o.option, dir.display()));
        }
        let writable = if exists {
            std::fs::OpenOptions::new()
                .append(true)
                .open(o.path)
                .is_ok()
        } else {
            writable_dir(&probe)
        };
        if !writable {
            return Err(format!("{} {shown}: not writable", o.option));
        }
        seen.push((id, o));
    }
    Ok(())
}

/// The results file of a run that writes the CSV `csv` and no `--results` (Node-file and
/// command runs alike), and a note to print on stderr when it is not where the user would look:
///
/// - `--csv FILE`: `FILE-STEM.results.jsonl` beside it, checked as [`Use::Create`] like the CSV
///   (so `--force` replaces both and nothing accumulates);
/// - `--csv` naming a device or pipe: `benchdiff-FILE-STEM-<UTC time>.results.jsonl` in the
///   system temporary folder (`TMPDIR`), never beside the device;
/// - no `--csv` (or `-`, stdout): `benchdiff-results/<UTC time>.jsonl` in the current folder;
///   a `-1`, `-2`, … suffix keeps it new when a run of the same second left one.
pub fn results_beside(csv: Option<&Path>, utc_stamp: &str) -> PathBuf {
    let stem = |c: &Path| {
        c.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "benchdiff".to_owned())
    };
    let (dir, name) = match csv.filter(|c| c.as_os_str() != "-") {
        Some(c) if is_device(c) => (
            std::env::temp_dir(),
            format!("benchdiff-{}-{utc_stamp}.results", stem(c)),
        ),
        Some(c) => {
            let dir = c.parent().map(Path::to_path_buf).unwrap_or_default();
            return dir.join(format!("{}.results.jsonl", stem(c)));
        }
        None => (PathBuf::from("benchdiff-results"), utc_stamp.to_owned()),
    };
    let mut p = dir.join(format!("{name}.jsonl"));
    let mut i = 1;
    while std::fs::symlink_metadata(&p).is_ok() {
        p = dir.join(format!("{name}-{i}.jsonl"));
        i += 1;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out<'a>(option: &'a str, path: &'a Path) -> Output<'a> {
        Output::new(option, path, Use::Create)
    }

    #[test]
    fn same_file_through_dot_symlink_and_hard_link() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a.csv");
        let dot = d.path().join("./a.csv");
        let e = check(&[], &[out("--csv", &a), out("--results", &dot)], false).unwrap_err();
        assert!(e.contains("name the same file"), "{e}");
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(d.path().join("sub"), d.path().join("link")).unwrap();
        let x = d.path().join("sub/x");
        let y = d.path().join("link/x");
        assert!(check(&[], &[out("--csv", &x), out("--results", &y)], false).is_err());
        assert!(check(&[], &[out("--csv", &x), out("--results", &a)], false).is_ok());
        // A dangling symlink names its target.
        std::os::unix::fs::symlink("t.jsonl", d.path().join("alias.csv")).unwrap();
        let (alias, t) = (d.path().join("alias.csv"), d.path().join("t.jsonl"));
        assert!(check(&[], &[out("--csv", &alias), out("--results", &t)], false).is_err());
        // A hard link is the same file, even with force.
        std::fs::write(&a, "x").unwrap();
        let h = d.path().join("h.csv");
        std::fs::hard_link(&a, &h).unwrap();
        assert!(check(&[], &[out("--csv", &a), out("--results", &h)], true).is_err());
    }

    #[test]
    fn an_output_is_never_an_input() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("in.csv");
        std::fs::write(&a, "x").unwrap();
        let h = d.path().join("hard.txt");
        std::fs::hard_link(&a, &h).unwrap();
        let input = [Input::new("input file", &a)];
        for p in [&a, &h] {
            let e = check(&input, &[Output::new("-o", p, Use::Replace)], true).unwrap_err();
            assert!(e.contains("names the input file"), "{e}");
        }
        let other = d.path().join("out.txt");
        assert!(check(&input, &[Output::new("-o", &other, Use::Replace)], false).is_ok());
        // A report replaces an existing output that is not an input.
        std::fs::write(&other, "old").unwrap();
        assert!(check(&input, &[Output::new("-o", &other, Use::Replace)], false).is_ok());
    }

    #[test]
    fn folder_existing_unwritable_and_devices() {
        let d = tempfile::tempdir().unwrap();
        let e = check(&[], &[out("--csv", d.path())], false).unwrap_err();
        assert!(e.contains("is a folder"), "{e}");
        let f = d.path().join("f.csv");
        std::fs::write(&f, "x").unwrap();
        let e = check(&[], &[out("--csv", &f)], false).unwrap_err();
        assert!(e.contains("--force"), "{e}");
        assert!(check(&[], &[out("--csv", &f)], true).is_ok());
        let under_file = f.join("x.csv");
        assert!(check(&[], &[out("--csv", &under_file)], false).is_err());
        let missing = d.path().join("new/x.jsonl");
        assert!(check(&[], &[out("--csv", &missing)], false).is_err());
        assert!(check(&[], &[out("--results", &missing).making_folder()], false).is_ok());
        let none = d.path().join("none.jsonl");
        let appended = Output::new("--resume", &none, Use::Append);
        assert!(check(&[], &[appended], false).is_err());
        let null = Path::new("/dev/null");
        assert!(check(&[], &[out("--csv", null), out("--results", null)], false).is_ok());
    }

    #[test]
    fn results_beside_a_csv_a_device_or_nothing() {
        assert_eq!(
            results_beside(Some(Path::new("out/x.csv")), "s"),
            PathBuf::from("out/x.results.jsonl")
        );
        let dev = results_beside(Some(Path::new("/dev/null")), "20240101-000000");
        assert!(dev.starts_with(std::env::temp_dir()), "{}", dev.display());
        assert!(
            dev.to_string_lossy()
                .contains("benchdiff-null-20240101-000000")
        );
        assert!(results_beside(None, "s").starts_with("benchdiff-results"));
    }

    #[test]
    fn replace_writes_whole_or_keeps_the_file() {
        use std::io::Write;
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("r.txt");
        std::fs::write(&f, "old report").unwrap();
        let failed = replace(&f, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("cut off"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "old report");
        let link = d.path().join("link.txt");
        std::os::unix::fs::symlink("r.txt", &link).unwrap();
        replace(&link, |w| w.write_all(b"new report")).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new report");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            2,
            "nothing left beside"
        );
    }
}
