//! Where a reader puts the samples it reads: a [`SampleSet`] keeps them in memory; a
//! [`super::SpillingSet`] writes them to temporary partition files.

use super::{Sample, SampleSet};

/// The destination of the samples a reader reads: the benchmark names and metrics are
/// interned in a [`SampleSet`] ([`SampleSink::names_mut`]), and the samples are added in
/// arrival order through [`SampleSink::add`] / [`SampleSink::push`], which decides where they
/// are kept.
pub trait SampleSink {
    /// The set the benchmarks and metrics are interned in; for a [`SampleSet`], itself.
    fn names(&self) -> &SampleSet;

    /// [`SampleSink::names`], to intern benchmarks and metrics (samples pushed into it
    /// directly stay in it, in memory).
    fn names_mut(&mut self) -> &mut SampleSet;

    /// Adds samples in arrival order (their benchmark and metric ids come from
    /// [`SampleSink::names`]).
    fn add(&mut self, samples: impl IntoIterator<Item = Sample>);

    /// Adds one sample ([`SampleSink::add`]).
    fn push(&mut self, sample: Sample) {
        self.add([sample]);
    }

    /// Number of samples held, wherever they are kept.
    fn count(&self) -> usize;
}

impl SampleSink for SampleSet {
    fn names(&self) -> &SampleSet {
        self
    }

    fn names_mut(&mut self) -> &mut SampleSet {
        self
    }

    fn add(&mut self, samples: impl IntoIterator<Item = Sample>) {
        self.extend_samples(samples);
    }

    fn push(&mut self, sample: Sample) {
        SampleSet::push(self, sample);
    }

    fn count(&self) -> usize {
        self.len()
    }
}
