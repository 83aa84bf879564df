//! Builds from git: `--old-rev REV --new-rev REV --build CMD --artifact PATH`.
//!
//! Each revision is resolved to its commit id (`git rev-parse --verify REV^{commit}`), checked
//! out with `git worktree add --detach` into a fresh temporary folder (the working tree of the
//! repository is never touched), built once with `sh -c CMD` inside that checkout, and its
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
    /// The temporary worktree folder.
    pub dir: PathBuf,
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
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some(parent) = self.dir.parent() {
            let _ = std::fs::remove_dir(parent);
        }
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

/// Resolves `rev` in `repo` and checks it out into `<tmp>/<label>`.
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
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let base = std::env::temp_dir().join(format!("benchdiff-git-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&base).map_err(|e| format!("{}: {e}", base.display()))?;
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
        return Err(crate::run::commands::helper_failure(
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
