//! benchdiff's JSON Lines results files, as `--resume` and `report` read them: the Node-file
//! run's loader and the command run's loader, streamed from memory.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = benchdiff::format::results::load_from(data, "fuzz");
    let _ = benchdiff::run::commands::load_results_from(data);
});
