//! Shards of a run plan: `compare … --shard K/N` runs only shard K's part of the
//! schedule, so that N machines (a Slurm job array, a Kubernetes Indexed Job, a CI matrix)
//! together run exactly the unsharded plan.
//!
//! A shard is a slice of the plan's schedule ([`crate::run::schedule`]): the jobs it keeps
//! have the same file (or configuration), side, round and position as in the unsharded
//! schedule, in the same order, and the union of the N slices is the schedule, no job twice.
//! Every shard runs old and new (and the control, with `--control`) itself, interleaved as the
//! unsharded run would.
//!
//! - [`Split::Benchmarks`]: each shard runs whole benchmarks (a Node file, or one command
//!   configuration), every round. Benchmarks are assigned greedily, longest first, to the shard
//!   with the least work so far (Graham's LPT rule, Graham 1969): by the wall seconds of the
//!   benchmark's jobs in a previous results file (`--balance-from`), else by count (then the
//!   rule deals benchmark `i` to shard `i mod N + 1`).
//! - [`Split::Runs`]: each shard runs every benchmark for a contiguous share of the counted
//!   rounds, `[⌊(K−1)·R/N⌋, ⌊K·R/N⌋)`: each machine is a block of the analysis. Warm-up rounds
//!   (command benchmarks' `--warmup`) warm a machine, so every shard runs them (they are not
//!   counted and produce no samples).
//!
//! **Shard numbers are 1-based**: `--shard 1/4` … `--shard 4/4`. `--shard auto` reads them from
//! the environment ([`from_env`]).

pub use crate::format::results::shard::{ShardRecord, Split};
use crate::run::schedule::Job;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Shard K of N (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// K, 1 ≤ K ≤ N.
    pub k: u32,
    /// N ≥ 1.
    pub n: u32,
}

impl Shard {
    /// `K/N`.
    pub fn label(self) -> String {
        format!("{}/{}", self.k, self.n)
    }
}

/// `--shard` as given: explicit or from the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardArg {
    /// `K/N`.
    Fixed(Shard),
    /// `auto`.
    Auto,
}

/// The largest N accepted.
pub const MAX_SHARDS: u32 = 100_000;

/// Parses `--shard K/N` (1 ≤ K ≤ N) or `auto`.
///
/// # Errors
/// A message naming the value when it is neither.
pub fn parse_shard(s: &str) -> Result<ShardArg, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("auto") {
        return Ok(ShardArg::Auto);
    }
    let bad = || {
        format!(
            "'{s}' is not K/N with 1 ≤ K ≤ N ≤ {MAX_SHARDS} (shards are numbered from 1: 1/4 … 4/4), nor auto"
        )
    };
    let (k, n) = t.split_once('/').ok_or_else(bad)?;
    let k: u32 = k.trim().parse().map_err(|_| bad())?;
    let n: u32 = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || n == 0 || k > n || n > MAX_SHARDS {
        return Err(bad());
    }
    Ok(ShardArg::Fixed(Shard { k, n }))
}

/// K and N from the environment of a cluster or CI engine (`--shard auto`), looked up through
/// `env`:
/// - Slurm job arrays: `SLURM_ARRAY_TASK_ID` with `SLURM_ARRAY_TASK_MIN` and
///   `SLURM_ARRAY_TASK_MAX` (K = ID − MIN + 1, N = MAX − MIN + 1; for a stepped array such as
///   `--array=0-6:2`, whose `SLURM_ARRAY_TASK_COUNT` says 4, K = (ID − MIN)/step + 1, N = 4), or
///   with `SLURM_ARRAY_TASK_COUNT` alone (N; MIN taken as 0);
/// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` (0-based; K = index + 1) with N from
///   `count` (`--shard-count N`) or `BENCHDIFF_SHARD_COUNT`.
///
/// # Errors
/// A message naming the variables looked for when none is set, or the bad value.
pub fn from_env(env: &dyn Fn(&str) -> Option<String>, count: Option<u32>) -> Result<Shard, String> {
    let num = |name: &str| -> Result<Option<u64>, String> {
        match env(name) {
            None => Ok(None),
            Some(v) if v.trim().is_empty() => Ok(None),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| format!("--shard auto: {name}={v:?} is not a whole number ≥ 0")),
        }
    };
    let checked = |k: u64, n: u64, from: &str| -> Result<Shard, String> {
        if n == 0 || k == 0 || k > n || n > u64::from(MAX_SHARDS) {
            return Err(format!(
                "--shard auto: {from} gives shard {k} of {n}, which is not 1 ≤ K ≤ N ≤ {MAX_SHARDS}"
            ));
        }
        Ok(Shard {
            k: k as u32,
            n: n as u32,
        })
    };
    if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
        let min = num("SLURM_ARRAY_TASK_MIN")?;
        let max = num("SLURM_ARRAY_TASK_MAX")?;
        let count_env = num("SLURM_ARRAY_TASK_COUNT")?;
        let from = "SLURM_ARRAY_TASK_ID/MIN/MAX/COUNT";
        return match (min, max, count_env) {
            // A stepped array (`--array=0-6:2`): MAX − MIN + 1 is not the task count.
            (Some(min), Some(max), Some(c))
                if max >= min
                    && id >= min
                    && c > 1
                    && max - min + 1 != c
                    && (max - min) % (c - 1) == 0
                    && (id - min) % ((max - min) / (c - 1)) == 0 =>
            {
                checked((id - min) / ((max - min) / (c - 1)) + 1, c, from)
            }
            (Some(min), Some(max), _) if max >= min && id >= min => {
                checked(id - min + 1, max - min + 1, from)
            }
            (min, _, Some(c)) if id >= min.unwrap_or(0) => {
                checked(id - min.unwrap_or(0) + 1, c, from)
            }
            _ => Err(
                "--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_MIN with \
                 SLURM_ARRAY_TASK_MAX nor SLURM_ARRAY_TASK_COUNT gives the array's size (or the \
                 ID lies outside it)"
                    .to_owned(),
            ),
        };
    }
    if let Some(i) = num("JOB_COMPLETION_INDEX")? {
        let n = match count {
            Some(c) => Some(u64::from(c)),
            None => num("BENCHDIFF_SHARD_COUNT")?,
        };
        let Some(n) = n else {
            return Err(
                "--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but the \
                 number of shards is not: pass --shard-count N (the Job's completions) or set \
                 BENCHDIFF_SHARD_COUNT"
                    .to_owned(),
            );
        };
        return checked(i + 1, n, "JOB_COMPLETION_INDEX (0-based) + --shard-count");
    }
    Err(
        "--shard auto: no shard in the environment: looked for SLURM_ARRAY_TASK_ID (with \
         SLURM_ARRAY_TASK_MIN/SLURM_ARRAY_TASK_MAX or SLURM_ARRAY_TASK_COUNT; a Slurm job array) \
         and JOB_COMPLETION_INDEX (with --shard-count N or BENCHDIFF_SHARD_COUNT; a Kubernetes \
         Indexed Job). In a CI matrix pass --shard K/N explicitly"
            .to_owned(),
    )
}

/// Which part of the plan a shard runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assignment {
    /// These benchmark indices (files or command configurations), every round.
    Units(Vec<usize>),
    /// Counted rounds `[from, to)` of every benchmark (and every warm-up round).
    Rounds(u32, u32),
}

/// The rounds `[from, to)` of shard `s` out of `runs` counted rounds.
pub fn rounds_of(s: Shard, runs: u32) -> (u32, u32) {
    let r = u64::from(runs);
    let (k, n) = (u64::from(s.k), u64::from(s.n));
    (((k - 1) * r / n) as u32, (k * r / n) as u32)
}

/// The benchmarks of each of `n` shards for `units` benchmarks with `weights` (seconds, or
/// `None` for equal weights): longest first to the least-loaded shard (ties: lower index
/// first, lower shard first). Every benchmark is in exactly one list; lists are sorted.
pub fn deal(units: usize, n: u32, weights: Option<&[f64]>) -> Vec<Vec<usize>> {
    let n = n.max(1) as usize;
    let w = |i: usize| -> f64 {
        weights
            .and_then(|w| w.get(i))
            .copied()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .unwrap_or(1.0)
    };
    let mut order: Vec<usize> = (0..units).collect();
    order.sort_by(|&a, &b| w(b).total_cmp(&w(a)).then(a.cmp(&b)));
    let mut load = vec![0.0f64; n];
    let mut out = vec![Vec::new(); n];
    for i in order {
        let mut best = 0;
        for s in 1..n {
            if load[s] < load[best] {
                best = s;
            }
        }
        load[best] += w(i);
        out[best].push(i);
    }
    for v in &mut out {
        v.sort_unstable();
    }
    out
}

/// The predicted wall time of a run split over `n` shards running at once (seconds): the
/// largest shard's work, where `weights` are each benchmark's seconds for the whole unsharded
/// plan (all its rounds, both sides; e.g. from a previous results file, see
/// [`balance_weights`]). `--split benchmarks` deals them as [`deal`] does; `--split runs` gives
/// every shard its share of the `runs` rounds of every benchmark. Start-up and merge time are
/// not included.
pub fn predicted_wall_s(weights: &[f64], n: u32, split: Split, runs: u32) -> f64 {
    let n = n.max(1);
    match split {
        Split::Benchmarks => deal(weights.len(), n, Some(weights))
            .iter()
            .map(|units| units.iter().map(|&i| weights[i]).sum::<f64>())
            .fold(0.0, f64::max),
        Split::Runs => {
            let total: f64 = weights.iter().sum();
            (1..=n)
                .map(|k| {
                    let (a, b) = rounds_of(Shard { k, n }, runs);
                    total * f64::from(b - a) / f64::from(runs.max(1))
                })
                .fold(0.0, f64::max)
        }
    }
}

/// Shard `s`'s assignment for a plan of `units` benchmarks and `runs` counted rounds.
pub fn assign(
    s: Shard,
    split: Split,
    units: usize,
    runs: u32,
    weights: Option<&[f64]>,
) -> Assignment {
    match split {
        Split::Runs => {
            let (a, b) = rounds_of(s, runs);
            Assignment::Rounds(a, b)
        }
        Split::Benchmarks => Assignment::Units(
            deal(units, s.n, weights)
                .into_iter()
                .nth(s.k as usize - 1)
                .unwrap_or_default(),
        ),
    }
}

/// The jobs of `jobs` (a full schedule whose first `warmup` rounds are warm-ups) that the
/// assignment keeps, in schedule order, unchanged.
pub fn slice(jobs: &[Job], a: &Assignment, warmup: u32) -> Vec<Job> {
    match a {
        Assignment::Units(units) => {
            let keep: std::collections::HashSet<usize> = units.iter().copied().collect();
            jobs.iter()
                .filter(|j| keep.contains(&j.file))
                .copied()
                .collect()
        }
        Assignment::Rounds(from, to) => jobs
            .iter()
            .filter(|j| j.run < warmup || (j.run - warmup >= *from && j.run - warmup < *to))
            .copied()
            .collect(),
    }
}

impl Assignment {
    /// The assignment a `shard` record holds (None when it holds neither).
    pub fn from_record(r: &ShardRecord) -> Option<Assignment> {
        match (&r.units, r.rounds) {
            (Some(u), _) => Some(Assignment::Units(u.clone())),
            (None, Some([a, b])) => Some(Assignment::Rounds(a, b)),
            _ => None,
        }
    }
}

/// A `shard` record for shard `s` with assignment `a`.
#[allow(clippy::too_many_arguments)]
pub fn record(
    s: Shard,
    split: Split,
    fingerprint: &str,
    seed: u64,
    runs: u32,
    balance: Option<String>,
    a: &Assignment,
    jobs: usize,
) -> ShardRecord {
    ShardRecord {
        shard: s.k,
        of: s.n,
        split,
        plan: fingerprint.to_owned(),
        seed,
        runs,
        balance,
        units: match a {
            Assignment::Units(u) => Some(u.clone()),
            Assignment::Rounds(..) => None,
        },
        rounds: match a {
            Assignment::Rounds(x, y) => Some([*x, *y]),
            Assignment::Units(_) => None,
        },
        jobs,
        host: crate::run::machine::host_name(),
        source: None,
    }
}

/// `sha256:` + hex of the bytes of the file at `path`.
///
/// # Errors
/// A message naming the file when it cannot be read.
pub fn file_hash(path: &Path) -> Result<String, String> {
    let mut f =
        std::fs::File::open(path).map_err(|e| format!("cannot hash {}: {e}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        use std::io::Read;
        let n = f
            .read(&mut buf)
            .map_err(|e| format!("cannot hash {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(format!("sha256:{}", hex(&h.finalize())))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A plan fingerprint: `sha256:` + hex over the `parts` (each length-prefixed, so no two
/// different lists hash alike).
pub fn fingerprint(parts: &[String]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    format!("sha256:{}", hex(&h.finalize()))
}

/// The seed a sharded run uses when none is given: the same on every shard, taken from the
/// fingerprint of the plan without its seed (its first 8 bytes).
pub fn derived_seed(fingerprint_without_seed: &str) -> u64 {
    let h = Sha256::digest(fingerprint_without_seed.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&h[..8]);
    u64::from_le_bytes(b)
}

/// The fingerprint parts of a Node-file plan without the seed: binaries' and benchmark
/// files' content hashes, files (relative), runs, `--set` values, order and `--control`.
/// Paths are not part of it (they may differ from machine to machine).
///
/// # Errors
/// A message when a binary or benchmark file cannot be read.
pub fn node_parts(plan: &crate::run::Plan) -> Result<Vec<String>, String> {
    let mut parts = vec![
        "node-files".to_owned(),
        file_hash(&plan.old_exec)?,
        file_hash(&plan.new_exec)?,
    ];
    for f in &plan.files {
        parts.push(f.clone());
        parts.push(file_hash(&plan.benchmark_dir.join(f))?);
    }
    parts.push(format!("runs={}", plan.runs));
    parts.push(format!("set={:?}", plan.set));
    parts.push(format!("order={:?}", plan.order));
    if plan.control {
        parts.push("control".to_owned());
    }
    Ok(parts)
}

/// The fingerprint parts of a command plan without the seed: the command lines as given (and
/// the commits of git-built targets), benchmarks with templates, parameters and exclusions,
/// environment, helper commands, runs, warm-ups, order, shell mode and `--control`.
pub fn command_parts(plan: &crate::run::plan::command::CommandPlan) -> Vec<String> {
    let mut parts = vec!["commands".to_owned()];
    for t in &plan.targets {
        parts.push(format!(
            "target {} {:?} rev={:?} commit={:?}",
            t.side, t.label, t.rev, t.commit
        ));
    }
    for b in &plan.benchmarks {
        parts.push(format!(
            "bench {:?} {:?} {:?} {:?} {:?} {:?}",
            b.name, b.template, b.matrix.params, b.matrix.exclusions, b.env, b.prepare
        ));
    }
    parts.push(format!(
        "runs={} warmup={} order={:?} shell={} env={:?} prepare={:?} setup={:?} cleanup={:?}",
        plan.runs,
        plan.warmup,
        plan.order,
        plan.shell,
        plan.env,
        plan.prepare,
        plan.setup,
        plan.cleanup
    ));
    if plan.control {
        parts.push("control".to_owned());
    }
    parts
}

/// The full fingerprint: `parts` (see [`node_parts`], [`command_parts`]) and the seed.
pub fn with_seed(parts: &[String], seed: u64) -> String {
    let mut p = parts.to_vec();
    p.push(format!("seed={seed}"));
    fingerprint(&p)
}

/// Benchmark weights for `--balance-from FILE`: the wall seconds of every job of each of
/// `names` (Node files, or command configurations as `name key=v …`) in a previous results
/// file; a benchmark the file does not have gets the mean of the others (1 when none).
///
/// # Errors
/// A message when the file cannot be read as a results file.
pub fn balance_weights(path: &Path, names: &[String]) -> Result<Vec<f64>, String> {
    let loaded = crate::format::results::load(path).map_err(|e| format!("--balance-from: {e}"))?;
    let mut total = vec![0.0f64; names.len()];
    let mut seen = vec![false; names.len()];
    let mut add = |name: &str, wall: f64| {
        if let Some(i) = names.iter().position(|n| n == name)
            && wall.is_finite()
        {
            total[i] += wall;
            seen[i] = true;
        }
    };
    for j in loaded.done.iter().chain(&loaded.failed) {
        add(&j.file, j.wall_s);
    }
    for j in loaded.command_done.iter().chain(&loaded.command_failed) {
        add(&unit_name(&j.benchmark, &j.combination), j.wall_s);
    }
    let known: Vec<f64> = total
        .iter()
        .zip(&seen)
        .filter(|(_, s)| **s)
        .map(|(t, _)| *t)
        .collect();
    let fill = if known.is_empty() {
        1.0
    } else {
        known.iter().sum::<f64>() / known.len() as f64
    };
    Ok(total
        .into_iter()
        .zip(seen)
        .map(|(t, s)| if s { t } else { fill })
        .collect())
}

/// The name of a command configuration for balancing: `benchmark key=v …`.
pub fn unit_name(benchmark: &str, combo: &[(String, String)]) -> String {
    let mut s = benchmark.to_owned();
    for (k, v) in combo {
        s.push(' ');
        s.push_str(k);
        s.push('=');
        s.push_str(v);
    }
    s
}

/// What a sharded run asks for: `--shard K/N|auto`, `--shard-count`, `--split`,
/// `--balance-from`.
#[derive(Clone, Debug, Default)]
pub struct ShardRequest {
    /// The shard, or `auto` (none: the whole plan).
    pub shard: Option<ShardArg>,
    /// With `auto` and `JOB_COMPLETION_INDEX`: the number of shards.
    pub shard_count: Option<u32>,
    /// How the plan is split.
    pub split: Split,
    /// With [`Split::Benchmarks`]: balance by the job times of this earlier results file.
    pub balance_from: Option<PathBuf>,
}

impl ShardRequest {
    /// The shard to run, if any (`auto` read from the process environment).
    ///
    /// # Errors
    /// `auto` without a usable environment, or `balance_from` with [`Split::Runs`].
    pub fn resolve(&self) -> Result<Option<ShardPlan>, String> {
        let Some(arg) = self.shard else {
            return Ok(None);
        };
        let s = match arg {
            ShardArg::Fixed(s) => s,
            ShardArg::Auto => from_env(&|k| std::env::var(k).ok(), self.shard_count)?,
        };
        if self.balance_from.is_some() && self.split == Split::Runs {
            return Err(
                "--balance-from applies to --split benchmarks (with --split runs every shard runs \
                 every benchmark)"
                    .to_owned(),
            );
        }
        Ok(Some(ShardPlan {
            shard: s,
            split: self.split,
            balance: self.balance_from.clone(),
        }))
    }
}

/// A resolved shard of a run: K/N, split, and the balance file's hash and weights source.
#[derive(Clone, Debug)]
pub struct ShardPlan {
    /// K/N.
    pub shard: Shard,
    /// How the plan is split.
    pub split: Split,
    /// `--balance-from`: the earlier results file whose job times balance the shards.
    pub balance: Option<PathBuf>,
}

/// A shard ready to run: its record (for the results file) and the jobs it keeps.
#[derive(Clone, Debug)]
pub struct ShardRun {
    /// The `shard` record written after the plan record.
    pub record: ShardRecord,
    /// The part of the schedule the shard runs.
    pub assignment: Assignment,
}

impl ShardPlan {
    /// The shard's record and assignment for a plan with `names` benchmarks (Node files or
    /// command configurations), `runs` counted rounds, the fingerprint parts without the seed,
    /// the seed, and the job count of `jobs_of(assignment)`.
    ///
    /// # Errors
    /// The balance file cannot be read or names no benchmark of the plan.
    pub fn prepare(
        &self,
        names: &[String],
        runs: u32,
        parts: &[String],
        seed: u64,
        jobs_of: &dyn Fn(&Assignment) -> usize,
    ) -> Result<ShardRun, String> {
        let (weights, balance) = match &self.balance {
            Some(p) => (Some(balance_weights(p, names)?), Some(file_hash(p)?)),
            None => (None, None),
        };
        let a = assign(
            self.shard,
            self.split,
            names.len(),
            runs,
            weights.as_deref(),
        );
        let jobs = jobs_of(&a);
        Ok(ShardRun {
            record: record(
                self.shard,
                self.split,
                &with_seed(parts, seed),
                seed,
                runs,
                balance,
                &a,
                jobs,
            ),
            assignment: a,
        })
    }
}

/// The shard of a Node-file plan: without `--seed` (`seed_given` false) the plan's seed
/// becomes the one derived from the plan, the same on every shard.
///
/// # Errors
/// As [`ShardPlan::prepare`], or the plan cannot be fingerprinted.
pub fn node_shard(
    sp: &ShardPlan,
    plan: &mut super::Plan,
    seed_given: bool,
) -> Result<ShardRun, String> {
    let parts = node_parts(plan)?;
    if !seed_given {
        plan.seed = derived_seed(&fingerprint(&parts));
    }
    let schedule = plan.schedule();
    sp.prepare(&plan.files, plan.runs, &parts, plan.seed, &|a| {
        slice(&schedule, a, 0).len()
    })
}

/// The shard of a command plan (see [`node_shard`]); the benchmarks are its configurations.
///
/// # Errors
/// As [`ShardPlan::prepare`].
pub fn command_shard(
    sp: &ShardPlan,
    plan: &mut super::plan::command::CommandPlan,
    seed_given: bool,
) -> Result<ShardRun, String> {
    let parts = command_parts(plan);
    if !seed_given {
        plan.seed = derived_seed(&fingerprint(&parts));
    }
    let instances = plan.instances();
    let names: Vec<String> = instances
        .iter()
        .map(|i| {
            unit_name(
                plan.benchmarks.get(i.bench).map_or("", |b| b.name.as_str()),
                &i.combo,
            )
        })
        .collect();
    let schedule = plan.schedule(instances.len());
    let warmup = plan.warmup;
    sp.prepare(&names, plan.runs, &parts, plan.seed, &|a| {
        slice(&schedule, a, warmup).len()
    })
}

/// The shard a results file being resumed was written for (`None` for an unsharded file).
///
/// # Errors
/// The file's shard record cannot be read or holds no assignment.
pub fn resumed(path: &std::path::Path) -> Result<Option<ShardRun>, String> {
    if !crate::format::results::shard::is_sharded(path) {
        return Ok(None);
    }
    let segs = crate::format::results::shard::read_segments(path).map_err(|e| e.to_string())?;
    let Some(seg) = segs.into_iter().next() else {
        return Ok(None);
    };
    let assignment = Assignment::from_record(&seg.shard).ok_or_else(|| {
        format!(
            "--resume {}: its shard record holds no assignment",
            path.display()
        )
    })?;
    Ok(Some(ShardRun {
        record: seg.shard,
        assignment,
    }))
}

/// The stderr line that says what a shard runs.
pub fn describe(run: &ShardRun, total_jobs: usize) -> String {
    let r = &run.record;
    let part = match &run.assignment {
        Assignment::Units(u) => format!("{} benchmark(s)", u.len()),
        Assignment::Rounds(a, b) => format!("rounds {}–{} of {}", a + 1, b, r.runs),
    };
    format!(
        "benchdiff: shard {} (split {}): {part}, {} of the plan's {total_jobs} jobs; seed {}, plan {}{}",
        r.label(),
        r.split.label(),
        r.jobs,
        r.seed,
        &r.plan[..r.plan.len().min(19)],
        if r.jobs == 0 {
            " — this shard has nothing to run"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n() {
        assert_eq!(
            parse_shard("2/4"),
            Ok(ShardArg::Fixed(Shard { k: 2, n: 4 }))
        );
        assert_eq!(parse_shard("auto"), Ok(ShardArg::Auto));
        for bad in ["0/4", "5/4", "1/0", "x", "1/", "/2", "-1/2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slurm_and_kubernetes_environments() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let got = |pairs: &'static [(&'static str, &'static str)], c| from_env(&env(pairs), c);
        let s = |k, n| Ok(Shard { k, n });
        assert_eq!(
            got(
                &[
                    ("SLURM_ARRAY_TASK_ID", "5"),
                    ("SLURM_ARRAY_TASK_MIN", "4"),
                    ("SLURM_ARRAY_TASK_MAX", "6")
                ],
                None
            ),
            s(2, 3)
        );
        // --array=0-6:2: tasks 0, 2, 4, 6.
        assert_eq!(
            got(
                &[
                    ("SLURM_ARRAY_TASK_ID", "4"),
                    ("SLURM_ARRAY_TASK_MIN", "0"),
                    ("SLURM_ARRAY_TASK_MAX", "6"),
                    ("SLURM_ARRAY_TASK_COUNT", "4")
                ],
                None
            ),
            s(3, 4)
        );
        assert_eq!(
            got(
                &[
                    ("SLURM_ARRAY_TASK_ID", "0"),
                    ("SLURM_ARRAY_TASK_COUNT", "4")
                ],
                None
            ),
            s(1, 4)
        );
        assert_eq!(got(&[("JOB_COMPLETION_INDEX", "3")], Some(4)), s(4, 4));
        assert!(got(&[("JOB_COMPLETION_INDEX", "4")], Some(4)).is_err());
        assert!(got(&[], None).unwrap_err().contains("SLURM_ARRAY_TASK_ID"));
    }

    #[test]
    fn lpt_deals_round_robin_for_equal_weights() {
        assert_eq!(deal(5, 2, None), vec![vec![0, 2, 4], vec![1, 3]]);
        // The long one alone, the short ones together.
        assert_eq!(
            deal(4, 2, Some(&[10.0, 3.0, 3.0, 3.0])),
            vec![vec![0], vec![1, 2, 3]]
        );
    }

    #[test]
    fn predicted_wall_time_is_the_largest_shard() {
        let w = [10.0, 3.0, 3.0, 3.0];
        assert_eq!(predicted_wall_s(&w, 1, Split::Benchmarks, 30), 19.0);
        assert_eq!(predicted_wall_s(&w, 2, Split::Benchmarks, 30), 10.0);
        // 30 rounds over 4 shards: 7 or 8 rounds each, the largest 8/30 of 19 s.
        let r = predicted_wall_s(&w, 4, Split::Runs, 30);
        assert!((r - 19.0 * 8.0 / 30.0).abs() < 1e-12, "{r}");
    }

    #[test]
    fn rounds_split_contiguously() {
        let s = |k| rounds_of(Shard { k, n: 3 }, 10);
        assert_eq!((s(1), s(2), s(3)), ((0, 3), (3, 6), (6, 10)));
    }
}
