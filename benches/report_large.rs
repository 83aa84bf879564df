//! Wall time of `benchdiff report --format F` at realistic sizes, a new binary against an old
//! one, for every format on every input.
//!
//! Inputs (generated once, reproducibly, into `--data DIR`, default the target's bench temp
//! folder):
//! - `report-1m.csv`: a compare.js CSV of 1,000,000 rows (20,000 configurations × 2 binaries
//!   × 25 runs);
//! - `report-1m.go`: the same samples as a 1,000,000-line Go benchmark file (written by the
//!   new binary's `--format go`);
//! - `results-217mb.jsonl`: a results file of command jobs as `benchdiff compare` writes them
//!   (1,000 benchmarks × 2 sides × 160 runs, about 217 MB).
//!
//! For each input and format, the two binaries run in turn (old, new, old, new, …; one pair
//! not counted first), every run a child process timed from spawn to `wait4`: wall seconds,
//! user + system CPU seconds and peak RSS. Printed per format: the medians of each binary's
//! wall and CPU time, the median of the pairwise wall ratios new / old (pairing keeps the
//! ratio meaningful on a machine whose speed drifts), their range, the median pairwise CPU
//! ratio (what the work costs when other processes take the cores), and whether the first
//! pair's stdout and stderr are byte-identical. The load average is printed before and after.
//!
//! Without `--old`, only the new binary is timed. `--new-env K=V` / `--old-env K=V` set an
//! environment variable for one binary (e.g. `TMPDIR`). With `--big`, a
//! ~2 GB compare.js CSV (the 1M-row file's rows 24 times under other names) is generated in the
//! data folder, reported by the new binary in every format (peak RSS shows the bounded
//! read), and deleted.
//!
//! Run: `cargo bench --bench report_large -- [--old PATH] [--new PATH] [--runs N]
//! [--inputs csv,go,results] [--formats r,table,…] [--data DIR] [--new-env K=V]
//! [--old-env K=V] [--big]`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const CONFIGS: usize = 20_000;
const RUNS: usize = 25;
const FORMATS: [&str; 9] = [
    "r",
    "table",
    "analyze",
    "markdown",
    "json",
    "csv",
    "benchstat",
    "go",
    "html",
];

/// The command line: see the module notes.
struct Options {
    old: Option<PathBuf>,
    new: PathBuf,
    runs: usize,
    inputs: Vec<String>,
    formats: Vec<String>,
    data: PathBuf,
    old_env: Vec<(String, String)>,
    new_env: Vec<(String, String)>,
    big: bool,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| -> Vec<String> {
        args.windows(2)
            .filter(|w| w[0] == name)
            .map(|w| w[1].clone())
            .collect()
    };
    let one = |name: &str| value(name).pop();
    let list = |name: &str, all: &[&str]| -> Vec<String> {
        match one(name) {
            Some(l) => l.split(',').map(str::to_owned).collect(),
            None => all.iter().map(|s| (*s).to_owned()).collect(),
        }
    };
    let env = |name: &str| -> Vec<(String, String)> {
        value(name)
            .iter()
            .map(|kv| {
                let (k, v) = kv.split_once('=').expect("--*-env takes K=V");
                (k.to_owned(), v.to_owned())
            })
            .collect()
    };
    Options {
        old: one("--old").map(PathBuf::from),
        new: one("--new").map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_benchdiff")),
            PathBuf::from,
        ),
        runs: one("--runs").map_or(5, |n| n.parse().expect("--runs N")),
        inputs: list("--inputs", &["csv", "go", "results"]),
        formats: list("--formats", &FORMATS),
        data: one("--data").map_or_else(
            || PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report_large"),
            PathBuf::from,
        ),
        old_env: env("--old-env"),
        new_env: env("--new-env"),
        big: args.iter().any(|a| a == "--big"),
    }
}

/// xorshift64*: a reproducible stream of uniform numbers in [0, 1) without a dependency.
struct Uniform(u64);

impl Uniform {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The 1M-row compare.js CSV: every configuration once per run, as compare.js orders them.
fn generate_csv(path: &Path) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        w,
        "\"binary\",\"filename\",\"configuration\",\"rate\",\"time\""
    )?;
    let mut u = Uniform(0x9E37_79B9_7F4A_7C15);
    let types = ["'string'", "'buffer'", "'ascii'", "'utf8'"];
    for _run in 0..RUNS {
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
                let rate = base * shift * (1.0 + 0.05 * (u.next() - 0.5));
                let time = 1000.0 * (1 + c % 40) as f64 / rate;
                writeln!(w, "\"{bin}\",\"{file}\",\"{conf}\",{rate},{time:.9}")?;
            }
        }
    }
    w.flush()
}

/// A results file of command jobs in the shape `benchdiff compare` writes (a `command-run`
/// header, a `machine` record, then one `command-job` line per run): `benches` benchmarks ×
/// 2 sides × `runs` runs.
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
    let mut u = Uniform(0x9E37_79B9_7F4A_7C15);
    let mut pos = 0usize;
    for run in 0..runs {
        for b in 0..benches {
            for side in ["old", "new"] {
                let shift = if side == "new" && b % 3 == 0 {
                    1.03
                } else {
                    1.0
                };
                let wall = 0.001 * (1 + b % 7) as f64 * shift * (1.0 + 0.05 * u.next());
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

/// The ~2 GB compare.js CSV: the 1M-row file's rows 24 times, under other file names.
fn generate_big(csv: &Path, path: &Path) -> std::io::Result<()> {
    let one = std::fs::read(csv)?;
    let body = &one[one.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1)..];
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    w.write_all(&one[..one.len() - body.len()])?;
    for k in 0..24 {
        let text = String::from_utf8_lossy(body).replace("\"cat", &format!("\"c{k}at"));
        w.write_all(text.as_bytes())?;
    }
    w.flush()
}

/// One timed run of a child process.
struct Measured {
    wall_s: f64,
    /// User + system CPU seconds of the child (from `wait4`).
    cpu_s: f64,
    max_rss_bytes: u64,
    ok: bool,
}

/// Runs `cmd` (its output to `out`, or discarded) and times it from spawn to `wait4`.
fn measure(mut cmd: Command, out: Option<(&Path, &Path)>) -> Measured {
    match out {
        Some((stdout, stderr)) => {
            cmd.stdout(std::fs::File::create(stdout).expect("stdout file"));
            cmd.stderr(std::fs::File::create(stderr).expect("stderr file"));
        }
        None => {
            cmd.stdout(Stdio::null()).stderr(Stdio::null());
        }
    }
    cmd.stdin(Stdio::null());
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
        ok: r == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) < 2,
    }
}

/// True when files `a` and `b` hold the same bytes (read a block at a time: the harness stays
/// small, so the peak RSS of the children it forks is theirs).
fn same_bytes(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (Ok(fa), Ok(fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut ra, mut rb) = (std::io::BufReader::new(fa), std::io::BufReader::new(fb));
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = match ra.read(&mut ba) {
            Ok(n) => n,
            Err(_) => return false,
        };
        if rb.read_exact(&mut bb[..n]).is_err() || ba[..n] != bb[..n] {
            return false;
        }
        if n == 0 {
            return rb.read(&mut bb[..1]).is_ok_and(|m| m == 0);
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn load_avg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// A binary and the environment it runs with.
struct Binary<'a> {
    path: &'a Path,
    env: &'a [(String, String)],
}

impl Binary<'_> {
    fn report(&self, format: &str, input: &Path) -> Command {
        let mut c = Command::new(self.path);
        c.args(["report", "--format", format]).arg(input);
        for (k, v) in self.env {
            c.env(k, v);
        }
        c
    }
}

/// Times `format` on `input`: one pair not counted (its outputs compared), then `runs` pairs.
fn compare_format(
    o: &Options,
    new: &Binary<'_>,
    old: Option<&Binary<'_>>,
    input: &Path,
    what: &str,
    format: &str,
) {
    let out = |who: &str, stream: &str| o.data.join(format!("out.{who}.{stream}"));
    let first_new = measure(
        new.report(format, input),
        Some((&out("new", "stdout"), &out("new", "stderr"))),
    );
    assert!(
        first_new.ok,
        "new: benchdiff report --format {format} {what} failed"
    );
    let same = old.map(|old| {
        let first_old = measure(
            old.report(format, input),
            Some((&out("old", "stdout"), &out("old", "stderr"))),
        );
        assert!(
            first_old.ok,
            "old: benchdiff report --format {format} {what} failed"
        );
        let s = |stream| same_bytes(&out("old", stream), &out("new", stream));
        match (s("stdout"), s("stderr")) {
            (true, true) => "same output",
            (true, false) => "STDERR DIFFERS",
            (false, true) => "STDOUT DIFFERS",
            (false, false) => "STDOUT AND STDERR DIFFER",
        }
    });
    let (mut new_wall, mut new_cpu, mut old_wall, mut old_cpu) = (vec![], vec![], vec![], vec![]);
    let (mut ratios, mut cpu_ratios) = (vec![], vec![]);
    let (mut new_rss, mut old_rss) = (0u64, 0u64);
    for _ in 0..o.runs {
        let n = measure(new.report(format, input), None);
        assert!(
            n.ok,
            "new: benchdiff report --format {format} {what} failed"
        );
        new_wall.push(n.wall_s);
        new_cpu.push(n.cpu_s);
        new_rss = new_rss.max(n.max_rss_bytes);
        if let Some(old) = old {
            let m = measure(old.report(format, input), None);
            assert!(
                m.ok,
                "old: benchdiff report --format {format} {what} failed"
            );
            old_wall.push(m.wall_s);
            old_cpu.push(m.cpu_s);
            old_rss = old_rss.max(m.max_rss_bytes);
            ratios.push(n.wall_s / m.wall_s);
            cpu_ratios.push(n.cpu_s / m.cpu_s);
        }
    }
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:.3}–{hi:.3}")
    };
    let mut line = format!(
        "{what:<8} {format:<9} new {:>7.3} s (cpu {:.3} s, {:>5.0} MB)",
        median(new_wall.clone()),
        median(new_cpu),
        new_rss as f64 / 1e6
    );
    if let Some(same) = same {
        line += &format!(
            "  old {:>7.3} s (cpu {:.3} s, {:>5.0} MB)  new/old wall {:.3} [{}] cpu {:.3}  {same}",
            median(old_wall),
            median(old_cpu),
            old_rss as f64 / 1e6,
            median(ratios.clone()),
            range(&ratios),
            median(cpu_ratios)
        );
    }
    println!("{line}");
}

fn main() {
    let o = options();
    std::fs::create_dir_all(&o.data).expect("data folder");
    let csv = o.data.join("report-1m.csv");
    let go = o.data.join("report-1m.go");
    let results = o.data.join("results-217mb.jsonl");
    if !csv.exists() {
        generate_csv(&csv).expect("generate the CSV");
    }
    if !go.exists() && o.inputs.iter().any(|i| i == "go") {
        let file = std::fs::File::create(&go).expect("Go file");
        let ok = Command::new(&o.new)
            .args(["report", "--format", "go"])
            .arg(&csv)
            .stdout(file)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "benchdiff report --format go failed");
    }
    if !results.exists() && o.inputs.iter().any(|i| i == "results") {
        generate_results(&results, 1000, 160).expect("generate the results file");
    }
    let new = Binary {
        path: &o.new,
        env: &o.new_env,
    };
    let old = o.old.as_deref().map(|path| Binary {
        path,
        env: &o.old_env,
    });
    println!(
        "new: {} {:?}\nold: {} {:?}\nruns: {} pairs after one not counted; load average before: {}",
        o.new.display(),
        o.new_env,
        o.old
            .as_deref()
            .map_or("-".into(), |p| p.display().to_string()),
        o.old_env,
        o.runs,
        load_avg()
    );
    for input in &o.inputs {
        let path = match input.as_str() {
            "csv" => &csv,
            "go" => &go,
            "results" => &results,
            other => panic!("unknown input {other} (csv, go, results)"),
        };
        let mb = std::fs::metadata(path).map_or(0, |m| m.len()) as f64 / 1e6;
        println!("{input}: {} ({mb:.0} MB)", path.display());
        for format in &o.formats {
            compare_format(&o, &new, old.as_ref(), path, input, format);
        }
    }
    if o.big {
        let big = o.data.join("report-2gb.csv");
        generate_big(&csv, &big).expect("generate the 2 GB CSV");
        let gb = std::fs::metadata(&big).map_or(0, |m| m.len()) as f64 / 1e9;
        for format in &o.formats {
            let m = measure(new.report(format, &big), None);
            println!(
                "{gb:.1} GB CSV {format:<9} new: wall {:.1} s, cpu {:.1} s, peak RSS {:.0} MB{}",
                m.wall_s,
                m.cpu_s,
                m.max_rss_bytes as f64 / 1e6,
                if m.ok { "" } else { " (FAILED)" }
            );
        }
        let _ = std::fs::remove_file(&big);
    }
    println!("load average after: {}", load_avg());
}
