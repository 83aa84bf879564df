//! The order jobs run in. A job is one (benchmark file, binary, run) child process.
//!
//! - [`Order::Node`] reproduces compare.js (spec §1.2): for each file, for each run, `old`
//!   then `new`; every run of a file finishes before the next file starts.
//! - [`Order::Random`] (the default): run by run ("rounds"); within each round every
//!   (file, binary) job runs once, in an order shuffled by a ChaCha8 stream seeded with the
//!   recorded seed. Slow drift of the machine (thermal, background load) then hits both
//!   binaries alike instead of always favouring whichever runs first.

use crate::sample::Side;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;

pub use crate::format::results::plan::Order;

/// One job of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Job {
    /// Position in the full schedule, from 0.
    pub position: u32,
    /// Index of the benchmark file in the plan's file list.
    pub file: usize,
    /// Run index (round), from 0.
    pub run: u32,
    /// Which binary.
    pub side: Side,
}

/// The full schedule for `files` files and `runs` runs: `2 · files · runs` jobs.
/// The same arguments always give the same schedule (the seed is used by [`Order::Random`]
/// only), which is what `--resume` relies on.
pub fn schedule(files: usize, runs: u32, order: Order, seed: u64) -> Vec<Job> {
    schedule_sides(files, runs, order, seed, sides(false))
}

/// The sides every (file, run) runs: old and new, and the control after them with `control`.
pub fn sides(control: bool) -> &'static [Side] {
    if control {
        &[Side::Old, Side::New, Side::Control]
    } else {
        &[Side::Old, Side::New]
    }
}

/// [`schedule`] with a job per side of `sides` for every (file, run): `sides.len() · files ·
/// runs` jobs. In [`Order::Node`] a (file, run)'s jobs follow `sides`' order; in
/// [`Order::Random`] every side's jobs are shuffled into the same rounds, so that the control
/// side ([`sides`]`(true)`) shares the machine's drift with the old and new jobs.
pub fn schedule_sides(
    files: usize,
    runs: u32,
    order: Order,
    seed: u64,
    sides: &[Side],
) -> Vec<Job> {
    let mut jobs = Vec::with_capacity(files * runs as usize * sides.len());
    match order {
        Order::Node => {
            for file in 0..files {
                for run in 0..runs {
                    for &side in sides {
                        jobs.push((file, run, side));
                    }
                }
            }
        }
        Order::Random => {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for run in 0..runs {
                let mut round: Vec<(usize, u32, Side)> = (0..files)
                    .flat_map(|f| sides.iter().map(move |&s| (f, run, s)))
                    .collect();
                round.shuffle(&mut rng);
                jobs.extend(round);
            }
        }
    }
    jobs.into_iter()
        .enumerate()
        .map(|(i, (file, run, side))| Job {
            position: u32::try_from(i).unwrap_or(u32::MAX),
            file,
            run,
            side,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn node_order_is_compare_js() {
        let j = schedule(2, 2, Order::Node, 0);
        let got: Vec<_> = j.iter().map(|j| (j.file, j.run, j.side)).collect();
        assert_eq!(
            got,
            vec![
                (0, 0, Side::Old),
                (0, 0, Side::New),
                (0, 1, Side::Old),
                (0, 1, Side::New),
                (1, 0, Side::Old),
                (1, 0, Side::New),
                (1, 1, Side::Old),
                (1, 1, Side::New),
            ]
        );
    }

    #[test]
    fn random_order_is_seeded_complete_and_round_by_round() {
        let a = schedule(5, 4, Order::Random, 42);
        let b = schedule(5, 4, Order::Random, 42);
        let c = schedule(5, 4, Order::Random, 43);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let keys: HashSet<_> = a.iter().map(|j| (j.file, j.run, j.side)).collect();
        assert_eq!(keys.len(), 40);
        for (i, j) in a.iter().enumerate() {
            assert_eq!(j.run as usize, i / 10, "round by round");
            assert_eq!(j.position as usize, i);
        }
    }

    #[test]
    fn control_jobs_share_the_rounds_and_leave_the_two_sided_schedule_alone() {
        let two = schedule(4, 3, Order::Random, 7);
        assert_eq!(two, schedule_sides(4, 3, Order::Random, 7, sides(false)));
        let three = schedule_sides(4, 3, Order::Random, 7, sides(true));
        assert_eq!(three.len(), 36);
        for (i, j) in three.iter().enumerate() {
            assert_eq!(
                j.run as usize,
                i / 12,
                "the control runs in the same rounds"
            );
        }
        let keys: HashSet<_> = three.iter().map(|j| (j.file, j.run, j.side)).collect();
        assert_eq!(keys.len(), 36);
        let node = schedule_sides(1, 1, Order::Node, 0, sides(true));
        let got: Vec<Side> = node.iter().map(|j| j.side).collect();
        assert_eq!(got, [Side::Old, Side::New, Side::Control]);
    }
}
