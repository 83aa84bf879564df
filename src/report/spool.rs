//! A report's texts made partition by partition and written in report order: the JSON
//! records of its comparisons and their `--details` ([`Spool`]), and the sections of an HTML
//! page ([`Sections`]). Each text is appended once to the store's scratch space (memory, or a
//! temporary file for spilled samples: [`Partitions::scratch`]) and read back by its position,
//! so the report holds the positions, not the texts.

use crate::compare::partitions::Partitions;
use crate::render::table::TableRow;
use crate::sample::{BenchmarkId, MetricId, SampleSet, Scratch};
use crate::verdict::decide;
use std::io::Write;

/// The JSON records of a report's comparisons ([`crate::render::json::Comparison`]), made
/// partition by partition before the correction across the report and kept as lines of
/// compact JSON in the store's scratch space, to be read back in the report's order with
/// their corrected values ([`Spool::comparisons`]).
pub(super) struct Spool {
    store: Scratch,
    /// Bytes written so far.
    len: u64,
    /// Per text, in the order appended: where it is.
    spots: Vec<Spot>,
}

/// Texts for a [`Spool`]: runs of texts, each with the lengths of its texts in order.
type Texts = Vec<(Vec<u8>, Vec<u32>)>;

/// Where a text is in a [`Spool`]'s file.
struct Spot {
    offset: u64,
    len: u32,
}

impl Spool {
    /// An empty spool over `store` (where the partition store keeps texts:
    /// [`Partitions::scratch`]).
    pub(super) fn new(store: Scratch) -> Spool {
        Spool {
            store,
            len: 0,
            spots: Vec::new(),
        }
    }

    /// Appends the records of the comparisons `a` (made in parallel; their names and metric
    /// in `set`), in order.
    ///
    /// # Errors
    /// Returns the error of writing the file (the disk is full).
    pub(super) fn append(
        &mut self,
        set: &SampleSet,
        a: &[decide::Assessment],
    ) -> std::io::Result<()> {
        use rayon::prelude::*;
        const CHUNK: usize = 64;
        let texts: Texts = a
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut text = Vec::with_capacity(CHUNK * 2048);
                let mut lens = Vec::with_capacity(chunk.len());
                for x in chunk {
                    let start = text.len();
                    // The level only decides `significant`, set again when read back.
                    let record = crate::render::json::Comparison::new(set, x, f64::NAN);
                    serde_json::to_writer(&mut text, &record)?;
                    text.push(b'\n');
                    lens.push(u32::try_from(text.len() - start).map_err(|_| {
                        std::io::Error::other("a comparison's JSON text over 4 GiB")
                    })?);
                }
                Ok((text, lens))
            })
            .collect::<std::io::Result<_>>()?;
        self.append_texts(texts)
    }

    /// Appends the texts `texts`, in order.
    ///
    /// # Errors
    /// Returns the error of writing the file (the disk is full), or a text over 4 GiB.
    pub(super) fn append_each(&mut self, texts: Vec<String>) -> std::io::Result<()> {
        let runs: Texts = texts
            .into_iter()
            .map(|t| {
                let len = u32::try_from(t.len())
                    .map_err(|_| std::io::Error::other("a text over 4 GiB"))?;
                Ok((t.into_bytes(), vec![len]))
            })
            .collect::<std::io::Result<_>>()?;
        self.append_texts(runs)
    }

    /// The `i`-th text appended.
    ///
    /// # Errors
    /// Returns the error of reading the file, or `i` is not a text's index.
    pub(super) fn text(&self, i: usize) -> std::io::Result<Vec<u8>> {
        let spot = self.spots.get(i).ok_or(std::io::ErrorKind::NotFound)?;
        let mut text = vec![0; spot.len as usize];
        self.store.read_at(&mut text, spot.offset)?;
        Ok(text)
    }

    /// Appends the texts `texts` in order: each a run of texts, with the length of each.
    ///
    /// # Errors
    /// Returns the error of writing the file (the disk is full).
    fn append_texts(&mut self, texts: Texts) -> std::io::Result<()> {
        for (text, lens) in texts {
            self.store.append(&text)?;
            for len in lens {
                self.spots.push(Spot {
                    offset: self.len,
                    len,
                });
                self.len += u64::from(len);
            }
        }
        Ok(())
    }

    /// The records of the comparisons of `rows` (in report order, corrected and decided; the
    /// `i`-th appended as `spooled[i]`), each read back and given its corrected p-value,
    /// verdict (significance at `alpha`) and interval. A window of rows is read at a time, in parallel
    /// (the records are in partition order, so reading them in report order jumps about the
    /// file).
    pub(super) fn comparisons<'s>(
        &'s self,
        rows: &'s [TableRow<'_>],
        spooled: &'s [usize],
        alpha: f64,
    ) -> impl Iterator<Item = std::io::Result<crate::render::json::Comparison<'static>>> + 's {
        use rayon::prelude::*;
        const WINDOW: usize = 4096;
        rows.chunks(WINDOW)
            .enumerate()
            .flat_map(move |(k, window)| {
                let read = |(i, r): (usize, &TableRow<'_>)| {
                    let spot = &self.spots[spooled[k * WINDOW + i]];
                    let mut text = vec![0; spot.len as usize];
                    self.store.read_at(&mut text, spot.offset)?;
                    let mut c: crate::render::json::Comparison = serde_json::from_slice(&text)?;
                    c.correct(r.p_adjusted, r.verdict, r.estimate.change_ci_pct, alpha);
                    Ok(c)
                };
                let records: Vec<_> = window.par_iter().enumerate().map(read).collect();
                records
            })
    }
}

/// The sections of an HTML page's plotted comparisons, rendered partition by partition and
/// written in the page's order.
pub(super) struct Sections {
    /// Which rows of the page (in report order) have a section ([`crate::render::html::selected`]).
    pub(super) selected: Vec<bool>,
    spool: Spool,
    /// Per row of the page, the index of its section in `spool` (`u32::MAX`: none).
    spot_of: Vec<u32>,
}

impl Sections {
    /// The sections of the `rows` (report order, corrected and decided; the `i`-th of the
    /// benchmark `benchmarks[i]` of the whole set) that the page shows
    /// ([`crate::render::html::section`] of the comparison of `metric`, with `opts`'
    /// correction), rendered from the partitions of `parts`, read again.
    ///
    /// # Errors
    /// Returns the error of reading a partition or of writing the temporary file.
    pub(super) fn render<'a>(
        rows: &[TableRow<'_>],
        benchmarks: &[BenchmarkId],
        (plots, opts): (&crate::render::html::HtmlOptions, &decide::Options),
        metric: MetricId,
        parts: &mut dyn Partitions<'a>,
    ) -> std::io::Result<Sections> {
        use crate::render::html;
        use rayon::prelude::*;
        let selected = html::selected(rows, plots);
        let full = html::full_plots(&selected);
        // The page's row of each shown benchmark, by its id in the whole set.
        let mut at = vec![u32::MAX; parts.names().benchmarks().len()];
        for (i, b) in benchmarks.iter().enumerate() {
            if selected[i] {
                at[b.0 as usize] = i as u32;
            }
        }
        let mut spool = Spool::new(parts.scratch()?);
        let mut spot_of = vec![u32::MAX; rows.len()];
        for k in 0..parts.partitions() {
            let mut part = parts.partition(k, metric)?;
            let unit = part.set.metric(metric).unit.clone();
            let shown: Vec<(usize, crate::compare::Comparison)> =
                std::mem::take(&mut part.comparisons)
                    .into_iter()
                    .filter_map(|c| {
                        let i = at[part.global(&c).0 as usize];
                        (i != u32::MAX).then_some((i as usize, c))
                    })
                    .collect();
            parts.give_back(part);
            let texts: Texts = shown
                .par_iter()
                .map(|(i, c)| {
                    let text = html::section(&rows[*i], c, &unit, *i, opts.correction, full);
                    let len = u32::try_from(text.len())
                        .map_err(|_| std::io::Error::other("an HTML section over 4 GiB"))?;
                    Ok((text.into_bytes(), vec![len]))
                })
                .collect::<std::io::Result<_>>()?;
            // One text each, appended in order.
            let base = spool.spots.len();
            for (j, (i, _)) in shown.iter().enumerate() {
                spot_of[*i] = (base + j) as u32;
            }
            spool.append_texts(texts)?;
        }
        Ok(Sections {
            selected,
            spool,
            spot_of,
        })
    }

    /// Writes the sections of the rows `shown` (in order, by their index in the page) to `w`,
    /// read back in parallel.
    ///
    /// # Errors
    /// Returns the error of reading the file or of writing to `w`.
    pub(super) fn write(&self, shown: &[usize], w: &mut dyn Write) -> std::io::Result<()> {
        use rayon::prelude::*;
        let texts: Vec<Vec<u8>> = shown
            .par_iter()
            .map(|&i| self.spool.text(self.spot_of[i] as usize))
            .collect::<std::io::Result<_>>()?;
        for t in texts {
            w.write_all(&t)?;
        }
        Ok(())
    }
}
