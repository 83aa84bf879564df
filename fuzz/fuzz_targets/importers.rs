//! Every importer (Go benchmark format, hyperfine, Google Benchmark, libtest, criterion,
//! pytest-benchmark, Node run.js CSV, compare.js CSV, results JSON Lines) and the content
//! sniffer, on any bytes, through the same streaming reader as files.
#![no_main]
use benchdiff::format::{InputFormat, ReadOptions, read_bytes};
use libfuzzer_sys::fuzz_target;

const FORMATS: [Option<InputFormat>; 10] = [
    None,
    Some(InputFormat::ResultsJsonl),
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
    for f in FORMATS {
        let mut set = benchdiff::sample::SampleSet::new();
        let _ = read_bytes(data, "fuzz", f, &ReadOptions::default(), &mut set);
    }
    let go = ReadOptions { sides_by: Some("note".to_owned()), ..ReadOptions::default() };
    let mut set = benchdiff::sample::SampleSet::new();
    let _ = read_bytes(data, "fuzz", Some(InputFormat::Go), &go, &mut set);
});
