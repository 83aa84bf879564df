//! Builds from git: `--old-rev REV --new-rev REV --build CMD --artifact PATH`.
//!
//! Each revision is resolved to its commit id (`git rev-parse --verify REV^{commit}`), checked
//! out with `git worktree add --detach` into a fresh private temporary folder (created
//! exclusively with a random name and mode 0700, so no other user can have made it first or
//! look into it; the working tree of the repository is never touched), built once with `sh -c CMD` inside that checkout, and its
//! artifact (a path relative to the checkout) must then be an executable file. The worktrees
//! are removed (`git worktree remove --force`) when the [`Checkout`] is dropped.

use crate::run::child::command;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;

/// A checked-out revision.
#[derive(Debug)]
pub struct Checkout {
    /// The repository it belongs to.
    pub repo: PathBuf,
    /// The revision as given.
    pub rev: String,
    /// Its full commit id.
    pub commit: String,
    /// The worktree folder (inside [`Checkout::private`]).
    pub dir: PathBuf,
    /// The private temporary folder holding it, removed on drop.
    pub private: tempfile::TempDir,
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let _ = Command::new("git")
            .arg("-C")
            .arg(&self.repo)
            .args(["worktree", "remove", "--force"])
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        // `private` (the folder around `dir`) is removed when it is dropped, after this.
    }
}

fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Resolves `rev` in `repo` and checks it out into `<private tmp>/<label>`.
///
/// # Errors
/// The git error text (unknown revision, not a repository, …).
pub fn checkout(repo: &Path, rev: &str, label: &str) -> Result<Checkout, String> {
    let commit = git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| format!("--{label}-rev {rev}: not a commit in {}", repo.display()))?;
    // A new folder with a random name, created exclusively (mkdir fails if it exists; a new
    // name is tried), mode 0700 whatever the umask.
    use std::os::unix::fs::PermissionsExt;
    let private = tempfile::Builder::new()
        .prefix("benchdiff-git-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| format!("cannot create a temporary folder for --{label}-rev: {e}"))?;
    let base = private.path();
    let dir = base.join(label);
    let dir_text = dir.to_string_lossy().into_owned();
    let repo_top = git(repo, &["rev-parse", "--show-toplevel"])?;
    git(
        Path::new(&repo_top),
        &["worktree", "add", "--detach", "--quiet", &dir_text, &commit],
    )?;
    Ok(Checkout {
        repo: PathBuf::from(repo_top),
        rev: rev.to_owned(),
        commit,
        dir,
        private,
    })
}

/// Builds a checkout with `sh -c build` in its folder and returns the artifact's absolute path.
///
/// # Errors
/// A multi-line message: which side and commit, the exit status and the build's last output
/// lines; or that the artifact is missing or not executable.
pub fn build(co: &Checkout, label: &str, build: &str, artifact: &str) -> Result<PathBuf, String> {
    let stop = AtomicBool::new(false);
    let o = command::run_shell(build, &[], Some(co.dir.clone()), None, &stop);
    let short = &co.commit[..co.commit.len().min(12)];
    if !o.ok() {
        return Err(command::helper_failure(
            &format!("build of {label} ({} = {short}) with `{build}`", co.rev),
            &o,
            None,
        ));
    }
    let path = co.dir.join(artifact);
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(path),
        Ok(_) => Err(format!(
            "build of {label} ({} = {short}): --artifact {artifact} is not an executable file",
            co.rev
        )),
        Err(_) => Err(format!(
            "build of {label} ({} = {short}) succeeded but --artifact {artifact} does not exist in the checkout",
            co.rev
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn run(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?}");
    }

    /// The worktree lives in a folder nobody else could have created or can read: a fresh
    /// random name per checkout, mode 0700, removed with the checkout.
    #[test]
    fn worktree_folder_is_private_and_fresh() {
        let repo = tempfile::tempdir().unwrap();
        run(repo.path(), &["init", "-q"]);
        std::fs::write(repo.path().join("f"), "x").unwrap();
        run(repo.path(), &["add", "f"]);
        run(repo.path(), &["commit", "-q", "-m", "one"]);
        let a = checkout(repo.path(), "HEAD", "old").unwrap();
        let b = checkout(repo.path(), "HEAD", "new").unwrap();
        for co in [&a, &b] {
            let mode = std::fs::metadata(co.private.path())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700, "{}", co.private.path().display());
            assert!(co.dir.starts_with(co.private.path()));
            assert!(co.dir.join("f").is_file());
        }
        assert_ne!(a.private.path(), b.private.path());
        let (pa, pb) = (
            a.private.path().to_path_buf(),
            b.private.path().to_path_buf(),
        );
        drop(a);
        drop(b);
        assert!(!pa.exists() && !pb.exists());
    }
}
