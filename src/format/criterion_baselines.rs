//! criterion.rs saved baselines: the `target/criterion` folder (`cargo bench` saves each run
//! as `new`, moving the one before to `base`; `cargo bench -- --save-baseline NAME` saves
//! `NAME`), laid out as `<group>/<function>[/<value>]/<baseline>/{benchmark.json,
//! sample.json, estimates.json}`, and one `sample.json` file on its own.
//!
//! `sample.json` holds criterion's raw measurements: `{"sampling_mode", "iters": [n…],
//! "times": [ns…]}` (criterion 0.3.4 and later) or `[[n…], [ns…]]` (before): sample `i` ran
//! the routine `iters[i]` times in `times[i]` nanoseconds. Each sample is one sample of
//! `sec/op`, the time per iteration `times[i] / iters[i]` in seconds (lower is better);
//! `time_s` is the sample's whole time. `estimates.json` (criterion's bootstrap estimates) is
//! not read: the samples are.
//!
//! A folder compares two baselines of every benchmark found under it (at any depth): `base`
//! (old) against `new`, or the two named by `--sides-by baseline=OLD,NEW` (also
//! `--sides-by OLD,NEW`). The benchmark is named by its `benchmark.json` (`full_id`, e.g.
//! `fib/small`), else by its folder's path under the input. A `sample.json` given as a file
//! is one side, like the other one-side formats.

use crate::error::ImportError;
use crate::format::{Diagnostics, Imported, ReadOptions};
use crate::sample::{BenchmarkId, Better, Sample, SampleSet, Side};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How deep under the input folder baselines are looked for.
const MAX_DEPTH: usize = 8;

/// `(iters, times)` of a `sample.json` document, either form.
fn sample_arrays(root: &Value) -> Option<(&Vec<Value>, &Vec<Value>)> {
    if let (Some(i), Some(t)) = (
        root.get("iters").and_then(Value::as_array),
        root.get("times").and_then(Value::as_array),
    ) {
        return Some((i, t));
    }
    match root.as_array()?.as_slice() {
        [i, t] => Some((i.as_array()?, t.as_array()?)),
        _ => None,
    }
}

/// Adds the samples of a `sample.json` document to `set` as benchmark `bid` on `side`;
/// returns how many, and pushes every unreadable entry to `diags`.
fn add_samples(
    root: &Value,
    bid: BenchmarkId,
    side: Side,
    set: &mut SampleSet,
    diags: &mut Diagnostics,
) -> u64 {
    let Some((iters, times)) = sample_arrays(root) else {
        diags.push(
            1,
            "not a criterion sample.json ({\"iters\", \"times\"} or [[iters], [times]])",
        );
        return 0;
    };
    if iters.len() != times.len() {
        diags.push(
            1,
            format!(
                "{} iteration counts but {} times; the pairs present are read",
                iters.len(),
                times.len()
            ),
        );
    }
    let metric = set.intern_metric("sec/op", "sec/op", Better::Lower);
    let mut n = 0;
    for (k, (i, t)) in iters.iter().zip(times).enumerate() {
        match (i.as_f64().filter(|i| *i > 0.0), t.as_f64()) {
            (Some(i), Some(t)) => {
                n += 1;
                set.push(Sample::new(bid, side, metric, t / i * 1e-9, t * 1e-9, None));
            }
            _ => diags.push(1, format!("sample {k}: iters {i} or time {t} unreadable")),
        }
    }
    n
}

/// Reads one criterion `sample.json` document `text` into `set` on `opts.side`, as the
/// benchmark its path names (`…/<group>/<function>/<baseline>/sample.json` →
/// `<group>/<function>`), else its file name.
///
/// # Errors
/// [`ImportError::Invalid`] naming the line of a JSON syntax error, or a document that is
/// neither form of `sample.json`.
pub fn read_sample(
    text: &str,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let mut diags = Diagnostics::new(name);
    let (root, warnings) = crate::format::json_document(text, name)?;
    let path = Path::new(name);
    let bench_dir = path.parent().and_then(Path::parent);
    let bname = bench_dir
        .and_then(|d| benchmark_id(d.join(path.parent()?.file_name()?).as_path()))
        .or_else(|| {
            let parts: Vec<String> = bench_dir?
                .components()
                .rev()
                .take(2)
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            (!parts.is_empty()).then(|| parts.into_iter().rev().collect::<Vec<_>>().join("/"))
        })
        .unwrap_or_else(|| name.to_owned());
    let bid = set.intern(&bname, "");
    let n = add_samples(&root, bid, opts.side, set, &mut diags);
    crate::format::lenient_end(warnings, diags, n, "samples", Vec::new())
}

/// The `full_id` of the `benchmark.json` in baseline folder `dir`, if readable.
fn benchmark_id(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("benchmark.json")).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v.get("full_id")
        .or_else(|| v.get("title"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The old and new baseline names of `opts.sides_by` (`baseline=OLD,NEW` or `OLD,NEW`), else
/// `base` and `new`.
fn baseline_names(opts: &ReadOptions) -> Result<(String, String), String> {
    let Some(spec) = &opts.sides_by else {
        return Ok(("base".into(), "new".into()));
    };
    let list = spec.strip_prefix("baseline=").unwrap_or(spec);
    match list.split_once(',') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() && !b.contains(',') => {
            Ok((a.to_owned(), b.to_owned()))
        }
        _ => Err(format!(
            "--sides-by {spec}: a criterion folder takes two baseline names, \
             --sides-by baseline=OLD,NEW"
        )),
    }
}

/// Every folder under `dir` (to [`MAX_DEPTH`]) holding a `sample.json`, with its name.
fn baseline_dirs(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subdirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    subdirs.sort();
    for sub in subdirs {
        let Some(base) = sub.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        if base == "report" {
            continue;
        }
        if sub.join("sample.json").is_file() {
            out.push((sub.clone(), base));
        } else if depth < MAX_DEPTH {
            baseline_dirs(&sub, depth + 1, out);
        }
    }
}

/// Reads the criterion folder `dir` (named `name` in diagnostics): the two baselines of
/// [`baseline_names`], old and new, of every benchmark under it.
///
/// # Errors
/// [`ImportError::Invalid`] when `--sides-by` is malformed, when no folder under `dir` holds
/// either baseline (naming the baselines found), or when no sample of either could be read;
/// [`ImportError::Io`] when a `sample.json` cannot be read.
pub fn read_dir(
    dir: &Path,
    name: &str,
    opts: &ReadOptions,
    set: &mut SampleSet,
) -> Result<Imported, ImportError> {
    let invalid = |message: String| crate::format::invalid(name, 0, message);
    let (old, new) = baseline_names(opts).map_err(invalid)?;
    let mut found = Vec::new();
    baseline_dirs(dir, 0, &mut found);
    let wanted: Vec<&(PathBuf, String)> = found
        .iter()
        .filter(|(_, b)| *b == old || *b == new)
        .collect();
    if wanted.is_empty() {
        let mut names: Vec<&str> = found.iter().map(|(_, b)| b.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        return Err(invalid(if names.is_empty() {
            "no criterion baseline under this folder (no <benchmark>/<baseline>/sample.json); \
             run cargo bench first, or give the target/criterion folder"
                .to_owned()
        } else {
            format!(
                "no baseline {old:?} or {new:?} under this folder; the baselines found are {}: \
                 name two with --sides-by baseline=OLD,NEW",
                names.join(", ")
            )
        }));
    }
    let mut warnings = Vec::new();
    let mut records = 0u64;
    let mut diags_all = Diagnostics::new(name);
    if opts.sides_by.is_none() {
        // criterion copies each run's `new` to `base` after comparing it: then both hold the
        // same samples, and the run before is gone.
        let same: Vec<String> = wanted
            .iter()
            .filter(|(_, b)| *b == old)
            .filter(|(p, _)| {
                let new_dir = p.with_file_name(&new);
                let read = |d: &Path| std::fs::read(d.join("sample.json")).ok();
                read(p).is_some() && read(p) == read(&new_dir)
            })
            .filter_map(|(p, _)| p.parent()?.strip_prefix(dir).ok())
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if !same.is_empty() {
            let mut others: Vec<&str> = found
                .iter()
                .map(|(_, b)| b.as_str())
                .filter(|b| *b != old && *b != new)
                .collect();
            others.sort_unstable();
            others.dedup();
            let hint = if others.is_empty() {
                "save the run to compare against with cargo bench -- --save-baseline NAME, then \
                 run with --baseline NAME"
                    .to_owned()
            } else {
                format!(
                    "the other baselines found are {}: name two with --sides-by \
                     baseline=OLD,NEW",
                    others.join(", ")
                )
            };
            warnings.push(crate::error::Diagnostic::new(
                name,
                0,
                format!(
                    "{} of {} benchmarks have the same samples in base and new ({}): criterion \
                     copies each run to base after comparing it, so this compares a run with \
                     itself; {hint}",
                    same.len(),
                    wanted.iter().filter(|(_, b)| *b == old).count(),
                    same.join(", ")
                ),
            ));
        }
    }
    for (path, base) in wanted {
        let side = if *base == old { Side::Old } else { Side::New };
        let file = path.join("sample.json");
        let fname = file.to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).map_err(|e| ImportError::Io {
            file: fname.clone(),
            source: e,
        })?;
        let bench_dir = path.parent().unwrap_or(dir);
        let bname = benchmark_id(path).unwrap_or_else(|| {
            bench_dir.strip_prefix(dir).map_or_else(
                |_| bench_dir.to_string_lossy().into_owned(),
                |p| p.to_string_lossy().into_owned(),
            )
        });
        let (root, w) = match crate::format::json_document(&text, &fname) {
            Ok(x) => x,
            Err(ImportError::Invalid(d, _)) => {
                for x in d {
                    diags_all.push(0, x.to_string());
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        warnings.extend(w);
        let bid = set.intern(&bname, "");
        let mut diags = Diagnostics::new(&fname);
        if add_samples(&root, bid, side, set, &mut diags) > 0 {
            records += 1;
        }
        warnings.extend(diags.into_vec());
    }
    Ok(Imported {
        side_values: vec![old, new],
        ..crate::format::lenient_end(warnings, diags_all, records, "baselines", Vec::new())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_of_sample_json_give_time_per_iteration() {
        for text in [
            r#"{"sampling_mode":"Linear","iters":[2.0,4.0],"times":[100.0,300.0]}"#,
            "[[2.0,4.0],[100.0,300.0]]",
        ] {
            let mut set = SampleSet::new();
            let opts = ReadOptions::default();
            read_sample(text, "x/fib/small/base/sample.json", &opts, &mut set).expect("read");
            let v: Vec<f64> = set.samples().iter().map(|s| s.value).collect();
            assert_eq!(v, vec![100.0 / 2.0 * 1e-9, 300.0 / 4.0 * 1e-9], "{text}");
            assert_eq!(set.benchmarks()[0].file, "fib/small");
        }
    }
}
