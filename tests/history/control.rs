//! A results file of `compare --control` in history: its control samples are stored apart
//! (side 2), so `history show` of the old or the new side counts only that side's samples.

use assert_cmd::Command;
use std::fmt::Write as _;

/// A command-run results file with a control side: one benchmark `b`, `runs` rounds of old,
/// new and control jobs.
fn results_file(runs: u32) -> String {
    let mut s = String::from(
        "{\"type\":\"command-run\",\"benchdiff\":\"0.1.0\",\"started_unix_s\":1.0,\
         \"targets\":[{\"side\":\"old\",\"label\":\"a\",\"argv\":[\"/bin/a\"]},\
         {\"side\":\"new\",\"label\":\"b\",\"argv\":[\"/bin/b\"]}],\
         \"benchmarks\":[{\"name\":\"b\",\"template\":\"\",\"params\":[],\"exclusions\":[]}],\
         \"runs\":4,\"warmup\":0,\"order\":\"node\",\"seed\":1,\"shell\":false,\
         \"timeout_s\":null,\"prepare\":null,\"setup\":null,\"cleanup\":null,\"cpus\":null,\
         \"jobs\":12,\"control\":true}\n",
    );
    let mut position = 0;
    for run in 0..runs {
        for side in ["old", "new", "control"] {
            let rate = 1000.0 + f64::from(position);
            let _ = writeln!(
                s,
                "{{\"type\":\"command-job\",\"position\":{position},\"benchmark\":\"b\",\
                 \"combination\":[],\"side\":\"{side}\",\"run\":{run},\"warmup\":false,\
                 \"argv\":[\"/bin/x\"],\"status\":\"ok\",\"exit_code\":0,\"signal\":null,\
                 \"wall_s\":0.001,\"user_s\":0.001,\"sys_s\":0.0,\"max_rss_bytes\":1000,\
                 \"samples\":[{{\"name\":\"b\",\"configuration\":\"\",\"params\":[],\
                 \"rate\":{rate},\"time_s\":null,\"source\":\"node\",\"metrics\":[]}}]}}"
            );
            position += 1;
        }
    }
    s
}

#[test]
fn control_samples_are_stored_apart_from_old_and_new() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("r.jsonl");
    std::fs::write(&file, results_file(4)).expect("written");
    let db = dir.path().join("h.sqlite");
    let bd = |args: &[&str]| {
        Command::cargo_bin("benchdiff")
            .expect("binary")
            .arg("history")
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .expect("runs")
    };
    let f = file.to_str().expect("path");
    let o = bd(&[
        "add",
        f,
        "--commit",
        "abc123",
        "--date",
        "2024-03-01T10:00:00Z",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("stored 12 samples"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    for side in ["new", "old"] {
        let o = bd(&["show", "--side", side]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.contains("1 commits, 4 samples"), "{side}: {out}");
    }
}
