//! Every importer (Go benchmark format, hyperfine, Google Benchmark, libtest, criterion,
//! pytest-benchmark, Node run.js CSV, compare.js CSV) and the content sniffer, on any text.
#![no_main]
use benchdiff::source::import::{InputFormat, ReadOptions, read_text};
use libfuzzer_sys::fuzz_target;

const FORMATS: [Option<InputFormat>; 9] = [
    None,
    Some(InputFormat::NodeCompareCsv),
    Some(InputFormat::NodeRunCsv),
    Some(InputFormat::Go),
    Some(InputFormat::Hyperfine),
    Some(InputFormat::GoogleBenchmark),
    Some(InputFormat::Libtest),
    Some(InputFormat::Criterion),
    Some(InputFormat::PytestBenchmark),
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for f in FORMATS {
        let mut set = benchdiff::sample::SampleSet::new();
        let _ = read_text(text, "fuzz", None, f, &ReadOptions::default(), &mut set);
    }
    let go = ReadOptions { sides_by: Some("note".to_owned()), ..ReadOptions::default() };
    let mut set = benchdiff::sample::SampleSet::new();
    let _ = read_text(text, "fuzz", None, Some(InputFormat::Go), &go, &mut set);
});
