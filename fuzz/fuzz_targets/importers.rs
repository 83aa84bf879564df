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
    // The same bytes after a UTF-8 byte-order mark read as without it (the mark is dropped
    // before any format sees the text), lenient importers included.
    let bom = [b"\xEF\xBB\xBF".as_slice(), data].concat();
    for f in FORMATS {
        let (mut a, mut b) = (
            benchdiff::sample::SampleSet::new(),
            benchdiff::sample::SampleSet::new(),
        );
        let ra = read_bytes(data, "fuzz", f, &ReadOptions::default(), &mut a).map(|i| i.samples);
        let rb = read_bytes(&bom, "fuzz", f, &ReadOptions::default(), &mut b).map(|i| i.samples);
        if !data.starts_with(b"\xEF\xBB\xBF")
            && !data.starts_with(b"\xFF\xFE")
            && !data.starts_with(b"\xFE\xFF")
        {
            assert_eq!(ra.ok(), rb.ok());
        }
    }
    let go = ReadOptions {
        sides_by: Some("note".to_owned()),
        ..ReadOptions::default()
    };
    let mut set = benchdiff::sample::SampleSet::new();
    let _ = read_bytes(data, "fuzz", Some(InputFormat::Go), &go, &mut set);
});
