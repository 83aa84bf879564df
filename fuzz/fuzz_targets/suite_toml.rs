//! The benchdiff.toml suite file reader, on any bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("benchdiff-fuzz-{}.toml", std::process::id()));
    if let Ok(mut f) = std::fs::File::create(&path)
        && f.write_all(data).is_ok()
    {
        let _ = benchdiff::run::plan::suite::load(&path);
    }
});
