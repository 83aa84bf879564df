//! `benchdiff history …`: store samples per commit, show series and change points, gate CI,
//! build the static dashboard, prune old data. Options and printing only: storing is
//! [`crate::history::recorder`], the rest [`crate::history::query`].

use super::{EXIT_FAILED, Io};
use crate::format;
use crate::history::check::CheckOptions;
use crate::history::query::{self, Query};
use crate::history::recorder::{AddPlan, Recorder, StoreFileError};
use crate::history::store::DEFAULT_DB;
use crate::run::ending::Stop;
use crate::sample::Side;

/// `history` subcommands.
#[derive(clap::Args, Debug)]
pub(crate) struct HistoryArgs {
    #[command(subcommand)]
    command: HistoryCommand,
}

#[derive(clap::Subcommand, Debug)]
enum HistoryCommand {
    /// Store every sample of results files (any format `report` reads) under a commit.
    /// A file whose content (SHA-256) was added before is skipped.
    Add(AddArgs),
    /// Per benchmark configuration and metric: the series over commits and its change points
    /// (E-divisive means with a permutation test on the per-commit medians).
    Show(ShowArgs),
    /// CI gate: exit 1 when the commit (default: the newest) starts a change point, or falls
    /// outside the recent range, with a regression beyond --max-regression; prints Markdown.
    Check(CheckArgs),
    /// Write a static site (overview + one page per series, inline SVG) into --out DIR.
    Dashboard(DashboardArgs),
    /// Delete old commits with their samples.
    Prune(PruneArgs),
}

#[derive(clap::Args, Debug, Clone)]
struct DbArg {
    /// Database: a SQLite file path (or sqlite://PATH), or postgres://USER@HOST/DB (also
    /// `host=/socket/dir user=… dbname=…`).
    #[arg(long, value_name = "URL", default_value = DEFAULT_DB)]
    db: String,
}

#[derive(clap::Args, Debug)]
struct AddArgs {
    /// Results files: compare.js CSV, results JSON Lines, Go, hyperfine, … (as `report`).
    #[arg(required = true)]
    files: Vec<String>,
    #[command(flatten)]
    db: DbArg,
    /// Commit SHA (or a name such as a release); default: `git rev-parse HEAD`.
    #[arg(long, value_name = "SHA")]
    commit: Option<String>,
    /// Branch of the commit.
    #[arg(long, value_name = "B")]
    branch: Option<String>,
    /// Commit date, RFC 3339 (default: the commit's date from git, else now).
    #[arg(long, value_name = "RFC3339")]
    date: Option<String>,
    /// Explicit position of the commit in the history (smaller first; before dated-only ones).
    #[arg(long, value_name = "N")]
    order: Option<i64>,
    /// Machine name (default: the host name); CPU model, kernel and cores are read here.
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,
    /// A tag KEY=VALUE on the stored samples (repeatable).
    #[arg(long, value_name = "K=V")]
    tag: Vec<String>,
    /// Format of every file instead of guessing it from the content.
    #[arg(long, value_name = "FORMAT", value_parser = super::parse_input_format)]
    input_format: Option<format::InputFormat>,
}

#[derive(clap::Args, Debug, Clone)]
struct FilterArgs {
    /// Only series whose `benchmark configuration` contains TEXT.
    #[arg(long, value_name = "TEXT")]
    benchmark: Option<String>,
    /// Only this metric (e.g. rate, wall, sec/op).
    #[arg(long, value_name = "NAME")]
    metric: Option<String>,
    /// Only commits of this branch.
    #[arg(long, value_name = "B")]
    branch: Option<String>,
    /// Only samples from this machine name.
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,
    /// Only samples of files with this tag (repeatable).
    #[arg(long, value_name = "K=V")]
    tag: Vec<String>,
    /// Which side of two-sided files (compare.js CSV): new (default) or old.
    #[arg(long, value_name = "old|new", default_value = "new", value_parser = parse_side)]
    side: Side,
    /// Change points: largest p-value of the permutation test (false-alarm level per series).
    #[arg(long, value_name = "P", default_value_t = 0.01)]
    significance: f64,
    /// Change points: shuffles per permutation test.
    #[arg(long, value_name = "N", default_value_t = 199)]
    permutations: usize,
    /// Change points: fewest commits on either side of a change point.
    #[arg(long, value_name = "N", default_value_t = 3)]
    min_size: usize,
    /// Change points: seed of the shuffles.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
}

#[derive(clap::Args, Debug)]
struct ShowArgs {
    #[command(flatten)]
    db: DbArg,
    #[command(flatten)]
    filter: FilterArgs,
    /// Also list every commit's sample count and median.
    #[arg(long)]
    commits: bool,
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    #[command(flatten)]
    db: DbArg,
    /// The commit to check (default: the newest in history order).
    #[arg(long, value_name = "SHA")]
    commit: Option<String>,
    /// Largest regression accepted, percent.
    #[arg(long, value_name = "PCT", default_value_t = 5.0)]
    max_regression: f64,
    /// Commits before the checked one that make its recent range.
    #[arg(long, value_name = "N", default_value_t = 20)]
    window: usize,
    /// Also write the Markdown summary to FILE (e.g. for a pull-request comment).
    #[arg(long, value_name = "FILE")]
    markdown: Option<std::path::PathBuf>,
    #[command(flatten)]
    filter: FilterArgs,
}

#[derive(clap::Args, Debug)]
struct DashboardArgs {
    #[command(flatten)]
    db: DbArg,
    /// Folder to write index.html and the series pages into.
    #[arg(long, value_name = "DIR")]
    out: std::path::PathBuf,
    #[command(flatten)]
    filter: FilterArgs,
}

#[derive(clap::Args, Debug)]
struct PruneArgs {
    #[command(flatten)]
    db: DbArg,
    /// Delete commits dated more than N days ago.
    #[arg(long, value_name = "N")]
    keep_days: Option<u64>,
    /// Keep only the newest N commits (history order).
    #[arg(long, value_name = "N")]
    keep_commits: Option<usize>,
}

fn parse_side(s: &str) -> Result<Side, String> {
    Side::from_label(s).ok_or_else(|| format!("'{s}': expected old or new"))
}

/// Runs `history`; returns the exit code.
pub(crate) fn history(args: HistoryArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let text = |t: Result<String, String>| t.map(|t| (t, 0));
    let printed = match args.command {
        HistoryCommand::Add(a) => return add(a, io),
        HistoryCommand::Show(a) => text(query::show(&a.db.db, &a.filter.query(), a.commits)?),
        HistoryCommand::Check(a) => {
            let opts = CheckOptions {
                commit: a.commit.clone(),
                max_regression_pct: a.max_regression,
                window: a.window,
            };
            let c = query::check(&a.db.db, &a.filter.query(), &opts, a.markdown.as_deref())?;
            c.map(|c| (c.markdown, if c.failed { EXIT_FAILED } else { 0 }))
        }
        HistoryCommand::Dashboard(a) => {
            text(query::dashboard(&a.db.db, &a.filter.query(), &a.out)?)
        }
        HistoryCommand::Prune(a) => text(query::prune(&a.db.db, a.keep_days, a.keep_commits)?),
    };
    let (text, code) = printed.map_err(Stop::usage)?;
    io.stdout.write_all(text.as_bytes())?;
    Ok(code)
}

fn add(a: AddArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let plan = AddPlan {
        db: a.db.db,
        commit: a.commit,
        branch: a.branch,
        date: a.date,
        order: a.order,
        machine: a.machine,
        tags: a.tag,
        input_format: a.input_format,
    };
    let mut recorder = plan.open()?.map_err(Stop::usage)?;
    for file in &a.files {
        let stored = recorder.store_file(std::path::Path::new(file));
        for w in &stored.warnings {
            writeln!(io.stderr, "benchdiff: warning: {w}")?;
        }
        match stored.outcome {
            Ok(line) => writeln!(io.stdout, "{line}")?,
            Err(StoreFileError::Unreadable(e)) => return Err(Stop::usage(e).into()),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(0)
}

/// `--history URL` of `compare` and `run`: store the run's samples in a history database.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct HistoryTarget {
    /// Store every sample of this run in the history database URL (a SQLite file, or
    /// postgres://…; as `history add --db`) when the run ends, also after Ctrl-C or failed
    /// jobs. The database is opened (and migrated) before anything runs, so a bad URL costs
    /// no run. The results file is stored whole, by content hash, so a later `history add`
    /// of the same file is a no-op.
    #[arg(long, value_name = "URL")]
    pub(crate) history: Option<String>,
    /// With --history: the commit to store the run under (default: `git rev-parse HEAD`).
    #[arg(long, value_name = "SHA", requires = "history")]
    pub(crate) history_commit: Option<String>,
    /// With --history: the branch of that commit.
    #[arg(long, value_name = "B", requires = "history")]
    pub(crate) history_branch: Option<String>,
}

impl HistoryTarget {
    /// Opens the database named by `--history` before the run ([`Recorder::for_run`]).
    pub(crate) fn open(&self) -> Result<Option<Recorder>, String> {
        let (commit, branch) = (self.history_commit.clone(), self.history_branch.clone());
        Recorder::for_run(self.history.as_deref(), commit, branch)
    }
}

/// After a run that ended with `code`: stores the run's `results` file
/// ([`Recorder::store_run`]), saying so on stderr; returns the exit code.
pub(crate) fn store_run(
    recorder: &mut Recorder,
    results: &std::path::Path,
    code: i32,
    io: &mut Io<'_>,
) -> anyhow::Result<i32> {
    let (lines, code) = recorder.store_run(results, code);
    super::say(&lines, io)?;
    Ok(code)
}

impl FilterArgs {
    /// The typed query.
    fn query(&self) -> Query {
        Query {
            benchmark: self.benchmark.clone(),
            metric: self.metric.clone(),
            branch: self.branch.clone(),
            machine: self.machine.clone(),
            tags: self.tag.clone(),
            side: self.side,
            significance: self.significance,
            permutations: self.permutations,
            min_size: self.min_size,
            seed: self.seed,
        }
    }
}
