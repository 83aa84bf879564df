//! JSON result lines printed by command benchmarks (`{"name", "conf", "rate", "metrics"}`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = benchdiff::format::result_lines::parse_line(s);
    }
});
