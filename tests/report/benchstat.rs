//! `benchdiff report --format benchstat` against benchstat's own golden outputs
//! (tests/data/oracle/benchstat/*.stdout): every median, interval, change and p-value.
//!
//! Where benchdiff is given the same inputs with the equivalent options, the output is compared
//! byte for byte. Cases that use benchstat projections benchdiff does not have (`-row .name`,
//! a 3-column `-col /poly` with `-filter`) are compared number by number.

use assert_cmd::Command;
use std::path::PathBuf;

fn dir() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle/benchstat");
    assert!(p.is_dir(), "oracle folder {} is missing", p.display());
    p
}

fn run(args: &[&str]) -> String {
    let out = Command::cargo_bin("benchdiff")
        .expect("binary")
        .current_dir(dir())
        .args(["report", "--format", "benchstat"])
        .args(args)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).expect("golden file")
}

#[test]
fn two_files_match_crc_ignore_byte_for_byte() {
    // benchstat -ignore note crc-old.txt crc-new.txt: 72 rows, two units, geomeans.
    assert_eq!(
        run(&["crc-old.txt", "crc-new.txt"]),
        golden("crcIgnore.stdout")
    );
    // --label gives the same.
    assert_eq!(
        run(&["--label", "new=crc-new.txt", "--label", "old=crc-old.txt"]),
        golden("crcIgnore.stdout")
    );
}

#[test]
fn single_file_tables_match_crc_old_new() {
    // benchstat crc-old.txt crc-new.txt splits by the differing `note:`: one table per file,
    // which is what benchdiff prints for each file alone.
    let g = golden("crcOldNew.stdout");
    let (old, new) = g.split_at(
        g.find("note: hw acceleration enabled")
            .expect("second half"),
    );
    let old = old.replacen("note: hw acceleration disabled\n", "", 1);
    let strip = |s: &str| s.trim_end().to_owned();
    assert_eq!(
        strip(&run(&["crc-old.txt"])),
        strip(&old.replacen(
            "goos: darwin\n",
            "goos: darwin\nnote: hw acceleration disabled\n",
            1
        ))
    );
    let new_expected = format!("pkg: hash/crc32\ngoarch: amd64\ngoos: darwin\n{new}");
    assert_eq!(strip(&run(&["crc-new.txt"])), strip(&new_expected));
}

#[test]
fn col_note_cases_match_byte_for_byte() {
    for case in ["units", "zero", "smallSample", "issue19565", "issue19634"] {
        let out = run(&["--sides-by", "note", &format!("{case}.txt")]);
        assert_eq!(out, golden(&format!("{case}.stdout")), "{case}");
    }
}

/// Parses a benchstat value such as `46.55n`, `1.594Gi`, `100.0` or a CSV float.
fn value(tok: &str) -> f64 {
    let (num, mult) = [
        ("Ki", 1024f64),
        ("Mi", 1024f64.powi(2)),
        ("Gi", 1024f64.powi(3)),
        ("n", 1e-9),
        ("µ", 1e-6),
        ("m", 1e-3),
    ]
    .iter()
    .find_map(|(p, m)| tok.strip_suffix(p).map(|n| (n, *m)))
    .unwrap_or((tok, 1.0));
    num.parse::<f64>()
        .unwrap_or_else(|_| panic!("not a value: {tok}"))
        * mult
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 6e-4 * a.abs().max(b.abs())
}

#[test]
fn csv_old_new_numbers_agree() {
    // benchstat -format csv old.txt new.txt
    let out = run(&["old.txt", "new.txt"]);
    let g = golden("csvOldNew.stdout");
    for name in ["Encode/format=json-48", "Encode/format=gob-48", "geomean"] {
        let want: Vec<&str> = g
            .lines()
            .find(|l| l.starts_with(&format!("{name},")))
            .expect("golden row")
            .split(',')
            .collect();
        let got: Vec<&str> = out
            .lines()
            .find(|l| l.starts_with(name))
            .expect("row")
            .split_whitespace()
            .collect();
        assert!(close(value(got[1]), value(want[1])), "{name} old median");
        if name == "geomean" {
            assert!(close(value(got[2]), value(want[3])), "{name} new geomean");
            assert_eq!(got[3], want[5], "{name} change");
            continue;
        }
        assert_eq!(got[3], want[2], "{name} old ±");
        assert!(close(value(got[4]), value(want[3])), "{name} new median");
        assert_eq!(got[6], want[4], "{name} new ±");
        assert_eq!(got[7], want[5], "{name} change");
        assert_eq!(
            format!("{} {}", got[8], got[9]),
            format!("({})", want[6]),
            "{name} p"
        );
    }
}

#[test]
fn size_vs_poly_numbers_agree() {
    // benchstat -filter /align:0 -row /size -col /poly crc-new.txt: columns IEEE (base),
    // Castagnoli, Koopman. benchdiff compares two sides at a time: --sides-by /poly=A,B.
    let g = golden("crcSizeVsPoly.stdout");
    let (sec, bps) = g.split_at(g.find("B/s").expect("second table"));
    for (table, unit_idx) in [(sec, 0), (bps, 1)] {
        for (poly, col) in [("Castagnoli", 0usize), ("Koopman", 1)] {
            let out = run(&["--sides-by", &format!("/poly=IEEE,{poly}"), "crc-new.txt"]);
            let tables: Vec<&str> = out.split("\n\n").collect();
            let mine = tables[unit_idx];
            for size in ["15", "40", "512", "1kB", "4kB", "32kB"] {
                let want: Vec<&str> = table
                    .lines()
                    .find(|l| l.split_whitespace().next() == Some(size))
                    .expect("golden row")
                    .split_whitespace()
                    .collect();
                let row = format!("CRC32/size={size}/align=0-8");
                let got: Vec<&str> = mine
                    .lines()
                    .find(|l| l.split_whitespace().next() == Some(row.as_str()))
                    .expect("row")
                    .split_whitespace()
                    .collect();
                // want: size, base ± X%, then per column: value ± X% change (p=… n=…)
                let w = &want[1..];
                let wc = &w[3 + col * 6..3 + col * 6 + 6];
                assert!(close(value(got[1]), value(w[0])), "{row} {poly} base");
                assert_eq!(got[3], w[2], "{row} base ±");
                assert!(close(value(got[4]), value(wc[0])), "{row} {poly} value");
                assert_eq!(got[6], wc[2], "{row} {poly} ±");
                assert_eq!(got[7], wc[3], "{row} {poly} change");
                assert_eq!(got[8..10], wc[4..6], "{row} {poly} p");
            }
        }
    }
}

#[test]
fn merged_rows_of_csv_errors_agree() {
    // benchstat -format csv -row .name new.txt merges both formats into one row `Encode`:
    // median 2.2530000000000003e-06 with a 37% interval.
    use benchdiff::format::{self as import, ReadOptions};
    use benchdiff::render::benchstat::summarize;
    use benchdiff::sample::SampleSet;
    let mut set = SampleSet::new();
    import::read_path(
        dir().join("new.txt").to_str().expect("utf-8"),
        None,
        &ReadOptions::default(),
        &mut set,
    )
    .expect("read");
    let v: Vec<f64> = set.samples().iter().map(|s| s.value).collect();
    let s = summarize(&v, false, 0.95);
    assert!(
        (s.center - 2.2530000000000003e-06).abs() < 1e-18,
        "{}",
        s.center
    );
    assert_eq!(format!("{:.0}%", s.range.expect("bounded") * 100.0), "37%");
}

#[test]
fn lower_is_better_sign_in_the_verdict_table() {
    // crc: sec/op fell 76% for IEEE/512 — faster. The verdict table (primary metric sec/op,
    // lower is better) must call it faster, not slower.
    let out = Command::cargo_bin("benchdiff")
        .expect("binary")
        .current_dir(dir())
        .args(["report", "crc-old.txt", "crc-new.txt"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("CRC32/poly=IEEE/size=512/align=0-8"))
        .unwrap_or_else(|| panic!("row missing:\n{text}"));
    assert!(line.contains("faster"), "{line}");
    assert!(!line.contains("slower"), "{line}");
}

/// A column with no sample of a metric has a blank geomean cell (with `?` and the note that
/// the benchmark sets differ), in the two-column view as in the view of more columns; never
/// `NaN`.
#[test]
fn a_column_without_the_metric_has_a_blank_geomean() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let old = tmp.path().join("o.txt");
    let new = tmp.path().join("n.txt");
    let mut o = String::new();
    let mut n = String::new();
    for (b, t) in [("A", 10), ("B", 20)] {
        for i in 0..6 {
            o.push_str(&format!("Benchmark{b}-8 100 {} ns/op 5 X/op\n", t + i));
            n.push_str(&format!("Benchmark{b}-8 100 {} ns/op\n", t + i));
        }
    }
    std::fs::write(&old, o).expect("write");
    std::fs::write(&new, n).expect("write");
    let (old, new) = (old.to_str().expect("path"), new.to_str().expect("path"));
    for args in [vec![old, new], vec![old, new, new]] {
        let out = run(&args);
        let table = &out[out.find("X/op").expect("the X/op table")..];
        let geomean: Vec<&str> = table
            .lines()
            .find(|l| l.starts_with("geomean"))
            .expect("geomean row")
            .split_whitespace()
            .collect();
        let mut want = vec!["geomean", "5.000"];
        for _ in 2..=args.len() {
            want.extend(["?", "¹"]);
        }
        assert_eq!(geomean, want, "{out}");
        assert!(
            table.contains("¹ benchmark set differs from baseline"),
            "{out}"
        );
    }
}
