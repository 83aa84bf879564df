//! The default report for people (`--format table`): one line per comparison with the change
//! of the new build and its 95% interval, raw and corrected p-values, the verdict and the runs,
//! then a one-line summary. Colour (green faster, red slower, yellow inconclusive) only when the
//! caller says so (`Io::color` of [`crate::cli`]: a terminal, `NO_COLOR`, `CLICOLOR`,
//! `CLICOLOR_FORCE`).

use crate::compare::OneSided;
use crate::compare::failures::Failures;
use crate::verdict::decide::{self, Assessment, Method, Options, SideSummary, Verdict};
use comfy_table::{
    Attribute, Cell, CellAlignment, Color, ContentArrangement, LineStyle, Table, presets,
};
use std::fmt::Write as _;

/// Formats a signed percentage with two decimals: `+3.25%`, `-0.40%`.
pub fn signed_pct(x: f64) -> String {
    if x.is_nan() {
        "NA".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 {
            "+Inf%".to_owned()
        } else {
            "-Inf%".to_owned()
        }
    } else {
        format!("{}{x:.2}%", if x >= 0.0 { "+" } else { "" })
    }
}

/// An interval of changes in percent as its cell shows it, `[-1.20%, +3.25%]`; `NA` for none.
pub fn ci_text(ci: Option<(f64, f64)>) -> String {
    match ci {
        Some((lo, hi)) => format!("[{}, {}]", signed_pct(lo), signed_pct(hi)),
        None => "NA".to_owned(),
    }
}

/// Formats a p-value compactly: 4 decimals, or scientific notation below 0.0001.
pub fn p_text(p: f64) -> String {
    if p.is_nan() {
        "NA".to_owned()
    } else if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// Whether the p-value cells of `a` say `exact` whatever the p-value: unpaired, on data R's
/// t-test calls essentially constant ([`p_cell`]).
fn is_exact(a: &Assessment) -> bool {
    a.method == Method::Unpaired
        && matches!(
            a.row.welch,
            Err(crate::verdict::decide::WelchError::EssentiallyConstant)
        )
}

/// The p-value cell of a comparison: `exact` when the difference needed no test (`exact`:
/// unpaired, on data R's t-test calls essentially constant, [`TableRow::exact`]: the standard
/// error is negligible against the means, so the difference is exact and `p` is 0 or 1 by
/// convention), else [`p_text`] of `p`.
pub fn p_cell(exact: bool, p: f64) -> String {
    if exact {
        "exact".to_owned()
    } else if p == 0.0 {
        // Only an exact difference (no spread at all) gives p = 0: the docs call it `exact`.
        "exact".to_owned()
    } else {
        p_text(p)
    }
}

/// The verdict text, with runs needed for an inconclusive one.
pub fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::Inconclusive {
            runs_needed: Some(n),
        } => format!("inconclusive (~{n} runs)"),
        v => v.label().to_owned(),
    }
}

/// The verdict cell of a comparison: [`verdict_text`] of `v`, followed by `, 2 regimes` when
/// a side's samples fall into two `regimes`, whose averaged change the verdict rests on (the
/// notes give the change per regime).
pub fn verdict_cell(v: Verdict, regimes: bool) -> String {
    let v = verdict_text(v);
    if regimes {
        format!("{v}, 2 regimes")
    } else {
        v
    }
}

/// Whether the side's samples fall into two regimes ([`crate::stats::regimes`]).
pub fn has_regimes(s: &SideSummary) -> bool {
    s.multimodal.is_some()
}

/// The change per regime as one note sentence (`None` when no side has two regimes): each
/// pair `old centre (share) → new centre (share): change`.
pub fn regime_change_text(a: &Assessment) -> Option<String> {
    let r = a.regime_changes();
    if r.is_empty() {
        return None;
    }
    let parts: Vec<String> = r
        .iter()
        .map(|c| {
            format!(
                "{} ({:.0}%) → {} ({:.0}%): {}",
                si(c.old_centre),
                c.old_share * 100.0,
                si(c.new_centre),
                c.new_share * 100.0,
                signed_pct(c.change_pct)
            )
        })
        .collect();
    Some(format!(
        "change per regime, old (share of runs) → new: {}; the overall {} averages the regimes",
        parts.join(", "),
        signed_pct(a.change_pct)
    ))
}

/// A value with 3 significant digits and an SI suffix: `1.80M`, `952k`, `12.3`, `4.56m`,
/// `215n` (T, G, M, k, none, m, µ, n, p; 0 is `0.00`).
pub fn si(x: f64) -> String {
    si_with(x, 0)
}

/// The values `xs` as [`si`] writes them, with as many more digits (up to 6) as it takes for
/// different values to be written differently (two regime centres of 15.46n and 15.54n are
/// `15.46n` and `15.54n`, not `15.5n` twice).
pub fn si_distinct(xs: &[f64]) -> Vec<String> {
    let mut out = Vec::new();
    for extra in 0..=6 {
        out = xs.iter().map(|&x| si_with(x, extra)).collect();
        let clash =
            (0..xs.len()).any(|i| (i + 1..xs.len()).any(|j| xs[i] != xs[j] && out[i] == out[j]));
        if !clash {
            break;
        }
    }
    out
}

/// [`si`] with `extra` more digits after the point.
fn si_with(x: f64, extra: usize) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let (v, suffix) = match x.abs() {
        a if a >= 1e12 => (x / 1e12, "T"),
        a if a >= 1e9 => (x / 1e9, "G"),
        a if a >= 1e6 => (x / 1e6, "M"),
        a if a >= 1e3 => (x / 1e3, "k"),
        a if a >= 1.0 || a == 0.0 => (x, ""),
        // No `m` (milli): "573m ops/s" beside "1.50M ops/s" is easily misread; write 0.573.
        a if a >= 1e-3 => {
            let digits = extra
                + if a >= 0.1 {
                    3
                } else if a >= 0.01 {
                    4
                } else {
                    5
                };
            return format!("{x:.digits$}");
        }
        a if a >= 1e-6 => (x * 1e6, "µ"),
        a if a >= 1e-9 => (x * 1e9, "n"),
        _ => (x * 1e12, "p"),
    };
    let digits = extra
        + if v.abs() >= 100.0 {
            0
        } else if v.abs() >= 10.0 {
            1
        } else {
            2
        };
    format!("{v:.digits$}{suffix}")
}

/// The flag of a comparison tested from summary statistics ([`flags`]).
const SUMMARY_FLAG: &str = "summary-stats";

/// Short flags of a comparison: `too-few-samples`, `summary-stats` (tested from each side's
/// mean, sd and n: the input has no samples), `multimodal(old)`, `drift(new)`,
/// `outliers(old:2)`.
pub fn flags(a: &Assessment) -> String {
    let mut f: Vec<String> = Vec::new();
    let sides = [("old", &a.old_side), ("new", &a.new_side)];
    let which = |pred: &dyn Fn(&SideSummary) -> bool| -> Vec<&str> {
        sides
            .iter()
            .filter(|(_, s)| pred(s))
            .map(|(n, _)| *n)
            .collect()
    };
    if a.too_few_samples {
        f.push("too-few-samples".to_owned());
    }
    if a.row.comparison.summary.is_some() {
        f.push(SUMMARY_FLAG.to_owned());
    }
    let m = which(&|s| s.multimodal.is_some());
    if !m.is_empty() {
        f.push(format!("multimodal({})", m.join(",")));
    }
    let d = which(&|s| s.significant_drift().is_some());
    if !d.is_empty() {
        f.push(format!("drift({})", d.join(",")));
    }
    let o: Vec<String> = sides
        .iter()
        .filter(|(_, s)| !s.outliers.is_empty())
        .map(|(n, s)| format!("{n}:{}", s.outliers.len()))
        .collect();
    if !o.is_empty() {
        f.push(format!("outliers({})", o.join(",")));
    }
    if let Some(c) = &a.combined {
        f.push(format!("combined({} machines)", c.k()));
        if c.heterogeneous() {
            f.push(format!("heterogeneous({})", c.outliers().join(",")));
        }
    }
    f.join(" ")
}

/// The note on a comparison combined over machines (a sharded run): the machines,
/// their changes, the method, and the heterogeneity flag naming the outlying machine(s).
pub fn combined_text(a: &Assessment) -> Option<String> {
    a.combined.as_ref().map(|c| c.note())
}

/// Notes for the flagged comparisons of `rows`: each one's own ([`TableRow::notes`]: the
/// modes of a multimodal side, drift, …), then [`too_few_note`] and the note on comparisons
/// with a single sample on a side. (Outliers are counted in the flags column: flagged, never
/// dropped.)
pub fn notes(rows: &[TableRow<'_>]) -> String {
    let mut out: String = rows.iter().map(|x| &*x.notes).collect();
    out.push_str(&count_notes(rows));
    out
}

/// The notes of [`notes`] that follow the comparisons' own: too few samples
/// ([`too_few_note`]) and comparisons with a single sample on a side (untestable).
fn count_notes(rows: &[TableRow<'_>]) -> String {
    let mut out = String::new();
    if let Some(t) = too_few_note(rows) {
        let _ = writeln!(out, "note: {}", super::escape_control(&t));
    }
    let mut summary = rows
        .iter()
        .filter(|x| x.flags.split(' ').any(|f| f == SUMMARY_FLAG));
    if let Some(first) = summary.next() {
        let _ = writeln!(
            out,
            "note: {} comparison(s) tested from summary statistics (first: {}): the input gives \
             each side's mean, standard deviation and n, not samples; Welch's test and \
             Fieller's interval are computed from them and no sample is invented",
            1 + summary.count(),
            super::escape_control(first.name.trim_end())
        );
    }
    // Harnesses that report one figure per benchmark (criterion text, Google Benchmark without
    // repetitions) give one sample a side: nothing to test, say so once.
    let mut single = rows
        .iter()
        .filter(|x| x.estimate.n[0].min(x.estimate.n[1]) == 1);
    if let Some(first) = single.next() {
        let count = 1 + single.count();
        let name = super::escape_control(first.name.trim_end());
        let which = if count == 1 {
            format!("{name}: one sample on a side")
        } else {
            format!("{count} comparisons have one sample on a side (first: {name})")
        };
        let _ = writeln!(
            out,
            "note: {which}: with n=1 there is no variance, so no test is possible and the \
             verdict stays inconclusive; {}",
            first.single_hint
        );
    }
    out
}

/// The hint of the single-sample note for a comparison `c` of the report: it fits the input,
/// known by its metric: Go units, Node's rate, or the harnesses that print one figure per
/// benchmark.
fn single_hint(c: &crate::compare::Comparison) -> &'static str {
    match c.metric_name.as_str() {
        "sec/op" | "B/op" | "allocs/op" | "B/s" => {
            "run each side several times (go test -count 10) and give every line"
        }
        "rate" if c.unit == "ops/s" => {
            "run more rounds (benchdiff compare --runs N, or compare.js --runs N)"
        }
        _ => {
            "give the raw samples or repetitions (e.g. Google Benchmark's \
             --benchmark_repetitions, cargo-criterion's JSON, hyperfine --runs)"
        }
    }
}

/// The hint of the single-sample note for the input format `format` (how that harness takes
/// more samples); for samples of no known format (a benchdiff run), [`TableRow::of`]'s hint by
/// the comparison's metric.
pub fn single_hint_for(format: crate::format::InputFormat) -> &'static str {
    use crate::format::InputFormat as F;
    match format {
        F::Go => "run each side several times (go test -count 10) and give every line",
        F::Hyperfine => "measure more runs (hyperfine --runs N, or --min-runs N)",
        F::NodeCompareCsv | F::NodeRunCsv => {
            "run more rounds (benchdiff compare --runs N, or compare.js --runs N)"
        }
        F::ResultsJsonl => "run more rounds (benchdiff compare --runs N)",
        F::GoogleBenchmark => {
            "repeat each benchmark (--benchmark_repetitions=10) and give the repetitions, not \
             only the aggregates"
        }
        F::Libtest => {
            "libtest prints one figure per benchmark: run cargo bench several times and give \
             every output, or measure with criterion and compare its saved baselines"
        }
        F::Criterion => {
            "give criterion's samples: compare its saved baselines (benchdiff report \
             target/criterion) instead of the printed estimates"
        }
        F::CriterionBaselines | F::CriterionSample => {
            "take more samples (criterion's sample_size, at least 10)"
        }
        F::PytestBenchmark => "run more rounds (pytest --benchmark-min-rounds N)",
        F::Pyperf => "run more processes and values (pyperf's --processes and --values)",
        F::Jmh => "run more forks and iterations (JMH -f N -i N)",
        F::BenchmarkDotNet => {
            "export the full JSON (exporters: JSON full) so every measurement is a sample"
        }
        F::Tinybench | F::Mitata | F::BenchmarkJs => {
            "give the raw samples (more iterations, or a JSON output that keeps them)"
        }
        F::Catch2Xml => "take more samples (Catch2's --benchmark-samples N)",
    }
}

/// The notes of one comparison in the table: the modes of a multimodal side (centre, share)
/// with the warning that the mean difference is not a reliable verdict, drift against run
/// order, the change per regime, a combination over machines, a side too small to tell
/// regimes; appended to `out` (its [`TableRow::notes`] in the table).
pub fn comparison_notes(x: &Assessment, out: &mut String) {
    let name = super::escape_control(x.row.comparison.name.trim_end());
    for (side, s) in [("old", &x.old_side), ("new", &x.new_side)] {
        if let Some(m) = &s.multimodal {
            let _ = writeln!(
                out,
                "note: {name}: the {side} binary's samples fall into {} regimes: {} \
                 ({}); the difference of means is not a reliable verdict",
                m.modes.len(),
                modes_text(m, &x.row.comparison.unit),
                evidence(m)
            );
        }
        if let Some(d) = s.significant_drift() {
            let _ = writeln!(
                out,
                "note: {name}: the {side} binary's {} drifts {:+.2}% per run against run \
                 order (Kendall tau {:.2}, p={:.4})",
                x.row.comparison.metric_name, d.slope_pct_per_run, d.tau, d.p_value
            );
        }
    }
    let few = [("old", &x.old_side), ("new", &x.new_side)].map(|(n, s)| too_few_regimes_text(n, s));
    for t in [regime_change_text(x), combined_text(x)]
        .into_iter()
        .chain(few)
        .flatten()
    {
        let _ = writeln!(out, "note: {name}: {}", super::escape_control(&t));
    }
}

/// The note for a side of 4 or 5 samples split in two groups
/// ([`crate::verdict::decide::SideSummary::split`]).
pub fn too_few_regimes_text(side: &str, s: &crate::verdict::decide::SideSummary) -> Option<String> {
    let (a, b) = s.split?;
    Some(format!(
        "the {side} binary's {} samples split into two groups (near {} and {}), too few to \
         tell two regimes from noise: the regime test needs at least {} runs",
        s.n,
        si(a),
        si(b),
        crate::verdict::decide::REGIME_MIN_N
    ))
}

/// The modes of a multimodal side, `centre unit (share% of runs)` each (the centres as
/// [`si_distinct`] writes them, no unit when `unit` is empty), joined by `, `.
pub fn modes_text(m: &crate::verdict::decide::Multimodal, unit: &str) -> String {
    let centres: Vec<f64> = m.modes.iter().map(|md| md.centre).collect();
    let sep = if unit.is_empty() { "" } else { " " };
    let modes: Vec<String> = (m.modes.iter().zip(si_distinct(&centres)))
        .map(|(md, centre)| format!("{centre}{sep}{unit} ({:.0}% of runs)", md.share * 100.0))
        .collect();
    modes.join(", ")
}

/// What flagged a multimodal side: `gap test` (the gap alone) or `dip test and gap`, with the
/// dip test's p-value.
pub fn evidence(m: &crate::verdict::decide::Multimodal) -> String {
    let by = if m.regimes.by_gap {
        "gap test"
    } else {
        "dip test and gap"
    };
    format!("{by}; dip test p={:.3}", m.p_value)
}

/// The too-few-samples warning of a comparison (None when it has enough samples), without
/// the name: `too few samples (3+3): …`.
pub fn too_few_text(a: &Assessment) -> Option<String> {
    if !a.too_few_samples {
        return None;
    }
    let c = &a.row.comparison;
    Some(too_few_sentence(
        [c.old.len(), c.new.len()],
        a.min_attainable_p,
        a.verdict,
    ))
}

/// [`too_few_text`] of a comparison of `n` (old, new) samples whose smallest attainable
/// p-value is `min_p`, with the verdict `v`.
fn too_few_sentence(n: [usize; 2], min_p: f64, v: Verdict) -> String {
    format!(
        "too few samples ({}+{}): the smallest p-value a rank test can reach with these counts \
         is {:.3}, above alpha, so no change can be shown and the verdict stays inconclusive \
         whatever the change figure says{}",
        n[0],
        n[1],
        min_p,
        match v {
            Verdict::Inconclusive {
                runs_needed: Some(n),
            } => format!(" (need at least {n} samples a side)"),
            _ => String::new(),
        }
    )
}

/// The too-few-samples note of the report of `rows`: the one comparison with its warning, or
/// the count and the first one when several have too few samples (None when none has).
pub fn too_few_note(rows: &[TableRow<'_>]) -> Option<String> {
    let mut few = rows.iter().filter(|x| x.estimate.too_few_samples);
    let first = few.next()?;
    let text = too_few_sentence(
        first.estimate.n.map(|n| n as usize),
        first.min_attainable_p,
        first.verdict,
    );
    let name = first.name.trim_end();
    let more = few.count();
    Some(if more == 0 {
        format!("{name}: {text}")
    } else {
        format!(
            "{} comparisons have too few samples (first: {name}): {text}",
            more + 1
        )
    })
}

/// The note saying how comparisons were analysed when some could not be paired because the
/// inputs record no rounds.
const METHOD_NOTE: &str = "unpaired analysis (Welch's test, Fieller's interval of the ratio of \
                           means): the inputs record no rounds that ran together, so the i-th \
                           old and i-th new samples are not paired and none is dropped";

/// The geomean cell text of the report of `rows`: the change, or `n/a` when it is
/// undefined; None below two rows.
pub fn geomean_text(rows: &[TableRow<'_>]) -> Option<String> {
    decide::geomean(rows.iter().map(|x| x.log_ratio)).map(|g| match g.change_pct() {
        Some(c) => signed_pct(c),
        None => "n/a".to_owned(),
    })
}

/// Report-level notes: the analysis method when some comparison is `unpaired` for want of
/// recorded rounds, benchmarks on one side only, an undefined `geomean` (one line each; empty
/// when there is nothing to say).
pub fn report_notes(
    unpaired: bool,
    one_sided: &OneSided,
    geomean: Option<decide::Geomean>,
) -> String {
    let mut out = String::new();
    if unpaired {
        let _ = writeln!(out, "note: {METHOD_NOTE}");
    }
    if let Some(w) = one_sided.warning() {
        let _ = writeln!(out, "warning: {}", super::escape_control(&w));
    }
    if let Some(n) = geomean.and_then(|g| g.note()) {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// The rank-test line of `--details`: R's p with its method, benchstat's exact-with-ties p when
/// it differs in method, and the Hodges–Lehmann shift.
fn rank_details(x: &Assessment, unit: &str) -> Option<String> {
    let r = x.rank.as_ref()?;
    let mut s = format!(
        "  Mann-Whitney: W={}, p={} ({})",
        r.w,
        p_text(r.p_value),
        r.method.label()
    );
    if let Some(u) = &x.u_test
        && u.method() != r.method
    {
        let _ = write!(s, ", p={} ({})", p_text(u.p_value), u.method().label());
    }
    let _ = write!(
        s,
        "; Hodges-Lehmann shift {} {} [{}, {}] (median of pairwise differences)",
        si(r.shift),
        unit,
        si(r.shift_ci.0),
        si(r.shift_ci.1)
    );
    Some(s)
}

/// Per-comparison details (`--details`): the change by every method benchdiff computes.
pub fn details(a: &[Assessment]) -> String {
    let mut out = String::new();
    for x in a {
        let c = &x.row.comparison;
        let _ = writeln!(out, "{}", super::escape_control(&c.name));
        for (side, s) in [("old", &x.old_side), ("new", &x.new_side)] {
            let ci = s
                .median_ci
                .map(|(lo, hi)| format!("[{}, {}]", si(lo), si(hi)))
                .unwrap_or_else(|| "(needs 6 samples)".to_owned());
            // An empty side has no median; one sample has no spread: say so, never NaN.
            let median = if s.n == 0 || !s.median.is_finite() {
                "— (no samples)".to_owned()
            } else {
                format!("{} {}", si(s.median), c.unit)
            };
            let cv = if s.cv_pct.is_finite() {
                format!("{:.2}%", s.cv_pct)
            } else if s.n < 2 {
                "n/a (needs 2 samples)".to_owned()
            } else {
                "n/a (mean is 0)".to_owned()
            };
            let _ = writeln!(
                out,
                "  {side}: n={} median {median} 95% CI {ci}, CV {cv}",
                s.n
            );
        }
        if let Some(p) = &x.paired {
            // Round ratios that do not vary make t infinite (or 0/0): the change is exact.
            let test = if p.t.is_finite() && p.p_value.is_finite() {
                format!("t={:.3}, df={}, p={}", p.t, p.df, p_text(p.p_value))
            } else {
                "t and p n/a (the round ratios do not vary: the change is exact)".to_owned()
            };
            let _ = writeln!(
                out,
                "  paired ({} rounds): ratio {:.4} [{:.4}, {:.4}], {test}",
                p.n, p.ratio, p.ratio_ci.0, p.ratio_ci.1,
            );
        }
        if let Ok(w) = &x.row.welch {
            // Two constant sides (a 0 → 0 row) make t and df 0/0: there is nothing to test.
            let test = if w.t.is_finite() && w.df.is_finite() {
                format!("t={:.3}, df={:.2}, p={}", w.t, w.df, p_text(w.p_value))
            } else {
                "t and df n/a (neither side varies)".to_owned()
            };
            let _ = writeln!(
                out,
                "  Welch: improvement {} (means), {test}",
                signed_pct(x.row.improvement_pct),
            );
        }
        if let Some(line) = rank_details(x, &c.unit) {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// How many of `verdicts` there are, then how many are faster, slower, no change and
/// inconclusive (the counts of the summary lines of the table and the Markdown comment).
pub fn verdict_counts(verdicts: impl Iterator<Item = Verdict>) -> [usize; 5] {
    let mut count = [0usize; 5];
    for v in verdicts {
        count[0] += 1;
        count[match v {
            Verdict::Faster => 1,
            Verdict::Slower => 2,
            Verdict::NoChange => 3,
            Verdict::Inconclusive { .. } => 4,
        }] += 1;
    }
    count
}

/// One-line summary of the comparisons with the verdicts `verdicts`: counts per verdict and
/// the rules used, followed by the failures `f` when there are any, e.g. `…; FAILED: 1
/// benchmark with failed jobs (2 jobs timed out)`.
pub fn summary_line(
    verdicts: impl Iterator<Item = Verdict>,
    opts: &Options,
    f: &Failures,
) -> String {
    let count = verdict_counts(verdicts);
    let mut s = format!(
        "{} comparison{}: {} faster, {} slower, {} no change, {} inconclusive \
         ({} correction, alpha {}, threshold ±{}%)",
        count[0],
        if count[0] == 1 { "" } else { "s" },
        count[1],
        count[2],
        count[3],
        count[4],
        opts.correction.label(),
        opts.alpha,
        opts.threshold_pct
    );
    if let Some(x) = f.summary() {
        s.push_str("; ");
        s.push_str(f.heading());
        s.push_str(": ");
        s.push_str(&x);
    }
    s
}

/// The failures section of the terminal table (empty when nothing failed): a heading line and
/// one line per failure ([`crate::compare::failures::Failure::describe`]).
pub fn failures_section(f: &Failures) -> String {
    let Some(sum) = f.summary() else {
        return String::new();
    };
    let mut out = format!("\n{}: {sum}: {}\n", f.heading(), f.consequence());
    for l in f.lines() {
        out.push_str("  ");
        out.push_str(&super::escape_control(&l));
        out.push('\n');
    }
    out
}

/// Adds the failures to the rendered table of `rows`: the summary line says them and a
/// section lists them.
pub fn with_failures(
    mut text: String,
    rows: &[TableRow<'_>],
    opts: &Options,
    f: &Failures,
) -> String {
    if f.is_empty() {
        return text;
    }
    let verdicts = || rows.iter().map(|x| x.verdict);
    let plain = summary_line(verdicts(), opts, &Failures::default());
    text = text.replacen(&plain, &summary_line(verdicts(), opts, f), 1);
    text.push_str(&failures_section(f));
    text
}

/// One comparison as the table reports it: every figure and text of its row and notes,
/// without its samples. An [`Assessment`] holds its comparison's samples, and a report of half
/// a million comparisons cannot keep them all: a report keeps these instead, one per
/// comparison, made from its assessment ([`TableRow::with_notes`]) partition by partition,
/// and renders them ([`render`], [`write_rows`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TableRow<'a> {
    /// The comparison's name (not escaped).
    pub name: std::borrow::Cow<'a, str>,
    /// What the verdict rests on besides the corrected p-value.
    pub estimate: decide::Estimate,
    /// Raw two-sided p-value (NaN without a test).
    pub p_value: f64,
    /// p-value after the report's correction (NaN before [`decide::decide`] and without a test).
    pub p_adjusted: f64,
    /// The verdict (inconclusive before [`decide::decide`]).
    pub verdict: Verdict,
    /// Estimated by the paired method.
    pub paired: bool,
    /// Its p-value cells say `exact` ([`p_cell`]).
    pub exact: bool,
    /// A side has two regimes ([`verdict_cell`]).
    pub regimes: bool,
    /// Smallest p-value a rank test can reach with its sample counts.
    pub min_attainable_p: f64,
    /// Its inputs record no rounds ([`method_note`]).
    pub unpaired_input: bool,
    /// The hint of the single-sample note, should it be the first such comparison.
    pub single_hint: &'static str,
    /// Its term of the geomean ([`decide::log_ratio`]).
    pub log_ratio: Option<f64>,
    /// The flags cell ([`flags`]).
    pub flags: Box<str>,
    /// Its own note lines in the report's format, each ending in a newline (empty for most
    /// comparisons): [`comparison_notes`] for the table.
    pub notes: Box<str>,
    /// Each side's coefficient of variation, percent (old, new), when the report shows it
    /// (`--cv`, samples with counters): [`render`] then adds the `CV old/new` column
    /// ([`write_rows`] has no such column).
    pub cv_pct: Option<[f64; 2]>,
}

impl<'a> TableRow<'a> {
    /// The table's row of an assessment, its name borrowed (its verdict and corrected p-value
    /// as assessed).
    pub fn of(a: &'a Assessment) -> TableRow<'a> {
        TableRow::with_notes(a, comparison_notes)
    }

    /// [`TableRow::of`] with the notes that `notes` appends for the assessment (another
    /// report's, such as the Markdown comment's).
    pub fn with_notes(a: &'a Assessment, notes: fn(&Assessment, &mut String)) -> TableRow<'a> {
        let mut text = String::new();
        notes(a, &mut text);
        let notes = text;
        let c = &a.row.comparison;
        TableRow {
            name: std::borrow::Cow::Borrowed(c.name.as_str()),
            estimate: decide::Estimate::of(a),
            p_value: a.p_value,
            p_adjusted: a.p_adjusted,
            verdict: a.verdict,
            paired: a.method == Method::Paired,
            exact: is_exact(a),
            regimes: has_regimes(&a.old_side) || has_regimes(&a.new_side),
            min_attainable_p: a.min_attainable_p,
            unpaired_input: c.pairing == crate::compare::Pairing::None,
            single_hint: single_hint(c),
            log_ratio: decide::log_ratio(a),
            flags: flags(a).into_boxed_str(),
            notes: notes.into_boxed_str(),
            cv_pct: None,
        }
    }

    /// The row with its name copied, to outlive the assessment.
    pub fn into_owned(self) -> TableRow<'static> {
        TableRow {
            name: std::borrow::Cow::Owned(self.name.into_owned()),
            ..self
        }
    }
}

// A row is decided with the report's other comparisons ([`decide::decide`]).
decide::decidable_record!(TableRow<'_>);

/// The columns of the table: header, kind, right-aligned. With no correction the adjusted p
/// equals the raw p: the fourth column ([`P_RAW`]) is then left out.
fn columns(opts: &Options) -> Vec<Col> {
    let adj = if opts.correction == decide::Correction::None {
        "p".to_owned()
    } else {
        format!("p ({})", opts.correction.label())
    };
    vec![
        Col::new("benchmark", Kind::Name, false),
        Col::new("change", Kind::Number, true),
        Col::new("95% CI", Kind::Text, true),
        Col::new("p", Kind::Number, true),
        Col::new(&adj, Kind::Number, true),
        Col::new("verdict", Kind::Text, false),
        Col::new("runs", Kind::Text, true),
        Col::new("flags", Kind::Text, false),
    ]
}

/// The index of the raw p-value among [`columns`].
const P_RAW: usize = 3;

/// The colour of a row's verdict and its eight cells ([`columns`]).
fn cells(x: &TableRow<'_>) -> (Option<Color>, [String; 8]) {
    let color = match x.verdict {
        Verdict::Faster => Some(Color::Green),
        Verdict::Slower => Some(Color::Red),
        Verdict::Inconclusive { .. } => Some(Color::Yellow),
        Verdict::NoChange => None,
    };
    let runs = format!(
        "{}/{}{}",
        x.estimate.n[0],
        x.estimate.n[1],
        if x.paired { " paired" } else { "" }
    );
    let row = [
        super::escape_control(&x.name).into_owned(),
        signed_pct(x.estimate.change_pct),
        ci_text(x.estimate.change_ci_pct),
        p_cell(x.exact, x.p_value),
        p_cell(x.exact, x.p_adjusted),
        verdict_cell(x.verdict, x.regimes),
        runs,
        x.flags.to_string(),
    ];
    (color, row)
}

/// The `CV old/new` column of `rows` when they carry their sides' CV ([`TableRow::cv_pct`]),
/// with `height` cells (a geomean row's is empty).
fn cv_column(rows: &[TableRow<'_>], height: usize) -> Option<Col> {
    rows.iter().any(|r| r.cv_pct.is_some()).then(|| {
        let mut c = Col::new(super::metrics::CV_HEADER, Kind::Number, true);
        c.cells = rows
            .iter()
            .map(|r| r.cv_pct.map(super::metrics::cv_cell).unwrap_or_default())
            .collect();
        c.cells.resize(height, String::new());
        c
    })
}

/// The geomean row's cells, when the report has one (two comparisons or more).
fn geomean_row(rows: &[TableRow<'_>]) -> Option<[String; 8]> {
    let g = geomean_text(rows)?;
    let mut cells: [String; 8] = Default::default();
    cells[0] = "geomean".to_owned();
    cells[1] = g;
    Some(cells)
}

/// What a report adds to the table ([`render`]): columns inserted before `verdict`
/// (header, one cell per row), and a text appended to each row's verdict.
#[derive(Clone, Debug, Default)]
pub struct Extra {
    /// `(header, cells)`, the cells in row order.
    pub columns: Vec<(String, Vec<String>)>,
    /// Per row, appended to its verdict cell (none when shorter than the rows).
    pub verdict_suffix: Vec<&'static str>,
}

/// Renders the rows of a report (in report order, decided) as a table, with the benchmarks
/// measured on one side only listed in a warning below it (they are not rows and not
/// counted). `color` turns on ANSI styling; `width` is the terminal width in columns (None:
/// no limit).
/// `extra` adds the report's columns and verdict texts ([`Extra`]).
pub fn render(
    rows: &[TableRow<'_>],
    one_sided: &OneSided,
    opts: &Options,
    color: bool,
    width: Option<u16>,
    extra: &Extra,
) -> String {
    let mut t = Table::new();
    t.load_style(
        presets::NOTHING
            .header_separator(LineStyle::none().fill('─').junction('─'))
            .bottom_border(LineStyle::none().fill('─').junction('─')),
    );
    if color {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    // Any wrapping is done here (`fit`), at `/` and spaces, never inside a word.
    t.set_content_arrangement(ContentArrangement::Disabled);
    // The columns as text first, so that a width limit can drop or wrap them before drawing.
    let one_p = opts.correction == decide::Correction::None;
    let mut cols = columns(opts);
    // The cells of each row on their own.
    let cells: Vec<(Option<Color>, [String; 8])> = rows.iter().map(cells).collect();
    let mut colors: Vec<Option<Color>> = Vec::with_capacity(cells.len() + 1);
    for c in cols.iter_mut() {
        c.cells.reserve(cells.len() + 1);
    }
    for (color, row) in cells {
        colors.push(color);
        for (c, v) in cols.iter_mut().zip(row) {
            c.cells.push(v);
        }
    }
    if let Some(g) = geomean_row(rows) {
        colors.push(None);
        for (c, v) in cols.iter_mut().zip(g) {
            c.cells.push(v);
        }
    }
    add_extra(&mut cols, extra);
    if one_p {
        cols.remove(P_RAW);
    }
    if let Some(cv) = cv_column(rows, colors.len()) {
        let at = cols
            .iter()
            .position(|c| c.header == "95% CI")
            .map_or(2, |i| i + 1);
        cols.insert(at, cv);
    }
    let hidden = match width {
        Some(w) => fit(&mut cols, usize::from(w)),
        None => Vec::new(),
    };
    let mut out = if color {
        t.set_header(
            cols.iter()
                .map(|c| Cell::new(&c.header).add_attribute(Attribute::Bold)),
        );
        for (r, row_color) in colors.iter().enumerate() {
            t.add_row(cols.iter().map(|c| {
                let mut cell = Cell::new(&c.cells[r]);
                if c.right {
                    cell = cell.set_alignment(CellAlignment::Right);
                }
                if c.kind == Kind::Text
                    && c.header == "verdict"
                    && let Some(col) = *row_color
                {
                    cell = cell.fg(col);
                }
                cell
            }));
        }
        t.to_string()
    } else {
        plain_table(&cols, colors.len())
    };
    if !hidden.is_empty() {
        let note = format!(
            "columns left out to fit {} columns: {}; see them with --format json or a wider COLUMNS",
            width.unwrap_or(0),
            hidden.join(", ")
        );
        out.push('\n');
        out.push_str(&wrap(
            &note,
            usize::from(width.unwrap_or(0)).max(20),
            Kind::Text,
        ));
    }
    let mut trailer = Vec::new();
    // Writing to memory does not fail.
    let _ = write_trailer(rows, one_sided, opts, &mut trailer);
    out.push_str(&String::from_utf8_lossy(&trailer));
    out
}

/// Inserts `extra`'s columns before the verdict column (an empty cell for a row they have none
/// for, such as the geomean) and appends its verdict texts.
fn add_extra(cols: &mut Vec<Col>, extra: &Extra) {
    let Some(at) = cols.iter().position(|c| c.header == "verdict") else {
        return;
    };
    let rows = cols[at].cells.len();
    for (i, s) in extra.verdict_suffix.iter().enumerate().take(rows) {
        cols[at].cells[i].push_str(s);
    }
    for (k, (header, cells)) in extra.columns.iter().enumerate() {
        let mut c = Col::new(header, Kind::Text, true);
        c.cells = cells.clone();
        c.cells.resize(rows, String::new());
        cols.insert(at + k, c);
    }
}

/// What follows the table: a blank line, the summary line, and the notes (the comparisons'
/// own, then the report's) after a blank line when there are any.
fn write_trailer(
    rows: &[TableRow<'_>],
    one_sided: &OneSided,
    opts: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    out.write_all(b"\n\n")?;
    let summary = summary_line(rows.iter().map(|x| x.verdict), opts, &Failures::default());
    out.write_all(summary.as_bytes())?;
    out.write_all(b"\n")?;
    let mut tail = count_notes(rows);
    tail.push_str(&report_notes(
        rows.iter().any(|x| x.unpaired_input),
        one_sided,
        decide::geomean(rows.iter().map(|x| x.log_ratio)),
    ));
    if tail.is_empty() && rows.iter().all(|x| x.notes.is_empty()) {
        return Ok(());
    }
    out.write_all(b"\n")?;
    for x in rows {
        out.write_all(x.notes.as_bytes())?;
    }
    out.write_all(tail.as_bytes())
}

/// Writes the table of `rows` (in report order, decided) to `out` as [`render`] renders
/// it without colour or width limit, byte for byte, but a few thousand rows at a time: the
/// cells are formatted twice (once for the column widths, once to write them) and never held
/// for all rows, so that half a million rows take no more memory than their [`TableRow`]s
///.
///
/// # Errors
/// Writing to `out` failed.
pub fn write_rows(
    rows: &[TableRow<'_>],
    one_sided: &OneSided,
    opts: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let cols = columns(opts);
    let shown: Vec<usize> = (0..cols.len())
        .filter(|&i| !(i == P_RAW && opts.correction == decide::Correction::None))
        .collect();
    let right: Vec<bool> = cols.iter().map(|c| c.right).collect();
    let geomean = geomean_row(rows);
    let widest = |mut w: [usize; 8], cells: &[String; 8]| {
        for (w, c) in w.iter_mut().zip(cells) {
            *w = (*w).max(cell_width(c));
        }
        w
    };
    let mut all = rows.iter().fold([0usize; 8], |w, x| widest(w, &cells(x).1));
    if let Some(g) = &geomean {
        all = widest(all, g);
    }
    let widths: Vec<usize> = shown
        .iter()
        .map(|&i| all[i].max(cell_width(&cols[i].header)).max(1))
        .collect();
    let rule = rule(&widths);
    let mut text = String::new();
    table_row(
        &mut text,
        &widths,
        shown.iter().map(|&i| (cols[i].header.as_str(), false)),
    );
    text.push_str(&rule);
    text.push('\n');
    out.write_all(text.as_bytes())?;
    const CHUNK: usize = 512;
    for batch in rows.chunks(CHUNK * 32) {
        let parts: Vec<String> = batch
            .chunks(CHUNK)
            .map(|chunk| {
                let mut text = String::with_capacity(chunk.len() * rule.len() / 3);
                for x in chunk {
                    let (_, c) = cells(x);
                    table_row(
                        &mut text,
                        &widths,
                        shown.iter().map(|&i| (c[i].as_str(), right[i])),
                    );
                }
                text
            })
            .collect();
        for p in parts {
            out.write_all(p.as_bytes())?;
        }
    }
    text.clear();
    if let Some(g) = &geomean {
        table_row(
            &mut text,
            &widths,
            shown.iter().map(|&i| (g[i].as_str(), right[i])),
        );
    }
    text.push_str(&rule);
    out.write_all(text.as_bytes())?;
    write_trailer(rows, one_sided, opts, out)
}

/// The width of a cell: its widest line, in terminal columns.
fn cell_width(s: &str) -> usize {
    s.split('\n').map(dw).max().unwrap_or(0)
}

/// The rule above and below the rows of a table whose columns are `widths` wide.
fn rule(widths: &[usize]) -> String {
    "─".repeat(widths.iter().map(|w| w + 2).sum::<usize>() + widths.len().saturating_sub(1))
}

/// Appends one row of a plain table (all its lines, each ending in a newline) to `out`:
/// `cells` are (text, right-aligned), the columns `widths` wide (see [`plain_table`]).
fn table_row<'a>(out: &mut String, widths: &[usize], cells: impl Iterator<Item = (&'a str, bool)>) {
    let mut lines: Vec<(std::str::Split<'a, char>, bool)> = Vec::with_capacity(widths.len());
    let mut height = 0;
    for (text, right) in cells {
        height = height.max(text.split('\n').count());
        lines.push((text.split('\n'), right));
    }
    for _ in 0..height {
        for (i, (parts, right)) in lines.iter_mut().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let w = widths[i];
            match parts.next() {
                Some(line) => {
                    let pad = w.saturating_sub(dw(line));
                    let (before, after) = if *right { (pad, 0) } else { (0, pad) };
                    out.extend(std::iter::repeat_n(' ', 1 + before));
                    out.push_str(line);
                    out.extend(std::iter::repeat_n(' ', after + 1));
                }
                None => out.extend(std::iter::repeat_n(' ', w + 2)),
            }
        }
        out.push('\n');
    }
}

/// The table of `cols` (each with `rows` cells) without colour, drawn straight into one
/// string: the layout comfy-table draws for the style above with no width limit (a header,
/// a line of `─`, the rows, a line of `─`; columns as wide as their widest line, at least 1,
/// with one space of padding on each side and one space between columns; numbers right-aligned,
/// other cells and the headers left-aligned; a cell of several lines makes its row as high, the
/// other cells filled with spaces), without its per-cell structures (a million-row report
/// has 20,000 rows).
fn plain_table(cols: &[Col], rows: usize) -> String {
    let widths: Vec<usize> = cols
        .iter()
        .map(|c| {
            cell_width(&c.header)
                .max(c.cells.iter().map(|s| cell_width(s)).max().unwrap_or(0))
                .max(1)
        })
        .collect();
    let rule = rule(&widths);
    let line_len = rule.len() / 3 + 1;
    let mut out = String::with_capacity((rows + 3) * line_len + 2 * rule.len());
    table_row(
        &mut out,
        &widths,
        cols.iter().map(|c| (c.header.as_str(), false)),
    );
    out.push_str(&rule);
    out.push('\n');
    const CHUNK: usize = 512;
    let chunks: Vec<String> = (0..rows.div_ceil(CHUNK))
        .map(|k| {
            let range = k * CHUNK..((k + 1) * CHUNK).min(rows);
            let mut text = String::with_capacity(range.len() * line_len);
            for r in range {
                table_row(
                    &mut text,
                    &widths,
                    cols.iter().map(|c| (c.cells[r].as_str(), c.right)),
                );
            }
            text
        })
        .collect();
    for c in &chunks {
        out.push_str(c);
    }
    out.push_str(&rule);
    out
}

/// How a column's text may be wrapped to fit a width.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A benchmark name: wraps after `/` and at spaces; a longer piece is broken as a last resort.
    Name,
    /// Words (verdict, flags, interval, runs): wraps at spaces only.
    Text,
    /// A number: never wrapped.
    Number,
}

/// One column of the table as text.
struct Col {
    header: String,
    kind: Kind,
    right: bool,
    cells: Vec<String>,
}

impl Col {
    fn new(header: &str, kind: Kind, right: bool) -> Col {
        Col {
            header: header.to_owned(),
            kind,
            right,
            cells: Vec::new(),
        }
    }

    /// The width (terminal columns) of the widest line, header included.
    fn natural(&self) -> usize {
        std::iter::once(&self.header)
            .chain(&self.cells)
            .flat_map(|s| s.lines())
            .map(dw)
            .max()
            .unwrap_or(0)
    }

    /// The narrowest width that wraps no word: the widest unbreakable piece (a name's pieces
    /// count up to 16 columns, beyond which they may be broken).
    fn min(&self) -> usize {
        let head = self.header.split(' ').map(dw).max().unwrap_or(0);
        let body = match self.kind {
            Kind::Number => self.cells.iter().map(|s| dw(s)).max().unwrap_or(0),
            Kind::Text => self
                .cells
                .iter()
                .flat_map(|s| s.split(' '))
                .map(dw)
                .max()
                .unwrap_or(0),
            Kind::Name => self
                .cells
                .iter()
                .flat_map(|s| pieces(s, Kind::Name))
                .map(|(_, p)| dw(&p).min(16))
                .max()
                .unwrap_or(0),
        };
        head.max(body)
    }
}

/// Display width in terminal columns.
fn dw(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// Width a column adds besides its text: one space of padding each side and the one-space
/// separator between columns (one column too many at the edge: a safe bound).
const PAD: usize = 3;

/// Fits the columns into `width` terminal columns: drops low-value columns while even the
/// narrowest wrapping does not fit (the raw `p` beside the corrected one first, then the CV,
/// the interval, runs and flags), gives the spare width to the columns that need it and wraps
/// their cells. Returns the headers of the dropped columns.
fn fit(cols: &mut Vec<Col>, width: usize) -> Vec<String> {
    let total =
        |cs: &[Col], f: &dyn Fn(&Col) -> usize| cs.iter().map(|c| f(c) + PAD).sum::<usize>();
    if total(cols, &Col::natural) <= width {
        return Vec::new();
    }
    let mut hidden = Vec::new();
    let mut drop = |cols: &mut Vec<Col>, h: &str| {
        if let Some(i) = cols.iter().position(|c| c.header == h) {
            hidden.push(cols.remove(i).header);
        }
    };
    // The uncorrected p when a corrected one is shown: the verdict rests on the corrected one.
    if cols.iter().filter(|c| c.header.starts_with('p')).count() == 2 {
        drop(cols, "p");
    }
    for h in [super::metrics::CV_HEADER, "95% CI", "runs", "flags"] {
        if total(cols, &Col::natural) > width && total(cols, &Col::min) > width {
            drop(cols, h);
        }
    }
    let mut w: Vec<usize> = cols.iter().map(Col::min).collect();
    let nat: Vec<usize> = cols.iter().map(Col::natural).collect();
    let mut spare = width.saturating_sub(w.iter().map(|x| x + PAD).sum());
    // Short columns first (they then take one line), then the name, then the flags.
    let mut order: Vec<usize> = (0..cols.len()).collect();
    order.sort_by_key(|&i| match (cols[i].kind, cols[i].header.as_str()) {
        (_, "flags") => 3,
        (Kind::Name, _) => 2,
        _ => 1,
    });
    for i in order {
        let more = (nat[i] - w[i]).min(spare);
        w[i] += more;
        spare -= more;
    }
    for (c, &cw) in cols.iter_mut().zip(&w) {
        c.header = wrap(&c.header, cw, Kind::Text);
        if c.kind == Kind::Number {
            continue;
        }
        for s in &mut c.cells {
            *s = wrap(s, cw, c.kind);
        }
    }
    hidden
}

/// Splits text into the pieces a line may break between, each with the text that joins it to
/// the previous piece on the same line: a space, or nothing after a name's `/`.
fn pieces(s: &str, kind: Kind) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (wi, word) in s.split(' ').enumerate() {
        let join = if wi == 0 { "" } else { " " };
        if kind == Kind::Name {
            let mut first = true;
            for part in word.split_inclusive('/') {
                out.push((if first { join } else { "" }, part.to_owned()));
                first = false;
            }
            if word.is_empty() {
                out.push((join, String::new()));
            }
        } else {
            out.push((join, word.to_owned()));
        }
    }
    out
}

/// Wraps text to `width` columns at the breaks [`pieces`] allows, breaking a piece only when
/// it alone is wider than the line.
fn wrap(s: &str, width: usize, kind: Kind) -> String {
    if dw(s) <= width || width == 0 {
        return s.to_owned();
    }
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (join, p) in pieces(s, kind) {
        if !cur.is_empty() && dw(&cur) + dw(join) + dw(&p) <= width {
            cur.push_str(join);
            cur.push_str(&p);
            continue;
        }
        if !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        // The last resort: a piece wider than the line is cut at the width.
        for ch in p.chars() {
            let cw = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
            if dw(&cur) + cw > width && !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
            }
            cur.push(ch);
        }
    }
    lines.push(cur);
    lines.join("\n")
}

/// The section printed after the table of a `--runs auto --stop decided` run: every
/// configuration its sequential rule settled, marked `†`, with the anytime-valid interval it
/// settled on (percent change of new against old, the run's family-wise α split over
/// `rows` rows) and its decision. The table above shows the fixed-sample statistics of all
/// samples; for a settled row the interval to quote is this one, as it is valid however
/// the run stopped. Empty when nothing was decided.
pub fn sequential_section(
    settled: &[(String, u32, crate::format::results::plan::Status)],
) -> String {
    use crate::format::results::plan::Status;
    use crate::verdict::sequential::Decision;
    let mut lines = Vec::new();
    let mut futile = Vec::new();
    let mut rows = 0;
    let mut alpha = 0.0;
    for (name, round, st) in settled {
        if let Status::Futile {
            conditional_power,
            lo_pct,
            hi_pct,
        } = st
        {
            futile.push(format!(
                "  ‡ {name}: stopped after {round} runs a side, {:.1}% chance of a decision by \
                 --max-runs; sequential interval [{lo_pct:+.2}%, {hi_pct:+.2}%]",
                100.0 * conditional_power
            ));
        }
        if let Status::Decided {
            decision,
            lo_pct,
            hi_pct,
            row_alpha,
            rows: m,
        } = st
        {
            rows = *m;
            alpha = *row_alpha;
            lines.push(format!(
                "  † {name}: {} after {round} runs a side, anytime-valid interval [{lo_pct:+.2}%, \
                 {hi_pct:+.2}%]",
                match decision {
                    Decision::Faster => "faster",
                    Decision::Slower => "slower",
                    Decision::NoChange => "no change",
                }
            ));
        }
    }
    let mut out = String::new();
    if !lines.is_empty() {
        out = format!(
            "\n† settled by --stop decided: the run stopped these rows when their anytime-valid \
             interval (level {:.2}% per row = 5% family-wise over {rows} rows, Bonferroni) was \
             decided; their verdict and interval above are these, not a fixed-sample test's \
             (p stays the fixed-sample one):\n{}\n",
            100.0 * (1.0 - alpha),
            lines.join("\n")
        );
    }
    if !futile.is_empty() {
        out.push_str(&format!(
            "\n‡ stopped for futility (--stop decided; --no-futility runs them on): these rows \
             could almost surely not be decided by --max-runs, so the run stopped them \
             undecided; their verdict is inconclusive whatever the fixed-sample test above \
             says:\n{}\n",
            futile.join("\n")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regime_centres_are_written_apart() {
        assert_eq!(si(15.46e-9), si(15.54e-9), "si alone writes both as 15.5n");
        assert_eq!(si_distinct(&[15.46e-9, 15.54e-9]), ["15.46n", "15.54n"]);
        assert_eq!(si_distinct(&[1.0e-6, 2.0e-6]), ["1.00µ", "2.00µ"]);
        assert_eq!(si_distinct(&[3.0, 3.0]), ["3.00", "3.00"]);
    }

    /// A multimodal side of a metric without a unit names its regimes' centres alone, one
    /// space before the share (with a unit: `3.29M ops/s (50% of runs)`).
    #[test]
    fn regimes_of_a_unitless_metric_have_no_empty_unit() {
        let wave = |base: f64, i: usize| {
            base * (1.0 + 0.03 * (((i as f64 * 0.618_033_988_75 + 0.1).fract() - 0.5) * 2.0))
        };
        let old: Vec<f64> = (0..10).map(|i| wave(3.1e6, i)).collect();
        let new: Vec<f64> = (0..10)
            .map(|i| wave(if i % 2 == 0 { 3.3e6 } else { 5.9e6 }, i + 20))
            .collect();
        let c = crate::compare::Comparison {
            benchmark: crate::sample::BenchmarkId(0),
            name: "count.js".into(),
            metric: crate::sample::RATE,
            better: crate::sample::Better::Lower,
            metric_name: "instructions".into(),
            unit: String::new(),
            old_runs: (0..10).collect(),
            new_runs: (0..10).collect(),
            old,
            new,
            pairing: crate::compare::Pairing::Runs,
            summary: None,
        };
        let a = decide::assess(vec![crate::verdict::Row::new(c)], &Options::default());
        let mut notes = String::new();
        comparison_notes(&a[0], &mut notes);
        assert!(
            notes.contains("2 regimes: 3.29M (50% of runs), 5.83M (50% of runs)"),
            "{notes}"
        );
    }

    /// The same columns drawn by comfy-table without colour, as `render` did before
    /// [`plain_table`].
    fn comfy_plain(cols: &[Col], rows: usize) -> String {
        let mut t = Table::new();
        t.load_style(
            presets::NOTHING
                .header_separator(LineStyle::none().fill('─').junction('─'))
                .bottom_border(LineStyle::none().fill('─').junction('─')),
        );
        t.force_no_tty();
        t.set_content_arrangement(ContentArrangement::Disabled);
        t.set_header(
            cols.iter()
                .map(|c| Cell::new(&c.header).add_attribute(Attribute::Bold)),
        );
        for r in 0..rows {
            t.add_row(cols.iter().map(|c| {
                let cell = Cell::new(&c.cells[r]);
                if c.right {
                    cell.set_alignment(CellAlignment::Right)
                } else {
                    cell
                }
            }));
        }
        t.to_string()
    }

    #[test]
    fn plain_table_is_comfy_tables_layout() {
        let names = [
            "util/format.js type='string' n=100",
            "a",
            "",
            "長い名前/ベンチ.js n=1",
            "buffers/buffer-compare.js size=16 method='slice'",
        ];
        let flags = [
            "",
            "multimodal(old)",
            "outliers(old:2,new:1) drift(new)",
            "x",
            "",
        ];
        for width in [0usize, 8, 12, 20, 30, 200] {
            let mut cols = vec![
                Col::new("benchmark", Kind::Name, false),
                Col::new("change", Kind::Number, true),
                Col::new("95% CI", Kind::Text, true),
                Col::new("verdict", Kind::Text, false),
                Col::new("flags", Kind::Text, false),
            ];
            for (i, name) in names.iter().enumerate() {
                let row = [
                    name.to_string(),
                    format!("{:+.2}%", i as f64 * 3.7 - 5.0),
                    format!("[{}%, +{}%]", -(i as i32), i * 11),
                    if i % 2 == 0 {
                        "no change"
                    } else {
                        "inconclusive (need 40 runs)"
                    }
                    .to_owned(),
                    flags[i].to_owned(),
                ];
                for (c, v) in cols.iter_mut().zip(row) {
                    c.cells.push(if width == 0 {
                        v
                    } else {
                        wrap(&v, width, c.kind)
                    });
                }
            }
            if width > 0 {
                for c in &mut cols {
                    c.header = wrap(&c.header, width.min(6), Kind::Text);
                }
            }
            assert_eq!(
                plain_table(&cols, names.len()),
                comfy_plain(&cols, names.len()),
                "width {width}"
            );
        }
        // No rows at all.
        let cols = vec![Col::new("benchmark", Kind::Name, false)];
        assert_eq!(plain_table(&cols, 0), comfy_plain(&cols, 0));
    }
}
