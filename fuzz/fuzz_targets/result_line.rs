//! Node result lines on stdout (`name key="v" key=1: 1,234.5`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = benchdiff::format::result_lines::node::parse_result_line(s);
    }
});
