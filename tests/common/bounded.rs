//! Running the real benchdiff binary with bounds on its time and memory, for inputs and
//! children without end: a hung or runaway run is killed and reported, never waited on.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a bounded run ended.
#[derive(Debug)]
pub struct Bounded {
    /// The exit code (`None` when a signal ended it, also the deadline's `SIGKILL`).
    pub code: Option<i32>,
    /// Killed at the deadline.
    pub timed_out: bool,
    /// Wall seconds.
    pub seconds: f64,
    /// Peak resident set, MB (`wait4`).
    pub rss_mb: f64,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// Runs benchdiff with `args` in `dir` under `ulimit -v` of `vmem_kb` KiB (through `sh -c`,
/// which then becomes benchdiff), stdin from `stdin` (or nothing), killed after `limit`.
pub fn run(
    dir: &Path,
    args: &[&str],
    stdin: Option<&Path>,
    vmem_kb: u64,
    limit: Duration,
) -> Bounded {
    let out = dir.join(".bounded.stdout");
    let err = dir.join(".bounded.stderr");
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {vmem_kb} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_benchdiff"))
        .args(args)
        .current_dir(dir)
        .env("COLUMNS", "200")
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"));
    match stdin {
        Some(p) => cmd.stdin(std::fs::File::open(p).expect("stdin file")),
        None => cmd.stdin(Stdio::null()),
    };
    let start = Instant::now();
    let child = cmd.spawn().expect("benchdiff runs");
    let pid = child.id() as libc::pid_t;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let killed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (done, killed) = (done.clone(), killed.clone());
        std::thread::spawn(move || {
            while start.elapsed() < limit {
                if done.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            if !done.load(std::sync::atomic::Ordering::SeqCst) {
                killed.store(true, std::sync::atomic::Ordering::SeqCst);
                // SAFETY: the child is not reaped before `done` is set, so the pid is ours.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        })
    };
    let (status, rss_mb) = super::wait_with_peak_rss(child);
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = watchdog.join();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Bounded {
        code,
        timed_out: killed.load(std::sync::atomic::Ordering::SeqCst),
        seconds: start.elapsed().as_secs_f64(),
        rss_mb,
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
    }
}
