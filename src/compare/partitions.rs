//! Comparisons a partition of benchmarks at a time, from samples held in memory or spilled
//! to files ([`crate::sample::SpillingSet`]): every sample of a benchmark is in one partition,
//! so grouping a partition gives exactly the comparisons that grouping the whole set gives
//! for its benchmarks. A report that reads its comparisons through [`Partitions`] holds one
//! partition's samples at a time, wherever they come from.

use super::{Comparison, group_metric};
use crate::sample::{
    BenchmarkId, MetricId, SampleSet, Scratch, Side, Spilled, release_free_memory,
};
use std::borrow::Cow;

/// One partition: its samples, grouped.
#[derive(Debug)]
pub struct Partition<'a> {
    /// The partition's benchmarks (ids local to it, first-seen order), the metrics and the
    /// samples: borrowed from a set held in memory, owned when read from a spill file.
    pub set: Cow<'a, SampleSet>,
    /// Per benchmark id of `set`, its id in the whole set ([`Partitions::names`]).
    pub ids: Vec<BenchmarkId>,
    /// The comparisons of the metric asked for ([`group_metric`] of `set`: ids of `set`).
    pub comparisons: Vec<Comparison>,
}

impl<'a> Partition<'a> {
    /// The partition of the samples `set` (whose benchmark ids map to the whole set's by
    /// `ids`), its samples of `metric` grouped.
    fn new(set: Cow<'a, SampleSet>, ids: Vec<BenchmarkId>, metric: MetricId) -> Partition<'a> {
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

/// What a whole set of samples holds ([`Partitions::contents`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contents {
    /// The metrics some sample has, in order of first appearance.
    pub metrics: Vec<MetricId>,
    /// Samples of the old and of the new side.
    pub per_side: [u64; 2],
}

/// The comparisons of a whole set of samples, partition by partition (`'a`: how long the
/// partitions of a set held in memory borrow it).
pub trait Partitions<'a> {
    /// Number of partitions (at least one).
    fn partitions(&self) -> usize;

    /// Partition `k` (`k < partitions()`), its samples of `metric` grouped. Its benchmarks'
    /// names are moved out of [`Partitions::names`] (held once): [`Partitions::give_back`]
    /// returns them; a partition dropped takes them with it (a report that reads no partition
    /// again keeps no names).
    ///
    /// # Errors
    /// Reading the partition's samples failed (a spill file).
    fn partition(&mut self, k: usize, metric: MetricId) -> std::io::Result<Partition<'a>>;

    /// Gives the names of `part`'s benchmarks back to [`Partitions::names`] and frees its
    /// samples (the store returns what it freed to the system).
    fn give_back(&mut self, part: Partition<'a>);

    /// Arrival position (0-based, over every sample) of the first sample of benchmark `id`
    /// (an id of the whole set) of the metric last partitioned, or (spilled samples) of any
    /// metric; `None` when it has none. Sorting comparisons by it gives the whole set's
    /// first-seen order ([`group_metric`]).
    fn first_position(&self, id: BenchmarkId) -> Option<u64>;

    /// The whole set's benchmarks and metrics (those of a partition being read are empty).
    fn names(&self) -> &SampleSet;

    /// Where a report keeps the texts it makes before writing them: memory when the samples
    /// are in memory, a temporary file when they are spilled.
    ///
    /// # Errors
    /// The temporary file could not be created.
    fn scratch(&self) -> std::io::Result<Scratch>;

    /// Frees what the store holds to read its partitions again (the benchmarks' names of
    /// spilled samples), keeping the metrics: the report reads no partition after this.
    fn release(&mut self);

    /// What the samples are: their metrics in order of first appearance, and how many there
    /// are of the old and of the new side.
    fn contents(&self) -> Contents;

    /// Calls `f` on every sample in arrival order, a window of samples at a time (every
    /// partition read must have been given back), named by [`Partitions::names`]'s ids.
    ///
    /// # Errors
    /// The error of `f`, or of reading the samples back (a spill file).
    fn in_arrival_order(
        &mut self,
        f: &mut dyn FnMut(&SampleSet) -> std::io::Result<()>,
    ) -> std::io::Result<()>;
}

/// A set held in memory, as one partition that borrows it.
#[derive(Debug)]
pub struct InMemory<'a> {
    set: &'a SampleSet,
    /// Per benchmark id: the arrival position of its first sample of the metric last
    /// partitioned, control samples aside (`u64::MAX`: none).
    first: Vec<u64>,
}

impl<'a> InMemory<'a> {
    /// The partitions of `set`: one, all of it.
    pub fn new(set: &'a SampleSet) -> InMemory<'a> {
        InMemory {
            set,
            first: Vec::new(),
        }
    }
}

impl<'a> Partitions<'a> for InMemory<'a> {
    fn partitions(&self) -> usize {
        1
    }

    fn partition(&mut self, k: usize, metric: MetricId) -> std::io::Result<Partition<'a>> {
        debug_assert_eq!(k, 0, "one partition");
        let set = self.set;
        self.first.clear();
        self.first.resize(set.benchmarks().len(), u64::MAX);
        for (i, s) in set.iter().enumerate() {
            let f = &mut self.first[s.benchmark.0 as usize];
            if *f == u64::MAX && s.metric == metric && s.side != Side::Control {
                *f = i as u64;
            }
        }
        let ids = (0..set.benchmarks().len() as u32)
            .map(BenchmarkId)
            .collect();
        Ok(Partition::new(Cow::Borrowed(set), ids, metric))
    }

    fn give_back(&mut self, _part: Partition<'a>) {}

    fn scratch(&self) -> std::io::Result<Scratch> {
        Ok(Scratch::Memory(Vec::new()))
    }

    fn release(&mut self) {}

    fn contents(&self) -> Contents {
        let mut c = Contents::default();
        for s in self.set.iter() {
            if !c.metrics.contains(&s.metric) {
                c.metrics.push(s.metric);
            }
            match s.side {
                Side::Old => c.per_side[0] += 1,
                Side::New => c.per_side[1] += 1,
                Side::Control => {}
            }
        }
        c
    }

    fn in_arrival_order(
        &mut self,
        f: &mut dyn FnMut(&SampleSet) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        f(self.set)
    }

    fn first_position(&self, id: BenchmarkId) -> Option<u64> {
        self.first
            .get(id.0 as usize)
            .copied()
            .filter(|&p| p != u64::MAX)
    }

    fn names(&self) -> &SampleSet {
        self.set
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
        // What the reader held while it spilled goes back to the system.
        release_free_memory();
        SpilledPartitions { set, spilled }
    }

    /// The spilled samples' files and what was learnt of them.
    pub fn spilled(&self) -> &Spilled {
        &self.spilled
    }
}

impl Partitions<'static> for SpilledPartitions {
    fn partitions(&self) -> usize {
        self.spilled.partitions()
    }

    fn partition(&mut self, k: usize, metric: MetricId) -> std::io::Result<Partition<'static>> {
        // What the partitions read before held goes back to the system first.
        release_free_memory();
        let (set, ids) = self.spilled.partition(k, &mut self.set)?;
        Ok(Partition::new(Cow::Owned(set), ids, metric))
    }

    fn give_back(&mut self, part: Partition<'static>) {
        Spilled::give_back(part.set.into_owned(), &part.ids, &mut self.set);
        release_free_memory();
    }

    fn first_position(&self, id: BenchmarkId) -> Option<u64> {
        self.spilled.first_position(id)
    }

    fn names(&self) -> &SampleSet {
        &self.set
    }

    fn scratch(&self) -> std::io::Result<Scratch> {
        Scratch::file()
    }

    fn release(&mut self) {
        let mut names = SampleSet::new();
        for m in self.set.metrics() {
            names.intern_metric(&m.name, &m.unit, m.better);
        }
        if self.set.rounds_recorded() {
            names.mark_rounds_recorded();
        }
        self.set = names;
        release_free_memory();
    }

    fn contents(&self) -> Contents {
        Contents {
            metrics: self.spilled.metrics().to_vec(),
            per_side: self.spilled.per_side(),
        }
    }

    fn in_arrival_order(
        &mut self,
        f: &mut dyn FnMut(&SampleSet) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.spilled.in_arrival_order(&mut self.set, f)
    }
}

/// The comparisons of `metric` of the benchmarks `benchmarks` (ids of the whole set), in that
/// order, read again from `parts`: every one in memory at once.
///
/// # Errors
/// A partition could not be read (a spill file).
pub fn comparisons_of<'a>(
    parts: &mut dyn Partitions<'a>,
    metric: MetricId,
    benchmarks: &[BenchmarkId],
) -> std::io::Result<Vec<Comparison>> {
    let mut at = vec![u32::MAX; parts.names().benchmarks().len()];
    for (i, b) in benchmarks.iter().enumerate() {
        at[b.0 as usize] = i as u32;
    }
    let mut found: Vec<Option<Comparison>> = (0..benchmarks.len()).map(|_| None).collect();
    for k in 0..parts.partitions() {
        let mut part = parts.partition(k, metric)?;
        for mut c in std::mem::take(&mut part.comparisons) {
            let id = part.global(&c);
            if let Some(slot) = found.get_mut(at[id.0 as usize] as usize) {
                c.benchmark = id;
                *slot = Some(c);
            }
        }
        parts.give_back(part);
    }
    Ok(found.into_iter().flatten().collect())
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

    /// Every comparison, in whole-set ids, sorted; and the benchmarks in the order of their
    /// first positions.
    fn all<'a>(parts: &mut impl Partitions<'a>, metric: MetricId) -> (Vec<String>, Vec<u32>) {
        let mut out = Vec::new();
        let mut firsts = Vec::new();
        for k in 0..parts.partitions() {
            let part = parts.partition(k, metric).expect("partition");
            for c in &part.comparisons {
                let id = part.global(c);
                firsts.push((parts.first_position(id), id.0));
                out.push(format!(
                    "{id:?} {:?}",
                    Comparison {
                        benchmark: id,
                        ..c.clone()
                    }
                ));
            }
            parts.give_back(part);
        }
        out.sort();
        firsts.sort();
        (out, firsts.into_iter().map(|f| f.1).collect())
    }

    /// In memory and spilled to 1, 3 or 8 files, the partitions give the same comparisons
    /// (values, runs, pairing, names, whole-set ids) for each metric, and the names are all
    /// back afterwards; in memory, the first positions order the comparisons as grouping
    /// the whole set does.
    #[test]
    fn spilled_partitions_give_the_comparisons_in_memory_gives() {
        let mut whole = SampleSet::new();
        let wall = fill(&mut whole);
        let names = whole.benchmarks().to_vec();
        let mut memory = InMemory::new(&whole);
        for metric in [RATE, wall] {
            let grouped: Vec<u32> = group_metric(&whole, metric)
                .iter()
                .map(|c| c.benchmark.0)
                .collect();
            assert_eq!(all(&mut memory, metric).1, grouped);
        }
        for parts in [1, 3, 8] {
            let mut spilling = SpillingSet::new(parts).expect("temporary files");
            fill(&mut spilling);
            let (set, spilled) = spilling.finish();
            let mut spilled = SpilledPartitions::new(set, spilled.expect("flushed"));
            assert_eq!(spilled.partitions(), parts);
            for metric in [RATE, wall] {
                let want = all(&mut memory, metric).0;
                // The wall samples (odd arrival indices) are all of n=1.
                assert_eq!(want.len(), if metric == RATE { 82 } else { 41 });
                assert_eq!(all(&mut spilled, metric).0, want, "{parts} partitions");
            }
            assert_eq!(spilled.names().benchmarks(), &names[..]);
        }
        assert_eq!(memory.names().benchmarks(), &names[..]);
    }
}
