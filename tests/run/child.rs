//! The one child path (`run::child::process`) behind both kinds of benchmark child: the Node
//! adapter (`run::child::node`) and the command adapter (`run::child::command`) share spawn,
//! supervision and failure classification. Real processes only.

// Some tests here are second tier (feature `e2e`); their helpers are linted with all features.
#![cfg_attr(not(feature = "e2e"), allow(dead_code, unused_imports))]

use benchdiff::format::results::JobStatus;
use benchdiff::run::child::{command, node, process};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A Node benchmark file that ignores SIGTERM and never ends.
fn stubborn_js(dir: &Path) -> std::path::PathBuf {
    let f = dir.join("stubborn.js");
    std::fs::write(
        &f,
        "process.on('SIGTERM', () => {});\nsetInterval(() => {}, 1000);\n\
         process.send({ type: 'config', queueLength: 1 });\n",
    )
    .unwrap();
    f
}

fn node_path() -> std::path::PathBuf {
    let out = std::process::Command::new("sh")
        .args(["-c", "command -v node"])
        .output()
        .expect("sh runs");
    let p = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(!p.is_empty(), "these tests need `node` on PATH");
    p.into()
}

const TIMEOUT: Duration = Duration::from_millis(1500);

/// Sets `stop` once `ready` exists (the child created it after ignoring SIGTERM).
fn stop_when_ready(ready: std::path::PathBuf, stop: &'static AtomicBool) {
    std::thread::spawn(move || {
        while !ready.exists() {
            std::thread::sleep(Duration::from_millis(5));
        }
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
    });
}

/// Killed when the timeout expired (well before the interrupt's grace would have ended).
fn killed_at_the_timeout(wall_s: f64) -> bool {
    let t = TIMEOUT.as_secs_f64();
    (t - 0.05..t + 0.4).contains(&wall_s)
}

/// The unified behaviour: after an interrupt the child has `TERM_GRACE` (2 s) to end, but the
/// timeout still applies: a child that ignores SIGTERM is killed when the timeout expires, not
/// after the grace. Both kinds record it as interrupted.
#[cfg(feature = "e2e")]
#[test]
fn timeout_is_honoured_after_an_interrupt_for_node_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = stubborn_js(dir.path());
    let binary = node_path();
    let stop = AtomicBool::new(false);
    let spawn = node::Spawn {
        binary: &binary,
        file: &file,
        args: &[],
        cpus: None,
        measure: &Default::default(),
    };
    // The child's `config` message says its SIGTERM handler is installed: interrupt then.
    let o = node::run_job(&spawn, Some(TIMEOUT), &stop, &mut |ev| match ev {
        node::Event::Config { .. } => ControlFlow::Break(()),
        node::Event::Report(_) => ControlFlow::Continue(()),
    });
    assert!(o.process.interrupted && o.process.timed_out, "{o:?}");
    assert!(killed_at_the_timeout(o.process.wall_s), "{o:?}");
    assert_eq!(o.process.code_and_signal(), (None, Some(9)));
    assert_eq!(o.classify(Some(TIMEOUT)).0, JobStatus::Interrupted);
}

#[test]
fn timeout_is_honoured_after_an_interrupt_for_commands() {
    static STOP: AtomicBool = AtomicBool::new(false);
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    stop_when_ready(ready.clone(), &STOP);
    let spec = command::Spec {
        argv: vec![
            "sh".into(),
            "-c".into(),
            format!(
                "trap '' TERM; touch '{}'; sleep 30; sleep 30",
                ready.display()
            ),
        ],
        parse_stdout: true,
        ..command::Spec::default()
    };
    let o = command::run_command(&spec, Some(TIMEOUT), None, &STOP);
    assert!(o.process.interrupted && o.process.timed_out, "{o:?}");
    assert!(killed_at_the_timeout(o.process.wall_s), "{o:?}");
    assert_eq!(o.process.code_and_signal(), (None, Some(9)));
    assert_eq!(
        o.failure(Some(TIMEOUT)).map(|f| f.0),
        Some(JobStatus::Interrupted)
    );
}

/// Without a timeout an interrupted child that ignores SIGTERM gets SIGKILL after the grace.
#[test]
fn interrupt_without_timeout_kills_after_the_grace() {
    static STOP: AtomicBool = AtomicBool::new(false);
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    stop_when_ready(ready.clone(), &STOP);
    let spec = command::Spec {
        argv: vec![
            "sh".into(),
            "-c".into(),
            format!("trap '' TERM; touch '{}'; sleep 30", ready.display()),
        ],
        ..command::Spec::default()
    };
    let o = command::run_command(&spec, None, None, &STOP);
    assert!(o.process.interrupted && !o.process.timed_out, "{o:?}");
    let grace = process::TERM_GRACE.as_secs_f64();
    assert!((grace..grace + 3.0).contains(&o.process.wall_s), "{o:?}");
}

/// One classification for both kinds: the same process outcome gives the same status and text.
#[cfg(feature = "e2e")]
#[test]
fn both_kinds_classify_a_process_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let file = dir.path().join("exit3.js");
    std::fs::write(&file, "process.exit(3);\n").unwrap();
    let binary = node_path();
    let spawn = node::Spawn {
        binary: &binary,
        file: &file,
        args: &[],
        cpus: None,
        measure: &Default::default(),
    };
    let n = node::run_job(&spawn, None, &stop, &mut |_| ControlFlow::Continue(()));
    let spec = command::Spec {
        argv: vec!["sh".into(), "-c".into(), "exit 3".into()],
        ..command::Spec::default()
    };
    let c = command::run_command(&spec, None, None, &stop);
    assert_eq!(
        n.classify(None),
        (JobStatus::Failed, Some("exit code 3".into()))
    );
    assert_eq!(
        c.failure(None),
        Some((JobStatus::Failed, "exit code 3".into()))
    );
    assert_eq!(n.process.failure(None), c.process.failure(None));
}
