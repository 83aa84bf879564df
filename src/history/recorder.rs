//! Storing results files in the history database under a commit, a machine and tags: what
//! `history add` does for each file, and `compare`/`run --history URL` at the end of a run.

use super::store::{Added, CommitInfo, MachineRecord, NewFile};
use super::{HistoryError, Store};
use crate::format::{self, ReadOptions};
use crate::sample::Side;
use std::path::Path;

/// Why a file was not stored.
#[derive(Debug, thiserror::Error)]
pub enum StoreFileError {
    /// The file is not a results file of any format read (the reader's message).
    #[error("{0}")]
    Unreadable(String),
    /// The file cannot be opened or read (`name: message`).
    #[error("{name}: {error}")]
    Open {
        /// The file as given.
        name: String,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The database failed.
    #[error(transparent)]
    History(#[from] HistoryError),
}

/// What [`Recorder::store_file`] did: the reader's warnings (stored anyway), and the line
/// that says what was stored, or why not.
#[derive(Debug)]
pub struct Stored {
    /// Warnings of the reader, in order.
    pub warnings: Vec<String>,
    /// `FILE: stored N samples under SHA`, `FILE: already stored …`, or the error.
    pub outcome: Result<String, StoreFileError>,
}

/// An open history database and the commit, machine and tags that files are stored under.
pub struct Recorder {
    store: Store,
    commit: CommitInfo,
    machine: MachineRecord,
    tags: Vec<(String, String)>,
    input_format: Option<format::InputFormat>,
}

fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// The commit a stored file belongs to: `sha` or `git rev-parse HEAD`, the date given or the
/// commit's date from git (`None` when neither is known: then the time of adding counts).
/// `None` when there is no SHA and no git checkout.
pub fn commit_info(
    sha: Option<String>,
    branch: Option<String>,
    date_unix_s: Option<i64>,
    order: Option<i64>,
) -> Option<CommitInfo> {
    let sha = sha.or_else(|| git(&["rev-parse", "HEAD"]))?;
    let date_unix_s = date_unix_s.or_else(|| {
        git(&["show", "-s", "--format=%cI", &sha]).and_then(|d| super::parse_rfc3339(&d).ok())
    });
    Some(CommitInfo {
        sha,
        branch,
        date_unix_s,
        order,
    })
}

/// `KEY=VALUE` tags, each key once.
///
/// # Errors
/// A message naming a tag without `=` or with an empty key, or a key given twice.
pub fn parse_tags(tags: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for t in tags {
        let (k, v) = t
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| format!("--tag '{t}': expected KEY=VALUE"))?;
        if out.iter().any(|(ok, _)| ok == k) {
            return Err(format!("--tag: key '{k}' given twice"));
        }
        out.push((k.to_owned(), v.to_owned()));
    }
    Ok(out)
}

/// What `history add` stores its files under: the database, the commit (`None`: `git
/// rev-parse HEAD`), its branch, date (RFC 3339; `None`: the commit's date from git) and
/// position, the machine name (`None`: the host name), `KEY=VALUE` tags, and the format of
/// every file (`None`: guessed from the content).
#[derive(Clone, Debug, Default)]
pub struct AddPlan {
    /// The database URL (a SQLite file, or postgres://…).
    pub db: String,
    /// The commit SHA (or a name such as a release).
    pub commit: Option<String>,
    /// The branch of the commit.
    pub branch: Option<String>,
    /// The commit date, RFC 3339.
    pub date: Option<String>,
    /// The explicit position of the commit in the history (smaller first).
    pub order: Option<i64>,
    /// The machine name.
    pub machine: Option<String>,
    /// `KEY=VALUE` tags on the stored samples.
    pub tags: Vec<String>,
    /// The format of every file.
    pub input_format: Option<format::InputFormat>,
}

impl AddPlan {
    /// Checks the tags, the date and the commit, then opens (and migrates) the database.
    ///
    /// # Errors
    /// Outer: the database cannot be opened. Inner: the usage message to print (a bad tag or
    /// date, no commit outside a git checkout).
    pub fn open(&self) -> Result<Result<Recorder, String>, HistoryError> {
        let tags = match parse_tags(&self.tags) {
            Ok(t) => t,
            Err(e) => return Ok(Err(e)),
        };
        let date = match self.date.as_deref().map(super::parse_rfc3339).transpose() {
            Ok(d) => d,
            Err(e) => return Ok(Err(format!("--date: {e}"))),
        };
        let (sha, branch) = (self.commit.clone(), self.branch.clone());
        let Some(commit) = commit_info(sha, branch, date, self.order) else {
            return Ok(Err("--commit is required outside a git checkout".to_owned()));
        };
        Ok(Ok(Recorder::new(
            Store::open(&self.db)?,
            commit,
            MachineRecord::this_machine(self.machine.as_deref()),
            tags,
            self.input_format,
        )))
    }
}

impl Recorder {
    /// A recorder over an open database: files are stored under `commit`, `machine` and
    /// `tags`, read as `input_format` (`None`: guessed from the content).
    pub fn new(
        store: Store,
        commit: CommitInfo,
        machine: MachineRecord,
        tags: Vec<(String, String)>,
        input_format: Option<format::InputFormat>,
    ) -> Recorder {
        Recorder {
            store,
            commit,
            machine,
            tags,
            input_format,
        }
    }

    /// The recorder of a run's `--history URL` (`None` without one), opened (and migrated)
    /// before the run: the commit is `commit` or `git rev-parse HEAD`, the machine this one,
    /// no tags.
    ///
    /// # Errors
    /// The message to print: no commit is known, or the URL cannot be opened.
    pub fn for_run(
        url: Option<&str>,
        commit: Option<String>,
        branch: Option<String>,
    ) -> Result<Option<Recorder>, String> {
        let Some(url) = url else { return Ok(None) };
        let commit = commit_info(commit, branch, None, None).ok_or(
            "--history: no commit known (not in a git checkout): give --history-commit SHA",
        )?;
        let store = Store::open(url).map_err(|e| format!("--history {url}: {e}"))?;
        let machine = MachineRecord::this_machine(None);
        Ok(Some(Recorder::new(
            store,
            commit,
            machine,
            Vec::new(),
            None,
        )))
    }

    /// Reads one results file (any format `report` reads) and stores its samples under the
    /// recorder's commit, by content hash (a file stored before is skipped).
    pub fn store_file(&mut self, file: &Path) -> Stored {
        let mut warnings = Vec::new();
        let outcome = self.store_into(file, &mut warnings);
        Stored { warnings, outcome }
    }

    fn store_into(
        &mut self,
        file: &Path,
        warnings: &mut Vec<String>,
    ) -> Result<String, StoreFileError> {
        let name = file.display().to_string();
        let opts = ReadOptions {
            side: Side::New,
            sides_by: None,
        };
        let read = match super::ingest::read_file(file, &name, self.input_format, &opts) {
            Ok(r) => r,
            Err(crate::error::ImportError::Io { source, .. }) => {
                return Err(StoreFileError::Open {
                    name: name.clone(),
                    error: source,
                });
            }
            Err(e) => return Err(StoreFileError::Unreadable(e.to_string())),
        };
        let (set, imported, hash) = (read.set, read.imported, read.sha256);
        warnings.extend(imported.warnings.iter().map(ToString::to_string));
        let mut m = self.machine.clone();
        m.record = read.machine_record;
        let sha = self.commit.sha.clone();
        let added = self.store.add(&NewFile {
            sha256: hash,
            name: name.clone(),
            format: imported.format.map_or("unknown", |f| f.name()).to_owned(),
            commit: self.commit.clone(),
            machine: m,
            tags: self.tags.clone(),
            set: &set,
            now_unix_s: super::now_unix_s(),
        })?;
        Ok(match added {
            Added::Stored { samples, .. } => {
                format!("{name}: stored {samples} samples under {sha}")
            }
            Added::Duplicate { file_id } => {
                format!("{name}: already stored (same content as file #{file_id}); skipped")
            }
        })
    }
}

impl Recorder {
    /// After a run (`compare`/`run --history`) that ended with exit code `code`: stores the
    /// run's results file `results` and returns the lines for stderr (the reader's warnings,
    /// then what was stored or why not) and the exit code, 1 when storing failed after a run
    /// that went well. A missing file (nothing ran) stores nothing; a failure keeps the file,
    /// so `history add` can store it later.
    pub fn store_run(&mut self, results: &Path, code: i32) -> (Vec<String>, i32) {
        if !results.exists() {
            return (Vec::new(), code);
        }
        let stored = self.store_file(results);
        let mut lines: Vec<String> = (stored.warnings.iter())
            .map(|w| format!("benchdiff: warning: {w}"))
            .collect();
        let outcome = match stored.outcome {
            Ok(line) => Ok(line),
            Err(StoreFileError::Unreadable(e)) => Err(e),
            Err(e) => Err(format!("{:#}", anyhow::Error::from(e))),
        };
        let code = match outcome {
            Ok(line) => {
                lines.push(format!("benchdiff: history: {line}"));
                code
            }
            Err(e) => {
                lines.push(format!(
                    "benchdiff: history: could not store {}: {e} (store it later with \
                     `benchdiff history add`)",
                    results.display()
                ));
                if code == 0 {
                    crate::report::EXIT_FAILED
                } else {
                    code
                }
            }
        };
        (lines, code)
    }
}
