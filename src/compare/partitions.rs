//! Comparisons a partition of benchmarks at a time, from samples held in memory or spilled
//! to files ([`crate::sample::SpillingSet`]): every sample of a benchmark is in one partition,
//! so grouping a partition gives exactly the comparisons that grouping the whole set gives
//! for its benchmarks. A report that reads its comparisons through [`Partitions`] holds one
//! partition's samples at a time, wherever they come from.

use super::{Comparison, group_metric};
use crate::sample::{BenchmarkId, MetricId, SampleSet, Spilled};

/// One partition: its samples, grouped.
#[derive(Debug)]
pub struct Partition {
    /// The partition's benchmarks (ids local to it, first-seen order), the metrics and the
    /// samples.
    pub set: SampleSet,
    /// Per benchmark id of `set`, its id in the whole set ([`Partitions::names`]).
    pub ids: Vec<BenchmarkId>,
    /// The comparisons of the metric asked for ([`group_metric`] of `set`: ids of `set`).
    pub comparisons: Vec<Comparison>,
}

impl Partition {
    /// The partition of the samples `set` (whose benchmark ids map to the whole set's by
    /// `ids`), its samples of `metric` grouped.
    fn new(set: SampleSet, ids: Vec<BenchmarkId>, metric: MetricId) -> Partition {
        let comparisons = group_metric(&set, metric);
        Partition {
            set,
            ids,
            comparisons,
        }
    }

    /// The id in the whole set of the benchmark of `c`, a comparison of this partition.
    pub fn global(&self, c: &Comparison) -> BenchmarkId {
        self.ids[c.benchmark.0 as usize]
    }
}

/// The comparisons of a whole set of samples, partition by partition.
pub trait Partitions {
    /// Number of partitions (at least one).
    fn partitions(&self) -> usize;

    /// Partition `k` (`k < partitions()`), its samples of `metric` grouped. Its benchmarks'
    /// names are moved out of [`Partitions::names`] (held once): [`Partitions::give_back`]
    /// returns them; a partition dropped takes them with it.
    ///
    /// # Errors
    /// Reading the partition's samples failed (a spill file).
    fn partition(&mut self, k: usize, metric: MetricId) -> std::io::Result<Partition>;

    /// Gives the names of `part`'s benchmarks back to [`Partitions::names`].
    fn give_back(&mut self, part: Partition);

    /// Arrival position (0-based, over every sample) of the first sample of benchmark `id`
    /// (an id of the whole set); `None` when it has none.
    fn first_position(&self, id: BenchmarkId) -> Option<u64>;

    /// The whole set's benchmarks and metrics (those of a partition being read are empty).
    fn names(&self) -> &SampleSet;
}

/// A set held in memory, as one partition.
#[derive(Debug)]
pub struct InMemory {
    set: SampleSet,
    /// Per benchmark id: the arrival position of its first sample (`u64::MAX`: none).
    first: Vec<u64>,
}

impl InMemory {
    /// The partitions of `set`: one, all of it.
    pub fn new(set: SampleSet) -> InMemory {
        let mut first = vec![u64::MAX; set.benchmarks().len()];
        for (i, s) in set.iter().enumerate() {
            let f = &mut first[s.benchmark.0 as usize];
            if *f == u64::MAX {
                *f = i as u64;
            }
        }
        InMemory { set, first }
    }
}

impl Partitions for InMemory {
    fn partitions(&self) -> usize {
        1
    }

    fn partition(&mut self, k: usize, metric: MetricId) -> std::io::Result<Partition> {
        assert_eq!(k, 0, "one partition");
        let set = std::mem::take(&mut self.set);
        let ids = (0..set.benchmarks().len() as u32)
            .map(BenchmarkId)
            .collect();
        Ok(Partition::new(set, ids, metric))
    }

    fn give_back(&mut self, part: Partition) {
        self.set = part.set;
    }

    fn first_position(&self, id: BenchmarkId) -> Option<u64> {
        self.first
            .get(id.0 as usize)
            .copied()
            .filter(|&p| p != u64::MAX)
    }

    fn names(&self) -> &SampleSet {
        &self.set
    }
}

/// Samples spilled to partition files ([`crate::sample::SpillingSet::finish`]): the set of
/// names and the files.
#[derive(Debug)]
pub struct SpilledPartitions {
    set: SampleSet,
    spilled: Spilled,
}

impl SpilledPartitions {
    /// The partitions of `spilled`, named by `set` (the set that spilled).
    pub fn new(set: SampleSet, spilled: Spilled) -> SpilledPartitions {
        SpilledPartitions { set, spilled }
    }

    /// The spilled samples' files and what was learnt of them.
    pub fn spilled(&self) -> &Spilled {
        &self.spilled
    }

    /// Every spilled sample in arrival order, a window at a time
    /// ([`Spilled::in_arrival_order`]; every partition read must have been given back).
    ///
    /// # Errors
    /// As [`Spilled::in_arrival_order`].
    pub fn in_arrival_order(
        &mut self,
        f: impl FnMut(&SampleSet) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.spilled.in_arrival_order(&mut self.set, f)
    }
}

impl Partitions for SpilledPartitions {
    fn partitions(&self) -> usize {
        self.spilled.partitions()
    }

    fn partition(&mut self, k: usize, metric: MetricId) -> std::io::Result<Partition> {
        let (set, ids) = self.spilled.partition(k, &mut self.set)?;
        Ok(Partition::new(set, ids, metric))
    }

    fn give_back(&mut self, part: Partition) {
        Spilled::give_back(part.set, &part.ids, &mut self.set);
    }

    fn first_position(&self, id: BenchmarkId) -> Option<u64> {
        self.spilled.first_position(id)
    }

    fn names(&self) -> &SampleSet {
        &self.set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{RATE, Sample, SampleSink, Side, SpillingSet};

    /// Fills `sink` with samples of 41 benchmarks in a scrambled order, two metrics, both
    /// sides, wide runs, rounds recorded.
    fn fill<S: SampleSink>(sink: &mut S) -> MetricId {
        let set = sink.names_mut();
        set.mark_rounds_recorded();
        let wall = set.intern_metric("wall", "s", crate::sample::Better::Lower);
        for i in 0..5000u32 {
            let set = sink.names_mut();
            let b = set.intern(&format!("f{}.js", (i * 7) % 41), &format!("n={}", i % 2));
            sink.push(Sample {
                benchmark: b,
                side: if i % 3 == 0 { Side::New } else { Side::Old },
                metric: if i % 4 == 1 { wall } else { RATE },
                value: f64::from(i) * 0.5 + 1.0,
                time_s: if i % 9 == 0 { f64::NAN } else { f64::from(i) },
                run: if i % 60 == 3 {
                    Some(0xFF_FFFF + i)
                } else {
                    Some(i / 80)
                },
            });
        }
        wall
    }

    /// Every comparison, in whole-set ids, with the first position of its benchmark, sorted.
    fn all(parts: &mut impl Partitions, metric: MetricId) -> Vec<String> {
        let mut out = Vec::new();
        for k in 0..parts.partitions() {
            let part = parts.partition(k, metric).expect("partition");
            for c in &part.comparisons {
                let id = part.global(c);
                let first = parts.first_position(id);
                out.push(format!(
                    "{first:?} {id:?} {:?}",
                    Comparison {
                        benchmark: id,
                        ..c.clone()
                    }
                ));
            }
            parts.give_back(part);
        }
        out.sort();
        out
    }

    /// In memory and spilled to 1, 3 or 8 files, the partitions give the same comparisons
    /// (values, runs, pairing, names, whole-set ids) and first positions, for each metric, and
    /// the names are all back afterwards.
    #[test]
    fn spilled_partitions_give_the_comparisons_in_memory_gives() {
        let mut whole = SampleSet::new();
        let wall = fill(&mut whole);
        let names = whole.benchmarks().to_vec();
        let mut memory = InMemory::new(whole);
        for parts in [1, 3, 8] {
            let mut spilling = SpillingSet::new(parts).expect("temporary files");
            fill(&mut spilling);
            let (set, spilled) = spilling.finish();
            let mut spilled = SpilledPartitions::new(set, spilled.expect("flushed"));
            assert_eq!(spilled.partitions(), parts);
            for metric in [RATE, wall] {
                let want = all(&mut memory, metric);
                // The wall samples (odd arrival indices) are all of n=1.
                assert_eq!(want.len(), if metric == RATE { 82 } else { 41 });
                assert_eq!(all(&mut spilled, metric), want, "{parts} partitions");
            }
            assert_eq!(spilled.names().benchmarks(), &names[..]);
        }
        assert_eq!(memory.names().benchmarks(), &names[..]);
    }
}
