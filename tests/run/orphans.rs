//! No process of a run outlives benchdiff, even after `kill -9` (issue 15, point 2): a Node
//! benchmark whose forked worker hangs, and a command benchmark whose command forks a `sleep`.
//! Real processes; leftovers are found by walking `/proc` for a unique environment marker.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const MARKER_KEY: &str = "BENCHDIFF_ORPHAN_TEST";

/// A marker no other process on the machine carries.
fn marker(tag: &str) -> String {
    format!("{tag}-{}-{}", std::process::id(), now_ns())
}

fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Live (non-zombie) processes whose environment carries `MARKER_KEY=marker`, with their
/// command lines.
fn marked(marker: &str) -> Vec<(u32, String)> {
    let want = format!("{MARKER_KEY}={marker}");
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if !env.split(|b| *b == 0).any(|v| v == want.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .unwrap_or("?");
        if state == "Z" || state == "X" {
            continue;
        }
        let cmd = std::fs::read(e.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .unwrap_or_default();
        found.push((pid, cmd));
    }
    found
}

fn wait_for(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn start(dir: &Path, marker: &str, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir)
        .env(MARKER_KEY, marker)
        .env_remove("NO_COLOR")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start benchdiff")
}

/// SIGKILLs benchdiff once `ready` sees the descendants it waits for, then checks that every
/// process carrying the marker is gone within a few seconds.
fn kill_and_check(mut child: Child, marker: &str, ready: impl Fn(&[(u32, String)]) -> bool) {
    wait_for("the run's descendants", Duration::from_secs(20), || {
        ready(&marked(marker))
    });
    let before = marked(marker);
    // SAFETY: kill on our own unreaped child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    let _ = child.wait();
    let start = Instant::now();
    loop {
        let left = marked(marker);
        if left.is_empty() {
            break;
        }
        if start.elapsed() > Duration::from_secs(5) {
            for (pid, _) in &left {
                // SAFETY: clean up after the failed check.
                unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
            }
            panic!("left behind after kill -9 (before: {before:?}): {left:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(feature = "e2e")]
#[test]
fn node_worker_forked_by_the_benchmark_dies_with_benchdiff() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bench = tmp.path().join("benchmark/orph");
    std::fs::create_dir_all(&bench).expect("mkdir");
    // Like Node's common.js: the file forks a worker per configuration and waits for it; the
    // worker hangs.
    std::fs::write(
        bench.join("hang.js"),
        "'use strict';\n\
         const { fork } = require('child_process');\n\
         if (process.argv[2] === 'worker') { setInterval(() => {}, 1000); } else {\n\
           process.send({ type: 'config', name: 'orph/hang.js', queueLength: 1 });\n\
           fork(__filename, ['worker'], { stdio: 'inherit' });\n\
         }\n",
    )
    .expect("write");
    let m = marker("node");
    let child = start(
        tmp.path(),
        &m,
        &[
            "compare",
            "--old",
            "node",
            "--new",
            "node",
            "--benchmark-dir",
            "benchmark",
            "--runs",
            "2",
            "--results",
            "r.jsonl",
            "--csv",
            "out.csv",
            "orph",
        ],
    );
    kill_and_check(child, &m, |p| {
        p.iter().any(|(_, c)| c.contains("hang.js worker"))
    });
}

#[test]
fn sleep_forked_by_a_command_dies_with_benchdiff() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let script = tmp.path().join("forker.sh");
    std::fs::write(&script, "#!/bin/sh\nsleep 1000 &\nwait\n").expect("write");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let m = marker("cmd");
    let child = start(
        tmp.path(),
        &m,
        &[
            "compare",
            "--old",
            "./forker.sh",
            "--new",
            "./forker.sh",
            "--bench",
            "",
            "--runs",
            "2",
            "--results",
            "r.jsonl",
            "--csv",
            "out.csv",
        ],
    );
    kill_and_check(child, &m, |p| {
        p.iter().any(|(_, c)| c.starts_with("sleep 1000"))
    });
}

/// A run that ends normally leaves nothing behind at the moment benchdiff has exited: its
/// watchdog process is ended and reaped before the exit (it used to end a moment later, which
/// a check right after the exit could see).
#[test]
fn a_normal_exit_leaves_no_watchdog_behind() {
    let dir = tempfile::tempdir().expect("temp dir");
    for round in 0..5 {
        let m = marker(&format!("normal-exit-{round}"));
        let status = start(
            dir.path(),
            &m,
            &[
                "compare",
                "--old",
                "true",
                "--new",
                "true",
                "--bench",
                "",
                "--runs",
                "2",
                "--no-progress",
                "--force",
                "--csv",
                "out.csv",
            ],
        )
        .wait()
        .expect("benchdiff ends");
        assert!(status.code().is_some(), "benchdiff was killed: {status}");
        let left = marked(&m);
        assert!(left.is_empty(), "round {round}: left behind {left:?}");
    }
}
