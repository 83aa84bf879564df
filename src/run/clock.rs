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

/// The results file of a run without `--results`, for Node-file and command runs alike
/// ([`crate::output::results_beside`] with the current UTC time): beside `--csv FILE` as
/// `FILE-STEM.results.jsonl` (checked, and replaced under `--force`, like the CSV), in the
/// system temporary folder when `--csv` is a device or pipe, else
/// `benchdiff-results/<UTC time>.jsonl`.
pub fn default_results_path(csv: Option<&Path>) -> PathBuf {
    crate::output::results_beside(csv, &utc_stamp(now_unix_s() as u64))
}

/// A new results file `PREFIX-<UTC time>.jsonl` in the system temporary folder (`TMPDIR`), for
/// a command whose record is rarely kept (`calibrate` without `--results`); a `-1`, `-2`, …
/// suffix keeps it new.
pub fn temporary_results_path(prefix: &str) -> PathBuf {
    let dir = std::env::temp_dir();
    let stem = format!("{prefix}-{}", utc_stamp(now_unix_s() as u64));
    let mut p = dir.join(format!("{stem}.jsonl"));
    let mut i = 1;
    while std::fs::symlink_metadata(&p).is_ok() {
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
    fn results_beside_the_csv_and_seeds() {
        assert_eq!(
            default_results_path(Some(Path::new("out/x.csv"))),
            PathBuf::from("out/x.results.jsonl")
        );
        assert!(temporary_results_path("t").starts_with(std::env::temp_dir()));
        assert!(default_seed() < 1 << 53);
    }
}
