//! What a report has to say besides the report itself: errors, warnings, notes and the
//! gate's verdict, as values. The library collects them in [`Messages`] in the order they
//! arise; only the CLI prints them (on stderr, one line each, as [`Message`]'s `Display`
//! writes it).

use super::Format;
use crate::compare::Comparison;
use crate::format::InputFormat;
use crate::stats::welch::WelchError;
use crate::verdict::decide;
use std::fmt;

/// One message of a report, without its line end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// A problem that ends the report or one of its inputs (printed `benchdiff: TEXT`).
    Error(String),
    /// Something the report went on past (printed `benchdiff: warning: TEXT`).
    Warning(String),
    /// Something the reader may want to know (printed `benchdiff: note: TEXT`).
    Note(String),
    /// What the report read, said before it (printed `benchdiff: TEXT`).
    Info(String),
    /// A line of the gate's verdict, printed as it is (`FAIL: …` and its indented rows).
    Gate(String),
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Error(t) => write!(f, "benchdiff: {t}"),
            Message::Warning(t) => write!(f, "benchdiff: warning: {t}"),
            Message::Note(t) => write!(f, "benchdiff: note: {t}"),
            Message::Info(t) => write!(f, "benchdiff: {t}"),
            Message::Gate(t) => f.write_str(t),
        }
    }
}

/// The messages of a report, in the order they arose.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Messages(pub Vec<Message>);

impl Messages {
    /// Adds an [`Message::Error`].
    pub fn error(&mut self, text: impl Into<String>) {
        self.0.push(Message::Error(text.into()));
    }

    /// Adds a [`Message::Warning`].
    pub fn warning(&mut self, text: impl Into<String>) {
        self.0.push(Message::Warning(text.into()));
    }

    /// Adds a [`Message::Info`].
    pub fn info(&mut self, text: impl Into<String>) {
        self.0.push(Message::Info(text.into()));
    }

    /// Adds a [`Message::Note`].
    pub fn note(&mut self, text: impl Into<String>) {
        self.0.push(Message::Note(text.into()));
    }

    /// Adds a [`Message::Gate`] line.
    pub fn gate(&mut self, text: impl Into<String>) {
        self.0.push(Message::Gate(text.into()));
    }

    /// Takes the messages collected so far, leaving none.
    pub fn take(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.0)
    }

    /// The messages, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Message> {
        self.0.iter()
    }
}

/// The warning that the input `file` gave no samples in the format it was read as
/// (`read_as`; `None` when none was recognised).
pub fn no_samples(file: &str, read_as: Option<InputFormat>) -> Message {
    Message::Warning(format!(
        "{file}: no samples: nothing in it reads as {} (another --input-format?)",
        read_as.map_or("a known format", InputFormat::name)
    ))
}

/// The error when the inputs hold no sample (nor failure) at all.
pub fn no_samples_at_all() -> Message {
    no_samples_read_as(None)
}

/// The error when the inputs, read as `read_as` (`None`: a CSV or not known), hold no sample
/// (nor failure) at all: the likely cause named for that format.
pub fn no_samples_read_as(read_as: Option<InputFormat>) -> Message {
    let why = match read_as {
        None | Some(InputFormat::NodeCompareCsv | InputFormat::NodeRunCsv) => {
            "a CSV header but no rows, or a run of 0 benchmarks".to_owned()
        }
        Some(f) => format!(
            "{} input without a result, or a run of 0 benchmarks",
            f.name()
        ),
    };
    Message::Error(format!(
        "no samples: the input holds no benchmark results ({why})"
    ))
}

/// The warning when `what` (`--format csv`, the CSV of a Node-file `compare`) wrote compare.js's
/// CSV, whose names are written as they are (compare.R reads them back), and one of them,
/// `cell` the first, starts as a formula would for a spreadsheet
/// ([`crate::format::node_csv::write::is_formula`]).
pub fn formula_cells(what: &str, cell: &str) -> String {
    format!(
        "{what} is compare.js's CSV, which compare.R reads: its names are written as they are, \
         and {cell:?} (the first such) starts with =, +, -, @, a tab or a carriage return, \
         which a spreadsheet may run as a formula; open the file in a spreadsheet as text only"
    )
}

/// The error when no benchmark has samples on both sides: the samples per side (`old`,
/// `new`), the inputs they came `from` (joined with `, `), and whether a `--sides-by` key was
/// given (then a key with two values is suggested too).
pub fn nothing_to_compare(old: u64, new: u64, from: &str, sides_by: bool) -> Message {
    Message::Error(format!(
        "nothing to compare: no benchmark has samples on both sides (old: {old} samples, new: \
         {new} samples, from {from}); give the old results and the new results (two files, \
         old first, or --label old=FILE --label new=FILE){}",
        if sides_by {
            ", or a --sides-by key with two values"
        } else {
            ""
        }
    ))
}

/// The warning, when some of the comparisons `(name, old samples, new samples)` have too few
/// samples for any rank test to reach p < 0.05 (compare.R's and compare.js's layouts show
/// stars by their own rule), naming how many and the first.
pub fn too_few<'a>(counts: impl Iterator<Item = (&'a str, usize, usize)>) -> Option<Message> {
    let mut few = counts.filter(|&(_, o, n)| decide::min_attainable_p(o, n) > 0.05);
    let (name, o, n) = few.next()?;
    Some(Message::Warning(format!(
        "{} comparison(s) have too few samples for any verdict (first: {}, {o}+{n}: no rank \
         test can reach p < 0.05); their stars rest on normality alone",
        1 + few.count(),
        crate::render::escape_control(name.trim_end()),
    )))
}

/// A comparison the notes speak of: values below 0, or no Welch test because the data are
/// essentially constant or not finite.
pub(crate) struct RowNote<'a> {
    comparison: &'a Comparison,
    negative: bool,
    error: Option<WelchError>,
    /// compare.R's improvement, percent (read only for essentially constant data).
    improvement_pct: f64,
}

impl<'a> RowNote<'a> {
    /// The note on `c` with Welch's `error`, if any; `improvement` is called only when needed.
    pub(crate) fn of(
        c: &'a Comparison,
        error: Option<WelchError>,
        improvement: impl FnOnce() -> f64,
    ) -> Option<RowNote<'a>> {
        let negative = c.old.iter().chain(&c.new).any(|v| *v < 0.0);
        let error =
            error.filter(|e| matches!(e, WelchError::EssentiallyConstant | WelchError::NotFinite));
        if !negative && error.is_none() {
            return None;
        }
        let improvement_pct = if error == Some(WelchError::EssentiallyConstant) {
            improvement()
        } else {
            f64::NAN
        };
        Some(RowNote {
            comparison: c,
            negative,
            error,
            improvement_pct,
        })
    }
}

/// The notes of `rows` (in report order) for a report in `format`: one warning for values
/// below 0, one note per comparison without a Welch test.
pub(crate) fn row_notes(rows: &[RowNote<'_>], format: Format, out: &mut Messages) {
    let non_positive: Vec<&str> = rows
        .iter()
        .filter(|r| r.negative)
        .map(|r| r.comparison.name.trim_end())
        .collect();
    if let Some(first) = non_positive.first() {
        let first = crate::render::escape_control(first);
        out.warning(format!(
            "{} comparison(s) have values < 0 (first: {first}); changes are ratios and need \
             values ≥ 0: their intervals (paired, Fieller) are NA",
            non_positive.len()
        ));
    }
    for row in rows {
        match row.error {
            Some(WelchError::EssentiallyConstant) => {
                let c = row.comparison;
                let constant = |v: &[f64]| v.iter().all(|x| *x == v[0]);
                let what = if !(constant(&c.old) && constant(&c.new)) {
                    "the standard error is negligible against the means (R's t.test rule: \
                     below 10·ε·max(|mean|), \"data are essentially constant\"), so the \
                     difference is taken as exact"
                } else if row.improvement_pct == 0.0 {
                    "both sides are constant and equal: no change"
                } else {
                    "both sides are constant and differ: the difference is exact"
                };
                let shown = if format == Format::R {
                    "confidence shown as NA"
                } else {
                    "p shown as \"exact\""
                };
                out.note(format!(
                    "{}: {what}; no t-test, {shown} (R's compare.R stops the whole report here)",
                    c.name.trim_end()
                ));
            }
            Some(WelchError::NotFinite) => out.note(format!(
                "{}: a rate is NaN or infinite; no t-test, confidence shown as NA",
                row.comparison.name
            )),
            _ => {}
        }
    }
}
