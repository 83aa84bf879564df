//! The plan of a command-benchmark run: targets (programs, or git revisions built first),
//! benchmarks with parameter matrices, runs and order, and the helpers that make targets from
//! command texts and git revisions. `cli/command_bench.rs` maps options and suite files onto
//! these; [`crate::run::command_run`] runs them.

use crate::run::child::command;
use crate::run::plan::argv::split_words;
use crate::run::plan::discover;
use crate::run::plan::git::{self, Checkout};
use crate::run::plan::matrix::{Combination, Matrix};
use crate::run::schedule::{self, Job, Order};
use crate::sample::Side;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub use crate::format::results::command::{BenchHeader, CommandRunHeader, Target};

/// One benchmark: an argument template with a parameter matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchDef {
    /// Its name (the `filename` of its samples when the program reports none).
    pub name: String,
    /// Arguments after the target's words, with `{key}` placeholders.
    pub template: String,
    /// Parameters (only keys used in the template) and exclusions.
    pub matrix: Matrix,
    /// Extra environment of its runs.
    pub env: Vec<(String, String)>,
    /// Run before every job of this benchmark (after the plan's `prepare`).
    pub prepare: Option<String>,
}

/// One benchmark with one combination: a unit of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Index into [`CommandPlan::benchmarks`].
    pub bench: usize,
    /// The combination.
    pub combo: Combination,
}

/// Everything a command-benchmark run needs.
#[derive(Clone, Debug)]
pub struct CommandPlan {
    /// One target (`run`, `sweep`) or two (old, new).
    pub targets: Vec<Target>,
    /// Benchmarks.
    pub benchmarks: Vec<BenchDef>,
    /// Counted runs per target and instance.
    pub runs: u32,
    /// Uncounted runs per target and instance, before the counted ones.
    pub warmup: u32,
    /// Job order.
    pub order: Order,
    /// Seed of the random order.
    pub seed: u64,
    /// Hand the line to `sh -c` instead of splitting it.
    pub shell: bool,
    /// Environment of every child.
    pub env: Vec<(String, String)>,
    /// Per-job limit.
    pub timeout: Option<Duration>,
    /// Before every job (`sh -c`, untimed).
    pub prepare: Option<String>,
    /// Once per target before the first job.
    pub setup: Option<String>,
    /// Once per target after the last job.
    pub cleanup: Option<String>,
    /// CPUs to pin the children to (as given, e.g. `0-1`).
    pub cpus: Option<String>,
    /// Counters measured per run ([`crate::run::child::counters`]).
    pub measure: crate::run::child::counters::Measure,
    /// `--control`: every (instance, run) also runs the old target as [`Side::Control`].
    pub control: bool,
}

/// The side of target `i` of a plan: the first is `old`, the second `new`.
pub fn side_of(i: usize) -> Side {
    if i == 0 { Side::Old } else { Side::New }
}

impl CommandPlan {
    /// Every instance: benchmarks in order, combinations last key fastest.
    pub fn instances(&self) -> Vec<Instance> {
        let mut v = Vec::new();
        for (b, def) in self.benchmarks.iter().enumerate() {
            for combo in def.matrix.combinations() {
                v.push(Instance { bench: b, combo });
            }
        }
        v
    }

    /// The full schedule over `instances.len()` instances and `warmup + runs` rounds; jobs of
    /// a missing second target are left out. `Job::file` indexes the instances.
    pub fn schedule(&self, instances: usize) -> Vec<Job> {
        let rounds = self.warmup + self.runs;
        let sides = schedule::sides(self.control && self.targets.len() == 2);
        let mut jobs = schedule::schedule_sides(instances, rounds, self.order, self.seed, sides);
        if self.targets.len() < 2 {
            jobs.retain(|j| j.side == Side::Old);
            for (i, j) in jobs.iter_mut().enumerate() {
                j.position = u32::try_from(i).unwrap_or(u32::MAX);
            }
        }
        jobs
    }

    /// The argv of one job.
    ///
    /// # Errors
    /// A message for bad quoting in the template.
    pub fn argv(&self, target: &Target, inst: &Instance) -> Result<Vec<String>, String> {
        let def = &self.benchmarks[inst.bench];
        crate::run::plan::argv::build_argv(&target.argv, &def.template, &inst.combo, self.shell)
            .map_err(|e| format!("benchmark {:?}: {e}", def.name))
    }

    /// The header record of this plan.
    pub fn header(&self, started_unix_s: f64, jobs: usize) -> CommandRunHeader {
        CommandRunHeader {
            benchdiff: env!("CARGO_PKG_VERSION").to_owned(),
            started_unix_s,
            targets: self.targets.clone(),
            benchmarks: self
                .benchmarks
                .iter()
                .map(|b| BenchHeader {
                    name: b.name.clone(),
                    template: b.template.clone(),
                    params: b.matrix.params.clone(),
                    exclusions: b.matrix.exclusions.clone(),
                })
                .collect(),
            runs: self.runs,
            warmup: self.warmup,
            order: self.order,
            seed: self.seed,
            shell: self.shell,
            timeout_s: self.timeout.map(|t| t.as_secs_f64()),
            prepare: self.prepare.clone(),
            setup: self.setup.clone(),
            cleanup: self.cleanup.clone(),
            cpus: self.cpus.clone(),
            jobs,
            adaptive: None,
            decided: None,
            counters: (!self.measure.is_empty()).then(|| self.measure.note()),
            control: self.control,
        }
    }
}

/// Why a plan could not be made.
pub enum PlanError {
    /// Bad options or suite file (exit 2).
    Usage(String),
    /// A build failed (exit 1).
    Build(String),
}

/// A plan with what must live as long as it runs (git worktrees).
pub struct Prepared {
    /// The plan.
    pub plan: CommandPlan,
    /// Git worktrees the targets were built in, removed when dropped.
    pub _checkouts: Vec<Checkout>,
}

/// Parses `--env KEY=VALUE` items.
///
/// # Errors
/// A message naming an item without `=` or with an empty key.
pub fn parse_env(items: &[String]) -> Result<Vec<(String, String)>, String> {
    items
        .iter()
        .map(|e| {
            e.split_once('=')
                .filter(|(k, _)| !k.is_empty())
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .ok_or_else(|| format!("--env {e:?}: expected KEY=VALUE"))
        })
        .collect()
}

/// A target from a command text (`gzip -1`, `./prog`): split into words, the program resolved
/// like `execvp` (relative to `base` when it has a `/`).
///
/// # Errors
/// A message for bad quoting, an empty command or a program that cannot be found.
pub fn target_from_text(side: Side, flag: &str, text: &str, base: &Path) -> Result<Target, String> {
    let mut words = split_words(text).map_err(|e| format!("{flag}: {e}"))?;
    let Some(first) = words.first() else {
        return Err(format!("{flag}: empty command"));
    };
    let exe = discover::resolve_binary(flag, Path::new(first), base).map_err(|e| e.to_string())?;
    words[0] = exe.to_string_lossy().into_owned();
    Ok(Target {
        side,
        label: text.to_owned(),
        argv: words,
        cwd: None,
        rev: None,
        commit: None,
    })
}

/// Announces and runs a build; the error carries its stderr tail.
///
/// # Errors
/// [`PlanError::Build`] with the build's stderr tail when it fails.
pub fn run_build(
    label: &str,
    line: &str,
    dir: &Path,
    stderr: &mut dyn Write,
) -> Result<(), PlanError> {
    let _ = writeln!(stderr, "benchdiff: building {label}: {line}");
    let t = std::time::Instant::now();
    let stop = AtomicBool::new(false);
    let o = command::run_shell(line, &[], Some(dir.to_path_buf()), None, &stop);
    if !o.ok() {
        return Err(PlanError::Build(command::helper_failure(
            &format!("build of {label} (`{line}` in {})", dir.display()),
            &o,
            None,
        )));
    }
    let _ = writeln!(
        stderr,
        "benchdiff: built {label} in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Checks out and builds `old_rev` and `new_rev` of `repo` (see [`super::git`]) and makes
/// their targets: the built `artifact` followed by the words of `args`.
///
/// # Errors
/// [`PlanError::Usage`] for an unknown revision or bad `args`, [`PlanError::Build`] when a
/// build fails.
pub fn git_targets(
    repo: &Path,
    old_rev: &str,
    new_rev: &str,
    build: &str,
    artifact: &str,
    args: Option<&str>,
    stderr: &mut dyn Write,
) -> Result<(Vec<Target>, Vec<Checkout>), PlanError> {
    let mut targets = Vec::new();
    let mut checkouts = Vec::new();
    let extra = match args {
        Some(a) => split_words(a).map_err(PlanError::Usage)?,
        None => Vec::new(),
    };
    for (side, rev) in [(Side::Old, old_rev), (Side::New, new_rev)] {
        let co = git::checkout(repo, rev, side.label()).map_err(PlanError::Usage)?;
        let _ = writeln!(
            stderr,
            "benchdiff: building {} = {rev} ({}) in {}: {build}",
            side.label(),
            &co.commit[..co.commit.len().min(12)],
            co.dir.display()
        );
        let exe = git::build(&co, side.label(), build, artifact).map_err(PlanError::Build)?;
        let mut argv = vec![exe.to_string_lossy().into_owned()];
        argv.extend(extra.iter().cloned());
        targets.push(Target {
            side,
            label: format!("{rev}:{artifact}"),
            argv,
            cwd: None,
            rev: Some(rev.to_owned()),
            commit: Some(co.commit.clone()),
        });
        checkouts.push(co);
    }
    Ok((targets, checkouts))
}
