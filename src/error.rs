//! Errors of the library layers. Every input problem carries its position (`file:line`).

use std::fmt;

/// A problem with one line of an input file: where it is and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The input's name as the user gave it (`-` or `<stdin>` for standard input).
    pub file: String,
    /// 1-based line number; 0 when the problem is not tied to one line.
    pub line: u64,
    /// What was wrong, in words that say how to fix it.
    pub message: String,
}

impl Diagnostic {
    /// The diagnostic `message` at 1-based `line` of input `file` (0: not tied to one line).
    pub fn new(file: &str, line: u64, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_owned(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

/// Reading an input failed: either I/O, or one or more lines could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// The input's name.
        file: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Lines that could not be read, in input order (at most [`MAX_DIAGNOSTICS`] are kept).
    #[error("{}", format_diagnostics(.0, *.1))]
    Invalid(Vec<Diagnostic>, u64),
}

/// How many line diagnostics an import keeps before it only counts the rest.
pub const MAX_DIAGNOSTICS: usize = 20;

fn format_diagnostics(d: &[Diagnostic], total: u64) -> String {
    let mut s = d
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let more = total.saturating_sub(d.len() as u64);
    if more > 0 {
        s.push_str(&format!("\n... and {more} more bad line(s)"));
    }
    s
}

/// Collects positioned diagnostics, keeping the first [`MAX_DIAGNOSTICS`].
#[derive(Debug, Default)]
pub struct Diagnostics {
    file: String,
    kept: Vec<Diagnostic>,
    total: u64,
}

impl Diagnostics {
    /// An empty collector for input `file`.
    pub fn new(file: &str) -> Self {
        Diagnostics {
            file: file.to_owned(),
            kept: Vec::new(),
            total: 0,
        }
    }

    /// Records a problem at 1-based `line` (0: not tied to a line).
    pub fn push(&mut self, line: u64, message: impl Into<String>) {
        self.total += 1;
        if self.kept.len() < MAX_DIAGNOSTICS {
            self.kept.push(Diagnostic {
                file: self.file.clone(),
                line,
                message: message.into(),
            });
        }
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `Ok(())` when nothing was recorded, else [`ImportError::Invalid`] with the diagnostics.
    ///
    /// # Errors
    /// [`ImportError::Invalid`] when any problem was recorded.
    pub fn finish(self) -> Result<(), ImportError> {
        if self.total == 0 {
            Ok(())
        } else {
            Err(ImportError::Invalid(self.kept, self.total))
        }
    }

    /// A collector for input `file` already holding `kept` (the first problems) of `total`.
    pub fn from_parts(file: &str, kept: Vec<Diagnostic>, total: u64) -> Self {
        Diagnostics {
            file: file.to_owned(),
            kept,
            total,
        }
    }

    /// How many problems were recorded (kept or only counted).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The lenient end of an import that read `records` whole records (`what` names them,
    /// e.g. "result lines"): nothing recorded → `Ok(None)`; problems but no record at all →
    /// [`ImportError::Invalid`] with every kept diagnostic; problems besides records → one
    /// summary warning, positioned at the first problem's line, that starts with that
    /// problem's message and says how many records were read and how many lines skipped.
    ///
    /// # Errors
    /// [`ImportError::Invalid`] when problems were recorded and `records` is 0.
    pub fn finish_lenient(
        self,
        records: u64,
        what: &str,
    ) -> Result<Option<Diagnostic>, ImportError> {
        if self.total == 0 {
            return Ok(None);
        }
        if records == 0 {
            return Err(ImportError::Invalid(self.kept, self.total));
        }
        let Some(first) = self.kept.into_iter().next() else {
            return Ok(None);
        };
        let skipped = if self.total == 1 {
            "skipped this line".to_owned()
        } else {
            format!("skipped {} lines, this one first", self.total)
        };
        Ok(Some(Diagnostic {
            message: format!(
                "{} (read {records} {what}; {skipped}; the whole records are compared)",
                first.message
            ),
            ..first
        }))
    }

    /// The recorded diagnostics (for warnings).
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.kept
    }
}
