//! Inputs without end or without shape: every reader ends, with bounded memory and an error
//! naming the file. An input without line breaks (`/dev/zero`) ends with a positioned error
//! after the skip bound instead of a search for a line break that never comes; `history add`
//! streams its file through the same readers (a file with a line longer than memory holds is
//! refused, not loaded whole); a suite file is refused over its size limit; and a CSV header
//! of 200,000 columns is read in linear time.

use crate::common::bounded;
use std::io::Write;
use std::time::Duration;

/// Virtual memory allowed to benchdiff, KiB (1 GB).
const VMEM_KB: u64 = 1_000_000;

#[test]
fn inputs_without_line_breaks_end_with_an_error_naming_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let formats = [
        "node-compare-csv",
        "node-run-csv",
        "results-jsonl",
        "go",
        "libtest",
        "criterion",
    ];
    let zero = std::path::Path::new("/dev/zero");
    let mut cases: Vec<(Vec<&str>, Option<&std::path::Path>, &str)> = Vec::new();
    for f in formats {
        cases.push((
            vec!["report", "--input-format", f, "/dev/zero"],
            None,
            "/dev/zero:1: no line break in 256 MiB",
        ));
        cases.push((
            vec!["report", "--input-format", f, "-"],
            Some(zero),
            "<stdin>:1: no line break in 256 MiB",
        ));
    }
    cases.push((
        vec!["merge", "-o", "merged.jsonl", "/dev/zero"],
        None,
        "/dev/zero: line 1: no line break in 256 MiB",
    ));
    for (args, stdin, want) in cases {
        let run = bounded::run(dir.path(), &args, stdin, VMEM_KB, Duration::from_secs(120));
        assert!(!run.timed_out, "{args:?} did not end: {run:?}");
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(want), "{args:?}: {}", run.stderr);
        assert!(
            run.rss_mb < 200.0,
            "{args:?}: peak RSS {:.0} MB",
            run.rss_mb
        );
    }
    assert!(!dir.path().join("merged.jsonl").exists());
}

#[test]
fn history_add_streams_its_file_through_the_capped_readers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("h.db");
    let db = db.to_str().expect("UTF-8 path");
    // A device without end.
    let run = bounded::run(
        dir.path(),
        &[
            "history",
            "add",
            "--db",
            db,
            "--commit",
            "abc123",
            "/dev/zero",
        ],
        None,
        VMEM_KB,
        Duration::from_secs(120),
    );
    assert!(!run.timed_out, "did not end: {run:?}");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("/dev/zero:1:"),
        "the error names the file: {}",
        run.stderr
    );
    assert!(run.rss_mb < 200.0, "peak RSS {:.0} MB", run.rss_mb);
    // A compare.js CSV whose second line is 300 MB long: not held in memory, and an error at
    // the skip bound (256 MiB).
    let big = dir.path().join("big.csv");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&big).expect("file"));
        writeln!(
            f,
            "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\""
        )
        .expect("w");
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..300 {
            f.write_all(&chunk).expect("w");
        }
        writeln!(f).expect("w");
        writeln!(f, "\"new\",\"a.js\",\"n=1\",1.5,0.1").expect("w");
    }
    let run = bounded::run(
        dir.path(),
        &[
            "history", "add", "--db", db, "--commit", "abc123", "big.csv",
        ],
        None,
        VMEM_KB,
        Duration::from_secs(120),
    );
    std::fs::remove_file(&big).expect("removed");
    eprintln!(
        "history add of a 300 MB line: {:.1} s, peak RSS {:.0} MB",
        run.seconds, run.rss_mb
    );
    assert!(!run.timed_out, "did not end: {run:?}");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("big.csv:2: no line break in 256 MiB"),
        "{}",
        run.stderr
    );
    assert!(run.rss_mb < 200.0, "peak RSS {:.0} MB", run.rss_mb);
    // A file of ordinary size is still stored, with its content hash (a second add is a
    // no-op) and its samples.
    std::fs::write(
        dir.path().join("ok.csv"),
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\"new\",\"a.js\",\"n=1\",1.5,0.1\n",
    )
    .expect("write");
    for want in ["stored 1 samples", "already stored"] {
        let run = bounded::run(
            dir.path(),
            &["history", "add", "--db", db, "--commit", "abc123", "ok.csv"],
            None,
            VMEM_KB,
            Duration::from_secs(120),
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert!(run.stdout.contains(want), "{want}: {}", run.stdout);
    }
}

#[test]
fn a_suite_file_without_end_is_refused_at_its_size_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = bounded::run(
        dir.path(),
        &["compare", "--suite", "/dev/zero"],
        None,
        VMEM_KB,
        Duration::from_secs(120),
    );
    assert!(!run.timed_out, "did not end: {run:?}");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("/dev/zero: larger than 16 MiB: not a suite file"),
        "{}",
        run.stderr
    );
    assert!(run.rss_mb < 200.0, "peak RSS {:.0} MB", run.rss_mb);
}

#[test]
fn a_header_of_200000_columns_is_read_in_linear_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Short unquoted names (base 36, upper case: none is a standard column's name), so that
    // the header stays within the 1 MiB line limit.
    let name = |mut i: u32| {
        let mut s = Vec::new();
        loop {
            s.push(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(i % 36) as usize]);
            i /= 36;
            if i == 0 {
                break;
            }
        }
        String::from_utf8(s).expect("ASCII")
    };
    let extra: Vec<String> = (0..200_000).map(name).collect();
    let values: Vec<&str> = vec!["1"; 200_000];
    let text = format!(
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\",{}\n\
         \"old\",\"a.js\",\"n=1\",10,0.1,{}\n\"new\",\"a.js\",\"n=1\",10,0.1,{}\n",
        extra.join(","),
        values.join(","),
        values.join(",")
    );
    std::fs::write(dir.path().join("wide.csv"), text).expect("write");
    let run = bounded::run(
        dir.path(),
        &["report", "wide.csv"],
        None,
        VMEM_KB,
        Duration::from_secs(120),
    );
    eprintln!("200,000-column header: {:.2} s", run.seconds);
    assert!(!run.timed_out, "did not end: {run:?}");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("a.js"), "{}", run.stdout);
    // Quadratic, this took minutes; linear, well under a second of work.
    assert!(run.seconds < 20.0, "{:.1} s", run.seconds);
}
