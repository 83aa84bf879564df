//! Samples spilled to temporary files, partitioned by benchmark, so that an input larger than
//! memory is read in memory proportional to its benchmark names (not its samples) and then
//! analysed one partition at a time.
//!
//! A [`SpillingSet`] is a [`SampleSink`]: it interns benchmark names and metrics in a
//! [`SampleSet`] in memory, but writes every sample it is given, packed (24 bytes, the form
//! a set keeps them in), to the partition file of its benchmark (`benchmark id % parts`);
//! [`SpillingSet::finish`] then hands the names over as a set without samples and the files
//! as [`Spilled`], and [`Spilled::partition`] reads one partition back as a set of its own.
//! Within a partition samples keep their arrival order, and every sample of a benchmark is in
//! the same partition, so grouping a partition gives exactly the comparisons that grouping the
//! whole set gives for those benchmarks. A [`SpillingSet::new_in_order`] also records the
//! partition of every sample (a byte each), so that [`Spilled::in_arrival_order`] reads them
//! back in arrival order too.
//!
//! The files are anonymous temporary files ([`tempfile::tempfile`]: on Linux unlinked from the
//! start, elsewhere deleted when closed), so they disappear whatever happens to the process,
//! a crash or a kill included.

use super::{BenchmarkId, MetricId, Packed, Sample, SampleSet, SampleSink};
use std::io::{Read, Seek, Write};

/// Bytes of one sample in a partition file: value, time (f64), benchmark id, tag (u32), little
/// endian.
const RECORD: usize = 24;

/// Bytes of records buffered per partition before they are written to its file.
const WRITE_BUFFER: usize = 1 << 16;

/// A [`SampleSink`] that keeps the benchmark names and metrics in memory and writes the samples
/// to temporary partition files (see the module doc).
#[derive(Debug)]
pub struct SpillingSet {
    set: SampleSet,
    spill: Spill,
}

impl SpillingSet {
    /// A store writing every sample added to one of `parts` (at least one) new temporary
    /// partition files, by benchmark, with the names in a new [`SampleSet`].
    ///
    /// # Errors
    /// A temporary file cannot be created.
    pub fn new(parts: usize) -> std::io::Result<SpillingSet> {
        Ok(SpillingSet {
            set: SampleSet::new(),
            spill: Spill::new(parts)?,
        })
    }

    /// [`SpillingSet::new`] (with at most 256 partitions) that also records the partition of
    /// every sample (one byte a sample in memory), so that the spilled samples can be read
    /// back in arrival order ([`Spilled::in_arrival_order`]) as well as partition by partition.
    ///
    /// # Errors
    /// A temporary file cannot be created.
    pub fn new_in_order(parts: usize) -> std::io::Result<SpillingSet> {
        Ok(SpillingSet {
            set: SampleSet::new(),
            spill: Spill::new_in_order(parts)?,
        })
    }

    /// Ends spilling: the set of names and metrics (holding only the samples pushed into
    /// [`SampleSink::names_mut`] directly), and the spilled samples, to be read back partition
    /// by partition ([`Spilled::partition`]), or the first error writing a partition file.
    pub fn finish(self) -> (SampleSet, std::io::Result<Spilled>) {
        (self.set, Spilled::finish(self.spill))
    }
}

impl SampleSink for SpillingSet {
    fn names(&self) -> &SampleSet {
        &self.set
    }

    fn names_mut(&mut self) -> &mut SampleSet {
        &mut self.set
    }

    fn add(&mut self, samples: impl IntoIterator<Item = Sample>) {
        let n = self.set.benchmarks.len();
        for s in samples {
            debug_assert!((s.benchmark.0 as usize) < n);
            let (p, wide) = Packed::of(&s);
            self.spill.push(p, s.metric, wide.then_some(s.run));
        }
    }

    fn count(&self) -> usize {
        self.set.len() + self.spill.total() as usize
    }
}

/// The spill of a set being read: one buffered file per partition.
#[derive(Debug)]
struct Spill {
    files: Vec<std::fs::File>,
    /// Per partition, the records not written yet (up to [`WRITE_BUFFER`] bytes).
    buffers: Vec<Vec<u8>>,
    /// Samples written to each partition.
    counts: Vec<u64>,
    /// Per partition, `(index within the partition, metric, run)` of the samples whose metric
    /// or run does not fit the packed tag (see [`SampleSet`]'s `wide`).
    wide: Vec<Vec<(usize, MetricId, Option<u32>)>>,
    /// Samples written in all.
    total: u64,
    /// Per benchmark id: the arrival position of its first sample (`u64::MAX`: none yet).
    first: Vec<u64>,
    /// Per benchmark id: bit 0 set when it has an old sample, bit 1 a new one.
    sides: Vec<u8>,
    /// Samples per side (old, new).
    per_side: [u64; 2],
    /// Every metric some sample had, in order of first appearance.
    metrics: Vec<MetricId>,
    /// The first write error; reported by [`SpillingSet::finish`].
    error: Option<std::io::Error>,
    /// Per sample in arrival order, its partition, when asked for
    /// ([`SpillingSet::new_in_order`]; one byte a sample, up to 256 partitions).
    order: Option<Vec<u8>>,
}

impl Spill {
    /// A spill over `parts` new temporary files (at least one).
    fn new(parts: usize) -> std::io::Result<Spill> {
        let parts = parts.max(1);
        let files = (0..parts)
            .map(|_| tempfile::tempfile())
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(Spill {
            files,
            buffers: (0..parts)
                .map(|_| Vec::with_capacity(WRITE_BUFFER))
                .collect(),
            counts: vec![0; parts],
            wide: vec![Vec::new(); parts],
            total: 0,
            first: Vec::new(),
            sides: Vec::new(),
            per_side: [0, 0],
            metrics: Vec::new(),
            error: None,
            order: None,
        })
    }

    /// [`Spill::new`] that also records which partition each sample goes to (at most 256
    /// partitions: `parts` is capped there), so that [`Spilled::in_arrival_order`] can read
    /// them back in arrival order.
    fn new_in_order(parts: usize) -> std::io::Result<Spill> {
        let mut spill = Spill::new(parts.min(256))?;
        spill.order = Some(Vec::new());
        Ok(spill)
    }

    /// Writes one sample; `wide` its metric and run when they do not fit its tag.
    #[inline]
    fn push(&mut self, p: Packed, metric: MetricId, wide: Option<Option<u32>>) {
        let b = p.benchmark as usize;
        let k = b % self.files.len();
        if let Some(run) = wide {
            self.wide[k].push((self.counts[k] as usize, metric, run));
        }
        if self.first.len() <= b {
            self.first.resize(b + 1, u64::MAX);
            self.sides.resize(b + 1, 0);
        }
        if self.first[b] == u64::MAX {
            self.first[b] = self.total;
        }
        let new = usize::from(p.tag & 1 == 1);
        self.sides[b] |= 1 << new;
        self.per_side[new] += 1;
        if self.metrics.last() != Some(&metric) && !self.metrics.contains(&metric) {
            self.metrics.push(metric);
        }
        self.counts[k] += 1;
        self.total += 1;
        if let Some(order) = &mut self.order {
            // k < 256 (see `new_in_order`).
            order.push(k as u8);
        }
        let buf = &mut self.buffers[k];
        buf.extend_from_slice(&p.value.to_bits().to_le_bytes());
        buf.extend_from_slice(&p.time_s.to_bits().to_le_bytes());
        buf.extend_from_slice(&p.benchmark.to_le_bytes());
        buf.extend_from_slice(&p.tag.to_le_bytes());
        if buf.len() + RECORD > WRITE_BUFFER {
            self.flush(k);
        }
    }

    /// Writes the buffer of partition `k` to its file (keeping the first error).
    fn flush(&mut self, k: usize) {
        if self.error.is_none()
            && let Err(e) = self.files[k].write_all(&self.buffers[k])
        {
            self.error = Some(e);
        }
        self.buffers[k].clear();
    }

    /// Samples written in all.
    fn total(&self) -> u64 {
        self.total
    }
}

/// The samples of a set that spilled ([`SpillingSet::finish`]), in partition files,
/// with what was learnt of them on the way.
#[derive(Debug)]
pub struct Spilled {
    files: Vec<std::fs::File>,
    counts: Vec<u64>,
    wide: Vec<Vec<(usize, MetricId, Option<u32>)>>,
    total: u64,
    first: Vec<u64>,
    sides: Vec<u8>,
    per_side: [u64; 2],
    metrics: Vec<MetricId>,
    order: Option<Vec<u8>>,
}

impl Spilled {
    /// Flushes the files of `spill` for reading.
    fn finish(mut spill: Spill) -> std::io::Result<Spilled> {
        for k in 0..spill.files.len() {
            spill.flush(k);
        }
        if let Some(e) = spill.error {
            return Err(e);
        }
        Ok(Spilled {
            files: spill.files,
            counts: spill.counts,
            wide: spill.wide,
            total: spill.total,
            first: spill.first,
            sides: spill.sides,
            per_side: spill.per_side,
            metrics: spill.metrics,
            order: spill.order,
        })
    }

    /// Number of partitions.
    pub fn partitions(&self) -> usize {
        self.files.len()
    }

    /// Number of samples spilled.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// True when no sample was spilled.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Samples spilled under the old and the new binary.
    pub fn per_side(&self) -> [u64; 2] {
        self.per_side
    }

    /// The metrics of the spilled samples, in order of first appearance.
    pub fn metrics(&self) -> &[MetricId] {
        &self.metrics
    }

    /// Arrival position (0-based, over every spilled sample) of the first sample of benchmark
    /// `id`; `None` when it has none.
    pub fn first_position(&self, id: BenchmarkId) -> Option<u64> {
        self.first
            .get(id.0 as usize)
            .copied()
            .filter(|&p| p != u64::MAX)
    }

    /// True when some benchmark has samples on both sides.
    pub fn has_both_sides(&self) -> bool {
        self.sides.contains(&3)
    }

    /// Reads partition `k` back (`k < partitions()`) as a set of its own: its benchmarks
    /// in first-seen order, the metrics and the rounds flag of `whole` (the set that
    /// spilled, which holds the names), its samples in arrival order. Returns the set and,
    /// indexed by its benchmark ids, the ids they have in `whole`. The set is for reading (its
    /// benchmarks are not indexed by name: look-ups by name find none).
    ///
    /// The names of the partition's benchmarks are **moved** out of `whole` (left empty there),
    /// so that they are held once, and `whole`'s index of names is freed on the first call:
    /// read each partition once, and use `whole` for nothing else afterwards.
    ///
    /// # Errors
    /// Reading the partition file fails, or it is shorter than what was written.
    ///
    /// # Panics
    /// Panics if `k` is out of range.
    pub fn partition(
        &mut self,
        k: usize,
        whole: &mut SampleSet,
    ) -> std::io::Result<(SampleSet, Vec<BenchmarkId>)> {
        // Nothing looks names up any more.
        whole.index = rustc_hash::FxHashMap::default();
        whole.collided = rustc_hash::FxHashMap::default();
        whole.last_id = None;
        let file = &mut self.files[k];
        file.seek(std::io::SeekFrom::Start(0))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, &mut *file);
        let mut set = SampleSet {
            metrics: whole.metrics.clone(),
            rounds_recorded: whole.rounds_recorded,
            ..SampleSet::default()
        };
        let n = self.counts[k] as usize;
        set.packed.reserve_exact(n);
        let mut global: Vec<BenchmarkId> = Vec::new();
        let mut local: rustc_hash::FxHashMap<u32, u32> = rustc_hash::FxHashMap::default();
        let mut buf = vec![0u8; RECORD * 4096];
        let mut left = n;
        while left > 0 {
            let take = left.min(4096);
            let bytes = &mut buf[..take * RECORD];
            reader.read_exact(bytes)?;
            for rec in bytes.chunks_exact(RECORD) {
                let mut p = decode(rec);
                let g = p.benchmark;
                let id = match local.get(&g) {
                    Some(&id) => id,
                    None => {
                        let b = whole.benchmarks.get_mut(g as usize).ok_or_else(|| {
                            std::io::Error::new(
                                std::io::ErrorKind::InvalidData,
                                "a spilled sample names an unknown benchmark",
                            )
                        })?;
                        let id = set.benchmarks.len() as u32;
                        set.benchmarks.push(std::mem::take(b));
                        global.push(BenchmarkId(g));
                        local.insert(g, id);
                        id
                    }
                };
                p.benchmark = id;
                set.packed.push(p);
            }
            left -= take;
        }
        set.wide = self.wide[k].clone();
        Ok((set, global))
    }

    /// Gives the benchmarks of partition `part` (as [`Spilled::partition`] returned it, with
    /// `ids`) back to `whole`, which [`Spilled::partition`] moved them out of, so that
    /// [`Spilled::in_arrival_order`] can name the samples afterwards. Look-ups by name in
    /// `whole` still find none.
    pub fn give_back(part: SampleSet, ids: &[BenchmarkId], whole: &mut SampleSet) {
        for (b, id) in part.benchmarks.into_iter().zip(ids) {
            if let Some(slot) = whole.benchmarks.get_mut(id.0 as usize) {
                *slot = b;
            }
        }
    }

    /// Reads every spilled sample back in arrival order, a window of at most 65,536 samples at
    /// a time: `whole` (the set that spilled, with its names: before [`Spilled::partition`]
    /// or after [`Spilled::give_back`]) holds the window as its samples while `f` is called
    /// on it, so that a writer of sample sets (`--format csv`, `go`) writes the samples as it
    /// writes those of a set read in memory. `whole`'s own samples are restored at the end.
    /// With several partitions, the set must have spilled with
    /// [`SpillingSet::new_in_order`]: the recorded partition of each sample says which
    /// file its record is next in.
    ///
    /// # Errors
    /// Reading a partition file fails or it is shorter than what was written, the arrival
    /// order was not recorded, or `f` fails.
    pub fn in_arrival_order(
        &mut self,
        whole: &mut SampleSet,
        mut f: impl FnMut(&SampleSet) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        const WINDOW: usize = 1 << 16;
        let parts = self.files.len();
        let order = self.order.as_deref().unwrap_or_default();
        if parts > 1 && order.len() as u64 != self.total {
            return Err(std::io::Error::other(
                "the arrival order of the spilled samples was not recorded",
            ));
        }
        let mut readers = Vec::with_capacity(parts);
        for file in &mut self.files {
            file.seek(std::io::SeekFrom::Start(0))?;
            readers.push(std::io::BufReader::with_capacity(1 << 16, &mut *file));
        }
        // Per partition: records read, and the next of its wide samples.
        let mut read = vec![0usize; parts];
        let mut next_wide = vec![0usize; parts];
        let kept = (
            std::mem::take(&mut whole.packed),
            std::mem::take(&mut whole.wide),
        );
        whole.unpacked.take();
        let total = self.total as usize;
        let wide = &self.wide;
        let mut run = || -> std::io::Result<()> {
            let mut rec = [0u8; RECORD];
            let mut done = 0usize;
            while done < total {
                let n = WINDOW.min(total - done);
                whole.packed.clear();
                whole.wide.clear();
                for i in 0..n {
                    let k = if parts == 1 {
                        0
                    } else {
                        usize::from(order[done + i])
                    };
                    readers[k].read_exact(&mut rec)?;
                    if let Some(&(at, m, r)) = wide[k].get(next_wide[k])
                        && at == read[k]
                    {
                        whole.wide.push((i, m, r));
                        next_wide[k] += 1;
                    }
                    read[k] += 1;
                    whole.packed.push(decode(&rec));
                }
                done += n;
                f(whole)?;
            }
            Ok(())
        };
        let result = run();
        (whole.packed, whole.wide) = kept;
        result
    }
}

/// Returns the heap's free pages to the system (glibc keeps what was freed — the reader's
/// blocks, a partition's samples — and the peak RSS would count it again and again). The
/// partition store of spilled samples calls it whenever a partition is given back.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator; no pointer is involved.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Where a report keeps texts it makes before it writes them (JSON records, `--details`,
/// HTML sections): memory when the samples are in memory, an anonymous temporary file when
/// they are spilled (the texts would not fit in memory either). The partition store chooses
/// ([`crate::compare::partitions::Partitions::scratch`]).
#[derive(Debug)]
pub enum Scratch {
    /// An anonymous temporary file ([`tempfile::tempfile`]).
    File(std::fs::File),
    /// Memory.
    Memory(Vec<u8>),
}

impl Scratch {
    /// An anonymous temporary file.
    ///
    /// # Errors
    /// Returns the error of creating the file (no temporary folder, no space).
    pub fn file() -> std::io::Result<Scratch> {
        Ok(Scratch::File(tempfile::tempfile()?))
    }

    /// Appends `bytes` at the end.
    ///
    /// # Errors
    /// Returns the error of writing the file (the disk is full).
    pub fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Scratch::File(f) => f.write_all(bytes),
            Scratch::Memory(m) => {
                m.extend_from_slice(bytes);
                Ok(())
            }
        }
    }

    /// Reads `buf.len()` bytes from `offset` (threads may read at once).
    ///
    /// # Errors
    /// Returns the error of reading, or an unexpected end of the texts.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        match self {
            Scratch::File(f) => read_at(f, buf, offset),
            Scratch::Memory(m) => {
                let at = usize::try_from(offset).map_err(std::io::Error::other)?;
                let text = (m.get(at..at + buf.len())).ok_or(std::io::ErrorKind::UnexpectedEof)?;
                buf.copy_from_slice(text);
                Ok(())
            }
        }
    }
}

/// Reads `buf.len()` bytes of `file` from `offset` (without moving a shared cursor, so that
/// threads may read at once).
///
/// # Errors
/// Returns the error of reading, or an unexpected end of file.
fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            match std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        // Reports from spilled samples that keep texts are not offered there.
        let _ = (file, buf, offset);
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

/// The sample of one record (its benchmark id as written: the spilling set's).
fn decode(rec: &[u8]) -> Packed {
    let word = |i: usize| u32::from_le_bytes([rec[i], rec[i + 1], rec[i + 2], rec[i + 3]]);
    let dword = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&rec[i..i + 8]);
        f64::from_bits(u64::from_le_bytes(b))
    };
    Packed {
        value: dword(0),
        time_s: dword(8),
        benchmark: word(16),
        tag: word(20),
    }
}
