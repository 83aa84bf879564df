//! Issue 14's lenient paths: any bytes as UTF-16 (both byte orders, with a byte-order mark)
//! through every importer, the streaming UTF-16 decoder against the standard library's, and
//! the lenient JSON document reader (text around the document, bare `NaN`/`Infinity`).
#![no_main]
use benchdiff::format::{
    Encoding, InputFormat, ReadOptions, Utf16Reader, json_document, read_bytes,
};
use libfuzzer_sys::fuzz_target;
use std::io::Read as _;

fuzz_target!(|data: &[u8]| {
    // The decoder: same text as String::from_utf16_lossy, in both byte orders.
    for (enc, le) in [(Encoding::Utf16Le, true), (Encoding::Utf16Be, false)] {
        let mut out = String::new();
        if Utf16Reader::new(data, enc)
            .read_to_string(&mut out)
            .is_err()
        {
            panic!("decoding never fails");
        }
        let units: Vec<u16> = data
            .chunks_exact(2)
            .map(|c| {
                if le {
                    u16::from_le_bytes([c[0], c[1]])
                } else {
                    u16::from_be_bytes([c[0], c[1]])
                }
            })
            .collect();
        let mut want = String::from_utf16_lossy(&units);
        if data.len() % 2 == 1 {
            want.push('\u{FFFD}');
        }
        assert_eq!(out, want);
    }
    // Every importer on the bytes behind a UTF-16LE and a UTF-16BE mark.
    for bom in [[0xFFu8, 0xFE], [0xFE, 0xFF]] {
        let bytes = [bom.as_slice(), data].concat();
        for f in [
            None,
            Some(InputFormat::Go),
            Some(InputFormat::Hyperfine),
            Some(InputFormat::GoogleBenchmark),
            Some(InputFormat::PytestBenchmark),
            Some(InputFormat::NodeRunCsv),
        ] {
            let mut set = benchdiff::sample::SampleSet::new();
            let _ = read_bytes(&bytes, "fuzz", f, &ReadOptions::default(), &mut set);
        }
    }
    // The lenient JSON reader: never panics, warnings name lines inside the text.
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok((_, warnings)) = json_document(text, "fuzz")
    {
        let lines = text.split('\n').count() as u64;
        assert!(warnings.iter().all(|w| w.line >= 1 && w.line <= lines));
    }
});
