//! Counters of a benchmark child and all its descendants (`--measure`), beside its wall time.
//!
//! **Counters** ([`Counter`]): the hardware `instructions`, `cycles` and `branch-misses`
//! (user space only), and the kernel's software `task-clock` (seconds on a CPU),
//! `context-switches`, `cpu-migrations` and `page-faults`. Every one is a lower-is-better metric.
//!
//! **Sources** ([`Source`]):
//! - `perf_event_open(2)`: each counter is opened by the child on itself just before `exec`
//!   (disabled, `enable_on_exec`, `inherit`), so it counts the program from its first
//!   instruction and every process and thread it starts; the descriptors are handed to
//!   benchdiff over a socket (`SCM_RIGHTS`) and read after the child is reaped (a counter the
//!   kernel multiplexed is scaled by enabled/running time, as `perf stat` does);
//! - valgrind's cachegrind (`--tool=cachegrind --cache-sim=no --trace-children=yes`), for
//!   `instructions` only, when the kernel has no hardware counters (most VMs and containers):
//!   the child runs under valgrind and the instructions of every process are summed from
//!   cachegrind's output files. The child's wall, user and system time and peak RSS are then
//!   valgrind's, not the program's, and are not reported as measurements.
//!
//! [`probe`] asks the kernel and `PATH` what is there; [`select`] turns the requested
//! counters and that probe into a [`Measure`] or an error naming what is missing, before any
//! job runs.

use perf_event_open_sys as sys;
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

/// One counter `--measure` can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Counter {
    /// Instructions retired in user space (hardware counter, or cachegrind's `Ir`).
    Instructions,
    /// CPU cycles in user space (hardware counter).
    Cycles,
    /// Mispredicted branches in user space (hardware counter).
    BranchMisses,
    /// Time on a CPU, seconds (kernel software counter).
    TaskClock,
    /// Context switches (kernel software counter).
    ContextSwitches,
    /// Moves to another CPU (kernel software counter).
    CpuMigrations,
    /// Page faults, minor and major (kernel software counter).
    PageFaults,
}

impl Counter {
    /// Every counter, in the order metrics are recorded.
    pub const ALL: [Counter; 7] = [
        Counter::Instructions,
        Counter::Cycles,
        Counter::BranchMisses,
        Counter::TaskClock,
        Counter::ContextSwitches,
        Counter::CpuMigrations,
        Counter::PageFaults,
    ];

    /// The metric's name (`perf stat`'s event name).
    pub fn name(self) -> &'static str {
        match self {
            Counter::Instructions => "instructions",
            Counter::Cycles => "cycles",
            Counter::BranchMisses => "branch-misses",
            Counter::TaskClock => "task-clock",
            Counter::ContextSwitches => "context-switches",
            Counter::CpuMigrations => "cpu-migrations",
            Counter::PageFaults => "page-faults",
        }
    }

    /// The metric's unit: `s` for `task-clock`, empty (a count) for the others.
    pub fn unit(self) -> &'static str {
        match self {
            Counter::TaskClock => "s",
            _ => "",
        }
    }

    /// True for the processor's counters (which need a PMU).
    pub fn is_hardware(self) -> bool {
        matches!(
            self,
            Counter::Instructions | Counter::Cycles | Counter::BranchMisses
        )
    }

    /// `(type, config)` of its `perf_event_attr`.
    fn event(self) -> (u32, u64) {
        let hw = |c: u32| (sys::bindings::PERF_TYPE_HARDWARE, u64::from(c));
        let sw = |c: u32| (sys::bindings::PERF_TYPE_SOFTWARE, u64::from(c));
        match self {
            Counter::Instructions => hw(sys::bindings::PERF_COUNT_HW_INSTRUCTIONS),
            Counter::Cycles => hw(sys::bindings::PERF_COUNT_HW_CPU_CYCLES),
            Counter::BranchMisses => hw(sys::bindings::PERF_COUNT_HW_BRANCH_MISSES),
            Counter::TaskClock => sw(sys::bindings::PERF_COUNT_SW_TASK_CLOCK),
            Counter::ContextSwitches => sw(sys::bindings::PERF_COUNT_SW_CONTEXT_SWITCHES),
            Counter::CpuMigrations => sw(sys::bindings::PERF_COUNT_SW_CPU_MIGRATIONS),
            Counter::PageFaults => sw(sys::bindings::PERF_COUNT_SW_PAGE_FAULTS),
        }
    }

    /// The attributes the child opens it with: disabled until `exec`, inherited by every
    /// process and thread it starts, hypervisor excluded; a hardware counter also excludes
    /// the kernel (user space only). Software counters count what the kernel does for the
    /// program (a context switch or a page fault happens in the kernel), so they include it.
    fn attr(self) -> sys::bindings::perf_event_attr {
        let (type_, config) = self.event();
        let mut a = sys::bindings::perf_event_attr {
            size: std::mem::size_of::<sys::bindings::perf_event_attr>() as u32,
            type_,
            config,
            read_format: u64::from(
                sys::bindings::PERF_FORMAT_TOTAL_TIME_ENABLED
                    | sys::bindings::PERF_FORMAT_TOTAL_TIME_RUNNING,
            ),
            ..Default::default()
        };
        a.set_disabled(1);
        a.set_enable_on_exec(1);
        a.set_inherit(1);
        a.set_exclude_hv(1);
        if self.is_hardware() {
            a.set_exclude_kernel(1);
        }
        a
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// True when `name` is a counter's metric name.
pub fn is_counter_name(name: &str) -> bool {
    crate::sample::COUNTER_METRICS.contains(&name)
}

/// Parses `--measure LIST`: counter names separated by commas (`all-software` for the four
/// kernel counters).
///
/// # Errors
/// A message naming the unknown counter and the known ones.
pub fn parse_list(list: &str) -> Result<Vec<Counter>, String> {
    let mut out = Vec::new();
    for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let add: Vec<Counter> = if word == "all-software" {
            Counter::ALL
                .into_iter()
                .filter(|c| !c.is_hardware())
                .collect()
        } else {
            match Counter::ALL.into_iter().find(|c| c.name() == word) {
                Some(c) => vec![c],
                None => {
                    let known: Vec<&str> = Counter::ALL.iter().map(|c| c.name()).collect();
                    return Err(format!(
                        "--measure: unknown counter {word:?} (known: {}, all-software)",
                        known.join(", ")
                    ));
                }
            }
        };
        for c in add {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    if out.is_empty() {
        return Err("--measure: give at least one counter".to_owned());
    }
    out.sort();
    Ok(out)
}

/// Where the hardware counters come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `perf_event_open(2)` (every counter).
    Perf,
    /// valgrind's cachegrind (`instructions` only; the child runs under valgrind).
    Cachegrind,
}

/// What the machine offers, as [`probe`] found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Opening a hardware instructions counter on benchdiff itself: `Ok`, or the errno
    /// (`ENOENT`/`ENODEV`/`EOPNOTSUPP`: no PMU; `EACCES`/`EPERM`: not allowed).
    pub hardware: Result<(), i32>,
    /// Opening a software `task-clock` counter the same way.
    pub software: Result<(), i32>,
    /// `/proc/sys/kernel/perf_event_paranoid`, when readable.
    pub paranoid: Option<i32>,
    /// The `valgrind` program found in `PATH`.
    pub valgrind: Option<PathBuf>,
}

/// What a run measures and how (from [`select`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Measure {
    /// Counters opened with `perf_event_open` in the child.
    pub perf: Vec<Counter>,
    /// valgrind, when `instructions` come from cachegrind.
    pub cachegrind: Option<PathBuf>,
}

impl Measure {
    /// True when nothing is measured besides the process's own figures.
    pub fn is_empty(&self) -> bool {
        self.perf.is_empty() && self.cachegrind.is_none()
    }

    /// Every counter measured, in [`Counter::ALL`] order.
    pub fn counters(&self) -> Vec<Counter> {
        let mut v = self.perf.clone();
        if self.cachegrind.is_some() {
            v.push(Counter::Instructions);
        }
        v.sort();
        v
    }

    /// The note saying where each counter comes from (for the run's messages and reports).
    pub fn note(&self) -> String {
        let mut parts = Vec::new();
        if !self.perf.is_empty() {
            let names: Vec<&str> = self.perf.iter().map(|c| c.name()).collect();
            parts.push(format!(
                "{} from perf_event_open (child and descendants)",
                names.join(", ")
            ));
        }
        if self.cachegrind.is_some() {
            parts.push(
                "instructions from valgrind's cachegrind (no hardware counters here); wall, \
                 user and sys time and max_rss are valgrind's and are not reported, and a rate \
                 a Node benchmark prints is timed under valgrind (compare with --metric \
                 instructions)"
                    .to_owned(),
            );
        }
        format!("counters: {}", parts.join("; "))
    }
}

fn errno_text(e: i32) -> String {
    io::Error::from_raw_os_error(e).to_string()
}

fn no_pmu(e: i32) -> bool {
    matches!(e, libc::ENOENT | libc::ENODEV | libc::EOPNOTSUPP)
}

fn denied(e: i32) -> bool {
    matches!(e, libc::EACCES | libc::EPERM)
}

fn paranoid_text(p: Option<i32>) -> String {
    match p {
        Some(p) => format!(
            "perf_event_paranoid is {p}, too high for this user (counting one's own processes \
             needs 2 or less: sysctl kernel.perf_event_paranoid=2)"
        ),
        None => "perf_event_open is not allowed for this user (perf_event_paranoid, seccomp \
                 or a container policy)"
            .to_owned(),
    }
}

/// Chooses how to measure `requested` on a machine described by `probe`.
///
/// Rules: software counters need `perf_event_open`; hardware counters use it when the probe
/// opened one; without a PMU, `instructions` comes from cachegrind when valgrind is
/// installed, and `cycles` and `branch-misses` cannot be measured. Software counters are not
/// combined with cachegrind (they would count valgrind's work).
///
/// # Errors
/// One message naming what is missing: no PMU, `perf_event_paranoid` too high, valgrind not
/// installed, or a combination that cannot be measured.
pub fn select(requested: &[Counter], probe: &Probe) -> Result<Measure, String> {
    let software: Vec<Counter> = requested
        .iter()
        .copied()
        .filter(|c| !c.is_hardware())
        .collect();
    let hardware: Vec<Counter> = requested
        .iter()
        .copied()
        .filter(|c| c.is_hardware())
        .collect();
    if !software.is_empty()
        && let Err(e) = probe.software
    {
        return Err(if denied(e) {
            format!(
                "--measure {}: {}",
                software[0],
                paranoid_text(probe.paranoid)
            )
        } else {
            format!(
                "--measure {}: perf_event_open failed for a software counter: {}",
                software[0],
                errno_text(e)
            )
        });
    }
    let mut m = Measure {
        perf: software.clone(),
        cachegrind: None,
    };
    if hardware.is_empty() {
        return Ok(m);
    }
    match probe.hardware {
        Ok(()) => {
            m.perf.extend(hardware);
            m.perf.sort();
            Ok(m)
        }
        Err(e) if denied(e) => Err(format!(
            "--measure {}: {}",
            hardware[0],
            paranoid_text(probe.paranoid)
        )),
        Err(e) => {
            let why = if no_pmu(e) {
                format!(
                    "this machine has no hardware performance counters (perf_event_open: {})",
                    errno_text(e)
                )
            } else {
                format!(
                    "perf_event_open failed for a hardware counter: {}",
                    errno_text(e)
                )
            };
            if let Some(c) = hardware.iter().find(|c| **c != Counter::Instructions) {
                return Err(format!(
                    "--measure {c}: {why}; only instructions can be counted without them (by \
                     valgrind's cachegrind)"
                ));
            }
            let Some(valgrind) = probe.valgrind.clone() else {
                return Err(format!(
                    "--measure instructions: {why}, and valgrind, which counts them instead, \
                     is not installed (apt-get install valgrind)"
                ));
            };
            if !software.is_empty() {
                return Err(format!(
                    "--measure instructions,{}: {why}, so instructions would come from \
                     valgrind, under which {} would count valgrind's work: measure them in \
                     separate runs",
                    software[0], software[0]
                ));
            }
            m.cachegrind = Some(valgrind);
            Ok(m)
        }
    }
}

/// `--measure LIST` on this machine: [`parse_list`], [`probe`], [`select`].
///
/// # Errors
/// An unknown counter, or what is missing to measure the list here.
pub fn measure_for(list: &str) -> Result<Measure, String> {
    select(&parse_list(list)?, &probe())
}

/// Opens `counter` on the calling process (pid 0, any CPU) with its [`Counter::attr`];
/// returns the descriptor (close-on-exec) or `-errno`. Async-signal-safe: one system call.
fn open_raw(attr: &mut sys::bindings::perf_event_attr) -> i32 {
    // SAFETY: attr is a valid, initialised perf_event_attr with its size set.
    let fd = unsafe {
        sys::perf_event_open(
            attr,
            0,
            -1,
            -1,
            libc::c_ulong::from(sys::bindings::PERF_FLAG_FD_CLOEXEC),
        )
    };
    if fd < 0 {
        -io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    } else {
        fd
    }
}

/// Asks the kernel and `PATH` what can be measured here (opens and closes one hardware and
/// one software counter on benchdiff itself).
pub fn probe() -> Probe {
    let try_open = |c: Counter| {
        let mut a = c.attr();
        a.set_enable_on_exec(0);
        let fd = open_raw(&mut a);
        if fd < 0 {
            Err(-fd)
        } else {
            // SAFETY: a fresh descriptor we own.
            drop(unsafe { OwnedFd::from_raw_fd(fd) });
            Ok(())
        }
    };
    Probe {
        hardware: try_open(Counter::Instructions),
        software: try_open(Counter::TaskClock),
        paranoid: std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
            .ok()
            .and_then(|s| s.trim().parse().ok()),
        valgrind: find_in_path("valgrind"),
    }
}

/// `name` in `PATH`, when there is an executable file of that name.
fn find_in_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The most counters one child opens.
pub const MAX_COUNTERS: usize = Counter::ALL.len();

/// What the child needs before `exec` to open its counters and hand them over: prepared in
/// the parent so that [`ChildSide::open_and_send`] allocates nothing.
pub struct ChildSide {
    attrs: [sys::bindings::perf_event_attr; MAX_COUNTERS],
    n: usize,
    fds: [RawFd; MAX_COUNTERS],
    cmsg: [u64; 16],
    socket: RawFd,
}

/// benchdiff's end of the hand-over: receives the child's counter descriptors.
pub struct ParentSide {
    counters: Vec<Counter>,
    socket: OwnedFd,
    child_end: OwnedFd,
}

/// Counter descriptors received from a child, read after it is reaped.
pub struct Opened {
    counters: Vec<(Counter, OwnedFd)>,
}

/// Prepares the hand-over of `counters` (at most [`MAX_COUNTERS`]): a socket pair and the
/// child's attributes.
///
/// # Errors
/// The `socketpair` error.
pub fn prepare(counters: &[Counter]) -> io::Result<(ParentSide, ChildSide)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: socketpair fills a two-element array with two new descriptors.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are fresh and ours.
    let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let counters: Vec<Counter> = counters.iter().copied().take(MAX_COUNTERS).collect();
    let mut attrs = [sys::bindings::perf_event_attr::default(); MAX_COUNTERS];
    for (a, c) in attrs.iter_mut().zip(&counters) {
        *a = c.attr();
    }
    let child = ChildSide {
        attrs,
        n: counters.len(),
        fds: [-1; MAX_COUNTERS],
        cmsg: [0; 16],
        socket: theirs.as_raw_fd(),
    };
    Ok((
        ParentSide {
            counters,
            socket: ours,
            child_end: theirs,
        },
        child,
    ))
}

impl ChildSide {
    /// In the child, after `fork` and before `exec`: opens every counter on itself and sends
    /// the descriptors to benchdiff. Only async-signal-safe system calls; no allocation.
    ///
    /// # Errors
    /// The first failing system call's error.
    pub fn open_and_send(&mut self) -> io::Result<()> {
        for i in 0..self.n {
            let fd = open_raw(&mut self.attrs[i]);
            if fd < 0 {
                return Err(io::Error::from_raw_os_error(-fd));
            }
            self.fds[i] = fd;
        }
        let bytes = self.n * std::mem::size_of::<RawFd>();
        // SAFETY: building a msghdr over buffers this struct owns; CMSG_* compute offsets
        // inside `cmsg`, which is large and aligned enough for MAX_COUNTERS descriptors.
        unsafe {
            let mut byte = [0u8; 1];
            let mut iov = libc::iovec {
                iov_base: byte.as_mut_ptr().cast(),
                iov_len: 1,
            };
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = self.cmsg.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(bytes as u32) as usize;
            let h = libc::CMSG_FIRSTHDR(&msg);
            (*h).cmsg_level = libc::SOL_SOCKET;
            (*h).cmsg_type = libc::SCM_RIGHTS;
            (*h).cmsg_len = libc::CMSG_LEN(bytes as u32) as usize;
            std::ptr::copy_nonoverlapping(
                self.fds.as_ptr().cast::<u8>(),
                libc::CMSG_DATA(h),
                bytes,
            );
            if libc::sendmsg(self.socket, &msg, 0) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

impl ParentSide {
    /// After the child was started: receives its counter descriptors (sent before its
    /// `exec`, so already waiting).
    ///
    /// # Errors
    /// When the message is missing or holds fewer descriptors than counters.
    pub fn receive(self) -> io::Result<Opened> {
        drop(self.child_end);
        let n = self.counters.len();
        let mut cmsg = [0u64; 16];
        let mut byte = [0u8; 1];
        // SAFETY: msghdr over local buffers; the kernel writes at most msg_controllen bytes.
        let fds: Vec<OwnedFd> = unsafe {
            let mut iov = libc::iovec {
                iov_base: byte.as_mut_ptr().cast(),
                iov_len: 1,
            };
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = cmsg.as_mut_ptr().cast();
            msg.msg_controllen = std::mem::size_of_val(&cmsg);
            let rc = libc::recvmsg(
                self.socket.as_raw_fd(),
                &mut msg,
                libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
            );
            if rc < 0 {
                return Err(io::Error::last_os_error());
            }
            let mut out = Vec::new();
            let mut h = libc::CMSG_FIRSTHDR(&msg);
            while !h.is_null() {
                if (*h).cmsg_level == libc::SOL_SOCKET && (*h).cmsg_type == libc::SCM_RIGHTS {
                    let data = libc::CMSG_DATA(h);
                    let len = (*h).cmsg_len - libc::CMSG_LEN(0) as usize;
                    for i in 0..len / std::mem::size_of::<RawFd>() {
                        let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                        out.push(OwnedFd::from_raw_fd(fd));
                    }
                }
                h = libc::CMSG_NXTHDR(&msg, h);
            }
            out
        };
        if fds.len() != n {
            return Err(io::Error::other(format!(
                "received {} counter descriptors of {n}",
                fds.len()
            )));
        }
        Ok(Opened {
            counters: self.counters.into_iter().zip(fds).collect(),
        })
    }
}

impl Opened {
    /// Each counter's value after the child ended: a count, or seconds for `task-clock`;
    /// scaled by enabled/running time when the kernel multiplexed it.
    ///
    /// # Errors
    /// A read error, or a counter that never ran.
    pub fn read(&self) -> Result<Vec<(Counter, f64)>, String> {
        let mut out = Vec::with_capacity(self.counters.len());
        for (c, fd) in &self.counters {
            let mut v = [0u64; 3];
            // SAFETY: reading 24 bytes (value, time enabled, time running) into a local array.
            let n = unsafe { libc::read(fd.as_raw_fd(), v.as_mut_ptr().cast(), 24) };
            if n != 24 {
                return Err(format!(
                    "reading counter {c}: {}",
                    io::Error::last_os_error()
                ));
            }
            let [value, enabled, running] = v;
            let mut x = value as f64;
            if running == 0 && enabled > 0 {
                return Err(format!(
                    "counter {c} never ran (the kernel had no room for it)"
                ));
            }
            if running > 0 && running < enabled {
                x *= enabled as f64 / running as f64;
            }
            if *c == Counter::TaskClock {
                x /= 1e9;
            }
            out.push((*c, x));
        }
        Ok(out)
    }
}

/// A folder for one child's cachegrind output files, removed when dropped.
pub struct CachegrindRun {
    dir: PathBuf,
}

impl CachegrindRun {
    /// Makes a fresh folder under the temporary folder.
    ///
    /// # Errors
    /// The folder cannot be made.
    pub fn new() -> io::Result<CachegrindRun> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "benchdiff-cachegrind-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir)?;
        Ok(CachegrindRun { dir })
    }

    /// `argv` run under `valgrind` with cachegrind counting instructions only, following
    /// every child process, writing one output file per process (and valgrind's own messages)
    /// into this folder.
    pub fn wrap(&self, valgrind: &Path, argv: &[std::ffi::OsString]) -> Vec<std::ffi::OsString> {
        let mut out_file = std::ffi::OsString::from("--cachegrind-out-file=");
        out_file.push(self.dir.join("cg.%p.out"));
        let mut log_file = std::ffi::OsString::from("--log-file=");
        log_file.push(self.dir.join("valgrind.%p.log"));
        let mut v: Vec<std::ffi::OsString> = vec![
            valgrind.into(),
            "--tool=cachegrind".into(),
            "--cache-sim=no".into(),
            "--trace-children=yes".into(),
            out_file,
            log_file,
        ];
        v.extend(argv.iter().cloned());
        v
    }

    /// The instructions of every process of the run (the sum of the `summary:` lines of the
    /// output files).
    ///
    /// # Errors
    /// When there is no output file, or one has no readable summary.
    pub fn instructions(&self) -> Result<f64, String> {
        let mut total = 0u64;
        let mut files = 0usize;
        let entries = std::fs::read_dir(&self.dir).map_err(|e| format!("cachegrind: {e}"))?;
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if !(name.starts_with("cg.") && name.ends_with(".out")) {
                continue;
            }
            let text = std::fs::read_to_string(e.path())
                .map_err(|err| format!("cachegrind output {name}: {err}"))?;
            total += summary_of(&text)
                .ok_or_else(|| format!("cachegrind output {name}: no summary line"))?;
            files += 1;
        }
        if files == 0 {
            return Err("valgrind wrote no cachegrind output (did the program start?)".to_owned());
        }
        Ok(total as f64)
    }
}

impl Drop for CachegrindRun {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The first number of a cachegrind output's `summary:` line (`Ir` with the cache
/// simulation off).
fn summary_of(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("summary:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_model_knows_every_counter_by_name() {
        assert_eq!(
            Counter::ALL.map(Counter::name),
            crate::sample::COUNTER_METRICS
        );
        assert!(is_counter_name("page-faults") && !is_counter_name("wall"));
    }

    fn probe(hw: Result<(), i32>, sw: Result<(), i32>, valgrind: bool) -> Probe {
        Probe {
            hardware: hw,
            software: sw,
            paranoid: Some(3),
            valgrind: valgrind.then(|| PathBuf::from("/usr/bin/valgrind")),
        }
    }

    #[test]
    fn parses_lists() {
        assert_eq!(
            parse_list("instructions, task-clock").unwrap(),
            vec![Counter::Instructions, Counter::TaskClock]
        );
        assert_eq!(parse_list("all-software").unwrap().len(), 4);
        assert!(parse_list("instr").unwrap_err().contains("unknown counter"));
        assert!(parse_list(" , ").is_err());
    }

    #[test]
    fn selects_perf_where_the_pmu_exists() {
        let m = select(
            &[Counter::Instructions, Counter::Cycles, Counter::TaskClock],
            &probe(Ok(()), Ok(()), false),
        )
        .unwrap();
        assert_eq!(
            m.perf,
            vec![Counter::Instructions, Counter::Cycles, Counter::TaskClock]
        );
        assert_eq!(m.cachegrind, None);
    }

    #[test]
    fn falls_back_to_cachegrind_without_a_pmu() {
        let m = select(
            &[Counter::Instructions],
            &probe(Err(libc::ENOENT), Ok(()), true),
        )
        .unwrap();
        assert!(m.perf.is_empty());
        assert_eq!(m.cachegrind, Some(PathBuf::from("/usr/bin/valgrind")));
        assert_eq!(m.counters(), vec![Counter::Instructions]);
        assert!(m.note().contains("cachegrind"), "{}", m.note());
        // Software counters alone still use perf_event_open.
        let m = select(
            &[Counter::TaskClock, Counter::PageFaults],
            &probe(Err(libc::ENOENT), Ok(()), false),
        )
        .unwrap();
        assert_eq!(m.perf, vec![Counter::TaskClock, Counter::PageFaults]);
    }

    #[test]
    fn names_what_is_missing() {
        let e = select(
            &[Counter::Instructions],
            &probe(Err(libc::ENOENT), Ok(()), false),
        )
        .unwrap_err();
        assert!(e.contains("no hardware performance counters"), "{e}");
        assert!(e.contains("valgrind") && e.contains("not installed"), "{e}");
        let e = select(&[Counter::Cycles], &probe(Err(libc::ENOENT), Ok(()), true)).unwrap_err();
        assert!(
            e.contains("cycles") && e.contains("only instructions"),
            "{e}"
        );
        let e = select(
            &[Counter::Instructions],
            &probe(Err(libc::EACCES), Err(libc::EACCES), true),
        )
        .unwrap_err();
        assert!(e.contains("perf_event_paranoid is 3"), "{e}");
        let e = select(
            &[Counter::ContextSwitches],
            &probe(Ok(()), Err(libc::EACCES), true),
        )
        .unwrap_err();
        assert!(e.contains("perf_event_paranoid"), "{e}");
        let e = select(
            &[Counter::Instructions, Counter::TaskClock],
            &probe(Err(libc::ENOENT), Ok(()), true),
        )
        .unwrap_err();
        assert!(e.contains("separate runs"), "{e}");
    }

    #[test]
    fn reads_cachegrind_summaries() {
        let text = "desc: I1 cache:\ncmd: /bin/true\nevents: Ir\nfl=x\n1 2\nsummary: 123456\n";
        assert_eq!(summary_of(text), Some(123456));
        assert_eq!(summary_of("events: Ir\n"), None);
    }
}
