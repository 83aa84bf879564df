//! Round trip: samples exported in the Go benchmark format (`--format go`) and read back give
//! the same samples (benchmark, configuration, side, metric, value).

use benchdiff::format::{self as import, ReadOptions, go};
use benchdiff::sample::{Better, Sample, SampleSet, Side};

type Key = (String, String, Side, String, String, u64);

fn keys(set: &SampleSet) -> Vec<Key> {
    set.samples()
        .iter()
        .map(|s| {
            let b = set.benchmark(s.benchmark);
            let m = set.metric(s.metric);
            (
                b.file.clone(),
                b.configuration.text.clone(),
                s.side,
                m.name.clone(),
                format!("{:?}", m.better),
                s.value.to_bits(),
            )
        })
        .collect()
}

fn round_trip(set: &SampleSet) -> SampleSet {
    let text = go::write(set);
    let mut back = SampleSet::new();
    import::read_text(
        &text,
        "export.txt",
        None,
        &ReadOptions::default(),
        &mut back,
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"));
    back
}

#[test]
fn go_files_round_trip() {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle/benchstat");
    let mut set = SampleSet::new();
    for (f, side) in [("crc-old.txt", Side::Old), ("crc-new.txt", Side::New)] {
        import::read_path(
            dir.join(f).to_str().expect("utf-8"),
            None,
            &ReadOptions {
                side,
                sides_by: None,
            },
            &mut set,
        )
        .expect("read");
    }
    let back = round_trip(&set);
    assert_eq!(back.len(), 1440);
    let (mut a, mut b) = (keys(&set), keys(&back));
    // The writer groups by side; compare as multisets.
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn node_runs_round_trip() {
    let mut set = SampleSet::new();
    let wall = set.intern_metric("wall", "s", Better::Lower);
    let confs = ["", "n=100 type='string'", "type='a b'  n=1", "x=1/2 y=%3A"];
    for (i, conf) in confs.iter().enumerate() {
        let b = set.intern(&format!("util/format {i}.js"), conf);
        for side in [Side::Old, Side::New] {
            for r in 0..3u32 {
                let v = 1234.5678 * (1.0 + f64::from(r) / 7.0) + i as f64;
                set.push(Sample {
                    benchmark: b,
                    side,
                    metric: benchdiff::sample::RATE,
                    value: v,
                    time_s: f64::NAN,
                    run: Some(r),
                });
                set.push(Sample {
                    benchmark: b,
                    side,
                    metric: wall,
                    value: 0.1 / v,
                    time_s: f64::NAN,
                    run: Some(r),
                });
            }
        }
    }
    let back = round_trip(&set);
    let (mut a, mut b) = (keys(&set), keys(&back));
    a.sort();
    b.sort();
    // `wall` (unit s) is written as the Go unit `wall-s`, so it comes back named `wall-s`.
    let a: Vec<Key> = a
        .into_iter()
        .map(|mut k| {
            if k.3 == "wall" {
                k.3 = "wall-s".to_owned();
            }
            k
        })
        .collect();
    let mut a = a;
    a.sort();
    assert_eq!(a, b);
}
