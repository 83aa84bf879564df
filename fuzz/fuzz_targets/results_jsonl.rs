//! benchdiff's JSON Lines results file, as `--resume` reads it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("benchdiff-fuzz-{}.jsonl", std::process::id()));
    if let Ok(mut f) = std::fs::File::create(&path) {
        if f.write_all(data).is_ok() {
            let _ = benchdiff::source::runner::results::load(&path);
        }
    }
});
