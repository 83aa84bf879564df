//! The run's clock-derived values, one definition each: the wall-clock time recorded in
//! results files, the default seed of the random order, and the default results-file path.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch (0 when the clock is before it).
pub fn now_unix_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// A seed for `--order random` when `--seed` is not given: splitmix64 (Steele, Lea and Flood,
/// "Fast splittable pseudorandom number generators", 2014) of the clock's nanoseconds XOR the
/// process id, so two runs started in the same second differ; kept to 53 bits so that JSON
/// readers using doubles read it exactly.
pub fn default_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut z = nanos ^ (u64::from(std::process::id()) << 32);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) >> 11
}

/// The civil date `(year, month 1–12, day 1–31)` of `days` since 1970-01-01 (proleptic
/// Gregorian; Howard Hinnant's `civil_from_days` algorithm).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `YYYYMMDD-HHMMSS` in UTC of `unix_s` seconds since the epoch.
pub fn utc_stamp(unix_s: u64) -> String {
    let (y, m, d) = civil_from_days((unix_s / 86_400) as i64);
    let secs = unix_s % 86_400;
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The results file of a run without `--results`, for Node-file and command runs alike: next
/// to `--csv FILE` as `FILE-STEM.results.jsonl`, else `benchdiff-results/<UTC time>.jsonl`; a
/// `-1`, `-2`, … suffix picks a name that does not exist yet (a results file is never
/// overwritten).
pub fn default_results_path(csv: Option<&Path>) -> PathBuf {
    let (dir, stem) = match csv.filter(|c| c.as_os_str() != "-") {
        Some(c) => {
            let stem = c
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "benchdiff".to_owned());
            (
                c.parent().map(Path::to_path_buf).unwrap_or_default(),
                format!("{stem}.results"),
            )
        }
        None => (
            PathBuf::from("benchdiff-results"),
            utc_stamp(now_unix_s() as u64),
        ),
    };
    let mut p = dir.join(format!("{stem}.jsonl"));
    let mut i = 1;
    while p.exists() {
        p = dir.join(format!("{stem}-{i}.jsonl"));
        i += 1;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_stamps() {
        assert_eq!(utc_stamp(0), "19700101-000000");
        assert_eq!(utc_stamp(951_782_400), "20000229-000000");
        assert_eq!(utc_stamp(1_764_460_799), "20251129-235959");
    }

    #[test]
    fn results_next_to_csv_never_overwrite() {
        assert_eq!(
            default_results_path(Some(Path::new("out/x.csv"))),
            PathBuf::from("out/x.results.jsonl")
        );
        let d = std::env::temp_dir().join(format!("benchdiff-clock-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("x.results.jsonl"), "").unwrap();
        assert_eq!(
            default_results_path(Some(&d.join("x.csv"))),
            d.join("x.results-1.jsonl")
        );
        std::fs::remove_dir_all(&d).unwrap();
        assert!(default_seed() < 1 << 53);
    }
}
