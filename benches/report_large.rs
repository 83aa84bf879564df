//! Speed of `benchdiff report` on a large compare.js CSV, against compare.R on the same file.
//!
//! Generates (once, reproducibly) 1,000,000 rows: 20,000 configurations × 2 binaries × 25 runs,
//! then times `benchdiff report --format F` on it for every format F as a child process: wall
//! seconds, user+sys CPU seconds and peak RSS (from `wait4`). With `--compare-r PATH` (Node's benchmark/compare.R, read into a scratch
//! folder, never committed) and `Rscript` on PATH, it also times compare.R on the same file in
//! the same run and prints the ratios. Goals (issue 16): ≤ 0.3 s wall and ≤ 120 MB per format (HTML ≤ 1 s).
//!
//! Then the importers at scale (goal: ≤ 0.5 s and ≤ 150 MB): the same samples as a 1M-line Go
//! benchmark file (written by `--format go`), and a generated ~217 MB results JSON Lines file
//! (1,000 command benchmarks × 2 sides × 160 runs). With `--big`, also a ~2 GB compare.js CSV
//! (the 1M-row file's pattern 24 times under other names), generated under the temporary folder
//! and deleted afterwards, read by `--format r` and `--format analyze` as `benchdiff` reads it
//! (over 256 MiB, in bounded memory: samples spilled to temporary partition files, see
//! `src/cli/large.rs`), then by `--format r` in memory (`--memory-limit` above its size)
//! for comparison; the peak RSS of each shows what the bounded read saves.
//!
//! Run: `cargo bench --bench report_large [-- [--compare-r /path/to/compare.R] [--big]
//! [--formats r,table,…]]` (`--formats`: only those formats, no importers)
//! (or `scripts/bench-report.sh [/path/to/compare.R]`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const CONFIGS: usize = 20_000;
const RUNS: usize = 25;

fn generate(path: &Path) -> std::io::Result<()> {
    let f = std::fs::File::create(path)?;
    let mut w = std::io::BufWriter::new(f);
    writeln!(
        w,
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\""
    )?;
    // xorshift64*: reproducible without a dependency.
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    };
    let types = ["'string'", "'buffer'", "'ascii'", "'utf8'"];
    for run in 0..RUNS {
        for c in 0..CONFIGS {
            let file = format!("cat{}/bench-{}.js", c % 37, c / 40);
            let conf = format!(
                "type={} len={} n={}",
                types[c % 4],
                16 << (c % 10),
                1000 * (1 + c % 40)
            );
            let base = 1e5 * (1.0 + (c % 97) as f64);
            for (bin, shift) in [("old", 1.0), ("new", 1.0 + 0.02 * ((c % 5) as f64 - 2.0))] {
                let rate = base * shift * (1.0 + 0.05 * (next() - 0.5));
                let time = 1000.0 * (1 + c % 40) as f64 / rate;
                writeln!(w, "\"{bin}\",\"{file}\",\"{conf}\",{rate},{time:.9}")?;
            }
        }
        let _ = run;
    }
    w.flush()
}

struct Measured {
    wall_s: f64,
    /// User + system CPU seconds of the child (from `wait4`): on a loaded machine the wall
    /// time says little, the CPU time much more.
    cpu_s: f64,
    max_rss_bytes: u64,
    ok: bool,
}

fn measure(mut cmd: Command, stdin: Option<&Path>) -> Measured {
    if let Some(p) = stdin {
        cmd.stdin(std::fs::File::open(p).expect("input file"));
    }
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let start = Instant::now();
    // Reaped below with wait4 (for its rusage), never through `Child`.
    #[allow(clippy::zombie_processes)]
    let child = cmd.spawn().expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let wall_s = start.elapsed().as_secs_f64();
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Measured {
        wall_s,
        cpu_s: secs(ru.ru_utime) + secs(ru.ru_stime),
        max_rss_bytes: ru.ru_maxrss as u64 * 1024,
        ok: r == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let compare_r = args
        .iter()
        .position(|a| a == "--compare-r")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("bench-data dir");
    let csv = dir.join("report-1m.csv");
    if !csv.exists() {
        let t = Instant::now();
        generate(&csv).expect("generate CSV");
        eprintln!(
            "generated {} in {:.1} s",
            csv.display(),
            t.elapsed().as_secs_f64()
        );
    }
    let size = std::fs::metadata(&csv).map(|m| m.len()).unwrap_or(0);
    let exe = env!("CARGO_BIN_EXE_benchdiff");
    println!(
        "input: {} rows ({CONFIGS} configurations x 2 binaries x {RUNS} runs), {:.1} MB",
        CONFIGS * 2 * RUNS,
        size as f64 / 1e6
    );
    // Every report format on the same file: median wall of 3 runs, peak RSS (goals: 0.3 s and
    // 120 MB; HTML 1 s), and user+sys CPU of the report process is `wall` x cores at most.
    let mut b_wall = f64::NAN;
    // `--formats r,table,…` times only those (and skips the importers).
    let only: Option<Vec<&str>> = args
        .iter()
        .position(|a| a == "--formats")
        .and_then(|i| args.get(i + 1))
        .map(|l| l.split(',').collect());
    for format in [
        "r",
        "table",
        "analyze",
        "markdown",
        "json",
        "csv",
        "benchstat",
        "go",
        "html",
    ] {
        if only.as_ref().is_some_and(|o| !o.contains(&format)) {
            continue;
        }
        let mut walls = Vec::new();
        let mut cpus = Vec::new();
        let mut rss = 0;
        for _ in 0..3 {
            let mut c = Command::new(exe);
            c.args(["report", "--format", format]).arg(&csv);
            let m = measure(c, None);
            assert!(m.ok, "benchdiff report --format {format} failed");
            walls.push(m.wall_s);
            cpus.push(m.cpu_s);
            rss = rss.max(m.max_rss_bytes);
        }
        let wall = median(walls.clone());
        if format == "r" {
            b_wall = wall;
        }
        println!(
            "benchdiff report --format {format:<9}: median wall {wall:.3} s (min {:.3} s, 3 runs), \
             user+sys CPU median {:.3} s (min {:.3} s), peak RSS {:.1} MB",
            walls.iter().cloned().fold(f64::INFINITY, f64::min),
            median(cpus.clone()),
            cpus.iter().cloned().fold(f64::INFINITY, f64::min),
            rss as f64 / 1e6
        );
    }
    if only.is_none() {
        importers(exe, &dir, &csv, args.iter().any(|a| a == "--big"));
    }
    if let Some(r) = compare_r {
        let mut c = Command::new("Rscript");
        c.arg(&r).env("LC_ALL", "C.UTF-8");
        let m = measure(c, Some(&csv));
        if !m.ok {
            println!(
                "Rscript compare.R failed or is not installed (Debian: r-base-core r-cran-plyr r-cran-ggplot2)"
            );
            return;
        }
        println!(
            "Rscript compare.R: wall {:.2} s, peak RSS {:.1} MB",
            m.wall_s,
            m.max_rss_bytes as f64 / 1e6
        );
        println!(
            "ratio benchdiff --format r / compare.R: wall {:.4} ({:.0}x faster)",
            b_wall / m.wall_s,
            m.wall_s / b_wall,
        );
    }
}

/// Times `benchdiff report ARGS… FILE` once (wall, user+sys CPU, peak RSS) and prints it under
/// `what` (goal for the importers: 0.5 s and 150 MB; CPU shows the work when the machine is
/// loaded and wall time is not the program's).
fn time_report(exe: &str, what: &str, file: &Path, extra: &[&str]) {
    let mut c = Command::new(exe);
    c.arg("report").args(extra).arg(file);
    let m = measure(c, None);
    println!(
        "{what:<44}: wall {:.3} s, user+sys CPU {:.3} s, peak RSS {:.1} MB{}",
        m.wall_s,
        m.cpu_s,
        m.max_rss_bytes as f64 / 1e6,
        if m.ok { "" } else { " (FAILED)" }
    );
}

/// A results JSON Lines file of command jobs: `benches` benchmarks × 2 sides × `runs` runs.
fn generate_results(path: &Path, benches: usize, runs: usize) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    let list: Vec<String> = (0..benches)
        .map(|b| {
            format!("{{\"name\":\"bench{b}\",\"template\":\"\",\"params\":[],\"exclusions\":[]}}")
        })
        .collect();
    writeln!(
        w,
        "{{\"type\":\"command-run\",\"benchdiff\":\"0.1.0\",\"started_unix_s\":1796079974.3,\
         \"targets\":[{{\"side\":\"old\",\"label\":\"/bin/true\",\"argv\":[\"/bin/true\"]}},\
         {{\"side\":\"new\",\"label\":\"/bin/true\",\"argv\":[\"/bin/true\"]}}],\"benchmarks\":[{}],\
         \"runs\":{runs},\"warmup\":0,\"order\":\"node\",\"seed\":1,\"shell\":false,\"timeout_s\":null,\
         \"prepare\":null,\"setup\":null,\"cleanup\":null,\"cpus\":null,\"jobs\":{}}}",
        list.join(","),
        benches * runs * 2
    )?;
    writeln!(
        w,
        "{{\"type\":\"machine\",\"cpus_online\":2,\"cpus_allowed\":2,\"governors\":{{}},\
         \"load_avg\":[0.1,0.1,0.1],\"busy\":[],\"pinned\":null,\"turbo\":null,\"turbo_source\":null,\"warnings\":[]}}"
    )?;
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut pos = 0usize;
    for run in 0..runs {
        for b in 0..benches {
            for side in ["old", "new"] {
                s ^= s >> 12;
                s ^= s << 25;
                s ^= s >> 27;
                let u = (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
                let shift = if side == "new" && b % 3 == 0 {
                    1.03
                } else {
                    1.0
                };
                let wall = 0.001 * (1 + b % 7) as f64 * shift * (1.0 + 0.05 * u);
                writeln!(
                    w,
                    "{{\"type\":\"command-job\",\"position\":{pos},\"benchmark\":\"bench{b}\",\"combination\":[],\
                     \"side\":\"{side}\",\"run\":{run},\"warmup\":false,\"argv\":[\"/bin/true\"],\"status\":\"ok\",\
                     \"exit_code\":0,\"signal\":null,\"wall_s\":{wall},\"user_s\":0.001,\"sys_s\":0.0,\
                     \"max_rss_bytes\":6623232,\"samples\":[{{\"name\":\"bench{b}\",\"configuration\":\"\",\
                     \"params\":[],\"rate\":{},\"time_s\":{wall},\"source\":\"whole-process\",\"metrics\":[\
                     {{\"name\":\"wall\",\"unit\":\"s\",\"better\":\"lower\",\"value\":{wall}}},\
                     {{\"name\":\"user\",\"unit\":\"s\",\"better\":\"lower\",\"value\":0.001}},\
                     {{\"name\":\"sys\",\"unit\":\"s\",\"better\":\"lower\",\"value\":0.0}},\
                     {{\"name\":\"max_rss\",\"unit\":\"bytes\",\"better\":\"lower\",\"value\":6623232.0}}]}}]}}",
                    1.0 / wall
                )?;
                pos += 1;
            }
        }
    }
    w.flush()
}

/// The importers at scale (see the module notes).
fn importers(exe: &str, dir: &Path, csv: &Path, big: bool) {
    let go = dir.join("report-1m.go");
    if !go.exists() {
        let out = std::fs::File::create(&go).expect("Go file");
        let ok = Command::new(exe)
            .args(["report", "--format", "go"])
            .arg(csv)
            .stdout(out)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "benchdiff report --format go failed");
    }
    time_report(exe, "1M-line Go file, table", &go, &[]);
    time_report(exe, "1M-line Go file, --format r", &go, &["--format", "r"]);
    time_report(
        exe,
        "1M-line Go file, --format benchstat",
        &go,
        &["--format", "benchstat"],
    );
    let jsonl = dir.join("results-217mb.jsonl");
    if !jsonl.exists() {
        generate_results(&jsonl, 1000, 160).expect("results file");
    }
    let mb = std::fs::metadata(&jsonl).map_or(0, |m| m.len()) as f64 / 1e6;
    time_report(
        exe,
        &format!("{mb:.0} MB results JSONL, --format r"),
        &jsonl,
        &["--format", "r"],
    );
    time_report(
        exe,
        &format!("{mb:.0} MB results JSONL, table"),
        &jsonl,
        &[],
    );
    // The HTML page plots the changed and flagged comparisons by default; every one here.
    time_report(
        exe,
        "1M-row CSV, --format html --plot-rows ''",
        csv,
        &["--format", "html", "--plot-rows", ""],
    );
    if big {
        let path = std::env::temp_dir().join(format!("benchdiff-2gb-{}.csv", std::process::id()));
        let one = std::fs::read(csv).expect("1M-row CSV");
        let body = &one[one.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1)..];
        {
            let mut w = std::io::BufWriter::new(std::fs::File::create(&path).expect("2 GB CSV"));
            w.write_all(&one[..one.len() - body.len()]).expect("write");
            for k in 0..24 {
                // The same rows under other file names: 24 x 20,000 configurations.
                let text = String::from_utf8_lossy(body).replace("\"cat", &format!("\"c{k}at"));
                w.write_all(text.as_bytes()).expect("write");
            }
            w.flush().expect("flush");
        }
        let gb = std::fs::metadata(&path).map_or(0, |m| m.len()) as f64 / 1e9;
        time_report(
            exe,
            &format!("{gb:.1} GB compare.js CSV, --format r"),
            &path,
            &["--format", "r"],
        );
        time_report(
            exe,
            &format!("{gb:.1} GB compare.js CSV, --format analyze"),
            &path,
            &["--format", "analyze"],
        );
        time_report(
            exe,
            &format!("{gb:.1} GB compare.js CSV, --format r, in memory"),
            &path,
            &["--format", "r", "--memory-limit", &u64::MAX.to_string()],
        );
        let _ = std::fs::remove_file(&path);
    }
}
