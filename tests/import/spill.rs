//! A large compare.js CSV is read in bounded memory: from `report --memory-limit BYTES` of
//! input on (256 MiB by default) its samples are spilled to temporary partition files by
//! benchmark and analysed partition by partition. These tests lower the limit so that a small
//! file is spilled, and check that stdout, stderr, the exit code and the files written are
//! those of the in-memory report, byte for byte, for every format and option: rows of a
//! comparison spread over the whole file (not contiguous), names that need quoting or R
//! escapes, a benchmark on one side only, a constant comparison and negative rates (notes on
//! stderr), too few samples (a warning), `-o FILE`, a malformed row (the error names the file
//! and line), the plot, the gate, another metric, the table's details, labelled files,
//! several files and standard input.

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// Runs `benchdiff report ARGS… FILE` with `--memory-limit spill` (the default when `None`);
/// returns (exit code, stdout, stderr).
fn report(file: &Path, args: &[&str], spill: Option<u64>) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_benchdiff"));
    c.arg("report").args(args);
    if let Some(s) = spill {
        c.arg("--memory-limit").arg(s.to_string());
    }
    c.arg(file);
    let out = c.output().expect("benchdiff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A compare.js CSV of `configs` configurations × 2 binaries × `runs` runs, runs outermost (so
/// a comparison's rows are spread over the whole file), plus the special benchmarks of the
/// module doc. Rates are reproducible (xorshift).
fn csv(configs: usize, runs: usize) -> String {
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut out = String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for run in 0..runs {
        for c in 0..configs {
            let file = format!("cat{}/bench-{}.js", c % 7, c / 11);
            let conf = match c % 5 {
                0 => format!("type='string' n={c}"),
                1 => format!("type=\"\"quoted\"\" n={c}"),
                2 => format!("naïve=été n={c}"),
                3 => String::new(),
                _ => format!("back\\slash n={c}"),
            };
            // The new side first in odd runs.
            let sides: [(&str, f64); 2] = if run % 2 == 0 {
                [("old", 1.0), ("new", 1.0 + 0.03 * ((c % 3) as f64 - 1.0))]
            } else {
                [("new", 1.0 + 0.03 * ((c % 3) as f64 - 1.0)), ("old", 1.0)]
            };
            for (bin, shift) in sides {
                let rate = 1e5 * (1.0 + (c % 13) as f64) * shift * (1.0 + 0.05 * (next() - 0.5));
                out.push_str(&format!(
                    "\"{bin}\",\"{file}\",\"{conf}\",{rate},{:.9}\n",
                    1000.0 / rate
                ));
            }
        }
        // Constant and equal on both sides: no t-test (a note on stderr).
        for bin in ["old", "new"] {
            out.push_str(&format!("\"{bin}\",\"z/const.js\",\"n=1\",500,0.002\n"));
        }
        // Negative rates (a warning on stderr).
        out.push_str(&format!(
            "\"old\",\"z/neg.js\",\"n=1\",{},1\n",
            -1.0 - next()
        ));
        out.push_str(&format!(
            "\"new\",\"z/neg.js\",\"n=1\",{},1\n",
            -1.5 - next()
        ));
        // On the old side only.
        out.push_str(&format!(
            "\"old\",\"z/old-only.js\",\"n=1\",{},1\n",
            10.0 + next()
        ));
        // Two runs only: too few samples for any verdict (a warning).
        if run < 2 {
            out.push_str(&format!(
                "\"old\",\"z/few.js\",\"n=1\",{},1\n",
                10.0 + next()
            ));
            out.push_str(&format!(
                "\"new\",\"z/few.js\",\"n=1\",{},1\n",
                11.0 + next()
            ));
        }
    }
    out
}

/// The spill thresholds tried: every partition count from many (1 byte: 256 partitions) to a
/// few (a third of the file).
fn thresholds(size: u64) -> [u64; 3] {
    [1, size / 40, size / 3]
}

#[test]
fn bounded_r_report_is_the_in_memory_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("results.csv");
    // About 2.4 MB: more than one block of the parallel reader.
    let text = csv(600, 30);
    std::fs::write(&path, &text).expect("write CSV");
    let size = text.len() as u64;
    assert!(size > 2 << 20, "{size} bytes");
    let want = report(&path, &["--format", "r"], None);
    assert_eq!(want.0, 0, "{}", want.2);
    assert!(want.1.contains("there are 604 comparisons"), "{}", want.1);
    assert!(want.1.contains("cat1/bench-0.js type=\"quoted\" n=1 "));
    assert!(want.1.contains("back\\\\slash n=4"));
    for note in [
        "z/const.js n=1: both sides are constant and equal",
        "1 comparison(s) have values < 0 (first: z/neg.js n=1)",
        "2 comparison(s) have too few samples for any verdict (first: z/few.js n=1, 2+2",
    ] {
        assert!(want.2.contains(note), "{note} not in {}", want.2);
    }
    for t in thresholds(size) {
        assert_eq!(
            report(&path, &["--format", "r"], Some(t)),
            want,
            "threshold {t}"
        );
    }
    // compare.js's layout: first-seen order, the one-sided benchmark listed on stderr, the
    // corrected count under each correction.
    for args in [
        &["--format", "analyze"][..],
        &["--format", "analyze", "--correction", "bh"],
        &["--format", "analyze", "--correction", "none"],
    ] {
        let want = report(&path, args, None);
        assert_eq!(want.0, 0, "{}", want.2);
        assert!(
            want.2
                .contains("1 benchmark only in old (first: z/old-only.js n=1)")
        );
        assert!(want.1.contains("significant at 5%"), "{}", want.1);
        for t in thresholds(size) {
            assert_eq!(
                report(&path, args, Some(t)),
                want,
                "{args:?}, threshold {t}"
            );
        }
    }
    // The default threshold (256 MiB) leaves this file in memory: the same again.
    assert_eq!(report(&path, &["--format", "r"], Some(u64::MAX)), want);
    // -o FILE: the same bytes in the file, nothing on stdout.
    let out = dir.path().join("r.txt");
    let o = out.to_str().expect("UTF-8 path");
    let got = report(&path, &["--format", "r", "-o", o], Some(1));
    assert_eq!((got.0, got.1.as_str(), &got.2), (0, "", &want.2));
    assert_eq!(std::fs::read_to_string(&out).expect("-o file"), want.1);
    // The default table and the Markdown comment: their notes, under each correction and
    // another threshold, and -o.
    for args in [
        &[][..],
        &["--correction", "bh", "--threshold", "3"],
        &["--correction", "none"],
        &["--format", "markdown"],
        &[
            "--format",
            "markdown",
            "--correction",
            "bh",
            "--threshold",
            "3",
        ],
    ] {
        let want = report(&path, args, None);
        assert_eq!(want.0, 0, "{}", want.2);
        assert!(
            want.1
                .contains("1 benchmark only in old (first: z/old-only.js n=1)"),
            "{}",
            want.1
        );
        assert!(want.1.contains("z/few.js n=1: too few samples (2+2)"));
        for t in thresholds(size) {
            assert_eq!(
                report(&path, args, Some(t)),
                want,
                "{args:?}, threshold {t}"
            );
        }
    }
    // The JSON document: its comparisons (rank tests, every side's drift test, compare.R's
    // accuracy) and the rest (summary, geomean, the benchmark on one side only), under each
    // correction and another threshold.
    for args in [
        &["--format", "json"][..],
        &["--format", "json", "--correction", "bh", "--threshold", "3"],
        &["--format", "json", "--correction", "none"],
    ] {
        let want = report(&path, args, None);
        assert_eq!(want.0, 0, "{}", want.2);
        let doc: serde_json::Value = serde_json::from_str(&want.1).expect("a JSON document");
        assert_eq!(doc["summary"]["comparisons"], 603, "{}", doc["summary"]);
        assert_eq!(doc["only_old"], serde_json::json!(["z/old-only.js n=1"]));
        assert!(want.1.contains("\"rank_sum\": {"));
        assert!(want.1.contains("\"p95\": "));
        for t in thresholds(size) {
            assert_eq!(
                report(&path, args, Some(t)),
                want,
                "{args:?}, threshold {t}"
            );
        }
    }
    // The HTML page: more than 200 comparisons, so the changed and flagged ones get a strip
    // plot each (and those --plot-rows names), the others are rows of its table only.
    for args in [
        &["--format", "html"][..],
        &[
            "--format",
            "html",
            "--correction",
            "none",
            "--threshold",
            "3",
        ],
        &["--format", "html", "--plot-rows", "z/"],
    ] {
        let want = report(&path, args, None);
        assert_eq!(want.0, 0, "{}", want.2);
        assert!(want.1.contains("data-plot=\"strip\""), "{args:?}");
        assert!(want.1.contains("comparisons are plotted below"), "{args:?}");
        assert!(
            want.1
                .contains("1 benchmark only in old (first: z/old-only.js n=1)"),
            "{args:?}"
        );
        assert_eq!(
            want.1.contains("<a href=\"#cmp-602\">z/neg.js n=1</a>"),
            args.contains(&"--plot-rows"),
            "{args:?}"
        );
        for t in thresholds(size) {
            assert_eq!(
                report(&path, args, Some(t)),
                want,
                "{args:?}, threshold {t}"
            );
        }
    }
    for format in ["table", "markdown", "json", "html"] {
        let want = report(&path, &["--format", format], None);
        let got = report(&path, &["--format", format, "-o", o], Some(1));
        assert_eq!((got.0, got.1.as_str(), &got.2), (0, "", &want.2));
        assert_eq!(std::fs::read_to_string(&out).expect("-o file"), want.1);
    }
    // The table's --details and --metric: the same report at every limit.
    for args in [&["--details"][..], &["--format", "csv", "--metric", "rate"]] {
        assert_eq!(
            report(&path, args, Some(1)),
            report(&path, args, None),
            "{args:?}"
        );
    }
}

/// `--format csv`, `go` and `benchstat` through the bounded path: the samples rewritten in
/// arrival order (the CSV's notes on stderr: values below 0, no Welch test), the Go lines per
/// side, benchstat's table with its notes and geomean; with `-o` (the file holds the output,
/// stdout is empty); a file of one side only (benchstat's one column, the
/// others' error) and one without rows; a malformed row; no temporary folder.
#[test]
fn bounded_csv_go_and_benchstat_are_the_in_memory_outputs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("samples.csv");
    let text = csv(600, 30);
    std::fs::write(&path, &text).expect("write CSV");
    let size = text.len() as u64;
    let out = dir.path().join("out.txt");
    let o = out.to_str().expect("UTF-8 path");
    for format in ["csv", "go", "benchstat"] {
        let want = report(&path, &["--format", format], None);
        assert_eq!(want.0, 0, "{}", want.2);
        match format {
            // The same rows again, in the same order.
            "csv" => {
                assert_eq!(want.1.lines().count(), text.lines().count());
                assert!(
                    want.1
                        .contains("\"new\",\"cat1/bench-0.js\",\"type=\"\"quoted\"\" n=1\",")
                );
                for note in [
                    "z/const.js n=1: both sides are constant and equal",
                    "1 comparison(s) have values < 0 (first: z/neg.js n=1)",
                ] {
                    assert!(want.2.contains(note), "{note} not in {}", want.2);
                }
            }
            "go" => {
                assert!(
                    want.1
                        .starts_with("Unit ops/s better=higher\n\nbinary: old\n\n")
                );
                assert!(
                    want.1
                        .contains("\nbinary: new\n\nBenchmarkNode:cat0/bench-0.js:")
                );
            }
            _ => {
                assert!(want.1.contains("vs base"), "{}", want.1);
                assert!(want.1.contains("\ngeomean "), "{}", want.1);
                assert!(want.1.contains("z/old-only.js n=1"), "{}", want.1);
                assert!(want.1.contains("need >= 6 samples"), "{}", want.1);
                assert!(want.1.contains("all samples are equal"), "{}", want.1);
            }
        }
        for t in thresholds(size) {
            assert_eq!(
                report(&path, &["--format", format], Some(t)),
                want,
                "{format}, threshold {t}"
            );
        }
        let _ = std::fs::remove_file(&out);
        let got = report(&path, &["--format", format, "-o", o], Some(1));
        assert_eq!(
            got,
            report(&path, &["--format", format, "-o", o], None),
            "{format} -o"
        );
        assert_eq!((got.0, got.1.as_str(), &got.2), (0, "", &want.2));
        assert_eq!(std::fs::read_to_string(&out).expect("-o file"), want.1);
    }
    // One side only: benchstat's one column, the error of the others; no rows: an error.
    let one = dir.path().join("one.csv");
    let mut old_only =
        String::from("\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n");
    for (i, line) in text.lines().skip(1).enumerate() {
        if line.starts_with("\"old\"") && i % 3 != 0 {
            old_only.push_str(line);
            old_only.push('\n');
        }
    }
    std::fs::write(&one, &old_only).expect("write");
    let empty = dir.path().join("empty.csv");
    std::fs::write(
        &empty,
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n",
    )
    .expect("write");
    for format in ["csv", "go", "benchstat"] {
        let want = report(&one, &["--format", format], None);
        assert_eq!(
            want.0,
            if format == "benchstat" { 0 } else { 2 },
            "{want:?}"
        );
        let want_empty = report(&empty, &["--format", format], None);
        assert_eq!(want_empty.0, 2, "{want_empty:?}");
        for t in [1, old_only.len() as u64 / 10] {
            assert_eq!(
                report(&one, &["--format", format], Some(t)),
                want,
                "{format} {t}"
            );
        }
        assert_eq!(report(&empty, &["--format", format], Some(1)), want_empty);
    }
    // A malformed row: the error names its line, nothing on stdout.
    let bad = dir.path().join("bad.csv");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[30_000] = "\"new\",\"cat1/bench-3.js\",\"n=1\",fast,0.1";
    std::fs::write(&bad, lines.join("\n") + "\n").expect("write");
    for format in ["csv", "go", "benchstat"] {
        let want = report(&bad, &["--format", format], None);
        assert_eq!((want.0, want.1.as_str()), (2, ""), "{want:?}");
        assert!(
            want.2.contains(":30001: rate 'fast' is not a number"),
            "{}",
            want.2
        );
        assert_eq!(
            report(&bad, &["--format", format], Some(1)),
            want,
            "{format}"
        );
    }
}

#[test]
fn bounded_r_report_names_the_line_of_a_malformed_row() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.csv");
    let text = csv(600, 30);
    let mut lines: Vec<&str> = text.lines().collect();
    // Well past the first block of the reader (1 MiB).
    let bad = 30_001;
    lines[bad - 1] = "\"new\",\"cat1/bench-3.js\",\"n=1\",fast,0.1";
    let mut f = std::fs::File::create(&path).expect("create");
    for l in &lines {
        writeln!(f, "{l}").expect("write");
    }
    drop(f);
    let want = report(&path, &["--format", "r"], None);
    assert_eq!(want.0, 2, "{want:?}");
    let name = path.display().to_string();
    assert!(
        want.2
            .contains(&format!("{name}:{bad}: rate 'fast' is not a number")),
        "{}",
        want.2
    );
    for t in thresholds(text.len() as u64) {
        assert_eq!(
            report(&path, &["--format", "r"], Some(t)),
            want,
            "threshold {t}"
        );
    }
}

#[test]
fn bounded_r_report_of_one_side_only_or_no_rows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let one = dir.path().join("one.csv");
    std::fs::write(
        &one,
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n\
         \"old\",\"a.js\",\"n=1\",1,1\n\"old\",\"a.js\",\"n=1\",2,1\n",
    )
    .expect("write");
    let empty = dir.path().join("empty.csv");
    std::fs::write(
        &empty,
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\"\n",
    )
    .expect("write");
    for path in [&one, &empty] {
        let want = report(&path.clone(), &["--format", "r"], None);
        assert_eq!(want.0, 2, "{want:?}");
        assert_eq!(report(path, &["--format", "r"], Some(1)), want);
    }
}

/// Two files concatenated with `cat`, the second with its columns in another order and with
/// Windows line ends, and its 200 configurations also in the first (their samples pooled): the
/// bounded path reads them as the in-memory path does (the reader re-reads a block with a
/// header line by line).
#[test]
fn bounded_r_report_of_concatenated_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cat.csv");
    let first = csv(300, 12);
    let mut second =
        String::from("\"filename\",\"binary\",\"configuration\",\"time\",\"rate\"\r\n");
    for line in csv(200, 10).lines().skip(1) {
        // "binary","filename","configuration",rate,time -> filename,binary,configuration,time,rate
        let f: Vec<&str> = line.splitn(3, ',').collect();
        let (rest, nums) = f[2]
            .rsplit_once(',')
            .and_then(|(a, time)| {
                a.rsplit_once(',')
                    .map(|(conf, rate)| (conf.to_owned(), (rate.to_owned(), time.to_owned())))
            })
            .expect("five fields");
        second.push_str(&format!(
            "{},{},{rest},{},{}\r\n",
            f[1], f[0], nums.1, nums.0
        ));
    }
    std::fs::write(&path, format!("{first}{second}")).expect("write");
    let want = report(&path, &["--format", "r"], None);
    assert_eq!(want.0, 0, "{}", want.2);
    assert!(want.1.contains("there are 304 comparisons"), "{}", want.1);
    for t in [1, 100_000] {
        assert_eq!(
            report(&path, &["--format", "r"], Some(t)),
            want,
            "threshold {t}"
        );
    }
}

/// `TMPDIR` naming no folder: no temporary file can be created, so the file is read in memory
/// after a note naming the folder (not silently: the in-memory read may need far more
/// memory); stdout and the exit code are those of the in-memory path, and the rest of stderr
/// too.
#[test]
fn bounded_r_report_without_a_temporary_folder_says_so_and_reads_in_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("r.csv");
    std::fs::write(&path, csv(40, 6)).expect("write");
    let missing = dir.path().join("no-such-folder");
    for format in [
        "r",
        "analyze",
        "table",
        "markdown",
        "json",
        "html",
        "csv",
        "go",
        "benchstat",
    ] {
        let want = report(&path, &["--format", format], None);
        assert_eq!(want.0, 0, "{}", want.2);
        let out = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
            .args(["report", "--memory-limit", "1", "--format", format])
            .arg(&path)
            .env("TMPDIR", &missing)
            .output()
            .expect("benchdiff runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), want.1);
        let (note, rest) = stderr.split_once('\n').expect("a note line");
        assert!(
            note.starts_with(&format!(
                "benchdiff: note: {}: the temporary files of a bounded-memory read (in {}) \
                 failed (",
                path.display(),
                missing.display()
            )) && note.ends_with("); reading it in memory"),
            "{note}"
        );
        assert_eq!(rest, want.2);
    }
}

/// A `--memory-limit` that is not a whole number of bytes from 1 on is a usage error naming
/// the value (exit 2, nothing on stdout).
#[test]
fn a_memory_limit_that_is_not_a_number_of_bytes_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("small.csv");
    std::fs::write(&path, csv(20, 6)).expect("write CSV");
    for bad in ["abc", "1e3", "256MiB", "-1", "", "0"] {
        let out = Command::new(env!("CARGO_BIN_EXE_benchdiff"))
            .args(["report", "--format", "r"])
            .arg(format!("--memory-limit={bad}"))
            .arg(&path)
            .output()
            .expect("benchdiff runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(out.stdout.is_empty(), "{bad}");
        assert!(
            stderr.contains(&format!("'{bad}'")) && stderr.contains("--memory-limit <BYTES>"),
            "{bad}: {stderr}"
        );
    }
}

/// Runs `benchdiff report ARGS…` in `dir` with `--memory-limit spill` (the default when
/// `None`) and `stdin` on standard input; returns (exit code, stdout, stderr) and the bytes of
/// every file of `outputs` it wrote (empty when none).
fn report_args(
    dir: &Path,
    args: &[&str],
    spill: Option<u64>,
    stdin: Option<&[u8]>,
    outputs: &[&str],
) -> ((i32, String, String), Vec<Vec<u8>>) {
    for o in outputs {
        let _ = std::fs::remove_file(dir.join(o));
    }
    let mut c = Command::new(env!("CARGO_BIN_EXE_benchdiff"));
    c.current_dir(dir).arg("report");
    if let Some(s) = spill {
        c.arg("--memory-limit").arg(s.to_string());
    }
    c.args(args);
    c.stdin(std::process::Stdio::piped());
    c.stdout(std::process::Stdio::piped());
    c.stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("benchdiff runs");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.unwrap_or_default().to_vec();
    let feed = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("benchdiff ends");
    feed.join().expect("stdin written");
    let files = outputs
        .iter()
        .map(|o| std::fs::read(dir.join(o)).unwrap_or_default())
        .collect();
    (
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ),
        files,
    )
}

/// Every report option gives the same report (stdout, stderr, exit code and the files it
/// writes) whether the input is read in memory or spilled to temporary files: the plot, the
/// gate, another metric, the table's details, labelled files, several files, standard input,
/// and the Go and benchstat outputs of inputs that carry configuration lines and exact units.
#[test]
fn every_option_reports_the_same_at_every_size() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let text = csv(120, 10);
    std::fs::write(d.join("a.csv"), &text).expect("write CSV");
    std::fs::write(d.join("b.csv"), csv(30, 8)).expect("write CSV");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle/benchstat");
    for f in ["old.txt", "new.txt", "units.txt"] {
        std::fs::copy(data.join(f), d.join(f)).expect("copy Go input");
    }
    let formats = [
        "table",
        "r",
        "analyze",
        "markdown",
        "json",
        "html",
        "csv",
        "go",
        "benchstat",
    ];
    let mut cases: Vec<(Vec<&str>, Vec<&str>, bool)> = Vec::new();
    for format in formats {
        let f = ["--format", format];
        let with = |more: &[&'static str]| [&f[..], more].concat();
        cases.push((with(&["--plot", "p.svg", "a.csv"]), vec!["p.svg"], false));
        cases.push((with(&["--max-regression", "1", "a.csv"]), vec![], false));
        cases.push((with(&["--max-regression", "50", "a.csv"]), vec![], false));
        cases.push((with(&["--metric", "rate", "a.csv"]), vec![], false));
        cases.push((with(&["--metric", "time", "a.csv"]), vec![], false));
        cases.push((
            with(&["--label", "old=a.csv", "--label", "new=b.csv"]),
            vec![],
            false,
        ));
        cases.push((with(&["a.csv", "b.csv"]), vec![], false));
        cases.push((with(&["-"]), vec![], true));
        cases.push((with(&["old.txt", "new.txt"]), vec![], false));
        cases.push((with(&["--sides-by", "note", "old.txt"]), vec![], false));
        cases.push((with(&["units.txt", "units.txt"]), vec![], false));
    }
    cases.push((vec!["--details", "a.csv"], vec![], false));
    cases.push((
        vec![
            "--format",
            "html",
            "--plot-rows",
            "z/",
            "--plot",
            "p.svg",
            "a.csv",
        ],
        vec!["p.svg"],
        false,
    ));
    for (args, outputs, stdin) in &cases {
        let input = stdin.then_some(text.as_bytes());
        let want = report_args(d, args, None, input, outputs);
        assert_ne!(want.0.0, -1, "{args:?}: {want:?}");
        for t in [1, text.len() as u64 / 3] {
            let got = report_args(d, args, Some(t), input, outputs);
            assert_eq!(got, want, "{args:?}, threshold {t}");
        }
    }
}
