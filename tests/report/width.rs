//! The verdict table at narrow widths: `benchdiff report` through `cli::run` with an explicit
//! terminal width (as the binary passes it from the terminal or `COLUMNS`), on the example Node
//! CSV and the Go case with long names; every table line fits, no verdict or flag word is
//! split, and dropped columns are named under the table.

use benchdiff::cli::{Io, run};

fn report(args: &[&str], width: u16) -> String {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut io = Io {
        stdout: &mut out,
        stderr: &mut err,
        color: false,
        width: Some(width),
        stdout_is_terminal: true,
        stderr_is_terminal: false,
    };
    let mut argv: Vec<std::ffi::OsString> = vec!["benchdiff".into(), "report".into()];
    argv.extend(args.iter().map(|a| a.into()));
    let _ = run(argv, &mut io);
    String::from_utf8_lossy(&out).into_owned()
}

/// The table block: from the header to the bottom rule, plus the hidden-columns note.
fn table_lines(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rules = 0;
    for l in s.lines().skip_while(|l| !l.starts_with(" benchmark")) {
        if rules == 2 && l.is_empty() {
            break;
        }
        if l.starts_with('─') {
            rules += 1;
        }
        lines.push(l);
    }
    lines
}

const WORDS: [&str; 10] = [
    "faster",
    "slower",
    "inconclusive",
    "no change",
    "too-few-samples",
    "multimodal(",
    "outliers(",
    "drift(",
    "regimes",
    "paired",
];

fn check(args: &[&str], width: u16) -> String {
    let s = report(args, width);
    let t = table_lines(&s);
    assert!(t.len() > 3, "{s}");
    for l in &t {
        assert!(
            unicode_width::UnicodeWidthStr::width(*l) <= usize::from(width),
            "line wider than {width}: {l:?}\n{s}"
        );
    }
    // Every verdict/flag word appears whole: its prefix never ends a cell line.
    for w in WORDS {
        for cut in 2..w.len() {
            let head = &w[..cut];
            for l in &t {
                for cell in l.split("  ") {
                    let c = cell.trim();
                    assert!(
                        !(c.ends_with(head)
                            && !c.ends_with(w)
                            && c.split(' ').next_back() == Some(head)),
                        "{w:?} split as {head:?} at width {width}:\n{s}"
                    );
                }
            }
        }
    }
    s
}

fn go_case() -> [String; 2] {
    let d = "tests/data/cases/13-go-output-noise";
    [format!("{d}/input-old.txt"), format!("{d}/input-new.txt")]
}

#[test]
fn node_example_fits_60_80_120() {
    for w in [60, 80, 120] {
        let s = check(&["examples/node-22-vs-24.csv"], w);
        assert!(s.contains("inconclusive") || s.contains("faster") || s.contains("slower"));
        if w == 60 {
            assert!(s.contains("columns left out to fit 60 columns"), "{s}");
        }
    }
}

#[test]
fn go_long_names_fit_60_80_120() {
    let [o, n] = go_case();
    for w in [60, 80, 120] {
        let s = check(&[&o, &n], w);
        assert!(s.contains("Echo"), "{s}");
        if w < 120 {
            assert!(s.contains("columns left out"), "{s}");
        }
    }
}

#[test]
fn correction_none_has_one_p_column() {
    let s = report(&["examples/node-22-vs-24.csv", "--correction", "none"], 200);
    assert!(!s.contains("p (none)"), "{s}");
}
