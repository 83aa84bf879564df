//! `--format benchstat`: the view of Go's benchstat (golang.org/x/perf/cmd/benchstat, v2),
//! re-implemented from its documentation and golden outputs.
//!
//! One table per metric (unit), in the order metrics first appear; one row per benchmark in
//! first-seen order; a column per side (old = base, new with `vs base`). Per cell:
//! - the **median** of the side's samples with its **order-statistic 95% interval** as
//!   `± X%`, X = `max(hi/median − 1, 1 − lo/median)` ([`crate::verdict::benchstat::summarize`]); `± ∞` with
//!   the note "need >= 6 samples …" when the interval is not bounded by the sample;
//! - for units declared `assume=exact` (Go `Unit` metadata): the **mode**, `± X%` from the
//!   range, and a note when the values vary; the comparison is shown without a test;
//! - `vs base`: the change of the medians `new/old − 1` in percent (signed, `0.00%` when equal;
//!   `?` when the old median is 0 and the new is not) when the two-sided Mann–Whitney U test
//!   ([`crate::verdict::benchstat::rank_test`], exact with ties for n ≤ 25) gives p < α = 0.05, else `~`;
//!   followed by `(p=0.xxx n=N)` (`n=N₁+N₂` when the sides differ). Notes "all samples are
//!   equal" and "need >= 4 samples to detect a difference at alpha level 0.05" as benchstat.
//! - a **geomean** row when a table has more than one row: per column the geometric mean of
//!   the summaries (blank with a note when one is ≤ 0), and the geometric mean of the per-row
//!   ratios (0/0 counts as 1, x/0 makes it `?`), with a note when the benchmark sets differ.
//!
//! The change is the raw change of the value, as benchstat prints it: for lower-is-better
//! units (sec/op, B/op) a negative change is an improvement, for higher-is-better units (B/s)
//! a positive one.
//!
//! Values are scaled per row as benchstat does: the SI prefix (n, µ, m, k, M, G, …; binary Ki,
//! Mi, Gi, … for byte units) and the number of decimals are chosen so the row's smallest
//! non-zero value shows four significant digits; geomean cells are scaled one by one.
//! Layout differences from benchstat (column padding, centring of the header) are documented
//! in the README; every number, interval, change and p-value token is meant to be identical.

mod columns;
pub use columns::render_columns;

use crate::verdict::benchstat;
pub use crate::verdict::benchstat::{Summary, summarize};
use std::collections::BTreeSet;

/// What the view needs besides the samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Header of the old (base) column: the first file's name, or its `--label`.
    pub old_label: String,
    /// Header of the new column.
    pub new_label: String,
    /// Units declared `assume=exact`.
    pub exact_units: BTreeSet<String>,
    /// `key: value` lines printed above the tables (configuration common to all inputs).
    pub config: Vec<(String, String)>,
    /// Significance level of the U test (benchstat's `-alpha`, 0.05).
    pub alpha: f64,
    /// Confidence level of the intervals (benchstat's `-confidence`, 0.95).
    pub confidence: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            old_label: "old".to_owned(),
            new_label: "new".to_owned(),
            exact_units: BTreeSet::new(),
            config: Vec::new(),
            alpha: 0.05,
            confidence: 0.95,
        }
    }
}

/// benchstat's `vs base` cell (see the module doc) of a row whose base and compared column,
/// summarised as `so` and `sn`, gave the U test `t` (its p-value and ties are not read for
/// exact units): the change or `~`, the detail `(p=0.008 n=10)` or `(n=3)`, and the marks of
/// its notes (marked in `notes`).
fn delta(
    t: &Test,
    so: &Summary,
    sn: &Summary,
    exact: bool,
    alpha: f64,
    notes: &mut Notes,
) -> [String; 3] {
    let n = t.n;
    let n_text = if n[0] == n[1] {
        format!("n={}", n[0])
    } else {
        format!("n={}+{}", n[0], n[1])
    };
    let change = change_text(so.center, sn.center);
    if exact {
        return [change, format!("({n_text})"), String::new()];
    }
    let all_equal = t.all_equal.then(|| "all samples are equal".to_owned());
    let too_few = benchstat::too_few_to_detect(n, alpha)
        .then(|| format!("need >= 4 samples to detect a difference at alpha level {alpha}"));
    let mut marks = String::new();
    for note in [all_equal, too_few, t.regimes.map(str::to_owned)]
        .into_iter()
        .flatten()
    {
        add_mark(&mut marks, notes.mark(&note));
    }
    let text = if t.p < alpha { change } else { "~".to_owned() };
    [text, format!("(p={:.3} {n_text})", t.p), marks]
}

fn change_text(old: f64, new: f64) -> String {
    if old == 0.0 {
        return if new == 0.0 { "0.00%" } else { "?" }.to_owned();
    }
    let r = new / old;
    if r == 1.0 {
        "0.00%".to_owned()
    } else {
        format!("{:+.2}%", (r - 1.0) * 100.0)
    }
}

/// True when a unit is scaled by powers of 1024 (`B`, `…-bytes`).
pub fn is_binary_unit(unit: &str) -> bool {
    let num = unit.split('/').next().unwrap_or("");
    let last = num.rsplit('-').next().unwrap_or("");
    last == "B" || last == "bytes"
}

/// A scale for a row: divide by `factor`, append `prefix`, show `decimals` decimals.
#[derive(Clone, Debug, PartialEq)]
pub struct Scale {
    /// Divisor.
    pub factor: f64,
    /// SI or binary prefix.
    pub prefix: &'static str,
    /// Decimals shown.
    pub decimals: usize,
}

/// The scale benchstat uses for a row whose smallest non-zero magnitude is `min` (0 when
/// every value is 0): the largest prefix that keeps it ≥ 1, and decimals for four significant
/// digits.
pub fn scale_for(unit: &str, min: f64) -> Scale {
    if !(min.is_finite() && min > 0.0) {
        return Scale {
            factor: 1.0,
            prefix: "",
            decimals: 3,
        };
    }
    let (factor, prefix) = if is_binary_unit(unit) {
        const P: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
        let mut k = 0;
        while k + 1 < P.len() && min / 1024f64.powi(k as i32 + 1) >= 1.0 {
            k += 1;
        }
        (1024f64.powi(k as i32), P[k])
    } else {
        const P: [(f64, &str); 9] = [
            (1e12, "T"),
            (1e9, "G"),
            (1e6, "M"),
            (1e3, "k"),
            (1.0, ""),
            (1e-3, "m"),
            (1e-6, "µ"),
            (1e-9, "n"),
            (1e-12, "p"),
        ];
        P.iter()
            .find(|(f, _)| min / f >= 1.0 - 1e-12)
            .copied()
            .unwrap_or((1e-12, "p"))
    };
    let scaled = min / factor;
    let mag = scaled.log10().floor().max(0.0) as usize;
    Scale {
        factor,
        prefix,
        decimals: 3usize.saturating_sub(mag),
    }
}

/// A value with a scale: `46.55n`. A scaled value of 10¹⁵ or more (a row spanning many
/// orders of magnitude) is written with an exponent, `1.000e308`, instead of hundreds of
/// digits.
pub fn fmt_value(v: f64, s: &Scale) -> String {
    let x = v / s.factor;
    if x.is_finite() && x.abs() >= 1e15 {
        format!("{:.*e}{}", s.decimals.max(3), x, s.prefix)
    } else {
        format!("{:.*}{}", s.decimals, x, s.prefix)
    }
}

const SUPERSCRIPTS: [&str; 9] = ["¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"];

struct Notes(Vec<String>);

impl Notes {
    fn mark(&mut self, note: &str) -> String {
        let i = match self.0.iter().position(|n| n == note) {
            Some(i) => i,
            None => {
                self.0.push(note.to_owned());
                self.0.len() - 1
            }
        };
        mark(i)
    }
}

/// The mark of the `i`-th note (from 0): a superscript digit, `(10)` and on past nine.
fn mark(i: usize) -> String {
    SUPERSCRIPTS
        .get(i)
        .map_or_else(|| format!("({})", i + 1), |s| (*s).to_owned())
}

/// `opts` with its labels and configuration made safe for a terminal (they come from the
/// input).
pub fn escaped(opts: &Options) -> Options {
    let esc = |s: &str| super::escape_control(s).into_owned();
    Options {
        old_label: esc(&opts.old_label),
        new_label: esc(&opts.new_label),
        config: opts.config.iter().map(|(k, v)| (esc(k), esc(v))).collect(),
        ..opts.clone()
    }
}

/// Writes the `key: value` configuration lines of `opts` ([`escaped`]) that open the view.
///
/// # Errors
/// Write errors of `out`.
pub fn write_config(opts: &Options, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for (k, v) in &opts.config {
        let line = format!("{k}: {v}\n");
        out.write_all(super::escape_control_lines(&line).as_bytes())?;
    }
    Ok(())
}

/// The columns of a view: its options ([`escaped`]) and each column's header, the base first;
/// every further column is compared with the base (its `vs base` cell).
#[derive(Clone, Debug)]
pub struct View<'a> {
    opts: &'a Options,
    /// The headers ([`escaped`]).
    labels: Vec<String>,
    /// Only the new side has samples: its one column.
    only_new: bool,
}

/// What the view keeps of one benchmark's row of a table ([`View::row`]): what its cells are
/// made of.
#[derive(Clone, Debug)]
pub struct Row {
    /// The benchmark's name, control characters escaped, without trailing white space.
    name: Box<str>,
    /// The summary of each column's samples, the base first (none where it has none).
    sums: Box<[Option<Summary>]>,
    /// Per compared column (every one but the base): its U test against the base, when both
    /// have samples.
    tests: Box<[Option<Test>]>,
    /// The benchmark is a harness's aggregate (its configuration starts with `aggregate=`).
    aggregate: bool,
}

/// A compared column's U test against the base in one row.
#[derive(Clone, Copy, Debug)]
struct Test {
    /// The samples of the base and of the column (NaN included).
    n: [usize; 2],
    /// The two-sided p-value (NaN when the test gave none).
    p: f64,
    /// Every sample is equal.
    all_equal: bool,
    /// When the row shows a change (p < α): the note of a change that may come of two regimes
    /// ([`benchstat::regimes_note`]).
    regimes: Option<&'static str>,
}

/// What a table's geomean row needs of one compared column, gathered row by row.
#[derive(Clone, Default)]
struct Ratios {
    /// Per row with both sides: column centre / base centre (0/0 is 1, x/0 none).
    ratios: Vec<Option<f64>>,
    /// A row lacks the base or this column.
    differs: bool,
    /// A row compared is a harness's aggregate (Google Benchmark files with aggregates only),
    /// not samples: the geomean then says it includes them.
    aggregate: bool,
}

impl<'a> View<'a> {
    /// The view of samples with old ones (`any_old`) and new ones (`any_new`), with `opts`
    /// ([`escaped`]): a column per side that has samples.
    pub fn new(opts: &'a Options, any_old: bool, any_new: bool) -> View<'a> {
        let labels = match (any_old, any_new) {
            (true, true) => vec![opts.old_label.clone(), opts.new_label.clone()],
            (true, false) => vec![opts.old_label.clone()],
            (false, _) => vec![opts.new_label.clone()],
        };
        View {
            opts,
            labels,
            only_new: !any_old,
        }
    }

    /// The view of columns headed `labels` (the base first, [`escaped`]), with `opts`.
    fn columns(opts: &'a Options, labels: Vec<String>) -> View<'a> {
        View {
            opts,
            labels,
            only_new: false,
        }
    }

    /// The row of comparison `c` (`aggregate`: its benchmark's configuration starts with
    /// `aggregate=`; `exact`: its unit is declared exact): the summaries of its sides and,
    /// with both sides, the U test.
    pub fn row(&self, c: &crate::compare::Comparison, aggregate: bool, exact: bool) -> Row {
        let sides: Vec<&[f64]> = if self.labels.len() == 2 {
            vec![&c.old, &c.new]
        } else if self.only_new {
            vec![&c.new]
        } else {
            vec![&c.old]
        };
        let name = super::escape_control(c.name.trim_end()).into();
        self.row_of(name, &sides, aggregate, exact)
    }

    /// The row `name` ([`Row::name`]) of the samples `sides` of each column (the base first).
    fn row_of(&self, name: Box<str>, sides: &[&[f64]], aggregate: bool, exact: bool) -> Row {
        let opts = self.opts;
        let sums: Box<[Option<Summary>]> = sides
            .iter()
            .map(|v| (!v.is_empty()).then(|| summarize(v, exact, opts.confidence)))
            .collect();
        let tests = (1..sides.len())
            .map(|k| {
                (sums[0].is_some() && sums[k].is_some()).then(|| {
                    let t = benchstat::rank_test(sides[0], sides[k], exact);
                    // Only a change shown (p < α) can mislead: `~` claims none.
                    let medians =
                        [&sums[0], &sums[k]].map(|s| s.as_ref().map_or(f64::NAN, |s| s.center));
                    let regimes = (!exact && t.p_value < opts.alpha)
                        .then(|| benchstat::regimes_note(sides[0], sides[k], medians))
                        .flatten();
                    Test {
                        n: [sides[0].len(), sides[k].len()],
                        p: t.p_value,
                        all_equal: t.all_equal,
                        regimes,
                    }
                })
            })
            .collect();
        Row {
            name,
            sums,
            tests,
            aggregate,
        }
    }

    /// The cells of `r` (values in `unit`, `exact` or not), its notes marked in `notes`.
    fn cells(&self, r: &Row, unit: &str, exact: bool, notes: &mut Notes) -> RowCells {
        let min = r
            .sums
            .iter()
            .flatten()
            .map(|s| s.center.abs())
            .filter(|x| *x > 0.0)
            .fold(f64::INFINITY, f64::min);
        let sc = scale_for(unit, if min.is_finite() { min } else { 0.0 });
        let mut row = RowCells::new(&r.name, r.sums.len());
        for (j, s) in r.sums.iter().enumerate() {
            if let Some(s) = s {
                row.cols[j][0] = fmt_value(s.center, &sc);
                row.cols[j][1] = match s.range {
                    Some(r) => format!("± {:.0}%", r * 100.0),
                    None => "± ∞".to_owned(),
                };
                if let Some(n) = &s.note {
                    row.cols[j][2] = notes.mark(n);
                }
            }
        }
        for (k, t) in r.tests.iter().enumerate() {
            if let (Some(t), Some(so), Some(sn)) = (t, &r.sums[0], &r.sums[k + 1]) {
                row.deltas[k] = delta(t, so, sn, exact, self.opts.alpha, notes);
            }
        }
        row
    }

    /// Writes the table of the rows `get` finds in `rows` (in their order; values in `unit`,
    /// declared `exact` or not): its two header lines, a line per row, the geomean line when
    /// there are several rows, and the notes. The cells of each row are made twice, for the
    /// column widths and for its line, so that only the rows are kept (a report of a large
    /// compare.js CSV keeps 480,000 of them).
    ///
    /// # Errors
    /// Write errors of `out`.
    pub fn write_table<T>(
        &self,
        rows: &[T],
        get: impl Fn(&T) -> &Row,
        unit: &str,
        exact: bool,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let ncols = self.labels.len();
        let mut notes = Notes(Vec::new());
        let mut widths = Widths::new(ncols);
        let mut centers: Vec<Vec<f64>> = vec![Vec::new(); ncols];
        let mut compared: Vec<Ratios> = vec![Ratios::default(); ncols - 1];
        for r in rows.iter().map(&get) {
            widths.add(&self.cells(r, unit, exact, &mut notes));
            for (j, s) in r.sums.iter().enumerate() {
                if let Some(s) = s {
                    centers[j].push(s.center);
                }
            }
            for (k, c) in compared.iter_mut().enumerate() {
                match (r.tests[k], &r.sums[0], &r.sums[k + 1]) {
                    (Some(_), Some(so), Some(sn)) => {
                        c.aggregate |= r.aggregate;
                        c.ratios.push(if so.center == 0.0 {
                            (sn.center == 0.0).then_some(1.0)
                        } else {
                            Some(sn.center / so.center)
                        });
                    }
                    _ => c.differs = true,
                }
            }
        }
        let geomean = (rows.len() > 1).then(|| {
            let row = geomean(&centers, &compared, unit, &mut notes);
            widths.add(&row);
            row
        });
        drop((centers, compared));
        // The cells again, with the notes all marked: the same marks.
        let mut again = Notes(notes.0.clone());
        let mut each = |line: &mut dyn FnMut(&RowCells) -> std::io::Result<()>| {
            for r in rows.iter().map(&get) {
                line(&self.cells(r, unit, exact, &mut again))?;
            }
            if let Some(g) = &geomean {
                line(g)?;
            }
            Ok(())
        };
        self.layout(&widths, &mut each, unit, &notes.0, out)
    }

    /// Writes the lines of a table whose columns are `widths` wide: the header, the line of
    /// each row `each` gives (in order), the notes.
    #[allow(clippy::type_complexity)]
    fn layout(
        &self,
        widths: &Widths,
        each: &mut dyn FnMut(
            &mut dyn FnMut(&RowCells) -> std::io::Result<()>,
        ) -> std::io::Result<()>,
        unit: &str,
        notes: &[String],
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let labels = &self.labels;
        let sub = |cells: &[String; 3], w: &[usize; 3]| {
            join(&[
                (&cells[0], w[0], true),
                (&cells[1], w[1], false),
                (&cells[2], w[2], false),
            ])
        };
        let group = |r: &RowCells, j: usize| sub(&r.cols[j], &widths.cols[j]);
        let empty = RowCells::new("", labels.len());
        let vc: Vec<usize> = (0..labels.len())
            .map(|j| width(&group(&empty, j)).max(width(unit)))
            .collect();
        let compared = |r: &RowCells, j: usize| {
            let d = sub(&r.deltas[j - 1], &widths.deltas[j - 1]);
            format!("{}  {d}", pad_right(&group(r, j), vc[j]))
        };
        let gw: Vec<usize> = (0..labels.len())
            .map(|j| {
                if j == 0 {
                    vc[0].max(width(&labels[0]))
                } else {
                    width(&compared(&empty, j))
                        .max(vc[j] + 2 + width("vs base"))
                        .max(width(&labels[j]))
                }
            })
            .collect();
        // Names, units and labels come from the input: no terminal control characters.
        let line = |out: &mut dyn std::io::Write, s: String| {
            let mut s = s.trim_end().to_owned();
            s.push('\n');
            out.write_all(super::escape_control_lines(&s).as_bytes())
        };
        let blank = " ".repeat(widths.name);
        let mut h1 = format!("{blank} │");
        let mut h2 = format!("{blank} │");
        for (j, w) in gw.iter().enumerate() {
            h1.push_str(&format!(" {} │", center(&labels[j], *w)));
            let sub = if j == 0 {
                center(unit, *w)
            } else {
                pad_right(&format!("{}  vs base", center(unit, vc[j])), *w)
            };
            h2.push_str(&format!(" {sub} │"));
        }
        line(out, h1)?;
        line(out, h2)?;
        each(&mut |r| {
            let mut s = pad_right(&r.name, widths.name);
            for (j, w) in gw.iter().enumerate() {
                let g = if j == 0 { group(r, 0) } else { compared(r, j) };
                s.push_str("   ");
                s.push_str(&pad_right(&g, *w));
            }
            line(out, s)
        })?;
        for (i, n) in notes.iter().enumerate() {
            let text = format!("{} {n}\n", mark(i));
            out.write_all(super::escape_control_lines(&text).as_bytes())?;
        }
        Ok(())
    }
}

/// The geomean row of a table: per column the geometric mean of its rows' `centers` (blank
/// with a note when one is ≤ 0 or NaN), per compared column the geometric mean of its rows'
/// ratios to the base (`?` when one is x/0), with a note when the benchmark sets differ or
/// aggregates are included; its notes marked in `notes`.
fn geomean(centers: &[Vec<f64>], compared: &[Ratios], unit: &str, notes: &mut Notes) -> RowCells {
    let mean =
        |x: &mut dyn Iterator<Item = f64>, n: usize| (x.map(f64::ln).sum::<f64>() / n as f64).exp();
    let mut row = RowCells::new("geomean", centers.len());
    for (j, cs) in centers.iter().enumerate() {
        if cs.iter().any(|&c| c.is_nan() || c <= 0.0) {
            let m = notes.mark("summaries must be >0 to compute geomean");
            // benchstat puts a compared column's note at the end of its group.
            match j {
                0 => row.cols[0][2] = m,
                _ => add_mark(&mut row.deltas[j - 1][2], m),
            }
        } else if !cs.is_empty() {
            let g = mean(&mut cs.iter().copied(), cs.len());
            row.cols[j][0] = fmt_value(g, &scale_for(unit, g));
        }
        let Some(c) = j.checked_sub(1).map(|k| &compared[k]) else {
            continue;
        };
        let cell = &mut row.deltas[j - 1];
        cell[0] = if c.ratios.is_empty() || c.ratios.iter().any(Option::is_none) {
            "?".to_owned()
        } else {
            let g = mean(&mut c.ratios.iter().flatten().copied(), c.ratios.len());
            format!("{:+.2}%", (g - 1.0) * 100.0)
        };
        if c.differs {
            let m =
                notes.mark("benchmark set differs from baseline; geomeans may not be comparable");
            add_mark(&mut cell[2], m);
        }
        if c.aggregate {
            let m = notes
                .mark("includes rows marked aggregate= (a harness's summary value, not samples)");
            add_mark(&mut cell[2], m);
        }
    }
    row
}

/// Cells of one row: name; per column value, interval, note; per compared column delta,
/// detail, note.
struct RowCells {
    name: String,
    cols: Vec<[String; 3]>,
    deltas: Vec<[String; 3]>,
}

impl RowCells {
    /// The empty cells of a row `name` of `ncols` columns.
    fn new(name: &str, ncols: usize) -> RowCells {
        RowCells {
            name: name.to_owned(),
            cols: vec![Default::default(); ncols],
            deltas: vec![Default::default(); ncols.saturating_sub(1)],
        }
    }
}

/// The widest cell of each column of a table's rows (terminal columns).
struct Widths {
    name: usize,
    cols: Vec<[usize; 3]>,
    deltas: Vec<[usize; 3]>,
}

impl Widths {
    /// No width yet, for `ncols` columns.
    fn new(ncols: usize) -> Widths {
        Widths {
            name: 0,
            cols: vec![[0; 3]; ncols],
            deltas: vec![[0; 3]; ncols.saturating_sub(1)],
        }
    }

    /// Widens the columns to the cells of `r`.
    fn add(&mut self, r: &RowCells) {
        self.name = self.name.max(width(&r.name));
        let pairs = self.cols.iter_mut().zip(&r.cols);
        for (w, c) in pairs.chain(self.deltas.iter_mut().zip(&r.deltas)) {
            for k in 0..3 {
                w[k] = w[k].max(width(&c[k]));
            }
        }
    }
}

fn add_mark(cell: &mut String, mark: String) {
    if !cell.is_empty() {
        cell.push(' ');
    }
    cell.push_str(&mark);
}

fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

fn pad_right(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

fn center(s: &str, w: usize) -> String {
    let total = w.saturating_sub(width(s));
    let left = total / 2;
    format!("{}{s}{}", " ".repeat(left), " ".repeat(total - left))
}

/// Joins sub-cells `(text, width, right_aligned)` with single spaces; a zero-width sub-cell
/// (a note column nobody uses) takes no space.
fn join(parts: &[(&str, usize, bool)]) -> String {
    let mut out = String::new();
    let mut first = true;
    for &(t, w, right) in parts {
        if w == 0 {
            continue;
        }
        if !first {
            out.push(' ');
        }
        first = false;
        out.push_str(&if right {
            pad_left(t, w)
        } else {
            pad_right(t, w)
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_like_benchstat() {
        assert_eq!(fmt_value(46.55e-9, &scale_for("sec/op", 44.4e-9)), "46.55n");
        assert_eq!(fmt_value(1701e-9, &scale_for("sec/op", 298e-9)), "1701.0n");
        assert_eq!(
            fmt_value(15.014e-6, &scale_for("sec/op", 2.145e-6)),
            "15.014µ"
        );
        assert_eq!(
            fmt_value(1234567890.0, &scale_for("a-bytes", 1234567890.0)),
            "1.150Gi"
        );
        assert_eq!(fmt_value(0.0, &scale_for("x", 0.0)), "0.000");
        assert_eq!(fmt_value(100.0, &scale_for("text-bytes", 100.0)), "100.0");
    }
}
