//! CPU pinning: the `taskset -c` list format compare.js accepts in `--set CPUSET=…` (spec §1.1:
//! validated with `^(\d+(-\d+)?)(,\d+(-\d+)?)*$`) and benchdiff's native `--cpus`.
//! The child is pinned with `sched_setaffinity` between fork and exec (no `taskset` needed).

use crate::run::RunnerError;

/// A validated set of CPU numbers, kept with the text it was given as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuList {
    /// The list as written, e.g. `0-2,4`.
    pub text: String,
    /// The CPU numbers, ascending, without repeats.
    pub cpus: Vec<usize>,
}

impl CpuList {
    /// Parses a `taskset -c` list: comma-separated numbers and `a-b` ranges (`a <= b`), every CPU
    /// below `CPU_SETSIZE` (1024) and below the number of CPUs this machine has configured.
    ///
    /// # Errors
    /// [`RunnerError::CpuSet`] naming what is wrong.
    pub fn parse(text: &str) -> Result<CpuList, RunnerError> {
        let bad = |why: &str| {
            RunnerError::CpuSet(format!(
                "invalid CPU list {text:?}: {why}. Use the taskset format, e.g. 0, 0-2 or 0,2-3"
            ))
        };
        let num = |s: &str| -> Result<usize, RunnerError> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad("expected numbers and ranges"));
            }
            s.parse::<usize>().map_err(|_| bad("number too large"))
        };
        let mut cpus = Vec::new();
        for part in text.split(',') {
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (num(a)?, num(b)?),
                None => {
                    let a = num(part)?;
                    (a, a)
                }
            };
            if a > b {
                return Err(bad(&format!("range {a}-{b} runs backwards")));
            }
            let limit = (libc::CPU_SETSIZE as usize).min(configured_cpus());
            if b >= limit {
                return Err(bad(&format!(
                    "CPU {b} does not exist (this machine has CPUs 0-{})",
                    limit.saturating_sub(1)
                )));
            }
            cpus.extend(a..=b);
        }
        cpus.sort_unstable();
        cpus.dedup();
        Ok(CpuList {
            text: text.to_owned(),
            cpus,
        })
    }

    /// The set as a `cpu_set_t`, built before fork so the child only makes the syscall.
    pub fn to_cpu_set(&self) -> libc::cpu_set_t {
        // SAFETY: an all-zero cpu_set_t is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &c in &self.cpus {
            // SAFETY: c < CPU_SETSIZE was checked in parse.
            unsafe { libc::CPU_SET(c, &mut set) };
        }
        set
    }
}

fn configured_cpus() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    if n > 0 { n as usize } else { 1 }
}

/// compare.js's `getCpuCoreSetting`: the value of the first `--set` entry starting with
/// `CPUSET=`, validated.
///
/// # Errors
/// [`RunnerError::CpuSet`] when that value is not a valid list.
pub fn cpuset_from_set_values(set: &[String]) -> Result<Option<CpuList>, RunnerError> {
    match set.iter().find_map(|s| s.strip_prefix("CPUSET=")) {
        Some(v) => CpuList::parse(v)
            .map(Some)
            .map_err(|e| RunnerError::CpuSet(format!("--set CPUSET: {e}"))),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taskset_lists() {
        assert_eq!(CpuList::parse("0").unwrap().cpus, vec![0]);
        assert_eq!(CpuList::parse("0-1,0").unwrap().cpus, vec![0, 1]);
        for bad in ["", "a", "0-", "-1", "1-0", "0,,1", "0 1", "99999", "0-1,"] {
            assert!(CpuList::parse(bad).is_err(), "{bad:?}");
        }
        let set = [
            "n=1".to_owned(),
            "CPUSET=0".to_owned(),
            "CPUSET=x".to_owned(),
        ];
        assert_eq!(cpuset_from_set_values(&set).unwrap().unwrap().cpus, vec![0]);
        assert!(cpuset_from_set_values(&["CPUSET=x".to_owned()]).is_err());
    }
}
