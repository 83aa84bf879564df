//! Inputs the fuzzers (scripts/fuzz.sh) found crashing, kept as regression tests: each must
//! now be read or rejected with a diagnostic, never panic.

use benchdiff::format::node_csv::read_compare_csv;
use benchdiff::sample::SampleSet;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fuzz");

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A UTF-8 sequence split across two CSV fields (`\xC2","\xBB`) used to pass validation of
/// the joined fields and then panic when a field was sliced.
#[test]
fn compare_csv_utf8_split_across_fields() {
    let data = read("compare_csv-split-utf8.bin");
    let mut set = SampleSet::new();
    let r = read_compare_csv(&data[..], "crash.csv", &mut set);
    assert!(r.is_err());
    assert!(r.unwrap_err().to_string().contains("not valid UTF-8"));
    let mut set = SampleSet::new();
    let r = read_compare_csv(
        &b"binary,filename,configuration,rate\nold,\xC2,\xBB,1\n"[..],
        "t.csv",
        &mut set,
    );
    assert!(
        r.unwrap_err()
            .to_string()
            .contains("t.csv:2: not valid UTF-8 (at column 5)")
    );
}
