//! The `machine` record: what the runner's machine checks (`run::machine`) found at
//! the start of a run.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Another process that used CPU while the checks ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BusyProcess {
    /// Process id.
    pub pid: u32,
    /// Its command name (`comm`, at most 15 bytes).
    pub name: String,
    /// CPU used over the window, percent of one CPU.
    pub cpu_pct: f64,
}

/// What the checks found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// Online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`).
    pub cpus_online: usize,
    /// CPUs this process may run on (`sched_getaffinity`).
    pub cpus_allowed: usize,
    /// Governor name -> number of CPUs using it; empty when unreadable (e.g. in a VM).
    pub governors: BTreeMap<String, usize>,
    /// 1, 5 and 15 minute load averages, when readable.
    pub load_avg: Option<[f64; 3]>,
    /// Other processes using at least the runner's busy threshold (`run::machine::BUSY_PCT`) of a CPU, busiest first.
    pub busy: Vec<BusyProcess>,
    /// The CPU list the children are pinned to, if any.
    pub pinned: Option<String>,
    /// Turbo/boost enabled (`Some(true)`), disabled, or unknown.
    pub turbo: Option<bool>,
    /// The file turbo was read from.
    pub turbo_source: Option<String>,
    /// Warnings for settings that make results noisy.
    pub warnings: Vec<String>,
    /// The machine's host name (`gethostname`), which names it in sharded reports; absent in
    /// files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}
