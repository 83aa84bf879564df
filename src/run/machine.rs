//! Machine checks before a run: what on this machine makes benchmark results noisy.
//!
//! Read from Linux's `/proc` and `/sys` (anything unreadable is reported as unknown, never an
//! error):
//! - CPU frequency **governor** of every CPU (`/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor`);
//!   anything but `performance` lets the clock follow the load (Node's `benchmark/cpu.sh fast`
//!   sets `performance`);
//! - **load average** at start (`/proc/loadavg`), against the number of online CPUs;
//! - other **busy processes**: CPU time (`utime + stime`, fields 14 and 15 of `/proc/PID/stat`)
//!   used by every other process over a [`BUSY_WINDOW`] window, in percent of one CPU;
//! - whether the children are **pinned** (`--cpus` / `--set CPUSET=`), and how many CPUs this
//!   process may run on (`sched_getaffinity`);
//! - **turbo / boost** where readable: `/sys/devices/system/cpu/intel_pstate/no_turbo` (1 =
//!   turbo off) or `/sys/devices/system/cpu/cpufreq/boost` (1 = boost on).
//!
//! [`check`] collects these into a [`MachineInfo`] with warnings; [`MachineInfo::render`] gives
//! the stderr lines every run prints, and the runner stores the same data as a `machine` record
//! in the results file.

use crate::run::affinity::CpuList;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// How long other processes' CPU use is sampled. Run time is read in nanoseconds from
/// `/proc/PID/schedstat` (first field: time on a CPU, ns; `proc(5)`), so a process at
/// [`BUSY_PCT`] shows as 2.5 ms of run time; where schedstat is missing the clock ticks of
/// `/proc/PID/stat` are used over [`BUSY_WINDOW_TICKS`] (ten ticks at 100 Hz). This is a
/// fixed start-up cost of every run: it was 200 ms, then 100 ms, the whole of benchdiff's
/// start-up gap against `hyperfine -N`.
pub const BUSY_WINDOW: Duration = Duration::from_millis(25);
/// The window when only clock ticks are available (no `/proc/PID/schedstat`).
pub const BUSY_WINDOW_TICKS: Duration = Duration::from_millis(100);
/// A process using at least this much of one CPU (percent) over the window counts as busy.
pub const BUSY_PCT: f64 = 10.0;
pub use crate::format::results::machine::{BusyProcess, MachineInfo};

/// Load average (1 minute) per online CPU above which a warning is given.
pub const LOAD_PER_CPU_WARN: f64 = 0.3;

fn read_trim(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok().map(|s| s.trim().to_owned())
}

/// The pid and the text of `/proc/PID/{file}` of every process but ours whose file can be
/// read, in the order `/proc` lists them; `None` when `/proc` cannot be listed.
fn proc_files(file: &'static str) -> Option<impl Iterator<Item = (u32, String)>> {
    let me = std::process::id();
    let dir = std::fs::read_dir("/proc").ok()?;
    Some(dir.flatten().filter_map(move |e| {
        let pid = e.file_name().to_str()?.parse::<u32>().ok()?;
        (pid != me).then_some(())?;
        Some((pid, std::fs::read_to_string(e.path().join(file)).ok()?))
    }))
}

/// CPU ticks (utime + stime) and comm of every process but ours, by pid.
fn cpu_ticks() -> BTreeMap<u32, (String, u64)> {
    let mut out = BTreeMap::new();
    let Some(stats) = proc_files("stat") else {
        return out;
    };
    for (pid, stat) in stats {
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses; it ends at the last ')'.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat.get(open + 1..close).unwrap_or("").to_owned();
        let rest: Vec<&str> = stat
            .get(close + 1..)
            .unwrap_or("")
            .split_whitespace()
            .collect();
        // rest[0] is field 3 (state): utime is field 14, stime field 15.
        let (Some(u), Some(s)) = (rest.get(11), rest.get(12)) else {
            continue;
        };
        if let (Ok(u), Ok(s)) = (u.parse::<u64>(), s.parse::<u64>()) {
            out.insert(pid, (name, u + s));
        }
    }
    out
}

/// Run time on a CPU (ns, first field of `/proc/PID/schedstat`) of every process but ours,
/// by pid; `None` when this kernel has no schedstat.
fn run_time_ns() -> Option<BTreeMap<u32, u64>> {
    let mut out = BTreeMap::new();
    let mut any = false;
    for (pid, text) in proc_files("schedstat")? {
        any = true;
        if let Some(ns) = text.split_whitespace().next().and_then(|x| x.parse().ok()) {
            out.insert(pid, ns);
        }
    }
    any.then_some(out)
}

/// The comm (process name) of `pid`, from `/proc/PID/stat`.
fn comm(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    stat.get(open + 1..close).map(str::to_owned)
}

/// The first look of a busy-process window: every other process's run time (ns, from
/// `/proc/PID/schedstat`), or its clock ticks and name where the kernel has no schedstat.
enum Snapshot {
    Ns(BTreeMap<u32, u64>),
    Ticks(BTreeMap<u32, (String, u64)>),
}

/// A busy-process window, opened by [`BusyWindow::open`] and closed by [`BusyWindow::close`]:
/// other processes' CPU use between the two, percent of one CPU.
///
/// Only processes that exist at both ends are counted, so the children a run starts after the
/// window opened (and their descendants) are never taken for other busy processes: the
/// window may overlap the run's first jobs.
pub struct BusyWindow {
    opened: std::time::Instant,
    before: Snapshot,
}

impl BusyWindow {
    /// Takes the first look (reads `/proc`; a few milliseconds).
    pub fn open() -> BusyWindow {
        let opened = std::time::Instant::now();
        let before = match run_time_ns() {
            Some(a) => Snapshot::Ns(a),
            None => Snapshot::Ticks(cpu_ticks()),
        };
        BusyWindow { opened, before }
    }

    /// Waits until the window has lasted `window` ([`BUSY_WINDOW_TICKS`] at least where only
    /// clock ticks are available), takes the second look and returns the processes that used
    /// at least `min_pct` percent of one CPU, busiest first.
    pub fn close(self, window: Duration, min_pct: f64) -> Vec<BusyProcess> {
        let t0 = self.opened;
        let wait_until = |w: Duration| {
            let left = w.saturating_sub(t0.elapsed());
            if !left.is_zero() {
                std::thread::sleep(left);
            }
        };
        let mut out: Vec<BusyProcess> = match self.before {
            Snapshot::Ns(a) => {
                wait_until(window);
                let b = run_time_ns().unwrap_or_default();
                let ns = t0.elapsed().as_nanos().max(1) as f64;
                b.into_iter()
                    .filter_map(|(pid, t1)| {
                        let pct = t1.saturating_sub(*a.get(&pid)?) as f64 / ns * 100.0;
                        (pct >= min_pct).then(|| BusyProcess {
                            pid,
                            name: comm(pid).unwrap_or_default(),
                            cpu_pct: pct,
                        })
                    })
                    .collect()
            }
            Snapshot::Ticks(a) => {
                // SAFETY: sysconf has no memory-safety preconditions.
                let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
                let hz = if hz > 0 { hz as f64 } else { 100.0 };
                wait_until(window.max(BUSY_WINDOW_TICKS));
                let b = cpu_ticks();
                let secs = t0.elapsed().as_secs_f64().max(1e-3);
                b.into_iter()
                    .filter_map(|(pid, (name, t1))| {
                        let t0 = a.get(&pid)?.1;
                        let pct = t1.saturating_sub(t0) as f64 / hz / secs * 100.0;
                        (pct >= min_pct).then_some(BusyProcess {
                            pid,
                            name,
                            cpu_pct: pct,
                        })
                    })
                    .collect()
            }
        };
        out.sort_by(|x, y| y.cpu_pct.total_cmp(&x.cpu_pct));
        out
    }
}

/// Other processes' CPU use over `window`, percent of one CPU, busiest first (≥ `min_pct`):
/// from nanosecond run times (`/proc/PID/schedstat`) where the kernel has them, else from
/// clock ticks over at least [`BUSY_WINDOW_TICKS`].
pub fn busy_processes(window: Duration, min_pct: f64) -> Vec<BusyProcess> {
    BusyWindow::open().close(window, min_pct)
}

/// Machine checks whose busy-process window is still open: the run's first jobs may start
/// while it lasts ([`BusyWindow`] leaves them out). [`PendingCheck::finish`] gives the
/// complete [`MachineInfo`].
pub struct PendingCheck {
    info: MachineInfo,
    busy: Option<std::thread::JoinHandle<Vec<BusyProcess>>>,
}

impl PendingCheck {
    /// Whether [`Self::finish`] would return at once (the window has closed).
    pub fn ready(&self) -> bool {
        self.busy.as_ref().is_none_or(|h| h.is_finished())
    }

    /// The checks with the busy processes filled in (waits for the window to close).
    pub fn finish(mut self) -> MachineInfo {
        if let Some(h) = self.busy.take() {
            self.info.busy = h.join().unwrap_or_default();
        }
        self.info.warnings = warnings(&self.info);
        self.info
    }
}

/// Starts every check: the quick ones now, the busy-process window ([`BUSY_WINDOW`]) on a
/// thread of its own, so that it costs the run no start-up time (it was the largest
/// part of a command run's fixed cost). `pinned` is the run's CPU list.
pub fn check_pending(pinned: Option<&CpuList>) -> PendingCheck {
    let window = BusyWindow::open();
    let info = check_quick(pinned);
    let busy = std::thread::Builder::new()
        .name("busy-window".to_owned())
        .spawn(move || window.close(BUSY_WINDOW, BUSY_PCT));
    match busy {
        Ok(h) => PendingCheck {
            info,
            busy: Some(h),
        },
        // No thread: close the window here.
        Err(_) => {
            let mut info = info;
            info.busy = busy_processes(BUSY_WINDOW, BUSY_PCT);
            PendingCheck { info, busy: None }
        }
    }
}

fn allowed_cpus() -> usize {
    // SAFETY: a zeroed cpu_set_t is valid; sched_getaffinity writes at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
            libc::CPU_COUNT(&set) as usize
        } else {
            0
        }
    }
}

/// Runs every check (takes about [`BUSY_WINDOW`]). `pinned` is the run's CPU list.
pub fn check(pinned: Option<&CpuList>) -> MachineInfo {
    let window = BusyWindow::open();
    let mut info = check_quick(pinned);
    info.busy = window.close(BUSY_WINDOW, BUSY_PCT);
    info.warnings = warnings(&info);
    info
}

/// Every check but the busy processes (left empty), with the warnings of what it found.
fn check_quick(pinned: Option<&CpuList>) -> MachineInfo {
    // SAFETY: sysconf has no memory-safety preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    let cpus_online = if online > 0 { online as usize } else { 1 };
    let mut governors = BTreeMap::new();
    if let Ok(dir) = std::fs::read_dir("/sys/devices/system/cpu") {
        for e in dir.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if !(name.starts_with("cpu") && name[3..].bytes().all(|b| b.is_ascii_digit()))
                || name.len() == 3
            {
                continue;
            }
            if let Some(g) = read_trim(&e.path().join("cpufreq/scaling_governor")) {
                *governors.entry(g).or_insert(0) += 1;
            }
        }
    }
    let load_avg = read_trim(Path::new("/proc/loadavg")).and_then(|s| {
        let v: Vec<f64> = s
            .split_whitespace()
            .take(3)
            .filter_map(|x| x.parse().ok())
            .collect();
        (v.len() == 3).then(|| [v[0], v[1], v[2]])
    });
    let (turbo, turbo_source) = {
        let no_turbo = "/sys/devices/system/cpu/intel_pstate/no_turbo";
        let boost = "/sys/devices/system/cpu/cpufreq/boost";
        if let Some(v) = read_trim(Path::new(no_turbo)) {
            (Some(v == "0"), Some(no_turbo.to_owned()))
        } else if let Some(v) = read_trim(Path::new(boost)) {
            (Some(v == "1"), Some(boost.to_owned()))
        } else {
            (None, None)
        }
    };
    let mut info = MachineInfo {
        cpus_online,
        cpus_allowed: allowed_cpus(),
        governors,
        load_avg,
        busy: Vec::new(),
        pinned: pinned.map(|c| c.text.clone()),
        turbo,
        turbo_source,
        warnings: Vec::new(),
        host: host_name(),
    };
    info.warnings = warnings(&info);
    info
}

/// This machine's host name (`gethostname(2)`), `None` when it cannot be read or is empty.
pub fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).trim().to_owned();
    (!name.is_empty()).then_some(name)
}

/// The warnings for `info` (pure; [`check`] fills them in).
pub fn warnings(info: &MachineInfo) -> Vec<String> {
    let mut w = Vec::new();
    let slow: Vec<String> = info
        .governors
        .iter()
        .filter(|(g, _)| g.as_str() != "performance")
        .map(|(g, n)| format!("{g} on {n} CPU(s)"))
        .collect();
    if !slow.is_empty() {
        w.push(format!(
            "CPU frequency governor is not `performance` ({}): the clock follows the load; \
             set it with `sudo cpupower frequency-set -g performance` (Node: benchmark/cpu.sh fast)",
            slow.join(", ")
        ));
    }
    if let Some([l1, _, _]) = info.load_avg {
        let per = l1 / info.cpus_online.max(1) as f64;
        if per > LOAD_PER_CPU_WARN {
            w.push(format!(
                "load average {l1:.2} on {} CPU(s) at start: other work competes with the benchmarks",
                info.cpus_online
            ));
        }
    }
    if !info.busy.is_empty() {
        let list: Vec<String> = info
            .busy
            .iter()
            .take(5)
            .map(|b| format!("{} (pid {}, {:.0}%)", b.name, b.pid, b.cpu_pct))
            .collect();
        w.push(format!("busy processes: {}", list.join(", ")));
    }
    if info.turbo == Some(true) {
        w.push(
            "turbo/boost is on: the clock depends on temperature and on how many cores are busy"
                .to_owned(),
        );
    }
    if info.pinned.is_none() && info.cpus_online > 1 {
        w.push(
            "children are not pinned to CPUs (--cpus LIST): the scheduler may move them".to_owned(),
        );
    }
    w
}

impl MachineInfo {
    /// The stderr lines: one `benchdiff: machine: …` summary and one `benchdiff: warning: …`
    /// line per warning.
    pub fn render(&self) -> String {
        let gov = if self.governors.is_empty() {
            "unknown".to_owned()
        } else {
            self.governors
                .iter()
                .map(|(g, n)| format!("{g}×{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let load = self.load_avg.map_or("unknown".to_owned(), |[a, b, c]| {
            format!("{a:.2} {b:.2} {c:.2}")
        });
        let turbo = match self.turbo {
            Some(true) => "on",
            Some(false) => "off",
            None => "unknown",
        };
        let mut s = format!(
            "benchdiff: machine: {} CPU(s) online, {} allowed; governor {gov}; load {load}; \
             turbo {turbo}; pinned {}; {} busy process(es)\n",
            self.cpus_online,
            self.cpus_allowed,
            self.pinned.as_deref().unwrap_or("no"),
            self.busy.len()
        );
        for w in &self.warnings {
            s.push_str(&format!("benchdiff: warning: {w}\n"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_leaves_out_processes_started_while_it_is_open() {
        let window = BusyWindow::open();
        // A child that keeps a CPU busy for the whole window, started after it opened.
        let mut child = std::process::Command::new("sh")
            .args([
                "-c",
                "end=$(($(date +%s) + 1)); while [ $(date +%s) -lt $end ]; do :; done",
            ])
            .spawn()
            .expect("sh");
        let pid = child.id();
        let busy = window.close(Duration::from_millis(300), 0.0);
        let _ = child.kill();
        let _ = child.wait();
        assert!(busy.iter().all(|b| b.pid != pid), "{busy:?}");
        // Sorted busiest first.
        assert!(busy.windows(2).all(|w| w[0].cpu_pct >= w[1].cpu_pct));
    }

    #[test]
    fn pending_checks_finish_with_their_busy_processes_and_warnings() {
        let pending = check_pending(None);
        let info = pending.finish();
        assert_eq!(info.warnings, warnings(&info));
        assert!(info.cpus_online >= 1);
    }

    #[test]
    fn warnings_name_the_noise() {
        let mut info = MachineInfo {
            cpus_online: 2,
            cpus_allowed: 2,
            governors: BTreeMap::from([("powersave".to_owned(), 2)]),
            load_avg: Some([1.5, 1.0, 0.5]),
            busy: vec![BusyProcess {
                pid: 7,
                name: "cc1".into(),
                cpu_pct: 95.0,
            }],
            pinned: None,
            turbo: Some(true),
            turbo_source: None,
            warnings: vec![],
            host: None,
        };
        let w = warnings(&info);
        assert_eq!(w.len(), 5, "{w:?}");
        assert!(w[0].contains("powersave on 2 CPU(s)"));
        assert!(w[2].contains("cc1 (pid 7, 95%)"));
        info.governors = BTreeMap::from([("performance".to_owned(), 2)]);
        info.load_avg = Some([0.1, 0.1, 0.1]);
        info.busy.clear();
        info.turbo = Some(false);
        info.pinned = Some("1".into());
        assert!(warnings(&info).is_empty());
    }

    #[test]
    fn a_busy_child_is_seen() {
        // A real busy process: a shell loop for ~0.6 s.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done"])
            .spawn()
            .expect("sh runs");
        std::thread::sleep(Duration::from_millis(50));
        // A low bar (5% of a CPU) and a long window: under a loaded machine the spinner
        // still gets that much (the run's 25 ms window can miss a starved one; the load
        // average warning covers that case).
        let busy = busy_processes(Duration::from_millis(200), 5.0);
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            busy.iter().any(|b| b.pid == child.id() && b.name == "sh"),
            "the spinning sh should be busy: {busy:?}"
        );
    }
}
