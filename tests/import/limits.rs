//! Limits on input (issue 9): every line-based format is streamed, so reading an input far
//! larger than memory allowance keeps benchdiff's peak RSS small, and a line over the 1 MiB
//! limit is rejected by its number without being loaded. JSON documents (read whole) are
//! refused over their size limit. Each case pipes a generated input of 128 MB into
//! `benchdiff report` on standard input and measures the real process's peak RSS (`wait4`).

use crate::common;

use common::wait_with_peak_rss;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Bytes of filler piped after the interesting lines.
const FILLER_BYTES: usize = 128 << 20;
/// Peak RSS allowed while reading it, MB (the filler alone is 128 MB).
const RSS_LIMIT_MB: f64 = 48.0;

struct Outcome {
    code: i32,
    stderr: String,
    rss_mb: f64,
}

/// Runs `benchdiff report --input-format FORMAT -` with `head`, then a line of `long` bytes
/// (if any), then `filler` repeated to [`FILLER_BYTES`], then `tail`, on stdin.
fn pipe(format: &str, head: &str, long: usize, filler: &str, tail: &str) -> Outcome {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .args(["report", "--input-format", format, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("benchdiff runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let (head, filler, tail) = (head.to_owned(), filler.to_owned(), tail.to_owned());
    let writer = std::thread::spawn(move || {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut stdin);
        w.write_all(head.as_bytes())?;
        if long > 0 {
            let chunk = vec![b'x'; 1 << 16];
            for _ in 0..long / chunk.len() {
                w.write_all(&chunk)?;
            }
            w.write_all(b"\n")?;
        }
        let block = filler.repeat((1 << 16) / filler.len().max(1) + 1);
        let mut sent = 0;
        while sent < FILLER_BYTES {
            w.write_all(block.as_bytes())?;
            sent += block.len();
        }
        w.write_all(tail.as_bytes())?;
        w.flush()
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let (status, rss_mb) = wait_with_peak_rss(child);
    // The reader may stop early (e.g. a JSON document over its limit): a broken pipe then.
    let _ = writer.join().expect("writer thread");
    let stderr = reader.join().expect("reader thread");
    eprintln!(
        "{format}: {} MB piped, peak RSS {rss_mb:.1} MB, {:.1} s",
        FILLER_BYTES >> 20,
        start.elapsed().as_secs_f64()
    );
    assert!(libc::WIFEXITED(status), "killed: {status}");
    Outcome {
        code: libc::WEXITSTATUS(status),
        stderr,
        rss_mb,
    }
}

fn assert_streamed(o: &Outcome, long_line: u64) {
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(&format!(
            "<stdin>:{long_line}: line is longer than 1048576 bytes; not read"
        )),
        "{}",
        o.stderr
    );
    assert!(
        o.rss_mb < RSS_LIMIT_MB,
        "peak RSS {:.1} MB reading 128 MB: the input was held in memory",
        o.rss_mb
    );
}

#[test]
fn compare_csv_is_streamed_and_long_lines_are_named() {
    let head = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\
                \"old\",\"a.js\",\"n=1\",10,1\n\"new\",\"a.js\",\"n=1\",11,1\n";
    // Repeated header lines (concatenated files) are parsed and keep no samples.
    let filler = "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n";
    assert_streamed(&pipe("node-compare-csv", head, 5 << 20, filler, ""), 4);
}

#[test]
fn run_js_csv_is_streamed() {
    let head = "\"filename\", \"configuration\", \"rate\", \"time\"\n\"a.js\", \"n=1\", 10, 1\n";
    let filler = "\"filename\", \"configuration\", \"rate\", \"time\"\n";
    assert_streamed(&pipe("node-run-csv", head, 2 << 20, filler, ""), 3);
}

#[test]
fn go_format_is_streamed() {
    let head = "goos: linux\nBenchmarkA-4 10 5 ns/op\n";
    // Configuration lines are parsed and (repeated) keep nothing new.
    let filler = "goos: linux\ngoarch: amd64\n\n";
    assert_streamed(&pipe("go", head, 3 << 20, filler, ""), 3);
}

#[test]
fn libtest_text_is_streamed() {
    let head = "running 1 test\ntest a ... bench:       3,161 ns/iter (+/- 975)\n";
    let filler = "test result: ok. 0 passed; 0 failed; 0 ignored; 1 measured\n";
    assert_streamed(&pipe("libtest", head, 2 << 20, filler, ""), 3);
}

#[test]
fn criterion_text_is_streamed() {
    let head = "a                       time:   [1.0 ns 2.0 ns 3.0 ns]\n";
    let filler = "Benchmarking a: Warming up for 3.0000 s\n";
    assert_streamed(&pipe("criterion", head, 2 << 20, filler, ""), 2);
}

#[test]
fn results_jsonl_is_streamed() {
    // The results file's own limit is 16 MiB per record; an over-long record is a warning.
    let head = "{\"type\":\"run\",\"benchdiff\":\"0\",\"started_unix_s\":1.0,\"old\":\"a\",\"new\":\"b\",\"old_exec\":\"a\",\
                \"new_exec\":\"b\",\"benchmark_dir\":\"d\",\"files\":[],\"runs\":1,\"set\":[],\
                \"order\":\"node\",\"seed\":1,\"cpus\":null,\"timeout_s\":null,\"jobs\":0}\n";
    let filler = "{\"type\":\"resume\"}\n";
    let o = pipe("results-jsonl", head, 17 << 20, filler, "");
    assert!(
        o.stderr
            .contains("<stdin>:2: line is longer than 16777216 bytes; not read; ignored"),
        "{}",
        o.stderr
    );
    assert!(
        o.rss_mb < RSS_LIMIT_MB,
        "peak RSS {:.1} MB: the results file was held in memory",
        o.rss_mb
    );
}

#[test]
fn json_documents_over_the_limit_are_refused() {
    let o = pipe("hyperfine", "{\"results\": [", 0, "  ", "]}");
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("<stdin>:1: a JSON document over 64 MiB; not read"),
        "{}",
        o.stderr
    );
}

/// `benchdiff report ARGS` in `dir`: (exit code, stdout, stderr).
fn report(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(dir)
        .arg("report")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("benchdiff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Format guessing is not misled by what precedes the content: a bad byte, 70,000 blank
/// lines (past the 64 KiB sniffing window), JSON it does not know, a results file whose first
/// record is longer than the window or starts with a byte-order mark.
#[test]
fn format_guessing_edge_cases() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let go = "goos: linux\nBenchmarkA-8 100 1000 ns/op\nBenchmarkA-8 100 1010 ns/op\n";
    std::fs::write(d.join("new.txt"), go).unwrap();
    // A bad byte on line 1: the file is still read as Go, and line 1 is named.
    std::fs::write(
        d.join("bad.txt"),
        [b"\xff\n".as_slice(), go.as_bytes()].concat(),
    )
    .unwrap();
    let (code, _, err) = report(d, &["bad.txt", "new.txt"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.txt:1: not valid UTF-8 (at column 1)"),
        "{err}"
    );
    assert!(!err.contains("compare.js"), "{err}");
    // Blank lines past the sniffing window, then Go.
    std::fs::write(d.join("blank.txt"), "\n".repeat(70_000) + go).unwrap();
    let (code, out, err) = report(d, &["blank.txt", "new.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 comparison:"), "{out}");
    // JSON that is no known format: said so, not fed to the CSV reader.
    std::fs::write(d.join("u.json"), "{\"foo\": 1, \"bar\": 2}\n").unwrap();
    let (code, _, err) = report(d, &["u.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("u.json:1: JSON, but not a JSON format benchdiff recognises"),
        "{err}"
    );
    // Standard input named twice.
    let (code, _, err) = report(d, &["-", "-"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("standard input (-) is given more than once"),
        "{err}"
    );
    // A CRLF line of exactly the limit is accepted (the \r does not count).
    let name = "x".repeat((1 << 20) - "\"old\",\"\",\"\",1,1".len());
    let csv = format!(
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\r\n\
         \"old\",\"{name}\",\"\",1,1\r\n\"new\",\"{name}\",\"\",1,1\r\n"
    );
    assert_eq!(csv.split('\n').nth(1).unwrap().len(), (1 << 20) + 1);
    std::fs::write(d.join("crlf.csv"), csv).unwrap();
    let (code, _, err) = report(d, &["crlf.csv"]);
    assert!(!err.contains("longer than"), "{err}");
    assert_ne!(code, 2, "{err}");
}

/// A command run's results file whose `command-run` record is longer than the 64 KiB
/// sniffing window (long `-L` values), also with a byte-order mark, is read.
#[test]
fn command_results_with_a_long_first_record_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let values: Vec<String> = (0..15)
        .map(|i| format!("v{i:02}{}", "z".repeat(5000)))
        .collect();
    let status = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
        .current_dir(d)
        .args([
            "compare", "--old", "true", "--new", "true", "--bench", "{s}",
        ])
        .arg("-L")
        .arg(format!("s={}", values.join(",")))
        .args(["--runs", "2", "--results", "big.jsonl", "--csv", "x.csv"])
        .stdin(Stdio::null())
        .output()
        .expect("benchdiff runs");
    assert!(status.status.success(), "{status:?}");
    let text = std::fs::read(d.join("big.jsonl")).unwrap();
    let first = text.iter().position(|&b| b == b'\n').unwrap();
    assert!(first > 1 << 16, "first record {first} bytes");
    std::fs::write(
        d.join("bom.jsonl"),
        [b"\xEF\xBB\xBF".as_slice(), &text].concat(),
    )
    .unwrap();
    for f in ["big.jsonl", "bom.jsonl"] {
        let (code, out, err) = report(d, &[f]);
        assert_eq!(code, 0, "{f}: {err}");
        assert!(out.contains("15 comparisons"), "{f}: {out}");
    }
}
