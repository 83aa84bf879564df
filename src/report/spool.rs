//! Temporary files of a report's texts made partition by partition and written in report
//! order: the JSON records of its comparisons and their `--details` ([`Spool`]), and the
//! sections of an HTML page ([`Sections`]). Each text is appended once and read back by its position, so the report
//! holds the positions, not the texts.

use crate::compare::partitions::Partitions;
use crate::render::table::TableRow;
use crate::sample::{BenchmarkId, MetricId, SampleSet};
use crate::verdict::decide;
use std::io::Write;

/// The JSON records of a report's comparisons ([`crate::render::json::Comparison`]), made
/// partition by partition before the correction across the report and kept as lines of
/// compact JSON in an anonymous temporary file (as the spilled samples: [`tempfile::tempfile`]),
/// to be read back in the report's order with their corrected values ([`Spool::comparisons`]).
pub(super) struct Spool {
    store: Store,
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
    /// An empty spool: over a new temporary file when `in_files` (the report's samples are
    /// spilled to files: its texts would not fit in memory either), else in memory.
    ///
    /// # Errors
    /// Returns the error of creating the file (no temporary folder, no space).
    pub(super) fn new(in_files: bool) -> std::io::Result<Spool> {
        Ok(Spool {
            store: if in_files {
                Store::File(tempfile::tempfile()?)
            } else {
                Store::Memory(Vec::new())
            },
            len: 0,
            spots: Vec::new(),
        })
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
            match &mut self.store {
                Store::File(f) => f.write_all(&text)?,
                Store::Memory(m) => m.extend_from_slice(&text),
            }
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

/// The sections of an HTML page's plotted comparisons, to be written in the page's order.
pub(super) struct Sections {
    /// Which rows of the page (in report order) have a section ([`crate::render::html::selected`]).
    pub(super) selected: Vec<bool>,
    texts: SectionTexts,
}

/// Where the sections of a page come from.
enum SectionTexts {
    /// Rendered partition by partition (spilled samples) into `spool`; per row of the page,
    /// the index of its section there (`u32::MAX`: none).
    Spooled { spool: Spool, spot_of: Vec<u32> },
    /// Rendered as the page is written from the comparisons kept in memory: per row of the
    /// page, its comparison when it has a section; their unit, whether the plots are full,
    /// and the correction.
    Kept {
        comparisons: Vec<Option<crate::compare::Comparison>>,
        unit: String,
        full: bool,
        correction: decide::Correction,
    },
}

impl Sections {
    /// The sections of the `rows` (report order, corrected and decided; the `i`-th of the
    /// benchmark `benchmarks[i]` of the whole set) that the page shows
    /// ([`crate::render::html::section`] of the comparison of `metric`, with `opts`'
    /// correction): from `kept` (per row in the order of analysis, its comparison; the
    /// `i`-th row's is `kept[order[i]]`) when the samples are in memory, else rendered now
    /// from the partitions of `parts`, read again.
    ///
    /// # Errors
    /// Returns the error of reading a partition or of writing the temporary file.
    pub(super) fn render<'a>(
        rows: &[TableRow<'_>],
        (benchmarks, order): (&[BenchmarkId], &[usize]),
        kept: Option<Vec<crate::compare::Comparison>>,
        (plots, opts): (&crate::render::html::HtmlOptions, &decide::Options),
        metric: MetricId,
        parts: &mut dyn Partitions<'a>,
    ) -> std::io::Result<Sections> {
        use crate::render::html;
        use rayon::prelude::*;
        let selected = html::selected(rows, plots);
        let full = html::full_plots(&selected);
        if let Some(kept) = kept {
            let mut kept: Vec<Option<_>> = kept.into_iter().map(Some).collect();
            let comparisons = (order.iter().zip(&selected))
                .map(|(&i, &s)| if s { kept[i].take() } else { None })
                .collect();
            return Ok(Sections {
                selected,
                texts: SectionTexts::Kept {
                    comparisons,
                    unit: parts.names().metric(metric).unit.clone(),
                    full,
                    correction: opts.correction,
                },
            });
        }
        // The page's row of each shown benchmark, by its id in the whole set.
        let mut at = vec![u32::MAX; parts.names().benchmarks().len()];
        for (i, b) in benchmarks.iter().enumerate() {
            if selected[i] {
                at[b.0 as usize] = i as u32;
            }
        }
        let mut spool = Spool::new(parts.spills())?;
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
            drop(shown);
            super::release_free_memory();
        }
        Ok(Sections {
            selected,
            texts: SectionTexts::Spooled { spool, spot_of },
        })
    }

    /// Writes the sections of the rows `shown` (in order; `rows` the page's) to `w`, read
    /// back or rendered in parallel.
    ///
    /// # Errors
    /// Returns the error of reading the file or of writing to `w`.
    pub(super) fn write(
        &self,
        shown: &[usize],
        rows: &[TableRow<'_>],
        w: &mut dyn Write,
    ) -> std::io::Result<()> {
        use rayon::prelude::*;
        let texts: Vec<Vec<u8>> = match &self.texts {
            SectionTexts::Spooled { spool, spot_of } => shown
                .par_iter()
                .map(|&i| spool.text(spot_of[i] as usize))
                .collect::<std::io::Result<_>>()?,
            SectionTexts::Kept {
                comparisons,
                unit,
                full,
                correction,
            } => shown
                .par_iter()
                .filter_map(|&i| {
                    let c = comparisons.get(i)?.as_ref()?;
                    let text =
                        crate::render::html::section(&rows[i], c, unit, i, *correction, *full);
                    Some(text.into_bytes())
                })
                .collect(),
        };
        for t in texts {
            w.write_all(&t)?;
        }
        Ok(())
    }
}

/// Where a [`Spool`] keeps its texts.
enum Store {
    /// An anonymous temporary file.
    File(std::fs::File),
    /// Memory.
    Memory(Vec<u8>),
}

impl Store {
    /// Reads `buf.len()` bytes from `offset` (threads may read at once).
    ///
    /// # Errors
    /// Returns the error of reading, or an unexpected end of the texts.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        match self {
            Store::File(f) => read_at(f, buf, offset),
            Store::Memory(m) => {
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
        // JSON takes the in-memory path there (`try_report`).
        let _ = (file, buf, offset);
        Err(std::io::ErrorKind::Unsupported.into())
    }
}
