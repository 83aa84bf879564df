//! The floor of running a trivial command: `posix_spawn` + `waitpid` of `/bin/true`, with
//! nothing else (no pipes, no process group, no poll), N times in a row. Any per-run overhead
//! of `benchdiff compare --bench` (and of `hyperfine -N`) above this figure is the runner's own.
//!
//! Run: `cargo bench --bench spawn_floor [-- RUNS [PROGRAM]]` (default 1000 runs of /bin/true).
//! Prints the total and per-run wall seconds, and the user+sys CPU seconds of the children.

use std::ffi::CString;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let runs: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let program = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "/bin/true".to_owned());
    let path = CString::new(program.clone()).expect("program path without NUL");
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
        assert_eq!(rc, 0, "posix_spawn {program}");
        let mut status = 0;
        // SAFETY: waits for the child just spawned.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(r, pid, "waitpid");
    }
    let wall = start.elapsed().as_secs_f64();
    // SAFETY: rusage is plain old data, filled by getrusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    println!(
        "posix_spawn+waitpid floor: {runs} runs of {program}: {wall:.3} s wall, {:.1} µs per run; children user+sys {:.3} s",
        wall / runs as f64 * 1e6,
        secs(ru.ru_utime) + secs(ru.ru_stime)
    );
}
