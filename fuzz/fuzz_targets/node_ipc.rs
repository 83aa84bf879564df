//! Node IPC channel lines (JSON `config`/`report` messages and anything else a child sends).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = benchdiff::format::node_ipc::parse_message(data);
});
