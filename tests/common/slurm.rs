//! A real one-machine Slurm cluster for the tests (`tests/run_slurm.rs`,
//! `tests/run_cluster_examples.rs`): `munged`, `slurmctld` and `slurmd` started as this user with a
//! generated configuration in a temporary folder (the configuration checked on a one-machine
//! Debian install of `slurm-wlm`).
//!
//! A missing binary is a test failure naming it and the install command, never a skip; a daemon
//! that dies or a node that does not become `idle` fails the test with the daemons' logs. The
//! [`Cluster`] guard stops everything when dropped, whatever happened: every job cancelled, the
//! daemons sent SIGTERM (SIGKILL after a timeout), leftover `slurmstepd` trees killed.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How to install what this harness needs (Debian/Ubuntu; `scripts/test.sh` runs it when missing).
pub const INSTALL: &str =
    "apt-get install -y --no-install-recommends slurm-wlm munge   (scripts/test.sh installs them)";

/// Every program the harness runs.
const PROGRAMS: [&str; 11] = [
    "mungekey",
    "munged",
    "munge",
    "unmunge",
    "slurmctld",
    "slurmd",
    "sinfo",
    "sbatch",
    "squeue",
    "scontrol",
    "scancel",
];

/// How long the node may take to become `idle` after the daemons start (measured: 0.2–1.3 s).
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long each daemon gets between SIGTERM and SIGKILL.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// The path of `name`, looked up in PATH and then in the sbin folders (the daemons live in
/// `/usr/sbin`, which a non-root PATH may lack). Panics naming the program and the install command.
pub fn program(name: &str) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from));
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "the Slurm tests need `{name}`, which is not installed (not in PATH nor /usr/sbin).\n\
                 Install: {INSTALL}"
            )
        })
}

/// Panics unless every program of the harness is installed (naming the first missing one).
pub fn require_slurm() {
    for p in PROGRAMS {
        program(p);
    }
}

/// One job (or one array task) as `scontrol show job` reports it once it has ended.
#[derive(Debug, Clone)]
pub struct JobState {
    /// `JobId`: the task's own id (for an array task, not the array's id).
    pub id: String,
    /// `ArrayJobId`, for an array task.
    pub array_job: Option<String>,
    /// `ArrayTaskId`, for an array task.
    pub array_task: Option<String>,
    /// `JobState`, e.g. `COMPLETED`, `FAILED`, `CANCELLED`.
    pub state: String,
    /// `ExitCode` as `CODE:SIGNAL`.
    pub exit_code: String,
    /// `Reason`, e.g. `DependencyNeverSatisfied`.
    pub reason: String,
    /// The whole one-line record.
    pub raw: String,
}

impl JobState {
    fn parse(line: &str) -> JobState {
        let field = |key: &str| {
            line.split_whitespace()
                .find_map(|t| t.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
                .map(str::to_owned)
        };
        JobState {
            id: field("JobId").unwrap_or_default(),
            array_job: field("ArrayJobId"),
            array_task: field("ArrayTaskId"),
            state: field("JobState").unwrap_or_default(),
            exit_code: field("ExitCode").unwrap_or_default(),
            reason: field("Reason").unwrap_or_default(),
            raw: line.to_owned(),
        }
    }

    /// One line for failure messages: id, array task, state, reason and exit code.
    pub fn summary(&self) -> String {
        format!(
            "job {}{} {} (reason {}, exit code {})",
            self.id,
            self.array_task
                .as_deref()
                .map(|t| format!(" (array {}_{t})", self.array_job.as_deref().unwrap_or("?")))
                .unwrap_or_default(),
            self.state,
            self.reason,
            self.exit_code
        )
    }

    /// Whether the job ended with state `COMPLETED` (exit code 0).
    pub fn completed(&self) -> bool {
        self.state == "COMPLETED"
    }
}

/// A running one-node Slurm cluster whose state lives in a temporary folder. Dropping it stops
/// every job and daemon (see [`Cluster::stop`]).
pub struct Cluster {
    dir: tempfile::TempDir,
    node: String,
    port: u16,
    conf: PathBuf,
    socket: PathBuf,
    munged: Option<i32>,
    slurmctld: Option<Child>,
    slurmd: Option<Child>,
    stopped: bool,
}

/// An exclusive `flock` on a file shared by every test process: cluster starts (port choice up to
/// the daemons listening) run one at a time, so parallel tests never pick the same ports.
struct StartLock(#[allow(dead_code)] File);

impl StartLock {
    fn take() -> StartLock {
        let path = std::env::temp_dir().join("benchdiff-slurm-start.lock");
        // Read-only when another user created it (flock works on any open file).
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .or_else(|_| File::open(&path))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a file descriptor we own; released when the file is closed.
        let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(
            r,
            0,
            "flock {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        );
        StartLock(f)
    }
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The short host name (`hostname -s`): the node's name, as `slurmd` checks it.
fn short_hostname() -> String {
    let o = run(Command::new("hostname").arg("-s"));
    let name = text(&o.stdout).trim().to_owned();
    assert!(
        o.status.success() && !name.is_empty(),
        "hostname -s failed: {o:?}"
    );
    name
}

/// (CPUs, RealMemory in MB) as `slurmd -C` detects them: without RealMemory the node has 1 MB and
/// every `--mem` request is rejected.
fn node_resources() -> (u32, u64) {
    let o = run(Command::new(program("slurmd")).arg("-C"));
    let out = text(&o.stdout);
    assert!(
        o.status.success(),
        "slurmd -C failed: {}{}",
        out,
        text(&o.stderr)
    );
    let value = |key: &str| {
        out.split_whitespace()
            .find_map(|t| t.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
            .and_then(|v| v.parse::<u64>().ok())
    };
    let cpus = value("CPUs")
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64));
    let mem = value("RealMemory").unwrap_or_else(|| panic!("no RealMemory in `slurmd -C`: {out}"));
    (cpus as u32, mem)
}

/// The first free pair of ports (P for slurmctld, P+1 for slurmd) from 6817 upwards in pairs.
fn free_port_pair() -> u16 {
    let free = |p: u16| TcpListener::bind(("0.0.0.0", p)).is_ok();
    (6817..7817)
        .step_by(2)
        .find(|&p| free(p) && free(p + 1))
        .expect("no free pair of ports in 6817..7817 for slurmctld/slurmd")
}

/// Whether process `pid` is gone: no `/proc/PID`, or a zombie (`Z`) or dead (`X`) one (ended
/// daemons may stay zombies for seconds here while PID 1 reaps them slowly).
pub fn is_gone(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => {
            let state = s
                .rsplit_once(')')
                .and_then(|(_, r)| r.trim_start().chars().next());
            matches!(state, Some('Z') | Some('X') | None)
        }
    }
}

fn parent_of(pid: i32) -> Option<i32> {
    let s = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    s.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn all_pids() -> Vec<i32> {
    fs::read_dir("/proc")
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Live processes (other than this one) that have a file open, or their working directory, under
/// `dir`: how leftover `slurmstepd` processes are found (they overwrite their environment with
/// their process title, so the log files they hold open under the cluster's folder name them).
pub fn processes_using(dir: &Path) -> Vec<i32> {
    let me = std::process::id() as i32;
    all_pids()
        .into_iter()
        .filter(|&pid| pid != me && !is_gone(pid))
        .filter(|&pid| {
            let under = |p: PathBuf| p.starts_with(dir);
            if fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(under) {
                return true;
            }
            fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|rd| {
                rd.filter_map(|e| e.ok())
                    .any(|e| fs::read_link(e.path()).is_ok_and(under))
            })
        })
        .collect()
}

/// Every live descendant of `root` (children before their parents' siblings are not ordered).
fn descendants(root: i32) -> Vec<i32> {
    let pids = all_pids();
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for &c in &pids {
            if parent_of(c) == Some(p) && !out.contains(&c) {
                out.push(c);
                frontier.push(c);
            }
        }
    }
    out
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill(2) with a pid we started or found under our own temporary folder.
    unsafe {
        libc::kill(pid, sig);
    }
}

fn wait_gone(pid: i32, limit: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if is_gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    is_gone(pid)
}

/// SIGTERM to a daemon we spawned, SIGKILL after [`STOP_TIMEOUT`]; reaps it.
fn stop_child(child: &mut Child, name: &str) {
    if matches!(child.try_wait(), Ok(Some(_))) {
        return;
    }
    signal(child.id() as i32, libc::SIGTERM);
    let t = Instant::now();
    while t.elapsed() < STOP_TIMEOUT {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("slurm harness: {name} ignored SIGTERM for {STOP_TIMEOUT:?}; sending SIGKILL");
    let _ = child.kill();
    let _ = child.wait();
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd in a new temporary folder and waits until the node is
    /// `idle`. Panics (with the daemons' logs) when a program is missing, a daemon dies or the node
    /// is not idle within a minute; whatever was started is stopped by the guard's drop then.
    pub fn start() -> Cluster {
        Cluster::start_with(&[])
    }

    /// [`Cluster::start`] with `slurm.conf` lines changed: each `Key=Value` of `settings`
    /// replaces the generated line of that key, or is added when there is none.
    pub fn start_with(settings: &[&str]) -> Cluster {
        require_slurm();
        let dir = tempfile::Builder::new()
            .prefix("benchdiff-slurm-")
            .tempdir()
            .expect("temporary folder");
        let d = dir.path().to_owned();
        for sub in ["munge", "etc", "state", "spool", "log", "run", "jobs"] {
            fs::create_dir_all(d.join(sub)).expect("cluster folders");
        }
        fs::set_permissions(d.join("munge"), fs::Permissions::from_mode(0o755)).expect("chmod");
        let mut c = Cluster {
            node: short_hostname(),
            port: 0,
            conf: d.join("etc/slurm.conf"),
            socket: d.join("munge/munge.socket"),
            dir,
            munged: None,
            slurmctld: None,
            slurmd: None,
            stopped: false,
        };
        c.start_munge();
        let lock = StartLock::take();
        c.port = free_port_pair();
        c.write_config(settings);
        c.start_daemons();
        c.wait_idle();
        drop(lock);
        c
    }

    /// The cluster's temporary folder (state, spool, logs; `jobs/` is free for the tests).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The generated `slurm.conf` (what `SLURM_CONF` points at for the clients).
    pub fn conf(&self) -> &Path {
        &self.conf
    }

    /// The node's name.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The pids of munged, slurmctld and slurmd (those started so far).
    pub fn daemon_pids(&self) -> Vec<i32> {
        let mut v: Vec<i32> = self.munged.into_iter().collect();
        v.extend(
            [&self.slurmctld, &self.slurmd]
                .into_iter()
                .flatten()
                .map(|c| c.id() as i32),
        );
        v
    }

    fn start_munge(&mut self) {
        let m = self.dir().join("munge");
        let key = m.join("munge.key");
        let o = run(Command::new(program("mungekey"))
            .args(["--create", "--bits=1024"])
            .arg(format!("--keyfile={}", key.display())));
        assert!(
            o.status.success(),
            "mungekey failed: {}{}",
            text(&o.stdout),
            text(&o.stderr)
        );
        fs::set_permissions(&key, fs::Permissions::from_mode(0o600)).expect("chmod key");
        // --force: the temporary folder is 0700 (no o+x on a parent of the socket), which munged
        // refuses otherwise. munged forks and returns once its socket is ready.
        let o = run(Command::new(program("munged"))
            .arg("--force")
            .arg(format!("--socket={}", self.socket.display()))
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--pid-file={}", m.join("munged.pid").display()))
            .arg(format!(
                "--log-file={}",
                self.dir().join("log/munged.log").display()
            ))
            .arg(format!("--seed-file={}", m.join("munged.seed").display()))
            .stdin(Stdio::null()));
        if let Ok(pid) = fs::read_to_string(m.join("munged.pid")) {
            self.munged = pid.trim().parse().ok();
        }
        assert!(
            o.status.success(),
            "munged failed to start: {}{}\n{}",
            text(&o.stdout),
            text(&o.stderr),
            self.logs()
        );
        // A credential round trip proves the socket and key work.
        let cred = run(Command::new(program("munge"))
            .args(["-n", "-S"])
            .arg(&self.socket));
        let mut un = Command::new(program("unmunge"))
            .arg("-S")
            .arg(&self.socket)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("unmunge");
        if let Some(mut i) = un.stdin.take() {
            let _ = i.write_all(&cred.stdout);
        }
        let un = un.wait_with_output().expect("unmunge");
        assert!(
            cred.status.success() && un.status.success(),
            "munge round trip failed: munge: {} unmunge: {}\n{}",
            text(&cred.stderr),
            text(&un.stderr),
            self.logs()
        );
    }

    fn write_config(&self, settings: &[&str]) {
        let d = self.dir();
        let (cpus, mem) = node_resources();
        let user = run(Command::new("id").arg("-un"));
        let user = text(&user.stdout).trim().to_owned();
        let node = &self.node;
        let p = self.port;
        let conf = format!(
            "# Generated by tests/common/slurm.rs\n\
             ClusterName=benchdiff\n\
             SlurmctldHost={node}(127.0.0.1)\n\
             SlurmctldPort={p}\n\
             SlurmdPort={p1}\n\
             SlurmUser={user}\n\
             SlurmdUser={user}\n\
             AuthType=auth/munge\n\
             CredType=cred/munge\n\
             AuthInfo=socket={sock}\n\
             StateSaveLocation={d}/state\n\
             SlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/run/slurmctld.pid\n\
             SlurmdPidFile={d}/run/slurmd.pid\n\
             SlurmctldLogFile={d}/log/slurmctld.log\n\
             SlurmdLogFile={d}/log/slurmd.log\n\
             SlurmctldDebug=info\n\
             SlurmdDebug=info\n\
             PlugStackConfig={d}/etc/plugstack.conf\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             JobCompType=jobcomp/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_Core\n\
             SchedulerType=sched/backfill\n\
             SchedulerParameters=batch_sched_delay=0,sched_min_interval=0\n\
             DependencyParameters=kill_invalid_depend\n\
             MpiDefault=none\n\
             ReturnToService=2\n\
             MailProg=/bin/true\n\
             MinJobAge=300\n\
             NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem} State=UNKNOWN\n\
             PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP\n",
            p1 = p + 1,
            sock = self.socket.display(),
            d = d.display(),
        );
        let mut lines: Vec<String> = conf.lines().map(str::to_owned).collect();
        for setting in settings {
            let key = setting.split('=').next().unwrap_or_default();
            match lines.iter_mut().find(|l| l.split('=').next() == Some(key)) {
                Some(line) => *line = (*setting).to_owned(),
                None => lines.push((*setting).to_owned()),
            }
        }
        fs::write(&self.conf, lines.join("\n") + "\n").expect("slurm.conf");
        fs::write(d.join("etc/plugstack.conf"), "").expect("plugstack.conf");
    }

    fn spawn_daemon(&self, name: &str, extra: &[&str]) -> Child {
        let log = |suffix: &str| {
            File::create(self.dir().join(format!("log/{name}.{suffix}"))).expect("daemon output")
        };
        let mut cmd = Command::new(program(name));
        cmd.arg("-D")
            .arg("-f")
            .arg(&self.conf)
            .args(extra)
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(log("out"))
            .stderr(log("err"));
        // SAFETY: setsid() is async-signal-safe; the daemon gets its own session, so no signal
        // meant for the test's process group reaches it.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        cmd.spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}\n{}", self.logs()))
    }

    fn start_daemons(&mut self) {
        self.slurmctld = Some(self.spawn_daemon("slurmctld", &[]));
        let node = self.node.clone();
        self.slurmd = Some(self.spawn_daemon("slurmd", &["-N", &node]));
    }

    /// Panics with the logs when a daemon has exited.
    fn check_daemons(&mut self, what: &str) {
        let mut died = None;
        for (name, child) in [
            ("slurmctld", &mut self.slurmctld),
            ("slurmd", &mut self.slurmd),
        ] {
            if let Some(Ok(Some(status))) = child.as_mut().map(|c| c.try_wait()) {
                died = Some((name, status));
            }
        }
        if let Some((name, status)) = died {
            panic!("{name} died ({status}) {what}\n{}", self.logs());
        }
        if let Some(pid) = self.munged.filter(|&p| is_gone(p)) {
            panic!("munged (pid {pid}) died {what}\n{}", self.logs());
        }
    }

    fn wait_idle(&mut self) {
        let t = Instant::now();
        let mut last = String::new();
        while t.elapsed() < START_TIMEOUT {
            self.check_daemons("while the cluster was starting");
            // sinfo retries for seconds while the controller does not answer: cut it short so a
            // daemon that died is reported at once.
            let mut sinfo = self
                .command("sinfo")
                .args(["-h", "-n", &self.node, "-o", "%T"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run sinfo: {e}"));
            let asked = Instant::now();
            while matches!(sinfo.try_wait(), Ok(None)) && asked.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = sinfo.kill();
            if let Ok(o) = sinfo.wait_with_output() {
                last = format!("{}{}", text(&o.stdout), text(&o.stderr));
                if o.status.success() && text(&o.stdout).trim() == "idle" {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "the Slurm node did not become idle within {START_TIMEOUT:?} (last sinfo: {last:?})\n{}",
            self.logs()
        );
    }

    /// The end (last 6000 bytes) of every log and daemon output file, for failure messages.
    pub fn logs(&self) -> String {
        let mut out = String::from("---- Slurm cluster logs ----\n");
        let mut files: Vec<PathBuf> = fs::read_dir(self.dir().join("log"))
            .map(|rd| rd.filter_map(|e| Some(e.ok()?.path())).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            let body = fs::read(&f).unwrap_or_default();
            let tail = &body[body.len().saturating_sub(6000)..];
            out.push_str(&format!("== {} ==\n{}\n", f.display(), text(tail)));
        }
        out
    }

    /// A Slurm client command (`sbatch`, `squeue`, …) with `SLURM_CONF` set to this cluster.
    pub fn command(&self, name: &str) -> Command {
        let mut c = Command::new(program(name));
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// `sbatch --parsable ARGS`: the job id. Panics with sbatch's error and the logs on failure.
    pub fn sbatch(&self, args: &[&str]) -> String {
        let o = run(self.command("sbatch").arg("--parsable").args(args));
        let out = text(&o.stdout);
        let id = out.trim().split(';').next().unwrap_or("").to_owned();
        assert!(
            o.status.success() && !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()),
            "sbatch {args:?} failed: {out}{}\n{}",
            text(&o.stderr),
            self.logs()
        );
        id
    }

    /// The ids of every job still in the queue (pending or running).
    pub fn queued(&self) -> Vec<String> {
        let o = run(self.command("squeue").args(["-h", "-o", "%A"]));
        text(&o.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    }

    /// Waits until none of the jobs `ids` (array ids include their tasks) is pending or running,
    /// polling `squeue`, then returns the final state of every job and array task from
    /// `scontrol show job` (kept `MinJobAge` = 300 s). Panics after `limit` with the queue and logs.
    pub fn wait(&self, ids: &[&str], limit: Duration) -> Vec<JobState> {
        let t = Instant::now();
        loop {
            let o =
                run(self
                    .command("squeue")
                    .args(["-h", "-o", "%i %T %r", "-j", &ids.join(",")]));
            let out = text(&o.stdout);
            let err = text(&o.stderr);
            let empty =
                out.trim().is_empty() && (o.status.success() || err.contains("Invalid job id"));
            if empty {
                break;
            }
            if !o.status.success() && !err.contains("Invalid job id") {
                panic!("squeue failed: {err}\n{}", self.logs());
            }
            if t.elapsed() > limit {
                panic!(
                    "jobs {ids:?} still queued after {limit:?}:\n{out}{err}\n{}",
                    self.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let mut states = Vec::new();
        for id in ids {
            let o = run(self.command("scontrol").args(["show", "job", "-o", id]));
            assert!(
                o.status.success(),
                "scontrol show job {id}: {}\n{}",
                text(&o.stderr),
                self.logs()
            );
            states.extend(
                text(&o.stdout)
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(JobState::parse),
            );
        }
        states
    }

    /// Stops everything (also what [`Drop`] does; a second call does nothing): cancels every job
    /// and waits for an empty queue, SIGTERM to slurmd, slurmctld and munged in turn (SIGKILL after
    /// 5 s each), then SIGKILL to any process left with a file or its working directory under the
    /// cluster's folder (leftover `slurmstepd` and their job trees, children first), and removes
    /// the munge socket. Never panics; what it had to force is printed to stderr.
    pub fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let ctld_alive = self
            .slurmctld
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)));
        if ctld_alive {
            let jobs = self.queued();
            if !jobs.is_empty() {
                let _ = self.command("scancel").args(&jobs).output();
                let t = Instant::now();
                while t.elapsed() < Duration::from_secs(10) && !self.queued().is_empty() {
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
        if let Some(c) = self.slurmd.as_mut() {
            stop_child(c, "slurmd");
        }
        if let Some(c) = self.slurmctld.as_mut() {
            stop_child(c, "slurmctld");
        }
        if let Some(pid) = self.munged.filter(|&p| !is_gone(p)) {
            signal(pid, libc::SIGTERM);
            if !wait_gone(pid, STOP_TIMEOUT) {
                eprintln!("slurm harness: munged ignored SIGTERM; sending SIGKILL");
                signal(pid, libc::SIGKILL);
                wait_gone(pid, STOP_TIMEOUT);
            }
        }
        for _ in 0..3 {
            let left = processes_using(self.dir());
            if left.is_empty() {
                break;
            }
            for pid in &left {
                let mut tree = descendants(*pid);
                tree.reverse();
                for p in tree.into_iter().chain([*pid]) {
                    eprintln!("slurm harness: killing leftover process {p}");
                    signal(p, libc::SIGKILL);
                }
            }
            for pid in left {
                wait_gone(pid, STOP_TIMEOUT);
            }
        }
        let _ = fs::remove_file(&self.socket);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}
