//! benchdiff's JSON Lines results files, as `--resume` and `report` read them: the one
//! loader of Node-file and command runs, streamed from memory.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = benchdiff::format::results::load_from(data, "fuzz");
});
