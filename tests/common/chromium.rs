//! Headless Chromium for the tests that load pages in a real browser (`tests/report_html.rs`,
//! `tests/history_dashboard.rs`). A missing `chromium` is a test failure, never a skip.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

pub fn chromium() -> PathBuf {
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        if let Some(p) = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(c))
                .find(|p| p.is_file())
        }) {
            return p;
        }
    }
    panic!(
        "chromium is required for the HTML report and dashboard tests and was not found in PATH \
         (Debian: apt-get install -y chromium; .ci/run installs it)"
    );
}

/// Runs Chromium headless with the flags that work on a closed network, returns
/// (stdout, stderr). Kills it after `limit`.
pub fn run_chromium(args: &[String], profile: &Path, limit: Duration) -> (String, String) {
    let mut child = std::process::Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            "--mute-audio",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("stdout piped");
    let mut stderr = child.stderr.take().expect("stderr piped");
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            let (o, e) = (out_t.join().unwrap(), err_t.join().unwrap());
            assert!(status.success(), "chromium failed ({status}):\n{e}");
            return (o, e);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish within {limit:?}:\n{}",
                err_t.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
