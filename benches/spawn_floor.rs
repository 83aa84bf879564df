//! The floor of running a trivial command: `posix_spawn` + `waitpid` of `/bin/true`, with
//! nothing else (no pipes, no process group, no poll), N times in a row. Any per-run overhead
//! of `benchdiff compare --bench` (and of `hyperfine -N`) above this figure is the runner's own.
//!
//! Then, in three alternating rounds, the same RUNS runs of PROGRAM under `benchdiff compare
//! --bench ''` (RUNS/2 per side, this build's binary) and under `hyperfine -N` when it is on
//! PATH, each tool timed whole (start-up, spawning, waiting, recording): per-run milliseconds,
//! each tool's overhead above the floor, and the ratio benchdiff / hyperfine (goal of issue 16:
//! ≤ 1.0). The machine may be shared, so the minimum over the rounds is reported.
//!
//! Run: `cargo bench --bench spawn_floor [-- RUNS [PROGRAM] [--floor-only]]` (default 1000 runs
//! of /bin/true; `--floor-only` stops after the floor, as `scripts/overhead-vs-hyperfine.sh` uses it).

use std::ffi::CString;
use std::time::Instant;

/// Whole wall seconds of one tool invocation (output discarded); `None` when it failed.
fn timed(cmd: &mut std::process::Command) -> Option<f64> {
    let t = Instant::now();
    let ok = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?
        .success();
    ok.then(|| t.elapsed().as_secs_f64())
}

/// `posix_spawn` + `waitpid` of `path`, `runs` times; whole wall seconds.
fn floor(path: &CString, runs: usize) -> f64 {
    let argv = [path.as_ptr(), std::ptr::null()];
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    let start = Instant::now();
    for _ in 0..runs {
        let mut pid: libc::pid_t = 0;
        // SAFETY: path, argv and envp are NUL-terminated and live across the call; no file
        // actions or attributes are passed.
        let rc = unsafe {
            libc::posix_spawn(
                &mut pid,
                path.as_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                argv.as_ptr() as *const *mut libc::c_char,
                envp.as_ptr() as *const *mut libc::c_char,
            )
        };
        assert_eq!(rc, 0, "posix_spawn");
        let mut status = 0;
        // SAFETY: waits for the child just spawned.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(r, pid, "waitpid");
    }
    start.elapsed().as_secs_f64()
}

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let floor_only = all.iter().any(|a| a == "--floor-only");
    let args: Vec<String> = all
        .into_iter()
        .filter(|a| a != "--bench" && a != "--floor-only")
        .collect();
    let runs: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let program = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "/bin/true".to_owned());
    let path = CString::new(program.clone()).expect("program path without NUL");
    let wall = floor(&path, runs);
    // SAFETY: rusage is plain old data, filled by getrusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    println!(
        "posix_spawn+waitpid floor: {runs} runs of {program}: {wall:.3} s wall, {:.1} µs per run; children user+sys {:.3} s",
        wall / runs as f64 * 1e6,
        secs(ru.ru_utime) + secs(ru.ru_stime)
    );
    if floor_only {
        return;
    }
    let have_hyperfine = std::process::Command::new("hyperfine")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let tmp = std::env::temp_dir().join(format!("benchdiff-spawn-floor-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let (mut f_min, mut b_min, mut h_min) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for round in 0..3 {
        f_min = f_min.min(floor(&path, runs));
        let csv = tmp.join(format!("r{round}.csv"));
        let jsonl = tmp.join(format!("r{round}.jsonl"));
        if let Some(t) = timed(
            std::process::Command::new(env!("CARGO_BIN_EXE_benchdiff"))
                .args([
                    "compare", "--old", &program, "--new", &program, "--bench", "",
                ])
                .args([
                    "--runs",
                    &(runs / 2).to_string(),
                    "--order",
                    "node",
                    "--no-progress",
                ])
                .arg("--csv")
                .arg(&csv)
                .arg("--results")
                .arg(&jsonl),
        ) {
            b_min = b_min.min(t);
        }
        if have_hyperfine
            && let Some(t) = timed(std::process::Command::new("hyperfine").args([
                "-N",
                "--style",
                "none",
                "--runs",
                &runs.to_string(),
                &program,
            ]))
        {
            h_min = h_min.min(t);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let per = |t: f64| t / runs as f64 * 1e3;
    println!(
        "3 alternating rounds of {runs} runs each, minimum per tool (ms per run, whole tool):"
    );
    println!("  floor posix_spawn+waitpid: {:.3} ms", per(f_min));
    if b_min.is_finite() {
        println!(
            "  benchdiff compare --bench '': {:.3} ms ({:+.3} ms above the floor)",
            per(b_min),
            per(b_min) - per(f_min)
        );
    }
    if h_min.is_finite() {
        println!(
            "  hyperfine -N: {:.3} ms ({:+.3} ms above the floor)",
            per(h_min),
            per(h_min) - per(f_min)
        );
        if b_min.is_finite() {
            println!("  ratio benchdiff / hyperfine: {:.2}", b_min / h_min);
        }
    } else {
        println!("  hyperfine not installed (Debian: apt-get install hyperfine): no ratio");
    }
}
