//! compare.js CSV importer: any bytes either read or give positioned diagnostics, never panic;
//! the report pipeline then runs on whatever was read.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut set = benchdiff::sample::SampleSet::new();
    let _ = benchdiff::format::node_csv::read_compare_csv(data, "fuzz.csv", &mut set);
    let rows = benchdiff::verdict::rows(benchdiff::compare::group(&set));
    let _ = benchdiff::render::compare_r::render(&rows, 200);
});
